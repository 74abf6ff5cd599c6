/* spx-cli-sweep.c: `sparse-explorer sweep`: densities × block sizes,
 * modelled on an IPU and measured on this CPU, to CSV, JSON or a chart */
#include "spx-cli.h"
#include "spx-engine-tune.h"
#include "spx-cli-picture.h"
#include "spx-cli-signal.h"
#include "spx-cli-study.h"
#include "spx-defaults.h"
#include "spx-render-export.h"
#include "spx-render-speedup.h"
#include "spx-render-verdict.h"
#include "spx-sweep.h"
#include "spx-util.h"

#include <gio/gio.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define CMD "sweep"
/* the generated masks a sweep takes */
#define SWEEP_PATTERNS ((1u << SPX_PATTERN_UNIFORM) | \
                        (1u << SPX_PATTERN_TILEWISE))
/* PNG at 2×: crisp on slides and in papers */
static const SpxCliPicture chart_defaults = { .width = 800, .height = 500,
                                              .scale = 2 };

/* sweep's options (see spx-cli-options.h), each help stating the default
 * it really has: d, the sweep's defaults; scenario, the default one. */
#define SWEEP_OPTIONS(O) \
  O (op, 0, TEXT, "OP", \
     "spmm or sddmm (P·Qᵀ sampled by the mask, kd = n; the CPU only, dense " \
     "and static) (default spmm)", NULL) \
  O (source, 0, TEXT, "S", "model, cpu or both (default both)", NULL) \
  O (densities, 0, TEXT, "LIST", spx_cli_keep_printf ( \
     "Densities, like 1/4,1/8 or 0.1,0.05 (default %s)", densities), NULL) \
  O (blocks, 0, TEXT, "LIST", spx_cli_keep_printf ( \
     "Block sizes (default %s; a mask's %s)", blocks, mask_blocks), NULL) \
  O (modes, 0, TEXT, "LIST", spx_cli_keep_printf ( \
     "%s; several separated by commas; tilewise is the CPU's alone, a " \
     "dense sgemm per column tile (default all; dense always runs)", \
     modes), "both is read as static,dynamic.") \
  O (pattern, 'p', TEXT, "P", spx_cli_keep_printf ( \
     "Generated masks: %s (whole rows of each column tile kept) (default " \
     "%s)", patterns, spx_pattern_to_string (d.pattern)), NULL) \
  O (tile_width, 0, TEXT, "G", spx_cli_keep_printf ( \
     "Columns per tile, of the tilewise pattern and the tile-wise plan " \
     "(default %u)", d.tile_width), NULL) \
  O (m, 'm', TEXT, "M", spx_cli_keep_printf ( \
     "Rows of the sparse operand (default: model %" G_GUINT64_FORMAT \
     ", CPU %" G_GUINT64_FORMAT ")", d.model_m, d.cpu_m), NULL) \
  O (k, 'k', TEXT, "K", spx_cli_keep_printf ( \
     "Its columns (default: model %" G_GUINT64_FORMAT ", CPU %" \
     G_GUINT64_FORMAT ")", d.model_k, d.cpu_k), NULL) \
  O (n, 'n', TEXT, "N|best", spx_cli_keep_printf ( \
     "Columns of the dense operand, or best (the model tries 1, 2, 4, …, " \
     "65536; default: model best, CPU %" G_GUINT64_FORMAT ")", d.cpu_n), \
     NULL) \
  O (dtype, 0, TEXT, "T", spx_cli_keep_printf ( \
     "fp16, fp32 or bf16 (default %s): the CPU computes fp32 in fp32, " \
     "fp16 and bf16 in bf16; the IPU model fp32 in fp32, fp16 and bf16 in " \
     "fp16 (the IPU has no bf16)", \
     spx_dtype_to_string (d.dtype)), NULL) \
  O (machine, 0, TEXT, "NAME|FILE", \
     spx_cli_machine_help (scenario->machine), NULL) \
  O (seed, 's', TEXT, "S", spx_cli_keep_printf ( \
     "Seed of the generated masks and the values (default %" \
     G_GUINT64_FORMAT ")", d.seed), NULL) \
  O (threads, 't', TEXT, "T", spx_cli_threads_help ("CPU: threads"), NULL) \
  O (no_tune, 0, FLAG, NULL, SPX_CLI_NO_TUNE_HELP, NULL) \
  O (reps, 'r', TEXT, "R", spx_cli_keep_printf ( \
     "CPU: timed runs per point (default %u)", d.reps), \
     spx_cli_keep_printf ("At least %d.", SPX_SWEEP_MIN_REPS)) \
  O (warmup, 'w', TEXT, "W", spx_cli_keep_printf ( \
     "CPU: untimed runs first (default %u)", d.warmup), NULL) \
  O (out, 'o', FILE, "FILE", \
     "Output: .csv, .json, or a chart in .png, .svg or .pdf (required)", \
     NULL)

