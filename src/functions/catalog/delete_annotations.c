/* delete-annotations: removes the given keys from every object's metadata.annotations (catalog delete-annotations,
 * a contrib function the kptdev catalog now curates). Config: data.annotationKeys, a comma-separated list, in a
 * ConfigMap (Kptfile configMap, `eval -- annotationKeys=...`) or any object with that data, as the catalog reads
 * it; other data keys are errors.
 *
 * Results as the catalog: "The provided annotations were deleted from N resource(s)", then one
 * "Annonation: [key] removed from resource: [name]" per removal (the catalog's spelling), or
 * "None of the resources had the provided annotations to delete". Deviations, none of which change what a
 * valid key list does:
 *   - each key is trimmed and empty ones are skipped ("a, b" deletes b; the catalog looks for " b", which no
 *     annotation key can be);
 *   - N counts the objects that lost an annotation (the catalog counts changes of name between removals);
 *   - objects named only by generateName (hooks) are processed; the catalog skips objects without a name.
 * An emptied annotations map stays as {}, as the catalog leaves it. */
#include <string.h>

#include "functions/function.h"

static int read_keys(fn_ctx *c, const char ***keys, size_t *n)
{
    const char *usage = "delete-annotations needs data.annotationKeys: a comma-separated list of annotation keys";
    if (!c->config)
        return fn_fail(c, NULL, "%s", usage);
    const node *data = map_get(c->config, "data");
    if (data && !is_null(data) && !is_map(data))
        return fn_fail(c, data, "%s (data is not a map)", usage);
    map_foreach(data, i, k, val)
        if (!scalar_is(k, "annotationKeys"))
            return fn_fail_key(c, data, i, "unknown key `%s` in data (expected annotationKeys)",
                           scalar(k) ? scalar(k) : "?");
    const node *v = map_get(data, "annotationKeys");
    if (v && !is_scalar(v))
        return fn_fail(c, v, "annotationKeys must be a string of comma-separated keys");
    const char *s = v && !is_null(v) ? scalar(v) : NULL;
    if (!s || !*s)
        return fn_fail(c, v ? v : c->config, "%s", usage);
    size_t max = 1;
    for (const char *p = s; *p; p++)
        max += *p == ',';
    *keys = arena_alloc(c->a, max * sizeof **keys);
    *n = 0;
    for (const char *p = s;;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        const char *b = p, *t = p + len;
        while (b < t && (*b == ' ' || *b == '\t'))
            b++;
        while (t > b && (t[-1] == ' ' || t[-1] == '\t'))
            t--;
        if (t > b)
            (*keys)[(*n)++] = arena_strndup(c->a, b, (size_t)(t - b));
        if (!e)
            break;
        p = e + 1;
    }
    if (!*n)
        return fn_fail(c, v, "%s (\"%s\" names none)", usage, s);
    return 0;
}

static int run(fn_ctx *c)
{
    const char **keys;
    size_t nkeys;
    if (read_keys(c, &keys, &nkeys) < 0)
        return -1;
    size_t first = c->results ? c->results->n : 0;
    int objects = 0;
    for (size_t i = 0; i < c->items->n; i++) {
        resource *r = c->items->v[i];
        if (!r)
            continue;
        node *ann = path_get(r->root, "metadata", "annotations", NULL);
        if (!is_map(ann))
            continue;
        const char *name = res_name(r);
        if (!name)
            name = path_str(r->root, "metadata", "generateName", NULL);
        bool any = false;
        for (size_t k = 0; k < nkeys; k++) {
            if (!map_delete(ann, keys[k]))
                continue;
            any = true;
            fn_result_add(c, SEV_INFO, r, NULL, "Annonation: [%s] removed from resource: [%s]", keys[k],
                          name ? name : "");
        }
        objects += any;
    }
    if (!objects) {
        fn_result_add(c, SEV_INFO, NULL, NULL, "None of the resources had the provided annotations to delete");
        return 0;
    }
    /* the summary comes first, as the catalog lists it */
    fn_result_add(c, SEV_INFO, NULL, NULL, "The provided annotations were deleted from %d resource(s)", objects);
    if (c->results) {
        fn_results *rs = c->results;
        fn_result sum = rs->v[rs->n - 1];
        memmove(rs->v + first + 1, rs->v + first, (rs->n - 1 - first) * sizeof *rs->v);
        rs->v[first] = sum;
    }
    return 0;
}

const fn_def fn_delete_annotations = {
    .name = "delete-annotations",
    .summary = "delete the given annotation keys from every object's metadata",
    .run = run,
    .readme = {
        .does = "deletes the keys listed in `annotationKeys` (comma-separated) from every object's "
                "`metadata.annotations`",
        .differs = "keys are trimmed and empty ones skipped; objects named only by `generateName` are processed; other "
                "config keys are errors",
        .versions = "one behaviour for every tag",
    },
};
