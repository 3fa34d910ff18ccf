/* The one emit: compact trees to YAML (kyaml's layout: 2-space maps, per-document sequence indent) or JSON. */
#ifndef CMP_YAML_EMIT_H
#define CMP_YAML_EMIT_H
#include <stdbool.h>

#include "util/buf.h"
#include "yaml/tree.h"

typedef struct emit_opts {
    bool seq_wide; /* "key:\n  - a" instead of "key:\n- a" */
    bool comments; /* write line, head and foot comments */
    /* with comments: also the comment-only documents and stream comments around the document (in-place writes
     * keep them; a stream of objects for Argo CD never has them) */
    bool documents;
    /* In-place writes (kpt's): a scalar whose text and style are as read keeps its source layout (a block scalar
     * on one line, folded lines, the line breaks of a plain or quoted one) where that reads back as its value;
     * the Argo CD stream is written the one deterministic way. */
    bool keep_style;
} emit_opts;

/* One document, ending in a newline, without a "---" separator. */
void emit_yaml(buf *b, const node *root, const emit_opts *o);
/* Compact JSON on one line, no trailing newline. Plain scalars are typed the way YAML 1.1 readers type them. */
void emit_json(buf *b, const node *root);
/* A JSON string literal, quotes included. */
void json_quote(buf *b, const char *s);
#endif
