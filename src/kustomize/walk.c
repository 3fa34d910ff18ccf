#include "kustomize/walk.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "decode/decode.h"
#include "kustomize/helm_guard.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/fsutil.h"
#include "yaml/load.h"

/* Real kustomize graphs are a few levels deep and a few dozen files; these stop a crafted one early. */
#define MAX_DEPTH 32
#define MAX_FILES 1000

typedef struct walk {
    arena *a;
    strtab *st;
    const kust_policy *p;
    char **seen; /* directories walked (realpath, plus the config base in config mode) */
    size_t nseen, cap;
    size_t files;
    int line;    /* while checking an inline config: the line of the string that holds it */
} walk;

/* Where a value was written, for messages. */
typedef struct at {
    const char *file;  /* relative to the package */
    const node *n;
    const char *field; /* "resources[2]", "helmCharts[0].releaseName" */
} at;

/* What kind of reference a path field holds; decides what is done with what it resolves to. */
enum entry {
    E_BASE,   /* resources, bases, components: a file of objects or a kustomization directory */
    E_FILE,   /* a file kustomize reads: patch, env file, values file, openapi schema ... */
    E_PLUGIN, /* generators, transformers, validators: a config file, a directory of them, or inline YAML */
    E_PATCH,  /* patchesStrategicMerge and PatchStrategicMergeTransformer paths: a file or an inline patch */
};

static int check_kustomization(walk *w, const char *dir, const char *file, const node *k, int depth,
                               const char *cfg_base);
static int check_config(walk *w, const char *file, const node *doc, const char *base, const at *where, int depth);

static int bad(walk *w, const at *where, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(walk *w, const at *where, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int line = w->line ? w->line : (int)node_line(where->n);
    return fail(where->file, line, "%s: %s", where->field, msg);
}

static bool within(const char *real, const char *base)
{
    size_t n = strlen(base);
    if (n == 1 && base[0] == '/')
        return true;
    return !strncmp(real, base, n) && (real[n] == 0 || real[n] == '/');
}

/* A real path as messages name it: relative to the package directory. */
static const char *display(walk *w, const char *real)
{
    const char *from = w->p->from;
    if (!strcmp(real, from))
        return ".";
    size_t i = 0, common;
    while (from[i] && from[i] == real[i])
        i++;
    if ((!from[i] && real[i] == '/') || (!real[i] && from[i] == '/')) {
        common = i; /* one is below the other */
    } else {
        while (i > 0 && from[i - 1] != '/')
            i--;
        common = i ? i - 1 : 0;
    }
    buf b = {0};
    for (const char *p = from + common; *p; p++)
        if (*p == '/' && p[1])
            buf_puts(&b, "../");
    if (real[common])
        buf_puts(&b, real + common + 1);
    else if (b.len)
        b.len--; /* "../" -> ".." */
    const char *out = arena_strndup(w->a, b.data ? b.data : "", b.len);
    buf_free(&b);
    return out;
}

/* dir + "/" + rel made clean the way Go's filepath.Join does it, lexically ("a/link/../b" is "a/b", whatever
 * link points to), because that is the path kustomize then opens. NULL when too long. */
static char *clean_join(walk *w, const char *dir, const char *rel)
{
    char out[PATH_MAX];
    size_t n = 0;
    out[0] = 0;
    for (int part = rel[0] == '/' ? 1 : 0; part < 2; part++) {
        const char *s = part ? rel : dir;
        while (*s) {
            size_t len = strcspn(s, "/");
            if (len == 2 && s[0] == '.' && s[1] == '.') {
                while (n && out[n - 1] != '/')
                    n--;
                if (n)
                    n--;
            } else if (len && !(len == 1 && s[0] == '.')) {
                if (n + len + 2 >= sizeof out)
                    return NULL;
                out[n++] = '/';
                memcpy(out + n, s, len);
                n += len;
            }
            s += len + (s[len] == '/');
        }
    }
    if (!n)
        out[n++] = '/';
    out[n] = 0;
    return arena_strdup(w->a, out);
}

enum kust_ref kust_ref_kind(const char *v)
{
    const char *s = v;
    if (!strncasecmp(s, "git::", 5))
        return !strncasecmp(s + 5, "file:", 5) ? KUST_REMOTE_FILE : KUST_REMOTE;
    if (!strncasecmp(s, "file:", 5))
        return KUST_REMOTE_FILE;
    if (strstr(s, "://"))
        return KUST_REMOTE;
    const char *slash = strchr(s, '/'), *user = strchr(s, '@');
    if (user && (!slash || user < slash) && (strchr(user, ':') || !strncasecmp(user + 1, "github.com", 10)))
        return KUST_REMOTE; /* user@host:org/repo, as git reads it ("app@v2.yaml" is a file) */
    if (!strncasecmp(s, "github.com", 10) && (s[10] == '/' || s[10] == ':'))
        return KUST_REMOTE;
    if (strchr(s, '?') || strstr(s, "//"))
        return KUST_REMOTE; /* the ?ref= and repo//dir forms */
    return KUST_LOCAL;
}

/* A URL whose parts kustomize hands to git as arguments must not read as an option there. */
static bool option_shaped(const char *v)
{
    for (const char *p = v; *p; p++) {
        if ((unsigned char)*p <= 0x20 || *p == 0x7f)
            return true;
        if (*p == '-' && (p == v || strchr("=?&", p[-1])))
            return true;
    }
    return !strncasecmp(v, "git::-", 6);
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)(c | 0x20);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* s[0..n) with %XX decoded (and '+' as a space when plus), into out (n + 1 bytes); its length, or -1 when a '%' does
 * not start two hex digits (Go's url.QueryUnescape refuses it; git keeps it as written). */

static long pct_decode(const char *s, size_t n, bool plus, char *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%') {
            int hi = i + 2 < n ? hexval(s[i + 1]) : -1, lo = hi >= 0 ? hexval(s[i + 2]) : -1;
            if (hi < 0 || lo < 0)
                return -1;
            out[k++] = (char)(hi << 4 | lo);
            i += 2;
        } else {
            out[k++] = plus && s[i] == '+' ? ' ' : s[i];
        }
    }
    out[k] = 0;
    return (long)k;
}

