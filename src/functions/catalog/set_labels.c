/* set-labels: labels on metadata, selectors and pod templates (catalog set-labels, kustomize commonLabels).
 * Two behaviours, by the release a step pins: v0.1.x ran kustomize's commonLabels field specs (pod templates created
 * when missing, config kinds SetLabelConfig/fieldSpecs, no results; up to v0.1.4 local-config items were dropped,
 * v0.1.5 labelled them, the Kptfile too); v0.2.0 onwards (a rewrite, unchanged through latest) visits a pod template
 * only where it exists, skips local-config items and reports `set N labels in total`. */
#include <string.h>

#include "functions/krm/fieldspec.h"

#define ANY NULL

/* Paths without create only overwrite keys that are already there: adding keys to a selector would change
 * what it selects. Pod (anti-)affinity selectors are included here; the catalog misses them (a deviation). */
static const fieldspec label_specs[] = {
    {ANY, NULL, NULL, "metadata/labels", true},
    {"", "v1", "Service", "spec/selector", true},
    {"", "v1", "ReplicationController", "spec/selector", true},
    {ANY, NULL, "Deployment", "spec/selector/matchLabels", true},
    {ANY, NULL, "ReplicaSet", "spec/selector/matchLabels", true},
    {ANY, NULL, "DaemonSet", "spec/selector/matchLabels", true},
    {"apps", NULL, "StatefulSet", "spec/selector/matchLabels", true},
    {"batch", NULL, "Job", "spec/selector/matchLabels", false},
    {"policy", NULL, "PodDisruptionBudget", "spec/selector/matchLabels", false},
    {"", "v1", "ReplicationController", "spec/template/metadata/labels", true},
    {ANY, NULL, "Deployment", "spec/template/metadata/labels", true},
    {ANY, NULL, "ReplicaSet", "spec/template/metadata/labels", true},
    {ANY, NULL, "DaemonSet", "spec/template/metadata/labels", true},
    {"apps", NULL, "StatefulSet", "spec/template/metadata/labels", true},
    {"batch", NULL, "Job", "spec/template/metadata/labels", true},
    {"batch", NULL, "CronJob", "spec/jobTemplate/metadata/labels", true},
    {"batch", NULL, "CronJob", "spec/jobTemplate/spec/selector/matchLabels", false},
    {"batch", NULL, "CronJob", "spec/jobTemplate/spec/template/metadata/labels", true},
    {"apps", NULL, "StatefulSet", "spec/volumeClaimTemplates[]/metadata/labels", true},
    {"apps", NULL, "StatefulSet", "spec/volumeClaimTemplates[]/spec/selector/matchLabels", false}, /* >= v0.2 */
    {"networking.k8s.io", NULL, "NetworkPolicy", "spec/podSelector/matchLabels", false},
    {"networking.k8s.io", NULL, "NetworkPolicy", "spec/ingress/from/podSelector/matchLabels", false},
    {"networking.k8s.io", NULL, "NetworkPolicy", "spec/egress/to/podSelector/matchLabels", false},
};

static const char *const pod_template_kinds[] = {"Deployment", "ReplicaSet", "DaemonSet", "StatefulSet", "Job",
                                                 "ReplicationController", NULL};
/* Pod (anti-)affinity and topology spread selectors under a pod spec, written out in full for each place a pod
 * spec sits (no path is built per object). */
#define POD_SELECTOR_PATHS(spec)                                                                                      \
    {                                                                                                                 \
        spec "topologySpreadConstraints/labelSelector/matchLabels",                                                   \
        spec "affinity/podAffinity/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels",         \
        spec "affinity/podAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/labelSelector/"    \
             "matchLabels",                                                                                           \
        spec "affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels",     \
        spec "affinity/podAntiAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/"              \
             "labelSelector/matchLabels",                                                                             \
        NULL,                                                                                                         \
    }
static const char *const pod_selector_paths[] = POD_SELECTOR_PATHS("spec/template/spec/");
static const char *const cronjob_pod_selector_paths[] = POD_SELECTOR_PATHS("spec/jobTemplate/spec/template/spec/");

struct apply {
    arena *a;
    const kvlist *labels;
    bool create;
    int changed;
};

static int set_at(void *ud, node *parent, const char *key)
{
    struct apply *ap = ud;
    ap->changed += set_string_pairs(ap->a, parent, key, ap->labels, ap->create, ap->create);
    return 0;
}

static void apply(fn_ctx *c, resource *r, const char *path, bool create, const kvlist *labels, int *changed)
{
    struct apply ap = {c->a, labels, create, 0};
    fieldspec_visit(c->a, r->root, path, create, set_at, &ap);
    *changed += ap.changed;
}

static bool is_local_config_for_sdk(const resource *r)
{
    const char *v = res_annotation(r, "config.kubernetes.io/local-config");
    return v && *v && strcmp(v, "false") != 0;
}

