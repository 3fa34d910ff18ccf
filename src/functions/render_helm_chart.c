/* render-helm-chart: Helm charts as a package source, through the real `helm template` (catalog RenderHelmChart
 * config, or a ConfigMap for one chart). Chart dependencies are built only when charts/ does not match Chart.lock. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "argocd/settings.h"
#include "functions/external.h"
#include "util/diag.h"
#include "util/fsutil.h"
#include "yaml/emit.h"
#include "yaml/load.h"

typedef struct chart {
    const node *at;
    const char *name, *version, *repo, *chart_home;
    const char *release, *namespace;
    bool include_crds, skip_tests;
    const node *api_versions;  /* sequence */
    const node *values_files;  /* sequence of strings */
    const node *values_inline; /* map */
    const char *values_merge;  /* override (default), merge, replace */
    const char *values_files_csv;
} chart;

static bool truthy(const node *n, bool def)
{
    const char *s = scalar(n);
    if (!s || !*s)
        return def;
    return !strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "yes") || !strcmp(s, "1");
}

static int read_chart(fn_ctx *c, const node *entry, const node *globals, chart *ch)
{
    memset(ch, 0, sizeof *ch);
    ch->at = entry;
    if (!is_map(entry))
        return fn_fail(c, entry, "each helmCharts entry must be a map with chartArgs and templateOptions");
    const node *args = map_get(entry, "chartArgs"), *topt = map_get(entry, "templateOptions");
    if ((args && !is_null(args) && !is_map(args)) || (topt && !is_null(topt) && !is_map(topt)))
        return fn_fail(c, entry, "chartArgs and templateOptions must be maps");
    ch->name = path_str(args, "name", NULL);
    ch->version = path_str(args, "version", NULL);
    ch->repo = path_str(args, "repo", NULL);
    ch->chart_home = path_str(entry, "chartHome", NULL);
    if (!ch->chart_home)
        ch->chart_home = path_str(globals, "chartHome", NULL);
    ch->release = path_str(topt, "releaseName", NULL);
    ch->namespace = path_str(topt, "namespace", NULL);
    ch->include_crds = truthy(map_get(topt, "includeCRDs"), true);
    ch->skip_tests = truthy(map_get(topt, "skipTests"), false);
    ch->api_versions = map_get(topt, "apiVersions");
    const node *values = map_get(topt, "values");
    if (values && !is_null(values) && !is_map(values))
        return fn_fail(c, values, "templateOptions.values must be a map (valuesFiles, valuesInline, valuesMerge)");
    ch->values_files = map_get(values, "valuesFiles");
    ch->values_inline = map_get(values, "valuesInline");
    ch->values_merge = path_str(values, "valuesMerge", NULL);
    if (!ch->name || !*ch->name)
        return fn_fail(c, entry, "chartArgs.name is required");
    if (ch->api_versions && !is_null(ch->api_versions) && !is_seq(ch->api_versions))
        return fn_fail(c, ch->api_versions, "templateOptions.apiVersions must be a list");
    if (ch->values_files && !is_null(ch->values_files) && !is_seq(ch->values_files))
        return fn_fail(c, ch->values_files, "valuesFiles must be a list of paths");
    if (ch->values_inline && !is_null(ch->values_inline) && !is_map(ch->values_inline))
        return fn_fail(c, ch->values_inline, "valuesInline must be a map");
    if (ch->values_merge && strcmp(ch->values_merge, "override") && strcmp(ch->values_merge, "merge") &&
        strcmp(ch->values_merge, "replace"))
        return fn_fail(c, values, "valuesMerge must be override, merge or replace");
    return 0;
}

