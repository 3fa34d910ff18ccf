/* What Argo CD tells a plugin about the Application, and how it lands on every object as annotations. */
#ifndef CMP_ARGOCD_METADATA_H
#define CMP_ARGOCD_METADATA_H
#include <stdbool.h>

#include "package/resource.h"
#include "settings/app_meta.h"

/* Drops what must not reach the cluster: local-config objects, Kptfiles, kustomization files, and configPath
 * objects unless keep_config. */
void drop_unapplied(rlist *items, bool keep_config);

/* Refuses an object Argo CD would not deploy as we print it: the repo-server reads any object whose top-level
 * items is a list as a List, whatever its kind, and deploys the items instead of it; one whose items is null,
 * with no spec or status, it drops. Lists the loader kept whole (R_LIST) are exempt: their items were checked. */
int check_argocd_reading(arena *a, const rlist *items);

/* Strips kpt's bookkeeping annotations and stamps <domain>/app, /app-namespace, /project, /revision,
 * /package-revision, /repo, /target-revision, /path; enabled(key) chooses which. A value that is not known
 * leaves its key out. */
void stamp_metadata(arena *a, rlist *items, const app_meta *m, const char *domain, bool (*enabled)(const void *, const char *),
                    const void *ud);
#endif
