/* What every value is and does whatever its type: construction, type names, truth, hashing (SipHash keyed with the
 * VM's seed: a fixed one, then a secret one once keys collide, dict.c), equality
 * and ordering (with go.starlark.net's depth limit, which also stops cycles), repr and str, freezing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "starlark/internal.h"
#include "util/arena.h"

/* read-only: frozen from the start, never iterated over or marked (freeze_push stops at a frozen value) */
const struct sl_obj sl_none_o = {SL_NONE, 1, 0, 0, 0}, sl_true_o = {SL_BOOL, 1, 1, 0, 0}, sl_false_o = {SL_BOOL, 1, 0, 0, 0};

enum { COMPARE_LIMIT = 10 };

sl_val sl_none(void) { return NONE; }
sl_val sl_bool(bool b) { return b ? TRUE_V : FALSE_V; }

sl_val sl_int(sl_vm *vm, int64_t i)
{
    if (i >= SMALL_MIN && i <= SMALL_MAX)
        return MK_SMALL(i);
    uint64_t u = i < 0 ? (uint64_t)0 - (uint64_t)i : (uint64_t)i;
    uint32_t *d = vm_alloc(vm, 8);
    d[0] = (uint32_t)u;
    d[1] = (uint32_t)(u >> 32);
    return int_from_big(vm, i < 0 ? -1 : 1, d, 2);
}

sl_val sl_float(sl_vm *vm, double d)
{
    sl_float_o *f = vm_alloc(vm, sizeof *f);
    f->h.type = SL_FLOAT;
    f->h.frozen = 1;
    f->d = d;
    return (sl_val)f;
}

sl_val mk_str(sl_vm *vm, const char *s, size_t n, bool bytes)
{
    vm_check_len(vm, n, bytes ? "bytes" : "a string");
    sl_str_o *o = vm_alloc_raw(vm, sizeof *o + n + 1);
    memset(o, 0, sizeof *o);
    o->h.type = bytes ? SL_BYTES : SL_STRING;
    o->h.frozen = 1;
    o->len = n;
    if (n)
        memcpy(o->s, s, n);
    o->s[n] = 0;
    return (sl_val)o;
}

sl_val sl_str(sl_vm *vm, const char *s, size_t n) { return mk_str(vm, s, n, false); }
sl_val sl_cstr(sl_vm *vm, const char *s) { return mk_str(vm, s, strlen(s), false); }

sl_val sl_list(sl_vm *vm, size_t cap)
{
    sl_list_o *l = vm_alloc(vm, sizeof *l);
    l->h.type = SL_LIST;
    l->cap = cap;
    l->v = cap ? vm_alloc_raw(vm, cap * sizeof(sl_val)) : NULL;
    return (sl_val)l;
}

sl_val mk_list_from(sl_vm *vm, size_t n, const sl_val *v)
{
    vm_check_len(vm, n, "a list");
    sl_val l = sl_list(vm, n);
    if (n)
        memcpy(AS(sl_list_o, l)->v, v, n * sizeof(sl_val));
    AS(sl_list_o, l)->len = n;
    return l;
}

void sl_list_append(sl_vm *vm, sl_val list, sl_val v)
{
    sl_list_o *l = AS(sl_list_o, list);
    if (l->len == l->cap) {
        vm_check_len(vm, l->len + 1, "a list");
        size_t cap = l->cap ? l->cap * 2 : 4;
        sl_val *nv = vm_alloc_raw(vm, cap * sizeof(sl_val));
        if (l->len)
            memcpy(nv, l->v, l->len * sizeof(sl_val));
        l->v = nv;
        l->cap = cap;
    }
    l->v[l->len++] = v;
}

sl_val mk_tuple(sl_vm *vm, size_t n)
{
    vm_check_len(vm, n, "a tuple");
    sl_tuple_o *t = vm_alloc(vm, sizeof *t + n * sizeof(sl_val));
    t->h.type = SL_TUPLE;
    t->len = n;
    return (sl_val)t;
}

sl_val sl_tuple(sl_vm *vm, size_t n, const sl_val *items)
{
    sl_val t = mk_tuple(vm, n);
    if (n)
        memcpy(AS(sl_tuple_o, t)->v, items, n * sizeof(sl_val));
    return t;
}

sl_val sl_dict(sl_vm *vm) { return mk_dict(vm, SL_DICT); }
void sl_dict_set(sl_vm *vm, sl_val d, sl_val k, sl_val v) { dict_put(vm, d, k, v); }

