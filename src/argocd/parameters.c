/* `cmp-generate parameters`: what Argo CD shows in the Parameters tab besides the static settings. The package's
 * setters (from its apply-setters configs) are announced as one map parameter with their current values, so a user
 * sees and overrides them. helm-values is announced with the values the package already passes to helm, commented
 * out: Argo CD's UI sends a parameter whole once one part of it is edited, so an announced default that were live
 * YAML would, on the first edit, pin every value the package sets (and revert values the package sets on top of the
 * chart's values.yaml). Commented out, the default applied unchanged sets nothing, and uncommenting one key
 * overrides that key alone. The other Helm parameters (helm-value-files, helm-parameters, helm-release-name, the
 * skip switches) are announced next to it, with defaults that change nothing. ordering (kpt's depends-on as sync
 * waves) is announced for a package whose objects ask for it. The output is always a JSON array, even for a broken
 * package. */
#include "argocd/parameters.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "settings/host.h"
#include "settings/settings.h"
#include "order/order.h"
#include "flux/flux.h"
#include "package/package.h"
#include "pipeline/kptfile.h"
#include "pipeline/sources.h"
#include "util/diag.h"
#include "util/fsutil.h"
#include "yaml/emit.h"
#include "yaml/load.h"

static const node *config_of(package *p, const step *s)
{
    if (s->config_map)
        return s->config_map;
    if (!s->config_path)
        return NULL;
    for (size_t i = 0; i < p->own.n; i++)
        if (!strcmp(p->own.v[i]->path, s->config_path))
            return map_get(p->own.v[i]->root, "data");
    return NULL;
}

/* A YAML map from a file inside dir, or NULL (an announcement is best effort: anything unreadable is left out). */
static node *values_file(arena *a, strtab *st, const char *dir, const char *rel)
{
    if (!rel || !safe_relative_path(rel))
        return NULL;
    const char *path = arena_printf(a, "%s/%s", dir, rel);
    char *text;
    size_t len;
    node *n = NULL;
    diag_detail unreadable; /* dropped: the file is left out of the announcement */
    diag_detail *outer = diag_capture(&unreadable);
    if (file_exists(path) && inside(dir, path) && read_text_file(host_limits(), path, rel, &text, &len) == 0) {
        if (yaml_load_one(a, st, limits_yaml(host_limits()), rel, text, len, &n) < 0)
            n = NULL;
        xfree(text);
    }
    diag_restore(outer);
    return is_map(n) ? n : NULL;
}

/* Helm's coalescing of values files: maps merge key by key, anything else replaces, null removes the key. */
static node *coalesce(arena *a, node *base, const node *over)
{
    if (!is_map(over))
        return base;
    if (!is_map(base))
        base = node_map(a);
    map_foreach(over, i, key, v) { /* the deletes are base's, not over's */
        const char *k = scalar(key);
        if (!k)
            continue;
        if (is_null(v))
            map_delete(base, k);
        else if (is_map(v) && is_map(map_get(base, k)))
            coalesce(a, map_get(base, k), v);
        else
            map_set(a, base, k, node_clone(a, v));
    }
    return base;
}

typedef struct announced_values {
    node *values; /* what the package passes, merged as helm merges it */
    bool remote;  /* the chart is fetched: its own values.yaml is not here to show */
    bool urls;    /* some values files are URLs, not shown */
} announced_values;

static void add_files(arena *a, strtab *st, const char *dir, announced_values *v, const node *seq, const char *csv)
{
    seq_foreach(seq, i, item) {
        const char *f = scalar(item);
        if (f && (!strncmp(f, "https://", 8) || !strncmp(f, "http://", 7)))
            v->urls = true;
        else
            v->values = coalesce(a, v->values, values_file(a, st, dir, f));
    }
    for (const char *p = csv; p && *p;) {
        size_t len = strcspn(p, ",");
        const char *f = arena_strndup(a, p, len);
        p += len + (p[len] == ',');
        if (!strncmp(f, "https://", 8) || !strncmp(f, "http://", 7))
            v->urls = true;
        else if (*f)
            v->values = coalesce(a, v->values, values_file(a, st, dir, f));
    }
}

/* The values one render-helm-chart step passes: the chart's values.yaml (a local chart), then its values files and
 * inline values in the order render-helm-chart gives them to helm (valuesMerge: override, merge or replace). */
