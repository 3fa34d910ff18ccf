/* apply-setters, create-setters and list-setters, and the pattern matching they share. */
#include <stdlib.h>

#include "check.h"
#include "functions/krm/setters.h"
#include "util/diag.h"
#include "yaml/emit.h"
#include "yaml/load.h"

extern const fn_def fn_apply_setters, fn_create_setters, fn_list_setters;

struct env {
    arena *a;
    strtab *st;
    rlist items;
    fn_results results;
    fn_ctx c;
    const char *path; /* file of the documents being loaded */
};

static int take_doc(void *ud, node *root, uint32_t index, uint32_t line, int seq_wide)
{
    struct env *e = ud;
    resource *r = resource_new(e->a, root, NULL, e->path, index);
    r->seq_wide = (uint8_t)seq_wide;
    rlist_push(&e->items, r);
    return 0;
}

static void add_file(struct env *e, const char *path, const char *yaml)
{
    e->path = path;
    yaml_load(e->a, e->st, NULL, path, yaml, strlen(yaml), take_doc, e);
}

/* items: documents of resources.yaml; config: the functionConfig text, or NULL for none. */
static void env_init(struct env *e, const char *items, const char *config)
{
    memset(e, 0, sizeof *e);
    e->a = arena_new();
    e->st = strtab_new(e->a);
    if (items)
        add_file(e, "resources.yaml", items);
    node *cfg = NULL;
    if (config)
        yaml_load_one(e->a, e->st, NULL, "fn-config.yaml", config, strlen(config), &cfg);
    e->c = (fn_ctx){.a = e->a, .st = e->st, .items = &e->items, .config = cfg, .config_file = "fn-config.yaml",
                    .results = &e->results};
}

static void env_free(struct env *e)
{
    rlist_free(&e->items);
    free(e->results.v);
    strtab_release(e->st);
    arena_free(e->a);
}

static const char *emit_items(struct env *e)
{
    buf b = {0};
    for (size_t i = 0; i < e->items.n; i++) {
        if (!e->items.v[i])
            continue;
        if (b.len)
            buf_puts(&b, "---\n");
        emit_opts o = {.seq_wide = e->items.v[i]->seq_wide, .comments = true};
        emit_yaml(&b, e->items.v[i]->root, &o);
    }
    const char *s = arena_strndup(e->a, b.data ? b.data : "", b.len);
    buf_free(&b);
    return s;
}

/* All result messages, one per line, with severity and field when present. */
static const char *results_text(struct env *e)
{
    static const char *const sev[] = {"info", "warning", "error", "-"};
    buf b = {0};
    for (size_t i = 0; i < e->results.n; i++) {
        const fn_result *r = &e->results.v[i];
        buf_printf(&b, "%s|%s", sev[r->severity], r->message);
        if (r->field)
            buf_printf(&b, "|%s", r->field);
        buf_putc(&b, '\n');
    }
    const char *s = arena_strndup(e->a, b.data ? b.data : "", b.len);
    buf_free(&b);
    return s;
}

static bool failed_with(const char *part)
{
    return diag_failed() && strstr(diag_message(), part) != NULL;
}

/* apply-setters */

static const char *const catalog_resources =
    "apiVersion: apps/v1\n"
    "kind: Deployment\n"
    "metadata:\n"
    "  name: my-nginx\n"
    "spec:\n"
    "  replicas: 4 # kpt-set: ${nginx-replicas}\n"
    "  template:\n"
    "    spec:\n"
    "      containers:\n"
    "        - name: nginx\n"
    "          image: \"nginx:1.16.1\" # kpt-set: nginx:${tag}\n"
    "---\n"
    "apiVersion: v1\n"
    "kind: MyKind\n"
    "metadata:\n"
    "  name: foo\n"
    "environments: # kpt-set: ${env}\n"
    "  - dev\n"
    "  - stage\n";

TEST(apply_setters_catalog_simple)
{
    struct env e;
    env_init(&e, catalog_resources,
             "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: setters\ndata:\n"
             "  env: |-\n    - prod\n    - dev\n  nginx-replicas: \"3\"\n  tag: 1.16.2\n");
    CHECK(fn_apply_setters.run(&e.c) == 0);
    CHECK_STR(emit_items(&e), "apiVersion: apps/v1\n"
                              "kind: Deployment\n"
                              "metadata:\n"
                              "  name: my-nginx\n"
                              "spec:\n"
                              "  replicas: 3 # kpt-set: ${nginx-replicas}\n"
                              "  template:\n"
                              "    spec:\n"
                              "      containers:\n"
                              "        - name: nginx\n"
                              "          image: \"nginx:1.16.2\" # kpt-set: nginx:${tag}\n"
                              "---\n"
                              "apiVersion: v1\n"
                              "kind: MyKind\n"
                              "metadata:\n"
                              "  name: foo\n"
                              "environments: # kpt-set: ${env}\n"
                              "  - prod\n"
                              "  - dev\n");
    CHECK_STR(results_text(&e), "info|set field value to \"3\"|spec.replicas\n"
                                "info|set field value to \"nginx:1.16.2\"|spec.template.spec.containers[0].image\n"
                                "info|set field value to \"- prod\\n- dev\"|environments\n");
    env_free(&e);
}

