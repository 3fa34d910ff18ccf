/* src/flux/git_source.c: a GitRepository is this Application's own only when its URL is the Application's as Argo CD
 * compares repository URLs (util/git NormalizeGitURL) and its ref resolves to the checked-out revision. */
#include "check.h"
#include "flux/internal.h"
#include "util/arena.h"
#include "util/diag.h"

TEST(flux_git_same_url_as_argocd)
{
    arena *a = arena_new();
    /* case, ".git", the scp-like and ssh:// forms of one repository */
    CHECK(flux_git_same_url(a, "https://GitHub.com/Org/Repo", "https://github.com/org/repo.git"));
    CHECK(flux_git_same_url(a, "git@github.com:org/repo.git", "ssh://git@github.com/org/repo"));
    CHECK(flux_git_same_url(a, "  https://github.com/org/repo.git\n", "https://github.com/org/repo"));
    /* credentials of an http(s) URL are not part of it; an ssh user is */
    CHECK(flux_git_same_url(a, "https://user:token@github.com/org/repo", "https://github.com/org/repo"));
    CHECK(!flux_git_same_url(a, "ssh://deploy@github.com/org/repo", "ssh://git@github.com/org/repo"));
    /* what Argo CD keeps apart stays apart: another repository, scheme, port, a trailing slash */
    CHECK(!flux_git_same_url(a, "https://github.com/org/other", "https://github.com/org/repo"));
    CHECK(!flux_git_same_url(a, "http://github.com/org/repo", "https://github.com/org/repo"));
    CHECK(!flux_git_same_url(a, "https://github.com:8443/org/repo", "https://github.com/org/repo"));
    CHECK(!flux_git_same_url(a, "https://github.com/org/repo/", "https://github.com/org/repo"));
    /* nothing matches an empty URL, or one url.Parse would re-encode */
    CHECK(!flux_git_same_url(a, "", ""));
    CHECK(!flux_git_same_url(a, "https://github.com/org/re%70o", "https://github.com/org/re%70o"));
    arena_free(a);
}

TEST(flux_git_ref_against_revision)
{
    arena *a = arena_new();
    const char *rev = "0123456789abcdef0123456789abcdef01234567";
    flux_git_ref none = {0}, commit = {.commit = "0123456789ABCDEF0123456789ABCDEF01234567"},
                 prefix = {.commit = "0123456"}, branch = {.branch = "main"}, tag = {.tag = "v1.0.0", .tag_commit = rev},
                 name = {.name = "refs/heads/main"}, tagname = {.name = "refs/tags/v1.0.0", .tag_commit = rev},
                 semver = {.semver = ">=1.0.0"}, both = {.branch = "dev", .commit = rev};
    CHECK(!flux_git_ref_problem(a, &commit, rev, "main"));
    CHECK(!flux_git_ref_problem(a, &both, rev, "main")); /* commit wins over branch, as in source-controller */
    CHECK(flux_git_ref_problem(a, &prefix, rev, "main") != NULL);
    CHECK(!flux_git_ref_problem(a, &branch, rev, "main"));
    CHECK(flux_git_ref_problem(a, &branch, rev, "dev") != NULL);
    CHECK(!flux_git_ref_problem(a, &tag, rev, "v1.0.0"));
    CHECK(!flux_git_ref_problem(a, &name, rev, "main"));
    CHECK(!flux_git_ref_problem(a, &tagname, rev, "v1.0.0"));
    /* a tag is its commit in the checkout's metadata, never the target revision's name (a branch may share it) */
    flux_git_ref tag_unknown = {.tag = "main"}, tagname_unknown = {.name = "refs/tags/main"},
                 tag_elsewhere = {.tag = "main", .tag_commit = "89abcdef0123456789abcdef0123456789abcdef"};
    CHECK(flux_git_ref_problem(a, &tag_unknown, rev, "main") != NULL);
    CHECK(flux_git_ref_problem(a, &tag_elsewhere, rev, "main") != NULL);
    CHECK(flux_git_ref_problem(a, &tagname_unknown, rev, "main") != NULL);
    CHECK(!strcmp(flux_git_ref_tag(&tagname), "v1.0.0") && !strcmp(flux_git_ref_tag(&tag), "v1.0.0"));
    CHECK(!flux_git_ref_tag(&name) && !flux_git_ref_tag(&branch) && !flux_git_ref_tag(&semver));
    CHECK(flux_git_ref_problem(a, &name, rev, "refs/heads/dev") != NULL);
    /* a target given as a full reference is its branch; a branch that is itself a reference name is another branch
     * to Flux (refs/heads/refs/heads/main), and a ref.name must be a full reference */
    flux_git_ref refs_branch = {.branch = "refs/heads/main"}, refs_name = {.name = "refs/heads/refs/heads/main"},
                 tags_branch = {.branch = "refs/tags/v1"}, bare_name = {.name = "main"};
    CHECK(!flux_git_ref_problem(a, &branch, rev, "refs/heads/main"));
    CHECK(!flux_git_ref_problem(a, &name, rev, "refs/heads/main"));
    CHECK(flux_git_ref_problem(a, &refs_branch, rev, "refs/heads/main") != NULL);
    CHECK(flux_git_ref_problem(a, &refs_name, rev, "refs/heads/main") != NULL);
    CHECK(flux_git_ref_problem(a, &tags_branch, rev, "refs/tags/v1") != NULL);
    CHECK(flux_git_ref_problem(a, &bare_name, rev, "main") != NULL);
    CHECK(flux_git_ref_problem(a, &branch, rev, "refs/tags/main") != NULL);
    CHECK(flux_git_ref_problem(a, &semver, rev, "v1.0.0") != NULL);
    CHECK(!flux_git_ref_problem(a, &none, rev, "master")); /* no ref: the master branch */
    CHECK(flux_git_ref_problem(a, &none, rev, "main") != NULL);
    CHECK(flux_git_ref_problem(a, &branch, NULL, "main") != NULL);
    CHECK(flux_git_ref_problem(a, &branch, "main", "main") != NULL); /* a revision that is not a commit */
    CHECK(flux_git_ref_problem(a, &branch, rev, NULL) != NULL);
    arena_free(a);
}

