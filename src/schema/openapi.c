/* A structural validator for the subset of JSON Schema that the Kubernetes swagger document uses, as the JSON
 * schemas kubeconform and kubeval read are generated from it (openapi2jsonschema):
 *   - a property the parent does not require also accepts null (their "allow null on optional fields");
 *   - format int-or-string accepts a string or an integer; the Quantity definition a string or a number;
 *   - format date-time is checked (RFC 3339), other formats (int32, byte...) are not, as the validators do;
 *   - strict: an object schema with properties and no additionalProperties refuses other keys (the "-strict"
 *     schemas); a schema with no type accepts anything (free-form JSON, RawExtension).
 * $refs ("#/definitions/NAME") are followed with a depth bound, and the walk stops after max_errors errors.
 * A CustomResourceDefinition's openAPIV3Schema (opts.crd) is read as the API server reads it: null only where
 * `nullable: true`, x-kubernetes-int-or-string, x-kubernetes-preserve-unknown-fields (unknown fields are kept, even
 * in strict mode), enum, and apiVersion, kind and metadata always allowed at the root. */
#include "schema/openapi.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "util/diag.h"
#include "yaml/load.h"
#include "yaml/scalar.h"

#define REF_PREFIX "#/definitions/"
#define QUANTITY_DEF "io.k8s.apimachinery.pkg.api.resource.Quantity"
#define MAX_DEPTH 96  /* nesting of schema and value together: Kubernetes types nest about 15 deep */
#define PATH_MAX_LEN 1024

typedef struct gvk_entry {
    const char *api_version, *kind;
    const node *def;
} gvk_entry;

struct openapi {
    const node *defs;
    gvk_entry *kinds;
    size_t nkinds;
};

