/* kustomize's default nameReference table and its referral rules (kustomize api/filters/nameref), written out
 * for the objects our functions rename, plus kpt's depends-on annotation. Deviations from kustomize, each because
 * the kustomize behaviour leaves a reference dangling or points it at the wrong object:
 *   - pod-spec references are followed in every object that holds a pod spec (Pod, PodTemplate, Deployment,
 *     ReplicaSet, DaemonSet, StatefulSet, Job, CronJob, ReplicationController); kustomize skips
 *     ReplicationController for ConfigMap/Secret and ReplicaSet/PodTemplate for ServiceAccount, PVC and
 *     PriorityClass;
 *   - IngressClass is matched in group networking.k8s.io (kustomize's table says "networking.k8s.io/v1", which
 *     never matches, so ingressClassName is never fixed there);
 *   - a reference map that names a kind (RoleBinding subjects) is only rewritten when that kind is the
 *     referral's (kustomize renames a Group or User subject that shares a renamed ServiceAccount's name);
 *   - a reference map without a name is skipped instead of failing the function. */
#include "functions/krm/nameref.h"

#include <stdlib.h>
#include <string.h>

#include "functions/krm/fieldspec.h"
#include "util/buf.h"

#define ANY NULL

/* ---- scope ---- */

static const struct {
    const char *group, *kind;
} cluster_kinds[] = {
    {"", "Namespace"},
    {"", "Node"},
    {"", "PersistentVolume"},
    {"", "ComponentStatus"},
    {"admissionregistration.k8s.io", "MutatingWebhookConfiguration"},
    {"admissionregistration.k8s.io", "ValidatingWebhookConfiguration"},
    {"admissionregistration.k8s.io", "ValidatingAdmissionPolicy"},
    {"admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"},
    {"admissionregistration.k8s.io", "MutatingAdmissionPolicy"},
    {"admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding"},
    {"apiextensions.k8s.io", "CustomResourceDefinition"},
    {"apiregistration.k8s.io", "APIService"},
    {"authentication.k8s.io", "TokenReview"},
    {"authentication.k8s.io", "SelfSubjectReview"},
    {"authorization.k8s.io", "SelfSubjectAccessReview"},
    {"authorization.k8s.io", "SelfSubjectRulesReview"},
    {"authorization.k8s.io", "SubjectAccessReview"},
    {"certificates.k8s.io", "CertificateSigningRequest"},
    {"certificates.k8s.io", "ClusterTrustBundle"},
    {"flowcontrol.apiserver.k8s.io", "FlowSchema"},
    {"flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"},
    {"internal.apiserver.k8s.io", "StorageVersion"},
    {"networking.k8s.io", "IngressClass"},
    {"networking.k8s.io", "IPAddress"},
    {"networking.k8s.io", "ServiceCIDR"},
    {"node.k8s.io", "RuntimeClass"},
    {"policy", "PodSecurityPolicy"},
    {"rbac.authorization.k8s.io", "ClusterRole"},
    {"rbac.authorization.k8s.io", "ClusterRoleBinding"},
    {"resource.k8s.io", "DeviceClass"},
    {"resource.k8s.io", "ResourceSlice"},
    {"scheduling.k8s.io", "PriorityClass"},
    {"storage.k8s.io", "CSIDriver"},
    {"storage.k8s.io", "CSINode"},
    {"storage.k8s.io", "StorageClass"},
    {"storage.k8s.io", "VolumeAttachment"},
    {"storage.k8s.io", "VolumeAttributesClass"},
};

bool nameref_cluster_scoped(const char *group, const char *kind)
{
    if (!kind)
        return false;
    for (size_t i = 0; i < sizeof cluster_kinds / sizeof *cluster_kinds; i++)
        if (!strcmp(kind, cluster_kinds[i].kind) && !strcmp(group ? group : "", cluster_kinds[i].group))
            return true;
    return false;
}

/* ---- the table ---- */

