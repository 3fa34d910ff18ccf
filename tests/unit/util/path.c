/* util/path.c: resolving a path inside a root without ever looking outside it, and Go's filepath.Clean
 * (how helm joins a file:// dependency to its chart). The attacks themselves: tests/security/cases/helm-*.sh. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "functions/tools/confine.h"

TEST(confine_clean_path)
{
    arena *a = arena_new();
    CHECK_STR(clean_path(a, "/r/a/./b/../c"), "/r/a/c");
    CHECK_STR(clean_path(a, "/r/a/../../../../x"), "/x");
    CHECK_STR(clean_path(a, "//r//a/"), "/r/a");
    CHECK_STR(clean_path(a, "/.."), "/");
    CHECK_STR(clean_path(a, "a/../../b"), "../b");
    CHECK_STR(clean_path(a, "../../a"), "../../a");
    CHECK_STR(clean_path(a, "./"), ".");
    arena_free(a);
}

TEST(confine_resolve_beneath)
{
    char tmpl[] = "/tmp/confine.XXXXXX", root[PATH_MAX], out[PATH_MAX], p[PATH_MAX * 2];
    CHECK(mkdtemp(tmpl) != NULL);
    CHECK(realpath(tmpl, root) != NULL);
    const char *dirs[] = {"repo", "repo/a", "repo/a/b"}, *files[] = {"secret", "repo/a/f"};
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", root, dirs[i]);
        CHECK(mkdir(p, 0700) == 0);
    }
    for (int i = 0; i < 2; i++) {
        snprintf(p, sizeof p, "%s/%s", root, files[i]);
        FILE *f = fopen(p, "w");
        CHECK(f && fclose(f) == 0);
    }
    char repo[PATH_MAX + 8];
    snprintf(repo, sizeof repo, "%s/repo", root);
    /* links: inside (relative and absolute), out (relative, absolute, dangling), a loop, through a file */
    snprintf(p, sizeof p, "%s/repo/a/b/in", root);
    CHECK(symlink("../f", p) == 0);
    char abs_in[PATH_MAX * 2];
    snprintf(abs_in, sizeof abs_in, "%s/repo/a/f", root);
    snprintf(p, sizeof p, "%s/repo/abs-in", root);
    CHECK(symlink(abs_in, p) == 0);
    snprintf(p, sizeof p, "%s/repo/up", root);
    CHECK(symlink("../secret", p) == 0);
    snprintf(p, sizeof p, "%s/repo/etc", root);
    CHECK(symlink("/etc", p) == 0);
    snprintf(p, sizeof p, "%s/repo/gone", root);
    CHECK(symlink("/nonexistent/x", p) == 0);
    snprintf(p, sizeof p, "%s/repo/loop", root);
    CHECK(symlink("loop", p) == 0);
    snprintf(p, sizeof p, "%s/repo/a/b/../f", root);
    CHECK(resolve_beneath(repo, p, out) == CONFINED_OK);
    snprintf(p, sizeof p, "%s/repo/a/f", root);
    CHECK(!strcmp(out, p));
    snprintf(p, sizeof p, "%s/repo/a/b/in", root);
    CHECK(resolve_beneath(repo, p, out) == CONFINED_OK);
    CHECK(!strcmp(out, abs_in));
    snprintf(p, sizeof p, "%s/repo/abs-in", root);
    CHECK(resolve_beneath(repo, p, out) == CONFINED_OK);
    CHECK(!strcmp(out, abs_in));
    snprintf(p, sizeof p, "%s/repo/.", root);
    CHECK(resolve_beneath(repo, p, out) == CONFINED_OK);
    CHECK(!strcmp(out, repo));
    snprintf(p, sizeof p, "%s/repo/..", root);
    CHECK(resolve_beneath(repo, p, out) == CONFINED_OUTSIDE);
    snprintf(p, sizeof p, "%s/repo/a/../../secret", root);
    CHECK(resolve_beneath(repo, p, out) == CONFINED_OUTSIDE);
    snprintf(p, sizeof p, "%s/secret", root);
    CHECK(resolve_beneath(repo, p, out) == CONFINED_OUTSIDE);
    snprintf(p, sizeof p, "%s/repox/secret", root); /* a sibling whose name starts with the root's */
    CHECK(resolve_beneath(repo, p, out) == CONFINED_OUTSIDE);
    snprintf(p, sizeof p, "%s/repo/up", root);
    CHECK(resolve_beneath(repo, p, out) == CONFINED_OUTSIDE);
    snprintf(p, sizeof p, "%s/repo/etc/passwd", root);
    CHECK(resolve_beneath(repo, p, out) == CONFINED_OUTSIDE);
    snprintf(p, sizeof p, "%s/repo/etc/no-such-file", root); /* the same answer: nothing outside is looked at */
    CHECK(resolve_beneath(repo, p, out) == CONFINED_OUTSIDE);
    snprintf(p, sizeof p, "%s/repo/gone", root);
    CHECK(resolve_beneath(repo, p, out) == CONFINED_OUTSIDE);
    snprintf(p, sizeof p, "%s/repo/missing", root);
    CHECK(resolve_beneath(repo, p, out) == CONFINED_MISSING);
    snprintf(p, sizeof p, "%s/repo/a/f/x", root);
    CHECK(resolve_beneath(repo, p, out) == CONFINED_MISSING);
    snprintf(p, sizeof p, "%s/repo/loop", root);
    CHECK(resolve_beneath(repo, p, out) == CONFINED_MISSING);
    CHECK(resolve_beneath(repo, "relative/path", out) == CONFINED_OUTSIDE);
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0);
}
