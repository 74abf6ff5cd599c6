/* spx-render-exchange.c: one exchange superstep. A small machine is drawn
 * as its tile grid with an arrow per (source, destination) pair; a large
 * one as a group × group heat map of bytes with per-tile in / out bars.
 * Geometry depends only on the size, the program and the font size, so
 * the hit test (which has no cairo_t) finds the same boxes the picture
 * draws. */
#include "spx-render-exchange.h"

#include <math.h>

#define MARGIN 8.0
#define GROUPS_MAX 46 /* heat map rows: 1,472 tiles = 46 groups of 32 */

typedef struct {
  gboolean grid;
  double   width, height;
  double   line;      /* height of one line of text */
  double   top;       /* first y below the title */
  /* grid */
  guint    cols, rows;
  double   cell_w, cell_h, box, x0, y0;
  double   widest;    /* the largest arrow's line width */
  /* large machines: heat map, legend, per-tile strips */
  guint    group, n_groups;
  double   hx, hy, hs;
  double   lx, lw;
  double   sx, sw, caption_y, in_y, out_y, sh;
} Layout;

static double
default_font_size (void)
{
  SpxRenderStyle s;
  spx_render_style_init (&s, SPX_THEME_LIGHT);
  return s.font_size;
}

static void
layout_grid (Layout *l, const SpxIpuProgram *p, double w, double h)
{
  guint gw = p->machine->grid_width;
  l->cols = CLAMP (gw, 1, p->n_tiles);
  l->rows = (p->n_tiles + l->cols - 1) / l->cols;
  double aw = MAX (1, w - 2 * MARGIN), ah = MAX (1, h - l->top - MARGIN);
  /* cells may be wider than tall: the gaps then hold byte labels */
  l->cell_h = ah / l->rows;
  l->cell_w = MIN (aw / l->cols, 2.2 * l->cell_h);
  l->box = 0.45 * MIN (l->cell_w, l->cell_h);
  l->x0 = MARGIN + (aw - l->cell_w * l->cols) / 2;
  l->y0 = l->top;
}

static void
layout_large (Layout *l, const SpxIpuProgram *p, double w, double h,
              double fs)
{
  l->group = (p->n_tiles + GROUPS_MAX - 1) / GROUPS_MAX;
  l->n_groups = (p->n_tiles + l->group - 1) / l->group;
  /* bottom up: the two strips and their caption */
  l->sh = CLAMP (h * 0.065, 8, 26);
  l->out_y = h - MARGIN - l->sh;
  l->in_y = l->out_y - 3 - l->sh;
  l->caption_y = l->in_y - 3 - l->line;
  l->sx = MARGIN + 2.6 * fs;
  l->sw = MAX (1, w - MARGIN - l->sx);
  /* the heat map: tick labels left of it and below it, legend right */
  double left = MARGIN + 2.8 * fs, bottom = l->caption_y - 6 - l->line;
  l->lw = CLAMP (w * 0.28, 96, 200);
  double side = MIN (w - MARGIN - l->lw - 12 - left, bottom - l->top);
  l->hs = MAX (8, side);
  l->hx = left;
  l->hy = l->top;
  l->lx = l->hx + l->hs + 12;
  l->lw = MAX (0, w - MARGIN - l->lx);
}

static void
layout_compute (Layout *l, const SpxIpuProgram *p, double w, double h,
                double fs)
{
  *l = (Layout) { .width = w, .height = h };
  l->line = 1.4 * fs;
  l->top = 6 + 1.15 * l->line + 0.95 * l->line + 6;
  l->grid = p->n_tiles <= SPX_RENDER_EXCHANGE_MAX_GRID;
  if (l->grid)
    layout_grid (l, p, w, h);
  else
    layout_large (l, p, w, h, fs);
}

static void
tile_centre (const Layout *l, guint t, double *x, double *y)
{
  *x = l->x0 + (t % l->cols + 0.5) * l->cell_w;
  *y = l->y0 + (t / l->cols + 0.5) * l->cell_h;
}

