/* The subcommands, one file each; main.c's table maps a name to its entry. An entry takes the arguments after its
 * name and returns the exit status: 0, 1 (the error is printed) or 2 (a usage error). Only main and the
 * subcommands print: everything below records its error (util/diag.h) and its warnings, and cmd_say_* writes them. */
#ifndef CMP_CMD_CMD_H
#define CMP_CMD_CMD_H

int cmd_render(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_fn(int argc, char **argv);
int cmd_init(int argc, char **argv);
int cmd_parameters(int argc, char **argv);
int cmd_settings(int argc, char **argv);
int cmd_functions(int argc, char **argv);
int cmd_pkg(int argc, char **argv);
/* The server runs until SIGTERM; its log lines reach stderr through cmd_log_line. */
int cmd_serve_params(int argc, char **argv);

/* One stderr line "cmp-generate: <head><text>", every byte that could act on a terminal escaped (text_escape). */
void cmd_say(const char *head, const char *text);
/* The warnings recorded since the last call, in order. */
void cmd_say_warnings(void);
/* The run's one error line (diag_message), after the warnings recorded before it failed. */
void cmd_say_error(const char *prefix);
/* One usage line for cmd ("" for the top level, "pkg" for pkg), then where the help is. Returns 2. */
int cmd_usage_error(const char *cmd, const char *fmt, const char *arg);
/* One log line a server built and escaped itself (params/server.c), written whole. */
void cmd_log_line(const char *line);
#endif
