/* spx-render-speedup-private.h: what the speedup chart's files share */
#pragma once

#include "spx-render-series.h"
#include "spx-render-speedup.h"

G_BEGIN_DECLS

#define PAD        10.0
#define TICK_TEXT  0.9   /* tick labels and legend, × font size */
#define SWATCH     26.0  /* legend: the sample line's length */
#define MAX_BLOCKS SPX_SPEEDUP_MAX_BLOCKS
#define MAX_TICKS  40
#define CAP        3.0   /* error bars: half the width of their caps */

/* What is being drawn, and where. */
typedef struct {
  const SpxRenderSpeedupData *d;
  const SpxRenderStyle       *style;
  const GArray               *points;
  const GArray               *over;       /* the overlay's points, or NULL */
  gboolean                    gflops;     /* throughput unit: else TFLOP/s */
  gboolean                    has_source[2], has_unfit;
  gboolean                    has_noisy;  /* either sweep's markers */
  gboolean                    has_mode[SPX_SWEEP_N_MODES];
  gboolean                    has_kind[SPX_N_SERIES_STYLES]; /* of
                                            kind_row's (source, mode) */
  gboolean                    subject;    /* one mask, re-blocked */
  gboolean                    over_subject; /* the overlay's too */
  guint                       n_noisy;    /* plotted points */
  double                      current;    /* density marked; 0: none */
  guint                       current_block; /* its column marked; 0 */
  guint                       x_rows;     /* rows of x tick labels */
  guint                       blocks[MAX_BLOCKS]; /* colour order */
  guint                       n_blocks;
  SpxSpeedupAxes              ax;
  double                      yticks[MAX_TICKS];
  guint                       n_yticks;
  double                      legend_x, legend_w, row_h;
  char                       *title;
  double                      title_size; /* × the font size */
  double                      title_h;    /* its lines' height */
  GPtrArray                  *subtitle;   /* lines of text */
} Chart;

/* c made for d at width (titles fitted, legend's survey taken); free
 * what it holds with _spx_speedup_chart_clear. */
void   _spx_speedup_chart_init (Chart *c, cairo_t *cr,
                                const SpxRenderSpeedupData *d,
                                const SpxRenderStyle *style, double width);
void   _spx_speedup_chart_clear (Chart *c);
const SpxSweepPoint *_spx_speedup_point_at (const Chart *c, guint i);
/* The height of a line of text at size (× the font size). */
double _spx_speedup_text_h (cairo_t *cr, const SpxRenderStyle *style,
                            double size);

/* spx-render-speedup-titles.c: the title (the user's, the caller's or
 * one from the sweep; wrapped, never cut) and the subtitle's lines. */
void   _spx_speedup_fit_titles (cairo_t *cr, Chart *c, double width);
void   _spx_speedup_draw_titles (cairo_t *cr, const Chart *c, double width);
/* text's width in the bold face at size. */
double _spx_speedup_title_width (cairo_t *cr, const Chart *c, double size,
                                 const char *text);
/* "avx2-4t" of "cpu-avx2-4t": said after "CPU". */
const char *_spx_speedup_cpu_name (const SpxSweepPoint *p);

G_END_DECLS
