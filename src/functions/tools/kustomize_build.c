/* kustomize-build: a Kustomize overlay inside the package as a source, through the real kustomize (or kubectl's
 * built-in kustomize when only kubectl is installed). The package author is not trusted: the operator's settings
 * (fn_host) bound what the package may ask for, the kustomization graph is checked before kustomize reads it
 * (kustomization_walk.c), and helm, when the operator enables it, runs behind our guard (kustomize_helm_guard.c). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "functions/tools/external.h"
#include "kustomize/walk.h"
#include "kustomize/helm_guard.h"
#include "util/diag.h"
#include "util/fsutil.h"

static const char root_only[] = "LoadRestrictionsRootOnly", none[] = "LoadRestrictionsNone";

/* The operator's settings, checked once per step so that a typo names its variable. */
static int check_operator(fn_ctx *c, const fn_host *h)
{
    if (h->kustomize_enable_helm < 0)
        return fn_fail(c, NULL, "CMP_KUSTOMIZE_ENABLE_HELM on the sidecar must be true or false");
    if (h->allow_remote_sources < 0)
        return fn_fail(c, NULL, "CMP_ALLOW_REMOTE_SOURCES on the sidecar must be true or false");
    if (strcmp(h->kustomize_load_restrictor, root_only) && strcmp(h->kustomize_load_restrictor, none))
        return fn_fail(c, NULL, "CMP_KUSTOMIZE_LOAD_RESTRICTOR on the sidecar must be %s or %s", root_only, none);
    return 0;
}

/* Why a chart in this step may not run helm (completing "helm charts need helm, ..."), or NULL. */
static int helm_choice(fn_ctx *c, const node *data, const fn_host *h, const char **off)
{
    const node *n = map_get(data, "enableHelm");
    const char *v = n && !is_null(n) ? scalar(n) : NULL;
    if (n && !is_null(n) && (!v || (strcmp(v, "true") && strcmp(v, "false"))))
        return fn_fail(c, n, "enableHelm must be true or false");
    *off = NULL;
    if (!h->kustomize_enable_helm) {
        if (v && !strcmp(v, "true"))
            return fn_fail(c, n, "enableHelm: true is refused: helm inside kustomize is off on this sidecar, and only "
                                 "the operator can turn it on (CMP_KUSTOMIZE_ENABLE_HELM=true)");
        *off = "which is off on this sidecar (the operator enables it with CMP_KUSTOMIZE_ENABLE_HELM=true)";
    } else if (v && !strcmp(v, "false")) {
        *off = "which this step turns off (enableHelm: false)";
    }
    return 0;
}

/* The package may ask for the same or a stricter load restrictor than the operator's, never a wider one. */
static int restrictor_choice(fn_ctx *c, const node *data, const fn_host *h, const char **out)
{
    const node *n = map_get(data, "loadRestrictor");
    const char *v = n && !is_null(n) ? scalar(n) : NULL;
    *out = h->kustomize_load_restrictor;
    if (!n || is_null(n))
        return 0;
    if (!v || (strcmp(v, root_only) && strcmp(v, none)))
        return fn_fail(c, n, "loadRestrictor must be %s or %s", root_only, none);
    if (!strcmp(v, none) && strcmp(h->kustomize_load_restrictor, none))
        return fn_fail(c, n, "loadRestrictor: %s asks for more than this sidecar allows (the operator's "
                             "CMP_KUSTOMIZE_LOAD_RESTRICTOR is %s)", none, h->kustomize_load_restrictor);
    *out = v;
    return 0;
}

/* kustomize wraps helm's stderr in its own; when our guard refused, its own line is the message: -1 with it recorded
 * (fn_fail), 0 when the guard refused nothing. */
static int raise_guard_refusal(fn_ctx *c, const char *tmp, const char *what)
{
    char line[1100];
    FILE *f = fopen(arena_printf(c->a, "%s/%s", tmp, HELM_GUARD_REFUSAL), "re");
    if (!f)
        return 0;
    size_t n = fread(line, 1, sizeof line - 1, f);
    fclose(f);
    line[n] = 0;
    return fn_fail(c, NULL, "%s: %s", what, line);
}

void kustomize_build_sources(fn_ctx *c, source_dir_fn add, void *ud)
{
    const node *data = config_data(c->config);
    const char *path = path_str(data, "path", NULL);
    if (!path || !*path)
        return;
    const char *dir = strcmp(path, ".") ? inside_package(c, map_get(data, "path"), "overlay", path) : step_dir(c);
    char pkg_real[PATH_MAX], dir_real[PATH_MAX];
    if (!dir || !realpath(step_dir(c), pkg_real) || !realpath(dir, dir_real))
        return;
    add(ud, dir_real);
    /* the operator's switches are the step's to check: here only where the graph leads matters */
    kust_policy pol = {.root = c->host && c->host->repo_root ? c->host->repo_root : pkg_real, .from = pkg_real,
                       .remote = true, .reached = add, .reached_ud = ud, .limits = fn_limits(c)};
    kustomization_check(c->a, c->st, &pol, dir_real);
}

