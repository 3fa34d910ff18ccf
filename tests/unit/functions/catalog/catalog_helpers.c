/* no-op, delete-annotations, drop-comments and format: the catalog's small and archived helpers. */
#include <stdlib.h>

#include "check.h"
#include "fixture.h"
#include "functions/function.h"
#include "util/buf.h"
#include "util/diag.h"
#include "yaml/emit.h"

static int run_fn(struct fx *f, const char *fn, const char *config)
{
    return fx_apply(f, fn, config, "fn-config.yaml");
}

static const char *doc(struct fx *f, size_t item)
{
    buf b = {0};
    emit_opts o = {.seq_wide = false, .comments = true};
    emit_yaml(&b, f->items.v[item]->root, &o);
    const char *s = arena_strndup(f->a, b.data ? b.data : "", b.len);
    buf_free(&b);
    return s;
}

static const char *msg(struct fx *f, size_t i)
{
    return i < f->results.n ? f->results.v[i].message : "(none)";
}

static bool failed_with(const char *text)
{
    return diag_failed() && strstr(diag_message(), text);
}

#define CM(data) "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: function-input\n" data

/* ---- no-op ---- */

TEST(no_op_changes_nothing)
{
    struct fx f;
    const char *in = "# head\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a # line\n"
                     "data: {x: 'y', n: \"0755\"}\n";
    fx_open(&f, in);
    CHECK(run_fn(&f, "no-op", NULL) == 0);
    CHECK_STR(doc(&f, 0), in);
    CHECK(run_fn(&f, "no-op", CM("")) == 0);         /* a ConfigMap that sets nothing */
    CHECK(run_fn(&f, "no-op", CM("data: {}\n")) == 0);
    CHECK(f.results.n == 0);
    CHECK_STR(doc(&f, 0), in);
    fx_close(&f);
}

