/* `cmp-generate functions [--markdown]`: the built-in functions, from their definitions (functions/function.h). The
 * plain form is one line each, name and summary; --markdown is the README's function table, which tests/readme
 * checks against this output, so the table cannot drift from the code. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "functions/function.h"
#include "util/buf.h"
#include "util/fsutil.h"

int cmd_functions(int argc, char **argv)
{
    bool markdown = argc > 0 && !strcmp(argv[0], "--markdown");
    if (argc > 1 || (argc == 1 && !markdown))
        return cmd_usage_error("", "%s", "usage: cmp-generate functions [--markdown]");
    buf out = {0};
    if (markdown)
        buf_puts(&out, "| function | what it does | differs from the catalog (on purpose) | versions |\n"
                       "| --- | --- | --- | --- |\n");
    for (const fn_def *const *f = fn_all(); *f; f++) {
        const fn_def *d = *f;
        if (!markdown) {
            buf_printf(&out, "%-30s %s\n", d->name, d->summary);
            continue;
        }
        buf_printf(&out, "| `%s` | %s | %s | %s |\n", d->name, d->readme.does, d->readme.differs, d->readme.versions);
    }
    int rc = write_all(STDOUT_FILENO, out.data, out.len) < 0 ? 1 : 0;
    buf_free(&out);
    return rc;
}
