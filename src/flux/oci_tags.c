/* An OCIRepository's ref.semver (and ref.semverFilter) resolved from the registry's tag list, as source-controller
 * does (internal.h flux_oci_semver_tag): skopeo lists the tags (helm/manifest.h helm_oci_tags: the operator's
 * registry access, no shell, the reference after "--"), the list is bounded, every tag is checked against the OCI
 * tag grammar before anything uses it, the filter keeps those it matches, and semver_pick.c picks. The tag list is
 * the registry's text, untrusted: a tag outside the grammar fails the render (a registry cannot hold one), and the
 * tag picked only ever becomes part of the reference helm pulls, after "--". */
#include <string.h>

#include "flux/internal.h"
#include "functions/tools/external.h"
#include "helm/manifest.h"
#include "util/child.h"
#include "util/diag.h"
#include "yaml/load.h"

/* The tag list's cap: about 40000 tags of 20 characters. A registry sends it whole (or in pages skopeo joins). */
#define MAX_TAG_LIST (1024 * 1024)

bool flux_oci_tag(const char *t, size_t n)
{
    if (!n || n > 128)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = t[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                  (i && (c == '.' || c == '-'));
        if (!ok)
            return false;
    }
    return true;
}

int flux_oci_semver_tag(struct fn_ctx *c, const node *at, const char *who, const char *repo, const char *chart,
                        const char *semver, const char *filter, const node *filter_at, const char **tag)
{
    const fn_host *h = c->host;
    *tag = NULL;
    const char *skopeo = find_tool(h->skopeo_bin, h->path, "skopeo");
    if (!skopeo && h->skopeo_bin)
        return fn_fail(c, at, "%s: CMP_SKOPEO_BIN on the sidecar is not an executable file", who);
    if (!skopeo)
        return 0;
    skopeo = arena_strdup(c->a, skopeo);
    buf out = {0};
    int rc = helm_oci_tags(fn_engine(c), at, skopeo, repo, chart, MAX_TAG_LIST, &out);
    if (rc) {
        buf_free(&out);
        return rc == HELM_MANIFEST_NOT_A_REGISTRY_HOST ? 0 : -1;
    }
    node *doc = NULL;
    diag_detail parse;
    int loaded = yaml_load_one_into(c->a, c->st, limits_yaml(fn_limits(c)), "tag list", out.data ? out.data : "",
                                    out.len, &doc, &parse);
    buf_free(&out);
    const node *list = loaded < 0 || !is_map(doc) ? NULL : map_get(doc, "Tags");
    if (loaded < 0 || !is_map(doc) || (list && !is_null(list) && !is_seq(list)))
        return fn_fail(c, at, "%s: skopeo list-tags of %s/%s did not give a tag list (a JSON object with Tags)", who,
                       repo, chart);
    uint32_t n = is_seq(list) ? node_len(list) : 0;
    const char **kept = arena_alloc(c->a, (n ? n : 1) * sizeof *kept);
    size_t nkept = 0;
    const limits *lim = fn_limits(c);
    seq_foreach(list, i, item)
    {
        const char *t = scalar(item);
        if (!t || node_style(item) != ST_DOUBLE || !flux_oci_tag(t, scalar_len(item)) ||
            strlen(t) != scalar_len(item))
            return fn_fail(c, at, "%s: the registry's tag list for %s/%s holds %s, which is not an OCI tag "
                                  "([A-Za-z0-9_][A-Za-z0-9._-]{0,127})",
                           who, repo, chart, t ? shown(c->a, t) : "a value that is not a string");
        if (filter && *filter) {
            int m = flux_semver_filter_match(lim, c->a, filter, t);
            if (m < 0)
                return fn_locate(c, filter_at, "%s: spec.ref.semverFilter", who);
            if (!m)
                continue;
        }
        kept[nkept++] = t;
    }
    long pick = flux_semver_pick(semver, kept, nkept);
    if (pick == -2)
        return fn_fail(c, at, "%s: spec.ref.semver %s %s", who, shown(c->a, semver),
                       flux_semver_constraint_problem(semver));
    if (pick < 0)
        return fn_fail(c, at, "%s: no tag of %s/%s%s satisfies spec.ref.semver %s (source-controller: no match found "
                              "for semver)",
                       who, repo, chart, filter && *filter ? " that spec.ref.semverFilter matches" : "",
                       shown(c->a, semver));
    *tag = kept[pick];
    return 1;
}
