/* cmp-server: a test stand-in for argocd-cmp-server and the repo-server side that feeds it, written from the
 * behaviour described in shared/docs/argocd-cmp-contract.md (no Argo CD code is used or copied).
 *
 *   cmp-server run --config plugin.yaml [--config plugin2.yaml]... --app app.yaml --repos DIR --out DIR [--tmp DIR]
 *                  [--subst FROM=TO]... [--env NAME=VALUE]... [--set KEY=VALUE]...
 *       One Application against the plugins of one repo-server pod (one --config per sidecar), the calls Argo CD
 *       makes:
 *         select     which plugin: a named Application dials <name>.sock (its discovery rule, if it has one, must
 *                    match too: util/app/discovery/discovery.go cmpSupports); an Application without a name probes
 *                    the plugins with discovery in socket file-name order, the first match wins, plugins without
 *                    discovery are skipped; no match: Argo CD's built-in sources would take the path. With no
 *                    plugin key at all, that probe is type detection and gets the ARGOCD_APP_* variables alone.
 *         match      MatchRepository with the generate env (discover.fileName / find.glob with ** / find.command)
 *         generate   a fresh copy of the repository, init then generate in the app dir, one deadline
 *         params     a fresh copy, MatchRepository then parameters.dynamic with the params env
 *       Each call sends the repository the way the repo-server tars it and the cmp-server untars it into
 *       <tmp>/_cmp_server/<random>: files 0644, dirs 0755 (their own modes with the plugin's preserveFileMode: true),
 *       FIFOs and devices left out, the operator's
 *       --plugin-tar-exclude globs (cmp-server.test/tar-exclude, ';'-separated, matched against repo-relative
 *       paths; a pattern for what is under .git leaves an empty .git), symlinks recreated with relative targets
 *       and the whole request refused ("illegal filepath in symlink") when one resolves outside the copy; .git
 *       travels like any other directory. The commands run there with no shell, and the copy is removed.
 *       Before anything, the repo-server's mergeSourceParameters: .argocd-source.yaml and
 *       .argocd-source-<app>.yaml in the app path are JSON merge patches over spec.source (their plugin parameters
 *       and env reach the plugin), and they stay in the copy the plugin gets.
 *       The Application is an Argo CD Application manifest; what is not in one (the commit the target revision
 *       resolved to, the cluster's version, the deadline, which test repository) comes from annotations
 *       cmp-server.test/<key> or --set <key>=<value> (--set wins). Keys: repo (a directory under --repos),
 *       revision, kube-version, kube-api-versions, deadline (seconds, default 60), tar-exclude, generate-paths-root
 *       (the operator's --plugin-use-manifest-generate-paths: the repository-relative common root of the path and
 *       its manifest-generate-paths annotation, the only part the generate call gets), drop-env (names
 *       removed from the request env after it is built: a test knob, not something Argo CD does).
 *       Results in --out: report (key=value lines), env.{detect,match,generate,params} (sorted), {init,generate,
 *       params}.{stdout,stderr}, objects.tsv (the parsed objects), params.tsv (the parsed announcements).
 *   cmp-server parse < stdout          Argo CD's reading of generate output: objects.tsv on stdout, or the error
 *                                      on stderr and exit 1.
 *   cmp-server params < stdout         The dynamic-parameters reading: params.tsv on stdout, or exit 1.
 *
 * objects.tsv: one line per node, "<object index>\t<JSON pointer>\t<type>\t<value>", where type is what a YAML 1.1
 * reader (Go's yaml.v2 under sigs.k8s.io/yaml) resolves: str, int, float, bool, null, timestamp, tagged, or
 * map / seq (value = number of children). Values escape \\, \t and \n. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <ftw.h>
#include <glob.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <yaml.h>

/* ---- small utilities ------------------------------------------------------------------------------------------ */

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("cmp-server: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        die("out of memory");
    return p;
}

static char *xstrndup(const char *s, size_t n)
{
    char *d = xrealloc(NULL, n + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

static char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

typedef struct {
    char *p;
    size_t n, cap;
} buf;

static void b_put(buf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        b->cap = (b->n + n + 1) * 2;
        b->p = xrealloc(b->p, b->cap);
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}
static void b_puts(buf *b, const char *s) { b_put(b, s, strlen(s)); }
static void b_putc(buf *b, char c) { b_put(b, &c, 1); }
static void b_printf(buf *b, const char *fmt, ...)
{
    char tmp[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof tmp) {
        b_put(b, tmp, (size_t)n);
        return;
    }
    char *big = xrealloc(NULL, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b_put(b, big, (size_t)n);
    free(big);
}
static const char *b_str(buf *b) { return b->p ? b->p : ""; }

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int read_all(FILE *f, buf *b)
{
    char tmp[65536];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
        b_put(b, tmp, n);
    if (!b->p)
        b_put(b, "", 0);
    return ferror(f) ? -1 : 0;
}

static int read_file(const char *path, buf *b)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    int rc = read_all(f, b);
    fclose(f);
    return rc;
}

static void write_file(const char *dir, const char *name, const char *data, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        die("%s: %s", path, strerror(errno));
    if (n)
        fwrite(data, 1, n, f);
    fclose(f);
}

/* ---- the object tree (what the Go side ends up with: JSON values with YAML 1.1 scalar types) ------------------ */

enum { T_NULL, T_BOOL, T_INT, T_FLOAT, T_STR, T_TIME, T_TAGGED, T_SEQ, T_MAP };
static const char *const type_name[] = {"null", "bool", "int", "float", "str", "timestamp", "tagged", "seq", "map"};

typedef struct node node;
struct node {
    int t;
    char *s;   /* scalar text (for T_STR the string itself) */
    node **v;  /* children */
    char **k;  /* map keys, as the JSON keys they become */
    size_t n, cap;
};

static node *mk(int t, const char *s)
{
    node *n = xrealloc(NULL, sizeof *n);
    memset(n, 0, sizeof *n);
    n->t = t;
    n->s = s ? xstrdup(s) : NULL;
    return n;
}

static node *get(const node *m, const char *key)
{
    if (!m || m->t != T_MAP)
        return NULL;
    for (size_t i = 0; i < m->n; i++)
        if (!strcmp(m->k[i], key))
            return m->v[i];
    return NULL;
}

/* add to a seq, or set in a map (an existing key is replaced: last wins, as yaml.v2 and encoding/json do) */
static bool add(node *c, const char *key, node *v)
{
    if (key) {
        for (size_t i = 0; i < c->n; i++)
            if (!strcmp(c->k[i], key)) {
                c->v[i] = v;
                return false;
            }
    }
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 8;
        c->v = xrealloc(c->v, c->cap * sizeof *c->v);
        c->k = xrealloc(c->k, c->cap * sizeof *c->k);
    }
    c->k[c->n] = key ? xstrdup(key) : NULL;
    c->v[c->n++] = v;
    return true;
}

/* the text of a scalar at a path of map keys, or NULL (any scalar type: the Application's fields are strings) */
static const char *sget(const node *m, ...)
{
    va_list ap;
    va_start(ap, m);
    const char *k;
    while (m && (k = va_arg(ap, const char *)))
        m = get(m, k);
    va_end(ap);
    return m && m->t != T_MAP && m->t != T_SEQ && m->t != T_NULL ? m->s : NULL;
}

static const node *nget(const node *m, ...)
{
    va_list ap;
    va_start(ap, m);
    const char *k;
    while (m && (k = va_arg(ap, const char *)))
        m = get(m, k);
    va_end(ap);
    return m;
}

/* ---- YAML 1.1 scalar resolution, as Go's yaml.v2 does it ------------------------------------------------------ */

static bool float_syntax(const char *s) /* ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ */
{
    if (*s == '+' || *s == '-')
        s++;
    if (*s == '.') {
        s++;
        if (!isdigit((unsigned char)*s))
            return false;
        while (isdigit((unsigned char)*s))
            s++;
    } else {
        if (!isdigit((unsigned char)*s))
            return false;
        while (isdigit((unsigned char)*s))
            s++;
        if (*s == '.')
            for (s++; isdigit((unsigned char)*s); s++)
                ;
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        if (!isdigit((unsigned char)*s))
            return false;
        while (isdigit((unsigned char)*s))
            s++;
    }
    return *s == 0;
}

static int digit_val(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'Z')
        return c - 'A' + 10;
    return 99;
}

/* strconv.ParseInt(s, 0, 64) syntax (range ignored): sign, 0x / 0o / 0b / leading-0 octal / decimal */
static bool int_syntax(const char *s, int *base_out, const char **digits_out)
{
    if (*s == '+' || *s == '-')
        s++;
    if (!*s)
        return false;
    int base = 10;
    if (s[0] == '0' && s[1]) {
        char c = (char)tolower((unsigned char)s[1]);
        if (c == 'x' || c == 'o' || c == 'b') {
            base = c == 'x' ? 16 : c == 'o' ? 8 : 2;
            s += 2;
        } else {
            base = 8;
            s += 1;
        }
        if (!*s)
            return false;
    }
    if (digits_out)
        *digits_out = s;
    if (base_out)
        *base_out = base;
    for (; *s; s++)
        if (digit_val(*s) >= base)
            return false;
    return true;
}

static bool timestamp_syntax(const char *s) /* yaml.v2 parseTimestamp: 2006-1-2, then nothing or [Tt ]time */
{
    int i = 0;
    while (isdigit((unsigned char)s[i]))
        i++;
    if (i != 4 || s[i] != '-')
        return false;
    s += 5;
    for (int part = 0; part < 2; part++) {
        int d = 0;
        while (isdigit((unsigned char)s[d]))
            d++;
        if (d < 1 || d > 2)
            return false;
        s += d;
        if (part == 0) {
            if (*s != '-')
                return false;
            s++;
        }
    }
    if (!*s)
        return true;
    return (*s == 'T' || *s == 't' || *s == ' ') && isdigit((unsigned char)s[1]);
}

