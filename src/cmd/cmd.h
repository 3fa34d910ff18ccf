/* Subcommands that live in their own file (the others are still in src/main.c until issue 26 moves them). */
#ifndef CMP_CMD_CMD_H
#define CMP_CMD_CMD_H

/* main's way of printing the recorded error: "cmp-generate: <prefix><message>", escaped. */
typedef void (*cmd_say_fn)(const char *prefix);

/* main's writer of one log line the server escaped (only main writes to stderr). */
typedef void (*cmd_log_fn)(const char *line);

/* argv holds what follows "serve-params". Returns the exit status: 0, 1 (error) or 2 (usage). */
int cmd_serve_params(int argc, char **argv, cmd_say_fn say_error, cmd_log_fn log);
#endif
