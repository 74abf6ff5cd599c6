/* test-sweep.c: sweeps (core/study/spx-sweep) and the speedup chart
 * (ui/render/spx-render-speedup) */
#include "spx-render-export.h"
#include "spx-render-speedup.h"
#include "spx-sweep.h"
#include "spx-util.h"
#include "test-image.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

/* A quick model sweep: bow, 256 × 256, two blocks, two densities. */
static void
small_model_options (SpxSweepOptions *o)
{
  spx_sweep_options_init (o);
  o->run_cpu = FALSE;
  o->model_m = o->model_k = 256;
  o->model_n = 64;
  o->n_densities = 2;
  o->densities[0] = 1 / 4.0;
  o->densities[1] = 1 / 8.0;
  o->n_blocks = 2;
  o->blocks[0] = 4;
  o->blocks[1] = 16;
}

static SpxSweep *
run_small_model (void)
{
  SpxSweepOptions o;
  small_model_options (&o);
  g_autoptr (GError) error = NULL;
  SpxSweep *sweep = spx_sweep_new ();
  g_assert_true (spx_sweep_run (sweep, &o, NULL, NULL, &error));
  g_assert_no_error (error);
  return sweep;
}

static const SpxSweepPoint *
point (const SpxSweep *sweep, guint i)
{
  return &g_array_index (sweep->points, SpxSweepPoint, i);
}

static void
test_model_points (void)
{
  g_autoptr (SpxSweep) sweep = run_small_model ();
  g_assert_cmpuint (sweep->points->len, ==, 2 * 2 * 3);
  g_assert_cmpuint (sweep->points->len, ==, spx_sweep_total (&sweep->settings));
  guint i = 0;
  for (guint b = 0; b < 2; b++)
    for (guint d = 0; d < 2; d++)
      for (SpxSweepMode mode = SPX_SWEEP_DENSE; mode <= SPX_SWEEP_DYNAMIC;
           mode++, i++)
        {
          const SpxSweepPoint *p = point (sweep, i);
          g_assert_cmpint (p->source, ==, SPX_SWEEP_MODEL);
          g_assert_cmpint (p->mode, ==, mode);
          g_assert_cmpuint (p->block, ==, sweep->settings.blocks[b]);
          g_assert_cmpfloat (p->density, ==, sweep->settings.densities[d]);
          g_assert_cmpuint (p->m, ==, 256);
          g_assert_cmpuint (p->k, ==, 256);
          g_assert_cmpuint (p->n, ==, 64);
          g_assert_cmpint (p->dtype, ==, SPX_DTYPE_FP16);
          g_assert_cmpstr (p->machine, ==, "bow");
          g_assert_cmpfloat (p->ms, >, 0);
          g_assert_cmpfloat (p->nz_throughput, >, 0);
          g_assert_cmpfloat (p->speedup, >, 0);
          g_assert_true (p->fits);
          if (mode == SPX_SWEEP_DENSE)
            g_assert_cmpfloat (p->speedup, ==, 1);
          /* speedup is against dense of the same block and density */
          const SpxSweepPoint *dense = point (sweep, i - mode);
          g_assert_cmpfloat_with_epsilon (p->speedup,
                                          p->nz_throughput /
                                            dense->nz_throughput, 1e-12);
        }
}

static void
test_best_n_and_modes (void)
{
  SpxSweepOptions o;
  small_model_options (&o);
  o.model_n = 0;
  o.run_dynamic = FALSE;
  o.n_blocks = 1;
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxSweep) sweep = spx_sweep_new ();
  g_assert_true (spx_sweep_run (sweep, &o, NULL, NULL, &error));
  g_assert_cmpuint (sweep->points->len, ==, 2 * 2);
  for (guint i = 0; i < sweep->points->len; i++)
    {
      g_assert_cmpint (point (sweep, i)->mode, !=, SPX_SWEEP_DYNAMIC);
      g_assert_cmpuint (point (sweep, i)->n, >=, 1); /* the n it chose */
    }
}

static void
test_cpu_points (void)
{
  SpxSweepOptions o;
  spx_sweep_options_init (&o);
  o.run_model = FALSE;
  o.dtype = SPX_DTYPE_FP32; /* tile-wise runs fp32 only */
  o.cpu_m = o.cpu_k = 128;
  o.cpu_n = 16;
  o.reps = 5;
  o.warmup = 0;
  o.n_blocks = 1;
  o.blocks[0] = 4;
  o.n_densities = 1;
  o.densities[0] = 1 / 4.0;
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxSweep) sweep = spx_sweep_new ();
  g_assert_true (spx_sweep_run (sweep, &o, NULL, NULL, &error));
  g_assert_no_error (error);
  /* dense, static, dynamic and tile-wise */
  g_assert_cmpuint (sweep->points->len, ==, SPX_SWEEP_N_MODES);
  for (guint i = 0; i < SPX_SWEEP_N_MODES; i++)
    {
      const SpxSweepPoint *p = point (sweep, i);
      g_assert_cmpint (p->source, ==, SPX_SWEEP_CPU);
      g_assert_cmpint (p->mode, ==, i);
      g_assert_cmpint (p->dtype, ==, SPX_DTYPE_FP32);
      g_assert_true (g_str_has_prefix (p->machine, "cpu-"));
      g_assert_cmpfloat (p->ms, >, 0);
      g_assert_cmpfloat (p->speedup, >, 0);
    }
  g_assert_cmpfloat (point (sweep, 0)->speedup, ==, 1);
  /* a median of per-round ratios, between their quartiles (the median
   * of ratios itself is checked on known timings in alternating-ratios) */
  for (guint i = 1; i < SPX_SWEEP_N_MODES; i++)
    {
      const SpxSweepPoint *p = point (sweep, i);
      g_assert_cmpfloat (p->speedup_q1, >, 0);
      g_assert_cmpfloat (p->speedup_q1, <=, p->speedup);
      g_assert_cmpfloat (p->speedup, <=, p->speedup_q3);
    }
}

/* Tile-wise is the CPU's: after dense, static and dynamic of each CPU
 * mask, never on the model's; it names itself in the files. */