/* Objects that hold a pod spec, and the keys that lead to it. Any group, as in kustomize's field specs. */
static const struct {
    const char *kind;
    const char *keys[6];
} pod_holders[] = {
    {"Pod", {"spec", NULL}},
    {"PodTemplate", {"template", "spec", NULL}},
    {"Deployment", {"spec", "template", "spec", NULL}},
    {"ReplicaSet", {"spec", "template", "spec", NULL}},
    {"DaemonSet", {"spec", "template", "spec", NULL}},
    {"StatefulSet", {"spec", "template", "spec", NULL}},
    {"Job", {"spec", "template", "spec", NULL}},
    {"ReplicationController", {"spec", "template", "spec", NULL}},
    {"CronJob", {"spec", "jobTemplate", "spec", "template", "spec", NULL}},
};

typedef struct referral_kind {
    const char *group, *version, *kind;  /* the renamed object; NULL matches anything */
    const char *const *pod_paths;        /* references inside a pod spec, wherever one is held */
    const fieldspec *fields;             /* other referrers, up to an entry without a path */
} referral_kind;

static const fieldspec scale_target_refs[] = {
    {ANY, NULL, "HorizontalPodAutoscaler", "spec/scaleTargetRef/name", false},
    {0},
};

static const char *const configmap_pod_paths[] = {
    "volumes/configMap/name",
    "volumes/projected/sources/configMap/name",
    "containers/env/valueFrom/configMapKeyRef/name",
    "initContainers/env/valueFrom/configMapKeyRef/name",
    "containers/envFrom/configMapRef/name",
    "initContainers/envFrom/configMapRef/name",
    NULL,
};
static const fieldspec configmap_refs[] = {
    {ANY, NULL, "Node", "spec/configSource/configMap", false},
    {ANY, NULL, "Role", "rules/resourceNames", false},
    {ANY, NULL, "ClusterRole", "rules/resourceNames", false},
    {ANY, NULL, "Ingress", "metadata/annotations/nginx.ingress.kubernetes.io\\/fastcgi-params-configmap", false},
    {0},
};

static const char *const secret_pod_paths[] = {
    "volumes/secret/secretName",
    "volumes/projected/sources/secret/name",
    "containers/env/valueFrom/secretKeyRef/name",
    "initContainers/env/valueFrom/secretKeyRef/name",
    "containers/envFrom/secretRef/name",
    "initContainers/envFrom/secretRef/name",
    "imagePullSecrets/name",
    NULL,
};
static const fieldspec secret_refs[] = {
    {ANY, NULL, "Ingress", "spec/tls/secretName", false},
    {ANY, NULL, "Ingress", "metadata/annotations/ingress.kubernetes.io\\/auth-secret", false},
    {ANY, NULL, "Ingress", "metadata/annotations/nginx.ingress.kubernetes.io\\/auth-secret", false},
    {ANY, NULL, "Ingress", "metadata/annotations/nginx.ingress.kubernetes.io\\/auth-tls-secret", false},
    {ANY, NULL, "ServiceAccount", "imagePullSecrets/name", false},
    {ANY, NULL, "StorageClass", "parameters/secretName", false},
    {ANY, NULL, "StorageClass", "parameters/adminSecretName", false},
    {ANY, NULL, "StorageClass", "parameters/userSecretName", false},
    {ANY, NULL, "StorageClass", "parameters/secretRef", false},
    {ANY, NULL, "Role", "rules/resourceNames", false},
    {ANY, NULL, "ClusterRole", "rules/resourceNames", false},
    {"serving.knative.dev", "v1", "Service", "spec/template/spec/containers/env/valueFrom/secretKeyRef/name", false},
    {ANY, NULL, "PersistentVolume", "spec/azureFile/secretName", false},
    {0},
};

