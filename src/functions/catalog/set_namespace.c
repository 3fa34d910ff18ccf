/* set-namespace: rewrites namespaces and the fields that refer to them (catalog set-namespace, SDK go/fn).
 *
 * Config: ConfigMap data.namespace (+ data.namespaceMatcher); a ConfigMap named kptfile.kpt.dev gives data.name when
 * data.namespace is empty (package-context mode); or fn.kpt.dev SetNamespace{namespace, namespaceMatcher}. As in kpt,
 * a config it cannot use is an error *result* and the step passes; but no config at all, a config that is not a map,
 * and values of the wrong type fail the step (kpt crashes or exits 1 on those).
 *
 * Deviations from the catalog, each on purpose:
 *  - RoleBinding subjects are updated (the README promises it, the code never reaches them): a subject whose namespace
 *    is one this run renamed (or the namespaceMatcher) follows it. Subjects in other namespaces stay.
 *  - A CRD's conversion webhook service and an APIService's service get their namespace visited only when that
 *    service exists; kpt 2023 created the whole path (kptdev/kpt#3560), kpt HEAD does as we do.
 *  - In matcher mode an item that does not match is left as it is; kpt writes `namespace: default` into namespaced
 *    items that had none, which would move them out of Argo CD's destination namespace.
 *  - depends-on annotations follow the item they name whenever that item moved (kpt only compares the annotation's
 *    namespace with the matcher, so an item matched through its upstream origin leaves its dependents behind).
 *  - A malformed upstream-identifier annotation fails the step with its file and line (kpt 2023 crashed). */
#include <stdlib.h>
#include <string.h>

#include "functions/function.h"
#include "yaml/scalar.h"

#define UPSTREAM_ID "internal.kpt.dev/upstream-identifier"
#define DEPENDS_ON "config.kubernetes.io/depends-on"
#define UNKNOWN_NS "~C"
#define DEFAULT_NS "default"
#define PKG_CONTEXT_NAME "kptfile.kpt.dev"

/* The SDK's scope table (kyaml openapi precomputedIsNamespaceScoped), keyed by exact apiVersion and kind; the rows
 * are sorted by kind, then apiVersion (as strcmp orders them), for the binary search of scope_of. */
