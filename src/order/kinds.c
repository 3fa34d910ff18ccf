/* Lookups over the kinds Kubernetes and Argo CD know: scope, health, and cli-utils' kind order. */
#include <stdlib.h>
#include <string.h>

#include "order/internal.h"

static int cmp_kind(const void *key, const void *elem)
{
    const builtin_kind *k = key, *e = elem;
    int c = strcmp(k->group, e->group);
    return c ? c : strcmp(k->kind, e->kind);
}

const builtin_kind *builtin_kind_find(const char *group, const char *kind)
{
    builtin_kind key = {group, kind, false};
    return bsearch(&key, builtin_kinds, builtin_kind_count, sizeof *builtin_kinds, cmp_kind);
}

/* Argo CD's health assessments (argo-cd v3.6): the built-in ones of gitops-engine pkg/health, then a part of the
 * Lua scripts under resource_customizations/ (group/Kind directories; "_." is a wildcard for every group ending
 * in what follows). Not the whole directory: an operator adds what their Argo CD knows with
 * CMP_GENERATE_HEALTH_KINDS; the cost of a kind missing here is a warning, never a different output. */
static const struct {
    const char *group, *kind; /* kind NULL: every kind of the group; group "_.x": any group ending in ".x" */
} health[] = {
    {"apps", "Deployment"}, {"apps", "StatefulSet"}, {"apps", "ReplicaSet"}, {"apps", "DaemonSet"},
    {"", "Service"}, {"", "PersistentVolumeClaim"}, {"", "Pod"}, {"batch", "Job"},
    {"autoscaling", "HorizontalPodAutoscaler"}, {"networking.k8s.io", "Ingress"}, {"extensions", "Ingress"},
    {"apiregistration.k8s.io", "APIService"}, {"argoproj.io", "Workflow"},
    {"apiextensions.k8s.io", "CustomResourceDefinition"},
    {"_.crossplane.io", NULL}, {"_.upbound.io", NULL}, {"_.cnrm.cloud.google.com", NULL},
    {"_.services.k8s.aws", NULL},
    {"argoproj.io", "ApplicationSet"}, {"argoproj.io", "Rollout"}, {"argoproj.io", "AnalysisRun"},
    {"argoproj.io", "Experiment"}, {"argoproj.io", "CronWorkflow"},
    {"kyverno.io", "Policy"},
    {"cert-manager.io", "Certificate"}, {"cert-manager.io", "Issuer"}, {"cert-manager.io", "ClusterIssuer"},
    {"cert-manager.io", "CertificateRequest"}, {"acme.cert-manager.io", "Challenge"}, {"acme.cert-manager.io", "Order"},
    {"external-secrets.io", "ExternalSecret"}, {"external-secrets.io", "SecretStore"},
    {"external-secrets.io", "ClusterSecretStore"}, {"bitnami.com", "SealedSecret"},
    {"helm.toolkit.fluxcd.io", "HelmRelease"}, {"kustomize.toolkit.fluxcd.io", "Kustomization"},
    {"source.toolkit.fluxcd.io", "GitRepository"}, {"source.toolkit.fluxcd.io", "HelmRepository"},
    {"source.toolkit.fluxcd.io", "HelmChart"}, {"source.toolkit.fluxcd.io", "OCIRepository"},
    {"source.toolkit.fluxcd.io", "Bucket"},
};

static bool group_matches(const char *pattern, const char *group)
{
    if (strncmp(pattern, "_.", 2))
        return !strcmp(pattern, group);
    size_t pl = strlen(pattern + 1), gl = strlen(group); /* ".crossplane.io" */
    return gl > pl && !strcmp(group + gl - pl, pattern + 1);
}

/* "group/Kind,..." (a core kind is "/Kind"); spaces around entries are ignored */
static bool in_list(const char *list, const char *group, const char *kind)
{
    size_t gl = strlen(group), kl = strlen(kind);
    for (const char *p = list; p && *p;) {
        size_t len = strcspn(p, ",");
        const char *s = p, *e = p + len;
        while (s < e && *s == ' ')
            s++;
        while (e > s && e[-1] == ' ')
            e--;
        if ((size_t)(e - s) == gl + 1 + kl && !strncmp(s, group, gl) && s[gl] == '/' && !strncmp(s + gl + 1, kind, kl))
            return true;
        p += len + (p[len] == ',');
    }
    return false;
}

bool health_known(const char *group, const char *kind, const char *extra)
{
    for (size_t i = 0; i < sizeof health / sizeof *health; i++)
        if (group_matches(health[i].group, group) && (!health[i].kind || !strcmp(health[i].kind, kind)))
            return true;
    return in_list(extra, group, kind);
}

static const char *const first_kinds[] = {
    "Namespace", "ResourceQuota", "StorageClass", "CustomResourceDefinition", "MutatingWebhookConfiguration",
    "ServiceAccount", "PodSecurityPolicy", "Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding", "ConfigMap",
    "Secret", "Service", "LimitRange", "PriorityClass", "Deployment", "StatefulSet", "CronJob",
    "PodDisruptionBudget",
};
enum { FIRST_KINDS = sizeof first_kinds / sizeof *first_kinds };

int kind_rank(const char *kind)
{
    for (int i = 0; i < FIRST_KINDS; i++)
        if (!strcmp(first_kinds[i], kind))
            return i;
    return strcmp(kind, "ValidatingWebhookConfiguration") ? FIRST_KINDS : FIRST_KINDS + 1;
}
