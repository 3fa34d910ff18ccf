/* kubeconform and kubeval in-process (see schema_check.h, schema/openapi.h). */
#include "functions/krm/schema_check.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/diag.h"
#include "yaml/scalar.h"

#define SCHEMA_MAX_BYTES ((size_t)64 << 20) /* the uncompressed document: the shipped 1.36 is 420 KB, a full one 4 MB */

typedef struct schema_cfg {
    bool strict, ignore_missing;
    const char *skip_kinds;   /* comma-separated, NULL: none */
    const char *version;      /* kubernetes_version as written, NULL: the newest shipped */
} schema_cfg;

/* The parsed document: parsed once per process (a render), only when a step needs it, and kept for the next step
 * that asks for the same file. It lives in an arena of its own (counted against the memory budget like any), so
 * nothing ties it to the arena of the render or test that loaded it first. */
static struct {
    arena *a;
    strtab *st;
    char path[PATH_MAX];
    openapi *doc;
} cache;

static bool cfg_true(const node *v)
{
    if (!is_scalar(v))
        return false;
    const char *s = scalar(v);
    return !strcasecmp(s, "true") || !strcmp(s, "1");
}

/* One key of the config: m's key i, in data or (as the catalog's kubeconform also reads them, and first) at the top
 * level of a config of any kind. */
static int read_key(fn_ctx *c, const node *m, uint32_t i, schema_cfg *cfg)
{
    const char *k = scalar(map_key(m, i));
    const node *v = map_val(m, i);
    if (!is_scalar(v))
        return fn_fail_key(c, m, i, "%s must be a string", k);
    if (!strcmp(k, "strict"))
        cfg->strict = cfg_true(v);
    else if (!strcmp(k, "ignore_missing_schemas"))
        cfg->ignore_missing = cfg_true(v);
    else if (!strcmp(k, "skip_kinds"))
        cfg->skip_kinds = *scalar(v) ? scalar(v) : NULL;
    else if (!strcmp(k, "kubernetes_version"))
        cfg->version = *scalar(v) ? scalar(v) : NULL;
    else if (!strcmp(k, "schema_location") || !strcmp(k, "additional_schema_locations")) {
        if (*scalar(v))
            return fn_fail_key(c, m, i,
                               "%s is not supported: objects are validated against the Kubernetes OpenAPI "
                               "documents the operator ships (CMP_KUBE_OPENAPI_DIR), and a render never fetches "
                               "or reads schemas a package names; remove it (and set ignore_missing_schemas or "
                               "skip_kinds for custom resources)",
                               k);
    } else
        return fn_fail_key(c, m, i,
                           "unknown config key %s (known: strict, ignore_missing_schemas, skip_kinds, "
                           "kubernetes_version, schema_location)",
                           k);
    return 0;
}

static int read_cfg(fn_ctx *c, schema_cfg *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    const node *conf = c->config;
    if (!conf)
        return 0;
    if (!is_map(conf))
        return fn_fail(c, conf, "the functionConfig is not a map");
    const node *data = map_get(conf, "data");
    if (data && !is_map(data))
        return fn_fail(c, data, "data is not a map");
    map_foreach(data, i, key, val)
        if (read_key(c, data, i, cfg) < 0)
            return -1;
    map_foreach(conf, i, k, val) {
        if (scalar_is(k, "apiVersion") || scalar_is(k, "kind") || scalar_is(k, "metadata") || scalar_is(k, "data"))
            continue;
        if (read_key(c, conf, i, cfg) < 0)
            return -1;
    }
    return 0;
}

static bool skipped_kind(const char *list, const char *kind)
{
    size_t kl = strlen(kind);
    for (const char *p = list; p && *p;) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == kl && !strncmp(p, kind, n))
            return true;
        p = e ? e + 1 : NULL;
    }
    return false;
}

/* "1.31", "v1.31.2", "1.31.0" -> 31; "master", "latest" or unset -> 0 (the newest); -1: not a version */
static int version_minor(const char *v)
{
    if (!v || !strcmp(v, "master") || !strcmp(v, "latest"))
        return 0;
    if (*v == 'v')
        v++;
    if (strncmp(v, "1.", 2))
        return -1;
    char *end;
    long m = strtol(v + 2, &end, 10);
    if (end == v + 2 || m <= 0 || m > 999 || (*end && *end != '.'))
        return -1;
    return (int)m;
}

