/* set-enforcement-action and remove-local-config-resources. */
#include <stdlib.h>

#include "check.h"
#include "fixture.h"
#include "functions/function.h"
#include "util/diag.h"
#include "yaml/load.h"


static int fx_run(struct fx *f, const char *fn, const char *config)
{
    return fx_apply(f, fn, config, "fn-config.yaml");
}

static const char *msg(struct fx *f, size_t i)
{
    return i < f->results.n ? f->results.v[i].message : "(none)";
}

#define ACTION(v) "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  enforcementAction: " v "\n"
#define POLICIES                                                                                                       \
    "apiVersion: constraints.gatekeeper.sh/v1beta1\nkind: K8sRestrictRoleBindings\nmetadata:\n  name: a\n"             \
    "spec:\n  enforcementAction: deny\n  parameters: {}\n"                                                             \
    "---\napiVersion: constraints.gatekeeper.sh/v1beta1\nkind: K8sProhibit\nmetadata:\n  name: b\n"                    \
    "---\napiVersion: constraints.gatekeeper.sh/v1\nkind: K8sOther\nmetadata:\n  name: c\nspec:\n"                     \
    "  enforcementAction: deny\n"                                                                                      \
    "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d\n"

TEST(set_enforcement_action_sets_constraints_only)
{
    struct fx f;
    fx_open(&f, POLICIES);
    CHECK(fx_run(&f, "set-enforcement-action", ACTION("dryrun")) == 0);
    CHECK_STR(path_str(f.items.v[0]->root, "spec", "enforcementAction", NULL), "dryrun");
    CHECK(map_index(path_get(f.items.v[0]->root, "spec", NULL), "enforcementAction") == 0); /* kept in place */
    CHECK_STR(path_str(f.items.v[1]->root, "spec", "enforcementAction", NULL), "dryrun");   /* spec created */
    CHECK_STR(path_str(f.items.v[2]->root, "spec", "enforcementAction", NULL), "deny");     /* v1 is not v1beta1 */
    CHECK(path_get(f.items.v[3]->root, "spec", NULL) == NULL);
    CHECK(f.results.n == 3);
    CHECK_STR(msg(&f, 0), "Number of policies set to [dryrun]: 2");
    CHECK_STR(msg(&f, 1), "Policy name: [a]");
    CHECK_STR(msg(&f, 2), "Policy name: [b]");
    CHECK(f.results.v[1].res == f.items.v[0]);
    fx_close(&f);

    fx_open(&f, POLICIES);
    CHECK(fx_run(&f, "set-enforcement-action", ACTION("warn")) == 0);
    CHECK_STR(path_str(f.items.v[0]->root, "spec", "enforcementAction", NULL), "warn");
    fx_close(&f);
}

TEST(set_enforcement_action_warns_when_nothing_matches)
{
    struct fx f;
    fx_open(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d\n");
    CHECK(fx_run(&f, "set-enforcement-action", ACTION("deny")) == 0);
    CHECK(f.results.n == 1 && f.results.v[0].severity == SEV_WARNING);
    CHECK_STR(msg(&f, 0), "Found no policy to set to [deny]");
    fx_close(&f);
}

TEST(set_enforcement_action_config_errors_fail)
{
    struct fx f;
    fx_open(&f, POLICIES);
    CHECK(fx_run(&f, "set-enforcement-action", ACTION("block")) < 0);
    CHECK(strstr(diag_message(), "expected values for enforcementAction are [deny], [warn] or [dryrun]") != NULL);
    diag_reset();
    CHECK(fx_run(&f, "set-enforcement-action", ACTION("deny") "  other: x\n") < 0);
    CHECK(strstr(diag_message(), "expecting exactly 1 enforcementAction") != NULL);
    diag_reset();
    CHECK(fx_run(&f, "set-enforcement-action",
                 "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  action: deny\n") < 0);
    CHECK(strstr(diag_message(), "found `action`") != NULL);
    diag_reset();
    CHECK(fx_run(&f, "set-enforcement-action", NULL) < 0);
    diag_reset();
    CHECK(fx_run(&f, "set-enforcement-action", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n") < 0);
    diag_reset();
    CHECK_STR(path_str(f.items.v[0]->root, "spec", "enforcementAction", NULL), "deny");
    fx_close(&f);

    fx_open(&f, "apiVersion: constraints.gatekeeper.sh/v1beta1\nkind: K\nmetadata:\n  name: a\nspec: text\n");
    CHECK(fx_run(&f, "set-enforcement-action", ACTION("deny")) < 0);
    CHECK(strstr(diag_message(), "spec is not a map") != NULL);
    diag_reset();
    fx_close(&f);
}

TEST(remove_local_config_resources_drops_true_only)
{
    struct fx f;
    fx_open(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keep\n"
                "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lc\n  annotations:\n"
                "    config.kubernetes.io/local-config: \"true\"\n"
                "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: upper\n  annotations:\n"
                "    config.kubernetes.io/local-config: \"TRUE\"\n"
                "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: false\n  annotations:\n"
                "    config.kubernetes.io/local-config: \"false\"\n"
                "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n  annotations:\n"
                "    config.kubernetes.io/local-config: \"yes\"\n");
    CHECK(fx_run(&f, "remove-local-config-resources", NULL) == 0);
    CHECK(f.items.v[0] && !f.items.v[1] && !f.items.v[2] && f.items.v[3] && f.items.v[4]);
    CHECK(f.results.n == 3);
    CHECK_STR(msg(&f, 0), "Number of resources pruned: 2");
    CHECK_STR(msg(&f, 1), "Resource name: [lc]");
    CHECK_STR(msg(&f, 2), "Resource name: [upper]");
    CHECK(f.results.v[1].res && !strcmp(f.results.v[1].res->path, "r.yaml") && f.results.v[1].res->index == 1);
    fx_close(&f);
}

TEST(remove_local_config_resources_warns_when_none)
{
    struct fx f;
    fx_open(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keep\n");
    CHECK(fx_run(&f, "remove-local-config-resources", NULL) == 0);
    CHECK(f.items.v[0] != NULL);
    CHECK(f.results.n == 1 && f.results.v[0].severity == SEV_WARNING);
    CHECK_STR(msg(&f, 0), "Found no resources to prune with the local config annotation");
    fx_close(&f);
}
