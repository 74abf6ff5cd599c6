/* test-render-views.c: the table of views: each row whole and named once,
 * its data made from what is shown (and made again only when what it
 * shows changed), its picture drawn, its hit test and hover text agreeing
 * with the picture, and the lesson's view names among the table's */
#include "spx-lesson.h"
#include "spx-render-views.h"
#include "spx-study.h"
#include "spx-util.h"
#include "test-small-study.h"

#include <math.h>
#include <string.h>

#define W 640
#define H 400

static SpxStudy *study;

/* teach16, 64 × 64, blocks of 8: planned, and a model sweep of it. */
static void
make_study (void)
{
  g_autoptr (GError) error = NULL;
  study = test_small_study ();
  SpxSweepOptions o;
  spx_study_sweep_options (study, &o);
  o.run_cpu = FALSE;
  g_assert_true (spx_sweep_run (study->sweep, &o, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (study->sweep->points->len, >, 0);
}

static SpxRenderViewState
state_of (SpxStudy *s)
{
  return (SpxRenderViewState) {
    .mask = s->scenario->mask, .programs = s->programs,
    .mode = SPX_IPU_MODE_STATIC, .tile = -1, .step = -1, .lane = -1,
    .superstep = spx_ipu_program_first_exchange (
      s->programs[SPX_IPU_MODE_STATIC]),
    .sweep = s->sweep, .density = 0.25 };
}

/* Every row is whole; names are lower-case words, each once, found. */
static void
test_rows (void)
{
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  const char *const *names = spx_render_view_names ();
  for (guint i = 0; i < SPX_RENDER_N_VIEWS; i++)
    {
      const SpxRenderView *v = spx_render_views[i];
      g_assert_nonnull (v->name);
      g_assert_true (g_regex_match_simple ("^[a-z]+$", v->name, 0, 0));
      g_assert_true (g_hash_table_add (seen, (gpointer) v->name));
      g_assert_true (g_hash_table_add (seen, (gpointer) v->title));
      g_assert_cmpuint (strlen (v->title), >, 0);
      g_assert_true (v->fill != NULL && v->draw != NULL);
      g_assert_cmpuint (v->data_size, >, 0);
      g_assert_cmpuint (v->needs, !=, 0);
      g_assert_true (spx_render_view_find (v->name) == v);
      g_assert_cmpstr (names[i], ==, v->name);
      for (guint m = 0; v->metrics && v->metrics[m]; m++)
        g_assert_true (g_regex_match_simple ("^[a-z]+$", v->metrics[m], 0,
                                             0));
    }
  g_assert_null (names[SPX_RENDER_N_VIEWS]);
  g_assert_null (spx_render_view_find ("Mask"));
  g_assert_null (spx_render_view_find (""));
  g_assert_null (spx_render_view_find (NULL));
  g_autofree char *words = spx_render_view_words ();
  g_autofree char *joined = spx_join_choices (names, -1);
  g_assert_cmpstr (words, ==, joined);
  g_assert_nonnull (strstr (words, " or "));
}

/* Each field of the state reaches exactly the views that show it: a fill
 * after a change says TRUE for those, FALSE for the rest. */
static void
test_fill (void)
{
  /* what changes (on top of the changes before), and the views that
   * show it */
  static const struct { const char *what, *views; } changes[] = {
    { "tile", "mask tiles exchange" },
    { "superstep", "exchange" },
    { "step", "timeline" },
    { "metric", "tiles exchange speedup" },
    { "sweep", "speedup" },
    { "mode", "mask tiles exchange" },
    { "nothing", "" },
  };
  SpxRenderViewState st = state_of (study);
  gpointer data[SPX_RENDER_N_VIEWS];
  for (guint i = 0; i < SPX_RENDER_N_VIEWS; i++)
    {
      data[i] = g_malloc0 (spx_render_views[i]->data_size);
      g_assert_true (spx_render_view_fill (spx_render_views[i], &st,
                                           data[i]));
      g_assert_false (spx_render_view_fill (spx_render_views[i], &st,
                                            data[i]));
    }
  g_autoptr (SpxSweep) other = spx_sweep_new ();
  for (guint c = 0; c < G_N_ELEMENTS (changes); c++)
    {
      const char *what = changes[c].what;
      if (g_str_equal (what, "tile"))
        st.tile = 3;
      else if (g_str_equal (what, "superstep"))
        st.superstep += 1;
      else if (g_str_equal (what, "step"))
        st.step = 1, st.lane = SPX_IPU_MODE_DENSE;
      else if (g_str_equal (what, "metric"))
        st.metric = 1;
      else if (g_str_equal (what, "sweep"))
        st.sweep = other;
      else if (g_str_equal (what, "mode"))
        st.mode = SPX_IPU_MODE_DENSE;
      g_auto (GStrv) shows = g_strsplit (changes[c].views, " ", -1);
      for (guint i = 0; i < SPX_RENDER_N_VIEWS; i++)
        {
          const SpxRenderView *v = spx_render_views[i];
          gboolean expect = g_strv_contains ((const char *const *) shows,
                                             v->name);
          if (spx_render_view_fill (v, &st, data[i]) != expect)
            g_error ("%s: %s %s", what, v->name,
                     expect ? "not made again" : "made again");
        }
    }
  for (guint i = 0; i < SPX_RENDER_N_VIEWS; i++)
    g_free (data[i]);
}

/* The picture of view v from st, as ARGB pixels. */
static cairo_surface_t *
picture (const SpxRenderView *v, const SpxRenderViewState *st,
         gpointer data)
{
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  spx_render_view_fill (v, st, data);
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, W,
                                                   H);
  cairo_t *cr = cairo_create (s);
  v->draw (cr, W, H, data, &style);
  cairo_destroy (cr);
  cairo_surface_flush (s);
  return s;
}

/* How many pixels differ from the background. */
static guint
drawn_pixels (cairo_surface_t *s)
{
  const guint32 *px = (const guint32 *) cairo_image_surface_get_data (s);
  int stride = cairo_image_surface_get_stride (s) / 4;
  guint n = 0;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      n += px[y * stride + x] != px[0];
  return n;
}

/* Every view draws something of the study; a hit names something that
 * is there, its hover text says something, and a miss is all -1. */
static void
test_draw_hit_describe (void)
{
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  SpxRenderViewState st = state_of (study);
  const SpxIpuProgram *p = study->programs[st.mode];
  for (guint i = 0; i < SPX_RENDER_N_VIEWS; i++)
    {
      const SpxRenderView *v = spx_render_views[i];
      g_autofree gpointer data = g_malloc0 (v->data_size);
      cairo_surface_t *s = picture (v, &st, data);
      g_test_message ("%s: %u pixels drawn", v->name, drawn_pixels (s));
      g_assert_cmpuint (drawn_pixels (s), >, W * H / 100);
      cairo_surface_destroy (s);

      SpxRenderViewHit hit;
      g_assert_false (spx_render_view_hit (v, W, H, data, &style, -5, -5,
                                           &hit));
      g_assert_true (hit.tile == -1 && hit.step == -1 && hit.lane == -1 &&
                     hit.point == -1 && hit.block_row == -1 &&
                     hit.block_col == -1);
      g_assert_null (spx_render_view_describe (v, W, H, data, &style, -5,
                                               -5));
      guint hits = 0, told = 0;
      for (int y = 1; y < H; y += 6)
        for (int x = 1; x < W; x += 6)
          {
            if (!spx_render_view_hit (v, W, H, data, &style, x, y, &hit))
              continue;
            hits++;
            g_assert_true (hit.tile < (gint) p->n_tiles);
            g_assert_true (hit.lane < SPX_IPU_N_MODES);
            g_assert_true (hit.step < 0 ||
                           (hit.lane >= 0 && (guint) hit.step <
                            study->programs[hit.lane]->steps->len));
            g_assert_true (hit.point < (gint) study->sweep->points->len);
            g_assert_true (hit.block_row < (gint64) st.mask->brows &&
                           hit.block_col < (gint64) st.mask->bcols);
            if (hits > 50) /* enough to be sure (the chart's is slow) */
              continue;
            g_autofree char *text = spx_render_view_describe (v, W, H, data,
                                                              &style, x, y);
            told += text != NULL && *text != '\0';
          }
      g_test_message ("%s: %u hits, %u told", v->name, hits, told);
      g_assert_cmpuint (hits, >, 0);
      if (v->describe != NULL)
        g_assert_cmpuint (told, >, 0);
    }
}

/* The lesson shipped names only views of the table. */
static void
test_lesson (void)
{
  g_autofree char *path = g_test_build_filename (
    G_TEST_DIST, "..", "data", "lesson", "ipu-model.lesson", NULL);
  g_autofree char *text = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (path, &text, &len, NULL));
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxLesson) lesson = spx_lesson_load_data (
    "ipu-model.lesson", text, len, spx_render_view_names (), &error);
  g_assert_no_error (error);
  for (guint i = 0; i < lesson->steps->len; i++)
    {
      const SpxLessonStep *s = g_ptr_array_index (lesson->steps, i);
      g_assert_nonnull (spx_render_view_find (s->view));
    }
  /* and one the table lacks is refused: its first view renamed */
  const char *view = strstr (text, "\nview=");
  g_assert_nonnull (view);
  g_autofree char *bad = g_strdup_printf (
    "%.*s\nview=layers%s", (int) (view - text), text,
    strchr (view + 1, '\n'));
  g_autoptr (SpxLesson) none = spx_lesson_load_data (
    "bad.lesson", bad, strlen (bad), spx_render_view_names (), &error);
  g_assert_null (none);
  g_assert_error (error, SPX_SCENARIO_ERROR, SPX_SCENARIO_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "view: expected one of the "
                                            "window's views"));
}

