#include "argocd/settings.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "util/fsutil.h"
#include "yaml/emit.h"
#include "yaml/load.h"

const setting_def setting_defs[] = {
    {"annotation-domain", SETTING_STRING, "Annotation domain",
     "Prefix of the annotations that carry the Argo CD application metadata (<domain>/app, /revision, ...).",
     "cmp-generate", false},
    {"stamp", SETTING_STRING, "Metadata annotations",
     "Which metadata annotations to stamp on every object: all, none, or a comma-separated list of app, "
     "app-namespace, project, revision, repo, target-revision, path.",
     "all", false},
    {"namespace", SETTING_STRING, "Namespace",
     "Applied after the package's pipeline as a final set-namespace step (namespaced objects and references).", NULL, false},
    {"labels", SETTING_MAP, "Labels", "Labels applied last, as a set-labels step over every object.", NULL, false},
    {"annotations", SETTING_MAP, "Annotations", "Annotations applied last, as a set-annotations step over every object.",
     NULL, false},
    {"images", SETTING_ARRAY, "Images",
     "Image overrides applied last as set-image steps: name=newName:newTag, name=newName@sha256:..., name:newTag or "
     "name@sha256:....",
     NULL, false},
    {"setters", SETTING_MAP, "Setters",
     "Values that override the package's apply-setters values before the pipeline runs; each must be a setter the "
     "package defines.",
     NULL, true},
    {"helm-values", SETTING_STRING, "Helm values",
     "YAML values merged over the values of every render-helm-chart step (passed to helm template last, so they win).",
     NULL, true},
    {"timeout", SETTING_STRING, "Time budget (seconds)",
     "The render fails cleanly after this many seconds, before Argo CD's 60 s deadline.", "45", false},
};
const int setting_count = (int)(sizeof setting_defs / sizeof *setting_defs);

static const char *const stamp_keys[] = {"app", "app-namespace", "project", "revision", "repo", "target-revision",
                                         "path", NULL};

static char *escape_name(arena *a, const char *prefix, const char *name)
{
    char *s = arena_printf(a, "%s%s", prefix, name);
    for (char *p = s + strlen(prefix); *p; p++)
        *p = isalnum((unsigned char)*p) ? (char)toupper((unsigned char)*p) : '_';
    return s;
}

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

struct reader {
    arena *a;
    strtab *st;
    node *params; /* ARGOCD_APP_PARAMETERS, a sequence, or NULL */
};

static const node *param_entry(struct reader *R, const char *name)
{
    for (uint32_t i = 0; R->params && i < R->params->c.n; i++)
        if (scalar_is(map_get(R->params->c.kids[i], "name"), name))
            return R->params->c.kids[i];
    return NULL;
}

/* Text from plugin env or sidecar env holding a list or a map: YAML/JSON, or "a,b" / "k=v,k2=v2". */
static int parse_text(struct reader *R, const char *what, const char *text, enum setting_kind kind, node **out)
{
    node *n = NULL;
    diag_clear();
    if ((text[0] == '[' || text[0] == '{' || strchr(text, '\n')) &&
        yaml_load_one(R->a, R->st, what, text, strlen(text), &n) == 0 && n) {
        if ((kind == SETTING_ARRAY && is_seq(n)) || (kind == SETTING_MAP && is_map(n))) {
            *out = n;
            return 0;
        }
    }
    diag_clear();
    n = kind == SETTING_ARRAY ? node_seq(R->a) : node_map(R->a);
    const char *p = text;
    while (*p) {
        size_t len = strcspn(p, ",");
        char *item = arena_strndup(R->a, p, len);
        while (*item == ' ')
            item++;
        for (size_t e = strlen(item); e && item[e - 1] == ' ';)
            item[--e] = 0;
        if (*item) {
            if (kind == SETTING_ARRAY) {
                seq_append(R->a, n, node_str(R->a, item));
            } else {
                char *eq = strchr(item, '=');
                if (!eq)
                    return fail(NULL, 0, "%s: \"%s\" is not key=value (give a map as k=v,k2=v2 or as YAML)", what, item);
                *eq = 0;
                map_set(R->a, n, item, node_str(R->a, eq + 1));
            }
        }
        p += len + (p[len] == ',');
    }
    *out = n;
    return 0;
}