/* The ConfigMap form: one chart, flat keys. */
static int read_configmap_chart(fn_ctx *c, const node *data, chart *ch)
{
    memset(ch, 0, sizeof *ch);
    ch->at = data;
    if (!is_map(data))
        return fn_fail(c, data, "render-helm-chart's ConfigMap needs data with at least name");
    ch->name = path_str(data, "name", NULL);
    ch->version = path_str(data, "version", NULL);
    ch->repo = path_str(data, "repo", NULL);
    ch->chart_home = path_str(data, "chartHome", NULL);
    ch->release = path_str(data, "releaseName", NULL);
    ch->namespace = path_str(data, "namespace", NULL);
    ch->include_crds = truthy(map_get(data, "includeCRDs"), true);
    ch->skip_tests = truthy(map_get(data, "skipTests"), false);
    ch->values_files_csv = path_str(data, "valuesFiles", NULL);
    if (!ch->name || !*ch->name)
        return fn_fail(c, data, "data.name (the chart) is required");
    return 0;
}

static const char *helm_env[8];
static char helm_env_buf[4][4200];

static const char *const *helm_environment(const fn_host *h)
{
    const char *s = scratch_dir(h);
    if (!s)
        return NULL;
    const char *names[] = {"HELM_CACHE_HOME", "HELM_CONFIG_HOME", "HELM_DATA_HOME"};
    const char *subs[] = {"cache", "config", "data"};
    for (int i = 0; i < 3; i++) {
        snprintf(helm_env_buf[i], sizeof helm_env_buf[i], "%s=%s/helm/%s", names[i], s, subs[i]);
        helm_env[i] = helm_env_buf[i];
    }
    snprintf(helm_env_buf[3], sizeof helm_env_buf[3], "HELM_PLUGINS=%s/helm/plugins", s);
    helm_env[3] = helm_env_buf[3];
    helm_env[4] = NULL;
    return helm_env;
}

/* Are the dependencies in Chart.lock present under charts/ (as <name>-<version>.tgz or an unpacked <name>/)? */
static bool dependencies_present(fn_ctx *c, const char *chart_dir)
{
    char *lock = arena_printf(c->a, "%s/Chart.lock", chart_dir);
    char *text;
    size_t len;
    if (!file_exists(lock))
        return true;
    if (read_text_file(lock, "Chart.lock", &text, &len) < 0) {
        diag_clear();
        return true;
    }
    node *n = NULL;
    int rc = yaml_load_one(c->a, c->st, "Chart.lock", text, len, &n);
    free(text);
    if (rc < 0) {
        diag_clear();
        return true;
    }
    const node *deps = map_get(n, "dependencies");
    for (uint32_t i = 0; is_seq(deps) && i < deps->c.n; i++) {
        const char *name = path_str(deps->c.kids[i], "name", NULL), *ver = path_str(deps->c.kids[i], "version", NULL);
        if (!name)
            continue;
        struct stat st;
        bool ok = (ver && stat(arena_printf(c->a, "%s/charts/%s-%s.tgz", chart_dir, name, ver), &st) == 0) ||
                  stat(arena_printf(c->a, "%s/charts/%s/Chart.yaml", chart_dir, name), &st) == 0;
        if (!ok)
            return false;
    }
    return true;
}

/* helm may be NULL: it is looked up only when something has to be built. */
int helm_dependency_build(fn_ctx *c, const char *helm, const char *chart_dir);
int helm_dependency_build(fn_ctx *c, const char *helm, const char *chart_dir)
{
    if (dependencies_present(c, chart_dir))
        return 0;
    if (!helm && !(helm = find_tool(c->host->helm_bin, c->host->path, "helm")))
        return fn_fail(c, NULL, "chart %s has dependencies to build but helm is not installed (set HELM_BIN)", chart_dir);
    helm = arena_strdup(c->a, helm);
    const char *argv[] = {helm, "dependency", "build", chart_dir, "--skip-refresh", NULL};
    return run_tool(c, arena_printf(c->a, "helm dependency build %s", chart_dir), argv, helm_environment(c->host), NULL);
}

static void push(const char ***argv, size_t *n, size_t *cap, const char *s)
{
    if (*n + 2 > *cap)
        *argv = xrealloc(*argv, (*cap = *cap ? *cap * 2 : 64) * sizeof **argv);
    (*argv)[(*n)++] = s;
    (*argv)[*n] = NULL;
}

