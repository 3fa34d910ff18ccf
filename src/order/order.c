/* The graph as kpt live apply builds it (cli-utils pkg/object/graph, dependson, validation), its layers as Argo CD
 * sync waves, and the rest of what a package that kpt orders needs under Argo CD. */
#include "order/order.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "order/internal.h"
#include "util/buf.h"
#include "util/diag.h"

#define HOOK "argocd.argoproj.io/hook"
#define HELM_HOOK "helm.sh/hook"
#define WAVE "argocd.argoproj.io/sync-wave"
#define HOOK_WEIGHT "helm.sh/hook-weight"
#define SYNC_OPTIONS "argocd.argoproj.io/sync-options"
#define SKIP_DRY_RUN "SkipDryRunOnMissingResource=true"
#define CYCLE_TEXT_MAX 1200

/* Argo CD's phases in the order a sync runs them; NONE: PreDelete, PostDelete, Skip, a helm test hook, or an object
 * in more than one phase: left as it is, outside the graph. */
enum phase { PRESYNC, SYNC, POSTSYNC, SYNCFAIL, NONE };
static const char *const phase_names[] = {"PreSync", "Sync", "PostSync", "SyncFail", "none"};

typedef struct obj {
    resource *r;
    const char *group, *kind, *ns, *name; /* the id: group, kind, namespace ("" cluster-scoped), name */
    const char *key, *alias;              /* id keys; alias: an unknown type without namespace, also namespaced */
    enum phase phase;
    bool has_wave, custom, crd_here;
    long long wave; /* explicit: sync-wave, else helm.sh/hook-weight */
    int rank;       /* kind_rank: cli-utils' kind order */
} obj;

/* string -> index: open addressing over text_hash, for ids and types */
typedef struct strmap {
    const char **keys;
    uint32_t *vals;
    size_t cap;
} strmap;

static void sm_init(strmap *m, size_t expected)
{
    m->cap = 16;
    while (m->cap < expected * 2 + 2)
        m->cap *= 2;
    m->keys = xcalloc(m->cap, sizeof *m->keys);
    m->vals = xcalloc(m->cap, sizeof *m->vals);
}

static void sm_free(strmap *m)
{
    xfree(m->keys);
    xfree(m->vals);
}

static size_t sm_slot(const strmap *m, const char *key)
{
    size_t i = (size_t)text_hash(key, strlen(key)) & (m->cap - 1);
    while (m->keys[i] && strcmp(m->keys[i], key))
        i = (i + 1) & (m->cap - 1);
    return i;
}

/* false when the key was there (its value stays) */
static bool sm_put(strmap *m, const char *key, uint32_t val)
{
    size_t i = sm_slot(m, key);
    if (m->keys[i])
        return false;
    m->keys[i] = key;
    m->vals[i] = val;
    return true;
}

static bool sm_get(const strmap *m, const char *key, uint32_t *val)
{
    size_t i = sm_slot(m, key);
    if (!m->keys[i])
        return false;
    *val = m->vals[i];
    return true;
}

/* parts joined by \x1f (a byte no group, kind, namespace or name holds), into the arena: the keys of the maps. Not
 * arena_printf: a key per object and per reference, and vsnprintf costs ten times the copy. */
static const char *join_key(arena *a, const char *const *parts, size_t n)
{
    size_t len[4], total = n;
    for (size_t i = 0; i < n; i++)
        total += len[i] = strlen(parts[i]);
    char *k = arena_alloc(a, total), *w = k;
    for (size_t i = 0; i < n; i++) {
        memcpy(w, parts[i], len[i]);
        w += len[i];
        *w++ = i + 1 < n ? '\x1f' : 0;
    }
    return k;
}

static const char *id_key(arena *a, const char *group, const char *kind, const char *ns, const char *name)
{
    const char *p[] = {group, kind, ns, name};
    return join_key(a, p, 4);
}

static const char *type_key(arena *a, const char *group, const char *kind)
{
    const char *p[] = {group, kind};
    return join_key(a, p, 2);
}

/* A key only looked up, in a scratch buffer reused from one lookup to the next (so lookups leave nothing in the
 * arena): valid until the next call. */
typedef struct scratch {
    char *p;
    size_t cap;
} scratch;