/* The shipped document for minor (0: the newest); *used is the minor picked. */
static int pick_document(fn_ctx *c, const char *dir, int minor, char *path, size_t cap, int *used)
{
    DIR *d = opendir(dir);
    if (!d)
        return fail(dir, 0, "cannot read the Kubernetes OpenAPI directory (CMP_KUBE_OPENAPI_DIR)");
    int best = -1;
    struct dirent *e;
    while ((e = readdir(d))) {
        int m;
        char tail[16];
        if (sscanf(e->d_name, "swagger-v1.%d.json.g%15s", &m, tail) != 2 || strcmp(tail, "z") || m <= 0)
            continue;
        /* exact; else the newest; for a version not shipped, the nearest one */
        if (best < 0 || (minor == 0 && m > best) ||
            (minor > 0 && abs(m - minor) < abs(best - minor)) ||
            (minor > 0 && abs(m - minor) == abs(best - minor) && m > best))
            best = m;
    }
    closedir(d);
    if (best < 0)
        return fail(dir, 0, "no Kubernetes OpenAPI document (swagger-v1.<minor>.json.gz) in the schema directory");
    (void)c;
    snprintf(path, cap, "%s/swagger-v1.%d.json.gz", dir, best);
    *used = best;
    return 0;
}

static const openapi *load_document(const load_limits *lim, const char *path)
{
    if (cache.doc && !strcmp(cache.path, path))
        return cache.doc;
    if (cache.a) {
        strtab_release(cache.st);
        arena_free(cache.a);
    }
    cache.doc = NULL;
    cache.a = arena_new();
    cache.st = strtab_new(cache.a);
    openapi *o = openapi_load(cache.a, cache.st, lim, path, SCHEMA_MAX_BYTES);
    if (!o) {
        strtab_release(cache.st);
        arena_free(cache.a);
        cache.a = NULL;
        return NULL;
    }
    snprintf(cache.path, sizeof cache.path, "%s", path);
    cache.doc = o;
    return o;
}

/* The package's own CustomResourceDefinitions (apiextensions.k8s.io/v1): each served version's openAPIV3Schema
 * validates that group/version and kind, as the API server will once the CRD is applied. */
typedef struct crd_schema {
    const char *api_version, *kind;
    const node *schema;
} crd_schema;

static size_t collect_crds(fn_ctx *c, crd_schema **out)
{
    size_t n = 0, cap = 0;
    *out = NULL;
    for (size_t i = 0; i < c->items->n; i++) {
        const resource *r = c->items->v[i];
        const char *av = r ? res_api_version(r) : NULL, *kind = r ? res_kind(r) : NULL;
        if (!av || !kind || strcmp(av, "apiextensions.k8s.io/v1") || strcmp(kind, "CustomResourceDefinition"))
            continue;
        const char *group = path_str(r->root, "spec", "group", NULL), *ck = path_str(r->root, "spec", "names", "kind", NULL);
        const node *versions = path_get(r->root, "spec", "versions", NULL);
        if (!group || !ck || !is_seq(versions))
            continue;
        seq_foreach(versions, j, v) {
            const char *name = path_str(v, "name", NULL);
            const node *schema = path_get(v, "schema", "openAPIV3Schema", NULL);
            if (!name || !is_map(schema))
                continue;
            if (n == cap) {
                cap = cap ? cap * 2 : 8;
                crd_schema *nv = arena_alloc(c->a, cap * sizeof *nv);
                if (n)
                    memcpy(nv, *out, n * sizeof *nv);
                *out = nv;
            }
            (*out)[n++] = (crd_schema){arena_printf(c->a, "%s/%s", group, name), ck, schema};
        }
    }
    return n;
}

static const node *crd_lookup(const crd_schema *v, size_t n, const char *av, const char *kind)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i].api_version, av) && !strcmp(v[i].kind, kind))
            return v[i].schema;
    return NULL;
}

typedef struct report_ctx {
    fn_ctx *c;
    const resource *r;
    const char *first_field, *first_msg;
} report_ctx;

static void on_error(void *ud, const char *field, const char *message)
{
    report_ctx *rc = ud;
    fn_result_add(rc->c, SEV_ERROR, rc->r, field, "%s", message);
    if (!rc->first_msg) {
        rc->first_field = arena_strdup(rc->c->a, field);
        rc->first_msg = arena_strdup(rc->c->a, message);
    }
}

