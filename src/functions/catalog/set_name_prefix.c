/* set-name-prefix: renames a blueprint's objects from its placeholder prefix to the package's name, and fixes the
 * references to them (archived catalog set-name-prefix, built with ko and never released on gcr.io/kpt-fn).
 *
 * Config: none, or a ConfigMap (v1) with data.prefix and data.oldPrefix; any other key or kind is an error.
 * oldPrefix defaults to "packagename", prefix to data.name of the package context (the local-config object named
 * kptfile.kpt.dev that `kpt pkg get --for-deployment` writes). An object named oldPrefix becomes prefix, one named
 * oldPrefix-<rest> becomes prefix-<rest>; local-config objects and kpt's ResourceGroup keep their names. Renaming
 * a Namespace also moves what lives in it (metadata.namespace and the namespace fields of references), as the
 * catalog's rename does. Every object's references are fixed, local-config ones included: the catalog's table
 * (Config Connector refs, RoleBinding roleRef and subjects, ownerReferences, porch's WorkloadIdentityBinding),
 * then, beyond the catalog, kustomize's nameReference table and kpt's depends-on (the catalog leaves a
 * Deployment's reference to a renamed ConfigMap dangling).
 *
 * Deviations, where the catalog fails or leaves a reference wrong:
 *   - the package context is needed only when data.prefix is not given (the catalog always requires it);
 *   - a reference the catalog cannot place (no kind and several candidates, a kind outside its short kind list,
 *     RoleBinding User/Group subjects, an ownerReference without a namespace field in a namespaced object, an
 *     entry missing its name) fails the whole catalog function; here it is left as it is, since it cannot name a
 *     renamed object it cannot place;
 *   - an ownerReference to a cluster-scoped kind is matched without the dependent's namespace;
 *   - RoleBinding subjects' namespace fields follow a renamed Namespace, and ClusterRoleBinding roleRef and
 *     subjects are followed as RoleBinding's are (the catalog's table has neither);
 *   - two objects of one apiVersion, kind and namespace ending up with the same name is an error (the catalog
 *     reports it only in some orders);
 *   - an empty oldPrefix is an error (the catalog would rename names starting with "-"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "functions/krm/nameref.h"
#include "util/buf.h"

typedef struct gvk {
    const char *group, *version, *kind;
} gvk;

/* A reference field of the catalog's table: in objects of exactly this group, version and kind, at path (a key
 * ending in "[]" walks every item of that list); targets: the kinds it may name (none: the reference says). */
typedef struct ref_field {
    gvk referrer;
    const char *path[6];
    gvk targets[3];
    bool ns_field; /* its own `namespace` field names a Namespace (which a rename can move) */
} ref_field;

#define CNRM_CONTAINER "container.cnrm.cloud.google.com"
#define CNRM_IAM "iam.cnrm.cloud.google.com"
#define CNRM_RM "resourcemanager.cnrm.cloud.google.com"
#define CNRM_SU "serviceusage.cnrm.cloud.google.com"
#define RBAC "rbac.authorization.k8s.io"
#define PORCH "config.porch.kpt.dev"
#define IAM_SA {CNRM_IAM, "v1beta1", "IAMServiceAccount"}
#define FOLDER {CNRM_RM, "v1beta1", "Folder"}

