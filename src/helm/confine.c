/* helm loads a chart directory whole, following symlinks (and warning about them on stderr only), builds file://
 * dependencies from wherever they point, unpacks the archives under charts/, and validates values against each
 * values.schema.json, fetching or reading whatever a "$ref" names. Each of those is checked here before helm runs. */
#include "helm/confine.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "decode/decode.h"
#include "helm/archive.h"
#include "util/diag.h"
#include "util/fsutil.h"
#include "util/path.h"
#include "yaml/load.h"

enum { MAX_DEPTH = 64, MAX_ARCHIVE_NESTING = 8, MAX_CHART_DIRS = 1024 };

typedef struct walk {
    const engine_ctx *c;
    const node *at;
    const char *root;  /* the repository (real path) */
    const char *chart; /* the chart being checked, as shown in messages */
    size_t entries, bytes, max_entries, max_bytes;
    const char *stack[MAX_DEPTH]; /* real directories being walked, to catch a symlink back to one of them */
    size_t depth;
    const char **seen; /* chart directories already checked (file:// dependencies may share one) */
    size_t nseen;
} walk;

static int count(walk *w, size_t bytes)
{
    if (++w->entries > w->max_entries)
        return engine_fail(w->c, w->at,
                           "chart \"%s\" has more than %zu files and directories, with its dependencies (limit "
                           "max-chart-files; raise it with CMP_MAX_CHART_FILES)",
                           w->chart, w->max_entries);
    if (bytes > w->max_bytes - w->bytes)
        return engine_fail(w->c, w->at,
                           "chart \"%s\" holds more than %zu bytes, with its dependencies and unpacked archives (limit "
                           "max-chart-bytes; raise it with CMP_MAX_CHART_BYTES)",
                           w->chart, w->max_bytes);
    w->bytes += bytes;
    return 0;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* The first "$ref" that names anything but a part of the schema itself ("#..."). */
static const node *foreign_ref(const node *n)
{
    seq_foreach(n, i, item) { /* nothing when n is a map or a scalar, as map_foreach for a list */
        const node *r = foreign_ref(item);
        if (r)
            return r;
    }
    map_foreach(n, i, key, v) {
        if (scalar_is(key, "$ref") && is_scalar(v) && scalar(v)[0] != '#')
            return v;
        const node *r = foreign_ref(v);
        if (r)
            return r;
    }
    return NULL;
}

static int check_schema(walk *w, const char *display, const char *text, size_t len)
{
    node *doc = NULL;
    if (yaml_load_one(w->c->a, w->c->st, limits_yaml(w->c->lim), display, text, len, &doc) < 0)
        return -1;
    const node *ref = foreign_ref(doc);
    if (ref)
        return fail(display, (int)node_line(ref),
                    "chart \"%s\": \"$ref\": \"%s\" reaches outside the schema; helm would fetch the URL or read the "
                    "file it names (only references inside the schema, \"#...\", are allowed)",
                    w->chart, shown(w->c->a, scalar(ref)));
    return 0;
}

static int scan_archive(walk *w, const char *display, const unsigned char *gz, size_t len, int nesting);

typedef struct scan {
    walk *w;
    const char *display;
    int nesting;
} scan;

/* Is a chart file (as helm names it) a subchart archive helm loads: charts/<name>.tgz, at any depth (a subchart
 * directory's own charts/ too), where <name> does not start with '_' or '.' (helm skips those)? */
static bool subchart_archive(const char *name)
{
    const char *b = base_name(name);
    size_t bl = strlen(b);
    return bl >= 4 && !strcmp(b + bl - 4, ".tgz") && b[0] != '_' && b[0] != '.' && b - name >= 7 &&
           !strncmp(b - 7, "charts/", 7) && (b - 7 == name || b[-8] == '/');
}

/* An entry of an archive, as helm reads it (helm_archive.c): counted; schemas and subchart archives looked into. */
static int scan_entry(void *ctx, const helm_archive_entry *e)
{
    scan *s = ctx;
    walk *w = s->w;
    if (count(w, e->size) < 0)
        return -1;
    if (!e->name)
        return 0;
    char *inner = arena_printf(w->c->a, "%s:%s", s->display, shown(w->c->a, e->raw));
    if (!strcmp(base_name(e->name), "values.schema.json"))
        return check_schema(w, inner, (const char *)e->data, e->size);
    if (subchart_archive(e->name))
        return scan_archive(w, inner, e->data, e->size, s->nesting + 1);
    return 0;
}

static int scan_archive(walk *w, const char *display, const unsigned char *gz, size_t len, int nesting)
{
    if (nesting > MAX_ARCHIVE_NESTING)
        return engine_fail(w->c, w->at, "chart \"%s\": archive %s nests archives more than %d deep", w->chart, display,
                           MAX_ARCHIVE_NESTING);
    scan s = {w, display, nesting};
    switch (helm_archive_read(w->c->a, gz, len, w->max_bytes - w->bytes, scan_entry, &s)) {
    case HELM_ARCHIVE_OK:
        return 0;
    case HELM_ARCHIVE_TOO_LARGE:
        return engine_fail(w->c, w->at,
                           "chart \"%s\": archive %s unpacks to more than %zu bytes (limit max-chart-bytes; raise it "
                           "with CMP_MAX_CHART_BYTES)",
                           w->chart, display, w->max_bytes);
    case HELM_ARCHIVE_REFUSED:
        return engine_locate(w->c, w->at, "chart \"%s\": archive %s is refused", w->chart, display);
    default:
        return -1;
    }
}

static int check_archive_file(walk *w, const char *path, const char *display, size_t size)
{
    FILE *f = fopen(path, "rb");
    unsigned char *data = xmalloc(size ? size : 1);
    size_t got = f ? fread(data, 1, size, f) : 0;
    if (f)
        fclose(f);
    int rc = got != size ? engine_fail(w->c, w->at, "chart \"%s\": cannot read archive %s", w->chart, display)
                         : scan_archive(w, display, data, size, 0);
    xfree(data);
    return rc;
}

/* A regular file helm will load: counted; schemas and subchart archives looked into. rel is chart-relative. */
static int check_file(walk *w, const char *path, const char *rel, size_t size)
{
    if (count(w, size) < 0)
        return -1;
    const char *b = base_name(rel);
    if (!strcmp(b, "values.schema.json")) {
        char *text;
        size_t len;
        if (read_text_file(w->c->lim, path, engine_repo_relative(w->c, path), &text, &len) < 0)
            return -1;
        int rc = check_schema(w, engine_repo_relative(w->c, path), text, len);
        xfree(text);
        return rc;
    }
    size_t bl = strlen(b);
    bool in_charts = b - rel >= 7 && !strncmp(b - 7, "charts/", 7) && (b - 7 == rel || b[-8] == '/');
    if (in_charts && bl > 4 && !strcmp(b + bl - 4, ".tgz"))
        return check_archive_file(w, path, engine_repo_relative(w->c, path), size);
    return 0;
}

/* real: the directory's real path; rel: as helm names it inside the chart ("" for the chart itself). */
static int walk_dir(walk *w, const char *real, const char *rel)
{
    if (w->depth >= MAX_DEPTH)
        return engine_fail(w->c, w->at, "chart \"%s\": \"%s\" is nested more than %d directories deep", w->chart, rel,
                           MAX_DEPTH);
    DIR *d = opendir(real);
    if (!d)
        return engine_fail(w->c, w->at, "chart \"%s\": cannot read the directory \"%s\"", w->chart, *rel ? rel : ".");
    w->stack[w->depth++] = real;
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        /* .git is git's own (git refuses to track a path through a ".git" component, so the author can put
         * nothing there), and it may hold thousands of objects when the chart is the whole repository */
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, ".git"))
            continue;
        const char *path = arena_printf(w->c->a, "%s/%s", real, e->d_name);
        const char *erel = *rel ? arena_printf(w->c->a, "%s/%s", rel, e->d_name) : arena_strdup(w->c->a, e->d_name);
        struct stat st;
        if (lstat(path, &st) != 0) {
            rc = engine_fail(w->c, w->at, "chart \"%s\": cannot read \"%s\"", w->chart, shown(w->c->a, erel));
            break;
        }
        if (S_ISLNK(st.st_mode)) {
            char target[PATH_MAX];
            confined r = resolve_beneath(w->root, path, target);
            if (r == CONFINED_OUTSIDE) {
                rc = engine_fail(w->c, w->at,
                                 "chart \"%s\": \"%s\" is a symlink that leads outside the repository; helm would "
                                 "follow it (a chart may read only files inside the repository)",
                                 w->chart, shown(w->c->a, erel));
                break;
            }
            if (r == CONFINED_MISSING || stat(target, &st) != 0) {
                rc = engine_fail(w->c, w->at,
                                 "chart \"%s\": \"%s\" is a symlink that does not resolve (helm cannot load the chart)",
                                 w->chart, shown(w->c->a, erel));
                break;
            }
            if (S_ISDIR(st.st_mode)) {
                for (size_t i = 0; i < w->depth; i++) {
                    size_t tl = strlen(target);
                    if (!strncmp(w->stack[i], target, tl) && (w->stack[i][tl] == '/' || !w->stack[i][tl])) {
                        rc = engine_fail(w->c, w->at,
                                         "chart \"%s\": \"%s\" is a symlink to a directory that contains it "
                                         "(helm would loop)",
                                         w->chart, shown(w->c->a, erel));
                        break;
                    }
                }
                if (rc == 0)
                    rc = count(w, 0) < 0 ? -1 : walk_dir(w, arena_strdup(w->c->a, target), erel);
                continue;
            }
            path = arena_strdup(w->c->a, target);
        }
        if (S_ISDIR(st.st_mode))
            rc = count(w, 0) < 0 ? -1 : walk_dir(w, path, erel);
        else if (S_ISREG(st.st_mode))
            rc = check_file(w, path, erel, (size_t)st.st_size);
        else
            rc = engine_fail(w->c, w->at, "chart \"%s\": \"%s\" is not a regular file or directory", w->chart,
                             shown(w->c->a, erel));
    }
    closedir(d);
    w->depth--;
    return rc;
}

