#include "settings/settings.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "settings/helm_parameters.h"
#include "settings/host.h"
#include "settings/value_rules.h"
#include "kustomize/helm_guard.h"
#include "order/order.h"
#include "flux/flux.h"
#include "util/diag.h"
#include "util/fsutil.h"
#include "yaml/emit.h"
#include "yaml/load.h"

#define DEFAULT_STAMP "app,app-namespace,project,repo,target-revision,path"

/* No escaped name may be another's escaped name plus "_...": PARAM_<NAME>_<KEY> would then be ambiguous (the unit
 * tests check it). That is why the selector switch is update-selectors and not labels-selectors. */
const setting_def setting_defs[] = {
    {"annotation-domain", SETTING_STRING, "Annotation domain",
     "Prefix of the annotations that carry the Argo CD application metadata (<domain>/app, /path, ...).",
     "cmp-generate", false},
    {"stamp", SETTING_STRING, "Metadata annotations",
     "Which metadata annotations to stamp on every object: a comma-separated list of app, app-namespace, project, "
     "repo, target-revision, path, revision (the commit: changes every object on every commit), package-revision "
     "(the last commit that changed the package directory; needs .git), or all, or none.",
     DEFAULT_STAMP, false},
    {"namespace", SETTING_STRING, "Namespace",
     "Applied after the package's pipeline as a final set-namespace step (namespaced objects and references).", NULL, false},
    {"labels", SETTING_MAP, "Labels",
     "Labels applied last, to metadata and to the pod templates of Deployments, ReplicaSets, DaemonSets, "
     "StatefulSets, ReplicationControllers and CronJobs; selectors are left alone (see update-selectors).",
     NULL, false},
    {"update-selectors", SETTING_STRING, "Labels in selectors",
     "\"true\": the labels parameter also sets selectors, as set-labels does. Kubernetes refuses to change the "
     "selector of a live Deployment, StatefulSet, DaemonSet or Job, so turn it on only before the first sync.",
     "false", false},
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
     "YAML values merged over the values of every Helm chart (after the package's values and helm-value-files, "
     "before helm-parameters); only the keys it sets change.",
     NULL, true},
    /* Argo CD's own Helm source (spec.source.helm), per Application, for every chart the package renders */
    {"helm-value-files", SETTING_ARRAY, "Helm value files",
     "Values files for every Helm chart, after the package's own values and before helm-values: paths relative to "
     "the Application's directory (a leading / starts at the repository root), as Argo CD's valueFiles; each must "
     "be a file inside the repository (a URL only where the operator allows remote values).",
     NULL, true},
    {"helm-ignore-missing-value-files", SETTING_STRING, "Ignore missing value files",
     "\"true\": a file of helm-value-files that does not exist is skipped (Argo CD's ignoreMissingValueFiles); "
     "otherwise it is an error.",
     "false", true},
    {"helm-parameters", SETTING_MAP, "Helm parameters",
     "Values for every Helm chart, applied last (after helm-values): keys in helm's --set syntax (image.tag, "
     "hosts[0].name, a\\.b for a dot inside a name), every value a string (Argo CD's forceString); typed values "
     "(numbers, booleans, lists) go in helm-values.",
     NULL, true},
    {"helm-release-name", SETTING_STRING, "Helm release name",
     "The release name of every chart whose step sets no releaseName (default: the Application's name).", NULL,
     true},
    {"helm-skip-crds", SETTING_STRING, "Skip CRDs",
     "\"true\": the CRDs of charts' crds/ directories are left out (Argo CD's skipCrds); \"false\" leaves each "
     "step's includeCRDs as it is.",
     "false", true},
    {"helm-skip-tests", SETTING_STRING, "Skip test hooks",
     "\"true\": charts' test hooks are left out (helm --skip-tests, Argo CD's skipTests); \"false\" leaves each "
     "step's skipTests as it is.",
     "false", true},
    {"helm-skip-schema-validation", SETTING_STRING, "Skip schema validation",
     "\"true\": values are not checked against charts' values.schema.json (helm --skip-schema-validation, Argo "
     "CD's skipSchemaValidation).",
     "false", true},
    /* Flux HelmReleases in the package (src/flux): announced by `parameters` for a package that holds one */
    {"flux-helmrelease", SETTING_STRING, "Flux HelmReleases",
     "keep: HelmReleases are emitted as they are, for an in-cluster Flux; render: each is replaced by the manifests "
     "helm-controller would install (its chart fetched by helm, its values, release name and namespace computed as "
     "helm-controller does), and the sources it used are removed; error: a package holding one fails.",
     "keep", true},
    {"helm-verify-prov", SETTING_STRING, "Verify chart provenance",
     "\"true\": every chart helm pulls from a repository or registry (render-helm-chart's, a chart's dependencies, "
     "Flux HelmReleases') must carry a Helm provenance file that verifies against the operator's keyring "
     "(CMP_HELM_KEYRING); a chart that cannot be verified (one in the package, an unsigned one, a wrong key) fails "
     "the render.",
     "false", true},
    {"flux-lock", SETTING_STRING, "Flux lock file",
     "A file of the package (a path relative to it) pinning each rendered HelmRelease's chart, one entry per "
     "release: \"<namespace>/<name>: {version: <chart version>, digest: sha256:<hex>}\". Version ranges are then not "
     "resolved, and a chart whose digest differs fails the render; a release without an entry fails, naming the "
     "entry to add.",
     NULL, true},
    /* kpt's own variable (kpt fn render reads it from its environment), so a sidecar set up like a kpt machine
     * behaves like one; as in kpt, any value turns it off */
    {"kpt-disable-attribution", SETTING_STRING, "No kpt attribution",
     "Any non-empty value (even \"false\", as kpt reads KPT_DISABLE_ATTRIBUTION) stops the annotation "
     "cnrm.cloud.google.com/blueprint: kpt-fn that kpt fn render, and so cmp-generate, adds to Config Connector "
     "objects (or appends ,kpt-fn to).",
     NULL, false},
    /* kpt's apply order as Argo CD sync waves (src/order/order.h); announced by `parameters` for a package that
     * asks for ordering */
    {"ordering", SETTING_STRING, "Ordering",
     "How kpt's apply order (config.kubernetes.io/depends-on, and the CRD and Namespace a custom or namespaced object "
     "needs) becomes Argo CD sync waves: auto translates when an object carries depends-on, kpt always (implicit "
     "edges alone included), off never. Errors (a malformed, duplicate or external reference, a cycle) fail the "
     "render as kpt live apply fails.",
     "auto", true},
    {"timeout", SETTING_STRING, "Time budget (seconds)",
     "The render fails cleanly after this many seconds, before Argo CD's 60 s deadline.", "45", false},
};
const int setting_count = (int)(sizeof setting_defs / sizeof *setting_defs);

