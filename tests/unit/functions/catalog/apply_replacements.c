/* apply-replacements, its field-path language and Kubernetes selector strings: sources, targets, options,
 * selection, and config errors. */
#include <stdlib.h>

#include "check.h"
#include "fixture.h"
#include "functions/krm/fieldpath.h"
#include "functions/function.h"
#include "functions/krm/label_selector.h"
#include "util/buf.h"
#include "util/diag.h"
#include "yaml/emit.h"
#include "yaml/load.h"


static int fx_run_config(struct fx *f, const char *config)
{
    return fx_apply(f, "apply-replacements", config, "replacements.yaml");
}

#define HEAD "apiVersion: fn.kpt.dev/v1alpha1\nkind: ApplyReplacements\nmetadata:\n  name: r\n"

/* The replacements list run as the catalog release vMAJ.MIN.PAT would (config NULL: no config at all). */
static int fx_run_pinned(struct fx *f, int maj, int min, int pat, const char *replacements)
{
    node *cfg = NULL;
    const char *text = replacements ? arena_printf(f->a, HEAD "replacements:\n%s", replacements) : NULL;
    if (text)
        yaml_load_one(f->a, f->st, NULL, "replacements.yaml", text, strlen(text), &cfg);
    fn_ctx c = {.a = f->a, .st = f->st, .items = &f->items, .config = cfg, .config_file = "replacements.yaml",
                .results = &f->results, .version = {true, maj, min, pat}};
    return fn_lookup("apply-replacements")->run(&c);
}

