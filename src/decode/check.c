/* The rules of decode.h over one of our trees. Every node is visited once, depth first; a map is matched against
 * the struct of its level, and every node is held to the rules that need no schema (tags, merge keys, keys that are
 * collections), which hold at every depth. */
#include "decode/decode.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/diag.h"
#include "yaml/load.h"

/* The way down to the node being looked at, on a stack of our own: nesting as deep as the loader allows
 * (CMP_MAX_DEPTH, up to 100,000 levels) must not overflow the C stack. Frame 0 is the document; each other frame is
 * reached from the one below it by a key or an item's index, which messages turn into a field path. */
typedef struct frame {
    const node *n;
    const go_struct *t;     /* n is decoded into this struct (a map's keys are its fields), or NULL */
    const go_struct *items; /* n is a list of this struct, or NULL */
    const char *key;        /* how n is reached: a map key, or NULL for an item */
    uint32_t index;         /* the item's index */
    uint32_t next;          /* the next entry or item of n to look at */
    bool visited;           /* n's own rules have run */
    bool sanitized;         /* helm rewrites the text after decoding (GO_SANITIZED) */
    bool typed;             /* n is (an item of) a known field that is not data: decoded into a string or struct */
} frame;

typedef struct walk {
    const go_reader *r;
    frame *v;
    size_t n, cap;
} walk;

static void push(walk *w, frame f)
{
    if (w->n == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 64;
        w->v = xrealloc(w->v, w->cap * sizeof *w->v);
    }
    w->v[w->n++] = f;
}

