/* remove-local-config-resources: drops the items marked config.kubernetes.io/local-config "true" (any case), as the
 * catalog function does; other values, "false" included, are kept. Takes no config (one given is ignored).
 * Results as the catalog: "Number of resources pruned: N" then "Resource name: [x]" per item, or the warning
 * "Found no resources to prune with the local config annotation". */
#include <strings.h>

#include "functions/function.h"

static int run(fn_ctx *c)
{
    const resource **gone = NULL;
    size_t n = 0;
    if (c->items->n)
        gone = arena_alloc(c->a, c->items->n * sizeof *gone);
    for (size_t i = 0; i < c->items->n; i++) {
        resource *r = c->items->v[i];
        if (!r)
            continue;
        const char *v = res_annotation(r, "config.kubernetes.io/local-config");
        if (v && !strcasecmp(v, "true")) {
            gone[n++] = r;
            c->items->v[i] = NULL;
        }
    }
    if (!n) {
        fn_result_add(c, SEV_WARNING, NULL, NULL, "Found no resources to prune with the local config annotation");
        return 0;
    }
    fn_result_add(c, SEV_INFO, NULL, NULL, "Number of resources pruned: %zu", n);
    for (size_t i = 0; i < n; i++) {
        const char *name = res_name(gone[i]);
        fn_result_add(c, SEV_INFO, gone[i], NULL, "Resource name: [%s]", name ? name : "");
    }
    return 0;
}

const fn_def fn_remove_local_config_resources = {
    .name = "remove-local-config-resources",
    .summary = "drop the items annotated config.kubernetes.io/local-config: \"true\"",
    .run = run,
    .releases = "0.1.0",
    .readme = {
        .does = "drop `local-config: \"true\"` objects",
        .differs = "none known",
        .versions = "v0.1.0 is the only release; `latest` and `unstable` run the same logic and messages",
    },
};