static const fieldspec service_refs[] = {
    {"apps", NULL, "StatefulSet", "spec/serviceName", false},
    {ANY, NULL, "Ingress", "spec/rules/http/paths/backend/serviceName", false},
    {ANY, NULL, "Ingress", "spec/backend/serviceName", false},
    {ANY, NULL, "Ingress", "spec/rules/http/paths/backend/service/name", false},
    {ANY, NULL, "Ingress", "spec/defaultBackend/service/name", false},
    {"apiregistration.k8s.io", NULL, "APIService", "spec/service/name", false},
    /* maps holding name and namespace: both are set */
    {"admissionregistration.k8s.io", NULL, "ValidatingWebhookConfiguration", "webhooks/clientConfig/service", false},
    {"admissionregistration.k8s.io", NULL, "MutatingWebhookConfiguration", "webhooks/clientConfig/service", false},
    {0},
};

static const fieldspec role_refs[] = {
    {"rbac.authorization.k8s.io", NULL, "RoleBinding", "roleRef/name", false},
    {0},
};
static const fieldspec clusterrole_refs[] = {
    {"rbac.authorization.k8s.io", NULL, "RoleBinding", "roleRef/name", false},
    {"rbac.authorization.k8s.io", NULL, "ClusterRoleBinding", "roleRef/name", false},
    {0},
};

static const char *const serviceaccount_pod_paths[] = {"serviceAccountName", NULL};
static const fieldspec serviceaccount_refs[] = {
    {"rbac.authorization.k8s.io", NULL, "RoleBinding", "subjects", false},
    {"rbac.authorization.k8s.io", NULL, "ClusterRoleBinding", "subjects", false},
    {0},
};

static const char *const pvc_pod_paths[] = {"volumes/persistentVolumeClaim/claimName", NULL};

static const fieldspec pv_refs[] = {
    {ANY, NULL, "PersistentVolumeClaim", "spec/volumeName", false},
    {ANY, NULL, "ClusterRole", "rules/resourceNames", false},
    {0},
};

static const fieldspec storageclass_refs[] = {
    {ANY, NULL, "PersistentVolume", "spec/storageClassName", false},
    {ANY, NULL, "PersistentVolumeClaim", "spec/storageClassName", false},
    {ANY, NULL, "StatefulSet", "spec/volumeClaimTemplates/spec/storageClassName", false},
    {0},
};

static const char *const priorityclass_pod_paths[] = {"priorityClassName", NULL};

static const fieldspec ingressclass_refs[] = {
    {ANY, NULL, "Ingress", "spec/ingressClassName", false},
    {0},
};

static const fieldspec admissionpolicy_refs[] = {
    {"admissionregistration.k8s.io", NULL, "ValidatingAdmissionPolicyBinding", "spec/policyName", false},
    {0},
};

static const referral_kind referral_kinds[] = {
    {ANY, NULL, "Deployment", NULL, scale_target_refs},
    {ANY, NULL, "ReplicationController", NULL, scale_target_refs},
    {ANY, NULL, "ReplicaSet", NULL, scale_target_refs},
    {ANY, NULL, "StatefulSet", NULL, scale_target_refs},
    {ANY, "v1", "ConfigMap", configmap_pod_paths, configmap_refs},
    {ANY, "v1", "Secret", secret_pod_paths, secret_refs},
    {ANY, "v1", "Service", NULL, service_refs},
    {"rbac.authorization.k8s.io", NULL, "Role", NULL, role_refs},
    {"rbac.authorization.k8s.io", NULL, "ClusterRole", NULL, clusterrole_refs},
    {ANY, "v1", "ServiceAccount", serviceaccount_pod_paths, serviceaccount_refs},
    {ANY, "v1", "PersistentVolumeClaim", pvc_pod_paths, NULL},
    {ANY, "v1", "PersistentVolume", NULL, pv_refs},
    {"storage.k8s.io", "v1", "StorageClass", NULL, storageclass_refs},
    {"scheduling.k8s.io", "v1", "PriorityClass", priorityclass_pod_paths, NULL},
    {"networking.k8s.io", "v1", "IngressClass", NULL, ingressclass_refs},
    {"admissionregistration.k8s.io", NULL, "ValidatingAdmissionPolicy", NULL, admissionpolicy_refs},
};
#define N_REFERRAL_KINDS (sizeof referral_kinds / sizeof *referral_kinds)

/* ---- renamed objects, as candidates ---- */

