/* Fetching for helm (helm_fetch.h). helm finds chart repositories through its repositories.yaml: a dependency whose
 * https URL is not listed there fails with "no repository definition", and an @alias is looked up there by name.
 * Argo CD runs `helm repo add` for each dependency repository; here the file is written whole, one entry per
 * repository with the operator's credentials for it, and handed to each helm child as a descriptor that has no name
 * in any directory (engine/run.h engine_pass_text), so no secret is ever an argument or a file left behind. `helm repo
 * update` fetches the indexes it lists, then the real command runs without fetching them again. OCI registries need
 * no entry: their credentials are the operator's registry config.json, handed over as HELM_REGISTRY_CONFIG. */
#include "helm/fetch.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "decode/decode.h"
#include "engine/run.h"
#include "helm/confine.h"
#include "util/diag.h"
#include "util/fsutil.h"
#include "util/path.h"
#include "yaml/emit.h"
#include "yaml/load.h"

static const char *helm_env[5];
static char helm_env_buf[4][4200];

const char *const *helm_environment(const char *tmpdir)
{
    const char *s = engine_scratch_dir(tmpdir);
    if (!s)
        return NULL;
    const char *names[] = {"HELM_CACHE_HOME", "HELM_CONFIG_HOME", "HELM_DATA_HOME"};
    const char *subs[] = {"cache", "config", "data"};
    for (int i = 0; i < 3; i++) {
        snprintf(helm_env_buf[i], sizeof helm_env_buf[i], "%s=%s/helm/%s", names[i], s, subs[i]);
        helm_env[i] = helm_env_buf[i];
    }
    snprintf(helm_env_buf[3], sizeof helm_env_buf[3], "HELM_PLUGINS=%s/helm/plugins", s);
    helm_env[3] = helm_env_buf[3];
    helm_env[4] = NULL;
    return helm_env;
}

/* Why url may not be given to helm as a repository, or NULL. Only the URL's shape is judged, so the message never
 * needs to repeat it (it may hold a token). */
static const char *url_problem(const char *url)
{
    size_t skip;
    if (!strncmp(url, "https://", 8))
        skip = 8;
    else if (!strncmp(url, "http://", 7))
        skip = 7;
    else if (!strncmp(url, "oci://", 6))
        skip = 6;
    else
        return "must be an https://, http:// or oci:// URL";
    size_t n = strlen(url);
    if (n > 2048)
        return "is longer than 2048 bytes";
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)url[i] <= 0x20 || (unsigned char)url[i] >= 0x7f || url[i] == '\\')
            return "is not a URL (spaces, control characters, backslashes or non-ASCII characters)";
    const char *host = url + skip;
    size_t hl = strcspn(host, "/");
    if (memchr(host, '@', hl))
        return "has credentials in it (user info before the host); credentials come only from the sidecar's "
               "operator (CMP_HELM_CREDENTIALS_DIR)";
    if (strpbrk(url, "?#"))
        return "has a query or fragment, which may carry a token; credentials come only from the sidecar's operator "
               "(CMP_HELM_CREDENTIALS_DIR)";
    if (!hl)
        return "has no host";
    for (size_t i = 0; i < hl; i++) {
        char ch = host[i];
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' ||
                  ch == '-' || ch == '_' || ch == ':' || ch == '[' || ch == ']';
        if (!ok || (i == 0 && ch == '-'))
            return "has a host that is not a host name, an IP address or host:port";
    }
    return NULL;
}

int helm_check_repo_url(const engine_ctx *c, const node *at, const char *field, const char *url)
{
    const char *why = url_problem(url);
    return why ? engine_fail(c, at, "%s %s", field, why) : 0;
}

/* One chart repository in the repositories.yaml helm gets. */
typedef struct repo_entry {
    const char *name, *url;
    const node *cred; /* the operator's entry for it (credentials, TLS files), or NULL */
} repo_entry;

