/* Conformance comparison helper (tests/conformance/run builds it into $BUILD_DIR/conformance/yamlcmp).
 *
 *   yamlcmp tree EXPECTED_DIR ACTUAL_DIR [MAX_LINES]
 *       Compares two directory trees (.git ignored; files and symlinks only, since git tracks no directories).
 *       Prints one line per difference, each starting with its level:
 *         "L1 <path>: ..."  byte level (kpt's own runner): file set and contents
 *         "L2 <path>: ..."  semantic: *.yaml, *.yml and Kptfile parsed into documents matched by (file, index);
 *                           mapping keys as sets, sequences in order, scalars by value and resolved type,
 *                           line comments (trimmed); other files byte for byte; and the same file set
 *         "W <path>: ..."   warnings that do not fail L2 (key order, head comments)
 *       At most MAX_LINES (default 20) lines per level, then "<level> ... N more".
 *       Exit status: bit 0 set when L1 differs, bit 1 when L2 differs; 64 on a usage or I/O error.
 *
 *   yamlcmp results EXPECTED_RESULTS ACTUAL_RESULTS
 *       FunctionResultList comparison (L3): top exitCode, item count, and per item its exitCode and the multiset
 *       of (severity, message). Prints "L3 ..." lines; exit 0 same, 1 different, 64 on error.
 *
 * YAML is read with the project's own loader (src/yaml/load.c), so both sides see the same parser. */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/arena.h"
#include "util/diag.h"
#include "yaml/load.h"
#include "yaml/scalar.h"
#include "yaml/tree.h"

/* ---- difference log ------------------------------------------------------------------------------------------- */

enum { LV_L1, LV_L2, LV_W, LV_L3, LV_N };
static const char *lv_name[LV_N] = {"L1", "L2", "W", "L3"};
static int lv_count[LV_N];
static int max_lines = 20;

static void report(int lv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void report(int lv, const char *fmt, ...)
{
    if (lv_count[lv]++ >= max_lines)
        return;
    va_list ap;
    va_start(ap, fmt);
    char line[1024];
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    for (char *p = line; *p; p++)
        if (*p == '\n' || *p == '\r' || *p == '\t')
            *p = ' ';
    printf("%s %s\n", lv_name[lv], line);
}

static void report_tail(void)
{
    for (int lv = 0; lv < LV_N; lv++)
        if (lv_count[lv] > max_lines)
            printf("%s ... %d more\n", lv_name[lv], lv_count[lv] - max_lines);
}

/* A short printable rendering of s (at most ~60 bytes), quoted. */
static const char *shorten(char *out, size_t cap, const char *s, size_t n)
{
    size_t o = 0, lim = cap > 72 ? 64 : cap - 8;
    out[o++] = '\'';
    for (size_t i = 0; i < n && o < lim; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\n') {
            out[o++] = '\\';
            out[o++] = 'n';
        } else if (c == '\t') {
            out[o++] = '\\';
            out[o++] = 't';
        } else if (c < 0x20 || c == 0x7f) {
            out[o++] = '?';
        } else {
            out[o++] = (char)c;
        }
    }
    if (o >= lim) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o++] = '\'';
    out[o] = 0;
    return out;
}

/* ---- files ----------------------------------------------------------------------------------------------------- */

struct file {
    char *data;
    size_t len;
    int ok;
};

static struct file read_file(const char *path)
{
    struct file f = {0};
    struct stat st;
    if (lstat(path, &st) != 0)
        return f;
    if (S_ISLNK(st.st_mode)) {
        char buf[4096];
        ssize_t n = readlink(path, buf, sizeof buf - 1);
        if (n < 0)
            return f;
        f.data = xmalloc((size_t)n + 8);
        memcpy(f.data, "link:", 5);
        memcpy(f.data + 5, buf, (size_t)n);
        f.len = (size_t)n + 5;
        f.data[f.len] = 0;
        f.ok = 1;
        return f;
    }
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return f;
    size_t cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 4096;
    f.data = xmalloc(cap + 1);
    size_t n;
    while ((n = fread(f.data + f.len, 1, cap - f.len, fp)) > 0) {
        f.len += n;
        if (f.len == cap) {
            cap *= 2;
            f.data = xrealloc(f.data, cap + 1);
        }
    }
    f.ok = !ferror(fp);
    fclose(fp);
    f.data[f.len] = 0;
    return f;
}

