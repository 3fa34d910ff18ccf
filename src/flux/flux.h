/* Flux HelmReleases in a package (issue 30; spec §3): kept as they are, refused, or rendered into the manifests
 * helm-controller would install, with the chart fetched by the real helm through render-helm-chart's fetching
 * (functions/helm_fetch.h: the operator's credentials, the confinement of what helm reads) and templated by it. */
#ifndef CMP_FLUX_FLUX_H
#define CMP_FLUX_FLUX_H
#include "functions/function.h"

typedef struct flux_step {
    arena *a;
    strtab *st;
    const fn_host *host;
    fn_results *results;
    const char *mode;              /* the flux-helmrelease parameter: keep (NULL too), render, error */
    const char *annotation_domain; /* the prefix of the traceability annotations (<domain>/helmrelease, ...) */
    const char *lock;              /* the flux-lock parameter: a file of the package (relative to dir), or NULL */
    const char *dir;               /* the package's directory */
    /* the Application's repository URL, revision and target revision (ARGOCD_APP_SOURCE_REPO_URL, _REVISION,
     * _SOURCE_TARGET_REVISION, or git's view of a local checkout): what a GitRepository source must match to be
     * read from the checkout; NULL: not known */
    const char *app_repo, *app_revision, *app_target_revision;
} flux_step;

/* The modes the parameter takes, for settings: NULL when mode is one, else the rule it breaks. */
const char *flux_mode_rule(const char *mode);

/* Runs over the rendered objects after the package's pipeline (before the parameters' final steps): in render
 * mode, each HelmRelease is replaced by what its chart renders, and the source objects the rendered ones used are
 * removed. 0, or -1 with fail() naming the HelmRelease's file and line. */
int flux_helmreleases(const flux_step *s, rlist *items);

/* Does the list hold a Flux HelmRelease (of any apiVersion of helm.toolkit.fluxcd.io)? */
bool flux_is_helmrelease(const resource *r);
#endif
