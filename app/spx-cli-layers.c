/* spx-cli-layers.c: `sparse-explorer layers PATH`: every layer of a
 * network swept, a recommendation per layer and the network's total */
#include "spx-cli.h"
#include "spx-engine-tune.h"
#include "spx-cli-picture.h"
#include "spx-cli-signal.h"
#include "spx-cli-study.h"
#include "spx-defaults.h"
#include "spx-mask-io.h"
#include "spx-render-export.h"
#include "spx-render-layers.h"
#include "spx-survey.h"
#include "spx-util.h"

#include <math.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define CMD "layers"
/* The table's columns, in characters; the layer's name comes last. */
#define COLUMN_SHAPE   13
#define COLUMN_DENSITY 7
#define COLUMN_CHOICE  25
#define COLUMN_SHARE   13 /* "dense (model)" */
/* The chart: as wide as the sweep's, as tall as its rows need. */
static const SpxCliPicture chart_defaults = { .width = 900, .height = 0,
                                              .scale = 2 };

#define LAYERS_OPTIONS(O) \
  O (n, 'n', TEXT, "N", spx_cli_keep_printf ( \
     "Columns of the dense operand, on both sources (default %" \
     G_GUINT64_FORMAT ")", d.n), NULL) \
  O (dtype, 0, TEXT, "T", spx_cli_keep_printf ( \
     "fp32, fp16 or bf16 (default %s): the CPU computes fp16 and bf16 in " \
     "bf16, the IPU model fp16 and bf16 in fp16", \
     spx_dtype_to_string (d.dtype)), NULL) \
  O (source, 0, TEXT, "S", "model, cpu or both (default both)", NULL) \
  O (blocks, 0, TEXT, "LIST", spx_cli_keep_printf ( \
     "Block sizes (default %s); those larger than a layer are left out of " \
     "its sweep", blocks), NULL) \
  O (modes, 0, TEXT, "LIST", spx_cli_keep_printf ( \
     "%s; several separated by commas; tilewise is the CPU's alone " \
     "(default all; dense always runs)", modes), NULL) \
  O (threads, 't', TEXT, "T", spx_cli_threads_help ("CPU: threads"), NULL) \
  O (no_tune, 0, FLAG, NULL, SPX_CLI_NO_TUNE_HELP, NULL) \
  O (reps, 'r', TEXT, "R", spx_cli_keep_printf ( \
     "CPU: timed runs per point (default %u)", d.reps), \
     spx_cli_keep_printf ("At least %d.", SPX_SWEEP_MIN_REPS)) \
  O (machine, 0, TEXT, "NAME|FILE", spx_cli_machine_help ("bow"), NULL) \
  O (only, 0, TEXT, "REGEX", \
     "Only the layers whose name this regular expression finds", \
     "A layer's name is its tensor's, or its file's path in the folder.") \
  O (out, 'o', FILE, "FILE", \
     "Write .csv, .json, or the chart in .png, .svg or .pdf instead of " \
     "the table", NULL) \
  O (json, 0, FLAG, NULL, "Print the survey as one JSON object instead of " \
     "the table", NULL) \
  O (again_noisy, 0, FLAG, NULL, "Then measure again, on one thread, " \
     "the CPU points of every layer with a noisy one, keeping the others", \
     "PATH may be a saved survey (.json): only its noisy layers are " \
     "measured, from its network where it was surveyed.")

typedef struct {
  SPX_CLI_FIELDS (LAYERS_OPTIONS)
  SpxCliPictureArgs picture;
} LayersArgs;

static gboolean
parse_number (const char *option, const char *text, guint64 min,
              guint64 max, guint64 *value)
{
  return text == NULL || spx_cli_uint (CMD, option, text, min, max, value);
}

static gboolean
parse_only (const char *text, SpxSurveyOptions *o)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GRegex) regex = text ? g_regex_new (text, 0, 0, &error) : NULL;
  if (text != NULL && regex == NULL)
    return spx_cli_usage_error (CMD, "--only: '%s' is not a regular "
                                "expression: %s", text, error->message),
           FALSE;
  o->only = text;
  return TRUE;
}

