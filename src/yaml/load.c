#include "yaml/load.h"
#include "yaml/load_part.h"

#include <libfyaml.h>
#include <stddef.h>
#ifdef LOAD_VERIFY
#include <stdio.h>
#endif
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "util/fsutil.h"
#include "yaml/node.h"
#include "yaml/scalar_text.h"

struct frame {
    node *n;
    size_t first; /* index of its first child in the pending stack */
};

struct anchor {
    const char *name;
    node *n;
    int open;    /* the collection is still being read: an alias to it would be recursive */
    size_t slot; /* where the name's index sits in the loader's anchor_slots */
};

/* An anchored collection still being read, innermost last: collections close in the reverse order they open. */
struct open_anchor {
    size_t entry;
    node *n;
};

struct loader {
    arena *a;
    strtab *st;
    const char *file;
    const char *data;
    size_t len;
    struct frame *frames;
    size_t depth, frames_cap;
    node **pending;
    size_t npending, pending_cap;
    struct anchor *anchors; /* one per name in the document: a redefined anchor shadows the earlier one */
    size_t nanchors, anchors_cap;
    /* The anchors by name (interned, so the pointer is the name): open addressing, each slot 1 + the anchor's
     * index or 0. Scanning the list per anchor, alias and collection end made 620,000 anchors (6 MB) take the
     * render's whole 45 s (found by an attacker's review); each is now a lookup. */
    size_t *anchor_slots, anchor_slots_cap;
    struct open_anchor *open_anchors;
    size_t nopen, open_cap;
    const load_limits *lim; /* the operator's max-depth and max-alias-nodes */
    uint64_t alias_budget;
    size_t last_end; /* end of the last token: head comments never reach above it */
    node *root;
    int seq_wide;      /* -1 unknown */
    uint32_t line0;    /* lines of the stream before data (load_part: a piece of a longer stream) */
    uint32_t last_key_col;
    bool bad_tag;
    unsigned flags;       /* enum yaml_load_flags */
    const char *key_head; /* the comment lines after a "- " that go to the first key or item of the block below it */
    size_t key_head_depth;
    size_t stream_from; /* where the text after the last document handed over begins (struct doc_text) */
    size_t doc_start;   /* where the current document's "---" begins; SIZE_MAX for an implicit start */
    size_t foot_from, foot_to; /* take_foot found nothing from foot_from: the lines up to foot_to are blank */
    size_t null_miss;          /* null_indicator found no key's or item's indicator after this last_end */
    char *bump; /* the rest of the current block for nodes, entries and texts */
    size_t bump_left;
    /* A key that may take its text's shared node (key_shared) if its value says where it is: its slot on the
     * pending stack stays NULL until the value's first event settles it (key_settle). */
    struct {
        bool on;
        uint8_t facts;
        const char *text;
        uint32_t line, col;
    } key;
};

enum { BUMP_BLOCK = 32 * 1024 };

/* Nodes, entry arrays and texts of a file come from blocks of the arena, cut to 8 bytes (1 for texts) instead of
 * the arena's 16: an entry array of k pairs takes 8 + 16k bytes. The memory is zeroed. A block is an eighth of the
 * input (at least 256 bytes, at most 32 KiB; the tree takes a few times the input), so that what the last block
 * leaves unused stays small next to the tree, for the many small texts read one by one (parameters, setter
 * values) and the pieces of a streamed child's output alike. */
static void *lalloc(struct loader *L, size_t size, size_t align)
{
    size_t pad = (size_t)(-(uintptr_t)L->bump & (align - 1));
    if (L->bump_left < pad + size) {
        size_t block = L->len / 8 < 256 ? 256 : L->len / 8 < BUMP_BLOCK ? L->len / 8 : BUMP_BLOCK;
        if (size > block / 4)
            return arena_alloc(L->a, size); /* a large one on its own */
        L->bump = arena_alloc(L->a, block);
        L->bump_left = block;
        pad = 0;
    }
    void *p = L->bump + pad;
    L->bump += pad + size;
    L->bump_left -= pad + size;
    return p;
}

static node *new_node(struct loader *L, int kind, int style)
{
    node *n = lalloc(L, sizeof *n, _Alignof(node));
    n->kind = (uint8_t)kind;
    n->style = (uint8_t)style;
    return n;
}

static const char *text_copy(struct loader *L, const char *s, size_t len)
{
    char *p = lalloc(L, len + 1, 1);
    memcpy(p, s, len);
    return p;
}

/* The pending key gets its node now that its value v starts: the shared one when the value gives the key's line
 * (map_key_line: on the key's line, or a block collection on the next one), else its own with its position. A key
 * whose position its value does not give costs 16 bytes; the others none. */
static void key_settle(struct loader *L, node *v)
{
    if (!L->key.on)
        return;
    L->key.on = false;
    node **slot = &L->pending[L->npending - 1];
    bool block = v->kind != N_SCALAR && v->style == ST_BLOCK;
    if (v->line == L->key.line || (block && v->line == L->key.line + 1)) {
        v->below = v->line != L->key.line;
        *slot = key_shared(L->st, L->key.text, L->key.facts);
        return;
    }
    node *k = new_node(L, N_SCALAR, ST_PLAIN);
    k->str = L->key.text;
    k->facts = L->key.facts;
    k->line = L->key.line;
    k->col = L->key.col > 65535 ? 65535 : L->key.col;
    *slot = k;
}

static void push_pending(struct loader *L, node *n)
{
    if (L->npending == L->pending_cap) {
        L->pending_cap = L->pending_cap ? L->pending_cap * 2 : 256;
        L->pending = xrealloc(L->pending, L->pending_cap * sizeof *L->pending);
    }
    L->pending[L->npending++] = n;
}

/* YAML breaks lines at "\n", "\r\n" and a lone "\r" (libfyaml does too): every scan of the source must, or a lone
 * "\r" hides a line inside another. The start of the line holding pos: */
static size_t line_start(const char *d, size_t pos)
{
    while (pos > 0 && d[pos - 1] != '\n' && d[pos - 1] != '\r')
        pos--;
    return pos;
}


/* The end of the line text d[b, e) without what ends it blank: spaces and tabs, and the characters the emitter
 * writes in a comment as spaces (break_or_c1: a YAML 1.1 reader would end the comment there). A comment read back
 * never has them at its end, so it never has them on the first read either. */
static size_t trim_end(const char *d, size_t b, size_t e)
{
    for (;;) {
        if (e > b && (d[e - 1] == ' ' || d[e - 1] == '\t'))
            e--;
        else if (e - b >= 2 && break_or_c1(d + e - 2, 2) == 2)
            e -= 2;
        else if (e - b >= 3 && break_or_c1(d + e - 3, 3) == 3)
            e -= 3;
        else
            return e;
    }
}

/* Text after "#" on the rest of the line starting at pos, or NULL when the line has no comment there. */
static const char *comment_at(struct loader *L, size_t pos, int after_colon)
{
    const char *d = L->data;
    size_t i = pos, n = L->len;
    while (i < n && (d[i] == ' ' || d[i] == '\t'))
        i++;
    if (after_colon) {
        if (i >= n || d[i] != ':')
            return NULL;
        i++;
        while (i < n && (d[i] == ' ' || d[i] == '\t'))
            i++;
        /* "key: !!map # c" (or "&a"): properties of a value that starts on a later line, or has no content; the
         * comment is the key's, as without them (the emitter writes a tagged block collection's comment there) */
        while (i < n && (d[i] == '!' || d[i] == '&')) {
            while (i < n && d[i] != ' ' && d[i] != '\t' && d[i] != '\n' && d[i] != '\r')
                i++;
            while (i < n && (d[i] == ' ' || d[i] == '\t'))
                i++;
        }
    }
    if (i >= n || d[i] != '#' || (i > 0 && d[i - 1] != ' ' && d[i - 1] != '\t'))
        return NULL;
    i++;
    if (i < n && d[i] == ' ')
        i++;
    size_t e = text_line_end(d, i, n);
    e = trim_end(d, i, e);
    return arena_strndup(L->a, d + i, e - i);
}

