/* spx-render-speedup.c: speedup (or non-zero throughput) against density,
 * both on log scales, one line per (source, block size, mode) */
#include "spx-render-speedup.h"

#include <math.h>
#include <string.h>

#define PAD        10.0
#define TICK_TEXT  0.9   /* tick labels and legend, × font size */
#define SWATCH     26.0  /* legend: the sample line's length */
#define MAX_BLOCKS (2 * SPX_SWEEP_MAX_VALUES)
#define MAX_TICKS  40

static const double current_dash[] = { 3, 3 };

/* What is being drawn, and where. */
typedef struct {
  const SpxRenderSpeedupData *d;
  const SpxRenderStyle       *style;
  const GArray               *points;
  gboolean                    gflops;     /* throughput unit: else TFLOP/s */
  gboolean                    has_source[2], has_mode[3], has_unfit;
  guint                       blocks[MAX_BLOCKS]; /* colour order */
  guint                       n_blocks;
  SpxSpeedupAxes              ax;
  double                      yticks[MAX_TICKS];
  guint                       n_yticks;
  double                      legend_x, legend_w, row_h;
  double                      title_h;
  GPtrArray                  *subtitle;   /* lines of text */
} Chart;

static const SpxSweepPoint *
point_at (const Chart *c, guint i)
{
  return &g_array_index (c->points, SpxSweepPoint, i);
}

/* The point's value in the chart's unit; FALSE if it cannot be drawn. */
static gboolean
point_value (const Chart *c, const SpxSweepPoint *p, double *value)
{
  double v = c->d->throughput ? p->nz_throughput : p->speedup;
  if (c->d->throughput && c->gflops && p->source == SPX_SWEEP_MODEL)
    v *= 1000;
  *value = v;
  return isfinite (v) && v > 0 && isfinite (p->density) && p->density > 0;
}

/* Dense is the reference line in a speedup chart, not a series. */
static gboolean
point_on_y_range (const Chart *c, const SpxSweepPoint *p)
{
  return c->d->throughput || p->mode != SPX_IPU_MODE_DENSE;
}

static void
add_block (Chart *c, guint block)
{
  for (guint i = 0; i < c->n_blocks; i++)
    if (c->blocks[i] == block)
      return;
  if (c->n_blocks < MAX_BLOCKS)
    c->blocks[c->n_blocks++] = block;
}

/* Which sources, modes and blocks appear; blocks in the sweep's order so
 * that colours stay put while points arrive. */
static void
survey (Chart *c)
{
  const SpxSweepOptions *o = &c->d->sweep->settings;
  for (guint i = 0; i < c->points->len; i++)
    if (point_at (c, i)->source == SPX_SWEEP_CPU)
      c->gflops = TRUE;
  for (guint b = 0; b <= o->n_blocks; b++)
    for (guint i = 0; i < c->points->len; i++)
      {
        const SpxSweepPoint *p = point_at (c, i);
        double v;
        if (!point_value (c, p, &v))
          continue;
        c->has_source[p->source] = TRUE;
        c->has_mode[p->mode] = TRUE;
        c->has_unfit |= !p->fits && point_on_y_range (c, p);
        if (p->mode != SPX_IPU_MODE_DENSE &&
            (b == o->n_blocks || p->block == o->blocks[b]))
          add_block (c, p->block);
      }
}

static gboolean
data_range (const Chart *c, double *xlo, double *xhi, double *ylo,
            double *yhi)
{
  *xlo = *ylo = INFINITY;
  *xhi = *yhi = -INFINITY;
  for (guint i = 0; i < c->points->len; i++)
    {
      const SpxSweepPoint *p = point_at (c, i);
      double v;
      if (!point_value (c, p, &v))
        continue;
      *xlo = MIN (*xlo, p->density);
      *xhi = MAX (*xhi, p->density);
      if (!point_on_y_range (c, p))
        continue;
      *ylo = MIN (*ylo, v);
      *yhi = MAX (*yhi, v);
    }
  if (!c->d->throughput)
    {
      *ylo = MIN (*ylo, 1.0);
      *yhi = MAX (*yhi, 1.0);
    }
  return *xlo <= *xhi && *ylo <= *yhi;
}

