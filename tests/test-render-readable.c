/* test-render-readable: what the lesson's pictures must let a reader
 * read, from the geometry the renderers compute: every arrow of an
 * Exchange picture has its label, clear of the tiles and of the other
 * labels. */
#include "spx-ipu.h"
#include "spx-mask-gen.h"
#include "spx-util.h"
#include "spx-render-exchange.h"

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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/render/readable/exchange-labels", test_exchange_labels);
  return g_test_run ();
}