/* The machine last: a file that does not read is the input's (1). */
static gboolean
parse_machine (const char *name, SpxIpuMachine **machine, int *status)
{
  g_autoptr (GError) error = NULL;
  if (name == NULL)
    return TRUE;
  *machine = spx_ipu_machine_resolve (name, &error);
  if (*machine == NULL)
    *status = spx_cli_machine_error (CMD, error);
  return *machine != NULL;
}

static gboolean
parse_all (const LayersArgs *a, SpxSurveyOptions *o, SpxIpuMachine **machine,
           int *status)
{
  guint named = 0;
  guint64 n = o->n, reps = o->reps;
  *status = SPX_EXIT_USAGE;
  if (!(a->source == NULL ||
        spx_cli_sources (CMD, a->source, &o->run_model, &o->run_cpu)) ||
      !(a->blocks == NULL ||
        spx_cli_blocks (CMD, a->blocks, o->blocks, &o->n_blocks)) ||
      !(a->modes == NULL ||
        spx_cli_sweep_modes (CMD, a->modes, o->run_cpu, &o->run_static,
                             &o->run_dynamic, &o->run_tilewise, &named)) ||
      !parse_number ("--n", a->n, 1, SPX_MASK_MAX_DIM, &n) ||
      !parse_number ("--reps", a->reps, SPX_SWEEP_MIN_REPS, 100000, &reps) ||
      !(a->threads == NULL || spx_cli_threads (CMD, a->threads,
                                                &o->threads)) ||
      !parse_only (a->only, o))
    return FALSE;
  o->n = n;
  o->reps = (guint) reps;
  spx_tune_set_measuring (!a->no_tune);
  if (a->dtype != NULL && !spx_dtype_from_string (a->dtype, &o->dtype))
    return spx_cli_usage_error (CMD, "--dtype: expected %s, got '%s'",
                                spx_dtype_names (), a->dtype), FALSE;
  if (!spx_cli_tilewise_dtype (CMD, o->run_cpu && o->run_tilewise, o->dtype,
                               named, a->modes != NULL) ||
      !parse_machine (a->machine, machine, status))
    return FALSE;
  o->machine = *machine;
  return TRUE;
}

/* ---- running ------------------------------------------------------ */

typedef struct {
  gboolean         tty;
  const SpxSurvey *survey;
} Progress;

static gboolean
progress (guint done, guint total, guint layer, const SpxSweepPoint *p,
          gpointer data)
{
  const Progress *pr = data;
  /* Ctrl-C or SIGTERM cancelled the current GCancellable */
  gboolean interrupted = g_cancellable_is_cancelled (
    g_cancellable_get_current ());
  if (pr->tty && !interrupted && p != NULL)
    {
      const SpxSurveyLayer *l = pr->survey->layers->pdata[layer];
      g_autofree char *what = g_strdup_printf (
        "%s  %s b=%u %s", l->name, spx_sweep_source_to_string (p->source),
        p->block, spx_sweep_mode_to_string (p->mode));
      spx_cli_progress (done, total, what);
    }
  return !interrupted;
}

/* The survey of o (NULL: survey as it is), then its noisy layers again
 * on one thread when again, with Ctrl-C and SIGTERM caught; *signum is
 * the one that stopped it, or 0. */
static gboolean
run_survey (SpxSurvey *survey, SpxNetwork *network,
            const SpxSurveyOptions *o, gboolean again, int *signum,
            GError **error)
{
  Progress pr = { isatty (STDERR_FILENO), survey };
  SpxCliSignals *signals = spx_cli_signals_catch ();
  gboolean ok = o == NULL ||
                spx_survey_run (survey, network, o, progress, &pr, error);
  if (ok && again)
    ok = spx_survey_measure_again (survey, network, 1, progress, &pr, error);
  *signum = spx_cli_signals_release (signals);
  if (pr.tty)
    fprintf (stderr, "\r\033[K");
  return ok;
}

