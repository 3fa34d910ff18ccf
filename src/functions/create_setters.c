/* create-setters: marks fields whose values match the given setter values with "# kpt-set: ..." comments
 * (catalog create-setters, createsetters/create_setters.go). Every item is processed, the function's own
 * config included: the catalog's examples limit it with selectors. */
#include <stdlib.h>
#include <string.h>

#include "functions/setters.h"

struct scalar_setter {
    const char *name, *value;
    size_t len;
};

struct array_setter {
    const char *name;
    const char **values; /* sorted */
    size_t n;
};

struct create {
    fn_ctx *c;
    const resource *r;
    struct scalar_setter *scalars;
    size_t nscalars;
    struct array_setter *arrays;
    size_t narrays;
    int created;
};

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Longest value first, so "nginx-abc" wins over "nginx" where both fit. The catalog breaks ties in map order,
 * which is random; the name makes it repeatable. */
static int cmp_scalar(const void *a, const void *b)
{
    const struct scalar_setter *x = a, *y = b;
    if (x->len != y->len)
        return x->len > y->len ? -1 : 1;
    return strcmp(x->name, y->name);
}

static bool blank(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
            return false;
    return true;
}

/* Every occurrence of a setter value becomes "${name}", left to right without overlaps, the longest value
 * winning at each position (Go's strings.Replacer with the values in that order). NULL when nothing changed. */
static const char *replace_values(const struct create *cs, const char *s)
{
    bool any = false;
    for (size_t k = 0; k < cs->nscalars && !any; k++)
        any = strstr(s, cs->scalars[k].value) != NULL;
    if (!any)
        return NULL;
    buf out = {0};
    for (size_t i = 0; s[i];) {
        const struct scalar_setter *hit = NULL;
        for (size_t k = 0; k < cs->nscalars && !hit; k++)
            if (!strncmp(s + i, cs->scalars[k].value, cs->scalars[k].len))
                hit = &cs->scalars[k];
        if (hit) {
            buf_printf(&out, "${%s}", hit->name);
            i += hit->len;
        } else {
            buf_putc(&out, s[i++]);
        }
    }
    const char *text = buf_cstr(&out);
    const char *r = strcmp(text, s) ? arena_strdup(cs->c->a, text) : NULL;
    buf_free(&out);
    return r;
}

static bool any_item_holds_a_scalar_value(const struct create *cs, const char **items, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < cs->nscalars; k++)
            if (strstr(items[i], cs->scalars[k].value))
                return true;
    return false;
}

/* Items of a flow list cannot carry line comments, so a list that needs them becomes a block list. A comment
 * the flow list had moves to the key, where a block list's comment is written. */
static void make_block(fn_ctx *c, node *key, node *seq)
{
    node_set_style(seq, ST_BLOCK);
    if (node_comment(seq)) {
        if (!node_comment(key))
            node_set_comment(c->a, key, node_comment(seq));
        node_set_comment(c->a, seq, NULL);
    }
}

static void mark_array(struct create *cs, node *key, node *seq, field_path *path)
{
    fn_ctx *c = cs->c;
    size_t n = node_len(seq);
    const char **items = n ? arena_alloc(c->a, n * sizeof *items) : NULL;
    for (size_t i = 0; i < n; i++)
        items[i] = seq_item_text(seq_item(seq, i));
    if (n > 1)
        qsort(items, n, sizeof *items, cmp_str);
    node *target = key;
    if (node_style(seq) == ST_FLOW) {
        target = seq;
        if (any_item_holds_a_scalar_value(cs, items, n)) {
            make_block(c, key, seq);
            target = key;
        }
    }
    for (size_t a = 0; a < cs->narrays; a++) {
        const struct array_setter *as = &cs->arrays[a];
        if (as->n != n)
            continue;
        size_t i = 0;
        while (i < n && !strcmp(items[i], as->values[i]))
            i++;
        if (i < n)
            continue;
        if (target == seq && n > 0) {
            make_block(c, key, seq);
            target = key;
        }
        const char *comment = arena_printf(c->a, "kpt-set: ${%s}", as->name);
        node_set_comment(c->a, target, comment);
        buf shown = {0};
        buf_putc(&shown, '[');
        for (size_t k = 0; k < n; k++)
            buf_printf(&shown, "%s%s", k ? " " : "", items[k]);
        buf_putc(&shown, ']');
        fn_result_add(c, SEV_NONE, cs->r, field_path_with_key(c->a, path, scalar(key)),
                      "Added line comment %s for field with value %s", go_quote(c->a, comment),
                      go_quote(c->a, buf_cstr(&shown)));
        buf_free(&shown);
        cs->created++;
        return;
    }
}

