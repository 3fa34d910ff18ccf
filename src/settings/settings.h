/* One table of settings drives the code, the parameters announced to Argo CD and the README.
 * A setting is read from ARGOCD_APP_PARAMETERS (the JSON Argo CD sends with every plugin parameter), then from the
 * variables Argo CD derives from it: PARAM_<NAME> for a string, PARAM_<NAME>_<i> for each item of an array,
 * PARAM_<NAME>_<KEY> for each entry of a map (NAME and KEY escaped as Argo CD does: upper case, anything outside
 * [A-Z0-9_] becomes '_'), then ARGOCD_ENV_<NAME> (plugin env), then the sidecar's own <NAME>, then its default.
 * A parameter the table does not know is reported and ignored: a stale parameter left on an Application must not
 * block its syncs. */
#ifndef CMP_ARGOCD_SETTINGS_H
#define CMP_ARGOCD_SETTINGS_H
#include <stdbool.h>

#include "util/buf.h"
#include "yaml/tree.h"

enum setting_kind { SETTING_STRING, SETTING_ARRAY, SETTING_MAP };

typedef struct setting_def {
    const char *name;
    enum setting_kind kind;
    const char *title;
    const char *tooltip;
    const char *def; /* default, for strings */
    bool per_package; /* announced by `parameters` with the package's own values, not in plugin.yaml */
} setting_def;

extern const setting_def setting_defs[];
extern const int setting_count;

typedef struct settings {
    const char *annotation_domain;
    const char *stamp;     /* "all", "none", or a comma list of stamp keys (see settings_stamps) */
    const char *namespace; /* NULL: none */
    node *labels, *annotations, *setters; /* maps of strings, NULL when unset */
    bool update_selectors; /* the labels parameter also sets selectors */
    /* The setters map came from PARAM_SETTERS_<KEY> alone, whose names keep only Argo CD's escaping of each key:
     * a key then names the setter whose escaped name it equals. */
    bool setters_escaped;
    node *images;          /* sequence of strings, NULL when unset */
    const char *helm_values; /* YAML text, NULL when unset or when it holds no values (only comments) */
    /* Argo CD's Helm source fields, for every chart (functions/host.h) */
    node *helm_value_files;        /* sequence of strings, NULL when unset */
    bool helm_ignore_missing_value_files;
    const char *helm_parameters;   /* the YAML values document made from the map; NULL when unset or empty */
    const char *helm_release_name; /* NULL: the default */
    bool helm_skip_crds, helm_skip_tests, helm_skip_schema_validation;
    bool helm_verify_prov; /* every pulled chart's provenance checked against CMP_HELM_KEYRING */
    int timeout_seconds;
    const char *ordering; /* auto, kpt or off (src/order/order.h) */
    const char *flux_helmrelease; /* keep (default), render or error: what becomes of Flux HelmReleases (src/flux) */
    const char *flux_lock;        /* a lock file of the package pinning each HelmRelease's chart, or NULL */
    bool kpt_attribution; /* kpt fn render's cnrm.cloud.google.com/blueprint annotation (kpt-disable-attribution) */
    /* what nobody reads, for one warning: 'unknown parameter "a"', 'unknown parameters "a", "b" and plugin env
     * "C"' (an ARGOCD_ENV_ entry no setting reads); NULL: none */
    const char *unknown;
} settings;

/* Operator settings: read from the sidecar's own environment only, never from an Application's parameters or plugin
 * env (ARGOCD_ENV_*), so a package's author cannot set them. Listed by `settings --markdown` and the README. */
typedef struct operator_def {
    const char *name; /* the variable */
    const char *def;  /* its default, as the table shows it */
    const char *what;
} operator_def;
extern const operator_def operator_defs[];
extern const int operator_count;
/* CMP_SKIP_VALIDATORS: names of validator functions that are not built in which a render skips with a warning
 * (comma- or space-separated; "*" for every one); NULL when unset or empty. */
const char *settings_skip_validators(void);
/* CMP_KUBE_OPENAPI_DIR: where the Kubernetes OpenAPI documents for kubeconform/kubeval are; NULL when unset. */
const char *settings_kube_openapi_dir(void);

/* Reads every setting; errors name the parameter. */
int settings_load(arena *a, strtab *st, settings *out);
/* One string setting alone, from the same sources in the same order (for modes that read no others, such as
 * render --in-place); *value is its default when nothing sets it. -1 on an error (or an unknown name). */
int settings_load_one(arena *a, strtab *st, const char *name, const char **value);
/* Announcements for Argo CD: the JSON array of static parameters, or the YAML list for plugin.yaml, or the README table. */
void settings_announce_json(buf *b);
/* One setting as the JSON object of an announcement (name, title, tooltip, collectionType, default). */
void settings_announce_one_json(buf *b, const setting_def *d);
void settings_announce_yaml(buf *b, int indent);
void settings_markdown(buf *b);
/* serve-params (src/params): the operator's environment of the ApplicationSet plugin-generator server, read here
 * like every CMP_* setting and documented by settings_markdown below the plugin's parameters. */
typedef struct params_settings {
    const char *token_file;    /* CMP_PARAMS_TOKEN_FILE: required */
    const char *allowed_repos; /* CMP_PARAMS_ALLOWED_REPOS: required, comma-separated URL prefixes */
    unsigned timeout_s;        /* CMP_PARAMS_TIMEOUT: a request's budget; past it, 503 */
    unsigned max_packages;     /* CMP_PARAMS_MAX_PACKAGES: packages one answer may list; past it, 500 */
    unsigned max_connections;  /* CMP_PARAMS_MAX_CONNECTIONS: open connections (each its own thread) */
    unsigned idle_timeout_s;   /* CMP_PARAMS_IDLE_TIMEOUT: a connection silent this long is closed */
    unsigned cache_s;          /* CMP_PARAMS_CACHE_SECONDS: how long a listing is kept */
} params_settings;
/* Reads CMP_PARAMS_*; an empty variable counts as unset. fail() naming the variable and its rule, and -1. */
int settings_params(params_settings *out);
/* Is this stamp key enabled? Keys: app, app-namespace, project, revision, package-revision, repo, target-revision,
 * path. The default leaves out revision and package-revision. */
bool settings_stamps(const settings *s, const char *key);
/* Argo CD's escaping of a parameter name or map key for its PARAM_ variables, after prefix. */
char *settings_escape(arena *a, const char *prefix, const char *name);
/* "annotation-domain, stamp, ...": every parameter name, for messages. */
const char *settings_names(arena *a);
#endif
