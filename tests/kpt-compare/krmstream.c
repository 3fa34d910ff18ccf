/* kpt-compare's normaliser (tests/kpt-compare/run builds it into $BUILD_DIR/kpt-compare/krmstream).
 *
 *   krmstream stream FILE
 *       FILE is either kpt's ResourceList (`kpt fn render -o stdout`: every item of the package, kpt's bookkeeping
 *       annotations on each) or our stream (`cmp-generate render --keep-config -o json`: what Argo CD would get).
 *       Prints what Argo CD would deploy from it, one compact JSON object a line, in the order given:
 *         - dropped: Kptfiles, kustomizations (files named as kustomize names them, and kind Kustomization or
 *           Component with kustomize's apiVersion or none: kpt reads them as resources, we never print them),
 *           objects whose config.kubernetes.io/local-config is not "false" (kpt's meaning, which our render
 *           applies too);
 *         - a List (any kind whose top-level items is a sequence) is replaced by its items, as Argo CD splits it;
 *         - kpt's bookkeeping annotations (config.kubernetes.io/path and /index, config.k8s.io/id,
 *           internal.config.kubernetes.io/... and internal.config.k8s.io/...) are removed, and an annotations map
 *           they alone filled with them; our render removes them the same way before it prints;
 *         - map keys sorted: Argo CD compares objects, not key order (the in-place comparison sees the order).
 *       Written with the project's JSON emitter (scalars typed as a YAML 1.1 reader, Argo CD's, types them), so the
 *       two sides differ only where Argo CD would see different objects, never in quoting or comments.
 *       Our `-o json` stream is JSON lines (a file starting with "{"): each line is read as one document.
 *
 *   krmstream file FILE
 *       Every document of a package file as it is (nothing dropped, keys in order) as one JSON line, then a line
 *       "#" and its comments in order: two files print the same when they hold the same documents and comments,
 *       whatever their layout (quotes, block styles, blank lines, indentation, "---").
 *   krmstream file-sorted FILE
 *       The same with every map's keys sorted and the comments sorted: the same output as another file's means the
 *       same documents and comments in another key order.
 *
 *   Exit status: 0, or 64 when FILE cannot be read or parsed (one line on stderr).
 * YAML is read with the project's own loader (src/yaml/load.c), so both sides see the same parser. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/fsutil.h"
#include "yaml/emit.h"
#include "yaml/load.h"
#include "yaml/tree.h"

struct out {
    arena *a;
    buf b;
    bool file;   /* krmstream file, file-sorted */
    bool sorted; /* file-sorted */
};

static bool bookkeeping(const char *k)
{
    return !strcmp(k, "config.kubernetes.io/path") || !strcmp(k, "config.kubernetes.io/index") ||
           !strcmp(k, "config.k8s.io/id") || !strncmp(k, "internal.config.kubernetes.io/", 30) ||
           !strncmp(k, "internal.config.k8s.io/", 23);
}

static bool kustomization_file(const char *path)
{
    if (!path)
        return false;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return !strcmp(base, "kustomization.yaml") || !strcmp(base, "kustomization.yml") ||
           !strcmp(base, "Kustomization");
}