/* Widen [lo, hi] to a ratio of at least min_ratio about its geometric
 * centre, then by pad on each side. */
static void
widen (double *lo, double *hi, double min_ratio, double pad)
{
  double ratio = *hi / *lo;
  if (ratio < min_ratio)
    {
      double centre = sqrt (*lo * *hi), half = sqrt (min_ratio);
      *lo = centre / half;
      *hi = centre * half;
    }
  *lo /= pad;
  *hi *= pad;
}

static gboolean
ranges (Chart *c)
{
  double xlo, xhi, ylo, yhi;
  if (!data_range (c, &xlo, &xhi, &ylo, &yhi))
    return FALSE;
  if (c->d->current_density > 0 && isfinite (c->d->current_density))
    {
      xlo = MIN (xlo, c->d->current_density);
      xhi = MAX (xhi, c->d->current_density);
    }
  widen (&xlo, &xhi, 8, pow (2, 0.3)); /* three octaves at least */
  widen (&ylo, &yhi, 4, 1.25);
  c->ax.x_lo = xlo;
  c->ax.x_hi = xhi;
  c->ax.y_lo = ylo;
  c->ax.y_hi = yhi;
  return TRUE;
}

double
spx_speedup_axes_x (const SpxSpeedupAxes *a, double density)
{
  return a->x + a->w * log (density / a->x_lo) / log (a->x_hi / a->x_lo);
}

double
spx_speedup_axes_y (const SpxSpeedupAxes *a, double value)
{
  return a->y + a->h -
         a->h * log (value / a->y_lo) / log (a->y_hi / a->y_lo);
}

/* Log ticks: the finest set of mantissas per decade whose closest pair is
 * at least min_gap pixels apart; else every step-th decade. */
static guint
log_ticks (double lo, double hi, double px_per_decade, double min_gap,
           double *ticks)
{
  static const double fine[] = { 1, 1.5, 2, 3, 5, 7, 10 };
  static const double mid[] = { 1, 2, 5, 10 };
  static const double coarse[] = { 1, 3, 10 };
  static const double one[] = { 1, 10 };
  static const struct { const double *m; guint n; } sets[] = {
    { fine, G_N_ELEMENTS (fine) }, { mid, G_N_ELEMENTS (mid) },
    { coarse, G_N_ELEMENTS (coarse) }, { one, G_N_ELEMENTS (one) },
  };
  guint set = 0, step = 1;
  for (; set < G_N_ELEMENTS (sets); set++)
    {
      double gap = INFINITY;
      for (guint i = 1; i < sets[set].n; i++)
        gap = MIN (gap, log10 (sets[set].m[i] / sets[set].m[i - 1]));
      if (gap * px_per_decade >= min_gap)
        break;
    }
  if (set == G_N_ELEMENTS (sets))
    {
      set--;
      step = (guint) ceil (min_gap / MAX (px_per_decade, 1e-9));
    }
  guint n = 0;
  for (int e = (int) floor (log10 (lo)); e <= (int) ceil (log10 (hi)); e++)
    {
      if (e % (int) step != 0)
        continue;
      for (guint i = 0; i + 1 < sets[set].n && n < MAX_TICKS; i++)
        {
          double v = sets[set].m[i] * pow (10, e);
          if (v >= lo && v <= hi)
            ticks[n++] = v;
        }
    }
  return n;
}

/* Tick values are 1, 1.5, 2, 3, 5 or 7 × a power of ten: 30k, 1.5k, 0.2. */
static char *
format_value (const Chart *c, double v)
{
  const char *unit = c->d->throughput ? "" : "×";
  if (v >= 1e6)
    return g_strdup_printf ("%.3gM%s", v / 1e6, unit);
  if (v >= 1e3)
    return g_strdup_printf ("%.3gk%s", v / 1e3, unit);
  return g_strdup_printf ("%.3g%s", v, unit);
}