static void
test_cpu_tilewise (void)
{
  SpxSweepOptions o;
  small_model_options (&o);
  o.run_cpu = TRUE;
  o.run_dynamic = FALSE;
  o.dtype = SPX_DTYPE_FP32; /* tile-wise runs fp32 only */
  o.pattern = SPX_PATTERN_TILEWISE;
  o.tile_width = 32;
  o.cpu_m = o.cpu_k = 128;
  o.cpu_n = 16;
  o.reps = 5;
  o.warmup = 0;
  o.n_densities = 1;
  g_assert_cmpuint (spx_sweep_total (&o), ==, 2 * (2 + 3));
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxSweep) sweep = spx_sweep_new ();
  g_assert_true (spx_sweep_run (sweep, &o, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (sweep->points->len, ==, spx_sweep_total (&o));
  static const SpxSweepMode model[] = { SPX_SWEEP_DENSE, SPX_SWEEP_STATIC };
  static const SpxSweepMode cpu[] = { SPX_SWEEP_DENSE, SPX_SWEEP_STATIC,
                                      SPX_SWEEP_TILEWISE };
  for (guint i = 0; i < sweep->points->len; i++)
    {
      const SpxSweepPoint *p = point (sweep, i);
      gboolean on_cpu = i >= 4;
      guint j = on_cpu ? (i - 4) % 3 : i % 2;
      g_assert_cmpint (p->source, ==, on_cpu ? SPX_SWEEP_CPU
                                             : SPX_SWEEP_MODEL);
      g_assert_cmpint (p->mode, ==, on_cpu ? cpu[j] : model[j]);
      const SpxSweepPoint *dense = point (sweep, i - j);
      g_assert_cmpint (dense->mode, ==, SPX_SWEEP_DENSE);
      if (on_cpu && p != dense)
        g_assert_true (p->speedup_q1 <= p->speedup &&
                       p->speedup <= p->speedup_q3);
    }
  g_autofree char *csv = spx_sweep_to_csv (sweep);
  g_assert_nonnull (strstr (csv, "\ncpu,tilewise,4,0.25,128,128,16,fp32,"));
  /* each CPU row names the dense its speedup is over; model rows none */
  g_auto (GStrv) rows = g_strsplit (csv, "\n", -1);
  for (guint i = 1; rows[i] != NULL && rows[i][0] != '\0'; i++)
    g_assert_true (g_str_has_prefix (rows[i], "cpu,")
                   ? strstr (rows[i], ",OpenBLAS,") != NULL ||
                     strstr (rows[i], ",oneDNN,") != NULL
                   : strstr (rows[i], ",0,,") != NULL);
  /* and the chart's hover text says which */
  SpxRenderSpeedupData chart = { .sweep = sweep };
  for (guint i = 0; i < sweep->points->len; i++)
    if (point (sweep, i)->source == SPX_SWEEP_CPU)
      {
        g_autofree char *text = spx_render_speedup_describe (&chart, i);
        g_autofree char *over = g_strdup_printf ("over dense (%s)",
                                                 point (sweep, i)->dense);
        g_assert_nonnull (strstr (text, over));
      }
  g_autofree char *json = spx_sweep_to_json (sweep);
  g_assert_nonnull (strstr (json, "\"modes\": [\"dense\", \"static\", "
                                  "\"tilewise\"]"));
  g_assert_nonnull (strstr (json, "\"pattern\": \"tilewise\", "
                                  "\"tile_width\": 32"));
  /* SDDMM has none; nor do the other patterns generate sweeps */
  spx_sweep_options_set_op (&o, SPX_BENCH_OP_SDDMM);
  g_assert_false (o.run_tilewise);
  o.run_tilewise = TRUE;
  g_assert_false (spx_sweep_options_validate (&o, &error));
  g_assert_error (error, SPX_SWEEP_ERROR, SPX_SWEEP_ERROR_INVALID);
  g_clear_error (&error);
  spx_sweep_options_init (&o);
  o.pattern = SPX_PATTERN_NM;
  g_assert_false (spx_sweep_options_validate (&o, &error));
  g_assert_error (error, SPX_SWEEP_ERROR, SPX_SWEEP_ERROR_INVALID);
  g_clear_error (&error);
  o.pattern = SPX_PATTERN_TILEWISE;
  o.tile_width = 0;
  g_assert_false (spx_sweep_options_validate (&o, &error));
  g_assert_error (error, SPX_SWEEP_ERROR, SPX_SWEEP_ERROR_INVALID);
}

static void
test_mode_names (void)
{
  for (SpxSweepMode m = SPX_SWEEP_DENSE; m < SPX_SWEEP_N_MODES; m++)
    {
      SpxSweepMode back = SPX_SWEEP_N_MODES;
      g_assert_true (spx_sweep_mode_from_string (
        spx_sweep_mode_to_string (m), &back));
      g_assert_cmpint (back, ==, m);
      if (m < SPX_IPU_N_MODES) /* the IPU's spelling of its own modes */
        g_assert_cmpstr (spx_sweep_mode_to_string (m), ==,
                         spx_ipu_mode_to_string ((SpxIpuMode) m));
    }
  SpxSweepMode m;
  g_assert_false (spx_sweep_mode_from_string ("tile-wise", &m));
  g_assert_cmpstr (spx_sweep_mode_to_string (SPX_SWEEP_N_MODES), ==,
                   "unknown");
}

static void
test_invalid (void)
{
  SpxSweepOptions o;
  g_autoptr (SpxSweep) sweep = spx_sweep_new ();
  spx_sweep_options_init (&o);
  o.run_model = o.run_cpu = FALSE;
  GError *error = NULL;
  g_assert_false (spx_sweep_run (sweep, &o, NULL, NULL, &error));
  g_assert_error (error, SPX_SWEEP_ERROR, SPX_SWEEP_ERROR_INVALID);
  g_clear_error (&error);
  spx_sweep_options_init (&o);
  o.densities[1] = 0;
  g_assert_false (spx_sweep_options_validate (&o, &error));
  g_assert_error (error, SPX_SWEEP_ERROR, SPX_SWEEP_ERROR_INVALID);
  g_clear_error (&error);
}

/* What a sweep cannot run without is refused before its first point,
 * leaving the sweep as it was: the CPU's operands (here 64 GiB), or the
 * largest mask of its points, whichever block comes first. */
static void
test_refused_first (void)
{
  g_autoptr (SpxSweep) sweep = run_small_model ();
  SpxSweepOptions o;
  small_model_options (&o);
  o.run_cpu = TRUE;
  o.cpu_m = o.cpu_k = 131072;
  g_autoptr (GError) error = NULL;
  g_assert_false (spx_sweep_run (sweep, &o, NULL, NULL, &error));
  g_assert_error (error, SPX_BUDGET_ERROR, SPX_BUDGET_ERROR_TOO_LARGE);
  g_assert_nonnull (strstr (error->message, "the operands (dense A "
                                            "131072×131072"));
  g_clear_error (&error);
  g_assert_cmpuint (sweep->points->len, ==, 12);
  g_assert_cmpuint (sweep->settings.model_m, ==, 256);

  g_setenv (SPX_MEMORY_BUDGET_ENV, "64M", TRUE);
  small_model_options (&o);
  o.model_m = o.model_k = 32768; /* 128 MiB at block 1 */
  o.blocks[0] = 16;
  o.blocks[1] = 1;
  g_assert_false (spx_sweep_run (sweep, &o, NULL, NULL, &error));
  g_unsetenv (SPX_MEMORY_BUDGET_ENV);
  g_assert_error (error, SPX_BUDGET_ERROR, SPX_BUDGET_ERROR_TOO_LARGE);
  g_assert_nonnull (strstr (error->message, "32768×32768 elements at "
                                            "block 1"));
  g_assert_cmpuint (sweep->points->len, ==, 12);
}

/* A subject is swept at its own block as it is, not copied: here within
 * a budget smaller than the subject itself. */
static void
test_subject_not_copied (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxMask) subject = spx_mask_new (8192, 8192, 1, &error);
  g_assert_no_error (error);
  for (guint64 i = 0; i < 8192; i += 7)
    spx_mask_set (subject, i, (i * 13) % 8192);
  SpxSweepOptions o;
  spx_sweep_options_init (&o);
  spx_sweep_options_set_subject (&o, subject, "diagonal");
  o.run_cpu = FALSE;
  o.model_n = 16;
  o.n_blocks = 1;
  o.blocks[0] = 1;
  g_autoptr (SpxSweep) sweep = spx_sweep_new ();
  g_setenv (SPX_MEMORY_BUDGET_ENV, "6M", TRUE); /* the subject is 8 MiB */
  gboolean ok = spx_sweep_run (sweep, &o, NULL, NULL, &error);
  g_unsetenv (SPX_MEMORY_BUDGET_ENV);
  g_assert_no_error (error);
  g_assert_true (ok);
  g_assert_cmpuint (sweep->points->len, ==, 3);
  g_assert_cmpfloat (point (sweep, 1)->density, ==, 1171.0 / (8192.0 * 8192));
}

static gboolean
stop_after_two (guint done, guint total, const SpxSweepPoint *p,
                gpointer user_data)
{
  guint *calls = user_data;
  g_assert_cmpuint (done, ==, ++*calls);
  g_assert_cmpuint (total, ==, 12);
  g_assert_nonnull (p);
  return done < 2;
}

static void
test_cancel (void)
{
  SpxSweepOptions o;
  small_model_options (&o);
  g_autoptr (SpxSweep) sweep = spx_sweep_new ();
  g_autoptr (GError) error = NULL;
  guint calls = 0;
  g_assert_false (spx_sweep_run (sweep, &o, stop_after_two, &calls, &error));
  g_assert_error (error, SPX_SWEEP_ERROR, SPX_SWEEP_ERROR_CANCELLED);
  g_assert_cmpuint (calls, ==, 2);
  g_assert_cmpuint (sweep->points->len, ==, 2);
}

static void
test_csv (void)
{
  g_autoptr (SpxSweep) sweep = run_small_model ();
  g_autofree char *csv = spx_sweep_to_csv (sweep);
  g_auto (GStrv) lines = g_strsplit (csv, "\n", -1);
  g_assert_cmpstr (lines[0], ==, "source,mode,block,density,m,k,n,dtype,"
                                 "machine,ms,nz_throughput,speedup,ms_q1,"
                                 "ms_q3,noisy,dense,speedup_q1,"
                                 "speedup_q3");
  g_assert_cmpuint (g_strv_length (lines), ==, sweep->points->len + 2);
  g_assert_cmpstr (lines[sweep->points->len + 1], ==, ""); /* ends in \n */
  for (guint i = 0; i < sweep->points->len; i++)
    {
      const SpxSweepPoint *p = point (sweep, i);
      g_auto (GStrv) f = g_strsplit (lines[i + 1], ",", -1);
      g_assert_cmpuint (g_strv_length (f), ==, 18);
      g_assert_cmpfloat (g_ascii_strtod (f[12], NULL), ==,
                         g_ascii_strtod (f[9], NULL)); /* no spread */
      g_assert_cmpstr (f[16], ==, f[11]); /* nor in the ratios */
      g_assert_cmpstr (f[17], ==, f[11]);
      g_assert_cmpstr (f[14], ==, "0");
      g_assert_cmpstr (f[15], ==, ""); /* the model has no dense library */
      g_assert_cmpstr (f[0], ==, "model");
      g_assert_cmpstr (f[1], ==, spx_sweep_mode_to_string (p->mode));
      g_assert_cmpuint (atoi (f[2]), ==, p->block);
      g_assert_cmpfloat (g_ascii_strtod (f[3], NULL), ==, p->density);
      g_assert_cmpstr (f[7], ==, "fp16");
      g_assert_cmpstr (f[8], ==, "bow");
      g_assert_cmpfloat_with_epsilon (g_ascii_strtod (f[11], NULL),
                                      p->speedup, 1e-5 * p->speedup);
    }
  g_autoptr (SpxSweep) empty = spx_sweep_new ();
  g_autofree char *header = spx_sweep_to_csv (empty);
  g_assert_true (g_str_has_prefix (header, "source,") &&
                 strchr (header, '\n')[1] == '\0');
}