static const struct scope {
    const char *api_version, *kind;
    bool namespaced;
} scopes[] = {
    {"apiregistration.k8s.io/v1", "APIService", false},
    {"apiregistration.k8s.io/v1beta1", "APIService", false},
    {"storage.k8s.io/v1", "CSIDriver", false},
    {"storage.k8s.io/v1beta1", "CSIDriver", false},
    {"storage.k8s.io/v1", "CSINode", false},
    {"storage.k8s.io/v1beta1", "CSINode", false},
    {"storage.k8s.io/v1beta1", "CSIStorageCapacity", true},
    {"certificates.k8s.io/v1", "CertificateSigningRequest", false},
    {"certificates.k8s.io/v1beta1", "CertificateSigningRequest", false},
    {"rbac.authorization.k8s.io/v1", "ClusterRole", false},
    {"rbac.authorization.k8s.io/v1beta1", "ClusterRole", false},
    {"rbac.authorization.k8s.io/v1", "ClusterRoleBinding", false},
    {"rbac.authorization.k8s.io/v1beta1", "ClusterRoleBinding", false},
    {"v1", "ComponentStatus", false},
    {"v1", "ConfigMap", true},
    {"apps/v1", "ControllerRevision", true},
    {"batch/v1", "CronJob", true},
    {"batch/v1beta1", "CronJob", true},
    {"apiextensions.k8s.io/v1", "CustomResourceDefinition", false},
    {"apiextensions.k8s.io/v1beta1", "CustomResourceDefinition", false},
    {"apps/v1", "DaemonSet", true},
    {"apps/v1", "Deployment", true},
    {"discovery.k8s.io/v1", "EndpointSlice", true},
    {"discovery.k8s.io/v1beta1", "EndpointSlice", true},
    {"v1", "Endpoints", true},
    {"events.k8s.io/v1", "Event", true},
    {"events.k8s.io/v1beta1", "Event", true},
    {"v1", "Event", true},
    {"flowcontrol.apiserver.k8s.io/v1beta1", "FlowSchema", false},
    {"autoscaling/v1", "HorizontalPodAutoscaler", true},
    {"autoscaling/v2beta1", "HorizontalPodAutoscaler", true},
    {"autoscaling/v2beta2", "HorizontalPodAutoscaler", true},
    {"extensions/v1beta1", "Ingress", true},
    {"networking.k8s.io/v1", "Ingress", true},
    {"networking.k8s.io/v1beta1", "Ingress", true},
    {"networking.k8s.io/v1", "IngressClass", false},
    {"networking.k8s.io/v1beta1", "IngressClass", false},
    {"batch/v1", "Job", true},
    {"coordination.k8s.io/v1", "Lease", true},
    {"coordination.k8s.io/v1beta1", "Lease", true},
    {"v1", "LimitRange", true},
    {"admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration", false},
    {"admissionregistration.k8s.io/v1beta1", "MutatingWebhookConfiguration", false},
    {"v1", "Namespace", false},
    {"networking.k8s.io/v1", "NetworkPolicy", true},
    {"v1", "Node", false},
    {"v1", "NodeProxyOptions", false},
    {"v1", "PersistentVolume", false},
    {"v1", "PersistentVolumeClaim", true},
    {"v1", "Pod", true},
    {"v1", "PodAttachOptions", true},
    {"policy/v1", "PodDisruptionBudget", true},
    {"policy/v1beta1", "PodDisruptionBudget", true},
    {"v1", "PodExecOptions", true},
    {"v1", "PodPortForwardOptions", true},
    {"v1", "PodProxyOptions", true},
    {"policy/v1beta1", "PodSecurityPolicy", false},
    {"v1", "PodTemplate", true},
    {"scheduling.k8s.io/v1", "PriorityClass", false},
    {"scheduling.k8s.io/v1beta1", "PriorityClass", false},
    {"flowcontrol.apiserver.k8s.io/v1beta1", "PriorityLevelConfiguration", false},
    {"apps/v1", "ReplicaSet", true},
    {"v1", "ReplicationController", true},
    {"v1", "ResourceQuota", true},
    {"rbac.authorization.k8s.io/v1", "Role", true},
    {"rbac.authorization.k8s.io/v1beta1", "Role", true},
    {"rbac.authorization.k8s.io/v1", "RoleBinding", true},
    {"rbac.authorization.k8s.io/v1beta1", "RoleBinding", true},
    {"node.k8s.io/v1", "RuntimeClass", false},
    {"node.k8s.io/v1beta1", "RuntimeClass", false},
    {"autoscaling/v1", "Scale", true},
    {"v1", "Secret", true},
    {"v1", "Service", true},
    {"v1", "ServiceAccount", true},
    {"v1", "ServiceProxyOptions", true},
    {"apps/v1", "StatefulSet", true},
    {"storage.k8s.io/v1", "StorageClass", false},
    {"storage.k8s.io/v1beta1", "StorageClass", false},
    {"admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", false},
    {"admissionregistration.k8s.io/v1beta1", "ValidatingWebhookConfiguration", false},
    {"storage.k8s.io/v1", "VolumeAttachment", false},
    {"storage.k8s.io/v1beta1", "VolumeAttachment", false},
};

static const char *str_or_empty(const char *s)
{
    return s ? s : "";
}

/* A non-null scalar value at metadata.namespace. */
static const node *namespace_node(const resource *r)
{
    const node *n = path_get(r->root, "metadata", "namespace", NULL);
    return is_scalar(n) && !is_null(n) ? n : NULL;
}

static int scope_cmp(const void *key, const void *row)
{
    const struct scope *k = key, *r = row;
    int c = strcmp(k->kind, r->kind);
    return c ? c : strcmp(k->api_version, r->api_version);
}

/* The item's row of the table, or NULL (a search: it is asked several times for every item). */
static const struct scope *scope_of(const resource *r)
{
    struct scope key = {str_or_empty(res_api_version(r)), str_or_empty(res_kind(r)), false};
    return bsearch(&key, scopes, sizeof scopes / sizeof *scopes, sizeof *scopes, scope_cmp);
}

static bool is_namespaced(const resource *r)
{
    const struct scope *s = scope_of(r);
    if (s)
        return s->namespaced;
    return namespace_node(r) != NULL; /* a kind the table does not know: namespaced only if it has a namespace */
}

