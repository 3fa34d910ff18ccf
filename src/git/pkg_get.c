/* `pkg get`: one directory of a git repository at one commit, written from the tree objects into a new package
 * directory, with the upstream and upstreamLock that kpt records in its Kptfile. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "git/cache.h"
#include "util/diag.h"
#include "util/fsutil.h"
#include "yaml/emit.h"
#include "yaml/load.h"

enum { MAX_DEPTH = 200 };

typedef struct getctx {
    arena *a;
    git_repository *repo;
    const char *display; /* "<repo><directory>@<ref>" for messages */
    const limits *limits;
} getctx;

static int write_file(const char *path, const void *data, size_t n, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    int rc = write_all(fd, data, n);
    if (rc == 0)
        rc = fchmod(fd, mode);
    if (close(fd) != 0)
        rc = -1;
    return rc;
}

/* Names git itself refuses to check out, and anything that is not one plain path component. */
static bool safe_name(const char *name)
{
    return *name && strcmp(name, ".") && strcmp(name, "..") && strcasecmp(name, ".git") && !strchr(name, '/');
}

/* A symlink is recreated only when it cannot lead outside the package: a relative target whose ".." steps all
 * come first and climb no higher than the package root. Leading ".." steps start from the link's own directory,
 * which is a real directory of the tree; every later step goes down, through directories or through links that
 * passed this same test, so no chain of links can escape either. */
static bool link_stays_inside(const char *rel_dir, const char *target)
{
    if (!*target || target[0] == '/')
        return false;
    int depth = 0;
    for (const char *p = rel_dir; *p; p++)
        if (*p == '/')
            depth++;
    if (*rel_dir)
        depth++;
    bool down = false;
    for (const char *p = target; *p;) {
        size_t n = strcspn(p, "/");
        if (n == 2 && !strncmp(p, "..", 2)) {
            if (down || --depth < 0)
                return false;
        } else if (n && !(n == 1 && *p == '.')) {
            down = true;
        }
        p += n;
        if (*p == '/')
            p++;
    }
    return true;
}

static int write_tree(getctx *g, const git_tree *tree, const char *fs, const char *rel, int depth)
{
    if (depth > MAX_DEPTH)
        return fail(NULL, 0, "%s: directories nested deeper than %d", g->display, MAX_DEPTH);
    size_t n = git_tree_entrycount(tree);
    for (size_t i = 0; i < n; i++) {
        const git_tree_entry *e = git_tree_entry_byindex(tree, i);
        const char *name = git_tree_entry_name(e);
        const char *erel = *rel ? arena_printf(g->a, "%s/%s", rel, name) : name;
        if (!safe_name(name))
            return fail(NULL, 0, "%s: refusing the unsafe path \"%s\"", g->display, erel);
        if (depth == 0 && !strcmp(name, "Kptfile"))
            continue; /* written last, with upstream and upstreamLock */
        const char *path = arena_printf(g->a, "%s/%s", fs, name);
        git_filemode_t mode = git_tree_entry_filemode(e);
        if (mode == GIT_FILEMODE_TREE) {
            git_tree *sub = NULL;
            if (git_tree_lookup(&sub, g->repo, git_tree_entry_id(e)) < 0)
                return fail(NULL, 0, "%s: %s: %s", g->display, erel, gitsrc_last_message());
            int rc = mkdir(path, 0700) == 0 ? 0 : fail(erel, 0, "cannot create the directory: %s", strerror(errno));
            if (rc == 0)
                rc = write_tree(g, sub, path, erel, depth + 1);
            if (rc == 0 && chmod(path, 0755) != 0)
                rc = fail(erel, 0, "chmod: %s", strerror(errno));
            git_tree_free(sub);
            if (rc < 0)
                return rc;
        } else if (mode == GIT_FILEMODE_BLOB || mode == GIT_FILEMODE_BLOB_EXECUTABLE || mode == GIT_FILEMODE_LINK) {
            git_blob *b = NULL;
            if (git_blob_lookup(&b, g->repo, git_tree_entry_id(e)) < 0)
                return fail(NULL, 0, "%s: %s: %s", g->display, erel, gitsrc_last_message());
            const char *data = git_blob_rawcontent(b);
            size_t len = (size_t)git_blob_rawsize(b);
            int rc = 0;
            if (mode == GIT_FILEMODE_LINK) {
                char *target = arena_strndup(g->a, data, len);
                if (strlen(target) != len || !link_stays_inside(rel, target))
                    rc = fail(NULL, 0, "%s: the symlink \"%s\" -> \"%s\" could point outside the package; refusing it",
                              g->display, erel, target);
                else if (symlink(target, path) != 0)
                    rc = fail(erel, 0, "cannot create the symlink: %s", strerror(errno));
            } else if (write_file(path, data, len, mode == GIT_FILEMODE_BLOB_EXECUTABLE ? 0755 : 0644) != 0) {
                rc = fail(erel, 0, "cannot write: %s", strerror(errno));
            }
            git_blob_free(b);
            if (rc < 0)
                return rc;
        } else if (mode == GIT_FILEMODE_COMMIT) {
            /* a submodule: an empty directory, as a clone without --recurse-submodules leaves it */
            if (mkdir(path, 0755) != 0)
                return fail(erel, 0, "cannot create the directory: %s", strerror(errno));
        }
    }
    return 0;
}

