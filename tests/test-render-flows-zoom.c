/* test-render-flows-zoom.c: a crowded exchange drawn as flows between
 * groups of tiles (the bytes of every transfer kept, the threshold, every
 * arrow on demand, the hover), and the Timeline's zoom (cycles to x at a
 * zoom, zooming about a point, fitting a program, reset). */
#include "spx-ipu.h"
#include "spx-mask-gen.h"
#include "spx-util.h"
#include "spx-render-exchange.h"
#include "spx-render-timeline.h"

#include <math.h>
#include <string.h>

#define W 640.0
#define H 400.0

/* ---- fixtures ---- */

/* teach16 (4 × 4), one exchange between the first n_pairs of all tile
 * pairs (src ≠ dst, in order), each pair's bytes its own, some pairs
 * sent as two transfers. */
static SpxIpuProgram *
pairs_exchange (guint n_pairs)
{
  g_autoptr (SpxIpuMachine) m = spx_ipu_machine_preset ("teach16");
  SpxIpuProgram *p = spx_ipu_program_new (SPX_IPU_MODE_STATIC, m, 64, 64, 16,
                                          16, SPX_DTYPE_FP16, 0.25);
  SpxIpuStep *s = spx_ipu_program_add_exchange (p, "distribute");
  guint n = 0;
  for (guint a = 0; a < 16 && n < n_pairs; a++)
    for (guint b = 0; b < 16 && n < n_pairs; b++)
      {
        if (a == b)
          continue;
        spx_ipu_step_send (p, s, a, b, 64 * (a + 1) + 8 * b);
        if ((a + b) % 3 == 0)
          spx_ipu_step_send (p, s, a, b, 32);
        n++;
      }
  spx_ipu_program_finish (p);
  return p;
}

/* The lesson's first problem on a machine (its static plan). */
static SpxIpuProgram *
lesson_plan (SpxIpuMachine *m, SpxIpuMode mode)
{
  SpxGenOptions o;
  spx_gen_options_init (&o);
  o.density = 0.25;
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxMask) mask = spx_mask_generate (128, 128, 16, &o, &error);
  g_assert_no_error (error);
  SpxIpuProgram *p = spx_ipu_plan (m, mode, mask, 64, SPX_DTYPE_FP16,
                                   &error);
  g_assert_no_error (error);
  return p;
}

static const SpxIpuStep *
step_of (const SpxIpuProgram *p, guint i)
{
  return &g_array_index (p->steps, SpxIpuStep, i);
}

/* teach16's groups, worked out here from the grid: 2 × 2 blocks of its
 * 4 × 4 tiles, numbered across then down. */
static guint
teach16_group (guint t)
{
  return (t / 4) / 2 * 2 + (t % 4) / 2;
}

/* Distinct (src, dst) pairs of a step's transfers. */
static guint
distinct_pairs (const SpxIpuStep *s)
{
  g_autoptr (GHashTable) seen = g_hash_table_new (g_direct_hash,
                                                  g_direct_equal);
  for (guint i = 0; i < s->transfers->len; i++)
    {
      const SpxIpuTransfer *t = &g_array_index (s->transfers,
                                                SpxIpuTransfer, i);
      g_hash_table_add (seen, GUINT_TO_POINTER (t->src * 4096 + t->dst + 1));
    }
  return g_hash_table_size (seen);
}

static guint64
transfer_bytes (const SpxIpuStep *s)
{
  guint64 sum = 0;
  for (guint i = 0; i < s->transfers->len; i++)
    sum += g_array_index (s->transfers, SpxIpuTransfer, i).bytes;
  return sum;
}

/* ---- exchange ---- */

/* Every group-to-group flow (within a group too) carries exactly the
 * bytes of the transfers between those groups, over as many tile
 * pairs; together they carry every byte of the step. */