const operator_def operator_defs[] = {
    {"CMP_SKIP_VALIDATORS", "none",
     "`name,...` (commas or spaces) or `*`: pipeline validators whose function is not built in (`gatekeeper`, "
     "`policy-controller-validate`...) that a render skips with a warning instead of "
     "failing; `*` skips every such validator. Mutators and built-in validators always run. A package cannot set it"},
    {"CMP_KUBE_OPENAPI_DIR", "`data/kubernetes-openapi` beside the binary, else `../share/cmp-generate/kubernetes-openapi`",
     "a directory of Kubernetes OpenAPI documents, `swagger-v1.<minor>.json.gz`, that `kubeconform` and `kubeval` "
     "validate against (the project ships 1.31, 1.32, 1.35 and 1.36); a package's `schema_location` is refused, and nothing is "
     "ever fetched"},
};
const int operator_count = (int)(sizeof operator_defs / sizeof *operator_defs);

const char *settings_skip_validators(void)
{
    const char *v = getenv("CMP_SKIP_VALIDATORS");
    return v && *v ? v : NULL;
}

const char *settings_kube_openapi_dir(void)
{
    const char *v = getenv("CMP_KUBE_OPENAPI_DIR");
    return v && *v ? v : NULL;
}

static const char *const stamp_keys[] = {"app", "app-namespace", "project", "revision", "package-revision", "repo",
                                         "target-revision", "path", NULL};

/* strings.ToUpper, then every rune outside [A-Z0-9_] becomes one '_' (ApplicationSourcePluginParameters.Environ).
 * The two non-ASCII runes Go upper-cases to ASCII are mapped too. */
char *settings_escape(arena *a, const char *prefix, const char *name)
{
    size_t pl = strlen(prefix);
    char *s = arena_alloc(a, pl + strlen(name) + 1);
    memcpy(s, prefix, pl);
    char *w = s + pl;
    for (const unsigned char *p = (const unsigned char *)name; *p;) {
        if (*p < 0x80) {
            *w++ = isalnum(*p) ? (char)toupper(*p) : '_';
            p++;
            continue;
        }
        size_t l = (*p & 0xE0) == 0xC0 ? 2 : (*p & 0xF0) == 0xE0 ? 3 : (*p & 0xF8) == 0xF0 ? 4 : 1;
        for (size_t i = 1; i < l; i++)
            if ((p[i] & 0xC0) != 0x80)
                l = 1;
        *w++ = l == 2 && p[0] == 0xC4 && p[1] == 0xB1 ? 'I' : l == 2 && p[0] == 0xC5 && p[1] == 0xBF ? 'S' : '_';
        p += l;
    }
    *w = 0;
    return s;
}

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

extern char **environ;

/* One ARGOCD_ENV_ entry, its name escaped once: an Application may carry thousands, and every setting looks. */
struct plugin_env_entry {
    const char *name, *escaped, *value;
};

struct reader {
    arena *a;
    strtab *st;
    node *params; /* ARGOCD_APP_PARAMETERS, a sequence, or NULL */
    bool escaped; /* the map just read came from PARAM_<NAME>_<KEY> */
    struct plugin_env_entry *penv;
    size_t npenv;
};

