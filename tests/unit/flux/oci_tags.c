/* src/flux/oci_tags.c: a tag from the registry's list is used only when it is an OCI tag (the distribution spec's
 * [a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}): nothing else becomes part of the reference helm pulls. */
#include "check.h"
#include "flux/internal.h"

#define T(s) flux_oci_tag(s, strlen(s))

TEST(flux_oci_tag_grammar)
{
    CHECK(T("1.2.0"));
    CHECK(T("v1.2.0-rc.1"));
    CHECK(T("_x"));
    CHECK(T("1.0.0_build.5"));
    char max[129];
    memset(max, 'a', 128);
    max[128] = 0;
    CHECK(T(max));
    CHECK(!flux_oci_tag(max, 129));
    CHECK(!T(""));
    CHECK(!T("-rf"));
    CHECK(!T("--tls-verify=false"));
    CHECK(!T(".1"));
    CHECK(!T("1.0+build"));
    CHECK(!T("a/b"));
    CHECK(!T("a:b"));
    CHECK(!T("a@sha256"));
    CHECK(!T("a b"));
    CHECK(!T("tag\x1b[31m"));
    CHECK(!flux_oci_tag("a\0b", 3));
}
