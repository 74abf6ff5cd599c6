/* test-render-readable: what the lesson's pictures must let a reader
 * read, from the geometry the renderers compute: every arrow of an
 * Exchange picture has its label, clear of the tiles and of the other
 * labels; every bar of the Timeline is wide enough to read, its axis
 * broken where one program dwarfs the others, and the chart says so. */
#include "spx-ipu.h"
#include "spx-lesson.h"
#include "spx-mask-gen.h"
#include "spx-util.h"
#include "spx-render-exchange.h"
#include "spx-render-timeline.h"
#include "spx-render-views.h"
#include "test-lesson-file.h"

#include <string.h>

/* The static program of a generated teach16 problem. */
static SpxIpuProgram *
teach16_static (guint64 m, guint64 k, guint64 n, double density)
{
  g_autoptr (SpxIpuMachine) mc = spx_ipu_machine_preset ("teach16");
  SpxGenOptions o;
  spx_gen_options_init (&o);
  o.density = density;
  o.seed = 1;
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxMask) mask = spx_mask_generate (m, k, 16, &o, &error);
  g_assert_no_error (error);
  SpxIpuProgram *p = spx_ipu_plan (mc, SPX_IPU_MODE_STATIC, mask, n,
                                   SPX_DTYPE_FP16, &error);
  g_assert_no_error (error);
  return p;
}

static gboolean
overlap (const SpxRenderExchangeLabel *a, double x, double y, double w,
         double h)
{
  return a->x < x + w && x < a->x + a->w && a->y < y + h && y < a->y + a->h;
}

/* Every flow drawn as an arrow in d's picture of w × h has one label,
 * saying its bytes; no label leaves the picture or covers a tile or
 * another label. */
static void
assert_every_arrow_labelled (const SpxRenderExchangeData *d, double w,
                             double h)
{
  gboolean grouped = FALSE;
  g_autoptr (GArray) flows = spx_render_exchange_flows (d, &grouped);
  g_autoptr (GArray) labels = spx_render_exchange_labels (w, h, d);
  g_assert_nonnull (flows);
  g_assert_nonnull (labels);
  guint arrows = 0;
  for (guint i = 0; i < flows->len; i++)
    {
      const SpxRenderExchangeFlow *f = &g_array_index (
        flows, SpxRenderExchangeFlow, i);
      gboolean drawn = f->src != f->dst && (d->selected_tile < 0 ||
                                            f->src == (guint) d->selected_tile
                                            || f->dst ==
                                                 (guint) d->selected_tile);
      guint found = 0;
      g_autofree char *bytes = spx_format_bytes ((double) f->bytes);
      for (guint j = 0; j < labels->len; j++)
        {
          const SpxRenderExchangeLabel *l = &g_array_index (
            labels, SpxRenderExchangeLabel, j);
          if (l->flow != i || l->within)
            continue;
          found++;
          g_assert_true (g_str_has_suffix (l->text, bytes));
        }
      if (found != (drawn ? 1u : 0u))
        g_test_message ("%g × %g: flow %u → %u (%s) has %u labels", w, h,
                        f->src, f->dst, bytes, found);
      g_assert_cmpuint (found, ==, drawn ? 1 : 0);
      arrows += drawn;
    }
  g_assert_cmpuint (arrows, >, 0);
  for (guint j = 0; j < labels->len; j++)
    {
      const SpxRenderExchangeLabel *l = &g_array_index (
        labels, SpxRenderExchangeLabel, j);
      g_assert_cmpfloat (l->x, >=, 0);
      g_assert_cmpfloat (l->y, >=, 0);
      g_assert_cmpfloat (l->x + l->w, <=, w);
      g_assert_cmpfloat (l->y + l->h, <=, h);
      for (guint t = 0; t < d->program->n_tiles; t++)
        {
          double tx, ty, tw, th;
          g_assert_true (spx_render_exchange_tile_box (w, h, d, t, &tx, &ty,
                                                       &tw, &th));
          g_assert_false (overlap (l, tx, ty, tw, th));
        }
      for (guint k = 0; k < j; k++)
        {
          const SpxRenderExchangeLabel *o = &g_array_index (
            labels, SpxRenderExchangeLabel, k);
          g_assert_false (overlap (l, o->x, o->y, o->w, o->h));
        }
    }
}

/* The distribute exchanges of the lesson's problems (128 × 128 at
 * n = 64, where two diagonal and four short arrows between groups had
 * no label; 128 × 512 at n = 16), grouped, at the size the window gives
 * the view beside the lesson on a 1024 × 768 screen and at larger ones,
 * and a selected tile's arrows. */
static void
test_exchange_labels (void)
{
  static const struct { guint64 m, k, n; } problems[] = {
    { 128, 128, 64 }, { 128, 512, 16 },
  };
  static const double sizes[][2] = { { 405, 600 }, { 640, 400 },
                                     { 960, 600 } };
  for (guint i = 0; i < G_N_ELEMENTS (problems); i++)
    {
      g_autoptr (SpxIpuProgram) p = teach16_static (
        problems[i].m, problems[i].k, problems[i].n, 0.25);
      guint first = spx_ipu_program_first_exchange (p);
      for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
        {
          SpxRenderExchangeData d = { p, first, -1, FALSE };
          g_test_message ("%" G_GUINT64_FORMAT " × %" G_GUINT64_FORMAT
                          ", %g × %g", problems[i].m, problems[i].k,
                          sizes[s][0], sizes[s][1]);
          assert_every_arrow_labelled (&d, sizes[s][0], sizes[s][1]);
        }
      /* a tile's own arrows, one per tile it sends to or receives from */
      for (guint t = 0; t < p->n_tiles; t += 5)
        {
          SpxRenderExchangeData sel = { p, first, (gint) t, FALSE };
          assert_every_arrow_labelled (&sel, 405, 600);
        }
    }
}

