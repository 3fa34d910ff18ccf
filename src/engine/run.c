#define _GNU_SOURCE /* memfd_create */
/* Running a real tool as a child (engine/run.h): moved here from functions/tools/external.c so that the engines,
 * which sit below the functions, run their children through it. */
#include "engine/run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/diag.h"
#include "util/fsutil.h"

static char scratch[PATH_MAX];

/* <TMPDIR>/cmp-generate.XXXXXX with home/ and tmp/ for the tools, handed to a janitor (util/child.h) so that it is
 * removed however we exit. */
const char *engine_scratch_dir(const char *tmpdir)
{
    if (scratch[0])
        return scratch;
    snprintf(scratch, sizeof scratch, "%s/cmp-generate.XXXXXX", tmpdir ? tmpdir : "/tmp");
    if (!mkdtemp(scratch)) {
        scratch[0] = 0;
        return NULL;
    }
    char sub[PATH_MAX + 8];
    snprintf(sub, sizeof sub, "%s/home", scratch);
    int ok = mkdir(sub, 0700) == 0;
    snprintf(sub, sizeof sub, "%s/tmp", scratch);
    ok = ok && mkdir(sub, 0700) == 0;
    if (!ok || child_guard_dir(scratch) != 0) {
        int e = errno;
        snprintf(sub, sizeof sub, "%s/home", scratch);
        rmdir(sub);
        snprintf(sub, sizeof sub, "%s/tmp", scratch);
        rmdir(sub);
        rmdir(scratch);
        scratch[0] = 0;
        errno = e;
        return NULL;
    }
    return scratch;
}

const char *engine_pass_text(const engine_ctx *e, child_fds *f, const char *text, size_t len)
{
    if (f->n >= CHILD_MAX_PASS_FDS) {
        errno = EMFILE;
        return NULL;
    }
    int fd = memfd_create("cmp-generate-values", MFD_CLOEXEC);
    if (fd < 0) { /* no memfd (old kernel, seccomp): an unnamed file in scratch, just as nameless */
        const char *s = engine_scratch_dir(e->child.tmpdir);
        fd = s ? unnamed_file(s, true) : -1;
    }
    if (fd < 0)
        return NULL;
    if (write_all(fd, text, len) < 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return NULL;
    }
    char path[64];
    child_fd_path(f->n, path, sizeof path);
    f->fd[f->n++] = fd;
    return arena_strdup(e->a, path);
}

void child_fds_close(child_fds *f)
{
    for (int i = 0; i < f->n; i++)
        close(f->fd[i]);
    f->n = 0;
}

/* The environment of every child, later entries winning: a default PATH; HOME, TMPDIR and the XDG directories in
 * scratch, so a tool writes nowhere else (and nothing of it survives us); GOMEMLIMIT a fifth under the memory limit,
 * so Go's collector works harder instead of the limit killing a tool that only holds garbage; the tool's own
 * variables (helm's HELM_*_HOME); then the sidecar's allowed variables, so an operator's CMP_CHILD_ENV can replace
 * any of ours (HELM_CACHE_HOME for a shared chart cache, say). */
static const char *const *child_environment(const engine_ctx *ec, const char *scratch_path, const char *const *extra,
                                            long memory_mb)
{
    size_t n = 0, k = 0, m = 0;
    while (extra && extra[k])
        k++;
    while (ec->child.env && ec->child.env[m])
        m++;
    const char **e = arena_alloc(ec->a, (8 + k + m) * sizeof *e);
    e[n++] = "PATH=/usr/local/bin:/usr/bin:/bin";
    e[n++] = arena_printf(ec->a, "HOME=%s/home", scratch_path);
    e[n++] = arena_printf(ec->a, "TMPDIR=%s/tmp", scratch_path);
    e[n++] = arena_printf(ec->a, "XDG_CACHE_HOME=%s/home/.cache", scratch_path);
    e[n++] = arena_printf(ec->a, "XDG_CONFIG_HOME=%s/home/.config", scratch_path);
    e[n++] = arena_printf(ec->a, "XDG_DATA_HOME=%s/home/.local/share", scratch_path);
    if (memory_mb > 0)
        e[n++] = arena_printf(ec->a, "GOMEMLIMIT=%ldMiB", memory_mb * 4 / 5);
    for (size_t i = 0; i < k; i++)
        e[n++] = extra[i];
    for (size_t i = 0; i < m; i++)
        e[n++] = ec->child.env[i];
    e[n] = NULL;
    return e;
}

static bool stderr_has(const buf *err, const char *s)
{
    return err->len && memmem(err->data, err->len, s, strlen(s));
}

