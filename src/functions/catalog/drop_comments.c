/* drop-comments: removes every comment and re-emits every value the way the catalog function's JSON round trip
 * does (kptdev catalog drop-comments, a test helper: item -> JSON -> Go values -> YAML). No config.
 *
 * What the round trip gives, and so what each value becomes here:
 *   - strings: the author's quotes, block styles and tags go; the emitter writes them plain where every reader
 *     sees a string, quoted otherwise, and multi-line text as a literal block;
 *   - numbers pass through a float64 and come back in Go's shortest form (%g): 0x1F is 31, 017 is 15 (YAML 1.1
 *     octal, as yaml.v3 reads it), 1.50 is 1.5, 1000000 is 1e+06, and integers beyond 2^53 lose precision;
 *     .inf and .nan cannot pass through JSON and are an error, as they fail the catalog function;
 *   - booleans become true/false, nulls (~, empty) null, flow collections block ones; a custom tag makes a string;
 *   - a key that is not a string inside a nested map is an error (Go's JSON cannot carry it); at the top of an
 *     object it becomes a string.
 * The order of keys is kept: the round trip sorts them, but kpt copies each object's field order back after
 * every function (and its comments too: kpt's own preserve-comments test runs this function to show that, so a
 * kpt render keeps the comments this function drops). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "functions/function.h"
#include "yaml/scalar.h"

/* Go's strconv.FormatFloat(v, 'g', -1, 64): the shortest digits that read back as v, in %e form when the exponent
 * is below -4 or at least 6 (Go's rule for the shortest form), else in %f form. */
static void go_float(double v, char *out, size_t cap)
{
    if (v == 0) {
        snprintf(out, cap, "%s", signbit(v) ? "-0" : "0");
        return;
    }
    char e[48];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(e, sizeof e, "%.*e", prec - 1, v);
        if (strtod(e, NULL) == v)
            break;
    }
    /* e is [-]d[.ddd]e[+-]xx */
    bool neg = e[0] == '-';
    const char *p = e + neg;
    char digits[24];
    size_t nd = 0;
    for (; *p && *p != 'e'; p++)
        if (*p != '.' && nd + 1 < sizeof digits)
            digits[nd++] = *p;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    int exp = atoi(p + 1);
    size_t o = 0;
    if (neg)
        out[o++] = '-';
    if (exp < -4 || exp >= 6) {
        out[o++] = digits[0];
        if (nd > 1) {
            out[o++] = '.';
            for (size_t i = 1; i < nd; i++)
                out[o++] = digits[i];
        }
        snprintf(out + o, cap - o, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
        return;
    }
    int dp = exp + 1; /* digits before the point */
    if (dp <= 0) {
        out[o++] = '0';
        out[o++] = '.';
        for (int i = dp; i < 0; i++)
            out[o++] = '0';
        for (size_t i = 0; i < nd; i++)
            out[o++] = digits[i];
    } else {
        for (int i = 0; i < dp; i++)
            out[o++] = (size_t)i < nd ? digits[i] : '0';
        if ((size_t)dp < nd) {
            out[o++] = '.';
            for (size_t i = (size_t)dp; i < nd; i++)
                out[o++] = digits[i];
        }
    }
    out[o] = 0;
}

/* A number as yaml.v3 reads it: Go's ParseInt(s, 0, 64) after dropping underscores (0x, 0o, 0b, and a leading 0
 * for octal), else ParseUint, else a float. False when it is none of them. */
static bool number_value(const char *s, size_t n, double *out)
{
    char buf[128];
    size_t k = 0;
    for (size_t i = 0; i < n && k + 1 < sizeof buf; i++)
        if (s[i] != '_')
            buf[k++] = s[i];
    if (k + 1 >= sizeof buf)
        return false;
    buf[k] = 0;
    const char *p = buf;
    bool neg = false;
    if (*p == '+' || *p == '-')
        neg = *p++ == '-';
    int base = 10;
    const char *digits = p;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        base = 16, digits = p + 2;
    else if (p[0] == '0' && (p[1] == 'o' || p[1] == 'O'))
        base = 8, digits = p + 2;
    else if (p[0] == '0' && (p[1] == 'b' || p[1] == 'B'))
        base = 2, digits = p + 2;
    else if (p[0] == '0' && p[1] && strspn(p, "01234567") == strlen(p))
        base = 8, digits = p + 1;
    if (base != 10 || (*p >= '0' && *p <= '9' && strspn(p, "0123456789") == strlen(p))) {
        if (*digits && *digits != '+' && *digits != '-') {
            errno = 0;
            char *end;
            unsigned long long u = strtoull(digits, &end, base);
            if (!*end && errno != ERANGE) {
                *out = neg && u ? -(double)u : (double)u; /* an integer has no -0 */
                return true;
            }
        }
        if (base != 10 && base != 8)
            return false;
    }
    char *end;
    errno = 0;
    double d = strtod(buf, &end);
    if (*end || end == buf)
        return false;
    *out = d; /* out of range: ±inf, refused by the caller as JSON refuses it */
    return true;
}

