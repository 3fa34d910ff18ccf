/* starlark: runs a package author's Starlark script over the items (catalog starlark, kyaml's starlark runtime).
 * Config: a ConfigMap (data.source; every data key is also a param) or a StarlarkRun (source, params). The script
 * sees ctx.resource_list, a dict {apiVersion, kind, items, functionConfig} converted from our trees (ints stay
 * ints, null None, quoted texts strings), and may edit, add, remove and reorder items. What it leaves is converted
 * back: a value that did not change keeps its node (style, comments), existing keys keep their order and new keys
 * follow them sorted by name (kyaml writes maps sorted; kpt puts the input's order back after the function).
 * The script is untrusted: it runs under the operator's CMP_STARLARK_* budgets, sees an empty ctx.environment (the
 * catalog exposes the container's environment; here that would be the sidecar's secrets), no ctx.open_api, and can
 * load only krmfn.star and encoding/json.star (the catalog's starlib modules include http). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "functions/function.h"
#include "starlark/starlark.h"
#include "yaml/scalar.h"

typedef struct { sl_val v; const node *n; } origin;

typedef struct {
    fn_ctx *c;
    sl_vm *vm;
    origin *o; /* value -> the input node it came from (pointer hash) */
    size_t cap, n;
    bool keep_order; /* writing an input item back: its keys keep their order (a new object's are sorted) */
    /* one string value per key text: the tree interns its keys, so 10,000 objects' "metadata" is one pointer and
     * becomes one string (hashed once) instead of 10,000 */
    origin *keys;
    size_t kcap, kn;
} conv;

static size_t ohash(sl_val v, size_t cap) { return ((uintptr_t)v >> 4) * 0x9E3779B97F4A7C15ull >> 20 & (cap - 1); }

static void remember(conv *cv, sl_val v, const node *n)
{
    if (cv->n * 4 >= cv->cap * 3) { /* at most 3/4 full (10,000 objects remember some 300,000 values) */
        size_t cap = cv->cap ? cv->cap * 2 : 1024;
        origin *no = xcalloc(cap, sizeof *no);
        for (size_t i = 0; i < cv->cap; i++)
            if (cv->o[i].v) {
                size_t h = ohash(cv->o[i].v, cap);
                while (no[h].v)
                    h = (h + 1) & (cap - 1);
                no[h] = cv->o[i];
            }
        xfree(cv->o);
        cv->o = no;
        cv->cap = cap;
    }
    size_t h = ohash(v, cv->cap);
    while (cv->o[h].v)
        h = (h + 1) & (cv->cap - 1);
    cv->o[h] = (origin){v, n};
    cv->n++;
}

static const node *origin_of(conv *cv, sl_val v)
{
    if (!cv->cap)
        return NULL;
    for (size_t h = ohash(v, cv->cap); cv->o[h].v; h = (h + 1) & (cv->cap - 1))
        if (cv->o[h].v == v)
            return cv->o[h].n;
    return NULL;
}

static sl_val key_value(conv *cv, const node *k)
{
    const char *s = scalar(k) ? scalar(k) : "";
    if (cv->kn * 2 >= cv->kcap) {
        size_t cap = cv->kcap ? cv->kcap * 2 : 256;
        origin *nk = xcalloc(cap, sizeof *nk);
        for (size_t i = 0; i < cv->kcap; i++)
            if (cv->keys[i].v) {
                size_t h = ohash((sl_val)(uintptr_t)cv->keys[i].n, cap);
                while (nk[h].v)
                    h = (h + 1) & (cap - 1);
                nk[h] = cv->keys[i];
            }
        xfree(cv->keys);
        cv->keys = nk;
        cv->kcap = cap;
    }
    /* by the text's address, the text compared too (a key the tree did not intern is still right) */
    size_t h = ohash((sl_val)(uintptr_t)s, cv->kcap);
    for (; cv->keys[h].v; h = (h + 1) & (cv->kcap - 1))
        if ((const char *)cv->keys[h].n == s) {
            size_t len;
            const char *t = sl_str_data(cv->keys[h].v, &len);
            if (len == scalar_len(k) && !memcmp(t, s, len))
                return cv->keys[h].v;
        }
    sl_val v = sl_str(cv->vm, s, scalar_len(k));
    cv->keys[h] = (origin){v, (const node *)(uintptr_t)s};
    cv->kn++;
    return v;
}

