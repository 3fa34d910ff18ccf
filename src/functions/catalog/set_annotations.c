/* set-annotations: annotations on metadata and pod templates, plus extra field specs (catalog set-annotations,
 * kustomize commonAnnotations). Three behaviours, by the release a step pins:
 *   - set-annotation v0.1.0-v0.1.2 and set-annotations v0.1.3 (kustomize api 0.7): config kinds ConfigMap and
 *     SetAnnotationConfig{annotations, fieldSpecs}; every item carrying a local-config annotation (any value) is
 *     dropped from the output; no results.
 *   - v0.1.4 (kustomize 0.8.11 with local configs included): local-config items and the Kptfile are annotated; the
 *     kind SetAnnotations and additionalAnnotationFields arrive, the legacy names stay; no results.
 *   - master since 2021-12 (`latest`, `unstable`): the same transformation, plus one result per annotated field,
 *     `set annotations: {json}`, or `no annotations applied`.
 * Every release compares the config's apiVersion exactly (`v1`, `fn.kpt.dev/v1alpha1`) and prefixes config errors
 * with "failed to configure function: ". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "functions/krm/fieldspec.h"
#include "util/buf.h"

static const fieldspec annotation_specs[] = {
    {NULL, NULL, NULL, "metadata/annotations", true},
    {"", "v1", "ReplicationController", "spec/template/metadata/annotations", true},
    {NULL, NULL, "Deployment", "spec/template/metadata/annotations", true},
    {NULL, NULL, "ReplicaSet", "spec/template/metadata/annotations", true},
    {NULL, NULL, "DaemonSet", "spec/template/metadata/annotations", true},
    {NULL, NULL, "StatefulSet", "spec/template/metadata/annotations", true},
    {"batch", NULL, "Job", "spec/template/metadata/annotations", true},
    {"batch", NULL, "CronJob", "spec/jobTemplate/metadata/annotations", true},
    {"batch", NULL, "CronJob", "spec/jobTemplate/spec/template/metadata/annotations", true},
};

#define LOCAL_CONFIG "config.kubernetes.io/local-config"

typedef enum { ERA_A, ERA_B, MASTER } profile;

static profile profile_of(const fn_ctx *c)
{
    if (fn_version_before(&c->version, 0, 1, 4))
        return ERA_A;
    return c->version.pinned ? ERA_B : MASTER; /* no release after v0.1.4 */
}

/* One annotated field of one item: the master reports each once. */
typedef struct hit {
    const resource *r;
    const char *field;
    size_t seq; /* the order of recording: ties (items with one path and index) keep it, whatever qsort does */
} hit;

typedef struct hits {
    hit *v;
    size_t n, cap;
} hits;

struct apply {
    arena *a;
    const kvlist *pairs;
    bool create;
    const resource *r;
    const char *field; /* the spec path in kyaml's dotted form */
    hits *seen;        /* NULL: no results wanted */
    size_t first;      /* seen->v[first..] are r's hits: items are visited one after the other */
};

static int set_at(void *ud, node *parent, const char *key)
{
    struct apply *ap = ud;
    set_string_pairs(ap->a, parent, key, ap->pairs, ap->create, true);
    /* kustomize's callback fires for every key it sets, changed or not: a map that is there now was set */
    if (!ap->seen || !is_map(map_get(parent, key)))
        return 0;
    /* a field is reported once per item: only this item's own hits can repeat it (scanning every hit so far made
     * the function quadratic in the items) */
    for (size_t i = ap->first; i < ap->seen->n; i++)
        if (!strcmp(ap->seen->v[i].field, ap->field))
            return 0;
    if (ap->seen->n == ap->seen->cap) {
        size_t cap = ap->seen->cap ? ap->seen->cap * 2 : 16;
        /* the C heap, freed when the run ends: an arena array doubling on every object stayed to the render's peak */
        ap->seen->v = xrealloc(ap->seen->v, cap * sizeof *ap->seen->v);
        ap->seen->cap = cap;
    }
    ap->seen->v[ap->seen->n] = (hit){ap->r, ap->field, ap->seen->n};
    ap->seen->n++;
    return 0;
}

/* "spec/template/metadata/annotations" -> "spec.template.metadata.annotations", as kyaml's FieldPath joins it */
static const char *dotted(arena *a, const char *path)
{
    char *s = arena_strdup(a, path);
    char *w = s;
    for (const char *p = s; *p; p++) {
        if (p[0] == '[' && p[1] == ']') {
            p++;
            continue;
        }
        *w++ = *p == '/' ? '.' : *p;
    }
    *w = 0;
    return s;
}