typedef struct {
  SPX_CLI_FIELDS (SWEEP_OPTIONS)
  SpxCliPictureArgs picture;
  SpxCliStudyArgs   study; /* --scenario and --mask */
} SweepArgs;

static gboolean
parse_densities (const char *text, SpxSweepOptions *o)
{
  g_auto (GStrv) items = spx_cli_list (CMD, "--densities", text);
  if (items == NULL)
    return FALSE;
  for (o->n_densities = 0; items[o->n_densities]; o->n_densities++)
    {
      double *d = &o->densities[o->n_densities];
      if (!spx_cli_double (CMD, "--densities", items[o->n_densities], 0, 1, d))
        return FALSE;
      if (*d == 0)
        return spx_cli_usage_error (CMD, "--densities: expected densities "
                                    "above 0, got '%s'",
                                    items[o->n_densities]), FALSE;
    }
  return TRUE;
}

/* *named: the modes named word by word, which a source or operation
 * without them refuses ("all" just leaves them out). */
static gboolean
parse_modes (const char *text, SpxSweepOptions *o, guint *named)
{
  return spx_cli_sweep_modes (CMD, text, o->run_cpu, &o->run_static,
                              &o->run_dynamic, &o->run_tilewise, named);
}

/* SDDMM is the CPU's alone, without dynamic: by default those are left
 * out (and the user told); asked for by name, they are refused. */
static gboolean
parse_op (const SweepArgs *a, SpxSweepOptions *o, guint named)
{
  if (a->op == NULL)
    return TRUE;
  if (!spx_bench_op_parse (a->op, &o->op))
    return spx_cli_usage_error (CMD, "--op: expected spmm or sddmm, got "
                                "'%s'", a->op), FALSE;
  if (o->op != SPX_BENCH_OP_SDDMM)
    return TRUE;
  if (a->source != NULL && o->run_model)
    return spx_cli_usage_error (CMD, "--op sddmm: the IPU model covers SpMM "
                                "only; use --source cpu"), FALSE;
  if (named & (SPX_CLI_MODE (SPX_SWEEP_DYNAMIC) |
               SPX_CLI_MODE (SPX_SWEEP_TILEWISE)))
    return spx_cli_usage_error (CMD, "--op sddmm: SDDMM has no dynamic or "
                                "tile-wise mode; use --modes static"), FALSE;
  if (o->run_model || o->run_dynamic || o->run_tilewise)
    spx_cli_line (stderr, "sparse-explorer sweep: note: SDDMM is measured "
                  "on the CPU only, as dense and static (the IPU model, the "
                  "dynamic and the tile-wise plans cover SpMM)");
  spx_sweep_options_set_op (o, o->op);
  return TRUE;
}

/* Generated masks: uniform (the default) or tile-wise rows; a mask's
 * sweep has its own pattern. */
static gboolean
parse_pattern (const SweepArgs *a, SpxSweepOptions *o)
{
  guint64 v;
  if (o->subject != NULL && (a->pattern || a->tile_width))
    return spx_cli_usage_error (CMD, "%s: a mask's sweep re-blocks the mask "
                                "itself", a->pattern ? "--pattern"
                                : "--tile-width"), FALSE;
  if (a->pattern && (!spx_pattern_from_string (a->pattern, &o->pattern) ||
                     !(SWEEP_PATTERNS & (1u << o->pattern))))
    {
      g_autofree char *patterns = spx_pattern_list (SWEEP_PATTERNS);
      return spx_cli_usage_error (CMD, "--pattern: expected %s, got '%s'",
                                  patterns, a->pattern), FALSE;
    }
  if (a->tile_width == NULL)
    return TRUE;
  if (!spx_cli_uint (CMD, "--tile-width", a->tile_width, 1, SPX_MASK_MAX_DIM,
                     &v))
    return FALSE;
  o->tile_width = (guint) v;
  return TRUE;
}

