/* set-namespace: not implemented yet (see the catalog semantics in the project docs). */
#include "functions/function.h"

static int run(fn_ctx *c)
{
    return fn_fail(c, NULL, "set-namespace is not implemented yet");
}

const fn_def fn_set_namespace = {
    "set-namespace",
    "(not implemented yet)",
    run,
};
