#include "util/glob.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"
#include "util/limits.h"

static bool class_match(const char **pp, char c)
{
    const char *p = *pp + 1;
    bool neg = false, ok = false;
    if (*p == '!' || *p == '^') {
        neg = true;
        p++;
    }
    bool first = true;
    while (*p && (first || *p != ']')) {
        char lo = *p;
        if (lo == '\\' && p[1])
            lo = *++p;
        char hi = lo;
        if (p[1] == '-' && p[2] && p[2] != ']') {
            hi = p[2];
            if (hi == '\\' && p[3])
                hi = p[3], p++;
            p += 2;
        }
        if (c >= lo && c <= hi)
            ok = true;
        p++;
        first = false;
    }
    if (*p != ']')
        return false; /* unterminated: no match */
    *pp = p + 1;
    return ok != neg;
}

/* A match is a walk over (pattern position, path position) pairs. Remembering the pairs already tried keeps
 * patterns like "*a*a*a*a*b" linear in pattern x path instead of exponential (a .krmignore is user input). */
struct memo {
    const char *p0, *s0;
    size_t plen, slen;
    unsigned char *seen; /* bit per pair; NULL when the table would be too large (then plain backtracking) */
    bool over;           /* the process's step budget ran out: unwind, the answer is -1 */
    size_t max_steps;    /* that budget: the operator's max-glob-steps */
};

/* Steps (a pair tried, a position a star loop moves to) of every match in this process. The memo keeps one
 * match polynomial, not cheap: "**a" repeated a thousand times (a 3 KB .krmignore line) against the paths of a
 * deep tree took p x s^2 steps a path, 45 s of CPU; and each rule is matched against every file. */
static size_t steps_used;

static bool step(struct memo *m)
{
    if (m->over || ++steps_used > m->max_steps)
        m->over = true;
    return m->over;
}

static bool match(struct memo *m, const char *p, const char *s);

static bool tried(struct memo *m, const char *p, const char *s)
{
    if (!m->seen)
        return false;
    size_t i = (size_t)(p - m->p0) * (m->slen + 1) + (size_t)(s - m->s0);
    bool was = m->seen[i / 8] & (1u << (i % 8));
    m->seen[i / 8] |= (unsigned char)(1u << (i % 8));
    return was;
}

static bool match(struct memo *m, const char *p, const char *s)
{
    if (step(m) || tried(m, p, s))
        return false; /* this pair failed before (a success would have returned already), or no steps are left */
    while (*p) {
        if (p[0] == '*' && p[1] == '*') {
            const char *rest = p + 2;
            bool slash_after = *rest == '/';
            if (slash_after)
                rest++;
            /* "**" matches zero or more whole segments (or anything at the end) */
            if (!*rest)
                return true;
            for (const char *t = s;; t++) {
                if ((t == s || t[-1] == '/' || !slash_after) && match(m, rest, t))
                    return true;
                if (!*t || step(m))
                    return false;
            }
        }
        if (*p == '*') {
            p++;
            for (const char *t = s;; t++) {
                if (match(m, p, t))
                    return true;
                if (!*t || *t == '/' || step(m))
                    return false;
            }
        }
        if (!*s)
            return false;
        if (*p == '?') {
            if (*s == '/')
                return false;
            p++, s++;
            continue;
        }
        if (*p == '[') {
            if (*s == '/' || !class_match(&p, *s))
                return false;
            s++;
            continue;
        }
        if (*p == '\\' && p[1])
            p++;
        if (*p != *s)
            return false;
        p++, s++;
    }
    return !*s;
}

int glob_match(const limits *L, const char *pattern, const char *path)
{
    struct memo m = {pattern, path, strlen(pattern), strlen(path), NULL, false, limits_or_default(L)->max_glob_steps};
    size_t bits = (m.plen + 1) * (m.slen + 1);
    if (strchr(pattern, '*') && bits / (m.slen + 1) == m.plen + 1 && bits < ((size_t)64 << 23))
        m.seen = xcalloc(bits / 8 + 1, 1);
    bool ok = match(&m, pattern, path);
    xfree(m.seen);
    return m.over ? -1 : ok;
}

/* ---- Go's path/filepath.Match, the matcher behind kpt's .krmignore -------------------------------------------------
 * kpt reads .krmignore with a gitignore library that matches each pattern with Go's filepath.Match, so the
 * semantics are Go's, written here from its documented rules and its algorithm (which is not a full glob: each
 * piece after a star is taken at its first fit, and a star never crosses '/', as kpt's own matching does). */

/* One UTF-8 rune as Go decodes it: an invalid or overlong sequence, a surrogate or a value past U+10FFFF is
 * U+FFFD of width 1. */
