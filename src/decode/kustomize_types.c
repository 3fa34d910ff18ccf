/* The Go types kustomize decodes a kustomization into (api/types: Kustomization and every struct it reaches), and
 * the plugin structs of the builtin generators and transformers that read files (api/internal/builtins), as
 * encoding/json sees them: json names, with the fields of inline embedded structs (TypeMeta, resid.ResId and
 * resid.Gvk, GeneratorArgs, KvPairSources, Replacement, HelmGlobals and HelmChart in the helm generator) flattened
 * into their parent.
 *
 * They follow kustomize v5.4.2, the version kubectl v1.31.9 embeds (`kubectl version --client`), and were checked
 * against it: tests/security/cases/decode-differential.sh decodes, with the real kubectl, every struct level of
 * the Kustomization with each field of the table set to null (kustomize decodes a kustomization with
 * DisallowUnknownFields, so a name it does not know is an error) and every field of each plugin struct set to a
 * value of the wrong type (plugin configs ignore unknown names; a known one then fails naming its Go field). The
 * other way round, a one-off run (not in the suite: some 3,700 kustomize runs) put each of the 157 json names of
 * kubectl's kustomize-style struct tags at every level of the Kustomization: kustomize knew none beyond these. Names
 * from newer kustomize releases (Label.includeVolumeClaimTemplates, HelmChart.debug and devel, Selector.skip,
 * SecretArgs.stringData, FieldOptions.fullText ...) are not in v5.4.2 and not here; a folded spelling of one is
 * an unknown field to kustomize (an error in a kustomization, ignored in a plugin config).
 *
 * GO_DATA marks Go maps and interface{} values, whose keys are data (labels, annotations, openapi, inline values,
 * patch options): kustomize reads them as written. */
#include <string.h>

#include "decode/decode.h"

#define END {NULL, NULL, 0}

/* resid.Gvk, resid.ResId and types.Selector (which embeds the ResId) */
static const go_field selector_fields[] = {
    {"group", NULL, 0},     {"version", NULL, 0},       {"kind", NULL, 0}, {"name", NULL, 0}, {"namespace", NULL, 0},
    {"annotationSelector", NULL, 0}, {"labelSelector", NULL, 0}, END,
};
static const go_struct selector = {"types.Selector", selector_fields};

static const go_field object_meta_fields[] = {
    {"name", NULL, 0}, {"namespace", NULL, 0}, {"labels", NULL, GO_DATA}, {"annotations", NULL, GO_DATA}, END,
};
static const go_struct object_meta = {"types.ObjectMeta", object_meta_fields};

static const go_field field_spec_fields[] = {
    {"group", NULL, 0}, {"version", NULL, 0}, {"kind", NULL, 0}, {"path", NULL, 0}, {"create", NULL, 0}, END,
};
static const go_struct field_spec = {"types.FieldSpec", field_spec_fields};

static const go_field label_fields[] = {
    {"pairs", NULL, GO_DATA},
    {"includeSelectors", NULL, 0},
    {"includeTemplates", NULL, 0},
    {"fields", &field_spec, GO_LIST},
    END,
};
static const go_struct label = {"types.Label", label_fields};

static const go_field patch_fields[] = {
    {"path", NULL, 0}, {"patch", NULL, 0}, {"target", &selector, 0}, {"options", NULL, GO_DATA}, END,
};
static const go_struct patch = {"types.Patch", patch_fields};

static const go_field image_fields[] = {
    {"name", NULL, 0}, {"newName", NULL, 0}, {"tagSuffix", NULL, 0}, {"newTag", NULL, 0}, {"digest", NULL, 0}, END,
};
static const go_struct image = {"types.Image", image_fields};

static const go_field field_options_fields[] = {
    {"delimiter", NULL, 0}, {"index", NULL, 0}, {"encoding", NULL, 0}, {"create", NULL, 0}, END,
};
static const go_struct field_options = {"types.FieldOptions", field_options_fields};

static const go_field source_selector_fields[] = {
    {"group", NULL, 0}, {"version", NULL, 0},   {"kind", NULL, 0}, {"name", NULL, 0}, {"namespace", NULL, 0},
    {"fieldPath", NULL, 0}, {"options", &field_options, 0}, END,
};
static const go_struct source_selector = {"types.SourceSelector", source_selector_fields};

static const go_field target_selector_fields[] = {
    {"select", &selector, 0},
    {"reject", &selector, GO_LIST},
    {"fieldPaths", NULL, GO_LIST},
    {"options", &field_options, 0},
    END,
};
static const go_struct target_selector = {"types.TargetSelector", target_selector_fields};