/* The path of frames 1 .. depth-1 ("patches[1].target"), prefixed with the reader's at. */
static int refuse(const walk *w, size_t depth, int line, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int refuse(const walk *w, size_t depth, int line, const char *fmt, ...)
{
    const go_reader *r = w->r;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    buf path = {0};
    for (size_t i = 1; i < depth; i++) {
        if (depth > 25 && i == 9) { /* the first and last 8 steps of a deep path keep the message readable */
            buf_printf(&path, "...(%zu levels)...", depth - 17);
            i = depth - 9;
            continue;
        }
        if (w->v[i].key)
            buf_printf(&path, "%s%s", path.len ? "." : "", shown(r->a, w->v[i].key));
        else
            buf_printf(&path, "[%u]", w->v[i].index);
    }
    const char *at = r->at ? r->at : "";
    int rc = fail(r->file, r->line ? r->line : line, "%s%s%s%s%s", at, *at && path.len ? " " : "", buf_cstr(&path),
                  *at || path.len ? ": " : "", msg);
    buf_free(&path);
    return rc;
}

static char ascii_lower(unsigned char c)
{
    return (char)(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
}

/* encoding/json (Go 1.23, which built kubectl v1.31.9 and helm v3.17.3) matches an exact name first, then one equal
 * under Unicode simple case folding (bytes.EqualFold). The field names are ASCII, and the only runes outside ASCII
 * whose folding orbit holds an ASCII letter are U+017F (s, S) and U+212A (k, K). U+0130 and U+0131 (dotted and
 * dotless i) are not in i's orbit: kustomize calls "İmages" an unknown field (tried with kubectl v1.31.9). Any
 * other rune, a multi-byte one or one that encoding/json would have replaced with U+FFFD for being invalid UTF-8
 * (our loader refuses those anyway), matches no field. */
bool go_fold_equal(const char *key, const char *field)
{
    const unsigned char *k = (const unsigned char *)key;
    for (const unsigned char *f = (const unsigned char *)field; *f; f++) {
        char want = ascii_lower(*f);
        if (*k && *k < 0x80) {
            if (ascii_lower(*k) != want)
                return false;
            k++;
        } else if (k[0] == 0xC5 && k[1] == 0xBF) { /* U+017F LATIN SMALL LETTER LONG S */
            if (want != 's')
                return false;
            k += 2;
        } else if (k[0] == 0xE2 && k[1] == 0x84 && k[2] == 0xAA) { /* U+212A KELVIN SIGN */
            if (want != 'k')
                return false;
            k += 3;
        } else {
            return false;
        }
    }
    return *k == 0;
}

/* What helm's sanitizeString leaves alone for sure: printable ASCII (it maps every Unicode space to ' ' and drops
 * every rune unicode.IsPrint rejects; judging runes outside ASCII would take Unicode's tables). */
static const char *not_printable_ascii(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p >= 0x7f)
            return (const char *)p;
    return NULL;
}

/* The code point of the UTF-8 sequence at p (valid: the loader checked the text). */
static unsigned first_rune(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    if (p[0] < 0x80)
        return p[0];
    if (p[0] < 0xE0)
        return (p[0] & 0x1Fu) << 6 | (p[1] & 0x3Fu);
    if (p[0] < 0xF0)
        return (p[0] & 0x0Fu) << 12 | (p[1] & 0x3Fu) << 6 | (p[2] & 0x3Fu);
    return (p[0] & 0x07u) << 18 | (p[1] & 0x3Fu) << 12 | (p[2] & 0x3Fu) << 6 | (p[3] & 0x3Fu);
}

/* A map entry's key: refused for what the Go reader would make of it. f: the field it is the exact name of, or
 * NULL. */
static int check_key(const walk *w, const node *m, const go_struct *t, uint32_t i, const go_field **f)
{
    const go_reader *r = w->r;
    const node *k = map_key(m, i);
    int line = (int)map_key_line(m, i);
    *f = NULL;
    if (!is_scalar(k))
        return refuse(w, w->n, line, "a key that is a %s is refused: %s reads only string keys",
                      is_map(k) ? "mapping" : "sequence", r->tool);
    const char *key = scalar(k);
    if (node_tag(k))
        return refuse(w, w->n, line,
                      "the key \"%s\" has the tag \"%s\", which is refused: %s decodes tagged text by rules of its "
                      "own, so it could read another key than was checked; write the key untagged",
                      shown(r->a, key), shown(r->a, node_tag(k)), r->tool);
    if (!strcmp(key, "<<") && node_style(k) == ST_PLAIN)
        return refuse(w, w->n, line,
                      "the merge key \"<<\" is refused: %s merges it by rules of its own, so it could read other "
                      "fields than were checked; write the keys out",
                      r->tool);
    const go_field *folded = NULL;
    for (const go_field *g = t ? t->fields : NULL; g && g->name && !*f; g++) {
        if (!strcmp(key, g->name))
            *f = g;
        else if (!folded && go_fold_equal(key, g->name))
            folded = g;
    }
    if (*f || !folded)
        return 0;
    long exact = map_index(m, folded->name);
    char also[160] = "";
    if (exact >= 0)
        snprintf(also, sizeof also, ", which \"%s\" on line %u sets too (only one of them counts)", folded->name,
                 map_key_line(m, (uint32_t)exact));
    const char *odd = strstr(key, "\xC5\xBF")       ? "; its \"\xC5\xBF\" is U+017F, read as s"
                      : strstr(key, "\xE2\x84\xAA") ? "; its \"\xE2\x84\xAA\" is U+212A (Kelvin sign), read as k"
                                                   : "";
    return refuse(w, w->n, line,
                  "\"%s\" is refused: %s reads it as the field \"%s\" (keys are matched ignoring case%s)%s; write "
                  "\"%s\"",
                  shown(r->a, key), r->tool, folded->name, odd, also, folded->name);
}

/* What go-yaml v2 (YAML 1.1) makes of a plain scalar when it is not a string: NULL for a string (or null, which both
 * readers leave out), else "number" or "boolean". sigs.k8s.io/yaml then hands a number or boolean bound for a Go
 * string field to encoding/json as Go's own text for it (FormatInt, FormatFloat(v, 'g', -1, 32), "true"/"false"), so
 * "1e3", "0x3e8", "1_000", "+1000", "01750" and "1000.0" all become the string "1000", while our reader keeps the
 * text as written: a path checked as "1e3" would be opened as "1000". resolve.go's rules: '_' removed, then an int
 * as strconv.ParseInt/ParseUint(s, 0, 64) reads one (sign, 0x 0o 0b or a leading 0 for octal), a float as
 * yamlStyleFloat `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$` or .inf/.nan, YAML 1.1's booleans. */
static bool digits_of(const char *s, const char *set)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!strchr(set, *s))
            return false;
    return true;
}

