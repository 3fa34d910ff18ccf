/* render-helm-chart: Helm charts as a package source, through the real `helm template` (catalog RenderHelmChart
 * config, or a ConfigMap for one chart). Fetching (a chart from a repository, a chart's dependencies) is
 * helm_fetch.h's.
 *
 * Versions (catalog-function-versions, render-helm-chart):
 *  - v0.1.x: the flat schema. ConfigMap data {chartHome, configHome, name, version, repo, releaseName, namespace,
 *    valuesFile, includeCRDs}; RenderHelmChart helmGlobals {chartHome, configHome} and helmCharts[] {name, version,
 *    repo, releaseName, namespace, valuesInline, valuesFile, valuesMerge, includeCRDs}. The input went through a
 *    kustomize ResMap: a rendered object whose id (apiVersion, kind, namespace, name) equals an input item's is
 *    dropped, the input item wins. configHome named a directory inside the function's container; helm runs here
 *    with a private configuration of its own, so it is read and not used.
 *  - v0.2.0 and later, latest: the nested schema (chartArgs, templateOptions); a v0.1 flat field in an entry is
 *    an error that names its new place. The ConfigMap still takes one valuesFile.
 *  - Every release ignores the keys it does not read (yaml.v3's Unmarshal, the ConfigMap read key by key): here each
 *    is an error (see refuse_unknown). nameTemplate is refused: helm's name template has env and expandenv. A rendered object whose group, kind,
 *    namespace and name equal an input item's is skipped, so that a second run adds nothing.
 *  - Up to v0.2.1 the catalog split helm's output on "---" lines, which cut manifests holding "---" in a block
 *    string into broken objects; every version here reads the output as a YAML stream, as v0.2.2 and later do.
 *  - The catalog bundled its helm (v3.6.3 to v3.11.1); here it is the operator's helm. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <limits.h>
#include <sys/stat.h>

#include "functions/tools/confine.h"
#include "functions/tools/external.h"
#include "helm/confine.h"
#include "helm/fetch.h"
#include "util/diag.h"
#include "util/fsutil.h"
#include "yaml/emit.h"
#include "yaml/load.h"

typedef struct chart {
    const node *at;
    const char *args, *topts; /* how the config names the fields: "chartArgs." and "templateOptions.", or "data." */
    const char *name, *version, *repo, *chart_home;
    const char *release, *namespace;
    const node *name_at, *version_at, *repo_at, *release_at, *namespace_at;
    bool include_crds, skip_tests;
    const node *api_versions;  /* sequence */
    const node *values_files;  /* sequence of strings */
    const node *values_inline; /* map */
    const char *values_merge;  /* override (default), merge, replace */
    const char *values_files_csv;
    const node *values_files_at;
    const char *values_file1; /* v0.1's valuesFile: one path */
    const node *values_file1_at;
    const char *values_field; /* how the config names its values files, for messages */
} chart;

static bool truthy(const node *n, bool def)
{
    const char *s = scalar(n);
    if (!s || !*s)
        return def;
    return !strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "yes") || !strcmp(s, "1");
}

/* A string field: *out is NULL when absent or null; a map or a list there is an error, not a silent default. */
static int text_field(fn_ctx *c, const node *parent, const char *key, const char *shown_as, const char **out,
                      const node **at)
{
    const node *n = is_map(parent) ? map_get(parent, key) : NULL;
    *out = NULL;
    if (at)
        *at = n;
    if (!n || is_null(n))
        return 0;
    if (!is_scalar(n))
        return fn_fail(c, n, "%s must be a string", shown_as);
    *out = scalar(n);
    return 0;
}

/* Keys a release does not read. The catalog reads its config without looking at the keys (yaml.v3's Unmarshal into
 * its structs, and the ConfigMap's data key by key: functions/go/render-helm-chart, every release), so under kpt a
 * misspelt key (valueFile for valuesFile) is dropped and the chart renders without it. Here it is an error naming
 * the file, line and key: a warning would not do, as Argo CD shows a plugin's stderr only when it fails, and the
 * chart would be synced as rendered. */
/* chartArgs.auth: the catalog reads it, this runner does not (credentials for chart repositories are the
 * operator's), so one warning per entry once every entry has been read. */
static void warn_unused_auth(fn_ctx *c, const node *charts)
{
    seq_foreach(charts, i, item) {
        const node *args = map_get(item, "chartArgs");
        const node *auth = map_get(args, "auth");
        if (auth && !is_null(auth))
            map_foreach(args, k, key, val)
                if (scalar_is(key, "auth"))
                    fn_warn_key(c, args, k,
                                "helmCharts[%u].chartArgs.auth is not used here: credentials for chart repositories "
                                "are the operator's (CMP_HELM_CREDENTIALS_DIR on the sidecar)",
                                i);
    }
}

static bool listed(const char *const *list, const char *key)
{
    while (*list && (!key || strcmp(*list, key)))
        list++;
    return *list != NULL;
}

static const char *joined(arena *a, const char *const *list)
{
    const char *s = "";
    for (const char *const *p = list; *p; p++)
        s = arena_printf(a, "%s%s%s", s, p == list ? "" : ", ", *p);
    return s;
}

/* m's keys must be in known (NULL-terminated); a key that is not a string is an error to the catalog's Unmarshal too. where prefixes the key ("helmCharts[0].templateOptions."), release
 * names the schema ("render-helm-chart v0.1.x"). */
static int refuse_unknown(fn_ctx *c, const node *m, const char *where, const char *release,
                          const char *const *known)
{
    map_foreach(m, k, mk, val) {
        const char *key = scalar(mk);
        if (!key)
            return fn_fail_key(c, m, k, "%s has a key that is not a string", *where ? where : "the config");
        if (!listed(known, key))
            return fn_fail_key(c, m, k, "%s%s is not a field %s reads (%s)", where, shown(c->a, key), release,
                               joined(c->a, known));
    }
    return 0;
}

