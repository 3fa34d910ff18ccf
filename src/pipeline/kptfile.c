#include "pipeline/kptfile.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "util/fsutil.h"
#include "util/path.h"

static const char *kptfile_name(arena *a, package *p)
{
    return p->rel && *p->rel ? arena_printf(a, "%s/Kptfile", p->rel) : "Kptfile";
}

/* The kpt.dev/v1 Kptfile schema, field for field as kpt's pkg/api/kptfile/v1 types. kpt decodes a Kptfile with
 * unknown fields refused (yaml.v3 KnownFields), so a typo such as `targetResources:` in a step fails there instead of
 * silently running the step on everything: we refuse it the same way, naming the field, the type and the line. */
enum ftype { F_STR, F_INT, F_STRMAP, F_STRLIST, F_OBJ, F_OBJLIST };

typedef struct kschema kschema;
typedef struct kfield {
    const char *name;
    enum ftype type;
    const kschema *sub; /* F_OBJ, F_OBJLIST */
} kfield;
struct kschema {
    const char *type; /* kpt's Go type name, as its error messages print it */
    const kfield *fields;
};

#define END {NULL, F_STR, NULL}
static const kfield f_meta[] = {{"name", F_STR, NULL}, {"namespace", F_STR, NULL}, {"labels", F_STRMAP, NULL},
                                {"annotations", F_STRMAP, NULL}, END};
static const kschema s_meta = {"yaml.ObjectMeta", f_meta};
static const kfield f_git[] = {{"repo", F_STR, NULL}, {"directory", F_STR, NULL}, {"ref", F_STR, NULL}, END};
static const kschema s_git = {"v1.Git", f_git};
static const kfield f_upstream[] = {{"type", F_STR, NULL}, {"git", F_OBJ, &s_git}, {"updateStrategy", F_STR, NULL}, END};
static const kschema s_upstream = {"v1.Upstream", f_upstream};
static const kfield f_gitlock[] = {{"repo", F_STR, NULL}, {"directory", F_STR, NULL}, {"ref", F_STR, NULL},
                                   {"commit", F_STR, NULL}, END};
static const kschema s_gitlock = {"v1.GitLock", f_gitlock};
static const kfield f_genlock[] = {{"storeID", F_STR, NULL}, {"resourceID", F_STR, NULL},
                                   {"resourceVersion", F_STR, NULL}, END};
static const kschema s_genlock = {"v1.GenericLock", f_genlock};
static const kfield f_lock[] = {{"type", F_STR, NULL}, {"git", F_OBJ, &s_gitlock}, {"generic", F_OBJ, &s_genlock}, END};
static const kschema s_lock = {"v1.Locator", f_lock};
static const kfield f_gate[] = {{"conditionType", F_STR, NULL}, END};
static const kschema s_gate = {"v1.ReadinessGate", f_gate};
static const kfield f_info[] = {{"site", F_STR, NULL}, {"emails", F_STRLIST, NULL}, {"license", F_STR, NULL},
                                {"licenseFile", F_STR, NULL}, {"description", F_STR, NULL},
                                {"keywords", F_STRLIST, NULL}, {"man", F_STR, NULL},
                                {"readinessGates", F_OBJLIST, &s_gate}, END};
static const kschema s_info = {"v1.PackageInfo", f_info};
static const kfield f_selector[] = {{"apiVersion", F_STR, NULL}, {"kind", F_STR, NULL}, {"name", F_STR, NULL},
                                    {"namespace", F_STR, NULL}, {"labels", F_STRMAP, NULL},
                                    {"annotations", F_STRMAP, NULL}, END};
static const kschema s_selector = {"v1.Selector", f_selector};
static const kfield f_function[] = {{"image", F_STR, NULL}, {"exec", F_STR, NULL}, {"configPath", F_STR, NULL},
                                    {"configMap", F_STRMAP, NULL}, {"name", F_STR, NULL}, {"tag", F_STR, NULL},
                                    {"selectors", F_OBJLIST, &s_selector}, {"exclude", F_OBJLIST, &s_selector}, END};
static const kschema s_function = {"v1.Function", f_function};
static const kfield f_pipeline[] = {{"mutators", F_OBJLIST, &s_function}, {"validators", F_OBJLIST, &s_function}, END};
static const kschema s_pipeline = {"v1.Pipeline", f_pipeline};
static const kfield f_inventory[] = {{"namespace", F_STR, NULL}, {"name", F_STR, NULL}, {"inventoryID", F_STR, NULL},
                                     {"labels", F_STRMAP, NULL}, {"annotations", F_STRMAP, NULL}, END};
