/* src/git without repositories: credential stripping, source arguments for remote URLs, short revisions, the
 * shell lines of --print-env. (Repositories, metadata and pkg get itself: tests/git/run.) */
#include "check.h"
#include "git/git.h"
#include "util/diag.h"
#include "util/url.h"

TEST(git_strip_credentials)
{
    arena *a = arena_new();
    CHECK_STR(gitsrc_url_strip_credentials(a, "https://user:token@host/x"), "https://host/x");
    CHECK_STR(gitsrc_url_strip_credentials(a, "https://ghp_abc@github.com/org/repo.git"),
              "https://github.com/org/repo.git");
    CHECK_STR(gitsrc_url_strip_credentials(a, "HTTP://u:p@host:8080/a?b=c"), "HTTP://host:8080/a");
    CHECK_STR(gitsrc_url_strip_credentials(a, "https://u:p@ss@host/x"), "https://host/x");
    CHECK_STR(gitsrc_url_strip_credentials(a, "https://host/x@v1"), "https://host/x@v1");
    CHECK_STR(gitsrc_url_strip_credentials(a, "https://host"), "https://host");
    CHECK_STR(gitsrc_url_strip_credentials(a, "ssh://git:pw@host/org/repo.git"), "ssh://git@host/org/repo.git");
    CHECK_STR(gitsrc_url_strip_credentials(a, "ssh://git@host/org/repo.git"), "ssh://git@host/org/repo.git");
    CHECK_STR(gitsrc_url_strip_credentials(a, "git@github.com:org/repo.git"), "git@github.com:org/repo.git");
    CHECK_STR(gitsrc_url_strip_credentials(a, "/srv/git/repo.git"), "/srv/git/repo.git");
    CHECK_STR(gitsrc_url_strip_credentials(a, "file:///srv/git/repo"), "file:///srv/git/repo");
    arena_free(a);
}

/* Tokens in the query or fragment go with the whole query: there is no list of parameter names to keep up. */
TEST(url_strip_query_and_fragment)
{
    arena *a = arena_new();
    CHECK_STR(url_strip_credentials(a, "https://gitlab.example.com/g/r.git?private_token=glpat-x"),
              "https://gitlab.example.com/g/r.git");
    CHECK_STR(url_strip_credentials(a, "https://host/r?access_token=t&x=1#frag"), "https://host/r");
    CHECK_STR(url_strip_credentials(a, "https://host?token=t"), "https://host");
    CHECK_STR(url_strip_credentials(a, "https://host#t"), "https://host");
    CHECK_STR(url_strip_credentials(a, "https://u:p@bucket.s3.amazonaws.com/r.git?X-Amz-Signature=abc&X-Amz-Credential=k"),
              "https://bucket.s3.amazonaws.com/r.git");
    CHECK_STR(url_strip_credentials(a, "https://host/r?u=a@b"), "https://host/r");
    CHECK_STR(url_strip_credentials(a, "ssh://git:pw@host/r.git?t=1"), "ssh://git@host/r.git");
    CHECK_STR(url_strip_credentials(a, "ssh://:pw@host/r.git"), "ssh://host/r.git");
    CHECK_STR(url_strip_credentials(a, "https://@host/r"), "https://host/r");
    CHECK_STR(url_strip_credentials(a, "git@github.com:org/repo.git"), "git@github.com:org/repo.git");
    CHECK_STR(url_strip_credentials(a, "/srv/a?b"), "/srv/a?b");
    CHECK_STR(url_strip_credentials(a, ""), "");
    arena_free(a);
}

