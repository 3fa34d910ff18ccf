/* A small test harness: each TEST registers itself; main runs them all and prints PASS/FAIL lines. */
#ifndef CMP_TEST_CHECK_H
#define CMP_TEST_CHECK_H
#include <stdio.h>
#include <string.h>

typedef void (*test_fn)(void);
/* Each test starts from a clean state, whatever ran before it or failed halfway: the harness resets diag, and a
 * test file with state of its own (yaml_unit.h's arena) sets test_file_setup, which the harness calls before each
 * of that file's tests. A test that passes only after another one (it used what that one made) would fail alone,
 * which is how the harness reruns tests once a process fails at exit. The pointer is registered, not its value, as
 * constructors run in no set order. */
void test_register(const char *name, test_fn fn, test_fn *setup);
void test_fail(const char *file, int line, const char *what);
extern int test_failed_now;
static test_fn test_file_setup __attribute__((unused));

#define TEST(name)                                                                                                     \
    static void name(void);                                                                                            \
    __attribute__((constructor)) static void register_##name(void) { test_register(#name, name, &test_file_setup); } \
    static void name(void)

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            test_fail(__FILE__, __LINE__, #cond);                                                                      \
            return;                                                                                                    \
        }                                                                                                              \
    } while (0)

#define CHECK_STR(a, b)                                                                                                \
    do {                                                                                                               \
        const char *a_ = (a), *b_ = (b);                                                                               \
        if (!a_ || !b_ || strcmp(a_, b_)) {                                                                            \
            char msg_[4096];                                                                                           \
            snprintf(msg_, sizeof msg_, "%s == %s\n--- got:\n%s\n--- want:\n%s", #a, #b, a_ ? a_ : "(null)",            \
                     b_ ? b_ : "(null)");                                                                              \
            test_fail(__FILE__, __LINE__, msg_);                                                                       \
            return;                                                                                                    \
        }                                                                                                              \
    } while (0)
#endif
