/* spx-render-exchange-layout.c: where the Exchange picture puts things:
 * the tile grid, its groups, the heat map and strips; the hit test. */
#include "spx-render-exchange-private.h"

#include <math.h>

#define GROUPS_MAX 46 /* heat map rows: 1,472 tiles = 46 groups of 32 */

/* The grid's columns and rows, and its groups: at most two across and
 * two down. */
static void
grid_shape (Layout *l, const SpxIpuProgram *p)
{
  l->cols = CLAMP (p->machine->grid_width, 1, p->n_tiles);
  l->rows = (p->n_tiles + l->cols - 1) / l->cols;
  l->span_c = (l->cols + 1) / 2;
  l->span_r = (l->rows + 1) / 2;
  l->gcols = (l->cols + l->span_c - 1) / l->span_c;
  l->grows = (l->rows + l->span_r - 1) / l->span_r;
}

guint
_spx_exchange_group_at (const Layout *l, guint t)
{
  return t / l->cols / l->span_r * l->gcols + t % l->cols / l->span_c;
}

guint
spx_render_exchange_group (const SpxIpuProgram *p, guint tile)
{
  Layout l;
  grid_shape (&l, p);
  return _spx_exchange_group_at (&l, tile);
}

static void
layout_grid (Layout *l, const SpxIpuProgram *p, double w, double h)
{
  grid_shape (l, p);
  double foot = l->crowded ? l->line : 0;
  double aw = MAX (1, w - 2 * MARGIN);
  double ah = MAX (1, h - l->top - MARGIN - foot);
  /* cells may be wider than tall: the gaps then hold arrows */
  l->cell_h = ah / l->rows;
  l->cell_w = MIN (aw / l->cols, 2.2 * l->cell_h);
  /* without arrows the boxes have room for their cycles */
  double fill = l->kind == SPX_STEP_EXCHANGE ? 0.45 : 0.62;
  l->box = fill * MIN (l->cell_w, l->cell_h);
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
  l->mcols = CLAMP (p->machine->grid_width, 1, p->n_tiles);
  l->mrows = (p->n_tiles + l->mcols - 1) / l->mcols;
  l->mw = l->hs / l->mcols;
  l->mh = l->hs / l->mrows;
}

static void
layout_compute (Layout *l, const SpxIpuProgram *p, const SpxIpuStep *s,
                double w, double h, double fs, gboolean crowded)
{
  *l = (Layout) { .kind = s->kind, .width = w, .height = h,
                  .crowded = crowded, .extra = l->extra };
  l->line = 1.4 * fs;
  l->top = 6 + 1.15 * l->line + l->extra + 0.95 * l->line + 6;
  l->grid = p->n_tiles <= SPX_RENDER_EXCHANGE_MAX_GRID;
  if (l->grid)
    layout_grid (l, p, w, h);
  else
    layout_large (l, p, w, h, fs);
}

void
_spx_exchange_tile_centre (const Layout *l, guint t, double *x, double *y)
{
  *x = l->x0 + (t % l->cols + 0.5) * l->cell_w;
  *y = l->y0 + (t / l->cols + 0.5) * l->cell_h;
}

/* The step d names when it has what its picture needs, else NULL. */
const SpxIpuStep *
_spx_exchange_shown_step (const SpxRenderExchangeData *d)
{
  if (d == NULL || d->program == NULL || d->program->n_tiles == 0 ||
      d->superstep >= d->program->steps->len)
    return NULL;
  const SpxIpuStep *s = &g_array_index (d->program->steps, SpxIpuStep,
                                        d->superstep);
  switch (s->kind)
    {
    case SPX_STEP_EXCHANGE:
      return s->transfers && s->bytes_in && s->bytes_out ? s : NULL;
    case SPX_STEP_COMPUTE:
      return s->tile_cycles ? s : NULL;
    case SPX_STEP_SYNC:
    default:
      return s;
    }
}

/* The selected tile, or -1 for none or one out of range. */
gint
_spx_exchange_selection (const SpxRenderExchangeData *d)
{
  return d->selected_tile >= 0 &&
         d->selected_tile < (gint) d->program->n_tiles ? d->selected_tile
                                                       : -1;
}

/* The layout of d's step s: an exchange on a grid between more tile
 * pairs than SPX_RENDER_EXCHANGE_MAX_ARROWS is grouped unless every
 * arrow is asked for or a tile is selected. */