static int resolve_plain(const char *s)
{
    static const char *const trues[] = {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON", NULL};
    static const char *const falses[] = {"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF", NULL};
    static const char *const nulls[] = {"", "~", "null", "Null", "NULL", NULL};
    static const char *const floats[] = {".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF",
                                         "-.inf", "-.Inf", "-.INF", NULL};
    char hint = 0;
    unsigned char c0 = (unsigned char)s[0];
    if (!c0)
        hint = 'M';
    else if (c0 == '+' || c0 == '-')
        hint = 'S';
    else if (isdigit(c0))
        hint = 'D';
    else if (strchr("yYnNtTfFoO~", c0))
        hint = 'M';
    else if (c0 == '.')
        hint = '.';
    if (!hint)
        return T_STR;
    for (int i = 0; trues[i]; i++)
        if (!strcmp(s, trues[i]) || !strcmp(s, falses[i]))
            return T_BOOL;
    for (int i = 0; nulls[i]; i++)
        if (!strcmp(s, nulls[i]))
            return T_NULL;
    for (int i = 0; floats[i]; i++)
        if (!strcmp(s, floats[i]))
            return T_FLOAT;
    if (hint == '.')
        return float_syntax(s) ? T_FLOAT : T_STR;
    if (hint == 'D' || hint == 'S') {
        if (hint == 'D' && timestamp_syntax(s))
            return T_TIME;
        char *plain = xstrdup(s), *w = plain;
        for (const char *r = s; *r; r++)
            if (*r != '_')
                *w++ = *r;
        *w = 0;
        int t = int_syntax(plain, NULL, NULL) ? T_INT : float_syntax(plain) ? T_FLOAT : T_STR;
        free(plain);
        return t;
    }
    return T_STR;
}

static int resolve_scalar(const char *text, const char *tag, bool plain_implicit)
{
    if (tag && strcmp(tag, "!")) {
        static const struct {
            const char *tag;
            int t;
        } tags[] = {{"str", T_STR}, {"int", T_INT}, {"float", T_FLOAT}, {"bool", T_BOOL},
                    {"null", T_NULL}, {"timestamp", T_TIME}, {"binary", T_STR}};
        const char *pfx = "tag:yaml.org,2002:";
        if (!strncmp(tag, pfx, strlen(pfx)))
            for (size_t i = 0; i < sizeof tags / sizeof *tags; i++)
                if (!strcmp(tag + strlen(pfx), tags[i].tag))
                    return tags[i].t;
        return T_TAGGED;
    }
    if (!plain_implicit)
        return T_STR;
    return resolve_plain(text);
}

/* sigs.k8s.io/yaml turns non-string map keys into strings (or fails); NULL when it fails */
static char *key_string(const node *k)
{
    char tmp[128];
    switch (k->t) {
    case T_STR:
        return xstrdup(k->s);
    case T_BOOL:
        return xstrdup(strchr("yYtToO", k->s[0]) && strcmp(k->s, "off") && strcmp(k->s, "Off") && strcmp(k->s, "OFF")
                           ? "true"
                           : "false");
    case T_INT: {
        char *plain = xstrdup(k->s), *w = plain;
        for (const char *r = k->s; *r; r++)
            if (*r != '_')
                *w++ = *r;
        *w = 0;
        int base;
        const char *digits;
        int_syntax(plain, &base, &digits);
        unsigned long long v = strtoull(digits, NULL, base);
        snprintf(tmp, sizeof tmp, "%s%llu", plain[0] == '-' ? "-" : "", v);
        free(plain);
        return xstrdup(tmp);
    }
    case T_FLOAT:
        snprintf(tmp, sizeof tmp, "%.7g", strtod(k->s, NULL));
        return xstrdup(tmp);
    default:
        return NULL;
    }
}

/* ---- YAML loading (first document of a text, events -> tree) -------------------------------------------------- */

typedef struct {
    int dupkeys;
} load_stats;

/* Returns 0 and *out (NULL when the text holds no document or only null), or -1 with *err. */
static int load_yaml(const char *text, size_t len, node **out, buf *err, load_stats *stats)
{
    yaml_parser_t p;
    yaml_event_t ev;
    enum { MAXD = 1000 };
    struct frame {
        node *c;
        char *key;
        bool have_key;
    } *st = xrealloc(NULL, MAXD * sizeof *st);
    int sp = 0, rc = 0;
    bool done = false, in_doc = false;
    node *root = NULL;
    char **anames = NULL;
    node **anodes = NULL;
    size_t nanchors = 0;
    *out = NULL;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    while (!done) {
        if (!yaml_parser_parse(&p, &ev)) {
            b_printf(err, "yaml: line %lu: %s%s%s", (unsigned long)p.problem_mark.line + 1,
                     p.problem ? p.problem : "parse error", p.context ? " " : "", p.context ? p.context : "");
            rc = -1;
            break;
        }
        node *n = NULL;
        const char *anchor = NULL;
        bool push = false, pop = false;
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
        case YAML_DOCUMENT_START_EVENT:
            in_doc = true;
            break;
        case YAML_DOCUMENT_END_EVENT:
            done = true; /* yaml.v2 Unmarshal reads the first document only */
            break;
        case YAML_SCALAR_EVENT: {
            const char *tx = (const char *)ev.data.scalar.value;
            n = mk(resolve_scalar(tx, (const char *)ev.data.scalar.tag, ev.data.scalar.plain_implicit), tx);
            anchor = (const char *)ev.data.scalar.anchor;
            break;
        }
        case YAML_SEQUENCE_START_EVENT:
            n = mk(T_SEQ, NULL);
            anchor = (const char *)ev.data.sequence_start.anchor;
            push = true;
            break;
        case YAML_MAPPING_START_EVENT:
            n = mk(T_MAP, NULL);
            anchor = (const char *)ev.data.mapping_start.anchor;
            push = true;
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            pop = true;
            break;
        case YAML_ALIAS_EVENT:
            for (size_t i = 0; i < nanchors && !n; i++)
                if (!strcmp(anames[i], (const char *)ev.data.alias.anchor))
                    n = anodes[i];
            if (!n) {
                b_printf(err, "yaml: unknown anchor '%s' referenced", (const char *)ev.data.alias.anchor);
                rc = -1;
                done = true;
            }
            break;
        default:
            break;
        }
        if (anchor && n) {
            anames = xrealloc(anames, (nanchors + 1) * sizeof *anames);
            anodes = xrealloc(anodes, (nanchors + 1) * sizeof *anodes);
            anames[nanchors] = xstrdup(anchor);
            anodes[nanchors++] = n;
        }
        if (n && rc == 0) {
            if (sp == 0) {
                root = n;
            } else {
                struct frame *f = &st[sp - 1];
                if (f->c->t == T_SEQ) {
                    add(f->c, NULL, n);
                } else if (!f->have_key) {
                    f->key = key_string(n);
                    if (!f->key) {
                        b_printf(err, "unsupported map key of type %s", type_name[n->t]);
                        rc = -1;
                        done = true;
                    }
                    f->have_key = true;
                } else {
                    if (!add(f->c, f->key, n) && stats)
                        stats->dupkeys++;
                    free(f->key);
                    f->key = NULL;
                    f->have_key = false;
                }
            }
            if (push && rc == 0) {
                if (sp == MAXD) {
                    b_puts(err, "yaml: exceeded max depth");
                    rc = -1;
                    done = true;
                } else {
                    st[sp++] = (struct frame){n, NULL, false};
                }
            }
        }
        if (pop && sp > 0)
            sp--;
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
    free(st);
    (void)in_doc;
    if (rc == 0)
        *out = root && root->t != T_NULL ? root : NULL;
    return rc;
}

/* ---- JSON (Go encoding/json's grammar) ------------------------------------------------------------------------ */

typedef struct {
    const char *s;
    size_t i, n;
    buf *err;
} jparse;

static void j_ws(jparse *p)
{
    while (p->i < p->n && strchr(" \t\r\n", p->s[p->i]) && p->s[p->i])
        p->i++;
}

static node *j_fail(jparse *p, const char *what)
{
    if (!p->err->n) {
        if (p->i >= p->n)
            b_puts(p->err, "unexpected end of JSON input");
        else
            b_printf(p->err, "invalid character '%c' %s (offset %zu)", p->s[p->i], what, p->i);
    }
    return NULL;
}

static void put_utf8(buf *b, unsigned cp)
{
    char u[4];
    if (cp < 0x80) {
        b_putc(b, (char)cp);
    } else if (cp < 0x800) {
        u[0] = (char)(0xC0 | (cp >> 6));
        u[1] = (char)(0x80 | (cp & 0x3F));
        b_put(b, u, 2);
    } else if (cp < 0x10000) {
        u[0] = (char)(0xE0 | (cp >> 12));
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (char)(0x80 | (cp & 0x3F));
        b_put(b, u, 3);
    } else {
        u[0] = (char)(0xF0 | (cp >> 18));
        u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[3] = (char)(0x80 | (cp & 0x3F));
        b_put(b, u, 4);
    }
}

static int hex4(const char *s)
{
    int v = 0;
    for (int i = 0; i < 4; i++) {
        int d = digit_val(s[i]);
        if (d > 15)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

static char *j_string(jparse *p)
{
    buf b = {0};
    p->i++; /* the quote */
    while (p->i < p->n) {
        unsigned char c = (unsigned char)p->s[p->i];
        if (c == '"') {
            p->i++;
            b_put(&b, "", 0);
            return b.p;
        }
        if (c < 0x20) {
            j_fail(p, "in string literal");
            free(b.p);
            return NULL;
        }
        if (c != '\\') {
            b_putc(&b, (char)c);
            p->i++;
            continue;
        }
        if (p->i + 1 >= p->n)
            break;
        char e = p->s[p->i + 1];
        p->i += 2;
        const char *simple = strchr("\"\\/bfnrt", e);
        if (simple && e) {
            b_putc(&b, "\"\\/\b\f\n\r\t"[simple - "\"\\/bfnrt"]);
            continue;
        }
        if (e != 'u' || p->i + 4 > p->n || hex4(p->s + p->i) < 0) {
            p->i--;
            j_fail(p, "in string escape code");
            free(b.p);
            return NULL;
        }
        unsigned cp = (unsigned)hex4(p->s + p->i);
        p->i += 4;
        if (cp >= 0xD800 && cp < 0xDC00 && p->i + 6 <= p->n && p->s[p->i] == '\\' && p->s[p->i + 1] == 'u' &&
            hex4(p->s + p->i + 2) >= 0xDC00 && hex4(p->s + p->i + 2) < 0xE000) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + ((unsigned)hex4(p->s + p->i + 2) - 0xDC00);
            p->i += 6;
        } else if (cp >= 0xD800 && cp < 0xE000) {
            cp = 0xFFFD;
        }
        put_utf8(&b, cp);
    }
    free(b.p);
    j_fail(p, "");
    return NULL;
}

static node *j_value(jparse *p, int depth)
{
    j_ws(p);
    if (p->i >= p->n)
        return j_fail(p, "");
    if (depth > 10000)
        return j_fail(p, "exceeding max depth");
    char c = p->s[p->i];
    if (c == '{' || c == '[') {
        node *n = mk(c == '{' ? T_MAP : T_SEQ, NULL);
        char close = c == '{' ? '}' : ']';
        p->i++;
        j_ws(p);
        if (p->i < p->n && p->s[p->i] == close) {
            p->i++;
            return n;
        }
        for (;;) {
            char *key = NULL;
            if (n->t == T_MAP) {
                j_ws(p);
                if (p->i >= p->n || p->s[p->i] != '"')
                    return j_fail(p, "looking for beginning of object key string");
                if (!(key = j_string(p)))
                    return NULL;
                j_ws(p);
                if (p->i >= p->n || p->s[p->i] != ':')
                    return j_fail(p, "after object key");
                p->i++;
            }
            node *v = j_value(p, depth + 1);
            if (!v)
                return NULL;
            add(n, key, v);
            free(key);
            j_ws(p);
            if (p->i < p->n && p->s[p->i] == ',') {
                p->i++;
                continue;
            }
            if (p->i < p->n && p->s[p->i] == close) {
                p->i++;
                return n;
            }
            return j_fail(p, n->t == T_MAP ? "after object key:value pair" : "after array element");
        }
    }
    if (c == '"') {
        char *s = j_string(p);
        if (!s)
            return NULL;
        node *n = mk(T_STR, NULL);
        n->s = s;
        return n;
    }
    static const struct {
        const char *lit;
        int t;
    } lits[] = {{"true", T_BOOL}, {"false", T_BOOL}, {"null", T_NULL}};
    for (int i = 0; i < 3; i++) {
        size_t l = strlen(lits[i].lit);
        if (p->n - p->i >= l && !strncmp(p->s + p->i, lits[i].lit, l)) {
            p->i += l;
            return mk(lits[i].t, lits[i].lit);
        }
    }
    size_t start = p->i;
    bool integral = true;
    if (p->s[p->i] == '-')
        p->i++;
    if (p->i < p->n && p->s[p->i] == '0')
        p->i++;
    else if (p->i < p->n && p->s[p->i] >= '1' && p->s[p->i] <= '9')
        while (p->i < p->n && isdigit((unsigned char)p->s[p->i]))
            p->i++;
    else
        return j_fail(p, "looking for beginning of value");
    if (p->i < p->n && p->s[p->i] == '.') {
        integral = false;
        p->i++;
        if (p->i >= p->n || !isdigit((unsigned char)p->s[p->i]))
            return j_fail(p, "after decimal point in numeric literal");
        while (p->i < p->n && isdigit((unsigned char)p->s[p->i]))
            p->i++;
    }
    if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
        integral = false;
        p->i++;
        if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-'))
            p->i++;
        if (p->i >= p->n || !isdigit((unsigned char)p->s[p->i]))
            return j_fail(p, "in exponent of numeric literal");
        while (p->i < p->n && isdigit((unsigned char)p->s[p->i]))
            p->i++;
    }
    char *num = xstrndup(p->s + start, p->i - start);
    node *n = mk(integral ? T_INT : T_FLOAT, NULL);
    n->s = num;
    return n;
}

/* ---- Argo CD's reading of generate's stdout (contract §3, steps A, B and C) ----------------------------------- */

typedef struct {
    node **v;
    size_t n;
    int lists, dupkeys;
} objects;

static void push_obj(objects *o, node *n)
{
    o->v = xrealloc(o->v, (o->n + 1) * sizeof *o->v);
    o->v[o->n++] = n;
}

/* one YAML document through sigs.k8s.io/yaml: parse errors fail everything, null documents are skipped */
static int flush_doc(buf *chunk, objects *docs, buf *err)
{
    node *doc;
    load_stats ls = {0};
    if (load_yaml(chunk->p, chunk->n, &doc, err, &ls) < 0) {
        buf e2 = {0};
        b_printf(&e2, "error converting YAML to JSON: %s", b_str(err));
        err->n = 0;
        b_puts(err, b_str(&e2));
        free(e2.p);
        free(chunk->p);
        return -1;
    }
    docs->dupkeys += ls.dupkeys;
    if (doc)
        push_obj(docs, doc);
    chunk->n = 0;
    return 0;
}

/* Step A: JSON stream or YAML documents split on "---" lines; null documents skipped. */
static int split_docs(const char *s, size_t n, objects *docs, buf *err)
{
    size_t i = 0;
    while (i < n && strchr(" \t\r\n", s[i]) && s[i])
        i++;
    size_t yaml_from = 0;
    if (i < n && s[i] == '{') {
        jparse p = {s, i, n, err};
        size_t count = 0;
        for (;;) {
            j_ws(&p);
            if (p.i >= p.n)
                return 0;
            size_t at = p.i;
            node *v = j_value(&p, 0);
            if (!v) {
                if (count > 1)
                    return -1;
                /* the decoder falls back to YAML for the rest after at most one JSON object */
                err->n = 0;
                yaml_from = at;
                break;
            }
            count++;
            if (v->t != T_NULL)
                push_obj(docs, v);
        }
    }
    /* YAML: lines starting with "---" separate documents; only spaces or a #comment may follow them */
    buf chunk = {0};
    for (size_t pos = yaml_from; pos < n;) {
        size_t e = pos;
        while (e < n && s[e] != '\n')
            e++;
        size_t len = e - pos;
        if (e < n && len && s[pos + len - 1] == '\r')
            len--;
        const char *line = s + pos;
        pos = e + 1;
        if (len >= 3 && !strncmp(line, "---", 3)) {
            size_t a = 3, b = len;
            while (a < b && isspace((unsigned char)line[a]))
                a++;
            while (b > a && isspace((unsigned char)line[b - 1]))
                b--;
            if (a < b && line[a] != '#') {
                b_printf(err, "invalid Yaml document separator: %.*s", (int)(b - a), line + a);
                free(chunk.p);
                return -1;
            }
            if (chunk.n && flush_doc(&chunk, docs, err) < 0)
                return -1;
            continue;
        }
        b_put(&chunk, line, len);
        b_putc(&chunk, '\n');
    }
    if (chunk.n && flush_doc(&chunk, docs, err) < 0)
        return -1;
    free(chunk.p);
    return 0;
}

static const char *go_type(const node *n)
{
    switch (n->t) {
    case T_SEQ:
        return "[]interface {}";
    case T_STR:
    case T_TIME:
    case T_TAGGED:
        return "string";
    case T_BOOL:
        return "bool";
    default:
        return "number";
    }
}

/* Steps B and C: every document an object with kind; lists flattened; null lists dropped. */
static int to_objects(objects *docs, objects *out, buf *err)
{
    out->dupkeys = docs->dupkeys;
    for (size_t i = 0; i < docs->n; i++) {
        node *d = docs->v[i];
        if (d->t != T_MAP) {
            b_printf(err, "json: cannot unmarshal %s into Go value of type map[string]interface {}", go_type(d));
            return -1;
        }
        const node *kind = get(d, "kind");
        if (!kind || kind->t != T_STR || !*kind->s) {
            b_puts(err, "Object 'Kind' is missing");
            return -1;
        }
        const node *items = get(d, "items");
        if (items && items->t == T_SEQ) {
            out->lists++;
            for (size_t k = 0; k < items->n; k++) {
                if (items->v[k]->t != T_MAP) {
                    b_puts(err, "resource list item has unexpected type");
                    return -1;
                }
                push_obj(out, items->v[k]);
            }
            continue;
        }
        if (items && items->t == T_NULL && !get(d, "spec") && !get(d, "status"))
            continue;
        push_obj(out, d);
    }
    return 0;
}

static void tsv_escape(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\\\", f);
        else if (*s == '\n')
            fputs("\\n", f);
        else if (*s == '\t')
            fputs("\\t", f);
        else
            fputc(*s, f);
    }
}

