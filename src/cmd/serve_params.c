/* cmp-generate serve-params [--listen HOST:PORT] [--base-path PATH]: the ApplicationSet plugin generator's server
 * (src/params). Its settings are the operator's CMP_PARAMS_* variables, read by argocd/settings.c. */
#include <stdio.h>
#include <string.h>

#include "settings/host.h"
#include "settings/settings.h"
#include "cmd/cmd.h"
#include "params/params.h"
#include "util/diag.h"

static const char serve_usage[] =
    "usage: cmp-generate serve-params [--listen HOST:PORT] [--base-path PATH]\n"
    "\n"
    "Answers Argo CD's ApplicationSet plugin generator (POST <baseUrl>/api/v1/getparams.execute): one element per\n"
    "kpt package (a directory with a Kptfile) of the git repository named by the input parameter repoURL.\n"
    "  --listen HOST:PORT   the address to listen on (default 0.0.0.0:4355; [::]:4355 for IPv6)\n"
    "  --base-path PATH     the path part of the ConfigMap's baseUrl, when it has one (default: none)\n"
    "Environment: CMP_PARAMS_TOKEN_FILE and CMP_PARAMS_ALLOWED_REPOS (required), CMP_PARAMS_TIMEOUT,\n"
    "CMP_PARAMS_MAX_PACKAGES, CMP_PARAMS_MAX_CONNECTIONS, CMP_PARAMS_IDLE_TIMEOUT, CMP_PARAMS_CACHE_SECONDS;\n"
    "XDG_CACHE_HOME for the fetch cache. SIGTERM drains the requests in flight.\n";

int cmd_serve_params(int argc, char **argv)
{
    params_opts o = {.listen = "0.0.0.0:4355", .base_path = "", .log = cmd_log_line};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(serve_usage, stdout);
            return 0;
        }
        if ((!strcmp(a, "--listen") || !strcmp(a, "--base-path")) && i + 1 < argc) {
            *(!strcmp(a, "--listen") ? &o.listen : &o.base_path) = argv[++i];
        } else if (!strncmp(a, "--listen=", 9)) {
            o.listen = a + 9;
        } else if (!strncmp(a, "--base-path=", 12)) {
            o.base_path = a + 12;
        } else {
            fail(NULL, 0, "unknown or incomplete argument %s (see cmp-generate serve-params --help)",
                 a[0] == '-' ? a : "(a value)");
            cmd_say_error("serve-params: ");
            return 2;
        }
    }
    diag_set_step("serve-params");
    host_git_env(&o.git);
    o.limits = host_limits();
    if (settings_params(&o.s) < 0 || params_serve(&o) < 0) {
        cmd_say_error("");
        return 1;
    }
    return 0;
}
