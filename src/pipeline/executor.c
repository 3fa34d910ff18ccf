#include "pipeline/executor.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pipeline/selector.h"
#include "util/diag.h"

static int find_config(run_ctx *R, package *p, const step *s, rlist *items, const node **out, const char **file, int *line)
{
    const char *display = p->rel && *p->rel ? arena_printf(R->a, "%s/%s", p->rel, s->config_path) : s->config_path;
    size_t count = 0;
    for (size_t i = 0; i < p->own.n; i++)
        if (!strcmp(p->own.v[i]->path, s->config_path))
            count++;
    const char *kf = p->rel && *p->rel ? arena_printf(R->a, "%s/Kptfile", p->rel) : "Kptfile";
    if (count == 0)
        return fail(kf, (int)s->line, "configPath \"%s\" is not a resource file of this package (missing, ignored, or in a subpackage)",
                    s->config_path);
    if (count > 1)
        return fail(display, 0, "configPath file must hold exactly one object, it holds %zu", count);
    for (size_t i = 0; i < items->n; i++) {
        resource *r = items->v[i];
        if (r && r->pkg == p && !strcmp(r->path, s->config_path)) {
            r->flags |= R_CONFIG;
            *out = r->root;
            *file = display;
            *line = (int)r->line;
            return 0;
        }
    }
    /* An earlier step removed it (remove-local-config-resources, a set-labels that drops local-config objects):
     * kpt runs the step with the file as it read it, so do we. */
    *out = s->config_copies->as_read;
    *file = display;
    *line = 0;
    for (size_t i = 0; i < p->own.n; i++)
        if (!strcmp(p->own.v[i]->path, s->config_path))
            *line = (int)p->own.v[i]->line;
    return 0;
}

void run_ctx_free(run_ctx *R)
{
    xfree(R->results.v);
    xfree(R->reports);
    xfree(R->setter_used);
    R->results.v = NULL;
    R->reports = NULL;
    R->setter_used = NULL;
}

/* Argo CD's setters parameter: replaces values of setters the config already defines (on our copy of it). */
static void override_setters(run_ctx *R, node *config)
{
    node *data = map_get(config, "data");
    if (!is_map(data))
        return;
    const node *o = R->setter_overrides;
    if (!R->setter_used)
    {
        R->setter_used = xmalloc((node_len(o) + 1) * sizeof *R->setter_used);
        memset(R->setter_used, 0, (node_len(o) + 1) * sizeof *R->setter_used);
    }
    map_foreach(o, i, key, val) {
        const char *k = scalar(key);
        if (k && R->setter_key) {
            map_foreach(data, d, mk, v) {
                const char *name = scalar(mk);
                if (name && !strcmp(R->setter_key(R->a, "", name), k)) {
                    map_set(R->a, data, name, node_str(R->a, scalar(val)));
                    R->setter_used[i] = true;
                }
            }
        } else if (k && map_get(data, k)) {
            map_set(R->a, data, k, node_str(R->a, scalar(val)));
            R->setter_used[i] = true;
        }
    }
}

/* Shared value nodes are safe only with functions that edit through the setters (fn_def.shares_values): any other
 * may write a value in place, and the mutators stop on a shared one. Its items, and its config (a copy of an item
 * may hold them), all of them (a step with selectors sees some), get their own copies first. The mark stays once
 * set: the items of one step are not all of them (a package's pipeline sees its own; bfs-rendering's root step
 * shared values in every package's), and a walk over trees already owned allocates nothing. */
static void own_values(run_ctx *R, const step *s, rlist *items, node *config)
{
    if (s->fn->shares_values) {
        R->shared_values = true;
        return;
    }
    if (!R->shared_values)
        return;
    for (size_t i = 0; i < items->n; i++)
        if (items->v[i])
            node_own_values(R->a, items->v[i]->root);
    node_own_values(R->a, config);
}

