/* Keys the program makes (a label a function sets, a field a path creates) are strings: the emitter writes them plain
 * only where every reader sees a string, so a YAML 1.1 reader (Argo CD's Go code) reads the same key. */
#include "check.h"
#include "util/buf.h"
#include "yaml/emit.h"
#include "yaml/load.h"

#include "yaml_unit.h"

static const char *emit(const node *n)
{
    buf b = {0};
    emit_opts o = {.comments = true};
    emit_yaml(&b, n, &o);
    const char *s = arena_strndup(A, b.data ? b.data : "", b.len);
    buf_free(&b);
    return s;
}

TEST(made_keys_are_quoted_where_a_yaml11_reader_sees_another_type)
{
    node *m = node_map(A);
    map_set_str(A, m, "<<", "a");    /* a merge key to every reader */
    map_set_str(A, m, "on", "b");    /* true to YAML 1.1 */
    map_set(A, m, "1", node_str(A, "c"));
    map_set_str_ref(A, m, "~", "d"); /* null */
    map_append_str_ref_key(A, m, node_key_shared(A, "yes", 0), "e", 0);
    map_set_str(A, m, "plain", "f");
    CHECK_STR(emit(m), "\"<<\": a\n\"on\": b\n\"1\": c\n\"~\": d\n\"yes\": e\nplain: f\n");
    /* and they read back as the same string keys */
    node *back = NULL;
    const char *text = emit(m);
    CHECK(yaml_load_one(A, ST, NULL, "back.yaml", text, strlen(text), &back) == 0);
    CHECK(back && node_len(back) == 6 && scalar_is(map_get(back, "<<"), "a") && scalar_is(map_get(back, "on"), "b"));
}
