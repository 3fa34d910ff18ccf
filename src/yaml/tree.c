#include "yaml/node.h"

#include "yaml/scalar_text.h"

#include <assert.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* ---- interning */

struct slot {
    const char *s; /* NULL: free */
    uint32_t len;
    uint8_t facts; /* scalar_facts(s), computed when the text is first interned */
};

struct strtab {
    arena *a;
    struct slot *slots;
    size_t cap, used;
    uint64_t seed; /* FIXED_SEED, or hash_seed() once a probe ran past PROBE_LIMIT */
    bool reseeded;
    /* the shared key nodes (key_shared), found by their text's hash (an address would make the probes, and so
     * the work, differ from run to run): one per distinct key, so a few hundred where the slots hold every short
     * value */
    node **keys;
    size_t keys_cap, keys_used;
};

/* The hash's rounds are public and invertible, so with a fixed start a package author could compute a few hundred
 * thousand short values that all land on one run of slots (each insert then probes past all the others: a 4 MB
 * file took 45 s of CPU where 0.6 s is normal). A table starts from a fixed seed, so that the work of a render is
 * the same on every run of the same input (make bench compares instruction counts), and draws a secret seed, once,
 * the first time an insert or a lookup probes past PROBE_LIMIT slots: an ordinary input never does (at half load,
 * runs that long do not happen by chance), a crafted one loses its collisions to a start it cannot know. Nothing
 * the program prints depends on where a text sits in the table, so the output stays the same either way. */
#define FIXED_SEED 0x2545f4914f6cdd1dull
#define PROBE_LIMIT 48
static uint64_t hash_seed(void)
{
    static uint64_t seed;
    static bool drawn;
    if (!drawn) {
        if (getrandom(&seed, sizeof seed, GRND_NONBLOCK) != (ssize_t)sizeof seed) {
            /* no entropy yet (early boot): what ASLR and the clock give is still unknown to the author */
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            seed = (uint64_t)(uintptr_t)&seed ^ (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
        }
        drawn = true;
    }
    return seed;
}

/* Eight bytes at a time: keys and short values are hashed once each as they are read. */
static uint64_t hash_bytes(uint64_t seed, const char *s, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ seed ^ n;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
        s += 8;
        n -= 8;
    }
    uint64_t w = 0;
    if (n >= 4) { /* the first and the last four bytes, overlapping when n < 8 */
        uint32_t lo, hi;
        memcpy(&lo, s, 4);
        memcpy(&hi, s + n - 4, 4);
        w = (uint64_t)hi << 32 | lo;
    } else if (n) {
        w = (uint64_t)(unsigned char)s[0] | (uint64_t)(unsigned char)s[n / 2] << 8 | (uint64_t)(unsigned char)s[n - 1] << 16;
    }
    /* murmur3's finaliser: every input bit reaches the low bits the table uses */
    h ^= w;
    h = (h ^ (h >> 33)) * 0xff51afd7ed558ccdull;
    h = (h ^ (h >> 33)) * 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 33);
}

uint64_t text_hash(const char *s, size_t n)
{
    return hash_bytes(hash_seed(), s, n);
}

uint64_t text_hash_fixed(const char *s, size_t n)
{
    return hash_bytes(FIXED_SEED, s, n);
}

strtab *strtab_new(arena *a)
{
    strtab *t = arena_alloc(a, sizeof *t);
    t->a = a;
    t->cap = 1024;
    t->seed = FIXED_SEED;
    t->slots = xmalloc(t->cap * sizeof *t->slots);
    memset(t->slots, 0, t->cap * sizeof *t->slots);
    return t;
}

void strtab_release(strtab *t)
{
    if (!t)
        return;
    xfree(t->slots);
    t->slots = NULL;
    xfree(t->keys);
    t->keys = NULL;
}

void strtab_reset(strtab *t)
{
    if (!t || !t->slots)
        return;
    xfree(t->slots);
    t->cap = 1024;
    t->used = 0;
    t->slots = xmalloc(t->cap * sizeof *t->slots);
    memset(t->slots, 0, t->cap * sizeof *t->slots);
    /* the shared key nodes are found by their text's address, which a key interned from now on does not have */
    xfree(t->keys);
    t->keys = NULL;
    t->keys_cap = t->keys_used = 0;
}

static void keys_rehash(strtab *t, size_t cap);

/* The slots again at cap (the same or twice as many) with the current seed. */
static void strtab_rehash(strtab *t, size_t cap)
{
    struct slot *slots = xmalloc(cap * sizeof *slots);
    memset(slots, 0, cap * sizeof *slots);
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->slots[i].s)
            continue;
        size_t j = hash_bytes(t->seed, t->slots[i].s, t->slots[i].len) & (cap - 1);
        while (slots[j].s)
            j = (j + 1) & (cap - 1);
        slots[j] = t->slots[i];
    }
    xfree(t->slots);
    t->slots = slots;
    t->cap = cap;
}

static void strtab_grow(strtab *t)
{
    strtab_rehash(t, t->cap * 2);
}

