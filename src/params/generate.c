/* The generator's work: the repository fetched through the cache `pkg get` uses, its Kptfiles found in the tree of
 * the resolved commit and read with the loader `render` uses, one element per package. Runs under the server's one
 * work lock: everything here shares the process's libgit2, fetch cache, loader counts and diagnostics record. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "params/internal.h"
#include "params/json.h"
#include "package/package.h"
#include "pipeline/kptfile.h"
#include "util/diag.h"
#include "util/fsutil.h"
#include "util/url.h"
#include "yaml/tree.h"

long long params_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static long long now_ms(void)
{
    return params_now_ns() / 1000000;
}

/* One package as the listing keeps it: its element's JSON, and its labels for the selector. */
typedef struct pkg_rec {
    char *path, *json;
    char **lkeys, **lvalues;
    size_t nl;
} pkg_rec;

/* Packages found at one (repository, commit, paths, exclude), kept CMP_PARAMS_CACHE_SECONDS. */
typedef struct listing {
    char *key;
    size_t keylen;
    long long made_ms;
    pkg_rec *v;
    size_t n, bytes;
    struct listing *next;
} listing;

/* The last fetch of a repository that succeeded, by when it began: a request that arrived before that serves
 * itself from it (a burst of refreshes costs one fetch), one that arrived after fetches again (it may follow a
 * push the fetch did not see). */
typedef struct fetched {
    char *key;
    long long started_ns;
    struct fetched *next;
} fetched;

static listing *listings;
static fetched *fetches;
#define MAX_LISTINGS 256
#define MAX_CACHED_BYTES ((size_t)256 << 20) /* the elements the cache holds, all listings together */
#define MAX_FETCHED 1024

static void rec_free(pkg_rec *p)
{
    free(p->path);
    free(p->json);
    for (size_t i = 0; i < p->nl; i++) {
        free(p->lkeys[i]);
        free(p->lvalues[i]);
    }
    free(p->lkeys);
    free(p->lvalues);
}

static void listing_free(listing *l)
{
    for (size_t i = 0; i < l->n; i++)
        rec_free(&l->v[i]);
    free(l->v);
    free(l->key);
    free(l);
}

static char *xdup(const char *s)
{
    char *d = strdup(s);
    if (!d)
        abort();
    return d;
}

static char *msg(const char *fmt, const char *a, const char *b)
{
    size_t n = (size_t)snprintf(NULL, 0, fmt, a, b) + 1;
    char *m = malloc(n);
    if (!m)
        abort();
    snprintf(m, n, fmt, a, b);
    return m;
}

/* The key: every part NUL-terminated, so no two requests' parts run together. */
static char *listing_key(const params_request *r, const char *commit, size_t *len)
{
    char *k = NULL;
    size_t n = 0, cap = 0;
    json_put_raw(&k, &n, &cap, SIZE_MAX, r->repo_url, strlen(r->repo_url) + 1);
    json_put_raw(&k, &n, &cap, SIZE_MAX, commit, strlen(commit) + 1);
    for (size_t i = 0; i < r->npaths; i++)
        json_put_raw(&k, &n, &cap, SIZE_MAX, r->paths[i], strlen(r->paths[i]) + 1);
    json_put_raw(&k, &n, &cap, SIZE_MAX, "\1", 2); /* between the two lists: no glob is "\1" alone (1 byte, not) */
    for (size_t i = 0; i < r->nexclude; i++)
        json_put_raw(&k, &n, &cap, SIZE_MAX, r->exclude[i], strlen(r->exclude[i]) + 1);
    *len = n;
    return k;
}

static listing *cached(const char *key, size_t len, long long ttl_ms)
{
    long long now = now_ms();
    for (listing **p = &listings; *p;) {
        listing *l = *p;
        if (now - l->made_ms > ttl_ms) { /* expired: gone */
            *p = l->next;
            listing_free(l);
            continue;
        }
        if (l->keylen == len && !memcmp(l->key, key, len))
            return l;
        p = &l->next;
    }
    return NULL;
}

static void keep(listing *l)
{
    size_t n = 0, bytes = l->bytes;
    listing **last = NULL;
    for (listing **p = &listings; *p; p = &(*p)->next)
        if (++n >= MAX_LISTINGS || (bytes += (*p)->bytes) > MAX_CACHED_BYTES) {
            last = p;
            break;
        }
    if (last) { /* the oldest go: new ones are put first */
        listing *drop = *last;
        *last = NULL;
        while (drop) {
            listing *next = drop->next;
            listing_free(drop);
            drop = next;
        }
    }
    l->next = listings;
    listings = l;
}