/* v0.2 visits a pod template's labels only when the template is already there. */
static bool template_exists(const resource *r, const char *path)
{
    if (!strncmp(path, "spec/jobTemplate/spec/template/", 31))
        return is_map(path_get(r->root, "spec", "jobTemplate", "spec", "template", NULL));
    if (!strncmp(path, "spec/jobTemplate/", 17))
        return is_map(path_get(r->root, "spec", "jobTemplate", NULL));
    if (!strncmp(path, "spec/template/", 14))
        return is_map(path_get(r->root, "spec", "template", NULL));
    return true;
}

/* fieldSpecs / additionalLabelFields of v0.1.x: [{group, version, kind, path, create}] */
static int read_specs(fn_ctx *c, const node *list, fieldspec **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!list || is_null(list))
        return 0;
    if (!is_seq(list))
        return fn_fail(c, list, "additionalLabelFields must be a list of field specs");
    *out = arena_alloc(c->a, (node_len(list) + 1) * sizeof **out);
    seq_foreach(list, i, e) {
        const char *path = is_map(e) ? path_str(e, "path", NULL) : NULL;
        if (!path || !*path)
            return fn_fail(c, e, "a field spec must be a map with a path (and group, version, kind, create)");
        const char *create = path_str(e, "create", NULL), *group = path_str(e, "group", NULL);
        (*out)[(*n)++] = (fieldspec){group && *group ? group : NULL, path_str(e, "version", NULL),
                                     path_str(e, "kind", NULL), path, create && !strcmp(create, "true")};
    }
    return 0;
}

/* v0.1.x: kustomize's commonLabels over every item the release kept. */
static int run_v01(fn_ctx *c)
{
    bool era_a = fn_version_before(&c->version, 0, 1, 5); /* kustomize api 0.7: local-config items dropped */
    const node *labels_node = NULL, *extra = NULL;
    if (c->config && config_is(c->config, "ConfigMap", "")) {
        labels_node = map_get(c->config, "data");
    } else if (c->config && (config_is(c->config, "SetLabelConfig", "fn.kpt.dev") ||
                             (!era_a && config_is(c->config, "SetLabels", "fn.kpt.dev")))) {
        labels_node = map_get(c->config, "labels");
        const node *a1 = map_get(c->config, "additionalLabelFields"), *a2 = map_get(c->config, "fieldSpecs");
        if (a1 && a2)
            return fn_fail(c, a2, "failed to configure function: give additionalLabelFields or fieldSpecs, not both");
        extra = a1 ? a1 : a2;
    } else {
        /* the wording catalog-function-versions gives for v0.1.0-v0.1.4; v0.1.5's is on no record */
        return fn_fail_recorded(c, era_a, c->config,
                                "failed to configure function: function config must be a ConfigMap or %s",
                                era_a ? "SetLabelConfig" : "SetLabels");
    }
    kvlist labels;
    fieldspec *specs;
    size_t nspecs;
    if (kvlist_from_map(c, labels_node, "labels", &labels) < 0 || read_specs(c, extra, &specs, &nspecs) < 0)
        return -1;
    kvlist_share_values(c->a, &labels); /* one value node for every object a label goes on */
    if (labels.n == 0)
        return fn_fail_recorded(c, true, c->config, "failed to configure function: input label list cannot be empty");
    int changed = 0;
    for (size_t i = 0; i < c->items->n; i++) {
        resource *r = c->items->v[i];
        if (!r)
            continue;
        if (era_a && res_annotation(r, "config.kubernetes.io/local-config")) {
            c->items->v[i] = NULL; /* this release's kustomize dropped them, whatever the value */
            continue;
        }
        fieldspec_gvk g = fieldspec_gvk_of(r);
        for (size_t s = 0; s < sizeof label_specs / sizeof *label_specs; s++)
            if (fieldspec_applies_gvk(&label_specs[s], &g) && !strstr(label_specs[s].path, "volumeClaimTemplates[]/spec"))
                apply(c, r, label_specs[s].path, label_specs[s].create, &labels, &changed);
        for (size_t s = 0; s < nspecs; s++)
            if (fieldspec_applies_gvk(&specs[s], &g))
                apply(c, r, specs[s].path, specs[s].create, &labels, &changed);
        /* pod (anti-)affinity and topology spread selectors: apps Deployment and StatefulSet only */
        const char *kind = res_kind(r);
        char group[256];
        res_group(r, group, sizeof group);
        if (kind && !strcmp(group, "apps") && (!strcmp(kind, "Deployment") || !strcmp(kind, "StatefulSet")))
            for (const char *const *p = pod_selector_paths; *p; p++)
                apply(c, r, *p, false, &labels, &changed);
    }
    return 0; /* kustomize-based releases report nothing on success */
}

/* kpt's stand-in for `configMap: {}` (and eval without a config): v0.2 counts it as no config at all. */
static bool placeholder_config(const node *config)
{
    const node *data = map_get(config, "data");
    return config_is(config, "ConfigMap", "") &&
           scalar_is(path_get(config, "metadata", "name", NULL), "function-input") &&
           (!data || is_null(data) || (is_map(data) && node_len(data) == 0));
}

