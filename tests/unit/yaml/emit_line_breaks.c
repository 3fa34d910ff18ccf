/* NEL (U+0085), LS (U+2028) and PS (U+2029), the other C1 controls and U+FFFE/U+FFFF in what we emit. A YAML 1.1
 * reader (libyaml here, Go's yaml in Argo CD) takes the first three as line breaks, folding them away in plain,
 * single-quoted and raw double-quoted scalars and ending comments at them; a 1.2 reader (libfyaml, our loader)
 * takes them as text. Whatever a scalar's style, both must read the same value back, and a comment must stay a
 * comment. */
#include "check.h"
#include "libyaml_reader.h"
#include "util/diag.h"
#include "yaml/emit.h"
#include "yaml/load.h"

#include "yaml_unit.h"

static const char *emitted(const node *root)
{
    buf b = {0};
    emit_opts o = {.comments = true};
    emit_yaml(&b, root, &o);
    const char *s = arena_strndup(A, b.data, b.len);
    buf_free(&b);
    return s;
}

static void fail_with(int line, const char *what, const char *value, const char *text)
{
    char msg[1024];
    snprintf(msg, sizeof msg, "%s: value \"%s\" emitted as:\n%s", what, value, text);
    test_fail(__FILE__, line, msg);
}

static const char *const specials[] = {
    "a\xc2\x85" "b",                  /* NEL */
    "a\xe2\x80\xa8" "b",              /* LS */
    "a\xe2\x80\xa9" "b",              /* PS */
    "\xe2\x80\xa8",                   /* LS alone */
    "\xc2\x85lead",                   /* NEL first */
    "trail\xe2\x80\xa9",              /* PS last */
    "x: 1\xe2\x80\xa8y: 2",           /* would read as a mapping */
    "one\ntwo\xe2\x80\xa8three\n",    /* a literal block candidate */
    "k\xc2\x9b[2J",                   /* another C1 control */
    "\xc2\x80",                       /* U+0080 */
    "n\xef\xbf\xbe" "c",              /* U+FFFE */
    "\xef\xbf\xbf",                   /* U+FFFF */
    "caf\xc3\xa9 \xe2\x80\xa6 \xe2\x80\xaf", /* ordinary text next to them: U+00E9, U+2026, U+202F */
    NULL,
};

TEST(line_separators_read_back_the_same_in_yaml11_and_yaml12)
{
    const int styles[] = {ST_STRING, ST_PLAIN, ST_SINGLE, ST_DOUBLE, ST_LITERAL, ST_FOLDED};
    for (int i = 0; specials[i]; i++) {
        for (size_t st = 0; st < sizeof styles / sizeof *styles; st++) {
            const char *v = specials[i];
            /* as a value, and as a key */
            node *m = node_map(A);
            map_append(A, m, node_scalar(A, "k", 1, ST_PLAIN), node_scalar(A, v, strlen(v), styles[st]));
            map_append(A, m, node_scalar(A, v, strlen(v), styles[st] == ST_LITERAL || styles[st] == ST_FOLDED
                                                              ? ST_STRING : styles[st]),
                       node_scalar(A, "v", 1, ST_PLAIN));
            const char *text = emitted(m);
            const char *got[8];
            int n = libyaml_scalars(A, text, got, 8);
            if (n != 4 || strcmp(got[0], "k") || strcmp(got[1], v) || strcmp(got[2], v) || strcmp(got[3], "v")) {
                fail_with(__LINE__, "libyaml (YAML 1.1) reads another value", v, text);
                return;
            }
            node *back = NULL;
            diag_reset();
            if (yaml_load_one(A, ST, NULL, "t.yaml", text, strlen(text), &back) < 0 || !back || node_len(back) != 2 ||
                strcmp(scalar(map_val(back, 0)), v) || strcmp(scalar(map_key(back, 1)), v)) {
                fail_with(__LINE__, "our loader (YAML 1.2) reads another value", v, text);
                return;
            }
        }
    }
}

/* The package author's comment "# note<LS>  injected: 1" must not become a key for a 1.1 reader. */
TEST(line_separators_never_end_a_comment)
{
    const char *seps[] = {"\xc2\x85", "\xe2\x80\xa8", "\xe2\x80\xa9", NULL};
    for (int i = 0; seps[i]; i++) {
        const char *src = arena_printf(A, "a: 1\n# head%s  injected: 1\nb: 2 # line%s  injected2: 2\nc: 3\n", seps[i],
                                       seps[i]);
        node *root = NULL;
        diag_reset();
        CHECK(yaml_load_one(A, ST, NULL, "t.yaml", src, strlen(src), &root) == 0 && root && node_len(root) == 3);
        const char *text = emitted(root);
        const char *got[16];
        int n = libyaml_scalars(A, text, got, 16);
        if (n != 6 || strcmp(got[0], "a") || strcmp(got[2], "b") || strcmp(got[3], "2") || strcmp(got[4], "c")) {
            fail_with(__LINE__, "a comment with a line separator let libyaml read more", seps[i], text);
            return;
        }
        CHECK(strstr(text, "# head") && strstr(text, "# line"));
    }
}
