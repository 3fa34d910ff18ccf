#include "render/render.h"

#include <limits.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "settings/host.h"
#include "argocd/metadata.h"
#include "argocd/overrides.h"
#include "settings/settings.h"
#include "flux/flux.h"
#include "git/git.h"
#include "order/order.h"
#include "package/package.h"
#include "pipeline/attribution.h"
#include "pipeline/executor.h"
#include "pipeline/sources.h"
#include "pipeline/writeback.h"
#include "render/deadline.h"
#include "render/inplace.h"
#include "render/results.h"
#include "render/spool.h"
#include "util/diag.h"
#include "util/fsutil.h"
#include "yaml/emit.h"
#include "yaml/load.h"

static void emit_one(buf *b, const resource *r, bool json, bool first)
{
    if (json) {
        emit_json(b, r->root);
        buf_putc(b, '\n');
        return;
    }
    if (!first)
        buf_puts(b, "---\n");
    emit_opts eo = {.seq_wide = r->seq_wide, .comments = true};
    emit_yaml(b, r->root, &eo);
}

static int write_failed(void)
{
    return fail(NULL, 0, "cannot write the output: %s", strerror(errno));
}

static int write_fd(int fd, const char *p, size_t n)
{
    return write_all(fd, p, n) < 0 ? write_failed() : 0;
}

static int over_limit(size_t max_output)
{
    return fail(NULL, 0, "output is over %zu bytes (max-output-bytes; Argo CD rejects responses over its gRPC limit; raise it with CMP_MAX_OUTPUT_BYTES)",
                max_output);
}

/* The one emit, into a buffer (out_fd < 0: callers that want the output in memory). */
static int emit_to_buf(const rlist *items, bool json, size_t max_output, buf *out)
{
    size_t start = out->len;
    for (size_t i = 0; i < items->n; i++) {
        emit_one(out, items->v[i], json, i == 0);
        if (out->len - start > max_output)
            return over_limit(max_output);
    }
    return 0;
}

/* The one emit, for a descriptor: nothing may be written unless all of it fits the output limit, and the whole
 * stream may not sit in memory beside the tree (16 MB beside 50 MB at 30,000 objects). So each document is emitted
 * once into a spool (render/spool.h): in memory up to EMIT_MEMORY bytes, else into an unnamed file in TMPDIR, in
 * pieces of that size; emit_write sends it out once the render can no longer fail.
 * EMIT_MEMORY is 64 KiB, what the emit held before it had a spool: the emit runs at the render's peak (the whole
 * tree is alive), so every byte of memory it keeps adds to the peak RSS (1 MiB measured +0.9 MB at 30,000 objects).
 * An output that fits (about 70 objects) never touches the disk; a larger one costs one temporary file. */
enum { EMIT_MEMORY = 64 * 1024 };
static int emit_stage(const rlist *items, bool json, size_t max_output, spool *s)
{
    for (size_t i = 0; i < items->n; i++) {
        emit_one(spool_buf(s), items->v[i], json, i == 0);
        spool_settle(s);
        if (s->total > max_output)
            return over_limit(max_output);
    }
    spool_finish(s);
    return 0;
}

static int emit_write(const rlist *items, bool json, spool *s, int fd)
{
    if (!s->lost)
        return spool_write(s, fd) < 0 ? write_failed() : 0;
    /* No temporary file could be made (TMPDIR missing, read-only or full): rather than fail a render that fits,
     * emit_stage only measured and the documents are emitted a second time, straight to fd, in pieces of about
     * EMIT_MEMORY bytes (the render's speed is the price, never its memory). */
    buf *scratch = &s->mem; /* empty: its memory is reused */
    /* Room for all that is held between two writes, taken before the first byte goes out: once one has, nothing may
     * fail, and a buffer that grew here could go past the memory budget (util/arena.h) with half the output out. */
    buf_reserve(scratch, EMIT_MEMORY + s->largest + 64);
    int rc = 0;
    for (size_t i = 0; i < items->n && rc == 0; i++) {
        emit_one(scratch, items->v[i], json, i == 0);
        if (scratch->len >= EMIT_MEMORY || i + 1 == items->n) {
            rc = write_fd(fd, scratch->data, scratch->len);
            scratch->len = 0;
        }
    }
    return rc;
}

