/* util/arena.h's memory budget: every arena chunk, x-allocation, pcre2 allocation and libfyaml reservation counts
 * while it is held and is given back when it is freed; past the limit the process ends with the one line, exit 1.
 * The tests that go past it run in a child of the test, which reads its stderr and status. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "functions/krm/regex.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/diag.h"
#include "yaml/load.h"

TEST(memory_budget_counts_what_is_held_and_gives_it_back)
{
    size_t base = mem_used();
    char *p = xmalloc(100000);
    size_t with_p = mem_used();
    p = xrealloc(p, 300000);
    size_t grown = mem_used();
    xfree(p);
    size_t freed = mem_used();
    arena *a = arena_new();
    arena_alloc(a, 1000);
    size_t with_arena = mem_used();
    arena_alloc(a, 1u << 20); /* a chunk of its own */
    size_t with_big = mem_used();
    arena_free(a);
    size_t arena_gone = mem_used();
    buf b = {0};
    for (int i = 0; i < 100000; i++)
        buf_puts(&b, "0123456789");
    size_t with_buf = mem_used();
    buf_free(&b);
    size_t buf_gone = mem_used();
    char *z = xcalloc(1000, 1000);
    size_t with_z = mem_used();
    xfree(z);
    mem_hold(5u << 20, "a child");
    size_t held = mem_used();
    mem_release(5u << 20, "a child");
    CHECK(with_p >= base + 100000 && with_p < base + 100000 + 4096);
    CHECK(grown >= base + 300000 && grown < base + 300000 + 4096);
    CHECK(freed == base);
    CHECK(with_arena >= base + 256 * 1024); /* a chunk is counted whole when it is taken */
    CHECK(with_big >= with_arena + (1u << 20));
    CHECK(arena_gone == base);
    CHECK(with_buf >= base + 1000000 && buf_gone == base);
    CHECK(with_z >= base + 1000000);
    CHECK(held == base + (5u << 20));
    CHECK(mem_used() == base);
    CHECK(mem_peak() >= base + (5u << 20));
}

/* libfyaml takes no allocator: a parse holds 3/2 of its text (and a little per level) while the parser lives. */
TEST(memory_budget_reserves_for_libfyaml_during_a_parse)
{
    /* mem_peak() is the process's: past the peak an earlier test of the same process left (the vendored OpenAPI
     * document of tests/unit/schema), so that the peak seen after the parse can only be this parse's */
    size_t n = 4u << 20, left_by_others = mem_peak() - mem_used();
    if (n < left_by_others)
        n += left_by_others;
    char *text = xmalloc(n + 16);
    memcpy(text, "a: \"", 4);
    memset(text + 4, 'x', n - 6);
    memcpy(text + n - 2, "\"\n", 2);
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    node *root = NULL;
    size_t before = mem_used(), peak_before = mem_peak();
    int rc = yaml_load_one(a, st, NULL, "t.yaml", text, n, &root);
    size_t peak = mem_peak();
    strtab_release(st);
    arena_free(a);
    xfree(text);
    CHECK(rc == 0 && root);
    CHECK(peak_before < before + n + n / 2); /* the peak below came from this parse */
    CHECK(peak >= before + n + n / 2);
}

TEST(memory_budget_counts_pcre2)
{
    size_t base = mem_used();
    int code;
    PCRE2_SIZE off;
    pcre2_code *re = regex_compile("(a|b|c)+x", &code, &off);
    size_t compiled = mem_used();
    pcre2_match_data *md = regex_match_data(re);
    char s[20000];
    memset(s, 'a', sizeof s); /* no x: every way of matching the a's is tried, deep in backtracking frames */
    size_t peak_before = mem_peak();
    int rc = regex_search(NULL, re, md, s, sizeof s);
    size_t peak = mem_peak();
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    CHECK(re && compiled > base);
    CHECK(rc <= 0);
    CHECK(peak > peak_before || peak_before > compiled + 100000); /* the frames were counted (now or before) */
    CHECK(mem_used() <= compiled);
}

/* Runs what(limit) in a child with stderr to a pipe: its exit status and stderr. */
static int over_in_child(void (*what)(void), char *err, size_t cap)
{
    int p[2];
    if (pipe(p) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        close(p[0]);
        dup2(p[1], 2);
        int dn = open("/dev/null", O_WRONLY);
        if (dn >= 0)
            dup2(dn, 1);
        what();
        _exit(0);
    }
    close(p[1]);
    size_t n = 0;
    ssize_t r;
    while (n + 1 < cap && (r = read(p[0], err + n, cap - 1 - n)) > 0)
        n += (size_t)r;
    err[n] = 0;
    close(p[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void arena_past(void)
{
    mem_budget_set(mem_used() + (8u << 20), "CMP_MAX_MEMORY_MB=8; raise it");
    diag_set_step("read");
    arena *a = arena_new();
    for (int i = 0; i < 100000; i++)
        arena_alloc(a, 1000); /* 100 MB */
}

static void reading_past(void)
{
    mem_budget_set(mem_used() + (4u << 20), "test");
    diag_set_step("read");
    const char *before = mem_reading("big\nfile.yaml"); /* a line break in a name stays on the one line */
    xfree(xmalloc(8u << 20));
    mem_reading(before);
}

static void huge_request(void)
{
    mem_budget_set(64u << 20, "test");
    xmalloc((size_t)1 << 62); /* the budget's error, not malloc's failure */
}

static void child_held(void)
{
    mem_budget_set(mem_used() + (10u << 20), "test");
    diag_set_step("pipeline.mutators[0] render-helm-chart");
    mem_hold(6u << 20, "helm template of chart\nweb"); /* a line break in a name stays on the one line */
    xfree(xmalloc(5u << 20));
}

static void set_below_use(void)
{
    char *p = xmalloc(3u << 20);
    mem_budget_set(1u << 20, "test");
    xfree(p);
}

TEST(memory_budget_ends_the_process_with_one_line)
{
    char err[2048], err2[2048], err3[2048], err4[2048], err5[2048];
    int rc = over_in_child(arena_past, err, sizeof err);
    int rc2 = over_in_child(huge_request, err2, sizeof err2);
    int rc3 = over_in_child(child_held, err3, sizeof err3);
    int rc4 = over_in_child(set_below_use, err4, sizeof err4);
    int rc5 = over_in_child(reading_past, err5, sizeof err5);
    CHECK(rc == 1);
    CHECK(strstr(err, "cmp-generate: read: the render needs more than ") == err);
    CHECK(strstr(err, " MB of memory (CMP_MAX_MEMORY_MB=8; raise it)\n") != NULL);
    CHECK(strchr(err, '\n') == err + strlen(err) - 1);
    CHECK(rc2 == 1 && strstr(err2, "the render needs more than 64 MB of memory (test)\n"));
    CHECK(rc3 == 1 && strstr(err3, "; 6 MB of it are held for helm template of chart?web while it runs)\n"));
    CHECK(strchr(err3, '\n') == err3 + strlen(err3) - 1);
    CHECK(rc4 == 1 && strstr(err4, "the render needs more than 1 MB of memory (test)\n"));
    CHECK(rc5 == 1 && strstr(err5, "cmp-generate: big?file.yaml: read: the render needs more than ") == err5);
}
