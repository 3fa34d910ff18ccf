#include "package/package.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/path.h"
#include "util/diag.h"
#include "util/fsutil.h"
#include "yaml/load.h"

/* JSON documents become ordinary block YAML on output: flow collections to block, quoted strings to strings the
 * emitter quotes only where a reader would see something else. A plain key (YAML flow syntax in a .json file) is
 * left as it is, shared or not. */
static void json_to_block(arena *a, node *n)
{
    if (is_scalar(n)) {
        if (node_style(n) == ST_DOUBLE && !node_tag(n))
            node_set_style(n, ST_STRING);
        return;
    }
    node_set_style(n, ST_BLOCK);
    for (uint32_t i = 0; i < node_len(n); i++) { /* by index: one loop for a map or a sequence */
        if (is_map(n)) {
            if (node_style(map_key(n, i)) == ST_DOUBLE)
                json_to_block(a, map_key_own(a, n, i));
            json_to_block(a, map_val(n, i));
        } else {
            json_to_block(a, seq_item(n, i));
        }
    }
}

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

struct doc_sink {
    load_ctx *c;
    package *pkg;
    const char *path;
    const char *display;
    rlist *list;
    bool kustomization_file;
};

static bool is_kustomization_name(const char *base)
{
    return !strcmp(base, "kustomization.yaml") || !strcmp(base, "kustomization.yml") || !strcmp(base, "Kustomization");
}

/* Kind "List" and the typed lists (ConfigMapList, ...): Argo CD's repo-server flattens any object whose items is
 * a list into its items (reposerver/repository/repository.go GenerateManifests, unstructured IsList), and drops a
 * list whose items is null (isNullList), so the functions should see the items too. */
static bool list_kind(const char *kind)
{
    size_t n = kind ? strlen(kind) : 0;
    return n >= 4 && !strcmp(kind + n - 4, "List");
}

/* The KRM check one object must pass. An object may have metadata.generateName instead of metadata.name: Argo CD
 * and Helm hooks (a PreSync Job, a test Pod) are written that way, and Kubernetes names them at creation.
 * Returns 0 when the object went into the list (or was deferred), -1 on an error. */
static int take_object(struct doc_sink *s, resource *r, uint32_t line, const char *where)
{
    const char *av = res_api_version(r), *kind = res_kind(r), *name = res_name(r);
    const char *gen = path_str(r->root, "metadata", "generateName", NULL);
    const char *missing = !av || !*av ? "apiVersion" : !kind || !*kind ? "kind"
                          : (!name || !*name) && (!gen || !*gen) ? "metadata.name"
                                                                  : NULL;
    if (missing && s->c->defer_non_krm && s->pkg && !where) {
        s->c->non_krm = xrealloc(s->c->non_krm, (s->c->n_non_krm + 1) * sizeof *s->c->non_krm);
        s->c->non_krm[s->c->n_non_krm++] = (non_krm){s->pkg, s->path, s->display, missing, s->c->reading, (int)line};
        return 0;
    }
    if (missing)
        return fail(s->display, (int)line, "%s%sresource must have apiVersion, kind and metadata.name (%s is missing)",
                    where ? where : "", where ? ": " : "", missing);
    rlist_push(s->list, r);
    return 0;
}