sl_val sl_builtin(sl_vm *vm, const char *name, sl_native fn, void *data)
{
    sl_builtin_o *b = vm_alloc(vm, sizeof *b);
    b->h.type = SL_BUILTIN;
    b->h.frozen = 1;
    b->name = name;
    b->fn = fn;
    b->data = data;
    return (sl_val)b;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(**(const char *const *const *)a, **(const char *const *const *)b);
}

sl_val sl_struct(sl_vm *vm, const char *ctor, int n, const char *const *names, const sl_val *vals)
{
    sl_struct_o *s = vm_alloc(vm, sizeof *s);
    s->h.type = SL_STRUCT;
    s->ctor = ctor;
    s->n = n;
    s->names = vm_alloc(vm, (size_t)(n ? n : 1) * sizeof(char *));
    s->vals = vm_alloc(vm, (size_t)(n ? n : 1) * sizeof(sl_val));
    /* sorted by name, as starlarkstruct keeps them */
    const char ***order = vm_alloc(vm, (size_t)(n ? n : 1) * sizeof(char **));
    for (int i = 0; i < n; i++)
        order[i] = (const char **)&names[i];
    qsort(order, (size_t)n, sizeof *order, cmp_names);
    for (int i = 0; i < n; i++) {
        s->names[i] = *order[i];
        s->vals[i] = vals[order[i] - (const char **)names];
    }
    return (sl_val)s;
}

sl_val sl_module_value(sl_vm *vm, const char *name, int n, const char *const *names, const sl_val *vals)
{
    sl_val m = sl_struct(vm, name, n, names, vals);
    m->flags = 1;
    return m;
}

sl_val sl_host_new(sl_vm *vm, const sl_host_type *type, void *data)
{
    sl_host_o *o = vm_alloc(vm, sizeof *o);
    o->h.type = SL_HOST;
    o->t = type;
    o->data = data;
    return (sl_val)o;
}

void *sl_host_data(sl_val v) { return TYPE(v) == SL_HOST ? AS(sl_host_o, v)->data : NULL; }
bool sl_frozen(sl_val v) { return IS_SMALL(v) || v->frozen; }

enum sl_type sl_type_of(sl_val v) { return (enum sl_type)TYPE(v); }

const char *sl_type_name(sl_val v)
{
    switch (TYPE(v)) {
    case SL_NONE: return "NoneType";
    case SL_BOOL: return "bool";
    case SL_INT: return "int";
    case SL_FLOAT: return "float";
    case SL_STRING: return "string";
    case SL_BYTES: return "bytes";
    case SL_LIST: return "list";
    case SL_TUPLE: return "tuple";
    case SL_DICT: return "dict";
    case SL_SET: return "set";
    case SL_FUNCTION: return "function";
    case SL_BUILTIN: return AS(sl_builtin_o, v)->self ? "builtin_function_or_method" : "builtin_function_or_method";
    case SL_RANGE: return "range";
    case SL_STRUCT: return v->flags ? "module" : "struct";
    case SL_HOST: return AS(sl_host_o, v)->t->name;
    case SL_ELEMS: {
        /* go.starlark.net's type names: elem_ords() is a string.elems too, codepoint_ords() a string.codepoints */
        static const char *const k[] = {"string.elems", "string.elems", "string.codepoints", "string.codepoints",
                                        "bytes.elems"};
        return k[AS(sl_elems_o, v)->kind];
    }
    default: return "value";
    }
}

bool sl_truth(sl_val v)
{
    switch (TYPE(v)) {
    case SL_NONE: return false;
    case SL_BOOL: return v == TRUE_V;
    case SL_INT: return int_sign(v) != 0;
    case SL_FLOAT: return AS(sl_float_o, v)->d != 0;
    case SL_STRING:
    case SL_BYTES: return AS(sl_str_o, v)->len != 0;
    case SL_LIST: return AS(sl_list_o, v)->len != 0;
    case SL_TUPLE: return AS(sl_tuple_o, v)->len != 0;
    case SL_DICT:
    case SL_SET: return AS(sl_dict_o, v)->len != 0;
    case SL_RANGE: return AS(sl_range_o, v)->len != 0;
    default: return true;
    }
}

double sl_as_float(sl_val v)
{
    if (TYPE(v) == SL_FLOAT)
        return AS(sl_float_o, v)->d;
    bool ovf;
    return int_to_double(v, &ovf);
}

const char *sl_str_data(sl_val v, size_t *len)
{
    if (TYPE(v) != SL_STRING && TYPE(v) != SL_BYTES)
        return NULL;
    if (len)
        *len = AS(sl_str_o, v)->len;
    return AS(sl_str_o, v)->s;
}

