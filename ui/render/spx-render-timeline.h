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
 * header "Superstep N: NAME, C cycles, tile T · mode" (spx_ipu_step_name; no tile
 * for a sync) and a line per term, "term — formula — N cycles", the terms
 * summing to C; with nothing selected (or a selection out of range), a
 * hint to click. The picture draws the same, in columns, as far as it
 * has room. Free with g_free. */
char *spx_render_timeline_explain (const SpxRenderTimelineData *d);

/* The hover text of superstep step of programs[lane]:
 *   static · Superstep 5: reduce exchange
 *   612 cycles · 8.7% of 7,048 cycles
 *   busiest tile: 3
 * (the tile the terms are about: the slowest of a compute, the busiest
 * of an exchange; no such line for a sync or a step without terms),
 * then the term lines of spx_render_timeline_explain. NULL for a lane or
 * step out of range. Free with g_free. */
char *spx_render_timeline_describe (const SpxRenderTimelineData *d,
                                    guint lane, gint step);

/* Where a picture of width × height (default font size) names step of
 * programs[lane]: the box of its label, inside its bar or, for a step
 * too narrow, in a row under the bar with a leader line to it. FALSE
 * when the step has no label (no room, or out of range). */
gboolean spx_render_timeline_label_box (double width, double height,
                                        const SpxRenderTimelineData *d,
                                        guint lane, guint step,
                                        cairo_rectangle_t *box);

G_END_DECLS
