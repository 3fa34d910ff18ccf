/* Support for the two built-ins that run real tools (render-helm-chart, kustomize-build): scratch space for the
 * tools' caches, time limits, and turning a tool's stdout into resources that are validated like any input. */
#ifndef CMP_FUNCTIONS_EXTERNAL_H
#define CMP_FUNCTIONS_EXTERNAL_H
#include "functions/function.h"
#include "util/child.h"

/* A private writable directory under the host's TMPDIR, removed at exit (the sidecar's root filesystem is
 * read-only). */
const char *scratch_dir(const fn_host *h);
/* The directory of the package whose pipeline runs the step ("." outside a package). */
const char *step_dir(fn_ctx *c);
/* Resolves a package-relative path that must stay inside the package; NULL (with fn_fail) otherwise. */
const char *inside_package(fn_ctx *c, const node *at, const char *what, const char *rel);
/* Runs argv; a non-zero exit becomes an error quoting the tool's stderr. Its stdout is parsed as resources (kpt
 * reader rules) and appended to the items. */
int run_tool_into_items(fn_ctx *c, const char *what, const char *const *argv, const char *const *env, const char *cwd);
/* Runs argv for its effect only (helm dependency build). */
int run_tool(fn_ctx *c, const char *what, const char *const *argv, const char *const *env, const char *cwd);
#endif
