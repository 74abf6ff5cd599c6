/* spx-sweep.c: densities × block sizes × modes, modelled and measured,
 * one point at a time so that a chart can follow along */
#include "spx-sweep.h"
#include "spx-bench.h"
#include "spx-json.h"
#include "spx-mask-gen.h"
#include "spx-util.h"

#include <math.h>
#include <string.h>

G_DEFINE_QUARK (spx-sweep-error-quark, spx_sweep_error)

#define CSV_HEADER "source,mode,block,density,m,k,n,dtype,machine,ms," \
                   "nz_throughput,speedup"

void
spx_sweep_options_init (SpxSweepOptions *o)
{
  static const double densities[] = { 1 / 4.0, 1 / 8.0, 1 / 16.0, 1 / 32.0 };
  static const guint blocks[] = { 1, 4, 8, 16 };
  memset (o, 0, sizeof *o);
  o->run_model = o->run_cpu = TRUE;
  memcpy (o->densities, densities, sizeof densities);
  o->n_densities = G_N_ELEMENTS (densities);
  memcpy (o->blocks, blocks, sizeof blocks);
  o->n_blocks = G_N_ELEMENTS (blocks);
  o->run_static = o->run_dynamic = TRUE;
  o->seed = 1;
  o->model_m = o->model_k = 4096;
  o->dtype = SPX_DTYPE_FP16;
  o->cpu_m = o->cpu_k = 2048;
  o->cpu_n = 256;
  o->reps = 7;
  o->warmup = 2;
}

static gboolean
invalid (GError **error, const char *what)
{
  g_set_error (error, SPX_SWEEP_ERROR, SPX_SWEEP_ERROR_INVALID,
               "sweep: %s", what);
  return FALSE;
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
    return invalid (error, "no source: expected the model, the CPU or both");
  if (o->n_densities < 1 || o->n_densities > SPX_SWEEP_MAX_VALUES ||
      o->n_blocks < 1 || o->n_blocks > SPX_SWEEP_MAX_VALUES)
    return invalid (error, "expected 1 to 32 densities and block sizes");
  for (guint i = 0; i < o->n_densities; i++)
    if (!(o->densities[i] > 0 && o->densities[i] <= 1))
      return invalid (error, "densities must be above 0 and at most 1");
  for (guint i = 0; i < o->n_blocks; i++)
    if (o->blocks[i] < 1 || o->blocks[i] > SPX_MASK_MAX_BLOCK)
      return invalid (error, "block sizes must be from 1 to 4096");
  if (o->run_model && !dims_ok (o->model_m, o->model_k))
    return invalid (error, "bad model m or k");
  if (o->run_cpu && (!dims_ok (o->cpu_m, o->cpu_k) || o->cpu_n < 1 ||
                     o->reps < 1))
    return invalid (error, "bad CPU m, k, n or reps");
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
  g_free (sweep);
}

guint
spx_sweep_total (const SpxSweepOptions *o)
{
  guint per_mask = 1 + (o->run_static != 0) + (o->run_dynamic != 0);
  guint sources = (o->run_model != 0) + (o->run_cpu != 0);
  return sources * o->n_blocks * o->n_densities * per_mask;
}

const char *
spx_sweep_source_to_string (SpxSweepSource source)
{
  return source == SPX_SWEEP_CPU ? "cpu" : "model";
}

/* One run in progress. */
typedef struct {
  SpxSweep        *sweep;
  SpxSweepProgress progress;
  gpointer         user_data;
  guint            total;
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
               "sweep: cancelled after %u of %u points", points->len,
               r->total);
  return FALSE;
}

static gboolean
want_mode (const SpxSweepOptions *o, SpxIpuMode mode)
{
  return mode == SPX_IPU_MODE_DENSE ||
         (mode == SPX_IPU_MODE_STATIC && o->run_static) ||
         (mode == SPX_IPU_MODE_DYNAMIC && o->run_dynamic);
}

static SpxMask *
uniform_mask (guint64 m, guint64 k, guint block, double density,
              guint64 seed, GError **error)
{
  SpxGenOptions gen;
  spx_gen_options_init (&gen);
  gen.pattern = SPX_PATTERN_UNIFORM;
  gen.density = density;
  gen.seed = seed;
  return spx_mask_generate (m, k, block, &gen, error);
}

/* The model: dense first (each mode at its best n when asked), then the
 * sparse modes, their speedup a ratio of non-zero throughputs. */