static const ref_field ref_fields[] = {
    {{CNRM_CONTAINER, "v1beta1", "ContainerNodePool"}, {"spec", "clusterRef"},
     {{CNRM_CONTAINER, "v1beta1", "ContainerCluster"}}, false},
    {{CNRM_CONTAINER, "v1beta1", "ContainerNodePool"}, {"spec", "nodeConfig", "serviceAccountRef"}, {IAM_SA}, false},
    {{CNRM_IAM, "v1beta1", "IAMPolicyMember"}, {"spec", "memberFrom", "serviceAccountRef"}, {IAM_SA}, false},
    {{CNRM_RM, "v1beta1", "Folder"}, {"spec", "folderRef"}, {FOLDER}, true},
    {{CNRM_RM, "v1beta1", "Project"}, {"spec", "folderRef"}, {FOLDER}, true},
    {{CNRM_IAM, "v1beta1", "IAMPolicyMember"}, {"spec", "resourceRef"}, {{0}}, true},
    {{CNRM_IAM, "v1beta1", "IAMPartialPolicy"}, {"spec", "resourceRef"}, {{0}}, false},
    {{CNRM_IAM, "v1beta1", "IAMPartialPolicy"}, {"spec", "bindings[]", "members[]", "memberFrom", "serviceAccountRef"},
     {IAM_SA}, false},
    {{CNRM_SU, "v1beta1", "Service"}, {"spec", "projectRef"}, {{CNRM_RM, "v1beta1", "Project"}}, true},
    {{RBAC, "v1", "RoleBinding"}, {"roleRef"}, {{RBAC, "v1", "Role"}, {RBAC, "v1", "ClusterRole"}}, false},
    {{RBAC, "v1", "RoleBinding"}, {"subjects[]"},
     {{RBAC, "v1", "User"}, {RBAC, "v1", "Group"}, {"", "v1", "ServiceAccount"}}, true},
    /* not in the catalog's table: a ClusterRoleBinding's references follow as a RoleBinding's do */
    {{RBAC, "v1", "ClusterRoleBinding"}, {"roleRef"}, {{RBAC, "v1", "ClusterRole"}}, false},
    {{RBAC, "v1", "ClusterRoleBinding"}, {"subjects[]"},
     {{RBAC, "v1", "User"}, {RBAC, "v1", "Group"}, {"", "v1", "ServiceAccount"}}, true},
    {{PORCH, "v1alpha1", "WorkloadIdentityBinding"}, {"spec", "resourceRef"}, {IAM_SA}, false},
    {{PORCH, "v1alpha1", "WorkloadIdentityBinding"}, {"spec", "serviceAccountRef"}, {{"", "v1", "ServiceAccount"}},
     true},
};

/* ---- renames, looked up by what references say: group, kind, namespace and old name ---- */

typedef struct rename_entry {
    const char *group, *kind, *ns, *old, *now;
} rename_entry;

typedef struct renames {
    rename_entry *v;
    size_t n;
} renames;

static int cmp_str(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "");
}

static int cmp_rename(const void *pa, const void *pb)
{
    const rename_entry *a = pa, *b = pb;
    int d;
    if ((d = cmp_str(a->group, b->group)) || (d = cmp_str(a->kind, b->kind)) || (d = cmp_str(a->ns, b->ns)))
        return d;
    return cmp_str(a->old, b->old);
}

static const char *renamed(const renames *rs, const char *group, const char *kind, const char *ns, const char *name)
{
    if (!rs->n || !kind || !name)
        return NULL;
    rename_entry key = {group ? group : "", kind, ns ? ns : "", name, NULL};
    const rename_entry *hit = bsearch(&key, rs->v, rs->n, sizeof *rs->v, cmp_rename);
    return hit ? hit->now : NULL;
}

static const char *group_of(arena *a, const char *api_version, const char **version)
{
    const char *slash = api_version ? strrchr(api_version, '/') : NULL;
    if (version)
        *version = slash ? slash + 1 : api_version ? api_version : "";
    return slash ? arena_strndup(a, api_version, (size_t)(slash - api_version)) : "";
}

/* ---- edits: collected against the input, applied at the end, so every lookup sees the names as they were ---- */

typedef struct edit {
    node *at;
    const char *text;
} edit;

typedef struct edits {
    edit *v;
    size_t n, cap;
} edits;

static void edit_add(edits *e, node *at, const char *text)
{
    if (e->n == e->cap) {
        e->cap = e->cap ? 2 * e->cap : 64;
        e->v = xrealloc(e->v, e->cap * sizeof *e->v);
    }
    e->v[e->n++] = (edit){at, text};
}

typedef struct walk {
    arena *a;
    const renames *rs;
    edits *e;              /* names */
    edits *ns_e;           /* namespaces: applied after the name references are fixed */
    const char *parent_ns; /* the referrer's namespace */
} walk;

static const char *str_at(const node *m, const char *key)
{
    const node *v = map_get(m, key);
    return is_scalar(v) && !is_null(v) ? scalar(v) : "";
}

/* A namespace field that names a renamed Namespace. */
static void namespace_ref(walk *w, const node *m, const char *key)
{
    node *v = map_get(m, key);
    if (!is_scalar(v) || is_null(v) || !*scalar(v))
        return;
    const char *now = renamed(w->rs, "", "Namespace", "", scalar(v));
    if (now)
        edit_add(w->ns_e, v, now);
}

