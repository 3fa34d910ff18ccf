/* The compact resource tree. Every object is parsed once into these nodes, every function edits them in place,
 * and the stream is emitted once at the end. A node is 16 bytes; keys and short values are interned, other texts
 * are arena copies; tags and comments cost only the nodes that have them. A map pair is its two entry slots (16
 * bytes) and its value node: the loader gives most keys one node per distinct text, shared by every map that has
 * the key (src/yaml/node.h says which). So a key is read-only (map_key); its line is map_key_line, never
 * node_line(map_key()) (a shared key has no position of its own); an edit of a key starts with map_key_own. */
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

/* A node of the tree; its layout is src/yaml's own (src/yaml/node.h). */
typedef struct node node;

/* Interning table for keys and short repeated values; lives in the arena it was made with. */
typedef struct strtab strtab;
strtab *strtab_new(arena *a);
const char *intern(strtab *t, const char *s, size_t n);
/* Frees the lookup table (the strings stay in the arena). */
void strtab_release(strtab *t);
/* Empties the lookup table down to its starting size, keeping every string in the arena: texts interned from now on
 * are copied anew once each, so they share with each other but not with the texts interned before (which nothing may
 * compare by address with later ones; the loader compares the keys of one map, read within one load). For a package
 * whose load is done: the table held a slot for every distinct short value it read, which nothing looks up again. */
void strtab_reset(strtab *t);
/* The table's hash, for other tables keyed by texts a package writes: seeded once per process, so no input can be
 * written to make its texts collide. */
uint64_t text_hash(const char *s, size_t n);
/* The same hash from the strtab's fixed, published start: the same on every run, so that a table's work is too. A
 * table that uses it switches to text_hash the first time a probe runs long (texts chosen to collide from this
 * start), as the strtab does. */
uint64_t text_hash_fixed(const char *s, size_t n);

/* constructors */
node *node_scalar(arena *a, const char *s, size_t n, enum node_style style);
node *node_str(arena *a, const char *s); /* ST_STRING copy of s */
node *node_str_ref(arena *a, const char *s); /* ST_STRING sharing s, which must outlive the tree */
node *node_map(arena *a);
node *node_seq(arena *a);
/* A deep copy; the shared keys of its maps stay shared (a shared n itself becomes a private copy, without position). */
node *node_clone(arena *a, const node *n);

/* For a copy kept while its original is edited (a step's config, src/pipeline/executor.c). Turns copy, in place,
 * into what node_clone(orig) would give now, and returns it (or a new copy when the root itself cannot be kept). Its
 * nodes are reused where they can be, so memory grows with what changed, not with orig's size (the walk is O(size)).
 * Nothing else may hold a node of copy: they all change. */
node *node_refresh_copy(arena *a, node *copy, const node *orig);
/* True when copy is what node_clone(orig) would give now: the same kinds, texts, styles, tags, comments and
 * positions. O(size); allocates nothing. */
bool node_is_copy_of(const node *copy, const node *orig);

/* false for NULL */
bool is_map(const node *n);
bool is_seq(const node *n);
bool is_scalar(const node *n);
/* N_SCALAR, N_MAP or N_SEQ; n must not be NULL. */
enum node_kind node_kind(const node *n);
/* A scalar's style (ST_PLAIN..ST_STRING), or a collection's ST_BLOCK/ST_FLOW. */
enum node_style node_style(const node *n);
void node_set_style(node *n, enum node_style style);
/* 1-based source position (the column saturated at 65535); 0 for nodes the program made, for shared keys (use
 * map_key_line) and for NULL. */
uint32_t node_line(const node *n);
uint32_t node_col(const node *n);
void node_set_pos(node *n, uint32_t line, uint32_t col);

/* The scalar's text, or NULL for a collection or NULL node. */
const char *scalar(const node *n);
/* Its length in bytes (strlen: texts never hold a NUL, the loader refuses them); 0 for non-scalars. */
uint32_t scalar_len(const node *n);
bool scalar_is(const node *n, const char *s);
/* A plain, untagged empty or "null"/"~" scalar. */
bool is_null(const node *n);

/* How an edit of a scalar's text treats its type. Every edit of a scalar's text goes through scalar_set, so the
 * rules live in one place; which one applies is the calling function's (the catalog's) choice. */
