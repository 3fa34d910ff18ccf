/* The comment lines around a flow-style root ("{a: 1}" then "# note", a "[x, y]" document then comments before the
 * next "---") are kept as a block root's are: the lines after it, up to the document's end, as the document's foot
 * (after the one on its closing line, if any), the lines above it as its head. Load -> emit -> load keeps them where
 * they were, in the Argo CD stream and in in-place writes, and libyaml (YAML 1.1, like Go's yaml behind Argo CD)
 * reads the written text as the same values. */
#include "check.h"
#include "libyaml_reader.h"
#include "util/diag.h"
#include "yaml/emit.h"
#include "yaml/load.h"

#include "yaml_unit.h"

struct docs {
    buf b;
    emit_opts o;
    int n;
};

static int emit_doc(void *ud, node *root, uint32_t index, uint32_t line, int seq_wide)
{
    struct docs *d = ud;
    if (d->n++)
        buf_puts(&d->b, "---\n"); /* as in-place writes and the stream separate them */
    emit_yaml(&d->b, root, &d->o);
    return 0;
}

/* Every document of src, emitted as the stream (in_place false) or an in-place write; NULL when it does not load. */
static const char *emitted(const char *src, bool in_place, bool comments)
{
    struct docs d = {.o = {.comments = comments, .documents = in_place, .keep_style = in_place}};
    diag_reset();
    int rc = yaml_load(A, ST, NULL, "t.yaml", src, strlen(src), emit_doc, &d);
    const char *s = rc < 0 ? NULL : arena_strndup(A, d.b.data ? d.b.data : "", d.b.len);
    buf_free(&d.b);
    return s;
}

struct case_ {
    const char *src;
    const char *stream;   /* the Argo CD stream */
    const char *in_place; /* NULL: the source itself */
};

static const struct case_ cases[] = {
    /* the lines after a flow root, to the end of the text */
    {"{a: 1}\n# trailing note\n", "{a: 1}\n# trailing note\n", NULL},
    {"[x, y]\n# c1\n# c2\n", "[x, y]\n# c1\n# c2\n", NULL},
    /* after the comment on its closing line; a blank line between comment lines stays, one before them goes (as
     * for a block root) and so does their indentation */
    {"{a: 1} # same\n# below\n\n# more\n", "{a: 1} # same\n# below\n\n# more\n", NULL},
    {"{a: 1}\n\n  # indented\n", "{a: 1}\n# indented\n", "{a: 1}\n# indented\n"},
    /* over several lines */
    {"{a: 1,\n  b: [x,\n   y]}\n# note\n", "{a: 1, b: [x, y]}\n# note\n", "{a: 1, b: [x, y]}\n# note\n"},
    /* before the next "---", and at the end of the last document */
    {"[x, y]\n# c1\n---\n{b: 1}\n# c2\n", "[x, y]\n# c1\n---\n{b: 1}\n# c2\n", NULL},
    {"{a: 1}\n# c1\n...\n---\n{b: 1}\n# c2\n...\n", "{a: 1}\n# c1\n---\n{b: 1}\n# c2\n", "{a: 1}\n# c1\n---\n{b: 1}\n# c2\n"},
    /* the lines above it */
    {"# head\n{a: 1}\n", "# head\n{a: 1}\n", NULL},
    {"# head\n\n# more\n[[a], b]\n", "# head\n\n# more\n[[a], b]\n", NULL},
    {"# head\n{}\n", "# head\n{}\n", NULL},
    {"---\n# head\n!!map {a: 1} # c\n# foot\n", "# head\n!!map {a: 1} # c\n# foot\n", "# head\n!!map {a: 1} # c\n# foot\n"},
    /* with the stream's comment-only documents and the comments before a "---" (in-place writes only) */
    {"# h0\n---\n# head\n{a: 1}\n# foot\n---\n# only\n---\n[a] # x\n# end\n",
     "# head\n{a: 1}\n# foot\n---\n[a] # x\n# end\n", NULL},
    /* a flow value at the end of a block map: the map's foot, as before */
    {"a: 1\nb: [x, y] # lc\n# note\n---\nc: {d: 1}\n# end\n", "a: 1\nb: [x, y] # lc\n# note\n---\nc: {d: 1}\n# end\n", NULL},
    {"a:\n  b: {x: 1}\n  # inner\n# outer\n", "a:\n  b: {x: 1}\n  # inner\n# outer\n", NULL},
    /* a flow root that must be written in block style (a null key): the comments follow its entries */
    {"# h\n{a: 1, ? : , b: 2} # c\n# note\n", "# h\na: 1\n?\n:\nb: 2\n# c\n# note\n",
     "# h\na: 1\n?\n:\nb: 2\n# c\n# note\n"},
    {"[{? : , a: 1}]\n# note\n", "- ?\n  :\n  a: 1\n# note\n", "- ?\n  :\n  a: 1\n# note\n"},
    /* (ending in a null key, whose "?" and ":" lines have no token) */
    {"{a: 1, ? : } # c\n# note\n", "a: 1\n?\n:\n# c\n# note\n", "a: 1\n?\n:\n# c\n# note\n"},
    {"[a, {? : }]\n# note\n", "- a\n- ?\n  :\n# note\n", "- a\n- ?\n  :\n# note\n"},
    {NULL, NULL, NULL},
};

