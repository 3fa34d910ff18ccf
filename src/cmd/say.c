/* Every line cmp-generate writes to stderr goes through here: Argo CD shows it (argocd app get, the UI, the logs),
 * and what it quotes comes from the package, a child's stderr or the command line, so each byte that could act on a
 * terminal or break the line is written as a visible escape (text_escape in util/diag.h). Text already escaped by
 * shown() comes out the same. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "util/buf.h"
#include "util/diag.h"

static size_t warnings_said;

void cmd_say(const char *head, const char *text)
{
    buf b = {0};
    buf_puts(&b, "cmp-generate: ");
    buf_puts(&b, head);
    text_escape(&b, text, strlen(text));
    buf_putc(&b, '\n');
    fwrite(b.data, 1, b.len, stderr);
    buf_free(&b);
}

void cmd_say_warnings(void)
{
    for (const char *w; (w = diag_warning(warnings_said)); warnings_said++)
        cmd_say("warning: ", w);
}

void cmd_say_error(const char *prefix)
{
    cmd_say_warnings();
    cmd_say(prefix, diag_message());
}

int cmd_usage_error(const char *cmd, const char *fmt, const char *arg)
{
    char head[64], line[2048];
    snprintf(head, sizeof head, "%s%s", cmd, *cmd ? ": " : "");
    snprintf(line, sizeof line, fmt, arg);
    cmd_say(head, line);
    fprintf(stderr, "(see cmp-generate %s%s--help)\n", cmd, *cmd ? " " : "");
    return 2;
}

void cmd_log_line(const char *line)
{
    fputs(line, stderr);
    fflush(stderr);
}
