/* A chart archive as helm reads it (helm_archive.h says why it must be exactly that). Each rule names the code it
 * mirrors: Go's compress/gzip Reader (multistream by default), archive/tar as Go has read since 1.10, the releases
 * every supported helm is built with (reader.go next, readHeader, handleRegularFile, parsePAX, mergePAX;
 * strconv.go parseNumeric, parseOctal, parseString, parsePAXRecord, validPAXRecord; format.go getFormat,
 * computeChecksum; common.go isHeaderOnlyType, FileInfo().IsDir), and helm's LoadArchiveFiles and LoadFiles. Facts
 * only: this is our own code. Where Go's behaviour is not one clear rule for every helm we may run, or where
 * another tar reader would read differently (so a mistake here could not be seen in a test against one helm), the
 * archive is refused. */
#include "helm/archive.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "util/diag.h"
#include "util/fsutil.h"
#include "util/path.h"

enum { BLOCK = 512, MAX_SPECIAL = 1 << 20 /* archive/tar's maxSpecialFileSize: PAX and GNU long-name data */ };

/* ---- gzip ---- */

/* Go's gzip.Reader reads the members of a stream one after the other as one stream; after the last, bytes that are
 * not another member are an error when it reaches them. All members are unpacked here, and any such bytes refused
 * (helm reads them only if the tar stream goes on into them, which we would have to predict). */
static int gunzip(const unsigned char *gz, size_t len, size_t max, unsigned char **out, size_t *out_len)
{
    if (len < 2 || gz[0] != 0x1f || gz[1] != 0x8b) {
        fail_here("it is not gzip data (helm could not load it either)");
        return HELM_ARCHIVE_REFUSED;
    }
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) {
        fail_here("it cannot be unpacked (out of memory)");
        return HELM_ARCHIVE_REFUSED;
    }
    size_t cap = 1 << 16, n = 0, fed = 0, members = 1;
    unsigned char *buf = xmalloc(cap);
    int rc = HELM_ARCHIVE_OK;
    for (;;) {
        if (!zs.avail_in && fed < len) {
            size_t chunk = len - fed > (1u << 30) ? (1u << 30) : len - fed;
            zs.next_in = (unsigned char *)gz + fed;
            zs.avail_in = (uInt)chunk;
            fed += chunk;
        }
        if (n == cap) {
            if (cap > max || cap > SIZE_MAX / 2) {
                rc = HELM_ARCHIVE_TOO_LARGE;
                break;
            }
            buf = xrealloc(buf, cap *= 2);
        }
        size_t room = cap - n > (1u << 30) ? (1u << 30) : cap - n;
        zs.next_out = buf + n;
        zs.avail_out = (uInt)room;
        int zr = inflate(&zs, Z_NO_FLUSH);
        n = (size_t)(zs.next_out - buf);
        if (zr == Z_STREAM_END) {
            size_t left = zs.avail_in + (len - fed);
            if (!left)
                break;
            const unsigned char *next = zs.avail_in ? zs.next_in : gz + fed;
            if (left < 2 || next[0] != 0x1f || next[1] != 0x8b) {
                fail_here("after its gzip member %zu come %zu bytes that are not another gzip member (Go's gzip "
                          "reader would read on into them)",
                          members, left);
                rc = HELM_ARCHIVE_REFUSED;
                break;
            }
            members++;
            inflateReset(&zs);
            continue;
        }
        if (zr == Z_BUF_ERROR && !zs.avail_in && fed == len) {
            fail_here("its gzip stream is cut short (helm could not load it either)");
            rc = HELM_ARCHIVE_REFUSED;
            break;
        }
        if (zr != Z_OK && zr != Z_BUF_ERROR) {
            fail_here("its gzip data is corrupt (helm could not load it either)");
            rc = HELM_ARCHIVE_REFUSED;
            break;
        }
    }
    inflateEnd(&zs);
    if (rc == HELM_ARCHIVE_OK && n > max)
        rc = HELM_ARCHIVE_TOO_LARGE;
    if (rc != HELM_ARCHIVE_OK) {
        xfree(buf);
        return rc;
    }
    *out = buf;
    *out_len = n;
    return HELM_ARCHIVE_OK;
}

