/* set-annotations by release: the master's per-field results (`set annotations: {json}` per file, index and field
 * path, or `no annotations applied`), none from the kustomize-based v0.1.x, and era A's dropped local-config
 * items. Also ensure-name-substring v0.1.0's config, which these version fixtures reach. */
#include <stdlib.h>

#include "check.h"
#include "fixture.h"
#include "functions/function.h"
#include "util/diag.h"
#include "yaml/load.h"

/* fx_apply with a pinned release (pinned = false: the newest behaviour). */
static int run_at(struct fx *f, const char *fn, const char *config, bool pinned, int major, int minor, int patch)
{
    node *cfg = NULL;
    if (config)
        yaml_load_one(f->a, f->st, NULL, "fn-config.yaml", config, strlen(config), &cfg);
    fn_ctx c = {.a = f->a, .st = f->st, .items = &f->items, .config = cfg, .config_file = "fn-config.yaml",
                .results = &f->results, .version = {pinned, major, minor, patch}};
    return fn_lookup(fn)->run(&c);
}

#define ANNOTATE "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  fruit: apple\n  color: \"<&>\"\n"
#define ITEMS                                                                                                          \
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template: {}\n"                             \
    "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: local\n  annotations:\n"                                  \
    "    config.kubernetes.io/local-config: \"true\"\n"

TEST(set_annotations_latest_reports_each_field)
{
    struct fx f;
    fx_open(&f, ITEMS);
    fx_add(&f, "a.yaml", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n");
    CHECK(run_at(&f, "set-annotations", ANNOTATE, false, 0, 0, 0) == 0);
    /* sorted by file, index, field; keys sorted and <, >, & escaped as Go's json.Marshal does */
    CHECK(f.results.n == 4);
    const char *want_json = "set annotations: {\"color\":\"\\u003c\\u0026\\u003e\",\"fruit\":\"apple\"}";
    for (size_t i = 0; i < f.results.n; i++) {
        CHECK_STR(f.results.v[i].message, want_json);
        CHECK(f.results.v[i].severity == SEV_NONE);
    }
    CHECK(f.results.v[0].res == f.items.v[2]);
    CHECK_STR(f.results.v[0].field, "metadata.annotations");
    CHECK(f.results.v[1].res == f.items.v[0]);
    CHECK_STR(f.results.v[1].field, "metadata.annotations");
    CHECK(f.results.v[2].res == f.items.v[0]);
    CHECK_STR(f.results.v[2].field, "spec.template.metadata.annotations");
    CHECK(f.results.v[3].res == f.items.v[1]); /* local-config items are annotated and reported */
    CHECK_STR(path_str(f.items.v[1]->root, "metadata", "annotations", "fruit", NULL), "apple");
    fx_close(&f);

    fx_open(&f, NULL);
    CHECK(run_at(&f, "set-annotations", ANNOTATE, false, 0, 0, 0) == 0);
    CHECK(f.results.n == 1 && f.results.v[0].severity == SEV_NONE);
    CHECK_STR(f.results.v[0].message, "no annotations applied");
    fx_close(&f);
}

TEST(set_annotations_v0_1_4_annotates_local_config_without_results)
{
    struct fx f;
    fx_open(&f, ITEMS);
    CHECK(run_at(&f, "set-annotations", ANNOTATE, true, 0, 1, 4) == 0);
    CHECK(f.results.n == 0);
    CHECK(f.items.v[1] != NULL);
    CHECK_STR(path_str(f.items.v[1]->root, "metadata", "annotations", "fruit", NULL), "apple");
    CHECK_STR(path_str(f.items.v[0]->root, "spec", "template", "metadata", "annotations", "fruit", NULL), "apple");
    fx_close(&f);
}

TEST(set_annotations_v0_1_3_drops_local_config_without_results)
{
    struct fx f;
    fx_open(&f, ITEMS "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: f\n  annotations:\n"
                      "    config.kubernetes.io/local-config: \"false\"\n");
    CHECK(run_at(&f, "set-annotations", ANNOTATE, true, 0, 1, 3) == 0);
    CHECK(f.results.n == 0);
    CHECK(f.items.v[0] != NULL && f.items.v[1] == NULL && f.items.v[2] == NULL); /* any value */
    CHECK_STR(path_str(f.items.v[0]->root, "metadata", "annotations", "fruit", NULL), "apple");
    fx_close(&f);
}

TEST(set_annotations_config_errors_by_release)
{
    struct fx f;
    fx_open(&f, ITEMS);
    const char *typed = "apiVersion: fn.kpt.dev/v1alpha1\nkind: SetAnnotations\nmetadata:\n  name: c\n"
                        "annotations:\n  a: b\n";
    CHECK(run_at(&f, "set-annotations", typed, true, 0, 1, 3) < 0);
    CHECK(strstr(diag_message(), "failed to configure function: function config must be a ConfigMap or "
                                 "SetAnnotationConfig") != NULL);
    diag_reset();
    CHECK(run_at(&f, "set-annotations", typed, true, 0, 1, 4) == 0);
    CHECK(run_at(&f, "set-annotations", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: c\n", true, 0, 1, 4) < 0);
    CHECK(strstr(diag_message(), "function config must be a ConfigMap or SetAnnotations") != NULL);
    diag_reset();
    CHECK(run_at(&f, "set-annotations", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: c\n", false, 0, 0, 0) < 0);
    CHECK(strstr(diag_message(), "failed to configure function: `functionConfig` must be a `ConfigMap` or "
                                 "`SetAnnotations`") != NULL);
    diag_reset();
    /* the catalog compares apiVersion exactly */
    CHECK(run_at(&f, "set-annotations", "apiVersion: fn.kpt.dev/v1\nkind: SetAnnotations\nmetadata:\n  name: c\n"
                                        "annotations:\n  a: b\n", false, 0, 0, 0) < 0);
    diag_reset();
    CHECK(run_at(&f, "set-annotations", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata: {}\n", false,
                 0, 0, 0) < 0);
    CHECK(strstr(diag_message(), "failed to configure function: input annotation list cannot be empty") != NULL);
    diag_reset();
    /* `configMap: {}` reaches the function as no config at all under kpt */
    CHECK(run_at(&f, "set-annotations", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: function-input\n"
                                        "data: {}\n", false, 0, 0, 0) < 0);
    CHECK(strstr(diag_message(), "`functionConfig` must be a `ConfigMap` or `SetAnnotations`") != NULL);
    fx_close(&f);
}

TEST(ensure_name_substring_v0_1_0_reads_field_specs_only)
{
    struct fx f;
    fx_open(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m\n");
    const char *cfg = "apiVersion: fn.kpt.dev/v1alpha1\nkind: EnsureNameSubstring\nmetadata:\n  name: c\n"
                      "substring: prod-\nadditionalNameFields:\n  - path: data/name\n    kind: ConfigMap\n";
    CHECK(run_at(&f, "ensure-name-substring", cfg, true, 0, 1, 0) < 0);
    CHECK(strstr(diag_message(), "additionalNameFields arrived in ensure-name-substring v0.1.1") != NULL);
    diag_reset();
    CHECK(run_at(&f, "ensure-name-substring", cfg, true, 0, 1, 1) == 0);
    CHECK_STR(path_str(f.items.v[0]->root, "metadata", "name", NULL), "prod-m");
    fx_close(&f);
}
