#include "render/inplace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
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

/* Writing back never leaves the package, whatever symlinks its author planted: every directory is opened from the
 * package root one component at a time with O_NOFOLLOW (created with mkdirat where missing), every file is first
 * written to a temporary created exclusively in its directory, and only when all of them are written are they
 * renamed into place. A symlink anywhere on a path is refused, never followed. */

struct staged {
    const char *file; /* relative to the root package */
    const char *dir;  /* its directory, "" for the root */
    const char *base;
    char tmp[64];
};

struct writer {
    arena *a;
    int root_fd;
    struct staged *v;
    size_t n;
    const char **made; /* directories created here, to remove again on failure */
    size_t nmade;
};

static int refuse_link(const char *file, const char *part)
{
    return fail(file, 0, "\"%s\" is a symlink; in-place writes never go through one (it could lead out of "
                "the package)", part);
}

/* The directory dir (relative to the root, components separated by '/') as a descriptor, opened without following
 * any symlink. With create, missing directories are made (and remembered); otherwise a missing one gives -1 with
 * errno ENOENT. A symlink or a non-directory on the way fails with a message naming it. */
static int open_dir(struct writer *W, const char *file, const char *dir, bool create)
{
    int fd = dup(W->root_fd);
    if (fd < 0)
        return fail(file, 0, "%s", strerror(errno));
    size_t len = strlen(dir);
    for (size_t i = 0; i < len;) {
        size_t e = i + strcspn(dir + i, "/");
        char *part = arena_strndup(W->a, dir + i, e - i);
        const char *upto = arena_strndup(W->a, dir, e);
        i = e + (e < len);
        if (!*part || !strcmp(part, "."))
            continue;
        if (create) {
            if (mkdirat(fd, part, 0755) == 0) {
                W->made = xrealloc(W->made, (W->nmade + 1) * sizeof *W->made);
                W->made[W->nmade++] = upto;
            } else if (errno != EEXIST) {
                int e2 = errno;
                close(fd);
                return fail(file, 0, "cannot create the directory \"%s\": %s", upto, strerror(e2));
            }
        }
        int next = openat(fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int err = errno;
        if (next < 0) {
            struct stat st;
            bool link = fstatat(fd, part, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
            close(fd);
            if (link)
                return refuse_link(file, upto);
            if (err == ENOENT && !create) {
                errno = ENOENT;
                return -1;
            }
            return fail(file, 0, "cannot open the directory \"%s\": %s", upto, strerror(err));
        }
        close(fd);
        fd = next;
    }
    return fd;
}

/* The file's temporary, beside it; the mode of the file it replaces, 0600 for a new one (as kpt writes them). */
static int stage(struct writer *W, const char *file, const buf *b)
{
    struct staged *s = &W->v[W->n];
    s->file = file;
    const char *slash = strrchr(file, '/');
    s->dir = slash ? arena_strndup(W->a, file, (size_t)(slash - file)) : "";
    s->base = slash ? slash + 1 : file;
    if (!*s->base || !strcmp(s->base, ".") || !strcmp(s->base, ".."))
        return fail(file, 0, "not a file name");
    int dfd = open_dir(W, file, s->dir, true);
    if (dfd < 0)
        return -1;
    struct stat st;
    unsigned mode = 0600;
    int rc = 0;
    if (fstatat(dfd, s->base, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        if (S_ISLNK(st.st_mode))
            rc = refuse_link(file, file);
        else if (!S_ISREG(st.st_mode))
            rc = fail(file, 0, "exists and is not a regular file");
        mode = (unsigned)st.st_mode & 0777;
    } else if (errno != ENOENT) {
        rc = fail(file, 0, "%s", strerror(errno));
    }
    if (rc == 0 && temp_file_at(dfd, b->data, b->len, mode, s->tmp) != 0)
        rc = fail(file, 0, "%s", strerror(errno));
    if (rc == 0)
        W->n++;
    close(dfd);
    return rc;
}

/* After a failure: the temporaries and the directories made for them go; the package is as it was. */
static void unstage(struct writer *W)
{
    for (size_t i = 0; i < W->n; i++) {
        int dfd = open_dir(W, W->v[i].file, W->v[i].dir, false);
        if (dfd >= 0) {
            unlinkat(dfd, W->v[i].tmp, 0);
            close(dfd);
        }
    }
    for (size_t i = W->nmade; i-- > 0;)
        unlinkat(W->root_fd, W->made[i], AT_REMOVEDIR);
}

static int commit(struct writer *W, struct staged *s)
{
    int dfd = open_dir(W, s->file, s->dir, false);
    if (dfd < 0)
        return diag_failed() ? -1 : fail(s->file, 0, "%s", strerror(errno));
    int rc = 0;
    struct stat st;
    if (fstatat(dfd, s->base, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        rc = refuse_link(s->file, s->file);
    else if (renameat(dfd, s->tmp, dfd, s->base) != 0)
        rc = fail(s->file, 0, "%s", strerror(errno));
    if (rc < 0)
        unlinkat(dfd, s->tmp, 0);
    close(dfd);
    return rc;
}

/* A file that held objects and holds none now is removed, as kpt prunes it: the entry itself (a symlink, not what
 * it points to). Already gone, it is left alone; a symlink among its directories is refused as for a write. */
static int prune(struct writer *W, const char *file)
{
    const char *slash = strrchr(file, '/');
    const char *dir = slash ? arena_strndup(W->a, file, (size_t)(slash - file)) : "";
    const char *base = slash ? slash + 1 : file;
    int dfd = open_dir(W, file, dir, false);
    if (dfd < 0) {
        if (errno == ENOENT && !diag_failed())
            return 0;
        return -1;
    }
    struct stat st;
    int rc = 0;
    if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode) && unlinkat(dfd, base, 0) != 0 &&
        errno != ENOENT)
        rc = fail(file, 0, "cannot remove: %s", strerror(errno));
    close(dfd);
    return rc;
}

/* What a file would be written as: its objects in order, as in-place writes emit them. v[0..n) are one file's. */
static void emit_file(buf *b, const struct placed *v, size_t n)
{
    for (size_t j = 0; j < n; j++) {
        if (j)
            buf_puts(b, "---\n");
        emit_opts eo = {.seq_wide = v[j].r->seq_wide, .comments = true, .documents = true, .keep_style = true};
        emit_yaml(b, v[j].r->root, &eo);
    }
}

/* The files in order, each with the run of v that holds its objects: fn(ud, file, first, count) for each. */
static int each_file(struct placed *v, size_t n, int (*fn)(void *, const char *, const struct placed *, size_t),
                     void *ud)
{
    qsort(v, n, sizeof *v, cmp_placed);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && !strcmp(v[j].file, v[i].file))
            j++;
        if (fn(ud, v[i].file, v + i, j - i) < 0)
            return -1;
        i = j;
    }
    return 0;
}

/* Two independent 64-bit hashes of a file's text: a file is left alone only when both and its length are the
 * same before and after the pipeline. */
struct digest {
    uint64_t a, b;
    size_t len;
};

static struct digest digest_of(const buf *t)
{
    struct digest d = {0xcbf29ce484222325ull, 0x9e3779b97f4a7c15ull, t->len};
    for (size_t i = 0; i < t->len; i++) {
        unsigned char c = (unsigned char)t->data[i];
        d.a = (d.a ^ c) * 0x100000001b3ull;
        d.b = (d.b + c + 1) * 0xff51afd7ed558ccdull;
        d.b ^= d.b >> 29;
    }
    return d;
}

struct file_digest {
    const char *file;
    struct digest d;
};

struct inplace_before {
    struct file_digest *v;
    size_t n;
};

static void collect_resources(arena *a, package *p, struct placed **v, size_t *n, size_t *cap)
{
    for (size_t i = 0; i < p->own.n; i++) {
        if (!p->own.v[i]->path)
            continue;
        if (*n == *cap)
            *v = xrealloc(*v, (*cap = *cap ? *cap * 2 : 64) * sizeof **v);
        (*v)[*n] = (struct placed){file_of(a, p->own.v[i]), p->own.v[i], *n};
        (*n)++;
    }
    for (size_t i = 0; i < p->nsubs; i++)
        collect_resources(a, p->subs[i], v, n, cap);
}

static int remember_file(void *ud, const char *file, const struct placed *v, size_t n)
{
    struct inplace_before *B = ud;
    buf b = {0};
    emit_file(&b, v, n);
    B->v[B->n++] = (struct file_digest){file, digest_of(&b)};
    buf_free(&b);
    return 0;
}

inplace_before *inplace_remember(arena *a, package *root)
{
    struct placed *v = NULL;
    size_t n = 0, cap = 0;
    collect_resources(a, root, &v, &n, &cap);
    inplace_before *B = arena_alloc(a, sizeof *B);
    B->v = arena_alloc(a, (n + 1) * sizeof *B->v);
    each_file(v, n, remember_file, B);
    xfree(v);
    return B;
}

static const struct digest *digest_before(const inplace_before *B, const char *file)
{
    size_t lo = 0, hi = B ? B->n : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(B->v[mid].file, file);
        if (!c)
            return &B->v[mid].d;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

struct write_pass {
    struct writer *W;
    const inplace_before *before;
    char **written;
    size_t nwritten;
};

/* A file whose text is what it was before the pipeline is left as it is, bytes and time: a function changed
 * nothing in it, and the source may hold what the emitter would not write the same way (blank lines). */
static int write_file(void *ud, const char *file, const struct placed *v, size_t n)
{
    struct write_pass *P = ud;
    P->written[P->nwritten++] = (char *)file;
    buf b = {0};
    emit_file(&b, v, n);
    const struct digest *was = digest_before(P->before, file);
    struct digest now = digest_of(&b);
    int rc = 0;
    if (!was || was->a != now.a || was->b != now.b || was->len != now.len)
        rc = stage(P->W, file, &b);
    buf_free(&b);
    return rc;
}

int write_in_place(arena *a, package *root, const rlist *items, const inplace_before *before)
{
    struct placed *v = xmalloc((items->n + 1) * sizeof *v);
    for (size_t i = 0; i < items->n; i++) {
        resource *r = items->v[i];
        if (!r->path) {
            xfree(v);
            return fail(res_id(a, r), 0, "the object has no file to go to");
        }
        if (!safe_relative_path(r->path)) {
            xfree(v);
            return fail(r->path, 0, "path leaves the package");
        }
        v[i] = (struct placed){file_of(a, r), r, i};
        /* writable one directory at a time, but the reader could not take it back */
        if (path_fits(arena_printf(a, "%s/%s", root->abs, v[i].file), v[i].file) < 0) {
            xfree(v);
            return -1;
        }
    }
    struct writer W = {.a = a, .v = xmalloc((items->n + 1) * sizeof *W.v)};
    W.root_fd = open(root->abs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int rc = W.root_fd < 0 ? fail(root->abs, 0, "%s", strerror(errno)) : 0;
    struct write_pass P = {&W, before, xmalloc((items->n + 1) * sizeof *P.written), 0};
    if (rc == 0)
        rc = each_file(v, items->n, write_file, &P);
    char **written = P.written;
    size_t nwritten = P.nwritten;
    if (rc < 0 && W.root_fd >= 0)
        unstage(&W);
    for (size_t i = 0; i < W.n && rc == 0; i++)
        rc = commit(&W, &W.v[i]);
    char **orig = NULL;
    size_t norig = 0, cap = 0;
    collect_original(a, root, &orig, &norig, &cap);
    for (size_t i = 0; i < norig && rc == 0; i++)
        if (!bsearch(&orig[i], written, nwritten, sizeof *written, cmp_str))
            rc = prune(&W, orig[i]);
    if (W.root_fd >= 0)
        close(W.root_fd);
    xfree(W.made);
    xfree(W.v);
    xfree(orig);
    xfree(written);
    xfree(v);
    return rc;
}
