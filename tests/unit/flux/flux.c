/* src/flux without helm: helm-controller's release names (internal/release/name_test.go, the docs' example as the
 * code computes it) and fluxcd/pkg's values composition (chartutil/values_test.go: TestChartValuesFromReferences and
 * TestReplacePathValue, case by case, plus the aliasing of nested inline values the research calls out). */
#include "check.h"
#include "flux/internal.h"
#include "flux/sha256.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/diag.h"
#include "yaml/emit.h"
#include "yaml/load.h"

TEST(flux_sha256_vectors)
{
    /* FIPS 180-4 examples */
    sha256_ctx c;
    char hex[65];
    sha256_init(&c);
    sha256_hex(&c, hex);
    CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    sha256_init(&c);
    sha256_update(&c, "abc", 3);
    sha256_hex(&c, hex);
    CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    sha256_init(&c);
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    sha256_update(&c, two, 20);
    sha256_update(&c, two + 20, strlen(two) - 20);
    sha256_hex(&c, hex);
    CHECK_STR(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

/* helm-controller internal/release/name_test.go TestShortName */
TEST(flux_shorten_name_cases)
{
    arena *a = arena_new();
    CHECK_STR(flux_shorten_name(a, "release-name"), "release-name");
    CHECK_STR(flux_shorten_name(a, "release-name-with-very-long-name-which-is-longer-than-53-characters"),
              "release-name-with-very-long-name-which-i-788ca0d0d7b0");
    CHECK_STR(flux_shorten_name(a, "another-release-name-with-very-long-name-which-is-longer-than-53-characters"),
              "another-release-name-with-very-long-name-7e72150d5a36");
    CHECK_STR(flux_shorten_name(a, ""), "");
    /* 53 characters stay as they are, 54 are shortened */
    CHECK_STR(flux_shorten_name(a, "abcdefghij-abcdefghij-abcdefghij-abcdefghij-abcdefghi"),
              "abcdefghij-abcdefghij-abcdefghij-abcdefghij-abcdefghi");
    CHECK(strlen(flux_shorten_name(a, "abcdefghij-abcdefghij-abcdefghij-abcdefghij-abcdefghij")) == 53);
    arena_free(a);
}

/* GetReleaseName: releaseName, else [targetNamespace-]name; the docs' example as the code shortens it (research
 * §3.3: the docs print a 41-character prefix, the code keeps 40). */
TEST(flux_release_name_composition)
{
    arena *a = arena_new();
    CHECK_STR(flux_release_name(a, NULL, NULL, "podinfo"), "podinfo");
    CHECK_STR(flux_release_name(a, "", "", "podinfo"), "podinfo");
    CHECK_STR(flux_release_name(a, NULL, "apps", "podinfo"), "apps-podinfo");
    CHECK_STR(flux_release_name(a, "custom", "apps", "podinfo"), "custom");
    CHECK_STR(flux_shorten_name(a, flux_release_name(a, NULL, "a-very-lengthy-target-namespace",
                                                     "with-a-nice-object-name")),
              "a-very-lengthy-target-namespace-with-a-n-97af5d7f41f3");
    arena_free(a);
}

static node *yaml(arena *a, strtab *st, const char *text)
{
    node *n = NULL;
    if (yaml_load_one(a, st, NULL, "test", text, strlen(text), &n) < 0)
        return NULL;
    return n;
}

static const char *json(arena *a, const node *n)
{
    buf b = {0};
    emit_json(&b, n);
    const char *s = arena_strndup(a, b.data ? b.data : "", b.len);
    buf_free(&b);
    return s;
}

/* ReplacePathValue over an empty map, as JSON; "ERR: <why>" on an error. */
static const char *replace(arena *a, const char *path, const char *value)
{
    node *m = node_map(a);
    diag_detail why;
    diag_detail *outer = diag_capture(&why);
    int rc = flux_replace_path_value(a, m, path, value, false);
    diag_restore(outer);
    if (rc < 0)
        return arena_printf(a, "ERR: %s", why.unplaced ? why.message : "(not recorded with fail_here)");
    return json(a, m);
}

/* fluxcd/pkg chartutil/values_test.go TestReplacePathValue */
TEST(flux_replace_path_value_cases)
{
    arena *a = arena_new();
    CHECK_STR(replace(a, "outer.inner", "value"), "{\"outer\":{\"inner\":\"value\"}}");
    CHECK_STR(replace(a, "name", "{a,b,c}"), "{\"name\":[\"a\",\"b\",\"c\"]}");
    CHECK_STR(replace(a, "name", "value1\\,value2"), "{\"name\":\"value1,value2\"}");
    CHECK_STR(replace(a, "merge.at.specific.path", "true"), "{\"merge\":{\"at\":{\"specific\":{\"path\":true}}}}");
    CHECK_STR(replace(a, "merge.at.specific.path", "\"true\""),
              "{\"merge\":{\"at\":{\"specific\":{\"path\":\"true\"}}}}");
    CHECK_STR(replace(a, "merge.at[2]", "value"), "{\"merge\":{\"at\":[null,null,\"value\"]}}");
    CHECK_STR(replace(a, "nodeSelector.kubernetes\\.io/role", "master"),
              "{\"nodeSelector\":{\"kubernetes.io/role\":\"master\"}}");
    /* helm's typedVal: ints (not with a leading 0), null, any case of true; a comma starts another assignment */
    CHECK_STR(replace(a, "n", "42"), "{\"n\":42}");
    CHECK_STR(replace(a, "n", "0"), "{\"n\":0}");
    CHECK_STR(replace(a, "n", "007"), "{\"n\":\"007\"}");
    CHECK_STR(replace(a, "n", "NULL"), "{\"n\":null}");
    CHECK_STR(replace(a, "n", "TRUE"), "{\"n\":true}");
    CHECK_STR(replace(a, "n", "'42'"), "{\"n\":\"42\"}");
    CHECK_STR(replace(a, "a", "1,b=2"), "{\"a\":1,\"b\":2}");
    CHECK_STR(replace(a, "a", ""), "{\"a\":\"\"}");
    CHECK_STR(replace(a, "a[0].b", "x"), "{\"a\":[{\"b\":\"x\"}]}");
    CHECK_STR(replace(a, "a", "x,"), "{\"a\":\"x\"}");
    CHECK_STR(replace(a, "a", "1,b"), "ERR: key \"b\" has no value");
    CHECK_STR(replace(a, "a[x]", "1"), "ERR: error parsing index: strconv.Atoi: parsing \"x\": invalid syntax");
    CHECK_STR(replace(a, "a[-1]", "1"), "ERR: negative -1 index not allowed");
    CHECK_STR(replace(a, "a[70000]", "1"), "ERR: index of 70000 is greater than maximum supported index of 65536");
    CHECK_STR(replace(a, "a", "{x,y"), "ERR: list must terminate with '}'");
    /* literal: the value whole, as a string */
    node *m = node_map(a);
    CHECK(flux_replace_path_value(a, m, "a.b", "1,c={d}", true) == 0);
    CHECK_STR(json(a, m), "{\"a\":{\"b\":\"1,c={d}\"}}");
    /* a name under a value that is not a map: helm's parser panics on the conversion and reports it */
    m = node_map(a);
    map_set(a, m, "a", node_str(a, "text"));
    CHECK(flux_replace_path_value(a, m, "a.b", "1", false) == -1);
    arena_free(a);
}

typedef struct values_case {
    flux_values_source src[4];
    size_t nsrc;
    flux_values_ref refs[4];
    size_t nrefs;
    const char *inline_yaml;
} values_case;

static const char *values(arena *a, strtab *st, const values_case *vc)
{
    node *out;
    long bad;
    diag_detail why;
    diag_detail *outer = diag_capture(&why);
    int rc = flux_chart_values(a, st, NULL, vc->src, vc->nsrc, "ns", vc->inline_yaml ? yaml(a, st, vc->inline_yaml) : NULL,
                               vc->refs, vc->nrefs, &out, &bad);
    diag_restore(outer);
    if (rc < 0)
        return arena_printf(a, "ERR[%ld]: %s", bad, why.unplaced ? why.message : "(not recorded with fail_here)");
    return json(a, out);
}

static node *data1(arena *a, const char *k, const char *v)
{
    node *d = node_map(a);
    if (k)
        map_set(a, d, k, node_str(a, v));
    return d;
}

/* fluxcd/pkg chartutil/values_test.go TestChartValuesFromReferences */
TEST(flux_chart_values_cases)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    values_case merges = {
        .src = {{"ConfigMap", "values", "ns", data1(a, "values.yaml", "flat: value\nnested:\n  configuration: value\n")},
                {"Secret", "values", "ns", data1(a, "values.yaml", "flat:\n  nested: value\nnested: value\n")}},
        .nsrc = 2,
        .refs = {{.kind = "ConfigMap", .name = "values"}, {.kind = "Secret", .name = "values"}},
        .nrefs = 2,
        .inline_yaml = "other: values\n"};
    CHECK_STR(values(a, st, &merges), "{\"flat\":{\"nested\":\"value\"},\"nested\":\"value\",\"other\":\"values\"}");

    values_case target = {.src = {{"Secret", "values", "ns", data1(a, "single", "value")}},
                          .nsrc = 1,
                          .refs = {{.kind = "Secret", .name = "values", .key = "single",
                                    .target_path = "merge.at.specific.path"}},
                          .nrefs = 1};
    CHECK_STR(values(a, st, &target), "{\"merge\":{\"at\":{\"specific\":{\"path\":\"value\"}}}}");

    /* "target path precedence over all": the write lands in the inline values' own list, through the map result
     * shares with them, so the final merge of the inline values brings it back over the ConfigMap's list */
    values_case precedence = {
        .src = {{"ConfigMap", "values", "ns",
                 data1(a, "values.yaml", "flat: value\nnested:\n  configuration:\n  - one\n  - two\n  - three\n")},
                {"Secret", "values", "ns", data1(a, "key", "value")}},
        .nsrc = 2,
        .refs = {{.kind = "Secret", .name = "values", .key = "key", .target_path = "nested.configuration[0]"},
                 {.kind = "ConfigMap", .name = "values"}},
        .nrefs = 2,
        .inline_yaml = "nested:\n  configuration:\n  - list\n  - item\n  - option\n"};
    CHECK_STR(values(a, st, &precedence),
              "{\"nested\":{\"configuration\":[\"value\",\"item\",\"option\"]},\"flat\":\"value\"}");

    values_case array_item = {
        .src = {{"ConfigMap", "values", "ns",
                 data1(a, "values.yaml", "flat: value\nnested:\n  configuration:\n  - list\n  - item\n  - option\n")},
                {"Secret", "values", "ns", data1(a, "values.yaml", "foo")}},
        .nsrc = 2,
        .refs = {{.kind = "ConfigMap", .name = "values"},
                 {.kind = "Secret", .name = "values", .target_path = "nested.configuration[1]"}},
        .nrefs = 2,
        .inline_yaml = "other: values\n"};
    CHECK_STR(values(a, st, &array_item),
              "{\"flat\":\"value\",\"nested\":{\"configuration\":[\"list\",\"foo\",\"option\"]},\"other\":\"values\"}");

    values_case missing_secret = {.refs = {{.kind = "Secret", .name = "missing"}}, .nrefs = 1};
    CHECK_STR(values(a, st, &missing_secret), "ERR[0]: could not resolve Secret chart values reference 'ns/missing' "
                                              "with key 'values.yaml': resource not found (not in the package)");
    values_case optional_secret = {.refs = {{.kind = "Secret", .name = "missing", .optional = true}}, .nrefs = 1};
    CHECK_STR(values(a, st, &optional_secret), "{}");
    values_case missing_cm = {.refs = {{.kind = "ConfigMap", .name = "missing"}}, .nrefs = 1};
    CHECK(!strncmp(values(a, st, &missing_cm), "ERR[0]: could not resolve ConfigMap", 35));
    values_case optional_cm = {.refs = {{.kind = "ConfigMap", .name = "missing", .optional = true}}, .nrefs = 1};
    CHECK_STR(values(a, st, &optional_cm), "{}");
    values_case missing_key = {.src = {{"Secret", "values", "ns", data1(a, NULL, NULL)}},
                               .nsrc = 1,
                               .refs = {{.kind = "Secret", .name = "values", .key = "nonexisting"}},
                               .nrefs = 1};
    CHECK_STR(values(a, st, &missing_key), "ERR[0]: could not resolve Secret chart values reference 'ns/values' with "
                                           "key 'nonexisting': key not found");
    missing_key.src[0].kind = "ConfigMap";
    missing_key.refs[0].kind = "ConfigMap";
    CHECK(!strncmp(values(a, st, &missing_key), "ERR[0]: could not resolve ConfigMap", 35));
    values_case unsupported = {.refs = {{.kind = "Unsupported", .name = "x"}}, .nrefs = 1};
    CHECK(strstr(values(a, st, &unsupported), "unsupported values reference kind") != NULL);
    values_case invalid = {.src = {{"ConfigMap", "values", "ns", data1(a, "values.yaml", "\ninvalid")}},
                           .nsrc = 1,
                           .refs = {{.kind = "ConfigMap", .name = "values"}},
                           .nrefs = 1};
    CHECK(strstr(values(a, st, &invalid), "failed to read values data") != NULL);
    /* an object in another namespace is not the one the release names */
    values_case other_ns = {.src = {{"ConfigMap", "values", "elsewhere", data1(a, "values.yaml", "a: 1")}},
                            .nsrc = 1,
                            .refs = {{.kind = "ConfigMap", .name = "values"}},
                            .nrefs = 1};
    CHECK(strstr(values(a, st, &other_ns), "resource not found") != NULL);
    strtab_release(st);
    arena_free(a);
}

/* The research's quirk (§3.4): a targetPath write under a parent the inline values also hold survives their final
 * merge; one at the top level, or under a parent they lack, is overridden by them. */
TEST(flux_chart_values_target_path_aliasing)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    values_case nested = {.src = {{"Secret", "s", "ns", data1(a, "tag", "from-secret")}},
                          .nsrc = 1,
                          .refs = {{.kind = "Secret", .name = "s", .key = "tag", .target_path = "image.tag"}},
                          .nrefs = 1,
                          .inline_yaml = "image:\n  tag: inline\n"};
    CHECK_STR(values(a, st, &nested), "{\"image\":{\"tag\":\"from-secret\"}}");
    values_case top = {.src = {{"Secret", "s", "ns", data1(a, "tag", "from-secret")}},
                       .nsrc = 1,
                       .refs = {{.kind = "Secret", .name = "s", .key = "tag", .target_path = "tag"}},
                       .nrefs = 1,
                       .inline_yaml = "tag: inline\n"};
    CHECK_STR(values(a, st, &top), "{\"tag\":\"inline\"}");
    /* a later plain reference overrides a top-level write; under a shared parent the inline values bring it back */
    values_case later = {.src = {{"Secret", "s", "ns", data1(a, "tag", "from-secret")},
                                 {"ConfigMap", "c", "ns", data1(a, "values.yaml", "image:\n  tag: from-cm\nx: cm\n")}},
                         .nsrc = 2,
                         .refs = {{.kind = "Secret", .name = "s", .key = "tag", .target_path = "image.tag"},
                                  {.kind = "Secret", .name = "s", .key = "tag", .target_path = "x"},
                                  {.kind = "ConfigMap", .name = "c"}},
                         .nrefs = 3,
                         .inline_yaml = "image:\n  pull: Always\n"};
    CHECK_STR(values(a, st, &later), "{\"image\":{\"pull\":\"Always\",\"tag\":\"from-secret\"},\"x\":\"cm\"}");
    strtab_release(st);
    arena_free(a);
}

