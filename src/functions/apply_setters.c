/* apply-setters: writes setter values into the fields that carry a "# kpt-set: PATTERN" line comment
 * (catalog apply-setters, applysetters/apply_setters.go). Every item is processed, the Kptfile and
 * local-config objects included, as the catalog does. */
#include <string.h>

#include "functions/setters.h"

struct apply {
    fn_ctx *c;
    const resource *r;
    const setter_value *setters;
    size_t nsetters;
    int applied;
};

static const setter_value *given(const struct apply *ap, const char *name)
{
    for (size_t i = 0; i < ap->nsetters; i++)
        if (!strcmp(ap->setters[i].name, name))
            return &ap->setters[i];
    return NULL;
}

/* A field is only touched when the config names one of its setters: the others are left for later steps. */
static bool names_a_given_setter(const struct apply *ap, const setter_ref *refs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (given(ap, refs[i].name))
            return true;
    return false;
}

/* Parsed setter text carries the line numbers of the value string; they would point error messages at the
 * wrong lines of the resource's file. */
static void forget_lines(node *n)
{
    node_set_pos(n, 0, 0);
    for (uint32_t i = 0; i < node_len(n); i++) {
        if (is_map(n)) {
            forget_lines(map_key(n, i));
            forget_lines(map_val(n, i));
        } else {
            forget_lines(seq_item(n, i));
        }
    }
}

static int apply_array(struct apply *ap, node *key, node *seq, const char *pattern, field_path *path)
{
    fn_ctx *c = ap->c;
    setter_ref *refs;
    size_t nrefs = setter_refs(c->a, pattern, &refs);
    if (!names_a_given_setter(ap, refs, nrefs))
        return 0;
    node *holder = seq_comment_holder(key, seq);
    if (nrefs != 1 || refs[0].at != 0 || refs[0].len != strlen(pattern))
        return fn_fail_res(c, ap->r, holder, "invalid setter pattern for array node: %s", go_quote(c->a, pattern));
    const setter_value *sv = given(ap, refs[0].name);
    const char *comment = node_comment(holder);
    const char *field = field_path_with_key(c->a, path, scalar(key));
    if (!*sv->value) {
        /* An empty list can only be written "[]", so the comment has to follow the "]". */
        node_clear(seq);
        node_set_style(seq, ST_FLOW);
        node_set_comment(c->a, seq, comment);
        node_set_comment(c->a, key, NULL);
    } else {
        node *items = NULL;
        if (!setter_parse_value(c, sv->value, &items) || !is_seq(items))
            return fn_fail_res(c, ap->r, holder,
                               "setter \"%s\": input to array setter must be an array of values, but found %s",
                               sv->name, go_quote(c->a, sv->value));
        forget_lines(items);
        /* the items move over; seq keeps its own tag, comments and position */
        node_clear(seq);
        for (uint32_t i = 0; i < node_len(items); i++)
            seq_append(c->a, seq, seq_item(items, i));
        /* Block style, with the comment on the key; the catalog leaves a flow list's comment on the value as
         * well, which would print it twice: it is kept once, on the key. */
        node_set_style(seq, ST_BLOCK);
        node_set_comment(c->a, key, comment);
        if (holder == seq)
            node_set_comment(c->a, seq, NULL);
    }
    ap->applied++;
    fn_result_add(c, SEV_INFO, ap->r, field, "set field value to %s", go_quote(c->a, sv->value));
    return 0;
}

static int visit_mapping(void *ud, node *map, field_path *path)
{
    struct apply *ap = ud;
    for (uint32_t i = 0; i < node_len(map); i++) {
        node *key = map_key(map, i), *val = map_val(map, i);
        if (!is_seq(val))
            continue;
        const char *pattern = setter_pattern(ap->c->a, node_comment(seq_comment_holder(key, val)));
        if (pattern && apply_array(ap, key, val, pattern, path) < 0)
            return -1;
    }
    return 0;
}

