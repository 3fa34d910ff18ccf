/* How children are kept under control (issue "the package author is untrusted").
 *
 * While a tool runs:   cmp-generate ─┬─ supervisor ── tool ── whatever the tool starts
 *                                    └─ janitor (owns the scratch directory)
 *
 * Every process stays in OUR process group. argocd-cmp-server SIGKILLs us and sends SIGTERM, then SIGKILL 5 s later,
 * to our group when its deadline passes (and the group signals after every request), so a group signal must reach
 * the tool and what it started. A tool in a group of its own, as this file used to make it, is reached by neither.
 *
 * Sharing our group, the tool cannot be killed with kill(-pgid) without killing us, so its supervisor (a fork of us,
 * no exec) does it: the supervisor is a child subreaper (PR_SET_CHILD_SUBREAPER), so everything the tool leaves
 * behind, even after a double fork or setsid, is re-parented to it. When the tool ends, the supervisor SIGKILLs its
 * children until it has none, and only then reports the tool's status to us.
 *
 * The supervisor also watches a socket to us, the lifeline, which becomes readable only at EOF: when we close it
 * (timeout, output limit, render deadline, SIGTERM or SIGINT) or when we die in any way, SIGKILL included. Then it
 * kills the tool and everything under it and exits. The tool has PR_SET_PDEATHSIG(SIGKILL) against the supervisor
 * (re-checked with getppid, in case the supervisor died first), so even a supervisor SIGKILLed alone takes the tool
 * with it. The supervisor ignores SIGTERM, SIGINT and SIGHUP: a group SIGTERM ends the tool (Go's default) and us
 * (our handler closes the lifeline and waits), and the supervisor finishes the job. A group SIGKILL ends at once
 * everything that stayed in the group.
 *
 * The janitor owns the scratch directory (HOME, TMPDIR and helm's caches for the tools). It waits for EOF on its
 * own lifeline, whose write end we hold and every supervisor inherits by fork (a tool drops it at exec, O_CLOEXEC).
 * EOF therefore means that we are gone AND every supervisor has finished killing its tool, so nothing still writes
 * into the directory when the janitor removes it. At a normal exit we close that lifeline and wait for the janitor
 * (atexit), so nothing outlives us; on SIGTERM, SIGINT and the render deadline, child_abort_all does the same from
 * the handler; on SIGKILL both helpers notice our death by themselves. Neither holds our stdout or stderr (Argo CD
 * waits for EOF on them) and both ignore the group SIGTERM, which gives them Argo CD's 5 s grace to finish.
 */
#define _GNU_SOURCE /* pipe2, prctl, syscall(close_range): this file is Linux process plumbing */
#include "util/child.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/arena.h"
#include "util/diag.h"
#include "util/fsutil.h"

/* What the handlers need: the running child's supervisor and the janitor, each with our end of its lifeline. */
static volatile sig_atomic_t sup_pid, sup_life = -1, jan_pid, jan_life = -1;
static char guarded[PATH_MAX];

/* The supervisor's report, written on the lifeline once the tool and all it started are gone. */
struct report {
    int started; /* 0: the tool could not be forked (err) */
    int err;
    int status; /* wait status */
    long long cpu_ms;
    int memory_killed; /* the supervisor killed it for its resident memory */
};

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

const char *child_fd_path(int i, char *out, unsigned outlen)
{
    snprintf(out, outlen, "/proc/self/fd/%d", 3 + i);
    return out;
}

/* ---- signals ------------------------------------------------------------------------------------------------ */

static void stop_signals(sigset_t *s)
{
    sigemptyset(s);
    sigaddset(s, SIGTERM);
    sigaddset(s, SIGINT);
    sigaddset(s, SIGHUP);
    sigaddset(s, SIGALRM);
}

/* Blocks the signals whose handlers call child_abort_all while a fork and its bookkeeping happen. */
static void block_stops(sigset_t *old)
{
    sigset_t s;
    stop_signals(&s);
    sigprocmask(SIG_BLOCK, &s, old);
}

