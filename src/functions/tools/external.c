#define _GNU_SOURCE /* memfd_create */
#include "functions/tools/external.h"

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
const char *scratch_dir(const fn_host *h)
{
    if (scratch[0])
        return scratch;
    snprintf(scratch, sizeof scratch, "%s/cmp-generate.XXXXXX", h && h->tmpdir ? h->tmpdir : "/tmp");
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

const char *pass_text(fn_ctx *c, child_fds *f, const char *text, size_t len)
{
    if (f->n >= CHILD_MAX_PASS_FDS) {
        errno = EMFILE;
        return NULL;
    }
    int fd = memfd_create("cmp-generate-values", MFD_CLOEXEC);
    if (fd < 0) { /* no memfd (old kernel, seccomp): an unnamed file in scratch, just as nameless */
        const char *s = scratch_dir(c->host);
        fd = s ? unnamed_file(s, true) : -1;
    }
    if (fd < 0)
        return NULL;
    if (write_all(fd, text, len) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return NULL;
    }
    char path[64];
    child_fd_path(f->n, path, sizeof path);
    f->fd[f->n++] = fd;
    return arena_strdup(c->a, path);
}

void child_fds_close(child_fds *f)
{
    for (int i = 0; i < f->n; i++)
        close(f->fd[i]);
    f->n = 0;
}

const char *step_dir(fn_ctx *c)
{
    return c->pkg && c->pkg->abs ? c->pkg->abs : ".";
}

const char *inside_package(fn_ctx *c, const node *at, const char *what, const char *rel)
{
    if (!safe_relative_path(rel))
        return fn_fail(c, at, "%s \"%s\" must be a relative path inside the package (no \"..\", not absolute)", what, rel),
               NULL;
    const char *dir = step_dir(c);
    char *full = arena_printf(c->a, "%s/%s", dir, rel);
    char real_dir[PATH_MAX];
    if (!realpath(dir, real_dir))
        return fn_fail(c, at, "cannot resolve the package directory"), NULL;
    if (!file_exists(full))
        return fn_fail(c, at, "%s \"%s\" does not exist in the package", what, rel), NULL;
    if (!inside(real_dir, full))
        return fn_fail(c, at, "%s \"%s\" leads outside the package (symlink)", what, rel), NULL;
    return full;
}

/* The environment of every child, later entries winning: a default PATH; HOME, TMPDIR and the XDG directories in
 * scratch, so a tool writes nowhere else (and nothing of it survives us); GOMEMLIMIT a fifth under the memory limit,
 * so Go's collector works harder instead of the limit killing a tool that only holds garbage; the tool's own
 * variables (helm's HELM_*_HOME); then the sidecar's allowed variables, so an operator's CMP_CHILD_ENV can replace
 * any of ours (HELM_CACHE_HOME for a shared chart cache, say). */
static const char *const *child_environment(fn_ctx *c, const char *scratch_path, const char *const *extra,
                                            long memory_mb)
{
    const fn_host *h = c->host;
    size_t n = 0, k = 0, m = 0;
    while (extra && extra[k])
        k++;
    while (h && h->child_env && h->child_env[m])
        m++;
    const char **e = arena_alloc(c->a, (8 + k + m) * sizeof *e);
    e[n++] = "PATH=/usr/local/bin:/usr/bin:/bin";
    e[n++] = arena_printf(c->a, "HOME=%s/home", scratch_path);
    e[n++] = arena_printf(c->a, "TMPDIR=%s/tmp", scratch_path);
    e[n++] = arena_printf(c->a, "XDG_CACHE_HOME=%s/home/.cache", scratch_path);
    e[n++] = arena_printf(c->a, "XDG_CONFIG_HOME=%s/home/.config", scratch_path);
    e[n++] = arena_printf(c->a, "XDG_DATA_HOME=%s/home/.local/share", scratch_path);
    if (memory_mb > 0)
        e[n++] = arena_printf(c->a, "GOMEMLIMIT=%ldMiB", memory_mb * 4 / 5);
    for (size_t i = 0; i < k; i++)
        e[n++] = extra[i];
    for (size_t i = 0; i < m; i++)
        e[n++] = h->child_env[i];
    e[n] = NULL;
    return e;
}

static bool stderr_has(const buf *err, const char *s)
{
    return err->len && memmem(err->data, err->len, s, strlen(s));
}

/* Turns what happened to the child into the one error line: what ran, the limit it hit, how to raise it. */
static int child_failed(fn_ctx *c, const char *what, const child_result *r, const child_opts *o, const buf *err,
                        bool total_limit)
{
    long memory_mb = o->limits.memory_mb;
    const fn_host *h = c->host;
    if (r->outcome == CHILD_TIMEOUT)
        return fn_fail(c, NULL, "%s did not finish within %d s and was killed (raise the limit with CMP_CHILD_TIMEOUT)",
                       what, o->timeout_ms / 1000);
    if (r->outcome == CHILD_OUTPUT_LIMIT && total_limit)
        return fn_fail(c, NULL, "%s wrote more than the %zu bytes left of the input limit and was killed "
                       "(max-total-bytes %zu; raise it with CMP_MAX_TOTAL_BYTES)",
                       what, o->max_output, cmp_limits.max_total_bytes);
    if (r->outcome == CHILD_OUTPUT_LIMIT)
        return fn_fail(c, NULL, "%s wrote more than %zu bytes and was killed (max-file-bytes; raise it with "
                       "CMP_MAX_FILE_BYTES)", what, o->max_output);
    if (r->outcome == CHILD_LOST)
        return fn_fail(c, NULL, "%s was killed from outside before it finished", what);
    if (r->out_of_memory && h && h->child_memory_shared)
        return fn_fail(c, NULL, "%s ran out of memory: a child may use %ld MB, 3/4 of what the render's memory budget "
                       "of %zu MB had free when it started (%s; or the operator sets CMP_CHILD_MAX_MEMORY_MB)", what,
                       memory_mb, mem_budget_limit() >> 20, cmp_limits.memory_why ? cmp_limits.memory_why : "no limit");
    if (r->out_of_memory && memory_mb > 0)
        return fn_fail(c, NULL, "%s ran out of memory: a child may use %ld MB (raise it with CMP_CHILD_MAX_MEMORY_MB)",
                       what, memory_mb);
    if (h && h->child_max_cpu_seconds > 0 &&
        (r->signal == SIGXCPU || (r->signal == SIGKILL && r->cpu_ms >= h->child_max_cpu_seconds * 1000 - 500)))
        return fn_fail(c, NULL, "%s used its %ld s of CPU time and was killed (raise it with CMP_CHILD_MAX_CPU_SECONDS)",
                       what, h->child_max_cpu_seconds);
    if (h && h->child_max_file_mb > 0 &&
        (r->signal == SIGXFSZ || stderr_has(err, "file too large") || stderr_has(err, "File too large")))
        return fn_fail(c, NULL, "%s tried to write a file over %ld MB (raise it with CMP_CHILD_MAX_FILE_MB)", what,
                       h->child_max_file_mb);
    char summary[600];
    stderr_summary(err, summary, sizeof summary);
    return fn_fail(c, NULL, "%s failed (exit %d): %s", what, r->status, summary[0] ? summary : "no error output");
}

/* Where a child's stdout goes as it is read: into the YAML parser, or nowhere (run_tool); counted either way.
 * log: the child reports on stdout (helm repo update says there why a repository failed), so its first bytes are
 * kept for a failure to quote before its stderr. */
struct output {
    yaml_stream *yaml;
    size_t bytes;
    buf *log;
    buf *err_kept; /* run_tool_fds_stderr: the child's stderr, on success */
    buf *keep;     /* run_tool_stdout: the child's stdout, at most keep_max bytes (over: stopped, over set) */
    size_t keep_max;
    bool over;
};

#define LOG_KEPT 65536

static int take_output(void *ud, const char *data, size_t len)
{
    struct output *out = ud;
    out->bytes += len;
    if (out->log && out->log->len < LOG_KEPT)
        buf_put(out->log, data, len < LOG_KEPT - out->log->len ? len : LOG_KEPT - out->log->len);
    if (out->keep) {
        if (len > out->keep_max - out->keep->len)
            return out->over = true, 1;
        buf_put(out->keep, data, len);
    }
    return out->yaml ? yaml_stream_feed(out->yaml, data, len) : 0;
}

static int run(fn_ctx *c, const char *what, const char *const *argv, const char *const *env, const char *cwd,
               child_fds *fds, struct output *out)
{
    const fn_host *h = c->host;
    if (h && h->child_settings_error) {
        child_fds_close(fds);
        return fn_fail(c, NULL, "cannot run %s: %s", what, h->child_settings_error);
    }
    const char *s = scratch_dir(h);
    if (!s) {
        child_fds_close(fds);
        return fn_fail(c, NULL, "cannot create a temporary directory for %s under %s: %s", what,
                       h && h->tmpdir ? h->tmpdir : "/tmp", strerror(errno));
    }
    /* a child's output is input like any file: one file's worth at most, and what is left of the total */
    size_t left = cmp_limits.max_total_bytes > bytes_read_total() ? cmp_limits.max_total_bytes - bytes_read_total() : 0;
    bool total_limit = left < cmp_limits.max_file_bytes;
    /* Unless the operator set the child's memory limit, the child shares the render's budget: it gets 3/4 of what
     * the budget has free now, held from the budget until it ends, and the render keeps the other quarter to parse
     * its output (which helm needs several times more memory to write than we need to read: 80 MB of helm for
     * 5 MB of output, tests/bench). So the render and the child together never pass the budget. */
    long memory_mb = h ? h->child_max_memory_mb : 0;
    size_t held = 0;
    if (h && h->child_memory_shared) {
        size_t share = mem_free() / 4 * 3 >> 20;
        memory_mb = share > (size_t)CHILD_MEMORY_MAX_SHARE_MB ? CHILD_MEMORY_MAX_SHARE_MB : share ? (long)share : 1;
        held = (size_t)memory_mb << 20;
        mem_hold(held, what); /* with nothing free, this is the budget's error */
    }
    child_opts o = {.argv = argv, .env = child_environment(c, s, env, memory_mb), .cwd = cwd,
                    .timeout_ms = h ? h->child_timeout_ms : 30000,
                    .max_output = total_limit ? left : cmp_limits.max_file_bytes,
                    .pass_fds = fds ? fds->fd : NULL, .npass = fds ? fds->n : 0};
    if (h)
        o.limits = (child_limits){memory_mb, h->child_max_cpu_seconds, h->child_max_file_mb, h->child_max_procs};
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
        rc = child_failed(c, what, &r, &o, &err, total_limit);
    }
    if (rc == 0 && out->err_kept)
        buf_put(out->err_kept, err.data ? err.data : "", err.len);
    buf_free(&err);
    if (rc == 0)
        bytes_read_add(out->bytes);
    return rc;
}