/* types.ReplacementField: the Replacement inline, or a path to a file of them */
static const go_field replacement_field_fields[] = {
    {"source", &source_selector, 0},
    {"targets", &target_selector, GO_LIST},
    {"path", NULL, 0},
    END,
};
static const go_struct replacement_field = {"types.ReplacementField", replacement_field_fields};

static const go_field replica_fields[] = {{"name", NULL, 0}, {"count", NULL, 0}, END};
static const go_struct replica = {"types.Replica", replica_fields};

static const go_field var_target_fields[] = {
    {"apiVersion", NULL, 0}, {"group", NULL, 0}, {"version", NULL, 0}, {"kind", NULL, 0},
    {"name", NULL, 0},       {"namespace", NULL, 0}, END,
};
static const go_struct var_target = {"types.Target", var_target_fields};

static const go_field field_selector_fields[] = {{"fieldPath", NULL, 0}, END};
static const go_struct field_selector = {"types.FieldSelector", field_selector_fields};

static const go_field var_fields[] = {
    {"name", NULL, 0}, {"objref", &var_target, 0}, {"fieldref", &field_selector, 0}, END,
};
static const go_struct var = {"types.Var", var_fields};

static const go_field legacy_sort_fields[] = {{"orderFirst", NULL, GO_LIST}, {"orderLast", NULL, GO_LIST}, END};
static const go_struct legacy_sort = {"types.LegacySortOptions", legacy_sort_fields};

static const go_field sort_options_fields[] = {{"order", NULL, 0}, {"legacySortOptions", &legacy_sort, 0}, END};
static const go_struct sort_options = {"types.SortOptions", sort_options_fields};

static const go_field generator_options_fields[] = {
    {"labels", NULL, GO_DATA}, {"annotations", NULL, GO_DATA}, {"disableNameSuffixHash", NULL, 0},
    {"immutable", NULL, 0},    END,
};
static const go_struct generator_options = {"types.GeneratorOptions", generator_options_fields};

/* types.ConfigMapArgs: GeneratorArgs with its KvPairSources, inline */
#define GENERATOR_ARGS                                                                                              \
    {"namespace", NULL, 0}, {"name", NULL, 0}, {"behavior", NULL, 0}, {"literals", NULL, GO_LIST},                  \
        {"files", NULL, GO_LIST}, {"envs", NULL, GO_LIST}, {"env", NULL, 0}, {"options", &generator_options, 0}
static const go_field config_map_args_fields[] = {GENERATOR_ARGS, END};
static const go_struct config_map_args = {"types.ConfigMapArgs", config_map_args_fields};

static const go_field secret_args_fields[] = {GENERATOR_ARGS, {"type", NULL, 0}, END};
static const go_struct secret_args = {"types.SecretArgs", secret_args_fields};

static const go_field helm_globals_fields[] = {{"chartHome", NULL, 0}, {"configHome", NULL, 0}, END};
static const go_struct helm_globals = {"types.HelmGlobals", helm_globals_fields};

#define HELM_CHART                                                                                                  \
    {"name", NULL, 0}, {"version", NULL, 0}, {"repo", NULL, 0}, {"releaseName", NULL, 0}, {"namespace", NULL, 0},   \
        {"additionalValuesFiles", NULL, GO_LIST}, {"valuesFile", NULL, 0}, {"valuesInline", NULL, GO_DATA},         \
        {"valuesMerge", NULL, 0}, {"includeCRDs", NULL, 0}, {"skipHooks", NULL, 0}, {"apiVersions", NULL, GO_LIST}, \
        {"kubeVersion", NULL, 0}, {"nameTemplate", NULL, 0}, {"skipTests", NULL, 0}
static const go_field helm_chart_fields[] = {HELM_CHART, END};
static const go_struct helm_chart = {"types.HelmChart", helm_chart_fields};

static const go_field helm_chart_args_fields[] = {
    {"chartName", NULL, 0},  {"chartVersion", NULL, 0},   {"chartRepoUrl", NULL, 0},       {"chartHome", NULL, 0},
    {"chartRepoName", NULL, 0}, {"helmBin", NULL, 0},     {"helmHome", NULL, 0},           {"values", NULL, 0},
    {"valuesLocal", NULL, GO_DATA}, {"valuesMerge", NULL, 0}, {"releaseName", NULL, 0},   {"releaseNamespace", NULL, 0},
    {"extraArgs", NULL, GO_LIST}, END,
};
static const go_struct helm_chart_args = {"types.HelmChartArgs", helm_chart_args_fields};