static const node *param_entry(struct reader *R, const char *name)
{
    seq_foreach(R->params, i, item)
        if (scalar_is(map_get(item, "name"), name))
            return item;
    return NULL;
}

static bool valid_utf8(const char *s)
{
    return utf8_check((const unsigned char *)s, strlen(s)) == strlen(s);
}

/* Text from plugin env or sidecar env holding a list or a map: YAML/JSON, or "a,b" / "k=v,k2=v2". */
static int parse_text(struct reader *R, const char *what, const char *text, enum setting_kind kind, node **out)
{
    node *n = NULL;
    diag_detail not_yaml; /* then it is the short form, unless it was YAML over a limit */
    /* a one-line block map ("team: web") is YAML too, when it cannot be the short form (no '=') */
    if (text[0] == '[' || text[0] == '{' || strchr(text, '\n') ||
        (kind == SETTING_MAP && !strchr(text, '=') && strstr(text, ": "))) {
        if (yaml_load_one_into(R->a, R->st, limits_yaml(host_limits()), what, text, strlen(text), &n, &not_yaml) == 0 && n &&
            ((kind == SETTING_ARRAY && is_seq(n)) || (kind == SETTING_MAP && is_map(n)))) {
            *out = n;
            return 0;
        }
        if (yaml_over_limit(&not_yaml))
            return fail(NULL, 0, "%s, line %d: %s", what, not_yaml.line, not_yaml.message);
    }
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

static const char *const kind_names[] = {"string", "array", "map"};

/* The setting from ARGOCD_APP_PARAMETERS; 1 when it was there, 0 when not, -1 on an error. */
static int from_json(struct reader *R, const setting_def *d, const char **str, node **coll)
{
    const node *e = param_entry(R, d->name);
    if (!e)
        return 0;
    for (int k = 0; k < 3; k++) {
        const node *v = map_get(e, kind_names[k]);
        if (!v || is_null(v))
            continue;
        if (k != (int)d->kind)
            return fail(NULL, 0, "parameter \"%s\" must be a%s %s, got a%s %s", d->name, d->kind == SETTING_ARRAY ? "n" : "",
                        kind_names[d->kind], k == SETTING_ARRAY ? "n" : "", kind_names[k]);
        if (k == SETTING_STRING) {
            if (!scalar(v))
                return fail(NULL, 0, "parameter \"%s\" must be a string", d->name);
            *str = scalar(v);
        } else {
            if ((k == SETTING_ARRAY && !is_seq(v)) || (k == SETTING_MAP && !is_map(v)))
                return fail(NULL, 0, "parameter \"%s\" must be a%s %s", d->name, k == 1 ? "n" : "", kind_names[k]);
            for (uint32_t i = 0; i < node_len(v); i++) /* by index: one loop for a map or a list */
                if (k == SETTING_MAP ? !scalar(map_key(v, i)) || !scalar(map_val(v, i)) : !scalar(seq_item(v, i)))
                    return fail(NULL, 0, "parameter \"%s\" must hold strings only", d->name);
            *coll = (node *)v;
        }
        return 1;
    }
    *str = d->def; /* named without a value: as if not given */
    return 1;
}

/* The setting from Argo CD's PARAM_ variables; 1 when there, 0 when not, -1 on an error. */
static int from_param_vars(struct reader *R, const setting_def *d, const char **str, node **coll)
{
    const char *base = settings_escape(R->a, "PARAM_", d->name);
    const char *plain = env(base);
    if (plain && d->kind != SETTING_STRING)
        return fail(NULL, 0, "%s: parameter \"%s\" is a%s %s, which Argo CD sends as %s_%s, not as a string",
                    base, d->name, d->kind == SETTING_ARRAY ? "n" : "", kind_names[d->kind], base,
                    d->kind == SETTING_ARRAY ? "<i>" : "<KEY>");
    if (d->kind == SETTING_STRING) {
        if (!plain)
            return 0;
        if (!valid_utf8(plain))
            return fail(NULL, 0, "%s (parameter \"%s\") is not valid UTF-8", base, d->name);
        *str = plain;
        return 1;
    }
    if (d->kind == SETTING_ARRAY) {
        node *s = NULL;
        for (int i = 0;; i++) {
            const char *name = arena_printf(R->a, "%s_%d", base, i);
            const char *v = getenv(name); /* an empty item is still an item */
            if (!v)
                break;
            if (!valid_utf8(v))
                return fail(NULL, 0, "%s (parameter \"%s\") is not valid UTF-8", name, d->name);
            if (!s)
                s = node_seq(R->a);
            seq_append(R->a, s, node_str(R->a, v));
        }
        *coll = s;
        return s ? 1 : 0;
    }
    /* a map: every PARAM_<NAME>_<KEY>, sorted by variable name (Argo CD's order is random) */
    size_t bl = strlen(base);
    node *m = NULL;
    for (char **e = environ; *e; e++) {
        if (strncmp(*e, base, bl) || (*e)[bl] != '_')
            continue;
        const char *eq = strchr(*e, '=');
        if (!eq || eq == *e + bl + 1)
            continue;
        const char *key = arena_strndup(R->a, *e + bl + 1, (size_t)(eq - *e - bl - 1));
        if (!valid_utf8(eq + 1))
            return fail(NULL, 0, "%s_%s (parameter \"%s\") is not valid UTF-8", base, key, d->name);
        if (!m)
            m = node_map(R->a);
        uint32_t at = 0;
        while (at < node_len(m) && strcmp(scalar(map_key(m, at)), key) < 0)
            at++;
        map_set(R->a, m, key, node_str(R->a, eq + 1));
        /* keep it sorted: map_set appends, so rotate the new pair into place */
        uint32_t last = node_len(m) - 1;
        const node *k = map_key(m, last);
        node *v = map_val(m, last);
        map_remove(m, last);
        map_insert(R->a, m, at, k, v);
    }
    if (!m)
        return 0;
    if (strcmp(d->name, "setters"))
        return fail(NULL, 0, "parameter \"%s\" arrived only as %s_<KEY> variables, whose names do not keep the keys' "
                             "spelling (Argo CD sends ARGOCD_APP_PARAMETERS along with them; set it, or give the map "
                             "as plugin env ARGOCD_ENV_%s)",
                    d->name, base, base + 6);
    R->escaped = true;
    *coll = m;
    return 1;
}

/* The variable name Argo CD makes of a plugin env entry: ARGOCD_ENV_ + the name exactly as the Application writes
 * it (getPluginParamEnvs: no upper-casing, no escaping). NULL for anything else. */
static const char *plugin_env_name(arena *a, const char *entry)
{
    if (strncmp(entry, "ARGOCD_ENV_", 11))
        return NULL;
    size_t n = strcspn(entry + 11, "=");
    return entry[11 + n] == '=' && n ? arena_strndup(a, entry + 11, n) : NULL;
}

/* The ARGOCD_ENV_ entries of the environment, each name escaped once (settings_load frees the array). */
static void read_plugin_env(struct reader *R)
{
    size_t cap = 0;
    for (char **e = environ; *e; e++) {
        const char *name = plugin_env_name(R->a, *e);
        if (!name)
            continue;
        if (R->npenv == cap)
            R->penv = xrealloc(R->penv, (cap = cap ? 2 * cap : 16) * sizeof *R->penv);
        R->penv[R->npenv++] = (struct plugin_env_entry){name, settings_escape(R->a, "", name), strchr(*e, '=') + 1};
    }
}

/* The setting from plugin env. Argo CD passes an entry's name verbatim, so an Application may write the name as
 * the parameter table shows it (annotation-domain) or as its variable (ANNOTATION_DOMAIN): every ARGOCD_ENV_<x>
 * whose x escapes to the setting's escaped name sets it. Two of them with different values are an error. */
static int plugin_env(struct reader *R, const setting_def *d, const char **text, const char **from)
{
    const char *want = settings_escape(R->a, "", d->name);
    for (size_t i = 0; i < R->npenv; i++) {
        const char *name = R->penv[i].name, *v = R->penv[i].value;
        if (!*v || strcmp(R->penv[i].escaped, want))
            continue;
        /* the name is the Application author's, verbatim: shown() keeps a message on one printable line */
        if (*text && strcmp(*text, v))
            return fail(NULL, 0, "plugin env %s and %s both set parameter \"%s\", to different values; keep one",
                        *from, arena_printf(R->a, "ARGOCD_ENV_%s", shown(R->a, name)), d->name);
        *text = v;
        *from = arena_printf(R->a, "ARGOCD_ENV_%s", shown(R->a, name));
    }
    return 0;
}

static int read_setting(struct reader *R, const setting_def *d, const char **str, node **coll)
{
    *str = NULL;
    *coll = NULL;
    R->escaped = false;
    int got = from_json(R, d, str, coll);
    if (got == 0)
        got = from_param_vars(R, d, str, coll);
    if (got != 0)
        return got < 0 ? -1 : 0;
    const char *text = NULL, *from = NULL;
    if (plugin_env(R, d, &text, &from) < 0)
        return -1;
    if (!text) {
        text = env(settings_escape(R->a, "", d->name));
        from = settings_escape(R->a, "", d->name);
    }
    if (!text) {
        *str = d->def;
        return 0;
    }
    if (!valid_utf8(text))
        return fail(NULL, 0, "%s (parameter \"%s\") is not valid UTF-8", from, d->name);
    if (d->kind == SETTING_STRING) {
        *str = text;
        return 0;
    }
    if (parse_text(R, from, text, d->kind, coll) < 0)
        return -1;
    for (uint32_t i = 0; i < node_len(*coll); i++) { /* by index: one loop for a map or a list */
        const node *v = d->kind == SETTING_MAP ? map_val(*coll, i) : seq_item(*coll, i);
        if ((d->kind == SETTING_MAP && !scalar(map_key(*coll, i))) || !scalar(v))
            return fail(NULL, 0, "%s (parameter \"%s\") must hold strings only", from, d->name);
        /* YAML's null has the text "null", which would be written as the label or file name "null" */
        if (is_null(v))
            return fail(NULL, 0, "%s (parameter \"%s\") must hold strings only: %s is null (\"\" is the empty string)",
                        from, d->name,
                        d->kind == SETTING_MAP ? arena_printf(R->a, "key \"%s\"", shown(R->a, scalar(map_key(*coll, i))))
                                               : arena_printf(R->a, "item %u", i + 1));
    }
    return 0;
}

bool settings_stamps(const settings *s, const char *key)
{
    const char *stamp = s->stamp ? s->stamp : DEFAULT_STAMP;
    if (!strcmp(stamp, "all"))
        return true;
    if (!strcmp(stamp, "none"))
        return false;
    size_t n = strlen(key);
    for (const char *p = stamp; *p;) {
        while (*p == ' ' || *p == ',')
            p++;
        size_t len = strcspn(p, ", ");
        if (len == n && !strncmp(p, key, n))
            return true;
        p += len;
    }
    return false;
}

static int check_stamp(arena *a, const char *stamp)
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
            return fail(NULL, 0, "parameter \"stamp\": unknown annotation \"%s\" (all, none, or a list of app, "
                                 "app-namespace, project, repo, target-revision, path, revision, package-revision)",
                        shown(a, arena_strndup(a, p, len)));
        p += len;
    }
    return 0;
}

