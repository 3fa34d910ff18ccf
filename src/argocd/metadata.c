#include "argocd/metadata.h"

#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "util/fsutil.h"
#include "util/url.h"

static bool bookkeeping_annotation(const char *k)
{
    return !strcmp(k, "config.kubernetes.io/path") || !strcmp(k, "config.kubernetes.io/index") ||
           !strcmp(k, "config.k8s.io/id") || !strncmp(k, "internal.config.kubernetes.io/", 30) ||
           !strncmp(k, "internal.config.k8s.io/", 23);
}

static void strip_bookkeeping(arena *a, node *root)
{
    node *md = map_get(root, "metadata");
    node *ann = map_get(md, "annotations");
    if (!is_map(ann))
        return;
    bool any = false;
    map_foreach(ann, i, k, v) {
        if (scalar(k) && bookkeeping_annotation(scalar(k))) {
            any = true;
            break;
        }
    }
    if (!any)
        return;
    ann = map_ensure_map(a, md, "annotations"); /* a map many objects share (set-annotations): its own copy */
    uint32_t before = node_len(ann);
    /* backwards, by index: map_delete moves the entries after i down, which a forward walk would skip */
    for (uint32_t i = node_len(ann); i-- > 0;) {
        const char *k = scalar(map_key(ann, i));
        if (k && bookkeeping_annotation(k))
            map_delete(ann, k);
    }
    if (before && !node_len(ann))
        map_delete(md, "annotations");
}

void drop_unapplied(rlist *items, bool keep_config)
{
    for (size_t i = 0; i < items->n; i++) {
        resource *r = items->v[i];
        if ((r->flags & R_KUSTOMIZE) || res_is_kptfile(r) || res_is_local_config(r) ||
            ((r->flags & R_CONFIG) && !keep_config))
            items->v[i] = NULL;
    }
    rlist_compact(items);
}

/* reposerver/repository/repository.go GenerateManifests: unstructured IsList() is "items is a []interface{}", for
 * any kind, and flattens the object into its items; isNullList drops an object whose items is null and that has
 * neither spec nor status. The loader splits the List kinds it reads (package/reader.c); an object of another
 * kind that still has such an items here would reach the cluster as something other than what we print, with
 * none of our checks or stamps on what replaces it. */
int check_argocd_reading(arena *a, const rlist *items)
{
    for (size_t i = 0; i < items->n; i++) {
        const resource *r = items->v[i];
        if (r->flags & R_LIST)
            continue;
        const node *it = map_get(r->root, "items");
        if (!it)
            continue;
        int line = node_line(it) ? (int)node_line(it) : (int)r->line;
        if (is_seq(it))
            return fail(res_file(a, r), line,
                        "%s: a top-level items list makes Argo CD read the object as a List and deploy its items "
                        "instead of it (only a List may have one)",
                        res_id(a, r));
        if (is_null(it) && !map_get(r->root, "spec") && !map_get(r->root, "status"))
            return fail(res_file(a, r), line,
                        "%s: items: null with no spec or status makes Argo CD read the object as an empty List and "
                        "drop it",
                        res_id(a, r));
    }
    return 0;
}

void stamp_metadata(arena *a, rlist *items, const app_meta *m, const char *domain, bool (*enabled)(const void *, const char *),
                    const void *ud)
{
    const struct {
        const char *suffix, *value;
    } stamps[] = {
        {"app", m->name},         {"app-namespace", m->namespace},
        {"project", m->project},  {"revision", m->revision},
        {"package-revision", m->package_revision},
        {"repo", m->repo},        {"target-revision", m->target_revision},
        {"path", m->path},
    };
    /* One key and one value node of each stamp for all objects: nothing edits the tree after the stamps. */
    node *keys[sizeof stamps / sizeof *stamps], *vals[sizeof stamps / sizeof *stamps];
    for (size_t s = 0; s < sizeof stamps / sizeof *stamps; s++) {
        const char *k = arena_printf(a, "%s/%s", domain, stamps[s].suffix);
        keys[s] = node_scalar(a, k, strlen(k), ST_PLAIN);
        vals[s] = stamps[s].value ? node_str_ref(a, stamps[s].value) : NULL;
    }
    /* which stamps apply is the same for every object: asked once (the setting is parsed on each ask) */
    bool on[sizeof stamps / sizeof *stamps];
    uint32_t todo = 0;
    for (size_t s = 0; s < sizeof stamps / sizeof *stamps; s++) {
        on[s] = stamps[s].value && (!enabled || enabled(ud, stamps[s].suffix));
        todo += on[s];
    }
    /* the enabled stamps, in order, for the annotations many objects share */
    node *tk[sizeof stamps / sizeof *stamps], *tv[sizeof stamps / sizeof *stamps];
    uint32_t nt = 0;
    for (size_t s = 0; s < sizeof stamps / sizeof *stamps; s++)
        if (on[s])
            tk[nt] = keys[s], tv[nt++] = vals[s];
    node *last = NULL;
    for (size_t i = 0; i < items->n; i++) {
        resource *r = items->v[i];
        strip_bookkeeping(a, r->root);
        node *md = map_get(r->root, "metadata");
        /* Objects whose annotations were the same before the stamps (a set-annotations on every object, or none)
         * share one stamped map: on a dense package, each object's own copy of the same seven pairs was a tenth of
         * the render's peak. Else the object's own map gets the stamps. */
        if (nt && is_map(md) && map_set_tail_shared(a, md, "annotations", tk, tv, nt, &last))
            continue;
        node *ann = NULL;
        for (size_t s = 0; s < sizeof stamps / sizeof *stamps; s++) {
            if (!on[s])
                continue;
            if (!ann) {
                if (!(ann = map_ensure_map(a, md, "annotations")))
                    break; /* annotations that are not a map: leave the object alone rather than guess */
                map_reserve(a, ann, todo); /* one array for all the stamps */
            }
            map_set_shared(a, ann, keys[s], vals[s]);
        }
    }
}
