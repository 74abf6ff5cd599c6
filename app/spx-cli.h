/* spx-cli.h: the command-line subcommands and what they share */
#pragma once

#include <glib.h>
#include <stdio.h>

G_BEGIN_DECLS

/* Exit statuses: 0 success, 1 a bad input file, 2 bad usage. */
enum {
  SPX_EXIT_OK = 0,
  SPX_EXIT_INPUT = 1,
  SPX_EXIT_USAGE = 2,
};

int      spx_cli_main     (int argc, char **argv);
void     spx_cli_print_usage (FILE *stream);
gboolean spx_cli_is_command (const char *word);

int      spx_cli_info     (int argc, char **argv);
int      spx_cli_generate (int argc, char **argv);
int      spx_cli_bench    (int argc, char **argv);
int      spx_cli_model    (int argc, char **argv);
int      spx_cli_render   (int argc, char **argv);
int      spx_cli_sweep    (int argc, char **argv);

/* Shared helpers. The usage error prints one line and returns 2. */
int      spx_cli_usage_error (const char *command, const char *fmt, ...)
  G_GNUC_PRINTF (2, 3);
/* Prints the error's message (it names the file) and returns 1. */
int      spx_cli_input_error (const char *command, const GError *error);

/* Parse options; on failure prints one line and sets *status to 2. */
gboolean spx_cli_parse_options (const char *command, GOptionContext *context,
                                int *argc, char ***argv, int *status);

/* Parse options, refuse stray arguments, then run (args): the shape of
 * every command that takes no positional argument. */
int      spx_cli_parse_and_run (const char *command, GOptionContext *context,
                                int argc, char **argv,
                                int (*run) (gconstpointer args),
                                gconstpointer args);

/* Option values given as strings, checked with ranges; on failure they
 * print one line naming the option and return FALSE. */
gboolean spx_cli_uint   (const char *command, const char *option,
                         const char *text, guint64 min, guint64 max,
                         guint64 *value);
gboolean spx_cli_double (const char *command, const char *option,
                         const char *text, double min, double max,
                         double *value);

G_END_DECLS
