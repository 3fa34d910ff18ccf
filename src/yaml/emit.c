#include "yaml/emit.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yaml/node.h"
#include "yaml/scalar_text.h"

/* The emitter's writes: while the buffer has room (nearly always), without a call. */
static inline void put(buf *b, const char *s, size_t n)
{
    if (b->cap - b->len > n) {
        memcpy(b->data + b->len, s, n);
        b->len += n;
    } else {
        buf_put(b, s, n);
    }
}

static inline void putch(buf *b, char c)
{
    if (b->cap - b->len > 1)
        b->data[b->len++] = c;
    else
        buf_putc(b, c);
}

static inline void spaces(buf *b, int n)
{
    if (b->cap - b->len > (size_t)n) {
        memset(b->data + b->len, ' ', (size_t)n);
        b->len += (size_t)n;
    } else {
        buf_indent(b, n);
    }
}

typedef struct emitter {
    buf *b;
    const emit_opts *o;
} emitter;

/* Comment text: no escapes there, so those characters become spaces rather than end the comment early for a 1.1
 * reader, which would read the rest of the line as YAML the pipeline never saw. */
static void put_comment_text(buf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t k = (unsigned char)s[i] >= 0xc2 ? break_or_c1(s + i, n - i) : 0;
        if (k) {
            putch(b, ' ');
            i += k;
        } else {
            putch(b, s[i++]);
        }
    }
}

static void put_double_quoted(buf *b, const char *s, size_t n)
{
    putch(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        size_t k = c >= 0xc2 ? break_or_c1(s + i, n - i) : 0;
        if (k) {
            const unsigned char *u = (const unsigned char *)s + i;
            unsigned cp = k == 2 ? u[1] : ((u[0] & 0x0fu) << 12) | ((u[1] & 0x3fu) << 6) | (u[2] & 0x3fu);
            if (cp == 0x85)
                put(b, "\\N", 2);
            else if (cp == 0x2028)
                put(b, "\\L", 2);
            else if (cp == 0x2029)
                put(b, "\\P", 2);
            else if (cp < 0x100)
                buf_printf(b, "\\x%02x", cp);
            else
                buf_printf(b, "\\u%04x", cp);
            i += k - 1;
            continue;
        }
        switch (c) {
        case '"': put(b, "\\\"", 2); break;
        case '\\': put(b, "\\\\", 2); break;
        case '\n': put(b, "\\n", 2); break;
        case '\t': put(b, "\\t", 2); break;
        case '\r': put(b, "\\r", 2); break;
        case 0: put(b, "\\0", 2); break;
        default:
            if (c < 0x20 || c == 0x7f)
                buf_printf(b, "\\x%02x", c);
            else
                putch(b, (char)c);
        }
    }
    putch(b, '"');
}

static void put_single_quoted(buf *b, const char *s, size_t n)
{
    putch(b, '\'');
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\'')
            putch(b, '\'');
        putch(b, s[i]);
    }
    putch(b, '\'');
}

/* The facts about a scalar's text (see scalar_facts). */
static unsigned facts(const node *n)
{
    return node_facts(n);
}

static bool literal_ok(const node *n)
{
    return n->kind == N_SCALAR && (facts(n) & SF_LITERAL);
}

static void put_tag(buf *b, const node *n)
{
    const char *t = ntag(n);
    if (t) {
        buf_puts(b, t);
        putch(b, ' ');
    }
}

/* A scalar on one line (key, value, item, or inside flow). */
/* f: facts(n) */
static void put_inline_scalar(buf *b, const node *n, unsigned f, bool flow)
{
    const char *s = nstr(n);
    size_t len = strlen(s);
    bool plain = f & (flow ? SF_PLAIN_FLOW : SF_PLAIN);
    put_tag(b, n);
    if (f & SF_ESCAPES) {
        put_double_quoted(b, s, len);
        return;
    }
    switch (n->style) {
    case ST_PLAIN:
        if (!len) {
            /* "!!null" or "!" alone: the tag without its separating space, but in flow, where libyaml (and Go's
             * yaml) would read a "," "]" or "}" right after it as part of the tag ("{k: !!null }") */
            if (ntag(n) && !flow)
                b->len--;
            return;
        }
        if (plain) {
            put(b, s, len);
            return;
        }
        break;
    case ST_SINGLE:
        if (f & SF_SINGLE) {
            put_single_quoted(b, s, len);
            return;
        }
        break;
    case ST_DOUBLE:
        break;
    default: /* made strings and single-line block scalars */
        if (plain && (ntag(n) || (f & SF_STRING))) {
            put(b, s, len);
            return;
        }
        /* kyaml's choice: text that would read as another type gets double quotes, text that only breaks plain
         * syntax gets single quotes. */
        if (plain || !(f & SF_SINGLE) || ntag(n))
            break;
        put_single_quoted(b, s, len);
        return;
    }
    put_double_quoted(b, s, len);
}