/* The exchange step data names, or NULL when there is nothing to draw. */
static const SpxIpuStep *
exchange_step (const SpxRenderExchangeData *d)
{
  if (d == NULL || d->program == NULL ||
      d->superstep >= d->program->steps->len)
    return NULL;
  const SpxIpuStep *s = &g_array_index (d->program->steps, SpxIpuStep,
                                        d->superstep);
  if (s->kind != SPX_STEP_EXCHANGE || s->transfers == NULL)
    return NULL;
  return s;
}

gboolean
spx_render_exchange_tile_box (double width, double height,
                              const SpxRenderExchangeData *d, guint tile,
                              double *x, double *y, double *w, double *h)
{
  if (exchange_step (d) == NULL || tile >= d->program->n_tiles)
    return FALSE;
  Layout l;
  layout_compute (&l, d->program, width, height, default_font_size ());
  if (!l.grid)
    return FALSE;
  double cx, cy;
  tile_centre (&l, tile, &cx, &cy);
  *x = cx - l.box / 2;
  *y = cy - l.box / 2;
  *w = *h = l.box;
  return TRUE;
}

gint
spx_render_exchange_hit (double width, double height,
                         const SpxRenderExchangeData *d, double x, double y)
{
  if (exchange_step (d) == NULL)
    return -1;
  const SpxIpuProgram *p = d->program;
  Layout l;
  layout_compute (&l, p, width, height, default_font_size ());
  if (!l.grid)
    {
      if (x < l.sx || x >= l.sx + l.sw || y < l.in_y || y > l.out_y + l.sh)
        return -1;
      guint t = (guint) ((x - l.sx) / l.sw * p->n_tiles);
      return MIN (t, p->n_tiles - 1);
    }
  for (guint t = 0; t < p->n_tiles; t++)
    {
      double cx, cy;
      tile_centre (&l, t, &cx, &cy);
      if (fabs (x - cx) <= l.box / 2 && fabs (y - cy) <= l.box / 2)
        return (gint) t;
    }
  return -1;
}

/* ---- title ---- */

/* Join parts with " · " while they fit in max_w. */
static char *
fit_parts (cairo_t *cr, const SpxRenderStyle *style, double size,
           double max_w, const char *const *parts, guint n)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < n; i++)
    {
      gsize old = s->len;
      if (s->len > 0)
        g_string_append (s, " · ");
      g_string_append (s, parts[i]);
      if (spx_render_text_width (cr, style, size, s->str, NULL) > max_w)
        {
          g_string_truncate (s, old);
          break;
        }
    }
  return g_string_free (s, FALSE);
}

typedef struct {
  guint64 total, largest;
  guint   pairs;
} Totals;

static void
draw_title (cairo_t *cr, const SpxRenderStyle *style, double width,
            const Layout *l, const SpxRenderExchangeData *d,
            const SpxIpuStep *s, const Totals *t)
{
  const SpxIpuProgram *p = d->program;
  g_autofree char *step = g_strdup_printf ("step %u of %u", d->superstep + 1,
                                           p->steps->len);
  g_autofree char *cycles_n = spx_render_format_count ((double) s->cycles);
  g_autofree char *cycles = g_strdup_printf ("%s cycles", cycles_n);
  g_autofree char *bytes_n = spx_render_format_bytes ((double) t->total);
  g_autofree char *bytes = g_strdup_printf ("%s moved", bytes_n);
  g_autofree char *pairs_n = spx_render_format_count (t->pairs);
  g_autofree char *pairs = g_strdup_printf ("%s tile pairs", pairs_n);
  g_autofree char *big_n = spx_render_format_bytes ((double) t->largest);
  g_autofree char *big = g_strdup_printf (l->grid ? "widest arrow %s"
                                                  : "largest pair %s", big_n);
  const char *head[] = { spx_ipu_mode_to_string (p->mode), step, s->phase };
  const char *sub[] = { cycles, bytes, pairs, big };
  double max_w = width - 2 * MARGIN;
  g_autofree char *h1 = fit_parts (cr, style, 1.05, max_w, head, 3);
  g_autofree char *h2 = fit_parts (cr, style, 0.9, max_w, sub, 4);
  SpxTextOpts o = { .size = 1.05, .bold = TRUE };
  spx_render_text (cr, style, MARGIN, 6, &o, h1);
  SpxTextOpts o2 = { .size = 0.9, .colour = style->muted, .use_colour = TRUE };
  spx_render_text (cr, style, MARGIN, 6 + 1.15 * l->line, &o2, h2);
}

