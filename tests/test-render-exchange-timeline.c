/* test-render-exchange-timeline.c: the exchange and timeline views:
 * every format, pixels where the answer is known, hit tests, bad indices */
#include "spx-ipu.h"
#include "spx-mask-gen.h"
#include "spx-util.h"
#include "test-ipu-check.h"
#include "spx-render-exchange.h"
#include "spx-render-export.h"
#include "spx-render-timeline.h"

#include <math.h>
#include <string.h>

#define W 640.0
#define H 400.0

/* ---- fixtures ---- */

/* teach16 (4×4 grid), one exchange step: tile 0 sends to tile 5. */
static SpxIpuProgram *
one_transfer (void)
{
  g_autoptr (SpxIpuMachine) m = spx_ipu_machine_preset ("teach16");
  g_assert_nonnull (m);
  SpxIpuProgram *p = spx_ipu_program_new (SPX_IPU_MODE_STATIC, m, 64, 64, 16,
                                          16, SPX_DTYPE_FP16, 0.25);
  SpxIpuStep *s = spx_ipu_program_add_exchange (p, "distribute");
  spx_ipu_step_send (p, s, 0, 5, 4096);
  spx_ipu_program_finish (p);
  return p;
}

/* One long compute step between two syncs, as planners emit them. */
static SpxIpuProgram *
long_compute (SpxIpuMode mode)
{
  g_autoptr (SpxIpuMachine) m = spx_ipu_machine_preset ("teach16");
  SpxIpuProgram *p = spx_ipu_program_new (mode, m, 64, 64, 16, 16,
                                          SPX_DTYPE_FP16, 0.25);
  spx_ipu_program_add_sync (p, "sync");
  SpxIpuStep *s = spx_ipu_program_add_compute (p, "compute");
  s->tile_cycles[3] = 300000;
  spx_ipu_program_add_sync (p, "sync");
  spx_ipu_program_finish (p);
  return p;
}

static SpxIpuProgram *
bow_static (void)
{
  g_autoptr (SpxIpuMachine) m = spx_ipu_machine_preset ("bow");
  SpxGenOptions o;
  spx_gen_options_init (&o);
  o.density = 1.0 / 16;
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxMask) mask = spx_mask_generate (4096, 4096, 16, &o, &error);
  g_assert_no_error (error);
  SpxIpuProgram *p = spx_ipu_plan (m, SPX_IPU_MODE_STATIC, mask, 1024,
                                   SPX_DTYPE_FP16, &error);
  g_assert_no_error (error);
  g_assert_nonnull (p);
  return p;
}

static guint
first_exchange (const SpxIpuProgram *p)
{
  for (guint i = 0; i < p->steps->len; i++)
    if (g_array_index (p->steps, SpxIpuStep, i).kind == SPX_STEP_EXCHANGE)
      return i;
  g_assert_not_reached ();
  return 0;
}

/* ---- pixels ---- */

typedef struct {
  cairo_surface_t *surface;
  guint8 *data;
  int stride;
} Image;

static Image
draw (SpxRenderFunc func, gconstpointer data, const SpxRenderStyle *style,
      double w, double h)
{
  Image im;
  im.surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, (int) w,
                                           (int) h);
  cairo_t *cr = cairo_create (im.surface);
  func (cr, w, h, data, style);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
  cairo_surface_flush (im.surface);
  im.data = cairo_image_surface_get_data (im.surface);
  im.stride = cairo_image_surface_get_stride (im.surface);
  return im;
}

static gboolean
pixel_is (const Image *im, double x, double y, SpxRgb c)
{
  guint32 v = *(guint32 *) (gpointer) (im->data + (int) y * im->stride +
                                       (int) x * 4);
  int r = (v >> 16) & 0xff, g = (v >> 8) & 0xff, b = v & 0xff;
  return abs (r - (int) lround (c.r * 255)) <= 2 &&
         abs (g - (int) lround (c.g * 255)) <= 2 &&
         abs (b - (int) lround (c.b * 255)) <= 2;
}

static gboolean
images_differ (const Image *a, const Image *b, int h)
{
  return memcmp (a->data, b->data, (gsize) a->stride * h) != 0;
}

/* ---- formats ---- */

