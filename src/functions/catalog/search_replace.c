/* search-replace: find fields by path and/or value and set their value or line comment (catalog search-replace,
 * searchreplace/search_replace.go and pathparser.go). What a release does:
 *  - v0.1.0: the data keys by-value, by-value-regex, by-path, put-value and put-comment; other keys are ignored; no
 *    result at all when nothing matched (so a config without a matcher does nothing, quietly);
 *  - v0.1.1: an unknown key is an error ("invalid matcher"), at least one of by-value, by-value-regex and by-path
 *    is required, and nothing matched is the result "no matches";
 *  - v0.2.0 and later, latest, unstable, no tag: by-file-path (a glob on the item's path) too, and no matcher is
 *    required again (nothing matches: "no matches").
 *
 * Where this differs from the catalog (on purpose):
 *  - v0.1.0: by-file-path is an error rather than ignored (it arrived in v0.2.0; ignoring it would edit every file
 *    where the author meant one);
 *  - ${0} in put-value/put-comment is the whole match (the catalog refuses it as unresolved), and a ${N} beyond the
 *    regex's groups is reported when the config is read, not at the first match;
 *  - in the absolute by-path + put-value case, an existing key with dots in it ("app.kubernetes.io/name") is found
 *    (the catalog creates nested maps, one per dot), and items where the path runs through a list index that does
 *    not exist, or through a missing key followed by an index, are left alone without a "Mutated" result (the
 *    catalog reports them as mutated, and in the second case leaves an empty list behind). */
#include <stdlib.h>
#include <string.h>

#include "functions/function.h"
#include "functions/krm/regex.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/fsutil.h"
#include "util/glob.h"

static const char *const config_keys[] = {"by-value", "by-value-regex", "by-path", "by-file-path", "put-value",
                                          "put-comment"};
enum { BY_VALUE, BY_REGEX, BY_PATH, BY_FILE, PUT_VALUE, PUT_COMMENT, NKEYS };

struct search {
    fn_ctx *c;
    const char *opt[NKEYS]; /* NULL when missing or empty, as the catalog treats "" */
    const node *opt_at[NKEYS];
    pcre2_code *re;
    pcre2_match_data *md;
    int match_rc; /* of the last value matched: md holds its groups */
    uint32_t groups;
    /* by-path split on '.', and the two rows of the path-matching table */
    char **pattern;
    size_t npattern;
    bool *row_prev, *row_cur;
    /* the path of the node being visited ("spec.containers[0].image" with a leading '.'), and its split form */
    buf path;
    char *scratch;
    size_t scratch_cap;
    const char **elems;
    size_t elems_cap;
    const resource *r;
    size_t results;
};

/* ---- config ---- */

/* The matcher names as the release lists them in its "invalid matcher" error. */
static const char *known_list(const fn_ctx *c)
{
    if (fn_version_before(&c->version, 0, 2, 0))
        return "[\"by-value\" \"by-value-regex\" \"by-path\" \"put-value\" \"put-comment\"]";
    return "[\"by-value\" \"by-file-path\" \"by-value-regex\" \"by-path\" \"put-value\" \"put-comment\"]";
}