size_t sl_len(sl_val v)
{
    switch (TYPE(v)) {
    case SL_LIST: return AS(sl_list_o, v)->len;
    case SL_TUPLE: return AS(sl_tuple_o, v)->len;
    case SL_DICT:
    case SL_SET: return AS(sl_dict_o, v)->len;
    default: return 0;
    }
}

sl_val sl_index(sl_val v, size_t i)
{
    return TYPE(v) == SL_LIST ? AS(sl_list_o, v)->v[i] : AS(sl_tuple_o, v)->v[i];
}

static sl_entry *live(sl_val d, size_t i)
{
    sl_dict_o *o = AS(sl_dict_o, d);
    size_t k = 0;
    for (size_t j = 0; j < o->n; j++)
        if (o->e[j].k && k++ == i)
            return &o->e[j];
    return NULL;
}

sl_val sl_dict_key(sl_val d, size_t i)
{
    sl_dict_o *o = AS(sl_dict_o, d);
    if (o->n == o->len)
        return o->e[i].k;
    return live(d, i)->k;
}

sl_val sl_dict_val(sl_val d, size_t i)
{
    sl_dict_o *o = AS(sl_dict_o, d);
    if (o->n == o->len)
        return o->e[i].v;
    return live(d, i)->v;
}

sl_val sl_dict_get(sl_vm *vm, sl_val d, sl_val k)
{
    sl_entry *e = dict_find(vm, d, k);
    return e ? e->v : NULL;
}

/* ---- hashing ---- */
#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND                                                                                                       \
    do {                                                                                                               \
        v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32);                                                      \
        v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2;                                                                         \
        v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0;                                                                         \
        v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32);                                                      \
    } while (0)

/* SipHash-1-3 keyed with (seed, ~seed) */
uint64_t hash_bytes_seeded(uint64_t seed, const void *p, size_t n)
{
    const unsigned char *s = p;
    uint64_t k0 = seed, k1 = ~seed * 0x9E3779B97F4A7C15ull;
    uint64_t v0 = k0 ^ 0x736f6d6570736575ull, v1 = k1 ^ 0x646f72616e646f6dull, v2 = k0 ^ 0x6c7967656e657261ull,
             v3 = k1 ^ 0x7465646279746573ull;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t m;
        memcpy(&m, s + i, 8);
        v3 ^= m;
        SIPROUND;
        v0 ^= m;
    }
    uint64_t last = (uint64_t)n << 56;
    for (size_t j = 0; i + j < n; j++)
        last |= (uint64_t)s[i + j] << (8 * j);
    v3 ^= last;
    SIPROUND;
    v0 ^= last;
    v2 ^= 0xff;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    return v0 ^ v1 ^ v2 ^ v3;
}

/* Hashing a tuple hashes its items: a tuple nested 300,000 deep recursed that far in C and overflowed the stack
 * (SIGSEGV; found by an attacker's review). go.starlark.net's own recursion is bounded only by Go's growable
 * stack; a hash that must go deeper than HASH_DEPTH is refused instead, as comparison is (COMPARE_LIMIT). */
enum { HASH_DEPTH = 1000 };

static uint32_t hash_depth(sl_vm *vm, sl_val v, int depth);

uint32_t vm_hash(sl_vm *vm, sl_val v)
{
    return hash_depth(vm, v, 0);
}

