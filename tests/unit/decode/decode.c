/* src/decode: reading a kustomization or chart file as the Go tool after us reads it. Key folding as encoding/json
 * does it, the rules over a loaded tree, and the tables holding every field the checks of kustomization_walk.c and
 * helm_confine.c read. (The attacks with the real kustomize and helm, and the tables against the real tools:
 * tests/security/cases/decode-differential.sh.) */
#include <stdlib.h>

#include "check.h"
#include "decode/decode.h"
#include "util/diag.h"
#include "yaml_unit.h"

TEST(decode_fold_is_go_equal_fold)
{
    CHECK(go_fold_equal("Resources", "resources"));
    CHECK(go_fold_equal("RESOURCES", "resources"));
    CHECK(go_fold_equal("re\xc5\xbfources", "resources"));       /* U+017F long s */
    CHECK(go_fold_equal("RE\xc5\xbfOURCE\xc5\xbf", "resources"));
    CHECK(go_fold_equal("\xe2\x84\xaaind", "kind"));              /* U+212A Kelvin sign */
    CHECK(go_fold_equal("Import-Values", "import-values"));
    CHECK(go_fold_equal("resources", "resources"));
    CHECK(!go_fold_equal("resource", "resources"));
    CHECK(!go_fold_equal("resourcesx", "resources"));
    CHECK(!go_fold_equal("", "resources"));
    CHECK(!go_fold_equal("import_values", "import-values"));
    CHECK(!go_fold_equal("\xc4\xb0mages", "images")); /* U+0130: not in i's orbit (kustomize: unknown field) */
    CHECK(!go_fold_equal("\xc4\xb1mages", "images")); /* U+0131 */
    CHECK(!go_fold_equal("\xc5\xbf", "k"));
    CHECK(!go_fold_equal("\xe2\x84\xaa", "s"));
    CHECK(!go_fold_equal("re\xc5", "res")); /* a cut sequence is no rune */
}

/* The message go_check_doc records for text read as type t, or NULL when it passes. */
static const char *decode_refusal(const char *text, const go_struct *t)
{
    static diag_detail why;
    diag_detail *outer = diag_capture(&why);
    node *doc = NULL;
    go_reader r = {A, "k.yaml", "kustomize", 0, ""};
    int rc = go_check_text(&r, text, strlen(text));
    if (rc == 0)
        rc = yaml_load_one_flags(A, ST, NULL, "k.yaml", text, strlen(text), YAML_KEEP_MERGE_KEYS, &doc);
    if (rc == 0)
        rc = go_check_doc(&r, doc, t);
    diag_restore(outer);
    return rc < 0 ? why.text : NULL;
}

TEST(decode_refuses_what_go_reads_otherwise)
{
    const go_struct *k = &go_kustomization;
    CHECK(!decode_refusal("resources: [a]\nbases: [b]\n", k));
    CHECK_STR(decode_refusal("resources: [a]\nResources: [b]\n", k),
              "k.yaml:2: \"Resources\" is refused: kustomize reads it as the field \"resources\" (keys are matched "
              "ignoring case), which \"resources\" on line 1 sets too (only one of them counts); write \"resources\"");
    CHECK_STR(decode_refusal("patches:\n- target: {kind: X}\n- Path: p.yaml\n", k),
              "k.yaml:3: patches[1]: \"Path\" is refused: kustomize reads it as the field \"path\" (keys are matched "
              "ignoring case); write \"path\"");
    CHECK(strstr(decode_refusal("replacements:\n- targets:\n  - select: {Kind: X}\n", k),
                 "k.yaml:3: replacements[0].targets[0].select: \"Kind\" is refused"));
    /* keys of data maps are data; tags and merge keys are refused there too */
    CHECK(!decode_refusal("commonLabels: {App: x, Resources: y}\nhelmCharts:\n- valuesInline: {Name: {Path: 1}}\n", k));
    CHECK(strstr(decode_refusal("commonLabels: {a: !!binary eA==}\n", k),
                 "k.yaml:1: commonLabels.a: the tag \"!!binary\" is refused"));
    CHECK(strstr(decode_refusal("resources:\n- !!binary eA==\n", k), "k.yaml:2: resources[0]: the tag \"!!binary\""));
    CHECK(strstr(decode_refusal("!!map {resources: [a]}\n", k), "the tag \"!!map\" is refused"));
    CHECK(strstr(decode_refusal("!!str resources: [a]\n", k), "the key \"resources\" has the tag \"!!str\""));
    CHECK(strstr(decode_refusal("resources: [a]\n<<: {bases: [b]}\n", k),
                 "k.yaml:2: the merge key \"<<\" is refused"));
    CHECK(strstr(decode_refusal("commonLabels:\n  x: &a {b: c}\n  <<: *a\n", k), "commonLabels: the merge key"));
    CHECK(!decode_refusal("commonAnnotations: {\"<<\": quoted}\n", k)); /* a quoted "<<" is an ordinary key */
    CHECK(strstr(decode_refusal("? [a]\n: b\n", k), "a mapping key must be a scalar")); /* the loader's rule */
    CHECK(strstr(decode_refusal("resources: [a] # \xc2\x85 bases: [b]\n", k),
                 "k.yaml:1: the character U+0085 (next line) is refused"));
    CHECK(strstr(decode_refusal("resources:\n- a\n#\xe2\x80\xa9- b\n", k), "k.yaml:3: the character U+2029"));
    /* unknown names are kustomize's to refuse; the plugin structs hold their own fields */
    CHECK(!decode_refusal("Foo: 1\n", k));
    CHECK(strstr(decode_refusal("kind: ConfigMapGenerator\nFILES: [a]\n", go_kustomize_plugin("ConfigMapGenerator")),
                 "\"FILES\" is refused"));
    CHECK(!decode_refusal("kind: LabelTransformer\nLabels: {a: b}\n", go_kustomize_plugin("LabelTransformer")));
}

