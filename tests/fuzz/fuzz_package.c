/* fuzz_package: bytes -> a small package on disk -> render() (out_fd -1, into a buf) -> 0 or -1, never a crash.
 *
 * Input format (text, so seeds are easy to write and the mutator keeps them readable):
 *   line 1: option letters: j json, k keep-config, c convention (no Kptfile needed), i in-place (kpt fn render
 *           parity: writes into the package), e print-env, a ARGOCD_APP_NAME set (Argo CD mode), r results dir
 *   then records, each starting with a line "=== <header>" and holding the text up to the next such line:
 *     === path/to/file.yaml      a regular file with that content
 *     === path/to/dir/           a directory
 *     === path/to/link -> target a symlink; target "../x" climbs (never above the fuzz root), "@/pkg/x" is the
 *                                absolute path of <root>/pkg/x, anything else is relative to the link
 *     === @params                ARGOCD_APP_PARAMETERS (the content, without its last newline)
 *     === @env NAME              an environment variable: NAME must be ARGOCD_ENV_*, PARAM_* or ARGOCD_APP_*
 *   Names keep [A-Za-z0-9._-] per segment; ".", ".." and empty segments are dropped.
 * Next to the package (<root>/pkg) lie <root>/outside.yaml and <root>/outdir/ for symlinks to point out to. After
 * an in-place render, nothing outside <root>/pkg may have changed: a write that escapes the package aborts.
 *
 * The render's deadline (src/render/deadline.c: a SIGALRM handler that _exits, then setitimer(ITIMER_REAL) to the
 * budget) would take SIGALRM and the real-time timer from libFuzzer, which uses both for -timeout: libFuzzer's
 * timer (every timeout/2+1 s) became a one-shot of the budget (45 s by default), so a hang in the render ended in
 * the deadline's _exit(1), not in a reported timeout with its input saved, and later inputs ran with no timer at
 * all. This target is linked with -Wl,--wrap for sigaction, setitimer and alarm (the line "link:" below, read by
 * tests/fuzz/build): while render() runs in the fuzzing process, a SIGALRM handler is not installed and the
 * real-time timer is not changed (alarm(), which util/child.c uses, included); everything else, libFuzzer's own
 * calls and a forked helper's, goes through. helm and kustomize are kept out of reach (PATH points nowhere), so
 * the two tool-running functions fail cleanly.
 * link: -Wl,--wrap=sigaction,--wrap=setitimer,--wrap=alarm
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "render/render.h"
#include "settings/host.h"
#include "util/fsutil.h"


static char fuzz_tmp[4096]; /* FIXED_ROOT or mkdtemp'd; the root sits a few levels down so climbing symlinks stay inside it */
static char root[4096];     /* <fuzz_tmp>/d1/d2/d3/root */
static char pkg[4096];      /* <root>/pkg */

/* The render's hold on SIGALRM and ITIMER_REAL, kept from it (see the top of this file). in_render is set around
 * render(); render_pid tells the fuzzing process from a helper it forks (whose calls are its own business). */
static bool in_render;
static pid_t render_pid;

int __real_sigaction(int sig, const struct sigaction *act, struct sigaction *old);
int __real_setitimer(int which, const struct itimerval *val, struct itimerval *old);
unsigned int __real_alarm(unsigned int seconds);

static bool held_back(void)
{
    return in_render && (pid_t)syscall(SYS_getpid) == render_pid;
}

int __wrap_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    if (sig == SIGALRM && act && held_back())
        return __real_sigaction(sig, NULL, old); /* libFuzzer's handler stays */
    return __real_sigaction(sig, act, old);
}

int __wrap_setitimer(int which, const struct itimerval *val, struct itimerval *old)
{
    if (which == ITIMER_REAL && held_back())
        return old ? getitimer(which, old) : 0; /* libFuzzer's timer stays */
    return __real_setitimer(which, val, old);
}

unsigned int __wrap_alarm(unsigned int seconds)
{
    if (held_back())
        return 0;
    return __real_alarm(seconds);
}

static int rm_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)type;
    (void)ftw;
    remove(path);
    return 0;
}

static void rm_tree(const char *path)
{
    nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        abort();
    fputs(text, f);
    fclose(f);
}

