#include "yaml/scalar_text.h"

#include "yaml/node.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static bool eq(const char *s, size_t n, const char *w)
{
    return strncmp(w, s, n) == 0 && w[n] == 0;
}

static bool in_list(const char *s, size_t n, const char *const *words)
{
    for (; *words; words++)
        if (eq(s, n, *words))
            return true;
    return false;
}

static const char *const specials[] = {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf",
                                       "-.INF", ".nan", ".NaN", ".NAN", NULL};

/* The null and bool words: "", ~, null, Null, NULL; true/false in three casings; YAML 1.1 adds y/n, yes/no and
 * on/off in the same casings. T_STR for any other text. */
static enum scalar_type word_type(const char *s, size_t n, bool yaml11)
{
#define IS(w) (n == sizeof(w) - 1 && !memcmp(s, w, sizeof(w) - 1))
    if (!n)
        return T_NULL;
    switch (s[0]) {
    case '~': return n == 1 ? T_NULL : T_STR;
    case 'n': return IS("null") ? T_NULL : yaml11 && (IS("n") || IS("no")) ? T_BOOL : T_STR;
    case 'N': return IS("Null") || IS("NULL") ? T_NULL : yaml11 && (IS("N") || IS("No") || IS("NO")) ? T_BOOL : T_STR;
    case 't': return IS("true") ? T_BOOL : T_STR;
    case 'T': return IS("True") || IS("TRUE") ? T_BOOL : T_STR;
    case 'f': return IS("false") ? T_BOOL : T_STR;
    case 'F': return IS("False") || IS("FALSE") ? T_BOOL : T_STR;
    case 'y': return yaml11 && (IS("y") || IS("yes")) ? T_BOOL : T_STR;
    case 'Y': return yaml11 && (IS("Y") || IS("Yes") || IS("YES")) ? T_BOOL : T_STR;
    case 'o': return yaml11 && (IS("on") || IS("off")) ? T_BOOL : T_STR;
    case 'O': return yaml11 && (IS("On") || IS("ON") || IS("Off") || IS("OFF")) ? T_BOOL : T_STR;
    default: return T_STR;
    }
#undef IS
}

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
    unsigned may = may_be_typed(s, n);
    if (may != MAY_NUMBER)
        return may == MAY_WORD ? word_type(s, n, false) : T_STR;
    if ((s[0] == '.' || s[0] == '+' || s[0] == '-') && in_list(s, n, specials))
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
    unsigned may = may_be_typed(s, n);
    if (may != MAY_NUMBER)
        return may == MAY_WORD ? word_type(s, n, true) : T_STR;
    if ((s[0] == '.' || s[0] == '+' || s[0] == '-') && in_list(s, n, specials))
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
    return resolve_yaml12(nstr(n), strlen(nstr(n)));
}

/* The checks of plain_allowed on the first and last bytes. */
static bool plain_ends_ok(const char *s, size_t n, bool flow)
{
    /* 1: cannot start a plain scalar; 2: "-", "?" or ":", which can when no space (or flow indicator) follows */
    static unsigned char start[256];
    if (!start[0]) {
        for (const char *p = "[]{},#&*!|>'\"%@` "; *p; p++)
            start[(unsigned char)*p] = 1;
        start[0] = 1;
        start['-'] = start['?'] = start[':'] = 2;
    }
    if (!n)
        return false;
    unsigned k = start[(unsigned char)s[0]];
    if (k == 1)
        return false;
    if (k == 2 && (n == 1 || s[1] == ' ' || (flow && strchr(",[]{}", s[1]))))
        return false;
    if (s[n - 1] == ' ' || s[n - 1] == ':')
        return false;
    if (n >= 3 && (s[0] == '-' || s[0] == '.') && s[1] == s[0] && s[2] == s[0])
        return false;
    return true;
}