static void dump(FILE *f, size_t idx, buf *path, const node *n, int depth)
{
    fprintf(f, "%zu\t", idx);
    tsv_escape(f, path->n ? path->p : "");
    fprintf(f, "\t%s\t", type_name[n->t]);
    if (n->t == T_MAP || n->t == T_SEQ)
        fprintf(f, "%zu", n->n);
    else
        tsv_escape(f, n->s ? n->s : "");
    fputc('\n', f);
    if ((n->t != T_MAP && n->t != T_SEQ) || depth > 200)
        return;
    size_t keep = path->n;
    for (size_t i = 0; i < n->n; i++) {
        b_putc(path, '/');
        if (n->t == T_MAP) {
            for (const char *k = n->k[i]; *k; k++)
                *k == '~' ? b_puts(path, "~0") : *k == '/' ? b_puts(path, "~1") : b_putc(path, *k);
        } else {
            b_printf(path, "%zu", i);
        }
        dump(f, idx, path, n->v[i], depth + 1);
        path->n = keep;
        if (path->p)
            path->p[keep] = 0;
    }
}

static void dump_all(FILE *f, const objects *o)
{
    buf path = {0};
    for (size_t i = 0; i < o->n; i++) {
        path.n = 0;
        dump(f, i, &path, o->v[i], 0);
    }
    free(path.p);
}

static int parse_output(const char *s, size_t n, objects *out, buf *err)
{
    objects docs = {0};
    if (split_docs(s, n, &docs, err) < 0)
        return -1;
    return to_objects(&docs, out, err);
}

/* The dynamic-parameters reading: encoding/json into []ParameterAnnouncement. */
static int parse_params(const char *s, size_t n, objects *out, buf *err)
{
    jparse p = {s, 0, n, err};
    node *v = j_value(&p, 0);
    if (!v)
        return -1;
    j_ws(&p);
    if (p.i < p.n) {
        j_fail(&p, "after top-level value");
        return -1;
    }
    if (v->t == T_NULL)
        return 0;
    if (v->t != T_SEQ) {
        b_printf(err, "json: cannot unmarshal %s into Go value of type []*apiclient.ParameterAnnouncement",
                 v->t == T_MAP ? "object" : go_type(v));
        return -1;
    }
    static const char *const strs[] = {"name", "title", "tooltip", "itemType", "collectionType", "string", NULL};
    for (size_t i = 0; i < v->n; i++) {
        node *e = v->v[i];
        if (e->t == T_NULL)
            continue;
        if (e->t != T_MAP) {
            b_printf(err, "json: cannot unmarshal %s into Go value of type apiclient.ParameterAnnouncement",
                     go_type(e));
            return -1;
        }
        for (size_t k = 0; k < e->n; k++) {
            const char *key = e->k[k];
            const node *val = e->v[k];
            const char *want = NULL;
            bool ok = val->t == T_NULL;
            for (int s2 = 0; strs[s2]; s2++)
                if (!strcasecmp(key, strs[s2])) {
                    want = "string";
                    ok = ok || val->t == T_STR;
                }
            if (!strcasecmp(key, "required")) {
                want = "bool";
                ok = ok || val->t == T_BOOL;
            } else if (!strcasecmp(key, "array")) {
                want = "[]string";
                ok = ok || val->t == T_SEQ;
                for (size_t j = 0; val->t == T_SEQ && j < val->n; j++)
                    ok = ok && (val->v[j]->t == T_STR || val->v[j]->t == T_NULL);
            } else if (!strcasecmp(key, "map")) {
                want = "map[string]string";
                ok = ok || val->t == T_MAP;
                for (size_t j = 0; val->t == T_MAP && j < val->n; j++)
                    ok = ok && (val->v[j]->t == T_STR || val->v[j]->t == T_NULL);
            }
            if (want && !ok) {
                b_printf(err, "json: cannot unmarshal into Go struct field ParameterAnnouncement.%s of type %s", key,
                         want);
                return -1;
            }
        }
        push_obj(out, e);
    }
    return 0;
}

/* ---- plugin.yaml and the Application -------------------------------------------------------------------------- */

typedef struct {
    char **v;
    size_t n;
} strv;