static void
test_json (void)
{
  g_autoptr (SpxSweep) sweep = run_small_model ();
  g_autofree char *text = spx_sweep_to_json (sweep);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  g_assert_true (json_parser_load_from_data (parser, text, -1, &error));
  g_assert_no_error (error);
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));
  JsonArray *points = json_object_get_array_member (root, "points");
  g_assert_cmpuint (json_array_get_length (points), ==, sweep->points->len);
  JsonObject *p = json_array_get_object_element (points, 1);
  g_assert_cmpstr (json_object_get_string_member (p, "mode"), ==, "static");
  g_assert_cmpfloat (json_object_get_double_member (p, "speedup"), >, 0);
  g_assert_true (json_object_get_boolean_member (p, "fits"));
  g_assert_false (json_object_get_boolean_member (p, "noisy"));
  g_assert_cmpfloat (json_object_get_double_member (p, "ms_q3"), ==,
                     json_object_get_double_member (p, "ms"));
  JsonObject *settings = json_object_get_object_member (root, "settings");
  g_assert_cmpuint (json_array_get_length (
    json_object_get_array_member (settings, "blocks")), ==, 2);
  g_assert_true (json_object_has_member (root, "units"));
}

static void
test_save (void)
{
  g_autoptr (SpxSweep) sweep = run_small_model ();
  g_autofree char *dir = g_dir_make_tmp ("spx-sweep-XXXXXX", NULL);
  const char *names[] = { "s.csv", "s.JSON" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (dir, names[i], NULL);
      g_autoptr (GError) error = NULL;
      g_assert_true (spx_sweep_save (sweep, path, SPX_SAVE_DEFAULT, &error));
      g_assert_no_error (error);
      g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
      g_unlink (path);
    }
  g_autofree char *bad = g_build_filename (dir, "s.txt", NULL);
  GError *error = NULL;
  g_assert_false (spx_sweep_save (sweep, bad, SPX_SAVE_DEFAULT, &error));
  g_assert_error (error, SPX_SWEEP_ERROR, SPX_SWEEP_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, bad));
  g_clear_error (&error);
  g_rmdir (dir);
}

/* Charts */

static void
add_point (SpxSweep *sweep, SpxSweepSource source, SpxSweepMode mode,
           guint block, double density, double speedup)
{
  SpxSweepPoint p = { .source = source, .mode = mode, .block = block,
                      .density = density, .m = 1024, .k = 1024, .n = 64,
                      .ms = 1 / speedup, .nz_throughput = 10 * speedup,
                      .speedup = speedup, .fits = density > 0.1 };
  g_strlcpy (p.machine, source == SPX_SWEEP_CPU ? "cpu-avx2-4t" : "bow",
             sizeof p.machine);
  g_array_append_val (sweep->points, p);
}

/* Both sources, four blocks, four densities: speedups from 3 to 20, far
 * from the reference at 1. */
static SpxSweep *
synthetic_sweep (guint n_points)
{
  SpxSweep *sweep = spx_sweep_new ();
  sweep->settings.run_tilewise = FALSE;
  for (guint s = 0; s < 2; s++)
    for (guint b = 0; b < 4; b++)
      for (guint d = 0; d < 4; d++)
        for (SpxSweepMode m = SPX_SWEEP_DENSE; m <= SPX_SWEEP_DYNAMIC; m++)
          if (sweep->points->len < n_points)
            add_point (sweep, s, m, sweep->settings.blocks[b],
                       sweep->settings.densities[d],
                       m == SPX_SWEEP_DENSE ? 1 : 3 + b * 2 + d + m * 2);
  return sweep;
}

static void
assert_signature (GBytes *bytes, SpxExportFormat format)
{
  gsize len;
  const char *data = g_bytes_get_data (bytes, &len);
  g_assert_cmpuint (len, >, 100);
  if (format == SPX_EXPORT_PNG)
    g_assert_cmpmem (data, 8, "\x89PNG\r\n\x1a\n", 8);
  else if (format == SPX_EXPORT_PDF)
    g_assert_cmpmem (data, 5, "%PDF-", 5);
  else
    g_assert_nonnull (g_strstr_len (data, MIN (len, 400), "<svg"));
}

static GBytes *
render (SpxExportFormat format, const SpxRenderSpeedupData *data,
        SpxTheme theme, double w, double h)
{
  SpxRenderStyle style;
  spx_render_style_init (&style, theme);
  g_autoptr (GError) error = NULL;
  GBytes *bytes = spx_render_export_bytes (format, w, h, 1, spx_render_speedup,
                                           data, &style, &error);
  g_assert_no_error (error);
  return bytes;
}

static void
test_chart_formats (void)
{
  const guint counts[] = { 0, 1, 2, 3, 7, 96 };
  for (guint i = 0; i < G_N_ELEMENTS (counts); i++)
    for (guint t = 0; t < 2; t++)
      {
        g_autoptr (SpxSweep) sweep = synthetic_sweep (counts[i]);
        SpxRenderSpeedupData data = { .sweep = sweep, .throughput = t,
                                      .current_density = i % 2 ? 0.1 : 0 };
        for (SpxExportFormat f = SPX_EXPORT_PNG; f <= SPX_EXPORT_PDF; f++)
          {
            g_autoptr (GBytes) bytes = render (f, &data, SPX_THEME_LIGHT, 640,
                                               400);
            assert_signature (bytes, f);
          }
      }
  /* no sweep at all, and pictures too small for the layout */
  SpxRenderSpeedupData none = { 0 };
  g_autoptr (GBytes) empty = render (SPX_EXPORT_PNG, &none, SPX_THEME_DARK,
                                     200, 100);
  assert_signature (empty, SPX_EXPORT_PNG);
  g_autoptr (SpxSweep) sweep = synthetic_sweep (96);
  SpxRenderSpeedupData data = { .sweep = sweep, .title = "Tiny" };
  g_autoptr (GBytes) tiny = render (SPX_EXPORT_PNG, &data, SPX_THEME_LIGHT,
                                    40, 30);
  assert_signature (tiny, SPX_EXPORT_PNG);
}

static void
test_chart_themes (void)
{
  g_autoptr (SpxSweep) sweep = synthetic_sweep (96);
  SpxRenderSpeedupData data = { .sweep = sweep };
  g_autoptr (GBytes) light = render (SPX_EXPORT_PNG, &data, SPX_THEME_LIGHT,
                                     640, 400);
  g_autoptr (GBytes) dark = render (SPX_EXPORT_PNG, &data, SPX_THEME_DARK,
                                    640, 400);
  g_assert_false (g_bytes_equal (light, dark));
}

static double
luminance (cairo_surface_t *surface, int x, int y)
{
  const guchar *row = cairo_image_surface_get_data (surface) +
                      y * cairo_image_surface_get_stride (surface);
  guint32 px = ((const guint32 *) row)[x];
  return (0.2126 * ((px >> 16) & 0xff) + 0.7152 * ((px >> 8) & 0xff) +
          0.0722 * (px & 0xff)) / 255.0;
}

/* The dense line is drawn in the foreground colour exactly where the
 * axes put 1, and not a few pixels away. */
static void
test_chart_reference_line (void)
{
  g_autoptr (SpxSweep) sweep = synthetic_sweep (96);
  SpxRenderSpeedupData data = { .sweep = sweep };
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24,
                                                         640, 400);
  cairo_t *cr = cairo_create (surface);
  spx_render_speedup (cr, 640, 400, &data, &style);
  SpxSpeedupAxes ax;
  g_assert_true (spx_render_speedup_axes (cr, 640, 400, &data, &style, &ax));
  cairo_destroy (cr);
  cairo_surface_flush (surface);

  g_assert_cmpfloat (ax.y_lo, <, 1);   /* the reference is always shown */
  g_assert_cmpfloat (ax.y_hi, >, 16);  /* the highest speedup */
  g_assert_cmpfloat (ax.x_lo, <, 1 / 32.0);
  g_assert_cmpfloat (ax.x_hi, >, 1 / 4.0);
  g_assert_cmpfloat_with_epsilon (spx_speedup_axes_y (&ax, ax.y_hi), ax.y,
                                  1e-9);
  g_assert_cmpfloat_with_epsilon (spx_speedup_axes_x (&ax, ax.x_lo), ax.x,
                                  1e-9);
  g_assert_cmpfloat (ax.x, >, 0);
  g_assert_cmpfloat (ax.x + ax.w, <, 640);
  int y = (int) floor (spx_speedup_axes_y (&ax, 1.0));
  /* away from the x grid lines: a quarter and three quarters across */
  for (guint i = 1; i <= 3; i += 2)
    {
      int x = (int) (ax.x + ax.w * (i / 4.0 + 0.03));
      g_assert_cmpfloat (luminance (surface, x, y), <, 0.3);
      g_assert_cmpfloat (luminance (surface, x, y - 5), >, 0.7);
      g_assert_cmpfloat (luminance (surface, x, y + 5), >, 0.7);
    }
  cairo_surface_destroy (surface);

  g_autoptr (SpxSweep) empty = spx_sweep_new ();
  data.sweep = empty;
  cairo_surface_t *s2 = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 10, 10);
  cr = cairo_create (s2);
  g_assert_false (spx_render_speedup_axes (cr, 640, 400, &data, &style, &ax));
  cairo_destroy (cr);
  cairo_surface_destroy (s2);
}

static SpxSweepPoint *
last_point (SpxSweep *sweep)
{
  return &g_array_index (sweep->points, SpxSweepPoint, sweep->points->len - 1);
}

/* The chart drawn into an image at 640 × 400, and where its plot is. */
static cairo_surface_t *
render_image (const SpxRenderSpeedupData *data, SpxTheme theme,
              SpxSpeedupAxes *ax)
{
  SpxRenderStyle style;
  spx_render_style_init (&style, theme);
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24,
                                                         640, 400);
  cairo_t *cr = cairo_create (surface);
  spx_render_speedup (cr, 640, 400, data, &style);
  g_assert_true (spx_render_speedup_axes (cr, 640, 400, data, &style, ax));
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  return surface;
}

