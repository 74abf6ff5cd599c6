/* test-render-titles.c: titles wrap onto more lines instead of being
 * cut; the user's title (--title, the style's) replaces a chart's own,
 * and on the command line every view's;
 * an export is the size asked for. */
#include "spx-render-export.h"
#include "spx-render-series.h"
#include "spx-render-speedup.h"
#include "test-run.h"
#include "test-image.h"

#include <glib/gstdio.h>

#include <math.h>
#include <string.h>

static const char long_name[] =
  "body_encoder_layer_0_ffn_conv2_fully_connected_and_then_some.smtx";

static cairo_t *
scratch (void)
{
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 1, 1);
  cairo_t *cr = cairo_create (s);
  cairo_surface_destroy (s);
  return cr;
}

/* The shared measurement: wrapped, a long text takes more lines and is
 * never cut; with max_width alone it is cut to one line (so the
 * measurement can tell). */
static void
test_text_extent (void)
{
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  cairo_t *cr = scratch ();
  SpxTextOpts t = { .size = 1.2, .bold = TRUE, .max_width = 200 };
  SpxTextExtent cut, wrapped, wide;
  spx_render_text_extent (cr, &style, &t, long_name, &cut);
  g_assert_cmpuint (cut.lines, ==, 1);
  g_assert_true (cut.ellipsized);
  t.wrap = TRUE;
  spx_render_text_extent (cr, &style, &t, long_name, &wrapped);
  g_assert_cmpuint (wrapped.lines, >, 1);
  g_assert_false (wrapped.ellipsized);
  g_assert_cmpfloat (wrapped.width, <=, 200);
  g_assert_cmpfloat (wrapped.height, >, 1.5 * cut.height);
  g_assert_cmpfloat (spx_render_title_height (cr, &style, &t, 200,
                                              long_name), ==,
                     wrapped.height);
  t.max_width = 2000;
  spx_render_text_extent (cr, &style, &t, long_name, &wide);
  g_assert_cmpuint (wide.lines, ==, 1);
  g_assert_false (wide.ellipsized);
  cairo_destroy (cr);
}

/* A subject's sweep of two model points, its mask (which it owns, as
 * its name) named name. */
static SpxSweep *
subject_sweep (const char *name)
{
  g_autoptr (GError) error = NULL;
  SpxSweep *sweep = spx_sweep_new ();
  sweep->settings.subject = spx_mask_new (64, 64, 1, &error);
  g_assert_no_error (error);
  sweep->settings.subject_name = g_strdup (name);
  sweep->settings.run_cpu = FALSE;
  for (guint b = 1; b <= 2; b++)
    {
      SpxSweepPoint p = { .source = SPX_SWEEP_MODEL,
                          .mode = SPX_SWEEP_STATIC, .block = b,
                          .density = 0.5, .m = 64, .k = 64, .n = 64,
                          .ms = 1, .nz_throughput = 1, .speedup = 2.0 / b,
                          .fits = TRUE };
      g_strlcpy (p.machine, "bow", sizeof p.machine);
      g_array_append_val (sweep->points, p);
    }
  return sweep;
}

/* The chart's own title, a file's long name, wraps in a narrow picture
 * and keeps every character; it is one line in a wide one. */
static void
test_speedup_title_wraps (void)
{
  g_autoptr (SpxSweep) sweep = subject_sweep (long_name);
  SpxRenderSpeedupData d = { .sweep = sweep };
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  cairo_t *cr = scratch ();
  SpxTextExtent narrow, wide;
  g_autofree char *title = spx_render_speedup_title (cr, 500, &d, &style,
                                                     &narrow);
  g_assert_true (g_str_has_prefix (title, long_name));
  g_assert_nonnull (strstr (title, "speedup over dense by block size"));
  g_assert_null (strstr (title, "…"));
  g_assert_cmpuint (narrow.lines, >, 1);
  g_assert_false (narrow.ellipsized);
  g_autofree char *same = spx_render_speedup_title (cr, 3000, &d, &style,
                                                    &wide);
  g_assert_cmpstr (same, ==, title);
  g_assert_cmpuint (wide.lines, ==, 1);
  /* the plot starts below every line of it */
  SpxSpeedupAxes ax_narrow, ax_wide;
  g_assert_true (spx_render_speedup_axes (cr, 500, 400, &d, &style,
                                          &ax_narrow));
  g_assert_true (spx_render_speedup_axes (cr, 3000, 400, &d, &style,
                                          &ax_wide));
  g_assert_cmpfloat (ax_narrow.y - ax_wide.y, >=,
                     narrow.height - wide.height - 1);
  cairo_destroy (cr);
}