/* A probe ran past PROBE_LIMIT slots: the texts were chosen to collide under the fixed seed. A secret one from
 * now on, for the texts and the keys; once only (a second long run is chance, and the limit stops nothing then). */
static bool strtab_reseed(strtab *t)
{
    if (t->reseeded)
        return false;
    t->reseeded = true;
    t->seed = hash_seed();
    strtab_rehash(t, t->cap);
    if (t->keys_cap)
        keys_rehash(t, t->keys_cap);
    return true;
}

const char *intern_facts(strtab *t, const char *s, size_t n, unsigned *facts)
{
    if (t->used * 2 >= t->cap)
        strtab_grow(t);
again:;
    size_t j = hash_bytes(t->seed, s, n) & (t->cap - 1), probes = 0;
    while (t->slots[j].s) {
        if (t->slots[j].len == n && memcmp(t->slots[j].s, s, n) == 0) {
            if (facts) {
                if (!t->slots[j].facts)
                    t->slots[j].facts = (uint8_t)scalar_facts(s, n);
                *facts = t->slots[j].facts;
            }
            return t->slots[j].s;
        }
        j = (j + 1) & (t->cap - 1);
        if (++probes == PROBE_LIMIT && strtab_reseed(t))
            goto again;
    }
    struct slot *sl = &t->slots[j];
    sl->s = arena_strndup(t->a, s, n);
    sl->len = (uint32_t)n;
    sl->facts = facts ? (uint8_t)scalar_facts(s, n) : 0;
    if (facts)
        *facts = sl->facts;
    t->used++;
    return sl->s;
}

const char *intern(strtab *t, const char *s, size_t n)
{
    return intern_facts(t, s, n, NULL);
}

static size_t key_slot(const strtab *t, const char *text, size_t cap)
{
    return hash_bytes(t->seed, text, strlen(text)) & (cap - 1);
}

static void keys_rehash(strtab *t, size_t cap)
{
    node **keys = xmalloc(cap * sizeof *keys);
    memset(keys, 0, cap * sizeof *keys);
    for (size_t i = 0; i < t->keys_cap; i++) {
        if (!t->keys[i])
            continue;
        size_t j = key_slot(t, t->keys[i]->str, cap);
        while (keys[j])
            j = (j + 1) & (cap - 1);
        keys[j] = t->keys[i];
    }
    xfree(t->keys);
    t->keys = keys;
    t->keys_cap = cap;
}

node *key_shared(strtab *t, const char *text, unsigned facts)
{
    if (t->keys_used * 2 >= t->keys_cap)
        keys_rehash(t, t->keys_cap ? t->keys_cap * 2 : 256);
again:;
    size_t j = key_slot(t, text, t->keys_cap), probes = 0;
    for (; t->keys[j]; j = (j + 1) & (t->keys_cap - 1)) {
        if (t->keys[j]->str == text)
            return t->keys[j];
        if (++probes == PROBE_LIMIT && strtab_reseed(t))
            goto again;
    }
    /* in the strtab's arena: it outlives every tree whose keys the strtab interned */
    node *k = arena_alloc16(t->a);
    k->kind = N_SCALAR;
    k->style = ST_PLAIN;
    k->shared = 1;
    k->str = text;
    k->facts = (uint8_t)(facts ? facts : scalar_facts(text, strlen(text)));
    t->keys[j] = k;
    t->keys_used++;
    return k;
}

/* ---- the immutability of shared nodes
 *
 * Nothing outside src/yaml gets a shared key as a node it may edit (map_key gives const nodes, map_key_own a
 * private copy), so this is a bug in src/yaml or a cast: stop loudly, never edit every map that shares the node.
 * Shared values (node_value_shared, map_set_tail_shared) are handed out by map_val, so a function that writes a
 * value in place must not see them: the executor gives its items their own copies first (fn_def.shares_values),
 * and the setters replace a shared value in the map they edit. */
static void shared_edit(const char *what)
{
    (void)what; /* the function, for a debugger */
    assert(!"a shared node reached a mutator: ask map_key_own or map_val_own for the entry's own copy");
    abort(); /* where assertions are compiled out too: no output, exit non-zero */
}

#define NOT_SHARED(n)                                                                                                  \
    do {                                                                                                               \
        if ((n)->shared)                                                                                               \
            shared_edit(__func__);                                                                                     \
    } while (0)

/* ---- nodes */

static node *new_node(arena *a, enum node_kind kind, enum node_style style)
{
    node *x = arena_alloc16(a);
    x->kind = (uint8_t)kind;
    x->style = (uint8_t)style;
    return x;
}

struct kids *kids_new(arena *a, uint32_t cap, bool map)
{
    struct kids *k = arena_alloc8(a, sizeof *k + (size_t)cap * (map ? 2 : 1) * sizeof k->v[0]);
    k->cap = cap;
    return k;
}

/* Sets a scalar's text (which must live as long as the tree); its facts are found again when asked for. */
static void set_text(node *n, const char *s, unsigned facts)
{
    NOT_SHARED(n);
    if (n->extra) {
        n->ext->str = s;
        n->ext->raw = NULL; /* the source layout was of the old text */
    } else {
        n->str = s;
    }
    n->facts = (uint8_t)facts;
}

