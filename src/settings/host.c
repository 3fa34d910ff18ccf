#include "settings/host.h"

#include <errno.h>
#include <stddef.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/path.h"
#include "settings/app_meta.h"
#include "settings/settings.h"
#include "util/diag.h"
#include "util/fsutil.h"
#include "util/url.h"
#include "yaml/load.h"

extern char **environ;

#define FILE_BYTES_DEFAULT ((size_t)64 << 20) /* CMP_MAX_FILE_BYTES, unless the budget's share is smaller */

/* An empty variable counts as unset, as a shell user expects of `HELM_BIN= cmd`. */
static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* The value as the error shows it: short, escaped, one line (it comes from the operator, not from a secret). */
static const char *operator_value_shown(const char *v, char *out, size_t cap)
{
    return shown_in(out, cap, v, 40);
}

static int env_number(const char *name, bool bytes, unsigned long long max, const char *rule, unsigned long long *dst)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return 0; /* empty is unset: how a manifest clears a variable it inherits */
    unsigned long long n;
    if (parse_env_number(v, bytes, 1, max, &n) < 0) {
        char shown_buf[40 * 6 + 4];
        return fail(NULL, 0, "%s must be %s (got \"%s\")", name, rule, operator_value_shown(v, shown_buf, sizeof shown_buf));
    }
    *dst = n;
    return 0;
}

/* The operator's limits, made here once (host_limits_from_env) and handed down by the commands in the contexts of a
 * run; never written anywhere else. */
static limits operator_limits;
static bool operator_limits_made;

const limits *host_limits(void)
{
    return operator_limits_made ? &operator_limits : &limits_default;
}

/* Stores v (checked against the variable's max, so it fits) in the field of width bytes at p. */
static void store_limit(void *p, size_t width, unsigned long long v)
{
    if (width == sizeof(uint64_t)) {
        uint64_t u = v;
        memcpy(p, &u, sizeof u);
    } else {
        _Static_assert(sizeof(int) == sizeof(uint32_t), "child_timeout_s is stored as 32 bits");
        uint32_t u = (uint32_t)v;
        memcpy(p, &u, sizeof u);
    }
}

