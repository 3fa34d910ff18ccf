/* The fetch cache: one bare repository per source URL, mirroring the remote's branches and tags, guarded by flock. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "git/cache.h"
#include "util/fsutil.h"
#include "util/diag.h"

static const char *cache_root(arena *a, const gitsrc_env *env)
{
    const char *x = env->cache_home;
    if (x && x[0] == '/') /* the XDG spec ignores relative values */
        return arena_printf(a, "%s/cmp-generate/git", x);
    const char *t = env->tmpdir;
    if (!t || t[0] != '/')
        t = "/tmp";
    return arena_printf(a, "%s/cmp-generate-%u/git", t, (unsigned)getuid());
}

/* Ours and writable by nobody else, so no other user can plant objects or refs in it. */
static int check_private(const char *dir)
{
    struct stat st;
    if (lstat(dir, &st) != 0)
        return fail(dir, 0, "cache: %s", strerror(errno));
    if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 022))
        return fail(dir, 0, "cache: not a directory private to this user (check its owner and mode)");
    return 0;
}

/* The URL as the cache is keyed: repeated '/' after the scheme made one, then a trailing '/' dropped, so that the
 * spellings of one repository share one clone (https://h/o/r.git, https://h//o/r.git/). ".git" stays: on a plain
 * git server r and r.git are two repositories, and a commit fetched from one must never be served as the other's. */
static const char *cache_key(arena *a, const char *url)
{
    char *k = arena_strdup(a, url);
    const char *sep = strstr(k, "://");
    size_t start = sep ? (size_t)(sep - k) + 3 : 0, n = start;
    for (size_t i = start; k[i]; i++)
        if (!(k[i] == '/' && n > start && k[n - 1] == '/'))
            k[n++] = k[i];
    k[n] = 0;
    while (n > start + 1 && k[n - 1] == '/')
        k[--n] = 0;
    return k;
}

/* "<last path component>-<16 hex of the normalised URL's hash>": readable, and distinct per repository. */
static const char *cache_name(arena *a, const char *url)
{
    const char *key = cache_key(a, url);
    git_oid oid;
    char hex[GIT_OID_HEXSZ + 1];
    git_odb_hash(&oid, key, strlen(key), GIT_OBJECT_BLOB);
    git_oid_tostr(hex, sizeof hex, &oid);
    size_t n = strlen(key);
    while (n && (key[n - 1] == '/'))
        n--;
    size_t s = n;
    while (s && key[s - 1] != '/' && key[s - 1] != ':')
        s--;
    if (n - s > 4 && !strncmp(key + n - 4, ".git", 4))
        n -= 4;
    char stem[41];
    size_t m = 0;
    for (size_t i = s; i < n && m < 40; i++) {
        char c = key[i];
        stem[m++] = (('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') || c == '.' ||
                     c == '_' || c == '-')
                        ? c
                        : '_';
    }
    stem[m] = 0;
    return arena_printf(a, "%s-%.16s", m && stem[0] != '.' ? stem : "repo", hex);
}

struct creds {
    int calls;
    bool agent_tried;
    const pkg_source *src;
};

/* libgit2 applies user:password from an https URL itself; this adds the ssh agent and a bare user name. */
static int cred_cb(git_credential **out, const char *url, const char *user, unsigned int allowed, void *payload)
{
    struct creds *c = payload;
    if (++c->calls > 3)
        return GIT_PASSTHROUGH;
    if ((allowed & GIT_CREDENTIAL_SSH_KEY) && !c->agent_tried) {
        c->agent_tried = true;
        return git_credential_ssh_key_from_agent(out, user ? user : "git");
    }
    if ((allowed & GIT_CREDENTIAL_USERNAME) && user)
        return git_credential_username_new(out, user);
    return GIT_PASSTHROUGH;
}