/* Where a block scalar's header indicator ("|" or ">") is, whose content starts at sm (libfyaml's start mark: the
 * line after the header, or the header's end at the end of the text); SIZE_MAX when its line holds anything else.
 * The header is read from after the last token before it (the key, or the scalar's tag or anchor: their text may
 * hold "|" or ">"), so that only the indicators ("- ", "? ", ": ") and blanks come before "|" or ">". */
static size_t block_header_at(struct loader *L, size_t sm, size_t from, size_t *end)
{
    const char *d = L->data;
    size_t he = sm;
    if (he > 0 && d[he - 1] == '\n')
        he--;
    if (he > 0 && d[he - 1] == '\r')
        he--;
    size_t i = line_start(d, he);
    if (from > i) {
        i = from;
        if (i < he && (d[i] == '"' || d[i] == '\'')) /* a quoted key's token ends before its closing quote */
            i++;
    }
    while (i < he && (d[i] == ' ' || d[i] == '\t' || d[i] == '-' || d[i] == '?' || d[i] == ':'))
        i++;
    if (i >= he || (d[i] != '|' && d[i] != '>'))
        return SIZE_MAX;
    *end = he;
    return i;
}

/* The line comment on a block scalar's header ("k: |- # c"): after the indicator and its chomping and indentation
 * marks. */
static const char *block_header_comment(struct loader *L, size_t at, size_t he)
{
    const char *d = L->data;
    size_t i = at;
    for (i++; i < he && (d[i] == '-' || d[i] == '+' || (d[i] >= '1' && d[i] <= '9'));)
        i++;
    return comment_at(L, i, 0);
}

/* The comment lines of d[top, end) re-joined with "\n", without indentation; blank lines between them stay as empty
 * lines, leading and trailing ones go. NULL when nothing is left. */
static const char *join_comments(struct loader *L, size_t top, size_t end)
{
    const char *d = L->data;
    size_t cap = end - top + 1, out = 0;
    char *s = arena_alloc(L->a, cap);
    size_t i = top;
    while (i < end) {
        size_t e = text_line_end(d, i, end);
        size_t b = i;
        while (b < e && (d[b] == ' ' || d[b] == '\t'))
            b++;
        size_t te = trim_end(d, b, e);
        if (te > b || out > 0) {
            memcpy(s + out, d + b, te - b);
            out += te - b;
            s[out++] = '\n';
        }
        i = e + text_break_len(d, e, end);
    }
    while (out > 0 && s[out - 1] == '\n')
        out--;
    s[out] = 0;
    return out ? s : NULL;
}

/* The start of the line before the one starting at cur, and in *pe where that line ends (cur > 0). */
static size_t prev_line(const char *d, size_t cur, size_t *pe)
{
    size_t e = cur - 1; /* the break ending the previous line */
    if (e > 0 && d[e] == '\n' && d[e - 1] == '\r')
        e--;
    *pe = e;
    return line_start(d, e);
}

/* Comment lines directly above the line holding pos (blank lines between them kept), as long as they come after
 * the previous token. The line of pos may start with indentation and "- " markers only. */
static const char *head_comment_at(struct loader *L, size_t pos)
{
    const char *d = L->data;
    size_t ls = pos;
    while (ls > 0 && (d[ls - 1] == ' ' || d[ls - 1] == '-' || d[ls - 1] == '?'))
        ls--;
    if (ls > 0 && d[ls - 1] != '\n' && d[ls - 1] != '\r')
        return NULL; /* something else precedes it on its line */
    if (ls == 0 || ls <= L->last_end)
        return NULL;
    /* A head comment line lies between the previous token and this line: most keys have none there, only the
     * line break and indentation, and walking back line by line would read the previous line for nothing. */
    if (!memchr(d + L->last_end, '#', ls - L->last_end))
        return NULL;
    size_t top = ls; /* start of the topmost comment line found */
    size_t cur = ls;
    while (cur > 0) {
        size_t pe, ps = prev_line(d, cur, &pe);
        if (ps < L->last_end)
            break;
        size_t i = ps;
        while (i < pe && (d[i] == ' ' || d[i] == '\t'))
            i++;
        if (i < pe && d[i] == '#')
            top = ps;
        else if (i < pe)
            break;
        cur = ps;
    }
    return top == ls ? NULL : join_comments(L, top, ls);
}

/* The 1-based line of a mark in the whole stream, 0 when unknown. */
static int mark_line(const struct loader *L, const struct fy_mark *m)
{
    return m ? (int)(L->line0 + (uint32_t)m->line + 1) : 0;
}

static void set_extra(struct loader *L, node *n, const char *tag, const char *comment, const char *head)
{
    if (!tag && !comment && !head)
        return;
    struct ext *x = node_ext_get(L->a, n);
    if (tag)
        x->tag = tag;
    if (comment)
        x->comment = comment;
    if (head)
        x->head = head;
}

/* The line d[ls, e), whose text starts at b, is a null entry's of a collection at column col: its indicator ("-"
 * of an item, "?" of an explicit key, ":" of its value; none of them has a token when the entry is null) at col,
 * after the indicators of the entries it is in ("- - ", "- ? "), then nothing or a comment. */
static bool null_entry_line(const char *d, size_t ls, size_t b, size_t e, uint32_t col)
{
    while (b < e && (d[b] == '-' || d[b] == '?' || d[b] == ':') && (b + 1 == e || d[b + 1] == ' ' || d[b + 1] == '\t')) {
        size_t at = b - ls + 1;
        for (b++; b < e && (d[b] == ' ' || d[b] == '\t');)
            b++;
        if (at == col)
            return b == e || d[b] == '#';
        if (at > col)
            return false;
    }
    return false;
}

/* A null key, item or value has no token, nor has its indicator ("?" or the ":" of an empty key, "-", ":"): it is
 * the first text after the last token, at column col, past the indicators of the entries it starts ("- ? "); a
 * value's (col 0) is anywhere, most often on its key's line. A key's or item's is on a later line than the last
 * token (the rest of that line is passed over). Returns where it is, or SIZE_MAX; *top is where the comment lines
 * above it begin, those on lines of their own (SIZE_MAX: none). last_end moves past it: these lines are read once,
 * and the next null entry looks below it. */
static size_t null_indicator(struct loader *L, const char *which, uint32_t col, size_t *top)
{
    const char *d = L->data;
    size_t len = L->len, i = L->last_end;
    *top = SIZE_MAX;
    if (i > len || (col && i == L->null_miss))
        return SIZE_MAX;
    size_t ls = line_start(d, i);
    bool own = i == ls; /* only blanks and indicators before i on its line */
    if (!own && i < len && (d[i] == '"' || d[i] == '\'')) /* a quoted scalar's token ends before its closing quote */
        i++;
    if (!own && col) /* the rest of the last token's line */
        i = text_line_end(d, i, len);
    while (i < len) {
        char c = d[i];
        if (c == '\n' || c == '\r') {
            i += text_break_len(d, i, len);
            ls = i;
            own = true;
            continue;
        }
        if (c == ' ' || c == '\t') {
            i++;
            continue;
        }
        if (c == '#') {
            if (own && *top == SIZE_MAX)
                *top = ls;
            i = text_line_end(d, i, len);
            continue;
        }
        char n = i + 1 < len ? d[i + 1] : ' ';
        if ((c != '-' && c != '?' && c != ':') || (n != ' ' && n != '\t' && n != '\n' && n != '\r'))
            break;
        size_t at = i - ls + 1;
        if (strchr(which, c) && (!col || at == col)) {
            L->last_end = i + 1;
            return i;
        }
        if (!own || !col || at >= col)
            break;
        i++; /* the indicator of an entry that holds this one */
    }
    *top = SIZE_MAX;
    if (col)
        L->null_miss = L->last_end;
    return SIZE_MAX;
}

/* The comment lines right after a block collection's last entry that sit at its entries' column or further right
 * become its foot: written back after its entries at their indentation. Lines further left belong to an enclosing
 * collection (its foot, taken when it ends) or to what follows (a head). */