static void step_values(arena *a, strtab *st, package *p, const step *s, announced_values *v)
{
    const node *cfg = config_of(p, s);
    const node *chart = NULL, *files = NULL, *inl = NULL;
    const char *name = NULL, *home = NULL, *repo = NULL, *csv = NULL, *merge = NULL;
    if (s->config_map) {
        name = path_str(cfg, "name", NULL);
        home = path_str(cfg, "chartHome", NULL);
        repo = path_str(cfg, "repo", NULL);
        csv = path_str(cfg, "valuesFiles", NULL);
    } else if (s->config_path) {
        for (size_t k = 0; k < p->own.n && !chart; k++) {
            if (strcmp(p->own.v[k]->path, s->config_path))
                continue;
            chart = path_get(p->own.v[k]->root, "helmCharts", NULL);
            chart = is_seq(chart) && node_len(chart) ? seq_item(chart, 0) : NULL;
            home = path_str(chart, "chartHome", NULL);
            if (!home)
                home = path_str(p->own.v[k]->root, "helmGlobals", "chartHome", NULL);
        }
        name = path_str(chart, "chartArgs", "name", NULL);
        repo = path_str(chart, "chartArgs", "repo", NULL);
        const node *vals = path_get(chart, "templateOptions", "values", NULL);
        files = map_get(vals, "valuesFiles");
        inl = map_get(vals, "valuesInline");
        merge = path_str(vals, "valuesMerge", NULL);
    }
    if (!name)
        return;
    v->values = node_map(a);
    if (repo && *repo) {
        v->remote = true;
    } else if (!strcmp(name, ".")) {
        v->values = coalesce(a, v->values, values_file(a, st, p->abs, "values.yaml"));
    } else if (safe_relative_path(name) && (!home || safe_relative_path(home))) {
        node *cv = values_file(a, st, p->abs, arena_printf(a, "%s/values.yaml", name));
        if (!cv)
            cv = values_file(a, st, p->abs, arena_printf(a, "%s/%s/values.yaml", home ? home : "charts", name));
        v->values = coalesce(a, v->values, cv);
    }
    bool has_inline = is_map(inl) && node_len(inl);
    if (has_inline && merge && !strcmp(merge, "merge"))
        v->values = coalesce(a, v->values, inl);
    if (!has_inline || !merge || strcmp(merge, "replace"))
        add_files(a, st, p->abs, v, files, csv);
    if (has_inline && (!merge || strcmp(merge, "merge")))
        v->values = coalesce(a, v->values, inl);
}

static void collect(arena *a, strtab *st, package *p, node *setters, announced_values *hv, bool *ordered)
{
    for (size_t i = 0; i < p->own.n && !*ordered; i++)
        *ordered = p->own.v[i] && order_wanted(p->own.v[i]);
    pipeline pl;
    diag_detail bad_pipeline; /* dropped: the render reports it; the announcement leaves this package's steps out */
    diag_detail *outer = diag_capture(&bad_pipeline);
    int rc = kptfile_pipeline(a, p, &pl);
    diag_restore(outer);
    if (rc == 0) {
        for (size_t i = 0; i < pl.n; i++) {
            if (!strcmp(pl.steps[i].fn->name, "render-helm-chart") && !hv->values)
                step_values(a, st, p, &pl.steps[i], hv);
            if (strcmp(pl.steps[i].fn->name, "apply-setters"))
                continue;
            const node *d = config_of(p, &pl.steps[i]);
            map_foreach(d, k, mk, mv) {
                const char *key = scalar(mk), *val = scalar(mv);
                if (key && val && !map_get(setters, key))
                    map_set(a, setters, key, node_str(a, val));
            }
        }
    }
    for (size_t i = 0; i < p->nsubs; i++)
        collect(a, st, p->subs[i], setters, hv, ordered);
}

/* Does the package or a subpackage hold a Flux HelmRelease? Then flux-helmrelease is announced. */
static bool holds_helmrelease(const package *p)
{
    for (size_t i = 0; p && i < p->own.n; i++)
        if (p->own.v[i] && flux_is_helmrelease(p->own.v[i]))
            return true;
    for (size_t i = 0; p && i < p->nsubs; i++)
        if (holds_helmrelease(p->subs[i]))
            return true;
    return false;
}

