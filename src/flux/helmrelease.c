/* The flux-helmrelease step: every Flux HelmRelease of the rendered package kept (keep), refused (error), or
 * replaced by the manifests helm-controller would install (render). helm-controller's code is the reference
 * (research §3): the release name and namespace, the values (flux/values.c), the CRD policy, hooks, commonMetadata
 * and the origin labels. The chart comes from the HelmRepository the release names, pulled by the real helm with
 * render-helm-chart's fetching (helm_pull: the operator's credentials and the confinement of the archive) and
 * templated by it. A field with no rendered form gets one warning; anything else this step does not render is an
 * error naming it, never a silent skip. */
#include "flux/flux.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flux/internal.h"
#include "flux/sha256.h"
#include "git/git.h"
#include "decode/decode.h"
#include "functions/tools/external.h"
#include "helm/archive.h"
#include "helm/fetch.h"
#include "functions/krm/nameref.h"
#include "util/diag.h"
#include "util/fsutil.h"
#include "util/url.h"
#include "yaml/emit.h"
#include "yaml/load.h"

#define HR_GROUP "helm.toolkit.fluxcd.io"
#define SOURCE_GROUP "source.toolkit.fluxcd.io"
#define ORIGIN_NAME HR_GROUP "/name"
#define ORIGIN_NAMESPACE HR_GROUP "/namespace"

const char *flux_mode_rule(const char *mode)
{
    if (!mode || !strcmp(mode, "keep") || !strcmp(mode, "render") || !strcmp(mode, "error"))
        return NULL;
    return "it must be keep, render or error";
}

/* The apiVersion's group and version ("" for the core group). */
static void group_version(arena *a, const resource *r, const char **group, const char **version)
{
    const char *av = res_api_version(r);
    const char *slash = av ? strchr(av, '/') : NULL;
    *group = slash ? arena_strndup(a, av, (size_t)(slash - av)) : "";
    *version = slash ? slash + 1 : av ? av : "";
}

bool flux_is_helmrelease(const resource *r)
{
    const char *av = res_api_version(r), *kind = res_kind(r);
    return av && kind && !strcmp(kind, "HelmRelease") && !strncmp(av, HR_GROUP "/", sizeof HR_GROUP);
}

typedef struct release {
    resource *hr;
    size_t index; /* in the items */
    const char *name, *ns;
    const char *release, *target_ns; /* the Helm release's name (shortened) and namespace */
    rlist out;                       /* what it renders to, in helm's order */
    node *create_namespace;          /* a Namespace to emit first, or NULL */
    const node *depends_on;
} release;

typedef struct run {
    const flux_step *s;
    rlist *items;
    bool *used; /* items used as a release's source: removed */
    release *rels;
    size_t nrels;
    const char *helm;
    fn_ctx c; /* the release being rendered: errors name its file and line */
    node *lock;            /* flux-lock: <namespace>/<name> -> {version, digest}, or NULL */
    const char *lock_file; /* its path, for messages */
    bool skopeo_warned;    /* the one warning that OCI annotations are not stamped (no skopeo) was given */
} run;

/* The loader's limits of the operator (through the step's host), for every text a release brings. */
static const load_limits *run_yaml_limits(const run *R)
{
    return limits_yaml(R->s->host ? R->s->host->limits : NULL);
}

/* An object's namespace as Argo CD applies it: its own, else the Application's destination, else "default". */
static const char *obj_ns(const run *R, const resource *r)
{
    const char *ns = res_namespace(r);
    if (ns && *ns)
        return ns;
    return R->s->host && R->s->host->app_namespace && *R->s->host->app_namespace ? R->s->host->app_namespace
                                                                                  : "default";
}

static const char *hr_id(run *R, const release *rel)
{
    return arena_printf(R->s->a, "HelmRelease %s/%s", rel->ns, rel->name);
}

/* ---- the fields of a HelmRelease ---- */

enum how { K_USE, K_IGNORE, K_WARN, K_ERROR };

typedef struct field {
    const char *key;
    enum how how;
    const char *why; /* K_WARN, K_ERROR: what to say */
} field;

#define NO_FORM "has no rendered form"
static const field spec_fields[] = {
    {"chart", K_USE, NULL},
    {"chartRef", K_USE, NULL},
    {"interval", K_IGNORE, NULL},
    {"releaseName", K_USE, NULL},
    {"targetNamespace", K_USE, NULL},
    {"dependsOn", K_USE, NULL},
    {"values", K_USE, NULL},
    {"valuesFrom", K_USE, NULL},
    {"install", K_USE, NULL},
    {"upgrade", K_USE, NULL},
    {"commonMetadata", K_USE, NULL},
    {"postRenderStrategy", K_USE, NULL},
    {"postRenderers", K_USE, NULL},
    {"kubeConfig", K_ERROR, "renders for a remote cluster (a remote-cluster HelmRelease), which this render cannot "
                            "reach; not rendered"},
    {"suspend", K_WARN, NO_FORM " (Flux would stop reconciling the release; Argo CD syncs what is rendered)"},
    {"storageNamespace", K_WARN, NO_FORM " (where Helm keeps its release records; Argo CD keeps none)"},
    {"timeout", K_WARN, NO_FORM},
    {"maxHistory", K_WARN, NO_FORM " (Helm release history; Argo CD keeps its own)"},
    {"serviceAccountName", K_WARN, NO_FORM " (Argo CD applies with its own credentials)"},
    {"persistentClient", K_WARN, NO_FORM},
    {"driftDetection", K_WARN, NO_FORM " (use the Application's ignoreDifferences and syncPolicy.automated.selfHeal)"},
    {"test", K_WARN, NO_FORM " (Argo CD runs no Helm tests; test hooks are dropped)"},
    {"rollback", K_WARN, NO_FORM},
    {"uninstall", K_WARN, NO_FORM},
    {NULL, K_USE, NULL},
};

static const field install_fields[] = {
    {"crds", K_USE, NULL},
    {"createNamespace", K_USE, NULL},
    {"disableHooks", K_USE, NULL},
    {"disableSchemaValidation", K_USE, NULL},
    {"skipCRDs", K_USE, NULL},
    {"replace", K_WARN, NO_FORM},
    {"remediation", K_WARN, NO_FORM " (Argo CD retries with the Application's syncPolicy.retry)"},
    {"timeout", K_WARN, NO_FORM},
    {"disableWait", K_WARN, NO_FORM},
    {"disableWaitForJobs", K_WARN, NO_FORM},
    {"disableOpenAPIValidation", K_WARN, NO_FORM " (the API server validates what Argo CD applies)"},
    {"strategy", K_WARN, NO_FORM},
    {"serverSideApply", K_WARN, NO_FORM " (use the Application's ServerSideApply sync option)"},
    {"disableTakeOwnership", K_WARN, NO_FORM},
    {NULL, K_USE, NULL},
};

static const field upgrade_fields[] = {
    {"crds", K_WARN, "is not used: the install policy decides, and Argo CD applies the CRDs on every sync"},
    {"disableHooks", K_USE, NULL},
    {"disableSchemaValidation", K_USE, NULL},
    {"force", K_WARN, NO_FORM " (use the Application's Replace or Force sync options)"},
    {"preserveValues", K_WARN, NO_FORM " (every render starts from the package's values)"},
    {"remediation", K_WARN, NO_FORM " (Argo CD retries with the Application's syncPolicy.retry)"},
    {"cleanupOnFail", K_WARN, NO_FORM},
    {"timeout", K_WARN, NO_FORM},
    {"disableWait", K_WARN, NO_FORM},
    {"disableWaitForJobs", K_WARN, NO_FORM},
    {"disableOpenAPIValidation", K_WARN, NO_FORM " (the API server validates what Argo CD applies)"},
    {"strategy", K_WARN, NO_FORM},
    {"serverSideApply", K_WARN, NO_FORM " (use the Application's ServerSideApply sync option)"},
    {"disableTakeOwnership", K_WARN, NO_FORM},
    {NULL, K_USE, NULL},
};

static const field chart_spec_fields[] = {
    {"chart", K_USE, NULL},
    {"version", K_USE, NULL},
    {"sourceRef", K_USE, NULL},
    {"interval", K_IGNORE, NULL},
    {"reconcileStrategy", K_USE, NULL},
    {"valuesFiles", K_USE, NULL},
    {"valuesFile", K_USE, NULL},
    {"ignoreMissingValuesFiles", K_USE, NULL},
    {"verify", K_USE, NULL},
    {NULL, K_USE, NULL},
};

static const field helm_repository_fields[] = {
    {"url", K_USE, NULL},
    {"type", K_USE, NULL},
    {"interval", K_IGNORE, NULL},
    {"timeout", K_IGNORE, NULL},
    {"suspend", K_IGNORE, NULL},
    {"accessFrom", K_IGNORE, NULL},
    {"passCredentials", K_IGNORE, NULL},
    {"secretRef", K_WARN, "names a cluster Secret this render cannot read: credentials for chart repositories are "
                          "the operator's (CMP_HELM_CREDENTIALS_DIR on the sidecar)"},
    {"certSecretRef", K_WARN, "names a cluster Secret this render cannot read: the operator's repositories.yaml "
                              "(CMP_HELM_CREDENTIALS_DIR) holds CA files"},
    {"insecure", K_WARN, "is not used: plain-HTTP registries are the operator's (CMP_HELM_PLAIN_HTTP_REGISTRIES)"},
    {"provider", K_USE, NULL},
    {NULL, K_USE, NULL},
};

static bool set_value(const node *v)
{
    return v && !is_null(v) && !(is_scalar(v) && (!strcmp(scalar(v), "false") || !*scalar(v))) &&
           !((is_map(v) || is_seq(v)) && !node_len(v));
}

/* Written and not null: for verify, where `verify: {}` asks for verification all the same (Flux's CRD defaults its
 * provider to cosign), so an empty map must never mean "not verified". */
static bool present(const node *v)
{
    return v && !is_null(v);
}

/* Every key of m must be in fields: K_WARN ones that are set get one warning each, K_ERROR ones an error. */
static int check_fields(run *R, const release *rel, const node *m, const char *where, const field *fields)
{
    map_foreach(m, i, key, val) {
        const char *k = scalar(key);
        const field *f = fields;
        while (f->key && (!k || strcmp(f->key, k)))
            f++;
        if (!f->key)
            return fn_fail_key(&R->c, m, i, "%s: %s%s is not a field the flux-helmrelease step renders", hr_id(R, rel),
                               where, k ? shown(R->s->a, k) : "(a key that is not a string)");
        if (f->how == K_ERROR && set_value(val))
            return fn_fail_key(&R->c, m, i, "%s: %s%s %s", hr_id(R, rel), where, k, f->why);
        if (f->how == K_WARN && set_value(val))
            fn_warn_key(&R->c, m, i, "%s: %s%s %s; ignored", hr_id(R, rel), where, k, f->why);
    }
    return 0;
}

static int text(run *R, const release *rel, const node *m, const char *key, const char *where, const char **out)
{
    const node *v = map_get(m, key);
    *out = NULL;
    if (!v || is_null(v))
        return 0;
    if (!is_scalar(v))
        return fn_fail(&R->c, v, "%s: %s%s must be a string", hr_id(R, rel), where, key);
    *out = scalar(v);
    return 0;
}

static int boolean(run *R, const release *rel, const node *m, const char *key, const char *where, bool *out)
{
    const node *v = map_get(m, key);
    *out = false;
    if (!v || is_null(v))
        return 0;
    if (!is_scalar(v) || (strcmp(scalar(v), "true") && strcmp(scalar(v), "false")))
        return fn_fail(&R->c, v, "%s: %s%s must be true or false", hr_id(R, rel), where, key);
    *out = !strcmp(scalar(v), "true");
    return 0;
}

/* Kubernetes' DNS-1123 label (a namespace): what reaches helm's --namespace. */
static bool dns_label(const char *s)
{
    size_t n = strlen(s);
    if (!n || n > 63 || s[0] == '-' || s[n - 1] == '-')
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
            return false;
    return true;
}

/* A chart name as a chart repository's index names it: no path, nothing an option could start with. */
static bool chart_name(const char *s)
{
    if (!*s || *s == '-' || *s == '.' || strlen(s) > 250)
        return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-' ||
              *p == '_' || *p == '.'))
            return false;
    return true;
}

/* ---- the sources ---- */

static resource *find_object(run *R, const char *group, const char *kind, const char *name, const char *ns,
                             size_t *index)
{
    for (size_t i = 0; i < R->items->n; i++) {
        resource *r = R->items->v[i];
        const char *g, *v, *k = r ? res_kind(r) : NULL, *n = r ? res_name(r) : NULL;
        if (!k || !n || strcmp(k, kind) || strcmp(n, name) || strcmp(obj_ns(R, r), ns))
            continue;
        group_version(R->s->a, r, &g, &v);
        if (strcmp(g, group))
            continue;
        if (index)
            *index = i;
        return r;
    }
    return NULL;
}

/* The ConfigMaps and Secrets of the package, as the API server would hold them (a Secret's stringData over its
 * decoded data). */
static int values_sources(run *R, flux_values_source **out, size_t *n)
{
    arena *a = R->s->a;
    *out = arena_alloc(a, (R->items->n + 1) * sizeof **out);
    *n = 0;
    for (size_t i = 0; i < R->items->n; i++) {
        resource *r = R->items->v[i];
        const char *k = r ? res_kind(r) : NULL, *g, *v;
        if (!k || (strcmp(k, "ConfigMap") && strcmp(k, "Secret")) || !res_name(r))
            continue;
        group_version(a, r, &g, &v);
        if (*g)
            continue;
        node *data = node_map(a);
        const node *d = map_get(r->root, "data");
        map_foreach(d, j, dk, dv) {
            const char *key = scalar(dk), *val = scalar(dv);
            if (!key || !val)
                continue;
            if (!strcmp(k, "Secret")) {
                /* Go's base64 decoder skips line breaks */
                char *clean = arena_strdup(a, val), *w = clean;
                for (const char *p = val; *p; p++)
                    if (*p != '\n' && *p != '\r')
                        *w++ = *p;
                *w = 0;
                size_t len;
                char *dec = flux_base64_decode(a, clean, &len);
                if (!dec || strlen(dec) != len)
                    continue; /* the API server refuses it; a values reference to it finds no key */
                val = dec;
            }
            map_set(a, data, key, node_str(a, val));
        }
        const node *sd = !strcmp(k, "Secret") ? map_get(r->root, "stringData") : NULL;
        map_foreach(sd, j, sk, sv)
            if (scalar(sk) && scalar(sv))
                map_set(a, data, scalar(sk), node_str(a, scalar(sv)));
        (*out)[(*n)++] = (flux_values_source){k, res_name(r), obj_ns(R, r), data};
    }
    return 0;
}

