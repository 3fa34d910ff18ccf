/* An OCI chart's manifest, as its registry served it to skopeo or as the chart cache kept it (internal.h
 * flux_oci_manifest): proven to be the manifest helm pulled (its SHA-256 is the digest helm reported or the lock
 * names), its chart layer found, and the org.opencontainers.image.* annotations the step stamps taken from it. The
 * chart's author wrote those annotations (helm push copies them from Chart.yaml), so each is checked as untrusted
 * text. */
#include <string.h>

#include "flux/internal.h"
#include "flux/sha256.h"
#include "util/diag.h"
#include "util/fsutil.h"
#include "yaml/load.h"

#define HELM_CHART_LAYER "application/vnd.cncf.helm.chart.content.v1.tar+gzip"
#define HELM_LEGACY_LAYER "application/tar+gzip" /* helm's chart layer before 3.7, still read by helm */
#define MAX_ANNOTATION 1024

static bool sha256_digest(const char *d)
{
    return d && !strncmp(d, "sha256:", 7) && strlen(d) == 71 && strspn(d + 7, "0123456789abcdef") == 64;
}

/* The annotation key's value, checked: NULL when absent, else printable text of at most MAX_ANNOTATION bytes. */
static const char *annotation(arena *a, const node *anns, const char *key, const char **out)
{
    const node *v = map_get(anns, key);
    *out = NULL;
    if (!v)
        return NULL;
    const char *s = scalar(v);
    if (!s || node_style(v) != ST_DOUBLE) /* JSON: a string is double-quoted */
        return arena_printf(a, "its annotation %s is not a string", key);
    size_t n = scalar_len(v);
    if (n > MAX_ANNOTATION)
        return arena_printf(a, "its annotation %s is longer than %d bytes", key, MAX_ANNOTATION);
    if (printable_check(s, n) != n)
        return arena_printf(a, "its annotation %s is not printable text: %s", key, shown(a, s));
    *out = n ? s : NULL;
    return NULL;
}

const char *flux_oci_manifest(arena *a, strtab *st, const load_limits *lim, const char *text, size_t len,
                              const char *digest, flux_oci_meta *m)
{
    memset(m, 0, sizeof *m);
    char hex[65];
    sha256_ctx c;
    sha256_init(&c);
    sha256_update(&c, text, len);
    sha256_hex(&c, hex);
    if (!sha256_digest(digest) || strcmp(digest + 7, hex))
        return arena_printf(a, "its SHA-256 is sha256:%s, not %s", hex, digest);
    node *doc = NULL;
    diag_detail parse;
    if (yaml_load_one_into(a, st, lim, "manifest", text, len, &doc, &parse) < 0 || !is_map(doc))
        return "it is not a JSON object";
    const node *layers = map_get(doc, "layers");
    seq_foreach(layers, i, l) { /* the first chart layer that has a digest */
        const char *type = path_str(l, "mediaType", NULL), *d = path_str(l, "digest", NULL);
        if (d && type && (!strcmp(type, HELM_CHART_LAYER) || !strcmp(type, HELM_LEGACY_LAYER))) {
            m->chart_layer = d;
            break;
        }
    }
    if (!sha256_digest(m->chart_layer))
        return "it has no chart layer with a sha256 digest";
    const node *anns = map_get(doc, "annotations");
    if (anns && !is_null(anns) && !is_map(anns))
        return "its annotations are not an object";
    const char *why = annotation(a, anns, "org.opencontainers.image.source", &m->source);
    if (!why)
        why = annotation(a, anns, "org.opencontainers.image.revision", &m->revision);
    if (!why)
        why = annotation(a, anns, "org.opencontainers.image.created", &m->created);
    return why;
}
