/* src/flux/semver_pick.c: an OCIRepository's ref.semver picked from a tag list as source-controller picks it
 * (getTagBySemver): tags fluxcd/pkg's ParseVersion does not read are passed over, Masterminds/semver v3's
 * Constraints.Check decides (prereleases only for a constraint group that names one), the highest wins. Cases from
 * Masterminds' constraints_test.go and fluxcd/pkg's version_test.go, and the picks source-controller's tests make. */
#include "check.h"
#include "flux/internal.h"

#define N(a) (sizeof(a) / sizeof *(a))

TEST(flux_semver_tag_versions)
{
    /* fluxcd/pkg version_test.go */
    CHECK(flux_semver_tag_version("v1.2.3"));
    CHECK(!flux_semver_tag_version("v1.0"));
    CHECK(!flux_semver_tag_version("v1"));
    CHECK(!flux_semver_tag_version("v1.2.beta"));
    CHECK(!flux_semver_tag_version("v1.2-5"));
    CHECK(!flux_semver_tag_version("v1.2-beta.5"));
    CHECK(!flux_semver_tag_version("\nv1.2"));
    CHECK(flux_semver_tag_version("v1.2.0-x.Y.0+metadata"));
    CHECK(flux_semver_tag_version("v1.2.0-x.Y.0+metadata-width-hypen"));
    CHECK(flux_semver_tag_version("v1.2.3-rc1-with-hypen"));
    CHECK(!flux_semver_tag_version("v1.2.3.4"));
    /* StrictNewVersion: no leading zeros, one v, no empty identifier; helm's '_' for '+' is not read */
    CHECK(!flux_semver_tag_version("01.2.3"));
    CHECK(!flux_semver_tag_version("1.2.3-01"));
    CHECK(flux_semver_tag_version("1.2.3-0a"));
    CHECK(!flux_semver_tag_version("vv1.2.3"));
    CHECK(!flux_semver_tag_version("1.2.3-rc..1"));
    CHECK(!flux_semver_tag_version("1.2.3-"));
    CHECK(!flux_semver_tag_version("1.2.3_build.1"));
    CHECK(!flux_semver_tag_version("latest"));
    CHECK(!flux_semver_tag_version("99999999999999999999.0.0"));
}

TEST(flux_semver_check_constraints)
{
    static const struct {
        const char *c, *v;
        int want;
    } cases[] = {
        {"=2.0.0", "1.2.3", 0}, {"=2.0.0", "2.0.0", 1}, {"4.1", "4.1.0", 1}, {"4.1.x", "4.1.3", 1},
        {"1.x", "1.4.0", 1}, {"!=4.1", "4.1.0", 0}, {"!=4.1-alpha", "4.1.0", 1}, {"!=4.1", "5.1.0-alpha.1", 0},
        {"!=4.1-alpha", "5.1.0-alpha.1", 1}, {">1.1", "4.1.0", 1}, {">1.1", "1.1.0", 0}, {">0", "0.0.1-alpha", 0},
        {">0-0", "0.0.1-alpha", 0}, {">0.0", "0.0.1-alpha", 0}, {">0.0-0", "0.0.1-alpha", 0},
        {">0.0.0-0", "0.0.0-alpha", 1}, {">0", "0.0.0", 0},
        {">11", "11.1.0", 0}, {">11.1", "11.1.0", 0}, {">11.1", "11.1.1", 0}, {">11.1", "11.2.1", 1},
        {">11.1-0", "11.1.1", 0}, {">=11", "11.0.0", 1}, {"<11", "11.0.0", 0}, {"<11", "10.99.99", 1},
        {"<1.1", "1.0.9", 1}, {"<=11", "11.99.99", 1}, {"<=11.1", "11.1.5", 1}, {"<=11.1", "11.2.0", 0},
        {"<1.2.3", "1.2.3-beta", 0}, {"<1.2.3-0", "1.2.3-beta", 0}, {"<=1.2.3", "1.2.3-beta", 0},
        {"<=1.2.3-0", "1.2.3-beta", 0}, {"<=1.2.3-z", "1.2.3-beta", 1}, {"<=1.2.3-beta", "1.2.3-beta", 1}, {">1.2.3-beta", "1.2.3", 1},
        {">=1.2.3-beta.2", "1.2.3-beta.10", 1}, {">=1.2.3-beta.2", "1.2.3-beta.1", 0},
        {"~1.2.3", "1.2.4", 1}, {"~1.2.3", "1.3.4", 0}, {"~1.2", "1.2.4", 1}, {"~1.2", "1.3.4", 0},
        {"~1", "1.2.4", 1}, {"~1", "2.3.4", 0}, {"~0.2.3", "0.2.5", 1}, {"~0.2.3", "0.3.5", 0},
        {"~1.2.3-beta.2", "1.2.3-beta.4", 1}, {"~1.2.3-beta.2", "1.2.4-beta.2", 1}, {"~1.2.3-beta.2", "1.3.4-beta.2", 0},
        {"~*", "2.1.1", 1}, {"~2", "2.1.1", 1}, {"~2.x", "2.1.1", 1}, {"~0.0.0", "1.0.0", 1},
        {"^1.2.3", "1.8.9", 1}, {"^1.2.3", "2.8.9", 0}, {"^1.2.3", "1.2.1", 0}, {"^1.1.0", "2.1.0", 0},
        {"^1.2.0", "2.2.1", 0}, {"^1.2.0", "1.2.1-alpha.1", 0}, {"^1.2.0-alpha.0", "1.2.1-alpha.1", 1},
        {"^1.2.0-alpha.0", "1.2.1-alpha.0", 1}, {"^1.2.0-alpha.2", "1.2.0-alpha.1", 0}, {"^1.2", "1.8.9", 1},
        {"^1.2", "2.8.9", 0}, {"^1", "1.8.9", 1}, {"^1", "2.8.9", 0}, {"^1.x", "1.1.1", 1}, {"^2.x", "1.1.1", 0},
        {"^1.x", "2.1.1", 0}, {"^0.2.3", "0.2.5", 1}, {"^0.2.3", "0.5.6", 0}, {"^0.2", "0.2.5", 1},
        {"^0.2", "0.5.6", 0}, {"^0.0.3", "0.0.3", 1}, {"^0.0.3", "0.0.4", 0}, {"^0.0", "0.0.3", 1},
        {"^0.0", "0.1.4", 0}, {"^0", "0.2.3", 1}, {"^0", "1.1.4", 0}, {"^0.2.3-beta.2", "0.2.3-beta.4", 1},
        {"^0.2.3-beta.2", "0.2.4-beta.2", 1}, {"^0.2.3-beta.2", "0.3.4-beta.2", 0}, {"*", "1.2.3", 1},
        {"*", "1.2.3-alpha", 0}, {"x", "4.0.0", 1}, {"2.*", "2.9.0", 1}, {"2.*", "3.0.0", 0},
        /* "and" groups, "or", hyphen ranges */
        {">=1.1 <2", "1.5.0", 1}, {">=1.1, <2", "2.0.0", 0}, {">1.1 <2", "1.1.1", 0}, {"1.1 - 2", "2.0.0", 1},
        {"1.1 - 2", "2.3.0", 1}, {"1.1 - 2.0", "2.1.0", 0}, {"1.2.3 - 2.3.4", "2.3.4", 1}, {"1.2.3 - 2.3.4", "2.3.5", 0},
        {"<1 || >=2", "1.5.0", 0}, {"<1 || >=2", "2.0.0", 1}, {">=1.0.0-0 <2 || >3", "1.1.0-rc.1", 1},
        {">=1.0.0 <2 || >3-0", "1.1.0-rc.1", 0}, {"~1.2.x", "1.2.7", 1}, {"=v1.2.3", "v1.2.3", 1},
        {">= 1.2, < 2", "1.9.9", 1}, {">= 1.2 ,<2", "1.9.9", 1},
    };
    for (size_t i = 0; i < N(cases); i++) {
        int got = flux_semver_check(cases[i].c, cases[i].v);
        if (got != cases[i].want)
            fprintf(stderr, "constraint %s version %s: got %d\n", cases[i].c, cases[i].v, got);
        CHECK(got == cases[i].want);
    }
}

