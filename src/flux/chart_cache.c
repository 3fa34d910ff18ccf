/* The operator's chart cache behind flux-lock (internal.h flux_cache_get/put; spec 3.2: "offline when the cache is
 * warm"). CMP_HELM_CHART_CACHE names a directory of the sidecar (its writable tmp); unset, there is no cache. Only a
 * release the lock pins uses it, since only a lock says which bytes a render must get; a render without a lock
 * resolves versions and pulls every time.
 *
 * Layout: <cache>/<sha256 of "<repository URL>\n<chart>">/ (so a chart is found only under the URL it was pulled
 * from, as Flux keys its artifacts by source) holding, content-addressed:
 *   <hex>.tgz       a chart archive whose SHA-256 is hex;
 *   <hex>.manifest  an OCI chart's manifest whose SHA-256 is hex (the manifest digest an OCI lock names).
 * Entries are written under a fresh name and renamed into place (mode 0600 in 0700 directories), so a concurrent
 * render sees a whole entry or none, and two renders writing the same entry write the same bytes.
 *
 * A hit is re-verified on every read: the archive's SHA-256 is the lock's digest (a chart repository), or the
 * manifest's SHA-256 is the lock's digest and its chart layer's digest the archive's SHA-256 (OCI). The verified
 * bytes are copied into the render's scratch, and only that copy is read after (by the archive checks, then helm),
 * so nothing can change them between the check and the use. An entry that fails the check is an error naming the
 * cache, never used and never silently fetched again: the file no longer holds what was written under its name (a
 * disk fault, or someone who can write the sidecar's tmp), which the operator must look at; refetching would hide it,
 * and offline it would fail anyway.
 *
 * Nothing is evicted: an entry is a chart archive (and a manifest of a few hundred bytes) per locked version, and the
 * operator sizes the emptyDir or clears it (any file may be removed at any time; a missing one is fetched again). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flux/internal.h"
#include "flux/sha256.h"
#include "functions/tools/external.h"
#include "helm/confine.h"
#include "util/diag.h"
#include "util/fsutil.h"

#define MAX_MANIFEST (256 * 1024)

static const char *entry_dir(arena *a, const char *dir, const char *repo, const char *chart)
{
    char hex[65];
    sha256_ctx s;
    sha256_init(&s);
    sha256_update(&s, repo, strlen(repo));
    sha256_update(&s, "\n", 1);
    sha256_update(&s, chart, strlen(chart));
    sha256_hex(&s, hex);
    return arena_printf(a, "%s/%s", dir, hex);
}

/* The entry's bytes and their SHA-256 in hex: 1, 0 when there is no such file, -1 with fn_fail. */
static int read_entry(fn_ctx *c, const node *at, const char *path, size_t max, unsigned char **data, size_t *len,
                      char hex[65])
{
    errno = 0;
    if (read_file_bytes(path, max, data, len) < 0) {
        if (errno == ENOENT || errno == ENOTDIR) /* not there, or the cache is not a directory (put warns) */
            return 0;
        return fn_fail(c, at, "the chart cache (CMP_HELM_CHART_CACHE) entry %s cannot be used: %s", path,
                       errno == EFBIG || !errno ? "not a regular file within the chart size limit" : strerror(errno));
    }
    sha256_ctx s;
    sha256_init(&s);
    sha256_update(&s, *data, *len);
    sha256_hex(&s, hex);
    return 1;
}

static int tampered(fn_ctx *c, const node *at, const char *who, const char *path, const char *hex, const char *want)
{
    return fn_fail(c, at, "%s: the chart cache (CMP_HELM_CHART_CACHE) entry %s has SHA-256 %s, not %s: it was changed "
                          "after it was written; nothing of it was used (remove it to fetch the chart again)",
                   who, path, hex, want);
}