/* The namespace the item lives in as the SDK sees it: its own, "default" for a namespaced item with none, "~C"
 * for a cluster-scoped one. */
static const char *effective_namespace(const resource *r)
{
    const node *n = namespace_node(r);
    if (n)
        return scalar(n);
    return is_namespaced(r) ? DEFAULT_NS : UNKNOWN_NS;
}

static bool is_local_config(const resource *r)
{
    const char *v = res_annotation(r, "config.kubernetes.io/local-config");
    return v && *v && strcmp(v, "false") != 0;
}

static const char *group_of(arena *a, const resource *r)
{
    const char *av = str_or_empty(res_api_version(r));
    const char *slash = strchr(av, '/');
    return slash ? arena_strndup(a, av, (size_t)(slash - av)) : "";
}

/* kpt's ShortString, used in result messages, followed by suffix; at most max bytes (a result message's limit).
 * Put together by hand: it is made for every item, and printf was a fifth of the function's work. */
static char *short_string_with(arena *a, const resource *r, const char *suffix, size_t max)
{
    const char *parts[] = {"Resource(apiVersion=", str_or_empty(res_api_version(r)), ", kind=",
                           str_or_empty(res_kind(r)), ", namespace=", str_or_empty(res_namespace(r)), ", name=",
                           str_or_empty(res_name(r)), ")", suffix};
    size_t lens[sizeof parts / sizeof *parts], len = 0;
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        len += lens[i] = strlen(parts[i]);
    char *out = arena_alloc(a, len + 1), *p = out;
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
        memcpy(p, parts[i], lens[i]);
        p += lens[i];
    }
    *p = 0;
    if (len > max)
        out[max] = 0;
    return out;
}

static const char *short_string(arena *a, const resource *r)
{
    return short_string_with(a, r, "", SIZE_MAX);
}

typedef struct origin_t {
    const char *group, *kind, *ns, *name;
} origin_t;

/* The item's upstream origin: the upstream-identifier annotation (group|Kind|namespace-or-~C|name), or the item's
 * own identity when it has none. Returns 1 when it came from the annotation, 0 when not, -1 on a malformed one. */
static int origin_of(fn_ctx *c, const resource *r, origin_t *o)
{
    const char *id = res_annotation(r, UPSTREAM_ID);
    if (id && *id) {
        const char *parts[4];
        size_t n = 0;
        const char *s = id;
        while (*s == ' ' || *s == '\t')
            s++;
        size_t len = strlen(s);
        while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\n'))
            len--;
        const char *end = s + len, *p = s;
        for (;;) {
            const char *bar = memchr(p, '|', (size_t)(end - p));
            const char *stop = bar ? bar : end;
            if (n == 4) {
                n = 5;
                break;
            }
            parts[n++] = arena_strndup(c->a, p, (size_t)(stop - p));
            if (!bar)
                break;
            p = bar + 1;
        }
        if (n != 4 || !*parts[1] || !*parts[2] || !*parts[3]) {
            const node *at = path_get(r->root, "metadata", "annotations", UPSTREAM_ID, NULL);
            return fn_fail_res(c, r, at,
                               "annotation %s: %s is in bad format. expect \"<GROUP>|<KIND>|<NAMESPACE>|<NAME>\"",
                               UPSTREAM_ID, id);
        }
        *o = (origin_t){parts[0], parts[1], parts[2], parts[3]};
        return 1;
    }
    *o = (origin_t){group_of(c->a, r), str_or_empty(res_kind(r)), effective_namespace(r), str_or_empty(res_name(r))};
    return 0;
}

/* A set of texts, for the messages and the RoleBinding subjects. One is added per changed field, so an add must not
 * scan the set (a scan made the function quadratic where every object has a namespace of its own): an add appends
 * unless the text is the last one added, and the array is sorted and freed of repeats when it is read, or when it
 * has doubled since it last was. */
typedef struct strset {
    const char **v;
    size_t n, cap;
    size_t clean; /* v[0..clean) is sorted and holds no repeats */
} strset;

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static void set_clean(strset *s)
{
    if (s->clean == s->n)
        return;
    qsort(s->v, s->n, sizeof *s->v, cmp_str);
    size_t w = 0;
    for (size_t i = 0; i < s->n; i++)
        if (!w || strcmp(s->v[w - 1], s->v[i]))
            s->v[w++] = s->v[i];
    s->n = s->clean = w;
}