TEST(flux_base64)
{
    arena *a = arena_new();
    size_t n;
    CHECK_STR(flux_base64_decode(a, "aGVsbG8=", &n), "hello");
    CHECK(n == 5);
    CHECK_STR(flux_base64_decode(a, "", &n), "");
    CHECK_STR(flux_base64_decode(a, "YWI=", &n), "ab");
    CHECK(flux_base64_decode(a, "aGVsbG8", &n) == NULL);
    CHECK(flux_base64_decode(a, "aG=sbG8=", &n) == NULL);
    CHECK(flux_base64_decode(a, "a$==", &n) == NULL);
    arena_free(a);
}

/* A merge is linear in its keys (review item A): merging 20,000 keys over 20,000 (half of them the same) compares
 * keys a few times per key, not once per key already merged (a search of the map per key: about 3 x 10^8). The
 * result keeps MergeMaps' order and values: x's keys, then y's new ones; y's value wins, maps over maps merge. */
TEST(flux_merge_maps_is_linear)
{
    arena *a = arena_new();
    enum { N = 20000 };
    node *x = node_map(a), *y = node_map(a);
    for (int i = 0; i < N; i++) {
        map_set(a, x, arena_printf(a, "k%d", i), node_str(a, "x"));
        map_set(a, y, arena_printf(a, "k%d", i + N / 2), node_str(a, "y"));
    }
    node *inner_x = node_map(a), *inner_y = node_map(a);
    map_set(a, inner_x, "a", node_str(a, "1"));
    map_set(a, inner_y, "b", node_str(a, "2"));
    map_set(a, x, "m", inner_x);
    map_set(a, y, "m", inner_y);
    size_t before = flux_merge_probes();
    node *m = flux_merge_maps(a, x, y);
    CHECK(flux_merge_probes() - before < (size_t)40 * N);
    CHECK(node_len(m) == N + N / 2 + 1);
    CHECK_STR(scalar(map_key(m, 0)), "k0");
    CHECK_STR(scalar(map_val(m, 0)), "x");
    CHECK_STR(scalar(map_key(m, N / 2)), "k10000");
    CHECK_STR(scalar(map_val(m, N / 2)), "y");
    CHECK_STR(scalar(map_key(m, N)), "m");
    CHECK_STR(json(a, map_val(m, N)), "{\"a\":\"1\",\"b\":\"2\"}");
    CHECK_STR(scalar(map_key(m, N + 1)), "k20000");
    CHECK(node_len(inner_x) == 1); /* the merged map is new: x's own is untouched */
    arena_free(a);
}

