/* kpt fn render's attribution annotation value (pipeline/attribution.h): the cases of kpt's own attribution tests,
 * and the ones kpt 1.0.0-beta.56 was run on (tests/golden/kpt-attribution). */
#include "check.h"
#include "pipeline/attribution.h"

TEST(attribution_value_as_kpt_writes_it)
{
    arena *a = arena_new();
    CHECK_STR(attribution_value(a, NULL), "kpt-fn");
    CHECK_STR(attribution_value(a, ""), "kpt-fn");
    /* no "kpt-" in it: appended */
    CHECK_STR(attribution_value(a, "cnrm/landing-zone:networking/v0.4.0"), "cnrm/landing-zone:networking/v0.4.0,kpt-fn");
    CHECK_STR(attribution_value(a, "kpt"), "kpt,kpt-fn");
    /* a kpt part gets fn, keeping pkg and live */
    CHECK_STR(attribution_value(a, "kpt-pkg"), "kpt-pkg-fn");
    CHECK_STR(attribution_value(a, "kpt-pkg-fn-live"), "kpt-pkg-fn-live");
    CHECK_STR(attribution_value(a, "kpt-live"), "kpt-fn-live");
    CHECK_STR(attribution_value(a, "cnrm/landing-zone:networking/v0.4.0,kpt-pkg,blueprints_controller"),
              "cnrm/landing-zone:networking/v0.4.0,kpt-pkg-fn,blueprints_controller");
    /* kpt keeps one list of groups across the parts: a second kpt part carries the first one's groups */
    CHECK_STR(attribution_value(a, "a,kpt-live,b,xkpt-pkg"), "a,kpt-fn-live,b,kpt-fn-live-pkg-fn");
    arena_free(a);
}