/* the replacements list, indented as under "replacements:" */
static int fx_run(struct fx *f, const char *replacements)
{
    return fx_run_config(f, arena_printf(f->a, HEAD "replacements:\n%s", replacements));
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

static bool fails_with(struct fx *f, int rc, const char *want)
{
    if (rc < 0 && strstr(diag_message(), want)) {
        diag_reset();
        return true;
    }
    char m[1024];
    snprintf(m, sizeof m, "rc %d, message \"%s\", want \"%s\"", rc, diag_message(), want);
    test_fail(__FILE__, __LINE__, m);
    diag_reset();
    return false;
}

#define POD                                                                                                            \
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: my-pod\nspec:\n  containers:\n    - image: busybox\n"            \
    "      name: myapp-container\n  restartPolicy: OnFailure\n"
#define JOB "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: hello\n"

TEST(apply_replacements_catalog_example_creates_the_path)
{
    struct fx f;
    fx_open(&f, JOB "---\n" POD);
    CHECK(fx_run(&f, "  - source:\n      kind: Pod\n      name: my-pod\n      fieldPath: spec\n"
                     "    targets:\n      - select:\n          name: hello\n          kind: Job\n"
                     "        fieldPaths:\n          - spec.template.spec\n        options:\n          create: true\n") ==
          0);
    CHECK_STR(dump(&f, 0), "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: hello\nspec:\n  template:\n    spec:\n"
                           "      containers:\n      - image: busybox\n        name: myapp-container\n"
                           "      restartPolicy: OnFailure\n");
    CHECK(f.results.n == 0);
    fx_close(&f);
}

#define TO_MISSING_JOB_PATH                                                                                            \
    "  - source:\n      kind: Pod\n      fieldPath: spec\n"                                                            \
    "    targets:\n      - select:\n          kind: Job\n        fieldPaths: [spec.template.spec]\n"

TEST(apply_replacements_v0_1_1_missing_target_path_is_skipped)
{
    struct fx f;
    fx_open(&f, JOB "---\n" POD);
    CHECK(fx_run_pinned(&f, 0, 1, 1, TO_MISSING_JOB_PATH) == 0);
    CHECK_STR(dump(&f, 0), JOB);
    fx_close(&f);
}

TEST(apply_replacements_latest_missing_target_path_is_an_error)
{
    struct fx f;
    fx_open(&f, JOB "---\n" POD);
    CHECK(fails_with(&f, fx_run(&f, TO_MISSING_JOB_PATH),
                     "replacements[0].targets[0]: unable to find field \"spec.template.spec\" in the target "
                     "(options.create adds it)"));
    CHECK(fails_with(&f, fx_run_pinned(&f, 0, 1, 2, TO_MISSING_JOB_PATH), "unable to find field"));
    /* a [k=v] that matches no item names nothing too */
    CHECK(fails_with(&f,
                     fx_run(&f, "  - source: {kind: Pod, fieldPath: metadata.name}\n"
                                "    targets:\n      - select: {kind: Pod}\n"
                                "        fieldPaths: ['spec.containers.[name=nope].image']\n"),
                     "unable to find field \"spec.containers.[name=nope].image\" in the target"));
    fx_close(&f);
}

#define CM_AND_DEPLOY                                                                                                  \
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  namespace: default\ndata:\n  replicas: \"3\"\n"       \
    "  image: nginx:1.21\n  name: '123'\n  tags: a,b\n"                                                                \
    "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels:\n    app: web\n"                   \
    "  annotations:\n    example.com/owner: team-a\nspec:\n  replicas: 1 # scale\n  template:\n    metadata:\n"     \
    "      labels:\n        app: web\n    spec:\n      containers:\n      - name: app\n        image: old\n"         \
    "        args: [\"--mode=x\", \"--level=1\"]\n      - name: myapp-sidecar\n        image: old\n"               \
    "      - name: other\n        image: old\n"

static node *container(struct fx *f, size_t item, uint32_t i)
{
    return seq_item(path_get(f->items.v[item]->root, "spec", "template", "spec", "containers", NULL), i);
}

TEST(apply_replacements_scalar_target_keeps_type_and_style)
{
    struct fx f;
    fx_open(&f, CM_AND_DEPLOY);
    CHECK(fx_run(&f, "  - source: {kind: ConfigMap, fieldPath: data.replicas}\n"
                     "    targets:\n      - select: {kind: Deployment}\n        fieldPaths: [spec.replicas]\n"
                     "  - source: {kind: ConfigMap, fieldPath: data.name}\n"
                     "    targets:\n      - select: {kind: Deployment}\n"
                     "        fieldPaths: [spec.template.spec.containers.0.image]\n") == 0);
    node *rep = path_get(f.items.v[1]->root, "spec", "replicas", NULL);
    /* an int target takes the string "3" as the int 3; its comment stays */
    CHECK(node_style(rep) == ST_PLAIN && !strcmp(scalar(rep), "3") && !strcmp(node_comment(rep), "scale"));
    /* a string target stays a string, quoted because 123 would read as a number */
    CHECK(strstr(dump(&f, 1), "      - name: app\n        image: \"123\"\n") != NULL);
    fx_close(&f);
}

TEST(apply_replacements_list_selectors_are_unanchored_regexes)
{
    struct fx f;
    fx_open(&f, CM_AND_DEPLOY);
    CHECK(fx_run(&f, "  - source: {kind: ConfigMap, fieldPath: data.image}\n"
                     "    targets:\n      - select: {kind: Deployment}\n"
                     "        fieldPaths: ['spec.template.spec.containers.[name=app].image']\n") == 0);
    CHECK_STR(path_str(container(&f, 1, 0), "image", NULL), "nginx:1.21");
    CHECK_STR(path_str(container(&f, 1, 1), "image", NULL), "nginx:1.21"); /* myapp-sidecar contains "app" */
    CHECK_STR(path_str(container(&f, 1, 2), "image", NULL), "old");
    CHECK(fx_run(&f, "  - sourceValue: v2\n"
                     "    targets:\n      - select: {kind: Deployment}\n"
                     "        fieldPaths: ['spec.template.spec.containers.[name=^other$].image',\n"
                     "                     'spec.template.spec.containers.0.args.[=level]']\n") == 0);
    CHECK_STR(path_str(container(&f, 1, 2), "image", NULL), "v2");
    CHECK_STR(scalar(seq_item(path_get(container(&f, 1, 0), "args", NULL), 1)), "v2");
    CHECK(node_style(seq_item(path_get(container(&f, 1, 0), "args", NULL), 1)) == ST_DOUBLE);
    fx_close(&f);
}

TEST(apply_replacements_every_item_and_bracketed_keys)
{
    struct fx f;
    fx_open(&f, CM_AND_DEPLOY);
    CHECK(fx_run(&f, "  - source: {kind: ConfigMap, name: cfg, fieldPath: data.image}\n"
                     "    targets:\n      - select: {kind: Deployment}\n"
                     "        fieldPaths: ['spec.template.spec.containers.*.image',\n"
                     "                     'metadata.annotations.[example.com/owner]',\n"
                     "                     'metadata.labels.app']\n"
                     "  - source: {kind: Deployment, fieldPath: 'metadata.annotations.example\\.com/owner'}\n"
                     "    targets:\n      - select: {kind: ConfigMap}\n        fieldPaths: ['data.[tags]']\n") == 0);
    for (uint32_t i = 0; i < 3; i++)
        CHECK_STR(path_str(container(&f, 1, i), "image", NULL), "nginx:1.21");
    CHECK_STR(path_str(f.items.v[1]->root, "metadata", "annotations", "example.com/owner", NULL), "nginx:1.21");
    CHECK_STR(path_str(f.items.v[1]->root, "metadata", "labels", "app", NULL), "nginx:1.21");
    CHECK_STR(path_str(f.items.v[0]->root, "data", "tags", NULL), "nginx:1.21");
    fx_close(&f);
}

TEST(apply_replacements_map_target_takes_a_copy)
{
    struct fx f;
    fx_open(&f, CM_AND_DEPLOY);
    CHECK(fx_run(&f, "  - source: {kind: Deployment, fieldPath: metadata.labels}\n"
                     "    targets:\n      - select: {kind: ConfigMap}\n        fieldPaths: [data]\n") == 0);
    CHECK_STR(dump(&f, 0), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  namespace: default\ndata:\n"
                           "  app: web\n");
    /* the copy is separate from the source */
    map_set_str(f.a, path_get(f.items.v[0]->root, "data", NULL), "app", "changed");
    CHECK_STR(path_str(f.items.v[1]->root, "metadata", "labels", "app", NULL), "web");
    fx_close(&f);
}

TEST(apply_replacements_delimiters)
{
    struct fx f;
    fx_open(&f, CM_AND_DEPLOY);
    CHECK(fx_run(&f, "  - source:\n      kind: ConfigMap\n      fieldPath: data.image\n"
                     "      options: {delimiter: ':', index: 1}\n"
                     "    targets:\n      - select: {kind: ConfigMap}\n        fieldPaths: [data.tags]\n"
                     "        options: {delimiter: ',', index: 0}\n"
                     "      - select: {kind: ConfigMap}\n        fieldPaths: [data.tags]\n"
                     "        options: {delimiter: ',', index: -1}\n"
                     "      - select: {kind: ConfigMap}\n        fieldPaths: [data.tags]\n"
                     "        options: {delimiter: ',', index: 9}\n"
                     "      - select: {kind: ConfigMap}\n        fieldPaths: [data.fresh]\n"
                     "        options: {delimiter: ',', index: 0, create: true}\n") == 0);
    CHECK_STR(path_str(f.items.v[0]->root, "data", "tags", NULL), "1.21,1.21,b,1.21");
    CHECK_STR(path_str(f.items.v[0]->root, "data", "fresh", NULL), "1.21");
    /* "1.21" came from a string and stays one */
    CHECK(strstr(dump(&f, 0), "  fresh: \"1.21\"\n") != NULL);
    CHECK(fails_with(&f,
                     fx_run(&f, "  - source:\n      kind: ConfigMap\n      fieldPath: data.image\n"
                                "      options: {delimiter: ':', index: 2}\n"
                                "    targets:\n      - select: {kind: ConfigMap}\n        fieldPaths: [data.tags]\n"),
                     "replacements[0].source: options.index 2 is out of bounds for value nginx:1.21"));
    CHECK(fails_with(&f,
                     fx_run(&f, "  - source: {kind: ConfigMap, fieldPath: data.image}\n"
                                "    targets:\n      - select: {kind: Deployment}\n        fieldPaths: [spec.template]\n"
                                "        options: {delimiter: ','}\n"),
                     "options.delimiter needs a scalar target, but `spec.template` is a map"));
    fx_close(&f);
}

TEST(apply_replacements_create_makes_maps_and_list_items)
{
    struct fx f;
    fx_open(&f, CM_AND_DEPLOY);
    CHECK(fx_run(&f, "  - source: {kind: ConfigMap, fieldPath: data.image}\n"
                     "    targets:\n      - select: {kind: Deployment}\n"
                     "        fieldPaths: ['spec.template.spec.containers.[name=^init$].image',\n"
                     "                     'spec.template.spec.initContainers.[name=setup].image',\n"
                     "                     'spec.template.spec.tolerations.0.key']\n"
                     "        options: {create: true}\n") == 0);
    CHECK(node_len(path_get(f.items.v[1]->root, "spec", "template", "spec", "containers", NULL)) == 4);
    CHECK_STR(path_str(container(&f, 1, 3), "name", NULL), "^init$"); /* the pattern is written as the value */
    CHECK_STR(path_str(container(&f, 1, 3), "image", NULL), "nginx:1.21");
    CHECK(strstr(dump(&f, 1), "      initContainers:\n      - name: setup\n        image: nginx:1.21\n"
                              "      tolerations:\n      - key: nginx:1.21\n") != NULL);
    fx_close(&f);
}

#define EVERY_CONTAINER_PULL_POLICY                                                                                    \
    "  - source: {kind: ConfigMap, fieldPath: data.image}\n"                                                          \
    "    targets:\n      - select: {kind: Deployment}\n"                                                               \
    "        fieldPaths: ['spec.template.spec.containers.*.imagePullPolicy']\n        options: {create: true}\n"

TEST(apply_replacements_latest_create_with_every_item)
{
    struct fx f;
    fx_open(&f, CM_AND_DEPLOY);
    CHECK(fx_run(&f, EVERY_CONTAINER_PULL_POLICY) == 0);
    for (uint32_t i = 0; i < 3; i++)
        CHECK_STR(path_str(container(&f, 1, i), "imagePullPolicy", NULL), "nginx:1.21");
    /* '*' over an empty list creates nothing, and that is an error like any target that is not there */
    CHECK(fails_with(&f,
                     fx_run(&f, "  - source: {kind: ConfigMap, fieldPath: data.image}\n"
                                "    targets:\n      - select: {kind: Deployment}\n"
                                "        fieldPaths: ['spec.x.*.image']\n        options: {create: true}\n"),
                     "unable to find or create field \"spec.x.*.image\""));
    fx_close(&f);
}

TEST(apply_replacements_v0_1_1_has_no_every_item_nor_bracketed_keys_without_a_dot)
{
    struct fx f;
    fx_open(&f, CM_AND_DEPLOY);
    CHECK(fails_with(&f, fx_run_pinned(&f, 0, 1, 1, EVERY_CONTAINER_PULL_POLICY),
                     "replacements[0].targets[0].fieldPaths[0]: field path "
                     "`spec.template.spec.containers.*.imagePullPolicy`: '*' is not supported by apply-replacements "
                     "v0.1.1 (kustomize api 0.10.1); it needs v0.1.2 or later"));
    /* kustomize api 0.10.1's path splitter leaves brackets the dots did not split ("[labels]", and "[a\.b]" whose
     * dot is escaped) for kyaml, which reads them as list selectors without '=' */
    CHECK(fails_with(&f,
                     fx_run_pinned(&f, 0, 1, 1, "  - source: {kind: Deployment, fieldPath: 'metadata.[labels]'}\n"
                                                "    targets:\n      - select: {kind: ConfigMap}\n"),
                     "replacements[0].source.fieldPath: field path `metadata.[labels]`: the bracketed key `[labels]` "
                     "(brackets with no '.' in them) is not supported by apply-replacements v0.1.1 (kustomize api "
                     "0.10.1); write `labels`, or it needs v0.1.2 or later"));
    CHECK(fails_with(&f,
                     fx_run_pinned(&f, 0, 1, 0, "  - source: {kind: ConfigMap, fieldPath: data.image}\n"
                                                "    targets:\n      - select: {kind: Deployment}\n"
                                                "        fieldPaths: ['metadata.annotations.[example\\.com/owner]']\n"),
                     "the bracketed key `[example.com/owner]` (brackets with no '.' in them) is not supported by "
                     "apply-replacements v0.1.0"));
    fx_close(&f);
}

/* The Nephio workload-cluster packages pin v0.1.1 and write annotation keys in brackets: the splitter joins
 * "[nephio.org/cluster-name]" and drops the brackets, so it is the key nephio.org/cluster-name, in a source and in
 * a target. */
TEST(apply_replacements_v0_1_1_reads_a_bracketed_key_with_a_dot_as_that_key)
{
    struct fx f;
    fx_open(&f, CM_AND_DEPLOY);
    for (int pat = 0; pat <= 1; pat++) {
        CHECK(fx_run_pinned(&f, 0, 1, pat,
                            "  - source: {kind: Deployment, fieldPath: 'metadata.annotations.[example.com/owner]'}\n"
                            "    targets:\n      - select: {kind: ConfigMap}\n"
                            "        fieldPaths: ['metadata.annotations.[nephio.org/cluster-name]']\n"
                            "        options: {create: true}\n") == 0);
        CHECK_STR(path_str(f.items.v[0]->root, "metadata", "annotations", "nephio.org/cluster-name", NULL), "team-a");
    }
    fx_close(&f);
}

TEST(apply_replacements_v0_1_1_list_selectors_are_exact_and_first)
{
    struct fx f;
    fx_open(&f, CM_AND_DEPLOY "      - name: app\n        image: second\n");
    /* kyaml's PathGetter: "app" is not a pattern (myapp-sidecar stays), and only the first "app" is taken */
    CHECK(fx_run_pinned(&f, 0, 1, 1, "  - source: {kind: ConfigMap, fieldPath: data.image}\n"
                                     "    targets:\n      - select: {kind: Deployment}\n"
                                     "        fieldPaths: ['spec.template.spec.containers.[name=app].image',\n"
                                     "                     'spec.template.spec.containers.[name=my.*car].image',\n"
                                     "                     'spec.template.spec.containers.-.name']\n") == 0);
    CHECK_STR(path_str(container(&f, 1, 0), "image", NULL), "nginx:1.21");
    CHECK_STR(path_str(container(&f, 1, 1), "image", NULL), "old");
    CHECK_STR(path_str(container(&f, 1, 3), "image", NULL), "second");
    CHECK_STR(path_str(container(&f, 1, 3), "name", NULL), "nginx:1.21");
    /* with create, an exact miss appends the item */
    CHECK(fx_run_pinned(&f, 0, 1, 1, "  - source: {kind: ConfigMap, fieldPath: data.image}\n"
                                     "    targets:\n      - select: {kind: Deployment}\n"
                                     "        fieldPaths: ['spec.template.spec.containers.[name=myapp].image']\n"
                                     "        options: {create: true}\n") == 0);
    CHECK(node_len(path_get(f.items.v[1]->root, "spec", "template", "spec", "containers", NULL)) == 5);
    CHECK_STR(path_str(container(&f, 1, 4), "name", NULL), "myapp");
    fx_close(&f);
}

TEST(apply_replacements_v0_1_0_scalar_target_takes_the_source_node)
{
    struct fx f;
    fx_open(&f, CM_AND_DEPLOY);
    CHECK(fx_run_pinned(&f, 0, 1, 0, "  - source: {kind: ConfigMap, fieldPath: data.replicas}\n"
                                     "    targets:\n      - select: {kind: Deployment}\n"
                                     "        fieldPaths: [spec.replicas]\n"
                                     "  - source: {kind: ConfigMap, fieldPath: data.name}\n"
                                     "    targets:\n      - select: {kind: Deployment}\n"
                                     "        fieldPaths: [spec.template.spec.containers.0.image]\n"
                                     "  - source: {kind: ConfigMap, fieldPath: data.image}\n"
                                     "    targets:\n      - select: {kind: ConfigMap}\n"
                                     "        fieldPaths: [data.tags]\n"
                                     "        options: {delimiter: ',', index: 1}\n") == 0);
    /* the quoted "3" makes the int target a string, in the source's double quotes; the comment stays */
    CHECK(strstr(dump(&f, 1), "  replicas: \"3\" # scale\n") != NULL);
    /* the single-quoted '123' keeps its single quotes */
    CHECK(strstr(dump(&f, 1), "      - name: app\n        image: '123'\n") != NULL);
    CHECK_STR(path_str(f.items.v[0]->root, "data", "tags", NULL), "a,nginx:1.21");
    fx_close(&f);
}

TEST(apply_replacements_latest_scalar_target_keeps_its_style)
{
    struct fx f;
    fx_open(&f, CM_AND_DEPLOY);
    CHECK(fx_run_pinned(&f, 0, 1, 2, "  - source: {kind: ConfigMap, fieldPath: data.name}\n"
                                     "    targets:\n      - select: {kind: ConfigMap}\n"
                                     "        fieldPaths: [data.replicas]\n") == 0);
    /* the double-quoted target stays double-quoted: only the text comes from the single-quoted source */
    CHECK(strstr(dump(&f, 0), "  replicas: \"123\"\n") != NULL);
    fx_close(&f);
}

TEST(apply_replacements_walking_into_the_wrong_kind_fails)
{
    struct fx f;
    fx_open(&f, CM_AND_DEPLOY);
    CHECK(fails_with(&f,
                     fx_run(&f, "  - source: {kind: ConfigMap, fieldPath: data.image}\n"
                                "    targets:\n      - select: {kind: Deployment}\n"
                                "        fieldPaths: [spec.template.spec.containers.image]\n"),
                     "replacements[0].targets[0]: field path `spec.template.spec.containers.image`: "
                     "`spec.template.spec.containers` is a list, so `image` cannot name a key"));
    CHECK(fails_with(&f,
                     fx_run(&f, "  - source: {kind: ConfigMap, fieldPath: data.image.x}\n"
                                "    targets:\n      - select: {kind: Deployment}\n"),
                     "`data.image` is a scalar, so `x` cannot name a key"));
    fx_close(&f);
}

TEST(apply_replacements_source_must_select_exactly_one)
{
    struct fx f;
    fx_open(&f, CM_AND_DEPLOY "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n");
    CHECK(fails_with(&f,
                     fx_run(&f, "  - source: {kind: ConfigMap}\n    targets:\n      - select: {kind: Deployment}\n"),
                     "replacements[0].source: {kind: ConfigMap} selects more than one object (ConfigMap/default/cfg "
                     "and ConfigMap/other)"));
    CHECK(fails_with(&f,
                     fx_run(&f, "  - source: {kind: ConfigMap, name: cfg}\n    targets:\n      - select: {kind: X}\n"
                                "  - source: {kind: Secret, name: cfg}\n    targets:\n      - select: {kind: X}\n"),
                     "replacements[1].source: nothing selected by {kind: Secret, name: cfg}"));
    CHECK(fails_with(&f,
                     fx_run(&f, "  - source: {kind: ConfigMap, name: cfg, fieldPath: data.missing}\n"
                                "    targets:\n      - select: {kind: X}\n"),
                     "replacements[0].source: fieldPath `data.missing` is missing or empty"));
    /* namespace "default" also selects objects without a namespace */
    CHECK(fx_run(&f, "  - source: {kind: ConfigMap, name: other, namespace: default}\n"
                     "    targets:\n      - select: {kind: Deployment, namespace: default}\n"
                     "        fieldPaths: [metadata.labels.app]\n") == 0);
    CHECK_STR(path_str(f.items.v[1]->root, "metadata", "labels", "app", NULL), "other");
    fx_close(&f);
}

TEST(apply_replacements_label_selectors_and_reject)
{
    struct fx f;
    fx_open(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: src\ndata:\n  v: new\n"
                "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels: {tier: web, env: prod}\n"
                "data:\n  v: old\n"
                "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  labels: {tier: db}\n"
                "  annotations: {skip: \"yes\"}\ndata:\n  v: old\n"
                "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  v: old\n");
    CHECK(fx_run(&f, "  - source: {name: src, fieldPath: data.v}\n"
                     "    targets:\n      - select: {kind: ConfigMap, labelSelector: 'tier in (web, db)'}\n"
                     "        reject: [{annotationSelector: skip=yes}]\n        fieldPaths: [data.v]\n") == 0);
    CHECK_STR(path_str(f.items.v[1]->root, "data", "v", NULL), "new");
    CHECK_STR(path_str(f.items.v[2]->root, "data", "v", NULL), "old");
    CHECK_STR(path_str(f.items.v[3]->root, "data", "v", NULL), "old");
    /* a reject applies only when all of its criteria match: name b with tier=web is no object */
    CHECK(fx_run(&f, "  - source: {name: src, fieldPath: data.v}\n"
                     "    targets:\n      - select: {labelSelector: '!env'}\n"
                     "        reject: [{name: b, labelSelector: tier=web}, {name: src}]\n"
                     "        fieldPaths: [data.v]\n") == 0);
    CHECK_STR(path_str(f.items.v[2]->root, "data", "v", NULL), "new");
    CHECK_STR(path_str(f.items.v[3]->root, "data", "v", NULL), "new");
    CHECK_STR(path_str(f.items.v[1]->root, "data", "v", NULL), "new");
    CHECK(fails_with(&f,
                     fx_run(&f, "  - source: {name: src}\n    targets:\n      - select: {labelSelector: 'a in b'}\n"),
                     "replacements[0].targets[0].select.labelSelector: selector \"a in b\": expected '(' after in/notin"));
    fx_close(&f);
}

TEST(apply_replacements_previous_names_select)
{
    struct fx f;
    fx_open(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: prod-cfg\n  annotations:\n"
                "    internal.config.kubernetes.io/previousNames: cfg\n"
                "    internal.config.kubernetes.io/previousKinds: ConfigMap\n"
                "    internal.config.kubernetes.io/previousNamespaces: default\ndata:\n  v: x\n"
                "---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n");
    CHECK(fx_run(&f, "  - source: {kind: ConfigMap, name: cfg, fieldPath: data.v}\n"
                     "    targets:\n      - select: {kind: Secret}\n        fieldPaths: [stringData.v]\n"
                     "        options: {create: true}\n") == 0);
    CHECK_STR(path_str(f.items.v[1]->root, "stringData", "v", NULL), "x");
    fx_close(&f);
}

/* prod-cfg was cfg before a rename; the reject names its old name */
#define RENAMED_TARGETS                                                                                                \
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: src\ndata:\n  v: new\n"                                       \
    "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: prod-cfg\n  annotations:\n"                              \
    "    internal.config.kubernetes.io/previousNames: cfg\n"                                                          \
    "    internal.config.kubernetes.io/previousKinds: ConfigMap\n"                                                    \
    "    internal.config.kubernetes.io/previousNamespaces: default\ndata:\n  v: old\n"
#define REJECT_OLD_NAME                                                                                                \
    "  - source: {name: src, fieldPath: data.v}\n"                                                                    \
    "    targets:\n      - select: {kind: ConfigMap}\n        reject: [{name: cfg}, {name: src}]\n"                   \
    "        fieldPaths: [data.v]\n"

TEST(apply_replacements_latest_reject_matches_previous_ids)
{
    struct fx f;
    fx_open(&f, RENAMED_TARGETS);
    CHECK(fx_run(&f, REJECT_OLD_NAME) == 0);
    CHECK_STR(path_str(f.items.v[1]->root, "data", "v", NULL), "old");
    fx_close(&f);
}

TEST(apply_replacements_v0_1_1_reject_checks_the_selecting_id)
{
    struct fx f;
    fx_open(&f, RENAMED_TARGETS);
    /* the current id (prod-cfg) selects the object and is not rejected: the old name does not save it */
    CHECK(fx_run_pinned(&f, 0, 1, 1, REJECT_OLD_NAME) == 0);
    CHECK_STR(path_str(f.items.v[1]->root, "data", "v", NULL), "new");
    fx_close(&f);
}

TEST(apply_replacements_v0_1_1_has_no_source_value)
{
    struct fx f;
    fx_open(&f, JOB);
    static const char *const lit = "  - sourceValue: x\n    targets:\n      - select: {kind: Job}\n"
                                   "        fieldPaths: [metadata.labels.x]\n        options: {create: true}\n";
    CHECK(fails_with(&f, fx_run_pinned(&f, 0, 1, 1, lit),
                     "replacements[0]: sourceValue is not supported by apply-replacements v0.1.1"));
    CHECK(fx_run_pinned(&f, 0, 1, 2, lit) == 0);
    CHECK_STR(path_str(f.items.v[0]->root, "metadata", "labels", "x", NULL), "x");
    fx_close(&f);
}

TEST(apply_replacements_missing_config_message_by_version)
{
    struct fx f;
    fx_open(&f, JOB);
    CHECK(fails_with(&f, fx_run_pinned(&f, 0, 1, 0, NULL),
                     "received functionConfig of kind `` and apiVersion ``; only kind ApplyReplacements"));
    CHECK(fails_with(&f, fx_run_pinned(&f, 0, 1, 1, NULL), "FunctionConfig is missing"));
    fx_close(&f);
}

TEST(apply_replacements_config_errors)
{
    static const struct {
        const char *config;
        const char *message;
    } cases[] = {
        {NULL, "FunctionConfig is missing: apply-replacements needs a functionConfig of kind ApplyReplacements"},
        {"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n",
         "received functionConfig of kind `ConfigMap` and apiVersion `v1`"},
        {"apiVersion: fn.kpt.dev/v1\nkind: ApplyReplacements\nmetadata:\n  name: c\n",
         "only kind ApplyReplacements with apiVersion fn.kpt.dev/v1alpha1 is supported"},
        {"- a\n", "received functionConfig of kind `` and apiVersion ``"},
        {"text\n", "received functionConfig of kind ``"},
        {HEAD "replacements: {}\n", "ApplyReplacements.replacements must be a list"},
        {HEAD "replacement: []\n", "ApplyReplacements: unknown field `replacement`"},
        {HEAD "replacements: [x]\n", "replacements[0] must be a map with source and targets"},
        {HEAD "replacements:\n  - targets: [{select: {}}]\n", "replacements[0]: a replacement must specify a source"},
        {HEAD "replacements:\n  - source: {kind: A}\n    sourceValue: x\n    targets: [{select: {}}]\n",
         "give either source or sourceValue, not both"},
        {HEAD "replacements:\n  - source: {kind: A}\n", "replacements[0]: a replacement needs at least one target"},
        {HEAD "replacements:\n  - source: {kind: A}\n    targets: []\n", "needs at least one target"},
        {HEAD "replacements:\n  - source: [a]\n    targets: [{select: {}}]\n", "replacements[0].source must be a map"},
        {HEAD "replacements:\n  - source: {kind: A, labelSelector: x}\n    targets: [{select: {}}]\n",
         "replacements[0].source: unknown field `labelSelector`"},
        {HEAD "replacements:\n  - source: {kind: [A]}\n    targets: [{select: {}}]\n",
         "replacements[0].source.kind must be a string, not a list"},
        {HEAD "replacements:\n  - source: {kind: A}\n    targets: [{fieldPaths: [a]}]\n",
         "replacements[0].targets[0]: a target must specify resources to select (`select`)"},
        {HEAD "replacements:\n  - source: {kind: A}\n    targets: [x]\n", "replacements[0].targets[0] must be a map"},
        {HEAD "replacements:\n  - source: {kind: A}\n    targets: [{select: {}, fieldPaths: a}]\n",
         "replacements[0].targets[0].fieldPaths must be a list"},
        {HEAD "replacements:\n  - source: {kind: A}\n    targets: [{select: {}, fieldPaths: [{a: b}]}]\n",
         "replacements[0].targets[0].fieldPaths[0] must be a string"},
        {HEAD "replacements:\n  - source: {kind: A}\n    targets: [{select: {}, fieldPaths: ['a.[name=(x].b']}]\n",
         "replacements[0].targets[0].fieldPaths[0]: the pattern in [name=(x] does not compile: missing closing "
         "parenthesis"},
        {HEAD "replacements:\n  - source: {kind: A}\n    targets: [{select: {}, fieldPaths: ['a..b']}]\n",
         "field path `a..b` has an empty element"},
        {HEAD "replacements:\n  - source: {kind: A}\n    targets: [{select: {}, fieldPaths: ['a.[b.c']}]\n",
         "field path `a.[b.c`: '[' without a closing ']'"},
        {HEAD "replacements:\n  - source: {kind: A}\n    targets: [{select: {}, options: {index: x}}]\n",
         "replacements[0].targets[0].options.index must be an integer"},
        {HEAD "replacements:\n  - source: {kind: A}\n    targets: [{select: {}, options: {create: 'yes'}}]\n",
         "replacements[0].targets[0].options.create must be true or false"},
        {HEAD "replacements:\n  - source: {kind: A}\n    targets: [{select: {}, options: {delim: x}}]\n",
         "replacements[0].targets[0].options: unknown field `delim`"},
        {HEAD "replacements:\n  - source: {kind: A}\n    targets: [{select: {}, reject: {kind: B}}]\n",
         "replacements[0].targets[0].reject must be a list"},
        {HEAD "replacements:\n  - source: {kind: A}\n    targets: [{select: {}, reject: [b]}]\n",
         "replacements[0].targets[0].reject[0] must be a map"},
        {HEAD "replacements:\n  - source: {kind: A, fieldPath: 'a.*'}\n    targets: [{select: {}}]\n",
         "'*' cannot be used where one value is read"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct fx f;
        fx_open(&f, "apiVersion: v1\nkind: A\nmetadata:\n  name: a\n");
        int rc = fx_run_config(&f, cases[i].config);
        if (rc >= 0 || !strstr(diag_message(), cases[i].message)) {
            char m[1024];
            snprintf(m, sizeof m, "case %zu: rc %d, message \"%s\", want \"%s\"", i, rc, diag_message(),
                     cases[i].message);
            test_fail(__FILE__, __LINE__, m);
            fx_close(&f);
            return;
        }
        fx_close(&f);
    }
}

/* The field-path and selector parsers know neither the file nor the line (fail_here); the function places their
 * errors: the config's file and the line of the field at fault, or the resource's file, id and line. */
TEST(apply_replacements_places_parser_errors)
{
    struct fx f;
    fx_open(&f, "apiVersion: v1\nkind: A\nmetadata:\n  name: a\nspec: [x]\n");
    CHECK(fx_apply(&f, "apply-replacements",
                   HEAD "replacements:\n  - source:\n      kind: A\n      fieldPath: metadata.name\n"
                        "    targets:\n    - select: {kind: A}\n      reject:\n      - labelSelector: 'a in (x'\n",
                   "fn.yaml") < 0);
    CHECK_STR(diag_message(), "fn.yaml:12: replacements[0].targets[0].reject[0].labelSelector: selector \"a in (x\": "
                              "expected ',' or ')' in a value set at position 8");
    fx_close(&f);
    fx_open(&f, "apiVersion: v1\nkind: A\nmetadata:\n  name: a\nspec: [x]\n");
    CHECK(fx_apply(&f, "apply-replacements",
                   HEAD "replacements:\n  - source: {kind: A, fieldPath: metadata.name}\n"
                        "    targets: [{select: {kind: A}, fieldPaths: [spec.x]}]\n",
                   "fn.yaml") < 0);
    CHECK_STR(diag_message(), "r.yaml:1: A/a: replacements[0].targets[0]: field path `spec.x`: `spec` is a list, so "
                              "`x` cannot name a key");
    fx_close(&f);
}

TEST(apply_replacements_no_replacements_is_a_warning)
{
    struct fx f;
    fx_open(&f, JOB);
    CHECK(fx_run_config(&f, HEAD "replacements: []\n") == 0);
    CHECK(fx_run_config(&f, HEAD) == 0);
    CHECK(f.results.n == 2 && f.results.v[0].severity == SEV_WARNING);
    CHECK_STR(f.results.v[0].message, "no replacements to apply");
    fx_close(&f);
}

/* ---- the field-path language ---- */

/* What the call just made recorded with fail_here() (these tests set no step), and a fresh record for the next. */
static const char *failed_here(void)
{
    static char m[2048];
    snprintf(m, sizeof m, "%s", diag_failed() ? diag_message() : "(nothing recorded)");
    diag_reset();
    return m;
}

TEST(fieldpath_splits_like_kyaml)
{
    arena *a = arena_new();
    fieldpath fp;
    CHECK(fieldpath_parse(a, "spec.containers.[name=com.foo.app].env.3.*.[=x].a\\.b.[c.d/e].[f]", true, &fp) ==
          0);
    CHECK(fp.n == 10 && fp.has_every);
    CHECK(fp.seg[0].kind == FP_KEY && !strcmp(fp.seg[0].key, "spec"));
    CHECK(fp.seg[2].kind == FP_MATCH && !strcmp(fp.seg[2].key, "name") && !strcmp(fp.seg[2].value, "com.foo.app"));
    CHECK(fp.seg[4].kind == FP_INDEX && fp.seg[4].index == 3);
    CHECK(fp.seg[5].kind == FP_EVERY);
    CHECK(fp.seg[6].kind == FP_MATCH && !*fp.seg[6].key && !strcmp(fp.seg[6].value, "x"));
    CHECK(fp.seg[7].kind == FP_KEY && !strcmp(fp.seg[7].key, "a.b"));
    CHECK(fp.seg[8].kind == FP_KEY && !strcmp(fp.seg[8].key, "c.d/e"));
    CHECK(fp.seg[9].kind == FP_KEY && !strcmp(fp.seg[9].key, "f"));
    fieldpath_release(&fp);
    CHECK(fieldpath_parse(a, "", true, &fp) < 0 && !strcmp(failed_here(), "the field path is empty"));
    CHECK(fieldpath_parse(a, "a.[]", true, &fp) < 0 && strstr(failed_here(), "empty key"));
    CHECK(fieldpath_parse(a, "a.[x=[]", true, &fp) < 0 && strstr(failed_here(), "does not compile"));
    CHECK(fieldpath_parse(a, "a.[x=[]", false, &fp) == 0); /* sources compare exactly: no regex */
    fieldpath_release(&fp);
    CHECK(fieldpath_parse(a, "a.99999999999999999999999", true, &fp) < 0 && strstr(failed_here(), "too large"));
    arena_free(a);
}

TEST(fieldpath_get_reads_one_value_exactly)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    const char *y = "list:\n- name: app-x\n  v: 1\n- name: app\n  v: 2\nscalars: [a, b, c]\nnull_here:\n";
    node *root;
    CHECK(yaml_load_one(a, st, NULL, "t", y, strlen(y), &root) == 0);
    fieldpath fp;
    node *out;
    CHECK(fieldpath_parse(a, "list.[name=app].v", false, &fp) == 0);
    CHECK(fieldpath_get(a, root, &fp, &out) == 0 && scalar_is(out, "2"));
    CHECK(fieldpath_parse(a, "scalars.-", false, &fp) == 0);
    CHECK(fieldpath_get(a, root, &fp, &out) == 0 && scalar_is(out, "c"));
    CHECK(fieldpath_parse(a, "scalars.[=b]", false, &fp) == 0);
    CHECK(fieldpath_get(a, root, &fp, &out) == 0 && scalar_is(out, "b"));
    CHECK(fieldpath_parse(a, "null_here.x.y", false, &fp) == 0);
    CHECK(fieldpath_get(a, root, &fp, &out) == 0 && out == NULL);
    CHECK(fieldpath_parse(a, "list.9", false, &fp) == 0);
    CHECK(fieldpath_get(a, root, &fp, &out) == 0 && out == NULL);
    CHECK(fieldpath_parse(a, "list.x", false, &fp) == 0);
    CHECK(fieldpath_get(a, root, &fp, &out) < 0 && strstr(failed_here(), "`list` is a list, so `x` cannot name a key"));
    strtab_release(st);
    arena_free(a);
}

/* [k=v] over items that repeat a value: the reads (Lookup, PathGetter) stop at the first exact match, the
 * PathMatcher visits every item the pattern matches, in order, as '*' visits every item. */
TEST(fieldpath_match_takes_the_first_or_every_item)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    const char *y = "list:\n- {name: app-x, v: 0}\n- {name: app, v: 1}\n- {name: app, v: 2}\n";
    node *root;
    CHECK(yaml_load_one(a, st, NULL, "t", y, strlen(y), &root) == 0);
    fieldpath fp;
    node *out;
    CHECK(fieldpath_parse(a, "list.[name=app].v", false, &fp) == 0);
    CHECK(fieldpath_get(a, root, &fp, &out) == 0 && scalar_is(out, "1"));
    nodelist found = {0};
    CHECK(fieldpath_find_first(a, root, &fp, false, &found) == 0 && found.n == 1 && scalar_is(found.v[0], "1"));
    CHECK(fieldpath_parse(a, "list.[name=app].v", true, &fp) == 0);
    found.n = 0;
    CHECK(fieldpath_find(a, root, &fp, false, &found) == 0 && found.n == 3 && scalar_is(found.v[0], "0") &&
          scalar_is(found.v[1], "1") && scalar_is(found.v[2], "2"));
    fieldpath_release(&fp);
    CHECK(fieldpath_parse(a, "list.*.v", false, &fp) == 0);
    found.n = 0;
    CHECK(fieldpath_find(a, root, &fp, false, &found) == 0 && found.n == 3 && scalar_is(found.v[2], "2"));
    strtab_release(st);
    arena_free(a);
}