static int run_fn(run_ctx *R, const step *s, fn_ctx *c)
{
    size_t first = R->results.n;
    int rc = s->fn->run(c);
    R->reports = xrealloc(R->reports, (R->nreports + 1) * sizeof *R->reports);
    R->reports[R->nreports++] =
        (step_report){s->ref, s->is_exec, rc < 0 ? 1 : 0, first, R->results.n - first, c->failure_reported};
    if (R->results.step_only) {
        /* nobody reads them (no results file): a result on every object would otherwise stay to the render's
         * end, its peak (on the dense package, set-annotations' and set-namespace's were a quarter of it) */
        R->reports[R->nreports - 1].first = R->reports[R->nreports - 1].count = 0;
        xfree(R->results.v);
        R->results.v = NULL;
        R->results.n = R->results.cap = 0;
    }
    return rc;
}

int run_step(run_ctx *R, package *p, const step *s, rlist *items)
{
    diag_set_step(s->label);
    fn_ctx c = {.a = R->a, .st = R->st, .pkg = p, .results = &R->results, .validator = s->validator,
                .host = R->host, .version = s->version};
    if (s->missing) { /* read_package let it through: the operator's CMP_SKIP_VALIDATORS names it */
        const char *why = arena_printf(R->a, "validator %s is not built in and was skipped (CMP_SKIP_VALIDATORS): "
                                       "nothing checked what it would have checked", s->missing);
        diag_warn("%s: %s", s->label, why);
        size_t first = R->results.n;
        fn_result_add(&c, SEV_WARNING, NULL, NULL, "%s", why);
        R->reports = xrealloc(R->reports, (R->nreports + 1) * sizeof *R->reports);
        R->reports[R->nreports++] = (step_report){s->ref, s->is_exec, 0, first, R->results.n - first, false};
        return 0;
    }
    if (s->version_warning) /* the render goes on with the newest behaviour; the user should know */
        diag_warn("%s: %s", s->label, s->version_warning);
    c.config_file = s->origin                ? s->origin
                    : p && p->rel && *p->rel ? arena_printf(R->a, "%s/Kptfile", p->rel)
                                             : "Kptfile";
    c.config_line = (int)s->line;
    if (s->config_map) {
        c.config = synthesize_config_map(R->a, s->config_map);
    } else if (s->config_path) {
        const node *cfg = NULL;
        if (find_config(R, p, s, items, &cfg, &c.config_file, &c.config_line) < 0)
            return -1;
        /* A copy, as kpt hands a function its config: edits to the item do not reach the config mid-step. One
         * copy per object, brought up to date for each step that names it: a new copy per step made memory
         * steps x config (200 steps naming one 1 MB ConfigMap took 319 MB); the update costs memory only where
         * the object changed since the last step (the walk is O(config) time). The step that had it before is
         * over, and nothing keeps a node of it: functions copy nodes into items and share only texts, which
         * nothing edits in place. */
        config_copies *cc = s->config_copies;
        cc->last = cc->last ? node_refresh_copy(R->a, cc->last, cfg) : node_clone(R->a, cfg);
        c.config = cc->last;
    }
    if (R->setter_overrides && c.config && !strcmp(s->fn->name, "apply-setters"))
        override_setters(R, c.config);
    own_values(R, s, items, c.config);
    bool selecting = s->nselectors || s->nexcludes;
    if (!selecting && !s->validator) {
        c.items = items;
        int rc = run_fn(R, s, &c);
        rlist_compact(items);
        return rc;
    }
    rlist sub = {0};
    for (size_t i = 0; i < items->n; i++) {
        resource *r = items->v[i];
        if (!step_selects(s, r))
            continue;
        if (s->validator) {
            rlist_push(&sub, resource_clone(R->a, r));
        } else {
            r->flags |= R_SELECTED;
            rlist_push(&sub, r);
        }
    }
    c.items = &sub;
    int rc = run_fn(R, s, &c);
    if (s->validator || rc < 0) {
        for (size_t i = 0; i < items->n; i++)
            items->v[i]->flags &= (uint8_t)~R_SELECTED;
        rlist_free(&sub);
        return rc;
    }
    /* Merge back: unselected items keep their place, selected ones stay only if the function kept them, and
     * objects the function added go at the end. */
    for (size_t i = 0; i < sub.n; i++)
        if (sub.v[i])
            sub.v[i]->flags |= R_SURVIVED;
    size_t j = 0;
    for (size_t i = 0; i < items->n; i++) {
        resource *r = items->v[i];
        if (!(r->flags & R_SELECTED) || (r->flags & R_SURVIVED))
            items->v[j++] = r;
    }
    items->n = j;
    for (size_t i = 0; i < sub.n; i++)
        if (sub.v[i] && !(sub.v[i]->flags & R_SELECTED))
            rlist_push(items, sub.v[i]);
    for (size_t i = 0; i < items->n; i++)
        items->v[i]->flags &= (uint8_t)~(R_SELECTED | R_SURVIVED);
    rlist_free(&sub);
    return 0;
}