/* A decoded part as a message shows it: escaped whole (a NUL in it shows as \x00 instead of ending it), cut as shown()
 * cuts. */
static const char *shown_decoded(walk *w, const char *s, size_t n)
{
    buf b = {0};
    text_escape(&b, s, n > SHOWN_MAX ? SHOWN_MAX : n);
    if (n > SHOWN_MAX)
        buf_puts(&b, "...");
    const char *out = arena_strndup(w->a, b.data ? b.data : "", b.len);
    buf_free(&b);
    return out;
}

/* A decoded part that git would read as an option, or that holds a byte no ref or URL part may hold (NUL included:
 * the part ends there for git). */
static bool decoded_option_shaped(const char *s, size_t n)
{
    if (n && s[0] == '-')
        return true;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] <= 0x20 || s[i] == 0x7f)
            return true;
    return false;
}

/* A remote URL's parts as they reach git, decoded. kustomize cuts the URL at its first '?': the part before it is
 * the repository, given to git as written (git remote add, git fetch), and git percent-decodes it itself (an ssh://
 * host "%2Do..." is "-o..." to it); the query is read with Go's url.ParseQuery, which decodes %XX and '+' in its keys
 * and values, and the ref (or version) value is git fetch's last argument: "?ref=%2D%2Dupload-pack=..." reaches git
 * as "--upload-pack=...". So each part is checked decoded, as git gets it, not as written: none may start with '-'
 * (nor the repository's host) or hold a control byte or space. A '%' that does not decode and a ';' in the query are
 * refused: Go's parser fails on them, and kustomize then drops the whole query (ref included) and fetches HEAD, so
 * it would read the URL otherwise than we do. The path after "//" is not decoded by kustomize and never an argument
 * of git. 0 when every part is fine. */