TEST(fieldpath_find_creates_in_null_values)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    const char *y = "spec:\nitems: ~\n";
    node *root;
    CHECK(yaml_load_one(a, st, NULL, "t", y, strlen(y), &root) == 0);
    fieldpath fp;
    nodelist found = {0};
    CHECK(fieldpath_parse(a, "spec.a.b", true, &fp) == 0);
    CHECK(fieldpath_find(a, root, &fp, false, &found) == 0 && found.n == 0);
    CHECK(fieldpath_find(a, root, &fp, true, &found) == 0 && found.n == 1 && is_null(found.v[0]));
    CHECK(is_map(path_get(root, "spec", "a", NULL)));
    CHECK(fieldpath_parse(a, "items.[=x]", true, &fp) == 0);
    found.n = 0;
    CHECK(fieldpath_find(a, root, &fp, true, &found) == 0 && found.n == 1 && scalar_is(found.v[0], "x"));
    CHECK(is_seq(map_get(root, "items")) && node_len(map_get(root, "items")) == 1);
    fieldpath_release(&fp);
    strtab_release(st);
    arena_free(a);
}

/* ---- selectors ---- */

TEST(label_selector_forms)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    const char *y = "app: web\ntier: front\nrelease: \"3\"\n";
    node *labels;
    CHECK(yaml_load_one(a, st, NULL, "t", y, strlen(y), &labels) == 0);
    static const struct {
        const char *sel;
        bool match;
    } cases[] = {
        {"", true},
        {"  ", true},
        {"app=web", true},
        {"app==web", true},
        {"app = web , tier=front", true},
        {"app!=web", false},
        {"missing!=x", true},
        {"app in (web, api)", true},
        {"app notin (web)", false},
        {"missing notin (web)", true},
        {"app", true},
        {"!app", false},
        {"!missing", true},
        {"release>2", true},
        {"release<3", false},
        {"app>2", false},
        {"tier in (back),app", false},
        {"app=", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        label_selector *s = label_selector_parse(a, cases[i].sel);
        if (!s || label_selector_matches(s, labels) != cases[i].match) {
            test_fail(__FILE__, __LINE__, s ? cases[i].sel : failed_here()); /* the error names the selector */
            break;
        }
    }
    const char *bad[] = {"app in ()", "a b", "a in (x", "=x", "a>x", "!", "a,,b", "a notin x"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        if (label_selector_parse(a, bad[i]) || !strstr(failed_here(), "at position")) {
            char m[256];
            snprintf(m, sizeof m, "selector \"%s\" should not parse", bad[i]);
            test_fail(__FILE__, __LINE__, m);
            break;
        }
    }
    label_selector *s = label_selector_parse(a, "app=web");
    CHECK(!label_selector_matches(s, NULL));
    strtab_release(st);
    arena_free(a);
}