/* sigs.k8s.io/yaml hands a YAML 1.1 number or boolean bound for a Go string to encoding/json as Go's own text for it:
 * "path: 1e3" is the file "1000" to kustomize. Refused where we read the field; data maps and helm's other fields
 * are left alone. */
TEST(decode_refuses_numbers_go_rewrites_as_text)
{
    const go_struct *p = go_kustomize_plugin("PatchTransformer");
    static const char *const rewritten[] = {"1e3", "0x3e8", "0X3E8", "1_000", "+1000", "01750", "0o1750", "0b1111101000",
                                            "1000.0", "1000.", ".5", "-.5e1", ".inf", "-.Inf", ".nan", "-0", "00", "08",
                                            "1234567890123456789", "yes", "Y", "on", "OFF", "True", "FALSE", NULL};
    for (int i = 0; rewritten[i]; i++) {
        char doc[160];
        snprintf(doc, sizeof doc, "kind: PatchTransformer\npath: %s\n", rewritten[i]);
        const char *why = decode_refusal(doc, p);
        CHECK(why && strstr(why, "k.yaml:2: path: \"") && strstr(why, "as a ") && strstr(why, "quote it"));
    }
    static const char *const kept[] = {"1000", "0", "-12", "true", "false", "'1e3'", "\"0x3e8\"", "1.2.3", "1e3.yaml",
                                       "v1", "-x", ".", "0x", "1e", "+", "_", "0o9", "0b2", "1_000.yaml", NULL};
    for (int i = 0; kept[i]; i++) {
        char doc[160];
        snprintf(doc, sizeof doc, "kind: PatchTransformer\npath: %s\n", kept[i]);
        const char *why = decode_refusal(doc, p);
        CHECK_STR(why ? why : "(kept)", "(kept)");
    }
    CHECK(strstr(decode_refusal("kind: PatchStrategicMergeTransformer\npaths: [a.yaml, 1e3]\n",
                                go_kustomize_plugin("PatchStrategicMergeTransformer")),
                 "k.yaml:2: paths[1]: \"1e3\" is refused: kustomize reads it (YAML 1.1) as a number"));
    CHECK(strstr(decode_refusal("resources: [0x10]\n", &go_kustomization), "resources[0]: \"0x10\" is refused"));
    CHECK(!decode_refusal("commonLabels: {v: 1e3, on: yes}\nreplicas:\n- {name: web, count: 3}\n", &go_kustomization));
    CHECK(!decode_refusal("Foo: 1e3\n", &go_kustomization)); /* no field: kustomize refuses it itself */
    const go_struct *m = go_helm_chart_file("Chart.yaml");
    /* (this helper names every reader kustomize) */
    CHECK(!decode_refusal("name: a\nversion: 0.1.0\nappVersion: 1.0\n", m)); /* helm's own fields: not read by us */
    CHECK(strstr(decode_refusal("dependencies:\n- name: b\n  version: 1.10\n", m),
                 "k.yaml:3: dependencies[0].version: \"1.10\" is refused: kustomize reads it (YAML 1.1) as a number"));
}