/* One reference map of the catalog's table: which object it names, and the fix when that object was renamed. */
static void table_ref(walk *w, const ref_field *f, const node *ref)
{
    if (!is_map(ref) || *str_at(ref, "external"))
        return; /* a resource outside the package: never renamed */
    const char *kind = str_at(ref, "kind"), *av = str_at(ref, "apiVersion"), *api_group = str_at(ref, "apiGroup");
    const char *group, *version;
    size_t ntargets = 0;
    while (ntargets < sizeof f->targets / sizeof *f->targets && f->targets[ntargets].kind)
        ntargets++;
    if (!*kind || !*av) {
        const gvk *only = NULL;
        size_t matches = 0;
        for (size_t t = 0; t < ntargets; t++) {
            if (*kind && strcmp(kind, f->targets[t].kind))
                continue;
            if (*api_group && strcmp(api_group, f->targets[t].group))
                continue;
            only = &f->targets[t];
            matches++;
        }
        if (matches != 1)
            return; /* the catalog fails here: nothing it could rename */
        group = only->group;
        version = only->version;
        kind = only->kind;
        if (*av)
            group = group_of(w->a, av, &version);
    } else {
        group = group_of(w->a, av, &version);
    }
    if (ntargets == 1 && (strcmp(group, f->targets[0].group) || strcmp(version, f->targets[0].version) ||
                          strcmp(kind, f->targets[0].kind)))
        return;
    const char *ns = str_at(ref, "namespace");
    bool cluster = nameref_cluster_scoped(group, kind);
    if (cluster && *ns)
        return;
    if (!cluster && !*ns)
        ns = w->parent_ns;
    node *name = map_get(ref, "name");
    if (is_scalar(name) && !is_null(name)) {
        const char *now = renamed(w->rs, group, kind, cluster ? "" : ns, scalar(name));
        if (now)
            edit_add(w->e, name, now);
    }
    if (f->ns_field)
        namespace_ref(w, ref, "namespace");
}

static void walk_path(walk *w, const ref_field *f, const node *n, size_t depth)
{
    const char *seg = depth < sizeof f->path / sizeof *f->path ? f->path[depth] : NULL;
    if (!seg) {
        table_ref(w, f, n);
        return;
    }
    if (!is_map(n))
        return;
    size_t len = strlen(seg);
    if (len > 2 && !strcmp(seg + len - 2, "[]")) {
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)(len - 2), seg);
        const node *list = map_get(n, key);
        seq_foreach(list, i, item)
            walk_path(w, f, item, depth + 1);
        return;
    }
    walk_path(w, f, map_get(n, seg), depth + 1);
}

static void fix_refs_of(walk *w, const resource *r)
{
    node *md = map_get(r->root, "metadata");
    namespace_ref(w, md, "namespace");
    const node *owners = map_get(md, "ownerReferences");
    seq_foreach(owners, i, o) {
        if (!is_map(o))
            continue;
        const char *kind = str_at(o, "kind"), *av = str_at(o, "apiVersion");
        node *name = map_get(o, "name");
        if (*kind && *av && is_scalar(name) && !is_null(name)) {
            const char *group = group_of(w->a, av, NULL);
            const char *ns = *str_at(o, "namespace") ? str_at(o, "namespace") : w->parent_ns;
            const char *now = renamed(w->rs, group, kind, nameref_cluster_scoped(group, kind) ? "" : ns, scalar(name));
            if (now)
                edit_add(w->e, name, now);
        }
        namespace_ref(w, o, "namespace");
    }
    const char *version;
    const char *group = group_of(w->a, res_api_version(r), &version), *kind = res_kind(r);
    for (size_t f = 0; kind && f < sizeof ref_fields / sizeof *ref_fields; f++) {
        const gvk *g = &ref_fields[f].referrer;
        if (!strcmp(g->group, group) && !strcmp(g->version, version) && !strcmp(g->kind, kind))
            walk_path(w, &ref_fields[f], r->root, 0);
    }
}

static void apply(arena *a, const edits *e)
{
    for (size_t i = 0; i < e->n; i++)
        scalar_set(a, e->v[i].at, e->v[i].text, strlen(e->v[i].text), SCALAR_AS_STRING);
}

/* depends-on entries (group/namespaces/ns/Kind/name, comma-separated) in a renamed Namespace move with it. */
static void depends_on_namespaces(arena *a, const renames *rs, resource *r)
{
    node *v = path_get(r->root, "metadata", "annotations", "config.kubernetes.io/depends-on", NULL);
    if (!is_scalar(v) || is_null(v))
        return;
    const char *s = scalar(v);
    buf out = {0};
    bool changed = false;
    for (const char *p = s;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        const char *seg = memchr(p, '/', len); /* group/ */
        const char *ns = seg && (size_t)(seg - p) + 12 <= len && !strncmp(seg, "/namespaces/", 12) ? seg + 12 : NULL;
        const char *ns_end = ns ? memchr(ns, '/', len - (size_t)(ns - p)) : NULL;
        const char *now = ns_end ? renamed(rs, "", "Namespace", "", arena_strndup(a, ns, (size_t)(ns_end - ns))) : NULL;
        if (now) {
            buf_put(&out, p, (size_t)(ns - p));
            buf_puts(&out, now);
            buf_put(&out, ns_end, len - (size_t)(ns_end - p));
            changed = true;
        } else {
            buf_put(&out, p, len);
        }
        if (!comma)
            break;
        buf_putc(&out, ',');
        p = comma + 1;
    }
    if (changed)
        scalar_set(a, v, out.data, out.len, SCALAR_AS_STRING);
    buf_free(&out);
}

