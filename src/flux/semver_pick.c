/* An OCIRepository's ref.semver resolved as source-controller resolves it (getTagBySemver): of the registry's tags
 * (those ref.semverFilter matched), each read by fluxcd/pkg's version.ParseVersion (Masterminds' StrictNewVersion
 * after one leading 'v': MAJOR.MINOR.PATCH, no leading zeros, [-prerelease][+metadata]; any other tag is not a
 * version and is passed over, as there), kept when Masterminds/semver v3's Constraints.Check accepts it, and the
 * highest kept, by semver precedence, is the one pulled. The rules below are Masterminds v3.3's: a prerelease
 * version satisfies an "and" group only when one of the group's versions names a prerelease; partial versions and
 * x, X, * make a comparison "dirty" (">1.2" is ">=1.3.0", "<=1.2" any 1.2.x). What this parser does not read alike
 * is refused (a constraint error), never checked another way. */
#include <stdlib.h>
#include <string.h>

#include "flux/internal.h"

typedef struct sv {
    unsigned long long n[3];
    const char *pre; /* without the '-'; pre_len 0 when none */
    size_t pre_len;
} sv;

static bool digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool ident_char(char c)
{
    return digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
}

/* Dot-separated identifiers of [0-9A-Za-z-], none empty; for a prerelease (pre) a numeric one has no leading zero
 * (validatePrerelease, validateMetadata). */
static bool idents(const char *s, size_t n, bool pre)
{
    size_t i = 0;
    for (;;) {
        size_t j = i, digits = 0;
        while (j < n && s[j] != '.') {
            if (!ident_char(s[j]))
                return false;
            digits += digit(s[j]);
            j++;
        }
        if (j == i || (pre && digits == j - i && j - i > 1 && s[i] == '0'))
            return false;
        if (j == n)
            return true;
        i = j + 1;
    }
}

/* A number of at most 64 bits (strconv.ParseUint); strict: no leading zero. */
static const char *number(const char *s, bool strict, unsigned long long *out)
{
    if (!digit(*s))
        return NULL;
    if (strict && s[0] == '0' && digit(s[1]))
        return NULL;
    unsigned long long v = 0;
    for (; digit(*s); s++) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (~0ULL - d) / 10)
            return NULL;
        v = v * 10 + d;
    }
    *out = v;
    return s;
}

/* -prerelease and +metadata after the numbers, to the end of s[0..n) */
static bool tail(const char *s, const char *end, sv *v)
{
    const char *plus = memchr(s, '+', (size_t)(end - s));
    const char *pe = plus ? plus : end;
    if (s < pe) {
        if (*s != '-' || !idents(s + 1, (size_t)(pe - s - 1), true))
            return false;
        v->pre = s + 1, v->pre_len = (size_t)(pe - s - 1);
    }
    return !plus || idents(plus + 1, (size_t)(end - plus - 1), false);
}

/* fluxcd/pkg version.ParseVersion */
static bool parse_strict(const char *tag, sv *v)
{
    memset(v, 0, sizeof *v);
    const char *s = tag + (*tag == 'v'), *end = tag + strlen(tag);
    for (int i = 0; i < 3; i++) {
        if (i && *s++ != '.')
            return false;
        if (!(s = number(s, true, &v->n[i])))
            return false;
    }
    return tail(s, end, v);
}