int host_limits_from_env(void)
{
    _Static_assert(SIZE_MAX == UINT64_MAX, "the rules below state 2^64-1 as the largest size");
    static const char bytes_rule[] = "a whole number of bytes from 1 to 2^64-1, optionally ending in K, M or G";
    /* the memory budget first: the input limits' defaults follow from it (a value that is set wins) */
    static char memory_why[300];
    unsigned long long memory_mb = 0;
    if (env_number("CMP_MAX_MEMORY_MB", false, 1ULL << 30, "a whole number of MB from 1 to 1073741824",
                   &memory_mb) < 0)
        return -1;
    size_t budget = host_memory_budget(memory_mb, "/sys/fs/cgroup/memory.max",
                                       "/sys/fs/cgroup/memory/memory.limit_in_bytes", memory_why, sizeof memory_why);
    size_t total = host_total_bytes_default(budget), file = total < FILE_BYTES_DEFAULT ? total : FILE_BYTES_DEFAULT;
    /* a script's values are the render's memory too: by default a script may take half the render's budget (at most
     * 512 MB), so that it meets its own limit, named for the script's line, before the render's */
    const limits *def = &limits_default;
    size_t starlark_mb = budget ? (budget >> 21) : def->starlark_max_memory_mb;
    if (starlark_mb > def->starlark_max_memory_mb)
        starlark_mb = def->starlark_max_memory_mb;
    if (!starlark_mb)
        starlark_mb = 1;
    /* argocd-cmp-server, in the same container, holds our whole stdout in a buffer and copies it several times
     * (String(), []byte, the split into documents) before it answers: an output of a 16th of our budget leaves it
     * room in the quarter of the container the budget does not take (12 MB under the Components' 256Mi); at most
     * Argo CD's own gRPC limit (found by an attacker's review: 100 MiB under any container was the default) */
    size_t output = budget ? budget / 16 : def->max_output_bytes;
    if (output > def->max_output_bytes)
        output = def->max_output_bytes;
    if (output < (1u << 20))
        output = 1u << 20;
    struct {
        const char *name;
        bool bytes;
        unsigned long long max;
        const char *rule;
        unsigned long long value;
        size_t at, width; /* the field of struct limits it sets */
    } vars[] = {
#define FIELD(f) offsetof(limits, f), sizeof(((limits *)0)->f)
        {"CMP_MAX_FILE_BYTES", true, SIZE_MAX, bytes_rule, file, FIELD(max_file_bytes)},
        {"CMP_MAX_TOTAL_BYTES", true, SIZE_MAX, bytes_rule, total, FIELD(max_total_bytes)},
        {"CMP_MAX_OUTPUT_BYTES", true, SIZE_MAX, bytes_rule, output, FIELD(max_output_bytes)},
        {"CMP_MAX_OBJECTS", false, SIZE_MAX, "a whole number of objects from 1 to 2^64-1", def->max_objects, FIELD(max_objects)},
        /* the emitter and the functions' walks recurse once per level: the cap keeps them inside the stack */
        {"CMP_MAX_DEPTH", false, 100000, "a whole number of levels from 1 to 100000", def->yaml.max_depth, FIELD(yaml.max_depth)},
        {"CMP_MAX_ALIAS_NODES", false, UINT64_MAX, "a whole number of nodes from 1 to 2^64-1", def->yaml.max_alias_nodes,
         FIELD(yaml.max_alias_nodes)},
        /* Argo CD gives a plugin 60 s (90 s at most by its own settings); an hour is far past any of it */
        {"CMP_CHILD_TIMEOUT", false, 3600, "a whole number of seconds from 1 to 3600", (unsigned long long)def->child_timeout_s,
         FIELD(child_timeout_s)},
        {"CMP_MAX_REGEX_STEPS", false, UINT32_MAX, "a whole number of pcre2 match steps from 1 to 2^32-1", def->max_regex_steps,
         FIELD(max_regex_steps)},
        {"CMP_MAX_CHART_FILES", false, SIZE_MAX, "a whole number of files from 1 to 2^64-1", def->max_chart_files,
         FIELD(max_chart_files)},
        {"CMP_MAX_CHART_BYTES", true, SIZE_MAX, bytes_rule, def->max_chart_bytes, FIELD(max_chart_bytes)},
        {"CMP_MAX_GLOB_STEPS", false, SIZE_MAX, "a whole number of glob match steps from 1 to 2^64-1", def->max_glob_steps,
         FIELD(max_glob_steps)},
        {"CMP_STARLARK_MAX_STEPS", false, SIZE_MAX, "a whole number of steps from 1 to 2^64-1", def->starlark_max_steps,
         FIELD(starlark_max_steps)},
        {"CMP_STARLARK_MAX_MEMORY_MB", false, 1u << 20, "a whole number of MB from 1 to 1048576", starlark_mb,
         FIELD(starlark_max_memory_mb)},
        /* each nested call costs the C stack; the interpreter also stops at 4 MB of it whatever this says */
        {"CMP_STARLARK_MAX_DEPTH", false, 100000, "a whole number of calls from 1 to 100000", def->starlark_max_depth,
         FIELD(starlark_max_depth)},
        {"CMP_STARLARK_MAX_LEN", false, SIZE_MAX, "a whole number of elements from 1 to 2^64-1", def->starlark_max_len,
         FIELD(starlark_max_len)},
#undef FIELD
    };
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        if (env_number(vars[i].name, vars[i].bytes, vars[i].max, vars[i].rule, &vars[i].value) < 0)
            return -1;
    /* every value is good: only now do the limits change (a bad one leaves them as they were) */
    limits made = *def;
    made.max_memory_bytes = budget;
    made.memory_why = memory_why;
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        store_limit((char *)&made + vars[i].at, vars[i].width, vars[i].value);
    operator_limits = made;
    operator_limits_made = true;
    return 0;
}