/* With a Kptfile: the package and its pipeline. Without one (Argo CD named the plugin for a plain path): a
 * Chart.yaml means a Helm chart, a kustomization a Kustomize overlay, anything else a directory of YAML and JSON
 * read recursively. */
static int load_or_convention(load_ctx *lc, run_ctx *R, const render_opts *o, package **root, rlist *items,
                              inplace_before **before)
{
    arena *a = lc->a;
    char *kptfile = path_join(a, o->dir, "Kptfile");
    /* Outside Argo CD a missing Kptfile is more likely the wrong directory than a plain one: say so, unless asked. */
    if (file_exists(kptfile) || o->in_place || (!o->convention && !R->host->app_name)) {
        lc->defer_non_krm = true;
        if (package_load(lc, o->dir, true, root) < 0) {
            xfree(lc->non_krm); /* settle_non_krm frees it on every other path */
            lc->non_krm = NULL;
            return -1;
        }
        if (settle_non_krm(lc) < 0)
            return -1;
        if (o->in_place)
            *before = inplace_remember(a, *root);
        /* the package is read: its distinct short values need no slots through the pipeline (issue #32) */
        strtab_reset(lc->st);
        if (hydrate(R, *root, items) < 0)
            return -1;
        /* kpt fn render marks Config Connector objects once every pipeline has run; a render by convention is
         * no kpt render, and the Argo CD parameters (labels, annotations...) still come after */
        if (R->attribution)
            attribution_apply(a, items);
        writeback_clear_empty_annotations(items);
        return 0;
    }
    const char *fn = NULL, *key = NULL, *origin = NULL;
    static const char *const overlay_files[] = {"kustomization.yaml", "kustomization.yml", "Kustomization"};
    if (file_exists(path_join(a, o->dir, "Chart.yaml")))
        fn = "render-helm-chart", key = "name", origin = "Chart.yaml";
    else if (is_source_dir(a, o->dir)) {
        fn = "kustomize-build", key = "path";
        for (size_t i = 0; i < sizeof overlay_files / sizeof *overlay_files && !origin; i++)
            if (file_exists(path_join(a, o->dir, overlay_files[i])))
                origin = overlay_files[i];
    }
    if (!fn) {
        lc->directory_source = true;
        if (package_load(lc, o->dir, false, root) < 0)
            return -1;
        return hydrate(R, *root, items);
    }
    char real[PATH_MAX];
    if (!realpath(o->dir, real))
        return fail(o->dir, 0, "directory not found");
    package *p = arena_alloc(a, sizeof *p);
    p->abs = arena_strdup(a, real);
    p->rel = "";
    *root = p;
    node *data = node_map(a);
    map_set(a, data, key, node_str(a, "."));
    /* no Kptfile to blame: messages about the step name the file that made us pick it */
    step s = {.ref = fn, .fn = fn_lookup(fn), .config_map = data, .origin = origin,
              .label = arena_printf(a, "%s (no Kptfile: %s)", fn, !strcmp(key, "name") ? "Helm chart" : "Kustomize overlay")};
    return run_step(R, p, &s, items);
}

/* The Application's metadata: Argo CD's environment; outside Argo CD (no ARGOCD_APP_NAME), whatever is missing
 * comes from the git repository holding the package, so a local dry run shows what the sidecar would stamp. */
static int app_metadata(arena *a, const render_opts *o, const fn_host *host, const settings *set, app_meta *meta)
{
    if (o->no_git_metadata)
        return 0;
    bool found;
    gitsrc_env genv;
    host_git_env(&genv);
    if (!host->app_name) {
        gitsrc_meta g = {meta->name, meta->namespace, meta->project, meta->revision, meta->repo,
                         meta->target_revision, meta->path};
        if (gitsrc_app_meta(a, &genv, o->dir, meta_value_check, &g, &found) < 0)
            return -1;
        meta->name = g.name, meta->namespace = g.namespace, meta->project = g.project, meta->revision = g.revision;
        meta->repo = g.repo, meta->target_revision = g.target_revision, meta->path = g.path;
    }
    /* opt-in: the repository's history, from the copy Argo CD sends (.git included unless the operator excludes it) */
    if (settings_stamps(set, "package-revision"))
        return gitsrc_path_revision(a, &genv, host->app_name ? host->repo_root : NULL, o->dir, meta->revision,
                                   &meta->package_revision);
    return 0;
}

