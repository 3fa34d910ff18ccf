/* set-image: retags or renames container images (catalog set-image), as the release the step pins did it.
 *
 * Config: ConfigMap data {name, newName, newTag, digest} (any other key is an error), or fn.kpt.dev SetImage
 * {image: {name, newName, newTag, digest}, additionalImageFields: [field specs]}. `name` is required, plus at least
 * one of the others. Errors fail the step.
 *
 * Two profiles (catalog-function-versions, set-image):
 *  - v0.1.0-v0.1.1 (kustomize's imagetag filter on its default image fields): `spec.containers`,
 *    `spec.initContainers`, `spec.template.spec.containers` and `spec.template.spec.initContainers` images on any
 *    kind but a CRD (so Job yes, CronJob no), after the additionalImageFields. newTag with digest is an error. One
 *    result per matching field, `set image from A to B`, or `no images changed`.
 *  - newest (latest, unstable, no tag, unknown tags; the 2026 catalog, kustomize's filter on explicit specs): v1 Pod
 *    spec.containers/initContainers and apps/v1 Deployment, StatefulSet, ReplicaSet, DaemonSet
 *    spec.template.spec.containers/initContainers only; additionalImageFields in a second pass. newTag with digest
 *    gives name:tag@digest. One result, `summary: updated a total of N image(s)`, counting every matching field,
 *    unchanged ones too (kustomize's mutation tracker fires on every set). gcr's `unstable` (the 2022-25 master,
 *    whose kind list skipped init containers and dropped the colon with newName alone) changes the objects as
 *    latest does, since those bugs wrote wrong images; only its results are its own, as the catalog's tests record
 *    them: the summary counts changed fields only, and a missing key gives the SDK's two error results.
 *
 * Both profiles: newName alone keeps ":tag" and "@digest"; newTag replaces the tag and any digest, digest the digest
 * and any tag. Deviations, each fixing what would silently give wrong objects:
 *  - `name` matches literally: the image is name, then an optional ":tag" ([A-Za-z0-9_.{}-]*), then an optional
 *    "@algorithm:digest". The catalog pastes name into a regex unescaped, so "." matches any character.
 *  - additionalImageFields never create a field (an image that is not there cannot match a name).
 *  - v0.1: an unknown ConfigMap or image key is an error (the catalog ignored it), and a config error fails the
 *    render (v0.1.0 returned it as an error result with exit 0 and left every image as it was). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "functions/krm/fieldspec.h"

typedef struct image_spec {
    const char *name, *new_name, *new_tag, *digest;
} image_spec;

typedef struct set_image {
    fn_ctx *c;
    image_spec img;
    bool v01;          /* pinned v0.1.x: one result per matching field */
    const resource *r; /* the item being visited */
    const char *field; /* the field spec being walked, for messages and results */
    int count;         /* matching fields the summary counts */
    const char *last;  /* the last new reference set, which the next match with the same one shares */
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

/* The new reference, written into tmp[cap] when it fits (else an arena copy); NULL when old does not match. */
static const char *new_image(arena *a, char *tmp, size_t cap, const char *old, const image_spec *img)
{
    const char *tag, *digest;
    size_t tag_len;
    if (!image_matches(old, img->name, &tag, &tag_len, &digest))
        return NULL;
    const char *name = *img->new_name ? img->new_name : img->name;
    int n;
    /* both only in the newest profile (v0.1 rejects the pair): kustomize 5 writes name:tag@digest */
    if (*img->new_tag && *img->digest)
        n = snprintf(tmp, cap, "%s:%s@%s", name, img->new_tag, img->digest);
    else if (*img->new_tag)
        n = snprintf(tmp, cap, "%s:%s", name, img->new_tag);
    else if (*img->digest)
        n = snprintf(tmp, cap, "%s@%s", name, img->digest);
    else
        n = snprintf(tmp, cap, "%s%.*s%s", name, (int)tag_len, tag, digest);
    if (n >= 0 && (size_t)n < cap)
        return tmp;
    if (*img->new_tag && *img->digest)
        return arena_printf(a, "%s:%s@%s", name, img->new_tag, img->digest);
    if (*img->new_tag)
        return arena_printf(a, "%s:%s", name, img->new_tag);
    if (*img->digest)
        return arena_printf(a, "%s@%s", name, img->digest);
    return arena_printf(a, "%s%.*s%s", name, (int)tag_len, tag, digest);
}