static const char *const top_keys[] = {"apiVersion", "kind", "metadata", "helmGlobals", "helmCharts", NULL};
static const char *const global_keys[] = {"chartHome", "configHome", NULL};
/* chartHome in an entry is ours (a chart directory per entry); the catalog reads only helmGlobals.chartHome */
static const char *const entry_keys_v01[] = {"name",        "version",    "repo",        "releaseName",
                                             "namespace",   "valuesInline", "valuesFile", "valuesMerge",
                                             "includeCRDs", "chartHome",  NULL};
static const char *const entry_keys[] = {"chartArgs", "templateOptions", "chartHome", NULL};
static const char *const chart_args_keys[] = {"name", "version", "repo", "registry", "auth", NULL};
static const char *const template_options_keys[] = {"apiVersions", "releaseName", "namespace", "description",
                                                    "nameTemplate", "includeCRDs", "skipTests", "values", NULL};
static const char *const values_keys[] = {"valuesFiles", "valuesInline", "valuesMerge", NULL};
static const char *const configmap_keys_v01[] = {"chartHome", "configHome", "name",       "version",     "repo",
                                                 "releaseName", "namespace", "valuesFile", "includeCRDs", NULL};
/* valuesFiles (comma-separated) is ours: the catalog's ConfigMap takes one valuesFile */
static const char *const configmap_keys[] = {"chartHome",    "configHome",  "name",      "version",
                                             "repo",         "releaseName", "namespace", "nameTemplate",
                                             "includeCRDs",  "skipTests",   "valuesFile", "valuesFiles",
                                             NULL};

/* Where v0.2 put each of v0.1's flat entry fields. */
static const char *const flat_fields[][2] = {
    {"name", "chartArgs.name"},
    {"version", "chartArgs.version"},
    {"repo", "chartArgs.repo"},
    {"releaseName", "templateOptions.releaseName"},
    {"namespace", "templateOptions.namespace"},
    {"valuesInline", "templateOptions.values.valuesInline"},
    {"valuesFile", "templateOptions.values.valuesFiles"},
    {"valuesMerge", "templateOptions.values.valuesMerge"},
    {"includeCRDs", "templateOptions.includeCRDs"},
};

static const char *moved_to(const char *key)
{
    for (size_t i = 0; key && i < sizeof flat_fields / sizeof *flat_fields; i++)
        if (!strcmp(key, flat_fields[i][0]))
            return flat_fields[i][1];
    return NULL;
}

/* An entry's keys: one of the other schema's is refused with where it belongs. */
static int check_entry_keys(fn_ctx *c, const node *entry, uint32_t index, bool v01)
{
    const char *where = arena_printf(c->a, "helmCharts[%u].", index);
    map_foreach(entry, k, mk, val) {
        const char *key = scalar(mk);
        if (!key)
            return fn_fail_key(c, entry, k, "helmCharts[%u] has a key that is not a string", index);
        if (listed(v01 ? entry_keys_v01 : entry_keys, key))
            continue;
        if (v01 && (!strcmp(key, "chartArgs") || !strcmp(key, "templateOptions")))
            return fn_fail_key(c, entry, k,
                               "%s%s is the v0.2 schema, which render-helm-chart v0.1.x does not read (it takes "
                               "name, version, repo, releaseName, namespace, valuesInline, valuesFile, valuesMerge "
                               "and includeCRDs in the entry itself)",
                               where, key);
        else if (!v01 && moved_to(key))
            return fn_fail_key(c, entry, k,
                               "%s%s is render-helm-chart v0.1's flat schema, not read since v0.2.0 (use %s)", where,
                               key, moved_to(key));
        else
            return fn_fail_key(c, entry, k, "%s%s is not a field render-helm-chart %s reads (%s)", where,
                               shown(c->a, key), v01 ? "v0.1.x" : "v0.2.0 and later",
                               joined(c->a, v01 ? entry_keys_v01 : entry_keys));
    }
    return 0;
}

/* The values fields every schema shares: valuesInline (a map), valuesMerge. */
static int check_values(fn_ctx *c, const chart *ch, const node *at)
{
    if (ch->values_inline && !is_null(ch->values_inline) && !is_map(ch->values_inline))
        return fn_fail(c, ch->values_inline, "valuesInline must be a map");
    if (ch->values_merge && strcmp(ch->values_merge, "override") && strcmp(ch->values_merge, "merge") &&
        strcmp(ch->values_merge, "replace"))
        return fn_fail(c, at, "valuesMerge must be override, merge or replace");
    return 0;
}

/* A field this runner does not take, named with the way to get what it would do. helm evaluates nameTemplate as a
 * Go template with sprig's functions, env and expandenv included: the package author would read the sidecar's
 * environment into the release name. */
static int refuse_name_template(fn_ctx *c, const node *parent, const char *shown_as, const char *release_field)
{
    const char *t;
    const node *at;
    if (text_field(c, parent, "nameTemplate", shown_as, &t, &at) < 0)
        return -1;
    if (t && *t)
        return fn_fail(c, at,
                       "%s is not supported: helm would evaluate it as a template whose functions read the sidecar's "
                       "environment; set %s",
                       shown_as, release_field);
    return 0;
}