static void take_foot(struct loader *L, node *n)
{
    const char *d = L->data;
    size_t len = L->len, from = L->last_end, i = from;
    if (!n->col || i > len)
        return;
    if (from == L->foot_from) { /* collections closing together: the blank stretch another one found */
        i = L->foot_to;
    } else if (i > 0 && d[i - 1] != '\n' && d[i - 1] != '\r') { /* the rest of the last entry's line */
        i = text_line_end(d, i, len);
        i += text_break_len(d, i, len);
    }
    size_t top = SIZE_MAX, end = 0;
    while (i < len) {
        size_t e = text_line_end(d, i, len), b = i;
        while (b < e && (d[b] == ' ' || d[b] == '\t'))
            b++;
        if (b < e && null_entry_line(d, i, b, e, n->col)) {
            top = SIZE_MAX; /* a null item, key or value (no token): the foot is below it */
            i = e + text_break_len(d, e, len);
            continue;
        }
        if (b < e) {
            if (d[b] != '#' || b - i + 1 < n->col)
                break;
            if (top == SIZE_MAX)
                top = i;
            end = e;
        }
        i = e + text_break_len(d, e, len);
    }
    if (top == SIZE_MAX) {
        /* nothing taken: from here to line i is blank, whichever collection looks next */
        L->foot_from = from;
        L->foot_to = i;
        return;
    }
    size_t b = i;
    while (b < len && (d[b] == ' ' || d[b] == '\t'))
        b++;
    if (b < len && b - i + 1 >= n->col &&
        !(b == i && len - b >= 3 && (!memcmp(d + b, "---", 3) || !memcmp(d + b, "...", 3))))
        return; /* more of the collection follows (the indicator of a null entry has no token): this is not its end */
    node_ext_get(L->a, n)->foot = join_comments(L, top, end);
    L->last_end = end;
}

/* The foot of a flow collection at the root, whose end is at pos: the comment after it on its line (c, or NULL),
 * then the comment lines below it up to the document's end ("---", "...", the end of the text), as a block root's
 * foot takes them; the document can hold nothing else there. Stored as its lines with their "#", the first being
 * the one on the collection's line, empty when that has none: the emitter writes it back there, and the others on
 * the lines below, in flow and in block style alike. */
static void flow_root_foot(struct loader *L, node *n, size_t pos, const char *c)
{
    const char *d = L->data;
    size_t len = L->len, i = text_line_end(d, pos, len), top = SIZE_MAX, end = 0;
    for (i += text_break_len(d, i, len); i < len;) {
        size_t e = text_line_end(d, i, len), b = i;
        while (b < e && (d[b] == ' ' || d[b] == '\t'))
            b++;
        if (b < e && d[b] != '#')
            break;
        if (b < e) {
            if (top == SIZE_MAX)
                top = i;
            end = e;
        }
        i = e + text_break_len(d, e, len);
    }
    const char *below = top == SIZE_MAX ? NULL : join_comments(L, top, end);
    if (!c && !below)
        return;
    node_ext_get(L->a, n)->foot = arena_printf(L->a, "%s%s%s%s%s", c ? "#" : "", c && *c ? " " : "", c ? c : "",
                                               below ? "\n" : "", below ? below : "");
    if (below)
        L->last_end = end;
}

/* The head of a flow root (the comment lines above it) goes to its first key or item, where a block root's is: the
 * emitter writes it above the root in either style, and the loader finds it there again in either. */
static void head_to_first_entry(struct loader *L, node *n)
{
    node *first = n->kind == N_MAP ? map_key_own(L->a, n, 0) : seq_item(n, 0);
    if (!nhead(first))
        node_ext_get(L->a, first)->head = nhead(n);
    n->ext->head = NULL;
}

/* The comment lines of a sequence item that is a collection. Those above its "- " are the item's head. A block map
 * that starts on a line below its "- " is how kyaml writes an item whose first key has a head comment ("- # a",
 * "  # b", "  key: ..."): the lines from the dash's on are that key's head, handed on in key_head. A block sequence
 * there is the same for its first item ("- # a", "  - x"; "-", "  # a", "  - x" too): the comment sits above it. */
static void item_heads(struct loader *L, node *n, size_t pos)
{
    const char *d = L->data;
    size_t ls = pos;
    while (ls > 0 && (d[ls - 1] == ' ' || d[ls - 1] == '-'))
        ls--;
    if (ls == 0 || (d[ls - 1] != '\n' && d[ls - 1] != '\r') || ls <= L->last_end)
        return;
    if (memchr(d + ls, '-', pos - ls)) { /* "- key" or "- - a": the lines above the dash */
        set_extra(L, n, NULL, NULL, head_comment_at(L, pos));
        L->last_end = ls; /* taken: the first key or item on this line finds none */
        return;
    }
    if (n->style != ST_BLOCK)
        return;
    size_t top = ls;
    for (size_t cur = ls; cur > 0;) {
        size_t pe, ps = prev_line(d, cur, &pe);
        if (ps < L->last_end)
            return;
        size_t i = ps;
        while (i < pe && (d[i] == ' ' || d[i] == '\t'))
            i++;
        if (i < pe && d[i] == '-') {
            size_t j = i + 1;
            while (j < pe && (d[j] == ' ' || d[j] == '\t'))
                j++;
            while (j + 1 < pe && d[j] == '-' && (d[j + 1] == ' ' || d[j + 1] == '\t')) /* "- - # a" */
                for (j++; j < pe && (d[j] == ' ' || d[j] == '\t');)
                    j++;
            if (j < pe && (d[j] != '#' || j == i + 1))
                return; /* an anchor or a tag after the dash */
            set_extra(L, n, NULL, NULL, head_comment_at(L, i));
            L->key_head = join_comments(L, j < pe ? j : top, ls);
            L->key_head_depth = L->depth + 1;
            L->last_end = ls;
            return;
        }
        if (i < pe && d[i] != '#')
            return;
        if (i < pe)
            top = ps;
        cur = ps;
    }
}

/* The head item_heads handed on for the first entry of the collection being read (its first key or item), once. */
static const char *first_entry_head(struct loader *L)
{
    const char *h = L->key_head;
    if (!h || L->key_head_depth != L->depth)
        return NULL;
    L->key_head = NULL;
    return h;
}

/* The comment-only documents and stream comments of d[from, to), a stretch between documents, as struct doc_text
 * keeps them: blocks of comment lines (without their indentation; blank lines inside a block kept), each closed by
 * a "---" line in before (the document's own start follows) or opened by one in after; a "..." line ends a block
 * as a "---" line does. Blocks without a comment go, and so does the rest (directives, the "~" of a null document).
 * The block before the stretch's first "---" or "..." is kept only when keep_first: at the start of a stream; after
 * a document it is what followed that document, kept as its foot. NULL when no block is left. */
static const char *between_docs(struct loader *L, size_t from, size_t to, bool keep_first, bool before)
{
    const char *d = L->data;
    if (from >= to || to > L->len)
        return NULL;
    if (from > 0 && d[from - 1] != '\n' && d[from - 1] != '\r') {
        from = text_line_end(d, from, to);
        from += text_break_len(d, from, to);
    }
    /* only comment lines are kept: a plain "---" between two documents, most often all there is, keeps nothing
     * and needs no room (the room it took stayed, on every document) */
    if (from >= to || !memchr(d + from, '#', to - from))
        return NULL;
    char *s = arena_alloc(L->a, to - from + 16);
    size_t out = 0, blanks = 0;
    bool in_block = false, first = true;
    for (size_t i = from; i < to;) {
        size_t e = text_line_end(d, i, to), b = i, ls = i;
        size_t next = e + text_break_len(d, e, to);
        while (b < e && (d[b] == ' ' || d[b] == '\t'))
            b++;
        size_t te = trim_end(d, b, e);
        i = next;
        if (b == ls && te - b >= 3 && (!memcmp(d + b, "---", 3) || !memcmp(d + b, "...", 3)) &&
            (te - b == 3 || d[b + 3] == ' ' || d[b + 3] == '\t')) {
            /* a document starts, or one ends ("..."): the block before it ends, and the comments after a "..."
             * are no longer the previous document's (its foot ends at the "...") */
            if (in_block && before) {
                memcpy(s + out, "---\n", 4);
                out += 4;
            }
            in_block = first = false;
            blanks = 0;
            b += 3;
            while (b < te && (d[b] == ' ' || d[b] == '\t'))
                b++;
            if (b == te || d[b] != '#')
                continue; /* "--- # text" ("... # text"): the text opens the block */
        }
        if (b < te && d[b] == '#') {
            if (first && !keep_first)
                continue;
            if (!in_block && !before) {
                memcpy(s + out, "---\n", 4);
                out += 4;
            }
            for (; in_block && blanks; blanks--)
                s[out++] = '\n';
            memcpy(s + out, d + b, te - b);
            out += te - b;
            s[out++] = '\n';
            in_block = true;
        } else if (b == te) {
            blanks++;
        }
    }
    if (in_block && before) {
        memcpy(s + out, "---\n", 4);
        out += 4;
    }
    if (!out)
        return NULL;
    s[out - 1] = 0;
    return s;
}