/* additionalAnnotationFields (or the older fieldSpecs): [{group, version, kind, path, create}] */
static int read_specs(fn_ctx *c, const node *list, const char *what, fieldspec **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!list || is_null(list))
        return 0;
    if (!is_seq(list))
        return fn_fail(c, list, "failed to configure function: %s must be a list of field specs", what);
    *out = arena_alloc(c->a, (node_len(list) + 1) * sizeof **out);
    seq_foreach(list, i, e) {
        if (!is_map(e))
            return fn_fail(c, e, "failed to configure function: a field spec must be a map with group, version, "
                                 "kind, path and create");
        const char *path = path_str(e, "path", NULL);
        if (!path || !*path)
            return fn_fail(c, e, "failed to configure function: a field spec needs a path");
        const char *create = path_str(e, "create", NULL);
        const char *group = path_str(e, "group", NULL);
        (*out)[(*n)++] = (fieldspec){group && *group ? group : NULL, path_str(e, "version", NULL),
                                     path_str(e, "kind", NULL), path, create && !strcmp(create, "true")};
    }
    return 0;
}

/* The catalog's validGVK: apiVersion and kind compared as written. */
static bool is_gvk(const node *config, const char *api_version, const char *kind)
{
    const char *av = path_str(config, "apiVersion", NULL), *k = path_str(config, "kind", NULL);
    return av && k && !strcmp(av, api_version) && !strcmp(k, kind);
}

static int read_config(fn_ctx *c, profile p, kvlist *pairs, fieldspec **specs, size_t *nspecs)
{
    const node *ann = NULL, *extra = NULL;
    const char *extra_name = "additionalAnnotationFields";
    /* kpt hands a step with `configMap: {}` no functionConfig at all: the placeholder we make for it counts as none */
    const node *data = c->config ? map_get(c->config, "data") : NULL;
    bool placeholder = c->config && is_gvk(c->config, "v1", "ConfigMap") &&
                       scalar_is(path_get(c->config, "metadata", "name", NULL), "function-input") &&
                       (!data || is_null(data) || (is_map(data) && node_len(data) == 0));
    const node *cfg = placeholder ? NULL : c->config;
    if (cfg && is_gvk(cfg, "v1", "ConfigMap")) {
        ann = data;
    } else if (cfg && (is_gvk(cfg, "fn.kpt.dev/v1alpha1", "SetAnnotationConfig") ||
                       (p != ERA_A && is_gvk(cfg, "fn.kpt.dev/v1alpha1", "SetAnnotations")))) {
        ann = map_get(c->config, "annotations");
        const node *a1 = map_get(c->config, "additionalAnnotationFields"), *a2 = map_get(c->config, "fieldSpecs");
        if (p == ERA_A && a1)
            /* this release reads fieldSpecs only and would ignore the field without a word (a deviation) */
            return fn_fail(c, a1, "failed to configure function: additionalAnnotationFields arrived in "
                                  "set-annotations v0.1.4; %s reads fieldSpecs", fn_version_str(c->a, &c->version));
        if (a1 && a2)
            return fn_fail(c, a2, "failed to configure function: `fieldSpecs` has been deprecated, please rename it "
                                  "to `additionalAnnotationFields`");
        extra = a1 ? a1 : a2;
        if (!a1)
            extra_name = "fieldSpecs";
    } else if (p == MASTER) { /* as the catalog's empty-list/simple records it */
        return fn_fail_recorded(c, true, c->config,
                                "failed to configure function: `functionConfig` must be a `ConfigMap` or "
                                "`SetAnnotations`");
    } else {
        return fn_fail(c, c->config, "failed to configure function: function config must be a ConfigMap or %s",
                       p == ERA_A ? "SetAnnotationConfig" : "SetAnnotations");
    }
    if (kvlist_from_map(c, ann, "annotations", pairs) < 0)
        return -1;
    /* the catalog's empty-list/advanced records master's result; v0.1.x's is on no record (our line goes) */
    if (pairs->n == 0)
        return fn_fail_recorded(c, p == MASTER, c->config,
                                "failed to configure function: input annotation list cannot be empty");
    return read_specs(c, extra, extra_name, specs, nspecs);
}

/* Go's encoding/json string: quotes, backslashes and control characters escaped, and <, >, & too. */
static void json_string(buf *b, const char *s)
{
    buf_put(b, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': buf_put(b, "\\\"", 2); break;
        case '\\': buf_put(b, "\\\\", 2); break;
        case '\n': buf_put(b, "\\n", 2); break;
        case '\r': buf_put(b, "\\r", 2); break;
        case '\t': buf_put(b, "\\t", 2); break;
        default:
            if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&') {
                char e[8];
                snprintf(e, sizeof e, "\\u%04x", *p);
                buf_put(b, e, 6);
            } else if (p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9)) {
                buf_put(b, p[2] == 0xa8 ? "\\u2028" : "\\u2029", 6);
                p += 2;
            } else {
                buf_put(b, (const char *)p, 1);
            }
        }
    }
    buf_put(b, "\"", 1);
}