static int compute_values(run *R, const release *rel, const node *spec, node **out)
{
    arena *a = R->s->a;
    const node *inl = map_get(spec, "values"), *from = map_get(spec, "valuesFrom");
    if (inl && !is_null(inl) && !is_map(inl))
        return fn_fail(&R->c, inl, "%s: spec.values must be a map", hr_id(R, rel));
    if (from && !is_null(from) && !is_seq(from))
        return fn_fail(&R->c, from, "%s: spec.valuesFrom must be a list", hr_id(R, rel));
    uint32_t nrefs = is_seq(from) ? node_len(from) : 0;
    flux_values_ref *refs = arena_alloc(a, (nrefs + 1) * sizeof *refs);
    static const field ref_fields[] = {{"kind", K_USE, NULL},       {"name", K_USE, NULL},
                                       {"valuesKey", K_USE, NULL},  {"targetPath", K_USE, NULL},
                                       {"optional", K_USE, NULL},   {"literal", K_USE, NULL},
                                       {NULL, K_USE, NULL}};
    for (uint32_t i = 0; i < nrefs; i++) {
        const node *e = seq_item(from, i);
        const char *where = arena_printf(a, "spec.valuesFrom[%u].", i);
        flux_values_ref *r = &refs[i];
        memset(r, 0, sizeof *r);
        if (!is_map(e))
            return fn_fail(&R->c, e, "%s: %s must be a map (kind, name, valuesKey, targetPath, optional)",
                           hr_id(R, rel), arena_strndup(a, where, strlen(where) - 1));
        if (check_fields(R, rel, e, where, ref_fields) < 0 || text(R, rel, e, "kind", where, &r->kind) < 0 ||
            text(R, rel, e, "name", where, &r->name) < 0 || text(R, rel, e, "valuesKey", where, &r->key) < 0 ||
            text(R, rel, e, "targetPath", where, &r->target_path) < 0 ||
            boolean(R, rel, e, "optional", where, &r->optional) < 0 ||
            boolean(R, rel, e, "literal", where, &r->literal) < 0)
            return -1;
        if (!r->kind || !r->name || !*r->name)
            return fn_fail(&R->c, e, "%s: %skind and name are required", hr_id(R, rel), where);
    }
    flux_values_source *srcs;
    size_t nsrcs;
    values_sources(R, &srcs, &nsrcs);
    long bad;
    if (flux_chart_values(a, R->s->st, run_yaml_limits(R), srcs, nsrcs, rel->ns, is_map(inl) ? inl : NULL, refs, nrefs, out, &bad) < 0)
        return fn_locate(&R->c, bad >= 0 ? seq_item(from, (uint32_t)bad) : from, "%s", hr_id(R, rel));
    return 0;
}

/* ---- helm ---- */

static void push(const char ***argv, size_t *n, size_t *cap, const char *s)
{
    if (*n + 2 > *cap) {
        *cap = *cap ? *cap * 2 : 16;
        *argv = xrealloc(*argv, *cap * sizeof **argv);
    }
    (*argv)[(*n)++] = s;
    (*argv)[*n] = NULL;
}

/* The archive helm pulled: its digest and its Chart.yaml's name and version. */
typedef struct chart_meta {
    arena *a;
    strtab *st;
    const load_limits *lim;
    const char *name, *version;
    const char *chart_yaml; /* its text */
    char digest[65];
} chart_meta;

static int chart_yaml(void *ud, const helm_archive_entry *e)
{
    chart_meta *m = ud;
    if (!e->name || strcmp(e->name, "Chart.yaml") || m->name)
        return 0;
    node *doc = NULL;
    diag_detail why;
    m->chart_yaml = arena_strndup(m->a, (const char *)e->data, e->size);
    if (yaml_load_one_into(m->a, m->st, m->lim, "Chart.yaml", (const char *)e->data, e->size, &doc, &why) == 0) {
        m->name = path_str(doc, "name", NULL);
        m->version = path_str(doc, "version", NULL);
    }
    return 0;
}

static int read_chart_meta(run *R, const node *at, const char *tgz, chart_meta *m)
{
    unsigned char *bytes;
    size_t got;
    if (read_file_bytes(tgz, (size_t)1 << 31, &bytes, &got) < 0)
        return fn_fail(&R->c, at, "cannot read the chart archive helm pulled: %s", strerror(errno));
    sha256_ctx c;
    sha256_init(&c);
    sha256_update(&c, bytes, got);
    sha256_hex(&c, m->digest);
    size_t max = R->s->host->max_chart_bytes ? R->s->host->max_chart_bytes : (size_t)100 << 20;
    int rc = helm_archive_read(R->s->a, bytes, got, max, chart_yaml, m);
    xfree(bytes);
    if (rc == HELM_ARCHIVE_REFUSED)
        return fn_locate(&R->c, at, "the chart archive helm pulled has no readable Chart.yaml");
    if (rc < 0 || !m->name || !m->version)
        return fn_fail(&R->c, at, "the chart archive helm pulled has no readable Chart.yaml");
    return 0;
}

/* ---- where the chart comes from ---- */

#define HELM_CHART_LAYER "application/vnd.cncf.helm.chart.content.v1.tar+gzip"

typedef struct chart_src {
    const node *at;                  /* what a failed pull names */
    const char *repo, *name, *version; /* for helm_pull_digest */
    const char *source_url;          /* <domain>/chart-source */
    bool track_digest;               /* an OCIRepository: the chart version gets +<digest> (helm-controller) */
    const char *tag;                 /* the OCIRepository's tag, which must be the chart's version */
    const char *bare;                /* the OCIRepository's chart name, without tag or digest */
    const char *oci_chart;           /* an OCI chart's name in its registry path (for cosign), or NULL */
    const node *verify;              /* Flux's verify (cosign), checked after the pull; NULL when unset */
    const char *verify_file;         /* the file that holds it, and its line, for messages */
    int verify_line;
    const node *values_files;        /* valuesFiles (v2beta1's valuesFile as a list of one), or NULL */
    bool ignore_missing_values;      /* ignoreMissingValuesFiles */
    size_t used[2];                  /* the source objects used, removed from the output */
    int nused;
    const char *git_chart;           /* a GitRepository's chart: its directory in the checkout (a real path) */
    const char *git_revision;        /* ... the commit it is read at (the Application's revision) */
    bool git_revision_version;       /* ... reconcileStrategy Revision: version +<first 12 of the revision> */
    const char *semver_filter;       /* an OCIRepository's ref.semverFilter, checked on the tag helm picked */
    const node *semver_filter_at;    /* ... the field, its file and line, for messages */
    const char *semver_filter_file;
    int semver_filter_line;
    const char *semver_who;          /* an OCIRepository's ref.semver: its name for messages, the field, file, line */
    const node *semver_at;
    const char *semver_file;
    int semver_line;
} chart_src;

/* A source object of the package: kind/namespace/name, an apiVersion source-controller serves. */
static resource *source_object(run *R, const release *rel, const node *at, const char *kind, const char *ns,
                               const char *name, chart_src *cs)
{
    arena *a = R->s->a;
    size_t index;
    resource *src = find_object(R, SOURCE_GROUP, kind, name, ns, &index);
    if (!src)
        return fn_fail(&R->c, at, "%s: source %s/%s/%s of %s not in package", hr_id(R, rel), kind, ns, name,
                       hr_id(R, rel)),
               NULL;
    const char *g, *v;
    group_version(a, src, &g, &v);
    if (strcmp(v, "v1") && strcmp(v, "v1beta2") && strcmp(v, "v1beta1"))
        return fn_fail(&R->c, at, "%s: source %s/%s/%s has apiVersion %s, not one the flux-helmrelease step reads "
                                  "(" SOURCE_GROUP "/v1, v1beta2)",
                       hr_id(R, rel), kind, ns, name, shown(a, res_api_version(src))),
               NULL;
    if (cs->nused < 2)
        cs->used[cs->nused++] = index;
    return src;
}

static int cmp_strp(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static const char **arena_realloc_ptrs(arena *a, const char **old, size_t n)
{
    const char **v = arena_alloc(a, (n + 1) * sizeof *v);
    if (n)
        memcpy(v, old, n * sizeof *v);
    return v;
}

/* Flux's verify: cosign (keys from verify.secretRef, or keyless with matchOIDCIdentity), through the operator's cosign
 * (CMP_COSIGN_BIN); without one, or for notation, an error: never rendered unverified. */
static int check_verify(run *R, const release *rel, const node *v, const char *where, chart_src *cs)
{
    fn_ctx *c = &R->c;
    static const field verify_fields[] = {{"provider", K_USE, NULL}, {"secretRef", K_USE, NULL},
                                          {"matchOIDCIdentity", K_USE, NULL}, {NULL, K_USE, NULL}};
    const char *vw = arena_printf(R->s->a, "%sverify.", where), *provider;
    if (!is_map(v))
        return fn_fail(c, v, "%s: %sverify must be a map (provider, secretRef, matchOIDCIdentity)", hr_id(R, rel), where);
    if (check_fields(R, rel, v, vw, verify_fields) < 0 || text(R, rel, v, "provider", vw, &provider) < 0)
        return -1;
    if (provider && strcmp(provider, "cosign") && strcmp(provider, "notation"))
        return fn_fail(c, map_get(v, "provider"), "%s: %sprovider %s is not supported (cosign and notation are); not "
                                                  "rendered unverified",
                       hr_id(R, rel), vw, shown(R->s->a, provider));
    if (provider && !strcmp(provider, "notation")) {
        const node *sr = map_get(v, "secretRef"), *ids = map_get(v, "matchOIDCIdentity");
        const char *key_name = sr && !is_null(sr) ? path_str(sr, "name", NULL) : NULL;
        if (ids && !is_null(ids))
            return fn_fail(c, ids, "%s: %smatchOIDCIdentity is cosign's (keyless); notation verifies with the trust "
                                   "policy verify.secretRef names",
                           hr_id(R, rel), vw);
        if (sr && !is_null(sr) && (!key_name || !dns_label(key_name)))
            return fn_fail(c, sr, "%s: %ssecretRef.name must name the Secret of the trust policy", hr_id(R, rel), vw);
        if (flux_notation_verify(c, hr_id(R, rel), where, v, key_name, NULL) < 0)
            return -1;
        cs->verify = v;
        cs->verify_file = c->config_file;
        cs->verify_line = c->config_line;
        return 0;
    }
    if (!R->s->host->cosign_bin)
        return fn_fail(c, v, "%s: %sverify needs the operator's cosign (CMP_COSIGN_BIN on the sidecar), which this "
                             "sidecar does not have; not rendered unverified",
                       hr_id(R, rel), where);
    const node *ids = map_get(v, "matchOIDCIdentity");
    if (ids && !is_null(ids) && !is_seq(ids))
        return fn_fail(c, ids, "%s: %smatchOIDCIdentity must be a list of {issuer, subject}", hr_id(R, rel), vw);
    seq_foreach(ids, i, id)
        if (!path_str(id, "issuer", NULL) || !path_str(id, "subject", NULL))
            return fn_fail(c, id, "%s: %smatchOIDCIdentity[%u] needs issuer and subject", hr_id(R, rel), vw, i);
    const node *sr = map_get(v, "secretRef");
    const char *key_name = sr && !is_null(sr) ? path_str(sr, "name", NULL) : NULL;
    if (sr && !is_null(sr) && (!key_name || !dns_label(key_name)))
        return fn_fail(c, sr, "%s: %ssecretRef.name must name the Secret of the keys", hr_id(R, rel), vw);
    if (key_name && !R->s->host->cosign_keys_dir)
        return fn_fail(c, sr, "%s: %ssecretRef names keys, and the sidecar has none (CMP_COSIGN_KEYS_DIR, set by the "
                              "operator); not rendered unverified",
                       hr_id(R, rel), vw);
    cs->verify = v;
    cs->verify_file = c->config_file;
    cs->verify_line = c->config_line;
    return 0;
}

/* cosign verify <registry>/<path>/<chart>@<manifest digest>: with each .pub key in <CMP_COSIGN_KEYS_DIR>/<secretRef
 * name>/, or keyless with each matchOIDCIdentity (".*" for both without one); one that verifies is enough,
 * as in Flux. */
static int cosign_verify(run *R, const release *rel, const chart_src *cs, const char *digest)
{
    arena *a = R->s->a;
    fn_ctx ctx = R->c;
    ctx.config_file = cs->verify_file;
    ctx.config_line = cs->verify_line;
    const fn_host *h = R->s->host;
    if (!digest)
        return fn_fail(&ctx, cs->verify, "%s: helm reported no manifest digest to verify", hr_id(R, rel));
    const char *ref = arena_printf(a, "%s/%s@%s", cs->repo + 6, cs->oci_chart, digest);
    const char *key_name = path_str(cs->verify, "secretRef", "name", NULL);
    const node *ids = map_get(cs->verify, "matchOIDCIdentity");
    /* the attempts: one per key, or one per identity */
    const char **keys = NULL;
    size_t nkeys = 0;
    if (key_name) {
        const char *dir = arena_printf(a, "%s/%s", h->cosign_keys_dir, key_name);
        DIR *d = opendir(dir);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            size_t n = strlen(e->d_name);
            if (n > 4 && !strcmp(e->d_name + n - 4, ".pub") && e->d_name[0] != '.') {
                keys = arena_realloc_ptrs(a, keys, nkeys);
                keys[nkeys++] = arena_printf(a, "%s/%s", dir, e->d_name);
            }
        }
        if (d)
            closedir(d);
        if (!nkeys)
            return fn_fail(&ctx, cs->verify, "%s: no public key (*.pub) for verify.secretRef %s in CMP_COSIGN_KEYS_DIR; "
                                             "not rendered unverified",
                           hr_id(R, rel), key_name);
        qsort(keys, nkeys, sizeof *keys, cmp_strp);
    }
    size_t attempts = key_name ? nkeys : is_seq(ids) && node_len(ids) ? node_len(ids) : 1;
    const char *env[] = {h->helm_credentials_dir ? arena_printf(a, "DOCKER_CONFIG=%s", h->helm_credentials_dir) : NULL,
                         NULL};
    diag_detail last;
    for (size_t i = 0; i < attempts; i++) {
        const char *argv[8];
        int n = 0;
        argv[n++] = h->cosign_bin;
        argv[n++] = "verify";
        if (key_name) {
            argv[n++] = arena_printf(a, "--key=%s", keys[i]);
        } else {
            const node *id = is_seq(ids) && node_len(ids) ? seq_item(ids, (uint32_t)i) : NULL;
            argv[n++] = arena_printf(a, "--certificate-identity-regexp=%s", id ? path_str(id, "subject", NULL) : ".*");
            argv[n++] = arena_printf(a, "--certificate-oidc-issuer-regexp=%s", id ? path_str(id, "issuer", NULL) : ".*");
        }
        argv[n++] = "--";
        argv[n++] = ref;
        argv[n] = NULL;
        diag_detail *outer = diag_capture(&last);
        child_fds none = {0};
        int rc = run_tool_fds(&ctx, arena_printf(a, "cosign verify of %s's chart", hr_id(R, rel)), argv,
                              env[0] ? env : NULL, NULL, &none);
        diag_restore(outer);
        if (rc == 0)
            return 0;
    }
    return diag_raise(&last);
}