/* The end of every run, failed or not: the results file when asked for (a run that cannot write it fails), then
 * everything freed. */
static int finish(const char *results_dir, run_ctx *R, rlist *items, package *root, strtab *st, arena *a, int rc)
{
    if (results_dir && write_results(R, results_dir, rc < 0) < 0)
        rc = -1;
    rlist_free(items);
    run_ctx_free(R);
    package_free(root);
    strtab_release(st);
    arena_free(a);
    return rc;
}

#define ALLOW_EMPTY "cmp-generate.dev/allow-empty"

/* Argo CD takes empty output as "this Application has no objects" and, with automated pruning, deletes every live
 * one. A render that comes out empty is therefore an error unless the package says it means it, with
 * cmp-generate.dev/allow-empty: "true" on its Kptfile. */
static int check_not_empty(const render_opts *o, const package *root, const rlist *items)
{
    if (items->n)
        return 0;
    const resource *k = root ? root->kptfile : NULL;
    const char *v = k ? res_annotation(k, ALLOW_EMPTY) : NULL;
    if (v && !strcmp(v, "true"))
        return 0;
    if (v && strcmp(v, "false"))
        return fail("Kptfile", (int)k->line, "annotation %s must be \"true\" or \"false\", got \"%s\"", ALLOW_EMPTY, v);
    if (k)
        return fail("Kptfile", 0, "the package rendered no objects, and Argo CD would prune every live object of the "
                                  "Application; if that is meant, annotate the Kptfile with %s: \"true\"",
                    ALLOW_EMPTY);
    return fail(o->dir, 0, "nothing to deploy: no objects were rendered, and Argo CD would prune every live object of "
                           "the Application (only a kpt package can allow that, with %s: \"true\" on its Kptfile)",
                ALLOW_EMPTY);
}

static bool stamp_enabled(const void *ud, const char *key)
{
    return settings_stamps(ud, key);
}

