/* cmp-generate: renders a kpt package for Argo CD. All or nothing: the stream goes to stdout only when the whole
 * render succeeded; any error is one line on stderr and exit status 1 (2 for a usage error). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "argocd/host.h"
#include "argocd/parameters.h"
#include "argocd/settings.h"
#include "cmd/cmd.h"
#include "functions/function.h"
#include "functions/kustomize_helm_guard.h"
#include "git/git.h"
#include "render/render.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/fsutil.h"

static const char usage[] =
    "usage: cmp-generate [render] [DIR] [-o yaml|json] [--keep-config] [--results-dir DIR]\n"
    "       cmp-generate render --in-place DIR [--results-dir DIR]\n"
    "       cmp-generate eval DIR --fn NAME [--fn-config FILE] [--results-dir DIR] [-- key=value ...]\n"
    "       cmp-generate fn NAME < resource-list.yaml\n"
    "       cmp-generate pkg get REPO[/DIR][@REF] [DEST]\n"
    "       cmp-generate init | parameters\n"
    "       cmp-generate serve-params [--listen HOST:PORT] [--base-path PATH]\n"
    "       cmp-generate --help | --version\n"
    "\n"
    "Renders the kpt package in DIR (default: the current directory, as Argo CD runs it) and prints the\n"
    "resulting Kubernetes objects on stdout: the Kptfile pipelines run with built-in functions, local-config\n"
    "objects are dropped, and every object is annotated with the Argo CD application metadata.\n"
    "\n"
    "  -o, --output yaml|json  YAML documents (default), or one compact JSON object per line\n"
    "  --keep-config           keep the objects that pipeline steps use as configPath\n"
    "  --in-place              write the rendered package back into its files, like kpt fn render\n"
    "  --no-git-metadata       outside Argo CD, do not fill the ARGOCD_APP_* metadata from the git repository\n"
    "  --print-env             print the ARGOCD_APP_* metadata the render would stamp (derived from git when\n"
    "                          the variables are absent) instead of rendering\n"
    "  --convention            without a Kptfile, render by convention: Chart.yaml is a Helm chart, a\n"
    "                          kustomization an overlay, anything else plain YAML (default under Argo CD)\n"
    "  --results-dir DIR       write the functions' results to DIR/results.yaml (FunctionResultList)\n"
    "\n"
    "eval runs one function over a directory tree in place, like kpt fn eval; fn runs one as a KRM function\n"
    "(ResourceList on stdin and stdout) for kpt exec: steps and kustomize exec functions.\n"
    "\n"
    "Environment: ARGOCD_APP_NAME, ARGOCD_APP_NAMESPACE, ARGOCD_APP_PROJECT_NAME, ARGOCD_APP_REVISION,\n"
    "ARGOCD_APP_SOURCE_REPO_URL, ARGOCD_APP_SOURCE_TARGET_REVISION, ARGOCD_APP_SOURCE_PATH (stamped as\n"
    "<domain>/app, ...), ANNOTATION_DOMAIN or ARGOCD_ENV_ANNOTATION_DOMAIN (default cmp-generate).\n";

static size_t warnings_said;

/* Every line main writes to stderr goes through here: Argo CD shows it (argocd app get, the UI, the logs), and what
 * it quotes comes from the package, a child's stderr or the command line, so each byte that could act on a terminal
 * or break the line is written as a visible escape (text_escape in util/diag.h). Text already escaped by shown()
 * comes out the same. */
static void say(const char *head, const char *text)
{
    buf b = {0};
    buf_puts(&b, "cmp-generate: ");
    buf_puts(&b, head);
    text_escape(&b, text, strlen(text));
    buf_putc(&b, '\n');
    fwrite(b.data, 1, b.len, stderr);
    buf_free(&b);
}

/* The warnings recorded since the last call (functions and the render record them; only main prints), in order. */
static void say_warnings(void)
{
    for (const char *w; (w = diag_warning(warnings_said)); warnings_said++)
        say("warning: ", w);
}