/* ---- a GitRepository: this Application's own repository, read from the checkout (flux/git_source.c) ---- */

#define GIT_OUTSIDE "GitRepository outside this Application is not fetched"

static const field git_repository_fields[] = {
    {"url", K_USE, NULL},
    {"ref", K_USE, NULL},
    {"ignore", K_USE, NULL},
    {"verify", K_USE, NULL},
    {"interval", K_IGNORE, NULL},
    {"timeout", K_IGNORE, NULL},
    {"suspend", K_IGNORE, NULL},
    /* how source-controller would fetch; the checkout is Argo CD's */
    {"secretRef", K_IGNORE, NULL},
    {"proxySecretRef", K_IGNORE, NULL},
    {"provider", K_IGNORE, NULL},
    /* either way, a chart, values file or dependency in a submodule (a directory holding a .git) is refused:
     * flux/git_source.c's walks */
    {"recurseSubmodules", K_IGNORE, NULL},
    {"include", K_ERROR, "adds other GitRepositories' artifacts to this one, which are not fetched; not rendered"},
    {"sparseCheckout", K_ERROR, "narrows source-controller's checkout, which this step does not reproduce; not "
                                "rendered"},
    {NULL, K_USE, NULL},
};

/* The GitRepository src (sns/sname) and the chart at path in it (chart_at: the field, where: its prefix). */
static int resolve_git_repository(run *R, const release *rel, const node *chart_at, const char *where, resource *src,
                                  const char *sns, const char *sname, const char *path, chart_src *cs)
{
    arena *a = R->s->a;
    fn_ctx *c = &R->c;
    fn_ctx hr_ctx = *c;
    c->config_file = res_file(a, src);
    c->config_line = (int)src->line;
    const char *who = arena_printf(a, "GitRepository %s/%s", sns, sname), *w = "(its GitRepository) spec.";
    const node *sspec = map_get(src->root, "spec");
    if (!is_map(sspec))
        return fn_fail(c, NULL, "%s: spec must be a map", who);
    const char *url, *ignore;
    if (check_fields(R, rel, sspec, w, git_repository_fields) < 0 || text(R, rel, sspec, "url", w, &url) < 0 ||
        text(R, rel, sspec, "ignore", w, &ignore) < 0)
        return -1;
    /* Flux checks the commit's OpenPGP signature with keys from a cluster Secret: never rendered unverified */
    if (present(map_get(sspec, "verify")))
        return fn_fail(c, map_get(sspec, "verify"), "%s: spec.verify asks for the commit's signature to be verified, "
                                                    "which this step cannot check; not rendered unverified",
                       who);
    if (!url || !*url)
        return fn_fail(c, sspec, "%s: spec.url is required", who);
    if (!R->s->app_repo)
        return fn_fail(c, map_get(sspec, "url"), "%s: " GIT_OUTSIDE ": the Application's repository is unknown "
                                                 "(ARGOCD_APP_SOURCE_REPO_URL unset)",
                       who);
    /* neither URL is repeated: either may carry credentials */
    if (!flux_git_same_url(a, url, R->s->app_repo))
        return fn_fail(c, map_get(sspec, "url"), "%s: " GIT_OUTSIDE ": spec.url is not the Application's repository "
                                                 "(ARGOCD_APP_SOURCE_REPO_URL)",
                       who);
    const node *ref = map_get(sspec, "ref");
    flux_git_ref gr = {0};
    if (ref && !is_null(ref)) {
        static const field ref_fields[] = {{"branch", K_USE, NULL}, {"tag", K_USE, NULL}, {"semver", K_USE, NULL},
                                           {"name", K_USE, NULL},   {"commit", K_USE, NULL}, {NULL, K_USE, NULL}};
        const char *rw = "(its GitRepository) spec.ref.";
        if (!is_map(ref))
            return fn_fail(c, ref, "%s: spec.ref must be a map", who);
        if (check_fields(R, rel, ref, rw, ref_fields) < 0 || text(R, rel, ref, "branch", rw, &gr.branch) < 0 ||
            text(R, rel, ref, "tag", rw, &gr.tag) < 0 || text(R, rel, ref, "semver", rw, &gr.semver) < 0 ||
            text(R, rel, ref, "name", rw, &gr.name) < 0 || text(R, rel, ref, "commit", rw, &gr.commit) < 0)
            return -1;
    }
    const char *tag = flux_git_ref_tag(&gr);
    if (tag && R->s->app_revision) {
        static const char *const tag_why[] = {
            [GITSRC_TAG_NO_METADATA] = "the checkout has no git metadata (.git) to show the tag's commit",
            [GITSRC_TAG_UNREADABLE] = "the checkout's git metadata cannot be read",
            [GITSRC_TAG_ABSENT] = "the checkout's git metadata has no such tag",
            [GITSRC_TAG_NOT_A_COMMIT] = "the tag names no commit in the checkout's git metadata",
        };
        int st = gitsrc_tag_commit(a, flux_repo_root(c), c->config_file, tag, &gr.tag_commit);
        if (st < 0)
            return -1;
        gr.tag_why = st > 0 && st <= GITSRC_TAG_NOT_A_COMMIT ? tag_why[st] : NULL;
    }
    const char *why = flux_git_ref_problem(a, &gr, R->s->app_revision, R->s->app_target_revision);
    if (why)
        return fn_fail(c, ref && !is_null(ref) ? ref : sspec, "%s: " GIT_OUTSIDE ": %s", who, why);
    *c = hr_ctx;
    /* the chart: a path from the repository's root, as source-controller joins it to its artifact */
    const char *root = flux_repo_root(c), *dir, *clean, *yaml_real, *yaml_clean;
    bool missing;
    why = flux_git_path(a, root, path, &dir, &clean, &missing);
    if (!why) {
        why = flux_git_path(a, root, arena_printf(a, "%s/Chart.yaml", clean), &yaml_real, &yaml_clean, &missing);
        if (why && missing)
            why = "has no Chart.yaml";
    }
    if (why)
        return fn_fail(c, chart_at, "%s: %schart %s %s", hr_id(R, rel), where, shown(a, path), why);
    why = flux_git_artifact_problem(a, root, clean, ignore && *ignore);
    if (why)
        return fn_fail(c, chart_at, "%s: %schart %s: %s", hr_id(R, rel), where, shown(a, path), why);
    cs->at = chart_at;
    cs->git_chart = dir;
    cs->git_revision = R->s->app_revision;
    cs->name = clean;
    cs->source_url = url_strip_credentials(a, url);
    return 0;
}

/* verify's provider: cosign (the default), or notation (flux/notation.c) on the same reference. */
static int verify_chart(run *R, const release *rel, const chart_src *cs, const char *digest)
{
    const char *provider = path_str(cs->verify, "provider", NULL);
    if (!provider || strcmp(provider, "notation"))
        return cosign_verify(R, rel, cs, digest);
    fn_ctx ctx = R->c;
    ctx.config_file = cs->verify_file;
    ctx.config_line = cs->verify_line;
    if (!digest)
        return fn_fail(&ctx, cs->verify, "%s: helm reported no manifest digest to verify", hr_id(R, rel));
    return flux_notation_verify(&ctx, hr_id(R, rel), "", cs->verify, path_str(cs->verify, "secretRef", "name", NULL),
                                arena_printf(R->s->a, "%s/%s@%s", cs->repo + 6, cs->oci_chart, digest));
}

/* The fields of a chart template (spec.chart.spec, or a HelmChart's spec) and the HelmRepository it names. where
 * prefixes the fields in messages; ref_ns is the namespace a sourceRef without one means. */
static int resolve_chart_spec(run *R, const release *rel, const node *cspec, const char *where, const char *ref_ns,
                              chart_src *cs)
{
    arena *a = R->s->a;
    fn_ctx *c = &R->c;
    if (check_fields(R, rel, cspec, where, chart_spec_fields) < 0)
        return -1;
    const char *chart_name_s, *chart_version, *strategy;
    if (text(R, rel, cspec, "chart", where, &chart_name_s) < 0 || text(R, rel, cspec, "version", where, &chart_version) < 0 ||
        text(R, rel, cspec, "reconcileStrategy", where, &strategy) < 0)
        return -1;
    const char *ref_kind = path_str(cspec, "sourceRef", "kind", NULL);
    bool git = ref_kind && !strcmp(ref_kind, "GitRepository");
    if (git && (!chart_name_s || !*chart_name_s))
        return fn_fail(c, map_get(cspec, "chart") ? map_get(cspec, "chart") : cspec,
                       "%s: %schart must be the chart's path in the GitRepository", hr_id(R, rel), where);
    if (!git && (!chart_name_s || !chart_name(chart_name_s)))
        return fn_fail(c, map_get(cspec, "chart") ? map_get(cspec, "chart") : cspec,
                       "%s: %schart must name a chart of the repository (letters, digits, '-', '_', '.')",
                       hr_id(R, rel), where);
    if (chart_version && (strlen(chart_version) > 256 ||
                          printable_check(chart_version, strlen(chart_version)) != strlen(chart_version)))
        return fn_fail(c, map_get(cspec, "version"), "%s: %sversion is not a version constraint", hr_id(R, rel), where);
    if (strategy && strcmp(strategy, "ChartVersion") && strcmp(strategy, "Revision"))
        return fn_fail(c, map_get(cspec, "reconcileStrategy"), "%s: %sreconcileStrategy must be ChartVersion or Revision",
                       hr_id(R, rel), where);
    if (present(map_get(cspec, "verify")) && check_verify(R, rel, map_get(cspec, "verify"), where, cs) < 0)
        return -1;
    /* valuesFiles: files of the chart merged into its new default values (source-controller's HelmChart);
     * v2beta1's valuesFile is a list of one, after them */
    const node *vfs = map_get(cspec, "valuesFiles"), *vf1 = map_get(cspec, "valuesFile");
    if ((vfs && !is_null(vfs) && !is_seq(vfs)) || (vf1 && !is_null(vf1) && !is_scalar(vf1)))
        return fn_fail(c, vfs && !is_seq(vfs) ? vfs : vf1, "%s: %svaluesFiles must be a list of paths in the chart",
                       hr_id(R, rel), where);
    node *files = node_seq(a);
    seq_foreach(vfs, i, vf) {
        const char *f = scalar(vf);
        if (!f || !*f)
            return fn_fail(c, vf, "%s: %svaluesFiles[%u] must be a path in the chart", hr_id(R, rel), where, i);
        seq_append(a, files, vf);
    }
    if (is_scalar(vf1) && *scalar(vf1) && !(is_seq(vfs) && node_len(vfs)))
        seq_append(a, files, (node *)vf1);
    cs->values_files = node_len(files) ? files : NULL;
    if (boolean(R, rel, cspec, "ignoreMissingValuesFiles", where, &cs->ignore_missing_values) < 0)
        return -1;
    if (cs->values_files)
        fn_warn_key(c, cspec, (uint32_t)map_index(cspec, is_seq(vfs) && node_len(vfs) ? "valuesFiles" : "valuesFile"),
                    "%s: %svaluesFiles: .Chart.Version is the chart's own, where Flux appends +<the HelmChart's "
                    "generation>, which only the cluster knows",
                    hr_id(R, rel), where);
    const node *ref = map_get(cspec, "sourceRef");
    const char *skind, *sname, *sns, *sapi;
    const char *rw = arena_printf(a, "%ssourceRef.", where);
    if (!is_map(ref))
        return fn_fail(c, ref ? ref : cspec, "%s: %ssourceRef must be a map (kind, name)", hr_id(R, rel), where);
    static const field ref_fields[] = {{"kind", K_USE, NULL}, {"name", K_USE, NULL}, {"namespace", K_USE, NULL},
                                       {"apiVersion", K_USE, NULL}, {NULL, K_USE, NULL}};
    if (check_fields(R, rel, ref, rw, ref_fields) < 0 || text(R, rel, ref, "kind", rw, &skind) < 0 ||
        text(R, rel, ref, "name", rw, &sname) < 0 || text(R, rel, ref, "namespace", rw, &sns) < 0 ||
        text(R, rel, ref, "apiVersion", rw, &sapi) < 0)
        return -1;
    if (!skind || !sname)
        return fn_fail(c, ref, "%s: %sneeds kind and name", hr_id(R, rel), rw);
    if (strcmp(skind, "HelmRepository") && strcmp(skind, "GitRepository"))
        return fn_fail(c, map_get(ref, "kind"), "%s: %skind %s: unsupported source kind (HelmRepository and "
                                                "GitRepository are rendered)",
                       hr_id(R, rel), rw, shown(a, skind));
    if (!sns || !*sns)
        sns = ref_ns;
    if (git) {
        resource *src = source_object(R, rel, ref, skind, sns, sname, cs);
        if (!src)
            return -1;
        if (cs->verify)
            return fn_fail(c, cs->verify, "%s: %sverify checks OCI artifacts only (as in Flux): the source is a "
                                          "GitRepository",
                           hr_id(R, rel), where);
        cs->git_revision_version = strategy && !strcmp(strategy, "Revision");
        return resolve_git_repository(R, rel, map_get(cspec, "chart"), where, src, sns, sname, chart_name_s, cs);
    }
    resource *src = source_object(R, rel, ref, skind, sns, sname, cs);
    if (!src)
        return -1;
    /* the source's own fields are read with its file in the messages */
    fn_ctx hr_ctx = *c;
    c->config_file = res_file(a, src);
    c->config_line = (int)src->line;
    node *sspec = map_get(src->root, "spec");
    const char *url, *type, *provider;
    if (!is_map(sspec))
        return fn_fail(c, NULL, "HelmRepository %s/%s: spec must be a map", sns, sname);
    if (check_fields(R, rel, sspec, "(its HelmRepository) spec.", helm_repository_fields) < 0 ||
        text(R, rel, sspec, "url", "(its HelmRepository) spec.", &url) < 0 ||
        text(R, rel, sspec, "type", "(its HelmRepository) spec.", &type) < 0 ||
        text(R, rel, sspec, "provider", "(its HelmRepository) spec.", &provider) < 0)
        return -1;
    if (provider && strcmp(provider, "generic"))
        return fn_fail(c, map_get(sspec, "provider"),
                       "HelmRepository %s/%s: spec.provider %s (a cloud provider's login) is not supported: "
                       "credentials are the operator's (CMP_HELM_CREDENTIALS_DIR)",
                       sns, sname, shown(a, provider));
    if (type && strcmp(type, "default") && strcmp(type, "oci"))
        return fn_fail(c, map_get(sspec, "type"), "HelmRepository %s/%s: spec.type must be default or oci", sns, sname);
    /* type oci: the chart is <url>/<chart>, its version resolved against the registry's tags (helm does it as
     * source-controller does: an exact tag first, else the highest that satisfies the constraint) */
    bool oci = type && !strcmp(type, "oci");
    if (!url || (oci ? strncmp(url, "oci://", 6) : strncmp(url, "https://", 8) && strncmp(url, "http://", 7)))
        return fn_fail(c, url ? map_get(sspec, "url") : sspec, "HelmRepository %s/%s: spec.url must be %s", sns, sname,
                       oci ? "an oci:// registry URL (type oci)" : "an http(s) chart repository URL (or type oci)");
    if (helm_check_repo_url(fn_engine(c), map_get(sspec, "url"), "spec.url", url) < 0)
        return -1;
    *c = hr_ctx;
    if (cs->verify && !oci)
        return fn_fail(c, cs->verify, "%s: %sverify checks OCI artifacts only (as in Flux): the HelmRepository is an "
                                      "http(s) chart repository",
                       hr_id(R, rel), where);
    cs->oci_chart = oci ? chart_name_s : NULL;
    cs->at = map_get(cspec, "chart");
    cs->repo = url;
    cs->name = chart_name_s;
    cs->version = chart_version && *chart_version ? chart_version : "*";
    cs->source_url = url;
    return 0;
}

