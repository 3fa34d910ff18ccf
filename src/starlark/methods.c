/* The methods of the built-in types (spec "Built-in methods"): dict, list, set, string and bytes. A method looked
 * up on a value is a builtin bound to it. Every method that mutates checks first that its receiver is neither
 * frozen nor being iterated. String methods index by bytes, as go.starlark.net does; work proportional to a
 * string's length is charged to the step budget. */
#include <ctype.h>
#include <stdlib.h>

#include "starlark/internal.h"

sl_val builtin_dict_update(sl_vm *vm, sl_val d, int nargs, sl_val *args, int nkw, sl_val *kw);
sl_val sort_values(sl_vm *vm, sl_val *items, size_t n, sl_val key, bool rev);

#define METHOD(name) static sl_val m_##name(sl_vm *vm, sl_val self, int nargs, sl_val *args, int nkw, sl_val *kw, void *data)
#define UNUSED (void)data

typedef struct { const char *name; sl_native fn; } method;

int slice_indices(sl_vm *vm, int64_t len, sl_val lo, sl_val hi, sl_val st, int64_t *start, int64_t *stop, int64_t *step)
{
    int64_t s = 1;
    if (st && st != NONE) {
        if (TYPE(st) != SL_INT)
            sl_fail(vm, "invalid slice step: got %s, want int", sl_type_name(st));
        if (!sl_as_int64(st, &s))
            s = int_sign(st) < 0 ? INT64_MIN + 1 : INT64_MAX;
        if (s == 0)
            sl_fail(vm, "zero is not a valid slice step");
    }
    int64_t lodef = s > 0 ? 0 : len - 1, hidef = s > 0 ? len : -1;
    int64_t v[2];
    sl_val in[2] = {lo, hi};
    for (int i = 0; i < 2; i++) {
        if (!in[i] || in[i] == NONE) {
            v[i] = i ? hidef : lodef;
            continue;
        }
        if (TYPE(in[i]) != SL_INT)
            sl_fail(vm, "invalid %s index: got %s, want int", i ? "end" : "start", sl_type_name(in[i]));
        int64_t x;
        if (!sl_as_int64(in[i], &x))
            x = int_sign(in[i]) < 0 ? -len - 1 : len + 1;
        if (x < 0) {
            x += len;
            if (x < 0)
                x = s > 0 ? 0 : -1;
        } else if (x > len)
            x = s > 0 ? len : len - 1;
        if (x >= len && s < 0)
            x = len - 1;
        v[i] = x;
    }
    *start = v[0];
    *stop = v[1];
    *step = s;
    return 0;
}

/* ---- dict ---- */
METHOD(d_clear)
{
    UNUSED;
    unpack(vm, "clear", nargs, args, nkw, kw, 0, NULL, NULL, 0);
    check_mutable_in(vm, self, "clear", "clear"); /* go.starlark.net: even when empty (dict.star) */
    dict_clear(vm, self);
    return NONE;
}

METHOD(d_get)
{
    UNUSED;
    sl_val a[2];
    if (nkw) /* positional only, as go.starlark.net's (misc.star) */
        sl_fail(vm, "get: unexpected keyword arguments");
    unpack(vm, "get", nargs, args, 0, NULL, 1, NULL, a, 2);
    sl_entry *e = dict_find(vm, self, a[0]);
    return e ? e->v : a[1] ? a[1] : NONE;
}

METHOD(d_items)
{
    UNUSED;
    unpack(vm, "items", nargs, args, nkw, kw, 0, NULL, NULL, 0);
    sl_dict_o *d = AS(sl_dict_o, self);
    sl_val l = sl_list(vm, d->len);
    for (size_t i = 0; i < d->n; i++)
        if (d->e[i].k) {
            sl_val p[2] = {d->e[i].k, d->e[i].v};
            sl_list_append(vm, l, sl_tuple(vm, 2, p));
        }
    return l;
}

static sl_val keys_or_values(sl_vm *vm, sl_val self, bool vals)
{
    sl_dict_o *d = AS(sl_dict_o, self);
    sl_val l = sl_list(vm, d->len);
    for (size_t i = 0; i < d->n; i++)
        if (d->e[i].k)
            sl_list_append(vm, l, vals ? d->e[i].v : d->e[i].k);
    return l;
}

METHOD(d_keys) { UNUSED; unpack(vm, "keys", nargs, args, nkw, kw, 0, NULL, NULL, 0); return keys_or_values(vm, self, false); }
METHOD(d_values) { UNUSED; unpack(vm, "values", nargs, args, nkw, kw, 0, NULL, NULL, 0); return keys_or_values(vm, self, true); }

METHOD(d_pop)
{
    UNUSED;
    sl_val a[2];
    static const char *const names[] = {"key", "default"};
    unpack(vm, "pop", nargs, args, nkw, kw, 1, names, a, 2);
    check_mutable_in(vm, self, "pop", "delete from");
    sl_val old;
    if (dict_del(vm, self, a[0], &old))
        return old;
    if (a[1])
        return a[1];
    sl_fail(vm, "pop: missing key %s", sl_repr(vm, a[0]));
}

METHOD(d_popitem)
{
    UNUSED;
    unpack(vm, "popitem", nargs, args, nkw, kw, 0, NULL, NULL, 0);
    sl_dict_o *d = AS(sl_dict_o, self);
    if (!d->len)
        sl_fail(vm, "popitem: empty dict");
    check_mutable_in(vm, self, "popitem", "delete from");
    for (size_t i = 0; i < d->n; i++)
        if (d->e[i].k) {
            sl_val p[2] = {d->e[i].k, d->e[i].v};
            dict_del(vm, self, p[0], NULL);
            return sl_tuple(vm, 2, p);
        }
    return NONE;
}