static int run(fn_ctx *c)
{
    const node *data = config_data(c->config);
    if (!c->config || !is_map(data))
        return fn_fail(c, c->config, "kustomize-build needs a ConfigMap with data.path (the overlay directory)");
    const char *path = path_str(data, "path", NULL);
    if (!path || !*path)
        return fn_fail(c, data, "data.path (the overlay directory) is required");
    const char *dir = strcmp(path, ".") ? inside_package(c, map_get(data, "path"), "overlay", path) : step_dir(c);
    if (!dir)
        return -1;
    if (!c->host)
        return fn_fail(c, NULL, "kustomize-build cannot run kustomize here");
    const fn_host *h = c->host;
    const char *helm_off = NULL, *restrictor = NULL;
    if (check_operator(c, h) < 0 || helm_choice(c, data, h, &helm_off) < 0 ||
        restrictor_choice(c, data, h, &restrictor) < 0)
        return -1;

    const char *argv[16];
    int n = 0;
    if (h->kustomize_bin && !find_tool(h->kustomize_bin, h->path, "kustomize"))
        return fn_fail(c, NULL, "KUSTOMIZE_BIN=%s is not an executable", h->kustomize_bin);
    const char *tool = find_tool(h->kustomize_bin, h->path, "kustomize");
    if (tool) {
        argv[n++] = arena_strdup(c->a, tool);
        argv[n++] = "build";
    } else if ((tool = find_tool(h->kubectl_bin, h->path, "kubectl"))) {
        argv[n++] = arena_strdup(c->a, tool);
        argv[n++] = "kustomize";
    } else {
        return fn_fail(c, NULL, "kustomize-build needs kustomize or kubectl (neither is on PATH; set KUSTOMIZE_BIN)");
    }

    /* the graph is checked before kustomize reads any of it */
    char pkg_real[PATH_MAX], dir_real[PATH_MAX];
    if (!realpath(step_dir(c), pkg_real) || !realpath(dir, dir_real))
        return fn_fail(c, map_get(data, "path"), "cannot resolve the overlay directory");
    kust_policy pol = {.root = h->repo_root ? h->repo_root : pkg_real, .from = pkg_real, .helm_off = helm_off,
                       .remote = h->allow_remote_sources == 1, .limits = fn_limits(c)};
    if (kustomization_check(c->a, c->st, &pol, dir_real) < 0)
        return -1;

    /* kustomize's temporary files (helm values copies, git clones) go to a directory of ours, removed at exit */
    const char *s = scratch_dir(h);
    if (!s)
        return fn_fail(c, NULL, "cannot create a temporary directory under %s", h->tmpdir);
    static int seq;
    char tmp[PATH_MAX];
    const char *made = arena_printf(c->a, "%s/kustomize-%d", s, ++seq);
    if (mkdir(made, 0700) != 0 || !realpath(made, tmp))
        return fn_fail(c, NULL, "cannot create a temporary directory under %s: %s", s, strerror(errno));
    argv[n++] = dir;
    argv[n++] = "--load-restrictor";
    argv[n++] = restrictor;
    const char *env[8];
    int e = 0;
    env[e++] = arena_printf(c->a, "XDG_CONFIG_HOME=%s/kustomize", s);
    env[e++] = arena_printf(c->a, "TMPDIR=%s", tmp);
    if (!helm_off) {
        /* kustomize runs "--helm-command" for every helm call: that is us, as the guard, which then runs helm */
        char self[PATH_MAX];
        ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
        if (len <= 0)
            return fn_fail(c, NULL, "cannot find cmp-generate's own executable (/proc/self/exe) to guard helm");
        self[len] = 0;
        const char *helm = find_tool(h->helm_bin, h->path, "helm");
        argv[n++] = "--enable-helm";
        argv[n++] = "--helm-command";
        argv[n++] = arena_strdup(c->a, self);
        env[e++] = arena_printf(c->a, "%s=%s", HELM_GUARD_HELM, helm ? helm : "");
        env[e++] = arena_printf(c->a, "%s=%s", HELM_GUARD_ROOT, pol.root);
        env[e++] = arena_printf(c->a, "%s=%s", HELM_GUARD_TMP, tmp);
        const limits *L = limits_or_default(fn_limits(c));
        /* what is left of max-total-bytes (at least 1: 0 would mean the default to the guard) */
        size_t used = bytes_read_total(), left = used < L->max_total_bytes ? L->max_total_bytes - used : 1;
        env[e++] = arena_printf(c->a, "%s=%zu %zu %zu %u %llu %zu", HELM_GUARD_LIMITS, h->max_chart_files,
                                h->max_chart_bytes, L->max_file_bytes, (unsigned)L->yaml.max_depth,
                                (unsigned long long)L->yaml.max_alias_nodes, left);
    }
    argv[n] = NULL;
    env[e] = NULL;
    const char *what = arena_printf(c->a, "kustomize build %s", path);
    diag_detail why; /* kustomize's own error, unless the guard's refusal explains it better */
    diag_detail *outer = diag_capture(&why);
    int rc = run_tool_into_items(c, what, argv, env, step_dir(c));
    diag_restore(outer);
    if (rc < 0 && (helm_off || raise_guard_refusal(c, tmp, what) == 0))
        diag_raise(&why);
    return rc;
}

const fn_def fn_kustomize_build = {
    .name = "kustomize-build",
    .summary = "build a Kustomize overlay in the package with the real kustomize (or kubectl kustomize)",
    .run = run,
    .readme = {
        .does = "a Kustomize overlay through the real `kustomize` (or `kubectl kustomize`)",
        .differs = "not in the catalog",
        .versions = "one behaviour for every tag",
    },
};