static int resolve_chart_template(run *R, const release *rel, const node *chart, chart_src *cs)
{
    const node *cspec = map_get(chart, "spec");
    if (!is_map(chart) || !is_map(cspec))
        return fn_fail(&R->c, chart, "%s: spec.chart.spec must be a map (chart, version, sourceRef)", hr_id(R, rel));
    map_foreach(chart, i, key, val) {
        const char *k = scalar(key);
        if (!k || (strcmp(k, "spec") && strcmp(k, "metadata")))
            return fn_fail_key(&R->c, chart, i, "%s: spec.chart.%s is not a field the flux-helmrelease step renders",
                               hr_id(R, rel), k ? shown(R->s->a, k) : "(a key that is not a string)");
    }
    return resolve_chart_spec(R, rel, cspec, "spec.chart.spec.", rel->ns, cs);
}

static const field oci_repository_fields[] = {
    {"url", K_USE, NULL},
    {"ref", K_USE, NULL},
    {"layerSelector", K_USE, NULL},
    {"provider", K_USE, NULL},
    {"verify", K_USE, NULL},
    {"interval", K_IGNORE, NULL},
    {"timeout", K_IGNORE, NULL},
    {"suspend", K_IGNORE, NULL},
    {"ignore", K_IGNORE, NULL},
    {"secretRef", K_WARN, "names a cluster Secret this render cannot read: registry credentials are the operator's "
                          "(CMP_HELM_CREDENTIALS_DIR)"},
    {"certSecretRef", K_WARN, "names a cluster Secret this render cannot read"},
    {"serviceAccountName", K_WARN, "names a cluster ServiceAccount this render cannot use"},
    {"insecure", K_WARN, "is not used: plain-HTTP registries are the operator's (CMP_HELM_PLAIN_HTTP_REGISTRIES)"},
    {"proxySecretRef", K_WARN, "names a cluster Secret this render cannot read"},
    {NULL, K_USE, NULL},
};

/* A Helm tag or a digest as helm pull takes it after the chart's name. */
static bool tag_text(const char *s)
{
    size_t n = strlen(s);
    if (!n || n > 128 || s[0] == '.' || s[0] == '-')
        return false;
    return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-+") == n;
}

/* An OCIRepository (chartRef): url oci://<registry>/<path>/<chart>; ref digest, then semver, then tag, default
 * latest, as source-controller picks it. helm-controller then makes the chart's version <version>+<12 hex digits
 * of the manifest digest>, after checking that a tag is the chart's version (track_digest). */
static int resolve_oci_repository(run *R, const release *rel, const node *at, resource *src, const char *sns,
                                  const char *sname, chart_src *cs)
{
    arena *a = R->s->a;
    fn_ctx *c = &R->c;
    fn_ctx hr_ctx = *c;
    c->config_file = res_file(a, src);
    c->config_line = (int)src->line;
    const char *who = arena_printf(a, "OCIRepository %s/%s", sns, sname);
    const node *sspec = map_get(src->root, "spec");
    if (!is_map(sspec))
        return fn_fail(c, NULL, "%s: spec must be a map", who);
    const char *url, *provider;
    if (check_fields(R, rel, sspec, "(its OCIRepository) spec.", oci_repository_fields) < 0 ||
        text(R, rel, sspec, "url", "(its OCIRepository) spec.", &url) < 0 ||
        text(R, rel, sspec, "provider", "(its OCIRepository) spec.", &provider) < 0)
        return -1;
    if (provider && strcmp(provider, "generic"))
        return fn_fail(c, map_get(sspec, "provider"), "%s: spec.provider %s (a cloud provider's login) is not supported: "
                                                      "credentials are the operator's (CMP_HELM_CREDENTIALS_DIR)",
                       who, shown(a, provider));
    if (present(map_get(sspec, "verify")) &&
        check_verify(R, rel, map_get(sspec, "verify"), arena_printf(a, "%s: spec.", who), cs) < 0)
        return -1;
    const node *ls = map_get(sspec, "layerSelector");
    if (ls && !is_null(ls)) {
        static const field ls_fields[] = {{"mediaType", K_USE, NULL}, {"operation", K_USE, NULL}, {NULL, K_USE, NULL}};
        const char *mt, *op;
        if (!is_map(ls) || check_fields(R, rel, ls, "(its OCIRepository) spec.layerSelector.", ls_fields) < 0 ||
            text(R, rel, ls, "mediaType", "spec.layerSelector.", &mt) < 0 ||
            text(R, rel, ls, "operation", "spec.layerSelector.", &op) < 0)
            return is_map(ls) ? -1 : fn_fail(c, ls, "%s: spec.layerSelector must be a map", who);
        if (mt && strcmp(mt, HELM_CHART_LAYER))
            return fn_fail(c, map_get(ls, "mediaType"), "%s: spec.layerSelector.mediaType %s is not a Helm chart's "
                                                        "layer (" HELM_CHART_LAYER ")",
                           who, shown(a, mt));
        if (op && strcmp(op, "copy") && strcmp(op, "extract"))
            return fn_fail(c, map_get(ls, "operation"), "%s: spec.layerSelector.operation must be copy or extract", who);
    }
    if (!url || strncmp(url, "oci://", 6))
        return fn_fail(c, url ? map_get(sspec, "url") : sspec, "%s: spec.url must be an oci:// URL", who);
    const char *slash = strrchr(url + 6, '/');
    if (!slash || !slash[1] || !strchr(url + 6, '/'))
        return fn_fail(c, map_get(sspec, "url"), "%s: spec.url must name a chart: oci://<registry>/<path>/<chart>", who);
    const char *repo = arena_strndup(a, url, (size_t)(slash - url)), *chart = slash + 1;
    if (!chart_name(chart))
        return fn_fail(c, map_get(sspec, "url"), "%s: spec.url must end in a chart name", who);
    if (helm_check_repo_url(fn_engine(c), map_get(sspec, "url"), "spec.url", url) < 0)
        return -1;
    const node *ref = map_get(sspec, "ref");
    const char *digest = NULL, *semver = NULL, *filter = NULL, *tag = NULL;
    if (ref && !is_null(ref)) {
        static const field ref_fields[] = {{"digest", K_USE, NULL}, {"semver", K_USE, NULL},
                                           {"semverFilter", K_USE, NULL}, {"tag", K_USE, NULL}, {NULL, K_USE, NULL}};
        if (!is_map(ref) || check_fields(R, rel, ref, "(its OCIRepository) spec.ref.", ref_fields) < 0 ||
            text(R, rel, ref, "digest", "spec.ref.", &digest) < 0 || text(R, rel, ref, "semver", "spec.ref.", &semver) < 0 ||
            text(R, rel, ref, "semverFilter", "spec.ref.", &filter) < 0 || text(R, rel, ref, "tag", "spec.ref.", &tag) < 0)
            return is_map(ref) ? -1 : fn_fail(c, ref, "%s: spec.ref must be a map", who);
    }
    cs->at = at;
    cs->repo = repo;
    cs->bare = chart;
    cs->oci_chart = chart;
    cs->source_url = url;
    cs->track_digest = true;
    cs->version = NULL;
    if (digest && *digest) {
        if (strncmp(digest, "sha256:", 7) || strlen(digest) != 71 || strspn(digest + 7, "0123456789abcdef") != 64)
            return fn_fail(c, map_get(ref, "digest"), "%s: spec.ref.digest must be sha256:<64 hex digits>", who);
        cs->name = arena_printf(a, "%s@%s", chart, digest);
    } else if (semver && *semver) {
        if (filter && *filter) {
            const char *why = flux_semver_filter_problem(a, filter);
            if (why)
                return fn_fail(c, map_get(ref, "semverFilter"), "%s: spec.ref.semverFilter %s", who, why);
            cs->semver_filter = filter;
            cs->semver_filter_at = map_get(ref, "semverFilter");
            cs->semver_filter_file = c->config_file;
            cs->semver_filter_line = c->config_line;
        }
        if (strlen(semver) > 256 || printable_check(semver, strlen(semver)) != strlen(semver))
            return fn_fail(c, map_get(ref, "semver"), "%s: spec.ref.semver is not a version constraint", who);
        cs->name = chart;
        cs->version = semver;
        cs->semver_who = who;
        cs->semver_at = map_get(ref, "semver");
        cs->semver_file = c->config_file;
        cs->semver_line = c->config_line;
    } else {
        if (!tag || !*tag)
            tag = "latest";
        if (!tag_text(tag))
            return fn_fail(c, ref ? map_get(ref, "tag") : sspec, "%s: spec.ref.tag %s is not a tag", who, shown(a, tag));
        cs->name = arena_printf(a, "%s:%s", chart, tag);
        cs->tag = tag;
    }
    *c = hr_ctx;
    return 0;
}

static int resolve_chart_ref(run *R, const release *rel, const node *ref, chart_src *cs)
{
    arena *a = R->s->a;
    const char *kind, *name, *ns, *api;
    static const field fields[] = {{"kind", K_USE, NULL}, {"name", K_USE, NULL}, {"namespace", K_USE, NULL},
                                   {"apiVersion", K_USE, NULL}, {NULL, K_USE, NULL}};
    if (!is_map(ref))
        return fn_fail(&R->c, ref, "%s: spec.chartRef must be a map (kind, name)", hr_id(R, rel));
    if (check_fields(R, rel, ref, "spec.chartRef.", fields) < 0 || text(R, rel, ref, "kind", "spec.chartRef.", &kind) < 0 ||
        text(R, rel, ref, "name", "spec.chartRef.", &name) < 0 ||
        text(R, rel, ref, "namespace", "spec.chartRef.", &ns) < 0 ||
        text(R, rel, ref, "apiVersion", "spec.chartRef.", &api) < 0)
        return -1;
    if (!kind || !name)
        return fn_fail(&R->c, ref, "%s: spec.chartRef needs kind and name", hr_id(R, rel));
    if (!ns || !*ns)
        ns = rel->ns;
    if (!strcmp(kind, "OCIRepository")) {
        resource *src = source_object(R, rel, ref, kind, ns, name, cs);
        return src ? resolve_oci_repository(R, rel, ref, src, ns, name, cs) : -1;
    }
    if (!strcmp(kind, "HelmChart")) {
        /* its spec is a chart template: its sourceRef is in its own namespace */
        resource *hc = source_object(R, rel, ref, kind, ns, name, cs);
        if (!hc)
            return -1;
        fn_ctx hr_ctx = R->c;
        R->c.config_file = res_file(a, hc);
        R->c.config_line = (int)hc->line;
        const node *hspec = map_get(hc->root, "spec");
        if (!is_map(hspec))
            return fn_fail(&R->c, NULL, "HelmChart %s/%s: spec must be a map", ns, name);
        if (resolve_chart_spec(R, rel, hspec, "(its HelmChart) spec.", ns, cs) < 0)
            return -1;
        R->c = hr_ctx;
        return 0;
    }
    return fn_fail(&R->c, map_get(ref, "kind"), "%s: spec.chartRef.kind %s: unsupported source kind (OCIRepository "
                                                "and HelmChart are rendered)",
                   hr_id(R, rel), shown(a, kind));
}

