/* fuzz_flux_values: the HelmRelease step's own parsers (src/flux): helm's --set syntax as ReplacePathValue runs it
 * (flux_replace_path_value, plain, quoted and literal), fluxcd/pkg's composition of values (flux_chart_values)
 * and the base64 of a Secret's data. The values that come out must emit to YAML that our loader reads back. The
 * same two lines are also an OCIRepository's semverFilter and a tag, its ref.semver and tags (one a line) to pick
 * from, and two GitRepository URLs compared.
 *
 * Input format: the first line is a targetPath, the rest its value; the first byte's low bit picks literal. The
 * same text is also a Secret's base64 data and a ConfigMap's values.yaml. NUL bytes end the input; text that is
 * not UTF-8 is skipped (the loader refuses it before any of this runs). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flux/internal.h"
#include "util/fsutil.h"
#include "fuzz_common.h"

static void reparse(arena *a, strtab *st, const node *n, const char *what)
{
    buf b = {0};
    emit_yaml(&b, n, NULL);
    node *back = NULL;
    diag_detail d;
    if (yaml_load_one_into(a, st, NULL, "emitted", b.data ? b.data : "", b.len, &back, &d) < 0)
        fz_die(what, "the values emitted do not load back: %s\n%s", d.message, buf_cstr(&b));
    buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t n = strnlen((const char *)data, size);
    char *text = malloc(n + 1);
    memcpy(text, data, n);
    text[n] = 0;
    /* what reaches these parsers was read by our loader first: valid UTF-8 */
    if (utf8_check((const unsigned char *)text, n) != n) {
        free(text);
        return 0;
    }
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    char *nl = strchr(text, '\n');
    const char *path = text, *value = nl ? nl + 1 : "";
    if (nl)
        *nl = 0;
    bool literal = n && (data[0] & 1);
    node *inl = NULL;
    const char *inline_yaml = "image:\n  tag: inline\nlist: [a, b, c]\nnested: {a: {b: [1, {c: d}]}}\n";
    yaml_load_one(a, st, NULL, "inline", inline_yaml, strlen(inline_yaml), &inl);
    /* ReplacePathValue over the inline values' maps, as the first targetPath of a HelmRelease meets them */
    node *m = flux_merge_maps(a, NULL, inl);
    diag_detail why;
    diag_detail *outer = diag_capture(&why);
    int rc = flux_replace_path_value(a, m, path, value, literal);
    diag_restore(outer);
    if (rc == 0)
        reparse(a, st, m, "replace_path_value");
    else if (!why.failed || !why.unplaced || !*why.message)
        fz_die("replace_path_value", "an error without a reason");
    /* the whole composition: a ConfigMap of this text, a Secret of it as base64, a targetPath */
    size_t dl;
    const char *dec = flux_base64_decode(a, value, &dl);
    node *cm = node_map(a), *sec = node_map(a);
    map_set(a, cm, "values.yaml", node_str(a, value));
    map_set(a, cm, "v", node_str(a, value));
    if (dec && strlen(dec) == dl)
        map_set(a, sec, "values.yaml", node_str(a, dec));
    flux_values_source src[] = {{"ConfigMap", "c", "ns", cm}, {"Secret", "s", "ns", sec}};
    flux_values_ref refs[] = {{.kind = "ConfigMap", .name = "c"},
                              {.kind = "Secret", .name = "s", .optional = true},
                              {.kind = "ConfigMap", .name = "c", .key = "v", .target_path = path, .literal = literal}};
    node *out;
    long bad;
    outer = diag_capture(&(diag_detail){0});
    if (flux_chart_values(a, st, NULL, src, 2, "ns", inl, refs, 3, &out, &bad) == 0)
        reparse(a, st, out, "chart_values");
    diag_restore(outer);
    flux_shorten_name(a, text);
    /* an OCIRepository's semverFilter (the first line) against a tag (the rest): a pattern inside the RE2 subset
     * either compiles and matches or fails with a reason; one outside it never reaches pcre2 */
    diag_detail md;
    outer = diag_capture(&md);
    int mrc = flux_semver_filter_match(NULL, a, path, value);
    diag_restore(outer);
    if (mrc < 0 && (!md.failed || !md.unplaced || !md.message[0]))
        fz_die("semver_filter", "an error without a reason, or one already placed");
    if (flux_re2_subset_problem(path) && mrc >= 0)
        fz_die("semver_filter", "a pattern outside the RE2 subset was matched");
    /* an OCIRepository's ref.semver (the first line) over tags (the rest, one a line): a constraint that is refused
     * picks nothing; a tag picked is a strict version that satisfies it, and no later one is higher */
    const char *tags[16];
    size_t ntags = 0;
    for (const char *t = value; *t && ntags < 16;) {
        size_t n = strcspn(t, "\n");
        tags[ntags++] = arena_strndup(a, t, n);
        t += n + (t[n] == '\n');
    }
    long pick = flux_semver_pick(path, tags, ntags);
    if ((pick == -2) != (flux_semver_constraint_problem(path) != NULL))
        fz_die("semver_pick", "a refused constraint picked, or an accepted one refused");
    if (pick >= 0 && (flux_semver_check(path, tags[pick]) != 1 || !flux_semver_tag_version(tags[pick])))
        fz_die("semver_pick", "the tag picked is not a version that satisfies the constraint");
    /* a GitRepository's URL against the Application's: the comparison is symmetric */
    if (flux_git_same_url(a, path, value) != flux_git_same_url(a, value, path))
        fz_die("git_same_url", "the URL comparison is not symmetric");
    strtab_release(st);
    arena_free(a);
    free(text);
    diag_reset();
    return 0;
}