/* --m, --k, --n set both sources; best is the model's alone. A subject
 * has its own shape. */
static gboolean
parse_shape (const SweepArgs *a, SpxSweepOptions *o)
{
  guint64 v;
  if (o->subject != NULL && (a->m || a->k || a->densities))
    return spx_cli_usage_error (CMD, "%s: a mask's sweep takes its shape "
                                "from the mask and re-blocks it (give "
                                "--blocks)", a->m ? "--m" : a->k ? "--k"
                                : "--densities"), FALSE;
  if (a->m && !spx_cli_uint (CMD, "--m", a->m, 1, SPX_MASK_MAX_DIM, &v))
    return FALSE;
  if (a->m)
    o->model_m = o->cpu_m = v;
  if (a->k && !spx_cli_uint (CMD, "--k", a->k, 1, SPX_MASK_MAX_DIM, &v))
    return FALSE;
  if (a->k)
    o->model_k = o->cpu_k = v;
  if (a->n == NULL || g_str_equal (a->n, "best"))
    {
      if (a->n && !o->run_model)
        return spx_cli_usage_error (CMD, "--n: best is for the model only; "
                                    "give a number with --source cpu"), FALSE;
      if (a->n)
        o->model_n = 0;
      return TRUE;
    }
  if (!spx_cli_uint (CMD, "--n", a->n, 1, SPX_MASK_MAX_DIM, &v))
    return FALSE;
  o->model_n = o->cpu_n = v;
  return TRUE;
}



static gboolean
parse_uint_opt (const char *option, const char *text, guint64 min,
                guint64 max, guint *value)
{
  guint64 v;
  if (text == NULL)
    return TRUE;
  if (!spx_cli_uint (CMD, option, text, min, max, &v))
    return FALSE;
  *value = (guint) v;
  return TRUE;
}

static gboolean
parse_cpu (const SweepArgs *a, SpxSweepOptions *o)
{
  spx_tune_set_measuring (!a->no_tune);
  return (a->threads == NULL || spx_cli_threads (CMD, a->threads,
                                                  &o->threads)) &&
         parse_uint_opt ("--reps", a->reps, SPX_SWEEP_MIN_REPS, 100000,
                         &o->reps) &&
         parse_uint_opt ("--warmup", a->warmup, 0, 100000, &o->warmup) &&
         (a->seed == NULL ||
          spx_cli_uint (CMD, "--seed", a->seed, 0, G_MAXUINT64, &o->seed));
}

/* Tile-wise runs fp32 only. */
static gboolean
check_dtype (const SweepArgs *a, SpxSweepOptions *o, SpxDtype dtype,
             guint named)
{
  o->dtype = dtype;
  return spx_cli_tilewise_dtype (CMD, o->run_cpu && o->run_tilewise, dtype,
                                 named, a->modes != NULL);
}

static gboolean
parse_model (const SweepArgs *a, SpxSweepOptions *o, SpxIpuMachine **own,
             guint named, int *status)
{
  g_autoptr (GError) error = NULL;
  *status = SPX_EXIT_USAGE;
  SpxDtype dtype = o->dtype;
  if (a->dtype && !spx_dtype_from_string (a->dtype, &dtype))
    return spx_cli_usage_error (CMD, "--dtype: expected %s, got '%s'",
                                spx_dtype_names (), a->dtype), FALSE;
  if (!check_dtype (a, o, dtype, named))
    return FALSE;
  if (a->machine == NULL) /* the study's, or bow */
    return TRUE;
  *own = spx_ipu_machine_resolve (a->machine, &error);
  if (*own == NULL)
    return (*status = spx_cli_machine_error (CMD, error)), FALSE;
  o->machine = *own;
  return TRUE;
}

