#include "util/glob.h"

#include <stddef.h>

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

/* Iterative with backtracking points for '*' and "**"; linear in practice for the patterns people write. */
static bool match(const char *p, const char *s)
{
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
                if ((t == s || t[-1] == '/' || !slash_after) && match(rest, t))
                    return true;
                if (!*t)
                    return false;
            }
        }
        if (*p == '*') {
            p++;
            for (const char *t = s;; t++) {
                if (match(p, t))
                    return true;
                if (!*t || *t == '/')
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

bool glob_match(const char *pattern, const char *path)
{
    return match(pattern, path);
}
