#include "pipeline/kptfile.h"

#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "util/fsutil.h"

static const char *kptfile_name(arena *a, package *p)
{
    return p->rel && *p->rel ? arena_printf(a, "%s/Kptfile", p->rel) : "Kptfile";
}

static int read_selector(arena *a, const char *file, const node *n, selector *out)
{
    memset(out, 0, sizeof *out);
    if (n->kind != N_MAP)
        return fail(file, (int)n->line, "a selector must be a map");
    for (uint32_t i = 0; i < n->c.n; i++) {
        const node *k = map_key(n, i), *v = map_val(n, i);
        const char *key = scalar(k);
        if (!key)
            return fail(file, (int)k->line, "selector keys must be strings");
        if (!strcmp(key, "labels") || !strcmp(key, "annotations")) {
            if (!is_null(v) && v->kind != N_MAP)
                return fail(file, (int)v->line, "selector %s must be a map", key);
            if (!strcmp(key, "labels"))
                out->labels = v;
            else
                out->annotations = v;
            continue;
        }
        const char *val = scalar(v);
        if (!val)
            return fail(file, (int)v->line, "selector field %s must be a string", key);
        if (!strcmp(key, "apiVersion"))
            out->api_version = val;
        else if (!strcmp(key, "kind"))
            out->kind = val;
        else if (!strcmp(key, "name"))
            out->name = val;
        else if (!strcmp(key, "namespace"))
            out->namespace = val;
        else
            return fail(file, (int)k->line, "unknown selector field \"%s\" (allowed: apiVersion, kind, name, namespace, labels, annotations)", key);
    }
    (void)a;
    return 0;
}

static int read_selectors(arena *a, const char *file, const node *list, const char *what, selector **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!list || is_null(list))
        return 0;
    if (list->kind != N_SEQ)
        return fail(file, (int)list->line, "%s must be a list", what);
    *out = arena_alloc(a, (list->c.n + 1) * sizeof **out);
    for (uint32_t i = 0; i < list->c.n; i++)
        if (read_selector(a, file, list->c.kids[i], &(*out)[(*n)++]) < 0)
            return -1;
    return 0;
}

static int read_step(arena *a, package *p, const char *file, const node *n, bool validator, size_t index, step *s)
{
    memset(s, 0, sizeof *s);
    s->validator = validator;
    s->line = n->line;
    const char *list = validator ? "validators" : "mutators";
    s->label = arena_printf(a, "pipeline.%s[%zu]", list, index);
    if (n->kind != N_MAP)
        return fail(file, (int)n->line, "%s: a function must be a map with image or exec", s->label);
    const char *image = path_str(n, "image", NULL), *exec = path_str(n, "exec", NULL);
    if ((image && *image) == (exec && *exec))
        return fail(file, (int)n->line, "%s: a function needs exactly one of image and exec", s->label);
    s->ref = image && *image ? image : exec;
    s->is_exec = !(image && *image);
    const char *base = fn_basename(a, s->ref);
    s->fn = fn_lookup(base);
    s->label = arena_printf(a, "pipeline.%s[%zu] (%s)", list, index, base);
    if (!s->fn)
        return fail(file, (int)n->line, "%s: unknown function \"%s\" (from \"%s\"); built-in functions: %s", s->label,
                    base, s->ref, fn_names(a));
    const node *cm = map_get(n, "configMap");
    const node *cp = map_get(n, "configPath");
    if (cm && !is_null(cm) && cp && !is_null(cp))
        return fail(file, (int)cp->line, "%s: configMap and configPath are mutually exclusive", s->label);
    if (cm && !is_null(cm)) {
        if (cm->kind != N_MAP)
            return fail(file, (int)cm->line, "%s: configMap must be a map of strings", s->label);
        for (uint32_t i = 0; i < cm->c.n; i++)
            if (map_key(cm, i)->kind != N_SCALAR || map_val(cm, i)->kind != N_SCALAR)
                return fail(file, (int)map_key(cm, i)->line, "%s: configMap values must be strings", s->label);
        s->config_map = cm;
    }
    if (cp && !is_null(cp)) {
        const char *path = scalar(cp);
        if (!path)
            return fail(file, (int)cp->line, "%s: configPath must be a string", s->label);
        if (!safe_relative_path(path))
            return fail(file, (int)cp->line, "%s: configPath \"%s\" must be a relative path inside the package (no \"..\", not absolute)",
                        s->label, path);
        const char *clean = path;
        while (!strncmp(clean, "./", 2))
            clean += 2;
        s->config_path = clean;
    }
    if (map_get(n, "configRef"))
        return fail(file, (int)map_get(n, "configRef")->line, "%s: configRef is not supported; use configPath", s->label);
    if (read_selectors(a, file, map_get(n, "selectors"), "selectors", &s->selectors, &s->nselectors) < 0 ||
        read_selectors(a, file, map_get(n, "exclude"), "exclude", &s->excludes, &s->nexcludes) < 0)
        return -1;
    (void)p;
    return 0;
}