/* ---- Go's field parsers (archive/tar strconv.go, and strconv.ParseInt/ParseUint) ---- */

/* parseString: up to the first NUL, or the whole field. */
static size_t c_string(const unsigned char *b, size_t n)
{
    const unsigned char *z = memchr(b, 0, n);
    return z ? (size_t)(z - b) : n;
}

/* strconv.ParseUint(s, 8, 64): octal digits only (no sign, no underscore), at least one, no overflow. */
static bool parse_uint8(const unsigned char *s, size_t n, uint64_t *v)
{
    uint64_t x = 0;
    if (!n)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '7' || x >> 61)
            return false;
        x = x << 3 | (uint64_t)(s[i] - '0');
    }
    *v = x;
    return true;
}

/* parseOctal: leading and trailing spaces and NULs trimmed (nothing left is 0), then the text up to the first NUL
 * in octal. A leading NUL is trimmed, not the end of the number. */
static bool go_octal(const unsigned char *b, size_t n, int64_t *v)
{
    size_t i = 0, j = n;
    while (i < j && (b[i] == ' ' || !b[i]))
        i++;
    while (j > i && (b[j - 1] == ' ' || !b[j - 1]))
        j--;
    if (i == j) {
        *v = 0;
        return true;
    }
    uint64_t x;
    if (!parse_uint8(b + i, c_string(b + i, j - i), &x))
        return false;
    *v = (int64_t)(x & INT64_MAX) | (x >> 63 ? INT64_MIN : 0); /* Go's int64(x) */
    return true;
}

/* parseNumeric: base-256 when the first byte's high bit is set (the rest a two's complement big-endian number,
 * 0x40 of the first byte its sign), else parseOctal. */
static bool go_numeric(const unsigned char *b, size_t n, int64_t *v)
{
    if (!n || !(b[0] & 0x80))
        return go_octal(b, n, v);
    unsigned char inv = b[0] & 0x40 ? 0xff : 0;
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = b[i] ^ inv;
        if (i == 0)
            c &= 0x7f;
        if (x >> 56)
            return false;
        x = x << 8 | c;
    }
    if (x >> 63)
        return false;
    *v = inv ? -(int64_t)x - 1 : (int64_t)x;
    return true;
}

/* strconv.ParseInt(s, 10, 64): an optional sign, then decimal digits only, in range. */
static bool go_int(const char *s, size_t n, int64_t *v)
{
    size_t i = 0;
    bool neg = false;
    if (n && (s[0] == '+' || s[0] == '-'))
        neg = s[i++] == '-';
    if (i == n)
        return false;
    uint64_t x = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || x > (UINT64_MAX - 9) / 10)
            return false;
        x = x * 10 + (uint64_t)(s[i] - '0');
    }
    if (x > (uint64_t)INT64_MAX + neg)
        return false;
    *v = neg ? (x == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)x) : (int64_t)x;
    return true;
}

/* ---- tar ---- */

/* The PAX records that change what helm reads (the last record of a key wins; an empty value leaves the header's
 * own field). Go also honours uid, gid, times and xattrs, which change nothing helm reads, and sparse files. */
typedef struct pax {
    const char *path, *size; /* NULL: no record */
    size_t path_len, size_len;
    bool linkpath, sparse;
} pax;

static bool key_is(const char *k, size_t kl, const char *want)
{
    return kl == strlen(want) && !memcmp(k, want, kl);
}

/* parsePAX with parsePAXRecord and validPAXRecord: "<length> <key>=<value>\n" records filling the data exactly.
 * NULL, or what is wrong. */
