/* CMP_SKIP_VALIDATORS: which validator names the operator's list skips. */
#include "check.h"
#include "functions/function.h"

/* a host whose operator set CMP_SKIP_VALIDATORS to list (NULL: unset) */
static const fn_host *host(const char *list)
{
    static fn_host h;
    h.skip_validators = list;
    return &h;
}

TEST(skip_validators_list_names)
{
    CHECK(fn_host_skips_validator(host("gatekeeper"), "gatekeeper"));
    CHECK(fn_host_skips_validator(host("kubeval, gatekeeper"), "gatekeeper"));
    CHECK(fn_host_skips_validator(host("kubeval gatekeeper,"), "gatekeeper"));
    CHECK(fn_host_skips_validator(host("*"), "policy-controller-validate"));
    CHECK(!fn_host_skips_validator(host("gatekeeper"), "gate"));
    CHECK(!fn_host_skips_validator(host("gate"), "gatekeeper"));
    CHECK(!fn_host_skips_validator(host("kubeval"), "kubeconform"));
    CHECK(!fn_host_skips_validator(host("**"), "kubeval"));
    CHECK(!fn_host_skips_validator(host(""), "kubeval"));
    CHECK(!fn_host_skips_validator(host(NULL), "kubeval"));
}