METHOD(d_setdefault)
{
    UNUSED;
    sl_val a[2];
    static const char *const names[] = {"key", "default"};
    unpack(vm, "setdefault", nargs, args, nkw, kw, 1, names, a, 2);
    sl_entry *e = dict_find(vm, self, a[0]);
    if (e)
        return e->v;
    check_mutable_in(vm, self, "setdefault", "insert into");
    dict_put(vm, self, a[0], a[1] ? a[1] : NONE);
    return a[1] ? a[1] : NONE;
}

METHOD(d_update)
{
    UNUSED;
    return builtin_dict_update(vm, self, nargs, args, nkw, kw);
}

/* ---- list ---- */
METHOD(l_append)
{
    UNUSED;
    sl_val a[1];
    unpack(vm, "append", nargs, args, nkw, kw, 1, NULL, a, 1);
    check_mutable_in(vm, self, "append", "append to");
    sl_list_append(vm, self, a[0]);
    return NONE;
}

METHOD(l_clear)
{
    UNUSED;
    unpack(vm, "clear", nargs, args, nkw, kw, 0, NULL, NULL, 0);
    if (AS(sl_list_o, self)->len)
        check_mutable_in(vm, self, "clear", "clear");
    AS(sl_list_o, self)->len = 0;
    return NONE;
}

METHOD(l_extend)
{
    UNUSED;
    sl_val a[1];
    unpack(vm, "extend", nargs, args, nkw, kw, 1, NULL, a, 1);
    check_mutable_in(vm, self, "extend", "extend");
    size_t n;
    sl_val *items = iter_all(vm, a[0], &n);
    sl_val *copy = vm_alloc_raw(vm, (n ? n : 1) * sizeof(sl_val));
    if (n)
        memcpy(copy, items, n * sizeof(sl_val));
    vm_steps(vm, n / 16);
    for (size_t i = 0; i < n; i++)
        sl_list_append(vm, self, copy[i]);
    return NONE;
}

static int64_t clamp_index(sl_vm *vm, const char *fn, sl_val v, int64_t len)
{
    if (TYPE(v) != SL_INT)
        sl_fail(vm, "%s: got %s, want int", fn, sl_type_name(v));
    int64_t i;
    if (!sl_as_int64(v, &i))
        i = int_sign(v) < 0 ? -len - 1 : len + 1;
    if (i < 0)
        i += len;
    if (i < 0)
        i = 0;
    if (i > len)
        i = len;
    return i;
}

METHOD(l_index)
{
    UNUSED;
    sl_val a[3];
    unpack(vm, "index", nargs, args, nkw, kw, 1, NULL, a, 3);
    sl_list_o *l = AS(sl_list_o, self);
    int64_t len = (int64_t)l->len;
    int64_t s = a[1] && a[1] != NONE ? clamp_index(vm, "index", a[1], len) : 0;
    int64_t e = a[2] && a[2] != NONE ? clamp_index(vm, "index", a[2], len) : len;
    for (int64_t i = s; i < e; i++) {
        vm_steps(vm, 1);
        if (vm_equal(vm, l->v[i], a[0]))
            return sl_int(vm, i);
    }
    sl_fail(vm, "index: value not in list");
}

METHOD(l_insert)
{
    UNUSED;
    sl_val a[2];
    unpack(vm, "insert", nargs, args, nkw, kw, 2, NULL, a, 2);
    check_mutable_in(vm, self, "insert", "insert into");
    sl_list_o *l = AS(sl_list_o, self);
    int64_t i = clamp_index(vm, "insert", a[0], (int64_t)l->len);
    sl_list_append(vm, self, NONE);
    vm_steps(vm, (l->len - (size_t)i) / 16);
    memmove(l->v + i + 1, l->v + i, (l->len - 1 - (size_t)i) * sizeof(sl_val));
    l->v[i] = a[1];
    return NONE;
}

METHOD(l_pop)
{
    UNUSED;
    sl_val a[1];
    unpack(vm, "pop", nargs, args, nkw, kw, 0, NULL, a, 1);
    sl_list_o *l = AS(sl_list_o, self);
    int64_t len = (int64_t)l->len, i = len - 1;
    if (a[0]) {
        if (TYPE(a[0]) != SL_INT)
            sl_fail(vm, "pop: got %s, want int", sl_type_name(a[0]));
        if (!sl_as_int64(a[0], &i))
            i = len;
        int64_t orig = i;
        if (i < 0)
            i += len;
        if (i < 0 || i >= len)
            sl_fail(vm, "pop: index %lld out of range [%lld:%lld]", (long long)orig, (long long)-len, (long long)(len - 1));
    } else if (len == 0)
        sl_fail(vm, "pop: index -1 out of range [0:-1]");
    check_mutable_in(vm, self, "pop", "pop from");
    sl_val v = l->v[i];
    memmove(l->v + i, l->v + i + 1, (size_t)(len - i - 1) * sizeof(sl_val));
    l->len--;
    return v;
}

METHOD(l_remove)
{
    UNUSED;
    sl_val a[1];
    unpack(vm, "remove", nargs, args, nkw, kw, 1, NULL, a, 1);
    check_mutable_in(vm, self, "remove", "remove from");
    sl_list_o *l = AS(sl_list_o, self);
    for (size_t i = 0; i < l->len; i++) {
        vm_steps(vm, 1);
        if (vm_equal(vm, l->v[i], a[0])) {
            memmove(l->v + i, l->v + i + 1, (l->len - i - 1) * sizeof(sl_val));
            l->len--;
            return NONE;
        }
    }
    sl_fail(vm, "remove: element not found");
}

