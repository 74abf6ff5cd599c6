/* spx-sweep.c: a sweep's options (checked, fitted to its shape), its
 * life, names and counts; spx-sweep-run.c runs it, spx-sweep-write.c
 * writes it */
#include "spx-sweep.h"
#include "spx-sweep-private.h"
#include "spx-bench.h"
#include "spx-defaults.h"
#include "spx-mask-gen.h"
#include "spx-util.h"

#include <math.h>
#include <string.h>

G_DEFINE_QUARK (spx-sweep-error-quark, spx_sweep_error)

void
spx_sweep_options_init (SpxSweepOptions *o)
{
  static const double densities[] = { 1 / 4.0, 1 / 8.0, 1 / 16.0, 1 / 32.0 };
  const SpxDefaults *d = spx_defaults ();
  memset (o, 0, sizeof *o);
  o->run_model = o->run_cpu = TRUE;
  memcpy (o->densities, densities, sizeof densities);
  o->n_densities = G_N_ELEMENTS (densities);
  memcpy (o->blocks, d->generated_blocks,
          d->n_generated_blocks * sizeof *o->blocks);
  o->n_blocks = d->n_generated_blocks;
  o->run_static = o->run_dynamic = o->run_tilewise = TRUE;
  o->seed = 1;
  o->pattern = SPX_PATTERN_UNIFORM;
  o->tile_width = 128;
  o->model_m = o->model_k = 4096;
  o->dtype = SPX_DTYPE_FP16;
  o->cpu_m = o->cpu_k = 2048;
  o->cpu_n = d->n;
  o->threads = d->threads;
  o->reps = d->reps;
  o->warmup = d->warmup;
}

void
spx_sweep_options_set_subject (SpxSweepOptions *o, const SpxMask *subject,
                               const char *name)
{
  const SpxDefaults *d = spx_defaults ();
  o->subject = subject;
  o->subject_name = name;
  memcpy (o->blocks, d->blocks, d->n_blocks * sizeof *o->blocks);
  o->n_blocks = d->n_blocks;
  o->model_m = o->cpu_m = subject->rows;
  o->model_k = o->cpu_k = subject->cols;
}

/* Whether block b fits every shape swept, and (d >= 0) density d keeps a
 * block of each generated mask at it. */
static gboolean
point_fits (const SpxSweepOptions *o, guint b, gint d)
{
  const guint64 shapes[2][2] = { { o->model_m, o->model_k },
                                 { o->cpu_m, o->cpu_k } };
  SpxGenOptions gen;
  spx_gen_options_init (&gen);
  gen.pattern = o->pattern;
  gen.tile_width = o->tile_width;
  gen.density = d >= 0 ? o->densities[d] : 1;
  guint block = o->blocks[b];
  for (guint s = 0; s < 2; s++)
    {
      guint64 rows = shapes[s][0], cols = shapes[s][1];
      if (!(s == 0 ? o->run_model : o->run_cpu))
        continue;
      if (block > rows || block > cols ||
          (d >= 0 && o->subject == NULL &&
           !spx_gen_keeps_any ((rows + block - 1) / block,
                               (cols + block - 1) / block, &gen)))
        return FALSE;
    }
  return TRUE;
}

/* Whether block b can be swept at the densities: all of them when they
 * were chosen, else any. */
static gboolean
block_fits (const SpxSweepOptions *o, guint b, gboolean densities_chosen)
{
  if (!point_fits (o, b, -1))
    return FALSE;
  gboolean all = TRUE, any = FALSE;
  for (guint d = 0; d < o->n_densities; d++)
    {
      gboolean fits = point_fits (o, b, (gint) d);
      all = all && fits;
      any = any || fits;
    }
  return densities_chosen ? all : any;
}

void
spx_sweep_options_fit (SpxSweepOptions *o, gboolean blocks_chosen,
                       gboolean densities_chosen)
{
  guint kept = 0;
  for (guint b = 0; !blocks_chosen && b < o->n_blocks; b++)
    if (block_fits (o, b, densities_chosen))
      o->blocks[kept++] = o->blocks[b];
  if (!blocks_chosen && kept > 0)
    o->n_blocks = kept;
  kept = 0;
  for (guint d = 0; !densities_chosen && d < o->n_densities; d++)
    {
      gboolean all = TRUE;
      for (guint b = 0; all && b < o->n_blocks; b++)
        all = point_fits (o, b, (gint) d);
      if (all)
        o->densities[kept++] = o->densities[d];
    }
  if (!densities_chosen && kept > 0)
    o->n_densities = kept;
}

static gboolean
dims_ok (guint64 m, guint64 k)
{
  return m >= 1 && k >= 1 && m <= SPX_MASK_MAX_DIM && k <= SPX_MASK_MAX_DIM;
}