static int hit_cmp(const void *x, const void *y)
{
    const hit *a = x, *b = y;
    int c = strcmp(a->r->path ? a->r->path : "", b->r->path ? b->r->path : "");
    if (c)
        return c;
    if (a->r->index != b->r->index)
        return a->r->index < b->r->index ? -1 : 1;
    c = strcmp(a->field, b->field);
    if (c)
        return c;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The master's results: the annotations as JSON (keys sorted, as Go marshals a map), per item and field. */
static void report(fn_ctx *c, hits *seen, const kvlist *pairs)
{
    if (!seen->n) {
        fn_result_add(c, SEV_NONE, NULL, NULL, "no annotations applied");
        return;
    }
    buf b = {0};
    buf_put(&b, "{", 1);
    for (size_t i = 0; i < pairs->n; i++) { /* kvlist is sorted by key */
        if (i)
            buf_put(&b, ",", 1);
        json_string(&b, pairs->v[i].key);
        buf_put(&b, ":", 1);
        json_string(&b, pairs->v[i].value);
    }
    buf_put(&b, "}", 1);
    /* one message for every hit (formatting it per hit was a tenth of the function's work); fields are the run's
     * own dotted texts, in its arena */
    char *msg = arena_printf(c->a, "set annotations: %.*s", (int)b.len, b.data);
    if (strlen(msg) > 1023)
        msg[1023] = 0; /* as fn_result_add cuts a message */
    buf_free(&b);
    /* the hits come in the items' order, most often the sorted one already */
    bool sorted = true;
    for (size_t i = 1; i < seen->n && sorted; i++)
        sorted = hit_cmp(&seen->v[i - 1], &seen->v[i]) <= 0;
    if (!sorted)
        qsort(seen->v, seen->n, sizeof *seen->v, hit_cmp);
    for (size_t i = 0; i < seen->n; i++)
        fn_result_add_text(c, SEV_NONE, seen->v[i].r, seen->v[i].field, msg);
}

static int run(fn_ctx *c)
{
    profile p = profile_of(c);
    kvlist pairs;
    fieldspec *specs = NULL;
    size_t nspecs = 0;
    if (read_config(c, p, &pairs, &specs, &nspecs) < 0)
        return -1;
    kvlist_share_values(c->a, &pairs); /* one value node for every object an annotation goes on */
    hits seen = {0};
    /* the hits are for the results alone: none when nobody reads them */
    struct apply ap = {c->a, &pairs, true, NULL, NULL, p == MASTER && fn_results_read(c) ? &seen : NULL, 0};
    /* the dotted names once per run, not once per item */
    size_t nbuiltin = sizeof annotation_specs / sizeof *annotation_specs;
    const char **spec_field = arena_alloc(c->a, (nspecs + 1) * sizeof *spec_field);
    const char *builtin_field[sizeof annotation_specs / sizeof *annotation_specs];
    for (size_t s = 0; s < nspecs; s++)
        spec_field[s] = dotted(c->a, specs[s].path);
    for (size_t s = 0; s < nbuiltin; s++)
        builtin_field[s] = dotted(c->a, annotation_specs[s].path);
    for (size_t i = 0; i < c->items->n; i++) {
        resource *r = c->items->v[i];
        if (!r)
            continue;
        if (p == ERA_A && res_annotation(r, LOCAL_CONFIG)) {
            c->items->v[i] = NULL; /* this release's kustomize dropped them, whatever the value */
            continue;
        }
        ap.r = r;
        ap.first = seen.n;
        fieldspec_gvk g = fieldspec_gvk_of(r);
        for (size_t s = 0; s < nspecs; s++) {
            if (!fieldspec_applies_gvk(&specs[s], &g))
                continue;
            ap.create = specs[s].create;
            ap.field = spec_field[s];
            fieldspec_visit(c->a, r->root, specs[s].path, specs[s].create, set_at, &ap);
        }
        ap.create = true;
        for (size_t s = 0; s < nbuiltin; s++) {
            if (!fieldspec_applies_gvk(&annotation_specs[s], &g))
                continue;
            ap.field = builtin_field[s];
            fieldspec_visit(c->a, r->root, annotation_specs[s].path, true, set_at, &ap);
        }
    }
    if (ap.seen)
        report(c, &seen, &pairs);
    xfree(seen.v);
    return 0; /* the kustomize-based releases report nothing on success */
}

const fn_def fn_set_annotations = {
    .name = "set-annotations",
    .summary = "add or overwrite annotations on metadata and pod templates, plus extra field specs",
    .run = run,
    .shares_values = true, /* its edits go through the setters */
    .releases = "0.1.0 0.1.1 0.1.2 0.1.3 0.1.4",
    .readme = {
        .does = "annotations on metadata and pod templates, plus extra field specs",
        .differs = "≤v0.1.3: `additionalAnnotationFields` is an error (those releases ignored it without a word); "
                "objects with the same id are not an error (the catalog's kustomize ResMap refuses them)",
        .versions = "set-annotation v0.1.0–v0.1.2, set-annotations v0.1.3: commonAnnotations, ConfigMap or "
                "`SetAnnotationConfig` (`fieldSpecs`), every object with a local-config annotation (any value) "
                "dropped · v0.1.4: local-config objects and the Kptfile annotated, `SetAnnotations` with "
                "`additionalAnnotationFields` (the old names accepted, not both lists), no results · `latest`, "
                "`unstable`: the same, plus one result `set annotations: {json}` per file, index and field (or `no "
                "annotations applied`)",
    },
};
