/* spx-cli.c: subcommand dispatch and shared option helpers */
#include "spx-config.h"
#include "spx-cli.h"
#include "spx-defaults.h"
#include "spx-render-views.h"
#include "spx-util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const SpxCliCommand commands[] = {
  { "info", spx_cli_info, "shape, non-zeros and block statistics of a mask file", spx_cli_info_options },
  { "generate", spx_cli_generate, "write a generated mask to a file", spx_cli_generate_options },
  { "bench", spx_cli_bench, "measure sparse × dense on this CPU against dense sgemm", spx_cli_bench_options },
  { "model", spx_cli_model, "plan and cost the product on a model of a Graphcore IPU", spx_cli_model_options },
  { "render", spx_cli_render, "draw a view (%s) to PNG, SVG or PDF", spx_cli_render_options },
  { "sweep", spx_cli_sweep, "speedup over dense across densities and block sizes (CSV, JSON, chart)", spx_cli_sweep_options },
  { "layers", spx_cli_layers, "every layer of a pruned network measured: a recommendation per layer and the total", spx_cli_layers_options },
};

const SpxCliCommand *
spx_cli_commands (guint *n)
{
  *n = G_N_ELEMENTS (commands);
  return commands;
}

/* --view's text, naming the views, is made at the first use. */
static GOptionEntry window_options[SPX_CLI_N_WINDOW_OPTIONS + 1] = {
  [SPX_CLI_WINDOW_VIEW] = { "view", 0, 0, G_OPTION_ARG_STRING, NULL, NULL,
    "VIEW" },
  [SPX_CLI_WINDOW_SWEEP] = { "sweep", 0, 0, G_OPTION_ARG_NONE, NULL,
    "Start the speedup sweep (model and CPU) on opening", NULL },
  [SPX_CLI_WINDOW_LESSON] = { "lesson", 0, 0, G_OPTION_ARG_NONE, NULL,
    "Open the guided lesson \"Learn the IPU model\" beside the views",
    NULL },
  G_OPTION_ENTRY_NULL
};

const GOptionEntry *
spx_cli_window_options (void)
{
  static gsize once = 0;
  if (g_once_init_enter (&once))
    {
      g_autofree char *views = spx_render_view_words ();
      /* kept for the program's life, as GOption keeps the pointer */
      window_options[SPX_CLI_WINDOW_VIEW].description =
        g_strdup_printf ("Open on this view: %s", views);
      g_once_init_leave (&once, 1);
    }
  return window_options;
}

static void
print_option (FILE *stream, const char *name, const char *value,
              const char *help)
{
  g_autofree char *shown = g_strdup_printf ("--%s%s%s", name,
                                            value ? "=" : "",
                                            value ? value : "");
  fprintf (stream, "  %-19s %s\n", shown, help);
}

void
spx_cli_print_usage (FILE *stream)
{
  fprintf (stream,
           "Usage: sparse-explorer [OPTION…] [FILE…]\n"
           "       sparse-explorer COMMAND [OPTION…]\n\n"
           "Explore block-sparse matrix multiplication: masks, a CPU engine "
           "and an IPU model.\n\nCommands:\n");
  g_autofree char *views = g_strjoinv (", ",
                                      (char **) spx_render_view_names ());
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      g_autofree char *summary = g_strdup_printf (commands[i].summary,
                                                  views);
      fprintf (stream, "  %-10s %s\n", commands[i].name, summary);
    }
  fprintf (stream, "\nRun 'sparse-explorer COMMAND --help' for a command's "
           "options.\n\nOptions:\n");
  print_option (stream, "help", NULL, "Show this help");
  print_option (stream, "version", NULL, "Show the version");
#if SPX_HAVE_GUI
  fprintf (stream, "\nWindow options (without a COMMAND):\n");
  for (const GOptionEntry *e = spx_cli_window_options (); e->long_name; e++)
    print_option (stream, e->long_name, e->arg_description, e->description);
  /* GTK's own, parsed by GTK: the one the man page documents */
  print_option (stream, "display", "DISPLAY", "X display to use");
  fprintf (stream, "\nGTK's other options: sparse-explorer --help-all\n");
#endif
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
spx_cli_not_there (const char *word)
{
  if (strchr (word, G_DIR_SEPARATOR) != NULL || strchr (word, '.') != NULL)
    {
      g_autoptr (GError) error = NULL;
      /* the system's reason, as a command's loader would say it */
      int fd = spx_open_regular (word, "a file", &error);
      if (fd >= 0) /* made since it was looked for */
        close (fd);
      spx_cli_line (stderr, "sparse-explorer: %s", error != NULL
                      ? error->message : "changed while being opened");
      return SPX_EXIT_INPUT;
    }
  const char *names[G_N_ELEMENTS (commands) + 1] = { NULL };
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    names[i] = commands[i].name;
  const char *near = spx_nearest (word, names, 2);
  g_autofree char *hint = near ? g_strdup_printf ("did you mean %s? ", near)
                               : g_strdup ("");
  spx_cli_line (stderr, "sparse-explorer: '%s' is neither a command nor a "
                "file (%stry --help)", word, hint);
  return SPX_EXIT_USAGE;
}