static bool set_has(strset *s, const char *x)
{
    set_clean(s);
    /* an empty set has no array, and bsearch must not be given NULL */
    return s->n && bsearch(&x, s->v, s->n, sizeof *s->v, cmp_str) != NULL;
}

static void set_add(arena *a, strset *s, const char *x)
{
    if (s->n && !strcmp(s->v[s->n - 1], x))
        return;
    if (s->n >= 2 * s->clean + 16) {
        set_clean(s);
        if (s->n && bsearch(&x, s->v, s->n, sizeof *s->v, cmp_str))
            return;
    }
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 8;
        const char **v = arena_alloc(a, cap * sizeof *v);
        if (s->n)
            memcpy(v, s->v, s->n * sizeof *v);
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = arena_strdup(a, x);
}

/* Go's %v of a sorted []string: "[a b c]". */
static const char *set_list(arena *a, strset *s)
{
    set_clean(s);
    size_t len = 3;
    for (size_t i = 0; i < s->n; i++)
        len += strlen(s->v[i]) + 1;
    char *out = arena_alloc(a, len), *p = out;
    *p++ = '[';
    for (size_t i = 0; i < s->n; i++) {
        if (i)
            *p++ = ' ';
        size_t l = strlen(s->v[i]);
        memcpy(p, s->v[i], l);
        p += l;
    }
    *p++ = ']';
    *p = 0;
    return out;
}

typedef struct walk {
    fn_ctx *c;
    const char *newns;
    unsigned newns_facts; /* scalar_facts(newns), once for every field it goes in */
    node *ns_key;         /* one shared "namespace" key node for the pairs this run adds */
    node *ns_val;         /* and one shared value node (node_value_shared): fn_def.shares_values */
    const char *matcher;  /* NULL: replace-all mode */
    strset old;          /* values this run replaced */
    strset moved;        /* namespaces items were moved out of (metadata.namespace, Namespace names) */
    int count;
} walk;

/* One namespace-valued field, parent[key]. origin: the value's upstream origin ("" when it has none, "~C" to skip).
 * home: the field says where an object lives (not a reference to a namespace). */
static void visit(walk *w, const resource *r, node *parent, const char *key, const char *origin, bool home)
{
    if (!strcmp(origin, UNKNOWN_NS))
        return;
    const node *cur_node = map_get(parent, key);
    if (cur_node && !is_scalar(cur_node))
        return;
    const char *cur = cur_node && !is_null(cur_node) ? scalar(cur_node) : "";
    const char *eff = *cur ? cur : DEFAULT_NS;
    if (!strcmp(eff, w->newns)) {
        if (!*cur && !w->matcher)
            map_set_str_ref(w->c->a, parent, key, w->newns); /* kpt writes the defaulted value; it is the new one */
        return;
    }
    bool change = !w->matcher;
    if (w->matcher) {
        if (*origin && !strcmp(w->matcher, origin)) {
            fn_result_add(w->c, SEV_INFO, r, NULL, "%s has matching origin %s", short_string(w->c->a, r), origin);
            change = true;
        }
        if (!strcmp(w->matcher, eff))
            change = true;
    }
    if (!change)
        return;
    set_add(w->c->a, &w->old, eff);
    if (home)
        set_add(w->c->a, &w->moved, eff);
    /* key is a literal and the new namespace a text of the config, which lives as long as the tree */
    if (!strcmp(key, "namespace"))
        map_set_shared(w->c->a, parent, w->ns_key, w->ns_val);
    else
        map_set_str_ref_facts(w->c->a, parent, key, scalar_facts(key, strlen(key)), w->newns, w->newns_facts);
    w->count++;
}

static bool is_gvk(const resource *r, const char *api_version, const char *kind)
{
    return !strcmp(str_or_empty(res_api_version(r)), api_version) && !strcmp(str_or_empty(res_kind(r)), kind);
}

static void visit_subjects(walk *w, const resource *r)
{
    node *subjects = path_get(r->root, "subjects", NULL);
    if (!is_seq(subjects))
        return;
    seq_foreach(subjects, i, s) {
        if (is_map(s) && map_get(s, "namespace"))
            visit(w, r, s, "namespace", "", false);
    }
}