struct list {
    char **v;
    size_t n, cap;
};

static void list_add(struct list *l, const char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->v = xrealloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = xstrdup(s);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Relative paths of the files and symlinks under root/rel, skipping .git directories. */
static int walk(const char *root, const char *rel, struct list *out)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s%s%s", root, *rel ? "/" : "", rel);
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "yamlcmp: %s: %s\n", dir, strerror(errno));
        return -1;
    }
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char r[4096], full[8192];
        snprintf(r, sizeof r, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
        snprintf(full, sizeof full, "%s/%s", root, r);
        struct stat st;
        if (lstat(full, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            if (strcmp(e->d_name, ".git") != 0)
                rc = walk(root, r, out);
        } else if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) {
            list_add(out, r);
        }
    }
    closedir(d);
    return rc;
}

static int is_yaml_name(const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    if (!strcmp(b, "Kptfile"))
        return 1;
    return (n > 5 && !strcmp(b + n - 5, ".yaml")) || (n > 4 && !strcmp(b + n - 4, ".yml"));
}

/* L1: the first differing line of two byte strings. */
static void bytes_diff(int lv, const char *path, const struct file *e, const struct file *a)
{
    size_t i = 0, line = 1, ls = 0;
    while (i < e->len && i < a->len && e->data[i] == a->data[i]) {
        if (e->data[i] == '\n') {
            line++;
            ls = i + 1;
        }
        i++;
    }
    if (i == e->len && i == a->len)
        return;
    size_t ee = ls, ae = ls;
    while (ee < e->len && e->data[ee] != '\n')
        ee++;
    while (ae < a->len && a->data[ae] != '\n')
        ae++;
    char s1[96], s2[96];
    if (i == a->len && e->len == i + 1 && e->data[i] == '\n')
        report(lv, "%s:%zu: actual lacks the final newline", path, line);
    else if (i == e->len && a->len == i + 1 && a->data[i] == '\n')
        report(lv, "%s:%zu: actual has a final newline, expected none", path, line);
    else if (i == a->len && i < e->len)
        report(lv, "%s:%zu: actual ends early; expected %s", path, line,
               shorten(s1, sizeof s1, e->data + ls, ee - ls + (ee < e->len)));
    else if (i == e->len && i < a->len)
        report(lv, "%s:%zu: actual has extra %s", path, line, shorten(s2, sizeof s2, a->data + ls, ae - ls + (ae < a->len)));
    else
        report(lv, "%s:%zu: expected %s got %s", path, line, shorten(s1, sizeof s1, e->data + ls, ee - ls),
               shorten(s2, sizeof s2, a->data + ls, ae - ls));
}

/* ---- YAML documents -------------------------------------------------------------------------------------------- */

struct doc {
    const char *file;
    uint32_t index;
    node *root;
    const char *id; /* "apiVersion Kind namespace/name", or "apiVersion Kind name" without a namespace */
    int matched;
};

struct docs {
    struct doc *v;
    size_t n, cap;
    arena *a;
    strtab *st;
    const char *file;
};

static const char *doc_id(arena *a, const node *root)
{
    if (!is_map(root))
        return "(not a mapping)";
    const char *api = path_str(root, "apiVersion", NULL);
    const char *kind = path_str(root, "kind", NULL);
    const char *ns = path_str(root, "metadata", "namespace", NULL);
    const char *name = path_str(root, "metadata", "name", NULL);
    return arena_printf(a, "%s %s %s%s%s", api ? api : "?", kind ? kind : "?", ns && *ns ? ns : "", ns && *ns ? "/" : "",
                        name ? name : "?");
}

static int on_doc(void *ud, node *root, uint32_t index, uint32_t line, int seq_wide)
{
    (void)line;
    (void)seq_wide;
    struct docs *D = ud;
    if (D->n == D->cap) {
        D->cap = D->cap ? D->cap * 2 : 16;
        D->v = xrealloc(D->v, D->cap * sizeof *D->v);
    }
    D->v[D->n++] = (struct doc){.file = D->file, .index = index, .root = root, .id = doc_id(D->a, root)};
    return 0;
}