static char *read_all(const char *path, size_t max_bytes, size_t *len)
{
    gzFile f = gzopen(path, "rb");
    if (!f) {
        fail(path, 0, "cannot open the Kubernetes OpenAPI document");
        return NULL;
    }
    /* room for one byte past the bound, to tell a document of exactly max_bytes from a larger one */
    size_t cap = max_bytes < (1u << 20) ? max_bytes + 1 : 1u << 20, n = 0;
    char *d = xmalloc(cap + 1);
    for (;;) {
        if (n > max_bytes) {
            gzclose(f);
            xfree(d);
            fail(path, 0, "the Kubernetes OpenAPI document is larger than %zu bytes", max_bytes);
            return NULL;
        }
        if (n == cap) {
            cap = cap * 2 > max_bytes + 1 ? max_bytes + 1 : cap * 2;
            d = xrealloc(d, cap + 1);
        }
        int got = gzread(f, d + n, (unsigned)(cap - n > (1u << 30) ? (1u << 30) : cap - n));
        if (got < 0) {
            gzclose(f);
            xfree(d);
            fail(path, 0, "cannot read the Kubernetes OpenAPI document (corrupt gzip data)");
            return NULL;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    gzclose(f);
    d[n] = 0;
    *len = n;
    return d;
}

openapi *openapi_load(arena *a, strtab *st, const load_limits *lim, const char *path, size_t max_bytes)
{
    size_t len = 0;
    char *text = read_all(path, max_bytes, &len);
    if (!text)
        return NULL;
    node *root = NULL;
    int rc = yaml_load_one(a, st, lim, path, text, len, &root);
    xfree(text);
    if (rc < 0)
        return NULL;
    const node *defs = is_map(root) ? map_get(root, "definitions") : NULL;
    if (!is_map(defs)) {
        fail(path, 0, "not a swagger document: no definitions map");
        return NULL;
    }
    openapi *o = arena_alloc(a, sizeof *o);
    o->defs = defs;
    size_t cap = 0;
    map_foreach(defs, i, key, d) {
        const node *g = is_map(d) ? map_get(d, "x-kubernetes-group-version-kind") : NULL;
        if (!is_seq(g))
            continue;
        /* a definition whose name is not io.k8s.api...: meta types (DeleteOptions, WatchEvent) that list every
         * group's versions, which no object is */
        const char *name = scalar(key);
        if (!strcmp(name, "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions") ||
            !strcmp(name, "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent"))
            continue;
        seq_foreach(g, j, e) {
            const char *grp = path_str(e, "group", NULL), *ver = path_str(e, "version", NULL),
                       *kind = path_str(e, "kind", NULL);
            if (!grp || !ver || !kind)
                continue;
            if (o->nkinds == cap) {
                size_t ncap = cap ? cap * 2 : 256;
                gvk_entry *nk = arena_alloc(a, ncap * sizeof *nk);
                if (o->nkinds)
                    memcpy(nk, o->kinds, o->nkinds * sizeof *nk);
                o->kinds = nk;
                cap = ncap;
            }
            o->kinds[o->nkinds++] = (gvk_entry){
                .api_version = *grp ? arena_printf(a, "%s/%s", grp, ver) : ver,
                .kind = kind,
                .def = d,
            };
        }
    }
    return o;
}

const node *openapi_kind(const openapi *o, const char *api_version, const char *kind)
{
    if (!o || !api_version || !kind)
        return NULL;
    for (size_t i = 0; i < o->nkinds; i++)
        if (!strcmp(o->kinds[i].kind, kind) && !strcmp(o->kinds[i].api_version, api_version))
            return o->kinds[i].def;
    return NULL;
}

size_t openapi_kind_count(const openapi *o)
{
    return o ? o->nkinds : 0;
}

/* ---- date-time: RFC 3339 as Go's time.Parse(time.RFC3339) takes it ---- */
static bool digits(const char *s, int n)
{
    for (int i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return false;
    return true;
}

static int num(const char *s, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++)
        v = v * 10 + (s[i] - '0');
    return v;
}

bool openapi_is_date_time(const char *s)
{
    /* YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM) */
    if (strlen(s) < 20 || !digits(s, 4) || s[4] != '-' || !digits(s + 5, 2) || s[7] != '-' || !digits(s + 8, 2) ||
        (s[10] != 'T' && s[10] != 't') || !digits(s + 11, 2) || s[13] != ':' || !digits(s + 14, 2) || s[16] != ':' ||
        !digits(s + 17, 2))
        return false;
    int mon = num(s + 5, 2), day = num(s + 8, 2), year = num(s, 4);
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (mon < 1 || mon > 12 || day < 1 || day > mdays[mon - 1])
        return false;
    if (mon == 2 && day == 29 && !(year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)))
        return false;
    if (num(s + 11, 2) > 23 || num(s + 14, 2) > 59 || num(s + 17, 2) > 59)
        return false;
    const char *p = s + 19;
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p))
            return false;
        while (isdigit((unsigned char)*p))
            p++;
    }
    if ((*p == 'Z' || *p == 'z') && !p[1])
        return true;
    if ((*p == '+' || *p == '-') && digits(p + 1, 2) && p[3] == ':' && digits(p + 4, 2) && !p[6])
        return num(p + 1, 2) <= 23 && num(p + 4, 2) <= 59;
    return false;
}

/* ---- the walk ---- */
enum vtype { V_NULL, V_BOOLEAN, V_INTEGER, V_NUMBER, V_STRING, V_ARRAY, V_OBJECT };

typedef struct walk {
    arena *a;
    const openapi *o;
    const openapi_opts *opt;
    openapi_report report;
    void *ud;
    size_t errors, max_errors;
    char path[PATH_MAX_LEN];
    size_t plen;
} walk;

static enum vtype vtype_of(const node *v)
{
    if (is_map(v))
        return V_OBJECT;
    if (is_seq(v))
        return V_ARRAY;
    switch (node_type(v)) {
    case T_NULL: return V_NULL;
    case T_BOOL: return V_BOOLEAN;
    case T_INT: return V_INTEGER;
    case T_FLOAT: return V_NUMBER;
    default: return V_STRING;
    }
}

/* The given type in each dialect's words: gojsonschema tells integers from numbers, santhosh-tekuri does not. */
static const char *given_name(const walk *w, enum vtype t)
{
    static const char *names[] = {"null", "boolean", "integer", "number", "string", "array", "object"};
    if (t == V_INTEGER && w->opt->dialect == OPENAPI_KUBECONFORM)
        return "number";
    return names[t];
}

