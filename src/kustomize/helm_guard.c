#include "kustomize/helm_guard.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helm/confine.h"
#include "util/diag.h"
#include "util/limits.h"

extern char **environ;

/* ---- the values helm accepts, as helm and Kubernetes define them ---- */

static bool lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool alnum(char c)
{
    return lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

/* A DNS-1123 label: [a-z0-9]([-a-z0-9]*[a-z0-9])? */
static bool dns_label(const char *s, size_t n)
{
    if (!n || !lower_alnum(s[0]) || !lower_alnum(s[n - 1]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!lower_alnum(s[i]) && s[i] != '-')
            return false;
    return true;
}

const char *helm_release_name_rule(const char *s)
{
    static const char rule[] = "a release name is 1 to 53 lowercase letters, digits, '-' and '.', starting and "
                               "ending with a letter or digit (helm's rule)";
    size_t n = strlen(s);
    if (!n || n > 53)
        return rule;
    for (const char *p = s;;) {
        const char *dot = strchr(p, '.');
        if (!dns_label(p, dot ? (size_t)(dot - p) : strlen(p)))
            return rule;
        if (!dot)
            return NULL;
        p = dot + 1;
    }
}

const char *helm_namespace_rule(const char *s)
{
    size_t n = strlen(s);
    if (n > 63 || !dns_label(s, n))
        return "a namespace is 1 to 63 lowercase letters, digits and '-', starting and ending with a letter or digit";
    return NULL;
}

const char *helm_chart_name_rule(const char *s)
{
    static const char rule[] = "a chart name is letters, digits, '.', '_' and '-', starting with a letter or digit "
                               "(no '/')";
    size_t n = strlen(s);
    if (!n || n > 250 || !alnum(s[0]))
        return rule;
    for (size_t i = 0; i < n; i++)
        if (!alnum(s[i]) && !strchr("._-", s[i]))
            return rule;
    return NULL;
}

const char *helm_version_rule(const char *s)
{
    static const char rule[] = "a chart version is a version or a constraint (letters, digits and . + _ ~ ^ < > = * | "
                               ", - and spaces), not starting with '-'";
    size_t n = strlen(s);
    if (!n || n > 128 || s[0] == '-' || s[0] == ' ')
        return rule;
    for (size_t i = 0; i < n; i++)
        if (!alnum(s[i]) && !strchr(".+_~^<>=*|, -", s[i]))
            return rule;
    return NULL;
}

const char *helm_repo_rule(const char *s)
{
    static const char rule[] = "a chart repository is an http://, https:// or oci:// URL without spaces";
    size_t skip = !strncmp(s, "https://", 8) ? 8 : !strncmp(s, "http://", 7) ? 7 : !strncmp(s, "oci://", 6) ? 6 : 0;
    size_t n = strlen(s);
    if (!skip || n == skip || n > 2048)
        return rule;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f)
            return rule;
    return NULL;
}

const char *helm_api_version_rule(const char *s)
{
    static const char rule[] = "an API version is letters, digits, '.', '/', '_' and '-', starting with a letter or digit";
    size_t n = strlen(s);
    if (!n || n > 253 || !alnum(s[0]))
        return rule;
    for (size_t i = 0; i < n; i++)
        if (!alnum(s[i]) && !strchr("./_-", s[i]))
            return rule;
    return NULL;
}

const char *helm_kube_version_rule(const char *s)
{
    static const char rule[] = "a Kubernetes version is [v]MAJOR[.MINOR[.PATCH]] with an optional -pre or +build suffix";
    const char *p = s;
    if (strlen(s) > 64)
        return rule;
    if (*p == 'v')
        p++;
    for (int part = 0; part < 3; part++) {
        if (!(*p >= '0' && *p <= '9'))
            return rule;
        while (*p >= '0' && *p <= '9')
            p++;
        if (*p != '.')
            break;
        p++;
    }
    if (!*p)
        return NULL;
    if (*p != '-' && *p != '+')
        return rule;
    if (!*++p)
        return rule;
    for (; *p; p++)
        if (!alnum(*p) && *p != '.' && *p != '-')
            return rule;
    return NULL;
}

/* ---- the guard ---- */

static const char *g_root, *g_tmp;
static limits g_limits; /* the operator's limits, as kustomize-build passed them (HELM_GUARD_LIMITS) */

/* HELM_GUARD_LIMITS's six whole numbers over the defaults (a 0 keeps the default). */
static int parse_limits(const char *text)
{
    unsigned long long v[6];
    const char *p = text;
    for (int i = 0; i < 6; i++) {
        if (*p < '0' || *p > '9')
            return -1;
        char *end;
        errno = 0;
        v[i] = strtoull(p, &end, 10);
        if (errno || end == p || (i < 5 ? *end != ' ' : *end != 0))
            return -1;
        p = end + (i < 5);
    }
    if (v[0] > SIZE_MAX || v[1] > SIZE_MAX || v[2] > SIZE_MAX || v[3] > UINT32_MAX || v[5] > SIZE_MAX)
        return -1;
    g_limits.max_chart_files = (size_t)v[0];
    g_limits.max_chart_bytes = (size_t)v[1];
    if (v[2])
        g_limits.max_file_bytes = (size_t)v[2];
    if (v[3])
        g_limits.yaml.max_depth = (uint32_t)v[3];
    if (v[4])
        g_limits.yaml.max_alias_nodes = v[4];
    if (v[5])
        g_limits.max_total_bytes = (size_t)v[5];
    return 0;
}

/* One line on stderr (kustomize passes it on) and the same line in g_tmp for the step's message. The argument
 * came from the package, so it is shown shortened and escaped (shown_in, the one escaping path). */
static int refuse(int i, const char *arg, const char *rule)
{
    char quoted[SHOWN_MAX * 6 + 4], line[1100];
    if (arg)
        snprintf(line, sizeof line, "helm guard refused argument %d \"%s\" that kustomize passed to helm: %s", i,
                 shown_in(quoted, sizeof quoted, arg, SHOWN_MAX), rule);
    else
        snprintf(line, sizeof line, "helm guard: %s", rule);
    fprintf(stderr, "cmp-generate: %s\n", line);
    if (g_tmp && *g_tmp) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", g_tmp, HELM_GUARD_REFUSAL);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0) {
            if (write(fd, line, strlen(line)) < 0) {
            }
            close(fd);
        }
    }
    return 1;
}