static const char *scratch_key(scratch *sc, const char *const *parts, size_t n)
{
    size_t total = n;
    for (size_t i = 0; i < n; i++)
        total += strlen(parts[i]);
    if (total > sc->cap)
        sc->p = xrealloc(sc->p, sc->cap = total * 2);
    char *w = sc->p;
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(parts[i]);
        memcpy(w, parts[i], l);
        w += l;
        *w++ = i + 1 < n ? '\x1f' : 0;
    }
    return sc->p;
}

/* kpt's form of a reference, for messages: group/namespaces/ns/Kind/name or group/Kind/name */
static const char *ref_text(arena *a, const char *group, const char *kind, const char *ns, const char *name)
{
    return *ns ? arena_printf(a, "%s/namespaces/%s/%s/%s", group, ns, kind, name)
               : arena_printf(a, "%s/%s/%s", group, kind, name);
}

static const char *obj_text(arena *a, const obj *o)
{
    return shown(a, ref_text(a, o->group, o->kind, o->ns, *o->name ? o->name : "(generateName)"));
}

static int obj_fail(arena *a, const obj *o, const char *msg)
{
    return fail(res_file(a, o->r), (int)o->r->line, "%s", msg);
}

bool order_wanted(const resource *r)
{
    return res_annotation(r, ORDER_DEPENDS_ON) || res_annotation(r, ORDER_MUTATION);
}

const char *order_mode_rule(const char *mode)
{
    if (!mode || !strcmp(mode, "auto") || !strcmp(mode, "kpt") || !strcmp(mode, "off"))
        return NULL;
    return "must be auto, kpt or off";
}

/* The phase from argocd.argoproj.io/hook (a CSV), else from helm.sh/hook as Argo CD maps it (an Argo CD hook
 * annotation makes Argo CD ignore the Helm one). */
static enum phase phase_of(const resource *r)
{
    const char *v = res_annotation(r, HOOK);
    bool helm = !v;
    if (helm)
        v = res_annotation(r, HELM_HOOK);
    if (!v)
        return SYNC;
    int found = -1;
    bool other = false, any = false;
    for (const char *p = v; *p;) {
        size_t len = strcspn(p, ",");
        const char *s = p, *e = p + len;
        while (s < e && (*s == ' ' || *s == '\t'))
            s++;
        while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
            e--;
        size_t l = (size_t)(e - s);
        int ph = -1;
#define IS(t) (l == strlen(t) && !strncmp(s, t, l))
        if (helm) {
            if (IS("pre-install") || IS("pre-upgrade"))
                ph = PRESYNC;
            else if (IS("post-install") || IS("post-upgrade"))
                ph = POSTSYNC;
            else if (IS("crd-install"))
                ph = SYNC;
            else if (l)
                other = true; /* pre/post-delete, test, rollback hooks: not run by a sync */
        } else {
            if (IS("PreSync"))
                ph = PRESYNC;
            else if (IS("Sync"))
                ph = SYNC;
            else if (IS("PostSync"))
                ph = POSTSYNC;
            else if (IS("SyncFail"))
                ph = SYNCFAIL;
            else if (l)
                other = true; /* PreDelete, PostDelete, Skip */
        }
#undef IS
        if (ph >= 0) {
            if (any && found != ph)
                other = true;
            found = ph;
            any = true;
        }
        p += len + (p[len] == ',');
    }
    if (other)
        return NONE;
    return any ? (enum phase)found : SYNC;
}

/* An integer as Argo CD's strconv.Atoi reads it: optional sign, decimal digits, nothing else. */
static bool parse_int(const char *s, long long *out)
{
    if (!s || !*s)
        return false;
    const char *p = s + (*s == '-' || *s == '+');
    if (!*p)
        return false;
    for (const char *q = p; *q; q++)
        if (*q < '0' || *q > '9' || q - p > 17)
            return false;
    *out = strtoll(s, NULL, 10);
    return true;
}

/* KUBE_API_VERSIONS: which apiVersion/Kind the cluster serves. Entries name a group/version or a
 * group/version/Kind; a list with Kind entries is read by Kind (an XRD adds kinds to groups that exist). */
typedef struct api_set {
    strmap m;
    bool known, kinds;
} api_set;