static int read_config(struct search *S)
{
    fn_ctx *c = S->c;
    bool v0_1_0 = fn_version_before(&c->version, 0, 1, 1), before_0_2 = fn_version_before(&c->version, 0, 2, 0);
    /* the catalog reads the data map of whatever object it gets; no config or no data is an empty one */
    if (c->config && !is_map(c->config))
        return fn_fail(c, c->config, "search-replace needs a ConfigMap whose data has by-value, by-value-regex or "
                                     "by-path");
    const node *data = c->config ? map_get(c->config, "data") : NULL;
    if (data && !is_null(data) && !is_map(data))
        return fn_fail(c, data, "the config's data must be a map of strings");
    map_foreach(data, i, key, v) {
        const char *k = scalar(key);
        int which = 0;
        while (which < NKEYS && (!k || strcmp(k, config_keys[which])))
            which++;
        if (which == BY_FILE && v0_1_0)
            return fn_fail_key(c, data, i, "by-file-path is not supported by search-replace v0.1.0 (it arrived "
                                                "in v0.2.0); that release would ignore it and search every file");
        if (which == NKEYS || (which == BY_FILE && before_0_2)) {
            if (v0_1_0)
                continue; /* v0.1.0 reads the keys it knows and ignores the rest */
            return fn_fail_key(c, data, i, "invalid matcher \"%s\", must be one of %s", k ? k : "?",
                           known_list(c));
        }
        if (!is_scalar(v))
            return fn_fail(c, v, "%s must be a string", k);
        S->opt[which] = is_null(v) || !*scalar(v) ? NULL : scalar(v);
        S->opt_at[which] = v;
    }
    const node *at = data ? data : c->config;
    if (S->opt[BY_VALUE] && S->opt[BY_REGEX])
        return fn_fail(c, S->opt_at[BY_REGEX], "only one of [\"by-value\", \"by-value-regex\"] can be provided");
    /* only v0.1.1 required a matcher; before and after, a config without one matches nothing */
    if (!v0_1_0 && before_0_2 && !S->opt[BY_VALUE] && !S->opt[BY_REGEX] && !S->opt[BY_PATH])
        return fn_fail(c, at, "at least one of [\"by-value\", \"by-value-regex\", \"by-path\"] must be provided");
    return 0;
}

/* Every ${N} in a put pattern must name a group of the regex; ${0} is the whole match. */
static int check_groups(struct search *S, int which)
{
    const char *p = S->opt[which];
    if (!p || !S->re)
        return 0;
    for (const char *d = strstr(p, "${"); d; d = strstr(d + 2, "${")) {
        const char *q = d + 2;
        unsigned long n = 0;
        while (*q >= '0' && *q <= '9' && n <= 1000000)
            n = n * 10 + (unsigned long)(*q++ - '0');
        if (q > d + 2 && *q == '}' && n > S->groups)
            return fn_fail(S->c, S->opt_at[which], "%s refers to ${%lu} but by-value-regex has %u capture group(s)",
                           config_keys[which], n, S->groups);
    }
    return 0;
}

static int compile(struct search *S)
{
    const char *rx = S->opt[BY_REGEX];
    if (!rx)
        return 0;
    int code;
    PCRE2_SIZE off;
    S->re = regex_compile(rx, &code, &off);
    if (!S->re) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(code, msg, sizeof msg);
        return fn_fail(S->c, S->opt_at[BY_REGEX], "by-value-regex \"%s\" does not compile: %s at offset %zu", rx,
                       (const char *)msg, (size_t)off);
    }
    pcre2_pattern_info(S->re, PCRE2_INFO_CAPTURECOUNT, &S->groups);
    S->md = regex_match_data(S->re);
    if (check_groups(S, PUT_VALUE) < 0 || check_groups(S, PUT_COMMENT) < 0)
        return -1;
    return 0;
}

/* ---- paths ---- */

static size_t split_into(char *s, const char ***out, size_t *cap)
{
    size_t n = 1;
    for (const char *p = s; *p; p++)
        n += *p == '.';
    if (n > *cap) {
        *cap = n;
        *out = xrealloc(*out, n * sizeof **out);
    }
    size_t i = 0;
    (*out)[i++] = s;
    for (char *p = s; *p; p++)
        if (*p == '.') {
            *p = '\0';
            (*out)[i++] = p + 1;
        }
    return n;
}

static void prepare_pattern(struct search *S)
{
    const char *bp = S->opt[BY_PATH];
    if (!bp)
        return;
    char *copy = arena_strdup(S->c->a, bp);
    const char **parts = NULL;
    size_t cap = 0;
    S->npattern = split_into(copy, &parts, &cap);
    S->pattern = arena_alloc(S->c->a, S->npattern * sizeof *S->pattern);
    memcpy(S->pattern, parts, S->npattern * sizeof *parts);
    xfree(parts);
    S->row_prev = xmalloc((S->npattern + 1) * sizeof *S->row_prev);
    S->row_cur = xmalloc((S->npattern + 1) * sizeof *S->row_cur);
}