/* The new value, built in one pass over the pattern: given setters first, the others recovered from the
 * current value. One pass means a value that itself contains "${x}" is written as it is; the catalog
 * substitutes setter by setter and would read it as another reference. */
static int visit_scalar(void *ud, node *n, field_path *path)
{
    struct apply *ap = ud;
    fn_ctx *c = ap->c;
    const char *pattern = setter_pattern(c->a, node_comment(n));
    if (!pattern)
        return 0;
    setter_ref *refs;
    size_t nrefs = setter_refs(c->a, pattern, &refs);
    if (!names_a_given_setter(ap, refs, nrefs))
        return 0;
    const char **recovered = NULL;
    for (size_t i = 0; i < nrefs && !recovered; i++)
        if (!given(ap, refs[i].name)) {
            recovered = arena_alloc(c->a, nrefs * sizeof *recovered);
            if (!setter_recover(c->a, pattern, refs, nrefs, scalar(n), recovered))
                memset(recovered, 0, nrefs * sizeof *recovered);
        }
    buf out = {0}, missing = {0};
    size_t from = 0;
    for (size_t i = 0; i < nrefs; i++) {
        buf_put(&out, pattern + from, refs[i].at - from);
        from = refs[i].at + refs[i].len;
        const setter_value *sv = given(ap, refs[i].name);
        const char *v = sv ? sv->value : NULL;
        /* a name that appears twice takes the value recovered for its last appearance, as in the catalog */
        for (size_t j = nrefs; !v && j-- > 0;)
            if (recovered && recovered[j] && !strcmp(refs[j].name, refs[i].name))
                v = recovered[j];
        if (v) {
            buf_puts(&out, v);
        } else {
            buf_printf(&missing, "%s${%s}", missing.len ? " " : "", refs[i].name);
            buf_put(&out, pattern + refs[i].at, refs[i].len);
        }
    }
    buf_puts(&out, pattern + from);
    if (missing.len) {
        const char *list = arena_strndup(c->a, missing.data, missing.len);
        buf_free(&out);
        buf_free(&missing);
        return fn_fail_res(c, ap->r, n, "values for setters [%s] must be provided", list);
    }
    /* The tag goes so the new text is read for what it is ("3" for replicas becomes a number); the style stays,
     * so a quoted value stays a string. An empty value would read as null unless quoted. */
    const char *text = buf_cstr(&out);
    scalar_set(c->a, n, text, strlen(text), SCALAR_AS_WRITTEN);
    buf_free(&out);
    buf_free(&missing);
    if (!scalar_len(n))
        node_set_style(n, ST_DOUBLE);
    ap->applied++;
    fn_result_add(c, SEV_INFO, ap->r, field_path_str(c->a, path), "set field value to %s", go_quote(c->a, scalar(n)));
    return 0;
}

static int run(fn_ctx *c)
{
    if (!c->config)
        return fn_fail(c, NULL, "apply-setters needs a functionConfig: a ConfigMap whose `data` holds the setter values");
    if (!is_map(c->config))
        return fn_fail(c, c->config, "apply-setters: the functionConfig must be an object with a `data` map of setter values");
    struct apply ap = {c, NULL, NULL, 0, 0};
    setter_value *setters;
    if (setters_from_data(c, map_get(c->config, "data"), "apply-setters", &setters, &ap.nsetters) < 0)
        return -1;
    ap.setters = setters;
    setter_walk w = {visit_mapping, visit_scalar, &ap, {{0}}};
    int rc = 0;
    for (size_t i = 0; i < c->items->n && rc == 0 && ap.nsetters; i++) {
        resource *r = c->items->v[i];
        if (!r)
            continue;
        ap.r = r;
        rc = setter_walk_tree(&w, r->root);
    }
    setter_walk_done(&w);
    if (rc < 0)
        return -1;
    if (!ap.applied)
        fn_result_add(c, SEV_WARNING, NULL, NULL, "no matches for input setter(s)");
    return 0;
}

const fn_def fn_apply_setters = {
    "apply-setters",
    "write setter values into fields marked with `# kpt-set: ${name}` comments",
    run,
};
