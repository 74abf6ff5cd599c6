/* test-render-mask-tiles.c: the spy plot and the tile heat map (ui/render):
 * files in every format, pixels where the answer is known, hit tests, and
 * the block → tile map they rest on */
#include "spx-render-export.h"
#include "spx-render-mask.h"
#include "spx-render-tiles.h"
#include "spx-ipu.h"
#include "spx-mask-gen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Helpers                                                             */

typedef struct {
  cairo_surface_t *surface;
  int              w, h;
} Picture;

static Picture
draw (SpxRenderFunc func, gconstpointer data, const SpxRenderStyle *style,
      int w, int h)
{
  Picture pic = { cairo_image_surface_create (CAIRO_FORMAT_RGB24, w, h), w, h };
  cairo_t *cr = cairo_create (pic.surface);
  func (cr, w, h, data, style);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
  cairo_surface_flush (pic.surface);
  return pic;
}

static SpxRgb
pixel (const Picture *pic, int x, int y)
{
  const guchar *data = cairo_image_surface_get_data (pic->surface);
  int stride = cairo_image_surface_get_stride (pic->surface);
  guint32 v = *(const guint32 *) (gconstpointer) (data + y * stride + x * 4);
  return (SpxRgb) { ((v >> 16) & 0xff) / 255.0, ((v >> 8) & 0xff) / 255.0,
                    (v & 0xff) / 255.0 };
}

/* Within about two levels of 255 on every channel. */
static gboolean
near (SpxRgb a, SpxRgb b, double tol)
{
  return fabs (a.r - b.r) <= tol && fabs (a.g - b.g) <= tol &&
         fabs (a.b - b.b) <= tol;
}

#define TOL (2.5 / 255)

static SpxIpuProgram *
static_plan (const char *machine_name, guint64 side, guint block,
             double density, guint64 n, SpxMask **mask_out)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxIpuMachine) machine = spx_ipu_machine_preset (machine_name);
  SpxGenOptions opt;
  spx_gen_options_init (&opt);
  opt.density = density;
  opt.seed = 7;
  SpxMask *mask = spx_mask_generate (side, side, block, &opt, &error);
  g_assert_no_error (error);
  SpxIpuProgram *p = spx_ipu_plan_static (machine, mask, n, SPX_DTYPE_FP16,
                                          &error);
  g_assert_no_error (error);
  *mask_out = mask;
  return p;
}

/* A teach16 program made by hand: every tile holds 10 KiB and computes a
 * little; tile `over` (if any) holds one byte more than its budget. */
static SpxIpuProgram *
hand_program (const char *machine_name, gint over)
{
  g_autoptr (SpxIpuMachine) machine = spx_ipu_machine_preset (machine_name);
  SpxIpuProgram *p = spx_ipu_program_new (SPX_IPU_MODE_STATIC, machine, 256,
                                          256, 64, 16, SPX_DTYPE_FP16, 0.25);
  /* fill each step before adding the next: adding may move the steps */
  SpxIpuStep *compute = spx_ipu_program_add_compute (p, "compute");
  for (guint t = 0; t < p->n_tiles; t++)
    {
      p->tiles[t].bytes[SPX_BYTES_VALUES] = 10 * 1024;
      p->tiles[t].macs = 1000 + t;
      compute->tile_cycles[t] = 100 + t;
    }
  SpxIpuStep *ex = spx_ipu_program_add_exchange (p, "reduce");
  for (guint t = 0; t < p->n_tiles; t++)
    spx_ipu_step_send (p, ex, t, (t + 1) % p->n_tiles, 64 * (t + 1));
  if (over >= 0)
    p->tiles[over].bytes[SPX_BYTES_PARTIALS] =
      spx_ipu_tile_budget (p->machine) + 1 - 10 * 1024;
  spx_ipu_program_finish (p);
  return p;
}

/* The bounding box of the pixels a hit test gives to tile t. */
static gboolean
tile_box (const SpxRenderTilesData *d, int w, int h, gint t, int box[4])
{
  box[0] = box[1] = G_MAXINT;
  box[2] = box[3] = -1;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      if (spx_render_tiles_hit (w, h, d, x + 0.5, y + 0.5) == t)
        {
          box[0] = MIN (box[0], x);
          box[1] = MIN (box[1], y);
          box[2] = MAX (box[2], x);
          box[3] = MAX (box[3], y);
        }
  return box[2] >= 0;
}

/* ------------------------------------------------------------------ */
/* Files                                                               */

static void
check_png_size (GBytes *bytes, int w, int h)
{
  gsize len;
  const guchar *p = g_bytes_get_data (bytes, &len);
  g_assert_cmpuint (len, >, 24);
  g_assert_cmpmem (p, 4, "\x89PNG", 4);
  /* IHDR: width and height, big-endian, at bytes 16 and 20 */
  guint32 pw = (guint32) p[16] << 24 | p[17] << 16 | p[18] << 8 | p[19];
  guint32 ph = (guint32) p[20] << 24 | p[21] << 16 | p[22] << 8 | p[23];
  g_assert_cmpuint (pw, ==, (guint) w);
  g_assert_cmpuint (ph, ==, (guint) h);
}

static void
export_all (SpxRenderFunc func, gconstpointer data)
{
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  for (double scale = 1; scale <= 2; scale++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (GBytes) png = spx_render_export_bytes (SPX_EXPORT_PNG, 640,
                                                        400, scale, func, data,
                                                        &style, &error);
      g_assert_no_error (error);
      check_png_size (png, (int) (640 * scale), (int) (400 * scale));
    }
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) svg = spx_render_export_bytes (SPX_EXPORT_SVG, 640, 400,
                                                    1, func, data, &style,
                                                    &error);
  g_assert_no_error (error);
  gsize len;
  const char *s = g_bytes_get_data (svg, &len);
  g_autofree char *head = g_strndup (s, MIN (len, 200));
  g_assert_true (g_str_has_prefix (head, "<?xml"));
  g_assert_nonnull (strstr (head, "<svg"));
  g_autoptr (GBytes) pdf = spx_render_export_bytes (SPX_EXPORT_PDF, 640, 400,
                                                    1, func, data, &style,
                                                    &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (pdf, NULL), 4, "%PDF", 4);
}

