/* Child processes for the tools we do not reimplement (helm, kustomize): argv arrays (no shell), a given environment
 * (nothing inherited), resource limits, a time limit, bounded output, and no survivors however we end. The design
 * (one supervisor per child, one janitor per scratch directory) is explained at the top of child.c. Linux only. */
#ifndef CMP_UTIL_CHILD_H
#define CMP_UTIL_CHILD_H
#include <stdbool.h>

#include "util/buf.h"

/* setrlimit values applied to the child before exec (soft = hard, so it cannot raise them); 0: no limit. */
typedef struct child_limits {
    long memory_mb;   /* RLIMIT_DATA: what Go's heap actually maps (RLIMIT_AS would count its reservations) */
    long cpu_seconds; /* RLIMIT_CPU: SIGKILL once the child itself has used that much CPU */
    long file_mb;     /* RLIMIT_FSIZE: largest file it may write */
    long procs;       /* RLIMIT_NPROC: counted per user id across the whole machine, so off unless asked */
} child_limits;

typedef struct child_opts {
    const char *const *argv; /* argv[0] is an absolute path, or looked up in the default PATH when it has no '/' */
    const char *const *env;  /* the child's whole environment, NAME=value; a later entry replaces an earlier one */
    const char *cwd;         /* NULL: ours */
    int timeout_ms;          /* wall-clock limit; <= 0: 30 s */
    size_t max_output;       /* the child is killed as soon as its stdout exceeds this many bytes */
    const int *pass_fds;     /* descriptors the child gets as 3, 4, ... (child_fd_path names them) */
    int npass;               /* at most CHILD_MAX_PASS_FDS */
    child_limits limits;
} child_opts;

#define CHILD_MAX_PASS_FDS 16

enum child_outcome {
    CHILD_EXITED,       /* it ran to the end (or was killed by a limit): see status, signal, cpu_ms */
    CHILD_TIMEOUT,      /* killed after timeout_ms */
    CHILD_OUTPUT_LIMIT, /* killed when its stdout went over max_output (nothing more was read) */
    CHILD_LOST,         /* its supervisor died without a report (killed from outside) */
    CHILD_STOPPED,      /* killed because the sink refused its output (the sink has said why) */
};

typedef struct child_result {
    enum child_outcome outcome;
    int status;         /* exit code, or 128 + signal */
    int signal;         /* the signal that ended it, 0 when it exited */
    long long cpu_ms;   /* user + system CPU time it used */
    bool out_of_memory; /* its stderr shows a Go runtime out-of-memory crash */
} child_result;

/* Runs the child to completion and kills everything it started. Returns 0 when r describes what happened (the
 * caller turns a failure into its own message), -1 when it could not start (fail() set). stderr keeps its first
 * and last 32 KiB. */
int child_run(const child_opts *o, buf *out, buf *err, child_result *r);

/* Takes a piece of the child's stdout as soon as it is read (up to 64 KiB, in the order written). Non-zero stops
 * the child at once, like a limit: whatever the sink found wrong makes the rest of the output worthless. */
typedef int (*child_sink)(void *ud, const char *data, size_t len);

/* child_run handing stdout to sink while the child runs instead of collecting it, so the caller can parse it as
 * it comes and stop the child as soon as the output is wrong or over a limit (outcome CHILD_STOPPED). */
int child_run_sink(const child_opts *o, child_sink sink, void *ud, buf *err, child_result *r);

/* "/proc/self/fd/N" for the i-th of pass_fds, as the child sees it. */
const char *child_fd_path(int i, char *out, unsigned outlen);

/* Hands dir to a janitor process that removes it when we exit, however we exit (even SIGKILL), once no child of
 * ours is left to write into it. -1 with errno when the janitor cannot start. One directory per process. */
int child_guard_dir(const char *dir);

/* Kills the running child with everything it started and has the guarded directory removed, waiting (a few
 * seconds at most) until both are done. Async-signal-safe: for deadline and termination handlers, which then
 * _exit. */
void child_abort_all(void);

/* Finds an executable: explicit when set (it must be executable), else name in the colon-separated search path
 * (NULL: /usr/local/bin:/usr/bin:/bin). Returns NULL when absent; the result lives until the next call. */
const char *find_tool(const char *explicit, const char *search_path, const char *name);

/* Last lines of a child's stderr as one line for an error message: its line breaks, CRs and TABs become spaces; every
 * other byte stays as the child wrote it, for main to escape when it prints the line. */
const char *stderr_summary(const buf *err, char *out, size_t outlen);
#endif