void nameref_add(arena *a, nameref_renames *rn, resource *r, const char *old_name, const char *affix)
{
    if (rn->n == rn->cap) {
        size_t cap = rn->cap ? rn->cap * 2 : 16;
        nameref_rename *v = arena_alloc(a, cap * sizeof *v);
        if (rn->n)
            memcpy(v, rn->v, rn->n * sizeof *v);
        rn->v = v;
        rn->cap = cap;
    }
    rn->v[rn->n] = (nameref_rename){r, old_name, affix, rn->n};
    rn->n++;
    rn->sorted = false;
}

typedef struct target {
    const nameref_rename *rn;
    const char *group, *version, *kind, *ns, *name; /* as the object is now; ns "" when unset */
    bool cluster;
} target;

typedef struct targets {
    target *v;
    size_t n;
} targets;

static int cmp_rename(const void *x, const void *y)
{
    const nameref_rename *a = x, *b = y;
    int c = strcmp(a->old_name, b->old_name);
    if (c)
        return c;
    return a->order < b->order ? -1 : a->order > b->order;
}

static const char *str_or_empty(const char *s)
{
    return s ? s : "";
}

static const char *group_of(arena *a, const char *api_version)
{
    const char *slash = api_version ? strrchr(api_version, '/') : NULL;
    return slash ? arena_strndup(a, api_version, (size_t)(slash - api_version)) : "";
}

static const char *version_of(const char *api_version)
{
    const char *slash = api_version ? strrchr(api_version, '/') : NULL;
    return slash ? slash + 1 : str_or_empty(api_version);
}

/* Sorted by old name, then input order, so one binary search finds every object a name could mean. */
static targets build_targets(arena *a, nameref_renames *rn)
{
    if (!rn->sorted) {
        qsort(rn->v, rn->n, sizeof *rn->v, cmp_rename);
        rn->sorted = true;
    }
    targets t = {arena_alloc(a, (rn->n + 1) * sizeof *t.v), 0};
    for (size_t i = 0; i < rn->n; i++) {
        const resource *r = rn->v[i].r;
        const char *name = res_name(r), *kind = res_kind(r), *av = res_api_version(r);
        if (!name || !kind || !rn->v[i].old_name)
            continue;
        target *x = &t.v[t.n++];
        x->rn = &rn->v[i];
        x->group = group_of(a, av);
        x->version = version_of(av);
        x->kind = kind;
        x->ns = str_or_empty(res_namespace(r));
        x->name = name;
        x->cluster = nameref_cluster_scoped(x->group, kind);
    }
    return t;
}

