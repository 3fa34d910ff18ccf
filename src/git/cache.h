/* The fetch cache behind `pkg get`: a bare repository per source URL under the user's cache directory. */
#ifndef CMP_GIT_CACHE_H
#define CMP_GIT_CACHE_H
#include "git/internal.h"

typedef struct cache {
    const char *path; /* the bare repository */
    git_repository *repo;
    int lock_fd;                /* holds an exclusive flock until cache_close */
    const char *default_branch; /* the remote's HEAD branch, when this run fetched and the remote told */
} cache;

/* Locks the cache entry for src (waiting for another run that holds it), creates it when missing, and fetches
 * every branch and tag unless src->ref is a full SHA already present. fail() and -1 on error; call cache_close
 * in every case. The cache lives under env->cache_home, else env->tmpdir (see pkg_get). */
int cache_open(arena *a, const gitsrc_env *env, const pkg_source *src, cache *c);
void cache_close(cache *c);

/* ref -> commit, kpt's order: the package tag "<directory>/<ref>" (which then becomes *lock_ref), branch, tag,
 * a full ref name, a full or abbreviated (4+ hex digits) SHA. fail() and -1 when nothing matches. */
int cache_resolve(arena *a, cache *c, const pkg_source *src, const char *ref, const char **lock_ref, git_oid *commit);
#endif