static void
check_formats (SpxRenderFunc func, gconstpointer data)
{
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  static const struct {
    SpxExportFormat format;
    const char *magic;
  } kinds[] = {
    { SPX_EXPORT_PNG, "\x89PNG" },
    { SPX_EXPORT_SVG, "<svg" },
    { SPX_EXPORT_PDF, "%PDF" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (GBytes) b = spx_render_export_bytes (kinds[i].format, W, H,
                                                      1, func, data, &style,
                                                      &error);
      g_assert_no_error (error);
      gsize len;
      const char *p = g_bytes_get_data (b, &len);
      /* SVG starts with an XML declaration */
      g_assert_nonnull (g_strstr_len (p, MIN (len, 256), kinds[i].magic));
    }
  for (guint scale = 1; scale <= 2; scale++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (GBytes) b = spx_render_export_bytes (SPX_EXPORT_PNG, W, H,
                                                      scale, func, data,
                                                      &style, &error);
      g_assert_no_error (error);
      gsize len;
      const guint8 *p = g_bytes_get_data (b, &len);
      g_assert_cmpuint (len, >, 24);
      guint32 w = GUINT32_FROM_BE (*(const guint32 *) (gconstpointer) (p + 16));
      guint32 h = GUINT32_FROM_BE (*(const guint32 *) (gconstpointer) (p + 20));
      g_assert_cmpuint (w, ==, W * scale);
      g_assert_cmpuint (h, ==, H * scale);
    }
}

static void
test_exchange_formats (void)
{
  g_autoptr (SpxIpuProgram) p = one_transfer ();
  SpxRenderExchangeData d = { p, 0, -1, FALSE };
  check_formats (spx_render_exchange, &d);
}

static void
test_timeline_formats (void)
{
  g_autoptr (SpxIpuProgram) a = long_compute (SPX_IPU_MODE_DENSE);
  g_autoptr (SpxIpuProgram) b = one_transfer ();
  SpxRenderTimelineData d = { { a, b, NULL }, -1, -1, 0, 0, FALSE };
  check_formats (spx_render_timeline, &d);
}

/* ---- exchange ---- */

static void
box_centre (const SpxRenderExchangeData *d, guint tile, double *x, double *y)
{
  double bx, by, bw, bh;
  g_assert_true (spx_render_exchange_tile_box (W, H, d, tile, &bx, &by, &bw,
                                               &bh));
  *x = bx + bw / 2;
  *y = by + bh / 2;
}

static void
test_exchange_arrow (void)
{
  g_autoptr (SpxIpuProgram) p = one_transfer ();
  SpxRenderExchangeData d = { p, 0, -1, FALSE };
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  Image im = draw (spx_render_exchange, &d, &style, W, H);
  double x0, y0, x5, y5, x15, y15;
  box_centre (&d, 0, &x0, &y0);
  box_centre (&d, 5, &x5, &y5);
  box_centre (&d, 15, &x15, &y15);
  g_assert_cmpfloat (x5, >, x0);
  g_assert_cmpfloat (y5, >, y0);
  /* a stretch of the line between the two centres, clear of both boxes,
   * of the arrowhead and of the label in the middle */
  for (double f = 0.2; f <= 0.3; f += 0.025)
    g_assert_true (pixel_is (&im, x0 + f * (x5 - x0), y0 + f * (y5 - y0),
                             style.series[0]));
  /* between tiles 10 and 15, far from the arrow: background */
  g_assert_true (pixel_is (&im, (x5 + x15) / 2 + 0.25 * (x15 - x5),
                           (y5 + y15) / 2, style.background));
  cairo_surface_destroy (im.surface);
}

static void
test_exchange_hit (void)
{
  g_autoptr (SpxIpuProgram) p = one_transfer ();
  SpxRenderExchangeData d = { p, 0, -1, FALSE };
  for (guint t = 0; t < 16; t++)
    {
      double x, y;
      box_centre (&d, t, &x, &y);
      g_assert_cmpint (spx_render_exchange_hit (W, H, &d, x, y), ==, t);
    }
  double x0, y0, x5, y5;
  box_centre (&d, 0, &x0, &y0);
  box_centre (&d, 5, &x5, &y5);
  g_assert_cmpint (spx_render_exchange_hit (W, H, &d, (x0 + x5) / 2,
                                            (y0 + y5) / 2), ==, -1);
  g_assert_cmpint (spx_render_exchange_hit (W, H, &d, 1, 1), ==, -1);
  /* small pictures still have a tile under each box's centre */
  double bx, by, bw, bh;
  g_assert_true (spx_render_exchange_tile_box (320, 200, &d, 7, &bx, &by, &bw,
                                               &bh));
  g_assert_cmpint (spx_render_exchange_hit (320, 200, &d, bx + bw / 2,
                                            by + bh / 2), ==, 7);
}

static void
test_exchange_selection (void)
{
  g_autoptr (SpxIpuProgram) p = one_transfer ();
  SpxRenderExchangeData d = { p, 0, 5, FALSE };
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  Image im = draw (spx_render_exchange, &d, &style, W, H);
  double x0, y0, x5, y5;
  box_centre (&d, 0, &x0, &y0);
  box_centre (&d, 5, &x5, &y5);
  /* tile 5 receives, so its arrow takes the highlight (away from the
   * label on its middle) */
  g_assert_true (pixel_is (&im, x0 + 0.25 * (x5 - x0), y0 + 0.25 * (y5 - y0),
                           style.highlight));
  cairo_surface_destroy (im.surface);
}

static void
test_exchange_not_exchange (void)
{
  g_autoptr (SpxIpuProgram) p = long_compute (SPX_IPU_MODE_STATIC);
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_DARK);
  /* syncs and compute steps draw the tile grid too */
  guint steps[] = { 0, 1, 2 };
  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    {
      SpxRenderExchangeData d = { p, steps[i], 3, FALSE };
      Image im = draw (spx_render_exchange, &d, &style, 320, 200);
      cairo_surface_destroy (im.surface);
      double x, y;
      box_centre (&d, 9, &x, &y);
      g_assert_cmpint (spx_render_exchange_hit (W, H, &d, x, y), ==, 9);
    }
  guint bad[] = { 3, 99, G_MAXUINT };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      SpxRenderExchangeData d = { p, bad[i], 3, FALSE };
      Image im = draw (spx_render_exchange, &d, &style, 320, 200);
      cairo_surface_destroy (im.surface);
      g_assert_cmpint (spx_render_exchange_hit (W, H, &d, W / 2, H / 2), ==,
                       -1);
      g_assert_null (spx_render_exchange_describe (W, H, &d, W / 2, H / 2));
      double x, y, w, h;
      g_assert_false (spx_render_exchange_tile_box (W, H, &d, 0, &x, &y, &w,
                                                    &h));
    }
  g_assert_null (spx_render_exchange_describe (W, H, NULL, W / 2, H / 2));
  SpxRenderExchangeData none = { NULL, 0, -1, FALSE };
  Image im = draw (spx_render_exchange, &none, &style, 320, 200);
  cairo_surface_destroy (im.surface);
  im = draw (spx_render_exchange, NULL, &style, 320, 200);
  cairo_surface_destroy (im.surface);
}