struct ext *node_ext_get(arena *a, node *n)
{
    NOT_SHARED(n);
    if (n->extra)
        return n->ext;
    struct ext *x = arena_alloc(a, sizeof *x);
    if (n->kind == N_SCALAR)
        x->str = n->str;
    else
        x->kids = n->kids;
    n->ext = x;
    n->extra = 1;
    return x;
}

unsigned node_facts_find(const node *n)
{
    const char *s = nstr(n);
    unsigned f = scalar_facts(s, strlen(s));
    /* the facts are a cache of the text's properties, not part of the node's value (a shared key has its own from
     * the start, and is written by nothing) */
    if (!n->shared)
        ((node *)n)->facts = (uint8_t)f;
    return f;
}

node *node_scalar_shared(arena *a, const char *text, enum node_style style, unsigned facts)
{
    node *x = new_node(a, N_SCALAR, style);
    x->str = text;
    x->facts = (uint8_t)facts;
    return x;
}

node *node_scalar(arena *a, const char *s, size_t n, enum node_style style)
{
    return node_scalar_shared(a, arena_strndup(a, s, n), style, 0);
}

node *node_str(arena *a, const char *s)
{
    return node_scalar(a, s, strlen(s), ST_STRING);
}

node *node_str_ref(arena *a, const char *s)
{
    return node_scalar_shared(a, s, ST_STRING, 0);
}

node *node_map(arena *a)
{
    return new_node(a, N_MAP, ST_BLOCK);
}

node *node_seq(arena *a)
{
    return new_node(a, N_SEQ, ST_BLOCK);
}

/* The copy keeps the shared keys of the maps it copies: they are never edited, so one node serves both. */
static node *clone_rec(arena *a, const node *n)
{
    if (!n)
        return NULL;
    if (n->shared && n->kind == N_SCALAR)
        return (node *)n;
    node *x = arena_alloc16(a);
    *x = *n;
    x->shared = 0; /* a shared map (map_set_tail_shared) is copied: the copy is the caller's to edit */
    if (n->extra) {
        x->ext = arena_alloc(a, sizeof *x->ext);
        *x->ext = *n->ext;
    }
    if (n->kind != N_SCALAR) {
        const struct kids *k = nkids(n);
        struct kids *c = NULL;
        if (k && k->n) {
            bool map = n->kind == N_MAP;
            uint32_t slots = map ? 2 * k->n : k->n;
            c = kids_new(a, k->n, map);
            c->n = k->n;
            for (uint32_t i = 0; i < slots; i++)
                c->v[i] = clone_rec(a, k->v[i]);
        }
        set_nkids(x, c);
    }
    return x;
}

node *node_clone(arena *a, const node *n)
{
    if (n && n->shared && n->kind == N_SCALAR) /* the caller gets a node it may edit: a private one, no position */
        return node_scalar_shared(a, n->str, n->style, n->facts);
    return clone_rec(a, n);
}

static bool same_text(const char *x, const char *y)
{
    return x == y || (x && y && !strcmp(x, y));
}

/* Everything node_clone copies (the facts are a cache, not a value); the texts are most often the very same
 * pointers, as an edit never writes a text in place. */
bool node_is_copy_of(const node *copy, const node *orig)
{
    if (copy == orig)
        return true;
    if (!copy || !orig)
        return false;
    if (orig->shared) /* node_clone gives a private scalar; clone_rec the shared node itself (handled above) */
        return !copy->shared && copy->kind == N_SCALAR && copy->style == orig->style && !copy->line &&
               !copy->col && !copy->below && !node_ext(copy) && same_text(nstr(copy), nstr(orig));
    if (copy->shared || copy->kind != orig->kind || copy->style != orig->style || copy->below != orig->below ||
        copy->col != orig->col || copy->line != orig->line)
        return false;
    const struct ext *x = node_ext(copy), *y = node_ext(orig);
    if (x || y) {
        if (!same_text(ntag(copy), ntag(orig)) || !same_text(ncomment(copy), ncomment(orig)) ||
            !same_text(nhead(copy), nhead(orig)) || !same_text(nfoot(copy), nfoot(orig)) ||
            !same_text(nraw(copy), nraw(orig)))
            return false;
        const struct doc_text *d = ndoc(copy), *e = ndoc(orig);
        if (d != e && (!d || !e || !same_text(d->before, e->before) || !same_text(d->after, e->after)))
            return false;
    }
    if (copy->kind == N_SCALAR)
        return same_text(nstr(copy), nstr(orig));
    uint32_t n = nkids_n(copy);
    if (n != nkids_n(orig))
        return false;
    uint32_t slots = copy->kind == N_MAP ? 2 * n : n;
    for (uint32_t i = 0; i < slots; i++) {
        const node *c = nkids(copy)->v[i], *o = nkids(orig)->v[i];
        /* clone_rec keeps a shared node (a map's key) as it is: the copy must hold that very node */
        if (o && o->shared ? c != o : !node_is_copy_of(c, o))
            return false;
    }
    return true;
}

