#include "argocd/host.h"

#include <stdlib.h>

/* An empty variable counts as unset, as a shell user expects of `HELM_BIN= cmd`. */
static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

void host_from_env(fn_host *h)
{
    h->helm_bin = env("HELM_BIN");
    h->kustomize_bin = env("KUSTOMIZE_BIN");
    h->kubectl_bin = env("KUBECTL_BIN");
    h->path = env("PATH");
    h->tmpdir = env("TMPDIR");
    if (!h->tmpdir)
        h->tmpdir = "/tmp";
    const char *t = env("CMP_CHILD_TIMEOUT");
    long s = t ? strtol(t, NULL, 10) : 30;
    if (s < 1 || s > 3600)
        s = 30;
    h->child_timeout_ms = (int)s * 1000;
    h->kube_version = env("KUBE_VERSION");
    h->kube_api_versions = env("KUBE_API_VERSIONS");
    h->app_name = env("ARGOCD_APP_NAME");
    h->app_namespace = env("ARGOCD_APP_NAMESPACE");
    h->helm_values = NULL;
}
