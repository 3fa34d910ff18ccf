/* set-annotations: annotations on metadata and pod templates, plus extra field specs (catalog set-annotations). */
#include <string.h>

#include "functions/fieldspec.h"

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

struct apply {
    arena *a;
    const kvlist *pairs;
    bool create;
    int changed;
};

static int set_at(void *ud, node *parent, const char *key)
{
    struct apply *ap = ud;
    ap->changed += set_string_pairs(ap->a, parent, key, ap->pairs, ap->create, true);
    return 0;
}

/* additionalAnnotationFields (or the older fieldSpecs): [{group, version, kind, path, create}] */
static int read_specs(fn_ctx *c, const node *list, fieldspec **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!list || is_null(list))
        return 0;
    if (!is_seq(list))
        return fn_fail(c, list, "additionalAnnotationFields must be a list of field specs");
    *out = arena_alloc(c->a, (node_len(list) + 1) * sizeof **out);
    for (uint32_t i = 0; i < node_len(list); i++) {
        const node *e = seq_item(list, i);
        if (!is_map(e))
            return fn_fail(c, e, "a field spec must be a map with group, version, kind, path and create");
        const char *path = path_str(e, "path", NULL);
        if (!path || !*path)
            return fn_fail(c, e, "a field spec needs a path");
        const char *create = path_str(e, "create", NULL);
        const char *group = path_str(e, "group", NULL);
        (*out)[(*n)++] = (fieldspec){group && *group ? group : NULL, path_str(e, "version", NULL),
                                     path_str(e, "kind", NULL), path, create && !strcmp(create, "true")};
    }
    return 0;
}

static int run(fn_ctx *c)
{
    const node *ann = NULL, *extra = NULL;
    if (!c->config)
        return fn_fail(c, NULL, "`functionConfig` must be a `ConfigMap` or `SetAnnotations`");
    if (config_is(c->config, "ConfigMap", "")) {
        ann = map_get(c->config, "data");
    } else if (config_is(c->config, "SetAnnotations", "fn.kpt.dev") ||
               config_is(c->config, "SetAnnotationConfig", "fn.kpt.dev")) {
        ann = map_get(c->config, "annotations");
        const node *a1 = map_get(c->config, "additionalAnnotationFields"), *a2 = map_get(c->config, "fieldSpecs");
        if (a1 && a2)
            return fn_fail(c, a2, "give additionalAnnotationFields or fieldSpecs, not both");
        extra = a1 ? a1 : a2;
    } else {
        return fn_fail(c, c->config, "`functionConfig` must be a `ConfigMap` or `SetAnnotations`");
    }
    kvlist pairs;
    if (kvlist_from_map(c, ann, "annotations", &pairs) < 0)
        return -1;
    if (pairs.n == 0)
        return fn_fail(c, c->config, "input annotation list cannot be empty");
    fieldspec *specs;
    size_t nspecs;
    if (read_specs(c, extra, &specs, &nspecs) < 0)
        return -1;
    struct apply ap = {c->a, &pairs, true, 0};
    for (size_t i = 0; i < c->items->n; i++) {
        resource *r = c->items->v[i];
        if (!r)
            continue;
        for (size_t s = 0; s < sizeof annotation_specs / sizeof *annotation_specs; s++)
            if (fieldspec_applies(&annotation_specs[s], r))
                fieldspec_visit(c->a, r->root, annotation_specs[s].path, true, set_at, &ap);
        for (size_t s = 0; s < nspecs; s++) {
            if (!fieldspec_applies(&specs[s], r))
                continue;
            ap.create = specs[s].create;
            fieldspec_visit(c->a, r->root, specs[s].path, specs[s].create, set_at, &ap);
            ap.create = true;
        }
    }
    if (ap.changed)
        fn_result_add(c, SEV_INFO, NULL, NULL, "set %d annotation values", ap.changed);
    else
        fn_result_add(c, SEV_INFO, NULL, NULL, "no annotations applied");
    return 0;
}

const fn_def fn_set_annotations = {
    "set-annotations",
    "add or overwrite annotations on metadata and pod templates, plus extra field specs",
    run,
};
