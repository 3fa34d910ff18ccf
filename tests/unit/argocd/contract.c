/* What a real Argo CD sends and expects: Lists and generateName-only hooks at load and through the functions that
 * key objects by name, the Helm release name of an Application in any namespace, parameter names and their PARAM_
 * escaping, unknown parameters, and the default stamp set. */
#include <stdlib.h>

#include "settings/helm_parameters.h"
#include "settings/host.h"
#include "settings/settings.h"
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
    CHECK_STR(s.unknown, "unknown parameter \"colour\"");
    CHECK_STR(s.stamp, "app");
    clear_param_env();
    setenv("PARAM_COLOUR", "red", 1); /* no ARGOCD_APP_PARAMETERS: the PARAM_ variables nobody reads */
    setenv("PARAM_SETTERS_IMAGE_TAG", "1.26", 1);
    CHECK(settings_load(a, st, &s) == 0);
    CHECK_STR(s.unknown, "unknown parameter \"PARAM_COLOUR\"");
    CHECK(s.setters_escaped && s.setters && node_len(s.setters) == 1);
    CHECK_STR(scalar(map_key(s.setters, 0)), "IMAGE_TAG");
    /* plugin env: Argo CD passes the name verbatim, so any spelling that escapes to the setting's sets it, and a
     * name no setting reads is reported with the parameters */
    setenv("ARGOCD_ENV_stamp", "app", 1);
    setenv("ARGOCD_ENV_COLOR", "blue", 1);
    CHECK(settings_load(a, st, &s) == 0);
    CHECK_STR(s.stamp, "app");
    CHECK_STR(s.unknown, "unknown parameter \"PARAM_COLOUR\" and plugin env \"COLOR\"");
    unsetenv("ARGOCD_ENV_COLOR");
    setenv("ARGOCD_ENV_CO\nLOR", "blue", 1); /* the author's name, verbatim: shown escaped, one line */
    CHECK(settings_load(a, st, &s) == 0);
    CHECK_STR(s.unknown, "unknown parameter \"PARAM_COLOUR\" and plugin env \"CO\\nLOR\"");
    unsetenv("ARGOCD_ENV_CO\nLOR");
    setenv("ARGOCD_ENV_STAMP", "none", 1); /* two spellings, two values: which one was meant is not ours to guess */
    CHECK(settings_load(a, st, &s) < 0);
    diag_reset();
    unsetenv("ARGOCD_ENV_stamp");
    unsetenv("ARGOCD_ENV_STAMP");
    unsetenv("ARGOCD_ENV_COLOR");
    clear_param_env();
    strtab_release(st);
    arena_free(a);
}

