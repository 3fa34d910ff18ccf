/* The node itself: src/yaml's alone (tree.h gives everything else its functions).
 *
 * A node is 16 bytes: what it is, its source line, and one pointer. A scalar's pointer is its NUL-terminated text,
 * shared and never modified in place (interned keys and short values, copies, or strings the program made); a
 * collection's is its entries, allocated at their final size once the loader has read the whole collection. What
 * few nodes have, a tag or comments, hangs off a side block that only those nodes pay for: the pointer then leads
 * to that block, which holds the text or entries.
 *
 * A map pair costs its two entry slots (16 bytes) and its value node; its key node is most often shared. The loader
 * gives every ordinary key (plain, untagged, no anchor, no comment, on the line its value says) the one node its
 * strtab keeps for that text (key_shared): a shared node has no position (line and column 0), the pair's key line
 * is derived from the value (map_key_line), and it is never edited: map_key() hands out const nodes, an edit goes
 * through map_key_own(), which gives the pair a private copy first, and every mutator in tree.c refuses a shared
 * node (shared_edit: an assertion, and a loud stop even where assertions are compiled out). */
#ifndef CMP_YAML_NODE_H
#define CMP_YAML_NODE_H
#include "yaml/tree.h"

struct node {
    /* in this order, the facts and the column each fill whole bytes */
    unsigned facts : 8; /* scalars: scalar_facts() of the text (SF_*), 0 until known; reset whenever the text changes */
    unsigned kind : 2;  /* enum node_kind */
    unsigned style : 3; /* enum node_style */
    unsigned extra : 1; /* the pointer is to a struct ext */
    unsigned shared : 1; /* a key node many pairs share (key_shared), or a map of the last edit and its pairs that
                          * many objects share (map_set_tail_shared): no position that counts, never edited, never
                          * extra */
    unsigned below : 1;  /* a value whose key is shared and sits on the line above it (a block collection under
                          * "key:"): map_key_line is line - 1. A fact about the position: style edits keep it */
    unsigned col : 16; /* 1-based source column, saturated; 0 for nodes the program made */
    uint32_t line;      /* 1-based source line; 0 for nodes the program made */
    union {
        const char *str;   /* a scalar's text */
        struct kids *kids; /* a collection's entries; NULL while empty */
        struct ext *ext;   /* with extra: the side block, which holds one of the above */
    };
};
_Static_assert(sizeof(struct node) == 16, "a node is 16 bytes");

/* Entries: maps hold n pairs (v[2i] key, v[2i+1] value), sequences n items. */
struct kids {
    uint32_t n, cap; /* in pairs or items */
    node *v[];
};

struct ext {
    union {
        const char *str;
        struct kids *kids;
    };
    const char *tag;     /* as written: "!!str", "!custom"; NULL when untagged */
    const char *comment; /* line comment text after "# " */
    const char *head;    /* comment lines above a key or item, '\n'-joined, each without its indentation; for the
                          * first key of a sequence item's block map, the lines after its "- " ("- # a" / "  # b") */
    const char *foot;    /* comment lines after a block collection's last entry, indented as its entries */
    struct doc_text *doc; /* a document's root: the stream's text around it */
    /* The source layout of a scalar that the value alone does not give, kept for in-place writes while the text
     * and style are as read (set_text and node_set_style drop it): a block scalar's header ("|-", ">+"), for a
     * folded one followed by "\n" and its lines without their indentation; a multi-line plain or quoted scalar's
     * source text between its quotes. NULL for everything else. */
    const char *raw;
};

/* What a file holds around one of its documents besides the document itself: comment lines and comment-only
 * documents, kept for in-place writes. Each is '\n'-joined lines as they go out, "---" lines included. */
struct doc_text {
    const char *before; /* ends in a "---" line: comments before the document's start, comment-only documents */
    const char *after;  /* starts with a "---" line: comment-only documents after the file's last document */
};

static inline struct ext *node_ext(const node *n)
{
    return n->extra ? n->ext : NULL;
}

/* A scalar's text (n must be a scalar). */
static inline const char *nstr(const node *n)
{
    return n->extra ? n->ext->str : n->str;
}

/* A collection's entries, or NULL (n must be a collection). */
static inline struct kids *nkids(const node *n)
{
    return n->extra ? n->ext->kids : n->kids;
}

static inline void set_nkids(node *n, struct kids *k)
{
    if (n->extra)
        n->ext->kids = k;
    else
        n->kids = k;
}

/* Entries or items of a collection. */
static inline uint32_t nkids_n(const node *n)
{
    const struct kids *k = nkids(n);
    return k ? k->n : 0;
}

/* A node's tag and comments (n not NULL), for src/yaml's loops. */
static inline const char *ntag(const node *n)
{
    return n->extra ? n->ext->tag : NULL;
}

static inline const char *ncomment(const node *n)
{
    return n->extra ? n->ext->comment : NULL;
}

static inline const char *nhead(const node *n)
{
    return n->extra ? n->ext->head : NULL;
}

static inline const char *nraw(const node *n)
{
    return n->extra ? n->ext->raw : NULL;
}

static inline const char *nfoot(const node *n)
{
    return n->extra ? n->ext->foot : NULL;
}

static inline const struct doc_text *ndoc(const node *n)
{
    return n->extra ? n->ext->doc : NULL;
}

/* The side block of n, created empty if missing. */
struct ext *node_ext_get(arena *a, node *n);
unsigned node_facts_find(const node *n);
/* The facts of a scalar's text (scalar_facts), computed on first use and kept in the node. */
static inline unsigned node_facts(const node *n)
{
    return n->facts ? n->facts : node_facts_find(n);
}
/* A scalar whose text is shared (it must live as long as the tree), with its facts if known (else 0). */
node *node_scalar_shared(arena *a, const char *text, enum node_style style, unsigned facts);
/* Interns s[0..n) and gives its facts (computed once per distinct text). */
const char *intern_facts(strtab *t, const char *s, size_t n, unsigned *facts);
/* The node the strtab keeps for the key text text (interned in t, with its facts): one per distinct text, made on
 * first use, in the strtab's arena. */
node *key_shared(strtab *t, const char *text, unsigned facts);
/* A collection's entries holding room for cap pairs or items. */
struct kids *kids_new(arena *a, uint32_t cap, bool map);
#endif
