/* The loader fed in pieces (a child's output as it arrives) against the loader over the whole text: the same
 * documents, indexes, lines, sequence style and errors, however the text is cut into pieces and however often the
 * stream cuts it into parsed parts. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "util/buf.h"
#include "util/diag.h"
#include "yaml/emit.h"
#include "yaml/load.h"
#include "yaml/load_part.h"

/* What the loader handed over, as text: one block per document, then the error if there was one. */
static int record(void *ud, node *root, uint32_t index, uint32_t line, int seq_wide)
{
    buf *b = ud;
    buf_printf(b, "#%u line %u wide %d\n", index, line, seq_wide);
    emit_opts o = {.seq_wide = seq_wide, .comments = true};
    emit_yaml(b, root, &o);
    return 0;
}

static char *trace_whole(const char *text, size_t len)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    buf b = {0};
    diag_reset();
    if (yaml_load(a, st, NULL, "out", text, len, record, &b) < 0)
        buf_printf(&b, "ERROR %s\n", diag_message());
    diag_reset();
    strtab_release(st);
    arena_free(a);
    buf_putc(&b, 0);
    return b.data;
}

/* Fed `step` bytes at a time (0: all at once), parsed in parts of at least `piece` bytes. */
static char *trace_stream(const char *text, size_t len, size_t step, size_t piece)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    buf b = {0};
    diag_reset();
    yaml_stream *s = yaml_stream_new(a, st, NULL, "out", record, &b);
    yaml_stream_piece_bytes(s, piece);
    int rc = 0;
    for (size_t at = 0; rc == 0 && at < len;) {
        size_t n = step && step < len - at ? step : len - at;
        rc = yaml_stream_feed(s, text + at, n);
        at += n;
    }
    if (rc == 0)
        rc = yaml_stream_end(s);
    if (rc < 0)
        buf_printf(&b, "ERROR %s\n", diag_message());
    yaml_stream_free(s);
    diag_reset();
    strtab_release(st);
    arena_free(a);
    buf_putc(&b, 0);
    return b.data;
}

/* Every way of cutting text gives what the whole text gives, and that contains must_contain: NULL, or what is
 * wrong. */
static const char *check_same(const char *text, const char *must_contain)
{
    static const size_t steps[] = {1, 2, 3, 5, 13, 64, 4096, 0};
    static const size_t pieces[] = {1, 10, 100, 64 * 1024};
    static char why[4096];
    size_t len = strlen(text);
    char *want = trace_whole(text, len);
    why[0] = 0;
    if (!strstr(want, must_contain))
        snprintf(why, sizeof why, "the whole-text trace lacks \"%s\"; it ends:\n%s", must_contain,
                 want + (strlen(want) > 1500 ? strlen(want) - 1500 : 0));
    for (size_t i = 0; i < sizeof steps / sizeof *steps && !why[0]; i++)
        for (size_t j = 0; j < sizeof pieces / sizeof *pieces && !why[0]; j++) {
            char *got = trace_stream(text, len, steps[i], pieces[j]);
            /* after an error only the error counts (all or nothing): the whole text is checked for invalid UTF-8
             * before any document is parsed, a stream as each part comes */
            const char *want_err = strstr(want, "ERROR "), *got_err = strstr(got, "ERROR ");
            if (want_err ? !got_err || strcmp(got_err, want_err) : strcmp(got, want))
                snprintf(why, sizeof why, "fed %zu bytes at a time, parts of %zu bytes:\n--- got:\n%.1500s\n--- want:\n%.1500s",
                         steps[i], pieces[j], got, want);
            free(got);
        }
    free(want);
    return why[0] ? why : NULL;
}

#define CHECK_SAME(text, must_contain)                                                                                 \
    do {                                                                                                               \
        const char *why_ = check_same((text), (must_contain));                                                         \
        if (why_) {                                                                                                    \
            test_fail(__FILE__, __LINE__, why_);                                                                       \
            return;                                                                                                    \
        }                                                                                                              \
    } while (0)

TEST(stream_documents_comments_and_markers)
{
    const char *in = "# head of the stream\n"
                     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a # after a\n"
                     "# above the marker\n"
                     "--- # a comment on the marker\n"
                     "# above kind\nkind: B\nlist:\n  - x\n  - y\n"
                     "---\t\n"
                     "kind: C\nlist:\n- x\n"
                     "---foo: not a marker\n"
                     "----: nor this\n"
                     "---\n"
                     "---\n"
                     "~\n"
                     "---\n"
                     "s: |\n  text\n  --- indented: content\n\n"
                     "---\n"
                     "last: true\n"
                     "---";
    CHECK_SAME(in, "#3 line 23 wide 0\ns: |\n  text\n  --- indented: content\n");
}

TEST(stream_block_scalars_end_at_markers)
{
    const char *in = "--- |\nroot text\n---\n"
                     "--- |+\n keep\n\n\n---\n"
                     "--- >\n folded\n line\n---\n"
                     "a: |\n  x\n---\n"
                     "b: plain\n  continued\n---\nc: 1\n";
    CHECK_SAME(in, "#3 line 13 wide 0\na: |\n  x\n");
}

TEST(stream_line_breaks_as_the_loader_counts_them)
{
    /* CRLF throughout, then lone CRs (a line break to YAML; no cut is made after one), then an error */
    const char *in = "a: 1\r\nb: 2\r\n---\r\nc: 3\r\n---\r\nd: 4\re: 5\r---\rf: 6\n---\ng: [\n";
    CHECK_SAME(in, "ERROR out:12: invalid YAML");
}

