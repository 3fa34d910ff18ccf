/* A small test harness: each TEST registers itself; main runs them all and prints PASS/FAIL lines. */
#ifndef CMP_TEST_CHECK_H
#define CMP_TEST_CHECK_H
#include <stdio.h>
#include <string.h>

typedef void (*test_fn)(void);
void test_register(const char *name, test_fn fn);
void test_fail(const char *file, int line, const char *what);
extern int test_failed_now;

#define TEST(name)                                                                                                     \
    static void name(void);                                                                                            \
    __attribute__((constructor)) static void register_##name(void) { test_register(#name, name); }                    \
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
