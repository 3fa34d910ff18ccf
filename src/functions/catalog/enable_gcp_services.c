/* enable-gcp-services: each ProjectServiceSet (blueprints.cloud.google.com/v1alpha1) among the items becomes one
 * Config Connector Service (serviceusage.cnrm.cloud.google.com/v1beta1) per entry of its spec.services, and the
 * Services an earlier render made for it are pruned first (catalog enable-gcp-services; v0.1.0 is its only release,
 * and `unstable` has the same logic).
 *
 * As the catalog does:
 *   - the ProjectServiceSet gets config.kubernetes.io/local-config: "true" (whatever it said before);
 *   - every item whose annotation blueprints.cloud.google.com/ownerReference is
 *     blueprints.cloud.google.com/ProjectServiceSet/<name> is removed, in any package the step sees;
 *   - for each service "a.b.c" (at least three dot-separated parts) a Service <set name>-<a> is made with
 *     spec.resourceID and, when the set has a projectID, spec.projectRef.external; it carries the set's annotations
 *     but local-config and the file bookkeeping ones, then the ownerReference, then the set's namespace;
 *   - it goes to <the set's directory>/<namespace>/service_<name>.yaml, in the set's package, after every other item.
 * Results: "pruned service", "generated service", or "recreated service" when a pruned Service comes back.
 *
 * Deviations: the catalog copies the set's annotations in Go's map order (a different order on every run); they keep
 * the set's order here. A name or namespace that would make a path leave the package is an error. */
#include <stdlib.h>
#include <string.h>

#include "functions/function.h"

#define PSS_API_VERSION "blueprints.cloud.google.com/v1alpha1"
#define PSS_KIND "ProjectServiceSet"
#define OWNER_ANNOTATION "blueprints.cloud.google.com/ownerReference"
#define LOCAL_CONFIG "config.kubernetes.io/local-config"
#define SERVICE_API_VERSION "serviceusage.cnrm.cloud.google.com/v1beta1"

/* Annotations that say where an object sits (the set's file, kpt's bookkeeping): never copied to a Service. */
static bool placement_annotation(const char *k)
{
    return !strcmp(k, LOCAL_CONFIG) || !strcmp(k, "config.kubernetes.io/path") ||
           !strcmp(k, "config.kubernetes.io/index") || !strcmp(k, "config.k8s.io/id") ||
           !strncmp(k, "internal.config.kubernetes.io/", 30);
}

static bool is_set(const resource *r)
{
    const char *av = res_api_version(r), *kind = res_kind(r);
    return av && kind && !strcmp(av, PSS_API_VERSION) && !strcmp(kind, PSS_KIND);
}

