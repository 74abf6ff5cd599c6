/* spx-sweep-write.c: a sweep written as CSV and JSON, alone or beside
 * its overlay (spx-sweep-file.c reads the JSON back) */
#include "spx-sweep.h"
#include "spx-sweep-private.h"
#include "spx-bench.h"
#include "spx-engine-private.h"
#include "spx-json.h"
#include "spx-util.h"

#include <math.h>
#include <string.h>

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
    if (_spx_sweep_want_mode (o, m) &&
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
  if (p->kernel[0] != '\0')
    {
      spx_json_string (json, "kernel", p->kernel);
      spx_json_string (json, "kernel_choice",
                       spx_kernel_choice_to_string (p->kernel_choice));
    }
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
