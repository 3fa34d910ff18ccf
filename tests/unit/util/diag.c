/* The error convention (util/diag.h): fail() records, a caller with a fallback captures what its tries record into a
 * detail of its own, and warnings are kept in order for main to print. */
#include "check.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/diag.h"
#include "yaml/load.h"

/* The record keeps the text as it was given; main escapes the whole line when it prints it (text_escape). */
TEST(diag_fail_keeps_the_first_error)
{
    diag_set_step("read");
    CHECK(fail("a.yaml", 3, "bad %s\nvalue", "x") == -1);
    CHECK(fail("b.yaml", 4, "second") == -1);
    CHECK(diag_failed());
    CHECK_STR(diag_message(), "a.yaml:3: read: bad x\nvalue");
    diag_reset();
    CHECK(!diag_failed());
    CHECK_STR(diag_message(), "");
    fail(NULL, 7, "no file, so no line");
    CHECK_STR(diag_message(), "no file, so no line");
}

TEST(diag_capture_leaves_the_render_error_alone)
{
    diag_set_step("parameters");
    diag_detail why;
    diag_detail *outer = diag_capture(&why);
    fail("t.yaml", 2, "tried");
    CHECK(diag_failed()); /* inside the capture, the capture is the record in use */
    diag_restore(outer);
    CHECK(!diag_failed());
    CHECK(why.failed);
    CHECK_STR(why.file, "t.yaml");
    CHECK(why.line == 2);
    CHECK_STR(why.step, "parameters");
    CHECK_STR(why.message, "tried");
    CHECK_STR(why.text, "t.yaml:2: parameters: tried");
}

/* What "try, then clear the global error" got wrong: a try after an error wiped that error, and the render went on. */
TEST(diag_capture_cannot_hide_an_earlier_error)
{
    fail("first.yaml", 1, "the real error");
    diag_detail why;
    diag_detail *outer = diag_capture(&why);
    CHECK(!diag_failed()); /* a fresh record: the try's own error is seen even after an earlier one */
    fail("try.yaml", 1, "the try's error");
    diag_restore(outer);
    CHECK(why.failed);
    CHECK_STR(why.message, "the try's error");
    CHECK_STR(diag_message(), "first.yaml:1: the real error");
}

TEST(diag_raise_says_what_fail_would_have)
{
    diag_set_step("pipeline.mutators[0] (set-labels)");
    fail("Kptfile", 12, "direct %d", 1);
    char direct[2048];
    snprintf(direct, sizeof direct, "%s", diag_message());
    diag_reset();
    diag_set_step("pipeline.mutators[0] (set-labels)");
    diag_detail why;
    diag_detail *outer = diag_capture(&why);
    fail("Kptfile", 12, "direct %d", 1);
    diag_restore(outer);
    CHECK(!diag_failed());
    CHECK(diag_raise(&why) == -1);
    CHECK_STR(diag_message(), direct);
    /* and like fail(), it does not replace an error already recorded */
    diag_detail other;
    outer = diag_capture(&other);
    fail("x", 1, "later");
    diag_restore(outer);
    diag_raise(&other);
    CHECK_STR(diag_message(), direct);
}

TEST(diag_captures_nest)
{
    diag_detail outer_try, inner_try;
    diag_detail *top = diag_capture(&outer_try);
    diag_detail *mid = diag_capture(&inner_try);
    CHECK(mid == &outer_try);
    fail("inner", 0, "inner error");
    diag_restore(mid);
    CHECK(!diag_failed());
    fail("outer", 0, "outer error");
    diag_restore(top);
    CHECK(!diag_failed());
    CHECK_STR(inner_try.text, "inner: inner error");
    CHECK_STR(outer_try.text, "outer: outer error");
}

/* A function that cannot know where its text came from fails with fail_here(); its caller gives the place and its
 * own context, and the line reads as if the caller had failed with the whole message. */
