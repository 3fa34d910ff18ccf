/* apply-replacements: kustomize replacements over every item (catalog apply-replacements). The catalog's own code
 * barely changed; what a release does is the kustomize it was built with, so a step's version picks one of two:
 *  - v0.1.0 and v0.1.1 (kustomize api 0.10.1): a scalar target is replaced by the source node, taking its tag and
 *    style (a quoted "3" makes an int target the string "3"); a target path that is not there is skipped; `*`
 *    and "[key]" do not exist (kyaml read `*` as a key and "[key]" as a broken list selector), while "[a.b]" is
 *    the key a.b (its path splitter drops brackets that the dots split); a reject entry is
 *    checked against the one id that selected the object; a target's [k=v] compares exactly and takes the first
 *    matching item only; no sourceValue; v0.1.0 has no message of its own for a missing config.
 *  - v0.1.2, latest, unstable, no tag (kustomize api 0.19): a scalar target keeps its tag and style and takes only
 *    the text; a target path that is not there is an error unless options.create; `*` works, with create too; a
 *    target's [k=v] is an unanchored regex over every item; a reject entry matching any of the object's ids
 *    (current or previous) rejects it; sourceValue gives the value itself. The 2022-07 master that gcr's
 *    unstable was built from sits between the two (no error for a missing target, no create with `*`); a tag cannot
 *    tell it from today's master, so unstable gets the newest behaviour.
 *
 * Where this differs from the catalog (on purpose):
 *  - a reject entry rejects an object only when all of its criteria match (kustomize rejects on the id fields
 *    alone, or on the label/annotation selectors alone, whichever is given);
 *  - newest: a field created by options.create, or a null target, takes the source's type ("3" stays a string;
 *    kustomize writes the bare value, which can turn it into a number), and a scalar target taking a map or list
 *    value is replaced by it instead of being emptied;
 *  - newest: "[key]" with no '=' names a key, as "[a.b]" does, instead of being a malformed list selector;
 *  - v0.1.x: `*` and "[key]" (brackets with no dot) in a field path are errors wherever they are (kustomize 0.10.1
 *    fails only when the walk reaches them, and with create would add a key named "*");
 *  - [k=v] compares only scalar fields (kyaml matches the regex against the YAML text of any node), and after
 *    [=v] the rest of the path is still walked (kyaml returns the matching item and ignores the rest);
 *  - newest: with create, [k=v] matches by regex like without it, and appends {k: v} when nothing matches (kyaml
 *    compares exactly when creating);
 *  - unknown keys in the config are errors rather than ignored; an empty replacements list is a warning. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "functions/krm/fieldpath.h"
#include "functions/function.h"
#include "functions/krm/label_selector.h"
#include "functions/krm/nameref.h"
#include "yaml/scalar.h"

#define CONFIG_KIND "ApplyReplacements"
#define CONFIG_API_VERSION "fn.kpt.dev/v1alpha1"

/* v0.1.0 and v0.1.1 were built with kustomize api 0.10.1; later releases and master with newer kustomize. */
static bool kustomize_0_10(const fn_ctx *c)
{
    return fn_version_before(&c->version, 0, 1, 2);
}

typedef struct selector {
    const char *group, *version, *kind, *name, *namespace; /* NULL or "": any */
    label_selector *labels, *annotations;                   /* NULL: any */
    const char *text;                                       /* "kind: Pod, name: x", for messages */
} selector;

typedef struct options {
    const char *delimiter; /* NULL or "": none */
    long index;
    bool create;
} options;

typedef struct target {
    selector select;
    selector *reject;
    size_t nreject;
    fieldpath *paths;
    size_t npaths;
    options opts;
} target;

typedef struct replacement {
    const char *where; /* "replacements[2]" */
    const node *at;
    selector source;
    fieldpath source_path;
    options source_opts;
    node *literal; /* sourceValue */
    target *targets;
    size_t ntargets;
} replacement;

typedef struct config {
    replacement *v;
    size_t n;
} config;

/* ---- reading the config ---- */