/* The helm-values default: a header, then the values with every line commented out. */
static const char *commented_values(arena *a, const announced_values *v)
{
    buf b = {0};
    buf_puts(&b, "# The values this package passes to helm, for reference (uncomment a key and change it to override it\n"
                 "# for this Application; left as it is, this sets nothing).\n");
    if (v->remote)
        buf_puts(&b, "# The chart is fetched from its repository: its own values.yaml is not shown.\n");
    if (v->urls)
        buf_puts(&b, "# Values files given as URLs are not shown.\n");
    buf y = {0};
    if (is_map(v->values) && node_len(v->values)) {
        emit_opts eo = {.seq_wide = false, .comments = true};
        emit_yaml(&y, v->values, &eo);
    }
    for (const char *s = buf_cstr(&y); *s;) {
        size_t n = strcspn(s, "\n");
        buf_puts(&b, n ? "# " : "#");
        buf_put(&b, s, n);
        buf_putc(&b, '\n');
        s += n + (s[n] == '\n');
    }
    const char *out = arena_strndup(a, buf_cstr(&b), b.len);
    buf_free(&y);
    buf_free(&b);
    return out;
}

int print_parameters(const char *dir, buf *out)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    package *root = NULL;
    /* documents that are not objects (values files) do not matter for announcements; the charts and overlays the
     * steps render are read as a render reads them */
    fn_host host;
    host_from_env(&host);
    host_find_repo_root(a, &host, dir);
    step_sources sources = {.host = &host};
    load_ctx lc = {.a = a, .st = st, .limits = host.limits, .defer_non_krm = true, .keep_lists = true,
                   .step_source = step_source, .step_source_ud = &sources};
    node *setters = node_map(a);
    announced_values hv = {0};
    bool ordered = false; /* an object asks for kpt's ordering: the ordering parameter is announced */
    int rc = 0;
    if (!file_exists(path_join(a, dir, "Kptfile")) && file_exists(path_join(a, dir, "Chart.yaml"))) {
        /* a chart rendered by convention (no Kptfile): its values.yaml is what helm gets */
        char real[PATH_MAX];
        package p = {.abs = realpath(dir, real) ? real : dir, .rel = ""};
        step s = {.config_map = node_map(a)};
        map_set(a, (node *)s.config_map, "name", node_str(a, "."));
        step_values(a, st, &p, &s, &hv);
    } else if (!file_exists(path_join(a, dir, "Kptfile"))) {
        /* a Kustomize overlay or plain YAML: nothing to announce */
    } else if (package_load(&lc, dir, true, &root) < 0) {
        rc = -1;
    } else {
        collect(a, st, root, setters, &hv, &ordered);
    }
    if (rc == 0 && diag_failed())
        rc = -1;
    buf_putc(out, '[');
    if (node_len(setters)) {
        buf_puts(out, "{\"name\":\"setters\",\"title\":\"Setters\",\"tooltip\":");
        json_quote(out, "The package's apply-setters values; change one to override it for this Application.");
        buf_puts(out, ",\"collectionType\":\"map\",\"map\":{");
        map_foreach(setters, i, key, val) {
            if (i)
                buf_putc(out, ',');
            json_quote(out, scalar(key));
            buf_putc(out, ':');
            json_quote(out, scalar(val));
        }
        buf_puts(out, "}}");
    }
    if (hv.values) {
        if (node_len(setters))
            buf_putc(out, ',');
        buf_puts(out, "{\"name\":\"helm-values\",\"title\":\"Helm values\",\"tooltip\":");
        json_quote(out, "YAML merged over the values the package passes to helm: only the keys you set change. The "
                        "default lists those values, commented out.");
        buf_puts(out, ",\"collectionType\":\"string\",\"string\":");
        json_quote(out, commented_values(a, &hv));
        buf_putc(out, '}');
        /* Argo CD's other Helm source fields, for a package that renders charts. Their defaults set nothing: no
         * files, no parameters, the default release name, "false" switches that only ever take away. */
        for (int i = 0; i < setting_count; i++) {
            if (strncmp(setting_defs[i].name, "helm-", 5) || !strcmp(setting_defs[i].name, "helm-values"))
                continue;
            buf_putc(out, ',');
            settings_announce_one_json(out, &setting_defs[i]);
        }
    }
    int announced_flux = 0;
    if (holds_helmrelease(root)) {
        for (int i = 0; i < setting_count; i++) {
            if (strncmp(setting_defs[i].name, "flux-", 5))
                continue;
            if (node_len(setters) || hv.values || announced_flux++)
                buf_putc(out, ',');
            settings_announce_one_json(out, &setting_defs[i]);
        }
    }
    if (ordered) {
        for (int i = 0; i < setting_count; i++) {
            if (strcmp(setting_defs[i].name, "ordering"))
                continue;
            if (node_len(setters) || hv.values || announced_flux)
                buf_putc(out, ',');
            settings_announce_one_json(out, &setting_defs[i]);
        }
    }
    buf_puts(out, "]\n");
    xfree(lc.non_krm);
    step_sources_free(&sources);
    package_free(root);
    strtab_release(st);
    arena_free(a);
    return rc;
}