static struct doc_text *doc_text(struct loader *L, node *root)
{
    struct ext *x = node_ext_get(L->a, root);
    if (!x->doc)
        x->doc = arena_alloc(L->a, sizeof *x->doc);
    return x->doc;
}

/* Kubernetes YAML needs only the core schema's tags. Anything else (!!python/object, !custom) would be read
 * differently, or refused, by the Go readers behind Argo CD: refuse it here with a clear message instead. */
static bool allowed_tag(const char *handle, const char *suffix)
{
    static const char *const core[] = {"str", "int", "float", "bool", "null", "map", "seq", "binary", "timestamp", NULL};
    if (handle && !strcmp(handle, "!") && (!suffix || !*suffix))
        return true;
    if (!handle || strcmp(handle, "!!") || !suffix)
        return false;
    for (const char *const *c = core; *c; c++)
        if (!strcmp(*c, suffix))
            return true;
    return false;
}

static const char *tag_text(struct loader *L, struct fy_token *t)
{
    if (!t)
        return NULL;
    if (!allowed_tag(fy_tag_token_handle0(t), fy_tag_token_suffix0(t))) {
        const char *h = fy_tag_token_handle0(t), *sfx = fy_tag_token_suffix0(t);
        const struct fy_mark *m = fy_token_start_mark(t);
        fail(L->file, mark_line(L, m), "unsupported tag \"%s%s\": only the core YAML tags (!!str, !!int, ...) are allowed",
             h ? h : "", sfx ? sfx : "");
        L->bad_tag = true;
        return NULL;
    }
    const char *h = fy_tag_token_handle0(t), *s = fy_tag_token_suffix0(t);
    if (h && !strcmp(h, "!!") && s)
        return intern(L->st, arena_printf(L->a, "!!%s", s), strlen(s) + 2);
    size_t n;
    const char *txt = fy_token_get_text(t, &n);
    return txt ? intern(L->st, txt, n) : NULL;
}

/* Where a node's text begins: its anchor or tag when it has one ("- !!str a" keeps the comment lines above the
 * dash for a), else its token; SIZE_MAX when unknown. */
static size_t node_start(struct fy_token *t, struct fy_token *tag, struct fy_token *anchor)
{
    size_t at = SIZE_MAX;
    struct fy_token *v[3] = {t, tag, anchor};
    for (int i = 0; i < 3; i++) {
        const struct fy_mark *m = v[i] ? fy_token_start_mark(v[i]) : NULL;
        if (m && m->input_pos < at)
            at = m->input_pos;
    }
    return at;
}

/* Sets n's position from the token's start; returns its 1-based column, not saturated (0 when unknown). */
static uint32_t set_pos(const struct loader *L, node *n, struct fy_token *t)
{
    const struct fy_mark *m = t ? fy_token_start_mark(t) : NULL;
    if (!m)
        return 0;
    n->line = (uint32_t)mark_line(L, m);
    n->col = m->column + 1 > 65535 ? 65535 : (unsigned)m->column + 1;
    return (uint32_t)m->column + 1;
}

static void note_end(struct loader *L, struct fy_token *t)
{
    if (!t)
        return;
    const struct fy_mark *m = fy_token_end_mark(t);
    if (!m || m->input_pos <= L->last_end || m->input_pos > L->len)
        return;
    /* a block scalar ends at the indentation of the line after it: that line is after the token */
    size_t at = m->input_pos;
    while (at > 0 && (L->data[at - 1] == ' ' || L->data[at - 1] == '\t'))
        at--;
    if (at > 0 && L->data[at - 1] != '\n' && L->data[at - 1] != '\r')
        at = m->input_pos;
    if (at > L->last_end)
        L->last_end = at;
}

static int in_key_position(struct loader *L)
{
    if (!L->depth)
        return 0;
    struct frame *f = &L->frames[L->depth - 1];
    return f->n->kind == N_MAP && ((L->npending - f->first) % 2) == 0;
}

static int add_child(struct loader *L, node *n)
{
    if (!L->depth) {
        L->root = n;
        return 0;
    }
    push_pending(L, n);
    return 0;
}

static size_t anchor_hash(const char *in, size_t cap)
{
    return (size_t)(((uintptr_t)in >> 3) * (uint64_t)0x9E3779B97F4A7C15u >> 20) & (cap - 1);
}

/* The anchor named in (interned), or SIZE_MAX; *slot: its slot, or the empty one where it would go. */
static size_t find_anchor(const struct loader *L, const char *in, size_t *slot)
{
    if (!L->anchor_slots_cap)
        return SIZE_MAX;
    for (size_t k = anchor_hash(in, L->anchor_slots_cap);; k = (k + 1) & (L->anchor_slots_cap - 1)) {
        size_t v = L->anchor_slots[k];
        *slot = k;
        if (!v)
            return SIZE_MAX;
        if (L->anchors[v - 1].name == in)
            return v - 1;
    }
}

/* Room for one more name: the table at most half full. */
static void grow_anchor_slots(struct loader *L)
{
    if (2 * (L->nanchors + 1) <= L->anchor_slots_cap)
        return;
    size_t cap = L->anchor_slots_cap ? 2 * L->anchor_slots_cap : 64;
    xfree(L->anchor_slots);
    L->anchor_slots = xcalloc(cap, sizeof *L->anchor_slots);
    L->anchor_slots_cap = cap;
    for (size_t i = 0; i < L->nanchors; i++) {
        size_t k = anchor_hash(L->anchors[i].name, cap);
        while (L->anchor_slots[k])
            k = (k + 1) & (cap - 1);
        L->anchor_slots[k] = i + 1;
        L->anchors[i].slot = k;
    }
}

/* A new document starts with no anchors: only the slots the last one used are cleared (a table grown by one
 * document would otherwise cost every later one its size). */
static void forget_anchors(struct loader *L)
{
    for (size_t i = 0; i < L->nanchors; i++)
        L->anchor_slots[L->anchors[i].slot] = 0;
    L->nanchors = 0;
    L->nopen = 0;
}

static int register_anchor(struct loader *L, struct fy_token *anchor, node *n, int open)
{
    if (!anchor)
        return 0;
    size_t len;
    const char *name = fy_token_get_text(anchor, &len);
    if (!name)
        return 0;
    const char *in = intern(L->st, name, len);
    size_t slot = 0, i = find_anchor(L, in, &slot);
    if (i != SIZE_MAX) { /* a redefined anchor shadows the earlier one */
        L->anchors[i].n = n;
        L->anchors[i].open = open;
    } else {
        grow_anchor_slots(L);
        find_anchor(L, in, &slot);
        if (L->nanchors == L->anchors_cap) {
            L->anchors_cap = L->anchors_cap ? L->anchors_cap * 2 : 16;
            L->anchors = xrealloc(L->anchors, L->anchors_cap * sizeof *L->anchors);
        }
        i = L->nanchors++;
        L->anchors[i] = (struct anchor){in, n, open, slot};
        L->anchor_slots[slot] = i + 1;
    }
    if (open) {
        if (L->nopen == L->open_cap) {
            L->open_cap = L->open_cap ? L->open_cap * 2 : 16;
            L->open_anchors = xrealloc(L->open_anchors, L->open_cap * sizeof *L->open_anchors);
        }
        L->open_anchors[L->nopen++] = (struct open_anchor){i, n};
    }
    return 0;
}