static fetched *fetch_record(const char *key)
{
    size_t n = 0;
    for (fetched *f = fetches; f; f = f->next, n++)
        if (!strcmp(f->key, key))
            return f;
    if (n >= MAX_FETCHED) { /* forget them all: the next request of each fetches, which is always right */
        while (fetches) {
            fetched *next = fetches->next;
            free(fetches->key);
            free(fetches);
            fetches = next;
        }
    }
    fetched *f = calloc(1, sizeof *f);
    if (!f)
        abort();
    f->key = xdup(key);
    f->next = fetches;
    fetches = f;
    return f;
}

typedef struct builder {
    arena *a;
    strtab *st;
    const params_opts *o;
    const params_request *r;
    const char *commit, *repo_name;
    pkg_rec *v;
    size_t n, cap, bytes;
    long long deadline_ms;
} builder;

/* 1: paths selects it and exclude does not; 0: not; -1: the globs cost more than PARAMS_MATCH_STEPS on it (each
 * glob costs up to pattern x path bytes: 512 globs on a 4096-byte path would be billions of steps). */
static int path_wanted(const builder *b, const char *path)
{
    long long left = PARAMS_MATCH_STEPS;
    int in = 0;
    for (size_t i = 0; in == 0 && i < b->r->npaths; i++)
        in = params_glob_match_steps(b->r->paths[i], path, &left);
    for (size_t i = 0; in == 1 && i < b->r->nexclude; i++) {
        int ex = params_glob_match_steps(b->r->exclude[i], path, &left);
        in = ex < 0 ? -1 : !ex;
    }
    if (in < 0)
        return fail(NULL, 0, "matching paths and exclude against \"%.200s%s\" takes more than %lld steps; use "
                    "fewer or simpler globs", path, strlen(path) > 200 ? "..." : "", PARAMS_MATCH_STEPS);
    return in;
}

static int put_kv(char **o, size_t *n, size_t *cap, bool *first, const char *k, const char *v)
{
    if (!v)
        return 0;
    json_put_raw(o, n, cap, SIZE_MAX, *first ? "" : ",", *first ? 0 : 1);
    *first = false;
    json_put_string(o, n, cap, SIZE_MAX, k);
    json_put_raw(o, n, cap, SIZE_MAX, ":", 1);
    json_put_string(o, n, cap, SIZE_MAX, v);
    return 0;
}

static int cmp_label(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Kubernetes' label rules (apimachinery validation.IsQualifiedName, IsValidLabelValue), which kpt applies too:
 * why `s` is refused, or NULL. */
static bool label_char(char c, bool inner)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (inner && (c == '-' || c == '_' || c == '.'));
}

static const char *label_name_invalid(const char *s, size_t n)
{
    if (n == 0)
        return "has an empty name part";
    if (n > 63)
        return "has a name part longer than 63 bytes";
    for (size_t i = 0; i < n; i++)
        if (!label_char(s[i], i > 0 && i + 1 < n))
            return "is not alphanumerics with '-', '_' or '.' inside";
    return NULL;
}

static const char *label_key_invalid(const char *k)
{
    const char *slash = strchr(k, '/');
    if (!slash)
        return label_name_invalid(k, strlen(k));
    size_t pl = (size_t)(slash - k);
    if (pl == 0 || pl > 253)
        return "has a prefix that is not 1 to 253 bytes";
    for (size_t i = 0; i < pl; i++) {
        char c = k[i];
        bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (!alnum && !((c == '-' || c == '.') && i > 0 && i + 1 < pl))
            return "has a prefix that is not a DNS subdomain";
    }
    return label_name_invalid(slash + 1, strlen(slash + 1));
}

static const char *label_value_invalid(const char *v)
{
    size_t n = strlen(v);
    if (n > 63)
        return "is longer than 63 bytes";
    return n ? label_name_invalid(v, n) : NULL;
}

/* The element of one package; keys in byte order, every scalar a string, no empty map or list, no key with a dot
 * (the controller's flattening would make it ambiguous), never the reserved `generator` or `values`. */