/* serve-params's log: one line its server built and escaped (params/server.c), written whole. */
static void log_line(const char *line)
{
    fputs(line, stderr);
    fflush(stderr);
}

/* The run's one error line, after the warnings recorded before it failed. */
static void say_error(const char *prefix)
{
    say_warnings();
    say(prefix, diag_message());
}

/* One usage line for cmd ("" for the top level, "pkg " for pkg), then where the help is. Returns 2, the usage status. */
static int usage_error_of(const char *cmd, const char *fmt, const char *arg)
{
    char head[64], line[2048];
    snprintf(head, sizeof head, "%s%s", cmd, *cmd ? ": " : "");
    snprintf(line, sizeof line, fmt, arg);
    say(head, line);
    fprintf(stderr, "(see cmp-generate %s%s--help)\n", cmd, *cmd ? " " : "");
    return 2;
}

static int usage_error(const char *fmt, const char *arg)
{
    return usage_error_of("", fmt, arg);
}

static int cmd_render(int argc, char **argv)
{
    render_opts o = {.dir = ".", .out_fd = STDOUT_FILENO};
    const char *dir = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            if (++i >= argc)
                return usage_error("%s needs a value: yaml or json", a);
            if (!strcmp(argv[i], "json"))
                o.json = true;
            else if (strcmp(argv[i], "yaml"))
                return usage_error("unknown output format \"%s\" (yaml or json)", argv[i]);
        } else if (!strncmp(a, "--output=", 9) || !strncmp(a, "-o=", 3)) {
            const char *v = strchr(a, '=') + 1;
            if (!strcmp(v, "json"))
                o.json = true;
            else if (strcmp(v, "yaml"))
                return usage_error("unknown output format \"%s\" (yaml or json)", v);
        } else if (!strcmp(a, "--keep-config")) {
            o.keep_config = true;
        } else if (!strcmp(a, "--no-git-metadata")) {
            o.no_git_metadata = true;
        } else if (!strcmp(a, "--print-env")) {
            o.print_env = true;
        } else if (!strcmp(a, "--convention")) {
            o.convention = true;
        } else if (!strcmp(a, "--in-place")) {
            o.in_place = true;
        } else if (!strcmp(a, "--results-dir")) {
            if (++i >= argc)
                return usage_error("%s needs a directory", a);
            o.results_dir = argv[i];
        } else if (a[0] == '-' && a[1]) {
            return usage_error("unknown option %s", a);
        } else if (dir) {
            return usage_error("more than one directory given (%s)", a);
        } else {
            dir = a;
        }
    }
    if (dir)
        o.dir = dir;
    if (render(&o, NULL) < 0) {
        say_error("");
        return 1;
    }
    return 0;
}

static int cmd_eval(int argc, char **argv)
{
    eval_opts o = {0};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            o.kv = argv + i + 1;
            o.nkv = argc - i - 1;
            break;
        }
        if (!strcmp(a, "--fn") || !strcmp(a, "--image") || !strcmp(a, "--exec") || !strcmp(a, "--fn-config") ||
            !strcmp(a, "--results-dir")) {
            if (++i >= argc)
                return usage_error("%s needs a value", a);
            if (!strcmp(a, "--fn-config"))
                o.fn_config = argv[i];
            else if (!strcmp(a, "--results-dir"))
                o.results_dir = argv[i];
            else
                o.fn = argv[i];
        } else if (a[0] == '-' && a[1]) {
            return usage_error("unknown option %s", a);
        } else if (o.dir) {
            return usage_error("more than one directory given (%s)", a);
        } else {
            o.dir = a;
        }
    }
    if (!o.fn)
        return usage_error("%s", "eval needs --fn NAME");
    if (!o.dir)
        o.dir = ".";
    if (eval_in_place(&o) < 0) {
        say_error("");
        return 1;
    }
    return 0;
}

