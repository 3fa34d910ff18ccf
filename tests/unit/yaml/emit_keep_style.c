/* In-place writes keep the source layout of scalars a function did not change (emit_opts.keep_style): block
 * scalars on one line, folded lines, kept chomping, the line breaks of plain and quoted scalars. What is written
 * must read back as the same values to a YAML 1.1 reader (libyaml here, like Go's yaml behind Argo CD) and to a
 * 1.2 one (our loader, libfyaml), whatever the source; a changed scalar gets the emitter's own choice. */
#include "check.h"
#include "libyaml_reader.h"
#include "util/diag.h"
#include "yaml/emit.h"
#include "yaml/load.h"

#include "yaml_unit.h"

static void init(void)
{
}

static const char *emitted(const node *root, bool keep)
{
    buf b = {0};
    emit_opts o = {.comments = true, .keep_style = keep};
    emit_yaml(&b, root, &o);
    const char *s = arena_strndup(A, b.data, b.len);
    buf_free(&b);
    return s;
}

/* Same kinds, values and scalar styles throughout. */
static bool same_styles(const node *a, const node *b)
{
    if (node_kind(a) != node_kind(b))
        return false;
    if (node_kind(a) == N_SCALAR)
        return node_style(a) == node_style(b) && !strcmp(scalar(a), scalar(b));
    if (node_len(a) != node_len(b))
        return false;
    for (uint32_t i = 0; i < node_len(a); i++) {
        bool ok = node_kind(a) == N_MAP ? same_styles(map_key(a, i), map_key(b, i)) && same_styles(map_val(a, i), map_val(b, i))
                                        : same_styles(seq_item(a, i), seq_item(b, i));
        if (!ok)
            return false;
    }
    return true;
}

struct keep_case {
    const char *src;
    const char *want; /* the in-place text; NULL: the source itself */
};

/* Written as they were (or re-indented only). */
static const struct keep_case kept[] = {
    {"k: |-\n  single\n", NULL},
    {"k: |-\n      deeper\n", "k: |-\n  deeper\n"},
    {"k: |2-\n   leading space\n", NULL},
    {"k: |+\n  one break kept\n", NULL},
    {"k: |+\n  two\n\n", NULL},
    {"k: !!str |-\n  tagged\n", NULL},
    {"k: >\n  folded text\n  goes on\n\n  new paragraph\n    more indented\n  back\n", NULL},
    {"k: >-\n  one\n", NULL},
    {"k: >2\n   leading\n  x\n", NULL},
    {"k: >\n\n  after an empty line\n", NULL},
    {"k: >+\n  keep\n\n\n", NULL},
    {"k: >-\n      deep\n      lines\n", "k: >-\n  deep\n  lines\n"},
    {"k: a plain scalar\n  over two lines\n", NULL},
    {"k: a\n\n\n  b\n", NULL},
    {"k: a\n       deeper continuation\n", "k: a\n  deeper continuation\n"},
    {"k: 1\n  2\n", NULL},
    {"k: !!str multi\n  line\n", NULL},
    {"k: 'it''s\n  multi'\n", NULL},
    {"k: 'trailing blanks   \n  stay out'\n", "k: 'trailing blanks\n  stay out'\n"},
    {"k: 'last line keeps its blanks\n  here  '\n", NULL},
    {"k: '\n  empty first line'\n", NULL},
    {"k: \"a \\\"quoted\\\"\n  text\\\n  joined\\n\n  e\" # comment\n", NULL},
    {"k: \"escaped backslash\\\\\n  then a break\"\n", NULL},
    {"k: \"\n  blank ends\n  \"\n", NULL},
    {"k: '\n\n  blank ends\n  '\n", NULL},
    {"k: a\r\n  b\r\n", "k: a\n  b\n"},
    {"- item one\n  continues\n- |-\n  lit\n- >\n  f1\n  f2\n", NULL},
    {"k:\n- x: a\n    b\n", NULL},
    {"a: &x shared\n  text\nb: *x\n", "a: shared\n  text\nb: shared\n  text\n"},
    {NULL, NULL},
};

