/* helm/confine.c on an engine context made by hand (no step, no host, as the helm guard runs it): the operator's
 * chart limits come from its limits, the repository root from it too. (The attacks themselves, with the real helm:
 * tests/security/cases/helm-*.sh.) */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "engine/engine.h"
#include "helm/confine.h"
#include "util/diag.h"
#include "util/fsutil.h"

static void put(arena *a, const char *dir, const char *rel, const char *text)
{
    FILE *f = fopen(arena_printf(a, "%s/%s", dir, rel), "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

TEST(helm_confine_takes_its_limits_and_root_from_the_engine_context)
{
    char tmpl[] = "/tmp/cmp-unit-helm-confine.XXXXXX", real[PATH_MAX];
    CHECK(mkdtemp(tmpl) != NULL);
    CHECK(realpath(tmpl, real) != NULL);
    arena *a = arena_new();
    const char *root = arena_strdup(a, real), *repo = arena_printf(a, "%s/repo", root);
    const char *chart = arena_printf(a, "%s/web", repo);
    CHECK(mkdir(repo, 0700) == 0 && mkdir(chart, 0700) == 0);
    CHECK(mkdir(arena_printf(a, "%s/templates", chart), 0700) == 0);
    put(a, chart, "Chart.yaml", "apiVersion: v2\nname: web\nversion: 0.1.0\n");
    put(a, chart, "templates/cm.yaml", "kind: ConfigMap\n");
    put(a, root, "secret", "s\n");

    limits wide = limits_default, narrow = limits_default;
    wide.max_chart_files = 100, wide.max_chart_bytes = 1 << 20, narrow.max_chart_files = 2;
    engine_ctx e = {.a = a, .st = strtab_new(a), .file = "Kptfile", .line = 3, .repo_root = repo, .lim = &wide};
    CHECK(helm_confine_dir(&e, NULL, chart) == 0);
    e.lim = &narrow;
    CHECK(helm_confine_dir(&e, NULL, chart) == -1);
    CHECK(strstr(diag_message(), "Kptfile:3") && strstr(diag_message(), "chart \"web\" has more than 2 files"));
    diag_reset();

    /* a symlink out of the repository the context names, not out of the chart */
    e.lim = &wide;
    CHECK(symlink("../../../secret", arena_printf(a, "%s/templates/up.yaml", chart)) == 0);
    CHECK(helm_confine_dir(&e, NULL, chart) == -1);
    CHECK(strstr(diag_message(), "leads outside the repository") != NULL);
    CHECK(strstr(diag_message(), root) == NULL); /* the sidecar's directories are not shown */
    diag_reset();
    e.repo_root = root; /* the same link, inside a wider repository */
    CHECK(helm_confine_dir(&e, NULL, chart) == 0);

    CHECK(system(arena_printf(a, "rm -rf '%s'", root)) == 0);
    strtab_release(e.st);
    arena_free(a);
}
