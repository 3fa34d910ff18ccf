/* Catalog release versions: what a step's tag means, as the registries publish it. gcr.io/kpt-fn pushed vX.Y.Z,
 * vX.Y and vX for each release (no latest); ghcr.io/kptdev/krm-functions-catalog carries the same tags plus `latest`
 * and short-SHA tags built from master; `unstable` was gcr's master build. A partial tag names the newest patch. */
#include "functions/version.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "functions/function.h"
#include "util/buf.h"

/* The releases each function has had (catalog-function-versions: tags on either registry, through 2026). A tag
 * outside this table is unknown to us: it gets the newest behaviour and a warning. */
typedef struct release {
    const char *fn;
    const char *versions; /* ascending */
} release;

static const release releases[] = {
    {"apply-replacements", "0.1.0 0.1.1 0.1.2"},
    {"apply-setters", "0.1.0 0.1.1 0.2.0 0.2.1"},
    {"create-setters", "0.1.0"},
    {"enable-gcp-services", "0.1.0"},
    {"ensure-name-substring", "0.1.0 0.1.1 0.2.0"},
    {"generate-folders", "0.1.0 0.1.1"},
    {"list-setters", "0.1.0"},
    {"remove-local-config-resources", "0.1.0"},
    {"render-helm-chart", "0.1.0 0.2.0 0.2.1 0.2.2 0.3.0"},
    {"search-replace", "0.1.0 0.1.1 0.2.0"},
    {"set-annotations", "0.1.0 0.1.1 0.1.2 0.1.3 0.1.4"},
    {"set-enforcement-action", "0.1.0"},
    {"set-image", "0.1.0 0.1.1"},
    {"set-labels", "0.1.0 0.1.1 0.1.2 0.1.3 0.1.4 0.1.5 0.2.0 0.2.1 0.2.2 0.2.3 0.2.4 0.2.5"},
    {"set-namespace", "0.1.0 0.1.1 0.1.2 0.1.3 0.1.4 0.2.0 0.3.0 0.3.1 0.3.2 0.3.3 0.3.4 0.4.0 0.4.1 0.4.2 0.4.3 0.4.4 "
                      "0.4.5"},
    {"starlark", "0.1.0 0.2.0 0.3.0 0.4.0 0.5.0"},
    {"upsert-resource", "0.1.0 0.2.0"},
};

typedef struct ver {
    int p[3];
} ver;