static int check_remote_git_args(walk *w, const at *where, const char *v)
{
    const char *shown_v = shown(w->a, v);
    if (option_shaped(v))
        return bad(w, where, "\"%s\" has a part that git would read as a command-line option", shown_v);
    size_t len = strlen(v), repo_len = strcspn(v, "?");
    char *dec = arena_alloc(w->a, len + 1);
    long d = pct_decode(v, repo_len, false, dec);
    if (d < 0)
        return bad(w, where, "\"%s\" has a '%%' that does not start a two-digit hex escape (git decodes the "
                             "repository URL: it is checked decoded, and this one does not decode)", shown_v);
    const char *host = strstr(dec, "://");
    host = host ? host + 3 : dec;
    const char *at_sign = strchr(host, '@'), *slash = strchr(host, '/');
    if (at_sign && (!slash || at_sign < slash))
        host = at_sign + 1; /* user@host */
    if (decoded_option_shaped(dec, (size_t)d) || option_shaped(dec) || *host == '-')
        return bad(w, where, "\"%s\" has a part that git would read as a command-line option once decoded "
                             "(\"%s\")", shown_v, shown_decoded(w, dec, (size_t)d));
    if (repo_len == len)
        return 0;
    const char *q = v + repo_len + 1;
    if (strchr(q, ';'))
        return bad(w, where, "\"%s\" has a ';' in its query, which kustomize's URL parser refuses: it would then "
                             "drop the whole query (ref included) and fetch the default branch", shown_v);
    while (*q) {
        size_t plen = strcspn(q, "&"), klen = strcspn(q, "=&");
        for (int part = 0; part < 2; part++) { /* the key, then the value */
            const char *s = part ? q + klen + 1 : q;
            size_t n = part ? (klen < plen ? plen - klen - 1 : 0) : klen;
            if (part && klen >= plen)
                break;
            long k = pct_decode(s, n, true, dec);
            if (k < 0)
                return bad(w, where, "\"%s\" has a '%%' that does not start a two-digit hex escape in its query "
                                     "(kustomize would drop the whole query, ref included)", shown_v);
            if (decoded_option_shaped(dec, (size_t)k))
                return bad(w, where, "\"%s\" has a part that git would read as a command-line option once decoded "
                                     "(\"%s\")", shown_v, shown_decoded(w, dec, (size_t)k));
        }
        q += plen + (q[plen] == '&');
    }
    return 0;
}

static bool seen(walk *w, const char *key)
{
    for (size_t i = 0; i < w->nseen; i++)
        if (!strcmp(w->seen[i], key))
            return true;
    if (w->nseen == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 16;
        w->seen = xrealloc(w->seen, w->cap * sizeof *w->seen);
    }
    w->seen[w->nseen++] = arena_strdup(w->a, key);
    return false;
}

static int count_file(walk *w, const at *where)
{
    if (++w->files > MAX_FILES)
        return bad(w, where, "the kustomizations reach more than %d kustomization and config files (limit)", MAX_FILES);
    return 0;
}

typedef struct docs_ud {
    walk *w;
    const char *file, *base;
    const at *where;
    int depth;
} docs_ud;

static int config_doc(void *ud, node *root, uint32_t index, uint32_t line, int seq_wide)
{
    docs_ud *d = ud;
    (void)index, (void)line, (void)seq_wide;
    if (!is_map(root)) {
        go_reader r = {d->w->a, d->file, "kustomize", 0, ""};
        return go_check_doc(&r, root, NULL);
    }
    return check_config(d->w, d->file, root, d->base, d->where, d->depth);
}

/* A file of generator or transformer configs; their paths are relative to base (the kustomization using them). */
static int scan_config_file(walk *w, const char *real, const char *base, const at *where, int depth)
{
    if (count_file(w, where) < 0)
        return -1;
    const char *disp = display(w, real);
    char *text;
    size_t len;
    if (read_text_file(w->p->limits, real, disp, &text, &len) < 0)
        return -1;
    at here = {disp, NULL, ""};
    docs_ud d = {w, disp, base, &here, depth};
    go_reader r = {w->a, disp, "kustomize", 0, ""};
    int rc = go_check_text(&r, text, len) < 0 ? -1
             : yaml_load_flags(w->a, w->st, limits_yaml(w->p->limits), disp, text, len, YAML_KEEP_MERGE_KEYS,
                               config_doc, &d);
    xfree(text);
    return rc;
}

