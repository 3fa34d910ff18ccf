/* Loader, emitter and quoting. Quoting is checked against libyaml, an independent YAML 1.1 reader. */
#include <yaml.h>

#include "check.h"
#include "util/diag.h"
#include "yaml/emit.h"
#include "yaml/load.h"
#include "yaml/scalar_text.h"

#include "yaml_unit.h"

static void setup(void)
{
}

static node *parse_limited(const char *text, const load_limits *lim)
{
    setup();
    node *n = NULL;
    if (yaml_load_one(A, ST, lim, "test.yaml", text, strlen(text), &n) < 0)
        return NULL;
    return n;
}

static node *parse(const char *text)
{
    return parse_limited(text, NULL);
}

static const char *roundtrip(const char *text, bool wide)
{
    node *n = parse(text);
    if (!n)
        return diag_message();
    buf b = {0};
    emit_opts o = {.seq_wide = wide, .comments = true};
    emit_yaml(&b, n, &o);
    const char *s = arena_strndup(A, b.data, b.len);
    buf_free(&b);
    return s;
}

TEST(roundtrip_keeps_layout_and_comments)
{
    const char *in = "# head of file\n"
                     "apiVersion: v1\n"
                     "kind: ConfigMap # kind comment\n"
                     "metadata:\n"
                     "  name: x\n"
                     "  # above labels\n"
                     "  labels: {a: b, c: \"d\"}\n"
                     "data:\n"
                     "  list: # kpt-set: ${list}\n"
                     "  - a\n"
                     "  - 'b c'\n"
                     "  empty: {}\n"
                     "  none:\n"
                     "  script: |\n"
                     "    echo hi\n"
                     "      indented\n"
                     "  nested:\n"
                     "  - name: one\n"
                     "    value: 1\n"
                     "  - - inner\n";
    CHECK_STR(roundtrip(in, false), in);
}

TEST(wide_sequences)
{
    const char *in = "spec:\n  containers:\n    - name: a\n      ports:\n        - 80\n";
    CHECK_STR(roundtrip(in, true), in);
}

TEST(literal_chomping)
{
    node *n = parse("a: |-\n  x\n  y\nb: |+\n  z\n\nc: |2\n   lead\n");
    CHECK(n);
    CHECK_STR(scalar(map_get(n, "a")), "x\ny");
    CHECK_STR(scalar(map_get(n, "b")), "z\n\n");
    CHECK_STR(scalar(map_get(n, "c")), " lead\n");
    buf b = {0};
    emit_yaml(&b, n, NULL);
    node *again = parse(buf_cstr(&b));
    buf_free(&b);
    CHECK(again && node_equal(n, again));
}

TEST(duplicate_key_is_an_error)
{
    CHECK(parse("a: 1\nb: 2\na: 3\n") == NULL);
    CHECK(strstr(diag_message(), "test.yaml:3") && strstr(diag_message(), "duplicate key \"a\""));
}

TEST(duplicate_key_in_large_map)
{
    buf b = {0};
    for (int i = 0; i < 100; i++)
        buf_printf(&b, "k%d: v\n", i);
    buf_puts(&b, "k42: again\n");
    CHECK(parse(buf_cstr(&b)) == NULL);
    buf_free(&b);
    CHECK(strstr(diag_message(), "duplicate key \"k42\""));
}

TEST(anchors_are_copied_and_merge_keys_applied)
{
    node *n = parse("base: &b {x: 1, y: 2}\nuse:\n  <<: *b\n  y: 3\nlist: [*b]\n");
    CHECK(n);
    node *use = map_get(n, "use");
    CHECK_STR(scalar(map_get(use, "x")), "1");
    CHECK_STR(scalar(map_get(use, "y")), "3");
    CHECK(map_get(use, "<<") == NULL);
    node *copy = seq_item(map_get(n, "list"), 0);
    CHECK(copy != map_get(n, "base"));
    CHECK(node_equal(copy, map_get(n, "base")));
}