/* ---- the table ---------------------------------------------------- */

/* A layer's recommendation in the table; "—" where its source did not
 * run. */
static char *
choice_text (const SpxSurveyLayer *layer, SpxSweepSource s)
{
  char *text = spx_survey_choice_describe (&layer->recommended[s]);
  return text != NULL ? text : g_strdup ("—");
}

/* text padded with spaces to width characters (it may be wider). */
static void
pad (GString *out, const char *text, guint width)
{
  g_string_append (out, text);
  for (glong n = g_utf8_strlen (text, -1); n < (glong) width; n++)
    g_string_append_c (out, ' ');
  g_string_append (out, "  ");
}

/* The widest of a source's recommendations in words (at least the
 * column's own width), so that the columns after it line up. */
static guint
choice_width (const SpxSurvey *survey, SpxSweepSource s)
{
  guint width = COLUMN_CHOICE;
  for (guint i = 0; i < survey->layers->len; i++)
    {
      const SpxSurveyLayer *l = survey->layers->pdata[i];
      if (l->skipped != NULL)
        continue;
      g_autofree char *text = choice_text (l, s);
      width = MAX (width, (guint) g_utf8_strlen (text, -1));
    }
  return width;
}

/* A row: the figures, then the name (last, as long as it is). */
static void
print_row (const SpxSurvey *survey, const SpxSurveyLayer *l,
           const guint *widths)
{
  g_autoptr (GString) row = g_string_new (NULL);
  g_autofree char *shape = g_strdup_printf ("%" G_GUINT64_FORMAT " × %"
                                            G_GUINT64_FORMAT, l->rows,
                                            l->cols);
  g_autofree char *density = g_strdup_printf ("%.1f%%", 100 * l->density);
  g_autofree char *cpu = choice_text (l, SPX_SWEEP_CPU);
  g_autofree char *model = choice_text (l, SPX_SWEEP_MODEL);
  double part_pc = 100 * spx_survey_layer_share (survey, l);
  /* a tenth of a percent below 10%: one layer of 72 is about 1% */
  g_autofree char *part = isnan (part_pc) ? g_strdup ("—")
    : g_strdup_printf (part_pc < 10 ? "%.1f%%" : "%.0f%%", part_pc);
  pad (row, shape, COLUMN_SHAPE);
  pad (row, density, COLUMN_DENSITY);
  pad (row, cpu, widths[SPX_SWEEP_CPU]);
  pad (row, model, widths[SPX_SWEEP_MODEL]);
  pad (row, part, COLUMN_SHARE);
  g_string_append (row, l->name);
  spx_cli_line (stdout, "%s", row->str);
}

static void
print_total (const SpxSurvey *survey, SpxSweepSource s, const char *where)
{
  const SpxSurveyTotal *t = &survey->total[s];
  if (!t->valid)
    return;
  g_autofree char *left = t->unmeasured == 0 ? g_strdup ("")
    : g_strdup_printf ("; %u layer%s (%.0f%% of the flops) not measured, "
                       "left out", t->unmeasured, t->unmeasured == 1 ? ""
                                                                      : "s",
                       100 * t->unmeasured_flops / t->flops);
  if (t->layers == 0)
    spx_cli_line (stdout, "total on %s: nothing measured%s", where, left);
  else
    spx_cli_line (stdout, "total on %s: %.4g ms dense, %.4g ms as "
                  "recommended: %.2f×; %.0f%% of the dense time in layers "
                  "kept dense%s", where, t->dense_ms, t->chosen_ms,
                  t->speedup, t->dense_ms > 0
                  ? 100 * t->kept_dense_ms / t->dense_ms : 0, left);
}

