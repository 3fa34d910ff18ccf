/* The universe: the built-in functions every Starlark file sees (spec "Built-in functions"), and the argument
 * unpacking every builtin and method shares. print writes nowhere: a render has no place for a script's chatter
 * (kpt shows it on stderr; here only the result counts). Sorting is a merge sort that charges its comparisons to
 * the step budget and survives comparators that fail or lie. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "starlark/internal.h"

void unpack(sl_vm *vm, const char *fn, int nargs, sl_val *args, int nkw, sl_val *kw, int min, const char *const *names,
            sl_val *out, int nout)
{
    for (int i = 0; i < nout; i++)
        out[i] = NULL;
    if (nargs > nout)
        sl_fail(vm, "%s: got %d arguments, want at most %d", fn, nargs, nout);
    for (int i = 0; i < nargs; i++)
        out[i] = args[i];
    for (int k = 0; k < nkw; k++) {
        const char *name = sl_str_data(kw[2 * k], NULL);
        int i;
        for (i = 0; i < nout; i++)
            if (names && names[i] && !strcmp(names[i], name))
                break;
        if (i == nout) {
            const char *near = names ? sl_nearest(name, names, nout) : NULL;
            if (near)
                sl_fail(vm, "%s: unexpected keyword argument %s (did you mean %s?)", fn, name, near);
            sl_fail(vm, "%s: unexpected keyword argument %s", fn, name);
        }
        if (out[i])
            sl_fail(vm, "%s: got multiple values for keyword argument %s", fn, name);
        out[i] = kw[2 * k + 1];
    }
    for (int i = 0; i < min; i++)
        if (!out[i]) {
            if (names && names[i])
                sl_fail(vm, "%s: missing argument for %s", fn, names[i]);
            sl_fail(vm, "%s: got %d arguments, want %s%d", fn, nargs, min == nout ? "" : "at least ", min);
        }
}

int64_t arg_int(sl_vm *vm, const char *fn, sl_val v)
{
    int64_t i;
    if (TYPE(v) != SL_INT)
        sl_fail(vm, "%s: got %s, want int", fn, sl_type_name(v));
    if (!sl_as_int64(v, &i))
        sl_fail(vm, "%s: int %s out of range", fn, sl_repr(vm, v));
    return i;
}

const char *arg_str(sl_vm *vm, const char *fn, sl_val v, size_t *len)
{
    if (TYPE(v) != SL_STRING)
        sl_fail(vm, "%s: got %s, want string", fn, sl_type_name(v));
    return sl_str_data(v, len);
}

static void want_iterable(sl_vm *vm, const char *fn, sl_val v)
{
    int t = TYPE(v);
    if (t != SL_LIST && t != SL_TUPLE && t != SL_DICT && t != SL_SET && t != SL_RANGE && t != SL_ELEMS)
        sl_fail(vm, "%s: got %s, want iterable", fn, sl_type_name(v));
}

static void no_kw(sl_vm *vm, const char *fn, int nkw)
{
    if (nkw)
        sl_fail(vm, "%s: unexpected keyword arguments", fn);
}

static void nargs_exact(sl_vm *vm, const char *fn, int nargs, int nkw, int want)
{
    no_kw(vm, fn, nkw);
    if (nargs != want)
        sl_fail(vm, "%s: got %d arguments, want %d", fn, nargs, want);
}

#define BUILTIN(name) static sl_val bi_##name(sl_vm *vm, sl_val self, int nargs, sl_val *args, int nkw, sl_val *kw, void *data)
#define UNUSED (void)self, (void)data, (void)kw

BUILTIN(abs)
{
    UNUSED;
    nargs_exact(vm, "abs", nargs, nkw, 1);
    sl_val x = args[0];
    if (TYPE(x) == SL_INT)
        return int_sign(x) < 0 ? int_neg(vm, x) : x;
    if (TYPE(x) == SL_FLOAT)
        return sl_float(vm, fabs(AS(sl_float_o, x)->d));
    sl_fail(vm, "abs: got %s, want int or float", sl_type_name(x));
}

static sl_val any_all(sl_vm *vm, const char *fn, int nargs, sl_val *args, int nkw, bool any)
{
    nargs_exact(vm, fn, nargs, nkw, 1);
    if (!iterable(args[0]))
        sl_fail(vm, "%s: got %s, want iterable", fn, sl_type_name(args[0]));
    sl_iter it;
    iter_begin(vm, &it, args[0]);
    sl_val x;
    bool r = !any;
    while (iter_next(vm, &it, &x)) {
        vm_steps(vm, 1);
        if (sl_truth(x) == any) {
            r = any;
            break;
        }
    }
    iter_end(vm, &it);
    return r ? TRUE_V : FALSE_V;
}

BUILTIN(any) { UNUSED; return any_all(vm, "any", nargs, args, nkw, true); }
BUILTIN(all) { UNUSED; return any_all(vm, "all", nargs, args, nkw, false); }

BUILTIN(bool)
{
    UNUSED;
    no_kw(vm, "bool", nkw);
    if (nargs > 1)
        sl_fail(vm, "bool: got %d arguments, want at most 1", nargs);
    return nargs && sl_truth(args[0]) ? TRUE_V : FALSE_V;
}

BUILTIN(bytes)
{
    UNUSED;
    nargs_exact(vm, "bytes", nargs, nkw, 1);
    sl_val x = args[0];
    if (TYPE(x) == SL_BYTES)
        return x;
    if (TYPE(x) == SL_STRING) {
        /* each byte of invalid UTF-8 becomes U+FFFD, as the spec says */
        sl_str_o *s = AS(sl_str_o, x);
        return utf8_sanitized(vm, s->s, s->len, true);
    }
    if (TYPE(x) == SL_LIST || TYPE(x) == SL_TUPLE || TYPE(x) == SL_RANGE || TYPE(x) == SL_ELEMS || TYPE(x) == SL_SET ||
        TYPE(x) == SL_DICT) {
        size_t n;
        sl_val *items = iter_all(vm, x, &n);
        char *buf = vm_alloc_raw(vm, n + 1);
        for (size_t i = 0; i < n; i++) {
            int64_t b;
            if (TYPE(items[i]) != SL_INT)
                sl_fail(vm, "bytes: at index %zu, got %s, want int", i, sl_type_name(items[i]));
            if (!sl_as_int64(items[i], &b) || b < 0 || b > 255)
                sl_fail(vm, "bytes: at index %zu, %s out of range (want value in unsigned 8-bit range)", i,
                        sl_repr(vm, items[i]));
            buf[i] = (char)b;
        }
        return mk_str(vm, buf, n, true);
    }
    sl_fail(vm, "bytes: got %s, want string, bytes, or iterable of ints", sl_type_name(x));
}

