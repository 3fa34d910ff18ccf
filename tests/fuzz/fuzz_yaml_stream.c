/* fuzz_yaml_stream: bytes -> yaml_load over the whole text, and the same bytes through yaml_stream (a child's output
 * as it arrives) fed 1 and 17 bytes at a time and all at once, parsed in parts of at least 1 and 40 bytes. Every
 * way must hand over the same documents (emitted with comments, with their index, line and sequence style) and
 * succeed or fail together, with the same message, with two exceptions where both fail but may say different things:
 * a document marker inside a quoted scalar or a flow collection (YAML forbids it; libfyaml and a part cut at the
 * marker report it at different places), and text that is not UTF-8 (the whole text is checked before anything is
 * parsed, a stream part by part, so an error in an earlier part comes first). Any other difference aborts. */
#include "fuzz_common.h"
#include "util/fsutil.h"
#include "yaml/load_part.h"

static int record(void *ud, node *root, uint32_t index, uint32_t line, int seq_wide)
{
    buf *b = ud;
    buf_printf(b, "#%u line %u wide %d\n", index, line, seq_wide);
    emit_opts o = {.seq_wide = seq_wide, .comments = true};
    emit_yaml(b, root, &o);
    return 0;
}

/* The documents handed over, then "ERROR <message>" when it failed; NUL-terminated, caller frees. */
static char *trace(arena *a, strtab *st, const uint8_t *data, size_t size, size_t step, size_t piece)
{
    buf b = {0};
    diag_reset();
    int rc = 0;
    if (!piece) {
        rc = yaml_load(a, st, limits_yaml(fz_limits()), "out", (const char *)data, size, record, &b);
    } else {
        yaml_stream *s = yaml_stream_new(a, st, limits_yaml(fz_limits()), "out", record, &b);
        yaml_stream_piece_bytes(s, piece);
        for (size_t at = 0; rc == 0 && at < size;) {
            size_t n = step && step < size - at ? step : size - at;
            rc = yaml_stream_feed(s, (const char *)data + at, n);
            at += n;
        }
        if (rc == 0)
            rc = yaml_stream_end(s);
        yaml_stream_free(s);
    }
    if (rc < 0)
        buf_printf(&b, "ERROR %s\n", diag_message());
    diag_reset();
    buf_putc(&b, 0);
    return b.data;
}

/* A line that is a document marker ("---" or "..." then a blank, a break or the end) inside a quoted scalar or a
 * flow collection: crudely, any marker line after a quote or a bracket in the text. Only used to excuse the error
 * message, never whether it fails. */
static bool marker_in_quotes_or_flow(const uint8_t *d, size_t n)
{
    bool opened = false;
    for (size_t i = 0; i < n; i++) {
        if (d[i] == '"' || d[i] == '\'' || d[i] == '[' || d[i] == '{')
            opened = true;
        if (opened && i + 3 <= n && (i == 0 || d[i - 1] == '\n' || d[i - 1] == '\r') &&
            (!memcmp(d + i, "---", 3) || !memcmp(d + i, "...", 3)))
            return true;
    }
    return false;
}

/* Two parse errors are the same error when they name the same line: libfyaml words its message for a broken last
 * line of a document by what it sees after it (the next document's "---" in the whole text, the end of the piece
 * in the stream: "invalid value after mapping" or "invalid block mapping key on same line as previous key"), but
 * both refuse the text at that line, which is what a render reports. */
static bool same_parse_error(const char *got, const char *want)
{
    if (!strcmp(got, want))
        return true;
    static const char syntax[] = ": invalid YAML: ";
    const char *g = strstr(got, syntax), *w = strstr(want, syntax);
    return g && w && g - got == w - want && !strncmp(got, want, (size_t)(g - got));
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const size_t steps[] = {1, 17, 0};
    static const size_t pieces[] = {1, 40};
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    char *want = trace(a, st, data, size, 0, 0);
    const char *want_err = strstr(want, "ERROR ");
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++)
        for (size_t j = 0; j < sizeof pieces / sizeof *pieces; j++) {
            char *got = trace(a, st, data, size, steps[i], pieces[j]);
            const char *got_err = strstr(got, "ERROR ");
            bool same;
            if (!want_err)
                same = !strcmp(got, want);
            else /* all or nothing: after an error only the error counts */
                same = got_err && (same_parse_error(got_err, want_err) || marker_in_quotes_or_flow(data, size) ||
                                   memchr(data, 0, size) || utf8_check(data, size) != size);
            if (!same)
                fz_die("fuzz_yaml_stream", "fed %zu bytes at a time in parts of %zu:\n--- stream:\n%.3000s\n--- whole:\n%.3000s",
                       steps[i], pieces[j], got, want);
            free(got);
        }
    free(want);
    strtab_release(st);
    arena_free(a);
    return 0;
}
