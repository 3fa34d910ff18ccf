/* pipeline/selector.h: a step's selectors and exclusions. (Split from the package tests.) */
#include <string.h>

#include "check.h"
#include "package/resource.h"
#include "pipeline/selector.h"
#include "yaml/load.h"

static resource *res(arena *a, strtab *st, const char *yaml)
{
    node *n = NULL;
    yaml_load_one(a, st, NULL, "t.yaml", yaml, strlen(yaml), &n);
    return resource_new(a, n, NULL, "t.yaml", 0);
}

TEST(selectors_match_exactly_and_by_subset)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    resource *r = res(a, st, "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: prod\n"
                             "  labels: {tier: web, team: a}\n");
    node *labels = NULL;
    yaml_load_one(a, st, NULL, "s", "tier: web", 9, &labels);
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