static uint32_t hash_depth(sl_vm *vm, sl_val v, int depth)
{
    if (depth > HASH_DEPTH)
        sl_fail(vm, "hash exceeds maximum recursion depth (a tuple nested over %d deep)", HASH_DEPTH);
    switch (TYPE(v)) {
    case SL_NONE: return 0x9a3b;
    case SL_BOOL: return v == TRUE_V ? (uint32_t)hash_bytes_seeded(vm->seed, "T", 1) : (uint32_t)hash_bytes_seeded(vm->seed, "F", 1);
    case SL_INT: return int_hash(vm, v);
    case SL_FLOAT: {
        double d = AS(sl_float_o, v)->d;
        if (isfinite(d) && d == trunc(d))
            return int_hash(vm, int_from_double(vm, d));
        if (isnan(d))
            return 0x7ff8;
        return (uint32_t)hash_bytes_seeded(vm->seed, &d, sizeof d);
    }
    case SL_STRING:
    case SL_BYTES: {
        sl_str_o *s = AS(sl_str_o, v);
        if (s->hashed != vm->epoch + 1) {
            s->hash = (uint32_t)hash_bytes_seeded(vm->seed, s->s, s->len) ^ (TYPE(v) == SL_BYTES);
            s->hashed = (uint8_t)(vm->epoch + 1);
        }
        return s->hash;
    }
    case SL_TUPLE: {
        sl_tuple_o *t = AS(sl_tuple_o, v);
        uint64_t h = 0x345678;
        vm_steps(vm, t->len / 16);
        for (size_t i = 0; i < t->len; i++)
            h = (h ^ hash_depth(vm, t->v[i], depth + 1)) * 1000003;
        return (uint32_t)(h ^ (h >> 32));
    }
    case SL_STRUCT: {
        sl_struct_o *s = AS(sl_struct_o, v);
        if (v->flags & 1) /* a module: go.starlark.net's are not hashable (module.star) */
            sl_fail(vm, "unhashable: module");
        uint64_t h = 0x1234;
        for (int i = 0; i < s->n; i++)
            h = (h ^ hash_depth(vm, s->vals[i], depth + 1)) * 1000003;
        return (uint32_t)(h ^ (h >> 32));
    }
    case SL_HOST:
        if (AS(sl_host_o, v)->t->hashable)
            return AS(sl_host_o, v)->t->hash;
        sl_fail(vm, "unhashable type: %s", sl_type_name(v));
    case SL_LIST:
    case SL_DICT:
    case SL_SET: sl_fail(vm, "unhashable type: %s", sl_type_name(v));
    case SL_RANGE: sl_fail(vm, "unhashable: range"); /* go.starlark.net's own wording for it (builtins.star) */
    default: {
        uintptr_t p = (uintptr_t)v;
        return (uint32_t)hash_bytes_seeded(vm->seed, &p, sizeof p);
    }
    }
}

/* ---- equality and order ---- */
static bool is_num(sl_val v) { return TYPE(v) == SL_INT || TYPE(v) == SL_FLOAT; }

static const char *op_text(int op)
{
    switch (op) {
    case T_LT: return "<";
    case T_LE: return "<=";
    case T_GT: return ">";
    case T_GE: return ">=";
    case T_EQL: return "==";
    default: return "!=";
    }
}

/* -2 when unordered (NaN) */
static int num_cmp(sl_val a, sl_val b)
{
    if (TYPE(a) == SL_INT && TYPE(b) == SL_INT)
        return int_cmp(a, b);
    if (TYPE(a) == SL_FLOAT && TYPE(b) == SL_FLOAT) {
        double x = AS(sl_float_o, a)->d, y = AS(sl_float_o, b)->d;
        if (isnan(x) || isnan(y)) /* Starlark orders NaN above everything, equal to itself */
            return isnan(x) && isnan(y) ? 0 : isnan(x) ? 1 : -1;
        return x < y ? -1 : x > y;
    }
    if (TYPE(a) == SL_INT) {
        double y = AS(sl_float_o, b)->d;
        if (isnan(y))
            return -1;
        return int_cmp_float(a, y);
    }
    double x = AS(sl_float_o, a)->d;
    if (isnan(x))
        return 1;
    return -int_cmp_float(b, x);
}

static bool op_result(int op, int c)
{
    switch (op) {
    case T_LT: return c < 0;
    case T_LE: return c <= 0;
    case T_GT: return c > 0;
    case T_GE: return c >= 0;
    case T_EQL: return c == 0;
    default: return c != 0;
    }
}

static bool cmp_depth(sl_vm *vm, int op, sl_val a, sl_val b, int depth);

static int seq_cmp(sl_vm *vm, int op, const sl_val *x, size_t xn, const sl_val *y, size_t yn, int depth, bool *done,
                   bool *res)
{
    /* first element that differs decides */
    *done = false;
    if ((op == T_EQL || op == T_NEQ) && xn != yn) {
        *done = true;
        *res = op == T_NEQ;
        return 0;
    }
    size_t n = xn < yn ? xn : yn;
    for (size_t i = 0; i < n; i++) {
        vm_steps(vm, 1);
        if (!cmp_depth(vm, T_EQL, x[i], y[i], depth - 1)) {
            *done = true;
            if (op == T_EQL || op == T_NEQ)
                *res = op == T_NEQ;
            else
                *res = cmp_depth(vm, op, x[i], y[i], depth - 1);
            return 0;
        }
    }
    return xn < yn ? -1 : xn > yn;
}

