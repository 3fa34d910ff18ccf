/* Shared value nodes: the stamped annotations many objects share (map_set_tail_shared), never edited through one
 * object so that it shows in another (mutators refuse them, map_val_own and the setters give an object its own). */
#include <fcntl.h>
#include <string.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "util/buf.h"
#include "yaml/emit.h"
#include "yaml/load.h"

#include "yaml_unit.h"

static node *parse(const char *text)
{
    node *n = NULL;
    if (yaml_load_one(A, ST, NULL, "values.yaml", text, strlen(text), &n) < 0)
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

/* Two stamps, as stamp_metadata makes them: one key and one value node for every object. */
static node *K[2], *V[2];
static void stamps(void)
{
    K[0] = node_scalar(A, "x/app", 5, ST_PLAIN);
    V[0] = node_str_ref(A, "bench");
    K[1] = node_scalar(A, "x/path", 6, ST_PLAIN);
    V[1] = node_str_ref(A, "a b");
}

static node *annotations(node *obj)
{
    return map_get(map_get(obj, "metadata"), "annotations");
}

TEST(equal_annotations_share_one_stamped_map)
{
    stamps();
    node *a = parse("metadata:\n  name: a\n  annotations:\n    team: platform\n");
    node *b = parse("metadata:\n  name: b\n  annotations:\n    team: platform\n");
    node *c = parse("metadata:\n  name: c\n  annotations:\n    team: other\n");
    node *d = parse("metadata:\n  name: d\n");
    node *e = parse("metadata:\n  name: e\n");
    CHECK(a && b && c && d && e);
    node *last = NULL;
    CHECK(map_set_tail_shared(A, map_get(a, "metadata"), "annotations", K, V, 2, &last));
    CHECK(map_set_tail_shared(A, map_get(b, "metadata"), "annotations", K, V, 2, &last));
    CHECK(annotations(a) == annotations(b)); /* one node, not a copy */
    CHECK(map_set_tail_shared(A, map_get(c, "metadata"), "annotations", K, V, 2, &last));
    CHECK(annotations(c) != annotations(a)); /* other texts: a map of its own */
    CHECK(map_set_tail_shared(A, map_get(d, "metadata"), "annotations", K, V, 2, &last));
    CHECK(map_set_tail_shared(A, map_get(e, "metadata"), "annotations", K, V, 2, &last));
    CHECK(annotations(d) == annotations(e));
    /* the same pairs written flow: a map of its own, written flow */
    node *f = parse("metadata: {name: f, annotations: {team: platform}}\n");
    CHECK(f && map_set_tail_shared(A, map_get(f, "metadata"), "annotations", K, V, 2, &last));
    node *g = parse("metadata:\n  name: g\n  annotations:\n    team: platform\n");
    CHECK(g && map_set_tail_shared(A, map_get(g, "metadata"), "annotations", K, V, 2, &last));
    CHECK(annotations(f) != annotations(a) && annotations(g) != annotations(f));
    CHECK_STR(emit(f), "metadata: {name: f, annotations: {team: platform, x/app: bench, x/path: a b}}\n");
    CHECK_STR(emit(b), "metadata:\n  name: b\n  annotations:\n    team: platform\n    x/app: bench\n    x/path: a b\n");
    CHECK_STR(emit(c), "metadata:\n  name: c\n  annotations:\n    team: other\n    x/app: bench\n    x/path: a b\n");
    CHECK_STR(emit(e), "metadata:\n  name: e\n  annotations:\n    x/app: bench\n    x/path: a b\n");
}

/* Comments, tags, a null or a stamp's own key: the object keeps its own map (the caller stamps it). */
TEST(annotations_with_more_than_texts_are_not_shared)
{
    stamps();
    const char *own[] = {
        "metadata:\n  annotations:\n    team: platform # c\n",
        "metadata:\n  annotations:\n    team: !!str platform\n",
        "metadata:\n  annotations:\n",
        "metadata:\n  annotations:\n    x/app: mine\n",
        "metadata:\n  annotations:\n    # c\n    team: platform\n",
    };
    for (size_t i = 0; i < sizeof own / sizeof *own; i++) {
        node *o = parse(own[i]);
        CHECK(o);
        node *before = annotations(o), *last = NULL;
        if (map_set_tail_shared(A, map_get(o, "metadata"), "annotations", K, V, 2, &last)) {
            char what[160];
            snprintf(what, sizeof what, "shared: %s", own[i]);
            test_fail(__FILE__, __LINE__, what);
            return;
        }
        CHECK(annotations(o) == before && !last);
    }
}

/* The edits an object's annotations may still get: its own copy first, the others as they were. */
TEST(an_edit_of_a_shared_map_stays_in_its_object)
{
    stamps();
    node *a = parse("metadata:\n  annotations:\n    team: platform\n");
    node *b = parse("metadata:\n  annotations:\n    team: platform\n");
    CHECK(a && b);
    node *last = NULL;
    CHECK(map_set_tail_shared(A, map_get(a, "metadata"), "annotations", K, V, 2, &last));
    CHECK(map_set_tail_shared(A, map_get(b, "metadata"), "annotations", K, V, 2, &last));
    const char *shared = emit(b);
    /* map_ensure_map hands out the object's own copy */
    node *mine = map_ensure_map(A, map_get(a, "metadata"), "annotations");
    CHECK(mine && mine != last && annotations(a) == mine && annotations(b) == last);
    /* a setter replaces a shared value in that map only, and appends to the copy */
    map_set_str(A, mine, "team", "edited");
    map_set_str(A, mine, "x/app", "other");
    map_set_str(A, mine, "added", "1");
    CHECK_STR(emit(a), "metadata:\n  annotations:\n    team: edited\n    x/app: other\n    x/path: a b\n    added: \"1\"\n");
    CHECK_STR(emit(b), shared);
    CHECK_STR(scalar(V[0]), "bench");
    /* map_val_own: a shared scalar value becomes the entry's own node */
    node *c = parse("metadata:\n  annotations:\n    team: platform\n");
    CHECK(c && map_set_tail_shared(A, map_get(c, "metadata"), "annotations", K, V, 2, &last));
    node *cm = map_ensure_map(A, map_get(c, "metadata"), "annotations");
    node *v = map_val_own(A, cm, 1);
    CHECK(v != V[0]);
    CHECK(scalar_set(A, v, "mine", 4, SCALAR_AS_STRING));
    CHECK_STR(scalar(V[0]), "bench");
    CHECK_STR(emit(b), shared);
    /* a copy of the object is the caller's to edit */
    node *copy = node_clone(A, b);
    map_set_str(A, annotations(copy), "team", "copied");
    map_append(A, annotations(copy), node_str(A, "k"), node_str(A, "v"));
    CHECK_STR(emit(b), shared);
}

/* Mutators refuse a shared map or value: the child stops, the other objects intact. */
static int edit_in_child(int what)
{
    stamps();
    node *a = parse("metadata:\n  annotations:\n    team: platform\n");
    if (!a)
        return -1;
    node *last = NULL;
    if (!map_set_tail_shared(A, map_get(a, "metadata"), "annotations", K, V, 2, &last))
        return -1;
    node *m = annotations(a), *v = map_val(m, 0);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int dn = open("/dev/null", O_WRONLY);
        if (dn >= 0)
            dup2(dn, 2);
        switch (what) {
        case 0: map_append(A, m, node_str(A, "k"), node_str(A, "v")); break;
        case 1: map_remove(m, 0); break;
        case 2: map_set_val(m, 0, node_str(A, "x")); break;
        case 3: map_reserve(A, m, 3); break;
        case 4: node_clear(m); break;
        case 5: scalar_set(A, v, "x", 1, SCALAR_AS_STRING); break;
        case 6: node_set_comment(A, v, "c"); break;
        default: node_set_style(V[1], ST_DOUBLE); break;
        }
        _exit(0);
    }
    int st = 0;
    if (waitpid(pid, &st, 0) != pid)
        return -1;
    return WIFSIGNALED(st) ? WTERMSIG(st) : 0;
}

