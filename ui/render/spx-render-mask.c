/* spx-render-mask.c: the spy plot. The visible blocks are reduced to a
 * small image (at most one pixel per block and per device pixel along each
 * axis) by walking the bitset once, then that image is painted scaled
 * with nearest-neighbour filtering: the cost follows the visible set bits,
 * not the number of rectangles. */
#include "spx-render-mask-private.h"
#include "spx-render-views.h"
#include "spx-util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The layout uses the default font size, not the style's, so that the
 * hit test (which has no style) finds the same plot rectangle. */
#define FS        SPX_RENDER_FONT_SIZE
#define PAD       8.0
#define TITLE_H   (FS * 1.6)
#define SUB_H     (FS * 1.4)
#define TICK      4.0
#define COLLAB_H  (FS * 1.3 + TICK + 2)
#define CHAR_W    (FS * 0.62)  /* a digit's advance, roughly */
#define MAX_TICKS 10u
#define MAX_GROUP_LINES 256u /* more changes: not contiguous groups */
#define STRIP_H   8.0
#define SWATCH    10.0         /* a legend entry's square */
#define LEGEND_GAP (FS * 1.2)  /* between the plot and its legend */
#define LEGEND_ROW (FS * 1.3)
#define MIN_ROW   10.0         /* legend rows any closer: no legend */
/* Tile numbers: at most this size, and half the block, so blocks under
 * twice the smallest (14 px) go without. */
#define NUMBER_PX_MAX 11.0
#define NUMBER_PX_MIN 7.0

typedef struct {
  double x0, x1, y0, y1;     /* visible blocks */
  double ex0, ex1, ey0, ey1; /* visible elements */
  double px, py, pw, ph;     /* plot rectangle */
  double s;                  /* logical pixels per element */
  gboolean subtitle;
  gboolean strip;            /* the column groups as a strip below */
  gboolean legend;           /* the tile colours, right of the plot */
  double lx, ly, lw, lh;     /* the legend's box */
  double rt[MAX_TICKS + 2], ct[MAX_TICKS + 2]; /* row, column ticks */
  guint  n_rt, n_ct;
} Layout;

static gboolean
program_matches (const SpxRenderMaskData *d)
{
  const SpxIpuProgram *p = d->program;
  return p != NULL && p->m == d->mask->rows && p->k == d->mask->cols &&
         p->block == d->mask->block;
}

/* Groups drawn as lines: few, and (nearly) contiguous, as dynamic's
 * partitions are. Static's k-bands run over sorted columns and change at
 * almost every column: as lines they would be noise. */
static gboolean
groups_as_lines (const guint32 *g, guint64 n)
{
  guint64 changes = 0, groups = 1;
  for (guint64 i = 0; g != NULL && i < n; i++)
    {
      groups = MAX (groups, (guint64) g[i] + 1);
      changes += i > 0 && g[i] != g[i - 1];
    }
  return changes > 0 && changes <= MAX_GROUP_LINES && changes < 2 * groups;
}

static gboolean
groups_as_strip (const guint32 *g, guint64 n)
{
  for (guint64 i = 1; g != NULL && i < n; i++)
    if (g[i] != g[0])
      return !groups_as_lines (g, n);
  return FALSE;
}

/* The plan's partitions are drawn with the grid: contiguous ones as
 * lines, others as a strip of colours below the plot. */
static gboolean
shows_lines (const SpxRenderMaskData *d)
{
  if (!d->grid || !program_matches (d))
    return FALSE;
  const SpxIpuProgram *p = d->program;
  return groups_as_lines (p->row_group, d->mask->brows) ||
         groups_as_lines (p->col_group, d->mask->bcols);
}

static gboolean
shows_strip (const SpxRenderMaskData *d)
{
  return d->grid && program_matches (d) &&
         groups_as_strip (d->program->col_group, d->mask->bcols);
}

/* Colouring by tile needs a plan that lists blocks (dense lists none). */
static gboolean
colours_by_tile (const SpxRenderMaskData *d)
{
  if (!d->colour_by_tile || !program_matches (d))
    return FALSE;
  for (guint t = 0; t < d->program->n_tiles; t++)
    if (d->program->tiles[t].blocks != NULL &&
        d->program->tiles[t].blocks->len > 0)
      return TRUE;
  return FALSE;
}

static gboolean
has_subtitle (const SpxRenderMaskData *d)
{
  return d->program != NULL &&
         (d->colour_by_tile || d->selected_tile >= 0 || shows_lines (d) ||
          shows_strip (d));
}