/* 1/16 when it is one, else a percentage. */
static char *
format_density (double d)
{
  double inv = 1 / d;
  if (d >= 1)
    return g_strdup_printf ("%g", d);
  if (fabs (inv - round (inv)) < 1e-6 * inv)
    return g_strdup_printf ("1/%.0f", round (inv));
  return g_strdup_printf ("%.3g%%", d * 100);
}

static double
text_h (cairo_t *cr, const SpxRenderStyle *style, double size)
{
  double h;
  spx_render_text_width (cr, style, size, "Ag", &h);
  return h;
}

/* The legend */

typedef enum {
  ROW_HEADING,
  ROW_BLOCK,
  ROW_MODE,
  ROW_SOURCE,
  ROW_DENSE,
  ROW_CURRENT,
  ROW_UNFIT,
} RowKind;

typedef struct {
  RowKind kind;
  guint   arg;
  char   *text;
} Row;

static void
row_add (GArray *rows, RowKind kind, guint arg, char *text)
{
  Row row = { kind, arg, text };
  g_array_append_val (rows, row);
}

static void
row_clear (gpointer data)
{
  g_free (((Row *) data)->text);
}

/* A heading above the rows from start on, if there are any. */
static void
heading (GArray *rows, guint start, const char *text)
{
  Row row = { ROW_HEADING, 0, g_strdup (text) };
  if (rows->len > start)
    g_array_insert_val (rows, start, row);
  else
    g_free (row.text);
}

static GArray *
legend_rows (const Chart *c)
{
  GArray *rows = g_array_new (FALSE, FALSE, sizeof (Row));
  g_array_set_clear_func (rows, row_clear);
  for (guint i = 0; i < c->n_blocks; i++)
    row_add (rows, ROW_BLOCK, i,
             g_strdup_printf ("%u × %u", c->blocks[i], c->blocks[i]));
  heading (rows, 0, "block size");
  guint start = rows->len;
  for (guint m = SPX_IPU_MODE_STATIC; m <= SPX_IPU_MODE_DYNAMIC; m++)
    if (c->has_mode[m])
      row_add (rows, ROW_MODE, m, g_strdup (spx_ipu_mode_to_string (m)));
  if (c->has_unfit)
    row_add (rows, ROW_UNFIT, 0, g_strdup ("over memory"));
  heading (rows, start, "mode");
  start = rows->len;
  if (c->has_source[SPX_SWEEP_CPU])
    row_add (rows, ROW_SOURCE, SPX_SWEEP_CPU, g_strdup ("measured (CPU)"));
  if (c->has_source[SPX_SWEEP_MODEL])
    row_add (rows, ROW_SOURCE, SPX_SWEEP_MODEL, g_strdup ("modelled (IPU)"));
  if (!c->d->throughput)
    row_add (rows, ROW_DENSE, 0, g_strdup ("dense (1×)"));
  else if (c->has_mode[SPX_IPU_MODE_DENSE])
    row_add (rows, ROW_DENSE, 0, g_strdup (
      c->has_source[SPX_SWEEP_MODEL] && c->has_source[SPX_SWEEP_CPU]
        ? "dense (each source)" : "dense"));
  if (c->d->current_density > 0)
    row_add (rows, ROW_CURRENT, 0, g_strdup ("current density"));
  heading (rows, start, "line");
  return rows;
}

static void
set_source_dash (cairo_t *cr, SpxSweepSource source)
{
  static const double dash[] = { 6, 4 };
  cairo_set_dash (cr, dash, source == SPX_SWEEP_MODEL ? 2 : 0, 0);
}

/* Hollow: a plan over the machine's memory. */
static void
marker (cairo_t *cr, const Chart *c, SpxIpuMode mode, double x, double y,
        SpxRgb colour, gboolean hollow)
{
  double r = 4;
  cairo_new_path (cr);
  if (mode == SPX_IPU_MODE_DYNAMIC)
    {
      r *= 1.3; /* a triangle looks smaller than a circle of its size */
      cairo_move_to (cr, x, y - r);
      cairo_line_to (cr, x + r * 0.866, y + r * 0.5);
      cairo_line_to (cr, x - r * 0.866, y + r * 0.5);
      cairo_close_path (cr);
    }
  else
    cairo_arc (cr, x, y, r, 0, 2 * G_PI);
  spx_render_set_rgb (cr, hollow ? c->style->panel : colour);
  cairo_fill_preserve (cr);
  cairo_set_dash (cr, NULL, 0, 0);
  cairo_set_line_width (cr, hollow ? 1.5 : 1);
  spx_render_set_rgb (cr, hollow ? colour : c->style->background);
  cairo_stroke (cr);
}