/* PARAM_SETTERS_<KEY> arrive in environ's order; the map keeps them sorted by key, each value with its key */
TEST(setters_from_param_variables_are_sorted_by_key)
{
    static const char *const keys[] = {"TAG", "APP", "NAME", "BASE"}, *const vals[] = {"2", "a", "n", "b"};
    char var[64];
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    settings s;
    clear_param_env();
    for (int i = 0; i < 4; i++) {
        snprintf(var, sizeof var, "PARAM_SETTERS_%s", keys[i]);
        setenv(var, vals[i], 1);
    }
    CHECK(settings_load(a, st, &s) == 0);
    CHECK(s.setters && node_len(s.setters) == 4);
    static const char *const want[][2] = {{"APP", "a"}, {"BASE", "b"}, {"NAME", "n"}, {"TAG", "2"}};
    for (uint32_t i = 0; i < 4 && i < node_len(s.setters); i++) {
        CHECK_STR(scalar(map_key(s.setters, i)), want[i][0]);
        CHECK_STR(scalar(map_val(s.setters, i)), want[i][1]);
    }
    for (int i = 0; i < 4; i++) {
        snprintf(var, sizeof var, "PARAM_SETTERS_%s", keys[i]);
        unsetenv(var);
    }
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

/* helm-parameters: keys in helm's --set path syntax, values always strings, one YAML values document */
static const char *set_yaml(arena *a, strtab *st, const char *json_map)
{
    node *m = NULL;
    const char *out = NULL;
    diag_reset();
    if (yaml_load_one(a, st, NULL, "params", json_map, strlen(json_map), &m) < 0 || helm_parameters_yaml(a, m, &out) < 0)
        return NULL;
    return out ? out : "";
}

TEST(helm_parameters_become_a_values_document)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    /* nesting, escaped dots, list indexes with a gap, a later key replacing what stands in its way */
    CHECK_STR(set_yaml(a, st,
                       "{\"image.tag\": \"1.10\", \"podAnnotations.prometheus\\\\.io/scrape\": \"true\", "
                       "\"hosts[1].name\": \"b.example\", \"hosts[0]\": \"a\", \"list[0][1]\": \"x\", "
                       "\"x\": \"scalar\", \"x.y\": \"map now\"}"),
              "image:\n  tag: \"1.10\"\npodAnnotations:\n  prometheus.io/scrape: \"true\"\nhosts:\n- a\n- name: b.example\n"
              "list:\n- -\n  - x\nx:\n  \"y\": map now\n");
    /* values are strings, taken whole: no option, no second assignment, no helm list, no null */
    CHECK_STR(set_yaml(a, st,
                       "{\"a\": \"--post-renderer=/bin/sh\", \"b\": \"x,c=d\", \"c\": \"{1,2}\", \"d\": \"null\", "
                       "\"e\": \"007\", \"f\": \"line\\nbreak\", \"g\": \"\"}"),
              "a: --post-renderer=/bin/sh\nb: x,c=d\nc: '{1,2}'\nd: \"null\"\ne: \"007\"\nf: |-\n  line\n  break\ng: ''\n");
    /* keys a YAML reader would take for something else stay strings; '\' takes any next character */
    CHECK_STR(set_yaml(a, st, "{\"true\": \"1\", \"1\\\\.5\": \"x\", \"a\\\\=b\": \"y\", \"c\\\\,d\": \"z\"}"),
              "\"true\": \"1\"\n\"1.5\": x\na=b: \"y\"\nc,d: z\n");
    CHECK_STR(set_yaml(a, st, "{}"), "");
    /* what helm would read differently is refused, naming the parameter and the key */
    const char *bad[] = {"{\"a..b\": \"x\"}", "{\"a.\": \"x\"}", "{\".a\": \"x\"}", "{\"a[x]\": \"x\"}",
                         "{\"a[1\": \"x\"}", "{\"a[-1]\": \"x\"}", "{\"a[0]b\": \"x\"}", "{\"[0]\": \"x\"}",
                         "{\"a=b\": \"x\"}", "{\"a,b\": \"x\"}", "{\"a\\\\\": \"x\"}", "{\"a[65537]\": \"x\"}",
                         "{\"\": \"x\"}", NULL};
    for (int i = 0; bad[i]; i++) {
        if (set_yaml(a, st, bad[i]) || !strstr(diag_message(), "parameter \"helm-parameters\": ")) {
            test_fail(__FILE__, __LINE__, bad[i]);
            break;
        }
    }
    /* helm's limits: 30 nested names; and list gaps stay linear in what was written */
    char deep[200] = "a";
    for (int i = 0; i < 30; i++)
        strcat(deep, ".a");
    char json[300];
    snprintf(json, sizeof json, "{\"%s\": \"x\"}", deep);
    CHECK(set_yaml(a, st, json) != NULL);
    snprintf(json, sizeof json, "{\"%s.a\": \"x\"}", deep);
    CHECK(set_yaml(a, st, json) == NULL && strstr(diag_message(), "nests more than 30 names"));
    CHECK(set_yaml(a, st, "{\"a[65536]\": \"x\"}") != NULL);
    CHECK(set_yaml(a, st, "{\"a[65536]\": \"x\", \"b[1]\": \"y\"}") == NULL &&
          strstr(diag_message(), "more than 65536 items to fill"));
    diag_reset();
    strtab_release(st);
    arena_free(a);
}