/* A copy of n whose maps have their keys in byte order (insertion sort: objects are small). */
static node *sorted(arena *a, const node *n)
{
    if (is_seq(n)) {
        node *c = node_seq(a);
        for (uint32_t i = 0; i < node_len(n); i++)
            seq_append(a, c, sorted(a, seq_item(n, i)));
        return c;
    }
    if (!is_map(n))
        return node_clone(a, n);
    uint32_t len = node_len(n), *order = arena_alloc(a, (len + 1) * sizeof *order);
    for (uint32_t i = 0; i < len; i++) {
        uint32_t j = i;
        for (; j > 0 && strcmp(scalar(map_key(n, order[j - 1])), scalar(map_key(n, i))) > 0; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    node *c = node_map(a);
    for (uint32_t i = 0; i < len; i++)
        map_append(a, c, map_key(n, order[i]), sorted(a, map_val(n, order[i])));
    return c;
}

struct texts {
    const char **v;
    size_t n, cap;
};

static void comments(struct texts *t, const node *n)
{
    const char *c[3] = {node_head(n), node_comment(n), node_foot(n)};
    for (int i = 0; i < 3; i++) {
        if (!c[i] || !*c[i])
            continue;
        if (t->n == t->cap)
            t->v = xrealloc(t->v, (t->cap = t->cap ? 2 * t->cap : 16) * sizeof *t->v);
        t->v[t->n++] = c[i];
    }
    for (uint32_t i = 0; (is_map(n) || is_seq(n)) && i < node_len(n); i++) {
        if (is_map(n))
            comments(t, map_key(n, i));
        comments(t, is_map(n) ? map_val(n, i) : seq_item(n, i));
    }
}

static int by_text(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static void put(struct out *o, node *obj)
{
    if (o->file) {
        emit_json(&o->b, o->sorted ? sorted(o->a, obj) : obj);
        buf_puts(&o->b, "\n#");
        struct texts t = {0};
        comments(&t, obj);
        if (o->sorted && t.n)
            qsort(t.v, t.n, sizeof *t.v, by_text);
        for (size_t i = 0; i < t.n; i++)
            buf_printf(&o->b, " | %s", t.v[i]);
        free(t.v);
        buf_putc(&o->b, '\n');
        return;
    }
    if (!is_map(obj))
        return;
    const char *kind = path_str(obj, "kind", NULL), *api = path_str(obj, "apiVersion", NULL);
    if (kind && !strcmp(kind, "Kptfile") && api && !strncmp(api, "kpt.dev/", 8))
        return;
    /* a kustomization in any file (kind Kustomization or Component, kustomize's apiVersion or none) */
    if (kind && (!strcmp(kind, "Kustomization") || !strcmp(kind, "Component")) &&
        (!api || !strncmp(api, "kustomize.config.k8s.io/", 24)))
        return;
    const char *lc = path_str(obj, "metadata", "annotations", "config.kubernetes.io/local-config", NULL);
    if (lc && strcmp(lc, "false"))
        return;
    const char *path = path_str(obj, "metadata", "annotations", "internal.config.kubernetes.io/path", NULL);
    if (!path)
        path = path_str(obj, "metadata", "annotations", "config.kubernetes.io/path", NULL);
    if (kustomization_file(path))
        return;
    node *items = map_get(obj, "items");
    if (items && is_seq(items)) {
        for (uint32_t i = 0; i < node_len(items); i++)
            put(o, seq_item(items, i));
        return;
    }
    node *md = map_get(obj, "metadata");
    node *ann = map_get(md, "annotations");
    if (is_map(ann)) {
        uint32_t before = node_len(ann);
        for (uint32_t i = node_len(ann); i-- > 0;) {
            const char *k = scalar(map_key(ann, i));
            if (k && bookkeeping(k))
                map_remove(ann, i);
        }
        if (before && !node_len(ann))
            map_delete(md, "annotations");
    }
    emit_json(&o->b, sorted(o->a, obj));
    buf_putc(&o->b, '\n');
}

static int on_doc(void *ud, node *root, uint32_t index, uint32_t line, int seq_wide)
{
    (void)index;
    (void)line;
    (void)seq_wide;
    struct out *o = ud;
    if (!o->file && is_map(root) && scalar_is(map_get(root, "kind"), "ResourceList") && is_seq(map_get(root, "items"))) {
        node *items = map_get(root, "items");
        for (uint32_t i = 0; i < node_len(items); i++)
            put(o, seq_item(items, i));
        return 0;
    }
    put(o, root);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "stream") && strcmp(argv[1], "file") && strcmp(argv[1], "file-sorted"))) {
        fprintf(stderr, "usage: krmstream stream|file|file-sorted FILE\n");
        return 64;
    }
    argv++;
    char *data;
    size_t len;
    if (read_text_file(NULL, argv[1], argv[1], &data, &len) < 0) {
        fprintf(stderr, "krmstream: %s\n", diag_message());
        return 64;
    }
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    struct out o = {.a = a, .file = strncmp(argv[0], "file", 4) == 0, .sorted = !strcmp(argv[0], "file-sorted")};
    int rc = 0;
    if (!o.file && len && data[0] == '{') {
        /* `-o json`: one object a line (JSON lines are not one YAML stream) */
        uint32_t line = 1;
        for (char *p = data; rc == 0 && p < data + len; line++) {
            char *e = memchr(p, '\n', (size_t)(data + len - p));
            size_t n = e ? (size_t)(e - p) : (size_t)(data + len - p);
            node *root = NULL;
            rc = yaml_load_one(a, st, NULL, arena_printf(a, "%s:%u", argv[1], line), p, n, &root);
            if (rc == 0 && root)
                on_doc(&o, root, 0, line, 0);
            p += n + 1;
        }
    } else {
        rc = yaml_load(a, st, NULL, argv[1], data, len, on_doc, &o);
    }
    if (rc != 0) {
        fprintf(stderr, "krmstream: %s\n", diag_failed() ? diag_message() : "parse error");
        return 64;
    }
    fwrite(o.b.data, 1, o.b.len, stdout);
    free(data);
    buf_free(&o.b);
    strtab_release(st);
    arena_free(a);
    return 0;
}