int run_tool(fn_ctx *c, const char *what, const char *const *argv, const char *const *env, const char *cwd)
{
    struct output out = {0};
    child_fds none = {0};
    return run(c, what, argv, env, cwd, &none, &out);
}

int run_tool_fds(fn_ctx *c, const char *what, const char *const *argv, const char *const *env, const char *cwd,
                 child_fds *fds)
{
    buf log = {0};
    struct output out = {.log = &log};
    int rc = run(c, what, argv, env, cwd, fds, &out);
    buf_free(&log);
    return rc;
}

int run_tool_fds_stderr(fn_ctx *c, const char *what, const char *const *argv, const char *const *env, const char *cwd,
                        child_fds *fds, buf *err_text)
{
    buf log = {0};
    struct output out = {.log = &log, .err_kept = err_text};
    int rc = run(c, what, argv, env, cwd, fds, &out);
    buf_free(&log);
    return rc;
}

int run_tool_stdout(fn_ctx *c, const char *what, const char *const *argv, const char *const *env, const char *cwd,
                    child_fds *fds, buf *out, size_t max)
{
    struct output o = {.keep = out, .keep_max = max};
    int rc = run(c, what, argv, env, cwd, fds, &o);
    if (rc < 0 && o.over)
        return fn_fail(c, NULL, "%s wrote more than %zu bytes and was stopped", what, max);
    return rc;
}

