/* Setter comments, patterns and values shared by apply-setters, create-setters and list-setters. */
#include "functions/krm/setters.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "yaml/load.h"

#define SETTER_PREFIX "kpt-set: "

const char *setter_pattern(arena *a, const char *comment)
{
    size_t pl = sizeof SETTER_PREFIX - 1;
    if (!comment || strncmp(comment, SETTER_PREFIX, pl))
        return NULL;
    const char *s = comment + pl;
    while (*s && isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    /* an empty pattern marks nothing: the catalog treats it like no setter comment */
    return n ? arena_strndup(a, s, n) : NULL;
}

const node *seq_comment_holder(const node *key, const node *seq)
{
    return node_style(seq) == ST_FLOW ? seq : key;
}

size_t setter_refs(arena *a, const char *pattern, setter_ref **out)
{
    size_t n = 0;
    for (const char *p = strstr(pattern, "${"); p; p = strstr(p, "${")) {
        const char *close = strchr(p + 2, '}');
        if (!close)
            break;
        n++;
        p = close + 1;
    }
    setter_ref *refs = n ? arena_alloc(a, n * sizeof *refs) : NULL;
    size_t i = 0;
    for (const char *p = strstr(pattern, "${"); p && i < n; p = strstr(p, "${")) {
        const char *close = strchr(p + 2, '}');
        refs[i++] = (setter_ref){arena_strndup(a, p + 2, (size_t)(close - p - 2)), (size_t)(p - pattern),
                                 (size_t)(close + 1 - p)};
        p = close + 1;
    }
    *out = refs;
    return n;
}

/* Backtracking over greedy groups, as a leftmost-first regex engine would try them; failed (group, position)
 * pairs are remembered so that the search stays polynomial. */
struct matcher {
    const char *v;
    size_t vlen;
    const char **lit; /* nrefs + 1 literal pieces between the references */
    size_t *litlen;
    size_t nrefs;
    size_t *cap_at, *cap_len;
    unsigned char *dead;
};

static bool literal_at(const struct matcher *m, size_t k, size_t pos)
{
    return pos + m->litlen[k] <= m->vlen && !memcmp(m->v + pos, m->lit[k], m->litlen[k]);
}

static bool match_group(struct matcher *m, size_t g, size_t pos)
{
    unsigned char *dead = &m->dead[g * (m->vlen + 1) + pos];
    if (*dead)
        return false;
    size_t max = 0;
    while (pos + max < m->vlen && m->v[pos + max] != '\n') /* Go's "." stops at newlines */
        max++;
    for (size_t len = max + 1; len-- > 0;) {
        size_t next = pos + len;
        if (!literal_at(m, g + 1, next))
            continue;
        if (g + 1 == m->nrefs || match_group(m, g + 1, next + m->litlen[g + 1])) {
            m->cap_at[g] = pos;
            m->cap_len[g] = len;
            return true;
        }
    }
    *dead = 1;
    return false;
}

/* Longer values would make the quadratic search noticeable, and every reference is a level of recursion;
 * setter-tagged fields are short and name a few setters in practice. */
#define MAX_RECOVER_LEN 4096
#define MAX_RECOVER_REFS 256

bool setter_recover(arena *a, const char *pattern, const setter_ref *refs, size_t nrefs, const char *value,
                    const char **values)
{
    size_t vlen = strlen(value);
    if (!nrefs || nrefs > MAX_RECOVER_REFS || vlen > MAX_RECOVER_LEN)
        return false;
    struct matcher m = {value, vlen, NULL, NULL, nrefs, NULL, NULL, NULL};
    m.lit = arena_alloc(a, (nrefs + 1) * sizeof *m.lit);
    m.litlen = arena_alloc(a, (nrefs + 1) * sizeof *m.litlen);
    size_t from = 0;
    for (size_t i = 0; i <= nrefs; i++) {
        size_t to = i < nrefs ? refs[i].at : strlen(pattern);
        m.lit[i] = pattern + from;
        m.litlen[i] = to - from;
        if (i < nrefs)
            from = refs[i].at + refs[i].len;
    }
    m.cap_at = arena_alloc(a, nrefs * sizeof *m.cap_at);
    m.cap_len = arena_alloc(a, nrefs * sizeof *m.cap_len);
    m.dead = xcalloc(nrefs, vlen + 1);
    bool found = false;
    for (size_t start = 0; start <= vlen && !found; start++)
        found = literal_at(&m, 0, start) && match_group(&m, 0, start + m.litlen[0]);
    xfree(m.dead);
    if (!found)
        return false;
    for (size_t i = 0; i < nrefs; i++) {
        if (!m.cap_len[i])
            return false; /* the catalog gives up when any value would be empty */
        values[i] = arena_strndup(a, value + m.cap_at[i], m.cap_len[i]);
    }
    return true;
}

size_t field_path_push_key(field_path *p, const char *key)
{
    size_t mark = p->b.len;
    buf_putc(&p->b, '.');
    buf_puts(&p->b, key ? key : "");
    return mark;
}

size_t field_path_push_index(field_path *p, size_t i)
{
    size_t mark = p->b.len;
    buf_printf(&p->b, "[%zu]", i);
    return mark;
}

void field_path_pop(field_path *p, size_t mark)
{
    p->b.len = mark;
}

const char *field_path_str(arena *a, field_path *p)
{
    const char *s = p->b.data ? p->b.data : "";
    size_t n = p->b.len;
    if (n && s[0] == '.')
        s++, n--;
    return arena_strndup(a, s, n);
}

const char *field_path_with_key(arena *a, field_path *p, const char *key)
{
    size_t mark = field_path_push_key(p, key);
    const char *s = field_path_str(a, p);
    field_path_pop(p, mark);
    return s;
}

static int walk(setter_walk *w, node *n)
{
    int rc = 0;
    switch (node_kind(n)) {
    case N_MAP:
        if (w->mapping && (rc = w->mapping(w->ud, n, &w->path)) < 0)
            return rc;
        map_foreach(n, i, key, val) {
            size_t mark = field_path_push_key(&w->path, scalar(key));
            rc = walk(w, val);
            field_path_pop(&w->path, mark);
            if (rc < 0)
                return rc;
        }
        return 0;
    case N_SEQ:
        seq_foreach(n, i, item) {
            size_t mark = field_path_push_index(&w->path, i);
            rc = walk(w, item);
            field_path_pop(&w->path, mark);
            if (rc < 0)
                return rc;
        }
        return 0;
    default:
        return w->scalar ? w->scalar(w->ud, n, &w->path) : 0;
    }
}

int setter_walk_tree(setter_walk *w, node *root)
{
    w->path.b.len = 0;
    return root ? walk(w, root) : 0;
}

void setter_walk_done(setter_walk *w)
{
    buf_free(&w->path.b);
}

int setters_from_data(fn_ctx *c, const node *data, const char *who, setter_value **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!data || is_null(data))
        return 0;
    if (!is_map(data))
        return fn_fail(c, data, "%s: `data` must be a mapping of setter names to values", who);
    uint32_t len = node_len(data);
    setter_value *v = len ? arena_alloc(c->a, len * sizeof *v) : NULL;
    map_foreach(data, i, k, val) {
        const char *name = scalar(k);
        if (!is_scalar(val))
            return fn_fail(c, val,
                           "%s: setter \"%s\" must have a string value, not a %s (write a list setter as a YAML "
                           "string, e.g. `%s: \"[a, b]\"`)",
                           who, name, is_map(val) ? "mapping" : "list", name);
        if (is_null(val))
            return fn_fail(c, val, "%s: setter \"%s\" has no value (write `%s: \"\"` for an empty one)", who, name,
                           name);
        v[i] = (setter_value){name, scalar(val), val};
    }
    *out = v;
    *n = len;
    return 0;
}

