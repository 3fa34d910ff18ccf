/* `cmp-generate [render] [DIR]`: the render Argo CD runs (plugin.yaml's generate), and `render --in-place`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "render/render.h"

int cmd_render(int argc, char **argv)
{
    render_opts o = {.dir = ".", .out_fd = STDOUT_FILENO};
    const char *dir = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            if (++i >= argc)
                return cmd_usage_error("", "%s needs a value: yaml or json", a);
            if (!strcmp(argv[i], "json"))
                o.json = true;
            else if (strcmp(argv[i], "yaml"))
                return cmd_usage_error("", "unknown output format \"%s\" (yaml or json)", argv[i]);
        } else if (!strncmp(a, "--output=", 9) || !strncmp(a, "-o=", 3)) {
            const char *v = strchr(a, '=') + 1;
            if (!strcmp(v, "json"))
                o.json = true;
            else if (strcmp(v, "yaml"))
                return cmd_usage_error("", "unknown output format \"%s\" (yaml or json)", v);
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
                return cmd_usage_error("", "%s needs a directory", a);
            o.results_dir = argv[i];
        } else if (a[0] == '-' && a[1]) {
            return cmd_usage_error("", "unknown option %s", a);
        } else if (dir) {
            return cmd_usage_error("", "more than one directory given (%s)", a);
        } else {
            dir = a;
        }
    }
    if (dir)
        o.dir = dir;
    if (render(&o, NULL) < 0) {
        cmd_say_error("");
        return 1;
    }
    return 0;
}