static void
swatch_line (cairo_t *cr, double x, double y, SpxRgb colour, double width,
             SpxSweepSource source)
{
  cairo_move_to (cr, x, y);
  cairo_line_to (cr, x + SWATCH, y);
  set_source_dash (cr, source);
  cairo_set_line_width (cr, width);
  spx_render_set_rgb (cr, colour);
  cairo_stroke (cr);
  cairo_set_dash (cr, NULL, 0, 0);
}

static SpxRgb
block_colour (const Chart *c, guint index)
{
  return c->style->series[index % SPX_N_SERIES];
}

static void
legend_swatch (cairo_t *cr, const Chart *c, const Row *row, double x,
               double y)
{
  const SpxRenderStyle *s = c->style;
  switch (row->kind)
    {
    case ROW_BLOCK:
      swatch_line (cr, x, y, block_colour (c, row->arg), 2.5, SPX_SWEEP_CPU);
      break;
    case ROW_MODE:
      marker (cr, c, row->arg, x + SWATCH / 2, y, s->foreground, FALSE);
      break;
    case ROW_UNFIT:
      marker (cr, c, SPX_IPU_MODE_STATIC, x + SWATCH / 2, y, s->foreground,
              TRUE);
      break;
    case ROW_SOURCE:
      swatch_line (cr, x, y, s->foreground, 1.5, row->arg);
      break;
    case ROW_DENSE: /* throughput: dense's lines take their source's dash */
      swatch_line (cr, x, y, s->foreground, 1.5,
                   c->d->throughput && !c->has_source[SPX_SWEEP_CPU]
                     ? SPX_SWEEP_MODEL : SPX_SWEEP_CPU);
      break;
    case ROW_CURRENT:
      cairo_move_to (cr, x + SWATCH / 2, y - 6);
      cairo_line_to (cr, x + SWATCH / 2, y + 6);
      cairo_set_dash (cr, current_dash, 2, 0);
      cairo_set_line_width (cr, 1.5);
      spx_render_set_rgb (cr, s->muted);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
      break;
    case ROW_HEADING:
    default:
      break;
    }
}

static double
legend_width (cairo_t *cr, const Chart *c, const GArray *rows)
{
  double w = 0;
  for (guint i = 0; i < rows->len; i++)
    {
      const Row *row = &g_array_index (rows, Row, i);
      double tw = spx_render_text_width (cr, c->style, TICK_TEXT, row->text,
                                         NULL);
      w = MAX (w, row->kind == ROW_HEADING ? tw : SWATCH + 6 + tw);
    }
  return w;
}

/* Rows that do not fit above the bottom are left out. */
static void
draw_legend (cairo_t *cr, const Chart *c, const GArray *rows, double bottom)
{
  double y = c->ax.y;
  for (guint i = 0; i < rows->len && y + c->row_h <= bottom; i++)
    {
      const Row *row = &g_array_index (rows, Row, i);
      gboolean heading = row->kind == ROW_HEADING;
      if (heading && i > 0)
        y += c->row_h * 0.4;
      SpxTextOpts t = { .size = TICK_TEXT, .ay = 0.5, .bold = heading,
                        .colour = c->style->muted, .use_colour = heading };
      legend_swatch (cr, c, row, c->legend_x, y + c->row_h / 2);
      spx_render_text (cr, c->style, c->legend_x + (heading ? 0 : SWATCH + 6),
                       y + c->row_h / 2, &t, row->text);
      y += c->row_h;
    }
}

/* Titles */

static char *
default_title (const Chart *c)
{
  return g_strdup (c->d->throughput ? "Non-zero throughput against density"
                                    : "Block-sparse speedup over dense");
}