/* n's collection is read to its end: if it is the innermost anchored one still open, an alias may now copy it
 * (unless a later definition of its name took the anchor over, which then decides). */
static void close_anchor(struct loader *L, node *n)
{
    if (!L->nopen || L->open_anchors[L->nopen - 1].n != n)
        return;
    struct anchor *a = &L->anchors[L->open_anchors[--L->nopen].entry];
    if (a->n == n)
        a->open = 0;
}

/* Charges the nodes of n to the alias budget; false, before walking further, once it runs out. */
static bool charge_budget(struct loader *L, const node *n)
{
    if (L->alias_budget == 0)
        return false;
    L->alias_budget--;
    if (n->kind != N_SCALAR) {
        const struct kids *k = nkids(n);
        uint32_t slots = !k ? 0 : n->kind == N_MAP ? 2 * k->n : k->n;
        for (uint32_t i = 0; i < slots; i++)
            if (!charge_budget(L, k->v[i]))
                return false;
    }
    return true;
}

/* Copies an aliased node, deeply, tags and comments included: the copy keeps the tree a tree, so an in-place edit
 * of one (a new text, a dropped tag, a comment) never shows up in the other. */
static node *clone_budget(struct loader *L, const node *n, int *over)
{
    if (!charge_budget(L, n)) {
        *over = 1;
        return NULL;
    }
    return node_clone(L->a, n);
}

struct key_at {
    const char *text;
    uint32_t i;
};

