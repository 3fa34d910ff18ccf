/* The values helm-controller gives helm for a HelmRelease: fluxcd/pkg chartutil's ChartValuesFromReferences,
 * MergeMaps and ReplacePathValue, and the --set parser of helm's pkg/strvals they call, on our tree. The order of
 * the steps and Go's sharing of nested maps and lists between the merged result and the inline values are kept
 * exactly: a targetPath write into a map the inline values share survives the final merge of the inline values,
 * one at the top level does not (research §3.4; fluxcd/pkg values_test.go "target path precedence over all"). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "flux/internal.h"
#include "util/diag.h"
#include "yaml/load.h"

static size_t merge_probes;

size_t flux_merge_probes(void)
{
    return merge_probes;
}

static uint64_t key_hash(const char *k)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *k; k++)
        h = (h ^ (unsigned char)*k) * 1099511628211ull;
    return h;
}

/* The merged map's keys are found through a hash table of their entries (index + 1; 0 empty) made for this merge:
 * a search of the map per key would make one merge cost its keys squared, and a release repeats the merge for each
 * targetPath reference. */
static long merge_find(const node *out, const uint32_t *tab, size_t mask, const char *k, size_t *slot)
{
    size_t s = key_hash(k) & mask;
    for (; tab[s]; s = (s + 1) & mask) {
        merge_probes++;
        if (!strcmp(scalar(map_key(out, tab[s] - 1)), k))
            return tab[s] - 1;
    }
    *slot = s;
    return -1;
}

/* key set to v in out: replaced in place, else appended (map_set's order). The key node is shared with the map it
 * comes from, not copied: a release repeats the merge per targetPath reference, and a copy of every key each time
 * was most of the memory (keys are never edited here). */
static void merge_put(arena *a, node *out, uint32_t *tab, size_t mask, const node *key, node *v)
{
    const char *k = scalar(key);
    size_t slot = 0;
    long i = merge_find(out, tab, mask, k, &slot);
    if (i >= 0) {
        map_set_val(out, (uint32_t)i, v);
        return;
    }
    map_append(a, out, key, v);
    tab[slot] = node_len(out);
}

/* x's entries, then y's (a map over a map merged into a new map), set into out, whose own entries stay unless
 * replaced. */
static void merge_in(arena *a, node *out, const node *x, const node *y)
{
    size_t n = node_len(out) + (is_map(x) ? node_len(x) : 0) + (is_map(y) ? node_len(y) : 0), cap = 8;
    while (cap < 2 * n)
        cap *= 2;
    uint32_t *tab = xcalloc(cap, sizeof *tab);
    map_foreach(out, i, key, val) {
        const char *k = scalar(key);
        size_t slot;
        if (k && merge_find(out, tab, cap - 1, k, &slot) < 0)
            tab[slot] = i + 1;
    }
    map_foreach(x, i, key, val)
        if (scalar(key))
            merge_put(a, out, tab, cap - 1, key, val);
    map_foreach(y, i, key, v) {
        const char *k = scalar(key);
        if (!k)
            continue;
        size_t slot;
        long at = merge_find(out, tab, cap - 1, k, &slot);
        node *have = at >= 0 ? map_val(out, (uint32_t)at) : NULL;
        merge_put(a, out, tab, cap - 1, key, is_map(v) && is_map(have) ? flux_merge_maps(a, have, v) : v);
    }
    xfree(tab);
}

node *flux_merge_maps(arena *a, const node *x, const node *y)
{
    node *out = node_map(a);
    if (is_map(x))
        map_reserve(a, out, node_len(x)); /* y mostly overrides x's keys: its new ones grow the map */
    merge_in(a, out, x, y);
    return out;
}

/* result = MergeMaps(result, y) where nothing but the caller holds result's top-level map (flux_chart_values' own):
 * the same map, merged in place, as a new one would be. valuesFrom repeats this merge of the inline values once per
 * targetPath reference; a new copy of the whole result each time would cost references x keys of memory. Nested
 * maps are merged into new ones, as MergeMaps does, for they may be shared with the inline values. */
