/* YAML text to compact trees, straight from libfyaml's event stream (no libfyaml documents are built). */
#ifndef CMP_YAML_LOAD_H
#define CMP_YAML_LOAD_H
#include <stddef.h>
#include <stdint.h>

#include "util/diag.h"
#include "util/limits.h"
#include "yaml/tree.h"

/* Every entry point takes lim, the operator's load_limits (util/limits.h: max-depth, max-alias-nodes) from the
 * caller's context (limits_yaml(L)); NULL: the defaults. */

/* Document callback: index counts non-empty documents only; seq_wide tells whether block sequences in the
 * document were indented under their key (kyaml's "wide") rather than level with it ("compact"). */
typedef int (*yaml_doc_fn)(void *ud, node *root, uint32_t index, uint32_t line, int seq_wide);

/* Parses data (which must stay alive during the call). Empty documents (nothing, or only null) are skipped.
 * Errors are reported through fail() with file and line; returns 0 or -1. */
int yaml_load(arena *a, strtab *st, const load_limits *lim, const char *file, const char *data, size_t len,
              yaml_doc_fn fn, void *ud);

/* A stream that arrives in pieces (a child's output, read while the child writes it). Documents reach fn as soon as
 * the text after them shows them complete, exactly as yaml_load would hand them over (the same indexes, lines of
 * the whole stream, the same errors), and only the documents not parsed yet are held. */
typedef struct yaml_stream yaml_stream;
yaml_stream *yaml_stream_new(arena *a, strtab *st, const load_limits *lim, const char *file, yaml_doc_fn fn, void *ud);
/* The next piece, of any size and cut anywhere. 0, or -1 (fail() said why) after which it takes nothing more. */
int yaml_stream_feed(yaml_stream *s, const char *data, size_t len);
/* The stream is complete: parses the rest. 0 or -1. */
int yaml_stream_end(yaml_stream *s);
void yaml_stream_free(yaml_stream *s);

/* Convenience: exactly one document (or none: *out = NULL). */
int yaml_load_one(arena *a, strtab *st, const load_limits *lim, const char *file, const char *data, size_t len,
                  node **out);

/* For text that a Go tool (kustomize, helm) reads after us, whose reader differs from ours where src/decode says:
 * YAML_KEEP_MERGE_KEYS leaves each merge key ("<<: *base") in its map as an ordinary plain "<<" key instead of
 * merging it, so that the caller sees it and can refuse it (go-yaml merges by rules of its own). */
enum yaml_load_flags { YAML_KEEP_MERGE_KEYS = 1 };
int yaml_load_flags(arena *a, strtab *st, const load_limits *lim, const char *file, const char *data, size_t len,
                    unsigned flags, yaml_doc_fn fn, void *ud);
int yaml_load_one_flags(arena *a, strtab *st, const load_limits *lim, const char *file, const char *data, size_t len,
                        unsigned flags, node **out);
/* yaml_load_one for a caller with a fallback (text that may be YAML or something else): what went wrong goes into
 * *why, which the caller owns and raises (diag_raise), rewords or drops; the render's error is left alone. */
int yaml_load_one_into(arena *a, strtab *st, const load_limits *lim, const char *file, const char *data, size_t len,
                       node **out, diag_detail *why);
/* Whether the error in why is one of the loader's limits (alias expansion, nesting depth): the text was YAML, too
 * big to take. A caller that reads text which fails to load some other way (a short form, a path, a plain string)
 * raises these instead, so the message names the limit and the setting that raises it. */
bool yaml_over_limit(const diag_detail *why);
#endif
