/* remove-local-config-resources: not implemented yet (see the catalog semantics in the project docs). */
#include "functions/function.h"

static int run(fn_ctx *c)
{
    return fn_fail(c, NULL, "remove-local-config-resources is not implemented yet");
}

const fn_def fn_remove_local_config_resources = {
    "remove-local-config-resources",
    "(not implemented yet)",
    run,
};
