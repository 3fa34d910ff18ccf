#include "argocd/overrides.h"

#include <string.h>

#include "util/diag.h"

static bool bad_ref_chars(const char *s)
{
    return !*s || strpbrk(s, " \t\n\"'") != NULL;
}

int parse_image_override(arena *a, const char *spec, node **data)
{
    node *d = node_map(a);
    const char *eq = strchr(spec, '=');
    char *name, *rest;
    if (eq) {
        name = arena_strndup(a, spec, (size_t)(eq - spec));
        rest = arena_strdup(a, eq + 1);
    } else {
        /* without '=', the reference itself names the image: cut its tag or digest */
        rest = arena_strdup(a, spec);
        name = rest;
    }
    char *digest = strchr(rest, '@');
    if (digest)
        *digest++ = 0;
    char *slash = strrchr(rest, '/');
    char *colon = strrchr(slash ? slash : rest, ':');
    char *tag = NULL;
    if (colon) {
        *colon = 0;
        tag = colon + 1;
    }
    if (!eq)
        rest = NULL;
    if (bad_ref_chars(name) || (rest && bad_ref_chars(rest)) || (tag && bad_ref_chars(tag)) ||
        (digest && (bad_ref_chars(digest) || !strchr(digest, ':'))) || (!rest && !tag && !digest))
        return fail(NULL, 0, "parameter \"images\": \"%s\" is not name=newName:newTag, name=newName@sha256:..., "
                             "name:newTag or name@sha256:...",
                    spec);
    map_set(a, d, "name", node_str(a, name));
    if (rest && *rest && strcmp(rest, name))
        map_set(a, d, "newName", node_str(a, rest));
    if (tag)
        map_set(a, d, "newTag", node_str(a, tag));
    if (digest)
        map_set(a, d, "digest", node_str(a, digest));
    *data = d;
    return 0;
}

static int final_step(run_ctx *R, package *root, rlist *items, const char *fn, const char *param, node *data)
{
    step s = {.ref = fn, .fn = fn_lookup(fn), .config_map = data,
              .label = arena_printf(R->a, "parameter %s (%s)", param, fn)};
    if (!s.fn)
        return fail(NULL, 0, "%s: function %s is not built in", s.label, fn);
    return run_step(R, root, &s, items);
}

int apply_final_steps(run_ctx *R, package *root, rlist *items, const settings *s)
{
    if (s->namespace) {
        node *d = node_map(R->a);
        map_set(R->a, d, "namespace", node_str(R->a, s->namespace));
        if (final_step(R, root, items, "set-namespace", "namespace", d) < 0)
            return -1;
    }
    if (s->labels && s->labels->c.n && final_step(R, root, items, "set-labels", "labels", s->labels) < 0)
        return -1;
    if (s->annotations && s->annotations->c.n &&
        final_step(R, root, items, "set-annotations", "annotations", s->annotations) < 0)
        return -1;
    for (uint32_t i = 0; s->images && i < s->images->c.n; i++) {
        node *d;
        if (parse_image_override(R->a, scalar(s->images->c.kids[i]), &d) < 0 ||
            final_step(R, root, items, "set-image", "images", d) < 0)
            return -1;
    }
    return 0;
}

int check_setters_used(const run_ctx *R)
{
    const node *o = R->setter_overrides;
    for (uint32_t i = 0; o && i < o->c.n; i++)
        if (!R->setter_used || !R->setter_used[i])
            return fail(NULL, 0, "parameter \"setters\": \"%s\" is not a setter of this package (no apply-setters "
                                 "config defines it)",
                        scalar(map_key(o, i)));
    return 0;
}
