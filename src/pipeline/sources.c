#include "pipeline/sources.h"

#include <stdlib.h>
#include <string.h>

#include "functions/tools/external.h"
#include "pipeline/kptfile.h"
#include "util/diag.h"

static void add_dir(void *ud, const char *dir_real)
{
    step_sources *s = ud;
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->dirs[i], dir_real))
            return;
    s->dirs = xrealloc(s->dirs, (s->n + 1) * sizeof *s->dirs);
    s->dirs[s->n++] = xstrdup(dir_real);
}

/* The config a step would get, as far as it can be known before any step runs: its configMap, or the object of
 * its configPath file as read. NULL when there is none yet (a file not read, or not one object). */
static node *step_config(arena *a, const package *p, const step *st)
{
    if (st->config_map)
        return synthesize_config_map(a, st->config_map);
    node *found = NULL;
    for (size_t i = 0; st->config_path && i < p->own.n; i++) {
        if (strcmp(p->own.v[i]->path, st->config_path))
            continue;
        if (found)
            return NULL;
        found = p->own.v[i]->root;
    }
    return found;
}

/* Each package once: the tree only grows (a subpackage found in a chart or overlay directory read as resources). */
static void collect(load_ctx *c, step_sources *s, package *p)
{
    pipeline pl;
    if (!p->sources_known && kptfile_pipeline(c->a, p, &pl) == 0) {
        for (size_t i = 0; i < pl.n; i++) {
            const step *st = &pl.steps[i];
            void (*sources)(fn_ctx *, source_dir_fn, void *) =
                !strcmp(st->fn->name, "render-helm-chart") ? render_helm_chart_sources
                : !strcmp(st->fn->name, "kustomize-build") ? kustomize_build_sources
                                                            : NULL;
            node *config = sources ? step_config(c->a, p, st) : NULL;
            if (!config)
                continue;
            fn_results scratch = {0};
            fn_ctx fc = {.a = c->a, .st = c->st, .config = config, .pkg = p, .results = &scratch,
                         .host = s->host, .version = st->version};
            sources(&fc, add_dir, s);
            xfree(scratch.v);
        }
    }
    p->sources_known = true;
    for (size_t i = 0; i < p->nsubs; i++)
        collect(c, s, p->subs[i]);
}

int step_source(load_ctx *c, package *root, const char *dir_real)
{
    step_sources *s = c->step_source_ud;
    if (!s->ready || s->packages != c->packages) {
        /* dropped: a pipeline or a config the steps cannot read is reported by the step that reads it */
        diag_detail unread;
        diag_detail *outer = diag_capture(&unread);
        collect(c, s, root);
        diag_restore(outer);
        s->ready = true;
        s->packages = c->packages;
    }
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->dirs[i], dir_real))
            return 1;
    return 0;
}

void step_sources_free(step_sources *s)
{
    for (size_t i = 0; i < s->n; i++)
        xfree(s->dirs[i]);
    xfree(s->dirs);
    s->dirs = NULL;
    s->n = 0;
    s->ready = false;
}