static int walk_dir(walk *w, const char *dir, int depth, const char *cfg_base, const at *where)
{
    if (depth > MAX_DEPTH)
        return bad(w, where, "the kustomizations nest deeper than %d levels (limit)", MAX_DEPTH);
    if (seen(w, cfg_base ? arena_printf(w->a, "%s\n%s", dir, cfg_base) : dir))
        return 0; /* walked already; kustomize reports cycles itself */
    if (w->p->reached)
        w->p->reached(w->p->reached_ud, dir);
    static const char *const names[] = {"kustomization.yaml", "kustomization.yml", "Kustomization", NULL};
    const char *path = NULL;
    struct stat st;
    for (int i = 0; names[i] && !path; i++) {
        char *p = path_join(w->a, dir, names[i]);
        if (lstat(p, &st) == 0)
            path = p;
    }
    if (!path)
        return 0; /* kustomize says what is missing */
    char real[PATH_MAX];
    const char *disp = display(w, path);
    at here = {disp, NULL, "kustomization"};
    if (!realpath(path, real))
        return bad(w, &here, "cannot be resolved: %s", strerror(errno));
    if (!within(real, w->p->root))
        return bad(w, &here, "is a symlink that leads outside the repository (kustomize may read only inside it)");
    if (count_file(w, where) < 0)
        return -1;
    char *text;
    size_t len;
    if (read_text_file(w->p->limits, real, disp, &text, &len) < 0)
        return -1;
    /* read as kustomize reads it before any field is looked at (src/decode) */
    node *k = NULL;
    go_reader r = {w->a, disp, "kustomize", 0, ""};
    int rc = go_check_text(&r, text, len) < 0 ? -1
             : yaml_load_one_flags(w->a, w->st, limits_yaml(w->p->limits), disp, text, len, YAML_KEEP_MERGE_KEYS, &k);
    xfree(text);
    if (rc < 0 || go_check_doc(&r, k, &go_kustomization) < 0)
        return -1;
    if (!k)
        return 0;
    if (!is_map(k))
        return fail(disp, (int)node_line(k), "a kustomization is a mapping of fields");
    return check_kustomization(w, dir, disp, k, depth, cfg_base);
}

/* Inline YAML in a list that also takes paths: a mapping is a config or patch (kustomize tries it as such). *out is
 * that mapping, or NULL; -1 when the text is YAML over a loader limit (then it is no path either: the error says so,
 * as kustomize's own YAML reader refuses excessive aliasing). */
static int inline_yaml(walk *w, const at *where, const char *v, node **out)
{
    node *n = NULL;
    *out = NULL;
    if (!strchr(v, ':') && !strchr(v, '{'))
        return 0;
    diag_detail not_yaml; /* dropped, unless over a limit: then it is a path */
    diag_detail *outer = diag_capture(&not_yaml);
    int rc = yaml_load_one_flags(w->a, w->st, limits_yaml(w->p->limits), "inline", v, strlen(v), YAML_KEEP_MERGE_KEYS,
                                 &n);
    diag_restore(outer);
    if (rc < 0)
        return yaml_over_limit(&not_yaml) ? bad(w, where, "inline YAML, line %d: %s", not_yaml.line, not_yaml.message)
                                          : 0;
    *out = is_map(n) ? n : NULL;
    return 0;
}

/* One path field: where it leads, and what kustomize will read there. base is the directory it is relative to;
 * cfg_base, in config mode, where the configs found below must resolve their own paths. */