TEST(apply_setters_recovers_unnamed_setters_from_the_current_value)
{
    struct env e;
    env_init(&e,
             "kind: X\nimage: nginx:1.7.1 # kpt-set: ${image}:${tag}\n"
             "host: app.dev.example.com # kpt-set: app.${stage}.${domain}.com\n",
             "kind: ConfigMap\ndata:\n  tag: 1.8.0\n  stage: prod\n");
    CHECK(fn_apply_setters.run(&e.c) == 0);
    CHECK_STR(emit_items(&e), "kind: X\nimage: nginx:1.8.0 # kpt-set: ${image}:${tag}\n"
                              "host: app.prod.example.com # kpt-set: app.${stage}.${domain}.com\n");
    env_free(&e);
}

TEST(apply_setters_unresolved_setter_is_an_error)
{
    struct env e;
    env_init(&e, "kind: X\nmetadata:\n  name: x\nname: foo # kpt-set: ${app}-${env}\n",
             "kind: ConfigMap\ndata:\n  env: prod\n");
    CHECK(fn_apply_setters.run(&e.c) < 0);
    CHECK(failed_with("values for setters [${app}] must be provided"));
    CHECK(failed_with("X/x"));
    env_free(&e);
}

TEST(apply_setters_clears_the_tag_and_keeps_the_quotes)
{
    struct env e;
    env_init(&e,
             "kind: X\na: !!str 4 # kpt-set: ${n}\nb: '4' # kpt-set: ${n}\nc: \"x\" # kpt-set: ${empty}\n"
             "d: x # kpt-set: ${empty}\ne: old # kpt-set: ${spaced}\n",
             "kind: ConfigMap\ndata:\n  n: \"3\"\n  empty: \"\"\n  spaced: a b\n");
    CHECK(fn_apply_setters.run(&e.c) == 0);
    CHECK_STR(emit_items(&e), "kind: X\na: 3 # kpt-set: ${n}\nb: '3' # kpt-set: ${n}\nc: \"\" # kpt-set: ${empty}\n"
                              "d: \"\" # kpt-set: ${empty}\ne: a b # kpt-set: ${spaced}\n");
    env_free(&e);
}

TEST(apply_setters_flow_list_becomes_block_with_the_comment_on_the_key)
{
    struct env e;
    env_init(&e, "kind: X\nenv: [a, b] # kpt-set: ${env}\n", "kind: ConfigMap\ndata:\n  env: '[x, y, z]'\n");
    CHECK(fn_apply_setters.run(&e.c) == 0);
    CHECK_STR(emit_items(&e), "kind: X\nenv: # kpt-set: ${env}\n- x\n- y\n- z\n");
    env_free(&e);
}

TEST(apply_setters_empty_value_gives_an_empty_flow_list)
{
    struct env e;
    env_init(&e, "kind: X\nenv: # kpt-set: ${env}\n  - a\n  - b\n", "kind: ConfigMap\ndata:\n  env: \"\"\n");
    CHECK(fn_apply_setters.run(&e.c) == 0);
    CHECK_STR(emit_items(&e), "kind: X\nenv: [] # kpt-set: ${env}\n");
    CHECK_STR(results_text(&e), "info|set field value to \"\"|env\n");
    /* and back: the comment now sits on the flow list, and a value fills it again */
    e.c.config = NULL;
    node *cfg = NULL;
    const char *y = "kind: ConfigMap\ndata:\n  env: \"- c\"\n";
    yaml_load_one(e.a, e.st, NULL, "c", y, strlen(y), &cfg);
    e.c.config = cfg;
    CHECK(fn_apply_setters.run(&e.c) == 0);
    CHECK_STR(emit_items(&e), "kind: X\nenv: # kpt-set: ${env}\n  - c\n");
    env_free(&e);
}

