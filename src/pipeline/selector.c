#include "pipeline/selector.h"

#include <stdio.h>
#include <string.h>

static bool field_eq(const char *want, const char *have)
{
    return !want || !*want || (have && !strcmp(want, have));
}

/* kpt's reader stamps every item with its file (relative to the item's own package) and document index, and
 * selection runs on the stamped items, so a selector may name them. Ours live beside the tree, not in it. */
static const char *reader_annotation(const resource *r, const char *key, char *buf, size_t cap)
{
    if (!r || !r->path || (strncmp(key, "config.kubernetes.io/", 21) && strncmp(key, "internal.config.kubernetes.io/", 30)))
        return NULL;
    const char *name = strchr(key, '/') + 1;
    if (!strcmp(name, "path"))
        return r->path;
    if (!strcmp(name, "index")) {
        snprintf(buf, cap, "%u", r->index);
        return buf;
    }
    return NULL;
}

static bool subset(const node *want, const node *have, const resource *r)
{
    if (!is_map(want))
        return true;
    map_foreach(want, i, key, val) {
        const char *k = scalar(key), *v = scalar(val);
        char buf[16];
        const char *h = k ? reader_annotation(r, k, buf, sizeof buf) : NULL;
        if (k && !h)
            h = scalar(map_get(have, k));
        if (!h || !v || strcmp(h, v))
            return false;
    }
    return true;
}

static bool selector_empty(const selector *s)
{
    return (!s->api_version || !*s->api_version) && (!s->kind || !*s->kind) && (!s->name || !*s->name) &&
           (!s->namespace || !*s->namespace) && (!is_map(s->labels) || !node_len(s->labels)) &&
           (!is_map(s->annotations) || !node_len(s->annotations));
}

bool selector_matches(const selector *s, const resource *r)
{
    const char *ns = res_namespace(r);
    return field_eq(s->api_version, res_api_version(r)) && field_eq(s->kind, res_kind(r)) &&
           field_eq(s->name, res_name(r)) && field_eq(s->namespace, ns ? ns : "") &&
           subset(s->labels, path_get(r->root, "metadata", "labels", NULL), NULL) &&
           subset(s->annotations, path_get(r->root, "metadata", "annotations", NULL), r);
}

bool step_selects(const step *s, const resource *r)
{
    bool in = s->nselectors == 0;
    for (size_t i = 0; i < s->nselectors && !in; i++)
        in = selector_matches(&s->selectors[i], r);
    for (size_t i = 0; in && i < s->nexcludes; i++)
        if (!selector_empty(&s->excludes[i]) && selector_matches(&s->excludes[i], r))
            in = false;
    return in;
}
