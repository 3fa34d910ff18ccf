/* kubeconform: validates every object against the Kubernetes OpenAPI schema (catalog kubeconform, which runs the
 * kubeconform binary on each object with its baked-in JSON schemas). Here in-process against the OpenAPI document
 * the operator ships (functions/krm/schema_check.c, schema/openapi.c): no network, no child.
 *
 * Config (a ConfigMap's data, as the catalog reads it): strict ("true"/"1": fields the schema does not name are
 * errors), ignore_missing_schemas (kinds with no schema pass), skip_kinds (comma-separated kinds not validated),
 * kubernetes_version (1.<minor>; default the newest shipped, as kubeconform's "master"). A custom resource whose
 * CustomResourceDefinition is in the package is validated against its openAPIV3Schema. schema_location and
 * additional_schema_locations are refused: a package cannot choose what it is checked against. Each error is an
 * error result as the catalog's (kubeconform's JSON: message, and the path of the object holding it as the field);
 * any error fails the render. */
#include "functions/krm/schema_check.h"

static int run(fn_ctx *c)
{
    return schema_check_run(c, OPENAPI_KUBECONFORM);
}

const fn_def fn_kubeconform = {
    .name = "kubeconform",
    .summary = "validate objects against the Kubernetes OpenAPI schema (kubeconform's rules and messages)",
    .run = run,
    .readme = {
        .does = "validates every object against the Kubernetes OpenAPI document of `kubernetes_version` (1.31, 1.32, 1.35 "
                "and 1.36 are shipped; the default and `master` are the newest; another version uses the nearest, with a "
                "warning); custom resources against the `openAPIV3Schema` of a CustomResourceDefinition in the package "
                "(apiextensions.k8s.io/v1: `nullable`, `enum`, `x-kubernetes-int-or-string`, "
                "`x-kubernetes-preserve-unknown-fields`); `strict`, `ignore_missing_schemas`, `skip_kinds`; each error is an error result "
                "(`got string, want null or integer` at `spec.replicas`) and fails the render",
        .differs = "in-process against the operator's documents (`CMP_KUBE_OPENAPI_DIR`), never fetched: "
                   "`schema_location` and `additional_schema_locations` are refused, so custom resources need "
                   "`ignore_missing_schemas` or `skip_kinds` unless the package holds their CRD (the catalog's function "
                   "does not read CRDs: a CR it would skip or refuse is validated here) (as the Kptfile does: kpt hands it to validators, and the "
                   "catalog's kubeconform finds no schema for it either); an unknown config key is an error; a value that is neither string nor integer "
                   "where int-or-string is expected reads `got boolean, want string or integer`",
        .versions = "one behaviour for every tag",
    },
};
