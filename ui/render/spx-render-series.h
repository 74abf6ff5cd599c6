/* spx-render-series.h: the looks that tell a chart's series apart
 * besides their colour, so that a grey print keeps them apart too */
#pragma once

#include "spx-sweep.h"

#include <cairo.h>
#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  SPX_MARKER_CIRCLE,
  SPX_MARKER_TRIANGLE,      /* pointing up */
  SPX_MARKER_SQUARE,
  SPX_MARKER_DIAMOND,
  SPX_MARKER_TRIANGLE_DOWN,
  SPX_MARKER_PENTAGON,
  SPX_MARKER_HEXAGON,
  SPX_MARKER_STAR,
  SPX_N_MARKERS
} SpxMarker;

#define SPX_SERIES_MAX_DASH 6

/* A series' line and marker: no two rows share their dash or their
 * marker, so any two series, or any pairing of one row's dash with
 * another's marker, differ in grey. */
typedef struct {
  double    dash[SPX_SERIES_MAX_DASH]; /* on, off, …: pixels */
  guint     n_dash;                    /* 0: solid */
  SpxMarker marker;
} SpxSeriesStyle;

#define SPX_N_SERIES_STYLES 8

/* The row of a (source, mode): the CPU's static, dynamic and tile-wise,
 * then the model's; its marker says both, wherever a chart marks one. */
guint spx_series_kind_row (SpxSweepSource source, SpxSweepMode mode);
/* Row i % SPX_N_SERIES_STYLES. */
const SpxSeriesStyle *spx_series_style (guint i);
/* Makes the dash of series i cr's (solid for row 0). */
void spx_render_series_dash (cairo_t *cr, guint i);
/* A marker's path, of about radius r about (x, y): to fill or stroke. */
void spx_render_marker_path (cairo_t *cr, SpxMarker marker, double x,
                             double y, double r);

G_END_DECLS
