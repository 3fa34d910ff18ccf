/* .krmignore: its rules, as kpt matches them, and the lines kpt cannot take. */
#include "check.h"
#include "package/krmignore.h"
#include "yaml/load.h"

TEST(krmignore_rules)
{
    arena *a = arena_new();
    krmignore *k = krmignore_parse(a, NULL, ".krmignore",
                                   "# c\n.expected\n/top.yaml\ndrafts/\n*.tmp.yaml\n!keep.tmp.yaml\nsub/*.json\n");
    CHECK(krmignore_match(k, ".expected", true));
    CHECK(krmignore_match(k, "x/.expected", true));
    CHECK(krmignore_match(k, "top.yaml", false) && !krmignore_match(k, "d/top.yaml", false));
    CHECK(krmignore_match(k, "drafts", true) && !krmignore_match(k, "drafts", false));
    CHECK(krmignore_match(k, "a/b.tmp.yaml", false) && !krmignore_match(k, "a/keep.tmp.yaml", false));
    /* kpt: a pattern with a slash inside matches the path's last parts, at any depth (git would anchor it) */
    CHECK(krmignore_match(k, "sub/x.json", false) && krmignore_match(k, "other/sub/x.json", false));
    CHECK(!krmignore_match(k, "app.yaml", false));
    arena_free(a);
}

/* Each line below was run through kpt 1.0.0-beta.56 (tests/kpt-compare's corpus of patterns gives the same): the
 * paths kpt read and left out. */
TEST(krmignore_as_kpt_matches)
{
    arena *a = arena_new();
    struct {
        const char *patterns, *path;
        bool dir, ignored;
    } cases[] = {
        /* N parts match the last N parts of a path, however deep */
        {"tests/*", "tests/a.yaml", false, true},
        {"tests/*", "x/y/tests/a.yaml", false, true},
        {"tests/*", "x/tests/sub", true, true},
        {"tests/*", "tests", true, false},
        {"foo/bar", "x/foo/bar", true, true},
        {"x/tests", "tests", true, false},
        {"a.yaml", "x/y/a.yaml", false, true},
        /* a leading "/" anchors: the whole path, exactly that many parts */
        {"/tests", "tests", true, true},
        {"/tests", "x/tests", true, false},
        {"/x/tests/", "x/tests", true, true},
        {"/**/a.yaml", "x/a.yaml", false, true},
        {"/**/a.yaml", "x/y/a.yaml", false, false},
        /* "**" is two stars, each within one part: it never spans parts, and needs one part to stand for */
        {"**/tests", "x/tests", true, true},
        {"**/tests", "tests", true, false},
        {"x/**/a.yaml", "x/y/a.yaml", false, true},
        {"x/**/a.yaml", "x/y/z/a.yaml", false, false},
        {"**", "anything", false, true},
        /* a trailing "/" is for directories, at any depth; the slashes at the ends do not count as parts */
        {"tests/", "x/tests", true, true},
        {"tests/", "tests", false, false},
        {"foo/bar/", "x/foo/bar", true, true},
        {"tests//", "x/tests", true, true},
        {"//x", "x", true, true},
        /* "!" keeps a path whatever the order of the lines */
        {"!a.yaml\n*.yaml", "x/a.yaml", false, false},
        {"*.yaml\n!a.yaml", "b.yaml", false, true},
        {"a.yaml\n!/a.yaml", "a.yaml", false, false},
        {"a.yaml\n!/a.yaml", "x/a.yaml", false, true},
        {"tests\n!/x", "x/tests", true, true},
        /* Go's filepath.Match: [^a] negates, [!a] is '!' or 'a', a class may take '/', '?' one rune */
        {"[!t]ests", "tests", true, true},
        {"[^t]ests", "tests", true, false},
        {"tests[/]a.yaml", "x/tests/a.yaml", false, true},
        {"?.yaml", "\xC3\xA9.yaml", false, true},
        {"[\xC3\xA9].yaml", "\xC3\xA9.yaml", false, true},
        /* malformed patterns match nothing; without *?[ a pattern is plain text (its '\' too) */
        {"[]t]ests", "tests", true, false},
        {"test[", "test[", true, false},
        {"*\\", "a", false, false},
        {"a\\.yaml", "a.yaml", false, false},
        {"a\\.yam?", "a.yaml", false, true},
        /* lines: trimmed of spaces, "\r" dropped, "#" a comment, "\#" a '#', "\!" plain text */
        {"  tests  \r\n", "tests", true, true},
        {"a.yaml\t", "a.yaml", false, false},
        {"#a.yaml", "#a.yaml", false, false},
        {"\\#a.yaml", "#a.yaml", false, true},
        {"\\!a.yaml", "!a.yaml", false, false},
        {"a.yaml  #c", "a.yaml", false, false},
        /* an anchored pattern also meets a longer path's first parts and their "/": only a class can take it */
        {"/x[.-0]", "x/a.yaml", false, true},
        {"/x[.-0]", "x", true, false},
        /* Go takes the piece after a star where it first fits */
        {"*[/x]*y", "x/y", false, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        krmignore *k = krmignore_parse(a, NULL, ".krmignore", cases[i].patterns);
        CHECK(k != NULL);
        int m = k ? krmignore_match(k, cases[i].path, cases[i].dir) : -2;
        if (m != cases[i].ignored)
            fprintf(stderr, "  .krmignore \"%s\", %s \"%s\": %d, want %d\n", cases[i].patterns,
                    cases[i].dir ? "directory" : "file", cases[i].path, m, cases[i].ignored);
        CHECK(m == cases[i].ignored);
    }
    arena_free(a);
}

/* kpt panics on an empty pattern and silently stops at a line of 64 KiB: both are errors here, naming the line */
TEST(krmignore_lines_kpt_cannot_take)
{
    arena *a = arena_new();
    const char *bad[] = {"a.yaml\n!\n", "/\n", "!/", " ! \n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        diag_reset();
        CHECK(krmignore_parse(a, NULL, ".krmignore", bad[i]) == NULL);
        CHECK(strstr(diag_message(), "empty pattern") != NULL);
    }
    diag_reset();
    CHECK(krmignore_parse(a, NULL, ".krmignore", "//\n") != NULL);
    char *long_line = arena_alloc(a, 70000);
    memset(long_line, 'q', 65536);
    strcpy(long_line + 65536, "\nb\n");
    CHECK(krmignore_parse(a, NULL, ".krmignore", long_line) == NULL);
    CHECK(strstr(diag_message(), ".krmignore:1:") != NULL || strstr(diag_message(), "65536 bytes") != NULL);
    diag_reset();
    long_line[65535] = '\n'; /* 65,535 bytes: kpt takes it */
    CHECK(krmignore_parse(a, NULL, ".krmignore", long_line) != NULL);
    arena_free(a);
    diag_reset();
}