static void sv_push(strv *a, const char *s)
{
    a->v = xrealloc(a->v, (a->n + 2) * sizeof *a->v);
    a->v[a->n++] = s ? xstrdup(s) : NULL;
    a->v[a->n] = NULL;
}

static node *load_file_yaml(const char *path)
{
    buf b = {0};
    if (read_file(path, &b) < 0)
        die("%s: %s", path, strerror(errno));
    buf err = {0};
    node *n;
    if (load_yaml(b.p, b.n, &n, &err, NULL) < 0)
        die("%s: %s", path, b_str(&err));
    if (!n || n->t != T_MAP)
        die("%s: not a YAML map", path);
    free(b.p);
    return n;
}

/* command + args of a {command, args} block; false when there is no command */
static bool command_of(const node *blk, strv *out)
{
    const node *cmd = get(blk, "command"), *args = get(blk, "args");
    if (!cmd || cmd->t != T_SEQ || !cmd->n)
        return false;
    for (size_t i = 0; i < cmd->n; i++)
        sv_push(out, cmd->v[i]->s ? cmd->v[i]->s : "");
    for (size_t i = 0; args && args->t == T_SEQ && i < args->n; i++)
        sv_push(out, args->v[i]->s ? args->v[i]->s : "");
    return true;
}

typedef struct {
    char *name; /* <metadata.name>-<version> or <metadata.name>: the socket and the name Applications use */
    strv init, gen, find_cmd, dyn;
    const char *file_name, *find_glob;
    bool has_init, has_dyn, has_find_cmd;
    bool preserve_mode; /* spec.preserveFileMode: the copy keeps the repository's modes (else 0644 / 0755) */
} plugin;

static void read_plugin(const char *path, plugin *pl)
{
    memset(pl, 0, sizeof *pl);
    node *c = load_file_yaml(path);
    const char *name = sget(c, "metadata", "name", NULL), *kind = sget(c, "kind", NULL);
    if (!name || !*name)
        die("%s: metadata.name is required", path);
    if (!kind || strcmp(kind, "ConfigManagementPlugin"))
        die("%s: kind must be ConfigManagementPlugin", path);
    const node *spec = get(c, "spec");
    if (!command_of(get(spec, "generate"), &pl->gen))
        die("%s: spec.generate.command is required", path);
    const char *version = sget(spec, "version", NULL);
    buf b = {0};
    b_puts(&b, name);
    if (version && *version)
        b_printf(&b, "-%s", version);
    pl->name = b.p;
    pl->has_init = command_of(get(spec, "init"), &pl->init);
    pl->has_dyn = command_of(nget(spec, "parameters", "dynamic", NULL), &pl->dyn);
    const node *d = get(spec, "discover");
    pl->file_name = sget(d, "fileName", NULL);
    if (pl->file_name && !*pl->file_name)
        pl->file_name = NULL;
    pl->find_glob = sget(d, "find", "glob", NULL);
    if (pl->find_glob && !*pl->find_glob)
        pl->find_glob = NULL;
    pl->has_find_cmd = command_of(get(d, "find"), &pl->find_cmd);
    const node *pm = get(spec, "preserveFileMode"); /* a bool as yaml.v2 reads one (true, yes, on, ...) */
    pl->preserve_mode = pm && pm->t == T_BOOL && strchr("yYtToO", pm->s[0]) && strcmp(pm->s, "off") &&
                        strcmp(pm->s, "Off") && strcmp(pm->s, "OFF");
}

static bool discovery_configured(const plugin *pl) { return pl->file_name || pl->find_glob || pl->has_find_cmd; }

typedef struct {
    const char *name, *instance, *dest_ns, *project, *repo_url, *path, *target_rev;
    const char *plugin_name;
    bool has_plugin;
    const node *env, *params;
    const node *annotations;
    strv set; /* --set key=value */
} app;

static const char *test_setting(const app *a, const char *key, const char *def)
{
    size_t kl = strlen(key);
    for (size_t i = a->set.n; i-- > 0;)
        if (!strncmp(a->set.v[i], key, kl) && a->set.v[i][kl] == '=')
            return a->set.v[i] + kl + 1;
    char full[256];
    snprintf(full, sizeof full, "cmp-server.test/%s", key);
    const node *v = get(a->annotations, full);
    return v && v->s ? v->s : def;
}

/* ---- the environment Argo CD builds (contract §2.3) ----------------------------------------------------------- */

typedef struct {
    strv names, values;
} env;

static void env_set(env *e, const char *name, const char *value)
{
    sv_push(&e->names, name);
    sv_push(&e->values, value ? value : "");
}

static const char *env_get(const env *e, const char *name)
{
    for (size_t i = e->names.n; i-- > 0;)
        if (!strcmp(e->names.v[i], name))
            return e->values.v[i];
    return NULL;
}

/* os.Expand with Argo CD's mapping: $VAR and ${VAR} from the build vars, unknown -> "", $$ -> $ */
static bool special_var(char c) { return strchr("*#$@!?-", c) ? c != 0 : isdigit((unsigned char)c); }
static bool alnum_(char c) { return c == '_' || isalnum((unsigned char)c); }

static char *envsubst(const char *s, const env *vars)
{
    buf b = {0};
    size_t n = strlen(s);
    b_put(&b, "", 0);
    for (size_t j = 0; j < n; j++) {
        if (s[j] != '$' || j + 1 >= n) {
            b_putc(&b, s[j]);
            continue;
        }
        const char *r = s + j + 1;
        size_t rl = n - j - 1, w = 0;
        char *name = NULL;
        if (r[0] == '{') {
            if (rl > 2 && special_var(r[1]) && r[2] == '}') {
                name = xstrndup(r + 1, 1);
                w = 3;
            } else {
                size_t i;
                for (i = 1; i < rl && r[i] != '}'; i++)
                    ;
                if (i < rl && i > 1) {
                    name = xstrndup(r + 1, i - 1);
                    w = i + 1;
                } else {
                    w = i < rl ? 2 : 1; /* bad syntax: eat "${}" or "${" */
                }
            }
        } else if (special_var(r[0])) {
            name = xstrndup(r, 1);
            w = 1;
        } else {
            while (w < rl && alnum_(r[w]))
                w++;
            if (w)
                name = xstrndup(r, w);
        }
        if (name) {
            const char *v = !strcmp(name, "$") ? "$" : env_get(vars, name);
            b_puts(&b, v ? v : "");
            free(name);
        } else if (w == 0) {
            b_putc(&b, '$');
        }
        j += w;
    }
    return b.p;
}

/* PARAM_ names: ToUpper, then every rune outside [A-Z0-9_] becomes "_" */
static char *escape_param(const char *s)
{
    buf b = {0};
    b_put(&b, "", 0);
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        if (*p < 0x80) {
            char c = (char)toupper(*p);
            b_putc(&b, (isupper((unsigned char)c) || isdigit((unsigned char)c) || c == '_') ? c : '_');
            p++;
            continue;
        }
        size_t l = (*p & 0xE0) == 0xC0 ? 2 : (*p & 0xF0) == 0xE0 ? 3 : (*p & 0xF8) == 0xF0 ? 4 : 1;
        for (size_t i = 1; i < l; i++)
            if ((p[i] & 0xC0) != 0x80)
                l = 1;
        b_putc(&b, '_');
        p += l;
    }
    return b.p;
}

/* Go's json.Marshal string escaping (HTML-safe by default) */
static void json_str(buf *b, const char *s)
{
    b_putc(b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            b_putc(b, '\\');
            b_putc(b, (char)*p);
        } else if (*p == '\n') {
            b_puts(b, "\\n");
        } else if (*p == '\r') {
            b_puts(b, "\\r");
        } else if (*p == '\t') {
            b_puts(b, "\\t");
        } else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&') {
            b_printf(b, "\\u%04x", *p);
        } else if (p[0] == 0xE2 && p[1] == 0x80 && (p[2] == 0xA8 || p[2] == 0xA9)) {
            b_printf(b, "\\u202%c", p[2] == 0xA8 ? '8' : '9');
            p += 2;
        } else {
            b_putc(b, (char)*p);
        }
    }
    b_putc(b, '"');
}

static int cmp_keys(const void *a, const void *b)
{
    return strcmp(**(char *const *const *)a, **(char *const *const *)b);
}

/* ARGOCD_APP_PARAMETERS and PARAM_* (contract §2.3 "Parameters") */
static void param_env(const app *a, env *e)
{
    buf j = {0};
    const node *ps = a->params;
    if (!ps || ps->t != T_SEQ) {
        b_puts(&j, "null");
    } else {
        b_putc(&j, '[');
        for (size_t i = 0; i < ps->n; i++) {
            const node *p = ps->v[i];
            const node *str = get(p, "string"), *arr = get(p, "array"), *map = get(p, "map");
            const char *name = sget(p, "name", NULL);
            if (!name)
                name = "";
            if (str && str->t == T_NULL) /* string: null is a nil *string, left out */
                str = NULL;
            if (i)
                b_putc(&j, ',');
            b_putc(&j, '{');
            if (arr) { /* keys in sorted order: array, map, name, string */
                b_puts(&j, "\"array\":[");
                for (size_t k = 0; arr->t == T_SEQ && k < arr->n; k++) {
                    if (k)
                        b_putc(&j, ',');
                    json_str(&j, arr->v[k]->s ? arr->v[k]->s : "");
                }
                b_puts(&j, "],");
            }
            size_t nk = map && map->t == T_MAP ? map->n : 0;
            char ***order = xrealloc(NULL, (nk + 1) * sizeof *order);
            for (size_t k = 0; k < nk; k++)
                order[k] = &map->k[k];
            qsort(order, nk, sizeof *order, cmp_keys);
            if (map) {
                b_puts(&j, "\"map\":{");
                for (size_t k = 0; k < nk; k++) {
                    size_t at = (size_t)(order[k] - map->k);
                    if (k)
                        b_putc(&j, ',');
                    json_str(&j, map->k[at]);
                    b_putc(&j, ':');
                    json_str(&j, map->v[at]->s ? map->v[at]->s : "");
                }
                b_puts(&j, "},");
            }
            b_puts(&j, "\"name\":");
            json_str(&j, name);
            if (str) {
                b_puts(&j, ",\"string\":");
                json_str(&j, str->s ? str->s : "");
            }
            b_putc(&j, '}');
            char *base = escape_param(name), var[4096];
            if (str) {
                snprintf(var, sizeof var, "PARAM_%s", base);
                env_set(e, var, str->s);
            }
            for (size_t k = 0; k < nk; k++) { /* Go's map order is random; ours is sorted */
                size_t at = (size_t)(order[k] - map->k);
                char *ek = escape_param(map->k[at]);
                snprintf(var, sizeof var, "PARAM_%s_%s", base, ek);
                env_set(e, var, map->v[at]->s);
                free(ek);
            }
            for (size_t k = 0; arr && arr->t == T_SEQ && k < arr->n; k++) {
                snprintf(var, sizeof var, "PARAM_%s_%zu", base, k);
                env_set(e, var, arr->v[k]->s);
            }
            free(base);
            free(order);
        }
        b_putc(&j, ']');
    }
    env_set(e, "ARGOCD_APP_PARAMETERS", j.p);
    free(j.p);
}

