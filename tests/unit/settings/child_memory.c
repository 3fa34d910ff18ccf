/* The render's memory budget follows the sidecar container's own limit (cgroup v2 or v1), and a child's memory limit
 * comes out of it, so a big package or chart gets our error rather than the kernel's OOM killer; the input limits'
 * defaults follow from the budget; an explicit CMP_MAX_MEMORY_MB or CMP_CHILD_MAX_MEMORY_MB wins. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "settings/host.h"
#include "check.h"
#include "util/fsutil.h"

/* A temporary directory with the files a cgroup would show; each test removes it before it checks anything. */
static char dir[32];

static const char *cgroup_file(const char *name, const char *text)
{
    static char paths[32][80]; /* more than a test uses, so a path stays valid through it */
    static int next;
    char *p = paths[next++ % 32];
    snprintf(p, sizeof paths[0], "%s/%s", dir, name);
    if (text) {
        FILE *f = fopen(p, "w");
        if (f) {
            fputs(text, f);
            fclose(f);
        }
    }
    return p;
}

static int cgroup_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/cgroup.XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

TEST(cgroup_memory_limit_reads_v1_and_v2_files)
{
    CHECK(cgroup_dir() == 0);
    long long v2 = host_cgroup_memory_limit(cgroup_file("v2", "268435456\n"));
    long long v2_max = host_cgroup_memory_limit(cgroup_file("v2max", "max\n"));
    long long v1 = host_cgroup_memory_limit(cgroup_file("v1", "536870912\n"));
    long long v1_unlimited = host_cgroup_memory_limit(cgroup_file("v1unl", "9223372036854771712\n"));
    long long v1_64k = host_cgroup_memory_limit(cgroup_file("v1unl64k", "9223372036854710272\n"));
    long long no_newline = host_cgroup_memory_limit(cgroup_file("nonl", "1048576"));
    long long missing = host_cgroup_memory_limit(cgroup_file("missing", NULL));
    long long empty = host_cgroup_memory_limit(cgroup_file("empty", ""));
    long long word = host_cgroup_memory_limit(cgroup_file("word", "lots\n"));
    long long tail = host_cgroup_memory_limit(cgroup_file("tail", "256M\n"));
    long long sign = host_cgroup_memory_limit(cgroup_file("sign", "-1\n"));
    long long two = host_cgroup_memory_limit(cgroup_file("two", "1048576\n1048576\n"));
    long long longer = host_cgroup_memory_limit(cgroup_file("long", "123456789012345678901234567890123456789\n"));
    long long directory = host_cgroup_memory_limit(dir);
    fs_remove_tree(dir);
    CHECK(v2 == 268435456);
    CHECK(v2_max == 0);
    CHECK(v1 == 536870912);
    CHECK(v1_unlimited == 0);
    CHECK(v1_64k == 0);
    CHECK(no_newline == 1048576);
    CHECK(missing == -1);
    CHECK(empty == -1 && word == -1 && tail == -1 && sign == -1 && two == -1 && longer == -1);
    CHECK(directory == -1);
}

/* The render's memory budget (CMP_MAX_MEMORY_MB) unset: 3/4 of the container's limit (v2, else v1), whole MB; with no
 * limit visible, 192 MB, 3/4 of the Components' 256Mi. Set, it wins whatever the container says. */
TEST(memory_budget_is_three_quarters_of_the_container)
{
    CHECK(cgroup_dir() == 0);
    const char *none = cgroup_file("none", NULL);
    char why[300], why_none[300], why_set[300], why_v1[300];
    size_t small = host_memory_budget(0, cgroup_file("256Mi", "268435456\n"), none, why, sizeof why); /* the Component's */
    size_t big = host_memory_budget(0, cgroup_file("4Gi", "4294967296\n"), none, why, sizeof why);
    size_t v1_only = host_memory_budget(0, none, cgroup_file("v1", "536870912\n"), why_v1, sizeof why_v1);
    /* v2 answers first: "max" there means no limit, whatever a stale v1 path would say */
    size_t v2_max = host_memory_budget(0, cgroup_file("max", "max\n"), cgroup_file("v1b", "536870912\n"), why, sizeof why);
    size_t v1_unlimited = host_memory_budget(0, none, cgroup_file("v1u", "9223372036854771712\n"), why, sizeof why);
    size_t garbage_v2 = host_memory_budget(0, cgroup_file("junk2", "junk\n"), cgroup_file("v1c", "536870912\n"), why,
                                           sizeof why);
    size_t tiny = host_memory_budget(0, cgroup_file("tiny", "4096\n"), none, why, sizeof why); /* never 0: no limit */
    size_t odd = host_memory_budget(0, cgroup_file("odd", "1431306240\n"), none, why, sizeof why); /* 1023.75 MB */
    size_t neither = host_memory_budget(0, none, none, why_none, sizeof why_none);
    size_t set = host_memory_budget(64, cgroup_file("128Mi", "134217728\n"), none, why_set, sizeof why_set);
    fs_remove_tree(dir);
    CHECK(small == (size_t)192 << 20);
    CHECK(big == (size_t)3072 << 20);
    CHECK(v1_only == (size_t)384 << 20);
    CHECK(v2_max == (size_t)MEMORY_DEFAULT_MB << 20 && v1_unlimited == v2_max && neither == v2_max);
    CHECK(garbage_v2 == (size_t)384 << 20);
    CHECK(tiny == (size_t)1 << 20);
    CHECK(odd == (size_t)1023 << 20);
    CHECK(set == (size_t)64 << 20);
    CHECK(strstr(why_v1, "3/4 of the sidecar container's 512 MiB memory limit") != NULL);
    CHECK(strstr(why_none, "no container memory limit visible") && strstr(why_none, "CMP_MAX_MEMORY_MB"));
    CHECK(strstr(why_set, "CMP_MAX_MEMORY_MB=64") != NULL);
}