static void put_comment(emitter *E, const node *n)
{
    const char *c = ncomment(n);
    if (c && E->o->comments) {
        put(E->b, " # ", c[0] ? 3 : 2);
        put_comment_text(E->b, c, strlen(c));
    }
}

/* A scalar's line comment, else its key's ("key: # text" over a value on the next line): where the loader gives
 * the first back to the value, and reads the second as the value's once the value is written on the key's line. */
static void put_scalar_comment(emitter *E, const node *v, const node *key)
{
    put_comment(E, v);
    if (key && !ncomment(v))
        put_comment(E, key);
}

/* keep: write "+" (keep) for a text ending in one line break, which "|" (clip) reads back the same. The line
 * comment goes after the header ("k: |- # c"), the one place on a block scalar's lines that is not its text. */
static void put_literal(emitter *E, const node *n, const node *key, int indent, bool keep)
{
    buf *b = E->b;
    const char *s = nstr(n);
    size_t len = strlen(s);
    put_tag(b, n);
    putch(b, '|');
    if (len && (s[0] == ' ' || s[0] == '\n'))
        putch(b, '2');
    if (len == 0 || s[len - 1] != '\n')
        putch(b, '-');
    else if (keep || (len >= 2 && s[len - 2] == '\n'))
        putch(b, '+');
    put_scalar_comment(E, n, key);
    putch(b, '\n');
    size_t i = 0;
    while (i < len) {
        const char *e = memchr(s + i, '\n', len - i);
        size_t end = e ? (size_t)(e - s) : len;
        if (end > i)
            spaces(b, indent);
        put(b, s + i, end - i);
        putch(b, '\n');
        i = end + 1;
    }
}

/* After a collection written inline at the root or as an item: its foot's first line on the same line, where the
 * loader finds it again. At the root (rest_below) the other lines go below it, where the loader found them (the
 * first is empty when none was on the collection's line); they are returned for that. An item's foot has one
 * line; one of several, which only a program makes, goes out on that line too. */
static const char *put_foot_inline(emitter *E, const node *n, bool rest_below)
{
    const char *f = nfoot(n);
    if (!f || !E->o->comments)
        return NULL;
    for (const char *p = f;;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len) { /* the line holds its "#" */
            putch(E->b, ' ');
            put_comment_text(E->b, p, len);
        }
        if (!e)
            return NULL;
        p = e + 1;
        if (rest_below)
            return p;
    }
}

static void put_head(emitter *E, const char *head, int indent)
{
    if (!head || !E->o->comments)
        return;
    const char *p = head;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n) {
            spaces(E->b, indent);
            put_comment_text(E->b, p, n);
        }
        putch(E->b, '\n');
        p += n + (e ? 1 : 0);
    }
}

static void put_flow(buf *b, const node *n);

/* A tag may hold colons ("!!null:" is one tag), so a key written as its tag alone keeps a space before its colon. */
static void put_key(buf *b, const node *k, bool flow)
{
    if (k->kind == N_SCALAR) {
        put_inline_scalar(b, k, facts(k), flow);
        if (!*nstr(k) && k->style == ST_PLAIN && ntag(k) && !flow) /* (in flow its space is kept) */
            putch(b, ' ');
    } else {
        put_flow(b, k);
    }
    putch(b, ':');
}

/* A null written as nothing: kept in block style ("key:", "-") and as a flow map's value ("{key: }"). */
static bool empty_null(const node *n)
{
    return n->kind == N_SCALAR && n->style == ST_PLAIN && !*nstr(n) && !ntag(n);
}

