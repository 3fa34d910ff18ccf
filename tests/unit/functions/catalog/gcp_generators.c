/* enable-gcp-services and generate-folders: the objects they make (names, fields, annotations, files), what they
 * prune or replace, the order generate-folders hands items back in, the release differences, and the inputs the
 * catalog would silently mangle, which fail here. */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "functions/function.h"
#include "package/package.h"
#include "util/diag.h"
#include "yaml/emit.h"
#include "yaml/load.h"

/* Runs fn as the image tag pins it ("" for none), over items of package pkg (NULL: none, as under `fn`). */
static int run_fn(struct fx *f, const char *fn, const char *tag, package *pkg)
{
    for (size_t i = 0; i < f->items.n; i++)
        f->items.v[i]->pkg = pkg;
    fn_ctx c = {.a = f->a, .st = f->st, .items = &f->items, .results = &f->results, .pkg = pkg,
                .config_file = "Kptfile"};
    const char *warning = NULL;
    fn_version_resolve(f->a, fn, *tag ? tag : NULL, NULL, &c.version, &warning);
    int rc = fn_lookup(fn)->run(&c);
    rlist_compact(&f->items);
    return rc;
}

static const char *doc(struct fx *f, size_t i)
{
    if (i >= f->items.n)
        return "(no such item)";
    buf b = {0};
    emit_opts o = {.seq_wide = false, .comments = true};
    emit_yaml(&b, f->items.v[i]->root, &o);
    const char *s = arena_strndup(f->a, b.data, b.len);
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

/* ---- enable-gcp-services ------------------------------------------------------------------------------------ */

#define PSS(name, extra)                                                                                              \
    "apiVersion: blueprints.cloud.google.com/v1alpha1\nkind: ProjectServiceSet\nmetadata:\n  name: " name "\n"       \
    "  namespace: config-control\n  annotations:\n    cnrm.cloud.google.com/deletion-policy: abandon\n"            \
    "    config.kubernetes.io/local-config: \"false\"\n    cnrm.cloud.google.com/blueprint: bp/v1\n"               \
    "spec:\n  services:\n  - compute.googleapis.com\n  - redis.googleapis.com\n" extra

TEST(enable_gcp_services_makes_one_service_per_entry)
{
    struct fx f;
    fx_open(&f, NULL);
    fx_add(&f, "sets/services.yaml", PSS("proj1", "  projectID: proj1\n"));
    package pkg = {.rel = ""};
    CHECK(run_fn(&f, "enable-gcp-services", "v0.1", &pkg) == 0);
    CHECK(f.items.n == 3);
    /* the set is marked local-config "true", whatever it said */
    CHECK_STR(path_str(f.items.v[0]->root, "metadata", "annotations", "config.kubernetes.io/local-config", NULL), "true");
    CHECK_STR(doc(&f, 1), "apiVersion: serviceusage.cnrm.cloud.google.com/v1beta1\n"
                          "kind: Service\n"
                          "metadata:\n"
                          "  name: proj1-compute\n"
                          "  annotations:\n"
                          "    cnrm.cloud.google.com/deletion-policy: 'abandon'\n"
                          "    cnrm.cloud.google.com/blueprint: 'bp/v1'\n"
                          "    blueprints.cloud.google.com/ownerReference: 'blueprints.cloud.google.com/ProjectServiceSet/proj1'\n"
                          "  namespace: config-control\n"
                          "spec:\n"
                          "  resourceID: compute.googleapis.com\n"
                          "  projectRef:\n"
                          "    external: proj1\n");
    /* beside the set, in a directory named after its namespace, in the set's package */
    CHECK_STR(f.items.v[1]->path, "sets/config-control/service_proj1-compute.yaml");
    CHECK(f.items.v[1]->pkg == &pkg);
    CHECK_STR(res_name(f.items.v[2]), "proj1-redis");
    CHECK(f.results.n == 2);
    CHECK_STR(msg(&f, 0), "generated service");
    CHECK(f.results.v[0].res == f.items.v[1]);
    fx_close(&f);
}

TEST(enable_gcp_services_without_project_has_no_project_ref)
{
    struct fx f;
    fx_open(&f, "apiVersion: blueprints.cloud.google.com/v1alpha1\nkind: ProjectServiceSet\nmetadata:\n  name: s\n"
                "spec:\n  services: [dns.googleapis.com]\n");
    CHECK(run_fn(&f, "enable-gcp-services", "", NULL) == 0);
    CHECK(f.items.n == 2);
    CHECK(path_get(f.items.v[1]->root, "spec", "projectRef", NULL) == NULL);
    CHECK_STR(path_str(f.items.v[1]->root, "spec", "resourceID", NULL), "dns.googleapis.com");
    CHECK(path_get(f.items.v[1]->root, "metadata", "namespace", NULL) == NULL);
    CHECK_STR(f.items.v[1]->path, "service_s-dns.yaml");
    /* the local-config annotation is added when it is missing */
    CHECK_STR(path_str(f.items.v[0]->root, "metadata", "annotations", "config.kubernetes.io/local-config", NULL), "true");
    fx_close(&f);
}

TEST(enable_gcp_services_prunes_and_recreates)
{
    struct fx f;
    fx_open(&f, NULL);
    fx_add(&f, "services.yaml", PSS("proj1", ""));
    fx_add(&f, "old.yaml",
           "apiVersion: serviceusage.cnrm.cloud.google.com/v1beta1\nkind: Service\nmetadata:\n  name: proj1-bigquery\n"
           "  namespace: config-control\n  annotations:\n"
           "    blueprints.cloud.google.com/ownerReference: 'blueprints.cloud.google.com/ProjectServiceSet/proj1'\n"
           "---\napiVersion: serviceusage.cnrm.cloud.google.com/v1beta1\nkind: Service\nmetadata:\n  name: proj1-compute\n"
           "  namespace: config-control\n  annotations:\n"
           "    blueprints.cloud.google.com/ownerReference: 'blueprints.cloud.google.com/ProjectServiceSet/proj1'\n"
           "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n  annotations:\n"
           "    blueprints.cloud.google.com/ownerReference: blueprints.cloud.google.com/ProjectServiceSet/proj2\n");
    CHECK(run_fn(&f, "enable-gcp-services", "v0.1.0", NULL) == 0);
    CHECK(f.items.n == 4); /* the set, the other set's ConfigMap, two new Services */
    CHECK_STR(res_name(f.items.v[1]), "other");
    CHECK_STR(res_name(f.items.v[2]), "proj1-compute");
    CHECK_STR(f.items.v[2]->path, "config-control/service_proj1-compute.yaml");
    CHECK(f.results.n == 3);
    CHECK_STR(msg(&f, 0), "pruned service");
    CHECK_STR(msg(&f, 1), "recreated service");
    CHECK_STR(msg(&f, 2), "generated service");
    CHECK_STR(res_name(f.results.v[2].res), "proj1-redis");
    fx_close(&f);
}

/* Each set finds its own Services through one index of the items by owner (review item C): 3,000 sets cost
 * megabytes, not the 400 MB a list as long as all the items, per set, took (20,000 sets: 7.7 GB). Run in a child
 * process: the memory it takes would otherwise raise the process's peak, which later tests read. Its exit status
 * names the first check that failed. */
static int many_sets(void)
{
    struct fx f;
    fx_open(&f, NULL);
    enum { N = 3000 };
    for (int i = 0; i < N; i++) {
        char *text = arena_printf(f.a, PSS("p%d", "  projectID: p%d\n") "---\n"
                                  "apiVersion: serviceusage.cnrm.cloud.google.com/v1beta1\nkind: Service\nmetadata:\n"
                                  "  name: p%d-compute\n  namespace: config-control\n  annotations:\n"
                                  "    blueprints.cloud.google.com/ownerReference: "
                                  "blueprints.cloud.google.com/ProjectServiceSet/p%d\n",
                                  i, i, i, i);
        fx_add(&f, arena_printf(f.a, "s%d.yaml", i), text);
    }
    size_t before = mem_used();
    int bad = run_fn(&f, "enable-gcp-services", "v0.1.0", NULL) != 0                 ? 1
              : mem_used() - before >= (64u << 20)                                  ? 2
              : f.items.n != 3 * N                                                  ? 3 /* sets, compute, redis */
              : f.results.n != 2 * N                                                ? 4 /* recreated, generated */
              : strcmp(msg(&f, 0), "recreated service")                            ? 5
              : strcmp(res_name(f.results.v[0].res), "p0-compute")                 ? 6
              : strcmp(msg(&f, 1), "generated service")                            ? 7
              : strcmp(res_name(f.results.v[2 * N - 2].res), "p2999-compute")      ? 8
                                                                                    : 0;
    fx_close(&f);
    return bad;
}

TEST(enable_gcp_services_many_sets_is_linear)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0)
        _exit(many_sets());
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) != 2); /* 2: the memory check */
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(enable_gcp_services_refuses_bad_sets)
{
    struct fx f;
    fx_open(&f, "apiVersion: blueprints.cloud.google.com/v1alpha1\nkind: ProjectServiceSet\nmetadata:\n  name: s\n"
                "spec:\n  services: []\n");
    CHECK(run_fn(&f, "enable-gcp-services", "", NULL) < 0);
    CHECK(failed_with("failed to add services: at least one service must be specified under `spec.services[]`"));
    fx_close(&f);

    fx_open(&f, "apiVersion: blueprints.cloud.google.com/v1alpha1\nkind: ProjectServiceSet\nmetadata:\n  name: s\n"
                "spec:\n  services: [compute.googleapis]\n");
    CHECK(run_fn(&f, "enable-gcp-services", "", NULL) < 0);
    CHECK(failed_with("invalid service specified: compute.googleapis"));
    CHECK(f.items.n == 1); /* nothing made */
    fx_close(&f);

    fx_open(&f, "apiVersion: blueprints.cloud.google.com/v1alpha1\nkind: ProjectServiceSet\nmetadata:\n  name: s\n"
                "  namespace: ../../etc\nspec:\n  services: [compute.googleapis.com]\n");
    CHECK(run_fn(&f, "enable-gcp-services", "", NULL) < 0);
    CHECK(failed_with("must not hold \"/\""));
    fx_close(&f);

    fx_open(&f, "apiVersion: blueprints.cloud.google.com/v1alpha1\nkind: ProjectServiceSet\nmetadata:\n  name: s\n"
                "spec:\n  services: [{a: b}]\n");
    CHECK(run_fn(&f, "enable-gcp-services", "", NULL) < 0);
    CHECK(failed_with("spec.services[0] must be a service name"));
    fx_close(&f);
}

