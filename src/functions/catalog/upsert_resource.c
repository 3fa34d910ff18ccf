/* upsert-resource: the functionConfig is the object to put in the package (or a v1 List of them). Each one
 * replaces every object with the same group, kind, name and namespace, or is added when there is none
 * (catalog upsert-resource).
 *
 * Deviations from the catalog:
 *   - releases before v0.2.0 compared the config's group with itself, so a Service in another API group was
 *     replaced too; the group is compared here for every release (that bug silently replaced the wrong object).
 *   - target-path is compared with the object's path relative to the package running the step; kpt hands the
 *     catalog function paths relative to each object's own package, so "service.yaml" would also match a
 *     subpackage's service.yaml.
 *   - a new object whose file already holds objects gets the next free index there rather than index 0.
 *   - an object without apiVersion, kind or metadata.name, and a path that leaves the package, are errors here
 *     (kpt rejects both after the function has run); "." and empty segments are dropped from target-path.
 *
 * Two behaviours, by the release a step pins: v0.1.0 upserts the config object itself (a List would be inserted as
 * one object and target-path copied into it as a plain annotation, so both are errors here, not silent surprises);
 * v0.2.0 onwards (unchanged through `latest`) unwraps a v1 List and places and matches by target-path. */
#include <string.h>

#include "functions/function.h"

#define TARGET_PATH "config.kubernetes.io/target-path"

/* Annotations that say where an object sits or which function it configures: never copied from the config. */
static const char *const placement_annotations[] = {
    "config.kubernetes.io/path",
    "config.kubernetes.io/index",
    "internal.config.kubernetes.io/path",
    "internal.config.kubernetes.io/index",
    NULL,
};
static const char *const function_annotations[] = {"config.kubernetes.io/function", "config.k8s.io/function", NULL};

static const char *str_or_empty(const char *s)
{
    return s ? s : "";
}

static size_t group_len(const char *api_version)
{
    const char *slash = api_version ? strrchr(api_version, '/') : NULL;
    return slash ? (size_t)(slash - api_version) : 0;
}

static bool same_group(const char *av1, const char *av2)
{
    size_t n1 = group_len(av1), n2 = group_len(av2);
    return n1 == n2 && (!n1 || !memcmp(av1, av2, n1));
}

/* Objects that configure a kpt v0 function are left alone, as the catalog does. */
static bool is_function_config(const resource *r)
{
    for (const char *const *k = function_annotations; *k; k++) {
        const char *v = res_annotation(r, *k);
        if (v && *v)
            return true;
    }
    return false;
}

/* The item's path as seen from the package running the step (items of subpackages carry their own). */
static const char *path_from_step(fn_ctx *c, const resource *r)
{
    if (!r->path || !c->pkg || !r->pkg || r->pkg == c->pkg || !r->pkg->rel)
        return r->path;
    const char *base = c->pkg->rel ? c->pkg->rel : "";
    size_t bl = strlen(base);
    const char *rel = r->pkg->rel;
    if (!bl)
        return *rel ? arena_printf(c->a, "%s/%s", rel, r->path) : r->path;
    if (!strncmp(rel, base, bl) && rel[bl] == '/')
        return arena_printf(c->a, "%s/%s", rel + bl + 1, r->path);
    return r->path;
}

/* A copy of the config object without the annotations that only steer this function or kpt. */
static node *clean_copy(fn_ctx *c, const node *obj)
{
    node *copy = node_clone(c->a, obj);
    node *meta = map_get(copy, "metadata");
    node *ann = map_get(meta, "annotations");
    if (!is_map(ann))
        return copy;
    map_delete(ann, TARGET_PATH);
    for (const char *const *k = function_annotations; *k; k++)
        map_delete(ann, *k);
    for (const char *const *k = placement_annotations; *k; k++)
        map_delete(ann, *k);
    if (node_len(ann) == 0)
        map_delete(meta, "annotations");
    return copy;
}