/* strconv.ParseUint of a whole identifier: false when it is not a number (or overflows: Go then compares it as text) */
static bool ident_number(const char *s, size_t n, unsigned long long *out)
{
    if (!n)
        return false;
    unsigned long long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (!digit(s[i]))
            return false;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (~0ULL - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

/* Masterminds' comparePrerelease: identifier by identifier, a missing one lower, numbers below text */
static int compare_pre(const char *a, size_t an, const char *b, size_t bn)
{
    size_t i = 0, j = 0;
    while (i < an || j < bn) {
        size_t ae = i, be = j;
        while (ae < an && a[ae] != '.')
            ae++;
        while (be < bn && b[be] != '.')
            be++;
        size_t al = i < an ? ae - i : 0, bl = j < bn ? be - j : 0;
        bool aa = i < an, ba = j < bn;
        if (!(aa && ba && al == bl && !memcmp(a + i, b + j, al))) {
            if (!aa)
                return -1;
            if (!ba)
                return 1;
            unsigned long long x, y;
            bool xn = ident_number(a + i, al, &x), yn = ident_number(b + j, bl, &y);
            if (xn && yn)
                return x > y ? 1 : -1;
            if (xn != yn)
                return xn ? -1 : 1;
            size_t m = al < bl ? al : bl;
            int c = memcmp(a + i, b + j, m);
            return c > 0 || (c == 0 && al > bl) ? 1 : -1;
        }
        i = ae + 1, j = be + 1;
    }
    return 0;
}

static int compare(const sv *a, const sv *b)
{
    for (int i = 0; i < 3; i++)
        if (a->n[i] != b->n[i])
            return a->n[i] < b->n[i] ? -1 : 1;
    if (!a->pre_len || !b->pre_len)
        return a->pre_len == b->pre_len ? 0 : a->pre_len ? -1 : 1;
    return compare_pre(a->pre, a->pre_len, b->pre, b->pre_len);
}

/* ---- constraints ---- */

typedef struct atom {
    char op[3];
    sv con;
    bool dirty, minor_dirty, patch_dirty;
} atom;

#define MAX_ATOMS 64

static bool space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static bool wild(const char *s, size_t n)
{
    return n == 1 && (*s == 'x' || *s == 'X' || *s == '*');
}

/* One comparison at s (operator, spaces, version); *end after it. false: not one Masterminds reads alike. */
static bool parse_atom(const char *s, const char *lim, const char **end, atom *a)
{
    memset(a, 0, sizeof *a);
    static const char *const ops[] = {"!=", ">=", "=>", "<=", "=<", "~>", "=", ">", "<", "~", "^", NULL};
    for (const char *const *o = ops; *o; o++) {
        size_t n = strlen(*o);
        if ((size_t)(lim - s) >= n && !memcmp(s, *o, n)) {
            memcpy(a->op, *o, n);
            s += n;
            break;
        }
    }
    while (s < lim && space(*s))
        s++;
    if (s < lim && *s == 'v')
        s++;
    /* up to three components, each digits or one of x X * */
    const char *comp[3] = {0};
    size_t clen[3] = {0};
    int k = 0;
    while (k < 3) {
        if (k) {
            if (s >= lim || *s != '.' || s + 1 >= lim || !(digit(s[1]) || wild(s + 1, 1)))
                break;
            s++;
        }
        const char *b = s;
        while (s < lim && (digit(*s) || *s == 'x' || *s == 'X' || *s == '*'))
            s++;
        if (s == b)
            return false;
        comp[k] = b, clen[k] = (size_t)(s - b), k++;
    }
    const char *t = s;
    while (s < lim && (ident_char(*s) || *s == '.' || *s == '+'))
        s++;
    if (t < s && *t != '-' && *t != '+')
        return false;
    *end = s;
    int dirty_at = 3;
    for (int i = 0; i < k; i++)
        if (wild(comp[i], clen[i])) {
            dirty_at = i;
            break;
        }
    if (dirty_at == 3 && k < 3)
        dirty_at = k;
    for (int i = 0; i < k && i < dirty_at; i++) {
        char buf[32];
        if (clen[i] >= sizeof buf)
            return false;
        memcpy(buf, comp[i], clen[i]);
        buf[clen[i]] = 0;
        const char *e = number(buf, false, &a->con.n[i]);
        if (!e || *e)
            return false;
    }
    if (!tail(t, s, &a->con))
        return false;
    a->dirty = dirty_at < 3;
    a->minor_dirty = dirty_at <= 1;
    a->patch_dirty = dirty_at == 2;
    if (dirty_at == 0)
        a->minor_dirty = false; /* "*": 0.0.0, dirty alone */
    return true;
}

static bool atom_check(const atom *c, const sv *v, bool include_pre)
{
    if (v->pre_len && !include_pre)
        return false;
    const char *op = c->op;
    const sv *k = &c->con;
    if (!strcmp(op, "!=")) {
        if (c->dirty) {
            if (k->n[0] != v->n[0])
                return true;
            if (k->n[1] != v->n[1] && !c->minor_dirty)
                return true;
            if (c->minor_dirty)
                return false;
            if (k->n[2] != v->n[2] && !c->patch_dirty)
                return true;
            if (c->patch_dirty) {
                if (v->pre_len || k->pre_len)
                    return compare_pre(v->pre, v->pre_len, k->pre, k->pre_len) != 0;
                return false;
            }
        }
        return compare(v, k) != 0;
    }
    if (!strcmp(op, ">")) {
        if (!c->dirty)
            return compare(v, k) > 0;
        if (v->n[0] != k->n[0])
            return v->n[0] > k->n[0];
        if (c->minor_dirty)
            return false;
        if (c->patch_dirty)
            return v->n[1] > k->n[1];
        return compare(v, k) > 0;
    }
    if (!strcmp(op, "<"))
        return compare(v, k) < 0;
    if (!strcmp(op, ">=") || !strcmp(op, "=>"))
        return compare(v, k) >= 0;
    if (!strcmp(op, "<=") || !strcmp(op, "=<")) {
        if (!c->dirty)
            return compare(v, k) <= 0;
        if (v->n[0] > k->n[0])
            return false;
        return !(v->n[0] == k->n[0] && v->n[1] > k->n[1] && !c->minor_dirty);
    }
    bool tilde = !strcmp(op, "~") || !strcmp(op, "~>");
    if (!*op || !strcmp(op, "=")) {
        if (!c->dirty)
            return compare(v, k) == 0;
        tilde = true;
    }
    if (tilde) {
        if (compare(v, k) < 0)
            return false;
        if (!k->n[0] && !k->n[1] && !k->n[2] && !c->minor_dirty && !c->patch_dirty)
            return true;
        return v->n[0] == k->n[0] && (v->n[1] == k->n[1] || c->minor_dirty);
    }
    /* ^ */
    if (compare(v, k) < 0)
        return false;
    if (k->n[0] > 0 || c->minor_dirty)
        return v->n[0] == k->n[0];
    if (v->n[0] > 0)
        return false;
    if (k->n[1] > 0 || c->patch_dirty)
        return v->n[1] == k->n[1];
    if (v->n[1] > 0)
        return false;
    return k->n[2] == v->n[2];
}

/* One "||" alternative s[0..n): comparisons separated by spaces or a comma, or "A - B" (rewriteRange: >= A, <= B).
 * The atoms in out (*count). */
static bool parse_group(const char *s, size_t n, atom *out, size_t *count)
{
    const char *p = s, *lim = s + n;
    *count = 0;
    bool first = true;
    for (;;) {
        const char *q = p;
        while (q < lim && space(*q))
            q++;
        if (q == lim)
            return !first;
        if (!first) {
            bool sep = q > p;
            if (*q == ',') {
                sep = true;
                q++;
                while (q < lim && space(*q))
                    q++;
            }
            if (!sep || q == lim)
                return false;
        }
        if (*count >= MAX_ATOMS)
            return false;
        const char *e;
        if (!parse_atom(q, lim, &e, &out[*count]))
            return false;
        /* a hyphen range: a bare version, " - ", a bare version */
        const char *h = e;
        while (h < lim && space(*h))
            h++;
        if (!out[*count].op[0] && h > e && h < lim && *h == '-' && h + 1 < lim && space(h[1])) {
            const char *b = h + 1;
            while (b < lim && space(*b))
                b++;
            if (*count + 1 >= MAX_ATOMS || !parse_atom(b, lim, &e, &out[*count + 1]) || out[*count + 1].op[0])
                return false;
            memcpy(out[*count].op, ">=", 3);
            memcpy(out[*count + 1].op, "<=", 3);
            (*count)++;
        }
        (*count)++;
        p = e;
        first = false;
    }
}

/* -1: not a constraint; else 1 when v satisfies it */
static int check(const char *constraint, const sv *v)
{
    atom atoms[MAX_ATOMS];
    const char *s = constraint;
    int ok = 0;
    for (;;) {
        const char *bar = strstr(s, "||");
        size_t n = bar ? (size_t)(bar - s) : strlen(s), count;
        if (!parse_group(s, n, atoms, &count))
            return -1;
        bool pre = false;
        for (size_t i = 0; i < count; i++)
            pre |= atoms[i].con.pre_len > 0;
        bool all = true;
        for (size_t i = 0; i < count && all; i++)
            all = atom_check(&atoms[i], v, pre);
        ok |= all;
        if (!bar)
            return ok;
        s = bar + 2;
    }
}

bool flux_semver_tag_version(const char *tag)
{
    sv v;
    return parse_strict(tag, &v);
}

const char *flux_semver_constraint_problem(const char *constraint)
{
    sv zero = {{0, 0, 0}, "", 0};
    if (strlen(constraint) > 256)
        return "is longer than 256 bytes";
    return check(constraint, &zero) < 0 ? "is not a version constraint (Masterminds/semver)" : NULL;
}

int flux_semver_check(const char *constraint, const char *version)
{
    sv v;
    if (!parse_strict(version, &v))
        return -1;
    return check(constraint, &v);
}

long flux_semver_pick(const char *constraint, const char *const *tags, size_t n)
{
    if (flux_semver_constraint_problem(constraint))
        return -2;
    long best = -1;
    sv bv = {{0, 0, 0}, "", 0};
    for (size_t i = 0; i < n; i++) {
        sv v;
        if (!parse_strict(tags[i], &v) || check(constraint, &v) != 1)
            continue;
        /* equal versions (1.0.0 and v1.0.0): the first listed, as Go's sort keeps them in a short list */
        if (best < 0 || compare(&v, &bv) > 0)
            best = (long)i, bv = v;
    }
    return best;
}