static int read_setting(struct reader *R, const setting_def *d, const char **str, node **coll)
{
    *str = NULL;
    *coll = NULL;
    const node *e = param_entry(R, d->name);
    const char *kinds[] = {"string", "array", "map"};
    if (e) {
        for (int k = 0; k < 3; k++) {
            const node *v = map_get(e, kinds[k]);
            if (!v || is_null(v))
                continue;
            if (k != (int)d->kind)
                return fail(NULL, 0, "parameter \"%s\" must be a %s, got a %s", d->name, kinds[d->kind], kinds[k]);
            if (k == SETTING_STRING) {
                if (!scalar(v))
                    return fail(NULL, 0, "parameter \"%s\" must be a string", d->name);
                *str = scalar(v);
            } else {
                if ((k == SETTING_ARRAY && !is_seq(v)) || (k == SETTING_MAP && !is_map(v)))
                    return fail(NULL, 0, "parameter \"%s\" must be a%s %s", d->name, k == 1 ? "n" : "", kinds[k]);
                uint32_t slots = k == SETTING_MAP ? 2 * v->c.n : v->c.n;
                for (uint32_t i = 0; i < slots; i++)
                    if (!scalar(v->c.kids[i]))
                        return fail(NULL, 0, "parameter \"%s\" must hold strings only", d->name);
                *coll = (node *)v;
            }
            return 0;
        }
        *str = d->def; /* named without a value: as if not given */
        return 0;
    }
    const char *pname = escape_name(R->a, "PARAM_", d->name);
    if (d->kind == SETTING_STRING && env(pname)) {
        *str = env(pname);
        if (utf8_check((const unsigned char *)*str, strlen(*str)) != strlen(*str))
            return fail(NULL, 0, "%s (parameter \"%s\") is not valid UTF-8", pname, d->name);
        return 0;
    }
    if (d->kind == SETTING_ARRAY && env(arena_printf(R->a, "%s_0", pname))) {
        node *s = node_seq(R->a);
        for (int i = 0;; i++) {
            const char *v = env(arena_printf(R->a, "%s_%d", pname, i));
            if (!v)
                break;
            if (utf8_check((const unsigned char *)v, strlen(v)) != strlen(v))
                return fail(NULL, 0, "%s_%d (parameter \"%s\") is not valid UTF-8", pname, i, d->name);
            seq_append(R->a, s, node_str(R->a, v));
        }
        *coll = s;
        return 0;
    }
    const char *text = env(escape_name(R->a, "ARGOCD_ENV_", d->name));
    const char *from = escape_name(R->a, "ARGOCD_ENV_", d->name);
    if (!text) {
        text = env(escape_name(R->a, "", d->name));
        from = escape_name(R->a, "", d->name);
    }
    if (!text) {
        *str = d->def;
        return 0;
    }
    if (utf8_check((const unsigned char *)text, strlen(text)) != strlen(text))
        return fail(NULL, 0, "%s (parameter \"%s\") is not valid UTF-8", from, d->name);
    if (d->kind == SETTING_STRING) {
        *str = text;
        return 0;
    }
    if (parse_text(R, from, text, d->kind, coll) < 0)
        return -1;
    uint32_t slots = d->kind == SETTING_MAP ? 2 * (*coll)->c.n : (*coll)->c.n;
    for (uint32_t i = 0; i < slots; i++)
        if (!scalar((*coll)->c.kids[i]))
            return fail(NULL, 0, "%s (parameter \"%s\") must hold strings only", from, d->name);
    return 0;
}

bool settings_stamps(const settings *s, const char *key)
{
    if (!s->stamp || !strcmp(s->stamp, "all"))
        return true;
    if (!strcmp(s->stamp, "none"))
        return false;
    size_t n = strlen(key);
    for (const char *p = s->stamp; *p;) {
        while (*p == ' ' || *p == ',')
            p++;
        size_t len = strcspn(p, ", ");
        if (len == n && !strncmp(p, key, n))
            return true;
        p += len;
    }
    return false;
}

static int check_stamp(const char *stamp)
{
    if (!strcmp(stamp, "all") || !strcmp(stamp, "none"))
        return 0;
    for (const char *p = stamp; *p;) {
        while (*p == ' ' || *p == ',')
            p++;
        size_t len = strcspn(p, ", ");
        if (!len)
            break;
        bool ok = false;
        for (const char *const *k = stamp_keys; *k && !ok; k++)
            ok = strlen(*k) == len && !strncmp(*k, p, len);
        if (!ok)
            return fail(NULL, 0, "parameter \"stamp\": unknown annotation \"%.*s\" (all, none, or a list of app, "
                                 "app-namespace, project, revision, repo, target-revision, path)",
                        (int)len, p);
        p += len;
    }
    return 0;
}