void
_spx_exchange_layout_for (Layout *l, const SpxRenderExchangeData *d,
                          const SpxIpuStep *s, double w, double h,
                          double fs, double extra)
{
  const SpxIpuProgram *p = d->program;
  l->extra = extra;
  gboolean crowded = FALSE;
  if (s->kind == SPX_STEP_EXCHANGE &&
      p->n_tiles <= SPX_RENDER_EXCHANGE_MAX_GRID)
    {
      Totals t = { 0 };
      g_array_unref (_spx_exchange_pair_arrows (s, &t));
      crowded = t.pairs > SPX_RENDER_EXCHANGE_MAX_ARROWS;
    }
  layout_compute (l, p, s, w, h, fs, crowded);
  l->grouped = crowded && !d->every_arrow && _spx_exchange_selection (d) < 0 &&
               l->gcols * l->grows > 1;
}

gboolean
spx_render_exchange_tile_box (double width, double height,
                              const SpxRenderExchangeData *d, guint tile,
                              double *x, double *y, double *w, double *h)
{
  const SpxIpuStep *s = _spx_exchange_shown_step (d);
  if (s == NULL || tile >= d->program->n_tiles)
    return FALSE;
  Layout l;
  _spx_exchange_layout_for (&l, d, s, width, height, SPX_RENDER_FONT_SIZE, 0);
  if (!l.grid)
    return FALSE;
  double cx, cy;
  _spx_exchange_tile_centre (&l, tile, &cx, &cy);
  *x = cx - l.box / 2;
  *y = cy - l.box / 2;
  *w = *h = l.box;
  return TRUE;
}

/* A tile box of the grid; for a large machine a column of the strips
 * or, when it is drawn, a cell of the tile map. */
gint
_spx_exchange_tile_at (const Layout *l, guint n_tiles, double x, double y)
{
  if (l->grid)
    {
      for (guint t = 0; t < n_tiles; t++)
        {
          double cx, cy;
          _spx_exchange_tile_centre (l, t, &cx, &cy);
          if (fabs (x - cx) <= l->box / 2 && fabs (y - cy) <= l->box / 2)
            return (gint) t;
        }
      return -1;
    }
  /* a sync draws no strips */
  if (l->kind != SPX_STEP_SYNC && x >= l->sx && x < l->sx + l->sw &&
      y >= l->in_y && y <= l->out_y + l->sh)
    return (gint) MIN ((guint) ((x - l->sx) / l->sw * n_tiles), n_tiles - 1);
  if (l->kind == SPX_STEP_EXCHANGE || x < l->hx || y < l->hy)
    return -1;
  guint c = (guint) ((x - l->hx) / l->mw), r = (guint) ((y - l->hy) / l->mh);
  if (c >= l->mcols || r >= l->mrows || r * l->mcols + c >= n_tiles)
    return -1;
  return (gint) (r * l->mcols + c);
}

gint
spx_render_exchange_hit (double width, double height,
                         const SpxRenderExchangeData *d, double x, double y)
{
  const SpxIpuStep *s = _spx_exchange_shown_step (d);
  if (s == NULL)
    return -1;
  Layout l;
  _spx_exchange_layout_for (&l, d, s, width, height, SPX_RENDER_FONT_SIZE, 0);
  return _spx_exchange_tile_at (&l, d->program->n_tiles, x, y);
}

/* Around a group's tiles, inside the gaps between groups, which hold
 * its arrows; FALSE for a group without tiles. */
gboolean
_spx_exchange_group_box (const Layout *l, guint n_tiles, guint g, Box *b)
{
  double x0 = G_MAXDOUBLE, y0 = G_MAXDOUBLE, x1 = -G_MAXDOUBLE;
  double y1 = -G_MAXDOUBLE;
  for (guint t = 0; t < n_tiles; t++)
    {
      double cx, cy;
      if (_spx_exchange_group_at (l, t) != g)
        continue;
      _spx_exchange_tile_centre (l, t, &cx, &cy);
      x0 = MIN (x0, cx);
      y0 = MIN (y0, cy);
      x1 = MAX (x1, cx);
      y1 = MAX (y1, cy);
    }
  if (x0 > x1)
    return FALSE;
  double pad = CLAMP (0.2 * MIN (l->cell_w - l->box, l->cell_h - l->box), 2,
                      10);
  double r = l->box / 2 + pad;
  *b = (Box) { x0 - r, y0 - r, x1 - x0 + 2 * r, y1 - y0 + 2 * r };
  return TRUE;
}