TEST(decode_chart_files)
{
    const go_struct *m = go_helm_chart_file("Chart.yaml");
    CHECK(m == &go_helm_metadata && go_helm_chart_file("requirements.yaml") == m);
    CHECK(go_helm_chart_file("Chart.lock") == &go_helm_lock && go_helm_chart_file("requirements.lock") == &go_helm_lock);
    CHECK(!decode_refusal("name: a\nannotations: {Category: Web}\ndependencies:\n- name: b\n  repository: file://../b\n", m));
    CHECK(strstr(decode_refusal("dependencies: []\ndependencie\xc5\xbf: []\n", m),
                 "\"dependencie\xc5\xbf\" is refused: kustomize reads it as the field \"dependencies\""));
    CHECK(strstr(decode_refusal("dependencies:\n- name: b\n  Repository: x\n", &go_helm_lock),
                 "dependencies[0]: \"Repository\" is refused"));
    CHECK(strstr(decode_refusal("dependencies:\n- name: b\n  repository: \"file://.\\u200b./x\"\n", m),
                 "k.yaml:3: dependencies[0].repository: \"file://.\xe2\x80\x8b./x\" is refused: it holds U+200B, "
                 "and kustomize drops or rewrites control, space and non-ASCII characters"));
    CHECK(strstr(decode_refusal("dependencies:\n- name: b\n  tags: [a, \"b\\tc\"]\n", m),
                 "dependencies[0].tags[1]: \"b\\tc\" is refused: it holds U+0009"));
    CHECK(!decode_refusal("description: caf\xc3\xa9\nmaintainers:\n- name: J\xc3\xb6rg\n", m));
}

/* Is path ("helmCharts[].valuesFile") a chain of fields of t? */
static bool has_field(const go_struct *t, const char *path)
{
    char name[64];
    while (t && *path) {
        size_t n = strcspn(path, ".[");
        snprintf(name, sizeof name, "%.*s", (int)n, path);
        path += n;
        bool list = !strncmp(path, "[]", 2);
        path += list ? 2 : 0;
        path += *path == '.';
        const go_field *f = t->fields;
        while (f->name && strcmp(f->name, name))
            f++;
        if (!f->name || list != !!(f->flags & GO_LIST))
            return false;
        if (!*path)
            return true;
        t = f->of;
    }
    return false;
}

/* Every field the walk and the chart checks read, with every struct on the way to it: a folded spelling of any of
 * them is refused before the walk looks for the exact one. */
TEST(decode_tables_hold_every_checked_field)
{
    static const char *const kust[] = {
        "resources[]", "bases[]", "components[]", "crds[]", "configurations[]", "patchesStrategicMerge[]",
        "generators[]", "transformers[]", "validators[]", "patches[].path", "patchesJson6902[].path",
        "replacements[].path", "openapi", "configMapGenerator[].files[]", "configMapGenerator[].envs[]",
        "configMapGenerator[].env", "secretGenerator[].files[]", "secretGenerator[].envs[]", "secretGenerator[].env",
        "helmGlobals.chartHome", "helmGlobals.configHome", "helmCharts[].name", "helmCharts[].version",
        "helmCharts[].repo", "helmCharts[].releaseName", "helmCharts[].namespace", "helmCharts[].kubeVersion",
        "helmCharts[].apiVersions[]", "helmCharts[].valuesFile", "helmCharts[].additionalValuesFiles[]",
        "helmCharts[].nameTemplate", "helmChartInflationGenerator[].chartName",
        "helmChartInflationGenerator[].chartVersion", "helmChartInflationGenerator[].chartRepoUrl",
        "helmChartInflationGenerator[].values", "helmChartInflationGenerator[].helmHome",
        "helmChartInflationGenerator[].helmBin", "helmChartInflationGenerator[].extraArgs[]",
        "helmChartInflationGenerator[].releaseName", "kind", NULL};
    for (int i = 0; kust[i]; i++)
        if (!has_field(&go_kustomization, kust[i])) {
            test_fail(__FILE__, __LINE__, kust[i]);
            return;
        }
    static const char *const plugins[][2] = {
        {"PatchTransformer", "path"}, {"PatchJson6902Transformer", "path"},
        {"PatchStrategicMergeTransformer", "paths[]"}, {"ReplacementTransformer", "replacements[].path"},
        {"ConfigMapGenerator", "files[]"}, {"ConfigMapGenerator", "envs[]"}, {"ConfigMapGenerator", "env"},
        {"SecretGenerator", "files[]"}, {"SecretGenerator", "envs[]"}, {"SecretGenerator", "env"},
        {"HelmChartInflationGenerator", "chartHome"}, {"HelmChartInflationGenerator", "configHome"},
        {"HelmChartInflationGenerator", "valuesFile"}, {"HelmChartInflationGenerator", "releaseName"},
        {"HelmChartInflationGenerator", "nameTemplate"}, {NULL, NULL}};
    for (int i = 0; plugins[i][0]; i++)
        if (!has_field(go_kustomize_plugin(plugins[i][0]), plugins[i][1])) {
            test_fail(__FILE__, __LINE__, plugins[i][1]);
            return;
        }
    CHECK(has_field(&go_helm_metadata, "dependencies[].repository"));
    CHECK(has_field(&go_helm_metadata, "dependencies[].name"));
    CHECK(has_field(&go_helm_lock, "dependencies[].repository"));
    CHECK(!has_field(&go_kustomization, "patches[].paths"));
}
