/* ensure-name-substring: make every name contain a substring, as a prefix or a suffix, then fix the references to
 * the renamed objects (catalog ensure-name-substring, kustomize namePrefix/nameSuffix plus nameReference).
 *
 * Deviations from the catalog, which the catalog's own cases do not exercise:
 *   - depends-on entries are fixed on every object, to the target's actual new name, and only when the target was
 *     renamed. The catalog fixes them only on objects it renamed itself, and adds the substring even when the
 *     target kept its name (a Namespace, or a name that already had the substring); it also ignores
 *     comma-separated lists, which kpt accepts.
 *   - extra name fields are checked and edited per value: each value that lacks the substring gets it. The catalog
 *     checks the whole field once (its text, when the path crosses a list) and then edits every value.
 *   - editMode other than prepend/append is an error; the catalog silently changes nothing.
 *   - reference fix-up deviations are listed in nameref.c.
 *
 * Three behaviours, by the release a step pins:
 *   - v0.1.0 (kustomize api 0.8.4): every item carrying a local-config annotation (any value) is dropped from the
 *     output; the typed config reads fieldSpecs only; depends-on is left alone.
 *   - v0.1.1 (kustomize 0.8.11 with local configs included): local-config items are kept and renamed, and so is
 *     the Kptfile; additionalNameFields arrives, with fieldSpecs as its deprecated alias; depends-on left alone.
 *   - v0.2.0 onwards (unchanged through `latest`): depends-on references follow, the kpt.dev Kptfile keeps its
 *     name. */
#include <string.h>

#include "functions/krm/fieldspec.h"
#include "functions/krm/nameref.h"

typedef struct ens_config {
    const char *substring;
    bool append;
    fieldspec *extra; /* additionalNameFields (or the older fieldSpecs) */
    size_t nextra;
} ens_config;

static const char *text_or(const node *n, const char *dflt)
{
    const char *s = scalar(n);
    return s ? s : dflt;
}

static int wrong_config(fn_ctx *c)
{
    const node *k = map_get(c->config, "kind"), *av = map_get(c->config, "apiVersion");
    return fn_fail(c, c->config,
                   "function config must be either v1 ConfigMap or fn.kpt.dev/v1alpha1 EnsureNameSubstring, "
                   "but we got: %s %s",
                   text_or(av, "(no apiVersion)"), text_or(k, "(no kind)"));
}

static int read_configmap(fn_ctx *c, ens_config *out)
{
    const node *data = map_get(c->config, "data");
    if (data && !is_null(data) && !is_map(data))
        return fn_fail(c, data, "the ConfigMap's data must be a map with one entry, `prepend: <substring>` or "
                                "`append: <substring>`");
    uint32_t n = is_map(data) ? node_len(data) : 0;
    if (n != 1)
        return fn_fail(c, data ? data : c->config,
                       "only 1 entry is allowed in the ConfigMap (`prepend: <substring>` or `append: <substring>`), "
                       "but got: %u",
                       n);
    const node *k = map_key(data, 0), *v = map_val(data, 0);
    if (scalar_is(k, "prepend"))
        out->append = false;
    else if (scalar_is(k, "append"))
        out->append = true;
    else
        return fn_fail_key(c, data, 0, "unknown editMode: %s, only prepend and append are allowed", text_or(k, "(not a string)"));
    if (!is_scalar(v))
        return fn_fail(c, v, "the substring to %s must be a string", out->append ? "append" : "prepend");
    out->substring = scalar(v);
    return 0;
}