/* ---- tree -> value ---- */
static sl_val scalar_value(conv *cv, const node *n)
{
    const char *s = scalar(n);
    size_t len = scalar_len(n);
    switch (node_type(n)) {
    case T_NULL: return sl_none();
    case T_BOOL: return sl_bool(s[0] == 't' || s[0] == 'T');
    case T_INT: {
        char *end;
        long long v = strtoll(s, &end, 0);
        if (*end == 0 && (s[0] != '0' || len == 1 || s[1] == 'x' || s[1] == 'X'))
            return sl_int(cv->vm, v);
        if (len > 2 && s[0] == '0' && (s[1] == 'o' || s[1] == 'O')) {
            v = strtoll(s + 2, &end, 8);
            if (*end == 0)
                return sl_int(cv->vm, v);
        }
        return sl_str(cv->vm, s, len); /* out of int64: kept as its text */
    }
    case T_FLOAT: {
        const char *p = s + (*s == '+' || *s == '-');
        double d;
        if (!strcasecmp(p, ".inf"))
            d = *s == '-' ? -1.0 / 0.0 : 1.0 / 0.0;
        else if (!strcasecmp(p, ".nan"))
            d = 0.0 / 0.0;
        else
            d = strtod(s, NULL);
        return sl_float(cv->vm, d);
    }
    default: return sl_str(cv->vm, s, len);
    }
}

static sl_val to_value(conv *cv, const node *n)
{
    sl_val v;
    if (is_map(n)) {
        v = sl_dict_sized(cv->vm, node_len(n));
        map_foreach(n, i, k, val) {
            sl_dict_set(cv->vm, v, key_value(cv, k), to_value(cv, val));
        }
    } else if (is_seq(n)) {
        v = sl_list(cv->vm, node_len(n));
        seq_foreach(n, i, item)
            sl_list_append(cv->vm, v, to_value(cv, item));
    } else
        v = scalar_value(cv, n);
    if (sl_type_of(v) == SL_DICT || sl_type_of(v) == SL_LIST || sl_type_of(v) == SL_STRING || sl_type_of(v) == SL_FLOAT)
        remember(cv, v, n);
    return v;
}

