/* spx-sweep.c: densities × block sizes × modes, modelled and measured,
 * one point at a time so that a chart can follow along */
#include "spx-sweep.h"
#include "spx-sweep-dense.h"
#include "spx-bench.h"
#include "spx-defaults.h"
#include "spx-engine-private.h"
#include "spx-json.h"
#include "spx-mask-gen.h"
#include "spx-util.h"

#include <math.h>
#include <string.h>

G_DEFINE_QUARK (spx-sweep-error-quark, spx_sweep_error)

/* Dense's speed is measured once before the points: the first points are
 * judged against it too. */
#define CALIBRATION_REPS 3

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

/* The points one CPU measurement made, to judge them again at the end. */
typedef struct {
  guint          first, count;
  SpxBenchResult result;
} CpuRecord;

/* One run in progress. */
typedef struct {
  SpxSweep        *sweep;
  SpxSweepProgress progress;
  gpointer         user_data;
  guint            total;
  GArray          *cpu_records; /* CpuRecord */
  gboolean         stopped;     /* the progress callback said stop */
  SpxSweepDensePlans *dense_plans; /* the options', or NULL */
} Runner;

static gboolean
append (Runner *r, const SpxSweepPoint *point, GError **error)
{
  GArray *points = r->sweep->points;
  g_array_append_vals (points, point, 1);
  const SpxSweepPoint *last = &g_array_index (points, SpxSweepPoint,
                                              points->len - 1);
  if (r->progress == NULL ||
      r->progress (points->len, r->total, last, r->user_data))
    return TRUE;
  g_set_error (error, SPX_SWEEP_ERROR, SPX_SWEEP_ERROR_CANCELLED,
               "cancelled after %u of %u points", points->len,
               r->total);
  return FALSE;
}

static gboolean
want_mode (const SpxSweepOptions *o, SpxSweepMode mode)
{
  return mode == SPX_SWEEP_DENSE ||
         (mode == SPX_SWEEP_STATIC && o->run_static) ||
         (mode == SPX_SWEEP_DYNAMIC && o->run_dynamic) ||
         (mode == SPX_SWEEP_TILEWISE && o->run_tilewise);
}

static SpxMask *
generated_mask (const SpxSweepOptions *o, guint64 m, guint64 k, guint block,
                double density, GError **error)
{
  SpxGenOptions gen;
  spx_gen_options_init (&gen);
  gen.pattern = o->pattern;
  gen.tile_width = o->tile_width;
  gen.density = density;
  gen.seed = o->seed;
  return spx_mask_generate (m, k, block, &gen, error);
}

/* The mask of a point: the subject re-blocked (*density becomes its own
 * block density; at its own block, the subject itself, not a copy of what
 * may be gigabytes) or a seeded generated mask. */
static SpxMask *
point_mask (const SpxSweepOptions *o, guint64 m, guint64 k, guint block,
            double *density, GError **error)
{
  if (o->subject == NULL)
    return generated_mask (o, m, k, block, *density, error);
  SpxMask *mask = spx_mask_at_block (o->subject, block, error);
  if (mask != NULL)
    *density = (double) spx_mask_count (mask) / spx_mask_n_blocks (mask);
  return mask;
}

/* A point's element density (its block density is density). */
static double
point_elements (const SpxSweepOptions *o, double density)
{
  return o->subject == NULL ? density
                            : (double) spx_mask_count (o->subject) /
                              spx_mask_n_blocks (o->subject);
}

/* The model: dense first (each mode at its best n when asked), then the
 * sparse modes, their speedup a ratio of non-zero throughputs. */
static gboolean
run_model (Runner *r, guint block, double density, GError **error)
{
  const SpxSweepOptions *o = &r->sweep->settings;
  g_autoptr (SpxMask) mask = point_mask (o, o->model_m, o->model_k, block,
                                         &density, error);
  if (mask == NULL)
    return FALSE;
  double dense_nz = 0;
  for (SpxIpuMode mode = SPX_IPU_MODE_DENSE; mode < SPX_IPU_N_MODES; mode++)
    {
      if (!want_mode (o, (SpxSweepMode) mode))
        continue;
      SpxSweepPlanned p;
      if (!_spx_sweep_model_plan (o, r->dense_plans, mode, mask, &p, error))
        return FALSE;
      if (mode == SPX_IPU_MODE_DENSE)
        dense_nz = p.nz_tflops;
      SpxSweepPoint pt = {
        .source = SPX_SWEEP_MODEL, .mode = (SpxSweepMode) mode,
        .block = block,
        .density = density, .elements = point_elements (o, density),
        .m = p.m, .k = p.k, .n = p.n,
        .dtype = spx_dtype_on_ipu (o->dtype), .ms = p.ms,
        .nz_throughput = p.nz_tflops,
        .speedup = dense_nz > 0 ? p.nz_tflops / dense_nz : NAN,
        .fits = p.fits, .ms_q1 = p.ms, .ms_q3 = p.ms,
      };
      pt.speedup_q1 = pt.speedup_q3 = pt.speedup;
      g_strlcpy (pt.machine, o->machine->name, sizeof pt.machine);
      if (!append (r, &pt, error))
        return FALSE;
    }
  return TRUE;
}

