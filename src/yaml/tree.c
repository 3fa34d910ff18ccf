#include "yaml/tree.h"

#include "yaml/scalar.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct strtab {
    arena *a;
    const char **slots;
    uint32_t *lens;
    size_t cap, used;
};

/* Eight bytes at a time: keys and short values are hashed once each as they are read. */
static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
        s += 8;
        n -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, s, n);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 29);
}

strtab *strtab_new(arena *a)
{
    strtab *t = arena_alloc(a, sizeof *t);
    t->a = a;
    t->cap = 1024;
    t->slots = xmalloc(t->cap * sizeof *t->slots);
    t->lens = xmalloc(t->cap * sizeof *t->lens);
    memset(t->slots, 0, t->cap * sizeof *t->slots);
    return t;
}

void strtab_release(strtab *t)
{
    if (!t)
        return;
    free(t->slots);
    free(t->lens);
    t->slots = NULL;
}

static void strtab_grow(strtab *t)
{
    size_t cap = t->cap * 2;
    const char **slots = xmalloc(cap * sizeof *slots);
    uint32_t *lens = xmalloc(cap * sizeof *lens);
    memset(slots, 0, cap * sizeof *slots);
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->slots[i])
            continue;
        size_t j = hash_bytes(t->slots[i], t->lens[i]) & (cap - 1);
        while (slots[j])
            j = (j + 1) & (cap - 1);
        slots[j] = t->slots[i];
        lens[j] = t->lens[i];
    }
    free(t->slots);
    free(t->lens);
    t->slots = slots;
    t->lens = lens;
    t->cap = cap;
}

const char *intern(strtab *t, const char *s, size_t n)
{
    if (t->used * 2 >= t->cap)
        strtab_grow(t);
    size_t j = hash_bytes(s, n) & (t->cap - 1);
    while (t->slots[j]) {
        if (t->lens[j] == n && memcmp(t->slots[j], s, n) == 0)
            return t->slots[j];
        j = (j + 1) & (t->cap - 1);
    }
    t->slots[j] = arena_strndup(t->a, s, n);
    t->lens[j] = (uint32_t)n;
    t->used++;
    return t->slots[j];
}

node *node_scalar(arena *a, const char *s, size_t n, int style)
{
    node *x = arena_alloc(a, sizeof *x);
    x->kind = N_SCALAR;
    x->style = (uint8_t)style;
    x->s.str = arena_strndup(a, s, n);
    x->s.len = (uint32_t)n;
    return x;
}

node *node_str(arena *a, const char *s)
{
    return node_scalar(a, s, strlen(s), ST_STRING);
}

node *node_map(arena *a)
{
    node *x = arena_alloc(a, sizeof *x);
    x->kind = N_MAP;
    return x;
}

node *node_seq(arena *a)
{
    node *x = arena_alloc(a, sizeof *x);
    x->kind = N_SEQ;
    return x;
}

node *node_clone(arena *a, const node *n)
{
    if (!n)
        return NULL;
    node *x = arena_alloc(a, sizeof *x);
    *x = *n;
    if (n->x) {
        x->x = arena_alloc(a, sizeof *x->x);
        *x->x = *n->x;
    }
    if (n->kind != N_SCALAR) {
        uint32_t slots = n->kind == N_MAP ? 2 * n->c.n : n->c.n;
        x->c.cap = n->c.n;
        x->c.kids = slots ? arena_alloc(a, slots * sizeof *x->c.kids) : NULL;
        for (uint32_t i = 0; i < slots; i++)
            x->c.kids[i] = node_clone(a, n->c.kids[i]);
    }
    return x;
}

const char *scalar(const node *n)
{
    return n && n->kind == N_SCALAR ? n->s.str : NULL;
}

bool scalar_is(const node *n, const char *s)
{
    return n && n->kind == N_SCALAR && strcmp(n->s.str, s) == 0;
}

bool is_null(const node *n)
{
    if (!n)
        return true;
    if (n->kind != N_SCALAR || n->style != ST_PLAIN || node_tag(n))
        return false;
    const char *s = n->s.str;
    return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL");
}

long map_index(const node *m, const char *key)
{
    if (!m || m->kind != N_MAP)
        return -1;
    size_t kl = strlen(key);
    for (uint32_t i = 0; i < m->c.n; i++) {
        const node *k = m->c.kids[2 * i];
        if (k->kind == N_SCALAR && k->s.len == kl && memcmp(k->s.str, key, kl) == 0)
            return (long)i;
    }
    return -1;
}

node *map_get(const node *m, const char *key)
{
    long i = map_index(m, key);
    return i < 0 ? NULL : m->c.kids[2 * i + 1];
}