static bool within(const char *real, const char *base)
{
    size_t n = strlen(base);
    if (n == 1 && base[0] == '/')
        return true;
    return !strncmp(real, base, n) && (real[n] == 0 || real[n] == '/');
}

static bool has_dotdot(const char *path)
{
    for (const char *p = path; (p = strstr(p, "..")); p += 2)
        if ((p == path || p[-1] == '/') && (p[2] == 0 || p[2] == '/'))
            return true;
    return false;
}

/* Inside the repository, or in kustomize's temporary directory, which holds only what kustomize put there: its
 * copies of values files and the clones of remote bases the operator allowed. */
static bool allowed(const char *real)
{
    return within(real, g_root) || within(real, g_tmp);
}

/* An existing file or directory kustomize names by absolute path. */
static const char *existing_inside(const char *path)
{
    char real[PATH_MAX];
    if (path[0] != '/')
        return "kustomize passes absolute paths here";
    if (!realpath(path, real))
        return "does not exist";
    return allowed(real) ? NULL : "leads outside the repository";
}

/* A directory helm will create (pull --untardir): its nearest existing ancestor is inside the repository. */
static const char *future_dir_inside(const char *path)
{
    char probe[PATH_MAX], real[PATH_MAX];
    if (path[0] != '/' || has_dotdot(path) || strlen(path) >= sizeof probe)
        return "kustomize passes an absolute path without \"..\" here";
    strcpy(probe, path);
    while (!realpath(probe, real)) {
        if (errno != ENOENT && errno != ENOTDIR)
            return "cannot be resolved";
        char *slash = strrchr(probe, '/');
        if (!slash || slash == probe)
            return "leads outside the repository";
        *slash = 0;
    }
    return allowed(real) ? NULL : "leads outside the repository";
}

/* helm follows symlinks inside a chart (templates, .Files): every one must stay in the repository. */
static const char *chart_links_inside(const char *dir, int depth, size_t *count, char *where, size_t wherelen)
{
    if (depth > 32)
        return "the chart is nested deeper than 32 directories";
    DIR *d = opendir(dir);
    if (!d)
        return NULL; /* helm reports what it cannot read */
    const char *bad = NULL;
    struct dirent *e;
    while (!bad && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (++*count > 100000) {
            bad = "the chart has more than 100000 files";
            break;
        }
        char sub[PATH_MAX], real[PATH_MAX];
        struct stat st;
        if ((size_t)snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name) >= sizeof sub || lstat(sub, &st) != 0)
            continue;
        if (S_ISLNK(st.st_mode)) {
            if (!realpath(sub, real))
                continue; /* dangling: helm cannot read through it either */
            if (!allowed(real)) {
                snprintf(where, wherelen, "%s", e->d_name);
                for (char *p = where; *p; p++)
                    if ((unsigned char)*p < 0x20 || *p == 0x7f)
                        *p = '?';
                bad = "the chart has a symlink that leads outside the repository";
            } else if (stat(real, &st) == 0 && S_ISDIR(st.st_mode)) {
                bad = chart_links_inside(real, depth + 1, count, where, wherelen);
            }
        } else if (S_ISDIR(st.st_mode)) {
            bad = chart_links_inside(sub, depth + 1, count, where, wherelen);
        }
    }
    closedir(d);
    return bad;
}