/* The target's own placement annotations (present when items come through a ResourceList) go to the copy. */
static void keep_placement(fn_ctx *c, const resource *target, node *copy)
{
    const node *old = path_get(target->root, "metadata", "annotations", NULL);
    for (const char *const *k = placement_annotations; *k; k++) {
        const char *v = scalar(map_get(old, *k));
        if (!v)
            continue;
        node *ann = map_ensure_map(c->a, map_ensure_map(c->a, copy, "metadata"), "annotations");
        if (ann)
            map_set_str(c->a, ann, *k, v);
    }
}

/* kyaml's default file for an object without a path: <namespace>/<lowercase kind>_<name>.yaml. */
static const char *default_path(fn_ctx *c, const char *ns, const char *kind, const char *name)
{
    char *lower = arena_strdup(c->a, kind);
    for (char *p = lower; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    return *ns ? arena_printf(c->a, "%s/%s_%s.yaml", ns, lower, name) : arena_printf(c->a, "%s_%s.yaml", lower, name);
}

/* The path cleaned of "." and empty segments, or NULL when it is absolute or climbs out with "..". */
static const char *clean_path(arena *a, const char *p)
{
    if (!p || *p == '/')
        return NULL;
    char *out = arena_alloc(a, strlen(p) + 1);
    size_t n = 0;
    for (const char *s = p; *s;) {
        const char *e = strchr(s, '/');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len == 2 && s[0] == '.' && s[1] == '.')
            return NULL;
        if (len && !(len == 1 && s[0] == '.')) {
            if (n)
                out[n++] = '/';
            memcpy(out + n, s, len);
            n += len;
        }
        s += len;
        if (*s == '/')
            s++;
    }
    out[n] = 0;
    return n ? out : NULL;
}

static uint32_t next_index(fn_ctx *c, const char *path)
{
    uint32_t next = 0;
    for (size_t i = 0; i < c->items->n; i++) {
        const resource *r = c->items->v[i];
        if (r && r->pkg == c->pkg && r->path && !strcmp(r->path, path) && r->index + 1 > next)
            next = r->index + 1;
    }
    return next;
}

static int check_object(fn_ctx *c, const node *obj, const char *what)
{
    if (!is_map(obj))
        return fn_fail(c, obj, "%s must be a Kubernetes object (a map with apiVersion, kind and metadata.name)", what);
    static const char *const need[][2] = {{"apiVersion", NULL}, {"kind", NULL}, {"metadata", "name"}};
    for (size_t i = 0; i < sizeof need / sizeof *need; i++) {
        const char *v = path_str(obj, need[i][0], need[i][1], NULL);
        if (i == 2 && (!v || !*v)) /* a hook written with generateName only: inserted, never matched */
            v = path_str(obj, "metadata", "generateName", NULL);
        if (!v || !*v)
            return fn_fail(c, obj, "%s must have %s%s%s set to a string", what, need[i][0], need[i][1] ? "." : "",
                           need[i][1] ? need[i][1] : "");
    }
    const node *meta = map_get(obj, "metadata"), *ns = map_get(meta, "namespace"), *ann = map_get(meta, "annotations");
    if (ns && !is_null(ns) && !is_scalar(ns))
        return fn_fail(c, ns, "%s: metadata.namespace must be a string", what);
    if (ann && !is_null(ann) && !is_map(ann))
        return fn_fail(c, ann, "%s: metadata.annotations must be a map", what);
    const node *tp = map_get(ann, TARGET_PATH);
    if (tp && !is_scalar(tp))
        return fn_fail(c, tp, "%s: %s must be a string", what, TARGET_PATH);
    return 0;
}

static int bad_path(fn_ctx *c, const node *obj, const char *kind, const char *name, const char *path)
{
    return fn_fail(c, obj, "cannot put %s \"%s\" at \"%s\": the path must be relative and stay inside the package",
                   kind, name, path);
}

