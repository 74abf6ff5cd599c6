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
  double zoom_from, zoom_to;        /* the part of the cycle axis shown,
                                       as fractions of the longest
                                       program; to <= from: all of it */
  gboolean axis_break;              /* all of it shown and the longest
                                       program more than 3 times the
                                       next: the axis breaks after the
                                       next, so that every bar reads */
} SpxRenderTimelineData;

/* The axis zooms in at most so far that this many cycles fill it. */
#define SPX_RENDER_TIMELINE_MIN_CYCLES 20.0

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
 * for a sync) and a line per term, "term — formula — N cycles", each
 * followed by a line with the term in words (indented), the terms
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

/* What the picture writes under its axis: "cycles", the part shown
 * when zoomed, or where a broken axis breaks. Free with g_free. */
char    *spx_render_timeline_axis_caption (double width, double height,
                                           const SpxRenderTimelineData *d);

/* Where cycles from the start falls on the axis of a picture of width ×
 * height (default font size), zoomed as d says; outside the axis when
 * the zoom leaves it out. */
double   spx_render_timeline_cycle_x (double width, double height,
                                      const SpxRenderTimelineData *d,
                                      double cycles);

/* The zoom (*from, *to, as in the data) after zooming d's picture by
 * factor (above 1: closer) about its point at x, which stays under x,
 * or, factor 1, after panning it by dx pixels (positive: later cycles).
 * The part shown stays within the axis; all of it is 0 and 1. */
void     spx_render_timeline_zoom (double width, double height,
                                   const SpxRenderTimelineData *d, double x,
                                   double factor, double dx, double *from,
                                   double *to);

/* The programs[] index of the lane whose name row is at (x, y), or -1:
 * a click there fits the axis to that program. */
gint     spx_render_timeline_lane_at (double width, double height,
                                      const SpxRenderTimelineData *d,
                                      double x, double y);

/* The zoom that fits the axis to programs[lane]'s cycles (all of it
 * for the longest, or a lane out of range). */
void     spx_render_timeline_fit (const SpxRenderTimelineData *d,
                                  guint lane, double *from, double *to);

G_END_DECLS