int schema_check_run(fn_ctx *c, enum openapi_dialect dialect)
{
    schema_cfg cfg;
    if (read_cfg(c, &cfg) < 0)
        return -1;
    int minor = version_minor(cfg.version);
    if (minor < 0)
        return fn_fail(c, c->config, "kubernetes_version \"%s\" is not a Kubernetes version (1.<minor>[.<patch>])",
                       cfg.version);
    /* The catalog's kubeconform validates every item kpt gives it, the Kptfile included (a Kptfile needs
     * skip_kinds: Kptfile or ignore_missing_schemas, as there); its kubeval skipped local-config objects (the
     * catalog's kubeval-simple example annotates its Kptfile local-config for that). */
    bool skip_local = dialect == OPENAPI_KUBEVAL;
    /* nothing to validate: no document is read */
    bool any = false;
    for (size_t i = 0; i < c->items->n && !any; i++) {
        const resource *r = c->items->v[i];
        any = r && !(skip_local && res_is_local_config(r)) && !(res_kind(r) && skipped_kind(cfg.skip_kinds, res_kind(r)));
    }
    if (!any)
        return 0;
    const char *dir = c->host ? c->host->kube_openapi_dir : NULL;
    if (!dir)
        return fail(NULL, 0,
                    "no Kubernetes OpenAPI documents: the operator's CMP_KUBE_OPENAPI_DIR is unset and the "
                    "project's data/kubernetes-openapi is not installed beside the binary");
    char path[PATH_MAX];
    int used = 0;
    if (pick_document(c, dir, minor, path, sizeof path, &used) < 0)
        return -1;
    if (minor > 0 && used != minor)
        fn_result_add(c, SEV_WARNING, NULL, NULL,
                      "kubernetes_version %s: no schema for Kubernetes 1.%d is shipped, validating against 1.%d", cfg.version,
                      minor, used);
    const openapi *doc = load_document(limits_yaml(fn_limits(c)), path);
    if (!doc)
        return -1;
    openapi_opts opt = {.dialect = dialect, .strict = cfg.strict};
    crd_schema *crds = NULL;
    size_t ncrds = collect_crds(c, &crds);
    size_t errors = 0;
    report_ctx first = {0};
    for (size_t i = 0; i < c->items->n; i++) {
        const resource *r = c->items->v[i];
        if (!r || (skip_local && res_is_local_config(r)))
            continue;
        const char *kind = res_kind(r), *av = res_api_version(r);
        if (kind && skipped_kind(cfg.skip_kinds, kind))
            continue;
        if (!kind || !*kind || !av || !*av) {
            fn_result_add(c, SEV_ERROR, r, NULL, "%s", !kind || !*kind ? "missing 'kind' key" : "missing 'apiVersion' key");
            if (!errors++)
                first = (report_ctx){.r = r, .first_field = "", .first_msg = "missing kind or apiVersion"};
            continue;
        }
        const node *def = openapi_kind(doc, av, kind);
        opt.crd = false;
        if (!def && (def = crd_lookup(crds, ncrds, av, kind)))
            opt.crd = true;
        if (!def) {
            if (cfg.ignore_missing)
                continue;
            const char *msg =
                dialect == OPENAPI_KUBECONFORM
                    ? arena_printf(c->a,
                                   "Validating arbitrary CRDs not supported. Consider setting ignore_missing_schemas "
                                   "or skip_kinds in FunctionConfig:\ncould not find schema for %s (Kubernetes 1.%d)",
                                   kind, used)
                    : arena_printf(c->a, "Failed initializing schema for %s %s (Kubernetes 1.%d): no schema found", av,
                                   kind, used);
            fn_result_add(c, SEV_ERROR, r, NULL, "%s", msg);
            if (!errors++)
                first = (report_ctx){.r = r, .first_field = "", .first_msg = arena_printf(c->a, "no schema for %s %s in Kubernetes 1.%d (set ignore_missing_schemas or skip_kinds)", av, kind, used)};
            continue;
        }
        report_ctx rc = {.c = c, .r = r};
        size_t n = openapi_validate(c->a, doc, def, r->root, &opt, on_error, &rc);
        if (n && !errors)
            first = rc;
        errors += n;
    }
    if (!errors)
        return 0;
    c->failure_reported = true;
    return fn_fail_res(c, first.r, NULL, "%zu schema error%s against Kubernetes 1.%d; the first: %s%s%s", errors,
                       errors == 1 ? "" : "s", used, first.first_field && *first.first_field ? first.first_field : "",
                       first.first_field && *first.first_field ? ": " : "", first.first_msg);
}
