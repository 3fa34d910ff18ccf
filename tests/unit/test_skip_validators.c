/* CMP_SKIP_VALIDATORS: which validator names the operator's list skips. */
#include "argocd/settings.h"
#include "check.h"

TEST(skip_validators_list_names)
{
    CHECK(settings_names_validator("gatekeeper", "gatekeeper"));
    CHECK(settings_names_validator("kubeval, gatekeeper", "gatekeeper"));
    CHECK(settings_names_validator("kubeval gatekeeper,", "gatekeeper"));
    CHECK(settings_names_validator("*", "policy-controller-validate"));
    CHECK(!settings_names_validator("gatekeeper", "gate"));
    CHECK(!settings_names_validator("gate", "gatekeeper"));
    CHECK(!settings_names_validator("kubeval", "kubeconform"));
    CHECK(!settings_names_validator("**", "kubeval"));
    CHECK(!settings_names_validator("", "kubeval"));
    CHECK(!settings_names_validator(NULL, "kubeval"));
}