/* Masterminds/semver's NewVersion, as lenient: v?MAJOR[.MINOR[.PATCH]][-PRERELEASE][+METADATA]. */
typedef struct semv {
    unsigned long long n[3];
    const char *pre; /* "" when none */
    size_t pre_len;
} semv;

static bool ident_parts(const char *s, size_t n)
{
    if (!n)
        return false;
    for (size_t i = 0; i < n; i++) {
        bool dot = s[i] == '.';
        if (dot && (i == 0 || i + 1 == n || s[i + 1] == '.'))
            return false;
        if (!dot && !((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
                      s[i] == '-'))
            return false;
    }
    return true;
}

static bool semver_parse(const char *s, semv *v)
{
    memset(v, 0, sizeof *v);
    v->pre = "";
    if (*s == 'v')
        s++;
    for (int i = 0; i < 3; i++) {
        if (i && *s != '.')
            break;
        if (i)
            s++;
        if (*s < '0' || *s > '9')
            return false;
        while (*s >= '0' && *s <= '9') {
            if (v->n[i] > 1000000000000ULL)
                return false;
            v->n[i] = v->n[i] * 10 + (unsigned long long)(*s++ - '0');
        }
    }
    if (*s == '-') {
        size_t n = strcspn(++s, "+");
        if (!ident_parts(s, n))
            return false;
        v->pre = s, v->pre_len = n;
        s += n;
    }
    if (*s == '+') {
        size_t n = strlen(++s);
        if (!ident_parts(s, n))
            return false;
        s += n;
    }
    return *s == 0;
}

/* Version.Equal: the numbers and the prerelease; build metadata is ignored. */
static bool semver_equal(const semv *x, const semv *y)
{
    return x->n[0] == y->n[0] && x->n[1] == y->n[1] && x->n[2] == y->n[2] && x->pre_len == y->pre_len &&
           !memcmp(x->pre, y->pre, x->pre_len);
}

/* helm-controller's mutateChartWithSourceRevision: the chart's version becomes <version>+<first 12 hex digits of
 * the manifest digest> (build metadata replaced), and a tag must be that version (semver-equal). The chart is
 * unpacked from the archive helm checked, its Chart.yaml written with that version, and templated from there. */
static int write_entry(void *ud, const helm_archive_entry *e);

typedef struct unpack {
    run *R;
    const char *dir;
    const char *chart_yaml;  /* the new Chart.yaml */
    const char *values_yaml; /* the new values.yaml, or NULL */
    bool values_written;
    int failed_errno;
    const char *outside; /* an entry whose name leaves the chart (absolute, or a ".." component): refused */
    const char *hidden;  /* a templates/.x entry: helm reads it from the archive, but its directory loader leaves
                          * it out (its default ignore rule templates/.?*): refused, never dropped in silence */
} unpack;

static int track_digest(run *R, release *rel, chart_src *cs, const char *digest, chart_meta *meta)
{
    arena *a = R->s->a;
    fn_ctx *c = &R->c;
    if (!digest)
        return fn_fail(c, cs->at, "%s: helm reported no manifest digest for the OCI chart", hr_id(R, rel));
    semv v, t;
    if (!semver_parse(meta->version, &v))
        return fn_fail(c, cs->at, "%s: the chart's version %s is not a semantic version", hr_id(R, rel),
                       shown(a, meta->version));
    if (cs->tag && (!semver_parse(cs->tag, &t) || !semver_equal(&t, &v)))
        return fn_fail(c, cs->at, "%s: %s", hr_id(R, rel),
                       semver_parse(cs->tag, &t)
                           ? arena_printf(a, "artifact revision %s does not match chart version %s", shown(a, cs->tag),
                                          shown(a, meta->version))
                           : arena_printf(a, "failed parsing artifact revision %s", shown(a, cs->tag)));
    /* Masterminds' String() after SetMetadata: major.minor.patch[-prerelease]+metadata */
    const char *version = arena_printf(a, "%llu.%llu.%llu%s%.*s+%.12s", v.n[0], v.n[1], v.n[2], v.pre_len ? "-" : "",
                                       (int)v.pre_len, v.pre, digest + 7);
    meta->version = version;
    return 0;
}

/* The file paths source-controller matches valuesFiles against: filepath.Clean of what the HelmRelease says. */
static const char *clean_path(arena *a, const char *p)
{
    char *out = arena_alloc(a, strlen(p) + 2), *w = out;
    for (const char *q = p; *q;) {
        size_t n = strcspn(q, "/");
        if (n == 0 || (n == 1 && q[0] == '.')) {
        } else if (n == 2 && q[0] == '.' && q[1] == '.') {
            if (w > out) {
                while (w > out && w[-1] != '/')
                    w--;
                if (w > out)
                    w--;
            } else {
                memcpy(w, "..", 2), w += 2;
            }
        } else {
            if (w > out)
                *w++ = '/';
            memcpy(w, q, n), w += n;
        }
        q += n + (q[n] == '/');
    }
    if (w == out)
        *w++ = '.';
    *w = 0;
    return out;
}

typedef struct wanted {
    arena *a;
    const char **names;
    const char **texts; /* found: the file's text */
    size_t n;
} wanted;

static int collect_entry(void *ud, const helm_archive_entry *e)
{
    wanted *w = ud;
    for (size_t i = 0; e->name && i < w->n; i++)
        if (!w->texts[i] && !strcmp(w->names[i], e->name))
            w->texts[i] = arena_strndup(w->a, (const char *)e->data, e->size);
    return 0;
}

static int read_archive(run *R, const node *at, const char *tgz, int (*fn)(void *, const helm_archive_entry *),
                        void *ud)
{
    fn_ctx *c = &R->c;
    int fd = open(tgz, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) < 0) {
        if (fd >= 0)
            close(fd);
        return fn_fail(c, at, "cannot read the chart archive helm pulled: %s", strerror(errno));
    }
    size_t len = (size_t)sb.st_size, got = 0;
    unsigned char *bytes = xmalloc(len + 1);
    while (got < len) {
        ssize_t k = read(fd, bytes + got, len - got);
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    close(fd);
    size_t max = R->s->host->max_chart_bytes ? R->s->host->max_chart_bytes : (size_t)100 << 20;
    int rc = helm_archive_read(R->s->a, bytes, got, max, fn, ud);
    xfree(bytes);
    if (rc == HELM_ARCHIVE_REFUSED)
        return fn_locate(c, at, "cannot read the chart helm pulled");
    if (rc < 0 && rc != HELM_ARCHIVE_STOPPED)
        return fn_fail(c, at, "cannot read the chart helm pulled: unreadable archive");
    return 0;
}

/* source-controller's mergeChartValues: each file of the chart in order, MergeMaps over the last ("values.yaml"
 * is the chart's own defaults there); a missing file is an error unless ignoreMissingValuesFiles. The result is
 * the chart's new values.yaml (OverwriteChartDefaultValues), as YAML text in *out. */
static int merge_values_files(run *R, release *rel, chart_src *cs, const char *tgz, const char **out)
{
    arena *a = R->s->a;
    uint32_t n = node_len(cs->values_files);
    wanted w = {a, arena_alloc(a, n * sizeof *w.names), arena_alloc(a, n * sizeof *w.texts), n};
    for (uint32_t i = 0; i < n; i++) {
        w.names[i] = clean_path(a, scalar(seq_item(cs->values_files, i)));
        w.texts[i] = NULL;
    }
    if (read_archive(R, cs->at, tgz, collect_entry, &w) < 0)
        return -1;
    node *merged = node_map(a);
    for (uint32_t i = 0; i < n; i++) {
        const node *at = seq_item(cs->values_files, i);
        if (!w.texts[i] && !strcmp(w.names[i], "values.yaml"))
            w.texts[i] = ""; /* a chart without values.yaml has empty defaults */
        if (!w.texts[i]) {
            if (cs->ignore_missing_values)
                continue;
            return fn_fail(&R->c, at, "%s: no values file found at path '%s' in the chart", hr_id(R, rel),
                           shown(a, scalar(at)));
        }
        node *v = NULL;
        diag_detail why;
        if (yaml_load_one_into(a, R->s->st, run_yaml_limits(R), w.names[i], w.texts[i], strlen(w.texts[i]), &v,
                               &why) < 0)
            return fn_fail(&R->c, at, "%s: the chart's %s is not YAML: %s", hr_id(R, rel), w.names[i], why.message);
        if (v && !is_null(v) && !is_map(v))
            return fn_fail(&R->c, at, "%s: the chart's %s is not a map of values", hr_id(R, rel), w.names[i]);
        merged = flux_merge_maps(a, merged, v);
    }
    buf b = {0};
    if (node_len(merged))
        emit_yaml(&b, merged, NULL);
    *out = arena_strndup(a, b.data ? b.data : "{}\n", b.data ? b.len : 3);
    buf_free(&b);
    return 0;
}

/* The chart helm pulled, unpacked into scratch with Chart.yaml's version (meta->version) and, when values_yaml is
 * set, values.yaml replaced: what helm-controller and source-controller hand helm after changing the chart. */
static int repackage(run *R, release *rel, chart_src *cs, const char *tgz, const chart_meta *meta,
                     const char *values_yaml, const char **chart_path)
{
    arena *a = R->s->a;
    fn_ctx *c = &R->c;
    const char *s = scratch_dir(R->s->host);
    static int seq;
    const char *dir = s ? arena_printf(a, "%s/flux-chart-%d", s, ++seq) : NULL;
    if (!dir || mkdir(dir, 0700) != 0)
        return fn_fail(c, cs->at, "cannot create a temporary directory for the chart: %s", strerror(errno));
    node *cy = NULL;
    /* a fixed name: the chart's own name comes from the archive's Chart.yaml, which only helm checks, later, so it
     * must never become a path (a name "../../x" made files outside the scratch directory); helm takes the name from
     * Chart.yaml, not from the directory */
    unpack u = {R, arena_printf(a, "%s/chart", dir), NULL, values_yaml, false, 0, NULL, NULL};
    if (mkdir(u.dir, 0700) != 0)
        return fn_fail(c, cs->at, "cannot create a temporary directory for the chart: %s", strerror(errno));
    if (meta->chart_yaml &&
        yaml_load_one(a, R->s->st, run_yaml_limits(R), "Chart.yaml", meta->chart_yaml, strlen(meta->chart_yaml),
                      &cy) == 0 &&
        is_map(cy)) {
        map_set(a, cy, "version", node_str(a, meta->version));
        buf b = {0};
        emit_yaml(&b, cy, NULL);
        u.chart_yaml = arena_strndup(a, b.data ? b.data : "", b.len);
        buf_free(&b);
    }
    if (!u.chart_yaml)
        return fn_fail(c, cs->at, "%s: the chart's Chart.yaml cannot be read", hr_id(R, rel));
    if (read_archive(R, cs->at, tgz, write_entry, &u) < 0)
        return -1;
    if (u.outside)
        return fn_fail(c, cs->at, "%s: the chart archive holds an entry outside the chart (%s), which is refused",
                       hr_id(R, rel), shown(a, u.outside));
    if (u.hidden)
        return fn_fail(c, cs->at, "%s: the chart holds %s, which helm reads from the archive but not from the chart "
                                  "directory this step must write (valuesFiles, digest tracking): refused rather than "
                                  "rendered without it",
                       hr_id(R, rel), shown(a, u.hidden));
    if (values_yaml && !u.values_written) {
        int fd = open(arena_printf(a, "%s/values.yaml", u.dir), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0 || write_all(fd, values_yaml, strlen(values_yaml)) < 0)
            u.failed_errno = errno ? errno : EIO;
        if (fd >= 0)
            close(fd);
    }
    if (u.failed_errno)
        return fn_fail(c, cs->at, "cannot unpack the chart helm pulled: %s", strerror(u.failed_errno));
    *chart_path = u.dir;
    return 0;
}

/* One entry of the archive as a file under u->dir (its name is helm's: cleaned, relative, inside the chart). */
static int write_entry(void *ud, const helm_archive_entry *e)
{
    unpack *u = ud;
    arena *a = u->R->s->a;
    /* helm reads a chart directory's .helmignore and leaves out what it names, which it never does for an
     * archive: written out, it would make helm read fewer files than the archive holds */
    if (!e->name || !*e->name || !strcmp(e->name, ".helmignore"))
        return 0;
    /* a ".." component, not the two characters: helm reads templates/db..config.yaml, so skipping it dropped its
     * objects from a render that exits 0 */
    bool dotdot = e->name[0] == '/';
    for (const char *p = e->name; *p && !dotdot; p += strcspn(p, "/"), p += *p == '/')
        dotdot = p[0] == '.' && p[1] == '.' && (p[2] == '/' || !p[2]);
    if (dotdot) {
        if (!u->outside)
            u->outside = arena_strdup(a, e->name);
        return 0;
    }
    if (!strncmp(e->name, "templates/.", 11) && e->name[11]) {
        if (!u->hidden)
            u->hidden = arena_strdup(a, e->name);
        return 0;
    }
    const char *path = arena_printf(a, "%s/%s", u->dir, e->name);
    /* parents first */
    for (char *p = (char *)path + strlen(u->dir) + 1; (p = strchr(p, '/')); p++) {
        *p = 0;
        if (mkdir(path, 0700) != 0 && errno != EEXIST)
            u->failed_errno = errno;
        *p = '/';
    }
    const char *mine = !strcmp(e->name, "Chart.yaml") ? u->chart_yaml
                       : !strcmp(e->name, "values.yaml") ? u->values_yaml
                                                         : NULL;
    if (mine && mine == u->values_yaml)
        u->values_written = true;
    const void *data = mine ? (const void *)mine : (const void *)e->data;
    size_t size = mine ? strlen(mine) : e->size;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0 || write_all(fd, data, size) < 0)
        u->failed_errno = errno ? errno : EIO;
    if (fd >= 0)
        close(fd);
    return u->failed_errno ? 1 : 0;
}

/* ---- flux-lock ---- */

/* The line of the release's key in the lock. */
static int lock_line(const run *R, const release *rel)
{
    long i = map_index(R->lock, arena_printf(R->s->a, "%s/%s", rel->ns, rel->name));
    return i >= 0 ? (int)map_key_line(R->lock, (uint32_t)i) : 0;
}

/* The lock's entry for the release, if any: its version replaces the HelmRelease's constraint (an OCIRepository
 * is pulled by the locked digest), so nothing is resolved. */
