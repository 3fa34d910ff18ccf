#include "argocd/host.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/fsutil.h"

extern char **environ;

/* An empty variable counts as unset, as a shell user expects of `HELM_BIN= cmd`. */
static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

static int flag(const char *v)
{
    if (!v || !strcmp(v, "false"))
        return 0;
    return !strcmp(v, "true") ? 1 : -1;
}

/* Argo CD's InstanceName is "<app namespace>_<name>" for an Application outside the control-plane namespace; its
 * Helm source templates with the part after the first '_' (strings.SplitN(name, "_", 2) in ParseInstanceName). An
 * Application name cannot hold '_' (a DNS subdomain), so the cut is never inside the name. */
static const char *release_name(const char *app_name)
{
    const char *u = app_name ? strchr(app_name, '_') : NULL;
    return u && u[1] ? u + 1 : app_name;
}

void host_from_env(fn_host *h)
{
    h->helm_bin = env("HELM_BIN");
    h->kustomize_bin = env("KUSTOMIZE_BIN");
    h->kubectl_bin = env("KUBECTL_BIN");
    h->path = env("PATH");
    h->tmpdir = env("TMPDIR");
    if (!h->tmpdir)
        h->tmpdir = "/tmp";
    h->child_timeout_ms = cmp_limits.child_timeout_s * 1000; /* CMP_CHILD_TIMEOUT, checked by limits_from_env */
    h->kube_version = env("KUBE_VERSION");
    h->kube_api_versions = env("KUBE_API_VERSIONS");
    h->app_name = env("ARGOCD_APP_NAME");
    h->app_namespace = env("ARGOCD_APP_NAMESPACE");
    h->helm_values = NULL;
    /* kustomize: a value that is neither true nor false is kept as -1 so the step can name the variable */
    h->kustomize_enable_helm = flag(env("CMP_KUSTOMIZE_ENABLE_HELM"));
    h->kustomize_load_restrictor = env("CMP_KUSTOMIZE_LOAD_RESTRICTOR");
    if (!h->kustomize_load_restrictor)
        h->kustomize_load_restrictor = "LoadRestrictionsRootOnly";
    h->allow_remote_sources = flag(env("CMP_ALLOW_REMOTE_SOURCES"));
    /* helm: an unclear value allows nothing */
    h->allow_remote_values = flag(env("CMP_ALLOW_REMOTE_VALUES")) == 1;
    h->max_chart_files = cmp_limits.max_chart_files;
    h->max_chart_bytes = cmp_limits.max_chart_bytes;
    h->helm_credentials_dir = env("CMP_HELM_CREDENTIALS_DIR");
    h->helm_plain_http_registries = env("CMP_HELM_PLAIN_HTTP_REGISTRIES");
    h->release_name = release_name(h->app_name);
    host_children_from_env(h);
}

/* children: what crosses from the sidecar into helm and kustomize. The sidecar's environment is the operator's,
 * but Argo CD adds the request's variables to it (ARGOCD_ENV_*, PARAM_*, ARGOCD_APP_PARAMETERS: written by the
 * Application's author, possibly secrets), and the sidecar may hold secrets of its own. So children get an
 * allow-list: what a tool needs to reach a chart repository through the operator's proxy and CA bundle, and the
 * names the operator adds in CMP_CHILD_ENV. */
static const char *const child_passed[] = {"PATH", "LANG", "LC_ALL", "TZ", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY",
                                           "ALL_PROXY", "http_proxy", "https_proxy", "no_proxy", "all_proxy",
                                           "SSL_CERT_FILE", "SSL_CERT_DIR", NULL};
#define CHILD_ENV_NAMES 64
static const char *child_env_store[CHILD_ENV_NAMES + sizeof child_passed / sizeof *child_passed];
static char child_error[300];

/* environ's own NAME=value entry, which lives as long as we do */
static const char *env_entry(const char *name, size_t len)
{
    for (char **e = environ; e && *e; e++)
        if (!strncmp(*e, name, len) && (*e)[len] == '=')
            return (*e)[len + 1] ? *e : NULL;
    return NULL;
}

static void child_setting_error(fn_host *h, const char *fmt, const char *a, const char *b)
{
    if (h->child_settings_error)
        return;
    snprintf(child_error, sizeof child_error, fmt, a, b);
    h->child_settings_error = child_error;
}

static long child_number(fn_host *h, const char *name, long def, long max)
{
    const char *v = env(name);
    if (!v)
        return def;
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || *end || end == v || n < 0 || n > max) {
        char range[32];
        snprintf(range, sizeof range, "%ld", max);
        child_setting_error(h, "%s must be a whole number from 0 (no limit) to %s", name, range);
        return def;
    }
    return n;
}