/* A name or namespace that is one plain path segment (it becomes part of a file path). */
static bool plain_segment(const char *s)
{
    return s && *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

typedef struct pss {
    resource *r;
    const char *name, *ns, *project, *owner;
    const node *services;
} pss;

typedef struct done_item {
    const resource *r; /* for the result's reference */
    const char *key;   /* kind/namespace/name, to find a pruned Service that comes back */
    bool recreated;
} done_item;

/* An item that names an owner (blueprints.cloud.google.com/ownerReference), for finding a set's Services. */
typedef struct owned {
    const char *owner;
    size_t i; /* its index in the items */
} owned;

static int by_owner(const void *x, const void *y)
{
    const owned *a = x, *b = y;
    int c = strcmp(a->owner, b->owner);
    return c ? c : (a->i > b->i) - (a->i < b->i);
}

static const char *service_key(arena *a, const char *ns, const char *name)
{
    return arena_printf(a, "Service/%s/%s", ns ? ns : "", name ? name : "");
}

/* Reads one set (after marking it local-config, as the catalog does before reading it). */
static int read_set(fn_ctx *c, resource *r, pss *out)
{
    node *meta = map_ensure_map(c->a, r->root, "metadata");
    node *ann = meta ? map_ensure_map(c->a, meta, "annotations") : NULL;
    if (!ann)
        return fn_fail_res(c, r, r->root, "failed to add services: metadata.annotations must be a map");
    node *lc = map_get(ann, LOCAL_CONFIG);
    if (is_scalar(lc))
        scalar_set(c->a, lc, "true", 4, SCALAR_AS_STRING);
    else
        map_set_str(c->a, ann, LOCAL_CONFIG, "true");
    memset(out, 0, sizeof *out);
    out->r = r;
    out->name = res_name(r);
    out->ns = res_namespace(r);
    if (!out->name || !*out->name)
        return fn_fail_res(c, r, meta, "failed to add services: a ProjectServiceSet needs metadata.name");
    if (!plain_segment(out->name) || (out->ns && *out->ns && !plain_segment(out->ns)))
        return fn_fail_res(c, r, meta, "failed to add services: ProjectServiceSet \"%s\": its name and namespace "
                           "become file names and must not hold \"/\" or be \".\" or \"..\"", out->name);
    const node *spec = map_get(r->root, "spec");
    if (spec && !is_null(spec) && !is_map(spec))
        return fn_fail_res(c, r, spec, "failed to add services: spec must be a map");
    const node *svcs = map_get(spec, "services"), *pid = map_get(spec, "projectID");
    if (svcs && !is_null(svcs) && !is_seq(svcs))
        return fn_fail_res(c, r, svcs, "failed to add services: spec.services must be a list of service names");
    if (pid && !is_null(pid) && !is_scalar(pid))
        return fn_fail_res(c, r, pid, "failed to add services: spec.projectID must be a string");
    out->services = is_seq(svcs) ? svcs : NULL;
    out->project = pid && !is_null(pid) ? scalar(pid) : NULL;
    out->owner = arena_printf(c->a, "blueprints.cloud.google.com/%s/%s", PSS_KIND, out->name);
    seq_foreach(out->services, i, s) {
        if (!is_scalar(s) || is_null(s))
            return fn_fail_res(c, r, s, "failed to add services: spec.services[%u] must be a service name", i);
    }
    return 0;
}

/* The Service for one entry, laid out as the catalog's marshalled struct and its later edits place the fields. */
static node *make_service(fn_ctx *c, const pss *p, const char *svc, const char *name)
{
    arena *a = c->a;
    node *root = node_map(a);
    map_set_str(a, root, "apiVersion", SERVICE_API_VERSION);
    map_set_str(a, root, "kind", "Service");
    node *meta = map_set(a, root, "metadata", node_map(a));
    map_set_str(a, meta, "name", name);
    node *spec = map_set(a, root, "spec", node_map(a));
    map_set_str(a, spec, "resourceID", svc);
    if (p->project && *p->project)
        map_set_str(a, map_set(a, spec, "projectRef", node_map(a)), "external", p->project);
    /* annotations as kyaml's SetAnnotation writes them: single-quoted */
    node *ann = map_set(a, meta, "annotations", node_map(a));
    const node *src = path_get(p->r->root, "metadata", "annotations", NULL);
    map_foreach(src, i, key, val) {
        const char *k = scalar(key), *v = scalar(val);
        if (k && v && !placement_annotation(k))
            map_set(a, ann, k, node_scalar(a, v, strlen(v), ST_SINGLE));
    }
    map_set(a, ann, OWNER_ANNOTATION, node_scalar(a, p->owner, strlen(p->owner), ST_SINGLE));
    if (p->ns && *p->ns)
        map_set_str(a, meta, "namespace", p->ns);
    return root;
}

static const char *dir_of(arena *a, const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? arena_strndup(a, path, (size_t)(slash - path)) : "";
}

static int run(fn_ctx *c)
{
    size_t nsets = 0;
    for (size_t i = 0; i < c->items->n; i++)
        if (c->items->v[i] && is_set(c->items->v[i]))
            nsets++;
    if (!nsets)
        return 0;
    pss *sets = arena_alloc(c->a, nsets * sizeof *sets);
    size_t k = 0;
    for (size_t i = 0; i < c->items->n; i++)
        if (c->items->v[i] && is_set(c->items->v[i]) && read_set(c, c->items->v[i], &sets[k++]) < 0)
            return -1;
    /* the items by owner, indexed once: each set finds its own Services without reading every item (so many sets
     * cost what they hold, not sets x items) */
    size_t nowned = 0;
    owned *own = arena_alloc(c->a, c->items->n * sizeof *own + 1);
    for (size_t i = 0; i < c->items->n; i++) {
        const char *owner = c->items->v[i] ? res_annotation(c->items->v[i], OWNER_ANNOTATION) : NULL;
        if (owner)
            own[nowned++] = (owned){owner, i};
    }
    qsort(own, nowned, sizeof *own, by_owner);
    rlist made = {0};
    int rc = -1;
    for (size_t s = 0; s < nsets; s++) {
        pss *p = &sets[s];
        if (!p->services || !node_len(p->services)) {
            fn_fail_res(c, p->r, p->r->root,
                        "failed to add services: at least one service must be specified under `spec.services[]`");
            goto out;
        }
        /* prune what an earlier render made for this set (the Services made by this step are not among them) */
        size_t lo = 0, hi = nowned; /* the first entry of this owner */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (strcmp(own[mid].owner, p->owner) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        size_t end = lo;
        while (end < nowned && !strcmp(own[end].owner, p->owner))
            end++;
        size_t npruned = 0;
        done_item *pruned = arena_alloc(c->a, (end - lo) * sizeof *pruned + 1);
        for (size_t j = lo; j < end; j++) {
            resource *r = c->items->v[own[j].i];
            if (!r)
                continue; /* pruned already, by an earlier set of the same owner */
            pruned[npruned++] = (done_item){r, service_key(c->a, res_namespace(r), res_name(r)), false};
            c->items->v[own[j].i] = NULL;
        }
        size_t first = made.n;
        seq_foreach(p->services, i, it) {
            const char *svc = scalar(it);
            const char *d1 = strchr(svc, '.'), *d2 = d1 ? strchr(d1 + 1, '.') : NULL;
            if (!d2) {
                fn_fail_res(c, p->r, it, "failed to add services: invalid service specified: %s",
                            svc);
                goto out;
            }
            const char *name = arena_printf(c->a, "%s-%.*s", p->name, (int)(d1 - svc), svc);
            node *root = make_service(c, p, svc, name);
            const char *file = arena_printf(c->a, "service_%s.yaml", name);
            const char *dir = dir_of(c->a, p->r->path);
            const char *ns = p->ns && *p->ns ? p->ns : NULL;
            const char *path = *dir && ns  ? arena_printf(c->a, "%s/%s/%s", dir, ns, file)
                               : *dir      ? arena_printf(c->a, "%s/%s", dir, file)
                               : ns        ? arena_printf(c->a, "%s/%s", ns, file)
                                           : file;
            rlist_push(&made, resource_new(c->a, root, p->r->pkg, path, 0));
        }
        /* results: each pruned Service (recreated when one of the same id was made), then the new ones */
        for (size_t j = 0; j < npruned; j++) {
            for (size_t m = first; m < made.n; m++)
                if (!strcmp(pruned[j].key, service_key(c->a, res_namespace(made.v[m]), res_name(made.v[m]))))
                    pruned[j].recreated = true;
            fn_result_add(c, SEV_INFO, pruned[j].r, NULL, pruned[j].recreated ? "recreated service" : "pruned service");
        }
        for (size_t m = first; m < made.n; m++) {
            bool again = false;
            const char *key = service_key(c->a, res_namespace(made.v[m]), res_name(made.v[m]));
            for (size_t j = 0; j < npruned && !again; j++)
                again = !strcmp(pruned[j].key, key);
            if (!again)
                fn_result_add(c, SEV_INFO, made.v[m], NULL, "generated service");
        }
    }
    for (size_t m = 0; m < made.n; m++)
        rlist_push(c->items, made.v[m]);
    rc = 0;
out:
    rlist_free(&made);
    return rc;
}

const fn_def fn_enable_gcp_services = {
    .name = "enable-gcp-services",
    .summary = "make a Config Connector Service for each service a ProjectServiceSet lists (and prune the old ones)",
    .run = run,
    .releases = "0.1.0",
    .readme = {
        .does = "a Config Connector `Service` (`<set>-<service's first word>`) for each entry of each "
                "`ProjectServiceSet`'s `spec.services`, beside the set (`<dir>/<namespace>/service_<name>.yaml`), "
                "after pruning the Services an earlier render made for it "
                "(`blueprints.cloud.google.com/ownerReference`); the set is marked `local-config: \"true\"`",
        .differs = "the set's annotations are copied in the set's order (the catalog copies them in Go's map order, "
                "different on every run); a name or namespace that would lead a file out of its package is an error",
        .versions = "v0.1.0 is the only release; `latest` and `unstable` run the same logic and messages",
    },
};
