/* Child processes for the tools we do not reimplement (helm, kustomize): argv arrays (no shell), their own process
 * group, a time limit, bounded output, and no survivors: the whole group is killed when the child is done. */
#ifndef CMP_UTIL_CHILD_H
#define CMP_UTIL_CHILD_H
#include "util/buf.h"

typedef struct child_opts {
    const char *const *argv; /* argv[0] is looked up in PATH when it has no '/' */
    const char *const *env;  /* extra NAME=value entries added to (or replacing in) our environment */
    const char *cwd;         /* NULL: ours */
    int timeout_ms;
    size_t max_output; /* per stream */
} child_opts;

/* Runs the child to completion. Returns 0 when it ran (its exit status in *status, or 128+signal), -1 when it
 * could not start, timed out or produced too much output (with fail() set, naming what). */
int child_run(const child_opts *o, buf *out, buf *err, int *status);

/* The process group of the child now running, so a deadline handler can kill it. 0 when none. */
extern volatile int child_running_pgid;

/* Finds an executable: explicit when set (it must be executable), else name in the colon-separated search path
 * (NULL: /usr/local/bin:/usr/bin:/bin). Returns NULL when absent; the result lives until the next call. */
const char *find_tool(const char *explicit, const char *search_path, const char *name);

/* Last lines of a child's stderr, trimmed to one line for an error message. */
const char *stderr_summary(const buf *err, char *out, size_t outlen);
#endif
