/* How text comes in: read_text_file, and utf8_check, which every input passes.
 * utf8_check reads ASCII eight bytes at a time: it must still find exactly what the byte-by-byte decoder found, at
 * every position relative to those eight-byte words. The byte-by-byte decoder is kept here as the oracle. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/fsutil.h"

/* The decoder utf8_check had before its ASCII fast path: one byte at a time. */
static size_t oracle(const unsigned char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        unsigned char c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t n;
        uint32_t cp;
        if ((c & 0xe0) == 0xc0)
            n = 2, cp = c & 0x1f;
        else if ((c & 0xf0) == 0xe0)
            n = 3, cp = c & 0x0f;
        else if ((c & 0xf8) == 0xf0)
            n = 4, cp = c & 0x07;
        else
            return i;
        if (i + n > len)
            return i;
        for (size_t k = 1; k < n; k++) {
            if ((s[i + k] & 0xc0) != 0x80)
                return i;
            cp = (cp << 6) | (s[i + k] & 0x3f);
        }
        if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff))
            return i;
        i += n;
    }
    return len;
}

struct seq {
    const char *bytes;
    size_t len;
    int valid;
};
#define SEQ(s, v) {s, sizeof s - 1, v}

static const struct seq seqs[] = {
    /* valid, at the edges of each length */
    SEQ("\xc2\x80", 1), SEQ("\xdf\xbf", 1), SEQ("\xe0\xa0\x80", 1), SEQ("\xed\x9f\xbf", 1), SEQ("\xee\x80\x80", 1),
    SEQ("\xef\xbf\xbf", 1), SEQ("\xf0\x90\x80\x80", 1), SEQ("\xf4\x8f\xbf\xbf", 1), SEQ("\xc3\xa9", 1),
    SEQ("\xe2\x82\xac", 1),
    /* overlong */
    SEQ("\xc0\x80", 0), SEQ("\xc1\xbf", 0), SEQ("\xe0\x80\x80", 0), SEQ("\xe0\x9f\xbf", 0), SEQ("\xf0\x80\x80\x80", 0),
    SEQ("\xf0\x8f\xbf\xbf", 0),
    /* surrogates */
    SEQ("\xed\xa0\x80", 0), SEQ("\xed\xbf\xbf", 0), SEQ("\xed\xaf\xbf\xed\xb0\x80", 0),
    /* over U+10FFFF, and lead bytes that start nothing */
    SEQ("\xf4\x90\x80\x80", 0), SEQ("\xf5\x80\x80\x80", 0), SEQ("\xf7\xbf\xbf\xbf", 0), SEQ("\xf8\x88\x80\x80\x80", 0),
    SEQ("\xfe", 0), SEQ("\xff", 0),
    /* lone continuation bytes, and a sequence cut short by ASCII or by another lead byte */
    SEQ("\x80", 0), SEQ("\xbf", 0), SEQ("\xc3", 0), SEQ("\xe2\x82", 0), SEQ("\xf0\x9f\x98", 0), SEQ("\xc3\x41", 0),
    SEQ("\xe2\x41\xac", 0), SEQ("\xe2\x82\xc3\xa9", 0), SEQ("\xf0\x9f\x98\x41", 0),
};
#define NSEQS (sizeof seqs / sizeof seqs[0])

/* Checks one buffer against the oracle, from every start offset modulo 8 (the loads are unaligned). */
static int agrees(const unsigned char *s, size_t len)
{
    static unsigned char shifted[128 + 8];
    if (len > 128)
        return utf8_check(s, len) == oracle(s, len);
    for (size_t off = 0; off < 8; off++) {
        memcpy(shifted + off, s, len);
        if (utf8_check(shifted + off, len) != oracle(shifted + off, len))
            return 0;
    }
    return 1;
}