TEST(mutators_stop_on_a_shared_value)
{
    for (int what = 0; what < 8; what++)
        CHECK(edit_in_child(what) == SIGABRT);
}

/* node_map_share: the one map of pairs that set-labels or set-annotations gives every object lacking one. */
TEST(a_shared_map_of_pairs_is_held_by_many_and_owned_on_edit)
{
    stamps();
    node *pairs = parse("team: platform\n");
    CHECK(pairs && node_map_share(pairs) == pairs);
    node *withc = parse("team: platform # c\n");
    CHECK(withc && node_map_share(withc) == NULL); /* comments: no such map */
    node *nested = parse("team: {a: b}\n");
    CHECK(nested && node_map_share(nested) == NULL);
    node *a = parse("metadata:\n  name: a\n"), *b = parse("metadata:\n  name: b\n");
    CHECK(a && b);
    map_append(A, map_get(a, "metadata"), node_key_shared(A, "annotations", 0), pairs);
    map_append(A, map_get(b, "metadata"), node_key_shared(A, "annotations", 0), pairs);
    CHECK(annotations(a) == annotations(b));
    /* an edit goes to the object's own copy, the other keeps the shared map */
    node *own = map_ensure_map(A, map_get(a, "metadata"), "annotations");
    CHECK(own && own != pairs && annotations(a) == own && annotations(b) == pairs);
    map_set_str(A, own, "team", "other");
    map_set_str(A, own, "x", "z");
    CHECK_STR(emit(a), "metadata:\n  name: a\n  annotations:\n    team: other\n    x: z\n");
    CHECK_STR(emit(b), "metadata:\n  name: b\n  annotations:\n    team: platform\n");
    /* the stamps read a shared map and leave it as it was */
    node *last = NULL;
    CHECK(map_set_tail_shared(A, map_get(b, "metadata"), "annotations", K, V, 2, &last));
    CHECK(annotations(b) == last && last != pairs && node_len(pairs) == 1);
    CHECK_STR(emit(b), "metadata:\n  name: b\n  annotations:\n    team: platform\n    x/app: bench\n    x/path: a b\n");
}

/* strtab_reset: the slots go once a package is read; interning goes on, and a later load still finds duplicate keys
 * by address. */
TEST(strtab_reset_keeps_interning_and_duplicate_keys)
{
    strtab *t = strtab_new(A);
    const char *p = intern(t, "prod", 4);
    node *n = NULL;
    CHECK(yaml_load_one(A, t, NULL, "d.yaml", "prod: 0\n", 8, &n) == 0 && n); /* a shared key node for "prod" */
    strtab_reset(t);
    const char *q = intern(t, "prod", 4);
    CHECK_STR(p, "prod");
    CHECK_STR(q, "prod");
    CHECK(intern(t, "prod", 4) == q);
    diag_reset();
    CHECK(yaml_load_one(A, t, NULL, "d.yaml", "a: 1\nb: 2\na: 3\n", 15, &n) < 0);
    CHECK(strstr(diag_message(), "duplicate") != NULL);
    diag_reset();
    CHECK(yaml_load_one(A, t, NULL, "d.yaml", "prod: 1\nb: 2\n", 13, &n) == 0 && n);
    CHECK_STR(emit(n), "prod: 1\nb: 2\n");
    strtab_release(t);
}
