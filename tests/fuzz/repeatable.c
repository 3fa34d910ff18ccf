/* Linked into every fuzz target: tests/fuzz/build wraps libFuzzer's call of LLVMFuzzerTestOneInput
 * (-Wl,--wrap=LLVMFuzzerTestOneInput), so each input passes through here first. It is what makes the exploration
 * of `make test` a function of the commit, and what shows it.
 *
 * FUZZ_REPEATABLE=1 (tests/fuzz/run sets it, except with --long):
 *   - Stack depth is not a coverage feature. clang's -fsanitize=fuzzer measures how far below libFuzzer's frame
 *     the stack went during an input, and libFuzzer keeps an input that went deeper. In bytes that depth is not
 *     a property of the input: ASan realigns frames to 32 bytes, so it moves with where the stack starts, which
 *     ASLR picks at random and the size of the environment and arguments (paths of the checkout) shifts. Two runs
 *     of one commit kept different inputs from the first few hundred on, and then explored different code. The
 *     mark libFuzzer reads (__sancov_lowest_stack) is put back after each input, so the feature is always 0.
 *   - The address space layout is fixed: the process turns ASLR off for itself (personality ADDR_NO_RANDOMIZE,
 *     what `setarch -R` does) and executes itself again, before libFuzzer starts. Coverage depends on addresses:
 *     the shared-key table (src/yaml/tree.c, key_shared) is hashed by the key text's address, so how far a lookup
 *     probes (an edge's hit count, hence a feature) follows where the arena's chunks landed, and those chunks
 *     (256 KiB and more) are mmap'd at an address ASLR picks. fuzz_package runs with the same seed kept other
 *     inputs about one run in three, from the first hundred inputs on; with ASLR off, every run the same. One line
 *     "==FUZZ LAYOUT== fixed" (or "==FUZZ LAYOUT== random: <why>" where the system refuses, a container's seccomp
 *     profile for one) on stderr says which, for tests/fuzz/run.
 *   - CLOCK_MONOTONIC is a counter (1000 s at the start, 1 ms more at each read): the render's time budget
 *     subtracts init's start, read from a file the package can write, from the machine's uptime. CLOCK_REALTIME,
 *     which libFuzzer's timeouts use, is the real one.
 *   - getrandom gives zeros: the interning hash is seeded from it (src/yaml/tree.c), and where texts collide in the
 *     table moves the probe loops' hit counts, which are coverage.
 * Always: after every 500th input and at exit, one line "==FUZZ DIGEST== <hash> <n> inputs" on stderr, the hash
 * (FNV-1a, 64 bits) of the first n inputs run, in order, each as its length and bytes. Two explorations that print
 * the same line ran the same n inputs; a short run can be compared with the start of a long one.
 * FUZZ_STACK_SHIFT=<bytes> (0 to 4096): run each input that much deeper in the stack, for the check in
 * tests/fuzz/run that where the stack starts changes nothing.
 * This file is no target (the name does not start with fuzz_) and is not instrumented for coverage. */
#define _GNU_SOURCE
#include <alloca.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/personality.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NO_COVERAGE __attribute__((no_sanitize("coverage")))

int __real_LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern _Thread_local uintptr_t __sancov_lowest_stack;

static int repeatable = -1; /* -1: FUZZ_REPEATABLE not read yet */
static size_t stack_shift;
static uint64_t digest = 1469598103934665603ull;
static unsigned long long inputs;

NO_COVERAGE static void read_settings(void)
{
    const char *r = getenv("FUZZ_REPEATABLE"), *s = getenv("FUZZ_STACK_SHIFT");
    repeatable = r && !strcmp(r, "1");
    long v = s ? strtol(s, NULL, 10) : 0;
    stack_shift = v > 0 && v <= 4096 ? (size_t)v : 0;
}

NO_COVERAGE static void add(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        digest = (digest ^ p[i]) * 1099511628211ull;
}

NO_COVERAGE static void print_digest(void)
{
    fprintf(stderr, "==FUZZ DIGEST== %016llx %llu inputs\n", (unsigned long long)digest, inputs);
}

NO_COVERAGE int __wrap_LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (repeatable < 0)
        read_settings();
    uint64_t len = size;
    add((const uint8_t *)&len, sizeof len);
    add(data, size);
    if (++inputs % 500 == 0)
        print_digest();
    uintptr_t mark = __sancov_lowest_stack;
    if (stack_shift) {
        volatile char *pad = alloca(stack_shift);
        pad[0] = 0;
    }
    int rc = __real_LLVMFuzzerTestOneInput(data, size);
    if (repeatable)
        __sancov_lowest_stack = mark;
    return rc;
}

NO_COVERAGE int clock_gettime(clockid_t clock, struct timespec *ts)
{
    static _Thread_local long long ticks;
    if (repeatable < 0)
        read_settings();
    if (!repeatable || clock != CLOCK_MONOTONIC)
        return (int)syscall(SYS_clock_gettime, clock, ts);
    long long ms = 1000 * 1000 + ticks++;
    ts->tv_sec = (time_t)(ms / 1000);
    ts->tv_nsec = (long)(ms % 1000) * 1000000;
    return 0;
}

NO_COVERAGE ssize_t getrandom(void *buf, size_t n, unsigned flags)
{
    if (repeatable < 0)
        read_settings();
    if (!repeatable)
        return (ssize_t)syscall(SYS_getrandom, buf, n, flags);
    memset(buf, 0, n);
    return (ssize_t)n;
}

/* Runs before main (glibc passes argc, argv and envp to constructors), after the sanitizers' own start. */
NO_COVERAGE static void fixed_layout(int argc, char **argv, char **envp) __attribute__((constructor));
NO_COVERAGE static void fixed_layout(int argc, char **argv, char **envp)
{
    (void)argc;
    read_settings();
    if (!repeatable)
        return;
    int now = personality(0xffffffff);
    if (now != -1 && (now & ADDR_NO_RANDOMIZE)) {
        fprintf(stderr, "==FUZZ LAYOUT== fixed\n");
        return;
    }
    const char *why;
    int e = 0;
    if (now == -1) {
        why = "personality", e = errno;
    } else if (personality((unsigned long)now | ADDR_NO_RANDOMIZE) == -1) {
        why = "personality ADDR_NO_RANDOMIZE", e = errno;
    } else if (!(personality(0xffffffff) & ADDR_NO_RANDOMIZE)) {
        why = "personality did not keep ADDR_NO_RANDOMIZE";
    } else {
        execve("/proc/self/exe", argv, envp); /* returns only on failure */
        why = "execve /proc/self/exe", e = errno;
        personality((unsigned long)now);
    }
    fprintf(stderr, "==FUZZ LAYOUT== random: cannot turn ASLR off (%s%s%s); the inputs may differ from run to run\n",
            why, e ? ": " : "", e ? strerror(e) : "");
}

NO_COVERAGE static void digest_at_exit(void) __attribute__((destructor));
NO_COVERAGE static void digest_at_exit(void)
{
    if (inputs % 500)
        print_digest();
}
