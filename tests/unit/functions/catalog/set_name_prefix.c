/* set-name-prefix: which objects are renamed, which references follow, and its config. */
#include <stdlib.h>

#include "check.h"
#include "fixture.h"
#include "functions/function.h"
#include "util/diag.h"

static int snp(struct fx *f, const char *config)
{
    return fx_apply(f, "set-name-prefix", config, "fn-config.yaml");
}

static bool failed_with(const char *text)
{
    return diag_failed() && strstr(diag_message(), text);
}

#define CONTEXT(name)                                                                                                  \
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\n  annotations:\n"                           \
    "    config.kubernetes.io/local-config: \"true\"\ndata:\n  name: " name "\n"
#define PREFIX(p) "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: function-input\ndata:\n  prefix: " p "\n"

TEST(snp_renames_placeholder_names_only)
{
    struct fx f;
    fx_open(&f, CONTEXT("shop") "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: packagename\n"
                "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: packagename-db\n"
                "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: packagenamex\n"
                "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other-packagename\n"
                "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: packagename-lc\n  annotations:\n"
                "    config.kubernetes.io/local-config: \"yes\"\n"
                "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: packagename-false\n  annotations:\n"
                "    config.kubernetes.io/local-config: \"false\"\n"
                "---\napiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: packagename-inventory\n");
    CHECK(snp(&f, NULL) == 0);
    CHECK_STR(res_name(f.items.v[0]), "kptfile.kpt.dev");
    CHECK_STR(res_name(f.items.v[1]), "shop");
    CHECK_STR(res_name(f.items.v[2]), "shop-db");
    CHECK_STR(res_name(f.items.v[3]), "packagenamex");
    CHECK_STR(res_name(f.items.v[4]), "other-packagename");
    CHECK_STR(res_name(f.items.v[5]), "packagename-lc"); /* local config: any value but "false" */
    CHECK_STR(res_name(f.items.v[6]), "shop-false");
    CHECK_STR(res_name(f.items.v[7]), "packagename-inventory");
    CHECK(f.results.n == 0); /* the catalog reports nothing on success */
    fx_close(&f);
}

TEST(snp_config_prefix_and_old_prefix)
{
    struct fx f;
    fx_open(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bp-x\n"
                "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: packagename-y\n");
    CHECK(snp(&f, PREFIX("dev") "  oldPrefix: bp\n") == 0); /* no package context needed */
    CHECK_STR(res_name(f.items.v[0]), "dev-x");
    CHECK_STR(res_name(f.items.v[1]), "packagename-y");
    fx_close(&f);
}