static void grow(arena *a, node *c, uint32_t per)
{
    if (c->c.n < c->c.cap)
        return;
    uint32_t cap = c->c.cap ? c->c.cap * 2 : 4;
    node **kids = arena_alloc(a, (size_t)cap * per * sizeof *kids);
    if (c->c.n)
        memcpy(kids, c->c.kids, (size_t)c->c.n * per * sizeof *kids);
    c->c.kids = kids;
    c->c.cap = cap;
}

void map_append(arena *a, node *m, node *key, node *val)
{
    grow(a, m, 2);
    m->c.kids[2 * m->c.n] = key;
    m->c.kids[2 * m->c.n + 1] = val;
    m->c.n++;
}

node *map_set(arena *a, node *m, const char *key, node *val)
{
    long i = map_index(m, key);
    if (i >= 0) {
        node *old = m->c.kids[2 * i + 1];
        /* Keep the line comment that sits on the value: setters and people put it there. */
        if (old && old->x && old->x->comment && !node_comment(val))
            node_set_comment(a, val, old->x->comment);
        m->c.kids[2 * i + 1] = val;
        return val;
    }
    map_append(a, m, node_scalar(a, key, strlen(key), ST_PLAIN), val);
    return val;
}

/* Shared by the copying and the referencing setter: copy says whether key and val must be copied. */
static node *set_str(arena *a, node *m, const char *key, const char *val, bool copy)
{
    long i = map_index(m, key);
    size_t len = strlen(val);
    if (i >= 0) {
        node *old = m->c.kids[2 * i + 1];
        if (old->kind == N_SCALAR && strcmp(old->s.str, val) == 0)
            return old;
        if (old->kind == N_SCALAR) {
            /* An edited scalar becomes a string we made; its comment stays. */
            old->s.str = copy ? arena_strndup(a, val, len) : val;
            old->s.len = (uint32_t)len;
            if (old->style != ST_SINGLE && old->style != ST_DOUBLE)
                old->style = ST_STRING;
            if (old->x)
                old->x->tag = NULL;
            return old;
        }
    }
    if (copy)
        return map_set(a, m, key, node_str(a, val));
    node *v = node_str_ref(a, val);
    if (i >= 0)
        return map_set(a, m, key, v);
    node *k = arena_alloc(a, sizeof *k);
    k->kind = N_SCALAR;
    k->style = ST_PLAIN;
    k->s.str = key;
    k->s.len = (uint32_t)strlen(key);
    map_append(a, m, k, v);
    return v;
}

node *map_set_str(arena *a, node *m, const char *key, const char *val)
{
    return set_str(a, m, key, val, true);
}

node *map_set_str_ref(arena *a, node *m, const char *key, const char *val)
{
    return set_str(a, m, key, val, false);
}

node *node_str_ref(arena *a, const char *s)
{
    node *x = arena_alloc(a, sizeof *x);
    x->kind = N_SCALAR;
    x->style = ST_STRING;
    x->s.str = s;
    x->s.len = (uint32_t)strlen(s);
    return x;
}

bool map_delete(node *m, const char *key)
{
    long i = map_index(m, key);
    if (i < 0)
        return false;
    map_remove(m, (uint32_t)i);
    return true;
}

void map_remove(node *m, uint32_t i)
{
    if (i >= m->c.n)
        return;
    memmove(&m->c.kids[2 * i], &m->c.kids[2 * i + 2], (size_t)(m->c.n - i - 1) * 2 * sizeof *m->c.kids);
    m->c.n--;
}

void map_insert(arena *a, node *m, uint32_t i, node *key, node *val)
{
    if (i > m->c.n)
        i = m->c.n;
    grow(a, m, 2);
    memmove(&m->c.kids[2 * i + 2], &m->c.kids[2 * i], (size_t)(m->c.n - i) * 2 * sizeof *m->c.kids);
    m->c.kids[2 * i] = key;
    m->c.kids[2 * i + 1] = val;
    m->c.n++;
}

node *map_key(const node *m, uint32_t i)
{
    return m->c.kids[2 * i];
}

node *map_val(const node *m, uint32_t i)
{
    return m->c.kids[2 * i + 1];
}

void map_set_val(node *m, uint32_t i, node *val)
{
    m->c.kids[2 * i + 1] = val;
}

node *map_ensure_map(arena *a, node *m, const char *key)
{
    long i = map_index(m, key);
    if (i >= 0) {
        node *v = m->c.kids[2 * i + 1];
        if (v->kind == N_MAP)
            return v;
        if (!is_null(v))
            return NULL;
        node *nm = node_map(a);
        nm->line = v->line;
        m->c.kids[2 * i + 1] = nm;
        return nm;
    }
    return map_set(a, m, key, node_map(a));
}