static int visit_mapping(void *ud, node *map, field_path *path)
{
    struct create *cs = ud;
    for (uint32_t i = 0; i < node_len(map); i++)
        if (is_seq(map_val(map, i)))
            mark_array(cs, map_key(map, i), map_val(map, i), path);
    return 0;
}

static int visit_scalar(void *ud, node *n, field_path *path)
{
    struct create *cs = ud;
    /* a comment after a multi-line value would not be read back on the value */
    if (memchr(scalar(n), '\n', scalar_len(n)))
        return 0;
    const char *pattern = replace_values(cs, scalar(n));
    if (!pattern)
        return 0;
    const char *comment = arena_printf(cs->c->a, "kpt-set: %s", pattern);
    node_set_comment(cs->c->a, n, comment);
    fn_result_add(cs->c, SEV_NONE, cs->r, field_path_str(cs->c->a, path), "Added line comment %s for field with value %s",
                  go_quote(cs->c->a, comment), go_quote(cs->c->a, scalar(n)));
    cs->created++;
    return 0;
}

/* Values that read as a YAML list are array setters; everything else is matched as text. */
static int read_setters(fn_ctx *c, struct create *cs)
{
    if (!c->config)
        return fn_fail(c, NULL, "create-setters needs a functionConfig: a ConfigMap whose `data` holds the setter values");
    if (!is_map(c->config))
        return fn_fail(c, c->config, "create-setters: the functionConfig must be an object with a `data` map of setter values");
    setter_value *v;
    size_t n;
    if (setters_from_data(c, map_get(c->config, "data"), "create-setters", &v, &n) < 0)
        return -1;
    if (!n)
        return fn_fail(c, c->config, "config map cannot be empty: create-setters needs setters in `data`");
    cs->scalars = arena_alloc(c->a, n * sizeof *cs->scalars);
    cs->arrays = arena_alloc(c->a, n * sizeof *cs->arrays);
    for (size_t i = 0; i < n; i++) {
        if (blank(v[i].value))
            return fn_fail(c, v[i].at, "create-setters: setter \"%s\" has an empty value, which every field would match",
                           v[i].name);
        node *parsed = NULL;
        if (setter_parse_value(c, v[i].value, &parsed) && is_seq(parsed)) {
            struct array_setter *as = &cs->arrays[cs->narrays++];
            as->name = v[i].name;
            as->n = node_len(parsed);
            as->values = as->n ? arena_alloc(c->a, as->n * sizeof *as->values) : NULL;
            for (size_t k = 0; k < as->n; k++)
                as->values[k] = seq_item_text(seq_item(parsed, k));
            if (as->n > 1)
                qsort(as->values, as->n, sizeof *as->values, cmp_str);
        } else {
            cs->scalars[cs->nscalars++] = (struct scalar_setter){v[i].name, v[i].value, strlen(v[i].value)};
        }
    }
    if (cs->nscalars > 1)
        qsort(cs->scalars, cs->nscalars, sizeof *cs->scalars, cmp_scalar);
    return 0;
}

static int run(fn_ctx *c)
{
    struct create cs = {.c = c};
    if (read_setters(c, &cs) < 0)
        return -1;
    setter_walk w = {visit_mapping, visit_scalar, &cs, {{0}}};
    for (size_t i = 0; i < c->items->n; i++) {
        resource *r = c->items->v[i];
        if (!r)
            continue;
        cs.r = r;
        setter_walk_tree(&w, r->root);
    }
    setter_walk_done(&w);
    /* The catalog fails here: a step that marks nothing is taken to have wrong setter values. */
    if (!cs.created)
        return fn_fail(c, c->config, "no matches for the input list of setters");
    return 0;
}

const fn_def fn_create_setters = {
    "create-setters",
    "add `# kpt-set: ${name}` comments to fields whose values match the given setter values",
    run,
};