static void
test_exchange_large (void)
{
  g_autoptr (SpxIpuProgram) p = bow_static ();
  g_assert_cmpuint (p->n_tiles, >, SPX_RENDER_EXCHANGE_MAX_GRID);
  SpxRenderExchangeData d = { p, first_exchange (p), 100, FALSE };
  check_formats (spx_render_exchange, &d);
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_DARK);
  Image im = draw (spx_render_exchange, &d, &style, 320, 200);
  cairo_surface_destroy (im.surface);
  /* no grid boxes; the per-tile strips map x to tiles in order */
  double x, y, w, h;
  g_assert_false (spx_render_exchange_tile_box (W, H, &d, 0, &x, &y, &w, &h));
  gint prev = -1;
  for (double px = 0; px < W; px += 4)
    {
      gint t = spx_render_exchange_hit (W, H, &d, px, H - 12);
      if (t < 0)
        continue;
      g_assert_cmpint (t, >=, prev);
      g_assert_cmpint (t, <, (gint) p->n_tiles);
      prev = t;
    }
  g_assert_cmpint (prev, >, (gint) p->n_tiles * 9 / 10);
  /* a compute step: the strips are per tile, the hover names the tile */
  d.superstep = 0;
  while (g_array_index (p->steps, SpxIpuStep, d.superstep).kind !=
         SPX_STEP_COMPUTE)
    d.superstep++;
  check_formats (spx_render_exchange, &d);
  gint t = spx_render_exchange_hit (W, H, &d, W / 2, H - 12);
  g_assert_cmpint (t, >=, 0);
  g_autofree char *text = spx_render_exchange_describe (W, H, &d, W / 2,
                                                        H - 12);
  g_autofree char *head = g_strdup_printf ("Tile %d\n", t);
  g_assert_true (g_str_has_prefix (text, head));
}

/* ---- what the exchange says and where ---- */

static void
send_piece (SpxIpuProgram *p, SpxIpuStep *s, SpxByteKind kind, guint32 row0,
            guint32 col0, guint32 src, guint32 dst, guint64 bytes)
{
  SpxIpuPiece w = { kind, row0, row0 + 16, col0, col0 + 16 };
  spx_ipu_step_set_piece (s, &w);
  spx_ipu_step_send (p, s, src, dst, bytes);
}

/* teach16, one exchange: tile 0 sends two pieces to 5, tile 3 one (a
 * static fp16 program's partial sums are fp16: 16 × 16 × 2 bytes); 5
 * sends one to 6; 8 broadcasts one piece to 9 and 10. */
static SpxIpuProgram *
pieces_program (void)
{
  g_autoptr (SpxIpuMachine) m = spx_ipu_machine_preset ("teach16");
  SpxIpuProgram *p = spx_ipu_program_new (SPX_IPU_MODE_STATIC, m, 64, 64, 16,
                                          16, SPX_DTYPE_FP16, 0.25);
  SpxIpuStep *s = spx_ipu_program_add_exchange (p, "distribute");
  send_piece (p, s, SPX_BYTES_INPUT, 0, 0, 0, 5, 512);
  send_piece (p, s, SPX_BYTES_VALUES, 0, 16, 0, 5, 512);
  send_piece (p, s, SPX_BYTES_PARTIALS, 16, 0, 3, 5, 512);
  send_piece (p, s, SPX_BYTES_OUTPUT, 0, 0, 5, 6, 2048);
  send_piece (p, s, SPX_BYTES_INPUT, 32, 0, 8, 9, 256);
  spx_ipu_step_resend (p, s, 8, 10, 256);
  spx_ipu_program_finish (p);
  return p;
}