static void
test_grouped_conserves (void)
{
  g_autoptr (SpxIpuProgram) p = pairs_exchange (240);
  const SpxIpuStep *s = step_of (p, 0);
  SpxRenderExchangeData d = { p, 0, -1, FALSE };
  gboolean grouped = FALSE;
  g_autoptr (GArray) flows = spx_render_exchange_flows (&d, &grouped);
  g_assert_nonnull (flows);
  g_assert_true (grouped);
  g_assert_cmpuint (flows->len, ==, 16); /* 4 groups, each to each */
  guint64 sum = 0;
  guint pairs = 0;
  for (guint i = 0; i < flows->len; i++)
    {
      const SpxRenderExchangeFlow *f = &g_array_index (
        flows, SpxRenderExchangeFlow, i);
      guint64 want = 0;
      g_autoptr (GHashTable) seen = g_hash_table_new (g_direct_hash,
                                                      g_direct_equal);
      for (guint k = 0; k < s->transfers->len; k++)
        {
          const SpxIpuTransfer *t = &g_array_index (s->transfers,
                                                    SpxIpuTransfer, k);
          if (teach16_group (t->src) != f->src ||
              teach16_group (t->dst) != f->dst)
            continue;
          want += t->bytes;
          g_hash_table_add (seen, GUINT_TO_POINTER (t->src * 64 + t->dst + 1));
        }
      g_assert_cmpuint (f->bytes, ==, want);
      g_assert_cmpuint (f->pairs, ==, g_hash_table_size (seen));
      sum += f->bytes;
      pairs += f->pairs;
    }
  g_assert_cmpuint (sum, ==, transfer_bytes (s));
  g_assert_cmpuint (pairs, ==, 240);
  for (guint t = 0; t < 16; t++)
    g_assert_cmpuint (spx_render_exchange_group (p, t), ==, teach16_group (t));
}

/* The same on real plans: the lesson's problem on teach16 and on a
 * 32-tile machine (8 × 4), every crowded exchange. */
static void
test_grouped_plans (void)
{
  g_autoptr (SpxIpuMachine) m16 = spx_ipu_machine_preset ("teach16");
  g_autoptr (SpxIpuMachine) m32 = spx_ipu_machine_preset ("teach16");
  m32->tiles = 32;
  m32->grid_width = 8;
  SpxIpuMachine *machines[] = { m16, m32 };
  guint crowded = 0;
  for (guint k = 0; k < G_N_ELEMENTS (machines); k++)
    for (guint mode = SPX_IPU_MODE_STATIC; mode < SPX_IPU_N_MODES; mode++)
      {
        g_autoptr (SpxIpuProgram) p = lesson_plan (machines[k], mode);
        for (guint i = 0; i < p->steps->len; i++)
          {
            const SpxIpuStep *s = step_of (p, i);
            if (s->kind != SPX_STEP_EXCHANGE)
              continue;
            SpxRenderExchangeData d = { p, i, -1, FALSE };
            gboolean grouped;
            g_autoptr (GArray) flows = spx_render_exchange_flows (&d,
                                                                  &grouped);
            guint n = distinct_pairs (s);
            g_assert_cmpint (grouped, ==,
                             n > SPX_RENDER_EXCHANGE_MAX_ARROWS);
            crowded += grouped;
            guint64 sum = 0;
            guint pairs = 0;
            for (guint f = 0; f < flows->len; f++)
              {
                sum += g_array_index (flows, SpxRenderExchangeFlow, f).bytes;
                pairs += g_array_index (flows, SpxRenderExchangeFlow, f).pairs;
              }
            g_assert_cmpuint (sum, ==, transfer_bytes (s));
            g_assert_cmpuint (pairs, ==, n);
            g_assert_cmpuint (flows->len, <=, grouped ? 16 : n);
          }
      }
  g_assert_cmpuint (crowded, >=, 2); /* the hairballs */
}

/* Up to SPX_RENDER_EXCHANGE_MAX_ARROWS pairs: an arrow per pair; one
 * more: groups. A selected tile shows its own pairs. */
