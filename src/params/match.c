/* The generator's matching and naming: path globs (paths, exclude) and the basenameNormalized of an element. */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "params/request.h"

/* One pattern character (at p[*i]) against byte c: '?', a class, an escape or itself; *i moves past it. */
static bool one(const char *p, size_t pn, size_t *i, unsigned char c)
{
    size_t k = *i;
    if (p[k] == '?') {
        *i = k + 1;
        return true;
    }
    if (p[k] == '\\' && k + 1 < pn) {
        *i = k + 2;
        return (unsigned char)p[k + 1] == c;
    }
    if (p[k] == '[') {
        size_t j = k + 1;
        bool neg = j < pn && (p[j] == '!' || p[j] == '^');
        j += neg;
        size_t first = j;
        bool hit = false;
        while (j < pn && (p[j] != ']' || j == first)) {
            unsigned char lo = (unsigned char)p[j], hi = lo;
            if (lo == '\\' && j + 1 < pn)
                lo = hi = (unsigned char)p[++j];
            if (j + 2 < pn && p[j + 1] == '-' && p[j + 2] != ']') {
                hi = (unsigned char)p[j + 2];
                if (hi == '\\' && j + 3 < pn)
                    hi = (unsigned char)p[++j + 2];
                j += 2;
            }
            hit |= lo <= c && c <= hi;
            j++;
        }
        if (j < pn) { /* a closed class; an unclosed '[' is itself */
            *i = j + 1;
            return hit != neg;
        }
    }
    *i = k + 1;
    return (unsigned char)p[k] == c;
}

/* One segment, '*' within it: the classic single-star backtrack, at most pn x sn steps, each taken from *left
 * (past zero the answer is false and the caller reports the budget spent). */
static bool seg_match(const char *p, size_t pn, const char *s, size_t sn, long long *left)
{
    size_t pi = 0, si = 0, star_p = SIZE_MAX, star_s = 0;
    while (si < sn) {
        if (--*left < 0)
            return false;
        if (pi < pn && p[pi] == '*') {
            star_p = ++pi;
            star_s = si;
            continue;
        }
        size_t next = pi;
        if (pi < pn && one(p, pn, &next, (unsigned char)s[si])) {
            pi = next;
            si++;
            continue;
        }
        if (star_p == SIZE_MAX)
            return false;
        pi = star_p;
        si = ++star_s;
    }
    while (pi < pn && p[pi] == '*')
        pi++;
    return pi == pn;
}

typedef struct seg {
    const char *s;
    size_t n;
} seg;

static size_t split(const char *t, seg *out, size_t max)
{
    size_t n = 0;
    for (const char *p = t;;) {
        size_t l = strcspn(p, "/");
        if (l && n < max)
            out[n++] = (seg){p, l};
        if (!p[l])
            break;
        p += l + 1;
    }
    return n;
}

int params_glob_match(const char *pattern, const char *path)
{
    long long left = LLONG_MAX;
    return params_glob_match_steps(pattern, path, &left);
}

int params_glob_match_steps(const char *pattern, const char *path, long long *left)
{
    enum { MAX = 600 };
    seg P[MAX], S[MAX];
    size_t m = split(pattern, P, MAX), n = split(path, S, MAX);
    /* dp[i][j]: P[i..] matches S[j..]; computed from the end, one row kept per i */
    bool *next = calloc(n + 1, 1), *cur = calloc(n + 1, 1);
    if (!next || !cur)
        abort();
    next[n] = true;
    for (size_t i = m; i-- > 0;) {
        bool dstar = P[i].n == 2 && P[i].s[0] == '*' && P[i].s[1] == '*';
        for (size_t j = n + 1; j-- > 0 && --*left >= 0;)
            cur[j] = dstar ? next[j] || (j < n && cur[j + 1])
                           : j < n && next[j + 1] && seg_match(P[i].s, P[i].n, S[j].s, S[j].n, left);
        bool *t = next;
        next = cur;
        cur = t;
    }
    int r = *left < 0 ? -1 : next[0];
    free(next);
    free(cur);
    return r;
}

void params_sanitize_name(const char *in, char *out, size_t cap)
{
    size_t n = 0, max = cap - 1 < 253 ? cap - 1 : 253;
    for (const unsigned char *p = (const unsigned char *)in; *p && n < max;) {
        unsigned char c = *p;
        size_t l = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
        for (size_t i = 1; i < l; i++)
            if ((p[i] & 0xC0) != 0x80)
                l = 1;
        if (l == 1) {
            char lc = c >= 'A' && c <= 'Z' ? (char)(c + 32) : (char)c;
            out[n++] = (lc >= 'a' && lc <= 'z') || (lc >= '0' && lc <= '9') || lc == '-' || lc == '.' ? lc : '-';
        } else if (l == 3 && p[0] == 0xE2 && p[1] == 0x84 && p[2] == 0xAA) {
            out[n++] = 'k'; /* KELVIN SIGN: Go's ToLower makes it 'k' */
        } else if (l == 2 && p[0] == 0xC4 && p[1] == 0xB0) {
            out[n++] = 'i'; /* CAPITAL I WITH DOT ABOVE: "i" and a combining dot, which becomes '-' */
            if (n < max)
                out[n++] = '-';
        } else {
            out[n++] = '-';
        }
        p += l;
    }
    out[n] = 0;
    size_t s = strspn(out, "-.");
    while (n > s && (out[n - 1] == '-' || out[n - 1] == '.'))
        n--;
    memmove(out, out + s, n - s);
    out[n - s] = 0;
}