static int flag(const char *v)
{
    if (!v || !strcmp(v, "false"))
        return 0;
    return !strcmp(v, "true") ? 1 : -1;
}

static int meta_env(const char *name, const char **out)
{
    const char *v = getenv(name);
    *out = v && *v ? v : NULL;
    return meta_value_check(NULL, name, *out);
}

int host_app_meta(arena *a, app_meta *m)
{
    memset(m, 0, sizeof *m);
    if (meta_env("ARGOCD_APP_NAME", &m->name) < 0 || meta_env("ARGOCD_APP_NAMESPACE", &m->namespace) < 0 ||
        meta_env("ARGOCD_APP_PROJECT_NAME", &m->project) < 0 || meta_env("ARGOCD_APP_REVISION", &m->revision) < 0 ||
        meta_env("ARGOCD_APP_SOURCE_REPO_URL", &m->repo) < 0 ||
        meta_env("ARGOCD_APP_SOURCE_TARGET_REVISION", &m->target_revision) < 0 ||
        meta_env("ARGOCD_APP_SOURCE_PATH", &m->path) < 0)
        return -1;
    /* Argo CD passes the Application's repoURL as written, credentials and all */
    if (m->repo)
        m->repo = url_strip_credentials(a, m->repo);
    return 0;
}

/* Argo CD's InstanceName is "<app namespace>_<name>" for an Application outside the control-plane namespace; its
 * Helm source templates with the part after the first '_' (strings.SplitN(name, "_", 2) in ParseInstanceName). An
 * Application name cannot hold '_' (a DNS subdomain), so the cut is never inside the name. */
static const char *release_name(const char *app_name)
{
    const char *u = app_name ? strchr(app_name, '_') : NULL;
    return u && u[1] ? u + 1 : app_name;
}

/* The schemas the project ships: data/kubernetes-openapi beside the binary (a build tree: ./cmp-generate), else
 * ../share/cmp-generate/kubernetes-openapi (an installed binary: the Dockerfile's /usr/local/bin). NULL when neither
 * exists (the validators then fail naming CMP_KUBE_OPENAPI_DIR). */
