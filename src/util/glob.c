#include "util/glob.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/fsutil.h"

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
};

/* Steps (a pair tried, a position a star loop moves to) of every match in this process. The memo keeps one
 * match polynomial, not cheap: "**a" repeated a thousand times (a 3 KB .krmignore line) against the paths of a
 * deep tree took p x s^2 steps a path, 45 s of CPU; and each rule is matched against every file. */
static size_t steps_used;

static bool step(struct memo *m)
{
    if (m->over || ++steps_used > cmp_limits.max_glob_steps)
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

int glob_match(const char *pattern, const char *path)
{
    struct memo m = {pattern, path, strlen(pattern), strlen(path), NULL, false};
    size_t bits = (m.plen + 1) * (m.slen + 1);
    if (strchr(pattern, '*') && bits / (m.slen + 1) == m.plen + 1 && bits < ((size_t)64 << 23))
        m.seen = xcalloc(bits / 8 + 1, 1);
    bool ok = match(&m, pattern, path);
    xfree(m.seen);
    return m.over ? -1 : ok;
}