/* What was surveyed, in a line. */
static void
print_settings (const SpxSurvey *survey)
{
  const SpxSurveyOptions *o = &survey->settings;
  g_autofree char *threads = spx_defaults_threads_text (o->threads);
  guint again = o->threads != 1 ? spx_survey_layers_on_threads (survey, 1)
                                 : 0;
  g_autofree char *layers = spx_count_text (again, "layer", "layers");
  g_autofree char *on_one = again ? g_strdup_printf (" (%s measured again "
                                                     "on 1 thread)", layers)
                                  : g_strdup ("");
  g_autofree char *cpu = o->run_cpu ? g_strdup_printf (
    "; this CPU in %s, %s%s, median of %u runs",
    spx_cpu_type_name (spx_bench_cpu_type (o->dtype)), threads, on_one,
    o->reps) : g_strdup ("");
  g_autofree char *model = o->run_model ? g_strdup_printf (
    "; IPU model %s in %s", o->machine->name,
    spx_dtype_to_string (spx_dtype_on_ipu (o->dtype))) : g_strdup ("");
  g_autofree char *count = spx_survey_count_describe (survey->n_layers,
                                                     survey->n_skipped);
  spx_cli_line (stdout, "%s (%s): %s at n = %" G_GUINT64_FORMAT "%s%s",
                survey->path, survey->format, count, o->n, cpu, model);
}

static void
print_table (const SpxSurvey *survey)
{
  const char *share = spx_survey_share_source (survey) == SPX_SWEEP_CPU
                        ? "dense (CPU)" : "dense (model)";
  g_autoptr (GString) head = g_string_new (NULL);
  guint widths[SPX_SWEEP_N_SOURCES];
  for (guint s = 0; s < SPX_SWEEP_N_SOURCES; s++)
    widths[s] = choice_width (survey, s);
  print_settings (survey);
  pad (head, "shape", COLUMN_SHAPE);
  pad (head, "density", COLUMN_DENSITY);
  pad (head, "best CPU", widths[SPX_SWEEP_CPU]);
  pad (head, "best IPU model", widths[SPX_SWEEP_MODEL]);
  pad (head, share, COLUMN_SHARE);
  g_string_append (head, "layer");
  spx_cli_line (stdout, "%s", head->str);
  for (guint i = 0; i < survey->layers->len; i++)
    {
      const SpxSurveyLayer *l = survey->layers->pdata[i];
      if (l->skipped == NULL)
        print_row (survey, l, widths);
    }
  for (guint i = 0; i < survey->layers->len; i++)
    {
      const SpxSurveyLayer *l = survey->layers->pdata[i];
      if (l->skipped != NULL)
        spx_cli_line (stdout, "skipped %s: %s", l->name, l->skipped);
    }
  print_total (survey, SPX_SWEEP_CPU, "this CPU");
  print_total (survey, SPX_SWEEP_MODEL, "the IPU model");
  g_autofree char *words = spx_survey_describe (survey);
  words[0] = g_ascii_toupper (words[0]);
  spx_cli_line (stdout, "%s.", words);
}

/* ---- output ------------------------------------------------------- */

static gboolean
write_out (const SpxSurvey *survey, const char *path, SpxCliOut kind,
           SpxExportFormat format, SpxCliPicture *pic, GError **error)
{
  if (kind == SPX_CLI_OUT_TABLE)
    return spx_survey_save (survey, path, SPX_SAVE_DEFAULT, error);
  SpxRenderLayersData chart = { .survey = survey };
  if (pic->height == 0)
    pic->height = MIN (16384, MAX (240, spx_render_layers_height (
                                          survey, &pic->style,
                                          pic->width)));
  return spx_render_export (path, format, pic->width, pic->height,
                            pic->scale, spx_render_layers, &chart,
                            &pic->style, SPX_SAVE_DEFAULT, error);
}

static void
warn_noisy (const SpxSurvey *survey)
{
  guint noisy = 0, points = 0;
  for (guint i = 0; i < survey->layers->len; i++)
    {
      const SpxSurveyLayer *l = survey->layers->pdata[i];
      for (guint j = 0; l->points != NULL && j < l->points->len; j++)
        {
          points++;
          noisy += g_array_index (l->points, SpxSweepPoint, j).noise != 0;
        }
    }
  if (noisy == 0)
    return;
  g_autofree char *advice = spx_noise_advice (SPX_NOISE_BUSY,
                                              survey->settings.threads);
  spx_cli_line (stderr, "sparse-explorer layers: warning: %u of %u points "
                "noisy, none of them recommended: %s --again-noisy "
                "measures the noisy layers again on one thread.", noisy,
                points, advice);
}

