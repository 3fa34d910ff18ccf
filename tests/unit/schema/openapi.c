/* schema/openapi.c: the structural validator behind kubeconform and kubeval, over a small swagger document written
 * here (each keyword it handles) and over the vendored Kubernetes 1.36 document. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "schema/openapi.h"
#include "util/buf.h"
#include "util/diag.h"
#include "yaml/load.h"

static const char doc_json[] =
    "{\"definitions\": {\n"
    " \"ex.v1.Widget\": {\"type\": \"object\", \"required\": [\"spec\"],\n"
    "   \"x-kubernetes-group-version-kind\": [{\"group\": \"example.com\", \"version\": \"v1\", \"kind\": \"Widget\"}],\n"
    "   \"properties\": {\"apiVersion\": {\"type\": \"string\"}, \"kind\": {\"type\": \"string\"},\n"
    "     \"metadata\": {\"$ref\": \"#/definitions/ex.v1.Meta\"}, \"spec\": {\"$ref\": \"#/definitions/ex.v1.Spec\"}}},\n"
    " \"ex.v1.Meta\": {\"type\": \"object\", \"properties\": {\"name\": {\"type\": \"string\"},\n"
    "   \"labels\": {\"type\": \"object\", \"additionalProperties\": {\"type\": \"string\"}},\n"
    "   \"created\": {\"$ref\": \"#/definitions/ex.v1.Time\"}}},\n"
    " \"ex.v1.Time\": {\"type\": \"string\", \"format\": \"date-time\"},\n"
    " \"io.k8s.apimachinery.pkg.api.resource.Quantity\": {\"type\": \"string\"},\n"
    " \"ex.v1.Spec\": {\"type\": \"object\", \"required\": [\"size\"], \"properties\": {\n"
    "   \"size\": {\"type\": \"integer\"}, \"ratio\": {\"type\": \"number\"}, \"on\": {\"type\": \"boolean\"},\n"
    "   \"port\": {\"type\": \"string\", \"format\": \"int-or-string\"},\n"
    "   \"cpu\": {\"$ref\": \"#/definitions/io.k8s.apimachinery.pkg.api.resource.Quantity\"},\n"
    "   \"items\": {\"type\": \"array\", \"items\": {\"$ref\": \"#/definitions/ex.v1.Item\"}},\n"
    "   \"free\": {\"description\": \"anything\"},\n"
    "   \"tree\": {\"$ref\": \"#/definitions/ex.v1.Tree\"}}},\n"
    " \"ex.v1.Item\": {\"type\": \"object\", \"required\": [\"name\"], \"properties\": {\"name\": {\"type\": \"string\"}}},\n"
    " \"ex.v1.Tree\": {\"type\": \"object\", \"properties\": {\"child\": {\"$ref\": \"#/definitions/ex.v1.Tree\"}}},\n"
    " \"ex.v1.Loop\": {\"$ref\": \"#/definitions/ex.v1.Loop\"}\n"
    "}}\n";

typedef struct got {
    buf b;
    int n;
} got;

static void collect(void *ud, const char *field, const char *message)
{
    got *g = ud;
    buf_printf(&g->b, "%s%s: %s", g->n++ ? "\n" : "", field, message);
}

static openapi *load_text_max(arena *a, strtab *st, const char *text, size_t max)
{
    char path[] = "/tmp/openapi-unit.XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return NULL;
    ssize_t w = write(fd, text, strlen(text));
    close(fd);
    openapi *o = w == (ssize_t)strlen(text) ? openapi_load(a, st, NULL, path, max) : NULL;
    unlink(path);
    return o;
}

static openapi *load_text(arena *a, strtab *st, const char *text)
{
    return load_text_max(a, st, text, 1 << 20);
}

/* The errors for obj (YAML) under opts, one "field: message" per line. */
static const char *check_obj(arena *a, strtab *st, const openapi *o, const char *yaml, enum openapi_dialect d,
                             bool strict)
{
    node *obj = NULL;
    if (yaml_load_one(a, st, NULL, "obj.yaml", yaml, strlen(yaml), &obj) < 0 || !obj)
        return "(load failed)";
    const node *def = openapi_kind(o, path_str(obj, "apiVersion", NULL), path_str(obj, "kind", NULL));
    if (!def)
        return "(no schema)";
    got g = {0};
    openapi_opts opt = {.dialect = d, .strict = strict};
    openapi_validate(a, o, def, obj, &opt, collect, &g);
    const char *s = arena_strdup(a, g.n ? buf_cstr(&g.b) : "");
    buf_free(&g.b);
    return s;
}

#define HEAD "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n"

