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

/* An exchange between more tile pairs than this is drawn, unless every
 * arrow is asked for or a tile is selected, as flows summed between
 * groups of tiles: blocks of the grid, at most two across and two
 * down, so that every two groups are neighbours. */
#define SPX_RENDER_EXCHANGE_MAX_ARROWS 32

typedef struct {
  const SpxIpuProgram *program;
  guint superstep;     /* index into program->steps; an index out of
                          range is said so */
  gint  selected_tile; /* -1: none; an exchange then shows only this
                          tile's arrows */
  gboolean every_arrow; /* an arrow per tile pair however many there
                           are (render --metric all) */
} SpxRenderExchangeData;

/* An arrow as drawn: tile to tile, or group to group (src == dst: the
 * traffic within a group, written in it). */
typedef struct {
  guint   src, dst;
  guint64 bytes;
  guint   pairs;     /* tile pairs summed: 1 for a tile's arrow */
} SpxRenderExchangeFlow;

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

/* The flows the picture of an exchange on a tile grid draws (every tile
 * pair's when a tile is selected; it shows its own), largest last, and
 * in *grouped (may be NULL) whether they join groups; NULL for another
 * step or a large machine. Free with g_array_unref. */
GArray  *spx_render_exchange_flows (const SpxRenderExchangeData *d,
                                    gboolean *grouped);

/* A label the picture of an exchange writes on a flow of
 * spx_render_exchange_flows (its index there): its bytes on the arrow,
 * or (within) what stays within the group. */
typedef struct {
  guint    flow;
  gboolean within;
  double   x, y, w, h;
  char    *text;
} SpxRenderExchangeLabel;

/* The labels a picture of width × height (default font size) writes: one
 * on every arrow drawn, where it covers no tile, arrowhead or other
 * label, and one in each group whose traffic within it fits there; NULL
 * where spx_render_exchange_flows is NULL. Free with g_array_unref. */
GArray  *spx_render_exchange_labels (double width, double height,
                                     const SpxRenderExchangeData *d);

/* The group tile belongs to when p's exchanges are grouped. */
guint    spx_render_exchange_group (const SpxIpuProgram *p, guint tile);

G_END_DECLS