/* ---- config ---- */

typedef struct snp_config {
    const char *prefix; /* NULL: the package context's name */
    const char *old;
} snp_config;

static int read_config(fn_ctx *c, snp_config *cfg)
{
    cfg->prefix = NULL;
    cfg->old = "packagename";
    if (!c->config)
        return 0;
    if (!config_is(c->config, "ConfigMap", "") || !scalar_is(map_get(c->config, "apiVersion"), "v1")) {
        const char *k = path_str(c->config, "kind", NULL), *av = path_str(c->config, "apiVersion", NULL);
        return fn_fail(c, c->config, "the functionConfig must be a v1 ConfigMap with data.prefix and "
                                     "data.oldPrefix, not %s %s", av ? av : "(no apiVersion)", k ? k : "(no kind)");
    }
    const node *data = map_get(c->config, "data");
    if (data && !is_null(data) && !is_map(data))
        return fn_fail(c, data, "the ConfigMap's data must be a map with prefix and oldPrefix");
    map_foreach(data, i, k, v) {
        bool is_prefix = scalar_is(k, "prefix");
        if (!is_prefix && !scalar_is(k, "oldPrefix"))
            return fn_fail_key(c, data, i, "unknown key `%s` in data (expected prefix, oldPrefix)",
                           scalar(k) ? scalar(k) : "?");
        if (!is_scalar(v))
            return fn_fail(c, v, "data.%s must be a string", scalar(k));
        const char *s = is_null(v) ? "" : scalar(v);
        if (is_prefix)
            cfg->prefix = s;
        else
            cfg->old = s;
        if (!*s)
            return fn_fail(c, v, "`data.%s` should not be empty", scalar(k));
    }
    return 0;
}

/* The package context: the one local-config object named kptfile.kpt.dev, and its data.name. */
static int package_name(fn_ctx *c, const char **out)
{
    const resource *found = NULL;
    for (size_t i = 0; i < c->items->n; i++) {
        const resource *r = c->items->v[i];
        if (!r || !res_is_local_config(r) || cmp_str(res_name(r), "kptfile.kpt.dev"))
            continue;
        if (found)
            return fn_fail_res(c, r, NULL, "found multiple matches for package-context object "
                                           "(local-config objects named kptfile.kpt.dev)");
        found = r;
    }
    if (!found)
        return fn_fail(c, c->config, "unable to find package context object: give data.prefix, or "
                                     "add a local-config ConfigMap named kptfile.kpt.dev with data.name (kpt pkg get "
                                     "--for-deployment writes one)");
    const node *name = path_get(found->root, "data", "name", NULL);
    if (!is_scalar(name) || is_null(name) || !*scalar(name))
        return fn_fail_res(c, found, name, "package name (data.name) not set in package context "
                                           "object");
    *out = scalar(name);
    return 0;
}

/* ---- the run ---- */

typedef struct target {
    resource *r;
    const char *old, *now;
} target;

static bool kpt_resource_group(const resource *r)
{
    return !cmp_str(res_api_version(r), "kpt.dev/v1alpha1") && !cmp_str(res_kind(r), "ResourceGroup");
}

/* Sort key of an object's final identity: apiVersion, kind, namespace, name. */
typedef struct ident {
    const char *av, *kind, *ns, *name;
    const resource *r;
} ident;

static int cmp_ident(const void *pa, const void *pb)
{
    const ident *a = pa, *b = pb;
    int d;
    if ((d = cmp_str(a->av, b->av)) || (d = cmp_str(a->kind, b->kind)) || (d = cmp_str(a->ns, b->ns)))
        return d;
    return cmp_str(a->name, b->name);
}