/* The fields of cluster-scoped objects that name a namespace. */
static int visit_cluster_scoped(walk *w, resource *r)
{
    if (is_gvk(r, "v1", "Namespace")) {
        origin_t o;
        if (origin_of(w->c, r, &o) < 0)
            return -1;
        node *md = path_get(r->root, "metadata", NULL);
        if (is_map(md))
            visit(w, r, md, "name", o.name, true);
    } else if (is_gvk(r, "apiextensions.k8s.io/v1", "CustomResourceDefinition")) {
        node *svc = path_get(r->root, "spec", "conversion", "webhook", "clientConfig", "service", NULL);
        if (is_map(svc))
            visit(w, r, svc, "namespace", "", false);
    } else if (is_gvk(r, "apiregistration.k8s.io/v1", "APIService")) {
        node *svc = path_get(r->root, "spec", "service", NULL);
        if (is_map(svc))
            visit(w, r, svc, "namespace", "", false);
    } else if (!strcmp(str_or_empty(res_kind(r)), "ClusterRoleBinding")) {
        visit_subjects(w, r);
    }
    return 0;
}

/* RoleBinding subjects (a deviation, see the top): a subject follows the objects of the namespace it names when
 * this run moved them (or when it names the namespaceMatcher). */
static void visit_rolebinding_subjects(walk *w, const resource *r)
{
    node *subjects = path_get(r->root, "subjects", NULL);
    if (!is_seq(subjects))
        return;
    seq_foreach(subjects, i, s) {
        const node *ns = is_map(s) ? map_get(s, "namespace") : NULL;
        if (!is_scalar(ns) || is_null(ns) || !strcmp(scalar(ns), w->newns))
            continue;
        if (set_has(&w->moved, scalar(ns)) || (w->matcher && !strcmp(w->matcher, scalar(ns)))) {
            set_add(w->c->a, &w->old, scalar(ns));
            map_set_str(w->c->a, s, "namespace", w->newns);
            w->count++;
        }
    }
}

/* depends-on keys of the items, taken before any change: "<group>/namespaces/<ns>/<Kind>/<name>". */
typedef struct gknn {
    const char *key;
    const resource *r;
    const char *ns_before;
} gknn;

static int cmp_gknn(const void *x, const void *y)
{
    return strcmp(((const gknn *)x)->key, ((const gknn *)y)->key);
}

static bool dep_segment_ok(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
              ch == '-' || ch == '.'))
            return false;
    }
    return true;
}

/* Splits a namespaced depends-on value: group/namespaces/ns/Kind/name (each segment [-.\w]*). */
static bool parse_depends_on(const char *v, const char *seg[5], size_t len[5])
{
    const char *p = v;
    for (int i = 0; i < 5; i++) {
        const char *slash = strchr(p, '/');
        if ((i < 4) != (slash != NULL))
            return false;
        seg[i] = p;
        len[i] = slash ? (size_t)(slash - p) : strlen(p);
        if (!dep_segment_ok(seg[i], len[i]))
            return false;
        p = slash ? slash + 1 : p;
    }
    return len[1] == 10 && !strncmp(seg[1], "namespaces", 10);
}

static void update_depends_on(walk *w, gknn *ids, size_t nids)
{
    int count = 0;
    strset old = {0};
    for (size_t i = 0; i < w->c->items->n; i++) {
        resource *r = w->c->items->v[i];
        if (!r || is_local_config(r))
            continue;
        const char *v = res_annotation(r, DEPENDS_ON);
        const char *seg[5];
        size_t len[5];
        if (!v || !*v || !parse_depends_on(v, seg, len))
            continue;
        gknn key = {v, NULL, NULL};
        const gknn *hit = bsearch(&key, ids, nids, sizeof *ids, cmp_gknn);
        if (!hit)
            continue; /* an item outside the input, or cluster-scoped: left alone */
        const char *ns = arena_strndup(w->c->a, seg[2], len[2]);
        const char *now = effective_namespace(hit->r);
        if (!strcmp(ns, w->newns) || !strcmp(now, hit->ns_before))
            continue; /* already the new one, or the item it names did not move */
        set_add(w->c->a, &old, ns);
        const char *nv = arena_printf(w->c->a, "%.*s/namespaces/%s/%.*s/%.*s", (int)len[0], seg[0], now, (int)len[3],
                                      seg[3], (int)len[4], seg[4]);
        /* the object's own annotations: set-annotations may have given many objects one shared map */
        node *ann = map_ensure_map(w->c->a, map_get(r->root, "metadata"), "annotations");
        map_set_str(w->c->a, ann, DEPENDS_ON, nv);
        count++;
    }
    if (count == 0)
        fn_result_add(w->c, SEV_INFO, NULL, NULL,
                      "all `depends-on` annotations are up-to-date. no `namespace` changed");
    else
        fn_result_add(w->c, SEV_INFO, NULL, NULL,
                      "`depends-on` annotation namespace %s updated to \"%s\", %d value(s) changed",
                      set_list(w->c->a, &old), w->newns, count);
}