/* runesUntil copies what it reads, not the rest of the text (review item D): a list value of 20,000 items costs
 * kilobytes, not the 400 MB a copy of the remaining text per item took. */
TEST(flux_replace_path_value_list_is_linear)
{
    arena *a = arena_new();
    buf b = {0};
    buf_putc(&b, '{');
    for (int i = 0; i < 20000; i++)
        buf_puts(&b, "1,");
    buf_puts(&b, "2}");
    size_t before = mem_used();
    node *m = node_map(a);
    CHECK(flux_replace_path_value(a, m, "list", buf_cstr(&b), false) == 0);
    CHECK(node_len(map_get(m, "list")) == 20001);
    CHECK(mem_used() - before < (16u << 20));
    buf_free(&b);
    arena_free(a);
}

/* A list in a list counts toward helm's 30-level limit (review item D): "a[0][0]...[0]" 80,000 deep is an error
 * naming the limit, not 13 GB of recursion; 30 levels still parse. */
TEST(flux_replace_path_value_list_nesting_is_bounded)
{
    arena *a = arena_new();
    buf b = {0};
    buf_putc(&b, 'a');
    for (int i = 0; i < 80000; i++)
        buf_puts(&b, "[0]");
    size_t before = mem_used();
    const char *deep = replace(a, buf_cstr(&b), "1");
    CHECK(!strncmp(deep, "ERR: ", 5) && strstr(deep, "maximum supported nested level of 30"));
    CHECK(mem_used() - before < (16u << 20));
    node *m = node_map(a);
    CHECK(flux_replace_path_value(a, m, buf_cstr(&b), "1", true) == -1 &&
          strstr(diag_message(), "maximum supported nested level of 30"));
    CHECK_STR(replace(a, "a[0][0][0].b[1]", "1"), "{\"a\":[[[{\"b\":[null,1]}]]]}");
    b.len = 1 + 3 * 31; /* a and 31 indexes: the first and 30 lists in lists */
    CHECK(!strncmp(replace(a, arena_strndup(a, b.data, b.len), "1"), "{\"a\":[[", 7));
    buf_free(&b);
    arena_free(a);
}

