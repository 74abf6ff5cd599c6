/* spx-render-exchange-arrows.c: the Exchange grid's arrows: summed per
 * tile pair or group pair, routed, sized, drawn and found under a point. */
#include "spx-render-exchange-private.h"

#include <math.h>
#include <string.h>

/* ---- the grid: one arrow per tile pair ---- */

static gint
arrow_by_bytes (gconstpointer a, gconstpointer b)
{
  const Arrow *x = a, *y = b;
  return (x->bytes > y->bytes) - (x->bytes < y->bytes);
}

/* Transfers summed per (src, dst): planners may send several pieces. */
GArray *
_spx_exchange_pair_arrows (const SpxIpuStep *s, Totals *t)
{
  GHashTable *index = g_hash_table_new (g_int64_hash, g_int64_equal);
  GArray *arrows = g_array_new (FALSE, TRUE, sizeof (Arrow));
  gint64 *keys = g_new (gint64, MAX (s->transfers->len, 1));
  for (guint i = 0; i < s->transfers->len; i++)
    {
      const SpxIpuTransfer *tr = _spx_exchange_transfer (s, i);
      keys[i] = ((gint64) tr->src << 32) | tr->dst;
      gpointer at;
      if (g_hash_table_lookup_extended (index, &keys[i], NULL, &at))
        g_array_index (arrows, Arrow, GPOINTER_TO_UINT (at)).bytes +=
          tr->bytes;
      else
        {
          Arrow a = { .src = tr->src, .dst = tr->dst, .bytes = tr->bytes,
                      .pairs = 1 };
          g_hash_table_insert (index, &keys[i],
                               GUINT_TO_POINTER (arrows->len));
          g_array_append_val (arrows, a);
        }
      t->total += tr->bytes;
    }
  for (guint i = 0; i < arrows->len; i++)
    {
      Arrow *a = &g_array_index (arrows, Arrow, i);
      gint64 back = ((gint64) a->dst << 32) | a->src;
      a->twin = g_hash_table_contains (index, &back);
      t->largest = MAX (t->largest, a->bytes);
    }
  t->pairs = arrows->len;
  g_hash_table_destroy (index);
  g_free (keys);
  return arrows;
}