TEST(flux_semver_constraints_refused)
{
    CHECK(!flux_semver_constraint_problem(">=1.0.0"));
    CHECK(!flux_semver_constraint_problem("~ 1.2"));
    CHECK(flux_semver_constraint_problem(""));
    CHECK(flux_semver_constraint_problem("1.2.3.4"));
    CHECK(flux_semver_constraint_problem(">=1.0.0,"));
    CHECK(flux_semver_constraint_problem("1.0 ||"));
    CHECK(flux_semver_constraint_problem(">1.0 - 2.0"));
    CHECK(flux_semver_constraint_problem("1x"));
    CHECK(flux_semver_constraint_problem(">=1.0.0 foo"));
    CHECK(flux_semver_constraint_problem("latest"));
    CHECK(flux_semver_constraint_problem(">=1.|"));
    CHECK(flux_semver_check("nope", "1.0.0") == -1);
    CHECK(flux_semver_check(">=1", "1.0") == -1);
}

TEST(flux_semver_pick_as_source_controller)
{
    /* the registry's order is lexical; the pick is by precedence */
    const char *tags[] = {"1.0.0", "1.10.0", "1.2.0", "1.9.0-rc.1", "2.0.0-rc.1", "latest", "sha-abc123", "v1.3.0"};
    CHECK(flux_semver_pick(">=1.0.0", tags, N(tags)) == 1);
    CHECK(flux_semver_pick("<1.5", tags, N(tags)) == 7);  /* v1.3.0: a v prefix is a version */
    CHECK(flux_semver_pick("1.2.x", tags, N(tags)) == 2);
    CHECK(flux_semver_pick("*", tags, N(tags)) == 1);     /* prereleases left out */
    CHECK(flux_semver_pick(">=1.0.0-0", tags, N(tags)) == 4); /* ... unless the constraint names one */
    CHECK(flux_semver_pick("~1.9.0-0", tags, N(tags)) == 3);
    CHECK(flux_semver_pick(">=3", tags, N(tags)) == -1);
    CHECK(flux_semver_pick("not a constraint", tags, N(tags)) == -2);
    CHECK(flux_semver_pick(">=1", tags, 0) == -1);
    /* prerelease precedence: numbers below text, numbers by value, a longer list above its prefix */
    const char *pre[] = {"1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta.11", "1.0.0-beta.2", "1.0.0-rc.1"};
    CHECK(flux_semver_pick(">=1.0.0-alpha", pre, N(pre)) == 5);
    CHECK(flux_semver_pick("<1.0.0-beta.3", pre, 5) == 4);
    CHECK(flux_semver_pick("<1.0.0-alpha.beta", pre, N(pre)) == 1);
    /* equal versions: the first listed */
    const char *twins[] = {"1.0.0", "v1.0.0"}, *twins2[] = {"v1.0.0", "1.0.0"};
    CHECK(flux_semver_pick("1.x", twins, 2) == 0);
    CHECK(flux_semver_pick("1.x", twins2, 2) == 0);
    /* helm writes '+' as '_' in tags; source-controller does not read them as versions */
    const char *built[] = {"1.0.0", "1.1.0_build.5"};
    CHECK(flux_semver_pick(">=1", built, 2) == 0);
}