char *
spx_cli_command_list (void)
{
  const char *names[G_N_ELEMENTS (commands) + 1] = { NULL };
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    names[i] = commands[i].name;
  return spx_join_choices (names, -1);
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
      {
        /* the name GOption's "Usage:" line starts with */
        g_autofree char *name = g_strdup_printf ("sparse-explorer %s", word);
        g_set_prgname (name);
        return commands[i].run (argc - 1, argv + 1);
      }
  spx_cli_line (stderr, "sparse-explorer: unknown command '%s' (try --help)",
                word);
  return SPX_EXIT_USAGE;
}

char *
spx_cli_density_text (double density)
{
  int exponent;
  /* a power of two: 0.5 exactly, and nothing after it */
  if (density > 0 && density < 1 && frexp (density, &exponent) == 0.5)
    return g_strdup_printf ("1/%.0f", ldexp (1, 1 - exponent));
  return g_strdup_printf ("%g", density);
}

/* ---- modes --------------------------------------------------------- */

/* Spellings from before the words were the same everywhere. */
static const struct {
  const char *word;
  guint       modes;
} old_modes[] = {
  { "both", SPX_CLI_MODE (SPX_SWEEP_STATIC) | SPX_CLI_MODE (SPX_SWEEP_DYNAMIC) },
};

/* The names of modes into words (room for SPX_SWEEP_N_MODES + 2). */
static guint
mode_names (guint modes, const char **words)
{
  guint n = 0;
  for (guint m = 0; m < SPX_SWEEP_N_MODES; m++)
    if (modes & SPX_CLI_MODE (m))
      words[n++] = spx_sweep_mode_to_string (m);
  words[n] = NULL;
  return n;
}

char *
spx_cli_modes_words (guint known, gboolean list)
{
  const char *words[SPX_SWEEP_N_MODES + 2];
  guint n = mode_names (known, words);
  if (list)
    words[n++] = "all";
  words[n] = NULL;
  return spx_join_choices (words, -1);
}

char *
spx_cli_modes_text (guint modes)
{
  const char *words[SPX_SWEEP_N_MODES + 2];
  mode_names (modes, words);
  return g_strjoinv (",", (char **) words);
}

/* One word's modes, 0 when it is none of the words. */
static guint
mode_word (const char *word, guint known, gboolean list)
{
  SpxSweepMode mode;
  if (spx_sweep_mode_from_string (word, &mode))
    return SPX_CLI_MODE (mode);
  if (list && g_str_equal (word, "all"))
    return known;
  for (guint i = 0; i < G_N_ELEMENTS (old_modes); i++)
    if (g_str_equal (word, old_modes[i].word))
      return old_modes[i].modes;
  return 0;
}

gboolean
spx_cli_modes_parse (const char *command, const char *option,
                     const char *text, guint known, gboolean list,
                     guint *modes, guint *named)
{
  /* max_tokens 1: the whole text is one word */
  g_auto (GStrv) words = g_strsplit (text, ",", list ? -1 : 1);
  *modes = *named = 0;
  for (guint i = 0; words[i] != NULL; i++)
    {
      const char *word = g_strstrip (words[i]);
      guint these = mode_word (word, known, list);
      SpxSweepMode mode;
      /* one word stands for one mode where only one can be shown */
      if (these == 0 || (these & ~known) != 0 ||
          (!list && (these & (these - 1)) != 0))
        {
          *modes = 0;
          break;
        }
      *modes |= these;
      if (spx_sweep_mode_from_string (word, &mode))
        *named |= these;
    }
  if (*modes != 0)
    return TRUE;
  g_autofree char *expected = spx_cli_modes_words (known, list);
  spx_cli_usage_error (command, "%s: expected %s%s, got '%s'", option,
                       expected, list ? " (several separated by commas)"
                                      : "", text);
  return FALSE;
}

gboolean
spx_cli_out (const char *command, const char *path, SpxCliOut *kind,
             SpxExportFormat *format)
{
  *kind = path == NULL ? SPX_CLI_OUT_NONE : SPX_CLI_OUT_TABLE;
  if (path == NULL || spx_has_suffix (path, ".csv") ||
      spx_has_suffix (path, ".json"))
    return TRUE;
  *kind = SPX_CLI_OUT_CHART;
  if (spx_export_format_from_path (path, format, NULL))
    return TRUE;
  spx_cli_usage_error (command, "--out: expected a file name ending in .csv, "
                       ".json, .png, .svg or .pdf, got '%s'", path);
  return FALSE;
}

