/* `cmp-generate parameters`: the parameters Argo CD shows for an Application (plugin.yaml's dynamic parameters). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "argocd/parameters.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/fsutil.h"

/* Argo CD's dynamic parameters: stdout is always a JSON array; problems go to stderr and the exit status stays 0,
 * because Argo CD would otherwise show no parameters at all. */
int cmd_parameters(int argc, char **argv)
{
    buf out = {0};
    if (print_parameters(argc > 0 ? argv[0] : ".", &out) < 0)
        cmd_say_error("parameters: ");
    int rc = write_all(STDOUT_FILENO, out.data, out.len) < 0 ? 1 : 0;
    buf_free(&out);
    return rc;
}