static int take_doc(void *ud, node *root, uint32_t index, uint32_t line, int seq_wide)
{
    struct doc_sink *s = ud;
    size_t max_objects = limits_or_default(s->c->limits)->max_objects;
    if (objects_read_add(1) > max_objects)
        return fail(s->display, (int)line, "more than %zu objects (max-objects; raise it with CMP_MAX_OBJECTS)",
                    max_objects);
    if (has_suffix(s->path, ".json"))
        json_to_block(s->c->a, root);
    resource *r = resource_new(s->c->a, root, s->pkg, s->path, index);
    r->seq_wide = (uint8_t)seq_wide;
    r->line = line;
    const char *av = is_map(root) ? res_api_version(r) : NULL;
    const char *kind = is_map(root) ? res_kind(r) : NULL;
    /* kpt's isKustomization: the file name, the kustomize API group, or kind Kustomization without apiVersion
     * (kustomize reads those too) */
    if (s->kustomization_file || (av && !strncmp(av, "kustomize.config.k8s.io/", 24)) ||
        ((!av || !*av) && kind && !strcmp(kind, "Kustomization"))) {
        r->flags |= R_KUSTOMIZE;
        rlist_push(s->list, r);
        return 0;
    }
    if (!is_map(root))
        return fail(s->display, (int)line, "document is a %s, not a Kubernetes object",
                    is_seq(root) ? "list" : "scalar");
    node *items = map_get(root, "items");
    if (list_kind(res_kind(r)) && (is_seq(items) || (items && is_null(items)))) {
        rlist checked = {0}, *into = s->list;
        if (s->c->keep_lists)
            s->list = &checked; /* the items are checked all the same; the List goes in whole */
        int rc = 0;
        seq_foreach(items, i, item) {
            if (rc != 0)
                break;
            const char *where = arena_printf(s->c->a, "%s items[%u]", kind, i);
            if (!is_map(item)) {
                rc = fail(s->display, (int)node_line(item), "%s: item is a %s, not a Kubernetes object", where,
                          is_seq(item) ? "list" : "scalar");
            } else if (i && objects_read_add(1) > max_objects) {
                rc = fail(s->display, (int)node_line(item),
                          "more than %zu objects (max-objects; raise it with CMP_MAX_OBJECTS)", max_objects);
            } else {
                resource *ir = resource_new(s->c->a, item, s->pkg, s->path, index);
                ir->seq_wide = (uint8_t)seq_wide;
                ir->line = node_line(item);
                rc = take_object(s, ir, node_line(item), where);
            }
        }
        s->list = into;
        rlist_free(&checked);
        if (rc == 0 && s->c->keep_lists) {
            r->flags |= R_LIST;
            rlist_push(s->list, r);
        }
        return rc;
    }
    return take_object(s, r, line, NULL);
}

int load_resources_from_text(load_ctx *c, package *pkg, const char *path, const char *display, const char *data,
                             size_t len, rlist *list)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    struct doc_sink s = {c, pkg, path, display, list, is_kustomization_name(base)};
    return yaml_load(c->a, c->st, limits_yaml(c->limits), display, data, len, take_doc, &s);
}

yaml_stream *load_resources_stream(load_ctx *c, package *pkg, const char *path, const char *display, rlist *list)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    struct doc_sink *s = arena_alloc(c->a, sizeof *s);
    *s = (struct doc_sink){c, pkg, path, display, list, is_kustomization_name(base)};
    return yaml_stream_new(c->a, c->st, limits_yaml(c->limits), display, take_doc, s);
}

/* kpt's MatchAllKRM globs: Kptfile, *.yaml, *.yml, *.json. A kustomization named `Kustomization` matches none of
 * them, so kpt never reads it (nor writes it back). */