/* ---- the grid: one arrow per tile pair ---- */

typedef struct {
  guint32 src, dst;
  guint64 bytes;
  double  x0, y0, cx, cy, x1, y1; /* quadratic curve, ends on the boxes */
} Arrow;

static gint
arrow_by_bytes (gconstpointer a, gconstpointer b)
{
  const Arrow *x = a, *y = b;
  return (x->bytes > y->bytes) - (x->bytes < y->bytes);
}

/* Transfers summed per (src, dst): planners may send several pieces. */
static GArray *
pair_arrows (const SpxIpuStep *s, Totals *t)
{
  GHashTable *index = g_hash_table_new (g_int64_hash, g_int64_equal);
  GArray *arrows = g_array_new (FALSE, TRUE, sizeof (Arrow));
  gint64 *keys = g_new (gint64, MAX (s->transfers->len, 1));
  for (guint i = 0; i < s->transfers->len; i++)
    {
      const SpxIpuTransfer *tr = &g_array_index (s->transfers,
                                                 SpxIpuTransfer, i);
      keys[i] = ((gint64) tr->src << 32) | tr->dst;
      gpointer at;
      if (g_hash_table_lookup_extended (index, &keys[i], NULL, &at))
        g_array_index (arrows, Arrow, GPOINTER_TO_UINT (at)).bytes +=
          tr->bytes;
      else
        {
          Arrow a = { .src = tr->src, .dst = tr->dst, .bytes = tr->bytes };
          g_hash_table_insert (index, &keys[i],
                               GUINT_TO_POINTER (arrows->len));
          g_array_append_val (arrows, a);
        }
      t->total += tr->bytes;
    }
  for (guint i = 0; i < arrows->len; i++)
    t->largest = MAX (t->largest, g_array_index (arrows, Arrow, i).bytes);
  t->pairs = arrows->len;
  g_hash_table_destroy (index);
  g_free (keys);
  return arrows;
}

static gboolean
has_pair (GArray *arrows, guint32 src, guint32 dst)
{
  for (guint i = 0; i < arrows->len; i++)
    {
      const Arrow *a = &g_array_index (arrows, Arrow, i);
      if (a->src == src && a->dst == dst)
        return TRUE;
    }
  return FALSE;
}

/* Does the straight line between two tile centres cross a third tile? */
static gboolean
blocked (const Layout *l, guint n_tiles, const Arrow *a)
{
  double x0, y0, x1, y1;
  tile_centre (l, a->src, &x0, &y0);
  tile_centre (l, a->dst, &x1, &y1);
  double r = l->box / 2 + 2;
  for (guint t = 0; t < n_tiles; t++)
    {
      if (t == a->src || t == a->dst)
        continue;
      double cx, cy;
      tile_centre (l, t, &cx, &cy);
      for (guint k = 1; k < 32; k++)
        {
          double f = k / 32.0;
          if (fabs (x0 + f * (x1 - x0) - cx) < r &&
              fabs (y0 + f * (y1 - y0) - cy) < r)
            return TRUE;
        }
    }
  return FALSE;
}

/* From a tile's centre towards (tx, ty) to the edge of its box, plus a
 * small gap. */
static void
leave_box (const Layout *l, double cx, double cy, double tx, double ty,
           double *x, double *y)
{
  double dx = tx - cx, dy = ty - cy, len = hypot (dx, dy);
  if (len < 1e-9)
    {
      *x = cx;
      *y = cy;
      return;
    }
  dx /= len;
  dy /= len;
  double t = l->box / 2 / MAX (fabs (dx), fabs (dy)) + 2;
  *x = cx + dx * t;
  *y = cy + dy * t;
}

/* Straight when the way is clear; a pair sent both ways is drawn as two
 * parallel arrows; a line through another tile bends around it. */