/* Turns what happened to the child into the one error line: what ran, the limit it hit, how to raise it. */
static int child_failed(const engine_ctx *e, const char *what, const child_result *r, const child_opts *o,
                        const buf *err, bool total_limit)
{
    long memory_mb = o->limits.memory_mb;
    if (r->outcome == CHILD_TIMEOUT)
        return engine_fail(e, NULL,
                           "%s did not finish within %d s and was killed (raise the limit with CMP_CHILD_TIMEOUT)",
                           what, o->timeout_ms / 1000);
    if (r->outcome == CHILD_OUTPUT_LIMIT && total_limit)
        return engine_fail(e, NULL, "%s wrote more than the %zu bytes left of the input limit and was killed "
                           "(max-total-bytes %zu; raise it with CMP_MAX_TOTAL_BYTES)",
                           what, o->max_output, e->lim->max_total_bytes);
    if (r->outcome == CHILD_OUTPUT_LIMIT)
        return engine_fail(e, NULL, "%s wrote more than %zu bytes and was killed (max-file-bytes; raise it with "
                           "CMP_MAX_FILE_BYTES)", what, o->max_output);
    if (r->outcome == CHILD_LOST)
        return engine_fail(e, NULL, "%s was killed from outside before it finished", what);
    if (r->out_of_memory && e->child.memory_shared)
        return engine_fail(e, NULL, "%s ran out of memory: a child may use %ld MB, 3/4 of what the render's memory "
                           "budget of %zu MB had free when it started (%s; or the operator sets "
                           "CMP_CHILD_MAX_MEMORY_MB)", what, memory_mb, mem_budget_limit() >> 20,
                           e->lim->memory_why ? e->lim->memory_why : "no limit");
    if (r->out_of_memory && memory_mb > 0)
        return engine_fail(e, NULL,
                           "%s ran out of memory: a child may use %ld MB (raise it with CMP_CHILD_MAX_MEMORY_MB)",
                           what, memory_mb);
    if (e->child.max_cpu_seconds > 0 &&
        (r->signal == SIGXCPU || (r->signal == SIGKILL && r->cpu_ms >= e->child.max_cpu_seconds * 1000 - 500)))
        return engine_fail(e, NULL,
                           "%s used its %ld s of CPU time and was killed (raise it with CMP_CHILD_MAX_CPU_SECONDS)",
                           what, e->child.max_cpu_seconds);
    if (e->child.max_file_mb > 0 &&
        (r->signal == SIGXFSZ || stderr_has(err, "file too large") || stderr_has(err, "File too large")))
        return engine_fail(e, NULL, "%s tried to write a file over %ld MB (raise it with CMP_CHILD_MAX_FILE_MB)",
                           what, e->child.max_file_mb);
    char summary[600];
    stderr_summary(err, summary, sizeof summary);
    return engine_fail(e, NULL, "%s failed (exit %d): %s", what, r->status, summary[0] ? summary : "no error output");
}

/* Where a child's stdout goes as it is read: to the caller's sink (the YAML parser), or nowhere; counted either way.
 * log: the child reports on stdout (helm repo update says there why a repository failed), so its first bytes are
 * kept for a failure to quote before its stderr. */
struct output {
    child_sink sink;
    void *sink_ud;
    size_t bytes;
    buf *log;
    buf *err_kept; /* engine_run_tool_fds_stderr: the child's stderr, on success */
};

#define LOG_KEPT 65536

static int take_output(void *ud, const char *data, size_t len)
{
    struct output *out = ud;
    out->bytes += len;
    if (out->log && out->log->len < LOG_KEPT)
        buf_put(out->log, data, len < LOG_KEPT - out->log->len ? len : LOG_KEPT - out->log->len);
    return out->sink ? out->sink(out->sink_ud, data, len) : 0;
}

