/* helm loads a chart directory whole, following symlinks (and warning about them on stderr only), builds file://
 * dependencies from wherever they point, unpacks the archives under charts/, and validates values against each
 * values.schema.json, fetching or reading whatever a "$ref" names. Each of those is checked here before helm runs. */
#include "functions/helm_confine.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "functions/confine.h"
#include "util/diag.h"
#include "util/fsutil.h"
#include "yaml/load.h"

enum { MAX_DEPTH = 64, MAX_ARCHIVE_NESTING = 8 };

typedef struct walk {
    fn_ctx *c;
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
        return fn_fail(w->c, w->at,
                       "chart \"%s\" has more than %zu files and directories, with its dependencies (limit "
                       "max-chart-files; raise it with CMP_MAX_CHART_FILES)",
                       w->chart, w->max_entries);
    if (bytes > w->max_bytes - w->bytes)
        return fn_fail(w->c, w->at,
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
    if (is_seq(n)) {
        for (uint32_t i = 0; i < node_len(n); i++) {
            const node *r = foreign_ref(seq_item(n, i));
            if (r)
                return r;
        }
    } else if (is_map(n)) {
        for (uint32_t i = 0; i < node_len(n); i++) {
            const node *v = map_val(n, i);
            if (scalar_is(map_key(n, i), "$ref") && is_scalar(v) && scalar(v)[0] != '#')
                return v;
            const node *r = foreign_ref(v);
            if (r)
                return r;
        }
    }
    return NULL;
}

static int check_schema(walk *w, const char *display, const char *text, size_t len)
{
    node *doc = NULL;
    if (yaml_load_one(w->c->a, w->c->st, display, text, len, &doc) < 0)
        return -1;
    const node *ref = foreign_ref(doc);
    if (ref)
        return fail(display, (int)node_line(ref),
                    "chart \"%s\": \"$ref\": \"%s\" reaches outside the schema; helm would fetch the URL or read the "
                    "file it names (only references inside the schema, \"#...\", are allowed)",
                    w->chart, shown(w->c->a, scalar(ref)));
    return 0;
}

static unsigned long long octal(const unsigned char *p, size_t n)
{
    unsigned long long v = 0;
    size_t i = 0;
    while (i < n && p[i] == ' ')
        i++;
    for (; i < n && p[i] >= '0' && p[i] <= '7'; i++)
        v = v * 8 + (unsigned)(p[i] - '0');
    return v;
}

static int scan_archive(walk *w, const char *display, const unsigned char *gz, size_t len, int nesting);

/* A tar stream, as Go's archive/tar reads what helm packages: ustar names with their prefix, GNU long names and PAX
 * path records. Only what helm reads is looked at: values.schema.json files and the archives under charts/. */
static int scan_tar(walk *w, const char *display, const unsigned char *t, size_t n, int nesting)
{
    char name[4096];
    const char *long_name = NULL;
    size_t long_len = 0;
    for (size_t off = 0; off + 512 <= n;) {
        const unsigned char *h = t + off;
        size_t z = 0;
        while (z < 512 && !h[z])
            z++;
        if (z == 512)
            break;
        if (h[124] & 0x80)
            return fn_fail(w->c, w->at, "chart \"%s\": archive %s has an entry too large to check", w->chart, display);
        unsigned long long size = octal(h + 124, 12);
        char type = (char)h[156];
        size_t data = off + 512;
        if (size > n - data)
            return fn_fail(w->c, w->at, "chart \"%s\": archive %s is truncated", w->chart, display);
        if (long_name) {
            snprintf(name, sizeof name, "%.*s", (int)long_len, long_name);
        } else if (!memcmp(h + 257, "ustar", 5) && h[345]) {
            snprintf(name, sizeof name, "%.155s/%.100s", (const char *)h + 345, (const char *)h);
        } else {
            snprintf(name, sizeof name, "%.100s", (const char *)h);
        }
        const char *body = (const char *)t + data;
        if (type == 'L') {
            long_name = body;
            long_len = strnlen(body, (size_t)size);
        } else if (type == 'x') {
            long_name = NULL;
            for (size_t p = 0; p < size;) { /* records: "<len> <key>=<value>\n" */
                unsigned long long rl = 0;
                size_t q = p;
                while (q < size && body[q] >= '0' && body[q] <= '9')
                    rl = rl * 10 + (unsigned)(body[q++] - '0');
                if (!rl || rl > size - p || q >= size || body[q] != ' ')
                    break;
                if (p + rl - (q + 1) > 5 && !memcmp(body + q + 1, "path=", 5)) {
                    long_name = body + q + 6;
                    long_len = p + rl - 1 - (q + 6);
                }
                p += rl;
            }
        } else if (type != 'K') { /* 'K': a GNU long link name, between an 'L' and its entry */
            long_name = NULL;
            if (count(w, (size_t)size) < 0)
                return -1;
            if (type == '0' || type == '\0' || type == '7') {
                const char *b = base_name(name);
                const char *parent = b - name >= 7 ? b - 7 : NULL;
                char *inner = arena_printf(w->c->a, "%s:%s", display, name);
                if (!strcmp(b, "values.schema.json") && check_schema(w, inner, body, (size_t)size) < 0)
                    return -1;
                size_t bl = strlen(b);
                if (bl > 4 && !strcmp(b + bl - 4, ".tgz") && parent && !strncmp(parent, "charts/", 7) &&
                    (parent == name || parent[-1] == '/') &&
                    scan_archive(w, inner, (const unsigned char *)body, (size_t)size, nesting + 1) < 0)
                    return -1;
            }
        }
        off = data + (size_t)((size + 511) / 512 * 512);
    }
    return 0;
}

static int scan_archive(walk *w, const char *display, const unsigned char *gz, size_t len, int nesting)
{
    if (nesting > MAX_ARCHIVE_NESTING)
        return fn_fail(w->c, w->at, "chart \"%s\": archive %s nests archives more than %d deep", w->chart, display,
                       MAX_ARCHIVE_NESTING);
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
        return fn_fail(w->c, w->at, "chart \"%s\": cannot unpack archive %s", w->chart, display);
    size_t cap = 1 << 16, n = 0, budget = w->max_bytes - w->bytes;
    unsigned char *out = xmalloc(cap);
    zs.next_in = (unsigned char *)gz;
    zs.avail_in = (uInt)(len > 0x7fffffff ? 0x7fffffff : len);
    int zr = Z_OK;
    while (zr != Z_STREAM_END) {
        if (n == cap) {
            if (cap > budget) {
                inflateEnd(&zs);
                xfree(out);
                return fn_fail(w->c, w->at,
                               "chart \"%s\": archive %s unpacks to more than %zu bytes (limit max-chart-bytes; "
                               "raise it with CMP_MAX_CHART_BYTES)",
                               w->chart, display, w->max_bytes);
            }
            out = xrealloc(out, cap *= 2);
        }
        zs.next_out = out + n;
        zs.avail_out = (uInt)(cap - n);
        zr = inflate(&zs, Z_NO_FLUSH);
        n = cap - zs.avail_out;
        if (zr != Z_OK && zr != Z_STREAM_END) {
            inflateEnd(&zs);
            xfree(out);
            return fn_fail(w->c, w->at, "chart \"%s\": archive %s is not a valid .tgz (helm could not load it either)",
                           w->chart, display);
        }
    }
    inflateEnd(&zs);
    int rc = scan_tar(w, display, out, n, nesting);
    xfree(out);
    return rc;
}

static int check_archive_file(walk *w, const char *path, const char *display, size_t size)
{
    FILE *f = fopen(path, "rb");
    unsigned char *data = xmalloc(size ? size : 1);
    size_t got = f ? fread(data, 1, size, f) : 0;
    if (f)
        fclose(f);
    int rc = got != size ? fn_fail(w->c, w->at, "chart \"%s\": cannot read archive %s", w->chart, display)
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
        if (read_text_file(path, repo_relative(w->c, path), &text, &len) < 0)
            return -1;
        int rc = check_schema(w, repo_relative(w->c, path), text, len);
        xfree(text);
        return rc;
    }
    size_t bl = strlen(b);
    bool in_charts = b - rel >= 7 && !strncmp(b - 7, "charts/", 7) && (b - 7 == rel || b[-8] == '/');
    if (in_charts && bl > 4 && !strcmp(b + bl - 4, ".tgz"))
        return check_archive_file(w, path, repo_relative(w->c, path), size);
    return 0;
}

