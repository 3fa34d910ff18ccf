/* set-image: retags or renames container images (catalog set-image).
 *
 * Config: ConfigMap data {name, newName, newTag, digest} (any other key is an error), or fn.kpt.dev SetImage
 * {image: {name, newName, newTag, digest}, additionalImageFields: [field specs]}. `name` is required, plus at least
 * one of the others; newTag and digest together are an error, as the catalog README says. Errors fail the step.
 *
 * Deviations from the catalog code, each on purpose (it is what the README and kustomize describe):
 *  - containers and initContainers (the catalog misspells it and never updates init containers), in Pod (spec),
 *    Deployment, StatefulSet, ReplicaSet, DaemonSet, Job, ReplicationController (spec.template.spec), CronJob
 *    (spec.jobTemplate.spec.template.spec) and PodTemplate (template.spec; the catalog looks under spec.template).
 *  - With newName only, the old ":tag" and "@digest" are kept as they were (the catalog drops the colon or the @).
 *    newTag replaces the tag and any digest; digest replaces the digest and any tag.
 *  - `name` matches literally: the image is name, then an optional ":tag" ([A-Za-z0-9_.{}-]*), then an optional
 *    "@algorithm:digest". The catalog pastes name into a regex unescaped, so "." matches any character.
 *  - additionalImageFields never create a field (an image that is not there cannot match a name).
 * Images that already have the wanted value are not counted. Result: "summary: updated a total of N image(s)". */
#include <string.h>

#include "functions/fieldspec.h"

typedef struct image_spec {
    const char *name, *new_name, *new_tag, *digest;
} image_spec;

typedef struct set_image {
    arena *a;
    image_spec img;
    int count;
} set_image;

static bool tag_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' ||
           ch == '{' || ch == '}' || ch == '-';
}

static bool algo_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' ||
           ch == '+' || ch == '-';
}

/* Does value name this image? On a match, *tag and *digest point into value: ":tag" and "@digest" including their
 * separators, or "" when absent. */
static bool image_matches(const char *value, const char *name, const char **tag, size_t *tag_len, const char **digest)
{
    size_t n = strlen(name);
    if (strncmp(value, name, n))
        return false;
    const char *p = value + n;
    *tag = p;
    *tag_len = 0;
    if (*p == ':') {
        const char *q = p + 1;
        while (tag_char(*q))
            q++;
        *tag_len = (size_t)(q - p);
        p = q;
    }
    *digest = p;
    if (!*p)
        return true;
    if (*p != '@')
        return false;
    const char *q = p + 1, *algo = q;
    while (algo_char(*q))
        q++;
    if (q == algo || *q != ':')
        return false;
    q++;
    while (tag_char(*q) || *q == '=')
        q++;
    return *q == 0;
}

static const char *new_image(arena *a, const char *old, const image_spec *img)
{
    const char *tag, *digest;
    size_t tag_len;
    if (!image_matches(old, img->name, &tag, &tag_len, &digest))
        return NULL;
    const char *name = *img->new_name ? img->new_name : img->name;
    if (*img->new_tag)
        return arena_printf(a, "%s:%s", name, img->new_tag);
    if (*img->digest)
        return arena_printf(a, "%s@%s", name, img->digest);
    return arena_printf(a, "%s%.*s%s", name, (int)tag_len, tag, digest);
}

static void update_field(set_image *s, node *parent, const char *key)
{
    node *v = map_get(parent, key);
    if (!is_scalar(v) || is_null(v))
        return;
    const char *nv = new_image(s->a, scalar(v), &s->img);
    if (!nv || !strcmp(nv, scalar(v)))
        return;
    map_set_str(s->a, parent, key, nv);
    s->count++;
}

static void update_pod_spec(set_image *s, node *pod_spec)
{
    static const char *const lists[] = {"initContainers", "containers"};
    if (!is_map(pod_spec))
        return;
    for (size_t l = 0; l < 2; l++) {
        node *seq = map_get(pod_spec, lists[l]);
        if (!is_seq(seq))
            continue;
        for (uint32_t i = 0; i < node_len(seq); i++)
            if (is_map(seq_item(seq, i)))
                update_field(s, seq_item(seq, i), "image");
    }
}

static int set_at(void *ud, node *parent, const char *key)
{
    update_field(ud, parent, key);
    return 0;
}

/* Reads one of the four image keys; anything but a scalar fails. */
static int image_key(fn_ctx *c, const node *k, const node *v, image_spec *img, bool *known)
{
    const char *key = scalar(k);
    const char **slot = !strcmp(key, "name")      ? &img->name
                        : !strcmp(key, "newName") ? &img->new_name
                        : !strcmp(key, "newTag")  ? &img->new_tag
                        : !strcmp(key, "digest")  ? &img->digest
                                                  : NULL;
    *known = slot != NULL;
    if (!slot)
        return 0;
    if (!is_scalar(v))
        return fn_fail(c, v, "set-image: `%s` must be a string", key);
    *slot = is_null(v) ? "" : scalar(v);
    return 0;
}