static int check_ref(walk *w, const at *where, const char *base, const char *v, enum entry kind, int depth,
                     const char *cfg_base)
{
    if (!v)
        return bad(w, where, "must be a string");
    if (!*v)
        return bad(w, where, "is empty");
    if (kind == E_PLUGIN || kind == E_PATCH) {
        /* text kustomize may read as YAML: line breaks of YAML 1.1 would make it other YAML than ours */
        go_reader r = {w->a, where->file, "kustomize", where->n ? (int)node_line(where->n) : w->line, where->field};
        if (go_check_text(&r, v, strlen(v)) < 0)
            return -1;
        node *inl;
        if (inline_yaml(w, where, v, &inl) < 0)
            return -1;
        if (inl) {
            if (kind == E_PLUGIN) {
                int saved = w->line;
                w->line = where->n ? (int)node_line(where->n) : saved;
                int rc = check_config(w, where->file, inl, base, where, depth);
                w->line = saved;
                if (rc < 0)
                    return -1;
            }
            /* kustomize reads it as a path when the inline form does not work out: check that path too */
            char *joined = clean_join(w, base, v);
            struct stat st;
            if (!joined || lstat(joined, &st) != 0)
                return 0;
        }
    }
    enum kust_ref ref = kust_ref_kind(v);
    if (ref == KUST_REMOTE_FILE)
        return bad(w, where, "\"%s\" is a file:// URL: a read outside the repository, never allowed", shown(w->a, v));
    if (ref == KUST_REMOTE) {
        if (!w->p->remote)
            return bad(w, where, "\"%s\" is a remote source (URL); remote sources are off on this sidecar (the "
                                 "operator allows them with CMP_ALLOW_REMOTE_SOURCES=true)", shown(w->a, v));
        if (check_remote_git_args(w, where, v) < 0)
            return -1;
        char *joined = clean_join(w, base, v);
        struct stat st;
        if (!joined || lstat(joined, &st) != 0)
            return 0; /* fetched by kustomize, as the operator allows */
    }
    char *joined = clean_join(w, base, v);
    char real[PATH_MAX];
    if (!joined)
        return bad(w, where, "\"%s\" is too long a path", shown(w->a, v));
    if (!realpath(joined, real)) {
        if (errno == ENOENT || errno == ENOTDIR)
            return bad(w, where, "\"%s\" does not exist in the repository", shown(w->a, v));
        return bad(w, where, "\"%s\" cannot be resolved: %s", shown(w->a, v), strerror(errno));
    }
    if (!within(real, w->p->root))
        return bad(w, where, "\"%s\" leads outside the repository (kustomize may read only inside it; symlinks "
                             "are followed)", shown(w->a, v));
    struct stat st;
    bool dir = stat(real, &st) == 0 && S_ISDIR(st.st_mode);
    switch (kind) {
    case E_BASE:
        if (dir)
            return walk_dir(w, arena_strdup(w->a, real), depth + 1, cfg_base, where);
        return cfg_base ? scan_config_file(w, real, cfg_base, where, depth) : 0;
    case E_PLUGIN:
        if (dir)
            return walk_dir(w, arena_strdup(w->a, real), depth + 1, base, where);
        return scan_config_file(w, real, base, where, depth);
    case E_FILE:
    case E_PATCH:
        return 0;
    }
    return 0;
}

/* A list field of path strings. */
static int each_ref(walk *w, const char *file, const node *m, const char *key, const char *prefix, const char *base,
                    enum entry kind, int depth, const char *cfg_base)
{
    const node *v = map_get(m, key);
    if (!v || is_null(v))
        return 0;
    if (!is_seq(v)) {
        at where = {file, v, arena_printf(w->a, "%s%s", prefix, key)};
        return bad(w, &where, "must be a list");
    }
    seq_foreach(v, i, item) {
        at where = {file, item, arena_printf(w->a, "%s%s[%u]", prefix, key, i)};
        if (check_ref(w, &where, base, scalar(item), kind, depth, cfg_base) < 0)
            return -1;
    }
    return 0;
}

/* One path-valued field of a mapping. */
static int one_ref(walk *w, const char *file, const node *m, const char *key, const char *prefix, const char *base,
                   enum entry kind, int depth)
{
    const node *v = map_get(m, key);
    if (!v || is_null(v))
        return 0;
    at where = {file, v, arena_printf(w->a, "%s%s", prefix, key)};
    return check_ref(w, &where, base, scalar(v), kind, depth, NULL);
}

/* The list of mappings under key, each with a path field (patches, patchesJson6902, replacements). */
static int each_path_of(walk *w, const char *file, const node *m, const char *key, const char *prefix,
                        const char *base, int depth)
{
    const node *v = map_get(m, key);
    if (!v || is_null(v))
        return 0;
    if (!is_seq(v)) {
        at where = {file, v, arena_printf(w->a, "%s%s", prefix, key)};
        return bad(w, &where, "must be a list");
    }
    seq_foreach(v, i, item) {
        if (!is_map(item))
            continue; /* kustomize rejects it in its own words */
        if (one_ref(w, file, item, "path", arena_printf(w->a, "%s%s[%u].", prefix, key, i), base, E_FILE, depth) < 0)
            return -1;
    }
    return 0;
}