/* Measuring a point can take seconds: let the caller stop it midway. */
static gboolean
bench_alive (guint done, guint total, gpointer data)
{
  Runner *r = data;
  if (r->progress != NULL &&
      !r->progress (r->sweep->points->len, r->total, NULL, r->user_data))
    r->stopped = TRUE;
  return !r->stopped;
}

static gboolean
bench (Runner *r, const SpxMask *mask, gboolean sparse, guint reps,
       SpxBenchResult *res, GError **error)
{
  const SpxSweepOptions *o = &r->sweep->settings;
  SpxBenchOptions bo;
  spx_bench_options_init (&bo);
  if (!spx_engine_options_init (&bo.engine, error))
    return FALSE;
  bo.op = o->op;
  bo.engine.threads = o->threads;
  bo.engine.type = spx_bench_cpu_type (o->dtype);
  bo.reps = reps;
  bo.warmup = o->warmup;
  bo.run_static = sparse && o->run_static;
  bo.run_dynamic = sparse && o->run_dynamic;
  bo.run_tilewise = sparse && o->run_tilewise;
  bo.tile_width = o->tile_width;
  bo.seed = o->seed;
  bo.progress = bench_alive;
  bo.user_data = r;
  if (spx_bench_run (mask, o->cpu_n, &bo, res, error))
    {
      r->sweep->best_dense_gflops = MAX (r->sweep->best_dense_gflops,
                                         res->dense.gflops);
      spx_bench_judge (res, r->sweep->best_dense_gflops);
      return TRUE;
    }
  if (r->stopped)
    {
      g_clear_error (error);
      g_set_error (error, SPX_SWEEP_ERROR, SPX_SWEEP_ERROR_CANCELLED,
                   "cancelled after %u of %u points",
                   r->sweep->points->len, r->total);
    }
  return FALSE;
}

static gboolean
append_cpu (Runner *r, guint block, double density,
            const SpxBenchResult *res, GError **error)
{
  const SpxSweepOptions *o = &r->sweep->settings;
  /* dense on the non-zero scale: what its time buys of the sparse work */
  SpxBenchTiming dense = res->dense;
  dense.gflops *= res->density;
  const SpxBenchTiming *timings[SPX_SWEEP_N_MODES] = {
    &dense, &res->stat, &res->dyn, &res->tilewise
  };
  CpuRecord rec = { r->sweep->points->len, 0, *res };
  for (SpxSweepMode mode = SPX_SWEEP_DENSE; mode < SPX_SWEEP_N_MODES; mode++)
    {
      const SpxBenchTiming *t = timings[mode];
      if (!want_mode (o, mode) || !t->ran)
        continue;
      SpxSweepPoint pt = {
        .source = SPX_SWEEP_CPU, .mode = mode, .block = block,
        .density = density, .elements = point_elements (o, density),
        .m = res->m, .k = res->k, .n = res->n,
        .dtype = res->type == SPX_CPU_BF16 ? SPX_DTYPE_BF16 : SPX_DTYPE_FP32,
        .ms = t->ms, .nz_throughput = t->gflops,
        .speedup = t->speedup, .fits = TRUE, .ms_q1 = t->ms_q1,
        .ms_q3 = t->ms_q3, .noise = t->noise,
        .speedup_q1 = t->speedup_q1, .speedup_q3 = t->speedup_q3,
        .threads = res->threads,
      };
      g_snprintf (pt.machine, sizeof pt.machine, "cpu-%s-%ut",
                  spx_isa_to_string (res->isa), res->threads);
      g_strlcpy (pt.dense, res->dense_library, sizeof pt.dense);
      rec.count++;
      if (!append (r, &pt, error))
        {
          g_array_append_val (r->cpu_records, rec);
          return FALSE;
        }
    }
  g_array_append_val (r->cpu_records, rec);
  return TRUE;
}

