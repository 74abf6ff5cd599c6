/* spx-render-timeline.h: BSP programs as supersteps on one cycle axis */
#pragma once

#include "spx-ipu-program.h"
#include "spx-render-style.h"

G_BEGIN_DECLS

typedef struct {
  const SpxIpuProgram *programs[SPX_IPU_N_MODES]; /* dense, static, dynamic;
                                                     any NULL */
  gint selected_superstep;          /* index into steps; -1: none */
  gint selected_lane;               /* programs[] index that the selection
                                       belongs to; -1: mark it in every
                                       lane that has such a step */
} SpxRenderTimelineData;

/* An SpxRenderFunc; data is an SpxRenderTimelineData. */
void spx_render_timeline     (cairo_t *cr, double width, double height,
                              gconstpointer data,
                              const SpxRenderStyle *style);

/* The superstep under (x, y) in a picture of width × height drawn with
 * the default font size, -1 for none; *lane (may be NULL) gets its
 * programs[] index. A superstep too thin to point at wins within 2
 * pixels of it. */
gint spx_render_timeline_hit (double width, double height,
                              const SpxRenderTimelineData *d, double x,
                              double y, guint *lane);

/* What the panel under the axis says: for the selected superstep a
 * header "Superstep N: kind (phase), C cycles, tile T · mode" (no tile
 * for a sync) and a line per term, "term — formula — N cycles", the
 * terms summing to C; with nothing selected (or a selection out of
 * range), a hint to click. The picture draws the same, in columns, as
 * far as it has room. Free with g_free. */
char *spx_render_timeline_explain (const SpxRenderTimelineData *d);

G_END_DECLS