/* A v0.1 flat helmCharts entry. */
static int read_chart_v01(fn_ctx *c, const node *entry, uint32_t index, const node *globals,
                          chart *ch)
{
    memset(ch, 0, sizeof *ch);
    ch->at = entry;
    ch->args = ch->topts = "";
    ch->values_field = "valuesFile";
    if (!is_map(entry))
        return fn_fail(c, entry, "each helmCharts entry must be a map with name, releaseName and the chart's options");
    if (check_entry_keys(c, entry, index, true) < 0 ||
        text_field(c, entry, "name", "name", &ch->name, &ch->name_at) < 0 ||
        text_field(c, entry, "version", "version", &ch->version, &ch->version_at) < 0 ||
        text_field(c, entry, "repo", "repo", &ch->repo, &ch->repo_at) < 0 ||
        text_field(c, entry, "chartHome", "chartHome", &ch->chart_home, NULL) < 0 ||
        (!ch->chart_home && text_field(c, globals, "chartHome", "helmGlobals.chartHome", &ch->chart_home, NULL) < 0) ||
        text_field(c, entry, "releaseName", "releaseName", &ch->release, &ch->release_at) < 0 ||
        text_field(c, entry, "namespace", "namespace", &ch->namespace, &ch->namespace_at) < 0 ||
        text_field(c, entry, "valuesFile", "valuesFile", &ch->values_file1, &ch->values_file1_at) < 0 ||
        text_field(c, entry, "valuesMerge", "valuesMerge", &ch->values_merge, NULL) < 0)
        return -1;
    ch->include_crds = truthy(map_get(entry, "includeCRDs"), true);
    ch->values_inline = map_get(entry, "valuesInline");
    if (!ch->name || !*ch->name)
        return fn_fail(c, entry, "helmCharts[%u].name (the chart) is required%s", index,
                       map_get(entry, "chartArgs") ? " (chartArgs is the v0.2 schema, which v0.1.x does not read)" : "");
    return check_values(c, ch, entry);
}

static int read_chart(fn_ctx *c, const node *entry, uint32_t index, const node *globals, chart *ch)
{
    memset(ch, 0, sizeof *ch);
    ch->at = entry;
    ch->args = "chartArgs.";
    ch->topts = "templateOptions.";
    ch->values_field = "templateOptions.values.valuesFiles";
    if (!is_map(entry))
        return fn_fail(c, entry, "each helmCharts entry must be a map with chartArgs and templateOptions");
    if (check_entry_keys(c, entry, index, false) < 0)
        return -1;
    const node *args = map_get(entry, "chartArgs"), *topt = map_get(entry, "templateOptions");
    if ((args && !is_null(args) && !is_map(args)) || (topt && !is_null(topt) && !is_map(topt)))
        return fn_fail(c, entry, "chartArgs and templateOptions must be maps");
    const node *values = map_get(topt, "values");
    if (values && !is_null(values) && !is_map(values))
        return fn_fail(c, values, "templateOptions.values must be a map (valuesFiles, valuesInline, valuesMerge)");
    const char *where = arena_printf(c->a, "helmCharts[%u].", index);
    const char *release = "render-helm-chart v0.2.0 and later";
    if (refuse_unknown(c, args, arena_printf(c->a, "%schartArgs.", where), release, chart_args_keys) < 0 ||
        refuse_unknown(c, topt, arena_printf(c->a, "%stemplateOptions.", where), release, template_options_keys) < 0 ||
        refuse_unknown(c, values, arena_printf(c->a, "%stemplateOptions.values.", where), release, values_keys) < 0)
        return -1;
    const char *description;
    if (text_field(c, args, "name", "chartArgs.name", &ch->name, &ch->name_at) < 0 ||
        text_field(c, args, "version", "chartArgs.version", &ch->version, &ch->version_at) < 0 ||
        text_field(c, args, "repo", "chartArgs.repo", &ch->repo, &ch->repo_at) < 0 ||
        text_field(c, entry, "chartHome", "chartHome", &ch->chart_home, NULL) < 0 ||
        (!ch->chart_home && text_field(c, globals, "chartHome", "helmGlobals.chartHome", &ch->chart_home, NULL) < 0) ||
        text_field(c, topt, "releaseName", "templateOptions.releaseName", &ch->release, &ch->release_at) < 0 ||
        text_field(c, topt, "namespace", "templateOptions.namespace", &ch->namespace, &ch->namespace_at) < 0 ||
        /* the release's description: helm template prints nothing of it */
        text_field(c, topt, "description", "templateOptions.description", &description, NULL) < 0 ||
        refuse_name_template(c, topt, "templateOptions.nameTemplate", "templateOptions.releaseName") < 0)
        return -1;
    ch->include_crds = truthy(map_get(topt, "includeCRDs"), true);
    ch->skip_tests = truthy(map_get(topt, "skipTests"), false);
    ch->api_versions = map_get(topt, "apiVersions");
    ch->values_files = map_get(values, "valuesFiles");
    ch->values_inline = map_get(values, "valuesInline");
    ch->values_merge = path_str(values, "valuesMerge", NULL);
    if (!ch->name || !*ch->name)
        return fn_fail(c, entry, "%schartArgs.name is required%s", where,
                       map_get(entry, "name") ? arena_printf(c->a,
                                                             " (%sname is render-helm-chart v0.1's flat schema, not "
                                                             "read since v0.2.0)",
                                                             where)
                                              : "");
    if (ch->api_versions && !is_null(ch->api_versions) && !is_seq(ch->api_versions))
        return fn_fail(c, ch->api_versions, "templateOptions.apiVersions must be a list");
    if (ch->values_files && !is_null(ch->values_files) && !is_seq(ch->values_files))
        return fn_fail(c, ch->values_files, "valuesFiles must be a list of paths");
    return check_values(c, ch, values);
}