/* The value after flag argv[i], checked by rule; *i moves past it. */
static int value(int argc, char **argv, int *i, const char *(*rule)(const char *))
{
    if (*i + 1 >= argc)
        return refuse(*i, argv[*i], "the flag needs a value");
    const char *why = rule(argv[*i + 1]);
    (*i)++;
    return why ? refuse(*i, argv[*i], why) : 0;
}

static const char *values_file_rule(const char *s)
{
    return existing_inside(s);
}

static const char *chart_dir_rule(const char *s)
{
    return existing_inside(s);
}

static const char *untar_dir_rule(const char *s)
{
    return future_dir_inside(s);
}

/* kustomize 5 runs: version -c --short | version --short */
static int check_version(int argc, char **argv)
{
    for (int i = 2; i < argc; i++)
        if (strcmp(argv[i], "-c") && strcmp(argv[i], "--client") && strcmp(argv[i], "--short"))
            return refuse(i, argv[i], "kustomize asks helm version only with -c and --short");
    return 0;
}

/* pull --untar --untardir DIR (--repo URL NAME | oci://REPO/NAME[@DIGEST]) [--version V] [--devel] */
static int check_pull(int argc, char **argv)
{
    int i = 2;
    if (i >= argc || strcmp(argv[i], "--untar"))
        return refuse(i, i < argc ? argv[i] : "", "kustomize pulls with --untar --untardir DIR");
    i++;
    if (i >= argc || strcmp(argv[i], "--untardir"))
        return refuse(i, i < argc ? argv[i] : "", "kustomize pulls with --untar --untardir DIR");
    if (value(argc, argv, &i, untar_dir_rule))
        return 1;
    i++;
    if (i < argc && !strcmp(argv[i], "--repo")) {
        if (value(argc, argv, &i, helm_repo_rule))
            return 1;
        if (!strncmp(argv[i], "oci://", 6))
            return refuse(i, argv[i], "an oci:// repository is pulled by reference, not with --repo");
        i++;
        if (i >= argc)
            return refuse(i, "", "the chart name is missing");
        const char *why = helm_chart_name_rule(argv[i]);
        if (why)
            return refuse(i, argv[i], why);
    } else if (i < argc && !strncmp(argv[i], "oci://", 6)) {
        const char *why = helm_repo_rule(argv[i]);
        if (why)
            return refuse(i, argv[i], why);
    } else {
        return refuse(i, i < argc ? argv[i] : "", "kustomize pulls --repo URL NAME or an oci:// reference");
    }
    for (i++; i < argc; i++) {
        if (!strcmp(argv[i], "--version")) {
            if (value(argc, argv, &i, helm_version_rule))
                return 1;
        } else if (strcmp(argv[i], "--devel")) {
            return refuse(i, argv[i], "not an argument kustomize passes to helm pull");
        }
    }
    return 0;
}

/* template (RELEASE | --generate-name) CHART_DIR [--namespace NS] [-f FILE]... [--api-versions V]...
 * [--kube-version V] [--include-crds] [--skip-tests] [--no-hooks] [--debug] [--devel] */
