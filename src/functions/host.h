/* What the sidecar provides to functions that run real tools: which binaries, where scratch space goes, how long a
 * child may run, and the Application's identity as Argo CD sent it. Read once from the environment at the start of
 * a run (settings/host.c) and handed to functions through their context, so no function reads the environment and a
 * package can never change any of it. */
#ifndef CMP_FUNCTIONS_HOST_H
#define CMP_FUNCTIONS_HOST_H
#include <stdbool.h>
#include <stddef.h>

#include "util/limits.h"

typedef struct fn_host {
    /* operator settings (the sidecar's environment) */
    /* the operator's limits (settings/host.h host_limits); NULL in a host made by hand: the defaults (fn_limits) */
    const limits *limits;
    const char *helm_bin, *kustomize_bin, *kubectl_bin; /* HELM_BIN, ...: NULL when unset (look on path) */
    const char *path;                                   /* PATH, where tools are looked up */
    const char *tmpdir;                                 /* TMPDIR, or /tmp */
    int child_timeout_ms;                               /* CMP_CHILD_TIMEOUT */
    const char *kube_version, *kube_api_versions;       /* KUBE_VERSION, KUBE_API_VERSIONS (Argo CD sets them) */
    /* CMP_SKIP_VALIDATORS (argocd/settings.h): validators that are not built in and that the operator lets a render
     * skip with a warning; NULL: none (each one is an error) */
    const char *skip_validators;
    const char *health_kinds; /* CMP_GENERATE_HEALTH_KINDS: group/Kind,... Argo CD can assess (ordering warnings) */
    /* CMP_KUBE_OPENAPI_DIR, else the directory the project ships (settings/host.c): the Kubernetes OpenAPI documents
     * (swagger-v1.<minor>.json.gz) kubeconform and kubeval validate against; NULL when there is none */
    const char *kube_openapi_dir;
    /* The repository that holds the package (realpath): nothing a package names may be read outside it. Under
     * Argo CD, the package directory minus ARGOCD_APP_SOURCE_PATH; elsewhere the nearest directory above it with a
     * .git; else the package directory itself. NULL until host_find_repo_root. */
    const char *repo_root;
    /* the Application (Argo CD's variables) */
    const char *app_name, *app_namespace;               /* ARGOCD_APP_NAME, ARGOCD_APP_NAMESPACE: NULL when unset */
    /* the Application's parameters that reach tools */
    const char *helm_values;                            /* the helm-values parameter: YAML text, NULL when unset */
    /* Argo CD's Helm source fields as Application parameters, for every chart (settings/settings.h): the value files
     * (NULL-terminated real paths inside the repository, or URLs the operator allows; NULL when none), the
     * helm-parameters map as one YAML values document, the release name for steps that name none, switches. */
    const char *app_dir; /* the Application's directory (realpath); NULL until host_find_repo_root */
    const char *const *helm_value_files;
    bool helm_ignore_missing_value_files;
    const char *helm_parameters;
    const char *helm_release_name;
    bool helm_skip_crds, helm_skip_tests, helm_skip_schema_validation;
    /* helm-verify-prov: every chart helm pulls must carry a Helm provenance file that verifies against the
     * operator's keyring (CMP_HELM_KEYRING, a legacy binary OpenPGP keyring; NULL when unset) */
    bool helm_verify_prov;
    const char *helm_keyring;
    /* CMP_COSIGN_BIN: the operator's cosign, which checks the signatures Flux's `verify` asks for; CMP_COSIGN_KEYS_DIR:
     * <dir>/<secretRef name>/ holds the .pub files, the public keys a `verify.secretRef` names (NULL when unset) */
    const char *cosign_bin, *cosign_keys_dir;
    /* CMP_NOTATION_BIN: the operator's notation, for a `verify` with provider notation; CMP_NOTATION_CONFIG_DIR:
     * <dir>/<secretRef name>/ is notation's XDG_CONFIG_HOME (notation/trustpolicy.oci.json and notation/truststore/),
     * the trust policy and certificates a `verify.secretRef` names (NULL when unset) */
    const char *notation_bin, *notation_config_dir;
    /* CMP_SKOPEO_BIN: the skopeo that reads an OCI chart's manifest for its org.opencontainers.image.* annotations
     * and a registry's tag list for an OCIRepository's ref.semver (NULL: looked up on PATH; without one those
     * annotations are left out, with a warning, and helm resolves ref.semver) */
    const char *skopeo_bin;
    /* CMP_HELM_CHART_CACHE: the operator's directory where charts pinned by a flux-lock are kept by digest, so a
     * re-render needs no network (src/flux/chart_cache.c); NULL: no cache */
    const char *helm_chart_cache;
    /* kustomize: what the operator lets a package's kustomizations do (a package can only ask for less) */
    int kustomize_enable_helm;             /* CMP_KUSTOMIZE_ENABLE_HELM: 1 "true", 0 "false" or unset, -1 other */
    const char *kustomize_load_restrictor; /* CMP_KUSTOMIZE_LOAD_RESTRICTOR: LoadRestrictionsRootOnly unless set */
    int allow_remote_sources;              /* CMP_ALLOW_REMOTE_SOURCES: URL bases/resources; 1, 0 or -1 as above */
    /* helm */
    bool allow_remote_values; /* CMP_ALLOW_REMOTE_VALUES=true: valuesFiles may be http(s) URLs that helm fetches */
    size_t max_chart_files;   /* CMP_MAX_CHART_FILES: entries in a local chart and its file:// dependencies */
    size_t max_chart_bytes;   /* CMP_MAX_CHART_BYTES: bytes of their files (both checked by host_limits_from_env) */
    /* starlark: CMP_STARLARK_MAX_STEPS, _MAX_MEMORY_MB, _MAX_DEPTH, _MAX_LEN (0 in a host made by hand: defaults) */
    size_t starlark_max_steps, starlark_max_memory_mb, starlark_max_depth, starlark_max_len;
    /* CMP_HELM_CREDENTIALS_DIR: a directory (a mounted Secret) with helm's repositories.yaml (credentials per chart
     * repository URL, and the names @alias dependencies use) and/or a registry config.json; NULL when unset. Only
     * helm reads the secrets in it, through files: they never reach an argument, a message or the package. */
    const char *helm_credentials_dir;
    /* CMP_HELM_PLAIN_HTTP_REGISTRIES: "host[:port],..." registries served over plain HTTP (helm's --plain-http);
     * checked where it is used, NULL when unset */
    const char *helm_plain_http_registries;
    /* argocd */
    /* Helm's default release name: ARGOCD_APP_NAME after its first '_'. For an Application outside the control-plane
     * namespace Argo CD sends "<namespace>_<name>", which helm refuses as a release name; Argo CD's own Helm source
     * keeps the part after the '_' (util/argo ParseInstanceName). NULL when ARGOCD_APP_NAME is unset. */
    const char *release_name;
    /* children */
    /* The sidecar variables every child gets, NAME=value, NULL-terminated: PATH, proxies, locale, TZ, CA bundles,
     * and the names the operator lists in CMP_CHILD_ENV. Nothing else of our environment reaches a child. */
    const char *const *child_env;
    /* CMP_CHILD_MAX_MEMORY_MB, when the operator set it (0: no limit). Unset (child_memory_shared), a child gets
     * 3/4 of what the render's memory budget has free when it starts, at most CHILD_MEMORY_MAX_SHARE_MB, held from
     * the budget while it runs (engine/run.c): the render and its child together stay within the budget. */
    long child_max_memory_mb;
    bool child_memory_shared;
    long child_max_cpu_seconds;       /* CMP_CHILD_MAX_CPU_SECONDS (default 60; 0: no limit) */
    long child_max_file_mb;           /* CMP_CHILD_MAX_FILE_MB (default 256; 0: no limit) */
    long child_max_procs;             /* CMP_CHILD_MAX_PROCS (default 0: no limit) */
    const char *child_settings_error; /* a CMP_CHILD_* value that does not parse: the error when a child would run */
} fn_host;
#endif