TEST(utf8_check_ascii_runs_of_every_length_around_each_sequence)
{
    /* 0..17 covers each position in and across an eight-byte word; up to 41, the 32-byte blocks as well */
    unsigned char b[128];
    for (size_t k = 0; k < NSEQS; k++)
        for (size_t pre = 0; pre <= 41; pre++)
            for (size_t post = 0; post <= 41; post++) {
                size_t n = 0;
                memset(b, 'a', pre), n += pre;
                memcpy(b + n, seqs[k].bytes, seqs[k].len), n += seqs[k].len;
                memset(b + n, 'z', post), n += post;
                CHECK(agrees(b, n));
                size_t got = utf8_check(b, n);
                if (seqs[k].valid)
                    CHECK(got == n);
                else
                    CHECK(got >= pre && got < pre + seqs[k].len); /* found inside the sequence, never past it */
            }
}

TEST(utf8_check_invalid_byte_at_each_offset_of_an_eight_and_a_32_byte_block)
{
    static const unsigned char bad[] = {0x80, 0x9f, 0xbf, 0xc0, 0xc1, 0xc2, 0xe0, 0xed, 0xf0, 0xf4, 0xf5, 0xf8, 0xfe, 0xff};
    unsigned char b[80];
    for (size_t len = 1; len <= 72; len++)
        for (size_t at = 0; at < len; at++)
            for (size_t k = 0; k < sizeof bad; k++) {
                memset(b, 'x', len);
                b[at] = bad[k]; /* followed by ASCII (or nothing): invalid wherever it stands */
                CHECK(agrees(b, len));
                CHECK(utf8_check(b, len) == at);
            }
}

TEST(utf8_check_valid_text_with_many_multibyte_characters)
{
    /* a multi-byte character in every word, then runs of them back to back */
    const char *text = "name: caf\xc3\xa9 \xe2\x82\xac\xf0\x9f\x98\x80 k\xc3\xb6ln \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e"
                       "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9 end\n";
    size_t n = strlen(text);
    CHECK(agrees((const unsigned char *)text, n));
    CHECK(utf8_check((const unsigned char *)text, n) == n);
    CHECK(utf8_check((const unsigned char *)"", 0) == 0);
}

TEST(utf8_check_agrees_with_the_byte_decoder_on_random_text)
{
    /* mostly ASCII with some high bytes, as text is; a fixed generator, so a failure repeats */
    uint32_t x = 12345;
    unsigned char b[300];
    for (int round = 0; round < 20000; round++) {
        size_t len = 0;
        x = x * 1103515245u + 12345u;
        len = (x >> 16) % sizeof b;
        int high = (int)((x >> 8) % 5); /* 0: ASCII only ... 4: many high bytes */
        for (size_t i = 0; i < len; i++) {
            x = x * 1103515245u + 12345u;
            unsigned r = x >> 16;
            if (high && r % (64 >> high) == 0) {
                if (r & 0x100) { /* a valid character, most of the time */
                    const struct seq *s = &seqs[(r >> 9) % 10];
                    for (size_t k = 0; k < s->len && i < len; k++)
                        b[i++] = (unsigned char)s->bytes[k];
                    i--;
                } else {
                    b[i] = (unsigned char)(0x80 | (r >> 9));
                }
            } else {
                b[i] = (unsigned char)(0x20 + r % 95);
            }
        }
        CHECK(agrees(b, len));
    }
}

static int write_file(const char *path, const char *data, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return -1;
    int rc = write_all(fd, data, n);
    return close(fd) == 0 ? rc : -1;
}