static int
report (const SpxSurvey *survey, const LayersArgs *a, SpxCliOut kind,
        SpxExportFormat format, SpxCliPicture *pic)
{
  g_autoptr (GError) error = NULL;
  if (kind != SPX_CLI_OUT_NONE)
    {
      if (!write_out (survey, a->out, kind, format, pic, &error))
        return spx_cli_input_error (CMD, error);
      g_autofree char *shown = g_filename_display_name (a->out);
      g_autofree char *words = spx_survey_describe (survey);
      g_autofree char *count = spx_survey_count_describe (survey->n_layers,
                                                          survey->n_skipped);
      spx_cli_line (stdout, "sparse-explorer layers: %s written to %s; %s",
                    count, shown, words);
    }
  else if (a->json)
    {
      g_autofree char *text = spx_survey_to_json (survey);
      fputs (text, stdout);
    }
  else
    print_table (survey);
  warn_noisy (survey);
  return SPX_EXIT_OK;
}

/* The options that say how to measure: a saved survey was measured
 * already, so they are refused with one (NULL: none given). */
static const char *
measuring_option (const LayersArgs *a)
{
  const struct { const char *given, *name; } opts[] = {
    { a->n, "--n" }, { a->dtype, "--dtype" }, { a->source, "--source" },
    { a->blocks, "--blocks" }, { a->modes, "--modes" },
    { a->threads, "--threads" }, { a->reps, "--reps" },
    { a->machine, "--machine" }, { a->only, "--only" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (opts); i++)
    if (opts[i].given != NULL)
      return opts[i].name;
  return NULL;
}

/* A failed run: its options (usage) or its input. */
static int
run_error (GError *error)
{
  return error->domain == SPX_SURVEY_ERROR
           ? spx_cli_usage_error (CMD, "%s", error->message)
           : spx_cli_input_error (CMD, error);
}

/* The noisy layers of a saved survey measured again, from its network. */
static int
again_saved (SpxSurvey *survey, const LayersArgs *a, SpxCliOut kind,
             SpxExportFormat format, SpxCliPicture *pic)
{
  g_autoptr (GError) error = NULL;
  int signum = 0;
  g_autoptr (SpxNetwork) network = spx_network_open (survey->path, &error);
  if (network == NULL)
    return spx_cli_input_error (CMD, error);
  if (!run_survey (survey, network, NULL, TRUE, &signum, &error) &&
      signum == 0)
    return run_error (error);
  int status = report (survey, a, kind, format, pic);
  return signum != 0 ? spx_cli_interrupted (CMD, signum) : status;
}

/* A survey saved as JSON: shown, or written in another form, as it was
 * measured (only --again-noisy measures, its noisy layers). */
static int
show_saved (const LayersArgs *a, const char *path, SpxCliOut kind,
            SpxExportFormat format, SpxCliPicture *pic)
{
  g_autoptr (GError) error = NULL;
  const char *option = measuring_option (a);
  if (option != NULL)
    return spx_cli_usage_error (CMD, "%s: a saved survey is shown as it "
                                "was measured; survey the network again "
                                "to change it", option);
  g_autoptr (SpxSurvey) survey = spx_survey_load (path, &error);
  if (survey == NULL)
    return spx_cli_input_error (CMD, error);
  if (a->again_noisy)
    return again_saved (survey, a, kind, format, pic);
  return report (survey, a, kind, format, pic);
}

static int
run (const LayersArgs *a, const char *path)
{
  SpxSurveyOptions o;
  SpxCliOut kind;
  SpxExportFormat format = SPX_EXPORT_PNG;
  SpxCliPicture pic = chart_defaults;
  g_autoptr (SpxIpuMachine) machine = NULL;
  g_autoptr (GError) error = NULL;
  int status, signum = 0;
  spx_survey_options_init (&o);
  if (!spx_cli_out (CMD, a->out, &kind, &format) ||
      !spx_cli_picture_args_parse (&a->picture, CMD, &pic))
    return SPX_EXIT_USAGE;
  if (a->json && kind != SPX_CLI_OUT_NONE)
    return spx_cli_usage_error (CMD, "--json: prints to stdout; not with "
                                "--out");
  if (spx_has_suffix (path, ".json") &&
      !g_file_test (path, G_FILE_TEST_IS_DIR))
    return show_saved (a, path, kind, format, &pic);
  if (!parse_all (a, &o, &machine, &status))
    return status;
  g_autoptr (SpxNetwork) network = spx_network_open (path, &error);
  if (network == NULL)
    return spx_cli_input_error (CMD, error);
  g_autoptr (SpxSurvey) survey = spx_survey_new ();
  gboolean ok = run_survey (survey, network, &o, a->again_noisy, &signum,
                            &error);
  if (!ok && signum == 0)
    return run_error (error);
  status = report (survey, a, kind, format, &pic);
  if (signum != 0)
    return spx_cli_interrupted (CMD, signum);
  return status;
}

SpxCliOptions *
spx_cli_layers_options (void)
{
  SpxCliOptions *o = spx_cli_options_new ("PATH", sizeof (LayersArgs));
  LayersArgs *args = spx_cli_options_args (o);
  GOptionContext *context = spx_cli_options_context (o);
  SpxSurveyOptions d;
  spx_survey_options_init (&d);
  g_autofree char *blocks = spx_defaults_blocks_text (d.blocks, d.n_blocks,
                                                      ",");
  g_autofree char *modes = spx_cli_modes_words (SPX_CLI_MODES_CPU, TRUE);
  g_autofree char *masks = spx_format_list (SPX_FORMAT_READS_MASK, TRUE);
  g_autofree char *nets = spx_format_list (SPX_FORMAT_READS_NETWORK, TRUE);
  g_autofree char *files = nets[0] != '\0'
    ? g_strdup_printf ("a network file (%s), ", nets) : g_strdup ("");
  g_autofree char *summary = g_strdup_printf (
    "Every layer of a network (%sa folder of mask files — %s — searched "
    "recursively, or one mask file) swept at its own shape on this CPU "
    "and the IPU model, as a mask's sweep is; per layer the fastest mode "
    "and block size on each, or keep dense when nothing beats dense by "
    "5%%; and the network's total: the sum of dense times against the sum "
    "of the recommended ones.", files, masks);
  g_option_context_set_summary (context, summary);
  g_option_context_set_description (context,
    "Without --out: a table, a row per layer (name, shape, density, the "
    "recommendation on each source, its share of the network's dense "
    "time), the skipped entries with why, the totals and one sentence.\n"
    "PATH may also be a survey saved with --out FILE.json: it is shown (or "
    "written with --out) as it was measured, without measuring again "
    "(with --again-noisy, only its noisy layers are).\n"
    "Ctrl-C (SIGTERM) stops the survey, prints (or writes) the layers "
    "done and exits with status 130 (143).");
  SPX_CLI_ADD (o, LAYERS_OPTIONS, NULL);
  spx_cli_options_alias (o, "mode", "modes");
  spx_cli_picture_args_add (&args->picture, o, &chart_defaults);
  return o;
}

int
spx_cli_layers (int argc, char **argv)
{
  g_autoptr (SpxCliOptions) options = spx_cli_layers_options ();
  const LayersArgs *a = spx_cli_options_args (options);
  int status = SPX_EXIT_OK;
  if (!spx_cli_parse_options (CMD, options, &argc,
                              &argv, &status))
    return status;
  if (argc < 2)
    return spx_cli_usage_error (CMD, "expected a PATH (a folder of mask "
                                "files, or a file)");
  if (argc > 2)
    return spx_cli_usage_error (CMD, "expected one PATH, got '%s' as well",
                                argv[2]);
  return run (a, argv[1]);
}