/* ---- set ---- */
static sl_val set_from(sl_vm *vm, sl_val x)
{
    if (TYPE(x) == SL_SET)
        return x;
    size_t n;
    sl_val *items = iter_all(vm, x, &n);
    sl_val s = mk_dict(vm, SL_SET);
    for (size_t i = 0; i < n; i++)
        dict_put(vm, s, items[i], NONE);
    return s;
}

METHOD(s_add)
{
    UNUSED;
    sl_val a[1];
    unpack(vm, "add", nargs, args, nkw, kw, 1, NULL, a, 1);
    if (dict_find(vm, self, a[0]))
        return NONE;
    check_mutable_in(vm, self, "add", "insert into");
    dict_put(vm, self, a[0], NONE);
    return NONE;
}

METHOD(s_clear)
{
    UNUSED;
    unpack(vm, "clear", nargs, args, nkw, kw, 0, NULL, NULL, 0);
    if (AS(sl_dict_o, self)->len)
        check_mutable_in(vm, self, "clear", "clear");
    dict_clear(vm, self);
    return NONE;
}

/* go.starlark.net at the pinned commit has six set methods (spec.md, builtins.star's dir(set)): add, clear,
 * discard, pop, remove and union of one iterable; intersection, difference and the rest came later, and a script
 * that calls them fails under kpt, so it fails here too (the operators &, -, ^ and | are there) */
METHOD(s_union)
{
    UNUSED;
    sl_val a[1];
    unpack(vm, "union", nargs, args, nkw, kw, 1, NULL, a, 1);
    if (!iterable(a[0]))
        sl_fail(vm, "union: for parameter 1: got %s, want iterable", sl_type_name(a[0]));
    return vm_binary(vm, T_PIPE, self, set_from(vm, a[0]));
}

METHOD(s_discard)
{
    UNUSED;
    sl_val a[1];
    unpack(vm, "discard", nargs, args, nkw, kw, 1, NULL, a, 1);
    if (!dict_find(vm, self, a[0]))
        return NONE;
    check_mutable_in(vm, self, "discard", "delete from");
    dict_del(vm, self, a[0], NULL);
    return NONE;
}

METHOD(s_remove)
{
    UNUSED;
    sl_val a[1];
    unpack(vm, "remove", nargs, args, nkw, kw, 1, NULL, a, 1);
    check_mutable_in(vm, self, "remove", "delete from"); /* frozen first, as go.starlark.net (set.star) */
    if (!dict_find(vm, self, a[0]))
        sl_fail(vm, "remove: missing key %s", sl_repr(vm, a[0]));
    dict_del(vm, self, a[0], NULL);
    return NONE;
}

METHOD(s_pop)
{
    UNUSED;
    unpack(vm, "pop", nargs, args, nkw, kw, 0, NULL, NULL, 0);
    sl_dict_o *d = AS(sl_dict_o, self);
    if (!d->len)
        sl_fail(vm, "pop: empty set");
    check_mutable_in(vm, self, "pop", "delete from");
    for (size_t i = 0; i < d->n; i++)
        if (d->e[i].k) {
            sl_val k = d->e[i].k;
            dict_del(vm, self, k, NULL);
            return k;
        }
    return NONE;
}

/* ---- strings ---- */
static sl_str_o *S(sl_val v) { return AS(sl_str_o, v); }

static sl_val substr(sl_vm *vm, sl_val s, size_t i, size_t n) { return mk_str(vm, S(s)->s + i, n, TYPE(s) == SL_BYTES); }

/* Case mapping and the case predicates go rune by rune as Go's unicode package maps them (unicode.c); a byte
 * that starts no valid UTF-8 reads as U+FFFD, and the methods that rebuild the string write it so, as
 * go.starlark.net's do (strings.Map, utf8.AppendRune). */
static void sb_rune(sbuf *b, uint32_t r)
{
    char u[4];
    if (r < 0x80)
        sb_addc(b, (char)r);
    else
        sb_add(b, u, (size_t)utf8_encode(r, u));
}

/* the first rune in title case, the others in lower case */
METHOD(capitalize)
{
    UNUSED;
    unpack(vm, "capitalize", nargs, args, nkw, kw, 0, NULL, NULL, 0);
    sl_str_o *s = S(self);
    sbuf b;
    sb_init(&b, vm);
    vm_steps(vm, s->len / 16);
    for (size_t i = 0, w; i < s->len; i += w) {
        uint32_t r = utf8_next(s->s + i, s->len - i, &w);
        sb_rune(&b, i == 0 ? uc_to_title(r) : uc_to_lower(r));
    }
    return sb_str(&b);
}

static sl_val elems(sl_vm *vm, sl_val self, int kind)
{
    sl_elems_o *e = vm_alloc(vm, sizeof *e);
    e->h.type = SL_ELEMS;
    e->h.frozen = 1;
    e->s = self;
    e->kind = kind;
    return (sl_val)e;
}

