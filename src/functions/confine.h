/* Paths a package names, confined to the repository that holds it (fn_host.repo_root): the boundary for what the
 * tools we run (helm) may read. Resolution never looks at anything outside the repository, so an error cannot
 * tell the package author whether some file outside exists. */
#ifndef CMP_FUNCTIONS_CONFINE_H
#define CMP_FUNCTIONS_CONFINE_H
#include <limits.h>

#include "functions/function.h"

typedef enum { CONFINED_OK, CONFINED_MISSING, CONFINED_OUTSIDE } confined;

/* Resolves the absolute path as the kernel would (symlinks, ".", ".."), one component at a time from root (a real
 * path): CONFINED_OK with the real path in out; CONFINED_OUTSIDE as soon as a step would leave root (by "..", an
 * absolute or relative symlink, or a path that does not start at root) or symlinks loop; CONFINED_MISSING when a
 * component inside root does not exist or is not a directory. */
confined resolve_beneath(const char *root, const char *path, char out[PATH_MAX]);

/* "a/./b/../c" as "a/c": Go's filepath.Clean, which is how helm joins a file:// dependency to its chart. */
char *clean_path(arena *a, const char *path);

/* The repository root of this run (a real path): host->repo_root, else the package directory. */
const char *repo_root(fn_ctx *c);

/* A path the package names relative to its own directory ("../shared/values.yaml" may reach a sibling directory of
 * the same repository): its real path, or NULL (with fn_fail naming what and the rule) when it is absolute, missing
 * or leads outside the repository. */
const char *inside_repo(fn_ctx *c, const node *at, const char *what, const char *rel);

/* path shown relative to the repository root ("." for the root), for messages that must not reveal the sidecar's
 * directories. */
const char *repo_relative(fn_ctx *c, const char *path);

/* s made fit for a one-line message: control characters as '?', cut at 80 bytes with "...". */
const char *shown(arena *a, const char *s);
#endif
