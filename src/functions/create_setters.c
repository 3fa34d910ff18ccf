/* create-setters: not implemented yet (see the catalog semantics in the project docs). */
#include "functions/function.h"

static int run(fn_ctx *c)
{
    return fn_fail(c, NULL, "create-setters is not implemented yet");
}

const fn_def fn_create_setters = {
    "create-setters",
    "(not implemented yet)",
    run,
};
