/* fuzz_yaml: bytes -> yaml_load -> for every document emit_yaml -> parse again -> the same tree (values, kinds,
 * tags and the type kpt gives each scalar, so plain `true` against quoted "true" counts). Checked with comments
 * on and off, as in-place writes emit (source layouts kept), one document at a time and as the "---"-joined
 * stream render writes. emit_json must write valid JSON. Any difference aborts. */
#include "fuzz_common.h"

/* Single-quoted scalars are checked against the source: the text between the quotes with every '' made one ', and
 * lines folded as YAML folds them (a break between two lines becomes a space, n empty lines in between become n
 * line breaks, white space around breaks goes). Lines end at "\n", "\r\n" or a lone "\r". Only where the line is
 * ASCII up to the scalar, so that the column is a byte offset. */
static bool blank(char c)
{
    return c == ' ' || c == '\t';
}

/* the length of the line break at i, 0 if there is none */
static size_t brk(const char *s, size_t i, size_t len)
{
    if (i >= len || (s[i] != '\n' && s[i] != '\r'))
        return 0;
    return s[i] == '\r' && i + 1 < len && s[i + 1] == '\n' ? 2 : 1;
}

static void check_single_quoted(const char *src, size_t len, const size_t *line_start, size_t nlines, const node *n,
                                int depth)
{
    if (!n || depth > 600)
        return;
    if (!is_scalar(n)) {
        for (uint32_t i = 0; i < node_len(n); i++) {
            if (is_map(n)) {
                check_single_quoted(src, len, line_start, nlines, map_key(n, i), depth + 1);
                check_single_quoted(src, len, line_start, nlines, map_val(n, i), depth + 1);
            } else {
                check_single_quoted(src, len, line_start, nlines, seq_item(n, i), depth + 1);
            }
        }
        return;
    }
    uint32_t line = node_line(n), col = node_col(n);
    if (node_style(n) != ST_SINGLE || !line || line > nlines || col < 2 || col == 65535)
        return;
    size_t ls = line_start[line - 1], q = ls + col - 2; /* the opening quote */
    for (size_t i = ls; i <= q && i < len; i++)
        if ((unsigned char)src[i] >= 0x80 || src[i] == '\t')
            return;
    if (q >= len || src[q] != '\'')
        return;
    /* the raw lines up to the closing quote */
    size_t i = q + 1, e = i;
    for (; e < len; e++) {
        if (src[e] == '\'') {
            if (e + 1 < len && src[e + 1] == '\'') {
                e++;
                continue;
            }
            break;
        }
    }
    if (e >= len)
        return;
    buf want = {0};
    int empty_run = -1; /* -1: first line */
    for (size_t s = i; s <= e;) {
        size_t le = s;
        while (le < e && !brk(src, le, len))
            le++;
        size_t a = s, b = le;
        bool first = empty_run < 0, last = le == e;
        if (!first)
            while (a < b && blank(src[a]))
                a++;
        if (!last)
            while (b > a && blank(src[b - 1]))
                b--;
        if (!first && a == b && !last) {
            empty_run++;
        } else {
            if (!first)
                for (int k = 0; k < (empty_run ? empty_run : 1); k++)
                    buf_putc(&want, empty_run ? '\n' : ' ');
            for (size_t k = a; k < b; k++) {
                buf_putc(&want, src[k]);
                if (src[k] == '\'' && k + 1 < b && src[k + 1] == '\'')
                    k++;
            }
            empty_run = 0;
        }
        s = le + (le < e ? brk(src, le, len) : 1);
    }
    if (want.len != scalar_len(n) || (want.len && memcmp(want.data, scalar(n), want.len)))
        fz_die("fuzz_yaml", "single-quoted scalar at line %u column %u read as \"%.*s\", the source says \"%.*s\"", line,
               col, (int)(scalar_len(n) > 200 ? 200 : scalar_len(n)), scalar(n), (int)(want.len > 200 ? 200 : want.len),
               want.data ? want.data : "");
    buf_free(&want);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* alias bombs are the loader's business (tests/hostile); keep every run small enough to stay fast */
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    struct fz_docs docs = {0};
    diag_reset();
    /* the documents seen before a parse error are checked too: the loader hands them over as it goes */
    yaml_load(a, st, limits_yaml(fz_limits()), "fuzz.yaml", (const char *)data, size, fz_collect, &docs);
    diag_reset();
    { /* single-quoted scalars against their source (libfyaml 0.7.12 misreads runs of '') */
        /* lines as libfyaml counts them (\n, \r\n, a lone \r); not checked where NEL, LS or PS may break one */
        const char *text = (const char *)data;
        bool odd_breaks = memmem(data, size, "\xc2\x85", 2) || memmem(data, size, "\xe2\x80\xa8", 3) ||
                          memmem(data, size, "\xe2\x80\xa9", 3);
        size_t nlines = 1;
        for (size_t i = 0; i < size; i += brk(text, i, size) ? brk(text, i, size) : 1)
            nlines += brk(text, i, size) > 0;
        size_t *starts = malloc(nlines * sizeof *starts), k = 0;
        starts[k++] = 0;
        for (size_t i = 0; i < size;) {
            size_t b = brk(text, i, size);
            i += b ? b : 1;
            if (b)
                starts[k++] = i;
        }
        for (size_t i = 0; i < docs.n && !odd_breaks; i++)
            check_single_quoted((const char *)data, size, starts, nlines, docs.v[i], 0);
        free(starts);
    }
    for (size_t i = 0; i < docs.n; i++) {
        node *one[1] = {docs.v[i]};
        int w[1] = {docs.wide[i]};
        fz_check_stream(a, st, one, w, 1, true, "fuzz_yaml");
        fz_check_stream(a, st, one, w, 1, false, "fuzz_yaml");
        fz_check_stream_as(a, st, one, w, 1, true, true, "fuzz_yaml (in place)");
        fz_check_json(docs.v[i], "fuzz_yaml");
    }
    if (docs.n > 1)
        fz_check_stream(a, st, docs.v, docs.wide, docs.n, true, "fuzz_yaml (stream)");
    fz_docs_free(&docs);
    strtab_release(st);
    arena_free(a);
    diag_reset();
    return 0;
}