/* Does the straight line between two tile centres cross a third tile? */
static gboolean
blocked (const Layout *l, guint n_tiles, const Arrow *a)
{
  double x0, y0, x1, y1;
  _spx_exchange_tile_centre (l, a->src, &x0, &y0);
  _spx_exchange_tile_centre (l, a->dst, &x1, &y1);
  double r = l->box / 2 + 2;
  for (guint t = 0; t < n_tiles; t++)
    {
      if (t == a->src || t == a->dst)
        continue;
      double cx, cy;
      _spx_exchange_tile_centre (l, t, &cx, &cy);
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

/* From the centre of a box of half sizes hw × hh towards (tx, ty) to
 * its edge, plus a small gap. */
static void
leave_rect (double cx, double cy, double hw, double hh, double tx,
            double ty, double *x, double *y)
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
  double t = 1 / MAX (fabs (dx) / hw, fabs (dy) / hh) + 2;
  *x = cx + dx * t;
  *y = cy + dy * t;
}

/* From a tile's centre towards (tx, ty) to the edge of its box. */
static void
leave_box (const Layout *l, double cx, double cy, double tx, double ty,
           double *x, double *y)
{
  leave_rect (cx, cy, l->box / 2, l->box / 2, tx, ty, x, y);
}

/* Straight when the way is clear; a pair sent both ways is drawn as two
 * parallel arrows; a line through another tile bends around it. */
static void
route_arrow (const Layout *l, guint n_tiles, Arrow *a)
{
  double x0, y0, x1, y1;
  _spx_exchange_tile_centre (l, a->src, &x0, &y0);
  _spx_exchange_tile_centre (l, a->dst, &x1, &y1);
  double dx = x1 - x0, dy = y1 - y0, len = MAX (1e-9, hypot (dx, dy));
  double nx = -dy / len, ny = dx / len; /* to the right on screen */
  double bend = 0;
  if (blocked (l, n_tiles, a))
    bend = 0.5 * MIN (l->cell_w, l->cell_h);
  else if (a->twin)
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

/* Thinner the more arrows there are: an all-to-all step of equal
 * transfers would otherwise be one solid tangle. */
static double
widest_arrow (const Layout *l, guint n_arrows)
{
  double crowd = MIN (1.0, 4.0 / sqrt (MAX (n_arrows, 1)));
  return CLAMP (l->box * 0.16 * crowd, 1.5, 10);
}

double
_spx_exchange_arrow_width (const Layout *l, guint64 bytes, guint64 largest)
{
  double widest = l->widest > 0 ? l->widest : CLAMP (l->box * 0.16, 2, 10);
  return 1 + (widest - 1) * (largest > 0 ? (double) bytes / largest : 0);
}

/* ---- groups of tiles ---- */

/* Group to group; a pair sent both ways as two arrows side by side.
 * Groups are neighbours: no line crosses a third. */
static void
route_group_arrow (const Layout *l, guint n_tiles, Arrow *a)
{
  Box sb, db;
  _spx_exchange_group_box (l, n_tiles, a->src, &sb);
  _spx_exchange_group_box (l, n_tiles, a->dst, &db);
  double x0 = sb.x + sb.w / 2, y0 = sb.y + sb.h / 2;
  double x1 = db.x + db.w / 2, y1 = db.y + db.h / 2;
  double dx = x1 - x0, dy = y1 - y0, len = MAX (1e-9, hypot (dx, dy));
  double off = a->twin ? l->widest / 2 + 4 : 0;
  x0 += -dy / len * off;
  y0 += dx / len * off;
  x1 += -dy / len * off;
  y1 += dx / len * off;
  a->cx = (x0 + x1) / 2;
  a->cy = (y0 + y1) / 2;
  leave_rect (x0, y0, sb.w / 2, sb.h / 2, x1, y1, &a->x0, &a->y0);
  leave_rect (x1, y1, db.w / 2, db.h / 2, x0, y0, &a->x1, &a->y1);
}

/* The tile pairs' arrows summed group to group (src == dst: within a
 * group); the largest between groups in t->largest. */
static GArray *
group_arrows (const Layout *l, GArray *pairs, Totals *t)
{
  guint n = l->gcols * l->grows;
  g_autofree Arrow *m = g_new0 (Arrow, (gsize) n * n);
  for (guint i = 0; i < pairs->len; i++)
    {
      const Arrow *a = &g_array_index (pairs, Arrow, i);
      guint gs = _spx_exchange_group_at (l, a->src);
      guint gd = _spx_exchange_group_at (l, a->dst);
      Arrow *f = &m[gs * n + gd];
      f->src = gs;
      f->dst = gd;
      f->bytes += a->bytes;
      f->pairs++;
    }
  GArray *out = g_array_new (FALSE, TRUE, sizeof (Arrow));
  t->largest = 0;
  for (guint i = 0; i < n * n; i++)
    {
      Arrow *f = &m[i];
      if (f->pairs == 0)
        continue;
      f->twin = f->src != f->dst && m[f->dst * n + f->src].pairs > 0;
      if (f->src != f->dst)
        t->largest = MAX (t->largest, f->bytes);
      g_array_append_val (out, *f);
    }
  return out;
}

/* ---- the arrows drawn ---- */

/* Not drawn as arrows: what stays within a tile or a group. */
gboolean
_spx_exchange_is_loop (const Arrow *a)
{
  return a->src == a->dst;
}

static guint
n_drawn (GArray *arrows)
{
  guint n = 0;
  for (guint i = 0; i < arrows->len; i++)
    n += !_spx_exchange_is_loop (&g_array_index (arrows, Arrow, i));
  return n;
}

/* The step's arrows routed on the grid, tile to tile or group to group,
 * smallest first (drawn so that the largest lie on top); sets
 * l->widest. */
GArray *
_spx_exchange_grid_arrows (Layout *l, const SpxIpuProgram *p,
                           const SpxIpuStep *s, Totals *t)
{
  GArray *arrows = _spx_exchange_pair_arrows (s, t);
  if (l->grouped)
    {
      GArray *pairs = arrows;
      arrows = group_arrows (l, pairs, t);
      g_array_unref (pairs);
    }
  l->widest = widest_arrow (l, n_drawn (arrows));
  for (guint i = 0; i < arrows->len; i++)
    {
      Arrow *a = &g_array_index (arrows, Arrow, i);
      if (l->grouped && !_spx_exchange_is_loop (a))
        route_group_arrow (l, p->n_tiles, a);
      else if (!l->grouped)
        route_arrow (l, p->n_tiles, a);
    }
  g_array_sort (arrows, arrow_by_bytes);
  return arrows;
}

GArray *
spx_render_exchange_flows (const SpxRenderExchangeData *d,
                           gboolean *grouped)
{
  const SpxIpuStep *s = _spx_exchange_shown_step (d);
  if (s == NULL || s->kind != SPX_STEP_EXCHANGE)
    return NULL;
  Layout l;
  _spx_exchange_layout_for (&l, d, s, 960, 600, SPX_RENDER_FONT_SIZE, 0);
  if (!l.grid)
    return NULL;
  Totals t = { 0 };
  GArray *arrows = _spx_exchange_grid_arrows (&l, d->program, s, &t);
  GArray *flows = g_array_sized_new (FALSE, FALSE,
                                     sizeof (SpxRenderExchangeFlow),
                                     arrows->len);
  for (guint i = 0; i < arrows->len; i++)
    {
      const Arrow *a = &g_array_index (arrows, Arrow, i);
      SpxRenderExchangeFlow f = { a->src, a->dst, a->bytes, a->pairs };
      g_array_append_val (flows, f);
    }
  g_array_unref (arrows);
  if (grouped != NULL)
    *grouped = l.grouped;
  return flows;
}

/* A selected tile hides every arrow but its own. */
gboolean
_spx_exchange_shown (const Arrow *a, gint sel)
{
  return !_spx_exchange_is_loop (a) &&
         (sel < 0 || a->src == (guint32) sel || a->dst == (guint32) sel);
}

void
_spx_exchange_curve_point (const Arrow *a, double t, double *x, double *y)
{
  double u = 1 - t;
  *x = u * u * a->x0 + 2 * u * t * a->cx + t * t * a->x1;
  *y = u * u * a->y0 + 2 * u * t * a->cy + t * t * a->y1;
}

double
_spx_exchange_head (const Layout *l, const Arrow *a, double lw, double pt[6])
{
  /* small tiles get small heads */
  double hl = MIN (4 + 2.2 * lw, 0.45 * l->box + 2);
  double hw = hl * (2 + 1.4 * lw) / (4 + 2.2 * lw);
  double dx = a->x1 - a->cx, dy = a->y1 - a->cy;
  double len = MAX (1e-9, hypot (dx, dy));
  dx /= len;
  dy /= len;
  double bx = a->x1 - dx * hl, by = a->y1 - dy * hl;
  double head[6] = { a->x1, a->y1, bx - dy * hw, by + dx * hw, bx + dy * hw,
                     by - dx * hw };
  memcpy (pt, head, sizeof head);
  return hl;
}

void
_spx_exchange_draw_arrow (cairo_t *cr, const Layout *l, const Arrow *a,
                          double lw)
{
  /* the line stops where the head begins, so the tip stays sharp */
  double pt[6];
  _spx_exchange_head (l, a, lw, pt);
  double ex = a->x1 + 0.8 * ((pt[2] + pt[4]) / 2 - a->x1);
  double ey = a->y1 + 0.8 * ((pt[3] + pt[5]) / 2 - a->y1);
  cairo_set_line_width (cr, lw);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_BUTT);
  cairo_move_to (cr, a->x0, a->y0);
  cairo_curve_to (cr, a->x0 + 2.0 / 3 * (a->cx - a->x0),
                  a->y0 + 2.0 / 3 * (a->cy - a->y0),
                  ex + 2.0 / 3 * (a->cx - ex), ey + 2.0 / 3 * (a->cy - ey),
                  ex, ey);
  cairo_stroke (cr);
  cairo_move_to (cr, pt[0], pt[1]);
  cairo_line_to (cr, pt[2], pt[3]);
  cairo_line_to (cr, pt[4], pt[5]);
  cairo_close_path (cr);
  cairo_fill (cr);
}

/* The shown arrow nearest (x, y) within a few pixels of its line, or
 * NULL. */
const Arrow *
_spx_exchange_arrow_at (const Layout *l, GArray *arrows, gint sel,
                        guint64 largest, double x, double y)
{
  const Arrow *best = NULL;
  double best_d = G_MAXDOUBLE;
  for (guint i = 0; i < arrows->len; i++)
    {
      const Arrow *a = &g_array_index (arrows, Arrow, i);
      if (!_spx_exchange_shown (a, sel))
        continue;
      double reach = _spx_exchange_arrow_width (l, a->bytes, largest) / 2 + 3;
      double len = hypot (a->cx - a->x0, a->cy - a->y0) +
                   hypot (a->x1 - a->cx, a->y1 - a->cy);
      guint n = MAX (2, (guint) (len / 1.5));
      for (guint k = 0; k <= n; k++)
        {
          double px, py;
          _spx_exchange_curve_point (a, (double) k / n, &px, &py);
          double dist = hypot (px - x, py - y);
          if (dist <= reach && dist < best_d)
            {
              best = a;
              best_d = dist;
            }
        }
    }
  return best;
}