enum scalar_edit {
    /* The new text is a string: quotes the author chose stay, anything else becomes a string we made (written plain
     * only where every reader sees a string). The tag goes. (set-labels, set-namespace, name references...) */
    SCALAR_AS_STRING,
    /* The new text is read for what it is, as the catalog's setters and search-replace do (a plain "8080" becomes a
     * number): the style the reader saw stays, a string we made is first pinned plain or double-quoted, the tag
     * goes. */
    SCALAR_AS_WRITTEN,
    /* The node keeps its type: a string stays a string (quoted if the text would read as something else), a number
     * or tagged value keeps its style and tag. (apply-replacements) */
    SCALAR_KEEP_TYPE,
};
/* Sets n's text to a copy of s[0..len). Its comments and position stay. Returns false when the text was already
 * that (nothing changes then, not even the style). */
bool scalar_set(arena *a, node *n, const char *s, size_t len, enum scalar_edit how);

/* Entries of a map (pairs) or items of a sequence; 0 for a scalar or NULL. */
uint32_t node_len(const node *n);

/* Walking a collection: map_foreach(m, i, key, val) { ... } and seq_foreach(s, i, item) { ... } declare, for the
 * body only, uint32_t i (the entry's index), const node *key (map_key(m, i): read-only, see map_key_own), node *val
 * (map_val(m, i)) and node *item (seq_item(s, i)). m and s are evaluated once; a NULL, a scalar or a collection of
 * the other kind has no entries (unlike node_len, a sequence has none for map_foreach and a map none for
 * seq_foreach). break, continue and return work as in any loop.
 * Edits in the body: the body may edit key (through map_key_own), val and item, and replace the current entry's
 * value (map_set_val(m, i, ...), seq_set(s, i, ...), map_set on its own key); the length is read again before each
 * entry, as `i < node_len(s)` would be, so an entry the body appends is visited too. Removing or inserting entries
 * at or before i shifts the rest under the loop (the entry after a removed one is skipped): such a loop keeps an
 * index loop, which says what it does to i (or walks backwards). */
/* node_len(n) when n is a collection of that kind (N_MAP or N_SEQ), else 0: the iterators' bound, one call a step
 * as node_len was in the index loops. */
uint32_t node_len_as(const node *n, enum node_kind kind);
/* Three nested loops make one: the outer holds the collection (and map_foreach's key), the middle counts i, the
 * inner declares the entry and runs the body once; i##_go_ tells the middle loop whether the body ended normally
 * (the inner loop's step sets it) or by break (it stays 0). No GNU extension: C11 declarations in for. */