static bool resource_file_name(const char *name)
{
    size_t n = strlen(name);
    if (!strcmp(name, "Kptfile"))
        return true;
    return (n > 5 && !strcmp(name + n - 5, ".yaml")) || (n > 4 && !strcmp(name + n - 4, ".yml")) ||
           (n > 5 && !strcmp(name + n - 5, ".json"));
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorted entry names of a directory (Go's filepath.Walk order). */
static char **list_dir(const char *dir, const char *display, size_t *count)
{
    DIR *d = opendir(dir);
    *count = 0;
    if (!d) {
        fail(display, 0, "cannot read directory: %s", strerror(errno));
        return NULL;
    }
    size_t cap = 32, n = 0;
    char **names = xmalloc(cap * sizeof *names);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (n == cap)
            names = xrealloc(names, (cap *= 2) * sizeof *names);
        names[n++] = xstrdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_names);
    *count = n;
    return names;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        xfree(names[i]);
    xfree(names);
}

static int load_package(load_ctx *c, package *parent, const char *abs, const char *rel, package **out);

bool is_source_dir(arena *a, const char *dir)
{
    static const char *const markers[] = {"Chart.yaml", "kustomization.yaml", "kustomization.yml", "Kustomization", NULL};
    for (const char *const *m = markers; *m; m++)
        if (file_exists(path_join(a, dir, *m)))
            return true;
    return false;
}

static const char *display_of(load_ctx *c, package *pkg, const char *relpath)
{
    return pkg->rel && *pkg->rel ? arena_printf(c->a, "%s/%s", pkg->rel, relpath) : relpath;
}

/* Files Argo CD owns, never manifests: its parameter override files, .argocd-source.yaml and
 * .argocd-source-<app>.yaml (reposerver/repository/repository.go repoSourceFile, appSourceFile). The repo-server
 * merges them into the Application's source before the plugin runs, and still sends them along in the repository
 * copy, so the plugin sees them as *.yaml files next to the package. */
static bool argocd_file(const char *name)
{
    size_t n = strlen(name);
    return !strcmp(name, ".argocd-source.yaml") ||
           (n > 20 && !strncmp(name, ".argocd-source-", 15) && !strcmp(name + n - 5, ".yaml"));
}

/* Argo CD's directory source skips a file that contains this marker (repository.go skipFileRenderingMarker). */
static const char skip_marker[] = "+argocd:skip-file-rendering";

static bool has_skip_marker(const char *data, size_t len)
{
    size_t m = sizeof skip_marker - 1;
    for (const char *p = data, *end = data + len; (size_t)(end - p) >= m; p++) {
        p = memchr(p, '+', (size_t)(end - p) - m + 1);
        if (!p)
            return false;
        if (!memcmp(p, skip_marker, m))
            return true;
    }
    return false;
}

static int feed_stream(void *ud, const char *data, size_t len)
{
    return yaml_stream_feed(ud, data, len);
}

static int read_file_into(load_ctx *c, package *pkg, const char *abs, const char *relpath)
{
    const char *display = display_of(c, pkg, relpath);
    if (!c->directory_source) {
        /* read and parsed a piece at a time: the text of a big file never sits beside its tree (issue #32). A
         * directory source reads the whole text first, as Argo CD's skip marker anywhere in it drops the file. */
        yaml_stream *ys = load_resources_stream(c, pkg, relpath, display, &pkg->own);
        int rc = read_text_file_pieces(c->limits, abs, display, feed_stream, ys);
        if (rc == 0)
            rc = yaml_stream_end(ys);
        yaml_stream_free(ys);
        return rc;
    }
    char *data;
    size_t len;
    if (read_text_file(c->limits, abs, display, &data, &len) < 0)
        return -1;
    if (c->directory_source && has_skip_marker(data, len)) {
        xfree(data);
        return 0;
    }
    int rc = load_resources_from_text(c, pkg, relpath, display, data, len, &pkg->own);
    xfree(data);
    return rc;
}

/* krmignore_match, reported when the patterns cost more than the run allows (-1) */
static int ignore_match(load_ctx *c, package *pkg, const char *rel, bool dir)
{
    int m = krmignore_match(pkg->ignore, rel, dir);
    if (m < 0)
        fail(display_of(c, pkg, ".krmignore"), 0,
             "its patterns took over %zu steps to match against the package's paths, at \"%s\" (raise it with "
             "CMP_MAX_GLOB_STEPS)",
             limits_or_default(c->limits)->max_glob_steps, shown(c->a, rel));
    return m;
}

/* Walks one directory of pkg (reldir relative to the package). Subpackages found are appended to subs.
 * ignored: the directory is excluded by .krmignore, so none of its files are read; kpt still finds the subpackages
 * in it (its subpackage walk knows no .krmignore), and so do we. */
static int walk(load_ctx *c, package *pkg, const char *absdir, const char *reldir, bool ignored, package ***subs,
                size_t *nsubs)
{
    size_t n;
    char **names = list_dir(absdir, display_of(c, pkg, *reldir ? reldir : "."), &n);
    if (!names)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const char *name = names[i];
        if (!strcmp(name, ".git") || argocd_file(name))
            continue;
        char *abs = path_join(c->a, absdir, name);
        char *rel = *reldir ? path_join(c->a, reldir, name) : arena_strdup(c->a, name);
        /* A path the system cannot take would otherwise vanish from the package without a word (lstat fails) */
        if (path_fits(abs, display_of(c, pkg, rel)) < 0) {
            rc = -1;
            continue;
        }
        struct stat lst;
        if (lstat(abs, &lst) != 0) {
            rc = fail(display_of(c, pkg, rel), 0, "cannot read: %s", strerror(errno));
            continue;
        }
        bool link = S_ISLNK(lst.st_mode);
        struct stat st = lst;
        if (link) {
            /* Resolved one step at a time from the package, never looking outside it: stat() on the link would
             * tell "broken" from "outside" from "a directory outside" (skipped), an oracle for what exists on the
             * sidecar (a mounted secret, another checkout). */
            /* on the heap: walk recurses once per directory level, and a PATH_MAX buffer in its frame (4.5 KB a
             * level) overflowed the stack of a package nested 2,000 deep */
            char *real = xmalloc(PATH_MAX);
            confined where = resolve_beneath(c->root_real, abs, real);
            int ign = !ignored && resource_file_name(name) ? ignore_match(c, pkg, rel, false) : 1;
            bool named = ign == 0;
            bool gone = where == CONFINED_MISSING || (where == CONFINED_OK && stat(real, &st) != 0);
            xfree(real);
            if (ign < 0) {
                rc = -1;
                continue;
            }
            if (where == CONFINED_OUTSIDE) {
                if (named)
                    rc = fail(display_of(c, pkg, rel), 0, "symlink points outside the package; refusing to read it");
                continue;
            }
            if (gone) {
                if (named)
                    rc = fail(display_of(c, pkg, rel), 0, "broken symlink");
                continue;
            }
        }
        if (S_ISDIR(st.st_mode)) {
            /* kpt does not follow directory symlinks, which also keeps symlink loops out */
            if (link)
                continue;
            char *kpt = path_join(c->a, abs, "Kptfile");
            int ign = file_exists(kpt) ? 0 : ignored ? 1 : ignore_match(c, pkg, rel, true);
            if (ign < 0) {
                rc = -1;
                continue;
            }
            bool skip = ign == 1;
            /* A Helm chart or a Kustomize overlay: read as kpt reads it (every YAML file a resource, so a chart's
             * templates fail as they fail kpt) unless a pipeline step reads it as its source, which is known only
             * once every Kptfile of the tree is read (settle_pending). Without a Kptfile, a directory of manifests
             * keeps the named plugin's rule: such a directory is not manifests. */
            if (!skip && !file_exists(kpt) && is_source_dir(c->a, abs)) {
                if (c->directory_source)
                    continue;
                c->pending = xrealloc(c->pending, (c->npending + 1) * sizeof *c->pending);
                c->pending[c->npending++] =
                    (pending_dir){pkg, abs, rel, file_exists(path_join(c->a, abs, "Chart.yaml"))};
                continue;
            }
            if (file_exists(kpt)) {
                package *sub;
                rc = load_package(c, pkg, abs, pkg->rel && *pkg->rel ? path_join(c->a, pkg->rel, rel) : rel, &sub);
                /* kept even when it failed half-way: what it read so far is freed with its parent, on every path */
                *subs = xrealloc(*subs, (*nsubs + 1) * sizeof **subs);
                (*subs)[(*nsubs)++] = sub;
                continue;
            }
            rc = walk(c, pkg, abs, rel, skip, subs, nsubs);
            continue;
        }
        if (ignored)
            continue;
        bool jsonnet = c->directory_source && has_suffix(name, ".jsonnet");
        /* the package's own Kptfile is read whatever .krmignore says: kpt reads it for the pipeline even when a
         * pattern ("*") ignores it as a resource */
        bool kptfile = !*reldir && !strcmp(name, "Kptfile");
        bool named = S_ISREG(st.st_mode) && !kptfile && (jsonnet || resource_file_name(name));
        int ign = named ? ignore_match(c, pkg, rel, false) : 0;
        if (ign < 0) {
            rc = -1;
            continue;
        }
        if (S_ISREG(st.st_mode) && jsonnet && !ign) {
            /* Argo CD's directory source would evaluate it; quietly leaving it out would render less than Argo CD */
            rc = fail(display_of(c, pkg, rel), 0, "Jsonnet is not supported: render it to YAML or JSON, or point the "
                                                  "Application at Argo CD's own directory source");
            continue;
        }
        if (!S_ISREG(st.st_mode) || !resource_file_name(name) || ign)
            continue;
        if (link && !inside(c->root_real, abs)) {
            rc = fail(display_of(c, pkg, rel), 0, "symlink points outside the package; refusing to read it");
            continue;
        }
        if (!strcmp(name, "Kptfile") && *reldir)
            continue; /* cannot happen: a directory with a Kptfile is a subpackage */
        rc = read_file_into(c, pkg, abs, rel);
    }
    free_names(names, n);
    return rc;
}

