/* Paths a package names, confined to the repository that holds it (fn_host.repo_root): the boundary for what the
 * tools we run (helm) may read. Resolution never looks at anything outside the repository, so an error cannot
 * tell the package author whether some file outside exists. */
#ifndef CMP_FUNCTIONS_CONFINE_H
#define CMP_FUNCTIONS_CONFINE_H
#include <limits.h>

#include "functions/function.h"
#include "util/diag.h"
#include "util/path.h"

/* The repository root of this run (a real path): host->repo_root, else the package directory. */
const char *repo_root(fn_ctx *c);

/* A path the package names relative to its own directory ("../shared/values.yaml" may reach a sibling directory of
 * the same repository): its real path, or NULL (with fn_fail naming what and the rule) when it is absolute, missing
 * or leads outside the repository. */
const char *inside_repo(fn_ctx *c, const node *at, const char *what, const char *rel);

/* path shown relative to the repository root ("." for the root), for messages that must not reveal the sidecar's
 * directories. */
const char *repo_relative(fn_ctx *c, const char *path);

#endif
