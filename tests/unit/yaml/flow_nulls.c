/* A flow collection that holds a null stays in flow style ("[a, null]", "{a: null}", "{a: }" in an in-place write
 * keep their layout): a null map value is written as read, or as nothing ("{a: }") when it was nothing, a null item
 * that was nothing as "null" ("[a, , b]" is not YAML; "null" is null to YAML 1.1, 1.2 and JSON readers alike), a
 * tagged one with the space after its tag ("[!!null , a]": libyaml, like Go's yaml, reads a "," "]" or "}" right
 * after a tag as part of it). Only a null key ("{: v}" is refused by libyaml) keeps block style, for the collection
 * and the flow ones around it. libyaml (YAML 1.1) and our loader (libfyaml, YAML 1.2) read back the same values. */
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

static const char *json(const node *root)
{
    buf b = {0};
    emit_json(&b, root);
    const char *s = arena_strndup(A, b.data ? b.data : "", b.len);
    buf_free(&b);
    return s;
}

struct case_ {
    const char *src;
    const char *out; /* in the stream and in-place writes alike; NULL: the source itself */
};

static const struct case_ cases[] = {
    /* as read */
    {"k: [a, null]\n", NULL},
    {"k: {a: null}\n", NULL},
    {"{k: null, j: ~, l: , m: NULL}\n", NULL},
    {"x: [a, ~, Null] # c\n", NULL},
    /* a null that is nothing */
    {"k: {a: }\n", NULL},
    {"{k: , j: 1}\n", NULL},
    {"{k}\n", "{k: }\n"},
    {"x: [a, &n , b]\n", "x: [a, null, b]\n"},
    {"- [&n ]\n", "- [null]\n"},
    {"[a, b: ]\n", "[a, {b: }]\n"},
    {"{a: [&n , {b: }]} # c\n", "{a: [null, {b: }]} # c\n"},
    /* tagged */
    {"y: {k: !!null , j: !!str }\n", NULL},
    {"[!!null , a, !!str ]\n", NULL},
    {"[3, !!null : 2]\n", "[3, {!!null : 2}]\n"},
    /* a null key: block style, for it and the flow collections around it */
    {"{? : v, a: }\n", "?\n: v\na:\n"},
    {"k: {a: [1, {? : v}], b: }\nj: [a, &n ]\n", "k:\n  a:\n  - 1\n  - ?\n    : v\n  b:\nj: [a, null]\n"},
    {NULL, NULL},
};

TEST(flow_collection_with_null_stays_flow)
{
    for (int i = 0; cases[i].src; i++) {
        const struct case_ *c = &cases[i];
        node *root = NULL;
        diag_reset();
        CHECK(yaml_load_one(A, ST, NULL, "t.yaml", c->src, strlen(c->src), &root) == 0 && root);
        const char *values = libyaml_values(A, c->src);
        CHECK(values);
        for (int in_place = 0; in_place < 2; in_place++) {
            const char *text = emitted(root, in_place);
            CHECK_STR(text, c->out ? c->out : c->src);
            const char *back = libyaml_values(A, text);
            const char *why = libyaml_mismatch(A, values, c->src, back, text);
            if (why) {
                test_fail(__FILE__, __LINE__, why);
                return;
            }
            node *again = NULL;
            CHECK(yaml_load_one(A, ST, NULL, "t.yaml", text, strlen(text), &again) == 0 && again);
            CHECK_STR(json(again), json(root));
            CHECK_STR(emitted(again, in_place), text);
        }
    }
}

/* A program's null (an empty plain scalar) in a flow list or map it adds to. */
TEST(flow_collection_with_a_made_null)
{
    node *root = NULL;
    const char *src = "k: [a]\nm: {a: 1}\n";
    CHECK(yaml_load_one(A, ST, NULL, "t.yaml", src, strlen(src), &root) == 0 && root);
    seq_append(A, map_get(root, "k"), node_scalar(A, "", 0, ST_PLAIN));
    map_set(A, map_get(root, "m"), "b", node_scalar(A, "", 0, ST_PLAIN));
    CHECK_STR(emitted(root, true), "k: [a, null]\nm: {a: 1, b: }\n");
}