typedef struct fetch {
    const engine_ctx *c;
    const node *at;
    const char *what; /* "chart web", for messages */
    bool loaded;
    const node *op_repos;        /* the operator's repositories.yaml list, or NULL */
    const char *registry_config; /* the operator's config.json, or NULL */
    repo_entry *e;
    size_t n, cap;
    const char *plain_host, *tls_host; /* an OCI registry that gets --plain-http, and one that does not */
    buf *stderr_text;                  /* helm_pull_digest: helm's report, where an OCI pull names the digest */
} fetch;

static const char *const cred_strings[] = {"username", "password", "certFile", "keyFile", "caFile", NULL};
static const char *const cred_flags[] = {"insecure_skip_tls_verify", "pass_credentials_all", NULL};

/* The operator's CMP_HELM_CREDENTIALS_DIR, read when something is fetched. Its messages name the file and the
 * entry, never a value from it. */
static int load_credentials(fetch *f)
{
    if (f->loaded)
        return 0;
    f->loaded = true;
    const engine_ctx *c = f->c;
    const char *dir = c->helm.credentials_dir;
    if (!dir)
        return 0;
    if (dir[0] != '/' || !is_dir(dir))
        return engine_fail(c, f->at, "CMP_HELM_CREDENTIALS_DIR on the sidecar must be the absolute path of a directory "
                                 "(the mounted Secret with repositories.yaml and/or config.json)");
    const char *repos = path_join(c->a, dir, "repositories.yaml"), *reg = path_join(c->a, dir, "config.json");
    bool have_repos = file_exists(repos), have_reg = file_exists(reg);
    if (!have_repos && !have_reg) {
        /* an optional Secret that does not exist is mounted as an empty directory (Kubernetes' own entries, such
         * as ..data, start with a dot): no credentials. Other files mean a Secret with the wrong keys. */
        DIR *d = opendir(dir);
        struct dirent *e;
        bool other = false;
        while (d && !other && (e = readdir(d)))
            other = e->d_name[0] != '.';
        if (d)
            closedir(d);
        if (other)
            return engine_fail(c, f->at,
                               "CMP_HELM_CREDENTIALS_DIR on the sidecar holds neither repositories.yaml (chart "
                               "repositories) nor config.json (registries)");
        return 0;
    }
    if (have_reg)
        f->registry_config = reg;
    if (!have_repos)
        return 0;
    const char *shown_file = "the operator's CMP_HELM_CREDENTIALS_DIR/repositories.yaml";
    char *text;
    size_t len;
    node *doc = NULL;
    if (read_text_file(c->lim, repos, "CMP_HELM_CREDENTIALS_DIR/repositories.yaml", &text, &len) < 0)
        return -1;
    diag_detail parse_error; /* dropped (and wiped, as the text is): the parser's message may quote the file */
    int rc = yaml_load_one_into(c->a, c->st, limits_yaml(c->lim), "CMP_HELM_CREDENTIALS_DIR/repositories.yaml",
                                text, len, &doc, &parse_error);
    memset(text, 0, len);
    xfree(text);
    /* a limit's message quotes nothing of the file: it is the one kept */
    if (rc < 0 && yaml_over_limit(&parse_error)) {
        engine_fail(c, f->at, "%s, line %d: %s", shown_file, parse_error.line, parse_error.message);
        memset(&parse_error, 0, sizeof parse_error);
        return -1;
    }
    memset(&parse_error, 0, sizeof parse_error);
    if (rc < 0)
        return engine_fail(c, f->at, "%s is not valid YAML", shown_file);
    const node *list = map_get(doc, "repositories");
    if (!is_map(doc) || (list && !is_null(list) && !is_seq(list)))
        return engine_fail(c, f->at, "%s must be helm's repositories file: a map with a repositories list", shown_file);
    seq_foreach(list, i, r) {
        const char *url = path_str(r, "url", NULL), *name = path_str(r, "name", NULL);
        if (!is_map(r) || !url)
            return engine_fail(c, f->at, "%s: repositories[%u] must be a map with a url", shown_file, i);
        const char *why = url_problem(url);
        if (why)
            return engine_fail(c, f->at, "%s: repositories[%u].url %s", shown_file, i, why);
        if (name && (!*name || strchr(name, '/')))
            return engine_fail(c, f->at, "%s: repositories[%u].name must be a name without '/'", shown_file, i);
        for (int k = 0; cred_strings[k]; k++) {
            const node *v = map_get(r, cred_strings[k]);
            if (v && !is_null(v) && !is_scalar(v))
                return engine_fail(c, f->at, "%s: repositories[%u].%s must be a string", shown_file, i,
                                   cred_strings[k]);
        }
    }
    f->op_repos = list;
    return 0;
}

