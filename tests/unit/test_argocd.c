/* What a real Argo CD sends and expects: Lists and generateName-only hooks at load and through the functions that
 * key objects by name, the Helm release name of an Application in any namespace, parameter names and their PARAM_
 * escaping, unknown parameters, and the default stamp set. */
#include <stdlib.h>

#include "argocd/host.h"
#include "argocd/settings.h"
#include "check.h"
#include "fixture.h"
#include "package/package.h"
#include "util/diag.h"
#include "yaml/load.h"

static int load_text(arena *a, strtab *st, const char *yaml, rlist *out)
{
    load_ctx lc = {.a = a, .st = st};
    package p = {.abs = "/nonexistent", .rel = ""};
    return load_resources_from_text(&lc, &p, "r.yaml", "r.yaml", yaml, strlen(yaml), out);
}

TEST(lists_are_flattened_at_load)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    rlist l = {0};
    int rc = load_text(a, st,
                       "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n"
                       "- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: b\n"
                       "---\napiVersion: v1\nkind: ConfigMapList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n"
                       "  metadata:\n    name: c\n---\napiVersion: v1\nkind: PodList\nitems: null\n",
                       &l);
    CHECK(rc == 0);
    CHECK(l.n == 3);
    CHECK_STR(res_name(l.v[0]), "a");
    CHECK_STR(res_kind(l.v[1]), "Secret");
    CHECK_STR(res_name(l.v[2]), "c");
    CHECK(l.v[1]->line == 8); /* an item keeps its own line for messages */
    rlist_free(&l);
    diag_reset();
    rc = load_text(a, st, "apiVersion: v1\nkind: List\nitems:\n- just a string\n", &l);
    CHECK(rc < 0 && strstr(diag_message(), "List items[0]: item is a scalar"));
    diag_reset();
    rc = load_text(a, st, "apiVersion: v1\nkind: List\nitems:\n- kind: ConfigMap\n  metadata:\n    name: x\n", &l);
    CHECK(rc < 0 && strstr(diag_message(), "List items[0]: resource must have") && strstr(diag_message(), "apiVersion"));
    rlist_free(&l);
    diag_reset();
    strtab_release(st);
    arena_free(a);
}

TEST(lists_kept_whole_are_still_checked)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    rlist l = {0};
    load_ctx lc = {.a = a, .st = st, .keep_lists = true};
    package p = {.abs = "/nonexistent", .rel = ""};
    const char *ok = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n";
    CHECK(load_resources_from_text(&lc, &p, "r.yaml", "r.yaml", ok, strlen(ok), &l) == 0);
    CHECK(l.n == 1 && (l.v[0]->flags & R_LIST) && !strcmp(res_kind(l.v[0]), "List"));
    rlist_free(&l);
    const char *bad = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n";
    CHECK(load_resources_from_text(&lc, &p, "r.yaml", "r.yaml", bad, strlen(bad), &l) < 0);
    CHECK(l.n == 0 && strstr(diag_message(), "r.yaml:4") && strstr(diag_message(), "metadata.name is missing"));
    diag_reset();
    strtab_release(st);
    arena_free(a);
}

TEST(generate_name_passes_the_load_check)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    rlist l = {0};
    CHECK(load_text(a, st, "apiVersion: batch/v1\nkind: Job\nmetadata:\n  generateName: migrate-\n", &l) == 0);
    CHECK(l.n == 1 && res_name(l.v[0]) == NULL);
    diag_reset();
    CHECK(load_text(a, st, "apiVersion: batch/v1\nkind: Job\nmetadata:\n  generateName: \"\"\n", &l) < 0);
    CHECK(strstr(diag_message(), "metadata.name is missing"));
    rlist_free(&l);
    diag_reset();
    strtab_release(st);
    arena_free(a);
}

#define HOOK                                                                                                           \
    "apiVersion: batch/v1\nkind: Job\nmetadata:\n  generateName: migrate-\n  annotations:\n"                           \
    "    argocd.argoproj.io/hook: PreSync\nspec:\n  template:\n    spec:\n      containers:\n"                         \
    "      - name: m\n        image: busybox\n"                                                                        \
    "---\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: runner\n"

TEST(generate_name_objects_pass_functions_keyed_by_name)
{
    struct fx f;
    fx_open(&f, HOOK);
    CHECK(fx_apply(&f, "ensure-name-substring", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n"
                                                "  prepend: prod-\n",
                   "fn-config.yaml") == 0);
    CHECK(res_name(f.items.v[0]) == NULL);
    CHECK_STR(path_str(f.items.v[0]->root, "metadata", "generateName", NULL), "migrate-");
    CHECK_STR(res_name(f.items.v[1]), "prod-runner");
    CHECK(fx_apply(&f, "set-namespace", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n"
                                        "  namespace: shop\n",
                   "fn-config.yaml") == 0);
    CHECK_STR(res_namespace(f.items.v[0]), "shop");
    CHECK(fx_apply(&f, "set-labels", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  team: a\n",
                   "fn-config.yaml") == 0);
    CHECK_STR(path_str(f.items.v[0]->root, "metadata", "labels", "team", NULL), "a");
    CHECK(fx_apply(&f, "apply-replacements",
                   "apiVersion: fn.kpt.dev/v1alpha1\nkind: ApplyReplacements\nmetadata:\n  name: r\nreplacements:\n"
                   "- source:\n    kind: ServiceAccount\n    fieldPath: metadata.name\n  targets:\n"
                   "  - select:\n      kind: Job\n    fieldPaths:\n    - spec.template.spec.serviceAccountName\n"
                   "    options:\n      create: true\n",
                   "fn-config.yaml") == 0);
    CHECK_STR(path_str(f.items.v[0]->root, "spec", "template", "spec", "serviceAccountName", NULL), "prod-runner");
    fx_close(&f);
}

