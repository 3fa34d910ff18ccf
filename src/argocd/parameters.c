/* `cmp-generate parameters`: what Argo CD shows in the Parameters tab besides the static settings. The package's
 * setters (from its apply-setters configs) are announced as one map parameter with their current values, so a user
 * sees and overrides them. The output is always a JSON array, even for a broken package. */
#include "argocd/parameters.h"

#include <stdlib.h>
#include <string.h>

#include "argocd/settings.h"
#include "package/package.h"
#include "pipeline/kptfile.h"
#include "util/diag.h"
#include "util/fsutil.h"
#include "yaml/emit.h"

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

/* The chart a render-helm-chart step renders from the package, when it is local: its values.yaml text. */
static const char *local_chart_values(arena *a, package *p, const step *s)
{
    const node *cfg = config_of(p, s);
    const char *name = NULL, *home = NULL;
    if (s->config_map) {
        name = path_str(cfg, "name", NULL);
        home = path_str(cfg, "chartHome", NULL);
        if (path_str(cfg, "repo", NULL))
            return NULL;
    } else if (s->config_path) {
        for (size_t k = 0; k < p->own.n; k++) {
            if (strcmp(p->own.v[k]->path, s->config_path))
                continue;
            const node *chart = path_get(p->own.v[k]->root, "helmCharts", NULL);
            chart = is_seq(chart) && chart->c.n ? chart->c.kids[0] : NULL;
            if (path_str(chart, "chartArgs", "repo", NULL))
                return NULL;
            name = path_str(chart, "chartArgs", "name", NULL);
            home = path_str(chart, "chartHome", NULL);
            if (!home)
                home = path_str(p->own.v[k]->root, "helmGlobals", "chartHome", NULL);
        }
    }
    if (!name || !safe_relative_path(name) || (home && !safe_relative_path(home)))
        return NULL;
    const char *candidates[] = {arena_printf(a, "%s/%s/values.yaml", p->abs, name),
                                arena_printf(a, "%s/%s/%s/values.yaml", p->abs, home ? home : "charts", name)};
    for (int i = 0; i < 2; i++) {
        char *text;
        size_t len;
        if (file_exists(candidates[i]) && inside(p->abs, candidates[i]) &&
            read_text_file(candidates[i], candidates[i], &text, &len) == 0) {
            const char *v = arena_strndup(a, text, len);
            free(text);
            return v;
        }
        diag_clear();
    }
    return NULL;
}

static void collect(arena *a, package *p, node *setters, const char **helm_values)
{
    pipeline pl;
    if (kptfile_pipeline(a, p, &pl) == 0) {
        for (size_t i = 0; i < pl.n; i++) {
            if (!strcmp(pl.steps[i].fn->name, "render-helm-chart") && !*helm_values)
                *helm_values = local_chart_values(a, p, &pl.steps[i]);
            if (strcmp(pl.steps[i].fn->name, "apply-setters"))
                continue;
            const node *d = config_of(p, &pl.steps[i]);
            for (uint32_t k = 0; is_map(d) && k < d->c.n; k++) {
                const char *key = scalar(map_key(d, k)), *val = scalar(map_val(d, k));
                if (key && val && !map_get(setters, key))
                    map_set(a, setters, key, node_str(a, val));
            }
        }
    }
    for (size_t i = 0; i < p->nsubs; i++)
        collect(a, p->subs[i], setters, helm_values);
}

int print_parameters(const char *dir, buf *out)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    package *root = NULL;
    /* documents that are not objects (values files) do not matter for announcements */
    load_ctx lc = {.a = a, .st = st, .defer_non_krm = true};
    node *setters = node_map(a);
    const char *helm_values = NULL;
    int rc = 0;
    if (package_load(&lc, dir, true, &root) < 0)
        rc = -1;
    else
        collect(a, root, setters, &helm_values);
    if (rc == 0 && diag_failed())
        rc = -1;
    buf_putc(out, '[');
    if (setters->c.n) {
        buf_puts(out, "{\"name\":\"setters\",\"title\":\"Setters\",\"tooltip\":");
        json_quote(out, "The package's apply-setters values; change one to override it for this Application.");
        buf_puts(out, ",\"collectionType\":\"map\",\"map\":{");
        for (uint32_t i = 0; i < setters->c.n; i++) {
            if (i)
                buf_putc(out, ',');
            json_quote(out, scalar(map_key(setters, i)));
            buf_putc(out, ':');
            json_quote(out, scalar(map_val(setters, i)));
        }
        buf_puts(out, "}}");
    }
    if (helm_values) {
        if (setters->c.n)
            buf_putc(out, ',');
        buf_puts(out, "{\"name\":\"helm-values\",\"title\":\"Helm values\",\"tooltip\":");
        json_quote(out, "The chart's values.yaml; edit it here to override values for this Application.");
        buf_puts(out, ",\"collectionType\":\"string\",\"string\":");
        json_quote(out, helm_values);
        buf_putc(out, '}');
    }
    buf_puts(out, "]\n");
    free(lc.non_krm);
    package_free(root);
    strtab_release(st);
    arena_free(a);
    return rc;
}