/* Loads every document of one file into D; returns 0, or -1 with the loader's message in err. */
static int load_docs(struct docs *D, const char *path, const struct file *f, char *err, size_t errcap)
{
    D->file = arena_strdup(D->a, path);
    size_t before = D->n;
    diag_reset();
    if (yaml_load(D->a, D->st, NULL, path, f->data, f->len, on_doc, D) != 0) {
        snprintf(err, errcap, "%s", diag_failed() ? diag_message() : "parse error");
        D->n = before;
        diag_reset();
        return -1;
    }
    return 0;
}

static const char *type_name(enum scalar_type t)
{
    switch (t) {
    case T_STR: return "str";
    case T_NULL: return "null";
    case T_BOOL: return "bool";
    case T_INT: return "int";
    case T_FLOAT: return "float";
    }
    return "?";
}

static const char *describe(char *out, size_t cap, const node *n)
{
    if (!n)
        return "nothing";
    if (is_map(n))
        snprintf(out, cap, "a mapping of %u keys", node_len(n));
    else if (is_seq(n))
        snprintf(out, cap, "a sequence of %u items", node_len(n));
    else if (node_type(n) == T_STR) {
        char s[96];
        snprintf(out, cap, "%s (str)", shorten(s, sizeof s, scalar(n), scalar_len(n)));
    } else {
        snprintf(out, cap, "%.64s (%s)", scalar_len(n) ? scalar(n) : "<empty>", type_name(node_type(n)));
    }
    return out;
}

/* Scalars are equal when their resolved types agree and so do their values (any two nulls are equal;
 * booleans compare case-insensitively, since "True" and "true" are both YAML 1.2 booleans). */
static int scalar_equal(const node *e, const node *a)
{
    enum scalar_type te = node_type(e), ta = node_type(a);
    if (te != ta)
        return 0;
    if (te == T_NULL)
        return 1;
    if (te == T_BOOL)
        return strcasecmp(scalar(e), scalar(a)) == 0;
    return scalar_len(e) == scalar_len(a) && memcmp(scalar(e), scalar(a), scalar_len(e)) == 0;
}

struct ctx {
    const char *where; /* "file#index" */
    char path[2048];
    size_t plen;
    int diffs;
};