static int run(const engine_ctx *e, const char *what, const char *const *argv, const char *const *env, const char *cwd,
               child_fds *fds, struct output *out)
{
    if (e->child.settings_error) {
        child_fds_close(fds);
        return engine_fail(e, NULL, "cannot run %s: %s", what, e->child.settings_error);
    }
    const char *s = engine_scratch_dir(e->child.tmpdir);
    if (!s) {
        child_fds_close(fds);
        return engine_fail(e, NULL, "cannot create a temporary directory for %s under %s: %s", what,
                           e->child.tmpdir ? e->child.tmpdir : "/tmp", strerror(errno));
    }
    /* a child's output is input like any file: one file's worth at most, and what is left of the total */
    size_t left = e->lim->max_total_bytes > bytes_read_total() ? e->lim->max_total_bytes - bytes_read_total() : 0;
    bool total_limit = left < e->lim->max_file_bytes;
    /* Unless the operator set the child's memory limit, the child shares the render's budget: it gets 3/4 of what
     * the budget has free now, held from the budget until it ends, and the render keeps the other quarter to parse
     * its output (which helm needs several times more memory to write than we need to read: 80 MB of helm for
     * 5 MB of output, tests/bench). So the render and the child together never pass the budget. */
    long memory_mb = e->child.max_memory_mb;
    size_t held = 0;
    if (e->child.memory_shared) {
        size_t share = mem_free() / 4 * 3 >> 20;
        memory_mb = share > (size_t)CHILD_MEMORY_MAX_SHARE_MB ? CHILD_MEMORY_MAX_SHARE_MB : share ? (long)share : 1;
        held = (size_t)memory_mb << 20;
        mem_hold(held, what); /* with nothing free, this is the budget's error */
    }
    child_opts o = {.argv = argv, .env = child_environment(e, s, env, memory_mb), .cwd = cwd,
                    .timeout_ms = e->child.timeout_ms > 0 ? e->child.timeout_ms : 30000,
                    .max_output = total_limit ? left : e->lim->max_file_bytes,
                    .pass_fds = fds ? fds->fd : NULL, .npass = fds ? fds->n : 0};
    o.limits = (child_limits){memory_mb, e->child.max_cpu_seconds, e->child.max_file_mb, e->child.max_procs};
    buf err = {0};
    child_result r;
    int rc = child_run_sink(&o, take_output, out, &err, &r);
    mem_release(held, what);
    child_fds_close(fds);
    if (rc == 0 && r.outcome == CHILD_STOPPED)
        rc = -1; /* its output broke a rule (invalid YAML, max-objects): the parser has said which, and where */
    else if (rc == 0 && (r.outcome != CHILD_EXITED || r.status != 0)) {
        if (out->log && out->log->len) {
            buf both = {0};
            buf_put(&both, out->log->data, out->log->len);
            buf_putc(&both, '\n');
            buf_put(&both, err.data ? err.data : "", err.len);
            buf_free(&err);
            err = both;
        }
        rc = child_failed(e, what, &r, &o, &err, total_limit);
    }
    if (rc == 0 && out->err_kept)
        buf_put(out->err_kept, err.data ? err.data : "", err.len);
    buf_free(&err);
    if (rc == 0)
        bytes_read_add(out->bytes);
    return rc;
}

int engine_run_tool(const engine_ctx *e, const char *what, const char *const *argv, const char *const *env,
                    const char *cwd)
{
    struct output out = {0};
    child_fds none = {0};
    return run(e, what, argv, env, cwd, &none, &out);
}

int engine_run_tool_fds(const engine_ctx *e, const char *what, const char *const *argv, const char *const *env,
                        const char *cwd, child_fds *fds)
{
    buf log = {0};
    struct output out = {NULL, NULL, 0, &log, NULL};
    int rc = run(e, what, argv, env, cwd, fds, &out);
    buf_free(&log);
    return rc;
}

int engine_run_tool_fds_stderr(const engine_ctx *e, const char *what, const char *const *argv,
                               const char *const *env, const char *cwd, child_fds *fds, buf *err_text)
{
    buf log = {0};
    struct output out = {NULL, NULL, 0, &log, err_text};
    int rc = run(e, what, argv, env, cwd, fds, &out);
    buf_free(&log);
    return rc;
}

int engine_run_tool_sink(const engine_ctx *e, const char *what, const char *const *argv, const char *const *env,
                         const char *cwd, child_fds *fds, child_sink sink, void *ud)
{
    struct output out = {sink, ud, 0, NULL, NULL};
    return run(e, what, argv, env, cwd, fds, &out);
}

struct kept {
    const engine_ctx *e;
    const char *what;
    buf *out;
    size_t max;
};

static int keep_stdout(void *ud, const char *data, size_t len)
{
    struct kept *k = ud;
    if (len > k->max - k->out->len)
        return engine_fail(k->e, NULL, "%s wrote more than %zu bytes and was stopped", k->what, k->max);
    buf_put(k->out, data, len);
    return 0;
}

int engine_run_tool_stdout(const engine_ctx *e, const char *what, const char *const *argv, const char *const *env,
                           const char *cwd, child_fds *fds, buf *out, size_t max)
{
    struct kept k = {e, what, out, max};
    return engine_run_tool_sink(e, what, argv, env, cwd, fds, keep_stdout, &k);
}
