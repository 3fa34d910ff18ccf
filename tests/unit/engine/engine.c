/* engine/engine.h: the context an engine gets instead of a function's, made by hand here as the helm guard makes
 * it: where its errors point, and paths shown without the sidecar's directories. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engine/engine.h"
#include "util/diag.h"
#include "yaml/load.h"

TEST(engine_fail_names_the_file_and_the_nodes_line)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    engine_ctx e = {.a = a, .st = st, .file = "apps/web/Kptfile", .line = 7};
    CHECK(engine_fail(&e, NULL, "chart \"%s\" is refused", "web") == -1);
    CHECK(strstr(diag_message(), "apps/web/Kptfile:7") && strstr(diag_message(), "chart \"web\" is refused"));
    diag_reset();
    node *doc = NULL;
    CHECK(yaml_load_one(a, st, NULL, "t.yaml", "a: 1\nrepo: x\n", 12, &doc) == 0);
    engine_fail(&e, map_get(doc, "repo"), "repo refused");
    CHECK(strstr(diag_message(), "apps/web/Kptfile:2") != NULL); /* the node's own line wins */
    diag_reset();
    engine_ctx unnamed = {.a = a, .st = st};
    engine_fail(&unnamed, NULL, "x");
    CHECK(strstr(diag_message(), "functionConfig") != NULL);
    strtab_release(st);
    arena_free(a);
}

TEST(engine_repo_relative_never_shows_the_root)
{
    arena *a = arena_new();
    engine_ctx e = {.a = a, .repo_root = "/srv/repo"};
    CHECK_STR(engine_repo_root(&e), "/srv/repo");
    CHECK_STR(engine_repo_relative(&e, "/srv/repo/charts/web"), "charts/web");
    CHECK_STR(engine_repo_relative(&e, "/srv/repo"), ".");
    CHECK_STR(engine_repo_relative(&e, "/srv/repository/x"), "/srv/repository/x"); /* not under it */
    engine_ctx top = {.a = a, .repo_root = "/"};
    CHECK_STR(engine_repo_relative(&top, "/charts/web"), "charts/web");
    arena_free(a);
}
