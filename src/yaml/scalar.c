#include "yaml/scalar.h"

#include <ctype.h>
#include <string.h>

static bool eq(const char *s, size_t n, const char *w)
{
    return strlen(w) == n && memcmp(s, w, n) == 0;
}

static bool in_list(const char *s, size_t n, const char *const *words)
{
    for (; *words; words++)
        if (eq(s, n, *words))
            return true;
    return false;
}

static const char *const nulls[] = {"", "~", "null", "Null", "NULL", NULL};
static const char *const bools12[] = {"true", "True", "TRUE", "false", "False", "FALSE", NULL};
static const char *const bools11[] = {"y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "true", "True", "TRUE",
                                      "false", "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF", NULL};
static const char *const specials[] = {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf",
                                       "-.INF", ".nan", ".NaN", ".NAN", NULL};

/* The emitter asks what every scalar it writes resolves to, and almost all text is a string at its first byte:
 * only these can start a null, bool, number, special float, date, "<<" or "=". The words are at most 5 bytes. */
enum { MAY_WORD = 1, MAY_NUMBER = 2, MAY_OTHER = 4 };
static unsigned char first_byte[256];

static void first_byte_init(void)
{
    for (const char *p = "~nNyYtTfFoO"; *p; p++)
        first_byte[(unsigned char)*p] = MAY_WORD;
    for (const char *p = "0123456789+-."; *p; p++)
        first_byte[(unsigned char)*p] = MAY_NUMBER;
    first_byte['<'] = first_byte['='] = MAY_OTHER;
}

/* 0 when s can only be a string to every reader (the common case); else which checks can apply. */
static unsigned may_be_typed(const char *s, size_t n)
{
    if (!first_byte['~'])
        first_byte_init();
    if (!n)
        return MAY_WORD;
    unsigned f = first_byte[(unsigned char)s[0]];
    if (f == MAY_WORD && n > 5)
        return 0;
    return f;
}

/* digits in base with optional '_' separators, at least one digit */
static bool digits(const char *s, size_t n, int base, bool underscores)
{
    if (!n)
        return false;
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        int c = (unsigned char)s[i];
        if (c == '_' && underscores)
            continue;
        int v = isdigit(c) ? c - '0' : isxdigit(c) ? (tolower(c) - 'a' + 10) : 99;
        if (v >= base)
            return false;
        any = true;
    }
    return any;
}

/* [-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)? ; underscores only for 1.1 */
static bool is_float(const char *s, size_t n, bool underscores)
{
    size_t i = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    size_t mant = i;
    bool intdigits = false, fracdigits = false;
    while (i < n && (isdigit((unsigned char)s[i]) || (underscores && s[i] == '_' && i > mant))) {
        intdigits = true;
        i++;
    }
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && (isdigit((unsigned char)s[i]) || (underscores && s[i] == '_'))) {
            fracdigits = true;
            i++;
        }
    }
    if (!intdigits && !fracdigits)
        return false;
    if (!intdigits && s[mant] != '.')
        return false;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t e = i;
        while (i < n && isdigit((unsigned char)s[i]))
            i++;
        if (i == e)
            return false;
    }
    return i == n;
}

