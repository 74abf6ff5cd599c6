/* spx-render-speedup.c: speedup (or non-zero throughput) against density,
 * both on log scales, one line per (source, block size, mode); a
 * subject's sweep: against block size, one line per (source, mode); an
 * earlier sweep, muted, under the current one. Here: the points and the
 * picture put together; the rest in spx-render-speedup-{layout, series,
 * hover, titles}.c. */
#include "spx-render-speedup-private.h"
#include "spx-render-views.h"

#include <math.h>

const SpxSweepPoint *
_spx_speedup_point_at (const Chart *c, guint i)
{
  return &g_array_index (c->points, SpxSweepPoint, i);
}

/* The point's value in the chart's unit; FALSE if it cannot be drawn. */
gboolean
_spx_speedup_point_value (const Chart *c, const SpxSweepPoint *p,
                          double *value)
{
  double v = c->d->throughput ? p->nz_throughput : p->speedup;
  if (c->d->throughput && c->gflops && p->source == SPX_SWEEP_MODEL)
    v *= 1000;
  *value = v;
  return isfinite (v) && v > 0 && isfinite (p->density) && p->density > 0;
}

/* The error bar's ends: in speedup, a CPU point's per-round ratio
 * quartiles when it has them; else the value at the slower and at the
 * faster quartile of the timed runs (speedup and throughput both go as
 * 1 / ms); without a spread, both are the value. */
void
_spx_speedup_point_spread (const Chart *c, const SpxSweepPoint *p, double v,
                           double *lo, double *hi)
{
  *lo = *hi = v;
  if (!c->d->throughput && p->source == SPX_SWEEP_CPU &&
      p->speedup_q1 > 0 && p->speedup_q3 > 0 && isfinite (p->speedup_q1) &&
      isfinite (p->speedup_q3))
    {
      *lo = MIN (p->speedup_q1, p->speedup_q3);
      *hi = MAX (p->speedup_q1, p->speedup_q3);
    }
  else if (p->ms > 0 && p->ms_q1 > 0 && p->ms_q1 < p->ms_q3 &&
           isfinite (p->ms_q3))
    {
      *lo = v * p->ms / p->ms_q3;
      *hi = v * p->ms / p->ms_q1;
    }
}

/* Dense is the reference line in a speedup chart, not a series. */
gboolean
_spx_speedup_point_on_y_range (const Chart *c, const SpxSweepPoint *p)
{
  return c->d->throughput || p->mode != SPX_SWEEP_DENSE;
}

void
_spx_speedup_add_block (guint *blocks, guint *n, guint block)
{
  for (guint i = 0; i < *n; i++)
    if (blocks[i] == block)
      return;
  if (*n < MAX_BLOCKS)
    blocks[(*n)++] = block;
}

/* The sweeps drawn: the current one first, then the overlay. */
guint
_spx_speedup_n_sweeps (const Chart *c)
{
  return c->over != NULL ? 2 : 1;
}

const GArray *
_spx_speedup_sweep_points (const Chart *c, guint which)
{
  return which == 0 ? c->points : c->over;
}

const SpxSweep *
_spx_speedup_sweep_of (const Chart *c, guint which)
{
  return which == 0 ? c->d->sweep : c->d->overlay;
}

/* Which sources, modes and blocks appear; blocks in the sweeps' order so
 * that colours stay put while points arrive. */
void
_spx_speedup_survey (Chart *c)
{
  for (guint w = 0; w < _spx_speedup_n_sweeps (c); w++)
    {
      const SpxSweepOptions *o = &_spx_speedup_sweep_of (c, w)->settings;
      const GArray *pts = _spx_speedup_sweep_points (c, w);
      for (guint i = 0; i < pts->len; i++)
        if (g_array_index (pts, SpxSweepPoint, i).source == SPX_SWEEP_CPU)
          c->gflops = TRUE;
      for (guint b = 0; b <= o->n_blocks; b++)
        for (guint i = 0; i < pts->len; i++)
          {
            const SpxSweepPoint *p = &g_array_index (pts, SpxSweepPoint, i);
            double v;
            if (!_spx_speedup_point_value (c, p, &v))
              continue;
            c->has_source[p->source] = TRUE;
            c->has_mode[p->mode] = TRUE;
            if (p->mode != SPX_SWEEP_DENSE)
              c->has_kind[spx_series_kind_row (p->source, p->mode)] = TRUE;
            c->has_unfit |= !p->fits && _spx_speedup_point_on_y_range (c, p);
            c->has_noisy |= p->noise != 0 && p->mode != SPX_SWEEP_DENSE;
            if (p->mode != SPX_SWEEP_DENSE && b == 0 && w == 0)
              c->n_noisy += p->noise != 0;
            if (p->mode != SPX_SWEEP_DENSE &&
                (b == o->n_blocks || p->block == o->blocks[b]))
              _spx_speedup_add_block (c->blocks, &c->n_blocks, p->block);
          }
    }
}

/* Drawn, then veiled: the points are of another subject, machine or
 * problem than the one shown elsewhere. */