static size_t trimmed_len(const char *u)
{
    size_t n = strlen(u);
    while (n && u[n - 1] == '/')
        n--;
    return n;
}

/* The operator's entry for url: the same URL (trailing slashes aside), else the longest one that url lies under,
 * as Argo CD's credential templates match by prefix. */
static const node *cred_for_url(const fetch *f, const char *url)
{
    const node *best = NULL;
    size_t best_len = 0, ul = trimmed_len(url);
    seq_foreach(f->op_repos, i, r) {
        const char *ou = path_str(r, "url", NULL);
        size_t ol = trimmed_len(ou);
        if (ol > ul || strncmp(ou, url, ol) || (ol < ul && url[ol] != '/'))
            continue;
        if (ol == ul)
            return r;
        if (ol > best_len) {
            best = r;
            best_len = ol;
        }
    }
    return best;
}

static const node *cred_by_name(const fetch *f, const char *name)
{
    seq_foreach(f->op_repos, i, r) {
        const char *n = path_str(r, "name", NULL);
        if (n && !strcmp(n, name))
            return r;
    }
    return NULL;
}

/* Adds a chart repository (name NULL: one of ours, named so it cannot clash with the operator's names that
 * @alias dependencies use, which are added first) and returns its name. */
static const char *add_repo(fetch *f, const char *name, const char *url, const node *cred)
{
    for (size_t i = 0; i < f->n; i++)
        if (name ? !strcmp(f->e[i].name, name) : !strcmp(f->e[i].url, url))
            return f->e[i].name;
    if (!name) {
        for (size_t k = f->n + 1;; k++) {
            name = arena_printf(f->c->a, "cmp-generate-%zu", k);
            size_t i = 0;
            while (i < f->n && strcmp(f->e[i].name, name))
                i++;
            if (i == f->n)
                break;
        }
    }
    if (f->n == f->cap) {
        repo_entry *grown = arena_alloc(f->c->a, (f->cap = f->cap ? f->cap * 2 : 8) * sizeof *grown);
        if (f->n)
            memcpy(grown, f->e, f->n * sizeof *grown);
        f->e = grown;
    }
    f->e[f->n++] = (repo_entry){name, url, cred};
    return name;
}

/* The length of the host in "host[:port]" ("[v6]" with its brackets); more than n when a bracket is not closed. */
static size_t host_part(const char *s, size_t n)
{
    const char *e = s[0] == '[' ? memchr(s, ']', n) : memchr(s, ':', n);
    return s[0] == '[' ? (e ? (size_t)(e - s) + 1 : n + 1) : (e ? (size_t)(e - s) : n);
}