static void report_error(walk *w, const char *field, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void report_error(walk *w, const char *field, const char *fmt, ...)
{
    if (w->errors >= w->max_errors)
        return;
    w->errors++;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    w->report(w->ud, field ? field : w->path, msg);
}

static size_t path_push(walk *w, const char *seg)
{
    size_t old = w->plen;
    int n = snprintf(w->path + w->plen, sizeof w->path - w->plen, "%s%s", w->plen ? "." : "", seg);
    if (n > 0)
        w->plen = w->plen + (size_t)n < sizeof w->path ? w->plen + (size_t)n : sizeof w->path - 1;
    return old;
}

static void path_pop(walk *w, size_t old)
{
    w->plen = old;
    w->path[old] = 0;
}

static const node *deref(walk *w, const node *s, const char **name)
{
    for (int hops = 0; is_map(s); hops++) {
        const char *ref = path_str(s, "$ref", NULL);
        if (!ref)
            return s;
        if (hops >= 16 || strncmp(ref, REF_PREFIX, strlen(REF_PREFIX)))
            return NULL;
        *name = ref + strlen(REF_PREFIX);
        s = map_get(w->o->defs, *name);
    }
    return s;
}

static bool requires(const node *s, const char *key)
{
    const node *r = map_get(s, "required");
    seq_foreach(r, i, item)
        if (scalar_is(item, key))
            return true;
    return false;
}

static void want_err(walk *w, enum vtype given, const char *want, bool nullable)
{
    if (w->opt->dialect == OPENAPI_KUBECONFORM)
        report_error(w, NULL, "got %s, want %s%s", given_name(w, given), nullable ? "null or " : "", want);
    else if (nullable)
        report_error(w, NULL, "Invalid type. Expected: [%s,null], given: %s", want, given_name(w, given));
    else
        report_error(w, NULL, "Invalid type. Expected: %s, given: %s", want, given_name(w, given));
}

static void check(walk *w, const node *s, const node *v, bool nullable, int depth);

/* enum (CRD schemas): a scalar equal in text and type to one of the values; false after reporting */
static bool check_enum(walk *w, const node *s, const node *v)
{
    const node *e = map_get(s, "enum");
    if (!is_seq(e) || !node_len(e))
        return true;
    seq_foreach(e, i, x) {
        if (is_scalar(x) && is_scalar(v) && !strcmp(scalar(x), scalar(v)) &&
            (node_type(x) == T_STR) == (node_type(v) == T_STR))
            return true;
    }
    char list[256];
    size_t n = 0;
    list[0] = 0;
    seq_foreach(e, i, x) {
        if (n + 8 >= sizeof list)
            break;
        int k = snprintf(list + n, sizeof list - n, "%s%s%s%s", i ? ", " : "", w->opt->dialect == OPENAPI_KUBEVAL ? "\"" : "'",
                         is_scalar(x) ? scalar(x) : "?", w->opt->dialect == OPENAPI_KUBEVAL ? "\"" : "'");
        if (k < 0 || (size_t)k >= sizeof list - n) {
            list[n] = 0;
            break;
        }
        n += (size_t)k;
    }
    if (w->opt->dialect == OPENAPI_KUBEVAL)
        report_error(w, NULL, "%s must be one of the following: %s", w->plen ? w->path : "(root)", list);
    else
        report_error(w, NULL, "value must be one of %s", list);
    return false;
}

static void check_object(walk *w, const node *s, const node *v, int depth)
{
    const node *props = map_get(s, "properties");
    const node *addl = map_get(s, "additionalProperties");
    bool kubeval = w->opt->dialect == OPENAPI_KUBEVAL;
    const node *req = map_get(s, "required");
    seq_foreach(req, i, item) {
        const char *k = scalar(item);
        if (k && !map_get(v, k)) {
            if (kubeval)
                report_error(w, k, "%s is required", k);
            else
                report_error(w, NULL, "missing property '%s'", k);
        }
    }
    bool crd = w->opt->crd;
    bool closed = w->opt->strict && is_map(props) && !addl &&
                  !(crd && is_scalar(map_get(s, "x-kubernetes-preserve-unknown-fields")) &&
                    scalar_is(map_get(s, "x-kubernetes-preserve-unknown-fields"), "true"));
    /* kubeval reports the object's unknown keys before what is wrong inside it; kubeconform after */
    for (int pass = 0; pass < 2; pass++) {
        bool unknown_pass = (pass == 0) == kubeval;
        map_foreach(v, i, kn, val) {
            const char *k = is_scalar(kn) ? scalar(kn) : "";
            const node *ps = is_map(props) ? map_get(props, k) : NULL;
            if (unknown_pass) {
                if (!ps && closed &&
                    !(crd && depth == 0 && (!strcmp(k, "apiVersion") || !strcmp(k, "kind") || !strcmp(k, "metadata")))) {
                    if (kubeval)
                        report_error(w, k, "Additional property %s is not allowed", k);
                    else
                        report_error(w, NULL, "additional properties '%s' not allowed", k);
                }
                continue;
            }
            if (!ps && is_map(addl))
                ps = addl;
            if (!ps)
                continue;
            size_t old = path_push(w, k);
            check(w, ps, val, !crd && ps != addl && !requires(s, k), depth + 1);
            path_pop(w, old);
        }
    }
}

static void check(walk *w, const node *s, const node *v, bool nullable, int depth)
{
    if (w->errors >= w->max_errors || depth > MAX_DEPTH)
        return;
    const char *name = NULL;
    s = deref(w, s, &name);
    if (!is_map(s))
        return; /* a $ref the document does not define: nothing to check against */
    enum vtype t = vtype_of(v);
    if (w->opt->crd)
        nullable = scalar_is(map_get(s, "nullable"), "true");
    if (t == V_NULL && nullable)
        return;
    if (w->opt->crd && !check_enum(w, s, v))
        return;
    const char *type = path_str(s, "type", NULL), *format = path_str(s, "format", NULL);
    bool kubeval = w->opt->dialect == OPENAPI_KUBEVAL;
    bool int_or_string = w->opt->crd && scalar_is(map_get(s, "x-kubernetes-int-or-string"), "true");
    if (int_or_string || (format && !strcmp(format, "int-or-string")) || (name && !strcmp(name, QUANTITY_DEF))) {
        bool quantity = !int_or_string && (!format || strcmp(format, "int-or-string"));
        if (t == V_STRING || t == V_INTEGER || (quantity && t == V_NUMBER))
            return;
        if (kubeval)
            report_error(w, NULL, "Must validate one and only one schema (oneOf)");
        else
            report_error(w, NULL, "got %s, want %s", given_name(w, t), quantity ? "string or number" : "string or integer");
        return;
    }
    if (!type)
        return; /* free-form: accepts anything */
    bool ok;
    if (!strcmp(type, "object"))
        ok = t == V_OBJECT;
    else if (!strcmp(type, "array"))
        ok = t == V_ARRAY;
    else if (!strcmp(type, "string"))
        ok = t == V_STRING;
    else if (!strcmp(type, "integer"))
        ok = t == V_INTEGER;
    else if (!strcmp(type, "number"))
        ok = t == V_INTEGER || t == V_NUMBER;
    else if (!strcmp(type, "boolean"))
        ok = t == V_BOOLEAN;
    else
        ok = true;
    if (!ok) {
        want_err(w, t, type, nullable);
        return;
    }
    if (t == V_OBJECT) {
        check_object(w, s, v, depth);
    } else if (t == V_ARRAY) {
        const node *items = map_get(s, "items");
        if (!items)
            return;
        seq_foreach(v, i, item) {
            if (w->errors >= w->max_errors)
                break;
            char idx[16];
            snprintf(idx, sizeof idx, "%u", i);
            size_t old = path_push(w, idx);
            check(w, items, item, false, depth + 1);
            path_pop(w, old);
        }
    } else if (t == V_STRING && format && !strcmp(format, "date-time") && !openapi_is_date_time(scalar(v))) {
        if (kubeval)
            report_error(w, NULL, "Does not match format 'date-time'");
        else
            report_error(w, NULL, "'%s' is not valid 'date-time'", scalar(v));
    }
}

size_t openapi_validate(arena *a, const openapi *o, const node *def, const node *obj, const openapi_opts *opt,
                        openapi_report report, void *ud)
{
    walk w = {.a = a, .o = o, .opt = opt, .report = report, .ud = ud, .max_errors = opt->max_errors ? opt->max_errors : 100};
    w.path[0] = 0;
    check(&w, def, obj, false, 0);
    return w.errors;
}
