/* measure: run a command and record wall time, CPU time and peak RSS.
 *
 *   measure [-t SECONDS] RESULTFILE CMD [ARG...]
 *
 * The command inherits stdin, stdout and stderr. When it has finished, RESULTFILE gets one line:
 *
 *   WALL_S USER_S SYS_S MAXRSS_KIB STATUS
 *
 * STATUS is the exit code, or 128+signal. CPU times and max RSS come from wait4(): user and system
 * time include every descendant the command waited for (all stages of a shell pipeline), and max
 * RSS is the largest single process in that tree (as GNU time reports it), not a sum.
 * measure itself exits with the command's status (127 if it could not be started).
 *
 * The command runs in its own process group. With -t, the whole group is killed after SECONDS and
 * STATUS is 124. SIGINT, SIGTERM and SIGHUP sent to measure are passed on to the group.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
    got_signal = sig;
}

static double tv(struct timeval t)
{
    return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
    double limit = 0;
    int i = 1;
    if (argc > 2 && strcmp(argv[1], "-t") == 0) {
        char *end;
        limit = strtod(argv[2], &end);
        if (*end || limit < 0) {
            fputs("measure: -t wants a number of seconds\n", stderr);
            return 2;
        }
        i = 3;
    }
    if (argc - i < 2) {
        fputs("usage: measure [-t SECONDS] RESULTFILE CMD [ARG...]\n", stderr);
        return 2;
    }
    const char *resfile = argv[i];
    char **cmd = argv + i + 1;

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: wait4 returns EINTR */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);

    double t0 = now();
    pid_t pid = fork();
    if (pid < 0) {
        perror("measure: fork");
        return 127;
    }
    if (pid == 0) {
        setpgid(0, 0);
        signal(SIGALRM, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        execvp(cmd[0], cmd);
        fprintf(stderr, "measure: cannot run %s: %s\n", cmd[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid); /* also here, so that a kill right after fork reaches the group */
    if (limit > 0) {
        struct itimerval it;
        memset(&it, 0, sizeof it);
        it.it_value.tv_sec = (time_t)limit;
        it.it_value.tv_usec = (suseconds_t)((limit - (double)(time_t)limit) * 1e6);
        if (it.it_value.tv_sec == 0 && it.it_value.tv_usec == 0)
            it.it_value.tv_usec = 1;
        setitimer(ITIMER_REAL, &it, NULL);
    }

    int status, timed_out = 0, forwarded = 0;
    struct rusage ru;
    pid_t r;
    for (;;) {
        r = wait4(pid, &status, 0, &ru);
        if (r >= 0 || errno != EINTR)
            break;
        int sig = got_signal;
        got_signal = 0;
        if (sig == SIGALRM) {
            timed_out = 1;
            kill(-pid, SIGKILL);
        } else if (sig) {
            forwarded = sig;
            kill(-pid, sig);
        }
    }
    double wall = now() - t0;
    if (r < 0) {
        perror("measure: wait4");
        return 127;
    }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (timed_out) {
        fprintf(stderr, "measure: %s timed out after %g s\n", cmd[0], limit);
        code = 124;
    }

    FILE *f = fopen(resfile, "w");
    if (!f) {
        perror(resfile);
        return 127;
    }
    fprintf(f, "%.4f %.4f %.4f %ld %d\n", wall, tv(ru.ru_utime), tv(ru.ru_stime), ru.ru_maxrss,
            code);
    if (fclose(f) != 0) {
        perror(resfile);
        return 127;
    }
    if (forwarded) {
        signal(forwarded, SIG_DFL);
        raise(forwarded);
    }
    return code;
}
