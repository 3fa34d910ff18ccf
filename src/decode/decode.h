/* Reading a file as the Go tool that reads it after us does. kustomize and helm do not decode their kustomizations,
 * generator configs and chart files with our reader: sigs.k8s.io/yaml hands go-yaml v2's reading (YAML 1.1, with
 * tags, merge keys and more line breaks than YAML 1.2 has) to encoding/json, which matches a key to a struct field
 * ignoring case, Unicode folding included ("Resources", "reſources" and "RESOURCES" all fill "resources"; when two
 * keys fill one field, the one whose key sorts last wins: sigs.k8s.io/yaml passes the document through a Go map,
 * which encoding/json writes out in key order). Every check we make on such a file is worth only as much as our reading
 * agrees with theirs, so rather than chase each spelling, whatever the two readings could disagree on is refused
 * before any field is looked at:
 *   - a key that is not the exact name of a field of the Go struct at its level but matches one ignoring case;
 *     two keys that fill one field are caught by the same rule (one of them is not the exact name; exact
 *     duplicates are the loader's error);
 *   - every merge key "<<" (the caller loads with YAML_KEEP_MERGE_KEYS so that it stays in the tree);
 *   - every explicit tag ("!!binary" is base64-decoded by go-yaml; any other tag changes a value's type);
 *   - a key that is not a scalar;
 *   - NEL, LS and PS characters anywhere in the text: YAML 1.1 readers end a line there (go-yaml turns a comment's
 *     rest, or a value's, into keys), ours does not;
 *   - a plain scalar YAML 1.1 reads as a number or boolean in a field Go decodes into a string (unless it is the
 *     very text Go writes for it: "1000", "true"): sigs.k8s.io/yaml hands Go's own text for the value on, so
 *     "path: 1e3" is the file "1000" to kustomize (found by an attacker's review; check.c has the resolution rules);
 *   - for fields helm rewrites after decoding (a dependency's repository, name, version ...: sanitizeString drops
 *     non-printable characters, so "file://.<U+200B>./" becomes "file://../"), anything but printable ASCII.
 * The struct tables come from the tools' own Go types (kustomize_types.c, helm_types.c, with the versions they
 * follow). Below a map whose keys are data (labels, annotations, inline values), keys are not matched to fields, but
 * tags and merge keys are still refused: they change the decoded value. */
#ifndef CMP_DECODE_DECODE_H
#define CMP_DECODE_DECODE_H
#include <stdbool.h>
#include <stddef.h>

#include "util/arena.h"
#include "util/limits.h"
#include "yaml/tree.h"

typedef struct go_struct go_struct;

enum go_field_flags {
    GO_LIST = 1,      /* a list: of `of` when set, else of scalars or data */
    GO_DATA = 2,      /* a map or interface{}: its keys are data, never fields */
    GO_SANITIZED = 4, /* helm's sanitizeString rewrites the string (or each string of the list) after decoding */
    GO_UNREAD = 8,    /* no check of ours reads it, and the tool's users write numbers there unquoted ("appVersion:
                       * 1.0"): exempt from the rule on numbers a text field turns into Go's own text (check.c) */
};

/* One field of a Go struct as encoding/json sees it: the json name, with the fields of embedded structs flattened
 * into their parent as Go does. */
typedef struct go_field {
    const char *name;
    const go_struct *of; /* the struct it holds (or, with GO_LIST, each item holds); NULL for anything else */
    unsigned flags;
} go_field;

struct go_struct {
    const char *name;       /* Go's name of the type, for the tests' checks against the real tools */
    const go_field *fields; /* ends with a {NULL} entry */
};

/* Who reads a document, for messages: the file (as messages name it), the tool ("kustomize", "helm"), and where
 * the document sits when it is text inside a value of the file (an inline config): then every message names that
 * line and prefixes its field paths with at. */
typedef struct go_reader {
    arena *a;
    const char *file;
    const char *tool;
    int line;       /* 0: each message names the line of what it refuses */
    const char *at; /* "": the document is the file's */
} go_reader;

/* The document as type t (NULL: the top level is not a known struct, only the rules that need no schema apply).
 * 0, or -1 with fail() naming the file, the line, the field path and the rule. */
int go_check_doc(const go_reader *r, const node *doc, const go_struct *t);
/* The text of a file (or of an inline config) before it is loaded: the characters YAML 1.1 reads as line breaks.
 * 0 or -1. */
int go_check_text(const go_reader *r, const char *text, size_t len);

/* Go's encoding/json match of a key to an ASCII field name when not exact: equal rune by rune ignoring case, with
 * U+017F (long s) for s and U+212A (Kelvin sign) for k. Exposed for the unit tests. */
bool go_fold_equal(const char *key, const char *field);

/* kustomize v5.4.2 (kustomize_types.c) */
extern const go_struct go_kustomization;
/* The plugin struct of a builtin generator or transformer kind that reads files, or NULL for any other kind. */
const go_struct *go_kustomize_plugin(const char *kind);
/* Every plugin struct above, NULL-terminated, with the kind each is for (tests). */
extern const go_struct *const go_kustomize_plugins[];
extern const char *const go_kustomize_plugin_kinds[];

/* helm v3.17 (helm_types.c): Chart.yaml and requirements.yaml are chart.Metadata, Chart.lock and requirements.lock
 * chart.Lock. */
extern const go_struct go_helm_metadata;
extern const go_struct go_helm_lock;
/* The struct a chart file is read into, by its base name, or NULL. */
const go_struct *go_helm_chart_file(const char *base_name);

/* A chart file (base_name says which: Chart.yaml, Chart.lock, requirements.yaml, requirements.lock), loaded as one
 * document (*out, NULL when empty) and checked as helm reads it: go_check_text, then the loader with merge keys
 * kept, then go_check_doc. For every reader of those files, before it looks at any field. lim: the operator's loader
 * limits (NULL: the defaults). 0 or -1. */
int go_load_chart_file(arena *a, strtab *st, const load_limits *lim, const char *display, const char *base_name,
                       const char *text, size_t len, node **out);
#endif
