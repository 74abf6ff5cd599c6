/* spx-render-timeline-axis.h: the Timeline's cycle axis: cycles to x,
 * to scale, or broken when the longest program dwarfs the others (so
 * that every bar is readable), with its ticks and its caption. */
#pragma once

#include "spx-render-style.h"

G_BEGIN_DECLS

typedef struct {
  double   x0, x1;        /* the axis on the picture */
  guint64  max_cycles;    /* the longest program's */
  double   from_c, to_c;  /* the cycles shown: 0 to max_cycles unless
                             zoomed */
  /* broken: 0 to break_c to scale as far as break_x, then a gap, then
   * break_c to to_c squeezed into the rest */
  gboolean broken;
  double   break_c, break_x;
} SpxTimelineAxis;

/* The axis from x0 to x1 for programs of these cycles (n of them),
 * showing the fractions from to to of the longest; broken when asked
 * (may_break), all of it is shown and the longest program is more than
 * a few times the next. */
void   _spx_timeline_axis_init   (SpxTimelineAxis *a, const guint64 *cycles,
                                  guint n, double from, double to,
                                  double x0, double x1, gboolean may_break);
double _spx_timeline_axis_x      (const SpxTimelineAxis *a, double cycles);
/* The cycles at x (the inverse of _spx_timeline_axis_x, within the axis). */
double _spx_timeline_axis_cycles (const SpxTimelineAxis *a, double x);
/* Under it: "cycles", the part shown when zoomed, or where it breaks. */
char  *_spx_timeline_axis_caption (const SpxTimelineAxis *a);
/* Grid lines from top down to the axis at y, ticks, their labels, the
 * caption, and the break's mark on the axis. */
void   _spx_timeline_axis_draw   (cairo_t *cr, const SpxRenderStyle *style,
                                  const SpxTimelineAxis *a, double width,
                                  double top, double y, double line);
/* The break's mark across a bar from y to y + h that runs past it. */
void   _spx_timeline_axis_draw_break (cairo_t *cr,
                                      const SpxRenderStyle *style,
                                      const SpxTimelineAxis *a, double y,
                                      double h);

G_END_DECLS