static void on_stop(int sig)
{
    static const char term[] = "cmp-generate: stopped by SIGTERM (Argo CD's deadline or a shutdown): children killed, "
                               "temporary files removed\n";
    static const char intr[] = "cmp-generate: interrupted (SIGINT): children killed, temporary files removed\n";
    static const char hup[] = "cmp-generate: hung up (SIGHUP): children killed, temporary files removed\n";
    const char *m = sig == SIGINT ? intr : sig == SIGHUP ? hup : term;
    size_t n = sig == SIGINT ? sizeof intr - 1 : sig == SIGHUP ? sizeof hup - 1 : sizeof term - 1;
    if (write(STDERR_FILENO, m, n) < 0) {
    }
    child_abort_all();
    _exit(1);
}

/* From the first child or scratch directory on, SIGTERM, SIGINT and SIGHUP end us through child_abort_all. A signal
 * the caller ignores (a background job's SIGINT) stays ignored. */
static void install_stop_handlers(void)
{
    static bool done;
    if (done)
        return;
    done = true;
    int sigs[] = {SIGTERM, SIGINT, SIGHUP};
    for (int i = 0; i < 3; i++) {
        struct sigaction old, sa;
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_stop;
        stop_signals(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

/* For the helpers: ignore what a group SIGTERM or a terminal sends, default for the rest, nothing blocked. */
static void helper_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    int ign[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGPIPE};
    for (int i = 0; i < 5; i++)
        sigaction(ign[i], &sa, NULL);
    sa.sa_handler = SIG_DFL;
    sigaction(SIGALRM, &sa, NULL);
}

/* Reaps pid, waiting ms milliseconds at most: short sleeps first, since a helper usually ends within a millisecond
 * (async-signal-safe, unlike a blocking wait with an alarm). */
static void wait_gone(pid_t pid, int ms)
{
    long step_us = 100, waited_us = 0;
    for (;;) {
        pid_t w = waitpid(pid, NULL, WNOHANG);
        if (w == pid || (w < 0 && errno != EINTR) || waited_us >= ms * 1000L)
            return;
        struct timespec ts = {0, step_us * 1000};
        nanosleep(&ts, NULL);
        waited_us += step_us;
        if (step_us < 20000)
            step_us *= 2;
    }
}

void child_abort_all(void)
{
    int saved = errno;
    int fd = sup_life;
    pid_t pid = sup_pid;
    sup_life = -1, sup_pid = 0;
    if (fd >= 0)
        close(fd);
    if (pid > 0)
        wait_gone(pid, 3000);
    fd = jan_life, pid = jan_pid;
    jan_life = -1, jan_pid = 0;
    if (fd >= 0)
        close(fd);
    if (pid > 0)
        wait_gone(pid, 3000);
    errno = saved;
}

/* ---- descriptors -------------------------------------------------------------------------------------------- */

/* Closes every descriptor from lo to hi (inclusive). */
static void close_range_of(unsigned lo, unsigned hi)
{
    if (lo > hi)
        return;
#ifdef SYS_close_range
    if (syscall(SYS_close_range, lo, hi, 0) == 0)
        return;
#endif
    DIR *d = opendir("/proc/self/fd");
    if (!d) {
        for (unsigned f = lo; f <= hi && f < 65536; f++)
            close((int)f);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        long f = strtol(e->d_name, &end, 10);
        if (e->d_name[0] >= '0' && e->d_name[0] <= '9' && !*end && f != dirfd(d) && f >= (long)lo && f <= (long)hi)
            close((int)f);
    }
    closedir(d);
}

/* stdin, stdout and stderr become /dev/null, and every other descriptor but keep[] is closed: a helper must not
 * hold Argo CD's pipes (it waits for their EOF) nor another helper's lifeline. */
static void detach_fds(int *keep, int n)
{
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    for (int f = 0; f < 3 && null >= 0; f++) {
        bool kept = false; /* a pipe can be 0-2 when we were started with those closed */
        for (int i = 0; i < n; i++)
            kept |= keep[i] == f;
        if (!kept && null != f)
            dup2(null, f);
    }
    if (null > 2)
        close(null);
    for (int i = 1; i < n; i++) /* ascending, for the gaps between them */
        for (int j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
            int t = keep[j];
            keep[j] = keep[j - 1];
            keep[j - 1] = t;
        }
    unsigned lo = 3;
    for (int i = 0; i < n; i++) {
        if (keep[i] < 0 || (unsigned)keep[i] < lo)
            continue;
        close_range_of(lo, (unsigned)keep[i] - 1);
        lo = (unsigned)keep[i] + 1;
    }
    close_range_of(lo, ~0U);
}

/* ---- the janitor -------------------------------------------------------------------------------------------- */

static _Noreturn void janitor(int life)
{
    helper_signals();
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    detach_fds(&life, 1);
    char c;
    for (;;) {
        ssize_t n = read(life, &c, 1);
        if (n == 0 || (n < 0 && errno != EINTR))
            break;
    }
    /* a tool's file may still be closing: a few tries */
    struct timespec ts = {0, 20 * 1000 * 1000};
    for (int i = 0; i < 50 && fs_remove_tree(guarded) != 0; i++)
        nanosleep(&ts, NULL);
    _exit(0);
}

/* At a normal exit: the directory goes here, at once, and the janitor (with nothing left to do) is reaped. */
static void release_janitor(void)
{
    fs_remove_tree(guarded);
    child_abort_all();
    fs_remove_tree(guarded); /* in case a supervisor still wrote into it */
}

int child_guard_dir(const char *dir)
{
    if (jan_pid > 0 || strlen(dir) >= sizeof guarded) {
        errno = EINVAL;
        return -1;
    }
    snprintf(guarded, sizeof guarded, "%s", dir);
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        return -1;
    install_stop_handlers();
    sigset_t old;
    block_stops(&old);
    pid_t pid = fork();
    if (pid == 0) {
        close(p[1]);
        janitor(p[0]);
    }
    int saved = errno;
    close(p[0]);
    if (pid > 0)
        jan_pid = pid, jan_life = p[1];
    else
        close(p[1]);
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (pid < 0) {
        errno = saved;
        return -1;
    }
    static bool registered;
    if (!registered)
        atexit(release_janitor);
    registered = true;
    return 0;
}

/* ---- the supervisor and the tool ---------------------------------------------------------------------------- */

static int chld_pipe = -1;

static void on_chld(int sig)
{
    (void)sig;
    int e = errno;
    char c = 0;
    if (write(chld_pipe, &c, 1) < 0) {
    }
    errno = e;
}

/* SIGKILLs every child of ours that /proc shows (our own children list, else a scan of every process). */
static void signal_children(pid_t me)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)me);
    FILE *f = fopen(path, "re");
    if (f) {
        int pid;
        while (fscanf(f, "%d", &pid) == 1)
            kill(pid, SIGKILL);
        fclose(f);
        return;
    }
    DIR *d = opendir("/proc");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        char stat_path[64], line[512];
        snprintf(stat_path, sizeof stat_path, "/proc/%.20s/stat", e->d_name);
        FILE *s = fopen(stat_path, "re");
        if (!s)
            continue;
        size_t n = fread(line, 1, sizeof line - 1, s);
        fclose(s);
        line[n] = 0;
        const char *rp = strrchr(line, ')'); /* the command name may hold anything, even ") " */
        char state;
        int ppid;
        if (rp && sscanf(rp + 1, " %c %d", &state, &ppid) == 2 && ppid == (int)me)
            kill(atoi(e->d_name), SIGKILL);
    }
    closedir(d);
}