TEST(alias_bomb_is_stopped)
{
    load_limits lim = limits_default.yaml;
    lim.max_alias_nodes = 10000;
    const char *bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
                       "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                       "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
                       "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
                       "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n";
    node *n = parse_limited(bomb, &lim);
    CHECK(n == NULL);
    CHECK(strstr(diag_message(), "max-alias-nodes"));
}

TEST(depth_limit)
{
    buf b = {0};
    for (int i = 0; i < 2000; i++)
        buf_putc(&b, '[');
    for (int i = 0; i < 2000; i++)
        buf_putc(&b, ']');
    CHECK(parse(buf_cstr(&b)) == NULL);
    buf_free(&b);
    CHECK(strstr(diag_message(), "max-depth"));
}

static int take(void *ud, node *root, uint32_t index, uint32_t line, int wide)
{
    *(uint32_t *)ud = index;
    return 0;
}

TEST(empty_documents_are_skipped)
{
    setup();
    const char *text = "---\n---\n# nothing\n---\na: 1\n---\n~\n---\nb: 2\n";
    uint32_t last = 99; /* indexes count only the non-empty documents */
    CHECK(yaml_load(A, ST, NULL, "t", text, strlen(text), take, &last) == 0);
    CHECK(last == 1);
}

/* Reads a one-scalar document with libyaml: value and whether it was quoted. */
static int libyaml_scalar(const char *text, char *value, size_t cap, int *quoted)
{
    yaml_parser_t p;
    yaml_event_t e;
    int found = 0;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, (const unsigned char *)text, strlen(text));
    for (;;) {
        if (!yaml_parser_parse(&p, &e))
            break;
        if (e.type == YAML_SCALAR_EVENT && !found) {
            found = 1;
            snprintf(value, cap, "%.*s", (int)e.data.scalar.length, e.data.scalar.value);
            *quoted = e.data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
        }
        int end = e.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&e);
        if (end)
            break;
    }
    yaml_parser_delete(&p);
    return found;
}

TEST(created_strings_stay_strings_for_yaml11_readers)
{
    setup();
    const char *must_quote[] = {"true", "yes", "on", "off", "no", "y", "N", "null", "~", "", "1e3", "0x1F", "0755",
                                "1234567", "12:30", "3.14", ".5", "-1", "+1", ".inf", "2024-01-02", "<<", "- a",
                                "a: b", "#x", "x #y", "'q'", "@at", "%p", "*star", "&amp", "!bang", "[x]", "{x}",
                                "line\nbreak", " lead", "trail ", NULL};
    const char *plain_ok[] = {"main", "v1.2.3", "4b825dc", "nginx:1.25", "https://example.com/a.git", "a-b_c", "1.2.3",
                              "apps/guestbook", NULL};
    for (int i = 0; must_quote[i]; i++) {
        buf b = {0};
        node *m = node_map(A);
        map_set(A, m, "k", node_str(A, must_quote[i]));
        emit_yaml(&b, m, NULL);
        char v[256];
        int quoted = 0;
        const char *text = buf_cstr(&b);
        int ok = libyaml_scalar(strchr(text, ':') + 1, v, sizeof v, &quoted);
        buf_free(&b);
        if (!ok || !quoted || strcmp(v, must_quote[i])) {
            char msg[512];
            snprintf(msg, sizeof msg, "value \"%s\" came back as \"%s\" (quoted %d)", must_quote[i], v, quoted);
            test_fail(__FILE__, __LINE__, msg);
            return;
        }
    }
    for (int i = 0; plain_ok[i]; i++)
        CHECK(plain_string_safe(plain_ok[i], strlen(plain_ok[i]), false));
}