static void put_flow(buf *b, const node *n)
{
    if (n->kind == N_SCALAR) {
        put_inline_scalar(b, n, facts(n), true);
        return;
    }
    put_tag(b, n);
    bool m = n->kind == N_MAP;
    putch(b, m ? '{' : '[');
    const struct kids *k = nkids(n);
    for (uint32_t i = 0; k && i < k->n; i++) {
        if (i)
            put(b, ", ", 2);
        if (m) {
            put_key(b, map_key(n, i), true);
            putch(b, ' ');
            put_flow(b, map_val(n, i)); /* "{key: }" with a null value reads back the same */
        } else if (empty_null(k->v[i])) {
            /* "[a, , b]" is not YAML: the null's one spelling that every reader (YAML 1.1, 1.2, JSON) reads so */
            put(b, "null", 4);
        } else {
            put_flow(b, k->v[i]);
        }
    }
    putch(b, m ? '}' : ']');
}

/* Can this collection be written in flow style? Not when a null key hides in it: "{: v}" is not read by libyaml
 * (nor Go's yaml), and "null" or "~" would make it a string key; the block style's "? " form keeps it. */
static bool flow_safe(const node *n)
{
    const struct kids *k = nkids(n);
    uint32_t slots = !k ? 0 : n->kind == N_MAP ? 2 * k->n : k->n;
    for (uint32_t i = 0; i < slots; i++) {
        const node *c = k->v[i];
        if (c->kind == N_SCALAR ? n->kind == N_MAP && i % 2 == 0 && empty_null(c) : !flow_safe(c))
            return false;
    }
    return true;
}

static bool inline_collection(const node *n)
{
    return n->kind != N_SCALAR && (nkids_n(n) == 0 || (n->style == ST_FLOW && flow_safe(n)));
}

static void emit_map(emitter *E, const node *m, int indent, bool first_inline, bool line_as_foot);
static void emit_seq(emitter *E, const node *s, int indent, bool first_inline, bool line_as_foot);

/* Lines joined by '\n' at indent (an empty one stays empty, but for the last with last_indented: a closing quote
 * must be indented); the first goes on the current line. */
static void put_lines(buf *b, const char *s, int indent, bool last_indented)
{
    for (bool first = true;; first = false) {
        const char *e = strchr(s, '\n');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (!first) {
            putch(b, '\n');
            if (n || (!e && last_indented))
                spaces(b, indent);
        }
        put(b, s, n);
        if (!e)
            return;
        s = e + 1;
    }
}

/* In-place writes: a scalar as read, in the layout the loader kept for it (node.h, raw; the loader checked that
 * it reads back as the text). false when there is none, or when the text needs what only the emitter's own
 * choice gives (escapes, or quotes for a plain one). */
static bool put_kept(emitter *E, const node *v, const node *key, unsigned f, int indent)
{
    const char *raw = nraw(v);
    buf *b = E->b;
    if (!raw || (f & SF_ESCAPES))
        return false;
    const char *s = nstr(v);
    size_t len = strlen(s);
    if (!scalar_layout_reads_as(raw, v->style, s, len))
        return false;
    switch (v->style) {
    case ST_LITERAL:
        if (raw[0] != '|' || !block_scalar_fits(s, len))
            return false;
        putch(b, ' ');
        put_literal(E, v, key, indent, raw[1] == '+');
        return true;
    case ST_FOLDED: {
        if (raw[0] != '>')
            return false;
        const char *body = strchr(raw, '\n') + 1;
        putch(b, ' ');
        put_tag(b, v);
        putch(b, '>');
        if (body[strspn(body, "\n")] == ' ')
            putch(b, '2'); /* the first line is more indented than the rest */
        if (raw[1] != '\n')
            putch(b, raw[1]);
        put_scalar_comment(E, v, key);
        putch(b, '\n');
        if (*body != '\n')
            spaces(b, indent);
        put_lines(b, body, indent, false);
        putch(b, '\n');
        /* keep (+): the final line break is the last line's; the others are empty lines */
        for (size_t i = len; raw[1] == '+' && i > 1 && s[i - 2] == '\n'; i--)
            putch(b, '\n');
        return true;
    }
    case ST_PLAIN:
        /* one that the emitter would write plain, or whose line breaks make it a string to every reader */
        if (!(f & SF_PLAIN) && !((f & SF_STRING) && memchr(s, '\n', len)))
            return false;
        break;
    case ST_SINGLE: /* the layout holds no control characters: the value's line breaks are its empty lines */
    case ST_DOUBLE:
        break;
    default:
        return false;
    }
    char q = v->style == ST_SINGLE ? '\'' : v->style == ST_DOUBLE ? '"' : 0;
    putch(b, ' ');
    put_tag(b, v);
    if (q)
        putch(b, q);
    put_lines(b, raw, indent, q != 0);
    if (q)
        putch(b, q);
    put_scalar_comment(E, v, key);
    putch(b, '\n');
    return true;
}