/* c takes o's kind, style, position, text, tag and comments in place; its entries are refresh_rec's to redo. The
 * side block is reused when c has one. */
static void refresh_head(arena *a, node *c, const node *o)
{
    struct ext *x = node_ext(c);
    *c = *o;
    if (o->extra) {
        if (!x)
            x = arena_alloc(a, sizeof *x);
        *x = *o->ext;
        c->ext = x;
    }
}

static node *refresh_rec(arena *a, node *c, const node *o)
{
    if (!o || o->shared) /* clone_rec keeps a shared node itself */
        return (node *)o;
    if (!c || c == o || c->shared || c->kind != o->kind)
        return c == o ? c : clone_rec(a, o);
    if (o->kind == N_SCALAR) {
        refresh_head(a, c, o);
        return c;
    }
    struct kids *ck = nkids(c);
    const struct kids *ok = nkids(o);
    refresh_head(a, c, o);
    uint32_t n = ok ? ok->n : 0, had = ck ? ck->n : 0;
    bool map = o->kind == N_MAP;
    if (n > (ck ? ck->cap : 0)) { /* grown: room for twice as many, so a map that grows step by step is copied
                                   * a logarithmic number of times */
        struct kids *g = kids_new(a, n > 2 * had ? n : 2 * had, map);
        if (had)
            memcpy(g->v, ck->v, (size_t)had * (map ? 2 : 1) * sizeof g->v[0]);
        if (ck)
            arena_recycle(a, ck, sizeof *ck + (size_t)ck->cap * (map ? 2 : 1) * sizeof ck->v[0]);
        ck = g;
    }
    if (ck) {
        uint32_t slots = map ? 2 * n : n, kept = map ? 2 * (had < n ? had : n) : (had < n ? had : n);
        for (uint32_t i = 0; i < slots; i++)
            ck->v[i] = i < kept ? refresh_rec(a, ck->v[i], ok->v[i]) : clone_rec(a, ok->v[i]);
        ck->n = n;
    }
    set_nkids(c, ck);
    return c;
}

node *node_refresh_copy(arena *a, node *copy, const node *orig)
{
    if (!orig || orig->shared || !copy || copy->shared)
        return node_clone(a, orig);
    return refresh_rec(a, copy, orig);
}

bool is_map(const node *n)
{
    return n && n->kind == N_MAP;
}

bool is_seq(const node *n)
{
    return n && n->kind == N_SEQ;
}

bool is_scalar(const node *n)
{
    return n && n->kind == N_SCALAR;
}

const char *scalar(const node *n)
{
    return n && n->kind == N_SCALAR ? nstr(n) : NULL;
}

uint32_t scalar_len(const node *n)
{
    return n && n->kind == N_SCALAR ? (uint32_t)strlen(nstr(n)) : 0;
}

bool scalar_is(const node *n, const char *s)
{
    return n && n->kind == N_SCALAR && strcmp(nstr(n), s) == 0;
}

bool is_null(const node *n)
{
    if (!n)
        return true;
    if (n->kind != N_SCALAR || n->style != ST_PLAIN || node_tag(n))
        return false;
    const char *s = nstr(n);
    return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL");
}

enum node_kind node_kind(const node *n)
{
    return n->kind;
}

enum node_style node_style(const node *n)
{
    return n->style;
}

void node_set_style(node *n, enum node_style style)
{
    NOT_SHARED(n);
    if (n->extra && style != n->style)
        n->ext->raw = NULL; /* the source layout was of the old style */
    n->style = (uint8_t)style;
}

uint32_t node_line(const node *n)
{
    return n ? n->line : 0;
}

uint32_t node_col(const node *n)
{
    return n ? n->col : 0;
}

void node_set_pos(node *n, uint32_t line, uint32_t col)
{
    NOT_SHARED(n);
    n->below = 0; /* a new position: where a shared key sits relative to it is no longer known */
    n->line = line;
    n->col = col > 65535 ? 65535 : col;
}

uint32_t node_len(const node *n)
{
    return n && n->kind != N_SCALAR ? nkids_n(n) : 0;
}

uint32_t node_len_as(const node *n, enum node_kind kind)
{
    return n && n->kind == kind && kind != N_SCALAR ? nkids_n(n) : 0;
}

/* ---- maps and sequences */

long map_index(const node *m, const char *key)
{
    if (!m || m->kind != N_MAP)
        return -1;
    const struct kids *k = nkids(m);
    if (!k)
        return -1;
    for (uint32_t i = 0; i < k->n; i++) {
        const node *kn = k->v[2 * i];
        if (kn->kind != N_SCALAR)
            continue;
        /* the first byte rules out most keys without a call */
        const char *s = nstr(kn);
        if (s[0] == key[0] && (!s[0] || strcmp(s + 1, key + 1) == 0))
            return (long)i;
    }
    return -1;
}