static size_t path_push(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static size_t path_push(struct ctx *c, const char *fmt, ...)
{
    size_t old = c->plen;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(c->path + c->plen, sizeof c->path - c->plen, fmt, ap);
    va_end(ap);
    if (n > 0)
        c->plen += (size_t)n < sizeof c->path - c->plen ? (size_t)n : sizeof c->path - c->plen - 1;
    return old;
}

static void path_pop(struct ctx *c, size_t old)
{
    c->plen = old;
    c->path[old] = 0;
}

static const char *P(struct ctx *c)
{
    return c->plen ? c->path : ".";
}

static void l2(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void l2(struct ctx *c, const char *fmt, ...)
{
    char msg[800];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    c->diffs++;
    report(LV_L2, "%s %s: %s", c->where, P(c), msg);
}

/* A line comment without the blanks around it; NULL when there is none or it is empty. */
static const char *trimmed(const char *s, size_t *len)
{
    if (!s)
        return NULL;
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    *len = n;
    return n ? s : NULL;
}

static void cmp_comments(struct ctx *c, const node *e, const node *a, const char *what)
{
    size_t le = 0, la = 0;
    const char *ce = trimmed(node_comment(e), &le), *ca = trimmed(node_comment(a), &la);
    if ((ce || ca) && (!ce || !ca || le != la || memcmp(ce, ca, le) != 0)) {
        char s1[96], s2[96];
        l2(c, "%scomment: expected %s got %s", what, ce ? shorten(s1, sizeof s1, ce, le) : "none",
           ca ? shorten(s2, sizeof s2, ca, la) : "none");
    }
    const char *he = node_head(e), *ha = node_head(a);
    if ((he || ha) && (!he || !ha || strcmp(he, ha) != 0)) {
        char s1[96], s2[96];
        report(LV_W, "%s %s: %shead comment: expected %s got %s", c->where, P(c), what,
               he ? shorten(s1, sizeof s1, he, strlen(he)) : "none", ha ? shorten(s2, sizeof s2, ha, strlen(ha)) : "none");
    }
}

static const char *key_text(const node *k)
{
    return is_scalar(k) ? scalar(k) : "<complex key>";
}

static long find_key(const node *m, const node *k)
{
    for (uint32_t i = 0; i < node_len(m); i++) {
        const node *x = map_key(m, i);
        if (is_scalar(k) && is_scalar(x)) {
            if (scalar_len(x) == scalar_len(k) && memcmp(scalar(x), scalar(k), scalar_len(k)) == 0)
                return i;
        } else if (node_equal(x, k)) {
            return i;
        }
    }
    return -1;
}

static void cmp_node(struct ctx *c, const node *e, const node *a)
{
    char d1[160], d2[160];
    if (node_kind(e) != node_kind(a)) {
        l2(c, "expected %s got %s", describe(d1, sizeof d1, e), describe(d2, sizeof d2, a));
        return;
    }
    cmp_comments(c, e, a, "");
    if (is_scalar(e)) {
        if (!scalar_equal(e, a))
            l2(c, "expected %s got %s", describe(d1, sizeof d1, e), describe(d2, sizeof d2, a));
        return;
    }
    if (is_seq(e)) {
        if (node_len(e) != node_len(a))
            l2(c, "expected %u items got %u", node_len(e), node_len(a));
        uint32_t n = node_len(e) < node_len(a) ? node_len(e) : node_len(a);
        for (uint32_t i = 0; i < n; i++) {
            size_t old = path_push(c, "[%u]", i);
            cmp_node(c, seq_item(e, i), seq_item(a, i));
            path_pop(c, old);
        }
        return;
    }
    /* mappings: keys as sets */
    long last = -1;
    int order_ok = 1;
    for (uint32_t i = 0; i < node_len(e); i++) {
        const node *k = map_key(e, i);
        long j = find_key(a, k);
        size_t old = path_push(c, ".%s", key_text(k));
        if (j < 0) {
            l2(c, "missing (expected %s)", describe(d1, sizeof d1, map_val(e, i)));
        } else {
            if (j < last)
                order_ok = 0;
            last = j;
            cmp_comments(c, k, map_key(a, (uint32_t)j), "key ");
            cmp_node(c, map_val(e, i), map_val(a, (uint32_t)j));
        }
        path_pop(c, old);
    }
    for (uint32_t j = 0; j < node_len(a); j++) {
        const node *k = map_key(a, j);
        if (find_key(e, k) < 0) {
            size_t old = path_push(c, ".%s", key_text(k));
            l2(c, "unexpected %s", describe(d2, sizeof d2, map_val(a, j)));
            path_pop(c, old);
        }
    }
    if (!order_ok)
        report(LV_W, "%s %s: key order differs", c->where, P(c));
}

static struct doc *find_doc(struct docs *D, const char *file, uint32_t index)
{
    for (size_t i = 0; i < D->n; i++)
        if (D->v[i].index == index && !strcmp(D->v[i].file, file))
            return &D->v[i];
    return NULL;
}

static struct doc *find_id(struct docs *D, const char *id)
{
    for (size_t i = 0; i < D->n; i++)
        if (!strcmp(D->v[i].id, id))
            return &D->v[i];
    return NULL;
}

/* ---- tree ------------------------------------------------------------------------------------------------------ */

static int has(const struct list *l, const char *s)
{
    return bsearch(&s, l->v, l->n, sizeof *l->v, cmp_str) != NULL;
}

static int cmd_tree(const char *edir, const char *adir)
{
    struct list el = {0}, al = {0};
    if (walk(edir, "", &el) || walk(adir, "", &al))
        return 64;
    qsort(el.v, el.n, sizeof *el.v, cmp_str);
    qsort(al.v, al.n, sizeof *al.v, cmp_str);
    for (size_t i = 0; i < el.n; i++)
        if (!has(&al, el.v[i])) {
            report(LV_L1, "%s: missing file", el.v[i]);
            report(LV_L2, "%s: missing file", el.v[i]);
        }
    for (size_t i = 0; i < al.n; i++)
        if (!has(&el, al.v[i])) {
            report(LV_L1, "%s: unexpected file", al.v[i]);
            report(LV_L2, "%s: unexpected file", al.v[i]);
        }

    arena *ar = arena_new();
    struct docs E = {.a = ar, .st = strtab_new(ar)}, A = {.a = ar, .st = E.st};
    struct list pe_ok = {0}, pa_ok = {0}; /* YAML files that parsed on each side */
    for (size_t i = 0; i < el.n; i++) {
        const char *rel = el.v[i];
        if (!has(&al, rel))
            continue;
        char pe[8192], pa[8192];
        snprintf(pe, sizeof pe, "%s/%s", edir, rel);
        snprintf(pa, sizeof pa, "%s/%s", adir, rel);
        struct file fe = read_file(pe), fa = read_file(pa);
        if (!fe.ok || !fa.ok) {
            fprintf(stderr, "yamlcmp: cannot read %s\n", !fe.ok ? pe : pa);
            return 64;
        }
        int same = fe.len == fa.len && memcmp(fe.data, fa.data, fe.len) == 0;
        if (!same)
            bytes_diff(LV_L1, rel, &fe, &fa);
        if (!is_yaml_name(rel) || !strncmp(fe.data, "link:", 5)) {
            if (!same)
                bytes_diff(LV_L2, rel, &fe, &fa);
        } else {
            char err[2100];
            if (load_docs(&E, rel, &fe, err, sizeof err) != 0) {
                report(LV_W, "%s: expected file does not parse (%s); compared byte for byte", rel, err);
                if (!same)
                    bytes_diff(LV_L2, rel, &fe, &fa);
            } else if (load_docs(&A, rel, &fa, err, sizeof err) != 0) {
                report(LV_L2, "%s: actual file does not parse: %s", rel, err);
            } else {
                list_add(&pe_ok, rel);
                list_add(&pa_ok, rel);
            }
        }
        free(fe.data);
        free(fa.data);
    }

    /* Documents matched by (file, index); identities only to point at moves. */
    for (size_t i = 0; i < E.n; i++) {
        struct doc *e = &E.v[i];
        struct doc *a = find_doc(&A, e->file, e->index);
        char where[4200];
        snprintf(where, sizeof where, "%s#%u", e->file, e->index);
        if (!a) {
            /* only when both sides parsed: a file that failed to parse was reported already */
            if (!has(&pa_ok, e->file))
                continue;
            struct doc *m = find_id(&A, e->id);
            if (m)
                report(LV_L2, "%s: missing document %s; it is at %s#%u", where, e->id, m->file, m->index);
            else
                report(LV_L2, "%s: missing document %s", where, e->id);
            continue;
        }
        a->matched = 1;
        struct ctx c = {.where = where};
        cmp_node(&c, e->root, a->root);
        if (c.diffs && strcmp(e->id, a->id) != 0) {
            struct doc *m = find_id(&A, e->id);
            if (m && m != a)
                report(LV_L2, "%s: holds %s instead of %s, which is at %s#%u", where, a->id, e->id, m->file, m->index);
        }
    }
    for (size_t j = 0; j < A.n; j++) {
        struct doc *a = &A.v[j];
        if (a->matched)
            continue;
        if (!has(&pe_ok, a->file))
            continue; /* the file is unexpected or one side did not parse: already reported */
        struct doc *m = find_id(&E, a->id);
        if (m)
            report(LV_L2, "%s#%u: unexpected document %s (expected at %s#%u)", a->file, a->index, a->id, m->file, m->index);
        else
            report(LV_L2, "%s#%u: unexpected document %s", a->file, a->index, a->id);
    }
    strtab_release(E.st);
    arena_free(ar);
    report_tail();
    return (lv_count[LV_L1] ? 1 : 0) | (lv_count[LV_L2] ? 2 : 0);
}

/* ---- results --------------------------------------------------------------------------------------------------- */

static node *load_one_file(arena *a, strtab *st, const char *path)
{
    struct file f = read_file(path);
    if (!f.ok) {
        fprintf(stderr, "yamlcmp: cannot read %s\n", path);
        return NULL;
    }
    node *n = NULL;
    diag_reset();
    if (yaml_load_one(a, st, NULL, path, f.data, f.len, &n) != 0) {
        fprintf(stderr, "yamlcmp: %s\n", diag_message());
        n = NULL;
    } else if (!is_map(n)) {
        fprintf(stderr, "yamlcmp: %s: not a mapping\n", path);
        n = NULL;
    }
    free(f.data);
    return n;
}

struct pair {
    const char *sev, *msg;
};

static int cmp_pair(const void *x, const void *y)
{
    const struct pair *a = x, *b = y;
    int c = strcmp(a->sev, b->sev);
    return c ? c : strcmp(a->msg, b->msg);
}

static size_t collect(const node *item, struct pair **out)
{
    const node *rs = map_get(item, "results");
    size_t n = is_seq(rs) ? node_len(rs) : 0;
    *out = xmalloc((n ? n : 1) * sizeof **out);
    for (size_t i = 0; i < n; i++) {
        const node *r = seq_item(rs, i);
        const char *sev = is_map(r) ? scalar(map_get(r, "severity")) : NULL;
        const char *msg = is_map(r) ? scalar(map_get(r, "message")) : NULL;
        (*out)[i] = (struct pair){sev ? sev : "", msg ? msg : ""};
    }
    qsort(*out, n, sizeof **out, cmp_pair);
    return n;
}

static int cmd_results(const char *epath, const char *apath)
{
    arena *ar = arena_new();
    strtab *st = strtab_new(ar);
    node *e = load_one_file(ar, st, epath), *a = load_one_file(ar, st, apath);
    if (!e || !a)
        return 64;
    int diffs = 0;
    const char *ec = scalar(map_get(e, "exitCode")), *ac = scalar(map_get(a, "exitCode"));
    if (!ec)
        ec = "0";
    if (!ac)
        ac = "0";
    if (strcmp(ec, ac) != 0) {
        report(LV_L3, "exitCode: expected %s got %s", ec, ac);
        diffs++;
    }
    const node *ei = map_get(e, "items"), *ai = map_get(a, "items");
    uint32_t ne = is_seq(ei) ? node_len(ei) : 0, na = is_seq(ai) ? node_len(ai) : 0;
    if (ne != na) {
        report(LV_L3, "items: expected %u got %u", ne, na);
        diffs++;
    }
    for (uint32_t i = 0; i < ne && i < na; i++) {
        const node *x = seq_item(ei, i), *y = seq_item(ai, i);
        const char *xc = scalar(map_get(x, "exitCode")), *yc = scalar(map_get(y, "exitCode"));
        if (strcmp(xc ? xc : "0", yc ? yc : "0") != 0) {
            report(LV_L3, "items[%u].exitCode: expected %s got %s", i, xc ? xc : "0", yc ? yc : "0");
            diffs++;
        }
        struct pair *pe, *pa;
        size_t n1 = collect(x, &pe), n2 = collect(y, &pa);
        size_t p = 0, q = 0;
        while (p < n1 || q < n2) {
            int c = p == n1 ? 1 : q == n2 ? -1 : cmp_pair(&pe[p], &pa[q]);
            char s[96];
            if (c == 0) {
                p++;
                q++;
                continue;
            }
            diffs++;
            if (c < 0) {
                report(LV_L3, "items[%u]: missing result severity=%s message=%s", i, *pe[p].sev ? pe[p].sev : "(none)",
                       shorten(s, sizeof s, pe[p].msg, strlen(pe[p].msg)));
                p++;
            } else {
                report(LV_L3, "items[%u]: unexpected result severity=%s message=%s", i, *pa[q].sev ? pa[q].sev : "(none)",
                       shorten(s, sizeof s, pa[q].msg, strlen(pa[q].msg)));
                q++;
            }
        }
        free(pe);
        free(pa);
    }
    strtab_release(st);
    arena_free(ar);
    report_tail();
    return diffs ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && !strcmp(argv[1], "tree")) {
        if (argc >= 5)
            max_lines = atoi(argv[4]) > 0 ? atoi(argv[4]) : 20;
        return cmd_tree(argv[2], argv[3]);
    }
    if (argc == 4 && !strcmp(argv[1], "results"))
        return cmd_results(argv[2], argv[3]);
    fprintf(stderr, "usage: yamlcmp tree EXPECTED_DIR ACTUAL_DIR [MAX_LINES] | yamlcmp results EXPECTED ACTUAL\n");
    return 64;
}
