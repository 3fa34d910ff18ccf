/* fuzz_starlark_eval: bytes -> src/starlark run as a script (sl_exec) under small budgets (steps, memory, depth,
 * size), with the json module loadable as encoding/json.star, as the starlark function offers it. Input format:
 * the script itself. Checks: no crash, no hang (the step budget ends every loop), no sanitizer report, no leak
 * (everything is the VM's); the result is 0, or -1 with one line "fuzz.star:LINE:COL: message"; a second run in a
 * fresh VM gives the same result, message and steps used (deterministic: the hash seed is fixed per VM). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "starlark/starlark.h"

static const sl_limits lim = {200000, 32u << 20, 50, 1u << 16};

static int run(const uint8_t *data, size_t size, char *msg, size_t cap, uint64_t *steps)
{
    sl_vm *vm = sl_new(&lim, 7);
    const char *n[1] = {"json"};
    sl_val v[1] = {sl_json_module(vm)};
    sl_add_module(vm, "encoding/json.star", sl_module_value(vm, "encoding/json.star", 1, n, v));
    int rc = sl_exec(vm, "fuzz.star", (const char *)data, size);
    snprintf(msg, cap, "%s", rc ? sl_error(vm) : "");
    *steps = sl_steps_used(vm);
    sl_free(vm);
    if (rc != 0 && rc != -1)
        fz_die("fuzz_starlark_eval", "sl_exec returned %d", rc);
    if (rc) {
        int line, col;
        if (sscanf(msg, "fuzz.star:%d:%d: ", &line, &col) != 2 || line < 1 || col < 1)
            fz_die("fuzz_starlark_eval", "error without a position: %s", msg);
        if (strchr(msg, '\n'))
            fz_die("fuzz_starlark_eval", "error of more than one line: %s", msg);
    }
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char a[1100], b[1100];
    uint64_t s1, s2;
    int r1 = run(data, size, a, sizeof a, &s1);
    int r2 = run(data, size, b, sizeof b, &s2);
    if (r1 != r2 || strcmp(a, b) || s1 != s2)
        fz_die("fuzz_starlark_eval", "two runs differ: %d [%s] %llu steps, then %d [%s] %llu steps", r1, a,
               (unsigned long long)s1, r2, b, (unsigned long long)s2);
    return 0;
}