/* Kills and reaps every child until none is left: orphans of the dying ones are re-parented to us (subreaper) and
 * found on the next round. A child /proc cannot show would block waitpid, so an alarm bounds the whole. */
static void kill_subtree(pid_t me)
{
    alarm(10);
    for (;;) {
        signal_children(me);
        pid_t w = waitpid(-1, NULL, 0);
        if (w < 0 && errno == ECHILD)
            break;
    }
    alarm(0);
}

static void set_limit(int resource, long long want)
{
    struct rlimit cur, rl;
    if (getrlimit(resource, &cur) != 0)
        return;
    rlim_t v = (rlim_t)want;
    if (cur.rlim_max != RLIM_INFINITY && cur.rlim_max < v)
        v = cur.rlim_max; /* the sidecar's own limit is lower: keep it (only lowering is allowed) */
    rl.rlim_cur = rl.rlim_max = v;
    if (setrlimit(resource, &rl) != 0) {
        dprintf(STDERR_FILENO, "cannot apply resource limit %d: %s\n", resource, strerror(errno));
        _exit(126);
    }
}

/* In the tool's process, between fork and exec. */
static _Noreturn void exec_tool(const child_opts *o, const char *prog, char *const *env, pid_t sup, int out_w, int err_w)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != sup)
        _exit(127);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    int sigs[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD, SIGALRM, SIGXCPU, SIGXFSZ};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        sigaction(sigs[i], &sa, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    /* stdout, stderr and the passed descriptors at 1, 2, 3...: first out of the way of those numbers */
    int hi_out = fcntl(out_w, F_DUPFD_CLOEXEC, 64), hi_err = fcntl(err_w, F_DUPFD_CLOEXEC, 64);
    int hi_pass[CHILD_MAX_PASS_FDS];
    for (int i = 0; i < o->npass; i++)
        hi_pass[i] = fcntl(o->pass_fds[i], F_DUPFD_CLOEXEC, 64);
    if (hi_out < 0 || hi_err < 0 || dup2(hi_out, STDOUT_FILENO) < 0 || dup2(hi_err, STDERR_FILENO) < 0)
        _exit(126);
    for (int i = 0; i < o->npass; i++)
        if (hi_pass[i] < 0 || dup2(hi_pass[i], 3 + i) < 0)
            _exit(126);
    close_range_of(3 + (unsigned)o->npass, ~0U);
    const child_limits *l = &o->limits;
    if (l->memory_mb > 0)
        set_limit(RLIMIT_DATA, (long long)l->memory_mb << 20);
    if (l->cpu_seconds > 0)
        set_limit(RLIMIT_CPU, l->cpu_seconds);
    if (l->file_mb > 0)
        set_limit(RLIMIT_FSIZE, (long long)l->file_mb << 20);
    if (l->procs > 0)
        set_limit(RLIMIT_NPROC, l->procs);
    set_limit(RLIMIT_CORE, 0); /* no core file left behind */
    if (o->cwd && chdir(o->cwd) != 0) {
        dprintf(STDERR_FILENO, "cannot enter %s: %s\n", o->cwd, strerror(errno));
        _exit(126);
    }
    execve(prog, (char *const *)o->argv, env);
    dprintf(STDERR_FILENO, "cannot execute %s: %s\n", prog, strerror(errno));
    _exit(127);
}