static SpxRgb
pixel (cairo_surface_t *surface, double x, double y)
{
  const guchar *row = cairo_image_surface_get_data (surface) +
                      (int) floor (y) * cairo_image_surface_get_stride (surface);
  guint32 px = ((const guint32 *) row)[(int) floor (x)];
  return (SpxRgb) { ((px >> 16) & 0xff) / 255.0, ((px >> 8) & 0xff) / 255.0,
                    (px & 0xff) / 255.0 };
}

/* The largest difference of a channel. */
static double
colour_distance (SpxRgb a, SpxRgb b)
{
  return MAX (fabs (a.r - b.r), MAX (fabs (a.g - b.g), fabs (a.b - b.b)));
}

static SpxRgb
theme_colour (SpxTheme theme, gboolean panel, guint series)
{
  SpxRenderStyle style;
  spx_render_style_init (&style, theme);
  return panel ? style.panel : style.series[series];
}

/* A CPU point's bar spans the quartiles, in its block's colour, caps and
 * all; a model point, without a spread, has none. */
static void
test_chart_error_bars (void)
{
  g_autoptr (SpxSweep) sweep = spx_sweep_new ();
  const double v = 4.4; /* the bar's ends, 8.8 and 2.2, are not y ticks */
  add_point (sweep, SPX_SWEEP_CPU, SPX_SWEEP_STATIC, 4, 1 / 4.0, v);
  last_point (sweep)->ms_q1 = 0.5 * last_point (sweep)->ms;
  last_point (sweep)->ms_q3 = 2 * last_point (sweep)->ms;
  add_point (sweep, SPX_SWEEP_MODEL, SPX_SWEEP_STATIC, 4, 1 / 16.0, v);
  last_point (sweep)->ms_q1 = last_point (sweep)->ms_q3 =
    last_point (sweep)->ms;
  last_point (sweep)->fits = TRUE;
  SpxRenderSpeedupData data = { .sweep = sweep };
  SpxSpeedupAxes ax;
  cairo_surface_t *surface = render_image (&data, SPX_THEME_LIGHT, &ax);
  SpxRgb blue = theme_colour (SPX_THEME_LIGHT, FALSE, 0);

  /* the whole bar is on the plot */
  g_assert_cmpfloat (ax.y_hi, >, 2 * v);
  g_assert_cmpfloat (ax.y_lo, <, v / 2);
  /* the faster quartile above the marker, the slower below, and the bar
   * between marker and cap */
  const double at[] = { 2 * v, v / 2, v * 1.6, v / 1.6 };
  for (guint i = 0; i < G_N_ELEMENTS (at); i++)
    {
      double y = spx_speedup_axes_y (&ax, at[i]);
      g_assert_cmpfloat (colour_distance (pixel (surface, spx_speedup_axes_x (
                           &ax, 1 / 4.0), y), blue), <, 0.08);
      g_assert_cmpfloat (colour_distance (pixel (surface, spx_speedup_axes_x (
                           &ax, 1 / 16.0), y), blue), >, 0.3);
    }
  /* the caps reach sideways */
  double x = floor (spx_speedup_axes_x (&ax, 1 / 4.0)) + 0.5;
  g_assert_cmpfloat (colour_distance (pixel (surface, x + 2, spx_speedup_axes_y (
                       &ax, 2 * v)), blue), <, 0.08);
  g_assert_cmpfloat (colour_distance (pixel (surface, x + 2, spx_speedup_axes_y (
                       &ax, v * 1.6)), blue), >, 0.3);
  cairo_surface_destroy (surface);
}

/* A CPU point with per-round ratio quartiles: its bar spans those, not
 * the timed runs' (which throughput keeps). */
static void
test_chart_ratio_bars (void)
{
  g_autoptr (SpxSweep) sweep = spx_sweep_new ();
  const double v = 4.4;
  add_point (sweep, SPX_SWEEP_CPU, SPX_SWEEP_STATIC, 4, 1 / 4.0, v);
  SpxSweepPoint *p = last_point (sweep);
  p->ms_q1 = 0.5 * p->ms; /* the runs: 2.2 … 8.8 */
  p->ms_q3 = 2 * p->ms;
  p->speedup_q1 = 3.3;    /* the ratios: 3.3 … 6.6 */
  p->speedup_q3 = 6.6;
  add_point (sweep, SPX_SWEEP_MODEL, SPX_SWEEP_STATIC, 4, 1 / 16.0, 20);
  SpxRenderSpeedupData data = { .sweep = sweep };
  SpxSpeedupAxes ax;
  cairo_surface_t *surface = render_image (&data, SPX_THEME_LIGHT, &ax);
  SpxRgb blue = theme_colour (SPX_THEME_LIGHT, FALSE, 0);
  double x = spx_speedup_axes_x (&ax, 1 / 4.0);
  const double on[] = { 6.6, 3.3, 6.0, 3.6 }, off[] = { 8.0, 2.6 };
  for (guint i = 0; i < G_N_ELEMENTS (on); i++)
    g_assert_cmpfloat (colour_distance (pixel (surface, x, spx_speedup_axes_y (
                         &ax, on[i])), blue), <, 0.08);
  for (guint i = 0; i < G_N_ELEMENTS (off); i++)
    g_assert_cmpfloat (colour_distance (pixel (surface, x, spx_speedup_axes_y (
                         &ax, off[i])), blue), >, 0.3);
  cairo_surface_destroy (surface);
  /* throughput (10 × speedup here): the timed runs' 22 … 88 */
  data.throughput = TRUE;
  surface = render_image (&data, SPX_THEME_LIGHT, &ax);
  x = spx_speedup_axes_x (&ax, 1 / 4.0);
  g_assert_cmpfloat (colour_distance (pixel (surface, x, spx_speedup_axes_y (
                       &ax, 80)), blue), <, 0.08);
  cairo_surface_destroy (surface);
}

/* A noisy point is drawn hollow, and the subtitle says so on a line of
 * its own. */
static void
test_chart_noisy (void)
{
  g_autoptr (SpxSweep) sweep = spx_sweep_new ();
  add_point (sweep, SPX_SWEEP_CPU, SPX_SWEEP_STATIC, 4, 1 / 4.0, 3);
  add_point (sweep, SPX_SWEEP_CPU, SPX_SWEEP_STATIC, 4, 1 / 16.0, 6);
  last_point (sweep)->fits = TRUE; /* hollow only for its noise */
  SpxRenderSpeedupData data = { .sweep = sweep };
  SpxSpeedupAxes clean_ax, ax;
  cairo_surface_t *clean = render_image (&data, SPX_THEME_LIGHT, &clean_ax);
  last_point (sweep)->noise = SPX_NOISE_BUSY;
  cairo_surface_t *surface = render_image (&data, SPX_THEME_LIGHT, &ax);
  SpxRgb blue = theme_colour (SPX_THEME_LIGHT, FALSE, 0);
  SpxRgb panel = theme_colour (SPX_THEME_LIGHT, TRUE, 0);

  g_assert_cmpfloat (ax.y, >, clean_ax.y);
  SpxRgb quiet = pixel (surface, spx_speedup_axes_x (&ax, 1 / 4.0),
                        spx_speedup_axes_y (&ax, 3));
  SpxRgb noisy = pixel (surface, spx_speedup_axes_x (&ax, 1 / 16.0),
                        spx_speedup_axes_y (&ax, 6));
  SpxRgb was = pixel (clean, spx_speedup_axes_x (&clean_ax, 1 / 16.0),
                      spx_speedup_axes_y (&clean_ax, 6));
  g_assert_cmpfloat (colour_distance (quiet, blue), <, 0.02);
  g_assert_cmpfloat (colour_distance (noisy, panel), <, 0.02);
  g_assert_cmpfloat (colour_distance (was, blue), <, 0.02);
  cairo_surface_destroy (clean);
  cairo_surface_destroy (surface);
}

/* render_image with a style of the caller's. */
static cairo_surface_t *
render_styled (const SpxRenderSpeedupData *data, const SpxRenderStyle *style,
               SpxSpeedupAxes *ax)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24,
                                                         640, 400);
  cairo_t *cr = cairo_create (surface);
  spx_render_speedup (cr, 640, 400, data, style);
  g_assert_true (spx_render_speedup_axes (cr, 640, 400, data, style, ax));
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  return surface;
}

/* The noise note is the subtitle's line counting the noisy points: with
 * style.no_noise_note the picture above the plot is the clean chart's,
 * and the noisy marker stays hollow. */