static bool cmp_depth(sl_vm *vm, int op, sl_val a, sl_val b, int depth)
{
    if (depth < 1)
        sl_fail(vm, "comparison exceeds maximum recursion depth");
    int ta = TYPE(a), tb = TYPE(b);
    if (is_num(a) && is_num(b)) {
        /* go.starlark.net orders floats totally, NaN above +Inf and equal to itself (nan == nan is True), so a
         * NaN key finds itself in a dict (float.star) */
        return op_result(op, num_cmp(a, b));
    }
    if (ta != tb) {
        if (op == T_EQL)
            return false;
        if (op == T_NEQ)
            return true;
        sl_fail(vm, "%s %s %s not implemented", sl_type_name(a), op_text(op), sl_type_name(b));
    }
    switch (ta) {
    case SL_STRING:
    case SL_BYTES: {
        sl_str_o *x = AS(sl_str_o, a), *y = AS(sl_str_o, b);
        if ((op == T_EQL || op == T_NEQ) && x->len != y->len)
            return op == T_NEQ;
        size_t n = x->len < y->len ? x->len : y->len;
        int c = memcmp(x->s, y->s, n);
        if (c == 0)
            c = x->len < y->len ? -1 : x->len > y->len;
        vm_steps(vm, n / 64);
        return op_result(op, c < 0 ? -1 : c > 0);
    }
    case SL_LIST:
    case SL_TUPLE: {
        const sl_val *x = ta == SL_LIST ? AS(sl_list_o, a)->v : AS(sl_tuple_o, a)->v;
        const sl_val *y = ta == SL_LIST ? AS(sl_list_o, b)->v : AS(sl_tuple_o, b)->v;
        bool done, res;
        int c = seq_cmp(vm, op, x, sl_len(a), y, sl_len(b), depth, &done, &res);
        return done ? res : op_result(op, c);
    }
    case SL_NONE:
    case SL_BOOL:
        if (ta == SL_BOOL && op != T_EQL && op != T_NEQ)
            return op_result(op, (a == TRUE_V) - (b == TRUE_V));
        if (op == T_EQL || op == T_NEQ)
            return op_result(op, a == b ? 0 : 1);
        break;
    case SL_DICT:
    case SL_SET:
        if (op == T_EQL || op == T_NEQ) {
            sl_dict_o *x = AS(sl_dict_o, a), *y = AS(sl_dict_o, b);
            bool eq = x->len == y->len;
            for (size_t i = 0; eq && i < x->n; i++) {
                if (!x->e[i].k)
                    continue;
                vm_steps(vm, 1);
                sl_entry *e = dict_find(vm, b, x->e[i].k);
                if (!e || (ta == SL_DICT && !cmp_depth(vm, T_EQL, x->e[i].v, e->v, depth - 1)))
                    eq = false;
            }
            return op == T_EQL ? eq : !eq;
        }
        break; /* sets are not ordered (go.starlark.net: "set < set not implemented") */
    case SL_STRUCT:
        if (op == T_EQL || op == T_NEQ) {
            sl_struct_o *x = AS(sl_struct_o, a), *y = AS(sl_struct_o, b);
            bool eq = x->n == y->n && (a->flags == b->flags);
            for (int i = 0; eq && i < x->n; i++)
                eq = !strcmp(x->names[i], y->names[i]) && cmp_depth(vm, T_EQL, x->vals[i], y->vals[i], depth - 1);
            if (a->flags)
                eq = a == b;
            return op == T_EQL ? eq : !eq;
        }
        break;
    case SL_RANGE:
        if (op == T_EQL || op == T_NEQ) {
            sl_range_o *x = AS(sl_range_o, a), *y = AS(sl_range_o, b);
            bool eq = x->len == y->len && (x->len == 0 || (x->start == y->start && (x->len == 1 || x->step == y->step)));
            return op == T_EQL ? eq : !eq;
        }
        break;
    default:
        if (op == T_EQL || op == T_NEQ)
            return op_result(op, a == b ? 0 : 1);
    }
    sl_fail(vm, "%s %s %s not implemented", sl_type_name(a), op_text(op), sl_type_name(b));
}

bool vm_cmp_op(sl_vm *vm, int op, sl_val a, sl_val b)
{
    return cmp_depth(vm, op, a, b, COMPARE_LIMIT);
}

bool vm_equal(sl_vm *vm, sl_val a, sl_val b)
{
    if (a == b && TYPE(a) != SL_FLOAT)
        return true;
    if (TYPE(a) == SL_STRING && TYPE(b) == SL_STRING) {
        sl_str_o *x = AS(sl_str_o, a), *y = AS(sl_str_o, b);
        return x->len == y->len && !memcmp(x->s, y->s, x->len);
    }
    return cmp_depth(vm, T_EQL, a, b, COMPARE_LIMIT);
}

bool sl_equal(sl_vm *vm, sl_val a, sl_val b) { return vm_equal(vm, a, b); }

int vm_compare(sl_vm *vm, sl_val a, sl_val b)
{
    if (vm_cmp_op(vm, T_LT, a, b))
        return -1;
    return vm_cmp_op(vm, T_EQL, a, b) ? 0 : 1;
}