static int cmp_pkg(const void *a, const void *b)
{
    return strcmp((*(package *const *)a)->rel, (*(package *const *)b)->rel);
}

static int load_package(load_ctx *c, package *parent, const char *abs, const char *rel, package **out)
{
    package *p = arena_alloc(c->a, sizeof *p);
    c->packages++;
    p->abs = arena_strdup(c->a, abs);
    p->rel = arena_strdup(c->a, rel);
    p->parent = parent;
    *out = p;
    char *ign = path_join(c->a, abs, ".krmignore");
    struct stat st;
    if (lstat(ign, &st) == 0) {
        if (S_ISLNK(st.st_mode) && !inside(c->root_real, ign))
            return fail(display_of(c, p, ".krmignore"), 0, "symlink points outside the package; refusing to read it");
        char *text;
        size_t len;
        if (read_text_file(c->limits, ign, display_of(c, p, ".krmignore"), &text, &len) < 0)
            return -1;
        p->ignore = krmignore_parse(c->a, c->limits, display_of(c, p, ".krmignore"), text);
        xfree(text);
        if (!p->ignore)
            return -1;
    }
    package **subs = NULL;
    size_t nsubs = 0;
    int rc = walk(c, p, abs, "", false, &subs, &nsubs);
    if (nsubs)
        qsort(subs, nsubs, sizeof *subs, cmp_pkg);
    p->subs = subs;
    p->nsubs = nsubs;
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < p->own.n; i++) {
        resource *r = p->own.v[i];
        if (!strcmp(r->path, "Kptfile")) {
            if (p->kptfile)
                return fail(display_of(c, p, "Kptfile"), (int)r->line, "Kptfile holds more than one document");
            p->kptfile = r;
        }
    }
    return 0;
}