TEST(diag_locate_places_an_error_failed_here)
{
    diag_set_step("pipeline.mutators[0] (apply-replacements)");
    CHECK(fail_here("field path `%s` has an empty element", "a..b") == -1);
    CHECK(diag_failed());
    CHECK_STR(diag_message(), "pipeline.mutators[0] (apply-replacements): field path `a..b` has an empty element");
    diag_set_step("later"); /* the step is the one that failed, not the one running when the caller places it */
    CHECK(diag_locate("fn-config.yaml", 7, "replacements[%d].source", 0) == -1);
    CHECK_STR(diag_message(), "fn-config.yaml:7: pipeline.mutators[0] (apply-replacements): replacements[0].source: "
                              "field path `a..b` has an empty element");
    /* the same line fail() gives when the caller words it all */
    char located[2048];
    snprintf(located, sizeof located, "%s", diag_message());
    diag_reset();
    diag_set_step("pipeline.mutators[0] (apply-replacements)");
    fail("fn-config.yaml", 7, "replacements[0].source: field path `a..b` has an empty element");
    CHECK_STR(diag_message(), located);
    /* placed once: a second diag_locate (an outer caller) leaves the place and the message alone */
    diag_reset();
    fail_here("bad");
    diag_locate("inner.yaml", 2, "%s", "inner");
    diag_locate("outer.yaml", 9, "%s", "outer");
    CHECK_STR(diag_message(), "inner.yaml:2: inner: bad");
}

TEST(diag_locate_leaves_errors_recorded_with_their_place)
{
    /* fail(NULL, 0, ...) is an error that names no file on purpose: not one waiting for a place */
    fail(NULL, 0, "parameter \"images\": bad");
    CHECK(diag_locate("Kptfile", 3, "%s", "context") == -1);
    CHECK_STR(diag_message(), "parameter \"images\": bad");
    diag_reset();
    fail("Chart.yaml", 4, "first");
    fail_here("second: not recorded, the first error stays");
    diag_locate("x.yaml", 1, "%s", "context");
    CHECK_STR(diag_message(), "Chart.yaml:4: first");
    /* a callee that returned -1 without recording anything: the caller's context is the error, never a success */
    diag_reset();
    CHECK(diag_locate("y.yaml", 5, "archive %s is refused", "c.tgz") == -1);
    CHECK(diag_failed());
    CHECK_STR(diag_message(), "y.yaml:5: archive c.tgz is refused");
    /* no line without a file, as in fail() */
    diag_reset();
    fail_here("m");
    diag_locate(NULL, 5, "%s", "c");
    CHECK_STR(diag_message(), "c: m");
}

TEST(diag_locate_works_through_a_capture)
{
    fail("earlier.yaml", 1, "the render's error");
    diag_detail why;
    diag_detail *outer = diag_capture(&why);
    fail_here("refused");
    CHECK(diag_locate("t.yaml", 2, "%s", "try") == -1); /* the record in use: the capture */
    diag_restore(outer);
    CHECK(why.failed && !why.unplaced);
    CHECK_STR(why.text, "t.yaml:2: try: refused");
    CHECK_STR(diag_message(), "earlier.yaml:1: the render's error");
    /* a captured error still waiting for its place is raised as it is, and placed after */
    diag_reset();
    outer = diag_capture(&why);
    fail_here("refused");
    diag_restore(outer);
    CHECK(why.unplaced);
    diag_raise(&why);
    diag_locate("u.yaml", 3, "%s", "raised");
    CHECK_STR(diag_message(), "u.yaml:3: raised: refused");
}

TEST(yaml_load_one_into_gives_the_caller_the_detail)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    diag_set_step("parameters");
    node *n = NULL;
    diag_detail why;
    const char *text = "a: 1\na: 2\n";
    CHECK(yaml_load_one_into(a, st, NULL, "value", text, strlen(text), &n, &why) < 0);
    CHECK(!diag_failed());
    CHECK(why.failed);
    CHECK_STR(why.text, "value:2: parameters: duplicate key \"a\"");
    CHECK_STR(why.message, "duplicate key \"a\"");
    text = "[1, 2";
    CHECK(yaml_load_one_into(a, st, NULL, "value", text, strlen(text), &n, &why) < 0);
    CHECK(!strncmp(why.message, "invalid YAML: ", 14));
    text = "b: 3\n";
    CHECK(yaml_load_one_into(a, st, NULL, "value", text, strlen(text), &n, &why) == 0);
    CHECK(!why.failed && n && !diag_failed());
    strtab_release(st);
    arena_free(a);
}