static int run(fn_ctx *c)
{
    if (fn_version_before(&c->version, 0, 2, 0))
        return run_v01(c);
    const node *labels_node;
    /* The failures' results are the ones the catalog's tests record for v0.2 (its set-labels empty-list/simple,
     * wrong-config-group, ill-formatted-fn-config): an info, then exit 1, for no config at all. */
    if (!c->config || placeholder_config(c->config))
        fn_failure_result(c, SEV_INFO, NULL, NULL, "`FunctionConfig` is not given");
    if (!c->config)
        return fn_fail(c, NULL, "`FunctionConfig` is not given: set-labels needs a ConfigMap or SetLabels config");
    if (config_is(c->config, "ConfigMap", ""))
        labels_node = map_get(c->config, "data");
    else if (config_is(c->config, "SetLabels", "fn.kpt.dev"))
        labels_node = map_get(c->config, "labels");
    else {
        const char *k = path_str(c->config, "kind", NULL), *av = path_str(c->config, "apiVersion", NULL);
        /* the catalog names the config by its Go GroupKind: Kind.group, the kind alone in the core group */
        const char *slash = av ? strrchr(av, '/') : NULL;
        fn_failure_result(c, SEV_ERROR, NULL, NULL,
                          "unknown FunctionConfig `%s%s%.*s`, expect `SetLabels.fn.kpt.dev` or `ConfigMap.v1`",
                          k ? k : "", slash ? "." : "", slash ? (int)(slash - av) : 0, slash ? av : "");
        return fn_fail(c, c->config, "unknown FunctionConfig `%s.%s`, expect `SetLabels.fn.kpt.dev` or `ConfigMap.v1`",
                       k ? k : "", av ? av : "");
    }
    if (is_seq(labels_node) && config_is(c->config, "SetLabels", "fn.kpt.dev"))
        fn_failure_result(c, SEV_ERROR, NULL, NULL,
                          "unable to convert object to *setlabels.SetLabels with error: json: cannot unmarshal array "
                          "into Go struct field SetLabels.labels of type map[string]string");
    kvlist labels;
    if (kvlist_from_map(c, labels_node, "labels", &labels) < 0)
        return -1;
    kvlist_share_values(c->a, &labels); /* one value node for every object a label goes on */
    if (labels.n == 0) {
        if (config_is(c->config, "ConfigMap", ""))
            return fn_fail(c, c->config, "`FunctionConfig` is not given: the ConfigMap has no data");
        /* the catalog's empty-list/advanced records this wording */
        fn_result_add(c, SEV_WARNING, NULL, NULL, "no `labels` arguments are given in FunctionConfig");
        return 0;
    }
    int changed = 0;
    size_t seen = 0;
    for (size_t i = 0; i < c->items->n; i++) {
        resource *r = c->items->v[i];
        if (!r || is_local_config_for_sdk(r))
            continue;
        seen++;
        fieldspec_gvk g = fieldspec_gvk_of(r);
        for (size_t s = 0; s < sizeof label_specs / sizeof *label_specs; s++)
            if (fieldspec_applies_gvk(&label_specs[s], &g) && template_exists(r, label_specs[s].path))
                apply(c, r, label_specs[s].path, label_specs[s].create, &labels, &changed);
        const char *kind = res_kind(r);
        if (!kind)
            continue; /* a kustomization file carries no kind */
        for (const char *const *k = pod_template_kinds; *k; k++) {
            if (strcmp(kind, *k))
                continue;
            for (const char *const *p = pod_selector_paths; *p; p++)
                apply(c, r, *p, false, &labels, &changed);
        }
        if (!strcmp(kind, "CronJob"))
            for (const char *const *p = cronjob_pod_selector_paths; *p; p++)
                apply(c, r, *p, false, &labels, &changed);
    }
    if (!seen)
        fn_result_add(c, SEV_INFO, NULL, NULL, "no input resources");
    else
        fn_result_add(c, SEV_INFO, NULL, NULL, "set %d labels in total", changed);
    return 0;
}

const fn_def fn_set_labels = {
    .name = "set-labels",
    .summary = "add or overwrite labels on metadata, selectors and pod templates",
    .run = run,
    .shares_values = true, /* its edits go through the setters */
    .releases = "0.1.0 0.1.1 0.1.2 0.1.3 0.1.4 0.1.5 0.2.0 0.2.1 0.2.2 0.2.3 0.2.4 0.2.5",
    .readme = {
        .does = "labels on metadata, selectors and pod templates",
        .differs = "pod (anti-)affinity selectors are updated too (the catalog misses them); a `v1 Service` selector is "
                "set only for the core group",
        .versions = "≤v0.1.4: commonLabels, local-config objects dropped · v0.1.5: local-config objects and the Kptfile "
                "labelled, missing pod-template labels created, `SetLabelConfig`/`fieldSpecs` accepted · ≥v0.2.0, "
                "`latest`, `unstable`: templates labelled only where present, local-config skipped",
    },
};
