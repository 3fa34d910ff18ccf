/* The field-path language of kustomize replacements (kyaml SmarterPathSplitter, PathGetter and PathMatcher). */
#include "functions/krm/fieldpath.h"

#include <string.h>

#include "functions/krm/regex.h"
#include "util/diag.h"

/* ---- parsing ---- */

struct parts {
    const char **v;
    size_t n;
};

/* Splits on '.', except where the dot is escaped as "\."; the backslash goes. */
static struct parts split_dots(arena *a, const char *text)
{
    size_t max = 1;
    for (const char *p = text; *p; p++)
        max += *p == '.';
    struct parts out = {arena_alloc(a, max * sizeof *out.v), 0};
    char *cur = arena_alloc(a, strlen(text) + 1);
    size_t len = 0;
    for (const char *p = text;; p++) {
        if (*p == '\\' && p[1] == '.') {
            cur[len++] = '.';
            p++;
            continue;
        }
        if (*p == '.' || !*p) {
            out.v[out.n++] = arena_strndup(a, cur, len);
            len = 0;
            if (!*p)
                break;
            continue;
        }
        cur[len++] = *p;
    }
    return out;
}

static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

static int compile(fp_seg *s)
{
    int code;
    PCRE2_SIZE off;
    s->re = regex_compile(s->value, &code, &off);
    if (s->re)
        return 0;
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(code, msg, sizeof msg);
    return fail_here("the pattern in %s does not compile: %s at offset %zu", s->text, (const char *)msg, (size_t)off);
}

static bool closes(const char *s)
{
    size_t n = strlen(s);
    return n && s[n - 1] == ']';
}

/* msg: the error (arena text), or NULL when it is recorded already */
static int parse_error(fieldpath *fp, const char *msg)
{
    fieldpath_release(fp);
    return msg ? fail_here("%s", msg) : -1;
}

int fieldpath_parse(arena *a, const char *text, bool regex, fieldpath *fp)
{
    memset(fp, 0, sizeof *fp);
    fp->text = text;
    if (!text || !*text)
        return parse_error(fp, "the field path is empty");
    struct parts p = split_dots(a, text);
    fp->seg = arena_alloc(a, p.n * sizeof *fp->seg);
    for (size_t i = 0; i < p.n; i++) {
        const char *e = p.v[i];
        fp_seg *s = &fp->seg[fp->n];
        s->text = e;
        if (e[0] == '[') {
            /* a bracket runs to the element that ends in ']'; the dots inside belong to it */
            size_t first = i, j = i;
            while (!closes(p.v[j]) && j + 1 < p.n)
                j++;
            if (!closes(p.v[j]))
                return parse_error(fp, arena_printf(a, "field path `%s`: '[' without a closing ']'", text));
            char *joined = arena_strdup(a, e);
            for (size_t k = i + 1; k <= j; k++)
                joined = arena_printf(a, "%s.%s", joined, p.v[k]);
            i = j;
            s->text = joined;
            char *inner = arena_strndup(a, joined + 1, strlen(joined) - 2);
            char *eq = strchr(inner, '=');
            if (eq) {
                *eq = '\0';
                s->kind = FP_MATCH;
                s->key = inner;
                s->value = eq + 1;
                if (regex && compile(s) < 0)
                    return parse_error(fp, NULL);
            } else {
                /* kyaml drops the brackets only when they held dots; "[key]" naming a key is the evident intent */
                if (!*inner)
                    return parse_error(fp, arena_printf(a, "field path `%s` has an empty key `[]`", text));
                s->kind = FP_KEY;
                s->key = inner;
                s->bracketed = true;
                s->spans_dot = j > first;
            }
        } else if (!*e) {
            return parse_error(fp, arena_printf(a, "field path `%s` has an empty element", text));
        } else if (!strcmp(e, "*")) {
            s->kind = FP_EVERY;
            fp->has_every = true;
        } else if (all_digits(e)) {
            s->kind = FP_INDEX;
            for (const char *d = e; *d; d++) {
                if (s->index > ((size_t)-1 - 9) / 10)
                    return parse_error(fp, arena_printf(a, "field path `%s`: index %s is too large", text, e));
                s->index = s->index * 10 + (size_t)(*d - '0');
            }
        } else {
            s->kind = FP_KEY;
            s->key = e;
        }
        fp->n++;
    }
    return 0;
}