/* A string field of the config: absent or null is "", a non-scalar fails the step. */
static int config_string(fn_ctx *c, const node *m, const char *key, const char **out)
{
    *out = "";
    const node *v = is_map(m) ? map_get(m, key) : NULL;
    if (!v || is_null(v))
        return 0;
    if (!is_scalar(v))
        return fn_fail(c, v, "set-namespace: `%s` must be a string", key);
    *out = scalar(v);
    return 0;
}

/* Reads the config. Returns -1 when the step fails, 1 when it gave an error result (the step passes), 0 when usable. */
static int read_config(fn_ctx *c, const char **newns, const char **matcher)
{
    const node *cfg = c->config;
    if (!cfg)
        return fn_fail(c, NULL,
                       "set-namespace needs a functionConfig: a ConfigMap with data.namespace, or a "
                       "SetNamespace (fn.kpt.dev/v1alpha1) with namespace");
    if (!is_map(cfg))
        return fn_fail(c, cfg, "set-namespace: the functionConfig must be a map (a ConfigMap or a SetNamespace)");
    if (config_is(cfg, "ConfigMap", "")) {
        const node *data = map_get(cfg, "data");
        if (data && !is_null(data) && !is_map(data))
            return fn_fail(c, data, "set-namespace: the ConfigMap's data must be a map of strings");
        const char *ns, *name;
        if (config_string(c, data, "namespace", &ns) < 0 || config_string(c, data, "namespaceMatcher", matcher) < 0 ||
            config_string(c, data, "name", &name) < 0)
            return -1;
        bool pkg_context = !strcmp(str_or_empty(path_str(cfg, "metadata", "name", NULL)), PKG_CONTEXT_NAME);
        if (*ns)
            *newns = ns;
        else if (pkg_context && *name)
            *newns = name;
        else {
            fn_result_add(c, SEV_ERROR, NULL, NULL,
                          pkg_context ? "`data.name` should not be empty" : "`data.namespace` should not be empty");
            return 1;
        }
        return 0;
    }
    if (config_is(cfg, "SetNamespace", "fn.kpt.dev")) {
        if (config_string(c, cfg, "namespace", newns) < 0 || config_string(c, cfg, "namespaceMatcher", matcher) < 0)
            return -1;
        if (!**newns) {
            fn_result_add(c, SEV_ERROR, NULL, NULL, "`namespace` should not be empty");
            return 1;
        }
        return 0;
    }
    fn_result_add(
        c, SEV_ERROR, NULL, NULL,
        "unknown functionConfig Kind=%s ApiVersion=%s, expect `ConfigMap.v1` or `SetNamespace.v1alpha1.fn.kpt.dev`",
        str_or_empty(path_str(cfg, "kind", NULL)), str_or_empty(path_str(cfg, "apiVersion", NULL)));
    return 1;
}

/* Kinds kustomize and the v0.4.0-0.4.1 rewrite knew to be cluster-scoped beyond the SDK table: a kind outside the
 * table that is not one of these is namespaced in those releases, so it gets a namespace even when it has none. */
static bool unknown_kind_gets_namespace(const resource *r)
{
    const char *kind = str_or_empty(res_kind(r));
    if (scope_of(r))
        return false; /* known: the table decides */
    return !namespace_node(r) && *kind && strcmp(kind, "CustomResourceDefinition") && strcmp(kind, "Namespace");
}

