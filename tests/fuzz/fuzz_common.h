/* Shared by the fuzz targets: a strict tree comparison (value, kind, tag and type as kpt reads it), the
 * emit-and-reparse check, and a small JSON syntax checker. A failed check prints what differs and aborts, so
 * libFuzzer keeps the input. */
#ifndef CMP_FUZZ_COMMON_H
#define CMP_FUZZ_COMMON_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem */
#endif
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"
#include "util/buf.h"
#include "util/diag.h"
#include "yaml/emit.h"
#include "yaml/load.h"
#include "yaml/scalar.h"
#include "yaml/tree.h"

/* The limits a fuzz target passes in its contexts: the defaults, but alias expansion stops at 20,000 nodes (a fuzz
 * run is one process over many inputs, and a small input must not take seconds). */
static inline const limits *fz_limits(void)
{
    static limits L;
    static bool made;
    if (!made) {
        L = limits_default;
        L.yaml.max_alias_nodes = 20000;
        made = true;
    }
    return &L;
}

static void fz_die(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void fz_die(const char *what, const char *fmt, ...)
{
    fprintf(stderr, "\n==FUZZ CHECK FAILED== %s: ", what);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

/* Known bugs, reported and not fixed yet. Unless FUZZ_NO_SKIP=1, the targets step around them, so that a fuzz run
 * goes on to find other bugs instead of the same one again; tests/fuzz/run replays tests/fuzz/crashes/ with
 * FUZZ_NO_SKIP=1, so those reproducers fail until the bug is fixed. Remove an entry together with its fix.
 * None open at the moment (K1-K12 are fixed; their reproducers in crashes/ stay as regression inputs). */
static bool fz_strict(void)
{
    static int v = -1;
    if (v < 0) {
        const char *e = getenv("FUZZ_NO_SKIP");
        v = e && *e && strcmp(e, "0");
    }
    return v;
}

static const char *const fz_type_names[] = {"str", "null", "bool", "int", "float"};

static bool fz_tag_eq(const node *a, const node *b)
{
    const char *x = node_tag(a), *y = node_tag(b);
    return (!x && !y) || (x && y && !strcmp(x, y));
}

/* A flow sequence's null item that was nothing ("[a, &n ]") and came back as "null": the one text the emitter
 * changes, since a flow sequence cannot hold an empty item. Counted, for node_equal (which compares texts) to be
 * asked only without. */
static unsigned long fz_nulls_spelled;

static bool fz_null_spelled(const node *seq_b, const node *a, const node *b)
{
    return node_style(seq_b) == ST_FLOW && is_scalar(a) && is_scalar(b) && !node_tag(a) && !node_tag(b) &&
           node_style(a) == ST_PLAIN && node_style(b) == ST_PLAIN && scalar_len(a) == 0 && !strcmp(scalar(b), "null");
}

/* Writes a readable description of the first difference into why; false when the trees differ. */
static bool fz_same(const node *a, const node *b, char *path, size_t plen, size_t cap, char *why, size_t wcap)
{
    if (!a || !b) {
        if (a == b)
            return true;
        snprintf(why, wcap, "at %.*s: one side is NULL", (int)plen, path);
        return false;
    }
    if (node_kind(a) != node_kind(b)) {
        snprintf(why, wcap, "at %.*s: kind %d became %d", (int)plen, path, node_kind(a), node_kind(b));
        return false;
    }
    if (!fz_tag_eq(a, b)) {
        snprintf(why, wcap, "at %.*s: tag %s became %s", (int)plen, path, node_tag(a) ? node_tag(a) : "(none)",
                 node_tag(b) ? node_tag(b) : "(none)");
        return false;
    }
    if (is_scalar(a)) {
        if (scalar_len(a) != scalar_len(b) || memcmp(scalar(a), scalar(b), scalar_len(a))) {
            snprintf(why, wcap, "at %.*s: scalar \"%.*s\" (style %d) became \"%.*s\" (style %d)", (int)plen, path,
                     (int)(scalar_len(a) > 200 ? 200 : scalar_len(a)), scalar(a), node_style(a),
                     (int)(scalar_len(b) > 200 ? 200 : scalar_len(b)), scalar(b), node_style(b));
            return false;
        }
        enum scalar_type ta = node_type(a), tb = node_type(b);
        if (ta != tb) {
            snprintf(why, wcap, "at %.*s: scalar \"%.*s\" typed %s (style %d) became %s (style %d)", (int)plen, path,
                     (int)(scalar_len(a) > 200 ? 200 : scalar_len(a)), scalar(a), fz_type_names[ta], node_style(a), fz_type_names[tb],
                     node_style(b));
            return false;
        }
        return true;
    }
    if (node_len(a) != node_len(b)) {
        snprintf(why, wcap, "at %.*s: %u %s became %u", (int)plen, path, node_len(a), is_map(a) ? "pairs" : "items",
                 node_len(b));
        return false;
    }
    for (uint32_t i = 0; i < node_len(a); i++) {
        size_t n = plen;
        if (is_map(a)) {
            const node *k = map_key(a, i);
            int w = snprintf(path + n, n < cap ? cap - n : 0, ".%.*s", k && is_scalar(k) ? (int)(scalar_len(k) > 40 ? 40 : scalar_len(k)) : 1,
                             k && is_scalar(k) ? scalar(k) : "?");
            size_t nk = n + (w > 0 ? (size_t)w : 0);
            if (nk >= cap)
                nk = cap - 1;
            if (!fz_same(k, map_key(b, i), path, nk, cap, why, wcap))
                return false;
            if (!fz_same(map_val(a, i), map_val(b, i), path, nk, cap, why, wcap))
                return false;
        } else {
            int w = snprintf(path + n, n < cap ? cap - n : 0, "[%u]", i);
            size_t nk = n + (w > 0 ? (size_t)w : 0);
            if (nk >= cap)
                nk = cap - 1;
            if (fz_null_spelled(b, seq_item(a, i), seq_item(b, i)))
                fz_nulls_spelled++;
            else if (!fz_same(seq_item(a, i), seq_item(b, i), path, nk, cap, why, wcap))
                return false;
        }
    }
    return true;
}

/* Full check: our strict comparison, and the project's node_equal must agree on the value part. */
static bool fz_trees_match(const node *a, const node *b, char *why, size_t wcap)
{
    char path[1024] = "$";
    unsigned long spelled = fz_nulls_spelled;
    bool same = fz_same(a, b, path, 1, sizeof path, why, wcap);
    if (same && spelled == fz_nulls_spelled && !node_equal(a, b)) {
        snprintf(why, wcap, "node_equal says the trees differ, a field-by-field walk finds no difference");
        return false;
    }
    return same;
}

/* Comment text as the emitter writes it: the bytes that would end a comment for a YAML 1.1 reader (NEL, LS, PS, C1
 * controls) become spaces. */
static void fz_comment_norm(const char *s, char *out, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; s && s[i] && k + 1 < cap;) {
        const unsigned char *u = (const unsigned char *)s + i;
        if (u[0] == 0xc2 && u[1] >= 0x80 && u[1] <= 0x9f) {
            out[k++] = ' ';
            i += 2;
        } else if (u[0] == 0xe2 && u[1] == 0x80 && (u[2] == 0xa8 || u[2] == 0xa9)) {
            out[k++] = ' ';
            i += 3;
        } else {
            out[k++] = s[i++];
        }
    }
    out[k] = 0;
}

static bool fz_same_comment(const char *what, const char *x, const char *y, const char *path, char *why, size_t wcap)
{
    static char nx[8192], ny[8192];
    /* a flow root's foot starts with an empty line when nothing was on its closing line: written in block style
     * (a null key inside), its lines come back as a block root's foot, without it */
    if (!strcmp(what, "foot")) {
        x = x && *x == '\n' ? x + 1 : x;
        y = y && *y == '\n' ? y + 1 : y;
    }
    fz_comment_norm(x, nx, sizeof nx);
    fz_comment_norm(y, ny, sizeof ny);
    if (!strcmp(nx, ny))
        return true;
    snprintf(why, wcap, "%s: %s comment \"%.200s\" came back as \"%.200s\"", path, what, nx, ny);
    return false;
}

/* Line, head and foot comments of every node: what the loader kept, the emitter must write so that the loader
 * reads it back the same (a block collection's foot, an item's head above its "- ", a first key's after it). */
static bool fz_comments_match(const node *a, const node *b, char *path, size_t plen, size_t pcap, char *why,
                              size_t wcap, int depth);
static bool fz_comments_match_as(const node *a, const node *b, bool line, char *path, size_t plen, size_t pcap,
                                 char *why, size_t wcap, int depth);

/* "key: # text" over a value on the next line comes back after the value, on the same line: one place for both */
static const char *fz_entry_comment(const node *m, uint32_t i)
{
    const node *v = map_val(m, i);
    return is_scalar(v) && node_comment(v) ? node_comment(v) : node_comment(map_key(m, i));
}

static bool fz_entry_match(const node *a, const node *b, uint32_t i, char *path, size_t plen, size_t pcap, char *why,
                           size_t wcap, int depth)
{
    const node *ka = map_key(a, i), *kb = map_key(b, i), *va = map_val(a, i), *vb = map_val(b, i);
    if (is_scalar(va) && is_scalar(vb)) {
        if (!fz_same_comment("line", fz_entry_comment(a, i), fz_entry_comment(b, i), path, why, wcap) ||
            !fz_same_comment("head", node_head(ka), node_head(kb), path, why, wcap) ||
            !fz_same_comment("head", node_head(va), node_head(vb), path, why, wcap))
            return false;
        return true;
    }
    /* A collection value: its line comment ("key: [a] # c") and its key's ("key: # c" over a block one) are one
     * place, written value's first: in block style the value's goes on the key's line and reads back as the key's
     * (kyaml's setters read a flow list's comment on the list, a block list's on its key). */
    static char ja[8192], jb[8192];
    const char *ca = node_comment(va), *cka = node_comment(ka), *cb = node_comment(vb), *ckb = node_comment(kb);
    if (ca && !*ca && cka)
        ca = NULL; /* an empty one is not written beside the key's */
    snprintf(ja, sizeof ja, "%s%s%s", ca ? ca : "", ca && cka ? " # " : "", cka ? cka : "");
    snprintf(jb, sizeof jb, "%s%s%s", cb ? cb : "", cb && ckb ? " # " : "", ckb ? ckb : "");
    return fz_same_comment("line", ja, jb, path, why, wcap) &&
           fz_comments_match_as(ka, kb, false, path, plen, pcap, why, wcap, depth) &&
           fz_comments_match_as(va, vb, false, path, plen, pcap, why, wcap, depth);
}

static bool fz_comments_match(const node *a, const node *b, char *path, size_t plen, size_t pcap, char *why,
                              size_t wcap, int depth)
{
    return fz_comments_match_as(a, b, true, path, plen, pcap, why, wcap, depth);
}

/* line: compare the line comments of a and b too (not when the caller compared them with their keys') */
static bool fz_comments_match_as(const node *a, const node *b, bool line, char *path, size_t plen, size_t pcap,
                                 char *why, size_t wcap, int depth)
{
    if (!a || !b || depth > 600)
        return true;
    if ((line && !fz_same_comment("line", node_comment(a), node_comment(b), path, why, wcap)) ||
        !fz_same_comment("head", node_head(a), node_head(b), path, why, wcap) ||
        !fz_same_comment("foot", node_foot(a), node_foot(b), path, why, wcap))
        return false;
    if (is_scalar(a) || is_scalar(b) || node_style(a) == ST_FLOW)
        return true; /* comments inside a flow collection are not kept (README) */
    for (uint32_t i = 0; i < node_len(a) && i < node_len(b); i++) {
        int w = snprintf(path + plen, pcap - plen, "[%u]", i);
        size_t nl = w > 0 && plen + (size_t)w < pcap ? plen + (size_t)w : plen;
        bool ok = is_map(a) ? fz_entry_match(a, b, i, path, nl, pcap, why, wcap, depth + 1)
                            : fz_comments_match(seq_item(a, i), seq_item(b, i), path, nl, pcap, why, wcap, depth + 1);
        path[plen] = 0;
        if (!ok)
            return false;
    }
    return true;
}

struct fz_docs {
    node **v;
    size_t n, cap;
    int *wide;
};

static int fz_collect(void *ud, node *root, uint32_t index, uint32_t line, int seq_wide)
{
    struct fz_docs *d = ud;
    if (d->n == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 8;
        d->v = realloc(d->v, d->cap * sizeof *d->v);
        d->wide = realloc(d->wide, d->cap * sizeof *d->wide);
        if (!d->v || !d->wide)
            abort();
    }
    d->wide[d->n] = seq_wide;
    d->v[d->n++] = root;
    return 0;
}

static void fz_docs_free(struct fz_docs *d)
{
    free(d->v);
    free(d->wide);
    memset(d, 0, sizeof *d);
}

/* Emits every document the way render does ("---" between them), parses the text again and compares each
 * document with the one it came from. what: names the producer in the abort message. */
/* keep: as in-place writes emit (untouched scalars in their source layout) */
static void fz_check_stream_as(arena *a, strtab *st, node *const *docs, const int *wide, size_t n, bool comments,
                               bool keep, const char *what)
{
    buf b = {0};
    for (size_t i = 0; i < n; i++) {
        if (i)
            buf_puts(&b, "---\n");
        emit_opts o = {.seq_wide = wide ? wide[i] != 0 : false, .comments = comments, .keep_style = keep};
        emit_yaml(&b, docs[i], &o);
    }
    struct fz_docs back = {0};
    diag_reset();
    int rc = yaml_load(a, st, NULL, "emitted.yaml", b.data ? b.data : "", b.len, fz_collect, &back);
    if (rc < 0)
        fz_die(what, "the emitted YAML (comments %s) does not parse: %s\n--- emitted ---\n%.*s\n--- end ---",
               comments ? "on" : "off", diag_message(), (int)(b.len > 4000 ? 4000 : b.len), b.data ? b.data : "");
    /* A document that is only null (a plain empty or "~" scalar) is dropped by the loader on both sides. */
    size_t want = 0;
    for (size_t i = 0; i < n; i++)
        want += !(is_scalar(docs[i]) && is_null(docs[i]));
    if (back.n != want)
        fz_die(what, "%zu documents emitted (comments %s), %zu read back\n--- emitted ---\n%.*s\n--- end ---", want,
               comments ? "on" : "off", back.n, (int)(b.len > 4000 ? 4000 : b.len), b.data ? b.data : "");
    char why[1024];
    for (size_t i = 0, j = 0; i < n; i++) {
        if (is_scalar(docs[i]) && is_null(docs[i]))
            continue;
        if (!fz_trees_match(docs[i], back.v[j], why, sizeof why))
            fz_die(what, "document %zu changed in the emit/parse round trip (comments %s): %s\n--- emitted ---\n%.*s\n--- end ---",
                   i, comments ? "on" : "off", why, (int)(b.len > 4000 ? 4000 : b.len), b.data ? b.data : "");
        char path[1024] = "$";
        if (comments && !fz_comments_match(docs[i], back.v[j], path, 1, sizeof path, why, sizeof why, 0))
            fz_die(what, "document %zu lost or moved a comment in the emit/parse round trip: %s\n--- emitted ---\n%.*s\n--- end ---",
                   i, why, (int)(b.len > 4000 ? 4000 : b.len), b.data ? b.data : "");
        j++;
    }
    fz_docs_free(&back);
    buf_free(&b);
}

static void fz_check_stream(arena *a, strtab *st, node *const *docs, const int *wide, size_t n, bool comments,
                            const char *what)
{
    fz_check_stream_as(a, st, docs, wide, n, comments, false, what);
}

/* JSON text syntax (RFC 8259), enough to tell whether emit_json wrote something a JSON reader accepts. */
static const char *fz_json_ws(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

static const char *fz_json_value(const char *p, const char *e, int depth);

static const char *fz_json_string(const char *p, const char *e)
{
    if (p >= e || *p != '"')
        return NULL;
    for (p++; p < e; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '"')
            return p + 1;
        if (c < 0x20)
            return NULL;
        if (c == '\\') {
            p++;
            if (p >= e)
                return NULL;
            if (*p == 'u') {
                for (int k = 1; k <= 4; k++)
                    if (p + k >= e || !strchr("0123456789abcdefABCDEF", p[k]) || !p[k])
                        return NULL;
                p += 4;
            } else if (!strchr("\"\\/bfnrt", *p) || !*p) {
                return NULL;
            }
        }
    }
    return NULL;
}

static const char *fz_json_number(const char *p, const char *e)
{
    if (p < e && *p == '-')
        p++;
    if (p >= e)
        return NULL;
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        while (p < e && *p >= '0' && *p <= '9')
            p++;
    else
        return NULL;
    if (p < e && *p == '.') {
        p++;
        const char *s = p;
        while (p < e && *p >= '0' && *p <= '9')
            p++;
        if (p == s)
            return NULL;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < e && (*p == '+' || *p == '-'))
            p++;
        const char *s = p;
        while (p < e && *p >= '0' && *p <= '9')
            p++;
        if (p == s)
            return NULL;
    }
    return p;
}