static void api_set_load(arena *a, api_set *s, const char *list)
{
    s->known = list != NULL;
    s->kinds = false;
    size_t n = 1;
    for (const char *p = list; p && *p; p++)
        n += *p == ',';
    sm_init(&s->m, n);
    for (const char *p = list; p && *p;) {
        size_t len = strcspn(p, ",");
        const char *e = arena_strndup(a, p, len);
        if (len) {
            sm_put(&s->m, e, 0);
            /* group/version/Kind has two slashes; the core v1/Kind has one but starts with v and a digit */
            const char *s1 = strchr(e, '/'), *s2 = s1 ? strchr(s1 + 1, '/') : NULL;
            if (s2 || (s1 && e[0] == 'v' && e[1] >= '0' && e[1] <= '9'))
                s->kinds = true;
        }
        p += len + (p[len] == ',');
    }
}

static bool api_served(scratch *sc, const api_set *s, const resource *r)
{
    if (!s->known)
        return false;
    const char *av = res_api_version(r), *kind = res_kind(r);
    uint32_t v;
    if (!av || !kind)
        return false;
    if (!s->kinds)
        return sm_get(&s->m, av, &v);
    size_t al = strlen(av), kl = strlen(kind);
    if (al + kl + 2 > sc->cap)
        sc->p = xrealloc(sc->p, sc->cap = (al + kl + 2) * 2);
    memcpy(sc->p, av, al);
    sc->p[al] = '/';
    memcpy(sc->p + al + 1, kind, kl + 1);
    return sm_get(&s->m, sc->p, &v);
}

typedef struct graph {
    arena *a;
    obj *o;
    size_t n;
    strmap ids, crds;
    uint32_t *from, *to;
    uint32_t *mark; /* depends_on's: per object, the last dependent (+ 1) whose annotation named it */
    scratch sc;
    uint8_t *expl;
    size_t m, cap;
} graph;

static void add_edge(graph *g, uint32_t from, uint32_t to, bool expl)
{
    if (g->m == g->cap) {
        g->cap = g->cap ? g->cap * 2 : 64;
        g->from = xrealloc(g->from, g->cap * sizeof *g->from);
        g->to = xrealloc(g->to, g->cap * sizeof *g->to);
        g->expl = xrealloc(g->expl, g->cap);
    }
    g->from[g->m] = from;
    g->to[g->m] = to;
    g->expl[g->m] = expl;
    g->m++;
}

/* config.kubernetes.io/depends-on of object i: comma-separated references, each trimmed, 3 fields
 * (group/Kind/name, cluster-scoped) or 5 (group/namespaces/ns/Kind/name), as cli-utils' dependson parses them. */
