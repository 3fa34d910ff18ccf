/* search-replace: matching by value, regex and path patterns, put-value and put-comment, the absolute-path case,
 * by-file-path, results, and config errors. */
#include <stdlib.h>

#include "check.h"
#include "fixture.h"
#include "functions/function.h"
#include "util/buf.h"
#include "util/diag.h"
#include "yaml/emit.h"
#include "yaml/load.h"


static int fx_run_config(struct fx *f, const char *config)
{
    return fx_apply(f, "search-replace", config, "fn-config.yaml");
}

/* data lines, each "key: value\n", indented under data: */
static int fx_run(struct fx *f, const char *data)
{
    return fx_run_config(f, arena_printf(f->a, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n%s", data));
}

/* The same run as the catalog release vMAJ.MIN.PAT would do it (data NULL: no config at all). */
static int fx_run_pinned(struct fx *f, int maj, int min, int pat, const char *data)
{
    node *cfg = NULL;
    if (data) {
        const char *text = arena_printf(f->a, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n%s", data);
        yaml_load_one(f->a, f->st, NULL, "fn-config.yaml", text, strlen(text), &cfg);
    }
    fn_ctx c = {.a = f->a, .st = f->st, .items = &f->items, .config = cfg, .config_file = "fn-config.yaml",
                .results = &f->results, .version = {true, maj, min, pat}};
    return fn_lookup("search-replace")->run(&c);
}

static const char *dump(struct fx *f, size_t i)
{
    buf b = {0};
    emit_opts o = {.seq_wide = false, .comments = true};
    emit_yaml(&b, f->items.v[i]->root, &o);
    const char *s = arena_strdup(f->a, buf_cstr(&b));
    buf_free(&b);
    return s;
}

static const char *msg(struct fx *f, size_t i)
{
    return i < f->results.n ? f->results.v[i].message : "(none)";
}

#define DEPLOY                                                                                                         \
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: the-deployment\n  namespace: my-space\n"             \
    "spec:\n  replicas: 3\n  template:\n    spec:\n      containers:\n      - name: nginx\n"                        \
    "        image: nginx:1.7.1\n      - name: sidecar\n        image: nginx:1.7.1\n"

TEST(search_replace_by_path_and_value_puts_value)
{
    struct fx f;
    fx_open(&f, DEPLOY);
    CHECK(fx_run(&f, "  by-path: metadata.name\n  by-value: the-deployment\n  put-value: my-deployment\n") == 0);
    CHECK_STR(path_str(f.items.v[0]->root, "metadata", "name", NULL), "my-deployment");
    CHECK(f.results.n == 1);
    CHECK_STR(msg(&f, 0), "Mutated field value to \"my-deployment\"");
    CHECK_STR(f.results.v[0].field, "metadata.name");
    CHECK(f.results.v[0].res == f.items.v[0] && f.results.v[0].severity == SEV_NONE);
    fx_close(&f);
}

TEST(search_replace_by_value_alone_matches_anywhere)
{
    struct fx f;
    fx_open(&f, DEPLOY);
    CHECK(fx_run(&f, "  by-value: nginx:1.7.1\n") == 0);
    CHECK(f.results.n == 2);
    CHECK_STR(msg(&f, 0), "Matched field value \"nginx:1.7.1\"");
    CHECK_STR(f.results.v[0].field, "spec.template.spec.containers[0].image");
    CHECK_STR(f.results.v[1].field, "spec.template.spec.containers[1].image");
    /* by-value is an exact comparison of the text */
    CHECK(fx_run(&f, "  by-value: nginx:1\n") == 0);
    CHECK(f.results.n == 3);
    CHECK_STR(msg(&f, 2), "no matches");
    fx_close(&f);
}

TEST(search_replace_regex_capture_groups)
{
    struct fx f;
    fx_open(&f, DEPLOY);
    CHECK(fx_run(&f, "  by-value-regex: nginx:(.*)\n  put-value: ubuntu:${1}\n") == 0);
    CHECK_STR(path_str(seq_item(path_get(f.items.v[0]->root, "spec", "template", "spec", "containers", NULL), 0),
                       "image", NULL),
              "ubuntu:1.7.1");
    CHECK(f.results.n == 2);
    /* the regex is unanchored; ${0} is the whole match */
    CHECK(fx_run(&f, "  by-value-regex: '1\\.7'\n  by-path: '**.image'\n  put-value: '<${0}>'\n") == 0);
    CHECK_STR(path_str(seq_item(path_get(f.items.v[0]->root, "spec", "template", "spec", "containers", NULL), 1),
                       "image", NULL),
              "<1.7>");
    /* the catalog's own quirk: without a regex, ${1} is left as written */
    CHECK(fx_run(&f, "  by-value: my-space\n  put-value: ns-${1}\n") == 0);
    CHECK_STR(path_str(f.items.v[0]->root, "metadata", "namespace", NULL), "ns-${1}");
    fx_close(&f);
}

TEST(search_replace_path_patterns)
{
    static const struct {
        const char *pattern;
        int matches;
    } cases[] = {
        {"metadata.name", 1},
        {"metadata.*", 2},
        {"**.image", 2},
        {"**.name", 3},
        {"spec.**.containers[*].image", 2},
        {"spec.template.spec.containers[1].image", 1},
        {"spec.template.spec.*[0].name", 1},
        {"spec.template.spec.containers", 0}, /* a sequence is no scalar, and no put-comment */
        {"**", 9},
        {"spec.*", 1},
        {"*.replicas", 1},
        {"metadata.name.x", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct fx f;
        fx_open(&f, DEPLOY);
        CHECK(fx_run(&f, arena_printf(f.a, "  by-path: '%s'\n", cases[i].pattern)) == 0);
        size_t want = cases[i].matches ? (size_t)cases[i].matches : 1;
        if (f.results.n != want) {
            char m[256];
            snprintf(m, sizeof m, "pattern %s: %zu results, want %zu", cases[i].pattern, f.results.n, want);
            test_fail(__FILE__, __LINE__, m);
            fx_close(&f);
            return;
        }
        if (!cases[i].matches)
            CHECK_STR(msg(&f, 0), "no matches");
        fx_close(&f);
    }
}

TEST(search_replace_keys_with_dots_split_like_the_path)
{
    struct fx f;
    fx_open(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n"
                "    example.com/team: blue\n");
    CHECK(fx_run(&f, "  by-path: metadata.annotations.example.com/team\n  by-value: blue\n  put-value: red\n") == 0);
    CHECK_STR(path_str(f.items.v[0]->root, "metadata", "annotations", "example.com/team", NULL), "red");
    /* the absolute-path case finds the dotted key too, and creates a missing one level per element */
    CHECK(fx_run(&f, "  by-path: metadata.annotations.example.com/team\n  put-value: green\n") == 0);
    CHECK_STR(path_str(f.items.v[0]->root, "metadata", "annotations", "example.com/team", NULL), "green");
    CHECK(fx_run(&f, "  by-path: metadata.labels.app.kubernetes.io/name\n  put-value: x\n") == 0);
    CHECK_STR(path_str(f.items.v[0]->root, "metadata", "labels", "app", "kubernetes", "io/name", NULL), "x");
    fx_close(&f);
}

TEST(search_replace_put_value_clears_tag_keeps_style)
{
    struct fx f;
    fx_open(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  quoted: \"8080\"\n  plain: abc\n"
                "  tagged: !!str 5\n  single: 'x'\n");
    CHECK(fx_run(&f, "  by-path: data.*\n  put-value: '9090'\n") == 0);
    CHECK_STR(dump(&f, 0), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  quoted: \"9090\"\n"
                           "  plain: 9090\n  tagged: 9090\n  single: '9090'\n");
    fx_close(&f);
}

TEST(search_replace_absolute_path_creates_on_every_item)
{
    struct fx f;
    fx_open(&f, "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n"
                "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: \"1\" # keep\n"
                "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n");
    CHECK(fx_run(&f, "  by-path: data.x\n  put-value: '2'\n") == 0);
    CHECK_STR(path_str(f.items.v[0]->root, "data", "x", NULL), "2");
    CHECK_STR(dump(&f, 1), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: \"2\" # keep\n");
    CHECK_STR(dump(&f, 2), "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\ndata:\n  x: 2\n");
    CHECK(f.results.n == 3);
    CHECK_STR(msg(&f, 2), "Mutated field value to \"2\"");
    CHECK_STR(f.results.v[2].field, "data.x");
    /* a null on the way is replaced by a map */
    CHECK(fx_run(&f, "  by-path: spec.type\n  put-value: ClusterIP\n") == 0);
    CHECK_STR(path_str(f.items.v[2]->root, "spec", "type", NULL), "ClusterIP");
    fx_close(&f);

    fx_open(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata: text\n");
    CHECK(fx_run(&f, "  by-path: data.x\n  put-value: '2'\n") < 0);
    CHECK(strstr(diag_message(), "by-path data.x: `data` is a scalar, so nothing can be created under it") != NULL);
    fx_close(&f);
}

TEST(search_replace_absolute_path_through_list_index)
{
    struct fx f;
    fx_open(&f, DEPLOY);
    CHECK(fx_run(&f, "  by-path: spec.template.spec.containers.1.image\n  put-value: busybox\n") == 0);
    CHECK_STR(path_str(seq_item(path_get(f.items.v[0]->root, "spec", "template", "spec", "containers", NULL), 1),
                       "image", NULL),
              "busybox");
    CHECK(fx_run(&f, "  by-path: spec.template.spec.containers.7.image\n  put-value: busybox\n") == 0);
    CHECK_STR(msg(&f, f.results.n - 1), "no matches");
    /* a missing list is not made up as a map keyed "0", and nothing is left behind */
    CHECK(fx_run(&f, "  by-path: spec.volumes.0.name\n  put-value: data\n") == 0);
    CHECK_STR(msg(&f, f.results.n - 1), "no matches");
    CHECK(path_get(f.items.v[0]->root, "spec", "volumes", NULL) == NULL);
    fx_close(&f);
}

TEST(search_replace_put_comment)
{
    struct fx f;
    fx_open(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: nginx-urls\ndata:\n  FQDN: nginx.com\n"
                "  URL: https://nginx.com/bar\n  OTHER: x\n");
    CHECK(fx_run(&f, "  by-path: data.**\n  by-value-regex: (.*)nginx.com(.*)\n"
                     "  put-comment: 'kpt-set: ${1}${host}${2}'\n") == 0);
    CHECK_STR(dump(&f, 0), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: nginx-urls\ndata:\n"
                           "  FQDN: nginx.com # kpt-set: ${host}\n"
                           "  URL: https://nginx.com/bar # kpt-set: https://${host}/bar\n  OTHER: x\n");
    CHECK(f.results.n == 2);
    CHECK_STR(msg(&f, 0), "Mutated field value to \"nginx.com # kpt-set: ${host}\"");
    /* a comment given with its '#' is not doubled */
    CHECK(fx_run(&f, "  by-value: x\n  put-comment: '# hello'\n") == 0);
    CHECK_STR(node_comment(path_get(f.items.v[0]->root, "data", "OTHER", NULL)), "hello");
    fx_close(&f);
}

TEST(search_replace_put_comment_on_sequence_key)
{
    struct fx f;
    fx_open(&f, "apiVersion: v1\nkind: Env\nmetadata:\n  name: e\nspec:\n  environments: [dev, stage]\n  other: [a]\n"
                "  empty: []\n");
    CHECK(fx_run(&f, "  by-path: '**.environments'\n  put-comment: 'kpt-set: ${env}'\n") == 0);
    CHECK_STR(dump(&f, 0), "apiVersion: v1\nkind: Env\nmetadata:\n  name: e\nspec:\n  environments: # kpt-set: ${env}\n"
                           "  - dev\n  - stage\n  other: [a]\n  empty: []\n");
    CHECK(f.results.n == 1);
    CHECK_STR(msg(&f, 0), "Mutated field value to \"[dev, stage]\"");
    CHECK_STR(f.results.v[0].field, "**.environments # kpt-set: ${env}");
    fx_close(&f);
}

TEST(search_replace_by_file_path)
{
    struct fx f;
    fx_open(&f, NULL);
    const char *cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: setters\ndata:\n  project-id: project-id\n";
    fx_add(&f, "resources.yaml", cm);
    fx_add(&f, "setters.yaml", cm);
    fx_add(&f, "subpkg/setters.yaml", cm);
    CHECK(fx_run(&f, "  by-value: project-id\n  by-file-path: '**/setters.yaml'\n  put-value: new-project\n") == 0);
    CHECK_STR(path_str(f.items.v[0]->root, "data", "project-id", NULL), "project-id");
    CHECK_STR(path_str(f.items.v[1]->root, "data", "project-id", NULL), "new-project");
    CHECK_STR(path_str(f.items.v[2]->root, "data", "project-id", NULL), "new-project");
    CHECK(fx_run(&f, "  by-value: new-project\n  by-file-path: 'setters.yaml'\n") == 0);
    CHECK(f.results.n == 3);
    CHECK(f.results.v[2].res == f.items.v[1]);
    fx_close(&f);
}

TEST(search_replace_config_errors)
{
    static const struct {
        const char *config;
        const char *message;
    } cases[] = {
        {"- a\n- b\n", "search-replace needs a ConfigMap"},
        {"just text\n", "search-replace needs a ConfigMap"},
        {"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata: [a]\n", "data must be a map"},
        {"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  by-name: x\n",
         "invalid matcher \"by-name\", must be one of [\"by-value\" \"by-file-path\" \"by-value-regex\" \"by-path\" "
         "\"put-value\" \"put-comment\"]"},
        {"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  by-value: [x]\n", "by-value must be a string"},
        {"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  by-value: a\n  by-value-regex: b\n",
         "only one of [\"by-value\", \"by-value-regex\"] can be provided"},
        {"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  by-value-regex: '(a'\n",
         "by-value-regex \"(a\" does not compile: missing closing parenthesis"},
        {"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  by-value-regex: '(a)'\n  put-value: '${2}'\n",
         "put-value refers to ${2} but by-value-regex has 1 capture group(s)"},
        {"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  by-value-regex: 'a'\n  put-comment: '${1}'\n",
         "put-comment refers to ${1} but by-value-regex has 0 capture group(s)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct fx f;
        fx_open(&f, DEPLOY);
        int rc = fx_run_config(&f, cases[i].config);
        if (rc >= 0 || !strstr(diag_message(), cases[i].message)) {
            char m[1024];
            snprintf(m, sizeof m, "case %zu: rc %d, message \"%s\", want \"%s\"", i, rc, diag_message(),
                     cases[i].message);
            test_fail(__FILE__, __LINE__, m);
            fx_close(&f);
            return;
        }
        CHECK_STR(path_str(f.items.v[0]->root, "metadata", "name", NULL), "the-deployment");
        fx_close(&f);
    }
}

TEST(search_replace_empty_values_count_as_missing)
{
    struct fx f;
    fx_open(&f, DEPLOY);
    CHECK(fx_run(&f, "  by-value: the-deployment\n  by-value-regex: ''\n  put-value:\n") == 0);
    CHECK(f.results.n == 1);
    CHECK_STR(msg(&f, 0), "Matched field value \"the-deployment\"");
    fx_close(&f);
}

TEST(search_replace_latest_needs_no_matcher)
{
    /* v0.2.0 dropped v0.1.1's rule: a config that matches nothing (no config, no data, only put-value) says so */
    static const char *const configs[] = {NULL, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n",
                                          "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n"
                                          "  put-value: a\n"};
    for (size_t i = 0; i < 3; i++) {
        struct fx f;
        fx_open(&f, DEPLOY);
        CHECK(fx_run_config(&f, configs[i]) == 0);
        CHECK(f.results.n == 1);
        CHECK_STR(msg(&f, 0), "no matches");
        CHECK_STR(dump(&f, 0), DEPLOY);
        fx_close(&f);
    }
    struct fx f;
    fx_open(&f, DEPLOY);
    CHECK(fx_run_pinned(&f, 0, 2, 0, "  put-comment: x\n") == 0);
    CHECK_STR(msg(&f, 0), "no matches");
    fx_close(&f);
}

static bool pinned_fails_with(int maj, int min, int pat, const char *data, const char *want)
{
    struct fx f;
    fx_open(&f, DEPLOY);
    int rc = fx_run_pinned(&f, maj, min, pat, data);
    bool ok = rc < 0 && strstr(diag_message(), want);
    if (!ok) {
        char m[1024];
        snprintf(m, sizeof m, "v%d.%d.%d: rc %d, message \"%s\", want \"%s\"", maj, min, pat, rc, diag_message(),
                 want);
        test_fail(__FILE__, __LINE__, m);
    }
    fx_close(&f);
    return ok;
}

TEST(search_replace_v0_1_1_needs_a_matcher_and_known_keys)
{
    CHECK(pinned_fails_with(0, 1, 1, "  put-value: a\n",
                            "fn-config.yaml:6: at least one of [\"by-value\", \"by-value-regex\", \"by-path\"] must be "
                            "provided"));
    CHECK(pinned_fails_with(0, 1, 1, NULL, "at least one of"));
    CHECK(pinned_fails_with(0, 1, 1, "  by-value: x\n  by-name: y\n",
                            "invalid matcher \"by-name\", must be one of [\"by-value\" \"by-value-regex\" \"by-path\" "
                            "\"put-value\" \"put-comment\"]"));
    /* by-file-path came in v0.2.0 */
    CHECK(pinned_fails_with(0, 1, 1, "  by-value: x\n  by-file-path: a.yaml\n", "invalid matcher \"by-file-path\""));
    struct fx f;
    fx_open(&f, DEPLOY);
    CHECK(fx_run_pinned(&f, 0, 1, 1, "  by-value: nope\n") == 0);
    CHECK(f.results.n == 1);
    CHECK_STR(msg(&f, 0), "no matches");
    fx_close(&f);
}

TEST(search_replace_v0_1_0_ignores_unknown_keys_and_reports_no_misses)
{
    struct fx f;
    fx_open(&f, DEPLOY);
    CHECK(fx_run_pinned(&f, 0, 1, 0, "  by-name: x\n  by-value: the-deployment\n  put-value: renamed\n") == 0);
    CHECK_STR(path_str(f.items.v[0]->root, "metadata", "name", NULL), "renamed");
    CHECK(f.results.n == 1);
    CHECK_STR(msg(&f, 0), "Mutated field value to \"renamed\"");
    /* nothing matched, or nothing to match with: no result at all, and no error */
    CHECK(fx_run_pinned(&f, 0, 1, 0, "  by-value: nope\n") == 0);
    CHECK(fx_run_pinned(&f, 0, 1, 0, "  put-value: a\n") == 0);
    CHECK(fx_run_pinned(&f, 0, 1, 0, NULL) == 0);
    CHECK(f.results.n == 1);
    fx_close(&f);
    /* by-value with by-value-regex was already an error */
    CHECK(pinned_fails_with(0, 1, 0, "  by-value: a\n  by-value-regex: b\n", "only one of"));
    /* ignoring by-file-path would edit every file: refused (a deliberate deviation) */
    CHECK(pinned_fails_with(0, 1, 0, "  by-value: x\n  by-file-path: a.yaml\n",
                            "by-file-path is not supported by search-replace v0.1.0"));
}