static int render_chart(fn_ctx *c, const char *helm, const chart *ch)
{
    const char **argv = NULL;
    size_t n = 0, cap = 0;
    const char *chart_ref;
    const char *chart_dir = NULL;
    const char *repo = ch->repo && *ch->repo ? ch->repo : NULL;
    if (!repo) {
        const char *rel = ch->name;
        if (!strchr(rel, '/') || !file_exists(arena_printf(c->a, "%s/%s/Chart.yaml", step_dir(c), rel)))
            rel = arena_printf(c->a, "%s/%s", ch->chart_home && *ch->chart_home ? ch->chart_home : "charts", ch->name);
        if (!strcmp(ch->name, "."))
            rel = ".";
        chart_dir = strcmp(rel, ".") ? inside_package(c, ch->at, "chart", rel) : step_dir(c);
        if (!chart_dir)
            return -1;
        if (!file_exists(arena_printf(c->a, "%s/Chart.yaml", chart_dir)))
            return fn_fail(c, ch->at, "chart \"%s\" has no Chart.yaml", rel);
        if (helm_dependency_build(c, helm, chart_dir) < 0)
            return -1;
        chart_ref = chart_dir;
    } else if (!strncmp(repo, "oci://", 6)) {
        chart_ref = arena_printf(c->a, "%s/%s", repo, ch->name);
    } else if (!strncmp(repo, "https://", 8) || !strncmp(repo, "http://", 7)) {
        chart_ref = ch->name;
    } else {
        return fn_fail(c, ch->at, "chartArgs.repo must be an https:// chart repository or an oci:// registry");
    }
    const char *release = ch->release && *ch->release ? ch->release : c->host->app_name;
    const char *ns = ch->namespace && *ch->namespace ? ch->namespace : c->host->app_namespace;
    push(&argv, &n, &cap, helm);
    push(&argv, &n, &cap, "template");
    push(&argv, &n, &cap, release && *release ? release : "release-name");
    push(&argv, &n, &cap, chart_ref);
    if (repo && strncmp(repo, "oci://", 6)) {
        push(&argv, &n, &cap, "--repo");
        push(&argv, &n, &cap, repo);
    }
    if (ch->version && *ch->version && repo) {
        push(&argv, &n, &cap, "--version");
        push(&argv, &n, &cap, ch->version);
    }
    if (ns && *ns) {
        push(&argv, &n, &cap, "--namespace");
        push(&argv, &n, &cap, ns);
    }
    if (ch->include_crds)
        push(&argv, &n, &cap, "--include-crds");
    if (ch->skip_tests)
        push(&argv, &n, &cap, "--skip-tests");
    const char *kv = c->host->kube_version;
    if (kv && *kv) {
        push(&argv, &n, &cap, "--kube-version");
        push(&argv, &n, &cap, kv);
    }
    const char *apis = c->host->kube_api_versions;
    for (const char *p = apis; p && *p;) {
        size_t len = strcspn(p, ",");
        if (len) {
            push(&argv, &n, &cap, "--api-versions");
            push(&argv, &n, &cap, arena_strndup(c->a, p, len));
        }
        p += len + (p[len] == ',');
    }
    for (uint32_t i = 0; is_seq(ch->api_versions) && i < ch->api_versions->c.n; i++) {
        const char *v = scalar(ch->api_versions->c.kids[i]);
        if (v) {
            push(&argv, &n, &cap, "--api-versions");
            push(&argv, &n, &cap, v);
        }
    }
    /* values: files in order, inline values after them (override), before them (merge), or alone (replace) */
    /* values that are not files of the package (inline values, the helm-values parameter, maybe secrets) reach
     * helm as descriptors with no name in any directory: nothing of them can be left behind */
    child_fds fds = {0};
    const char *inline_file = NULL;
    if (is_map(ch->values_inline) && ch->values_inline->c.n) {
        buf b = {0};
        emit_yaml(&b, ch->values_inline, NULL);
        inline_file = pass_text(c, &fds, b.data ? b.data : "", b.len);
        buf_free(&b);
        if (!inline_file) {
            free(argv);
            return fn_fail(c, ch->values_inline, "cannot pass the inline values to helm: %s", strerror(errno));
        }
    }
    const char *merge = ch->values_merge ? ch->values_merge : "override";
    if (inline_file && !strcmp(merge, "merge")) {
        push(&argv, &n, &cap, "--values");
        push(&argv, &n, &cap, inline_file);
    }
    if (!inline_file || strcmp(merge, "replace")) {
        const char *csv = ch->values_files_csv;
        uint32_t count = is_seq(ch->values_files) ? ch->values_files->c.n : 0;
        for (uint32_t i = 0; i < count || (csv && *csv); i++) {
            const char *f;
            const node *at = ch->at;
            if (i < count) {
                at = ch->values_files->c.kids[i];
                f = scalar(at);
                if (!f) {
                    free(argv);
                    child_fds_close(&fds);
                    return fn_fail(c, at, "valuesFiles entries must be paths");
                }
            } else {
                size_t len = strcspn(csv, ",");
                f = arena_strndup(c->a, csv, len);
                csv += len + (csv[len] == ',');
                if (!*f)
                    continue;
            }
            const char *path = (!strncmp(f, "https://", 8) || !strncmp(f, "http://", 7)) ? f : inside_package(c, at, "values file", f);
            if (!path) {
                free(argv);
                child_fds_close(&fds);
                return -1;
            }
            push(&argv, &n, &cap, "--values");
            push(&argv, &n, &cap, path);
        }
    }
    if (inline_file && strcmp(merge, "merge")) {
        push(&argv, &n, &cap, "--values");
        push(&argv, &n, &cap, inline_file);
    }
    /* the Application's helm-values parameter comes last, so it wins over everything the package says */
    const char *override = c->host->helm_values;
    if (override && *override) {
        const char *f = pass_text(c, &fds, override, strlen(override));
        if (!f) {
            free(argv);
            child_fds_close(&fds);
            return fn_fail(c, ch->at, "cannot pass the helm-values parameter to helm: %s", strerror(errno));
        }
        push(&argv, &n, &cap, "--values");
        push(&argv, &n, &cap, f);
    }
    int rc = run_tool_into_items_fds(c, arena_printf(c->a, "helm template of chart %s", ch->name), argv,
                                     helm_environment(c->host), step_dir(c), &fds);
    free(argv);
    return rc;
}

