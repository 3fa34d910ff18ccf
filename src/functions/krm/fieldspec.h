/* kustomize-style field specs: a '/'-separated path walked through maps, and through every element of a
 * sequence met on the way; missing maps are created only when asked. */
#ifndef CMP_FUNCTIONS_FIELDSPEC_H
#define CMP_FUNCTIONS_FIELDSPEC_H
#include <stdbool.h>

#include "functions/function.h"

typedef struct fieldspec {
    const char *group;   /* NULL: any group; "": the core group */
    const char *version; /* NULL or "": any */
    const char *kind;    /* NULL or "": any */
    const char *path;
    bool create;
} fieldspec;

bool fieldspec_applies(const fieldspec *fs, const resource *r);
/* The same with the item's kind and apiVersion read once (fieldspec_gvk_of), for a loop over many specs: reading
 * them for every spec was a fifth of set-annotations' work on small objects. Valid while the item's kind and
 * apiVersion stay as they were. */
typedef struct fieldspec_gvk {
    const char *kind, *api_version;
} fieldspec_gvk;
fieldspec_gvk fieldspec_gvk_of(const resource *r);
bool fieldspec_applies_gvk(const fieldspec *fs, const fieldspec_gvk *g);

/* Calls fn(ud, parent, key) for each map that holds (or, with create, will hold) the path's last key.
 * Intermediate maps are created only with create. Returns what fn returned if negative, else 0. */
typedef int (*field_fn)(void *ud, node *parent, const char *key);
int fieldspec_visit(arena *a, node *root, const char *path, bool create, field_fn fn, void *ud);

/* A flat string map (labels, annotations) from a config node; NULL values are rejected. */
typedef struct kv {
    const char *key, *value;
    const node *at;
    node *key_node;       /* one shared key node (node_key_shared) for every object the pair goes on */
    unsigned value_facts; /* scalar_facts of the value, found once for all of them */
    /* NULL: each object a pair is added to gets its own value node. A function whose fn_def says shares_values may
     * set one node_value_shared for all of them (set_string_pairs appends it) */
    node *value_node;
} kv;
struct kv_maps;
typedef struct kvlist {
    kv *v;
    size_t n;
    /* with shared values: the maps set_string_pairs made, one per parent key, that every object lacking that map
     * holds itself (node_map_share) */
    struct kv_maps *maps;
} kvlist;
/* One shared value node for each pair, which set_string_pairs then appends to every object that lacks the key, and
 * one shared map of all the pairs for every object that lacks the map: only for a function whose fn_def says
 * shares_values. */
void kvlist_share_values(arena *a, kvlist *pairs);
/* Reads a mapping of scalars into a list sorted by key. Returns -1 (with fn_fail) on a non-scalar. */
int kvlist_from_map(fn_ctx *c, const node *m, const char *what, kvlist *out);

/* Sets every pair on the map under parent[key]. create_map: make that map when it is missing; add_keys: add keys
 * that are missing (otherwise only existing keys are overwritten). Returns how many values changed. */
int set_string_pairs(arena *a, node *parent, const char *key, const kvlist *pairs, bool create_map, bool add_keys);
#endif
