/* ensure-name-substring: config forms, renaming rules, the nameReference fix-up (nameref.c), depends-on, and
 * every bad config giving an error instead of a crash. */
#include <stdlib.h>

#include "check.h"
#include "functions/krm/nameref.h"
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
} fixture;

static int add_doc(void *ud, node *root, uint32_t index, uint32_t line, int seq_wide)
{
    fixture *f = ud;
    resource *r = resource_new(f->a, root, &f->pkg, f->path, index);
    r->line = line;
    rlist_push(&f->items, r);
    return 0;
}

static void setup(fixture *f, const char *yaml)
{
    memset(f, 0, sizeof *f);
    f->a = arena_new();
    f->st = strtab_new(f->a);
    f->pkg.rel = "";
    f->path = "resources.yaml";
    diag_reset();
    if (yaml)
        yaml_load(f->a, f->st, NULL, "resources.yaml", yaml, strlen(yaml), add_doc, f);
}

static void teardown(fixture *f)
{
    rlist_free(&f->items);
    free(f->results.v);
    strtab_release(f->st);
    arena_free(f->a);
}

static node *parse(fixture *f, const char *yaml)
{
    node *n = NULL;
    yaml_load_one(f->a, f->st, NULL, "fn-config.yaml", yaml, strlen(yaml), &n);
    return n;
}

/* Runs the function with a config given as YAML (NULL: no config); returns its return code. */
static int run_with(fixture *f, const char *config_yaml)
{
    node *cfg = config_yaml ? parse(f, config_yaml) : NULL;
    fn_ctx c = {.a = f->a, .st = f->st, .items = &f->items, .config = cfg, .config_file = "fn-config.yaml",
                .pkg = &f->pkg, .results = &f->results};
    return fn_lookup("ensure-name-substring")->run(&c);
}