static const char *default_kube_openapi_dir(void)
{
    static char dir[PATH_MAX];
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return NULL;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash)
        return NULL;
    *slash = 0;
    static const char *const rel[] = {"data/kubernetes-openapi", "../share/cmp-generate/kubernetes-openapi"};
    for (size_t i = 0; i < sizeof rel / sizeof *rel; i++) {
        struct stat st;
        if (snprintf(dir, sizeof dir, "%s/%s", exe, rel[i]) < (int)sizeof dir && !stat(dir, &st) && S_ISDIR(st.st_mode))
            return dir;
    }
    return NULL;
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
    const limits *L = host_limits();
    h->limits = L;
    h->child_timeout_ms = L->child_timeout_s * 1000; /* CMP_CHILD_TIMEOUT, checked by host_limits_from_env */
    h->kube_version = env("KUBE_VERSION");
    h->kube_api_versions = env("KUBE_API_VERSIONS");
    h->health_kinds = env("CMP_GENERATE_HEALTH_KINDS");
    h->app_name = env("ARGOCD_APP_NAME");
    h->app_namespace = env("ARGOCD_APP_NAMESPACE");
    h->helm_values = NULL; /* the Application's parameters: set by the render from settings/settings.h */
    h->app_dir = NULL;
    h->helm_value_files = NULL;
    h->helm_ignore_missing_value_files = false;
    h->helm_parameters = NULL;
    h->helm_release_name = NULL;
    h->helm_skip_crds = h->helm_skip_tests = h->helm_skip_schema_validation = false;
    h->helm_verify_prov = false;
    /* kustomize: a value that is neither true nor false is kept as -1 so the step can name the variable */
    h->kustomize_enable_helm = flag(env("CMP_KUSTOMIZE_ENABLE_HELM"));
    h->kustomize_load_restrictor = env("CMP_KUSTOMIZE_LOAD_RESTRICTOR");
    if (!h->kustomize_load_restrictor)
        h->kustomize_load_restrictor = "LoadRestrictionsRootOnly";
    h->allow_remote_sources = flag(env("CMP_ALLOW_REMOTE_SOURCES"));
    /* helm: an unclear value allows nothing */
    h->allow_remote_values = flag(env("CMP_ALLOW_REMOTE_VALUES")) == 1;
    h->max_chart_files = L->max_chart_files;
    h->max_chart_bytes = L->max_chart_bytes;
    h->starlark_max_steps = L->starlark_max_steps;
    h->starlark_max_memory_mb = L->starlark_max_memory_mb;
    h->starlark_max_depth = L->starlark_max_depth;
    h->starlark_max_len = L->starlark_max_len;
    h->helm_credentials_dir = env("CMP_HELM_CREDENTIALS_DIR");
    h->helm_plain_http_registries = env("CMP_HELM_PLAIN_HTTP_REGISTRIES");
    h->skip_validators = settings_skip_validators();
    h->helm_keyring = env("CMP_HELM_KEYRING");
    h->cosign_bin = env("CMP_COSIGN_BIN");
    h->cosign_keys_dir = env("CMP_COSIGN_KEYS_DIR");
    h->notation_bin = env("CMP_NOTATION_BIN");
    h->notation_config_dir = env("CMP_NOTATION_CONFIG_DIR");
    h->skopeo_bin = env("CMP_SKOPEO_BIN");
    h->helm_chart_cache = env("CMP_HELM_CHART_CACHE");
    h->kube_openapi_dir = settings_kube_openapi_dir();
    if (!h->kube_openapi_dir)
        h->kube_openapi_dir = default_kube_openapi_dir();
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
    /* plain digits, as for the other CMP_* numbers: strtol alone would take " 5", "+5" and "-0" */
    size_t digits = strspn(v, "0123456789");
    errno = 0;
    long n = digits && !v[digits] ? strtol(v, NULL, 10) : -1;
    if (errno || n < 0 || n > max) {
        char range[32];
        snprintf(range, sizeof range, "%ld", max);
        child_setting_error(h, "%s must be a whole number from 0 (no limit) to %s", name, range);
        return def;
    }
    return n;
}

long long host_cgroup_memory_limit(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    char text[32]; /* "max\n" or at most 20 digits and a newline: anything longer is not a limit */
    ssize_t n = read(fd, text, sizeof text);
    close(fd);
    if (n <= 0 || n == (ssize_t)sizeof text)
        return -1;
    if (text[n - 1] == '\n')
        n--;
    text[n] = 0;
    if (!strcmp(text, "max"))
        return 0;
    if (text[0] < '0' || text[0] > '9')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (*end || (errno && v != ULLONG_MAX))
        return -1;
    /* v1 writes "no limit" as the largest page count in bytes (9223372036854771712 with 4 KiB pages); no real
     * container has 4 EiB, so anything that large is no limit, whatever the page size */
    return v >= 1ULL << 62 ? 0 : (long long)v;
}

/* The render and its children share the sidecar container's cgroup, with argocd-cmp-server: whatever goes past the
 * container's limit meets the kernel's OOM killer, a bare SIGKILL instead of our error, possibly for
 * argocd-cmp-server too. So the render's memory (and a child's, held from it while the child runs: see
 * engine/run.c) is 3/4 of the container's; the other quarter holds argocd-cmp-server with the repository it
 * unpacked, what the budget does not count (our code, stacks and the heap's own overhead) and helm's own children. */