static const char outside_yaml[] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: outside\ndata:\n  secret: s3cr3t\n";
static const char outdir_kptfile[] = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: outdir\n";

/* A snapshot of everything under fuzz_tmp except the package: path, size, content hash. */
struct snap {
    char *text;
    size_t len, cap;
};
static struct snap snap_now;

static uint64_t hash_file(const char *path)
{
    uint64_t h = 1469598103934665603ull;
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    int c;
    while ((c = fgetc(f)) != EOF)
        h = (h ^ (unsigned char)c) * 1099511628211ull;
    fclose(f);
    return h;
}

static int snap_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)ftw;
    size_t pl = strlen(pkg);
    if (!strncmp(path, pkg, pl) && (path[pl] == 0 || path[pl] == '/'))
        return 0;
    char line[8192];
    int n = snprintf(line, sizeof line, "%s %d %lld %llx\n", path, type, (long long)sb->st_size,
                     type == FTW_F ? (unsigned long long)hash_file(path) : 0ull);
    if (n < 0)
        return 0;
    if (snap_now.len + (size_t)n + 1 > snap_now.cap) {
        snap_now.cap = (snap_now.len + (size_t)n + 1) * 2;
        snap_now.text = realloc(snap_now.text, snap_now.cap);
    }
    memcpy(snap_now.text + snap_now.len, line, (size_t)n + 1);
    snap_now.len += (size_t)n;
    return 0;
}

static char *snapshot(void)
{
    snap_now.len = 0;
    snap_now.text = NULL;
    snap_now.cap = 0;
    nftw(fuzz_tmp, snap_one, 32, FTW_PHYS);
    return snap_now.text ? snap_now.text : strdup("");
}

static void fresh_root(void)
{
    rm_tree(root);
    char p[4200];
    if (mkdir(root, 0755) != 0 && errno != EEXIST)
        abort();
    mkdir(pkg, 0755);
    snprintf(p, sizeof p, "%s/outside.yaml", root);
    write_text(p, outside_yaml);
    snprintf(p, sizeof p, "%s/outdir", root);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/outdir/cm.yaml", root);
    write_text(p, outside_yaml);
    snprintf(p, sizeof p, "%s/outdir/Kptfile", root);
    write_text(p, outdir_kptfile);
}

static const char *const env_prefixes[] = {"ARGOCD_ENV_", "PARAM_", "ARGOCD_APP_", NULL};
static char *set_env[64];
static int nset_env;

static void clear_env(void)
{
    for (int i = 0; i < nset_env; i++) {
        unsetenv(set_env[i]);
        free(set_env[i]);
    }
    nset_env = 0;
    /* anything the sidecar would read from its own environment */
    static const char *const own[] = {"ARGOCD_APP_PARAMETERS", "ARGOCD_APP_NAME", "NAMESPACE", "LABELS",
                                      "ANNOTATIONS", "IMAGES", "SETTERS", "STAMP", "ANNOTATION_DOMAIN",
                                      "HELM_VALUES", "TIMEOUT", "HELM_BIN", "KUSTOMIZE_BIN", NULL};
    for (const char *const *k = own; *k; k++)
        unsetenv(*k);
}

static void put_env(const char *name, size_t nlen, const char *val, size_t vlen)
{
    if (nset_env == (int)(sizeof set_env / sizeof *set_env) || nlen == 0 || nlen > 64)
        return;
    char *n = strndup(name, nlen);
    bool ok = false;
    for (const char *const *p = env_prefixes; *p && !ok; p++)
        ok = !strncmp(n, *p, strlen(*p));
    for (size_t i = 0; i < nlen && ok; i++)
        ok = (n[i] >= 'A' && n[i] <= 'Z') || (n[i] >= '0' && n[i] <= '9') || n[i] == '_';
    if (!ok || memchr(val, 0, vlen)) {
        free(n);
        return;
    }
    char *v = strndup(val, vlen);
    setenv(n, v, 1);
    free(v);
    set_env[nset_env++] = n;
}

