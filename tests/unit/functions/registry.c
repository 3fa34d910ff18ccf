/* functions/registry.c: a step's image, tag or exec name resolves to a built-in by its basename. (Split from the package
 * tests.) */
#include <string.h>

#include "check.h"
#include "functions/function.h"

TEST(function_names_resolve_by_basename)
{
    arena *a = arena_new();
    const char *refs[] = {"gcr.io/kpt-fn/set-labels:v0.1.5", "ghcr.io/kptdev/krm-functions-catalog/set-labels:v0.2",
                          "set-labels", "set-labels-v0.1.5", "./bin/set-labels_v1 --flag",
                          "gcr.io/kpt-fn/set-labels@sha256:abcd", "registry.local:5000/fns/set-labels:latest", NULL};
    for (int i = 0; refs[i]; i++) {
        const fn_def *f = fn_lookup(fn_basename(a, refs[i]));
        if (!f || strcmp(f->name, "set-labels")) {
            test_fail(__FILE__, __LINE__, refs[i]);
            arena_free(a);
            return;
        }
    }
    CHECK(fn_lookup(fn_basename(a, "gcr.io/kpt-fn/gatekeeper:v0.2")) == NULL);
    CHECK(strstr(fn_names(a), "set-annotations"));
    arena_free(a);
}