/* Measured once more when judged noisy; the second measurement stands. */
static gboolean
run_cpu (Runner *r, guint block, double density, GError **error)
{
  const SpxSweepOptions *o = &r->sweep->settings;
  g_autoptr (SpxMask) mask = point_mask (o, o->cpu_m, o->cpu_k, block,
                                         &density, error);
  SpxBenchResult res;
  if (mask == NULL || !bench (r, mask, TRUE, o->reps, &res, error))
    return FALSE;
  if (spx_bench_noise (&res) != SPX_NOISE_NONE &&
      !bench (r, mask, TRUE, o->reps, &res, error))
    return FALSE;
  return append_cpu (r, block, density, &res, error);
}

/* Dense alone, once, at the sweep's CPU shape. */
static gboolean
calibrate (Runner *r, GError **error)
{
  const SpxSweepOptions *o = &r->sweep->settings;
  double density = o->densities[0];
  g_autoptr (SpxMask) mask = point_mask (o, o->cpu_m, o->cpu_k, o->blocks[0],
                                         &density, error);
  SpxBenchResult res;
  return mask != NULL &&
         bench (r, mask, FALSE, CALIBRATION_REPS, &res, error);
}

/* Every CPU point against the best dense of the whole sweep. */
static void
judge_again (Runner *r)
{
  GArray *points = r->sweep->points;
  for (guint i = 0; i < r->cpu_records->len; i++)
    {
      CpuRecord *rec = &g_array_index (r->cpu_records, CpuRecord, i);
      spx_bench_judge (&rec->result, r->sweep->best_dense_gflops);
      const SpxBenchTiming *timings[SPX_SWEEP_N_MODES] = {
        &rec->result.dense, &rec->result.stat, &rec->result.dyn,
        &rec->result.tilewise
      };
      for (guint j = rec->first; j < rec->first + rec->count &&
                                 j < points->len; j++)
        {
          SpxSweepPoint *p = &g_array_index (points, SpxSweepPoint, j);
          p->noise = timings[p->mode]->noise;
        }
    }
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

static gboolean
run_source (Runner *r, gboolean cpu, GError **error)
{
  const SpxSweepOptions *o = &r->sweep->settings;
  guint n_masks = o->subject != NULL ? 1 : o->n_densities;
  if (cpu && !calibrate (r, error))
    return FALSE;
  for (guint b = 0; b < o->n_blocks; b++)
    for (guint d = 0; d < n_masks; d++)
      if (!(cpu ? run_cpu : run_model) (r, o->blocks[b], o->densities[d],
                                        error))
        return FALSE;
  return TRUE;
}

/* Bytes of the bits of an m × k mask at block b. */
static double
mask_bytes (guint64 m, guint64 k, guint b)
{
  double blocks = (double) ((m + b - 1) / b) * (double) ((k + b - 1) / b);
  return ceil (blocks / 64) * sizeof (guint64);
}

/* The largest mask of a source's points, at its smallest block (a
 * subject at its own block is not copied), with the masks held. */
static gboolean
check_masks (const SpxSweepOptions *o, guint64 m, guint64 k, GError **error)
{
  guint b = 0;
  for (guint i = 0; i < o->n_blocks; i++)
    if (o->subject == NULL || o->blocks[i] != o->subject->block)
      b = b == 0 ? o->blocks[i] : MIN (b, o->blocks[i]);
  g_autofree char *what = g_strdup_printf (
    "the sweep's mask of %" G_GUINT64_FORMAT "×%" G_GUINT64_FORMAT
    " elements at block %u", m, k, b);
  return b == 0 || spx_budget_check_held ((guint64) mask_bytes (m, k, b),
                                          spx_mask_held_bytes (), what,
                                          error);
}

/* What a sweep cannot run without, known from its options: refused
 * before the first point, not after minutes of others. */
static gboolean
check_needs (const SpxSweepOptions *o, GError **error)
{
  return (!o->run_model || check_masks (o, o->model_m, o->model_k, error)) &&
         (!o->run_cpu || (check_masks (o, o->cpu_m, o->cpu_k, error) &&
                          spx_bench_check_operands (o->op, o->cpu_m, o->cpu_k,
                                                    o->cpu_n, error)));
}

gboolean
spx_sweep_run (SpxSweep *sweep, const SpxSweepOptions *options,
               SpxSweepProgress progress, gpointer user_data, GError **error)
{
  g_return_val_if_fail (sweep != NULL && options != NULL, FALSE);
  /* a sweep refused this way is left as it was */
  if (!spx_sweep_options_validate (options, error) ||
      !check_needs (options, error) ||
      !spx_sweep_reset (sweep, options, error))
    return FALSE;
  Runner r = { sweep, progress, user_data, spx_sweep_total (options),
               g_array_new (FALSE, FALSE, sizeof (CpuRecord)), FALSE,
               options->dense_plans };
  const SpxSweepOptions *o = &sweep->settings;
  /* The model first: it is quick, so the chart fills in early. */
  gboolean ok = (!o->run_model || run_source (&r, FALSE, error)) &&
                (!o->run_cpu || run_source (&r, TRUE, error));
  judge_again (&r);
  g_array_unref (r.cpu_records);
  return ok;
}

/* Each CPU point of scratch (measured again) over the point of sweep of
 * the same block, density and mode. */
static void
replace_points (SpxSweep *sweep, const SpxSweep *scratch)
{
  for (guint i = 0; i < scratch->points->len; i++)
    {
      const SpxSweepPoint *q = &g_array_index (scratch->points,
                                               SpxSweepPoint, i);
      for (guint j = 0; j < sweep->points->len; j++)
        {
          SpxSweepPoint *p = &g_array_index (sweep->points, SpxSweepPoint,
                                             j);
          if (p->source == SPX_SWEEP_CPU && p->block == q->block &&
              p->mode == q->mode && fabs (p->density - q->density) <=
                                      1e-9 * q->density)
            *p = *q;
        }
    }
}

/* Once every CPU point is scratch's, the settings are its run's: the
 * threads the points ran on, and the dense they were judged by. */
static void
adopt_run (SpxSweep *sweep, const SpxSweep *scratch)
{
  guint replaced = 0, cpu = 0;
  for (guint i = 0; i < sweep->points->len; i++)
    {
      const SpxSweepPoint *p = &g_array_index (sweep->points, SpxSweepPoint,
                                               i);
      if (p->source != SPX_SWEEP_CPU)
        continue;
      cpu++;
      for (guint j = 0; j < scratch->points->len; j++)
        replaced += memcmp (p, &g_array_index (scratch->points, SpxSweepPoint,
                                               j), sizeof *p) == 0;
    }
  if (cpu == 0 || replaced < cpu)
    return;
  sweep->settings.threads = scratch->settings.threads;
  sweep->best_dense_gflops = scratch->best_dense_gflops;
}

/* The CPU masks of sweep at one of blocks: (block, density) pairs. */
static guint
masks_at (const SpxSweep *sweep, const guint *blocks, guint n_blocks,
          guint *out_block, double *out_density)
{
  guint n = 0;
  for (guint i = 0; i < sweep->points->len; i++)
    {
      const SpxSweepPoint *p = &g_array_index (sweep->points, SpxSweepPoint,
                                               i);
      gboolean asked = FALSE, seen = FALSE;
      for (guint b = 0; b < n_blocks; b++)
        asked |= blocks[b] == p->block;
      for (guint j = 0; j < n; j++)
        seen |= out_block[j] == p->block && out_density[j] == p->density;
      if (p->source != SPX_SWEEP_CPU || p->mode != SPX_SWEEP_DENSE ||
          !asked || seen || n == SPX_SWEEP_MAX_VALUES * SPX_SWEEP_MAX_VALUES)
        continue;
      out_block[n] = p->block;
      out_density[n++] = p->density;
    }
  return n;
}

gboolean
spx_sweep_measure_again (SpxSweep *sweep, const guint *blocks,
                         guint n_blocks, guint threads,
                         SpxSweepProgress progress, gpointer user_data,
                         GError **error)
{
  guint mask_block[SPX_SWEEP_MAX_VALUES * SPX_SWEEP_MAX_VALUES];
  double mask_density[G_N_ELEMENTS (mask_block)];
  guint n = masks_at (sweep, blocks, n_blocks, mask_block, mask_density);
  SpxSweepOptions o = sweep->settings;
  o.threads = threads;
  o.run_model = FALSE;
  g_autoptr (SpxSweep) scratch = spx_sweep_new ();
  if (!spx_sweep_reset (scratch, &o, error))
    return FALSE;
  SpxSweepOptions one = o; /* the points of one mask */
  one.n_blocks = one.n_densities = 1;
  Runner r = { scratch, progress, user_data, n * spx_sweep_total (&one),
               g_array_new (FALSE, FALSE, sizeof (CpuRecord)), FALSE, NULL };
  /* its own dense is the yardstick: fewer threads run slower */
  gboolean ok = calibrate (&r, error);
  for (guint i = 0; ok && i < n; i++)
    ok = run_cpu (&r, mask_block[i], mask_density[i], error);
  judge_again (&r);
  g_array_unref (r.cpu_records);
  replace_points (sweep, scratch);
  adopt_run (sweep, scratch);
  return ok;
}

gboolean
spx_sweep_point_judged (const SpxSweepPoint *p)
{
  return p->mode != SPX_SWEEP_DENSE && p->noise == SPX_NOISE_NONE &&
         p->fits && isfinite (p->speedup);
}

/* Writers */

void
spx_sweep_csv_field (GString *out, const char *raw)
{
  g_autofree char *text = spx_escape (raw);
  if (strpbrk (text, ",\"") == NULL)
    {
      g_string_append (out, text);
      return;
    }
  g_string_append_c (out, '"');
  for (const char *p = text; *p; p++)
    {
      if (*p == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
}

static void
csv_double (GString *out, double value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append_c (out, ',');
  if (isfinite (value))
    g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.6g", value));
}

void
spx_sweep_csv_row (GString *out, const SpxSweepPoint *p)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append_printf (out, "%s,%s,%u,%s,%" G_GUINT64_FORMAT ",%"
                          G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%s,",
                          spx_sweep_source_to_string (p->source),
                          spx_sweep_mode_to_string (p->mode), p->block,
                          g_ascii_formatd (buf, sizeof buf, "%.6g",
                                           p->density),
                          p->m, p->k, p->n, spx_dtype_to_string (p->dtype));
  spx_sweep_csv_field (out, p->machine);
  csv_double (out, p->ms);
  csv_double (out, p->nz_throughput);
  csv_double (out, p->speedup);
  csv_double (out, p->ms_q1);
  csv_double (out, p->ms_q3);
  g_string_append (out, p->noise ? ",1," : ",0,");
  spx_sweep_csv_field (out, p->dense);
  csv_double (out, p->speedup_q1);
  csv_double (out, p->speedup_q3);
  g_string_append_c (out, '\n');
}

char *
spx_sweep_to_csv (const SpxSweep *sweep)
{
  GString *out = g_string_new (SPX_SWEEP_CSV_HEADER "\n");
  for (guint i = 0; i < sweep->points->len; i++)
    spx_sweep_csv_row (out, &g_array_index (sweep->points, SpxSweepPoint, i));
  return g_string_free (out, FALSE);
}

/* The threads the CPU points ran on: theirs when they agree, else (none
 * yet, or some measured again on others) what the settings ask for,
 * 0 resolved to every core. */
static guint
points_threads (const SpxSweep *sweep)
{
  guint threads = 0;
  for (guint i = 0; i < sweep->points->len; i++)
    {
      const SpxSweepPoint *p = &g_array_index (sweep->points, SpxSweepPoint,
                                               i);
      if (p->source != SPX_SWEEP_CPU || p->threads == 0)
        continue;
      if (threads != 0 && p->threads != threads)
        {
          threads = 0;
          break;
        }
      threads = p->threads;
    }
  SpxEngineOptions engine = { .threads = sweep->settings.threads };
  return threads != 0 ? threads : spx_engine_threads (&engine);
}

static void
json_settings (SpxJson *json, const SpxSweepOptions *o, double best_dense,
               guint threads)
{
  spx_json_begin_object (json, "settings");
  spx_json_string (json, "op", spx_bench_op_name (o->op));
  spx_json_string (json, "dtype", spx_dtype_to_string (o->dtype));
  spx_json_begin_array (json, "sources");
  if (o->run_model)
    spx_json_string (json, NULL, "model");
  if (o->run_cpu)
    spx_json_string (json, NULL, "cpu");
  spx_json_end_array (json);
  /* a subject's sweep uses none: each point has its own block density */
  if (o->subject == NULL)
    {
      spx_json_begin_array (json, "densities");
      for (guint i = 0; i < o->n_densities; i++)
        spx_json_double (json, NULL, o->densities[i]);
      spx_json_end_array (json);
    }
  spx_json_begin_array (json, "blocks");
  for (guint i = 0; i < o->n_blocks; i++)
    spx_json_uint (json, NULL, o->blocks[i]);
  spx_json_end_array (json);
  spx_json_begin_array (json, "modes");
  for (SpxSweepMode m = SPX_SWEEP_DENSE; m < SPX_SWEEP_N_MODES; m++)
    if (want_mode (o, m) &&
        (m != SPX_SWEEP_TILEWISE || spx_sweep_runs_tilewise (o)))
      spx_json_string (json, NULL, spx_sweep_mode_to_string (m));
  spx_json_end_array (json);
  spx_json_uint (json, "seed", o->seed);
  if (o->subject == NULL)
    spx_json_string (json, "pattern", spx_pattern_to_string (o->pattern));
  if ((o->run_cpu && o->run_tilewise) || o->pattern == SPX_PATTERN_TILEWISE)
    spx_json_uint (json, "tile_width", o->tile_width);
  if (o->subject != NULL)
    {
      spx_json_begin_object (json, "subject");
      spx_json_string (json, "name", o->subject_name ? o->subject_name : "");
      spx_json_uint (json, "m", o->subject->rows);
      spx_json_uint (json, "k", o->subject->cols);
      spx_json_double (json, "density", (double) spx_mask_count (o->subject) /
                                          spx_mask_n_blocks (o->subject));
      spx_json_end_object (json);
    }
  if (o->run_model)
    {
      spx_json_begin_object (json, "model");
      spx_json_string (json, "machine", o->machine ? o->machine->name : "bow");
      spx_json_string (json, "dtype",
                       spx_dtype_to_string (spx_dtype_on_ipu (o->dtype)));
      spx_json_uint (json, "m", o->model_m);
      spx_json_uint (json, "k", o->model_k);
      if (o->model_n != 0)
        spx_json_uint (json, "n", o->model_n);
      else
        spx_json_string (json, "n", "best");
      spx_json_end_object (json);
    }
  if (o->run_cpu)
    {
      spx_json_begin_object (json, "cpu");
      spx_json_string (json, "dtype",
                       spx_cpu_type_name (spx_bench_cpu_type (o->dtype)));
      spx_json_uint (json, "m", o->cpu_m);
      spx_json_uint (json, "k", o->cpu_k);
      spx_json_uint (json, "n", o->cpu_n);
      spx_json_uint (json, "threads", threads);
      spx_json_uint (json, "reps", o->reps);
      spx_json_uint (json, "warmup", o->warmup);
      spx_json_begin_object (json, "dense");
      spx_json_string (json, "core", spx_dense_core ());
      spx_json_bool (json, "full_speed", spx_dense_better_coretype () == NULL);
      spx_json_double (json, "best_gflops", best_dense);
      spx_json_end_object (json);
      spx_json_end_object (json);
    }
  spx_json_end_object (json);
}

void
spx_sweep_point_to_json (SpxJson *json, const SpxSweepPoint *p)
{
  spx_json_begin_object (json, NULL);
  spx_json_string (json, "source", spx_sweep_source_to_string (p->source));
  spx_json_string (json, "mode", spx_sweep_mode_to_string (p->mode));
  spx_json_uint (json, "block", p->block);
  spx_json_double (json, "density", p->elements > 0 ? p->elements
                                                    : p->density);
  spx_json_double (json, "block_density", p->density);
  spx_json_uint (json, "m", p->m);
  spx_json_uint (json, "k", p->k);
  spx_json_uint (json, "n", p->n);
  spx_json_string (json, "dtype", spx_dtype_to_string (p->dtype));
  spx_json_string (json, "machine", p->machine);
  spx_json_double (json, "ms", p->ms);
  spx_json_double (json, "nz_throughput", p->nz_throughput);
  spx_json_double (json, "speedup", p->speedup);
  spx_json_bool (json, "fits", p->fits);
  spx_json_double (json, "ms_q1", p->ms_q1);
  spx_json_double (json, "ms_q3", p->ms_q3);
  spx_json_double (json, "speedup_q1", p->speedup_q1);
  spx_json_double (json, "speedup_q3", p->speedup_q3);
  spx_json_bool (json, "noisy", p->noise != SPX_NOISE_NONE);
  g_autofree char *noise = spx_noise_to_string (p->noise);
  spx_json_string (json, "noise", noise);
  if (p->source == SPX_SWEEP_CPU)
    spx_json_string (json, "dense", p->dense);
  if (p->source == SPX_SWEEP_CPU && p->threads > 0)
    spx_json_uint (json, "threads", p->threads);
  spx_json_end_object (json);
}

/* A sweep's members: its settings, the units and its points. */
static void
json_body (SpxJson *json, const SpxSweep *sweep)
{
  json_settings (json, &sweep->settings, sweep->best_dense_gflops,
                 points_threads (sweep));
  spx_json_begin_object (json, "units");
  spx_json_string (json, "ms", "milliseconds per product");
  spx_json_string (json, "nz_throughput_model", "TFLOP/s");
  spx_json_string (json, "nz_throughput_cpu", "GFLOP/s");
  spx_json_end_object (json);
  spx_json_begin_array (json, "points");
  for (guint i = 0; i < sweep->points->len; i++)
    spx_sweep_point_to_json (json, &g_array_index (sweep->points,
                                                   SpxSweepPoint, i));
  spx_json_end_array (json);
}

char *
spx_sweep_to_json (const SpxSweep *sweep)
{
  SpxJson json;
  spx_json_init (&json);
  spx_json_begin_object (&json, NULL);
  json_body (&json, sweep);
  spx_json_end_object (&json);
  return spx_json_finish_line (&json);
}

static const char *const pair_roles[] = { "current", "overlay" };

char *
spx_sweep_pair_to_csv (const SpxSweepPair *pair)
{
  GString *out = g_string_new ("sweep," SPX_SWEEP_CSV_HEADER "\n");
  const SpxSweep *sweeps[] = { pair->current, pair->overlay };
  for (guint s = 0; s < G_N_ELEMENTS (sweeps); s++)
    for (guint i = 0; i < sweeps[s]->points->len; i++)
      {
        g_string_append_printf (out, "%s,", pair_roles[s]);
        spx_sweep_csv_row (out, &g_array_index (sweeps[s]->points,
                                                SpxSweepPoint, i));
      }
  return g_string_free (out, FALSE);
}

char *
spx_sweep_pair_to_json (const SpxSweepPair *pair)
{
  const SpxSweep *sweeps[] = { pair->current, pair->overlay };
  SpxJson json;
  spx_json_init (&json);
  spx_json_begin_object (&json, NULL);
  spx_json_begin_array (&json, "sweeps");
  for (guint s = 0; s < G_N_ELEMENTS (sweeps); s++)
    {
      g_autofree char *label = spx_sweep_label (sweeps[s]);
      spx_json_begin_object (&json, NULL);
      spx_json_string (&json, "sweep", pair_roles[s]);
      spx_json_string (&json, "label", label);
      json_body (&json, sweeps[s]);
      spx_json_end_object (&json);
    }
  spx_json_end_array (&json);
  spx_json_end_object (&json);
  return spx_json_finish_line (&json);
}

gboolean
spx_sweep_save_as (const char *path, SpxSweepText to_csv,
                   SpxSweepText to_json, gconstpointer data,
                   SpxSaveFlags flags, GError **error)
{
  g_autofree char *text = NULL;
  if (spx_has_suffix (path, ".csv"))
    text = to_csv (data);
  else if (spx_has_suffix (path, ".json"))
    text = to_json (data);
  else
    {
      g_set_error (error, SPX_SWEEP_ERROR, SPX_SWEEP_ERROR_INVALID,
                   "%s: expected a file name ending in .csv or .json", path);
      return FALSE;
    }
  return spx_save_file (path, text, strlen (text), flags, error);
}

gboolean
spx_sweep_save_pair (const SpxSweep *sweep, const SpxSweep *overlay,
                     const char *path, SpxSaveFlags flags, GError **error)
{
  if (overlay == NULL)
    return spx_sweep_save (sweep, path, flags, error);
  SpxSweepPair pair = { sweep, overlay };
  return spx_sweep_save_as (path, (SpxSweepText) spx_sweep_pair_to_csv,
                            (SpxSweepText) spx_sweep_pair_to_json, &pair,
                            flags, error);
}

gboolean
spx_sweep_save (const SpxSweep *sweep, const char *path, SpxSaveFlags flags,
                GError **error)
{
  return spx_sweep_save_as (path, (SpxSweepText) spx_sweep_to_csv,
                            (SpxSweepText) spx_sweep_to_json, sweep, flags,
                            error);
}
