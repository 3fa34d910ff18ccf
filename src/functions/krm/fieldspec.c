#include "functions/krm/fieldspec.h"

#include <stdlib.h>
#include <string.h>

#include "yaml/scalar.h"

fieldspec_gvk fieldspec_gvk_of(const resource *r)
{
    return (fieldspec_gvk){res_kind(r), res_api_version(r)};
}

bool fieldspec_applies_gvk(const fieldspec *fs, const fieldspec_gvk *g)
{
    if (fs->kind && *fs->kind) {
        const char *k = g->kind;
        if (!k || strcmp(k, fs->kind))
            return false;
    }
    const char *av = g->api_version;
    const char *slash = av ? strrchr(av, '/') : NULL;
    if (fs->group) {
        size_t gl = slash ? (size_t)(slash - av) : 0;
        if (strlen(fs->group) != gl || (gl && strncmp(av, fs->group, gl)))
            return false;
    }
    if (fs->version && *fs->version) {
        const char *v = slash ? slash + 1 : av;
        if (!v || strcmp(v, fs->version))
            return false;
    }
    return true;
}

bool fieldspec_applies(const fieldspec *fs, const resource *r)
{
    fieldspec_gvk g = fieldspec_gvk_of(r);
    return fieldspec_applies_gvk(fs, &g);
}

/* Next segment of a path: "\/" is a literal slash; a trailing "[]" marks a sequence, which is walked when present
 * and never created (kyaml's rule: a created map where a list belongs would make the object invalid). The segment
 * is written to out (segment_len(*p) + 1 bytes): a walk is done for every object, and keys are copied only where
 * a map is created. */
static const char *next_segment(const char **p, char *out, bool *is_seq)
{
    const char *s = *p;
    size_t n = 0;
    while (*s && *s != '/') {
        if (s[0] == '\\' && s[1] == '/') {
            out[n++] = '/';
            s += 2;
            continue;
        }
        out[n++] = *s++;
    }
    *is_seq = n >= 2 && out[n - 2] == '[' && out[n - 1] == ']';
    if (*is_seq)
        n -= 2;
    out[n] = 0;
    *p = *s == '/' ? s + 1 : s;
    return out;
}

/* The bytes next_segment writes for the segment at s, before its NUL. */
static size_t segment_len(const char *s)
{
    size_t n = 0;
    for (; *s && *s != '/'; n++)
        s += s[0] == '\\' && s[1] == '/' ? 2 : 1;
    return n;
}

static int visit(arena *a, node *cur, const char *rest, bool create, field_fn fn, void *ud)
{
    if (!cur)
        return 0;
    if (is_seq(cur)) {
        seq_foreach(cur, i, item) {
            int rc = visit(a, item, rest, create, fn, ud);
            if (rc < 0)
                return rc;
        }
        return 0;
    }
    if (!is_map(cur))
        return 0;
    /* A segment without an escaped slash is looked up where it lies in the path, without a copy: only the key of
     * a map to create, and a last segment that is not the path's end, are copied below. */
    const char *end = rest;
    while (*end && *end != '/' && !(end[0] == '\\' && end[1] == '/'))
        end++;
    if (end > rest && *end != '\\') {
        size_t n = (size_t)(end - rest);
        bool seq_seg = n >= 2 && end[-2] == '[' && end[-1] == ']';
        const char *next = *end == '/' ? end + 1 : end;
        if (seq_seg && n == 2)
            ; /* an empty name: the walk below */
        else if (!*next && !*end && !seq_seg)
            return fn(ud, cur, rest); /* the last segment, ending the path: its own NUL */
        else if (*next) {
            node *child = map_get_n(cur, rest, seq_seg ? n - 2 : n);
            if (child && !is_null(child))
                return visit(a, child, next, create, fn, ud);
            if (!create || seq_seg)
                return 0;
            /* a map to create: its key is copied below */
        }
    }
    const char *p = rest;
    bool is_seq;
    /* the rare segment longer than the buffer (an author's own field spec) goes to the heap for the walk below it */
    char small[128], *big = NULL;
    if (segment_len(rest) >= sizeof small)
        big = xmalloc(segment_len(rest) + 1);
    const char *seg = next_segment(&p, big ? big : small, &is_seq);
    int rc = 0;
    if (!*p) {
        rc = fn(ud, cur, seg);
    } else {
        node *child = map_get(cur, seg);
        if (!child || is_null(child))
            child = create && !is_seq ? map_ensure_map(a, cur, seg) : NULL;
        rc = child ? visit(a, child, p, create, fn, ud) : 0;
    }
    xfree(big);
    return rc;
}

int fieldspec_visit(arena *a, node *root, const char *path, bool create, field_fn fn, void *ud)
{
    return visit(a, root, path, create, fn, ud);
}

static int cmp_kv(const void *x, const void *y)
{
    return strcmp(((const kv *)x)->key, ((const kv *)y)->key);
}