/* The ConfigMap form: one chart, flat keys. v0.1 knows fewer keys, and one valuesFile. */
static int read_configmap_chart(fn_ctx *c, const node *data, bool v01, chart *ch)
{
    memset(ch, 0, sizeof *ch);
    ch->at = data;
    ch->args = ch->topts = "data.";
    if (!is_map(data))
        return fn_fail(c, data, "render-helm-chart's ConfigMap needs data with at least name");
    ch->values_field = v01 || map_get(data, "valuesFile") ? "data.valuesFile" : "data.valuesFiles";
    const char *config_home;
    if (refuse_unknown(c, data, "data.", v01 ? "render-helm-chart v0.1.x" : "render-helm-chart v0.2.0 and later",
                       v01 ? configmap_keys_v01 : configmap_keys) < 0 ||
        text_field(c, data, "configHome", "data.configHome", &config_home, NULL) < 0 ||
        (!v01 && refuse_name_template(c, data, "data.nameTemplate", "data.releaseName") < 0))
        return -1;
    /* every release's ConfigMap takes one valuesFile (the catalog's render-helm-chart-local passes it) */
    if (text_field(c, data, "valuesFile", "data.valuesFile", &ch->values_file1, &ch->values_file1_at) < 0)
        return -1;
    if (text_field(c, data, "name", "data.name", &ch->name, &ch->name_at) < 0 ||
        text_field(c, data, "version", "data.version", &ch->version, &ch->version_at) < 0 ||
        text_field(c, data, "repo", "data.repo", &ch->repo, &ch->repo_at) < 0 ||
        text_field(c, data, "chartHome", "data.chartHome", &ch->chart_home, NULL) < 0 ||
        text_field(c, data, "releaseName", "data.releaseName", &ch->release, &ch->release_at) < 0 ||
        text_field(c, data, "namespace", "data.namespace", &ch->namespace, &ch->namespace_at) < 0 ||
        (!v01 &&
         text_field(c, data, "valuesFiles", "data.valuesFiles", &ch->values_files_csv, &ch->values_files_at) < 0))
        return -1;
    ch->include_crds = truthy(map_get(data, "includeCRDs"), true);
    ch->skip_tests = !v01 && truthy(map_get(data, "skipTests"), false);
    if (!ch->name || !*ch->name)
        return fn_fail(c, data, "data.name (the chart) is required");
    return 0;
}

/* What helm accepts, checked before helm runs: every value below reaches helm's command line, where one that starts
 * with '-' would be read as an option (--post-renderer runs a program, --set-file reads a file). They are also
 * passed as --flag=value and after "--", so this is the second guard, and it gives a clear message. */

static bool is_alnum_lower(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
}

/* DNS-1123 names: labels of [a-z0-9-] that start and end with a letter or digit, dots between labels when allowed.
 * helm's release names are exactly this with dots, at most 53 characters (pkg/chartutil ValidateReleaseName:
 * ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$, 63 minus 10 that charts add to names);
 * namespaces are one label of at most 63. */
static bool dns_name(const char *s, size_t max, bool dots)
{
    size_t n = strlen(s);
    if (!n || n > max || !is_alnum_lower(s[0]) || !is_alnum_lower(s[n - 1]))
        return false;
    for (size_t i = 1; i + 1 < n; i++) {
        if (is_alnum_lower(s[i]))
            continue;
        if (s[i] == '-' && s[i - 1] != '.' && s[i + 1] != '.')
            continue;
        if (s[i] == '.' && dots && is_alnum_lower(s[i - 1]) && is_alnum_lower(s[i + 1]))
            continue;
        return false;
    }
    return true;
}

/* At most max characters, starting with a letter or digit, then letters, digits and the extra characters. */
static bool token(const char *s, size_t max, const char *extra)
{
    size_t n = strlen(s);
    if (!n || n > max)
        return false;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        bool alnum = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
        if (!alnum && (i == 0 || !strchr(extra, ch)))
            return false;
    }
    return true;
}

static bool is_url(const char *s)
{
    return !strncmp(s, "https://", 8) || !strncmp(s, "http://", 7);
}

/* printable ASCII, no spaces: a URL as a single argument */
static bool url_chars(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n > max)
        return false;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f)
            return false;
    return true;
}

/* A chart reference in a repository: "nginx", or a path under an oci:// registry; never "..", never a URL. */
static bool chart_name(const char *s)
{
    return token(s, 250, "._-/") && !strstr(s, "..") && !strstr(s, "//") && s[strlen(s) - 1] != '/';
}

/* An apiVersion for --api-versions ("policy/v1", "monitoring.coreos.com/v1/ServiceMonitor"); no comma, since helm
 * splits the flag's value on commas. */
static bool api_version(const char *s)
{
    return token(s, 316, "._/-");
}

/* Argo CD's KUBE_VERSION: "1.29", "v1.29.3", "1.29.3+k3s1". */
static bool kube_version(const char *s)
{
    return (s[0] == 'v' || (s[0] >= '0' && s[0] <= '9')) && token(s, 64, ".+-");
}

