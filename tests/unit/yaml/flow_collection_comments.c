/* The comment after a flow collection ("{a: 1} # c", "- [1, 2] # c", "k: [a] # c") survives being written in block
 * style (the emitter's choice when a null key hides inside, or a program's) and reads back where it was written:
 * the root's and an item's as their foot, a map value's on its key's line (where kyaml's setters read a block
 * list's comment). Found by fuzz_yaml (tests/fuzz/crashes/fuzz_yaml/k23-*). */
#include "check.h"
#include "util/diag.h"
#include "yaml/emit.h"
#include "yaml/load.h"

#include "yaml_unit.h"

static node *load(const char *text)
{
    node *n = NULL;
    return yaml_load_one(A, ST, NULL, "t.yaml", text, strlen(text), &n) < 0 ? NULL : n;
}

static const char *emit(const node *n)
{
    buf b = {0};
    emit_opts o = {.comments = true};
    emit_yaml(&b, n, &o);
    const char *s = arena_strndup(A, b.data ? b.data : "", b.len);
    buf_free(&b);
    return s;
}

/* The text as emitted, checked to read back into the same text (the comment stays where it went). */
static const char *settled(const char *src)
{
    node *n = load(src);
    if (!n)
        return diag_message();
    const char *once = emit(n);
    node *back = load(once);
    if (!back)
        return diag_message();
    const char *twice = emit(back);
    return strcmp(once, twice) ? arena_printf(A, "not stable:\n%s--- then:\n%s", once, twice) : once;
}

TEST(flow_root_comment_kept_when_written_block)
{
    /* the fuzz_yaml input: its null value stays in flow style ("key: "), and so does the comment */
    CHECK_STR(settled("{\"apiVersion\": \"v1\", \"uind\": \"ConfigMap\", \"metny\\u00e9\\true\"} #. \"lzst\": [1]}\n"),
              "{\"apiVersion\": \"v1\", \"uind\": \"ConfigMap\", \"metny\xc3\xa9\\true\": } # . \"lzst\": [1]}\n");
    /* a null key keeps a map out of flow style */
    CHECK_STR(settled("{? : , a: 1} # c\n"), "?\n:\na: 1\n# c\n");
    CHECK_STR(settled("[{? : , a: 1}, b] # c\n"), "- ?\n  :\n  a: 1\n- b\n# c\n");
    node *n = load("{a: 1, b: } # c\n");
    CHECK(n && node_foot(n) && !strcmp(node_foot(n), "# c") && !node_comment(n));
}

TEST(flow_root_comment_kept_in_flow)
{
    CHECK_STR(settled("{a: 1} # c\n"), "{a: 1} # c\n");
    CHECK_STR(settled("!!seq [1, 2]   #c  \n"), "!!seq [1, 2] # c\n");
}

TEST(flow_item_comment_kept_block_and_flow)
{
    CHECK_STR(settled("- [{? : b}, a] # c\n- [1] # d\n- {? : , x: 1} # e\n- x\n"),
              "- - ?\n    : b\n  - a\n  # c\n- [1] # d\n- ?\n  :\n  x: 1\n  # e\n- x\n");
}

TEST(flow_value_comment_on_key_line_when_block)
{
    CHECK_STR(settled("k: {? : a, b: 1} # c\nj: 1\n"), "k: # c\n  ?\n  : a\n  b: 1\nj: 1\n");
    node *n = load("k: # c\n  a:\n");
    CHECK(n && node_comment(map_key(n, 0)) && !strcmp(node_comment(map_key(n, 0)), "c"));
    /* a tag before it: the comment after the tag is the key's too */
    CHECK_STR(settled("k: !!map {? : , b: } # c\n"), "k: !!map # c\n  ?\n  :\n  b:\n");
    n = load("k: !!map # c\n  a: 1\n");
    CHECK(n && node_comment(map_key(n, 0)) && !strcmp(node_comment(map_key(n, 0)), "c"));
    n = load("k: !!str # c\nj: 1\n");
    CHECK(n && node_comment(map_key(n, 0)) && !strcmp(node_comment(map_key(n, 0)), "c"));
    /* the value's comment and the key's, in the order the flow layout writes them */
    CHECK_STR(settled("k: # kc\n  {? : , b: } # vc\n"), "k: # vc # kc\n  ?\n  :\n  b:\n");
}

TEST(flow_value_comment_stays_on_the_flow_list)
{
    /* where the setters read it: on the list while it is in flow style */
    node *n = load("images: [a, b] # kpt-set: ${images}\n");
    CHECK(n && node_comment(map_val(n, 0)) && !strcmp(node_comment(map_val(n, 0)), "kpt-set: ${images}"));
    CHECK(!node_comment(map_key(n, 0)) && !node_foot(map_val(n, 0)));
    CHECK_STR(emit(n), "images: [a, b] # kpt-set: ${images}\n");
}

TEST(restyled_collection_comment_written_block)
{
    /* a program turns commented flow collections into block ones */
    node *n = load("- [1, 2] # item\n");
    node *root = load("[1] # root\n");
    CHECK(n && root);
    node_set_comment(A, seq_item(n, 0), "line");
    node_set_style(seq_item(n, 0), ST_BLOCK);
    CHECK_STR(emit(n), "- - 1\n  - 2\n  # line\n  # item\n");
    node_set_comment(A, root, "line");
    node_set_style(root, ST_BLOCK);
    CHECK_STR(emit(root), "- 1\n# line\n# root\n");
    node *m = load("k: [1, 2] # c\n");
    CHECK(m);
    node_set_style(map_val(m, 0), ST_BLOCK);
    CHECK_STR(emit(m), "k: # c\n- 1\n- 2\n");
}