static void
test_export (void)
{
  g_autoptr (SpxMask) mask = NULL;
  g_autoptr (SpxIpuProgram) p = static_plan ("teach16", 256, 16, 0.25, 64,
                                             &mask);
  SpxRenderMaskData md = { .mask = mask, .grid = TRUE, .program = p,
                           .selected_tile = 3, .colour_by_tile = TRUE };
  export_all (spx_render_mask, &md);
  for (SpxTileMetric m = SPX_TILE_METRIC_BYTES; m <= SPX_TILE_METRIC_EXCHANGE;
       m++)
    {
      SpxRenderTilesData td = { .program = p, .metric = m,
                                .selected_tile = 5 };
      export_all (spx_render_tiles, &td);
    }
  /* nothing to draw is a placeholder, not a crash */
  SpxRenderMaskData none = { .selected_tile = -1 };
  export_all (spx_render_mask, &none);
  SpxRenderTilesData no_plan = { .selected_tile = -1 };
  export_all (spx_render_tiles, &no_plan);
}

/* Every size from the smallest supported one renders without a cairo
 * error, including silly ones. */
static void
test_sizes (void)
{
  g_autoptr (SpxMask) mask = NULL;
  g_autoptr (SpxIpuProgram) p = static_plan ("teach16", 256, 16, 0.25, 64,
                                             &mask);
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_DARK);
  SpxRenderMaskData md = { .mask = mask, .grid = TRUE, .program = p,
                           .selected_tile = 0, .colour_by_tile = TRUE };
  SpxRenderTilesData td = { .program = p, .selected_tile = 0 };
  const int sizes[][2] = { { 320, 200 }, { 640, 400 }, { 1, 1 }, { 40, 900 },
                           { 1500, 30 } };
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      Picture a = draw (spx_render_mask, &md, &style, sizes[i][0], sizes[i][1]);
      Picture b = draw (spx_render_tiles, &td, &style, sizes[i][0],
                        sizes[i][1]);
      cairo_surface_destroy (a.surface);
      cairo_surface_destroy (b.surface);
    }
}

/* ------------------------------------------------------------------ */
/* Spy plot                                                            */

/* A 64×64 mask of 8×8 blocks with only block (2, 5) set: inside that
 * block (away from its edges) the plot is ink, in every other block it is
 * the panel colour. Blocks are located with the hit test, so this checks
 * the drawing and the hit test against each other. */
static void
test_mask_one_block (void)
{
  g_autoptr (SpxMask) mask = spx_mask_new (64, 64, 8, NULL);
  spx_mask_set (mask, 2, 5);
  SpxRenderMaskData d = { .mask = mask, .selected_tile = -1 };
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  Picture pic = draw (spx_render_mask, &d, &style, 400, 300);
  int box[64][4];
  for (guint i = 0; i < 64; i++)
    {
      box[i][0] = box[i][1] = G_MAXINT;
      box[i][2] = box[i][3] = -1;
    }
  for (int y = 0; y < pic.h; y++)
    for (int x = 0; x < pic.w; x++)
      {
        guint64 br, bc;
        if (!spx_render_mask_hit (pic.w, pic.h, &d, x + 0.5, y + 0.5, &br, &bc))
          continue;
        int *b = box[br * 8 + bc];
        b[0] = MIN (b[0], x);
        b[1] = MIN (b[1], y);
        b[2] = MAX (b[2], x);
        b[3] = MAX (b[3], y);
      }
  guint checked = 0;
  for (guint i = 0; i < 64; i++)
    {
      g_assert_cmpint (box[i][2], >=, box[i][0] + 10); /* blocks are big */
      gboolean set = i == 2 * 8 + 5;
      for (int y = box[i][1] + 2; y <= box[i][3] - 2; y++)
        for (int x = box[i][0] + 2; x <= box[i][2] - 2; x++)
          {
            SpxRgb c = pixel (&pic, x, y);
            g_assert_true (near (c, set ? style.ink : style.panel, TOL));
            checked++;
          }
    }
  g_assert_cmpuint (checked, >, 10000);
  /* outside the plot: no block */
  g_assert_false (spx_render_mask_hit (400, 300, &d, 1, 1, NULL, NULL));
  g_assert_false (spx_render_mask_hit (400, 300, &d, 399, 299, NULL, NULL));
  cairo_surface_destroy (pic.surface);
}

/* Far more blocks than pixels: a checkerboard is half set everywhere, so
 * every pixel is half-way between panel and ink (a sample would give
 * pure ink or pure panel). */
/* A plan's partitions: contiguous ones (dynamic) as lines on the block
 * boundaries where the group changes, and nowhere else; scattered ones
 * (static's k-bands over sorted columns) as a strip of colours below. */
static SpxIpuProgram *
grouped_program (const guint32 *rows, const guint32 *cols)
{
  g_autoptr (SpxIpuMachine) machine = spx_ipu_machine_preset ("teach16");
  SpxIpuProgram *p = spx_ipu_program_new (SPX_IPU_MODE_DYNAMIC, machine, 64,
                                          64, 8, 8, SPX_DTYPE_FP16, 0);
  p->row_group = rows ? g_memdup2 (rows, 8 * sizeof (guint32)) : NULL;
  p->col_group = g_memdup2 (cols, 8 * sizeof (guint32));
  spx_ipu_program_finish (p);
  return p;
}

