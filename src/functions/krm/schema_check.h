/* The body the catalog's schema validators share (catalog/kubeconform.c, catalog/kubeval.c): read the step's
 * config, pick the Kubernetes OpenAPI document of the version it asks for from the operator's schema directory (parsed
 * once per render, only when a step needs it), validate every object, report results as the catalog does. */
#ifndef CMP_FUNCTIONS_SCHEMA_CHECK_H
#define CMP_FUNCTIONS_SCHEMA_CHECK_H
#include "functions/function.h"
#include "schema/openapi.h"

/* Errors name the step (kubeconform or kubeval) through the render's step prefix. */
int schema_check_run(fn_ctx *c, enum openapi_dialect dialect);
#endif
