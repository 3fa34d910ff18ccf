/* set-namespace: both modes, package context, the scope table, special fields, origins, depends-on, config errors. */
#include <stdlib.h>

#include "check.h"
#include "fixture.h"
#include "functions/function.h"
#include "util/diag.h"
#include "yaml/emit.h"
#include "yaml/load.h"


/* Runs set-namespace with config (NULL: none). */
static int fx_run(struct fx *f, const char *config)
{
    return fx_apply(f, "set-namespace", config, "fn-config.yaml");
}

static const char *fx_yaml(struct fx *f)
{
    buf b = {0};
    emit_opts o = {.seq_wide = false, .comments = true};
    for (size_t i = 0; i < f->items.n; i++) {
        if (!f->items.v[i])
            continue;
        if (b.len)
            buf_puts(&b, "---\n");
        emit_yaml(&b, f->items.v[i]->root, &o);
    }
    const char *s = arena_strndup(f->a, b.data ? b.data : "", b.len);
    buf_free(&b);
    return s;
}

static bool has_result(struct fx *f, enum severity sev, const char *text)
{
    for (size_t i = 0; i < f->results.n; i++)
        if (f->results.v[i].severity == sev && strstr(f->results.v[i].message, text))
            return true;
    return false;
}

static const char *ns_of(struct fx *f, size_t i)
{
    return res_namespace(f->items.v[i]);
}

#define CM(ns) "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  namespace: " ns "\n"

TEST(set_namespace_replace_all_rewrites_every_namespace_field)
{
    struct fx f;
    fx_open(&f, "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  namespace: example\n"
                "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: example\n"
                "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: c\n"
                "spec:\n  conversion:\n    strategy: Webhook\n    webhook:\n      clientConfig:\n        service:\n"
                "          name: svc\n          namespace: example\n"
                "---\napiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata:\n  name: a\n"
                "spec:\n  service:\n    name: api\n    namespace: example\n"
                "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: crb\n"
                "subjects:\n- kind: ServiceAccount\n  name: default\n  namespace: example\n- kind: Group\n  name: g\n");
    CHECK(fx_run(&f, CM("example-ns")) == 0);
    CHECK_STR(
        fx_yaml(&f),
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  namespace: example-ns\n"
        "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: example-ns\n"
        "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: c\n"
        "spec:\n  conversion:\n    strategy: Webhook\n    webhook:\n      clientConfig:\n        service:\n"
        "          name: svc\n          namespace: example-ns\n"
        "---\napiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata:\n  name: a\n"
        "spec:\n  service:\n    name: api\n    namespace: example-ns\n"
        "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: crb\n"
        "subjects:\n- kind: ServiceAccount\n  name: default\n  namespace: example-ns\n- kind: Group\n  name: g\n");
    CHECK(has_result(&f, SEV_INFO, "namespace [example] updated to \"example-ns\", 5 value(s) changed"));
    CHECK(
        has_result(&f, SEV_WARNING,
                   "Resource(apiVersion=v1, kind=Service, namespace=example, name=s) does not have upstream origin."));
    CHECK(has_result(&f, SEV_INFO, "all `depends-on` annotations are up-to-date"));
    fx_close(&f);
}

TEST(set_namespace_replace_all_changes_different_namespaces_without_origins)
{
    struct fx f;
    fx_open(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: one\n"
                "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  namespace: two\n");
    CHECK(fx_run(&f, CM("new")) == 0);
    CHECK_STR(ns_of(&f, 0), "new");
    CHECK_STR(ns_of(&f, 1), "new");
    CHECK(has_result(&f, SEV_INFO, "namespace [one two] updated to \"new\", 2 value(s) changed"));
    fx_close(&f);
}

TEST(set_namespace_scope_table_and_unknown_kinds)
{
    struct fx f;
    /* A table kind without a namespace gets one; a CR without one is left alone; a CR with one is changed;
     * a cluster-scoped table kind never gets one. */
    fx_open(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n"
                "---\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n"
                "---\napiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g\n  namespace: old\n"
                "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: cr\n"
                "---\napiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n");
    CHECK(fx_run(&f, CM("new")) == 0);
    CHECK_STR(ns_of(&f, 0), "new");
    CHECK(ns_of(&f, 1) == NULL);
    CHECK_STR(ns_of(&f, 2), "new");
    CHECK(ns_of(&f, 3) == NULL);
    CHECK(ns_of(&f, 4) == NULL);
    CHECK(has_result(&f, SEV_INFO, "namespace [default old] updated to \"new\", 2 value(s) changed"));
    fx_close(&f);
}