/* libgit2's message with the URL's password (if any) masked. */
static const char *scrubbed_message(arena *a, const char *url)
{
    const char *msg = gitsrc_last_message();
    size_t auth = gitsrc_url_authority(url);
    if (!auth)
        return msg;
    const char *at = memchr(url + auth, '@', strcspn(url + auth, "/"));
    const char *colon = at ? memchr(url + auth, ':', (size_t)(at - (url + auth))) : NULL;
    if (!colon || colon + 1 == at)
        return msg;
    char *secret = arena_strndup(a, colon + 1, (size_t)(at - colon - 1));
    buf b = {0};
    for (const char *p = msg; *p;) {
        const char *hit = strstr(p, secret);
        if (!hit) {
            buf_puts(&b, p);
            break;
        }
        buf_put(&b, p, (size_t)(hit - p));
        buf_puts(&b, "***");
        p = hit + strlen(secret);
    }
    const char *r = arena_strdup(a, b.len ? buf_cstr(&b) : "");
    buf_free(&b);
    return r;
}

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* serve-params's budget: libgit2 abandons the transfer when a progress callback returns non-zero */
static int past_deadline(const pkg_source *src)
{
    return src->deadline_ms && now_ms() > src->deadline_ms ? -1 : 0;
}

static int on_transfer(const git_indexer_progress *stats, void *payload)
{
    (void)stats;
    return past_deadline(((struct creds *)payload)->src);
}

static int on_sideband(const char *str, int len, void *payload)
{
    (void)str, (void)len;
    return past_deadline(((struct creds *)payload)->src);
}

static int fetch(arena *a, git_repository *repo, const pkg_source *src, const char **default_branch)
{
    git_remote *remote = NULL;
    /* anonymous: the URL (with any credentials) is never written to the cache's config. insteadOf rewriting is
     * skipped: libgit2 1.5 leaks in the config regexps it takes. */
    git_remote_create_options ro;
    git_remote_create_options_init(&ro, GIT_REMOTE_CREATE_OPTIONS_VERSION);
    ro.repository = repo;
    ro.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF;
    if (git_remote_create_with_opts(&remote, src->url, &ro) < 0)
        return fail(NULL, 0, "%s: not a usable repository address: %s", src->key, scrubbed_message(a, src->url));
    struct creds cs = {.src = src};
    git_fetch_options fo;
    git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
    fo.prune = GIT_FETCH_PRUNE;
    fo.update_fetchhead = 0;
    fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE; /* the refspecs below carry every tag */
    fo.proxy_opts.type = GIT_PROXY_AUTO;
    /* no redirect to another host: libgit2 1.5 follows the first one to any host by default, so an allowed host
     * answering 301 would serve another's repository; now that is an error naming the URL asked for. (A redirect
     * within the same host 1.5 still follows: no option of it refuses those.) */
    fo.follow_redirects = GIT_REMOTE_REDIRECT_NONE;
    fo.callbacks.credentials = cred_cb;
    fo.callbacks.payload = &cs;
    if (src->deadline_ms) {
        fo.callbacks.transfer_progress = on_transfer;
        fo.callbacks.sideband_progress = on_sideband;
    }
    char *specs[] = {"+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"};
    git_strarray refspecs = {specs, 2};
    int rc = 0;
    if (git_remote_fetch(remote, &refspecs, &fo, "cmp-generate pkg get") < 0) {
        rc = past_deadline(src) < 0
                 ? fail(NULL, 0, "%s: the fetch ran past the time budget", src->key)
                 : fail(NULL, 0, "%s: cannot fetch (not a git repository, or unreachable): %s", src->key,
                        scrubbed_message(a, src->url));
    } else {
        git_buf def = {0};
        git_reference *head = NULL;
        if (git_remote_default_branch(&def, remote) == 0 && !strncmp(def.ptr, "refs/heads/", 11)) {
            *default_branch = arena_strdup(a, def.ptr + 11);
            /* remember it for offline use of the cache */
            git_reference_symbolic_create(&head, repo, "HEAD", def.ptr, 1, "cmp-generate: remote HEAD");
        }
        git_reference_free(head);
        git_buf_dispose(&def);
    }
    git_remote_free(remote);
    return rc;
}

static bool all_hex(const char *s)
{
    for (; *s; s++)
        if (!(('0' <= *s && *s <= '9') || ('a' <= *s && *s <= 'f') || ('A' <= *s && *s <= 'F')))
            return false;
    return true;
}

static bool have_commit(git_repository *repo, const char *ref)
{
    git_oid oid;
    git_commit *c = NULL;
    if (!ref || strlen(ref) != GIT_OID_HEXSZ || !all_hex(ref) || git_oid_fromstr(&oid, ref) < 0)
        return false;
    bool ok = git_commit_lookup(&c, repo, &oid) == 0;
    git_commit_free(c);
    return ok;
}