void fieldpath_release(fieldpath *fp)
{
    for (size_t i = 0; i < fp->n; i++)
        if (fp->seg[i].re) {
            pcre2_code_free(fp->seg[i].re);
            fp->seg[i].re = NULL;
        }
}

/* ---- walking ---- */

static const char *kind_name(const node *n)
{
    return is_map(n) ? "a map" : is_seq(n) ? "a list" : "a scalar";
}

/* "spec.containers" for the first i elements, or "the object" */
static const char *prefix(arena *a, const fieldpath *fp, size_t i)
{
    if (!i)
        return "the object";
    char *s = arena_strdup(a, fp->seg[0].text);
    for (size_t k = 1; k < i; k++)
        s = arena_printf(a, "%s.%s", s, fp->seg[k].text);
    return arena_printf(a, "`%s`", s);
}

static int wrong_kind(arena *a, const fieldpath *fp, size_t i, const node *at, const char *want)
{
    return fail_here("field path `%s`: %s is %s, so `%s` cannot %s", fp->text, prefix(a, fp, i), kind_name(at),
                     fp->seg[i].text, want);
}


/* The item field a [k=v] compares: its scalar text, or NULL (collections and missing fields never match). */
static const char *item_field(const node *item, const char *key)
{
    if (!*key)
        return scalar(item);
    if (!is_map(item))
        return NULL;
    return scalar(map_get(item, key));
}

int fieldpath_get(arena *a, node *root, const fieldpath *fp, node **out)
{
    node *cur = root;
    *out = NULL;
    for (size_t i = 0; i < fp->n; i++) {
        const fp_seg *s = &fp->seg[i];
        if (is_null(cur))
            return 0;
        switch (s->kind) {
        case FP_KEY:
            if (is_seq(cur) && !strcmp(s->key, "-")) {
                cur = node_len(cur) ? seq_item(cur, node_len(cur) - 1) : NULL;
                break;
            }
            if (!is_map(cur))
                return wrong_kind(a, fp, i, cur, "name a key");
            cur = map_get(cur, s->key);
            break;
        case FP_INDEX:
            if (!is_seq(cur))
                return wrong_kind(a, fp, i, cur, "index it");
            cur = s->index < node_len(cur) ? seq_item(cur, (uint32_t)s->index) : NULL;
            break;
        case FP_MATCH: {
            if (!is_seq(cur))
                return wrong_kind(a, fp, i, cur, "select list items");
            node *found = NULL;
            seq_foreach(cur, k, it) {
                const char *v = item_field(it, s->key);
                if (v && !strcmp(v, s->value)) {
                    found = it;
                    break;
                }
            }
            cur = found;
            break;
        }
        case FP_EVERY:
            return fail_here("field path `%s`: '*' cannot be used where one value is read", fp->text);
        }
        if (!cur)
            return 0;
    }
    *out = cur;
    return 0;
}

struct finder {
    arena *a;
    const fieldpath *fp;
    bool create;
    bool first; /* PathGetter: [k=v] exact and first match only, "-" the last item */
    nodelist *out;
};

static void push(arena *a, nodelist *l, node *n)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        node **v = arena_alloc(a, cap * sizeof *v);
        if (l->n)
            memcpy(v, l->v, l->n * sizeof *v);
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = n;
}

/* What a created part holds: the empty leaf the caller fills, or the container the next element walks into. */
static node *made_for(arena *a, const fieldpath *fp, size_t next)
{
    if (next >= fp->n)
        return node_scalar(a, "", 0, ST_PLAIN);
    return fp->seg[next].kind == FP_KEY ? node_map(a) : node_seq(a);
}

