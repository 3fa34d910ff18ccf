/* What apply-setters, create-setters and list-setters share: the "# kpt-set: PATTERN" line comments, the
 * "${name}" references in a pattern, the walk over a resource with kyaml-style field paths, and the setter
 * values of a functionConfig's data map. */
#ifndef CMP_FUNCTIONS_SETTERS_H
#define CMP_FUNCTIONS_SETTERS_H
#include <stdbool.h>
#include <stddef.h>

#include "functions/function.h"
#include "util/buf.h"

/* The pattern of a setter comment, trimmed ("${tag}" for "kpt-set: ${tag}"), or NULL when the comment is not a
 * setter comment. The loader keeps the comment text after "# ", so the catalog's "# kpt-set: " is "kpt-set: ". */
const char *setter_pattern(arena *a, const char *comment);

/* The comment that marks a sequence field as an array setter: a flow sequence carries it after its "]", a
 * block sequence on its key ("key: # kpt-set: ${x}"). An empty sequence prints as "[]" either way. */
const node *seq_comment_holder(const node *key, const node *seq);

/* One "${name}" in a pattern: where it starts and how long the whole reference is. */
typedef struct setter_ref {
    const char *name;
    size_t at, len;
} setter_ref;

/* The references of a pattern in order (a name may repeat). Returns the count; *out is arena memory. */
size_t setter_refs(arena *a, const char *pattern, setter_ref **out);

/* Recovers the values of a pattern's references from a field's current value, the way the catalog does it: the
 * pattern becomes a regular expression with a greedy "(.*)" per reference (no newlines inside), searched
 * unanchored, leftmost-first. Fills values[i] for refs[i]; false when it does not match or a value is empty, and
 * for values over 4096 bytes or patterns with over 256 references (not recovered, to bound the search). */
bool setter_recover(arena *a, const char *pattern, const setter_ref *refs, size_t nrefs, const char *value,
                    const char **values);

/* Field paths as the catalog prints them: "spec.template.spec.containers[0].image". */
typedef struct field_path {
    buf b;
} field_path;
size_t field_path_push_key(field_path *p, const char *key);
size_t field_path_push_index(field_path *p, size_t i);
void field_path_pop(field_path *p, size_t mark);
/* The current path, copied into the arena. */
const char *field_path_str(arena *a, field_path *p);
/* The current path plus ".key", copied into the arena. */
const char *field_path_with_key(arena *a, field_path *p, const char *key);

/* A walk like the catalog's: a mapping is offered whole (for its sequence-valued fields) before its values are
 * walked, sequences item by item, and every scalar value is offered (mapping keys are not). A negative return
 * stops the walk and is passed up. */
typedef struct setter_walk {
    int (*mapping)(void *ud, node *map, field_path *path);
    int (*scalar)(void *ud, node *scalar, field_path *path);
    void *ud;
    field_path path;
} setter_walk;
int setter_walk_tree(setter_walk *w, node *root);
void setter_walk_done(setter_walk *w);

/* A setter given in a functionConfig or Kptfile: a name and its text value. */
typedef struct setter_value {
    const char *name;
    const char *value;
    const node *at;
} setter_value;

/* Reads a data map of setters in document order. Values must be scalars: a null value or a nested mapping or
 * list is a config error that names the setter (who). A missing or null data map gives no setters. */
int setters_from_data(fn_ctx *c, const node *data, const char *who, setter_value **out, size_t *n);

/* Parses a setter value as YAML: 1 when it is YAML (*out is NULL for an empty or null document: "", "null", "~"),
 * 0 when it is not (a plain string to the callers; no render error is recorded), -1 when it is YAML over a loader
 * limit (recorded: the value cannot be read either way, and the error names the limit). */
int setter_parse_value(fn_ctx *c, const char *text, node **out);

/* A sequence item's text for comparing sequences: the scalar's value, "" for a nested collection (as kyaml's
 * Node.Value reads). */
const char *seq_item_text(const node *item);

/* Go's %q: a double-quoted string with Go escapes, as the catalog's result messages print values. */
const char *go_quote(arena *a, const char *s);
#endif
