/* Which catalog release a step pins: image tags, exec names, the Kptfile's tag: field (exact or a semver
 * constraint), and exec command lines mapped to built-ins. */
#include "check.h"
#include "util/diag.h"
#include "functions/function.h"
#include "functions/version.h"

/* "v0.1.5", "latest", or "latest!" when a warning was given */
static const char *resolve(arena *a, const char *fn, const char *ref, const char *tag_field)
{
    fn_version v;
    const char *warning;
    fn_version_resolve(a, fn, ref ? fn_ref_tag(a, ref) : NULL, tag_field, &v, &warning);
    return arena_printf(a, "%s%s", fn_version_str(a, &v), warning ? "!" : "");
}

#define WANT(got, want)                                                                                              \
    do {                                                                                                             \
        const char *g_ = (got);                                                                                      \
        if (strcmp(g_, want))                                                                                        \
            test_fail(__FILE__, __LINE__, arena_printf(a, "got %s, want %s", g_, want));                             \
    } while (0)

TEST(version_from_image_tags)
{
    arena *a = arena_new();
    WANT(resolve(a, "set-labels", "gcr.io/kpt-fn/set-labels:v0.1.5", NULL), "v0.1.5");
    WANT(resolve(a, "set-labels", "ghcr.io/kptdev/krm-functions-catalog/set-labels:v0.2", NULL), "v0.2.5");
    WANT(resolve(a, "set-labels", "gcr.io/kpt-fn/set-labels:v0.1", NULL), "v0.1.5");
    WANT(resolve(a, "set-namespace", "gcr.io/kpt-fn/set-namespace:v0", NULL), "v0.4.5");
    WANT(resolve(a, "set-labels", "ghcr.io/kptdev/krm-functions-catalog/set-labels:latest", NULL), "latest");
    WANT(resolve(a, "set-labels", "gcr.io/kpt-fn/set-labels:unstable", NULL), "latest");
    WANT(resolve(a, "set-labels", "set-labels", NULL), "latest");
    WANT(resolve(a, "set-labels", "gcr.io/kpt-fn/set-labels@sha256:abcd", NULL), "latest");
    WANT(resolve(a, "set-labels", "ghcr.io/kptdev/krm-functions-catalog/set-labels:4ebecbe", NULL), "latest");
    WANT(resolve(a, "set-labels", "gcr.io/kpt-fn/set-labels:v0.1.5@sha256:abcd", NULL), "v0.1.5");
    /* unknown: the newest behaviour, with a warning */
    WANT(resolve(a, "set-labels", "gcr.io/kpt-fn/set-labels:v0.1.9", NULL), "latest!");
    WANT(resolve(a, "set-labels", "gcr.io/kpt-fn/set-labels:v3", NULL), "latest!");
    WANT(resolve(a, "set-labels", "gcr.io/kpt-fn/set-labels:stable", NULL), "latest!");
    /* not a catalog function: one behaviour, nothing to say */
    WANT(resolve(a, "kustomize-build", "kustomize-build:v9", NULL), "latest");
    arena_free(a);
}

TEST(version_from_exec_names)
{
    arena *a = arena_new();
    WANT(resolve(a, "set-labels", "set-labels-v0.1.5", NULL), "v0.1.5");
    WANT(resolve(a, "set-labels", "./bin/set-labels_v0.1", NULL), "v0.1.5");
    WANT(resolve(a, "set-labels", "./bin/set-labels", NULL), "latest");
    arena_free(a);
}