TEST(snp_references_follow)
{
    struct fx f;
    fx_open(&f,
            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: packagename\n"
            "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: packagename-view\n"
            "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: rb\n"
            "  namespace: packagename\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n"
            "  name: packagename-view\nsubjects:\n- kind: ServiceAccount\n  name: sa\n  namespace: packagename\n"
            "---\napiVersion: resourcemanager.cnrm.cloud.google.com/v1beta1\nkind: Folder\nmetadata:\n"
            "  name: packagename-team\n  namespace: cc\n"
            "---\napiVersion: resourcemanager.cnrm.cloud.google.com/v1beta1\nkind: Project\nmetadata:\n  name: p\n"
            "  namespace: cc\nspec:\n  folderRef:\n    name: packagename-team\n"
            "---\napiVersion: resourcemanager.cnrm.cloud.google.com/v1beta1\nkind: Project\nmetadata:\n  name: q\n"
            "  namespace: cc\nspec:\n  folderRef:\n    external: folders/123\n    name: packagename-team\n"
            "---\napiVersion: resourcemanager.cnrm.cloud.google.com/v1beta1\nkind: Project\nmetadata:\n  name: r\n"
            "  namespace: other\nspec:\n  folderRef:\n    name: packagename-team\n"
            "---\napiVersion: resourcemanager.cnrm.cloud.google.com/v1beta1\nkind: Project\nmetadata:\n  name: s\n"
            "  namespace: other\nspec:\n  folderRef:\n    name: packagename-team\n    namespace: cc\n"
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: owned\n  namespace: cc\n  ownerReferences:\n"
            "  - apiVersion: rbac.authorization.k8s.io/v1\n    kind: ClusterRole\n    name: packagename-view\n"
            "  - apiVersion: v1\n    kind: ConfigMap\n    name: packagename-team\n"
            "  - kind: Folder\n    name: packagename-team\n"
            "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: crb\n"
            "roleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: packagename-view\n"
            "subjects:\n- kind: ServiceAccount\n  name: sa\n  namespace: packagename\n");
    CHECK(snp(&f, PREFIX("acme")) == 0);
    CHECK_STR(res_name(f.items.v[0]), "acme");
    CHECK_STR(path_str(f.items.v[2]->root, "metadata", "namespace", NULL), "acme"); /* the Namespace moved */
    CHECK_STR(path_str(f.items.v[2]->root, "roleRef", "name", NULL), "acme-view");  /* cluster-scoped target */
    CHECK_STR(path_str(seq_item(path_get(f.items.v[2]->root, "subjects", NULL), 0), "namespace", NULL), "acme");
    CHECK_STR(path_str(f.items.v[4]->root, "spec", "folderRef", "name", NULL), "acme-team");
    CHECK_STR(path_str(f.items.v[5]->root, "spec", "folderRef", "name", NULL), "packagename-team"); /* external */
    CHECK_STR(path_str(f.items.v[6]->root, "spec", "folderRef", "name", NULL), "packagename-team"); /* other ns */
    CHECK_STR(path_str(f.items.v[7]->root, "spec", "folderRef", "name", NULL), "acme-team"); /* ns given */
    const node *owners = path_get(f.items.v[8]->root, "metadata", "ownerReferences", NULL);
    CHECK_STR(path_str(seq_item(owners, 0), "name", NULL), "acme-view");        /* cluster-scoped owner */
    CHECK_STR(path_str(seq_item(owners, 1), "name", NULL), "packagename-team"); /* no ConfigMap was renamed */
    CHECK_STR(path_str(seq_item(owners, 2), "name", NULL), "packagename-team"); /* incomplete: left alone */
    CHECK_STR(path_str(f.items.v[9]->root, "roleRef", "name", NULL), "acme-view");
    CHECK_STR(path_str(seq_item(path_get(f.items.v[9]->root, "subjects", NULL), 0), "namespace", NULL), "acme");
    fx_close(&f);
}

TEST(snp_config_errors)
{
    struct fx f;
    fx_open(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: packagename-a\n");
    CHECK(snp(&f, NULL) < 0);
    CHECK(failed_with("unable to find package context object"));
    diag_reset();
    CHECK(snp(&f, PREFIX("x") "  prefixes: y\n") < 0);
    CHECK(failed_with("unknown key `prefixes` in data (expected prefix, oldPrefix)"));
    diag_reset();
    CHECK(snp(&f, PREFIX("\"\"")) < 0);
    CHECK(failed_with("`data.prefix` should not be empty"));
    diag_reset();
    CHECK(snp(&f, PREFIX("x") "  oldPrefix: \"\"\n") < 0);
    CHECK(failed_with("`data.oldPrefix` should not be empty"));
    diag_reset();
    CHECK(snp(&f, "apiVersion: fn.kpt.dev/v1alpha1\nkind: SetNamePrefix\nmetadata:\n  name: x\nprefix: y\n") < 0);
    CHECK(failed_with("must be a v1 ConfigMap"));
    diag_reset();
    CHECK_STR(res_name(f.items.v[0]), "packagename-a");
    fx_close(&f);

    fx_open(&f, CONTEXT("a") "---\n" CONTEXT("b"));
    CHECK(snp(&f, NULL) < 0);
    CHECK(failed_with("found multiple matches for package-context object"));
    fx_close(&f);
    fx_open(&f, CONTEXT("\"\""));
    CHECK(snp(&f, NULL) < 0);
    CHECK(failed_with("package name (data.name) not set in package context object"));
    fx_close(&f);
}
