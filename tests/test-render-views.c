/* test-render-views.c: the table of views: each row whole and named once,
 * its data made from what is shown (and made again only when what it
 * shows changed), its picture drawn, its hit test and hover text agreeing
 * with the picture, and the lesson's view names among the table's */
#include "spx-lesson.h"
#include "spx-render-views.h"
#include "spx-study.h"
#include "spx-util.h"

#include <string.h>

#define W 640
#define H 400

static SpxStudy *study;

/* teach16, 64 × 64, blocks of 8: planned, and a model sweep of it. */
static void
make_study (void)
{
  g_autoptr (GError) error = NULL;
  study = spx_study_new ();
  g_assert_true (spx_study_set_machine (study, "teach16", &error));
  SpxScenario *sc = study->scenario;
  sc->m = sc->k = 64;
  sc->n = 32;
  sc->block = 8;
  sc->gen.density = 0.25;
  g_assert_true (spx_study_build_mask (study, &error));
  g_assert_true (spx_study_plan (study, &error));
  g_assert_no_error (error);
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
  int status = g_test_run ();
  spx_study_free (study);
  return status;
}