/* a branch HEAD (Argo CD: the default branch; Flux: refs/heads/HEAD) and names git check-ref-format refuses are
 * never matched, even against a target revision of the same spelling; plain names still are */
TEST(flux_git_ref_plain_branch_names)
{
    arena *a = arena_new();
    const char *rev = "0123456789abcdef0123456789abcdef01234567";
    static const char *const bad[] = {"HEAD", "a..b", "a@{1}", "a~1", "a^", "a:b", "a?", "a*", "a[b", "a\\b", "a b",
                                      "a\tb", "a\x7f", "-a", "/a", "a/", "a.", "a.lock", "a/b.lock/c", "a//b", ".a",
                                      "a/.b", "@", NULL};
    for (int i = 0; bad[i]; i++) {
        flux_git_ref b = {.branch = bad[i]}, n = {.name = arena_printf(a, "refs/heads/%s", bad[i])};
        const char *why = flux_git_ref_problem(a, &b, rev, bad[i]);
        CHECK(why && strstr(why, "is not a plain branch name"));
        CHECK(flux_git_ref_problem(a, &n, rev, bad[i]) != NULL);
    }
    flux_git_ref head_name = {.name = "HEAD"};
    CHECK(flux_git_ref_problem(a, &head_name, rev, "HEAD") != NULL);
    static const char *const good[] = {"main", "release-1.2", "feature/x_y", "users/a.b/c", "v1.2.3", "a@b", NULL};
    for (int i = 0; good[i]; i++) {
        flux_git_ref b = {.branch = good[i]}, n = {.name = arena_printf(a, "refs/heads/%s", good[i])};
        CHECK(!flux_git_ref_problem(a, &b, rev, good[i]));
        CHECK(!flux_git_ref_problem(a, &n, rev, good[i]));
    }
    arena_free(a);
}

/* semver_filter.c: only patterns Go's RE2 and pcre2 read alike reach pcre2 */
TEST(flux_semver_filter_re2_subset)
{
    arena *a = arena_new();
    const char *why;
    static const char *const same[] = {"^1\\.2", ".*-rc\\.[0-9]+$", "^v?(?:1|2)\\.\\d+\\.\\d+$", "(?i)^V1",
                                       "^(?P<major>\\d+)\\.", "[[:digit:]]{1,3}", "^[^-]+$", "[]a]", "a{2,1000}"};
    for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
        why = flux_re2_subset_problem(same[i]);
        CHECK(why == NULL);
    }
    static const char *const refused[] = {"^(?=1)", "(?<=v)1", "(?!x)", "(?>a)", "(a)\\1", "a\\Z", "\\K",
                                          "a*+", "a{,3}", "a{1001}", "(*UTF)a", "(?x) a", "[\\b]", "\\h", "[a"};
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        why = flux_re2_subset_problem(refused[i]);
        CHECK(why != NULL);
    }
    CHECK(flux_semver_filter_match(NULL, a, "^1\\.2", "1.2.0") == 1);
    CHECK(flux_semver_filter_match(NULL, a, "rc", "2.0.0-rc.1") == 1); /* unanchored, as Go's MatchString */
    CHECK(flux_semver_filter_match(NULL, a, "^1\\.0", "1.2.0") == 0);
    CHECK(flux_semver_filter_problem(a, "(") != NULL);
    diag_detail d;
    diag_detail *outer = diag_capture(&d);
    CHECK(flux_semver_filter_match(NULL, a, "(", "1.2.0") == -1);
    diag_restore(outer);
    CHECK(d.failed && d.unplaced);
    arena_free(a);
}