METHOD(elems_m) { UNUSED; unpack(vm, "elems", nargs, args, nkw, kw, 0, NULL, NULL, 0); return elems(vm, self, TYPE(self) == SL_BYTES ? 4 : 0); }
METHOD(elem_ords) { UNUSED; unpack(vm, "elem_ords", nargs, args, nkw, kw, 0, NULL, NULL, 0); return elems(vm, self, 1); }
METHOD(codepoints) { UNUSED; unpack(vm, "codepoints", nargs, args, nkw, kw, 0, NULL, NULL, 0); return elems(vm, self, 2); }
METHOD(codepoint_ords) { UNUSED; unpack(vm, "codepoint_ords", nargs, args, nkw, kw, 0, NULL, NULL, 0); return elems(vm, self, 3); }

/* the [start:end] window of optional arguments a[1], a[2] */
static void window(sl_vm *vm, sl_val self, sl_val lo, sl_val hi, size_t *s, size_t *e)
{
    int64_t st, sp, step;
    slice_indices(vm, (int64_t)S(self)->len, lo, hi, NONE, &st, &sp, &step);
    *s = (size_t)st;
    *e = sp < st ? (size_t)st : (size_t)sp;
}

static const char *sub_arg(sl_vm *vm, const char *fn, sl_val self, sl_val x, size_t *n)
{
    if (TYPE(x) != TYPE(self))
        sl_fail(vm, "%s: got %s, want %s", fn, sl_type_name(x), sl_type_name(self));
    return sl_str_data(x, n);
}

static int64_t find(sl_vm *vm, const char *fn, sl_val self, int nargs, sl_val *args, int nkw, sl_val *kw, bool last)
{
    sl_val a[3];
    unpack(vm, fn, nargs, args, nkw, kw, 1, NULL, a, 3);
    size_t n, s, e;
    const char *sub = sub_arg(vm, fn, self, a[0], &n);
    window(vm, self, a[1], a[2], &s, &e);
    const char *base = S(self)->s;
    vm_steps(vm, (e - s) / 16);
    if (e - s < n)
        return -1;
    if (!last) {
        if (!n)
            return (int64_t)s;
        const char *p = sl_find(vm, base + s, e - s, sub, n);
        return p ? p - base : -1;
    }
    for (size_t i = e - n + 1; i-- > s;)
        if (!memcmp(base + i, sub, n))
            return (int64_t)i;
    return -1;
}

METHOD(count)
{
    UNUSED;
    sl_val a[3];
    unpack(vm, "count", nargs, args, nkw, kw, 1, NULL, a, 3);
    size_t n, s, e;
    const char *sub = sub_arg(vm, "count", self, a[0], &n);
    window(vm, self, a[1], a[2], &s, &e);
    vm_steps(vm, (e - s) / 16);
    int64_t c = 0;
    if (!n)
        return sl_int(vm, (int64_t)(e - s) + 1);
    for (size_t i = s; i + n <= e;) {
        const char *p = sl_find(vm, S(self)->s + i, e - i, sub, n);
        if (!p)
            break;
        c++;
        i = (size_t)(p - S(self)->s) + n;
    }
    return sl_int(vm, c);
}

static sl_val starts_ends(sl_vm *vm, const char *fn, sl_val self, int nargs, sl_val *args, int nkw, sl_val *kw, bool end)
{
    sl_val a[3];
    unpack(vm, fn, nargs, args, nkw, kw, 1, NULL, a, 3);
    size_t s, e;
    window(vm, self, a[1], a[2], &s, &e);
    sl_val *cands = &a[0];
    size_t nc = 1;
    if (TYPE(a[0]) == SL_TUPLE) {
        cands = AS(sl_tuple_o, a[0])->v;
        nc = AS(sl_tuple_o, a[0])->len;
    } else if (TYPE(a[0]) != TYPE(self))
        sl_fail(vm, "%s: got %s, want %s or tuple of %s", fn, sl_type_name(a[0]), sl_type_name(self), sl_type_name(self));
    for (size_t i = 0; i < nc; i++) {
        if (cands != &a[0] && TYPE(cands[i]) != TYPE(self)) /* go.starlark.net's words (string.star) */
            sl_fail(vm, "%s: got %s, for element %zu", fn, sl_type_name(cands[i]), i);
        size_t n;
        const char *sub = sub_arg(vm, fn, self, cands[i], &n);
        if (n > e - s)
            continue;
        if (!memcmp(S(self)->s + (end ? e - n : s), sub, n))
            return TRUE_V;
    }
    return FALSE_V;
}

METHOD(endswith) { UNUSED; return starts_ends(vm, "endswith", self, nargs, args, nkw, kw, true); }
METHOD(startswith) { UNUSED; return starts_ends(vm, "startswith", self, nargs, args, nkw, kw, false); }
METHOD(find_m) { UNUSED; return sl_int(vm, find(vm, "find", self, nargs, args, nkw, kw, false)); }
METHOD(rfind) { UNUSED; return sl_int(vm, find(vm, "rfind", self, nargs, args, nkw, kw, true)); }

/* index and rindex: find and rfind that fail where those give -1 */
static sl_val index_of(sl_vm *vm, const char *fn, sl_val self, int nargs, sl_val *args, int nkw, sl_val *kw, bool last)
{
    int64_t i = find(vm, fn, self, nargs, args, nkw, kw, last);
    if (i < 0)
        sl_fail(vm, "%s: substring not found", fn);
    return sl_int(vm, i);
}

METHOD(index_m) { UNUSED; return index_of(vm, "index", self, nargs, args, nkw, kw, false); }
METHOD(rindex) { UNUSED; return index_of(vm, "rindex", self, nargs, args, nkw, kw, true); }

METHOD(format_m)
{
    UNUSED;
    return str_format(vm, self, nargs, args, nkw, kw);
}

