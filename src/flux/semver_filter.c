/* An OCIRepository's ref.semverFilter (source-controller's filterTags): Go's regexp (RE2) searched, unanchored, in
 * each tag before the highest tag satisfying ref.semver is picked. Patterns go to the project's pcre2 (step-limited,
 * functions/krm/regex.h) only within a subset both engines read alike; anything else is refused, never matched
 * differently. */
#include <stdlib.h>
#include <string.h>

#include "flux/internal.h"
#include "functions/krm/regex.h"
#include "util/diag.h"

/* Escapes RE2 and pcre2 read alike (ASCII classes, assertions, the usual control characters), beside escaped
 * punctuation. Not: backreferences (\1...), \K \G \Z \R \X \h \v \e \c \g \k \Q \C \N \o, which RE2 refuses or reads
 * otherwise. */
static bool same_escape(char e)
{
    return strchr("dDwWsSbBAztnrfx", e) || strchr(".[](){}*+?^$|\\-/#&~\"'!%,:;<=>@_`", e);
}

static bool hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

const char *flux_re2_subset_problem(const char *p)
{
    size_t n = strlen(p);
    bool in_class = false;
    if (n > 1024)
        return "is longer than 1024 bytes";
    for (size_t i = 0; i < n; i++) {
        char ch = p[i];
        if ((unsigned char)ch < 0x20 || (unsigned char)ch >= 0x7f)
            return "holds a byte outside printable ASCII";
        if (ch == '\\') {
            char e = i + 1 < n ? p[i + 1] : 0;
            if (!e || !same_escape(e) || (in_class && strchr("bBAz", e)))
                return "uses an escape Go's RE2 reads otherwise or refuses (backreferences, \\K, \\Z, \\h, \\v...)";
            if (e == 'x' && !(i + 3 < n && hex(p[i + 2]) && hex(p[i + 3])))
                return "uses \\x without two hex digits";
            i++;
            continue;
        }
        if (in_class) {
            /* "]" ends the class, except as its first member; "[:alpha:]" is read alike */
            if (ch == ']' && !(p[i - 1] == '[' || (p[i - 1] == '^' && p[i - 2] == '[')))
                in_class = false;
            else if (ch == '[' && i + 1 < n && p[i + 1] == ':') {
                const char *close = strstr(p + i + 2, ":]");
                if (!close)
                    return "has an unterminated [: class";
                i = (size_t)(close - p) + 1;
            }
            continue;
        }
        if (ch == '[') {
            in_class = true;
            continue;
        }
        if (ch == '(' && i + 1 < n && p[i + 1] == '*')
            return "uses a pcre2 verb (*...), which Go's RE2 does not have";
        if (ch == '(' && i + 1 < n && p[i + 1] == '?') {
            /* (?: and the flags i, m, s, U; (?P<name> and (?<name> groups. Not lookaround, atomic groups,
             * conditionals, recursion or pcre2's other flags */
            size_t j = i + 2;
            if (j + 1 < n && ((p[j] == 'P' && p[j + 1] == '<') || p[j] == '<')) {
                j += p[j] == 'P' ? 2 : 1;
                size_t k = j;
                while (k < n && ((p[k] >= 'a' && p[k] <= 'z') || (p[k] >= 'A' && p[k] <= 'Z') ||
                                 (p[k] >= '0' && p[k] <= '9' && k > j) || p[k] == '_'))
                    k++;
                if (k == j || k >= n || p[k] != '>')
                    return "uses a group Go's RE2 does not have (lookbehind) or a name it does not read";
                i = k;
                continue;
            }
            while (j < n && strchr("imsU-", p[j]))
                j++;
            if (j >= n || (p[j] != ':' && p[j] != ')'))
                return "uses a group Go's RE2 does not have (lookaround, atomic, conditional, recursion) or a flag "
                       "other than i, m, s, U";
            i = j;
            continue;
        }
        /* possessive quantifiers (a*+, a++, a?+, a{2}+) are pcre2's; RE2 refuses them */
        if (strchr("*+?}", ch) && i + 1 < n && p[i + 1] == '+')
            return "uses a possessive quantifier, which Go's RE2 does not have";
        if (ch == '{') {
            /* {n}, {n,}, {n,m}: RE2 refuses counts above 1000; "{,m}" reads differently across pcre2 versions */
            if (i + 1 < n && p[i + 1] == ',')
                return "uses {,m}, which pcre2 and Go's RE2 read differently";
            for (size_t j = i + 1; j < n && ((p[j] >= '0' && p[j] <= '9') || p[j] == ','); j++)
                if ((j == i + 1 || p[j - 1] == ',') && strtol(p + j, NULL, 10) > 1000)
                    return "repeats more than 1000 times, which Go's RE2 refuses";
        }
    }
    return in_class ? "has an unterminated [ class" : NULL;
}

const char *flux_semver_filter_problem(arena *a, const char *pattern)
{
    const char *why = flux_re2_subset_problem(pattern);
    if (why)
        return why;
    int code;
    PCRE2_SIZE off;
    pcre2_code *re = regex_compile(pattern, &code, &off);
    if (!re) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(code, msg, sizeof msg);
        return arena_printf(a, "is not a regular expression: %s", (const char *)msg);
    }
    pcre2_code_free(re);
    return NULL;
}

int flux_semver_filter_match(const limits *lim, arena *a, const char *pattern, const char *tag)
{
    const char *why = flux_semver_filter_problem(a, pattern);
    if (why)
        return fail_here("%s", why);
    int code;
    PCRE2_SIZE off;
    pcre2_code *re = regex_compile(pattern, &code, &off);
    if (!re)
        return fail_here("is not a regular expression");
    int rc = regex_search(lim, re, NULL, tag, strlen(tag));
    pcre2_code_free(re);
    if (rc < 0)
        return fail_here("%s", regex_failure(lim, a, rc));
    return rc > 0 ? 1 : 0;
}