static void
test_threshold (void)
{
  g_autoptr (SpxIpuProgram) few = pairs_exchange (
    SPX_RENDER_EXCHANGE_MAX_ARROWS);
  g_autoptr (SpxIpuProgram) many = pairs_exchange (
    SPX_RENDER_EXCHANGE_MAX_ARROWS + 1);
  SpxRenderExchangeData a = { few, 0, -1, FALSE }, b = { many, 0, -1, FALSE };
  gboolean grouped = TRUE;
  g_autoptr (GArray) fa = spx_render_exchange_flows (&a, &grouped);
  g_assert_false (grouped);
  g_assert_cmpuint (fa->len, ==, SPX_RENDER_EXCHANGE_MAX_ARROWS);
  for (guint i = 0; i < fa->len; i++)
    g_assert_cmpuint (g_array_index (fa, SpxRenderExchangeFlow, i).pairs, ==,
                      1);
  g_autoptr (GArray) fb = spx_render_exchange_flows (&b, &grouped);
  g_assert_true (grouped);
  g_assert_cmpuint (fb->len, <, SPX_RENDER_EXCHANGE_MAX_ARROWS);
  b.selected_tile = 1;
  g_autoptr (GArray) fs = spx_render_exchange_flows (&b, &grouped);
  g_assert_false (grouped);
  g_assert_cmpuint (fs->len, ==, SPX_RENDER_EXCHANGE_MAX_ARROWS + 1);
}

/* A point of the picture whose hover text holds want, scanning a grid
 * of points; its text in *text. */
static gboolean
find_text (const SpxRenderExchangeData *d, const char *want, char **text)
{
  for (double y = 2; y < H; y += 3)
    for (double x = 2; x < W; x += 3)
      {
        char *t = spx_render_exchange_describe (W, H, d, x, y);
        if (t != NULL && strstr (t, want) != NULL)
          {
            *text = t;
            return TRUE;
          }
        g_free (t);
      }
  return FALSE;
}

static void
draw_to (const SpxRenderExchangeData *d, cairo_surface_t **out)
{
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  *out = cairo_image_surface_create (CAIRO_FORMAT_RGB24, (int) W, (int) H);
  cairo_t *cr = cairo_create (*out);
  spx_render_exchange (cr, W, H, d, &style);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
  cairo_surface_flush (*out);
}

/* Every arrow asked for: an arrow per tile pair, hovered as such, and
 * another picture; grouped, an arrow's hover says what it sums. */
static void
test_every_arrow (void)
{
  g_autoptr (SpxIpuProgram) p = pairs_exchange (240);
  const SpxIpuStep *s = step_of (p, 0);
  SpxRenderExchangeData grouped = { p, 0, -1, FALSE };
  SpxRenderExchangeData every = { p, 0, -1, TRUE };
  gboolean g = TRUE;
  g_autoptr (GArray) flows = spx_render_exchange_flows (&every, &g);
  g_assert_false (g);
  g_assert_cmpuint (flows->len, ==, distinct_pairs (s));
  cairo_surface_t *a, *b;
  draw_to (&grouped, &a);
  draw_to (&every, &b);
  g_assert_true (memcmp (cairo_image_surface_get_data (a),
                         cairo_image_surface_get_data (b),
                         (gsize) cairo_image_surface_get_stride (a) *
                         (gsize) H) != 0);
  cairo_surface_destroy (a);
  cairo_surface_destroy (b);
  g_autofree char *one = NULL, *sum = NULL;
  g_assert_true (find_text (&every, " → tile ", &one));
  g_assert_true (g_str_has_prefix (one, "Tile "));
  g_assert_null (strstr (one, "summed"));
  /* grouped: "Tiles 0–1 and 4–5 → tiles 2–3 and 6–7", its bytes and
   * pairs as counted here */
  g_assert_true (find_text (&grouped, " summed over ", &sum));
  g_test_message ("%s", sum);
  g_assert_true (g_str_has_prefix (sum, "Tiles "));
  guint src = G_MAXUINT, dst = G_MAXUINT;
  for (guint t = 0; t < 16; t++)
    {
      g_autofree char *name = g_strdup_printf ("%u–%u", t, t + 1);
      const char *at = t % 2 == 0 ? strstr (sum, name) : NULL;
      const char *arrow = strstr (sum, " → ");
      if (at == NULL)
        continue;
      if (at < arrow && src == G_MAXUINT)
        src = teach16_group (t);
      else if (at > arrow && dst == G_MAXUINT)
        dst = teach16_group (t);
    }
  g_assert_cmpuint (src, <, 4);
  g_assert_cmpuint (dst, <, 4);
  guint64 bytes = 0;
  g_autoptr (GHashTable) seen = g_hash_table_new (g_direct_hash,
                                                  g_direct_equal);
  for (guint k = 0; k < s->transfers->len; k++)
    {
      const SpxIpuTransfer *t = &g_array_index (s->transfers, SpxIpuTransfer,
                                                k);
      if (teach16_group (t->src) == src && teach16_group (t->dst) == dst)
        {
          bytes += t->bytes;
          g_hash_table_add (seen, GUINT_TO_POINTER (t->src * 64 + t->dst + 1));
        }
    }
  g_autofree char *size = spx_format_bytes ((double) bytes);
  g_autofree char *want = g_strdup_printf ("\n%s summed over %u tile pairs",
                                           size, g_hash_table_size (seen));
  g_assert_nonnull (strstr (sum, want));
}