#define map_foreach(m, i, key, val)                                                                                    \
    for (const node *i##_of_ = (m), *key = NULL; i##_of_; i##_of_ = NULL)                                              \
        for (uint32_t i = 0, i##_go_ = 1; i##_go_ && i < node_len_as(i##_of_, N_MAP); i++)                             \
            for (node *val = (i##_go_ = 0, key = map_key(i##_of_, i), map_val(i##_of_, i));                            \
                 !i##_go_ && ((void)key, (void)val, 1); i##_go_ = 1)
#define seq_foreach(s, i, item)                                                                                        \
    for (const node *i##_of_ = (s); i##_of_; i##_of_ = NULL)                                                           \
        for (uint32_t i = 0, i##_go_ = 1; i##_go_ && i < node_len_as(i##_of_, N_SEQ); i++)                             \
            for (node *item = (i##_go_ = 0, seq_item(i##_of_, i)); !i##_go_ && ((void)item, 1); i##_go_ = 1)

/* maps
 *
 * Reading, which one when:
 *   map_get(m, "key")          the value under a key, NULL when m is no map or lacks it (the first pair holding it)
 *   map_get_n(m, key, len)     the same for a key that is a slice of a longer text (a field path's segment)
 *   map_index(m, "key")        the entry's index, -1 when missing: for map_key_line in a message, map_remove, or
 *                              map_insert next to it
 *   path_get(n, "a", "b", NULL)  map_get down a path of keys (NULL as soon as one is missing or not a map)
 *   path_str(n, "a", "b", NULL)  the scalar text at the end of such a path, NULL when missing or not a scalar
 *   map_key, map_val, map_key_line  entry i, in a walk (map_foreach) or after map_index
 *
 * Writing, which one when (every setter but map_append, map_append_str_ref_key and map_insert looks for the key
 * first and edits the pair it finds; the key strings are copied unless the name says _ref):
 *   map_set(m, "key", val)       a node the caller built (a map, a list, a number); an existing value's line
 *                                comment moves to val
 *   map_set_str(m, "key", "v")   a string value, key and text copied; an existing scalar keeps its node (quotes,
 *                                comment) and takes the new text as a string
 *   map_set_str_ref              the same without copying: key and text outlive the tree (static, arena, interned)
 *   map_set_str_ref_facts        the same with scalar_facts of both computed once, for a pair set on every object
 *   map_set_str_ref_key          the same with a key node from node_key_shared, which a missing pair holds itself
 *   map_append_str_ref_key       the same appended without looking: the caller knows the key is missing
 *   map_set_shared(m, key, val)  key and val nodes many maps hold, for the last edit before the emit (the stamps)
 *   map_append(m, key, val)      appended without looking, with a key node (another map's: a copy, a merge)
 *   map_insert(m, i, key, val)   the same before entry i (a pair put in its sorted place)
 *   map_ensure_map(m, "key")     the map under key, made when missing or null: the parent of the next setter
 *   map_set_val(m, i, val)       entry i's value replaced, in a walk or after map_index
 * Removing: map_delete(m, "key") by key (false when missing), map_remove(m, i) by index; map_reserve makes room
 * first when a caller knows how many pairs it is about to add.
 */
/* The key of entry i, read-only: many maps may share it (an edit goes through map_key_own). */
const node *map_key(const node *m, uint32_t i);
/* The 1-based source line of entry i's key: its own, or for a shared key the one its value gives (the value's line,
 * or the line above for a block collection under "key:"); 0 when the value was made by the program. Every message
 * that names a key's line takes it from here. */
uint32_t map_key_line(const node *m, uint32_t i);
/* Entry i's key as a node the caller may edit: a shared key is first replaced, in this entry only, by a private
 * copy carrying its line (map_key_line; column 0). Other maps keep the shared node. */
node *map_key_own(arena *a, node *m, uint32_t i);
node *map_val(const node *m, uint32_t i);
void map_set_val(node *m, uint32_t i, node *val);
node *map_get(const node *m, const char *key);
/* The same for the key key[0..len), which need not end there (len > 0). */
node *map_get_n(const node *m, const char *key, size_t len);
long map_index(const node *m, const char *key);
/* Sets key to val: replaces the value in place if the key exists, else appends. Returns val. */
node *map_set(arena *a, node *m, const char *key, node *val);
node *map_set_str(arena *a, node *m, const char *key, const char *val);
/* The same without copying key and val: both must live as long as the tree (arena or static strings). Many
 * objects then share one copy of a label or annotation, as strings are never edited in place. */
node *map_set_str_ref(arena *a, node *m, const char *key, const char *val);
/* The same with the facts of key and val (scalar_facts) computed once by the caller: a function that sets the same
 * pair on every object spares the emit finding them again for each. */
node *map_set_str_ref_facts(arena *a, node *m, const char *key, unsigned key_facts, const char *val,
                            unsigned val_facts);
/* A key node many maps may hold (a label or annotation a function sets on every object): marked shared, as the
 * loader's shared keys, so it is never edited (map_key_own gives a pair its own copy first). text must live as long
 * as the trees; facts 0: found here. */
node *node_key_shared(arena *a, const char *text, unsigned facts);
/* map_set_str_ref for the text of such a key: a missing pair is appended with the key node itself, which saves a
 * node a pair on every object. */
node *map_set_str_ref_key(arena *a, node *m, node *key, const char *val, unsigned val_facts);
/* The same for a key the caller knows m does not hold: appended without looking. */
node *map_append_str_ref_key(arena *a, node *m, node *key, const char *val, unsigned val_facts);
/* Room for extra more entries in a map or sequence, made at once and exactly: for a caller that knows how many it
 * is about to add (labels, annotations, stamps), which would otherwise grow the entries by doubling. */
void map_reserve(arena *a, node *c, uint32_t extra);
/* Sets key to val where many maps share the same two scalar nodes: a missing key gets key and val themselves, an
 * existing one keeps its own node with val's text. val must be marked shared (node_value_shared) unless nothing
 * edits the tree afterwards (the Argo CD stamps): an edit of one object's value would otherwise show in all. */
void map_set_shared(arena *a, node *m, node *key, node *val);
/* A string value many maps may hold, one node for all (the label a function sets on every object): marked shared,
 * so that no mutator edits it (they stop, as on a shared key); the setters (map_set_str*, map_set_shared) replace it
 * in the map they edit, map_val_own gives an entry its own copy. text must live as long as the trees. */
node *node_value_shared(arena *a, const char *text, unsigned facts);
/* Marks m, a map of plain scalar pairs (no comments, tags or collections), and its pairs shared, so that many maps
 * may hold m itself as a value (the map set-labels or set-annotations makes on every object that lacks one): the
 * mutators refuse it from then on, map_ensure_map and map_val_own give an entry its own copy. Returns m, or NULL
 * (m unmarked) when it is no such map. */
node *node_map_share(node *m);
/* Gives every map entry and sequence item under n whose value is shared its own copy (keys stay shared): before
 * code that may edit values in place other than through the setters. */
void node_own_values(arena *a, node *n);
/* Entry i's value as a node the caller may edit: a shared one (map_set_tail_shared) is first replaced, in this entry
 * only, by a private copy (a map's copy has its own entries, whose nodes stay shared until owned in turn). */
node *map_val_own(arena *a, node *m, uint32_t i);
/* For the last edit before the emit, when many maps end the same way (the Argo CD stamps): m's value under key (a
 * map, made when missing) becomes a map of its own pairs followed by keys[i]: vals[i] for i < n -- the map *last
 * when that one holds the same (texts and styles; *last is then shared by every such object), else a new one,
 * which becomes *last. Every node of that map is marked shared: the mutators refuse it (an edit goes through
 * map_val_own, or a setter that replaces the value), node_clone copies it. false, with m untouched, when the value
 * is not a plain map of plain scalars (comments, tags, a null) or holds one of the keys: the caller then edits the
 * object's own map. */
bool map_set_tail_shared(arena *a, node *m, const char *key, node *const *keys, node *const *vals, uint32_t n,
                         node **last);
/* The key may be another map's: both maps then hold the same node (a shared key is never edited; a private one is
 * edited for both). */
void map_append(arena *a, node *m, const node *key, node *val);
/* Inserts key: val before entry i (i == node_len(m) appends). */
void map_insert(arena *a, node *m, uint32_t i, const node *key, node *val);
bool map_delete(node *m, const char *key);
void map_remove(node *m, uint32_t i);
/* The map under key, created (appended) when missing or null; NULL if key holds something else. */
node *map_ensure_map(arena *a, node *m, const char *key);

/* sequences */
node *seq_item(const node *s, uint32_t i);
void seq_set(node *s, uint32_t i, node *item);
void seq_append(arena *a, node *s, node *item);
/* Inserts item before item i (i == node_len(s) appends). */
void seq_insert(arena *a, node *s, uint32_t i, node *item);
void seq_remove(node *s, uint32_t i);

/* Empties a map or sequence. */
void node_clear(node *c);
/* dst becomes src: its kind, style, text or entries, and tag. dst keeps its position, and each of its comments (line,
 * head, foot, the document's) where src has none. src must not be used afterwards (its entries now belong to dst). */
void node_move(node *dst, node *src);

/* path helpers: path_get(n, "metadata", "name", NULL) */
node *path_get(const node *n, ...);
const char *path_str(const node *n, ...);

/* Deep structural equality of value, tag and kind (styles and comments ignored). */
bool node_equal(const node *a, const node *b);

/* comments (a line comment stored without the "# "; head and foot lines with theirs) and tags (as written: "!!str",
 * "!custom"). A head is the lines above a key or sequence item; a collection's foot is the lines after its last
 * entry, at its entries' indentation (written after them while the collection is a block). */
void node_set_comment(arena *a, node *n, const char *comment);
void node_set_head(arena *a, node *n, const char *head);
void node_set_foot(arena *a, node *n, const char *foot);
/* Line, head and foot comments, and a document root's comment-only documents around it, all go. */
void node_clear_comments(node *n);
void node_set_tag(arena *a, node *n, const char *tag);
const char *node_comment(const node *n);
const char *node_tag(const node *n);
const char *node_head(const node *n);
const char *node_foot(const node *n);
#endif