int render(const render_opts *o, buf *out)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    package *root = NULL;
    rlist items = {0};
    fn_host host;
    host_from_env(&host);
    run_ctx R = {.a = a, .st = st, .host = &host, .flatten_lists = !o->in_place};
    R.results.step_only = !o->results_dir; /* only results.yaml reads them */
    settings set;
    app_meta meta;
    int rc = -1;
    host_find_repo_root(a, &host, o->dir);
    const char *results_dir = o->results_dir;

    diag_set_step("parameters");
    /* checked before anything runs: helm gets the app name and namespace */
    if (host_app_meta(a, &meta) < 0)
        goto done;
    if (o->in_place) {
        /* like kpt fn render, which reads KPT_DISABLE_ATTRIBUTION and nothing else of ours */
        const char *off;
        if (settings_load_one(a, st, "kpt-disable-attribution", &off) < 0)
            goto done;
        R.attribution = !(off && *off);
    } else {
        if (settings_load(a, st, &set) < 0 || check_annotation_domain(set.annotation_domain) < 0)
            goto done;
        R.attribution = set.kpt_attribution;
        if (deadline_start_render(o->dir, set.timeout_seconds, host.app_name != NULL) < 0)
            goto done;
        R.setter_overrides = set.setters;
        R.setter_key = set.setters_escaped ? settings_escape : NULL;
        host.helm_values = set.helm_values;
        if (host_helm_parameters(a, &host, &set) < 0)
            goto done;
    }
    diag_set_step("read");
    /* the Application's value files are values, not resources, wherever they are; the charts and overlays a step
     * renders are that step's */
    step_sources sources = {.host = &host};
    load_ctx lc = {.a = a, .st = st, .limits = host.limits, .keep_lists = true, .values_files = host.helm_value_files,
                   .step_source = step_source, .step_source_ud = &sources};
    inplace_before *before = NULL;
    rc = load_or_convention(&lc, &R, o, &root, &items, &before);
    step_sources_free(&sources);
    if (rc < 0)
        goto done;
    rc = -1;
    if (o->in_place) {
        diag_set_step("write");
        rc = write_in_place(a, root, &items, before);
        goto done;
    }
    diag_set_step("parameters");
    if (check_setters_used(&R) < 0)
        goto done;
    drop_unapplied(&items, o->keep_config);
    /* Flux HelmReleases become their manifests before the parameters' final steps, which then apply to them too */
    diag_set_step("flux-helmrelease");
    /* a GitRepository source is read from the checkout only when it is the Application's own repository and
     * revision: outside Argo CD, git's view of the checkout (as the stamps take it later) */
    if (!host.app_name && !o->no_git_metadata && set.flux_helmrelease && !strcmp(set.flux_helmrelease, "render")) {
        bool found;
        gitsrc_env genv;
        host_git_env(&genv);
        gitsrc_meta g = {meta.name, meta.namespace, meta.project, meta.revision, meta.repo, meta.target_revision,
                         meta.path};
        if (gitsrc_app_meta(a, &genv, o->dir, meta_value_check, &g, &found) < 0)
            goto done;
        meta.revision = g.revision, meta.repo = g.repo, meta.target_revision = g.target_revision;
    }
    flux_step fs = {.a = a, .st = st, .host = &host, .results = &R.results, .mode = set.flux_helmrelease,
                    .annotation_domain = set.annotation_domain, .lock = set.flux_lock, .dir = o->dir,
                    .app_repo = meta.repo, .app_revision = meta.revision, .app_target_revision = meta.target_revision};
    if (flux_helmreleases(&fs, &items) < 0)
        goto done;
    diag_set_step("parameters");
    if (apply_final_steps(&R, root, &items, &set) < 0)
        goto done;
    /* kpt's apply order as sync waves, on exactly the objects that will be printed (--print-env prints none) */
    diag_set_step("ordering");
    order_opts oo = {.mode = set.ordering, .default_namespace = host.app_namespace,
                     .kube_api_versions = host.kube_api_versions, .health_kinds = host.health_kinds};
    if (!o->print_env && order_apply(a, &items, &oo) < 0)
        goto done;
    /* nothing interns from here on (the functions, Flux's charts and the parameters' steps are done): the lookup
     * table, a slot for every distinct short text, goes before the stamps and the emit; the strings stay */
    strtab_release(st);
    diag_set_step("output");
    if (check_argocd_reading(a, &items) < 0 || (!o->print_env && check_not_empty(o, root, &items) < 0))
        goto done;
    diag_set_step("annotate");
    if (app_metadata(a, o, &host, &set, &meta) < 0)
        goto done;
    if (o->print_env) {
        buf env = {0};
        gitsrc_meta g = {meta.name, meta.namespace, meta.project, meta.revision, meta.repo, meta.target_revision,
                         meta.path};
        gitsrc_meta_env(&env, &g);
        rc = o->out_fd >= 0 ? write_fd(o->out_fd, env.data ? env.data : "", env.len) : 0;
        if (o->out_fd < 0 && out)
            buf_put(out, env.data ? env.data : "", env.len);
        buf_free(&env);
        goto done;
    }
    stamp_metadata(a, &items, &meta, set.annotation_domain, stamp_enabled, &set);
    diag_set_step("emit");
    spool sp;
    spool_init(&sp, host.tmpdir, EMIT_MEMORY);
    size_t max_output = host.limits->max_output_bytes;
    rc = o->out_fd >= 0 ? emit_stage(&items, o->json, max_output, &sp) : emit_to_buf(&items, o->json, max_output, out);
    /* the results file goes before the output: once the output is out, nothing may fail any more */
    if (rc == 0 && results_dir && write_results(&R, results_dir, 0) < 0)
        rc = -1, results_dir = NULL;
    if (rc == 0 && o->out_fd >= 0)
        rc = emit_write(&items, o->json, &sp, o->out_fd);
    spool_free(&sp);
    if (rc == 0)
        results_dir = NULL;
    /* only on success: a failed render says one thing on stderr, its error */
    if (rc == 0 && set.unknown)
        diag_warn("parameters: ignoring %s (known: %s)", set.unknown, settings_names(a));
done:
    return finish(results_dir, &R, &items, root, st, a, rc);
}

