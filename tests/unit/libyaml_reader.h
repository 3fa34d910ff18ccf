/* The independent YAML 1.1 reader the emitter tests check against: libyaml, like Go's yaml behind Argo CD. */
#ifndef CMP_TEST_LIBYAML_READER_H
#define CMP_TEST_LIBYAML_READER_H
#include <yaml.h>

#include "util/arena.h"

/* Every scalar of the first document of text, in order, as libyaml reads them (copies in a); -1 when libyaml
 * refuses the text. At most max are kept. */
int libyaml_scalars(arena *a, const char *text, const char **out, int max);
/* The whole stream as libyaml reads it, one line per event, what a YAML 1.1 reader types by: "---" and "..." for
 * documents, "{" "}" "[" "]" for collections (flow or block alike), and for a scalar "null" when it is one (plain
 * "", "~", "null", "Null", "NULL", or tagged !!null), else its tag (or "?" for a plain one, "!" for a quoted or block
 * one) and its text. Anchors and comments are left out. NULL when libyaml refuses the text. */
const char *libyaml_values(arena *a, const char *text);
/* libyaml_values without the documents that are a lone null (comment-only ones, which the stream leaves out). */
const char *libyaml_values_no_null_docs(arena *a, const char *text);
/* NULL when back (libyaml's values of the written text) equals values (of src); else the message saying how not. */
const char *libyaml_mismatch(arena *a, const char *values, const char *src, const char *back, const char *text);
#endif
