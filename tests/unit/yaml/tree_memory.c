/* How the tree spends memory: entry arrays given back when they grow, nodes taken from them, and the stamps' nodes
 * shared by every object. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "util/buf.h"
#include "yaml/emit.h"
#include "yaml/load.h"

static const char *emit(arena *a, const node *n)
{
    buf b = {0};
    emit_opts o = {.comments = true};
    emit_yaml(&b, n, &o);
    const char *s = arena_strndup(a, b.data ? b.data : "", b.len);
    buf_free(&b);
    return s;
}

/* Maps and sequences that grow while nodes are added between the growths: each replaced array is handed out again
 * as nodes, so every entry must still read back as written (ASan sees any use of a given-back array). */
TEST(grown_arrays_are_reused_for_nodes_without_losing_entries)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    node *root = NULL;
    const char *text = "a: {x: 1}\nb: [1]\nc: {}\n";
    CHECK(yaml_load_one(a, st, NULL, "t.yaml", text, strlen(text), &root) == 0);
    node *ma = map_get(root, "a"), *sb = map_get(root, "b"), *mc = map_get(root, "c");
    char k[32];
    for (int i = 0; i < 100; i++) {
        snprintf(k, sizeof k, "k%d", i);
        map_set_str(a, ma, k, k);
        seq_append(a, sb, node_str(a, k));
        map_set(a, mc, k, node_seq(a));
        seq_insert(a, map_get(mc, k), 0, node_str(a, k));
    }
    /* room made ahead, exactly or more than is used, and none asked for */
    map_reserve(a, ma, 3);
    map_reserve(a, sb, 0);
    map_set_str(a, ma, "r1", "v1");
    seq_append(a, sb, node_str(a, "s1"));
    map_reserve(a, mc, 1);
    CHECK_STR(path_str(root, "a", "r1", NULL), "v1");
    CHECK_STR(scalar(seq_item(sb, 101)), "s1");
    CHECK(map_delete(ma, "r1") && node_len(sb) == 102);
    seq_remove(sb, 101);
    CHECK(node_len(ma) == 101 && node_len(sb) == 101 && node_len(mc) == 100);
    CHECK_STR(path_str(root, "a", "x", NULL), "1");
    CHECK_STR(scalar(seq_item(sb, 0)), "1");
    for (int i = 0; i < 100; i++) {
        snprintf(k, sizeof k, "k%d", i);
        CHECK_STR(path_str(root, "a", k, NULL), k);
        CHECK_STR(scalar(seq_item(sb, (uint32_t)i + 1)), k);
        CHECK_STR(scalar(seq_item(map_get(mc, k), 0)), k);
    }
    strtab_release(st);
    arena_free(a);
}

TEST(recycled_units_come_back_zeroed_and_aligned)
{
    arena *a = arena_new();
    unsigned char *p = arena_alloc(a, 72);
    memset(p, 0xff, 72);
    arena_recycle(a, p + 4, 68); /* from p + 8, whole 16-byte units only: four of them */
    int got = 0;
    for (int i = 0; i < 4; i++) {
        unsigned char *u = arena_alloc16(a);
        CHECK(u >= p + 8 && u + 16 <= p + 72 && ((uintptr_t)u & 7) == 0);
        for (int j = 0; j < 16; j++)
            CHECK(u[j] == 0);
        got++;
    }
    unsigned char *fresh = arena_alloc16(a);
    CHECK(fresh < p || fresh >= p + 72);
    CHECK(got == 4);
    arena_free(a);
}

/* The stamps' key and value nodes are shared by every object; a key an object already has keeps its own node. */
TEST(shared_stamp_nodes_leave_existing_keys_their_own)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    node *one = NULL, *two = NULL;
    const char *t1 = "metadata:\n  annotations:\n    x/app: old # kept\n", *t2 = "metadata:\n  annotations:\n    y: z\n";
    CHECK(yaml_load_one(a, st, NULL, "1.yaml", t1, strlen(t1), &one) == 0);
    CHECK(yaml_load_one(a, st, NULL, "2.yaml", t2, strlen(t2), &two) == 0);
    node *key = node_scalar(a, "x/app", 5, ST_PLAIN), *val = node_str_ref(a, "new");
    node *a1 = path_get(one, "metadata", "annotations", NULL), *a2 = path_get(two, "metadata", "annotations", NULL);
    map_set_shared(a, a1, key, val);
    map_set_shared(a, a2, key, val);
    CHECK(map_key(a2, 1) == key && map_val(a2, 1) == val);
    CHECK(map_val(a1, 0) != val);
    CHECK_STR(emit(a, one), "metadata:\n  annotations:\n    x/app: new # kept\n");
    CHECK_STR(emit(a, two), "metadata:\n  annotations:\n    y: z\n    x/app: new\n");
    CHECK_STR(scalar(val), "new");
    strtab_release(st);
    arena_free(a);
}