/* The edges, in pixels, of block (br, bc) by the hit test. */
static void
block_edges (const SpxRenderMaskData *d, int w, int h, guint64 br,
             guint64 bc, int box[4])
{
  box[0] = box[1] = G_MAXINT;
  box[2] = box[3] = -1;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        guint64 r, c;
        if (spx_render_mask_hit (w, h, d, x + 0.5, y + 0.5, &r, &c) &&
            r == br && c == bc)
          {
            box[0] = MIN (box[0], x);
            box[1] = MIN (box[1], y);
            box[2] = MAX (box[2], x);
            box[3] = MAX (box[3], y);
          }
      }
}

static void
test_mask_partitions (void)
{
  static const guint32 rows[8] = { 0, 0, 0, 0, 1, 1, 1, 1 };
  static const guint32 cols[8] = { 0, 0, 1, 1, 1, 1, 2, 2 };
  g_autoptr (SpxMask) mask = spx_mask_new (64, 64, 8, NULL);
  g_autoptr (SpxIpuProgram) p = grouped_program (rows, cols);
  SpxRenderMaskData d = { .mask = mask, .program = p, .grid = TRUE,
                          .selected_tile = -1 };
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  int w = 400, h = 300, row4[4], col2[4], col6[4];
  block_edges (&d, w, h, 4, 0, row4);
  block_edges (&d, w, h, 0, 2, col2);
  block_edges (&d, w, h, 0, 6, col6);
  Picture pic = draw (spx_render_mask, &d, &style, w, h);
  guint on_lines = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      if (near (pixel (&pic, x, y), style.partition, 0.2))
        {
          gboolean by_row = abs (y - row4[1]) <= 2;
          gboolean by_col = abs (x - col2[0]) <= 2 || abs (x - col6[0]) <= 2;
          g_assert_true (by_row || by_col);
          on_lines++;
        }
  g_assert_cmpuint (on_lines, >, 3 * 150); /* three lines across the plot */
  cairo_surface_destroy (pic.surface);

  /* no grid: no lines */
  d.grid = FALSE;
  pic = draw (spx_render_mask, &d, &style, w, h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      g_assert_false (near (pixel (&pic, x, y), style.partition, 0.2));
  cairo_surface_destroy (pic.surface);

  /* alternating bands: a strip below the plot, both colours, no lines */
  static const guint32 alternate[8] = { 0, 1, 0, 1, 0, 1, 0, 1 };
  g_autoptr (SpxIpuProgram) q = grouped_program (NULL, alternate);
  SpxRenderMaskData e = { .mask = mask, .program = q, .grid = TRUE,
                          .selected_tile = -1 };
  int last[4];
  block_edges (&e, w, h, 7, 0, last);
  pic = draw (spx_render_mask, &e, &style, w, h);
  guint band0 = 0, band1 = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        SpxRgb c = pixel (&pic, x, y);
        if (y <= last[3])
          g_assert_false (near (c, style.partition, 0.2));
        band0 += y > last[3] && near (c, style.series[0], TOL);
        band1 += y > last[3] && near (c, style.series[1], TOL);
      }
  g_assert_cmpuint (band0, >, 100);
  g_assert_cmpuint (band1, >, 100);
  cairo_surface_destroy (pic.surface);
}

/* The selected tile's blocks next to a partition line: the line keeps
 * its own colour, never the selection's, in both themes. */
static void
test_mask_partition_vs_selection (void)
{
  static const guint32 rows[8] = { 0, 0, 0, 0, 1, 1, 1, 1 };
  static const guint32 cols[8] = { 0, 0, 1, 1, 1, 1, 2, 2 };
  g_autoptr (SpxMask) mask = spx_mask_new (64, 64, 8, NULL);
  spx_mask_set (mask, 0, 1);
  spx_mask_set (mask, 0, 2);
  g_autoptr (SpxIpuProgram) p = grouped_program (rows, cols);
  p->tiles[0].blocks = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint64 flat[2] = { 1, 2 }; /* both sides of the line before column 2 */
  g_array_append_vals (p->tiles[0].blocks, flat, 2);
  SpxRenderMaskData d = { .mask = mask, .program = p, .grid = TRUE,
                          .colour_by_tile = TRUE, .selected_tile = 0 };
  int w = 400, h = 300, b[4];
  block_edges (&d, w, h, 0, 2, b);
  for (SpxTheme theme = SPX_THEME_LIGHT; theme <= SPX_THEME_DARK; theme++)
    {
      SpxRenderStyle style;
      spx_render_style_init (&style, theme);
      g_assert_false (near (style.partition, style.highlight, 0.3));
      Picture pic = draw (spx_render_mask, &d, &style, w, h);
      /* in each row of the selected blocks, the line's most
       * line-coloured pixel */
      for (int y = b[1] + 3; y <= b[3] - 3; y++)
        {
          SpxRgb best = pixel (&pic, b[0] - 2, y);
          for (int x = b[0] - 1; x <= b[0] + 1; x++)
            if (fabs (pixel (&pic, x, y).g - style.partition.g) <
                fabs (best.g - style.partition.g))
              best = pixel (&pic, x, y);
          g_assert_true (near (best, style.partition, 0.2));
          g_assert_false (near (best, style.highlight, 0.2));
        }
      /* and the blocks either side are the selection's */
      g_assert_true (near (pixel (&pic, b[0] + 4, (b[1] + b[3]) / 2),
                           style.highlight, TOL));
      g_assert_true (near (pixel (&pic, b[0] - 5, (b[1] + b[3]) / 2),
                           style.highlight, TOL));
      cairo_surface_destroy (pic.surface);
    }
}