TEST(yaml11_and_yaml12_resolution)
{
    CHECK(resolve_yaml11("yes", 3) == T_BOOL && resolve_yaml12("yes", 3) == T_STR);
    CHECK(resolve_yaml11("0755", 4) == T_INT && resolve_yaml12("0755", 4) == T_INT);
    CHECK(resolve_yaml11("1_000", 5) == T_INT && resolve_yaml12("1_000", 5) == T_INT);
    CHECK(resolve_yaml11("1e3", 3) == T_FLOAT && resolve_yaml12("1e3", 3) == T_FLOAT);
    CHECK(resolve_yaml11("1:20", 4) == T_INT && resolve_yaml12("1:20", 4) == T_STR);
    CHECK(resolve_yaml12("~", 1) == T_NULL && resolve_yaml12("", 0) == T_NULL);
    CHECK(resolve_yaml12("abc", 3) == T_STR && resolve_yaml12("1.2.3", 5) == T_STR);
}

/* The first-byte filter and the word switch must type every null and bool word, in each casing, and nothing else. */
TEST(null_and_bool_words_in_every_casing)
{
    const char *bools11[] = {"y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "on", "On", "ON", "off", "Off",
                             "OFF", NULL};
    const char *bools[] = {"true", "True", "TRUE", "false", "False", "FALSE", NULL};
    const char *nulls[] = {"", "~", "null", "Null", "NULL", NULL};
    const char *strings[] = {"yES", "nO", "oN", "tRUE", "fALSE", "nULL", "nul", "nulls", "Nulls", "ye", "yess", "of",
                             "offf", "truee", "fals", "~~", "o", "O", "t", "f", "x", "<", "==", "nginx", "Never", NULL};
    for (int i = 0; bools11[i]; i++)
        CHECK(resolve_yaml11(bools11[i], strlen(bools11[i])) == T_BOOL &&
              resolve_yaml12(bools11[i], strlen(bools11[i])) == T_STR);
    for (int i = 0; bools[i]; i++)
        CHECK(resolve_yaml11(bools[i], strlen(bools[i])) == T_BOOL && resolve_yaml12(bools[i], strlen(bools[i])) == T_BOOL);
    for (int i = 0; nulls[i]; i++)
        CHECK(resolve_yaml11(nulls[i], strlen(nulls[i])) == T_NULL && resolve_yaml12(nulls[i], strlen(nulls[i])) == T_NULL);
    for (int i = 0; strings[i]; i++)
        CHECK(resolve_yaml11(strings[i], strlen(strings[i])) == T_STR &&
              resolve_yaml12(strings[i], strlen(strings[i])) == T_STR);
    CHECK(resolve_yaml11("-.inf", 5) == T_FLOAT && resolve_yaml12(".NaN", 4) == T_FLOAT);
    CHECK(resolve_yaml11("+12", 3) == T_INT && resolve_yaml12("-0x1F", 5) == T_INT);
}

/* scalar_facts answers in one pass what plain_allowed and plain_string_safe answer on their own. */
TEST(scalar_facts_agree_with_the_single_checks)
{
    const char *texts[] = {"main", "a: b", "a:b", "a:", ":a", ": a", "::", "- a", "-a", "-", "?", "? x", "a #b", "a#b",
                           "#a", "[x", "x]", "x,y", "{a", "a}", "a, b", "nginx:1.25", "https://example.com/a.git",
                           "a:,b", "---", "--", "---x", "...", "..x", " lead", "trail ", "tab\there", "line\nbreak",
                           "two\nlines\n", "\n\n", "trail \nx", "\tlead\nx", "caf\xc3\xa9", "nel\xc2\x85x",
                           "ls\xe2\x80\xa8x", "bom\xef\xbb\xbfx", "ff\xef\xbf\xbe", "c1\xc2\x9f", "del\x7f",
                           "yes", "on", "1e3", "0755", "2024-01-02", "<<", "=", "", "~", "12:30", "x: y: z", "@at",
                           "%p", "`b", "|x", ">x", "!x", "&x", "*x", "'q", "\"q", NULL};
    for (int i = 0; texts[i]; i++) {
        const char *s = texts[i];
        size_t n = strlen(s);
        unsigned f = scalar_facts(s, n);
        CHECK(f & SF_KNOWN);
        CHECK(!(f & SF_PLAIN) == !plain_allowed(s, n, false));
        CHECK(!(f & SF_PLAIN_FLOW) == !plain_allowed(s, n, true));
        CHECK(!((f & SF_PLAIN) && (f & SF_STRING)) == !plain_string_safe(s, n, false));
        CHECK(!((f & SF_PLAIN_FLOW) && (f & SF_STRING)) == !plain_string_safe(s, n, true));
    }
    CHECK(scalar_facts("nel\xc2\x85x", 6) & SF_ESCAPES);
    CHECK(!(scalar_facts("caf\xc3\xa9", 5) & SF_ESCAPES));
    CHECK(!(scalar_facts("tab\there", 8) & SF_SINGLE) && (scalar_facts("a: b", 4) & SF_SINGLE));
    CHECK((scalar_facts("two\nlines\n", 10) & SF_LITERAL) && !(scalar_facts("\n\n", 2) & SF_LITERAL));
    CHECK(!(scalar_facts("trail \nx", 8) & SF_LITERAL) && !(scalar_facts("\tlead\nx", 7) & SF_LITERAL));
    CHECK(!(scalar_facts("one line", 8) & SF_LITERAL));
}

