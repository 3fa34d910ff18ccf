/* kustomize-build: a Kustomize overlay inside the package as a source, through the real kustomize (or kubectl's
 * built-in kustomize when only kubectl is installed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "functions/external.h"

static int run(fn_ctx *c)
{
    const node *data = config_data(c->config);
    if (!c->config || !is_map(data))
        return fn_fail(c, c->config, "kustomize-build needs a ConfigMap with data.path (the overlay directory)");
    const char *path = path_str(data, "path", NULL);
    if (!path || !*path)
        return fn_fail(c, data, "data.path (the overlay directory) is required");
    const char *dir = strcmp(path, ".") ? inside_package(c, map_get(data, "path"), "overlay", path) : step_dir(c);
    if (!dir)
        return -1;
    const char *enable_helm = path_str(data, "enableHelm", NULL);
    const char *restrictor = path_str(data, "loadRestrictor", NULL);
    if (restrictor && strcmp(restrictor, "LoadRestrictionsRootOnly") && strcmp(restrictor, "LoadRestrictionsNone"))
        return fn_fail(c, map_get(data, "loadRestrictor"), "loadRestrictor must be LoadRestrictionsRootOnly or LoadRestrictionsNone");
    const char *argv[12];
    int n = 0;
    if (!c->host)
        return fn_fail(c, NULL, "kustomize-build cannot run kustomize here");
    const fn_host *h = c->host;
    if (h->kustomize_bin && !find_tool(h->kustomize_bin, h->path, "kustomize"))
        return fn_fail(c, NULL, "KUSTOMIZE_BIN=%s is not an executable", h->kustomize_bin);
    const char *tool = find_tool(h->kustomize_bin, h->path, "kustomize");
    if (tool) {
        argv[n++] = arena_strdup(c->a, tool);
        argv[n++] = "build";
    } else if ((tool = find_tool(h->kubectl_bin, h->path, "kubectl"))) {
        argv[n++] = arena_strdup(c->a, tool);
        argv[n++] = "kustomize";
    } else {
        return fn_fail(c, NULL, "kustomize-build needs kustomize or kubectl (neither is on PATH; set KUSTOMIZE_BIN)");
    }
    argv[n++] = dir;
    if (enable_helm && !strcmp(enable_helm, "true")) {
        argv[n++] = "--enable-helm";
        const char *helm = find_tool(h->helm_bin, h->path, "helm");
        if (helm) {
            argv[n++] = "--helm-command";
            argv[n++] = arena_strdup(c->a, helm);
        }
    }
    if (restrictor) {
        argv[n++] = "--load-restrictor";
        argv[n++] = restrictor;
    }
    argv[n] = NULL;
    static const char *env[3];
    static char home[4200];
    const char *s = scratch_dir(h);
    snprintf(home, sizeof home, "XDG_CONFIG_HOME=%s/kustomize", s ? s : "/tmp");
    env[0] = home;
    env[1] = NULL;
    return run_tool_into_items(c, arena_printf(c->a, "kustomize build %s", path), argv, env, step_dir(c));
}

const fn_def fn_kustomize_build = {
    "kustomize-build",
    "build a Kustomize overlay in the package with the real kustomize (or kubectl kustomize)",
    run,
};