/* configMapGenerator / secretGenerator arguments: files ("key=path" or "path"), envs, env. */
static int check_generator_args(walk *w, const char *file, const node *g, const char *prefix, const char *base,
                                int depth)
{
    const node *files = map_get(g, "files");
    if (files && !is_null(files)) {
        if (!is_seq(files)) {
            at where = {file, files, arena_printf(w->a, "%sfiles", prefix)};
            return bad(w, &where, "must be a list");
        }
        seq_foreach(files, i, item) {
            at where = {file, item, arena_printf(w->a, "%sfiles[%u]", prefix, i)};
            const char *v = scalar(item), *eq = v ? strchr(v, '=') : NULL;
            if (check_ref(w, &where, base, eq ? eq + 1 : v, E_FILE, depth, NULL) < 0)
                return -1;
        }
    }
    if (each_ref(w, file, g, "envs", prefix, base, E_FILE, depth, NULL) < 0)
        return -1;
    return one_ref(w, file, g, "env", prefix, base, E_FILE, depth);
}

static int each_generator(walk *w, const char *file, const node *k, const char *key, const char *base, int depth)
{
    const node *v = map_get(k, key);
    if (!v || !is_seq(v))
        return 0; /* a wrong shape is kustomize's error to give */
    seq_foreach(v, i, g)
        if (is_map(g) && check_generator_args(w, file, g, arena_printf(w->a, "%s[%u].", key, i), base, depth) < 0)
            return -1;
    return 0;
}

/* A string field (NULL when absent); a collection there is an error. */
static int str_field(walk *w, const char *file, const node *m, const char *key, const char *prefix, const char **out)
{
    const node *v = map_get(m, key);
    *out = NULL;
    if (!v || is_null(v))
        return 0;
    if (!is_scalar(v)) {
        at where = {file, v, arena_printf(w->a, "%s%s", prefix, key)};
        return bad(w, &where, "must be a string");
    }
    *out = scalar(v);
    return 0;
}

static int rule(walk *w, const char *file, const node *m, const char *key, const char *prefix,
                const char *(*check)(const char *))
{
    const char *v;
    if (str_field(w, file, m, key, prefix, &v) < 0)
        return -1;
    const char *why = v ? check(v) : NULL;
    if (why) {
        at where = {file, map_get(m, key), arena_printf(w->a, "%s%s", prefix, key)};
        return bad(w, &where, "\"%s\" is refused: %s (kustomize passes it to helm as a command-line argument)",
                   shown(w->a, v), why);
    }
    return 0;
}

/* The nearest existing directory at or above path is inside the repository (helm may create the rest). */
static bool future_inside(walk *w, const char *path)
{
    char probe[PATH_MAX], real[PATH_MAX];
    snprintf(probe, sizeof probe, "%s", path);
    while (!realpath(probe, real)) {
        char *slash = strrchr(probe, '/');
        if (!slash || slash == probe || (errno != ENOENT && errno != ENOTDIR))
            return false;
        *slash = 0;
    }
    return within(real, w->p->root);
}

/* Field names of one chart: helmCharts[] with helmGlobals, the HelmChartInflationGenerator config (all at the
 * top), and the legacy helmChartInflationGenerator[] (chartName, values, helmHome ...). */
typedef struct helm_names {
    const char *name, *version, *repo, *values, *config_home;
} helm_names;

static const helm_names current = {"name", "version", "repo", "valuesFile", "configHome"};
static const helm_names legacy = {"chartName", "chartVersion", "chartRepoUrl", "values", "helmHome"};

/* One chart. globals holds chartHome and configHome: helmGlobals for helmCharts[] (or NULL), the chart itself
 * for a HelmChartInflationGenerator config and a legacy entry. */