/* Read back the same, written the emitter's way (a layout that cannot be kept safely). */
static const char *const not_kept[] = {
    "k: \"x\\u0041\n  y\"\n",          /* escapes beyond \\ \" \n \t */
    "k: \"hex\\x41\n  then\"\n",
    "k: 'a\ttab\n  b'\n",              /* tabs */
    "k: a\n  \xc2\x85 b\n",            /* NEL: a line break to a 1.1 reader */
    "k: >\n  a\n  \tb\n",              /* a folded line starting with a tab */
    "k: >\n  trailing \n  b\n",        /* blanks ending a folded line */
    "k: |-\n  trailing \n",
    NULL,
};

static void check_reads_back(int line, const char *src, const char *text)
{
    const char *a[16], *b[16];
    int na = libyaml_scalars(A, src, a, 16), nb = libyaml_scalars(A, text, b, 16);
    bool ok = na >= 0 && na == nb;
    for (int i = 0; ok && i < na; i++)
        ok = !strcmp(a[i], b[i]);
    if (!ok) {
        char msg[2048];
        snprintf(msg, sizeof msg, "libyaml (YAML 1.1) reads other values from\n%s\nwritten as\n%s", src, text);
        test_fail(__FILE__, line, msg);
    }
}

TEST(in_place_keeps_the_source_layout_of_untouched_scalars)
{
    init();
    for (int i = 0; kept[i].src; i++) {
        const char *src = kept[i].src, *want = kept[i].want ? kept[i].want : src;
        node *root = NULL, *back = NULL;
        diag_reset();
        CHECK(yaml_load_one(A, ST, NULL, "t.yaml", src, strlen(src), &root) == 0 && root);
        const char *text = emitted(root, true);
        CHECK_STR(text, want);
        if (!strchr(src, '*')) /* (libyaml gives an alias as an alias) */
            check_reads_back(__LINE__, src, text);
        if (test_failed_now)
            return;
        CHECK(yaml_load_one(A, ST, NULL, "t.yaml", text, strlen(text), &back) == 0 && back);
        CHECK(same_styles(root, back));
        /* the Argo CD stream keeps its one way of writing */
        node *again = NULL;
        CHECK(yaml_load_one(A, ST, NULL, "t.yaml", src, strlen(src), &again) == 0 && again);
        CHECK(!strcmp(emitted(again, false), emitted(again, false)));
    }
}

TEST(in_place_layouts_that_do_not_read_back_the_same_are_not_kept)
{
    init();
    for (int i = 0; not_kept[i]; i++) {
        node *root = NULL, *back = NULL;
        diag_reset();
        CHECK(yaml_load_one(A, ST, NULL, "t.yaml", not_kept[i], strlen(not_kept[i]), &root) == 0 && root);
        const char *text = emitted(root, true);
        CHECK_STR(text, emitted(root, false));
        /* (a source with NEL reads differently to the two readers already: only the value ours reads counts) */
        if (!strstr(not_kept[i], "\xc2\x85"))
            check_reads_back(__LINE__, not_kept[i], text);
        if (test_failed_now)
            return;
        CHECK(yaml_load_one(A, ST, NULL, "t.yaml", text, strlen(text), &back) == 0 && back && node_equal(root, back));
    }
}

/* A scalar a function changed, or restyled, is written the emitter's way: never its old text's layout. */
TEST(in_place_changed_scalars_get_the_emitters_choice)
{
    init();
    const char *src = "a: |-\n  single\nb: plain\n  two lines\nc: >-\n  folded\n  two\nd: 'quoted\n  two'\n"
                      "e: |+\n  kept\nf: same\n  text\n";
    node *root = NULL;
    diag_reset();
    CHECK(yaml_load_one(A, ST, NULL, "t.yaml", src, strlen(src), &root) == 0 && root);
    CHECK(scalar_set(A, map_val(root, 0), "new", 3, SCALAR_AS_WRITTEN));
    CHECK(scalar_set(A, map_val(root, 1), "new b", 5, SCALAR_AS_WRITTEN));
    CHECK(scalar_set(A, map_val(root, 2), "new c", 5, SCALAR_KEEP_TYPE));
    CHECK(scalar_set(A, map_val(root, 3), "new d", 5, SCALAR_AS_STRING));
    node_set_style(map_val(root, 4), ST_DOUBLE);
    CHECK(!scalar_set(A, map_val(root, 5), "same text", 9, SCALAR_AS_WRITTEN));
    CHECK_STR(emitted(root, true), "a: new\nb: new b\nc: new c\nd: 'new d'\ne: \"kept\\n\"\nf: same\n  text\n");
}