static int check_chart(walk *w, const char *real);

/* Each file:// dependency a chart's Chart.yaml, requirements.yaml and their lock files name (with a Chart.lock, helm
 * builds what the lock lists), resolved beneath the repository: visit(ud, file, repository node, index, where,
 * real path). Stops at the first visit that fails. */
typedef int (*dep_visit)(void *ud, const char *display, const node *repo, uint32_t i, confined where,
                         const char *real);

/* as_helm: the files are read as helm reads them (src/decode), refused where the readings could differ; without it
 * (the reader's claiming of the directories a step renders, src/pipeline/sources.c) they are read plainly, so that a
 * file the step will refuse still claims the charts it names and the step's refusal is the error the user sees,
 * not a chart's template read as resources. Claiming never widens what is rendered: the step renders only after
 * its own, checked reading. */
static int each_file_dependency(const engine_ctx *c, const char *root, const char *chart_real, bool as_helm,
                                dep_visit visit, void *ud)
{
    static const char *const files[] = {"Chart.yaml", "requirements.yaml", "Chart.lock", "requirements.lock"};
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        const char *path = arena_printf(c->a, "%s/%s", chart_real, files[f]);
        struct stat st;
        if (lstat(path, &st) != 0)
            continue;
        const char *display = engine_repo_relative(c, path);
        char *text;
        size_t len;
        node *doc = NULL;
        if (read_text_file(c->lim, path, display, &text, &len) < 0)
            return -1;
        const load_limits *lim = limits_yaml(c->lim);
        int rc = as_helm ? go_load_chart_file(c->a, c->st, lim, display, files[f], text, len, &doc)
                         : yaml_load_one(c->a, c->st, lim, display, text, len, &doc);
        xfree(text);
        if (rc < 0)
            return -1;
        const node *deps = map_get(doc, "dependencies");
        seq_foreach(deps, i, dep) {
            const node *repo = map_get(dep, "repository");
            const char *r = scalar(repo);
            if (!r || strncmp(r, "file://", 7))
                continue;
            const char *p = r + 7;
            const char *full = clean_path(c->a, p[0] == '/' ? p : arena_printf(c->a, "%s/%s", chart_real, p));
            char real[PATH_MAX];
            confined where = resolve_beneath(root, full, real);
            if (visit(ud, display, repo, i, where, real) < 0)
                return -1;
        }
    }
    return 0;
}

