/* generate-folders: each ResourceHierarchy among the items becomes the Config Connector Folders
 * (resourcemanager.cnrm.cloud.google.com/v1beta1) of the folder tree it describes (catalog generate-folders, the
 * TypeScript function: v0.1.0 and v0.1.1, and `unstable`/`latest`, which add depends-on).
 *
 * Three versions of the hierarchy, as the catalog reads them:
 *   - cft.dev/v1alpha1: spec.organization, spec.layers (names) and spec.config.<layer> (folder names): every folder
 *     of a layer under every folder of the layer before; parents by annotation (cnrm.cloud.google.com/organization-id
 *     for the top layer, cnrm.cloud.google.com/folder-ref below). Warns to upgrade.
 *   - cft.dev/v1alpha2: spec.parentRef {kind: Organization (default) or Folder, external}, spec.config (a list of
 *     names, or maps of one name to its list of folders or to {$subtree: name}), spec.subtrees (named lists); parents
 *     by annotation; the hierarchy's own annotations are inherited. Warns to upgrade.
 *   - blueprints.cloud.google.com/v1alpha3: as v1alpha2, with parents as spec.organizationRef/folderRef.external at
 *     the top and spec.folderRef.name below; from the catalog's `unstable` on (not in v0.1.x), a folder of a
 *     hierarchy with a namespace also gets config.kubernetes.io/depends-on on its parent Folder.
 * A folder is named by its path joined with "." and normalized (lower case; quotes dropped; "_" and " " become "-";
 * anything but a-z, 0-9, "." and "-" dropped); displayName is the name as written; the hierarchy's namespace goes
 * on every Folder, at kpt's default path <namespace>/folder_<name>.yaml. A Folder replaces an item with the same
 * apiVersion, kind, namespace and name (the one an earlier render made).
 * As the catalog's TypeScript SDK does, the step hands back every item sorted by apiVersion/kind/namespace/name.
 *
 * Deviations, where the catalog would silently lose or mangle something: two items with the same
 * apiVersion/kind/namespace/name (the SDK keeps only the last), two different Folders of one name, a folder given as
 * a number, a boolean or a list (the catalog skips it), a map entry with more than one name or with a plain value
 * (the catalog ignores the rest), and a missing or non-list config, subtree or layer (the catalog crashes) are
 * errors here, and so is a folder whose name normalizes to nothing (the catalog makes a Folder named ""). The
 * catalog's error results fail the step, as they do in kpt. */
#include <stdlib.h>
#include <string.h>

#include "functions/function.h"
#include "util/buf.h"
#include "util/fsutil.h"
#include "yaml/scalar.h"

#define V1 "cft.dev/v1alpha1"
#define V2 "cft.dev/v1alpha2"
#define V3 "blueprints.cloud.google.com/v1alpha3"
#define FOLDER_API_VERSION "resourcemanager.cnrm.cloud.google.com/v1beta1"
#define FOLDER_GROUP "resourcemanager.cnrm.cloud.google.com"
#define DEPENDS_ON "config.kubernetes.io/depends-on"

typedef struct keyed {
    const char *key;
    resource *r;
    bool made; /* a Folder this step made */
} keyed;

typedef struct gen {
    fn_ctx *c;
    resource *h;        /* the hierarchy */
    const char *hname;  /* its name, for messages */
    const char *ns;     /* its namespace, NULL when none */
    const node *ann;    /* inherited annotations (a map we made), NULL for v1alpha1 */
    bool native;        /* v1alpha3: Config Connector references */
    bool depends_on;    /* the catalog's unstable: depends-on for namespaced hierarchies */
    const node *subtrees; /* spec.subtrees (v1alpha2/3) */
    bool dry;           /* checking the subtrees as the catalog builds them: no folders, no references followed */
    keyed *out;
    size_t n, cap;
} gen;