/* A collection value's line comment, then its key's: one comment on the key's line when read back ("# a # b"),
 * where an empty one would add a "#" of its own. */
static void put_entry_comments(emitter *E, const node *v, const node *key)
{
    if (ncomment(v) && (*ncomment(v) || !ncomment(key)))
        put_comment(E, v);
    put_comment(E, key);
}

/* What follows "key:" or "- ": the rest of the line and any block below. indent: where the block content goes. */
static void emit_after(emitter *E, const node *v, const node *key, int indent, int seq_indent)
{
    buf *b = E->b;
    if (v->kind == N_SCALAR) {
        unsigned f = facts(v);
        if (E->o->keep_style && put_kept(E, v, key, f, indent))
            return;
        if ((f & SF_LITERAL) && (v->style == ST_LITERAL || v->style == ST_FOLDED || v->style == ST_STRING ||
                              (v->style == ST_PLAIN) || (v->style == ST_SINGLE))) {
            putch(b, ' ');
            put_literal(E, v, key, indent, false);
            return;
        }
        size_t before = b->len;
        putch(b, ' ');
        put_inline_scalar(b, v, f, false);
        if (b->len == before + 1)
            b->len = before; /* "key:" for a null value: the loader gives "key: # text" to the key */
        put_scalar_comment(E, v, key);
        putch(b, '\n');
        return;
    }
    if (inline_collection(v)) {
        putch(b, ' ');
        put_flow(b, v);
        if (key)
            put_entry_comments(E, v, key);
        else
            put_foot_inline(E, v, false);
        putch(b, '\n');
        return;
    }
    if (ntag(v)) {
        putch(b, ' ');
        buf_puts(b, ntag(v));
    }
    /* A block collection's comment is its key's ("key: # c"): a flow one's line comment ("key: [a] # c") goes
     * there when it is written in block style (a null inside, or restyled), before the key's own, in the order
     * the flow layout writes them. kyaml's setters read a block list's comment on its key. */
    if (key)
        put_entry_comments(E, v, key);
    putch(b, '\n');
    if (v->kind == N_MAP) {
        emit_map(E, v, indent, false, false);
        return;
    }
    /* libfyaml 0.7 rejects an empty item in a sequence written level with its key ("k:\n-\n- a"): indent
     * such a sequence under its key instead */
    const struct kids *k = nkids(v);
    if (nfoot(v) && E->o->comments)
        seq_indent = indent; /* level with its key, its foot would read back as the next key's head */
    for (uint32_t i = 0; k && i < k->n && seq_indent < indent; i++)
        if (k->v[i]->kind == N_SCALAR && !*nstr(k->v[i]) && k->v[i]->style == ST_PLAIN)
            seq_indent = indent;
    emit_seq(E, v, seq_indent, false, false);
}

/* A block collection's foot, after its entries at their indentation. line_as_foot (the root, an item): a line
 * comment it has (which the program gave it: the loader gives these positions a foot) goes first, the place
 * where it reads back. */
static void put_foot(emitter *E, const node *n, int indent, bool line_as_foot)
{
    if (line_as_foot && ncomment(n) && E->o->comments) {
        spaces(E->b, indent);
        put(E->b, "# ", *ncomment(n) ? 2 : 1);
        put_comment_text(E->b, ncomment(n), strlen(ncomment(n)));
        putch(E->b, '\n');
    }
    const char *f = nfoot(n);
    put_head(E, f && *f == '\n' ? f + 1 : f, indent); /* a flow root's, with nothing on its last line */
}

static void emit_map(emitter *E, const node *m, int indent, bool first_inline, bool line_as_foot)
{
    int seq_indent = E->o->seq_wide ? indent + 2 : indent;
    const struct kids *kv = nkids(m);
    for (uint32_t i = 0; kv && i < kv->n; i++) {
        const node *k = kv->v[2 * i], *v = kv->v[2 * i + 1];
        if (!(first_inline && i == 0)) {
            put_head(E, nhead(k), indent);
            spaces(E->b, indent);
        }
        if (k->kind == N_SCALAR && k->style == ST_PLAIN && !*nstr(k) && !ntag(k)) {
            /* a null key: the explicit "? " form keeps it null (quoting it would make it a string) */
            buf_puts(E->b, "?\n");
            spaces(E->b, indent);
            putch(E->b, ':');
            emit_after(E, v, k, indent + 2, seq_indent);
            continue;
        }
        put_key(E->b, k, false);
        emit_after(E, v, k, indent + 2, seq_indent);
    }
    put_foot(E, m, indent, line_as_foot);
}

