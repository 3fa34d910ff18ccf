/* The default memory limit of a child follows the sidecar container's own limit (cgroup v2 or v1), so a big chart
 * gets our "ran out of memory" error rather than the kernel's OOM killer; an explicit CMP_CHILD_MAX_MEMORY_MB wins. */
#include <stdlib.h>
#include <unistd.h>

#include "argocd/host.h"
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

TEST(child_memory_default_is_three_quarters_of_the_container_at_most_1024)
{
    CHECK(cgroup_dir() == 0);
    const char *none = cgroup_file("none", NULL);
    long long small = host_child_memory_default(cgroup_file("256Mi", "268435456\n"), none);  /* the Component's */
    long long big = host_child_memory_default(cgroup_file("4Gi", "4294967296\n"), none);
    long long v1_only = host_child_memory_default(none, cgroup_file("v1", "536870912\n"));
    /* v2 answers first: "max" there means no limit, whatever a stale v1 path would say */
    long long v2_max = host_child_memory_default(cgroup_file("max", "max\n"), cgroup_file("v1b", "536870912\n"));
    long long v1_unlimited = host_child_memory_default(none, cgroup_file("v1u", "9223372036854771712\n"));
    long long neither = host_child_memory_default(none, none);
    long long garbage = host_child_memory_default(cgroup_file("junk", "junk\n"), cgroup_file("junk1", "x\n"));
    long long garbage_v2 = host_child_memory_default(cgroup_file("junk2", "junk\n"), cgroup_file("v1c", "536870912\n"));
    long long tiny = host_child_memory_default(cgroup_file("tiny", "4096\n"), none); /* never 0, which is no limit */
    long long edge = host_child_memory_default(cgroup_file("edge", "1431306240\n"), none); /* 1365 MiB: 1023.75 */
    fs_remove_tree(dir);
    CHECK(small == 192);
    CHECK(big == 1024);
    CHECK(v1_only == 384);
    CHECK(v2_max == 1024);
    CHECK(v1_unlimited == 1024);
    CHECK(neither == 1024);
    CHECK(garbage == 1024);
    CHECK(garbage_v2 == 384);
    CHECK(tiny == 1);
    CHECK(edge == 1023);
}

TEST(child_memory_explicit_setting_wins)
{
    fn_host h = {0};
    setenv("CMP_CHILD_MAX_MEMORY_MB", "2048", 1); /* above any default, container or not */
    host_children_from_env(&h);
    long above = h.child_max_memory_mb;
    bool above_container = h.child_memory_from_container;
    setenv("CMP_CHILD_MAX_MEMORY_MB", "100", 1);
    host_children_from_env(&h);
    long below = h.child_max_memory_mb;
    bool below_container = h.child_memory_from_container;
    setenv("CMP_CHILD_MAX_MEMORY_MB", "0", 1);
    host_children_from_env(&h);
    long unlimited = h.child_max_memory_mb;
    setenv("CMP_CHILD_MAX_MEMORY_MB", "", 1); /* empty is unset: the default, whatever this machine's cgroup says */
    host_children_from_env(&h);
    long empty = h.child_max_memory_mb;
    unsetenv("CMP_CHILD_MAX_MEMORY_MB");
    long want = host_child_memory_default("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes");
    CHECK(above == 2048 && !above_container);
    CHECK(below == 100 && !below_container);
    CHECK(unlimited == 0);
    CHECK(empty == want && empty >= 1 && empty <= 1024);
    CHECK(h.child_memory_from_container == (want < 1024));
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