static int depends_on(graph *g, uint32_t i)
{
    arena *a = g->a;
    obj *o = &g->o[i];
    const char *v = res_annotation(o->r, ORDER_DEPENDS_ON);
    if (!v)
        return 0;
    /* parsed in a scratch copy, each key built in a scratch buffer: nothing of it stays in the arena, so memory
     * does not grow with the references (only the edges stay) */
    size_t vlen = strlen(v);
    char *work = xmalloc(vlen + 1), *key = xmalloc(vlen + 4);
    memcpy(work, v, vlen + 1);
    int rc = 0;
    size_t idx = 0;
    for (char *p = work; rc == 0; idx++) {
        size_t len = strcspn(p, ",");
        bool last = !p[len];
        p[len] = 0;
        char *ref = p, *e = p + len;
        while (*ref == ' ' || *ref == '\t' || *ref == '\n' || *ref == '\r')
            ref++;
        while (e > ref && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
            *--e = 0;
        size_t ref_off = (size_t)(ref - work), ref_len = strlen(ref); /* the text, for a message, before the cut */
        const char *f[6];
        size_t nf = 0;
        for (char *q = ref; nf < 6;) {
            f[nf++] = q;
            char *sl = strchr(q, '/');
            if (!sl)
                break;
            *sl = 0;
            q = sl + 1;
        }
        if (!(nf == 3 || (nf == 5 && !strcmp(f[1], "namespaces")))) {
            rc = obj_fail(a, o, arena_printf(a, "depends-on of %s: reference %zu \"%s\": expected 3 or 5 fields "
                                                "(group/Kind/name or group/namespaces/namespace/Kind/name)",
                                             obj_text(a, o), idx + 1, shown(a, arena_strndup(a, v + ref_off, ref_len))));
            break;
        }
        const char *group = f[0], *ns = nf == 5 ? f[2] : "", *kind = nf == 5 ? f[3] : f[1],
                   *name = nf == 5 ? f[4] : f[2];
        char *w = key;
        const char *parts[] = {group, kind, ns, name};
        for (int k = 0; k < 4; k++) {
            size_t l = strlen(parts[k]);
            memcpy(w, parts[k], l);
            w += l;
            *w++ = k < 3 ? '\x1f' : 0;
        }
        uint32_t dep;
        if (!sm_get(&g->ids, key, &dep)) {
            rc = obj_fail(a, o, arena_printf(a, "depends-on of %s: external dependency %s is not in the rendered "
                                                "output (kpt live apply refuses to wait for objects it does not apply; "
                                                "local-config objects are never applied)",
                                             obj_text(a, o), shown(a, ref_text(a, group, kind, ns, name))));
            break;
        }
        /* the same object named twice in this annotation (mark: the last object whose annotation named it, + 1) */
        if (g->mark[dep] == i + 1) {
            rc = obj_fail(a, o, arena_printf(a, "depends-on of %s: duplicate dependency %s", obj_text(a, o),
                                             shown(a, ref_text(a, group, kind, ns, name))));
            break;
        }
        g->mark[dep] = i + 1;
        add_edge(g, i, dep, true);
        if (last)
            break;
        p += len + 1;
    }
    xfree(work);
    xfree(key);
    return rc;
}

static const char *node_text(arena *a, const graph *g, const long long *vwave, uint32_t v)
{
    if (v < g->n)
        return obj_text(a, &g->o[v]);
    return arena_printf(a, "(every object of sync-wave %lld in its phase)", vwave[v - g->n]);
}

/* A stable merge sort of indices with a context (qsort has none, and its order of equals is unspecified). */
typedef int (*idx_cmp)(uint32_t, uint32_t, const void *);
static void msort(uint32_t *v, uint32_t *tmp, size_t n, idx_cmp cmp, const void *ctx)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    msort(v, tmp, h, cmp, ctx);
    msort(v + h, tmp, n - h, cmp, ctx);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = cmp(v[j], v[i], ctx) < 0 ? v[j++] : v[i++];
    while (i < h)
        tmp[k++] = v[i++];
    while (j < n)
        tmp[k++] = v[j++];
    memcpy(v, tmp, n * sizeof *v);
}

/* by phase, then explicit wave (0 for an object without one, as Argo CD reads it) */
static int cmp_wave(uint32_t x, uint32_t y, const void *ctx)
{
    const obj *p = &((const obj *)ctx)[x], *q = &((const obj *)ctx)[y];
    if (p->phase != q->phase)
        return p->phase < q->phase ? -1 : 1;
    long long a = p->has_wave ? p->wave : 0, b = q->has_wave ? q->wave : 0;
    return a < b ? -1 : a > b;
}

typedef struct apply_ctx {
    const obj *o;
    const uint32_t *wave;
} apply_ctx;

/* apply order: phase, wave, cli-utils' kind order, group, kind, namespace, name; the rest as it was */
static int cmp_apply(uint32_t i, uint32_t j, const void *ctx)
{
    const apply_ctx *c = ctx;
    const obj *p = &c->o[i], *q = &c->o[j];
    if (p->phase != q->phase)
        return p->phase < q->phase ? -1 : 1;
    if (p->phase == NONE)
        return 0;
    if (c->wave[i] != c->wave[j])
        return c->wave[i] < c->wave[j] ? -1 : 1;
    int r = p->rank - q->rank;
    if (!r)
        r = strcmp(p->group, q->group);
    if (!r)
        r = strcmp(p->kind, q->kind);
    if (!r)
        r = strcmp(p->ns, q->ns);
    if (!r)
        r = strcmp(p->name, q->name);
    return r;
}

/* SkipDryRunOnMissingResource=true joined to the object's sync options, unless they already decide it */
static void skip_dry_run(arena *a, resource *r)
{
    const char *v = res_annotation(r, SYNC_OPTIONS);
    if (v && strstr(v, "SkipDryRunOnMissingResource="))
        return;
    node *md = map_ensure_map(a, r->root, "metadata");
    node *an = md ? map_ensure_map(a, md, "annotations") : NULL;
    if (an)
        map_set_str(a, an, SYNC_OPTIONS, v && *v ? arena_printf(a, "%s,%s", v, SKIP_DRY_RUN) : SKIP_DRY_RUN);
}

