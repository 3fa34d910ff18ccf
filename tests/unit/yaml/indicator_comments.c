/* Comment lines whose place only an indicator marks, none of them a token of libfyaml's: the "- " of an item whose
 * block sequence starts on a later line ("-", "#", " - 4": a head of that sequence's first item, written back after
 * the dash as kyaml writes a map's first key's), the "..." that ends a document (the lines after it are no longer
 * the document's foot: they go between the documents, as the lines before a "---" do), and the "?", ":" or "-" of
 * a null key or item (a head above it, and a null item's line comment). Load -> emit -> load keeps them on the same
 * node, in the Argo CD stream and in in-place writes, and libyaml (YAML 1.1, like Go's yaml behind Argo CD) reads
 * the written text as the same values. */
#include "check.h"
#include "libyaml_reader.h"
#include "util/diag.h"
#include "yaml/emit.h"
#include "yaml/load.h"

#include "yaml_unit.h"

struct docs {
    node *v[8];
    int n;
};

static int take_doc(void *ud, node *root, uint32_t index, uint32_t line, int seq_wide)
{
    struct docs *d = ud;
    if (d->n < 8)
        d->v[d->n++] = root;
    return 0;
}

static struct docs loaded(const char *src)
{
    struct docs d = {0};
    diag_reset();
    if (yaml_load(A, ST, NULL, "t.yaml", src, strlen(src), take_doc, &d) < 0)
        d.n = -1;
    return d;
}

/* Every document of src, emitted as the stream (in_place false) or an in-place write (the stream's text around
 * the documents is kept once the whole stream is read); NULL when it does not load. */
static const char *emitted(const char *src, bool in_place)
{
    struct docs d = loaded(src);
    if (d.n < 0)
        return NULL;
    buf b = {0};
    emit_opts o = {.comments = true, .documents = in_place, .keep_style = in_place};
    for (int i = 0; i < d.n; i++) {
        if (i)
            buf_puts(&b, "---\n"); /* as in-place writes and the stream separate them */
        emit_yaml(&b, d.v[i], &o);
    }
    const char *s = arena_strndup(A, b.data ? b.data : "", b.len);
    buf_free(&b);
    return s;
}

struct case_ {
    const char *src;
    const char *stream;   /* the Argo CD stream; NULL: the source itself */
    const char *in_place; /* NULL: the stream's */
};

static const struct case_ cases[] = {
    /* above the first item of a block sequence that starts below its "- " (fuzz_yaml k27), and after the dash */
    {"-\n#\n - 4\n", "- #\n  - 4\n", NULL},
    {"-\n  # a\n\n  # b\n  - 4\n", "- # a\n\n  # b\n  - 4\n", NULL},
    {"- # a\n  # b\n  - 4\n  - 5\n", NULL, NULL},
    {"k:\n- # a\n  - 4\n", NULL, NULL},
    {"- - # a\n    - x\n", NULL, NULL},
    {"- # a\n  - # b\n    k: 1\n", NULL, NULL}, /* the item's own, then its map's first key's */
    {"- !!seq\n  # a\n  - # b\n    k: 1\n", NULL, NULL},
    {"- # a\n  - [x]\n", NULL, NULL},
    {"- # a\n  - - x\n", NULL, NULL},
    /* after a document's "..." marker: between the documents, for block and flow roots, as before a "---" */
    {"a: 1\n...\n# after\n---\nb: 2\n", "a: 1\n---\nb: 2\n", "a: 1\n---\n# after\n---\nb: 2\n"},
    {"a: 1\n# foot\n...\n# after\n\n# more\n---\nb: 2\n", "a: 1\n# foot\n---\nb: 2\n",
     "a: 1\n# foot\n---\n# after\n\n# more\n---\nb: 2\n"},
    {"a: 1\n...\n# end\n", "a: 1\n", "a: 1\n---\n# end\n"},
    {"{a: 1}\n... # x\n# y\n...\n# z\n", "{a: 1}\n", "{a: 1}\n---\n# x\n# y\n---\n# z\n"},
    {"- 1\n...\n# x\n...\n---\n[2]\n", "- 1\n---\n[2]\n", "- 1\n---\n# x\n---\n[2]\n"},
    /* above a null key or item, which have no token, and a null item's line comment */
    {"# h\n?\n: v\n", NULL, NULL},
    {"- a\n# h\n-\n", NULL, NULL},
    {"- a\n- # c\n- b\n", NULL, NULL},
    {"? a\n:\n# h\n?\n: v\n", "a:\n# h\n?\n: v\n", NULL},
    {"\"a\":\n# h\n?\n: v\n", NULL, NULL},
    {"? 'a'\n:\n# h\n?\n: v\n", "'a':\n# h\n?\n: v\n", NULL}, /* (its token ends before its closing quote) */
    {"k:\n  - a\n  # h\n  -\n  # i\n  - # c\n# j\n?\n: 1\n", NULL, NULL},
    {"- # kh\n  ?\n  : v\n", NULL, NULL},
    {"- - a\n  # h\n  -\n# i\n-\n", NULL, NULL},
    {"- a\n# h\n- !!str\n", NULL, NULL},
    {"# a\n- !!str\n# h\n-\n", NULL, NULL}, /* (the null item looks below the tagged one) */
    /* above an explicit key ("? a") */
    {"# h\n? a\n: 1\n", "# h\na: 1\n", NULL},
    {"x: 1\n# h\n? a\n: 1\n", "x: 1\n# h\na: 1\n", NULL},
    {NULL, NULL, NULL},
};