/* What labels, annotations and images write into every object must be what Kubernetes and registries accept
 * (settings/value_rules.h): caught here, before anything runs, not at the API server when Argo CD syncs. */
static int check_object_values(arena *a, const settings *s)
{
    map_foreach(s->labels, i, mk, val) {
        const char *k = scalar(mk), *v = scalar(val);
        const char *why = qualified_name_rule(k, false);
        if (why)
            return fail(NULL, 0, "parameter \"labels\": key \"%s\" is not a valid label key: %s", shown(a, k), why);
        if ((why = label_value_rule(v)))
            return fail(NULL, 0, "parameter \"labels\": the value \"%s\" of key \"%s\" is not a valid label value: %s",
                        shown(a, v), shown(a, k), why);
    }
    size_t total = 0;
    map_foreach(s->annotations, i, mk, val) {
        const char *k = scalar(mk);
        const char *why = qualified_name_rule(k, true);
        if (why)
            return fail(NULL, 0, "parameter \"annotations\": key \"%s\" is not a valid annotation key: %s",
                        shown(a, k), why);
        total += strlen(k) + strlen(scalar(val));
    }
    if (total > ANNOTATIONS_MAX_BYTES)
        return fail(NULL, 0, "parameter \"annotations\": its keys and values are %zu bytes in all, more than the %zu "
                             "(256 KiB) Kubernetes allows for all the annotations of an object",
                    total, ANNOTATIONS_MAX_BYTES);
    seq_foreach(s->images, i, item) {
        image_override o;
        const char *why = image_override_split(a, scalar(item), &o);
        if (why)
            return fail(NULL, 0, "parameter \"images\": %s", why);
    }
    return 0;
}

