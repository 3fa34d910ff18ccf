/* One table of settings drives the code, the parameters announced to Argo CD and the README.
 * A setting is read from ARGOCD_APP_PARAMETERS (the structured form of the Application's plugin parameters), then
 * PARAM_<NAME> (Argo CD's escaping: upper case, anything else '_'), then ARGOCD_ENV_<NAME> (plugin env), then the
 * sidecar's own <NAME>, then its default. */
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
    const char *stamp;     /* "all", "none", or a comma list of app,app-namespace,project,revision,repo,target-revision,path */
    const char *namespace; /* NULL: none */
    node *labels, *annotations, *setters; /* maps of strings, NULL when unset */
    node *images;          /* sequence of strings, NULL when unset */
    const char *helm_values; /* YAML text, NULL when unset */
    int timeout_seconds;
} settings;

/* Reads every setting; errors name the parameter. */
int settings_load(arena *a, strtab *st, settings *out);
/* Announcements for Argo CD: the JSON array of static parameters, or the YAML list for plugin.yaml, or the README table. */
void settings_announce_json(buf *b);
void settings_announce_yaml(buf *b, int indent);
void settings_markdown(buf *b);
/* Is this stamp key enabled ("app", "revision", ...)? */
bool settings_stamps(const settings *s, const char *key);
#endif
