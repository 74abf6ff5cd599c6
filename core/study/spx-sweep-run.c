/* spx-sweep-run.c: a sweep run, densities × block sizes × modes,
 * modelled and measured, one point at a time so that a chart can follow
 * along; and its CPU points measured again */
#include "spx-sweep.h"
#include "spx-sweep-private.h"
#include "spx-sweep-dense.h"
#include "spx-bench.h"
#include "spx-mask-gen.h"
#include "spx-util.h"

#include <math.h>
#include <string.h>

/* Dense's speed is measured once before the points: the first points are
 * judged against it too. */
#define CALIBRATION_REPS 3

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
      if (!_spx_sweep_want_mode (o, (SpxSweepMode) mode))
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
      if (!_spx_sweep_want_mode (o, mode) || !t->ran)
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
      const char *kernel = mode == SPX_SWEEP_STATIC ? res->stat_kernel
                           : mode == SPX_SWEEP_DYNAMIC ? res->dyn_kernel : "";
      g_strlcpy (pt.kernel, kernel, sizeof pt.kernel);
      pt.kernel_choice = res->choice;
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