/* A block size in messages: "--blocks 16", or one of the defaults. */
static char *
block_what (const SweepArgs *a, const SpxSweepOptions *o, guint block)
{
  if (a->blocks != NULL)
    return g_strdup_printf ("--blocks %u", block);
  g_autofree char *defaults = spx_defaults_blocks_text (o->blocks,
                                                        o->n_blocks, ",");
  return g_strdup_printf ("block size %u (of the default %s; give --blocks)",
                          block, defaults);
}

/* Every block fits the shapes swept, and every density keeps a block of
 * each generated mask. */
static gboolean
check_points (const SweepArgs *a, SpxSweepOptions *o)
{
  spx_sweep_options_fit (o, a->blocks != NULL, a->densities != NULL);
  const guint64 shapes[2][2] = { { o->model_m, o->model_k },
                                 { o->cpu_m, o->cpu_k } };
  const char *densities = a->densities ? "--densities"
                                       : "the default density";
  SpxGenOptions gen;
  spx_gen_options_init (&gen);
  gen.pattern = o->pattern;
  gen.tile_width = o->tile_width;
  for (guint s = 0; s < 2; s++)
    for (guint b = 0; (s == 0 ? o->run_model : o->run_cpu) &&
                      b < o->n_blocks; b++)
      {
        g_autofree char *what = block_what (a, o, o->blocks[b]);
        if (!spx_cli_check_block (CMD, what, o->blocks[b], shapes[s][0],
                                  shapes[s][1]))
          return FALSE;
        for (guint d = 0; o->subject == NULL && d < o->n_densities; d++)
          {
            gen.density = o->densities[d];
            if (!spx_cli_check_keeps (CMD, densities, &gen, shapes[s][0],
                                      shapes[s][1], o->blocks[b]))
              return FALSE;
          }
      }
  return TRUE;
}

/* The options over the defaults: the paper's comparison, or a study's
 * own sweep when --scenario or --mask names one. */
static gboolean
parse_all (const SweepArgs *a, SpxSweepOptions *o, SpxIpuMachine **own,
           int *status)
{
  guint named = 0;
  *status = SPX_EXIT_USAGE;
  return (a->source == NULL ||
          spx_cli_sources (CMD, a->source, &o->run_model, &o->run_cpu)) &&
         (a->densities == NULL || parse_densities (a->densities, o)) &&
         (a->blocks == NULL ||
          spx_cli_blocks (CMD, a->blocks, o->blocks, &o->n_blocks)) &&
         (a->modes == NULL || parse_modes (a->modes, o, &named)) &&
         parse_op (a, o, named) && parse_pattern (a, o) &&
         parse_shape (a, o) && parse_cpu (a, o) && check_points (a, o) &&
         parse_model (a, o, own, named, status);
}

static gboolean
progress (guint done, guint total, const SpxSweepPoint *p, gpointer tty)
{
  /* Ctrl-C or SIGTERM cancelled the current GCancellable: stop, then
   * write what is done */
  gboolean interrupted = g_cancellable_is_cancelled (
    g_cancellable_get_current ());
  if (tty != NULL && !interrupted && p != NULL)
    {
      g_autofree char *what = g_strdup_printf (
        "%s b=%u d=%.4g %s", spx_sweep_source_to_string (p->source),
        p->block, p->density, spx_sweep_mode_to_string (p->mode));
      spx_cli_progress (done, total, what);
    }
  return !interrupted;
}

static gboolean
write_out (const SpxSweep *sweep, const char *path, SpxCliOut kind,
           SpxExportFormat format, const SpxCliPicture *pic, GError **error)
{
  if (kind == SPX_CLI_OUT_TABLE)
    return spx_sweep_save (sweep, path, SPX_SAVE_DEFAULT, error);
  SpxRenderSpeedupData chart = { .sweep = sweep };
  return spx_render_export (path, format, pic->width, pic->height,
                            pic->scale, spx_render_speedup, &chart,
                            &pic->style, SPX_SAVE_DEFAULT, error);
}

/* Run with Ctrl-C and SIGTERM caught; *signum is the one that stopped
 * the sweep, or 0. A second one ends the program at once. */
static gboolean
run_sweep (SpxSweep *sweep, const SpxSweepOptions *o, int *signum,
           GError **error)
{
  SpxCliSignals *signals = spx_cli_signals_catch ();
  gboolean tty = isatty (STDERR_FILENO);
  gboolean ok = spx_sweep_run (sweep, o, progress, tty ? stderr : NULL,
                               error);
  *signum = spx_cli_signals_release (signals);
  if (tty)
    fprintf (stderr, "\r\033[K");
  return ok;
}