/* One path element against one pattern element: equal, or a list item "a[2]" against "a[*]", "*[2]" or "a[2]".
 * Only the first bracket of each is compared, as the catalog does. */
static bool element_match(const char *elem, const char *pat)
{
    if (!strcmp(elem, pat))
        return true;
    const char *eb = strchr(elem, '[');
    if (!eb)
        return false;
    const char *pb = strchr(pat, '[');
    size_t pl0 = pb ? (size_t)(pb - pat) : strlen(pat), el0 = (size_t)(eb - elem);
    if (!(pl0 == 1 && pat[0] == '*') && (pl0 != el0 || memcmp(pat, elem, el0)))
        return false;
    if (!pb)
        return false;
    const char *pe = strchr(pb + 1, '['), *ee = strchr(eb + 1, '[');
    size_t pl1 = pe ? (size_t)(pe - pb - 1) : strlen(pb + 1), el1 = ee ? (size_t)(ee - eb - 1) : strlen(eb + 1);
    if (pl1 == 2 && !memcmp(pb + 1, "*]", 2))
        return true;
    return pl1 == el1 && !memcmp(pb + 1, eb + 1, el1);
}

/* Does the '.'-joined path (leading '.' allowed) match by-path? '*' is one element, "**" any number of them. */
static bool path_match(struct search *S, const char *path)
{
    if (!S->opt[BY_PATH])
        return false;
    if (*path == '.')
        path++;
    size_t len = strlen(path);
    if (len + 1 > S->scratch_cap) {
        S->scratch_cap = 2 * (len + 1);
        S->scratch = xrealloc(S->scratch, S->scratch_cap);
    }
    memcpy(S->scratch, path, len + 1);
    size_t ne = split_into(S->scratch, &S->elems, &S->elems_cap), np = S->npattern;
    bool *prev = S->row_prev, *cur = S->row_cur;
    prev[0] = true;
    for (size_t j = 1; j <= np; j++)
        prev[j] = prev[j - 1] && !strcmp(S->pattern[j - 1], "**");
    for (size_t i = 1; i <= ne; i++) {
        cur[0] = false;
        for (size_t j = 1; j <= np; j++) {
            const char *p = S->pattern[j - 1];
            if (!strcmp(p, "**"))
                cur[j] = cur[j - 1] || prev[j];
            else if (!strcmp(p, "*") || element_match(S->elems[i - 1], p))
                cur[j] = prev[j - 1];
            else
                cur[j] = false;
        }
        bool *t = prev;
        prev = cur;
        cur = t;
    }
    return prev[np];
}

/* ---- edits ---- */

/* Go's %q, enough for messages. */
static const char *quoted(arena *a, const char *s)
{
    buf b = {0};
    buf_putc(&b, '"');
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            buf_printf(&b, "\\%c", ch);
        else if (ch == '\n')
            buf_puts(&b, "\\n");
        else if (ch == '\t')
            buf_puts(&b, "\\t");
        else if (ch < 0x20 || ch == 0x7f)
            buf_printf(&b, "\\x%02x", ch);
        else
            buf_putc(&b, (char)ch);
    }
    buf_putc(&b, '"');
    const char *out = arena_strdup(a, buf_cstr(&b));
    buf_free(&b);
    return out;
}

/* put-value/put-comment with ${N} replaced by the regex's groups for this value (matched just before, by
 * value_match, whose groups md still holds); without a regex the pattern is used as it is. */