static int run(fn_ctx *c)
{
    const char *newns = "", *matcher = "";
    /* Releases (catalog-function-versions): <= v0.2.0 kustomize (unknown kinds namespaced; up to v0.1.3 local-config
     * items dropped), v0.3.x only existing namespace fields change, v0.4.0-0.4.1 replace-all where unknown kinds get
     * a namespace and namespaceMatcher is not read; v0.4.2+ (master) as below. Before v0.4.2 a bad config exits 1. */
    const fn_version *v = &c->version;
    bool before_042 = fn_version_before(v, 0, 4, 2), before_040 = fn_version_before(v, 0, 4, 0);
    bool before_030 = fn_version_before(v, 0, 3, 0), era_a = fn_version_before(v, 0, 1, 4);
    size_t nres = c->results ? c->results->n : 0;
    int rc = read_config(c, &newns, &matcher);
    if (rc > 0 && before_042 && c->results && c->results->n > nres)
        return fn_fail(c, c->config, "%s", c->results->v[c->results->n - 1].message);
    if (rc)
        return rc < 0 ? -1 : 0;
    bool v03 = !before_030 && before_040;
    if (before_042 && !v03)
        matcher = ""; /* no namespaceMatcher before v0.3.0, and v0.4.0-0.4.1 did not read it */
    walk w = {.c = c, .newns = newns, .newns_facts = scalar_facts(newns, strlen(newns)),
              .ns_key = node_key_shared(c->a, "namespace", 0), .matcher = *matcher ? matcher : NULL,
              .ns_val = node_value_shared(c->a, newns, 0)};
    if (era_a)
        for (size_t i = 0; i < c->items->n; i++)
            if (c->items->v[i] && res_annotation(c->items->v[i], "config.kubernetes.io/local-config"))
                c->items->v[i] = NULL; /* kustomize api 0.7 dropped them, whatever the value */
    if (before_042 && !v03)
        for (size_t i = 0; i < c->items->n; i++) {
            resource *r = c->items->v[i];
            node *md = r && !is_local_config(r) && unknown_kind_gets_namespace(r)
                           ? map_ensure_map(c->a, r->root, "metadata") : NULL;
            if (md) {
                map_set_str(c->a, md, "namespace", newns);
                w.count++;
            }
        }

    /* Identities before the change, for depends-on: only when an item has the annotation (the identities would
     * otherwise cost some 90 bytes an object for nothing). */
    bool depends = false;
    for (size_t i = 0; i < c->items->n && !depends; i++)
        depends = c->items->v[i] && res_annotation(c->items->v[i], DEPENDS_ON);
    gknn *ids = arena_alloc(c->a, ((depends ? c->items->n : 0) + 1) * sizeof *ids);
    size_t nids = 0;
    for (size_t i = 0; depends && i < c->items->n; i++) {
        resource *r = c->items->v[i];
        if (!r || is_local_config(r))
            continue;
        const char *ns = effective_namespace(r);
        if (!strcmp(ns, UNKNOWN_NS))
            continue;
        ids[nids++] = (gknn){arena_printf(c->a, "%s/namespaces/%s/%s/%s", group_of(c->a, r), ns,
                                          str_or_empty(res_kind(r)), str_or_empty(res_name(r))),
                             r, ns};
    }
    qsort(ids, nids, sizeof *ids, cmp_gknn);

    /* Origins: every namespaced item with an upstream-identifier names the namespace it came from (v0.4.2+). */
    strset origins = {0};
    size_t first_warning = c->results ? c->results->n : 0;
    for (size_t i = 0; !before_042 && i < c->items->n; i++) {
        resource *r = c->items->v[i];
        if (!r || is_local_config(r))
            continue;
        origin_t o;
        /* the item's own identity is not needed here: only whether it has the annotation, and what that says */
        const char *id = res_annotation(r, UPSTREAM_ID);
        int has = id && *id ? origin_of(c, r, &o) : 0;
        if (has < 0)
            return -1;
        if (!has) {
            /* one for every object that lacks the annotation, the step's peak on a dense package: only when someone
             * reads it (nothing in this step does) */
            if (fn_results_read(c))
                fn_result_add_text(c, SEV_WARNING, r, NULL,
                                   short_string_with(c->a, r, " does not have upstream origin.", 1023));
            continue;
        }
        if (!is_namespaced(r))
            continue;
        if (!strcmp(o.ns, UNKNOWN_NS)) {
            if (c->results)
                c->results->n = first_warning;
            fn_result_add(c, SEV_ERROR, r, NULL,
                          "%s is namespace-scoped, but has cluster-scoped or unknown scoped origin %s",
                          short_string(c->a, r), res_annotation(r, UPSTREAM_ID));
            return 0;
        }
        set_add(c->a, &origins, o.ns);
    }
    if (!w.matcher && origins.n > 1) {
        if (c->results)
            c->results->n = first_warning;
        fn_result_add(c, SEV_ERROR, NULL, NULL,
                      "unable to use origin `namespace` to match. expect a single upstream namespace, found %s. please "
                      "switch to use `namespaceMatcher` to specify the namespace value you want to change",
                      set_list(c->a, &origins));
        return 0;
    }

    /* Cluster-scoped objects with namespace fields first, then namespaced objects, as the SDK visits them. */
    /* whether each item is local config, and whether it is namespaced, read once for the three walks below: they
     * change namespace fields only, and only of namespaced items, which stay namespaced */
    bool *local = arena_alloc(c->a, 2 * c->items->n + 1), *namespaced = local + c->items->n;
    for (size_t i = 0; i < c->items->n; i++) {
        resource *r = c->items->v[i];
        local[i] = r && is_local_config(r);
        namespaced[i] = r && !local[i] && is_namespaced(r);
    }
    for (size_t i = 0; i < c->items->n; i++) {
        resource *r = c->items->v[i];
        if (r && !local[i] && !namespaced[i] && visit_cluster_scoped(&w, r) < 0)
            return -1;
    }
    for (size_t i = 0; i < c->items->n; i++) {
        resource *r = c->items->v[i];
        if (!r || local[i] || !namespaced[i])
            continue;
        if (v03 && !namespace_node(r))
            continue; /* v0.3.x changed existing namespace fields only */
        /* only the origin's namespace is used: an item without the annotation needs no identity made */
        const char *id = res_annotation(r, UPSTREAM_ID), *ons;
        origin_t o;
        if (id && *id) {
            if (origin_of(c, r, &o) < 0)
                return -1;
            ons = o.ns;
        } else {
            ons = effective_namespace(r);
        }
        node *md = map_ensure_map(c->a, r->root, "metadata");
        if (md)
            visit(&w, r, md, "namespace", ons, true);
    }
    for (size_t i = 0; i < c->items->n; i++) {
        resource *r = c->items->v[i];
        if (r && namespaced[i] && !strcmp(str_or_empty(res_kind(r)), "RoleBinding"))
            visit_rolebinding_subjects(&w, r);
    }

    if (w.count == 0)
        fn_result_add(c, SEV_INFO, NULL, NULL, "all matching namespaces are already \"%s\". no value changed", newns);
    else
        fn_result_add(c, SEV_INFO, NULL, NULL, "namespace %s updated to \"%s\", %d value(s) changed",
                      set_list(c->a, &w.old), newns, w.count);
    update_depends_on(&w, ids, nids);
    return 0;
}