node *map_get_n(const node *m, const char *key, size_t len)
{
    if (!m || m->kind != N_MAP || !len)
        return NULL;
    const struct kids *k = nkids(m);
    for (uint32_t i = 0; k && i < k->n; i++) {
        const node *kn = k->v[2 * i];
        if (kn->kind != N_SCALAR)
            continue;
        const char *s = nstr(kn);
        if (s[0] == key[0] && strncmp(s, key, len) == 0 && s[len] == 0)
            return k->v[2 * i + 1];
    }
    return NULL;
}

node *map_get(const node *m, const char *key)
{
    long i = map_index(m, key);
    return i < 0 ? NULL : nkids(m)->v[2 * i + 1];
}

const node *map_key(const node *m, uint32_t i)
{
    return nkids(m)->v[2 * i];
}

uint32_t map_key_line(const node *m, uint32_t i)
{
    const node *k = nkids(m)->v[2 * i], *v = nkids(m)->v[2 * i + 1];
    if (!k->shared)
        return k->line;
    return v && v->line ? v->line - v->below : 0;
}

node *map_key_own(arena *a, node *m, uint32_t i)
{
    node *k = nkids(m)->v[2 * i];
    if (!k->shared)
        return k;
    node *x = node_scalar_shared(a, k->str, k->style, k->facts);
    x->line = map_key_line(m, i);
    nkids(m)->v[2 * i] = x;
    return x;
}

node *map_val(const node *m, uint32_t i)
{
    return nkids(m)->v[2 * i + 1];
}

void map_set_val(node *m, uint32_t i, node *val)
{
    NOT_SHARED(m);
    nkids(m)->v[2 * i + 1] = val;
}

node *seq_item(const node *s, uint32_t i)
{
    return nkids(s)->v[i];
}

void seq_set(node *s, uint32_t i, node *item)
{
    NOT_SHARED(s);
    nkids(s)->v[i] = item;
}

/* Replaces c's entries by an array of cap (at least the entries it holds). The old array is given back to the
 * arena, for the nodes added next. */
static struct kids *resize(arena *a, node *c, uint32_t cap)
{
    struct kids *k = nkids(c);
    bool map = c->kind == N_MAP;
    uint32_t n = k ? k->n : 0;
    struct kids *g = kids_new(a, cap, map);
    g->n = n;
    if (n)
        memcpy(g->v, k->v, (size_t)n * (map ? 2 : 1) * sizeof g->v[0]);
    set_nkids(c, g);
    if (k)
        arena_recycle(a, k, sizeof *k + (size_t)k->cap * (map ? 2 : 1) * sizeof k->v[0]);
    return g;
}

/* Room for one more entry. A full array is replaced by one twice its size, and at least 4: the loader sizes every
 * collection exactly, and the functions add labels and annotations a few at a time, so a one-label map would
 * otherwise go through 2 on its way to 4. */
static struct kids *grow(arena *a, node *c)
{
    NOT_SHARED(c);
    struct kids *k = nkids(c);
    if (k && k->n < k->cap)
        return k;
    uint32_t n = k ? k->n : 0;
    return resize(a, c, n < 2 ? 4 : 2 * n);
}

void map_reserve(arena *a, node *c, uint32_t extra)
{
    NOT_SHARED(c);
    struct kids *k = nkids(c);
    uint32_t n = k ? k->n : 0;
    if (extra && (!k || k->cap - n < extra))
        resize(a, c, n + extra);
}

void map_insert(arena *a, node *m, uint32_t i, const node *key, node *val)
{
    struct kids *k = grow(a, m);
    if (i > k->n)
        i = k->n;
    memmove(&k->v[2 * i + 2], &k->v[2 * i], (size_t)(k->n - i) * 2 * sizeof k->v[0]);
    k->v[2 * i] = (node *)key; /* a shared key stays unwritable: map_key gives it back const */
    k->v[2 * i + 1] = val;
    k->n++;
}

void map_append(arena *a, node *m, const node *key, node *val)
{
    struct kids *k = grow(a, m);
    k->v[2 * k->n] = (node *)key;
    k->v[2 * k->n + 1] = val;
    k->n++;
}

void map_remove(node *m, uint32_t i)
{
    NOT_SHARED(m);
    struct kids *k = nkids(m);
    if (!k || i >= k->n)
        return;
    memmove(&k->v[2 * i], &k->v[2 * i + 2], (size_t)(k->n - i - 1) * 2 * sizeof k->v[0]);
    k->n--;
}

bool map_delete(node *m, const char *key)
{
    long i = map_index(m, key);
    if (i < 0)
        return false;
    map_remove(m, (uint32_t)i);
    return true;
}

node *map_set(arena *a, node *m, const char *key, node *val)
{
    long i = map_index(m, key);
    if (i >= 0) {
        node *old = map_val(m, (uint32_t)i);
        /* Keep the line comment that sits on the value: setters and people put it there. */
        if (node_comment(old) && !node_comment(val))
            node_ext_get(a, val)->comment = node_comment(old);
        map_set_val(m, (uint32_t)i, val);
        return val;
    }
    map_append(a, m, node_scalar(a, key, strlen(key), ST_STRING), val);
    return val;
}

