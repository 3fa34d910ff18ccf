/* kubeval: the catalog's older schema validator (TypeScript, v0.1-v0.3, running the kubeval binary), with the same
 * keys as kubeconform: strict, ignore_missing_schemas, skip_kinds, kubernetes_version, schema_location. Same
 * in-process check (functions/krm/schema_check.c), in kubeval's words: "Additional property templates is not allowed"
 * with the property as the field, "Invalid type. Expected: [integer,null], given: string" at spec.replicas, as the
 * catalog's kubeval-simple and kubeval-imperative examples record. */
#include "functions/krm/schema_check.h"

static int run(fn_ctx *c)
{
    return schema_check_run(c, OPENAPI_KUBEVAL);
}

const fn_def fn_kubeval = {
    .name = "kubeval",
    .summary = "validate objects against the Kubernetes OpenAPI schema (kubeval's rules and messages)",
    .run = run,
    .readme = {
        .does = "validates every object as `kubeconform` does, with kubeval's messages and fields (`Additional "
                "property templates is not allowed` at `templates`; `Invalid type. Expected: [integer,null], given: "
                "string` at `spec.replicas`); any error fails the render",
        .differs = "as `kubeconform`: the shipped documents (1.31, 1.32, 1.35, 1.36; kubeval's default `master` is the newest), "
                   "`schema_location` refused, an unknown key an error; local-config objects are not validated, as the "
                   "catalog's kubeval did not",
        .versions = "one behaviour for every tag",
    },
};
