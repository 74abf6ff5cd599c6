/* spx-render-exchange.h: one superstep tile by tile: what moves between
 * tiles in an exchange, each tile's cycles in a compute step, every tile
 * waiting at a sync */
#pragma once

#include "spx-ipu-program.h"
#include "spx-render-style.h"

G_BEGIN_DECLS

/* Machines with at most this many tiles are drawn as a tile grid (with
 * arrows for an exchange); larger ones as a heat map with per-tile
 * bars. */
#define SPX_RENDER_EXCHANGE_MAX_GRID 64

typedef struct {
  const SpxIpuProgram *program;
  guint superstep;     /* index into program->steps; an index out of
                          range is said so */
  gint  selected_tile; /* -1: none; an exchange then shows only this
                          tile's arrows */
} SpxRenderExchangeData;

/* An SpxRenderFunc; data is an SpxRenderExchangeData. */
void     spx_render_exchange      (cairo_t *cr, double width, double height,
                                   gconstpointer data,
                                   const SpxRenderStyle *style);

/* The tile under (x, y) in a picture of width × height drawn with the
 * default font size: a tile box of the grid; for a large machine a
 * column of the per-tile bars or a cell of a compute or sync step's
 * tile map; -1 for none. */
gint     spx_render_exchange_hit  (double width, double height,
                                   const SpxRenderExchangeData *d,
                                   double x, double y);

/* Where tile's box is drawn in the grid layout (FALSE for a large
 * machine, a tile out of range or a picture with no grid). */
gboolean spx_render_exchange_tile_box (double width, double height,
                                       const SpxRenderExchangeData *d,
                                       guint tile, double *x, double *y,
                                       double *w, double *h);

/* What is under (x, y) in the same picture, for a tooltip, or NULL for
 * nothing. An exchange's arrow (which wins over a tile it passes near):
 * "Tile 3 → tile 7", then a line per transfer on it saying what it
 * carries (see spx_ipu_piece_describe), or its size when the step keeps
 * no pieces. A tile: in an exchange what it receives and sends, in total
 * and piece by piece; in a compute step its cycles, its share of the
 * slowest tile's and its multiply-accumulates; at a sync the sync's
 * cycles. Free with g_free. */
char    *spx_render_exchange_describe (double width, double height,
                                       const SpxRenderExchangeData *d,
                                       double x, double y);

G_END_DECLS