int setter_parse_value(fn_ctx *c, const char *text, node **out)
{
    *out = NULL;
    diag_detail not_yaml; /* dropped: a value that is not YAML is a plain string to the callers, not a render error */
    if (yaml_load_one_into(c->a, c->st, limits_yaml(fn_limits(c)), "setter value", text, strlen(text), out,
                           &not_yaml) < 0) {
        *out = NULL;
        if (yaml_over_limit(&not_yaml))
            return fn_fail(c, NULL, "setter value \"%s\", line %d: %s", shown(c->a, text), not_yaml.line,
                           not_yaml.message);
        return 0;
    }
    return 1;
}

const char *seq_item_text(const node *item)
{
    const char *s = scalar(item);
    return s ? s : "";
}

const char *go_quote(arena *a, const char *s)
{
    buf b = {0};
    buf_putc(&b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': buf_puts(&b, "\\\""); break;
        case '\\': buf_puts(&b, "\\\\"); break;
        case '\a': buf_puts(&b, "\\a"); break;
        case '\b': buf_puts(&b, "\\b"); break;
        case '\f': buf_puts(&b, "\\f"); break;
        case '\n': buf_puts(&b, "\\n"); break;
        case '\r': buf_puts(&b, "\\r"); break;
        case '\t': buf_puts(&b, "\\t"); break;
        case '\v': buf_puts(&b, "\\v"); break;
        default:
            if (*p < 0x20 || *p == 0x7f)
                buf_printf(&b, "\\x%02x", *p);
            else
                buf_putc(&b, (char)*p);
        }
    }
    buf_putc(&b, '"');
    const char *r = arena_strndup(a, b.data, b.len);
    buf_free(&b);
    return r;
}
