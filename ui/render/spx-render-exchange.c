/* spx-render-exchange.c: one superstep of a program, tile by tile. An
 * exchange on a small machine is its tile grid with an arrow per
 * (source, destination) pair; on a large one a group × group heat map of
 * bytes with per-tile in / out bars. A compute step colours each tile by
 * its cycles; a sync shows every tile waiting. An exchange between too
 * many tile pairs to follow is drawn as flows between groups of tiles
 * (blocks of the grid), every pair's arrow one choice away. Geometry
 * depends only on the size, the program, the step and the font size, so
 * the hit test and the hover text (which have no cairo_t) find the boxes
 * the picture draws. This file draws; -layout.c places, -arrows.c makes
 * the arrows, -text.c and -labels.c write. */
#include "spx-render-exchange-private.h"
#include "spx-render-views.h"

#include "spx-util.h"

#include <math.h>

/* ---- the grid: an exchange ---- */

static void
tile_outline (cairo_t *cr, const Layout *l, double cx, double cy,
              SpxRgb colour, double lw)
{
  double r = l->box / 2;
  cairo_rectangle (cr, cx - r, cy - r, 2 * r, 2 * r);
  spx_render_set_rgb (cr, colour);
  cairo_set_line_width (cr, lw);
  cairo_stroke (cr);
}

static void
draw_exchange_tiles (cairo_t *cr, const SpxRenderStyle *style,
                     const Layout *l, const SpxRenderExchangeData *d,
                     const SpxIpuStep *s)
{
  double size = CLAMP (l->box / (2.2 * style->font_size), 0.55, 1.0);
  for (guint t = 0; t < d->program->n_tiles; t++)
    {
      double cx, cy;
      _spx_exchange_tile_centre (l, t, &cx, &cy);
      gboolean idle = s->bytes_in[t] == 0 && s->bytes_out[t] == 0;
      cairo_rectangle (cr, cx - l->box / 2, cy - l->box / 2, l->box, l->box);
      spx_render_set_rgb (cr, style->panel);
      cairo_fill (cr);
      gboolean sel = d->selected_tile == (gint) t;
      tile_outline (cr, l, cx, cy, sel ? style->highlight : style->muted,
                    sel ? 3 : 1);
      g_autofree char *label = g_strdup_printf ("%u", t);
      SpxTextOpts o = { .size = size, .ax = 0.5, .ay = 0.5, .bold = !idle,
                        .colour = idle ? style->muted : style->foreground,
                        .use_colour = TRUE };
      spx_render_text (cr, style, cx, cy, &o, label);
    }
}

/* The groups' frames, under everything. */
static void
draw_groups (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
             guint n_tiles)
{
  for (guint g = 0; g < l->gcols * l->grows; g++)
    {
      Box b;
      if (!_spx_exchange_group_box (l, n_tiles, g, &b))
        continue;
      cairo_rectangle (cr, b.x + 0.5, b.y + 0.5, b.w - 1, b.h - 1);
      spx_render_set_rgba (cr, style->muted, 0.12);
      cairo_fill_preserve (cr);
      spx_render_set_rgb (cr, style->muted);
      cairo_set_line_width (cr, 1);
      cairo_stroke (cr);
    }
}

static void
draw_exchange_grid (cairo_t *cr, const SpxRenderStyle *style,
                    const Layout *l, const SpxRenderExchangeData *d,
                    const SpxIpuStep *s, GArray *arrows, const Totals *t)
{
  gint sel = _spx_exchange_selection (d);
  SpxRgb colour = sel >= 0 ? style->highlight : style->series[0];
  if (l->grouped)
    draw_groups (cr, style, l, d->program->n_tiles);
  spx_render_set_rgb (cr, colour);
  for (guint i = 0; i < arrows->len; i++)
    {
      const Arrow *a = &g_array_index (arrows, Arrow, i);
      if (_spx_exchange_shown (a, sel))
        _spx_exchange_draw_arrow (cr, l, a,
                                  _spx_exchange_arrow_width (l, a->bytes,
                                                             t->largest));
    }
  /* tiles over the lines: a line that crosses a tile is not read as
   * ending there */
  draw_exchange_tiles (cr, style, l, d, s);
  g_autoptr (GArray) labels = _spx_exchange_place_labels (
    cr, style, l, d->program->n_tiles, arrows, sel, t->largest);
  _spx_exchange_draw_labels (cr, style, labels, colour);
  _spx_exchange_draw_footer (cr, style, l, d, t);
}

/* ---- the grid: compute and sync ---- */