static cairo_surface_t *
draw (const SpxRenderSpeedupData *d, const SpxRenderStyle *style)
{
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 640,
                                                   400);
  cairo_t *cr = cairo_create (s);
  spx_render_speedup (cr, 640, 400, d, style);
  cairo_destroy (cr);
  cairo_surface_flush (s);
  return s;
}

/* The style's title replaces the chart's own (and the caller's); empty
 * is the chart's own, drawn pixel for pixel the same. */
static void
test_user_title (void)
{
  g_autoptr (SpxSweep) sweep = subject_sweep ("attention_q.smtx");
  SpxRenderSpeedupData d = { .sweep = sweep, .title = "The caller's" };
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  cairo_t *cr = scratch ();
  g_autofree char *own = spx_render_speedup_title (cr, 640, &d, &style,
                                                   NULL);
  g_assert_cmpstr (own, ==, "The caller's");
  d.title = NULL;
  g_autofree char *from_sweep = spx_render_speedup_title (cr, 640, &d,
                                                          &style, NULL);
  g_assert_true (g_str_has_prefix (from_sweep, "attention_q.smtx ("));
  cairo_surface_t *plain = draw (&d, &style);
  style.title = "";
  cairo_surface_t *empty = draw (&d, &style);
  style.title = "Figure 3: attention, by block size";
  g_autofree char *set = spx_render_speedup_title (cr, 640, &d, &style,
                                                   NULL);
  g_assert_cmpstr (set, ==, "Figure 3: attention, by block size");
  cairo_surface_t *titled = draw (&d, &style);
  SpxSpeedupAxes ax;
  g_assert_true (spx_render_speedup_axes (cr, 640, 400, &d, &style, &ax));
  g_assert_cmpuint (test_rows_differing (plain, empty, 400), ==, 0);
  g_assert_cmpuint (test_rows_differing (plain, titled, (int) ax.y), >, 5);
  cairo_surface_destroy (plain);
  cairo_surface_destroy (empty);
  cairo_surface_destroy (titled);
  cairo_destroy (cr);
}

/* A PNG's width and height, from its header. */
static void
png_size (GBytes *png, guint *width, guint *height)
{
  gsize len;
  const guchar *p = g_bytes_get_data (png, &len);
  g_assert_cmpuint (len, >, 24);
  g_assert_cmpmem (p + 12, 4, "IHDR", 4);
  *width = (guint) p[16] << 24 | (guint) p[17] << 16 | p[18] << 8 | p[19];
  *height = (guint) p[20] << 24 | (guint) p[21] << 16 | p[22] << 8 | p[23];
}

/* The export is the size asked for, scaled for PNG. */
static void
test_export_size (void)
{
  g_autoptr (SpxSweep) sweep = subject_sweep (long_name);
  SpxRenderSpeedupData d = { .sweep = sweep };
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  g_autoptr (GError) error = NULL;
  static const double sizes[][3] = { { 1600, 1000, 1 }, { 715, 474, 2 } };
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      g_autoptr (GBytes) png = spx_render_export_bytes (
        SPX_EXPORT_PNG, sizes[i][0], sizes[i][1], sizes[i][2],
        spx_render_speedup, &d, &style, &error);
      g_assert_no_error (error);
      guint w, h;
      png_size (png, &w, &h);
      g_assert_cmpuint (w, ==, (guint) (sizes[i][0] * sizes[i][2]));
      g_assert_cmpuint (h, ==, (guint) (sizes[i][1] * sizes[i][2]));
    }
}

/* The views render draws besides the speedup chart. */
static const char *const drawn_views[] = { "mask", "tiles", "exchange",
                                           "timeline" };

/* The command args (NULL-terminated) run with --out and no --title,
 * --title "" and --title "My figure": each status 0; the empty title
 * is the picture's own byte for byte, the set one differs. */