/* kpt's default file for an object that has none: <namespace>/<kind>_<name>.yaml. Built by hand: it runs once per
 * object of a tool's output (6,389 times for a 4 MB chart), where two formatting passes cost 2,000 instructions. */
static const char *default_path(fn_ctx *c, const resource *r)
{
    const char *ns = res_namespace(r), *kind = res_kind(r), *name = res_name(r);
    if (!kind)
        kind = "object";
    if (!name)
        name = "unnamed";
    size_t nl = ns && *ns ? strlen(ns) + 1 : 0, kl = strlen(kind), ml = strlen(name);
    char *out = arena_alloc(c->a, nl + kl + 1 + ml + sizeof ".yaml"), *p = out;
    if (nl) {
        memcpy(p, ns, nl - 1);
        p += nl - 1;
        *p++ = '/';
    }
    for (size_t i = 0; i < kl; i++)
        *p++ = kind[i] >= 'A' && kind[i] <= 'Z' ? (char)(kind[i] - 'A' + 'a') : kind[i];
    *p++ = '_';
    memcpy(p, name, ml);
    memcpy(p + ml, ".yaml", sizeof ".yaml");
    return out;
}

int run_tool_into_items(fn_ctx *c, const char *what, const char *const *argv, const char *const *env, const char *cwd)
{
    child_fds none = {0};
    return run_tool_into_items_fds(c, what, argv, env, cwd, &none);
}

int run_tool_into_items_fds(fn_ctx *c, const char *what, const char *const *argv, const char *const *env,
                            const char *cwd, child_fds *fds)
{
    /* parsed while the tool writes: a document that breaks a rule stops the tool there (and nothing of a tool
     * that fails is kept, whatever it wrote before) */
    load_ctx lc = {.a = c->a, .st = c->st};
    rlist got = {0};
    struct output out = {.yaml = load_resources_stream(&lc, c->pkg, "", what, &got)};
    int rc = run(c, what, argv, env, cwd, fds, &out);
    if (rc == 0)
        rc = yaml_stream_end(out.yaml);
    yaml_stream_free(out.yaml);
    for (size_t i = 0; rc == 0 && i < got.n; i++) {
        resource *r = got.v[i];
        if (r->flags & R_KUSTOMIZE)
            continue;
        r->path = default_path(c, r);
        r->index = 0;
        rlist_push(c->items, r);
    }
    rlist_free(&got);
    return rc;
}
