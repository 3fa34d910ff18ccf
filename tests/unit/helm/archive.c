/* helm/archive.c: a chart archive read as Go's gzip and tar and helm's loader read it. Each test builds
 * the tar bytes itself (a header as Go's reader sees it) and checks the entries, names and data that come out, or
 * the refusal. The attacks themselves, against the real helm: tests/security/cases/helm-archive-reading.sh. */
#include <stdlib.h>
#include <zlib.h>

#include "check.h"
#include "helm/archive.h"
#include "util/diag.h"

typedef struct tarbuf {
    unsigned char b[1 << 16];
    size_t n;
} tarbuf;

/* A header with a right checksum; size12 (12 bytes) replaces the octal size when given. */
static void header(tarbuf *t, const char *name, size_t size, char type, const char *size12, const char *magic)
{
    unsigned char *h = t->b + t->n;
    memset(h, 0, 512);
    memcpy(h, name, strlen(name));
    memcpy(h + 100, "0000644", 8);
    memcpy(h + 108, "0000000", 8);
    memcpy(h + 116, "0000000", 8);
    if (size12)
        memcpy(h + 124, size12, 12);
    else
        snprintf((char *)h + 124, 12, "%011o", (unsigned)size & 07777777);
    memcpy(h + 136, "00000000000", 12);
    h[156] = (unsigned char)type;
    memcpy(h + 257, magic ? magic : "ustar\0" "00", 8);
    memset(h + 148, ' ', 8);
    unsigned sum = 0;
    for (int i = 0; i < 512; i++)
        sum += h[i];
    snprintf((char *)h + 148, 8, "%06o", sum);
    t->n += 512;
}

static void data(tarbuf *t, const char *d, size_t n)
{
    memset(t->b + t->n, 0, (n + 511) / 512 * 512);
    memcpy(t->b + t->n, d, n);
    t->n += (n + 511) / 512 * 512;
}

static void file(tarbuf *t, const char *name, const char *d)
{
    header(t, name, strlen(d), '0', NULL, NULL);
    data(t, d, strlen(d));
}

/* n zero bytes (two blocks end an archive) */
static void zeros(tarbuf *t, size_t n)
{
    memset(t->b + t->n, 0, n);
    t->n += n;
}

static void end(tarbuf *t)
{
    zeros(t, 1024);
}

/* in as one gzip member in out; its length. */
static size_t gz(const unsigned char *in, size_t n, unsigned char *out, size_t cap)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    zs.next_in = (unsigned char *)in;
    zs.avail_in = (uInt)n;
    zs.next_out = out;
    zs.avail_out = (uInt)cap;
    deflate(&zs, Z_FINISH);
    size_t got = cap - zs.avail_out;
    deflateEnd(&zs);
    return got;
}

typedef struct seen {
    char names[16][128], raws[16][128], data[16][64];
    size_t n;
} seen;

static int record(void *ctx, const helm_archive_entry *e)
{
    seen *s = ctx;
    if (s->n < 16) {
        snprintf(s->names[s->n], 128, "%s", e->name ? e->name : "(none)");
        snprintf(s->raws[s->n], 128, "%s", e->raw);
        snprintf(s->data[s->n], 64, "%.*s", (int)e->size, (const char *)e->data);
    }
    s->n++;
    return 0;
}

static unsigned char zbuf[1 << 17];

/* t as one gzip member (or two, split at the byte split when nonzero), read; the rc, entries in s, and in *why the
 * refusal helm_archive_read recorded (captured here; NULL when none). A refusal, and nothing else, is recorded, with
 * fail_here() (waiting for the caller to place it): otherwise the rc is 99. */
static int read_tar(tarbuf *t, size_t split, seen *s, const char **why, arena *a)
{
    size_t z = split ? gz(t->b, split, zbuf, sizeof zbuf) : 0;
    z += gz(t->b + split, t->n - split, zbuf + z, sizeof zbuf - z);
    memset(s, 0, sizeof *s);
    diag_detail d;
    diag_detail *outer = diag_capture(&d);
    int rc = helm_archive_read(a, zbuf, z, 1 << 20, record, s);
    diag_restore(outer);
    *why = d.failed ? arena_strdup(a, d.message) : NULL;
    return (rc == HELM_ARCHIVE_REFUSED) == (d.failed && d.unplaced) ? rc : 99;
}

TEST(helm_archive_numbers_as_go_reads_them)
{
    arena *a = arena_new();
    static tarbuf t;
    seen s;
    const char *why;
    /* a size led by a NUL is the number after it (Go trims NULs and spaces on both sides); base-256 is binary */
    t.n = 0;
    header(&t, "c/a", 0, '0', "\0" "000000005 \0", NULL);
    data(&t, "hello", 5);
    header(&t, "c/b", 0, '0', "\x80\0\0\0\0\0\0\0\0\0\0\x03", NULL);
    data(&t, "abc", 3);
    end(&t);
    CHECK(read_tar(&t, 0, &s, &why, a) == HELM_ARCHIVE_OK);
    CHECK(s.n == 2);
    CHECK_STR(s.data[0], "hello");
    CHECK_STR(s.names[1], "b");
    CHECK_STR(s.data[1], "abc");
    /* a negative base-256 size is an error in Go: refused */
    t.n = 0;
    header(&t, "c/a", 0, '0', "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", NULL);
    end(&t);
    CHECK(read_tar(&t, 0, &s, &why, a) == HELM_ARCHIVE_REFUSED);
    CHECK(strstr(why, "negative size") != NULL);
    /* a wrong checksum: Go fails the archive */
    t.n = 0;
    file(&t, "c/a", "x");
    t.b[0] = 'd';
    end(&t);
    CHECK(read_tar(&t, 0, &s, &why, a) == HELM_ARCHIVE_REFUSED);
    CHECK(strstr(why, "its header 1 has a wrong checksum") != NULL);
    arena_free(a);
}