static bool go_yaml_float(const char *s)
{
    static const char *const named[] = {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF",
                                        ".nan", ".NaN", ".NAN", NULL};
    for (int i = 0; named[i]; i++)
        if (!strcmp(s, named[i]))
            return true;
    if (*s == '+' || *s == '-')
        s++;
    size_t whole = strspn(s, "0123456789");
    if (!whole) {
        if (*s != '.' || !strchr("0123456789", s[1]) || !s[1])
            return false;
        s++;
        s += strspn(s, "0123456789");
    } else {
        s += whole;
        if (*s == '.')
            s += 1 + strspn(s + 1, "0123456789");
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        size_t e = strspn(s, "0123456789");
        if (!e)
            return false;
        s += e;
    }
    return !*s;
}

static bool go_yaml_int(const char *s)
{
    if (*s == '+' || *s == '-')
        s++;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        return digits_of(s + 2, "0123456789abcdefABCDEF");
    if (s[0] == '0' && (s[1] == 'o' || s[1] == 'O'))
        return digits_of(s + 2, "01234567");
    if (s[0] == '0' && (s[1] == 'b' || s[1] == 'B'))
        return digits_of(s + 2, "01");
    if (s[0] == '0')
        return !s[1] || digits_of(s + 1, "01234567");
    return digits_of(s, "0123456789");
}

static const char *go_yaml_non_string(arena *a, const char *text)
{
    static const char *const bools[] = {"y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO",
                                        "true", "True", "TRUE", "false", "False", "FALSE",
                                        "on", "On", "ON", "off", "Off", "OFF", NULL};
    for (int i = 0; bools[i]; i++)
        if (!strcmp(text, bools[i]))
            return "boolean";
    if (!*text || !strchr("+-.0123456789", *text))
        return NULL;
    buf b = {0};
    for (const char *p = text; *p; p++)
        if (*p != '_')
            buf_putc(&b, *p);
    const char *plain = arena_strndup(a, b.data ? b.data : "", b.len);
    buf_free(&b);
    return go_yaml_int(plain) || go_yaml_float(plain) ? "number" : NULL;
}

/* A plain scalar Go gets back as the very text we checked: a boolean written "true" or "false", an int written as
 * FormatInt writes it (no sign but '-', no leading zero, no '_', 18 digits at most so that no range question
 * arises). Anything else YAML 1.1 reads as a number or boolean is refused in a field Go decodes into a string. */
static const char *go_text_differs(arena *a, const char *text)
{
    const char *kind = go_yaml_non_string(a, text);
    if (!kind)
        return NULL;
    if (!strcmp(kind, "boolean"))
        return strcmp(text, "true") && strcmp(text, "false") ? kind : NULL;
    const char *d = text[0] == '-' ? text + 1 : text;
    bool canonical = digits_of(d, "0123456789") && strlen(d) <= 18 && (d[0] != '0' || (!d[1] && d == text));
    return canonical ? NULL : kind;
}