static void
test_chart_noise_note (void)
{
  g_autoptr (SpxSweep) sweep = spx_sweep_new ();
  add_point (sweep, SPX_SWEEP_CPU, SPX_SWEEP_STATIC, 4, 1 / 4.0, 3);
  add_point (sweep, SPX_SWEEP_CPU, SPX_SWEEP_STATIC, 4, 1 / 16.0, 6);
  last_point (sweep)->fits = TRUE;
  SpxRenderSpeedupData data = { .sweep = sweep };
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  SpxSpeedupAxes clean_ax, noted_ax, bare_ax;
  cairo_surface_t *clean = render_styled (&data, &style, &clean_ax);
  last_point (sweep)->noise = SPX_NOISE_BUSY;
  cairo_surface_t *noted = render_styled (&data, &style, &noted_ax);
  style.no_noise_note = TRUE;
  cairo_surface_t *bare = render_styled (&data, &style, &bare_ax);

  g_assert_cmpfloat (noted_ax.y, >, clean_ax.y);
  g_assert_cmpfloat (bare_ax.y, ==, clean_ax.y);
  int top = (int) floor (clean_ax.y);
  g_assert_cmpuint (test_rows_differing (noted, clean, top), >, 5);
  g_assert_cmpuint (test_rows_differing (bare, clean, top), ==, 0);
  SpxRgb hollow = pixel (bare, spx_speedup_axes_x (&bare_ax, 1 / 16.0),
                         spx_speedup_axes_y (&bare_ax, 6));
  g_assert_cmpfloat (colour_distance (hollow, style.panel), <, 0.02);
  cairo_surface_destroy (clean);
  cairo_surface_destroy (noted);
  cairo_surface_destroy (bare);
}

/* The colour nearest want in the 5 × 5 pixels about (x, y): how far. */
static double
nearest_distance (cairo_surface_t *surface, double x, double y, SpxRgb want)
{
  double best = 1;
  for (int dy = -2; dy <= 2; dy++)
    for (int dx = -2; dx <= 2; dx++)
      best = MIN (best, colour_distance (pixel (surface, x + dx, y + dy),
                                         want));
  return best;
}

/* Over memory and noisy look different: a model plan over memory is
 * filled over an alert cross whose arms reach past the marker, a noisy
 * CPU point hollow (the panel inside, nothing outside). */
static void
test_chart_looks (void)
{
  g_autoptr (SpxSweep) sweep = spx_sweep_new ();
  add_point (sweep, SPX_SWEEP_MODEL, SPX_SWEEP_STATIC, 4, 1 / 16.0, 6);
  last_point (sweep)->fits = FALSE;
  add_point (sweep, SPX_SWEEP_CPU, SPX_SWEEP_STATIC, 4, 1 / 4.0, 3);
  last_point (sweep)->fits = TRUE;
  last_point (sweep)->noise = SPX_NOISE_BUSY;
  SpxRenderSpeedupData data = { .sweep = sweep };
  for (SpxTheme t = SPX_THEME_LIGHT; t <= SPX_THEME_DARK; t++)
    {
      SpxRenderStyle style;
      spx_render_style_init (&style, t);
      SpxSpeedupAxes ax;
      cairo_surface_t *surface = render_styled (&data, &style, &ax);
      double ox = spx_speedup_axes_x (&ax, 1 / 16.0);
      double oy = spx_speedup_axes_y (&ax, 6);
      double nx = spx_speedup_axes_x (&ax, 1 / 4.0);
      double ny = spx_speedup_axes_y (&ax, 3);
      /* the middles: the block's colour; the panel */
      g_assert_cmpfloat (colour_distance (pixel (surface, ox, oy),
                                          style.series[0]), <, 0.02);
      g_assert_cmpfloat (colour_distance (pixel (surface, nx, ny),
                                          style.panel), <, 0.02);
      /* 6 pixels out on the diagonal: an arm of the cross; nothing */
      g_assert_cmpfloat (nearest_distance (surface, ox + 6, oy + 6,
                                           style.alert), <, 0.2);
      g_assert_cmpfloat (nearest_distance (surface, nx + 6, ny + 6,
                                           style.alert), >, 0.4);
      cairo_surface_destroy (surface);
    }
}

/* Pixels darker than text's anti-aliased edge, in a box about (x, y). */
static guint
count_dark (cairo_surface_t *surface, double x, double y, int half_w,
            int half_h)
{
  guint n = 0;
  for (int dy = -half_h; dy <= half_h; dy++)
    for (int dx = -half_w; dx <= half_w; dx++)
      n += luminance (surface, (int) x + dx, (int) y + dy) < 0.25;
  return n;
}

/* Stale: the same chart, veiled in the panel's colour, with a notice in
 * the middle of the plot. */
static void
test_chart_stale (void)
{
  g_autoptr (SpxSweep) sweep = synthetic_sweep (96);
  SpxRenderSpeedupData data = { .sweep = sweep };
  SpxSpeedupAxes ax, stale_ax;
  cairo_surface_t *fresh = render_image (&data, SPX_THEME_LIGHT, &ax);
  data.stale = TRUE;
  cairo_surface_t *stale = render_image (&data, SPX_THEME_LIGHT, &stale_ax);
  g_assert_cmpmem (&ax, sizeof ax, &stale_ax, sizeof stale_ax);

  /* model, static, block 16 (the fourth colour) at 1/4: speedup 11 */
  double x = spx_speedup_axes_x (&ax, 1 / 4.0);
  double y = spx_speedup_axes_y (&ax, 11);
  SpxRgb pink = theme_colour (SPX_THEME_LIGHT, FALSE, 3);
  SpxRgb panel = theme_colour (SPX_THEME_LIGHT, TRUE, 0);
  SpxRgb veiled = { 0.4 * pink.r + 0.6 * panel.r, 0.4 * pink.g + 0.6 * panel.g,
                    0.4 * pink.b + 0.6 * panel.b };
  g_assert_cmpfloat (colour_distance (pixel (fresh, x, y), pink), <, 0.02);
  g_assert_cmpfloat (colour_distance (pixel (stale, x, y), veiled), <, 0.04);

  double cx = ax.x + ax.w / 2, cy = ax.y + ax.h / 2;
  g_assert_cmpuint (count_dark (stale, cx, cy, 80, 6), >, 20);
  g_assert_cmpuint (count_dark (fresh, cx, cy, 80, 6), ==, 0);
  cairo_surface_destroy (fresh);
  cairo_surface_destroy (stale);

  for (SpxExportFormat f = SPX_EXPORT_PNG; f <= SPX_EXPORT_PDF; f++)
    {
      g_autoptr (GBytes) bytes = render (f, &data, SPX_THEME_DARK, 640, 400);
      assert_signature (bytes, f);
      g_autoptr (GBytes) tiny = render (f, &data, SPX_THEME_DARK, 60, 40);
      assert_signature (tiny, f);
    }
}

/* One mask re-blocked to 1 … 16: the block densities of a 90% sparse
 * layer, dense and static on both sources (settings own the subject). */
static SpxSweep *
subject_sweep (void)
{
  static const double densities[] = { 0.1, 0.31, 0.69, 0.94, 0.999 };
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxMask) mask = spx_mask_new (64, 64, 1, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < 40; i++)
    spx_mask_set (mask, i, (i * 5) % 64);
  SpxSweep *sweep = spx_sweep_new ();
  spx_sweep_options_set_subject (&sweep->settings, mask, NULL);
  sweep->settings.subject = spx_mask_copy (mask, NULL);
  sweep->settings.subject_name = g_strdup ("layer.smtx");
  sweep->settings.run_dynamic = sweep->settings.run_tilewise = FALSE;
  for (guint s = 0; s < 2; s++)
    for (guint b = 0; b < sweep->settings.n_blocks; b++)
      for (SpxSweepMode m = SPX_SWEEP_DENSE; m <= SPX_SWEEP_STATIC; m++)
        {
          add_point (sweep, s, m, sweep->settings.blocks[b], densities[b],
                     m == SPX_SWEEP_DENSE ? 1 : (s ? 8.0 : 2.0) / (1 + b));
          last_point (sweep)->fits = TRUE;
        }
  g_assert_cmpuint (sweep->points->len, ==,
                    spx_sweep_total (&sweep->settings));
  return sweep;
}

/* x labels of data's chart at 640 × 400, and their x. */
static GStrv
x_labels (const SpxRenderSpeedupData *data, double **xs)
{
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 1, 1);
  cairo_t *cr = cairo_create (s);
  GStrv labels = spx_render_speedup_x_labels (cr, 640, 400, data, &style, xs);
  cairo_destroy (cr);
  cairo_surface_destroy (s);
  return labels;
}

/* Pixels of the dashed marker's colour down the plot at x. */
static guint
count_muted (cairo_surface_t *surface, const SpxSpeedupAxes *ax, double x)
{
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  guint n = 0;
  for (double y = ax->y + 2; y < ax->y + ax->h - 2; y++)
    n += colour_distance (pixel (surface, x, y), style.muted) < 0.05;
  return n;
}

/* A subject's sweep is drawn against block size: a column per block
 * size, labelled with it and its block density; its points are joined
 * across block sizes; the scenario's block size is marked. */