/* An entry of CMP_HELM_PLAIN_HTTP_REGISTRIES: a host name or IP address ([...] for IPv6), then maybe :port. */
static bool registry_entry(const char *s, size_t n)
{
    size_t h = host_part(s, n);
    if (!h || h > n || (h < n && (s[h] != ':' || n - h - 1 < 1 || n - h - 1 > 5)))
        return false;
    for (size_t i = h + 1; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    for (size_t i = 0; i < h; i++) {
        char ch = s[i];
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' ||
                  (s[0] == '[' ? ch == ':' || (i == 0 && ch == '[') || (i == h - 1 && ch == ']') : ch == '-' || ch == '_');
        if (!ok)
            return false;
    }
    return true;
}

/* Does the operator list this registry (host[:port] of an oci:// URL) as served over plain HTTP? An entry without
 * a port stands for every port of its host. -1 (engine_fail) when the setting breaks its rule. */
static int plain_http(fetch *f, const char *url)
{
    const char *auth = url + 6;
    size_t al = strcspn(auth, "/");
    const char *list = f->c->helm.plain_http_registries;
    int found = 0;
    for (const char *p = list; p && *p;) {
        size_t len = strcspn(p, ", ");
        if (len) {
            if (!registry_entry(p, len))
                return engine_fail(f->c, NULL,
                                   "CMP_HELM_PLAIN_HTTP_REGISTRIES on the sidecar: \"%s\" is not a registry "
                                   "host or host:port (a comma-separated list such as 127.0.0.1:5000,"
                                   "registry.ns.svc:5000)",
                                   shown(f->c->a, arena_strndup(f->c->a, p, len)));
            size_t h = host_part(p, len);
            if ((len == al && !strncasecmp(p, auth, al)) ||
                (h == len && al > len && auth[len] == ':' && !strncasecmp(p, auth, len)))
                found = 1;
        }
        p += len;
        p += strspn(p, ", ");
    }
    const char *host = arena_strndup(f->c->a, auth, al);
    if (found)
        f->plain_host = host;
    else
        f->tls_host = host;
    return found;
}

int helm_registry_access(const engine_ctx *c, const node *at, const char *oci_url, const char **registry_config)
{
    fetch f = {.c = c, .at = at, .what = "the registry"};
    *registry_config = NULL;
    if (load_credentials(&f) < 0)
        return -1;
    *registry_config = f.registry_config;
    return plain_http(&f, oci_url);
}

/* repositories.yaml for helm, as JSON (which helm reads as YAML), through a descriptor. The copy in our memory is
 * wiped once written. */
static const char *pass_repositories(fetch *f, child_fds *fds)
{
    buf b = {0};
    buf_puts(&b, "{\"apiVersion\":\"\",\"repositories\":[");
    for (size_t i = 0; i < f->n; i++) {
        buf_puts(&b, i ? ",{\"name\":" : "{\"name\":");
        json_quote(&b, f->e[i].name);
        buf_puts(&b, ",\"url\":");
        json_quote(&b, f->e[i].url);
        for (int k = 0; f->e[i].cred && cred_strings[k]; k++) {
            const char *v = path_str(f->e[i].cred, cred_strings[k], NULL);
            if (v && *v && !is_null(map_get(f->e[i].cred, cred_strings[k]))) {
                buf_printf(&b, ",\"%s\":", cred_strings[k]);
                json_quote(&b, v);
            }
        }
        for (int k = 0; f->e[i].cred && cred_flags[k]; k++)
            if (scalar_is(map_get(f->e[i].cred, cred_flags[k]), "true"))
                buf_printf(&b, ",\"%s\":true", cred_flags[k]);
        buf_putc(&b, '}');
    }
    buf_puts(&b, "]}\n");
    const char *path = engine_pass_text(f->c, fds, b.data, b.len);
    int e = errno;
    memset(b.data, 0, b.len);
    buf_free(&b);
    if (!path)
        engine_fail(f->c, f->at, "cannot pass the chart repositories of %s to helm: %s", f->what, strerror(e));
    return path;
}

/* The environment of a helm child that fetches: helm's own directories, the repositories file when there is one,
 * and the operator's registry credentials. */
static const char *const *fetch_env(fetch *f, const char *repo_config)
{
    const char *const *base = helm_environment(f->c->child.tmpdir);
    if (!base)
        return NULL;
    size_t n = 0;
    while (base[n])
        n++;
    const char **env = arena_alloc(f->c->a, (n + 3) * sizeof *env);
    memcpy(env, base, n * sizeof *env);
    if (repo_config)
        env[n++] = arena_printf(f->c->a, "HELM_REPOSITORY_CONFIG=%s", repo_config);
    if (f->registry_config)
        env[n++] = arena_printf(f->c->a, "HELM_REGISTRY_CONFIG=%s", f->registry_config);
    env[n] = NULL;
    return env;
}

static void push(const char ***argv, size_t *n, size_t *cap, const char *s)
{
    if (*n + 2 > *cap)
        *argv = xrealloc(*argv, (*cap = *cap ? *cap * 2 : 16) * sizeof **argv);
    (*argv)[(*n)++] = s;
    (*argv)[*n] = NULL;
}

/* Runs helm with the fetch's repositories (when it has some) and credentials. argv is freed. */
static int run_helm(fetch *f, const char *what, const char **argv)
{
    child_fds fds = {0};
    const char *cfg = NULL;
    if (f->n && !(cfg = pass_repositories(f, &fds))) {
        xfree(argv);
        return -1;
    }
    const char *const *env = fetch_env(f, cfg);
    int rc = env ? f->stderr_text ? engine_run_tool_fds_stderr(f->c, what, argv, env, NULL, &fds, f->stderr_text)
                                  : engine_run_tool_fds(f->c, what, argv, env, NULL, &fds)
                 : (child_fds_close(&fds), engine_fail(f->c, f->at, "cannot create a temporary directory for helm"));
    xfree(argv);
    return rc;
}

/* helm repo update for the chart repositories of the fetch: their indexes into helm's private cache. */
static int update_indexes(fetch *f, const char *helm)
{
    if (!f->n)
        return 0;
    const char **argv = NULL;
    size_t n = 0, cap = 0;
    push(&argv, &n, &cap, helm);
    push(&argv, &n, &cap, "repo");
    push(&argv, &n, &cap, "update");
    push(&argv, &n, &cap, "--fail-on-repo-update-fail");
    push(&argv, &n, &cap, "--");
    for (size_t i = 0; i < f->n; i++)
        push(&argv, &n, &cap, f->e[i].name);
    return run_helm(f, arena_printf(f->c->a, "helm repo update (the chart repositories of %s)", f->what), argv);
}

/* helm-verify-prov: helm checks the chart's provenance file against the operator's keyring (--verify), and fails
 * without one; the keyring is the operator's path, never the package's. */
static int verify_flags(const engine_ctx *c, const node *at, const char ***argv, size_t *n, size_t *cap)
{
    if (!c->helm.verify_prov)
        return 0;
    if (!c->helm.keyring) {
        xfree(*argv);
        return engine_fail(c, at, "parameter helm-verify-prov is true but the sidecar has no keyring to verify charts "
                              "with (CMP_HELM_KEYRING, set by the operator)");
    }
    push(argv, n, cap, "--verify");
    push(argv, n, cap, arena_printf(c->a, "--keyring=%s", c->helm.keyring));
    return 0;
}

const char *helm_pull(const engine_ctx *c, const char *helm, const node *at, const char *repo, const char *name,
                      const char *version)
{
    return helm_pull_digest(c, helm, at, repo, name, version, NULL);
}

const char *helm_pull_digest(const engine_ctx *c, const char *helm, const node *at, const char *repo, const char *name,
                             const char *version, const char **digest)
{
    static int pulls;
    const char *s = engine_scratch_dir(c->child.tmpdir);
    const char *dest = s ? arena_printf(c->a, "%s/pull-%d", s, ++pulls) : NULL;
    if (!dest || mkdir(dest, 0700) != 0)
        return engine_fail(c, at, "cannot create a temporary directory for the chart"), NULL;
    buf report = {0};
    fetch f = {.c = c, .at = at, .what = arena_printf(c->a, "chart %s", name)};
    if (digest)
        *digest = NULL;
    bool oci = !strncmp(repo, "oci://", 6);
    int plain = 0;
    const char *ref;
    if (load_credentials(&f) < 0 || (oci && (plain = plain_http(&f, repo)) < 0))
        return NULL;
    if (oci) {
        ref = arena_printf(c->a, "%s/%s", repo, name);
    } else {
        ref = arena_printf(c->a, "%s/%s", add_repo(&f, NULL, repo, cred_for_url(&f, repo)), name);
        if (update_indexes(&f, helm) < 0)
            return NULL;
    }
    const char **argv = NULL;
    size_t n = 0, cap = 0;
    push(&argv, &n, &cap, helm);
    push(&argv, &n, &cap, "pull");
    push(&argv, &n, &cap, arena_printf(c->a, "--destination=%s", dest));
    if (version && *version)
        push(&argv, &n, &cap, arena_printf(c->a, "--version=%s", version));
    if (plain)
        push(&argv, &n, &cap, "--plain-http");
    if (verify_flags(c, at, &argv, &n, &cap) < 0)
        return NULL;
    push(&argv, &n, &cap, "--");
    push(&argv, &n, &cap, ref);
    f.stderr_text = digest ? &report : NULL; /* the pull's report alone */
    int pulled = run_helm(&f, arena_printf(c->a, "helm pull of chart %s", name), argv);
    /* "Digest: sha256:<64 hex>" after an OCI pull: the manifest's digest */
    const char *said = digest && oci && pulled == 0 ? strstr(buf_cstr(&report), "Digest: sha256:") : NULL;
    if (said && strspn(said + 15, "0123456789abcdef") == 64)
        *digest = arena_strndup(c->a, said + 8, 71);
    buf_free(&report);
    if (pulled < 0)
        return NULL;
    const char *tgz = NULL;
    DIR *d = opendir(dest);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len > 4 && !strcmp(e->d_name + len - 4, ".tgz"))
            tgz = arena_printf(c->a, "%s/%s", dest, e->d_name);
    }
    if (d)
        closedir(d);
    if (!tgz)
        return engine_fail(c, at, "helm pull of chart %s left no chart archive", name), NULL;
    if (helm_confine_archive(c, at, tgz, name) < 0)
        return NULL;
    return tgz;
}

