/* A HelmRelease's post-renderers (helm-controller internal/postrender): each postRenderers[].kustomize, in list
 * order, is one run of the real kustomize over the objects. The kustomization is ours, made from the fields Flux's
 * API has: images, patches (inline patch and target), and in v2beta1/v2beta2 patchesStrategicMerge (inline objects)
 * and patchesJson6902 (target and operations). Every patch goes to kustomize inline, as a `patches` entry, in the
 * order kustomize applies Flux's fields (patchesStrategicMerge, patches, patchesJson6902, then images): no field of
 * ours names a file, so the objects reach kustomize as a descriptor (never a file in a directory) and nothing else
 * is read. Anything else in a post-renderer is an error naming it. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flux/internal.h"
#include "functions/tools/external.h"
#include "util/child.h"
#include "util/diag.h"
#include "util/fsutil.h"
#include "yaml/emit.h"

static int only_keys(fn_ctx *c, const char *who, const char *where, const node *m, const char *const *keys)
{
    map_foreach(m, i, key, val) {
        const char *k = scalar(key);
        const char *const *p = keys;
        while (*p && (!k || strcmp(*p, k)))
            p++;
        if (!*p) {
            return fn_fail_key(c, m, i, "%s: %s%s is not a field the flux-helmrelease step renders", who, where,
                               k ? shown(c->a, k) : "(a key that is not a string)");
        }
    }
    return 0;
}

static int strings_only(fn_ctx *c, const char *who, const char *where, const node *m)
{
    map_foreach(m, i, key, val)
        if (!is_scalar(val))
            return fn_fail_key(c, m, i, "%s: %s%s must be a string", who, where, scalar(key));
    return 0;
}

static const char *const target_keys[] = {"group", "version", "kind", "name", "namespace", "labelSelector",
                                          "annotationSelector", NULL};

static node *target(fn_ctx *c, const char *who, const char *where, const node *t)
{
    if (!is_map(t)) {
        fn_fail(c, t, "%s: %s must be a map (group, version, kind, name, namespace, labelSelector, "
                      "annotationSelector)",
                who, where);
        return NULL;
    }
    const char *w = arena_printf(c->a, "%s.", where);
    if (only_keys(c, who, w, t, target_keys) < 0 || strings_only(c, who, w, t) < 0)
        return NULL;
    return node_clone(c->a, t);
}

static node *patch_entry(arena *a, const char *patch, node *tgt)
{
    node *e = node_map(a);
    map_set(a, e, "patch", node_str(a, patch));
    if (tgt)
        map_set(a, e, "target", tgt);
    return e;
}

static const char *as_json(arena *a, const node *n)
{
    buf b = {0};
    emit_json(&b, n);
    const char *s = arena_strndup(a, b.data ? b.data : "", b.len);
    buf_free(&b);
    return s;
}

/* One postRenderers[i].kustomize as our kustomization (without resources), or NULL with fn_fail. */
static node *kustomization(fn_ctx *c, const char *who, const node *k, uint32_t index, bool v2beta)
{
    arena *a = c->a;
    const char *where = arena_printf(a, "spec.postRenderers[%u].kustomize.", index);
    static const char *const v2_keys[] = {"patches", "images", NULL};
    static const char *const v2beta_keys[] = {"patches", "images", "patchesStrategicMerge", "patchesJson6902", NULL};
    if (!is_map(k))
        return fn_fail(c, k, "%s: %.*s must be a map", who, (int)strlen(where) - 1, where), NULL;
    if (only_keys(c, who, where, k, v2beta ? v2beta_keys : v2_keys) < 0)
        return NULL;
    node *out = node_map(a);
    map_set(a, out, "apiVersion", node_str(a, "kustomize.config.k8s.io/v1beta1"));
    map_set(a, out, "kind", node_str(a, "Kustomization"));
    node *patches = node_seq(a);
    const node *psm = map_get(k, "patchesStrategicMerge"), *pl = map_get(k, "patches"),
               *pj = map_get(k, "patchesJson6902"), *images = map_get(k, "images");
    const struct {
        const char *name;
        const node *n;
    } lists[] = {{"patchesStrategicMerge", psm}, {"patches", pl}, {"patchesJson6902", pj}, {"images", images}};
    for (size_t l = 0; l < sizeof lists / sizeof *lists; l++)
        if (lists[l].n && !is_null(lists[l].n) && !is_seq(lists[l].n))
            return fn_fail(c, lists[l].n, "%s: %s%s must be a list", who, where, lists[l].name), NULL;
    seq_foreach(psm, i, p) {
        if (!is_map(p))
            return fn_fail(c, p, "%s: %spatchesStrategicMerge[%u] must be an object (a strategic merge patch)", who,
                           where, i),
                   NULL;
        seq_append(a, patches, patch_entry(a, as_json(a, p), NULL));
    }
    static const char *const patch_keys[] = {"patch", "target", NULL};
    seq_foreach(pl, i, p) {
        const char *w = arena_printf(a, "%spatches[%u].", where, i);
        if (!is_map(p))
            return fn_fail(c, p, "%s: %.*s must be a map (patch, target)", who, (int)strlen(w) - 1, w), NULL;
        if (only_keys(c, who, w, p, patch_keys) < 0)
            return NULL;
        const char *text = path_str(p, "patch", NULL);
        if (!text || !*text)
            return fn_fail(c, p, "%s: %spatch (the patch itself) is required", who, w), NULL;
        node *t = NULL;
        if (map_get(p, "target") && !is_null(map_get(p, "target")) &&
            !(t = target(c, who, arena_printf(a, "%starget", w), map_get(p, "target"))))
            return NULL;
        seq_append(a, patches, patch_entry(a, text, t));
    }
    static const char *const json6902_keys[] = {"target", "patch", NULL};
    seq_foreach(pj, i, p) {
        const char *w = arena_printf(a, "%spatchesJson6902[%u].", where, i);
        if (!is_map(p))
            return fn_fail(c, p, "%s: %.*s must be a map (target, patch)", who, (int)strlen(w) - 1, w), NULL;
        if (only_keys(c, who, w, p, json6902_keys) < 0)
            return NULL;
        node *t = target(c, who, arena_printf(a, "%starget", w), map_get(p, "target"));
        if (!t)
            return NULL;
        const node *ops = map_get(p, "patch");
        if (!is_seq(ops))
            return fn_fail(c, ops ? ops : p, "%s: %spatch must be a list of JSON 6902 operations", who, w), NULL;
        seq_append(a, patches, patch_entry(a, as_json(a, ops), t));
    }
    if (node_len(patches))
        map_set(a, out, "patches", patches);
    static const char *const image_keys[] = {"name", "newName", "newTag", "digest", NULL};
    if (is_seq(images) && node_len(images)) {
        node *imgs = node_seq(a);
        seq_foreach(images, i, im) {
            const char *w = arena_printf(a, "%simages[%u].", where, i);
            if (!is_map(im))
                return fn_fail(c, im, "%s: %.*s must be a map (name, newName, newTag, digest)", who,
                               (int)strlen(w) - 1, w),
                       NULL;
            if (only_keys(c, who, w, im, image_keys) < 0 || strings_only(c, who, w, im) < 0)
                return NULL;
            if (!path_str(im, "name", NULL))
                return fn_fail(c, im, "%s: %sname is required", who, w), NULL;
            seq_append(a, imgs, node_clone(a, im));
        }
        map_set(a, out, "images", imgs);
    }
    return out;
}

