/* no-op: passes every item through unchanged (catalog no-op, a test helper of the kptdev catalog). It reads no
 * config; one that sets anything is an error (the catalog ignores it). */
#include "functions/function.h"

static int run(fn_ctx *c)
{
    return fn_no_config(c, "no-op");
}

const fn_def fn_no_op = {
    "no-op",
    "pass every item through unchanged",
    run,
};
