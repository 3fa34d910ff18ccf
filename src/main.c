/* cmp-generate: renders a kpt package for Argo CD. All or nothing: the stream goes to stdout only when the whole
 * render succeeded; any error is one line on stderr and exit status 1 (2 for a usage error). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "functions/function.h"
#include "kustomize/helm_guard.h"
#include "settings/host.h"
#include "util/arena.h"
#include "util/diag.h"
#include "util/fsutil.h"

static const char usage[] =
    "usage: cmp-generate [render] [DIR] [-o yaml|json] [--keep-config] [--results-dir DIR]\n"
    "       cmp-generate render --in-place DIR [--results-dir DIR]\n"
    "       cmp-generate eval DIR --fn NAME [--fn-config FILE] [--results-dir DIR] [-- key=value ...]\n"
    "       cmp-generate fn NAME < resource-list.yaml\n"
    "       cmp-generate pkg get REPO[/DIR][@REF] [DEST]\n"
    "       cmp-generate init | parameters\n"
    "       cmp-generate functions [--markdown] | settings [--json|--yaml|--markdown]\n"
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

/* The subcommands (src/cmd/, one file each). limits: the operator's CMP_* values must be valid first, and every
 * allocation from then on counts against the memory budget they give; settings only prints the table. */
typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    bool limits;
    /* with limits: every allocation counts against the memory budget. Not for the server, which bounds each
     * request's work itself and answers a 5xx past a limit: the budget's way out, ending the process, would end
     * every request in flight with it. */
    bool budget;
} command;

static const command commands[] = {
    {"render", cmd_render, true, true},
    {"eval", cmd_eval, true, true},
    {"fn", cmd_fn, true, true},
    {"init", cmd_init, true, true},
    {"parameters", cmd_parameters, true, true},
    {"pkg", cmd_pkg, true, true},
    {"serve-params", cmd_serve_params, true, false},
    {"settings", cmd_settings, false, false},
    {"functions", cmd_functions, false, false},
};

/* "pkg" is also a common directory name: it is the subcommand only when a pkg verb follows or no such directory
 * exists (`cmp-generate pkg` renders ./pkg). */
static bool is_command(const command *c, int argc, char **argv)
{
    if (strcmp(argv[1], c->name))
        return false;
    if (strcmp(c->name, "pkg"))
        return true;
    return (argc > 2 && (!strcmp(argv[2], "get") || !strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) ||
           !is_dir("pkg");
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
    const command *cmd = NULL;
    for (size_t i = 0; argc > 1 && i < sizeof commands / sizeof *commands && !cmd; i++)
        if (is_command(&commands[i], argc, argv))
            cmd = &commands[i];
    if (cmd && !cmd->limits)
        return cmd->run(argc - 2, argv + 2);
    /* A CMP_* value that breaks its rule is the operator's mistake: say so rather than run with a default they
     * did not choose. parameters keeps its contract (a JSON array on stdout, exit 0) and says it on stderr. */
    if (limits_ok < 0) {
        if (cmd && cmd->run == cmd_parameters) {
            cmd_say_error("parameters: ");
            return write_all(STDOUT_FILENO, "[]\n", 3) < 0 ? 1 : 0;
        }
        cmd_say_error("");
        return 2;
    }
    if (!cmd || cmd->budget)
        mem_budget_set(host_limits()->max_memory_bytes, host_limits()->memory_why);
    /* no subcommand: render, as Argo CD runs us (`cmp-generate` in the package directory) */
    return cmd ? cmd->run(argc - 2, argv + 2) : cmd_render(argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
    /* kustomize runs us as its --helm-command; CMP_HELM_GUARD_* are ours, not the operator's, and out of an
     * author's reach (see kustomize/helm_guard.h) */
    const char *guard_helm = getenv(HELM_GUARD_HELM);
    if (guard_helm)
        return helm_guard_main(argc, argv, guard_helm, getenv(HELM_GUARD_ROOT), getenv(HELM_GUARD_TMP),
                               getenv(HELM_GUARD_LIMITS));
    int rc = run(argc, argv);
    cmd_say_warnings();
    return rc;
}