TEST(json_output_types)
{
    node *n = parse("a: yes\nb: '1'\nc: 0x10\nd: 1.50\ne: ~\nf: [1, x]\ng: !!str 7\nh: \"q\\\"\\n\"\ni: 0755\n");
    CHECK(n);
    buf b = {0};
    emit_json(&b, n);
    CHECK_STR(buf_cstr(&b), "{\"a\":true,\"b\":\"1\",\"c\":16,\"d\":1.5,\"e\":null,\"f\":[1,\"x\"],\"g\":\"7\","
                            "\"h\":\"q\\\"\\n\",\"i\":493}");
    buf_free(&b);
}

TEST(parse_error_names_file_and_line)
{
    CHECK(parse("a: 1\nb: [1, 2\nc: 3\n") == NULL);
    CHECK(strstr(diag_message(), "test.yaml:") && strstr(diag_message(), "invalid YAML"));
}

TEST(map_edits_keep_order_and_comments)
{
    node *n = parse("metadata:\n  labels:\n    a: '1' # keep me\n");
    CHECK(n);
    node *labels = path_get(n, "metadata", "labels", NULL);
    map_set_str(A, labels, "a", "2");
    map_set_str(A, labels, "b", "true");
    buf b = {0};
    emit_yaml(&b, n, NULL);
    CHECK_STR(buf_cstr(&b), "metadata:\n  labels:\n    a: '2' # keep me\n    b: \"true\"\n");
    buf_free(&b);
}

/* The emitter keeps what it learnt about a text (scalar_facts) in the node: every way of changing the text must
 * drop it, or a new "true" would go out plain because the old text could. Emitting first fills the facts. */
TEST(kept_text_facts_follow_every_edit)
{
    node *n = parse("a: abc\nb: abc\nc: abc\nd: [abc]\ne: abc # note\n");
    CHECK(n);
    buf b = {0};
    emit_yaml(&b, n, NULL);
    CHECK_STR(buf_cstr(&b), "a: abc\nb: abc\nc: abc\nd: [abc]\ne: abc # note\n");
    b.len = 0;
    CHECK(scalar_set(A, map_get(n, "a"), "true", 4, SCALAR_AS_STRING));
    map_set_str(A, n, "b", "yes");
    map_set_str_ref(A, n, "c", "0755");
    node *item = node_str(A, "on");
    node_move(seq_item(map_get(n, "d"), 0), item);
    CHECK(scalar_set(A, map_get(n, "e"), "null", 4, SCALAR_AS_STRING));
    emit_yaml(&b, n, NULL);
    CHECK_STR(buf_cstr(&b), "a: \"true\"\nb: \"yes\"\nc: \"0755\"\nd: [\"on\"]\ne: \"null\" # note\n");
    buf_free(&b);
}

/* emit, parse the result, and compare with the first tree; the emitted text goes to *out */
static bool reads_back(node *n, const char **out)
{
    buf b = {0};
    emit_yaml(&b, n, NULL);
    *out = arena_strndup(A, b.data, b.len);
    buf_free(&b);
    node *again = parse(*out);
    return again && node_equal(n, again);
}

