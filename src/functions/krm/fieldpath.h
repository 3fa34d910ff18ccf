/* kyaml's field-path language, as kustomize replacements write it: "spec.template.spec.containers.[name=app].image".
 *   a.b          map keys, separated by '.'; "\." is a dot inside a key
 *   [a.b/c]      a key that contains dots (brackets without '='); "[key]" names key too
 *   [k=v]        the list items whose field k matches the unanchored regex v ([=v]: scalar items)
 *   3            the list item at that index
 *   *            every list item */
#ifndef CMP_FUNCTIONS_FIELDPATH_H
#define CMP_FUNCTIONS_FIELDPATH_H
#include <stdbool.h>
#include <stddef.h>

#include "util/arena.h"
#include "util/limits.h"
#include "yaml/tree.h"

enum fp_kind { FP_KEY, FP_INDEX, FP_MATCH, FP_EVERY };

typedef struct fp_seg {
    enum fp_kind kind;
    const char *text;  /* the element as written, for messages */
    const char *key;   /* FP_KEY: the key; FP_MATCH: the item field compared ("" for scalar items) */
    const char *value; /* FP_MATCH: the pattern as written */
    size_t index;      /* FP_INDEX */
    void *re;          /* FP_MATCH: compiled pattern (pcre2_code), when parsed with regexes */
    /* FP_KEY written in brackets: bracketed (else 0), and whether the brackets held a '.' that splits the path
     * ("[a.b]", not "[key]" nor "[a\.b]"): kustomize api 0.10.1 reads only those as a key */
    bool bracketed, spans_dot;
} fp_seg;

typedef struct fieldpath {
    const char *text;
    fp_seg *seg;
    size_t n;
    bool has_every;
    /* the limits its patterns match under (max-regex-steps): the caller sets them from its context after
     * fieldpath_parse; NULL: the defaults */
    const limits *limits;
} fieldpath;

/* Errors: these functions see a path and a tree, not the file and line they came from; they return -1 after
 * fail_here(), and the caller places the error (diag_locate, or fn_locate in a function).
 *
 * Splits text; with regex, compiles every [k=v] pattern. Returns -1 on an empty path, an empty element, an unclosed
 * bracket or a pattern that does not compile (nothing to release then). After a successful parse,
 * fieldpath_release frees the compiled patterns. */
int fieldpath_parse(arena *a, const char *text, bool regex, fieldpath *fp);
void fieldpath_release(fieldpath *fp);

/* The one node the path names, as kyaml's Lookup reads a replacement source: [k=v] compares exactly and takes the
 * first matching item, "-" is the last item, '*' is refused. *out is NULL when a part is missing. Walking into a
 * node of the wrong kind (a key in a list, an index in a map) is an error. */
int fieldpath_get(arena *a, node *root, const fieldpath *fp, node **out);

typedef struct nodelist {
    node **v;
    size_t n, cap;
} nodelist;

/* Every node the path matches, appended to out (arena memory). [k=v] is the regex form, so fp must have been
 * parsed with regex. Missing parts match nothing; walking into the wrong kind is an error, as in kyaml's
 * PathMatcher. With create, missing map keys are added (as maps, or lists before an index or [k=v]), a [k=v]
 * that matches no item appends {k: v} (or the scalar v for [=v]), an index equal to the list length appends an
 * item, and a missing last part is added as an empty (null) scalar for the caller to fill. '*' cannot create. */
int fieldpath_find(arena *a, node *root, const fieldpath *fp, bool create, nodelist *out);

/* The same walk as older kyaml's PathGetter (Lookup, LookupCreate) takes a replacement target: [k=v] compares
 * exactly and takes only the first matching item, "-" on a list is its last item; create and errors as
 * fieldpath_find. At most one node is appended. */
int fieldpath_find_first(arena *a, node *root, const fieldpath *fp, bool create, nodelist *out);
#endif
