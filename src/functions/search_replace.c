/* search-replace: not implemented yet (see the catalog semantics in the project docs). */
#include "functions/function.h"

static int run(fn_ctx *c)
{
    return fn_fail(c, NULL, "search-replace is not implemented yet");
}

const fn_def fn_search_replace = {
    "search-replace",
    "(not implemented yet)",
    run,
};