static int check_fields(fn_ctx *c, const chart *ch, const char *release, const char *ns)
{
    if (ch->release && *ch->release) {
        if (!dns_name(release, 53, true))
            return fn_fail(c, ch->release_at,
                           "%sreleaseName \"%s\" is not a release name helm accepts: at most 53 characters of "
                           "lower-case letters, digits, '-' and '.', starting and ending with a letter or digit",
                           ch->topts, shown(c->a, release));
    } else if (release && !dns_name(release, 53, true)) {
        return fn_fail(c, ch->at,
                       "the release name \"%s\" (from ARGOCD_APP_NAME, the Application's name) is not one helm "
                       "accepts: at most 53 characters of lower-case letters, digits, '-' and '.'; set %sreleaseName",
                       shown(c->a, release), ch->topts);
    }
    if (ns && *ns && !dns_name(ns, 63, false))
        return fn_fail(c, ch->namespace && *ch->namespace ? ch->namespace_at : ch->at,
                       "%s \"%s\" is not a namespace name: at most 63 lower-case letters, digits and '-', starting and "
                       "ending with a letter or digit",
                       ch->namespace && *ch->namespace ? arena_printf(c->a, "%snamespace", ch->topts)
                                                        : "ARGOCD_APP_NAMESPACE (the destination namespace)",
                       shown(c->a, ns));
    if (ch->repo && *ch->repo) {
        if (strncmp(ch->repo, "oci://", 6) && !is_url(ch->repo))
            return fn_fail(c, ch->repo_at, "%srepo must be an https:// or http:// chart repository or an oci:// registry",
                           ch->args);
        if (helm_check_repo_url(fn_engine(c), ch->repo_at, arena_printf(c->a, "%srepo", ch->args), ch->repo) < 0)
            return -1;
        if (!chart_name(ch->name))
            return fn_fail(c, ch->name_at,
                           "%sname \"%s\" is not a chart name: letters, digits, '.', '_', '-' and '/', starting with "
                           "a letter or digit, no \"..\"",
                           ch->args, shown(c->a, ch->name));
    }
    if (ch->version && *ch->version && !token(ch->version, 128, ".+-_~^*<>=!|, "))
        return fn_fail(c, ch->version_at,
                       "%sversion \"%s\" is not a chart version or range: letters, digits and . + - _ ~ ^ * < > = ! | "
                       ", and spaces, starting with a letter or digit",
                       ch->args, shown(c->a, ch->version));
    seq_foreach(ch->api_versions, i, v) {
        if (!is_scalar(v) || !api_version(scalar(v)))
            return fn_fail(c, v,
                           "%sapiVersions[%u] is not an apiVersion (\"group/version\" or \"group/version/Kind\": "
                           "letters, digits, '.', '_', '-' and '/', starting with a letter or digit)",
                           ch->topts, i);
    }
    const char *kv = c->host->kube_version;
    if (kv && !kube_version(kv))
        return fn_fail(c, NULL, "KUBE_VERSION \"%s\" (from Argo CD) is not a Kubernetes version such as 1.29 or v1.29.3",
                       shown(c->a, kv));
    for (const char *p = c->host->kube_api_versions; p && *p;) {
        size_t len = strcspn(p, ",");
        const char *v = arena_strndup(c->a, p, len);
        if (len && !api_version(v))
            return fn_fail(c, NULL, "KUBE_API_VERSIONS entry \"%s\" (from Argo CD) is not an apiVersion", shown(c->a, v));
        p += len + (p[len] == ',');
    }
    return 0;
}

static void push(const char ***argv, size_t *n, size_t *cap, const char *s)
{
    if (*n + 2 > *cap)
        *argv = xrealloc(*argv, (*cap = *cap ? *cap * 2 : 64) * sizeof **argv);
    (*argv)[(*n)++] = s;
    (*argv)[*n] = NULL;
}

/* "--name=value": one argument, so the value can never be taken for an option of its own. */
static void push_flag(fn_ctx *c, const char ***argv, size_t *n, size_t *cap, const char *name, const char *value)
{
    push(argv, n, cap, arena_printf(c->a, "--%s=%s", name, value));
}

/* The local chart: chartArgs.name under chartHome (default charts/), or name itself when it is a chart directory
 * path; both relative to the package, and anywhere in the repository (Argo CD lets an Application read any directory
 * of its repository, and so can a chart shared between packages). */
static const char *local_chart(fn_ctx *c, const chart *ch)
{
    const node *at = ch->name_at ? ch->name_at : ch->at;
    if (!strcmp(ch->name, "."))
        return inside_repo(c, at, "chart", ".");
    if (strchr(ch->name, '/')) {
        char pkg[PATH_MAX], real[PATH_MAX];
        if (realpath(step_dir(c), pkg) &&
            resolve_beneath(repo_root(c), arena_printf(c->a, "%s/%s/Chart.yaml", pkg, ch->name), real) == CONFINED_OK)
            return inside_repo(c, at, "chart", ch->name);
    }
    const char *rel = arena_printf(c->a, "%s/%s", ch->chart_home && *ch->chart_home ? ch->chart_home : "charts", ch->name);
    const char *dir = inside_repo(c, at, "chart", rel);
    char real[PATH_MAX];
    if (dir && resolve_beneath(repo_root(c), arena_printf(c->a, "%s/Chart.yaml", dir), real) != CONFINED_OK)
        return fn_fail(c, at, "chart \"%s\" has no Chart.yaml", shown(c->a, rel)), NULL;
    return dir;
}

/* One values file the config names: a file in the repository, or a URL when the operator allows remote values. */
static const char *values_file(fn_ctx *c, const chart *ch, const node *at, const char *f, uint32_t i)
{
    const char *field = ch->values_field;
    if (is_url(f)) {
        /* the URL is not repeated: it may carry credentials */
        if (!c->host->allow_remote_values)
            return fn_fail(c, at,
                           "%s entry %u is a URL; values files must be files in the repository (the sidecar's "
                           "operator can allow remote values with CMP_ALLOW_REMOTE_VALUES=true)",
                           field, i + 1),
                   NULL;
        if (!url_chars(f, 2048) || strchr(f, ','))
            return fn_fail(c, at, "%s entry %u is not a URL helm can take (spaces, control characters or a comma)",
                           field, i + 1),
                   NULL;
        return f;
    }
    const char *path = inside_repo(c, at, "values file", f);
    if (path && strchr(path, ','))
        return fn_fail(c, at, "values file \"%s\": its path has a comma, which helm's --values splits on", shown(c->a, f)),
               NULL;
    return path;
}