static void
test_chart_subject (void)
{
  static const char *const want[] = {
    "1\n10%", "2\n31%", "4\n69%", "8\n94%", "16\n99.9%",
  };
  g_autoptr (SpxSweep) sweep = subject_sweep ();
  SpxRenderSpeedupData data = { .sweep = sweep };
  for (guint t = 0; t < 2; t++)
    for (SpxExportFormat f = SPX_EXPORT_PNG; f <= SPX_EXPORT_PDF; f++)
      {
        data.throughput = t;
        g_autoptr (GBytes) bytes = render (f, &data, SPX_THEME_LIGHT, 640, 400);
        assert_signature (bytes, f);
      }
  data.throughput = FALSE;
  SpxRgb panel = theme_colour (SPX_THEME_LIGHT, TRUE, 0);

  SpxSpeedupAxes ax;
  cairo_surface_t *surface = render_image (&data, SPX_THEME_LIGHT, &ax);
  g_assert_true (ax.by_block);
  g_assert_cmpuint (ax.n_blocks, ==, 5);
  g_autofree double *xs = NULL;
  g_auto (GStrv) labels = x_labels (&data, &xs);
  g_assert_cmpuint (g_strv_length (labels), ==, 5);
  for (guint i = 0; i < 5; i++)
    {
      g_assert_cmpuint (ax.blocks[i], ==, 1u << i);
      g_assert_cmpstr (labels[i], ==, want[i]);
      g_assert_cmpfloat_with_epsilon (xs[i], spx_speedup_axes_x (&ax, 1 << i),
                                      1e-9);
      /* evenly spaced across the plot, left to right */
      g_assert_cmpfloat_with_epsilon (xs[i], ax.x + ax.w * (i + 0.5) / 5,
                                      1e-9);
    }
  g_assert_true (isnan (spx_speedup_axes_x (&ax, 32)));
  const SpxSweepPoint *p8 = &g_array_index (sweep->points, SpxSweepPoint, 7);
  g_assert_cmpuint (p8->block, ==, 8);
  g_assert_cmpfloat (spx_speedup_axes_point_x (&ax, p8), ==, xs[3]);
  /* halfway from the CPU's static 2 × 2 (4×) to its 4 × 4 (2.67×): the
   * line joining them */
  double x = (xs[1] + xs[2]) / 2;
  double y = (spx_speedup_axes_y (&ax, 4) + spx_speedup_axes_y (&ax, 8 / 3.0))
             / 2;
  g_assert_cmpfloat (colour_distance (pixel (surface, x, y), panel), >, 0.1);
  guint unmarked = count_muted (surface, &ax, round (xs[2]) + 0.5);
  cairo_surface_destroy (surface);
  /* the legend's row for it narrows the plot */
  data.current_block = 4;
  surface = render_image (&data, SPX_THEME_LIGHT, &ax);
  g_assert_cmpuint (count_muted (surface, &ax,
                                 round (spx_speedup_axes_x (&ax, 4)) + 0.5),
                    >, unmarked + 40);
  g_assert_cmpuint (count_muted (surface, &ax,
                                 round (spx_speedup_axes_x (&ax, 8)) + 0.5),
                    <=, unmarked);
  cairo_surface_destroy (surface);
  data.current_block = 0;

  /* the same points as a sweep of generated masks: against density, a
   * point per line */
  SpxMask *subject = (SpxMask *) sweep->settings.subject;
  sweep->settings.subject = NULL;
  surface = render_image (&data, SPX_THEME_LIGHT, &ax);
  g_assert_false (ax.by_block);
  x = (spx_speedup_axes_x (&ax, 0.31) + spx_speedup_axes_x (&ax, 0.69)) / 2;
  y = (spx_speedup_axes_y (&ax, 4) + spx_speedup_axes_y (&ax, 8 / 3.0)) / 2;
  g_assert_cmpfloat (colour_distance (pixel (surface, x, y), panel), <, 0.02);
  g_assert_cmpfloat (ax.x_lo, >, 0.05);
  sweep->settings.subject = subject;
  cairo_surface_destroy (surface);
}

/* sweep without the points of block sizes over max_block, nor those
 * sizes in its settings. */
static void
drop_blocks_over (SpxSweep *sweep, guint max_block)
{
  for (guint i = sweep->points->len; i-- > 0;)
    if (g_array_index (sweep->points, SpxSweepPoint, i).block > max_block)
      g_array_remove_index (sweep->points, i);
  guint n = 0;
  for (guint b = 0; b < sweep->settings.n_blocks; b++)
    if (sweep->settings.blocks[b] <= max_block)
      sweep->settings.blocks[n++] = sweep->settings.blocks[b];
  sweep->settings.n_blocks = n;
}

/* An earlier sweep under the current one: its own legend entry, the
 * union of both sweeps' block sizes and values on shared axes, drawn
 * washed out where the current sweep has nothing. */
static void
test_chart_overlay (void)
{
  g_autoptr (SpxSweep) sweep = subject_sweep ();
  drop_blocks_over (sweep, 4);
  g_autoptr (SpxSweep) earlier = subject_sweep ();
  g_free ((char *) earlier->settings.subject_name);
  earlier->settings.subject_name = g_strdup ("other.smtx");
  for (guint i = 0; i < earlier->points->len; i++)
    g_array_index (earlier->points, SpxSweepPoint, i).speedup *= 10;
  SpxRenderSpeedupData data = { .sweep = sweep };
  g_auto (GStrv) none = spx_render_speedup_sweep_labels (&data);
  g_assert_cmpuint (g_strv_length (none), ==, 0);
  SpxSpeedupAxes alone_ax, ax;
  cairo_surface_t *alone = render_image (&data, SPX_THEME_LIGHT, &alone_ax);
  g_assert_cmpuint (alone_ax.n_blocks, ==, 3);

  data.overlay = earlier;
  g_auto (GStrv) labels = spx_render_speedup_sweep_labels (&data);
  g_assert_cmpuint (g_strv_length (labels), ==, 2);
  g_assert_true (g_str_has_prefix (labels[0], "layer.smtx (bow, best n · "
                                              "CPU, n = 1024 · fp16)"));
  g_assert_true (g_str_has_prefix (labels[1], "other.smtx ("));
  cairo_surface_t *both = render_image (&data, SPX_THEME_LIGHT, &ax);
  g_assert_true (ax.by_block);
  g_assert_cmpuint (ax.n_blocks, ==, 5);
  g_assert_cmpuint (ax.blocks[4], ==, 16);
  g_assert_cmpfloat (ax.y_hi, >, 80);  /* the overlay's CPU 1 × 1: 8 × 10 */
  g_assert_cmpfloat (alone_ax.y_hi, <, 20);
  g_auto (GStrv) ticks = x_labels (&data, NULL);
  g_assert_cmpuint (g_strv_length (ticks), ==, 5);
  /* the overlay's own density row */
  g_assert_cmpstr (ticks[4], ==, "16\n\n99.9%");
  g_assert_cmpstr (ticks[0], ==, "1\n10%\n10%");

  /* the overlay's CPU static 16 × 16 (8 / 5 × 10), where the current
   * sweep has no column: the block's colour washed towards the panel */
  double x = spx_speedup_axes_x (&ax, 16), y = spx_speedup_axes_y (&ax, 16);
  SpxRgb panel = theme_colour (SPX_THEME_LIGHT, TRUE, 0);
  SpxRgb yellow = theme_colour (SPX_THEME_LIGHT, FALSE, 4);
  SpxRgb got = pixel (both, x, y);
  g_assert_cmpfloat (colour_distance (got, panel), >, 0.08);
  g_assert_cmpfloat (colour_distance (got, yellow), >, 0.1);
  g_assert_cmpfloat (colour_distance (got, spx_rgb_mix (yellow, panel, 0.6)),
                     <, 0.03);
  cairo_surface_destroy (alone);
  cairo_surface_destroy (both);

  data.overlay_label = "before";
  g_auto (GStrv) named = spx_render_speedup_sweep_labels (&data);
  g_assert_cmpstr (named[1], ==, "before");
  /* a sweep of generated masks under it: the density axis for both */
  g_autoptr (SpxSweep) generated = synthetic_sweep (96);
  data.overlay = generated;
  cairo_surface_destroy (render_image (&data, SPX_THEME_LIGHT, &ax));
  g_assert_false (ax.by_block);
  g_assert_cmpfloat (ax.x_lo, <, 1 / 32.0); /* the overlay's densities */
  g_assert_cmpfloat (ax.x_hi, >, 0.69);     /* the subject's 4 × 4 */
  for (SpxExportFormat f = SPX_EXPORT_PNG; f <= SPX_EXPORT_PDF; f++)
    for (guint t = 0; t < 2; t++)
      {
        data.throughput = t;
        g_autoptr (GBytes) bytes = render (f, &data, SPX_THEME_DARK, 640, 400);
        assert_signature (bytes, f);
      }
}

/* Every label a fraction 1/2^k, or every one a percentage. */
static gboolean
one_notation (const GStrv labels)
{
  guint fractions = 0, percents = 0, n = g_strv_length (labels);
  for (guint i = 0; i < n; i++)
    {
      fractions += g_str_equal (labels[i], "1") ||
                   g_str_has_prefix (labels[i], "1/");
      percents += g_str_has_suffix (labels[i], "%");
    }
  return n > 0 && (fractions == n || percents == n);
}

static gboolean
all_distinct (const GStrv labels)
{
  for (guint i = 0; labels[i] != NULL; i++)
    for (guint j = 0; j < i; j++)
      if (g_str_equal (labels[i], labels[j]))
        return FALSE;
  return TRUE;
}

/* The density axis: one notation, no tick twice, even where densities
 * round alike. */