/* ---- generate-folders ----------------------------------------------------------------------------------------- */

#define V3_BU                                                                                                        \
    "apiVersion: blueprints.cloud.google.com/v1alpha3\nkind: ResourceHierarchy\nmetadata:\n  name: root\n"          \
    "  namespace: hierarchy\n  annotations:\n    cnrm.cloud.google.com/blueprint: bp\n"                            \
    "    config.kubernetes.io/local-config: 'true'\nspec:\n  config:\n  - Retail:\n    - apps:\n"                  \
    "        $subtree: environments\n  - shared\n  parentRef:\n    external: '1234'\n  subtrees:\n"                 \
    "    environments:\n    - dev\n    - Team_2\n"

TEST(generate_folders_v3_tree_with_subtrees)
{
    struct fx f;
    fx_open(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: z\n");
    fx_add(&f, "hierarchy.yaml", V3_BU);
    package pkg = {.rel = ""};
    CHECK(run_fn(&f, "generate-folders", "v0.1", &pkg) == 0);
    /* every item comes back sorted by apiVersion/kind/namespace/name */
    CHECK(f.items.n == 7);
    CHECK_STR(res_api_version(f.items.v[0]), "blueprints.cloud.google.com/v1alpha3");
    const char *want[] = {"retail", "retail.apps", "retail.apps.dev", "retail.apps.team-2", "shared"};
    for (size_t i = 0; i < 5; i++)
        CHECK_STR(res_name(f.items.v[1 + i]), want[i]);
    CHECK_STR(res_kind(f.items.v[6]), "ConfigMap");
    CHECK_STR(doc(&f, 1), "apiVersion: resourcemanager.cnrm.cloud.google.com/v1beta1\n"
                          "kind: Folder\n"
                          "metadata:\n"
                          "  name: retail\n"
                          "  annotations:\n"
                          "    cnrm.cloud.google.com/blueprint: bp\n"
                          "  namespace: hierarchy\n"
                          "spec:\n"
                          "  displayName: Retail\n"
                          "  organizationRef:\n"
                          "    external: \"1234\"\n");
    /* below the top: folderRef by name; v0.1 has no depends-on */
    CHECK_STR(doc(&f, 4), "apiVersion: resourcemanager.cnrm.cloud.google.com/v1beta1\n"
                          "kind: Folder\n"
                          "metadata:\n"
                          "  name: retail.apps.team-2\n"
                          "  annotations:\n"
                          "    cnrm.cloud.google.com/blueprint: bp\n"
                          "  namespace: hierarchy\n"
                          "spec:\n"
                          "  displayName: Team_2\n"
                          "  folderRef:\n"
                          "    name: retail.apps\n");
    CHECK_STR(f.items.v[1]->path, "hierarchy/folder_retail.yaml");
    CHECK(f.results.n == 0);
    fx_close(&f);
}

TEST(generate_folders_unstable_adds_depends_on)
{
    struct fx f;
    fx_open(&f, V3_BU);
    CHECK(run_fn(&f, "generate-folders", "unstable", NULL) == 0);
    CHECK_STR(res_name(f.items.v[2]), "retail.apps");
    CHECK_STR(path_str(f.items.v[2]->root, "metadata", "annotations", "config.kubernetes.io/depends-on", NULL),
              "resourcemanager.cnrm.cloud.google.com/namespaces/hierarchy/Folder/retail");
    CHECK(path_get(f.items.v[1]->root, "metadata", "annotations", "config.kubernetes.io/depends-on", NULL) == NULL);
    fx_close(&f);
}

TEST(generate_folders_v1_layers_and_v2_annotations)
{
    struct fx f;
    fx_open(&f, "apiVersion: cft.dev/v1alpha1\nkind: ResourceHierarchy\nmetadata:\n  name: old\nspec:\n"
                "  organization: Org_1\n  layers: [env, team]\n  config:\n    env: [Dev]\n"
                "    team: ['Team \"One\"', Team_2]\n");
    CHECK(run_fn(&f, "generate-folders", "", NULL) == 0);
    CHECK(f.items.n == 4);
    CHECK_STR(res_name(f.items.v[1]), "dev");
    CHECK_STR(path_str(f.items.v[1]->root, "metadata", "annotations", "cnrm.cloud.google.com/organization-id", NULL),
              "org-1");
    CHECK_STR(res_name(f.items.v[3]), "dev.team-one");
    CHECK_STR(path_str(f.items.v[3]->root, "spec", "displayName", NULL), "Team \"One\"");
    CHECK_STR(path_str(f.items.v[3]->root, "metadata", "annotations", "cnrm.cloud.google.com/folder-ref", NULL), "dev");
    CHECK(f.results.n == 1 && f.results.v[0].severity == SEV_WARN);
    CHECK_STR(msg(&f, 0), "ResourceHierarchy old references an older Resource Hierarchy GroupVersion. Latest "
                          "GroupVersion is blueprints.cloud.google.com/v1alpha3.");
    fx_close(&f);

    /* v1alpha2 under a Folder: annotation references, inherited annotations */
    fx_open(&f, "apiVersion: cft.dev/v1alpha2\nkind: ResourceHierarchy\nmetadata:\n  name: h\n  annotations:\n"
                "    team: a\nspec:\n  parentRef: {kind: Folder, external: '77'}\n  config: [{a: [b]}]\n");
    CHECK(run_fn(&f, "generate-folders", "", NULL) == 0);
    CHECK(f.items.n == 3);
    CHECK_STR(path_str(f.items.v[1]->root, "metadata", "annotations", "cnrm.cloud.google.com/folder-ref", NULL), "77");
    CHECK_STR(path_str(f.items.v[1]->root, "metadata", "annotations", "team", NULL), "a");
    CHECK(path_get(f.items.v[1]->root, "spec", "folderRef", NULL) == NULL);
    CHECK_STR(path_str(f.items.v[2]->root, "metadata", "annotations", "cnrm.cloud.google.com/folder-ref", NULL), "a");
    fx_close(&f);
}

TEST(generate_folders_replaces_an_earlier_renders_folder)
{
    struct fx f;
    fx_open(&f, "apiVersion: resourcemanager.cnrm.cloud.google.com/v1beta1\nkind: Folder\nmetadata:\n  name: a\n"
                "spec:\n  displayName: stale\n");
    fx_add(&f, "h.yaml", "apiVersion: blueprints.cloud.google.com/v1alpha3\nkind: ResourceHierarchy\nmetadata:\n"
                         "  name: h\nspec:\n  parentRef: {external: '1'}\n  config: [a]\n");
    CHECK(run_fn(&f, "generate-folders", "", NULL) == 0);
    CHECK(f.items.n == 2);
    CHECK_STR(path_str(f.items.v[1]->root, "spec", "displayName", NULL), "a");
    CHECK_STR(f.items.v[1]->path, "folder_a.yaml");
    fx_close(&f);
}

TEST(generate_folders_refuses_what_the_catalog_would_lose)
{
    static const struct {
        const char *spec, *error;
    } cases[] = {
        {"  parentRef: {external: '1'}\n  config: [{a: {$subtree: nope}}]\n",
         "ResourceHierarchy h references non-existent subtree \"nope\""},
        /* a subtree knows only the subtrees before it */
        {"  parentRef: {external: '1'}\n  config: [x]\n  subtrees:\n    s1: [{b: {$subtree: s2}}]\n    s2: [c]\n",
         "references non-existent subtree \"s2\""},
        {"  parentRef: {external: '1'}\n  config: [2021]\n", "folder 2021 is not a string"},
        {"  parentRef: {external: '1'}\n  config: [{a: [b], c: [d]}]\n", "must hold exactly one name"},
        {"  parentRef: {external: '1'}\n  config: [{a: }]\n", "folder a: give its folders as a list"},
        {"  parentRef: {kind: Project, external: '1'}\n  config: [a]\n", "has an unsupported parentRef kind"},
        {"  config: [a]\n", "ResourceHierarchy h has an undefined parentRef"},
        {"  parentRef: {external: '1'}\n", "spec.config must be a list of folders"},
        {"  parentRef: {external: '1'}\n  config: ['\xe6\x97\xa5']\n", "has no letter, digit"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct fx f;
        fx_open(&f, NULL);
        const char *text = arena_printf(f.a, "apiVersion: blueprints.cloud.google.com/v1alpha3\nkind: "
                                             "ResourceHierarchy\nmetadata:\n  name: h\nspec:\n%s", cases[i].spec);
        fx_add(&f, "h.yaml", text);
        int rc = run_fn(&f, "generate-folders", "", NULL);
        if (rc >= 0 || !failed_with(cases[i].error)) {
            fprintf(stderr, "case %zu: %s\n", i, diag_failed() ? diag_message() : "(no error)");
            CHECK(failed_with(cases[i].error));
        }
        fx_close(&f);
    }
    /* v1alpha1: a layer without its list */
    struct fx f;
    fx_open(&f, "apiVersion: cft.dev/v1alpha1\nkind: ResourceHierarchy\nmetadata:\n  name: old\nspec:\n"
                "  organization: o\n  layers: [env, team]\n  config:\n    env: [Dev]\n");
    CHECK(run_fn(&f, "generate-folders", "", NULL) < 0);
    CHECK(failed_with("Layer \"team\" has no corresponding entry config entry"));
    fx_close(&f);
    /* two items the SDK would fold into one */
    fx_open(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: same\n---\napiVersion: v1\nkind: ConfigMap\n"
                "metadata:\n  name: same\n---\napiVersion: cft.dev/v1alpha2\nkind: ResourceHierarchy\nmetadata:\n"
                "  name: h\nspec:\n  parentRef: {external: '1'}\n  config: [a]\n");
    CHECK(run_fn(&f, "generate-folders", "", NULL) < 0);
    CHECK(failed_with("would keep only the last"));
    fx_close(&f);
    /* no hierarchy: the SDK still hands the items back sorted */
    fx_open(&f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: z\n---\napiVersion: v1\nkind: ConfigMap\n"
                "metadata:\n  name: a\n");
    CHECK(run_fn(&f, "generate-folders", "", NULL) == 0);
    CHECK_STR(res_name(f.items.v[0]), "a");
    fx_close(&f);
}