/* Path order as filepath.Walk visits files: name by name, so "a/x.yaml" (in directory "a") comes before
 * "a.yaml", as "a" sorts before "a.yaml". */
static int walk_order(const char *x, const char *y)
{
    for (;;) {
        size_t nx = strcspn(x, "/"), ny = strcspn(y, "/");
        size_t n = nx < ny ? nx : ny;
        int d = memcmp(x, y, n);
        if (d)
            return d;
        if (nx != ny)
            return nx < ny ? -1 : 1;
        if (!x[nx] || !y[ny])
            return (x[nx] != 0) - (y[ny] != 0);
        x += nx + 1;
        y += ny + 1;
    }
}

static int cmp_resources(const void *a, const void *b)
{
    const resource *x = *(resource *const *)a, *y = *(resource *const *)b;
    int d = walk_order(x->path, y->path);
    return d ? d : x->serial < y->serial ? -1 : x->serial > y->serial;
}

static void mark_expanded(package ***list, size_t *n, package *p)
{
    for (size_t i = 0; i < *n; i++)
        if ((*list)[i] == p)
            return;
    *list = xrealloc(*list, (*n + 1) * sizeof **list);
    (*list)[(*n)++] = p;
}

/* The chart and overlay directories the walk left for later: those a step reads as its source stay the step's,
 * every other one is read now, as kpt reads it, with what it holds (charts and overlays in it wait for the next
 * round, and subpackages in it may bring steps that name them). Their files then take their places in walk
 * order. */
