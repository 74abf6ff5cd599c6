/* spx-render-exchange.h: what moves between tiles in one superstep */
#pragma once

#include "spx-ipu-program.h"
#include "spx-render-style.h"

G_BEGIN_DECLS

/* Machines with at most this many tiles are drawn as a tile grid with
 * arrows; larger ones as a group × group heat map with per-tile bars. */
#define SPX_RENDER_EXCHANGE_MAX_GRID 64

typedef struct {
  const SpxIpuProgram *program;
  guint superstep;     /* index into program->steps; any other kind of
                          step, or an index out of range, is said so */
  gint  selected_tile; /* -1: none */
} SpxRenderExchangeData;

/* An SpxRenderFunc; data is an SpxRenderExchangeData. */
void     spx_render_exchange      (cairo_t *cr, double width, double height,
                                   gconstpointer data,
                                   const SpxRenderStyle *style);

/* The tile under (x, y) in a picture of width × height drawn with the
 * default font size: a tile box of the grid, or a column of the per-tile
 * bars of a large machine; -1 for none. */
gint     spx_render_exchange_hit  (double width, double height,
                                   const SpxRenderExchangeData *d,
                                   double x, double y);

/* Where tile's box is drawn in the grid layout (FALSE for a large
 * machine, a tile out of range or a picture with no grid). */
gboolean spx_render_exchange_tile_box (double width, double height,
                                       const SpxRenderExchangeData *d,
                                       guint tile, double *x, double *y,
                                       double *w, double *h);

G_END_DECLS
