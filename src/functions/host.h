/* What the sidecar provides to functions that run real tools: which binaries, where scratch space goes, how long a
 * child may run, and the Application's identity as Argo CD sent it. Read once from the environment at the start of
 * a run (argocd/host.c) and handed to functions through their context, so no function reads the environment and a
 * package can never change any of it. */
#ifndef CMP_FUNCTIONS_HOST_H
#define CMP_FUNCTIONS_HOST_H

typedef struct fn_host {
    /* operator settings (the sidecar's environment) */
    const char *helm_bin, *kustomize_bin, *kubectl_bin; /* HELM_BIN, ...: NULL when unset (look on path) */
    const char *path;                                   /* PATH, where tools are looked up */
    const char *tmpdir;                                 /* TMPDIR, or /tmp */
    int child_timeout_ms;                               /* CMP_CHILD_TIMEOUT */
    const char *kube_version, *kube_api_versions;       /* KUBE_VERSION, KUBE_API_VERSIONS (Argo CD sets them) */
    /* The repository that holds the package (realpath): nothing a package names may be read outside it. Under
     * Argo CD, the package directory minus ARGOCD_APP_SOURCE_PATH; elsewhere the nearest directory above it with a
     * .git; else the package directory itself. NULL until host_find_repo_root. */
    const char *repo_root;
    /* the Application (Argo CD's variables) */
    const char *app_name, *app_namespace;               /* ARGOCD_APP_NAME, ARGOCD_APP_NAMESPACE: NULL when unset */
    /* the Application's parameters that reach tools */
    const char *helm_values;                            /* the helm-values parameter: YAML text, NULL when unset */
    /* argocd */
    /* Helm's default release name: ARGOCD_APP_NAME after its first '_'. For an Application outside the control-plane
     * namespace Argo CD sends "<namespace>_<name>", which helm refuses as a release name; Argo CD's own Helm source
     * keeps the part after the '_' (util/argo ParseInstanceName). NULL when ARGOCD_APP_NAME is unset. */
    const char *release_name;
} fn_host;
#endif