static const char *fz_json_value(const char *p, const char *e, int depth)
{
    if (depth > 100000)
        return NULL;
    p = fz_json_ws(p, e);
    if (p >= e)
        return NULL;
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        bool obj = *p == '{';
        p = fz_json_ws(p + 1, e);
        if (p < e && *p == close)
            return p + 1;
        for (;;) {
            if (obj) {
                p = fz_json_string(fz_json_ws(p, e), e);
                if (!p)
                    return NULL;
                p = fz_json_ws(p, e);
                if (p >= e || *p != ':')
                    return NULL;
                p++;
            }
            p = fz_json_value(p, e, depth + 1);
            if (!p)
                return NULL;
            p = fz_json_ws(p, e);
            if (p < e && *p == ',') {
                p++;
                continue;
            }
            if (p < e && *p == close)
                return p + 1;
            return NULL;
        }
    }
    if (*p == '"')
        return fz_json_string(p, e);
    if (*p == '-' || (*p >= '0' && *p <= '9'))
        return fz_json_number(p, e);
    static const char *const words[] = {"true", "false", "null"};
    for (int i = 0; i < 3; i++) {
        size_t n = strlen(words[i]);
        if ((size_t)(e - p) >= n && !memcmp(p, words[i], n))
            return p + n;
    }
    return NULL;
}

/* emit_json must not crash and must write one valid JSON value. */
static void fz_check_json(const node *root, const char *what)
{
    buf j = {0};
    emit_json(&j, root);
    const char *s = j.data ? j.data : "";
    const char *end = fz_json_value(s, s + j.len, 0);
    if (!end || fz_json_ws(end, s + j.len) != s + j.len)
        fz_die(what, "emit_json wrote invalid JSON (at offset %ld): %.*s", end ? (long)(end - s) : -1L,
               (int)(j.len > 2000 ? 2000 : j.len), s);
    buf_free(&j);
}
#endif