/* ---- repr and str ---- */
static void quote(sbuf *b, const char *s, size_t n, bool bytes)
{
    if (bytes)
        sb_addc(b, 'b');
    sb_addc(b, '"');
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x80) { /* bytes too: valid UTF-8 shows as text, the rest as \xHH (bytes.star) */
            uint32_t cp;
            int k = utf8_decode((const unsigned char *)s + i, n - i, &cp);
            if (k > 0) {
                if (cp >= 0xa0 && cp != 0xad && !(cp >= 0x200b && cp <= 0x200f) && !(cp >= 0x2028 && cp <= 0x202e) &&
                    !(cp >= 0x2060 && cp <= 0x2064) && cp != 0xfeff) /* format characters are escaped, as Go's */
                    sb_add(b, s + i, (size_t)k);
                else if (cp < 0x10000)
                    sb_printf(b, "\\u%04x", cp);
                else
                    sb_printf(b, "\\U%08x", cp);
                i += (size_t)k;
                continue;
            }
            sb_printf(b, "\\x%02x", c);
            i++;
            continue;
        }
        switch (c) {
        case '\a': sb_adds(b, "\\a"); break;
        case '\b': sb_adds(b, "\\b"); break;
        case '\f': sb_adds(b, "\\f"); break;
        case '\n': sb_adds(b, "\\n"); break;
        case '\r': sb_adds(b, "\\r"); break;
        case '\t': sb_adds(b, "\\t"); break;
        case '\v': sb_adds(b, "\\v"); break;
        case '"': sb_adds(b, "\\\""); break;
        case '\\': sb_adds(b, "\\\\"); break;
        default:
            if (c < 0x20 || c >= 0x7f)
                sb_printf(b, "\\x%02x", c);
            else
                sb_addc(b, (char)c);
        }
        i++;
    }
    sb_addc(b, '"');
}

static void repr_depth(sl_vm *vm, sbuf *b, sl_val v, int depth);

static void repr_items(sl_vm *vm, sbuf *b, const sl_val *v, size_t n, int depth)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            sb_adds(b, ", ");
        repr_depth(vm, b, v[i], depth + 1);
    }
}

/* A dict's entries ("k: v", with_values) or a set's keys, comma-separated, in insertion order (deleted slots have
 * no key). */
static void repr_entries(sl_vm *vm, sbuf *b, const sl_dict_o *d, bool with_values, int depth)
{
    bool first = true;
    for (size_t i = 0; i < d->n; i++) {
        if (!d->e[i].k)
            continue;
        if (!first)
            sb_adds(b, ", ");
        first = false;
        repr_depth(vm, b, d->e[i].k, depth + 1);
        if (with_values) {
            sb_adds(b, ": ");
            repr_depth(vm, b, d->e[i].v, depth + 1);
        }
    }
}