/* CALL_DETECT: the type-detection MatchRepository of an Application with no plugin key (no KUBE_*) */
enum call { CALL_GENERATE, CALL_PARAMS, CALL_DETECT };

static void build_env(const app *a, enum call call, env *e)
{
    env vars = {0};
    const char *rev = test_setting(a, "revision", "0123456789abcdef0123456789abcdef01234567");
    char s7[8] = {0}, s8[9] = {0};
    snprintf(s7, sizeof s7, "%s", rev);
    snprintf(s8, sizeof s8, "%s", rev);
    env_set(&vars, "ARGOCD_APP_NAME", a->instance);
    if (call != CALL_PARAMS) {
        env_set(&vars, "ARGOCD_APP_NAMESPACE", a->dest_ns);
        env_set(&vars, "ARGOCD_APP_PROJECT_NAME", a->project);
        env_set(&vars, "ARGOCD_APP_REVISION", rev);
        env_set(&vars, "ARGOCD_APP_REVISION_SHORT", s7);
        env_set(&vars, "ARGOCD_APP_REVISION_SHORT_8", s8);
    }
    env_set(&vars, "ARGOCD_APP_SOURCE_REPO_URL", a->repo_url);
    env_set(&vars, "ARGOCD_APP_SOURCE_PATH", a->path);
    env_set(&vars, "ARGOCD_APP_SOURCE_TARGET_REVISION", a->target_rev);
    if (call == CALL_GENERATE) {
        /* k8sversion.ParseGeneric(...).String(): no "v", nothing after major.minor.patch */
        const char *kv = test_setting(a, "kube-version", "1.31.0");
        if (*kv == 'v')
            kv++;
        size_t l = strspn(kv, "0123456789.");
        char *kvs = xstrndup(kv, l);
        env_set(&vars, "KUBE_VERSION", kvs);
        free(kvs);
        env_set(&vars, "KUBE_API_VERSIONS",
                test_setting(a, "kube-api-versions",
                             "apps/v1,apps/v1/DaemonSet,apps/v1/Deployment,apps/v1/StatefulSet,batch/v1,batch/v1/Job,"
                             "networking.k8s.io/v1,networking.k8s.io/v1/Ingress,v1,v1/ConfigMap,v1/Namespace,"
                             "v1/Secret,v1/Service,v1/ServiceAccount"));
    }
    for (size_t i = 0; i < vars.names.n; i++)
        env_set(e, vars.names.v[i], vars.values.v[i]);
    for (size_t i = 0; a->env && a->env->t == T_SEQ && i < a->env->n; i++) {
        const char *name = sget(a->env->v[i], "name", NULL), *value = sget(a->env->v[i], "value", NULL);
        if (!name || !*name)
            continue;
        char var[4096];
        snprintf(var, sizeof var, "ARGOCD_ENV_%s", name);
        char *v = envsubst(value ? value : "", &vars);
        env_set(e, var, v);
        free(v);
    }
    if (a->has_plugin)
        param_env(a, e);
    const char *drop = test_setting(a, "drop-env", "");
    for (size_t i = 0; i < e->names.n; i++) {
        size_t l = strlen(e->names.v[i]);
        for (const char *p = drop; *p;) {
            size_t w = strcspn(p, ", ");
            if (w == l && !strncmp(p, e->names.v[i], l))
                e->names.v[i][0] = 0; /* an empty name is dropped */
            p += w;
            p += strspn(p, ", ");
        }
    }
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* sidecar env ++ request env, the last of duplicate names kept, empty names dropped; as NAME=VALUE */
static char **final_env(const env *base, const env *req)
{
    env all = {0};
    for (size_t i = 0; i < base->names.n; i++)
        env_set(&all, base->names.v[i], base->values.v[i]);
    for (size_t i = 0; i < req->names.n; i++)
        env_set(&all, req->names.v[i], req->values.v[i]);
    strv out = {0};
    for (size_t i = 0; i < all.names.n; i++) {
        if (!*all.names.v[i])
            continue;
        bool later = false;
        for (size_t k = i + 1; k < all.names.n && !later; k++)
            later = !strcmp(all.names.v[i], all.names.v[k]);
        if (later)
            continue;
        buf b = {0};
        b_printf(&b, "%s=%s", all.names.v[i], all.values.v[i]);
        sv_push(&out, b.p);
        free(b.p);
    }
    if (!out.v)
        sv_push(&out, NULL);
    return out.v;
}

static void write_env(const char *dir, const char *name, char **envp)
{
    size_t n = 0;
    while (envp[n])
        n++;
    char **sorted = xrealloc(NULL, (n + 1) * sizeof *sorted);
    memcpy(sorted, envp, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, cmp_str);
    buf b = {0};
    for (size_t i = 0; i < n; i++) {
        for (const char *p = sorted[i]; *p; p++)
            *p == '\n' ? b_puts(&b, "\\n") : *p == '\\' ? b_puts(&b, "\\\\") : b_putc(&b, *p);
        b_putc(&b, '\n');
    }
    write_file(dir, name, b_str(&b), b.n);
    free(b.p);
    free(sorted);
}

/* ---- the work dir: copy, reset modes, remove ------------------------------------------------------------------ */

static int remove_one(const char *p, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (type == FTW_DP)
        chmod(p, 0700);
    remove(p);
    return 0;
}

static void remove_tree(const char *dir)
{
    if (!getenv("KEEP_TMP"))
        nftw(dir, remove_one, 32, FTW_DEPTH | FTW_PHYS);
}

/* filepath.Clean of an absolute path */
static char *clean_abs(const char *p)
{
    strv parts = {0};
    char *r = xstrdup(p);
    for (char *tok = strtok(r, "/"); tok; tok = strtok(NULL, "/")) {
        if (!strcmp(tok, "."))
            continue;
        if (!strcmp(tok, "..")) {
            if (parts.n)
                free(parts.v[--parts.n]);
            continue;
        }
        sv_push(&parts, tok);
    }
    buf b = {0};
    for (size_t i = 0; i < parts.n; i++)
        b_printf(&b, "/%s", parts.v[i]);
    if (!parts.n)
        b_puts(&b, "/");
    free(r);
    return b.p;
}

static strv split_path(const char *p)
{
    strv v = {0};
    char *r = xstrdup(p);
    for (char *tok = strtok(r, "/"); tok; tok = strtok(NULL, "/"))
        sv_push(&v, tok);
    free(r);
    return v;
}

/* filepath.Rel(from, to) for clean absolute paths */
static char *rel_path(const char *from, const char *to)
{
    strv a = split_path(from), t = split_path(to);
    size_t k = 0;
    while (k < a.n && k < t.n && !strcmp(a.v[k], t.v[k]))
        k++;
    buf b = {0};
    for (size_t i = k; i < a.n; i++)
        b_puts(&b, b.n ? "/.." : "..");
    for (size_t i = k; i < t.n; i++)
        b_printf(&b, "%s%s", b.n ? "/" : "", t.v[i]);
    if (!b.n)
        b_puts(&b, ".");
    return b.p;
}

static int cmp_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* the entries of dir in byte order (filepath.Walk reads directories sorted) */
static strv sorted_entries(const char *dir)
{
    strv v = {0};
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            sv_push(&v, e->d_name);
    if (d)
        closedir(d);
    if (v.n)
        qsort(v.v, v.n, sizeof *v.v, cmp_name);
    return v;
}

typedef struct {
    const char *src, *dst; /* the repository; the work dir (realpath) */
    const char *excl;      /* ';'-separated filepath.Match globs against repo-relative paths */
    bool preserve;         /* preserveFileMode: keep the modes instead of 0644 / 0755 */
    char *err;
    size_t files;
} copier;

static bool excluded(const copier *k, const char *rel)
{
    for (const char *p = k->excl; p && *p;) {
        size_t l = strcspn(p, ";");
        char *pat = xstrndup(p, l);
        bool hit = *pat && fnmatch(pat, rel, FNM_PATHNAME) == 0;
        free(pat);
        if (hit)
            return true;
        p += l + (p[l] == ';');
    }
    return false;
}

static void copy_file(const char *from, const char *to, mode_t mode)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    char tmp[65536];
    size_t n;
    while (in && out && (n = fread(tmp, 1, sizeof tmp, in)) > 0)
        fwrite(tmp, 1, n, out);
    if (in)
        fclose(in);
    if (out)
        fclose(out);
    chmod(to, mode);
}

/* util/io/files/tar.go: tgzFile walks the repository (symlinks not followed, exclusions skip a directory's whole
 * subtree), Untgz recreates it; a symlink's target is Join(Dir(target), linkname) (an absolute linkname lands
 * inside the copy), resolved, refused outside the copy, and written back relative. */
static int copy_tree(copier *k, const char *rel)
{
    char sdir[PATH_MAX];
    snprintf(sdir, sizeof sdir, "%s%s%s", k->src, *rel ? "/" : "", rel);
    strv names = sorted_entries(sdir);
    for (size_t i = 0; i < names.n && !k->err; i++) {
        char crel[PATH_MAX], from[2 * PATH_MAX + 2], to[2 * PATH_MAX + 2];
        snprintf(crel, sizeof crel, "%s%s%s", rel, *rel ? "/" : "", names.v[i]);
        snprintf(from, sizeof from, "%s/%s", k->src, crel);
        snprintf(to, sizeof to, "%s/%s", k->dst, crel);
        struct stat st;
        if (lstat(from, &st) < 0 || excluded(k, crel))
            continue;
        if (S_ISDIR(st.st_mode)) {
            mkdir(to, 0755);
            copy_tree(k, crel);
            if (k->preserve)
                chmod(to, st.st_mode & 07777);
        } else if (S_ISREG(st.st_mode)) {
            copy_file(from, to, k->preserve ? st.st_mode & 07777 : 0644);
            k->files++;
        } else if (S_ISLNK(st.st_mode)) {
            char link[PATH_MAX];
            ssize_t n = readlink(from, link, sizeof link - 1);
            if (n < 0)
                continue;
            link[n] = 0;
            char *dir = xstrdup(to);
            *strrchr(dir, '/') = 0;
            buf j = {0};
            b_printf(&j, "%s/%s", dir, link);
            char *target = clean_abs(j.p), real[PATH_MAX];
            const char *resolved = target;
            if (realpath(target, real))
                resolved = real;
            else if (errno != ENOENT && errno != ENOTDIR) {
                buf e = {0};
                b_printf(&e, "error checking symlink realpath: %s", strerror(errno));
                k->err = e.p;
                break;
            }
            size_t dl = strlen(k->dst);
            if (strncmp(resolved, k->dst, dl) || resolved[dl] != '/') {
                buf e = {0};
                b_printf(&e, "illegal filepath in symlink: %s", target);
                k->err = e.p;
                break;
            }
            char *relt = rel_path(dir, resolved);
            if (symlink(relt, to) < 0)
                die("symlink %s: %s", to, strerror(errno));
        }
    }
    return k->err ? -1 : 0;
}