static const SpxSweepPoint *
first_point (const Chart *c, SpxSweepSource source)
{
  for (guint i = 0; i < c->points->len; i++)
    if (point_at (c, i)->source == source)
      return point_at (c, i);
  return NULL;
}

/* One line per source: what was run, so the picture stands alone. */
static GPtrArray *
subtitle_lines (const Chart *c)
{
  GPtrArray *lines = g_ptr_array_new_with_free_func (g_free);
  const SpxSweepPoint *p = first_point (c, SPX_SWEEP_MODEL);
  if (p != NULL)
    {
      g_autofree char *n = c->d->sweep->settings.model_n == 0
        ? g_strdup ("best n")
        : g_strdup_printf ("n = %" G_GUINT64_FORMAT, p->n);
      g_ptr_array_add (lines, g_strdup_printf (
        "IPU model %s: %s, %" G_GUINT64_FORMAT " × %" G_GUINT64_FORMAT ", %s",
        p->machine, spx_dtype_to_string (p->dtype), p->m, p->k, n));
    }
  p = first_point (c, SPX_SWEEP_CPU);
  if (p != NULL)
    g_ptr_array_add (lines, g_strdup_printf (
      "CPU %s: fp32, %" G_GUINT64_FORMAT " × %" G_GUINT64_FORMAT ", n = %"
      G_GUINT64_FORMAT, g_str_has_prefix (p->machine, "cpu-") ? p->machine + 4
                                                             : p->machine,
      p->m, p->k, p->n));
  return lines;
}

/* Join the two lines with " · " when that fits the width. */
static void
fit_subtitle (cairo_t *cr, Chart *c, double width)
{
  if (c->subtitle->len != 2)
    return;
  g_autofree char *joined = g_strconcat (g_ptr_array_index (c->subtitle, 0),
                                         " · ",
                                         g_ptr_array_index (c->subtitle, 1),
                                         NULL);
  if (spx_render_text_width (cr, c->style, TICK_TEXT, joined, NULL) >
      width - 2 * PAD)
    return;
  g_ptr_array_set_size (c->subtitle, 0);
  g_ptr_array_add (c->subtitle, g_steal_pointer (&joined));
}

static void
draw_titles (cairo_t *cr, const Chart *c, double width)
{
  g_autofree char *title = c->d->title ? g_strdup (c->d->title)
                                       : default_title (c);
  SpxTextOpts t = { .size = 1.2, .bold = TRUE, .ax = 0.5 };
  spx_render_text (cr, c->style, width / 2, PAD, &t, title);
  SpxTextOpts s = { .size = TICK_TEXT, .ax = 0.5, .colour = c->style->muted,
                    .use_colour = TRUE };
  double y = PAD + text_h (cr, c->style, 1.2) + 2;
  for (guint i = 0; i < c->subtitle->len; i++)
    {
      spx_render_text (cr, c->style, width / 2, y, &s,
                       g_ptr_array_index (c->subtitle, i));
      y += text_h (cr, c->style, TICK_TEXT);
    }
}

/* Layout */

static void
chart_init (Chart *c, cairo_t *cr, const SpxRenderSpeedupData *d,
            const SpxRenderStyle *style, double width)
{
  memset (c, 0, sizeof *c);
  c->d = d;
  c->style = style;
  c->points = d->sweep->points;
  survey (c);
  c->subtitle = subtitle_lines (c);
  fit_subtitle (cr, c, width);
}

static void
chart_clear (Chart *c)
{
  g_clear_pointer (&c->subtitle, g_ptr_array_unref);
}

static double
y_labels_width (cairo_t *cr, const Chart *c)
{
  double w = 0;
  for (guint i = 0; i < c->n_yticks; i++)
    {
      g_autofree char *label = format_value (c, c->yticks[i]);
      w = MAX (w, spx_render_text_width (cr, c->style, TICK_TEXT, label,
                                         NULL));
    }
  return w;
}

