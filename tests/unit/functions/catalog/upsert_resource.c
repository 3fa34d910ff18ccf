/* upsert-resource: replace in place, add at the default or target path, Lists, what is never matched, and bad
 * configs giving an error instead of a crash. */
#include <stdlib.h>

#include "check.h"
#include "functions/function.h"
#include "package/package.h"
#include "util/diag.h"
#include "yaml/emit.h"
#include "yaml/load.h"

typedef struct fixture {
    arena *a;
    strtab *st;
    package pkg;
    rlist items;
    fn_results results;
    const char *path;
    package *load_into;
} fixture;

static int add_doc(void *ud, node *root, uint32_t index, uint32_t line, int seq_wide)
{
    fixture *f = ud;
    resource *r = resource_new(f->a, root, f->load_into, f->path, index);
    r->seq_wide = (uint8_t)seq_wide;
    rlist_push(&f->items, r);
    return 0;
}

static void load(fixture *f, const char *path, const char *yaml)
{
    f->path = path;
    yaml_load(f->a, f->st, NULL, path, yaml, strlen(yaml), add_doc, f);
}

static void setup(fixture *f)
{
    memset(f, 0, sizeof *f);
    f->a = arena_new();
    f->st = strtab_new(f->a);
    f->pkg.rel = "";
    f->load_into = &f->pkg;
    diag_reset();
}

static void teardown(fixture *f)
{
    rlist_free(&f->items);
    free(f->results.v);
    strtab_release(f->st);
    arena_free(f->a);
}

static int run_with(fixture *f, const char *config_yaml)
{
    node *cfg = NULL;
    if (config_yaml)
        yaml_load_one(f->a, f->st, NULL, "fn-config.yaml", config_yaml, strlen(config_yaml), &cfg);
    fn_ctx c = {.a = f->a, .st = f->st, .items = &f->items, .config = cfg, .config_file = "fn-config.yaml",
                .pkg = &f->pkg, .results = &f->results};
    int rc = fn_lookup("upsert-resource")->run(&c);
    rlist_compact(&f->items);
    return rc;
}

static const char *doc(fixture *f, size_t item)
{
    buf b = {0};
    emit_opts o = {.seq_wide = false, .comments = true};
    emit_yaml(&b, f->items.v[item]->root, &o);
    const char *s = arena_strndup(f->a, b.data, b.len);
    buf_free(&b);
    return s;
}

static bool failed_with(const char *text)
{
    return diag_failed() && strstr(diag_message(), text);
}

static const char *service_and_deployment = "apiVersion: v1\nkind: Service\nmetadata:\n  name: svc\n  namespace: ns\n"
                                            "spec:\n  selector:\n    app: foo\n"
                                            "---\n"
                                            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: dep\n"
                                            "  namespace: ns\nspec:\n  replicas: 3\n";

TEST(upsert_replaces_the_match_in_place)
{
    fixture f;
    setup(&f);
    load(&f, "resources.yaml", service_and_deployment);
    CHECK(run_with(&f, "apiVersion: v1\nkind: Service\nmetadata:\n  name: svc\n  namespace: ns\n  annotations:\n"
                       "    keep: me\n    config.kubernetes.io/function: ''\n    config.k8s.io/function: ''\n"
                       "spec:\n  selector:\n    app: bar # new\n") == 0);
    CHECK(f.items.n == 2);
    CHECK_STR(f.items.v[0]->path, "resources.yaml");
    CHECK(f.items.v[0]->index == 0);
    CHECK_STR(doc(&f, 0), "apiVersion: v1\nkind: Service\nmetadata:\n  name: svc\n  namespace: ns\n  annotations:\n"
                          "    keep: me\nspec:\n  selector:\n    app: bar # new\n");
    CHECK_STR(path_str(f.items.v[1]->root, "spec", "replicas", NULL), "3");
    teardown(&f);
}