static const char *resolve(struct search *S, const char *pattern, const char *value)
{
    if (!S->re)
        return pattern;
    int rc = S->match_rc;
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(S->md);
    buf b = {0};
    const char *p = pattern;
    while (*p) {
        const char *q = p + 2;
        unsigned long n = 0;
        if (p[0] == '$' && p[1] == '{') {
            while (*q >= '0' && *q <= '9' && n <= 1000000)
                n = n * 10 + (unsigned long)(*q++ - '0');
        }
        if (p[0] == '$' && p[1] == '{' && q > p + 2 && *q == '}' && n <= S->groups) {
            /* a group that took no part in the match gives "", as in Go */
            if (rc > 0 && n < (unsigned long)rc && ov[2 * n] != PCRE2_UNSET)
                buf_put(&b, value + ov[2 * n], ov[2 * n + 1] - ov[2 * n]);
            p = q + 1;
            continue;
        }
        buf_putc(&b, *p++);
    }
    const char *out = arena_strdup(S->c->a, b.len ? buf_cstr(&b) : "");
    buf_free(&b);
    return out;
}

/* The catalog sets the text and clears the tag, keeping the style: a plain "8080" becomes a number. A string we
 * made is first pinned to the style it would have been written in. */
static void put_scalar(arena *a, node *n, const char *text)
{
    scalar_set(a, n, text, strlen(text), SCALAR_AS_WRITTEN);
}

/* kyaml writes a line comment as "# text" unless it already starts with '#'; ours are stored without the "# ". */
static const char *comment_text(const char *c)
{
    if (*c == '#') {
        c++;
        if (*c == ' ')
            c++;
    }
    return c;
}

static void add_result(struct search *S, const char *field, const char *value)
{
    const char *verb = S->opt[PUT_VALUE] || S->opt[PUT_COMMENT] ? "Mutated field value to" : "Matched field value";
    fn_result_add(S->c, SEV_NONE, S->r, field, "%s %s", verb, quoted(S->c->a, value));
    S->results++;
}

/* 1 or 0; -1 (failed) when the regex ran into its limits: that is not "no match", which would quietly leave a
 * value the author meant to replace. The value itself may be a secret and is not shown. */
static int value_match(struct search *S, node *n, const char *path)
{
    if (S->opt[BY_VALUE])
        return !strcmp(S->opt[BY_VALUE], scalar(n));
    if (!S->re)
        return 0;
    S->match_rc = regex_search(fn_limits(S->c), S->re, S->md, scalar(n), scalar_len(n));
    if (S->match_rc < 0)
        return fn_fail(S->c, S->opt_at[BY_REGEX], "by-value-regex \"%s\" %s on the value of %s in %s (%s:%u)",
                       S->opt[BY_REGEX], regex_failure(fn_limits(S->c), S->c->a, S->match_rc),
                       *path == '.' ? path + 1 : path, res_id(S->c->a, S->r), S->r->path ? S->r->path : "?", node_line(n));
    return S->match_rc;
}

static int visit_scalar(struct search *S, node *n)
{
    const char *path = buf_cstr(&S->path);
    bool pm = path_match(S, path);
    int vm = value_match(S, n, path);
    if (vm < 0)
        return -1;
    bool by_value = S->opt[BY_VALUE] || S->opt[BY_REGEX];
    if (!((vm && pm) || (vm && !S->opt[BY_PATH]) || (pm && !by_value)))
        return 0;
    const char *old = scalar(n);
    if (S->opt[PUT_COMMENT])
        node_set_comment(S->c->a, n, comment_text(resolve(S, S->opt[PUT_COMMENT], old)));
    if (S->opt[PUT_VALUE])
        put_scalar(S->c->a, n, resolve(S, S->opt[PUT_VALUE], old));
    const char *shown = scalar(n);
    if (node_comment(n))
        shown = arena_printf(S->c->a, "%s # %s", shown, node_comment(n));
    add_result(S, *path == '.' ? path + 1 : path, shown);
    return 0;
}

/* A sequence in flow style, for the result message. */
static void flow_text(buf *b, const node *n)
{
    if (is_scalar(n)) {
        buf_puts(b, scalar(n));
        return;
    }
    bool m = is_map(n);
    buf_putc(b, m ? '{' : '[');
    for (uint32_t i = 0; i < node_len(n); i++) { /* by index: one loop for a map or a sequence */
        if (i)
            buf_puts(b, ", ");
        if (m) {
            flow_text(b, map_key(n, i));
            buf_puts(b, ": ");
            flow_text(b, map_val(n, i));
        } else {
            flow_text(b, seq_item(n, i));
        }
    }
    buf_putc(b, m ? '}' : ']');
}