/* ---- the looks of a mark and the export's words -------------------- */

typedef void (*LookFunc) (cairo_t *, const SpxRenderStyle *, SpxRgb);

/* A 16 × 16 square at (12, 12) in a 40 × 40 picture of the background,
 * drawn with look in the style's first series colour. */
static cairo_surface_t *
draw_look (LookFunc look, const SpxRenderStyle *style)
{
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 40,
                                                   40);
  cairo_t *cr = cairo_create (s);
  spx_render_clear (cr, style, 40, 40);
  cairo_rectangle (cr, 12, 12, 16, 16);
  look (cr, style, style->series[0]);
  g_assert_false (cairo_has_current_point (cr)); /* the path used up */
  cairo_destroy (cr);
  cairo_surface_flush (s);
  return s;
}

static SpxRgb
pixel_at (cairo_surface_t *s, int x, int y)
{
  const guchar *row = cairo_image_surface_get_data (s) +
                      y * cairo_image_surface_get_stride (s);
  guint32 px = ((const guint32 *) row)[x];
  return (SpxRgb) { ((px >> 16) & 0xff) / 255.0, ((px >> 8) & 0xff) / 255.0,
                    (px & 0xff) / 255.0 };
}

static gboolean
near (SpxRgb a, SpxRgb b, double tolerance)
{
  return fabs (a.r - b.r) <= tolerance && fabs (a.g - b.g) <= tolerance &&
         fabs (a.b - b.b) <= tolerance;
}