static void
test_mask_density (void)
{
  g_autoptr (SpxMask) mask = spx_mask_new (2048, 2048, 1, NULL);
  for (guint64 r = 0; r < 2048; r++)
    for (guint64 c = r & 1; c < 2048; c += 2)
      spx_mask_set (mask, r, c);
  SpxRenderMaskData d = { .mask = mask, .selected_tile = -1 };
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  Picture pic = draw (spx_render_mask, &d, &style, 300, 260);
  guint checked = 0;
  for (int y = 0; y < pic.h; y += 3)
    for (int x = 0; x < pic.w; x += 3)
      {
        /* away from the plot's frame */
        guint64 br, bc;
        if (!spx_render_mask_hit (pic.w, pic.h, &d, x - 2, y - 2, &br, &bc) ||
            !spx_render_mask_hit (pic.w, pic.h, &d, x + 3, y + 3, &br, &bc))
          continue;
        SpxRgb c = pixel (&pic, x, y);
        double t = (c.r - style.panel.r) / (style.ink.r - style.panel.r);
        g_assert_cmpfloat (t, >, 0.4);
        g_assert_cmpfloat (t, <, 0.6);
        checked++;
      }
  g_assert_cmpuint (checked, >, 1000);
  cairo_surface_destroy (pic.surface);
}

/* A zoomed view: the hit test answers in the visible region's blocks. */
static void
test_mask_zoom_hit (void)
{
  g_autoptr (SpxMask) mask = spx_mask_new (1000, 1000, 10, NULL);
  SpxRenderMaskData d = { .mask = mask, .x0 = 20, .x1 = 30, .y0 = 60,
                          .y1 = 70, .selected_tile = -1 };
  guint64 lo_r = G_MAXUINT64, lo_c = G_MAXUINT64, hi_r = 0, hi_c = 0;
  for (int y = 0; y < 300; y++)
    for (int x = 0; x < 400; x++)
      {
        guint64 br, bc;
        if (!spx_render_mask_hit (400, 300, &d, x, y, &br, &bc))
          continue;
        lo_r = MIN (lo_r, br);
        hi_r = MAX (hi_r, br);
        lo_c = MIN (lo_c, bc);
        hi_c = MAX (hi_c, bc);
      }
  g_assert_cmpuint (lo_r, ==, 60);
  g_assert_cmpuint (hi_r, ==, 69);
  g_assert_cmpuint (lo_c, ==, 20);
  g_assert_cmpuint (hi_c, ==, 29);
}

/* Every block's pixel box by the hit test, in one pass: n_blocks × 4
 * (left, top, right, bottom; right -1 for blocks not shown). */
static int *
block_boxes (const SpxRenderMaskData *d, int w, int h)
{
  guint64 n = spx_mask_n_blocks (d->mask);
  int *box = g_new (int, n * 4);
  for (guint64 i = 0; i < n; i++)
    {
      box[i * 4] = box[i * 4 + 1] = G_MAXINT;
      box[i * 4 + 2] = box[i * 4 + 3] = -1;
    }
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        guint64 br, bc;
        if (!spx_render_mask_hit (w, h, d, x + 0.5, y + 0.5, &br, &bc))
          continue;
        int *b = box + (br * d->mask->bcols + bc) * 4;
        b[0] = MIN (b[0], x);
        b[1] = MIN (b[1], y);
        b[2] = MAX (b[2], x);
        b[3] = MAX (b[3], y);
      }
  return box;
}

/* The tiles that own blocks, ascending: the order colours are given. */
static guint
tiles_used (const SpxIpuProgram *p, const guint32 *owners, guint64 n,
            guint *used)
{
  g_autofree gboolean *holds = g_new0 (gboolean, p->n_tiles);
  for (guint64 i = 0; i < n; i++)
    if (owners[i] != G_MAXUINT32)
      holds[owners[i]] = TRUE;
  guint n_used = 0;
  for (guint t = 0; t < p->n_tiles; t++)
    if (holds[t])
      used[n_used++] = t;
  return n_used;
}

/* Pixels in [x0, x1] × [y0, y1] within tol of c. */
static guint
count_near (const Picture *pic, int x0, int y0, int x1, int y1, SpxRgb c,
            double tol)
{
  guint n = 0;
  for (int y = MAX (y0, 0); y <= MIN (y1, pic->h - 1); y++)
    for (int x = MAX (x0, 0); x <= MIN (x1, pic->w - 1); x++)
      n += near (pixel (pic, x, y), c, tol);
  return n;
}

/* A 16-tile static plan coloured by tile, 640 × 480 (blocks of about
 * 25 px): each set block's corners have its tile's colour, the i-th tile
 * used style.tiles[i], and its middle the tile number; with a selection
 * the selected tile's blocks are the highlight, the others dimmed, and
 * no numbers. */
static void
test_mask_colour_by_tile (void)
{
  g_autoptr (SpxMask) mask = NULL;
  g_autoptr (SpxIpuProgram) p = static_plan ("teach16", 256, 16, 0.25, 64,
                                             &mask);
  guint64 n = spx_mask_n_blocks (mask);
  g_autofree guint32 *owners = spx_ipu_program_block_owners (p, n);
  guint used[16], rank[16];
  g_assert_cmpuint (tiles_used (p, owners, n, used), ==, 16);
  for (guint i = 0; i < 16; i++)
    rank[used[i]] = i;
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_DARK);
  for (gint selected = -1; selected <= 2; selected += 3)
    {
      SpxRenderMaskData d = { .mask = mask, .program = p,
                              .colour_by_tile = TRUE,
                              .selected_tile = selected };
      g_autofree int *box = block_boxes (&d, 640, 480);
      Picture pic = draw (spx_render_mask, &d, &style, 640, 480);
      guint seen = 0, numbered = 0;
      for (guint64 i = 0; i < n; i++)
        {
          const int *b = box + i * 4;
          g_assert_cmpint (b[2] - b[0], >=, 20);
          SpxRgb want = style.panel;
          if (spx_mask_get_flat (mask, i))
            want = style.tiles[rank[owners[i]]];
          if (selected >= 0 && owners[i] == (guint32) selected)
            want = style.highlight;
          else if (selected >= 0 && spx_mask_get_flat (mask, i))
            want = spx_rgb_mix (style.panel, want, 0.3);
          g_assert_true (near (pixel (&pic, b[0] + 3, b[1] + 3), want, TOL));
          g_assert_true (near (pixel (&pic, b[2] - 3, b[3] - 3), want, TOL));
          /* the middle: ink of another colour for a number, or none */
          int cx = (b[0] + b[2]) / 2, cy = (b[1] + b[3]) / 2;
          guint same = count_near (&pic, cx - 5, cy - 4, cx + 5, cy + 4,
                                   want, 0.25);
          gboolean number = selected < 0 && spx_mask_get_flat (mask, i);
          if (number)
            g_assert_cmpuint (same, <, 11 * 9);
          else
            g_assert_cmpuint (same, ==, 11 * 9);
          seen += spx_mask_get_flat (mask, i);
          numbered += number;
        }
      g_assert_cmpuint (seen, >, 30);
      g_assert_cmpuint (numbered, ==, selected < 0 ? seen : 0);
      cairo_surface_destroy (pic.surface);
    }
}