/* a fresh <tmp>/_cmp_server/<random> holding the repository as the cmp-server unpacks it; *err when the request
 * fails while sending or unpacking (the copy is still there to remove) */
static char *new_workdir(const char *tmp, const char *repo, const char *excl, bool preserve, char **err)
{
    char path[4096];
    *err = NULL;
    snprintf(path, sizeof path, "%s/_cmp_server", tmp);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/_cmp_server/XXXXXX", tmp);
    if (!mkdtemp(path))
        die("mkdtemp %s: %s", path, strerror(errno));
    char real[PATH_MAX];
    if (!realpath(path, real))
        die("realpath %s: %s", path, strerror(errno));
    chmod(real, 0755);
    copier k = {repo, real, excl, preserve, NULL, 0};
    if (copy_tree(&k, "") == 0 && !k.files)
        k.err = xstrdup("no files to send");
    if (k.err) {
        buf e = {0};
        b_printf(&e, "error receiving stream: %s", k.err);
        *err = e.p;
    }
    return xstrdup(real);
}

/* Clean(workDir + "/" + appRelPath), which must stay inside workDir */
static char *app_dir(const char *work, const char *rel)
{
    strv parts = {0};
    char *r = xstrdup(rel ? rel : "");
    for (char *tok = strtok(r, "/"); tok; tok = strtok(NULL, "/")) {
        if (!strcmp(tok, "."))
            continue;
        if (!strcmp(tok, "..")) {
            if (!parts.n) {
                free(r);
                return NULL;
            }
            parts.n--;
            continue;
        }
        sv_push(&parts, tok);
    }
    buf b = {0};
    b_puts(&b, work);
    for (size_t i = 0; i < parts.n; i++)
        b_printf(&b, "/%s", parts.v[i]);
    free(r);
    return b.p;
}

/* ---- running a command like plugin.go runCommand -------------------------------------------------------------- */

typedef struct {
    bool ran;         /* the process started */
    int status;       /* wait status */
    bool timed_out;   /* the deadline killed it */
    bool lingering;   /* something was still in its process group when it exited */
    char *exec_error; /* fork/exec or chdir failure */
    buf out, err;
    long long ms;
} result;

static const char *search_path(const char *file, const char *path_env, char *out, size_t outsz)
{
    if (strchr(file, '/'))
        return file;
    for (const char *p = path_env ? path_env : ""; *p;) {
        size_t l = strcspn(p, ":");
        snprintf(out, outsz, "%.*s/%s", (int)(l ? l : 1), l ? p : ".", file);
        if (access(out, X_OK) == 0)
            return out;
        p += l + (p[l] == ':');
    }
    return NULL;
}

static void reap_strays(void)
{
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
}

static bool group_alive(pid_t pg)
{
    reap_strays();
    return kill(-pg, 0) == 0;
}