int cache_open(arena *a, const gitsrc_env *env, const pkg_source *src, cache *c)
{
    memset(c, 0, sizeof *c);
    c->lock_fd = -1;
    const char *root = cache_root(a, env);
    if (gitsrc_mkdirs(root) < 0)
        return fail(root, 0, "cache: cannot create: %s", strerror(errno));
    char *parent = arena_strdup(a, root);
    *strrchr(parent, '/') = 0;
    if (check_private(parent) < 0 || check_private(root) < 0)
        return -1;
    const char *name = cache_name(a, src->key);
    const char *lock = arena_printf(a, "%s/%s.lock", root, name);
    c->path = arena_printf(a, "%s/%s.git", root, name);
    c->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (c->lock_fd < 0)
        return fail(lock, 0, "cache: cannot open the lock: %s", strerror(errno));
    while (flock(c->lock_fd, LOCK_EX) != 0)
        if (errno != EINTR)
            return fail(lock, 0, "cache: cannot lock: %s", strerror(errno));

    bool fresh = false;
    if (git_repository_open_bare(&c->repo, c->path) < 0) {
        /* missing, or left broken by a crash: start over (we hold the lock) */
        fs_remove_tree(c->path);
        if (git_repository_init(&c->repo, c->path, 1) < 0)
            return fail(c->path, 0, "cache: cannot create a repository: %s", gitsrc_last_message());
        fresh = true;
    }
    if (have_commit(c->repo, src->ref) || (src->no_fetch && !fresh))
        return 0; /* a full SHA already here, or the caller's fetch just ran: nothing to fetch */
    if (fetch(a, c->repo, src, &c->default_branch) < 0) {
        if (fresh) {
            git_repository_free(c->repo);
            c->repo = NULL;
            fs_remove_tree(c->path);
        }
        return -1;
    }
    return 0;
}

void cache_close(cache *c)
{
    git_repository_free(c->repo);
    c->repo = NULL;
    if (c->lock_fd >= 0)
        close(c->lock_fd); /* releases the flock */
    c->lock_fd = -1;
}

/* The commit a ref names, peeled through annotated tags. */
static int peel_ref(git_repository *r, const char *name, git_oid *out)
{
    git_reference *ref = NULL;
    git_object *obj = NULL;
    int rc = git_reference_lookup(&ref, r, name);
    if (rc == 0)
        rc = git_reference_peel(&obj, ref, GIT_OBJECT_COMMIT);
    if (rc == 0)
        git_oid_cpy(out, git_object_id(obj));
    git_object_free(obj);
    git_reference_free(ref);
    return rc;
}

int cache_resolve(arena *a, cache *c, const pkg_source *src, const char *ref, const char **lock_ref, git_oid *commit)
{
    *lock_ref = ref;
    /* kpt: a tag "<directory>/<ref>" versions one package of a repository and wins over a plain ref */
    if (strcmp(src->directory, "/") &&
        peel_ref(c->repo, arena_printf(a, "refs/tags/%s/%s", src->directory + 1, ref), commit) == 0) {
        *lock_ref = arena_printf(a, "%s/%s", src->directory + 1, ref);
        return 0;
    }
    if (peel_ref(c->repo, arena_printf(a, "refs/heads/%s", ref), commit) == 0 ||
        peel_ref(c->repo, arena_printf(a, "refs/tags/%s", ref), commit) == 0 ||
        (!strncmp(ref, "refs/", 5) && peel_ref(c->repo, ref, commit) == 0))
        return 0;
    size_t n = strlen(ref);
    if (n >= GIT_OID_MINPREFIXLEN && n <= GIT_OID_HEXSZ && all_hex(ref)) {
        git_oid oid;
        git_object *obj = NULL, *peeled = NULL;
        int rc = git_oid_fromstrn(&oid, ref, n);
        if (rc == 0)
            rc = git_object_lookup_prefix(&obj, c->repo, &oid, n, GIT_OBJECT_ANY);
        if (rc == GIT_EAMBIGUOUS)
            return fail(NULL, 0, "ref \"%s\" is an ambiguous abbreviated SHA in %s; give more characters", ref,
                        src->key);
        if (rc == 0 && git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) == 0)
            git_oid_cpy(commit, git_object_id(peeled));
        else if (rc == 0)
            rc = -1;
        git_object_free(peeled);
        git_object_free(obj);
        if (rc == 0)
            return 0;
    }
    return fail(NULL, 0, "unknown ref \"%s\" in %s (no branch, tag or commit by that name)", ref, src->key);
}
