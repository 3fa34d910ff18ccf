/* What the kustomization walk and the helm guard accept, value by value: kustomize's remote forms and helm's
 * argument values. (The attacks themselves, with the real kustomize and helm: tests/security/cases/kustomize-*.) */
#include "check.h"
#include "kustomize/walk.h"
#include "kustomize/helm_guard.h"

TEST(kustomize_ref_kinds)
{
    CHECK(kust_ref_kind("../base") == KUST_LOCAL);
    CHECK(kust_ref_kind("deployment.yaml") == KUST_LOCAL);
    CHECK(kust_ref_kind("overlays/prod") == KUST_LOCAL);
    CHECK(kust_ref_kind("nginx@1.25.yaml") == KUST_LOCAL);
    CHECK(kust_ref_kind("git@github.com/org/repo") == KUST_REMOTE);
    CHECK(kust_ref_kind("https://github.com/org/repo//deploy?ref=v1") == KUST_REMOTE);
    CHECK(kust_ref_kind("HTTP://10.0.0.1/x.yaml") == KUST_REMOTE);
    CHECK(kust_ref_kind("github.com/org/repo/deploy?ref=v1") == KUST_REMOTE);
    CHECK(kust_ref_kind("GitHub.com:org/repo") == KUST_REMOTE);
    CHECK(kust_ref_kind("git@gitlab.example.com:org/repo.git") == KUST_REMOTE);
    CHECK(kust_ref_kind("ssh://git@host/org/repo") == KUST_REMOTE);
    CHECK(kust_ref_kind("git::https://host/org/repo") == KUST_REMOTE);
    CHECK(kust_ref_kind("gitlab.com/org/repo//dir?ref=x") == KUST_REMOTE);
    CHECK(kust_ref_kind("file:///srv/other") == KUST_REMOTE_FILE);
    CHECK(kust_ref_kind("FILE:///srv/other") == KUST_REMOTE_FILE);
    CHECK(kust_ref_kind("git::file:///srv/other") == KUST_REMOTE_FILE);
}

TEST(helm_argument_rules)
{
    CHECK(!helm_release_name_rule("web"));
    CHECK(!helm_release_name_rule("web-1.prod"));
    CHECK(helm_release_name_rule("--post-renderer=/bin/sh"));
    CHECK(helm_release_name_rule("Web"));
    CHECK(helm_release_name_rule(""));
    CHECK(helm_release_name_rule("a234567890123456789012345678901234567890123456789012345")); /* 55 */
    CHECK(!helm_namespace_rule("shop"));
    CHECK(helm_namespace_rule("--set-file=x=/etc/passwd"));
    CHECK(helm_namespace_rule("a.b"));
    CHECK(!helm_chart_name_rule("ingress-nginx"));
    CHECK(!helm_chart_name_rule("my_chart.v2"));
    CHECK(helm_chart_name_rule("../../etc"));
    CHECK(helm_chart_name_rule("a/b"));
    CHECK(helm_chart_name_rule("-x"));
    CHECK(!helm_version_rule("1.2.3"));
    CHECK(!helm_version_rule(">=1.0.0, <2.0.0"));
    CHECK(!helm_version_rule("v1.0.0-rc.1+build"));
    CHECK(helm_version_rule("--devel"));
    CHECK(helm_version_rule("1.0;rm"));
    CHECK(!helm_repo_rule("https://charts.example.com/stable"));
    CHECK(!helm_repo_rule("oci://registry.example.com/charts"));
    CHECK(helm_repo_rule("file:///etc"));
    CHECK(helm_repo_rule("https://"));
    CHECK(helm_repo_rule("https://x y"));
    CHECK(helm_repo_rule("--repo"));
    CHECK(!helm_api_version_rule("monitoring.coreos.com/v1/ServiceMonitor"));
    CHECK(helm_api_version_rule("--post-renderer=x"));
    CHECK(!helm_kube_version_rule("1.29"));
    CHECK(!helm_kube_version_rule("v1.29.3"));
    CHECK(!helm_kube_version_rule("v1.29.3-gke.100"));
    CHECK(helm_kube_version_rule("v1.29.3.4"));
    CHECK(helm_kube_version_rule("--x"));
    CHECK(helm_kube_version_rule("1.2-"));
}
