/* The error convention (util/diag.h): fail() records, a caller with a fallback captures what its tries record into a
 * detail of its own, and warnings are kept in order for main to print. */
#include "check.h"
#include "util/diag.h"
#include "yaml/load.h"

TEST(diag_fail_keeps_the_first_error_on_one_line)
{
    diag_set_step("read");
    CHECK(fail("a.yaml", 3, "bad %s\nvalue", "x") == -1);
    CHECK(fail("b.yaml", 4, "second") == -1);
    CHECK(diag_failed());
    CHECK_STR(diag_message(), "a.yaml:3: read: bad x value");
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

TEST(yaml_load_one_into_gives_the_caller_the_detail)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    diag_set_step("parameters");
    node *n = NULL;
    diag_detail why;
    const char *text = "a: 1\na: 2\n";
    CHECK(yaml_load_one_into(a, st, "value", text, strlen(text), &n, &why) < 0);
    CHECK(!diag_failed());
    CHECK(why.failed);
    CHECK_STR(why.text, "value:2: parameters: duplicate key \"a\"");
    CHECK_STR(why.message, "duplicate key \"a\"");
    text = "[1, 2";
    CHECK(yaml_load_one_into(a, st, "value", text, strlen(text), &n, &why) < 0);
    CHECK(!strncmp(why.message, "invalid YAML: ", 14));
    text = "b: 3\n";
    CHECK(yaml_load_one_into(a, st, "value", text, strlen(text), &n, &why) == 0);
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
    CHECK_STR(diag_warning(1), "second line");
    CHECK(diag_warning(2) == NULL);
    CHECK(!diag_failed());
    diag_reset();
    CHECK(diag_warning(0) == NULL);
}