static void
route_arrow (const Layout *l, guint n_tiles, GArray *arrows, Arrow *a)
{
  double x0, y0, x1, y1;
  tile_centre (l, a->src, &x0, &y0);
  tile_centre (l, a->dst, &x1, &y1);
  double dx = x1 - x0, dy = y1 - y0, len = MAX (1e-9, hypot (dx, dy));
  double nx = -dy / len, ny = dx / len; /* to the right on screen */
  double bend = 0;
  if (blocked (l, n_tiles, a))
    bend = 0.5 * MIN (l->cell_w, l->cell_h);
  else if (has_pair (arrows, a->dst, a->src))
    {
      double off = 0.16 * l->box;
      x0 += nx * off;
      y0 += ny * off;
      x1 += nx * off;
      y1 += ny * off;
    }
  a->cx = (x0 + x1) / 2 + nx * bend;
  a->cy = (y0 + y1) / 2 + ny * bend;
  leave_box (l, x0, y0, a->cx, a->cy, &a->x0, &a->y0);
  leave_box (l, x1, y1, a->cx, a->cy, &a->x1, &a->y1);
}

static void
draw_arrow (cairo_t *cr, const Layout *l, const Arrow *a, double lw)
{
  /* the line stops where the head begins, so the tip stays sharp; small
   * tiles get small heads */
  double hl = MIN (4 + 2.2 * lw, 0.45 * l->box + 2);
  double hw = hl * (2 + 1.4 * lw) / (4 + 2.2 * lw);
  double dx = a->x1 - a->cx, dy = a->y1 - a->cy;
  double len = MAX (1e-9, hypot (dx, dy));
  dx /= len;
  dy /= len;
  double ex = a->x1 - dx * hl * 0.8, ey = a->y1 - dy * hl * 0.8;
  cairo_set_line_width (cr, lw);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_BUTT);
  cairo_move_to (cr, a->x0, a->y0);
  cairo_curve_to (cr, a->x0 + 2.0 / 3 * (a->cx - a->x0),
                  a->y0 + 2.0 / 3 * (a->cy - a->y0),
                  ex + 2.0 / 3 * (a->cx - ex), ey + 2.0 / 3 * (a->cy - ey),
                  ex, ey);
  cairo_stroke (cr);
  cairo_move_to (cr, a->x1, a->y1);
  cairo_line_to (cr, a->x1 - dx * hl - dy * hw, a->y1 - dy * hl + dx * hw);
  cairo_line_to (cr, a->x1 - dx * hl + dy * hw, a->y1 - dy * hl - dx * hw);
  cairo_close_path (cr);
  cairo_fill (cr);
}

/* Thinner the more arrows there are: an all-to-all step of equal
 * transfers would otherwise be one solid tangle. */
static double
widest_arrow (const Layout *l, guint n_arrows)
{
  double crowd = MIN (1.0, 4.0 / sqrt (MAX (n_arrows, 1)));
  return CLAMP (l->box * 0.16 * crowd, 1.5, 10);
}

static double
arrow_width (const Layout *l, guint64 bytes, guint64 largest)
{
  double widest = l->widest > 0 ? l->widest : CLAMP (l->box * 0.16, 2, 10);
  return 1 + (widest - 1) * (largest > 0 ? (double) bytes / largest : 0);
}

static void
draw_tiles (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
            const SpxRenderExchangeData *d, const SpxIpuStep *s)
{
  double size = CLAMP (l->box / (2.2 * style->font_size), 0.55, 1.0);
  for (guint t = 0; t < d->program->n_tiles; t++)
    {
      double cx, cy;
      tile_centre (l, t, &cx, &cy);
      gboolean idle = s->bytes_in[t] == 0 && s->bytes_out[t] == 0;
      cairo_rectangle (cr, cx - l->box / 2, cy - l->box / 2, l->box, l->box);
      spx_render_set_rgb (cr, style->panel);
      cairo_fill_preserve (cr);
      gboolean sel = d->selected_tile == (gint) t;
      spx_render_set_rgb (cr, sel ? style->highlight : style->muted);
      cairo_set_line_width (cr, sel ? 3 : 1);
      cairo_stroke (cr);
      g_autofree char *label = g_strdup_printf ("%u", t);
      SpxTextOpts o = { .size = size, .ax = 0.5, .ay = 0.5, .bold = !idle,
                        .colour = idle ? style->muted : style->foreground,
                        .use_colour = TRUE };
      spx_render_text (cr, style, cx, cy, &o, label);
    }
}

typedef struct {
  double x, y, w, h;
} Box;