static const kschema s_inventory = {"v1.Inventory", f_inventory};
static const kfield f_ref[] = {{"apiVersion", F_STR, NULL}, {"kind", F_STR, NULL}, {"name", F_STR, NULL},
                               {"namespace", F_STR, NULL}, END};
static const kschema s_ref = {"v1.ResourceRef", f_ref};
static const kfield f_fieldref[] = {{"path", F_STR, NULL}, {"currentValue", F_STR, NULL},
                                    {"proposedValue", F_STR, NULL}, END};
static const kschema s_fieldref = {"v1.FieldRef", f_fieldref};
static const kfield f_fileref[] = {{"path", F_STR, NULL}, {"index", F_INT, NULL}, END};
static const kschema s_fileref = {"v1.FileRef", f_fileref};
static const kfield f_item[] = {{"message", F_STR, NULL}, {"severity", F_STR, NULL}, {"resourceRef", F_OBJ, &s_ref},
                                {"field", F_OBJ, &s_fieldref}, {"file", F_OBJ, &s_fileref}, END};
static const kschema s_item = {"v1.ResultItem", f_item};
static const kfield f_stepres[] = {{"name", F_STR, NULL}, {"image", F_STR, NULL}, {"exec", F_STR, NULL},
                                   {"executionError", F_STR, NULL}, {"stderr", F_STR, NULL},
                                   {"exitCode", F_INT, NULL}, {"results", F_OBJLIST, &s_item},
                                   {"errorResults", F_OBJLIST, &s_item}, END};
static const kschema s_stepres = {"v1.PipelineStepResult", f_stepres};
static const kfield f_render[] = {{"mutationSteps", F_OBJLIST, &s_stepres}, {"validationSteps", F_OBJLIST, &s_stepres},
                                  {"errorSummary", F_STR, NULL}, END};
static const kschema s_render = {"v1.RenderStatus", f_render};
static const kfield f_cond[] = {{"type", F_STR, NULL}, {"status", F_STR, NULL}, {"reason", F_STR, NULL},
                                {"message", F_STR, NULL}, END};
static const kschema s_cond = {"v1.Condition", f_cond};
static const kfield f_status[] = {{"conditions", F_OBJLIST, &s_cond}, {"renderStatus", F_OBJ, &s_render}, END};
static const kschema s_status = {"v1.Status", f_status};
static const kfield f_kptfile[] = {{"apiVersion", F_STR, NULL}, {"kind", F_STR, NULL}, {"metadata", F_OBJ, &s_meta},
                                   {"upstream", F_OBJ, &s_upstream}, {"upstreamLock", F_OBJ, &s_lock},
                                   {"info", F_OBJ, &s_info}, {"pipeline", F_OBJ, &s_pipeline},
                                   {"inventory", F_OBJ, &s_inventory}, {"status", F_OBJ, &s_status}, END};
static const kschema s_kptfile = {"v1.KptFile", f_kptfile};
#undef END

static const char *kind_name(const node *n)
{
    return is_map(n) ? "a map" : is_seq(n) ? "a list" : "a scalar";
}

static int check_schema(const char *file, const node *n, const kschema *s, const char *where);

/* "pipeline.mutators[0]" style paths for messages */
static const char *join(char *out, size_t cap, const char *where, const char *key, long index)
{
    if (index >= 0)
        snprintf(out, cap, "%s%s%s[%ld]", where, *where ? "." : "", key, index);
    else
        snprintf(out, cap, "%s%s%s", where, *where ? "." : "", key);
    return out;
}