static void repr_depth(sl_vm *vm, sbuf *b, sl_val v, int depth)
{
    vm_steps(vm, 1);
    if (depth > 200 && (TYPE(v) == SL_LIST || TYPE(v) == SL_DICT || TYPE(v) == SL_TUPLE || TYPE(v) == SL_STRUCT)) {
        sb_adds(b, "...");
        return;
    }
    switch (TYPE(v)) {
    case SL_NONE: sb_adds(b, "None"); return;
    case SL_BOOL: sb_adds(b, v == TRUE_V ? "True" : "False"); return;
    case SL_INT: int_format(vm, b, v, 10, false); return;
    case SL_FLOAT: float_format(b, AS(sl_float_o, v)->d, 'g', -1); return;
    case SL_STRING:
    case SL_BYTES: quote(b, AS(sl_str_o, v)->s, AS(sl_str_o, v)->len, TYPE(v) == SL_BYTES); return;
    case SL_LIST:
    case SL_DICT:
        if (v->flags & 2) { /* being printed: a cycle */
            sb_adds(b, TYPE(v) == SL_LIST ? "[...]" : "{...}");
            return;
        }
        v->flags |= 2;
        if (TYPE(v) == SL_LIST) {
            sb_addc(b, '[');
            repr_items(vm, b, AS(sl_list_o, v)->v, AS(sl_list_o, v)->len, depth);
            sb_addc(b, ']');
        } else {
            sb_addc(b, '{');
            repr_entries(vm, b, AS(sl_dict_o, v), true, depth);
            sb_addc(b, '}');
        }
        v->flags &= (uint8_t)~2;
        return;
    case SL_TUPLE: {
        sl_tuple_o *t = AS(sl_tuple_o, v);
        sb_addc(b, '(');
        repr_items(vm, b, t->v, t->len, depth);
        sb_adds(b, t->len == 1 ? ",)" : ")");
        return;
    }
    case SL_SET: {
        sb_adds(b, "set([");
        repr_entries(vm, b, AS(sl_dict_o, v), false, depth);
        sb_adds(b, "])");
        return;
    }
    case SL_FUNCTION: sb_printf(b, "<function %s>", AS(sl_func_o, v)->fi->name); return;
    case SL_BUILTIN: {
        sl_builtin_o *f = AS(sl_builtin_o, v);
        if (f->self)
            sb_printf(b, "<built-in method %s of %s value>", f->name, sl_type_name(f->self));
        else
            sb_printf(b, "<built-in function %s>", f->name);
        return;
    }
    case SL_RANGE: {
        sl_range_o *r = AS(sl_range_o, v);
        if (r->step != 1)
            sb_printf(b, "range(%lld, %lld, %lld)", (long long)r->start, (long long)r->stop, (long long)r->step);
        else if (r->start != 0)
            sb_printf(b, "range(%lld, %lld)", (long long)r->start, (long long)r->stop);
        else
            sb_printf(b, "range(%lld)", (long long)r->stop);
        return;
    }
    case SL_STRUCT: {
        sl_struct_o *s = AS(sl_struct_o, v);
        if (v->flags & 1) {
            sb_printf(b, "<module \"%s\">", s->ctor);
            return;
        }
        sb_printf(b, "%s(", s->ctor);
        for (int i = 0; i < s->n; i++) {
            if (i)
                sb_adds(b, ", ");
            sb_printf(b, "%s = ", s->names[i]);
            repr_depth(vm, b, s->vals[i], depth + 1);
        }
        sb_addc(b, ')');
        return;
    }
    case SL_ELEMS: {
        sl_elems_o *e = AS(sl_elems_o, v);
        repr_depth(vm, b, e->s, depth + 1);
        static const char *const k[] = {".elems()", ".elem_ords()", ".codepoints()", ".codepoint_ords()", ".elems()"};
        sb_adds(b, k[e->kind]);
        return;
    }
    case SL_HOST: sb_adds(b, AS(sl_host_o, v)->t->name); return;
    default: sb_adds(b, "<value>");
    }
}

void vm_repr(sl_vm *vm, sbuf *b, sl_val v)
{
    repr_depth(vm, b, v, 0);
}

void vm_str(sl_vm *vm, sbuf *b, sl_val v)
{
    if (TYPE(v) == SL_STRING)
        sb_add(b, AS(sl_str_o, v)->s, AS(sl_str_o, v)->len);
    else
        repr_depth(vm, b, v, 0);
}

const char *sl_repr(sl_vm *vm, sl_val v)
{
    sbuf b;
    sb_init(&b, vm);
    vm_repr(vm, &b, v);
    return b.s ? b.s : "";
}

const char *sl_tostr(sl_vm *vm, sl_val v)
{
    sbuf b;
    sb_init(&b, vm);
    vm_str(vm, &b, v);
    return b.s ? b.s : "";
}

/* ---- freezing ---- */
/* Freezing walks everything reachable, with a work list of its own: a list nested a million deep (l = [l] in a
 * loop) recursed that far in C and overflowed the stack (SIGSEGV; found by an attacker's review). A value is marked
 * before its parts are pushed, so cycles and shared parts are visited once. */
typedef struct freeze_work {
    sl_val *v;
    size_t n, cap;
} freeze_work;

static void freeze_push(freeze_work *w, sl_val v)
{
    if (IS_SMALL(v) || v->frozen)
        return;
    v->frozen = 1;
    if (w->n == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 64;
        w->v = xrealloc(w->v, w->cap * sizeof *w->v);
    }
    w->v[w->n++] = v;
}