static int render_chart(fn_ctx *c, const char *helm, const chart *ch)
{
    const char **argv = NULL;
    size_t n = 0, cap = 0;
    const char *chart_ref;
    const char *repo = ch->repo && *ch->repo ? ch->repo : NULL;
    /* the helm-release-name parameter replaces the default, not a release name the step chose */
    const char *release = ch->release && *ch->release ? ch->release
                          : c->host->helm_release_name ? c->host->helm_release_name
                                                       : c->host->release_name;
    const char *ns = ch->namespace && *ch->namespace ? ch->namespace : c->host->app_namespace;
    if (check_fields(c, ch, release, ns) < 0)
        return -1;
    if (!repo && c->host->helm_verify_prov)
        return fn_fail(c, ch->name_at ? ch->name_at : ch->at,
                       "chart %s is a directory of the package, which helm cannot verify (parameter helm-verify-prov "
                       "is true: only charts pulled with a provenance file are rendered)",
                       ch->name);
    if (!repo) {
        const char *chart_dir = local_chart(c, ch);
        if (!chart_dir || helm_dependency_build(fn_engine(c), helm, chart_dir, ch->at) < 0)
            return -1;
        chart_ref = chart_dir;
    } else if (!(chart_ref = helm_pull(fn_engine(c), helm, ch->at, ch->repo, ch->name, ch->version))) {
        return -1;
    }
    push(&argv, &n, &cap, helm);
    push(&argv, &n, &cap, "template");
    if (ns && *ns)
        push_flag(c, &argv, &n, &cap, "namespace", ns);
    /* the Application's switches only ever take away (Argo CD's skipCrds, skipTests, skipSchemaValidation) */
    if (ch->include_crds && !c->host->helm_skip_crds)
        push(&argv, &n, &cap, "--include-crds");
    if (ch->skip_tests || c->host->helm_skip_tests)
        push(&argv, &n, &cap, "--skip-tests");
    if (c->host->helm_skip_schema_validation)
        push(&argv, &n, &cap, "--skip-schema-validation");
    const char *kv = c->host->kube_version;
    if (kv && *kv)
        push_flag(c, &argv, &n, &cap, "kube-version", kv);
    const char *apis = c->host->kube_api_versions;
    for (const char *p = apis; p && *p;) {
        size_t len = strcspn(p, ",");
        if (len)
            push_flag(c, &argv, &n, &cap, "api-versions", arena_strndup(c->a, p, len));
        p += len + (p[len] == ',');
    }
    seq_foreach(ch->api_versions, i, item)
        push_flag(c, &argv, &n, &cap, "api-versions", scalar(item));
    /* values: files in order, inline values after them (override), before them (merge), or alone (replace) */
    /* values that are not files of the package (inline values, the helm-values parameter, maybe secrets) reach
     * helm as descriptors with no name in any directory: nothing of them can be left behind */
    child_fds fds = {0};
    const char *inline_file = NULL;
    if (is_map(ch->values_inline) && node_len(ch->values_inline)) {
        buf b = {0};
        emit_yaml(&b, ch->values_inline, NULL);
        inline_file = pass_text(c, &fds, b.data ? b.data : "", b.len);
        buf_free(&b);
        if (!inline_file) {
            xfree(argv);
            return fn_fail(c, ch->values_inline, "cannot pass the inline values to helm: %s", strerror(errno));
        }
    }
    const char *merge = ch->values_merge ? ch->values_merge : "override";
    if (inline_file && !strcmp(merge, "merge"))
        push_flag(c, &argv, &n, &cap, "values", inline_file);
    if (!inline_file || strcmp(merge, "replace")) {
        const char *csv = ch->values_files_csv, *single = ch->values_file1;
        uint32_t count = is_seq(ch->values_files) ? node_len(ch->values_files) : 0;
        for (uint32_t i = 0; i < count || (csv && *csv) || single; i++) {
            const char *f;
            const node *at = ch->at;
            if (single) {
                at = ch->values_file1_at ? ch->values_file1_at : ch->at;
                f = single;
                single = NULL;
                if (!*f)
                    continue;
            } else if (i < count) {
                at = seq_item(ch->values_files, i);
                f = scalar(at);
                if (!f) {
                    xfree(argv);
                    child_fds_close(&fds);
                    return fn_fail(c, at, "valuesFiles entries must be paths");
                }
            } else {
                at = ch->values_files_at ? ch->values_files_at : ch->at;
                size_t len = strcspn(csv, ",");
                f = arena_strndup(c->a, csv, len);
                csv += len + (csv[len] == ',');
                if (!*f)
                    continue;
            }
            const char *path = values_file(c, ch, at, f, i);
            if (!path) {
                xfree(argv);
                child_fds_close(&fds);
                return -1;
            }
            push_flag(c, &argv, &n, &cap, "values", path);
        }
    }
    if (inline_file && strcmp(merge, "merge"))
        push_flag(c, &argv, &n, &cap, "values", inline_file);
    /* Then the Application's, each winning over what comes before, in Argo CD's order: its value files, helm-values
     * (valuesObject), helm-parameters (parameters). */
    for (const char *const *f = c->host->helm_value_files; f && *f; f++)
        push_flag(c, &argv, &n, &cap, "values", *f);
    const struct {
        const char *name, *text;
    } texts[] = {{"helm-values", c->host->helm_values}, {"helm-parameters", c->host->helm_parameters}};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        if (!texts[i].text || !*texts[i].text)
            continue;
        const char *f = pass_text(c, &fds, texts[i].text, strlen(texts[i].text));
        if (!f) {
            xfree(argv);
            child_fds_close(&fds);
            return fn_fail(c, ch->at, "cannot pass the %s parameter to helm: %s", texts[i].name, strerror(errno));
        }
        push_flag(c, &argv, &n, &cap, "values", f);
    }
    /* the release and the chart are positional, after "--": never options, whatever they hold */
    push(&argv, &n, &cap, "--");
    push(&argv, &n, &cap, release && *release ? release : "release-name");
    push(&argv, &n, &cap, chart_ref);
    int rc = run_tool_into_items_fds(c, arena_printf(c->a, "helm template of chart %s", ch->name), argv,
                                     helm_environment(c->host->tmpdir), step_dir(c), &fds);
    xfree(argv);
    return rc;
}