struct one_doc {
    node *root;
    int seq_wide;
};

static int take_doc(void *ud, node *root, uint32_t index, uint32_t line, int seq_wide)
{
    struct one_doc *d = ud;
    if (index > 0)
        return fail("Kptfile", (int)line, "expected a single document, found more");
    d->root = root;
    d->seq_wide = seq_wide;
    return 0;
}

static node *git_map(arena *a, const pkg_get_result *r, bool lock)
{
    node *git = node_map(a);
    map_set_str(a, git, "repo", r->repo);
    map_set_str(a, git, "directory", r->directory);
    map_set_str(a, git, "ref", lock ? r->lock_ref : r->ref);
    if (lock)
        map_set_str(a, git, "commit", r->commit);
    node *m = node_map(a);
    map_set_str(a, m, "type", "git");
    map_set(a, m, "git", git);
    if (!lock)
        map_set_str(a, m, "updateStrategy", "resource-merge");
    return m;
}

/* DIR's Kptfile (or a minimal one) with metadata.name = the destination's name, as kpt names the package, and
 * upstream and upstreamLock placed after metadata; every other field, comment and the order are kept. */
static int write_kptfile(getctx *g, const git_tree_entry *e, const char *tmp, const char *name, const pkg_get_result *r)
{
    arena *a = g->a;
    strtab *st = strtab_new(a);
    struct one_doc d = {0};
    mode_t mode = 0644;
    int rc = 0;
    if (e) {
        git_blob *b = NULL;
        if (git_tree_entry_filemode(e) == GIT_FILEMODE_LINK)
            rc = fail("Kptfile", 0, "%s: the package's Kptfile is a symlink; refusing it", g->display);
        else if (git_tree_entry_type(e) != GIT_OBJECT_BLOB)
            rc = fail("Kptfile", 0, "%s: the package's Kptfile is not a file", g->display);
        else if (git_blob_lookup(&b, g->repo, git_tree_entry_id(e)) < 0)
            rc = fail("Kptfile", 0, "%s: %s", g->display, gitsrc_last_message());
        if (rc == 0) {
            size_t len = (size_t)git_blob_rawsize(b);
            char *text = arena_strndup(a, git_blob_rawcontent(b), len);
            if (strlen(text) != len)
                rc = fail("Kptfile", 0, "%s: the package's Kptfile is not text", g->display);
            else
                rc = yaml_load(a, st, limits_yaml(g->limits), "Kptfile", text, len, take_doc, &d);
            if (git_tree_entry_filemode(e) == GIT_FILEMODE_BLOB_EXECUTABLE)
                mode = 0755;
        }
        git_blob_free(b);
        if (rc == 0 && d.root && !is_map(d.root))
            rc = fail("Kptfile", 0, "%s: the package's Kptfile is not a mapping", g->display);
    }
    node *root = d.root;
    if (rc == 0 && !root) {
        root = node_map(a);
        map_set_str(a, root, "apiVersion", "kpt.dev/v1");
        map_set_str(a, root, "kind", "Kptfile");
    }
    node *md = rc == 0 ? map_ensure_map(a, root, "metadata") : NULL;
    if (rc == 0 && !md)
        rc = fail("Kptfile", 0, "%s: metadata is not a mapping", g->display);
    if (rc == 0) {
        map_set_str(a, md, "name", name);
        node *kept = node_map(a);
        bool placed = false;
        map_foreach(root, i, k, val) {
            if (scalar_is(k, "upstream") || scalar_is(k, "upstreamLock"))
                continue;
            map_append(a, kept, k, val);
            if (!placed && scalar_is(k, "metadata")) {
                map_set(a, kept, "upstream", git_map(a, r, false));
                map_set(a, kept, "upstreamLock", git_map(a, r, true));
                placed = true;
            }
        }
        node_clear(root); /* root keeps its style, comments and tag; only its entries change */
        map_foreach(kept, i, key, val)
            map_append(a, root, key, val);
        buf out = {0};
        emit_opts eo = {.seq_wide = d.seq_wide, .comments = true};
        emit_yaml(&out, root, &eo);
        const char *path = arena_printf(a, "%s/Kptfile", tmp);
        if (write_file(path, out.data, out.len, mode) != 0)
            rc = fail("Kptfile", 0, "cannot write: %s", strerror(errno));
        buf_free(&out);
    }
    strtab_release(st);
    return rc;
}

