/* Shared key nodes: one node per distinct ordinary key, its line derived from its value, never edited in place. */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "util/buf.h"
#include "util/diag.h"
#include "yaml/emit.h"
#include "yaml/load.h"

#include "yaml_unit.h"

static node *parse(const char *text)
{
    node *n = NULL;
    if (yaml_load_one(A, ST, NULL, "keys.yaml", text, strlen(text), &n) < 0)
        return NULL;
    return n;
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

/* A key is shared when it has no position of its own. */
static bool shared(const node *m, uint32_t i)
{
    return node_line(map_key(m, i)) == 0;
}

TEST(equal_keys_of_two_maps_are_one_node)
{
    node *a = parse("metadata:\n  name: a\n  labels: {app: x}\n");
    node *b = parse("kind: K\nmetadata:\n  name: b\n");
    CHECK(a && b);
    const node *ma = map_get(a, "metadata"), *mb = map_get(b, "metadata");
    CHECK(map_key(ma, 0) == map_key(mb, 0));  /* "name", in two documents */
    CHECK(map_key(a, 0) == map_key(b, 1));    /* "metadata" */
    CHECK(map_key(ma, 0) != map_key(ma, 1));  /* one node per text */
    CHECK_STR(scalar(map_key(ma, 0)), "name");
    CHECK(node_col(map_key(ma, 0)) == 0);
}

TEST(key_line_on_the_value_line)
{
    node *n = parse("a: 1\nb: {x: 1}\nc: [1, 2]\nd: \"q\"\n");
    CHECK(n);
    for (uint32_t i = 0; i < 4; i++) {
        CHECK(shared(n, i));
        CHECK(map_key_line(n, i) == i + 1);
    }
    CHECK(map_key_line(map_get(n, "b"), 0) == 2);
}

TEST(key_line_of_a_block_map_on_the_next_line)
{
    node *n = parse("x: 1\nm:\n  a: 1\n  n:\n    b: 2\n");
    CHECK(n);
    CHECK(shared(n, 1) && map_key_line(n, 1) == 2);
    const node *m = map_get(n, "m");
    CHECK(shared(m, 1) && map_key_line(m, 1) == 4);
    CHECK(map_key_line(map_get(m, "n"), 0) == 5);
}

TEST(key_line_of_a_block_seq_on_the_next_line)
{
    node *n = parse("s:\n- a\n- b\nt:\n  - c\nu: 1\n");
    CHECK(n);
    CHECK(shared(n, 0) && map_key_line(n, 0) == 1);
    CHECK(shared(n, 1) && map_key_line(n, 1) == 4);
    CHECK(shared(n, 2) && map_key_line(n, 2) == 6);
}

/* A key its value does not place keeps its own node and position. */
TEST(keys_their_value_does_not_place_are_private)
{
    node *n = parse("m:\n  # c\n  a: 1\nb:\n\n  x: 1\nc:\n  two\nd: # note\n  y: 1\n'e': 1\n!!str f: 1\n# head\ng: 1\n");
    CHECK(n);
    const char *names[] = {"m", "b", "c", "d", "e", "f", "g"};
    uint32_t lines[] = {1, 4, 7, 9, 11, 12, 14};
    for (uint32_t i = 0; i < 7; i++) {
        CHECK_STR(scalar(map_key(n, i)), names[i]);
        CHECK(!shared(n, i));
        CHECK(node_line(map_key(n, i)) == lines[i]);
        CHECK(map_key_line(n, i) == lines[i]);
    }
    CHECK(!shared(map_get(n, "m"), 0)); /* "a" has a head comment */
}

/* The derived line stays when an edit changes the value's style (a flow map written as a block). */
TEST(key_line_survives_a_style_edit_of_the_value)
{
    node *n = parse("a: 1\nb: {x: 1}\n");
    CHECK(n && shared(n, 1));
    node_set_style(map_get(n, "b"), ST_BLOCK);
    CHECK(map_key_line(n, 1) == 2);
}

TEST(duplicate_shared_key_names_its_line)
{
    CHECK(parse("a: 1\nb:\n  x: 1\nb:\n  y: 2\n") == NULL);
    CHECK(strstr(diag_message(), "keys.yaml:4") && strstr(diag_message(), "duplicate key \"b\""));
    diag_reset();
}

TEST(map_key_own_unshares_one_entry)
{
    node *a = parse("p:\n  name: a\n");
    node *b = parse("q:\n  name: b\n");
    node *c = parse("r:\n  name: c\n");
    CHECK(a && b && c);
    node *ma = map_get(a, "p"), *mb = map_get(b, "q"), *mc = map_get(c, "r");
    const node *before = map_key(mb, 0);
    CHECK(map_key(ma, 0) == before && map_key(mc, 0) == before);
    node *own = map_key_own(A, mb, 0);
    CHECK(own != before && map_key(mb, 0) == own);
    CHECK(node_line(own) == 2 && map_key_line(mb, 0) == 2);
    CHECK_STR(scalar(own), "name");
    CHECK(map_key(ma, 0) == before && map_key(mc, 0) == before);
    CHECK(map_key_own(A, mb, 0) == own); /* already its own: no new copy */
}

TEST(an_edit_through_map_key_own_leaves_other_maps_alone)
{
    node *a = parse("labels:\n  app: a\n");
    node *b = parse("labels:\n  app: b\n");
    CHECK(a && b);
    node *la = map_get(a, "labels"), *lb = map_get(b, "labels");
    node *own = map_key_own(A, la, 0);
    node_set_comment(A, own, "mine");
    node_set_head(A, own, "# above");
    CHECK(scalar_set(A, own, "team", 4, SCALAR_AS_STRING));
    node_set_tag(A, own, "!!str");
    CHECK_STR(emit(a), "labels:\n  # above\n  !!str team: a # mine\n");
    CHECK_STR(emit(b), "labels:\n  app: b\n");
    CHECK_STR(scalar(map_key(lb, 0)), "app");
    CHECK(!node_comment(map_key(lb, 0)) && !node_tag(map_key(lb, 0)) && !node_head(map_key(lb, 0)));
    node *c = parse("labels:\n  app: c\n");
    CHECK(c && map_key(map_get(c, "labels"), 0) == map_key(lb, 0));
}

TEST(clones_keep_shared_keys)
{
    node *a = parse("m:\n  k: v\n");
    CHECK(a);
    node *m = map_get(a, "m");
    node *copy = node_clone(A, m);
    CHECK(map_key(copy, 0) == map_key(m, 0));
    node *k = node_clone(A, map_key(m, 0)); /* a key on its own comes back editable */
    CHECK(k != map_key(m, 0));
    node_set_comment(A, k, "x");
    CHECK(!node_comment(map_key(m, 0)));
    CHECK(node_equal(copy, m));
}

/* node_is_copy_of: a copy matches its original until either side changes in anything node_clone copies. */
static const char *const copy_src = "# top\nm: !!map\n  k: v # c\n  s:\n  - 1\n  - 'two'\n  b: |\n    x\n";

static node *copy_src_parse(void)
{
    return parse(copy_src);
}

TEST(copy_of_sees_every_edit)
{
    node *a = copy_src_parse();
    CHECK(a);
    CHECK(node_is_copy_of(node_clone(A, a), a));
    CHECK(node_is_copy_of(node_clone(A, map_key(a, 0)), map_key(a, 0))); /* a shared key copies to a private one */
    CHECK(!node_is_copy_of(node_clone(A, map_key(a, 0)), map_val(a, 0)));
    for (int e = 0; e < 9; e++) {
        node *o = copy_src_parse(), *c = node_clone(A, o);
        node *m = map_get(o, "m"), *s = map_get(m, "s");
        switch (e) {
        case 0: scalar_set(A, map_get(m, "k"), "w", 1, SCALAR_AS_STRING); break;
        case 1: node_set_style(seq_item(s, 1), ST_DOUBLE); break;
        case 2: node_set_comment(A, map_get(m, "k"), "d"); break;
        case 3: node_set_tag(A, m, NULL); break;
        case 4: node_set_head(A, seq_item(s, 0), "# h"); break;
        case 5: map_set_str(A, m, "new", "x"); break;
        case 6: seq_remove(s, 1); break;
        case 7: node_set_pos(map_get(m, "b"), 9, 1); break;
        case 8: map_key_own(A, m, 0); break; /* same text, its own node: the copy keeps the shared one */
        }
        CHECK(!node_is_copy_of(c, o));
        CHECK(node_is_copy_of(node_clone(A, o), o));
        /* and an outdated copy brought up to date is one again, in place */
        CHECK(node_refresh_copy(A, c, o) == c);
        CHECK(node_is_copy_of(c, o));
    }
}

/* Bringing a copy up to date costs memory for what changed, not for the whole: a big list left alone is kept. */
TEST(refresh_copy_costs_what_changed)
{
    buf b = {0};
    buf_puts(&b, "metadata:\n  annotations:\n    a: b\nlist:\n");
    for (int i = 0; i < 20000; i++)
        buf_printf(&b, "- {k: v%d}\n", i);
    node *o = parse(arena_strndup(A, b.data, b.len));
    buf_free(&b);
    CHECK(o);
    arena *own = arena_new(); /* the copy's own, to weigh it */
    node *c = node_clone(own, o);
    size_t one = arena_footprint(own);
    node *ann = path_get(o, "metadata", "annotations", NULL);
    for (int step = 0; step < 50; step++) {
        map_set_str(A, ann, arena_printf(A, "k%d", step), "v");
        if (step % 10 == 0)
            node_set_comment(A, map_get(seq_item(map_get(o, "list"), (uint32_t)step), "k"), "c");
        CHECK(node_refresh_copy(own, c, o) == c);
        CHECK(node_is_copy_of(c, o));
    }
    CHECK(one > 1000 * 1000 && arena_footprint(own) <= 2 * one); /* a copy per step: 50 times one */
    /* the other way: the list shrinks, a scalar becomes a map */
    seq_remove(map_get(o, "list"), 0);
    map_set(A, o, "metadata", node_str(A, "x"));
    CHECK(node_refresh_copy(own, c, o) == c);
    CHECK(node_is_copy_of(c, o));
    CHECK(node_is_copy_of(node_clone(A, c), c));
    arena_free(own);
}

/* Mutators refuse a shared node: cast away the const and watch the child stop, the other maps intact. */
static int edit_in_child(int what)
{
    node *a = parse("s:\n  key: 1\n");
    if (!a)
        return -1;
    node *k = (node *)map_key(map_get(a, "s"), 0);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int dn = open("/dev/null", O_WRONLY);
        if (dn >= 0)
            dup2(dn, 2);
        switch (what) {
        case 0: scalar_set(A, k, "x", 1, SCALAR_AS_STRING); break;
        case 1: node_set_comment(A, k, "c"); break;
        case 2: node_set_style(k, ST_DOUBLE); break;
        case 3: node_set_pos(k, 3, 1); break;
        case 4: node_clear_comments(k); break;
        default: node_move(k, node_str(A, "y")); break;
        }
        _exit(0);
    }
    int st = 0;
    if (waitpid(pid, &st, 0) != pid)
        return -1;
    return WIFSIGNALED(st) ? WTERMSIG(st) : 0;
}

TEST(mutators_stop_on_a_shared_key)
{
    for (int what = 0; what < 6; what++)
        CHECK(edit_in_child(what) == SIGABRT);
}