bool plain_allowed(const char *s, size_t n, bool flow)
{
    if (!plain_ends_ok(s, n, flow))
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

/* Plain text that every reader sees as a string, whatever its syntax. */
static bool reads_as_string(const char *s, size_t n)
{
    return !may_be_typed(s, n) || (resolve_yaml11(s, n) == T_STR && resolve_yaml12(s, n) == T_STR &&
                                   !looks_like_date(s, n) && !eq(s, n, "<<") && !eq(s, n, "="));
}

bool plain_string_safe(const char *s, size_t n, bool flow)
{
    return plain_allowed(s, n, flow) && reads_as_string(s, n);
}

size_t break_or_c1(const char *p, size_t left)
{
    const unsigned char *u = (const unsigned char *)p;
    if (left >= 2 && u[0] == 0xc2 && u[1] >= 0x80 && u[1] <= 0x9f)
        return 2;
    if (left >= 3 && u[0] == 0xe2 && u[1] == 0x80 && (u[2] == 0xa8 || u[2] == 0xa9))
        return 3;
    if (left >= 3 && u[0] == 0xef && u[1] == 0xbf && (u[2] == 0xbe || u[2] == 0xbf))
        return 3;
    return 0;
}

static bool needs_escapes(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] >= 0xc2 && break_or_c1(s + i, n - i))
            return true;
    return false;
}

static bool single_quotable(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            return false;
    return true;
}

bool block_scalar_fits(const char *s, size_t n)
{
    if (strspn(s, "\n") >= n)
        return false; /* only line breaks: a literal block would read back as "" */
    if (needs_escapes(s, n))
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
            return false;
        /* trailing blanks on a line, or a last line of blanks, do not survive a literal block */
        if ((c == ' ' || c == '\t') && (i + 1 == n || s[i + 1] == '\n'))
            return false;
        if (c == '\t' && (i == 0 || s[i - 1] == '\n'))
            return false;
    }
    return true;
}

/* Literal block scalars hold text with newlines (the emitter's choice for them). */
static bool literal_fits(const char *s, size_t n)
{
    return memchr(s, '\n', n) && block_scalar_fits(s, n);
}

unsigned scalar_facts(const char *s, size_t n)
{
    /* 0: a byte no check cares about; 1: ':' (harmless unless a space follows); 2: anything else that matters */
    static unsigned char cls[256];
    if (!cls[0]) {
        for (int c = 0; c < 0x20; c++)
            cls[c] = 2;
        for (int c = 0x7f; c < 0x100; c++)
            cls[c] = 2;
        for (const char *p = "#,[]{}"; *p; p++)
            cls[(unsigned char)*p] = 2;
        cls[':'] = 1;
    }
    size_t i = 0;
    for (;;) {
        while (i < n && !cls[(unsigned char)s[i]])
            i++;
        if (i < n && cls[(unsigned char)s[i]] == 1 && (i + 1 == n || s[i + 1] != ' ')) {
            i++;
            continue;
        }
        break;
    }
    unsigned f = SF_KNOWN;
    if (i == n) {
        /* printable ASCII without breaks, escapes, comments or flow indicators: only the ends matter, and the same
         * way in flow as in block context */
        f |= SF_SINGLE;
        if (plain_ends_ok(s, n, false))
            f |= SF_PLAIN | SF_PLAIN_FLOW;
    } else {
        if (plain_allowed(s, n, false))
            f |= SF_PLAIN;
        if (plain_allowed(s, n, true))
            f |= SF_PLAIN_FLOW;
        if (needs_escapes(s, n))
            f |= SF_ESCAPES;
        if (single_quotable(s, n))
            f |= SF_SINGLE;
        if (literal_fits(s, n))
            f |= SF_LITERAL;
    }
    if (reads_as_string(s, n))
        f |= SF_STRING;
    return f;
}

/* ---- source layouts, for in-place writes
 *
 * kpt writes a package back keeping how each untouched scalar was written; the value alone does not say that for
 * block scalars on one line, folded ones, and plain or quoted ones over several lines. What the emitter needs is
 * kept in the node's side block (node.h, raw) in a form it can write at any nesting, and only after checking that
 * that form reads back as the value: the continuation lines' leading blanks are not content, so they go. */

size_t text_line_end(const char *d, size_t i, size_t n)
{
    while (i < n && d[i] != '\n' && d[i] != '\r')
        i++;
    return i;
}

size_t text_break_len(const char *d, size_t e, size_t n)
{
    return e >= n ? 0 : d[e] == '\r' && e + 1 < n && d[e + 1] == '\n' ? 2 : 1;
}

/* One line of a plain or quoted scalar as read: its characters to out (at *k), false for what is not kept (a
 * double-quoted escape outside \\ \" \n \t, a stray quote). *esc: the line ends in an escaped line break. */
