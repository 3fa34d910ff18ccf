/* Support for the two built-ins that run real tools (render-helm-chart, kustomize-build) and the Flux steps that run
 * helm: the engines' context made from a step's, scratch space for the tools' caches, time limits, and turning a
 * tool's stdout into resources that are validated like any input. The runner itself is engine/run.h; the forms
 * here take the step's fn_ctx, so an error names the step's config. */
#ifndef CMP_FUNCTIONS_EXTERNAL_H
#define CMP_FUNCTIONS_EXTERNAL_H
#include "engine/engine.h"
#include "engine/run.h"
#include "functions/function.h"
#include "util/child.h"

/* What an engine (src/helm, the runner) needs of this step, made from it now (errors name c->config_file and
 * c->config_line as they are at this call): its arena, the package and repository, the operator's helm and child
 * settings (none without a host: unit tests), the limits. Lives as long as c->a. */
const engine_ctx *fn_engine(fn_ctx *c);

/* engine_scratch_dir under the host's TMPDIR. */
const char *scratch_dir(const fn_host *h);
/* engine_pass_text (engine/run.h): text for the next child without a name in any directory. */
const char *pass_text(fn_ctx *c, child_fds *f, const char *text, size_t len);
/* The directory of the package whose pipeline runs the step ("." outside a package). */
const char *step_dir(fn_ctx *c);
/* Resolves a package-relative path that must stay inside the package; NULL (with fn_fail) otherwise. */
const char *inside_package(fn_ctx *c, const node *at, const char *what, const char *rel);
/* Runs argv as engine_run_tool does (engine/run.h), with the environment, limits and scratch space of the host; a
 * non-zero exit becomes an error quoting the tool's stderr, a limit hit an error naming the limit. Its stdout is
 * parsed as resources (kpt reader rules) while the tool writes it, so a document that breaks a rule stops the tool
 * there, and is appended to the items once the tool has succeeded. */
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

/* The directories a step of each of these functions reads as its source, given to add() (real paths), from its
 * config alone, before any step runs: render-helm-chart's local charts and their file:// dependencies,
 * kustomize-build's overlay and every kustomization directory and local chart it reaches. The reader leaves them
 * to the step and reads every other directory as kpt does. Best effort: a config the step would refuse names
 * what can be read of it (the step reports the error when it runs); errors are fail()ed for the caller to drop. */
void render_helm_chart_sources(fn_ctx *c, source_dir_fn add, void *ud);
void kustomize_build_sources(fn_ctx *c, source_dir_fn add, void *ud);
#endif