/* Blocks just under 14 px, room enough for a small "15", have no
 * number: each is one colour. */
static void
test_mask_no_numbers_small (void)
{
  g_autoptr (SpxMask) mask = NULL;
  g_autoptr (SpxIpuProgram) p = static_plan ("teach16", 256, 16, 0.25, 64,
                                             &mask);
  SpxRenderMaskData d = { .mask = mask, .program = p, .colour_by_tile = TRUE,
                          .selected_tile = -1 };
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  g_autofree int *box = block_boxes (&d, 480, 280);
  Picture pic = draw (spx_render_mask, &d, &style, 480, 280);
  for (guint64 i = 0; i < spx_mask_n_blocks (mask); i++)
    {
      const int *b = box + i * 4;
      g_assert_cmpint (b[2] - b[0], >=, 11);
      g_assert_cmpint (b[2] - b[0], <, 13);
      SpxRgb c = pixel (&pic, b[0] + 1, b[1] + 1);
      g_assert_cmpuint (count_near (&pic, b[0] + 1, b[1] + 1, b[2] - 1,
                                    b[3] - 1, c, TOL), ==,
                        (b[2] - b[0] - 1) * (b[3] - b[1] - 1));
    }
  cairo_surface_destroy (pic.surface);
}

/* The 16 tiles' colours as drawn, in both themes: pairwise distinct,
 * each with a legend swatch (a 10 px square of it) right of the plot,
 * and the legend's labels in the text colour there; in the dark theme
 * every one stands 3:1 or more off the background. */
static void
test_mask_tile_legend (void)
{
  g_autoptr (SpxMask) mask = NULL;
  g_autoptr (SpxIpuProgram) p = static_plan ("teach16", 256, 16, 0.25, 64,
                                             &mask);
  guint64 n = spx_mask_n_blocks (mask);
  g_autofree guint32 *owners = spx_ipu_program_block_owners (p, n);
  SpxRenderMaskData d = { .mask = mask, .program = p, .colour_by_tile = TRUE,
                          .selected_tile = 5 };
  g_autofree int *box = block_boxes (&d, 800, 500);
  int right = 0;
  for (guint64 i = 0; i < n; i++)
    right = MAX (right, box[i * 4 + 2]);
  d.selected_tile = -1; /* the layout does not change with it */
  for (SpxTheme theme = SPX_THEME_LIGHT; theme <= SPX_THEME_DARK; theme++)
    {
      SpxRenderStyle style;
      spx_render_style_init (&style, theme);
      Picture pic = draw (spx_render_mask, &d, &style, 800, 500);
      SpxRgb drawn[16];
      gboolean got[16] = { FALSE };
      for (guint64 i = 0; i < n; i++)
        if (owners[i] != G_MAXUINT32)
          {
            drawn[owners[i]] = pixel (&pic, box[i * 4] + 3, box[i * 4 + 1] + 3);
            got[owners[i]] = TRUE;
          }
      for (guint a = 0; a < 16; a++)
        {
          g_assert_true (got[a]);
          for (guint b = 0; b < a; b++)
            g_assert_false (near (drawn[a], drawn[b], 0.1));
          if (theme == SPX_THEME_DARK)
            g_assert_cmpfloat (spx_rgb_contrast (drawn[a], style.background),
                               >=, 3);
          g_assert_cmpuint (count_near (&pic, right + 2, 0, pic.w - 1,
                                        pic.h - 1, drawn[a], TOL), >=, 81);
        }
      g_assert_cmpuint (count_near (&pic, right + 2, 0, pic.w - 1, pic.h - 1,
                                    style.foreground, 0.1), >, 16 * 10);
      cairo_surface_destroy (pic.surface);
    }
}

/* More than 16 tiles in use (bow): each block's colour is its tile's
 * place on the ramp from the first tile used to the last, and the
 * legend is a bar running from the one end to the other. */
static void
test_mask_tile_ramp (void)
{
  g_autoptr (SpxMask) mask = NULL;
  g_autoptr (SpxIpuProgram) p = static_plan ("bow", 1024, 16, 0.3, 256,
                                             &mask);
  guint64 n = spx_mask_n_blocks (mask);
  g_autofree guint32 *owners = spx_ipu_program_block_owners (p, n);
  g_autofree guint *used = g_new (guint, p->n_tiles);
  guint n_used = tiles_used (p, owners, n, used);
  g_assert_cmpuint (n_used, >, 16);
  double first = used[0], span = used[n_used - 1] - first;
  SpxRenderMaskData d = { .mask = mask, .program = p, .colour_by_tile = TRUE,
                          .selected_tile = -1 };
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_DARK);
  g_autofree int *box = block_boxes (&d, 900, 600);
  Picture pic = draw (spx_render_mask, &d, &style, 900, 600);
  int right = 0;
  guint checked = 0;
  for (guint64 i = 0; i < n; i++)
    {
      const int *b = box + i * 4;
      right = MAX (right, b[2]);
      if (owners[i] == G_MAXUINT32)
        continue;
      SpxRgb want = spx_render_tile_ramp (&style, (owners[i] - first) / span);
      g_assert_true (near (pixel (&pic, (b[0] + b[2]) / 2, (b[1] + b[3]) / 2),
                           want, TOL));
      checked++;
    }
  g_assert_cmpuint (checked, >, 1000);
  for (double t = 0; t <= 1; t += 1)
    g_assert_cmpuint (count_near (&pic, right + 2, 0, pic.w - 1, pic.h - 1,
                                  spx_render_tile_ramp (&style, t), 0.03),
                      >=, 5);
  /* the middle of the ramp is there too, and no swatches of style.tiles */
  g_assert_cmpuint (count_near (&pic, right + 2, 0, pic.w - 1, pic.h - 1,
                                spx_render_tile_ramp (&style, 0.5), 0.03),
                    >=, 5);
  g_assert_cmpuint (count_near (&pic, right + 2, 0, pic.w - 1, pic.h - 1,
                                style.tiles[1], TOL), ==, 0);
  cairo_surface_destroy (pic.surface);
}

