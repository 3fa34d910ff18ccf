/* kpt fn render's attribution annotation (pipeline/attribution.h), as kpt 1.0 adds it: the same objects, the same
 * value and the same odd corners (a second "kpt" part of the value takes the groups of the first), so a package
 * rendered here and by kpt carries the same annotation. Measured against kpt 1.0.0-beta.56: tests/kpt-compare. */
#include "pipeline/attribution.h"

#include <string.h>

#include "util/buf.h"

const char *attribution_value(arena *a, const char *cur)
{
    if (!cur || !*cur)
        return "kpt-fn";
    if (!strstr(cur, "kpt-"))
        return arena_printf(a, "%s,kpt-fn", cur);
    /* Every comma-separated part that mentions "kpt" becomes "kpt" and the groups: pkg when the part names it, fn
     * (ours), live when the part names it. kpt keeps adding to one list of groups from part to part, so a second
     * such part carries the first one's groups too ("kpt-live,xkpt-pkg" -> "kpt-fn-live,kpt-fn-live-pkg-fn"). */
    buf out = {0}, groups = {0};
    buf_puts(&groups, "kpt");
    for (const char *p = cur;;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        char *part = arena_strndup(a, p, n);
        if (p != cur)
            buf_putc(&out, ',');
        if (strstr(part, "kpt")) {
            if (strstr(part, "pkg"))
                buf_puts(&groups, "-pkg");
            buf_puts(&groups, "-fn");
            if (strstr(part, "live"))
                buf_puts(&groups, "-live");
            buf_put(&out, groups.data, groups.len);
        } else {
            buf_put(&out, part, n);
        }
        if (!comma)
            break;
        p = comma + 1;
    }
    const char *v = arena_strndup(a, buf_cstr(&out), out.len);
    buf_free(&out);
    buf_free(&groups);
    return v;
}

void attribution_apply(arena *a, const rlist *items)
{
    for (size_t i = 0; i < items->n; i++) {
        node *root = items->v[i] ? items->v[i]->root : NULL;
        const char *api = path_str(root, "apiVersion", NULL);
        node *md = map_get(root, "metadata");
        /* kpt: only Config Connector kinds, and never an object whose metadata is missing or empty */
        if (!api || !strstr(api, ".cnrm.") || !is_map(md) || !node_len(md))
            continue;
        node *ann = map_get(md, "annotations");
        if (ann && !is_map(ann) && !is_null(ann))
            continue; /* annotations that are not a map: kpt's edit fails, and it leaves the object alone */
        if (!is_map(ann))
            ann = map_set(a, md, "annotations", node_map(a));
        else
            ann = map_ensure_map(a, md, "annotations"); /* a map many objects share (set-annotations): its own copy */
        long at = map_index(ann, ATTRIBUTION_ANNOTATION);
        node *v = at >= 0 ? map_val(ann, (uint32_t)at) : NULL;
        if (v && is_scalar(v)) {
            v = map_val_own(a, ann, (uint32_t)at); /* a value many objects share (set-annotations) is not written */
            const char *nv = attribution_value(a, is_null(v) ? NULL : scalar(v));
            /* kpt sets the value as a new node that takes the old one's quotes (kyaml keeps an existing field's
             * style) and nothing else: its line comment goes, even when the value stays as it was */
            scalar_set(a, v, nv, strlen(nv), SCALAR_AS_STRING);
            node_set_comment(a, v, NULL);
            continue;
        }
        if (v)
            continue; /* a map or list there: kpt reads no string and its edit fails */
        const char *nv = attribution_value(a, NULL);
        map_set(a, ann, ATTRIBUTION_ANNOTATION, node_scalar(a, nv, strlen(nv), ST_SINGLE));
    }
}