/* ---- value -> tree ---- */
static int cmp_text(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void copy_comments(fn_ctx *c, node *to, const node *from)
{
    if (!from)
        return;
    if (node_comment(from))
        node_set_comment(c->a, to, node_comment(from));
    if (node_head(from))
        node_set_head(c->a, to, node_head(from));
    if (node_foot(from))
        node_set_foot(c->a, to, node_foot(from));
    node_set_pos(to, node_line(from), node_col(from));
}

/* where: the path for messages */
static node *from_value(conv *cv, sl_val v, const node *orig, const char *where, int depth)
{
    fn_ctx *c = cv->c;
    if (depth > 500) {
        fn_fail(c, NULL, "starlark: %s: the script's result is nested more than 500 levels deep", where);
        return NULL;
    }
    const node *from = origin_of(cv, v);
    switch (sl_type_of(v)) {
    case SL_DICT: {
        if (!is_map(orig) || from != orig)
            orig = is_map(from) ? from : is_map(orig) ? orig : NULL;
        if (!cv->keep_order)
            orig = NULL;
        node *m = node_map(c->a);
        size_t n = sl_len(v);
        bool *placed = xcalloc(n ? n : 1, 1);
        /* existing keys, in the input's order */
        map_foreach(orig, i, k, val) {
            sl_val kv = sl_str(cv->vm, scalar(k) ? scalar(k) : "", scalar_len(k));
            for (size_t j = 0; j < n; j++) {
                if (placed[j] || !sl_equal(cv->vm, sl_dict_key(v, j), kv))
                    continue;
                placed[j] = true;
                node *child = from_value(cv, sl_dict_val(v, j), val, where, depth + 1);
                if (!child) {
                    xfree(placed);
                    return NULL;
                }
                map_append(c->a, m, k, child);
                break;
            }
        }
        /* new keys, sorted by name */
        const char **names = xcalloc(n ? n : 1, sizeof *names);
        size_t *idx = xcalloc(n ? n : 1, sizeof *idx);
        size_t nn = 0;
        for (size_t j = 0; j < n; j++) {
            if (placed[j])
                continue;
            sl_val k = sl_dict_key(v, j);
            if (sl_type_of(k) != SL_STRING) {
                xfree(placed), xfree(names), xfree(idx);
                fn_fail(c, NULL, "starlark: %s: a map key must be a string, got %s %s", where, sl_type_name(k),
                        shown(c->a, sl_repr(cv->vm, k)));
                return NULL;
            }
            names[nn++] = sl_str_data(k, NULL);
        }
        qsort(names, nn, sizeof *names, cmp_text);
        for (size_t i = 0; i < nn; i++) {
            node *child = from_value(cv, sl_dict_get(cv->vm, v, sl_cstr(cv->vm, names[i])), NULL, where, depth + 1);
            if (!child) {
                xfree(placed), xfree(names), xfree(idx);
                return NULL;
            }
            map_set(c->a, m, names[i], child);
        }
        xfree(placed), xfree(names), xfree(idx);
        copy_comments(c, m, orig);
        return m;
    }
    case SL_LIST:
    case SL_TUPLE: {
        if (!is_seq(orig) || (from && from != orig))
            orig = is_seq(from) ? from : NULL;
        node *s = node_seq(c->a);
        size_t n = sl_len(v);
        for (size_t i = 0; i < n; i++) {
            sl_val item = sl_index(v, i);
            const node *io = origin_of(cv, item);
            if (!io && orig && i < node_len(orig))
                io = seq_item(orig, (uint32_t)i);
            node *child = from_value(cv, item, io, where, depth + 1);
            if (!child)
                return NULL;
            seq_append(c->a, s, child);
        }
        if (orig)
            node_set_style(s, node_style(orig));
        copy_comments(c, s, orig);
        return s;
    }
    case SL_NONE:
        if (is_scalar(orig) && node_type(orig) == T_NULL)
            return node_clone(c->a, orig);
        return node_scalar(c->a, "null", 4, ST_PLAIN);
    case SL_BOOL: {
        bool b = sl_truth(v);
        if (is_scalar(orig) && node_type(orig) == T_BOOL && (scalar(orig)[0] == 't' || scalar(orig)[0] == 'T') == b)
            return node_clone(c->a, orig);
        node *r = node_scalar(c->a, b ? "true" : "false", b ? 4 : 5, ST_PLAIN);
        copy_comments(c, r, orig);
        return r;
    }
    case SL_INT: {
        const char *text = sl_repr(cv->vm, v);
        if (is_scalar(orig) && node_type(orig) == T_INT && sl_equal(cv->vm, scalar_value(cv, orig), v))
            return node_clone(c->a, orig);
        node *r = node_scalar(c->a, text, strlen(text), ST_PLAIN);
        copy_comments(c, r, orig);
        return r;
    }
    case SL_FLOAT: {
        if (from && is_scalar(from) && node_type(from) == T_FLOAT)
            return node_clone(c->a, from);
        const char *text = sl_repr(cv->vm, v);
        /* Go's yaml writes floats with strconv 'g': no ".0" on whole numbers, .inf and .nan spelled as YAML */
        char buf[64];
        double d = sl_as_float(v);
        if (d != d)
            text = ".nan";
        else if (d > 1e308 * 10)
            text = ".inf";
        else if (d < -1e308 * 10)
            text = "-.inf";
        else {
            snprintf(buf, sizeof buf, "%s", text);
            size_t l = strlen(buf);
            if (l > 2 && !strcmp(buf + l - 2, ".0"))
                buf[l - 2] = 0;
            text = buf;
        }
        node *r = node_scalar(c->a, text, strlen(text), ST_PLAIN);
        copy_comments(c, r, orig);
        return r;
    }
    case SL_STRING: {
        size_t len;
        const char *s = sl_str_data(v, &len);
        if (is_scalar(orig) && node_type(orig) == T_STR && scalar_len(orig) == len && !memcmp(scalar(orig), s, len))
            return node_clone(c->a, orig);
        if (from && is_scalar(from) && node_type(from) == T_STR)
            return node_clone(c->a, from);
        if (memchr(s, 0, len)) {
            fn_fail(c, NULL, "starlark: %s: a string holds a NUL byte, which YAML cannot carry", where);
            return NULL;
        }
        node *r = node_str(c->a, arena_strndup(c->a, s, len));
        copy_comments(c, r, orig);
        return r;
    }
    default:
        fn_fail(c, NULL, "starlark: %s: a %s cannot be written as YAML", where, sl_type_name(v));
        return NULL;
    }
}

/* ---- krmfn.star ---- */
static const char *field_str(sl_vm *vm, sl_val obj, const char *a, const char *b)
{
    if (sl_type_of(obj) != SL_DICT)
        return "";
    sl_val v = sl_dict_get(vm, obj, sl_cstr(vm, a));
    if (v && b)
        v = sl_type_of(v) == SL_DICT ? sl_dict_get(vm, v, sl_cstr(vm, b)) : NULL;
    return v && sl_type_of(v) == SL_STRING ? sl_str_data(v, NULL) : "";
}

static const char *want_str(sl_vm *vm, const char *fn, sl_val v)
{
    if (sl_type_of(v) != SL_STRING)
        sl_fail(vm, "%s: got %s, want string", fn, sl_type_name(v));
    return sl_str_data(v, NULL);
}

static sl_val match_gvk(sl_vm *vm, sl_val self, int nargs, sl_val *args, int nkw, sl_val *kw, void *data)
{
    (void)self, (void)kw, (void)data;
    if (nargs != 3 || nkw)
        sl_fail(vm, "match_gvk: got %d arguments, want 3", nargs + nkw);
    return sl_bool(!strcmp(field_str(vm, args[0], "apiVersion", NULL), want_str(vm, "match_gvk", args[1])) &&
                   !strcmp(field_str(vm, args[0], "kind", NULL), want_str(vm, "match_gvk", args[2])));
}

static sl_val match_meta(sl_vm *vm, int nargs, sl_val *args, int nkw, const char *fn, const char *field)
{
    if (nargs != 2 || nkw)
        sl_fail(vm, "%s: got %d arguments, want 2", fn, nargs + nkw);
    return sl_bool(!strcmp(field_str(vm, args[0], "metadata", field), want_str(vm, fn, args[1])));
}

static sl_val match_name(sl_vm *vm, sl_val self, int nargs, sl_val *args, int nkw, sl_val *kw, void *data)
{
    (void)self, (void)kw, (void)data;
    return match_meta(vm, nargs, args, nkw, "match_name", "name");
}

static sl_val match_namespace(sl_vm *vm, sl_val self, int nargs, sl_val *args, int nkw, sl_val *kw, void *data)
{
    (void)self, (void)kw, (void)data;
    return match_meta(vm, nargs, args, nkw, "match_namespace", "namespace");
}

/* ---- the step ---- */
/* The VM's error for our one-line message: control characters (a fail() text may hold line breaks) as '?', cut at
 * 600 bytes; not shown()'s 80, which would cut off the limit the error names. */
static const char *one_line(fn_ctx *c, const char *s)
{
    size_t n = strlen(s);
    if (n > 600)
        n = 600;
    char *o = arena_strndup(c->a, s, n);
    for (char *p = o; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    return n < strlen(s) ? arena_printf(c->a, "%s...", o) : o;
}

/* A new object's file: its path annotation, else kyaml's default <namespace>/<lowercase kind>_<name>.yaml. */
static const char *new_path(fn_ctx *c, const node *root)
{
    const char *p = path_str(root, "metadata", "annotations", "internal.config.kubernetes.io/path", NULL);
    if (!p)
        p = path_str(root, "metadata", "annotations", "config.kubernetes.io/path", NULL);
    if (p && *p && *p != '/' && !strstr(p, ".."))
        return p;
    const char *kind = path_str(root, "kind", NULL), *name = path_str(root, "metadata", "name", NULL);
    const char *ns = path_str(root, "metadata", "namespace", NULL);
    char *lower = arena_strdup(c->a, kind ? kind : "");
    for (char *q = lower; *q; q++)
        if (*q >= 'A' && *q <= 'Z')
            *q = (char)(*q - 'A' + 'a');
    if (ns && *ns && !strchr(ns, '/') && strcmp(ns, ".."))
        return arena_printf(c->a, "%s/%s_%s.yaml", ns, lower, name ? name : "");
    return arena_printf(c->a, "%s_%s.yaml", lower, name ? name : "");
}

typedef struct {
    conv *cv;
    sl_val items, rl;
    sl_val *input; /* the input items' dicts, as built: the script may change the items list itself */
    const node *source;
    int rc; /* write_back: -1 when it failed through fn_fail */
} step;

static void build_input(sl_vm *vm, void *arg)
{
    step *st = arg;
    conv *cv = st->cv;
    fn_ctx *c = cv->c;
    st->items = sl_list(vm, c->items->n);
    st->input = arena_alloc(c->a, (c->items->n + 1) * sizeof *st->input);
    for (size_t i = 0; i < c->items->n; i++) {
        st->input[i] = to_value(cv, c->items->v[i]->root);
        sl_list_append(vm, st->items, st->input[i]);
    }
    sl_val fc = to_value(cv, c->config);
    st->rl = sl_dict(vm);
    sl_dict_set(vm, st->rl, sl_cstr(vm, "apiVersion"), sl_cstr(vm, "config.kubernetes.io/v1"));
    sl_dict_set(vm, st->rl, sl_cstr(vm, "kind"), sl_cstr(vm, "ResourceList"));
    sl_dict_set(vm, st->rl, sl_cstr(vm, "items"), st->items);
    sl_dict_set(vm, st->rl, sl_cstr(vm, "functionConfig"), fc);
    const char *ctx_names[] = {"resource_list", "environment", "open_api"};
    sl_val ctx_vals[] = {st->rl, sl_dict(vm), sl_dict(vm)};
    sl_predeclare(vm, "ctx", sl_struct(vm, "struct", 3, ctx_names, ctx_vals));
    const char *krm_names[] = {"match_gvk", "match_name", "match_namespace"};
    sl_val krm_vals[] = {sl_builtin(vm, "match_gvk", match_gvk, NULL), sl_builtin(vm, "match_name", match_name, NULL),
                         sl_builtin(vm, "match_namespace", match_namespace, NULL)};
    const char *km[] = {"krmfn"};
    sl_val kv[] = {sl_module_value(vm, "krmfn", 3, krm_names, krm_vals)};
    sl_add_module(vm, "krmfn.star", sl_module_value(vm, "krmfn.star", 1, km, kv));
    const char *jm[] = {"json"};
    sl_val jv[] = {sl_json_module(vm)};
    sl_add_module(vm, "encoding/json.star", sl_module_value(vm, "encoding/json.star", 1, jm, jv));
}

/* The input items' dicts (as built, whatever the script did to the list), to find which input an output item is
 * (scanning them all for each output item made a script over n items cost n^2): the item after the last one found is tried first, as a script that edits in
 * place leaves them in order, and only an output out of that order builds the table of all of them. */
typedef struct inputs {
    arena *a;
    const sl_val *v;
    size_t n, next;
    origin *tab; /* dict -> index (in the node pointer's place), cap slots */
    size_t cap;
} inputs;

static size_t input_index(inputs *in, sl_val it)
{
    if (in->next < in->n && in->v[in->next] == it)
        return in->next;
    if (!in->tab) {
        in->cap = 16;
        while (in->cap < 2 * in->n)
            in->cap *= 2;
        in->tab = arena_alloc(in->a, in->cap * sizeof *in->tab);
        memset(in->tab, 0, in->cap * sizeof *in->tab);
        for (size_t j = 0; j < in->n; j++) {
            sl_val v = in->v[j];
            size_t h = ohash(v, in->cap);
            while (in->tab[h].v)
                h = (h + 1) & (in->cap - 1);
            in->tab[h] = (origin){v, (const node *)(uintptr_t)(j + 1)};
        }
    }
    for (size_t h = ohash(it, in->cap); in->tab[h].v; h = (h + 1) & (in->cap - 1))
        if (in->tab[h].v == it)
            return (size_t)(uintptr_t)in->tab[h].n - 1;
    return SIZE_MAX;
}

static void write_back(sl_vm *vm, void *arg)
{
    step *st = arg;
    conv *cv = st->cv;
    fn_ctx *c = cv->c;
    st->rc = -1;
    sl_val out_items = sl_dict_get(vm, st->rl, sl_cstr(vm, "items"));
    if (!out_items || (sl_type_of(out_items) != SL_LIST && sl_type_of(out_items) != SL_TUPLE)) {
        fn_fail(c, st->source, "starlark: ctx.resource_list[\"items\"] must be a list, got %s",
                out_items ? sl_type_name(out_items) : "nothing");
        return;
    }
    /* each input item by its dict (input_index); an item listed twice is a copy the second time */
    size_t n = sl_len(out_items);
    resource **kept = arena_alloc(c->a, (n ? n : 1) * sizeof *kept);
    bool *used = arena_alloc(c->a, c->items->n ? c->items->n : 1);
    inputs in = {c->a, st->input, c->items->n, 0, NULL, 0};
    for (size_t i = 0; i < n; i++) {
        sl_val it = sl_index(out_items, i);
        char where[64];
        snprintf(where, sizeof where, "items[%zu]", i);
        if (sl_type_of(it) != SL_DICT) {
            fn_fail(c, st->source, "starlark: %s must be a dict, got %s", where, sl_type_name(it));
            return;
        }
        size_t src = input_index(&in, it);
        if (src != SIZE_MAX && used[src])
            src = SIZE_MAX;
        in.next = src != SIZE_MAX ? src + 1 : in.next;
        cv->keep_order = src != SIZE_MAX;
        node *root = from_value(cv, it, src != SIZE_MAX ? c->items->v[src]->root : NULL, where, 0);
        if (!root)
            return;
        if (src != SIZE_MAX) {
            used[src] = true;
            resource *r = c->items->v[src];
            if (root != r->root)
                node_move(r->root, root);
            kept[i] = r;
        } else
            kept[i] = resource_new(c->a, root, c->pkg, new_path(c, root), 0);
    }
    c->items->n = 0;
    for (size_t i = 0; i < n; i++)
        rlist_push(c->items, kept[i]);
    st->rc = 0;
}

static int run(fn_ctx *c)
{
    if (!c->config || !is_map(c->config) || !node_len(c->config))
        return fn_fail(c, c->config, "FunctionConfig is missing. Expect `ConfigMap` or `StarlarkRun`");
    const node *source = NULL;
    if (config_is(c->config, "ConfigMap", "")) {
        node *data = config_data(c->config);
        source = data ? map_get(data, "source") : NULL;
    } else if (config_is(c->config, "StarlarkRun", "fn.kpt.dev")) {
        source = map_get(c->config, "source");
    } else {
        const char *av = path_str(c->config, "apiVersion", NULL), *k = path_str(c->config, "kind", NULL);
        return fn_fail(c, c->config,
                       "`functionConfig` must be either /v1, Kind=ConfigMap or fn.kpt.dev/v1alpha1, Kind=StarlarkRun, "
                       "but we got: %s, Kind=%s", shown(c->a, av ? av : ""), shown(c->a, k ? k : ""));
    }
    if (!source || !scalar(source) || !scalar_len(source)) {
        fn_failure_result(c, SEV_ERROR, NULL, NULL, "`source` must not be empty");
        return fn_fail(c, source ? source : c->config, "`source` must not be empty");
    }
    const char *name = path_str(c->config, "metadata", "name", NULL);
    if (!name || !*name)
        name = "starlark-function-run";
    const fn_host *h = c->host;
    sl_limits lim = {
        h && h->starlark_max_steps ? h->starlark_max_steps : 100000000,
        (uint64_t)(h && h->starlark_max_memory_mb ? h->starlark_max_memory_mb : 512) << 20,
        (uint32_t)(h && h->starlark_max_depth ? h->starlark_max_depth : 1000),
        h && h->starlark_max_len ? h->starlark_max_len : ((uint64_t)64 << 20),
    };
    /* a fixed start: the same work on every run of the same script (the VM draws a secret seed if keys collide) */
    sl_vm *vm = sl_new(&lim, 0x51a7c0de5eedull);
    conv cv = {c, vm, NULL, 0, 0, false, NULL, 0, 0};
    step st = {&cv, NULL, NULL, NULL, source, -1};
    int rc = -1;
    if (sl_protect(vm, name, build_input, &st) < 0)
        fn_fail(c, source, "starlark: reading the items: %s", one_line(c, sl_error(vm)));
    else if (sl_exec(vm, name, scalar(source), scalar_len(source)) < 0) {
        fn_failure_result(c, SEV_ERROR, NULL, NULL, "%s", one_line(c, sl_error_message(vm)));
        fn_fail(c, source, "starlark: %s", one_line(c, sl_error(vm)));
    }
    else if (c->validator) /* a validator's edits are dropped */
        rc = 0;
    else if (sl_protect(vm, name, write_back, &st) < 0)
        fn_fail(c, source, "starlark: writing the items back: %s", one_line(c, sl_error(vm)));
    else
        rc = st.rc;
    xfree(cv.o);
    xfree(cv.keys);
    sl_free(vm);
    return rc;
}

const fn_def fn_starlark = {
    .name = "starlark",
    .summary = "run a Starlark script over the items (bounded by CMP_STARLARK_*)",
    .run = run,
    .releases = "0.1.0 0.2.0 0.3.0 0.4.0 0.5.0",
    .readme = {
        .does = "runs a package author's Starlark script (go.starlark.net's dialect at 68633c9 with kpt's options: "
                "sets, global reassignment, top-level `if`/`for`/`while`, recursion) over `ctx.resource_list` "
                "(`items`, `functionConfig`); config a `ConfigMap` (`data.source`) or `StarlarkRun` (`source`, "
                "`params`); the script may edit, add, drop and reorder items; `fail()` or an error fails the render "
                "naming the config's line and the script's line",
        .differs = "an interpreter in C (`src/starlark`), bounded by `CMP_STARLARK_*` (steps, memory, call depth, value "
                "size); `ctx.environment` is empty (the catalog hands the script the container's environment: here "
                "the sidecar's) and `ctx.open_api` is empty; `load` offers `krmfn.star` and `encoding/json.star` "
                "only (the catalog's starlib also has http, which reaches the network, and modules not implemented "
                "here); `print` writes nothing; edited objects keep their keys' order and the comments of untouched "
                "values, new keys are sorted after them, a new object's keys are sorted",
        .versions = "v0.1.0–v0.5.0, `latest`, `unstable`: one behaviour",
    },
};