typedef bool (*cp_pred)(uint32_t);
static bool is_alnum(uint32_t c) { return uc_is_letter(c) || uc_is_digit(c); }
static bool is_alpha(uint32_t c) { return uc_is_letter(c); }
static bool is_digit(uint32_t c) { return uc_is_digit(c); }
static bool is_space(uint32_t c) { return c < 0x80 ? c == ' ' || (c >= 9 && c <= 13) : uc_is_space(c); }

/* white space at s[i], or ending the n bytes at p (decoded as utf8.DecodeLastRuneInString, within them), and its
 * length in bytes */
static bool space_at(const sl_str_o *s, size_t i, size_t *w) { return is_space(utf8_next(s->s + i, s->len - i, w)); }
static bool space_before(const char *p, size_t n, size_t *w) { return is_space(utf8_prev(p, n, w)); }

static sl_val all_cp(sl_vm *vm, sl_val self, cp_pred pred)
{
    sl_str_o *s = S(self);
    if (!s->len)
        return FALSE_V;
    vm_steps(vm, s->len / 16);
    for (size_t i = 0; i < s->len;) {
        uint32_t cp;
        int k = utf8_decode((const unsigned char *)s->s + i, s->len - i, &cp);
        if (k < 0)
            return FALSE_V;
        if (!pred(cp))
            return FALSE_V;
        i += (size_t)k;
    }
    return TRUE_V;
}

METHOD(isalnum_m) { UNUSED; unpack(vm, "isalnum", nargs, args, nkw, kw, 0, NULL, NULL, 0); return all_cp(vm, self, is_alnum); }
METHOD(isalpha_m) { UNUSED; unpack(vm, "isalpha", nargs, args, nkw, kw, 0, NULL, NULL, 0); return all_cp(vm, self, is_alpha); }
METHOD(isdigit_m) { UNUSED; unpack(vm, "isdigit", nargs, args, nkw, kw, 0, NULL, NULL, 0); return all_cp(vm, self, is_digit); }
METHOD(isspace_m) { UNUSED; unpack(vm, "isspace", nargs, args, nkw, kw, 0, NULL, NULL, 0); return all_cp(vm, self, is_space); }

/* go.starlark.net: some rune is cased and the string equals its strings.ToUpper (ToLower): a byte of invalid
 * UTF-8 in a string with any non-ASCII byte becomes U+FFFD there, so the string differs */
static sl_val case_test(sl_vm *vm, sl_val self, bool upper)
{
    sl_str_o *s = S(self);
    bool cased = false, ascii = true;
    vm_steps(vm, s->len / 16);
    for (size_t i = 0; i < s->len; i++)
        if ((unsigned char)s->s[i] >= 0x80)
            ascii = false;
    for (size_t i = 0, w; i < s->len; i += w) {
        uint32_t r = utf8_next(s->s + i, s->len - i, &w);
        if (!ascii && r == 0xfffd && w == 1)
            return FALSE_V;
        if ((upper ? uc_to_upper(r) : uc_to_lower(r)) != r)
            return FALSE_V;
        if (uc_is_cased(r))
            cased = true;
    }
    return cased ? TRUE_V : FALSE_V;
}

METHOD(islower_m) { UNUSED; unpack(vm, "islower", nargs, args, nkw, kw, 0, NULL, NULL, 0); return case_test(vm, self, false); }
METHOD(isupper_m) { UNUSED; unpack(vm, "isupper", nargs, args, nkw, kw, 0, NULL, NULL, 0); return case_test(vm, self, true); }

METHOD(istitle)
{
    UNUSED;
    unpack(vm, "istitle", nargs, args, nkw, kw, 0, NULL, NULL, 0);
    /* go.starlark.net's rule, word for word: A-Z and title-case letters may only follow uncased runes, lower-case
     * letters only cased ones, and any other upper-case letter (É, Ǆ) makes it false */
    sl_str_o *s = S(self);
    bool prev_cased = false, any = false;
    vm_steps(vm, s->len / 16);
    for (size_t i = 0, w; i < s->len; i += w) {
        uint32_t r = utf8_next(s->s + i, s->len - i, &w);
        if ((r >= 'A' && r <= 'Z') || uc_is_title(r)) {
            if (prev_cased)
                return FALSE_V;
            prev_cased = any = true;
        } else if (uc_is_lower(r)) {
            if (!prev_cased)
                return FALSE_V;
            prev_cased = any = true;
        } else if (uc_is_upper(r))
            return FALSE_V;
        else
            prev_cased = false;
    }
    return any ? TRUE_V : FALSE_V;
}

METHOD(join)
{
    UNUSED;
    sl_val a[1];
    unpack(vm, "join", nargs, args, nkw, kw, 1, NULL, a, 1);
    size_t n;
    sl_val *items = iter_all(vm, a[0], &n);
    sbuf b;
    sb_init(&b, vm);
    for (size_t i = 0; i < n; i++) {
        if (TYPE(items[i]) != SL_STRING)
            sl_fail(vm, "join: in list, want string, got %s", sl_type_name(items[i]));
        if (i)
            sb_add(&b, S(self)->s, S(self)->len);
        sb_add(&b, S(items[i])->s, S(items[i])->len);
        vm_steps(vm, 1 + S(items[i])->len / 64);
    }
    return sb_str(&b);
}