static const char *parse_pax(const unsigned char *d, size_t n, pax *p)
{
    memset(p, 0, sizeof *p);
    const char *s = (const char *)d;
    size_t left = n;
    while (left) {
        const char *sp = memchr(s, ' ', left);
        int64_t rl;
        if (!sp || !go_int(s, (size_t)(sp - s), &rl) || rl < 5 || (uint64_t)rl > left ||
            rl - (int64_t)(sp - s + 1) <= 0)
            return "a PAX record's length is wrong";
        const char *rec = sp + 1;
        size_t reclen = (size_t)rl - (size_t)(sp - s + 1) - 1;
        if (rec[reclen] != '\n')
            return "a PAX record does not end where its length says";
        const char *eq = memchr(rec, '=', reclen);
        if (!eq || eq == rec)
            return "a PAX record has no key";
        const char *k = rec, *v = eq + 1;
        size_t kl = (size_t)(eq - rec), vl = reclen - kl - 1;
        bool str = key_is(k, kl, "path") || key_is(k, kl, "linkpath") || key_is(k, kl, "uname") ||
                   key_is(k, kl, "gname");
        if (str ? memchr(v, 0, vl) != NULL : memchr(k, 0, kl) != NULL)
            return "a PAX record holds a NUL";
        if (key_is(k, kl, "path"))
            p->path = v, p->path_len = vl;
        else if (key_is(k, kl, "size"))
            p->size = v, p->size_len = vl;
        else if (key_is(k, kl, "linkpath"))
            p->linkpath = true;
        else if (kl >= 11 && !memcmp(k, "GNU.sparse.", 11))
            p->sparse = true;
        s += rl;
        left -= (size_t)rl;
    }
    return NULL;
}

/* isHeaderOnlyType: no data section, whatever the size field says. */
static bool header_only(unsigned char t)
{
    return t >= '1' && t <= '6';
}

static bool all_zero(const unsigned char *b)
{
    for (size_t i = 0; i < BLOCK; i++)
        if (b[i])
            return false;
    return true;
}

/* getFormat's checksum: the field parsed as octal equals the sum of the block's bytes, unsigned or signed, with
 * the field itself counted as spaces. */
static bool checksum_ok(const unsigned char *h)
{
    int64_t want, u = 0, s = 0;
    if (!go_octal(h + 148, 8, &want))
        return false;
    for (size_t i = 0; i < BLOCK; i++) {
        unsigned char c = i >= 148 && i < 156 ? ' ' : h[i];
        u += c;
        s += (signed char)c;
    }
    return want == u || want == s;
}

static bool ascii(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] >= 0x80)
            return false;
    return true;
}

/* The chart file helm's LoadArchiveFiles makes of an entry name: split on '\' when the name holds one (an archive
 * made on Windows), else on '/'; the first part dropped; '\' made '/'; then path.Clean. NULL where helm fails the
 * whole load (an absolute path, ".", a path starting with "..", a drive letter, a Chart.yaml outside the chart's
 * directory): nothing of the chart reaches helm's schema check then. */
static const char *helm_name(arena *a, const char *raw)
{
    char delim = strchr(raw, '\\') ? '\\' : '/';
    const char *cut = strchr(raw, delim);
    size_t first = cut ? (size_t)(cut - raw) : strlen(raw);
    if (first == 10 && !memcmp(raw, "Chart.yaml", 10))
        return NULL;
    char *n = arena_strdup(a, cut ? cut + 1 : "");
    for (char *p = n; *p; p++)
        if (*p == delim)
            *p = '/';
    if (n[0] == '/')
        return NULL;
    const char *c = clean_path(a, n);
    if (!strcmp(c, ".") || !strncmp(c, "..", 2))
        return NULL;
    if (((c[0] >= 'a' && c[0] <= 'z') || (c[0] >= 'A' && c[0] <= 'Z')) && c[1] == ':' && c[2] == '/')
        return NULL;
    return c;
}

typedef struct reader {
    arena *a;
    const unsigned char *t;
    size_t n;
    int (*fn)(void *ctx, const helm_archive_entry *e);
    void *ctx;
    size_t index, header;
} reader;

/* The refusal, naming the header by its place and, when it is UTF-8, its name. */
static int refuse(reader *r, const char *name, const char *what)
{
    if (name && utf8_check((const unsigned char *)name, strlen(name)) != strlen(name))
        name = NULL;
    if (name)
        fail_here("its header %zu (\"%s\") %s", r->header, shown(r->a, name), what);
    else
        fail_here("its header %zu %s", r->header, what);
    return HELM_ARCHIVE_REFUSED;
}

