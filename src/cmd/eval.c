/* `cmp-generate eval DIR --fn NAME`: one function over a directory tree in place, as kpt fn eval. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "render/render.h"

int cmd_eval(int argc, char **argv)
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
                return cmd_usage_error("", "%s needs a value", a);
            if (!strcmp(a, "--fn-config"))
                o.fn_config = argv[i];
            else if (!strcmp(a, "--results-dir"))
                o.results_dir = argv[i];
            else
                o.fn = argv[i];
        } else if (a[0] == '-' && a[1]) {
            return cmd_usage_error("", "unknown option %s", a);
        } else if (o.dir) {
            return cmd_usage_error("", "more than one directory given (%s)", a);
        } else {
            o.dir = a;
        }
    }
    if (!o.fn)
        return cmd_usage_error("", "%s", "eval needs --fn NAME");
    if (!o.dir)
        o.dir = ".";
    if (eval_in_place(&o) < 0) {
        cmd_say_error("");
        return 1;
    }
    return 0;
}
