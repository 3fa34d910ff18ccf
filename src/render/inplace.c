#include "render/inplace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/diag.h"
#include "util/fsutil.h"
#include "yaml/emit.h"

struct placed {
    const char *file; /* relative to the root package */
    const resource *r;
    size_t order;
};

static const char *file_of(arena *a, const resource *r)
{
    const char *rel = r->pkg ? r->pkg->rel : "";
    return rel && *rel ? arena_printf(a, "%s/%s", rel, r->path) : r->path;
}

static int cmp_placed(const void *x, const void *y)
{
    const struct placed *a = x, *b = y;
    int c = strcmp(a->file, b->file);
    if (c)
        return c;
    if (a->r->index != b->r->index)
        return a->r->index < b->r->index ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

static void collect_original(arena *a, package *p, char ***files, size_t *n, size_t *cap)
{
    for (size_t i = 0; i < p->own.n; i++) {
        const char *f = file_of(a, p->own.v[i]);
        if (*n && !strcmp((*files)[*n - 1], f))
            continue;
        if (*n == *cap)
            *files = xrealloc(*files, (*cap = *cap ? *cap * 2 : 64) * sizeof **files);
        (*files)[(*n)++] = (char *)f;
    }
    for (size_t i = 0; i < p->nsubs; i++)
        collect_original(a, p->subs[i], files, n, cap);
}

static int mkdirs(char *path)
{
    for (char *s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = 0;
        int rc = mkdir(path, 0755);
        *s = '/';
        if (rc != 0 && errno != EEXIST)
            return -1;
    }
    return 0;
}

/* The file's directory must be inside the package, and the file itself no symlink: a package may hold a
 * directory symlink (kpt does not follow them when reading), and writing through it would leave the package. */
static bool stays_inside(arena *a, const char *root, const char *path)
{
    char *dir = arena_strdup(a, path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
        return false;
    return inside(root, dir);
}

static int write_file(arena *a, const char *root, const char *rel, const buf *b)
{
    char *path = arena_printf(a, "%s/%s", root, rel);
    char *tmp = arena_printf(a, "%s.cmp-generate-%d.tmp", path, (int)getpid());
    if (mkdirs(path) < 0)
        return fail(rel, 0, "write: cannot create its directory: %s", strerror(errno));
    if (!stays_inside(a, root, path))
        return fail(rel, 0, "write: the path goes through a symlink out of the package; refusing to write it");
    FILE *f = fopen(tmp, "w");
    if (!f)
        return fail(rel, 0, "write: %s", strerror(errno));
    size_t w = b->len ? fwrite(b->data, 1, b->len, f) : 0;
    if (fclose(f) != 0 || w != b->len || rename(tmp, path) != 0) {
        unlink(tmp);
        return fail(rel, 0, "write: %s", strerror(errno));
    }
    return 0;
}

static void attribute(arena *a, resource *r)
{
    const char *av = res_api_version(r);
    if (!av || !strstr(av, ".cnrm."))
        return;
    node *ann = map_ensure_map(a, map_ensure_map(a, r->root, "metadata"), "annotations");
    if (!ann || map_get(ann, "cnrm.cloud.google.com/blueprint"))
        return;
    map_set(a, ann, "cnrm.cloud.google.com/blueprint", node_scalar(a, "kpt-fn", 6, ST_SINGLE));
}

int write_in_place(arena *a, package *root, const rlist *items, bool attribution)
{
    struct placed *v = xmalloc((items->n + 1) * sizeof *v);
    for (size_t i = 0; i < items->n; i++) {
        resource *r = items->v[i];
        if (!r->path) {
            free(v);
            return fail(res_id(a, r), 0, "write: the object has no file to go to");
        }
        if (!safe_relative_path(r->path)) {
            free(v);
            return fail(r->path, 0, "write: path leaves the package");
        }
        if (attribution)
            attribute(a, r);
        v[i] = (struct placed){file_of(a, r), r, i};
    }
    qsort(v, items->n, sizeof *v, cmp_placed);
    int rc = 0;
    char **written = xmalloc((items->n + 1) * sizeof *written);
    size_t nwritten = 0;
    for (size_t i = 0; i < items->n && rc == 0;) {
        size_t j = i;
        buf b = {0};
        for (; j < items->n && !strcmp(v[j].file, v[i].file); j++) {
            if (j > i)
                buf_puts(&b, "---\n");
            emit_opts eo = {.seq_wide = v[j].r->seq_wide, .comments = true};
            emit_yaml(&b, v[j].r->root, &eo);
        }
        rc = write_file(a, root->abs, v[i].file, &b);
        buf_free(&b);
        written[nwritten++] = (char *)v[i].file;
        i = j;
    }
    /* Files that held objects before and hold none now are removed, as kpt prunes them. */
    char **orig = NULL;
    size_t norig = 0, cap = 0;
    collect_original(a, root, &orig, &norig, &cap);
    for (size_t i = 0; i < norig && rc == 0; i++) {
        bool kept = bsearch(&orig[i], written, nwritten, sizeof *written, cmp_str) != NULL;
        const char *gone = arena_printf(a, "%s/%s", root->abs, orig[i]);
        if (!kept && stays_inside(a, root->abs, gone) && unlink(gone) != 0 && errno != ENOENT)
            rc = fail(orig[i], 0, "write: cannot remove: %s", strerror(errno));
    }
    free(orig);
    free(written);
    free(v);
    return rc;
}