static void
assert_titled (const char *dir, const char *const *args)
{
  const char *titles[] = { NULL, "", "My figure" };
  char *bytes[3] = { NULL };
  gsize len[3];
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *out = g_strdup_printf ("%s/picture%u.png", dir, i);
      g_autoptr (GPtrArray) argv = g_ptr_array_new ();
      g_ptr_array_add (argv, (gpointer) test_binary ());
      for (guint a = 0; args[a] != NULL; a++)
        g_ptr_array_add (argv, (gpointer) args[a]);
      g_ptr_array_add (argv, "--out");
      g_ptr_array_add (argv, out);
      if (titles[i] != NULL)
        {
          g_ptr_array_add (argv, "--title");
          g_ptr_array_add (argv, (gpointer) titles[i]);
        }
      g_ptr_array_add (argv, NULL);
      int status;
      g_free (test_run ((const char *const *) argv->pdata, NULL, &status,
                        NULL));
      g_assert_cmpint (status, ==, 0);
      g_assert_true (g_file_get_contents (out, &bytes[i], &len[i], NULL));
      g_unlink (out);
    }
  g_assert_cmpmem (bytes[0], len[0], bytes[1], len[1]);
  g_assert_false (len[0] == len[2] && memcmp (bytes[0], bytes[2],
                                              len[0]) == 0);
  for (guint i = 0; i < 3; i++)
    g_free (bytes[i]);
}

/* The command's chart and every view render draws: --title changes the
 * title band, --title "" is the picture's own byte for byte. */
static void
test_cli_title (void)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-titles-XXXXXX", NULL);
  g_autofree char *mask = g_test_build_filename (G_TEST_DIST, "data",
                                                 "small.smtx", NULL);
  const char *sweep[] = { "sweep", "--mask", mask, "--source", "model",
                          "--blocks", "1,2", NULL };
  assert_titled (dir, sweep);
  for (guint v = 0; v < G_N_ELEMENTS (drawn_views); v++)
    {
      const char *render[] = { "render", "--view", drawn_views[v], "--mask",
                               mask, "--block", "1", "--machine",
                               "teach16", "--n", "16",
                               NULL };
      assert_titled (dir, render);
    }
  g_rmdir (dir);
}

/* Every two rows of the series' table differ in dash and in marker, so
 * a chart pairing one row's dash with another's marker (the speedup
 * chart: dash by block size, marker by source and mode) still tells
 * every series apart in grey; row 0 is solid; every marker is a closed
 * shape about its centre. */
static void
test_series_styles (void)
{
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_A8, 40, 40);
  cairo_t *cr = cairo_create (s);
  g_assert_cmpuint (spx_series_style (0)->n_dash, ==, 0);
  for (guint i = 0; i < SPX_N_SERIES_STYLES; i++)
    {
      const SpxSeriesStyle *a = spx_series_style (i);
      g_assert_true (spx_series_style (i + SPX_N_SERIES_STYLES) == a);
      for (guint j = i + 1; j < SPX_N_SERIES_STYLES; j++)
        {
          const SpxSeriesStyle *b = spx_series_style (j);
          g_assert_cmpint (a->marker, !=, b->marker);
          g_assert_false (a->n_dash == b->n_dash &&
                          memcmp (a->dash, b->dash,
                                  a->n_dash * sizeof a->dash[0]) == 0);
        }
      cairo_new_path (cr);
      spx_render_marker_path (cr, a->marker, 20, 20, 4);
      double x0, y0, x1, y1;
      cairo_fill_extents (cr, &x0, &y0, &x1, &y1);
      g_assert_cmpfloat (x1 - x0, >, 5);
      g_assert_cmpfloat (y1 - y0, >, 5);
      g_assert_cmpfloat (fabs ((x0 + x1) / 2 - 20), <, 1);
      g_assert_cmpfloat (x1 - x0, <, 14);
      g_assert_true (cairo_in_fill (cr, 20, 20));
    }
  cairo_destroy (cr);
  cairo_surface_destroy (s);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/render/title/extent", test_text_extent);
  g_test_add_func ("/render/title/speedup-wraps", test_speedup_title_wraps);
  g_test_add_func ("/render/title/user", test_user_title);
  g_test_add_func ("/render/title/export-size", test_export_size);
  g_test_add_func ("/render/title/cli", test_cli_title);
  g_test_add_func ("/render/series/styles", test_series_styles);
  return g_test_run ();
}
