/* What kustomize may ask of helm. kustomize turns a kustomization's helmCharts fields into helm's command line
 * (releaseName is a positional argument, so "--post-renderer=/bin/sh" there becomes a flag), and a package can reach
 * that code through fields we never parse (inline generator configs, the legacy helmChartInflationGenerator).
 * So kustomize-build names our own binary as kustomize's --helm-command: run with the HELM_GUARD_* variables set, it
 * checks every argument against the only command lines kustomize builds, then execs the real helm. The rules below
 * are also used by the kustomization walk, which refuses the same values earlier with the file and line. */
#ifndef CMP_FUNCTIONS_KUSTOMIZE_HELM_GUARD_H
#define CMP_FUNCTIONS_KUSTOMIZE_HELM_GUARD_H

/* Set by kustomize-build for the kustomize child; their presence makes cmp-generate the guard. They are internal,
 * not operator settings (README leaves them out, and tests/readme keeps it so). No package author can set them:
 * Argo CD puts what an Application writes only under ARGOCD_ENV_, PARAM_ and ARGOCD_APP_ names; every other child
 * gets the sidecar's allow-list (settings/host.c), which leaves them out; the guard drops them before it execs helm.
 * An operator who set them on the sidecar would only turn every call into the guard, which refuses anything but
 * the helm commands kustomize builds. */
#define HELM_GUARD_HELM "CMP_HELM_GUARD_HELM" /* the real helm ("" when none was found) */
#define HELM_GUARD_ROOT "CMP_HELM_GUARD_ROOT" /* the repository root (realpath): charts and values stay inside */
#define HELM_GUARD_TMP "CMP_HELM_GUARD_TMP"   /* kustomize's TMPDIR (realpath): values copies, remote clones */
/* "FILES BYTES FILE_BYTES DEPTH ALIAS_NODES TOTAL_LEFT": the operator's max-chart-files, max-chart-bytes,
 * max-file-bytes, the loader's max depth and alias nodes, and what the render has left of max-total-bytes, so the
 * guard reads a chart within the limits the render has (each helm run of one kustomize build gets that rest anew) */
#define HELM_GUARD_LIMITS "CMP_HELM_GUARD_LIMITS"
/* Where the guard finds out why: kustomize wraps helm's stderr in its own, so the step reads this file instead. */
#define HELM_GUARD_REFUSAL "helm-guard-refused"

/* Each returns NULL when the value is one helm accepts for that argument, else the rule it breaks. */
const char *helm_release_name_rule(const char *s);
const char *helm_namespace_rule(const char *s);
const char *helm_chart_name_rule(const char *s);
const char *helm_version_rule(const char *s);
const char *helm_repo_rule(const char *s);
const char *helm_api_version_rule(const char *s);
const char *helm_kube_version_rule(const char *s);

/* The guard (argv as kustomize ran it; chart_limits: HELM_GUARD_LIMITS's value, NULL for the defaults). Execs helm, or
 * prints one line and returns 1. */
int helm_guard_main(int argc, char **argv, const char *helm, const char *root, const char *tmp, const char *chart_limits);
#endif