/* The visible region clamped to the mask; all zero (or empty) = all. */
static void
visible_region (const SpxRenderMaskData *d, Layout *l)
{
  const SpxMask *m = d->mask;
  double bc = (double) m->bcols, br = (double) m->brows;
  l->x0 = CLAMP (d->x0, 0, bc);
  l->x1 = CLAMP (d->x1, 0, bc);
  l->y0 = CLAMP (d->y0, 0, br);
  l->y1 = CLAMP (d->y1, 0, br);
  if (!(l->x1 - l->x0 > 1e-9 && l->y1 - l->y0 > 1e-9))
    {
      l->x0 = l->y0 = 0;
      l->x1 = bc;
      l->y1 = br;
    }
  l->ex0 = l->x0 * m->block;
  l->ex1 = MIN (l->x1 * m->block, (double) m->cols);
  l->ey0 = l->y0 * m->block;
  l->ey1 = MIN (l->y1 * m->block, (double) m->rows);
  if (l->ex1 <= l->ex0) /* a sliver of a partial last block */
    l->ex1 = l->ex0 + 1;
  if (l->ey1 <= l->ey0)
    l->ey1 = l->ey0 + 1;
}

/* Ticks in elements. With a power-of-two block (the usual case) they
 * fall every block·2^k elements, so that they mark block boundaries and
 * the grid's group lines can sit on them; otherwise round decimals. */
static guint
axis_ticks (double lo, double hi, guint block, guint max_ticks, double *ticks)
{
  guint n = 0;
  if ((block & (block - 1)) == 0)
    {
      double step = block;
      while ((hi - lo) / step > max_ticks - 1)
        step *= 2;
      for (double v = ceil (lo / step) * step; v <= hi + 1e-9 &&
           n < max_ticks + 2; v += step)
        ticks[n++] = v;
    }
  return n >= 2 ? n : spx_render_nice_ticks (lo, hi, max_ticks, ticks);
}

/* Whole numbers as they are up to 99999 (4096 reads better than 4.1k);
 * beyond, and fractions, short. */
static char *
tick_label (double v)
{
  if (v == floor (v) && v < 1e5)
    return g_strdup_printf ("%.0f", v);
  return spx_render_format_count (v);
}

/* Widest label, in characters, of the ticks an axis over lo..hi may get. */
static guint
label_chars (double lo, double hi, guint block)
{
  double ticks[MAX_TICKS + 2];
  guint n = axis_ticks (lo, hi, block, MAX_TICKS, ticks), chars = 1;
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *s = tick_label (ticks[i]);
      chars = MAX (chars, (guint) g_utf8_strlen (s, -1));
    }
  return chars;
}

/* "tile N" for the highest tile number, at the legend's text size. */
static double
legend_width (const SpxIpuProgram *p)
{
  guint chars = 5, top = MAX (p->n_tiles, 1) - 1;
  for (; top > 0; top /= 10)
    chars++;
  return SWATCH + 4 + chars * CHAR_W * 0.85;
}

/* Everything but the text depends on width, height and d only (and on
 * extra, the room a user's title takes beyond one line). */
static void
layout (double width, double height, const SpxRenderMaskData *d,
        double extra, Layout *l)
{
  visible_region (d, l);
  l->subtitle = has_subtitle (d);
  l->strip = shows_strip (d);
  guint block = d->mask->block;
  double left = PAD + label_chars (l->ey0, l->ey1, block) * CHAR_W + TICK + 4;
  double right = PAD + CHAR_W * 2; /* room for the last column label */
  double top = PAD + TITLE_H + extra + (l->subtitle ? SUB_H : 0) +
               COLLAB_H;
  l->lw = colours_by_tile (d) ? legend_width (d->program) : 0;
  /* a legend only where the plot keeps most of the width */
  l->legend = l->lw > 0 &&
              width - left - right - l->lw - LEGEND_GAP >= 3 * l->lw;
  if (l->legend)
    right += l->lw + LEGEND_GAP;
  double aw = MAX (1, width - left - right);
  double ah = MAX (1, height - top - PAD - (l->strip ? STRIP_H + 4 : 0));
  double ew = l->ex1 - l->ex0, eh = l->ey1 - l->ey0;
  l->s = MIN (aw / ew, ah / eh); /* square elements */
  l->pw = l->s * ew;
  l->ph = l->s * eh;
  l->px = left + (aw - l->pw) / 2;
  l->py = top;
  l->lx = l->px + l->pw + LEGEND_GAP;
  l->ly = top;
  l->lh = MAX (0, height - PAD - top);
  l->n_rt = axis_ticks (l->ey0, l->ey1, block,
                        CLAMP ((guint) (l->ph / (FS * 2.5)), 2, MAX_TICKS),
                        l->rt);
  double label_w = label_chars (l->ex0, l->ex1, block) * CHAR_W + FS;
  l->n_ct = axis_ticks (l->ex0, l->ex1, block,
                        CLAMP ((guint) (l->pw / label_w), 2, MAX_TICKS), l->ct);
}