TEST(apply_setters_array_errors)
{
    struct env e;
    env_init(&e, "kind: X\nmetadata:\n  name: x\nenv: # kpt-set: ${env}\n- a\n", "kind: ConfigMap\ndata:\n  env: just-text\n");
    CHECK(fn_apply_setters.run(&e.c) < 0);
    CHECK(failed_with("input to array setter must be an array of values, but found \"just-text\""));
    env_free(&e);
    diag_reset();
    env_init(&e, "kind: X\nenv: # kpt-set: ${a}-${b}\n- a\n", "kind: ConfigMap\ndata:\n  a: x\n");
    CHECK(fn_apply_setters.run(&e.c) < 0);
    CHECK(failed_with("invalid setter pattern for array node: \"${a}-${b}\""));
    env_free(&e);
    diag_reset();
    env_init(&e, "kind: X\nenv: # kpt-set: ${env}\n- a\n", "kind: ConfigMap\ndata:\n  env: '[a, b'\n");
    CHECK(fn_apply_setters.run(&e.c) < 0);
    CHECK(failed_with("must be an array of values"));
    env_free(&e);
}

TEST(apply_setters_leaves_fields_of_other_setters_alone)
{
    struct env e;
    const char *in = "kind: X\nname: a # kpt-set: ${other}\nenv: # kpt-set: ${other-env}\n- dev\nplain: x # just a comment\n";
    env_init(&e, in, "kind: ConfigMap\ndata:\n  name: my-new-map\n");
    CHECK(fn_apply_setters.run(&e.c) == 0);
    CHECK_STR(emit_items(&e), in);
    CHECK_STR(results_text(&e), "-|no matches for input setter(s)\n");
    env_free(&e);
}

TEST(apply_setters_processes_kptfile_and_local_config)
{
    struct env e;
    env_init(&e,
             "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: local\n  annotations:\n"
             "    config.kubernetes.io/local-config: \"true\"\ndata:\n  v: a # kpt-set: ${v}\n",
             "kind: ConfigMap\ndata:\n  v: b\n");
    add_file(&e, "Kptfile", "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p # kpt-set: ${v}\n");
    CHECK(fn_apply_setters.run(&e.c) == 0);
    CHECK(strstr(emit_items(&e), "  v: b # kpt-set: ${v}\n") != NULL);
    CHECK(strstr(emit_items(&e), "  name: b # kpt-set: ${v}\n") != NULL);
    env_free(&e);
}

TEST(apply_setters_writes_values_as_given)
{
    /* A value that looks like a reference is text: it is not substituted again (the catalog would). */
    struct env e;
    env_init(&e, "kind: X\na: x # kpt-set: ${a}-${b}\n", "kind: ConfigMap\ndata:\n  a: ${b}\n  b: two\n");
    CHECK(fn_apply_setters.run(&e.c) == 0);
    CHECK_STR(emit_items(&e), "kind: X\na: ${b}-two # kpt-set: ${a}-${b}\n");
    env_free(&e);
}

