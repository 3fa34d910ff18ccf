/* set-image: config forms and errors, every workload kind, containers and initContainers, the formatting of the
 * new value, the literal name match, additionalImageFields and the count. */
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
    /* newTag replaces a digest, digest replaces a tag */
    CHECK_STR(retag("nginx:1.2@sha256:abc", "  name: nginx\n  newTag: \"2\"\n"), "nginx:2");
    CHECK_STR(retag("nginx:1.2", "  name: nginx\n  digest: sha256:def\n"), "nginx@sha256:def");
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
    CHECK(strstr(retag("nginx", "  newTag: \"2\"\n"), "`name` field is missing from image selector") != NULL);
    CHECK(strstr(retag("nginx", "  name: nginx\n"), "must specify one of `newName`, `newTag`, or `digest`") != NULL);
    CHECK(strstr(retag("nginx", "  name: nginx\n  newTag: \"2\"\n  digest: sha256:abc\n"), "both set") != NULL);
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

TEST(set_image_every_workload_kind_and_init_containers)
{
    struct fx f;
    const char *spec =
        "    spec:\n      initContainers:\n      - name: i\n        image: nginx:1\n"
        "      containers:\n      - name: c\n        image: nginx:1\n      - name: d\n        image: redis:1\n";
    const char *kinds[] = {"apps/v1 Deployment", "apps/v1 StatefulSet", "apps/v1 ReplicaSet",
                           "apps/v1 DaemonSet",  "batch/v1 Job",        "v1 ReplicationController"};
    arena *tmp = arena_new();
    char *yaml = "";
    for (size_t i = 0; i < 6; i++) {
        char av[64], kind[64];
        sscanf(kinds[i], "%63s %63s", av, kind);
        yaml = arena_printf(tmp, "%s%sapiVersion: %s\nkind: %s\nmetadata:\n  name: w\nspec:\n  template:\n%s", yaml,
                            i ? "---\n" : "", av, kind, spec);
    }
    yaml = arena_printf(tmp,
                        "%s---\napiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: cj\nspec:\n  jobTemplate:\n"
                        "    spec:\n      template:\n        spec:\n          containers:\n          - name: c\n"
                        "            image: nginx:1\n          initContainers:\n          - name: i\n"
                        "            image: nginx\n",
                        yaml);
    yaml = arena_printf(tmp,
                        "%s---\napiVersion: v1\nkind: PodTemplate\nmetadata:\n  name: pt\ntemplate:\n  spec:\n"
                        "    containers:\n    - name: c\n      image: nginx:1\n",
                        yaml);
    yaml = arena_printf(tmp,
                        "%s---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  initContainers:\n"
                        "  - name: i\n    image: nginx:1\n  containers:\n  - name: c\n    image: nginx:1\n",
                        yaml);
    /* a kind that is not a workload is not touched, even with the same shape */
    yaml = arena_printf(tmp,
                        "%s---\napiVersion: example.com/v1\nkind: Thing\nmetadata:\n  name: t\nspec:\n  containers:\n"
                        "  - name: c\n    image: nginx:1\n",
                        yaml);
    fx_open(&f, yaml);
    CHECK(fx_run(&f, cm(&f, "  name: nginx\n  newName: bitnami/nginx\n  newTag: \"2\"\n")) == 0);
    for (size_t i = 0; i < 6; i++) {
        node *ps = path_get(f.items.v[i]->root, "spec", "template", "spec", NULL);
        CHECK_STR(path_str(seq_item(path_get(ps, "initContainers", NULL), 0), "image", NULL), "bitnami/nginx:2");
        CHECK_STR(path_str(seq_item(path_get(ps, "containers", NULL), 0), "image", NULL), "bitnami/nginx:2");
        CHECK_STR(path_str(seq_item(path_get(ps, "containers", NULL), 1), "image", NULL), "redis:1");
    }
    node *cj = path_get(f.items.v[6]->root, "spec", "jobTemplate", "spec", "template", "spec", NULL);
    CHECK_STR(path_str(seq_item(path_get(cj, "containers", NULL), 0), "image", NULL), "bitnami/nginx:2");
    CHECK_STR(path_str(seq_item(path_get(cj, "initContainers", NULL), 0), "image", NULL), "bitnami/nginx:2");
    node *pt = path_get(f.items.v[7]->root, "template", "spec", "containers", NULL);
    CHECK_STR(path_str(seq_item(pt, 0), "image", NULL), "bitnami/nginx:2");
    node *p = path_get(f.items.v[8]->root, "spec", NULL);
    CHECK_STR(path_str(seq_item(path_get(p, "initContainers", NULL), 0), "image", NULL), "bitnami/nginx:2");
    CHECK_STR(path_str(seq_item(path_get(p, "containers", NULL), 0), "image", NULL), "bitnami/nginx:2");
    node *t = path_get(f.items.v[9]->root, "spec", "containers", NULL);
    CHECK_STR(path_str(seq_item(t, 0), "image", NULL), "nginx:1");
    CHECK_STR(last_message(&f), "summary: updated a total of 17 image(s)");
    fx_close(&f);
    arena_free(tmp);
}

TEST(set_image_counts_only_changes)
{
    struct fx f;
    fx_open(
        &f,
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: a\n    image: nginx:1.20.2\n"
        "  - name: b\n    image: nginx:1.14.1\n");
    CHECK(fx_run(&f, cm(&f, "  name: nginx\n  newTag: 1.20.2\n")) == 0);
    CHECK_STR(last_message(&f), "summary: updated a total of 1 image(s)");
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