/* Margins from the text sizes, then the y ticks that fit the height. */
static gboolean
layout (cairo_t *cr, Chart *c, double width, double height,
        const GArray *rows)
{
  if (!ranges (c))
    return FALSE;
  double th = text_h (cr, c->style, TICK_TEXT);
  c->row_h = th * 1.2;
  c->ax.y = PAD + text_h (cr, c->style, 1.2) + 2 + c->subtitle->len * th + 12;
  c->ax.h = MAX (height - PAD - 2 * th - 10 - c->ax.y, 10);
  double px_per_decade = c->ax.h / log10 (c->ax.y_hi / c->ax.y_lo);
  c->n_yticks = log_ticks (c->ax.y_lo, c->ax.y_hi, px_per_decade, th * 1.6,
                           c->yticks);
  c->ax.x = PAD + th + 8 + y_labels_width (cr, c) + 6;
  c->legend_w = legend_width (cr, c, rows);
  c->legend_x = width - PAD - c->legend_w;
  c->ax.w = MAX (c->legend_x - 20 - c->ax.x, 10);
  return TRUE;
}

gboolean
spx_render_speedup_axes (cairo_t *cr, double width, double height,
                         const SpxRenderSpeedupData *data,
                         const SpxRenderStyle *style, SpxSpeedupAxes *axes)
{
  if (data == NULL || data->sweep == NULL)
    return FALSE;
  Chart c;
  chart_init (&c, cr, data, style, width);
  g_autoptr (GArray) rows = legend_rows (&c);
  gboolean ok = layout (cr, &c, width, height, rows);
  *axes = c.ax;
  chart_clear (&c);
  return ok;
}

/* Axes and grid */

static SpxRgb
grid_colour (const Chart *c)
{
  return spx_rgb_mix (c->style->panel, c->style->muted, 0.35);
}

static void
draw_y_axis (cairo_t *cr, const Chart *c)
{
  const SpxSpeedupAxes *a = &c->ax;
  cairo_set_line_width (cr, 1);
  for (guint i = 0; i < c->n_yticks; i++)
    {
      double y = round (spx_speedup_axes_y (a, c->yticks[i])) + 0.5;
      cairo_move_to (cr, a->x, y);
      cairo_line_to (cr, a->x + a->w, y);
      spx_render_set_rgb (cr, grid_colour (c));
      cairo_stroke (cr);
      g_autofree char *label = format_value (c, c->yticks[i]);
      SpxTextOpts t = { .size = TICK_TEXT, .ax = 1, .ay = 0.5 };
      spx_render_text (cr, c->style, a->x - 6, y, &t, label);
    }
  const char *title = !c->d->throughput ? "speedup over dense (log scale)"
                      : c->gflops ? "non-zero GFLOP/s (log scale)"
                                  : "non-zero TFLOP/s (log scale)";
  SpxTextOpts t = { .size = TICK_TEXT, .ax = 0.5, .angle = -G_PI / 2 };
  spx_render_text (cr, c->style, PAD, a->y + a->h / 2, &t, title);
}

static int
compare_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* The sweep's densities, or powers of two when there are too many. */
static GArray *
x_ticks (const Chart *c)
{
  GArray *ticks = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint i = 0; i < c->points->len; i++)
    {
      double v, d = point_at (c, i)->density;
      gboolean seen = FALSE;
      for (guint j = 0; j < ticks->len && !seen; j++)
        seen = g_array_index (ticks, double, j) == d;
      if (!seen && point_value (c, point_at (c, i), &v))
        g_array_append_val (ticks, d);
    }
  /* too many to label: powers of two; too few to read a log scale
   * from: powers of two as well */
  if (ticks->len > 12)
    g_array_set_size (ticks, 0);
  if (ticks->len < 3)
    for (double d = exp2 (ceil (log2 (c->ax.x_lo))); d <= c->ax.x_hi; d *= 2)
      {
        gboolean seen = FALSE;
        for (guint j = 0; j < ticks->len && !seen; j++)
          seen = fabs (g_array_index (ticks, double, j) / d - 1) < 1e-9;
        if (!seen)
          g_array_append_val (ticks, d);
      }
  g_array_sort (ticks, compare_double);
  return ticks;
}

