/* .krmignore, globs, function names, selectors. */
#include "check.h"
#include "functions/function.h"
#include "package/krmignore.h"
#include "pipeline/selector.h"
#include "util/glob.h"
#include "yaml/load.h"

TEST(glob_doublestar)
{
    CHECK(glob_match("**/setters.yaml", "setters.yaml"));
    CHECK(glob_match("**/setters.yaml", "sub/pkg/setters.yaml"));
    CHECK(glob_match("*.yaml", "a.yaml") && !glob_match("*.yaml", "d/a.yaml"));
    CHECK(glob_match("a/**", "a/b/c") && glob_match("a/**/c", "a/c") && glob_match("a/**/c", "a/x/y/c"));
    CHECK(glob_match("file-[0-9].y?ml", "file-3.yaml") && !glob_match("file-[!0-9].yaml", "file-3.yaml"));
}

TEST(krmignore_rules)
{
    arena *a = arena_new();
    krmignore *k = krmignore_parse(a, "# c\n.expected\n/top.yaml\ndrafts/\n*.tmp.yaml\n!keep.tmp.yaml\nsub/*.json\n");
    CHECK(krmignore_match(k, ".expected", true));
    CHECK(krmignore_match(k, "x/.expected", true));
    CHECK(krmignore_match(k, "top.yaml", false) && !krmignore_match(k, "d/top.yaml", false));
    CHECK(krmignore_match(k, "drafts", true) && !krmignore_match(k, "drafts", false));
    CHECK(krmignore_match(k, "a/b.tmp.yaml", false) && !krmignore_match(k, "a/keep.tmp.yaml", false));
    CHECK(krmignore_match(k, "sub/x.json", false) && !krmignore_match(k, "other/sub/x.json", false));
    CHECK(!krmignore_match(k, "app.yaml", false));
    arena_free(a);
}

TEST(function_names_resolve_by_basename)
{
    arena *a = arena_new();
    const char *refs[] = {"gcr.io/kpt-fn/set-labels:v0.1.5", "ghcr.io/kptdev/krm-functions-catalog/set-labels:v0.2",
                          "set-labels", "set-labels-v0.1.5", "./bin/set-labels_v1 --flag",
                          "gcr.io/kpt-fn/set-labels@sha256:abcd", "registry.local:5000/fns/set-labels:latest", NULL};
    for (int i = 0; refs[i]; i++) {
        const fn_def *f = fn_lookup(fn_basename(a, refs[i]));
        if (!f || strcmp(f->name, "set-labels")) {
            test_fail(__FILE__, __LINE__, refs[i]);
            arena_free(a);
            return;
        }
    }
    CHECK(fn_lookup(fn_basename(a, "gcr.io/kpt-fn/gatekeeper:v0.2")) == NULL);
    CHECK(strstr(fn_names(a), "set-annotations"));
    arena_free(a);
}

static resource *res(arena *a, strtab *st, const char *yaml)
{
    node *n = NULL;
    yaml_load_one(a, st, "t.yaml", yaml, strlen(yaml), &n);
    return resource_new(a, n, NULL, "t.yaml", 0);
}

TEST(selectors_match_exactly_and_by_subset)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    resource *r = res(a, st, "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: prod\n"
                             "  labels: {tier: web, team: a}\n");
    node *labels = NULL;
    yaml_load_one(a, st, "s", "tier: web", 9, &labels);
    selector s1 = {.kind = "Deployment"};
    selector s2 = {.api_version = "apps/v1", .name = "web", .namespace = "prod", .labels = labels};
    selector s3 = {.api_version = "apps"};
    selector s4 = {.namespace = "dev"};
    CHECK(selector_matches(&s1, r) && selector_matches(&s2, r));
    CHECK(!selector_matches(&s3, r) && !selector_matches(&s4, r));
    step st1 = {.selectors = (selector[]){s3, s1}, .nselectors = 2};
    CHECK(step_selects(&st1, r));
    step st2 = {.selectors = (selector[]){s1}, .nselectors = 1, .excludes = (selector[]){{0}, s2}, .nexcludes = 2};
    CHECK(!step_selects(&st2, r));
    strtab_release(st);
    arena_free(a);
}