size_t host_memory_budget(unsigned long long explicit_mb, const char *v2_path, const char *v1_path, char *why,
                          size_t cap)
{
    if (explicit_mb) {
        snprintf(why, cap, "CMP_MAX_MEMORY_MB=%llu; the operator raises it in the sidecar's environment", explicit_mb);
        return (size_t)explicit_mb << 20;
    }
    long long limit = host_cgroup_memory_limit(v2_path);
    if (limit < 0)
        limit = host_cgroup_memory_limit(v1_path);
    if (limit <= 0) { /* no limit, or none that we can read: the container the shipped Components declare */
        snprintf(why, cap, "CMP_MAX_MEMORY_MB unset and no container memory limit visible: 3/4 of the 256Mi the "
                           "shipped Components give the sidecar; the operator raises it with CMP_MAX_MEMORY_MB");
        return (size_t)MEMORY_DEFAULT_MB << 20;
    }
    unsigned long long mib = (unsigned long long)limit >> 20;
    snprintf(why, cap, "CMP_MAX_MEMORY_MB unset: 3/4 of the sidecar container's %llu MiB memory limit; the operator "
                       "raises the container's limit or sets CMP_MAX_MEMORY_MB", mib);
    size_t share = (size_t)limit / 4 * 3 & ~(((size_t)1 << 20) - 1); /* whole MB, as the error states it */
    return share < ((size_t)1 << 20) ? (size_t)1 << 20 : share;
}

size_t host_total_bytes_default(size_t budget)
{
    size_t total = budget / MEMORY_PER_INPUT_BYTE;
    return total ? total : 1;
}

void host_children_from_env(fn_host *h)
{
    h->child_settings_error = NULL;
    /* Unset, a child's memory comes out of the render's budget when it starts (engine/run.c), so the two
     * together stay within it. An explicit value wins and is not held against the budget: the operator may know
     * better (swap, a limit raised later), and sizes CMP_MAX_MEMORY_MB beside it. */
    bool explicit_memory = env("CMP_CHILD_MAX_MEMORY_MB") != NULL;
    h->child_memory_shared = !explicit_memory;
    h->child_max_memory_mb = explicit_memory ? child_number(h, "CMP_CHILD_MAX_MEMORY_MB", 0, 1L << 30) : 0;
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
            else if (!strncmp(name, "CMP_HELM_GUARD_", 15)) /* passed on, it would move the guard's confinement */
                child_setting_error(h, "CMP_CHILD_ENV: %s is cmp-generate's own (the helm guard's limits under "
                                       "kustomize): it is never passed to helm or kustomize%s", name, "");
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
    h->app_dir = NULL;
    if (!realpath(dir, real))
        return; /* the reader reports a missing package in its own words */
    h->app_dir = arena_strdup(a, real);
    /* Under Argo CD the repository is the copy the cmp-server unpacked, and the app directory is the source path
     * inside it; an empty source path (the Application names none) is the root itself. Never look above it for a
     * .git: whatever holds the work dir is not the repository. */
    const char *source_path = env("ARGOCD_APP_SOURCE_PATH");
    if (h->app_name) {
        char *root = source_path ? strip_tail(a, real, source_path) : NULL;
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

/* A URL helm can take as one --values argument: http(s), printable ASCII without spaces, no comma (helm splits
 * --values on commas), at most 2048 bytes. */
static bool values_url(const char *f)
{
    if (strncmp(f, "https://", 8) && strncmp(f, "http://", 7))
        return false;
    size_t n = strlen(f);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)f[i] <= 0x20 || (unsigned char)f[i] >= 0x7f || f[i] == ',')
            return false;
    return n <= 2048;
}

#define APP_FILES "parameter \"helm-value-files\""

/* One entry of helm-value-files, read as Argo CD reads valueFiles: relative to the Application's directory, or to
 * the repository root when it starts with '/'; resolved one step at a time inside the repository, whatever
 * symlinks say. *out: the real path, the URL, or NULL for a missing file skipped on request. A URL is never
 * repeated in a message: it may carry credentials. */