/* A List the loader kept whole, as the pipeline sees it: its items (what Argo CD will deploy), unless a step of
 * this package names its file as configPath (upsert-resource takes a List as its config). */
static void push_own(run_ctx *R, const pipeline *pl, resource *r, rlist *items)
{
    bool split = R->flatten_lists && (r->flags & R_LIST);
    for (size_t s = 0; split && s < pl->n; s++)
        if (pl->steps[s].config_path && !strcmp(pl->steps[s].config_path, r->path))
            split = false;
    if (!split) {
        rlist_push(items, r);
        return;
    }
    const node *list = map_get(r->root, "items");
    seq_foreach(list, i, item) {
        resource *ir = resource_new(R->a, item, r->pkg, r->path, r->index);
        ir->seq_wide = r->seq_wide;
        ir->line = node_line(item);
        rlist_push(items, ir);
    }
}

/* The package's pipeline, and its resources as its steps will see them. */
static int read_package(run_ctx *R, package *p, pipeline *pl, rlist *items)
{
    diag_set_step("read Kptfile");
    if (kptfile_pipeline(R->a, p, pl) < 0)
        return -1;
    /* a validator that is not built in fails the render here, before any step runs, unless the operator skips it */
    for (size_t s = 0; s < pl->n; s++) {
        const step *st = &pl->steps[s];
        if (st->missing && !fn_host_skips_validator(R->host, st->missing))
            return fail(st->missing_file, (int)st->line, "%s", st->missing_error);
    }
    /* one set of copies per object, however many steps name its file: a copy per step made memory steps x object
     * (400 steps naming a 1 MB ConfigMap took 1.2 GB) */
    config_copies **copies = NULL;
    for (size_t s = 0; s < pl->n; s++)
        for (size_t i = 0; pl->steps[s].config_path && i < p->own.n; i++)
            if (!strcmp(p->own.v[i]->path, pl->steps[s].config_path)) {
                if (!copies) {
                    copies = xmalloc(p->own.n * sizeof *copies);
                    memset(copies, 0, p->own.n * sizeof *copies);
                }
                if (!copies[i]) {
                    copies[i] = arena_alloc(R->a, sizeof *copies[i]);
                    *copies[i] = (config_copies){node_clone(R->a, p->own.v[i]->root), NULL};
                }
                pl->steps[s].config_copies = copies[i];
            }
    xfree(copies);
    for (size_t i = 0; i < p->own.n; i++)
        push_own(R, pl, p->own.v[i], items);
    return 0;
}

/* kpt's ToCondition: "true" in any case */
static bool bfs_rendering(const package *root)
{
    const char *v = root->kptfile ? res_annotation(root->kptfile, "kpt.dev/bfs-rendering") : NULL;
    return v && !strcasecmp(v, "true");
}

/* A package's place in the breadth-first order, found by its address (sorted), never by a scan: a scan per
 * object and per child made the walk cubic on a deep tree (1,000 nested packages over 8,000 leaves: 54 s). */
struct pkg_at {
    uintptr_t p;
    size_t i;
};

static int cmp_pkg_at(const void *a, const void *b)
{
    uintptr_t x = ((const struct pkg_at *)a)->p, y = ((const struct pkg_at *)b)->p;
    return x < y ? -1 : x > y;
}

static size_t index_of(const struct pkg_at *by_addr, size_t n, const package *p)
{
    struct pkg_at key = {(uintptr_t)p, 0};
    const struct pkg_at *hit = bsearch(&key, by_addr, n, sizeof *by_addr, cmp_pkg_at);
    return hit ? hit->i : n;
}