void host_children_from_env(fn_host *h)
{
    h->child_settings_error = NULL;
    h->child_max_memory_mb = child_number(h, "CMP_CHILD_MAX_MEMORY_MB", 1024, 1L << 30);
    h->child_max_cpu_seconds = child_number(h, "CMP_CHILD_MAX_CPU_SECONDS", 60, 1L << 30);
    h->child_max_file_mb = child_number(h, "CMP_CHILD_MAX_FILE_MB", 256, 1L << 30);
    h->child_max_procs = child_number(h, "CMP_CHILD_MAX_PROCS", 0, 1L << 30);
    size_t n = 0;
    for (int i = 0; child_passed[i]; i++) {
        const char *e = env_entry(child_passed[i], strlen(child_passed[i]));
        if (e)
            child_env_store[n++] = e;
    }
    size_t named = 0;
    for (const char *p = env("CMP_CHILD_ENV"); p && *p;) {
        size_t len = strcspn(p, ", ");
        if (len) {
            char name[128];
            snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name - 1 ? len : sizeof name - 1), p);
            bool ok = len < sizeof name && (name[0] == '_' || (name[0] >= 'A' && name[0] <= 'Z') ||
                                            (name[0] >= 'a' && name[0] <= 'z'));
            for (size_t i = 1; ok && i < len; i++)
                ok = name[i] == '_' || (name[i] >= 'A' && name[i] <= 'Z') || (name[i] >= 'a' && name[i] <= 'z') ||
                     (name[i] >= '0' && name[i] <= '9');
            if (!ok)
                child_setting_error(h, "CMP_CHILD_ENV: \"%s\" is not a variable name%s", name, "");
            else if (!strncmp(name, "ARGOCD_", 7) || !strncmp(name, "PARAM_", 6))
                child_setting_error(h, "CMP_CHILD_ENV: %s is Argo CD's (the Application's author can set it), not "
                                       "the operator's: it is never passed to helm or kustomize%s", name, "");
            else if (++named > CHILD_ENV_NAMES)
                child_setting_error(h, "CMP_CHILD_ENV names more than %s variables%s", "64", "");
            else if (env_entry(name, len))
                child_env_store[n++] = env_entry(name, len);
        }
        p += len;
        p += strspn(p, ", ");
    }
    child_env_store[n] = NULL;
    h->child_env = child_env_store;
}

/* "a/b/c" minus the path "b/c" is "a": the source path must be the exact tail of dir, component by component. */
static char *strip_tail(arena *a, const char *dir, const char *tail)
{
    char t[PATH_MAX];
    size_t n = 0;
    for (const char *p = tail; *p && n + 1 < sizeof t;) { /* clean "./x//y/" into "x/y" */
        size_t len = strcspn(p, "/");
        if (len && !(len == 1 && p[0] == '.')) {
            if (len == 2 && p[0] == '.' && p[1] == '.')
                return NULL;
            if (n + len + 2 >= sizeof t)
                return NULL;
            if (n)
                t[n++] = '/';
            memcpy(t + n, p, len);
            n += len;
        }
        p += len + (p[len] == '/');
    }
    t[n] = 0;
    size_t dl = strlen(dir);
    if (!n)
        return arena_strdup(a, dir);
    if (dl <= n || strcmp(dir + dl - n, t) || dir[dl - n - 1] != '/')
        return NULL;
    size_t keep = dl - n - 1;
    return arena_strndup(a, dir, keep ? keep : 1);
}

void host_find_repo_root(arena *a, fn_host *h, const char *dir)
{
    char real[PATH_MAX];
    h->repo_root = NULL;
    if (!realpath(dir, real))
        return; /* the reader reports a missing package in its own words */
    const char *source_path = env("ARGOCD_APP_SOURCE_PATH");
    if (h->app_name && source_path) {
        char *root = strip_tail(a, real, source_path);
        h->repo_root = root ? root : arena_strdup(a, real);
        return;
    }
    /* outside Argo CD: the git work tree, found the way git finds it (a .git directory or file) */
    char probe[PATH_MAX];
    size_t len = strlen(real);
    memcpy(probe, real, len + 1);
    for (;;) {
        struct stat st;
        if (len + 6 < sizeof probe) {
            memcpy(probe + len, "/.git", 6);
            if (lstat(probe, &st) == 0) {
                probe[len ? len : 1] = 0;
                h->repo_root = arena_strdup(a, probe);
                return;
            }
        }
        while (len && probe[len - 1] != '/')
            len--;
        if (len <= 1)
            break;
        len--;
        probe[len] = 0;
    }
    h->repo_root = arena_strdup(a, real);
}