/* put-comment on a key whose value is a non-empty sequence named by by-path: the comment goes on the key and the
 * sequence is written in block style, whatever the value criteria say (as in the catalog). */
static void comment_sequences(struct search *S, node *m)
{
    map_foreach(m, i, k, v) {
        if (!is_seq(v) || !node_len(v))
            continue;
        size_t mark = S->path.len;
        buf_putc(&S->path, '.');
        buf_puts(&S->path, scalar(k) ? scalar(k) : "");
        bool hit = path_match(S, buf_cstr(&S->path));
        S->path.len = mark;
        if (!hit)
            continue;
        node_set_comment(S->c->a, map_key_own(S->c->a, m, i), comment_text(S->opt[PUT_COMMENT]));
        node_set_style(v, ST_BLOCK);
        buf flow = {0};
        flow_text(&flow, v);
        add_result(S, arena_printf(S->c->a, "%s # %s", S->opt[BY_PATH], S->opt[PUT_COMMENT]), buf_cstr(&flow));
        buf_free(&flow);
    }
}

static int walk(struct search *S, node *n)
{
    size_t mark = S->path.len;
    if (is_map(n)) {
        if (S->opt[PUT_COMMENT])
            comment_sequences(S, n);
        map_foreach(n, i, key, val) {
            const char *k = scalar(key);
            buf_putc(&S->path, '.');
            buf_puts(&S->path, k ? k : "");
            int rc = walk(S, val);
            S->path.len = mark;
            if (rc < 0)
                return -1;
        }
    } else if (is_seq(n)) {
        seq_foreach(n, i, item) {
            buf_printf(&S->path, "[%u]", i);
            int rc = walk(S, item);
            S->path.len = mark;
            if (rc < 0)
                return -1;
        }
    } else if (is_scalar(n)) {
        return visit_scalar(S, n);
    }
    return 0;
}

/* ---- by-path without wildcards: set (or create) the field on every item ---- */

static bool absolute_put(const struct search *S)
{
    const char *bp = S->opt[BY_PATH];
    if (!bp || !S->opt[PUT_VALUE] || S->opt[BY_VALUE] || S->opt[BY_REGEX] || strchr(bp, '[') || strchr(bp, '*'))
        return false;
    for (size_t i = 0; i < S->npattern; i++)
        if (!*S->pattern[i])
            return false;
    return true;
}