TEST(helm_archive_no_data_for_links_and_directories)
{
    arena *a = arena_new();
    static tarbuf t;
    seen s;
    const char *why;
    /* a symlink and a type-NUL name ending in '/' (a directory) have no data, whatever their size says: the next
     * header follows at once */
    t.n = 0;
    header(&t, "c/link", 1024, '2', NULL, NULL);
    header(&t, "c/d/", 1024, '\0', NULL, NULL);
    file(&t, "c/values.schema.json", "{}");
    end(&t);
    CHECK(read_tar(&t, 0, &s, &why, a) == HELM_ARCHIVE_OK);
    CHECK(s.n == 3);
    CHECK_STR(s.names[0], "link");
    CHECK_STR(s.data[0], "");
    CHECK_STR(s.names[1], "(none)"); /* helm skips directories */
    CHECK_STR(s.names[2], "values.schema.json");
    arena_free(a);
}

TEST(helm_archive_pax_and_gnu_records)
{
    arena *a = arena_new();
    static tarbuf t;
    seen s;
    const char *why;
    /* PAX: size=0 wins over the ustar size; an empty path after a full one keeps the ustar name */
    t.n = 0;
    static const char rec[] = "10 size=0\n" "20 path=c/other.txt\n" "8 path=\n";
    header(&t, "PaxHeaders/x", sizeof rec - 1, 'x', NULL, NULL);
    data(&t, rec, sizeof rec - 1);
    header(&t, "c/values.schema.json", 1024, '0', NULL, NULL);
    file(&t, "c/next", "n");
    end(&t);
    CHECK(read_tar(&t, 0, &s, &why, a) == HELM_ARCHIVE_OK);
    CHECK(s.n == 2);
    CHECK_STR(s.names[0], "values.schema.json");
    CHECK_STR(s.data[0], "");
    CHECK_STR(s.names[1], "next");
    /* an empty GNU long name is ignored; a full one names the entry */
    t.n = 0;
    header(&t, "././@LongLink", 1, 'L', NULL, "ustar  \0");
    data(&t, "", 1);
    file(&t, "c/a", "1");
    header(&t, "././@LongLink", 9, 'L', NULL, "ustar  \0");
    data(&t, "c/long\0zz", 9);
    file(&t, "c/b", "2");
    end(&t);
    CHECK(read_tar(&t, 0, &s, &why, a) == HELM_ARCHIVE_OK);
    CHECK(s.n == 2);
    CHECK_STR(s.raws[0], "c/a");
    CHECK_STR(s.raws[1], "c/long");
    /* a PAX record whose length is wrong: Go fails the archive */
    t.n = 0;
    header(&t, "PaxHeaders/x", 10, 'x', NULL, NULL);
    data(&t, "12 size=0\n", 10);
    file(&t, "c/a", "1");
    end(&t);
    CHECK(read_tar(&t, 0, &s, &why, a) == HELM_ARCHIVE_REFUSED);
    CHECK(strstr(why, "is a PAX header Go cannot read") != NULL);
    arena_free(a);
}

TEST(helm_archive_names_as_helm_makes_them)
{
    arena *a = arena_new();
    static tarbuf t;
    seen s;
    const char *why;
    t.n = 0;
    file(&t, "c\\x\\values.schema.json", "1");
    file(&t, "c/./a/../values.schema.json", "2");
    file(&t, "c/x/../../y", "3");
    file(&t, "c//templates/cm.yaml", "4");
    end(&t);
    CHECK(read_tar(&t, 0, &s, &why, a) == HELM_ARCHIVE_OK);
    CHECK(s.n == 4);
    CHECK_STR(s.names[0], "x/values.schema.json");
    CHECK_STR(s.names[1], "values.schema.json");
    CHECK_STR(s.names[2], "(none)"); /* leaves the chart: helm fails the load */
    CHECK_STR(s.names[3], "(none)"); /* "/templates/cm.yaml" after the first part: absolute, helm fails */
    arena_free(a);
}

TEST(helm_archive_stream_ends_as_go_sees_them)
{
    arena *a = arena_new();
    static tarbuf t;
    seen s;
    const char *why;
    /* two gzip members are one stream */
    t.n = 0;
    file(&t, "c/a", "1");
    size_t split = t.n;
    file(&t, "c/b", "\xef\xbb\xbf" "bom");
    end(&t);
    CHECK(read_tar(&t, split, &s, &why, a) == HELM_ARCHIVE_OK);
    CHECK(s.n == 2);
    CHECK_STR(s.data[1], "bom"); /* helm drops a UTF-8 byte order mark */
    /* one zero block, then more entries: an error in Go */
    t.n = 0;
    file(&t, "c/a", "1");
    zeros(&t, 512);
    file(&t, "c/b", "2");
    end(&t);
    CHECK(read_tar(&t, 0, &s, &why, a) == HELM_ARCHIVE_REFUSED);
    CHECK(strstr(why, "is a zero block that more data follows") != NULL);
    /* the stream ends in the padding after the last data: the end for Go */
    t.n = 0;
    file(&t, "c/a", "1");
    t.n -= 511;
    CHECK(read_tar(&t, 0, &s, &why, a) == HELM_ARCHIVE_OK);
    CHECK(s.n == 1);
    /* an unknown entry type and a sparse file are refused */
    t.n = 0;
    header(&t, "c/values.schema.json", 1, 'V', NULL, NULL);
    data(&t, "x", 1);
    end(&t);
    CHECK(read_tar(&t, 0, &s, &why, a) == HELM_ARCHIVE_REFUSED);
    CHECK(strstr(why, "has the entry type 'V'") != NULL);
    arena_free(a);
}
