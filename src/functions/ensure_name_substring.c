/* ensure-name-substring: not implemented yet (see the catalog semantics in the project docs). */
#include "functions/function.h"

static int run(fn_ctx *c)
{
    return fn_fail(c, NULL, "ensure-name-substring is not implemented yet");
}

const fn_def fn_ensure_name_substring = {
    "ensure-name-substring",
    "(not implemented yet)",
    run,
};