/* strings.ToLower/ToUpper: each rune mapped (an ASCII-only string has no invalid byte to rewrite) */
static sl_val map_case(sl_vm *vm, sl_val self, uint32_t (*f)(uint32_t))
{
    sl_str_o *s = S(self);
    sbuf b;
    sb_init(&b, vm);
    vm_steps(vm, s->len / 16);
    for (size_t i = 0, w; i < s->len; i += w)
        sb_rune(&b, f(utf8_next(s->s + i, s->len - i, &w)));
    return sb_str(&b);
}

METHOD(lower) { UNUSED; unpack(vm, "lower", nargs, args, nkw, kw, 0, NULL, NULL, 0); return map_case(vm, self, uc_to_lower); }
METHOD(upper) { UNUSED; unpack(vm, "upper", nargs, args, nkw, kw, 0, NULL, NULL, 0); return map_case(vm, self, uc_to_upper); }

METHOD(title)
{
    UNUSED;
    unpack(vm, "title", nargs, args, nkw, kw, 0, NULL, NULL, 0);
    /* lower case after a cased rune, title case after any other (go.starlark.net's string_title) */
    sl_str_o *s = S(self);
    sbuf b;
    sb_init(&b, vm);
    vm_steps(vm, s->len / 16);
    bool prev = false;
    for (size_t i = 0, w; i < s->len; i += w) {
        uint32_t r = utf8_next(s->s + i, s->len - i, &w);
        r = prev ? uc_to_lower(r) : uc_to_title(r);
        prev = uc_is_cased(r);
        sb_rune(&b, r);
    }
    return sb_str(&b);
}

static sl_val strip(sl_vm *vm, const char *fn, sl_val self, int nargs, sl_val *args, int nkw, sl_val *kw, bool l, bool r)
{
    sl_val a[1];
    unpack(vm, fn, nargs, args, nkw, kw, 0, NULL, a, 1);
    sl_str_o *s = S(self);
    size_t i = 0, j = s->len, cn = 0;
    const char *cs = a[0] && a[0] != NONE ? sub_arg(vm, fn, self, a[0], &cn) : NULL;
    if (cs && cn) { /* an empty cutset trims white space, as no cutset does (go.starlark.net: strings.TrimSpace) */
        /* cutset of code points */
        for (;;) {
            bool moved = false;
            if (l && i < j) {
                uint32_t cp;
                int k = utf8_decode((const unsigned char *)s->s + i, j - i, &cp);
                if (k < 0)
                    k = 1;
                for (size_t c = 0; c < cn;) {
                    uint32_t cc;
                    int kk = utf8_decode((const unsigned char *)cs + c, cn - c, &cc);
                    if (kk < 0)
                        kk = 1;
                    if ((size_t)kk == (size_t)k && !memcmp(cs + c, s->s + i, (size_t)k)) {
                        i += (size_t)k;
                        moved = true;
                        break;
                    }
                    c += (size_t)kk;
                }
            }
            if (r && i < j && !moved) {
                size_t st = j - 1;
                while (st > i && ((unsigned char)s->s[st] & 0xc0) == 0x80)
                    st--;
                for (size_t c = 0; c < cn;) {
                    uint32_t cc;
                    int kk = utf8_decode((const unsigned char *)cs + c, cn - c, &cc);
                    if (kk < 0)
                        kk = 1;
                    if ((size_t)kk == j - st && !memcmp(cs + c, s->s + st, j - st)) {
                        j = st;
                        moved = true;
                        break;
                    }
                    c += (size_t)kk;
                }
            }
            if (!moved)
                break;
        }
    } else {
        size_t w;
        if (l)
            while (i < j && space_at(s, i, &w))
                i += w;
        if (r)
            while (j > i && space_before(s->s + i, j - i, &w))
                j -= w;
    }
    return substr(vm, self, i, j - i);
}

METHOD(strip_m) { UNUSED; return strip(vm, "strip", self, nargs, args, nkw, kw, true, true); }
METHOD(lstrip) { UNUSED; return strip(vm, "lstrip", self, nargs, args, nkw, kw, true, false); }
METHOD(rstrip) { UNUSED; return strip(vm, "rstrip", self, nargs, args, nkw, kw, false, true); }

static sl_val partition(sl_vm *vm, const char *fn, sl_val self, int nargs, sl_val *args, int nkw, sl_val *kw, bool last)
{
    sl_val a[1];
    unpack(vm, fn, nargs, args, nkw, kw, 1, NULL, a, 1);
    size_t n;
    const char *sep = sub_arg(vm, fn, self, a[0], &n);
    if (!n)
        sl_fail(vm, "%s: empty separator", fn);
    sl_str_o *s = S(self);
    int64_t at = -1;
    if (!last) {
        const char *p = sl_find(vm, s->s, s->len, sep, n);
        at = p ? p - s->s : -1;
    } else if (s->len >= n)
        for (size_t i = s->len - n + 1; i-- > 0;)
            if (!memcmp(s->s + i, sep, n)) {
                at = (int64_t)i;
                break;
            }
    sl_val parts[3];
    sl_val empty = mk_str(vm, "", 0, false);
    if (at < 0) {
        parts[0] = last ? empty : self;
        parts[1] = empty;
        parts[2] = last ? self : empty;
    } else {
        parts[0] = substr(vm, self, 0, (size_t)at);
        parts[1] = a[0];
        parts[2] = substr(vm, self, (size_t)at + n, s->len - (size_t)at - n);
    }
    return sl_tuple(vm, 3, parts);
}

METHOD(partition_m) { UNUSED; return partition(vm, "partition", self, nargs, args, nkw, kw, false); }
METHOD(rpartition) { UNUSED; return partition(vm, "rpartition", self, nargs, args, nkw, kw, true); }

