/* Git through libgit2, in process (no git binary): Argo CD metadata for runs outside Argo CD, and `pkg get`, kpt's
 * fetch of a package from a git repository. libgit2 is loaded on the first call that needs it (git/libgit2.h);
 * when it cannot be, that call fails with one line saying so, and nothing else is affected. */
#ifndef CMP_GIT_GIT_H
#define CMP_GIT_GIT_H
#include <stdbool.h>
#include <stddef.h>

#include "util/arena.h"
#include "util/buf.h"
#include "util/limits.h"

/* What git reads from the sidecar's environment, handed in by the caller that reads it (settings/host.h). */
typedef struct gitsrc_env {
    const char *ceiling_directories; /* GIT_CEILING_DIRECTORIES: repository discovery stops below these; NULL: none */
    const char *cache_home;          /* XDG_CACHE_HOME: where `pkg get` caches fetches; NULL or relative: tmpdir */
    const char *tmpdir;              /* TMPDIR; NULL or relative: /tmp */
    const limits *limits;            /* the operator's (the fetched Kptfile's loader limits); NULL: the defaults */
} gitsrc_env;

/* Argo CD's ARGOCD_APP_* values as git knows them: plain fields, copied to and from the caller's own record. */
typedef struct gitsrc_meta {
    const char *name, *namespace, *project, *revision, *repo, *target_revision, *path;
} gitsrc_meta;

/* The caller's rule for a value git gives (a name, ref or URL is the author's text): 0, or fail() and -1 naming
 * file and what. */
typedef int (*gitsrc_value_check)(const char *file, const char *what, const char *value);

/* Dry-run metadata from the git repository that holds pkg_dir (discovered upward, linked worktrees included).
 * Fills only the fields of *m that are NULL, so values from the environment win:
 *   revision         HEAD's commit (full SHA); left NULL when the repository has no commits
 *   repo             the `origin` remote's URL, credentials removed; NULL without an origin
 *   target_revision  the current branch; when HEAD is detached, a tag pointing at HEAD, else the SHA
 *   path             pkg_dir relative to the work tree's root, "." for the root
 *   name             pkg_dir's basename
 * namespace and project are never touched. Strings live in a. Outside any repository (or in a bare one):
 * *found = false, nothing filled, returns 0. A repository libgit2 cannot read: fail() and -1. */
int gitsrc_app_meta(arena *a, const gitsrc_env *env, const char *pkg_dir, gitsrc_value_check check, gitsrc_meta *m,
                    bool *found);

/* The package-revision stamp: the last commit that changed the package directory, following first parents from
 * start (a full SHA; NULL or unknown: HEAD), so the value stays the same across commits that leave the package
 * alone and a change merged from a branch counts at its merge. repo_root: open exactly that work tree (under Argo
 * CD, the repository copy; an operator may have excluded .git from it); NULL: the repository that holds pkg_dir.
 * *out is NULL when it cannot be known: no repository, no commits, or a shallow clone (its cut-off would pose as
 * the change). fail() and -1 only for a repository libgit2 cannot read. */
int gitsrc_path_revision(arena *a, const gitsrc_env *env, const char *repo_root, const char *pkg_dir, const char *start, const char **out);

/* What gitsrc_tag_commit found. */
enum {
    GITSRC_TAG_FOUND,         /* *commit set */
    GITSRC_TAG_NO_METADATA,   /* no .git directory at the root */
    GITSRC_TAG_UNREADABLE,    /* a .git libgit2 cannot open */
    GITSRC_TAG_ABSENT,        /* no refs/tags/<tag> */
    GITSRC_TAG_NOT_A_COMMIT,  /* it peels to no commit */
};
/* The commit tag (refs/tags/<tag>, peeled) names in the git metadata of the work tree at repo_root (its .git
 * directory only, never searched for): GITSRC_TAG_FOUND with *commit its full SHA, or another GITSRC_TAG_* with
 * *commit NULL. -1 after fail() (naming file) only when libgit2 cannot be loaded. */
int gitsrc_tag_commit(arena *a, const char *repo_root, const char *file, const char *tag, const char **commit);

/* Argo CD's ARGOCD_APP_REVISION_SHORT (n = 7) and ARGOCD_APP_REVISION_SHORT_8 (n = 8): the first n characters of
 * revision, all of it when shorter; NULL for NULL. */