static node *merge_into_own(arena *a, node *result, const node *y)
{
    merge_in(a, result, NULL, y);
    return result;
}

/* ---- helm's strvals parser (pkg/strvals/parser.go), reading "path=value" ---- */

#define MAX_NESTED_NAME_LEVEL 30
#define MAX_INDEX 65536

enum { SV_OK = 0, SV_EOF = 1, SV_ERR = -1, SV_NOT_LIST = 2 };

typedef struct sv {
    arena *a;
    const char *s;
    size_t i, n;
    bool as_string; /* ParseIntoString: every value a string */
} sv;

static int sv_fail(sv *p, const char *msg)
{
    (void)p;
    fail_here("%s", msg);
    return SV_ERR;
}

/* runesUntil: text up to one of stop (consumed, in *last), '\' taking the next character as it is. SV_EOF when
 * the text ends first (what was read is still returned). */
static int runes_until(sv *p, const char *stop, const char **out, size_t *len, int *last)
{
    /* measured first, then copied: a copy sized for the rest of the text, on every call, would make a path of many
     * short names cost its length squared */
    size_t i = p->i, w = 0;
    int rc = SV_EOF;
    *last = -1;
    while (i < p->n) {
        char c = p->s[i++];
        if (strchr(stop, c)) {
            rc = SV_OK, *last = (unsigned char)c;
            break;
        }
        if (c == '\\') {
            if (i >= p->n)
                break;
            i++;
        }
        w++;
    }
    char *v = arena_alloc(p->a, w + 1);
    for (size_t k = 0; k < w; k++) {
        if (p->s[p->i] == '\\')
            p->i++;
        v[k] = p->s[p->i++];
    }
    v[w] = 0;
    p->i = i;
    *out = v, *len = w;
    return rc;
}

static node *plain(arena *a, const char *s)
{
    return node_scalar(a, s, strlen(s), ST_PLAIN);
}

/* typedVal: true, false and null (any case), 0, a decimal int64 not starting with 0; else a string. */
static node *typed_val(sv *p, const char *v)
{
    if (p->as_string)
        return node_str(p->a, v);
    if (!strcasecmp(v, "true"))
        return plain(p->a, "true");
    if (!strcasecmp(v, "false"))
        return plain(p->a, "false");
    if (!strcasecmp(v, "null"))
        return plain(p->a, "null");
    if (!strcmp(v, "0"))
        return plain(p->a, "0");
    if (*v && *v != '0') {
        /* strconv.ParseInt(v, 10, 64): an optional sign, then decimal digits only */
        const char *d = v + (*v == '+' || *v == '-');
        bool digits = *d != 0;
        for (const char *q = d; *q && digits; q++)
            digits = *q >= '0' && *q <= '9';
        if (digits) {
            errno = 0;
            long long n = strtoll(v, NULL, 10);
            if (errno == 0)
                return plain(p->a, arena_printf(p->a, "%lld", n));
        }
    }
    return node_str(p->a, v);
}

/* valList: "{a,b}" as a list; SV_NOT_LIST (nothing consumed) when the value does not start with '{'. */
static int val_list(sv *p, node **out)
{
    *out = node_seq(p->a);
    if (p->i >= p->n)
        return SV_EOF;
    if (p->s[p->i] != '{')
        return SV_NOT_LIST;
    p->i++;
    for (;;) {
        const char *rs;
        size_t len;
        int last;
        if (runes_until(p, ",}", &rs, &len, &last) == SV_EOF)
            return sv_fail(p, "list must terminate with '}'");
        seq_append(p->a, *out, typed_val(p, rs));
        if (last == '}') {
            if (p->i < p->n && p->s[p->i] == ',')
                p->i++;
            return SV_OK;
        }
    }
}