TEST(indicator_comments_round_trip)
{
    for (int i = 0; cases[i].src; i++) {
        const struct case_ *c = &cases[i];
        const char *values = libyaml_values_no_null_docs(A, c->src);
        if (!values) {
            char msg[512];
            snprintf(msg, sizeof msg, "libyaml refuses the source\n%s", c->src);
            test_fail(__FILE__, __LINE__, msg);
            return;
        }
        for (int in_place = 0; in_place < 2; in_place++) {
            const char *stream = c->stream ? c->stream : c->src;
            const char *want = in_place && c->in_place ? c->in_place : stream;
            const char *text = emitted(c->src, in_place);
            CHECK_STR(text, want);
            const char *back = libyaml_values_no_null_docs(A, text);
            const char *why = libyaml_mismatch(A, values, c->src, back, text);
            if (why) {
                test_fail(__FILE__, __LINE__, why);
                return;
            }
            CHECK_STR(emitted(text, in_place), text); /* read back, the comments stay where they went */
        }
    }
}

/* The nodes the comments go to on the first read. */
TEST(indicator_comments_on_their_nodes)
{
    struct docs d = loaded("-\n#\n - 4\n");
    CHECK(d.n == 1);
    CHECK_STR(node_head(seq_item(seq_item(d.v[0], 0), 0)), "#");
    CHECK(!node_head(seq_item(d.v[0], 0)));
    d = loaded("# i\n- # a\n  - x\n");
    CHECK(d.n == 1);
    CHECK_STR(node_head(seq_item(d.v[0], 0)), "# i");
    CHECK_STR(node_head(seq_item(seq_item(d.v[0], 0), 0)), "# a");

    d = loaded("# h\n?\n: v\n");
    CHECK(d.n == 1);
    CHECK_STR(node_head(map_key(d.v[0], 0)), "# h");
    d = loaded("- a\n# h\n-\n- # c\n");
    CHECK(d.n == 1);
    CHECK_STR(node_head(seq_item(d.v[0], 1)), "# h");
    CHECK(!node_comment(seq_item(d.v[0], 1)));
    CHECK_STR(node_comment(seq_item(d.v[0], 2)), "c");
    CHECK(!node_head(seq_item(d.v[0], 2)));
    CHECK_STR(emitted("x: 1\n# h\n: v\n", false), "x: 1\n# h\n?\n: v\n"); /* (an empty key libyaml refuses) */
    d = loaded("? a\n# h\n:\n?\n: v\n"); /* between a key and its value: not the next key's */
    CHECK(d.n == 1);
    CHECK(!node_head(map_key(d.v[0], 1)));
    CHECK(!node_head(map_val(d.v[0], 0))); /* nor the value's: the emitter writes none there */

    /* after "...": the comment-only part before the next document's "---", or after the last document */
    CHECK_STR(emitted("a: 1\n...\n# x\n---\nb: 2\n", true), "a: 1\n---\n# x\n---\nb: 2\n");
    /* with no "---" after it (which libyaml refuses), the next document's first key's head, as it was */
    CHECK_STR(emitted("a: 1\n...\n# x\nb: 2\n", true), "a: 1\n---\n# x\nb: 2\n");
    d = loaded("a: 1\n# f\n...\n# x\n");
    CHECK(d.n == 1);
    CHECK_STR(node_foot(d.v[0]), "# f");

    /* above a block scalar item: its header line, not its content's first line, is what the comment is above */
    d = loaded("- a\n# h\n- |-\n  b\n# i\n- !!str >\n  c\n");
    CHECK(d.n == 1);
    CHECK_STR(node_head(seq_item(d.v[0], 1)), "# h");
    CHECK_STR(node_head(seq_item(d.v[0], 2)), "# i");
    CHECK_STR(emitted("# h\n- b\n\n  c\n", false), "# h\n- |-\n  b\n  c\n");
}