const char *gitsrc_revision_short(arena *a, const char *revision, size_t n);

/* The metadata as ARGOCD_APP_*=value lines a POSIX shell can eval (values single-quoted), the two short revisions
 * included; unset fields are left out. For a `--print-env` option. */
void gitsrc_meta_env(buf *b, const gitsrc_meta *m);

/* "https://user:token@host/x?private_token=t" -> "https://host/x": url_strip_credentials (util/url.h). */
char *gitsrc_url_strip_credentials(arena *a, const char *url);

/* A `pkg get` source argument, REPO[/DIR][@REF] or kpt's REPO.git[/DIR][@REF], taken apart. */
typedef struct pkg_source {
    const char *url;       /* what libgit2 fetches from (credentials kept; absolute path for a local repository) */
    const char *key;       /* url without credentials: names the cache entry */
    const char *repo;      /* upstream.git.repo as kpt records it: ".git" form without ".git", no credentials */
    const char *directory; /* "/" or "/a/b" (cleaned, never "..") */
    const char *ref;       /* as given; NULL means the remote's default branch */
    bool local;
    bool no_fetch;         /* serve-params: use the cache as it is (a fetch that began after the request just ran) */
    long long deadline_ms; /* CLOCK_MONOTONIC milliseconds past which a fetch is abandoned; 0: none */
} pkg_source;

/* Forms: REPO.git[/DIR][@REF] (the first ".git" followed by "/", "@" or the end splits, as in kpt);
 * URL//DIR[@REF]; a local path or file:// URL, where the longest prefix that is a git repository is REPO; any other
 * URL is all REPO. REF is what follows the last "@" after the host part. Local repositories are probed (it must
 * exist); remote ones are not. fail() and -1 on a malformed argument. */
int pkg_source_parse(arena *a, const char *arg, pkg_source *out);

typedef struct pkg_get_result {
    const char *repo, *directory, *ref; /* upstream.git */
    const char *lock_ref;               /* upstreamLock.git.ref: "<dir>/<ref>" when such a package tag exists */
    const char *commit;                 /* full SHA */
    const char *dest;                   /* absolute path written */
} pkg_get_result;

/* Fetches src into the cache ($XDG_CACHE_HOME/cmp-generate/git, else $TMPDIR/cmp-generate-<uid>/git), resolves the
 * ref, and writes DIR at that commit to dest (NULL: the basename of DIR or of the repository, in the current
 * directory), with upstream and upstreamLock in dest/Kptfile. All or nothing: dest appears only complete.
 * fail() and -1 on any error. */
int pkg_get(arena *a, const gitsrc_env *env, const char *src, const char *dest, pkg_get_result *res);

/* serve-params (src/params): a remote repository through the same cache, and the files of one name in its tree. */
/* Loads libgit2 and keeps its global state for the rest of the process: each git_libgit2_init from nothing loads
 * the system's CA bundle again (two thirds of a cached answer's CPU when every request did). fail() and -1 when it
 * cannot be loaded. */
int gitsrc_keep_loaded(void);
/* Fetches src (url and key set; directory "/"; ref: a branch, tag, full ref, SHA or "HEAD", the remote's default
 * branch) into the cache unless src->no_fetch, and resolves the ref: *commit is its full SHA (in a). fail(), -1. */
int gitsrc_remote_commit(arena *a, const gitsrc_env *env, const pkg_source *src, const char **commit);
/* Calls fn for every regular file named `name` in the tree of commit (a full SHA in the cache of src), directories
 * in git's order: dir is its directory ("" for the root), data its content. Refused (fail(), -1): a directory
 * deeper than max_depth, more than max_entries tree entries walked, a file of that name over max_bytes or that is
 * a symlink, the deadline (src->deadline_ms) passed. fn returns 0, or -1 after fail() to stop the walk. */
typedef int (*gitsrc_file_fn)(void *ud, const char *dir, const char *data, size_t len);
int gitsrc_tree_files(arena *a, const gitsrc_env *env, const pkg_source *src, const char *commit, const char *name,
                      int max_depth, size_t max_entries, size_t max_bytes, gitsrc_file_fn fn, void *ud);
#endif