/* helm's "# Source:" paths of crds/ files, and templates that only look like them (review item E) */
TEST(flux_source_in_crds_cases)
{
#define IN_CRDS(s) flux_source_in_crds(s, strlen(s))
    CHECK(IN_CRDS("demo/crds/widget.yaml"));
    CHECK(IN_CRDS("demo/crds/sub/widget.yaml"));
    CHECK(IN_CRDS("demo/charts/sub/crds/widget.yaml"));
    CHECK(IN_CRDS("demo/charts/sub/charts/deeper/crds/widget.yaml"));
    CHECK(!IN_CRDS("demo/templates/crds/widget.yaml"));
    CHECK(!IN_CRDS("demo/charts/sub/templates/crds/widget.yaml"));
    CHECK(!IN_CRDS("demo/templates/x/crds/widget.yaml"));
    CHECK(!IN_CRDS("demo/templates/objects.yaml"));
    CHECK(!IN_CRDS("crds/widget.yaml"));
    CHECK(!IN_CRDS("/crds/widget.yaml"));
    CHECK(!IN_CRDS("demo/crds/"));
    CHECK(!flux_source_in_crds("demo/crds/widget.yaml", 9)); /* the length bounds it */
#undef IN_CRDS
}

/* The attacker's case of review item A end to end: 3,000 inline keys and 1,000 targetPath references (each merge
 * of the inline values repeated, as fluxcd/pkg does) compare keys a bounded number of times per key merged, and the
 * result is merged in place, not copied per reference (180 MB of copies, near the 192 MB budget). */