/* "a/./b//../c" -> "a/b/c" (segments filtered to the safe set; "..", "." and empty ones dropped). */
static size_t clean_name(const char *s, size_t n, char *out, size_t cap, int *segments)
{
    size_t o = 0;
    *segments = 0;
    size_t i = 0;
    while (i < n) {
        size_t e = i;
        while (e < n && s[e] != '/')
            e++;
        char seg[48];
        size_t sl = 0;
        for (size_t k = i; k < e && sl < 40; k++) {
            char c = s[k];
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-')
                seg[sl++] = c;
        }
        seg[sl] = 0;
        i = e + 1;
        if (!sl || !strcmp(seg, ".") || !strcmp(seg, ".."))
            continue;
        if (*segments == 8 || o + sl + 2 >= cap)
            break;
        if (o)
            out[o++] = '/';
        memcpy(out + o, seg, sl);
        o += sl;
        out[o] = 0;
        (*segments)++;
    }
    out[o] = 0;
    return o;
}

/* Opens (creating) every directory of rel but the last segment, without following symlinks; -1 when a component
 * is not a real directory. *base gets the last segment. */
static int open_parent(char *rel, const char **base)
{
    int fd = open(pkg, O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        return -1;
    char *s = rel;
    for (char *slash; (slash = strchr(s, '/')); s = slash + 1) {
        *slash = 0;
        mkdirat(fd, s, 0755);
        int next = openat(fd, s, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
        *slash = '/';
        close(fd);
        if (next < 0)
            return -1;
        fd = next;
    }
    *base = s;
    return fd;
}

static void make_file(const char *name, size_t nlen, const char *data, size_t len)
{
    char rel[1024];
    int segs;
    bool dir = nlen && name[nlen - 1] == '/';
    if (!clean_name(name, nlen, rel, sizeof rel, &segs))
        return;
    const char *base;
    int fd = open_parent(rel, &base);
    if (fd < 0)
        return;
    if (dir) {
        mkdirat(fd, base, 0755);
    } else {
        int f = openat(fd, base, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
        if (f >= 0) {
            if (len && write(f, data, len) < 0) {
            }
            close(f);
        }
    }
    close(fd);
}

static void make_link(const char *name, size_t nlen, const char *target, size_t tlen)
{
    char rel[1024], tgt[1200];
    int segs;
    if (!clean_name(name, nlen, rel, sizeof rel, &segs))
        return;
    size_t t = 0;
    if (tlen >= 2 && target[0] == '@' && target[1] == '/') {
        char tail[1024];
        int tsegs;
        clean_name(target + 2, tlen - 2, tail, sizeof tail, &tsegs);
        t = (size_t)snprintf(tgt, sizeof tgt, "%s/%s", root, tail);
    } else {
        /* leading ".." segments only, and never more than the link's depth below <root> */
        int ups = 0, max_ups = segs; /* link in pkg/<segs-1 dirs>/name: segs-1 levels to pkg, one more to root */
        size_t i = 0;
        while (i + 1 < tlen && target[i] == '.' && target[i + 1] == '.' && (i + 2 == tlen || target[i + 2] == '/')) {
            if (ups < max_ups) {
                t += (size_t)snprintf(tgt + t, sizeof tgt - t, "../");
                ups++;
            }
            i += i + 2 == tlen ? 2 : 3;
        }
        char tail[1024];
        int tsegs;
        size_t tl = clean_name(target + i, tlen - i, tail, sizeof tail, &tsegs);
        if (tl)
            t += (size_t)snprintf(tgt + t, sizeof tgt - t, "%s", tail);
        else if (t)
            tgt[--t] = 0; /* "../" -> ".." */
        else
            t = (size_t)snprintf(tgt, sizeof tgt, ".");
    }
    if (!t || t >= sizeof tgt)
        return;
    const char *base;
    int fd = open_parent(rel, &base);
    if (fd < 0)
        return;
    symlinkat(tgt, fd, base);
    close(fd);
}

/* With FUZZ_REPEATABLE=1 (make test) the tree is always at FIXED_ROOT: render makes the package's path absolute
 * and walks it, so a temp dir under the checkout or with a random part made the coverage, and with it the inputs
 * libFuzzer kept, differ from one checkout or run to the next. One process at a time owns that path: it holds a
 * lock (flock) on the directory, waits for it when another run has it, empties what a run that died left there,
 * and removes it at exit while still holding the lock; a waiter that then gets the lock on the removed directory
 * starts again. Otherwise (make fuzz, replays) a mkdtemp'd dir under TMPDIR. */
#define FIXED_ROOT "/tmp/cmp-fuzz-package"

static int own_fixed_root(void)
{
    for (;;) {
        if (mkdir(FIXED_ROOT, 0700) != 0 && errno != EEXIST)
            return -1;
        int fd = open(FIXED_ROOT, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            return -1;
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            fprintf(stderr, "fuzz_package: waiting for %s (another fuzz run has it)\n", FIXED_ROOT);
            if (flock(fd, LOCK_EX) != 0) {
                close(fd);
                return -1;
            }
        }
        struct stat held, now;
        if (fstat(fd, &held) == 0 && lstat(FIXED_ROOT, &now) == 0 && held.st_dev == now.st_dev &&
            held.st_ino == now.st_ino) {
            if (held.st_uid != geteuid()) {
                fprintf(stderr, "fuzz_package: %s belongs to another user\n", FIXED_ROOT);
                close(fd);
                return -1;
            }
            return fd; /* kept open (and locked) until exit */
        }
        close(fd); /* removed by the run that had it: start again */
    }
}

static int empty_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)type;
    if (ftw->level > 0)
        remove(path);
    return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *repeatable = getenv("FUZZ_REPEATABLE");
    if (repeatable && !strcmp(repeatable, "1")) {
        if (own_fixed_root() < 0) {
            fprintf(stderr, "fuzz_package: cannot own %s: %s\n", FIXED_ROOT, strerror(errno));
            abort();
        }
        snprintf(fuzz_tmp, sizeof fuzz_tmp, "%s", FIXED_ROOT);
        nftw(fuzz_tmp, empty_one, 32, FTW_DEPTH | FTW_PHYS); /* what a run that died left */
    } else {
        const char *tmp = getenv("TMPDIR");
        snprintf(fuzz_tmp, sizeof fuzz_tmp, "%s/cmp-fuzz-package.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(fuzz_tmp))
            abort();
    }
    char p[4200];
    snprintf(p, sizeof p, "%s/d1", fuzz_tmp);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/d1/d2", fuzz_tmp);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/d1/d2/d3", fuzz_tmp);
    mkdir(p, 0755);
    snprintf(root, sizeof root, "%s/d1/d2/d3/root", fuzz_tmp);
    snprintf(pkg, sizeof pkg, "%s/pkg", root);
    /* helm and kustomize must not run: nothing on PATH */
    snprintf(p, sizeof p, "%s/no-tools", fuzz_tmp);
    mkdir(p, 0755);
    setenv("PATH", p, 1);
    setenv("TMPDIR", fuzz_tmp, 1);
    clear_env();
    /* the operator's limits, set as an operator sets them: a fresh process per render in real life, so the
     * per-process byte budget must not run out over a long fuzz run; alias expansion stops at 20,000 nodes; the
     * others at the built-in defaults rather than at shares of this machine's memory */
    setenv("CMP_MAX_TOTAL_BYTES", "1099511627776", 1);
    setenv("CMP_MAX_ALIAS_NODES", "20000", 1);
    setenv("CMP_MAX_FILE_BYTES", "64M", 1);
    setenv("CMP_MAX_OUTPUT_BYTES", "100M", 1);
    setenv("CMP_STARLARK_MAX_MEMORY_MB", "512", 1);
    if (host_limits_from_env() < 0)
        fz_die("fuzz_package", "the limits: %s", diag_message());
    return 0;
}

static void cleanup_at_exit(void) __attribute__((destructor));
static void cleanup_at_exit(void)
{
    if (fuzz_tmp[0])
        rm_tree(fuzz_tmp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data, *end = s + size;
    const char *nl = memchr(s, '\n', size);
    const char *opt_end = nl ? nl : end;
    render_opts o = {.out_fd = -1, .no_git_metadata = true};
    bool app = false, results = false;
    for (const char *p = s; p < opt_end && p - s < 32; p++) {
        switch (*p) {
        case 'j': o.json = true; break;
        case 'k': o.keep_config = true; break;
        case 'c': o.convention = true; break;
        case 'i': o.in_place = true; break;
        case 'e': o.print_env = true; break;
        case 'a': app = true; break;
        case 'r': results = true; break;
        default: break;
        }
    }
    clear_env();
    fresh_root();
    if (app)
        setenv("ARGOCD_APP_NAME", "fuzz", 1);

    /* records */
    const char *p = nl ? nl + 1 : end;
    int records = 0;
    while (p < end && records < 64) {
        if (end - p < 4 || memcmp(p, "=== ", 4)) {
            const char *q = memmem(p, (size_t)(end - p), "\n=== ", 5);
            if (!q)
                break;
            p = q + 1;
            continue;
        }
        const char *h = p + 4;
        const char *he = memchr(h, '\n', (size_t)(end - h));
        if (!he)
            he = end;
        const char *body = he < end ? he + 1 : end;
        const char *be = body;
        if (body < end && (size_t)(end - body) >= 4 && !memcmp(body, "=== ", 4)) {
            be = body; /* an empty body */
        } else {
            const char *q = body < end ? memmem(body, (size_t)(end - body), "\n=== ", 5) : NULL;
            be = q ? q + 1 : end;
        }
        records++;
        size_t hl = (size_t)(he - h);
        if (hl >= 7 && !memcmp(h, "@params", 7)) {
            size_t bl = (size_t)(be - body);
            if (bl && body[bl - 1] == '\n')
                bl--;
            if (!memchr(body, 0, bl)) {
                char *v = strndup(body, bl);
                setenv("ARGOCD_APP_PARAMETERS", v, 1);
                free(v);
            }
        } else if (hl > 5 && !memcmp(h, "@env ", 5)) {
            size_t bl = (size_t)(be - body);
            if (bl && body[bl - 1] == '\n')
                bl--;
            put_env(h + 5, hl - 5, body, bl);
        } else {
            const char *arrow = NULL;
            for (const char *q = h; q + 4 <= he; q++)
                if (!memcmp(q, " -> ", 4)) {
                    arrow = q;
                    break;
                }
            if (arrow)
                make_link(h, (size_t)(arrow - h), arrow + 4, (size_t)(he - arrow - 4));
            else
                make_file(h, hl, body, (size_t)(be - body));
        }
        p = be;
    }

    char *before = o.in_place ? snapshot() : NULL;
    char results_dir[4200];
    if (results) {
        snprintf(results_dir, sizeof results_dir, "%s/results", root);
        o.results_dir = results_dir;
    }
    o.dir = pkg;
    diag_reset();
    buf out = {0};
    struct sigaction alarm_before, alarm_after;
    struct itimerval timer_before, timer_after;
    __real_sigaction(SIGALRM, NULL, &alarm_before);
    getitimer(ITIMER_REAL, &timer_before);
    render_pid = (pid_t)syscall(SYS_getpid);
    in_render = true;
    int rc = render(&o, &out);
    in_render = false;
    /* libFuzzer's -timeout still works: its handler is in place and its timer keeps its period */
    __real_sigaction(SIGALRM, NULL, &alarm_after);
    getitimer(ITIMER_REAL, &timer_after);
    if (alarm_after.sa_handler != alarm_before.sa_handler ||
        timer_after.it_interval.tv_sec != timer_before.it_interval.tv_sec ||
        timer_after.it_interval.tv_usec != timer_before.it_interval.tv_usec)
        fz_die("fuzz_package", "render took SIGALRM or the real-time timer from libFuzzer (handler %s, timer period %lld s "
               "before, %lld s after)", alarm_after.sa_handler != alarm_before.sa_handler ? "replaced" : "kept",
               (long long)timer_before.it_interval.tv_sec, (long long)timer_after.it_interval.tv_sec);
    if (rc != 0 && rc != -1)
        fz_die("fuzz_package", "render returned %d", rc);
    if (rc < 0 && !diag_failed())
        fz_die("fuzz_package", "render failed without a message");
    if (rc == 0 && diag_failed())
        fz_die("fuzz_package", "render succeeded but left an error recorded: %s", diag_message());
    if (before) {
        if (results) /* the results file is meant to be written outside the package */
            rm_tree(results_dir);
        char *after = snapshot();
        if (strcmp(before, after))
            fz_die("fuzz_package", "an in-place render changed files outside the package\n--- before ---\n%s--- after ---\n%s",
                   before, after);
        free(after);
        free(before);
    }
    buf_free(&out);
    diag_reset();
    clear_env();
    return 0;
}
