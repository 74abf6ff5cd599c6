/* spx-render-tiles.h: the machine's tile grid as a heat map of one
 * per-tile figure, with the tiles over memory marked */
#pragma once

#include "spx-render-style.h"
#include "spx-ipu-program.h"

G_BEGIN_DECLS

typedef enum {
  SPX_TILE_METRIC_BYTES,    /* all the tile's bytes, on a 0..SRAM scale */
  SPX_TILE_METRIC_CYCLES,   /* compute cycles, 0..the busiest tile */
  SPX_TILE_METRIC_EXCHANGE, /* bytes in + out over the exchange steps */
} SpxTileMetric;

typedef struct {
  const SpxIpuProgram *program;
  SpxTileMetric        metric;
  gint                 selected_tile; /* -1: none */
} SpxRenderTilesData;

/* A SpxRenderFunc: data is a SpxRenderTilesData. */
void spx_render_tiles     (cairo_t *cr, double width, double height,
                           gconstpointer data, const SpxRenderStyle *style);

/* The tile under (x, y) of a width × height picture of d, or -1. The
 * layout does not depend on the style. */
gint spx_render_tiles_hit (double width, double height,
                           const SpxRenderTilesData *d, double x, double y);

/* The figure the view shows for tile t (bytes or cycles). */
double spx_render_tiles_value (const SpxIpuProgram *p, SpxTileMetric metric,
                               guint t);

/* Tile t of p for people, its parts joined by sep ("\n" for a tooltip,
 * ", " for a label): "Tile 3", its blocks ("1 block"; none for dense
 * plans), its bytes against SRAM ("250.0 KiB of 624.0 KiB"), those bytes
 * by kind ("W values: 200.0 KiB"; kinds it holds none of left out), its
 * compute cycles and MACs. NULL when p is NULL or t out of range. Free
 * with g_free. */
char  *spx_render_tiles_describe (const SpxIpuProgram *p, guint t,
                                  const char *sep);

G_END_DECLS