/* ---- timeline ---- */

/* A program of one compute step of cycles between two syncs. */
static SpxIpuProgram *
one_compute (SpxIpuMode mode, guint64 cycles)
{
  g_autoptr (SpxIpuMachine) m = spx_ipu_machine_preset ("teach16");
  SpxIpuProgram *p = spx_ipu_program_new (mode, m, 64, 64, 16, 16,
                                          SPX_DTYPE_FP16, 0.25);
  spx_ipu_program_add_sync (p, "sync");
  SpxIpuStep *s = spx_ipu_program_add_compute (p, "compute");
  s->tile_cycles[3] = cycles;
  spx_ipu_program_add_sync (p, "sync");
  spx_ipu_program_finish (p);
  return p;
}

/* At a zoom the part shown fills the axis, linearly; zooming keeps the
 * point under the pointer there; a fit ends the axis at the program's
 * end; a zoom back out, or none, is the whole axis. */
static void
test_zoom (void)
{
  g_autoptr (SpxIpuProgram) st = one_compute (SPX_IPU_MODE_STATIC, 2900);
  g_autoptr (SpxIpuProgram) dy = one_compute (SPX_IPU_MODE_DYNAMIC, 24000);
  SpxRenderTimelineData d = { { NULL, st, dy }, -1, -1, 0, 0, FALSE };
  double most = (double) dy->cycles;
  g_assert_cmpuint (dy->cycles, >, st->cycles);
  double x0 = spx_render_timeline_cycle_x (W, H, &d, 0);
  double x1 = spx_render_timeline_cycle_x (W, H, &d, most);
  g_assert_cmpfloat (x1 - x0, >, W / 2);
  /* a quarter to a half of the axis */
  d.zoom_from = 0.25;
  d.zoom_to = 0.5;
  g_assert_cmpfloat_with_epsilon (
    spx_render_timeline_cycle_x (W, H, &d, 0.25 * most), x0, 1e-9);
  g_assert_cmpfloat_with_epsilon (
    spx_render_timeline_cycle_x (W, H, &d, 0.5 * most), x1, 1e-9);
  g_assert_cmpfloat_with_epsilon (
    spx_render_timeline_cycle_x (W, H, &d, 0.3 * most),
    x0 + (x1 - x0) * 0.05 / 0.25, 1e-9);
  g_assert_cmpfloat (spx_render_timeline_cycle_x (W, H, &d, 0), <, x0);
  /* twice as close about x = 200: the cycle there stays there */
  double x = 200, at = 0.25 + 0.25 * (x - x0) / (x1 - x0);
  double from, to;
  spx_render_timeline_zoom (W, H, &d, x, 2, 0, &from, &to);
  g_assert_cmpfloat_with_epsilon (to - from, 0.125, 1e-12);
  d.zoom_from = from;
  d.zoom_to = to;
  g_assert_cmpfloat_with_epsilon (
    spx_render_timeline_cycle_x (W, H, &d, at * most), x, 1e-6);
  /* a pan by 100 pixels: the same cycle 100 pixels left */
  spx_render_timeline_zoom (W, H, &d, x, 1, 100, &from, &to);
  d.zoom_from = from;
  d.zoom_to = to;
  g_assert_cmpfloat_with_epsilon (
    spx_render_timeline_cycle_x (W, H, &d, at * most), x - 100, 1e-6);
  /* far out: the whole axis, never past it */
  spx_render_timeline_zoom (W, H, &d, x, 1e-3, 0, &from, &to);
  g_assert_cmpfloat (from, ==, 0);
  g_assert_cmpfloat (to, ==, 1);
  /* far in: no closer than SPX_RENDER_TIMELINE_MIN_CYCLES cycles */
  spx_render_timeline_zoom (W, H, &d, x, 1e9, 0, &from, &to);
  g_assert_cmpfloat_with_epsilon ((to - from) * most,
                                  SPX_RENDER_TIMELINE_MIN_CYCLES, 1e-6);
  /* static fitted: its end at the axis' end */
  spx_render_timeline_fit (&d, SPX_IPU_MODE_STATIC, &d.zoom_from,
                           &d.zoom_to);
  g_assert_cmpfloat (d.zoom_from, ==, 0);
  g_assert_cmpfloat_with_epsilon (
    spx_render_timeline_cycle_x (W, H, &d, (double) st->cycles), x1, 1e-9);
  /* reset (both 0) */
  d.zoom_from = d.zoom_to = 0;
  g_assert_cmpfloat (spx_render_timeline_cycle_x (W, H, &d, most), ==, x1);
}