/* eval sees the tree as one flat list with root-relative paths: re-home every resource on the root package. */
static void flatten(arena *a, package *root, package *p, rlist *out)
{
    for (size_t i = 0; i < p->own.n; i++) {
        resource *r = p->own.v[i];
        if (p != root) {
            r->path = arena_printf(a, "%s/%s", p->rel, r->path);
            r->pkg = root;
        }
        rlist_push(out, r);
    }
    for (size_t i = 0; i < p->nsubs; i++)
        flatten(a, root, p->subs[i], out);
}

int eval_in_place(const eval_opts *o)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    package *root = NULL;
    rlist items = {0};
    fn_host host;
    host_from_env(&host);
    run_ctx R = {.a = a, .st = st, .host = &host};
    int rc = -1;
    host_find_repo_root(a, &host, o->dir);
    step s = {.ref = o->fn, .label = arena_printf(a, "eval (%s)", fn_basename(a, o->fn))};
    diag_set_step("read");
    s.fn = fn_lookup(fn_basename(a, o->fn));
    if (!s.fn) {
        fail(NULL, 0, "unknown function \"%s\"; built-in functions: %s", o->fn, fn_names(a));
        goto done;
    }
    fn_version_resolve(a, s.fn->name, fn_ref_tag(a, o->fn), NULL, &s.version, &s.version_warning);
    /* written back in place: a List stays a List; the charts and overlays the package's steps render are left
     * alone, as a render leaves them */
    step_sources sources = {.host = &host};
    load_ctx lc = {.a = a, .st = st, .limits = host.limits, .keep_lists = true, .step_source = step_source,
                   .step_source_ud = &sources};
    rc = package_load(&lc, o->dir, false, &root);
    step_sources_free(&sources);
    if (rc < 0)
        goto done;
    rc = -1;
    /* the root's own list becomes the whole tree, so a package-less run can still write back by path */
    flatten(a, root, root, &items);
    for (size_t i = 0; i < root->nsubs; i++)
        package_free(root->subs[i]);
    root->nsubs = 0;
    rlist_free(&root->own);
    for (size_t i = 0; i < items.n; i++)
        rlist_push(&root->own, items.v[i]);
    inplace_before *before = inplace_remember(a, root);
    node *config = NULL;
    if (o->fn_config) {
        char *text;
        size_t len;
        if (read_text_file(host.limits, o->fn_config, o->fn_config, &text, &len) < 0)
            goto done;
        int lrc = yaml_load_one(a, st, limits_yaml(host.limits), o->fn_config, text, len, &config);
        xfree(text);
        if (lrc < 0)
            goto done;
        if (!config) {
            fail(o->fn_config, 0, "the function config file is empty");
            goto done;
        }
    } else if (o->nkv) {
        node *data = node_map(a);
        for (int i = 0; i < o->nkv; i++) {
            const char *eq = strchr(o->kv[i], '=');
            if (!eq) {
                fail(NULL, 0, "function argument \"%s\" is not key=value", o->kv[i]);
                goto done;
            }
            map_set(a, data, arena_strndup(a, o->kv[i], (size_t)(eq - o->kv[i])), node_str(a, eq + 1));
        }
        config = synthesize_config_map(a, data);
    }
    diag_set_step(s.label);
    if (s.version_warning) /* as a pipeline step says it: the eval goes on with the newest behaviour */
        diag_warn("%s: %s", s.label, s.version_warning);
    fn_ctx c = {.a = a, .st = st, .items = &items, .config = config, .pkg = root, .results = &R.results,
                .host = &host, .version = s.version};
    c.config_file = o->fn_config ? o->fn_config : "functionConfig";
    size_t first = R.results.n;
    rc = s.fn->run(&c);
    R.reports = xrealloc(R.reports, sizeof *R.reports);
    R.reports[R.nreports++] = (step_report){o->fn, false, rc < 0, first, R.results.n - first, c.failure_reported};
    rlist_compact(&items);
    if (rc == 0) {
        diag_set_step("write");
        writeback_clear_empty_annotations(&items); /* as kpt fn eval writes them */
        rc = write_in_place(a, root, &items, before);
    }
done:
    return finish(o->results_dir, &R, &items, root, st, a, rc);
}