BUILTIN(chr)
{
    UNUSED;
    nargs_exact(vm, "chr", nargs, nkw, 1);
    if (TYPE(args[0]) != SL_INT)
        sl_fail(vm, "chr: got %s, want int", sl_type_name(args[0]));
    int64_t i;
    if (!sl_as_int64(args[0], &i) || i < 0)
        sl_fail(vm, "chr: Unicode code point %s out of range (<0)", sl_repr(vm, args[0]));
    if (i > 0x10ffff)
        sl_fail(vm, "chr: Unicode code point U+%llX out of range (>0x10FFFF)", (unsigned long long)i);
    char buf[4];
    return mk_str(vm, buf, (size_t)utf8_encode((uint32_t)i, buf), false);
}

static void dict_update(sl_vm *vm, const char *fn, sl_val d, int nargs, sl_val *args, int nkw, sl_val *kw)
{
    if (nargs > 1)
        sl_fail(vm, "%s: got %d arguments, want at most 1", fn, nargs);
    if (nargs == 1) {
        sl_val x = args[0];
        if (TYPE(x) == SL_DICT) {
            sl_dict_o *o = AS(sl_dict_o, x);
            for (size_t i = 0; i < o->n; i++)
                if (o->e[i].k)
                    dict_put(vm, d, o->e[i].k, o->e[i].v);
        } else {
            sl_iter it;
            if (TYPE(x) != SL_LIST && TYPE(x) != SL_TUPLE && TYPE(x) != SL_SET && TYPE(x) != SL_RANGE &&
                TYPE(x) != SL_ELEMS)
                sl_fail(vm, "%s: got %s, want iterable", fn, sl_type_name(x));
            iter_begin(vm, &it, x);
            sl_val p;
            for (size_t i = 0; iter_next(vm, &it, &p); i++) {
                vm_steps(vm, 1);
                if (TYPE(p) != SL_LIST && TYPE(p) != SL_TUPLE && TYPE(p) != SL_SET && TYPE(p) != SL_DICT &&
                    TYPE(p) != SL_RANGE && TYPE(p) != SL_ELEMS)
                    sl_fail(vm, "%s: dictionary update sequence element #%zu is not iterable (%s)", fn, i, sl_type_name(p));
                size_t n;
                sl_val *kv = iter_all(vm, p, &n);
                if (n != 2)
                    sl_fail(vm, "%s: dictionary update sequence element #%zu has length %zu, want 2", fn, i, n);
                dict_put(vm, d, kv[0], kv[1]);
            }
            iter_end(vm, &it);
        }
    }
    size_t before = AS(sl_dict_o, d)->len;
    for (int k = 0; k < nkw; k++)
        dict_put(vm, d, kw[2 * k], kw[2 * k + 1]);
    /* fewer new entries than keywords: a keyword came twice (dict(a=1, **{"a": 2})), or only overwrote a key */
    if (AS(sl_dict_o, d)->len < before + (size_t)nkw) {
        sl_val seen = mk_dict(vm, SL_SET);
        for (int k = 0; k < nkw; k++) {
            if (dict_find(vm, seen, kw[2 * k]))
                sl_fail(vm, "%s: duplicate keyword arg: %s", fn, sl_repr(vm, kw[2 * k]));
            dict_put(vm, seen, kw[2 * k], NONE);
        }
    }
}