TEST(read_text_file_reads_a_file_of_exactly_the_limit)
{
    /* the buffer has room for the read that finds the end: a file of max-file-bytes is read, one byte more is not
     * (the buffer used to be full at that read, and growing it past the limit refused the file as "grew") */
    char dir[] = "/tmp/cmp-unit-text-input.XXXXXX";
    CHECK(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/f.yaml", dir);
    limits lim = limits_default;
    lim.max_file_bytes = 4096;
    char *text = malloc(4097);
    memset(text, 'a', 4097);
    for (size_t i = 63; i < 4097; i += 64)
        text[i] = '\n';
    char *data = NULL;
    size_t len = 0;
    diag_reset();
    int ok = write_file(path, text, 4096) == 0 && read_text_file(&lim, path, "f.yaml", &data, &len) == 0 && len == 4096 &&
             memcmp(data, text, 4096) == 0 && data[4096] == 0;
    free(data);
    data = NULL;
    int over = write_file(path, text, 4097) == 0 && read_text_file(&lim, path, "f.yaml", &data, &len) < 0 && !data;
    int empty = write_file(path, "", 0) == 0 && read_text_file(&lim, path, "f.yaml", &data, &len) == 0 && len == 0 && data &&
                data[0] == 0;
    free(data);
    diag_reset();
    free(text);
    unlink(path);
    rmdir(dir);
    CHECK(ok);
    CHECK(over);
    CHECK(empty);
}

/* read_text_file_pieces: the pieces, joined, are read_text_file's text, and a bad file gets read_text_file's
 * message, whatever piece the bad byte falls in. */
struct joined {
    buf b;
    int pieces;
};

static int join_piece(void *ud, const char *data, size_t len)
{
    struct joined *j = ud;
    buf_put(&j->b, data, len);
    j->pieces++;
    return 0;
}

/* 0 when both readers agree on path (the same text, or the same message); -1 otherwise. *pieces: how many. */
static int both_agree(const char *path, int *pieces)
{
    limits lim = limits_default;
    char *data = NULL;
    size_t len = 0;
    diag_reset();
    int rc1 = read_text_file(&lim, path, "f.yaml", &data, &len);
    char *msg1 = strdup(rc1 < 0 ? diag_message() : "");
    diag_reset();
    struct joined j = {{0}, 0};
    int rc2 = read_text_file_pieces(&lim, path, "f.yaml", join_piece, &j);
    const char *msg2 = rc2 < 0 ? diag_message() : "";
    int same = rc1 == rc2 && !strcmp(msg1, msg2) &&
               (rc1 < 0 || (j.b.len == len && (!len || memcmp(j.b.data, data, len) == 0)));
    if (!same)
        fprintf(stderr, "read_text_file: %d \"%s\"; pieces: %d \"%s\"\n", rc1, msg1, rc2, msg2);
    *pieces = j.pieces;
    diag_reset();
    free(msg1);
    buf_free(&j.b);
    xfree(data);
    return same ? 0 : -1;
}

TEST(read_text_file_pieces_gives_read_text_files_text_and_errors)
{
    char dir[] = "/tmp/cmp-unit-text-pieces.XXXXXX";
    CHECK(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/f.yaml", dir);
    size_t n = 200 * 1024;
    char *text = malloc(n + 8);
    int pieces = 0;
    /* a byte order mark, then multi-byte characters across every 64 KiB boundary (each offset of a 4-byte one) */
    for (int shift = 0; shift < 4; shift++) {
        memset(text, 'a', n);
        memcpy(text, "\xef\xbb\xbf", 3);
        for (size_t i = 63; i < n; i += 64)
            text[i] = '\n';
        for (size_t at = 65536; at < n; at += 65536)
            memcpy(text + at - shift, "\xf0\x9f\x98\x80", 4);
        CHECK(write_file(path, text, n) == 0 && both_agree(path, &pieces) == 0);
    }
    CHECK(pieces >= 4);
    /* invalid UTF-8 in the third piece, a NUL later still wins; then the invalid byte alone; then a file that ends
     * inside a sequence cut by a piece's end */
    text[140000] = (char)0xff;
    text[150000] = 0;
    CHECK(write_file(path, text, n) == 0 && both_agree(path, &pieces) == 0);
    text[150000] = 'a';
    CHECK(write_file(path, text, n) == 0 && both_agree(path, &pieces) == 0);
    text[140000] = 'a';
    text[65535] = (char)0xe2, text[65536] = (char)0x82;
    CHECK(write_file(path, text, 65537) == 0 && both_agree(path, &pieces) == 0);
    CHECK(write_file(path, "", 0) == 0 && both_agree(path, &pieces) == 0 && pieces == 0);
    free(text);
    unlink(path);
    rmdir(dir);
}