/* val: the text up to the next ','. */
static int val(sv *p, node **out)
{
    const char *rs;
    size_t len;
    int last;
    int rc = runes_until(p, ",", &rs, &len, &last);
    *out = typed_val(p, rs);
    return rc;
}

static int key_index(sv *p, long *index)
{
    const char *v;
    size_t len;
    int last;
    if (runes_until(p, "]", &v, &len, &last) == SV_EOF)
        return sv_fail(p, "error parsing index: EOF");
    /* strconv.Atoi: an optional sign and decimal digits, within int */
    const char *d = v + (*v == '+' || *v == '-');
    bool ok = *d != 0;
    for (const char *q = d; *q && ok; q++)
        ok = *q >= '0' && *q <= '9';
    errno = 0;
    long n = ok ? strtol(v, NULL, 10) : 0;
    if (!ok || errno)
        return sv_fail(p, arena_printf(p->a, "error parsing index: strconv.Atoi: parsing \"%s\": %s", shown(p->a, v),
                                       ok ? "value out of range" : "invalid syntax"));
    *index = n;
    return SV_OK;
}

/* setIndex: within the list the item is replaced in place (the list may be shared); past its end a new, longer
 * list is made, its new items null, as Go's make and copy do. */
static int set_index(sv *p, node **list, long index, node *v)
{
    if (index < 0)
        return sv_fail(p, arena_printf(p->a, "negative %ld index not allowed", index));
    if (index > MAX_INDEX)
        return sv_fail(p, arena_printf(p->a, "index of %ld is greater than maximum supported index of %d", index,
                                       MAX_INDEX));
    if ((long)node_len(*list) <= index) {
        node *grown = node_seq(p->a);
        seq_foreach(*list, i, item)
            seq_append(p->a, grown, item);
        while ((long)node_len(grown) <= index)
            seq_append(p->a, grown, plain(p->a, "null"));
        *list = grown;
    }
    seq_set(*list, (uint32_t)index, v);
    return SV_OK;
}

static int key(sv *p, node *data, int level);

static int nested_too_deep(sv *p)
{
    return sv_fail(p, arena_printf(p->a, "value name nested level is greater than maximum supported nested level of "
                                         "%d (a '.' or a list index in a list counts one level)",
                                   MAX_NESTED_NAME_LEVEL));
}

static int list_item(sv *p, node **list, long i, int level)
{
    if (i < 0)
        return sv_fail(p, arena_printf(p->a, "negative %ld index not allowed", i));
    const char *k;
    size_t len;
    int last;
    int rc = runes_until(p, "[.=", &k, &len, &last);
    if (len)
        return sv_fail(p, arena_printf(p->a, "unexpected data at end of array index: \"%s\"", shown(p->a, k)));
    if (rc == SV_EOF)
        return SV_EOF;
    if (last == '=') {
        node *vl;
        int e = val_list(p, &vl);
        if (e == SV_OK)
            return set_index(p, list, i, vl);
        if (e == SV_EOF)
            return set_index(p, list, i, node_str(p->a, ""));
        if (e != SV_NOT_LIST)
            return e;
        node *v;
        val(p, &v);
        return set_index(p, list, i, v);
    }
    if (last == '[') {
        /* helm counts only '.' toward its limit and recurses here without one (Go's stack grows); a list in a list
         * counts too here, so "a[0][0]..." cannot nest without end */
        if (++level > MAX_NESTED_NAME_LEVEL)
            return nested_too_deep(p);
        long next;
        if (key_index(p, &next) < 0)
            return SV_ERR;
        node *crt = NULL;
        if ((long)node_len(*list) > i) {
            node *existed = seq_item(*list, (uint32_t)i);
            if (existed && !is_null(existed)) {
                if (!is_seq(existed))
                    return sv_fail(p, "unable to parse key: interface conversion: the item is not a list");
                crt = existed;
            }
        }
        if (!crt)
            crt = node_seq(p->a);
        int e = list_item(p, &crt, next, level);
        if (e != SV_OK)
            return e;
        return set_index(p, list, i, crt);
    }
    /* '.': a map in the list */
    node *inner = NULL;
    if ((long)node_len(*list) > i && is_map(seq_item(*list, (uint32_t)i)))
        inner = seq_item(*list, (uint32_t)i);
    if (!inner)
        inner = node_map(p->a);
    int e = key(p, inner, level);
    if (e != SV_OK)
        return e;
    return set_index(p, list, i, inner);
}

