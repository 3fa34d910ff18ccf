/* list-setters: reports the setters of a package as results and changes nothing (catalog list-setters,
 * listsetters/list_setters.go). Setters come from the "# kpt-set:" comments of every item and from the
 * apply-setters steps of the Kptfile (those count 0 until a comment uses them). */
#include <stdlib.h>
#include <string.h>

#include "functions/krm/setters.h"
#include "yaml/emit.h"
#include "yaml/scalar.h"

struct found {
    const char *name;
    bool array;
    const char *value; /* scalar setters */
    const char *type;  /* scalar setters */
    const char **values; /* array setters */
    size_t nvalues;
    int count;
};

struct list {
    fn_ctx *c;
    struct found *v;
    size_t n, cap;
};

static struct found *lookup(struct list *ls, const char *name, bool array)
{
    for (size_t i = 0; i < ls->n; i++)
        if (ls->v[i].array == array && !strcmp(ls->v[i].name, name))
            return &ls->v[i];
    return NULL;
}

static struct found *add(struct list *ls, const char *name, bool array)
{
    if (ls->n == ls->cap) {
        ls->cap = ls->cap ? 2 * ls->cap : 16;
        ls->v = xrealloc(ls->v, ls->cap * sizeof *ls->v);
    }
    struct found *f = &ls->v[ls->n++];
    memset(f, 0, sizeof *f);
    f->name = name;
    f->array = array;
    return f;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Names sort the report; array setters come before scalar ones of the same name, as in the catalog. */
static int cmp_found(const void *a, const void *b)
{
    const struct found *x = a, *y = b;
    int d = strcmp(x->name, y->name);
    return d ? d : (int)y->array - (int)x->array;
}

static bool looks_like_timestamp(const char *s)
{
    /* YYYY-M-D, alone or followed by a time: what Go's YAML reader tags !!timestamp */
    size_t i = 0;
    while (i < 4 && s[i] >= '0' && s[i] <= '9')
        i++;
    if (i != 4 || s[i++] != '-')
        return false;
    for (int part = 0; part < 2; part++) {
        size_t d = 0;
        while (d < 2 && s[i] >= '0' && s[i] <= '9')
            d++, i++;
        if (!d || (part == 0 && s[i++] != '-'))
            return false;
    }
    return !s[i] || ((s[i] == 'T' || s[i] == 't' || s[i] == ' ') && strchr(s + i, ':'));
}

/* The value's YAML type as Go's reader tags it (the catalog prints the tag without "!!"). */
static const char *value_type(const node *n)
{
    const char *tag = node_tag(n);
    if (tag && !strncmp(tag, "!!", 2))
        return tag + 2;
    if (tag || node_style(n) != ST_PLAIN)
        return "str";
    switch (resolve_yaml12(scalar(n), scalar_len(n))) {
    case T_NULL: return "null";
    case T_BOOL: return "bool";
    case T_INT: return "int";
    case T_FLOAT: return "float";
    default: return looks_like_timestamp(scalar(n)) ? "timestamp" : "str";
    }
}

/* "${name}" -> "name"; the catalog does not check array patterns further. */
static const char *array_setter_name(arena *a, const char *pattern)
{
    size_t n = strlen(pattern);
    if (n >= 2 && !strncmp(pattern, "${", 2))
        pattern += 2, n -= 2;
    if (n && pattern[n - 1] == '}')
        n--;
    return arena_strndup(a, pattern, n);
}

static int visit_mapping(void *ud, node *map, field_path *path)
{
    struct list *ls = ud;
    arena *a = ls->c->a;
    map_foreach(map, i, key, seq) {
        if (!is_seq(seq))
            continue;
        const char *pattern = setter_pattern(a, node_comment(seq_comment_holder(key, seq)));
        if (!pattern)
            continue;
        const char *name = array_setter_name(a, pattern);
        struct found *f = lookup(ls, name, true);
        if (f) {
            f->count++;
            continue;
        }
        f = add(ls, name, true);
        f->count = 1;
        f->nvalues = node_len(seq);
        f->values = f->nvalues ? arena_alloc(a, f->nvalues * sizeof *f->values) : NULL;
        for (uint32_t k = 0; k < f->nvalues; k++)
            f->values[k] = seq_item_text(seq_item(seq, k));
        if (f->nvalues > 1)
            qsort(f->values, f->nvalues, sizeof *f->values, cmp_str);
    }
    return 0;
}

static int visit_scalar(void *ud, node *n, field_path *path)
{
    struct list *ls = ud;
    arena *a = ls->c->a;
    const char *pattern = setter_pattern(a, node_comment(n));
    if (!pattern)
        return 0;
    setter_ref *refs;
    size_t nrefs = setter_refs(a, pattern, &refs);
    const char **values = nrefs ? arena_alloc(a, nrefs * sizeof *values) : NULL;
    if (!setter_recover(a, pattern, refs, nrefs, scalar(n), values))
        return 0;
    const char *type = value_type(n);
    for (size_t i = 0; i < nrefs; i++) {
        /* each name counts once per field, with the value of its last appearance */
        bool later = false;
        for (size_t j = i + 1; j < nrefs && !later; j++)
            later = !strcmp(refs[j].name, refs[i].name);
        if (later)
            continue;
        struct found *f = lookup(ls, refs[i].name, false);
        if (f) {
            /* a Kptfile value or an interpolated field says "str"; a plain field of another type knows better */
            if (!strcmp(f->type, "str") && strcmp(type, "str"))
                f->type = type;
            f->count++;
        } else {
            f = add(ls, refs[i].name, false);
            f->value = values[i];
            f->type = type;
            f->count = 1;
        }
    }
    return 0;
}

/* The Kptfile of the package being listed: the one at path "Kptfile", preferably of this very package. */
static const resource *find_kptfile(const fn_ctx *c)
{
    const resource *any = NULL;
    for (size_t i = 0; i < c->items->n; i++) {
        const resource *r = c->items->v[i];
        if (!r || !r->path || strcmp(r->path, "Kptfile") || !res_is_kptfile(r))
            continue;
        if (r->pkg == c->pkg)
            return r;
        if (!any)
            any = r;
    }
    return any;
}

static const resource *find_config(const fn_ctx *c, const resource *kptfile, const char *path)
{
    const resource *any = NULL;
    for (size_t i = 0; i < c->items->n; i++) {
        const resource *r = c->items->v[i];
        if (!r || !r->path || strcmp(r->path, path))
            continue;
        if (r->pkg == kptfile->pkg)
            return r;
        if (!any)
            any = r;
    }
    return any;
}

struct named {
    const char *name, *value;
};

/* Adds (or overrides: later steps win) the scalar entries of a data map. */
static void merge(struct named **v, size_t *n, size_t *cap, const node *data)
{
    if (!is_map(data))
        return;
    map_foreach(data, i, key, val) {
        const char *name = scalar(key), *value = scalar(val);
        if (!name)
            continue;
        if (!value || is_null(val))
            value = "";
        size_t k = 0;
        while (k < *n && strcmp((*v)[k].name, name))
            k++;
        if (k == *n) {
            if (*n == *cap) {
                *cap = *cap ? 2 * *cap : 16;
                *v = xrealloc(*v, *cap * sizeof **v);
            }
            (*n)++;
        }
        (*v)[k] = (struct named){name, value};
    }
}

/* One list item as the catalog shows it: the item written as YAML on one line. */
static const char *item_text(arena *a, const node *item)
{
    buf b = {0};
    emit_yaml(&b, item, NULL);
    size_t out = 0;
    for (size_t i = 0; i < b.len; i++)
        if (b.data[i] != '\n')
            b.data[out++] = b.data[i];
    const char *s = arena_strndup(a, b.data ? b.data : "", out);
    buf_free(&b);
    return s;
}

/* Setters declared by the Kptfile's apply-setters steps (inline configMap or configPath). Steps whose config
 * cannot be found are skipped; the catalog then drops every Kptfile setter, which lists less than there is. */
static int add_kptfile_setters(struct list *ls)
{
    fn_ctx *c = ls->c;
    const resource *kf = find_kptfile(c);
    const node *mutators = kf ? path_get(kf->root, "pipeline", "mutators", NULL) : NULL;
    if (!is_seq(mutators))
        return 0;
    struct named *v = NULL;
    size_t n = 0, cap = 0;
    seq_foreach(mutators, i, step) {
        const char *image = path_str(step, "image", NULL);
        if (!is_map(step) || !image || !strstr(image, "apply-setters"))
            continue;
        const node *inline_config = map_get(step, "configMap");
        const char *config_path = path_str(step, "configPath", NULL);
        if (is_map(inline_config)) {
            merge(&v, &n, &cap, inline_config);
        } else if (config_path) {
            const resource *r = find_config(c, kf, config_path);
            if (r)
                merge(&v, &n, &cap, map_get(r->root, "data"));
        }
    }
    for (size_t i = 0; i < n; i++) {
        node *parsed = NULL;
        int yaml = setter_parse_value(c, v[i].value, &parsed);
        if (yaml < 0) {
            xfree(v);
            return -1;
        }
        if (yaml && is_seq(parsed)) {
            struct found *f = add(ls, v[i].name, true);
            f->nvalues = node_len(parsed);
            f->values = f->nvalues ? arena_alloc(c->a, f->nvalues * sizeof *f->values) : NULL;
            for (uint32_t k = 0; k < f->nvalues; k++)
                f->values[k] = item_text(c->a, seq_item(parsed, k));
        } else {
            struct found *f = add(ls, v[i].name, false);
            f->value = v[i].value;
            f->type = "str";
        }
    }
    xfree(v);
    return 0;
}

static int run(fn_ctx *c)
{
    struct list ls = {.c = c};
    if (add_kptfile_setters(&ls) < 0) {
        xfree(ls.v);
        return -1;
    }
    setter_walk w = {visit_mapping, visit_scalar, &ls, {{0}}};
    for (size_t i = 0; i < c->items->n; i++)
        if (c->items->v[i])
            setter_walk_tree(&w, c->items->v[i]->root);
    setter_walk_done(&w);
    if (!ls.n) {
        xfree(ls.v);
        /* v0.1.0, the only tag, fails; the master after it (`latest`) warns */
        if (fn_version_before(&c->version, 0, 1, 1))
            return fn_fail(c, NULL, "list-setters: no setters found");
        fn_result_add(c, SEV_WARNING, NULL, NULL, "no setters found");
        return 0;
    }
    qsort(ls.v, ls.n, sizeof *ls.v, cmp_found);
    for (size_t i = 0; i < ls.n; i++) {
        const struct found *f = &ls.v[i];
        if (f->array) {
            buf b = {0};
            for (size_t k = 0; k < f->nvalues; k++)
                buf_printf(&b, "%s%s", k ? ", " : "", f->values[k]);
            fn_result_add(c, SEV_NONE, NULL, NULL, "Name: %s, Value: [%s], Type: array, Count: %d", f->name,
                          buf_cstr(&b), f->count);
            buf_free(&b);
        } else {
            fn_result_add(c, SEV_NONE, NULL, NULL, "Name: %s, Value: %s, Type: %s, Count: %d", f->name, f->value,
                          f->type, f->count);
        }
    }
    xfree(ls.v);
    return 0;
}

const fn_def fn_list_setters = {
    .name = "list-setters",
    .summary = "report the setters of a package (`# kpt-set:` comments and Kptfile apply-setters values); changes nothing",
    .run = run,
    .releases = "0.1.0",
    .readme = {
        .does = "reports setters, changes nothing",
        .differs = "steps whose config cannot be found are skipped rather than dropping every Kptfile setter",
        .versions = "v0.1.0: no setters is an error · `latest` and later tags: a warning `no setters found`, exit 0",
    },
};
