/* create-setters: marks fields whose values match the given setter values with "# kpt-set: ..." comments
 * (catalog create-setters, createsetters/create_setters.go). Every item is processed, the function's own
 * config included: the catalog's examples limit it with selectors.
 *
 * Two behaviours (catalog-function-versions, create-setters): the only tag, v0.1.0, substitutes the setters one
 * after another in the order its comparator leaves them; the branch after it (and `latest`) replaces in one pass,
 * longest value first. */
#include <stdlib.h>
#include <string.h>

#include "functions/krm/setters.h"

struct scalar_setter {
    const char *name, *value;
    size_t len;
    const char *ref; /* "${name}" */
};

struct array_setter {
    const char *name;
    const char **values; /* sorted */
    size_t n;
};

struct create {
    fn_ctx *c;
    bool v010;
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

static int cmp_name(const void *a, const void *b)
{
    return strcmp(((const struct scalar_setter *)a)->name, ((const struct scalar_setter *)b)->name);
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

/* v0.1.0's order. Its comparator calls setter i "less" than j unless i's value contains j's name, which is no
 * order at all, so the result depends on where the sort starts and how it moves things. The catalog starts from
 * Go's random map order; here the setters start in name order and go through the same moves as the Go 1.16
 * sort.Sort of the time did for up to 12 elements (a gap-6 pass, then insertion sort), which makes the order
 * repeatable. Longer lists keep name order: Go's quicksort moves would cost a page to mimic, and an insertion sort
 * would be quadratic in the config. */
static bool quirky_less(const struct scalar_setter *x, const struct scalar_setter *y)
{
    return !strstr(x->value, y->name);
}

static void quirky_sort(struct scalar_setter *v, size_t n)
{
    struct scalar_setter t;
    if (n > 12)
        return;
    for (size_t i = 6; i < n; i++)
        if (quirky_less(&v[i], &v[i - 6]))
            t = v[i], v[i] = v[i - 6], v[i - 6] = t;
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && quirky_less(&v[j], &v[j - 1]); j--)
            t = v[j], v[j] = v[j - 1], v[j - 1] = t;
}

/* Every occurrence of needle in s becomes rep (left to right, no overlaps). */
static void replace_all(buf *out, const char *s, const char *needle, size_t nlen, const char *rep)
{
    for (const char *hit; (hit = strstr(s, needle)); s = hit + nlen) {
        buf_put(out, s, (size_t)(hit - s));
        buf_puts(out, rep);
    }
    buf_puts(out, s);
}

/* A later setter's value can be found inside the "${name}" an earlier one wrote, so the comment can grow with
 * every setter; past this size (in proportion to the value) the step fails instead of filling memory. */
#define SEQUENTIAL_GROWTH 64
#define SEQUENTIAL_SLACK 1024

/* v0.1.0: each setter whose value the field's value contains replaces every occurrence of that value in the
 * comment built so far, in turn. NULL when no setter value occurs; *too_long when the comment grew past the bound. */
static const char *replace_sequentially(const struct create *cs, const char *s, bool *too_long)
{
    size_t limit = SEQUENTIAL_GROWTH * strlen(s) + SEQUENTIAL_SLACK;
    buf cur = {0}, next = {0};
    buf_puts(&cur, s);
    bool any = false;
    *too_long = false;
    for (size_t k = 0; k < cs->nscalars && !*too_long; k++) {
        const struct scalar_setter *st = &cs->scalars[k];
        if (!strstr(s, st->value))
            continue;
        any = true;
        next.len = 0;
        replace_all(&next, buf_cstr(&cur), st->value, st->len, st->ref);
        buf t = cur;
        cur = next;
        next = t;
        *too_long = cur.len > limit;
    }
    const char *r = any && !*too_long ? arena_strdup(cs->c->a, buf_cstr(&cur)) : NULL;
    buf_free(&cur);
    buf_free(&next);
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
static void make_block(fn_ctx *c, node *map, uint32_t at)
{
    node *seq = map_val(map, at);
    node_set_style(seq, ST_BLOCK);
    if (node_comment(seq)) {
        if (!node_comment(map_key(map, at)))
            node_set_comment(c->a, map_key_own(c->a, map, at), node_comment(seq));
        node_set_comment(c->a, seq, NULL);
    }
}

static void mark_array(struct create *cs, node *map, uint32_t at, field_path *path)
{
    fn_ctx *c = cs->c;
    node *seq = map_val(map, at);
    size_t n = node_len(seq);
    const char **items = n ? arena_alloc(c->a, n * sizeof *items) : NULL;
    seq_foreach(seq, i, item)
        items[i] = seq_item_text(item);
    if (n > 1)
        qsort(items, n, sizeof *items, cmp_str);
    bool on_key = true; /* the comment goes on the key, else on the flow list */
    if (node_style(seq) == ST_FLOW) {
        on_key = false;
        if (any_item_holds_a_scalar_value(cs, items, n)) {
            make_block(c, map, at);
            on_key = true;
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
        if (!on_key && n > 0) {
            make_block(c, map, at);
            on_key = true;
        }
        const char *comment = arena_printf(c->a, "kpt-set: ${%s}", as->name);
        node_set_comment(c->a, on_key ? map_key_own(c->a, map, at) : seq, comment);
        buf shown = {0};
        buf_putc(&shown, '[');
        for (size_t k = 0; k < n; k++)
            buf_printf(&shown, "%s%s", k ? " " : "", items[k]);
        buf_putc(&shown, ']');
        fn_result_add(c, SEV_NONE, cs->r, field_path_with_key(c->a, path, scalar(map_key(map, at))),
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
    map_foreach(map, i, key, val)
        if (is_seq(val))
            mark_array(cs, map, i, path);
    return 0;
}

static int visit_scalar(void *ud, node *n, field_path *path)
{
    struct create *cs = ud;
    /* A comment after a multi-line value would not be read back on the value. v0.1.0 writes one anyway: its line
     * breaks go into the comment, which either breaks the value's block or, read back by apply-setters, makes the
     * first line's pattern stand for the whole text. Skipped in every version. */
    if (memchr(scalar(n), '\n', scalar_len(n)))
        return 0;
    const char *pattern;
    if (cs->v010) {
        bool too_long;
        pattern = replace_sequentially(cs, scalar(n), &too_long);
        if (too_long)
            return fn_fail_res(cs->c, cs->r, n,
                               "create-setters: the setter comment for %s grows past %d times the value's length as "
                               "setter values are found inside the names written before them",
                               field_path_str(cs->c->a, path), SEQUENTIAL_GROWTH);
    } else {
        pattern = replace_values(cs, scalar(n));
    }
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
        int yaml = setter_parse_value(c, v[i].value, &parsed);
        if (yaml < 0)
            return -1;
        if (yaml && is_seq(parsed)) {
            struct array_setter *as = &cs->arrays[cs->narrays++];
            as->name = v[i].name;
            as->n = node_len(parsed);
            as->values = as->n ? arena_alloc(c->a, as->n * sizeof *as->values) : NULL;
            for (size_t k = 0; k < as->n; k++)
                as->values[k] = seq_item_text(seq_item(parsed, k));
            if (as->n > 1)
                qsort(as->values, as->n, sizeof *as->values, cmp_str);
        } else {
            cs->scalars[cs->nscalars++] = (struct scalar_setter){v[i].name, v[i].value, strlen(v[i].value),
                                                                 arena_printf(c->a, "${%s}", v[i].name)};
        }
    }
    if (cs->nscalars > 1)
        qsort(cs->scalars, cs->nscalars, sizeof *cs->scalars, cmp_scalar);
    if (cs->v010) {
        /* v0.1.0 needs scalar setters: list setters alone are "empty" to it */
        if (!cs->nscalars)
            return fn_fail(c, c->config, "input setters list cannot be empty");
        qsort(cs->scalars, cs->nscalars, sizeof *cs->scalars, cmp_name);
        quirky_sort(cs->scalars, cs->nscalars);
    }
    return 0;
}

static int run(fn_ctx *c)
{
    struct create cs = {.c = c, .v010 = fn_version_before(&c->version, 0, 1, 1)};
    if (read_setters(c, &cs) < 0)
        return -1;
    setter_walk w = {visit_mapping, visit_scalar, &cs, {{0}}};
    int rc = 0;
    for (size_t i = 0; i < c->items->n && rc == 0; i++) {
        resource *r = c->items->v[i];
        if (!r)
            continue;
        cs.r = r;
        rc = setter_walk_tree(&w, r->root);
    }
    setter_walk_done(&w);
    if (rc < 0)
        return -1;
    /* The catalog fails here: a step that marks nothing is taken to have wrong setter values. */
    if (!cs.created)
        return fn_fail(c, c->config, "no matches for the input list of setters");
    return 0;
}

const fn_def fn_create_setters = {
    .name = "create-setters",
    .summary = "add `# kpt-set: ${name}` comments to fields whose values match the given setter values",
    .run = run,
    .releases = "0.1.0",
    .readme = {
        .does = "`# kpt-set:` comments where values match",
        .differs = "values of equal length are ordered by name (the catalog's order is random); an empty value is an "
                "error; v0.1.0: its comparator starts from the setters in name order (the catalog starts from Go's "
                "random map order), multi-line values get no comment (v0.1.0's comment breaks the value's block or, "
                "read back by apply-setters, makes the first line's pattern stand for the whole text), and a comment "
                "longer than 64 times the value (plus 1 KiB) is an error rather than unbounded growth",
        .versions = "v0.1.0: setters substituted one after another in the order its comparator leaves them, so a later "
                "value is also found inside an earlier `${name}`; a config with only list setters is empty (`input "
                "setters list cannot be empty`) · `latest` and later tags: one pass, longest value first, multi-line "
                "values skipped",
    },
};
