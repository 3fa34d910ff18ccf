/* Running a real tool (helm, kustomize, cosign) as a child for a render, on top of util/child.h: scratch space for
 * the tools' caches, the operator's limits, the environment every child gets, text handed over without a name in
 * any directory, and the one error line when a child fails or hits a limit. The engines run their children through
 * it; the functions do too, through the fn_ctx forms of functions/tools/external.h. */
#ifndef CMP_ENGINE_RUN_H
#define CMP_ENGINE_RUN_H
#include "engine/engine.h"
#include "util/buf.h"
#include "util/child.h"

/* The most memory a child gets from the render's budget when the operator set no limit of its own. */
#define CHILD_MEMORY_MAX_SHARE_MB 1024L

/* A private writable directory under tmpdir (NULL: /tmp; the sidecar's root filesystem is read-only), made once per
 * process and removed however we exit; NULL with errno when it cannot be made. */
const char *engine_scratch_dir(const char *tmpdir);

/* Descriptors handed to the next child, as /proc/self/fd/3, 4, ... */
typedef struct child_fds {
    int fd[CHILD_MAX_PASS_FDS];
    int n;
} child_fds;
/* Text for a child as a file that never has a name in a directory (a memfd), so a secret in it cannot be left
 * behind, even by a SIGKILL: returns the path the child opens, NULL with errno on failure. */
const char *engine_pass_text(const engine_ctx *e, child_fds *f, const char *text, size_t len);
void child_fds_close(child_fds *f);

/* Runs argv under util/child.h with the environment, limits and scratch space of e->child (env: the tool's own
 * variables, before the operator's); a non-zero exit becomes an error quoting the tool's stderr, a limit hit an
 * error naming the limit. Its output counts as input (e->lim's max-file-bytes and what is left of max-total-bytes).
 * For its effect only (helm dependency build). */
int engine_run_tool(const engine_ctx *e, const char *what, const char *const *argv, const char *const *env,
                    const char *cwd);
/* The same with descriptors from engine_pass_text (closed when it returns, whatever happened); a failure quotes the
 * end of the child's stdout as well as its stderr (helm reports why a repository failed on stdout). */
int engine_run_tool_fds(const engine_ctx *e, const char *what, const char *const *argv, const char *const *env,
                        const char *cwd, child_fds *fds);
/* The same, appending what the child wrote on stderr to err_text when it succeeds (helm pull reports an OCI chart's
 * manifest digest there). */
int engine_run_tool_fds_stderr(const engine_ctx *e, const char *what, const char *const *argv,
                               const char *const *env, const char *cwd, child_fds *fds, buf *err_text);
/* The same, handing the child's stdout to sink as it is read (a parser that stops the child when the output breaks
 * a rule: the sink has then said why, and this returns -1). */
int engine_run_tool_sink(const engine_ctx *e, const char *what, const char *const *argv, const char *const *env,
                         const char *cwd, child_fds *fds, child_sink sink, void *ud);
/* The same, keeping what the child writes on stdout in out (at most max bytes: more stops it, an error). */
int engine_run_tool_stdout(const engine_ctx *e, const char *what, const char *const *argv, const char *const *env,
                           const char *cwd, child_fds *fds, buf *out, size_t max);
#endif
