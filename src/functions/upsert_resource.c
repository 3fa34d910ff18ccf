/* upsert-resource: not implemented yet (see the catalog semantics in the project docs). */
#include "functions/function.h"

static int run(fn_ctx *c)
{
    return fn_fail(c, NULL, "upsert-resource is not implemented yet");
}

const fn_def fn_upsert_resource = {
    "upsert-resource",
    "(not implemented yet)",
    run,
};