TEST(openapi_types_required_and_nulls)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    openapi *o = load_text(a, st, doc_json);
    CHECK(o && openapi_kind_count(o) == 1);
    CHECK(!openapi_kind(o, "example.com/v2", "Widget") && !openapi_kind(o, "v1", "Widget"));
    CHECK_STR(check_obj(a, st, o, HEAD "spec: {size: 3, ratio: 1, on: true, items: [{name: a}]}\n", OPENAPI_KUBECONFORM, true), "");
    CHECK_STR(check_obj(a, st, o, HEAD "spec: {size: '3'}\n", OPENAPI_KUBECONFORM, false), "spec.size: got string, want integer");
    CHECK_STR(check_obj(a, st, o, HEAD "spec: {size: 3, ratio: x, on: 'true'}\n", OPENAPI_KUBECONFORM, false),
              "spec.ratio: got string, want null or number\nspec.on: got string, want null or boolean");
    CHECK_STR(check_obj(a, st, o, HEAD "spec: {size: 3, ratio: x}\n", OPENAPI_KUBEVAL, false),
              "spec.ratio: Invalid type. Expected: [number,null], given: string");
    CHECK_STR(check_obj(a, st, o, HEAD "spec: {size: 3.5}\n", OPENAPI_KUBEVAL, false),
              "spec.size: Invalid type. Expected: integer, given: number");
    /* optional fields take null, required ones do not */
    CHECK_STR(check_obj(a, st, o, HEAD "spec: {size: 1, ratio: null, items: ~}\n", OPENAPI_KUBECONFORM, true), "");
    CHECK_STR(check_obj(a, st, o, HEAD "spec: {size: null}\n", OPENAPI_KUBECONFORM, false), "spec.size: got null, want integer");
    /* required: the object's path (kubeconform), the property (kubeval) */
    CHECK_STR(check_obj(a, st, o, HEAD "spec: {items: [{}]}\n", OPENAPI_KUBECONFORM, false),
              "spec: missing property 'size'\nspec.items.0: missing property 'name'");
    CHECK_STR(check_obj(a, st, o, HEAD "spec: {items: [{}]}\n", OPENAPI_KUBEVAL, false),
              "size: size is required\nname: name is required");
    CHECK_STR(check_obj(a, st, o, HEAD, OPENAPI_KUBECONFORM, false), ": missing property 'spec'");
    CHECK_STR(check_obj(a, st, o, HEAD "spec: [1]\n", OPENAPI_KUBECONFORM, false), "spec: got array, want object");
    /* a map's values against additionalProperties */
    CHECK_STR(check_obj(a, st, o, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {labels: {a: b, n: 1}}\nspec: {size: 1}\n",
                        OPENAPI_KUBECONFORM, true), "metadata.labels.n: got number, want string");
    strtab_release(st);
    arena_free(a);
}

TEST(openapi_strict_unknown_fields)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    openapi *o = load_text(a, st, doc_json);
    CHECK(o);
    const char *y = HEAD "spec: {size: x, extra: 1, free: {any: [thing]}}\nstatus: {}\n";
    CHECK_STR(check_obj(a, st, o, y, OPENAPI_KUBECONFORM, false), "spec.size: got string, want integer");
    CHECK_STR(check_obj(a, st, o, y, OPENAPI_KUBECONFORM, true),
              "spec.size: got string, want integer\nspec: additional properties 'extra' not allowed\n"
              ": additional properties 'status' not allowed");
    /* kubeval: the object's unknown keys first, the property as the field */
    CHECK_STR(check_obj(a, st, o, y, OPENAPI_KUBEVAL, true),
              "status: Additional property status is not allowed\nextra: Additional property extra is not allowed\n"
              "spec.size: Invalid type. Expected: integer, given: string");
    strtab_release(st);
    arena_free(a);
}

TEST(openapi_formats)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    openapi *o = load_text(a, st, doc_json);
    CHECK(o);
    CHECK_STR(check_obj(a, st, o, HEAD "spec: {size: 1, port: 80, cpu: 500m}\n", OPENAPI_KUBECONFORM, true), "");
    CHECK_STR(check_obj(a, st, o, HEAD "spec: {size: 1, port: http, cpu: 0.5}\n", OPENAPI_KUBECONFORM, true), "");
    CHECK_STR(check_obj(a, st, o, HEAD "spec: {size: 1, port: 1.5, cpu: true}\n", OPENAPI_KUBECONFORM, true),
              "spec.port: got number, want string or integer\nspec.cpu: got boolean, want string or number");
    CHECK_STR(check_obj(a, st, o, HEAD "spec: {size: 1, port: [1]}\n", OPENAPI_KUBEVAL, true),
              "spec.port: Must validate one and only one schema (oneOf)");
    CHECK_STR(check_obj(a, st, o, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {created: '2024-02-30T00:00:00Z'}\nspec: {size: 1}\n",
                        OPENAPI_KUBECONFORM, true), "metadata.created: '2024-02-30T00:00:00Z' is not valid 'date-time'");
    CHECK_STR(check_obj(a, st, o, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {created: '2024-02-29T10:00:00.5+02:00'}\nspec: {size: 1}\n",
                        OPENAPI_KUBEVAL, true), "");
    CHECK(openapi_is_date_time("2026-11-28T18:36:16Z"));
    CHECK(openapi_is_date_time("2026-11-28t18:36:16.123456789-05:30"));
    CHECK(!openapi_is_date_time("2026-11-28 18:36:16Z"));
    CHECK(!openapi_is_date_time("2026-11-28T18:36:16"));
    CHECK(!openapi_is_date_time("2026-13-28T18:36:16Z"));
    CHECK(!openapi_is_date_time("2023-02-29T00:00:00Z"));
    CHECK(!openapi_is_date_time("2026-11-28T24:00:00Z"));
    CHECK(!openapi_is_date_time("2026-11-28T18:36:16.Z"));
    strtab_release(st);
    arena_free(a);
}

