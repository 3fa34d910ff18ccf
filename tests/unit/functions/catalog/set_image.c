/* set-image, newest profile (the fixture's steps pin no version): config forms and errors, the kinds it covers
 * (v1 Pod, apps/v1 workloads; containers and initContainers), the formatting of the new value, the literal name
 * match, additionalImageFields and the count. The v0.1 profile is in tests/golden/set-image-v0.1.*. */
#include <stdlib.h>

#include "check.h"
#include "fixture.h"
#include "functions/function.h"
#include "util/diag.h"
#include "yaml/load.h"


static int fx_run(struct fx *f, const char *config)
{
    return fx_apply(f, "set-image", config, "fn-config.yaml");
}

static const char *last_message(struct fx *f)
{
    return f->results.n ? f->results.v[f->results.n - 1].message : "";
}

/* A ConfigMap config from "k: v" lines. */
static const char *cm(struct fx *f, const char *data)
{
    return arena_printf(f->a, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n%s", data);
}

static const char *pod(const char *image)
{
    static char buf[512];
    snprintf(buf, sizeof buf,
             "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: %s\n",
             image);
    return buf;
}

/* The image of the first container of a Pod after one run with a ConfigMap config. */
static const char *retag(const char *image, const char *data)
{
    static char out[512];
    struct fx f;
    fx_open(&f, pod(image));
    if (fx_run(&f, cm(&f, data)) < 0) {
        snprintf(out, sizeof out, "error: %s", diag_message());
        diag_reset();
    } else {
        node *cs = path_get(f.items.v[0]->root, "spec", "containers", NULL);
        snprintf(out, sizeof out, "%s", path_str(seq_item(cs, 0), "image", NULL));
    }
    fx_close(&f);
    return out;
}

TEST(set_image_formats_the_new_value)
{
    const char *dig = "sha256:e1d6f00f191515945233f562777fc9ab3b7637ea75169b3dd628d46c9b24400f";
    CHECK_STR(retag("nginx:1.20.2", "  name: nginx\n  newName: bitnami/nginx\n  newTag: 1.21.4\n"),
              "bitnami/nginx:1.21.4");
    char data[256];
    snprintf(data, sizeof data, "  name: nginx\n  newName: bitnami/nginx\n  digest: %s\n", dig);
    CHECK_STR(retag("nginx:1.20.2", data),
              "bitnami/nginx@sha256:e1d6f00f191515945233f562777fc9ab3b7637ea75169b3dd628d46c9b24400f");
    CHECK_STR(retag("nginx:1.20.2", "  name: nginx\n  newTag: 1.21.4\n"), "nginx:1.21.4");
    CHECK_STR(retag("nginx", "  name: nginx\n  newTag: \"1.21\"\n"), "nginx:1.21");
    /* newName alone keeps the tag with its colon, and the digest with its @ */
    CHECK_STR(retag("nginx:1.2", "  name: nginx\n  newName: bitnami/nginx\n"), "bitnami/nginx:1.2");
    CHECK_STR(retag("nginx@sha256:abc", "  name: nginx\n  newName: bitnami/nginx\n"), "bitnami/nginx@sha256:abc");
    CHECK_STR(retag("nginx:1.2@sha256:abc", "  name: nginx\n  newName: bitnami/nginx\n"),
              "bitnami/nginx:1.2@sha256:abc");
    CHECK_STR(retag("nginx", "  name: nginx\n  newName: bitnami/nginx\n"), "bitnami/nginx");
    /* newTag replaces a digest, digest replaces a tag; both give name:tag@digest (kustomize 5) */
    CHECK_STR(retag("nginx:1.2@sha256:abc", "  name: nginx\n  newTag: \"2\"\n"), "nginx:2");
    CHECK_STR(retag("nginx:1.2", "  name: nginx\n  digest: sha256:def\n"), "nginx@sha256:def");
    CHECK_STR(retag("nginx:1.2@sha256:abc", "  name: nginx\n  newTag: \"2\"\n  digest: sha256:def\n"),
              "nginx:2@sha256:def");
}

TEST(set_image_matches_the_name_literally)
{
    /* the name is not a regex: "." is a dot */
    CHECK_STR(retag("axb:1", "  name: a.b\n  newTag: \"2\"\n"), "axb:1");
    CHECK_STR(retag("a.b:1", "  name: a.b\n  newTag: \"2\"\n"), "a.b:2");
    /* a registry prefix is part of the name */
    CHECK_STR(retag("docker.io/nginx:1", "  name: nginx\n  newTag: \"2\"\n"), "docker.io/nginx:1");
    CHECK_STR(retag("docker.io/nginx:1", "  name: docker.io/nginx\n  newTag: \"2\"\n"), "docker.io/nginx:2");
    CHECK_STR(retag("localhost:5000/nginx:1.0", "  name: localhost:5000/nginx\n  newTag: \"2\"\n"),
              "localhost:5000/nginx:2");
    CHECK_STR(retag("localhost:5000/nginx", "  name: localhost:5000/nginx\n  newName: r/nginx\n"), "r/nginx");
    /* a longer name or another path does not match */
    CHECK_STR(retag("nginx-extra:1", "  name: nginx\n  newTag: \"2\"\n"), "nginx-extra:1");
    CHECK_STR(retag("nginx/sub:1", "  name: nginx\n  newTag: \"2\"\n"), "nginx/sub:1");
    CHECK_STR(retag("nginx:1:2", "  name: nginx\n  newTag: \"2\"\n"), "nginx:1:2");
    /* tags with braces (Bazel templates) */
    CHECK_STR(retag("nginx:{STABLE_TAG}", "  name: nginx\n  newTag: \"2\"\n"), "nginx:2");
}

TEST(set_image_config_errors_fail)
{
    CHECK_STR(retag("nginx", "  name: nginx\n  newTag: \"2\"\n  other: x\n"),
              "error: fn-config.yaml:8: ConfigMap has wrong field name other");
    CHECK(strstr(retag("nginx", "  newTag: \"2\"\n"), "invalid FunctionConfig: must specify `name`") != NULL);
    CHECK(strstr(retag("nginx", "  name: nginx\n"),
                 "invalid FunctionConfig: must specify one of `newName`, `newTag`, or `digest`") != NULL);
    /* an image that is not a string is an error, not a silent skip */
    struct fx g;
    fx_open(&g, "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n"
                "    image: {name: nginx}\n");
    CHECK(fx_run(&g, cm(&g, "  name: nginx\n  newTag: \"2\"\n")) < 0);
    CHECK(strstr(diag_message(), "spec/containers[]/image must be an image reference") != NULL);
    diag_reset();
    fx_close(&g);
    struct fx f;
    fx_open(&f, pod("nginx"));
    CHECK(fx_run(&f, NULL) < 0);
    CHECK(strstr(diag_message(), "set-image needs a functionConfig") != NULL);
    diag_reset();
    CHECK(fx_run(&f, "apiVersion: example.com/v1\nkind: Other\nmetadata:\n  name: x\n") < 0);
    CHECK(strstr(diag_message(), "unknown functionConfig Kind=Other") != NULL);
    diag_reset();
    CHECK(fx_run(&f, "apiVersion: fn.kpt.dev/v1alpha1\nkind: SetImage\nmetadata:\n  name: x\nimage:\n  name: nginx\n"
                     "  newTage: \"2\"\n") < 0);
    CHECK(strstr(diag_message(), "unknown field `image.newTage`") != NULL);
    diag_reset();
    fx_close(&f);
}

TEST(set_image_newest_covers_v1_pods_and_apps_v1_workloads_only)
{
    struct fx f;
    const char *spec =
        "    spec:\n      initContainers:\n      - name: i\n        image: nginx:1\n"
        "      containers:\n      - name: c\n        image: nginx:1\n      - name: d\n        image: redis:1\n";
    /* the first four are covered; a Job, a ReplicationController and an old apps group are not (2026 catalog) */
    const char *kinds[] = {"apps/v1 Deployment", "apps/v1 StatefulSet",       "apps/v1 ReplicaSet",
                           "apps/v1 DaemonSet",  "batch/v1 Job",              "v1 ReplicationController",
                           "apps/v1beta1 Deployment"};
    arena *tmp = arena_new();
    char *yaml = "";
    for (size_t i = 0; i < 7; i++) {
        char av[64], kind[64];
        sscanf(kinds[i], "%63s %63s", av, kind);
        yaml = arena_printf(tmp, "%s%sapiVersion: %s\nkind: %s\nmetadata:\n  name: w\nspec:\n  template:\n%s", yaml,
                            i ? "---\n" : "", av, kind, spec);
    }
    yaml = arena_printf(tmp,
                        "%s---\napiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: cj\nspec:\n  jobTemplate:\n"
                        "    spec:\n      template:\n        spec:\n          containers:\n          - name: c\n"
                        "            image: nginx:1\n",
                        yaml);
    yaml = arena_printf(tmp,
                        "%s---\napiVersion: v1\nkind: PodTemplate\nmetadata:\n  name: pt\ntemplate:\n  spec:\n"
                        "    containers:\n    - name: c\n      image: nginx:1\n",
                        yaml);
    yaml = arena_printf(tmp,
                        "%s---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  initContainers:\n"
                        "  - name: i\n    image: nginx:1\n  containers:\n  - name: c\n    image: nginx:1\n",
                        yaml);
    /* a kind that is not listed is not touched, even with the same shape */
    yaml = arena_printf(tmp,
                        "%s---\napiVersion: example.com/v1\nkind: Thing\nmetadata:\n  name: t\nspec:\n  containers:\n"
                        "  - name: c\n    image: nginx:1\n",
                        yaml);
    fx_open(&f, yaml);
    CHECK(fx_run(&f, cm(&f, "  name: nginx\n  newName: bitnami/nginx\n  newTag: \"2\"\n")) == 0);
    for (size_t i = 0; i < 7; i++) {
        const char *want = i < 4 ? "bitnami/nginx:2" : "nginx:1";
        node *ps = path_get(f.items.v[i]->root, "spec", "template", "spec", NULL);
        CHECK_STR(path_str(seq_item(path_get(ps, "initContainers", NULL), 0), "image", NULL), want);
        CHECK_STR(path_str(seq_item(path_get(ps, "containers", NULL), 0), "image", NULL), want);
        CHECK_STR(path_str(seq_item(path_get(ps, "containers", NULL), 1), "image", NULL), "redis:1");
    }
    node *cj = path_get(f.items.v[7]->root, "spec", "jobTemplate", "spec", "template", "spec", NULL);
    CHECK_STR(path_str(seq_item(path_get(cj, "containers", NULL), 0), "image", NULL), "nginx:1");
    node *pt = path_get(f.items.v[8]->root, "template", "spec", "containers", NULL);
    CHECK_STR(path_str(seq_item(pt, 0), "image", NULL), "nginx:1");
    node *p = path_get(f.items.v[9]->root, "spec", NULL);
    CHECK_STR(path_str(seq_item(path_get(p, "initContainers", NULL), 0), "image", NULL), "bitnami/nginx:2");
    CHECK_STR(path_str(seq_item(path_get(p, "containers", NULL), 0), "image", NULL), "bitnami/nginx:2");
    node *t = path_get(f.items.v[10]->root, "spec", "containers", NULL);
    CHECK_STR(path_str(seq_item(t, 0), "image", NULL), "nginx:1");
    CHECK_STR(last_message(&f), "summary: updated a total of 10 image(s)");
    fx_close(&f);
    arena_free(tmp);
}

/* kustomize's mutation tracker fires on every matching field, also when the value stays (the 2026 catalog's test
 * "no-op update still logs mutation", and its set-image-with-same-name case: 2) */
TEST(set_image_counts_every_matching_field)
{
    struct fx f;
    fx_open(
        &f,
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: a\n    image: nginx:1.20.2\n"
        "  - name: b\n    image: nginx:1.14.1\n");
    CHECK(fx_run(&f, cm(&f, "  name: nginx\n  newTag: 1.20.2\n")) == 0);
    CHECK_STR(last_message(&f), "summary: updated a total of 2 image(s)");
    CHECK(f.results.v[f.results.n - 1].severity == SEV_INFO);
    fx_close(&f);
}

TEST(set_image_additional_image_fields)
{
    struct fx f;
    fx_open(
        &f,
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: the-pod\nspec:\n  containers:\n  - name: server\n"
        "    image: nginx:1.20.2\n  - name: store\n    image: postgres:14.1\n"
        "---\napiVersion: dev.example.com/v1\nkind: MyKind\nmetadata:\n  name: r\n  namespace: ns\nspec:\n  manifest:\n"
        "    images:\n    - image: nginx:1.20.2\n    - image: postgres:14.1\n"
        "---\napiVersion: other.example.com/v1\nkind: MyKind\nmetadata:\n  name: r2\nspec:\n  manifest:\n"
        "    images:\n    - image: nginx:1.20.2\n"
        "---\napiVersion: dev.example.com/v1\nkind: MyKind\nmetadata:\n  name: r3\nspec: {}\n");
    CHECK(fx_run(&f,
                 "apiVersion: fn.kpt.dev/v1alpha1\nkind: SetImage\nmetadata:\n  name: cfg\nimage:\n  name: nginx\n"
                 "  newName: bitnami/nginx\n  newTag: 1.21.4\nadditionalImageFields:\n- kind: MyKind\n  create: true\n"
                 "  group: dev.example.com\n  path: spec/manifest/images[]/image\n  version: v1\n") == 0);
    node *cs = path_get(f.items.v[0]->root, "spec", "containers", NULL);
    CHECK_STR(path_str(seq_item(cs, 0), "image", NULL), "bitnami/nginx:1.21.4");
    CHECK_STR(path_str(seq_item(cs, 1), "image", NULL), "postgres:14.1");
    node *im = path_get(f.items.v[1]->root, "spec", "manifest", "images", NULL);
    CHECK_STR(path_str(seq_item(im, 0), "image", NULL), "bitnami/nginx:1.21.4");
    CHECK_STR(path_str(seq_item(im, 1), "image", NULL), "postgres:14.1");
    im = path_get(f.items.v[2]->root, "spec", "manifest", "images", NULL);
    CHECK_STR(path_str(seq_item(im, 0), "image", NULL), "nginx:1.20.2");
    CHECK(path_get(f.items.v[3]->root, "spec", "manifest", NULL) == NULL); /* never created */
    CHECK_STR(last_message(&f), "summary: updated a total of 2 image(s)");
    fx_close(&f);
}

TEST(set_image_keeps_comments_and_quotes)
{
    struct fx f;
    fx_open(&f, "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: a\n"
                "    image: \"nginx:1\" # kpt-set: nginx:${tag}\n");
    CHECK(fx_run(&f, cm(&f, "  name: nginx\n  newTag: \"2\"\n")) == 0);
    node *img = path_get(seq_item(path_get(f.items.v[0]->root, "spec", "containers", NULL), 0), "image", NULL);
    CHECK_STR(scalar(img), "nginx:2");
    CHECK(node_style(img) == ST_DOUBLE);
    CHECK_STR(node_comment(img), "kpt-set: nginx:${tag}");
    fx_close(&f);
}

/* A run as a step pinned to a release does it (fx_apply runs the newest profile). */
static int fx_run_pinned(struct fx *f, const char *config, int major, int minor, int patch)
{
    node *cfg = NULL;
    if (config)
        yaml_load_one(f->a, f->st, NULL, "fn-config.yaml", config, strlen(config), &cfg);
    fn_ctx c = {.a = f->a, .st = f->st, .items = &f->items, .config = cfg, .config_file = "fn-config.yaml",
                .results = &f->results, .version = {true, major, minor, patch}};
    return fn_lookup("set-image")->run(&c);
}

/* v0.1.x: one info result per matching field (unchanged ones too: kustomize's tracker fires on every set), sorted
 * by file, index and text as the SDK sorts them; "no images changed" when nothing matched; no summary. */
TEST(set_image_v0_1_results_per_field)
{
    struct fx f;
    fx_open(&f, NULL);
    fx_add(&f, "b.yaml",
           "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\nspec:\n  template:\n    spec:\n      containers:\n"
           "      - name: a\n        image: nginx:1\n");
    fx_add(&f, "a.yaml",
           "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: a\n    image: nginx:2\n"
           "  - name: b\n    image: nginx:1\n");
    CHECK(fx_run_pinned(&f, cm(&f, "  name: nginx\n  newTag: \"2\"\n"), 0, 1, 1) == 0);
    CHECK(f.results.n == 3);
    if (f.results.n == 3) {
        CHECK_STR(f.results.v[0].message, "set image from nginx:1 to nginx:2");
        CHECK_STR(f.results.v[0].res->path, "a.yaml");
        CHECK_STR(f.results.v[1].message, "set image from nginx:2 to nginx:2");
        CHECK_STR(f.results.v[2].message, "set image from nginx:1 to nginx:2");
        CHECK_STR(f.results.v[2].res->path, "b.yaml");
        CHECK_STR(f.results.v[2].field, "spec/template/spec/containers[]/image");
        CHECK(f.results.v[2].severity == SEV_INFO);
    }
    fx_close(&f);
    fx_open(&f, pod("redis:1"));
    CHECK(fx_run_pinned(&f, cm(&f, "  name: nginx\n  newTag: \"2\"\n"), 0, 1, 0) == 0);
    CHECK(f.results.n == 1);
    CHECK_STR(last_message(&f), "no images changed");
    fx_close(&f);
}

/* v0.1.x: its own messages; newTag with digest is an error there */
TEST(set_image_v0_1_config_errors)
{
    const char *cases[][2] = {
        {"  newTag: \"2\"\n", "missing image name"},
        {"  name: nginx\n", "missing image newName, newTag, or digest"},
        {"  name: nginx\n  newTag: \"2\"\n  digest: sha256:abc\n", "image newTag and digest both set"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct fx f;
        fx_open(&f, pod("nginx"));
        CHECK(fx_run_pinned(&f, cm(&f, cases[i][0]), 0, 1, 1) < 0);
        CHECK(strstr(diag_message(), cases[i][1]) != NULL);
        fx_close(&f);
    }
    struct fx f;
    fx_open(&f, pod("nginx"));
    CHECK(fx_run_pinned(&f, "apiVersion: example.com/v1\nkind: Other\nmetadata:\n  name: x\n", 0, 1, 0) < 0);
    CHECK(strstr(diag_message(), "`functionConfig` must be a `ConfigMap` or `SetImage`") != NULL);
    fx_close(&f);
}