/* Shared by the copying and the referencing setters: copy says whether key and val must be copied; kf and vf are
 * the facts of key and val when the caller knows them (0: found when asked for). */
static node *set_str(arena *a, node *m, const char *key, const char *val, bool copy, unsigned kf, unsigned vf,
                     node *keynode)
{
    long i = map_index(m, key);
    if (i >= 0) {
        node *old = map_val(m, (uint32_t)i);
        if (old->kind == N_SCALAR && strcmp(nstr(old), val) == 0)
            return old;
        if (old->kind == N_SCALAR && !old->shared) { /* a shared value is replaced below, in this map only */
            /* An edited scalar becomes a string we made; its comment stays. */
            set_text(old, copy ? arena_strdup(a, val) : val, vf);
            if (old->style != ST_SINGLE && old->style != ST_DOUBLE)
                old->style = ST_STRING;
            if (node_ext(old))
                old->ext->tag = NULL;
            return old;
        }
    }
    if (copy)
        return map_set(a, m, key, node_str(a, val));
    node *v = node_scalar_shared(a, val, ST_STRING, vf);
    if (i >= 0)
        return map_set(a, m, key, v);
    map_append(a, m, keynode ? keynode : node_scalar_shared(a, key, ST_STRING, kf), v);
    return v;
}

node *map_set_str(arena *a, node *m, const char *key, const char *val)
{
    return set_str(a, m, key, val, true, 0, 0, NULL);
}

node *map_set_str_ref(arena *a, node *m, const char *key, const char *val)
{
    return set_str(a, m, key, val, false, 0, 0, NULL);
}

node *map_set_str_ref_facts(arena *a, node *m, const char *key, unsigned key_facts, const char *val,
                            unsigned val_facts)
{
    return set_str(a, m, key, val, false, key_facts, val_facts, NULL);
}

node *node_key_shared(arena *a, const char *text, unsigned facts)
{
    node *k = node_scalar_shared(a, text, ST_STRING, facts ? facts : scalar_facts(text, strlen(text)));
    k->shared = 1;
    return k;
}

node *node_value_shared(arena *a, const char *text, unsigned facts)
{
    node *v = node_scalar_shared(a, text, ST_STRING, facts ? facts : scalar_facts(text, strlen(text)));
    v->shared = 1;
    return v;
}

void node_own_values(arena *a, node *n)
{
    if (!n || n->kind == N_SCALAR)
        return;
    struct kids *k = nkids(n);
    uint32_t len = k ? k->n : 0;
    for (uint32_t i = 0; i < len; i++) {
        node *v;
        if (n->kind == N_MAP) {
            v = k->v[2 * i + 1]->shared ? map_val_own(a, n, i) : k->v[2 * i + 1];
        } else {
            v = k->v[i];
            if (v->shared) {
                node *x = node_clone(a, v); /* a private copy: a scalar's text, a collection's entries */
                k->v[i] = x;
                v = x;
            }
        }
        node_own_values(a, v);
    }
}

/* A scalar the emit alone will read: no comments or tag, so that one node can stand for equal ones. */
static bool plain_scalar(const node *n)
{
    return n->kind == N_SCALAR && !n->extra;
}

node *node_map_share(node *m)
{
    if (!m || m->kind != N_MAP || m->extra)
        return NULL;
    const struct kids *k = nkids(m);
    uint32_t len = k ? k->n : 0;
    for (uint32_t i = 0; i < 2 * len; i++)
        if (!plain_scalar(k->v[i]))
            return NULL;
    for (uint32_t i = 0; i < 2 * len; i++) {
        node_facts(k->v[i]); /* kept while it may: a shared node's are never written (node_facts_find) */
        k->v[i]->shared = 1;
    }
    m->shared = 1;
    return m;
}

node *map_set_str_ref_key(arena *a, node *m, node *key, const char *val, unsigned val_facts)
{
    return set_str(a, m, key->str, val, false, key->facts, val_facts, key);
}

node *map_append_str_ref_key(arena *a, node *m, node *key, const char *val, unsigned val_facts)
{
    node *v = node_scalar_shared(a, val, ST_STRING, val_facts);
    map_append(a, m, key, v);
    return v;
}

void map_set_shared(arena *a, node *m, node *key, node *val)
{
    const char *k = nstr(key);
    if (map_index(m, k) >= 0)
        map_set_str_ref(a, m, k, nstr(val)); /* the object's own node, edited in place as ever */
    else
        map_append(a, m, key, val);
}

node *map_val_own(arena *a, node *m, uint32_t i)
{
    node *v = map_val(m, i);
    if (!v->shared)
        return v;
    node *x;
    if (v->kind == N_SCALAR) {
        x = node_scalar_shared(a, v->str, v->style, v->facts);
    } else {
        /* its own entries array; the nodes in it stay shared, each owned in turn where it is edited */
        x = new_node(a, v->kind, v->style);
        const struct kids *k = nkids(v);
        if (k && k->n) {
            bool map = v->kind == N_MAP;
            struct kids *c = kids_new(a, k->n, map);
            c->n = k->n;
            memcpy(c->v, k->v, (size_t)k->n * (map ? 2 : 1) * sizeof c->v[0]);
            x->kids = c;
        }
    }
    nkids(m)->v[2 * i + 1] = x; /* m is the caller's own (map_set_val would refuse a shared m) */
    return x;
}


