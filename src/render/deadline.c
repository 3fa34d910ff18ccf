/* Where init's start time is kept, and why: in a small file in the application directory (MARKER), written only
 * under Argo CD. Argo CD unpacks a fresh copy of the repository for every request and deletes it afterwards, so the
 * file belongs to this request alone and never outlives it; Argo CD exposes no request id that a location under
 * TMPDIR could be keyed by, and such a file would stay behind whenever init fails (generate then never runs). Render
 * removes the file before anything reads the directory, so helm's .Files and the package reader never see it.
 * The package author controls the rest of that directory and could commit a file of that name: init replaces it,
 * and whatever render reads can only shorten the budget (the elapsed time counts between 0 and the budget), so a
 * forged record hurts only its own Application. The clock is CLOCK_MONOTONIC: init and render run on one machine. */
#include "render/deadline.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "util/child.h"
#include "util/diag.h"

#define MARKER ".cmp-generate-init-started"

static char message[400];
static size_t message_len;

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* An abort path: main never gets control back, so the handler writes the one line itself (write(2) is safe in a
 * signal handler; warnings recorded so far are not printed). */
static void on_deadline(int sig)
{
    (void)sig;
    if (write(STDERR_FILENO, message, message_len) < 0) {
    }
    /* helm or kustomize still running go with everything they started, scratch is removed; nothing has reached
     * stdout yet unless the emit was under way */
    child_abort_all();
    _exit(1);
}

static void arm(long long ms)
{
    message_len = strlen(message);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_deadline;
    sigfillset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it;
    memset(&it, 0, sizeof it);
    it.it_value.tv_sec = (time_t)(ms / 1000);
    it.it_value.tv_usec = (suseconds_t)(ms % 1000) * 1000;
    setitimer(ITIMER_REAL, &it, NULL);
}

static const char *marker_path(const char *dir, char *out, size_t outlen)
{
    if ((size_t)snprintf(out, outlen, "%s/%s", dir, MARKER) >= outlen)
        return NULL;
    return out;
}

int deadline_start_init(const char *dir, int budget_s, bool argocd)
{
    long long start = now_ms();
    snprintf(message, sizeof message,
             "cmp-generate: init went over the time budget of %d s (parameter timeout, shared by init and render; "
             "Argo CD gives a plugin 60 s in all)\n", budget_s);
    arm((long long)budget_s * 1000);
    if (!argocd)
        return 0;
    char path[PATH_MAX];
    if (!marker_path(dir, path, sizeof path))
        return fail(NULL, 0, "the application directory's path is too long");
    if (unlink(path) != 0 && errno != ENOENT)
        return fail(MARKER, 0, "cannot replace this file (init records its start there, as init and render share "
                               "the time budget): %s", strerror(errno));
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    char text[32];
    int len = snprintf(text, sizeof text, "%lld\n", start);
    if (fd < 0 || write(fd, text, (size_t)len) != len || close(fd) != 0) {
        int e = errno;
        if (fd >= 0)
            unlink(path);
        return fail(MARKER, 0, "cannot record the start of init (init and render share the time budget): %s",
                    strerror(e));
    }
    return 0;
}

void deadline_forget_init(const char *dir)
{
    char path[PATH_MAX];
    struct stat st;
    if (marker_path(dir, path, sizeof path) && lstat(path, &st) == 0 && S_ISREG(st.st_mode))
        unlink(path);
}

/* Milliseconds init used, read from its record (which is removed); 0 without one. */
static long long init_used(const char *dir, int budget_s)
{
    char path[PATH_MAX];
    struct stat st;
    if (!marker_path(dir, path, sizeof path) || lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    char text[32] = {0};
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    ssize_t n = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;
    if (fd >= 0)
        close(fd);
    unlink(path);
    if (n <= 0)
        return 0;
    char *end;
    long long start = strtoll(text, &end, 10);
    if (end == text || (*end && *end != '\n'))
        return 0;
    long long used = now_ms() - start;
    if (used < 0 || used > 3600 * 1000LL) /* not from this boot or this request */
        return 0;
    return used > budget_s * 1000LL ? budget_s * 1000LL : used;
}

int deadline_start_render(const char *dir, int budget_s, bool argocd)
{
    long long used = argocd ? init_used(dir, budget_s) : 0, left = budget_s * 1000LL - used;
    if (left <= 0)
        return fail(NULL, 0, "init used the whole time budget of %d s: nothing is left for the render (parameter "
                             "timeout, shared by init and render; Argo CD gives a plugin 60 s in all)", budget_s);
    if (used > 0)
        snprintf(message, sizeof message,
                 "cmp-generate: the render went over its time budget of %d s, %lld.%03lld s of which init used "
                 "(parameter timeout, shared by init and render; Argo CD gives a plugin 60 s in all)\n",
                 budget_s, used / 1000, used % 1000);
    else
        snprintf(message, sizeof message,
                 "cmp-generate: the render went over its time budget of %d s (parameter timeout, shared by init and "
                 "render; Argo CD gives a plugin 60 s in all)\n", budget_s);
    arm(left);
    return 0;
}