TEST(tag_alone_keeps_its_space_before_a_colon)
{
    /* a tag may hold colons: "!!null:" would be one tag, in block and in flow mappings alike */
    const char *out;
    node *n = parse("! : x\n");
    CHECK(n && reads_back(n, &out));
    CHECK_STR(out, "! : x\n");
    n = parse("[3, !!null : 2]\n");
    CHECK(n && reads_back(n, &out));
    CHECK_STR(out, "[3, {!!null : 2}]\n");
    n = parse("{!!str : a, b: !!null , c: [!!str , d]}\n");
    CHECK(n && reads_back(n, &out));
}

TEST(lone_carriage_return_breaks_lines)
{
    /* YAML breaks lines at \n, \r\n and a lone \r: a comment ends there, and a quoted scalar folds there */
    const char *out;
    node *n = parse("#\r:\n- l\n");
    CHECK(n && reads_back(n, &out));
    CHECK(!strchr(out, '\r'));
    n = parse("a: 1\r# above b\rb: 2 # after b\r");
    CHECK(n && reads_back(n, &out));
    CHECK_STR(out, "a: 1\n# above b\nb: 2 # after b\n");
    n = parse("a: 'x\r  y\r\r  z'\r\nb: 'p\r\n\r\n  q'\n");
    CHECK(n);
    CHECK_STR(scalar(map_get(n, "a")), "x y\nz");
    CHECK_STR(scalar(map_get(n, "b")), "p\nq");
    CHECK(parse("a: 1\rb: \xff\r") == NULL);
    CHECK(strstr(diag_message(), "test.yaml:2: invalid UTF-8"));
}

TEST(json_base60_only_when_well_formed)
{
    /* !!int may sit on any text: base 60 is [-+]?[0-9]+(:[0-5]?[0-9])+ within int64, anything else stays a string */
    node *n = parse("a: !!int 190:20:30\nb: !!int -1:59\nc: !!int 9:-1\nd: !!int 1:60\ne: !!int 1::2\n"
                    "f: !!int 153722867280912930:7\ng: !!int 153722867280912930:8\nh: !!int 99999999999999999999:1\n"
                    "i: !!int \"1:2:\"\n");
    CHECK(n);
    buf b = {0};
    emit_json(&b, n);
    CHECK_STR(buf_cstr(&b), "{\"a\":685230,\"b\":-119,\"c\":\"9:-1\",\"d\":\"1:60\",\"e\":\"1::2\","
                            "\"f\":9223372036854775807,\"g\":\"153722867280912930:8\","
                            "\"h\":\"99999999999999999999:1\",\"i\":\"1:2:\"}");
    buf_free(&b);
}

/* A stream as in-place writes it: each document's comments and the comment-only documents around it, or (documents
 * off) as the rendered stream, which never has those documents. */
struct docs {
    node *v[8];
    int wide[8];
    size_t n;
};

static int take_docs(void *ud, node *root, uint32_t index, uint32_t line, int seq_wide)
{
    struct docs *d = ud;
    if (d->n < 8) {
        d->wide[d->n] = seq_wide;
        d->v[d->n++] = root;
    }
    return 0;
}

static const char *stream(const struct docs *d, bool documents)
{
    buf b = {0};
    for (size_t i = 0; i < d->n; i++) {
        if (i)
            buf_puts(&b, "---\n");
        emit_opts o = {.seq_wide = d->wide[i], .comments = true, .documents = documents};
        emit_yaml(&b, d->v[i], &o);
    }
    const char *s = arena_strndup(A, b.data ? b.data : "", b.len);
    buf_free(&b);
    return s;
}