/* After "- ", the head of the first key of the item's map (or the first item of its sequence): its first line stays
 * on the dash's line, as kyaml writes it and reads it back (a head above the dash is the item's own). */
static void put_first_key_head(emitter *E, const char *head, int indent)
{
    const char *e = strchr(head, '\n');
    size_t n = e ? (size_t)(e - head) : strlen(head);
    put_comment_text(E->b, head, n);
    putch(E->b, '\n');
    if (e)
        put_head(E, e + 1, indent);
    spaces(E->b, indent);
}

static void emit_seq(emitter *E, const node *s, int indent, bool first_inline, bool line_as_foot)
{
    const struct kids *k = nkids(s);
    for (uint32_t i = 0; k && i < k->n; i++) {
        const node *v = k->v[i];
        if (!(first_inline && i == 0)) {
            put_head(E, nhead(v), indent);
            spaces(E->b, indent);
        }
        putch(E->b, '-');
        if (v->kind != N_SCALAR && !inline_collection(v)) {
            putch(E->b, ' ');
            /* the first key's or item's head goes after the dash, where the loader hands it on (item_heads) */
            const char *kh = !E->o->comments ? NULL : nhead(v->kind == N_MAP ? map_key(v, 0) : seq_item(v, 0));
            if (ntag(v)) {
                buf_puts(E->b, ntag(v));
                putch(E->b, '\n');
                put_head(E, kh, indent + 2);
                spaces(E->b, indent + 2);
            } else if (kh) {
                put_first_key_head(E, kh, indent + 2);
            }
            if (v->kind == N_MAP)
                emit_map(E, v, indent + 2, true, true);
            else
                emit_seq(E, v, indent + 2, true, true);
            continue;
        }
        emit_after(E, v, NULL, indent + 2, indent + 2);
    }
    put_foot(E, s, indent, line_as_foot);
}

void emit_yaml(buf *b, const node *root, const emit_opts *o)
{
    emit_opts def = {.seq_wide = false, .comments = true};
    emitter E = {b, o ? o : &def};
    if (!root)
        return;
    const struct doc_text *doc = E.o->documents && E.o->comments ? ndoc(root) : NULL;
    if (doc)
        put_head(&E, doc->before, 0);
    put_head(&E, nhead(root), 0); /* an empty flow root's (the loader gives a root's to its first entry) */
    if (inline_collection(root) && nkids_n(root)) /* written above the root in flow style too */
        put_head(&E, nhead(root->kind == N_MAP ? map_key(root, 0) : seq_item(root, 0)), 0);
    if (root->kind != N_SCALAR && !inline_collection(root) && ntag(root)) {
        buf_puts(b, ntag(root)); /* a tag on its own line applies to the block collection below it */
        putch(b, '\n');
    }
    if (root->kind == N_MAP && !inline_collection(root)) {
        emit_map(&E, root, 0, false, true);
    } else if (root->kind == N_SEQ && !inline_collection(root)) {
        emit_seq(&E, root, 0, false, true);
    } else if (root->kind == N_SCALAR && literal_ok(root)) {
        if (ntag(root))
            buf_puts(b, "--- "); /* a tagged block scalar at the root needs the document start before it */
        put_literal(&E, root, NULL, 2, false);
    } else {
        if (root->kind == N_SCALAR)
            put_inline_scalar(b, root, facts(root), false);
        else
            put_flow(b, root);
        put_comment(&E, root);
        const char *below = root->kind != N_SCALAR ? put_foot_inline(&E, root, true) : NULL;
        putch(b, '\n');
        put_head(&E, below, 0);
    }
    if (doc)
        put_head(&E, doc->after, 0);
}

/* JSON */

static void put_json_string(buf *b, const char *s, size_t n)
{
    putch(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"': put(b, "\\\"", 2); break;
        case '\\': put(b, "\\\\", 2); break;
        case '\n': put(b, "\\n", 2); break;
        case '\t': put(b, "\\t", 2); break;
        case '\r': put(b, "\\r", 2); break;
        case '\b': put(b, "\\b", 2); break;
        case '\f': put(b, "\\f", 2); break;
        default:
            if (c < 0x20 || c == 0x7f)
                buf_printf(b, "\\u%04x", c);
            else
                putch(b, (char)c);
        }
    }
    putch(b, '"');
}