static int element(builder *b, pkg_rec *p, const char *display, const node *k)
{
    const char *path = p->path;
    const char *base = strrchr(path, '/');
    base = !strcmp(path, ".") ? b->repo_name : base ? base + 1 : path;
    char norm[254];
    params_sanitize_name(base, norm, sizeof norm);
    const char *name = path_str(k, "metadata", "name", NULL);
    const char *description = path_str(k, "info", "description", NULL);
    const node *labels = path_get(k, "metadata", "labels", NULL);
    const node *git = path_get(k, "upstreamLock", "git", NULL);

    /* labels: the selector sees them as written; the element with '.' in names made '_' */
    size_t nl = labels && is_map(labels) ? node_len(labels) : 0;
    /* Refused first, as Kubernetes refuses them, before any copy: a value is at most 63 bytes, so a YAML alias (one
     * node, any number of uses) cannot multiply a large string into the listing. */
    /* every text copied into the element, twice over for JSON escaping ("\"" for '"'): one node may be used by
     * alias in several fields */
    size_t est = 256 + 4 * strlen(path) + 2 * strlen(b->r->repo_url) + 2 * (description ? strlen(description) : 0) +
                 2 * (name ? strlen(name) : 0);
    static const char *const up_fields[] = {"repo", "directory", "ref", "commit"};
    for (size_t i = 0; i < 4; i++) {
        const char *u = path_str(path_get(k, "upstreamLock", "git", NULL), up_fields[i], NULL);
        est += 2 * (u ? strlen(u) : 0) + 32;
    }
    for (uint32_t i = 0; i < nl; i++) {
        const char *lk = scalar(map_key(labels, i));
        const node *lv = map_val(labels, i);
        const char *vs = is_null(lv) || !scalar(lv) ? "" : scalar(lv);
        const char *why = label_key_invalid(lk ? lk : "");
        if (why)
            return fail(display, 0, "metadata.labels: the name \"%.80s%s\" %s (as Kubernetes validates labels)",
                        lk ? lk : "", lk && strlen(lk) > 80 ? "..." : "", why);
        if ((why = label_value_invalid(vs)))
            return fail(display, 0, "metadata.labels.%s: the value \"%.80s%s\" %s (as Kubernetes validates labels)",
                        lk, vs, strlen(vs) > 80 ? "..." : "", why);
        est += 2 * (strlen(lk) + strlen(vs)) + 8;
    }
    if (b->bytes + est > PARAMS_MAX_LISTING)
        return fail(NULL, 0, "the packages' elements pass %zu MiB (%zu packages so far); narrow paths or exclude",
                    PARAMS_MAX_LISTING >> 20, b->n);
    p->lkeys = calloc(nl + 1, sizeof *p->lkeys);
    p->lvalues = calloc(nl + 1, sizeof *p->lvalues);
    char **shown = calloc(nl + 1, sizeof *shown);
    if (!p->lkeys || !p->lvalues || !shown)
        abort();
    int rc = 0;
    for (uint32_t i = 0; i < nl; i++) {
        const char *lk = scalar(map_key(labels, i));
        const node *lv = map_val(labels, i);
        p->lkeys[i] = xdup(lk ? lk : "");
        p->lvalues[i] = xdup(is_null(lv) || !scalar(lv) ? "" : scalar(lv)); /* numbers as written: strings */
        p->nl++;
        /* shown[i]: "<escaped key>\0<value>" so that sorting by it sorts by key */
        size_t kl = strlen(p->lkeys[i]), vl = strlen(p->lvalues[i]);
        shown[i] = malloc(kl + vl + 2);
        if (!shown[i])
            abort();
        for (size_t c = 0; c < kl; c++)
            shown[i][c] = p->lkeys[i][c] == '.' ? '_' : p->lkeys[i][c];
        shown[i][kl] = 0;
        memcpy(shown[i] + kl + 1, p->lvalues[i], vl + 1);
    }
    if (nl)
        qsort(shown, nl, sizeof *shown, cmp_label);
    for (size_t i = 1; rc == 0 && i < nl; i++)
        if (!strcmp(shown[i - 1], shown[i]))
            rc = fail(display, 0, "labels: two names become \"kptfile.labels.%s\" once '.' is made '_'", shown[i]);

    char *o = NULL;
    size_t n = 0, cap = 0;
    bool first = true;
    json_put_raw(&o, &n, &cap, SIZE_MAX, "{\"kptfile\":{", 12);
    put_kv(&o, &n, &cap, &first, "description", description ? description : "");
    if (nl) {
        json_put_raw(&o, &n, &cap, SIZE_MAX, ",\"labels\":{", 11);
        bool lf = true;
        for (size_t i = 0; i < nl; i++)
            put_kv(&o, &n, &cap, &lf, shown[i], shown[i] + strlen(shown[i]) + 1);
        json_put_raw(&o, &n, &cap, SIZE_MAX, "}", 1);
    }
    json_put_raw(&o, &n, &cap, SIZE_MAX, "},", 2);
    first = true;
    put_kv(&o, &n, &cap, &first, "name", name && *name ? name : base);
    json_put_raw(&o, &n, &cap, SIZE_MAX, ",\"path\":{", 9);
    first = true;
    put_kv(&o, &n, &cap, &first, "basename", base);
    put_kv(&o, &n, &cap, &first, "basenameNormalized", norm);
    put_kv(&o, &n, &cap, &first, "path", path);
    if (strcmp(path, ".")) {
        json_put_raw(&o, &n, &cap, SIZE_MAX, ",\"segments\":[", 13);
        for (const char *s = path; *s;) {
            size_t l = strcspn(s, "/");
            char *seg = strndup(s, l);
            if (!seg)
                abort();
            if (s != path)
                json_put_raw(&o, &n, &cap, SIZE_MAX, ",", 1);
            json_put_string(&o, &n, &cap, SIZE_MAX, seg);
            free(seg);
            s += l + (s[l] == '/');
        }
        json_put_raw(&o, &n, &cap, SIZE_MAX, "]", 1);
    }
    json_put_raw(&o, &n, &cap, SIZE_MAX, "},", 2);
    first = true;
    put_kv(&o, &n, &cap, &first, "repoURL", b->r->repo_url);
    put_kv(&o, &n, &cap, &first, "revision", b->commit);
    const char *ur = path_str(git, "repo", NULL), *ud = path_str(git, "directory", NULL);
    const char *uref = path_str(git, "ref", NULL), *uc = path_str(git, "commit", NULL);
    if (ur || ud || uref || uc) {
        json_put_raw(&o, &n, &cap, SIZE_MAX, ",\"upstream\":{", 13);
        first = true;
        put_kv(&o, &n, &cap, &first, "commit", uc);
        put_kv(&o, &n, &cap, &first, "directory", ud);
        put_kv(&o, &n, &cap, &first, "ref", uref);
        put_kv(&o, &n, &cap, &first, "repo", ur);
        json_put_raw(&o, &n, &cap, SIZE_MAX, "}", 1);
    }
    json_put_raw(&o, &n, &cap, SIZE_MAX, "}", 1);
    p->json = o;
    for (size_t i = 0; i < nl; i++)
        free(shown[i]);
    free(shown);
    return rc;
}