static int apply_lock(run *R, const release *rel, chart_src *cs, const node **entry, const char **version,
                      const char **digest)
{
    arena *a = R->s->a;
    const node *e = map_get(R->lock, arena_printf(a, "%s/%s", rel->ns, rel->name));
    *entry = e;
    if (!e)
        return 0;
    *version = path_str(e, "version", NULL);
    *digest = path_str(e, "digest", NULL);
    if (!is_map(e) || !*version || !*digest || strncmp(*digest, "sha256:", 7) || strlen(*digest) != 71 ||
        strspn(*digest + 7, "0123456789abcdef") != 64 || !tag_text(*version))
        return fail(R->lock_file, lock_line(R, rel),
                    "flux-lock: the entry of HelmRelease %s/%s must be {version: <chart version>, digest: "
                    "sha256:<64 hex digits>}",
                    rel->ns, rel->name);
    if (cs->bare) {
        cs->name = arena_printf(a, "%s@%s", cs->bare, *digest);
        cs->version = NULL;
        cs->tag = NULL;
    } else {
        cs->version = *version;
    }
    return 0;
}

/* What was pulled must be what the lock says; a release the lock lacks fails with the entry to add. */
static int check_lock(run *R, const release *rel, const node *entry, const char *version, const char *digest,
                      const char *got_version, const char *got_digest)
{
    if (!entry)
        return fail(R->lock_file, 0,
                    "flux-lock: no entry for HelmRelease %s/%s (the chart now resolves to: \"%s/%s: {version: %s, "
                    "digest: %s}\")",
                    rel->ns, rel->name, rel->ns, rel->name, shown(R->s->a, got_version), got_digest);
    if (strcmp(digest, got_digest))
        return fail(R->lock_file, lock_line(R, rel),
                    "flux-lock: HelmRelease %s/%s: the chart pulled has digest %s, the lock says %s", rel->ns,
                    rel->name, got_digest, digest);
    if (strcmp(version, got_version))
        return fail(R->lock_file, lock_line(R, rel),
                    "flux-lock: HelmRelease %s/%s: the chart pulled is version %s, the lock says %s", rel->ns,
                    rel->name, shown(R->s->a, got_version), shown(R->s->a, version));
    return 0;
}

static int load_lock(run *R)
{
    const flux_step *s = R->s;
    arena *a = s->a;
    char dir_real[PATH_MAX];
    const char *path = path_join(a, s->dir ? s->dir : ".", s->lock);
    R->lock_file = s->lock;
    if (!realpath(s->dir ? s->dir : ".", dir_real) || !file_exists(path) || !inside(dir_real, path))
        return fail(s->lock, 0, "flux-lock: the lock file is not a file of the package");
    char *text;
    size_t len;
    if (read_text_file(s->host ? s->host->limits : NULL, path, s->lock, &text, &len) < 0)
        return -1;
    node *n = NULL;
    int rc = yaml_load_one(a, s->st, run_yaml_limits(R), s->lock, text, len, &n);
    xfree(text);
    if (rc < 0)
        return -1;
    if (n && !is_null(n) && !is_map(n))
        return fail(s->lock, (int)node_line(n), "flux-lock: the lock must be a map of <namespace>/<name>: {version, "
                                                "digest}");
    R->lock = is_map(n) ? n : node_map(a);
    return 0;
}

/* ---- one release ---- */

typedef struct rendered_opts {
    bool crds_marked;  /* the chart's crds/ objects get Argo CD's Delete=false,Prune=false */
    bool hooks_too;    /* postRenderStrategy: commonMetadata and the origin labels on hooks too */
    const node *common; /* commonMetadata */
} rendered_opts;

/* helm names a crds/ file "<chart>/crds/<file>", a subchart's "<chart>/charts/<sub>/crds/<file>" (any depth of
 * charts/<sub>), and a template "<chart>/templates/...": only the first form is a CRD of a crds/ directory, so a
 * template under templates/crds/ is not one. */
bool flux_source_in_crds(const char *path, size_t len)
{
    const char *p = path, *end = path + len;
    const char *slash = memchr(p, '/', (size_t)(end - p)); /* past the chart's name */
    if (!slash || slash == p)
        return false;
    p = slash + 1;
    for (;;) {
        if ((size_t)(end - p) > 5 && !memcmp(p, "crds/", 5))
            return true;
        if ((size_t)(end - p) < 7 || memcmp(p, "charts/", 7))
            return false;
        p += 7;
        slash = memchr(p, '/', (size_t)(end - p)); /* past the subchart's name */
        if (!slash || slash == p)
            return false;
        p = slash + 1;
    }
}

/* helm template prints "# Source: <chart>/crds/<file>" above each CRD of a crds/ directory (its subcharts'
 * "<chart>/charts/<sub>/crds/..."), and "<chart>/templates/..." above templates. */
static bool from_crds_dir(const resource *r)
{
    const char *head = node_head(r->root);
    if (!head && node_len(r->root))
        head = node_head(map_key(r->root, 0));
    if (!head && node_len(r->root))
        head = node_head(map_val(r->root, 0));
    const char *src = head ? strstr(head, "Source: ") : NULL;
    if (!src)
        return false;
    src += strlen("Source: ");
    const char *end = strchr(src, '\n');
    return flux_source_in_crds(src, end ? (size_t)(end - src) : strlen(src));
}

/* Is this kind cluster-scoped? Kubernetes' own kinds, and the CRDs among the objects that say so. */
static bool cluster_scoped(run *R, const char *group, const char *kind, const rlist *more)
{
    if (nameref_cluster_scoped(group, kind))
        return true;
    const rlist *lists[2] = {R->items, more};
    for (int l = 0; l < 2; l++)
        for (size_t i = 0; lists[l] && i < lists[l]->n; i++) {
            const resource *c = lists[l]->v[i];
            const char *k = c ? res_kind(c) : NULL;
            if (!k || strcmp(k, "CustomResourceDefinition"))
                continue;
            const char *g = path_str(c->root, "spec", "group", NULL), *ck = path_str(c->root, "spec", "names", "kind", NULL),
                       *scope = path_str(c->root, "spec", "scope", NULL);
            if (g && ck && scope && !strcmp(g, group) && !strcmp(ck, kind) && !strcmp(scope, "Cluster"))
                return true;
        }
    return false;
}

static void set_meta(arena *a, node *root, const char *which, const char *k, const char *v)
{
    node *md = map_ensure_map(a, root, "metadata");
    node *m = md ? map_ensure_map(a, md, which) : NULL;
    if (m)
        map_set(a, m, k, node_str(a, v));
}

static void finish_objects(run *R, release *rel, const rendered_opts *o, const char *chart, const char *source,
                           const char *digest, const flux_oci_meta *om)
{
    arena *a = R->s->a;
    const char *d = R->s->annotation_domain ? R->s->annotation_domain : "cmp-generate";
    const node *cl = map_get(o->common, "labels"), *ca = map_get(o->common, "annotations");
    for (size_t i = 0; i < rel->out.n; i++) {
        resource *r = rel->out.v[i];
        if (!r || !is_map(r->root))
            continue;
        const char *g, *v, *kind = res_kind(r);
        group_version(a, r, &g, &v);
        /* helm's client puts namespaced objects without a namespace in the release's namespace */
        const char *ns = res_namespace(r);
        if ((!ns || !*ns) && kind && !cluster_scoped(R, g, kind, &rel->out)) {
            node *md = map_ensure_map(a, r->root, "metadata");
            if (md)
                map_set(a, md, "namespace", node_str(a, rel->target_ns));
        }
        /* a crds/ CRD: helm-controller applies it itself (internal/action/crds.go), with the origin labels and
         * without commonMetadata; Flux never deletes one, nor should Argo CD */
        bool crd_dir = o->crds_marked && kind && !strcmp(kind, "CustomResourceDefinition") && from_crds_dir(r);
        if (crd_dir)
            set_meta(a, r->root, "annotations", "argocd.argoproj.io/sync-options", "Delete=false,Prune=false");
        bool hook = res_annotation(r, "helm.sh/hook") != NULL;
        if (crd_dir || !hook || o->hooks_too) {
            /* commonMetadata, then the origin labels, which win (internal/postrender/build.go) */
            if (!crd_dir) {
                map_foreach(cl, k, lk, lv)
                    if (scalar(lk) && scalar(lv))
                        set_meta(a, r->root, "labels", scalar(lk), scalar(lv));
                map_foreach(ca, k, ak, av)
                    if (scalar(ak) && scalar(av))
                        set_meta(a, r->root, "annotations", scalar(ak), scalar(av));
            }
            set_meta(a, r->root, "labels", ORIGIN_NAME, rel->name);
            set_meta(a, r->root, "labels", ORIGIN_NAMESPACE, rel->ns);
        }
        set_meta(a, r->root, "annotations", arena_printf(a, "%s/helmrelease", d),
                 arena_printf(a, "%s/%s", rel->ns, rel->name));
        set_meta(a, r->root, "annotations", arena_printf(a, "%s/chart", d), chart);
        set_meta(a, r->root, "annotations", arena_printf(a, "%s/chart-source", d), source);
        set_meta(a, r->root, "annotations", arena_printf(a, "%s/chart-digest", d), digest);
        /* an OCI chart's org.opencontainers.image.* annotations, each when its manifest has it */
        const char *oci_keys[] = {"chart-oci-source", "chart-oci-revision", "chart-oci-created"};
        const char *oci_vals[] = {om->source, om->revision, om->created};
        for (int k = 0; k < 3; k++)
            if (oci_vals[k])
                set_meta(a, r->root, "annotations", arena_printf(a, "%s/%s", d, oci_keys[k]), oci_vals[k]);
    }
}

/* spec.postRenderers over what helm rendered, as helm-controller runs them: never over the crds/ CRDs (it applies
 * those itself), over hooks unless postRenderStrategy is nohooks, in one run with the rest (combined, the
 * default) or a run of their own (separate). The order stays helm's: crds/ CRDs, the rest, then the hooks. */
static int post_render(run *R, release *rel, const node *post, bool v2beta, bool include_crds, const char *strat)
{
    rlist crds = {0}, body = {0}, hooks = {0};
    bool apart = strat && strcmp(strat, "combined");
    for (size_t i = 0; i < rel->out.n; i++) {
        resource *r = rel->out.v[i];
        const char *kind = res_kind(r);
        if (include_crds && kind && !strcmp(kind, "CustomResourceDefinition") && from_crds_dir(r))
            rlist_push(&crds, r);
        else if (apart && res_annotation(r, "helm.sh/hook"))
            rlist_push(&hooks, r);
        else
            rlist_push(&body, r);
    }
    const char *who = hr_id(R, rel);
    int rc = flux_post_render(&R->c, who, post, v2beta, &body);
    if (rc == 0 && hooks.n && !strcmp(strat, "separate"))
        rc = flux_post_render(&R->c, who, post, v2beta, &hooks);
    if (rc == 0) {
        rel->out.n = 0;
        for (size_t i = 0; i < crds.n; i++)
            rlist_push(&rel->out, crds.v[i]);
        for (size_t i = 0; i < body.n; i++)
            rlist_push(&rel->out, body.v[i]);
        for (size_t i = 0; i < hooks.n; i++)
            rlist_push(&rel->out, hooks.v[i]);
    }
    rlist_free(&crds);
    rlist_free(&body);
    rlist_free(&hooks);
    return rc;
}

static int crd_policy(run *R, const release *rel, const node *install, bool *include)
{
    const char *policy;
    bool skip;
    if (text(R, rel, install, "crds", "spec.install.", &policy) < 0 ||
        boolean(R, rel, install, "skipCRDs", "spec.install.", &skip) < 0)
        return -1;
    if (policy && strcmp(policy, "Skip") && strcmp(policy, "Create") && strcmp(policy, "CreateReplace"))
        return fn_fail(&R->c, map_get(install, "crds"), "%s: spec.install.crds must be Skip, Create or CreateReplace",
                       hr_id(R, rel));
    /* v2beta1's skipCRDs counts when no policy is set, as helm-controller reads it */
    *include = policy ? strcmp(policy, "Skip") != 0 : !skip;
    return 0;
}

/* source-controller's mergeFileValues for a chart from a GitRepository: each valuesFiles path from the
 * repository's root (not the chart's), MergeMaps over the last; a missing file is an error unless
 * ignoreMissingValuesFiles. The result replaces the chart's default values, as YAML text in *out. */
static int merge_git_values(run *R, release *rel, chart_src *cs, const char **out)
{
    arena *a = R->s->a;
    const char *root = flux_repo_root(&R->c);
    node *merged = node_map(a);
    seq_foreach(cs->values_files, i, at) {
        const char *real, *clean;
        bool missing;
        const char *why = flux_git_path(a, root, scalar(at), &real, &clean, &missing);
        if (why && missing && cs->ignore_missing_values)
            continue;
        /* the artifact's rules hold for a values file as for the chart: one they leave out is refused */
        if (!why)
            why = flux_git_left_out(a, root, clean);
        struct stat st;
        if (!why && (lstat(real, &st) != 0 || !S_ISREG(st.st_mode)))
            why = "is not a file";
        if (why)
            return fn_fail(&R->c, at, "%s: valuesFiles[%u] %s %s", hr_id(R, rel), i, shown(a, scalar(at)), why);
        char *text_;
        size_t len;
        if (read_text_file(R->s->host ? R->s->host->limits : NULL, real, clean, &text_, &len) < 0)
            return -1;
        node *v = NULL;
        diag_detail d;
        int lrc = yaml_load_one_into(a, R->s->st, run_yaml_limits(R), clean, text_, len, &v, &d);
        xfree(text_);
        if (lrc < 0)
            return fn_fail(&R->c, at, "%s: valuesFiles[%u] %s is not YAML: %s", hr_id(R, rel), i, shown(a, clean),
                           d.message);
        if (v && !is_null(v) && !is_map(v))
            return fn_fail(&R->c, at, "%s: valuesFiles[%u] %s is not a map of values", hr_id(R, rel), i,
                           shown(a, clean));
        merged = flux_merge_maps(a, merged, v);
    }
    buf b = {0};
    if (node_len(merged))
        emit_yaml(&b, merged, NULL);
    *out = arena_strndup(a, b.data ? b.data : "{}\n", b.data ? b.len : 3);
    buf_free(&b);
    return 0;
}