TEST(flow_root_comments_round_trip)
{
    for (int i = 0; cases[i].src; i++) {
        const struct case_ *c = &cases[i];
        const char *values = libyaml_values_no_null_docs(A, c->src);
        CHECK(values);
        for (int in_place = 0; in_place < 2; in_place++) {
            const char *want = in_place ? (c->in_place ? c->in_place : c->src) : c->stream;
            const char *text = emitted(c->src, in_place, true);
            CHECK_STR(text, want);
            const char *back = libyaml_values_no_null_docs(A, text);
            const char *why = libyaml_mismatch(A, values, c->src, back, text);
            if (why) {
                test_fail(__FILE__, __LINE__, why);
                return;
            }
            CHECK_STR(emitted(text, in_place, true), text); /* read back, the comments stay where they went */
        }
    }
}

TEST(flow_root_foot_holds_its_lines)
{
    node *n = NULL;
    const char *src = "{a: 1} # c\n# d\n";
    CHECK(yaml_load_one(A, ST, NULL, "t.yaml", src, strlen(src), &n) == 0 && n);
    CHECK_STR(node_foot(n), "# c\n# d");
    CHECK(!node_comment(n));
    src = "# h\n[1]\n# d\n";
    CHECK(yaml_load_one(A, ST, NULL, "t.yaml", src, strlen(src), &n) == 0 && n);
    CHECK_STR(node_foot(n), "\n# d"); /* (nothing on the closing line) */
    CHECK_STR(node_head(seq_item(n, 0)), "# h"); /* (where a block root's goes: its first entry) */
    CHECK(!node_head(n));
    src = "# h\n{a: 1}\n";
    CHECK(yaml_load_one(A, ST, NULL, "t.yaml", src, strlen(src), &n) == 0 && n);
    CHECK_STR(node_head(map_key(n, 0)), "# h");
    src = "# h\n{}\n";
    CHECK(yaml_load_one(A, ST, NULL, "t.yaml", src, strlen(src), &n) == 0 && n);
    CHECK_STR(node_head(n), "# h");
    /* none: nothing kept */
    src = "{a: 1}\n\n";
    CHECK(yaml_load_one(A, ST, NULL, "t.yaml", src, strlen(src), &n) == 0 && n);
    CHECK(!node_foot(n) && !node_head(n));
}

TEST(flow_root_comments_restyled_by_a_program)
{
    const char *srcs[] = {"{a: 1} # c\n# d\n", "{a: 1}\n# d\n", "# h\n[1]\n", "# h\n{a: 1}\n"};
    const char *want[] = {"a: 1\n# c\n# d\n", "a: 1\n# d\n", "# h\n- 1\n", "# h\na: 1\n"};
    for (int i = 0; i < 4; i++) {
        node *n = NULL;
        CHECK(yaml_load_one(A, ST, NULL, "t.yaml", srcs[i], strlen(srcs[i]), &n) == 0 && n);
        node_set_style(n, ST_BLOCK);
        buf b = {0};
        emit_opts o = {.comments = true};
        emit_yaml(&b, n, &o);
        const char *text = arena_strndup(A, b.data, b.len);
        buf_free(&b);
        CHECK_STR(text, want[i]);
        CHECK_STR(emitted(text, false, true), text);
    }
}

TEST(flow_root_comments_not_written_without_comments)
{
    CHECK_STR(emitted("# h\n{a: 1} # c\n# d\n---\n[1]\n# e\n", false, false), "{a: 1}\n---\n[1]\n");
}