static int check_value(const char *file, const node *v, const kfield *f, const char *parent)
{
    char where[512], item[512];
    join(where, sizeof where, parent, f->name, -1);
    if (is_null(v))
        return 0; /* an empty value decodes to the zero value in kpt too */
    switch (f->type) {
    case F_STR:
    case F_INT:
        if (!is_scalar(v))
            return fail(file, (int)node_line(v), "%s must be a %s, not %s (kpt refuses this Kptfile)", where,
                        f->type == F_INT ? "number" : "string", kind_name(v));
        if (f->type == F_INT) {
            const char *t = scalar(v);
            size_t i = (*t == '-' || *t == '+') ? 1 : 0;
            if (!t[i] || strspn(t + i, "0123456789") != strlen(t + i))
                return fail(file, (int)node_line(v), "%s must be a number, not \"%s\" (kpt refuses this Kptfile)",
                            where, t);
        }
        return 0;
    case F_STRMAP:
        if (!is_map(v))
            return fail(file, (int)node_line(v), "%s must be a map of strings, not %s (kpt refuses this Kptfile)",
                        where, kind_name(v));
        map_foreach(v, i, key, val)
            if (!is_scalar(key) || !is_scalar(val))
                return fail(file, (int)map_key_line(v, i),
                            "%s must be a map of strings (kpt refuses this Kptfile)", where);
        return 0;
    case F_STRLIST:
    case F_OBJLIST:
        if (!is_seq(v))
            return fail(file, (int)node_line(v), "%s must be a list, not %s (kpt refuses this Kptfile)", where,
                        kind_name(v));
        seq_foreach(v, i, e) {
            if (f->type == F_STRLIST) {
                if (!is_null(e) && !is_scalar(e))
                    return fail(file, (int)node_line(e), "%s must be a string (kpt refuses this Kptfile)",
                                join(item, sizeof item, parent, f->name, i));
            } else if (check_schema(file, e, f->sub, join(item, sizeof item, parent, f->name, i)) < 0) {
                return -1;
            }
        }
        return 0;
    case F_OBJ:
        return check_schema(file, v, f->sub, where);
    }
    return 0;
}

static int check_schema(const char *file, const node *n, const kschema *s, const char *where)
{
    if (is_null(n))
        return 0;
    if (!is_map(n))
        return fail(file, (int)node_line(n), "%s must be a map (%s), not %s (kpt refuses this Kptfile)",
                    *where ? where : "the Kptfile", s->type, kind_name(n));
    map_foreach(n, i, k, val) {
        const char *key = scalar(k);
        const kfield *f = NULL;
        for (const kfield *c = s->fields; key && c->name; c++)
            if (!strcmp(c->name, key))
                f = c;
        if (!f)
            return fail(file, (int)map_key_line(n, i),
                        "field %s not found in type %s%s%s (kpt refuses a Kptfile with unknown fields)",
                        key ? key : "(not a string)", s->type, *where ? " at " : "", where);
        if (check_value(file, val, f, where) < 0)
            return -1;
    }
    return 0;
}

