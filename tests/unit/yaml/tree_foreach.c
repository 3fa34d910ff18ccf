/* map_foreach and seq_foreach (src/yaml/tree.h): every entry once, in order; nothing for NULL, a scalar or the other
 * kind of collection; break, continue and return as in any loop; the collection evaluated once; the length read
 * again before each entry, as the index loops they replace did. */
#include <string.h>

#include "check.h"
#include "util/buf.h"
#include "yaml/load.h"

#include "yaml_unit.h"

static node *parse(const char *text)
{
    node *n = NULL;
    if (yaml_load_one(A, ST, NULL, "walk.yaml", text, strlen(text), &n) < 0)
        return NULL;
    return n;
}

TEST(map_foreach_visits_every_pair_in_order)
{
    node *m = parse("a: 1\nb: [x]\nc: {d: 2}\n");
    buf b = {0};
    uint32_t count = 0;
    map_foreach(m, i, key, val) {
        CHECK(i == count++);
        CHECK(key == map_key(m, i) && val == map_val(m, i));
        buf_printf(&b, "%s:%d ", scalar(key), node_kind(val));
    }
    CHECK(count == 3);
    CHECK_STR(buf_cstr(&b), "a:0 b:2 c:1 ");
    buf_free(&b);
}

TEST(seq_foreach_visits_every_item_in_order)
{
    node *s = parse("[x, y, z]");
    buf b = {0};
    uint32_t count = 0;
    seq_foreach(s, i, item) {
        CHECK(i == count++ && item == seq_item(s, i));
        buf_printf(&b, "%s", scalar(item));
    }
    CHECK(count == 3);
    CHECK_STR(buf_cstr(&b), "xyz");
    buf_free(&b);
}

/* NULL and scalars have no entries, as with node_len; a collection of the other kind has none either. */
TEST(foreach_over_null_scalars_and_the_other_kind_visits_nothing)
{
    node *m = parse("a: 1\nb: 2\n"), *s = parse("[1, 2]"), *sc = node_str(A, "text");
    int visits = 0;
    map_foreach(NULL, i, key, val) visits++;
    seq_foreach(NULL, i, item) visits++;
    map_foreach(sc, i, key, val) visits++;
    seq_foreach(sc, i, item) visits++;
    map_foreach(s, i, key, val) visits++;
    seq_foreach(m, i, item) visits++;
    map_foreach(node_map(A), i, key, val) visits++;
    seq_foreach(node_seq(A), i, item) visits++;
    CHECK(visits == 0);
}

/* break leaves the whole walk (the macros nest loops: a break that left only the inner one would go on to the next
 * entry); continue goes on with the next entry. */
TEST(foreach_break_and_continue_act_on_the_walk)
{
    node *s = parse("[a, b, c, d]"), *m = parse("a: 1\nb: 2\nc: 3\n");
    buf b = {0};
    seq_foreach(s, i, item) {
        if (i == 1)
            continue;
        if (i == 3)
            break;
        buf_printf(&b, "%s", scalar(item));
    }
    seq_foreach(s, i, item) {
        buf_printf(&b, "%s", scalar(item));
        break;
    }
    map_foreach(m, i, key, val) {
        if (scalar_is(val, "2"))
            break;
        buf_printf(&b, "%s", scalar(key));
    }
    CHECK_STR(buf_cstr(&b), "acaa");
    buf_free(&b);
}

static const node *first_item_named(const node *s, const char *name)
{
    seq_foreach(s, i, item) if (scalar_is(item, name)) return item;
    return NULL;
}

TEST(foreach_return_from_the_body)
{
    node *s = parse("[a, b, c]");
    CHECK(first_item_named(s, "b") == seq_item(s, 1));
    CHECK(first_item_named(s, "q") == NULL);
}

/* Nested walks, each with its own index name. */
TEST(foreach_nests)
{
    node *m = parse("a: [1, 2]\nb: []\nc: [3]\n");
    buf b = {0};
    map_foreach(m, i, key, val) seq_foreach(val, j, item) buf_printf(&b, "%s%u%s ", scalar(key), j, scalar(item));
    CHECK_STR(buf_cstr(&b), "a01 a12 c03 ");
    buf_free(&b);
}

static int evaluated;
static node *counted(node *n)
{
    evaluated++;
    return n;
}

TEST(foreach_evaluates_the_collection_once)
{
    node *s = parse("[a, b, c]"), *m = parse("a: 1\nb: 2\n");
    int visits = 0;
    seq_foreach(counted(s), i, item) visits++;
    CHECK(visits == 3 && evaluated == 1);
    map_foreach(counted(m), i, key, val) visits++;
    CHECK(visits == 5 && evaluated == 2);
}

/* The length is read before each entry: what the body appends is visited; the current entry's value may be
 * replaced. */
TEST(foreach_sees_appended_entries_and_replaced_values)
{
    node *s = parse("[a, b]"), *m = parse("a: 1\nb: 2\n");
    int visits = 0;
    seq_foreach(s, i, item) {
        visits++;
        if (scalar_is(item, "a"))
            seq_append(A, s, node_str(A, "c"));
        seq_set(s, i, node_str(A, "seen"));
    }
    CHECK(visits == 3 && node_len(s) == 3 && scalar_is(seq_item(s, 2), "seen"));
    map_foreach(m, i, key, val) {
        if (scalar_is(key, "a"))
            map_set_str(A, m, "z", "26");
        map_set_val(m, i, node_str(A, "x"));
    }
    CHECK(node_len(m) == 3 && scalar_is(map_get(m, "a"), "x") && scalar_is(map_get(m, "z"), "x"));
}