/* ---- the watchdog: the tool's tree and its resident memory ----------------------------------------------- */

enum { TREE_MAX = 4096 };
static pid_t tree[TREE_MAX]; /* the supervisor's descendants (the tool and all it started), as last seen */
static pid_t scan_pid[TREE_MAX], scan_ppid[TREE_MAX];
static int tree_mode; /* 0: not chosen yet, 1: children lists, 2: a scan of /proc */

/* path's first cap - 1 bytes, NUL-terminated; their count, or -1. */
static ssize_t read_small(const char *path, char *text, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, text, cap - 1);
    close(fd);
    if (n >= 0)
        text[n] = 0;
    return n;
}

/* Appends the children every thread of pid lists (/proc/<pid>/task/<tid>/children) to tree[n...]; the new n. */
static int add_children(pid_t pid, int n)
{
    char path[96], text[4096];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    if (!d)
        return n;
    struct dirent *e;
    while ((e = readdir(d)) && n < TREE_MAX) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%d/task/%.20s/children", (int)pid, e->d_name);
        if (read_small(path, text, sizeof text) <= 0)
            continue;
        for (char *p = text, *end; n < TREE_MAX; p = end) {
            long c = strtol(p, &end, 10);
            if (end == p)
                break;
            tree[n++] = (pid_t)c;
        }
    }
    closedir(d);
    return n;
}