/* A chart's dependency files, loaded: what Chart.yaml (or requirements.yaml) declares and what the lock lists. */
typedef struct dep_files {
    const char *display[4];
    const node *deps[4]; /* the dependencies lists of Chart.yaml, requirements.yaml, Chart.lock, requirements.lock */
} dep_files;

static const char *const dep_file_names[] = {"Chart.yaml", "requirements.yaml", "Chart.lock", "requirements.lock"};

/* chart_dir has been checked (helm_confine_dir): each of these files, if there, resolves inside the repository. */
static int load_dep_files(const engine_ctx *c, const char *chart_dir, dep_files *d)
{
    memset(d, 0, sizeof *d);
    for (int i = 0; i < 4; i++) {
        const char *path = path_join(c->a, chart_dir, dep_file_names[i]);
        if (!file_exists(path))
            continue;
        char *text;
        size_t len;
        node *doc = NULL;
        d->display[i] = engine_repo_relative(c, path);
        if (read_text_file(c->lim, path, d->display[i], &text, &len) < 0)
            return -1;
        int rc = go_load_chart_file(c->a, c->st, limits_yaml(c->lim), d->display[i], dep_file_names[i], text, len,
                                    &doc);
        xfree(text);
        if (rc < 0)
            return -1;
        const node *deps = map_get(doc, "dependencies");
        if (deps && !is_null(deps) && !is_seq(deps))
            return fail(d->display[i], (int)node_line(deps), "dependencies must be a list");
        d->deps[i] = deps;
    }
    return 0;
}