static void
assert_describes (const SpxRenderExchangeData *d, double x, double y,
                  const char *want)
{
  g_autofree char *text = spx_render_exchange_describe (W, H, d, x, y);
  g_assert_cmpstr (text, ==, want);
}

static void
test_exchange_describe (void)
{
  g_autoptr (SpxIpuProgram) p = pieces_program ();
  SpxRenderExchangeData d = { p, 0, -1, FALSE };
  double x0, y0, x5, y5, x8, y8;
  box_centre (&d, 0, &x0, &y0);
  box_centre (&d, 5, &x5, &y5);
  box_centre (&d, 8, &x8, &y8);
  /* tile 0 → 5 is a straight diagonal past no other tile */
  assert_describes (&d, (x0 + x5) / 2, (y0 + y5) / 2,
                    "Tile 0 → tile 5\n"
                    "X rows 0–15, columns 0–15, fp16: 512 B\n"
                    "W non-zeros rows 0–15, columns 16–31, fp16: 512 B");
  assert_describes (&d, x5, y5,
                    "Tile 5\n"
                    "receives 1.5 KiB from 2 tiles\n"
                    "  X rows 0–15, columns 0–15, fp16: 512 B from tile 0\n"
                    "  W non-zeros rows 0–15, columns 16–31, fp16: 512 B "
                    "from tile 0\n"
                    "  partial sums of Y rows 16–31, columns 0–15, fp16: "
                    "512 B from tile 3\n"
                    "sends 2.0 KiB to 1 tile\n"
                    "  Y rows 0–15, columns 0–15, fp16: 2.0 KiB to tile 6");
  assert_describes (&d, x0, y0,
                    "Tile 0\n"
                    "receives nothing\n"
                    "sends 1.0 KiB to 1 tile\n"
                    "  X rows 0–15, columns 0–15, fp16: 512 B to tile 5\n"
                    "  W non-zeros rows 0–15, columns 16–31, fp16: 512 B "
                    "to tile 5");
  /* a broadcast is sent once and listed once */
  assert_describes (&d, x8, y8,
                    "Tile 8\n"
                    "receives nothing\n"
                    "sends 256 B to 2 tiles (broadcast: 512 B received)\n"
                    "  X rows 32–47, columns 0–15, fp16: 256 B to tiles 9 "
                    "and 10");
  /* the ground: nothing */
  assert_describes (&d, 1, H - 1, NULL);
  /* a selection hides other tiles' arrows from the hover too */
  d.selected_tile = 6;
  assert_describes (&d, (x0 + x5) / 2, (y0 + y5) / 2, NULL);
  d.selected_tile = 5;
  assert_describes (&d, (x0 + x5) / 2, (y0 + y5) / 2,
                    "Tile 0 → tile 5\n"
                    "X rows 0–15, columns 0–15, fp16: 512 B\n"
                    "W non-zeros rows 0–15, columns 16–31, fp16: 512 B");
}

static void
test_exchange_selection_hides (void)
{
  g_autoptr (SpxIpuProgram) p = pieces_program ();
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  SpxRenderExchangeData all = { p, 0, -1, FALSE }, sel = { p, 0, 6, FALSE };
  Image a = draw (spx_render_exchange, &all, &style, W, H);
  Image b = draw (spx_render_exchange, &sel, &style, W, H);
  double x0, y0, x5, y5, x6, y6;
  box_centre (&all, 0, &x0, &y0);
  box_centre (&all, 5, &x5, &y5);
  box_centre (&all, 6, &x6, &y6);
  /* a quarter of the way along 0 → 5 (left of its label), and along
   * 5 → 6, which is tile 6's */
  double ax = x0 + 0.25 * (x5 - x0), ay = y0 + 0.25 * (y5 - y0);
  double bx = x5 + 0.25 * (x6 - x5), by = y5;
  g_assert_true (pixel_is (&a, ax, ay, style.series[0]));
  g_assert_true (pixel_is (&b, ax, ay, style.background));
  g_assert_true (pixel_is (&a, bx, by, style.series[0]));
  g_assert_true (pixel_is (&b, bx, by, style.highlight));
  cairo_surface_destroy (a.surface);
  cairo_surface_destroy (b.surface);
}

/* Text ink: darker than any arrow, line or panel of the light theme. */
static gboolean
is_ink (const Image *im, int x, int y)
{
  guint32 v = *(guint32 *) (gpointer) (im->data + y * im->stride + x * 4);
  return ((v >> 16) & 0xff) < 100 && ((v >> 8) & 0xff) < 100 &&
         (v & 0xff) < 100;
}