static int build_objects(graph *g, rlist *items, const order_opts *opt, bool kpt_mode, const api_set *api)
{
    arena *a = g->a;
    const char *defns = opt->default_namespace && *opt->default_namespace ? opt->default_namespace : "default";
    /* the CRDs of the output: their group and kind, and scope */
    sm_init(&g->crds, 16);
    for (size_t i = 0; i < g->n; i++) {
        resource *r = items->v[i];
        char grp[256];
        res_group(r, grp, sizeof grp);
        const char *kind = res_kind(r);
        if (strcmp(grp, "apiextensions.k8s.io") || !kind || strcmp(kind, "CustomResourceDefinition"))
            continue;
        const char *cg = path_str(r->root, "spec", "group", NULL), *ck = path_str(r->root, "spec", "names", "kind", NULL);
        if (cg && ck)
            sm_put(&g->crds, type_key(a, cg, ck), (uint32_t)i);
    }
    sm_init(&g->ids, g->n * 2);
    for (size_t i = 0; i < g->n; i++) {
        resource *r = items->v[i];
        obj *o = &g->o[i];
        char grp[256];
        res_group(r, grp, sizeof grp);
        o->r = r;
        o->group = arena_strndup(a, grp, strlen(grp));
        o->kind = res_kind(r) ? res_kind(r) : "";
        o->name = res_name(r) ? res_name(r) : "";
        o->rank = kind_rank(o->kind);
        const char *ns = res_namespace(r);
        ns = ns && *ns ? ns : NULL;
        const builtin_kind *b = builtin_kind_find(o->group, o->kind);
        uint32_t crd;
        o->custom = !b;
        const char *tk[] = {o->group, o->kind};
        o->crd_here = !b && sm_get(&g->crds, scratch_key(&g->sc, tk, 2), &crd);
        int cluster; /* 1, 0, or -1 unknown */
        if (b) {
            cluster = b->cluster;
        } else if (o->crd_here) {
            const char *scope = path_str(items->v[crd]->root, "spec", "scope", NULL);
            cluster = scope && !strcmp(scope, "Cluster");
        } else {
            /* kpt aborts on a type neither the cluster nor the package's CRDs define (its RESTMapper lookup) */
            if (kpt_mode && !api_served(&g->sc, api, r))
                return obj_fail(a, o, arena_printf(a, "%s: resource type %s, kind %s not found among the built-in "
                                                      "kinds, the output's CRDs or KUBE_API_VERSIONS (kpt live apply "
                                                      "aborts on unknown types; ordering: auto orders it anyway)",
                                                   shown(a, res_id(a, r)), shown(a, res_api_version(r) ? res_api_version(r) : ""),
                                                   shown(a, o->kind)));
            cluster = ns ? 0 : -1;
        }
        o->ns = cluster == 1 ? "" : cluster == 0 ? (ns ? ns : defns) : "";
        o->key = id_key(a, o->group, o->kind, o->ns, o->name);
        /* an unknown type without a namespace: Argo CD will learn its scope from the cluster; a reference may name
         * it either way */
        o->alias = cluster == -1 ? id_key(a, o->group, o->kind, defns, o->name) : NULL;
        if (*o->name) {
            sm_put(&g->ids, o->key, (uint32_t)i);
            if (o->alias)
                sm_put(&g->ids, o->alias, (uint32_t)i);
        }
        o->phase = phase_of(r);
        o->has_wave = parse_int(res_annotation(r, WAVE), &o->wave) || parse_int(res_annotation(r, HOOK_WEIGHT), &o->wave);
    }
    return 0;
}

static const char *wave_text(arena *a, uint32_t v)
{
    char b[12], *w = b + sizeof b;
    *--w = 0;
    do
        *--w = (char)('0' + v % 10);
    while (v /= 10);
    return arena_strndup(a, w, (size_t)(b + sizeof b - 1 - w));
}

