/* spx-render-speedup.h: the speedup chart: sparse over dense against
 * density, one line per (source, block size, mode) of a sweep, or per
 * (source, mode) of a subject's sweep */
#pragma once

#include "spx-render-style.h"
#include "spx-sweep.h"

G_BEGIN_DECLS

typedef struct {
  const SpxSweep *sweep;
  gboolean        throughput;      /* FALSE: speedup over dense; TRUE:
                                      non-zero throughput */
  double          current_density; /* marked with a vertical line if > 0;
                                      0: a subject's element density */
  const char     *title;           /* NULL: a title from the sweep */
  gboolean        stale;           /* the subject, machine or problem
                                      changed since: greyed, "Run Sweep
                                      again" */
  gboolean        running;         /* points still arriving: fewer than
                                      the sweep's total is not partial */
  /* An earlier sweep drawn under this one in a muted style, with its own
   * legend entry (overlay_label, NULL: from its settings); NULL: none. */
  const SpxSweep *overlay;
  const char     *overlay_label;
} SpxRenderSpeedupData;

/* An SpxRenderFunc: data is a SpxRenderSpeedupData. Both axes are
 * logarithmic; colour tells block sizes apart, the marker the mode
 * (● static, ▲ dynamic), the line the source (solid: measured on the
 * CPU, dashed: the IPU model); dense is the reference line (speedup 1,
 * or dense's own throughput); a hollow marker is a model plan over the
 * machine's memory or a noisy CPU point; a bar spans the quartiles of
 * the timed runs. A subject's sweep (settings.subject) is titled by its
 * name and draws one neutral line per (source, mode) through its block
 * sizes, its element density marked unless current_density says
 * otherwise. Throughput is in TFLOP/s when the sweep is all model, else
 * in GFLOP/s (model points × 1000). */
void spx_render_speedup (cairo_t *cr, double width, double height,
                         gconstpointer data, const SpxRenderStyle *style);

/* Where spx_render_speedup puts things at width × height: the plot area
 * in logical pixels and the density and value at its edges. */
typedef struct {
  double x, y, w, h;
  double x_lo, x_hi;  /* densities at the left and right edges */
  double y_lo, y_hi;  /* values at the bottom and the top */
} SpxSpeedupAxes;

/* FALSE when the sweep has no point to plot (the placeholder is drawn). */
gboolean spx_render_speedup_axes (cairo_t *cr, double width, double height,
                                  const SpxRenderSpeedupData *data,
                                  const SpxRenderStyle *style,
                                  SpxSpeedupAxes *axes);
double   spx_speedup_axes_x (const SpxSpeedupAxes *axes, double density);
double   spx_speedup_axes_y (const SpxSpeedupAxes *axes, double value);

/* The marker nearest (x, y) in spx_render_speedup's picture of width ×
 * height, within 8 pixels: TRUE and *point (may be NULL) its index in
 * d->sweep->points (of a merged marker, the first point's). FALSE for
 * none. */
gboolean spx_render_speedup_hit (double width, double height,
                                 const SpxRenderSpeedupData *d,
                                 const SpxRenderStyle *style, double x,
                                 double y, guint *point);

/* The hover text of d->sweep->points[point], NULL out of range:
 *   IPU model (bow) · 16 × 16 blocks · static
 *   density 1/16 (6.25%)
 *   2.31× over dense · 41.2 non-zero TFLOP/s
 *   static 0.031 ms at n 1,024; dense 0.0716 ms at n 2,048
 *   no spread: a model                   (CPU: "quartiles 1.9–2.1 ms")
 *   fits every tile's memory             (or "over memory: …"; CPU: none)
 * and "noisy (busy, dense-slow): not a result" for a noisy measurement.
 * Free with g_free. */
char    *spx_render_speedup_describe (const SpxRenderSpeedupData *d,
                                      guint point);

G_END_DECLS