static const char *prepend(const char *s)
{
    static char text[256];
    snprintf(text, sizeof text, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: function-input\ndata:\n  prepend: %s\n", s);
    return text;
}

/* The document of the item'th resource, as emitted. */
static const char *doc(fixture *f, size_t item)
{
    buf b = {0};
    emit_opts o = {.seq_wide = false, .comments = true};
    emit_yaml(&b, f->items.v[item]->root, &o);
    const char *s = arena_strndup(f->a, b.data, b.len);
    buf_free(&b);
    return s;
}

static const char *name_of(fixture *f, size_t item)
{
    return res_name(f->items.v[item]);
}

static bool failed_with(const char *text)
{
    return diag_failed() && strstr(diag_message(), text);
}

/* ---- config forms ---- */

TEST(ens_prefix_from_configmap_renames_and_fixes_refs)
{
    fixture f;
    setup(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: the-map\n  namespace: ns\n"
              "---\n"
              "apiVersion: v1\nkind: Pod\nmetadata:\n  name: the-pod\n  namespace: ns\nspec:\n  containers:\n"
              "  - name: c\n    env:\n    - name: K\n      valueFrom:\n        configMapKeyRef:\n"
              "          name: the-map\n          key: k\n"
              "---\n"
              "apiVersion: v1\nkind: Service\nmetadata:\n  name: with-prod-service\n  namespace: ns\n"
              "---\n"
              "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns\n");
    CHECK(run_with(&f, prepend("prod-")) == 0);
    CHECK_STR(name_of(&f, 0), "prod-the-map");
    CHECK_STR(name_of(&f, 1), "prod-the-pod");
    CHECK_STR(doc(&f, 1), "apiVersion: v1\nkind: Pod\nmetadata:\n  name: prod-the-pod\n  namespace: ns\nspec:\n"
                          "  containers:\n  - name: c\n    env:\n    - name: K\n      valueFrom:\n"
                          "        configMapKeyRef:\n          name: prod-the-map\n          key: k\n");
    /* the substring is already somewhere in the name: unchanged */
    CHECK_STR(name_of(&f, 2), "with-prod-service");
    CHECK_STR(name_of(&f, 3), "ns");
    teardown(&f);
}

TEST(ens_append_from_configmap)
{
    fixture f;
    setup(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: the-map\n"
              "---\n"
              "apiVersion: v1\nkind: Service\nmetadata:\n  name: the-service-prod\n");
    CHECK(run_with(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  append: -prod\n") == 0);
    CHECK_STR(name_of(&f, 0), "the-map-prod");
    CHECK_STR(name_of(&f, 1), "the-service-prod");
    teardown(&f);
}

TEST(ens_typed_config_with_additional_name_fields)
{
    fixture f;
    setup(&f, "apiVersion: dev.example.com/v1\nkind: MyResource\nmetadata:\n  name: the-cr\nspec:\n  name: foo\n"
              "  other: bar\n"
              "---\n"
              "apiVersion: other.example.com/v1\nkind: MyResource\nmetadata:\n  name: x\nspec:\n  name: foo\n");
    const char *cfg = "apiVersion: fn.kpt.dev/v1alpha1\nkind: EnsureNameSubstring\nmetadata:\n  name: c\n"
                      "substring: prod-\nadditionalNameFields:\n"
                      "- {group: dev.example.com, version: v1, kind: MyResource, path: spec/name}\n";
    CHECK(run_with(&f, cfg) == 0);
    CHECK_STR(name_of(&f, 0), "prod-the-cr");
    CHECK_STR(path_str(f.items.v[0]->root, "spec", "name", NULL), "prod-foo");
    CHECK_STR(path_str(f.items.v[0]->root, "spec", "other", NULL), "bar");
    /* the field spec's group does not match the second object */
    CHECK_STR(path_str(f.items.v[1]->root, "spec", "name", NULL), "foo");
    CHECK_STR(name_of(&f, 1), "prod-x");
    teardown(&f);
}

TEST(ens_typed_config_append_legacy_field_specs_and_create)
{
    fixture f;
    setup(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  names: [x, y-sfx]\n"
              "---\n"
              "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n");
    const char *cfg = "apiVersion: fn.kpt.dev/v1alpha1\nkind: EnsureNameSubstring\nmetadata:\n  name: c\n"
                      "substring: -sfx\neditMode: append\nfieldSpecs:\n"
                      "- {kind: ConfigMap, path: data/names}\n"
                      "- {kind: Secret, path: data/made, create: true}\n";
    CHECK(run_with(&f, cfg) == 0);
    CHECK_STR(name_of(&f, 0), "a-sfx");
    /* each list value is checked on its own */
    CHECK_STR(doc(&f, 0), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a-sfx\ndata:\n  names: [x-sfx, y-sfx]\n");
    CHECK_STR(path_str(f.items.v[1]->root, "data", "made", NULL), "-sfx");
    teardown(&f);
}

TEST(ens_skips_kptfile_namespace_crd_apiservice_but_not_local_config)
{
    fixture f;
    setup(&f, "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n"
              "---\n"
              "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns\n"
              "---\n"
              "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: foos.example.com\n"
              "---\n"
              "apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata:\n  name: v1.example.com\n"
              "---\n"
              "apiVersion: example.com/v1\nkind: APIService\nmetadata:\n  name: not-the-builtin\n"
              "---\n"
              "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: local\n  annotations:\n"
              "    config.kubernetes.io/local-config: \"true\"\n");
    CHECK(run_with(&f, prepend("p-")) == 0);
    CHECK_STR(name_of(&f, 0), "pkg");
    CHECK_STR(name_of(&f, 1), "ns");
    CHECK_STR(name_of(&f, 2), "foos.example.com");
    CHECK_STR(name_of(&f, 3), "v1.example.com");
    CHECK_STR(name_of(&f, 4), "p-not-the-builtin");
    CHECK_STR(name_of(&f, 5), "p-local");
    teardown(&f);
}

TEST(ens_second_run_changes_nothing)
{
    fixture f;
    setup(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n"
              "---\n"
              "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  template:\n    spec:\n"
              "      volumes:\n      - name: v\n        configMap:\n          name: cm\n");
    CHECK(run_with(&f, prepend("prod-")) == 0);
    const char *once = doc(&f, 1);
    CHECK(strstr(once, "name: prod-cm"));
    CHECK(run_with(&f, prepend("prod-")) == 0);
    CHECK_STR(doc(&f, 1), once);
    CHECK_STR(name_of(&f, 0), "prod-cm");
    teardown(&f);
}

TEST(ens_new_names_are_quoted_when_they_would_read_as_numbers)
{
    fixture f;
    setup(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: '1'\n");
    CHECK(run_with(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  append: \"0\"\n") == 0);
    CHECK_STR(name_of(&f, 0), "10");
    CHECK(strstr(doc(&f, 0), "name: '10'") || strstr(doc(&f, 0), "name: \"10\""));
    teardown(&f);
}

/* A new name is a string whatever the old one read as: a plain number becomes a quoted string, a tag goes, quotes
 * the author chose stay (names and the references nameref.c fixes alike). */
TEST(ens_new_names_are_strings_whatever_the_old_ones_read_as)
{
    fixture f;
    setup(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: 1\n"
              "---\n"
              "apiVersion: v1\nkind: Secret\nmetadata:\n  name: !!str 2\n"
              "---\n"
              "apiVersion: v1\nkind: Pod\nmetadata:\n  name: !!str 'pod'\nspec:\n  volumes:\n"
              "  - configMap:\n      name: 1\n  - secret:\n      secretName: !!str 2\n");
    CHECK(run_with(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  append: \"0\"\n") == 0);
    CHECK_STR(doc(&f, 0), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"10\"\n");
    CHECK_STR(doc(&f, 1), "apiVersion: v1\nkind: Secret\nmetadata:\n  name: \"20\"\n");
    CHECK_STR(doc(&f, 2), "apiVersion: v1\nkind: Pod\nmetadata:\n  name: 'pod0'\nspec:\n  volumes:\n"
                          "  - configMap:\n      name: \"10\"\n  - secret:\n      secretName: \"20\"\n");
    teardown(&f);
}

/* ---- references ---- */

TEST(ens_fixes_pod_spec_references_in_every_workload)
{
    fixture f;
    setup(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n"
              "---\n"
              "apiVersion: v1\nkind: Secret\nmetadata:\n  name: sec\n"
              "---\n"
              "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: sa\n"
              "---\n"
              "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: pvc\n"
              "---\n"
              "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: high\n"
              "---\n"
              "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: cj\nspec:\n  jobTemplate:\n    spec:\n"
              "      template:\n        spec:\n          serviceAccountName: sa\n          priorityClassName: high\n"
              "          imagePullSecrets:\n          - name: sec\n          - name: elsewhere\n"
              "          volumes:\n          - name: a\n            persistentVolumeClaim:\n              claimName: pvc\n"
              "          - name: b\n            projected:\n              sources:\n              - configMap:\n"
              "                  name: cm\n              - secret:\n                  name: sec\n"
              "          containers:\n          - name: c\n            envFrom:\n            - configMapRef:\n"
              "                name: cm\n            - secretRef:\n                name: sec\n"
              "---\n"
              "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: rs\nspec:\n  template:\n    spec:\n"
              "      serviceAccountName: sa\n");
    CHECK(run_with(&f, prepend("p-")) == 0);
    const node *spec = path_get(f.items.v[5]->root, "spec", "jobTemplate", "spec", "template", "spec", NULL);
    CHECK_STR(path_str(spec, "serviceAccountName", NULL), "p-sa");
    CHECK_STR(path_str(spec, "priorityClassName", NULL), "p-high");
    const node *pulls = map_get(spec, "imagePullSecrets");
    CHECK_STR(path_str(seq_item(pulls, 0), "name", NULL), "p-sec");
    /* not an object of the input: left alone */
    CHECK_STR(path_str(seq_item(pulls, 1), "name", NULL), "elsewhere");
    const node *vols = map_get(spec, "volumes");
    CHECK_STR(path_str(seq_item(vols, 0), "persistentVolumeClaim", "claimName", NULL), "p-pvc");
    const node *sources = path_get(seq_item(vols, 1), "projected", "sources", NULL);
    CHECK_STR(path_str(seq_item(sources, 0), "configMap", "name", NULL), "p-cm");
    CHECK_STR(path_str(seq_item(sources, 1), "secret", "name", NULL), "p-sec");
    const node *env_from = map_get(seq_item(map_get(spec, "containers"), 0), "envFrom");
    CHECK_STR(path_str(seq_item(env_from, 0), "configMapRef", "name", NULL), "p-cm");
    CHECK_STR(path_str(seq_item(env_from, 1), "secretRef", "name", NULL), "p-sec");
    /* kustomize misses ReplicaSet here; it is fixed (a deviation) */
    CHECK_STR(path_str(f.items.v[6]->root, "spec", "template", "spec", "serviceAccountName", NULL), "p-sa");
    teardown(&f);
}

TEST(ens_references_stay_within_the_namespace)
{
    fixture f;
    setup(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  namespace: a\n"
              "---\n"
              "apiVersion: v1\nkind: Pod\nmetadata:\n  name: in-a\n  namespace: a\nspec:\n  volumes:\n"
              "  - configMap:\n      name: cm\n"
              "---\n"
              "apiVersion: v1\nkind: Pod\nmetadata:\n  name: in-b\n  namespace: b\nspec:\n  volumes:\n"
              "  - configMap:\n      name: cm\n"
              "---\n"
              "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\n"
              "---\n"
              "apiVersion: v1\nkind: Pod\nmetadata:\n  name: in-default\n  namespace: default\nspec:\n  volumes:\n"
              "  - configMap:\n      name: plain\n");
    CHECK(run_with(&f, prepend("p-")) == 0);
    CHECK_STR(path_str(seq_item(map_get(path_get(f.items.v[1]->root, "spec", NULL), "volumes"), 0), "configMap", "name",
                       NULL),
              "p-cm");
    CHECK_STR(path_str(seq_item(map_get(path_get(f.items.v[2]->root, "spec", NULL), "volumes"), 0), "configMap", "name",
                       NULL),
              "cm");
    /* no namespace and "default" are the same place */
    CHECK_STR(path_str(seq_item(map_get(path_get(f.items.v[4]->root, "spec", NULL), "volumes"), 0), "configMap", "name",
                       NULL),
              "p-plain");
    teardown(&f);
}

TEST(ens_roleref_matches_kind_and_group)
{
    fixture f;
    setup(&f, "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: reader\n  namespace: ns\n"
              "---\n"
              "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: to-role\n"
              "  namespace: ns\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: Role\n  name: reader\n"
              "---\n"
              "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: to-cluster-role\n"
              "  namespace: ns\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: reader\n"
              "---\n"
              "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: admin\n"
              "---\n"
              "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: crb\n"
              "roleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: admin\n");
    CHECK(run_with(&f, prepend("p-")) == 0);
    CHECK_STR(path_str(f.items.v[1]->root, "roleRef", "name", NULL), "p-reader");
    /* the only renamed "reader" is a Role, and this one points at a ClusterRole */
    CHECK_STR(path_str(f.items.v[2]->root, "roleRef", "name", NULL), "reader");
    CHECK_STR(path_str(f.items.v[4]->root, "roleRef", "name", NULL), "p-admin");
    teardown(&f);
}

TEST(ens_subjects_get_name_and_namespace)
{
    fixture f;
    setup(&f, "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: sa\n  namespace: apps\n"
              "---\n"
              "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: rb\n  namespace: other\n"
              "roleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: view\n"
              "subjects:\n- kind: ServiceAccount\n  name: sa\n  namespace: apps\n"
              "- kind: Group\n  apiGroup: rbac.authorization.k8s.io\n  name: sa\n"
              "- kind: ServiceAccount\n  name: sa\n  namespace: elsewhere\n"
              "---\n"
              "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: crb\n"
              "roleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: view\n"
              "subjects:\n- kind: ServiceAccount\n  name: sa\n");
    CHECK(run_with(&f, prepend("p-")) == 0);
    const node *subjects = map_get(f.items.v[1]->root, "subjects");
    CHECK_STR(path_str(seq_item(subjects, 0), "name", NULL), "p-sa");
    CHECK_STR(path_str(seq_item(subjects, 0), "namespace", NULL), "apps");
    /* a Group that shares the name is not the ServiceAccount */
    CHECK_STR(path_str(seq_item(subjects, 1), "name", NULL), "sa");
    /* a namespace the renamed ServiceAccount is not in */
    CHECK_STR(path_str(seq_item(subjects, 2), "name", NULL), "sa");
    /* without a namespace, the referral's is written */
    const node *crb = seq_item(map_get(f.items.v[2]->root, "subjects"), 0);
    CHECK_STR(path_str(crb, "name", NULL), "p-sa");
    CHECK_STR(path_str(crb, "namespace", NULL), "apps");
    teardown(&f);
}

TEST(ens_services_webhooks_ingress_and_storage)
{
    fixture f;
    setup(&f, "apiVersion: v1\nkind: Service\nmetadata:\n  name: svc\n  namespace: ns\n"
              "---\n"
              "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n"
              "  name: hook\nwebhooks:\n- name: w\n  clientConfig:\n    service:\n      name: svc\n      namespace: ns\n"
              "      path: /validate\n"
              "---\n"
              "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata:\n  name: nginx\n"
              "---\n"
              "apiVersion: v1\nkind: Secret\nmetadata:\n  name: tls\n  namespace: ns\n"
              "---\n"
              "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: ing\n  namespace: ns\n"
              "  annotations:\n    nginx.ingress.kubernetes.io/auth-secret: tls\nspec:\n  ingressClassName: nginx\n"
              "  tls:\n  - secretName: tls\n  rules:\n  - http:\n      paths:\n      - backend:\n          service:\n"
              "            name: svc\n"
              "---\n"
              "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: fast\n"
              "---\n"
              "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: db\n  namespace: ns\nspec:\n"
              "  serviceName: svc\n  volumeClaimTemplates:\n  - metadata:\n      name: data\n    spec:\n"
              "      storageClassName: fast\n"
              "---\n"
              "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: hpa\n  namespace: ns\n"
              "spec:\n  scaleTargetRef:\n    apiVersion: apps/v1\n    kind: StatefulSet\n    name: db\n");
    CHECK(run_with(&f, prepend("p-")) == 0);
    const node *svc = path_get(seq_item(map_get(f.items.v[1]->root, "webhooks"), 0), "clientConfig", "service", NULL);
    CHECK_STR(path_str(svc, "name", NULL), "p-svc");
    CHECK_STR(path_str(svc, "namespace", NULL), "ns");
    CHECK_STR(path_str(svc, "path", NULL), "/validate");
    const node *ing = f.items.v[4]->root;
    CHECK_STR(path_str(ing, "metadata", "annotations", "nginx.ingress.kubernetes.io/auth-secret", NULL), "p-tls");
    CHECK_STR(path_str(ing, "spec", "ingressClassName", NULL), "p-nginx");
    CHECK_STR(path_str(seq_item(map_get(path_get(ing, "spec", NULL), "tls"), 0), "secretName", NULL), "p-tls");
    CHECK(strstr(doc(&f, 4), "name: p-svc"));
    const node *sts = f.items.v[6]->root;
    CHECK_STR(path_str(sts, "spec", "serviceName", NULL), "p-svc");
    CHECK(strstr(doc(&f, 6), "storageClassName: p-fast"));
    /* a volume claim template's name is not an object name */
    CHECK(strstr(doc(&f, 6), "name: data\n"));
    CHECK_STR(path_str(f.items.v[7]->root, "spec", "scaleTargetRef", "name", NULL), "p-db");
    teardown(&f);
}

TEST(ens_role_resource_names_list)
{
    fixture f;
    setup(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  namespace: ns\n"
              "---\n"
              "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: r\n  namespace: ns\n"
              "rules:\n- resources: [configmaps]\n  resourceNames: [cm, other]\n");
    CHECK(run_with(&f, prepend("p-")) == 0);
    CHECK(strstr(doc(&f, 1), "resourceNames: [p-cm, other]"));
    teardown(&f);
}

/* The choice between candidates, through the nameref API: ensure-name-substring alone always renames objects of one
 * old name to one new name, so ambiguity needs renames made by hand. */
static const char *two_maps_and_a_pod = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a-cm\n"
                                        "---\n"
                                        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b-cm\n"
                                        "---\n"
                                        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a-pod\nspec:\n  volumes:\n"
                                        "  - configMap:\n      name: cm\n";

TEST(ens_nameref_affix_breaks_ties)
{
    fixture f;
    setup(&f, two_maps_and_a_pod);
    nameref_renames rn = {0};
    nameref_add(f.a, &rn, f.items.v[0], "cm", "prefix:a-");
    nameref_add(f.a, &rn, f.items.v[1], "cm", "prefix:b-");
    fn_ctx c = {.a = f.a, .st = f.st, .items = &f.items, .pkg = &f.pkg, .results = &f.results};
    /* the Pod was not renamed, neither candidate was renamed like it: kustomize leaves the reference alone */
    CHECK(nameref_fix_references(&c, &rn) == 0);
    CHECK(strstr(doc(&f, 2), "name: cm\n"));
    /* renamed like a-cm: that one wins */
    nameref_add(f.a, &rn, f.items.v[2], "pod", "prefix:a-");
    CHECK(nameref_fix_references(&c, &rn) == 0);
    CHECK(strstr(doc(&f, 2), "name: a-cm\n"));
    teardown(&f);
}

TEST(ens_nameref_ambiguous_referral_fails)
{
    fixture f;
    setup(&f, two_maps_and_a_pod);
    nameref_renames rn = {0};
    nameref_add(f.a, &rn, f.items.v[0], "cm", "same");
    nameref_add(f.a, &rn, f.items.v[1], "cm", "same");
    nameref_add(f.a, &rn, f.items.v[2], "pod", "same");
    fn_ctx c = {.a = f.a, .st = f.st, .items = &f.items, .pkg = &f.pkg, .results = &f.results};
    CHECK(nameref_fix_references(&c, &rn) < 0);
    CHECK(failed_with("found multiple possible referrals for \"cm\""));
    CHECK(failed_with("ConfigMap/a-cm and ConfigMap/b-cm"));
    teardown(&f);
}

TEST(ens_nameref_cluster_scope_table)
{
    CHECK(nameref_cluster_scoped("rbac.authorization.k8s.io", "ClusterRole"));
    CHECK(nameref_cluster_scoped("", "Namespace"));
    CHECK(nameref_cluster_scoped(NULL, "PersistentVolume"));
    CHECK(!nameref_cluster_scoped("", "ConfigMap"));
    CHECK(!nameref_cluster_scoped("example.com", "ClusterRole"));
    CHECK(!nameref_cluster_scoped("", NULL));
}

/* ---- depends-on ---- */

TEST(ens_depends_on_follows_renamed_targets)
{
    fixture f;
    setup(&f, "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: db\n  namespace: default\n"
              "---\n"
              "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: infra\n"
              "---\n"
              "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: default\n  annotations:\n"
              "    config.kubernetes.io/depends-on: apps/namespaces/default/StatefulSet/db, /Namespace/infra,"
              "apps/namespaces/default/StatefulSet/outside,apps/namespaces/other/StatefulSet/db\n"
              "---\n"
              "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\n"
              "---\n"
              "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: prod-already\n  annotations:\n"
              "    config.kubernetes.io/depends-on: rbac.authorization.k8s.io/ClusterRole/reader\n");
    CHECK(run_with(&f, prepend("prod-")) == 0);
    CHECK_STR(res_annotation(f.items.v[2], "config.kubernetes.io/depends-on"),
              "apps/namespaces/default/StatefulSet/prod-db, /Namespace/infra,"
              "apps/namespaces/default/StatefulSet/outside,apps/namespaces/other/StatefulSet/db");
    /* fixed on an object that kept its own name too */
    CHECK_STR(name_of(&f, 4), "prod-already");
    CHECK_STR(res_annotation(f.items.v[4], "config.kubernetes.io/depends-on"),
              "rbac.authorization.k8s.io/ClusterRole/prod-reader");
    teardown(&f);
}

TEST(ens_depends_on_ignores_malformed_values)
{
    fixture f;
    setup(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  annotations:\n"
              "    config.kubernetes.io/depends-on: \"a/b/c/d/e/f/g,,/ConfigMap,x/notnamespaces/y/ConfigMap/cm\"\n");
    CHECK(run_with(&f, prepend("p-")) == 0);
    CHECK_STR(res_annotation(f.items.v[0], "config.kubernetes.io/depends-on"),
              "a/b/c/d/e/f/g,,/ConfigMap,x/notnamespaces/y/ConfigMap/cm");
    teardown(&f);
}

/* ---- bad configs: an error naming the problem, items untouched ---- */

static void expect_config_error(const char *config, const char *message)
{
    fixture f;
    setup(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n");
    int rc = run_with(&f, config);
    bool ok = rc < 0 && failed_with(message) && !strcmp(name_of(&f, 0), "cm");
    if (!ok) {
        char msg[1024];
        snprintf(msg, sizeof msg, "config:\n%s\nwant error containing \"%s\", got rc %d: %s", config ? config : "(none)",
                 message, rc, diag_failed() ? diag_message() : "(no error)");
        test_fail(__FILE__, __LINE__, msg);
    }
    teardown(&f);
}

#define CM "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"
#define ENS "apiVersion: fn.kpt.dev/v1alpha1\nkind: EnsureNameSubstring\nmetadata:\n  name: x\n"

TEST(ens_config_errors)
{
    expect_config_error(NULL, "needs a functionConfig");
    expect_config_error("just a string", "must be an object");
    expect_config_error("- a\n- b\n", "must be an object");
    expect_config_error("apiVersion: v1\nkind: Secret\nmetadata:\n  name: x\n", "but we got: v1 Secret");
    expect_config_error("metadata:\n  name: x\n", "(no apiVersion) (no kind)");
    expect_config_error(CM, "only 1 entry is allowed in the ConfigMap");
    expect_config_error(CM "data: {}\n", "but got: 0");
    expect_config_error(CM "data:\n  prepend: a\n  append: b\n", "but got: 2");
    expect_config_error(CM "data: [prepend]\n", "data must be a map");
    expect_config_error(CM "data:\n  suffix: b\n", "unknown editMode: suffix");
    expect_config_error(CM "data:\n  prepend: [a]\n", "must be a string");
    expect_config_error(CM "data:\n  prepend: ''\n", "substring must not be empty");
    expect_config_error(ENS, "substring must not be empty");
    expect_config_error(ENS "substring: {a: b}\n", "substring must be a string");
    expect_config_error(ENS "substring: p-\neditMode: sideways\n", "editMode must be prepend or append");
    expect_config_error(ENS "substring: p-\neditMode: [a]\n", "editMode must be prepend or append");
    expect_config_error(ENS "substring: p-\nadditionalNameFields: spec/name\n", "must be a list of field specs");
    expect_config_error(ENS "substring: p-\nadditionalNameFields: [spec/name]\n", "must be a map");
    expect_config_error(ENS "substring: p-\nadditionalNameFields:\n- kind: X\n", "needs a path");
    expect_config_error(ENS "substring: p-\nadditionalNameFields:\n- path: [a]\n", "`path` of a field spec");
    expect_config_error(ENS "substring: p-\nadditionalNameFields:\n- {path: a}\nfieldSpecs:\n- {path: b}\n",
                        "please rename it to `additionalNameFields`");
}

TEST(ens_config_error_names_the_config_file)
{
    fixture f;
    setup(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n");
    CHECK(run_with(&f, CM "data:\n  suffix: b\n") < 0);
    CHECK(failed_with("fn-config.yaml:6"));
    teardown(&f);
}

TEST(ens_odd_resource_shapes_do_not_crash)
{
    fixture f;
    setup(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [not, a, string]\n"
              "---\n"
              "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  volumes: {configMap: 3}\n"
              "  containers: [1, [2], {env: x}]\n  serviceAccountName: {name: sa}\n"
              "---\n"
              "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: rb\nroleRef: x\n"
              "subjects: [a, {kind: ServiceAccount}, {name: [x]}]\n"
              "---\n"
              "kind: ServiceAccount\nmetadata:\n  name: sa\n");
    CHECK(run_with(&f, prepend("p-")) == 0);
    CHECK_STR(name_of(&f, 1), "p-p");
    CHECK_STR(name_of(&f, 3), "p-sa");
    teardown(&f);
}