TEST(stream_directives_and_document_ends)
{
    const char *in = "%YAML 1.2\n---\na: 1\n...\n%YAML 1.2\n---\nb: 2\n...\nc: 3\n...\n---\nd: 4\n";
    CHECK_SAME(in, "#3 line 12 wide 0\nd: 4\n");
    /* a directive without the end marker before it: an error, whichever way it is read */
    CHECK_SAME("a: 1\n---\nb: 2\n%YAML 1.2\n---\nc: 3\n", "ERROR out:4: invalid YAML");
}

TEST(stream_errors_name_the_line_in_the_whole_output)
{
    buf b = {0};
    for (int i = 0; i < 40; i++)
        buf_printf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm%d\ndata:\n  k: v\n", i);
    size_t good = b.len;
    buf_puts(&b, "---\nkind: X\nspec:\n  a: 1\n  b: 2\n  a: 3\n"); /* lines 281-286: duplicate key at 286 */
    buf_putc(&b, 0);
    CHECK_SAME(b.data, "ERROR out:286: duplicate key \"a\"");
    b.len = good;
    buf_puts(&b, "---\nkind: X\nspec: {a: 1\n---\nkind: Y\n");
    buf_putc(&b, 0);
    CHECK_SAME(b.data, "ERROR out:284: invalid YAML");
    b.len = good;
    buf_puts(&b, "---\nkind: X\nspec:\n  a: \"\xff\"\n");
    buf_putc(&b, 0);
    CHECK_SAME(b.data, "ERROR out:284: invalid UTF-8");
    b.len = good;
    buf_puts(&b, "---\nkind: X\nspec: !custom 1\n");
    buf_putc(&b, 0);
    CHECK_SAME(b.data, "ERROR out:283: unsupported tag");
    b.len = good;
    buf_puts(&b, "---\nkind: X\nspec: *nowhere\n");
    buf_putc(&b, 0);
    CHECK_SAME(b.data, "ERROR out:283: unknown anchor");
    buf_free(&b);
}

TEST(stream_anchors_stay_in_their_document)
{
    CHECK_SAME("a: &x {k: v}\nb: *x\n---\nc: *x\n", "ERROR out:4: unknown anchor *x");
}

TEST(stream_marker_inside_quotes_or_flow_is_an_error_both_ways)
{
    /* YAML forbids a document marker there; libfyaml refuses it, and so does a piece cut at it */
    const char *cases[] = {"a: 1\n---\nb: \"one\n---\ntwo\"\n", "a: 1\n---\nb: 'one\n---\ntwo'\n", "a: 1\n---\nb: [x,\n---\n]\n"};
    for (size_t i = 0; i < 3; i++) {
        char *whole = trace_whole(cases[i], strlen(cases[i]));
        char *cut = trace_stream(cases[i], strlen(cases[i]), 1, 1);
        CHECK(strstr(whole, "ERROR out:4: invalid YAML"));
        CHECK(strstr(cut, "ERROR out:"));
        free(whole);
        free(cut);
    }
}

TEST(stream_byte_order_mark_and_empty_streams)
{
    CHECK_SAME("\xef\xbb\xbf" "a: 1\n---\nb: 2\n", "#1 line 3 wide 0\nb: 2\n");
    char *none = trace_stream("", 0, 0, 1);
    CHECK_STR(none, "");
    free(none);
    CHECK_SAME("---\n...\n---\n", "");
}

/* The stream holds the documents not parsed yet, not the whole output: text already parsed is dropped. */
static size_t docs_seen;
static int count_doc(void *ud, node *root, uint32_t index, uint32_t line, int seq_wide)
{
    docs_seen++;
    return 0;
}

TEST(stream_parses_while_it_is_fed)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    docs_seen = 0;
    yaml_stream *s = yaml_stream_new(a, st, NULL, "out", count_doc, NULL);
    static const char doc[] = "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n";
    size_t fed = 0;
    while (fed < 1024 * 1024) { /* 1 MiB of output: documents arrive long before the end */
        CHECK(yaml_stream_feed(s, doc, sizeof doc - 1) == 0);
        fed += sizeof doc - 1;
    }
    CHECK(docs_seen > 0 && docs_seen >= fed / (sizeof doc - 1) - (64 * 1024) / (sizeof doc - 1) - 1);
    CHECK(yaml_stream_end(s) == 0);
    CHECK(docs_seen == fed / (sizeof doc - 1));
    yaml_stream_free(s);
    strtab_release(st);
    arena_free(a);
}

/* A callback that refuses (a limit) stops the stream: the error stands and nothing more is parsed. */
static int refuse_third(void *ud, node *root, uint32_t index, uint32_t line, int seq_wide)
{
    docs_seen++;
    return index == 2 ? fail("out", (int)line, "too many") : 0;
}

TEST(stream_stops_when_the_callback_refuses)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    docs_seen = 0;
    diag_reset();
    yaml_stream *s = yaml_stream_new(a, st, NULL, "out", refuse_third, NULL);
    yaml_stream_piece_bytes(s, 1);
    int rc = 0;
    for (int i = 0; i < 10 && rc == 0; i++)
        rc = yaml_stream_feed(s, "---\na: 1\n", 9);
    CHECK(rc < 0);
    CHECK(docs_seen == 3);
    CHECK_STR(diag_message(), "out:6: too many");
    CHECK(yaml_stream_feed(s, "---\na: 1\n", 9) < 0 && yaml_stream_end(s) < 0 && docs_seen == 3);
    yaml_stream_free(s);
    diag_reset();
    strtab_release(st);
    arena_free(a);
}