static size_t lower_bound(const targets *t, const char *old_name)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(t->v[mid].rn->old_name, old_name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* kustomize's effective namespace: unset and "default" are the same place. */
static const char *effective_ns(const char *ns)
{
    return ns && *ns ? ns : "default";
}

/* ---- one referrer ---- */

typedef struct walk {
    fn_ctx *c;
    nameref_renames *rn;
    const targets *t;
    const referral_kind *kind; /* the table entry being applied */
    const char *path;          /* the referrer field being applied, for roleRef and messages */
    resource *r;               /* the referrer */
    const char *group, *rkind, *ns;
    bool cluster;
    bool affix_known;
    const char *affix;
    node *at; /* the leaf being fixed, for error lines */
} walk;

static bool gvk_selected(const target *x, const referral_kind *k)
{
    if (k->group && strcmp(x->group, k->group))
        return false;
    if (k->version && strcmp(x->version, k->version))
        return false;
    return !strcmp(x->kind, k->kind);
}

/* A RoleBinding reaches ServiceAccounts in the namespaces its subjects name. */
static bool rolebinding_reaches(const walk *w, const target *x)
{
    if (strcmp(w->rkind, "RoleBinding"))
        return false;
    const node *subjects = map_get(w->r->root, "subjects");
    if (!is_seq(subjects))
        return false;
    seq_foreach(subjects, i, s) {
        const char *ns = path_str(s, "namespace", NULL);
        if (scalar_is(map_get(s, "kind"), "ServiceAccount") && ns && !strcmp(ns, x->ns))
            return true;
    }
    return false;
}

/* The object set a referrer may point into (kustomize SubsetThatCouldBeReferencedByResource) intersected with
 * the referral filter's namespace rule (sameCurrentNamespaceAsReferrer). */
static bool namespace_allows(const walk *w, const target *x)
{
    if (w->cluster || x->cluster)
        return true;
    bool same = !strcmp(effective_ns(w->ns), effective_ns(x->ns));
    if (!same && !rolebinding_reaches(w, x))
        return false;
    return same || !strcmp(x->kind, "ServiceAccount");
}

/* roleRef names its kind and group: a Role and a ClusterRole with the same old name are told apart by it. */
static bool roleref_allows(const walk *w, const target *x)
{
    size_t n = strlen(w->path);
    if (n < 12 || strcmp(w->path + n - 12, "roleRef/name"))
        return true;
    const node *ref = map_get(w->r->root, "roleRef");
    const char *group = path_str(ref, "apiGroup", NULL), *kind = path_str(ref, "kind", NULL);
    if (!group || !kind)
        return true;
    return (!*group || !strcmp(group, x->group)) && (!*kind || !strcmp(kind, x->kind));
}

static bool candidate(const walk *w, const target *x, const char *only_ns)
{
    if (!gvk_selected(x, w->kind) || !roleref_allows(w, x) || !namespace_allows(w, x))
        return false;
    return !only_ns || (!x->cluster && !strcmp(effective_ns(x->ns), only_ns));
}

static const char *referrer_affix(walk *w)
{
    if (!w->affix_known) {
        w->affix_known = true;
        for (size_t i = 0; i < w->rn->n; i++)
            if (w->rn->v[i].r == w->r) {
                w->affix = w->rn->v[i].affix;
                break;
            }
    }
    return w->affix;
}

static bool same_affix(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

/* kustomize selectReferral: the one renamed object old_name means from here, NULL when none. With several left,
 * prefer those renamed the way the referrer was; if they still differ in what they would write, it is an error. */
static const target *select_referral(walk *w, const char *old_name, const char *only_ns, bool with_ns, int *err)
{
    size_t lo = lower_bound(w->t, old_name), count = 0;
    const target *first = NULL;
    for (size_t i = lo; i < w->t->n && !strcmp(w->t->v[i].rn->old_name, old_name); i++)
        if (candidate(w, &w->t->v[i], only_ns) && !count++)
            first = &w->t->v[i];
    if (count <= 1)
        return first;
    const target **pick = arena_alloc(w->c->a, count * sizeof *pick);
    size_t n = 0;
    const char *affix = referrer_affix(w);
    for (size_t i = lo; i < w->t->n && !strcmp(w->t->v[i].rn->old_name, old_name); i++)
        if (candidate(w, &w->t->v[i], only_ns) && same_affix(w->t->v[i].rn->affix, affix))
            pick[n++] = &w->t->v[i];
    if (n <= 1)
        return n ? pick[0] : NULL;
    for (size_t i = 1; i < n; i++) {
        if (strcmp(pick[i]->name, pick[0]->name) || (with_ns && strcmp(pick[i]->ns, pick[0]->ns))) {
            *err = fn_fail_res(w->c, w->r, w->at, "found multiple possible referrals for \"%s\" in %s: %s and %s",
                               old_name, w->path, res_id(w->c->a, pick[0]->rn->r), res_id(w->c->a, pick[i]->rn->r));
            return NULL;
        }
    }
    return pick[0];
}

static int fix_scalar(walk *w, node *n)
{
    int err = 0;
    w->at = n;
    const target *x = select_referral(w, scalar(n), NULL, false, &err);
    if (err)
        return -1;
    /* quotes the author chose stay, the value becomes a string */
    if (x)
        scalar_set(w->c->a, n, x->name, strlen(x->name), SCALAR_AS_STRING);
    return 0;
}

/* A map reference ({name, namespace}, webhook services, subjects): the namespace it names narrows the choice,
 * and the referral's namespace is written next to the new name. */
static int fix_map(walk *w, node *m)
{
    node *name = map_get(m, "name");
    if (!is_scalar(name) || is_null(name))
        return 0;
    const char *kind = path_str(m, "kind", NULL);
    if (kind && strcmp(kind, w->kind->kind))
        return 0;
    const char *ns = path_str(m, "namespace", NULL);
    int err = 0;
    w->at = name;
    const target *x = select_referral(w, scalar(name), ns && *ns ? ns : NULL, true, &err);
    if (err)
        return -1;
    if (!x)
        return 0;
    map_set_str(w->c->a, m, "name", x->name);
    if (*x->ns)
        map_set_str(w->c->a, m, "namespace", x->ns);
    return 0;
}

static int fix_leaf(walk *w, node *v)
{
    if (is_null(v))
        return 0;
    if (is_scalar(v))
        return fix_scalar(w, v);
    if (is_map(v))
        return fix_map(w, v);
    seq_foreach(v, i, e) {
        int rc = is_scalar(e) ? (is_null(e) ? 0 : fix_scalar(w, e)) : is_map(e) ? fix_map(w, e) : 0;
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Copies the next '/'-separated segment ("\/" is a slash inside a key, a trailing "[]" is a hint). NULL when it
 * does not fit, which only a table mistake could cause. */
static const char *next_segment(const char *p, char *seg, size_t cap)
{
    size_t n = 0;
    while (*p && *p != '/') {
        if (p[0] == '\\' && p[1] == '/')
            p++;
        if (n + 1 >= cap)
            return NULL;
        seg[n++] = *p++;
    }
    if (n >= 2 && seg[n - 2] == '[' && seg[n - 1] == ']')
        n -= 2;
    seg[n] = 0;
    return *p == '/' ? p + 1 : p;
}

/* Walks a field path without creating anything, through every element of the sequences it meets. */
static int walk_path(walk *w, node *cur, const char *path)
{
    if (!cur)
        return 0;
    if (is_seq(cur)) {
        seq_foreach(cur, i, item) {
            int rc = walk_path(w, item, path);
            if (rc < 0)
                return rc;
        }
        return 0;
    }
    if (!is_map(cur))
        return 0;
    char seg[128];
    const char *rest = next_segment(path, seg, sizeof seg);
    if (!rest)
        return 0;
    node *child = map_get(cur, seg);
    if (!child)
        return 0;
    return *rest ? walk_path(w, child, rest) : fix_leaf(w, child);
}

static int apply_path(walk *w, node *from, const char *path)
{
    w->path = path;
    return walk_path(w, from, path);
}

static node *pod_spec(const resource *r, const char *kind)
{
    for (size_t h = 0; h < sizeof pod_holders / sizeof *pod_holders; h++) {
        if (strcmp(kind, pod_holders[h].kind))
            continue;
        node *n = r->root;
        for (const char *const *k = pod_holders[h].keys; n && *k; k++)
            n = map_get(n, *k);
        return is_map(n) ? n : NULL;
    }
    return NULL;
}

static int fix_referrer(walk *w, const bool live[N_REFERRAL_KINDS])
{
    resource *r = w->r;
    node *pod = pod_spec(r, w->rkind);
    for (size_t k = 0; k < N_REFERRAL_KINDS; k++) {
        if (!live[k])
            continue;
        w->kind = &referral_kinds[k];
        for (const fieldspec *f = referral_kinds[k].fields; f && f->path; f++)
            if (fieldspec_applies(f, r) && apply_path(w, r->root, f->path) < 0)
                return -1;
        for (const char *const *p = referral_kinds[k].pod_paths; pod && p && *p; p++)
            if (apply_path(w, pod, *p) < 0)
                return -1;
    }
    return 0;
}

int nameref_fix_references(fn_ctx *c, nameref_renames *rn)
{
    if (!rn->n)
        return 0;
    targets t = build_targets(c->a, rn);
    /* Table entries no renamed object answers to cannot change anything: skip their walks. */
    bool live[N_REFERRAL_KINDS] = {0}, any = false;
    for (size_t k = 0; k < N_REFERRAL_KINDS; k++)
        for (size_t i = 0; i < t.n && !live[k]; i++)
            if (gvk_selected(&t.v[i], &referral_kinds[k]))
                live[k] = any = true;
    if (!any)
        return 0;
    for (size_t i = 0; i < c->items->n; i++) {
        resource *r = c->items->v[i];
        if (!r || !is_map(r->root))
            continue;
        const char *kind = res_kind(r);
        if (!kind)
            continue;
        walk w = {.c = c, .rn = rn, .t = &t, .r = r, .rkind = kind};
        w.group = group_of(c->a, res_api_version(r));
        w.ns = str_or_empty(res_namespace(r));
        w.cluster = nameref_cluster_scoped(w.group, kind);
        if (fix_referrer(&w, live) < 0)
            return -1;
    }
    return 0;
}

/* ---- depends-on ---- */

#define DEPENDS_ON "config.kubernetes.io/depends-on"

static bool span_is(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && !memcmp(s, lit, n);
}

/* The renamed object one depends-on entry names, by group, kind, old name and (when given and known) namespace. */
static const target *depends_on_target(arena *a, const targets *t, const char *const *seg, const size_t *len,
                                       int nseg)
{
    int g = 0, k = nseg == 5 ? 3 : 1, nm = nseg == 5 ? 4 : 2;
    const char *old = arena_strndup(a, seg[nm], len[nm]);
    const target *hit = NULL;
    for (size_t i = lower_bound(t, old); i < t->n && !strcmp(t->v[i].rn->old_name, old) && !hit; i++) {
        const target *x = &t->v[i];
        if (!span_is(seg[g], len[g], x->group) || !span_is(seg[k], len[k], x->kind))
            continue;
        if (nseg == 5 && *x->ns && !span_is(seg[2], len[2], x->ns))
            continue;
        hit = x;
    }
    return hit;
}

/* Rewrites one comma-separated entry into out; true when it changed. */
static bool fix_depends_on_entry(arena *a, const targets *t, const char *s, size_t n, buf *out)
{
    size_t b = 0, e = n;
    while (b < e && (s[b] == ' ' || s[b] == '\t'))
        b++;
    while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t'))
        e--;
    const char *seg[6];
    size_t len[6];
    int nseg = 0;
    size_t start = b;
    for (size_t i = b; i <= e; i++) {
        if (i < e && s[i] != '/')
            continue;
        if (nseg == 6)
            break;
        seg[nseg] = s + start;
        len[nseg++] = i - start;
        start = i + 1;
    }
    bool namespaced = nseg == 5 && span_is(seg[1], len[1], "namespaces");
    const target *x = namespaced || nseg == 3 ? depends_on_target(a, t, seg, len, nseg) : NULL;
    if (!x) {
        buf_put(out, s, n);
        return false;
    }
    const char *name = seg[nseg - 1];
    buf_put(out, s, (size_t)(name - s));
    buf_puts(out, x->name);
    buf_put(out, s + e, n - e);
    return true;
}

int nameref_fix_depends_on(fn_ctx *c, nameref_renames *rn)
{
    if (!rn->n)
        return 0;
    targets t = build_targets(c->a, rn);
    int changed = 0;
    buf out = {0};
    for (size_t i = 0; i < c->items->n; i++) {
        resource *r = c->items->v[i];
        if (!r)
            continue;
        node *ann = path_get(r->root, "metadata", "annotations", NULL);
        const char *v = scalar(map_get(ann, DEPENDS_ON));
        if (!v || !*v)
            continue;
        out.len = 0;
        bool any = false;
        for (const char *p = v;;) {
            const char *comma = strchr(p, ',');
            size_t n = comma ? (size_t)(comma - p) : strlen(p);
            any |= fix_depends_on_entry(c->a, &t, p, n, &out);
            if (!comma)
                break;
            buf_putc(&out, ',');
            p = comma + 1;
        }
        if (any) {
            map_set_str(c->a, ann, DEPENDS_ON, buf_cstr(&out));
            changed++;
        }
    }
    buf_free(&out);
    return changed;
}