static gboolean
boxes_overlap (const Box *a, const Box *b)
{
  return a->x < b->x + b->w && b->x < a->x + a->w && a->y < b->y + b->h &&
         b->y < a->y + a->h;
}

/* Labels are only tried in pictures with few enough arrows to check
 * each label against every line. */
#define LABEL_MAX_ARROWS 400

typedef struct {
  double x, y, r;  /* a point on a line and the line's half width there */
} Sample;

/* Points a few pixels apart along every arrow, heads included. */
static GArray *
arrow_samples (const Layout *l, GArray *arrows, guint64 largest)
{
  GArray *pts = g_array_new (FALSE, FALSE, sizeof (Sample));
  for (guint i = 0; i < arrows->len; i++)
    {
      const Arrow *a = &g_array_index (arrows, Arrow, i);
      double lw = arrow_width (l, a->bytes, largest);
      double len = hypot (a->cx - a->x0, a->cy - a->y0) +
                   hypot (a->x1 - a->cx, a->y1 - a->cy);
      double head = MIN (4 + 2.2 * lw, 0.45 * l->box + 2);
      guint n = MAX (2, (guint) (len / 3));
      for (guint k = 0; k <= n; k++)
        {
          double t = (double) k / n, u = 1 - t;
          Sample p = { u * u * a->x0 + 2 * u * t * a->cx + t * t * a->x1,
                       u * u * a->y0 + 2 * u * t * a->cy + t * t * a->y1,
                       (1 - t) * len < head ? head * 0.7 : lw / 2 + 1 };
          g_array_append_val (pts, p);
        }
    }
  return pts;
}

/* Free if inside the picture and clear of every tile, line and placed
 * label, so that each label can only belong to one arrow. */
static gboolean
label_free (const Layout *l, guint n_tiles, GArray *placed, GArray *pts,
            const Box *b)
{
  if (b->x < 0 || b->y < l->top - 4 || b->x + b->w > l->width ||
      b->y + b->h > l->height)
    return FALSE;
  for (guint t = 0; t < n_tiles; t++)
    {
      double cx, cy;
      tile_centre (l, t, &cx, &cy);
      Box tb = { cx - l->box / 2 - 1, cy - l->box / 2 - 1, l->box + 2,
                 l->box + 2 };
      if (boxes_overlap (b, &tb))
        return FALSE;
    }
  for (guint i = 0; i < placed->len; i++)
    if (boxes_overlap (b, &g_array_index (placed, Box, i)))
      return FALSE;
  for (guint i = 0; i < pts->len; i++)
    {
      const Sample *p = &g_array_index (pts, Sample, i);
      if (p->x > b->x - p->r && p->x < b->x + b->w + p->r &&
          p->y > b->y - p->r && p->y < b->y + b->h + p->r)
        return FALSE;
    }
  return TRUE;
}

/* A byte label beside each arrow's middle (never on it), right side
 * first, largest pairs first; a label that would touch a tile, a line or
 * another label is left out. */
static void
draw_labels (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
             guint n_tiles, GArray *arrows, guint64 largest)
{
  if (arrows->len > LABEL_MAX_ARROWS)
    return;
  GArray *placed = g_array_new (FALSE, FALSE, sizeof (Box));
  GArray *pts = arrow_samples (l, arrows, largest);
  for (guint i = arrows->len; i-- > 0;)
    {
      const Arrow *a = &g_array_index (arrows, Arrow, i);
      g_autofree char *text = spx_render_format_bytes ((double) a->bytes);
      double th, tw = spx_render_text_width (cr, style, 0.8, text, &th);
      double mx = 0.25 * a->x0 + 0.5 * a->cx + 0.25 * a->x1;
      double my = 0.25 * a->y0 + 0.5 * a->cy + 0.25 * a->y1;
      double dx = a->x1 - a->x0, dy = a->y1 - a->y0;
      double len = MAX (1e-9, hypot (dx, dy));
      double nx = -dy / len, ny = dx / len;
      double lw = arrow_width (l, a->bytes, largest);
      for (int side = 1; side >= -1; side -= 2)
        {
          /* far enough along the normal that the box clears the line */
          double reach = lw / 2 + 3 + fabs (nx) * (tw / 2 + 2) +
                         fabs (ny) * (th / 2 + 1);
          double bx = mx + side * nx * reach, by = my + side * ny * reach;
          Box b = { bx - tw / 2 - 2, by - th / 2 - 1, tw + 4, th + 2 };
          if (!label_free (l, n_tiles, placed, pts, &b))
            continue;
          g_array_append_val (placed, b);
          SpxTextOpts o = { .size = 0.8, .ax = 0.5, .ay = 0.5 };
          spx_render_text (cr, style, bx, by, &o, text);
          break;
        }
    }
  g_array_unref (pts);
  g_array_unref (placed);
}