/* The input limits' defaults follow from the budget: the worst shape measured fits within them. */
TEST(input_limits_follow_the_memory_budget)
{
    setenv("CMP_MAX_MEMORY_MB", "240", 1);
    int rc = host_limits_from_env();
    size_t total = host_limits()->max_total_bytes, file = host_limits()->max_file_bytes, budget = host_limits()->max_memory_bytes;
    setenv("CMP_MAX_MEMORY_MB", "24000", 1);
    host_limits_from_env();
    size_t big_file = host_limits()->max_file_bytes, big_total = host_limits()->max_total_bytes;
    setenv("CMP_MAX_TOTAL_BYTES", "1G", 1); /* a value that is set wins */
    host_limits_from_env();
    size_t set_total = host_limits()->max_total_bytes;
    setenv("CMP_MAX_MEMORY_MB", "0", 1);
    int zero = host_limits_from_env();
    unsetenv("CMP_MAX_MEMORY_MB");
    unsetenv("CMP_MAX_TOTAL_BYTES");
    host_limits_from_env();
    CHECK(rc == 0 && budget == (size_t)240 << 20);
    CHECK(total == budget / MEMORY_PER_INPUT_BYTE && file == total);
    CHECK(big_total == ((size_t)24000 << 20) / MEMORY_PER_INPUT_BYTE && big_file == (size_t)64 << 20);
    CHECK(set_total == (size_t)1 << 30);
    CHECK(zero == -1); /* at least 1, as every CMP_MAX_* */
}

TEST(child_memory_explicit_setting_wins)
{
    fn_host h = {0};
    setenv("CMP_CHILD_MAX_MEMORY_MB", "2048", 1); /* above any default, container or not */
    host_children_from_env(&h);
    long above = h.child_max_memory_mb;
    bool above_shared = h.child_memory_shared;
    setenv("CMP_CHILD_MAX_MEMORY_MB", "100", 1);
    host_children_from_env(&h);
    long below = h.child_max_memory_mb;
    bool below_shared = h.child_memory_shared;
    setenv("CMP_CHILD_MAX_MEMORY_MB", "0", 1);
    host_children_from_env(&h);
    long unlimited = h.child_max_memory_mb;
    bool unlimited_shared = h.child_memory_shared;
    setenv("CMP_CHILD_MAX_MEMORY_MB", "", 1); /* empty is unset: a share of the render's budget when a child starts */
    host_children_from_env(&h);
    unsetenv("CMP_CHILD_MAX_MEMORY_MB");
    CHECK(above == 2048 && !above_shared);
    CHECK(below == 100 && !below_shared);
    CHECK(unlimited == 0 && !unlimited_shared);
    CHECK(h.child_memory_shared);
    CHECK(h.child_settings_error == NULL);
}

/* The four child limits take plain digits from 0 (no limit) to 2^30, as README's Limits says; anything else is the
 * setting's error (reported when a child would run), never a number strtol made of it. */
TEST(child_limits_take_plain_digits_from_0_to_2_30)
{
    static const char *const names[] = {"CMP_CHILD_MAX_MEMORY_MB", "CMP_CHILD_MAX_CPU_SECONDS", "CMP_CHILD_MAX_FILE_MB",
                                        "CMP_CHILD_MAX_PROCS"};
    static const char *const bad[] = {"+5", " 5", "5 ", "-0", "-1", "5x", "0x10", "1073741825", "99999999999999999999"};
    int refused = 0, named = 0, kept_default = 0;
    long top = -1, zero = -1;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        fn_host h = {0};
        for (size_t j = 0; j < sizeof bad / sizeof *bad; j++) {
            setenv(names[i], bad[j], 1);
            host_children_from_env(&h);
            refused += h.child_settings_error != NULL;
            named += h.child_settings_error && strstr(h.child_settings_error, names[i]) != NULL;
            kept_default += i != 1 || h.child_max_cpu_seconds == 60;
        }
        setenv(names[i], "1073741824", 1);
        host_children_from_env(&h);
        if (i == 3)
            top = h.child_settings_error ? -2 : h.child_max_procs;
        setenv(names[i], "0", 1);
        host_children_from_env(&h);
        if (i == 2)
            zero = h.child_settings_error ? -2 : h.child_max_file_mb;
        unsetenv(names[i]);
    }
    int n = (int)(sizeof names / sizeof *names * (sizeof bad / sizeof *bad));
    CHECK(refused == n);
    CHECK(named == n);
    CHECK(kept_default == n);
    CHECK(top == 1073741824);
    CHECK(zero == 0);
}