/* file:// dependencies, which `helm dependency build` packs from wherever they point. */
static int check_dependency(void *ud, const char *display, const node *repo, uint32_t i, confined where,
                            const char *real)
{
    walk *w = ud;
    struct stat st;
    if (where == CONFINED_OUTSIDE)
        return fail(display, (int)node_line(repo),
                    "dependencies[%u].repository \"%s\" leads outside the repository; a file:// dependency must be "
                    "a chart inside the repository",
                    i, shown(w->c->a, scalar(repo)));
    if (where == CONFINED_MISSING)
        return 0; /* nothing to read: helm says so if it needs it */
    if (stat(real, &st) == 0 && S_ISDIR(st.st_mode)) {
        const char *outer = w->chart;
        w->chart = arena_strdup(w->c->a, engine_repo_relative(w->c, real));
        int rc = check_chart(w, arena_strdup(w->c->a, real));
        w->chart = outer;
        return rc;
    }
    return count(w, (size_t)st.st_size);
}

static int check_dependencies(walk *w, const char *chart_real)
{
    return each_file_dependency(w->c, w->root, chart_real, true, check_dependency, w);
}

static int check_chart(walk *w, const char *real)
{
    for (size_t i = 0; i < w->nseen; i++)
        if (!strcmp(w->seen[i], real))
            return 0;
    const char **seen = arena_alloc(w->c->a, (w->nseen + 1) * sizeof *seen);
    if (w->nseen)
        memcpy(seen, w->seen, w->nseen * sizeof *seen);
    seen[w->nseen++] = real;
    w->seen = seen;
    if (walk_dir(w, real, "") < 0)
        return -1;
    return check_dependencies(w, real);
}

