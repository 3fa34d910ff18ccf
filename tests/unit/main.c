/* Runs the registered tests in a child process, so that a crash, a sanitizer report or a leak is charged to the test
 * that caused it and never takes the other tests' results with it:
 *   - the child reports each result as it goes; if it dies, the test it was running fails with the reason, the
 *     tests before it run once more (a dead process does no leak check), and a new child goes on after it;
 *   - if it ends with a failing status after every test reported (LeakSanitizer checks at exit), each of those tests
 *     runs again in a child of its own to find the one that leaked.
 *   unit-tests           one line per test: "PASS <name>" or "FAIL <name>: <why>"
 *   unit-tests --list    the names, one per line
 *   unit-tests NAME...   only those tests */
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "util/diag.h"

struct test {
    const char *name;
    test_fn fn;
    test_fn *setup; /* its file's test_file_setup */
    bool wanted;
    bool done;
    bool failed;
    char *msg;
};
static struct test tests[512];
static int ntests;
int test_failed_now;
static char fail_msg[8192];

void test_register(const char *name, test_fn fn, test_fn *setup)
{
    if (ntests < 512)
        tests[ntests++] = (struct test){.name = name, .fn = fn, .setup = setup};
}

void test_fail(const char *file, int line, const char *what)
{
    test_failed_now = 1;
    snprintf(fail_msg, sizeof fail_msg, "%s:%d: %s", file, line, what);
}

static void write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w <= 0)
            _exit(3);
        p += w;
        n -= (size_t)w;
    }
}

/* In the child: the tests from..to-1 that are wanted, each result as "<index>\t<0|1>\t<message>\0". */
static void child(int fd, int from, int to)
{
    for (int i = from; i < to; i++) {
        if (!tests[i].wanted)
            continue;
        test_failed_now = 0;
        diag_reset();
        if (*tests[i].setup)
            (*tests[i].setup)();
        tests[i].fn();
        char head[32];
        int n = snprintf(head, sizeof head, "%d\t%d\t", i, test_failed_now ? 1 : 0);
        write_all(fd, head, (size_t)n);
        write_all(fd, test_failed_now ? fail_msg : "", (test_failed_now ? strlen(fail_msg) : 0) + 1);
    }
    close(fd);
    exit(0); /* exit, not _exit: LeakSanitizer checks at exit, and fails the process with its own status */
}

/* The line of the child's stderr that names what went wrong: a sanitizer's ERROR or runtime error, else SUMMARY. */
static void why_from(FILE *err, char *out, size_t cap)
{
    char line[1024];
    out[0] = 0;
    rewind(err);
    while (fgets(line, sizeof line, err)) {
        bool first_choice = strstr(line, "ERROR:") || strstr(line, "runtime error");
        if (first_choice || (!out[0] && strstr(line, "SUMMARY:"))) {
            line[strcspn(line, "\n")] = 0;
            snprintf(out, cap, "%s", line);
            if (first_choice)
                return;
        }
    }
}

__attribute__((format(printf, 3, 4))) static void set_result(int i, bool failed, const char *fmt, ...)
{
    char m[sizeof fail_msg + 512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    free(tests[i].msg);
    tests[i].msg = strdup(m);
    tests[i].failed = failed;
    tests[i].done = true;
}

static void run_range(int from, int to)
{
    int fds[2];
    FILE *err = tmpfile();
    if (!err || pipe(fds) != 0) {
        for (int i = from; i < to; i++)
            if (tests[i].wanted)
                set_result(i, true, "cannot set up a child process (pipe or tmpfile)");
        return;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        dup2(fileno(err), 2);
        child(fds[1], from, to);
    }
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        for (int i = from; i < to; i++)
            if (tests[i].wanted)
                set_result(i, true, "fork failed");
        return;
    }
    /* read every record; the last index reported tells where a dead child stopped */
    size_t cap = 1 << 16, len = 0;
    char *data = malloc(cap);
    ssize_t r;
    for (;;) {
        if (len == cap)
            data = realloc(data, cap *= 2);
        r = read(fds[0], data + len, cap - len);
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
    }
    int last = from - 1;
    for (size_t p = 0; p < len;) {
        char *end = memchr(data + p, 0, len - p);
        if (!end)
            break; /* a record cut short: its test did not finish */
        int i, failed, off = 0;
        if (sscanf(data + p, "%d\t%d\t%n", &i, &failed, &off) == 2 && off > 0 && i >= from && i < to) {
            set_result(i, failed, "%s", data + p + off);
            last = i;
        }
        p = (size_t)(end - data) + 1;
    }
    free(data);
    char why[1100];
    why_from(err, why, sizeof why);
    bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    const char *how = WIFSIGNALED(status) ? "signal" : "exit status";
    int code = WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status);
    int next = last + 1;
    while (next < to && !tests[next].wanted)
        next++;
    if (next < to) {
        /* the child died in test `next`: charge it, go on after it */
        set_result(next, true, "the test did not finish (%s %d)%s%s", how, code, why[0] ? ": " : "", why);
    } else if (!clean) {
        int wanted = 0, only = -1;
        for (int i = from; i < to; i++)
            if (tests[i].wanted)
                wanted++, only = i;
        if (wanted == 1 && !tests[only].failed)
            set_result(only, true, "the test passed, then its process ended with %s %d%s%s", how, code,
                       why[0] ? ": " : "", why);
        else if (wanted > 1)
            next = -1; /* every test reported, the process failed at exit: find the test, one child each */
    }
    /* what the child wrote on stderr (sanitizer reports, messages of the code under test) goes on */
    rewind(err);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, err)) > 0)
        fwrite(buf, 1, n, stderr);
    fflush(stderr);
    fclose(err);
    if (next == -1) {
        for (int i = from; i < to; i++)
            if (tests[i].wanted)
                run_range(i, i + 1);
    } else if (next < to) {
        /* the tests before it reported, but a dead process never ran its leak check: once more, up to the dead one */
        bool before = false;
        for (int i = from; i < next; i++)
            before |= tests[i].wanted;
        if (before)
            run_range(from, next);
        run_range(next + 1, to);
    }
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--list")) {
        for (int i = 0; i < ntests; i++)
            printf("%s\n", tests[i].name);
        return 0;
    }
    int named = 0;
    for (int i = 0; i < ntests; i++) {
        tests[i].wanted = argc < 2;
        for (int k = 1; k < argc && !tests[i].wanted; k++)
            tests[i].wanted = !strcmp(argv[k], tests[i].name);
        named += tests[i].wanted;
    }
    if (argc >= 2 && named < argc - 1) {
        fprintf(stderr, "unit-tests: %d of the names given are no test\n", argc - 1 - named);
        return 2;
    }
    run_range(0, ntests);
    int failed = 0;
    for (int i = 0; i < ntests; i++) {
        if (!tests[i].wanted)
            continue;
        if (!tests[i].done)
            set_result(i, true, "no result (the child process stopped before it)");
        if (tests[i].failed)
            printf("FAIL %s: %s\n", tests[i].name, tests[i].msg);
        else
            printf("PASS %s\n", tests[i].name);
        failed += tests[i].failed;
    }
    return failed ? 1 : 0;
}