/* Fills tree[] with the descendants of me (the supervisor, a subreaper: whatever the tool started is under it, even
 * after a double fork); their count. The kernel's children lists where it keeps them (CONFIG_PROC_CHILDREN): a read
 * per thread of the tree only. Else one scan of /proc for every process's parent, then the tree by parent links: a
 * read per process of the pid namespace (a sidecar's own: argocd-cmp-server and the renders). Past TREE_MAX
 * processes, those beyond are not seen (RLIMIT_NPROC bounds a tree well below). */
static int tree_of(pid_t me)
{
    char path[64], text[512];
    if (!tree_mode) {
        snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)me, (int)me);
        tree_mode = access(path, R_OK) == 0 ? 1 : 2;
    }
    int n = 0;
    if (tree_mode == 1) {
        n = add_children(me, 0);
        for (int i = 0; i < n; i++) /* breadth first: n grows as children are found */
            n = add_children(tree[i], n);
        return n;
    }
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    int m = 0;
    struct dirent *e;
    while ((e = readdir(d)) && m < TREE_MAX) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%.20s/stat", e->d_name);
        const char *rp;
        char state;
        int ppid;
        if (read_small(path, text, sizeof text) > 0 && (rp = strrchr(text, ')')) && /* the name may hold ") " */
            sscanf(rp + 1, " %c %d", &state, &ppid) == 2)
            scan_pid[m] = (pid_t)atoi(e->d_name), scan_ppid[m++] = (pid_t)ppid;
    }
    closedir(d);
    for (bool grew = true; grew;) { /* a pass per level of the tree */
        grew = false;
        for (int i = 0; i < m; i++) {
            if (!scan_pid[i])
                continue;
            bool under = scan_ppid[i] == me;
            for (int j = 0; j < n && !under; j++)
                under = scan_ppid[i] == tree[j];
            if (under && n < TREE_MAX) {
                tree[n++] = scan_pid[i];
                scan_pid[i] = 0;
                grew = true;
            }
        }
    }
    return n;
}

/* The resident memory of tree[0..n) in pages, anonymous only (statm's resident less its file-backed and shared
 * pages, which the kernel can drop or another process holds too); a process gone meanwhile counts nothing. */
static long long tree_resident(int n)
{
    long long sum = 0;
    for (int i = 0; i < n; i++) {
        char path[64], text[128];
        long long size, resident, shared;
        snprintf(path, sizeof path, "/proc/%d/statm", (int)tree[i]);
        if (read_small(path, text, sizeof text) > 0 && sscanf(text, "%lld %lld %lld", &size, &resident, &shared) == 3 &&
            resident > shared)
            sum += resident - shared;
    }
    return sum;
}