/* Every key of m must be one of allowed (NULL-terminated). */
static int only_keys(fn_ctx *c, const node *m, const char *where, const char *const *allowed)
{
    map_foreach(m, i, mk, val) {
        const char *k = scalar(mk);
        const char *const *a = allowed;
        while (*a && (!k || strcmp(k, *a)))
            a++;
        if (*a)
            continue;
        char list[512] = "";
        for (a = allowed; *a; a++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", a == allowed ? "" : ", ", *a);
        return fn_fail_key(c, m, i, "%s: unknown field `%s` (expected one of: %s)", where, k ? k : "?", list);
    }
    return 0;
}

/* A string field: NULL when missing or null; a collection is an error. */
static int str_field(fn_ctx *c, const node *m, const char *key, const char *where, const char **out)
{
    const node *v = map_get(m, key);
    *out = NULL;
    if (!v || is_null(v))
        return 0;
    if (!is_scalar(v))
        return fn_fail(c, v, "%s.%s must be a string, not a %s", where, key, is_map(v) ? "map" : "list");
    *out = scalar(v);
    return 0;
}

static const node *map_field(fn_ctx *c, const node *m, const char *key, const char *where, int *rc)
{
    const node *v = map_get(m, key);
    *rc = 0;
    if (!v || is_null(v))
        return NULL;
    if (!is_map(v)) {
        *rc = fn_fail(c, v, "%s.%s must be a map", where, key);
        return NULL;
    }
    return v;
}

static const node *seq_field(fn_ctx *c, const node *m, const char *key, const char *where, int *rc)
{
    const node *v = map_get(m, key);
    *rc = 0;
    if (!v || is_null(v))
        return NULL;
    if (!is_seq(v)) {
        *rc = fn_fail(c, v, "%s.%s must be a list", where, key);
        return NULL;
    }
    return v;
}

static const char *const id_keys[] = {"group", "version", "kind", "name", "namespace"};

static int read_selector(fn_ctx *c, const node *m, const char *where, bool with_labels, selector *s)
{
    memset(s, 0, sizeof *s);
    const char **fields[] = {&s->group, &s->version, &s->kind, &s->name, &s->namespace};
    char *text = arena_strdup(c->a, "");
    for (size_t i = 0; i < 5; i++) {
        if (str_field(c, m, id_keys[i], where, fields[i]) < 0)
            return -1;
        if (*fields[i] && **fields[i])
            text = arena_printf(c->a, "%s%s%s: %s", text, *text ? ", " : "", id_keys[i], *fields[i]);
    }
    if (with_labels) {
        const char *ls, *as;
        if (str_field(c, m, "labelSelector", where, &ls) < 0 || str_field(c, m, "annotationSelector", where, &as) < 0)
            return -1;
        if (ls && *ls) {
            if (!(s->labels = label_selector_parse(c->a, ls)))
                return fn_locate(c, map_get(m, "labelSelector"), "%s.labelSelector", where);
            text = arena_printf(c->a, "%s%slabelSelector: %s", text, *text ? ", " : "", ls);
        }
        if (as && *as) {
            if (!(s->annotations = label_selector_parse(c->a, as)))
                return fn_locate(c, map_get(m, "annotationSelector"), "%s.annotationSelector", where);
            text = arena_printf(c->a, "%s%sannotationSelector: %s", text, *text ? ", " : "", as);
        }
    }
    s->text = *text ? text : "any object";
    return 0;
}

static bool parse_long(const char *s, long *out)
{
    if (!s || !*s)
        return false;
    errno = 0;
    char *end;
    *out = strtol(s, &end, 10);
    return !*end && errno == 0;
}

static int read_options(fn_ctx *c, const node *m, const char *where, bool is_target, options *o)
{
    static const char *const target_keys[] = {"delimiter", "index", "create", "encoding", NULL};
    /* kustomize shares one options type between sources and targets, so create is accepted (and unused) here */
    static const char *const source_keys[] = {"delimiter", "index", "create", "encoding", NULL};
    memset(o, 0, sizeof *o);
    if (!m)
        return 0;
    if (only_keys(c, m, where, is_target ? target_keys : source_keys) < 0)
        return -1;
    if (str_field(c, m, "delimiter", where, &o->delimiter) < 0)
        return -1;
    const node *idx = map_get(m, "index");
    if (idx && !is_null(idx) && (!is_scalar(idx) || node_type(idx) != T_INT || !parse_long(scalar(idx), &o->index)))
        return fn_fail(c, idx, "%s.index must be an integer", where);
    const node *create = map_get(m, "create");
    if (create && !is_null(create)) {
        if (!is_scalar(create) || node_type(create) != T_BOOL)
            return fn_fail(c, create, "%s.create must be true or false", where);
        o->create = strchr("tT", scalar(create)[0]) != NULL;
    }
    return 0;
}

static int read_path(fn_ctx *c, const node *at, const char *text, bool regex, const char *where, fieldpath *fp)
{
    if (fieldpath_parse(c->a, text, regex, fp) < 0)
        return fn_locate(c, at, "%s", where);
    fp->limits = fn_limits(c);
    if (!kustomize_0_10(c))
        return 0;
    /* kustomize 0.10.1 knew no `*` (kyaml took it for a key, an error on a list); its path splitter (api
     * internal/utils SmarterPathSplitter) joins a bracket that the dots split ("[a.b]" -> "a.b") and drops the
     * brackets when it holds no '=', but leaves a bracket without a dot ("[key]", or "[a\.b]" whose dot is
     * escaped) as it is, which kyaml then reads as a list selector missing its '=' */
    for (size_t i = 0; i < fp->n; i++) {
        const fp_seg *s = &fp->seg[i];
        if (s->kind == FP_EVERY || (s->kind == FP_KEY && s->bracketed && !s->spans_dot)) {
            const char *what = s->kind == FP_EVERY
                                   ? "'*' is"
                                   : arena_printf(c->a, "the bracketed key `%s` (brackets with no '.' in them) is",
                                                  s->text);
            const char *v = fn_version_str(c->a, &c->version);
            const char *fix = s->kind == FP_EVERY ? "" : arena_printf(c->a, "write `%s`, or ", s->key);
            fieldpath_release(fp);
            return fn_fail(c, at,
                           "%s: field path `%s`: %s not supported by apply-replacements %s (kustomize api 0.10.1); "
                           "%sit needs v0.1.2 or later",
                           where, text, what, v, fix);
        }
    }
    return 0;
}

static int read_target(fn_ctx *c, const node *m, const char *where, target *t)
{
    static const char *const keys[] = {"select", "reject", "fieldPaths", "options", NULL};
    static const char *const select_keys[] = {"group",     "version",       "kind",       "name",
                                              "namespace", "labelSelector", "annotationSelector", NULL};
    int rc;
    if (!is_map(m))
        return fn_fail(c, m, "%s must be a map with select, reject, fieldPaths and options", where);
    if (only_keys(c, m, where, keys) < 0)
        return -1;
    const node *sel = map_field(c, m, "select", where, &rc);
    if (rc < 0)
        return -1;
    if (!sel)
        return fn_fail(c, m, "%s: a target must specify resources to select (`select`)", where);
    const char *sw = arena_printf(c->a, "%s.select", where);
    if (only_keys(c, sel, sw, select_keys) < 0 || read_selector(c, sel, sw, true, &t->select) < 0)
        return -1;

    const node *rej = seq_field(c, m, "reject", where, &rc);
    if (rc < 0)
        return -1;
    if (rej) {
        t->reject = arena_alloc(c->a, (node_len(rej) + 1) * sizeof *t->reject);
        seq_foreach(rej, i, r) {
            const char *rw = arena_printf(c->a, "%s.reject[%u]", where, i);
            if (!is_map(r))
                return fn_fail(c, r, "%s must be a map", rw);
            if (only_keys(c, r, rw, select_keys) < 0 || read_selector(c, r, rw, true, &t->reject[t->nreject++]) < 0)
                return -1;
        }
    }

    const node *o = map_field(c, m, "options", where, &rc);
    if (rc < 0 || read_options(c, o, arena_printf(c->a, "%s.options", where), true, &t->opts) < 0)
        return -1;

    const node *fps = seq_field(c, m, "fieldPaths", where, &rc);
    if (rc < 0)
        return -1;
    size_t n = node_len(fps);
    t->paths = arena_alloc(c->a, (n ? n : 1) * sizeof *t->paths);
    if (!n) {
        /* kustomize's default target field */
        if (read_path(c, m, "metadata.name", true, where, &t->paths[0]) < 0)
            return -1;
        t->npaths = 1;
    }
    seq_foreach(fps, i, p) {
        const char *pw = arena_printf(c->a, "%s.fieldPaths[%u]", where, i);
        if (!is_scalar(p) || is_null(p))
            return fn_fail(c, p, "%s must be a string", pw);
        if (read_path(c, p, scalar(p), true, pw, &t->paths[t->npaths]) < 0)
            return -1;
        t->npaths++;
    }
    return 0;
}

static int read_replacement(fn_ctx *c, const node *m, replacement *r)
{
    static const char *const keys[] = {"source", "sourceValue", "targets", NULL};
    static const char *const source_keys[] = {"group", "version", "kind", "name", "namespace", "fieldPath", "options",
                                              NULL};
    int rc;
    if (!is_map(m))
        return fn_fail(c, m, "%s must be a map with source and targets", r->where);
    if (only_keys(c, m, r->where, keys) < 0)
        return -1;
    const node *src = map_field(c, m, "source", r->where, &rc);
    if (rc < 0)
        return -1;
    const node *lit = map_get(m, "sourceValue");
    if (src && lit)
        return fn_fail(c, lit, "%s: give either source or sourceValue, not both", r->where);
    if (!src && !lit)
        return fn_fail(c, m, "%s: a replacement must specify a source", r->where);
    if (lit) {
        /* sourceValue came with kustomize 5.5 (api 0.18): the 0.10.1 one ignored it and found no source */
        if (kustomize_0_10(c))
            return fn_fail(c, lit, "%s: sourceValue is not supported by apply-replacements %s (kustomize api 0.10.1): "
                                   "a replacement needs a source there",
                           r->where, fn_version_str(c->a, &c->version));
        if (!is_scalar(lit))
            return fn_fail(c, lit, "%s.sourceValue must be a string", r->where);
        r->literal = node_str(c->a, scalar(lit));
    } else {
        const char *sw = arena_printf(c->a, "%s.source", r->where);
        const char *fp;
        if (only_keys(c, src, sw, source_keys) < 0 || read_selector(c, src, sw, false, &r->source) < 0 ||
            str_field(c, src, "fieldPath", sw, &fp) < 0)
            return -1;
        const node *o = map_field(c, src, "options", sw, &rc);
        if (rc < 0 || read_options(c, o, arena_printf(c->a, "%s.options", sw), false, &r->source_opts) < 0)
            return -1;
        /* the source is read the way kyaml's Lookup reads it: no regexes */
        if (read_path(c, map_get(src, "fieldPath"), fp && *fp ? fp : "metadata.name", false,
                      arena_printf(c->a, "%s.fieldPath", sw), &r->source_path) < 0)
            return -1;
        if (r->source_path.has_every)
            return fn_fail(c, map_get(src, "fieldPath"), "%s.fieldPath: '*' cannot be used where one value is read",
                           sw);
    }
    const node *ts = seq_field(c, m, "targets", r->where, &rc);
    if (rc < 0)
        return -1;
    if (!node_len(ts))
        return fn_fail(c, m, "%s: a replacement needs at least one target", r->where);
    r->targets = arena_alloc(c->a, node_len(ts) * sizeof *r->targets);
    seq_foreach(ts, i, item) {
        r->ntargets++; /* counted before reading, so a half-read target's patterns are released too */
        if (read_target(c, item, arena_printf(c->a, "%s.targets[%u]", r->where, i), &r->targets[i]) < 0)
            return -1;
    }
    return 0;
}

static void release(config *cf)
{
    for (size_t i = 0; i < cf->n; i++)
        for (size_t j = 0; j < cf->v[i].ntargets; j++)
            for (size_t k = 0; k < cf->v[i].targets[j].npaths; k++)
                fieldpath_release(&cf->v[i].targets[j].paths[k]);
}

/* Returns 1 when there is nothing to do. cf must be released even after an error. */
static int read_config(fn_ctx *c, config *cf)
{
    memset(cf, 0, sizeof *cf);
    const char *kind = path_str(c->config, "kind", NULL), *av = path_str(c->config, "apiVersion", NULL);
    if (!is_map(c->config) || !kind || strcmp(kind, CONFIG_KIND) || !av || strcmp(av, CONFIG_API_VERSION))
        return fn_fail(c, c->config,
                       "received functionConfig of kind `%s` and apiVersion `%s`; only kind " CONFIG_KIND
                       " with apiVersion " CONFIG_API_VERSION " is supported",
                       kind ? kind : "", av ? av : "");
    static const char *const keys[] = {"apiVersion", "kind", "metadata", "replacements", NULL};
    if (only_keys(c, c->config, CONFIG_KIND, keys) < 0)
        return -1;
    int rc;
    const node *list = seq_field(c, c->config, "replacements", CONFIG_KIND, &rc);
    if (rc < 0)
        return -1;
    if (!node_len(list))
        return 1;
    cf->v = arena_alloc(c->a, node_len(list) * sizeof *cf->v);
    seq_foreach(list, i, item) {
        replacement *r = &cf->v[cf->n++];
        r->where = arena_printf(c->a, "replacements[%u]", i);
        r->at = item;
        if (read_replacement(c, r->at, r) < 0)
            return -1;
    }
    return 0;
}

/* ---- selecting objects ---- */

/* One identity of an object: its current one, or a previous one kustomize recorded when it renamed it. */
typedef struct res_ident {
    const char *group, *version, *kind, *name, *namespace;
} res_ident;

static const char *const previous_keys[] = {"internal.config.kubernetes.io/previousNames",
                                            "internal.config.kubernetes.io/previousKinds",
                                            "internal.config.kubernetes.io/previousNamespaces"};

/* "a,b,c" into n parts; returns how many. */
static size_t split_commas(arena *a, const char *s, const char ***out)
{
    size_t n = 1;
    for (const char *p = s; *p; p++)
        n += *p == ',';
    *out = arena_alloc(a, n * sizeof **out);
    size_t i = 0;
    for (const char *p = s;; p++)
        if (*p == ',' || !*p) {
            (*out)[i++] = arena_strndup(a, s, (size_t)(p - s));
            s = p + 1;
            if (!*p)
                break;
        }
    return n;
}

static size_t identities(arena *a, const resource *r, res_ident **out)
{
    const char *av = res_api_version(r);
    av = av ? av : "";
    const char *slash = strrchr(av, '/');
    res_ident cur = {slash ? arena_strndup(a, av, (size_t)(slash - av)) : "", slash ? slash + 1 : av, res_kind(r),
                     res_name(r), res_namespace(r)};
    const char *prev[3];
    for (int i = 0; i < 3; i++)
        prev[i] = res_annotation(r, previous_keys[i]);
    const char **names = NULL, **kinds = NULL, **nss = NULL;
    size_t n = 0;
    /* kustomize keeps the three lists in step; lists that disagree say nothing reliable, so they are ignored */
    if (prev[0] && prev[1] && prev[2]) {
        n = split_commas(a, prev[0], &names);
        if (split_commas(a, prev[1], &kinds) != n || split_commas(a, prev[2], &nss) != n)
            n = 0;
    }
    *out = arena_alloc(a, (n + 1) * sizeof **out);
    (*out)[0] = cur;
    for (size_t i = 0; i < n; i++)
        (*out)[i + 1] = (res_ident){cur.group, cur.version, kinds[i], names[i], nss[i]};
    return n + 1;
}

static bool unset(const char *s)
{
    return !s || !*s;
}

/* kustomize's ResId.IsSelectedBy: empty selector fields match anything; namespaces compare with "" meaning
 * "default", and a cluster-scoped object has no namespace to compare (only a selector naming its kind gets past). */
static bool ident_selected(const selector *s, const res_ident *id)
{
    if (!unset(s->group) && strcmp(s->group, id->group ? id->group : ""))
        return false;
    if (!unset(s->version) && strcmp(s->version, id->version ? id->version : ""))
        return false;
    if (!unset(s->kind) && strcmp(s->kind, id->kind ? id->kind : ""))
        return false;
    if (!unset(s->name) && strcmp(s->name, id->name ? id->name : ""))
        return false;
    if (unset(s->namespace))
        return true;
    if (nameref_cluster_scoped(id->group, id->kind))
        return !unset(s->kind);
    const char *want = s->namespace, *have = id->namespace && *id->namespace ? id->namespace : "default";
    return !strcmp(want, have);
}

static bool has_ident_fields(const selector *s)
{
    return !unset(s->group) || !unset(s->version) || !unset(s->kind) || !unset(s->name) || !unset(s->namespace);
}

static bool labels_selected(const selector *s, const resource *r)
{
    if (s->labels && !label_selector_matches(s->labels, path_get(r->root, "metadata", "labels", NULL)))
        return false;
    if (s->annotations && !label_selector_matches(s->annotations, path_get(r->root, "metadata", "annotations", NULL)))
        return false;
    return true;
}

static bool rejected(const target *t, const resource *r, const res_ident *id)
{
    for (size_t i = 0; i < t->nreject; i++) {
        const selector *s = &t->reject[i];
        bool ids = has_ident_fields(s);
        if (!ids && !s->labels && !s->annotations)
            continue; /* an empty reject rejects nothing, as in kustomize */
        if (labels_selected(s, r) && (!ids || ident_selected(s, id)))
            return true;
    }
    return false;
}

/* kustomize 0.10.1 checks a reject against the id that selected the object; newer kustomize rejects the object when
 * any of its ids, current or previous, is rejected (so a renamed object cannot slip past under its old name). */
static bool target_selected(fn_ctx *c, const target *t, const resource *r)
{
    if (!labels_selected(&t->select, r))
        return false;
    res_ident *ids;
    size_t n = identities(c->a, r, &ids);
    bool per_id = kustomize_0_10(c);
    if (!per_id)
        for (size_t i = 0; i < n; i++)
            if (rejected(t, r, &ids[i]))
                return false;
    for (size_t i = 0; i < n; i++)
        if (ident_selected(&t->select, &ids[i]) && (!per_id || !rejected(t, r, &ids[i])))
            return true;
    return false;
}

static bool source_selected(arena *a, const selector *s, const resource *r)
{
    res_ident *ids;
    size_t n = identities(a, r, &ids);
    for (size_t i = 0; i < n; i++)
        if (ident_selected(s, &ids[i]))
            return true;
    return false;
}

/* ---- values ---- */

typedef struct strs {
    const char **v;
    size_t n;
} strs;

/* Go's strings.Split with a non-empty separator: "" gives one empty part. */
static strs split_on(arena *a, const char *s, const char *sep)
{
    size_t sl = strlen(sep), n = 1;
    for (const char *p = strstr(s, sep); p; p = strstr(p + sl, sep))
        n++;
    strs out = {arena_alloc(a, (n + 1) * sizeof *out.v), 0};
    for (;;) {
        const char *p = strstr(s, sep);
        if (!p) {
            out.v[out.n++] = s;
            return out;
        }
        out.v[out.n++] = arena_strndup(a, s, (size_t)(p - s));
        s = p + sl;
    }
}

static const char *join(arena *a, const strs *parts, const char *sep)
{
    size_t len = 0, sl = strlen(sep);
    for (size_t i = 0; i < parts->n; i++)
        len += strlen(parts->v[i]) + (i ? sl : 0);
    char *out = arena_alloc(a, len + 1), *p = out;
    for (size_t i = 0; i < parts->n; i++) {
        if (i) {
            memcpy(p, sep, sl);
            p += sl;
        }
        size_t l = strlen(parts->v[i]);
        memcpy(p, parts->v[i], l);
        p += l;
    }
    *p = '\0';
    return out;
}

static bool empty_value(const node *v)
{
    return !v || is_null(v) || (!is_scalar(v) && node_len(v) == 0);
}

/* A scalar target keeps its tag and style and takes the new text: a number stays a number if the text is one, and
 * a string stays a string (quoted if the text would read as something else). */
static void set_scalar(arena *a, node *t, const char *text)
{
    scalar_set(a, t, text, strlen(text), SCALAR_KEEP_TYPE);
}

/* The value a replacement copies, from its one source object. */
static int source_value(fn_ctx *c, const replacement *rp, node **out)
{
    if (rp->literal) {
        *out = rp->literal;
        return 0;
    }
    resource *src = NULL, *second = NULL;
    for (size_t i = 0; i < c->items->n && !second; i++) {
        resource *r = c->items->v[i];
        if (!r || !source_selected(c->a, &rp->source, r))
            continue;
        if (src)
            second = r;
        else
            src = r;
    }
    if (!src)
        return fn_fail(c, rp->at, "%s.source: nothing selected by {%s}", rp->where, rp->source.text);
    if (second)
        return fn_fail(c, rp->at, "%s.source: {%s} selects more than one object (%s and %s); it must select exactly one",
                       rp->where, rp->source.text, res_id(c->a, src), res_id(c->a, second));
    node *v;
    if (fieldpath_get(c->a, src->root, &rp->source_path, &v) < 0)
        return fn_locate_res(c, src, NULL, "%s.source", rp->where);
    if (empty_value(v))
        return fn_fail_res(c, src, NULL, "%s.source: fieldPath `%s` is missing or empty", rp->where,
                           rp->source_path.text);
    v = node_clone(c->a, v);
    const options *o = &rp->source_opts;
    if (o->delimiter && *o->delimiter) {
        if (!is_scalar(v))
            return fn_fail_res(c, src, NULL, "%s.source: options.delimiter needs a scalar, but `%s` is a %s",
                               rp->where, rp->source_path.text, is_map(v) ? "map" : "list");
        strs parts = split_on(c->a, scalar(v), o->delimiter);
        if (o->index < 0 || (size_t)o->index >= parts.n)
            return fn_fail_res(c, src, NULL, "%s.source: options.index %ld is out of bounds for value %s", rp->where,
                               o->index, scalar(v));
        set_scalar(c->a, v, parts.v[o->index]);
    }
    *out = v;
    return 0;
}

/* The target node takes value's content; its own line comment stays when the value brings none. */
static void replace_with(arena *a, node *t, const node *value)
{
    node *copy = node_clone(a, value);
    bool headless = !node_head(copy);
    node_move(t, copy);
    /* the comment lines above t go with what it held */
    if (headless)
        node_set_head(a, t, NULL);
}

/* options.delimiter: the target's text split on it, the source's text put at options.index (before the first part
 * when negative, appended past the end), joined again. NULL after an error. */
static const char *delimited_text(fn_ctx *c, resource *r, const char *where, const fieldpath *fp, const options *o,
                                  const node *t, const node *value)
{
    if (!is_scalar(t)) {
        fn_fail_res(c, r, t, "%s: options.delimiter needs a scalar target, but `%s` is a %s", where, fp->text,
                    is_map(t) ? "map" : "list");
        return NULL;
    }
    if (!is_scalar(value)) {
        fn_fail_res(c, r, t, "%s: options.delimiter needs a scalar source value", where);
        return NULL;
    }
    strs parts = split_on(c->a, is_null(t) ? "" : scalar(t), o->delimiter);
    if (o->index < 0) {
        const char **v = arena_alloc(c->a, (parts.n + 1) * sizeof *v);
        v[0] = scalar(value);
        memcpy(v + 1, parts.v, parts.n * sizeof *v);
        parts.v = v;
        parts.n++;
    } else if ((size_t)o->index >= parts.n) {
        parts.v[parts.n++] = scalar(value); /* split_on leaves room for one more */
    } else {
        parts.v[o->index] = scalar(value);
    }
    return join(c->a, &parts, o->delimiter);
}

static int set_target(fn_ctx *c, resource *r, const char *where, const fieldpath *fp, const options *o, node *t,
                      const node *value)
{
    const char *joined = NULL;
    if (o->delimiter && *o->delimiter && !(joined = delimited_text(c, r, where, fp, o, t, value)))
        return -1;
    if (kustomize_0_10(c)) {
        /* kustomize 0.10.1 puts the source node in the target's place: a scalar takes the source's tag and style
         * too (a quoted "3" turns an int target into a string); with a delimiter the source's node carries the
         * joined text, as kustomize sets Value on its copy */
        if (joined) {
            node *carrier = node_clone(c->a, value);
            scalar_set(c->a, carrier, joined, strlen(joined), SCALAR_KEEP_TYPE);
            value = carrier;
        }
        replace_with(c->a, t, value);
        return 0;
    }
    if (joined) {
        if (is_null(t))
            replace_with(c->a, t, value);
        set_scalar(c->a, t, joined);
    } else if (is_scalar(t) && !is_null(t) && is_scalar(value)) {
        set_scalar(c->a, t, scalar(value));
    } else {
        replace_with(c->a, t, value);
    }
    return 0;
}

static int apply_target(fn_ctx *c, const replacement *rp, size_t ti, const node *value)
{
    const target *t = &rp->targets[ti];
    const char *where = arena_printf(c->a, "%s.targets[%zu]", rp->where, ti);
    for (size_t i = 0; i < c->items->n; i++) {
        resource *r = c->items->v[i];
        if (!r || !target_selected(c, t, r))
            continue;
        for (size_t p = 0; p < t->npaths; p++) {
            nodelist found = {0};
            /* kustomize 0.10.1 walked a target with kyaml's PathGetter ([k=v] exact, first item only), newer
             * kustomize with its PathMatcher ([k=v] an unanchored regex over every item) */
            int frc = kustomize_0_10(c)
                          ? fieldpath_find_first(c->a, r->root, &t->paths[p], t->opts.create, &found)
                          : fieldpath_find(c->a, r->root, &t->paths[p], t->opts.create, &found);
            if (frc < 0)
                return fn_locate_res(c, r, NULL, "%s", where);
            /* kustomize 0.10.1 skips a target whose path is not there; newer kustomize fails, so a typo in a path or
             * a renamed field does not quietly leave the old value in place */
            if (!found.n && !kustomize_0_10(c))
                return fn_fail_res(c, r, NULL, "%s: unable to %s field \"%s\" in the target%s", where,
                                   t->opts.create ? "find or create" : "find", t->paths[p].text,
                                   t->opts.create ? "" : " (options.create adds it)");
            for (size_t k = 0; k < found.n; k++)
                if (set_target(c, r, where, &t->paths[p], &t->opts, found.v[k], value) < 0)
                    return -1;
        }
    }
    return 0;
}

static int run(fn_ctx *c)
{
    /* v0.1.0 had no check of its own: a missing config failed the kind check, with an empty kind */
    if (!c->config && !fn_version_before(&c->version, 0, 1, 1))
        return fn_fail(c, NULL,
                       "FunctionConfig is missing: apply-replacements needs a functionConfig of kind " CONFIG_KIND
                       " (apiVersion " CONFIG_API_VERSION ")");
    config cf;
    int rc = read_config(c, &cf);
    if (rc == 1) {
        fn_result_add(c, SEV_WARNING, NULL, NULL, "no replacements to apply");
        return 0;
    }
    for (size_t i = 0; rc == 0 && i < cf.n; i++) {
        node *value = NULL;
        rc = source_value(c, &cf.v[i], &value);
        for (size_t t = 0; rc == 0 && t < cf.v[i].ntargets; t++)
            rc = apply_target(c, &cf.v[i], t, value);
    }
    release(&cf);
    return rc < 0 ? -1 : 0;
}

const fn_def fn_apply_replacements = {
    .name = "apply-replacements",
    .summary = "copy fields from one object into fields of others (kustomize replacements)",
    .run = run,
    .releases = "0.1.0 0.1.1 0.1.2",
    .readme = {
        .does = "kustomize replacements (field paths with `[k=v]`, label and annotation selectors, delimiters, "
                "`create`)",
        .differs = "a created field (or a null target) takes the source's type; a `reject` needs all its criteria to "
                "match; unknown config keys and `*` in a source path are errors; an empty list is a warning; v0.1.x: "
                "`*` and a bracketed key with no dot in it (`[key]`, `[a\\.b]`) are errors wherever they stand "
                "(kustomize 0.10.1 fails only when the walk reaches them, and with `create` adds a key named `*`)",
        .versions = "v0.1.0–v0.1.1 (kustomize api 0.10.1): a scalar target takes the source node with its tag and style "
                "(a quoted `\"3\"` makes an int a string), a target path that is not there is skipped, no `*`, `[a.b]` "
                "is the key `a.b` (its path splitter drops brackets the dots split) but `[key]` is refused (kyaml "
                "read it as a list selector without `=`), a target's `[k=v]` is exact and takes the first item, a "
                "reject is checked against the selecting id, no `sourceValue`; v0.1.0 reports a missing config as an "
                "empty kind · v0.1.2, `latest`, `unstable` (api 0.19; gcr's `unstable` was the 2022-07 master, "
                "between the two, which no tag can tell from today's): a scalar target keeps its tag and style, a "
                "missing target path is an error unless `create`, `*` (with `create` too), `[k=v]` an unanchored "
                "regex over every item, `reject` matches current and previous ids, `sourceValue`",
    },
};