static bool same_scalar(const node *x, const node *y)
{
    return plain_scalar(x) && plain_scalar(y) && x->style == y->style && (x->str == y->str || !strcmp(x->str, y->str));
}

bool map_set_tail_shared(arena *a, node *m, const char *key, node *const *keys, node *const *vals, uint32_t n,
                         node **last)
{
    long at = map_index(m, key);
    node *cur = at >= 0 ? map_val(m, (uint32_t)at) : NULL;
    if (cur && (cur->kind != N_MAP || cur->extra))
        return false; /* a null, a scalar, a map with comments or a tag: the caller's own edit */
    /* a shared cur (node_map_share: set-annotations' map on every object that had none) is only read */
    const struct kids *k = cur ? nkids(cur) : NULL;
    uint32_t len = k ? k->n : 0;
    for (uint32_t i = 0; i < len; i++) {
        if (!plain_scalar(k->v[2 * i]) || !plain_scalar(k->v[2 * i + 1]))
            return false;
        for (uint32_t s = 0; s < n; s++)
            if (!strcmp(k->v[2 * i]->str, nstr(keys[s])))
                return false; /* a pair the tail replaces: edited in place by the caller, as ever */
    }
    node *S = *last;
    const struct kids *sk = S ? nkids(S) : NULL;
    bool same = sk && sk->n == len + n && (!cur || cur->style == S->style);
    for (uint32_t i = 0; same && i < len; i++)
        same = same_scalar(k->v[2 * i], sk->v[2 * i]) && same_scalar(k->v[2 * i + 1], sk->v[2 * i + 1]);
    if (!same) {
        S = new_node(a, N_MAP, cur ? cur->style : ST_BLOCK);
        struct kids *c = kids_new(a, len + n, true);
        c->n = len + n;
        if (len)
            memcpy(c->v, k->v, (size_t)len * 2 * sizeof c->v[0]);
        for (uint32_t s = 0; s < n; s++) {
            c->v[2 * (len + s)] = keys[s];
            c->v[2 * (len + s) + 1] = vals[s];
        }
        S->kids = c;
        /* every node in it now stands for many objects': none may be edited (the map's own copy first,
         * map_val_own; a value is replaced by the setters, never written) */
        for (uint32_t i = 0; i < 2 * c->n; i++) {
            node_facts(c->v[i]); /* kept while it may: a shared node's are never written (node_facts_find) */
            c->v[i]->shared = 1;
        }
        S->shared = 1;
        *last = S;
    }
    if (at >= 0)
        nkids(m)->v[2 * (uint32_t)at + 1] = S;
    else
        map_append(a, m, node_scalar(a, key, strlen(key), ST_STRING), S);
    return true;
}

node *map_ensure_map(arena *a, node *m, const char *key)
{
    long i = map_index(m, key);
    if (i >= 0) {
        node *v = map_val(m, (uint32_t)i);
        if (v->kind == N_MAP)
            return v->shared ? map_val_own(a, m, (uint32_t)i) : v;
        if (!is_null(v))
            return NULL;
        node *nm = node_map(a);
        nm->line = v->line;
        nm->below = v->below;
        map_set_val(m, (uint32_t)i, nm);
        return nm;
    }
    return map_set(a, m, key, node_map(a));
}

void seq_append(arena *a, node *s, node *item)
{
    struct kids *k = grow(a, s);
    k->v[k->n++] = item;
}

void seq_insert(arena *a, node *s, uint32_t i, node *item)
{
    struct kids *k = grow(a, s);
    if (i > k->n)
        i = k->n;
    memmove(&k->v[i + 1], &k->v[i], (size_t)(k->n - i) * sizeof k->v[0]);
    k->v[i] = item;
    k->n++;
}

void seq_remove(node *s, uint32_t i)
{
    NOT_SHARED(s);
    struct kids *k = nkids(s);
    if (!k || i >= k->n)
        return;
    memmove(&k->v[i], &k->v[i + 1], (size_t)(k->n - i - 1) * sizeof k->v[0]);
    k->n--;
}

void node_clear(node *c)
{
    NOT_SHARED(c);
    if (c->kind != N_SCALAR && nkids(c))
        nkids(c)->n = 0;
}