static int cmd_fn(int argc, char **argv)
{
    if (argc != 1 || argv[0][0] == '-')
        return usage_error("%s", "usage: cmp-generate fn NAME < resource-list.yaml");
    buf out = {0};
    if (krm_function(argv[0], &out) < 0) {
        say_error("");
        buf_free(&out);
        return 1;
    }
    int rc = write_all(STDOUT_FILENO, out.data ? out.data : "", out.len) < 0 ? 1 : 0;
    buf_free(&out);
    return rc;
}

/* Argo CD's dynamic parameters: stdout is always a JSON array; problems go to stderr and the exit status stays 0,
 * because Argo CD would otherwise show no parameters at all. */
static int cmd_parameters(int argc, char **argv)
{
    buf out = {0};
    if (print_parameters(argc > 0 ? argv[0] : ".", &out) < 0)
        say_error("parameters: ");
    int rc = write_all(STDOUT_FILENO, out.data, out.len) < 0 ? 1 : 0;
    buf_free(&out);
    return rc;
}

/* The settings table in the forms the project publishes it: plugin.yaml's parameters.static, README, JSON. */
static int cmd_settings(int argc, char **argv)
{
    buf out = {0};
    const char *form = argc > 0 ? argv[0] : "--json";
    if (!strcmp(form, "--yaml"))
        settings_announce_yaml(&out, 6);
    else if (!strcmp(form, "--markdown"))
        settings_markdown(&out);
    else if (!strcmp(form, "--json")) {
        settings_announce_json(&out);
        buf_putc(&out, '\n');
    } else
        return usage_error("settings takes --json, --yaml or --markdown, not %s", form);
    int rc = write_all(STDOUT_FILENO, out.data, out.len) < 0 ? 1 : 0;
    buf_free(&out);
    return rc;
}

static const char pkg_usage[] =
    "usage: cmp-generate pkg get REPO[/DIR][@REF] [DEST]\n"
    "       cmp-generate pkg get REPO.git[/DIR][@REF] [DEST]\n"
    "\n"
    "Fetches DIR (default: the whole repository) of a git repository at REF (a branch, tag, commit SHA or\n"
    "abbreviated SHA; default: the remote's default branch) into DEST, a new or empty directory (default: the\n"
    "last component of DIR or of REPO), and records upstream and upstreamLock in DEST/Kptfile as kpt pkg get\n"
    "does. REPO is a local path, a file:// URL, or an https:// (or ssh) URL; URL//DIR also separates the two.\n"
    "A tag DIR/REF (kpt's per-package versions) wins over REF. Fetches are cached in\n"
    "$XDG_CACHE_HOME/cmp-generate/git (else $TMPDIR/cmp-generate-<uid>/git).\n";

static int pkg_usage_error(const char *fmt, const char *arg)
{
    return usage_error_of("pkg", fmt, arg);
}

/* The `pkg` command: argv holds what follows "pkg" (argv[0] = "get"). Returns the exit status: 0, 1 (error) or 2
 * (usage). */
static int cmd_pkg(int argc, char **argv)
{
    if (argc < 1)
        return pkg_usage_error("%s", "a subcommand is needed: get");
    if (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h") || !strcmp(argv[0], "help")) {
        fputs(pkg_usage, stdout);
        return 0;
    }
    if (strcmp(argv[0], "get"))
        return pkg_usage_error("unknown subcommand \"%s\" (supported: get)", argv[0]);
    const char *pos[2];
    int npos = 0;
    bool opts = true;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (opts && !strcmp(s, "--")) {
            opts = false;
        } else if (opts && (!strcmp(s, "--help") || !strcmp(s, "-h"))) {
            fputs(pkg_usage, stdout);
            return 0;
        } else if (opts && s[0] == '-' && s[1]) {
            return pkg_usage_error("unknown option %s", s);
        } else if (npos == 2) {
            return pkg_usage_error("unexpected argument \"%s\"", s);
        } else {
            pos[npos++] = s;
        }
    }
    if (npos == 0)
        return pkg_usage_error("%s", "get needs REPO[/DIR][@REF] and DEST");
    diag_set_step("pkg get");
    arena *a = arena_new();
    pkg_get_result r;
    int rc = 0;
    gitsrc_env genv;
    host_git_env(&genv);
    if (pkg_get(a, &genv, pos[0], npos > 1 ? pos[1] : NULL, &r) < 0) {
        say_error("");
        rc = 1;
    } else {
        say_warnings();
        say("pkg get: ", arena_printf(a, "%s%s@%s (%.12s) -> %s", r.repo, r.directory, r.ref, r.commit, r.dest));
    }
    arena_free(a);
    return rc;
}