/* Where the output shows which points are noisy. */
static const char *
noisy_where (const char *out, SpxCliOut kind)
{
  if (kind == SPX_CLI_OUT_CHART)
    return "marked noisy in the chart";
  return spx_has_suffix (out, ".json") ? "\"noisy\": true" : "noisy = 1";
}

/* What the user should know once the points are written. */
static void
report (const SpxStudy *study, const SpxSweep *sweep, const char *out,
        SpxCliOut kind)
{
  guint noisy = spx_sweep_count_noisy (sweep);
  if (noisy > 0)
    {
      g_autofree char *advice = spx_noise_advice (SPX_NOISE_BUSY,
                                                  sweep->settings.threads);
      spx_cli_line (stderr, "sparse-explorer sweep: warning: %u of %u "
                    "points noisy (%s): %s", noisy, sweep->points->len,
                    noisy_where (out, kind), advice);
    }
  if (sweep->settings.run_cpu && spx_dense_better_coretype () != NULL)
    spx_cli_line (stderr, "sparse-explorer sweep: warning: OpenBLAS runs its "
                  "%s kernel, weaker than this processor's %s: dense is "
                  "slowed and every CPU speedup inflated", spx_dense_core (),
                  spx_dense_better_coretype ());
  if (study != NULL)
    {
      SpxVerdict verdict;
      spx_study_judge (study, &verdict);
      g_autofree char *text = spx_render_verdict_text (
        &verdict, "run sparse-explorer sweep again");
      spx_cli_line (stdout, "%s", text);
    }
}

static int
run (gconstpointer data)
{
  const SweepArgs *a = data;
  SpxSweepOptions o;
  SpxCliOut kind;
  SpxExportFormat format = SPX_EXPORT_PNG;
  g_autoptr (SpxStudy) study = NULL;
  g_autoptr (SpxIpuMachine) machine = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) failed = NULL;
  int signum = 0;
  int status = SPX_EXIT_USAGE;
  SpxCliPicture pic = chart_defaults;
  if (a->out == NULL)
    return spx_cli_usage_error (CMD, "--out is required (a .csv, .json, "
                                ".png, .svg or .pdf file)");
  if (!spx_cli_out (CMD, a->out, &kind, &format) ||
      !spx_cli_picture_args_parse (&a->picture, CMD, &pic))
    return SPX_EXIT_USAGE;
  if (spx_cli_study_args_subject_given (&a->study))
    {
      study = spx_cli_study_args_build (&a->study, CMD, NULL, &status);
      if (study == NULL)
        return status;
      spx_study_sweep_options (study, &o);
    }
  else
    spx_sweep_options_init (&o);
  if (!parse_all (a, &o, &machine, &status))
    return status;
  if (study != NULL && o.run_cpu && a->threads == NULL &&
      !spx_cli_study_check_threads (&a->study, study, CMD))
    return SPX_EXIT_INPUT;
  SpxSweep *sweep = study ? study->sweep : NULL;
  g_autoptr (SpxSweep) own = study ? NULL : spx_sweep_new ();
  sweep = sweep ? sweep : own;
  gboolean cancelled = !run_sweep (sweep, &o, &signum, &failed) && signum;
  if (failed != NULL && !cancelled &&
      failed->domain == SPX_SWEEP_ERROR)
    return spx_cli_usage_error (CMD, "%s", failed->message);
  if (study != NULL)
    study->sweep_revision = study->revision;
  /* a point that failed still leaves the points before it written */
  if ((failed == NULL || cancelled || sweep->points->len > 0) &&
      !write_out (sweep, a->out, kind, format, &pic, &error))
    return spx_cli_input_error (CMD, error);
  if (failed != NULL && !cancelled && sweep->points->len == 0)
    return spx_cli_input_error (CMD, failed);
  if (failed != NULL && !cancelled)
    {
      g_autofree char *done = spx_count_text (sweep->points->len, "point",
                                              "points");
      spx_cli_line (stderr, "sparse-explorer sweep: %s (%s written to %s)",
                    failed->message, done, a->out);
      return SPX_EXIT_INPUT;
    }
  g_autofree char *total = spx_count_text (spx_sweep_total (&o), "point",
                                           "points");
  spx_cli_line (cancelled ? stderr : stdout, "sparse-explorer sweep: %s%u of "
                "%s written to %s", cancelled ? "interrupted: " : "",
                sweep->points->len, total, a->out);
  report (study, sweep, a->out, kind);
  return cancelled ? 128 + signum : SPX_EXIT_OK;
}