gboolean
spx_cli_sweep_modes (const char *command, const char *text, gboolean run_cpu,
                     gboolean *run_static, gboolean *run_dynamic,
                     gboolean *run_tilewise, guint *named)
{
  guint modes;
  if (!spx_cli_modes_parse (command, "--modes", text, SPX_CLI_MODES_CPU,
                            TRUE, &modes, named))
    return FALSE;
  *run_static = (modes & SPX_CLI_MODE (SPX_SWEEP_STATIC)) != 0;
  *run_dynamic = (modes & SPX_CLI_MODE (SPX_SWEEP_DYNAMIC)) != 0;
  *run_tilewise = (modes & SPX_CLI_MODE (SPX_SWEEP_TILEWISE)) != 0;
  if ((*named & SPX_CLI_MODE (SPX_SWEEP_TILEWISE)) && !run_cpu)
    return spx_cli_usage_error (command, "--modes: tilewise is measured on "
                                "the CPU only; add --source cpu or both"),
           FALSE;
  return TRUE;
}

gboolean
spx_cli_tilewise_dtype (const char *command, gboolean tilewise,
                        SpxDtype dtype, guint named, gboolean modes_given)
{
  if (!tilewise || spx_bench_cpu_type (dtype) != SPX_CPU_BF16)
    return TRUE;
  if (named & SPX_CLI_MODE (SPX_SWEEP_TILEWISE))
    return spx_cli_usage_error (command, "--modes tilewise: tile-wise runs "
                                "in fp32 only, and the CPU computes %s in "
                                "bf16 (use --dtype fp32)",
                                spx_dtype_to_string (dtype)), FALSE;
  if (modes_given)
    spx_cli_line (stderr, "sparse-explorer %s: note: the CPU computes %s in "
                  "bf16; tile-wise (fp32 only) is left out", command,
                  spx_dtype_to_string (dtype));
  return TRUE;
}

/* ---- output --------------------------------------------------------- */

void
spx_cli_line (FILE *stream, const char *fmt, ...)
{
  va_list args;
  va_start (args, fmt);
  g_autofree char *text = g_strdup_vprintf (fmt, args);
  va_end (args);
  g_autofree char *shown = spx_escape (text);
  fprintf (stream, "%s\n", shown);
}

void
spx_cli_lines (FILE *stream, const char *const *lines)
{
  for (guint i = 0; lines[i] != NULL; i++)
    spx_cli_line (stream, "%s", lines[i]);
}

void
spx_cli_progress (guint done, guint total, const char *what)
{
  enum { BAR = 24 };
  char bar[BAR + 1];
  guint fill = total ? (guint) ((guint64) done * BAR / total) : BAR;
  for (guint i = 0; i < BAR; i++)
    bar[i] = i < fill ? '#' : '.';
  bar[BAR] = '\0';
  g_autofree char *shown = spx_escape (what);
  fprintf (stderr, "\r\033[K[%s] %u/%u  %s", bar, done, total, shown);
  if (done >= total)
    fprintf (stderr, "\r\033[K");
  fflush (stderr);
}

int
spx_cli_usage_error (const char *command, const char *fmt, ...)
{
  va_list args;
  va_start (args, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, args);
  va_end (args);
  spx_cli_line (stderr, "sparse-explorer %s: %s", command, msg);
  return SPX_EXIT_USAGE;
}

void
spx_cli_warning (const char *command, const char *text)
{
  if (text != NULL)
    spx_cli_line (stderr, "sparse-explorer %s: warning: %s", command, text);
}

int
spx_cli_input_error (const char *command, const GError *error)
{
  spx_cli_line (stderr, "sparse-explorer %s: %s", command, error->message);
  return SPX_EXIT_INPUT;
}

/* GLib's message for an option value that is not UTF-8 names neither:
 * "--machine: expected UTF-8 text, got 'a\xffb'" for the first such
 * argument, or NULL. */
static char *
not_utf8 (int argc, char **argv)
{
  for (int i = 1; i < argc; i++)
    if (!g_utf8_validate (argv[i], -1, NULL))
      return i > 1 && argv[i - 1][0] == '-'
               ? g_strdup_printf ("%s: expected UTF-8 text, got '%s'",
                                  argv[i - 1], argv[i])
               : g_strdup_printf ("expected UTF-8 text, got '%s'", argv[i]);
  return NULL;
}