static bool is_index(const char *s)
{
    if (!strcmp(s, "-"))
        return true;
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* elems[i..j] joined with '.' */
static const char *joined(arena *a, char **elems, size_t i, size_t j)
{
    const char *s = elems[i];
    for (size_t k = i + 1; k <= j; k++)
        s = arena_printf(a, "%s.%s", s, elems[k]);
    return s;
}

/* by-path is split on every '.', so "metadata.labels.app.kubernetes.io/name" must find the key
 * "app.kubernetes.io/name": at each map the longest run of elements that names an existing key wins. The catalog
 * always takes one element per level and so builds nested maps out of dotted keys; missing keys are still created
 * one element per level, as there. */
static int put_by_path(struct search *S, resource *r)
{
    arena *a = S->c->a;
    const char *bp = S->opt[BY_PATH];
    node *cur = r->root;
    size_t last = S->npattern - 1;
    for (size_t i = 0;;) {
        const char *e = S->pattern[i];
        if (is_seq(cur)) {
            if (!is_index(e) || i == last)
                return fn_fail_res(S->c, r, cur, "by-path %s: the value before `%s` is a list, so `%s` must be an "
                                   "index and cannot be the last element", bp, e, e);
            size_t idx = strcmp(e, "-") ? strtoul(e, NULL, 10) : node_len(cur) - 1;
            if (!node_len(cur) || idx >= node_len(cur))
                return 0; /* the catalog's lookup finds nothing there and sets nothing */
            cur = seq_item(cur, (uint32_t)idx);
            i++;
            continue;
        }
        if (!is_map(cur))
            return fn_fail_res(S->c, r, cur, "by-path %s: the value before `%s` is a scalar", bp, e);
        const char *key = e;
        node *v = NULL;
        size_t j = last + 1;
        while (j-- > i) {
            const char *k = joined(a, S->pattern, i, j);
            if ((v = map_get(cur, k))) {
                key = k;
                break;
            }
        }
        if (!v)
            j = i;
        if (j == last) {
            if (is_scalar(v))
                put_scalar(a, v, S->opt[PUT_VALUE]);
            else
                map_set(a, cur, key, node_scalar(a, S->opt[PUT_VALUE], strlen(S->opt[PUT_VALUE]), ST_PLAIN));
            add_result(S, bp, S->opt[PUT_VALUE]);
            return 0;
        }
        if (v && !is_scalar(v)) {
            cur = v;
        } else if (v && !is_null(v)) {
            return fn_fail_res(S->c, r, v, "by-path %s: `%s` is a scalar, so nothing can be created under it", bp,
                               key);
        } else if (is_index(S->pattern[j + 1])) {
            /* an index into a list that is not there names nothing; the catalog creates the empty list and sets
             * nothing, and making a map with the key "0" would be worse */
            return 0;
        } else {
            cur = map_ensure_map(a, cur, key);
        }
        i = j + 1;
    }
}

static int run_search(struct search *S)
{
    if (read_config(S) < 0 || compile(S) < 0)
        return -1;
    prepare_pattern(S);
    bool absolute = absolute_put(S);
    for (size_t i = 0; i < S->c->items->n; i++) {
        resource *r = S->c->items->v[i];
        if (!r)
            continue;
        int in_file = S->opt[BY_FILE] ? glob_match(fn_limits(S->c), S->opt[BY_FILE], r->path ? r->path : "") : 1;
        if (in_file < 0)
            return fn_fail(S->c, S->opt_at[BY_FILE],
                           "by-file-path \"%s\" took over %zu steps to match against the files' paths (raise it "
                           "with CMP_MAX_GLOB_STEPS)",
                           shown(S->c->a, S->opt[BY_FILE]), fn_limits(S->c)->max_glob_steps);
        if (!in_file)
            continue;
        S->r = r;
        if (absolute) {
            if (put_by_path(S, r) < 0)
                return -1;
            continue;
        }
        S->path.len = 0;
        if (walk(S, r->root) < 0)
            return -1;
    }
    /* v0.1.0 reports nothing when nothing matched */
    if (!S->results && !fn_version_before(&S->c->version, 0, 1, 1))
        fn_result_add(S->c, SEV_NONE, NULL, NULL, "no matches");
    return 0;
}

static int run(fn_ctx *c)
{
    struct search S = {.c = c};
    int rc = run_search(&S);
    if (S.md)
        pcre2_match_data_free(S.md);
    if (S.re)
        pcre2_code_free(S.re);
    xfree(S.row_prev);
    xfree(S.row_cur);
    xfree(S.scratch);
    xfree(S.elems);
    buf_free(&S.path);
    return rc;
}

const fn_def fn_search_replace = {
    .name = "search-replace",
    .summary = "find fields by path, value or regex and set their value or line comment",
    .run = run,
    .releases = "0.1.0 0.1.1 0.2.0",
    .readme = {
        .does = "find fields by path, value or regex (pcre2); set a value or a comment",
        .differs = "v0.1.0: `by-file-path` is an error (ignoring it, as that release would, edits every file); `${0}` "
                "is the whole match; a line break in `put-comment` becomes a space (a line comment is one line); an "
                "absolute path finds existing keys that contain dots",
        .versions = "v0.1.0: unknown keys ignored, no result when nothing matched · v0.1.1: an unknown key is an error, "
                "one of `by-value`, `by-value-regex`, `by-path` is required, `no matches` · ≥v0.2.0, `latest`, "
                "`unstable`: `by-file-path`, no matcher required (a config that matches nothing reports `no matches`)",
    },
};