static void
draw_stale (cairo_t *cr, const Chart *c)
{
  const SpxSpeedupAxes *a = &c->ax;
  cairo_save (cr);
  cairo_rectangle (cr, a->x, a->y, a->w, a->h);
  cairo_clip_preserve (cr);
  spx_render_set_rgba (cr, c->style->panel, 0.6);
  cairo_fill (cr);
  const char *text = "Out of date: Run Sweep again";
  const double size = 1.1;
  double h, w = _spx_speedup_title_width (cr, c, size, text);
  spx_render_text_width (cr, c->style, size, text, &h);
  /* on a plain card: lines through the words would cross them out */
  double cx = a->x + a->w / 2, cy = a->y + a->h / 2;
  cairo_rectangle (cr, cx - w / 2 - 10, cy - h / 2 - 6, w + 20, h + 12);
  spx_render_set_rgb (cr, c->style->panel);
  cairo_fill_preserve (cr);
  cairo_set_line_width (cr, 1);
  spx_render_set_rgb (cr, c->style->muted);
  cairo_stroke (cr);
  SpxTextOpts t = { .size = size, .bold = TRUE, .ax = 0.5, .ay = 0.5 };
  spx_render_text (cr, c->style, cx, cy, &t, text);
  cairo_restore (cr);
}

static void
draw_plot (cairo_t *cr, const Chart *c)
{
  const SpxSpeedupAxes *a = &c->ax;
  cairo_rectangle (cr, a->x, a->y, a->w, a->h);
  spx_render_set_rgb (cr, c->style->panel);
  cairo_fill (cr);
  _spx_speedup_draw_y_axis (cr, c);
  _spx_speedup_draw_x_axis (cr, c);
  cairo_save (cr);
  cairo_rectangle (cr, a->x, a->y, a->w, a->h);
  cairo_clip (cr);
  _spx_speedup_draw_reference (cr, c);
  _spx_speedup_draw_current (cr, c);
  _spx_speedup_draw_overlay (cr, c);
  for (Layer l = LAYER_LINES; l <= LAYER_MARKERS; l++)
    _spx_speedup_draw_series (cr, c, l);
  cairo_restore (cr);
  cairo_rectangle (cr, a->x + 0.5, a->y + 0.5, a->w - 1, a->h - 1);
  cairo_set_line_width (cr, 1);
  spx_render_set_rgb (cr, c->style->muted);
  cairo_stroke (cr);
  if (c->d->stale)
    draw_stale (cr, c);
}

void
spx_render_speedup (cairo_t *cr, double width, double height,
                    gconstpointer data, const SpxRenderStyle *style)
{
  const SpxRenderSpeedupData *d = data;
  spx_render_clear (cr, style, width, height);
  if (d == NULL || d->sweep == NULL)
    {
      spx_render_placeholder (cr, style, width, height, "No sweep");
      return;
    }
  Chart c;
  _spx_speedup_chart_init (&c, cr, d, style, width);
  g_autoptr (GArray) rows = _spx_speedup_legend_rows (&c);
  cairo_save (cr);
  _spx_speedup_draw_titles (cr, &c, width);
  if (_spx_speedup_layout (cr, &c, width, height, rows))
    {
      draw_plot (cr, &c);
      _spx_speedup_draw_legend (cr, &c, rows, height - PAD);
    }
  else
    spx_render_placeholder (cr, style, width, height,
                            "No points yet: run a sweep");
  cairo_restore (cr);
  _spx_speedup_chart_clear (&c);
}

/* For a layout without a picture: the text sizes it depends on want a
 * cairo_t (which keeps its surface alive). */
cairo_t *
_spx_speedup_scratch_cr (void)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32,
                                                         1, 1);
  cairo_t *cr = cairo_create (surface);
  cairo_surface_destroy (surface);
  return cr;
}

/* ---- its row in the table of views ------------------------------- */

static void
speedup_fill (const SpxRenderViewState *st, gpointer data)
{
  SpxRenderSpeedupData *d = data;
  d->sweep = st->sweep;
  d->throughput = st->metric == 1; /* its metrics' second */
  d->current_density = st->density;
  /* the block size the other views show */
  d->current_block = st->mask != NULL ? st->mask->block : 0;
  d->stale = st->stale;
  d->running = st->running;
  d->overlay = st->overlay;
  d->overlay_label = st->overlay_label;
}

static gboolean
speedup_hit (double width, double height, gconstpointer data,
             const SpxRenderStyle *style, double x, double y,
             SpxRenderViewHit *hit)
{
  guint point = 0;
  if (!spx_render_speedup_hit (width, height, data, style, x, y, &point))
    return FALSE;
  hit->point = (gint) point;
  return TRUE;
}

/* A point of the chart: what it is and how it was measured. */
static char *
speedup_describe (double width, double height, gconstpointer data,
                  const SpxRenderStyle *style, double x, double y)
{
  SpxRenderViewHit hit;
  if (!speedup_hit (width, height, data, style, x, y, &hit))
    return NULL;
  return spx_render_speedup_describe (data, (guint) hit.point);
}

const SpxRenderView spx_render_view_speedup = {
  .name = "speedup", .title = "Speedup",
  .summary = "sparse over dense, measured and modelled",
  .metrics = (const char *const[]) { "speedup", "throughput", NULL },
  .needs = SPX_RENDER_VIEW_NEEDS_SWEEP,
  .data_size = sizeof (SpxRenderSpeedupData), .fill = speedup_fill,
  .draw = spx_render_speedup, .hit = speedup_hit,
  .describe = speedup_describe,
};
