/* `cmp-generate init` (plugin.yaml's init command): prepares what a render will need and nothing else. Today that
 * is Helm chart dependencies: a chart whose charts/ lacks what its lock file (or, without one, Chart.yaml) lists gets
 * `helm dependency build`.
 * Quick and silent when there is nothing to do. It runs under the `timeout` budget it shares with the render that
 * follows (render/deadline.h). */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "settings/host.h"
#include "settings/settings.h"
#include "functions/tools/external.h"
#include "helm/fetch.h"
#include "render/deadline.h"
#include "cmd/cmd.h"
#include "render/render.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/fsutil.h"

static int visit(fn_ctx *c, const char *dir, int depth)
{
    if (depth > 32)
        return 0;
    bool chart = file_exists(path_join(c->a, dir, "Chart.yaml"));
    const engine_ctx *engine = fn_engine(c);
    if (chart && helm_chart_has_dependencies(engine, dir) && helm_dependency_build(engine, NULL, dir, NULL) < 0)
        return -1;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        if (e->d_name[0] == '.' || (chart && !strcmp(e->d_name, "charts")))
            continue; /* hidden dirs (.git) and a chart's own subcharts need nothing */
        char *sub = path_join(c->a, dir, e->d_name);
        struct stat st;
        if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
            rc = visit(c, sub, depth + 1);
    }
    closedir(d);
    return rc;
}

static int init_package(const char *dir)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    package pkg = {.abs = dir, .rel = ""};
    fn_host host;
    host_from_env(&host);
    host_find_repo_root(a, &host, dir);
    fn_ctx c = {.a = a, .st = st, .pkg = &pkg, .config_file = dir, .host = &host};
    settings set;
    int rc = -1;
    diag_set_step("parameters");
    if (settings_load(a, st, &set) == 0) {
        diag_set_step("init");
        if (deadline_start_init(dir, set.timeout_seconds, host.app_name != NULL) == 0)
            rc = visit(&c, dir, 0);
        if (rc < 0)
            deadline_forget_init(dir);
    }
    strtab_release(st);
    arena_free(a);
    return rc;
}

int cmd_init(int argc, char **argv)
{
    if (init_package(argc > 0 ? argv[0] : ".") < 0) {
        cmd_say_error("");
        return 1;
    }
    return 0;
}