static int check_chart(walk *w, const char *file, const node *chart, const node *globals, const char *prefix,
                       const helm_names *f, const char *base, int depth)
{
    at where = {file, chart, arena_strndup(w->a, prefix, strlen(prefix) - 1)};
    if (w->p->helm_off)
        return bad(w, &where, "helm charts need helm, %s", w->p->helm_off);
    const char *gprefix = globals == chart ? prefix : "helmGlobals.";
    static const char *const operators[] = {"helmBin", "extraArgs", NULL}; /* kustomize 3 and 4 used them */
    for (int i = 0; operators[i]; i++)
        if (map_get(chart, operators[i])) {
            at w2 = {file, map_get(chart, operators[i]), arena_printf(w->a, "%s%s", prefix, operators[i])};
            return bad(w, &w2, "the helm binary and its arguments are the operator's, not the package's");
        }
    const node *config_home = globals ? map_get(globals, f->config_home) : NULL;
    if (config_home && !is_null(config_home)) {
        at w2 = {file, config_home, arena_printf(w->a, "%s%s", gprefix, f->config_home)};
        return bad(w, &w2, "where helm keeps its configuration, cache and plugins is the sidecar's choice, not the "
                           "package's");
    }
    if (map_get(chart, "nameTemplate")) {
        at w2 = {file, map_get(chart, "nameTemplate"), arena_printf(w->a, "%snameTemplate", prefix)};
        return bad(w, &w2, "a name template is a Go template that helm evaluates with the environment in reach; "
                           "use releaseName");
    }
    if (rule(w, file, chart, f->name, prefix, helm_chart_name_rule) < 0 ||
        rule(w, file, chart, f->version, prefix, helm_version_rule) < 0 ||
        rule(w, file, chart, f->repo, prefix, helm_repo_rule) < 0 ||
        rule(w, file, chart, "releaseName", prefix, helm_release_name_rule) < 0 ||
        rule(w, file, chart, "namespace", prefix, helm_namespace_rule) < 0 ||
        rule(w, file, chart, "kubeVersion", prefix, helm_kube_version_rule) < 0)
        return -1;
    const node *apis = map_get(chart, "apiVersions");
    seq_foreach(apis, i, api) {
        const char *v = scalar(api), *why = v ? helm_api_version_rule(v) : "must be a string";
        if (why) {
            at w2 = {file, api, arena_printf(w->a, "%sapiVersions[%u]", prefix, i)};
            return bad(w, &w2, "\"%s\" is refused: %s (kustomize passes it to helm as a command-line argument)",
                       shown(w->a, v ? v : ""), why);
        }
    }
    if (one_ref(w, file, chart, f->values, prefix, base, E_FILE, depth) < 0 ||
        each_ref(w, file, chart, "additionalValuesFiles", prefix, base, E_FILE, depth, NULL) < 0)
        return -1;
    const char *name, *version, *repo, *home = NULL;
    if (str_field(w, file, chart, f->name, prefix, &name) < 0 ||
        str_field(w, file, chart, f->version, prefix, &version) < 0 ||
        str_field(w, file, chart, f->repo, prefix, &repo) < 0 ||
        (globals && str_field(w, file, globals, "chartHome", gprefix, &home) < 0))
        return -1;
    if (!name)
        return 0; /* kustomize: "chart name cannot be empty" */
    /* the chart directory: chartHome/name, or chartHome/name-version/name for a versioned chart from a repo */
    const node *home_node = globals ? map_get(globals, "chartHome") : NULL;
    at hw = {file, home_node ? home_node : chart, arena_printf(w->a, "%schartHome", gprefix)};
    const char *h = home ? home : "charts";
    if (kust_ref_kind(h) != KUST_LOCAL)
        return bad(w, &hw, "\"%s\" must be a directory in the repository", shown(w->a, h));
    char *home_abs = clean_join(w, base, h);
    if (!home_abs || !future_inside(w, home_abs))
        return bad(w, &hw, "\"%s\" leads outside the repository (helm reads and pulls charts there)", shown(w->a, h));
    const char *dir = version && repo ? arena_printf(w->a, "%s/%s-%s", home_abs, name, version) : home_abs;
    const char *chart_dir = arena_printf(w->a, "%s/%s", dir, name);
    char real[PATH_MAX];
    struct stat st;
    at cw = {file, map_get(chart, f->name), arena_printf(w->a, "%s%s", prefix, f->name)};
    if (lstat(chart_dir, &st) == 0) {
        if (!realpath(chart_dir, real) || !within(real, w->p->root))
            return bad(w, &cw, "the chart directory of \"%s\" leads outside the repository", shown(w->a, name));
        if (w->p->reached)
            w->p->reached(w->p->reached_ud, real);
    } else if (!future_inside(w, dir)) {
        return bad(w, &cw, "helm would pull \"%s\" outside the repository", shown(w->a, name));
    }
    return 0;
}

/* A builtin generator or transformer config (a file named in generators/transformers/validators, or inline):
 * the builtin kinds that read files, with paths relative to base. */