static int emit(reader *r, const char *raw, const char *name, const unsigned char *data, size_t size)
{
    if (size >= 3 && data[0] == 0xef && data[1] == 0xbb && data[2] == 0xbf) /* helm's bytes.TrimPrefix(utf8bom) */
        data += 3, size -= 3;
    helm_archive_entry e = {++r->index, raw, name, data, size};
    return r->fn(r->ctx, &e) ? HELM_ARCHIVE_STOPPED : HELM_ARCHIVE_OK;
}

/* Go's Reader.Next, called until io.EOF, and what helm's loader does with each entry. */
static int read_tar(reader *r)
{
    const unsigned char *t = r->t;
    size_t n = r->n, off = 0;
    /* what the headers before an entry set for it: the last PAX header's records, the last GNU long name */
    pax px;
    memset(&px, 0, sizeof px);
    bool have_pax = false, have_long = false;
    const char *long_name = NULL;
    for (;;) {
        /* readHeader: no byte left where a header starts is the end; a zero block, then a second one or the end
         * of the stream, is the end; a zero block followed by anything else, or a block cut short, an error */
        if (off == n)
            return HELM_ARCHIVE_OK;
        r->header++;
        if (n - off < BLOCK)
            return refuse(r, NULL, "is cut short (helm could not load the archive either)");
        const unsigned char *h = t + off;
        if (all_zero(h)) {
            if (n - off == BLOCK || (n - off >= 2 * BLOCK && all_zero(h + BLOCK)))
                return HELM_ARCHIVE_OK;
            return refuse(r, NULL, "is a zero block that more data follows (helm could not load the archive either)");
        }
        if (!checksum_ok(h))
            return refuse(r, NULL, "has a wrong checksum (helm could not load the archive either)");

        /* the name, and the fields Go parses (a field it cannot parse fails the whole load) */
        bool ustar = !memcmp(h + 257, "ustar\0", 6), star = ustar && !memcmp(h + 508, "tar\0", 4);
        bool gnu = !memcmp(h + 257, "ustar ", 6) && !memcmp(h + 263, " \0", 2);
        const unsigned char *prefix = h + 345;
        size_t plen = 0;
        int64_t size, mode, v;
        bool ok = go_numeric(h + 124, 12, &size) && go_numeric(h + 100, 8, &mode) && go_numeric(h + 108, 8, &v) &&
                  go_numeric(h + 116, 8, &v) && go_numeric(h + 136, 12, &v);
        if (ustar || gnu)
            ok = ok && go_numeric(h + 329, 8, &v) && go_numeric(h + 337, 8, &v);
        if (star) {
            plen = c_string(prefix, 131);
            ok = ok && go_numeric(h + 476, 12, &v) && go_numeric(h + 488, 12, &v);
        } else if (ustar) {
            plen = c_string(prefix, 155);
        } else if (gnu) {
            /* GNU has no prefix; but when its access or change time does not parse, Go takes that space for the
             * prefix pre-1.8 Go writers put there, if it is ASCII */
            bool times = (!h[345] || go_numeric(h + 345, 12, &v)) && (!h[357] || go_numeric(h + 357, 12, &v));
            if (!times && ascii(prefix, c_string(prefix, 155)))
                plen = c_string(prefix, 155);
        }
        size_t nlen = c_string(h, 100);
        const char *hname = plen ? arena_printf(r->a, "%.*s/%.*s", (int)plen, (const char *)prefix, (int)nlen,
                                                (const char *)h)
                                 : arena_strndup(r->a, (const char *)h, nlen);
        if (!ok)
            return refuse(r, hname, "has a number field Go cannot read (helm could not load the archive either)");
        unsigned char type = h[156];
        /* handleRegularFile, before anything else: the header's own size is its data, none for link and device
         * types; a negative one is an error */
        int64_t nb = header_only(type) ? 0 : size;
        if (nb < 0)
            return refuse(r, hname, "has a negative size (helm could not load the archive either)");
        size_t data = off + BLOCK;
        if ((uint64_t)nb > n - data)
            return refuse(r, hname, "has less data than its size (helm could not load the archive either)");
        const unsigned char *d = t + data;

        if (type == 'x' || type == 'g') {
            if (nb > MAX_SPECIAL)
                return refuse(r, hname, "is a PAX header of more than 1 MiB (helm could not load the archive either)");
            pax p;
            const char *bad = parse_pax(d, (size_t)nb, &p);
            if (bad)
                return refuse(r, hname, arena_printf(r->a, "is a PAX header Go cannot read: %s", bad));
            if (p.sparse)
                return refuse(r, hname, "is a PAX header describing a sparse file, whose data Go rebuilds; this "
                                        "check does not");
            if (type == 'g') {
                /* Go returns a global header as an entry (helm skips it) and applies none of its records to the
                 * entries after it, where other tar readers apply them all: one that names a path or a size would
                 * read differently elsewhere, so it is refused, not guessed */
                if (p.path || p.size || p.linkpath)
                    return refuse(r, hname, "is a PAX global header that sets a path or size for the entries after "
                                            "it (Go ignores it, other tar readers do not)");
                have_pax = have_long = false;
                int rc = emit(r, hname, NULL, d, 0);
                if (rc)
                    return rc;
            } else {
                px = p; /* a second PAX header replaces the first's records */
                have_pax = true;
            }
        } else if (type == 'L' || type == 'K') {
            if (nb > MAX_SPECIAL)
                return refuse(r, hname, "is a GNU long name of more than 1 MiB (helm could not load the archive either)");
            if (type == 'L') { /* the link name ('K') is not read by helm */
                long_name = arena_strndup(r->a, (const char *)d, c_string(d, (size_t)nb));
                have_long = true;
            }
        } else {
            /* mergePAX (an empty value keeps the header's field), then a GNU long name when not empty */
            const char *name = hname;
            if (have_pax && px.size && px.size_len && !go_int(px.size, px.size_len, &size))
                return refuse(r, hname, "has a PAX size record Go cannot read (helm could not load the archive either)");
            if (have_pax && px.path && px.path_len)
                name = arena_strndup(r->a, px.path, px.path_len);
            if (have_long && have_pax && px.path)
                return refuse(r, hname, "has both a GNU long name and a PAX path (Go releases disagree on which wins)");
            if (have_long && *long_name)
                name = long_name;
            size_t len = strlen(name);
            if (utf8_check((const unsigned char *)name, len) != len)
                return refuse(r, NULL, "names its entry in bytes that are not UTF-8");
            if (type == 0) /* TypeRegA: a directory when the name ends in '/', else a regular file */
                type = len && name[len - 1] == '/' ? '5' : '0';
            if (type == 'S')
                return refuse(r, name, "is a GNU sparse file, whose data Go rebuilds; this check does not");
            if (type < '0' || type > '7')
                return refuse(r, name, arena_printf(r->a, "has the entry type '%s', which Go reads as a file and "
                                                          "this check does not know",
                                                    shown(r->a, (char[]){(char)type, 0})));
            /* handleRegularFile again, with the size the PAX records set */
            nb = header_only(type) ? 0 : size;
            if (nb < 0)
                return refuse(r, name, "has a negative size (helm could not load the archive either)");
            if ((uint64_t)nb > n - data)
                return refuse(r, name, "has less data than its size (helm could not load the archive either)");
            /* helm skips directories (FileInfo().IsDir(): the type, or the mode's directory bits) */
            bool dir = type == '5' || ((uint32_t)mode & ~07777u) == 040000u;
            int rc = emit(r, name, dir ? NULL : helm_name(r->a, name), d, (size_t)nb);
            if (rc)
                return rc;
            have_pax = have_long = false;
        }
        /* the data, then the padding to the block; the stream may end in the padding (Go: io.EOF, the end) */
        size_t padded = (size_t)nb + (size_t)(-nb & (BLOCK - 1));
        if (padded > n - data)
            return HELM_ARCHIVE_OK;
        off = data + padded;
    }
}

int helm_archive_read(arena *a, const unsigned char *gz, size_t len, size_t max_unpacked,
                      int (*fn)(void *ctx, const helm_archive_entry *e), void *ctx)
{
    unsigned char *t;
    size_t n;
    int rc = gunzip(gz, len, max_unpacked, &t, &n);
    if (rc)
        return rc;
    reader r = {a, t, n, fn, ctx, 0, 0};
    rc = read_tar(&r);
    xfree(t);
    return rc;
}