TEST(flux_chart_values_many_target_paths_is_linear)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    enum { KEYS = 3000, REFS = 1000 };
    node *inl = node_map(a);
    for (int i = 0; i < KEYS; i++)
        map_set(a, inl, arena_printf(a, "k%d", i), node_str(a, "v"));
    flux_values_source src = {"ConfigMap", "c", "ns", data1(a, "v", "1")};
    flux_values_ref *refs = arena_alloc(a, REFS * sizeof *refs);
    for (int i = 0; i < REFS; i++)
        refs[i] = (flux_values_ref){.kind = "ConfigMap", .name = "c", .key = "v",
                                    .target_path = arena_printf(a, "t%d", i)};
    node *out;
    long bad;
    size_t before = flux_merge_probes(), mem = mem_used();
    CHECK(flux_chart_values(a, st, NULL, &src, 1, "ns", inl, refs, REFS, &out, &bad) == 0);
    CHECK(flux_merge_probes() - before < (size_t)40 * KEYS * (REFS + 1));
    CHECK(node_len(out) == KEYS + REFS); /* the inline values, and every targetPath key (the inline values lack them) */
    CHECK(mem_used() - mem < (16u << 20)); /* merged in place: a new map per reference took 180 MB */
    strtab_release(st);
    arena_free(a);
}