/* How many times the colour changes along row y from x0 to x1. */
static guint
changes (cairo_surface_t *s, int y, int x0, int x1)
{
  guint n = 0;
  for (int x = x0 + 1; x < x1; x++)
    n += !near (pixel_at (s, x, y), pixel_at (s, x - 1, y), 0.05);
  return n;
}

/* Each look as spx-render-style.h says, in both themes: plain filled;
 * noisy the panel inside; over memory filled, with the arms of an alert
 * cross beyond the square; keep dense striped. */
static void
test_looks (void)
{
  for (SpxTheme t = SPX_THEME_LIGHT; t <= SPX_THEME_DARK; t++)
    {
      SpxRenderStyle st;
      spx_render_style_init (&st, t);
      cairo_surface_t *plain = draw_look (spx_render_look_plain, &st);
      cairo_surface_t *noisy = draw_look (spx_render_look_noisy, &st);
      cairo_surface_t *over = draw_look (spx_render_look_over_memory, &st);
      cairo_surface_t *dense = draw_look (spx_render_look_keep_dense, &st);
      /* inside, off the diagonals */
      g_assert_true (near (pixel_at (plain, 20, 15), st.series[0], 0.02));
      g_assert_true (near (pixel_at (noisy, 20, 15), st.panel, 0.02));
      g_assert_true (near (pixel_at (over, 20, 15), st.series[0], 0.02));
      /* the cross under the fill, its arms outside the square */
      g_assert_true (near (pixel_at (over, 20, 20), st.series[0], 0.02));
      g_assert_true (near (pixel_at (over, 10, 10), st.alert, 0.1));
      g_assert_true (near (pixel_at (over, 29, 10), st.alert, 0.1));
      g_assert_true (near (pixel_at (noisy, 10, 10), st.background, 0.02));
      g_assert_true (near (pixel_at (plain, 10, 10), st.background, 0.02));
      /* stripes across the hatched square, none across the others */
      g_assert_cmpuint (changes (dense, 20, 14, 26), >=, 4);
      g_assert_cmpuint (changes (noisy, 20, 14, 26), ==, 0);
      g_assert_cmpuint (changes (plain, 20, 14, 26), ==, 0);
      cairo_surface_destroy (plain);
      cairo_surface_destroy (noisy);
      cairo_surface_destroy (over);
      cairo_surface_destroy (dense);
    }
}