/* YAML 1.1's base 60 without its sign: [0-9]+(:[0-5]?[0-9])+, the value to *out when it fits in an int64. Any other
 * text (an !!int tag may sit on anything) is not a number and stays a string. */
static bool base60(const char *p, unsigned long long *out)
{
    unsigned long long v = 0;
    int parts = 0;
    for (;;) {
        bool first = parts++ == 0;
        size_t len = strspn(p, "0123456789");
        if (!len || (!first && (len > 2 || (len == 2 && p[0] > '5'))))
            return false;
        unsigned long long part = 0;
        for (size_t i = 0; i < len; i++) {
            if (part > ((unsigned long long)LLONG_MAX - (unsigned)(p[i] - '0')) / 10)
                return false;
            part = part * 10 + (unsigned)(p[i] - '0');
        }
        if (!first && v > ((unsigned long long)LLONG_MAX - part) / 60)
            return false;
        v = first ? part : v * 60 + part;
        p += len;
        if (!*p)
            break;
        if (*p++ != ':')
            return false;
    }
    *out = v;
    return parts > 1;
}

static void put_json_number(buf *b, const char *s, size_t n, enum scalar_type t)
{
    char tmp[128];
    if (n >= sizeof tmp) {
        put_json_string(b, s, n);
        return;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] != '_')
            tmp[m++] = s[i];
    tmp[m] = 0;
    errno = 0;
    if (t == T_INT) {
        char *end;
        const char *p = tmp;
        int neg = 0;
        if (*p == '+' || *p == '-')
            neg = *p++ == '-';
        int base = 10;
        if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
            base = 16, p += 2;
        else if (p[0] == '0' && (p[1] == 'o' || p[1] == 'O'))
            base = 8, p += 2;
        else if (p[0] == '0' && (p[1] == 'b' || p[1] == 'B'))
            base = 2, p += 2;
        else if (p[0] == '0' && p[1])
            base = 8;
        if (strchr(p, ':')) { /* base 60 */
            unsigned long long v;
            if (base60(p, &v))
                buf_printf(b, "%s%llu", neg && v ? "-" : "", v);
            else
                put_json_string(b, s, n);
            return;
        }
        unsigned long long v = strtoull(p, &end, base);
        if (errno || *end) {
            put_json_string(b, s, n);
            return;
        }
        buf_printf(b, "%s%llu", neg && v ? "-" : "", v);
        return;
    }
    char *end;
    double d = strtod(tmp, &end);
    if (*end || isinf(d) || isnan(d)) {
        put_json_string(b, s, n);
        return;
    }
    char out[64];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(out, sizeof out, "%.*g", prec, d);
        if (strtod(out, NULL) == d)
            break;
    }
    buf_puts(b, out);
}

void emit_json(buf *b, const node *n)
{
    if (n->kind == N_MAP) {
        putch(b, '{');
        for (uint32_t i = 0; i < nkids_n(n); i++) {
            if (i)
                putch(b, ',');
            const node *k = map_key(n, i);
            if (k->kind == N_SCALAR)
                put_json_string(b, nstr(k), strlen(nstr(k)));
            else
                put_json_string(b, "?", 1);
            putch(b, ':');
            emit_json(b, map_val(n, i));
        }
        putch(b, '}');
        return;
    }
    if (n->kind == N_SEQ) {
        putch(b, '[');
        for (uint32_t i = 0; i < nkids_n(n); i++) {
            if (i)
                putch(b, ',');
            emit_json(b, seq_item(n, i));
        }
        putch(b, ']');
        return;
    }
    const char *s = nstr(n);
    size_t len = strlen(s);
    enum scalar_type t = T_STR;
    const char *tag = ntag(n);
    if (tag)
        t = node_type(n);
    else if (n->style == ST_PLAIN)
        t = resolve_yaml11(s, len);
    switch (t) {
    case T_NULL: buf_puts(b, "null"); break;
    case T_BOOL: {
        char c = s[0];
        bool v = c == 't' || c == 'T' || c == 'y' || c == 'Y' || ((c == 'o' || c == 'O') && (s[1] == 'n' || s[1] == 'N'));
        buf_puts(b, v ? "true" : "false");
        break;
    }
    case T_INT:
    case T_FLOAT: put_json_number(b, s, len, t); break;
    default: put_json_string(b, s, len);
    }
}

void json_quote(buf *b, const char *s)
{
    put_json_string(b, s, strlen(s));
}