static void set(sv *p, node *data, const char *k, node *v)
{
    if (*k)
        map_set(p->a, data, k, v);
}

static int key(sv *p, node *data, int level)
{
    const char *k;
    size_t len;
    int last;
    int rc = runes_until(p, "=[,.", &k, &len, &last);
    if (rc == SV_EOF) {
        if (!len)
            return SV_EOF;
        return sv_fail(p, arena_printf(p->a, "key \"%s\" has no value", shown(p->a, k)));
    }
    if (last == '[') {
        long i;
        if (key_index(p, &i) < 0)
            return SV_ERR;
        node *list = map_get(data, k);
        if (list && !is_seq(list))
            return sv_fail(p, arena_printf(p->a, "unable to parse key: interface conversion: \"%s\" is not a list",
                                           shown(p->a, k)));
        if (!list)
            list = node_seq(p->a);
        int e = list_item(p, &list, i, level);
        set(p, data, k, list);
        return e;
    }
    if (last == '=') {
        node *vl;
        int e = val_list(p, &vl);
        if (e == SV_OK) {
            set(p, data, k, vl);
            return SV_OK;
        }
        if (e == SV_EOF) {
            set(p, data, k, node_str(p->a, ""));
            return SV_EOF;
        }
        if (e != SV_NOT_LIST)
            return e;
        node *v;
        val(p, &v);
        set(p, data, k, v);
        return SV_OK;
    }
    if (last == ',') {
        set(p, data, k, node_str(p->a, ""));
        return sv_fail(p, arena_printf(p->a, "key \"%s\" has no value (cannot end with ,)", shown(p->a, k)));
    }
    /* '.' */
    if (++level > MAX_NESTED_NAME_LEVEL)
        return sv_fail(p, arena_printf(p->a, "value name nested level is greater than maximum supported nested "
                                             "level of %d",
                                       MAX_NESTED_NAME_LEVEL));
    node *inner = map_get(data, k);
    if (inner && !is_map(inner))
        return sv_fail(p, arena_printf(p->a, "unable to parse key: interface conversion: \"%s\" is not a map",
                                       shown(p->a, k)));
    if (!inner)
        inner = node_map(p->a);
    int e = key(p, inner, level);
    if (e == SV_OK && !node_len(inner))
        return sv_fail(p, arena_printf(p->a, "key map \"%s\" has no value", shown(p->a, k)));
    if (node_len(inner))
        set(p, data, k, inner);
    return e;
}

/* --set-literal (pkg/strvals/literal_parser.go): names up to '=', '[' or '.', no escapes; the value is the rest of
 * the text, whole, as a string. */
static int literal_key(sv *p, node *data, int level);

static int literal_list_item(sv *p, node **list, long i, int level)
{
    if (i < 0)
        return sv_fail(p, arena_printf(p->a, "negative %ld index not allowed", i));
    if (p->i >= p->n)
        return sv_fail(p, "list index without a value");
    char c = p->s[p->i++];
    if (c == '=')
        return set_index(p, list, i, node_str(p->a, arena_strndup(p->a, p->s + p->i, p->n - p->i))),
               p->i = p->n, SV_OK;
    if (c == '[') {
        if (++level > MAX_NESTED_NAME_LEVEL) /* a list in a list counts, as in list_item */
            return nested_too_deep(p);
        long next;
        if (key_index(p, &next) < 0)
            return SV_ERR;
        node *crt = (long)node_len(*list) > i && is_seq(seq_item(*list, (uint32_t)i)) ? seq_item(*list, (uint32_t)i)
                                                                                    : node_seq(p->a);
        int e = literal_list_item(p, &crt, next, level);
        return e != SV_OK ? e : set_index(p, list, i, crt);
    }
    if (c == '.') {
        node *inner = (long)node_len(*list) > i && is_map(seq_item(*list, (uint32_t)i)) ? seq_item(*list, (uint32_t)i)
                                                                                      : node_map(p->a);
        int e = literal_key(p, inner, level);
        return e != SV_OK ? e : set_index(p, list, i, inner);
    }
    return sv_fail(p, arena_printf(p->a, "parse error: unexpected token %c", c));
}