BUILTIN(dict)
{
    UNUSED;
    sl_val d = mk_dict(vm, SL_DICT);
    dict_update(vm, "dict", d, nargs, args, nkw, kw);
    return d;
}

sl_val builtin_dict_update(sl_vm *vm, sl_val d, int nargs, sl_val *args, int nkw, sl_val *kw);
sl_val builtin_dict_update(sl_vm *vm, sl_val d, int nargs, sl_val *args, int nkw, sl_val *kw)
{
    check_mutable(vm, d, "insert into");
    dict_update(vm, "update", d, nargs, args, nkw, kw);
    return NONE;
}

static int cmp_cstr(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

BUILTIN(dir)
{
    UNUSED;
    nargs_exact(vm, "dir", nargs, nkw, 1);
    sl_val x = args[0];
    sl_val l = sl_list(vm, 0);
    if (TYPE(x) == SL_HOST) {
        const sl_host_type *ht = AS(sl_host_o, x)->t;
        const char **names = NULL;
        int n = ht->attrnames ? ht->attrnames(vm, x, &names) : 0;
        for (int i = 0; i < n; i++)
            sl_list_append(vm, l, sl_cstr(vm, names[i]));
        return l;
    }
    if (TYPE(x) == SL_STRUCT) {
        sl_struct_o *s = AS(sl_struct_o, x);
        for (int i = 0; i < s->n; i++)
            sl_list_append(vm, l, sl_cstr(vm, s->names[i]));
        return l;
    }
    int n;
    const char **names = method_names(x, &n);
    const char **sorted = vm_alloc(vm, (size_t)(n + 1) * sizeof(char *));
    memcpy(sorted, names, (size_t)n * sizeof(char *));
    qsort(sorted, (size_t)n, sizeof(char *), cmp_cstr);
    for (int i = 0; i < n; i++)
        sl_list_append(vm, l, sl_cstr(vm, sorted[i]));
    return l;
}

BUILTIN(enumerate)
{
    UNUSED;
    static const char *const names[] = {"x", "start"};
    sl_val a[2];
    unpack(vm, "enumerate", nargs, args, nkw, kw, 1, names, a, 2);
    int64_t start = a[1] ? arg_int(vm, "enumerate", a[1]) : 0;
    size_t n;
    sl_val *items = iter_all(vm, a[0], &n);
    sl_val l = sl_list(vm, n);
    for (size_t i = 0; i < n; i++) {
        sl_val pair[2] = {sl_int(vm, start + (int64_t)i), items[i]};
        AS(sl_list_o, l)->v[i] = sl_tuple(vm, 2, pair);
    }
    AS(sl_list_o, l)->len = n;
    return l;
}

BUILTIN(fail)
{
    UNUSED;
    const char *sep = " ";
    for (int k = 0; k < nkw; k++) {
        if (strcmp(sl_str_data(kw[2 * k], NULL), "sep"))
            sl_fail(vm, "fail: unexpected keyword argument %s", sl_str_data(kw[2 * k], NULL));
        sep = arg_str(vm, "fail", kw[2 * k + 1], NULL);
    }
    sbuf b;
    sb_init(&b, vm);
    sb_adds(&b, "fail: ");
    for (int i = 0; i < nargs; i++) {
        if (i)
            sb_adds(&b, sep);
        vm_str(vm, &b, args[i]);
    }
    sl_fail(vm, "%s", b.s);
}

static bool parse_float_text(const char *s, size_t n, double *out)
{
    char buf[512];
    if (n == 0 || n >= sizeof buf)
        return false;
    memcpy(buf, s, n);
    buf[n] = 0;
    const char *p = buf;
    int sign = 1;
    if (*p == '+' || *p == '-') {
        sign = *p == '-' ? -1 : 1;
        p++;
    }
    if (!strcasecmp(p, "inf") || !strcasecmp(p, "infinity")) {
        *out = sign * INFINITY;
        return true;
    }
    if (!strcasecmp(p, "nan")) {
        *out = NAN;
        return true;
    }
    for (const char *q = p; *q; q++)
        if (!(*q >= '0' && *q <= '9') && *q != '.' && *q != 'e' && *q != 'E' && *q != '+' && *q != '-')
            return false;
    char *end;
    double d = strtod(buf, &end);
    if (*end || end == buf)
        return false;
    *out = d;
    return true;
}

BUILTIN(float)
{
    UNUSED;
    no_kw(vm, "float", nkw);
    if (nargs > 1)
        sl_fail(vm, "float: got %d arguments, want at most 1", nargs);
    if (!nargs)
        return sl_float(vm, 0);
    sl_val x = args[0];
    switch (TYPE(x)) {
    case SL_FLOAT: return x;
    case SL_BOOL: return sl_float(vm, x == TRUE_V);
    case SL_INT: {
        bool ovf;
        double d = int_to_double(x, &ovf);
        if (ovf)
            sl_fail(vm, "int too large to convert to float");
        return sl_float(vm, d);
    }
    case SL_STRING: {
        size_t n;
        const char *s = sl_str_data(x, &n);
        double d;
        if (!parse_float_text(s, n, &d))
            sl_fail(vm, "invalid float literal: %s", s);
        if (isinf(d)) {
            /* a finite literal too big is an error; inf written out is fine */
            const char *p = s + (*s == '+' || *s == '-');
            if (strcasecmp(p, "inf") && strcasecmp(p, "infinity"))
                sl_fail(vm, "floating-point number too large");
        }
        return sl_float(vm, d);
    }
    default: sl_fail(vm, "float: got %s, want number or string", sl_type_name(x));
    }
}

BUILTIN(getattr)
{
    UNUSED;
    no_kw(vm, "getattr", nkw);
    if (nargs < 2 || nargs > 3)
        sl_fail(vm, "getattr: got %d arguments, want 2 or 3", nargs);
    const char *name = arg_str(vm, "getattr", args[1], NULL);
    sl_val v = vm_getattr(vm, args[0], name, nargs == 2);
    return v ? v : args[2];
}

BUILTIN(hasattr)
{
    UNUSED;
    nargs_exact(vm, "hasattr", nargs, nkw, 2);
    const char *name = arg_str(vm, "hasattr", args[1], NULL);
    return vm_getattr(vm, args[0], name, false) ? TRUE_V : FALSE_V;
}

BUILTIN(hash)
{
    UNUSED;
    nargs_exact(vm, "hash", nargs, nkw, 1);
    sl_val x = args[0];
    if (TYPE(x) != SL_STRING && TYPE(x) != SL_BYTES)
        sl_fail(vm, "hash: got %s, want string or bytes", sl_type_name(x));
    /* Java's String.hashCode over the UTF-16 code units (strings) or the bytes: the same on every run */
    sl_str_o *s = AS(sl_str_o, x);
    uint32_t h = 0;
    if (TYPE(x) == SL_BYTES) { /* bytes: 32-bit FNV-1a, unsigned (bytes.star) */
        h = 2166136261u;
        for (size_t i = 0; i < s->len; i++)
            h = (h ^ (unsigned char)s->s[i]) * 16777619u;
        vm_steps(vm, s->len / 64);
        return sl_int(vm, (int64_t)h);
    } else {
        for (size_t i = 0; i < s->len;) {
            uint32_t cp;
            int k = utf8_decode((const unsigned char *)s->s + i, s->len - i, &cp);
            if (k < 0) {
                k = 1;
                cp = 0xfffd;
            }
            i += (size_t)k;
            if (cp >= 0x10000) {
                cp -= 0x10000;
                h = 31 * h + (0xd800 + (cp >> 10));
                h = 31 * h + (0xdc00 + (cp & 0x3ff));
            } else
                h = 31 * h + cp;
        }
    }
    return sl_int(vm, (int32_t)h);
}

static sl_val parse_int_text(sl_vm *vm, sl_val x, int64_t base, bool base_given)
{
    size_t n;
    const char *s = sl_str_data(x, &n);
    const char *p = s, *end = s + n;
    int sign = 1;
    if (p < end && (*p == '+' || *p == '-')) {
        sign = *p == '-' ? -1 : 1;
        p++;
    }
    int b = (int)base;
    if (end - p >= 2 && p[0] == '0') {
        char c = (char)(p[1] | 32);
        int pb = c == 'x' ? 16 : c == 'o' ? 8 : c == 'b' ? 2 : 0;
        if (pb && (b == 0 || b == pb)) {
            b = pb;
            p += 2;
        } else if (b == 0) {
            /* "0" followed by digits with base 0: only zeros are allowed */
            for (const char *q = p; q < end; q++)
                if (*q != '0')
                    goto bad;
            b = 10;
        }
    }
    if (b == 0)
        b = 10;
    bool ok;
    if (p == end)
        goto bad;
    sl_val v = int_parse(vm, p, (size_t)(end - p), b, &ok);
    if (!ok)
        goto bad;
    return sign < 0 ? int_neg(vm, v) : v;
bad: /* the text as it is, unquoted, as go.starlark.net words it (int.star); stderr escapes what needs it */
    if (base_given)
        sl_fail(vm, "int: invalid literal with base %lld: %.*s", (long long)base, (int)(n > 200 ? 200 : n), s);
    sl_fail(vm, "int: invalid literal with base 10: %.*s", (int)(n > 200 ? 200 : n), s);
}

BUILTIN(int)
{
    UNUSED;
    static const char *const names[] = {"x", "base"};
    sl_val a[2];
    unpack(vm, "int", nargs, args, nkw, kw, 1, names, a, 2); /* int() is an error in go.starlark.net */
    sl_val x = a[0];
    if (a[1]) {
        if (TYPE(x) != SL_STRING)
            sl_fail(vm, "int: can't convert non-string with explicit base");
        int64_t base = arg_int(vm, "int", a[1]);
        if (base != 0 && (base < 2 || base > 36))
            sl_fail(vm, "int: base must be an integer >= 2 && <= 36");
        return parse_int_text(vm, x, base, true);
    }
    switch (TYPE(x)) {
    case SL_INT: return x;
    case SL_BOOL: return MK_SMALL(x == TRUE_V);
    case SL_FLOAT: {
        double d = AS(sl_float_o, x)->d;
        if (isnan(d))
            sl_fail(vm, "int: cannot convert float NaN to integer");
        if (isinf(d))
            sl_fail(vm, "int: cannot convert float infinity to integer");
        return int_from_double(vm, d);
    }
    case SL_STRING: return parse_int_text(vm, x, 10, false);
    default: sl_fail(vm, "int: got %s, want int, float, bool or string", sl_type_name(x));
    }
}

BUILTIN(len)
{
    UNUSED;
    nargs_exact(vm, "len", nargs, nkw, 1);
    sl_val x = args[0];
    switch (TYPE(x)) {
    case SL_STRING:
    case SL_BYTES: return sl_int(vm, (int64_t)AS(sl_str_o, x)->len);
    case SL_LIST:
    case SL_TUPLE:
    case SL_DICT:
    case SL_SET: return sl_int(vm, (int64_t)sl_len(x));
    case SL_RANGE: return sl_int(vm, AS(sl_range_o, x)->len);
    case SL_ELEMS: /* elems() and elem_ords() have a length (one per byte); codepoints do not (string.star) */
        if (AS(sl_elems_o, x)->kind != 2 && AS(sl_elems_o, x)->kind != 3)
            return sl_int(vm, (int64_t)AS(sl_str_o, AS(sl_elems_o, x)->s)->len);
        sl_fail(vm, "len: value of type %s has no len", sl_type_name(x));
    default: sl_fail(vm, "len: value of type %s has no len", sl_type_name(x));
    }
}

BUILTIN(list)
{
    UNUSED;
    no_kw(vm, "list", nkw);
    if (nargs > 1)
        sl_fail(vm, "list: got %d arguments, want at most 1", nargs);
    if (nargs)
        want_iterable(vm, "list", args[0]);
    if (!nargs)
        return sl_list(vm, 0);
    size_t n;
    sl_val *items = iter_all(vm, args[0], &n);
    return mk_list_from(vm, n, items);
}

static sl_val minmax(sl_vm *vm, const char *fn, int nargs, sl_val *args, int nkw, sl_val *kw, int sign)
{
    sl_val key = NULL;
    for (int k = 0; k < nkw; k++) {
        if (strcmp(sl_str_data(kw[2 * k], NULL), "key")) {
            static const char *const names[] = {"key"};
            const char *near = sl_nearest(sl_str_data(kw[2 * k], NULL), names, 1);
            sl_fail(vm, "%s: unexpected keyword argument %s%s%s%s", fn, sl_str_data(kw[2 * k], NULL),
                    near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
        }
        key = kw[2 * k + 1];
    }
    /* as sorted's, the key is unpacked as a Callable: None is refused */
    if (key && !callable(key))
        sl_fail(vm, "%s: for parameter key: got %s, want callable", fn, sl_type_name(key));
    if (nargs == 0)
        sl_fail(vm, "%s requires at least one positional argument", fn);
    size_t n;
    sl_val *items;
    if (nargs == 1) {
        if (!iterable(args[0]))
            sl_fail(vm, "%s: %s value is not iterable", fn, sl_type_name(args[0]));
        items = iter_all(vm, args[0], &n);
        if (!n)
            sl_fail(vm, "%s: argument is an empty sequence", fn);
    } else {
        items = args;
        n = (size_t)nargs;
    }
    sl_val best = items[0], bestk = key ? sl_call(vm, key, 1, &best, 0, NULL) : best;
    for (size_t i = 1; i < n; i++) {
        vm_steps(vm, 1);
        sl_val x = items[i];
        sl_val xk = key ? sl_call(vm, key, 1, &x, 0, NULL) : x;
        if (vm_cmp_op(vm, sign < 0 ? T_LT : T_GT, xk, bestk)) {
            best = x;
            bestk = xk;
        }
    }
    return best;
}

BUILTIN(max) { UNUSED; return minmax(vm, "max", nargs, args, nkw, kw, 1); }
BUILTIN(min) { UNUSED; return minmax(vm, "min", nargs, args, nkw, kw, -1); }

BUILTIN(ord)
{
    UNUSED;
    nargs_exact(vm, "ord", nargs, nkw, 1);
    sl_val x = args[0];
    if (TYPE(x) == SL_BYTES) {
        if (AS(sl_str_o, x)->len != 1)
            sl_fail(vm, "ord: bytes has length %zu, want 1", AS(sl_str_o, x)->len);
        return MK_SMALL((unsigned char)AS(sl_str_o, x)->s[0]);
    }
    if (TYPE(x) != SL_STRING)
        sl_fail(vm, "ord: got %s, want string", sl_type_name(x));
    /* as utf8.DecodeRuneInString: one byte of invalid UTF-8 is U+FFFD, and counts as one code point */
    sl_str_o *s = AS(sl_str_o, x);
    size_t w = 0;
    uint32_t cp = s->len ? utf8_next(s->s, s->len, &w) : 0;
    if (!s->len || w != s->len) {
        size_t n = 0;
        vm_steps(vm, s->len / 16);
        for (size_t i = 0; i < s->len; i += w, n++)
            utf8_next(s->s + i, s->len - i, &w);
        sl_fail(vm, "ord: string encodes %zu Unicode code points, want 1", n);
    }
    return MK_SMALL(cp);
}

BUILTIN(print)
{
    UNUSED;
    (void)vm;
    (void)nargs;
    (void)args;
    (void)nkw;
    return NONE;
}

BUILTIN(range)
{
    UNUSED;
    no_kw(vm, "range", nkw);
    if (nargs < 1)
        sl_fail(vm, "range: got %d arguments, want at least 1", nargs);
    if (nargs > 3)
        sl_fail(vm, "range: got %d arguments, want at most 3", nargs);
    /* each argument a Go int (64 bits), in go.starlark.net's words */
    int64_t v[3] = {0, 0, 1};
    for (int i = 0; i < nargs; i++) {
        if (TYPE(args[i]) != SL_INT)
            sl_fail(vm, "range: for parameter %d: got %s, want int", i + 1, sl_type_name(args[i]));
        if (!sl_as_int64(args[i], &v[i]))
            sl_fail(vm, "range: for parameter %d: %s out of range (want value in signed 64-bit range)", i + 1,
                    sl_repr(vm, args[i]));
    }
    int64_t start = nargs == 1 ? 0 : v[0], stop = nargs == 1 ? v[0] : v[1], step = nargs == 3 ? v[2] : 1;
    if (step == 0)
        sl_fail(vm, "range: step argument must not be zero");
    __int128 n = 0;
    if (step > 0 && stop > start)
        n = ((__int128)stop - start + step - 1) / step;
    else if (step < 0 && stop < start)
        n = ((__int128)start - stop + (-(__int128)step) - 1) / (-(__int128)step);
    if (n > INT64_MAX)
        sl_fail(vm, "range: length exceeds maximum");
    sl_range_o *r = vm_alloc(vm, sizeof *r);
    r->h.type = SL_RANGE;
    r->h.frozen = 1;
    r->start = start;
    r->stop = stop;
    r->step = step;
    r->len = (int64_t)n;
    return (sl_val)r;
}

BUILTIN(repr)
{
    UNUSED;
    nargs_exact(vm, "repr", nargs, nkw, 1);
    sbuf b;
    sb_init(&b, vm);
    vm_repr(vm, &b, args[0]);
    return sb_str(&b);
}

BUILTIN(reversed)
{
    UNUSED;
    nargs_exact(vm, "reversed", nargs, nkw, 1);
    size_t n;
    sl_val *items = iter_all(vm, args[0], &n);
    sl_val l = sl_list(vm, n);
    for (size_t i = 0; i < n; i++)
        AS(sl_list_o, l)->v[i] = items[n - 1 - i];
    AS(sl_list_o, l)->len = n;
    return l;
}

BUILTIN(set)
{
    UNUSED;
    no_kw(vm, "set", nkw);
    if (nargs > 1)
        sl_fail(vm, "set: got %d arguments, want at most 1", nargs);
    if (nargs)
        want_iterable(vm, "set", args[0]);
    sl_val s = mk_dict(vm, SL_SET);
    if (nargs) {
        size_t n;
        sl_val *items = iter_all(vm, args[0], &n);
        for (size_t i = 0; i < n; i++)
            dict_put(vm, s, items[i], NONE);
    }
    return s;
}

/* stable merge sort of keys with their values; the comparator may fail (an error jumps out: nothing half-sorted is
 * visible, the caller sorts a copy) */
static void msort(sl_vm *vm, sl_val *k, sl_val *v, sl_val *tk, sl_val *tv, size_t n, bool rev)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    msort(vm, k, v, tk, tv, h, rev);
    msort(vm, k + h, v + h, tk, tv, n - h, rev);
    size_t i = 0, j = h, o = 0;
    while (i < h && j < n) {
        vm_steps(vm, 1);
        /* take from the right only when strictly smaller (or larger, reversed): stability */
        bool right = rev ? vm_cmp_op(vm, T_LT, k[i], k[j]) : vm_cmp_op(vm, T_LT, k[j], k[i]);
        if (right) {
            tk[o] = k[j];
            tv[o++] = v[j++];
        } else {
            tk[o] = k[i];
            tv[o++] = v[i++];
        }
    }
    while (i < h) {
        tk[o] = k[i];
        tv[o++] = v[i++];
    }
    while (j < n) {
        tk[o] = k[j];
        tv[o++] = v[j++];
    }
    memcpy(k, tk, n * sizeof(sl_val));
    memcpy(v, tv, n * sizeof(sl_val));
}

sl_val sort_values(sl_vm *vm, sl_val *items, size_t n, sl_val key, bool rev);
sl_val sort_values(sl_vm *vm, sl_val *items, size_t n, sl_val key, bool rev)
{
    sl_val *k = vm_alloc_raw(vm, (n ? n : 1) * sizeof(sl_val)), *v = vm_alloc_raw(vm, (n ? n : 1) * sizeof(sl_val));
    sl_val *tk = vm_alloc_raw(vm, (n ? n : 1) * sizeof(sl_val)), *tv = vm_alloc_raw(vm, (n ? n : 1) * sizeof(sl_val));
    for (size_t i = 0; i < n; i++) {
        v[i] = items[i];
        k[i] = key ? sl_call(vm, key, 1, &items[i], 0, NULL) : items[i];
    }
    msort(vm, k, v, tk, tv, n, rev);
    return mk_list_from(vm, n, v);
}

BUILTIN(sorted)
{
    UNUSED;
    static const char *const names[] = {"iterable", "key", "reverse"};
    sl_val a[3];
    unpack(vm, "sorted", nargs, args, nkw, kw, 1, names, a, 3);
    /* go.starlark.net unpacks key as a Callable: key=None is refused, not taken as no key (builtins.star) */
    if (!iterable(a[0]))
        sl_fail(vm, "sorted: for parameter iterable: got %s, want iterable", sl_type_name(a[0]));
    if (a[1] && !callable(a[1]))
        sl_fail(vm, "sorted: for parameter key: got %s, want callable", sl_type_name(a[1]));
    size_t n;
    sl_val *items = iter_all(vm, a[0], &n);
    return sort_values(vm, items, n, a[1], a[2] && sl_truth(a[2]));
}

BUILTIN(str)
{
    UNUSED;
    nargs_exact(vm, "str", nargs, nkw, 1);
    if (TYPE(args[0]) == SL_STRING)
        return args[0];
    if (TYPE(args[0]) == SL_BYTES) {
        /* invalid UTF-8 becomes U+FFFD */
        sl_str_o *s = AS(sl_str_o, args[0]);
        sbuf b;
        sb_init(&b, vm);
        for (size_t i = 0; i < s->len;) {
            uint32_t cp;
            int k = utf8_decode((const unsigned char *)s->s + i, s->len - i, &cp);
            if (k < 0) {
                sb_adds(&b, "\xef\xbf\xbd");
                i++;
            } else {
                sb_add(&b, s->s + i, (size_t)k);
                i += (size_t)k;
            }
        }
        return sb_str(&b);
    }
    sbuf b;
    sb_init(&b, vm);
    vm_str(vm, &b, args[0]);
    return sb_str(&b);
}

BUILTIN(tuple)
{
    UNUSED;
    no_kw(vm, "tuple", nkw);
    if (nargs > 1)
        sl_fail(vm, "tuple: got %d arguments, want at most 1", nargs);
    if (nargs)
        want_iterable(vm, "tuple", args[0]);
    if (!nargs)
        return mk_tuple(vm, 0);
    if (TYPE(args[0]) == SL_TUPLE)
        return args[0];
    size_t n;
    sl_val *items = iter_all(vm, args[0], &n);
    return sl_tuple(vm, n, items);
}

BUILTIN(type)
{
    UNUSED;
    nargs_exact(vm, "type", nargs, nkw, 1);
    return sl_cstr(vm, sl_type_name(args[0]));
}

BUILTIN(zip)
{
    UNUSED;
    no_kw(vm, "zip", nkw);
    size_t min = SIZE_MAX;
    sl_val **cols = vm_alloc(vm, (size_t)(nargs ? nargs : 1) * sizeof(sl_val *));
    for (int i = 0; i < nargs; i++) {
        if (!iterable(args[i]))
            sl_fail(vm, "zip: argument #%d is not iterable: %s", i + 1, sl_type_name(args[i]));
        size_t n;
        cols[i] = iter_all(vm, args[i], &n);
        if (n < min)
            min = n;
    }
    if (!nargs)
        min = 0;
    sl_val l = sl_list(vm, min);
    sl_val *row = vm_alloc_raw(vm, (size_t)(nargs ? nargs : 1) * sizeof(sl_val));
    for (size_t r = 0; r < min; r++) {
        for (int i = 0; i < nargs; i++)
            row[i] = cols[i][r];
        AS(sl_list_o, l)->v[r] = sl_tuple(vm, (size_t)nargs, row);
    }
    AS(sl_list_o, l)->len = min;
    return l;
}

#define ENTRY(n) {{SL_BUILTIN, 1, 0, 0, 0}, #n, bi_##n, NULL, NULL}
static sl_builtin_o universe[] = {
    ENTRY(abs), ENTRY(any), ENTRY(all), ENTRY(bool), ENTRY(bytes), ENTRY(chr), ENTRY(dict), ENTRY(dir),
    ENTRY(enumerate), ENTRY(fail), ENTRY(float), ENTRY(getattr), ENTRY(hasattr), ENTRY(hash), ENTRY(int),
    ENTRY(len), ENTRY(list), ENTRY(max), ENTRY(min), ENTRY(ord), ENTRY(print), ENTRY(range), ENTRY(repr),
    ENTRY(reversed), ENTRY(set), ENTRY(sorted), ENTRY(str), ENTRY(tuple), ENTRY(type), ENTRY(zip),
};

void universe_init(void) {}

/* the universe's names, for "did you mean" (spell.c) */
int universe_names(const char **out, int cap)
{
    static const char *const consts[] = {"None", "True", "False"};
    int n = 0;
    for (size_t i = 0; i < 3 && n < cap; i++)
        out[n++] = consts[i];
    for (size_t i = 0; i < sizeof universe / sizeof *universe && n < cap; i++)
        out[n++] = universe[i].name;
    return n;
}

sl_val universe_lookup(const char *name)
{
    if (!strcmp(name, "None"))
        return NONE;
    if (!strcmp(name, "True"))
        return TRUE_V;
    if (!strcmp(name, "False"))
        return FALSE_V;
    for (size_t i = 0; i < sizeof universe / sizeof *universe; i++)
        if (!strcmp(universe[i].name, name))
            return (sl_val)&universe[i];
    return NULL;
}