/* An object's kustomize id: apiVersion, kind, namespace ("" read as "default") and name. */
/* v0.1: kustomize's ResMap id (apiVersion, kind, namespace or "default", name). v0.2 and later compare group, kind,
 * namespace as written and name themselves (helmchartprocessor run, "check for duplicates for idempotency"). */
static const char *item_id(arena *a, const resource *r, bool v01)
{
    const char *av = res_api_version(r), *kind = res_kind(r), *ns = res_namespace(r), *name = res_name(r);
    if (!v01) {
        const char *slash = av ? strchr(av, '/') : NULL;
        return arena_printf(a, "%.*s\n%s\n%s\n%s", slash ? (int)(slash - av) : 0, slash ? av : "", kind ? kind : "",
                            ns ? ns : "", name ? name : "");
    }
    return arena_printf(a, "%s\n%s\n%s\n%s", av ? av : "", kind ? kind : "", ns && *ns ? ns : "default",
                        name ? name : "");
}

/* The set of the input's ids. The ids are the package's and the chart's names, which the author could pick to
 * collide under a hash with a known start, making the set's probes quadratic: it hashes from the fixed start
 * (text_hash_fixed: the same work on every run) until a probe runs past ID_PROBE_LIMIT slots, then, once, from the
 * secret one (text_hash), rebuilt. */
enum { ID_PROBE_LIMIT = 48 };
typedef struct {
    const char **v;
    size_t cap; /* a power of two, at least twice the ids: never full */
    bool secret;
} id_set;

static size_t id_hash(const id_set *s, const char *id)
{
    size_t n = strlen(id);
    return (size_t)(s->secret ? text_hash(id, n) : text_hash_fixed(id, n));
}

static void id_put(id_set *s, const char *id);

/* Where id sits in the set, or the empty slot it would take. */
static size_t id_slot(id_set *s, const char *id)
{
    size_t h = id_hash(s, id) & (s->cap - 1), probes = 0;
    while (s->v[h] && strcmp(s->v[h], id)) {
        h = (h + 1) & (s->cap - 1);
        if (++probes == ID_PROBE_LIMIT && !s->secret) {
            /* ids chosen to collide from the known start: every one again from the secret start */
            const char **old = s->v;
            s->v = xcalloc(s->cap, sizeof *s->v);
            s->secret = true;
            for (size_t i = 0; i < s->cap; i++)
                if (old[i])
                    id_put(s, old[i]);
            xfree(old);
            return id_slot(s, id);
        }
    }
    return h;
}

static void id_put(id_set *s, const char *id)
{
    size_t j = id_slot(s, id); /* first: it may rebuild s->v */
    s->v[j] = id;
}

static bool id_has(id_set *s, const char *id)
{
    size_t j = id_slot(s, id);
    return s->v[j] != NULL;
}


/* A rendered object with the id of an input item (items[0, before)) is dropped, and the input item stays as it
 * was: v0.1 put the input in a kustomize ResMap before adding the chart's objects, later releases skip such an
 * object so that a second run adds nothing. One hash set of the input's ids. */
static void drop_rendered_duplicates(fn_ctx *c, size_t before, bool v01)
{
    if (!before || c->items->n == before)
        return;
    id_set set = {NULL, 16, false};
    while (set.cap < before * 2)
        set.cap *= 2;
    set.v = xcalloc(set.cap, sizeof *set.v);
    for (size_t i = 0; i < before; i++)
        if (c->items->v[i])
            id_put(&set, item_id(c->a, c->items->v[i], v01));
    for (size_t i = before; i < c->items->n; i++) {
        if (!c->items->v[i])
            continue;
        if (id_has(&set, item_id(c->a, c->items->v[i], v01)))
            c->items->v[i] = NULL;
    }
    xfree(set.v);
}

/* For tests (tests/unit/test_id_set.c): the set of the ids of items[0, n): -1 when one of them is not found in it
 * afterwards, else 1 when it drew the secret start, 0 when it kept the fixed one. */
int render_helm_chart_id_set_check(fn_ctx *c, size_t n, bool v01);
int render_helm_chart_id_set_check(fn_ctx *c, size_t n, bool v01)
{
    id_set set = {NULL, 16, false};
    while (set.cap < n * 2)
        set.cap *= 2;
    set.v = xcalloc(set.cap, sizeof *set.v);
    for (size_t i = 0; i < n; i++)
        id_put(&set, item_id(c->a, c->items->v[i], v01));
    int rc = set.secret;
    for (size_t i = 0; i < n; i++)
        if (!id_has(&set, item_id(c->a, c->items->v[i], v01)))
            rc = -1;
    xfree(set.v);
    return rc;
}