/* Dark text on the light end of the heat map, light on the dark end. */
static SpxRgb
ink_on (SpxRgb fill)
{
  double y = 0.2126 * fill.r + 0.7152 * fill.g + 0.0722 * fill.b;
  return y > 0.45 ? (SpxRgb) { 0.1, 0.1, 0.1 } : (SpxRgb) { 1, 1, 1 };
}

/* The tile's number over the first of values that fits the box; the
 * value alone when two lines do not fit; the number alone when no value
 * does. */
static void
box_text (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
          guint t, const char *const *values, guint n_values, SpxRgb ink)
{
  double cx, cy, th, room = l->box - 6;
  _spx_exchange_tile_centre (l, t, &cx, &cy);
  double size = CLAMP (l->box / (3.2 * style->font_size), 0.55, 0.95);
  const char *value = NULL;
  for (guint i = 0; i < n_values && value == NULL; i++)
    if (spx_render_text_width (cr, style, size, values[i], NULL) <= room)
      value = values[i];
  g_autofree char *id = g_strdup_printf ("%u", t);
  spx_render_text_width (cr, style, size, id, &th);
  SpxTextOpts o = { .size = size, .ax = 0.5, .ay = 0.5, .colour = ink,
                    .use_colour = TRUE };
  if (value != NULL && 2 * th <= room)
    {
      o.bold = TRUE;
      spx_render_text (cr, style, cx, cy - th / 2, &o, id);
      o.bold = FALSE;
      spx_render_text (cr, style, cx, cy + th / 2, &o, value);
      return;
    }
  o.bold = value == NULL;
  spx_render_text (cr, style, cx, cy, &o, value ? value : id);
}

static void
fill_box (cairo_t *cr, const Layout *l, guint t, SpxRgb fill)
{
  double cx, cy;
  _spx_exchange_tile_centre (l, t, &cx, &cy);
  cairo_rectangle (cr, cx - l->box / 2, cy - l->box / 2, l->box, l->box);
  spx_render_set_rgb (cr, fill);
  cairo_fill (cr);
}

/* A frame around the slowest tile, and the word under it when the gap
 * below holds it. */
static void
mark_slowest (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
              guint t)
{
  double cx, cy, th;
  _spx_exchange_tile_centre (l, t, &cx, &cy);
  double r = l->box / 2 + 4;
  cairo_rectangle (cr, cx - r, cy - r, 2 * r, 2 * r);
  spx_render_set_rgb (cr, style->foreground);
  cairo_set_line_width (cr, 2);
  cairo_stroke (cr);
  spx_render_text_width (cr, style, 0.75, "slowest", &th);
  if ((l->cell_h - l->box) / 2 < th + 8)
    return;
  SpxTextOpts o = { .size = 0.75, .ax = 0.5, .bold = TRUE };
  spx_render_text (cr, style, cx, cy + r + 2, &o, "slowest");
}

static void
draw_compute_grid (cairo_t *cr, const SpxRenderStyle *style,
                   const Layout *l, const SpxRenderExchangeData *d,
                   const SpxIpuStep *s)
{
  const SpxIpuProgram *p = d->program;
  guint32 slow = spx_ipu_step_slowest (p, s);
  guint64 top = s->tile_cycles[slow];
  for (guint t = 0; t < p->n_tiles; t++)
    {
      guint64 c = s->tile_cycles[t];
      SpxRgb fill = c > 0 ? spx_render_heat (style, (double) c / top)
                          : style->panel; /* idle is not "low" */
      fill_box (cr, l, t, fill);
      double cx, cy;
      _spx_exchange_tile_centre (l, t, &cx, &cy);
      gboolean sel = d->selected_tile == (gint) t;
      tile_outline (cr, l, cx, cy, sel ? style->highlight : style->muted,
                    sel ? 3 : 1);
      g_autofree char *full = spx_format_count (c);
      g_autofree char *brief = spx_render_format_count ((double) c);
      const char *values[] = { c > 0 ? full : "idle", brief };
      box_text (cr, style, l, t, values, c > 0 ? 2 : 1, ink_on (fill));
    }
  if (top > 0)
    mark_slowest (cr, style, l, slow);
}

static void
draw_sync_grid (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
                const SpxRenderExchangeData *d)
{
  static const double dash[] = { 4, 3 };
  const char *values[] = { "waits" };
  for (guint t = 0; t < d->program->n_tiles; t++)
    {
      fill_box (cr, l, t, style->panel);
      double cx, cy;
      _spx_exchange_tile_centre (l, t, &cx, &cy);
      gboolean sel = d->selected_tile == (gint) t;
      cairo_set_dash (cr, dash, sel ? 0 : 2, 0);
      tile_outline (cr, l, cx, cy, sel ? style->highlight : style->muted,
                    sel ? 3 : 1);
      cairo_set_dash (cr, NULL, 0, 0);
      box_text (cr, style, l, t, values, 1, ink_on (style->panel));
    }
}