static int read_field_specs(fn_ctx *c, const node *list, const char *what, ens_config *out)
{
    if (!list || is_null(list))
        return 0;
    if (!is_seq(list))
        return fn_fail(c, list, "%s must be a list of field specs ({group, version, kind, path, create})", what);
    out->extra = arena_alloc(c->a, (node_len(list) + 1) * sizeof *out->extra);
    seq_foreach(list, i, e) {
        if (!is_map(e))
            return fn_fail(c, e, "each entry of %s must be a map with group, version, kind, path and create", what);
        static const char *const keys[] = {"group", "version", "kind", "path", "create"};
        for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
            const node *v = map_get(e, keys[k]);
            if (v && !is_scalar(v))
                return fn_fail(c, v, "%s: `%s` of a field spec must be a string", what, keys[k]);
        }
        const char *path = path_str(e, "path", NULL);
        if (!path || !*path || is_null(map_get(e, "path")))
            return fn_fail(c, e, "%s: a field spec needs a path", what);
        const char *create = path_str(e, "create", NULL);
        const char *group = path_str(e, "group", NULL);
        out->extra[out->nextra++] = (fieldspec){group && *group ? group : NULL, path_str(e, "version", NULL),
                                                path_str(e, "kind", NULL), path, create && !strcmp(create, "true")};
    }
    return 0;
}

static int read_typed(fn_ctx *c, ens_config *out)
{
    bool v010 = fn_version_before(&c->version, 0, 1, 1);
    const node *sub = map_get(c->config, "substring");
    if (sub && !is_scalar(sub))
        return fn_fail(c, sub, "substring must be a string");
    out->substring = sub && !is_null(sub) ? scalar(sub) : "";
    const node *mode = map_get(c->config, "editMode");
    if (mode && !is_null(mode)) {
        if (scalar_is(mode, "append"))
            out->append = true;
        else if (!scalar_is(mode, "prepend"))
            return fn_fail(c, mode, "editMode must be prepend or append, got %s", text_or(mode, "a collection"));
    }
    const node *extra = map_get(c->config, "additionalNameFields"), *legacy = map_get(c->config, "fieldSpecs");
    if (v010 && extra && !is_null(extra))
        /* v0.1.0 reads fieldSpecs only and would ignore the field without a word (a deviation) */
        return fn_fail(c, extra, "additionalNameFields arrived in ensure-name-substring v0.1.1; v0.1.0 reads "
                                 "fieldSpecs");
    if (extra && !is_null(extra) && legacy && !is_null(legacy))
        return fn_fail(c, legacy, "`fieldSpecs` has been deprecated, please rename it to `additionalNameFields`");
    if (extra && !is_null(extra))
        return read_field_specs(c, extra, "additionalNameFields", out);
    return read_field_specs(c, legacy, "fieldSpecs", out);
}

static int read_config(fn_ctx *c, ens_config *out)
{
    memset(out, 0, sizeof *out);
    if (!c->config)
        return fn_fail(c, NULL, "ensure-name-substring needs a functionConfig: a ConfigMap with `prepend` or `append`, "
                                "or an EnsureNameSubstring");
    if (!is_map(c->config))
        return fn_fail(c, c->config, "the functionConfig must be an object (a ConfigMap or an EnsureNameSubstring)");
    int rc;
    if (config_is(c->config, "ConfigMap", ""))
        rc = read_configmap(c, out);
    else if (config_is(c->config, "EnsureNameSubstring", "fn.kpt.dev"))
        rc = read_typed(c, out);
    else
        return wrong_config(c);
    if (rc < 0)
        return rc;
    if (!*out->substring)
        return fn_fail(c, c->config, "substring must not be empty");
    return 0;
}

/* Never renamed: kinds whose names the API server fixes (kustomize's skip list), and from v0.2.0 the package
 * descriptor (v0.1.x renamed a Kptfile like any item). */
static bool skipped(const resource *r, bool skip_kptfile)
{
    static const fieldspec skip[] = {
        {NULL, NULL, "CustomResourceDefinition", "", false},
        {"apiregistration.k8s.io", NULL, "APIService", "", false},
        {NULL, NULL, "Namespace", "", false},
        {"kpt.dev", NULL, "Kptfile", "", false}, /* last: v0.1.x stops before it */
    };
    size_t n = sizeof skip / sizeof *skip - (skip_kptfile ? 0 : 1);
    for (size_t i = 0; i < n; i++)
        if (fieldspec_applies(&skip[i], r))
            return true;
    return false;
}

typedef struct edit {
    arena *a;
    const ens_config *cfg;
    bool create;
} edit;

