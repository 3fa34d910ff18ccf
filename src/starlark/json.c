/* The json module (go.starlark.net's lib/json, which kpt's function offers as load("encoding/json.star", "json")):
 * encode (dict keys sorted, as lib/json writes them) and decode (objects keep their order). Nesting in decoded text
 * is bounded like the parser's, and every value costs a step. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "starlark/internal.h"

enum { JSON_MAX_DEPTH = 400 };

static void enc(sl_vm *vm, sbuf *b, sl_val v, int depth)
{
    vm_steps(vm, 1);
    if (depth > JSON_MAX_DEPTH)
        sl_fail(vm, "json.encode: nesting too deep (or a cycle)");
    switch (TYPE(v)) {
    case SL_NONE: sb_adds(b, "null"); return;
    case SL_BOOL: sb_adds(b, v == TRUE_V ? "true" : "false"); return;
    case SL_INT: int_format(vm, b, v, 10, false); return;
    case SL_FLOAT: {
        double d = AS(sl_float_o, v)->d;
        if (!isfinite(d))
            sl_fail(vm, "json.encode: cannot encode non-finite float %s", sl_repr(vm, v));
        if (d == trunc(d) && fabs(d) < 1e17) {
            sb_printf(b, "%.0f", d);
            return;
        }
        char tmp[40];
        for (int p = 1; p <= 17; p++) {
            snprintf(tmp, sizeof tmp, "%.*g", p, d);
            if (strtod(tmp, NULL) == d)
                break;
        }
        sb_adds(b, tmp);
        return;
    }
    case SL_STRING: {
        sl_str_o *s = AS(sl_str_o, v);
        sb_addc(b, '"');
        for (size_t i = 0; i < s->len; i++) {
            unsigned char c = (unsigned char)s->s[i];
            switch (c) {
            case '"': sb_adds(b, "\\\""); break;
            case '\\': sb_adds(b, "\\\\"); break;
            case '\n': sb_adds(b, "\\n"); break;
            case '\r': sb_adds(b, "\\r"); break;
            case '\t': sb_adds(b, "\\t"); break;
            case '<': sb_adds(b, "\\u003c"); break;
            case '>': sb_adds(b, "\\u003e"); break;
            case '&': sb_adds(b, "\\u0026"); break;
            default:
                if (c < 0x20)
                    sb_printf(b, "\\u%04x", c);
                else
                    sb_addc(b, (char)c);
            }
        }
        sb_addc(b, '"');
        return;
    }
    case SL_LIST:
    case SL_TUPLE: {
        size_t n = sl_len(v);
        sb_addc(b, '[');
        for (size_t i = 0; i < n; i++) {
            if (i)
                sb_addc(b, ',');
            enc(vm, b, sl_index(v, i), depth + 1);
        }
        sb_addc(b, ']');
        return;
    }
    case SL_DICT: {
        sl_dict_o *d = AS(sl_dict_o, v);
        sl_val *keys = vm_alloc_raw(vm, (d->len ? d->len : 1) * sizeof(sl_val));
        size_t n = 0;
        for (size_t i = 0; i < d->n; i++)
            if (d->e[i].k) {
                if (TYPE(d->e[i].k) != SL_STRING)
                    sl_fail(vm, "json.encode: dict has %s key, want string", sl_type_name(d->e[i].k));
                keys[n++] = d->e[i].k;
            }
        /* insertion sort is enough for objects' sizes; charge it */
        vm_steps(vm, n * n / 64);
        for (size_t i = 1; i < n; i++)
            for (size_t j = i; j > 0 && strcmp(sl_str_data(keys[j - 1], NULL), sl_str_data(keys[j], NULL)) > 0; j--) {
                sl_val t = keys[j];
                keys[j] = keys[j - 1];
                keys[j - 1] = t;
            }
        sb_addc(b, '{');
        for (size_t i = 0; i < n; i++) {
            if (i)
                sb_addc(b, ',');
            enc(vm, b, keys[i], depth + 1);
            sb_addc(b, ':');
            enc(vm, b, dict_find(vm, v, keys[i])->v, depth + 1);
        }
        sb_addc(b, '}');
        return;
    }
    case SL_STRUCT: {
        sl_struct_o *s = AS(sl_struct_o, v);
        sb_addc(b, '{');
        for (int i = 0; i < s->n; i++) {
            if (i)
                sb_addc(b, ',');
            enc(vm, b, sl_cstr(vm, s->names[i]), depth + 1);
            sb_addc(b, ':');
            enc(vm, b, s->vals[i], depth + 1);
        }
        sb_addc(b, '}');
        return;
    }
    default: sl_fail(vm, "json.encode: cannot encode %s as JSON", sl_type_name(v));
    }
}

