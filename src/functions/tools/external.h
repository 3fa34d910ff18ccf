/* Support for the two built-ins that run real tools (render-helm-chart, kustomize-build): scratch space for the
 * tools' caches, time limits, and turning a tool's stdout into resources that are validated like any input. */
#ifndef CMP_FUNCTIONS_EXTERNAL_H
#define CMP_FUNCTIONS_EXTERNAL_H
#include "functions/function.h"
#include "util/child.h"

/* A private writable directory under the host's TMPDIR (the sidecar's root filesystem is read-only), removed
 * however we exit; NULL with errno when it cannot be made. */
const char *scratch_dir(const fn_host *h);
/* Descriptors handed to the next child, as /proc/self/fd/3, 4, ... */
typedef struct child_fds {
    int fd[CHILD_MAX_PASS_FDS];
    int n;
} child_fds;
/* Text for a child as a file that never has a name in a directory (a memfd), so a secret in it cannot be left
 * behind, even by a SIGKILL: returns the path the child opens, NULL with errno on failure. */
const char *pass_text(fn_ctx *c, child_fds *f, const char *text, size_t len);
void child_fds_close(child_fds *f);
/* The directory of the package whose pipeline runs the step ("." outside a package). */
const char *step_dir(fn_ctx *c);
/* Resolves a package-relative path that must stay inside the package; NULL (with fn_fail) otherwise. */
const char *inside_package(fn_ctx *c, const node *at, const char *what, const char *rel);
/* Runs argv under util/child.h with the environment, limits and scratch space of the host; a non-zero exit becomes
 * an error quoting the tool's stderr, a limit hit an error naming the limit. Its stdout is parsed as resources (kpt
 * reader rules) while the tool writes it, so a document that breaks a rule stops the tool there, and is appended
 * to the items once the tool has succeeded. */
int run_tool_into_items(fn_ctx *c, const char *what, const char *const *argv, const char *const *env, const char *cwd);
/* The same, with descriptors from pass_text (closed when it returns, whatever happened). */
int run_tool_into_items_fds(fn_ctx *c, const char *what, const char *const *argv, const char *const *env,
                            const char *cwd, child_fds *fds);
/* Runs argv for its effect only (helm dependency build). */
int run_tool(fn_ctx *c, const char *what, const char *const *argv, const char *const *env, const char *cwd);
/* The same with descriptors from pass_text (closed when it returns); a failure quotes the end of the child's stdout
 * as well as its stderr (helm reports why a repository failed on stdout). */
int run_tool_fds(fn_ctx *c, const char *what, const char *const *argv, const char *const *env, const char *cwd,
                 child_fds *fds);
/* The same, appending what the child wrote on stderr to err_text when it succeeds (helm pull reports an OCI chart's
 * manifest digest there). */
int run_tool_fds_stderr(fn_ctx *c, const char *what, const char *const *argv, const char *const *env, const char *cwd,
                        child_fds *fds, buf *err_text);
/* The same, keeping what the child writes on stdout in out (at most max bytes: more stops it, an error). */
int run_tool_stdout(fn_ctx *c, const char *what, const char *const *argv, const char *const *env, const char *cwd,
                    child_fds *fds, buf *out, size_t max);

/* The directories a step of each of these functions reads as its source, given to add() (real paths), from its
 * config alone, before any step runs: render-helm-chart's local charts and their file:// dependencies,
 * kustomize-build's overlay and every kustomization directory and local chart it reaches. The reader leaves them
 * to the step and reads every other directory as kpt does. Best effort: a config the step would refuse names
 * what can be read of it (the step reports the error when it runs); errors are fail()ed for the caller to drop. */
void render_helm_chart_sources(fn_ctx *c, source_dir_fn add, void *ud);
void kustomize_build_sources(fn_ctx *c, source_dir_fn add, void *ud);
#endif
