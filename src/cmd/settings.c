/* `cmp-generate settings`: the operator's settings table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "settings/settings.h"
#include "util/buf.h"
#include "util/fsutil.h"

/* The settings table in the forms the project publishes it: plugin.yaml's parameters.static, README, JSON. */
int cmd_settings(int argc, char **argv)
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
        return cmd_usage_error("", "settings takes --json, --yaml or --markdown, not %s", form);
    int rc = write_all(STDOUT_FILENO, out.data, out.len) < 0 ? 1 : 0;
    buf_free(&out);
    return rc;
}
