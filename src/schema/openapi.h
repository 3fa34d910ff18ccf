/* The Kubernetes OpenAPI (swagger 2.0) document as a schema to validate objects against, in-process: what the
 * catalog's kubeconform and kubeval functions check with JSON schemas generated from the same document
 * (openapi2jsonschema). Debian has no C JSON Schema validator, and the document uses a small subset (type,
 * properties, required, items, additionalProperties, format, $ref), so this is a structural validator of that subset
 * over our own tree. Work is linear in the object times the $ref depth bound; the document is parsed once. */
#ifndef CMP_SCHEMA_OPENAPI_H
#define CMP_SCHEMA_OPENAPI_H
#include <stdbool.h>
#include <stddef.h>

#include "util/limits.h"
#include "yaml/tree.h"

typedef struct openapi openapi;

/* Reads a gzip'd (or plain) swagger JSON document: its tree lives in a (and counts against the memory budget);
 * NULL after fail() naming the file. max_bytes bounds the uncompressed text. */
openapi *openapi_load(arena *a, strtab *st, const load_limits *lim, const char *path, size_t max_bytes);
/* The definition of apiVersion/kind (x-kubernetes-group-version-kind), or NULL when the document has none. */
const node *openapi_kind(const openapi *o, const char *api_version, const char *kind);
/* Number of kinds the document defines (for tests and messages). */
size_t openapi_kind_count(const openapi *o);

/* Whose words the errors are in: kubeconform's (santhosh-tekuri/jsonschema, kubeconform's JSON output: the path of
 * the object that holds the error) or kubeval's (gojsonschema: required and additional properties name the
 * property itself as the field). */
enum openapi_dialect { OPENAPI_KUBECONFORM, OPENAPI_KUBEVAL };

typedef struct openapi_opts {
    enum openapi_dialect dialect;
    bool strict;       /* fields the schema does not name are errors (the "-strict" schemas: additionalProperties false) */
    size_t max_errors; /* stop after this many errors in one object (0: 100) */
    bool crd;          /* def is a CustomResourceDefinition's openAPIV3Schema, not a swagger definition */
} openapi_opts;

/* Called once per error: field is the dotted path ("spec.replicas", "" for the object itself). */
typedef void (*openapi_report)(void *ud, const char *field, const char *message);

/* Validates obj against def (a definition from openapi_kind). Returns the number of errors reported. */
size_t openapi_validate(arena *a, const openapi *o, const node *def, const node *obj, const openapi_opts *opt,
                        openapi_report report, void *ud);

/* For tests: whether s is an RFC 3339 date-time as Go's time.Parse(time.RFC3339) reads it. */
bool openapi_is_date_time(const char *s);
#endif