/* By text (its address: keys are interned), then by place: equal keys end up together in document order. */
static int cmp_key_at(const void *a, const void *b)
{
    const struct key_at *x = a, *y = b;
    if (x->text != y->text)
        return x->text < y->text ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* The index of the first key (in document order) that repeats an earlier one, or -1. The error names it whatever
 * the addresses of the texts: the same input gives the same message. Interned keys: equal texts are equal
 * pointers. */
static long first_duplicate(node *const *v, uint32_t len)
{
    long at = -1;
    if (len <= 16) { /* most maps are small: compare each pair */
        for (uint32_t i = 1; i < len && at < 0; i++)
            for (uint32_t j = 0; j < i; j++)
                if (nstr(v[2 * i]) == nstr(v[2 * j])) {
                    at = i;
                    break;
                }
        return at;
    }
    struct key_at *k = xmalloc(len * sizeof *k);
    for (uint32_t i = 0; i < len; i++)
        k[i] = (struct key_at){nstr(v[2 * i]), i};
    qsort(k, len, sizeof *k, cmp_key_at);
    /* each key but the first of its run repeats an earlier one; the first of those in document order */
    for (uint32_t i = 1; i < len; i++)
        if (k[i].text == k[i - 1].text && (at < 0 || k[i].i < at))
            at = k[i].i;
    xfree(k);
    return at;
}

/* YAML merge keys ("<<: *base" or "<<: [*a, *b]"): explicit keys win, then earlier merged maps. */
static int apply_merge_keys(struct loader *L, node *m)
{
    long at = -1;
    for (uint32_t i = 0; i < nkids_n(m); i++) {
        const node *k = map_key(m, i);
        if (k->kind == N_SCALAR && k->style == ST_PLAIN && !node_tag(k) && !strcmp(nstr(k), "<<")) {
            at = i;
            break;
        }
    }
    if (at < 0)
        return 0;
    node *src = map_val(m, (uint32_t)at);
    uint32_t kline = map_key_line(m, (uint32_t)at);
    map_delete(m, "<<");
    node *one[1] = {src};
    node **list = one;
    uint32_t count = 1;
    if (src->kind == N_SEQ) {
        list = nkids(src) ? nkids(src)->v : NULL;
        count = nkids_n(src);
    }
    for (uint32_t j = 0; j < count; j++) {
        node *s = list[j];
        if (s->kind != N_MAP)
            return fail(L->file, (int)kline, "merge key \"<<\" must refer to a mapping or a list of mappings");
        for (uint32_t i = 0; i < nkids_n(s); i++)
            if (map_key(s, i)->kind == N_SCALAR && map_index(m, nstr(map_key(s, i))) < 0)
                map_append(L->a, m, map_key(s, i), map_val(s, i));
    }
    return 0;
}

static int finish_collection(struct loader *L)
{
    struct frame *f = &L->frames[--L->depth];
    node *n = f->n;
    size_t count = L->npending - f->first;
    bool map = n->kind == N_MAP;
    uint32_t len = (uint32_t)(map ? count / 2 : count);
    /* the entries were gathered on the pending stack: one array of the right size, nothing left behind */
    if (len) {
        struct kids *k = lalloc(L, sizeof *k + (size_t)count * sizeof k->v[0], _Alignof(struct kids));
        k->n = k->cap = len;
        memcpy(k->v, L->pending + f->first, count * sizeof k->v[0]);
        set_nkids(n, k);
    }
    L->npending = f->first;
    if (map) {
        node *const *v = len ? nkids(n)->v : NULL;
        long dup = len > 1 ? first_duplicate(v, len) : -1;
        if (dup >= 0)
            return fail(L->file, (int)map_key_line(n, (uint32_t)dup), "duplicate key \"%s\"", nstr(v[2 * dup]));
        if (!(L->flags & YAML_KEEP_MERGE_KEYS) && apply_merge_keys(L, n) < 0)
            return -1;
    }
    close_anchor(L, n);
    return add_child(L, n);
}

static int open_collection(struct loader *L, node *n, uint32_t col, size_t start, struct fy_event *e,
                           struct fy_token *anchor, struct fy_token *tag)
{
    if (L->depth >= L->lim->max_depth)
        return fail(L->file, (int)n->line,
                    "nesting deeper than %u levels (limit max-depth; raise it with CMP_MAX_DEPTH)", L->lim->max_depth);
    set_extra(L, n, tag_text(L, tag), NULL, NULL);
    if (L->bad_tag)
        return -1;
    if (fy_event_get_node_style(e) == FYNS_FLOW)
        n->style = ST_FLOW;
    key_settle(L, n);
    int key = in_key_position(L);
    if (key)
        return fail(L->file, (int)n->line, "a mapping key must be a scalar");
    if (n->kind == N_SEQ && n->style == ST_BLOCK && L->seq_wide < 0 && L->depth &&
        L->frames[L->depth - 1].n->kind == N_MAP)
        L->seq_wide = col > L->last_key_col;
    const node *parent = L->depth ? L->frames[L->depth - 1].n : NULL;
    const char *handed = first_entry_head(L); /* before item_heads, which may hand on one for n's first entry */
    if (handed)
        set_extra(L, n, NULL, NULL, handed);
    if (parent && parent->kind == N_SEQ && parent->style == ST_BLOCK && start < L->len)
        item_heads(L, n, start);
    else if (!parent && n->style == ST_FLOW && start < L->len) /* a block root's go to its first key */
        set_extra(L, n, NULL, NULL, head_comment_at(L, start));
    register_anchor(L, anchor, n, 1);
    if (L->depth == L->frames_cap) {
        L->frames_cap = L->frames_cap ? L->frames_cap * 2 : 32;
        L->frames = xrealloc(L->frames, L->frames_cap * sizeof *L->frames);
    }
    L->frames[L->depth++] = (struct frame){n, L->npending};
    return 0;
}

/* The value of a single-quoted scalar from its source text (between the quotes): line breaks fold to a space,
 * each empty line gives a newline, blanks around breaks go, and '' is one quote. */
static const char *single_quoted(arena *a, const char *src, size_t n, size_t *outlen)
{
    char *out = arena_alloc(a, n + 1);
    size_t k = 0, i = 0;
    bool first = true;
    while (i <= n) {
        size_t e = text_line_end(src, i, n);
        size_t b = i, t = e;
        if (!first)
            while (b < t && (src[b] == ' ' || src[b] == '\t'))
                b++;
        if (e < n)
            while (t > b && (src[t - 1] == ' ' || src[t - 1] == '\t'))
                t--;
        if (!first) {
            if (b == t && e < n) {
                out[k++] = '\n'; /* an empty line */
                i = e + text_break_len(src, e, n);
                continue;
            }
            if (k == 0 || out[k - 1] != '\n') /* a break between text lines folds to one space */
                out[k++] = ' ';
        }
        for (size_t j = b; j < t; j++) {
            out[k++] = src[j];
            if (src[j] == '\'' && j + 1 < t && src[j + 1] == '\'')
                j++;
        }
        first = false;
        if (e >= n)
            break;
        i = e + text_break_len(src, e, n);
    }
    out[k] = 0;
    *outlen = k;
    return out;
}

/* Whether a scalar's source text (between its quotes, if any) is its value: on one line, without escapes, and
 * for single quotes without ''. Most scalars are; they are read from the source, which yaml_load has checked
 * already, instead of being decoded by libfyaml. */
static bool verbatim(const char *raw, size_t n, enum fy_scalar_style st)
{
    static unsigned char stop[3][256]; /* plain, single-quoted, double-quoted */
    if (!stop[0]['\n']) {
        for (int k = 0; k < 3; k++)
            stop[k]['\n'] = stop[k]['\r'] = 1;
        stop[1]['\''] = 1;
        stop[2]['\\'] = 1;
    }
    int k = st == FYSS_PLAIN ? 0 : st == FYSS_SINGLE_QUOTED ? 1 : st == FYSS_DOUBLE_QUOTED ? 2 : -1;
    if (k < 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (stop[k][(unsigned char)raw[i]])
            return false;
    return true;
}

/* Whether the text's last line holds more than blanks: it then ends without a line break after its content. */
static bool ends_inside_content(const char *d, size_t n)
{
    while (n && (d[n - 1] == ' ' || d[n - 1] == '\t'))
        n--;
    return n && d[n - 1] != '\n' && d[n - 1] != '\r';
}

static int on_scalar(struct loader *L, struct fy_event *e)
{
    struct fy_token *t = e->scalar.value;
    size_t len = 0;
    const char *txt = NULL;
    enum fy_scalar_style fst = t ? fy_token_scalar_style(t) : FYSS_PLAIN;
    const struct fy_mark *sm = t ? fy_token_start_mark(t) : NULL, *em = t ? fy_token_end_mark(t) : NULL;
    bool checked = false; /* the text is a slice of the source, whose bytes yaml_load checked */
    bool marks = sm && em && sm->input_pos <= em->input_pos && em->input_pos <= L->len;
    if (marks && verbatim(L->data + sm->input_pos, em->input_pos - sm->input_pos, fst)) {
        txt = L->data + sm->input_pos;
        len = em->input_pos - sm->input_pos;
        checked = true;
    } else if (fst == FYSS_SINGLE_QUOTED && sm && em && em->input_pos <= L->len && sm->input_pos <= em->input_pos) {
        /* libfyaml 0.7 misreads runs of '' escapes: single-quoted scalars are decoded from the source */
        txt = single_quoted(L->a, L->data + sm->input_pos, em->input_pos - sm->input_pos, &len);
        checked = true;
    } else if (t) {
        txt = fy_token_get_text(t, &len);
    }
    if (!txt)
        txt = "", len = 0;
    if ((fst == FYSS_LITERAL || fst == FYSS_FOLDED) && len && memchr(txt, 0, len)) {
        /* The source holds no NUL (load_part refused it) and a block scalar has no escapes, so this one is
         * libfyaml's: an empty block scalar that ends the text ("a: |" on the last line, or before a piece's
         * end) comes back as one NUL byte, read past the end. Its value is the text before it. */
        len = strnlen(txt, len);
    }
    if ((fst == FYSS_LITERAL || fst == FYSS_FOLDED) && len && txt[len - 1] == '\n' && marks &&
        em->input_pos >= L->len && ends_inside_content(L->data, L->len)) {
        /* the text ends inside the block scalar's last line: there is no final line break to keep, but libfyaml
         * adds one ("a: |" then "  x" at the end reads "x", as YAML and Go's yaml read it) */
        len--;
    }
#ifdef LOAD_VERIFY
    if (t && (fst == FYSS_PLAIN || fst == FYSS_DOUBLE_QUOTED) && checked) {
        size_t vl;
        const char *v = fy_token_get_text(t, &vl);
        if (!v || vl != len || memcmp(v, txt, len)) {
            fprintf(stderr, "LOAD_VERIFY: %s:%d: source slice \"%.*s\" != libfyaml \"%.*s\"\n", L->file,
                    mark_line(L, sm), (int)len, txt, v ? (int)vl : 0, v ? v : "");
            abort();
        }
    }
#endif
    int key = in_key_position(L);
    if (!checked && len && memchr(txt, 0, len)) {
        /* a "\0" escape: no Kubernetes field needs it, and C strings cannot carry it safely */
        return fail(L->file, mark_line(L, sm), "a string holds a NUL character (\\0), which is not supported");
    }
    int style = ST_PLAIN;
    switch (fst) {
    case FYSS_SINGLE_QUOTED: style = ST_SINGLE; break;
    case FYSS_DOUBLE_QUOTED: style = ST_DOUBLE; break;
    case FYSS_LITERAL: style = ST_LITERAL; break;
    case FYSS_FOLDED: style = ST_FOLDED; break;
    default: break;
    }
    if (!checked && utf8_check((const unsigned char *)txt, len) != len)
        return fail(L->file, mark_line(L, sm), "a string is not valid UTF-8");
    /* Keys and short values repeat across objects: share one copy, and the facts the emitter needs about it. */
    unsigned facts = 0;
    const char *text = (key || len <= 24) ? intern_facts(L->st, txt, len, &facts) : text_copy(L, txt, len);
    uint32_t line = sm ? (uint32_t)mark_line(L, sm) : 0, col = sm ? (uint32_t)sm->column + 1 : 0;
    const char *comment = NULL, *head = NULL;
    size_t header = SIZE_MAX; /* a block scalar's "|" or ">": what is above its line is above the scalar */
    if (t && style != ST_LITERAL && style != ST_FOLDED) {
        size_t end = em ? em->input_pos : 0;
        if ((style == ST_SINGLE || style == ST_DOUBLE) && end < L->len && L->data[end] == (style == ST_SINGLE ? '\'' : '"'))
            end++;
        comment = comment_at(L, end, key);
    } else if (t && marks) {
        size_t from = L->last_end;
        struct fy_token *props[2] = {e->scalar.tag, e->scalar.anchor};
        for (int i = 0; i < 2; i++) {
            const struct fy_mark *m = props[i] ? fy_token_end_mark(props[i]) : NULL;
            if (m && m->input_pos > from && m->input_pos <= sm->input_pos)
                from = m->input_pos;
        }
        size_t he;
        header = block_header_at(L, sm->input_pos, from, &he);
        if (header != SIZE_MAX)
            comment = block_header_comment(L, header, he);
    }
    const node *parent = L->depth ? L->frames[L->depth - 1].n : NULL;
    bool block_parent = parent && parent->style == ST_BLOCK;
    size_t pre = node_start(NULL, e->scalar.tag, e->scalar.anchor);
    if (t && block_parent && (key || parent->kind == N_SEQ)) {
        size_t start = sm ? sm->input_pos : 0;
        if (style == ST_SINGLE || style == ST_DOUBLE)
            start = start ? start - 1 : 0;
        if (header != SIZE_MAX) /* the content starts below the header line */
            start = header;
        head = head_comment_at(L, pre < start ? pre : start);
    } else if (!t && block_parent && pre != SIZE_MAX) { /* "- !!str": what is above it is above its tag */
        if (key || parent->kind == N_SEQ)
            head = head_comment_at(L, pre);
        note_end(L, e->scalar.tag);
        note_end(L, e->scalar.anchor);
    } else if (!t && block_parent) { /* a null entry without a token: found by its indicator */
        bool item = parent->kind == N_SEQ;
        size_t top, at = null_indicator(L, item ? "-" : key ? "?:" : ":", item || key ? parent->col : 0, &top);
        if (at != SIZE_MAX && top != SIZE_MAX && (item || key)) /* (a value's ":" is looked for to pass it) */
            head = join_comments(L, top, line_start(L->data, at));
        if (at != SIZE_MAX && item) /* "- # c": a null item's line comment */
            comment = comment_at(L, at + 1, 0);
    }
    const char *handed = first_entry_head(L);
    if (handed && !head)
        head = handed;
    if (key)
        L->last_key_col = col;
    if (key && style == ST_PLAIN && t && !comment && !head && !e->scalar.tag && !e->scalar.anchor) {
        /* an ordinary key: its node waits for its value (key_settle) */
        L->key.on = true;
        L->key.text = text;
        L->key.facts = (uint8_t)facts;
        L->key.line = line;
        L->key.col = col;
        note_end(L, t);
        return add_child(L, NULL);
    }
    node *n = new_node(L, N_SCALAR, style);
    n->str = text;
    n->facts = (uint8_t)facts;
    n->line = line; /* set_pos's, from the marks read above */
    n->col = col > 65535 ? 65535 : col;
    key_settle(L, n);
    set_extra(L, n, tag_text(L, e->scalar.tag), comment, head);
    if (L->bad_tag)
        return -1;
    /* what in-place writes need to keep the scalar's layout (a one-line slice has none to keep) */
    if (marks && !key && (style >= ST_LITERAL || txt != L->data + sm->input_pos)) {
        const char *raw = scalar_layout(L->a, L->data, sm->input_pos, em->input_pos, style, nstr(n), len);
        if (raw)
            node_ext_get(L->a, n)->raw = raw;
    }
    register_anchor(L, e->scalar.anchor, n, 0);
    note_end(L, t);
    return add_child(L, n);
}

static int on_alias(struct loader *L, struct fy_event *e)
{
    struct fy_token *t = e->alias.anchor;
    size_t len = 0;
    const char *name = t ? fy_token_get_text(t, &len) : NULL;
    const struct fy_mark *m = t ? fy_token_start_mark(t) : NULL;
    int line = mark_line(L, m);
    if (!name)
        return fail(L->file, line, "alias without a name");
    const char *in = intern(L->st, name, len);
    size_t slot, i = find_anchor(L, in, &slot);
    if (i != SIZE_MAX) {
        if (L->anchors[i].open)
            return fail(L->file, line, "alias *%s refers to a node that contains it", in);
        int over = 0;
        node *copy = clone_budget(L, L->anchors[i].n, &over);
        if (over)
            return fail(L->file, line,
                        "aliases expand to more than %llu nodes (limit max-alias-nodes, against alias bombs; raise it with CMP_MAX_ALIAS_NODES)",
                        (unsigned long long)L->lim->max_alias_nodes);
        if (in_key_position(L) && copy->kind != N_SCALAR)
            return fail(L->file, line, "a mapping key must be a scalar");
        const char *handed = first_entry_head(L);
        if (handed && !nhead(copy))
            node_ext_get(L->a, copy)->head = handed;
        key_settle(L, copy);
        note_end(L, t);
        return add_child(L, copy);
    }
    return fail(L->file, line, "unknown anchor *%s", in);
}

/* libfyaml reports errors as text ("<input>:LINE:COL: error: MESSAGE"); collecting them instead leaks in 0.7. */
struct parse_error {
    int line, col;
    char msg[256];
};

static void on_diag(struct fy_diag *diag, void *user, const char *text, size_t len)
{
    struct parse_error *pe = user;
    if (pe->msg[0] || len == 0)
        return;
    char tmp[512];
    size_t n = len < sizeof tmp - 1 ? len : sizeof tmp - 1;
    memcpy(tmp, text, n);
    tmp[n] = 0;
    char *err = strstr(tmp, ": error: ");
    if (!err)
        return;
    *err = 0;
    char *msg = err + 9;
    msg[strcspn(msg, "\r\n")] = 0;
    char *c2 = strrchr(tmp, ':');
    if (c2) {
        *c2 = 0;
        char *c1 = strrchr(tmp, ':');
        if (c1) {
            pe->line = atoi(c1 + 1);
            pe->col = atoi(c2 + 1);
        }
    }
    snprintf(pe->msg, sizeof pe->msg, "%s", msg);
}

static int load_run(arena *a, strtab *st, const load_limits *lim, const char *file, const char *data, size_t len,
                    uint32_t line0, uint32_t *index, unsigned flags, yaml_doc_fn fn, void *ud);

/* libfyaml takes no allocator, so what it allocates during a parse is held against the memory budget (util/arena.h)
 * up front, as a bound measured on the worst shapes (tests/bench/memory): a token's text, at most 3/2 of the text
 * given (the escape \L, two bytes, is three), plus about 1.1 KB per level of nesting (a level costs at least a
 * byte), plus its fixed structures (5 KB). Released when the parser is gone. */
static size_t fy_reservation(size_t len, const load_limits *lim)
{
    size_t levels = (size_t)lim->max_depth + 1 < len ? (size_t)lim->max_depth + 1 : len;
    return len + len / 2 + levels * 1280 + 64 * 1024;
}

int load_part(arena *a, strtab *st, const load_limits *lim, const char *file, const char *data, size_t len,
              uint32_t line0, uint32_t *index, yaml_doc_fn fn, void *ud)
{
    return load_run(a, st, lim, file, data, len, line0, index, 0, fn, ud);
}

static int load_run(arena *a, strtab *st, const load_limits *lim, const char *file, const char *data, size_t len,
                    uint32_t line0, uint32_t *index, unsigned flags, yaml_doc_fn fn, void *ud)
{
    /* Text that did not come through read_text_file (parameters, stdin, a tool's output) is checked here: the
     * parser must never see a NUL or invalid UTF-8 (libfyaml can loop on some of it). */
    const char *nul = memchr(data, 0, len);
    size_t text_len = nul ? (size_t)(nul - data) : len;
    size_t bad = utf8_check((const unsigned char *)data, text_len);
    if (bad < text_len || nul) {
        size_t at = bad < text_len ? bad : text_len;
        int line = (int)line0 + 1;
        for (size_t i = 0; i < at; i++)
            line += data[i] == '\n' || (data[i] == '\r' && (i + 1 >= len || data[i + 1] != '\n'));
        return fail(file, line, "%s", bad < text_len ? "invalid UTF-8" : "contains a NUL byte: not text");
    }
    struct loader L = {.a = a, .st = st, .file = file, .data = data, .len = len, .seq_wide = -1, .line0 = line0,
                       .foot_from = SIZE_MAX, .null_miss = SIZE_MAX, .flags = flags,
                       .lim = lim ? lim : &limits_default.yaml};
    L.alias_budget = L.lim->max_alias_nodes;
    struct parse_error pe = {0};
    struct fy_diag_cfg dcfg;
    fy_diag_cfg_default(&dcfg);
    dcfg.fp = NULL;
    dcfg.output_fn = on_diag;
    dcfg.user = &pe;
    dcfg.level = FYET_ERROR;
    dcfg.colorize = false;
    dcfg.show_source = false;
    dcfg.show_position = true;
    dcfg.show_type = false;
    dcfg.show_module = false;
    struct fy_diag *diag = fy_diag_create(&dcfg);
    if (!diag)
        return fail(file, 0, "cannot create the YAML parser");
    /* Inside a flow collection, Go's yaml.v3 (kpt, kustomize) and libyaml ignore indentation: a closing bracket at
     * its key's column or left of it (column 0 too), entries and continuation lines likewise, tabs as separation.
     * libfyaml refuses those ("wrongly indented sequence end in flow mode") unless sloppy flow indentation is on,
     * which lifts exactly these checks (fy_scan_to_next_token and the flow token scanners); a document marker at
     * column 0, a block entry or a tab before a token at the start of a line inside the flow stay errors, as in
     * yaml.v3 (unit flow_indentation_*). Nothing is rewritten, so lines and columns stay the file's. */
    struct fy_parse_cfg cfg = {.flags = FYPCF_QUIET | FYPCF_DISABLE_DEPTH_LIMIT | FYPCF_SLOPPY_FLOW_INDENTATION,
                               .diag = diag};
    const char *reading = mem_reading(file); /* the budget's error names the file */
    size_t reserved = fy_reservation(len, L.lim);
    mem_hold(reserved, NULL);
    struct fy_parser *p = fy_parser_create(&cfg);
    if (!p) {
        mem_reading(reading);
        mem_release(reserved, NULL);
        fy_diag_unref(diag);
        return fail(file, 0, "cannot create the YAML parser");
    }
    int rc = 0;
    uint32_t doc_line = 0;
    node *last_root = NULL; /* the last document handed over */
    L.doc_start = SIZE_MAX;
    if (fy_parser_set_string(p, data, len) != 0)
        rc = fail(file, 0, "cannot read input");
    struct fy_event *e;
    while (rc == 0 && (e = fy_parser_parse(p))) {
        struct fy_token *tok = fy_event_get_token(e);
        switch (e->type) {
        case FYET_DOCUMENT_START: {
            forget_anchors(&L);
            L.root = NULL;
            L.seq_wide = -1;
            L.alias_budget = L.lim->max_alias_nodes;
            const struct fy_mark *m = tok ? fy_token_start_mark(tok) : NULL;
            doc_line = m ? (uint32_t)mark_line(&L, m) : line0 + 1;
            L.doc_start = SIZE_MAX;
            if (tok && !e->document_start.implicit) {
                L.doc_start = m ? m->input_pos : SIZE_MAX;
                note_end(&L, tok);
            }
            break;
        }
        case FYET_DOCUMENT_END:
            if (L.root && !(L.root->kind == N_SCALAR && is_null(L.root))) {
                if (L.root->line)
                    doc_line = L.root->line;
                const char *before = L.doc_start == SIZE_MAX ? NULL
                                     : between_docs(&L, L.stream_from, L.doc_start, !last_root, true);
                if (before)
                    doc_text(&L, L.root)->before = before;
                rc = fn(ud, L.root, (*index)++, doc_line, L.seq_wide > 0);
                last_root = L.root;
                L.stream_from = L.last_end;
            }
            L.root = NULL;
            break;
        case FYET_SCALAR:
            rc = on_scalar(&L, e);
            break;
        case FYET_ALIAS:
            rc = on_alias(&L, e);
            break;
        case FYET_MAPPING_START:
        case FYET_SEQUENCE_START: {
            node *n = new_node(&L, e->type == FYET_MAPPING_START ? N_MAP : N_SEQ, ST_BLOCK);
            struct fy_token *anchor = e->type == FYET_MAPPING_START ? e->mapping_start.anchor : e->sequence_start.anchor;
            struct fy_token *tag = e->type == FYET_MAPPING_START ? e->mapping_start.tag : e->sequence_start.tag;
            uint32_t col = set_pos(&L, n, tok);
            if (!tok && L.depth == 0)
                n->line = doc_line;
            rc = open_collection(&L, n, col, node_start(tok, tag, anchor), e, anchor, tag);
            break;
        }
        case FYET_MAPPING_END:
        case FYET_SEQUENCE_END: {
            node *n = L.frames[L.depth - 1].n;
            const node *up = L.depth > 1 ? L.frames[L.depth - 2].n : NULL;
            /* A block's end token sits where the next one starts, past any comments. A sequence level with its
             * key ("k:\n- a\n# c") leaves the lines at its column to the next key, or to its map's foot. */
            if (n->style == ST_FLOW)
                note_end(&L, tok);
            else if (!(n->kind == N_SEQ && up && up->kind == N_MAP && up->col == n->col))
                take_foot(&L, n);
            if (n->style == ST_FLOW && tok) {
                const struct fy_mark *m = fy_token_end_mark(tok);
                const char *c = m ? comment_at(&L, m->input_pos, 0) : NULL;
                /* The comment after a flow collection that is a block map's value is its line comment, where
                 * kyaml's setters look for it ("images: [a] # kpt-set: ..."). At the root and as a block
                 * sequence's item nothing reads it there, and it follows every entry: it is the collection's
                 * foot, which the emitter writes after the "]" in flow style and after the entries in block
                 * style, where the loader finds it again either way. */
                if (!up && m)
                    flow_root_foot(&L, n, m->input_pos, c);
                else if (c && up->kind == N_SEQ && up->style == ST_BLOCK)
                    node_ext_get(L.a, n)->foot = arena_printf(L.a, "#%s%s", *c ? " " : "", c);
                else if (c)
                    set_extra(&L, n, NULL, c, NULL);
            }
            rc = finish_collection(&L);
            if (rc == 0 && !up && n->style == ST_FLOW && nhead(n) && nkids_n(n))
                head_to_first_entry(&L, n);
            break;
        }
        default:
            break;
        }
        fy_parser_event_free(p, e);
    }
    if (rc == 0 && fy_parser_get_stream_error(p)) {
        if (pe.msg[0])
            rc = fail(file, pe.line ? (int)line0 + pe.line : 0, "invalid YAML: %s (column %d)", pe.msg, pe.col);
        else
            rc = fail(file, 0, "invalid YAML");
    }
    if (rc == 0 && last_root) { /* comment-only documents after the last one go with it */
        const char *after = between_docs(&L, L.stream_from, len, false, false);
        if (after)
            doc_text(&L, last_root)->after = after;
    }
    fy_parser_destroy(p);
    mem_reading(reading);
    mem_release(reserved, NULL);
    fy_diag_unref(diag);
    xfree(L.frames);
    xfree(L.pending);
    xfree(L.anchors);
    xfree(L.anchor_slots);
    xfree(L.open_anchors);
    return rc;
}

int yaml_load(arena *a, strtab *st, const load_limits *lim, const char *file, const char *data, size_t len,
              yaml_doc_fn fn, void *ud)
{
    return yaml_load_flags(a, st, lim, file, data, len, 0, fn, ud);
}

int yaml_load_flags(arena *a, strtab *st, const load_limits *lim, const char *file, const char *data, size_t len,
                    unsigned flags, yaml_doc_fn fn, void *ud)
{
    uint32_t index = 0;
    return load_run(a, st, lim, file, data, len, 0, &index, flags, fn, ud);
}

struct one {
    node *n;
    const char *file;
};

static int take_one(void *ud, node *root, uint32_t index, uint32_t line, int seq_wide)
{
    struct one *o = ud;
    if (index > 0)
        return fail(o->file, (int)line, "expected a single document, found more");
    o->n = root;
    return 0;
}

int yaml_load_one(arena *a, strtab *st, const load_limits *lim, const char *file, const char *data, size_t len,
                  node **out)
{
    return yaml_load_one_flags(a, st, lim, file, data, len, 0, out);
}

int yaml_load_one_flags(arena *a, strtab *st, const load_limits *lim, const char *file, const char *data, size_t len,
                        unsigned flags, node **out)
{
    struct one o = {NULL, file};
    int rc = yaml_load_flags(a, st, lim, file, data, len, flags, take_one, &o);
    *out = o.n;
    return rc;
}

int yaml_load_one_into(arena *a, strtab *st, const load_limits *lim, const char *file, const char *data, size_t len,
                       node **out, diag_detail *why)
{
    diag_detail *outer = diag_capture(why);
    int rc = yaml_load_one(a, st, lim, file, data, len, out);
    diag_restore(outer);
    return rc;
}

/* Every limit's message says "(limit max-<name>; ... CMP_MAX_<NAME>)" (open_collection, the alias expansion). */
bool yaml_over_limit(const diag_detail *why)
{
    return why && why->failed && strstr(why->message, "(limit max-") != NULL;
}