static int read_specs(fn_ctx *c, const node *list, fieldspec **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!list || is_null(list))
        return 0;
    if (!is_seq(list))
        return fn_fail(c, list, "set-image: additionalImageFields must be a list of field specs");
    *out = arena_alloc(c->a, (node_len(list) + 1) * sizeof **out);
    for (uint32_t i = 0; i < node_len(list); i++) {
        const node *e = seq_item(list, i);
        if (!is_map(e))
            return fn_fail(c, e, "set-image: a field spec must be a map with group, version, kind, path and create");
        const char *path = path_str(e, "path", NULL);
        if (!path || !*path)
            return fn_fail(c, e, "set-image: a field spec needs a path");
        const char *group = path_str(e, "group", NULL);
        (*out)[(*n)++] = (fieldspec){group && *group ? group : NULL, path_str(e, "version", NULL),
                                     path_str(e, "kind", NULL), path, false};
    }
    return 0;
}

static int read_config(fn_ctx *c, image_spec *img, fieldspec **specs, size_t *nspecs)
{
    *img = (image_spec){"", "", "", ""};
    const node *cfg = c->config;
    if (!cfg)
        return fn_fail(c, NULL,
                       "set-image needs a functionConfig: a ConfigMap with data.name and newName, newTag or "
                       "digest, or a SetImage (fn.kpt.dev/v1alpha1)");
    const node *map;
    if (config_is(cfg, "ConfigMap", "")) {
        map = map_get(cfg, "data");
        if (map && !is_null(map) && !is_map(map))
            return fn_fail(c, map, "set-image: the ConfigMap's data must be a map of strings");
        for (uint32_t i = 0; is_map(map) && i < node_len(map); i++) {
            bool known;
            if (image_key(c, map_key(map, i), map_val(map, i), img, &known) < 0)
                return -1;
            if (!known)
                return fn_fail(c, map_key(map, i), "ConfigMap has wrong field name %s", scalar(map_key(map, i)));
        }
    } else if (config_is(cfg, "SetImage", "fn.kpt.dev")) {
        map = map_get(cfg, "image");
        if (map && !is_null(map) && !is_map(map))
            return fn_fail(c, map, "set-image: `image` must be a map with name, newName, newTag and digest");
        for (uint32_t i = 0; is_map(map) && i < node_len(map); i++) {
            bool known;
            if (image_key(c, map_key(map, i), map_val(map, i), img, &known) < 0)
                return -1;
            if (!known)
                return fn_fail(c, map_key(map, i),
                               "set-image: unknown field `image.%s` (expect name, newName, newTag, digest)",
                               scalar(map_key(map, i)));
        }
        if (read_specs(c, map_get(cfg, "additionalImageFields"), specs, nspecs) < 0)
            return -1;
    } else {
        const char *k = path_str(cfg, "kind", NULL), *av = path_str(cfg, "apiVersion", NULL);
        return fn_fail(
            c, cfg,
            "unknown functionConfig Kind=%s ApiVersion=%s, expect `ConfigMap.v1` or `SetImage.v1alpha1.fn.kpt.dev`",
            k ? k : "", av ? av : "");
    }
    if (!*img->name)
        return fn_fail(c, cfg, "`name` field is missing from image selector");
    if (!*img->new_name && !*img->new_tag && !*img->digest)
        return fn_fail(c, cfg, "must specify one of `newName`, `newTag`, or `digest`");
    if (*img->new_tag && *img->digest)
        return fn_fail(c, cfg, "image `newTag` and `digest` both set, set only one");
    return 0;
}

static node *pod_spec_of(const resource *r)
{
    const char *kind = res_kind(r);
    if (!kind)
        return NULL;
    if (!strcmp(kind, "Pod"))
        return path_get(r->root, "spec", NULL);
    static const char *const templated[] = {"Deployment", "StatefulSet",           "ReplicaSet", "DaemonSet",
                                            "Job",        "ReplicationController", NULL};
    for (const char *const *k = templated; *k; k++)
        if (!strcmp(kind, *k))
            return path_get(r->root, "spec", "template", "spec", NULL);
    if (!strcmp(kind, "CronJob"))
        return path_get(r->root, "spec", "jobTemplate", "spec", "template", "spec", NULL);
    if (!strcmp(kind, "PodTemplate"))
        return path_get(r->root, "template", "spec", NULL);
    return NULL;
}

static int run(fn_ctx *c)
{
    set_image s = {.a = c->a};
    fieldspec *specs = NULL;
    size_t nspecs = 0;
    if (read_config(c, &s.img, &specs, &nspecs) < 0)
        return -1;
    for (size_t i = 0; i < c->items->n; i++) {
        resource *r = c->items->v[i];
        if (!r)
            continue;
        update_pod_spec(&s, pod_spec_of(r));
        for (size_t k = 0; k < nspecs; k++)
            if (fieldspec_applies(&specs[k], r))
                fieldspec_visit(c->a, r->root, specs[k].path, false, set_at, &s);
    }
    fn_result_add(c, SEV_INFO, NULL, NULL, "summary: updated a total of %d image(s)", s.count);
    return 0;
}

const fn_def fn_set_image = {
    "set-image",
    "retag or rename container images (containers and initContainers, plus extra field specs)",
    run,
};
