/* list-setters: not implemented yet (see the catalog semantics in the project docs). */
#include "functions/function.h"

static int run(fn_ctx *c)
{
    return fn_fail(c, NULL, "list-setters is not implemented yet");
}

const fn_def fn_list_setters = {
    "list-setters",
    "(not implemented yet)",
    run,
};
