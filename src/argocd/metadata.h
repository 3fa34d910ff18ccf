/* What Argo CD tells a plugin about the Application, and how it lands on every object as annotations. */
#ifndef CMP_ARGOCD_METADATA_H
#define CMP_ARGOCD_METADATA_H
#include <stdbool.h>

#include "package/resource.h"

typedef struct app_meta {
    const char *name, *namespace, *project, *revision, *repo, *target_revision, *path;
} app_meta;

/* ARGOCD_APP_* from the environment; unset variables stay NULL. */
void app_meta_from_env(app_meta *m);
/* The annotation key prefix: ANNOTATION_DOMAIN, or ARGOCD_ENV_ANNOTATION_DOMAIN, else "cmp-generate". Validated. */
int annotation_domain(const char **out);

/* The last stage before emit: drops what must not reach the cluster (local-config objects, Kptfiles,
 * kustomization files, configPath files unless keep_config), strips kpt's bookkeeping annotations and stamps
 * <domain>/app, /app-namespace, /project, /revision, /repo, /target-revision, /path. */
void prepare_for_argocd(arena *a, rlist *items, const app_meta *m, const char *domain, bool keep_config);
#endif