/* The rules of the node on top of the stack itself: its tag, and helm's sanitizing of its text. */
static int check_own(const walk *w)
{
    const go_reader *r = w->r;
    const frame *f = &w->v[w->n - 1];
    const char *tag = node_tag(f->n);
    if (tag)
        return refuse(w, w->n, (int)node_line(f->n),
                      "the tag \"%s\" is refused: %s decodes tagged values by rules of its own (\"!!binary\" text is "
                      "base64 to decode), so it could read another value than was checked; write the value untagged",
                      shown(r->a, tag), r->tool);
    const char *text = f->sanitized && is_scalar(f->n) && !is_null(f->n) ? scalar(f->n) : NULL;
    const char *odd = text ? not_printable_ascii(text) : NULL;
    if (odd)
        return refuse(w, w->n, (int)node_line(f->n),
                      "\"%s\" is refused: it holds U+%04X, and %s drops or rewrites control, space and non-ASCII "
                      "characters after reading (sanitizeString), so it would use another text than was checked; "
                      "write it in printable ASCII",
                      shown(r->a, text), first_rune(odd), r->tool);
    const char *kind = f->typed && is_scalar(f->n) && !is_null(f->n) && node_style(f->n) == ST_PLAIN
                           ? go_text_differs(r->a, scalar(f->n))
                           : NULL;
    if (kind)
        return refuse(w, w->n, (int)node_line(f->n),
                      "\"%s\" is refused: %s reads it (YAML 1.1) as a %s and, for a text field, uses its own text "
                      "for that %s (\"1e3\", \"0x3e8\" and \"1_000\" all become \"1000\"; \"yes\" becomes "
                      "\"true\"), not the text that was checked; quote it",
                      shown(r->a, scalar(f->n)), r->tool, kind, kind);
    return 0;
}

int go_check_doc(const go_reader *r, const node *doc, const go_struct *t)
{
    if (!doc)
        return 0;
    walk w = {.r = r};
    int rc = 0;
    push(&w, (frame){.n = doc, .t = t});
    while (rc == 0 && w.n) {
        frame *f = &w.v[w.n - 1];
        if (!f->visited) {
            f->visited = true;
            if ((rc = check_own(&w)) < 0)
                break;
        }
        const node *n = f->n;
        uint32_t i = f->next++;
        if (is_map(n) && i < node_len(n)) {
            const go_field *field;
            const go_struct *in = f->t;
            if ((rc = check_key(&w, n, in, i, &field)) < 0)
                break;
            bool list = field && (field->flags & GO_LIST);
            push(&w, (frame){.n = map_val(n, i), .t = field && !list ? field->of : NULL,
                             .items = list ? field->of : NULL, .key = scalar(map_key(n, i)),
                             .sanitized = field && (field->flags & GO_SANITIZED),
                             .typed = field && !(field->flags & (GO_DATA | GO_UNREAD))});
        } else if (is_seq(n) && i < node_len(n)) {
            push(&w, (frame){.n = seq_item(n, i), .t = f->items, .index = i, .sanitized = f->sanitized,
                             .typed = f->typed});
        } else {
            w.n--;
        }
    }
    xfree(w.v);
    return rc;
}

int go_check_text(const go_reader *r, const char *text, size_t len)
{
    int line = 1;
    for (size_t i = 0; i < len; i++) {
        const unsigned char *p = (const unsigned char *)text + i;
        const char *what = NULL;
        if (p[0] == '\n' || (p[0] == '\r' && (i + 1 >= len || p[1] != '\n')))
            line++;
        else if (p[0] == 0xC2 && i + 1 < len && p[1] == 0x85)
            what = "U+0085 (next line)";
        else if (p[0] == 0xE2 && i + 2 < len && p[1] == 0x80 && (p[2] == 0xA8 || p[2] == 0xA9))
            what = p[2] == 0xA8 ? "U+2028 (line separator)" : "U+2029 (paragraph separator)";
        walk w = {.r = r};
        if (what)
            return refuse(&w, 0, line,
                          "the character %s is refused: %s's YAML reader (YAML 1.1) ends a line there and ours "
                          "(YAML 1.2) does not, so it would read other keys than were checked; in a quoted value "
                          "write it as an escape",
                          what, r->tool);
    }
    return 0;
}

int go_load_chart_file(arena *a, strtab *st, const load_limits *lim, const char *display, const char *base_name,
                       const char *text, size_t len, node **out)
{
    go_reader r = {a, display, "helm", 0, ""};
    *out = NULL;
    if (go_check_text(&r, text, len) < 0 ||
        yaml_load_one_flags(a, st, lim, display, text, len, YAML_KEEP_MERGE_KEYS, out) < 0)
        return -1;
    return go_check_doc(&r, *out, go_helm_chart_file(base_name));
}
