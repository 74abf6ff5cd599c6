/* spx-render-series.c: the table of series' dashes and markers */
#include "spx-render-series.h"

#include <math.h>

/* Dashes from solid to sparse dots; markers from the round to the
 * pointed. Row 0 is the plainest: solid with a circle. */
static const SpxSeriesStyle styles[SPX_N_SERIES_STYLES] = {
  { { 0 }, 0, SPX_MARKER_CIRCLE },
  { { 8, 4 }, 2, SPX_MARKER_TRIANGLE },
  { { 2, 3 }, 2, SPX_MARKER_SQUARE },
  { { 10, 3, 2, 3 }, 4, SPX_MARKER_DIAMOND },
  { { 16, 4 }, 2, SPX_MARKER_TRIANGLE_DOWN },
  { { 5, 5 }, 2, SPX_MARKER_PENTAGON },
  { { 10, 3, 2, 3, 2, 3 }, 6, SPX_MARKER_HEXAGON },
  { { 1, 6 }, 2, SPX_MARKER_STAR },
};

const SpxSeriesStyle *
spx_series_style (guint i)
{
  return &styles[i % SPX_N_SERIES_STYLES];
}

void
spx_render_series_dash (cairo_t *cr, guint i)
{
  const SpxSeriesStyle *s = spx_series_style (i);
  cairo_set_dash (cr, s->dash, (int) s->n_dash, 0);
}

/* A regular polygon of n corners, the first at angle a0 (radians from
 * up, clockwise); inner > 0: a star, every other corner at inner × r. */
static void
polygon (cairo_t *cr, double x, double y, double r, guint n, double a0,
         double inner)
{
  guint corners = inner > 0 ? 2 * n : n;
  for (guint i = 0; i < corners; i++)
    {
      double a = a0 + 2 * G_PI * i / corners;
      double ri = inner > 0 && i % 2 ? r * inner : r;
      cairo_line_to (cr, x + ri * sin (a), y - ri * cos (a));
    }
  cairo_close_path (cr);
}

void
spx_render_marker_path (cairo_t *cr, SpxMarker marker, double x, double y,
                        double r)
{
  /* polygons look smaller than a circle of their radius */
  static const struct { guint n; double a0, inner, grow; } shapes[] = {
    [SPX_MARKER_TRIANGLE] = { 3, 0, 0, 1.3 },
    [SPX_MARKER_SQUARE] = { 4, G_PI / 4, 0, 1.27 },
    [SPX_MARKER_DIAMOND] = { 4, 0, 0, 1.3 },
    [SPX_MARKER_TRIANGLE_DOWN] = { 3, G_PI, 0, 1.3 },
    [SPX_MARKER_PENTAGON] = { 5, 0, 0, 1.15 },
    [SPX_MARKER_HEXAGON] = { 6, 0, 0, 1.1 },
    [SPX_MARKER_STAR] = { 5, 0, 0.45, 1.5 },
  };
  cairo_new_sub_path (cr);
  if (marker == SPX_MARKER_CIRCLE || marker >= SPX_N_MARKERS)
    {
      cairo_arc (cr, x, y, r, 0, 2 * G_PI);
      cairo_close_path (cr);
      return;
    }
  polygon (cr, x, y, r * shapes[marker].grow, shapes[marker].n,
           shapes[marker].a0, shapes[marker].inner);
}

guint
spx_series_kind_row (SpxSweepSource source, SpxSweepMode mode)
{
  return (source == SPX_SWEEP_CPU ? 0 : 3) + (mode - SPX_SWEEP_STATIC);
}