static int app_value_file(arena *a, const fn_host *h, const char *f, uint32_t i, const char **out)
{
    *out = NULL;
    if (!*f)
        return fail(NULL, 0, "%s: entry %u is empty", APP_FILES, i + 1);
    if (strstr(f, "://")) {
        if (!h->allow_remote_values)
            return fail(NULL, 0,
                        "%s: entry %u is a URL; value files must be files in the repository (the sidecar's operator "
                        "can allow remote values with CMP_ALLOW_REMOTE_VALUES=true)",
                        APP_FILES, i + 1);
        if (!values_url(f))
            return fail(NULL, 0,
                        "%s: entry %u is not a URL helm can take (https:// or http://, no spaces, control characters "
                        "or commas, at most 2048 bytes)",
                        APP_FILES, i + 1);
        *out = f;
        return 0;
    }
    const char *root = h->repo_root ? h->repo_root : h->app_dir;
    if (!root || !h->app_dir)
        return fail(NULL, 0, "%s: the Application's directory cannot be resolved", APP_FILES);
    const char *full = f[0] == '/' ? arena_printf(a, "%s%s", strcmp(root, "/") ? root : "", f)
                                   : arena_printf(a, "%s/%s", h->app_dir, f);
    char real[PATH_MAX];
    struct stat st;
    switch (resolve_beneath(root, full, real)) {
    case CONFINED_OUTSIDE:
        return fail(NULL, 0,
                    "%s: value file \"%s\" leads outside the repository (by \"..\" or a symlink); only files inside "
                    "the repository may be read",
                    APP_FILES, shown(a, f));
    case CONFINED_MISSING:
        if (h->helm_ignore_missing_value_files)
            return 0;
        return fail(NULL, 0,
                    "%s: value file \"%s\" does not exist (%s; helm-ignore-missing-value-files: \"true\" skips "
                    "missing files)",
                    APP_FILES, shown(a, f),
                    f[0] == '/' ? "a path from the repository root" : "a path from the Application's directory");
    case CONFINED_OK:
        break;
    }
    if (stat(real, &st) != 0 || !S_ISREG(st.st_mode))
        return fail(NULL, 0, "%s: value file \"%s\" is not a file", APP_FILES, shown(a, f));
    if (strchr(real, ','))
        return fail(NULL, 0, "%s: value file \"%s\": its path has a comma, which helm's --values splits on",
                    APP_FILES, shown(a, f));
    *out = arena_strdup(a, real);
    return 0;
}

int host_helm_parameters(arena *a, fn_host *h, const settings *s)
{
    h->helm_ignore_missing_value_files = s->helm_ignore_missing_value_files;
    h->helm_parameters = s->helm_parameters;
    h->helm_release_name = s->helm_release_name;
    h->helm_skip_crds = s->helm_skip_crds;
    h->helm_skip_tests = s->helm_skip_tests;
    h->helm_skip_schema_validation = s->helm_skip_schema_validation;
    h->helm_verify_prov = s->helm_verify_prov;
    uint32_t n = node_len(s->helm_value_files), kept = 0;
    const char **files = n ? arena_alloc(a, (n + 1) * sizeof *files) : NULL;
    seq_foreach(s->helm_value_files, i, item) {
        const char *f = scalar(item); /* settings_load checked: strings only */
        if (app_value_file(a, h, f, i, &files[kept]) < 0)
            return -1;
        kept += files[kept] != NULL;
    }
    if (files)
        files[kept] = NULL;
    h->helm_value_files = files;
    return 0;
}

void host_git_env(gitsrc_env *g)
{
    g->ceiling_directories = env("GIT_CEILING_DIRECTORIES");
    g->cache_home = env("XDG_CACHE_HOME");
    g->tmpdir = env("TMPDIR");
    g->limits = host_limits();
}