int flux_cache_get(fn_ctx *c, const node *at, const char *who, const char *dir, const char *repo, const char *chart,
                   const char *digest, bool oci, const char **tgz, const char **manifest, size_t *mlen)
{
    arena *a = c->a;
    const char *d = entry_dir(a, dir, repo, chart), *want = digest + 7, *archive_hex = want;
    char hex[65];
    unsigned char *data;
    size_t len;
    *tgz = NULL;
    *manifest = NULL;
    if (oci) {
        const char *path = arena_printf(a, "%s/%s.manifest", d, want);
        int rc = read_entry(c, at, path, MAX_MANIFEST, &data, &len, hex);
        if (rc <= 0)
            return rc;
        if (strcmp(hex, want)) {
            xfree(data);
            return tampered(c, at, who, path, hex, want);
        }
        flux_oci_meta m;
        *manifest = arena_strndup(a, (const char *)data, len);
        *mlen = len;
        xfree(data);
        const char *why = flux_oci_manifest(a, c->st, limits_yaml(fn_limits(c)), *manifest, len, digest, &m);
        if (why)
            return fn_fail(c, at, "%s: the chart cache (CMP_HELM_CHART_CACHE) entry %s: %s", who, path, why);
        archive_hex = m.chart_layer + 7;
    }
    const char *path = arena_printf(a, "%s/%s.tgz", d, archive_hex);
    size_t max = c->host->max_chart_bytes ? c->host->max_chart_bytes : (size_t)100 << 20;
    int rc = read_entry(c, at, path, max, &data, &len, hex);
    if (rc <= 0) {
        *manifest = NULL;
        return rc;
    }
    if (strcmp(hex, archive_hex)) {
        xfree(data);
        return tampered(c, at, who, path, hex, archive_hex);
    }
    /* the verified bytes, into scratch: all that is read from here on */
    static int copies;
    const char *s = scratch_dir(c->host);
    const char *sub = s ? arena_printf(a, "%s/cached-%d", s, ++copies) : NULL;
    const char *copy = sub ? arena_printf(a, "%s/%s.tgz", sub, chart) : NULL;
    int fd = -1;
    if (!copy || strchr(chart, '/') || mkdir(sub, 0700) != 0 ||
        (fd = open(copy, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0 ||
        write_all(fd, data, len) < 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        xfree(data);
        return fn_fail(c, at, "%s: cannot copy the cached chart into a temporary directory: %s", who, strerror(e));
    }
    close(fd);
    xfree(data);
    if (helm_confine_archive(fn_engine(c), at, copy, chart) < 0)
        return -1;
    *tgz = copy;
    return 1;
}

/* data under <d>/<name>, unless there already: a fresh name renamed into place. */
static int store(const char *d, const char *name, const void *data, size_t len)
{
    int dfd = open(d, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0)
        return -1;
    struct stat st;
    int rc = 0;
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        char tmp[64];
        rc = temp_file_at(dfd, data, len, 0600, tmp);
        if (rc == 0 && renameat(dfd, tmp, dfd, name) != 0) {
            int e = errno;
            unlinkat(dfd, tmp, 0);
            errno = e;
            rc = -1;
        }
    }
    int e = errno;
    close(dfd);
    errno = e;
    return rc;
}

void flux_cache_put(fn_ctx *c, const node *at, const char *who, const char *dir, const char *repo, const char *chart,
                    const char *tgz, const char *tgz_hex, const char *manifest, size_t mlen, const char *digest)
{
    arena *a = c->a;
    const char *d = entry_dir(a, dir, repo, chart);
    unsigned char *data = NULL;
    size_t len = 0;
    int ok = (mkdir(dir, 0700) == 0 || errno == EEXIST) && (mkdir(d, 0700) == 0 || errno == EEXIST);
    ok = ok && read_file_bytes(tgz, (size_t)1 << 31, &data, &len) == 0;
    ok = ok && store(d, arena_printf(a, "%s.tgz", tgz_hex), data, len) == 0;
    ok = ok && (!manifest || store(d, arena_printf(a, "%s.manifest", digest + 7), manifest, mlen) == 0);
    int e = errno;
    xfree(data);
    if (!ok)
        flux_warn(c, at, "%s: the chart was not kept in the chart cache (CMP_HELM_CHART_CACHE): %s", who,
                    strerror(e));
}