static const go_field kustomization_fields[] = {
    {"apiVersion", NULL, 0}, /* TypeMeta, inline */
    {"kind", NULL, 0},
    {"metadata", &object_meta, 0},
    {"openapi", NULL, GO_DATA},
    {"namePrefix", NULL, 0},
    {"nameSuffix", NULL, 0},
    {"namespace", NULL, 0},
    {"commonLabels", NULL, GO_DATA},
    {"labels", &label, GO_LIST},
    {"commonAnnotations", NULL, GO_DATA},
    {"patchesStrategicMerge", NULL, GO_LIST},
    {"patchesJson6902", &patch, GO_LIST},
    {"patches", &patch, GO_LIST},
    {"images", &image, GO_LIST},
    {"imageTags", &image, GO_LIST},
    {"replacements", &replacement_field, GO_LIST},
    {"replicas", &replica, GO_LIST},
    {"vars", &var, GO_LIST},
    {"sortOptions", &sort_options, 0},
    {"resources", NULL, GO_LIST},
    {"components", NULL, GO_LIST},
    {"crds", NULL, GO_LIST},
    {"bases", NULL, GO_LIST},
    {"configMapGenerator", &config_map_args, GO_LIST},
    {"secretGenerator", &secret_args, GO_LIST},
    {"helmGlobals", &helm_globals, 0},
    {"helmCharts", &helm_chart, GO_LIST},
    {"helmChartInflationGenerator", &helm_chart_args, GO_LIST},
    {"generatorOptions", &generator_options, 0},
    {"configurations", NULL, GO_LIST},
    {"generators", NULL, GO_LIST},
    {"transformers", NULL, GO_LIST},
    {"validators", NULL, GO_LIST},
    {"buildMetadata", NULL, GO_LIST},
    END,
};
const go_struct go_kustomization = {"types.Kustomization", kustomization_fields};

/* The builtin plugins whose configs name files (decoded with sigs.k8s.io/yaml.Unmarshal into these structs:
 * folded keys fill fields, unknown names are ignored). Their configs' apiVersion, kind and metadata are read by
 * kyaml, by exact name. */
static const go_field cm_generator_fields[] = {{"metadata", &object_meta, 0}, GENERATOR_ARGS, END};
static const go_struct cm_generator = {"builtins.ConfigMapGeneratorPlugin", cm_generator_fields};

static const go_field secret_generator_fields[] = {{"metadata", &object_meta, 0}, GENERATOR_ARGS, {"type", NULL, 0}, END};
static const go_struct secret_generator = {"builtins.SecretGeneratorPlugin", secret_generator_fields};

static const go_field patch_transformer_fields[] = {
    {"path", NULL, 0}, {"patch", NULL, 0}, {"target", &selector, 0}, {"options", NULL, GO_DATA}, END,
};
static const go_struct patch_transformer = {"builtins.PatchTransformerPlugin", patch_transformer_fields};

static const go_field json6902_transformer_fields[] = {
    {"target", &selector, 0}, {"path", NULL, 0}, {"jsonOp", NULL, 0}, END,
};
static const go_struct json6902_transformer = {"builtins.PatchJson6902TransformerPlugin", json6902_transformer_fields};

static const go_field sm_transformer_fields[] = {{"paths", NULL, GO_LIST}, {"patches", NULL, 0}, END};
static const go_struct sm_transformer = {"builtins.PatchStrategicMergeTransformerPlugin", sm_transformer_fields};

static const go_field replacement_transformer_fields[] = {{"replacements", &replacement_field, GO_LIST}, END};
static const go_struct replacement_transformer = {"builtins.ReplacementTransformerPlugin",
                                                  replacement_transformer_fields};

static const go_field helm_generator_fields[] = {{"chartHome", NULL, 0}, {"configHome", NULL, 0}, HELM_CHART, END};
static const go_struct helm_generator = {"builtins.HelmChartInflationGeneratorPlugin", helm_generator_fields};

const go_struct *const go_kustomize_plugins[] = {
    &cm_generator,    &secret_generator,        &patch_transformer, &json6902_transformer,
    &sm_transformer, &replacement_transformer, &helm_generator,    NULL,
};
const char *const go_kustomize_plugin_kinds[] = {
    "ConfigMapGenerator",           "SecretGenerator",         "PatchTransformer", "PatchJson6902Transformer",
    "PatchStrategicMergeTransformer", "ReplacementTransformer", "HelmChartInflationGenerator", NULL,
};

const go_struct *go_kustomize_plugin(const char *kind)
{
    for (int i = 0; kind && go_kustomize_plugin_kinds[i]; i++)
        if (!strcmp(kind, go_kustomize_plugin_kinds[i]))
            return go_kustomize_plugins[i];
    return NULL;
}