/* The export's words: a theme (shown stands for the view's), and a size
 * "WxH" in range. */
static void
test_export_words (void)
{
  for (SpxTheme shown = SPX_THEME_LIGHT; shown <= SPX_THEME_DARK; shown++)
    {
      g_assert_cmpint (spx_export_theme_resolve (SPX_EXPORT_THEME_SHOWN,
                                                 shown), ==, shown);
      g_assert_cmpint (spx_export_theme_resolve (SPX_EXPORT_THEME_LIGHT,
                                                 shown), ==, SPX_THEME_LIGHT);
      g_assert_cmpint (spx_export_theme_resolve (SPX_EXPORT_THEME_DARK,
                                                 shown), ==, SPX_THEME_DARK);
    }
  guint w = 0, h = 0;
  g_assert_true (spx_export_size_from_string ("1200x750", 64, 16384, &w, &h,
                                              NULL));
  g_assert_cmpuint (w, ==, 1200);
  g_assert_cmpuint (h, ==, 750);
  g_assert_true (spx_export_size_from_string ("640×400", 64, 16384, &w, &h,
                                              NULL));
  g_assert_cmpuint (w, ==, 640);
  g_assert_cmpuint (h, ==, 400);
  const char *bad[] = { "", "1200", "1200x", "x750", "1200x750x2", "12x750",
                        "1200x99999", "-5x750", "1200 x 750", "axb" };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_assert_false (spx_export_size_from_string (bad[i], 64, 16384, &w, &h,
                                                   &error));
      g_assert_error (error, SPX_RENDER_ERROR, SPX_RENDER_ERROR_INVALID);
      g_assert_nonnull (strstr (error->message, bad[i]));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  make_study ();
  g_test_add_func ("/render/views/rows", test_rows);
  g_test_add_func ("/render/views/fill", test_fill);
  g_test_add_func ("/render/views/draw-hit-describe",
                   test_draw_hit_describe);
  g_test_add_func ("/render/views/lesson", test_lesson);
  g_test_add_func ("/render/style/looks", test_looks);
  g_test_add_func ("/render/export/words", test_export_words);
  int status = g_test_run ();
  spx_study_free (study);
  return status;
}
