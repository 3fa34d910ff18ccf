/* fuzz_openapi: bytes -> an object (YAML) validated by schema/openapi.c, in both dialects, strict and not, against
 * the vendored Kubernetes 1.36 document (the kind the object names, else every kind in turn by a byte of the input)
 * and, when the input holds a line "%%", against the YAML before it read as a CRD's openAPIV3Schema. Checks: no
 * crash, no hang (the $ref and depth bounds), and never more errors than max_errors. */
#include <limits.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "schema/openapi.h"

#define DOC "data/kubernetes-openapi/swagger-v1.36.json.gz"

/* The repository's copy: beside this source (an absolute __FILE__), else two levels above the binary
 * (build/fuzz/fuzz_openapi). */
static const openapi *load_doc(arena *a, strtab *st)
{
    static char path[PATH_MAX];
    const char *f = __FILE__, *slash = strrchr(f, '/');
    if (*f == '/' && slash) {
        snprintf(path, sizeof path, "%.*s/../../" DOC, (int)(slash - f), f);
        if (!access(path, R_OK))
            return openapi_load(a, st, NULL, path, (size_t)64 << 20);
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        for (int up = 0; up < 3; up++) {
            char *s = strrchr(exe, '/');
            if (s)
                *s = 0;
        }
        snprintf(path, sizeof path, "%s/" DOC, exe);
    }
    return openapi_load(a, st, NULL, path, (size_t)64 << 20);
}

static arena *doc_arena;
static strtab *doc_st;
static const openapi *doc;

static void count(void *ud, const char *field, const char *message)
{
    (void)field;
    if (!message || !*message)
        fz_die("openapi", "an error without a message");
    ++*(size_t *)ud;
}

static void validate_all(arena *a, const node *def, const node *obj, bool crd)
{
    for (int d = 0; d < 2; d++)
        for (int strict = 0; strict < 2; strict++) {
            openapi_opts opt = {.dialect = d ? OPENAPI_KUBEVAL : OPENAPI_KUBECONFORM, .strict = strict, .crd = crd,
                                .max_errors = 5};
            size_t n = 0, r = openapi_validate(a, doc, def, obj, &opt, count, &n);
            if (r != n || n > 5)
                fz_die("openapi", "%zu errors reported, %zu returned, limit 5", n, r);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!doc) {
        doc_arena = arena_new();
        doc_st = strtab_new(doc_arena);
        doc = load_doc(doc_arena, doc_st);
        if (!doc)
            fz_die("openapi", "cannot load the vendored document : %s", diag_message());
    }
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    const char *obj_text = text, *schema_text = NULL;
    char *sep = strstr(text, "\n%%\n");
    if (sep) {
        *sep = 0;
        schema_text = text;
        obj_text = sep + 4;
    }
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    node *obj = NULL, *schema = NULL;
    if (yaml_load_one(a, st, NULL, "obj.yaml", obj_text, strlen(obj_text), &obj) == 0 && obj) {
        if (schema_text && yaml_load_one(a, st, NULL, "crd.yaml", schema_text, strlen(schema_text), &schema) == 0 && schema)
            validate_all(a, schema, obj, true);
        const node *def = openapi_kind(doc, path_str(obj, "apiVersion", NULL), path_str(obj, "kind", NULL));
        if (!def && size) {
            static const char *const kinds[][2] = {{"v1", "Pod"}, {"apps/v1", "Deployment"}, {"v1", "Service"},
                                                   {"v1", "ConfigMap"}, {"batch/v1", "CronJob"},
                                                   {"apiextensions.k8s.io/v1", "CustomResourceDefinition"}};
            const char *const *k = kinds[data[0] % (sizeof kinds / sizeof *kinds)];
            def = openapi_kind(doc, k[0], k[1]);
        }
        if (def)
            validate_all(a, def, obj, false);
    }
    diag_reset();
    strtab_release(st);
    arena_free(a);
    free(text);
    return 0;
}