const fn_def fn_set_namespace = {
    .name = "set-namespace",
    .summary = "rewrite namespaces and the fields that refer to them",
    .run = run,
    .shares_values = true, /* its edits go through the setters */
    .releases = "0.1.0 0.1.1 0.1.2 0.1.3 0.1.4 0.2.0 0.3.0 0.3.1 0.3.2 0.3.3 0.3.4 0.4.0 0.4.1 0.4.2 0.4.3 0.4.4 "
                      "0.4.5",
    .readme = {
        .does = "namespaces and the fields that refer to them (replace-all, `namespaceMatcher`, package-context)",
        .differs = "RoleBinding subjects in a moved namespace are updated (the catalog promises it but skips them); "
                "matcher mode does not write `namespace: default` into objects that do not match; `depends-on` "
                "follows a moved target; CRD and APIService service fields are not created when absent "
                "(kptdev/kpt#3560)",
        .versions = "≤v0.1.3: local-config objects dropped · ≤v0.2.0: custom resources without a namespace get one · "
                "v0.3.x: only existing namespace fields change · v0.4.0–v0.4.1: replace-all, custom resources get "
                "one, `namespaceMatcher` ignored · ≥v0.4.2, `latest`, `unstable`: origin checks, unknown kinds "
                "skipped",
    },
};