/* The one arrow's label sits on its middle, and there is no other text
 * outside the title and the tile boxes. */
static void
test_exchange_label_on_arrow (void)
{
  g_autoptr (SpxIpuProgram) p = one_transfer ();
  SpxRenderExchangeData d = { p, 0, -1, FALSE };
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  Image im = draw (spx_render_exchange, &d, &style, W, H);
  double x0, y0, x5, y5, bx, by, bw, bh;
  box_centre (&d, 0, &x0, &y0);
  box_centre (&d, 5, &x5, &y5);
  double mx = (x0 + x5) / 2, my = (y0 + y5) / 2;
  g_assert_true (spx_render_exchange_tile_box (W, H, &d, 0, &bx, &by, &bw,
                                               &bh));
  guint near = 0, stray = 0;
  for (int y = (int) by - 8; y < H; y++)
    for (int x = 0; x < W; x++)
      {
        if (!is_ink (&im, x, y) ||
            spx_render_exchange_hit (W, H, &d, x, y) >= 0)
          continue;
        if (fabs (x - mx) < 30 && fabs (y - my) < 10)
          near++;
        else
          stray++;
      }
  g_assert_cmpuint (near, >, 20);
  g_assert_cmpuint (stray, ==, 0);
  cairo_surface_destroy (im.surface);
}

/* teach16: a compute step where tile 3 takes 300,000 cycles and tile 5
 * half as many, the rest idle; a sync before it. */
static void
test_exchange_compute (void)
{
  g_autoptr (SpxIpuMachine) m = spx_ipu_machine_preset ("teach16");
  g_autoptr (SpxIpuProgram) p = spx_ipu_program_new (
    SPX_IPU_MODE_STATIC, m, 64, 64, 16, 16, SPX_DTYPE_FP16, 0.25);
  spx_ipu_program_add_sync (p, "sync");
  SpxIpuStep *s = spx_ipu_program_add_compute (p, "compute");
  s->tile_cycles[3] = 300000;
  s->tile_cycles[5] = 150000;
  p->tiles[5].macs = 4096; /* one 16 × 16 block times 16 columns */
  p->tiles[5].stored = 1;
  p->tiles[5].products = 1;
  p->tiles[5].per_worker = 1;
  spx_ipu_program_finish (p);
  SpxRenderExchangeData d = { p, 1, -1, FALSE };
  double x3, y3, x5, y5, x0, y0;
  box_centre (&d, 3, &x3, &y3);
  box_centre (&d, 5, &x5, &y5);
  box_centre (&d, 0, &x0, &y0);
  assert_describes (&d, x5, y5,
                    "Tile 5\n"
                    "150,000 cycles, 50% of the slowest (tile 3, 300,000 "
                    "cycles)\n"
                    "1 block stored, 0 blocks received, 1 block product, "
                    "1 block product per worker\n"
                    "4,096 multiply-accumulates in the whole program");
  assert_describes (&d, x3, y3, "Tile 3\n300,000 cycles: the slowest tile");
  assert_describes (&d, x0, y0, "Tile 0\nidle in this step");
  /* no blank page: each box in its heat, idle ones in the panel colour
   * (a corner of the box, clear of its text) */
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  Image im = draw (spx_render_exchange, &d, &style, W, H);
  double bx, by, bw, bh;
  g_assert_true (spx_render_exchange_tile_box (W, H, &d, 3, &bx, &by, &bw,
                                               &bh));
  g_assert_true (pixel_is (&im, bx + 4, by + 4, spx_render_heat (&style, 1)));
  g_assert_true (spx_render_exchange_tile_box (W, H, &d, 5, &bx, &by, &bw,
                                               &bh));
  g_assert_true (pixel_is (&im, bx + 4, by + 4,
                           spx_render_heat (&style, 0.5)));
  g_assert_true (spx_render_exchange_tile_box (W, H, &d, 0, &bx, &by, &bw,
                                               &bh));
  g_assert_true (pixel_is (&im, bx + 4, by + 4, style.panel));
  cairo_surface_destroy (im.surface);
  /* the sync: every tile waits, for the machine's sync cycles */
  d.superstep = 0;
  assert_describes (&d, x5, y5,
                    "Sync: tile 5 waits until every tile has arrived\n"
                    "90 cycles");
  im = draw (spx_render_exchange, &d, &style, W, H);
  g_assert_true (spx_render_exchange_tile_box (W, H, &d, 5, &bx, &by, &bw,
                                               &bh));
  g_assert_true (pixel_is (&im, bx + 4, by + 4, style.panel));
  cairo_surface_destroy (im.surface);
}

/* ---- timeline ---- */

/* The hit test's own geometry tells where the lane's bar is: scan up the
 * middle column for the step. */
