/* format: orders fields the way kyaml's formatter does (archived catalog format, kyaml FormatFilter with its
 * schema on). No config.
 *
 * What it does to every item that has a kind and an apiVersion:
 *   - map keys follow kyaml's fixed precedence list (name, generateName, namespace, ..., apiVersion, kind,
 *     metadata, ..., spec, status, then the workload, pod, container, port, volume mount and env fields in the
 *     list below); keys on the list come first, in its order, the rest follow in byte order. "OpenAPI order" in
 *     the catalog's words, but it is this one list for every kind, custom resources included;
 *   - in CronJob, DaemonSet, Deployment, Job, ReplicaSet, StatefulSet and ValidatingWebhookConfiguration of the
 *     built-in API versions, .spec.template.spec.containers is sorted by name and .webhooks.rules.operations by
 *     value (kyaml's whitelist; its paths skip list levels);
 *   - in built-in kinds, a value the schema types as a string but that a YAML 1.1 reader would take for something
 *     else (annotation `bar: 100`, label `on: yes`) gets double quotes. Here the schema is a short table of
 *     string fields: object and template metadata (name, namespace, generateName, labels, annotations),
 *     matchLabels, nodeSelector, a core Service's spec.selector, ConfigMap data and binaryData, Secret data and
 *     stringData, and a container's name, image, imagePullPolicy, workingDir, command, args, env name and value.
 *     kyaml also quotes the other string fields of its schema and unquotes numbers and booleans in typed fields;
 *     those are not done.
 * Comments move with their fields. kpt since 1.0.0-beta.2 copies each object's field order back after every
 * function, so there format only sorts lists and quotes; here the order it makes is kept, as its example shows. */
#include <stdlib.h>
#include <string.h>

#include "functions/function.h"
#include "yaml/scalar.h"

/* kyaml's fieldSortOrder. A name listed twice takes its later place (kyaml indexes the list into a map). */
static const char *const field_order[] = {
    "name", "generateName", "namespace", "clusterName", "apiVersion", "kind", "metadata", "type", "labels",
    "annotations", "spec", "status",
    "stringData", "data", "binaryData",
    "parallelism", "completions", "activeDeadlineSeconds", "backoffLimit", "replicas", "selector", "manualSelector",
    "template", "ttlSecondsAfterFinished", "volumeClaimTemplates", "service", "serviceName", "podManagementPolicy",
    "updateStrategy", "strategy", "minReadySeconds", "revision", "revisionHistoryLimit", "paused",
    "progressDeadlineSeconds",
    "restartPolicy", "terminationGracePeriodSeconds", "activeDeadlineSeconds", "dnsPolicy", "serviceAccountName",
    "serviceAccount", "automountServiceAccountToken", "nodeName", "hostNetwork", "hostPID", "hostIPC",
    "shareProcessNamespace", "hostname", "subdomain", "schedulerName", "priorityClassName", "priority",
    "runtimeClassName", "enableServiceLinks",
    "nodeSelector", "hostAliases",
    "initContainers", "containers", "volumes", "securityContext", "imagePullSecrets", "affinity", "tolerations",
    "dnsConfig", "readinessGates",
    "image", "command", "args", "workingDir", "ports", "envFrom", "env", "resources", "volumeMounts", "volumeDevices",
    "livenessProbe", "readinessProbe", "lifecycle", "terminationMessagePath", "terminationMessagePolicy",
    "imagePullPolicy", "securityContext", "stdin", "stdinOnce", "tty",
    "clusterIP", "externalIPs", "loadBalancerIP", "loadBalancerSourceRanges", "externalName", "externalTrafficPolicy",
    "sessionAffinity",
    "protocol", "port", "targetPort", "hostPort", "containerPort", "hostIP",
    "readOnly", "mountPath", "subPath", "subPathExpr", "mountPropagation",
    "value", "valueFrom", "fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef", "prefix", "configMapRef",
    "secretRef",
};
#define N_FIELDS (sizeof field_order / sizeof *field_order)

typedef struct rank_entry {
    const char *name;
    int rank;
} rank_entry;

static rank_entry ranks[N_FIELDS];
static size_t nranks;

static int cmp_rank_entry(const void *a, const void *b)
{
    return strcmp(((const rank_entry *)a)->name, ((const rank_entry *)b)->name);
}

/* The sorted lookup table, built once (the list is static; the result is the same in every run). */
static void build_ranks(void)
{
    if (nranks)
        return;
    for (size_t i = 0; i < N_FIELDS; i++) {
        size_t j = 0;
        while (j < nranks && strcmp(ranks[j].name, field_order[i]))
            j++;
        ranks[j] = (rank_entry){field_order[i], (int)i + 1};
        if (j == nranks)
            nranks++;
    }
    qsort(ranks, nranks, sizeof *ranks, cmp_rank_entry);
}