static gboolean
touches (const Arrow *a, gint tile)
{
  return a->src == (guint32) tile || a->dst == (guint32) tile;
}

static void
draw_grid (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
           const SpxRenderExchangeData *d, const SpxIpuStep *s,
           GArray *arrows, const Totals *t)
{
  guint n = d->program->n_tiles;
  for (guint i = 0; i < arrows->len; i++)
    route_arrow (l, n, arrows, &g_array_index (arrows, Arrow, i));
  g_array_sort (arrows, arrow_by_bytes); /* largest on top */
  gboolean any_sel = d->selected_tile >= 0 && d->selected_tile < (gint) n;
  /* a selection dims the other tiles' traffic: drawn opaque in a group
   * and faded as a whole, so heads and crossings do not darken */
  if (any_sel)
    cairo_push_group (cr);
  spx_render_set_rgb (cr, style->series[0]);
  for (guint i = 0; i < arrows->len; i++)
    {
      const Arrow *a = &g_array_index (arrows, Arrow, i);
      if (!any_sel || !touches (a, d->selected_tile))
        draw_arrow (cr, l, a, arrow_width (l, a->bytes, t->largest));
    }
  if (any_sel)
    {
      cairo_pop_group_to_source (cr);
      cairo_paint_with_alpha (cr, 0.25);
      spx_render_set_rgb (cr, style->highlight);
      for (guint i = 0; i < arrows->len; i++)
        {
          const Arrow *a = &g_array_index (arrows, Arrow, i);
          if (touches (a, d->selected_tile))
            draw_arrow (cr, l, a, arrow_width (l, a->bytes, t->largest));
        }
    }
  /* tiles over the lines: a line that crosses a tile is not read as
   * ending there */
  draw_tiles (cr, style, l, d, s);
  draw_labels (cr, style, l, n, arrows, t->largest);
}

/* ---- large machines ---- */

static double *
group_matrix (const Layout *l, const SpxIpuStep *s, double *max)
{
  guint g = l->n_groups;
  double *m = g_new0 (double, (gsize) g * g);
  for (guint i = 0; i < s->transfers->len; i++)
    {
      const SpxIpuTransfer *tr = &g_array_index (s->transfers,
                                                 SpxIpuTransfer, i);
      m[(gsize) (tr->src / l->group) * g + tr->dst / l->group] += tr->bytes;
    }
  *max = 0;
  for (gsize i = 0; i < (gsize) g * g; i++)
    *max = MAX (*max, m[i]);
  return m;
}

static void
draw_heat_axes (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
                guint n_tiles)
{
  double span = (double) l->group * l->n_groups, ticks[16];
  SpxTextOpts o = { .size = 0.8, .ax = 1, .ay = 0.5 };
  guint n = spx_render_nice_ticks (0, n_tiles, CLAMP (l->hs / (l->line * 1.6),
                                                      3, 12), ticks);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *t = g_strdup_printf ("%.0f", ticks[i]);
      spx_render_text (cr, style, l->hx - 3, l->hy + ticks[i] / span * l->hs,
                       &o, t);
    }
  double widest = spx_render_text_width (cr, style, 0.8, "0000", NULL);
  n = spx_render_nice_ticks (0, n_tiles, CLAMP (l->hs / (widest + 10), 3, 12),
                             ticks);
  o.ax = 0.5;
  o.ay = 0;
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *t = g_strdup_printf ("%.0f", ticks[i]);
      double tw = spx_render_text_width (cr, style, 0.8, t, NULL);
      double x = l->hx + ticks[i] / span * l->hs;
      x = MIN (x, l->hx + l->hs + 12 - tw / 2); /* not into the legend */
      spx_render_text (cr, style, x, l->hy + l->hs + 2, &o, t);
    }
}