gboolean
spx_sweep_options_validate (const SpxSweepOptions *o, GError **error)
{
  if (!o->run_model && !o->run_cpu)
    return spx_invalid (error, SPX_SWEEP_ERROR, SPX_SWEEP_ERROR_INVALID,
                        "no source: expected the model, the CPU or both");
  if (o->n_densities < 1 || o->n_densities > SPX_SWEEP_MAX_VALUES ||
      o->n_blocks < 1 || o->n_blocks > SPX_SWEEP_MAX_VALUES)
    return spx_invalid (error, SPX_SWEEP_ERROR, SPX_SWEEP_ERROR_INVALID,
                        "expected 1 to 32 densities and block sizes");
  for (guint i = 0; i < o->n_densities; i++)
    if (!(o->densities[i] > 0 && o->densities[i] <= 1))
      return spx_invalid (error, SPX_SWEEP_ERROR, SPX_SWEEP_ERROR_INVALID,
                          "densities must be above 0 and at most 1");
  for (guint i = 0; i < o->n_blocks; i++)
    if (o->blocks[i] < 1 || o->blocks[i] > SPX_MASK_MAX_BLOCK)
      return spx_invalid (error, SPX_SWEEP_ERROR, SPX_SWEEP_ERROR_INVALID,
                          "block sizes must be from 1 to 4096");
  if (o->op == SPX_BENCH_OP_SDDMM && o->run_model)
    return spx_invalid (error, SPX_SWEEP_ERROR, SPX_SWEEP_ERROR_INVALID,
                        "SDDMM is measured on the CPU only: the IPU "
                        "model covers SpMM");
  if (o->op == SPX_BENCH_OP_SDDMM && (o->run_dynamic || o->run_tilewise))
    return spx_invalid (error, SPX_SWEEP_ERROR, SPX_SWEEP_ERROR_INVALID,
                        "SDDMM has no dynamic or tile-wise mode");
  if (o->pattern != SPX_PATTERN_UNIFORM && o->pattern != SPX_PATTERN_TILEWISE)
    return spx_invalid (error, SPX_SWEEP_ERROR, SPX_SWEEP_ERROR_INVALID,
                        "generated masks are uniform or tilewise");
  if (o->tile_width < 1 || o->tile_width > SPX_MASK_MAX_DIM)
    return spx_invalid (error, SPX_SWEEP_ERROR, SPX_SWEEP_ERROR_INVALID,
                        "the tile width must be from 1 to the mask's "
                        "largest side");
  if (o->op != SPX_BENCH_OP_SPMM && o->op != SPX_BENCH_OP_SDDMM)
    return spx_invalid (error, SPX_SWEEP_ERROR, SPX_SWEEP_ERROR_INVALID,
                        "unknown operation");
  if (o->run_model && !dims_ok (o->model_m, o->model_k))
    return spx_invalid (error, SPX_SWEEP_ERROR, SPX_SWEEP_ERROR_INVALID,
                        "bad model m or k");
  if (o->run_cpu && (!dims_ok (o->cpu_m, o->cpu_k) || o->cpu_n < 1))
    return spx_invalid (error, SPX_SWEEP_ERROR, SPX_SWEEP_ERROR_INVALID,
                        "bad CPU m, k or n");
  if (o->run_cpu && o->reps < SPX_SWEEP_MIN_REPS)
    return spx_invalid (error, SPX_SWEEP_ERROR, SPX_SWEEP_ERROR_INVALID,
                        "at least 5 timed runs per point are needed for "
                        "a median and its spread");
  if (o->subject != NULL && (o->subject->block != 1 ||
                             o->subject->rows != o->model_m ||
                             o->subject->cols != o->model_k ||
                             o->subject->rows != o->cpu_m ||
                             o->subject->cols != o->cpu_k))
    return spx_invalid (error, SPX_SWEEP_ERROR, SPX_SWEEP_ERROR_INVALID,
                        "the subject must be an element mask of the "
                        "sweep's m × k");
  if (o->run_model && o->machine != NULL)
    return spx_ipu_machine_validate (o->machine, error);
  return TRUE;
}

SpxSweep *
spx_sweep_new (void)
{
  SpxSweep *sweep = g_new0 (SpxSweep, 1);
  sweep->points = g_array_new (FALSE, TRUE, sizeof (SpxSweepPoint));
  spx_sweep_options_init (&sweep->settings);
  return sweep;
}

void
spx_sweep_free (SpxSweep *sweep)
{
  if (sweep == NULL)
    return;
  g_array_unref (sweep->points);
  spx_ipu_machine_free (sweep->settings.machine);
  spx_mask_free ((SpxMask *) sweep->settings.subject);
  g_free ((char *) sweep->settings.subject_name);
  g_free (sweep);
}

SpxSweep *
spx_sweep_copy (const SpxSweep *sweep)
{
  SpxSweep *copy = spx_sweep_new ();
  spx_sweep_reset (copy, &sweep->settings, NULL);
  g_array_append_vals (copy->points, sweep->points->data,
                       sweep->points->len);
  copy->best_dense_gflops = sweep->best_dense_gflops;
  return copy;
}