/* The SDK's key; JavaScript writes a missing field as "undefined". */
static const char *item_key(arena *a, const resource *r)
{
    const char *av = res_api_version(r), *kind = res_kind(r), *ns = res_namespace(r), *name = res_name(r);
    return arena_printf(a, "%s/%s/%s/%s", av ? av : "undefined", kind ? kind : "undefined", ns ? ns : "",
                        name ? name : "undefined");
}

/* The catalog's normalize(): JavaScript's toLowerCase (of which only the Kelvin sign and the dotted capital I give
 * ASCII letters: everything else outside ASCII is dropped below), quotes dropped, "_" and " " to "-", then only
 * a-z 0-9 . - kept. */
static char *normalize(arena *a, const char *s)
{
    size_t n = strlen(s);
    char *o = arena_alloc(a, n + 1), *w = o;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        if (p[0] == 0xE2 && p[1] == 0x84 && p[2] == 0xAA) { /* U+212A KELVIN SIGN -> k */
            *w++ = 'k';
            p += 3;
            continue;
        }
        if (p[0] == 0xC4 && p[1] == 0xB0) { /* U+0130 -> i and a combining dot (dropped) */
            *w++ = 'i';
            p += 2;
            continue;
        }
        unsigned char ch = *p++;
        if (ch >= 'A' && ch <= 'Z')
            ch = (unsigned char)(ch - 'A' + 'a');
        if (ch == '_' || ch == ' ')
            ch = '-';
        if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '.' || ch == '-')
            *w++ = (char)ch;
    }
    *w = 0;
    return o;
}

