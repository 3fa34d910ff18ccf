/* fuzz_helm_archive: bytes -> a chart archive -> helm_archive_read (src/helm/archive.c), the reader of the
 * untrusted .tgz files helm_confine checks. Input: a tar stream, which the target gzips (one member; two, split in
 * the middle, when the first byte is odd), or gzip data as it is when it starts with 1f 8b. An entry whose helm name
 * ends in ".tgz" is read again as an archive, up to 3 deep. Checks: the result is one of the reader's codes; a
 * refusal, and only a refusal, is recorded (with fail_here, for the caller to place); every raw name is UTF-8
 * without NUL; every helm name is clean (relative, no empty, "." or ".." component, not starting with ".."). Seeds are small tar streams (tests/security/chart-tgz.py's archives, unpacked). */
#include <zlib.h>

#include "fuzz_common.h"
#include "helm/archive.h"
#include "util/diag.h"
#include "util/fsutil.h"

static size_t budget = 1 << 22;

static void check_name(const char *n)
{
    if (n[0] == '/' || !strcmp(n, ".") || !strncmp(n, "..", 2))
        fz_die("helm name", "\"%s\" is not relative to the chart", n);
    for (const char *p = n; *p;) {
        size_t l = strcspn(p, "/");
        if (!l || (l == 1 && p[0] == '.') || (l == 2 && p[0] == '.' && p[1] == '.'))
            fz_die("helm name", "\"%s\" is not clean", n);
        p += l;
        if (*p)
            p++;
    }
}

typedef struct level {
    arena *a;
    int depth;
} level;

static int read_archive(arena *a, const unsigned char *gz, size_t n, int depth);

static int entry(void *ctx, const helm_archive_entry *e)
{
    level *l = ctx;
    size_t rl = strlen(e->raw);
    if (utf8_check((const unsigned char *)e->raw, rl) != rl)
        fz_die("raw name", "not UTF-8");
    if (e->name) {
        check_name(e->name);
        size_t nl = strlen(e->name);
        if (nl >= 4 && !strcmp(e->name + nl - 4, ".tgz"))
            (void)read_archive(l->a, e->data, e->size, l->depth + 1);
    }
    return 0;
}

static int read_archive(arena *a, const unsigned char *gz, size_t n, int depth)
{
    if (depth > 3)
        return 0;
    level l = {a, depth};
    diag_detail why;
    diag_detail *outer = diag_capture(&why);
    int rc = helm_archive_read(a, gz, n, budget, entry, &l);
    diag_restore(outer);
    if (rc != HELM_ARCHIVE_OK && rc != HELM_ARCHIVE_REFUSED && rc != HELM_ARCHIVE_TOO_LARGE)
        fz_die("result", "%d", rc);
    if (rc == HELM_ARCHIVE_REFUSED && (!why.failed || !why.unplaced || !*why.message))
        fz_die("refusal", "no reason");
    if (rc != HELM_ARCHIVE_REFUSED && why.failed)
        fz_die("record", "an error recorded without a refusal: %s", why.message);
    return rc;
}

/* in[0, n) as one gzip member appended at out + *len */
static void gzip_member(const unsigned char *in, size_t n, unsigned char *out, size_t cap, size_t *len)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (deflateInit2(&zs, 1, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        abort();
    zs.next_in = (unsigned char *)in;
    zs.avail_in = (uInt)n;
    zs.next_out = out + *len;
    zs.avail_out = (uInt)(cap - *len);
    if (deflate(&zs, Z_FINISH) != Z_STREAM_END)
        abort();
    *len = cap - zs.avail_out;
    deflateEnd(&zs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    arena *a = arena_new();
    if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
        read_archive(a, data, size, 1);
    } else {
        size_t cap = 2 * compressBound((uLong)size) + 256, len = 0, split = size && (data[0] & 1) ? size / 2 : 0;
        unsigned char *gz = malloc(cap);
        if (split)
            gzip_member(data, split, gz, cap, &len);
        gzip_member(data + split, size - split, gz, cap, &len);
        read_archive(a, gz, len, 1);
        free(gz);
    }
    arena_free(a);
    return 0;
}