static int set_at(void *ud, node *parent, const char *key)
{
    set_image *s = ud;
    node *v = map_get(parent, key);
    if (!v || is_null(v))
        return 0;
    if (!is_scalar(v))
        return fn_fail_res(s->c, s->r, v, "set-image: %s must be an image reference (a string)", s->field);
    /* texts are never written in place: old stays what it is after the edit below */
    const char *old = scalar(v);
    char tmp[256];
    const char *nv = new_image(s->c->a, tmp, sizeof tmp, old, &s->img);
    if (!nv)
        return 0;
    bool changed = strcmp(nv, old) != 0;
    /* kustomize's mutation tracker (v0.1, latest) fires on every match; gcr's unstable counted changes only */
    if (changed || !s->c->version.unstable)
        s->count++;
    if (s->v01)
        fn_result_add(s->c, SEV_INFO, s->r, s->field, "set image from %s to %s", old, nv);
    if (changed) {
        /* most matches get the same new reference: one copy for all of them (issue #32) */
        if (!s->last || strcmp(s->last, nv))
            s->last = nv == tmp ? arena_strdup(s->c->a, tmp) : nv;
        map_set_str_ref(s->c->a, parent, key, s->last);
    }
    return 0;
}

/* The image fields each profile walks by itself. v0.1: kustomize's defaults (builtinpluginconsts `images`), no kind.
 * Newest: the 2026 catalog's list; the Pod entry has no group, as there (any group, version v1). */
static const fieldspec v01_fields[] = {
    {NULL, NULL, NULL, "spec/containers[]/image", false},
    {NULL, NULL, NULL, "spec/initContainers[]/image", false},
    {NULL, NULL, NULL, "spec/template/spec/containers[]/image", false},
    {NULL, NULL, NULL, "spec/template/spec/initContainers[]/image", false},
};

static const fieldspec newest_fields[] = {
    {NULL, "v1", "Pod", "spec/containers[]/image", false},
    {NULL, "v1", "Pod", "spec/initContainers[]/image", false},
    {"apps", "v1", "Deployment", "spec/template/spec/containers[]/image", false},
    {"apps", "v1", "Deployment", "spec/template/spec/initContainers[]/image", false},
    {"apps", "v1", "StatefulSet", "spec/template/spec/containers[]/image", false},
    {"apps", "v1", "StatefulSet", "spec/template/spec/initContainers[]/image", false},
    {"apps", "v1", "ReplicaSet", "spec/template/spec/containers[]/image", false},
    {"apps", "v1", "ReplicaSet", "spec/template/spec/initContainers[]/image", false},
    {"apps", "v1", "DaemonSet", "spec/template/spec/containers[]/image", false},
    {"apps", "v1", "DaemonSet", "spec/template/spec/initContainers[]/image", false},
};

/* kustomize's imagetag filter never touches a CRD (kustomize#890), whatever the field specs say. */
static bool denied(const resource *r)
{
    const char *kind = res_kind(r);
    return kind && !strcmp(kind, "CustomResourceDefinition");
}