static int upsert_one(fn_ctx *c, const node *obj)
{
    const char *av = path_str(obj, "apiVersion", NULL), *kind = path_str(obj, "kind", NULL);
    const char *name = path_str(obj, "metadata", "name", NULL);
    /* Kubernetes names a generateName-only object at creation, so no item is "the same object": always added */
    bool generated = !name || !*name;
    if (generated)
        name = path_str(obj, "metadata", "generateName", NULL);
    const char *ns = str_or_empty(path_str(obj, "metadata", "namespace", NULL));
    const char *target = path_str(obj, "metadata", "annotations", TARGET_PATH, NULL);
    if (target && !*target)
        target = NULL;
    /* a target outside the package can match nothing and could only be written outside it */
    const char *where = target;
    if (target && !(target = clean_path(c->a, where)))
        return bad_path(c, obj, kind, name, where);
    bool replaced = false;
    for (size_t i = 0; i < c->items->n; i++) {
        resource *r = c->items->v[i];
        if (generated || !r || !is_map(r->root) || is_function_config(r))
            continue;
        if (!same_group(av, res_api_version(r)) || strcmp(kind, str_or_empty(res_kind(r))) ||
            strcmp(name, str_or_empty(res_name(r))) || strcmp(ns, str_or_empty(res_namespace(r))))
            continue;
        if (target && strcmp(target, str_or_empty(path_from_step(c, r))))
            continue;
        /* every match is replaced, as the catalog does; the item keeps its file and position */
        node *copy = clean_copy(c, obj);
        keep_placement(c, r, copy);
        r->root = copy;
        replaced = true;
    }
    if (replaced)
        return 0;
    where = target ? target : default_path(c, ns, kind, name);
    const char *path = clean_path(c->a, where);
    if (!path)
        return bad_path(c, obj, kind, name, where);
    uint32_t index = next_index(c, path);
    resource *added = fn_new_resource(c, clean_copy(c, obj), path);
    added->index = index;
    return 0;
}

static int run(fn_ctx *c)
{
    if (!c->config)
        return fn_fail(c, NULL, "upsert-resource needs a functionConfig: the object to upsert, or a v1 List of them");
    if (!is_map(c->config))
        return fn_fail(c, c->config, "the functionConfig must be the object to upsert, or a v1 List of them");
    if (fn_version_before(&c->version, 0, 2, 0)) {
        if (config_is(c->config, "List", ""))
            return fn_fail(c, c->config, "upsert-resource %s upserts the functionConfig itself, so this List would "
                                         "become one object; a v1 List of objects needs v0.2.0 or later",
                           fn_version_str(c->a, &c->version));
        if (path_get(c->config, "metadata", "annotations", TARGET_PATH, NULL))
            return fn_fail(c, c->config, "upsert-resource %s does not read %s (it would be copied into the object "
                                         "as a plain annotation); it needs v0.2.0 or later",
                           fn_version_str(c->a, &c->version), TARGET_PATH);
    }
    if (!config_is(c->config, "List", ""))
        return check_object(c, c->config, "the functionConfig") < 0 ? -1 : upsert_one(c, c->config);
    const node *items = map_get(c->config, "items");
    if (!items || is_null(items))
        return 0;
    if (!is_seq(items))
        return fn_fail(c, items, "the List's items must be a list of objects");
    /* check them all first, so a bad entry leaves the package untouched */
    seq_foreach(items, i, elem)
        if (check_object(c, elem, arena_printf(c->a, "List item %u", i + 1)) < 0)
            return -1;
    seq_foreach(items, i, elem)
        if (upsert_one(c, elem) < 0)
            return -1;
    return 0;
}

const fn_def fn_upsert_resource = {
    .name = "upsert-resource",
    .summary = "replace the objects that match the config object (or each item of a List), or add it",
    .run = run,
    .releases = "0.1.0 0.2.0",
    .readme = {
        .does = "replace or insert the config object(s)",
        .differs = "the API group is compared in every release (before v0.2.0 the catalog compared the config with "
                "itself and replaced an object of any group); a new object in an existing file takes the next index; "
                "an object with only `generateName` (a hook) is always inserted",
        .versions = "v0.1.0: the config itself is the one object; a `List` config or a `target-path` annotation is an "
                "error (that release would insert the List as one object and copy `target-path` in as a plain "
                "annotation) · ≥v0.2.0, `latest`: a `v1 List` of objects, `config.kubernetes.io/target-path` places "
                "and matches",
    },
};
