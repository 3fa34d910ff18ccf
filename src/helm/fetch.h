/* What helm fetches for a render: a chart from the chart repository or OCI registry a package names, and a chart's
 * dependencies (`helm dependency build`, as Argo CD's Helm source does). The package is untrusted: every repository
 * URL it writes is checked before helm sees it, and what only the operator may add (credentials, plain-HTTP
 * registries) reaches helm through files and fixed flags, never through anything the package wrote. */
#ifndef CMP_FUNCTIONS_HELM_FETCH_H
#define CMP_FUNCTIONS_HELM_FETCH_H
#include <stdbool.h>

#include "engine/engine.h"

/* helm's own environment for every helm child: private config, cache and data directories in scratch, and an
 * empty plugins directory (no operator's or package's helm setup is ever read). NULL when scratch cannot be made. */
const char *const *helm_environment(const char *tmpdir);

/* A repository URL the package wrote, as field (for the message): an https://, http:// or oci:// URL of printable
 * ASCII without spaces, with a host, and without user info, query or fragment (credentials go in the operator's
 * CMP_HELM_CREDENTIALS_DIR). 0, or -1 with engine_fail; the URL itself is never repeated. */
int helm_check_repo_url(const engine_ctx *c, const node *at, const char *field, const char *url);

/* Pulls chart name (at version, when not NULL) from repo, an http(s) chart repository or an oci:// registry, into
 * scratch, with the operator's credentials for that repository, then checks the archive like a local chart
 * (helm_confine.h). Its path, or NULL with engine_fail. */
const char *helm_pull(const engine_ctx *c, const char *helm, const node *at, const char *repo, const char *name,
                      const char *version);

/* helm_pull, and for an oci:// chart the manifest digest helm reports ("sha256:<hex>") in *digest (NULL for a chart
 * repository, or when helm reports none). For oci, name may end in ":<tag>" or "@sha256:<hex>". */
const char *helm_pull_digest(const engine_ctx *c, const char *helm, const node *at, const char *repo, const char *name,
                             const char *version, const char **digest);

/* What a client other than helm needs to reach the registry of oci_url as helm pull reaches it: the operator's
 * registry config.json in *registry_config (NULL when none), and 1 when the operator serves that registry over plain
 * HTTP (CMP_HELM_PLAIN_HTTP_REGISTRIES), else 0; -1 with fn_fail when the operator's settings break their rules. */
int helm_registry_access(const engine_ctx *c, const node *at, const char *oci_url, const char **registry_config);

/* The local chart at chart_dir (inside the repository) checked (helm_confine.h), then its dependencies built when
 * charts/ lacks what the lock file (or, without one, Chart.yaml or requirements.yaml) lists: the repositories they
 * name (http(s) URLs, oci:// registries, @alias / alias:name names the operator defines) are set up for helm, helm
 * dependency build runs, and the chart is checked again with what it fetched. helm may be NULL: it is looked up
 * only when something has to be built. 0, or -1 with engine_fail. */
int helm_dependency_build(const engine_ctx *c, const char *helm, const char *chart_dir, const node *at);

/* Does the chart at dir declare dependencies (Chart.yaml's list, requirements.yaml or a lock file)? For
 * `cmp-generate init`, which builds only those. Reads only files that resolve inside the repository. */
bool helm_chart_has_dependencies(const engine_ctx *c, const char *dir);
#endif