static int find(struct finder *F, node *cur, size_t i)
{
    if (i == F->fp->n) {
        push(F->a, F->out, cur);
        return 0;
    }
    const fp_seg *s = &F->fp->seg[i];
    if (is_null(cur)) {
        if (!F->create || s->kind == FP_EVERY)
            return 0;
        /* a null met while creating becomes the collection the path needs, in place, so its parent slot, position
         * and comments are kept */
        node_move(cur, s->kind == FP_KEY ? node_map(F->a) : node_seq(F->a));
    }
    switch (s->kind) {
    case FP_KEY: {
        if (F->first && is_seq(cur) && !strcmp(s->key, "-"))
            return node_len(cur) ? find(F, seq_item(cur, node_len(cur) - 1), i + 1) : 0;
        if (!is_map(cur))
            return wrong_kind(F->a, F->fp, i, cur, "name a key");
        node *v = map_get(cur, s->key);
        if (!v) {
            if (!F->create)
                return 0;
            v = made_for(F->a, F->fp, i + 1);
            map_append(F->a, cur, node_scalar(F->a, s->key, strlen(s->key), ST_STRING), v);
        }
        return find(F, v, i + 1);
    }
    case FP_INDEX:
        if (!is_seq(cur))
            return wrong_kind(F->a, F->fp, i, cur, "index it");
        if (s->index < node_len(cur))
            return find(F, seq_item(cur, (uint32_t)s->index), i + 1);
        if (F->create && s->index == node_len(cur)) {
            node *v = made_for(F->a, F->fp, i + 1);
            seq_append(F->a, cur, v);
            return find(F, v, i + 1);
        }
        return 0;
    case FP_MATCH: {
        if (!is_seq(cur))
            return wrong_kind(F->a, F->fp, i, cur, "select list items");
        bool any = false;
        if (F->first) {
            seq_foreach(cur, k, it) {
                const char *v = item_field(it, s->key);
                if (v && !strcmp(v, s->value))
                    return find(F, it, i + 1);
            }
        } else {
            seq_foreach(cur, k, it) {
                const char *v = item_field(it, s->key);
                int m = v ? regex_search(F->fp->limits, s->re, NULL, v, strlen(v)) : 0;
                if (m < 0) {
                    /* never "no match": with create, that would append an item; the value may be a secret */
                    return fail_here("field path `%s`: the pattern `%s` in %s %s on the %s of item %u", F->fp->text,
                                     s->value, s->text, regex_failure(F->fp->limits, F->a, m),
                                     *s->key ? arena_printf(F->a, "field `%s`", s->key) : "value", k);
                }
                if (!m)
                    continue;
                any = true;
                if (find(F, it, i + 1) < 0)
                    return -1;
            }
        }
        if (any || !F->create)
            return 0;
        node *item;
        if (!*s->key) {
            item = node_str(F->a, s->value);
        } else {
            item = node_map(F->a);
            map_append(F->a, item, node_scalar(F->a, s->key, strlen(s->key), ST_STRING), node_str(F->a, s->value));
        }
        seq_append(F->a, cur, item);
        return find(F, item, i + 1);
    }
    case FP_EVERY:
        if (!is_seq(cur))
            return wrong_kind(F->a, F->fp, i, cur, "match every list item");
        seq_foreach(cur, k, it)
            if (find(F, it, i + 1) < 0)
                return -1;
        return 0;
    }
    return 0;
}

int fieldpath_find(arena *a, node *root, const fieldpath *fp, bool create, nodelist *out)
{
    struct finder F = {a, fp, create, false, out};
    return find(&F, root, 0);
}

int fieldpath_find_first(arena *a, node *root, const fieldpath *fp, bool create, nodelist *out)
{
    struct finder F = {a, fp, create, true, out};
    return find(&F, root, 0);
}