TEST(upsert_adds_at_kpt_default_path)
{
    fixture f;
    setup(&f);
    load(&f, "resources.yaml", service_and_deployment);
    CHECK(run_with(&f, "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: myDeployment2\n  namespace: mySpace\n"
                       "spec:\n  replicas: 10\n") == 0);
    CHECK(f.items.n == 3);
    CHECK_STR(f.items.v[2]->path, "mySpace/deployment_myDeployment2.yaml");
    CHECK(f.items.v[2]->index == 0);
    CHECK(f.items.v[2]->pkg == &f.pkg);
    CHECK_STR(doc(&f, 2), "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: myDeployment2\n"
                          "  namespace: mySpace\nspec:\n  replicas: 10\n");
    /* cluster-scoped (no namespace): no directory */
    CHECK(run_with(&f, "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: Reader\n") == 0);
    CHECK_STR(f.items.v[3]->path, "clusterrole_Reader.yaml");
    teardown(&f);
}

TEST(upsert_target_path_narrows_the_match_and_places_the_new_object)
{
    fixture f;
    setup(&f);
    load(&f, "resources.yaml", service_and_deployment);
    const char *cfg = "apiVersion: v1\nkind: Service\nmetadata:\n  name: svc\n  namespace: ns\n  annotations:\n"
                      "    config.kubernetes.io/target-path: subpkg/service.yaml\nspec:\n  selector:\n    app: bar\n";
    CHECK(run_with(&f, cfg) == 0);
    /* the existing Service lives elsewhere: untouched, and the new one goes to the target path */
    CHECK(f.items.n == 3);
    CHECK_STR(path_str(f.items.v[0]->root, "spec", "selector", "app", NULL), "foo");
    CHECK_STR(f.items.v[2]->path, "subpkg/service.yaml");
    CHECK_STR(doc(&f, 2), "apiVersion: v1\nkind: Service\nmetadata:\n  name: svc\n  namespace: ns\n"
                          "spec:\n  selector:\n    app: bar\n");
    /* now it matches the object at that path */
    const char *cfg2 = "apiVersion: v1\nkind: Service\nmetadata:\n  name: svc\n  namespace: ns\n  annotations:\n"
                       "    config.kubernetes.io/target-path: subpkg/service.yaml\nspec:\n  selector:\n    app: baz\n";
    CHECK(run_with(&f, cfg2) == 0);
    CHECK(f.items.n == 3);
    CHECK_STR(path_str(f.items.v[0]->root, "spec", "selector", "app", NULL), "foo");
    CHECK_STR(path_str(f.items.v[2]->root, "spec", "selector", "app", NULL), "baz");
    teardown(&f);
}

TEST(upsert_new_object_in_an_existing_file_takes_the_next_index)
{
    fixture f;
    setup(&f);
    load(&f, "resources.yaml", service_and_deployment);
    CHECK(run_with(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  annotations:\n"
                       "    config.kubernetes.io/target-path: resources.yaml\n") == 0);
    CHECK(f.items.n == 3);
    CHECK_STR(f.items.v[2]->path, "resources.yaml");
    CHECK(f.items.v[2]->index == 2);
    teardown(&f);
}

TEST(upsert_list_upserts_each_item)
{
    fixture f;
    setup(&f);
    load(&f, "resources.yaml", service_and_deployment);
    const char *cfg = "apiVersion: v1\nkind: List\nmetadata:\n  name: many\nitems:\n"
                      "- apiVersion: v1\n  kind: Service\n  metadata:\n    name: svc\n    namespace: ns\n"
                      "  spec:\n    selector:\n      app: bar\n"
                      "- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: dep2\n    namespace: ns\n"
                      "  spec:\n    replicas: 10\n"
                      "- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: dep2\n    namespace: ns\n"
                      "  spec:\n    replicas: 11\n";
    CHECK(run_with(&f, cfg) == 0);
    CHECK(f.items.n == 3);
    CHECK_STR(path_str(f.items.v[0]->root, "spec", "selector", "app", NULL), "bar");
    CHECK_STR(f.items.v[2]->path, "ns/deployment_dep2.yaml");
    /* the third item replaced what the second added */
    CHECK_STR(path_str(f.items.v[2]->root, "spec", "replicas", NULL), "11");
    /* an empty List changes nothing */
    CHECK(run_with(&f, "apiVersion: v1\nkind: List\nmetadata:\n  name: none\nitems: []\n") == 0);
    CHECK(run_with(&f, "apiVersion: v1\nkind: List\nmetadata:\n  name: none\n") == 0);
    CHECK(f.items.n == 3);
    teardown(&f);
}