static int check_config(walk *w, const char *file, const node *doc, const char *base, const at *where, int depth)
{
    /* kyaml finds the kind by its exact name; the plugin then decodes the config as encoding/json does */
    const char *kind = path_str(doc, "kind", NULL);
    const char *in = where->field[0] ? arena_printf(w->a, "%s (%s)", where->field, kind ? kind : "inline config")
                     : kind          ? kind
                                     : "";
    go_reader r = {w->a, file, "kustomize", w->line, in};
    if (go_check_doc(&r, doc, go_kustomize_plugin(kind)) < 0)
        return -1;
    if (!kind)
        return 0;
    const char *prefix = where->field[0] ? arena_printf(w->a, "%s (%s) ", where->field, kind) : arena_printf(w->a, "%s ", kind);
    if (!strcmp(kind, "ConfigMapGenerator") || !strcmp(kind, "SecretGenerator"))
        return check_generator_args(w, file, doc, prefix, base, depth);
    if (!strcmp(kind, "PatchTransformer") || !strcmp(kind, "PatchJson6902Transformer"))
        return one_ref(w, file, doc, "path", prefix, base, E_FILE, depth);
    if (!strcmp(kind, "PatchStrategicMergeTransformer"))
        return each_ref(w, file, doc, "paths", prefix, base, E_PATCH, depth, NULL);
    if (!strcmp(kind, "ReplacementTransformer"))
        return each_path_of(w, file, doc, "replacements", prefix, base, depth);
    if (!strcmp(kind, "HelmChartInflationGenerator"))
        return check_chart(w, file, doc, doc, prefix, &current, base, depth);
    return 0;
}

static int check_kustomization(walk *w, const char *dir, const char *file, const node *k, int depth,
                               const char *cfg_base)
{
    static const char *const bases[] = {"resources", "bases", "components", NULL};
    for (int i = 0; bases[i]; i++)
        if (each_ref(w, file, k, bases[i], "", dir, E_BASE, depth, cfg_base) < 0)
            return -1;
    static const char *const files[] = {"crds", "configurations", NULL};
    for (int i = 0; files[i]; i++)
        if (each_ref(w, file, k, files[i], "", dir, E_FILE, depth, NULL) < 0)
            return -1;
    if (each_ref(w, file, k, "patchesStrategicMerge", "", dir, E_PATCH, depth, NULL) < 0)
        return -1;
    static const char *const plugins[] = {"generators", "transformers", "validators", NULL};
    for (int i = 0; plugins[i]; i++)
        if (each_ref(w, file, k, plugins[i], "", dir, E_PLUGIN, depth, NULL) < 0)
            return -1;
    static const char *const with_path[] = {"patches", "patchesJson6902", "replacements", NULL};
    for (int i = 0; with_path[i]; i++)
        if (each_path_of(w, file, k, with_path[i], "", dir, depth) < 0)
            return -1;
    const node *openapi = map_get(k, "openapi");
    if (is_map(openapi) && one_ref(w, file, openapi, "path", "openapi.", dir, E_FILE, depth) < 0)
        return -1;
    if (each_generator(w, file, k, "configMapGenerator", dir, depth) < 0 ||
        each_generator(w, file, k, "secretGenerator", dir, depth) < 0)
        return -1;
    const node *globals = map_get(k, "helmGlobals");
    if (!is_map(globals))
        globals = NULL;
    const node *ch = globals ? map_get(globals, "configHome") : NULL;
    if (ch && !is_null(ch)) {
        at where = {file, ch, "helmGlobals.configHome"};
        return bad(w, &where, "where helm keeps its configuration, cache and plugins is the sidecar's choice, not "
                              "the package's");
    }
    const node *charts = map_get(k, "helmCharts");
    seq_foreach(charts, i, chart)
        if (is_map(chart) &&
            check_chart(w, file, chart, globals, arena_printf(w->a, "helmCharts[%u].", i), &current, dir, depth) < 0)
            return -1;
    const node *old = map_get(k, "helmChartInflationGenerator");
    seq_foreach(old, i, chart)
        if (is_map(chart) &&
            check_chart(w, file, chart, chart, arena_printf(w->a, "helmChartInflationGenerator[%u].", i), &legacy, dir,
                        depth) < 0)
            return -1;
    return 0;
}

int kustomization_check(arena *a, strtab *st, const kust_policy *p, const char *dir)
{
    walk w = {.a = a, .st = st, .p = p};
    at where = {display(&w, dir), NULL, "path"};
    int rc;
    if (!within(dir, p->root))
        rc = bad(&w, &where, "the overlay is outside the repository");
    else
        rc = walk_dir(&w, dir, 0, NULL, &where);
    xfree(w.seen);
    return rc;
}