typedef struct { sl_vm *vm; const char *s, *p, *end; } jparser;

_Noreturn static void jfail(jparser *j, const char *what)
{
    sl_fail(j->vm, "json.decode: at offset %ld, %s", (long)(j->p - j->s), what);
}

static void ws(jparser *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

static sl_val jvalue(jparser *j, int depth);

static sl_val jstring(jparser *j)
{
    j->p++; /* the quote */
    sbuf b;
    sb_init(&b, j->vm);
    sb_add(&b, "", 0);
    for (;;) {
        if (j->p >= j->end)
            jfail(j, "unexpected end of string");
        unsigned char c = (unsigned char)*j->p++;
        if (c == '"')
            break;
        if (c < 0x20)
            jfail(j, "control character in string");
        if (c != '\\') {
            sb_addc(&b, (char)c);
            continue;
        }
        if (j->p >= j->end)
            jfail(j, "unexpected end of string");
        char e = *j->p++;
        switch (e) {
        case '"': sb_addc(&b, '"'); break;
        case '\\': sb_addc(&b, '\\'); break;
        case '/': sb_addc(&b, '/'); break;
        case 'b': sb_addc(&b, '\b'); break;
        case 'f': sb_addc(&b, '\f'); break;
        case 'n': sb_addc(&b, '\n'); break;
        case 'r': sb_addc(&b, '\r'); break;
        case 't': sb_addc(&b, '\t'); break;
        case 'u': {
            uint32_t cp = 0;
            for (int k = 0; k < 4; k++) {
                if (j->p >= j->end)
                    jfail(j, "bad \\u escape");
                char h = *j->p++;
                int d = h >= '0' && h <= '9' ? h - '0' : (h | 32) >= 'a' && (h | 32) <= 'f' ? (h | 32) - 'a' + 10 : -1;
                if (d < 0)
                    jfail(j, "bad \\u escape");
                cp = cp * 16 + (uint32_t)d;
            }
            if (cp >= 0xd800 && cp < 0xdc00 && j->end - j->p >= 6 && j->p[0] == '\\' && j->p[1] == 'u') {
                uint32_t lo = (uint32_t)strtoul((char[]){j->p[2], j->p[3], j->p[4], j->p[5], 0}, NULL, 16);
                if (lo >= 0xdc00 && lo < 0xe000) {
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                    j->p += 6;
                }
            }
            char u[4];
            sb_add(&b, u, (size_t)utf8_encode(cp, u));
            break;
        }
        default: jfail(j, "invalid escape");
        }
    }
    return sb_str(&b);
}

static sl_val jvalue(jparser *j, int depth)
{
    vm_steps(j->vm, 1);
    if (depth > JSON_MAX_DEPTH)
        jfail(j, "nesting too deep");
    ws(j);
    if (j->p >= j->end)
        jfail(j, "unexpected end of input");
    char c = *j->p;
    if (c == '"')
        return jstring(j);
    if (c == '{') {
        j->p++;
        sl_val d = mk_dict(j->vm, SL_DICT);
        ws(j);
        if (j->p < j->end && *j->p == '}') {
            j->p++;
            return d;
        }
        for (;;) {
            ws(j);
            if (j->p >= j->end || *j->p != '"')
                jfail(j, "object key is not a string");
            sl_val k = jstring(j);
            ws(j);
            if (j->p >= j->end || *j->p != ':')
                jfail(j, "want ':' after object key");
            j->p++;
            sl_val v = jvalue(j, depth + 1);
            dict_put(j->vm, d, k, v);
            ws(j);
            if (j->p < j->end && *j->p == ',') {
                j->p++;
                continue;
            }
            if (j->p < j->end && *j->p == '}') {
                j->p++;
                return d;
            }
            jfail(j, "want ',' or '}' in object");
        }
    }
    if (c == '[') {
        j->p++;
        sl_val l = sl_list(j->vm, 0);
        ws(j);
        if (j->p < j->end && *j->p == ']') {
            j->p++;
            return l;
        }
        for (;;) {
            sl_list_append(j->vm, l, jvalue(j, depth + 1));
            ws(j);
            if (j->p < j->end && *j->p == ',') {
                j->p++;
                continue;
            }
            if (j->p < j->end && *j->p == ']') {
                j->p++;
                return l;
            }
            jfail(j, "want ',' or ']' in array");
        }
    }
    static const struct { const char *w; int v; } words[] = {{"null", 0}, {"true", 1}, {"false", 2}};
    for (int i = 0; i < 3; i++) {
        size_t n = strlen(words[i].w);
        if ((size_t)(j->end - j->p) >= n && !memcmp(j->p, words[i].w, n)) {
            j->p += n;
            return i == 0 ? NONE : i == 1 ? TRUE_V : FALSE_V;
        }
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        const char *st = j->p;
        bool is_float = false;
        if (*j->p == '-')
            j->p++;
        while (j->p < j->end && ((*j->p >= '0' && *j->p <= '9') || *j->p == '.' || *j->p == 'e' || *j->p == 'E' ||
                                 *j->p == '+' || *j->p == '-')) {
            if (*j->p == '.' || *j->p == 'e' || *j->p == 'E')
                is_float = true;
            j->p++;
        }
        size_t n = (size_t)(j->p - st);
        if (is_float) {
            char *tmp = vm_strdup(j->vm, st, n);
            char *e;
            double d = strtod(tmp, &e);
            if (*e)
                jfail(j, "invalid number");
            return sl_float(j->vm, d);
        }
        bool neg = *st == '-', ok;
        sl_val v = int_parse(j->vm, st + neg, n - neg, 10, &ok);
        if (!ok)
            jfail(j, "invalid number");
        return neg ? int_neg(j->vm, v) : v;
    }
    jfail(j, "unexpected character");
}

static sl_val j_encode(sl_vm *vm, sl_val self, int nargs, sl_val *args, int nkw, sl_val *kw, void *data)
{
    (void)self, (void)data;
    sl_val a[1];
    unpack(vm, "json.encode", nargs, args, nkw, kw, 1, NULL, a, 1);
    sbuf b;
    sb_init(&b, vm);
    sb_add(&b, "", 0);
    enc(vm, &b, a[0], 0);
    return sb_str(&b);
}

static sl_val j_decode(sl_vm *vm, sl_val self, int nargs, sl_val *args, int nkw, sl_val *kw, void *data)
{
    (void)self, (void)data;
    sl_val a[1];
    unpack(vm, "json.decode", nargs, args, nkw, kw, 1, NULL, a, 1);
    size_t n;
    const char *s = arg_str(vm, "json.decode", a[0], &n);
    jparser j = {vm, s, s, s + n};
    sl_val v = jvalue(&j, 0);
    ws(&j);
    if (j.p != j.end)
        jfail(&j, "unexpected text after value");
    return v;
}

sl_val sl_json_module(sl_vm *vm)
{
    const char *names[] = {"encode", "decode"};
    sl_val vals[] = {sl_builtin(vm, "json.encode", j_encode, NULL), sl_builtin(vm, "json.decode", j_decode, NULL)};
    return sl_module_value(vm, "json", 2, names, vals);
}