static bool dir_is_empty(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return false;
    struct dirent *e;
    bool empty = true;
    while (empty && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            empty = false;
    closedir(d);
    return empty;
}

static const char *base_name(arena *a, const char *p)
{
    const char *s = strrchr(p, '/');
    return arena_strdup(a, s ? s + 1 : p);
}

/* The destination's absolute path (its parent resolved) and the package name; refuses a non-empty one. */
static int check_dest(arena *a, const char *dest, const char **abs_out, const char **name_out)
{
    char *d = arena_strdup(a, dest);
    size_t n = strlen(d);
    while (n > 1 && d[n - 1] == '/')
        d[--n] = 0;
    char r[PATH_MAX];
    struct stat st;
    const char *abs;
    if (stat(d, &st) == 0) {
        if (!S_ISDIR(st.st_mode))
            return fail(dest, 0, "the destination exists and is not a directory");
        if (!dir_is_empty(d))
            return fail(dest, 0, "the destination is not empty; refusing to write into it");
        if (!realpath(d, r))
            return fail(dest, 0, "%s", strerror(errno));
        abs = arena_strdup(a, r);
    } else if (errno == ENOENT) {
        struct stat lst;
        if (lstat(d, &lst) == 0)
            return fail(dest, 0, "the destination is a dangling symlink");
        char *slash = strrchr(d, '/');
        const char *parent = slash ? (slash == d ? "/" : arena_strndup(a, d, (size_t)(slash - d))) : ".";
        const char *base = slash ? slash + 1 : d;
        if (!strcmp(base, ".") || !strcmp(base, ".."))
            return fail(dest, 0, "not a usable destination name");
        if (!realpath(parent, r))
            return fail(dest, 0, "the parent directory %s does not exist", parent);
        abs = strcmp(r, "/") ? arena_printf(a, "%s/%s", r, base) : arena_printf(a, "/%s", base);
    } else {
        return fail(dest, 0, "%s", strerror(errno));
    }
    if (!strcmp(abs, "/"))
        return fail(dest, 0, "not a usable destination");
    const char *name = base_name(a, d);
    if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
        name = base_name(a, abs);
    *abs_out = abs;
    *name_out = name;
    return 0;
}

/* kpt's default destination: the last component of DIR, else of the repository without ".git". */
static const char *default_dest(arena *a, const pkg_source *s)
{
    if (strcmp(s->directory, "/"))
        return base_name(a, s->directory);
    char *r = arena_strdup(a, s->repo);
    size_t n = strlen(r);
    while (n && r[n - 1] == '/')
        r[--n] = 0;
    if (n > 4 && !strcmp(r + n - 4, ".git"))
        r[n -= 4] = 0;
    const char *b = strrchr(r, '/');
    const char *c = strrchr(r, ':');
    if (c && (!b || c > b))
        b = c;
    return b ? b + 1 : r;
}

int pkg_get(arena *a, const gitsrc_env *env, const char *src_arg, const char *dest_arg, pkg_get_result *res)
{
    memset(res, 0, sizeof *res);
    pkg_source s;
    if (pkg_source_parse(a, src_arg, &s) < 0)
        return -1;
    const char *dest = dest_arg ? dest_arg : default_dest(a, &s);
    const char *dest_abs, *name;
    if (!*dest)
        return fail(NULL, 0, "cannot name the destination; give DEST");
    if (check_dest(a, dest, &dest_abs, &name) < 0)
        return -1;

    if (gitsrc_open(NULL, NULL) < 0)
        return -1;
    cache c;
    git_commit *commit = NULL;
    git_tree *top = NULL, *tree = NULL;
    git_tree_entry *sub = NULL;
    char *tmp = NULL;
    int rc = cache_open(a, env, &s, &c);
    const char *ref = s.ref;
    if (rc == 0 && !ref) {
        ref = c.default_branch;
        if (!ref)
            rc = fail(NULL, 0, "%s: cannot tell the default branch; give REPO@REF", s.key);
    }
    git_oid oid;
    const char *lock_ref = NULL;
    if (rc == 0)
        rc = cache_resolve(a, &c, &s, ref, &lock_ref, &oid);
    char sha[GIT_OID_HEXSZ + 1] = "";
    if (rc == 0) {
        git_oid_tostr(sha, sizeof sha, &oid);
        if (git_commit_lookup(&commit, c.repo, &oid) < 0 || git_commit_tree(&top, commit) < 0)
            rc = fail(NULL, 0, "%s@%s: %s", s.key, ref, gitsrc_last_message());
    }
    getctx g = {.a = a, .repo = c.repo, .display = arena_printf(a, "%s%s@%s", s.key, s.directory, ref),
                .limits = env->limits};
    if (rc == 0 && !strcmp(s.directory, "/")) {
        tree = top;
        top = NULL;
    } else if (rc == 0) {
        int lrc = git_tree_entry_bypath(&sub, top, s.directory + 1);
        if (lrc == GIT_ENOTFOUND)
            rc = fail(NULL, 0, "directory \"%s\" does not exist in %s at %s (%.12s)", s.directory, s.key, ref, sha);
        else if (lrc < 0)
            rc = fail(NULL, 0, "%s: %s", g.display, gitsrc_last_message());
        else if (git_tree_entry_type(sub) != GIT_OBJECT_TREE)
            rc = fail(NULL, 0, "\"%s\" is not a directory in %s at %s (%.12s)", s.directory, s.key, ref, sha);
        else if (git_tree_lookup(&tree, c.repo, git_tree_entry_id(sub)) < 0)
            rc = fail(NULL, 0, "%s: %s", g.display, gitsrc_last_message());
    }
    if (rc == 0) {
        res->repo = s.repo;
        res->directory = s.directory;
        res->ref = ref;
        res->lock_ref = lock_ref;
        res->commit = arena_strdup(a, sha);
        res->dest = dest_abs;
        /* everything goes to a hidden sibling first, renamed into place only when complete */
        char *slash = strrchr(dest_abs, '/');
        tmp = arena_printf(a, "%.*s/.%s.cmp-generate-XXXXXX", (int)(slash - dest_abs), dest_abs, slash + 1);
        if (!mkdtemp(tmp)) {
            rc = fail(dest, 0, "cannot create a temporary directory beside it: %s", strerror(errno));
            tmp = NULL;
        }
    }
    if (rc == 0)
        rc = write_tree(&g, tree, tmp, "", 0);
    if (rc == 0)
        rc = write_kptfile(&g, git_tree_entry_byname(tree, "Kptfile"), tmp, name, res);
    if (rc == 0 && chmod(tmp, 0755) != 0)
        rc = fail(dest, 0, "chmod: %s", strerror(errno));
    if (rc == 0 && rename(tmp, dest_abs) != 0) {
        if (errno == ENOTEMPTY || errno == EEXIST)
            rc = fail(dest, 0, "the destination is not empty; refusing to write into it");
        else
            rc = fail(dest, 0, "cannot move the package into place: %s", strerror(errno));
    }
    if (rc < 0 && tmp)
        fs_remove_tree(tmp);
    git_tree_entry_free(sub);
    git_tree_free(tree);
    git_tree_free(top);
    git_commit_free(commit);
    cache_close(&c);
    gitsrc_close();
    if (rc < 0)
        memset(res, 0, sizeof *res);
    return rc;
}