static void
draw_heat_cells (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
                 const double *m, double max)
{
  guint g = l->n_groups;
  double c = l->hs / g;
  /* no traffic is the map's 0, as the colour bar says; the ground is
   * painted with it so that antialiased cell edges leave no seams */
  spx_render_set_rgb (cr, spx_render_heat (style, 0));
  cairo_rectangle (cr, l->hx, l->hy, l->hs, l->hs);
  cairo_fill (cr);
  for (guint i = 0; i < g; i++)
    for (guint j = 0; j < g; j++)
      {
        double v = m[(gsize) i * g + j];
        if (v <= 0)
          continue;
        spx_render_set_rgb (cr, spx_render_heat (style, v / max));
        cairo_rectangle (cr, l->hx + j * c, l->hy + i * c, c, c);
        cairo_fill (cr);
      }
  cairo_rectangle (cr, l->hx, l->hy, l->hs, l->hs);
  spx_render_set_rgb (cr, style->muted);
  cairo_set_line_width (cr, 1);
  cairo_stroke (cr);
}

static void
draw_heat_selection (cairo_t *cr, const SpxRenderStyle *style,
                     const Layout *l, guint tile)
{
  double c = l->hs / l->n_groups, at = (tile / l->group) * c;
  spx_render_set_rgb (cr, style->highlight);
  cairo_set_line_width (cr, 2);
  cairo_rectangle (cr, l->hx, l->hy + at, l->hs, c);
  cairo_rectangle (cr, l->hx + at, l->hy, c, l->hs);
  cairo_stroke (cr);
}

static void
draw_legend (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
             double max)
{
  if (l->lw < 60)
    return;
  double w = MIN (l->lw, 180), y = l->hy;
  g_autofree char *hi = spx_render_format_bytes (max);
  spx_render_colour_bar (cr, style, l->lx, y, w, 3 * l->line,
                         "bytes, group to group", "0", hi);
  y += 3 * l->line + 8;
  g_autofree char *groups = g_strdup_printf ("%u groups of %u tiles",
                                             l->n_groups, l->group);
  const char *lines[] = { "rows: from, columns: to", groups,
                          "diagonal: within a group" };
  SpxTextOpts o = { .size = 0.8, .colour = style->muted, .use_colour = TRUE };
  for (guint i = 0; i < G_N_ELEMENTS (lines); i++, y += l->line * 0.9)
    {
      if (y + l->line > l->hy + l->hs + l->line ||
          spx_render_text_width (cr, style, 0.8, lines[i], NULL) > l->lw)
        continue;
      spx_render_text (cr, style, l->lx, y, &o, lines[i]);
    }
}

static guint64
max_of (const guint64 *v, guint n)
{
  guint64 m = 0;
  for (guint i = 0; i < n; i++)
    m = MAX (m, v[i]);
  return m;
}

/* One bar per tile, or per pixel column (its tiles' maximum) when there
 * are more tiles than columns, so no tile's peak is lost. */
static void
draw_strip (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
            double y, const guint64 *v, guint n, guint64 max, SpxRgb colour,
            const char *name)
{
  spx_render_set_rgb (cr, style->panel);
  cairo_rectangle (cr, l->sx, y, l->sw, l->sh);
  cairo_fill (cr);
  guint bins = MIN (n, (guint) MAX (1, floor (l->sw)));
  double bw = l->sw / bins;
  spx_render_set_rgb (cr, colour);
  for (guint b = 0; b < bins && max > 0; b++)
    {
      guint lo = (guint) ((guint64) b * n / bins);
      guint hi = MAX (lo + 1, (guint) ((guint64) (b + 1) * n / bins));
      double h = (double) max_of (v + lo, hi - lo) / max * l->sh;
      if (h > 0)
        cairo_rectangle (cr, l->sx + b * bw, y + l->sh - MAX (h, 1),
                         bins == n ? MAX (bw - 0.2, 0.5) : bw + 0.2,
                         MAX (h, 1));
    }
  cairo_fill (cr);
  SpxTextOpts o = { .size = 0.8, .ax = 1, .ay = 0.5 };
  spx_render_text (cr, style, l->sx - 4, y + l->sh / 2, &o, name);
}