static sl_val prefix_suffix(sl_vm *vm, const char *fn, sl_val self, int nargs, sl_val *args, int nkw, sl_val *kw, bool suffix)
{
    sl_val a[1];
    unpack(vm, fn, nargs, args, nkw, kw, 1, NULL, a, 1);
    size_t n;
    const char *x = sub_arg(vm, fn, self, a[0], &n);
    sl_str_o *s = S(self);
    if (n <= s->len && !memcmp(s->s + (suffix ? s->len - n : 0), x, n))
        return substr(vm, self, suffix ? 0 : n, s->len - n);
    return self;
}

METHOD(removeprefix) { UNUSED; return prefix_suffix(vm, "removeprefix", self, nargs, args, nkw, kw, false); }
METHOD(removesuffix) { UNUSED; return prefix_suffix(vm, "removesuffix", self, nargs, args, nkw, kw, true); }

METHOD(replace)
{
    UNUSED;
    sl_val a[3];
    unpack(vm, "replace", nargs, args, nkw, kw, 2, NULL, a, 3);
    size_t on, nn;
    const char *old = sub_arg(vm, "replace", self, a[0], &on);
    const char *nw = sub_arg(vm, "replace", self, a[1], &nn);
    int64_t count = a[2] ? arg_int(vm, "replace", a[2]) : -1;
    sl_str_o *s = S(self);
    sbuf b;
    sb_init(&b, vm);
    size_t i = 0;
    int64_t done = 0;
    vm_steps(vm, s->len / 16);
    if (!on) {
        /* insert before every code point and at the end */
        while (i <= s->len && (count < 0 || done < count)) {
            sb_add(&b, nw, nn);
            done++;
            if (i == s->len) {
                i++;
                break;
            }
            uint32_t cp;
            int k = utf8_decode((const unsigned char *)s->s + i, s->len - i, &cp);
            if (k < 0)
                k = 1;
            sb_add(&b, s->s + i, (size_t)k);
            i += (size_t)k;
        }
        if (i <= s->len)
            sb_add(&b, s->s + i, s->len - i);
        return mk_str(vm, b.s ? b.s : "", b.len, TYPE(self) == SL_BYTES);
    }
    while (i < s->len && (count < 0 || done < count)) {
        const char *p = sl_find(vm, s->s + i, s->len - i, old, on);
        if (!p)
            break;
        sb_add(&b, s->s + i, (size_t)(p - s->s) - i);
        sb_add(&b, nw, nn);
        i = (size_t)(p - s->s) + on;
        done++;
        vm_steps(vm, 1 + nn / 64);
    }
    sb_add(&b, s->s + i, s->len - i);
    return mk_str(vm, b.s ? b.s : "", b.len, TYPE(self) == SL_BYTES);
}

static sl_val split(sl_vm *vm, const char *fn, sl_val self, int nargs, sl_val *args, int nkw, sl_val *kw, bool right)
{
    sl_val a[2];
    static const char *const names[] = {"sep", "maxsplit"};
    unpack(vm, fn, nargs, args, nkw, kw, 0, names, a, 2);
    int64_t max = a[1] && a[1] != NONE ? arg_int(vm, fn, a[1]) : -1;
    sl_str_o *s = S(self);
    sl_val l = sl_list(vm, 0);
    vm_steps(vm, s->len / 16);
    if (!a[0] || a[0] == NONE) {
        /* runs of white space */
        if (!right) {
            size_t i = 0;
            int64_t done = 0;
            size_t w;
            for (;;) {
                while (i < s->len && space_at(s, i, &w))
                    i += w;
                if (i >= s->len)
                    break;
                if (max >= 0 && done == max) { /* the rest as it is: its trailing space stays (go.starlark.net) */
                    sl_list_append(vm, l, substr(vm, self, i, s->len - i));
                    break;
                }
                size_t j = i;
                while (j < s->len && !space_at(s, j, &w))
                    j += w;
                sl_list_append(vm, l, substr(vm, self, i, j - i));
                done++;
                i = j;
            }
            return l;
        }
        size_t j = s->len;
        int64_t done = 0;
        size_t w;
        for (;;) {
            while (j > 0 && space_before(s->s, j, &w))
                j -= w;
            if (j == 0)
                break;
            if (max >= 0 && done == max) { /* the rest as it is: its leading space stays (go.starlark.net) */
                sl_list_append(vm, l, substr(vm, self, 0, j));
                break;
            }
            size_t i = j;
            while (i > 0 && !space_before(s->s, i, &w))
                i -= w;
            sl_list_append(vm, l, substr(vm, self, i, j - i));
            done++;
            j = i;
        }
        /* reverse */
        sl_list_o *o = AS(sl_list_o, l);
        for (size_t x = 0; x < o->len / 2; x++) {
            sl_val t = o->v[x];
            o->v[x] = o->v[o->len - 1 - x];
            o->v[o->len - 1 - x] = t;
        }
        return l;
    }
    size_t n;
    const char *sep = sub_arg(vm, fn, self, a[0], &n);
    if (!n)
        sl_fail(vm, "%s: empty separator", fn);
    if (!right) {
        size_t i = 0;
        int64_t done = 0;
        for (;;) {
            const char *p = (max < 0 || done < max) ? sl_find(vm, s->s + i, s->len - i, sep, n) : NULL;
            if (!p) {
                sl_list_append(vm, l, substr(vm, self, i, s->len - i));
                break;
            }
            sl_list_append(vm, l, substr(vm, self, i, (size_t)(p - s->s) - i));
            i = (size_t)(p - s->s) + n;
            done++;
        }
        return l;
    }
    size_t j = s->len;
    int64_t done = 0;
    for (;;) {
        int64_t at = -1;
        if ((max < 0 || done < max) && j >= n)
            for (size_t i = j - n + 1; i-- > 0;)
                if (!memcmp(s->s + i, sep, n)) {
                    at = (int64_t)i;
                    break;
                }
        if (at < 0) {
            sl_list_append(vm, l, substr(vm, self, 0, j));
            break;
        }
        sl_list_append(vm, l, substr(vm, self, (size_t)at + n, j - (size_t)at - n));
        j = (size_t)at;
        done++;
    }
    sl_list_o *o = AS(sl_list_o, l);
    for (size_t x = 0; x < o->len / 2; x++) {
        sl_val t = o->v[x];
        o->v[x] = o->v[o->len - 1 - x];
        o->v[o->len - 1 - x] = t;
    }
    return l;
}