/* ---- large machines ---- */

static double *
group_matrix (const Layout *l, const SpxIpuStep *s, double *max)
{
  guint g = l->n_groups;
  double *m = g_new0 (double, (gsize) g * g);
  for (guint i = 0; i < s->transfers->len; i++)
    {
      const SpxIpuTransfer *tr = _spx_exchange_transfer (s, i);
      m[(gsize) (tr->src / l->group) * g + tr->dst / l->group] += tr->bytes;
    }
  *max = 0;
  for (gsize i = 0; i < (gsize) g * g; i++)
    *max = MAX (*max, m[i]);
  return m;
}

/* Tile numbers down the left (0 to y_hi over y_span) and along the
 * bottom (0 to x_hi over x_span) of the square map. */
static void
draw_heat_axes (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
                double y_hi, double y_span, double x_hi, double x_span)
{
  double ticks[16];
  SpxTextOpts o = { .size = 0.8, .ax = 1, .ay = 0.5 };
  guint n = spx_render_nice_ticks (0, y_hi, CLAMP (l->hs / (l->line * 1.6),
                                                   3, 12), ticks);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *t = g_strdup_printf ("%.0f", ticks[i]);
      spx_render_text (cr, style, l->hx - 3, l->hy + ticks[i] / y_span * l->hs,
                       &o, t);
    }
  double widest = spx_render_text_width (cr, style, 0.8, "0000", NULL);
  n = spx_render_nice_ticks (0, x_hi, CLAMP (l->hs / (widest + 10), 3, 12),
                             ticks);
  o.ax = 0.5;
  o.ay = 0;
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *t = g_strdup_printf ("%.0f", ticks[i]);
      double tw = spx_render_text_width (cr, style, 0.8, t, NULL);
      double x = l->hx + ticks[i] / x_span * l->hs;
      x = MIN (x, l->hx + l->hs + 12 - tw / 2); /* not into the legend */
      spx_render_text (cr, style, x, l->hy + l->hs + 2, &o, t);
    }
}