static int run(fn_ctx *c)
{
    if (!c->config)
        return fn_fail(c, NULL, "render-helm-chart needs a RenderHelmChart or ConfigMap config naming the chart");
    if (!c->host)
        return fn_fail(c, NULL, "render-helm-chart cannot run helm here");
    const char *set = c->host->helm_bin;
    const char *helm = find_tool(set, c->host->path, "helm");
    if (!helm && set)
        return fn_fail(c, NULL, "helm is not installed (not on PATH; set HELM_BIN to its path): HELM_BIN=%s is not an executable", set);
    if (!helm)
        return fn_fail(c, NULL, "helm is not installed (not on PATH; set HELM_BIN to its path)");
    helm = arena_strdup(c->a, helm);
    if (!helm_environment(c->host))
        return fn_fail(c, NULL, "cannot create a temporary directory for helm");
    if (config_is(c->config, "ConfigMap", "")) {
        chart ch;
        if (read_configmap_chart(c, map_get(c->config, "data"), &ch) < 0)
            return -1;
        return render_chart(c, helm, &ch);
    }
    if (!config_is(c->config, "RenderHelmChart", NULL))
        return fn_fail(c, c->config, "functionConfig must be a RenderHelmChart or a ConfigMap");
    const node *charts = map_get(c->config, "helmCharts");
    const node *globals = map_get(c->config, "helmGlobals");
    if (!is_seq(charts) || !charts->c.n)
        return fn_fail(c, c->config, "helmCharts must be a non-empty list");
    for (uint32_t i = 0; i < charts->c.n; i++) {
        chart ch;
        if (read_chart(c, charts->c.kids[i], globals, &ch) < 0 || render_chart(c, helm, &ch) < 0)
            return -1;
    }
    return 0;
}

const fn_def fn_render_helm_chart = {
    "render-helm-chart",
    "render Helm charts with the real helm template (local, https or oci charts)",
    run,
};