TEST(set_namespace_matcher_mode_changes_only_matches)
{
    struct fx f;
    fx_open(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: one\n"
                "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  namespace: two\n"
                "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"
                "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d\n  namespace: three\n  annotations:\n"
                "    internal.kpt.dev/upstream-identifier: '|ConfigMap|one|d'\n"
                "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: one\n"
                "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: two\n");
    CHECK(fx_run(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  namespace: new\n"
                     "  namespaceMatcher: one\n") == 0);
    CHECK_STR(ns_of(&f, 0), "new");
    CHECK_STR(ns_of(&f, 1), "two");
    CHECK(ns_of(&f, 2) == NULL);    /* kpt would write "default" here */
    CHECK_STR(ns_of(&f, 3), "new"); /* matched through its origin */
    CHECK_STR(res_name(f.items.v[4]), "new");
    CHECK_STR(res_name(f.items.v[5]), "two");
    CHECK(has_result(&f, SEV_INFO, "namespace [one three] updated to \"new\", 3 value(s) changed"));
    CHECK(has_result(&f, SEV_INFO, "has matching origin one"));
    fx_close(&f);
}

TEST(set_namespace_setnamespace_config)
{
    struct fx f;
    fx_open(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: one\n"
                "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  namespace: two\n");
    CHECK(fx_run(&f, "apiVersion: fn.kpt.dev/v1alpha1\nkind: SetNamespace\nmetadata:\n  name: x\nnamespace: new\n"
                     "namespaceMatcher: two\n") == 0);
    CHECK_STR(ns_of(&f, 0), "one");
    CHECK_STR(ns_of(&f, 1), "new");
    fx_close(&f);
}