static _Noreturn void supervise(const child_opts *o, const char *prog, char *const *env, int life, int out_w, int err_w)
{
    pid_t me = getpid();
    int sp[2];
    struct report rep = {0};
    helper_signals();
    if (pipe2(sp, O_CLOEXEC | O_NONBLOCK) != 0) {
        rep.err = errno;
        if (write(life, &rep, sizeof rep) < 0) {
        }
        _exit(0);
    }
    chld_pipe = sp[1];
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_chld;
    sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    sigaction(SIGCHLD, &sa, NULL);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    int keep[4 + CHILD_MAX_PASS_FDS] = {life, out_w, err_w, jan_life};
    int nkeep = 4;
    for (int i = 0; i < o->npass; i++)
        keep[nkeep++] = o->pass_fds[i];
    int sp_keep[2 + 4 + CHILD_MAX_PASS_FDS];
    memcpy(sp_keep, keep, (size_t)nkeep * sizeof *keep);
    sp_keep[nkeep] = sp[0], sp_keep[nkeep + 1] = sp[1];
    detach_fds(sp_keep, nkeep + 2);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    pid_t tool = fork();
    if (tool == 0) {
        close(sp[0]);
        close(sp[1]);
        exec_tool(o, prog, env, me, out_w, err_w);
    }
    if (tool < 0) {
        rep.err = errno;
        if (write(life, &rep, sizeof rep) < 0) {
        }
        _exit(0);
    }
    close(out_w);
    close(err_w);
    for (int i = 0; i < o->npass; i++)
        close(o->pass_fds[i]);
    rep.started = 1;
    /* RLIMIT_DATA misses Go's heap: Go reserves arenas PROT_NONE and maps them read-write with MAP_FIXED over the
     * reservation, which Linux does not count against the limit, so one huge allocation (a template's
     * `repeat 2000000000 "x"`) passes it. The resident anonymous memory of the tool's whole tree is therefore also
     * watched (tree_resident): helm under kustomize is kustomize's grandchild, and watching the tool alone let it
     * reach 710 MB against a 143 MB share. RLIMIT_AS is no substitute, since Go's reservations make its effect
     * erratic (helm fails a 50 MB heap under a 1.25 GB address-space limit and succeeds under 1 GB). The tree is
     * found every 50 ms (0.3 ms for a scan of 80 processes: 0.6% of a core) and its memory read every 50 ms while
     * it holds less than half its share, every 10 ms up to 3/4, then every 2 ms (a statm read per process): Go
     * fills a huge string at gigabytes a second, and a look every 50 ms let helm end 40 to 70 MB past a 143 MB
     * share. A process the tree gains between two searches counts from the next one. */
    bool watch = o->limits.memory_mb > 0;
    long long max_pages = watch ? ((long long)o->limits.memory_mb << 20) / sysconf(_SC_PAGESIZE) : 0;
    long long found_at = 0;
    int period = 50, n = 0;
    bool abort = false;
    for (;;) {
        struct pollfd pf[2] = {{life, POLLIN, 0}, {sp[0], POLLIN, 0}};
        int r = poll(pf, 2, watch && !rep.memory_killed ? period : -1);
        int poll_errno = errno; /* the watchdog's reads of /proc fail as processes end */
        if (watch && !rep.memory_killed) {
            long long now = now_ms();
            if (now - found_at >= 50)
                n = tree_of(me), found_at = now;
            long long pages = tree_resident(n);
            if (pages > max_pages) {
                kill(tool, SIGKILL);
                for (int i = 0; i < n; i++)
                    kill(tree[i], SIGKILL);
                rep.memory_killed = 1;
            }
            period = pages > max_pages / 4 * 3 ? 2 : pages > max_pages / 2 ? 10 : 50;
        }
        if (r < 0 && poll_errno != EINTR) {
            abort = true;
            break;
        }
        if (r > 0 && pf[0].revents) { /* EOF: we are gone, or want it stopped */
            abort = true;
            break;
        }
        char drain[64];
        while (read(sp[0], drain, sizeof drain) > 0) {
        }
        int st;
        struct rusage ru;
        if (wait4(tool, &st, WNOHANG, &ru) == tool) {
            rep.status = st;
            rep.cpu_ms = (long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
                         (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000;
            break;
        }
    }
    if (abort)
        kill(tool, SIGKILL);
    kill_subtree(me);
    if (!abort && write(life, &rep, sizeof rep) < 0) {
    }
    _exit(0);
}

/* ---- the parent's side -------------------------------------------------------------------------------------- */

/* env with later entries replacing earlier ones of the same name */
static char **final_env(const char *const *env)
{
    size_t n = 0;
    while (env && env[n])
        n++;
    char **out = xmalloc((n + 1) * sizeof *out);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        size_t nl = strcspn(env[i], "=");
        bool later = false;
        for (size_t j = i + 1; j < n && !later; j++)
            later = !strncmp(env[j], env[i], nl) && env[j][nl] == '=';
        if (!later)
            out[m++] = (char *)env[i];
    }
    out[m] = NULL;
    return out;
}

/* stderr keeps its head (where Go writes "fatal error: ...") and its tail (where helm writes "Error: ..."). */
#define ERR_HEAD 32768
#define ERR_TAIL 32768
static void keep_err(buf *e, const char *p, size_t n)
{
    static const char mark[] = "\n[...]\n";
    const size_t m = sizeof mark - 1;
    buf_put(e, p, n);
    if (e->len <= ERR_HEAD + m + ERR_TAIL)
        return;
    memmove(e->data + ERR_HEAD + m, e->data + e->len - ERR_TAIL, ERR_TAIL);
    memcpy(e->data + ERR_HEAD, mark, m);
    e->len = ERR_HEAD + m + ERR_TAIL;
}

/* Go's runtime says "fatal error: runtime: out of memory", "fatal error: out of memory allocating heap arena map"
 * or "fatal error: runtime: cannot allocate memory" when the memory limit stops it. */
static bool go_out_of_memory(const buf *e)
{
    const char *p = e->data, *end = e->data + e->len;
    static const char key[] = "fatal error: ";
    while (p && p < end) {
        const char *hit = memmem(p, (size_t)(end - p), key, sizeof key - 1);
        if (!hit)
            return false;
        const char *eol = memchr(hit, '\n', (size_t)(end - hit));
        size_t len = (size_t)((eol ? eol : end) - hit);
        if (memmem(hit, len, "out of memory", 13) || memmem(hit, len, "cannot allocate memory", 22))
            return true;
        p = hit + sizeof key - 1;
    }
    return false;
}

int child_run_sink(const child_opts *o, child_sink sink, void *ud, buf *err, child_result *r)
{
    memset(r, 0, sizeof *r);
    const char *prog = o->argv[0];
    char path[PATH_MAX];
    if (!strchr(prog, '/')) {
        const char *p = find_tool(NULL, NULL, prog);
        if (!p)
            return fail(NULL, 0, "%s not found on PATH", prog);
        snprintf(path, sizeof path, "%s", p);
        prog = path;
    }
    if (o->npass < 0 || o->npass > CHILD_MAX_PASS_FDS)
        return fail(NULL, 0, "cannot run %s: too many descriptors to pass", o->argv[0]);
    int life[2], po[2], pe[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, life) != 0)
        return fail(NULL, 0, "cannot run %s: %s", o->argv[0], strerror(errno));
    if (pipe2(po, O_CLOEXEC) != 0) {
        close(life[0]), close(life[1]);
        return fail(NULL, 0, "cannot run %s: %s", o->argv[0], strerror(errno));
    }
    if (pipe2(pe, O_CLOEXEC) != 0) {
        close(life[0]), close(life[1]), close(po[0]), close(po[1]);
        return fail(NULL, 0, "cannot run %s: %s", o->argv[0], strerror(errno));
    }
    char **env = final_env(o->env);
    install_stop_handlers();
    sigset_t old;
    block_stops(&old);
    pid_t sup = fork();
    if (sup == 0) {
        close(life[0]), close(po[0]), close(pe[0]);
        supervise(o, prog, env, life[1], po[1], pe[1]);
    }
    int fork_errno = errno;
    if (sup > 0)
        sup_pid = sup, sup_life = life[0];
    sigprocmask(SIG_SETMASK, &old, NULL);
    xfree(env);
    close(life[1]), close(po[1]), close(pe[1]);
    if (sup < 0) {
        close(life[0]), close(po[0]), close(pe[0]);
        return fail(NULL, 0, "cannot run %s: %s", o->argv[0], strerror(fork_errno));
    }
    struct pollfd fds[3] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}, {life[0], POLLIN, 0}};
    int timeout = o->timeout_ms > 0 ? o->timeout_ms : 30000;
    long long deadline = now_ms() + timeout;
    struct report rep;
    size_t rep_got = 0;
    enum child_outcome why = CHILD_EXITED;
    size_t out_len = 0;
    char chunk[65536];
    while (fds[0].fd >= 0 || fds[1].fd >= 0 || fds[2].fd >= 0) {
        long long left = deadline - now_ms();
        if (left <= 0) {
            why = CHILD_TIMEOUT;
            break;
        }
        int n = poll(fds, 3, (int)(left > 1000 ? 1000 : left));
        if (n < 0 && errno != EINTR)
            break;
        if (n <= 0)
            continue;
        for (int i = 0; i < 3 && why == CHILD_EXITED; i++) {
            if (fds[i].fd < 0 || !fds[i].revents)
                continue;
            size_t want = sizeof chunk;
            if (i == 0 && o->max_output - out_len < want)
                want = o->max_output - out_len + 1; /* one byte past the limit tells us it is over */
            if (i == 2)
                want = sizeof rep - rep_got;
            ssize_t got = read(fds[i].fd, i == 2 ? (char *)&rep + rep_got : chunk, want);
            if (got < 0 && (errno == EINTR || errno == EAGAIN))
                continue;
            if (got <= 0 || (i == 2 && rep_got + (size_t)got == sizeof rep)) {
                if (got > 0)
                    rep_got += (size_t)got;
                if (i == 2) /* the report (the pipes close once all is gone), or the supervisor is gone */
                    sup_life = -1;
                close(fds[i].fd);
                fds[i].fd = -1;
                if (i == 2 && rep_got != sizeof rep)
                    why = CHILD_LOST; /* killed from outside: what it started may hold the pipes forever */
                continue;
            }
            if (i == 0 && out_len + (size_t)got > o->max_output) {
                why = CHILD_OUTPUT_LIMIT;
                break;
            }
            if (i == 0) {
                out_len += (size_t)got;
                /* the time the sink takes (parsing) is ours, not the child's: it does not count against its limit */
                long long before = now_ms();
                int stop = sink(ud, chunk, (size_t)got);
                deadline += now_ms() - before;
                if (stop) {
                    why = CHILD_STOPPED;
                    break;
                }
            } else if (i == 1)
                keep_err(err, chunk, (size_t)got);
            else
                rep_got += (size_t)got;
        }
        if (why != CHILD_EXITED)
            break;
    }
    /* closing the lifeline stops the supervisor's tool, if it still runs; the supervisor exits in any case */
    block_stops(&old);
    sup_life = -1;
    for (int i = 0; i < 3; i++)
        if (fds[i].fd >= 0)
            close(fds[i].fd);
    sigprocmask(SIG_SETMASK, &old, NULL);
    while (waitpid(sup, NULL, 0) < 0 && errno == EINTR) {
    }
    sup_pid = 0;
    r->outcome = why;
    if (why != CHILD_EXITED)
        return 0;
    if (rep_got != sizeof rep) { /* poll failed before the report came */
        r->outcome = CHILD_LOST;
        return 0;
    }
    if (!rep.started)
        return fail(NULL, 0, "cannot run %s: %s", o->argv[0], strerror(rep.err));
    r->cpu_ms = rep.cpu_ms;
    if (WIFSIGNALED(rep.status)) {
        r->signal = WTERMSIG(rep.status);
        r->status = 128 + r->signal;
    } else {
        r->status = WEXITSTATUS(rep.status);
    }
    r->out_of_memory = rep.memory_killed || (r->status != 0 && go_out_of_memory(err));
    return 0;
}

static int collect(void *ud, const char *data, size_t len)
{
    buf_put(ud, data, len);
    return 0;
}

int child_run(const child_opts *o, buf *out, buf *err, child_result *r)
{
    return child_run_sink(o, collect, out, err, r);
}

const char *stderr_summary(const buf *err, char *out, size_t outlen)
{
    size_t n = err->len;
    while (n && (err->data[n - 1] == '\n' || err->data[n - 1] == ' '))
        n--;
    size_t start = n > outlen - 1 ? n - (outlen - 1) : 0;
    for (int back = 0; start && back < 3 && ((unsigned char)err->data[start] & 0xc0) == 0x80; back++)
        start++; /* the tail starts at a whole character (the rest is escaped where it is printed) */
    size_t k = 0;
    for (size_t i = start; i < n && k < outlen - 1; i++) {
        char c = err->data[i];
        out[k++] = (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
    }
    out[k] = 0;
    return out;
}