enum scalar_type resolve_yaml12(const char *s, size_t n)
{
    if (!may_be_typed(s, n))
        return T_STR;
    if (in_list(s, n, nulls))
        return T_NULL;
    if (in_list(s, n, bools12))
        return T_BOOL;
    if (in_list(s, n, specials))
        return T_FLOAT;
    const char *p = s;
    size_t m = n;
    if (m && (*p == '+' || *p == '-')) {
        p++;
        m--;
    }
    if (m > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        return digits(p + 2, m - 2, 16, true) ? T_INT : T_STR;
    if (m > 2 && p[0] == '0' && (p[1] == 'o' || p[1] == 'O'))
        return digits(p + 2, m - 2, 8, true) ? T_INT : T_STR;
    if (m > 2 && p[0] == '0' && (p[1] == 'b' || p[1] == 'B'))
        return digits(p + 2, m - 2, 2, true) ? T_INT : T_STR;
    if (m && isdigit((unsigned char)p[0]) && digits(p, m, 10, true))
        return T_INT;
    if (is_float(s, n, false))
        return T_FLOAT;
    return T_STR;
}

/* 190:20:30 style base-60 numbers */
static bool sexagesimal(const char *s, size_t n)
{
    size_t i = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    if (i >= n || !isdigit((unsigned char)s[i]))
        return false;
    bool colon = false;
    for (; i < n; i++) {
        if (s[i] == ':')
            colon = true;
        else if (!isdigit((unsigned char)s[i]) && s[i] != '_' && s[i] != '.')
            return false;
    }
    return colon;
}

enum scalar_type resolve_yaml11(const char *s, size_t n)
{
    if (!may_be_typed(s, n))
        return T_STR;
    if (in_list(s, n, nulls))
        return T_NULL;
    if (in_list(s, n, bools11))
        return T_BOOL;
    if (in_list(s, n, specials))
        return T_FLOAT;
    const char *p = s;
    size_t m = n;
    if (m && (*p == '+' || *p == '-')) {
        p++;
        m--;
    }
    if (m > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        return digits(p + 2, m - 2, 16, true) ? T_INT : T_STR;
    if (m > 2 && p[0] == '0' && (p[1] == 'b' || p[1] == 'B'))
        return digits(p + 2, m - 2, 2, true) ? T_INT : T_STR;
    if (m && isdigit((unsigned char)p[0]) && digits(p, m, 10, true))
        return T_INT; /* includes 0755, read as octal */
    if (is_float(s, n, true))
        return T_FLOAT;
    if (sexagesimal(s, n))
        return T_INT;
    return T_STR;
}

enum scalar_type node_type(const node *n)
{
    if (!n || n->kind != N_SCALAR)
        return T_STR;
    const char *tag = node_tag(n);
    if (tag) {
        if (!strcmp(tag, "!!str") || !strcmp(tag, "tag:yaml.org,2002:str"))
            return T_STR;
        if (!strcmp(tag, "!!int") || !strcmp(tag, "tag:yaml.org,2002:int"))
            return T_INT;
        if (!strcmp(tag, "!!bool") || !strcmp(tag, "tag:yaml.org,2002:bool"))
            return T_BOOL;
        if (!strcmp(tag, "!!float") || !strcmp(tag, "tag:yaml.org,2002:float"))
            return T_FLOAT;
        if (!strcmp(tag, "!!null") || !strcmp(tag, "tag:yaml.org,2002:null"))
            return T_NULL;
    }
    if (n->style != ST_PLAIN)
        return T_STR;
    return resolve_yaml12(n->s.str, n->s.len);
}

bool plain_allowed(const char *s, size_t n, bool flow)
{
    if (!n)
        return false;
    unsigned char c0 = (unsigned char)s[0];
    if (strchr("[]{},#&*!|>'\"%@`", c0))
        return false;
    if ((c0 == '-' || c0 == '?' || c0 == ':') && (n == 1 || s[1] == ' ' || (flow && strchr(",[]{}", s[1]))))
        return false;
    if (s[0] == ' ' || s[n - 1] == ' ' || s[n - 1] == ':')
        return false;
    if (n >= 3 && (!memcmp(s, "---", 3) || !memcmp(s, "...", 3)))
        return false;
    /* the emitter asks this of every plain scalar it writes: let ordinary bytes through with one lookup */
    static unsigned char special[256];
    if (!special[0]) {
        for (int c = 0; c < 0x20; c++)
            special[c] = 1;
        for (const char *p = ":#,[]{}\x7f\xc2\xe2\xef"; *p; p++)
            special[(unsigned char)*p] = 1;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!special[c])
            continue;
        if (c < 0x20 || c == 0x7f)
            return false;
        if (c == ':' && i + 1 < n && (s[i + 1] == ' ' || (flow && strchr(",[]{}", s[i + 1]))))
            return false;
        if (c == '#' && s[i - 1] == ' ')
            return false;
        if (flow && strchr(",[]{}", c))
            return false;
        /* C1 controls and the Unicode line separators would be folded by readers */
        if (c == 0xc2 && i + 1 < n && (unsigned char)s[i + 1] < 0xa0)
            return false;
        if (c == 0xe2 && i + 2 < n && (unsigned char)s[i + 1] == 0x80 &&
            ((unsigned char)s[i + 2] == 0xa8 || (unsigned char)s[i + 2] == 0xa9))
            return false;
        if (c == 0xef && i + 2 < n && (unsigned char)s[i + 1] == 0xbb && (unsigned char)s[i + 2] == 0xbf)
            return false;
    }
    return true;
}

static bool looks_like_date(const char *s, size_t n)
{
    return n >= 8 && isdigit((unsigned char)s[0]) && isdigit((unsigned char)s[1]) && isdigit((unsigned char)s[2]) &&
           isdigit((unsigned char)s[3]) && s[4] == '-';
}

bool plain_string_safe(const char *s, size_t n, bool flow)
{
    if (!may_be_typed(s, n))
        return plain_allowed(s, n, flow);
    return plain_allowed(s, n, flow) && resolve_yaml11(s, n) == T_STR && resolve_yaml12(s, n) == T_STR &&
           !looks_like_date(s, n) && !eq(s, n, "<<") && !eq(s, n, "=");
}
