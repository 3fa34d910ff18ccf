/* set-labels: labels on metadata, selectors and pod templates (catalog set-labels, kustomize commonLabels). */
#include <string.h>

#include "functions/fieldspec.h"

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
    {"apps", NULL, "StatefulSet", "spec/volumeClaimTemplates[]/spec/selector/matchLabels", false},
    {"networking.k8s.io", NULL, "NetworkPolicy", "spec/podSelector/matchLabels", false},
    {"networking.k8s.io", NULL, "NetworkPolicy", "spec/ingress/from/podSelector/matchLabels", false},
    {"networking.k8s.io", NULL, "NetworkPolicy", "spec/egress/to/podSelector/matchLabels", false},
};

static const char *const pod_template_kinds[] = {"Deployment", "ReplicaSet", "DaemonSet", "StatefulSet", "Job",
                                                 "ReplicationController", NULL};
static const char *const pod_selector_paths[] = {
    "topologySpreadConstraints/labelSelector/matchLabels",
    "affinity/podAffinity/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels",
    "affinity/podAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/labelSelector/matchLabels",
    "affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels",
    "affinity/podAntiAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/labelSelector/matchLabels",
    NULL,
};

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

static int run(fn_ctx *c)
{
    const node *labels_node;
    if (!c->config)
        return fn_fail(c, NULL, "`FunctionConfig` is not given: set-labels needs a ConfigMap or SetLabels config");
    if (config_is(c->config, "ConfigMap", ""))
        labels_node = map_get(c->config, "data");
    else if (config_is(c->config, "SetLabels", "fn.kpt.dev"))
        labels_node = map_get(c->config, "labels");
    else {
        const char *k = path_str(c->config, "kind", NULL), *av = path_str(c->config, "apiVersion", NULL);
        return fn_fail(c, c->config, "unknown FunctionConfig `%s.%s`, expect `SetLabels.fn.kpt.dev` or `ConfigMap.v1`",
                       k ? k : "", av ? av : "");
    }
    kvlist labels;
    if (kvlist_from_map(c, labels_node, "labels", &labels) < 0)
        return -1;
    if (labels.n == 0) {
        if (config_is(c->config, "ConfigMap", ""))
            return fn_fail(c, c->config, "`FunctionConfig` is not given: the ConfigMap has no data");
        fn_result_add(c, SEV_WARNING, NULL, NULL, "no labels to set");
        return 0;
    }
    int changed = 0;
    for (size_t i = 0; i < c->items->n; i++) {
        resource *r = c->items->v[i];
        if (!r || is_local_config_for_sdk(r))
            continue;
        for (size_t s = 0; s < sizeof label_specs / sizeof *label_specs; s++)
            if (fieldspec_applies(&label_specs[s], r))
                apply(c, r, label_specs[s].path, label_specs[s].create, &labels, &changed);
        const char *kind = res_kind(r);
        if (!kind)
            continue; /* a kustomization file carries no kind */
        for (const char *const *k = pod_template_kinds; *k; k++) {
            if (strcmp(kind, *k))
                continue;
            for (const char *const *p = pod_selector_paths; *p; p++)
                apply(c, r, arena_printf(c->a, "spec/template/spec/%s", *p), false, &labels, &changed);
        }
        if (!strcmp(kind, "CronJob"))
            for (const char *const *p = pod_selector_paths; *p; p++)
                apply(c, r, arena_printf(c->a, "spec/jobTemplate/spec/template/spec/%s", *p), false, &labels, &changed);
    }
    fn_result_add(c, SEV_INFO, NULL, NULL, "set %d labels in total", changed);
    return 0;
}

const fn_def fn_set_labels = {
    "set-labels",
    "add or overwrite labels on metadata, selectors and pod templates",
    run,
};