/* "1/4,1/8": densities as --densities reads them. */
static char *
densities_text (const SpxSweepOptions *o)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < o->n_densities; i++)
    {
      g_autofree char *item = spx_cli_density_text (o->densities[i]);
      g_string_append_printf (s, "%s%s", i ? "," : "", item);
    }
  return g_string_free (s, FALSE);
}

/* What a sweep does, with the re-blocking of a mask's sweep as it is. */
static char *
sweep_summary (void)
{
  const SpxDefaults *d = spx_defaults ();
  g_autofree char *blocks = spx_defaults_blocks_text (d->blocks, d->n_blocks,
                                                      ",");
  return g_strdup_printf (
    "For every block size and density, a seeded generated mask, modelled "
    "on an IPU and/or measured on this CPU as dense, static, dynamic and "
    "(the CPU) tile-wise; speedup is over dense of the same source and "
    "point. The defaults below are the PopSparse paper's comparison. With "
    "--mask FILE (or a --scenario whose mask is a file or drawn): that "
    "mask, re-blocked to %s (and the scenario's own block size) unless "
    "--blocks, at its own shape and the "
    "scenario's n (%" G_GUINT64_FORMAT " unless --n), each point at its own "
    "block density.", blocks, d->n);
}

SpxCliOptions *
spx_cli_sweep_options (void)
{
  SpxCliOptions *o = spx_cli_options_new (NULL, sizeof (SweepArgs));
  SweepArgs *args = spx_cli_options_args (o);
  GOptionContext *context = spx_cli_options_context (o);
  SpxSweepOptions d;
  spx_sweep_options_init (&d);
  g_autoptr (SpxScenario) scenario = spx_scenario_new (); /* its machine */
  g_autofree char *densities = densities_text (&d);
  g_autofree char *blocks = spx_defaults_blocks_text (d.blocks, d.n_blocks,
                                                      ",");
  g_autofree char *mask_blocks = spx_defaults_blocks_text (
    spx_defaults ()->blocks, spx_defaults ()->n_blocks, ",");
  g_autofree char *modes = spx_cli_modes_words (SPX_CLI_MODES_CPU, TRUE);
  g_autofree char *patterns = spx_pattern_list (SWEEP_PATTERNS);
  g_autofree char *summary = sweep_summary ();
  g_option_context_set_summary (context, summary);
  g_option_context_set_description (context, "CSV columns: source, mode, "
    "block, density, m, k, n, dtype, machine, ms, nz_throughput (non-zero "
    "TFLOP/s for the model, GFLOP/s for the CPU), speedup (the CPU: the "
    "median of per-round dense ÷ sparse times), ms_q1, ms_q3 (the middle "
    "half of the timed runs), noisy (1: measured while other programs ran, "
    "with rounds or ratios spread widely, or against a slowed dense; "
    "measured twice), dense, speedup_q1, speedup_q3 (the middle half of "
    "the per-round ratios).\n"
    "Ctrl-C (SIGTERM) stops the sweep, also in the middle of a point "
    "(left out), writes the points done to --out and exits with status "
    "130 (143).");
  SPX_CLI_ADD (o, SWEEP_OPTIONS, NULL);
  /* the word the other commands use */
  spx_cli_options_alias (o, "mode", "modes");
  spx_cli_picture_args_add (&args->picture, o, &chart_defaults);
  spx_cli_picture_noise_add (&args->picture, o);
  spx_cli_study_args_add (&args->study, o, SPX_CLI_STUDY_SCENARIO);
  return o;
}

int
spx_cli_sweep (int argc, char **argv)
{
  g_autoptr (SpxCliOptions) options = spx_cli_sweep_options ();
  return spx_cli_parse_and_run (CMD, options, argc, argv, run);
}