TEST(git_source_kpt_form)
{
    arena *a = arena_new();
    pkg_source s;
    CHECK(pkg_source_parse(a, "https://u:tok@github.com/org/repo.git/pkgs/web@v1.2", &s) == 0);
    CHECK_STR(s.url, "https://u:tok@github.com/org/repo.git");
    CHECK_STR(s.key, "https://github.com/org/repo.git");
    CHECK_STR(s.repo, "https://github.com/org/repo");
    CHECK_STR(s.directory, "/pkgs/web");
    CHECK_STR(s.ref, "v1.2");
    CHECK(!s.local);
    CHECK(pkg_source_parse(a, "https://github.com/org/repo.git", &s) == 0);
    CHECK_STR(s.directory, "/");
    CHECK(s.ref == NULL);
    CHECK(pkg_source_parse(a, "https://github.com/org/repo.git@main", &s) == 0);
    CHECK_STR(s.directory, "/");
    CHECK_STR(s.ref, "main");
    CHECK(pkg_source_parse(a, "https://github.com/org/repo.git/a//./b/@release/1.0/", &s) == 0);
    CHECK_STR(s.directory, "/a/b");
    CHECK_STR(s.ref, "release/1.0");
    CHECK(pkg_source_parse(a, "git@github.com:org/repo.git/p@v", &s) == 0);
    CHECK_STR(s.url, "git@github.com:org/repo.git");
    CHECK_STR(s.repo, "git@github.com:org/repo");
    CHECK_STR(s.directory, "/p");
    CHECK_STR(s.ref, "v");
    arena_free(a);
}

TEST(git_source_other_forms)
{
    arena *a = arena_new();
    pkg_source s;
    CHECK(pkg_source_parse(a, "https://example.com/org/repo//deploy/base@abc1234", &s) == 0);
    CHECK_STR(s.url, "https://example.com/org/repo");
    CHECK_STR(s.directory, "/deploy/base");
    CHECK_STR(s.ref, "abc1234");
    CHECK(pkg_source_parse(a, "https://me@example.com/org/repo", &s) == 0);
    CHECK_STR(s.url, "https://me@example.com/org/repo");
    CHECK_STR(s.repo, "https://example.com/org/repo");
    CHECK_STR(s.directory, "/");
    CHECK(s.ref == NULL);
    CHECK(pkg_source_parse(a, "https://example.com/x.github.io@gh-pages", &s) == 0);
    CHECK_STR(s.url, "https://example.com/x.github.io");
    CHECK_STR(s.ref, "gh-pages");
    CHECK(pkg_source_parse(a, "git@github.com:org/repo@v2", &s) == 0);
    CHECK_STR(s.url, "git@github.com:org/repo");
    CHECK_STR(s.ref, "v2");
    arena_free(a);
}

TEST(git_source_rejects)
{
    arena *a = arena_new();
    pkg_source s;
    CHECK(pkg_source_parse(a, "https://github.com/org/repo.git/../x@main", &s) < 0);
    CHECK(strstr(diag_message(), "inside the repository"));
    diag_reset();
    CHECK(pkg_source_parse(a, "https://github.com/org/repo.git/x@", &s) < 0);
    CHECK(strstr(diag_message(), "empty ref"));
    diag_reset();
    CHECK(pkg_source_parse(a, "", &s) < 0);
    diag_reset();
    arena_free(a);
}

TEST(git_revision_short_and_env)
{
    arena *a = arena_new();
    CHECK_STR(gitsrc_revision_short(a, "0123456789abcdef0123456789abcdef01234567", 7), "0123456");
    CHECK_STR(gitsrc_revision_short(a, "0123456789abcdef0123456789abcdef01234567", 8), "01234567");
    CHECK_STR(gitsrc_revision_short(a, "abc", 7), "abc");
    CHECK(gitsrc_revision_short(a, NULL, 7) == NULL);
    gitsrc_meta m = {.name = "web", .revision = "0123456789abcdef0123456789abcdef01234567", .path = "it's"};
    buf b = {0};
    gitsrc_meta_env(&b, &m);
    CHECK_STR(buf_cstr(&b), "ARGOCD_APP_NAME='web'\n"
                            "ARGOCD_APP_REVISION='0123456789abcdef0123456789abcdef01234567'\n"
                            "ARGOCD_APP_REVISION_SHORT='0123456'\n"
                            "ARGOCD_APP_REVISION_SHORT_8='01234567'\n"
                            "ARGOCD_APP_SOURCE_PATH='it'\\''s'\n");
    buf_free(&b);
    arena_free(a);
}