static bool core_tag(const char *tag)
{
    static const char *const tags[] = {"!!str", "!!int", "!!float", "!!bool", "!!null", "tag:yaml.org,2002:str",
                                       "tag:yaml.org,2002:int", "tag:yaml.org,2002:float", "tag:yaml.org,2002:bool",
                                       "tag:yaml.org,2002:null", NULL};
    for (const char *const *t = tags; *t; t++)
        if (!strcmp(tag, *t))
            return true;
    return false;
}

typedef struct drop {
    fn_ctx *c;
    const resource *r;
} drop;

static int as_string(drop *d, node *n)
{
    node_set_tag(d->c->a, n, NULL);
    node_set_style(n, ST_STRING);
    return 0;
}

static int rewrite_scalar(drop *d, node *n)
{
    arena *a = d->c->a;
    const char *tag = node_tag(n);
    if (tag && !core_tag(tag))
        return as_string(d, n); /* yaml.v3 hands an unknown tag's value over as its text */
    enum scalar_type t = node_type(n);
    const char *s = scalar(n);
    size_t len = scalar_len(n);
    const char *text;
    char num[64];
    switch (t) {
    case T_STR:
        return as_string(d, n);
    case T_NULL:
        if (tag && resolve_yaml12(s, len) != T_NULL)
            return fn_fail_res(d->c, d->r, n, "`%s` is tagged %s but is not null", s, tag);
        text = "null";
        break;
    case T_BOOL:
        if (resolve_yaml12(s, len) != T_BOOL)
            return fn_fail_res(d->c, d->r, n, "`%s` is tagged %s but is not true or false", s,
                               tag ? tag : "!!bool");
        text = s[0] == 't' || s[0] == 'T' ? "true" : "false";
        break;
    default: {
        double v;
        if (!strcmp(s, ".nan") || !strcmp(s, ".NaN") || !strcmp(s, ".NAN"))
            v = NAN;
        else if (strstr(s, ".inf") || strstr(s, ".Inf") || strstr(s, ".INF"))
            v = s[0] == '-' ? -INFINITY : INFINITY;
        else if (!number_value(s, len, &v))
            return fn_fail_res(d->c, d->r, n, "`%s` is tagged %s but is not a number", s,
                               tag ? tag : "as a number");
        if (!isfinite(v))
            return fn_fail_res(d->c, d->r, n, "the value `%s` cannot pass through JSON (the catalog "
                                              "function fails on it too)", s);
        go_float(v, num, sizeof num);
        text = num;
        break;
    }
    }
    node_set_tag(a, n, NULL);
    node_set_style(n, ST_PLAIN);
    scalar_set(a, n, text, strlen(text), SCALAR_AS_WRITTEN);
    return 0;
}

static int rewrite(drop *d, node *n, int depth)
{
    node_clear_comments(n);
    if (is_scalar(n))
        return rewrite_scalar(d, n);
    node_set_tag(d->c->a, n, NULL);
    node_set_style(n, ST_BLOCK);
    if (is_seq(n)) {
        seq_foreach(n, i, item)
            if (rewrite(d, item, depth + 1) < 0)
                return -1;
        return 0;
    }
    map_foreach(n, i, k, val) {
        if (!is_scalar(k) || (node_type(k) != T_STR && depth > 0))
            return fn_fail_res_key(d->c, d->r, n, i, "the key `%s` is not a string; the JSON round trip "
                                   "cannot carry it", is_scalar(k) ? scalar(k) : "(a collection)");
        /* every key becomes a string we made: the map's own copy (a shared key is never edited) */
        node *own = map_key_own(d->c->a, n, i);
        node_clear_comments(own);
        as_string(d, own);
        if (rewrite(d, val, depth + 1) < 0)
            return -1;
    }
    return 0;
}

static int run(fn_ctx *c)
{
    if (fn_no_config(c, "drop-comments") < 0)
        return -1;
    for (size_t i = 0; i < c->items->n; i++) {
        resource *r = c->items->v[i];
        if (!r)
            continue;
        drop d = {c, r};
        if (rewrite(&d, r->root, 0) < 0)
            return -1;
    }
    return 0;
}

const fn_def fn_drop_comments = {
    .name = "drop-comments",
    .summary = "remove every comment, and re-emit values as the catalog's JSON round trip does",
    .run = run,
    .readme = {
        .does = "removes every comment; values come back as the catalog's JSON round trip gives them (quotes, tags "
                "and block styles go where a string needs none, `0x1F` is `31`, `1000000` is `1e+06`, flow "
                "collections become block)",
        .differs = "kpt copies the comments and field order back after every function, so a kpt render keeps both; here "
                "the comments go and the order stays; `.inf`, `.nan` and nested keys that are not strings are "
                "errors, as they fail the round trip; a config that sets anything is an error",
        .versions = "one behaviour for every tag",
    },
};
