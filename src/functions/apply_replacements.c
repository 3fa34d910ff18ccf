/* apply-replacements: not implemented yet (see the catalog semantics in the project docs). */
#include "functions/function.h"

static int run(fn_ctx *c)
{
    return fn_fail(c, NULL, "apply-replacements is not implemented yet");
}

const fn_def fn_apply_replacements = {
    "apply-replacements",
    "(not implemented yet)",
    run,
};