char *
spx_sweep_label (const SpxSweep *sweep)
{
  const SpxSweepOptions *o = &sweep->settings;
  const char *what = o->subject == NULL ? "generated masks"
                     : o->subject_name != NULL && *o->subject_name
                       ? o->subject_name : "a mask";
  g_autofree char *shape = o->subject != NULL
    ? g_strdup_printf ("%" G_GUINT64_FORMAT " × %" G_GUINT64_FORMAT,
                       o->subject->rows, o->subject->cols)
    : g_strdup_printf ("%" G_GUINT64_FORMAT " × %" G_GUINT64_FORMAT,
                       o->run_cpu ? o->cpu_m : o->model_m,
                       o->run_cpu ? o->cpu_k : o->model_k);
  return g_strdup_printf ("%s (%s) · %s · n = %" G_GUINT64_FORMAT " · %s",
                          what, shape, o->machine ? o->machine->name : "bow",
                          o->run_cpu ? o->cpu_n : o->model_n,
                          spx_dtype_to_string (o->dtype));
}

void
spx_sweep_options_set_op (SpxSweepOptions *o, SpxBenchOp op)
{
  o->op = op;
  if (op != SPX_BENCH_OP_SDDMM)
    return;
  o->run_model = o->run_dynamic = o->run_tilewise = FALSE;
  o->run_cpu = o->run_static = TRUE;
}

gboolean
spx_sweep_runs_tilewise (const SpxSweepOptions *o)
{
  return o->run_cpu && o->run_tilewise &&
         spx_bench_cpu_type (o->dtype) == SPX_CPU_FP32;
}

guint
spx_sweep_total (const SpxSweepOptions *o)
{
  guint per_mask = 1 + (o->run_static != 0) + (o->run_dynamic != 0);
  guint sources = (o->run_model != 0) + (o->run_cpu != 0);
  guint masks = o->subject != NULL ? 1 : o->n_densities;
  guint tilewise = spx_sweep_runs_tilewise (o);
  return o->n_blocks * masks * (sources * per_mask + tilewise);
}

const char *
spx_sweep_source_to_string (SpxSweepSource source)
{
  return source == SPX_SWEEP_CPU ? "cpu" : "model";
}

static const char *const mode_names[SPX_SWEEP_N_MODES] = {
  "dense", "static", "dynamic", "tilewise"
};

const char *
spx_sweep_mode_to_string (SpxSweepMode mode)
{
  return (guint) mode < SPX_SWEEP_N_MODES ? mode_names[mode] : "unknown";
}

gboolean
spx_sweep_mode_from_string (const char *name, SpxSweepMode *mode)
{
  for (guint i = 0; i < SPX_SWEEP_N_MODES; i++)
    if (g_str_equal (name, mode_names[i]))
      {
        *mode = (SpxSweepMode) i;
        return TRUE;
      }
  return FALSE;
}

guint
spx_sweep_count_noisy (const SpxSweep *sweep)
{
  guint n = 0;
  for (guint i = 0; i < sweep->points->len; i++)
    n += g_array_index (sweep->points, SpxSweepPoint, i).noise != 0;
  return n;
}

gboolean
_spx_sweep_want_mode (const SpxSweepOptions *o, SpxSweepMode mode)
{
  return mode == SPX_SWEEP_DENSE ||
         (mode == SPX_SWEEP_STATIC && o->run_static) ||
         (mode == SPX_SWEEP_DYNAMIC && o->run_dynamic) ||
         (mode == SPX_SWEEP_TILEWISE && o->run_tilewise);
}

/* Keep a copy of the options (the machine resolved, the subject and its
 * name copied; all owned). */
gboolean
spx_sweep_reset (SpxSweep *sweep, const SpxSweepOptions *options,
                 GError **error)
{
  SpxSweepOptions *s = &sweep->settings;
  g_array_set_size (sweep->points, 0);
  spx_ipu_machine_free (s->machine);
  spx_mask_free ((SpxMask *) s->subject);
  g_free ((char *) s->subject_name);
  *s = *options;
  s->machine = options->machine ? spx_ipu_machine_copy (options->machine)
                                : spx_ipu_machine_preset ("bow");
  s->subject = options->subject ? spx_mask_ref (options->subject) : NULL;
  s->subject_name = g_strdup (options->subject_name);
  s->dense_plans = NULL; /* the run's only */
  sweep->best_dense_gflops = 0;
  return spx_sweep_options_validate (options, error);
}

gboolean
spx_sweep_point_judged (const SpxSweepPoint *p)
{
  return p->mode != SPX_SWEEP_DENSE && p->noise == SPX_NOISE_NONE &&
         p->fits && isfinite (p->speedup);
}