static int literal_key(sv *p, node *data, int level)
{
    size_t start = p->i;
    while (p->i < p->n && !strchr("=[.", p->s[p->i]))
        p->i++;
    const char *k = arena_strndup(p->a, p->s + start, p->i - start);
    if (p->i >= p->n)
        return sv_fail(p, arena_printf(p->a, "key \"%s\" has no value", shown(p->a, k)));
    char c = p->s[p->i++];
    if (c == '=') {
        set(p, data, k, node_str(p->a, arena_strndup(p->a, p->s + p->i, p->n - p->i)));
        p->i = p->n;
        return SV_OK;
    }
    if (c == '[') {
        long i;
        if (key_index(p, &i) < 0)
            return SV_ERR;
        node *list = map_get(data, k);
        if (!is_seq(list))
            list = node_seq(p->a);
        int e = literal_list_item(p, &list, i, level);
        set(p, data, k, list);
        return e;
    }
    if (++level > MAX_NESTED_NAME_LEVEL)
        return sv_fail(p, arena_printf(p->a, "value name nested level is greater than maximum supported nested "
                                             "level of %d",
                                       MAX_NESTED_NAME_LEVEL));
    node *inner = map_get(data, k);
    if (!is_map(inner))
        inner = node_map(p->a);
    int e = literal_key(p, inner, level);
    if (node_len(inner))
        set(p, data, k, inner);
    return e;
}

int flux_replace_path_value(arena *a, node *values, const char *path, const char *value, bool literal)
{
    sv p = {.a = a};
    size_t vn = strlen(value);
    if (!literal && vn && (value[0] == '\'' || value[0] == '"') && value[vn - 1] == value[0]) {
        /* strings.Trim(value, `'"`): every quote of either kind at both ends */
        size_t b = 0, e = vn;
        while (b < e && (value[b] == '\'' || value[b] == '"'))
            b++;
        while (e > b && (value[e - 1] == '\'' || value[e - 1] == '"'))
            e--;
        value = arena_strndup(a, value + b, e - b);
        p.as_string = true;
    }
    p.s = arena_printf(a, "%s=%s", path, value);
    p.n = strlen(p.s);
    int rc;
    if (literal) {
        rc = literal_key(&p, values, 0);
    } else {
        while ((rc = key(&p, values, 0)) == SV_OK)
            ;
    }
    return rc == SV_ERR ? -1 : 0;
}

/* ---- ChartValuesFromReferences ---- */

static const flux_values_source *find_source(const flux_values_source *s, size_t n, const char *kind,
                                             const char *name, const char *ns)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(s[i].kind, kind) && !strcmp(s[i].name, name) && !strcmp(s[i].namespace, ns))
            return &s[i];
    return NULL;
}

/* chartutil.ReadValues: a YAML map; empty or null is an empty map; anything else an error. */
static int read_values(arena *a, strtab *st, const load_limits *lim, const char *what, const char *text, node **out)
{
    node *n = NULL;
    diag_detail d;
    if (yaml_load_one_into(a, st, lim, what, text, strlen(text), &n, &d) < 0)
        return fail_here("failed to read values data: %s%s", d.line ? arena_printf(a, "line %d: ", d.line) : "",
                         d.message);
    if (!n || is_null(n)) {
        *out = node_map(a);
        return 0;
    }
    if (!is_map(n))
        return fail_here("failed to read values data: it is not a YAML map of values");
    *out = n;
    return 0;
}

