/* CMP_* numbers: one rule for all of them, and an invalid value is an error that names the variable. */
#include <stdint.h>
#include <stdlib.h>

#include "settings/host.h"
#include "check.h"
#include "util/diag.h"
#include "util/fsutil.h"
#include "yaml/load.h"

static bool parses(const char *text, bool bytes, unsigned long long max, unsigned long long want)
{
    unsigned long long n = 0;
    return parse_env_number(text, bytes, 1, max, &n) == 0 && n == want;
}

static bool refused(const char *text, bool bytes, unsigned long long max)
{
    unsigned long long n = 7;
    return parse_env_number(text, bytes, 1, max, &n) < 0 && n == 7;
}

TEST(env_number_accepts_digits_and_byte_suffixes)
{
    CHECK(parses("1", false, 10, 1));
    CHECK(parses("010", false, 10, 10));
    CHECK(parses("100", true, SIZE_MAX, 100));
    CHECK(parses("2K", true, SIZE_MAX, 2048));
    CHECK(parses("3m", true, SIZE_MAX, 3u << 20));
    CHECK(parses("1G", true, SIZE_MAX, 1u << 30));
    CHECK(parses("18446744073709551615", true, UINT64_MAX, UINT64_MAX));
    CHECK(parses("17179869183G", true, UINT64_MAX, 17179869183ull << 30));
}

TEST(env_number_refuses_what_breaks_the_rule)
{
    const char *bad[] = {"", "abc", "-1", "+5", " 5", "5 ", "0", "10x", "1.5", "0x10", "1KB", "K",
                         "99999999999999999999999", "18446744073709551616", "17179869184G", NULL};
    for (const char **b = bad; *b; b++)
        CHECK(refused(*b, true, UINT64_MAX));
    CHECK(refused("1K", false, UINT64_MAX)); /* counts and seconds take no suffix */
    CHECK(refused("3601", false, 3600));
    CHECK(parses("3600", false, 3600, 3600));
}

static const char *const vars[] = {"CMP_MAX_FILE_BYTES", "CMP_MAX_TOTAL_BYTES", "CMP_MAX_OUTPUT_BYTES", "CMP_MAX_OBJECTS",
                                   "CMP_MAX_DEPTH", "CMP_MAX_ALIAS_NODES", "CMP_CHILD_TIMEOUT", NULL};

TEST(limits_from_env_names_the_variable_of_an_invalid_value)
{
    limits saved = *host_limits();
    for (const char *const *v = vars; *v; v++) {
        const char *values[] = {"abc", "-1", "0", "10x", "99999999999999999999999", NULL};
        for (const char **x = values; *x; x++) {
            diag_reset();
            setenv(*v, *x, 1);
            int rc = host_limits_from_env();
            unsetenv(*v);
            CHECK(rc < 0);
            CHECK(strstr(diag_message(), *v) != NULL);
            CHECK(strstr(diag_message(), "must be a whole number") != NULL);
            CHECK(host_limits()->max_file_bytes == saved.max_file_bytes);
            CHECK(host_limits()->child_timeout_s == saved.child_timeout_s);
            CHECK(host_limits()->yaml.max_depth == saved.yaml.max_depth);
        }
    }
    diag_reset();
}

TEST(limits_from_env_sets_each_limit_and_empty_is_unset)
{
    limits saved = *host_limits();
    for (const char *const *v = vars; *v; v++)
        setenv(*v, "7", 1);
    int rc = host_limits_from_env();
    limits got = *host_limits();
    for (const char *const *v = vars; *v; v++)
        setenv(*v, "", 1);
    int rc_empty = host_limits_from_env();
    limits empty = *host_limits();
    for (const char *const *v = vars; *v; v++)
        unsetenv(*v);
    CHECK(rc == 0);
    CHECK(got.max_file_bytes == 7 && got.max_total_bytes == 7 && got.max_output_bytes == 7 && got.max_objects == 7);
    CHECK(got.child_timeout_s == 7 && got.yaml.max_depth == 7 && got.yaml.max_alias_nodes == 7);
    CHECK(rc_empty == 0);
    /* the input limits' defaults follow from the memory budget (this machine's container, or 192 MB) */
    size_t total = host_total_bytes_default(empty.max_memory_bytes);
    CHECK(empty.max_total_bytes == total && empty.max_file_bytes == (total < (64u << 20) ? total : 64u << 20));
    CHECK(empty.child_timeout_s == saved.child_timeout_s);
}