static gboolean
run_model (Runner *r, guint block, double density, GError **error)
{
  const SpxSweepOptions *o = &r->sweep->settings;
  g_autoptr (SpxMask) mask = uniform_mask (o->model_m, o->model_k, block,
                                           density, o->seed, error);
  if (mask == NULL)
    return FALSE;
  double dense_nz = 0;
  for (SpxIpuMode mode = SPX_IPU_MODE_DENSE; mode <= SPX_IPU_MODE_DYNAMIC;
       mode++)
    {
      if (!want_mode (o, mode))
        continue;
      g_autoptr (SpxIpuProgram) p =
        o->model_n != 0
          ? spx_ipu_plan (o->machine, mode, mask, o->model_n, o->dtype, error)
          : spx_ipu_plan_best_n (o->machine, mode, mask, 65536, o->dtype,
                                 error);
      if (p == NULL)
        return FALSE;
      if (mode == SPX_IPU_MODE_DENSE)
        dense_nz = p->nz_tflops;
      SpxSweepPoint pt = {
        .source = SPX_SWEEP_MODEL, .mode = mode, .block = block,
        .density = density, .m = p->m, .k = p->k, .n = p->n,
        .dtype = o->dtype, .ms = p->ms, .nz_throughput = p->nz_tflops,
        .speedup = dense_nz > 0 ? p->nz_tflops / dense_nz : NAN,
        .fits = p->fits,
      };
      g_strlcpy (pt.machine, o->machine->name, sizeof pt.machine);
      if (!append (r, &pt, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
run_cpu (Runner *r, guint block, double density, GError **error)
{
  const SpxSweepOptions *o = &r->sweep->settings;
  g_autoptr (SpxMask) mask = uniform_mask (o->cpu_m, o->cpu_k, block,
                                           density, o->seed, error);
  SpxBenchOptions bo;
  spx_bench_options_init (&bo);
  if (mask == NULL || !spx_engine_options_init (&bo.engine, error))
    return FALSE;
  bo.engine.threads = o->threads;
  bo.reps = o->reps;
  bo.warmup = o->warmup;
  bo.run_static = o->run_static;
  bo.run_dynamic = o->run_dynamic;
  bo.seed = o->seed;
  SpxBenchResult res;
  if (!spx_bench_run (mask, o->cpu_n, &bo, &res, error))
    return FALSE;
  /* dense on the non-zero scale: what its time buys of the sparse work */
  const SpxBenchTiming dense = { .ran = TRUE, .ms = res.dense.ms,
                                 .gflops = res.dense.gflops * res.density,
                                 .speedup = 1 };
  const SpxBenchTiming *timings[] = { &dense, &res.stat, &res.dyn };
  for (SpxIpuMode mode = SPX_IPU_MODE_DENSE; mode <= SPX_IPU_MODE_DYNAMIC;
       mode++)
    {
      const SpxBenchTiming *t = timings[mode];
      if (!want_mode (o, mode) || !t->ran)
        continue;
      SpxSweepPoint pt = {
        .source = SPX_SWEEP_CPU, .mode = mode, .block = block,
        .density = density, .m = res.m, .k = res.k, .n = res.n,
        .dtype = SPX_DTYPE_FP32, .ms = t->ms, .nz_throughput = t->gflops,
        .speedup = t->speedup, .fits = TRUE,
      };
      g_snprintf (pt.machine, sizeof pt.machine, "cpu-%s-%ut",
                  spx_isa_to_string (res.isa), res.threads);
      if (!append (r, &pt, error))
        return FALSE;
    }
  return TRUE;
}

/* Keep a copy of the options (the machine resolved and owned). */
static gboolean
take_settings (SpxSweep *sweep, const SpxSweepOptions *options,
               GError **error)
{
  spx_ipu_machine_free (sweep->settings.machine);
  sweep->settings = *options;
  sweep->settings.machine = options->machine
                              ? spx_ipu_machine_copy (options->machine)
                              : spx_ipu_machine_preset ("bow");
  return spx_sweep_options_validate (options, error);
}

gboolean
spx_sweep_run (SpxSweep *sweep, const SpxSweepOptions *options,
               SpxSweepProgress progress, gpointer user_data, GError **error)
{
  g_return_val_if_fail (sweep != NULL && options != NULL, FALSE);
  g_array_set_size (sweep->points, 0);
  if (!take_settings (sweep, options, error))
    return FALSE;
  Runner r = { sweep, progress, user_data, spx_sweep_total (options) };
  const SpxSweepOptions *o = &sweep->settings;
  /* The model first: it is quick, so the chart fills in early. */
  for (guint s = 0; s < 2; s++)
    {
      gboolean cpu = s == 1;
      if (cpu ? !o->run_cpu : !o->run_model)
        continue;
      for (guint b = 0; b < o->n_blocks; b++)
        for (guint d = 0; d < o->n_densities; d++)
          if (!(cpu ? run_cpu : run_model) (&r, o->blocks[b],
                                             o->densities[d], error))
            return FALSE;
    }
  return TRUE;
}

/* Writers */

static void
csv_field (GString *out, const char *text)
{
  if (strpbrk (text, ",\"\r\n") == NULL)
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

char *
spx_sweep_to_csv (const SpxSweep *sweep)
{
  GString *out = g_string_new (CSV_HEADER "\n");
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  for (guint i = 0; i < sweep->points->len; i++)
    {
      const SpxSweepPoint *p = &g_array_index (sweep->points, SpxSweepPoint,
                                               i);
      g_string_append_printf (out, "%s,%s,%u,%s,%" G_GUINT64_FORMAT ",%"
                              G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%s,",
                              spx_sweep_source_to_string (p->source),
                              spx_ipu_mode_to_string (p->mode), p->block,
                              g_ascii_formatd (buf, sizeof buf, "%.6g",
                                               p->density),
                              p->m, p->k, p->n, spx_dtype_to_string (p->dtype));
      csv_field (out, p->machine);
      csv_double (out, p->ms);
      csv_double (out, p->nz_throughput);
      csv_double (out, p->speedup);
      g_string_append_c (out, '\n');
    }
  return g_string_free (out, FALSE);
}

static void
json_settings (SpxJson *json, const SpxSweepOptions *o)
{
  spx_json_begin_object (json, "settings");
  spx_json_begin_array (json, "sources");
  if (o->run_model)
    spx_json_string (json, NULL, "model");
  if (o->run_cpu)
    spx_json_string (json, NULL, "cpu");
  spx_json_end_array (json);
  spx_json_begin_array (json, "densities");
  for (guint i = 0; i < o->n_densities; i++)
    spx_json_double (json, NULL, o->densities[i]);
  spx_json_end_array (json);
  spx_json_begin_array (json, "blocks");
  for (guint i = 0; i < o->n_blocks; i++)
    spx_json_uint (json, NULL, o->blocks[i]);
  spx_json_end_array (json);
  spx_json_begin_array (json, "modes");
  spx_json_string (json, NULL, "dense");
  if (o->run_static)
    spx_json_string (json, NULL, "static");
  if (o->run_dynamic)
    spx_json_string (json, NULL, "dynamic");
  spx_json_end_array (json);
  spx_json_uint (json, "seed", o->seed);
  if (o->run_model)
    {
      spx_json_begin_object (json, "model");
      spx_json_string (json, "machine", o->machine ? o->machine->name : "bow");
      spx_json_string (json, "dtype", spx_dtype_to_string (o->dtype));
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
      spx_json_uint (json, "m", o->cpu_m);
      spx_json_uint (json, "k", o->cpu_k);
      spx_json_uint (json, "n", o->cpu_n);
      spx_json_uint (json, "threads", o->threads);
      spx_json_uint (json, "reps", o->reps);
      spx_json_uint (json, "warmup", o->warmup);
      spx_json_end_object (json);
    }
  spx_json_end_object (json);
}

static void
json_point (SpxJson *json, const SpxSweepPoint *p)
{
  spx_json_begin_object (json, NULL);
  spx_json_string (json, "source", spx_sweep_source_to_string (p->source));
  spx_json_string (json, "mode", spx_ipu_mode_to_string (p->mode));
  spx_json_uint (json, "block", p->block);
  spx_json_double (json, "density", p->density);
  spx_json_uint (json, "m", p->m);
  spx_json_uint (json, "k", p->k);
  spx_json_uint (json, "n", p->n);
  spx_json_string (json, "dtype", spx_dtype_to_string (p->dtype));
  spx_json_string (json, "machine", p->machine);
  spx_json_double (json, "ms", p->ms);
  spx_json_double (json, "nz_throughput", p->nz_throughput);
  spx_json_double (json, "speedup", p->speedup);
  spx_json_bool (json, "fits", p->fits);
  spx_json_end_object (json);
}

char *
spx_sweep_to_json (const SpxSweep *sweep)
{
  SpxJson json;
  spx_json_init (&json);
  spx_json_begin_object (&json, NULL);
  json_settings (&json, &sweep->settings);
  spx_json_begin_object (&json, "units");
  spx_json_string (&json, "ms", "milliseconds per product");
  spx_json_string (&json, "nz_throughput_model", "TFLOP/s");
  spx_json_string (&json, "nz_throughput_cpu", "GFLOP/s");
  spx_json_end_object (&json);
  spx_json_begin_array (&json, "points");
  for (guint i = 0; i < sweep->points->len; i++)
    json_point (&json, &g_array_index (sweep->points, SpxSweepPoint, i));
  spx_json_end_array (&json);
  spx_json_end_object (&json);
  char *text = spx_json_finish (&json);
  char *line = g_strconcat (text, "\n", NULL);
  g_free (text);
  return line;
}

gboolean
spx_sweep_save (const SpxSweep *sweep, const char *path, GError **error)
{
  g_autofree char *lower = g_ascii_strdown (path, -1);
  g_autofree char *text = NULL;
  if (g_str_has_suffix (lower, ".csv"))
    text = spx_sweep_to_csv (sweep);
  else if (g_str_has_suffix (lower, ".json"))
    text = spx_sweep_to_json (sweep);
  else
    {
      g_set_error (error, SPX_SWEEP_ERROR, SPX_SWEEP_ERROR_INVALID,
                   "%s: expected a file name ending in .csv or .json", path);
      return FALSE;
    }
  return spx_write_file_atomic (path, text, strlen (text), error);
}

void
spx_sweep_options_for_scenario (SpxSweepOptions *o, const SpxScenario *sc,
                                SpxIpuMachine *machine)
{
  spx_sweep_options_init (o);
  o->model_m = sc->m;
  o->model_k = sc->k;
  o->model_n = sc->n;
  o->dtype = sc->dtype;
  o->machine = machine;
  o->cpu_m = MIN (sc->m, 2048);
  o->cpu_k = MIN (sc->k, 2048);
  o->threads = sc->threads;
}
