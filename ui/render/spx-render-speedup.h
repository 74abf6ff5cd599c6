/* spx-render-speedup.h: the speedup chart: sparse over dense against
 * density, one line per (source, block size, mode) of a sweep, or
 * against block size, one line per (source, mode) of a subject's sweep */
#pragma once

#include "spx-render-style.h"
#include "spx-sweep.h"

G_BEGIN_DECLS

typedef struct {
  const SpxSweep *sweep;
  gboolean        throughput;      /* FALSE: speedup over dense; TRUE:
                                      non-zero throughput */
  double          current_density; /* density axis: marked with a
                                      vertical line if > 0; 0: a
                                      subject's element density */
  guint           current_block;   /* block-size axis: that column
                                      marked; 0: none */
  const char     *title;           /* NULL: a title from the sweep */
  gboolean        stale;           /* the subject, machine or problem
                                      changed since: greyed, "Run Sweep
                                      again" */
  gboolean        running;         /* points still arriving: fewer than
                                      the sweep's total is not partial */
  /* An earlier sweep drawn under this one in a muted style (thin grey
   * lines, pale markers, no error bars), with its own legend entry
   * (overlay_label, NULL: from its settings); NULL: none. Both share
   * the axes; hover and hits are the current sweep's points alone. */
  const SpxSweep *overlay;
  const char     *overlay_label;
} SpxRenderSpeedupData;

/* An SpxRenderFunc: data is a SpxRenderSpeedupData. The y axis is
 * logarithmic. The x axis is the block size when the sweep is of a
 * subject (settings.subject; and so is the overlay, if any): one evenly
 * spaced column per block size swept by either, each labelled with its
 * size and, in a second row, the sweep's density of non-zero blocks at
 * that size (the CPU's where the sources' shapes differ; a third, grey
 * row: the overlay's). Otherwise (or when one of the two is of
 * generated masks) the x axis is the density of non-zero blocks, on a
 * log scale, every tick in one notation: 1/2^k when all are such
 * fractions, else percentages to as many digits as tell them apart.
 * Every series differs by more than colour (spx-render-series.h's
 * table, so that a grey print keeps them apart): colour and dash tell
 * block sizes apart, the marker the source and mode (the CPU's ● static,
 * ▲ dynamic, ■ tile-wise; the model's ◆ static, ▼ dynamic, ⬟ tile-wise),
 * and a subject's lines take their marker's row's dash too; the legend
 * shows each dash and marker. Dense is the reference line (speedup 1,
 * or dense's own throughput); a model plan over the machine's memory sits
 * on a cross, a noisy CPU point is hollow (spx-render-style.h's looks, each
 * in the legend only when drawn), and the subtitle counts the noisy
 * points unless style->no_noise_note. A CPU point's bar spans the
 * quartiles of its per-round ratios to dense (speedup_q1 … q3), or
 * without them (and in throughput) the value at the quartiles of its
 * timed runs. A subject's sweep is titled by its name and draws one
 * neutral line per (source, mode) through its block sizes, dashed as its
 * marker's row. Throughput
 * is in TFLOP/s when both sweeps are all model, else in GFLOP/s (model
 * points × 1000). */
void spx_render_speedup (cairo_t *cr, double width, double height,
                         gconstpointer data, const SpxRenderStyle *style);

#define SPX_SPEEDUP_MAX_BLOCKS (2 * SPX_SWEEP_MAX_VALUES)

/* Where spx_render_speedup puts things at width × height: the plot area
 * in logical pixels, the values at its bottom and top, and on the x
 * axis either the densities at its edges or the block sizes' columns. */
typedef struct {
  double   x, y, w, h;
  double   x_lo, x_hi;  /* density axis: densities at the left and right
                           edges; block-size axis: 0 */
  double   y_lo, y_hi;  /* values at the bottom and the top */
  gboolean by_block;    /* the x axis is the block size */
  guint    n_blocks;    /* its columns, left to right, ascending */
  guint    blocks[SPX_SPEEDUP_MAX_BLOCKS];
} SpxSpeedupAxes;

/* FALSE when the sweep has no point to plot (the placeholder is drawn). */
gboolean spx_render_speedup_axes (cairo_t *cr, double width, double height,
                                  const SpxRenderSpeedupData *data,
                                  const SpxRenderStyle *style,
                                  SpxSpeedupAxes *axes);
/* The x of a density (density axis) or of a block size (block-size
 * axis: the middle of its column; NAN for a size without one). */
double   spx_speedup_axes_x (const SpxSpeedupAxes *axes, double value);
/* The x of a point: its density or its block size, as the axis is. */
double   spx_speedup_axes_point_x (const SpxSpeedupAxes *axes,
                                   const SpxSweepPoint *point);
double   spx_speedup_axes_y (const SpxSpeedupAxes *axes, double value);

/* The x axis's tick labels as drawn at width × height, left to right
 * (densities "1/16" or "6.25%"; block sizes with their rows of block
 * densities, "16\n99.9%", "" for none; a label that would touch its
 * neighbour is not drawn and not listed), and when xs is not NULL their
 * x in a new array (free with g_free). NULL when there is no plot. Free
 * with g_strfreev. */
GStrv    spx_render_speedup_x_labels (cairo_t *cr, double width,
                                      double height,
                                      const SpxRenderSpeedupData *data,
                                      const SpxRenderStyle *style,
                                      double **xs);

/* The title as spx_render_speedup draws it at width (the style's when
 * set, else data's, else one from the sweep) and, when extent is not
 * NULL, what it takes: its lines (more than one when it is too long for
 * one) and whether any was cut (never). NULL without a sweep. Free with
 * g_free. */
char    *spx_render_speedup_title (cairo_t *cr, double width,
                                   const SpxRenderSpeedupData *data,
                                   const SpxRenderStyle *style,
                                   SpxTextExtent *extent);

/* The legend's entries for the sweeps drawn: with an overlay the current
 * sweep's ("name (machine, n, dtype)") and the overlay's, in that
 * order; without one none (the title names the sweep). Free with
 * g_strfreev. */
GStrv    spx_render_speedup_sweep_labels (const SpxRenderSpeedupData *data);

/* The marker of the current sweep (never the overlay's) nearest (x, y)
 * in spx_render_speedup's picture of width × height, within 8 pixels:
 * TRUE and *point (may be NULL) its index in d->sweep->points (of a
 * merged marker, the first point's). FALSE for none. */
gboolean spx_render_speedup_hit (double width, double height,
                                 const SpxRenderSpeedupData *d,
                                 const SpxRenderStyle *style, double x,
                                 double y, guint *point);

/* The hover text of d->sweep->points[point], NULL out of range:
 *   IPU model (bow) · 16 × 16 blocks · static
 *   density 1/16 (6.25%)
 *   2.31× over dense · 41.2 non-zero TFLOP/s
 *   static 0.031 ms at n 1,024; dense 0.0716 ms at n 2,048
 *   no spread: a model                   (CPU: "quartiles 1.9–2.1 ms",
 *                                         and "; ratio 1.4–1.6×" when
 *                                         its round ratios are known)
 *   fits every tile's memory             (or "over memory: …"; CPU: none)
 * and "noisy (busy, dense-slow): not a result" for a noisy measurement.
 * Free with g_free. */
char    *spx_render_speedup_describe (const SpxRenderSpeedupData *d,
                                      guint point);

G_END_DECLS