static uint32_t go_rune(const char *s, size_t len, size_t *width)
{
    const unsigned char *u = (const unsigned char *)s;
    *width = 1;
    if (!len)
        return 0xFFFD;
    if (u[0] < 0x80)
        return u[0];
    size_t n = (u[0] & 0xE0) == 0xC0 ? 2 : (u[0] & 0xF0) == 0xE0 ? 3 : (u[0] & 0xF8) == 0xF0 ? 4 : 0;
    if (!n || n > len)
        return 0xFFFD;
    uint32_t r = u[0] & (0x7F >> n);
    for (size_t i = 1; i < n; i++) {
        if ((u[i] & 0xC0) != 0x80)
            return 0xFFFD;
        r = r << 6 | (u[i] & 0x3F);
    }
    static const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (r < least[n] || r > 0x10FFFF || (r >= 0xD800 && r <= 0xDFFF))
        return 0xFFFD;
    *width = n;
    return r;
}

/* A class member: one rune, or '\' and one; '-' and ']' cannot start one. -1: a malformed pattern. */
static int go_class_char(const char **pp, const char *end, uint32_t *r)
{
    const char *p = *pp;
    if (p == end || *p == '-' || *p == ']')
        return -1;
    if (*p == '\\' && ++p == end)
        return -1;
    size_t w;
    *r = go_rune(p, (size_t)(end - p), &w);
    if (*r == 0xFFFD && w == 1)
        return -1; /* not UTF-8 */
    p += w;
    if (p == end)
        return -1; /* the class never closes */
    *pp = p;
    return 0;
}

/* Matches the chunk [c, cend) (no unescaped '*' outside a class) at the start of s. 1: matched, *rest after it;
 * 0: no match; -1: malformed chunk. Like Go, it reads the whole chunk even after a mismatch, so a malformed pattern
 * is always found; and each byte of the chunk it reads is a step of the budget. */
static int go_chunk(const char *c, const char *cend, const char *s, const char **rest, bool *over, size_t max_steps)
{
    bool failed = false;
    size_t slen = strlen(s);
    while (c < cend) {
        if (++steps_used > max_steps) {
            *over = true;
            return 0;
        }
        if (!failed && !slen)
            failed = true;
        if (*c == '[') {
            uint32_t r = 0;
            if (!failed) {
                size_t w;
                r = go_rune(s, slen, &w);
                s += w, slen -= w;
            }
            c++;
            bool negated = c < cend && *c == '^';
            if (negated)
                c++;
            bool hit = false;
            for (int nrange = 0;; nrange++) {
                if (c < cend && *c == ']' && nrange > 0) {
                    c++;
                    break;
                }
                uint32_t lo, hi;
                if (go_class_char(&c, cend, &lo) < 0)
                    return -1;
                hi = lo;
                if (*c == '-') {
                    c++;
                    if (go_class_char(&c, cend, &hi) < 0)
                        return -1;
                }
                if (lo <= r && r <= hi)
                    hit = true;
            }
            if (hit == negated)
                failed = true;
            continue;
        }
        if (*c == '?') {
            if (!failed) {
                if (*s == '/')
                    failed = true;
                size_t w;
                go_rune(s, slen, &w);
                s += w, slen -= w;
            }
            c++;
            continue;
        }
        if (*c == '\\' && ++c == cend)
            return -1;
        if (!failed) {
            if (*c != *s)
                failed = true;
            s++, slen--;
        }
        c++;
    }
    if (failed)
        return 0;
    *rest = s;
    return 1;
}

/* The next chunk: the stars before it (*star), then up to the next '*' outside a class. */
static const char *go_scan_chunk(const char *p, bool *star, const char **cend)
{
    *star = false;
    while (*p == '*')
        p++, *star = true;
    bool inrange = false;
    const char *q = p;
    for (; *q; q++) {
        if (*q == '\\' && q[1])
            q++;
        else if (*q == '[')
            inrange = true;
        else if (*q == ']')
            inrange = false;
        else if (*q == '*' && !inrange)
            break;
    }
    *cend = q;
    return p;
}

int glob_match_go(const limits *L, const char *pattern, const char *name)
{
    size_t max_steps = limits_or_default(L)->max_glob_steps;
    bool over = false;
    const char *p = pattern;
    while (*p) {
        bool star;
        const char *cend, *c = go_scan_chunk(p, &star, &cend), *t;
        p = cend;
        if (star && c == cend)
            return !strchr(name, '/'); /* a trailing star takes the rest of the segment */
        int m = go_chunk(c, cend, name, &t, &over, max_steps);
        if (over)
            return -1;
        if (m > 0 && (!*t || *p)) {
            name = t;
            continue;
        }
        if (m < 0)
            return 0; /* a malformed pattern matches nothing (Go reports ErrBadPattern, kpt drops it) */
        bool found = false;
        for (size_t i = 0; star && !found && name[i] && name[i] != '/'; i++) {
            m = go_chunk(c, cend, name + i + 1, &t, &over, max_steps);
            if (over)
                return -1;
            if (m < 0)
                return 0;
            if (m > 0 && !(!*p && *t)) {
                name = t;
                found = true;
            }
        }
        if (found)
            continue;
        /* no match: still a malformed rest of the pattern is Go's error, which matches nothing either */
        return 0;
    }
    return !*name;
}