static void walk_init(walk *w, const engine_ctx *c, const node *at, const char *chart)
{
    memset(w, 0, sizeof *w);
    w->c = c;
    w->at = at;
    w->root = engine_repo_root(c);
    w->chart = chart;
    w->max_entries = c->lim && c->lim->max_chart_files ? c->lim->max_chart_files : 10000;
    w->max_bytes = c->lim && c->lim->max_chart_bytes ? c->lim->max_chart_bytes : (size_t)100 << 20;
}

int helm_confine_dir(const engine_ctx *c, const node *at, const char *chart_dir)
{
    walk w;
    walk_init(&w, c, at, engine_repo_relative(c, chart_dir));
    return check_chart(&w, chart_dir);
}

typedef struct chart_dirs {
    const engine_ctx *c;
    const char *root;
    const char **seen;
    size_t n;
    void (*add)(void *ud, const char *dir_real);
    void *ud;
} chart_dirs;

static int add_chart_dir(chart_dirs *d, const char *real);

static int visit_chart_dir(void *ud, const char *display, const node *repo, uint32_t i, confined where,
                           const char *real)
{
    (void)display, (void)repo, (void)i;
    chart_dirs *d = ud;
    struct stat st;
    if (where == CONFINED_OK && stat(real, &st) == 0 && S_ISDIR(st.st_mode))
        return add_chart_dir(d, arena_strdup(d->c->a, real));
    return 0;
}

static int add_chart_dir(chart_dirs *d, const char *real)
{
    for (size_t i = 0; i < d->n; i++)
        if (!strcmp(d->seen[i], real))
            return 0;
    if (d->n >= MAX_CHART_DIRS)
        return 0; /* beyond any real chart: the rest is read as resources, which fails naming a file */
    d->seen = xrealloc(d->seen, (d->n + 1) * sizeof *d->seen);
    d->seen[d->n++] = real;
    d->add(d->ud, real);
    return each_file_dependency(d->c, d->root, real, false, visit_chart_dir, d);
}

void helm_chart_dirs(const engine_ctx *c, const char *chart_dir, void (*add)(void *ud, const char *dir_real), void *ud)
{
    chart_dirs d = {c, engine_repo_root(c), NULL, 0, add, ud};
    add_chart_dir(&d, chart_dir);
    xfree(d.seen);
}

int helm_confine_archive(const engine_ctx *c, const node *at, const char *tgz, const char *name)
{
    walk w;
    walk_init(&w, c, at, name);
    struct stat st;
    if (stat(tgz, &st) != 0)
        return engine_fail(c, at, "chart \"%s\": the pulled archive is missing", name);
    if (count(&w, (size_t)st.st_size) < 0)
        return -1;
    return check_archive_file(&w, tgz, name, (size_t)st.st_size);
}

int helm_confine_guard(const char *root, const char *chart_dir, const limits *lim)
{
    arena *a = arena_new();
    /* "": no config to name */
    engine_ctx c = {.a = a, .st = strtab_new(a), .file = "", .repo_root = root, .lim = limits_or_default(lim)};
    int rc = helm_confine_dir(&c, NULL, chart_dir);
    strtab_release(c.st);
    arena_free(a);
    return rc;
}