static const char *with_substring(const edit *e, const char *value)
{
    return e->cfg->append ? arena_printf(e->a, "%s%s", value, e->cfg->substring)
                          : arena_printf(e->a, "%s%s", e->cfg->substring, value);
}

static void edit_scalar(const edit *e, node *n)
{
    if (strstr(scalar(n), e->cfg->substring))
        return;
    const char *s = with_substring(e, scalar(n));
    /* a name is a string: quotes the author chose stay */
    scalar_set(e->a, n, s, strlen(s), SCALAR_AS_STRING);
}

/* The value under parent[key]: each string that lacks the substring gets it; maps are not names. */
static int edit_at(void *ud, node *parent, const char *key)
{
    const edit *e = ud;
    node *v = map_get(parent, key);
    if (!v || is_null(v)) {
        if (e->create)
            map_set_str(e->a, parent, key, with_substring(e, ""));
        return 0;
    }
    if (is_scalar(v)) {
        edit_scalar(e, v);
    } else if (is_seq(v)) {
        seq_foreach(v, i, item)
            if (is_scalar(item) && !is_null(item))
                edit_scalar(e, item);
    }
    return 0;
}

static int run(fn_ctx *c)
{
    ens_config cfg;
    if (read_config(c, &cfg) < 0)
        return -1;
    bool drop_local = fn_version_before(&c->version, 0, 1, 1); /* kustomize api 0.8.4 */
    bool v02 = !fn_version_before(&c->version, 0, 2, 0);
    static const fieldspec name_field = {NULL, NULL, NULL, "metadata/name", false};
    const char *affix = arena_printf(c->a, "%s:%s", cfg.append ? "suffix" : "prefix", cfg.substring);
    nameref_renames renames = {0};
    edit e = {c->a, &cfg, false};
    for (size_t i = 0; i < c->items->n; i++) {
        resource *r = c->items->v[i];
        if (r && drop_local && res_annotation(r, "config.kubernetes.io/local-config")) {
            c->items->v[i] = NULL; /* this release's kustomize dropped them, whatever the value */
            continue;
        }
        if (!r || !is_map(r->root) || skipped(r, v02))
            continue;
        const char *old = res_name(r);
        e.create = false;
        fieldspec_visit(c->a, r->root, name_field.path, false, edit_at, &e);
        for (size_t s = 0; s < cfg.nextra; s++) {
            if (!fieldspec_applies(&cfg.extra[s], r))
                continue;
            e.create = cfg.extra[s].create;
            fieldspec_visit(c->a, r->root, cfg.extra[s].path, e.create, edit_at, &e);
        }
        const char *now = res_name(r);
        if (old && now && strcmp(old, now))
            nameref_add(c->a, &renames, r, old, affix);
    }
    if (nameref_fix_references(c, &renames) < 0)
        return -1;
    if (v02)
        nameref_fix_depends_on(c, &renames);
    return 0;
}

const fn_def fn_ensure_name_substring = {
    .name = "ensure-name-substring",
    .summary = "add a prefix or suffix to names that lack it and fix the references to them",
    .run = run,
    .releases = "0.1.0 0.1.1 0.2.0",
    .readme = {
        .does = "prefix or suffix names, then fix references (kustomize's nameReference table)",
        .differs = "`depends-on` is fixed only when its target was renamed, lists included; references in every "
                "pod-spec holder are followed; IngressClass references work (kustomize's table never matches them); "
                "a bad `editMode` is an error; objects with the same id are not an error (the catalog's kustomize "
                "ResMap refuses them); v0.1.0: `additionalNameFields` is an error (that release ignored it); every "
                "object stays in its file (a 2025 master build moved each to `<kind>_<name>.yaml`, which the 2026 "
                "master fixed)",
        .versions = "v0.1.0: every object with a local-config annotation (any value) dropped, `fieldSpecs` only, "
                "`depends-on` untouched · v0.1.1: local-config objects and the Kptfile renamed, "
                "`additionalNameFields` (`fieldSpecs` its deprecated alias, not both), `depends-on` untouched · "
                "≥v0.2.0, `latest`, `unstable`: `depends-on` follows renamed targets, the `kpt.dev` Kptfile keeps "
                "its name",
    },
};