TEST(no_op_refuses_a_config_it_would_ignore)
{
    struct fx f;
    fx_open(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n");
    CHECK(run_fn(&f, "no-op", CM("data:\n  verbose: \"true\"\n")) < 0);
    CHECK(failed_with("no-op takes no configuration: unknown key `verbose`"));
    diag_reset();
    CHECK(run_fn(&f, "no-op", "apiVersion: fn.kpt.dev/v1alpha1\nkind: NoOp\nmetadata:\n  name: x\n") < 0);
    CHECK(failed_with("no-op takes no configuration (got a NoOp)"));
    fx_close(&f);
}

/* ---- delete-annotations ---- */

#define ANNOTATED                                                                                                      \
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    keep: k\n    drop: d\n"              \
    "    also: x\n"                                                                                                    \
    "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  annotations:\n    drop: d\n"                        \
    "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"                                                     \
    "---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  generateName: hook-\n  annotations:\n    also: y\n"            \
    "spec:\n  template:\n    metadata:\n      annotations:\n        drop: template\n"

TEST(delete_annotations_removes_keys_and_reports_as_the_catalog)
{
    struct fx f;
    fx_open(&f, ANNOTATED);
    CHECK(run_fn(&f, "delete-annotations", CM("data:\n  annotationKeys: \" drop , also,,missing\"\n")) == 0);
    CHECK_STR(doc(&f, 0), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    keep: k\n");
    CHECK_STR(doc(&f, 1), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  annotations: {}\n");
    CHECK(path_get(f.items.v[3]->root, "metadata", "annotations", "also", NULL) == NULL); /* generateName only */
    CHECK_STR(path_str(f.items.v[3]->root, "spec", "template", "metadata", "annotations", "drop", NULL), "template");
    CHECK(f.results.n == 5);
    CHECK_STR(msg(&f, 0), "The provided annotations were deleted from 3 resource(s)");
    CHECK_STR(msg(&f, 1), "Annonation: [drop] removed from resource: [a]");
    CHECK_STR(msg(&f, 2), "Annonation: [also] removed from resource: [a]");
    CHECK_STR(msg(&f, 3), "Annonation: [drop] removed from resource: [b]");
    CHECK_STR(msg(&f, 4), "Annonation: [also] removed from resource: [hook-]");
    CHECK(f.results.v[0].res == NULL && f.results.v[1].res == f.items.v[0]);
    CHECK(f.results.v[1].severity == SEV_INFO);
    fx_close(&f);
}

TEST(delete_annotations_says_when_nothing_matched)
{
    struct fx f;
    fx_open(&f, ANNOTATED);
    CHECK(run_fn(&f, "delete-annotations", CM("data:\n  annotationKeys: nope\n")) == 0);
    CHECK(f.results.n == 1 && f.results.v[0].severity == SEV_INFO);
    CHECK_STR(msg(&f, 0), "None of the resources had the provided annotations to delete");
    fx_close(&f);
}

TEST(delete_annotations_config_errors)
{
    struct fx f;
    fx_open(&f, ANNOTATED);
    CHECK(run_fn(&f, "delete-annotations", NULL) < 0);
    CHECK(failed_with("needs data.annotationKeys"));
    diag_reset();
    CHECK(run_fn(&f, "delete-annotations", CM("data:\n  annotationKeys: \"\"\n")) < 0);
    CHECK(failed_with("needs data.annotationKeys"));
    diag_reset();
    CHECK(run_fn(&f, "delete-annotations", CM("data:\n  annotationKeys: \" , ,\"\n")) < 0);
    CHECK(failed_with("names none"));
    diag_reset();
    CHECK(run_fn(&f, "delete-annotations", CM("data:\n  annotationKeys: drop\n  keys: also\n")) < 0);
    CHECK(failed_with("unknown key `keys` in data (expected annotationKeys)"));
    diag_reset();
    CHECK(run_fn(&f, "delete-annotations", CM("data:\n  annotationKeys: [drop]\n")) < 0);
    CHECK(failed_with("annotationKeys must be a string"));
    diag_reset();
    CHECK_STR(path_str(f.items.v[0]->root, "metadata", "annotations", "drop", NULL), "d"); /* nothing changed */
    fx_close(&f);
}

/* ---- drop-comments ---- */

TEST(drop_comments_drops_every_comment)
{
    struct fx f;
    fx_open(&f, "# head\napiVersion: v1 # one\nkind: ConfigMap\nmetadata:\n  # above name\n  name: a\n"
                "data:\n  k: v # two\n  list:\n    # above item\n    - x # three\n");
    CHECK(run_fn(&f, "drop-comments", NULL) == 0);
    CHECK_STR(doc(&f, 0), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n  list:\n  - x\n");
    fx_close(&f);
}

TEST(drop_comments_values_come_back_as_the_json_round_trip_gives_them)
{
    struct fx f;
    fx_open(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
                "spec:\n  i: 123456\n  e6: 1234567\n  half: 0.5\n  negzero: -0.0\n  intzero: -0\n  e21: 1e21\n"
                "  hundred: 100.0\n  small: 1e-5\n  leading0: 08\n  plus: +12\n  neghex: -0x10\n  oct: 0o17\n"
                "  under: 1_000\n  bin: 0b101\n  maxu: 18446744073709551615\n  octal11: 017\n"
                "  t: TRUE\n  f: False\n  n: NULL\n  s1: 'single'\n  s2: \"true\"\n  s3: !!str 1.5\n"
                "  flow: {a: [1, {b: ~}]}\n  empty: []\n");
    CHECK(run_fn(&f, "drop-comments", NULL) == 0);
    CHECK_STR(doc(&f, 0), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
                          "spec:\n  i: 123456\n  e6: 1.234567e+06\n  half: 0.5\n  negzero: -0\n  intzero: 0\n"
                          "  e21: 1e+21\n  hundred: 100\n  small: 1e-05\n  leading0: 8\n  plus: 12\n  neghex: -16\n"
                          "  oct: 15\n  under: 1000\n  bin: 5\n  maxu: 1.8446744073709552e+19\n  octal11: 15\n"
                          "  t: true\n  f: false\n  \"n\": null\n  s1: single\n  s2: \"true\"\n  s3: \"1.5\"\n"
                          "  flow:\n    a:\n    - 1\n    - b: null\n  empty: []\n");
    fx_close(&f);
}

TEST(drop_comments_refuses_what_json_cannot_carry)
{
    struct fx f;
    fx_open(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: -.Inf\n");
    CHECK(run_fn(&f, "drop-comments", NULL) < 0);
    CHECK(failed_with("the value `-.Inf` cannot pass through JSON"));
    fx_close(&f);
    fx_open(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: .nan\n");
    CHECK(run_fn(&f, "drop-comments", NULL) < 0);
    fx_close(&f);
    fx_open(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  1: one\n");
    CHECK(run_fn(&f, "drop-comments", NULL) < 0);
    CHECK(failed_with("the key `1` is not a string"));
    fx_close(&f);
    fx_open(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: !!int abc\n");
    CHECK(run_fn(&f, "drop-comments", NULL) < 0);
    CHECK(failed_with("`abc` is tagged !!int but is not a number"));
    fx_close(&f);
    fx_open(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: !!bool yes\n");
    CHECK(run_fn(&f, "drop-comments", NULL) < 0);
    CHECK(failed_with("is not true or false"));
    fx_close(&f);
    /* a top-level key that reads as another type becomes a string, as Go decodes it into a map of strings */
    fx_open(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ntrue: 1\n");
    CHECK(run_fn(&f, "drop-comments", NULL) == 0);
    CHECK_STR(doc(&f, 0), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n\"true\": 1\n");
    CHECK(run_fn(&f, "drop-comments", CM("data:\n  x: y\n")) < 0);
    CHECK(failed_with("drop-comments takes no configuration"));
    fx_close(&f);
}

/* ---- format ---- */

TEST(format_orders_fields_with_kyamls_list)
{
    struct fx f;
    fx_open(&f, "spec:\n  template:\n    spec:\n      securityContext: {}\n      volumes: []\n"
                "      activeDeadlineSeconds: 5\n      restartPolicy: Never\n      containers: []\n"
                "  zeta: 1\n  Zeta: 2\n  replicas: 1\nmetadata:\n  labels: {b: \"1\", a: \"2\"}\n  name: d\n"
                "kind: Deployment\napiVersion: apps/v1\nstatus: {}\n");
    CHECK(run_fn(&f, "format", NULL) == 0);
    /* securityContext and activeDeadlineSeconds are listed twice: the later place counts, as in kyaml's map */
    CHECK_STR(doc(&f, 0), "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  labels: {a: \"2\", b: \"1\"}\n"
                          "spec:\n  replicas: 1\n  template:\n    spec:\n      restartPolicy: Never\n"
                          "      activeDeadlineSeconds: 5\n      containers: []\n      volumes: []\n"
                          "      securityContext: {}\n  Zeta: 2\n  zeta: 1\nstatus: {}\n");
    fx_close(&f);
}

TEST(format_sorts_only_the_whitelisted_lists)
{
    struct fx f;
    const char *pods = "spec:\n  template:\n    spec:\n      containers:\n      - name: b\n      - name: a\n";
    char text[2048];
    snprintf(text, sizeof text,
             "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n%s"
             "---\napiVersion: apps/v1beta3\nkind: Deployment\nmetadata:\n  name: other-version\n%s"
             "---\napiVersion: v1\nkind: PodTemplate\nmetadata:\n  name: other-kind\n%s"
             "---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n"
             "  name: v\nwebhooks:\n- name: w\n  rules:\n  - operations: [UPDATE, CREATE]\n"
             "---\napiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata:\n"
             "  name: m\nwebhooks:\n- name: w\n  rules:\n  - operations: [UPDATE, CREATE]\n",
             pods, pods, pods);
    fx_open(&f, text);
    CHECK(run_fn(&f, "format", NULL) == 0);
    const node *c0 = path_get(f.items.v[0]->root, "spec", "template", "spec", "containers", NULL);
    CHECK_STR(path_str(seq_item(c0, 0), "name", NULL), "a");
    const node *c1 = path_get(f.items.v[1]->root, "spec", "template", "spec", "containers", NULL);
    CHECK_STR(path_str(seq_item(c1, 0), "name", NULL), "b");
    const node *c2 = path_get(f.items.v[2]->root, "spec", "template", "spec", "containers", NULL);
    CHECK_STR(path_str(seq_item(c2, 0), "name", NULL), "b");
    const node *ops = path_get(seq_item(path_get(seq_item(path_get(f.items.v[3]->root, "webhooks", NULL), 0),
                                                 "rules", NULL), 0), "operations", NULL);
    CHECK_STR(scalar(seq_item(ops, 0)), "CREATE");
    ops = path_get(seq_item(path_get(seq_item(path_get(f.items.v[4]->root, "webhooks", NULL), 0), "rules", NULL), 0),
                   "operations", NULL);
    CHECK_STR(scalar(seq_item(ops, 0)), "UPDATE");
    fx_close(&f);
}

TEST(format_quotes_string_fields_that_read_as_other_types)
{
    struct fx f;
    fx_open(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    n: 100\n    b: on\n"
                "    nul: ~\n    q: '5'\n    s: text\ndata:\n  port: 8080\n"
                "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  selector:\n    tier: 1\n"
                "  ports:\n  - port: 80\n"
                "---\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  annotations:\n    n: 100\n");
    CHECK(run_fn(&f, "format", NULL) == 0);
    CHECK_STR(doc(&f, 0), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    b: \"on\"\n"
                          "    n: \"100\"\n    nul: ~\n    q: '5'\n    s: text\ndata:\n  port: \"8080\"\n");
    CHECK_STR(doc(&f, 1), "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  selector:\n"
                          "    tier: \"1\"\n  ports:\n  - port: 80\n");
    /* no schema for a custom resource: kyaml leaves its values alone */
    CHECK_STR(path_str(f.items.v[2]->root, "metadata", "annotations", "n", NULL), "100");
    CHECK(node_style(path_get(f.items.v[2]->root, "metadata", "annotations", "n", NULL)) == ST_PLAIN);
    fx_close(&f);
}