static const char *const comments_text = "# top\n"
                                         "apiVersion: v1\n"
                                         "kind: ConfigMap\n"
                                         "metadata:\n"
                                         "  name: a\n"
                                         "  labels:\n"
                                         "    x: \"1\"\n"
                                         "    # after closed labels map\n"
                                         "  annotations: {}\n"
                                         "data:\n"
                                         "  list:\n"
                                         "  - a: 1\n"
                                         "    b:\n"
                                         "      c: 2\n"
                                         "    # after nested map in item\n"
                                         "  # between items after a map item\n"
                                         "  - a: 3\n"
                                         "  # trailing in seq\n"
                                         "  k: v # line\n"
                                         "  n: # on a key without a value\n"
                                         "  # end of data\n"
                                         "# end of doc\n"
                                         "---\n"
                                         "# comment-only doc\n"
                                         "---\n"
                                         "items:\n"
                                         "# above the dash\n"
                                         "- # on the dash line\n"
                                         "  # below it\n"
                                         "  a: 1\n"
                                         "- - x\n"
                                         "  # foot of the inner list\n"
                                         "---\n"
                                         "# last, comment only\n";

TEST(comments_attach_where_the_structure_says)
{
    setup();
    struct docs d = {0};
    CHECK(yaml_load(A, ST, NULL, "t", comments_text, strlen(comments_text), take_docs, &d) == 0);
    CHECK(d.n == 2);
    node *r = d.v[0], *list = path_get(r, "data", "list", NULL);
    CHECK_STR(node_head(map_key(r, 0)), "# top");
    CHECK_STR(node_foot(path_get(r, "metadata", "labels", NULL)), "# after closed labels map");
    CHECK_STR(node_foot(seq_item(list, 0)), "# after nested map in item");
    CHECK(!node_foot(path_get(seq_item(list, 0), "b", NULL)));
    CHECK_STR(node_head(seq_item(list, 1)), "# between items after a map item");
    /* a list level with its key: what follows it at that column is the next key's */
    CHECK(!node_foot(list));
    CHECK_STR(node_head(map_key(map_get(r, "data"), 1)), "# trailing in seq");
    CHECK_STR(node_comment(map_key(map_get(r, "data"), 2)), "on a key without a value");
    CHECK_STR(node_foot(map_get(r, "data")), "# end of data");
    CHECK_STR(node_foot(r), "# end of doc");
    node *items = map_get(d.v[1], "items");
    CHECK_STR(node_head(seq_item(items, 0)), "# above the dash");
    CHECK_STR(node_head(map_key(seq_item(items, 0), 0)), "# on the dash line\n# below it");
    CHECK_STR(node_foot(seq_item(items, 1)), "# foot of the inner list");
}

TEST(comments_round_trip_in_place_and_stay_out_of_the_stream)
{
    setup();
    struct docs d = {0};
    CHECK(yaml_load(A, ST, NULL, "t", comments_text, strlen(comments_text), take_docs, &d) == 0);
    CHECK_STR(stream(&d, true), comments_text);
    const char *rendered = stream(&d, false);
    CHECK(!strstr(rendered, "comment-only") && !strstr(rendered, "comment only"));
    CHECK(strstr(rendered, "# end of doc\n---\nitems:\n") != NULL);
    /* load -> emit -> load: the same comments, so the same text again */
    struct docs back = {0};
    CHECK(yaml_load(A, ST, NULL, "t", rendered, strlen(rendered), take_docs, &back) == 0);
    CHECK_STR(stream(&back, false), rendered);
}

TEST(stream_comments_before_a_document_start)
{
    setup();
    const char *in = "# license\n---\na: 1\n---\n# one\n\n# more\n---\n---\n# two\n---\nb: 2\n";
    struct docs d = {0};
    CHECK(yaml_load(A, ST, NULL, "t", in, strlen(in), take_docs, &d) == 0);
    CHECK(d.n == 2);
    /* the empty document between them goes; the rest comes back as it was */
    CHECK_STR(stream(&d, true), "# license\n---\na: 1\n---\n# one\n\n# more\n---\n# two\n---\nb: 2\n");
    CHECK_STR(stream(&d, false), "a: 1\n---\nb: 2\n");
    /* drop-comments' clear takes the documents' text too */
    node_clear_comments(d.v[0]);
    node_clear_comments(d.v[1]);
    CHECK_STR(stream(&d, true), "a: 1\n---\nb: 2\n");
}