int flux_chart_values(arena *a, strtab *st, const load_limits *lim, const flux_values_source *sources, size_t nsources, const char *ns,
                      const node *inline_values, const flux_values_ref *refs, size_t nrefs, node **out,
                      long *failed_ref)
{
    node *result = node_map(a);
    *failed_ref = -1;
    for (size_t i = 0; i < nrefs; i++) {
        const flux_values_ref *r = &refs[i];
        const char *key = r->key && *r->key ? r->key : "values.yaml";
        const char *head = arena_printf(a, "could not resolve%s %s chart values reference '%s/%s' with key '%s'",
                                        r->optional ? " optional" : "", r->kind, ns, r->name, key);
        if (strcmp(r->kind, "ConfigMap") && strcmp(r->kind, "Secret")) {
            *failed_ref = (long)i;
            return fail_here("%s: unsupported values reference kind", head);
        }
        const flux_values_source *s = find_source(sources, nsources, r->kind, r->name, ns);
        if (!s) {
            if (r->optional)
                continue;
            *failed_ref = (long)i;
            return fail_here("%s: resource not found (not in the package)", head);
        }
        const char *data = path_str(s->data, key, NULL);
        bool secret = !strcmp(r->kind, "Secret");
        if (!data) {
            if (r->optional)
                continue;
            *failed_ref = (long)i;
            return fail_here("%s: key not found", head);
        }
        if (r->target_path && *r->target_path) {
            result = merge_into_own(a, result, inline_values);
            diag_detail e; /* captured: worded here, or not shown at all */
            diag_detail *outer = diag_capture(&e);
            int rc = flux_replace_path_value(a, result, r->target_path, data, r->literal);
            diag_restore(outer);
            if (rc < 0) {
                *failed_ref = (long)i;
                /* helm's --set parser reads "<targetPath>=<value>" as one text, so its error may quote the value:
                 * never a Secret's */
                if (secret)
                    return fail_here("%s: failed to merge value: targetPath '%s' with the Secret's value is not "
                                     "what helm's --set syntax takes (its error is not shown: it could quote the "
                                     "value)",
                                     head, shown(a, r->target_path));
                return fail_here("%s: failed to merge value: %s", head, e.message);
            }
            continue;
        }
        node *v = NULL;
        diag_detail e;
        diag_detail *outer = diag_capture(&e);
        int rc = read_values(a, st, lim, arena_printf(a, "%s %s/%s key %s", r->kind, ns, r->name, key), data, &v);
        diag_restore(outer);
        if (rc < 0) {
            *failed_ref = (long)i;
            if (secret)
                return fail_here("%s: the value is not a YAML map of Helm values (the error is not shown: it could "
                                 "quote the Secret)",
                                 head);
            return fail_here("%s: %s", head, e.message);
        }
        result = merge_into_own(a, result, v);
    }
    *out = merge_into_own(a, result, inline_values);
    return 0;
}

/* ---- base64 (Go's StdEncoding: padded, no white space) ---- */

static int b64(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

char *flux_base64_decode(arena *a, const char *s, size_t *len)
{
    size_t n = strlen(s);
    if (n % 4)
        return NULL;
    char *out = arena_alloc(a, n / 4 * 3 + 1);
    size_t w = 0;
    for (size_t i = 0; i < n; i += 4) {
        int v[4];
        int pad = 0;
        for (int k = 0; k < 4; k++) {
            if (s[i + k] == '=' && i + 4 == n && k >= 2) {
                v[k] = 0;
                pad++;
                continue;
            }
            if (pad || (v[k] = b64(s[i + k])) < 0)
                return NULL;
        }
        uint32_t x = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
        out[w++] = (char)(x >> 16);
        if (pad < 2)
            out[w++] = (char)(x >> 8);
        if (pad < 1)
            out[w++] = (char)x;
    }
    out[w] = 0;
    if (len)
        *len = w;
    return out;
}