static bool plain_segment(const char *s)
{
    return s && *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

/* Annotations a Folder does not inherit from its hierarchy (the SDK's and kpt's bookkeeping). */
static bool not_inherited(const char *k)
{
    return !strcmp(k, "config.kubernetes.io/local-config") || !strcmp(k, "config.k8s.io/function") ||
           !strcmp(k, "config.k8s.io/id") || !strcmp(k, "config.kubernetes.io/path") ||
           !strcmp(k, "config.kubernetes.io/index") || !strncmp(k, "internal.config.kubernetes.io/", 30);
}

static int add_folder(gen *g, const char *name, const char **path, size_t depth, const char *parent_kind,
                      const char *parent_name)
{
    fn_ctx *c = g->c;
    arena *a = c->a;
    if (g->dry)
        return 0;
    /* subtrees used in subtrees double the folders at each level: the object limit stops a hierarchy of millions */
    size_t max_objects = fn_limits(c)->max_objects;
    if (c->items->n + g->n >= max_objects)
        return fn_fail_res(c, g->h, g->h->root, "ResourceHierarchy %s makes more than %zu objects (max-objects; "
                           "raise it with CMP_MAX_OBJECTS)", g->hname, max_objects);
    /* the parent's name: the path so far joined with ".", or the hierarchy's parent at the top */
    buf pj = {0};
    for (size_t i = 0; i < depth; i++) {
        if (i)
            buf_puts(&pj, ".");
        buf_puts(&pj, path[i]);
    }
    const char *pname = depth ? arena_strndup(a, pj.data, pj.len) : parent_name;
    buf_free(&pj);
    buf full = {0};
    for (size_t i = 0; i < depth; i++) {
        buf_puts(&full, path[i]);
        buf_puts(&full, ".");
    }
    buf_puts(&full, name);
    const char *fname = normalize(a, arena_strndup(a, full.data, full.len));
    buf_free(&full);
    if (!*fname) /* the catalog makes a Folder named "", which no cluster takes */
        return fn_fail_res(c, g->h, g->h->root, "ResourceHierarchy %s: folder \"%s\" has no letter, digit, \".\" or "
                           "\"-\" to name its Folder by", g->hname, name);

    node *root = node_map(a);
    map_set_str(a, root, "apiVersion", FOLDER_API_VERSION);
    map_set_str(a, root, "kind", "Folder");
    node *meta = map_set(a, root, "metadata", node_map(a));
    map_set_str(a, meta, "name", fname);
    node *ann = node_map(a);
    map_foreach(g->ann, i, key, val)
        map_set_str(a, ann, scalar(key), scalar(val));
    node *spec = node_map(a);
    map_set_str(a, spec, "displayName", name);
    if (g->native) {
        if (!depth) {
            node *ref = map_set(a, spec, !strcmp(parent_kind, "Organization") ? "organizationRef" : "folderRef",
                                node_map(a));
            map_set_str(a, ref, "external", pname);
        } else {
            map_set_str(a, map_set(a, spec, "folderRef", node_map(a)), "name", normalize(a, pname));
            if (g->ns && g->depends_on)
                map_set_str(a, ann, DEPENDS_ON,
                            arena_printf(a, "%s/namespaces/%s/Folder/%s", FOLDER_GROUP, g->ns, normalize(a, pname)));
        }
    } else {
        const char *k = !depth && !strcmp(parent_kind, "Organization") ? "cnrm.cloud.google.com/organization-id"
                                                                        : "cnrm.cloud.google.com/folder-ref";
        map_set_str(a, ann, k, normalize(a, pname));
    }
    if (node_len(ann))
        map_set(a, meta, "annotations", ann);
    map_set(a, root, "spec", spec);
    if (g->ns)
        map_set_str(a, meta, "namespace", g->ns);

    const char *file = arena_printf(a, "folder_%s.yaml", fname);
    resource *r = resource_new(a, root, c->pkg, g->ns ? arena_printf(a, "%s/%s", g->ns, file) : file, 0);
    if (g->n == g->cap) {
        g->cap = g->cap ? g->cap * 2 : 16;
        g->out = xrealloc(g->out, g->cap * sizeof *g->out);
    }
    g->out[g->n++] = (keyed){item_key(a, r), r, true};
    return 0;
}

/* A folder entry of a v1alpha2/3 tree: its name, and its children (a list, a $subtree map, or none). */
static int walk(gen *g, const node *list, const char **path, size_t depth, const char *parent_kind,
                const char *parent_name, int level, uint32_t visible);

static int entry(gen *g, const node *e, const char **path, size_t depth, const char *parent_kind,
                 const char *parent_name, int level, uint32_t visible)
{
    fn_ctx *c = g->c;
    if (is_null(e))
        return 0; /* the catalog skips a null entry */
    if (is_scalar(e)) {
        /* a number or a boolean is no name to the catalog, which skips it: an error here, not a missing folder */
        if (node_type(e) != T_STR)
            return fn_fail_res(c, g->h, e, "ResourceHierarchy %s: folder %s is not a string (the catalog would "
                               "skip it): quote it", g->hname, scalar(e));
        return add_folder(g, scalar(e), path, depth, parent_kind, parent_name);
    }
    if (!is_map(e))
        return fn_fail_res(c, g->h, e, "ResourceHierarchy %s: a folder must be a name, or a map of one name to its "
                           "list of folders or to {$subtree: name}", g->hname);
    if (node_len(e) != 1)
        return fn_fail_res(c, g->h, e, "ResourceHierarchy %s: a folder map must hold exactly one name (the catalog "
                           "reads only the first)", g->hname);
    const char *name = scalar(map_key(e, 0));
    const node *kids = map_val(e, 0);
    if (!name)
        return fn_fail_res(c, g->h, e, "ResourceHierarchy %s: a folder's name must be a string", g->hname);
    if (add_folder(g, name, path, depth, parent_kind, parent_name) < 0)
        return -1;
    path[depth] = name;
    if (is_seq(kids))
        return walk(g, kids, path, depth + 1, parent_kind, parent_name, level + 1, visible);
    if (is_map(kids)) {
        /* the catalog builds each subtree from the ones before it, so inside subtree i only those are known */
        const char *sub = scalar(map_get(kids, "$subtree"));
        long at = sub && is_map(g->subtrees) ? map_index(g->subtrees, sub) : -1;
        if (at < 0 || (uint32_t)at >= visible)
            return fn_fail_res(c, g->h, kids, "ResourceHierarchy %s references non-existent subtree \"%s\"", g->hname,
                               sub ? sub : "undefined");
        if (g->dry)
            return 0;
        return walk(g, map_val(g->subtrees, (uint32_t)at), path, depth + 1, parent_kind, parent_name, level + 1,
                    (uint32_t)at);
    }
    return fn_fail_res(c, g->h, kids ? kids : e, "ResourceHierarchy %s: folder %s: give its folders as a list or as "
                       "{$subtree: name} (the catalog %s)", g->hname, name,
                       is_null(kids) ? "fails on an empty value" : "ignores a plain value");
}

static int walk(gen *g, const node *list, const char **path, size_t depth, const char *parent_kind,
                const char *parent_name, int level, uint32_t visible)
{
    /* bounds the C stack: a chain of subtrees is no deeper than their number, and nesting no deeper than the text */
    if (level > 200)
        return fn_fail_res(g->c, g->h, list, "ResourceHierarchy %s: the folder tree is deeper than 200 levels",
                           g->hname);
    seq_foreach(list, i, item)
        if (entry(g, item, path, depth, parent_kind, parent_name, level, visible) < 0)
            return -1;
    return 0;
}

/* v1alpha2/3: parentRef, subtrees (each may use the subtrees before it), config. */
static int gen_tree(gen *g)
{
    fn_ctx *c = g->c;
    const node *spec = map_get(g->h->root, "spec");
    const node *pref = map_get(spec, "parentRef");
    const node *ext = map_get(pref, "external");
    if (!is_map(pref) || !ext || is_null(ext) || !is_scalar(ext))
        return fn_fail_res(c, g->h, pref ? pref : g->h->root, "ResourceHierarchy %s has an undefined parentRef",
                           g->hname);
    const node *kind = map_get(pref, "kind");
    if (kind && !scalar_is(kind, "Organization") && !scalar_is(kind, "Folder"))
        return fn_fail_res(c, g->h, kind, "ResourceHierarchy %s has an unsupported parentRef kind", g->hname);
    const char *parent_kind = kind ? scalar(kind) : "Organization";
    const node *subtrees = map_get(spec, "subtrees");
    if (subtrees && !is_null(subtrees) && !is_map(subtrees))
        return fn_fail_res(c, g->h, subtrees, "ResourceHierarchy %s: spec.subtrees must be a map of names to lists "
                           "of folders", g->hname);
    map_foreach(subtrees, i, key, val)
        if (!is_seq(val))
            return fn_fail_res(c, g->h, val, "ResourceHierarchy %s: subtree %s must be a list of "
                               "folders", g->hname, scalar(key) ? scalar(key) : "?");
    const node *config = map_get(spec, "config");
    if (!is_seq(config))
        return fn_fail_res(c, g->h, config ? config : spec ? spec : g->h->root,
                           "ResourceHierarchy %s: spec.config must be a list of folders", g->hname);
    g->subtrees = subtrees;
    /* the catalog builds every subtree, used or not, from the ones before it: its errors are errors */
    g->dry = true;
    map_foreach(subtrees, i, key, val)
        if (walk(g, val, (const char *[256]){0}, 0, parent_kind, scalar(ext), 0, i) < 0)
            return -1;
    g->dry = false;
    /* the catalog copies a subtree's folders where it is named, so its text is walked once per use */
    const char **path = arena_alloc(c->a, 256 * sizeof *path);
    return walk(g, config, path, 0, parent_kind, scalar(ext), 0, is_map(subtrees) ? node_len(subtrees) : 0);
}

/* v1alpha1: every folder of each layer under every folder of the layer before. */
static int gen_layers(gen *g, const node *layers, const node *config, uint32_t li, const char **path,
                      const char *org)
{
    fn_ctx *c = g->c;
    if (li >= node_len(layers))
        return 0;
    const char *layer = scalar(seq_item(layers, li));
    const node *folders = layer ? map_get(config, layer) : NULL;
    if (!folders || is_null(folders))
        return fn_fail_res(c, g->h, seq_item(layers, li), "Layer \"%s\" has no corresponding entry config entry. "
                           "Either add to spec.config.%s or remove it from spec.layers", layer ? layer : "",
                           layer ? layer : "");
    if (!is_seq(folders))
        return fn_fail_res(c, g->h, folders, "ResourceHierarchy %s: spec.config.%s must be a list of folder names",
                           g->hname, layer);
    seq_foreach(folders, i, f) {
        if (!is_scalar(f) || is_null(f))
            return fn_fail_res(c, g->h, f, "ResourceHierarchy %s: spec.config.%s[%u] must be a folder name", g->hname,
                               layer, i);
        if (add_folder(g, scalar(f), path, li, "Organization", org) < 0)
            return -1;
        path[li] = scalar(f);
        if (gen_layers(g, layers, config, li + 1, path, org) < 0)
            return -1;
    }
    return 0;
}

static int gen_v1(gen *g)
{
    fn_ctx *c = g->c;
    const node *spec = map_get(g->h->root, "spec");
    const node *layers = map_get(spec, "layers"), *config = map_get(spec, "config"), *org = map_get(spec, "organization");
    if (!is_seq(layers))
        return fn_fail_res(c, g->h, layers ? layers : g->h->root, "ResourceHierarchy %s: spec.layers must be a list "
                           "of layer names", g->hname);
    if (!is_map(config))
        return fn_fail_res(c, g->h, config ? config : g->h->root, "ResourceHierarchy %s: spec.config must map each "
                           "layer to its folder names", g->hname);
    if (node_len(layers) > 200)
        return fn_fail_res(c, g->h, layers, "ResourceHierarchy %s: more than 200 layers", g->hname);
    const char **path = arena_alloc(c->a, (node_len(layers) + 1) * sizeof *path);
    return gen_layers(g, layers, config, 0, path, is_scalar(org) && !is_null(org) ? scalar(org) : "undefined");
}

static int by_key(const void *x, const void *y)
{
    return strcmp(((const keyed *)x)->key, ((const keyed *)y)->key);
}

static int run(fn_ctx *c)
{
    arena *a = c->a;
    /* the items as the SDK holds them: one per key, sorted */
    size_t n = 0;
    keyed *items = arena_alloc(a, (c->items->n + 1) * sizeof *items);
    for (size_t i = 0; i < c->items->n; i++)
        if (c->items->v[i])
            items[n++] = (keyed){item_key(a, c->items->v[i]), c->items->v[i], false};
    if (n)
        qsort(items, n, sizeof *items, by_key);
    for (size_t i = 1; i < n; i++)
        if (!strcmp(items[i].key, items[i - 1].key))
            return fn_fail_res(c, items[i].r, items[i].r->root,
                               "%s and %s are the same object %s: generate-folders (the catalog's TypeScript SDK) "
                               "would keep only the last", res_file(a, items[i - 1].r), res_file(a, items[i].r),
                               items[i].key);
    gen g = {.c = c, .depends_on = !c->version.pinned};
    int rc = -1;
    /* v1alpha1 first, then v1alpha3, then v1alpha2, each in the SDK's order */
    static const char *const order[] = {V1, V3, V2};
    for (int o = 0; o < 3; o++) {
        for (size_t i = 0; i < n; i++) {
            resource *h = items[i].r;
            const char *av = res_api_version(h), *kind = res_kind(h);
            if (!av || !kind || strcmp(kind, "ResourceHierarchy") || strcmp(av, order[o]))
                continue;
            g.h = h;
            g.hname = res_name(h) ? res_name(h) : "undefined";
            g.ns = res_namespace(h);
            if (g.ns && !*g.ns)
                g.ns = NULL;
            if (g.ns && !plain_segment(g.ns)) {
                fn_fail_res(c, h, h->root, "ResourceHierarchy %s: its namespace becomes a directory name and must not "
                            "hold \"/\" or be \".\" or \"..\"", g.hname);
                goto out;
            }
            g.native = !strcmp(av, V3);
            g.ann = NULL;
            if (strcmp(av, V1)) {
                node *ann = node_map(a);
                const node *src = path_get(h->root, "metadata", "annotations", NULL);
                map_foreach(src, k, mk, val) {
                    const char *key = scalar(mk), *v = scalar(val);
                    if (key && v && !not_inherited(key))
                        map_set_str(a, ann, key, v);
                }
                g.ann = ann;
            }
            if (strcmp(av, V3))
                fn_result_add(c, SEV_WARN, h, NULL,
                              "ResourceHierarchy %s references an older Resource Hierarchy GroupVersion. Latest "
                              "GroupVersion is blueprints.cloud.google.com/v1alpha3.", g.hname);
            if ((!strcmp(av, V1) ? gen_v1(&g) : gen_tree(&g)) < 0)
                goto out;
        }
    }
    /* the Folders made replace the items of the same key; two different Folders of one key are an error */
    if (g.n)
        qsort(g.out, g.n, sizeof *g.out, by_key);
    for (size_t i = 1; i < g.n; i++)
        if (!strcmp(g.out[i].key, g.out[i - 1].key) && !node_equal(g.out[i].r->root, g.out[i - 1].r->root)) {
            fn_fail_res(c, g.h, g.h->root, "the hierarchies make two different Folders named %s",
                        res_name(g.out[i].r));
            goto out;
        }
    keyed *all = arena_alloc(a, (n + g.n + 1) * sizeof *all);
    size_t m = 0, i = 0, j = 0;
    while (i < n || j < g.n) {
        if (j < g.n && j + 1 < g.n && !strcmp(g.out[j].key, g.out[j + 1].key)) {
            j++; /* the same Folder twice */
            continue;
        }
        int cmp = i >= n ? 1 : j >= g.n ? -1 : strcmp(items[i].key, g.out[j].key);
        if (cmp < 0)
            all[m++] = items[i++];
        else if (cmp > 0)
            all[m++] = g.out[j++];
        else {
            all[m++] = g.out[j++]; /* an earlier render's Folder: the new one takes its place */
            i++;
        }
    }
    c->items->n = 0;
    for (size_t k = 0; k < m; k++)
        rlist_push(c->items, all[k].r);
    rc = 0;
out:
    xfree(g.out);
    return rc;
}

const fn_def fn_generate_folders = {
    .name = "generate-folders",
    .summary = "make the Config Connector Folders of each ResourceHierarchy's folder tree",
    .run = run,
    .releases = "0.1.0 0.1.1",
    .readme = {
        .does = "the Config Connector `Folder`s of each `ResourceHierarchy` (`cft.dev/v1alpha1` layers, "
                "`cft.dev/v1alpha2` and `blueprints.cloud.google.com/v1alpha3` trees with `$subtree`s); names are "
                "the path joined with `.` and normalized, parents by annotation (v1alpha1/2) or "
                "`organizationRef`/`folderRef` (v1alpha3); the hierarchy's annotations are inherited (v1alpha2/3); "
                "every item comes back sorted by apiVersion/kind/namespace/name, as the catalog's TypeScript SDK "
                "hands it back",
        .differs = "where the catalog would lose or mangle something, an error: two items with one "
                "apiVersion/kind/namespace/name (the SDK keeps the last), two different Folders of one name, a "
                "folder written as a number or boolean, a list, a map of several names or a plain value (skipped or "
                "ignored there), a missing config, subtree or layer list (a crash there), a folder whose name "
                "normalizes to nothing (a Folder named `\"\"` there)",
        .versions = "v0.1.0, v0.1.1 (the TypeScript function) · `latest`, `unstable`: a Folder of a namespaced v1alpha3 "
                "hierarchy also gets `config.kubernetes.io/depends-on` on its parent Folder",
    },
};
