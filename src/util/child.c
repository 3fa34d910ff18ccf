#include "util/child.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/arena.h"
#include "util/diag.h"

extern char **environ;
volatile int child_running_pgid;

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

const char *find_tool(const char *explicit, const char *search_path, const char *name)
{
    static char found[PATH_MAX];
    if (explicit && *explicit)
        return access(explicit, X_OK) == 0 ? explicit : NULL;
    const char *path = search_path;
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        size_t n = strcspn(path, ":");
        if (n && n + strlen(name) + 2 < sizeof found) {
            snprintf(found, sizeof found, "%.*s/%s", (int)n, path, name);
            struct stat st;
            if (stat(found, &st) == 0 && S_ISREG(st.st_mode) && access(found, X_OK) == 0)
                return found;
        }
        path += n + (path[n] == ':');
    }
    return NULL;
}

/* environ with the extra entries replacing same-named ones */
static char **merged_env(const char *const *extra)
{
    size_t n = 0, k = 0;
    while (environ[n])
        n++;
    while (extra && extra[k])
        k++;
    char **env = xmalloc((n + k + 1) * sizeof *env);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        size_t nl = strcspn(environ[i], "=");
        bool replaced = false;
        for (size_t j = 0; j < k && !replaced; j++)
            replaced = !strncmp(extra[j], environ[i], nl) && extra[j][nl] == '=';
        if (!replaced)
            env[m++] = environ[i];
    }
    for (size_t j = 0; j < k; j++)
        env[m++] = (char *)extra[j];
    env[m] = NULL;
    return env;
}

int child_run(const child_opts *o, buf *out, buf *err, int *status)
{
    const char *prog = o->argv[0];
    char path[PATH_MAX];
    if (!strchr(prog, '/')) {
        const char *p = find_tool(NULL, NULL, prog);
        if (!p)
            return fail(NULL, 0, "%s not found on PATH", prog);
        snprintf(path, sizeof path, "%s", p);
        prog = path;
    }
    int po[2], pe[2];
    if (pipe(po) != 0)
        return fail(NULL, 0, "cannot run %s: %s", o->argv[0], strerror(errno));
    if (pipe(pe) != 0) {
        close(po[0]);
        close(po[1]);
        return fail(NULL, 0, "cannot run %s: %s", o->argv[0], strerror(errno));
    }
    char **env = merged_env(o->env);
    pid_t pid = fork();
    if (pid < 0) {
        free(env);
        close(po[0]), close(po[1]), close(pe[0]), close(pe[1]);
        return fail(NULL, 0, "cannot run %s: %s", o->argv[0], strerror(errno));
    }
    if (pid == 0) {
        setpgid(0, 0);
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, STDIN_FILENO);
        dup2(po[1], STDOUT_FILENO);
        dup2(pe[1], STDERR_FILENO);
        close(po[0]), close(po[1]), close(pe[0]), close(pe[1]);
        if (o->cwd && chdir(o->cwd) != 0)
            _exit(126);
        signal(SIGPIPE, SIG_DFL);
        execve(prog, (char *const *)o->argv, env);
        _exit(127);
    }
    free(env);
    setpgid(pid, pid); /* both sides set it, so the group exists whoever runs first */
    child_running_pgid = pid;
    close(po[1]);
    close(pe[1]);
    struct pollfd fds[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
    buf *bufs[2] = {out, err};
    long long deadline = now_ms() + (o->timeout_ms > 0 ? o->timeout_ms : 30000);
    int open_fds = 2, rc = 0;
    const char *why = NULL;
    while (open_fds > 0) {
        long long left = deadline - now_ms();
        if (left <= 0) {
            why = "timeout";
            break;
        }
        int r = poll(fds, 2, (int)(left > 1000 ? 1000 : left));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            break;
        for (int i = 0; i < 2; i++) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            char chunk[65536];
            ssize_t n = read(fds[i].fd, chunk, sizeof chunk);
            if (n > 0) {
                if (bufs[i]->len + (size_t)n > (o->max_output ? o->max_output : (size_t)256 << 20)) {
                    why = "output";
                    break;
                }
                buf_put(bufs[i], chunk, (size_t)n);
            } else if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
                close(fds[i].fd);
                fds[i].fd = -1;
                open_fds--;
            }
        }
        if (why)
            break;
    }
    if (why)
        kill(-pid, SIGKILL);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    /* anything the child left behind in its group goes too */
    kill(-pid, SIGKILL);
    child_running_pgid = 0;
    for (int i = 0; i < 2; i++)
        if (fds[i].fd >= 0)
            close(fds[i].fd);
    if (why && !strcmp(why, "timeout"))
        return fail(NULL, 0, "%s did not finish within %d s and was killed (raise the limit with CMP_CHILD_TIMEOUT)",
                    o->argv[0], (o->timeout_ms > 0 ? o->timeout_ms : 30000) / 1000);
    if (why)
        return fail(NULL, 0, "%s wrote more output than the limit of %zu bytes", o->argv[0],
                    o->max_output ? o->max_output : (size_t)256 << 20);
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    if (*status == 127 && err->len == 0)
        return fail(NULL, 0, "cannot execute %s", prog);
    return rc;
}

const char *stderr_summary(const buf *err, char *out, size_t outlen)
{
    size_t n = err->len;
    while (n && (err->data[n - 1] == '\n' || err->data[n - 1] == ' '))
        n--;
    size_t start = n > outlen - 1 ? n - (outlen - 1) : 0;
    size_t k = 0;
    for (size_t i = start; i < n && k < outlen - 1; i++) {
        char c = err->data[i];
        out[k++] = (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
    }
    out[k] = 0;
    return out;
}