static int walk(set_image *s, resource *r, const fieldspec *specs, size_t n)
{
    s->r = r;
    fieldspec_gvk g = fieldspec_gvk_of(r);
    for (size_t k = 0; k < n; k++) {
        if (!fieldspec_applies_gvk(&specs[k], &g))
            continue;
        s->field = specs[k].path;
        if (fieldspec_visit(s->c->a, r->root, specs[k].path, false, set_at, s) < 0)
            return -1;
    }
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
    seq_foreach(list, i, e) {
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

/* 0 on success, -1 on an error (failed), 1 when the newest profile lacks a key it requires (*missing says which:
 * the step fails after recording the results the pinned build gives for it). */
static int read_config(fn_ctx *c, bool v01, image_spec *img, fieldspec **specs, size_t *nspecs, const char **missing)
{
    *img = (image_spec){"", "", "", ""};
    const node *cfg = c->config;
    if (!cfg && v01)
        return fn_fail(c, NULL, "`functionConfig` must be a `ConfigMap` or `SetImage`");
    if (!cfg)
        return fn_fail(c, NULL,
                       "set-image needs a functionConfig: a ConfigMap with data.name and newName, newTag or "
                       "digest, or a SetImage (fn.kpt.dev/v1alpha1)");
    const node *map;
    if (config_is(cfg, "ConfigMap", "")) {
        map = map_get(cfg, "data");
        if (map && !is_null(map) && !is_map(map))
            return fn_fail(c, map, "set-image: the ConfigMap's data must be a map of strings");
        map_foreach(map, i, mk, val) {
            bool known;
            if (image_key(c, mk, val, img, &known) < 0)
                return -1;
            if (!known)
                return fn_fail_key(c, map, i, "ConfigMap has wrong field name %s", scalar(mk));
        }
    } else if (config_is(cfg, "SetImage", "fn.kpt.dev")) {
        map = map_get(cfg, "image");
        if (map && !is_null(map) && !is_map(map))
            return fn_fail(c, map, "set-image: `image` must be a map with name, newName, newTag and digest");
        map_foreach(map, i, mk, val) {
            bool known;
            if (image_key(c, mk, val, img, &known) < 0)
                return -1;
            if (!known)
                return fn_fail_key(c, map, i,
                               "set-image: unknown field `image.%s` (expect name, newName, newTag, digest)",
                               scalar(mk));
        }
        if (read_specs(c, map_get(cfg, "additionalImageFields"), specs, nspecs) < 0)
            return -1;
    } else if (v01) {
        return fn_fail(c, cfg, "`functionConfig` must be a `ConfigMap` or `SetImage`");
    } else {
        const char *k = path_str(cfg, "kind", NULL), *av = path_str(cfg, "apiVersion", NULL);
        return fn_fail(
            c, cfg,
            "unknown functionConfig Kind=%s ApiVersion=%s, expect `ConfigMap.v1` or `SetImage.v1alpha1.fn.kpt.dev`",
            k ? k : "", av ? av : "");
    }
    if (v01) {
        if (!*img->name)
            return fn_fail(c, cfg, "missing image name");
        if (!*img->new_name && !*img->new_tag && !*img->digest)
            return fn_fail(c, cfg, "missing image newName, newTag, or digest");
        if (*img->new_tag && *img->digest)
            return fn_fail(c, cfg, "image newTag and digest both set");
        return 0;
    }
    *missing = !*img->name ? "must specify `name`"
               : !*img->new_name && !*img->new_tag && !*img->digest
                   ? "must specify one of `newName`, `newTag`, or `digest`"
                   : NULL;
    return *missing ? 1 : 0;
}

/* The SDK sorts results by file, then index, then the result's text. */
static int result_order(const void *x, const void *y)
{
    const fn_result *a = x, *b = y;
    const char *pa = a->res && a->res->path ? a->res->path : "", *pb = b->res && b->res->path ? b->res->path : "";
    int d = strcmp(pa, pb);
    if (d)
        return d;
    unsigned ia = a->res ? a->res->index : 0, ib = b->res ? b->res->index : 0;
    if (ia != ib)
        return ia < ib ? -1 : 1;
    return strcmp(a->message, b->message);
}

/* The newest profile: the catalog's list, then the config's field specs in a second pass. */
static int walk_newest(set_image *s, const fieldspec *specs, size_t nspecs)
{
    fn_ctx *c = s->c;
    for (size_t i = 0; i < c->items->n; i++) {
        resource *r = c->items->v[i];
        if (r && !denied(r) && walk(s, r, newest_fields, sizeof newest_fields / sizeof *newest_fields) < 0)
            return -1;
    }
    for (size_t i = 0; nspecs && i < c->items->n; i++) {
        resource *r = c->items->v[i];
        if (r && !denied(r) && walk(s, r, specs, nspecs) < 0)
            return -1;
    }
    return 0;
}

/* A newest-profile config without a key it requires. The step fails (all or nothing); its results are the pinned
 * build's. gcr's unstable (SDK ResultErrAndDie) reports the error, then that it stopped on it, as the catalog's
 * no-image-name and no-newName-or-newTag tests record. The 2026 catalog (latest) reports `invalid FunctionConfig:
 * ...` and runs on, so its summary follows, counting what the config still matches (the catalog's own tests of
 * those cases under ghcr's latest record both). What that walk writes is never emitted: the step fails. */
static int fail_missing(set_image *s, const fieldspec *specs, size_t nspecs, const char *missing)
{
    fn_ctx *c = s->c;
    if (c->version.unstable) {
        fn_failure_result(c, SEV_ERROR, NULL, NULL, "%s", missing);
        fn_failure_result(c, SEV_ERROR, NULL, NULL, "function is terminated: %s", missing);
    } else {
        if (walk_newest(s, specs, nspecs) < 0)
            return -1;
        fn_failure_result(c, SEV_ERROR, NULL, NULL, "invalid FunctionConfig: %s", missing);
        fn_failure_result(c, SEV_INFO, NULL, NULL, "summary: updated a total of %d image(s)", s->count);
    }
    return fn_fail(c, c->config, "invalid FunctionConfig: %s", missing);
}

static int run(fn_ctx *c)
{
    set_image s = {.c = c, .v01 = fn_version_before(&c->version, 0, 2, 0)};
    fieldspec *specs = NULL;
    size_t nspecs = 0;
    const char *missing = NULL;
    int rc = read_config(c, s.v01, &s.img, &specs, &nspecs, &missing);
    if (rc < 0)
        return -1;
    if (rc > 0)
        return fail_missing(&s, specs, nspecs, missing);
    if (!s.v01) {
        if (walk_newest(&s, specs, nspecs) < 0)
            return -1;
        fn_result_add(c, SEV_INFO, NULL, NULL, "summary: updated a total of %d image(s)", s.count);
        return 0;
    }
    size_t first = c->results->n;
    for (size_t i = 0; i < c->items->n; i++) {
        resource *r = c->items->v[i];
        if (!r || denied(r))
            continue;
        /* v0.1 appends its defaults to the config's specs */
        if (walk(&s, r, specs, nspecs) < 0 || walk(&s, r, v01_fields, sizeof v01_fields / sizeof *v01_fields) < 0)
            return -1;
    }
    if (!s.count)
        fn_result_add(c, SEV_INFO, NULL, NULL, "no images changed");
    qsort(c->results->v + first, c->results->n - first, sizeof *c->results->v, result_order);
    return 0;
}

const fn_def fn_set_image = {
    .name = "set-image",
    .summary = "retag or rename container images (the pinned release's fields: containers and initContainers)",
    .run = run,
    .shares_values = true, /* its edits go through the setters */
    .releases = "0.1.0 0.1.1",
    .readme = {
        .does = "image name, tag and digest",
        .differs = "the name is matched literally, not as a regex; `additionalImageFields` never create a field; v0.1: "
                "an unknown config key is an error and a config error fails the render (v0.1.0 returned it as an "
                "error result with exit 0, every image left as it was)",
        .versions = "v0.1.0–v0.1.1: kustomize's default image fields (`spec.containers`, `spec.initContainers`, "
                "`spec.template.spec.containers`, `…initContainers`) of every kind but a CRD (a Job yes, a CronJob "
                "no), `newTag` with `digest` an error, one `set image from A to B` result per matching field or `no "
                "images changed` · `latest`, `unstable`, other tags (the 2026 catalog): v1 Pod and apps/v1 "
                "Deployment, StatefulSet, ReplicaSet, DaemonSet only (containers and initContainers; not Job, "
                "CronJob, ReplicationController, PodTemplate), `newTag` with `digest` gives `name:tag@digest`, "
                "`summary: updated a total of N image(s)` counting every matching field, a missing `name` or new "
                "value an error result `invalid FunctionConfig: …` then the summary · `unstable` changes objects as "
                "`latest` does (the 2022–25 master it names skipped init containers and dropped the colon with "
                "`newName` alone) but reports as that build did: the summary counts changed fields only, a missing "
                "key gives the error and `function is terminated: …`",
    },
};
