/* util/glob.h: path globs with ** as kpt matches them. (Split from the package tests.) */
#include "check.h"
#include "util/glob.h"

TEST(glob_doublestar)
{
    CHECK(glob_match(NULL, "**/setters.yaml", "setters.yaml"));
    CHECK(glob_match(NULL, "**/setters.yaml", "sub/pkg/setters.yaml"));
    CHECK(glob_match(NULL, "*.yaml", "a.yaml") && !glob_match(NULL, "*.yaml", "d/a.yaml"));
    CHECK(glob_match(NULL, "a/**", "a/b/c") && glob_match(NULL, "a/**/c", "a/c") && glob_match(NULL, "a/**/c", "a/x/y/c"));
    CHECK(glob_match(NULL, "file-[0-9].y?ml", "file-3.yaml") && !glob_match(NULL, "file-[!0-9].yaml", "file-3.yaml"));
}