static double
bar_middle_y (const SpxRenderTimelineData *d, double x, guint want_lane)
{
  double lo = -1, hi = -1;
  for (double y = 0; y < H; y += 0.5)
    {
      guint lane = G_MAXUINT;
      if (spx_render_timeline_hit (W, H, d, x, y, &lane) >= 0 &&
          lane == want_lane)
        {
          if (lo < 0)
            lo = y;
          hi = y;
        }
    }
  g_assert_cmpfloat (lo, >=, 0);
  return (lo + hi) / 2;
}

static void
test_timeline_compute_colour (void)
{
  g_autoptr (SpxIpuProgram) p = long_compute (SPX_IPU_MODE_STATIC);
  SpxRenderTimelineData d = { { NULL, p, NULL }, -1, -1, 0, 0, FALSE };
  SpxRenderStyle light, dark;
  spx_render_style_init (&light, SPX_THEME_LIGHT);
  spx_render_style_init (&dark, SPX_THEME_DARK);
  double y = bar_middle_y (&d, W / 2, 1);
  Image a = draw (spx_render_timeline, &d, &light, W, H);
  Image b = draw (spx_render_timeline, &d, &dark, W, H);
  /* left of the middle: the label sits in the centre of the box */
  g_assert_true (pixel_is (&a, W / 4, y, light.series[0]));
  g_assert_true (pixel_is (&b, W / 4, y, dark.series[0]));
  g_assert_true (pixel_is (&a, W / 4, 2, light.background));
  g_assert_true (pixel_is (&b, W / 4, 2, dark.background));
  g_assert_true (images_differ (&a, &b, (int) H));
  cairo_surface_destroy (a.surface);
  cairo_surface_destroy (b.surface);
}

static void
test_timeline_hit (void)
{
  g_autoptr (SpxIpuProgram) a = long_compute (SPX_IPU_MODE_DENSE);
  g_autoptr (SpxIpuProgram) c = long_compute (SPX_IPU_MODE_DYNAMIC);
  SpxRenderTimelineData d = { { a, NULL, c }, -1, -1, 0, 0, FALSE };
  double ya = bar_middle_y (&d, W / 2, 0), yc = bar_middle_y (&d, W / 2, 2);
  g_assert_cmpfloat (yc, >, ya);
  guint lane = 99;
  g_assert_cmpint (spx_render_timeline_hit (W, H, &d, W / 2, ya, &lane), ==,
                   1);
  g_assert_cmpuint (lane, ==, 0);
  g_assert_cmpint (spx_render_timeline_hit (W, H, &d, W / 2, yc, &lane), ==,
                   1);
  g_assert_cmpuint (lane, ==, 2);
  /* the 90-cycle syncs at both ends are 1 px wide yet can be hit */
  g_assert_cmpint (spx_render_timeline_hit (W, H, &d, 8.5, ya, NULL), ==, 0);
  g_assert_cmpint (spx_render_timeline_hit (W, H, &d, W - 8.5, ya, NULL), ==,
                   2);
  /* between lanes, above them, and right of the axis: nothing */
  g_assert_cmpint (spx_render_timeline_hit (W, H, &d, W / 2, 2, NULL), ==, -1);
  g_assert_cmpint (spx_render_timeline_hit (W, H, &d, W - 1, ya, NULL), ==,
                   -1);
  g_assert_cmpint (spx_render_timeline_hit (W, H, &d, W / 2, (ya + yc) / 2,
                                            NULL), ==, -1);
  SpxRenderTimelineData empty = { { NULL, NULL, NULL }, -1, -1, 0, 0, FALSE };
  g_assert_cmpint (spx_render_timeline_hit (W, H, &empty, 10, 10, NULL), ==,
                   -1);
}

/* The selection is outlined in the foreground colour, only in its lane. */
static void
test_timeline_selection (void)
{
  g_autoptr (SpxIpuProgram) a = long_compute (SPX_IPU_MODE_DENSE);
  g_autoptr (SpxIpuProgram) c = long_compute (SPX_IPU_MODE_DYNAMIC);
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  SpxRenderTimelineData d = { { a, NULL, c }, 1, 2, 0, 0, FALSE };
  double ya = bar_middle_y (&d, W / 2, 0), yc = bar_middle_y (&d, W / 2, 2);
  Image im = draw (spx_render_timeline, &d, &style, W, H);
  /* the 2 px outline runs just above the bar's top edge: one of the
   * three rows above it is wholly covered, wherever the edge falls */
  double xa = W / 4, top_a = ya, top_c = yc;
  while (spx_render_timeline_hit (W, H, &d, xa, top_a - 0.5, NULL) == 1)
    top_a -= 0.5;
  while (spx_render_timeline_hit (W, H, &d, xa, top_c - 0.5, NULL) == 1)
    top_c -= 0.5;
  gboolean in_a = FALSE, in_c = FALSE;
  for (int k = 1; k <= 3; k++)
    {
      in_a |= pixel_is (&im, xa, floor (top_a) - k, style.foreground);
      in_c |= pixel_is (&im, xa, floor (top_c) - k, style.foreground);
    }
  g_assert_true (in_c);
  g_assert_false (in_a);
  cairo_surface_destroy (im.surface);
}

