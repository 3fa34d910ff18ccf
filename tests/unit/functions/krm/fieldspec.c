/* fieldspec_visit: the walk every label, annotation and image field spec takes, once per object. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture.h"
#include "functions/krm/fieldspec.h"
#include "yaml/emit.h"

struct seen {
    int n;
    char keys[8][300];
    node *parents[8];
};

static int record(void *ud, node *parent, const char *key)
{
    struct seen *s = ud;
    if (s->n < 8) {
        snprintf(s->keys[s->n], sizeof s->keys[0], "%s", key);
        s->parents[s->n] = parent;
    }
    s->n++;
    return 0;
}

TEST(fieldspec_walks_sequences_and_escaped_slashes)
{
    struct fx f;
    fx_open(&f, "kind: X\nspec:\n  items:\n  - {a/b: {c: 1}}\n  - {a/b: {c: 2}}\n  - 3\n");
    node *root = f.items.v[0]->root;
    struct seen s = {0};
    CHECK(fieldspec_visit(f.a, root, "spec/items[]/a\\/b/c", false, record, &s) == 0);
    CHECK(s.n == 2);
    CHECK_STR(s.keys[0], "c");
    CHECK(s.parents[0] == path_get(seq_item(path_get(root, "spec", "items", NULL), 0), "a/b", NULL));
    CHECK(s.parents[1] == path_get(seq_item(path_get(root, "spec", "items", NULL), 1), "a/b", NULL));
    /* the last segment's "[]" and an escaped slash in it are not part of the key handed on */
    s.n = 0;
    CHECK(fieldspec_visit(f.a, root, "spec/items[]", false, record, &s) == 0);
    CHECK(s.n == 1);
    CHECK_STR(s.keys[0], "items");
    s.n = 0;
    CHECK(fieldspec_visit(f.a, root, "spec/x\\/y", false, record, &s) == 0);
    CHECK(s.n == 1);
    CHECK_STR(s.keys[0], "x/y");
    fx_close(&f);
}

TEST(fieldspec_creates_maps_only_when_asked_and_never_lists)
{
    struct fx f;
    fx_open(&f, "kind: X\nspec: {}\n");
    node *root = f.items.v[0]->root;
    struct seen s = {0};
    CHECK(fieldspec_visit(f.a, root, "spec/template/metadata/labels", false, record, &s) == 0);
    CHECK(s.n == 0);
    CHECK(path_get(root, "spec", "template", NULL) == NULL);
    CHECK(fieldspec_visit(f.a, root, "spec/vols[]/metadata/labels", true, record, &s) == 0);
    CHECK(s.n == 0);
    CHECK(path_get(root, "spec", "vols", NULL) == NULL);
    CHECK(fieldspec_visit(f.a, root, "spec/template/metadata/labels", true, record, &s) == 0);
    CHECK(s.n == 1);
    CHECK(s.parents[0] == path_get(root, "spec", "template", "metadata", NULL));
    CHECK_STR(s.keys[0], "labels");
    fx_close(&f);
}

/* Segments longer than the walk's own buffer: an author's field spec may name any key. */
TEST(fieldspec_handles_long_segments)
{
    struct fx f;
    char key[260], path[1000];
    memset(key, 'k', sizeof key - 1);
    key[sizeof key - 1] = 0;
    char *yaml = malloc(1200);
    snprintf(yaml, 1200, "kind: X\n%s:\n  %s: {}\n", key, key);
    fx_open(&f, yaml);
    free(yaml);
    node *root = f.items.v[0]->root;
    struct seen s = {0};
    snprintf(path, sizeof path, "%s/%s/new\\/one/%s", key, key, key);
    CHECK(fieldspec_visit(f.a, root, path, true, record, &s) == 0);
    CHECK(s.n == 1);
    CHECK_STR(s.keys[0], key);
    CHECK(s.parents[0] == path_get(root, key, key, "new/one", NULL));
    fx_close(&f);
}

static const char *emitted(arena *a, const node *n)
{
    buf b = {0};
    emit_opts o = {.comments = true};
    emit_yaml(&b, n, &o);
    const char *s = arena_strndup(a, b.data ? b.data : "", b.len);
    buf_free(&b);
    return s;
}

/* With shared values (set-labels, set-annotations): every object lacking the map holds one map of the pairs, the
 * same edit an empty map would get; an object that has one edits its own, and a later step owns the shared map
 * before it writes. */
TEST(set_string_pairs_shares_the_map_objects_lack)
{
    struct fx f;
    fx_open(&f, "kind: X\nmetadata: {name: a}\n---\nkind: X\nmetadata:\n  name: b\n---\nkind: X\nmetadata:\n"
                "  name: c\n  labels:\n    app: c\n");
    CHECK(f.items.n == 3);
    kv v[2] = {{"env", "prod", NULL, node_key_shared(f.a, "env", 0), 0, NULL},
               {"env", "test", NULL, node_key_shared(f.a, "env", 0), 0, NULL}};
    kvlist pairs = {v, 2, NULL};
    kvlist_share_values(f.a, &pairs);
    node *md[3];
    int changed[3];
    for (int i = 0; i < 3; i++) {
        md[i] = map_get(f.items.v[i]->root, "metadata");
        changed[i] = set_string_pairs(f.a, md[i], "labels", &pairs, true, true);
    }
    CHECK(map_get(md[0], "labels") == map_get(md[1], "labels"));
    CHECK(map_get(md[2], "labels") != map_get(md[0], "labels"));
    CHECK(changed[0] == 2 && changed[1] == 2 && changed[2] == 2); /* as an empty map's edit counts: twice "env" */
    CHECK_STR(emitted(f.a, f.items.v[0]->root), "kind: X\nmetadata: {name: a, labels: {env: test}}\n");
    CHECK_STR(emitted(f.a, f.items.v[1]->root), "kind: X\nmetadata:\n  name: b\n  labels:\n    env: test\n");
    CHECK_STR(emitted(f.a, f.items.v[2]->root), "kind: X\nmetadata:\n  name: c\n  labels:\n    app: c\n    env: test\n");
    /* a second step: b gets its own map, a keeps the shared one */
    kv w[1] = {{"tier", "web", NULL, node_key_shared(f.a, "tier", 0), 0, NULL}};
    kvlist more = {w, 1, NULL};
    kvlist_share_values(f.a, &more);
    CHECK(set_string_pairs(f.a, md[1], "labels", &more, true, true) == 1);
    CHECK(map_get(md[0], "labels") != map_get(md[1], "labels"));
    CHECK_STR(emitted(f.a, f.items.v[0]->root), "kind: X\nmetadata: {name: a, labels: {env: test}}\n");
    CHECK_STR(emitted(f.a, f.items.v[1]->root), "kind: X\nmetadata:\n  name: b\n  labels:\n    env: test\n    tier: web\n");
    fx_close(&f);
}