TEST(set_namespace_package_context_mode)
{
    struct fx f;
    fx_open(&f, "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  namespace: old\n");
    CHECK(fx_run(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\n  annotations:\n"
                     "    config.kubernetes.io/local-config: \"true\"\ndata:\n  name: example\n") == 0);
    CHECK_STR(ns_of(&f, 0), "example");
    fx_close(&f);

    /* data.namespace wins over data.name */
    fx_open(&f, "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  namespace: old\n");
    CHECK(fx_run(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\ndata:\n  name: example\n"
                     "  namespace: other\n") == 0);
    CHECK_STR(ns_of(&f, 0), "other");
    fx_close(&f);

    /* data.name only counts for the kptfile.kpt.dev ConfigMap */
    fx_open(&f, "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  namespace: old\n");
    CHECK(fx_run(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ctx\ndata:\n  name: example\n") == 0);
    CHECK_STR(ns_of(&f, 0), "old");
    CHECK(has_result(&f, SEV_ERROR, "`data.namespace` should not be empty"));
    fx_close(&f);

    fx_open(&f, "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  namespace: old\n");
    CHECK(fx_run(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\ndata:\n  name: \"\"\n") ==
          0);
    CHECK(has_result(&f, SEV_ERROR, "`data.name` should not be empty"));
    fx_close(&f);
}

TEST(set_namespace_config_errors_are_results_but_missing_config_fails)
{
    struct fx f;
    fx_open(&f, "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  namespace: old\n");
    CHECK(fx_run(&f, "apiVersion: example.com/v1\nkind: Other\nmetadata:\n  name: x\n") == 0);
    CHECK(has_result(&f, SEV_ERROR, "unknown functionConfig Kind=Other ApiVersion=example.com/v1"));
    CHECK(fx_run(&f, "apiVersion: fn.kpt.dev/v1alpha1\nkind: SetNamespace\nmetadata:\n  name: x\n") == 0);
    CHECK(has_result(&f, SEV_ERROR, "`namespace` should not be empty"));
    CHECK_STR(ns_of(&f, 0), "old");
    CHECK(!diag_failed());

    CHECK(fx_run(&f, NULL) < 0);
    CHECK(strstr(diag_message(), "set-namespace needs a functionConfig") != NULL);
    diag_reset();
    CHECK(fx_run(&f, "- a\n- b\n") < 0);
    CHECK(strstr(diag_message(), "must be a map") != NULL);
    diag_reset();
    CHECK(fx_run(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  namespace: [a]\n") < 0);
    CHECK(strstr(diag_message(), "`namespace` must be a string") != NULL);
    diag_reset();
    fx_close(&f);
}

TEST(set_namespace_several_origins_is_an_error_result)
{
    struct fx f;
    fx_open(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: x\n  annotations:\n"
                "    internal.kpt.dev/upstream-identifier: '|ConfigMap|one|a'\n"
                "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  namespace: x\n  annotations:\n"
                "    internal.kpt.dev/upstream-identifier: '|ConfigMap|two|b'\n"
                "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: x\n");
    CHECK(fx_run(&f, CM("new")) == 0);
    CHECK(has_result(&f, SEV_ERROR, "expect a single upstream namespace, found [one two]"));
    CHECK(!has_result(&f, SEV_WARNING, "does not have upstream origin"));
    CHECK_STR(ns_of(&f, 0), "x");
    CHECK_STR(ns_of(&f, 2), "x");
    /* the matcher mode accepts several origins */
    f.results.n = 0;
    CHECK(fx_run(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  namespace: new\n"
                     "  namespaceMatcher: two\n") == 0);
    CHECK_STR(ns_of(&f, 0), "x");
    CHECK_STR(ns_of(&f, 1), "new");
    CHECK_STR(ns_of(&f, 2), "x");
    fx_close(&f);
}

TEST(set_namespace_origin_errors)
{
    struct fx f;
    fx_open(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: x\n  annotations:\n"
                "    internal.kpt.dev/upstream-identifier: '|ConfigMap|~C|a'\n");
    CHECK(fx_run(&f, CM("new")) == 0);
    CHECK(has_result(&f, SEV_ERROR, "is namespace-scoped, but has cluster-scoped or unknown scoped origin"));
    CHECK_STR(ns_of(&f, 0), "x");
    fx_close(&f);

    fx_open(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: x\n  annotations:\n"
                "    internal.kpt.dev/upstream-identifier: 'ConfigMap|a'\n");
    CHECK(fx_run(&f, CM("new")) < 0);
    CHECK(strstr(diag_message(), "is in bad format") != NULL);
    CHECK(strstr(diag_message(), "r.yaml:") != NULL);
    diag_reset();
    fx_close(&f);
}

TEST(set_namespace_skips_local_config_items)
{
    struct fx f;
    fx_open(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: x\n  annotations:\n"
                "    config.kubernetes.io/local-config: \"true\"\n"
                "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  namespace: x\n  annotations:\n"
                "    config.kubernetes.io/local-config: \"false\"\n");
    CHECK(fx_run(&f, CM("new")) == 0);
    CHECK_STR(ns_of(&f, 0), "x");
    CHECK_STR(ns_of(&f, 1), "new");
    fx_close(&f);
}

TEST(set_namespace_crd_and_apiservice_fields_are_not_created)
{
    struct fx f;
    fx_open(&f,
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: a\n"
            "spec:\n  group: example.com\n"
            "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: b\n"
            "spec:\n  conversion:\n    strategy: Webhook\n    webhook:\n      clientConfig:\n        url: https://x\n"
            "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: c\n"
            "spec:\n  conversion:\n    webhook:\n      clientConfig:\n        service:\n          name: s\n"
            "---\napiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata:\n  name: d\n"
            "spec:\n  group: x\n");
    CHECK(fx_run(&f, CM("new")) == 0);
    CHECK(path_get(f.items.v[0]->root, "spec", "conversion", NULL) == NULL);
    CHECK(path_get(f.items.v[1]->root, "spec", "conversion", "webhook", "clientConfig", "service", NULL) == NULL);
    CHECK_STR(
        path_str(f.items.v[2]->root, "spec", "conversion", "webhook", "clientConfig", "service", "namespace", NULL),
        "new");
    CHECK(path_get(f.items.v[3]->root, "spec", "service", NULL) == NULL);
    fx_close(&f);
}

TEST(set_namespace_rolebinding_subjects_follow_renamed_namespaces)
{
    struct fx f;
    fx_open(&f, "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: rb\n  namespace: app\n"
                "subjects:\n- kind: ServiceAccount\n  name: sa\n  namespace: app\n"
                "- kind: ServiceAccount\n  name: other\n  namespace: kube-system\n"
                "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: crb\n"
                "subjects:\n- kind: ServiceAccount\n  name: sa\n  namespace: kube-system\n");
    CHECK(fx_run(&f, CM("new")) == 0);
    CHECK_STR(ns_of(&f, 0), "new");
    node *subj = path_get(f.items.v[0]->root, "subjects", NULL);
    CHECK_STR(path_str(seq_item(subj, 0), "namespace", NULL), "new");
    CHECK_STR(path_str(seq_item(subj, 1), "namespace", NULL), "kube-system");
    /* ClusterRoleBinding subjects: every one that has a namespace, as kpt does */
    subj = path_get(f.items.v[1]->root, "subjects", NULL);
    CHECK_STR(path_str(seq_item(subj, 0), "namespace", NULL), "new");
    CHECK(has_result(&f, SEV_INFO, "namespace [app kube-system] updated to \"new\", 3 value(s) changed"));
    fx_close(&f);
}

TEST(set_namespace_depends_on)
{
    struct fx f;
    fx_open(&f,
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: default\n  annotations:\n"
            "    config.kubernetes.io/depends-on: apps/namespaces/default/StatefulSet/db\n"
            "---\napiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: db\n  namespace: default\n"
            "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: bar\n  namespace: default\n  annotations:\n"
            "    config.kubernetes.io/depends-on: apps/namespaces/default/StatefulSet/outside\n"
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: core\n  annotations:\n"
            "    config.kubernetes.io/depends-on: /namespaces/default/ConfigMap/core2\n"
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: core2\n"
            "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: crb\n"
            "  annotations:\n    config.kubernetes.io/depends-on: rbac.authorization.k8s.io/ClusterRole/r\n"
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: list\n  namespace: default\n  annotations:\n"
            "    config.kubernetes.io/depends-on: "
            "apps/namespaces/default/StatefulSet/db,apps/namespaces/default/Deployment/web\n");
    CHECK(fx_run(&f, CM("example-ns")) == 0);
    CHECK_STR(res_annotation(f.items.v[0], "config.kubernetes.io/depends-on"),
              "apps/namespaces/example-ns/StatefulSet/db");
    CHECK_STR(res_annotation(f.items.v[2], "config.kubernetes.io/depends-on"),
              "apps/namespaces/default/StatefulSet/outside");
    CHECK_STR(res_annotation(f.items.v[3], "config.kubernetes.io/depends-on"),
              "/namespaces/example-ns/ConfigMap/core2");
    CHECK_STR(res_annotation(f.items.v[5], "config.kubernetes.io/depends-on"),
              "rbac.authorization.k8s.io/ClusterRole/r");
    CHECK_STR(res_annotation(f.items.v[6], "config.kubernetes.io/depends-on"),
              "apps/namespaces/default/StatefulSet/db,apps/namespaces/default/Deployment/web");
    CHECK(has_result(&f, SEV_INFO,
                     "`depends-on` annotation namespace [default] updated to \"example-ns\", 2 value(s) changed"));
    fx_close(&f);
}

TEST(set_namespace_nothing_to_change)
{
    struct fx f;
    fx_open(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: new # keep\n");
    CHECK(fx_run(&f, CM("new")) == 0);
    CHECK(has_result(&f, SEV_INFO, "all matching namespaces are already \"new\". no value changed"));
    CHECK_STR(fx_yaml(&f), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: new # keep\n");
    fx_close(&f);
}

TEST(set_namespace_keeps_comments_on_edited_values)
{
    struct fx f;
    fx_open(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: old # kpt-set: ${ns}\n");
    CHECK(fx_run(&f, CM("new")) == 0);
    CHECK_STR(fx_yaml(&f),
              "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: new # kpt-set: ${ns}\n");
    fx_close(&f);
}