static int check_template(int argc, char **argv)
{
    int i = 2;
    if (i >= argc)
        return refuse(i, "", "the release name is missing");
    if (strcmp(argv[i], "--generate-name")) {
        const char *why = helm_release_name_rule(argv[i]);
        if (why)
            return refuse(i, argv[i], why);
    }
    i++;
    if (i >= argc)
        return refuse(i, "", "the chart directory is missing");
    const char *why = chart_dir_rule(argv[i]);
    if (why)
        return refuse(i, argv[i], why);
    char where[NAME_MAX + 1] = "";
    size_t count = 0;
    if ((why = chart_links_inside(argv[i], 0, &count, where, sizeof where))) {
        static char named[NAME_MAX + 100];
        if (where[0]) /* the link's name, never its target */
            snprintf(named, sizeof named, "the chart's symlink \"%s\" leads outside the repository", where);
        return refuse(i, argv[i], where[0] ? named : why);
    }
    /* what render-helm-chart checks before helm runs, values.schema.json "$ref"s first (in the chart's directory
     * and in its archives, read as helm reads them): the same code, for the same reasons */
    char real[PATH_MAX];
    if (!realpath(argv[i], real))
        return refuse(i, argv[i], "cannot be resolved");
    diag_detail d;
    diag_detail *outer = diag_capture(&d);
    int bad = helm_confine_guard(within(real, g_root) ? g_root : g_tmp, real, &g_limits);
    diag_restore(outer);
    if (bad) /* the message names the chart relative to the repository; the argument would show our directories */
        return refuse(0, NULL, d.text);
    for (i++; i < argc; i++) {
        const char *a = argv[i];
        int rc = 0;
        if (!strcmp(a, "--namespace"))
            rc = value(argc, argv, &i, helm_namespace_rule);
        else if (!strcmp(a, "-f") || !strcmp(a, "--values"))
            rc = value(argc, argv, &i, values_file_rule);
        else if (!strcmp(a, "--api-versions"))
            rc = value(argc, argv, &i, helm_api_version_rule);
        else if (!strcmp(a, "--kube-version"))
            rc = value(argc, argv, &i, helm_kube_version_rule);
        else if (!strcmp(a, "--name-template"))
            rc = refuse(i, a, "a name template is a Go template that helm evaluates with the environment in reach; "
                              "use releaseName");
        else if (strcmp(a, "--include-crds") && strcmp(a, "--skip-tests") && strcmp(a, "--no-hooks") &&
                 strcmp(a, "--debug") && strcmp(a, "--devel"))
            rc = refuse(i, a, "not an argument kustomize passes to helm template");
        if (rc)
            return rc;
    }
    return 0;
}

static bool drop_var(const char *e)
{
    static const char *const names[] = {"CMP_HELM_GUARD_", "HELM_CONFIG_HOME=", "HELM_CACHE_HOME=", "HELM_DATA_HOME=",
                                        NULL};
    for (int i = 0; names[i]; i++)
        if (!strncmp(e, names[i], strlen(names[i])))
            return true;
    return false;
}

int helm_guard_main(int argc, char **argv, const char *helm, const char *root, const char *tmp, const char *chart_limits)
{
    g_root = root;
    g_tmp = tmp;
    g_limits = limits_default;
    if (!root || root[0] != '/' || !tmp || tmp[0] != '/')
        return refuse(0, NULL, "started without its repository root and temporary directory");
    if (chart_limits && parse_limits(chart_limits) < 0)
        return refuse(0, NULL, "started with limits that are not six whole numbers");
    if (argc < 2)
        return refuse(1, "", "no helm command");
    int rc;
    if (!strcmp(argv[1], "version"))
        rc = check_version(argc, argv);
    else if (!strcmp(argv[1], "pull"))
        rc = check_pull(argc, argv);
    else if (!strcmp(argv[1], "template"))
        rc = check_template(argc, argv);
    else
        rc = refuse(1, argv[1], "kustomize runs only helm version, pull and template");
    if (rc)
        return rc;
    if (!helm || !*helm)
        return refuse(0, NULL, "helm is not installed on the sidecar (PATH, or HELM_BIN)");

    /* helm's config, cache and data (plugins!) are ours, whatever a package's configHome said */
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 4, sizeof *env);
    char cfg[PATH_MAX + 32], cache[PATH_MAX + 32], data[PATH_MAX + 32];
    if (!env)
        return refuse(0, NULL, "out of memory");
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!drop_var(environ[i]))
            env[m++] = environ[i];
    snprintf(cfg, sizeof cfg, "HELM_CONFIG_HOME=%s/helm/config", tmp);
    snprintf(cache, sizeof cache, "HELM_CACHE_HOME=%s/helm/cache", tmp);
    snprintf(data, sizeof data, "HELM_DATA_HOME=%s/helm/data", tmp);
    env[m++] = cfg;
    env[m++] = cache;
    env[m++] = data;
    env[m] = NULL;
    argv[0] = (char *)helm;
    execve(helm, argv, env);
    char why[300];
    snprintf(why, sizeof why, "cannot run helm (%s): %s", helm, strerror(errno));
    free(env);
    return refuse(0, NULL, why);
}