/* Two objects of one apiVersion and kind in one namespace must not end up with one name. t is in item order. */
static int check_collisions(fn_ctx *c, const target *t, size_t nt)
{
    if (!nt)
        return 0;
    size_t k = 0, next = 0;
    ident *ids = arena_alloc(c->a, (c->items->n + 1) * sizeof *ids);
    for (size_t i = 0; i < c->items->n; i++) {
        const resource *r = c->items->v[i];
        if (!r || !res_name(r))
            continue;
        const char *name = res_name(r);
        if (next < nt && t[next].r == r)
            name = t[next++].now;
        ids[k++] = (ident){res_api_version(r), res_kind(r), res_namespace(r), name, r};
    }
    qsort(ids, k, sizeof *ids, cmp_ident);
    for (size_t i = 1; i < k; i++)
        if (!cmp_ident(&ids[i - 1], &ids[i]))
            return fn_fail_res(c, ids[i].r, NULL, "renaming would give this object and the one at "
                                                  "%s:%u the same apiVersion, kind, namespace and name \"%s\"",
                               res_file(c->a, ids[i - 1].r), ids[i - 1].r->line, ids[i].name);
    return 0;
}

static int run(fn_ctx *c)
{
    snp_config cfg;
    if (read_config(c, &cfg) < 0)
        return -1;
    if (!cfg.prefix && package_name(c, &cfg.prefix) < 0)
        return -1;
    size_t oldlen = strlen(cfg.old);
    target *t = arena_alloc(c->a, (c->items->n + 1) * sizeof *t);
    size_t nt = 0;
    for (size_t i = 0; i < c->items->n; i++) {
        resource *r = c->items->v[i];
        if (!r || res_is_local_config(r) || kpt_resource_group(r))
            continue;
        const char *name = res_name(r);
        if (!name)
            continue;
        const char *now = NULL;
        if (!strcmp(name, cfg.old))
            now = cfg.prefix;
        else if (!strncmp(name, cfg.old, oldlen) && name[oldlen] == '-')
            now = arena_printf(c->a, "%s-%s", cfg.prefix, name + oldlen + 1);
        if (now && strcmp(now, name))
            t[nt++] = (target){r, name, now};
    }
    if (check_collisions(c, t, nt) < 0)
        return -1;
    renames rs = {arena_alloc(c->a, (nt + 1) * sizeof *rs.v), 0};
    for (size_t i = 0; i < nt; i++) {
        const char *ns = res_namespace(t[i].r);
        rs.v[rs.n++] = (rename_entry){group_of(c->a, res_api_version(t[i].r), NULL), res_kind(t[i].r), ns ? ns : "",
                                t[i].old, t[i].now};
    }
    qsort(rs.v, rs.n, sizeof *rs.v, cmp_rename);
    edits e = {0}, ns_e = {0};
    for (size_t i = 0; rs.n && i < c->items->n; i++) {
        resource *r = c->items->v[i];
        if (!r || !is_map(r->root))
            continue;
        const char *ns = res_namespace(r);
        walk w = {c->a, &rs, &e, &ns_e, ns ? ns : ""};
        fix_refs_of(&w, r);
    }
    for (size_t i = 0; i < nt; i++)
        edit_add(&e, path_get(t[i].r->root, "metadata", "name", NULL), t[i].now);
    apply(c->a, &e);
    /* Beyond the catalog: kustomize's name references and kpt's depends-on follow the renamed objects too. They
     * run while every object still has its old namespace, so a referrer and its target agree on it. */
    nameref_renames nr = {0};
    const char *affix = arena_printf(c->a, "set-name-prefix:%s", cfg.prefix);
    for (size_t i = 0; i < nt; i++)
        nameref_add(c->a, &nr, t[i].r, t[i].old, affix);
    int rc = nameref_fix_references(c, &nr);
    if (rc == 0)
        nameref_fix_depends_on(c, &nr);
    if (rc == 0) {
        apply(c->a, &ns_e);
        for (size_t i = 0; i < c->items->n; i++)
            if (c->items->v[i])
                depends_on_namespaces(c->a, &rs, c->items->v[i]);
    }
    xfree(e.v);
    xfree(ns_e.v);
    return rc;
}

const fn_def fn_set_name_prefix = {
    .name = "set-name-prefix",
    .summary = "rename objects from the placeholder prefix (packagename) to the package's name and fix references to them",
    .run = run,
    .readme = {
        .does = "renames `oldPrefix` and `oldPrefix-*` (default `packagename`) to `prefix` (default: the package "
                "context's `data.name`), local-config objects excepted, and fixes the references to them",
        .differs = "references the catalog cannot place are left alone instead of failing the step; kustomize's name "
                "references, ClusterRoleBindings and `depends-on` follow too; the package context is needed only "
                "without `prefix`; two objects ending up with one name is an error",
        .versions = "one behaviour for every tag",
    },
};
