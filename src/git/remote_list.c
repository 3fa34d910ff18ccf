/* serve-params's view of a remote repository: its revision resolved through the fetch cache `pkg get` uses, and the
 * files of one name in the tree of a commit, read from the objects (nothing is checked out). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "git/cache.h"
#include "util/diag.h"

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

int gitsrc_keep_loaded(void)
{
    return gitsrc_open(NULL, "serve-params"); /* never closed: the reference keeps the state */
}

/* "HEAD": the remote's default branch, as the last fetch recorded it in the cache's own HEAD */
static int resolve_head(cache *c, const pkg_source *src, git_oid *out)
{
    git_reference *ref = NULL;
    git_object *obj = NULL;
    int rc = git_reference_lookup(&ref, c->repo, "HEAD");
    if (rc == 0)
        rc = git_reference_peel(&obj, ref, GIT_OBJECT_COMMIT);
    if (rc == 0)
        git_oid_cpy(out, git_object_id(obj));
    git_object_free(obj);
    git_reference_free(ref);
    return rc == 0 ? 0 : fail(NULL, 0, "%s: HEAD names no commit (the remote did not tell its default branch)", src->key);
}

int gitsrc_remote_commit(arena *a, const gitsrc_env *env, const pkg_source *src, const char **commit)
{
    if (gitsrc_open(NULL, "serve-params") < 0)
        return -1;
    cache c;
    git_oid oid;
    const char *lock_ref;
    int rc = cache_open(a, env, src, &c);
    if (rc == 0)
        rc = !strcmp(src->ref, "HEAD") ? resolve_head(&c, src, &oid) : cache_resolve(a, &c, src, src->ref, &lock_ref, &oid);
    if (rc == 0) {
        char hex[GIT_OID_HEXSZ + 1];
        git_oid_tostr(hex, sizeof hex, &oid);
        *commit = arena_strdup(a, hex);
    }
    cache_close(&c);
    gitsrc_close();
    return rc;
}

/* A tree path longer than this (a git tree name may be 64 KB, nested 60 deep) is an error naming it, never a skip:
 * no file system a package is checked out to holds it, and the walk's work stays linear in the entries. */
#define GITSRC_MAX_PATH 4096

typedef struct walk {
    arena *a;
    char path[GITSRC_MAX_PATH + 1]; /* the entry's path, built in place: one buffer for the whole walk */
    git_repository *repo;
    const pkg_source *src;
    const char *name;
    int max_depth;
    size_t max_entries, max_bytes, entries;
    gitsrc_file_fn fn;
    void *ud;
} walk;

/* The entries of `tree`, whose path is w->path[0..dlen) ("" at the root). */
static int walk_tree(walk *w, const git_tree *tree, size_t dlen, int depth)
{
    if (depth > w->max_depth)
        return fail(NULL, 0, "%s: %s: directories nested deeper than %d", w->src->key, w->path, w->max_depth);
    char *dir = w->path;
    size_t n = git_tree_entrycount(tree);
    for (size_t i = 0; i < n; i++) {
        dir[dlen] = 0;
        if (++w->entries > w->max_entries)
            return fail(NULL, 0, "%s: more than %zu files and directories in the tree", w->src->key, w->max_entries);
        if (w->src->deadline_ms && now_ms() > w->src->deadline_ms) /* each entry: one may be costly */
            return fail(NULL, 0, "%s: reading the tree ran past the time budget", w->src->key);
        const git_tree_entry *e = git_tree_entry_byindex(tree, i);
        const char *ename = git_tree_entry_name(e);
        git_filemode_t mode = git_tree_entry_filemode(e);
        size_t el = strlen(ename), plen = dlen + (dlen > 0) + el;
        if (plen > GITSRC_MAX_PATH)
            return fail(NULL, 0, "%s: \"%.200s/%.200s...\": a path longer than %d bytes in the tree", w->src->key,
                        dir, ename, GITSRC_MAX_PATH);
        if (dlen)
            dir[dlen] = '/';
        memcpy(dir + dlen + (dlen > 0), ename, el + 1);
        const char *path = dir;
        if (mode == GIT_FILEMODE_TREE) {
            git_tree *sub = NULL;
            if (git_tree_lookup(&sub, w->repo, git_tree_entry_id(e)) < 0)
                return fail(NULL, 0, "%s: %s: %s", w->src->key, path, gitsrc_last_message());
            int rc = walk_tree(w, sub, plen, depth + 1);
            git_tree_free(sub);
            if (rc < 0)
                return rc;
            continue;
        }
        if (strcmp(ename, w->name))
            continue;
        if (mode == GIT_FILEMODE_LINK)
            return fail(path, 0, "%s is a symlink: a package descriptor must be a file", w->name);
        if (mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE)
            continue; /* a submodule named so: no file, as a clone without submodules has none */
        git_blob *b = NULL;
        if (git_blob_lookup(&b, w->repo, git_tree_entry_id(e)) < 0)
            return fail(path, 0, "%s: %s", w->src->key, gitsrc_last_message());
        size_t len = (size_t)git_blob_rawsize(b);
        int rc = len > w->max_bytes ? fail(path, 0, "%zu bytes, more than the %zu a %s may have", len, w->max_bytes, w->name)
                                    : (dir[dlen] = 0, w->fn(w->ud, dir, git_blob_rawcontent(b), len));
        git_blob_free(b);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int gitsrc_tree_files(arena *a, const gitsrc_env *env, const pkg_source *src, const char *commit, const char *name,
                      int max_depth, size_t max_entries, size_t max_bytes, gitsrc_file_fn fn, void *ud)
{
    if (gitsrc_open(NULL, "serve-params") < 0)
        return -1;
    pkg_source s = *src;
    s.ref = commit; /* present after gitsrc_remote_commit: cache_open fetches nothing */
    s.no_fetch = true;
    cache c;
    git_oid oid;
    git_commit *cm = NULL;
    git_tree *tree = NULL;
    int rc = cache_open(a, env, &s, &c);
    if (rc == 0 && (git_oid_fromstr(&oid, commit) < 0 || git_commit_lookup(&cm, c.repo, &oid) < 0 ||
                    git_commit_tree(&tree, cm) < 0))
        rc = fail(NULL, 0, "%s: commit %s: %s", src->key, commit, gitsrc_last_message());
    if (rc == 0) {
        walk *w = calloc(1, sizeof *w);
        if (!w)
            abort();
        *w = (walk){.a = a, .repo = c.repo, .src = &s, .name = name, .max_depth = max_depth,
                    .max_entries = max_entries, .max_bytes = max_bytes, .fn = fn, .ud = ud};
        rc = walk_tree(w, tree, 0, 0);
        free(w);
    }
    git_tree_free(tree);
    git_commit_free(cm);
    cache_close(&c);
    gitsrc_close();
    return rc;
}