/* The style's tile colours stand off the panel (and the dark theme's
 * off its background by WCAG's 3:1 for graphics); the contrast is the
 * WCAG ratio. */
static void
test_tile_colour_contrast (void)
{
  SpxRgb black = { 0, 0, 0 }, white = { 1, 1, 1 };
  g_assert_cmpfloat_with_epsilon (spx_rgb_contrast (black, white), 21, 1e-9);
  g_assert_cmpfloat_with_epsilon (spx_rgb_contrast (white, black), 21, 1e-9);
  g_assert_cmpfloat_with_epsilon (spx_rgb_contrast (white, white), 1, 1e-9);
  /* mid grey 0x767676: about 4.54 on white */
  SpxRgb grey = { 118 / 255.0, 118 / 255.0, 118 / 255.0 };
  g_assert_cmpfloat_with_epsilon (spx_rgb_contrast (grey, white), 4.54, 0.01);
  SpxRenderStyle dark, light;
  spx_render_style_init (&dark, SPX_THEME_DARK);
  spx_render_style_init (&light, SPX_THEME_LIGHT);
  for (guint i = 0; i < SPX_N_TILE_COLOURS; i++)
    {
      g_assert_cmpfloat (spx_rgb_contrast (dark.tiles[i], dark.background),
                         >=, 3);
      g_assert_cmpfloat (spx_rgb_contrast (dark.tiles[i], dark.panel), >=, 3);
      g_assert_cmpfloat (spx_rgb_contrast (light.tiles[i], light.panel), >=,
                         2.5);
    }
  for (double t = 0; t <= 1.0001; t += 0.125)
    {
      g_assert_cmpfloat (spx_rgb_contrast (spx_render_tile_ramp (&dark, t),
                                           dark.background), >=, 3);
      g_assert_cmpfloat (spx_rgb_contrast (spx_render_tile_ramp (&light, t),
                                           light.panel), >=, 2.5);
    }
}

/* ------------------------------------------------------------------ */
/* Tile heat map                                                       */

/* The over-memory tile is drawn in the alert colour (its centre lies on
 * the cross, or the whole cell is alert when cells are small), others
 * are not; both themes, large and small cells. */
static void
check_over (const char *machine, gint over, gint other, int w, int h,
            SpxTheme theme)
{
  g_autoptr (SpxIpuProgram) p = hand_program (machine, over);
  g_assert_false (p->fits);
  SpxRenderStyle style;
  spx_render_style_init (&style, theme);
  SpxRenderTilesData d = { .program = p, .metric = SPX_TILE_METRIC_CYCLES,
                           .selected_tile = -1 };
  Picture pic = draw (spx_render_tiles, &d, &style, w, h);
  int box[4];
  g_assert_true (tile_box (&d, w, h, over, box));
  int cx = (box[0] + box[2]) / 2, cy = (box[1] + box[3]) / 2;
  g_assert_true (near (pixel (&pic, cx, cy), style.alert, TOL));
  g_assert_true (tile_box (&d, w, h, other, box));
  cx = (box[0] + box[2]) / 2;
  cy = (box[1] + box[3]) / 2;
  g_assert_false (near (pixel (&pic, cx, cy), style.alert, 0.1));
  cairo_surface_destroy (pic.surface);
}

static void
test_tiles_over_memory (void)
{
  check_over ("teach16", 6, 5, 640, 400, SPX_THEME_LIGHT);
  check_over ("teach16", 6, 7, 640, 400, SPX_THEME_DARK);
  check_over ("bow", 100, 101, 320, 200, SPX_THEME_LIGHT);
  check_over ("bow", 1471, 0, 1000, 700, SPX_THEME_DARK);
}

/* The selected tile's outline is where the hit test puts that tile: the
 * highlight pixels' middle hits it. */
static void
test_tiles_hit (void)
{
  g_autoptr (SpxIpuProgram) p = hand_program ("teach16", -1);
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  for (gint sel = 0; sel < 16; sel += 5)
    {
      SpxRenderTilesData d = { .program = p, .selected_tile = sel };
      Picture pic = draw (spx_render_tiles, &d, &style, 640, 400);
      double sx = 0, sy = 0;
      guint n = 0;
      for (int y = 0; y < pic.h; y++)
        for (int x = 0; x < pic.w; x++)
          if (near (pixel (&pic, x, y), style.highlight, TOL))
            {
              sx += x;
              sy += y;
              n++;
            }
      g_assert_cmpuint (n, >, 100);
      g_assert_cmpint (spx_render_tiles_hit (640, 400, &d, sx / n, sy / n),
                       ==, sel);
      cairo_surface_destroy (pic.surface);
    }
  /* tiles run left to right, grid_width to a row */
  SpxRenderTilesData d = { .program = p, .selected_tile = -1 };
  int a[4], b[4], c[4];
  g_assert_true (tile_box (&d, 640, 400, 0, a));
  g_assert_true (tile_box (&d, 640, 400, 1, b));
  g_assert_true (tile_box (&d, 640, 400, 4, c));
  g_assert_cmpint (b[0], >, a[2]);
  g_assert_cmpint (b[1], ==, a[1]);
  g_assert_cmpint (c[1], >, a[3]);
  g_assert_cmpint (c[0], ==, a[0]);
  g_assert_cmpint (spx_render_tiles_hit (640, 400, &d, 1, 1), ==, -1);
  g_assert_cmpint (spx_render_tiles_hit (640, 400, &d, 639, 399), ==, -1);
}