const char *settings_names(arena *a)
{
    const char *s = setting_defs[0].name;
    for (int k = 1; k < setting_count; k++)
        s = arena_printf(a, "%s, %s", s, setting_defs[k].name);
    return s;
}

static bool known_name(const char *name)
{
    for (int k = 0; k < setting_count; k++)
        if (!strcmp(setting_defs[k].name, name))
            return true;
    return false;
}

/* The names nobody reads, for one warning line: the first few named, the rest counted. An Application may carry
 * thousands (a list that grew by copying itself took memory quadratic in them: 8,000 plugin env entries, 0.5 GB). */
#define UNKNOWN_NAMED 10
struct unknown {
    const char *list;
    size_t n;
};

static void add_unknown(arena *a, struct unknown *u, const char *name)
{
    if (u->n++ >= UNKNOWN_NAMED)
        return;
    /* the name is the Application author's: shown() keeps the warning one printable line */
    name = shown(a, name);
    u->list = u->list ? arena_printf(a, "%s, \"%s\"", u->list, name) : arena_printf(a, "\"%s\"", name);
}

/* "unknown parameters "a", "b" (and 3 more) and plugin env "C"", or NULL when nothing is unknown */
static const char *unknown_text(arena *a, const struct unknown *params, const struct unknown *penv)
{
    if (!params->n && !penv->n)
        return NULL;
    const char *p = params->list, *e = penv->list;
    if (params->n > UNKNOWN_NAMED)
        p = arena_printf(a, "%s (and %zu more)", p, params->n - UNKNOWN_NAMED);
    if (penv->n > UNKNOWN_NAMED)
        e = arena_printf(a, "%s (and %zu more)", e, penv->n - UNKNOWN_NAMED);
    return arena_printf(a, "unknown %s%s%s%s%s", params->n ? (params->n > 1 ? "parameters " : "parameter ") : "",
                        params->n ? p : "", params->n && penv->n ? " and " : "", penv->n ? "plugin env " : "",
                        penv->n ? e : "");
}