static int read_selector(arena *a, const char *file, const node *n, selector *out)
{
    memset(out, 0, sizeof *out);
    if (!is_map(n))
        return fail(file, (int)node_line(n), "a selector must be a map");
    map_foreach(n, i, k, v) {
        const char *key = scalar(k);
        if (!key)
            return fail(file, (int)map_key_line(n, i), "selector keys must be strings");
        if (!strcmp(key, "labels") || !strcmp(key, "annotations")) {
            if (!is_null(v) && !is_map(v))
                return fail(file, (int)node_line(v), "selector %s must be a map", key);
            if (!strcmp(key, "labels"))
                out->labels = v;
            else
                out->annotations = v;
            continue;
        }
        const char *val = scalar(v);
        if (!val)
            return fail(file, (int)node_line(v), "selector field %s must be a string", key);
        if (!strcmp(key, "apiVersion"))
            out->api_version = val;
        else if (!strcmp(key, "kind"))
            out->kind = val;
        else if (!strcmp(key, "name"))
            out->name = val;
        else if (!strcmp(key, "namespace"))
            out->namespace = val;
        else
            return fail(file, (int)map_key_line(n, i), "unknown selector field \"%s\" (allowed: apiVersion, kind, name, namespace, labels, annotations)", key);
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
    if (!is_seq(list))
        return fail(file, (int)node_line(list), "%s must be a list", what);
    *out = arena_alloc(a, (node_len(list) + 1) * sizeof **out);
    seq_foreach(list, i, item)
        if (read_selector(a, file, item, &(*out)[(*n)++]) < 0)
            return -1;
    return 0;
}

/* Stands in for a validator that is not built in: the executor never runs it (it fails or skips the step first);
 * its empty name matches no function the readers of a pipeline look for. */
static int run_not_built_in(fn_ctx *c)
{
    return fn_fail(c, NULL, "this validator is not built in");
}
static const fn_def fn_not_built_in = {.name = "", .summary = "a validator that is not built in", .run = run_not_built_in};

static int read_step(arena *a, package *p, const char *file, const node *n, bool validator, size_t index, step *s)
{
    memset(s, 0, sizeof *s);
    s->validator = validator;
    s->line = node_line(n);
    const char *list = validator ? "validators" : "mutators";
    s->label = arena_printf(a, "pipeline.%s[%zu]", list, index);
    if (!is_map(n))
        return fail(file, (int)node_line(n), "%s: a function must be a map with image or exec", s->label);
    const char *image = path_str(n, "image", NULL), *exec = path_str(n, "exec", NULL);
    if ((image && *image) == (exec && *exec))
        return fail(file, (int)node_line(n), "%s: a function needs exactly one of image and exec", s->label);
    s->ref = image && *image ? image : exec;
    s->is_exec = !(image && *image);
    const char *fnref = s->ref;
    if (s->is_exec) {
        fnref = fn_exec_ref(a, exec);
        if (!fnref)
            return diag_locate(file, (int)node_line(n), "%s", s->label);
    }
    const char *base = fn_basename(a, fnref);
    s->fn = fn_lookup(base);
    s->label = arena_printf(a, "pipeline.%s[%zu] (%s)", list, index, base);
    if (!s->fn && validator && !s->is_exec) {
        /* the render decides: an error, unless the operator skips this validator (the rest is read all the same) */
        s->fn = &fn_not_built_in;
        s->missing = base;
        s->missing_file = file;
        s->missing_error = arena_printf(a, "%s: unknown function \"%s\" (from \"%s\"); built-in functions: %s (a "
                                        "validator that is not built in is skipped only where the operator's "
                                        "CMP_SKIP_VALIDATORS names it)", s->label, base, s->ref, fn_names(a));
    } else if (!s->fn) {
        return fail(file, (int)node_line(n), "%s: unknown function \"%s\" (from \"%s\"); built-in functions: %s", s->label,
                    base, s->ref, fn_names(a));
    } else {
        fn_version_resolve(a, s->fn->name, fn_ref_tag(a, fnref), path_str(n, "tag", NULL), &s->version,
                           &s->version_warning);
    }
    const node *cm = map_get(n, "configMap");
    const node *cp = map_get(n, "configPath");
    if (cm && !is_null(cm) && cp && !is_null(cp))
        return fail(file, (int)node_line(cp), "%s: configMap and configPath are mutually exclusive", s->label);
    if (cm && !is_null(cm)) {
        if (!is_map(cm))
            return fail(file, (int)node_line(cm), "%s: configMap must be a map of strings", s->label);
        map_foreach(cm, i, key, val)
            if (!is_scalar(key) || !is_scalar(val))
                return fail(file, (int)map_key_line(cm, i), "%s: configMap values must be strings", s->label);
        s->config_map = cm;
    }
    if (cp && !is_null(cp)) {
        const char *path = scalar(cp);
        if (!path)
            return fail(file, (int)node_line(cp), "%s: configPath must be a string", s->label);
        if (!safe_relative_path(path))
            return fail(file, (int)node_line(cp), "%s: configPath \"%s\" must be a relative path inside the package (no \"..\", not absolute)",
                        s->label, path);
        /* kpt matches configPath against the package's files after filepath.Clean: "./a.yaml", "dir//a.yaml" */
        s->config_path = clean_path(a, path);
        if (!strcmp(s->config_path, "."))
            return fail(file, (int)node_line(cp), "%s: configPath \"%s\" must name a file of the package", s->label, path);
    }
    if (read_selectors(a, file, map_get(n, "selectors"), "selectors", &s->selectors, &s->nselectors) < 0 ||
        read_selectors(a, file, map_get(n, "exclude"), "exclude", &s->excludes, &s->nexcludes) < 0)
        return -1;
    (void)p;
    return 0;
}

int kptfile_check(const char *file, const node *k)
{
    const char *av = path_str(k, "apiVersion", NULL), *kind = path_str(k, "kind", NULL);
    if (!kind || strcmp(kind, "Kptfile"))
        return fail(file, (int)node_line(k), "kind must be Kptfile");
    if (!av || (strcmp(av, "kpt.dev/v1") && strcmp(av, "kpt.dev/v1alpha2")))
        return fail(file, (int)node_line(k), "apiVersion \"%s\" is not supported; use kpt.dev/v1 (kpt fn fix migrates v1alpha1)",
                    av ? av : "");
    return check_schema(file, k, &s_kptfile, "");
}

int kptfile_pipeline(arena *a, package *p, pipeline *out)
{
    out->steps = NULL;
    out->n = 0;
    const char *file = kptfile_name(a, p);
    if (!p->kptfile)
        return 0;
    const node *k = p->kptfile->root;
    if (kptfile_check(file, k) < 0)
        return -1;
    const node *pl = map_get(k, "pipeline");
    if (!pl || is_null(pl))
        return 0;
    if (!is_map(pl))
        return fail(file, (int)node_line(pl), "pipeline must be a map");
    const node *mut = map_get(pl, "mutators"), *val = map_get(pl, "validators");
    for (int pass = 0; pass < 2; pass++) {
        const node *list = pass ? val : mut;
        if (list && !is_null(list) && !is_seq(list))
            return fail(file, (int)node_line(list), "pipeline.%s must be a list", pass ? "validators" : "mutators");
    }
    size_t total = (is_seq(mut) ? node_len(mut) : 0) + (is_seq(val) ? node_len(val) : 0);
    out->steps = arena_alloc(a, (total + 1) * sizeof *out->steps);
    for (int pass = 0; pass < 2; pass++) {
        const node *list = pass ? val : mut;
        if (!is_seq(list))
            continue;
        seq_foreach(list, i, item)
            if (read_step(a, p, file, item, pass == 1, i, &out->steps[out->n++]) < 0)
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
    map_foreach(data, i, key, val) {
        node *v = node_str(a, scalar(val));
        node_set_pos(v, node_line(val), 0);
        map_set(a, d, scalar(key), v);
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
    seq_foreach(seq, i, item) {
        const char *v = scalar(item);
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
    diag_detail bad_pipeline; /* dropped: with no pipeline to read, the caller reports the object that is not KRM */
    diag_detail *outer = diag_capture(&bad_pipeline);
    int rc = kptfile_pipeline(a, p, &pl);
    diag_restore(outer);
    if (rc < 0)
        return false;
    for (size_t i = 0; i < pl.n; i++) {
        const step *s = &pl.steps[i];
        if (strcmp(s->fn->name, "render-helm-chart"))
            continue;
        /* valuesFiles (v0.2 and later, comma-separated in a ConfigMap), or v0.1's single valuesFile */
        if (s->config_map && (csv_has(path_str(s->config_map, "valuesFiles", NULL), path) ||
                              csv_has(path_str(s->config_map, "valuesFile", NULL), path)))
            return true;
        for (size_t k = 0; s->config_path && k < p->own.n; k++) {
            const node *cfg = p->own.v[k]->root;
            if (strcmp(p->own.v[k]->path, s->config_path))
                continue;
            if (csv_has(path_str(cfg, "data", "valuesFiles", NULL), path) ||
                csv_has(path_str(cfg, "data", "valuesFile", NULL), path))
                return true;
            const node *charts = map_get(cfg, "helmCharts");
            seq_foreach(charts, c, item)
                if (seq_has(path_get(item, "templateOptions", "values", "valuesFiles", NULL), path) ||
                    csv_has(path_str(item, "valuesFile", NULL), path))
                    return true;
        }
    }
    return false;
}

/* Is path (relative to package p) one of the Application's value files? */
static bool app_values_file(const load_ctx *lc, const package *p, const char *path)
{
    char real[PATH_MAX];
    if (!lc->values_files || !realpath(path_join(lc->a, p->abs, path), real))
        return false;
    for (const char *const *f = lc->values_files; *f; f++)
        if (!strcmp(*f, real))
            return true;
    return false;
}

int settle_non_krm(load_ctx *lc)
{
    int rc = 0;
    for (size_t i = 0; i < lc->n_non_krm && rc == 0; i++) {
        non_krm *n = &lc->non_krm[i];
        if (!app_values_file(lc, n->pkg, n->path) && !used_as_values_file(lc->a, n->pkg, n->path)) {
            rc = fail(n->display, n->line, "resource must have apiVersion, kind and metadata.name (%s is missing)%s%s",
                      n->missing, n->why_read ? "; " : "", n->why_read ? n->why_read : "");
        }
    }
    xfree(lc->non_krm);
    lc->non_krm = NULL;
    lc->n_non_krm = 0;
    return rc;
}
