/* A block scalar's line comment sits after its header ("k: |- # c"): the loader reads it there, and the emitter
 * writes it there whenever it writes a value as a block scalar, also one that was plain ("k: a\n\n  b # c", found
 * by fuzz_yaml) or whose comment was its key's. Load -> emit -> load keeps the comment, in the Argo CD stream and in
 * in-place writes, and libyaml (YAML 1.1, like Go's yaml behind Argo CD) reads the written text as the same values. */
#include "check.h"
#include "libyaml_reader.h"
#include "util/diag.h"
#include "yaml/emit.h"
#include "yaml/load.h"

#include "yaml_unit.h"

static void init(void)
{
}

static const char *emitted(const node *root, bool keep, bool comments)
{
    buf b = {0};
    emit_opts o = {.comments = comments, .keep_style = keep};
    emit_yaml(&b, root, &o);
    const char *s = arena_strndup(A, b.data, b.len);
    buf_free(&b);
    return s;
}

/* The line comment of the document's one value: the root scalar's, a sequence's first item's, or a map's first
 * entry's (its value's, else its key's: "key: # c" over a value on the next line). */
static const char *value_comment(const node *root)
{
    if (node_kind(root) == N_SCALAR)
        return node_comment(root);
    if (node_kind(root) == N_SEQ)
        return node_comment(seq_item(root, 0));
    const node *v = map_val(root, 0);
    return node_comment(v) ? node_comment(v) : node_comment(map_key(root, 0));
}

static bool reads_back(const char *src, const char *text)
{
    const char *a[16], *b[16];
    int na = libyaml_scalars(A, src, a, 16), nb = libyaml_scalars(A, text, b, 16);
    bool ok = na >= 0 && na == nb;
    for (int i = 0; ok && i < na; i++)
        ok = !strcmp(a[i], b[i]);
    return ok;
}

struct case_ {
    const char *src;
    const char *stream;   /* the Argo CD stream */
    const char *in_place; /* NULL: the source itself */
    const char *comment;  /* the value's line comment */
};

static const struct case_ cases[] = {
    /* fuzz_yaml's: a plain scalar over lines, written as a literal block */
    {"k: a\n\n  b # c\n", "k: |- # c\n  a\n  b\n", NULL, "c"},
    {"- a\n\n  b # c\n", "- |- # c\n  a\n  b\n", NULL, "c"},
    {"k: 'a\n\n  b' # c\n", "k: |- # c\n  a\n  b\n", NULL, "c"},
    /* the comment was the key's: the value is written on the key's line, and the comment goes with it */
    {"k: # c\n  a\n\n  b\n", "k: |- # c\n  a\n  b\n", "k: a\n\n  b # c\n", "c"},
    /* block scalars read with a comment on their header, in every header */
    {"k: | # c\n  x\n", "k: | # c\n  x\n", NULL, "c"},
    {"k: |- # c\n  x\n  y\n", "k: |- # c\n  x\n  y\n", NULL, "c"},
    {"k: |- # c\n  x\n", "k: x # c\n", NULL, "c"},
    {"k: |+ # c\n  x\n\n", "k: |+ # c\n  x\n\n", NULL, "c"},
    {"k: |+ # c\n  x\n", "k: | # c\n  x\n", NULL, "c"},
    {"k: |2 # c\n   x\n  y\n", "k: |2 # c\n   x\n  y\n", NULL, "c"},
    {"k: |-2 # c\n   x\n  y\n", "k: |2- # c\n   x\n  y\n", "k: |2- # c\n   x\n  y\n", "c"},
    {"k: > # c\n  a\n  b\n\n  p\n", "k: | # c\n  a b\n  p\n", NULL, "c"},
    {"k: >- # c\n  a\n  b\n", "k: a b # c\n", NULL, "c"},
    {"k: >+ # c\n  a\n\n\n", "k: |+ # c\n  a\n\n\n", NULL, "c"},
    {"k: >2- # c\n   x\n  y\n", "k: |2- # c\n   x\n  y\n", NULL, "c"},
    {"k:\n  | # c\n  x\n", "k: | # c\n  x\n", "k: | # c\n  x\n", "c"},
    {"k: !!str | # c\n  x\n", "k: !!str | # c\n  x\n", NULL, "c"},
    {"k: &a|b | # c\n  x\n", "k: | # c\n  x\n", "k: | # c\n  x\n", "c"},
    {"\"a|b\": | # c\n  x\n", "\"a|b\": | # c\n  x\n", NULL, "c"}, /* (after a quoted key) */
    {"'a': > # c\n  x\n", "'a': | # c\n  x\n", NULL, "c"},
    {"k: | # a | b > c\n  x\n", "k: | # a | b > c\n  x\n", NULL, "a | b > c"},
    {"k: | #\n  x\n", "k: | #\n  x\n", NULL, ""},
    {"k: | # c\r\n  x\r\n", "k: | # c\n  x\n", "k: | # c\n  x\n", "c"},
    {"- - | # c\n    x\n", "- - | # c\n    x\n", NULL, NULL}, /* (the comment is the inner item's) */
    {"| # c\n x\n", "| # c\n  x\n", "| # c\n  x\n", "c"},
    {"--- | # c\n x\n", "| # c\n  x\n", "| # c\n  x\n", "c"},
    {"k: > # c\nj: 1\n", "k: '' # c\nj: 1\n", "k: '' # c\nj: 1\n", "c"},
    /* a "#" in the text is text */
    {"k: |\n  x # not a comment\n", "k: |\n  x # not a comment\n", NULL, NULL},
    {NULL, NULL, NULL, NULL},
};

