/* Indentation inside a flow collection, as Go's yaml.v3 (kpt, kustomize) and libyaml read it: not at all. A closing
 * bracket at its key's column, left of it or at column 0, entries and continuation lines likewise, are read (libfyaml
 * refused them: "wrongly indented sequence end in flow mode", which failed a real package's StatefulSet). What
 * yaml.v3 refuses inside a flow stays refused: a document marker at column 0, a block entry, a tab before a token at
 * the start of a line, text after the closing bracket. Each accepted case is read the way libyaml reads it (the
 * values of what we write back are libyaml's values of the source), and lines stay the file's. */
#include "check.h"
#include "libyaml_reader.h"
#include "util/diag.h"
#include "yaml/emit.h"
#include "yaml/load.h"

#include "yaml_unit.h"

static const char *emitted(const node *root, bool in_place)
{
    buf b = {0};
    emit_opts o = {.comments = true, .documents = in_place, .keep_style = in_place};
    emit_yaml(&b, root, &o);
    const char *s = arena_strndup(A, b.data ? b.data : "", b.len);
    buf_free(&b);
    return s;
}

struct case_ {
    const char *src, *out; /* out: the stream's text */
};

static const struct case_ read[] = {
    /* the closing bracket at the key's column (a real StatefulSet's `command: [` ... `]`) */
    {"spec:\n  args: [\n    a, b\n  ]\n", "spec:\n  args: [a, b]\n"},
    /* left of its key, at column 0, and a key after it at the key's column */
    {"spec:\n  args: [\n    a, b\n ]\n  next: 1\n", "spec:\n  args: [a, b]\n  next: 1\n"},
    {"spec:\n  args: [\n    a, b\n]\n  next: 1\nlast: 2\n", "spec:\n  args: [a, b]\n  next: 1\nlast: 2\n"},
    /* maps, entries at column 0, an empty collection, a trailing comma */
    {"spec:\n  m: {\n    a: 1\n  }\n", "spec:\n  m: {a: 1}\n"},
    {"spec:\n  m: {\na: 1,\nb: 2 }\n", "spec:\n  m: {a: 1, b: 2}\n"},
    {"spec:\n  k: [\n]\n", "spec:\n  k: []\n"},
    {"spec:\n  k: [\na,\n]\n", "spec:\n  k: [a]\n"},
    /* a sequence item, nested collections, a value on the next line */
    {"top:\n  - [\n    a\n  ]\n  - b\n", "top:\n- [a]\n- b\n"},
    {"top:\n  k: [ [\na\n], b,\nc ]\n", "top:\n  k: [[a], b, c]\n"},
    {"top:\n  k: { a:\nb }\n", "top:\n  k: {a: b}\n"},
    /* continuation lines of plain and quoted scalars, a comment line, anchors and tags at column 0 */
    {"top:\n  k: [ a\nb ]\n", "top:\n  k: [a b]\n"},
    {"top:\n  k: [ \"a\nb\", 'c\nd' ]\n", "top:\n  k: [\"a b\", 'c d']\n"},
    {"top:\n  k: [ a,\n# c\nb ]\n", "top:\n  k: [a, b]\n"},
    {"top:\n  k: [\n&x a, !!str 1\n]\n", "top:\n  k: [a, !!str 1]\n"},
    /* a tab as the separation inside the flow (yaml.v3 reads it; only before a token at a line start it refuses) */
    {"top:\n  k: [\n\ta\n  ]\n", "top:\n  k: [a]\n"},
    /* the root */
    {"{a: [\n1\n],\nb: 2\n}\n", "{a: [1], b: 2}\n"},
    {NULL, NULL},
};

TEST(flow_indentation_ends_and_entries_anywhere_are_read)
{
    for (int i = 0; read[i].src; i++) {
        const struct case_ *c = &read[i];
        node *root = NULL;
        diag_reset();
        if (yaml_load_one(A, ST, NULL, "t.yaml", c->src, strlen(c->src), &root) < 0 || !root) {
            test_fail(__FILE__, __LINE__, arena_printf(A, "refused %s: %s", c->src, diag_message()));
            return;
        }
        const char *values = libyaml_values(A, c->src);
        CHECK(values);
        CHECK_STR(emitted(root, false), c->out);
        for (int in_place = 0; in_place < 2; in_place++) {
            const char *text = emitted(root, in_place);
            const char *why = libyaml_mismatch(A, values, c->src, libyaml_values(A, text), text);
            if (why) {
                test_fail(__FILE__, __LINE__, why);
                return;
            }
        }
    }
}

static const char *const refused[] = {
    "top:\n  k: [\n---\n  ]\n",         /* a document start inside the flow */
    "top:\n  k: {\n...\n  }\n",         /* a document end */
    "top:\n  k: [\n- a\n]\n",           /* a block entry */
    "top:\n  k: [\n  a\n\t]\n",         /* a tab before the closing bracket at the line start */
    "top:\n  k: [\n  a\n] x\n",         /* text after the bracket */
    "top:\n  k: [\n  a\n]\n   j: 1\n",  /* a key at no column of the maps around it */
    "top:\n  k: [\n  a: 1\n  b: 2\n]\n", /* a block map inside the flow */
    "top:\n  k: [\n  a\n",              /* never closed */
    NULL,
};

TEST(flow_indentation_what_yaml_v3_refuses_stays_refused)
{
    for (int i = 0; refused[i]; i++) {
        node *root = NULL;
        diag_reset();
        CHECK(libyaml_values(A, refused[i]) == NULL); /* libyaml refuses it too */
        if (yaml_load_one(A, ST, NULL, "t.yaml", refused[i], strlen(refused[i]), &root) == 0) {
            test_fail(__FILE__, __LINE__, arena_printf(A, "read %s", refused[i]));
            return;
        }
        CHECK(strstr(diag_message(), "t.yaml:") && strstr(diag_message(), "invalid YAML"));
    }
    diag_reset();
}

/* Nothing is re-indented: lines and the error after such a collection name the file's lines. */
TEST(flow_indentation_keeps_the_file_lines)
{
    const char *src = "spec:\n  args: [\n    a\n]\n  next: 1\n";
    node *root = NULL;
    CHECK(yaml_load_one(A, ST, NULL, "t.yaml", src, strlen(src), &root) == 0 && root);
    const node *spec = map_get(root, "spec");
    CHECK(map_key_line(spec, 1) == 5);
    CHECK(node_line(seq_item(map_get(spec, "args"), 0)) == 3);
    diag_reset();
    const char *bad = "spec:\n  args: [\n    a\n]\n  next: 1\n  next: 2\n";
    CHECK(yaml_load_one(A, ST, NULL, "t.yaml", bad, strlen(bad), &root) < 0);
    CHECK(strstr(diag_message(), "t.yaml:6:"));
    diag_reset();
}
