/* Private to src/yaml: what the loader and emitter know about a scalar's text (the facts scalar_facts finds, which
 * texts may be written plain, the source layout kept for in-place writes, line breaks as the loader scans them).
 * Outside src/yaml only src/yaml's unit tests (and fuzz targets) may include it (tests/harness: tree-private). */
#ifndef CMP_YAML_SCALAR_TEXT_H
#define CMP_YAML_SCALAR_TEXT_H
#include <stdbool.h>
#include <stddef.h>

#include "util/arena.h"
#include "yaml/scalar.h"

/* Can s be written as a plain scalar at all (syntax only)? flow: inside [...] or {...}. */
bool plain_allowed(const char *s, size_t n, bool flow);
/* Can s be written plain and still be read back as a string by every reader? */
bool plain_string_safe(const char *s, size_t n, bool flow);

/* Everything the emitter asks about a scalar's text, found in one pass (most text is plain ASCII and needs one
 * table lookup per byte), so that the answer can be kept while the text is unchanged. */
enum scalar_fact {
    SF_KNOWN = 1,      /* the facts are computed */
    SF_PLAIN = 2,      /* plain_allowed(s, n, false) */
    SF_PLAIN_FLOW = 4, /* plain_allowed(s, n, true) */
    SF_STRING = 8,     /* plain, it reads as a string to every reader (plain_string_safe = SF_PLAIN[_FLOW] && this) */
    SF_ESCAPES = 16,   /* holds NEL, LS, PS, C1 controls or U+FFFE/U+FFFF: they survive only as escapes in double quotes */
    SF_SINGLE = 32,    /* fits in single quotes: no control characters */
    SF_LITERAL = 64,   /* multi-line text that a literal block scalar keeps as it is */
};
/* Can s be the text of a literal block scalar, on one line or more: printable text and tabs, no blanks ending a
 * line, no tab starting one, not only line breaks (SF_LITERAL is this for text with a line break). */
bool block_scalar_fits(const char *s, size_t n);
/* For the loader: what the emitter's in-place writes need to keep the layout of a scalar read from d[sm..em)
 * (libfyaml's marks: between the quotes; a block scalar's lines after its header) whose value is val, or NULL
 * when the value alone gives it or it cannot be kept safely (see node.h, raw). */
const char *scalar_layout(arena *a, const char *d, size_t sm, size_t em, enum node_style style, const char *val,
                          size_t vlen);
/* Whether such a layout, written with style, reads back as val (the emitter asks before it writes one: a layout
 * is only ever written for the text it was read with). */
bool scalar_layout_reads_as(const char *raw, enum node_style style, const char *val, size_t vlen);
/* NEL (U+0085), LS (U+2028) and PS (U+2029) are line breaks to a YAML 1.1 reader (Argo CD's Go code) and text to
 * a YAML 1.2 one, so raw in a scalar they are folded by one and kept by the other; the other C1 controls and
 * U+FFFE/U+FFFF are refused in a 1.1 reader's input. The length of such a character at p, else 0. */
size_t break_or_c1(const char *p, size_t left);
/* Source text as the loader scans it, where a lone CR breaks a line too: the end of the line starting at i (where
 * its break begins, or n), and the length of the break at e (2 for CRLF, 0 at the end). */
size_t text_line_end(const char *d, size_t i, size_t n);
size_t text_break_len(const char *d, size_t e, size_t n);
#endif