METHOD(split_m) { UNUSED; return split(vm, "split", self, nargs, args, nkw, kw, false); }
METHOD(rsplit) { UNUSED; return split(vm, "rsplit", self, nargs, args, nkw, kw, true); }

METHOD(splitlines)
{
    UNUSED;
    sl_val a[1];
    static const char *const names[] = {"keepends"};
    unpack(vm, "splitlines", nargs, args, nkw, kw, 0, names, a, 1);
    if (a[0] && TYPE(a[0]) != SL_BOOL) /* a bool parameter takes a bool (bool.star) */
        sl_fail(vm, "splitlines: for parameter keepends: got %s, want bool", sl_type_name(a[0]));
    bool keep = a[0] && sl_truth(a[0]);
    sl_str_o *s = S(self);
    sl_val l = sl_list(vm, 0);
    size_t i = 0;
    while (i < s->len) {
        size_t j = i;
        while (j < s->len && s->s[j] != '\n' && s->s[j] != '\r')
            j++;
        size_t end = j;
        if (j < s->len) {
            if (s->s[j] == '\r' && j + 1 < s->len && s->s[j + 1] == '\n')
                j += 2;
            else
                j++;
        }
        sl_list_append(vm, l, substr(vm, self, i, (keep ? j : end) - i));
        i = j;
    }
    return l;
}

static const method dict_methods[] = {
    {"clear", m_d_clear}, {"get", m_d_get}, {"items", m_d_items}, {"keys", m_d_keys}, {"pop", m_d_pop},
    {"popitem", m_d_popitem}, {"setdefault", m_d_setdefault}, {"update", m_d_update}, {"values", m_d_values}, {0, 0},
};
static const method list_methods[] = {
    {"append", m_l_append}, {"clear", m_l_clear}, {"extend", m_l_extend}, {"index", m_l_index},
    {"insert", m_l_insert}, {"pop", m_l_pop}, {"remove", m_l_remove}, {0, 0},
};
static const method set_methods[] = {
    {"add", m_s_add}, {"clear", m_s_clear}, {"discard", m_s_discard}, {"pop", m_s_pop}, {"remove", m_s_remove},
    {"union", m_s_union}, {0, 0},
};
static const method string_methods[] = {
    {"capitalize", m_capitalize}, {"codepoint_ords", m_codepoint_ords}, {"codepoints", m_codepoints},
    {"count", m_count}, {"elem_ords", m_elem_ords}, {"elems", m_elems_m}, {"endswith", m_endswith},
    {"find", m_find_m}, {"format", m_format_m}, {"index", m_index_m}, {"isalnum", m_isalnum_m},
    {"isalpha", m_isalpha_m}, {"isdigit", m_isdigit_m}, {"islower", m_islower_m}, {"isspace", m_isspace_m},
    {"istitle", m_istitle}, {"isupper", m_isupper_m}, {"join", m_join}, {"lower", m_lower}, {"lstrip", m_lstrip},
    {"partition", m_partition_m}, {"removeprefix", m_removeprefix}, {"removesuffix", m_removesuffix},
    {"replace", m_replace}, {"rfind", m_rfind}, {"rindex", m_rindex}, {"rpartition", m_rpartition},
    {"rsplit", m_rsplit}, {"rstrip", m_rstrip}, {"split", m_split_m}, {"splitlines", m_splitlines},
    {"startswith", m_startswith}, {"strip", m_strip_m}, {"title", m_title}, {"upper", m_upper}, {0, 0},
};
static const method bytes_methods[] = {{"elems", m_elems_m}, {0, 0}};

static const method *table(sl_val v)
{
    switch (TYPE(v)) {
    case SL_DICT: return dict_methods;
    case SL_LIST: return list_methods;
    case SL_SET: return set_methods;
    case SL_STRING: return string_methods;
    case SL_BYTES: return bytes_methods;
    default: return NULL;
    }
}

sl_val method_lookup(sl_vm *vm, sl_val v, const char *name)
{
    const method *t = table(v);
    for (; t && t->name; t++)
        if (!strcmp(t->name, name)) {
            sl_builtin_o *b = vm_alloc(vm, sizeof *b);
            b->h.type = SL_BUILTIN;
            b->h.frozen = 1;
            b->name = t->name;
            b->fn = t->fn;
            b->self = v;
            return (sl_val)b;
        }
    return NULL;
}

const char **method_names(sl_val v, int *n)
{
    static const char *names[64];
    const method *t = table(v);
    *n = 0;
    for (; t && t->name && *n < 64; t++)
        names[(*n)++] = t->name;
    return names;
}
