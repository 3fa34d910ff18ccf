/* fuzz_starlark_parse: bytes -> src/starlark's lexer, parser and resolver (sl_check), the text a package author
 * writes as a starlark function's source. Input format: the script itself. Checks: no crash, no hang, no
 * sanitizer report; the result is 0, or -1 with one line "fuzz.star:LINE:COL: message" (no line break in it); the
 * same text checked again in a fresh VM gives the same result and message (no state leaks between runs). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "starlark/starlark.h"

static const sl_limits lim = {1000000, 64u << 20, 64, 1u << 20};

static int check(const uint8_t *data, size_t size, bool resolve, char *msg, size_t cap)
{
    sl_vm *vm = sl_new(&lim, 1);
    int rc = sl_check(vm, "fuzz.star", (const char *)data, size, resolve);
    snprintf(msg, cap, "%s", rc ? sl_error(vm) : "");
    sl_free(vm);
    if (rc != 0 && rc != -1)
        fz_die("fuzz_starlark_parse", "sl_check returned %d", rc);
    if (rc) {
        int line, col;
        if (sscanf(msg, "fuzz.star:%d:%d: ", &line, &col) != 2 || line < 1 || col < 1)
            fz_die("fuzz_starlark_parse", "error without a position: %s", msg);
        if (strchr(msg, '\n'))
            fz_die("fuzz_starlark_parse", "error of more than one line: %s", msg);
    }
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char a[1100], b[1100];
    for (int resolve = 0; resolve < 2; resolve++) {
        int r1 = check(data, size, resolve, a, sizeof a);
        int r2 = check(data, size, resolve, b, sizeof b);
        if (r1 != r2 || strcmp(a, b))
            fz_die("fuzz_starlark_parse", "two checks differ: %d [%s] then %d [%s]", r1, a, r2, b);
        if (r1) /* a parse error stays a parse error when names are resolved too */
            break;
    }
    return 0;
}
