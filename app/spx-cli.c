/* spx-cli.c: subcommand dispatch and shared option helpers */
#include "spx-config.h"
#include "spx-cli.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  const char *name;
  int       (*run) (int argc, char **argv);
  const char *summary;
} Command;

static const Command commands[] = {
  { "info", spx_cli_info, "shape, non-zeros and block statistics of a mask file" },
  { "generate", spx_cli_generate, "write a generated mask to a file" },
  { "bench", spx_cli_bench, "measure sparse × dense on this CPU against dense sgemm" },
  { "model", spx_cli_model, "plan and cost the product on a model of a Graphcore IPU" },
  { "render", spx_cli_render, "draw a view (mask, tiles, exchange, timeline, speedup) to PNG, SVG or PDF" },
  { "sweep", spx_cli_sweep, "speedup over dense across densities and block sizes (CSV, JSON, chart)" },
};

void
spx_cli_print_usage (FILE *stream)
{
  fprintf (stream,
           "Usage: sparse-explorer [FILE…]\n"
           "       sparse-explorer COMMAND [OPTION…]\n\n"
           "Explore block-sparse matrix multiplication: masks, a CPU engine "
           "and an IPU model.\n\nCommands:\n");
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (stream, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf (stream, "\nRun 'sparse-explorer COMMAND --help' for a command's "
           "options.\n  --help     show this help\n  --version  show the "
           "version\n");
}

gboolean
spx_cli_is_command (const char *word)
{
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (g_strcmp0 (word, commands[i].name) == 0)
      return TRUE;
  return FALSE;
}

int
spx_cli_main (int argc, char **argv)
{
  const char *word = argv[1];
  if (g_strcmp0 (word, "--help") == 0 || g_strcmp0 (word, "-h") == 0)
    {
      spx_cli_print_usage (stdout);
      return SPX_EXIT_OK;
    }
  if (g_strcmp0 (word, "--version") == 0)
    {
      printf ("sparse-explorer %s\n", SPX_VERSION);
      return SPX_EXIT_OK;
    }
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (g_strcmp0 (word, commands[i].name) == 0)
      return commands[i].run (argc - 1, argv + 1);
  fprintf (stderr, "sparse-explorer: unknown command '%s' (try --help)\n", word);
  return SPX_EXIT_USAGE;
}

int
spx_cli_usage_error (const char *command, const char *fmt, ...)
{
  va_list args;
  va_start (args, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, args);
  va_end (args);
  fprintf (stderr, "sparse-explorer %s: %s\n", command, msg);
  return SPX_EXIT_USAGE;
}

int
spx_cli_input_error (const char *command, const GError *error)
{
  fprintf (stderr, "sparse-explorer %s: %s\n", command, error->message);
  return SPX_EXIT_INPUT;
}

gboolean
spx_cli_parse_options (const char *command, GOptionContext *context,
                       int *argc, char ***argv, int *status)
{
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (context, argc, argv, &error))
    {
      *status = spx_cli_usage_error (command, "%s", error->message);
      return FALSE;
    }
  /* "--" ends the options (a file may start with "-"): GLib leaves it */
  for (int i = 1; i < *argc; i++)
    if (g_str_equal ((*argv)[i], "--"))
      {
        memmove (*argv + i, *argv + i + 1, (*argc - i) * sizeof **argv);
        (*argc)--;
        break;
      }
  return TRUE;
}

int
spx_cli_parse_and_run (const char *command, GOptionContext *context,
                       int argc, char **argv, int (*run) (gconstpointer args),
                       gconstpointer args)
{
  int status = SPX_EXIT_OK;
  if (!spx_cli_parse_options (command, context, &argc, &argv, &status))
    return status;
  if (argc > 1)
    return spx_cli_usage_error (command, "unexpected argument '%s'", argv[1]);
  return run (args);
}

gboolean
spx_cli_uint (const char *command, const char *option, const char *text,
              guint64 min, guint64 max, guint64 *value)
{
  if (g_ascii_string_to_unsigned (text, 10, min, max, value, NULL))
    return TRUE;
  spx_cli_usage_error (command, "%s: expected a whole number from %"
                       G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT ", got '%s'",
                       option, min, max, text);
  return FALSE;
}

gboolean
spx_cli_double (const char *command, const char *option, const char *text,
                double min, double max, double *value)
{
  char *end = NULL;
  double v = g_ascii_strtod (text, &end);
  /* Fractions like 1/16 are how densities are usually written. */
  if (end != text && *end == '/')
    {
      char *den_end = NULL;
      double den = g_ascii_strtod (end + 1, &den_end);
      v = den != 0 ? v / den : NAN;
      end = den_end == end + 1 ? end : den_end;
    }
  if (end != text && *end == '\0' && isfinite (v) && v >= min && v <= max)
    {
      *value = v;
      return TRUE;
    }
  spx_cli_usage_error (command, "%s: expected a number from %g to %g, got '%s'",
                       option, min, max, text);
  return FALSE;
}