#define GIT_DEPENDENCY_DEPTH 8

/* helm dependency build packages each file:// dependency from its directory (helm's GetLocalPath: the path after
 * file:// joined to the chart's directory), which only the repository's root confines: that directory, and its own
 * file:// dependencies in turn (at most GIT_DEPENDENCY_DEPTH deep), are held to what the chart is
 * (flux_git_path, flux_git_dir_problem), so helm reads nothing source-controller's artifact would leave out.
 * dir_clean and dir_real: the chart's directory from the root and as a real path. */
typedef struct dep_seen {
    const char *dir; /* a directory already checked, from the root */
    struct dep_seen *next;
} dep_seen;

static int check_git_dependencies(run *R, const release *rel, const chart_src *cs, const char *root,
                                  const char *dir_clean, const char *dir_real, int depth, dep_seen **seen)
{
    /* each directory once: dependencies naming one another (or many naming one) stay linear, not exponential */
    for (const dep_seen *d = *seen; d; d = d->next)
        if (!strcmp(d->dir, dir_clean))
            return 0;
    dep_seen *mark = arena_alloc(R->s->a, sizeof *mark);
    mark->dir = dir_clean;
    mark->next = *seen;
    *seen = mark;
    static const char *const files[] = {"Chart.yaml", "requirements.yaml", "Chart.lock", "requirements.lock"};
    arena *a = R->s->a;
    for (int k = 0; k < 4; k++) {
        const char *path = arena_printf(a, "%s/%s", dir_real, files[k]);
        const char *display = arena_printf(a, "%s/%s", dir_clean, files[k]);
        struct stat st;
        if (lstat(path, &st) != 0)
            continue;
        char *t;
        size_t len;
        node *doc = NULL;
        if (read_text_file(R->s->host ? R->s->host->limits : NULL, path, display, &t, &len) < 0)
            return -1;
        int rc = go_load_chart_file(a, R->s->st, run_yaml_limits(R), display, files[k], t, len, &doc);
        xfree(t);
        if (rc < 0)
            return -1;
        const node *deps = map_get(doc, "dependencies");
        seq_foreach(deps, i, dep) {
            const char *r = path_str(dep, "repository", NULL);
            if (!r || strncmp(r, "file://", 7))
                continue;
            const char *p = r + 7, *real = NULL, *clean = NULL, *why;
            bool missing;
            if (depth >= GIT_DEPENDENCY_DEPTH)
                why = arena_printf(a, "is more than %d file:// dependencies deep", GIT_DEPENDENCY_DEPTH);
            else if (*p == '/')
                why = "is an absolute path: only a path relative to the chart, inside the repository, is read";
            else
                why = flux_git_path(a, root, arena_printf(a, "%s/%s", dir_clean, p), &real, &clean, &missing);
            if (why)
                return fn_fail(&R->c, cs->at, "%s: the chart %s: %s dependencies[%u].repository %s %s", hr_id(R, rel),
                               shown(a, cs->name), display, i, shown(a, r), why);
            why = flux_git_dir_problem(a, root, clean); /* the .sourceignore files: looked at for the chart */
            if (why)
                return fn_fail(&R->c, cs->at, "%s: the chart %s: %s dependencies[%u].repository %s: %s", hr_id(R, rel),
                               shown(a, cs->name), display, i, shown(a, r), why);
            if (check_git_dependencies(R, rel, cs, root, clean, real, depth + 1, seen) < 0)
                return -1;
        }
    }
    return 0;
}

/* A chart from this Application's own repository: checked as every local chart is (confinement, its dependencies
 * built: helm_dependency_build), then templated from the checkout; when source-controller would change it (new
 * default values from valuesFiles, the version +<first 12 of the revision> under reconcileStrategy Revision), helm
 * packages it and it is rewritten as a pulled chart is. Its digest is the revision ("sha1:<commit>", as Flux names
 * a Git artifact's revision). */
static int git_chart(run *R, release *rel, chart_src *cs, chart_meta *meta, const char **chart_path,
                     const char **digest)
{
    arena *a = R->s->a;
    fn_ctx *c = &R->c;
    if (R->s->host->helm_verify_prov)
        return fn_fail(c, cs->at, "%s: the chart %s is a directory of the repository, which helm cannot verify "
                                  "(parameter helm-verify-prov is true: only charts pulled with a provenance file "
                                  "are rendered)",
                       hr_id(R, rel), shown(a, cs->name));
    dep_seen *seen = NULL;
    if (check_git_dependencies(R, rel, cs, flux_repo_root(c), cs->name, cs->git_chart, 0, &seen) < 0 ||
        helm_dependency_build(fn_engine(c), R->helm, cs->git_chart, cs->at) < 0)
        return -1;
    const char *values_yaml = NULL;
    if (cs->values_files && merge_git_values(R, rel, cs, &values_yaml) < 0)
        return -1;
    *digest = arena_printf(a, "%s:%s", strlen(cs->git_revision) == 64 ? "sha256" : "sha1", cs->git_revision);
    if (!values_yaml && !cs->git_revision_version) {
        char *t;
        size_t len;
        node *doc = NULL;
        const char *f = arena_printf(a, "%s/Chart.yaml", cs->git_chart);
        if (read_text_file(R->s->host ? R->s->host->limits : NULL, f, "Chart.yaml", &t, &len) < 0)
            return -1;
        int rc = yaml_load_one(a, R->s->st, run_yaml_limits(R), "Chart.yaml", t, len, &doc);
        xfree(t);
        meta->name = rc == 0 ? path_str(doc, "name", NULL) : NULL;
        meta->version = rc == 0 ? path_str(doc, "version", NULL) : NULL;
        if (!meta->name || !meta->version)
            return fn_fail(c, cs->at, "%s: the chart %s has no readable Chart.yaml (name, version)", hr_id(R, rel),
                           shown(a, cs->name));
        *chart_path = cs->git_chart;
        return 0;
    }
    const char *s = scratch_dir(R->s->host);
    static int seq;
    const char *dir = s ? arena_printf(a, "%s/flux-git-%d", s, ++seq) : NULL;
    if (!dir || mkdir(dir, 0700) != 0)
        return fn_fail(c, cs->at, "cannot create a temporary directory for the chart: %s", strerror(errno));
    const char *argv[] = {R->helm, "package", arena_printf(a, "--destination=%s", dir), "--", cs->git_chart, NULL};
    if (run_tool(c, arena_printf(a, "helm package of %s's chart", hr_id(R, rel)), argv, helm_environment(R->s->host->tmpdir),
                 dir) < 0)
        return -1;
    /* the archive's name comes from Chart.yaml, the package's text: found, never built from it */
    const char *tgz = NULL;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.')
            tgz = arena_printf(a, "%s/%s", dir, e->d_name);
    if (d)
        closedir(d);
    if (!tgz)
        return fn_fail(c, cs->at, "%s: helm package wrote no chart archive", hr_id(R, rel));
    if (read_chart_meta(R, cs->at, tgz, meta) < 0)
        return -1;
    if (cs->git_revision_version) {
        /* Masterminds' SetMetadata, then String(): major.minor.patch[-prerelease]+metadata */
        semv v;
        if (!semver_parse(meta->version, &v))
            return fn_fail(c, cs->at, "%s: failed to parse version from chart metadata as SemVer: %s", hr_id(R, rel),
                           shown(a, meta->version));
        meta->version = arena_printf(a, "%llu.%llu.%llu%s%.*s+%.12s", v.n[0], v.n[1], v.n[2], v.pre_len ? "-" : "",
                                     (int)v.pre_len, v.pre, cs->git_revision);
    }
    return repackage(R, rel, cs, tgz, meta, values_yaml, chart_path);
}

/* An OCIRepository's ref.semver with the operator's skopeo: the tag source-controller picks from the registry's tag
 * list (semverFilter applied there), pulled as a tag is (and, as for a tag, it must be the chart's version). Without
 * skopeo helm resolves the constraint from the same list, and check_semver_filter below checks its pick. */
static int pick_oci_tag(run *R, const release *rel, chart_src *cs)
{
    (void)rel;
    fn_ctx ctx = R->c;
    ctx.config_file = cs->semver_file;
    ctx.config_line = cs->semver_line;
    const char *tag;
    int rc = flux_oci_semver_tag(&ctx, cs->semver_at, cs->semver_who, cs->repo, cs->bare, cs->version,
                                 cs->semver_filter, cs->semver_filter_at, &tag);
    if (rc <= 0)
        return rc;
    cs->name = arena_printf(R->s->a, "%s:%s", cs->bare, tag);
    cs->tag = tag;
    cs->version = NULL;
    cs->semver_filter = NULL; /* applied to the tag list */
    return 0;
}

/* Without skopeo: source-controller filters the tags by semverFilter, then picks the highest that satisfies
 * ref.semver; helm picked the highest of all tags. When that tag (the chart's version, '+' written '_') matches the
 * filter it is source-controller's pick too; when it does not, source-controller's pick is a lower tag, which only
 * the registry's tag list shows: an error, never another chart. */
static int check_semver_filter(run *R, const release *rel, const chart_src *cs, const char *version)
{
    arena *a = R->s->a;
    fn_ctx ctx = R->c;
    ctx.config_file = cs->semver_filter_file;
    ctx.config_line = cs->semver_filter_line;
    char *tag = arena_strdup(a, version);
    for (char *p = tag; *p; p++)
        if (*p == '+')
            *p = '_';
    int rc = flux_semver_filter_match(R->s->host ? R->s->host->limits : NULL, a, cs->semver_filter, tag);
    if (rc < 0)
        return fn_locate(&ctx, cs->semver_filter_at, "%s: spec.ref.semverFilter", hr_id(R, rel));
    if (rc == 0)
        return fn_fail(&ctx, cs->semver_filter_at,
                       "%s: spec.ref.semverFilter does not match %s, the highest tag that satisfies spec.ref.semver: "
                       "source-controller would pick a lower tag, which only the registry's tag list shows, and "
                       "without skopeo this step does not read it; the operator can install skopeo on the sidecar "
                       "(on PATH, or CMP_SKOPEO_BIN), or pin the chart with spec.ref.tag or spec.ref.digest",
                       hr_id(R, rel), shown(a, tag));
    return 0;
}