void seq_append(arena *a, node *s, node *item)
{
    grow(a, s, 1);
    s->c.kids[s->c.n++] = item;
}

void seq_insert(arena *a, node *s, uint32_t i, node *item)
{
    if (i > s->c.n)
        i = s->c.n;
    grow(a, s, 1);
    memmove(&s->c.kids[i + 1], &s->c.kids[i], (size_t)(s->c.n - i) * sizeof *s->c.kids);
    s->c.kids[i] = item;
    s->c.n++;
}

node *seq_item(const node *s, uint32_t i)
{
    return s->c.kids[i];
}

void seq_set(node *s, uint32_t i, node *item)
{
    s->c.kids[i] = item;
}

uint32_t node_len(const node *n)
{
    return n && n->kind != N_SCALAR ? n->c.n : 0;
}

void node_clear(node *c)
{
    if (c->kind != N_SCALAR)
        c->c.n = 0;
}

void node_move(node *dst, node *src)
{
    struct node_extra *mine = dst->x;
    uint32_t line = dst->line;
    uint16_t col = dst->col;
    *dst = *src;
    dst->line = line;
    dst->col = col;
    if (!mine)
        return;
    if (!dst->x) {
        /* src had no comments or tag: dst keeps its comments, and src's lack of a tag */
        dst->x = mine;
        mine->tag = NULL;
        return;
    }
    if (!dst->x->comment)
        dst->x->comment = mine->comment;
    if (!dst->x->head)
        dst->x->head = mine->head;
}

int node_kind(const node *n)
{
    return n->kind;
}

int node_style(const node *n)
{
    return n->style;
}

void node_set_style(node *n, int style)
{
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
    n->line = line;
    n->col = (uint16_t)(col > UINT16_MAX ? UINT16_MAX : col);
}

uint32_t scalar_len(const node *n)
{
    return n && n->kind == N_SCALAR ? n->s.len : 0;
}

bool scalar_set(arena *a, node *n, const char *s, size_t len, enum scalar_edit how)
{
    bool same = n->s.len == len && memcmp(n->s.str, s, len) == 0;
    if (same && how == SCALAR_AS_STRING)
        return false;
    switch (how) {
    case SCALAR_AS_STRING:
        if (n->style != ST_SINGLE && n->style != ST_DOUBLE)
            n->style = ST_STRING;
        if (n->x)
            n->x->tag = NULL;
        break;
    case SCALAR_AS_WRITTEN:
        /* a string we made reads as what the emitter would write for its old text */
        if (n->style == ST_STRING)
            n->style = plain_string_safe(n->s.str, n->s.len, false) ? ST_PLAIN : ST_DOUBLE;
        if (n->x)
            n->x->tag = NULL;
        break;
    case SCALAR_KEEP_TYPE:
        if (n->style == ST_PLAIN && !node_tag(n) && node_type(n) == T_STR)
            n->style = ST_STRING;
        break;
    }
    if (same)
        return false;
    n->s.str = arena_strndup(a, s, len);
    n->s.len = (uint32_t)len;
    return true;
}

void seq_remove(node *s, uint32_t i)
{
    if (i >= s->c.n)
        return;
    memmove(&s->c.kids[i], &s->c.kids[i + 1], (size_t)(s->c.n - i - 1) * sizeof *s->c.kids);
    s->c.n--;
}

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
        return a->s.len == b->s.len && memcmp(a->s.str, b->s.str, a->s.len) == 0;
    if (a->c.n != b->c.n)
        return false;
    uint32_t slots = a->kind == N_MAP ? 2 * a->c.n : a->c.n;
    for (uint32_t i = 0; i < slots; i++)
        if (!node_equal(a->c.kids[i], b->c.kids[i]))
            return false;
    return true;
}

static struct node_extra *extra(arena *a, node *n)
{
    if (!n->x)
        n->x = arena_alloc(a, sizeof *n->x);
    return n->x;
}

void node_set_comment(arena *a, node *n, const char *comment)
{
    if (!comment && !n->x)
        return;
    extra(a, n)->comment = comment ? arena_strdup(a, comment) : NULL;
}

void node_set_head(arena *a, node *n, const char *head)
{
    if (!head && !n->x)
        return;
    extra(a, n)->head = head ? arena_strdup(a, head) : NULL;
}

void node_set_tag(arena *a, node *n, const char *tag)
{
    if (!tag && !n->x)
        return;
    extra(a, n)->tag = tag ? arena_strdup(a, tag) : NULL;
}