void node_move(node *dst, node *src)
{
    NOT_SHARED(dst);
    struct ext *mine = node_ext(dst);
    uint32_t line = dst->line;
    unsigned col = dst->col, below = dst->below;
    *dst = *src;
    dst->line = line;
    dst->col = col;
    dst->below = below;
    dst->shared = 0; /* src may be a shared key: dst is a copy of it, and stays dst's own */
    if (!mine)
        return;
    if (!dst->extra) {
        /* src had no comments or tag: dst keeps its comments, and src's lack of a tag */
        if (dst->kind == N_SCALAR)
            mine->str = dst->str;
        else
            mine->kids = dst->kids;
        mine->tag = NULL;
        mine->raw = NULL;
        dst->ext = mine;
        dst->extra = 1;
        return;
    }
    if (!dst->ext->comment)
        dst->ext->comment = mine->comment;
    if (!dst->ext->head)
        dst->ext->head = mine->head;
    if (!dst->ext->foot)
        dst->ext->foot = mine->foot;
    if (!dst->ext->doc)
        dst->ext->doc = mine->doc;
}

/* ---- scalars */

bool scalar_set(arena *a, node *n, const char *s, size_t len, enum scalar_edit how)
{
    NOT_SHARED(n);
    const char *cur = nstr(n);
    bool same = strlen(cur) == len && memcmp(cur, s, len) == 0;
    if (same && how == SCALAR_AS_STRING)
        return false;
    struct ext *x = node_ext(n);
    switch (how) {
    case SCALAR_AS_STRING:
        if (n->style != ST_SINGLE && n->style != ST_DOUBLE)
            n->style = ST_STRING;
        if (x)
            x->tag = NULL;
        break;
    case SCALAR_AS_WRITTEN:
        /* a string we made reads as what the emitter would write for its old text */
        if (n->style == ST_STRING) {
            unsigned f = node_facts(n);
            n->style = (f & SF_PLAIN) && (f & SF_STRING) ? ST_PLAIN : ST_DOUBLE;
        }
        if (x)
            x->tag = NULL;
        break;
    case SCALAR_KEEP_TYPE:
        if (n->style == ST_PLAIN && !node_tag(n) && node_type(n) == T_STR)
            n->style = ST_STRING;
        break;
    }
    if (same)
        return false;
    set_text(n, arena_strndup(a, s, len), 0);
    return true;
}

/* ---- paths and comparison */

node *path_get(const node *n, ...)
{
    va_list ap;
    va_start(ap, n);
    const char *k;
    while (n && (k = va_arg(ap, const char *)))
        n = map_get(n, k);
    va_end(ap);
    return (node *)n;
}

const char *path_str(const node *n, ...)
{
    va_list ap;
    va_start(ap, n);
    const char *k;
    while (n && (k = va_arg(ap, const char *)))
        n = map_get(n, k);
    va_end(ap);
    return scalar(n);
}

bool node_equal(const node *a, const node *b)
{
    if (!a || !b)
        return a == b;
    if (a->kind != b->kind)
        return false;
    if (a->kind == N_SCALAR)
        return strcmp(nstr(a), nstr(b)) == 0;
    uint32_t n = nkids_n(a);
    if (n != nkids_n(b))
        return false;
    uint32_t slots = a->kind == N_MAP ? 2 * n : n;
    for (uint32_t i = 0; i < slots; i++)
        if (!node_equal(nkids(a)->v[i], nkids(b)->v[i]))
            return false;
    return true;
}

/* ---- comments and tags */

/* A line comment is one line: a line break in the text a program sets (search-replace's put-comment from its
 * config) becomes a space, or the emitted comment would end and its rest be read as YAML. */
void node_set_comment(arena *a, node *n, const char *comment)
{
    NOT_SHARED(n);
    if (!comment && !node_ext(n))
        return;
    char *c = comment ? arena_strdup(a, comment) : NULL;
    for (char *p = c; p && (p = strpbrk(p, "\r\n"));)
        *p++ = ' ';
    node_ext_get(a, n)->comment = c;
}

void node_set_head(arena *a, node *n, const char *head)
{
    NOT_SHARED(n);
    if (!head && !node_ext(n))
        return;
    node_ext_get(a, n)->head = head ? arena_strdup(a, head) : NULL;
}

void node_set_foot(arena *a, node *n, const char *foot)
{
    NOT_SHARED(n);
    if (!foot && !node_ext(n))
        return;
    node_ext_get(a, n)->foot = foot ? arena_strdup(a, foot) : NULL;
}

void node_clear_comments(node *n)
{
    NOT_SHARED(n);
    struct ext *x = node_ext(n);
    if (x)
        x->comment = x->head = x->foot = NULL, x->doc = NULL;
}

void node_set_tag(arena *a, node *n, const char *tag)
{
    NOT_SHARED(n);
    if (!tag && !node_ext(n))
        return;
    node_ext_get(a, n)->tag = tag ? arena_strdup(a, tag) : NULL;
}

const char *node_comment(const node *n)
{
    const struct ext *x = n ? node_ext(n) : NULL;
    return x ? x->comment : NULL;
}

const char *node_tag(const node *n)
{
    const struct ext *x = n ? node_ext(n) : NULL;
    return x ? x->tag : NULL;
}

const char *node_head(const node *n)
{
    const struct ext *x = n ? node_ext(n) : NULL;
    return x ? x->head : NULL;
}

const char *node_foot(const node *n)
{
    const struct ext *x = n ? node_ext(n) : NULL;
    return x ? x->foot : NULL;
}