/* a $ref cycle and a self-nesting schema end: the cycle checks nothing, the nesting stops at the depth bound */
TEST(openapi_ref_bounds)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    openapi *o = load_text(a, st, doc_json);
    CHECK(o);
    buf y = {0};
    buf_puts(&y, HEAD "spec: {size: 1, tree: ");
    for (int i = 0; i < 300; i++)
        buf_puts(&y, "{child: ");
    buf_puts(&y, "{child: 5}");
    for (int i = 0; i < 300; i++)
        buf_puts(&y, "}");
    buf_puts(&y, "}\n");
    CHECK_STR(check_obj(a, st, o, buf_cstr(&y), OPENAPI_KUBECONFORM, true), "");
    buf_free(&y);
    /* shallow enough, the same mistake is found */
    CHECK_STR(check_obj(a, st, o, HEAD "spec: {size: 1, tree: {child: {child: 5}}}\n", OPENAPI_KUBECONFORM, true),
              "spec.tree.child.child: got number, want null or object");
    got g = {0};
    openapi_opts opt = {.dialect = OPENAPI_KUBECONFORM, .strict = true};
    node *v = NULL;
    CHECK(yaml_load_one(a, st, NULL, "v.yaml", "{a: 1}", 6, &v) == 0);
    node *loop = NULL;
    CHECK(yaml_load_one(a, st, NULL, "s.yaml", "{$ref: '#/definitions/ex.v1.Loop'}", 34, &loop) == 0);
    CHECK(openapi_validate(a, o, loop, v, &opt, collect, &g) == 0);
    buf_free(&g.b);
    strtab_release(st);
    arena_free(a);
}

TEST(openapi_error_bound)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    openapi *o = load_text(a, st, doc_json);
    CHECK(o);
    buf y = {0};
    buf_puts(&y, HEAD "spec: {size: 1, items: [");
    for (int i = 0; i < 500; i++)
        buf_puts(&y, "{}, ");
    buf_puts(&y, "]}\n");
    node *obj = NULL;
    CHECK(yaml_load_one(a, st, NULL, "o.yaml", buf_cstr(&y), strlen(buf_cstr(&y)), &obj) == 0);
    got g = {0};
    openapi_opts opt = {.dialect = OPENAPI_KUBECONFORM, .max_errors = 7};
    CHECK(openapi_validate(a, o, openapi_kind(o, "example.com/v1", "Widget"), obj, &opt, collect, &g) == 7 && g.n == 7);
    buf_free(&g.b);
    buf_free(&y);
    strtab_release(st);
    arena_free(a);
}

TEST(openapi_load_errors)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    CHECK(!openapi_load(a, st, NULL, "/nonexistent/swagger.json.gz", 1 << 20) && diag_failed());
    diag_reset();
    CHECK(!load_text(a, st, "{\"swagger\": \"2.0\"}") && diag_failed() && strstr(diag_message(), "no definitions map"));
    diag_reset();
    /* the uncompressed size bound: the small document is over 1000 bytes */
    CHECK(!load_text_max(a, st, doc_json, 1000) && diag_failed() && strstr(diag_message(), "larger than 1000 bytes"));
    diag_reset();
    CHECK(load_text_max(a, st, doc_json, sizeof doc_json));
    strtab_release(st);
    arena_free(a);
}

