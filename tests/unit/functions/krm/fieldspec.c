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