int settings_load(arena *a, strtab *st, settings *out)
{
    memset(out, 0, sizeof *out);
    struct reader R = {a, st, NULL};
    const char *raw = env("ARGOCD_APP_PARAMETERS");
    if (raw && strcmp(raw, "null")) {
        node *p = NULL;
        if (yaml_load_one(a, st, "ARGOCD_APP_PARAMETERS", raw, strlen(raw), &p) < 0) {
            char msg[512];
            const char *why = strstr(diag_message(), "invalid YAML: ");
            const char *step = strstr(diag_message(), "parameters: ");
            snprintf(msg, sizeof msg, "%s", why ? why + 14 : step ? step + 12 : diag_message());
            diag_clear();
            return fail(NULL, 0, "ARGOCD_APP_PARAMETERS is not valid JSON: %s", msg);
        }
        if (p && !is_null(p) && !is_seq(p))
            return fail(NULL, 0, "ARGOCD_APP_PARAMETERS must be a JSON array of parameters");
        R.params = is_seq(p) ? p : NULL;
        for (uint32_t i = 0; R.params && i < R.params->c.n; i++) {
            const node *e = R.params->c.kids[i];
            const char *name = path_str(e, "name", NULL);
            if (!is_map(e) || !name)
                return fail(NULL, 0, "ARGOCD_APP_PARAMETERS: entry %u has no name", i);
            bool known = false;
            for (int k = 0; k < setting_count && !known; k++)
                known = !strcmp(setting_defs[k].name, name);
            if (!known)
                return fail(NULL, 0, "unknown parameter \"%s\" (known: annotation-domain, stamp, namespace, labels, "
                                     "annotations, images, setters, helm-values, timeout)",
                            name);
        }
    }
    for (int i = 0; i < setting_count; i++) {
        const setting_def *d = &setting_defs[i];
        const char *s;
        node *c;
        if (read_setting(&R, d, &s, &c) < 0)
            return -1;
        if (!strcmp(d->name, "annotation-domain"))
            out->annotation_domain = s;
        else if (!strcmp(d->name, "stamp"))
            out->stamp = s;
        else if (!strcmp(d->name, "namespace"))
            out->namespace = s && *s ? s : NULL;
        else if (!strcmp(d->name, "labels"))
            out->labels = c;
        else if (!strcmp(d->name, "annotations"))
            out->annotations = c;
        else if (!strcmp(d->name, "images"))
            out->images = c;
        else if (!strcmp(d->name, "setters"))
            out->setters = c;
        else if (!strcmp(d->name, "helm-values")) {
            if (s && *s) {
                node *v = NULL;
                if (yaml_load_one(a, st, "helm-values", s, strlen(s), &v) < 0 || (v && !is_null(v) && !is_map(v))) {
                    diag_clear();
                    return fail(NULL, 0, "parameter \"helm-values\" must be a YAML map of Helm values");
                }
                out->helm_values = s;
            }
        } else if (!strcmp(d->name, "timeout")) {
            unsigned long long t;
            if (parse_env_number(s ? s : "45", false, 1, 3600, &t) < 0)
                return fail(NULL, 0, "parameter \"timeout\" must be a number of seconds from 1 to 3600, got \"%s\"", s);
            out->timeout_seconds = (int)t;
        }
    }
    return out->stamp ? check_stamp(out->stamp) : 0;
}

static const char *kind_name(enum setting_kind k)
{
    return k == SETTING_STRING ? "string" : k == SETTING_ARRAY ? "array" : "map";
}

void settings_announce_json(buf *b)
{
    buf_putc(b, '[');
    bool first = true;
    for (int i = 0; i < setting_count; i++) {
        const setting_def *d = &setting_defs[i];
        if (d->per_package)
            continue;
        if (!first)
            buf_putc(b, ',');
        first = false;
        buf_puts(b, "{\"name\":");
        json_quote(b, d->name);
        buf_puts(b, ",\"title\":");
        json_quote(b, d->title);
        buf_puts(b, ",\"tooltip\":");
        json_quote(b, d->tooltip);
        buf_printf(b, ",\"collectionType\":\"%s\"", kind_name(d->kind));
        if (d->def) {
            buf_puts(b, ",\"string\":");
            json_quote(b, d->def);
        }
        buf_putc(b, '}');
    }
    buf_putc(b, ']');
}

void settings_announce_yaml(buf *b, int indent)
{
    arena *a = arena_new();
    node *list = node_seq(a);
    for (int i = 0; i < setting_count; i++) {
        const setting_def *d = &setting_defs[i];
        if (d->per_package)
            continue;
        node *m = node_map(a);
        map_set(a, m, "name", node_str(a, d->name));
        map_set(a, m, "title", node_str(a, d->title));
        map_set(a, m, "tooltip", node_str(a, d->tooltip));
        map_set(a, m, "collectionType", node_str(a, kind_name(d->kind)));
        if (d->def)
            map_set(a, m, "string", node_str(a, d->def));
        seq_append(a, list, m);
    }
    buf tmp = {0};
    emit_opts eo = {.seq_wide = false, .comments = false};
    emit_yaml(&tmp, list, &eo);
    const char *s = buf_cstr(&tmp);
    while (*s) {
        size_t n = strcspn(s, "\n");
        buf_indent(b, indent);
        buf_put(b, s, n);
        buf_putc(b, '\n');
        s += n + (s[n] == '\n');
    }
    buf_free(&tmp);
    arena_free(a);
}

void settings_markdown(buf *b)
{
    buf_puts(b, "| parameter | type | default | environment | what it does |\n| --- | --- | --- | --- | --- |\n");
    arena *a = arena_new();
    for (int i = 0; i < setting_count; i++) {
        const setting_def *d = &setting_defs[i];
        buf_printf(b, "| `%s` | %s | %s | `PARAM_%s`, `ARGOCD_ENV_%s`, `%s` | %s |\n", d->name, kind_name(d->kind),
                   d->def ? arena_printf(a, "`%s`", d->def) : "", escape_name(a, "", d->name) ,
                   escape_name(a, "", d->name), escape_name(a, "", d->name), d->tooltip);
    }
    arena_free(a);
}