static void
test_chart_density_ticks (void)
{
  static const struct {
    double d[3];
    const char *want[4];
  } cases[] = {
    { { 1 / 32.0, 1 / 8.0, 1 / 4.0 }, { "1/32", "1/8", "1/4" } },
    /* 1/5 is no 1/2^k: all percentages */
    { { 0.2, 0.589, 0.97 }, { "20%", "58.9%", "97%" } },
    /* "100%" twice before; 1 is too near 99.96% to be labelled */
    { { 0.5, 0.9996, 1 }, { "50%", "99.96%" } },
    { { 0.25, 0.5, 0.9996 }, { "25%", "50%", "99.96%" } },
    /* digits enough to tell them apart */
    { { 0.5, 0.97301, 0.97349 }, { "50%", "97.3%" } },
  };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr (SpxSweep) sweep = spx_sweep_new ();
      for (guint i = 0; i < 3; i++)
        for (guint b = 1; b <= 4; b *= 4) /* two blocks at each density */
          add_point (sweep, SPX_SWEEP_MODEL, SPX_SWEEP_STATIC, b,
                     cases[c].d[i], 2 + i + b);
      SpxRenderSpeedupData data = { .sweep = sweep };
      g_auto (GStrv) labels = x_labels (&data, NULL);
      g_assert_true (one_notation (labels));
      g_assert_true (all_distinct (labels));
      g_assert_cmpstrv (labels, cases[c].want);
    }
  /* the paper's sweep */
  g_autoptr (SpxSweep) sweep = synthetic_sweep (96);
  SpxRenderSpeedupData data = { .sweep = sweep };
  g_autofree double *xs = NULL;
  g_auto (GStrv) labels = x_labels (&data, &xs);
  const char *const want[] = { "1/32", "1/16", "1/8", "1/4", NULL };
  g_assert_cmpstrv (labels, want);
  for (guint i = 1; i < 4; i++)
    g_assert_cmpfloat (xs[i], >, xs[i - 1] + 20);
}

/* A sweep that stopped early says so under the title, pushing the plot
 * down; one still running does not. */
static void
test_chart_partial (void)
{
  g_autoptr (SpxSweep) full = synthetic_sweep (96);
  g_autoptr (SpxSweep) part = synthetic_sweep (51);
  g_assert_cmpuint (spx_sweep_total (&part->settings), ==, 96);
  SpxRenderSpeedupData data = { .sweep = full };
  SpxSpeedupAxes full_ax, ax;
  cairo_surface_t *surface = render_image (&data, SPX_THEME_LIGHT, &full_ax);
  cairo_surface_destroy (surface);
  data.sweep = part;
  surface = render_image (&data, SPX_THEME_LIGHT, &ax);
  cairo_surface_destroy (surface);
  g_assert_cmpfloat (ax.y, >, full_ax.y);
  data.running = TRUE;
  surface = render_image (&data, SPX_THEME_LIGHT, &ax);
  cairo_surface_destroy (surface);
  g_assert_cmpfloat (ax.y, ==, full_ax.y);
  data.running = FALSE;
  for (SpxExportFormat f = SPX_EXPORT_PNG; f <= SPX_EXPORT_PDF; f++)
    {
      g_autoptr (GBytes) bytes = render (f, &data, SPX_THEME_LIGHT, 640, 400);
      assert_signature (bytes, f);
    }
}

/* The noise rule on made-up timings: impossible efficiency, a slowed
 * dense, a busy machine; nothing else. */
static SpxBenchResult
timings (double dense_ms, double dense_best_ms, double static_ms)
{
  /* 1024³ at density 1/8: dense 2.1 GFLOP, the non-zeros 268 MFLOP */
  SpxBenchResult r = { .m = 1024, .k = 1024, .n = 1024, .threads = 2,
                       .cpus = 2, .busy_cores = 0.05,
                       .nnz_elements = 1024 * 1024 / 8 };
  double dense_flop = 2.0 * 1024 * 1024 * 1024;
  r.density = 1 / 8.0;
  r.dense = (SpxBenchTiming) { .ran = TRUE, .ms = dense_ms,
                               .ms_best = dense_best_ms,
                               .gflops = dense_flop / (dense_ms * 1e6) };
  r.stat = (SpxBenchTiming) { .ran = TRUE, .ms = static_ms,
                              .gflops = dense_flop / 8 / (static_ms * 1e6) };
  r.stat.speedup = dense_ms / static_ms;
  r.stat.efficiency = r.stat.gflops / r.dense.gflops;
  return r;
}

static void
test_noise_rule (void)
{
  /* dense 10 ms (best 9.5), static 2 ms: efficiency 0.625, clean */
  SpxBenchResult r = timings (10, 9.5, 2);
  spx_bench_judge (&r, 0);
  g_assert_cmpint (spx_bench_noise (&r), ==, SPX_NOISE_NONE);
  /* static at 1 ms beats 1/density (8×) against this dense: impossible */
  r = timings (10, 9.5, 1);
  spx_bench_judge (&r, 0);
  g_assert_cmpint (r.stat.noise, ==, SPX_NOISE_EFFICIENCY);
  g_assert_cmpint (r.dense.noise, ==, SPX_NOISE_NONE);
  /* efficiency 1.006 (static 10 / (8 · 1.006) ms) with ratios spread
   * ±0.4%: a kernel at dense's rate (b16), not noise */
  r = timings (10, 9.5, 10 / (8 * 1.006));
  r.stat.speedup_q1 = r.stat.speedup * 0.996;
  r.stat.speedup_q3 = r.stat.speedup * 1.004;
  spx_bench_judge (&r, 0);
  g_assert_cmpfloat (r.stat.efficiency, >, 1.005);
  g_assert_cmpint (spx_bench_noise (&r), ==, SPX_NOISE_NONE);
  /* 1.05 with its lower quartile still at 1.04 is */
  r = timings (10, 9.5, 10 / (8 * 1.05));
  r.stat.speedup_q1 = r.stat.speedup * 1.04 / 1.05;
  r.stat.speedup_q3 = r.stat.speedup * 1.06 / 1.05;
  spx_bench_judge (&r, 0);
  g_assert_cmpint (r.stat.noise, ==, SPX_NOISE_EFFICIENCY);
  /* … but not when the ratios' lower quartile reaches 1 */
  r.stat.speedup_q1 = r.stat.speedup * 0.99 / 1.05;
  spx_bench_judge (&r, 0);
  g_assert_cmpint (spx_bench_noise (&r), ==, SPX_NOISE_NONE);
  /* ratios spread over more than a fifth of their median */
  r = timings (10, 9.5, 2);
  r.stat.speedup_q1 = 4.0;
  r.stat.speedup_q3 = 5.1;
  spx_bench_judge (&r, 0);
  g_assert_cmpint (r.stat.noise, ==, SPX_NOISE_SPREAD);
  g_assert_cmpint (r.dense.noise, ==, SPX_NOISE_NONE);
  r.stat.speedup_q1 = 4.5;
  spx_bench_judge (&r, 0);
  g_assert_cmpint (spx_bench_noise (&r), ==, SPX_NOISE_NONE);
  /* dense's own rounds spread widely: dense and all it is over */
  r.dense.ms_q1 = 9.0;
  r.dense.ms_q3 = 12.5;
  spx_bench_judge (&r, 0);
  g_assert_cmpint (r.dense.noise, ==, SPX_NOISE_SPREAD);
  g_assert_cmpint (r.stat.noise, ==, SPX_NOISE_SPREAD);
  /* dense more than 30% below the sweep's best: dense and what is
   * measured against it */
  r = timings (10, 9.5, 2);
  spx_bench_judge (&r, 2.0 * 1024 * 1024 * 1024 / (6.9 * 1e6));
  g_assert_cmpint (r.dense.noise, ==, SPX_NOISE_DENSE_SLOW);
  g_assert_cmpint (r.stat.noise, ==, SPX_NOISE_DENSE_SLOW);
  spx_bench_judge (&r, 2.0 * 1024 * 1024 * 1024 / (7.1 * 1e6)); /* 29% */
  g_assert_cmpint (spx_bench_noise (&r), ==, SPX_NOISE_NONE);
  /* within one run: the median far from its own fastest dense run */
  r = timings (10, 6.5, 2);
  spx_bench_judge (&r, 0);
  g_assert_cmpint (r.dense.noise, ==, SPX_NOISE_DENSE_SLOW);
  /* the steady-but-wrong case: another process held a core while every
   * run waited for it (no spread, no dense drop, only the busy time) */
  r = timings (10, 9.9, 2);
  r.busy_cores = 0.9;
  spx_bench_judge (&r, 0);
  g_assert_cmpint (r.dense.noise, ==, SPX_NOISE_BUSY);
  g_assert_cmpint (r.stat.noise, ==, SPX_NOISE_BUSY);
  /* one thread on two cores: the other process had the spare core */
  r.threads = 1;
  spx_bench_judge (&r, 0);
  g_assert_cmpint (spx_bench_noise (&r), ==, SPX_NOISE_NONE);
  /* unknown busy time judges nothing */
  r.threads = 2;
  r.busy_cores = -1;
  spx_bench_judge (&r, 0);
  g_assert_cmpint (spx_bench_noise (&r), ==, SPX_NOISE_NONE);
  g_autofree char *names = spx_noise_to_string (SPX_NOISE_BUSY |
                                                SPX_NOISE_EFFICIENCY);
  g_assert_cmpstr (names, ==, "efficiency,busy");
  SpxNoise back;
  g_assert_true (spx_noise_from_string ("busy,spread", &back));
  g_assert_cmpint (back, ==, SPX_NOISE_BUSY | SPX_NOISE_SPREAD);
}

/* Rounds alternate dense and sparse, so a slowdown of some rounds of one
 * contestant moves neither the median of the per-round ratios nor goes
 * unnoticed: the spread of those ratios flags it. */
