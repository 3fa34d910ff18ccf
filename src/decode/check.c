/* The rules of decode.h over one of our trees. Every node is visited once; a map is matched against the struct of
 * its level, and any other collection is walked for the rules that need no schema (tags, merge keys, keys that are
 * collections), which hold at every depth. */
#include "decode/decode.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/buf.h"
#include "util/diag.h"
#include "yaml/load.h"

/* Where a node sits, for messages: a chain up the C stack, turned into text only when something is refused. */
typedef struct step {
    const struct step *up;
    const char *key; /* a map entry's key; NULL for a sequence item */
    uint32_t index;
} step;

static void put_path(const go_reader *r, buf *b, const step *s)
{
    if (!s)
        return;
    put_path(r, b, s->up);
    if (s->key)
        buf_printf(b, "%s%s", b->len ? "." : "", shown(r->a, s->key));
    else
        buf_printf(b, "[%u]", s->index);
}

static int refuse(const go_reader *r, const step *where, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int refuse(const go_reader *r, const step *where, int line, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    buf path = {0};
    put_path(r, &path, where);
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

static int check_node(const go_reader *r, const node *n, const go_struct *t, const step *where);

static int check_sanitized(const go_reader *r, const node *v, const step *where)
{
    const node *one[1] = {v};
    uint32_t count = is_seq(v) ? node_len(v) : 1;
    for (uint32_t i = 0; i < count; i++) {
        const node *s = is_seq(v) ? seq_item(v, i) : one[0];
        const char *text = scalar(s), *odd = text && !is_null(s) ? not_printable_ascii(text) : NULL;
        if (!odd)
            continue;
        step item = {where, NULL, i};
        return refuse(r, is_seq(v) ? &item : where, (int)node_line(s),
                      "\"%s\" is refused: it holds U+%04X, and %s drops or rewrites control, space and non-ASCII "
                      "characters after reading (sanitizeString), so it would use another text than was checked; "
                      "write it in printable ASCII",
                      shown(r->a, text), first_rune(odd), r->tool);
    }
    return 0;
}

static int check_map(const go_reader *r, const node *m, const go_struct *t, const step *where)
{
    for (uint32_t i = 0; i < node_len(m); i++) {
        const node *k = map_key(m, i);
        int line = (int)map_key_line(m, i);
        if (!is_scalar(k))
            return refuse(r, where, line, "a key that is a %s is refused: %s reads only string keys",
                          is_map(k) ? "mapping" : "sequence", r->tool);
        const char *key = scalar(k);
        if (node_tag(k))
            return refuse(r, where, line,
                          "the key \"%s\" has the tag \"%s\", which is refused: %s decodes tagged text by rules of "
                          "its own, so it could read another key than was checked; write the key untagged",
                          shown(r->a, key), shown(r->a, node_tag(k)), r->tool);
        if (!strcmp(key, "<<") && node_style(k) == ST_PLAIN)
            return refuse(r, where, line,
                          "the merge key \"<<\" is refused: %s merges it by rules of its own, so it could read other "
                          "fields than were checked; write the keys out",
                          r->tool);
        const go_field *f = NULL, *folded = NULL;
        for (const go_field *g = t ? t->fields : NULL; g && g->name && !f; g++) {
            if (!strcmp(key, g->name))
                f = g;
            else if (!folded && go_fold_equal(key, g->name))
                folded = g;
        }
        if (!f && folded) {
            long exact = map_index(m, folded->name);
            char also[160] = "";
            if (exact >= 0)
                snprintf(also, sizeof also, ", which \"%s\" on line %u sets too (only one of them counts)",
                         folded->name, map_key_line(m, (uint32_t)exact));
            const char *odd = strstr(key, "\xC5\xBF")   ? "; its \"\xC5\xBF\" is U+017F, read as s"
                              : strstr(key, "\xE2\x84\xAA") ? "; its \"\xE2\x84\xAA\" is U+212A (Kelvin sign), read as k"
                                                          : "";
            return refuse(r, where, line,
                          "\"%s\" is refused: %s reads it as the field \"%s\" (keys are matched ignoring case%s)%s; "
                          "write \"%s\"",
                          shown(r->a, key), r->tool, folded->name, odd, also, folded->name);
        }
        step here = {where, key, 0};
        const node *v = map_val(m, i);
        if (f && (f->flags & GO_SANITIZED) && check_sanitized(r, v, &here) < 0)
            return -1;
        if (f && (f->flags & GO_LIST) && f->of && is_seq(v)) {
            if (node_tag(v))
                return check_node(r, v, NULL, &here);
            for (uint32_t j = 0; j < node_len(v); j++) {
                step item = {&here, NULL, j};
                if (check_node(r, seq_item(v, j), f->of, &item) < 0)
                    return -1;
            }
        } else if (check_node(r, v, f && !(f->flags & GO_LIST) ? f->of : NULL, &here) < 0) {
            return -1;
        }
    }
    return 0;
}

/* t: the struct n is decoded into, or NULL (data, scalars, or a shape the tool refuses itself). */
static int check_node(const go_reader *r, const node *n, const go_struct *t, const step *where)
{
    if (!n)
        return 0;
    const char *tag = node_tag(n);
    if (tag)
        return refuse(r, where, (int)node_line(n),
                      "the tag \"%s\" is refused: %s decodes tagged values by rules of its own (\"!!binary\" text is "
                      "base64 to decode), so it could read another value than was checked; write the value untagged",
                      shown(r->a, tag), r->tool);
    if (is_map(n))
        return check_map(r, n, t, where);
    for (uint32_t i = 0; is_seq(n) && i < node_len(n); i++) {
        step item = {where, NULL, i};
        if (check_node(r, seq_item(n, i), NULL, &item) < 0)
            return -1;
    }
    return 0;
}

int go_check_doc(const go_reader *r, const node *doc, const go_struct *t)
{
    return check_node(r, doc, t, NULL);
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
        if (what)
            return refuse(r, NULL, line,
                          "the character %s is refused: %s's YAML reader (YAML 1.1) ends a line there and ours "
                          "(YAML 1.2) does not, so it would read other keys than were checked; in a quoted value "
                          "write it as an escape",
                          what, r->tool);
    }
    return 0;
}

int go_load_chart_file(arena *a, strtab *st, const char *display, const char *base_name, const char *text, size_t len,
                       node **out)
{
    go_reader r = {a, display, "helm", 0, ""};
    *out = NULL;
    if (go_check_text(&r, text, len) < 0 ||
        yaml_load_one_flags(a, st, display, text, len, YAML_KEEP_MERGE_KEYS, out) < 0)
        return -1;
    return go_check_doc(&r, *out, go_helm_chart_file(base_name));
}