/* real: the directory's real path; rel: as helm names it inside the chart ("" for the chart itself). */
static int walk_dir(walk *w, const char *real, const char *rel)
{
    if (w->depth >= MAX_DEPTH)
        return fn_fail(w->c, w->at, "chart \"%s\": \"%s\" is nested more than %d directories deep", w->chart, rel,
                       MAX_DEPTH);
    DIR *d = opendir(real);
    if (!d)
        return fn_fail(w->c, w->at, "chart \"%s\": cannot read the directory \"%s\"", w->chart, *rel ? rel : ".");
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
            rc = fn_fail(w->c, w->at, "chart \"%s\": cannot read \"%s\"", w->chart, shown(w->c->a, erel));
            break;
        }
        if (S_ISLNK(st.st_mode)) {
            char target[PATH_MAX];
            confined r = resolve_beneath(w->root, path, target);
            if (r == CONFINED_OUTSIDE) {
                rc = fn_fail(w->c, w->at,
                             "chart \"%s\": \"%s\" is a symlink that leads outside the repository; helm would follow "
                             "it (a chart may read only files inside the repository)",
                             w->chart, shown(w->c->a, erel));
                break;
            }
            if (r == CONFINED_MISSING || stat(target, &st) != 0) {
                rc = fn_fail(w->c, w->at, "chart \"%s\": \"%s\" is a symlink that does not resolve (helm cannot load the chart)",
                             w->chart, shown(w->c->a, erel));
                break;
            }
            if (S_ISDIR(st.st_mode)) {
                for (size_t i = 0; i < w->depth; i++) {
                    size_t tl = strlen(target);
                    if (!strncmp(w->stack[i], target, tl) && (w->stack[i][tl] == '/' || !w->stack[i][tl])) {
                        rc = fn_fail(w->c, w->at,
                                     "chart \"%s\": \"%s\" is a symlink to a directory that contains it (helm would "
                                     "loop)",
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
            rc = fn_fail(w->c, w->at, "chart \"%s\": \"%s\" is not a regular file or directory", w->chart,
                         shown(w->c->a, erel));
    }
    closedir(d);
    w->depth--;
    return rc;
}

static int check_chart(walk *w, const char *real);

/* file:// dependencies, which `helm dependency build` packs from wherever they point. The lock files count too:
 * with a Chart.lock, helm builds what the lock lists. */
static int check_dependencies(walk *w, const char *chart_real)
{
    static const char *const files[] = {"Chart.yaml", "requirements.yaml", "Chart.lock", "requirements.lock"};
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        const char *path = arena_printf(w->c->a, "%s/%s", chart_real, files[f]);
        struct stat st;
        if (lstat(path, &st) != 0)
            continue;
        const char *display = repo_relative(w->c, path);
        char *text;
        size_t len;
        node *doc = NULL;
        if (read_text_file(path, display, &text, &len) < 0)
            return -1;
        int rc = yaml_load_one(w->c->a, w->c->st, display, text, len, &doc);
        xfree(text);
        if (rc < 0)
            return -1;
        const node *deps = map_get(doc, "dependencies");
        for (uint32_t i = 0; is_seq(deps) && i < node_len(deps); i++) {
            const node *repo = map_get(seq_item(deps, i), "repository");
            const char *r = scalar(repo);
            if (!r || strncmp(r, "file://", 7))
                continue;
            const char *p = r + 7;
            const char *full = clean_path(w->c->a, p[0] == '/' ? p : arena_printf(w->c->a, "%s/%s", chart_real, p));
            char real[PATH_MAX];
            confined c = resolve_beneath(w->root, full, real);
            if (c == CONFINED_OUTSIDE)
                return fail(display, (int)node_line(repo),
                            "dependencies[%u].repository \"%s\" leads outside the repository; a file:// dependency "
                            "must be a chart inside the repository",
                            i, shown(w->c->a, r));
            if (c == CONFINED_MISSING)
                continue; /* nothing to read: helm says so if it needs it */
            if (stat(real, &st) == 0 && S_ISDIR(st.st_mode)) {
                const char *outer = w->chart;
                w->chart = arena_strdup(w->c->a, repo_relative(w->c, real));
                rc = check_chart(w, arena_strdup(w->c->a, real));
                w->chart = outer;
                if (rc < 0)
                    return -1;
            } else if (count(w, (size_t)st.st_size) < 0) {
                return -1;
            }
        }
    }
    return 0;
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

static void walk_init(walk *w, fn_ctx *c, const node *at, const char *chart)
{
    memset(w, 0, sizeof *w);
    w->c = c;
    w->at = at;
    w->root = repo_root(c);
    w->chart = chart;
    w->max_entries = c->host && c->host->max_chart_files ? c->host->max_chart_files : 10000;
    w->max_bytes = c->host && c->host->max_chart_bytes ? c->host->max_chart_bytes : (size_t)100 << 20;
}

int helm_confine_dir(fn_ctx *c, const node *at, const char *chart_dir)
{
    walk w;
    walk_init(&w, c, at, repo_relative(c, chart_dir));
    return check_chart(&w, chart_dir);
}

int helm_confine_archive(fn_ctx *c, const node *at, const char *tgz, const char *name)
{
    walk w;
    walk_init(&w, c, at, name);
    struct stat st;
    if (stat(tgz, &st) != 0)
        return fn_fail(c, at, "chart \"%s\": the pulled archive is missing", name);
    if (count(&w, (size_t)st.st_size) < 0)
        return -1;
    return check_archive_file(&w, tgz, name, (size_t)st.st_size);
}