/* The vendored Kubernetes 1.36 document: real kinds and the catalog's own example. */
TEST(openapi_kubernetes_document)
{
    char path[PATH_MAX];
    const char *f = __FILE__, *slash = strrchr(f, '/');
    snprintf(path, sizeof path, "%.*s/../../data/kubernetes-openapi/swagger-v1.36.json.gz", slash ? (int)(slash - f) : 1,
             slash ? f : ".");
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    openapi *o = openapi_load(a, st, NULL, path, (size_t)64 << 20);
    CHECK(o);
    CHECK(openapi_kind_count(o) > 100);
    CHECK(openapi_kind(o, "apps/v1", "Deployment") && openapi_kind(o, "v1", "ConfigMap") &&
          openapi_kind(o, "rbac.authorization.k8s.io/v1", "Role") && !openapi_kind(o, "v1", "DeleteOptions"));
    const char *rc = "apiVersion: v1\nkind: ReplicationController\nmetadata: {name: bob}\n"
                     "spec:\n  replicas: asdf\n  selector: {app: nginx}\n  templates:\n    metadata: {name: nginx}\n";
    CHECK_STR(check_obj(a, st, o, rc, OPENAPI_KUBECONFORM, true),
              "spec.replicas: got string, want null or integer\nspec: additional properties 'templates' not allowed");
    CHECK_STR(check_obj(a, st, o, rc, OPENAPI_KUBEVAL, true),
              "templates: Additional property templates is not allowed\n"
              "spec.replicas: Invalid type. Expected: [integer,null], given: string");
    const char *dep = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  creationTimestamp: null\n"
                      "spec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  strategy:\n    rollingUpdate: {maxSurge: 25%, maxUnavailable: 1}\n"
                      "  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n      - name: web\n"
                      "        image: nginx\n        ports: [{containerPort: 80}]\n        resources: {limits: {cpu: 500m, memory: 1Gi}, requests: {cpu: 1}}\n"
                      "        livenessProbe: {httpGet: {port: http, path: /}}\n";
    CHECK_STR(check_obj(a, st, o, dep, OPENAPI_KUBECONFORM, true), "");
    const char *bad = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
                      "spec:\n  template:\n    spec:\n      containers:\n      - image: nginx\n        ports: [{containerPort: '80'}]\n";
    CHECK_STR(check_obj(a, st, o, bad, OPENAPI_KUBECONFORM, true),
              "spec: missing property 'selector'\nspec.template.spec.containers.0: missing property 'name'\n"
              "spec.template.spec.containers.0.ports.0.containerPort: got string, want integer");
    strtab_release(st);
    arena_free(a);
}

/* A CRD's openAPIV3Schema (opts.crd): nullable, x-kubernetes-int-or-string, x-kubernetes-preserve-unknown-fields,
 * enum, and the root's apiVersion/kind/metadata allowed in strict mode. */
TEST(openapi_crd_schema)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    openapi *o = load_text(a, st, doc_json);
    CHECK(o);
    node *schema = NULL;
    const char *sy = "type: object\nproperties:\n  spec:\n    type: object\n    properties:\n"
                     "      size: {type: integer}\n      color: {type: string, enum: [red, green]}\n"
                     "      port: {x-kubernetes-int-or-string: true}\n      note: {type: string, nullable: true}\n"
                     "      extra: {type: object, x-kubernetes-preserve-unknown-fields: true, properties: {a: {type: string}}}\n";
    CHECK(yaml_load_one(a, st, NULL, "crd.yaml", sy, strlen(sy), &schema) == 0);
    struct { const char *obj, *want; } cases[] = {
        {"apiVersion: x/v1\nkind: W\nmetadata: {name: w}\nspec: {size: 1, color: red, port: 80, note: null, extra: {b: 1}}\n", ""},
        {"apiVersion: x/v1\nkind: W\nspec: {port: http}\n", ""},
        {"spec: {size: null}\n", "spec.size: got null, want integer"},
        {"spec: {color: blue}\n", "spec.color: value must be one of 'red', 'green'"},
        {"spec: {port: 1.5}\n", "spec.port: got number, want string or integer"},
        {"spec: {extra: {a: 1}}\n", "spec.extra.a: got number, want string"},
        {"spec: {colour: red}\nstatus: {}\n", "spec: additional properties 'colour' not allowed\n: additional properties 'status' not allowed"},
    };
    openapi_opts opt = {.dialect = OPENAPI_KUBECONFORM, .strict = true, .crd = true};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        node *obj = NULL;
        CHECK(yaml_load_one(a, st, NULL, "o.yaml", cases[i].obj, strlen(cases[i].obj), &obj) == 0);
        got g = {0};
        openapi_validate(a, o, schema, obj, &opt, collect, &g);
        CHECK_STR(g.n ? buf_cstr(&g.b) : "", cases[i].want);
        buf_free(&g.b);
    }
    opt.dialect = OPENAPI_KUBEVAL;
    node *obj = NULL;
    CHECK(yaml_load_one(a, st, NULL, "o.yaml", "spec: {color: blue}", 19, &obj) == 0);
    got g = {0};
    openapi_validate(a, o, schema, obj, &opt, collect, &g);
    CHECK_STR(g.n ? buf_cstr(&g.b) : "", "spec.color: spec.color must be one of the following: \"red\", \"green\"");
    buf_free(&g.b);
    strtab_release(st);
    arena_free(a);
}