gboolean
spx_render_mask_hit (double width, double height, const SpxRenderMaskData *d,
                     double x, double y, guint64 *br, guint64 *bc)
{
  if (d == NULL || d->mask == NULL)
    return FALSE;
  Layout l;
  layout (width, height, d, 0, &l);
  if (!(x >= l.px && x < l.px + l.pw && y >= l.py && y < l.py + l.ph))
    return FALSE;
  double ex = l.ex0 + (x - l.px) / l.s, ey = l.ey0 + (y - l.py) / l.s;
  guint64 c = (guint64) (ex / d->mask->block);
  guint64 r = (guint64) (ey / d->mask->block);
  if (c >= d->mask->bcols || r >= d->mask->brows)
    return FALSE;
  if (bc != NULL)
    *bc = c;
  if (br != NULL)
    *br = r;
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* The reduced image                                                   */

typedef struct {
  guint64  bx0, by0, nbx, nby; /* blocks the image covers */
  guint    iw, ih;             /* its pixels */
  guint32 *colmap, *rowmap;    /* visible block column/row → pixel */
  guint32 *nx, *ny;            /* blocks per pixel column/row */
  guint64 *count;              /* set blocks per pixel */
  float   *rgb;                /* summed tile colours, or NULL */
  guint8  *sel;                /* pixel holds a selected block, or NULL */
} Reduced;

static void
reduced_clear (Reduced *r)
{
  g_free (r->colmap);
  g_free (r->rowmap);
  g_free (r->nx);
  g_free (r->ny);
  g_free (r->count);
  g_free (r->rgb);
  g_free (r->sel);
}

/* Past this many visible blocks on an axis the block → pixel map is
 * computed per block instead of stored (a 2^31-column mask). */
#define MAX_MAP (G_GUINT64_CONSTANT (1) << 24)

/* n blocks onto at most max_px pixels: block i goes to i·px/n, so pixel p
 * holds the blocks from ceil(p·n/px) up to ceil((p+1)·n/px). */
static guint
make_map (guint64 n, double max_px, guint32 **map, guint32 **per)
{
  guint px = (guint) MIN ((double) n, MAX (1, ceil (max_px)));
  *per = g_new (guint32, px);
  for (guint p = 0; p < px; p++)
    (*per)[p] = (guint32) (spx_ipu_div_up ((p + 1) * n, px) -
                           spx_ipu_div_up (p * n, px));
  *map = NULL;
  if (n <= MAX_MAP)
    {
      *map = g_new (guint32, n);
      for (guint64 i = 0; i < n; i++)
        (*map)[i] = (guint32) (i * px / n);
    }
  return px;
}

static inline guint32
map_of (const guint32 *map, guint64 i, guint64 n, guint px)
{
  return map != NULL ? map[i] : (guint32) (i * px / n);
}

static void
reduced_init (Reduced *r, const Layout *l, double device_scale)
{
  memset (r, 0, sizeof *r);
  r->bx0 = (guint64) floor (l->x0);
  r->by0 = (guint64) floor (l->y0);
  r->nbx = MAX (1, (guint64) ceil (l->x1) - r->bx0);
  r->nby = MAX (1, (guint64) ceil (l->y1) - r->by0);
  r->iw = make_map (r->nbx, l->pw * device_scale, &r->colmap, &r->nx);
  r->ih = make_map (r->nby, l->ph * device_scale, &r->rowmap, &r->ny);
  r->count = g_new0 (guint64, (gsize) r->iw * r->ih);
}

static void
add_colour (Reduced *r, gsize pixel, SpxRgb c)
{
  r->rgb[pixel * 3] += (float) c.r;
  r->rgb[pixel * 3 + 1] += (float) c.g;
  r->rgb[pixel * 3 + 2] += (float) c.b;
}

/* One pass over the visible words of every visible block-row: blocks in
 * increasing order. */
static void
reduce_bits (Reduced *r, const SpxMask *m, const TileColours *tc,
             const SpxRenderStyle *style)
{
  gsize next = 0;
  for (guint64 row = 0; row < r->nby; row++)
    {
      guint64 lo = (r->by0 + row) * m->bcols + r->bx0, hi = lo + r->nbx;
      gsize line = (gsize) map_of (r->rowmap, row, r->nby, r->ih) * r->iw;
      for (guint64 w = lo >> 6; w <= (hi - 1) >> 6; w++)
        {
          guint64 bits = m->bits[w];
          if (w == lo >> 6)
            bits &= ~G_GUINT64_CONSTANT (0) << (lo & 63);
          if (w == (hi - 1) >> 6 && (hi & 63) != 0)
            bits &= (G_GUINT64_CONSTANT (1) << (hi & 63)) - 1;
          for (; bits != 0; bits &= bits - 1)
            {
              guint64 flat = (w << 6) + (guint64) __builtin_ctzll (bits);
              gsize pixel = line + map_of (r->colmap, flat - lo, r->nbx, r->iw);
              r->count[pixel]++;
              if (tc != NULL)
                add_colour (r, pixel, _spx_mask_tile_colour (
                              tc, _spx_mask_owner_from (tc, &next, flat),
                              style));
            }
        }
    }
}

/* Any pixel holding one of the tile's blocks is marked whole, so that a
 * tile's few blocks stay visible however far out the view is. */
static guint64
reduce_selection (Reduced *r, const SpxMask *m, const SpxIpuTile *tile)
{
  guint64 visible = 0;
  r->sel = g_new0 (guint8, (gsize) r->iw * r->ih);
  if (tile->blocks == NULL)
    return 0;
  const guint64 *list = (const guint64 *) (gconstpointer) tile->blocks->data;
  for (guint i = 0; i < tile->blocks->len; i++)
    {
      guint64 br = list[i] / m->bcols, bc = list[i] % m->bcols;
      if (br < r->by0 || br - r->by0 >= r->nby || bc < r->bx0 ||
          bc - r->bx0 >= r->nbx)
        continue;
      r->sel[(gsize) map_of (r->rowmap, br - r->by0, r->nby, r->ih) * r->iw +
             map_of (r->colmap, bc - r->bx0, r->nbx, r->iw)] = 1;
      visible++;
    }
  return visible;
}

static guint32
pack (SpxRgb c)
{
  return 0xff000000u | (guint32) lround (CLAMP (c.r, 0, 1) * 255) << 16 |
         (guint32) lround (CLAMP (c.g, 0, 1) * 255) << 8 |
         (guint32) lround (CLAMP (c.b, 0, 1) * 255);
}

/* Each pixel: panel mixed toward the blocks' colour by the fraction set;
 * with a selection, the rest dimmed and the selected pixels highlighted. */
static SpxRgb
pixel_colour (const Reduced *r, gsize i, double total,
              const SpxRenderStyle *style)
{
  if (r->sel != NULL && r->sel[i])
    return style->highlight;
  SpxRgb base = style->ink;
  if (r->rgb != NULL && r->count[i] > 0)
    base = (SpxRgb) { r->rgb[i * 3] / r->count[i],
                      r->rgb[i * 3 + 1] / r->count[i],
                      r->rgb[i * 3 + 2] / r->count[i] };
  SpxRgb c = spx_rgb_mix (style->panel, base, r->count[i] / total);
  return r->sel != NULL ? spx_rgb_mix (style->panel, c, 0.3) : c;
}

static cairo_surface_t *
reduced_to_image (const Reduced *r, const SpxRenderStyle *style)
{
  cairo_surface_t *img = cairo_image_surface_create (CAIRO_FORMAT_RGB24,
                                                     (int) r->iw, (int) r->ih);
  cairo_surface_flush (img);
  guchar *data = cairo_image_surface_get_data (img);
  int stride = cairo_image_surface_get_stride (img);
  if (data == NULL)
    return img; /* an error surface; painting it is a no-op */
  guint32 empty = pack (style->panel);
  for (guint y = 0; y < r->ih; y++)
    {
      guint32 *out = (guint32 *) (gpointer) (data + (gsize) y * stride);
      for (guint x = 0; x < r->iw; x++)
        {
          gsize i = (gsize) y * r->iw + x;
          out[x] = r->count[i] == 0 && (r->sel == NULL || !r->sel[i])
                   ? empty
                   : pack (pixel_colour (r, i, (double) r->nx[x] * r->ny[y],
                                         style));
        }
    }
  cairo_surface_mark_dirty (img);
  return img;
}

/* ------------------------------------------------------------------ */
/* Drawing                                                             */

static double
device_scale (cairo_t *cr)
{
  double dx = 1, dy = 0, ex = 0, ey = 1;
  cairo_user_to_device_distance (cr, &dx, &dy);
  cairo_user_to_device_distance (cr, &ex, &ey);
  return MAX (1, MAX (hypot (dx, dy), hypot (ex, ey)));
}

static void
paint_reduced (cairo_t *cr, const Layout *l, const Reduced *r,
               cairo_surface_t *img, guint block)
{
  cairo_save (cr);
  cairo_rectangle (cr, l->px, l->py, l->pw, l->ph);
  cairo_clip (cr);
  /* the image's first pixel starts at block bx0, which may lie left of
   * the view when it starts inside a block */
  cairo_translate (cr, l->px + (r->bx0 * (double) block - l->ex0) * l->s,
                   l->py + (r->by0 * (double) block - l->ey0) * l->s);
  cairo_scale (cr, r->nbx * (double) block * l->s / r->iw,
               r->nby * (double) block * l->s / r->ih);
  cairo_set_source_surface (cr, img, 0, 0);
  cairo_pattern_set_filter (cairo_get_source (cr), CAIRO_FILTER_NEAREST);
  cairo_paint (cr);
  cairo_restore (cr);
}

static void
grid_line (cairo_t *cr, const Layout *l, double e, gboolean vertical)
{
  if (vertical)
    {
      double x = l->px + (e - l->ex0) * l->s;
      cairo_move_to (cr, x, l->py);
      cairo_line_to (cr, x, l->py + l->ph);
    }
  else
    {
      double y = l->py + (e - l->ey0) * l->s;
      cairo_move_to (cr, l->px, y);
      cairo_line_to (cr, l->px + l->pw, y);
    }
}

/* Faint lines at block boundaries when blocks are big enough to see;
 * darker ones at the ticks that are block boundaries: groups of blocks
 * (power-of-two groups with the usual block sizes). */
static void
draw_grid (cairo_t *cr, const Layout *l, const SpxMask *m,
           const SpxRenderStyle *style, double ds)
{
  cairo_save (cr);
  cairo_rectangle (cr, l->px, l->py, l->pw, l->ph);
  cairo_clip (cr);
  cairo_set_line_width (cr, 1 / ds);
  if (l->s * m->block >= 4)
    {
      for (guint64 c = (guint64) ceil (l->x0); c < l->x1; c++)
        grid_line (cr, l, (double) c * m->block, TRUE);
      for (guint64 r = (guint64) ceil (l->y0); r < l->y1; r++)
        grid_line (cr, l, (double) r * m->block, FALSE);
      spx_render_set_rgba (cr, style->muted, 0.35);
      cairo_stroke (cr);
    }
  for (guint i = 0; i < l->n_ct; i++)
    if (fmod (l->ct[i], m->block) == 0)
      grid_line (cr, l, l->ct[i], TRUE);
  for (guint i = 0; i < l->n_rt; i++)
    if (fmod (l->rt[i], m->block) == 0)
      grid_line (cr, l, l->rt[i], FALSE);
  spx_render_set_rgba (cr, style->muted, 0.8);
  cairo_stroke (cr);
  cairo_restore (cr);
}

static void
tick_mark (cairo_t *cr, const SpxRenderStyle *style, double x0, double y0,
           double x1, double y1)
{
  spx_render_set_rgb (cr, style->muted);
  cairo_set_line_width (cr, 1);
  cairo_move_to (cr, x0, y0);
  cairo_line_to (cr, x1, y1);
  cairo_stroke (cr);
}

/* Tick labels in elements; a label that would touch the last one drawn
 * is skipped, so none overlap whatever the font. */
static void
draw_axes (cairo_t *cr, const Layout *l, const SpxRenderStyle *style,
           double width)
{
  SpxTextOpts t = { .size = 0.85, .ax = 1, .ay = 0.5 };
  double last = -G_MAXDOUBLE, h;
  for (guint i = 0; i < l->n_rt; i++)
    {
      double y = l->py + (l->rt[i] - l->ey0) * l->s;
      g_autofree char *s = tick_label (l->rt[i]);
      spx_render_text_width (cr, style, t.size, s, &h);
      if (y - h / 2 < last + 2)
        continue;
      last = y + h / 2;
      spx_render_text (cr, style, l->px - TICK - 3, y, &t, s);
      tick_mark (cr, style, l->px - TICK, y, l->px, y);
    }
  last = -G_MAXDOUBLE;
  t.ax = 0.5;
  t.ay = 1;
  for (guint i = 0; i < l->n_ct; i++)
    {
      double x = l->px + (l->ct[i] - l->ex0) * l->s;
      g_autofree char *s = tick_label (l->ct[i]);
      double w = spx_render_text_width (cr, style, t.size, s, NULL);
      double lx = MIN (x, width - 2 - w / 2); /* keep inside the picture */
      if (lx - w / 2 < last + 6)
        continue;
      last = lx + w / 2;
      spx_render_text (cr, style, lx, l->py - TICK - 2, &t, s);
      tick_mark (cr, style, x, l->py - TICK, x, l->py);
    }
}

/* Text shrunk (to 70% at most) to fit the width. */
static void
draw_line (cairo_t *cr, const SpxRenderStyle *style, double y, double width,
           SpxTextOpts *t, const char *text)
{
  double w = spx_render_text_width (cr, style, t->size, text, NULL);
  if (t->bold)
    w *= 1.15; /* text_width measures the regular face */
  if (w > width - 2 * PAD)
    t->size *= MAX (0.7, (width - 2 * PAD) / w);
  spx_render_text (cr, style, PAD, y, t, text);
}

static char *
title_text (const SpxMask *m)
{
  guint64 n = spx_mask_n_blocks (m), set = spx_mask_count (m);
  return g_strdup_printf ("%" G_GUINT64_FORMAT " × %" G_GUINT64_FORMAT
                          " · %u×%u blocks · density %.3g%%", m->rows,
                          m->cols, m->block, m->block,
                          n ? 100.0 * set / n : 0.0);
}

static char *
subtitle_text (const SpxRenderMaskData *d, guint64 selected_visible)
{
  const SpxIpuProgram *p = d->program;
  if (!program_matches (d))
    return g_strdup ("the plan is for another shape or block size");
  GString *s = g_string_new (NULL);
  if (d->colour_by_tile)
    g_string_append_printf (s, "colour: the tile holding each block "
                            "(%s, %s)", p->machine->name,
                            spx_ipu_mode_to_string (p->mode));
  if (shows_lines (d))
    g_string_append_printf (s, "%slines: the %s plan's partitions",
                            s->len ? " · " : "",
                            spx_ipu_mode_to_string (p->mode));
  else if (shows_strip (d))
    g_string_append_printf (s, "%sstrip below: each column's k-band",
                            s->len ? " · " : "");
  if (d->selected_tile >= 0 && (guint) d->selected_tile < p->n_tiles)
    {
      const GArray *b = p->tiles[d->selected_tile].blocks;
      guint n = b ? b->len : 0;
      /* static tiles list the blocks they store; dynamic ones their
       * partition's, shared along z */
      g_autofree char *what = p->mode == SPX_IPU_MODE_STATIC
        ? spx_ipu_count_text (SPX_IPU_COUNT_STORED, n)
        : g_strdup_printf ("%u block%s of its partition", n,
                           n == 1 ? "" : "s");
      g_string_append_printf (s, "%stile %d: %s", s->len ? " · " : "",
                              d->selected_tile, what);
      if (b != NULL && selected_visible < b->len)
        g_string_append_printf (s, ", %" G_GUINT64_FORMAT " in view",
                                selected_visible);
    }
  return g_string_free (s, FALSE);
}

/* Blocks too small to see get a ring in the highlight colour, so that a
 * tile's few blocks can be found on a whole-matrix view. */
static void
ring_selected (cairo_t *cr, const Layout *l, const SpxMask *m,
               const SpxIpuTile *tile, const SpxRenderStyle *style)
{
  double cell = l->s * m->block, side = cell + 6;
  if (cell >= 6 || tile->blocks == NULL || tile->blocks->len > 4096)
    return;
  cairo_save (cr);
  cairo_rectangle (cr, l->px, l->py, l->pw, l->ph);
  cairo_clip (cr);
  const guint64 *list = (const guint64 *) (gconstpointer) tile->blocks->data;
  for (guint i = 0; i < tile->blocks->len; i++)
    {
      double br = (double) (list[i] / m->bcols);
      double bc = (double) (list[i] % m->bcols);
      if (bc + 1 <= l->x0 || bc >= l->x1 || br + 1 <= l->y0 || br >= l->y1)
        continue;
      double cx = l->px + ((bc + 0.5) * m->block - l->ex0) * l->s;
      double cy = l->py + ((br + 0.5) * m->block - l->ey0) * l->s;
      cairo_rectangle (cr, cx - side / 2, cy - side / 2, side, side);
    }
  cairo_set_line_width (cr, 1.5);
  spx_render_set_rgb (cr, style->highlight);
  cairo_stroke (cr);
  cairo_restore (cr);
}

static void
group_lines (cairo_t *cr, const Layout *l, const guint32 *g, guint64 n,
             guint block, gboolean vertical)
{
  if (!groups_as_lines (g, n))
    return;
  for (guint64 i = 1; i < n; i++)
    if (g[i] != g[i - 1])
      grid_line (cr, l, (double) i * block, vertical);
}

static void
draw_partitions (cairo_t *cr, const Layout *l, const SpxRenderMaskData *d,
                 const SpxRenderStyle *style)
{
  const SpxIpuProgram *p = d->program;
  const SpxMask *m = d->mask;
  cairo_save (cr);
  cairo_rectangle (cr, l->px, l->py, l->pw, l->ph);
  cairo_clip (cr);
  group_lines (cr, l, p->row_group, m->brows, m->block, FALSE);
  group_lines (cr, l, p->col_group, m->bcols, m->block, TRUE);
  /* a halo keeps the line apart from blocks of a colour like its own */
  cairo_set_line_width (cr, 3.5);
  spx_render_set_rgb (cr, style->background);
  cairo_stroke_preserve (cr);
  cairo_set_line_width (cr, 1.5);
  spx_render_set_rgb (cr, style->partition);
  cairo_stroke (cr);
  cairo_restore (cr);
}

/* One pixel per visible block column, coloured by its group, stretched
 * under the plot. */
static void
draw_strip (cairo_t *cr, const Layout *l, const SpxRenderMaskData *d,
            const SpxRenderStyle *style)
{
  const SpxMask *m = d->mask;
  guint64 c0 = (guint64) floor (l->x0);
  guint64 c1 = MIN ((guint64) ceil (l->x1), m->bcols);
  if (c1 <= c0 || c1 - c0 > 32767)
    return;
  cairo_surface_t *img = cairo_image_surface_create (CAIRO_FORMAT_RGB24,
                                                     (int) (c1 - c0), 1);
  guint32 *px = (guint32 *) cairo_image_surface_get_data (img);
  cairo_surface_flush (img);
  for (guint64 c = c0; c < c1; c++)
    px[c - c0] = pack (style->series[d->program->col_group[c] % SPX_N_SERIES]);
  cairo_surface_mark_dirty (img);
  cairo_save (cr);
  double y = l->py + l->ph + 4;
  cairo_rectangle (cr, l->px, y, l->pw, STRIP_H);
  cairo_clip (cr);
  cairo_translate (cr, l->px + ((double) c0 * m->block - l->ex0) * l->s, y);
  cairo_scale (cr, m->block * l->s, STRIP_H);
  cairo_set_source_surface (cr, img, 0, 0);
  cairo_pattern_set_filter (cairo_get_source (cr), CAIRO_FILTER_NEAREST);
  cairo_paint (cr);
  cairo_restore (cr);
  cairo_surface_destroy (img);
}

/* Black or white, whichever stands out more on c. */
static SpxRgb
text_on (SpxRgb c)
{
  static const SpxRgb black = { 0.06, 0.06, 0.06 }, white = { 1, 1, 1 };
  return spx_rgb_contrast (c, black) >= spx_rgb_contrast (c, white)
         ? black : white;
}

/* The font size (× the style's) that fits labels of `digits` digits in
 * a cell, or 0 when even the smallest does not. */
static double
number_size (cairo_t *cr, const SpxRenderStyle *style, double cell,
             guint digits)
{
  char widest[12] = "";
  memset (widest, '0', MIN (digits, sizeof widest - 1));
  for (double px = MIN (NUMBER_PX_MAX, cell * 0.5); px >= NUMBER_PX_MIN;
       px -= 1)
    {
      double size = px / style->font_size;
      if (spx_render_text_width (cr, style, size, widest, NULL) <= cell - 3)
        return size;
    }
  return 0;
}

/* Each visible block's tile number, where blocks are big enough. */
static void
draw_numbers (cairo_t *cr, const Layout *l, const SpxMask *m,
              const TileColours *tc, const SpxRenderStyle *style)
{
  double cell = l->s * m->block;
  if (cell < 2 * NUMBER_PX_MIN || tc->n_used == 0)
    return;
  guint digits = 1;
  for (guint t = tc->used[tc->n_used - 1]; t >= 10; t /= 10)
    digits++;
  SpxTextOpts t = { .size = number_size (cr, style, cell, digits),
                    .ax = 0.5, .ay = 0.5, .use_colour = TRUE };
  if (t.size <= 0)
    return;
  cairo_save (cr);
  cairo_rectangle (cr, l->px, l->py, l->pw, l->ph);
  cairo_clip (cr);
  for (guint64 br = (guint64) floor (l->y0); br < l->y1 && br < m->brows; br++)
    for (guint64 bc = (guint64) floor (l->x0); bc < l->x1 && bc < m->bcols;
         bc++)
      {
        guint32 owner = _spx_mask_owner_of (tc, br * m->bcols + bc);
        if (owner == G_MAXUINT32)
          continue;
        char label[16];
        g_snprintf (label, sizeof label, "%u", owner);
        t.colour = text_on (tc->colour[owner]);
        spx_render_text (cr, style,
                         l->px + ((bc + 0.5) * m->block - l->ex0) * l->s,
                         l->py + ((br + 0.5) * m->block - l->ey0) * l->s, &t,
                         label);
      }
  cairo_restore (cr);
}

static void
legend_swatches (cairo_t *cr, const Layout *l, const TileColours *tc,
                 const SpxRenderStyle *style)
{
  double row = MIN (LEGEND_ROW, l->lh / tc->n_used);
  if (row < MIN_ROW)
    return;
  SpxTextOpts t = { .size = 0.85, .ay = 0.5 };
  for (guint i = 0; i < tc->n_used; i++)
    {
      double y = l->ly + i * row + row / 2;
      spx_render_set_rgb (cr, tc->colour[tc->used[i]]);
      cairo_rectangle (cr, l->lx, y - SWATCH / 2, SWATCH, SWATCH);
      cairo_fill (cr);
      g_autofree char *label = g_strdup_printf ("tile %u", tc->used[i]);
      spx_render_text (cr, style, l->lx + SWATCH + 4, y, &t, label);
    }
}

/* A vertical bar from the first tile's colour (top) to the last's. */
static void
legend_ramp (cairo_t *cr, const Layout *l, const TileColours *tc,
             const SpxRenderStyle *style)
{
  double bar_y = l->ly + LEGEND_ROW, bar_h = MIN (l->lh - 2 * LEGEND_ROW, 200);
  if (bar_h < 3 * MIN_ROW)
    return;
  cairo_pattern_t *grad = cairo_pattern_create_linear (0, bar_y, 0,
                                                       bar_y + bar_h);
  for (guint i = 0; i <= 8; i++)
    {
      SpxRgb c = spx_render_tile_ramp (style, i / 8.0);
      cairo_pattern_add_color_stop_rgb (grad, i / 8.0, c.r, c.g, c.b);
    }
  cairo_rectangle (cr, l->lx, bar_y, SWATCH, bar_h);
  cairo_set_source (cr, grad);
  cairo_fill (cr);
  cairo_pattern_destroy (grad);
  SpxTextOpts t = { .size = 0.85, .ay = 0.5 };
  g_autofree char *first = g_strdup_printf ("tile %u", tc->used[0]);
  g_autofree char *last = g_strdup_printf ("tile %u",
                                           tc->used[tc->n_used - 1]);
  spx_render_text (cr, style, l->lx, l->ly + LEGEND_ROW / 2, &t, first);
  spx_render_text (cr, style, l->lx, bar_y + bar_h + LEGEND_ROW / 2, &t, last);
}

static void
draw_legend (cairo_t *cr, const Layout *l, const TileColours *tc,
             const SpxRenderStyle *style)
{
  if (!l->legend || tc->n_used == 0)
    return;
  cairo_save (cr);
  if (tc->n_used <= SPX_N_TILE_COLOURS)
    legend_swatches (cr, l, tc, style);
  else
    legend_ramp (cr, l, tc, style);
  cairo_restore (cr);
}

static void
draw_plot (cairo_t *cr, const Layout *l, const SpxRenderMaskData *d,
           const SpxRenderStyle *style, guint64 *selected_visible)
{
  const SpxMask *m = d->mask;
  gboolean use_program = program_matches (d);
  double ds = device_scale (cr);
  Reduced r;
  reduced_init (&r, l, ds);
  TileColours tc = { 0 }, *colours = NULL;
  if (colours_by_tile (d) &&
      _spx_mask_tile_colours_init (&tc, d->program, spx_mask_n_blocks (m), style))
    {
      colours = &tc;
      r.rgb = g_new0 (float, (gsize) r.iw * r.ih * 3);
    }
  reduce_bits (&r, m, colours, style);
  const SpxIpuTile *selected = NULL;
  if (use_program && d->selected_tile >= 0 &&
      (guint) d->selected_tile < d->program->n_tiles)
    {
      selected = &d->program->tiles[d->selected_tile];
      *selected_visible = reduce_selection (&r, m, selected);
    }
  cairo_surface_t *img = reduced_to_image (&r, style);
  paint_reduced (cr, l, &r, img, m->block);
  cairo_surface_destroy (img);
  reduced_clear (&r);
  if (d->grid)
    draw_grid (cr, l, m, style, ds);
  if (shows_lines (d))
    draw_partitions (cr, l, d, style);
  if (l->strip)
    draw_strip (cr, l, d, style);
  if (selected != NULL)
    ring_selected (cr, l, m, selected, style);
  else if (colours != NULL) /* a selection speaks for itself */
    draw_numbers (cr, l, m, colours, style);
  if (colours != NULL)
    draw_legend (cr, l, colours, style);
  _spx_mask_tile_colours_clear (&tc);
  cairo_save (cr);
  cairo_set_line_width (cr, 1);
  spx_render_set_rgb (cr, style->muted);
  cairo_rectangle (cr, l->px - 0.5, l->py - 0.5, l->pw + 1, l->ph + 1);
  cairo_stroke (cr);
  cairo_restore (cr);
}

void
spx_render_mask (cairo_t *cr, double width, double height, gconstpointer data,
                 const SpxRenderStyle *style)
{
  const SpxRenderMaskData *d = data;
  spx_render_clear (cr, style, width, height);
  if (d == NULL || d->mask == NULL || spx_mask_n_blocks (d->mask) == 0)
    {
      spx_render_placeholder (cr, style, width, height, "No mask");
      return;
    }
  SpxTextOpts t = { .bold = TRUE, .size = 1 };
  double extra = spx_render_user_title_extra (cr, style, &t, width - 2 * PAD);
  Layout l;
  layout (width, height, d, extra, &l);
  guint64 selected_visible = 0;
  draw_plot (cr, &l, d, style, &selected_visible);
  draw_axes (cr, &l, style, width);
  g_autofree char *title = title_text (d->mask);
  if (!spx_render_user_title (cr, style, PAD, PAD, &t, width - 2 * PAD))
    draw_line (cr, style, PAD, width, &t, title);
  if (l.subtitle)
    {
      g_autofree char *sub = subtitle_text (d, selected_visible);
      SpxTextOpts st = { .size = 0.9, .colour = style->muted,
                         .use_colour = TRUE };
      draw_line (cr, style, PAD + TITLE_H + extra, width, &st, sub);
    }
}

/* ---- its row in the table of views ------------------------------- */

static void
mask_fill (const SpxRenderViewState *st, gpointer data)
{
  SpxRenderMaskData *d = data;
  d->mask = st->mask;
  d->grid = TRUE;
  d->program = spx_render_view_shown_program (st);
  d->selected_tile = st->tile;
  d->colour_by_tile = st->colour_by_tile;
}

static gboolean
mask_hit (double width, double height, gconstpointer data,
          const SpxRenderStyle *style, double x, double y,
          SpxRenderViewHit *hit)
{
  guint64 br, bc;
  if (!spx_render_mask_hit (width, height, data, x, y, &br, &bc))
    return FALSE;
  hit->block_row = (gint64) br;
  hit->block_col = (gint64) bc;
  return TRUE;
}

const SpxRenderView spx_render_view_mask = {
  .name = "mask", .title = "Mask", .summary = "draw and edit the mask",
  .needs = SPX_RENDER_VIEW_NEEDS_PLAN,
  .data_size = sizeof (SpxRenderMaskData), .fill = mask_fill,
  .draw = spx_render_mask, .hit = mask_hit,
};