static int cmp3(const int *a, const int *b, int k)
{
    for (int i = 0; i < k; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

bool fn_version_before(const fn_version *v, int major, int minor, int patch)
{
    if (!v || !v->pinned)
        return false;
    int a[3] = {v->major, v->minor, v->patch}, b[3] = {major, minor, patch};
    return cmp3(a, b, 3) < 0;
}

const char *fn_version_str(arena *a, const fn_version *v)
{
    if (!v->pinned)
        return "latest";
    return arena_printf(a, "v%d.%d.%d", v->major, v->minor, v->patch);
}

static const char *known_list(const char *fn)
{
    for (size_t i = 0; i < sizeof releases / sizeof *releases; i++)
        if (!strcmp(releases[i].fn, fn))
            return releases[i].versions;
    return NULL;
}

/* Parses "1.2.3", "1.2", "1", each part a number or a wildcard x, X or * (which ends the version). Returns the number of
 * numeric parts (0..3), or -1 when s is not such a version. A leading v is allowed. */
static int parse_partial(const char *s, size_t len, int p[3])
{
    p[0] = p[1] = p[2] = 0;
    if (len && (*s == 'v' || *s == 'V'))
        s++, len--;
    if (!len)
        return -1;
    int k = 0;
    bool wild = false;
    size_t i = 0;
    for (int part = 0; part < 3 && i < len; part++) {
        if (s[i] == 'x' || s[i] == 'X' || s[i] == '*') {
            wild = true;
            i++;
        } else if (isdigit((unsigned char)s[i])) {
            if (wild)
                return -1;
            long n = 0;
            while (i < len && isdigit((unsigned char)s[i])) {
                n = n * 10 + (s[i] - '0');
                if (n > 100000)
                    return -1;
                i++;
            }
            p[k++] = (int)n;
        } else {
            return -1;
        }
        if (i < len) {
            if (s[i] != '.' || part == 2)
                return -1;
            i++;
            if (i == len)
                return -1;
        }
    }
    return i == len ? k : -1;
}

/* Walks the known releases of fn: calls match for each, keeps the newest that matches. */
typedef bool (*ver_pred)(const int v[3], const void *ud);

static bool newest_matching(const char *fn, ver_pred match, const void *ud, int out[3])
{
    const char *list = known_list(fn);
    bool found = false;
    for (const char *s = list; s && *s;) {
        while (*s == ' ')
            s++;
        size_t n = strcspn(s, " ");
        int v[3];
        if (n && parse_partial(s, n, v) == 3 && match(v, ud)) {
            memcpy(out, v, sizeof v);
            found = true;
        }
        s += n;
    }
    return found;
}

struct prefix {
    int p[3];
    int k;
};

static bool has_prefix(const int v[3], const void *ud)
{
    const struct prefix *pr = ud;
    return cmp3(v, pr->p, pr->k) == 0;
}

/* ---- semver constraints, as kpt's `tag:` takes them (Masterminds/semver syntax) ---- */

/* One comparison: op and a partial version with k numeric parts. */
static bool term_matches(const int v[3], const char *op, const int p[3], int k)
{
    int lo[3] = {p[0], k > 1 ? p[1] : 0, k > 2 ? p[2] : 0};
    if (!*op || !strcmp(op, "="))
        return cmp3(v, p, k) == 0;
    if (!strcmp(op, "!="))
        return cmp3(v, p, k) != 0;
    if (!strcmp(op, ">"))
        return k == 0 ? false : cmp3(v, p, k) > 0;
    if (!strcmp(op, ">="))
        return cmp3(v, lo, 3) >= 0;
    if (!strcmp(op, "<"))
        return cmp3(v, lo, 3) < 0;
    if (!strcmp(op, "<=") || !strcmp(op, "=<"))
        return k == 0 ? true : cmp3(v, p, k) <= 0;
    if (!strcmp(op, "~") || !strcmp(op, "~>")) {
        if (k == 0)
            return true;
        int hi[3] = {k == 1 ? p[0] + 1 : p[0], k == 1 ? 0 : p[1] + 1, 0};
        return cmp3(v, lo, 3) >= 0 && cmp3(v, hi, 3) < 0;
    }
    if (!strcmp(op, "^")) {
        if (k == 0)
            return true;
        int hi[3];
        if (p[0] > 0 || k == 1)
            hi[0] = p[0] + 1, hi[1] = 0, hi[2] = 0;
        else if (p[1] > 0 || k == 2)
            hi[0] = 0, hi[1] = p[1] + 1, hi[2] = 0;
        else
            hi[0] = 0, hi[1] = 0, hi[2] = p[2] + 1;
        return cmp3(v, lo, 3) >= 0 && cmp3(v, hi, 3) < 0;
    }
    return false;
}

/* Splits a constraint into its terms; calls check for each. Returns false on a syntax error. */
typedef struct cterm {
    char op[3];
    int p[3];
    int k;
} cterm;

static bool parse_term(const char *s, size_t n, cterm *t)
{
    size_t o = 0;
    while (o < n && o < 2 && strchr("=!<>~^", s[o]))
        o++;
    memcpy(t->op, s, o);
    t->op[o] = 0;
    static const char *const ops[] = {"", "=", "!=", ">", ">=", "<", "<=", "=<", "~", "~>", "^", NULL};
    bool ok = false;
    for (const char *const *q = ops; *q; q++)
        ok |= !strcmp(*q, t->op);
    if (!ok)
        return false;
    while (o < n && s[o] == ' ')
        o++;
    t->k = parse_partial(s + o, n - o, t->p);
    return t->k >= 0;
}

/* One "||" alternative: terms separated by commas or spaces, or a hyphen range "A - B". */
static int alt_matches(const char *s, size_t n, const int v[3])
{
    const char *dash = NULL;
    for (size_t i = 0; i + 2 < n; i++)
        if (s[i] == ' ' && s[i + 1] == '-' && s[i + 2] == ' ')
            dash = s + i;
    if (dash) {
        cterm a, b;
        const char *bs = dash + 3;
        size_t an = (size_t)(dash - s), bn = n - (size_t)(bs - s);
        while (an && s[an - 1] == ' ')
            an--;
        while (bn && *bs == ' ')
            bs++, bn--;
        while (bn && bs[bn - 1] == ' ')
            bn--;
        if (!parse_term(s, an, &a) || *a.op || !parse_term(bs, bn, &b) || *b.op)
            return -1;
        return term_matches(v, ">=", a.p, a.k) && term_matches(v, "<=", b.p, b.k);
    }
    int all = 1;
    size_t i = 0;
    bool any = false;
    while (i < n) {
        while (i < n && (s[i] == ' ' || s[i] == ','))
            i++;
        if (i >= n)
            break;
        size_t j = i;
        while (j < n && strchr("=!<>~^", s[j]))
            j++;
        while (j < n && s[j] == ' ') /* "> 1.2": the operator and its version may be apart */
            j++;
        while (j < n && s[j] != ' ' && s[j] != ',')
            j++;
        cterm t;
        if (!parse_term(s + i, j - i, &t))
            return -1;
        any = true;
        if (!term_matches(v, t.op, t.p, t.k))
            all = 0;
        i = j;
    }
    return any ? all : -1;
}

/* 1: v satisfies the constraint, 0: it does not, -1: not a constraint. */
static int constraint_matches(const char *c, const int v[3])
{
    int result = 0;
    for (const char *s = c;;) {
        const char *bar = strstr(s, "||");
        size_t n = bar ? (size_t)(bar - s) : strlen(s);
        int m = alt_matches(s, n, v);
        if (m < 0)
            return -1;
        result |= m;
        if (!bar)
            break;
        s = bar + 2;
    }
    return result;
}

static bool satisfies(const int v[3], const void *ud)
{
    return constraint_matches(ud, v) == 1;
}

static bool is_short_sha(const char *t)
{
    size_t n = strlen(t);
    return n >= 7 && n <= 40 && strspn(t, "0123456789abcdef") == n;
}

/* A tag as the registries publish it. */
static void resolve_tag(arena *a, const char *fn, const char *tag, const char *shown, fn_version *out,
                        const char **warning)
{
    int p[3];
    int k = parse_partial(tag, strlen(tag), p);
    if (k < 0) {
        if (!strcmp(tag, "latest") || !strcmp(tag, "unstable") || is_short_sha(tag)) {
            out->unstable = !strcmp(tag, "unstable");
            return; /* master: the newest behaviour, said plainly */
        }
        *warning = arena_printf(a, "%s: tag \"%s\" is not a release version; using the newest known behaviour",
                                fn, shown);
        return;
    }
    struct prefix pr = {{p[0], p[1], p[2]}, k};
    int v[3];
    if (!newest_matching(fn, has_prefix, &pr, v)) {
        *warning = arena_printf(a, "%s: version %s is not a release we know (known: %s); using the newest known "
                                "behaviour", fn, shown, known_list(fn));
        return;
    }
    *out = (fn_version){.pinned = true, .major = v[0], .minor = v[1], .patch = v[2]};
}

void fn_version_resolve(arena *a, const char *fn, const char *tag, const char *tag_field, fn_version *out,
                        const char **warning)
{
    *out = (fn_version){0};
    *warning = NULL;
    if (!known_list(fn))
        return; /* not a catalog function (kustomize-build): one behaviour */
    if (tag_field && *tag_field) {
        int p[3];
        const char *t = tag_field;
        while (*t == ' ')
            t++;
        if (parse_partial(t, strlen(t), p) < 0 && strcmp(t, "latest") && strcmp(t, "unstable") && !is_short_sha(t)) {
            int probe[3] = {0, 0, 0};
            if (constraint_matches(t, probe) >= 0) {
                int v[3];
                if (newest_matching(fn, satisfies, t, v))
                    *out = (fn_version){.pinned = true, .major = v[0], .minor = v[1], .patch = v[2]};
                else
                    *warning = arena_printf(a, "%s: tag constraint \"%s\" matches no release we know (known: %s); "
                                            "using the newest known behaviour", fn, t, known_list(fn));
                return;
            }
        }
        resolve_tag(a, fn, t, t, out, warning);
        return;
    }
    if (!tag || !*tag)
        return;
    resolve_tag(a, fn, tag, tag, out, warning);
}

const char *fn_ref_tag(arena *a, const char *ref)
{
    const char *tag;
    char *base = fn_ref_split(a, ref, &tag);
    if (tag)
        return tag;
    /* exec names: set-labels-v0.1.5, set-labels_v0.2 */
    for (char *p = base + strlen(base); p-- > base;)
        if ((*p == '-' || *p == '_') && p > base) {
            const char *v = p + 1 + (p[1] == 'v' || p[1] == 'V');
            int parts[3];
            if (isdigit((unsigned char)*v) && parse_partial(v, strlen(v), parts) > 0)
                return p + 1;
        }
    return NULL;
}
