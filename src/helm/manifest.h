/* The manifest of an OCI chart, read from its registry by a real client (skopeo), for what helm does not show: the
 * manifest's org.opencontainers.image.* annotations. It is read by digest, so it is the manifest helm pulled, never
 * one a tag points at a moment later. */
#ifndef CMP_HELM_MANIFEST_H
#define CMP_HELM_MANIFEST_H
#include <stddef.h>

#include "engine/engine.h"
#include "util/buf.h"

/* skopeo inspect --raw of <registry>/<path>@<digest>, where repo is the checked oci:// URL helm pulled from, path
 * the chart's name under it and digest "sha256:<64 hex>": with the operator's registry config.json and plain-HTTP
 * registries as helm gets them, no shell, the reference built here and given after "--", the children's deadline and
 * environment. The raw manifest in out (at most max bytes). 0; HELM_MANIFEST_NOT_A_REGISTRY_HOST when skopeo cannot
 * be given this reference without it meaning another host (a registry host without '.', ':' or "localhost" is read by
 * skopeo as a Docker Hub path); -1 with engine_fail. */
#define HELM_MANIFEST_NOT_A_REGISTRY_HOST 1
int helm_oci_manifest(const engine_ctx *c, const node *at, const char *skopeo, const char *repo, const char *path,
                      const char *digest, size_t max, buf *out);
/* skopeo list-tags of <registry>/<path> (repo and path as for helm_oci_manifest, with the same access, no shell, the
 * reference after "--"): the registry's JSON ({"Repository": ..., "Tags": [...]}) in out, at most max bytes (more is
 * an error). 0; HELM_MANIFEST_NOT_A_REGISTRY_HOST; -1 with engine_fail. */
int helm_oci_tags(const engine_ctx *c, const node *at, const char *skopeo, const char *repo, const char *path,
                  size_t max, buf *out);
#endif