/* Without ARGOCD_APP_PARAMETERS, the PARAM_ variables no setting reads: a parameter nobody knows. */
static void unknown_param_vars(arena *a, const char *const *escaped, struct unknown *u)
{
    for (char **e = environ; *e; e++) {
        if (strncmp(*e, "PARAM_", 6))
            continue;
        size_t nl = strcspn(*e, "=");
        bool known = false;
        for (int k = 0; k < setting_count && !known; k++) {
            size_t el = strlen(escaped[k]);
            known = nl >= 6 + el && !strncmp(*e + 6, escaped[k], el) && (nl == 6 + el || (*e)[6 + el] == '_');
        }
        if (!known)
            add_unknown(a, u, arena_strndup(a, *e, nl));
    }
}

/* Plugin env entries no setting reads (a typo, or one left after the setting went): named in the warning. */
static void unknown_plugin_env(const struct reader *R, const char *const *escaped, struct unknown *u)
{
    for (size_t i = 0; i < R->npenv; i++) {
        bool known = false;
        for (int k = 0; k < setting_count && !known; k++)
            known = !strcmp(R->penv[i].escaped, escaped[k]);
        if (!known)
            add_unknown(R->a, u, R->penv[i].name);
    }
}

static int read_settings(struct reader *R, settings *out);

/* ARGOCD_APP_PARAMETERS into R->params (NULL when unset); the names no setting reads go to unknown when given. */
static int read_app_parameters(struct reader *R, struct unknown *unknown)
{
    const char *raw = env("ARGOCD_APP_PARAMETERS");
    if (!raw || !strcmp(raw, "null"))
        return 0;
    node *p = NULL;
    diag_detail why;
    if (yaml_load_one_into(R->a, R->st, limits_yaml(host_limits()), "ARGOCD_APP_PARAMETERS", raw, strlen(raw), &p, &why) < 0) {
        const char *m = why.message;
        return fail(NULL, 0, "ARGOCD_APP_PARAMETERS is not valid JSON: %.511s", strncmp(m, "invalid YAML: ", 14) ? m : m + 14);
    }
    if (p && !is_null(p) && !is_seq(p))
        return fail(NULL, 0, "ARGOCD_APP_PARAMETERS must be a JSON array of parameters");
    R->params = is_seq(p) ? p : NULL;
    seq_foreach(R->params, i, e) {
        const char *name = path_str(e, "name", NULL);
        if (!is_map(e) || !name)
            return fail(NULL, 0, "ARGOCD_APP_PARAMETERS: entry %u has no name", i);
        if (unknown && !known_name(name))
            add_unknown(R->a, unknown, name);
    }
    return 0;
}

int settings_load(arena *a, strtab *st, settings *out)
{
    memset(out, 0, sizeof *out);
    struct reader R = {a, st, NULL, false, NULL, 0};
    const char *escaped[sizeof setting_defs / sizeof *setting_defs];
    for (int k = 0; k < setting_count; k++)
        escaped[k] = settings_escape(a, "", setting_defs[k].name);
    struct unknown params = {0}, penv = {0};
    if (read_app_parameters(&R, &params) < 0)
        return -1;
    if (!env("ARGOCD_APP_PARAMETERS") || !strcmp(env("ARGOCD_APP_PARAMETERS"), "null"))
        unknown_param_vars(a, escaped, &params);
    read_plugin_env(&R);
    unknown_plugin_env(&R, escaped, &penv);
    out->unknown = unknown_text(a, &params, &penv);
    int rc = read_settings(&R, out);
    xfree(R.penv);
    return rc;
}

int settings_load_one(arena *a, strtab *st, const char *name, const char **value)
{
    *value = NULL;
    struct reader R = {a, st, NULL, false, NULL, 0};
    if (read_app_parameters(&R, NULL) < 0)
        return -1;
    read_plugin_env(&R);
    int rc = -1;
    for (int i = 0; i < setting_count; i++) {
        node *coll;
        if (!strcmp(setting_defs[i].name, name) && setting_defs[i].kind == SETTING_STRING)
            rc = read_setting(&R, &setting_defs[i], value, &coll);
    }
    xfree(R.penv);
    return rc;
}