static int run(int argc, char **argv)
{
    int limits_ok = host_limits_from_env();
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help"))) {
        fputs(usage, stdout);
        fputs("\nBuilt-in functions (a Kptfile may name them by any image path, tag or exec binary):\n", stdout);
        for (const fn_def *const *f = fn_all(); *f; f++)
            printf("  %-30s %s\n", (*f)->name, (*f)->summary);
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "--version")) {
        printf("cmp-generate %s\n", CMP_VERSION);
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "settings"))
        return cmd_settings(argc - 2, argv + 2);
    /* A CMP_* value that breaks its rule is the operator's mistake: say so rather than run with a default they
     * did not choose. parameters keeps its contract (a JSON array on stdout, exit 0) and says it on stderr. */
    if (limits_ok < 0) {
        if (argc > 1 && !strcmp(argv[1], "parameters")) {
            say_error("parameters: ");
            return write_all(STDOUT_FILENO, "[]\n", 3) < 0 ? 1 : 0;
        }
        say_error("");
        return 2;
    }
    /* The server bounds each request's work itself (params/internal.h) and answers a 5xx past a limit: the memory
     * budget's way out, ending the process, would end every request in flight with it. */
    if (argc > 1 && !strcmp(argv[1], "serve-params"))
        return cmd_serve_params(argc - 2, argv + 2, say_error, log_line);
    /* from here on every allocation counts against the memory budget the operator's settings give */
    mem_budget_set(cmp_limits.max_memory_bytes, cmp_limits.memory_why);
    if (argc > 1 && !strcmp(argv[1], "render"))
        return cmd_render(argc - 2, argv + 2);
    /* "pkg" is also a common directory name: it is the subcommand only when a pkg verb follows or no such
     * directory exists */
    if (argc > 1 && !strcmp(argv[1], "pkg") &&
        ((argc > 2 && (!strcmp(argv[2], "get") || !strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) || !is_dir("pkg")))
        return cmd_pkg(argc - 2, argv + 2);
    if (argc > 1 && !strcmp(argv[1], "eval"))
        return cmd_eval(argc - 2, argv + 2);
    if (argc > 1 && !strcmp(argv[1], "fn"))
        return cmd_fn(argc - 2, argv + 2);
    if (argc > 1 && !strcmp(argv[1], "init")) {
        if (init_package(argc > 2 ? argv[2] : ".") < 0) {
            say_error("");
            return 1;
        }
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "parameters"))
        return cmd_parameters(argc - 2, argv + 2);
    return cmd_render(argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
    /* kustomize runs us as its --helm-command; CMP_HELM_GUARD_* are ours, not the operator's, and out of an
     * author's reach (see functions/kustomize_helm_guard.h) */
    const char *guard_helm = getenv(HELM_GUARD_HELM);
    if (guard_helm)
        return helm_guard_main(argc, argv, guard_helm, getenv(HELM_GUARD_ROOT), getenv(HELM_GUARD_TMP),
                               getenv(HELM_GUARD_LIMITS));
    int rc = run(argc, argv);
    say_warnings();
    return rc;
}