/* Does charts/ hold an archive of chart name at some version ("<name>-1.2.3.tgz")? For dependencies declared
 * with a version range and no lock file. */
static bool archive_of(const engine_ctx *c, const char *chart_dir, const char *name)
{
    DIR *d = opendir(path_join(c->a, chart_dir, "charts"));
    if (!d)
        return false;
    size_t nl = strlen(name);
    bool found = false;
    struct dirent *e;
    while (!found && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        const char *v = e->d_name + nl + 1;
        found = len > nl + 5 && !strncmp(e->d_name, name, nl) && e->d_name[nl] == '-' &&
                (*v >= '0' && *v <= '9' ? true : (*v == 'v' && v[1] >= '0' && v[1] <= '9')) &&
                !strcmp(e->d_name + len - 4, ".tgz");
    }
    closedir(d);
    return found;
}

/* Is every dependency in charts/ (as <name>-<version>.tgz or an unpacked <name>/)? The lock file's list when there
 * is one (exact versions), else the declared one. */
static bool dependencies_present(const engine_ctx *c, const char *chart_dir, const dep_files *d)
{
    const node *lock = d->deps[2] ? d->deps[2] : d->deps[3];
    bool locked = d->display[2] || d->display[3];
    const node *deps = locked ? lock : (d->deps[0] ? d->deps[0] : d->deps[1]);
    seq_foreach(deps, i, dep) {
        const char *name = path_str(dep, "name", NULL), *ver = path_str(dep, "version", NULL);
        const char *repo = path_str(dep, "repository", NULL);
        if (!name || !repo || !*repo)
            continue; /* no repository: a subchart vendored under charts/ (by whatever directory name), nothing to
                       * fetch; helm template says so if it is missing */
        if (!*name || strchr(name, '/') || (ver && strchr(ver, '/')))
            return false; /* not a name: never look where it leads; helm says what is wrong with it */
        struct stat st;
        bool ok = (ver && stat(arena_printf(c->a, "%s/charts/%s-%s.tgz", chart_dir, name, ver), &st) == 0) ||
                  stat(arena_printf(c->a, "%s/charts/%s/Chart.yaml", chart_dir, name), &st) == 0 ||
                  (!locked && archive_of(c, chart_dir, name));
        if (!ok)
            return false;
    }
    return true;
}