static int render_release(run *R, release *rel)
{
    arena *a = R->s->a;
    const flux_step *s = R->s;
    resource *hr = rel->hr;
    const char *g, *version;
    group_version(a, hr, &g, &version);
    R->c = (fn_ctx){.a = a, .st = s->st, .items = &rel->out, .config = hr->root, .config_file = res_file(a, hr),
                    .config_line = (int)hr->line, .pkg = hr->pkg, .results = s->results, .host = s->host};
    fn_ctx *c = &R->c;
    if (strcmp(version, "v2beta1") && strcmp(version, "v2beta2") && strcmp(version, "v2"))
        return fn_fail(c, map_get(hr->root, "apiVersion"),
                       "%s: apiVersion %s is not one the flux-helmrelease step renders (" HR_GROUP "/v2beta1, "
                       "v2beta2 or v2)",
                       hr_id(R, rel), shown(a, res_api_version(hr)));
    node *spec = map_get(hr->root, "spec");
    if (!is_map(spec))
        return fn_fail(c, spec, "%s: spec must be a map", hr_id(R, rel));
    if (check_fields(R, rel, spec, "spec.", spec_fields) < 0)
        return -1;
    const node *chart = map_get(spec, "chart"), *chart_ref = map_get(spec, "chartRef");
    bool has_chart = chart && !is_null(chart), has_ref = chart_ref && !is_null(chart_ref);
    if (has_chart == has_ref)
        return fn_fail(c, spec, "%s: exactly one of spec.chart and spec.chartRef must be set", hr_id(R, rel));
    if (has_ref && !strcmp(version, "v2beta1"))
        return fn_fail(c, chart_ref, "%s: spec.chartRef in " HR_GROUP "/v2beta1 is only a placeholder for upgrades "
                                     "to v2; helm-controller never read it",
                       hr_id(R, rel));
    const node *post = map_get(spec, "postRenderers");
    bool v2beta = strcmp(version, "v2") != 0;
    if (flux_post_render(c, hr_id(R, rel), post, v2beta, NULL) < 0)
        return -1;
    chart_src cs = {0};
    if (has_ref ? resolve_chart_ref(R, rel, chart_ref, &cs) < 0 : resolve_chart_template(R, rel, chart, &cs) < 0)
        return -1;
    /* values, names, the policies */
    node *values;
    if (compute_values(R, rel, spec, &values) < 0)
        return -1;
    const char *release_name, *target_ns;
    if (text(R, rel, spec, "releaseName", "spec.", &release_name) < 0 ||
        text(R, rel, spec, "targetNamespace", "spec.", &target_ns) < 0)
        return -1;
    if (target_ns && *target_ns && !dns_label(target_ns))
        return fn_fail(c, map_get(spec, "targetNamespace"), "%s: spec.targetNamespace must be a namespace name",
                       hr_id(R, rel));
    rel->target_ns = target_ns && *target_ns ? target_ns : rel->ns;
    rel->release = flux_shorten_name(a, flux_release_name(a, release_name, target_ns, rel->name));
    const node *install = map_get(spec, "install"), *upgrade = map_get(spec, "upgrade");
    if ((install && !is_null(install) && !is_map(install)) || (upgrade && !is_null(upgrade) && !is_map(upgrade)))
        return fn_fail(c, install, "%s: spec.install and spec.upgrade must be maps", hr_id(R, rel));
    bool include_crds = true, ih = false, uh = false, is = false, us = false, create_ns = false;
    if (check_fields(R, rel, install, "spec.install.", install_fields) < 0 ||
        check_fields(R, rel, upgrade, "spec.upgrade.", upgrade_fields) < 0 || crd_policy(R, rel, install, &include_crds) < 0 ||
        boolean(R, rel, install, "disableHooks", "spec.install.", &ih) < 0 ||
        boolean(R, rel, upgrade, "disableHooks", "spec.upgrade.", &uh) < 0 ||
        boolean(R, rel, install, "disableSchemaValidation", "spec.install.", &is) < 0 ||
        boolean(R, rel, upgrade, "disableSchemaValidation", "spec.upgrade.", &us) < 0 ||
        boolean(R, rel, install, "createNamespace", "spec.install.", &create_ns) < 0)
        return -1;
    rendered_opts ro = {.crds_marked = include_crds, .hooks_too = true, .common = map_get(spec, "commonMetadata")};
    const char *strat;
    if (text(R, rel, spec, "postRenderStrategy", "spec.", &strat) < 0)
        return -1;
    if (strat && strcmp(strat, "nohooks") && strcmp(strat, "combined") && strcmp(strat, "separate"))
        return fn_fail(c, map_get(spec, "postRenderStrategy"),
                       "%s: spec.postRenderStrategy must be nohooks, combined or separate", hr_id(R, rel));
    ro.hooks_too = !strat || strcmp(strat, "nohooks");
    if (ro.common && !is_null(ro.common)) {
        static const field cm_fields[] = {{"labels", K_USE, NULL}, {"annotations", K_USE, NULL}, {NULL, K_USE, NULL}};
        if (!is_map(ro.common) || check_fields(R, rel, ro.common, "spec.commonMetadata.", cm_fields) < 0)
            return is_map(ro.common) ? -1
                                     : fn_fail(c, ro.common, "%s: spec.commonMetadata must be a map", hr_id(R, rel));
    }
    rel->depends_on = map_get(spec, "dependsOn");
    if (rel->depends_on && !is_null(rel->depends_on) && !is_seq(rel->depends_on))
        return fn_fail(c, rel->depends_on, "%s: spec.dependsOn must be a list", hr_id(R, rel));
    /* fetch and template */
    chart_meta meta = {.a = a, .st = s->st, .lim = run_yaml_limits(R)};
    const char *digest = NULL, *chart_path = NULL, *values_yaml = NULL;
    flux_oci_meta om = {0}; /* an OCI chart's manifest annotations (none for a chart from the repository) */
    if (cs.git_chart) {
        if (git_chart(R, rel, &cs, &meta, &chart_path, &digest) < 0)
            return -1;
        goto template;
    }
    const node *locked = NULL;
    const char *locked_version = NULL, *locked_digest = NULL;
    if (R->lock && apply_lock(R, rel, &cs, &locked, &locked_version, &locked_digest) < 0)
        return -1;
    if (cs.bare && cs.version && pick_oci_tag(R, rel, &cs) < 0)
        return -1;
    /* a locked chart from the operator's cache (chart_cache.c) when it holds it; not with helm-verify-prov, whose
     * provenance file the cache does not keep */
    const char *oci_digest = NULL, *tgz = NULL, *manifest = NULL;
    size_t manifest_len = 0;
    const char *cache = s->host->helm_chart_cache, *cache_chart = cs.oci_chart ? cs.oci_chart : cs.name;
    bool use_cache = locked && cache && !s->host->helm_verify_prov;
    int cached = use_cache ? flux_cache_get(c, cs.at, hr_id(R, rel), cache, cs.repo, cache_chart, locked_digest,
                                            cs.oci_chart != NULL, &tgz, &manifest, &manifest_len)
                           : 0;
    if (cached < 0)
        return -1;
    if (cached)
        oci_digest = cs.oci_chart ? locked_digest : NULL;
    else
        tgz = helm_pull_digest(fn_engine(c), R->helm, cs.at, cs.repo, cs.name, cs.version, &oci_digest);
    if (!tgz)
        return -1;
    if (read_chart_meta(R, cs.at, tgz, &meta) < 0)
        return -1;
    if (cs.semver_filter && check_semver_filter(R, rel, &cs, meta.version) < 0)
        return -1;
    digest = oci_digest ? oci_digest : arena_printf(a, "sha256:%s", meta.digest);
    if (cs.verify && verify_chart(R, rel, &cs, oci_digest) < 0)
        return -1;
    if (R->lock && check_lock(R, rel, locked, locked_version, locked_digest, meta.version, digest) < 0)
        return -1;
    if (cs.oci_chart && oci_digest &&
        flux_oci_annotations(c, cs.at, hr_id(R, rel), cs.repo, cs.oci_chart, oci_digest, meta.digest, &manifest,
                             &manifest_len, &R->skopeo_warned, &om) < 0)
        return -1;
    if (use_cache && !cached && (!cs.oci_chart || manifest))
        flux_cache_put(c, cs.at, hr_id(R, rel), cache, cs.repo, cache_chart, tgz, meta.digest, manifest, manifest_len,
                       digest);
    chart_path = tgz;
    if (cs.track_digest && track_digest(R, rel, &cs, oci_digest, &meta) < 0)
        return -1;
    if (cs.values_files && merge_values_files(R, rel, &cs, tgz, &values_yaml) < 0)
        return -1;
    if ((cs.track_digest || values_yaml) && repackage(R, rel, &cs, tgz, &meta, values_yaml, &chart_path) < 0)
        return -1;
template:;
    const char **argv = NULL;
    size_t n = 0, cap = 0;
    push(&argv, &n, &cap, R->helm);
    push(&argv, &n, &cap, "template");
    push(&argv, &n, &cap, arena_printf(a, "--namespace=%s", rel->target_ns));
    if (include_crds)
        push(&argv, &n, &cap, "--include-crds");
    push(&argv, &n, &cap, "--skip-tests"); /* Argo CD runs no Helm tests */
    if (ih || uh)
        push(&argv, &n, &cap, "--no-hooks");
    if (is || us)
        push(&argv, &n, &cap, "--skip-schema-validation");
    const char *kv = s->host->kube_version;
    if (kv && *kv)
        push(&argv, &n, &cap, arena_printf(a, "--kube-version=%s", kv));
    for (const char *p = s->host->kube_api_versions; p && *p;) {
        size_t len = strcspn(p, ",");
        if (len)
            push(&argv, &n, &cap, arena_printf(a, "--api-versions=%.*s", (int)len, p));
        p += len + (p[len] == ',');
    }
    child_fds fds = {0};
    if (node_len(values)) {
        buf b = {0};
        emit_yaml(&b, values, NULL);
        const char *f = pass_text(c, &fds, b.data ? b.data : "", b.len);
        buf_free(&b);
        if (!f) {
            xfree(argv);
            return fn_fail(c, NULL, "%s: cannot pass the values to helm: %s", hr_id(R, rel), strerror(errno));
        }
        push(&argv, &n, &cap, arena_printf(a, "--values=%s", f));
    }
    push(&argv, &n, &cap, "--");
    push(&argv, &n, &cap, rel->release);
    push(&argv, &n, &cap, chart_path);
    int rc = run_tool_into_items_fds(c, arena_printf(a, "helm template of %s (chart %s)", hr_id(R, rel), meta.name),
                                     argv, helm_environment(s->host->tmpdir), step_dir(c), &fds);
    xfree(argv);
    if (rc < 0)
        return -1;
    rlist_compact(&rel->out);
    if (set_value(post) && post_render(R, rel, post, v2beta, include_crds, strat) < 0)
        return -1;
    for (int i = 0; i < cs.nused; i++)
        R->used[cs.used[i]] = true;
    finish_objects(R, rel, &ro, arena_printf(a, "%s@%s", meta.name, meta.version), cs.source_url, digest, &om);
    if (create_ns && target_ns && *target_ns && !find_object(R, "", "Namespace", target_ns, obj_ns(R, hr), NULL)) {
        bool have = false;
        for (size_t i = 0; i < R->items->n && !have; i++) {
            const resource *r = R->items->v[i];
            have = r && res_kind(r) && !strcmp(res_kind(r), "Namespace") && res_name(r) &&
                   !strcmp(res_name(r), target_ns);
        }
        if (!have) {
            node *ns = node_map(a);
            map_set(a, ns, "apiVersion", node_str(a, "v1"));
            map_set(a, ns, "kind", node_str(a, "Namespace"));
            node *md = map_ensure_map(a, ns, "metadata");
            map_set(a, md, "name", node_str(a, target_ns));
            rel->create_namespace = ns;
        }
    }
    return 0;
}

/* ---- dependsOn: config.kubernetes.io/depends-on edges for the ordering step ---- */

static const char *object_ref(run *R, const resource *r)
{
    arena *a = R->s->a;
    const char *g, *v, *kind = res_kind(r), *ns = res_namespace(r);
    group_version(a, r, &g, &v);
    if (ns && *ns)
        return arena_printf(a, "%s/namespaces/%s/%s/%s", g, ns, kind, res_name(r));
    return arena_printf(a, "%s/%s/%s", g, kind, res_name(r));
}

static int depends_on(run *R, release *rel)
{
    arena *a = R->s->a;
    const node *d = rel->depends_on;
    R->c.config_file = res_file(a, rel->hr);
    R->c.config_line = (int)rel->hr->line;
    /* the list is built once in a buffer and shared by every object (appending to a copy per object would be
     * quadratic in the dependencies' objects) */
    buf list = {0};
    seq_foreach(d, i, e) {
        const char *name = path_str(e, "name", NULL), *ns = path_str(e, "namespace", NULL);
        static const field dep_fields[] = {{"name", K_USE, NULL}, {"namespace", K_USE, NULL}, {NULL, K_USE, NULL}};
        if (!is_map(e) || !name) {
            buf_free(&list);
            return fn_fail(&R->c, e, "%s: spec.dependsOn[%u] must be a map with a name", hr_id(R, rel), i);
        }
        if (check_fields(R, rel, e, arena_printf(a, "spec.dependsOn[%u].", i), dep_fields) < 0) {
            buf_free(&list);
            return -1;
        }
        if (!ns || !*ns)
            ns = rel->ns;
        const release *t = NULL;
        for (size_t k = 0; k < R->nrels && !t; k++)
            if (!strcmp(R->rels[k].name, name) && !strcmp(R->rels[k].ns, ns))
                t = &R->rels[k];
        if (!t) {
            buf_free(&list);
            return fn_fail(&R->c, e, "%s: spec.dependsOn names HelmRelease %s/%s, which is not in the package (a "
                                     "dependency outside it cannot be ordered)",
                           hr_id(R, rel), ns, name);
        }
        for (size_t k = 0; k < t->out.n; k++) {
            const resource *o = t->out.v[k];
            if (!o || res_annotation(o, "helm.sh/hook") || !res_kind(o) || !res_name(o))
                continue;
            if (list.len)
                buf_putc(&list, ',');
            buf_puts(&list, object_ref(R, o));
        }
    }
    if (!list.len)
        return 0;
    const char *refs = arena_strndup(a, list.data, list.len);
    buf_free(&list);
    for (size_t k = 0; k < rel->out.n; k++) {
        resource *o = rel->out.v[k];
        if (!o || res_annotation(o, "helm.sh/hook"))
            continue;
        const char *have = res_annotation(o, "config.kubernetes.io/depends-on");
        set_meta(a, o->root, "annotations", "config.kubernetes.io/depends-on",
                 have && *have ? arena_printf(a, "%s,%s", have, refs) : refs);
    }
    return 0;
}

int flux_helmreleases(const flux_step *s, rlist *items)
{
    if (!s->mode || !strcmp(s->mode, "keep"))
        return 0;
    arena *a = s->a;
    size_t count = 0;
    for (size_t i = 0; i < items->n; i++) {
        resource *r = items->v[i];
        if (!r || !flux_is_helmrelease(r))
            continue;
        if (!strcmp(s->mode, "error"))
            return fail(res_file(a, r), (int)r->line,
                        "HelmRelease %s/%s: the package holds a Flux HelmRelease and the parameter flux-helmrelease "
                        "is error (keep passes it on to an in-cluster Flux, render renders its chart)",
                        res_namespace(r) ? res_namespace(r) : "", res_name(r) ? res_name(r) : "");
        count++;
    }
    if (!count)
        return 0;
    run R = {.s = s, .items = items};
    R.used = arena_alloc(a, items->n * sizeof *R.used);
    memset(R.used, 0, items->n * sizeof *R.used);
    R.rels = arena_alloc(a, count * sizeof *R.rels);
    memset(R.rels, 0, count * sizeof *R.rels);
    for (size_t i = 0; i < items->n; i++) {
        resource *r = items->v[i];
        if (!r || !flux_is_helmrelease(r))
            continue;
        release *rel = &R.rels[R.nrels++];
        rel->hr = r;
        rel->index = i;
        rel->name = res_name(r);
        rel->ns = obj_ns(&R, r);
        if (!rel->name || !*rel->name)
            return fail(res_file(a, r), (int)r->line, "a HelmRelease without metadata.name");
    }
    int rc = -1;
    const char *set_bin = s->host ? s->host->helm_bin : NULL;
    const char *helm = s->host ? find_tool(set_bin, s->host->path, "helm") : NULL;
    if (!helm) {
        fail(res_file(a, R.rels[0].hr), (int)R.rels[0].hr->line,
             "HelmRelease %s/%s: helm is not installed (not on PATH; set HELM_BIN to its path)", R.rels[0].ns,
             R.rels[0].name);
        goto done;
    }
    R.helm = arena_strdup(a, helm);
    if (s->lock && load_lock(&R) < 0)
        goto done;
    if (!helm_environment(s->host->tmpdir)) {
        fail(NULL, 0, "cannot create a temporary directory for helm");
        goto done;
    }
    for (size_t i = 0; i < R.nrels; i++)
        if (render_release(&R, &R.rels[i]) < 0)
            goto done;
    for (size_t i = 0; i < R.nrels; i++)
        if (depends_on(&R, &R.rels[i]) < 0)
            goto done;
    /* the output: each HelmRelease's objects in its place; the sources they used gone */
    rlist out = {0};
    size_t next = 0;
    for (size_t i = 0; i < items->n; i++) {
        if (next < R.nrels && R.rels[next].index == i) {
            release *rel = &R.rels[next++];
            if (rel->create_namespace)
                rlist_push(&out, resource_new(a, rel->create_namespace, rel->hr->pkg,
                                              arena_printf(a, "namespace_%s.yaml", rel->target_ns), 0));
            for (size_t k = 0; k < rel->out.n; k++)
                if (rel->out.v[k])
                    rlist_push(&out, rel->out.v[k]);
            continue;
        }
        if (!R.used[i] && items->v[i])
            rlist_push(&out, items->v[i]);
    }
    rlist_free(items);
    *items = out;
    rc = 0;
done:
    for (size_t i = 0; i < R.nrels; i++)
        rlist_free(&R.rels[i].out);
    return rc;
}