static int read_settings(struct reader *R, settings *out)
{
    arena *a = R->a;
    strtab *st = R->st;
    for (int i = 0; i < setting_count; i++) {
        const setting_def *d = &setting_defs[i];
        const char *s;
        node *c;
        if (read_setting(R, d, &s, &c) < 0)
            return -1;
        if (!strcmp(d->name, "annotation-domain"))
            out->annotation_domain = s;
        else if (!strcmp(d->name, "stamp"))
            out->stamp = s;
        else if (!strcmp(d->name, "namespace"))
            out->namespace = s && *s ? s : NULL;
        else if (!strcmp(d->name, "labels"))
            out->labels = c;
        else if (!strcmp(d->name, "update-selectors")) {
            if (s && strcmp(s, "true") && strcmp(s, "false"))
                return fail(NULL, 0, "parameter \"update-selectors\" must be \"true\" or \"false\", got \"%s\"",
                            shown(a, s));
            out->update_selectors = s && !strcmp(s, "true");
        } else if (!strcmp(d->name, "annotations"))
            out->annotations = c;
        else if (!strcmp(d->name, "images"))
            out->images = c;
        else if (!strcmp(d->name, "setters")) {
            out->setters = c;
            out->setters_escaped = R->escaped;
        } else if (!strcmp(d->name, "helm-values")) {
            if (s && *s) {
                node *v = NULL;
                diag_detail why; /* reworded: the text is a parameter's, not a file's */
                if (yaml_load_one_into(a, st, limits_yaml(host_limits()), "helm-values", s, strlen(s), &v, &why) < 0)
                    return why.line > 0 ? fail(NULL, 0, "parameter \"helm-values\", line %d: %s", why.line, why.message)
                                        : fail(NULL, 0, "parameter \"helm-values\": %s", why.message);
                if (v && !is_null(v) && !is_map(v))
                    return fail(NULL, 0, "parameter \"helm-values\" must be a YAML map of Helm values");
                /* the announced default is the package's values commented out: unchanged, it sets nothing */
                out->helm_values = v && is_map(v) ? s : NULL;
            }
        } else if (!strcmp(d->name, "helm-value-files")) {
            out->helm_value_files = c;
        } else if (!strcmp(d->name, "helm-parameters")) {
            if (helm_parameters_yaml(a, c, &out->helm_parameters) < 0)
                return -1;
        } else if (!strcmp(d->name, "helm-release-name")) {
            const char *why = s && *s ? helm_release_name_rule(s) : NULL;
            if (why)
                return fail(NULL, 0, "parameter \"helm-release-name\": \"%s\" is not a release name helm accepts: %s",
                            shown(a, s), why);
            out->helm_release_name = s && *s ? s : NULL;
        } else if (!strncmp(d->name, "helm-", 5)) { /* the switches: helm-ignore-missing-value-files, helm-skip-* */
            if (s && strcmp(s, "true") && strcmp(s, "false"))
                return fail(NULL, 0, "parameter \"%s\" must be \"true\" or \"false\", got \"%s\"", d->name,
                            shown(a, s));
            bool on = s && !strcmp(s, "true");
            if (!strcmp(d->name, "helm-ignore-missing-value-files"))
                out->helm_ignore_missing_value_files = on;
            else if (!strcmp(d->name, "helm-skip-crds"))
                out->helm_skip_crds = on;
            else if (!strcmp(d->name, "helm-skip-tests"))
                out->helm_skip_tests = on;
            else if (!strcmp(d->name, "helm-skip-schema-validation"))
                out->helm_skip_schema_validation = on;
            else if (!strcmp(d->name, "helm-verify-prov"))
                out->helm_verify_prov = on;
        } else if (!strcmp(d->name, "flux-helmrelease")) {
            const char *why = flux_mode_rule(s && *s ? s : NULL);
            if (why)
                return fail(NULL, 0, "parameter \"flux-helmrelease\": \"%s\": %s", shown(a, s), why);
            out->flux_helmrelease = s && *s ? s : "keep";
        } else if (!strcmp(d->name, "flux-lock")) {
            if (s && *s && !safe_relative_path(s))
                return fail(NULL, 0, "parameter \"flux-lock\": \"%s\" must be a relative path inside the package",
                            shown(a, s));
            out->flux_lock = s && *s ? s : NULL;
        } else if (!strcmp(d->name, "ordering")) {
            if (order_mode_rule(s))
                return fail(NULL, 0, "parameter \"ordering\" %s, got \"%s\"", order_mode_rule(s), shown(a, s));
            out->ordering = s ? s : "auto";
        } else if (!strcmp(d->name, "kpt-disable-attribution")) {
            out->kpt_attribution = !(s && *s);
        } else if (!strcmp(d->name, "timeout")) {
            unsigned long long t;
            if (parse_env_number(s ? s : "45", false, 1, 3600, &t) < 0)
                return fail(NULL, 0, "parameter \"timeout\" must be a number of seconds from 1 to 3600, got \"%s\"",
                            shown(a, s ? s : ""));
            out->timeout_seconds = (int)t;
        }
    }
    if (out->stamp && check_stamp(a, out->stamp) < 0)
        return -1;
    return check_object_values(a, out);
}

static const char *kind_name(enum setting_kind k)
{
    return kind_names[k];
}

