#include <stdlib.h>

#include "check.h"
#include "util/diag.h"

struct test {
    const char *name;
    test_fn fn;
};
static struct test tests[512];
static int ntests;
int test_failed_now;
static char fail_msg[8192];

void test_register(const char *name, test_fn fn)
{
    if (ntests < 512)
        tests[ntests++] = (struct test){name, fn};
}

void test_fail(const char *file, int line, const char *what)
{
    test_failed_now = 1;
    snprintf(fail_msg, sizeof fail_msg, "%s:%d: %s", file, line, what);
}

int main(void)
{
    int failed = 0;
    for (int i = 0; i < ntests; i++) {
        test_failed_now = 0;
        diag_reset();
        tests[i].fn();
        if (test_failed_now) {
            failed++;
            printf("FAIL %s: %s\n", tests[i].name, fail_msg);
        } else {
            printf("PASS %s\n", tests[i].name);
        }
    }
    return failed ? 1 : 0;
}