TEST(apply_setters_bad_configs_fail_cleanly)
{
    const char *items = "kind: X\na: 1 # kpt-set: ${a}\n";
    struct {
        const char *config, *error;
    } cases[] = {
        {NULL, "needs a functionConfig"},
        {"just a string", "must be an object with a `data` map"},
        {"- a\n- b\n", "must be an object with a `data` map"},
        {"kind: ConfigMap\ndata: [a, b]\n", "`data` must be a mapping"},
        {"kind: ConfigMap\ndata: text\n", "`data` must be a mapping"},
        {"kind: ConfigMap\ndata:\n  a:\n", "setter \"a\" has no value"},
        {"kind: ConfigMap\ndata:\n  a: null\n", "setter \"a\" has no value"},
        {"kind: ConfigMap\ndata:\n  a:\n    b: c\n", "setter \"a\" must have a string value, not a mapping"},
        {"kind: ConfigMap\ndata:\n  a: [1, 2]\n", "setter \"a\" must have a string value, not a list"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        diag_reset();
        struct env e;
        env_init(&e, items, cases[i].config);
        int rc = fn_apply_setters.run(&e.c);
        bool ok = rc < 0 && failed_with(cases[i].error);
        if (!ok)
            fprintf(stderr, "case %zu: %s\n", i, diag_message());
        env_free(&e);
        CHECK(ok);
    }
    /* no data at all, or an empty one: nothing to set, as the catalog reports it */
    const char *empty[] = {"kind: ConfigMap\nmetadata:\n  name: x\n", "kind: ConfigMap\ndata: {}\n",
                           "kind: Whatever\ndata:\n"};
    for (size_t i = 0; i < 3; i++) {
        diag_reset();
        struct env e;
        env_init(&e, items, empty[i]);
        int rc = fn_apply_setters.run(&e.c);
        const char *res = results_text(&e);
        bool ok = rc == 0 && !strcmp(res, "-|no matches for input setter(s)\n");
        env_free(&e);
        CHECK(ok);
    }
}

static fn_version pinned(int major, int minor, int patch)
{
    return (fn_version){.pinned = true, .major = major, .minor = minor, .patch = patch};
}

TEST(apply_setters_v0_1_0_reports_nothing_and_takes_no_match_quietly)
{
    struct env e;
    env_init(&e, "kind: X\na: 1 # kpt-set: ${a}\n", "kind: ConfigMap\ndata:\n  a: \"2\"\n");
    e.c.version = pinned(0, 1, 0);
    CHECK(fn_apply_setters.run(&e.c) == 0);
    CHECK_STR(emit_items(&e), "kind: X\na: 2 # kpt-set: ${a}\n");
    CHECK_STR(results_text(&e), "");
    env_free(&e);
    const char *quiet[] = {"kind: ConfigMap\ndata:\n  other: x\n", "kind: ConfigMap\ndata: {}\n",
                           "kind: ConfigMap\nmetadata:\n  name: x\n"};
    for (size_t i = 0; i < 3; i++) {
        diag_reset();
        env_init(&e, "kind: X\na: 1 # kpt-set: ${a}\n", quiet[i]);
        e.c.version = pinned(0, 1, 0);
        int rc = fn_apply_setters.run(&e.c);
        bool ok = rc == 0 && !strcmp(results_text(&e), "") && !strcmp(emit_items(&e), "kind: X\na: 1 # kpt-set: ${a}\n");
        env_free(&e);
        CHECK(ok);
    }
}

TEST(apply_setters_v0_1_0_takes_patterns_literally)
{
    /* v0.1.0 read "${name}.${ns}.svc" as a regular expression, "." matching "-", and would have written a name it
     * made up from "web-prod-svc"; the pattern does not match, so the missing value is an error (a deviation) */
    struct env e;
    env_init(&e, "kind: X\nmetadata:\n  name: x\nhost: web-prod-svc # kpt-set: ${name}.${ns}.svc\n",
             "kind: ConfigMap\ndata:\n  ns: staging\n");
    e.c.version = pinned(0, 1, 0);
    CHECK(fn_apply_setters.run(&e.c) < 0);
    CHECK(failed_with("values for setters [${name}] must be provided"));
    env_free(&e);
}

TEST(apply_setters_v0_1_0_empty_list_value_is_an_error)
{
    struct env e;
    env_init(&e, "kind: X\nmetadata:\n  name: x\nenv: # kpt-set: ${env}\n- a\n", "kind: ConfigMap\ndata:\n  env: \"\"\n");
    e.c.version = pinned(0, 1, 0);
    CHECK(fn_apply_setters.run(&e.c) < 0);
    CHECK(failed_with("input to array setter must be an array of values, but found \"\""));
    env_free(&e);
    diag_reset();
    /* v0.1.1 writes [] */
    env_init(&e, "kind: X\nmetadata:\n  name: x\nenv: # kpt-set: ${env}\n- a\n", "kind: ConfigMap\ndata:\n  env: \"\"\n");
    e.c.version = pinned(0, 1, 1);
    CHECK(fn_apply_setters.run(&e.c) == 0);
    CHECK_STR(emit_items(&e), "kind: X\nmetadata:\n  name: x\nenv: [] # kpt-set: ${env}\n");
    env_free(&e);
}

TEST(apply_setters_v0_1_1_no_match_and_empty_config_are_errors)
{
    struct env e;
    env_init(&e, "kind: X\na: 1 # kpt-set: ${a}\n", "kind: ConfigMap\ndata:\n  other: x\n");
    e.c.version = pinned(0, 1, 1);
    CHECK(fn_apply_setters.run(&e.c) < 0);
    CHECK(failed_with("no matches for the input list of setters"));
    env_free(&e);
    const char *empty[] = {"kind: ConfigMap\ndata: {}\n", "kind: ConfigMap\nmetadata:\n  name: x\n"};
    for (size_t i = 0; i < 2; i++) {
        diag_reset();
        env_init(&e, "kind: X\na: 1 # kpt-set: ${a}\n", empty[i]);
        e.c.version = pinned(0, 1, 1);
        bool ok = fn_apply_setters.run(&e.c) < 0 && failed_with("input setters list cannot be empty");
        env_free(&e);
        CHECK(ok);
    }
    diag_reset();
    /* a match reports each field, without a severity */
    env_init(&e, "kind: X\na: 1 # kpt-set: ${a}\n", "kind: ConfigMap\ndata:\n  a: \"2\"\n");
    e.c.version = pinned(0, 1, 1);
    CHECK(fn_apply_setters.run(&e.c) == 0);
    CHECK_STR(results_text(&e), "-|set field value to \"2\"|a\n");
    env_free(&e);
}

TEST(apply_setters_v0_2_0_reports_no_matches_without_failing)
{
    struct env e;
    env_init(&e, "kind: X\na: 1 # kpt-set: ${a}\n", "kind: ConfigMap\ndata:\n  other: x\n");
    e.c.version = pinned(0, 2, 0);
    CHECK(fn_apply_setters.run(&e.c) == 0);
    CHECK_STR(results_text(&e), "-|no matches for input setter(s)\n");
    env_free(&e);
    env_init(&e, "kind: X\npassword: 1 # kpt-set: ${a}\n", "kind: ConfigMap\ndata:\n  a: hunter2\n");
    e.c.version = pinned(0, 2, 1);
    CHECK(fn_apply_setters.run(&e.c) == 0);
    /* values are reported as they are up to v0.2.x */
    CHECK_STR(results_text(&e), "-|set field value to \"hunter2\"|password\n");
    env_free(&e);
}

TEST(apply_setters_newest_redacts_and_truncates_reported_values)
{
    char long_value[200 + 1];
    memset(long_value, 'v', 200);
    long_value[200] = 0;
    const char *items_fmt = "kind: X\n"
                            "password: old # kpt-set: ${p}\n"
                            "plain: old # kpt-set: ${db-Token}\n"
                            "jwt: old # kpt-set: ${jwt}\n"
                            "aws: old # kpt-set: ${aws}\n"
                            "dsn: old # kpt-set: ${dsn}\n"
                            "blob: old # kpt-set: ${blob}\n"
                            "header: old # kpt-set: ${hdr}\n"
                            "long: old # kpt-set: ${long}\n"
                            "utf: old # kpt-set: ${utf}\n"
                            "image: old # kpt-set: nginx:${tag}\n"
                            "dsn2: old # kpt-set: ${dsn2}\n";
    char utf[130 * 2 + 1] = "";
    for (int i = 0; i < 130; i++)
        strcat(utf, "\xc3\xa9"); /* é */
    arena *a = arena_new();
    const char *config = arena_printf(a,
             "kind: ConfigMap\ndata:\n"
             "  p: hunter2\n"
             "  db-Token: plain\n"
             "  jwt: eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghij\n"
             "  aws: AKIAIOSFODNN7ABCDEFG\n"
             "  dsn: postgres://app:s3cret@db:5432/app\n"
             "  blob: QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0NTY3ODkwYWJj\n"
             "  hdr: Bearer abcdefghijklmnop\n"
             "  long: %s\n"
             "  utf: %s\n"
             "  tag: 1.16.2\n"
             "  dsn2: postgres://db:5432/app\n",
             long_value, utf);
    struct env e;
    env_init(&e, items_fmt, config);
    CHECK(fn_apply_setters.run(&e.c) == 0);
    char utf128[128 * 2 + 1] = "";
    for (int i = 0; i < 128; i++)
        strcat(utf128, "\xc3\xa9");
    const char *want = arena_printf(a,
             "info|set field value to \"<redacted>\"|password\n"
             "info|set field value to \"<redacted>\"|plain\n"
             "info|set field value to \"<redacted>\"|jwt\n"
             "info|set field value to \"<redacted>\"|aws\n"
             "info|set field value to \"<redacted>\"|dsn\n"
             "info|set field value to \"<redacted>\"|blob\n"
             "info|set field value to \"<redacted>\"|header\n"
             "info|set field value to \"%.128s... (truncated 72 chars)\"|long\n"
             "info|set field value to \"%s... (truncated 2 chars)\"|utf\n"
             "info|set field value to \"nginx:1.16.2\"|image\n"
             "info|set field value to \"postgres://db:5432/app\"|dsn2\n",
             long_value, utf128);
    CHECK_STR(results_text(&e), want);
    /* the resources get the values themselves */
    CHECK(strstr(emit_items(&e), "password: hunter2 # kpt-set: ${p}\n") != NULL);
    env_free(&e);
    arena_free(a);
}

TEST(apply_setters_errors_do_not_show_secret_values)
{
    struct env e;
    env_init(&e, "kind: X\nmetadata:\n  name: x\ntokens: # kpt-set: ${t}\n- a\n", "kind: ConfigMap\ndata:\n  t: hunter2\n");
    CHECK(fn_apply_setters.run(&e.c) < 0);
    CHECK(failed_with("but found \"<redacted>\""));
    CHECK(!failed_with("hunter2"));
    env_free(&e);
}

/* create-setters */

TEST(create_setters_catalog_simple)
{
    struct env e;
    env_init(&e,
             "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: my-nginx\nspec:\n  replicas: 4\n"
             "  template:\n    spec:\n      containers:\n        - name: nginx\n          image: \"nginx:1.16.1\"\n"
             "---\napiVersion: v1\nkind: MyKind\nmetadata:\n  name: foo\nenvironments:\n  - dev\n  - stage\n",
             "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: setters\ndata:\n"
             "  env: |-\n    - stage\n    - dev\n  nginx-replicas: \"4\"\n  tag: 1.16.1\n");
    CHECK(fn_create_setters.run(&e.c) == 0);
    CHECK_STR(emit_items(&e), "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: my-nginx\nspec:\n"
                              "  replicas: 4 # kpt-set: ${nginx-replicas}\n"
                              "  template:\n    spec:\n      containers:\n        - name: nginx\n"
                              "          image: \"nginx:1.16.1\" # kpt-set: nginx:${tag}\n"
                              "---\napiVersion: v1\nkind: MyKind\nmetadata:\n  name: foo\n"
                              "environments: # kpt-set: ${env}\n  - dev\n  - stage\n");
    CHECK_STR(results_text(&e),
              "-|Added line comment \"kpt-set: ${nginx-replicas}\" for field with value \"4\"|spec.replicas\n"
              "-|Added line comment \"kpt-set: nginx:${tag}\" for field with value \"nginx:1.16.1\"|"
              "spec.template.spec.containers[0].image\n"
              "-|Added line comment \"kpt-set: ${env}\" for field with value \"[dev stage]\"|environments\n");
    env_free(&e);
}

TEST(create_setters_longest_value_wins)
{
    struct env e;
    env_init(&e, "kind: X\nspec: nginx-abc-development\nother: nginx-nginx\n",
             "kind: ConfigMap\ndata:\n  image: nginx\n  ubuntu: nginx-abc\n");
    CHECK(fn_create_setters.run(&e.c) == 0);
    CHECK_STR(emit_items(&e), "kind: X\nspec: nginx-abc-development # kpt-set: ${ubuntu}-development\n"
                              "other: nginx-nginx # kpt-set: ${image}-${image}\n");
    env_free(&e);
}

TEST(create_setters_short_values_match_inside_longer_ones)
{
    /* the catalog's documented trap: "4" is found in "443" */
    struct env e;
    env_init(&e, "kind: X\nport: 443\n", "kind: ConfigMap\ndata:\n  replicas: \"4\"\n");
    CHECK(fn_create_setters.run(&e.c) == 0);
    CHECK_STR(emit_items(&e), "kind: X\nport: 443 # kpt-set: ${replicas}${replicas}3\n");
    env_free(&e);
}

TEST(create_setters_flow_lists)
{
    struct env e;
    env_init(&e, "kind: X\nargs: [nginx, b] # old\nenv: [stage, dev]\nnone: []\nkeep: [p, q]\n",
             "kind: ConfigMap\ndata:\n  image: nginx\n  env: '[dev, stage]'\n  nothing: '[]'\n");
    CHECK(fn_create_setters.run(&e.c) == 0);
    CHECK_STR(emit_items(&e), "kind: X\nargs: # old\n- nginx # kpt-set: ${image}\n- b\n"
                              "env: # kpt-set: ${env}\n- stage\n- dev\n"
                              "none: [] # kpt-set: ${nothing}\nkeep: [p, q]\n");
    env_free(&e);
}

TEST(create_setters_overwrites_comments_and_skips_multiline_values)
{
    struct env e;
    env_init(&e, "kind: X\na: dev # old comment\nb: |\n  dev\n  more\n", "kind: ConfigMap\ndata:\n  env: dev\n");
    CHECK(fn_create_setters.run(&e.c) == 0);
    CHECK_STR(emit_items(&e), "kind: X\na: dev # kpt-set: ${env}\nb: |\n  dev\n  more\n");
    env_free(&e);
}

TEST(create_setters_errors)
{
    const char *items = "kind: X\na: dev\n";
    struct {
        const char *config, *error;
    } cases[] = {
        {NULL, "needs a functionConfig"},
        {"[a]", "must be an object with a `data` map"},
        {"kind: ConfigMap\nmetadata:\n  name: x\n", "config map cannot be empty"},
        {"kind: ConfigMap\ndata: {}\n", "config map cannot be empty"},
        {"kind: ConfigMap\ndata:\n  env: \"\"\n", "setter \"env\" has an empty value"},
        {"kind: ConfigMap\ndata:\n  env: \"  \"\n", "setter \"env\" has an empty value"},
        {"kind: ConfigMap\ndata:\n  env:\n", "setter \"env\" has no value"},
        {"kind: ConfigMap\ndata: 3\n", "`data` must be a mapping"},
        {"kind: ConfigMap\ndata:\n  env: prod\n", "no matches for the input list of setters"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        diag_reset();
        struct env e;
        env_init(&e, items, cases[i].config);
        int rc = fn_create_setters.run(&e.c);
        bool ok = rc < 0 && failed_with(cases[i].error);
        if (!ok)
            fprintf(stderr, "case %zu: %s\n", i, diag_message());
        env_free(&e);
        CHECK(ok);
    }
}

TEST(create_setters_values_that_are_not_lists_are_text)
{
    struct env e;
    env_init(&e, "kind: X\na: 'key: value here'\nb: \"null\"\n",
             "kind: ConfigMap\ndata:\n  kv: 'key: value'\n  n: \"null\"\n");
    CHECK(fn_create_setters.run(&e.c) == 0);
    CHECK_STR(emit_items(&e), "kind: X\na: 'key: value here' # kpt-set: ${kv} here\nb: \"null\" # kpt-set: ${n}\n");
    env_free(&e);
}

TEST(create_setters_v0_1_0_substitutes_in_turn)
{
    /* b's value is a's name: a goes first (the comparator keeps b after a), writes "${a}", and b then finds its
     * value inside that name. The branch after v0.1.0 replaces both in one pass. */
    const char *items = "kind: X\nv: qa\nw: nginx-abc-development\nm: |\n  q\n  more\n";
    const char *config = "kind: ConfigMap\ndata:\n  a: q\n  b: a\n  c: nginx\n  d: nginx-abc\n";
    struct env e;
    env_init(&e, items, config);
    e.c.version = pinned(0, 1, 0);
    CHECK(fn_create_setters.run(&e.c) == 0);
    /* multi-line values are left alone in every version (v0.1.0's comment there would break the value) */
    CHECK_STR(emit_items(&e), "kind: X\nv: qa # kpt-set: ${${b}}${b}\nw: nginx-abc-development # kpt-set: ${c}-${b}bc-development\n"
                              "m: |\n  q\n  more\n");
    env_free(&e);
    env_init(&e, items, config);
    CHECK(fn_create_setters.run(&e.c) == 0);
    CHECK_STR(emit_items(&e), "kind: X\nv: qa # kpt-set: ${a}${b}\nw: nginx-abc-development # kpt-set: ${d}-development\n"
                              "m: |\n  q\n  more\n");
    env_free(&e);
    /* The comparator moves n ahead of m (n's value does not contain "m"): "bc" goes first, and m's "abc" is then
     * no longer there. Name order or longest first would both give "${m}". */
    env_init(&e, "kind: X\nu: abc\n", "kind: ConfigMap\ndata:\n  m: abc\n  n: bc\n");
    e.c.version = pinned(0, 1, 0);
    CHECK(fn_create_setters.run(&e.c) == 0);
    CHECK_STR(emit_items(&e), "kind: X\nu: abc # kpt-set: a${n}\n");
    env_free(&e);
    env_init(&e, "kind: X\nu: abc\n", "kind: ConfigMap\ndata:\n  m: abc\n  n: bc\n");
    CHECK(fn_create_setters.run(&e.c) == 0);
    CHECK_STR(emit_items(&e), "kind: X\nu: abc # kpt-set: ${m}\n");
    env_free(&e);
}

TEST(create_setters_v0_1_0_errors)
{
    struct env e;
    env_init(&e, "kind: X\na: [x, y]\n", "kind: ConfigMap\ndata:\n  l: '[x, y]'\n");
    e.c.version = pinned(0, 1, 0);
    CHECK(fn_create_setters.run(&e.c) < 0);
    CHECK(failed_with("input setters list cannot be empty"));
    env_free(&e);
    diag_reset();
    /* the comment may not grow without bound as values are found inside the names written before them */
    char name[2001], config[2100];
    memset(name, 'n', 2000);
    name[2000] = 0;
    snprintf(config, sizeof config, "kind: ConfigMap\ndata:\n  %s: q\n", name);
    env_init(&e, "kind: X\nmetadata:\n  name: x\na: q\n", config);
    e.c.version = pinned(0, 1, 0);
    CHECK(fn_create_setters.run(&e.c) < 0);
    CHECK(failed_with("grows past 64 times"));
    env_free(&e);
    diag_reset();
    env_init(&e, "kind: X\nmetadata:\n  name: x\na: q\n", config);
    CHECK(fn_create_setters.run(&e.c) == 0);
    env_free(&e);
}

/* list-setters */

TEST(list_setters_v0_1_0_without_setters_fails)
{
    struct env e;
    env_init(&e, "kind: X\na: b # a comment\n", NULL);
    e.c.version = pinned(0, 1, 0);
    CHECK(fn_list_setters.run(&e.c) < 0);
    CHECK(failed_with("no setters found"));
    env_free(&e);
}

TEST(list_setters_catalog_simple)
{
    struct env e;
    const char *in = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: my-nginx\nspec:\n"
                     "  replicas: 3 # kpt-set: ${nginx-replicas}\n  template:\n    spec:\n      containers:\n"
                     "        - name: nginx\n          image: \"nginx:1.16.2\" # kpt-set: nginx:${tag}\n"
                     "---\napiVersion: v1\nkind: MyKind\nmetadata:\n  name: foo\n"
                     "environments: # kpt-set: ${env}\n  - stage\n  - dev\n";
    env_init(&e, in, NULL);
    CHECK(fn_list_setters.run(&e.c) == 0);
    CHECK_STR(emit_items(&e), in);
    CHECK_STR(results_text(&e), "-|Name: env, Value: [dev, stage], Type: array, Count: 1\n"
                                "-|Name: nginx-replicas, Value: 3, Type: int, Count: 1\n"
                                "-|Name: tag, Value: 1.16.2, Type: str, Count: 1\n");
    env_free(&e);
}

TEST(list_setters_without_setters_warns)
{
    struct env e;
    env_init(&e, "kind: X\na: b # a comment\n", NULL);
    CHECK(fn_list_setters.run(&e.c) == 0);
    CHECK_STR(results_text(&e), "warning|no setters found\n");
    env_free(&e);
}

TEST(list_setters_counts_and_kptfile_setters)
{
    struct env e;
    env_init(&e,
             "kind: X\na: app-dev # kpt-set: ${name}-${stage}\nb: dev # kpt-set: ${stage}\n"
             "c: 5 # kpt-set: ${replicas}\nd: [x] # kpt-set: ${list}\ne: true # kpt-set: ${flag}\n"
             "f: 2024-01-02 # kpt-set: ${day}\ng: nomatch # kpt-set: x-${y}\n",
             NULL);
    add_file(&e, "Kptfile",
             "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\npipeline:\n  mutators:\n"
             "    - image: gcr.io/kpt-fn/set-labels:v0.1\n      configMap:\n        ignored: x\n"
             "    - image: gcr.io/kpt-fn/apply-setters:v0.2\n      configMap:\n        replicas: \"4\"\n"
             "        unused: u\n        more: \"[b, a]\"\n"
             "    - image: gcr.io/kpt-fn/apply-setters:v0.2\n      configPath: setters.yaml\n");
    add_file(&e, "setters.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: s\ndata:\n  unused: from-file\n");
    CHECK(fn_list_setters.run(&e.c) == 0);
    CHECK_STR(results_text(&e), "-|Name: day, Value: 2024-01-02, Type: timestamp, Count: 1\n"
                                "-|Name: flag, Value: true, Type: bool, Count: 1\n"
                                "-|Name: list, Value: [x], Type: array, Count: 1\n"
                                "-|Name: more, Value: [b, a], Type: array, Count: 0\n"
                                "-|Name: name, Value: app, Type: str, Count: 1\n"
                                "-|Name: replicas, Value: 4, Type: int, Count: 1\n"
                                "-|Name: stage, Value: dev, Type: str, Count: 2\n"
                                "-|Name: unused, Value: from-file, Type: str, Count: 0\n");
    env_free(&e);
}

/* shared pattern matching */

TEST(setter_recover_is_greedy_leftmost_and_unanchored)
{
    arena *a = arena_new();
    setter_ref *refs;
    const char *v[4];
    size_t n = setter_refs(a, "${a}-${b}", &refs);
    CHECK(n == 2 && !strcmp(refs[0].name, "a") && !strcmp(refs[1].name, "b"));
    CHECK(setter_recover(a, "${a}-${b}", refs, n, "x-y-z", v));
    CHECK_STR(v[0], "x-y");
    CHECK_STR(v[1], "z");
    n = setter_refs(a, "nginx:${tag}", &refs);
    CHECK(setter_recover(a, "nginx:${tag}", refs, n, "my-nginx:1.2", v));
    CHECK_STR(v[0], "1.2");
    CHECK(!setter_recover(a, "nginx:${tag}", refs, n, "nginx:", v)); /* empty value */
    CHECK(!setter_recover(a, "nginx:${tag}", refs, n, "ubuntu", v)); /* no match */
    n = setter_refs(a, "${a}.${b}", &refs);
    CHECK(!setter_recover(a, "${a}.${b}", refs, n, "x\n.y", v)); /* "." stops at newlines */
    n = setter_refs(a, "a${x", &refs);
    CHECK(n == 0);
    CHECK_STR(setter_pattern(a, "kpt-set:  ${x}  "), "${x}");
    CHECK(setter_pattern(a, "kpt-set:") == NULL);
    CHECK(setter_pattern(a, "not kpt-set: ${x}") == NULL);
    CHECK_STR(go_quote(a, "a\"b\\c\nd\x01"), "\"a\\\"b\\\\c\\nd\\x01\"");
    arena_free(a);
}