static void run_command(char **argv, const char *cwd, char **envp, const char *path_env, long long deadline,
                        result *r)
{
    memset(r, 0, sizeof *r);
    long long start = now_ms();
    char pathbuf[4096];
    const char *exe = search_path(argv[0], path_env, pathbuf, sizeof pathbuf);
    if (!exe) {
        buf b = {0};
        b_printf(&b, "exec: \"%s\": executable file not found in $PATH", argv[0]);
        r->exec_error = b.p;
        return;
    }
    int po[2], pe[2], px[2];
    if (pipe(po) || pipe(pe) || pipe2(px, O_CLOEXEC))
        die("pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0)
        die("fork: %s", strerror(errno));
    if (pid == 0) {
        setpgid(0, 0);
        signal(SIGPIPE, SIG_DFL);
        int what = 0;
        if (chdir(cwd) < 0)
            what = 1;
        if (!what) {
            dup2(po[1], 1);
            dup2(pe[1], 2);
            int devnull = open("/dev/null", O_RDONLY);
            if (devnull >= 0)
                dup2(devnull, 0);
            close(po[0]);
            close(po[1]);
            close(pe[0]);
            close(pe[1]);
            execve(exe, argv, envp);
        }
        int msg[2] = {what, errno};
        if (write(px[1], msg, sizeof msg) < 0)
            _exit(126);
        _exit(127);
    }
    setpgid(pid, pid);
    close(po[1]);
    close(pe[1]);
    close(px[1]);
    int msg[2];
    ssize_t got = read(px[0], msg, sizeof msg);
    close(px[0]);
    if (got == (ssize_t)sizeof msg) {
        buf b = {0};
        if (msg[0] == 1)
            b_printf(&b, "chdir %s: %s", cwd, strerror(msg[1]));
        else
            b_printf(&b, "fork/exec %s: %s", exe, strerror(msg[1]));
        r->exec_error = b.p;
        waitpid(pid, NULL, 0);
        close(po[0]);
        close(pe[0]);
        return;
    }
    r->ran = true;
    int fds[2] = {po[0], pe[0]};
    buf *bufs[2] = {&r->out, &r->err};
    bool exited = false;
    long long grace_end = 0;
    while (!exited || fds[0] >= 0 || fds[1] >= 0) {
        long long t = now_ms();
        if (!r->timed_out && t >= deadline) {
            /* CommandContext kills the child; the cleanup goroutine TERMs the group, then KILLs it 5 s later */
            r->timed_out = true;
            kill(pid, SIGKILL);
            kill(-pid, SIGTERM);
            grace_end = t + 5000;
        }
        if (r->timed_out && t >= grace_end) {
            kill(-pid, SIGKILL);
            if (t >= grace_end + 1000) /* something outside the group holds the pipes: stop waiting */
                break;
        }
        struct pollfd pf[2];
        int np = 0;
        for (int i = 0; i < 2; i++)
            if (fds[i] >= 0)
                pf[np++] = (struct pollfd){fds[i], POLLIN, 0};
        long long wait = r->timed_out ? grace_end + 1000 - t : deadline - t;
        if (wait > 50 || exited)
            wait = 50;
        if (wait < 0)
            wait = 0;
        if (np)
            poll(pf, (nfds_t)np, (int)wait);
        else /* the pipes are closed: the exit is imminent, look again soon */
            usleep((useconds_t)(wait > 2 ? 2 : wait) * 1000);
        for (int i = 0; i < np; i++) {
            if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            char tmp[65536];
            ssize_t n = read(pf[i].fd, tmp, sizeof tmp);
            int k = pf[i].fd == fds[0] ? 0 : 1;
            if (n > 0) {
                b_put(bufs[k], tmp, (size_t)n);
            } else if (n == 0 || errno != EINTR) {
                close(fds[k]);
                fds[k] = -1;
            }
        }
        if (!exited) {
            pid_t w = waitpid(pid, &r->status, WNOHANG);
            if (w == pid) {
                exited = true;
                r->ms = now_ms() - start;
            }
        }
    }
    for (int i = 0; i < 2; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    if (!exited) {
        kill(pid, SIGKILL);
        waitpid(pid, &r->status, 0);
        r->ms = now_ms() - start;
    }
    if (!r->out.p)
        b_put(&r->out, "", 0);
    if (!r->err.p)
        b_put(&r->err, "", 0);
    /* the RPC ends: the group gets SIGTERM, then SIGKILL 5 s later */
    if (group_alive(pid)) {
        r->lingering = true;
        kill(-pid, SIGTERM);
        for (long long end = now_ms() + 5000; now_ms() < end && group_alive(pid);)
            usleep(20000);
        kill(-pid, SIGKILL);
        for (long long end = now_ms() + 1000; now_ms() < end && group_alive(pid);)
            usleep(20000);
    }
}

static char *trim_space(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    return xstrndup(s, n);
}

/* NULL on success, else the error Argo CD reports: "`argv` failed exit status N: <stderr trimmed>" */
static char *command_error(char **shown_argv, const result *r)
{
    if (r->exec_error)
        return xstrdup(r->exec_error);
    if (!r->timed_out && WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0)
        return NULL;
    buf b = {0};
    b_putc(&b, '`');
    for (size_t i = 0; shown_argv[i]; i++)
        b_printf(&b, "%s%s", i ? " " : "", shown_argv[i]);
    b_puts(&b, "` failed ");
    if (WIFSIGNALED(r->status))
        b_printf(&b, "signal: %s", WTERMSIG(r->status) == SIGKILL ? "killed" : strsignal(WTERMSIG(r->status)));
    else
        b_printf(&b, "exit status %d", WEXITSTATUS(r->status));
    char *e = trim_space(b_str((buf *)&r->err));
    if (*e)
        b_printf(&b, ": %s", e);
    free(e);
    return b.p;
}

/* ---- the run ---------------------------------------------------------------------------------------------------- */

typedef struct {
    plugin pl;     /* the plugin Argo CD chose for the Application */
    plugin *all;   /* every sidecar's plugin (one --config each) */
    size_t nall;
    app a;
    env base;
    strv subst; /* FROM=TO */
    const char *repo, *tmp, *out, *path_env, *excl;
    buf report;
} run_ctx;

static char **substituted(run_ctx *c, strv *argv)
{
    strv out = {0};
    for (size_t i = 0; i < argv->n; i++) {
        const char *s = argv->v[i];
        for (size_t k = 0; i == 0 && k < c->subst.n; k++) {
            size_t l = strcspn(c->subst.v[k], "=");
            if (strlen(s) == l && !strncmp(s, c->subst.v[k], l))
                s = c->subst.v[k] + l + 1;
        }
        sv_push(&out, s);
    }
    return out.v;
}

static void rep(run_ctx *c, const char *key, const char *fmt, ...)
{
    char tmp[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    b_printf(&c->report, "%s=", key);
    for (const char *p = tmp; *p; p++)
        *p == '\n' ? b_puts(&c->report, "\\n") : b_putc(&c->report, *p);
    b_putc(&c->report, '\n');
}

static void save_result(run_ctx *c, const char *name, const result *r)
{
    char fn[256];
    snprintf(fn, sizeof fn, "%s.stdout", name);
    write_file(c->out, fn, r->out.p ? r->out.p : "", r->out.n);
    snprintf(fn, sizeof fn, "%s.stderr", name);
    write_file(c->out, fn, r->err.p ? r->err.p : "", r->err.n);
}

/* zglob's matching of a '/'-separated path: "**" spans any number of directories (none included), the rest
 * matches one path element at a time as filepath.Match does. */
static bool zmatch(const char *pat, const char *path)
{
    if (!strcmp(pat, "**"))
        return true;
    if (!strncmp(pat, "**/", 3)) {
        for (const char *p = path;; p++) {
            if ((p == path || p[-1] == '/') && zmatch(pat + 3, p))
                return true;
            if (!*p)
                return false;
        }
    }
    size_t pl = strcspn(pat, "/"), sl = strcspn(path, "/");
    char *ps = xstrndup(pat, pl), *ss = xstrndup(path, sl);
    bool ok = fnmatch(ps, ss, 0) == 0;
    free(ps);
    free(ss);
    if (!ok)
        return false;
    if (!pat[pl] || !path[sl])
        return !pat[pl] && !path[sl];
    return zmatch(pat + pl + 1, path + sl + 1);
}

/* find.glob: zglob.Glob(Join(appDir, glob)), a match when anything under appDir matches */
static bool zglob_any(const char *root, const char *rel, const char *pat)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s%s%s", root, *rel ? "/" : "", rel);
    strv names = sorted_entries(dir);
    bool hit = false;
    for (size_t i = 0; i < names.n && !hit; i++) {
        char crel[PATH_MAX], full[2 * PATH_MAX + 2];
        snprintf(crel, sizeof crel, "%s%s%s", rel, *rel ? "/" : "", names.v[i]);
        snprintf(full, sizeof full, "%s/%s", root, crel);
        struct stat st;
        hit = zmatch(pat, crel);
        if (!hit && stat(full, &st) == 0 && S_ISDIR(st.st_mode))
            hit = zglob_any(root, crel, pat);
    }
    return hit;
}

/* MatchRepository in dir: 1 match, 0 no match, -1 error (*err) */
static int match(run_ctx *c, const char *dir, char **envp, long long deadline, char **err)
{
    *err = NULL;
    if (c->pl.file_name) { /* filepath.Glob: no "**", and "*" matches dot files too */
        char pat[8192];
        snprintf(pat, sizeof pat, "%s/%s", dir, c->pl.file_name);
        glob_t g;
        int rc = glob(pat, GLOB_PERIOD | GLOB_NOSORT, NULL, &g);
        bool hit = rc == 0 && g.gl_pathc > 0;
        if (rc == 0)
            globfree(&g);
        return hit;
    }
    if (c->pl.find_glob)
        return zglob_any(dir, "", c->pl.find_glob);
    result r;
    char **argv = substituted(c, &c->pl.find_cmd);
    run_command(argv, dir, envp, c->path_env, deadline, &r);
    *err = command_error(c->pl.find_cmd.v, &r);
    if (*err)
        return -1;
    size_t n = r.out.n;
    if (n && r.out.p[n - 1] == '\n')
        n--;
    return n > 0;
}

static void call_match(run_ctx *c)
{
    env req = {0};
    build_env(&c->a, CALL_GENERATE, &req);
    char **envp = final_env(&c->base, &req);
    write_env(c->out, "env.match", envp);
    if (!discovery_configured(&c->pl)) {
        rep(c, "discover", "unconfigured");
        return;
    }
    char *err = NULL;
    char *work = new_workdir(c->tmp, c->repo, c->excl, c->pl.preserve_mode, &err);
    char *dir = app_dir(work, c->a.path);
    int m = err ? -1 : dir ? match(c, dir, envp, now_ms() + 60000, &err) : -1;
    rep(c, "discover", "%s", m == 1 ? "true" : m == 0 ? "false" : "error");
    if (err)
        rep(c, "discover_error", "%s", err);
    remove_tree(work);
}

static void call_generate(run_ctx *c)
{
    long long start = now_ms();
    double secs = atof(test_setting(&c->a, "deadline", "60"));
    long long deadline = start + (long long)(secs * 1000) - 100; /* cmpTimeoutBuffer */
    rep(c, "deadline_ms", "%lld", deadline - start);
    env req = {0};
    build_env(&c->a, CALL_GENERATE, &req);
    char **envp = final_env(&c->base, &req);
    write_env(c->out, "env.generate", envp);
    char *err = NULL;
    /* a named plugin is contacted on its socket; with discovery configured, the rule must also match */
    if (c->a.plugin_name && *c->a.plugin_name && strcmp(c->a.plugin_name, c->pl.name)) {
        buf b = {0};
        b_printf(&b, "could not find plugin \"%s\": the sidecar's socket is %s.sock", c->a.plugin_name, c->pl.name);
        rep(c, "error", "%s", b.p);
        rep(c, "generate_rc", "not-run");
        return;
    }
    char *work = new_workdir(c->tmp, c->repo, c->excl, c->pl.preserve_mode, &err);
    char *dir = app_dir(work, c->a.path);
    if (err) {
        rep(c, "error", "%s", err);
        rep(c, "generate_rc", "not-run");
        remove_tree(work);
        return;
    }
    if (!dir) {
        rep(c, "error", "illegal appPath: out of workDir bound");
        rep(c, "generate_rc", "not-run");
        remove_tree(work);
        return;
    }
    if (discovery_configured(&c->pl)) {
        int m = match(c, dir, envp, deadline, &err);
        if (m != 1) {
            buf b = {0};
            b_printf(&b, "could not find cmp-server plugin with name \"%s\" supporting the given repository%s%s",
                     c->pl.name, err ? ": " : "", err ? err : "");
            rep(c, "error", "%s", b.p);
            rep(c, "generate_rc", "not-run");
            remove_tree(work);
            return;
        }
    }
    /* The real flow matches on one copy and generates on another. With --plugin-use-manifest-generate-paths the
     * generate copy is only the common root of the path and its manifest-generate-paths (getApplicationRootPath;
     * MatchRepository still gets the whole repository), and the app dir is the path relative to that root. */
    const char *sub = test_setting(&c->a, "generate-paths-root", "");
    rep(c, "sent", "%s", *sub ? sub : ".");
    if (discovery_configured(&c->pl) || *sub) {
        remove_tree(work);
        buf src = {0}, rel = {0};
        b_printf(&src, "%s%s%s", c->repo, *sub ? "/" : "", sub);
        strv sp = split_path(sub), ap = split_path(c->a.path ? c->a.path : "");
        for (size_t i = 0; i < ap.n; i++)
            if (i >= sp.n)
                b_printf(&rel, "%s%s", rel.n ? "/" : "", ap.v[i]);
            else if (strcmp(sp.v[i], ap.v[i]))
                die("generate-paths-root %s is not above the path %s", sub, c->a.path);
        if (sp.n > ap.n)
            die("generate-paths-root %s is not above the path %s", sub, c->a.path);
        work = new_workdir(c->tmp, b_str(&src), c->excl, c->pl.preserve_mode, &err);
        dir = app_dir(work, b_str(&rel));
        if (err) {
            rep(c, "error", "%s", err);
            rep(c, "generate_rc", "not-run");
            remove_tree(work);
            return;
        }
    }
    bool lingering = false, timed_out = false;
    if (c->pl.has_init) {
        result r;
        run_command(substituted(c, &c->pl.init), dir, envp, c->path_env, deadline, &r);
        save_result(c, "init", &r);
        err = command_error(c->pl.init.v, &r);
        lingering |= r.lingering;
        timed_out |= r.timed_out;
        rep(c, "init_rc", "%d", r.exec_error ? -1 : WIFEXITED(r.status) ? WEXITSTATUS(r.status) : 128 + WTERMSIG(r.status));
        rep(c, "init_ms", "%lld", r.ms);
    }
    if (err) {
        rep(c, "error", "%s", err);
        rep(c, "generate_rc", "not-run");
    } else {
        result r;
        run_command(substituted(c, &c->pl.gen), dir, envp, c->path_env, deadline, &r);
        save_result(c, "generate", &r);
        err = command_error(c->pl.gen.v, &r);
        lingering |= r.lingering;
        timed_out |= r.timed_out;
        rep(c, "generate_rc", "%d",
            r.exec_error ? -1 : WIFEXITED(r.status) ? WEXITSTATUS(r.status) : 128 + WTERMSIG(r.status));
        rep(c, "generate_ms", "%lld", r.ms);
        if (err) {
            rep(c, "error", "%s", err);
        } else {
            size_t n = r.out.n;
            if (n && r.out.p[n - 1] == '\n') /* one trailing newline trimmed */
                n--;
            if (!n)
                rep(c, "warning", "Plugin command returned zero output");
            objects o = {0};
            buf perr = {0};
            char path[4096];
            snprintf(path, sizeof path, "%s/objects.tsv", c->out);
            FILE *f = fopen(path, "w");
            if (!f)
                die("%s: %s", path, strerror(errno));
            if (parse_output(r.out.p, n, &o, &perr) < 0) {
                rep(c, "parse_error", "%s", b_str(&perr));
            } else {
                dump_all(f, &o);
                rep(c, "objects", "%zu", o.n);
                rep(c, "lists", "%d", o.lists);
                rep(c, "dupkeys", "%d", o.dupkeys);
            }
            fclose(f);
        }
    }
    rep(c, "timed_out", "%d", timed_out);
    rep(c, "lingering", "%d", lingering);
    rep(c, "elapsed_ms", "%lld", now_ms() - start);
    remove_tree(work);
}

static void call_params(run_ctx *c)
{
    env req = {0};
    build_env(&c->a, CALL_PARAMS, &req);
    char **envp = final_env(&c->base, &req);
    write_env(c->out, "env.params", envp);
    if (!c->pl.has_dyn) {
        rep(c, "params_rc", "not-run");
        return;
    }
    long long deadline = now_ms() + 60000;
    char *err = NULL;
    char *work = new_workdir(c->tmp, c->repo, c->excl, c->pl.preserve_mode, &err);
    char *dir = app_dir(work, c->a.path);
    if (err) {
        rep(c, "params_rc", "not-run");
        rep(c, "params_error", "%s", err);
        remove_tree(work);
        return;
    }
    if (discovery_configured(&c->pl) && (!dir || match(c, dir, envp, deadline, &err) != 1)) {
        rep(c, "params_rc", "not-run");
        rep(c, "params_error", "could not find cmp-server plugin with name \"%s\" supporting the given repository",
            c->pl.name);
        remove_tree(work);
        return;
    }
    result r;
    run_command(substituted(c, &c->pl.dyn), dir, envp, c->path_env, deadline, &r);
    save_result(c, "params", &r);
    rep(c, "params_rc", "%d", r.exec_error ? -1 : WIFEXITED(r.status) ? WEXITSTATUS(r.status) : 128 + WTERMSIG(r.status));
    err = command_error(c->pl.dyn.v, &r);
    if (err) {
        rep(c, "params_error", "%s", err);
    } else {
        size_t n = r.out.n;
        if (n && r.out.p[n - 1] == '\n')
            n--;
        objects o = {0};
        buf perr = {0};
        if (parse_params(r.out.p, n, &o, &perr) < 0) {
            rep(c, "params_error", "error unmarshaling dynamic parameters: %s", b_str(&perr));
        } else {
            char path[4096];
            snprintf(path, sizeof path, "%s/params.tsv", c->out);
            FILE *f = fopen(path, "w");
            if (!f)
                die("%s: %s", path, strerror(errno));
            dump_all(f, &o);
            fclose(f);
            buf names = {0};
            b_put(&names, "", 0);
            for (size_t i = 0; i < o.n; i++)
                b_printf(&names, "%s%s", i ? "," : "", sget(o.v[i], "name", NULL) ? sget(o.v[i], "name", NULL) : "");
            rep(c, "params_ok", "1");
            rep(c, "params_count", "%zu", o.n);
            rep(c, "params_names", "%s", names.p);
        }
    }
    remove_tree(work);
}

static void del(node *m, const char *key)
{
    for (size_t i = 0; m && m->t == T_MAP && i < m->n; i++)
        if (!strcmp(m->k[i], key)) {
            memmove(m->k + i, m->k + i + 1, (m->n - i - 1) * sizeof *m->k);
            memmove(m->v + i, m->v + i + 1, (m->n - i - 1) * sizeof *m->v);
            m->n--;
            return;
        }
}

/* RFC 7386, as jsonpatch.MergePatch applies it: objects merge key by key, null deletes, anything else replaces */
static node *merge_patch(node *target, const node *patch)
{
    if (!patch || patch->t != T_MAP)
        return (node *)patch;
    if (!target || target->t != T_MAP)
        target = mk(T_MAP, NULL);
    for (size_t i = 0; i < patch->n; i++) {
        if (patch->v[i]->t == T_NULL)
            del(target, patch->k[i]);
        else
            add(target, patch->k[i], merge_patch(get(target, patch->k[i]), patch->v[i]));
    }
    return target;
}

/* repository.go mergeSourceParameters: .argocd-source.yaml, then .argocd-source-<appName>.yaml, from the app path,
 * merged over spec.source; chart, path, repoURL and targetRevision stay the Application's. */
static node *merge_overrides(run_ctx *c, node *src, const char *repo_app_dir)
{
    char files[2][PATH_MAX];
    snprintf(files[0], sizeof files[0], "%s/.argocd-source.yaml", repo_app_dir);
    snprintf(files[1], sizeof files[1], "%s/.argocd-source-%s.yaml", repo_app_dir, c->a.instance);
    buf applied = {0};
    b_put(&applied, "", 0);
    node *merged = src ? src : mk(T_MAP, NULL);
    for (int i = 0; i < 2; i++) {
        struct stat st;
        if (stat(files[i], &st) < 0 || S_ISDIR(st.st_mode))
            continue;
        node *patch = load_file_yaml(files[i]);
        const char *keep[] = {"chart", "path", "repoURL", "targetRevision"};
        node *saved[4];
        for (int k = 0; k < 4; k++)
            saved[k] = get(merged, keep[k]);
        merged = merge_patch(merged, patch);
        for (int k = 0; k < 4; k++) {
            del(merged, keep[k]);
            if (saved[k])
                add(merged, keep[k], saved[k]);
        }
        b_printf(&applied, "%s%s", applied.n ? "," : "", strrchr(files[i], '/') + 1);
    }
    rep(c, "overrides", "%s", applied.p);
    return merged;
}

static int socket_cmp(const plugin *a, const plugin *b)
{
    char sa[4096], sb[4096];
    snprintf(sa, sizeof sa, "%s.sock", a->name);
    snprintf(sb, sizeof sb, "%s.sock", b->name);
    return strcmp(sa, sb);
}

/* Which sidecar serves the Application (util/app/discovery/discovery.go DetectConfigManagementPlugin): a name
 * dials that socket; no name probes, in socket-name order, the plugins that have discovery. false: none. */
static bool select_plugin(run_ctx *c)
{
    const char *want = c->a.plugin_name && *c->a.plugin_name ? c->a.plugin_name : NULL;
    if (want) {
        for (size_t i = 0; i < c->nall; i++)
            if (!strcmp(c->all[i].name, want)) {
                c->pl = c->all[i];
                return true;
            }
        c->pl = c->all[0]; /* reported as unreachable by call_generate */
        return true;
    }
    size_t *order = xrealloc(NULL, (c->nall + 1) * sizeof *order);
    for (size_t i = 0; i < c->nall; i++)
        order[i] = i;
    for (size_t i = 1; i < c->nall; i++) /* insertion sort by socket file name (os.ReadDir: "a-b.sock" < "a.sock") */
        for (size_t k = i; k > 0 && socket_cmp(&c->all[order[k - 1]], &c->all[order[k]]) > 0; k--) {
            size_t t = order[k];
            order[k] = order[k - 1];
            order[k - 1] = t;
        }
    /* an Application with no plugin key is probed for type detection with the ARGOCD_APP_* variables alone;
     * plugin: {} is probed by runConfigManagementPluginSidecars, with the generate env */
    env req = {0};
    build_env(&c->a, c->a.has_plugin ? CALL_GENERATE : CALL_DETECT, &req);
    char **envp = final_env(&c->base, &req);
    write_env(c->out, "env.detect", envp);
    buf probed = {0};
    b_put(&probed, "", 0);
    bool found = false;
    char *last = NULL;
    for (size_t i = 0; i < c->nall && !found; i++) {
        c->pl = c->all[order[i]];
        if (!discovery_configured(&c->pl))
            continue;
        b_printf(&probed, "%s%s", probed.n ? "," : "", c->pl.name);
        char *err = NULL;
        char *work = new_workdir(c->tmp, c->repo, c->excl, c->pl.preserve_mode, &err);
        char *dir = app_dir(work, c->a.path);
        found = !err && dir && match(c, dir, envp, now_ms() + 60000, &err) == 1;
        if (err)
            last = err;
        remove_tree(work);
    }
    rep(c, "probed", "%s", probed.p);
    free(order);
    if (!found) {
        rep(c, "error", "could not find plugin supporting the given repository%s%s", last ? ": " : "",
            last ? last : "");
        rep(c, "generate_rc", "not-run");
        rep(c, "params_rc", "not-run");
    }
    return found;
}

static int cmd_run(int argc, char **argv)
{
    run_ctx c;
    memset(&c, 0, sizeof c);
    const char *app_file = NULL, *repos = NULL;
    strv configs = {0};
    for (int i = 0; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            die("%s needs a value", o);
        i++;
        if (!strcmp(o, "--config"))
            sv_push(&configs, v);
        else if (!strcmp(o, "--app"))
            app_file = v;
        else if (!strcmp(o, "--repos"))
            repos = v;
        else if (!strcmp(o, "--out"))
            c.out = v;
        else if (!strcmp(o, "--tmp"))
            c.tmp = v;
        else if (!strcmp(o, "--subst"))
            sv_push(&c.subst, v);
        else if (!strcmp(o, "--set"))
            sv_push(&c.a.set, v);
        else if (!strcmp(o, "--env")) {
            char *eq = strchr(v, '=');
            if (!eq)
                die("--env wants NAME=VALUE");
            char *name = xstrndup(v, (size_t)(eq - v));
            env_set(&c.base, name, eq + 1);
            if (!strcmp(name, "PATH"))
                c.path_env = eq + 1;
            free(name);
        } else
            die("unknown option %s", o);
    }
    if (!configs.n || !app_file || !repos || !c.out)
        die("run needs --config, --app, --repos and --out");
    if (!c.tmp)
        c.tmp = "/tmp";
    c.all = xrealloc(NULL, configs.n * sizeof *c.all);
    for (size_t i = 0; i < configs.n; i++)
        read_plugin(configs.v[i], &c.all[c.nall++]);
    node *a = load_file_yaml(app_file);
    app *ap = &c.a;
    ap->name = sget(a, "metadata", "name", NULL);
    const char *app_ns = sget(a, "metadata", "namespace", NULL);
    if (!ap->name)
        die("%s: metadata.name is required", app_file);
    /* InstanceName: <namespace>_<name> when the app lives outside the control-plane namespace (argocd) */
    if (app_ns && *app_ns && strcmp(app_ns, "argocd")) {
        buf b = {0};
        b_printf(&b, "%s_%s", app_ns, ap->name);
        ap->instance = b.p;
    } else {
        ap->instance = ap->name;
    }
    ap->annotations = nget(a, "metadata", "annotations", NULL);
    ap->project = sget(a, "spec", "project", NULL);
    ap->dest_ns = sget(a, "spec", "destination", "namespace", NULL);
    node *src = (node *)nget(a, "spec", "source", NULL);
    ap->path = sget(src, "path", NULL);
    if (!ap->path) /* no path: the repository root, and ARGOCD_APP_SOURCE_PATH is the empty spec.source.path */
        ap->path = "";
    const char *repo = test_setting(ap, "repo", NULL);
    if (!repo)
        die("%s: no cmp-server.test/repo annotation and no --set repo=", app_file);
    buf rb = {0};
    b_printf(&rb, "%s/%s", repos, repo);
    c.repo = rb.p;
    struct stat st;
    if (stat(c.repo, &st) < 0 || !S_ISDIR(st.st_mode))
        die("repository %s: not a directory", c.repo);
    c.excl = test_setting(ap, "tar-exclude", NULL);
    mkdir(c.out, 0755);
    char *repo_app = app_dir(c.repo, ap->path);
    if (repo_app)
        src = merge_overrides(&c, src, repo_app);
    ap->repo_url = sget(src, "repoURL", NULL);
    ap->target_rev = sget(src, "targetRevision", NULL);
    const node *plug = get(src, "plugin");
    ap->has_plugin = plug != NULL;
    ap->plugin_name = sget(plug, "name", NULL);
    ap->env = get(plug, "env");
    ap->params = get(plug, "parameters");
    rep(&c, "app_name", "%s", ap->instance);
    if (select_plugin(&c)) {
        rep(&c, "plugin", "%s", c.pl.name);
        call_match(&c);
        call_generate(&c);
        call_params(&c);
    }
    write_file(c.out, "report", b_str(&c.report), c.report.n);
    return 0;
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    prctl(PR_SET_CHILD_SUBREAPER, 1); /* orphans of a plugin's process group come back to us to be reaped */
    if (argc >= 2 && !strcmp(argv[1], "run"))
        return cmd_run(argc - 2, argv + 2);
    if (argc == 2 && (!strcmp(argv[1], "parse") || !strcmp(argv[1], "params"))) {
        buf in = {0}, err = {0};
        read_all(stdin, &in);
        size_t n = in.n;
        if (n && in.p[n - 1] == '\n')
            n--;
        objects o = {0};
        int rc = !strcmp(argv[1], "parse") ? parse_output(in.p, n, &o, &err) : parse_params(in.p, n, &o, &err);
        if (rc < 0) {
            fprintf(stderr, "%s\n", b_str(&err));
            return 1;
        }
        dump_all(stdout, &o);
        if (o.lists)
            fprintf(stderr, "lists=%d\n", o.lists);
        return 0;
    }
    fputs("usage: cmp-server run --config plugin.yaml [--config ...] --app app.yaml --repos DIR --out DIR [--tmp DIR]\n"
          "                      [--subst FROM=TO]... [--env NAME=VALUE]... [--set KEY=VALUE]...\n"
          "       cmp-server parse < generate-stdout\n"
          "       cmp-server params < parameters-stdout\n",
          stderr);
    return 2;
}