/* Labels left to right, skipping any that would touch the last one. */
static void
draw_x_axis (cairo_t *cr, const Chart *c)
{
  const SpxSpeedupAxes *a = &c->ax;
  g_autoptr (GArray) ticks = x_ticks (c);
  double last_right = -INFINITY;
  cairo_set_line_width (cr, 1);
  for (guint i = 0; i < ticks->len; i++)
    {
      double d = g_array_index (ticks, double, i);
      double x = round (spx_speedup_axes_x (a, d)) + 0.5;
      cairo_move_to (cr, x, a->y);
      cairo_line_to (cr, x, a->y + a->h);
      spx_render_set_rgb (cr, grid_colour (c));
      cairo_stroke (cr);
      g_autofree char *label = format_density (d);
      double w = spx_render_text_width (cr, c->style, TICK_TEXT, label, NULL);
      if (x - w / 2 < last_right + 8)
        continue;
      SpxTextOpts t = { .size = TICK_TEXT, .ax = 0.5 };
      spx_render_text (cr, c->style, x, a->y + a->h + 4, &t, label);
      last_right = x + w / 2;
    }
  SpxTextOpts t = { .size = TICK_TEXT, .ax = 0.5, .ay = 1 };
  spx_render_text (cr, c->style, a->x + a->w / 2,
                   a->y + a->h + 4 + 2 * text_h (cr, c->style, TICK_TEXT) + 4,
                   &t, "density of non-zero blocks (log scale)");
}

/* Series */

typedef struct {
  double   x, v;
  gboolean fits;
} Xy;

static int
compare_xy (gconstpointer a, gconstpointer b)
{
  return compare_double (&((const Xy *) a)->x, &((const Xy *) b)->x);
}

/* The points of one (source, block, mode), by density; block 0: any,
 * with the values at one density averaged (dense's reference). */
static GArray *
series (const Chart *c, SpxSweepSource source, guint block, SpxIpuMode mode)
{
  GArray *xy = g_array_new (FALSE, FALSE, sizeof (Xy));
  for (guint i = 0; i < c->points->len; i++)
    {
      const SpxSweepPoint *p = point_at (c, i);
      Xy e = { p->density, 0, p->fits };
      if (p->source == source && p->mode == mode &&
          (block == 0 || p->block == block) && point_value (c, p, &e.v))
        g_array_append_val (xy, e);
    }
  g_array_sort (xy, compare_xy);
  guint out = 0;
  for (guint i = 0; i < xy->len; out++)
    {
      Xy *e = &g_array_index (xy, Xy, i);
      double sum = 0;
      guint j = i;
      for (; j < xy->len && g_array_index (xy, Xy, j).x == e->x; j++)
        sum += g_array_index (xy, Xy, j).v;
      g_array_index (xy, Xy, out) = (Xy) { e->x, sum / (j - i), e->fits };
      i = j;
    }
  g_array_set_size (xy, out);
  return xy;
}

static void
polyline (cairo_t *cr, const Chart *c, const GArray *xy, SpxRgb colour,
          double width, SpxSweepSource source)
{
  if (xy->len == 0)
    return;
  cairo_new_path (cr);
  for (guint i = 0; i < xy->len; i++)
    {
      const Xy *e = &g_array_index (xy, Xy, i);
      cairo_line_to (cr, spx_speedup_axes_x (&c->ax, e->x),
                     spx_speedup_axes_y (&c->ax, e->v));
    }
  if (xy->len == 1) /* a lone point: a short level stroke shows the style */
    cairo_rel_line_to (cr, 0.001, 0);
  set_source_dash (cr, source);
  cairo_set_line_width (cr, width);
  cairo_set_line_cap (cr, xy->len == 1 ? CAIRO_LINE_CAP_ROUND
                                       : CAIRO_LINE_CAP_BUTT);
  spx_render_set_rgb (cr, colour);
  cairo_stroke (cr);
  cairo_set_dash (cr, NULL, 0, 0);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_BUTT);
}