static int run(fn_ctx *c)
{
    bool v01 = fn_version_before(&c->version, 0, 2, 0);
    size_t before = c->items->n;
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
    if (!helm_environment(c->host->tmpdir))
        return fn_fail(c, NULL, "cannot create a temporary directory for helm");
    if (config_is(c->config, "ConfigMap", "")) {
        chart ch;
        if (read_configmap_chart(c, map_get(c->config, "data"), v01, &ch) < 0)
            return -1;
        if (render_chart(c, helm, &ch) < 0)
            return -1;
        drop_rendered_duplicates(c, before, v01);
        return 0;
    }
    if (!config_is(c->config, "RenderHelmChart", NULL))
        return fn_fail(c, c->config, "functionConfig must be a RenderHelmChart or a ConfigMap");
    const node *charts = map_get(c->config, "helmCharts");
    const node *globals = map_get(c->config, "helmGlobals");
    const char *release = v01 ? "render-helm-chart v0.1.x" : "render-helm-chart v0.2.0 and later", *config_home;
    if (globals && !is_null(globals) && !is_map(globals))
        return fn_fail(c, globals, "helmGlobals must be a map (chartHome, configHome)");
    if (refuse_unknown(c, c->config, "", release, top_keys) < 0 ||
        refuse_unknown(c, globals, "helmGlobals.", release, global_keys) < 0 ||
        text_field(c, globals, "configHome", "helmGlobals.configHome", &config_home, NULL) < 0)
        return -1;
    if (!is_seq(charts) || !node_len(charts))
        return fn_fail(c, c->config, "helmCharts must be a non-empty list");
    /* every entry is read before helm first runs: a config error is found before any chart is fetched */
    chart *all = arena_alloc(c->a, node_len(charts) * sizeof *all);
    seq_foreach(charts, i, item)
        if ((v01 ? read_chart_v01(c, item, i, globals, &all[i])
                 : read_chart(c, item, i, globals, &all[i])) < 0)
            return -1;
    if (!v01) /* (v0.1 refuses chartArgs) */
        warn_unused_auth(c, charts);
    for (uint32_t i = 0; i < node_len(charts); i++) /* by index: over all[], the charts read above */
        if (render_chart(c, helm, &all[i]) < 0)
            return -1;
    drop_rendered_duplicates(c, before, v01);
    return 0;
}

/* One chart's local directory, from the fields that place it only: a config that is wrong elsewhere still names
 * its chart (the step then fails on the rest), so the reader never reads that chart as resources and hides the
 * config error behind one in a template. The field the step's release reads comes first. A chart the step pulls
 * from a repository names its directory under chartHome too, where there is one: that is the chart's place (a
 * vendored copy), and kpt would fail on its templates, so leaving it to the step never renders less than kpt. */
static void chart_source(fn_ctx *c, const node *m, const node *args, const node *globals, bool flat_first,
                         source_dir_fn add, void *ud)
{
    const node *first = flat_first ? m : args, *second = flat_first ? args : m;
    const char *name = path_str(first, "name", NULL);
    const node *name_at = map_get(first, "name");
    if (!name || !*name) {
        name = path_str(second, "name", NULL);
        name_at = map_get(second, "name");
    }
    if (!name || !*name)
        return;
    chart ch = {.at = m, .name = name, .name_at = name_at, .chart_home = path_str(m, "chartHome", NULL)};
    if (!ch.chart_home)
        ch.chart_home = path_str(globals, "chartHome", NULL);
    const char *dir = local_chart(c, &ch);
    if (dir)
        helm_chart_dirs(fn_engine(c), dir, add, ud);
}

/* The chart directories a step renders from the package's repository: its local charts and the charts their
 * file:// dependencies name. The reader leaves them to the step. */
void render_helm_chart_sources(fn_ctx *c, source_dir_fn add, void *ud)
{
    bool v01 = fn_version_before(&c->version, 0, 2, 0);
    if (config_is(c->config, "ConfigMap", "")) {
        chart_source(c, map_get(c->config, "data"), NULL, NULL, true, add, ud);
        return;
    }
    const node *charts = map_get(c->config, "helmCharts"), *globals = map_get(c->config, "helmGlobals");
    seq_foreach(charts, i, entry) {
        if (is_map(entry))
            chart_source(c, entry, map_get(entry, "chartArgs"), is_map(globals) ? globals : NULL, v01, add, ud);
    }
}

const fn_def fn_render_helm_chart = {
    .name = "render-helm-chart",
    .summary = "render Helm charts with the real helm template (local, https or oci charts)",
    .run = run,
    .releases = "0.1.0 0.2.0 0.2.1 0.2.2 0.3.0",
    .readme = {
        .does = "Helm charts through the real `helm template`",
        .differs = "runs locally with no container, with the operator's helm (the releases bundled v3.6.3 to v3.11.1); "
                "CRDs included by default; release name and namespace default to the Argo CD app (the name after the "
                "first `_` of `ARGOCD_APP_NAME`, as Argo CD's Helm); helm's output is read as a YAML stream by every "
                "version (up to v0.2.1 the catalog split it on `---` lines, which cut a manifest holding `---` in a "
                "block string into broken objects); v0.1's `configHome` is read and not used (helm runs with a "
                "private configuration of its own); a config key the release does not read is an error naming the "
                "file, line and key (the catalog ignores it, and under Argo CD a warning would never be seen); "
                "`chartArgs.auth` is ignored with a warning (credentials are the operator's), and `nameTemplate` is "
                "refused (helm evaluates it with functions that read the environment)",
        .versions = "v0.1.x: the flat schema: ConfigMap `data` {chartHome, configHome, name, version, repo, releaseName, "
                "namespace, valuesFile, includeCRDs}, RenderHelmChart `helmGlobals` {chartHome, configHome} and "
                "`helmCharts[]` {name, version, repo, releaseName, namespace, valuesInline, valuesFile, valuesMerge, "
                "includeCRDs} (`chartArgs`/`templateOptions` are errors); a rendered object with the id of an input "
                "item is dropped and the input item wins · ≥v0.2.0, `latest`: the nested schema (`chartArgs`, "
                "`templateOptions`); a v0.1 flat field in an entry is an error naming its new place; the ConfigMap "
                "takes one `valuesFile`; a rendered object with the group, kind, namespace and name of an input item "
                "is skipped (a second run adds nothing)",
    },
};