/* The kustomize to run: KUSTOMIZE_BIN or kustomize, else kubectl's built-in one. */
static int tool(fn_ctx *c, const char *who, const char **argv0, const char **mode)
{
    const fn_host *h = c->host;
    if (h->kustomize_bin && !find_tool(h->kustomize_bin, h->path, "kustomize"))
        return fn_fail(c, NULL, "%s: KUSTOMIZE_BIN=%s is not an executable", who, h->kustomize_bin);
    const char *t = find_tool(h->kustomize_bin, h->path, "kustomize");
    if (t) {
        *argv0 = arena_strdup(c->a, t), *mode = "build";
        return 0;
    }
    if ((t = find_tool(h->kubectl_bin, h->path, "kubectl"))) {
        *argv0 = arena_strdup(c->a, t), *mode = "kustomize";
        return 0;
    }
    return fn_fail(c, NULL, "%s: spec.postRenderers need kustomize or kubectl (neither is on PATH; set KUSTOMIZE_BIN)",
                   who);
}

/* One kustomize run over objs, replaced by its output. */
static int run_one(fn_ctx *c, const char *who, node *kust, uint32_t index, rlist *objs)
{
    arena *a = c->a;
    const char *argv0 = NULL, *mode = NULL;
    if (tool(c, who, &argv0, &mode) < 0)
        return -1;
    const char *s = scratch_dir(c->host);
    static int seq;
    const char *dir = s ? arena_printf(a, "%s/flux-postrender-%d", s, ++seq) : NULL;
    char real[PATH_MAX];
    if (!dir || mkdir(dir, 0700) != 0 || !realpath(dir, real))
        return fn_fail(c, NULL, "%s: cannot create a temporary directory for kustomize: %s", who, strerror(errno));
    buf objects = {0};
    for (size_t i = 0; i < objs->n; i++) {
        if (!objs->v[i])
            continue;
        if (objects.len)
            buf_puts(&objects, "---\n");
        emit_yaml(&objects, objs->v[i]->root, NULL);
    }
    child_fds fds = {0};
    const char *res = pass_text(c, &fds, objects.data ? objects.data : "", objects.len);
    buf_free(&objects);
    if (!res)
        return fn_fail(c, NULL, "%s: cannot pass the objects to kustomize: %s", who, strerror(errno));
    node *rs = node_seq(a);
    seq_append(a, rs, node_str(a, res));
    map_set(a, kust, "resources", rs);
    /* kustomize's own order (sortOptions fifo): helm-controller's kustomize does not sort */
    node *so = node_map(a);
    map_set(a, so, "order", node_str(a, "fifo"));
    map_set(a, kust, "sortOptions", so);
    buf k = {0};
    emit_yaml(&k, kust, NULL);
    int fd = open(arena_printf(a, "%s/kustomization.yaml", real), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    int wrc = fd < 0 ? -1 : write_all(fd, k.data ? k.data : "", k.len);
    if (fd >= 0)
        close(fd);
    buf_free(&k);
    if (wrc < 0) {
        child_fds_close(&fds);
        return fn_fail(c, NULL, "%s: cannot write the kustomization: %s", who, strerror(errno));
    }
    const char *argv[] = {argv0, mode, real, "--load-restrictor", "LoadRestrictionsNone", NULL};
    const char *env[] = {arena_printf(a, "XDG_CONFIG_HOME=%s/kustomize", s), arena_printf(a, "TMPDIR=%s", real), NULL};
    rlist out = {0};
    rlist *saved = c->items;
    c->items = &out;
    int rc = run_tool_into_items_fds(c, arena_printf(a, "kustomize of %s spec.postRenderers[%u]", who, index), argv,
                                     env, real, &fds);
    c->items = saved;
    if (rc < 0) {
        rlist_free(&out);
        return -1;
    }
    rlist_free(objs);
    *objs = out;
    return 0;
}

int flux_post_render(fn_ctx *c, const char *who, const node *renderers, bool v2beta, rlist *objs)
{
    if (!renderers || is_null(renderers))
        return 0;
    if (!is_seq(renderers))
        return fn_fail(c, renderers, "%s: spec.postRenderers must be a list", who);
    static const char *const entry_keys[] = {"kustomize", NULL};
    seq_foreach(renderers, i, e) {
        if (!is_map(e))
            return fn_fail(c, e, "%s: spec.postRenderers[%u] must be a map (kustomize)", who, i);
        if (only_keys(c, who, arena_printf(c->a, "spec.postRenderers[%u].", i), e, entry_keys) < 0)
            return -1;
        const node *k = map_get(e, "kustomize");
        if (!k || is_null(k))
            continue;
        node *kust = kustomization(c, who, k, i, v2beta);
        if (!kust)
            return -1;
        if (objs && node_len(kust) > 2 && run_one(c, who, kust, i, objs) < 0)
            return -1;
    }
    return 0;
}