/* One Kptfile of the tree (git/git.h gitsrc_file_fn). */
static int take_kptfile(void *ud, const char *dir, const char *data, size_t len)
{
    builder *b = ud;
    const char *path = *dir ? dir : ".";
    if (now_ms() > b->deadline_ms) /* before the matching, which may itself cost */
        return fail(NULL, 0, "reading the Kptfiles ran past the time budget");
    int want = path_wanted(b, path);
    if (want <= 0)
        return want;
    if (b->n >= b->o->s.max_packages)
        return fail(NULL, 0, "more than %u packages match (CMP_PARAMS_MAX_PACKAGES); narrow paths or exclude",
                    b->o->s.max_packages);
    /* each Kptfile in an arena of its own, gone once its element is made: memory holds one Kptfile's tree at a
     * time, whatever the number of packages */
    arena *fa = arena_new();
    strtab *fst = strtab_new(fa);
    const char *display = *dir ? arena_printf(fa, "%s/Kptfile", dir) : "Kptfile";
    /* the reader render uses: YAML limits, the KRM check, one document */
    load_ctx c = {.a = fa, .st = fst, .limits = b->o->limits};
    rlist list = {0};
    int rc = load_resources_from_text(&c, NULL, "Kptfile", display, data, len, &list);
    if (rc == 0 && list.n != 1)
        rc = fail(display, 0, list.n ? "Kptfile holds more than one document" : "Kptfile is empty");
    if (rc == 0)
        rc = kptfile_check(display, list.v[0]->root);
    if (rc == 0) {
        if (b->n == b->cap) {
            b->cap = b->cap ? b->cap * 2 : 64;
            b->v = realloc(b->v, b->cap * sizeof *b->v);
            if (!b->v)
                abort();
        }
        pkg_rec *p = &b->v[b->n++];
        memset(p, 0, sizeof *p);
        p->path = xdup(path);
        rc = element(b, p, display, list.v[0]->root);
    }
    rlist_free(&list);
    xfree(c.non_krm);
    strtab_release(fst);
    arena_free(fa);
    if (rc == 0 && (b->bytes += strlen(b->v[b->n - 1].json)) > PARAMS_MAX_LISTING)
        rc = fail(NULL, 0, "the packages' elements pass %zu MiB (%zu packages so far); narrow paths or exclude",
                  PARAMS_MAX_LISTING >> 20, b->n);
    return rc;
}

