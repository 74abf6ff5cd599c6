/* spx-render-mask.h: the spy plot of a mask, at any zoom, optionally
 * coloured by the IPU tile that holds each block */
#pragma once

#include "spx-render-style.h"
#include "spx-mask.h"
#include "spx-ipu-program.h"

G_BEGIN_DECLS

typedef struct {
  const SpxMask *mask;
  /* Visible region in block columns (x) and rows (y), fractions allowed;
   * all zero means the whole mask. */
  double   x0, y0, x1, y1;
  /* Lines at block boundaries when blocks are at least 4 px, and darker
   * ones at the labelled ticks, which with a power-of-two block fall on
   * power-of-two groups of blocks. */
  gboolean grid;
  const SpxIpuProgram *program;  /* optional; ignored unless m×k matches */
  gint     selected_tile;        /* -1: none; else its blocks highlighted */
  /* Needs a program that lists blocks. Up to 16 tiles in use get
   * distinct colours, more a ramp; a legend right of the plot when there
   * is room, and with no tile selected each block of 14 px or more shows
   * its tile's number. */
  gboolean colour_by_tile;
} SpxRenderMaskData;

/* A SpxRenderFunc: data is a SpxRenderMaskData. Where a pixel covers
 * many blocks it shows the fraction of them that are set. */
void     spx_render_mask     (cairo_t *cr, double width, double height,
                              gconstpointer data,
                              const SpxRenderStyle *style);

/* The block under (x, y) of a width × height picture of d; FALSE outside
 * the plot. The layout does not depend on the style, so no style here
 * (nor a user's title: the window's pictures have none). */
gboolean spx_render_mask_hit (double width, double height,
                              const SpxRenderMaskData *d, double x, double y,
                              guint64 *br, guint64 *bc);

G_END_DECLS