/* The metric figures: bytes summed over kinds, exchange in + out. */
static void
test_tiles_values (void)
{
  g_autoptr (SpxIpuProgram) p = hand_program ("teach16", -1);
  g_assert_cmpfloat (spx_render_tiles_value (p, SPX_TILE_METRIC_BYTES, 3), ==,
                     10 * 1024);
  g_assert_cmpfloat (spx_render_tiles_value (p, SPX_TILE_METRIC_CYCLES, 3), ==,
                     103);
  /* tile 3 sends 64·4 to tile 4 and receives 64·3 from tile 2 */
  g_assert_cmpfloat (spx_render_tiles_value (p, SPX_TILE_METRIC_EXCHANGE, 3),
                     ==, 64 * 4 + 64 * 3);
}

/* A tile for people, worked by hand on teach16 (64 KiB of SRAM): byte
 * kinds it holds none of are left out, counts take the singular for one
 * and group their thousands, each count of blocks says which it is,
 * dense plans have no block line. */
/* A planned tile's hover, on the small plan the lesson counts by hand
 * (test-lesson: teach16, 128 × 128 in 16 × 16 blocks, 16 non-zero,
 * n = 64, as 8 n-slices): tile 5 stores 1 block, receives the 7 others
 * of its slice's half, multiplies all 8, 3 a worker. */
static void
test_tiles_describe_planned (void)
{
  g_autoptr (SpxIpuMachine) machine = spx_ipu_machine_preset ("teach16");
  SpxGenOptions opt;
  spx_gen_options_init (&opt);
  opt.density = 0.25;
  opt.seed = 1;
  g_autoptr (SpxMask) mask = spx_mask_generate (128, 128, 16, &opt, NULL);
  g_autoptr (SpxIpuProgram) p = spx_ipu_plan_static (machine, mask, 64,
                                                     SPX_DTYPE_FP16, NULL);
  g_assert_cmpstr (p->plan, ==, "sn=8 sk=1");
  g_autofree char *text = spx_render_tiles_describe (p, 5, "\n");
  g_test_message ("%s", text);
  g_assert_true (g_str_has_prefix (
    text, "Tile 5\n1 block stored, 7 blocks received\n"
    "8 block products, 3 block products per worker\n"));
  /* 8 blocks of 16 × 16 times 8 columns */
  g_assert_nonnull (strstr (text, "\n16,384 MACs"));
}

static void
test_tiles_describe (void)
{
  g_autoptr (SpxIpuMachine) machine = spx_ipu_machine_preset ("teach16");
  g_autoptr (SpxIpuProgram) p = spx_ipu_program_new (
    SPX_IPU_MODE_STATIC, machine, 256, 256, 64, 16, SPX_DTYPE_FP16, 0.25);
  SpxIpuTile *t3 = &p->tiles[3], *t4 = &p->tiles[4];
  t3->blocks = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint64 two[2] = { 5, 9 };
  g_array_append_vals (t3->blocks, two, 2);
  t3->bytes[SPX_BYTES_VALUES] = 2048;
  t3->bytes[SPX_BYTES_INPUT] = 1536;
  t3->bytes[SPX_BYTES_OUTPUT] = 512;
  t3->compute_cycles = 12345;
  t3->macs = 1;
  t3->stored = 2; /* of the 4 it multiplies, 2 per worker */
  t3->products = 4;
  t3->per_worker = 2;
  g_autofree char *a = spx_render_tiles_describe (p, 3, "\n");
  g_assert_cmpstr (a, ==, "Tile 3\n2 blocks stored, 2 blocks received\n"
                   "4 block products, 2 block products per worker\n"
                   "4.0 KiB of 64.0 KiB\n"
                   "W values: 2.0 KiB\nX slice: 1.5 KiB\nY slice: 512 B\n"
                   "12,345 compute cycles\n1 MAC");
  t4->blocks = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_array_append_val (t4->blocks, two[0]);
  t4->bytes[SPX_BYTES_INDICES] = 100;
  t4->bytes[SPX_BYTES_PARTIALS] = 2000;
  t4->compute_cycles = 1;
  t4->macs = 1234567;
  t4->stored = 1; /* its only block, workers not known */
  t4->products = 1;
  g_autofree char *b = spx_render_tiles_describe (p, 4, ", ");
  g_assert_cmpstr (b, ==, "Tile 4, 1 block stored, 0 blocks received, "
                   "1 block product, 2.1 KiB of 64.0 KiB, "
                   "W indices: 100 B, partial sums: 2.0 KiB, "
                   "1 compute cycle, 1,234,567 MACs");
  /* an idle tile; no separator given is a new line */
  g_autofree char *c = spx_render_tiles_describe (p, 0, NULL);
  g_assert_cmpstr (c, ==, "Tile 0\n0 blocks stored, 0 blocks received\n"
                   "0 block products\n0 B of 64.0 KiB\n"
                   "0 compute cycles\n0 MACs");
  g_assert_null (spx_render_tiles_describe (p, 16, "\n"));
  g_assert_null (spx_render_tiles_describe (p, G_MAXUINT, "\n"));
  g_assert_null (spx_render_tiles_describe (NULL, 0, "\n"));

  g_autoptr (SpxIpuProgram) dense = spx_ipu_program_new (
    SPX_IPU_MODE_DENSE, machine, 256, 256, 64, 16, SPX_DTYPE_FP16, 1);
  dense->tiles[15].bytes[SPX_BYTES_VALUES] = 40 * 1024;
  dense->tiles[15].compute_cycles = 1000;
  dense->tiles[15].macs = 2;
  g_autofree char *d = spx_render_tiles_describe (dense, 15, "\n");
  g_assert_cmpstr (d, ==, "Tile 15\n40.0 KiB of 64.0 KiB\n"
                   "W values: 40.0 KiB\n1,000 compute cycles\n2 MACs");
}