TEST(upsert_compares_group_kind_name_namespace_exactly)
{
    fixture f;
    setup(&f);
    load(&f, "resources.yaml", service_and_deployment);
    /* another group: not the same object (the 2023 catalog compared the config's group with itself) */
    CHECK(run_with(&f, "apiVersion: extensions/v1beta1\nkind: Deployment\nmetadata:\n  name: dep\n  namespace: ns\n") == 0);
    CHECK(f.items.n == 3);
    CHECK_STR(path_str(f.items.v[1]->root, "spec", "replicas", NULL), "3");
    /* same group, other version: the same object */
    CHECK(run_with(&f, "apiVersion: apps/v1beta2\nkind: Deployment\nmetadata:\n  name: dep\n  namespace: ns\n") == 0);
    CHECK(f.items.n == 3);
    CHECK_STR(path_str(f.items.v[1]->root, "apiVersion", NULL), "apps/v1beta2");
    /* no namespace is not "ns" */
    CHECK(run_with(&f, "apiVersion: v1\nkind: Service\nmetadata:\n  name: svc\n") == 0);
    CHECK(f.items.n == 4);
    CHECK_STR(f.items.v[3]->path, "service_svc.yaml");
    teardown(&f);
}

TEST(upsert_replaces_every_match_but_never_function_configs)
{
    fixture f;
    setup(&f);
    load(&f, "a.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata: {v: a}\n");
    load(&f, "b.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata: {v: b}\n"
                       "---\n"
                       "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  annotations:\n"
                       "    config.kubernetes.io/function: |\n      container: {image: x}\ndata: {v: fn}\n");
    CHECK(run_with(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata: {v: new}\n") == 0);
    CHECK(f.items.n == 3);
    CHECK_STR(path_str(f.items.v[0]->root, "data", "v", NULL), "new");
    CHECK_STR(path_str(f.items.v[1]->root, "data", "v", NULL), "new");
    CHECK(f.items.v[1]->index == 0);
    CHECK_STR(path_str(f.items.v[2]->root, "data", "v", NULL), "fn");
    teardown(&f);
}

TEST(upsert_keeps_resource_list_placement_annotations)
{
    fixture f;
    setup(&f);
    load(&f, "x.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  annotations:\n"
                       "    config.kubernetes.io/path: x.yaml\n    config.kubernetes.io/index: '1'\n"
                       "    internal.config.kubernetes.io/path: x.yaml\n    internal.config.kubernetes.io/index: '1'\n");
    CHECK(run_with(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  annotations:\n"
                       "    config.kubernetes.io/path: elsewhere.yaml\ndata: {v: new}\n") == 0);
    CHECK_STR(res_annotation(f.items.v[0], "config.kubernetes.io/path"), "x.yaml");
    CHECK_STR(res_annotation(f.items.v[0], "config.kubernetes.io/index"), "1");
    CHECK_STR(res_annotation(f.items.v[0], "internal.config.kubernetes.io/index"), "1");
    CHECK_STR(path_str(f.items.v[0]->root, "data", "v", NULL), "new");
    teardown(&f);
}

TEST(upsert_target_path_is_relative_to_the_running_package)
{
    fixture f;
    setup(&f);
    package sub = {.rel = "sub", .parent = &f.pkg};
    f.load_into = &sub;
    load(&f, "service.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: svc\nspec: {x: old}\n");
    const char *cfg = "apiVersion: v1\nkind: Service\nmetadata:\n  name: svc\n  annotations:\n"
                      "    config.kubernetes.io/target-path: %s\nspec: {x: new}\n";
    /* "service.yaml" is the root package's file, not the subpackage's */
    CHECK(run_with(&f, arena_printf(f.a, cfg, "service.yaml")) == 0);
    CHECK(f.items.n == 2);
    CHECK(f.items.v[1]->pkg == &f.pkg);
    CHECK_STR(path_str(f.items.v[0]->root, "spec", "x", NULL), "old");
    CHECK(run_with(&f, arena_printf(f.a, cfg, "sub/service.yaml")) == 0);
    CHECK(f.items.n == 2);
    CHECK_STR(path_str(f.items.v[0]->root, "spec", "x", NULL), "new");
    teardown(&f);
}

/* ---- bad configs ---- */

static void expect_error(const char *config, const char *message)
{
    fixture f;
    setup(&f);
    load(&f, "resources.yaml", service_and_deployment);
    int rc = run_with(&f, config);
    bool ok = rc < 0 && failed_with(message) && f.items.n == 2;
    if (!ok) {
        char msg[1024];
        snprintf(msg, sizeof msg, "config:\n%s\nwant error containing \"%s\", got rc %d: %s", config ? config : "(none)",
                 message, rc, diag_failed() ? diag_message() : "(no error)");
        test_fail(__FILE__, __LINE__, msg);
    }
    teardown(&f);
}

TEST(upsert_target_path_is_cleaned)
{
    fixture f;
    setup(&f);
    load(&f, "resources.yaml", service_and_deployment);
    CHECK(run_with(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  annotations:\n"
                       "    config.kubernetes.io/target-path: ./sub//./cm.yaml\n") == 0);
    CHECK_STR(f.items.v[2]->path, "sub/cm.yaml");
    /* and matches the object it placed */
    CHECK(run_with(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  annotations:\n"
                       "    config.kubernetes.io/target-path: sub/cm.yaml\ndata: {a: b}\n") == 0);
    CHECK(f.items.n == 3);
    CHECK_STR(path_str(f.items.v[2]->root, "data", "a", NULL), "b");
    /* a name that would climb out is fine while it only replaces */
    load(&f, "odd.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ../../x\n");
    CHECK(run_with(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ../../x\ndata: {a: b}\n") == 0);
    CHECK(f.items.n == 4);
    teardown(&f);
}

TEST(upsert_config_errors)
{
    expect_error(NULL, "needs a functionConfig");
    expect_error("just text", "must be the object to upsert");
    expect_error("- a\n", "must be the object to upsert");
    expect_error("kind: Service\nmetadata:\n  name: x\n", "must have apiVersion set");
    expect_error("apiVersion: v1\nmetadata:\n  name: x\n", "must have kind set");
    expect_error("apiVersion: v1\nkind: Service\n", "must have metadata.name set");
    expect_error("apiVersion: v1\nkind: Service\nmetadata:\n  name: [x]\n", "must have metadata.name set");
    expect_error("apiVersion: v1\nkind: Service\nmetadata:\n  name: x\n  namespace: {a: b}\n",
                 "metadata.namespace must be a string");
    expect_error("apiVersion: v1\nkind: Service\nmetadata:\n  name: x\n  annotations: [a]\n",
                 "metadata.annotations must be a map");
    expect_error("apiVersion: v1\nkind: Service\nmetadata:\n  name: x\n  annotations:\n"
                 "    config.kubernetes.io/target-path: [a]\n",
                 "target-path must be a string");
    expect_error("apiVersion: v1\nkind: Service\nmetadata:\n  name: x\n  annotations:\n"
                 "    config.kubernetes.io/target-path: ../outside.yaml\n",
                 "must be relative and stay inside the package");
    expect_error("apiVersion: v1\nkind: Service\nmetadata:\n  name: x\n  annotations:\n"
                 "    config.kubernetes.io/target-path: /etc/x.yaml\n",
                 "must be relative and stay inside the package");
    expect_error("apiVersion: v1\nkind: Service\nmetadata:\n  name: ../../x\n", "stay inside the package");
    expect_error("apiVersion: v1\nkind: Service\nmetadata:\n  name: x\n  annotations:\n"
                 "    config.kubernetes.io/target-path: ./\n",
                 "stay inside the package");
    expect_error("apiVersion: v1\nkind: List\nmetadata:\n  name: l\nitems: {a: b}\n", "items must be a list");
    expect_error("apiVersion: v1\nkind: List\nmetadata:\n  name: l\nitems: [a]\n", "List item 1 must be a Kubernetes");
    expect_error("apiVersion: v1\nkind: List\nmetadata:\n  name: l\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n"
                 "  metadata: {name: ok}\n- apiVersion: v1\n  kind: ConfigMap\n",
                 "List item 2 must have metadata.name");
}

TEST(upsert_error_names_the_config_line)
{
    fixture f;
    setup(&f);
    CHECK(run_with(&f, "apiVersion: v1\nkind: List\nmetadata:\n  name: l\nitems:\n- 3\n") < 0);
    CHECK(failed_with("fn-config.yaml:6"));
    teardown(&f);
}