TEST(diag_warnings_are_kept_in_order)
{
    CHECK(diag_warning(0) == NULL);
    diag_warn("first %d", 1);
    diag_detail why;
    diag_detail *outer = diag_capture(&why);
    diag_warn("second\nline"); /* a capture takes errors only */
    diag_restore(outer);
    CHECK_STR(diag_warning(0), "first 1");
    CHECK_STR(diag_warning(1), "second\nline"); /* as given: main escapes it */
    CHECK(diag_warning(2) == NULL);
    CHECK(!diag_failed());
    diag_reset();
    CHECK(diag_warning(0) == NULL);
}

static const char *escaped(const char *s, size_t n)
{
    static char out[512];
    buf b = {0};
    text_escape(&b, s, n);
    snprintf(out, sizeof out, "%.*s", (int)b.len, b.data ? b.data : "");
    buf_free(&b);
    return out;
}

/* The one escaping path for stderr: nothing that acts on a terminal or breaks the line gets through as itself. */
TEST(text_escape_shows_every_control_as_an_escape)
{
    /* C0: line breaks and TAB by name, ESC, BEL, NUL and the rest as \xHH; DEL too */
    const char c0[] = "a\nb\rc\td\x1b[31me\x07" "f\0g\x01\x1f\x7fh";
    CHECK_STR(escaped(c0, sizeof c0 - 1), "a\\nb\\rc\\td\\x1b[31me\\x07f\\x00g\\x01\\x1f\\x7fh");
    /* C1 written as UTF-8 (CSI U+009B, OSC U+009D, NEL U+0085), line and paragraph separators, bidi overrides */
    const char c1[] = "\xc2\x9b" "31m\xc2\x9d\xc2\x85|\xe2\x80\xa8\xe2\x80\xa9|\xe2\x80\xae\xe2\x81\xa6";
    CHECK_STR(escaped(c1, sizeof c1 - 1), "\\u009b31m\\u009d\\u0085|\\u2028\\u2029|\\u202e\\u2066");
    /* raw C1 bytes and other invalid UTF-8 (a lone continuation, an overlong form, a surrogate, a cut sequence):
     * each byte on its own; valid UTF-8 stays as it is, and so does the backslash */
    const char bad[] = "\x9b\x80|\xc0\xaf|\xed\xa0\x80|\xe2\x82|\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\\x";
    CHECK_STR(escaped(bad, sizeof bad - 1),
              "\\x9b\\x80|\\xc0\\xaf|\\xed\\xa0\\x80|\\xe2\\x82|\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\\x");
    /* escaping what is escaped changes nothing: shown() text escaped again by main comes out the same */
    char once[512];
    snprintf(once, sizeof once, "%s", escaped(bad, sizeof bad - 1));
    CHECK_STR(escaped(once, strlen(once)), once);
}

TEST(shown_cuts_on_a_character_and_escapes)
{
    arena *a = arena_new();
    char s[100];
    memset(s, 'x', 79);
    memcpy(s + 79, "\xc3\xa9\x1b", 4); /* an e-acute across the 80-byte cut, then ESC */
    s[83] = 0;
    CHECK_STR(shown(a, s), "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...");
    CHECK_STR(shown(a, "evil\nline\x1b]0;t\x07"), "evil\\nline\\x1b]0;t\\x07");
    char small[16];
    CHECK_STR(shown_in(small, sizeof small, "ab\x1b\x1b\x1b\x1b", 80), "ab\\x1b\\x1b..."); /* no escape cut in two */
    arena_free(a);
}