static void
test_alternating_ratios (void)
{
  const double dense[7] = { 10, 10.2, 9.9, 10.1, 10, 9.8, 10.1 };
  double quiet[7], slowed[7];
  for (guint i = 0; i < 7; i++)
    quiet[i] = slowed[i] = dense[i] / 5; /* 5× in every round */
  slowed[1] *= 2.1; /* another program took the core in three of them */
  slowed[4] *= 1.9;
  slowed[6] *= 2.4;
  SpxBenchResult r = timings (10, 9.8, 2);
  spx_bench_summarise_ratios (&r.stat, dense, quiet, 7);
  g_assert_cmpfloat_with_epsilon (r.stat.speedup, 5.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (r.stat.speedup_q1, 5.0, 1e-9);
  spx_bench_judge (&r, 0);
  g_assert_cmpint (spx_bench_noise (&r), ==, SPX_NOISE_NONE);
  spx_bench_summarise_ratios (&r.stat, dense, slowed, 7);
  g_assert_cmpfloat_with_epsilon (r.stat.speedup, 5.0, 1e-9);
  g_assert_cmpfloat (r.stat.speedup_q1, <, 4.0);
  g_assert_cmpfloat_with_epsilon (r.stat.speedup_q3, 5.0, 1e-9);
  spx_bench_judge (&r, 0);
  g_assert_cmpint (r.stat.noise, ==, SPX_NOISE_SPREAD);
  /* both slowed alike in the same rounds (a burst): every ratio 5 */
  double burst_dense[7], burst_sparse[7];
  for (guint i = 0; i < 7; i++)
    {
      double f = i < 4 ? 2.0 : 1.0;
      burst_dense[i] = dense[i] * f;
      burst_sparse[i] = dense[i] / 5 * f;
    }
  spx_bench_summarise_ratios (&r.stat, burst_dense, burst_sparse, 7);
  g_assert_cmpfloat_with_epsilon (r.stat.speedup, 5.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (r.stat.speedup_q1, 5.0, 1e-9);
  /* no round with both times: no ratio */
  const double none[2] = { 0, 0 };
  spx_bench_summarise_ratios (&r.stat, none, none, 2);
  g_assert_true (isnan (r.stat.speedup));
}

/* A CPU sweep's points carry their spread, and judging is consistent:
 * a point is noisy exactly when its rule says so against the sweep's
 * best dense (efficiency: above 1 even with the point at its third
 * quartile and its dense at its first). */
static void
test_cpu_spread (void)
{
  SpxSweepOptions o;
  spx_sweep_options_init (&o);
  o.run_model = FALSE;
  o.dtype = SPX_DTYPE_FP32; /* tile-wise too */
  o.cpu_m = o.cpu_k = 256;
  o.cpu_n = 32;
  o.n_blocks = 1;
  o.blocks[0] = 8;
  o.n_densities = 2;
  o.reps = 5;
  o.warmup = 1;
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxSweep) sweep = spx_sweep_new ();
  g_assert_true (spx_sweep_run (sweep, &o, NULL, NULL, &error));
  g_assert_cmpuint (sweep->points->len, ==, 2 * 4);
  g_assert_cmpfloat (sweep->best_dense_gflops, >, 0);
  for (guint i = 0; i < sweep->points->len; i++)
    {
      const SpxSweepPoint *p = point (sweep, i);
      g_assert_cmpfloat (p->ms_q1, >, 0);
      g_assert_cmpfloat (p->ms_q1, <=, p->ms);
      g_assert_cmpfloat (p->ms, <=, p->ms_q3);
      if (p->mode == SPX_SWEEP_DENSE)
        continue;
      const SpxSweepPoint *dense = point (sweep, i / 4 * 4);
      g_assert_cmpint (dense->mode, ==, SPX_SWEEP_DENSE);
      double efficiency = p->speedup * o.densities[i / 4];
      double low = p->speedup_q1 * o.densities[i / 4];
      g_assert_cmpfloat (p->speedup_q1, <=, p->speedup);
      g_assert_cmpfloat (p->speedup, <=, p->speedup_q3);
      if (low > SPX_NOISE_MAX_EFFICIENCY + SPX_NOISE_EFFICIENCY_SLACK)
        g_assert_true (p->noise & SPX_NOISE_EFFICIENCY);
      if (efficiency <= 1)
        g_assert_false (p->noise & SPX_NOISE_EFFICIENCY);
      gboolean wide = p->speedup_q3 - p->speedup_q1 >
                      SPX_NOISE_MAX_SPREAD * p->speedup;
      g_assert_true (!wide || (p->noise & SPX_NOISE_SPREAD));
    }
  g_assert_cmpuint (spx_sweep_count_noisy (sweep), <=, sweep->points->len);
  /* fewer than five timed runs cannot give a spread */
  o.reps = 3;
  g_assert_false (spx_sweep_options_validate (&o, &error));
  g_assert_error (error, SPX_SWEEP_ERROR, SPX_SWEEP_ERROR_INVALID);
}

/* Counts the points as they come (NULL: a measurement under way). */
static gboolean
count_points (guint done, guint total, const SpxSweepPoint *p,
              gpointer user_data)
{
  guint *calls = user_data;
  if (p != NULL)
    g_assert_cmpuint (done, ==, ++*calls);
  g_assert_cmpuint (done, <=, total);
  return TRUE;
}

/* Measuring again on one thread replaces exactly the CPU points of the
 * block sizes asked for, in place, each now naming its one thread. */
static void
test_measure_again (void)
{
  SpxSweepOptions o;
  small_model_options (&o); /* blocks 4 and 16, densities 1/4 and 1/8 */
  o.run_cpu = TRUE;
  o.dtype = SPX_DTYPE_FP32;
  o.run_tilewise = FALSE;
  o.cpu_m = o.cpu_k = 128;
  o.cpu_n = 16;
  o.reps = 5;
  o.warmup = 0;
  o.threads = 2;
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxSweep) sweep = spx_sweep_new ();
  g_assert_true (spx_sweep_run (sweep, &o, NULL, NULL, &error));
  guint len = sweep->points->len;
  g_autofree SpxSweepPoint *before = g_memdup2 (sweep->points->data,
                                                len * sizeof *before);
  const guint again[] = { 16 };
  guint calls = 0;
  g_assert_true (spx_sweep_measure_again (sweep, again, 1, 1, count_points,
                                          &calls, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (calls, ==, 2 * 3); /* 2 densities × dense, static, dyn */
  g_assert_cmpuint (sweep->points->len, ==, len);
  guint replaced = 0;
  for (guint i = 0; i < len; i++)
    {
      const SpxSweepPoint *p = point (sweep, i), *q = &before[i];
      g_assert_cmpint (p->source, ==, q->source);
      g_assert_cmpint (p->mode, ==, q->mode);
      g_assert_cmpuint (p->block, ==, q->block);
      g_assert_cmpfloat (p->density, ==, q->density);
      gboolean asked = p->source == SPX_SWEEP_CPU && p->block == 16;
      g_assert_true (g_str_has_suffix (p->machine, asked ? "-1t"
                                       : p->source == SPX_SWEEP_CPU ? "-2t"
                                       : "bow"));
      if (!asked)
        g_assert_true (memcmp (p, q, sizeof *p) == 0);
      replaced += asked;
    }
  g_assert_cmpuint (replaced, ==, 6);
  g_assert_cmpuint (sweep->settings.threads, ==, 2); /* the sweep's own */
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sweep/noise-rule", test_noise_rule);
  g_test_add_func ("/sweep/alternating-ratios", test_alternating_ratios);
  g_test_add_func ("/sweep/cpu/measure-again", test_measure_again);
  g_test_add_func ("/sweep/cpu/spread", test_cpu_spread);
  g_test_add_func ("/sweep/model/points", test_model_points);
  g_test_add_func ("/sweep/model/best-n-and-modes", test_best_n_and_modes);
  g_test_add_func ("/sweep/cpu/points", test_cpu_points);
  g_test_add_func ("/sweep/cpu/tilewise", test_cpu_tilewise);
  g_test_add_func ("/sweep/mode-names", test_mode_names);
  g_test_add_func ("/sweep/invalid", test_invalid);
  g_test_add_func ("/sweep/cancel", test_cancel);
  g_test_add_func ("/sweep/refused-first", test_refused_first);
  g_test_add_func ("/sweep/subject-not-copied", test_subject_not_copied);
  g_test_add_func ("/sweep/csv", test_csv);
  g_test_add_func ("/sweep/json", test_json);
  g_test_add_func ("/sweep/save", test_save);
  g_test_add_func ("/sweep/chart/formats", test_chart_formats);
  g_test_add_func ("/sweep/chart/themes", test_chart_themes);
  g_test_add_func ("/sweep/chart/reference-line", test_chart_reference_line);
  g_test_add_func ("/sweep/chart/error-bars", test_chart_error_bars);
  g_test_add_func ("/sweep/chart/noisy", test_chart_noisy);
  g_test_add_func ("/sweep/chart/noise-note", test_chart_noise_note);
  g_test_add_func ("/sweep/chart/looks", test_chart_looks);
  g_test_add_func ("/sweep/chart/stale", test_chart_stale);
  g_test_add_func ("/sweep/chart/subject", test_chart_subject);
  g_test_add_func ("/sweep/chart/density-ticks", test_chart_density_ticks);
  g_test_add_func ("/sweep/chart/overlay", test_chart_overlay);
  g_test_add_func ("/sweep/chart/ratio-bars", test_chart_ratio_bars);
  g_test_add_func ("/sweep/chart/partial", test_chart_partial);
  return g_test_run ();
}