/* Every repository the dependency files name, checked and set up: @alias / alias:name first (the operator's
 * names), then URLs. */
static int plan_dependencies(fetch *f, const dep_files *d)
{
    if (load_credentials(f) < 0)
        return -1;
    for (int pass = 0; pass < 2; pass++) {
        for (int k = 0; k < 4; k++) {
            seq_foreach(d->deps[k], i, dep) {
                const node *at = map_get(dep, "repository");
                const char *r = scalar(at);
                int line = (int)node_line(at);
                if (at && !is_null(at) && !r)
                    return fail(d->display[k], line, "dependencies[%u].repository must be a string", i);
                if (!r || !*r || !strncmp(r, "file://", 7))
                    continue; /* in charts/ already, or a chart in the repository (helm_confine.h) */
                const char *alias = r[0] == '@' ? r + 1 : !strncmp(r, "alias:", 6) ? r + 6 : NULL;
                if (alias && pass == 0) {
                    const node *op = f->op_repos ? cred_by_name(f, alias) : NULL;
                    if (!op)
                        return fail(d->display[k], line,
                                    "dependencies[%u].repository \"%s\" names a repository the sidecar's operator does "
                                    "not define (aliases come from CMP_HELM_CREDENTIALS_DIR/repositories.yaml%s)",
                                    i, shown(f->c->a, r), f->c->helm.credentials_dir ? "" : ", not set");
                    const char *url = path_str(op, "url", NULL);
                    if (!strncmp(url, "oci://", 6))
                        return fail(d->display[k], line,
                                    "dependencies[%u].repository \"%s\" names an OCI registry, which helm cannot use "
                                    "through an alias: write its oci:// URL",
                                    i, shown(f->c->a, r));
                    add_repo(f, alias, url, op);
                } else if (!alias && pass == 1) {
                    const char *why = url_problem(r);
                    if (why)
                        return fail(d->display[k], line, "dependencies[%u].repository %s%s", i, why,
                                    strncmp(r, "https:", 6) && strncmp(r, "http:", 5) && strncmp(r, "oci:", 4)
                                        ? " (or file://, @alias, alias:name)" : "");
                    if (!strncmp(r, "oci://", 6)) {
                        if (plain_http(f, r) < 0)
                            return -1;
                    } else {
                        add_repo(f, NULL, r, cred_for_url(f, r));
                    }
                }
            }
        }
    }
    if (f->plain_host && f->tls_host)
        return engine_fail(f->c, f->at,
                           "%s has dependencies from a registry the operator serves over plain HTTP (%s) and from one "
                           "that is not (%s); helm's --plain-http would apply to both",
                           f->what, shown(f->c->a, f->plain_host), shown(f->c->a, f->tls_host));
    return 0;
}

