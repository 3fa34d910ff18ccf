/* no-op: passes every item through unchanged (catalog no-op, a test helper of the kptdev catalog). It reads no
 * config; one that sets anything is an error (the catalog ignores it). */
#include "functions/function.h"

static int run(fn_ctx *c)
{
    return fn_no_config(c, "no-op");
}

const fn_def fn_no_op = {
    .name = "no-op",
    .summary = "pass every item through unchanged",
    .run = run,
    .readme = {
        .does = "passes every item through unchanged",
        .differs = "a config that sets anything is an error (the catalog ignores it)",
        .versions = "one behaviour for every tag",
    },
};