static int cmp_rec(const void *x, const void *y)
{
    return strcmp(((const pkg_rec *)x)->path, ((const pkg_rec *)y)->path);
}

static const char *repo_name(arena *a, const char *url)
{
    size_t n = strlen(url);
    while (n && url[n - 1] == '/')
        n--;
    size_t s = n;
    while (s && url[s - 1] != '/' && url[s - 1] != ':')
        s--;
    if (n - s > 4 && !strncmp(url + n - 4, ".git", 4))
        n -= 4;
    return n > s ? arena_strndup(a, url + s, n - s) : "repository";
}

static bool selected(const pkg_rec *p, const params_request *r)
{
    for (size_t i = 0; i < r->nsel; i++) {
        bool hit = false;
        for (size_t j = 0; !hit && j < p->nl; j++)
            hit = !strcmp(p->lkeys[j], r->sel_keys[i]) && !strcmp(p->lvalues[j], r->sel_values[i]);
        if (!hit)
            return false;
    }
    return true;
}

int params_generate(const params_opts *o, const params_request *r, long long arrival_ns, long long deadline_ms,
                    char **body, size_t *len, int *packages)
{
    diag_reset();
    diag_set_step("serve-params");
    reads_counted_reset();
    *packages = -1;
    arena *a = arena_new();
    int status = 200;
    pkg_source src = {.url = r->repo_url, .key = url_strip_credentials(a, r->repo_url), .directory = "/",
                      .ref = r->revision, .deadline_ms = deadline_ms};
    src.repo = src.key;
    fetched *f = fetch_record(src.key);
    src.no_fetch = f->started_ns > arrival_ns;
    long long started = params_now_ns();
    const char *commit = NULL;
    if (gitsrc_remote_commit(a, &o->git, &src, &commit) < 0) {
        status = now_ms() > deadline_ms ? 503 : 502;
        goto failed;
    }
    if (!src.no_fetch)
        f->started_ns = started;
    size_t klen;
    char *key = listing_key(r, commit, &klen);
    listing *l = cached(key, klen, (long long)o->s.cache_s * 1000);
    if (!l) {
        builder b = {a, NULL, o, r, commit, repo_name(a, src.key), NULL, 0, 0, 0, deadline_ms};
        int rc = gitsrc_tree_files(a, &o->git, &src, commit, "Kptfile", PARAMS_MAX_DEPTH, PARAMS_MAX_ENTRIES,
                                   PARAMS_MAX_KPTFILE, take_kptfile, &b);
        if (rc < 0) {
            for (size_t i = 0; i < b.n; i++)
                rec_free(&b.v[i]);
            free(b.v);
            free(key);
            status = now_ms() > deadline_ms ? 503 : 500;
            goto failed;
        }
        if (b.n)
            qsort(b.v, b.n, sizeof *b.v, cmp_rec);
        l = calloc(1, sizeof *l);
        if (!l)
            abort();
        *l = (listing){key, klen, now_ms(), b.v, b.n, b.bytes, NULL};
        keep(l);
    } else {
        free(key);
    }
    char *out = NULL;
    size_t n = 0, cap = 0;
    int count = 0;
    bool over = json_put_raw(&out, &n, &cap, PARAMS_MAX_ANSWER, "{\"output\":{\"parameters\":[", 25) < 0;
    for (size_t i = 0; !over && i < l->n; i++) {
        if (!selected(&l->v[i], r))
            continue;
        over = (count && json_put_raw(&out, &n, &cap, PARAMS_MAX_ANSWER, ",", 1) < 0) ||
               json_put_raw(&out, &n, &cap, PARAMS_MAX_ANSWER, l->v[i].json, strlen(l->v[i].json)) < 0;
        count++;
    }
    over = over || json_put_raw(&out, &n, &cap, PARAMS_MAX_ANSWER, "]}}", 3) < 0;
    if (over) {
        free(out);
        *body = msg("the answer would be larger than 4 MiB (%s packages match); narrow paths, exclude or "
                    "labelSelector%s",
                    arena_printf(a, "%zu+", l->n), "");
        *len = strlen(*body);
        arena_free(a);
        return 500;
    }
    *body = out;
    *len = n;
    *packages = count;
    arena_free(a);
    return 200;
failed:
    *body = msg("%s%s", diag_message(), "");
    *len = strlen(*body);
    arena_free(a);
    return status;
}