TEST(version_from_tag_field)
{
    arena *a = arena_new();
    /* tag: overrides the image's tag */
    WANT(resolve(a, "set-labels", "gcr.io/kpt-fn/set-labels:v0.2.0", "v0.1.5"), "v0.1.5");
    WANT(resolve(a, "set-labels", "set-labels", "~0.1"), "v0.1.5");
    WANT(resolve(a, "set-labels", "set-labels", "<0.2"), "v0.1.5");
    WANT(resolve(a, "set-labels", "set-labels", "~0.2"), "v0.2.5");
    WANT(resolve(a, "set-labels", "set-labels", "^0.1.3"), "v0.1.5");
    WANT(resolve(a, "set-labels", "set-labels", ">=0.1.3, <0.1.5"), "v0.1.4");
    WANT(resolve(a, "set-labels", "set-labels", ">= 0.1.3 < 0.1.5"), "v0.1.4");
    WANT(resolve(a, "set-labels", "set-labels", "0.1.2 - 0.1.4"), "v0.1.4");
    WANT(resolve(a, "set-labels", "set-labels", "<0.1.1 || ~0.2.1"), "v0.2.5");
    WANT(resolve(a, "set-labels", "set-labels", "0.1.x"), "v0.1.5");
    WANT(resolve(a, "set-labels", "set-labels", "<=0.1"), "v0.1.5");
    WANT(resolve(a, "set-labels", "set-labels", ">0.1"), "v0.2.5");
    WANT(resolve(a, "set-namespace", "set-namespace", "~0.3.2"), "v0.3.4");
    WANT(resolve(a, "set-namespace", "set-namespace", "^0.4.0"), "v0.4.5");
    WANT(resolve(a, "set-labels", "set-labels", "latest"), "latest");
    WANT(resolve(a, "set-labels", "set-labels", ">5"), "latest!");
    arena_free(a);
}

TEST(version_before)
{
    fn_version none = {0}, v015 = {true, 0, 1, 5, false}, v020 = {true, 0, 2, 0, false};
    CHECK(!fn_version_before(&none, 0, 2, 0));
    CHECK(fn_version_before(&v015, 0, 2, 0) && !fn_version_before(&v020, 0, 2, 0));
    CHECK(fn_version_before(&v015, 0, 1, 6) && !fn_version_before(&v015, 0, 1, 5));
}

/* What fn_exec_ref recorded with fail_here() (no step set here), and a fresh record for the next call. */
static const char *exec_refused(void)
{
    static char m[2048];
    snprintf(m, sizeof m, "%s", diag_failed() ? diag_message() : "(nothing recorded)");
    diag_reset();
    return m;
}

TEST(exec_commands_map_to_builtins)
{
    arena *a = arena_new();
    const char *r = fn_exec_ref(a, "/usr/local/bin/cmp-generate fn set-labels");
    CHECK(r && !strcmp(r, "set-labels"));
    r = fn_exec_ref(a, "\"/opt/my tools/cmp-generate\" fn gcr.io/kpt-fn/set-labels:v0.1.5");
    CHECK(r && !strcmp(r, "gcr.io/kpt-fn/set-labels:v0.1.5"));
    r = fn_exec_ref(a, "./bin/set-labels");
    CHECK(r && !strcmp(r, "./bin/set-labels"));
    r = fn_exec_ref(a, "set-labels-v0.1.5");
    CHECK(r && !strcmp(r, "set-labels-v0.1.5"));
    /* never a way to run something else */
    CHECK(!fn_exec_ref(a, "/bin/sh -c set-labels") && strstr(exec_refused(), "/bin/sh"));
    CHECK(!fn_exec_ref(a, "set-labels --output /etc/passwd") && strstr(exec_refused(), "arguments"));
    CHECK(!fn_exec_ref(a, "cmp-generate render .") && strstr(exec_refused(), "fn NAME"));
    CHECK(!fn_exec_ref(a, "cmp-generate fn gatekeeper") && strstr(exec_refused(), "gatekeeper"));
    CHECK(!fn_exec_ref(a, "cmp-generate fn 'set-labels") && strstr(exec_refused(), "quote"));
    CHECK(!fn_exec_ref(a, "   ") && strstr(exec_refused(), "exec \"   \" is empty; exec steps are never run"));
    CHECK(!diag_failed()); /* a command line that maps records nothing */
    CHECK(fn_exec_ref(a, "set-labels") && !diag_failed());
    arena_free(a);
}