static void
test_light_dark (void)
{
  g_autoptr (SpxMask) mask = NULL;
  g_autoptr (SpxIpuProgram) p = static_plan ("teach16", 256, 16, 0.25, 64,
                                             &mask);
  SpxRenderMaskData md = { .mask = mask, .selected_tile = -1, .grid = TRUE };
  SpxRenderTilesData td = { .program = p, .selected_tile = -1 };
  SpxRenderFunc funcs[] = { spx_render_mask, spx_render_tiles };
  gconstpointer datas[] = { &md, &td };
  for (guint i = 0; i < 2; i++)
    {
      SpxRenderStyle light, dark;
      spx_render_style_init (&light, SPX_THEME_LIGHT);
      spx_render_style_init (&dark, SPX_THEME_DARK);
      Picture a = draw (funcs[i], datas[i], &light, 320, 200);
      Picture b = draw (funcs[i], datas[i], &dark, 320, 200);
      g_assert_true (near (pixel (&a, 0, 0), light.background, TOL));
      g_assert_true (near (pixel (&b, 0, 0), dark.background, TOL));
      g_assert_false (near (pixel (&a, 0, 0), pixel (&b, 0, 0), 0.1));
      cairo_surface_destroy (a.surface);
      cairo_surface_destroy (b.surface);
    }
}

/* ------------------------------------------------------------------ */
/* Block owners                                                        */

static void
check_owners (const SpxIpuProgram *p, const SpxMask *mask, gboolean once)
{
  guint64 n = spx_mask_n_blocks (mask);
  g_autofree guint32 *owners = spx_ipu_program_block_owners (p, n);
  g_autofree guint32 *listed = g_new0 (guint32, n);
  g_autofree guint32 *first = g_new (guint32, n);
  memset (first, 0xff, n * sizeof *first);
  for (guint t = 0; t < p->n_tiles; t++)
    {
      const GArray *b = p->tiles[t].blocks;
      for (guint i = 0; b != NULL && i < b->len; i++)
        {
          guint64 f = g_array_index (b, guint64, i);
          g_assert_cmpuint (f, <, n);
          listed[f]++;
          first[f] = MIN (first[f], t);
        }
    }
  for (guint64 i = 0; i < n; i++)
    {
      if (!spx_mask_get_flat (mask, i))
        {
          g_assert_cmpuint (owners[i], ==, G_MAXUINT32);
          g_assert_cmpuint (listed[i], ==, 0);
          continue;
        }
      if (once)
        g_assert_cmpuint (listed[i], ==, 1);
      else
        g_assert_cmpuint (listed[i], >=, 1);
      g_assert_cmpuint (owners[i], ==, first[i]);
    }
}

static void
test_block_owners (void)
{
  g_autoptr (SpxMask) mask = NULL;
  g_autoptr (SpxIpuProgram) st = static_plan ("teach16", 256, 16, 0.25, 64,
                                              &mask);
  g_assert_cmpuint (spx_mask_count (mask), >, 0);
  check_owners (st, mask, TRUE);
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxIpuMachine) machine = spx_ipu_machine_preset ("teach16");
  g_autoptr (SpxIpuProgram) dyn = spx_ipu_plan_dynamic (machine, mask, 0, 64,
                                                        SPX_DTYPE_FP16,
                                                        &error);
  g_assert_no_error (error);
  check_owners (dyn, mask, FALSE);
  /* dense plans list no blocks */
  g_autoptr (SpxIpuProgram) dense = spx_ipu_plan_dense (machine, 256, 256, 64,
                                                        SPX_DTYPE_FP16,
                                                        &error);
  g_assert_no_error (error);
  g_autofree guint32 *none = spx_ipu_program_block_owners (dense, 256);
  for (guint i = 0; i < 256; i++)
    g_assert_cmpuint (none[i], ==, G_MAXUINT32);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/render/mask-tiles/export", test_export);
  g_test_add_func ("/render/mask-tiles/sizes", test_sizes);
  g_test_add_func ("/render/mask-tiles/mask/one-block", test_mask_one_block);
  g_test_add_func ("/render/mask-tiles/mask/density", test_mask_density);
  g_test_add_func ("/render/mask-tiles/mask/zoom-hit", test_mask_zoom_hit);
  g_test_add_func ("/render/mask-tiles/mask/partitions", test_mask_partitions);
  g_test_add_func ("/render/mask-tiles/mask/partition-vs-selection",
                   test_mask_partition_vs_selection);
  g_test_add_func ("/render/mask-tiles/mask/colour-by-tile",
                   test_mask_colour_by_tile);
  g_test_add_func ("/render/mask-tiles/mask/no-numbers-small",
                   test_mask_no_numbers_small);
  g_test_add_func ("/render/mask-tiles/mask/tile-legend",
                   test_mask_tile_legend);
  g_test_add_func ("/render/mask-tiles/mask/tile-ramp", test_mask_tile_ramp);
  g_test_add_func ("/render/mask-tiles/tile-colour-contrast",
                   test_tile_colour_contrast);
  g_test_add_func ("/render/mask-tiles/tiles/over-memory",
                   test_tiles_over_memory);
  g_test_add_func ("/render/mask-tiles/tiles/hit", test_tiles_hit);
  g_test_add_func ("/render/mask-tiles/tiles/values", test_tiles_values);
  g_test_add_func ("/render/mask-tiles/tiles/describe", test_tiles_describe);
  g_test_add_func ("/render/mask-tiles/tiles/describe-planned",
                   test_tiles_describe_planned);
  g_test_add_func ("/render/mask-tiles/light-dark", test_light_dark);
  g_test_add_func ("/render/mask-tiles/block-owners", test_block_owners);
  return g_test_run ();
}
