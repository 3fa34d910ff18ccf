/* Reading an OCI chart's manifest with skopeo (helm/manifest.h). skopeo is Debian's client for registries; it reads
 * the docker config.json format helm's registry config uses (--authfile), and --tls-verify=false is what lets it
 * speak plain HTTP to a registry the operator lists (it also skips certificate checks, which a plain-HTTP registry
 * has none of), so it gets it for those registries and, as helm's registry client (containerd's resolver) falls back
 * to plain HTTP on its own for a loopback host, for those too. Nothing of the package becomes an option: the reference is made here from the URL helm_check_repo_url
 * accepted and a chart path checked below, after "--". */
#include "helm/manifest.h"

#include <string.h>

#include "engine/run.h"
#include "helm/fetch.h"
#include "util/diag.h"

/* A repository path as a Docker reference takes it: lower-case components of [a-z0-9] joined by '.', '_', '-'
 * (distribution's grammar, loosely: skopeo refuses what this lets through), separated by '/'. */
static bool reference_path(const char *p)
{
    if (!*p || *p == '/' || strlen(p) > 255)
        return false;
    for (const char *q = p; *q; q++) {
        bool alnum = (*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9');
        bool sep = *q == '.' || *q == '_' || *q == '-' || *q == '/';
        if (!alnum && !sep)
            return false;
        if (*q == '/' && (q[1] == '/' || !q[1]))
            return false;
    }
    return true;
}

/* Is the registry host[:port] (hl bytes) a loopback one: localhost, 127.x.x.x or [::1]? */
static bool loopback(const char *host, size_t hl)
{
    size_t h = hl;
    if (host[0] == '[') {
        const char *close = memchr(host, ']', hl);
        return close && (size_t)(close - host) == 4 && !strncmp(host, "[::1]", 5);
    }
    const char *colon = memchr(host, ':', hl);
    if (colon)
        h = (size_t)(colon - host);
    if (h == 9 && !strncmp(host, "localhost", 9))
        return true;
    if (h < 4 || strncmp(host, "127.", 4))
        return false;
    for (size_t i = 4; i < h; i++)
        if (!(host[i] >= '0' && host[i] <= '9') && host[i] != '.')
            return false;
    return true;
}

/* What skopeo is given for the repository path under repo (the checked oci:// URL): *ref "docker://host/path" and
 * the access options helm's own client would get (plain HTTP, the operator's registry config). 0;
 * HELM_MANIFEST_NOT_A_REGISTRY_HOST; -1 with engine_fail. */
static int skopeo_reference(const engine_ctx *c, const node *at, const char *repo, const char *path, const char **ref,
                            const char **tls, const char **creds)
{
    const char *host = repo + 6;
    size_t hl = strcspn(host, "/");
    /* a first component without '.' or ':' is a Docker Hub namespace to skopeo (docker.io/<it>/...), not a host */
    if (!memchr(host, '.', hl) && !memchr(host, ':', hl) && !(hl == 9 && !strncmp(host, "localhost", 9))) {
        return HELM_MANIFEST_NOT_A_REGISTRY_HOST;
    }
    const char *prefix = host[hl] ? host + hl + 1 : "";
    size_t pl = strlen(prefix);
    while (pl && prefix[pl - 1] == '/') /* oci://host/charts/ is oci://host/charts to helm */
        pl--;
    const char *full = pl ? arena_printf(c->a, "%.*s/%s", (int)pl, prefix, path) : path;
    if (!reference_path(full))
        return engine_fail(c, at, "the OCI chart's repository path \"%s\" is not a registry path (lower-case letters, "
                              "digits, '.', '_', '-' and '/')",
                       shown(c->a, full));
    const char *registry_config = NULL;
    int plain = helm_registry_access(c, at, repo, &registry_config);
    if (plain < 0)
        return -1;
    *tls = plain || loopback(host, hl) ? "--tls-verify=false" : "--tls-verify=true";
    *creds = registry_config ? arena_printf(c->a, "--authfile=%s", registry_config) : "--no-creds";
    *ref = arena_printf(c->a, "docker://%.*s/%s", (int)hl, host, full);
    return 0;
}

int helm_oci_manifest(const engine_ctx *c, const node *at, const char *skopeo, const char *repo, const char *path,
                      const char *digest, size_t max, buf *out)
{
    if (strncmp(repo, "oci://", 6) || strncmp(digest, "sha256:", 7) || strlen(digest) != 71 ||
        strspn(digest + 7, "0123456789abcdef") != 64)
        return engine_fail(c, at, "the OCI chart's manifest cannot be read: not an oci:// URL and a sha256 digest");
    const char *ref, *tls, *creds;
    int rc = skopeo_reference(c, at, repo, path, &ref, &tls, &creds);
    if (rc)
        return rc;
    const char *argv[] = {skopeo, "inspect", "--raw", tls, creds, "--", arena_printf(c->a, "%s@%s", ref, digest), NULL};
    child_fds none = {0};
    return engine_run_tool_stdout(c, arena_printf(c->a, "skopeo inspect of the OCI chart's manifest (%s)", digest),
                                  argv, NULL, NULL, &none, out, max);
}

int helm_oci_tags(const engine_ctx *c, const node *at, const char *skopeo, const char *repo, const char *path,
                  size_t max, buf *out)
{
    if (strncmp(repo, "oci://", 6))
        return engine_fail(c, at, "the OCI chart's tags cannot be listed: not an oci:// URL");
    const char *ref, *tls, *creds;
    int rc = skopeo_reference(c, at, repo, path, &ref, &tls, &creds);
    if (rc)
        return rc;
    const char *argv[] = {skopeo, "list-tags", tls, creds, "--", ref, NULL};
    child_fds none = {0};
    return engine_run_tool_stdout(c, arena_printf(c->a, "skopeo list-tags of the OCI chart's repository (%s, at most "
                                                        "%zu bytes)",
                                                  shown(c->a, ref + 9), max),
                                  argv, NULL, NULL, &none, out, max);
}