void sl_freeze(sl_val root)
{
    freeze_work w = {0};
    freeze_push(&w, root);
    while (w.n) {
        sl_val v = w.v[--w.n];
        switch (TYPE(v)) {
        case SL_HOST:
            if (AS(sl_host_o, v)->t->freeze)
                AS(sl_host_o, v)->t->freeze(v);
            break;
        case SL_LIST:
            for (size_t i = 0; i < AS(sl_list_o, v)->len; i++)
                freeze_push(&w, AS(sl_list_o, v)->v[i]);
            break;
        case SL_TUPLE:
            for (size_t i = 0; i < AS(sl_tuple_o, v)->len; i++)
                freeze_push(&w, AS(sl_tuple_o, v)->v[i]);
            break;
        case SL_DICT:
        case SL_SET:
            for (size_t i = 0; i < AS(sl_dict_o, v)->n; i++)
                if (AS(sl_dict_o, v)->e[i].k) {
                    freeze_push(&w, AS(sl_dict_o, v)->e[i].k);
                    freeze_push(&w, AS(sl_dict_o, v)->e[i].v);
                }
            break;
        case SL_FUNCTION: {
            sl_func_o *f = AS(sl_func_o, v);
            for (int i = 0; i < f->fi->ndefaults; i++)
                freeze_push(&w, f->defaults[i]);
            for (int i = 0; i < f->fi->nfree; i++)
                freeze_push(&w, f->free[i]);
            break;
        }
        case SL_CELL: freeze_push(&w, AS(sl_cell_o, v)->v); break;
        case SL_STRUCT:
            for (int i = 0; i < AS(sl_struct_o, v)->n; i++)
                freeze_push(&w, AS(sl_struct_o, v)->vals[i]);
            break;
        case SL_BUILTIN:
            if (AS(sl_builtin_o, v)->self)
                freeze_push(&w, AS(sl_builtin_o, v)->self);
            break;
        default: break;
        }
    }
    xfree(w.v);
}

/* go.starlark.net's words: dicts and sets are "hash table"s there, and a method's error starts with its name */
void check_mutable_in(sl_vm *vm, sl_val v, const char *fn, const char *what)
{
    int t = TYPE(v);
    const char *kind = t == SL_DICT || t == SL_SET ? "hash table" : sl_type_name(v);
    if (v->frozen)
        sl_fail(vm, "%s%scannot %s frozen %s", fn ? fn : "", fn ? ": " : "", what, kind);
    if (v->iters)
        sl_fail(vm, "%s%scannot %s %s during iteration", fn ? fn : "", fn ? ": " : "", what, kind);
}

void check_mutable(sl_vm *vm, sl_val v, const char *what) { check_mutable_in(vm, v, NULL, what); }

/* ---- UTF-8 ---- */
int utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
    if (!n)
        return -1;
    unsigned char c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    int k;
    uint32_t v, min;
    if ((c & 0xe0) == 0xc0) { k = 2; v = c & 0x1f; min = 0x80; }
    else if ((c & 0xf0) == 0xe0) { k = 3; v = c & 0x0f; min = 0x800; }
    else if ((c & 0xf8) == 0xf0) { k = 4; v = c & 0x07; min = 0x10000; }
    else return -1;
    if ((size_t)k > n)
        return -1;
    for (int i = 1; i < k; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return -1;
        v = v << 6 | (s[i] & 0x3f);
    }
    if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
        return -1;
    *cp = v;
    return k;
}

/* s with every byte that is not part of valid UTF-8 replaced by U+FFFD: bytes(str) and str(bytes) (spec) */
sl_val utf8_sanitized(sl_vm *vm, const char *s, size_t n, bool bytes)
{
    sbuf b;
    sb_init(&b, vm);
    vm_steps(vm, n / 64);
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        int k = (unsigned char)s[i] < 0x80 ? 1 : utf8_decode((const unsigned char *)s + i, n - i, &cp);
        if (k > 0) {
            sb_add(&b, s + i, (size_t)k);
            i += (size_t)k;
        } else {
            sb_add(&b, "\xef\xbf\xbd", 3);
            i++;
        }
    }
    return mk_str(vm, b.s ? b.s : "", b.len, bytes);
}

int utf8_encode(uint32_t cp, char *o)
{
    if (cp >= 0xd800 && cp <= 0xdfff)
        cp = 0xfffd;
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) { o[0] = (char)(0xc0 | cp >> 6); o[1] = (char)(0x80 | (cp & 0x3f)); return 2; }
    if (cp < 0x10000) {
        o[0] = (char)(0xe0 | cp >> 12); o[1] = (char)(0x80 | ((cp >> 6) & 0x3f)); o[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    if (cp > 0x10ffff)
        cp = 0xfffd;
    if (cp >= 0x10000) {
        o[0] = (char)(0xf0 | cp >> 18); o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
        o[2] = (char)(0x80 | ((cp >> 6) & 0x3f)); o[3] = (char)(0x80 | (cp & 0x3f));
        return 4;
    }
    return utf8_encode(cp, o);
}

const char *sl_find(sl_vm *vm, const char *hay, size_t n, const char *needle, size_t m)
{
    if (!m)
        return hay;
    if (m > n)
        return NULL;
    const char *end = hay + (n - m) + 1;
    for (const char *p = hay; p < end;) {
        p = memchr(p, needle[0], (size_t)(end - p));
        if (!p)
            return NULL;
        vm_steps(vm, 1 + m / 64);
        if (!memcmp(p, needle, m))
            return p;
        p++;
    }
    return NULL;
}