char *
spx_cli_did_you_mean (const char *const *names, int argc, char **argv)
{
  for (int i = 1; i < argc && !g_str_equal (argv[i], "--"); i++)
    {
      if (!g_str_has_prefix (argv[i], "--"))
        continue;
      g_autofree char *name = g_strndup (argv[i] + 2,
                                         strcspn (argv[i] + 2, "="));
      if (g_strv_contains (names, name))
        continue;
      const char *near = spx_nearest (name, names,
                                      MAX (1, strlen (name) / 3));
      return near ? g_strdup_printf (": did you mean --%s?", near)
                  : g_strdup ("");
    }
  return g_strdup ("");
}

gboolean
spx_cli_parse_options (const char *command, SpxCliOptions *options,
                       int *argc, char ***argv, int *status)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *not_text = not_utf8 (*argc, *argv); /* before parsing */
  /* before parsing, which may take arguments out */
  g_auto (GStrv) names = spx_cli_options_long_names (options);
  g_autofree char *near = spx_cli_did_you_mean ((const char *const *) names,
                                                *argc, *argv);
  if (!g_option_context_parse (spx_cli_options_context (options), argc, argv,
                               &error))
    {
      if (g_error_matches (error, G_CONVERT_ERROR,
                           G_CONVERT_ERROR_ILLEGAL_SEQUENCE) && not_text)
        *status = spx_cli_usage_error (command, "%s", not_text);
      else
        *status = spx_cli_usage_error (command, "%s%s (try 'sparse-explorer "
                                       "%s --help')", error->message,
                                       g_error_matches (error, G_OPTION_ERROR,
                                         G_OPTION_ERROR_UNKNOWN_OPTION)
                                         ? near : "", command);
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
spx_cli_parse_and_run (const char *command, SpxCliOptions *options,
                       int argc, char **argv, int (*run) (gconstpointer args))
{
  int status = SPX_EXIT_OK;
  if (!spx_cli_parse_options (command, options, &argc, &argv, &status))
    return status;
  if (argc > 1)
    return spx_cli_usage_error (command, "unexpected argument '%s'", argv[1]);
  return run (spx_cli_options_args (options));
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

GStrv
spx_cli_list (const char *command, const char *option, const char *text)
{
  g_auto (GStrv) items = g_strsplit (text, ",", -1);
  guint n = g_strv_length (items);
  for (guint i = 0; i < n; i++)
    if (*g_strstrip (items[i]) == '\0')
      n = 0;
  if (n >= 1 && n <= SPX_SWEEP_MAX_VALUES)
    return g_steal_pointer (&items);
  spx_cli_usage_error (command, "%s: expected 1 to %d values separated by "
                       "commas, got '%s'", option, SPX_SWEEP_MAX_VALUES, text);
  return NULL;
}

gboolean
spx_cli_blocks (const char *command, const char *text, guint *blocks,
                guint *n)
{
  g_auto (GStrv) items = spx_cli_list (command, "--blocks", text);
  if (items == NULL)
    return FALSE;
  for (*n = 0; items[*n] != NULL; (*n)++)
    {
      guint64 b;
      if (!spx_cli_uint (command, "--blocks", items[*n], 1,
                         SPX_MASK_MAX_BLOCK, &b))
        return FALSE;
      blocks[*n] = (guint) b;
    }
  return TRUE;
}

gboolean
spx_cli_sources (const char *command, const char *text, gboolean *model,
                 gboolean *cpu)
{
  gboolean both = g_str_equal (text, "both");
  if (both || g_str_equal (text, "model") || g_str_equal (text, "cpu"))
    {
      *model = both || g_str_equal (text, "model");
      *cpu = both || g_str_equal (text, "cpu");
      return TRUE;
    }
  spx_cli_usage_error (command, "--source: expected model, cpu or both, got "
                       "'%s'", text);
  return FALSE;
}

const char *
spx_cli_threads_help (const char *what)
{
  g_autofree char *threads =
    spx_defaults_threads_text (spx_defaults ()->threads);
  return spx_cli_keep_printf ("%s (default: %s)", what, threads);
}

gboolean
spx_cli_threads (const char *command, const char *text, guint *threads)
{
  guint64 v;
  if (g_ascii_string_to_unsigned (text, 10, 1, spx_max_threads (), &v, NULL))
    {
      *threads = (guint) v;
      return TRUE;
    }
  g_autofree char *most = spx_max_threads_text ();
  spx_cli_usage_error (command, "--threads: expected a whole number from 1 "
                       "to %s, got '%s'", most, text);
  return FALSE;
}

gboolean
spx_cli_double (const char *command, const char *option, const char *text,
                double min, double max, double *value)
{
  double v = 0;
  if (spx_parse_number (text, &v) && v >= min && v <= max)
    {
      *value = v;
      return TRUE;
    }
  spx_cli_usage_error (command, "%s: expected a number from %g to %g, got '%s'",
                       option, min, max, text);
  return FALSE;
}