static void
draw_strips (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
             const SpxRenderExchangeData *d, const SpxIpuStep *s)
{
  guint n = d->program->n_tiles;
  guint64 max_in = max_of (s->bytes_in, n), max_out = max_of (s->bytes_out, n);
  guint64 max = MAX (max_in, max_out); /* one scale: in and out compare */
  g_autofree char *a = spx_render_format_bytes ((double) max_in);
  g_autofree char *b = spx_render_format_bytes ((double) max_out);
  g_autofree char *range = g_strdup_printf ("per tile, 0 to %u", n - 1);
  g_autofree char *peaks = g_strdup_printf ("most in %s, out %s", a, b);
  const char *parts[] = { "bytes in and out", range, peaks };
  g_autofree char *caption = fit_parts (cr, style, 0.8, l->sw + l->sx - MARGIN,
                                        parts, 3);
  SpxTextOpts o = { .size = 0.8, .colour = style->muted, .use_colour = TRUE };
  spx_render_text (cr, style, MARGIN, l->caption_y + 0.2 * l->line, &o,
                   caption);
  draw_strip (cr, style, l, l->in_y, s->bytes_in, n, max, style->series[0],
              "in");
  /* not series[1]: next to the highlight's orange in both themes */
  draw_strip (cr, style, l, l->out_y, s->bytes_out, n, max, style->series[2],
              "out");
  if (d->selected_tile >= 0 && d->selected_tile < (gint) n)
    {
      double x = l->sx + (d->selected_tile + 0.5) / n * l->sw;
      spx_render_set_rgb (cr, style->highlight);
      cairo_set_line_width (cr, 2);
      cairo_move_to (cr, x, l->in_y - 2);
      cairo_line_to (cr, x, l->out_y + l->sh + 2);
      cairo_stroke (cr);
    }
}

static void
draw_large (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
            const SpxRenderExchangeData *d, const SpxIpuStep *s)
{
  double max;
  g_autofree double *m = group_matrix (l, s, &max);
  draw_heat_cells (cr, style, l, m, max);
  if (d->selected_tile >= 0 && d->selected_tile < (gint) d->program->n_tiles)
    draw_heat_selection (cr, style, l, (guint) d->selected_tile);
  draw_heat_axes (cr, style, l, d->program->n_tiles);
  draw_legend (cr, style, l, max);
  draw_strips (cr, style, l, d, s);
}

/* ---- the view ---- */

static gboolean
check_step (cairo_t *cr, const SpxRenderStyle *style, double width,
            double height, const SpxRenderExchangeData *d)
{
  if (d == NULL || d->program == NULL)
    {
      spx_render_placeholder (cr, style, width, height, "No program");
      return FALSE;
    }
  guint n = d->program->steps->len;
  if (d->superstep >= n)
    {
      g_autofree char *m = g_strdup_printf ("No step %u: the program has %u",
                                            d->superstep + 1, n);
      spx_render_placeholder (cr, style, width, height, m);
      return FALSE;
    }
  if (exchange_step (d) == NULL)
    {
      const SpxIpuStep *s = &g_array_index (d->program->steps, SpxIpuStep,
                                            d->superstep);
      g_autofree char *m = g_strdup_printf (
        "Step %u is %s: no exchange", d->superstep + 1,
        s->kind == SPX_STEP_SYNC ? "a sync" : "compute");
      spx_render_placeholder (cr, style, width, height, m);
      return FALSE;
    }
  return TRUE;
}

void
spx_render_exchange (cairo_t *cr, double width, double height,
                     gconstpointer data, const SpxRenderStyle *style)
{
  const SpxRenderExchangeData *d = data;
  spx_render_clear (cr, style, width, height);
  if (!check_step (cr, style, width, height, d))
    return;
  const SpxIpuStep *s = exchange_step (d);
  Layout l;
  layout_compute (&l, d->program, width, height, style->font_size);
  Totals t = { 0 };
  GArray *arrows = pair_arrows (s, &t);
  l.widest = widest_arrow (&l, arrows->len);
  cairo_save (cr);
  draw_title (cr, style, width, &l, d, s, &t);
  if (l.grid)
    draw_grid (cr, style, &l, d, s, arrows, &t);
  else
    draw_large (cr, style, &l, d, s);
  cairo_restore (cr);
  g_array_unref (arrows);
}