int kptfile_pipeline(arena *a, package *p, pipeline *out)
{
    out->steps = NULL;
    out->n = 0;
    const char *file = kptfile_name(a, p);
    if (!p->kptfile)
        return 0;
    const node *k = p->kptfile->root;
    const char *av = path_str(k, "apiVersion", NULL), *kind = path_str(k, "kind", NULL);
    if (!kind || strcmp(kind, "Kptfile"))
        return fail(file, (int)k->line, "kind must be Kptfile");
    if (!av || (strcmp(av, "kpt.dev/v1") && strcmp(av, "kpt.dev/v1alpha2")))
        return fail(file, (int)k->line, "apiVersion \"%s\" is not supported; use kpt.dev/v1 (kpt fn fix migrates v1alpha1)",
                    av ? av : "");
    const node *pl = map_get(k, "pipeline");
    if (!pl || is_null(pl))
        return 0;
    if (pl->kind != N_MAP)
        return fail(file, (int)pl->line, "pipeline must be a map");
    const node *mut = map_get(pl, "mutators"), *val = map_get(pl, "validators");
    for (int pass = 0; pass < 2; pass++) {
        const node *list = pass ? val : mut;
        if (list && !is_null(list) && list->kind != N_SEQ)
            return fail(file, (int)list->line, "pipeline.%s must be a list", pass ? "validators" : "mutators");
    }
    size_t total = (is_seq(mut) ? mut->c.n : 0) + (is_seq(val) ? val->c.n : 0);
    out->steps = arena_alloc(a, (total + 1) * sizeof *out->steps);
    for (int pass = 0; pass < 2; pass++) {
        const node *list = pass ? val : mut;
        if (!is_seq(list))
            continue;
        for (uint32_t i = 0; i < list->c.n; i++)
            if (read_step(a, p, file, list->c.kids[i], pass == 1, i, &out->steps[out->n++]) < 0)
                return -1;
    }
    return 0;
}

node *synthesize_config_map(arena *a, const node *data)
{
    node *cm = node_map(a);
    map_set(a, cm, "apiVersion", node_scalar(a, "v1", 2, ST_PLAIN));
    map_set(a, cm, "kind", node_scalar(a, "ConfigMap", 9, ST_PLAIN));
    node *md = map_set(a, cm, "metadata", node_map(a));
    map_set(a, md, "name", node_scalar(a, "function-input", 14, ST_PLAIN));
    node *d = map_set(a, cm, "data", node_map(a));
    for (uint32_t i = 0; data && i < data->c.n; i++) {
        node *v = node_str(a, scalar(map_val(data, i)));
        v->line = map_val(data, i)->line;
        map_set(a, d, scalar(map_key(data, i)), v);
    }
    return cm;
}

static bool csv_has(const char *csv, const char *path)
{
    size_t n = strlen(path);
    for (const char *p = csv; p && *p;) {
        while (*p == ' ')
            p++;
        size_t len = strcspn(p, ",");
        size_t e = len;
        while (e && p[e - 1] == ' ')
            e--;
        const char *q = p;
        if (e >= 2 && !strncmp(q, "./", 2))
            q += 2, e -= 2;
        if (e == n && !strncmp(q, path, n))
            return true;
        p += len + (p[len] == ',');
    }
    return false;
}

static bool seq_has(const node *seq, const char *path)
{
    for (uint32_t i = 0; is_seq(seq) && i < seq->c.n; i++) {
        const char *v = scalar(seq->c.kids[i]);
        if (v && !strncmp(v, "./", 2))
            v += 2;
        if (v && !strcmp(v, path))
            return true;
    }
    return false;
}

static bool used_as_values_file(arena *a, package *p, const char *path)
{
    pipeline pl;
    if (kptfile_pipeline(a, p, &pl) < 0)
        return false;
    for (size_t i = 0; i < pl.n; i++) {
        const step *s = &pl.steps[i];
        if (strcmp(s->fn->name, "render-helm-chart"))
            continue;
        if (s->config_map && csv_has(path_str(s->config_map, "valuesFiles", NULL), path))
            return true;
        for (size_t k = 0; s->config_path && k < p->own.n; k++) {
            const node *cfg = p->own.v[k]->root;
            if (strcmp(p->own.v[k]->path, s->config_path))
                continue;
            if (csv_has(path_str(cfg, "data", "valuesFiles", NULL), path))
                return true;
            const node *charts = map_get(cfg, "helmCharts");
            for (uint32_t c = 0; is_seq(charts) && c < charts->c.n; c++)
                if (seq_has(path_get(charts->c.kids[c], "templateOptions", "values", "valuesFiles", NULL), path))
                    return true;
        }
    }
    return false;
}

int settle_non_krm(load_ctx *lc)
{
    int rc = 0;
    for (size_t i = 0; i < lc->n_non_krm && rc == 0; i++) {
        non_krm *n = &lc->non_krm[i];
        if (!used_as_values_file(lc->a, n->pkg, n->path)) {
            diag_clear();
            rc = fail(n->display, n->line, "resource must have apiVersion, kind and metadata.name (%s is missing)",
                      n->missing);
        }
    }
    free(lc->non_krm);
    lc->non_krm = NULL;
    lc->n_non_krm = 0;
    return rc;
}
