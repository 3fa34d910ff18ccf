#include "util/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"
#include "util/buf.h"

static diag_detail the_error; /* the render's: what main prints */
static diag_detail *current = &the_error;
static const char *step;
static char **warnings;
static size_t nwarnings;

void diag_set_step(const char *s)
{
    step = s;
}

const char *diag_step(void)
{
    return step;
}

/* The whole line of d from its parts: "<file>:<line>: <step>: <message>" with the parts that are known. */
static void compose(diag_detail *d)
{
    size_t n = 0;
    char *t = d->text;
    if (d->file[0]) {
        if (d->line > 0)
            n += (size_t)snprintf(t + n, sizeof d->text - n, "%s:%d: ", d->file, d->line);
        else
            n += (size_t)snprintf(t + n, sizeof d->text - n, "%s: ", d->file);
    }
    if (n < sizeof d->text && d->step && *d->step)
        n += (size_t)snprintf(t + n, sizeof d->text - n, "%s: ", d->step);
    if (n < sizeof d->text)
        snprintf(t + n, sizeof d->text - n, "%s", d->message);
    else
        t[sizeof d->text - 1] = 0;
}

static void place(diag_detail *d, const char *file, int line)
{
    d->line = file && *file && line > 0 ? line : 0;
    snprintf(d->file, sizeof d->file, "%s", file ? file : "");
}

static int record(const char *file, int line, bool unplaced, const char *fmt, va_list ap)
{
    diag_detail *d = current;
    if (d->failed)
        return -1;
    d->failed = true;
    d->unplaced = unplaced;
    d->step = step;
    place(d, file, line);
    vsnprintf(d->message, sizeof d->message, fmt, ap);
    compose(d);
    return -1;
}

int fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    record(file, line, false, fmt, ap);
    va_end(ap);
    return -1;
}

int fail_here(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    record(NULL, 0, true, fmt, ap);
    va_end(ap);
    return -1;
}

int diag_locate(const char *file, int line, const char *fmt, ...)
{
    diag_detail *d = current;
    char context[sizeof d->message] = "";
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(context, sizeof context, fmt, ap);
        va_end(ap);
    }
    if (!d->failed)
        return fail(file, line, "%s", context);
    if (!d->unplaced)
        return -1;
    d->unplaced = false;
    place(d, file, line);
    if (*context) {
        char message[sizeof d->message];
        if (snprintf(message, sizeof message, "%s: %s", context, d->message) >= 0) /* cut to the record's size */
            memcpy(d->message, message, sizeof message);
    }
    compose(d);
    return -1;
}

bool diag_failed(void)
{
    return current->failed;
}

const char *diag_message(void)
{
    return current->failed ? current->text : "";
}

void diag_reset(void)
{
    the_error.failed = the_error.unplaced = false;
    the_error.text[0] = 0;
    current = &the_error;
    step = NULL;
    for (size_t i = 0; i < nwarnings; i++)
        xfree(warnings[i]);
    xfree(warnings);
    warnings = NULL;
    nwarnings = 0;
}

diag_detail *diag_capture(diag_detail *into)
{
    diag_detail *outer = current;
    into->failed = into->unplaced = false;
    into->line = 0;
    into->step = NULL;
    into->file[0] = into->message[0] = into->text[0] = 0;
    current = into;
    return outer;
}

void diag_restore(diag_detail *outer)
{
    current = outer ? outer : &the_error;
}

int diag_raise(const diag_detail *d)
{
    if (d->failed && !current->failed && d != current)
        *current = *d;
    return -1;
}

void diag_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    char *w = xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(w, (size_t)n + 1, fmt, ap);
    va_end(ap);
    warnings = xrealloc(warnings, (nwarnings + 1) * sizeof *warnings);
    warnings[nwarnings++] = w;
}

const char *diag_warning(size_t i)
{
    return i < nwarnings ? warnings[i] : NULL;
}

/* The length of the UTF-8 character at s[0..n), or 0 when the bytes there are not one (strict: no overlong form, no
 * surrogate, nothing over U+10FFFF); its code point in *cp. */
static size_t utf8_char(const unsigned char *s, size_t n, unsigned *cp)
{
    unsigned c = s[0];
    size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
    if (len == 1 || len > n || c < 0xc2 || c > 0xf4)
        return 0;
    unsigned v = c & (0x7f >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        v = v << 6 | (s[i] & 0x3f);
    }
    if ((len == 3 && v < 0x800) || (len == 4 && (v < 0x10000 || v > 0x10ffff)) || (v >= 0xd800 && v <= 0xdfff))
        return 0;
    *cp = v;
    return len;
}

/* Characters that act on a terminal or on how a line reads, beyond C0 and DEL: the C1 controls (U+0080-U+009F: CSI,
 * OSC, NEL...), the Unicode line and paragraph separators, and the bidirectional overrides and isolates, which
 * reorder the text shown around them. */
static bool hidden_char(unsigned cp)
{
    return (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 || (cp >= 0x202a && cp <= 0x202e) ||
           (cp >= 0x2066 && cp <= 0x2069);
}

/* The character at s[0..n) as it is shown: into piece (at least 8 bytes), its length returned; *used: its bytes. */
static size_t escape_one(const unsigned char *s, size_t n, char *piece, size_t *used)
{
    unsigned c = s[0], cp;
    *used = 1;
    if (c >= 0x20 && c < 0x7f) {
        piece[0] = (char)c;
        return 1;
    }
    if (c == '\n' || c == '\r' || c == '\t') {
        piece[0] = '\\';
        piece[1] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
        return 2;
    }
    size_t len = c < 0x80 ? 0 : utf8_char(s, n, &cp);
    if (!len) /* C0 (ESC, BEL, NUL...), DEL, or a byte that is not UTF-8: the byte alone, the next one afresh */
        return (size_t)snprintf(piece, 8, "\\x%02x", c);
    *used = len;
    if (hidden_char(cp))
        return (size_t)snprintf(piece, 8, "\\u%04x", cp);
    memcpy(piece, s, len);
    return len;
}

void text_escape(buf *out, const char *s, size_t n)
{
    char piece[8];
    for (size_t i = 0, used; i < n; i += used)
        buf_put(out, piece, escape_one((const unsigned char *)s + i, n - i, piece, &used));
}

const char *shown_in(char *out, size_t cap, const char *s, size_t max)
{
    size_t n = strlen(s), keep = n > max ? max : n;
    /* a cut inside a character would leave half of it, which would then show as bytes */
    for (int back = 0; keep < n && keep > 0 && back < 3 && ((unsigned char)s[keep] & 0xc0) == 0x80; back++)
        keep--;
    const char *more = keep < n ? "..." : "";
    size_t k = 0, used;
    char piece[8];
    for (size_t i = 0; i < keep; i += used) {
        size_t len = escape_one((const unsigned char *)s + i, keep - i, piece, &used);
        if (k + len + 4 > cap) { /* no escape or character cut in two */
            more = "...";
            break;
        }
        memcpy(out + k, piece, len);
        k += len;
    }
    if (cap)
        snprintf(out + k, cap - k, "%s", more);
    return out;
}

const char *shown(struct arena *a, const char *s)
{
    size_t cap = SHOWN_MAX * 6 + 4;
    return shown_in(arena_alloc(a, cap), cap, s, SHOWN_MAX);
}