TEST(block_scalar_header_comment_round_trips)
{
    init();
    for (int i = 0; cases[i].src; i++) {
        const struct case_ *c = &cases[i];
        node *root = NULL;
        diag_reset();
        CHECK(yaml_load_one(A, ST, NULL, "t.yaml", c->src, strlen(c->src), &root) == 0 && root);
        if (c->comment)
            CHECK_STR(value_comment(root), c->comment);
        else if (node_kind(root) != N_SEQ || node_kind(seq_item(root, 0)) == N_SCALAR)
            CHECK(!value_comment(root));
        for (int keep = 0; keep < 2; keep++) {
            const char *want = keep ? (c->in_place ? c->in_place : c->src) : c->stream;
            const char *text = emitted(root, keep, true);
            CHECK_STR(text, want);
            /* (libyaml refuses "|" in an anchor's name, which YAML allows: the stream's text, without the anchor,
             * is its reference there) */
            const char *ref = strstr(c->src, "&a|b") ? c->stream : c->src;
            if (!reads_back(ref, text)) {
                char msg[1024];
                snprintf(msg, sizeof msg, "libyaml (YAML 1.1) reads other values from\n%s\nwritten as\n%s", c->src, text);
                test_fail(__FILE__, __LINE__, msg);
                return;
            }
            node *back = NULL;
            CHECK(yaml_load_one(A, ST, NULL, "t.yaml", text, strlen(text), &back) == 0 && back);
            CHECK(node_equal(root, back));
            if (c->comment)
                CHECK_STR(value_comment(back), c->comment);
            CHECK_STR(emitted(back, keep, true), text);
        }
    }
}

/* The nested item of "- - | # c" holds the comment. */
TEST(block_scalar_header_comment_in_a_nested_item)
{
    init();
    const char *src = "- - | # c\n    x\n";
    node *root = NULL;
    diag_reset();
    CHECK(yaml_load_one(A, ST, NULL, "t.yaml", src, strlen(src), &root) == 0 && root);
    CHECK_STR(node_comment(seq_item(seq_item(root, 0), 0)), "c");
}

/* Without comments (drop-comments, results), the header stays bare. */
TEST(block_scalar_header_comment_not_written_without_comments)
{
    init();
    const char *src = "k: a\n\n  b # c\nl: | # d\n  x\nm: > # e\n  y\n";
    node *root = NULL;
    diag_reset();
    CHECK(yaml_load_one(A, ST, NULL, "t.yaml", src, strlen(src), &root) == 0 && root);
    CHECK_STR(emitted(root, false, false), "k: |-\n  a\n  b\nl: |\n  x\nm: |\n  y\n");
    CHECK_STR(emitted(root, true, false), "k: a\n\n  b\nl: |\n  x\nm: >\n  y\n");
}