static int rank_of(const char *key)
{
    rank_entry k = {key ? key : "", 0};
    const rank_entry *e = bsearch(&k, ranks, nranks, sizeof *ranks, cmp_rank_entry);
    return e ? e->rank : 0;
}

/* ---- sorting ---- */

typedef struct pair {
    const node *key;
    node *val;
    const char *text; /* the key's text, or the sort field's value */
    int rank;
    uint32_t pos;
} pair;

static int cmp_pair(const void *pa, const void *pb)
{
    const pair *a = pa, *b = pb;
    if (a->rank && b->rank && a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    if (!a->rank != !b->rank)
        return a->rank ? -1 : 1; /* listed fields before the others */
    int d = strcmp(a->text, b->text);
    if (d)
        return d;
    return a->pos < b->pos ? -1 : a->pos > b->pos; /* stable */
}

/* Room for n pairs in the scratch array that every sort of one run shares (a sort ends before the walk goes on). */
typedef struct scratch {
    pair *v;
    size_t cap;
} scratch;

static pair *room(scratch *s, uint32_t n)
{
    if (n > s->cap) {
        s->cap = n > 2 * s->cap ? n : 2 * s->cap;
        s->v = xrealloc(s->v, s->cap * sizeof *s->v);
    }
    return s->v;
}

static void sort_map(arena *a, scratch *s, node *m)
{
    uint32_t n = node_len(m);
    if (n < 2)
        return;
    pair *p = room(s, n);
    map_foreach(m, i, k, v) {
        const char *t = is_scalar(k) ? scalar(k) : "";
        p[i] = (pair){k, v, t, rank_of(t), i};
    }
    qsort(p, n, sizeof *p, cmp_pair);
    node_clear(m);
    for (uint32_t i = 0; i < n; i++)
        map_append(a, m, p[i].key, p[i].val);
}

/* A list sorted by one field of its maps (field NULL: by the items' own values). */
static void sort_seq(scratch *s, node *seq, const char *field)
{
    uint32_t n = node_len(seq);
    if (n < 2)
        return;
    pair *p = room(s, n);
    seq_foreach(seq, i, it) {
        const node *v = field ? map_get(it, field) : it;
        const char *t = is_scalar(v) ? scalar(v) : "";
        p[i] = (pair){NULL, it, t, 0, i};
    }
    qsort(p, n, sizeof *p, cmp_pair);
    for (uint32_t i = 0; i < n; i++)
        seq_set(seq, i, p[i].val);
}

/* ---- the walk ---- */

#define MAX_KEYS 64 /* deeper values are still sorted; the rules below never look that deep */

typedef struct fmt {
    arena *a;
    scratch *sort;
    bool list_sort; /* a kind and API version kyaml sorts lists in */
    bool typed;     /* a built-in kind: kyaml has its schema */
    const char *kind;
    bool core;
    const char *keys[MAX_KEYS]; /* the keys from the root to the current value; list levels add none (kyaml's path) */
    size_t depth;
} fmt;

static bool in(const char *s, const char *const *list)
{
    for (; s && *list; list++)
        if (!strcmp(s, *list))
            return true;
    return false;
}

/* The key i levels above the current value's own key (0: its own key); NULL above the root. */
static const char *up(const fmt *f, size_t i)
{
    return i < f->depth && f->depth <= MAX_KEYS ? f->keys[f->depth - 1 - i] : NULL;
}

static bool path_is(const fmt *f, const char *const *p)
{
    size_t n = 0;
    while (p[n])
        n++;
    if (f->depth != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!f->keys[i] || strcmp(f->keys[i], p[i]))
            return false;
    return true;
}

/* Is the current value (or list item) a string in kyaml's schema? A short table, see the top of the file. */
static bool string_field(const fmt *f)
{
    static const char *const meta[] = {"name", "namespace", "generateName", NULL};
    static const char *const meta_maps[] = {"labels", "annotations", NULL};
    static const char *const string_maps[] = {"matchLabels", "nodeSelector", NULL};
    static const char *const containers[] = {"containers", "initContainers", NULL};
    static const char *const container_fields[] = {"name", "image", "imagePullPolicy", "workingDir", "command",
                                                   "args", NULL};
    static const char *const env_fields[] = {"name", "value", NULL};
    const char *k0 = up(f, 0), *k1 = up(f, 1), *k2 = up(f, 2);
    if (!k0)
        return false;
    if (k1 && k2 && in(k1, meta_maps) && !strcmp(k2, "metadata"))
        return true;
    if (k1 && in(k1, string_maps))
        return true;
    if (k1 && !strcmp(k1, "metadata") && in(k0, meta))
        return true;
    if (f->core && f->depth == 2 && f->kind) {
        if (!strcmp(f->kind, "ConfigMap") && (!strcmp(k1, "data") || !strcmp(k1, "binaryData")))
            return true;
        if (!strcmp(f->kind, "Secret") && (!strcmp(k1, "data") || !strcmp(k1, "stringData")))
            return true;
    }
    if (f->core && f->depth == 3 && f->kind && !strcmp(f->kind, "Service") && !strcmp(k2, "spec") &&
        !strcmp(k1, "selector"))
        return true;
    if (k1 && in(k1, containers) && in(k0, container_fields))
        return true;
    if (k1 && k2 && !strcmp(k1, "env") && in(k2, containers) && in(k0, env_fields))
        return true;
    return false;
}

/* kyaml's FormatNonStringStyle for a string field: text a YAML 1.1 reader takes for a number or a boolean gets
 * double quotes (a null stays null). */
static void quote_if_needed(fmt *f, node *n)
{
    int st = node_style(n);
    if (st == ST_SINGLE || st == ST_DOUBLE || st == ST_STRING)
        return;
    const char *s = scalar(n);
    size_t len = scalar_len(n);
    if (!len || memchr(s, '\n', len) || is_null(n))
        return;
    enum scalar_type t = resolve_yaml11(s, len);
    if (t == T_STR || t == T_NULL)
        return;
    node_set_style(n, ST_DOUBLE);
    node_set_tag(f->a, n, NULL);
}

static void fmt_node(fmt *f, node *n)
{
    if (is_scalar(n)) {
        if (f->typed && string_field(f))
            quote_if_needed(f, n);
        return;
    }
    if (is_seq(n)) {
        static const char *const containers[] = {"spec", "template", "spec", "containers", NULL};
        static const char *const operations[] = {"webhooks", "rules", "operations", NULL};
        if (f->list_sort && path_is(f, containers))
            sort_seq(f->sort, n, "name");
        else if (f->list_sort && path_is(f, operations))
            sort_seq(f->sort, n, NULL);
        seq_foreach(n, i, item)
            fmt_node(f, item);
        return;
    }
    sort_map(f->a, f->sort, n);
    map_foreach(n, i, key, val) {
        if (f->depth < MAX_KEYS)
            f->keys[f->depth] = is_scalar(key) ? scalar(key) : "";
        f->depth++;
        fmt_node(f, val);
        f->depth--;
    }
}

static bool builtin_group(const char *group)
{
    static const char *const groups[] = {
        "", "admissionregistration.k8s.io", "apiextensions.k8s.io", "apiregistration.k8s.io", "apps",
        "authentication.k8s.io", "authorization.k8s.io", "autoscaling", "batch", "certificates.k8s.io",
        "coordination.k8s.io", "discovery.k8s.io", "events.k8s.io", "extensions", "flowcontrol.apiserver.k8s.io",
        "networking.k8s.io", "node.k8s.io", "policy", "rbac.authorization.k8s.io", "scheduling.k8s.io",
        "storage.k8s.io", NULL,
    };
    return in(group, groups);
}

static int run(fn_ctx *c)
{
    if (fn_no_config(c, "format") < 0)
        return -1;
    build_ranks();
    static const char *const sort_kinds[] = {"CronJob", "DaemonSet", "Deployment", "Job", "ReplicaSet",
                                             "StatefulSet", "ValidatingWebhookConfiguration", NULL};
    static const char *const sort_apis[] = {"apps/v1", "apps/v1beta1", "apps/v1beta2", "batch/v1", "batch/v1beta1",
                                            "extensions/v1beta1", "v1", "admissionregistration.k8s.io/v1beta1",
                                            "admissionregistration.k8s.io/v1", NULL};
    scratch sort = {0};
    for (size_t i = 0; i < c->items->n; i++) {
        resource *r = c->items->v[i];
        if (!r || !is_map(r->root))
            continue;
        const char *kind = path_str(r->root, "kind", NULL), *av = path_str(r->root, "apiVersion", NULL);
        if (!kind || !av)
            continue;
        char group[256];
        res_group(r, group, sizeof group);
        fmt f = {.a = c->a, .sort = &sort, .kind = kind, .core = !*group && !strcmp(av, "v1")};
        f.list_sort = in(kind, sort_kinds) && in(av, sort_apis);
        f.typed = builtin_group(group);
        fmt_node(&f, r->root);
    }
    xfree(sort.v);
    return 0;
}

const fn_def fn_format = {
    .name = "format",
    .summary = "order fields as kyaml's formatter does, sort containers by name, quote string values that read as numbers",
    .run = run,
    .readme = {
        .does = "orders fields by kyaml's fixed list (`name`, `namespace`, `labels`, `annotations`, `spec`, ... then "
                "the rest by name), sorts `.spec.template.spec.containers` by name in workloads, quotes string "
                "fields that would read as numbers or booleans",
        .differs = "the order is kept (kpt 1.0.0-beta.2 and later put the input's order back after every function, so "
                "there it only sorts and quotes); quoting covers metadata, selectors, ConfigMap and Secret data and "
                "container fields, not every string of kyaml's schema; a config that sets anything is an error",
        .versions = "one behaviour for every tag",
    },
};