/* Speedup: a level line at 1. Throughput: dense's own line per source. */
static void
draw_reference (cairo_t *cr, const Chart *c)
{
  const SpxSpeedupAxes *a = &c->ax;
  if (!c->d->throughput)
    {
      double y = spx_speedup_axes_y (a, 1.0);
      cairo_move_to (cr, a->x, y);
      cairo_line_to (cr, a->x + a->w, y);
      cairo_set_line_width (cr, 1.5);
      spx_render_set_rgb (cr, c->style->foreground);
      cairo_stroke (cr);
      return;
    }
  for (guint s = SPX_SWEEP_MODEL; s <= SPX_SWEEP_CPU; s++)
    {
      g_autoptr (GArray) xy = series (c, s, 0, SPX_IPU_MODE_DENSE);
      polyline (cr, c, xy, c->style->foreground, 1.5, s);
    }
}

static void
draw_current (cairo_t *cr, const Chart *c)
{
  double d = c->d->current_density;
  if (!(d > 0) || !isfinite (d))
    return;
  double x = spx_speedup_axes_x (&c->ax, d);
  cairo_move_to (cr, x, c->ax.y);
  cairo_line_to (cr, x, c->ax.y + c->ax.h);
  cairo_set_dash (cr, current_dash, 2, 0);
  cairo_set_line_width (cr, 1.5);
  /* not the highlight colour: that orange is also a series colour */
  spx_render_set_rgb (cr, c->style->muted);
  cairo_stroke (cr);
  cairo_set_dash (cr, NULL, 0, 0);
}

/* Lines first, then every marker above every line. */
static void
draw_series (cairo_t *cr, const Chart *c, gboolean markers)
{
  for (guint s = SPX_SWEEP_MODEL; s <= SPX_SWEEP_CPU; s++)
    for (guint b = 0; b < c->n_blocks; b++)
      for (guint m = SPX_IPU_MODE_STATIC; m <= SPX_IPU_MODE_DYNAMIC; m++)
        {
          g_autoptr (GArray) xy = series (c, s, c->blocks[b], m);
          SpxRgb colour = block_colour (c, b);
          if (!markers)
            polyline (cr, c, xy, colour, 2, s);
          else
            for (guint i = 0; i < xy->len; i++)
              {
                const Xy *e = &g_array_index (xy, Xy, i);
                marker (cr, c, m, spx_speedup_axes_x (&c->ax, e->x),
                        spx_speedup_axes_y (&c->ax, e->v), colour, !e->fits);
              }
        }
}

static void
draw_plot (cairo_t *cr, const Chart *c)
{
  const SpxSpeedupAxes *a = &c->ax;
  cairo_rectangle (cr, a->x, a->y, a->w, a->h);
  spx_render_set_rgb (cr, c->style->panel);
  cairo_fill (cr);
  draw_y_axis (cr, c);
  draw_x_axis (cr, c);
  cairo_save (cr);
  cairo_rectangle (cr, a->x, a->y, a->w, a->h);
  cairo_clip (cr);
  draw_reference (cr, c);
  draw_current (cr, c);
  draw_series (cr, c, FALSE);
  draw_series (cr, c, TRUE);
  cairo_restore (cr);
  cairo_rectangle (cr, a->x + 0.5, a->y + 0.5, a->w - 1, a->h - 1);
  cairo_set_line_width (cr, 1);
  spx_render_set_rgb (cr, c->style->muted);
  cairo_stroke (cr);
}

void
spx_render_speedup (cairo_t *cr, double width, double height,
                    gconstpointer data, const SpxRenderStyle *style)
{
  const SpxRenderSpeedupData *d = data;
  spx_render_clear (cr, style, width, height);
  if (d == NULL || d->sweep == NULL)
    {
      spx_render_placeholder (cr, style, width, height, "No sweep");
      return;
    }
  Chart c;
  chart_init (&c, cr, d, style, width);
  g_autoptr (GArray) rows = legend_rows (&c);
  cairo_save (cr);
  draw_titles (cr, &c, width);
  if (layout (cr, &c, width, height, rows))
    {
      draw_plot (cr, &c);
      draw_legend (cr, &c, rows, height - PAD);
    }
  else
    spx_render_placeholder (cr, style, width, height,
                            "No points yet: run a sweep");
  cairo_restore (cr);
  chart_clear (&c);
}