int helm_dependency_build(const engine_ctx *c, const char *helm, const char *chart_dir, const node *at)
{
    char real[PATH_MAX], confined_real[PATH_MAX];
    if (!realpath(chart_dir, real) || resolve_beneath(engine_repo_root(c), real, confined_real) != CONFINED_OK)
        return engine_fail(c, at, "chart %s leads outside the repository", chart_dir);
    chart_dir = arena_strdup(c->a, confined_real);
    if (helm_confine_dir(c, at, chart_dir) < 0)
        return -1;
    dep_files d;
    if (load_dep_files(c, chart_dir, &d) < 0)
        return -1;
    if (dependencies_present(c, chart_dir, &d))
        return 0;
    const char *shown_dir = engine_repo_relative(c, chart_dir);
    fetch f = {.c = c, .at = at, .what = arena_printf(c->a, "chart %s", shown_dir)};
    if (plan_dependencies(&f, &d) < 0)
        return -1;
    if (!helm && !(helm = find_tool(c->helm.bin, c->helm.path, "helm")))
        return engine_fail(c, at, "chart %s has dependencies to build but helm is not installed (set HELM_BIN)",
                           shown_dir);
    helm = arena_strdup(c->a, helm);
    if (update_indexes(&f, helm) < 0)
        return -1;
    const char **argv = NULL;
    size_t n = 0, cap = 0;
    push(&argv, &n, &cap, helm);
    push(&argv, &n, &cap, "dependency");
    push(&argv, &n, &cap, "build");
    push(&argv, &n, &cap, "--skip-refresh"); /* the indexes were just fetched, and only those */
    if (f.plain_host)
        push(&argv, &n, &cap, "--plain-http");
    if (verify_flags(c, at, &argv, &n, &cap) < 0)
        return -1;
    push(&argv, &n, &cap, "--");
    push(&argv, &n, &cap, chart_dir);
    if (run_helm(&f, arena_printf(c->a, "helm dependency build %s", shown_dir), argv) < 0)
        return -1;
    /* what came from a repository or registry is checked like the rest */
    return helm_confine_dir(c, at, chart_dir);
}

bool helm_chart_has_dependencies(const engine_ctx *c, const char *dir)
{
    char abs[PATH_MAX], real[PATH_MAX];
    if (!realpath(dir, abs))
        return false;
    for (int i = 1; i < 4; i++) {
        struct stat st;
        if (lstat(path_join(c->a, abs, dep_file_names[i]), &st) == 0)
            return true; /* helm_dependency_build checks where it leads */
    }
    confined r = resolve_beneath(engine_repo_root(c), path_join(c->a, abs, "Chart.yaml"), real);
    if (r != CONFINED_OK)
        return r == CONFINED_OUTSIDE;
    char *text;
    size_t len;
    node *doc = NULL;
    diag_detail why; /* dropped: the render reports it, with the chart it belongs to */
    diag_detail *outer = diag_capture(&why);
    int rc = read_text_file(c->lim, real, engine_repo_relative(c, real), &text, &len);
    if (rc == 0) {
        rc = go_load_chart_file(c->a, c->st, limits_yaml(c->lim), "Chart.yaml", "Chart.yaml", text, len, &doc);
        xfree(text);
    }
    diag_restore(outer);
    return rc == 0 && node_len(map_get(doc, "dependencies")) > 0;
}
