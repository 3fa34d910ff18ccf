/* The compact resource tree. Every object is parsed once into these nodes, every function edits them in place,
 * and the stream is emitted once at the end. A node is 32 bytes; strings are arena copies, keys are interned. */
#ifndef CMP_YAML_TREE_H
#define CMP_YAML_TREE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"

enum node_kind { N_SCALAR, N_MAP, N_SEQ };

enum node_style {
    /* scalars, as read */
    ST_PLAIN,
    ST_SINGLE,
    ST_DOUBLE,
    ST_LITERAL,
    ST_FOLDED,
    /* a string the program made: the emitter writes it plain only where every YAML 1.1 and 1.2 reader sees a string */
    ST_STRING,
    /* collections */
    ST_BLOCK = 0,
    ST_FLOW = 1,
};

struct node_extra {
    const char *tag;     /* as written: "!!str", "!custom"; NULL when untagged */
    const char *comment; /* line comment text after "# " */
    const char *head;    /* comment lines above a key or item, '\n'-joined, each without its indentation */
};

typedef struct node {
    uint8_t kind;
    uint8_t style;
    uint16_t col; /* 1-based source column, saturated */
    uint32_t line; /* 1-based source line; 0 for nodes the program made */
    union {
        struct {
            const char *str; /* NUL-terminated, never modified in place */
            uint32_t len;
        } s;
        struct {
            struct node **kids; /* maps: kids[2i] key, kids[2i+1] value */
            uint32_t n;          /* pairs for maps, items for sequences */
            uint32_t cap;        /* capacity in pairs or items */
        } c;
    };
    struct node_extra *x;
} node;

/* Interning table for keys and short repeated values; lives in the arena it was made with. */
typedef struct strtab strtab;
strtab *strtab_new(arena *a);
const char *intern(strtab *t, const char *s, size_t n);
/* Frees the lookup table (the strings stay in the arena). */
void strtab_release(strtab *t);

/* constructors */
node *node_scalar(arena *a, const char *s, size_t n, int style);
node *node_str(arena *a, const char *s); /* ST_STRING copy of s */
node *node_str_ref(arena *a, const char *s); /* ST_STRING sharing s, which must outlive the tree */
node *node_map(arena *a);
node *node_seq(arena *a);
node *node_clone(arena *a, const node *n);

static inline bool is_map(const node *n) { return n && n->kind == N_MAP; }
static inline bool is_seq(const node *n) { return n && n->kind == N_SEQ; }
static inline bool is_scalar(const node *n) { return n && n->kind == N_SCALAR; }
/* The scalar's text, or NULL for a collection or NULL node. */
const char *scalar(const node *n);
bool scalar_is(const node *n, const char *s);
/* A plain, untagged empty or "null"/"~" scalar. */
bool is_null(const node *n);

/* maps */
static inline node *map_key(const node *m, uint32_t i) { return m->c.kids[2 * i]; }
static inline node *map_val(const node *m, uint32_t i) { return m->c.kids[2 * i + 1]; }
node *map_get(const node *m, const char *key);
long map_index(const node *m, const char *key);
/* Sets key to val: replaces the value in place if the key exists, else appends. Returns val. */
node *map_set(arena *a, node *m, const char *key, node *val);
node *map_set_str(arena *a, node *m, const char *key, const char *val);
/* The same without copying key and val: both must live as long as the tree (arena or static strings). Many
 * objects then share one copy of a label or annotation, as strings are never edited in place. */
node *map_set_str_ref(arena *a, node *m, const char *key, const char *val);
void map_append(arena *a, node *m, node *key, node *val);
bool map_delete(node *m, const char *key);
/* The map under key, created (appended) when missing or null; NULL if key holds something else. */
node *map_ensure_map(arena *a, node *m, const char *key);

/* The pairs of a map or the items of a sequence; 0 for a scalar or NULL. */
static inline uint32_t node_count(const node *n) { return n && n->kind != N_SCALAR ? n->c.n : 0; }

/* sequences */
static inline node *seq_item(const node *s, uint32_t i) { return s->c.kids[i]; }
/* Replaces item i (i < node_count(s)). */
static inline void seq_set(node *s, uint32_t i, node *item) { s->c.kids[i] = item; }
void seq_append(arena *a, node *s, node *item);
void seq_remove(node *s, uint32_t i);

/* path helpers: path_get(n, "metadata", "name", NULL) */
node *path_get(const node *n, ...);
const char *path_str(const node *n, ...);

/* Deep structural equality of value, tag and kind (styles and comments ignored). */
bool node_equal(const node *a, const node *b);

void node_set_comment(arena *a, node *n, const char *comment);
void node_set_tag(arena *a, node *n, const char *tag);
static inline const char *node_comment(const node *n) { return n && n->x ? n->x->comment : NULL; }
static inline const char *node_tag(const node *n) { return n && n->x ? n->x->tag : NULL; }
static inline const char *node_head(const node *n) { return n && n->x ? n->x->head : NULL; }
#endif