/* Zoomed, a step outside the part shown is neither drawn nor hit; one
 * inside is hit where it now lies. A program's name is where a click
 * fits the axis. */
static void
test_zoom_hit (void)
{
  g_autoptr (SpxIpuProgram) st = one_compute (SPX_IPU_MODE_STATIC, 2900);
  g_autoptr (SpxIpuProgram) dy = one_compute (SPX_IPU_MODE_DYNAMIC, 24000);
  SpxRenderTimelineData d = { { NULL, st, dy }, -1, -1, 0, 0, FALSE };
  /* the static lane's bar: the first row where its compute is hit */
  double y = -1;
  guint lane = 99;
  double xs = spx_render_timeline_cycle_x (W, H, &d, 1000);
  for (double t = 0; t < H && y < 0; t += 1)
    if (spx_render_timeline_hit (W, H, &d, xs, t, &lane) == 1 &&
        lane == SPX_IPU_MODE_STATIC)
      y = t + 2;
  g_assert_cmpfloat (y, >, 0);
  /* the part after static's end: nothing of it there */
  d.zoom_from = (double) (st->cycles + 10) / (double) dy->cycles;
  d.zoom_to = 1;
  for (double x = 10; x < W - 10; x += 5)
    g_assert_cmpint (spx_render_timeline_hit (W, H, &d, x, y, NULL), ==, -1);
  /* fitted to static: its compute fills most of the axis */
  spx_render_timeline_fit (&d, SPX_IPU_MODE_STATIC, &d.zoom_from,
                           &d.zoom_to);
  g_assert_cmpint (spx_render_timeline_hit (W, H, &d, W / 2, y, NULL), ==, 1);
  /* its name, at the top left of its lane */
  gint found = -1;
  for (double t = 0; t < y && found < 0; t += 1)
    found = spx_render_timeline_lane_at (W, H, &d, 12, t);
  g_assert_cmpint (found, ==, SPX_IPU_MODE_STATIC);
  g_assert_cmpint (spx_render_timeline_lane_at (W, H, &d, 12, y), ==, -1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/render/flows/conserve", test_grouped_conserves);
  g_test_add_func ("/render/flows/plans", test_grouped_plans);
  g_test_add_func ("/render/flows/threshold", test_threshold);
  g_test_add_func ("/render/flows/every-arrow", test_every_arrow);
  g_test_add_func ("/render/zoom/axis", test_zoom);
  g_test_add_func ("/render/zoom/hit", test_zoom_hit);
  return g_test_run ();
}