TEST(upsert_resource_adds_generate_name_objects)
{
    struct fx f;
    fx_open(&f, HOOK);
    /* a named object never matches the hook */
    CHECK(fx_apply(&f, "upsert-resource", "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: runner\n"
                                          "automountServiceAccountToken: false\n",
                   "fn-config.yaml") == 0);
    CHECK(f.items.n == 2);
    CHECK(path_get(f.items.v[0]->root, "automountServiceAccountToken", NULL) == NULL);
    /* a generateName-only object is never "the same object" as another: always added */
    CHECK(fx_apply(&f, "upsert-resource", "apiVersion: batch/v1\nkind: Job\nmetadata:\n  generateName: migrate-\n",
                   "fn-config.yaml") == 0);
    CHECK(f.items.n == 3);
    CHECK_STR(path_str(f.items.v[2]->root, "metadata", "generateName", NULL), "migrate-");
    CHECK(path_get(f.items.v[0]->root, "spec", NULL) != NULL); /* the first hook is untouched */
    CHECK(fx_apply(&f, "upsert-resource", "apiVersion: batch/v1\nkind: Job\nmetadata:\n  namespace: x\n",
                   "fn-config.yaml") < 0);
    fx_close(&f);
}

TEST(release_name_is_the_part_after_the_first_underscore)
{
    fn_host h;
    setenv("ARGOCD_APP_NAME", "apps_guestbook", 1);
    host_from_env(&h);
    CHECK_STR(h.release_name, "guestbook");
    CHECK_STR(h.app_name, "apps_guestbook");
    setenv("ARGOCD_APP_NAME", "team_a_web", 1); /* strings.SplitN(name, "_", 2) */
    host_from_env(&h);
    CHECK_STR(h.release_name, "a_web");
    setenv("ARGOCD_APP_NAME", "guestbook", 1);
    host_from_env(&h);
    CHECK_STR(h.release_name, "guestbook");
    unsetenv("ARGOCD_APP_NAME");
    host_from_env(&h);
    CHECK(h.release_name == NULL);
}

TEST(parameter_names_escape_as_argocd_does)
{
    arena *a = arena_new();
    CHECK_STR(settings_escape(a, "PARAM_", "values-files"), "PARAM_VALUES_FILES");
    CHECK_STR(settings_escape(a, "", "image.tag"), "IMAGE_TAG");
    CHECK_STR(settings_escape(a, "", "a_b"), "A_B");
    CHECK_STR(settings_escape(a, "", "caf\xc3\xa9"), "CAF_");          /* one '_' per rune, not per byte */
    CHECK_STR(settings_escape(a, "", "\xc4\xb1nfo"), "INFO");           /* Go upper-cases dotless i to I */
    /* PARAM_<NAME>_<KEY> is unambiguous only if no escaped name is another's plus "_..." */
    for (int i = 0; i < setting_count; i++)
        for (int k = 0; k < setting_count; k++) {
            if (i == k)
                continue;
            const char *p = settings_escape(a, "", setting_defs[i].name), *q = settings_escape(a, "", setting_defs[k].name);
            size_t pl = strlen(p);
            if (!strncmp(q, p, pl) && q[pl] == '_') {
                test_fail(__FILE__, __LINE__, q);
                arena_free(a);
                return;
            }
        }
    arena_free(a);
}

static void clear_param_env(void)
{
    unsetenv("ARGOCD_APP_PARAMETERS");
    unsetenv("PARAM_COLOUR");
    unsetenv("PARAM_SETTERS_IMAGE_TAG");
    unsetenv("PARAM_STAMP");
}

TEST(unknown_parameters_are_reported_not_fatal)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    settings s;
    clear_param_env();
    setenv("ARGOCD_APP_PARAMETERS", "[{\"name\":\"colour\",\"string\":\"red\"},{\"name\":\"stamp\",\"string\":\"app\"}]", 1);
    CHECK(settings_load(a, st, &s) == 0);
    CHECK_STR(s.unknown, "\"colour\"");
    CHECK_STR(s.stamp, "app");
    clear_param_env();
    setenv("PARAM_COLOUR", "red", 1); /* no ARGOCD_APP_PARAMETERS: the PARAM_ variables nobody reads */
    setenv("PARAM_SETTERS_IMAGE_TAG", "1.26", 1);
    CHECK(settings_load(a, st, &s) == 0);
    CHECK_STR(s.unknown, "\"PARAM_COLOUR\"");
    CHECK(s.setters_escaped && s.setters && node_len(s.setters) == 1);
    CHECK_STR(scalar(map_key(s.setters, 0)), "IMAGE_TAG");
    clear_param_env();
    strtab_release(st);
    arena_free(a);
}

TEST(default_stamps_leave_out_what_changes_every_commit)
{
    settings s = {0};
    CHECK(settings_stamps(&s, "app") && settings_stamps(&s, "path") && settings_stamps(&s, "target-revision"));
    CHECK(!settings_stamps(&s, "revision") && !settings_stamps(&s, "package-revision"));
    s.stamp = "all";
    CHECK(settings_stamps(&s, "revision") && settings_stamps(&s, "package-revision"));
    s.stamp = "app,package-revision";
    CHECK(settings_stamps(&s, "package-revision") && !settings_stamps(&s, "revision"));
}