/* kpt.dev/bfs-rendering: "true" on the root Kptfile (kpt's hydrateBfsOrder): every package is read first, then
 * the pipelines run top-down in breadth-first order, each on its own resources followed by its descendants'
 * (as its ancestors left them), and each object goes back to the package it belongs to (an object a step made,
 * to the package of the step). The output is every package's resources in that breadth-first order.
 * all[] is that order, so a package's children are all[first[i]], all[first[i] + 1], ...; the work of one
 * package is its subtree's, never the whole tree's. */
static int hydrate_bfs(run_ctx *R, package *root, rlist *out)
{
    size_t n = 1;
    package **all = xmalloc(sizeof *all);
    size_t *first = xmalloc(sizeof *first);
    all[0] = root;
    for (size_t i = 0; i < n; i++) {
        all = xrealloc(all, (n + all[i]->nsubs) * sizeof *all);
        first = xrealloc(first, (n + all[i]->nsubs) * sizeof *first);
        first[i] = n;
        for (size_t c = 0; c < all[i]->nsubs; c++)
            all[n++] = all[i]->subs[c];
    }
    struct pkg_at *by_addr = xmalloc(n * sizeof *by_addr);
    for (size_t i = 0; i < n; i++)
        by_addr[i] = (struct pkg_at){(uintptr_t)all[i], i};
    qsort(by_addr, n, sizeof *by_addr, cmp_pkg_at);
    pipeline *pl = xmalloc(n * sizeof *pl);
    rlist *res = xmalloc(n * sizeof *res);
    size_t *mark = xmalloc(n * sizeof *mark); /* mark[k] == i + 1: k is i or below it, while i runs */
    size_t *below = xmalloc(n * sizeof *below);
    memset(res, 0, n * sizeof *res);
    memset(mark, 0, n * sizeof *mark);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = read_package(R, all[i], &pl[i], &res[i]);
    for (size_t i = 0; i < n && rc == 0; i++) {
        rlist input = {0};
        /* i, then its descendants depth-first in subpackage order (kpt's collectDescendants): a stack of indexes,
         * children pushed last first */
        size_t top = 0;
        below[top++] = i;
        while (top) {
            size_t k = below[--top];
            mark[k] = i + 1;
            for (size_t r = 0; r < res[k].n; r++)
                rlist_push(&input, res[k].v[r]);
            res[k].n = 0;
            for (size_t c = all[k]->nsubs; c-- > 0;)
                below[top++] = first[k] + c;
        }
        for (size_t s = 0; s < pl[i].n && rc == 0; s++)
            rc = run_step(R, all[i], &pl[i].steps[s], &input);
        for (size_t m = 0; m < input.n; m++) {
            size_t k = index_of(by_addr, n, input.v[m]->pkg);
            rlist_push(&res[k < n && mark[k] == i + 1 ? k : i], input.v[m]);
        }
        rlist_free(&input);
    }
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; rc == 0 && k < res[i].n; k++)
            rlist_push(out, res[i].v[k]);
        rlist_free(&res[i]);
    }
    xfree(below);
    xfree(mark);
    xfree(by_addr);
    xfree(res);
    xfree(pl);
    xfree(first);
    xfree(all);
    return rc;
}

int hydrate(run_ctx *R, package *p, rlist *out)
{
    if (!p->parent && bfs_rendering(p))
        return hydrate_bfs(R, p, out);
    pipeline pl;
    rlist items = {0};
    if (read_package(R, p, &pl, &items) < 0) {
        rlist_free(&items);
        return -1;
    }
    for (size_t i = 0; i < p->nsubs; i++) {
        rlist sub = {0};
        if (hydrate(R, p->subs[i], &sub) < 0) {
            rlist_free(&sub);
            rlist_free(&items);
            return -1;
        }
        for (size_t k = 0; k < sub.n; k++)
            rlist_push(&items, sub.v[k]);
        rlist_free(&sub);
    }
    for (size_t i = 0; i < pl.n; i++) {
        if (run_step(R, p, &pl.steps[i], &items) < 0) {
            rlist_free(&items);
            return -1;
        }
    }
    *out = items;
    return 0;
}