void settings_announce_one_json(buf *b, const setting_def *d)
{
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
        settings_announce_one_json(b, d);
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

/* serve-params's variables: the operator's, in the server's environment (never an Application's parameters). */
static const struct params_env_def {
    const char *name, *title, *def, *doc;
    unsigned min, max;
} params_env_defs[] = {
    {"CMP_PARAMS_TOKEN_FILE", "serve-params token file", NULL,
     "Required by `serve-params`: the file holding the bearer token the ApplicationSet controller sends (white space "
     "around it trimmed); the server refuses to start without it.", 0, 0},
    {"CMP_PARAMS_ALLOWED_REPOS", "serve-params allowed repositories", NULL,
     "Required by `serve-params`: comma-separated URL prefixes (https://, http://, ssh:// or user@host:); a repoURL "
     "must start with one, at a `/` or `:` boundary, else 403. file:// and local paths are never allowed.", 0, 0},
    {"CMP_PARAMS_TIMEOUT", "serve-params time budget (seconds)", "25",
     "A request is answered within this many seconds or gets a 503 (the controller's own timeout is 30 s).", 1,
     3600},
    {"CMP_PARAMS_MAX_PACKAGES", "serve-params packages per answer", "10000",
     "More packages than this in one answer is a 500, never a shortened list.", 1, 1000000},
    {"CMP_PARAMS_MAX_CONNECTIONS", "serve-params connections", "64",
     "Open connections at once (each served by its own thread); more wait in the listen queue.", 16, 4096},
    {"CMP_PARAMS_IDLE_TIMEOUT", "serve-params idle timeout (seconds)", "10",
     "A connection that sends nothing for this long (a slow or stalled client) is closed.", 1, 600},
    {"CMP_PARAMS_CACHE_SECONDS", "serve-params listing cache (seconds)", "600",
     "How long the packages found at one commit (per paths and exclude) are kept for the next request.", 1, 86400},
};

int settings_params(params_settings *out)
{
    const size_t n = sizeof params_env_defs / sizeof *params_env_defs;
    unsigned long long v[sizeof params_env_defs / sizeof *params_env_defs] = {0};
    for (size_t i = 2; i < n; i++) {
        const struct params_env_def *d = &params_env_defs[i];
        const char *t = env(d->name);
        v[i] = strtoull(d->def, NULL, 10);
        if (t && parse_env_number(t, false, d->min, d->max, &v[i]) < 0)
            return fail(NULL, 0, "%s must be a whole number from %u to %u (got \"%.40s\")", d->name, d->min, d->max,
                        t);
    }
    *out = (params_settings){
        .token_file = env(params_env_defs[0].name),
        .allowed_repos = env(params_env_defs[1].name),
        .timeout_s = (unsigned)v[2],
        .max_packages = (unsigned)v[3],
        .max_connections = (unsigned)v[4],
        .idle_timeout_s = (unsigned)v[5],
        .cache_s = (unsigned)v[6],
    };
    if (!out->token_file)
        return fail(NULL, 0, "CMP_PARAMS_TOKEN_FILE is not set: serve-params needs the file holding the bearer token");
    if (!out->allowed_repos)
        return fail(NULL, 0, "CMP_PARAMS_ALLOWED_REPOS is not set: serve-params needs the URL prefixes of the "
                             "repositories it may read");
    return 0;
}

/* The variables Argo CD sets for a parameter, as the README lists them, then plugin env and sidecar env. */
void settings_markdown(buf *b)
{
    buf_puts(b, "| parameter | type | default | environment | what it does |\n| --- | --- | --- | --- | --- |\n");
    arena *a = arena_new();
    for (int i = 0; i < setting_count; i++) {
        const setting_def *d = &setting_defs[i];
        const char *esc = settings_escape(a, "", d->name);
        const char *param = d->kind == SETTING_STRING ? arena_printf(a, "`PARAM_%s`", esc)
                            : d->kind == SETTING_ARRAY ? arena_printf(a, "`PARAM_%s_<i>`", esc)
                                                       : arena_printf(a, "`PARAM_%s_<KEY>`", esc);
        buf_printf(b, "| `%s` | %s | %s | %s, `ARGOCD_ENV_%s`, `%s` | %s |\n", d->name, kind_name(d->kind),
                   d->def ? arena_printf(a, "`%s`", d->def) : "", param, esc, esc, d->tooltip);
    }
    /* serve-params's rows: no plugin parameter, only the server's own variable */
    for (size_t i = 0; i < sizeof params_env_defs / sizeof *params_env_defs; i++) {
        const struct params_env_def *d = &params_env_defs[i];
        buf_printf(b, "| (%s) | %s | %s | `%s` | %s |\n", d->title, d->min ? "number" : "string",
                   d->def ? arena_printf(a, "`%s`", d->def) : "", d->name, d->doc);
    }
    arena_free(a);
    buf_puts(b, "\n| operator variable (the sidecar's environment only) | default | what it does |\n| --- | --- | --- |\n");
    for (int i = 0; i < operator_count; i++)
        buf_printf(b, "| `%s` | %s | %s |\n", operator_defs[i].name, operator_defs[i].def, operator_defs[i].what);
}
