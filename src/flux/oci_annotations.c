/* The org.opencontainers.image.* annotations of an OCI chart for the traceability annotations (internal.h
 * flux_oci_annotations). helm shows none of them, so the manifest is read with skopeo, by the digest helm pulled.
 * skopeo is the operator's choice: CMP_SKOPEO_BIN, else skopeo on PATH. Without one the annotations are left out
 * and one warning per render says so, rather than failing the render: they are metadata about where the chart came
 * from, not objects Argo CD would prune, and the chart itself is already pinned by /chart-digest. A skopeo that
 * runs and fails (the registry refuses it, the manifest is not the one helm pulled) fails the render: never a
 * half-read manifest's annotations. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "flux/internal.h"
#include "functions/tools/external.h"
#include "helm/manifest.h"
#include "util/child.h"
#include "util/diag.h"

void flux_warn(struct fn_ctx *c, const node *at, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int l = at && node_line(at) ? (int)node_line(at) : c->config_line;
    const char *file = c->config_file ? c->config_file : "functionConfig", *step = diag_step();
    char where[64] = "";
    if (l > 0)
        snprintf(where, sizeof where, ":%d", l);
    diag_warn("%s%s: %s%s%s", file, where, step && *step ? step : "", step && *step ? ": " : "", msg);
}

/* A chart's manifest is a few hundred bytes (a config, one or two layers, a dozen annotations); the OCI spec lets
 * registries refuse manifests over 4 MiB. */
#define MAX_MANIFEST (256 * 1024)

int flux_oci_annotations(struct fn_ctx *c, const node *at, const char *who, const char *repo, const char *chart,
                         const char *digest, const char *tgz_hex, const char **manifest, size_t *len, bool *warned,
                         flux_oci_meta *m)
{
    memset(m, 0, sizeof *m);
    const fn_host *h = c->host;
    if (!*manifest) {
        const char *skopeo = find_tool(h->skopeo_bin, h->path, "skopeo");
        if (!skopeo && h->skopeo_bin)
            return fn_fail(c, at, "%s: CMP_SKOPEO_BIN on the sidecar is not an executable file", who);
        if (!skopeo) {
            if (!*warned)
                flux_warn(c, at, "%s: skopeo is not installed (not on PATH; the operator may set "
                                        "CMP_SKOPEO_BIN), so OCI charts' org.opencontainers.image annotations are not "
                                        "stamped (and OCI charts are not kept in CMP_HELM_CHART_CACHE)",
                            who);
            *warned = true;
            return 0;
        }
        skopeo = arena_strdup(c->a, skopeo);
        buf out = {0};
        int rc = helm_oci_manifest(fn_engine(c), at, skopeo, repo, chart, digest, MAX_MANIFEST, &out);
        if (rc == HELM_MANIFEST_NOT_A_REGISTRY_HOST) {
            flux_warn(c, at,
                      "%s: the OCI chart's org.opencontainers.image annotations are not stamped: its registry host has "
                      "no '.' or port, which skopeo would read as a Docker Hub path",
                      who);
            buf_free(&out);
            return 0;
        }
        if (rc == 0) {
            *len = out.len;
            *manifest = arena_strndup(c->a, out.data ? out.data : "", out.len);
        }
        buf_free(&out);
        if (rc < 0)
            return -1;
    }
    const char *why = flux_oci_manifest(c->a, c->st, limits_yaml(fn_limits(c)), *manifest, *len, digest, m);
    if (why)
        return fn_fail(c, at, "%s: the OCI chart's manifest %s: %s", who, digest, why);
    if (strcmp(m->chart_layer + 7, tgz_hex))
        return fn_fail(c, at, "%s: the OCI chart's manifest %s names chart layer %s, not the archive helm pulled "
                              "(sha256:%s)",
                       who, digest, m->chart_layer, tgz_hex);
    return 0;
}