static bool flow_segment(const char *s, size_t n, int style, char *out, size_t *k, bool *esc)
{
    *esc = false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (style == ST_SINGLE && c == '\'') {
            if (i + 1 >= n || s[i + 1] != '\'')
                return false;
            i++;
        } else if (style == ST_DOUBLE && c == '"') {
            return false;
        } else if (style == ST_DOUBLE && c == '\\') {
            if (i + 1 == n) {
                *esc = true;
                return true;
            }
            switch (s[++i]) {
            case '\\': c = '\\'; break;
            case '"': c = '"'; break;
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            default: return false;
            }
        }
        out[(*k)++] = c;
    }
    return true;
}

/* Whether lines (joined by '\n', continuation lines without their leading blanks) of a plain or quoted scalar
 * read back as val: between two lines a break folds to a space, k empty lines give k newlines, an escaped break
 * (double quotes) folds to nothing. */
static bool flow_reads_as(const char *s, size_t n, int style, const char *val, size_t vlen)
{
    char *out = xmalloc(n + 1); /* the value is never longer than its source */
    size_t k = 0, i = 0, empty = 0;
    bool esc = false, ok = true, first = true;
    while (ok) {
        size_t e = text_line_end(s, i, n);
        bool last = e >= n;
        if (!first && !last && e == i) {
            empty++;
        } else {
            if (!first) {
                for (size_t j = 0; j < empty; j++)
                    out[k++] = '\n';
                if (!empty && !esc)
                    out[k++] = ' ';
            }
            ok = flow_segment(s + i, e - i, style, out, &k, &esc) && !(last && esc);
            empty = 0;
            first = false;
        }
        if (last)
            break;
        i = e + 1;
    }
    ok = ok && k == vlen && !memcmp(out, val, k);
    xfree(out);
    return ok;
}

/* Whether the lines of a folded block scalar (joined by '\n', without their indentation, trailing empty lines
 * dropped) and its chomping read back as val. */
static bool folded_reads_as(const char *s, size_t n, char chomp, const char *val, size_t vlen)
{
    size_t trail = 0;
    while (trail < vlen && val[vlen - 1 - trail] == '\n')
        trail++;
    char *out = xmalloc(2 * n + vlen + 2);
    size_t k = 0, i = 0, empty = 0;
    int prev = 0; /* 0 none yet, 1 a text line, 2 a more-indented line */
    while (i < n) {
        size_t e = text_line_end(s, i, n);
        if (e == i) {
            empty++;
        } else {
            int kind = s[i] == ' ' ? 2 : 1;
            size_t nl = prev == 0 ? empty : prev == 1 && kind == 1 ? empty : empty + 1;
            if (prev == 1 && kind == 1 && !empty)
                out[k++] = ' ';
            for (size_t j = 0; j < nl && k < 2 * n + vlen; j++)
                out[k++] = '\n';
            memcpy(out + k, s + i, e - i);
            k += e - i;
            prev = kind;
            empty = 0;
        }
        i = e + (e < n);
    }
    bool ok = prev != 0;
    if (chomp == '+')
        ok = ok && trail >= 1, trail = ok ? trail : 0;
    else
        trail = chomp == '-' ? 0 : 1;
    if (ok && k + trail == vlen && !memcmp(out, val, k))
        for (size_t j = 0; j < trail && ok; j++)
            ok = val[k + j] == '\n';
    else
        ok = false;
    xfree(out);
    return ok;
}

/* The header line above a block scalar whose content starts at sm: its chomping ('-', '+', or 0 to clip) into
 * *chomp; false when the header is not found. */
static bool block_header(const char *d, size_t sm, char ind, char *chomp)
{
    if (sm == 0 || (d[sm - 1] != '\n' && d[sm - 1] != '\r'))
        return false;
    size_t he = sm - 1;
    if (d[he] == '\n' && he > 0 && d[he - 1] == '\r')
        he--;
    size_t hs = he;
    while (hs > 0 && d[hs - 1] != '\n' && d[hs - 1] != '\r')
        hs--;
    for (size_t i = hs; i < he; i++) {
        if (d[i] != ind || (i > hs && d[i - 1] != ' ' && d[i - 1] != '\t'))
            continue;
        size_t j = i + 1;
        char c = 0;
        while (j < he && (d[j] == '-' || d[j] == '+' || (d[j] >= '1' && d[j] <= '9'))) {
            if (d[j] == '-' || d[j] == '+')
                c = d[j];
            j++;
        }
        if (j == he || d[j] == ' ' || d[j] == '\t') {
            *chomp = c;
            return true;
        }
    }
    return false;
}