static void
test_timeline_out_of_range (void)
{
  g_autoptr (SpxIpuProgram) p = long_compute (SPX_IPU_MODE_STATIC);
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_DARK);
  gint bad[] = { 3, 99, G_MAXINT, -7 };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      SpxRenderTimelineData d = { { p, p, p }, bad[i], bad[i], 0, 0, FALSE };
      Image im = draw (spx_render_timeline, &d, &style, 320, 200);
      cairo_surface_destroy (im.surface);
    }
  SpxRenderTimelineData none = { { NULL, NULL, NULL }, -1, -1, 0, 0, FALSE };
  Image im = draw (spx_render_timeline, &none, &style, 320, 200);
  cairo_surface_destroy (im.surface);
  im = draw (spx_render_timeline, NULL, &style, 320, 200);
  cairo_surface_destroy (im.surface);
}

/* Real plans of all three modes, several sizes: renders, nothing fails. */
static void
test_timeline_real (void)
{
  SpxIpuProgram *p[SPX_IPU_N_MODES];
  test_ipu_real_programs (p);
  SpxRenderTimelineData d = { { p[0], p[1], p[2] }, 2, -1, 0, 0, FALSE };
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  static const double sizes[][2] = { { 320, 200 }, { 640, 400 },
                                     { 1600, 900 }, { 1, 1 } };
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      Image im = draw (spx_render_timeline, &d, &style, sizes[i][0],
                       sizes[i][1]);
      cairo_surface_destroy (im.surface);
      SpxRenderExchangeData e = { p[1], first_exchange (p[1]), 3, FALSE };
      im = draw (spx_render_exchange, &e, &style, sizes[i][0], sizes[i][1]);
      cairo_surface_destroy (im.surface);
    }
  for (guint i = 0; i < SPX_IPU_N_MODES; i++)
    spx_ipu_program_free (p[i]);
}

/* ---- the explanation under the axis ---- */

#define HINT "Click a superstep to see its cycles explained."

/* The header names the step, its cycles and the tile they are about,
 * and the program; a line per term; the terms add up to the step. */
static void
assert_explains (const SpxRenderTimelineData *d, const SpxIpuProgram *p,
                 guint step)
{
  const SpxIpuStep *s = &g_array_index (p->steps, SpxIpuStep, step);
  g_autofree char *text = spx_render_timeline_explain (d);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_autofree char *c = spx_format_count (s->cycles);
  g_autofree char *tile = s->kind == SPX_STEP_SYNC
                            ? g_strdup ("")
                            : g_strdup_printf (", tile %u", s->worst_tile);
  g_autofree char *name = spx_ipu_step_name (s);
  g_autofree char *head = g_strdup_printf (
    "Superstep %u: %s, %s cycles%s · %s", step + 1, name, c, tile,
    spx_ipu_mode_to_string (p->mode));
  g_assert_cmpstr (lines[0], ==, head);
  g_assert_nonnull (s->terms);
  g_assert_cmpuint (s->terms->len, >, 0);
  test_ipu_check_term_lines (lines, s);
}

static void
test_timeline_explain (void)
{
  SpxIpuProgram *p[SPX_IPU_N_MODES];
  test_ipu_real_programs (p);
  SpxRenderTimelineData d = { { p[0], p[1], p[2] }, -1, -1, 0, 0, FALSE };
  g_autofree char *none = spx_render_timeline_explain (&d);
  g_assert_cmpstr (none, ==, HINT);
  for (guint m = 0; m < SPX_IPU_N_MODES; m++)
    for (guint i = 0; i < p[m]->steps->len; i++)
      {
        d.selected_superstep = (gint) i;
        d.selected_lane = (gint) m;
        assert_explains (&d, p[m], i);
      }
  /* no lane named: the first program that has the step */
  d.selected_superstep = 0;
  d.selected_lane = -1;
  assert_explains (&d, p[0], 0);
  d.programs[0] = NULL;
  assert_explains (&d, p[1], 0);
  /* out of range, or a lane with no program: the hint */
  gint bad[][2] = { { 999, 1 }, { G_MAXINT, -1 }, { -7, 2 }, { 0, 0 } };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      d.selected_superstep = bad[i][0];
      d.selected_lane = bad[i][1];
      g_autofree char *t = spx_render_timeline_explain (&d);
      g_assert_cmpstr (t, ==, HINT);
    }
  g_autofree char *null = spx_render_timeline_explain (NULL);
  g_assert_cmpstr (null, ==, HINT);
  for (guint i = 0; i < SPX_IPU_N_MODES; i++)
    spx_ipu_program_free (p[i]);
}

/* Rows of the panel colour in a column inside the panel's left padding,
 * below y0: the panel's height. */
