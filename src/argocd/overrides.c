#include "argocd/overrides.h"

#include <string.h>

#include "settings/value_rules.h"
#include "util/diag.h"

int parse_image_override(arena *a, const char *spec, node **data)
{
    image_override o;
    const char *why = image_override_split(a, spec, &o);
    if (why)
        return fail(NULL, 0, "parameter \"images\": %s", why);
    node *d = node_map(a);
    map_set(a, d, "name", node_str(a, o.name));
    if (*o.new_name)
        map_set(a, d, "newName", node_str(a, o.new_name));
    if (*o.new_tag)
        map_set(a, d, "newTag", node_str(a, o.new_tag));
    if (*o.digest)
        map_set(a, d, "digest", node_str(a, o.digest));
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

/* Where the labels parameter goes unless update-selectors is on: metadata, and the pod templates Kubernetes lets a
 * live object change. Never a selector: the selector of a live Deployment, ReplicaSet, DaemonSet, StatefulSet or
 * Job is immutable, so the sync of an Application whose labels changed would fail. Nor a Job's pod template or a
 * StatefulSet's volumeClaimTemplates, immutable too. The new labels join the template's, so selectors still match. */
static const struct {
    const char *kind;
    const char *path[5];
} label_templates[] = {
    {"Deployment", {"spec", "template", NULL}},      {"ReplicaSet", {"spec", "template", NULL}},
    {"DaemonSet", {"spec", "template", NULL}},       {"StatefulSet", {"spec", "template", NULL}},
    {"ReplicationController", {"spec", "template", NULL}},
    {"CronJob", {"spec", "jobTemplate", NULL}},      {"CronJob", {"spec", "jobTemplate", "spec", "template", NULL}},
};

static void set_labels_under(arena *a, node *holder, const node *labels)
{
    node *md = map_ensure_map(a, holder, "metadata");
    node *l = md ? map_ensure_map(a, md, "labels") : NULL;
    if (l)
        map_foreach(labels, i, key, val)
            map_set_str(a, l, scalar(key), scalar(val));
}

static void labels_without_selectors(run_ctx *R, rlist *items, const node *labels)
{
    for (size_t i = 0; i < items->n; i++) {
        resource *r = items->v[i];
        if (!r || !is_map(r->root))
            continue;
        set_labels_under(R->a, r->root, labels);
        const char *kind = res_kind(r);
        for (size_t t = 0; kind && t < sizeof label_templates / sizeof *label_templates; t++) {
            if (strcmp(kind, label_templates[t].kind))
                continue;
            node *h = r->root;
            for (const char *const *k = label_templates[t].path; *k && h; k++)
                h = map_get(h, *k);
            if (is_map(h))
                set_labels_under(R->a, h, labels);
        }
    }
}

int apply_final_steps(run_ctx *R, package *root, rlist *items, const settings *s)
{
    if (s->namespace) {
        node *d = node_map(R->a);
        map_set(R->a, d, "namespace", node_str(R->a, s->namespace));
        if (final_step(R, root, items, "set-namespace", "namespace", d) < 0)
            return -1;
    }
    if (s->labels && node_len(s->labels) && s->update_selectors &&
        final_step(R, root, items, "set-labels", "labels", s->labels) < 0)
        return -1;
    if (s->labels && node_len(s->labels) && !s->update_selectors) {
        diag_set_step("parameter labels");
        labels_without_selectors(R, items, s->labels);
    }
    if (s->annotations && node_len(s->annotations) &&
        final_step(R, root, items, "set-annotations", "annotations", s->annotations) < 0)
        return -1;
    seq_foreach(s->images, i, item) {
        node *d;
        if (parse_image_override(R->a, scalar(item), &d) < 0 ||
            final_step(R, root, items, "set-image", "images", d) < 0)
            return -1;
    }
    return 0;
}

int check_setters_used(const run_ctx *R)
{
    const node *o = R->setter_overrides;
    map_foreach(o, i, key, val)
        if (!R->setter_used || !R->setter_used[i])
            return fail(NULL, 0, "parameter \"setters\": \"%s\" is not a setter of this package (no apply-setters "
                                 "config defines it)",
                        scalar(key));
    return 0;
}