/* ---- the Timeline ---- */

#define READABLE_PX 48.0 /* a bar narrower than this is a sliver */

/* The shipped lesson's step called title, and a study planned on its
 * scenario. */
static const SpxLessonStep *
lesson_step (SpxLesson **lesson, const char *title, SpxStudy **study)
{
  g_autoptr (GError) error = NULL;
  *lesson = test_shipped_lesson (spx_render_view_names ());
  for (guint i = 0; i < (*lesson)->steps->len; i++)
    {
      const SpxLessonStep *s = g_ptr_array_index ((*lesson)->steps, i);
      if (!g_str_equal (s->title, title))
        continue;
      *study = spx_study_new ();
      spx_study_use_scenario (*study, s->scenario, &error);
      g_assert_no_error (error);
      g_assert_true (spx_study_plan (*study, &error));
      g_assert_no_error (error);
      return s;
    }
  g_assert_not_reached ();
  return NULL;
}

/* The width of programs[lane]'s bar in a picture of w × h. */
static double
bar_width (const SpxRenderTimelineData *d, guint lane, double w, double h)
{
  return spx_render_timeline_cycle_x (w, h, d, d->programs[lane]->cycles) -
         spx_render_timeline_cycle_x (w, h, d, 0);
}

/* "Dense beside both" shows its three programs on one axis, each bar
 * readable: the axis breaks after the shorter two, says so, and keeps
 * them to scale; a point on the longest bar past the break is still its
 * step. */
static void
test_timeline_bars (void)
{
  SpxLesson *lesson = NULL;
  SpxStudy *study = NULL;
  const SpxLessonStep *step = lesson_step (&lesson, "Dense beside both",
                                           &study);
  g_assert_cmpint (step->timeline_fit, ==, SPX_LESSON_FIT_BROKEN);
  SpxRenderTimelineData d = { { NULL }, -1, -1, 0, 0, TRUE };
  guint longest = 0;
  for (guint i = 0; i < SPX_IPU_N_MODES; i++)
    {
      d.programs[i] = study->programs[i];
      if (d.programs[i]->cycles > d.programs[longest]->cycles)
        longest = i;
    }
  static const double sizes[][2] = { { 405, 600 }, { 640, 400 },
                                     { 960, 600 } };
  for (guint k = 0; k < G_N_ELEMENTS (sizes); k++)
    {
      double w = sizes[k][0], h = sizes[k][1];
      d.axis_break = FALSE;
      double least = G_MAXDOUBLE;
      for (guint i = 0; i < SPX_IPU_N_MODES; i++)
        least = MIN (least, bar_width (&d, i, w, h));
      g_test_message ("%g × %g, to scale: narrowest bar %.1f px", w, h,
                      least);
      d.axis_break = TRUE;
      g_autofree char *caption = spx_render_timeline_axis_caption (w, h, &d);
      g_test_message ("%s", caption);
      g_assert_nonnull (strstr (caption, "broken axis"));
      for (guint i = 0; i < SPX_IPU_N_MODES; i++)
        {
          double bw = bar_width (&d, i, w, h);
          g_test_message ("%s: %.1f px", spx_ipu_mode_to_string (i), bw);
          g_assert_cmpfloat (bw, >=, READABLE_PX);
        }
      /* the shorter two to scale with each other */
      guint a = (longest + 1) % 3, b = (longest + 2) % 3;
      double ratio = (double) d.programs[a]->cycles / d.programs[b]->cycles;
      g_assert_cmpfloat_with_epsilon (bar_width (&d, a, w, h) /
                                      bar_width (&d, b, w, h), ratio, 1e-9);
      /* the longest's longest step, squeezed past the break, is still
       * hit at its middle */
      const SpxIpuProgram *p = d.programs[longest];
      guint64 start = 0, at = 0;
      gint most = 0;
      for (guint i = 0; i < p->steps->len; i++)
        {
          const SpxIpuStep *si = &g_array_index (p->steps, SpxIpuStep, i);
          const SpxIpuStep *sm = &g_array_index (p->steps, SpxIpuStep, most);
          if (si->cycles > sm->cycles)
            {
              most = (gint) i;
              at = start;
            }
          start += si->cycles;
        }
      const SpxIpuStep *big = &g_array_index (p->steps, SpxIpuStep, most);
      double x = spx_render_timeline_cycle_x (w, h, &d, (double) at +
                                              big->cycles / 2.0);
      guint64 next = MAX (d.programs[a]->cycles, d.programs[b]->cycles);
      g_assert_cmpfloat (x, >, spx_render_timeline_cycle_x (w, h, &d, next));
      gint hit = -1;
      for (double y = 0; y < h && hit < 0; y++)
        {
          guint lane = G_MAXUINT;
          gint got = spx_render_timeline_hit (w, h, &d, x, y, &lane);
          if (got >= 0 && lane == longest)
            hit = got;
        }
      g_assert_cmpint (hit, ==, most);
    }
  /* zoomed, the axis is to scale whatever the data asks */
  d.zoom_from = 0;
  d.zoom_to = 0.5;
  g_autofree char *zoomed = spx_render_timeline_axis_caption (405, 600, &d);
  g_assert_null (strstr (zoomed, "broken"));
  spx_study_free (study);
  spx_lesson_free (lesson);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/render/readable/exchange-labels", test_exchange_labels);
  g_test_add_func ("/render/readable/timeline-bars", test_timeline_bars);
  return g_test_run ();
}