static int settle_pending(load_ctx *c, package *root)
{
    package **expanded = NULL;
    size_t nexpanded = 0, done = 0;
    int rc = 0;
    while (rc == 0 && done < c->npending) {
        size_t end = c->npending;
        for (size_t i = done; i < end && rc == 0; i++) {
            pending_dir d = c->pending[i]; /* a copy: the walk below may grow the list */
            int named = c->step_source ? c->step_source(c, root, d.abs) : 0;
            if (named != 0) {
                rc = named < 0 ? -1 : 0;
                continue;
            }
            mark_expanded(&expanded, &nexpanded, d.pkg);
            const char *dir = display_of(c, d.pkg, d.rel);
            c->reading = arena_printf(c->a, "%s/ holds %s that no %s step names, so its files are read as "
                                            "resources, as kpt reads them", shown(c->a, dir),
                                      d.chart ? "a Helm chart" : "a kustomization",
                                      d.chart ? "render-helm-chart" : "kustomize-build");
            diag_detail why;
            diag_detail *outer = diag_capture(&why);
            rc = walk(c, d.pkg, d.abs, d.rel, false, &d.pkg->subs, &d.pkg->nsubs);
            diag_restore(outer);
            if (rc < 0)
                fail(why.file[0] ? why.file : NULL, why.line, "%s; %s", why.message, c->reading);
            c->reading = NULL;
        }
        done = end;
    }
    for (size_t i = 0; rc == 0 && i < nexpanded; i++) {
        package *p = expanded[i];
        qsort(p->own.v, p->own.n, sizeof *p->own.v, cmp_resources);
        if (p->nsubs)
            qsort(p->subs, p->nsubs, sizeof *p->subs, cmp_pkg);
    }
    xfree(expanded);
    return rc;
}

int package_load(load_ctx *c, const char *dir, bool require_kptfile, package **out)
{
    *out = NULL;
    char real[PATH_MAX];
    if (!realpath(dir, real))
        return fail(dir, 0, "package directory: %s", strerror(errno));
    if (!is_dir(real))
        return fail(dir, 0, "not a directory");
    c->root_real = arena_strdup(c->a, real);
    char *kpt = path_join(c->a, real, "Kptfile");
    if (require_kptfile && !file_exists(kpt))
        return fail(dir, 0, "no Kptfile: not a kpt package (to render a Helm chart, a Kustomize overlay or plain YAML without one, pass --convention; under Argo CD that is the default)");
    int rc = load_package(c, NULL, real, "", out);
    if (rc == 0)
        rc = settle_pending(c, *out);
    xfree(c->pending);
    c->pending = NULL;
    c->npending = 0;
    if (rc == 0 && require_kptfile && !(*out)->kptfile)
        return fail("Kptfile", 0, "Kptfile is empty");
    return rc;
}

void package_free(package *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->nsubs; i++)
        package_free(p->subs[i]);
    xfree(p->subs);
    rlist_free(&p->own);
}