static void
frame_map (cairo_t *cr, const SpxRenderStyle *style, const Layout *l)
{
  cairo_rectangle (cr, l->hx, l->hy, l->hs, l->hs);
  spx_render_set_rgb (cr, style->muted);
  cairo_set_line_width (cr, 1);
  cairo_stroke (cr);
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
  frame_map (cr, style, l);
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
outline_cell (cairo_t *cr, const Layout *l, guint t, SpxRgb colour)
{
  double lw = 2;
  cairo_rectangle (cr, l->hx + (t % l->mcols) * l->mw - lw / 2,
                   l->hy + (t / l->mcols) * l->mh - lw / 2, l->mw + lw,
                   l->mh + lw);
  spx_render_set_rgb (cr, colour);
  cairo_set_line_width (cr, lw);
  cairo_stroke (cr);
}

/* One cell per tile, as the machine lays them out: heat by v over top,
 * idle tiles (and every tile when v is NULL) in the panel colour. */
static void
draw_tile_map (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
               guint n_tiles, const guint64 *v, guint64 top)
{
  spx_render_set_rgb (cr, style->panel);
  cairo_rectangle (cr, l->hx, l->hy, l->hs, l->hs);
  cairo_fill (cr);
  for (guint t = 0; v != NULL && top > 0 && t < n_tiles; t++)
    {
      if (v[t] == 0)
        continue;
      spx_render_set_rgb (cr, spx_render_heat (style, (double) v[t] / top));
      cairo_rectangle (cr, l->hx + (t % l->mcols) * l->mw,
                       l->hy + (t / l->mcols) * l->mh, l->mw, l->mh);
      cairo_fill (cr);
    }
  frame_map (cr, style, l);
  draw_heat_axes (cr, style, l, n_tiles, (double) l->mcols * l->mrows,
                  l->mcols - 1, l->mcols);
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

/* The strips' caption (what, the tiles, peaks) and the selected tile's
 * mark across both. */
static void
strips_frame (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
              guint n, gint sel, const char *what, const char *peaks)
{
  g_autofree char *range = g_strdup_printf ("per tile, 0 to %u", n - 1);
  const char *parts[] = { what, range, peaks };
  g_autofree char *caption = _spx_exchange_fit_parts (cr, style, 0.8,
                                                      l->sw + l->sx - MARGIN,
                                                      parts, 3);
  SpxTextOpts o = { .size = 0.8, .colour = style->muted, .use_colour = TRUE };
  spx_render_text (cr, style, MARGIN, l->caption_y + 0.2 * l->line, &o,
                   caption);
  if (sel < 0)
    return;
  double x = l->sx + (sel + 0.5) / n * l->sw;
  spx_render_set_rgb (cr, style->highlight);
  cairo_set_line_width (cr, 2);
  cairo_move_to (cr, x, l->in_y - 2);
  cairo_line_to (cr, x, l->out_y + l->sh + 2);
  cairo_stroke (cr);
}

static void
draw_large_exchange (cairo_t *cr, const SpxRenderStyle *style,
                     const Layout *l, const SpxRenderExchangeData *d,
                     const SpxIpuStep *s)
{
  guint n = d->program->n_tiles;
  gint sel = _spx_exchange_selection (d);
  double max;
  g_autofree double *m = group_matrix (l, s, &max);
  draw_heat_cells (cr, style, l, m, max);
  if (sel >= 0)
    draw_heat_selection (cr, style, l, (guint) sel);
  double span = (double) l->group * l->n_groups;
  draw_heat_axes (cr, style, l, n, span, n, span);
  g_autofree char *hi = spx_format_bytes (max);
  g_autofree char *groups = g_strdup_printf ("%u groups of %u tiles",
                                             l->n_groups, l->group);
  const char *lines[] = { "rows: from, columns: to", groups,
                          "diagonal: within a group" };
  _spx_exchange_draw_legend (cr, style, l, "bytes, group to group", hi, lines,
                             3);
  guint64 max_in = max_of (s->bytes_in, n), max_out = max_of (s->bytes_out, n);
  g_autofree char *a = spx_format_bytes ((double) max_in);
  g_autofree char *b = spx_format_bytes ((double) max_out);
  g_autofree char *peaks = g_strdup_printf ("most in %s, out %s", a, b);
  guint64 top = MAX (max_in, max_out); /* one scale: in and out compare */
  draw_strip (cr, style, l, l->in_y, s->bytes_in, n, top, style->series[0],
              "in");
  /* not series[1]: next to the highlight's orange in both themes */
  draw_strip (cr, style, l, l->out_y, s->bytes_out, n, top, style->series[2],
              "out");
  strips_frame (cr, style, l, n, sel, "bytes in and out", peaks);
}

static void
draw_large_compute (cairo_t *cr, const SpxRenderStyle *style,
                    const Layout *l, const SpxRenderExchangeData *d,
                    const SpxIpuStep *s)
{
  const SpxIpuProgram *p = d->program;
  guint n = p->n_tiles;
  guint32 slow = spx_ipu_step_slowest (p, s);
  guint64 top = s->tile_cycles[slow];
  draw_tile_map (cr, style, l, n, s->tile_cycles, top);
  if (top > 0)
    outline_cell (cr, l, slow, style->foreground);
  if (_spx_exchange_selection (d) >= 0)
    outline_cell (cr, l, (guint) _spx_exchange_selection (d), style->highlight);
  g_autofree char *hi = spx_format_count (top);
  g_autofree char *rows = g_strdup_printf ("rows of %u tiles", l->mcols);
  const char *lines[] = { rows, "framed: the slowest tile",
                          "blank: idle" };
  _spx_exchange_draw_legend (cr, style, l, "cycles per tile", hi, lines,
                             3);
  g_autofree guint64 *macs = g_new (guint64, n);
  for (guint t = 0; t < n; t++)
    macs[t] = p->tiles[t].macs;
  guint64 most_macs = max_of (macs, n);
  g_autofree char *a = spx_format_count (top);
  g_autofree char *b = spx_format_count (most_macs);
  g_autofree char *peaks = g_strdup_printf ("most %s cycles, %s MACs", a, b);
  /* separate scales: cycles and multiply-accumulates differ in kind */
  draw_strip (cr, style, l, l->in_y, s->tile_cycles, n, top,
              style->series[0], "cycles");
  draw_strip (cr, style, l, l->out_y, macs, n, most_macs, style->series[2],
              "MACs");
  strips_frame (cr, style, l, n, _spx_exchange_selection (d),
                "cycles in this step and MACs in all", peaks);
}

static void
draw_large_sync (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
                 const SpxRenderExchangeData *d)
{
  guint n = d->program->n_tiles;
  draw_tile_map (cr, style, l, n, NULL, 0);
  if (_spx_exchange_selection (d) >= 0)
    outline_cell (cr, l, (guint) _spx_exchange_selection (d), style->highlight);
  g_autofree char *rows = g_strdup_printf ("rows of %u tiles", l->mcols);
  const char *lines[] = { "every tile waits", rows };
  _spx_exchange_draw_legend (cr, style, l, NULL, NULL, lines, 2);
}

/* ---- the view ---- */

static gboolean
check_step (cairo_t *cr, const SpxRenderStyle *style, double width,
            double height, const SpxRenderExchangeData *d)
{
  const char *m = NULL;
  g_autofree char *own = NULL;
  if (d == NULL || d->program == NULL || d->program->n_tiles == 0)
    m = "No program";
  else if (d->superstep >= d->program->steps->len)
    m = own = g_strdup_printf ("No step %u: the program has %u",
                               d->superstep + 1, d->program->steps->len);
  else if (_spx_exchange_shown_step (d) == NULL)
    m = own = g_strdup_printf ("Step %u: its detail per tile was not kept",
                               d->superstep + 1);
  if (m != NULL)
    spx_render_placeholder (cr, style, width, height, m);
  return m == NULL;
}

void
spx_render_exchange (cairo_t *cr, double width, double height,
                     gconstpointer data, const SpxRenderStyle *style)
{
  const SpxRenderExchangeData *d = data;
  spx_render_clear (cr, style, width, height);
  if (!check_step (cr, style, width, height, d))
    return;
  const SpxIpuStep *s = _spx_exchange_shown_step (d);
  Layout l;
  _spx_exchange_layout_for (&l, d, s, width, height, style->font_size,
                            spx_render_user_title_extra (
                              cr, style, &_spx_exchange_title_opts,
                              width - 2 * MARGIN));
  cairo_save (cr);
  if (s->kind == SPX_STEP_EXCHANGE)
    {
      Totals t = { 0 };
      GArray *arrows = l.grid
                         ? _spx_exchange_grid_arrows (&l, d->program, s, &t)
                         : _spx_exchange_pair_arrows (s, &t);
      g_autoptr (GPtrArray) caption = _spx_exchange_exchange_caption (&l, d, s,
                                                                      &t);
      _spx_exchange_draw_title (cr, style, width, &l, d, caption);
      if (l.grid)
        draw_exchange_grid (cr, style, &l, d, s, arrows, &t);
      else
        draw_large_exchange (cr, style, &l, d, s);
      g_array_unref (arrows);
    }
  else
    {
      gboolean compute = s->kind == SPX_STEP_COMPUTE;
      g_autoptr (GPtrArray) caption =
        compute ? _spx_exchange_compute_caption (d, s)
                : _spx_exchange_sync_caption (s);
      _spx_exchange_draw_title (cr, style, width, &l, d, caption);
      if (compute && l.grid)
        draw_compute_grid (cr, style, &l, d, s);
      else if (compute)
        draw_large_compute (cr, style, &l, d, s);
      else if (l.grid)
        draw_sync_grid (cr, style, &l, d);
      else
        draw_large_sync (cr, style, &l, d);
    }
  cairo_restore (cr);
}

/* ---- its row in the table of views ------------------------------- */

static void
exchange_fill (const SpxRenderViewState *st, gpointer data)
{
  SpxRenderExchangeData *d = data;
  d->program = spx_render_view_shown_program (st);
  d->superstep = st->superstep;
  d->selected_tile = st->tile;
  d->every_arrow = st->metric == 1; /* its metrics' second */
}

static gboolean
exchange_hit (double width, double height, gconstpointer data,
              const SpxRenderStyle *style, double x, double y,
              SpxRenderViewHit *hit)
{
  const SpxRenderExchangeData *d = data;
  hit->tile = d->program == NULL ? -1
    : spx_render_exchange_hit (width, height, d, x, y);
  return hit->tile >= 0;
}

/* What moves, or what the tile does. */
static char *
exchange_describe (double width, double height, gconstpointer data,
                   const SpxRenderStyle *style, double x, double y)
{
  const SpxRenderExchangeData *d = data;
  return d->program == NULL ? NULL
    : spx_render_exchange_describe (width, height, d, x, y);
}

const SpxRenderView spx_render_view_exchange = {
  .name = "exchange", .title = "Exchange",
  .summary = "what one superstep moves between tiles",
  /* a crowded exchange's arrows: summed between groups of tiles, or one
   * per tile pair */
  .metrics = (const char *const[]) { "grouped", "all", NULL },
  .needs = SPX_RENDER_VIEW_NEEDS_PLAN,
  .data_size = sizeof (SpxRenderExchangeData), .fill = exchange_fill,
  .draw = spx_render_exchange, .hit = exchange_hit,
  .describe = exchange_describe,
};