int kvlist_from_map(fn_ctx *c, const node *m, const char *what, kvlist *out)
{
    out->v = NULL;
    out->n = 0;
    out->maps = NULL;
    if (!m || is_null(m))
        return 0;
    if (!is_map(m))
        return fn_fail(c, m, "%s must be a map of strings", what);
    uint32_t len = node_len(m);
    out->v = arena_alloc(c->a, (len + 1) * sizeof *out->v);
    map_foreach(m, i, k, v) {
        if (!is_scalar(k) || !is_scalar(v))
            return fn_fail(c, v, "%s must be a map of strings (\"%s\" is not a string)", what,
                           is_scalar(k) ? scalar(k) : "?");
        out->v[out->n++] = (kv){scalar(k), scalar(v), v, node_key_shared(c->a, scalar(k), 0),
                                scalar_facts(scalar(v), scalar_len(v)), NULL};
    }
    qsort(out->v, out->n, sizeof *out->v, cmp_kv);
    return 0;
}

/* The maps a function makes whole on every object that lacks one (metadata.labels, metadata.annotations...), by
 * the key they go under: a few keys, so a short list. */
#define KV_MAPS 8
struct kv_maps {
    struct {
        const char *key;
        node *key_node;
        node *map; /* shared (node_map_share) */
        int changed;
    } v[KV_MAPS];
    size_t n;
};

void kvlist_share_values(arena *a, kvlist *pairs)
{
    for (size_t i = 0; i < pairs->n; i++)
        pairs->v[i].value_node = node_value_shared(a, pairs->v[i].value, pairs->v[i].value_facts);
    pairs->maps = arena_alloc(a, sizeof *pairs->maps);
}

static int set_pairs_in(arena *a, node *m, const kvlist *pairs, bool add_keys);

/* For an object that lacks parent[key]: the one map of the pairs that every such object holds (made the first time,
 * by the same edit of an empty map), or NULL when there is no room for another key (each object then gets its own).
 * Its key node is shared too; *changed: what the edit of the empty map counted. */
static node *shared_map(arena *a, const kvlist *pairs, const char *key, node **key_node, int *changed)
{
    struct kv_maps *ms = pairs->maps;
    for (size_t i = 0; i < ms->n; i++)
        if (!strcmp(ms->v[i].key, key)) {
            *key_node = ms->v[i].key_node, *changed = ms->v[i].changed;
            return ms->v[i].map;
        }
    if (ms->n == KV_MAPS)
        return NULL;
    node *m = node_map(a);
    int c = set_pairs_in(a, m, pairs, true);
    if (!node_map_share(m))
        return NULL;
    const char *k = arena_strdup(a, key); /* key may be a path segment the walk frees */
    ms->v[ms->n].key = k;
    ms->v[ms->n].key_node = *key_node = node_key_shared(a, k, 0);
    ms->v[ms->n].map = m;
    ms->v[ms->n++].changed = *changed = c;
    return m;
}

int set_string_pairs(arena *a, node *parent, const char *key, const kvlist *pairs, bool create_map, bool add_keys)
{
    node *m = map_get(parent, key);
    if (!m && create_map && add_keys && pairs->maps && pairs->n) {
        /* the objects that lack the map hold one for all of them (issue #32: on a dense package, each object's own
         * copy of the same pairs was a twentieth of the render's peak) */
        node *kn;
        int changed;
        node *sm = shared_map(a, pairs, key, &kn, &changed);
        if (sm) {
            map_append(a, parent, kn, sm);
            return changed;
        }
    }
    if (!m || is_null(m)) {
        if (!create_map)
            return 0;
        m = map_ensure_map(a, parent, key);
    } else if (is_map(m) && pairs->maps) {
        m = map_ensure_map(a, parent, key); /* a map many objects share (an earlier step's) gets its own copy */
    }
    if (!is_map(m))
        return 0;
    return set_pairs_in(a, m, pairs, add_keys);
}

static int set_pairs_in(arena *a, node *m, const kvlist *pairs, bool add_keys)
{
    /* where each key is, looked up once (a few pairs, on every object): missing ones are appended without another
     * look, into one array of the right size */
    long small[16], *at = pairs->n <= 16 ? small : arena_alloc(a, pairs->n * sizeof *at);
    uint32_t missing = 0;
    for (size_t i = 0; i < pairs->n; i++)
        missing += (at[i] = map_index(m, pairs->v[i].key)) < 0;
    if (add_keys)
        map_reserve(a, m, missing);
    int changed = 0;
    for (size_t i = 0; i < pairs->n; i++) {
        const kv *p = &pairs->v[i];
        /* a key the config names twice (the list is sorted: the pairs are neighbours) is there now */
        if (at[i] < 0 && i && !strcmp(pairs->v[i - 1].key, p->key))
            at[i] = map_index(m, p->key);
        if (at[i] < 0) {
            if (!add_keys)
                continue;
            /* the strings live in the config tree, in the same arena: share them across objects, and their facts
             * (and the value node itself where the function allows it) */
            if (p->value_node)
                map_append(a, m, p->key_node, p->value_node);
            else
                map_append_str_ref_key(a, m, p->key_node, p->value, p->value_facts);
            changed++;
            continue;
        }
        node *old = map_val(m, (uint32_t)at[i]);
        if (is_scalar(old) && !strcmp(scalar(old), p->value))
            continue;
        map_set_str_ref_key(a, m, p->key_node, p->value, p->value_facts);
        changed++;
    }
    return changed;
}