static int
panel_rows (const Image *im, double y0, double h,
            const SpxRenderStyle *style)
{
  int n = 0;
  for (double y = y0; y < h; y++)
    n += pixel_is (im, 10, y, style->panel);
  return n;
}

/* The panel is drawn under the axis, in either theme; it grows with the
 * selected step's terms; the bars stay where they were. (A picture tall
 * enough for the whole panel: a shorter one gives the bars the room.) */
static void
test_timeline_panel (void)
{
  const double ph = 640;
  SpxIpuProgram *p[SPX_IPU_N_MODES];
  test_ipu_real_programs (p);
  const SpxIpuProgram *st = p[SPX_IPU_MODE_STATIC];
  guint compute = 0;
  while (g_array_index (st->steps, SpxIpuStep, compute).kind !=
         SPX_STEP_COMPUTE)
    compute++;
  guint n_terms = g_array_index (st->steps, SpxIpuStep, compute).terms->len;
  g_assert_cmpuint (n_terms, >=, 2);
  SpxRenderTimelineData none = { { p[0], p[1], p[2] }, -1, -1, 0, 0, FALSE };
  SpxRenderTimelineData sel = none;
  sel.selected_superstep = (gint) compute;
  sel.selected_lane = SPX_IPU_MODE_STATIC;
  /* a click does not move the bars: same boxes either way */
  double bottom = 0;
  for (double y = 0.5; y < ph; y += 2)
    for (double x = 0.5; x < W; x += 7)
      {
        gint a = spx_render_timeline_hit (W, ph, &none, x, y, NULL);
        g_assert_cmpint (a, ==, spx_render_timeline_hit (W, ph, &sel, x, y,
                                                         NULL));
        if (a >= 0)
          bottom = y;
      }
  g_assert_cmpfloat (bottom, >, 0);
  for (guint t = 0; t < 2; t++)
    {
      SpxRenderStyle style;
      spx_render_style_init (&style, t ? SPX_THEME_DARK : SPX_THEME_LIGHT);
      Image a = draw (spx_render_timeline, &none, &style, W, ph);
      Image b = draw (spx_render_timeline, &sel, &style, W, ph);
      /* below the axis: a one-row panel for the hint, a taller one with
       * a row per term for the selection */
      int rows_a = panel_rows (&a, bottom, ph, &style);
      int rows_b = panel_rows (&b, bottom, ph, &style);
      g_assert_cmpint (rows_a, >, 10);
      g_assert_cmpint (rows_b, >=, rows_a + (int) n_terms * 10);
      cairo_surface_destroy (a.surface);
      cairo_surface_destroy (b.surface);
    }
  /* every height: the panel shrinks (its last row summing the terms it
   * has no room for) and goes, the bars keep their labels */
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  sel.selected_lane = SPX_IPU_MODE_DENSE;
  sel.selected_superstep = 0;
  for (guint i = 0; i < p[0]->steps->len; i++)
    if (g_array_index (p[0]->steps, SpxIpuStep, i).terms->len >
        g_array_index (p[0]->steps, SpxIpuStep,
                       sel.selected_superstep).terms->len)
      sel.selected_superstep = (gint) i;
  for (double h = 40; h <= 700; h += 15)
    {
      Image im = draw (spx_render_timeline, &sel, &style, W, h);
      cairo_surface_destroy (im.surface);
    }
  for (guint i = 0; i < SPX_IPU_N_MODES; i++)
    spx_ipu_program_free (p[i]);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/render/exchange/formats", test_exchange_formats);
  g_test_add_func ("/render/exchange/arrow", test_exchange_arrow);
  g_test_add_func ("/render/exchange/hit", test_exchange_hit);
  g_test_add_func ("/render/exchange/selection", test_exchange_selection);
  g_test_add_func ("/render/exchange/not-exchange",
                   test_exchange_not_exchange);
  g_test_add_func ("/render/exchange/large", test_exchange_large);
  g_test_add_func ("/render/exchange/describe", test_exchange_describe);
  g_test_add_func ("/render/exchange/selection-hides",
                   test_exchange_selection_hides);
  g_test_add_func ("/render/exchange/label-on-arrow",
                   test_exchange_label_on_arrow);
  g_test_add_func ("/render/exchange/compute", test_exchange_compute);
  g_test_add_func ("/render/timeline/formats", test_timeline_formats);
  g_test_add_func ("/render/timeline/compute-colour",
                   test_timeline_compute_colour);
  g_test_add_func ("/render/timeline/hit", test_timeline_hit);
  g_test_add_func ("/render/timeline/selection", test_timeline_selection);
  g_test_add_func ("/render/timeline/out-of-range",
                   test_timeline_out_of_range);
  g_test_add_func ("/render/timeline/real", test_timeline_real);
  g_test_add_func ("/render/timeline/explain", test_timeline_explain);
  g_test_add_func ("/render/timeline/panel", test_timeline_panel);
  return g_test_run ();
}