int order_apply(arena *a, rlist *items, const order_opts *opt)
{
    const char *mode = opt->mode ? opt->mode : "auto";
    if (!strcmp(mode, "off"))
        return 0;
    bool kpt_mode = !strcmp(mode, "kpt");
    rlist_compact(items);
    size_t n = items->n;
    bool wanted = kpt_mode;
    for (size_t i = 0; i < n; i++) {
        const resource *r = items->v[i];
        if (res_annotation(r, ORDER_MUTATION))
            return fail(res_file(a, r), (int)r->line,
                        "apply-time-mutation on %s cannot be honoured by a render-time plugin (kpt reads the value from "
                        "the live source object at apply time)",
                        shown(a, res_id(a, r)));
        wanted = wanted || res_annotation(r, ORDER_DEPENDS_ON);
    }
    if (!wanted || !n)
        return 0;

    graph g = {.a = a, .n = n};
    g.o = xcalloc(n, sizeof *g.o);
    g.mark = xcalloc(n, sizeof *g.mark);
    api_set api;
    api_set_load(a, &api, opt->kube_api_versions);
    uint32_t *layer = NULL, *cycle = NULL, *order = NULL, *wave = NULL, *tmp = NULL;
    long long *vwave = NULL;
    uint8_t *zero = NULL;
    int rc = -1;
    if (build_objects(&g, items, opt, kpt_mode, &api) < 0)
        goto done;

    /* edges, dependent -> dependency: the implicit CRD and Namespace ones, then depends-on */
    for (uint32_t i = 0; i < n; i++) {
        obj *o = &g.o[i];
        uint32_t d;
        const char *tk[] = {o->group, o->kind}, *nk[] = {"", "Namespace", "", o->ns};
        if (o->crd_here && sm_get(&g.crds, scratch_key(&g.sc, tk, 2), &d) && d != i)
            add_edge(&g, i, d, false);
        if (*o->ns && sm_get(&g.ids, scratch_key(&g.sc, nk, 4), &d) && d != i)
            add_edge(&g, i, d, false);
        if (depends_on(&g, i) < 0)
            goto done;
    }
    /* phases: an edge into an earlier phase is met by the phase order; an explicit one into a later phase cannot be
     * met; an implicit one there is Argo CD's to fix (it moves a CRD or Namespace before what needs it) */
    size_t kept = 0;
    for (size_t e = 0; e < g.m; e++) {
        const obj *f = &g.o[g.from[e]], *t = &g.o[g.to[e]];
        if (f->phase == NONE || t->phase == NONE || t->phase < f->phase)
            continue;
        if (t->phase > f->phase) {
            if (!g.expl[e])
                continue;
            if (obj_fail(a, f, arena_printf(a, "%s (%s) cannot wait for %s (%s): Argo CD runs the %s phase first",
                                           obj_text(a, f), phase_names[f->phase], obj_text(a, t),
                                           phase_names[t->phase], phase_names[f->phase])) < 0)
                goto done;
        }
        g.from[kept] = g.from[e], g.to[kept] = g.to[e], g.expl[kept] = g.expl[e];
        kept++;
    }
    g.m = kept;

    /* explicit waves keep their order: within a phase that has any, every object (0 when it has none, as Argo CD
     * reads it) waits for every object of a lower wave, through one barrier node per distinct wave */
    uint32_t *byw = xmalloc(n * sizeof *byw);
    bool any_wave[NONE] = {false};
    for (uint32_t i = 0; i < n; i++) {
        byw[i] = i;
        if (g.o[i].phase != NONE && g.o[i].has_wave)
            any_wave[g.o[i].phase] = true;
    }
    tmp = xmalloc(n * sizeof *tmp);
    msort(byw, tmp, n, cmp_wave, g.o);
    size_t nv = 0;
    vwave = xmalloc((n + 1) * sizeof *vwave);
    for (size_t s = 0; s < n;) {
        const obj *first = &g.o[byw[s]];
        size_t e = s;
        while (e < n && !cmp_wave(byw[s], byw[e], g.o))
            e++;
        if (first->phase != NONE && any_wave[first->phase]) {
            /* the barrier of the previous wave of this phase, if any */
            if (s > 0 && g.o[byw[s - 1]].phase == first->phase)
                for (size_t k = s; k < e; k++)
                    add_edge(&g, byw[k], (uint32_t)(n + nv - 1), false);
            bool last = e == n || g.o[byw[e]].phase != first->phase;
            if (!last) {
                vwave[nv] = first->has_wave ? first->wave : 0;
                for (size_t k = s; k < e; k++)
                    add_edge(&g, (uint32_t)(n + nv), byw[k], false);
                nv++;
            }
        }
        s = e;
    }
    xfree(byw);
    zero = xcalloc(n + nv + 1, 1);
    for (size_t v = 0; v < nv; v++)
        zero[n + v] = 1;
    layer = xmalloc((n + nv + 1) * sizeof *layer);
    size_t clen;
    if (order_layers(n + nv, g.m, g.from, g.to, zero, layer, &cycle, &clen) < 0) {
        /* every edge of the cycle, as far as one line holds them (the message has room for about 1,500 bytes; a
         * cycle through 30,000 objects is named by its start, its length and its way back) */
        buf t = {0};
        buf_puts(&t, node_text(a, &g, vwave, cycle[0]));
        for (size_t k = 1; k <= clen; k++) {
            if (t.len > CYCLE_TEXT_MAX && k + 1 < clen) {
                buf_printf(&t, " -> ... (%zu more) -> %s", clen - k - 1, node_text(a, &g, vwave, cycle[clen - 1]));
                k = clen - 1;
                continue;
            }
            buf_puts(&t, " -> ");
            buf_puts(&t, node_text(a, &g, vwave, cycle[k % clen]));
        }
        const obj *at = &g.o[0];
        for (size_t k = clen; k-- > 0;)
            if (cycle[k] < n)
                at = &g.o[cycle[k]];
        obj_fail(a, at, arena_printf(a, "dependency cycle: %s", buf_cstr(&t)));
        buf_free(&t);
        goto done;
    }

    /* the waves: base 0 + layer, on every object of the four phases. The key and each wave's text are shared by
     * every object that has them (nothing edits the tree after this but the stamps, which add their own keys) */
    wave = xcalloc(n, sizeof *wave);
    uint32_t top = 0;
    for (uint32_t i = 0; i < n; i++)
        if (g.o[i].phase != NONE && layer[i] > top)
            top = layer[i];
    const char **texts = xcalloc((size_t)top + 1, sizeof *texts);
    for (uint32_t i = 0; i < n; i++) {
        obj *o = &g.o[i];
        if (o->phase == NONE)
            continue;
        wave[i] = layer[i];
        if (!texts[layer[i]])
            texts[layer[i]] = wave_text(a, layer[i]);
        node *md = map_ensure_map(a, o->r->root, "metadata");
        node *an = md ? map_ensure_map(a, md, "annotations") : NULL;
        if (an)
            map_set_str_ref(a, an, WAVE, texts[layer[i]]);
    }
    xfree(texts);
    /* a custom resource whose type neither the output nor the cluster has: Argo CD's dry run would fail on it */
    for (uint32_t i = 0; i < n; i++)
        if (g.o[i].custom && !g.o[i].crd_here && !api_served(&g.sc, &api, g.o[i].r))
            skip_dry_run(a, g.o[i].r);
    /* the health gap: kpt waits for a dependency to be reconciled, Argo CD only for kinds it can assess; one
     * warning per kind (a custom one: built-in kinds without a check are ready once applied) */
    strmap warned;
    sm_init(&warned, 16);
    for (size_t e = 0; e < g.m; e++) {
        if (g.to[e] >= n || g.from[e] >= n || !g.expl[e])
            continue;
        const obj *d = &g.o[g.to[e]];
        if (!d->custom || health_known(d->group, d->kind, opt->health_kinds) ||
            !sm_put(&warned, type_key(a, d->group, d->kind), 0))
            continue;
        diag_warn("ordering: %s has no Argo CD health check; wave %u will start without waiting for it (kpt would "
                  "wait until it is reconciled; give Argo CD a health check and name %s/%s in CMP_GENERATE_HEALTH_KINDS)",
                  obj_text(a, d), wave[g.to[e]] + 1, shown(a, d->group), shown(a, d->kind));
    }
    sm_free(&warned);
    /* apply order: phase, wave, cli-utils' kind order, group, kind, namespace, name */
    order = xmalloc(n * sizeof *order);
    for (uint32_t i = 0; i < n; i++)
        order[i] = i;
    apply_ctx ac = {g.o, wave};
    msort(order, tmp, n, cmp_apply, &ac);
    for (size_t i = 0; i < n; i++)
        items->v[i] = g.o[order[i]].r;
    rc = 0;
done:
    xfree(tmp);
    xfree(order);
    xfree(wave);
    xfree(cycle);
    xfree(layer);
    xfree(zero);
    xfree(vwave);
    xfree(g.from);
    xfree(g.to);
    xfree(g.expl);
    xfree(g.o);
    xfree(g.mark);
    xfree(g.sc.p);
    sm_free(&g.ids);
    sm_free(&g.crds);
    sm_free(&api.m);
    return rc;
}