static const char *block_layout(arena *a, const char *d, size_t sm, size_t em, int style, const char *val,
                                size_t vlen)
{
    char chomp;
    if (!block_header(d, sm, style == ST_LITERAL ? '|' : '>', &chomp))
        return NULL;
    if (style == ST_LITERAL) {
        /* the text is the value; what the emitter would not choose by itself is the block on one line, and
         * keeping (+) one final line break */
        bool one_line = !memchr(val, '\n', vlen);
        bool ends_one = vlen && val[vlen - 1] == '\n' && (vlen < 2 || val[vlen - 2] != '\n');
        if (one_line && vlen && block_scalar_fits(val, vlen))
            return "|-"; /* whatever its header: only stripping reads back a value without a final break */
        if (chomp == '+' && ends_one)
            return "|+";
        return NULL;
    }
    /* folded: its lines, without the indentation they share */
    size_t indent = (size_t)-1, end = sm;
    for (size_t i = sm; i < em;) {
        size_t e = text_line_end(d, i, em), sp = i;
        while (sp < e && d[sp] == ' ')
            sp++;
        if (sp < e) {
            if (sp - i < indent)
                indent = sp - i;
            end = e;
        }
        i = e + text_break_len(d, e, em);
    }
    if (indent == (size_t)-1 || needs_escapes(val, vlen))
        return NULL;
    char *out = arena_alloc(a, 2 + (end - sm) + 2);
    size_t k = 0;
    out[k++] = '>';
    if (chomp)
        out[k++] = chomp;
    out[k++] = '\n';
    size_t body = k;
    for (size_t i = sm; i < end;) {
        size_t e = text_line_end(d, i, end), s = i;
        while (s < e && s - i < indent && d[s] == ' ')
            s++;
        if (s < e && (d[s] == '\t' || d[e - 1] == ' ' || d[e - 1] == '\t'))
            return NULL; /* a line starting with a tab, or blanks ending one */
        for (size_t j = s; j < e; j++)
            if ((unsigned char)d[j] < 0x20 && d[j] != '\t')
                return NULL;
        if (i > sm)
            out[k++] = '\n';
        memcpy(out + k, d + s, e - s);
        k += e - s;
        i = e + text_break_len(d, e, end);
    }
    out[k] = 0;
    return folded_reads_as(out + body, k - body, chomp, val, vlen) ? out : NULL;
}

const char *scalar_layout(arena *a, const char *d, size_t sm, size_t em, enum node_style style, const char *val,
                          size_t vlen)
{
    if (style == ST_LITERAL || style == ST_FOLDED)
        return block_layout(a, d, sm, em, style, val, vlen);
    const char *src = d + sm;
    size_t n = em - sm;
    if (style > ST_DOUBLE || (!memchr(src, '\n', n) && !memchr(src, '\r', n)) || memchr(src, '\t', n) ||
        needs_escapes(src, n))
        return NULL;
    char *out = arena_alloc(a, n + 1);
    size_t k = 0;
    for (size_t i = 0;;) {
        size_t e = text_line_end(src, i, n), b = i, t = e;
        if (i > 0) {
            while (b < e && src[b] == ' ')
                b++;
            out[k++] = '\n';
        }
        if (e < n) {
            /* blanks before a break are not content, unless the first is escaped (\ followed by a space) */
            while (t > b && src[t - 1] == ' ')
                t--;
            size_t bs = t;
            while (style == ST_DOUBLE && bs > b && src[bs - 1] == '\\')
                bs--;
            if (t < e && (t - bs) % 2)
                t++;
        }
        for (size_t j = b; j < t; j++)
            if ((unsigned char)src[j] < 0x20)
                return NULL;
        memcpy(out + k, src + b, t - b);
        k += t - b;
        if (e >= n)
            break;
        i = e + text_break_len(src, e, n);
    }
    out[k] = 0;
    return flow_reads_as(out, k, style, val, vlen) ? out : NULL;
}

bool scalar_layout_reads_as(const char *raw, enum node_style style, const char *val, size_t vlen)
{
    if (style == ST_LITERAL)
        return raw[0] == '|';
    if (style == ST_FOLDED) {
        const char *body = strchr(raw, '\n');
        return raw[0] == '>' && body && folded_reads_as(body + 1, strlen(body + 1), raw[1] == '\n' ? 0 : raw[1], val, vlen);
    }
    return style <= ST_DOUBLE && flow_reads_as(raw, strlen(raw), style, val, vlen);
}
