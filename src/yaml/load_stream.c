/* A YAML stream that arrives in pieces, parsed as it comes: a child's output, read while the child still writes.
 *
 * The text is cut where a document starts and each run of complete documents goes through the loader (load_part)
 * once, so every byte is parsed once and only the document being written is held. A document starts at a "---"
 * line: "---" at column 0 followed by a space, a line break or the end. YAML forbids such a line inside a document
 * (the spec's c-forbidden): it ends a block or plain scalar there, and inside a quoted scalar or a flow collection
 * it is an error, and libfyaml does exactly that, so cutting there never changes what a document means. Two cases
 * need care. A directive ("%YAML", "%TAG") belongs to the document after it but stands before its "---", so no
 * cut is made at a "---" that follows a line starting with "%" (the piece simply grows to the next one). And a
 * "---" is only recognised after "\n": after a lone "\r" (a line break to YAML too) or a byte order mark, no cut
 * is made. Nor at "---" and a tab: libfyaml's error for a broken document before such a line differs from the
 * whole stream's (fuzz_yaml_stream found it), so the line stays inside its piece. Missing a cut only makes a piece bigger; it never changes the result. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "yaml/load.h"
#include "yaml/load_part.h"

/* Complete documents are parsed once this much text holds them: a parser per piece, not per (small) document. */
#define PIECE_BYTES (64 * 1024)

struct yaml_stream {
    arena *a;
    strtab *st;
    const load_limits *lim;
    size_t piece_bytes; /* PIECE_BYTES; tests make it small (yaml_stream_piece_bytes) */
    const char *file;
    yaml_doc_fn fn;
    void *ud;
    buf text;        /* what has not been parsed yet; it starts a document */
    size_t scanned;  /* text[0, scanned) has been searched for document starts */
    size_t cut;      /* where the last document start found begins (0: none yet) */
    uint32_t nl_scanned, nl_cut; /* "\n" in text[0, scanned) and in text[0, cut) */
    uint32_t line0;  /* lines of the stream before text */
    uint32_t index;  /* documents handed over so far */
    bool directive;  /* a line starting with '%' (or a BOM at the very start) since the last "---" */
    bool started;    /* the first byte of the stream has been seen */
    bool failed;
};

yaml_stream *yaml_stream_new(arena *a, strtab *st, const load_limits *lim, const char *file, yaml_doc_fn fn, void *ud)
{
    yaml_stream *s = xmalloc(sizeof *s);
    memset(s, 0, sizeof *s);
    s->a = a, s->st = st, s->lim = lim, s->file = file, s->fn = fn, s->ud = ud;
    s->piece_bytes = PIECE_BYTES;
    return s;
}

void yaml_stream_piece_bytes(yaml_stream *s, size_t bytes)
{
    s->piece_bytes = bytes;
}

void yaml_stream_free(yaml_stream *s)
{
    if (!s)
        return;
    buf_free(&s->text);
    xfree(s);
}

/* Lone "\r": line breaks to the loader too ("\r\n" is one, counted at its "\n"). A piece never ends inside "\r\n". */
static uint32_t lone_cr(const char *d, size_t n)
{
    uint32_t lines = 0;
    for (const char *p = d, *end = d + n; (p = memchr(p, '\r', (size_t)(end - p))); p++)
        lines += p + 1 == end || p[1] != '\n';
    return lines;
}

/* Finds document starts in the text not searched yet. A line start is decided once the four bytes that tell
 * "---" plus a blank or break are there; until then the search stops at the "\n" before it. */
static void find_cuts(yaml_stream *s)
{
    const char *d = s->text.data;
    size_t n = s->text.len, i = s->scanned;
    uint32_t nl = s->nl_scanned;
    if (!s->started && n) {
        s->started = true;
        s->directive = d[0] == '%' || (unsigned char)d[0] == 0xEF;
    }
    while (i < n) {
        const char *at = memchr(d + i, '\n', n - i);
        if (!at) {
            i = n;
            break;
        }
        size_t p = (size_t)(at - d) + 1; /* a line start */
        if (n - p < 4) {
            i = p - 1;
            break;
        }
        nl++;
        if (d[p] == '%') {
            s->directive = true;
        } else if (d[p] == '-' && d[p + 1] == '-' && d[p + 2] == '-' &&
                   (d[p + 3] == ' ' || d[p + 3] == '\n' || d[p + 3] == '\r')) {
            if (!s->directive)
                s->cut = p, s->nl_cut = nl;
            s->directive = false;
        }
        i = p;
    }
    s->scanned = i;
    s->nl_scanned = nl;
}

/* Parses text[0, end) (end: the last cut, or all of it at the end of the stream) and drops it. */
static int parse_upto(yaml_stream *s, size_t end)
{
    if (load_part(s->a, s->st, s->lim, s->file, s->text.data, end, s->line0, &s->index, s->fn, s->ud) < 0) {
        s->failed = true;
        return -1;
    }
    if (end < s->text.len) {
        s->line0 += s->nl_cut + lone_cr(s->text.data, end);
        s->nl_scanned -= s->nl_cut;
        memmove(s->text.data, s->text.data + end, s->text.len - end);
    }
    s->text.len -= end;
    s->scanned -= end;
    s->cut = 0, s->nl_cut = 0;
    return 0;
}

int yaml_stream_feed(yaml_stream *s, const char *data, size_t len)
{
    if (s->failed)
        return -1;
    buf_put(&s->text, data, len);
    find_cuts(s);
    if (s->cut && s->cut >= s->piece_bytes)
        return parse_upto(s, s->cut);
    return 0;
}

int yaml_stream_end(yaml_stream *s)
{
    if (s->failed)
        return -1;
    if (!s->text.len)
        return 0; /* nothing, or nothing after the last piece: no document */
    return parse_upto(s, s->text.len);
}
