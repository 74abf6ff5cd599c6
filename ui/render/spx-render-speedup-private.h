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

/* A point of a series, where it is drawn. */
typedef struct {
  double   x, v;
  double   lo, hi;  /* the value at the quartiles: v, v without a spread */
  guint    block;
  gboolean fits, noisy;
  guint    index;   /* in the sweep's points (merged: the first) */
} Xy;

typedef enum {
  LAYER_LINES,
  LAYER_BARS,
  LAYER_MARKERS,
} Layer;

/* spx-render-speedup.c: the points, and what the sweeps hold. */
const SpxSweepPoint *_spx_speedup_point_at (const Chart *c, guint i);
/* The point's value in the chart's unit; FALSE if it cannot be drawn. */
gboolean _spx_speedup_point_value (const Chart *c, const SpxSweepPoint *p,
                                   double *value);
/* The value at the ends of the point's error bar. */
void     _spx_speedup_point_spread (const Chart *c, const SpxSweepPoint *p,
                                    double v, double *lo, double *hi);
gboolean _spx_speedup_point_on_y_range (const Chart *c,
                                        const SpxSweepPoint *p);
void     _spx_speedup_add_block (guint *blocks, guint *n, guint block);
guint    _spx_speedup_n_sweeps (const Chart *c);
const GArray   *_spx_speedup_sweep_points (const Chart *c, guint which);
const SpxSweep *_spx_speedup_sweep_of (const Chart *c, guint which);
void     _spx_speedup_survey (Chart *c);
/* A cairo_t for text sizes without a picture. */
cairo_t *_spx_speedup_scratch_cr (void);

/* spx-render-speedup-layout.c: c made for d at width (titles fitted,
 * legend's survey taken); free what it holds with
 * _spx_speedup_chart_clear. */
void   _spx_speedup_chart_init (Chart *c, cairo_t *cr,
                                const SpxRenderSpeedupData *d,
                                const SpxRenderStyle *style, double width);
void   _spx_speedup_chart_clear (Chart *c);
/* The height of a line of text at size (× the font size). */
double _spx_speedup_text_h (cairo_t *cr, const SpxRenderStyle *style,
                            double size);
/* c's ranges, margins and y ticks, beside the legend's rows; FALSE: no
 * point to plot. */
gboolean _spx_speedup_layout (cairo_t *cr, Chart *c, double width,
                              double height, const GArray *rows);
void   _spx_speedup_draw_y_axis (cairo_t *cr, const Chart *c);
void   _spx_speedup_draw_x_axis (cairo_t *cr, const Chart *c);
int    _spx_speedup_compare_double (gconstpointer a, gconstpointer b);
/* n when d is 1/n for a whole n, else 0; "1/16"; "6.25%". */
double _spx_speedup_whole_inverse (double d);
char  *_spx_speedup_format_fraction (double d);
char  *_spx_speedup_format_percent (double d, int digits);

/* spx-render-speedup-series.c: the legend's rows (free with
 * g_array_unref), their width, and the legend drawn. */
GArray *_spx_speedup_legend_rows (const Chart *c);
double  _spx_speedup_legend_width (cairo_t *cr, const Chart *c,
                                   const GArray *rows);
void    _spx_speedup_draw_legend (cairo_t *cr, const Chart *c,
                                  const GArray *rows, double bottom);
const char *_spx_speedup_mode_label (SpxSweepMode mode);
SpxRgb  _spx_speedup_overlay_line_colour (const Chart *c);
/* The Xy of one (source, block, mode) of pts; block 0: any. */
GArray *_spx_speedup_series (const Chart *c, const GArray *pts,
                             SpxSweepSource source, guint block,
                             SpxSweepMode mode, gboolean merge);
void    _spx_speedup_draw_reference (cairo_t *cr, const Chart *c);
void    _spx_speedup_draw_current (cairo_t *cr, const Chart *c);
void    _spx_speedup_draw_overlay (cairo_t *cr, const Chart *c);
void    _spx_speedup_draw_series (cairo_t *cr, const Chart *c, Layer layer);

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
