/* Kubernetes selector syntax (k8s.io/apimachinery labels.Parse): comma-separated requirements, all of which must hold.
 *   key / !key                 the key is present / absent
 *   key=v, key==v, key!=v      equality; != also holds when the key is absent
 *   key in (a,b), key notin (a,b)
 *   key>n, key<n               integer comparison; the key must be present and hold an integer
 * Keys and values are not checked against the label charset: a selector that Kubernetes would reject for its
 * characters simply selects what it names. */
#include "functions/krm/label_selector.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"

enum op { OP_EXISTS, OP_NOT_EXISTS, OP_IN, OP_NOT_IN, OP_GT, OP_LT };

struct requirement {
    const char *key;
    enum op op;
    const char **values; /* OP_IN, OP_NOT_IN; one value for = and != */
    size_t nvalues;
    long long number; /* OP_GT, OP_LT */
};

struct label_selector {
    struct requirement *req;
    size_t n;
};

struct lexer {
    arena *a;
    const char *text, *p;
};

static void skip_space(struct lexer *L)
{
    while (*L->p && isspace((unsigned char)*L->p))
        L->p++;
}

static bool special(char c)
{
    return !c || isspace((unsigned char)c) || strchr(",=!()<>", c) != NULL;
}

/* A key or value: everything up to the next operator, separator or blank. May be empty. */
static const char *word(struct lexer *L)
{
    skip_space(L);
    const char *s = L->p;
    while (!special(*L->p))
        L->p++;
    return arena_strndup(L->a, s, (size_t)(L->p - s));
}

static int bad(struct lexer *L, const char *what)
{
    return fail_here("selector \"%s\": %s at position %d", L->text, what, (int)(L->p - L->text) + 1);
}

static bool parse_int(const char *s, long long *out)
{
    if (!*s)
        return false;
    errno = 0;
    char *end;
    *out = strtoll(s, &end, 10);
    return !*end && errno == 0;
}

/* "(a, b, c)" after in/notin. */
static int value_set(struct lexer *L, struct requirement *r)
{
    skip_space(L);
    if (*L->p != '(')
        return bad(L, "expected '(' after in/notin");
    L->p++;
    size_t cap = 4;
    r->values = arena_alloc(L->a, cap * sizeof *r->values);
    for (;;) {
        const char *v = word(L);
        if (r->nvalues == cap) {
            const char **grown = arena_alloc(L->a, 2 * cap * sizeof *grown);
            memcpy(grown, r->values, cap * sizeof *grown);
            r->values = grown;
            cap *= 2;
        }
        r->values[r->nvalues++] = v;
        skip_space(L);
        if (*L->p == ',') {
            L->p++;
            continue;
        }
        if (*L->p == ')') {
            L->p++;
            break;
        }
        return bad(L, "expected ',' or ')' in a value set");
    }
    if (r->nvalues == 1 && !*r->values[0])
        return bad(L, "the value set of in/notin cannot be empty");
    return 0;
}

static int requirement(struct lexer *L, struct requirement *r)
{
    skip_space(L);
    if (*L->p == '!' && L->p[1] != '=') {
        L->p++;
        r->key = word(L);
        if (!*r->key)
            return bad(L, "expected a key after '!'");
        r->op = OP_NOT_EXISTS;
        return 0;
    }
    r->key = word(L);
    if (!*r->key)
        return bad(L, "expected a key");
    skip_space(L);
    const char *p = L->p;
    if (!*p || *p == ',') {
        r->op = OP_EXISTS;
        return 0;
    }
    if (*p == '=' || (*p == '!' && p[1] == '=')) {
        r->op = *p == '!' ? OP_NOT_IN : OP_IN;
        L->p += (*p == '!' || p[1] == '=') ? 2 : 1;
        r->values = arena_alloc(L->a, sizeof *r->values);
        r->values[0] = word(L);
        r->nvalues = 1;
        return 0;
    }
    if (*p == '>' || *p == '<') {
        r->op = *p == '>' ? OP_GT : OP_LT;
        L->p++;
        const char *v = word(L);
        if (!parse_int(v, &r->number))
            return bad(L, "'>' and '<' need an integer value");
        return 0;
    }
    const char *op = word(L);
    if (!strcmp(op, "in") || !strcmp(op, "notin")) {
        r->op = op[0] == 'i' ? OP_IN : OP_NOT_IN;
        return value_set(L, r);
    }
    return bad(L, "expected one of =, ==, !=, in, notin, >, < or ','");
}

label_selector *label_selector_parse(arena *a, const char *text)
{
    label_selector *s = arena_alloc(a, sizeof *s);
    struct lexer L = {a, text ? text : "", text ? text : ""};
    skip_space(&L);
    if (!*L.p)
        return s;
    /* one requirement per comma at most (commas inside value sets only make this generous) */
    size_t cap = 1;
    for (const char *q = L.p; *q; q++)
        cap += *q == ',';
    s->req = arena_alloc(a, cap * sizeof *s->req);
    for (;;) {
        if (requirement(&L, &s->req[s->n]) < 0)
            return NULL;
        s->n++;
        skip_space(&L);
        if (!*L.p)
            return s;
        if (*L.p != ',') {
            bad(&L, "expected ',' between requirements");
            return NULL;
        }
        L.p++;
    }
}

static const char *lookup(const node *map, const char *key)
{
    if (!is_map(map))
        return NULL;
    const node *v = map_get(map, key);
    if (!v)
        return NULL;
    return is_scalar(v) ? scalar(v) : "";
}

static bool in_set(const struct requirement *r, const char *v)
{
    for (size_t i = 0; i < r->nvalues; i++)
        if (!strcmp(r->values[i], v))
            return true;
    return false;
}

bool label_selector_matches(const label_selector *s, const node *map)
{
    for (size_t i = 0; i < s->n; i++) {
        const struct requirement *r = &s->req[i];
        const char *v = lookup(map, r->key);
        long long n;
        bool ok;
        switch (r->op) {
        case OP_EXISTS: ok = v != NULL; break;
        case OP_NOT_EXISTS: ok = v == NULL; break;
        case OP_IN: ok = v && in_set(r, v); break;
        case OP_NOT_IN: ok = !v || !in_set(r, v); break;
        case OP_GT: ok = v && parse_int(v, &n) && n > r->number; break;
        case OP_LT: ok = v && parse_int(v, &n) && n < r->number; break;
        default: ok = false;
        }
        if (!ok)
            return false;
    }
    return true;
}
