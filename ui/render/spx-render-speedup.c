/* spx-render-speedup.c: speedup (or non-zero throughput) against density,
 * both on log scales, one line per (source, block size, mode); a
 * subject's sweep: against block size, one line per (source, mode); an
 * earlier sweep, muted, under the current one */
#include "spx-render-speedup-private.h"
#include "spx-render-views.h"
#include "spx-util.h"

#include <math.h>
#include <string.h>

static const double current_dash[] = { 3, 3 };


const SpxSweepPoint *
_spx_speedup_point_at (const Chart *c, guint i)
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

/* The error bar's ends: in speedup, a CPU point's per-round ratio
 * quartiles when it has them; else the value at the slower and at the
 * faster quartile of the timed runs (speedup and throughput both go as
 * 1 / ms); without a spread, both are the value. */
static void
point_spread (const Chart *c, const SpxSweepPoint *p, double v, double *lo,
              double *hi)
{
  *lo = *hi = v;
  if (!c->d->throughput && p->source == SPX_SWEEP_CPU &&
      p->speedup_q1 > 0 && p->speedup_q3 > 0 && isfinite (p->speedup_q1) &&
      isfinite (p->speedup_q3))
    {
      *lo = MIN (p->speedup_q1, p->speedup_q3);
      *hi = MAX (p->speedup_q1, p->speedup_q3);
    }
  else if (p->ms > 0 && p->ms_q1 > 0 && p->ms_q1 < p->ms_q3 &&
           isfinite (p->ms_q3))
    {
      *lo = v * p->ms / p->ms_q3;
      *hi = v * p->ms / p->ms_q1;
    }
}

/* Dense is the reference line in a speedup chart, not a series. */
static gboolean
point_on_y_range (const Chart *c, const SpxSweepPoint *p)
{
  return c->d->throughput || p->mode != SPX_SWEEP_DENSE;
}

/* Where a point sits along the x axis: its block size or its density. */
static double
point_x (const Chart *c, const SpxSweepPoint *p)
{
  return c->ax.by_block ? (double) p->block : p->density;
}

/* A (source, mode)'s series-style row (spx_series_kind_row): its marker
 * marks their points, its dash draws a subject's lines; a sweep of
 * generated masks dashes its lines by block size instead. */

/* Dense's own lines (throughput): solid on the CPU, dashed on the
 * model. */
static guint
dense_row (SpxSweepSource source)
{
  return source == SPX_SWEEP_CPU ? 0 : 1;
}

static void
add_block (guint *blocks, guint *n, guint block)
{
  for (guint i = 0; i < *n; i++)
    if (blocks[i] == block)
      return;
  if (*n < MAX_BLOCKS)
    blocks[(*n)++] = block;
}

/* The sweeps drawn: the current one first, then the overlay. */
static guint
n_sweeps (const Chart *c)
{
  return c->over != NULL ? 2 : 1;
}

static const GArray *
sweep_points (const Chart *c, guint which)
{
  return which == 0 ? c->points : c->over;
}

static const SpxSweep *
sweep_of (const Chart *c, guint which)
{
  return which == 0 ? c->d->sweep : c->d->overlay;
}

/* Which sources, modes and blocks appear; blocks in the sweeps' order so
 * that colours stay put while points arrive. */
static void
survey (Chart *c)
{
  for (guint w = 0; w < n_sweeps (c); w++)
    {
      const SpxSweepOptions *o = &sweep_of (c, w)->settings;
      const GArray *pts = sweep_points (c, w);
      for (guint i = 0; i < pts->len; i++)
        if (g_array_index (pts, SpxSweepPoint, i).source == SPX_SWEEP_CPU)
          c->gflops = TRUE;
      for (guint b = 0; b <= o->n_blocks; b++)
        for (guint i = 0; i < pts->len; i++)
          {
            const SpxSweepPoint *p = &g_array_index (pts, SpxSweepPoint, i);
            double v;
            if (!point_value (c, p, &v))
              continue;
            c->has_source[p->source] = TRUE;
            c->has_mode[p->mode] = TRUE;
            if (p->mode != SPX_SWEEP_DENSE)
              c->has_kind[spx_series_kind_row (p->source, p->mode)] = TRUE;
            c->has_unfit |= !p->fits && point_on_y_range (c, p);
            c->has_noisy |= p->noise != 0 && p->mode != SPX_SWEEP_DENSE;
            if (p->mode != SPX_SWEEP_DENSE && b == 0 && w == 0)
              c->n_noisy += p->noise != 0;
            if (p->mode != SPX_SWEEP_DENSE &&
                (b == o->n_blocks || p->block == o->blocks[b]))
              add_block (c->blocks, &c->n_blocks, p->block);
          }
    }
}

static int
compare_guint (gconstpointer a, gconstpointer b)
{
  guint x = *(const guint *) a, y = *(const guint *) b;
  return (x > y) - (x < y);
}

/* The block-size axis: every block size either sweep was asked for or
 * has a point at, ascending, so that columns stay put while points
 * arrive. */
static void
block_columns (Chart *c)
{
  SpxSpeedupAxes *a = &c->ax;
  for (guint w = 0; w < n_sweeps (c); w++)
    {
      const SpxSweepOptions *o = &sweep_of (c, w)->settings;
      const GArray *pts = sweep_points (c, w);
      for (guint b = 0; b < o->n_blocks && b < SPX_SWEEP_MAX_VALUES; b++)
        add_block (a->blocks, &a->n_blocks, o->blocks[b]);
      for (guint i = 0; i < pts->len; i++)
        add_block (a->blocks, &a->n_blocks,
                   g_array_index (pts, SpxSweepPoint, i).block);
    }
  qsort (a->blocks, a->n_blocks, sizeof a->blocks[0], compare_guint);
}

/* The caller's density, else a subject's own element density (its block
 * density at 1 × 1); 0: none. */
static double
current_density (const SpxRenderSpeedupData *d)
{
  const SpxMask *s = d->sweep->settings.subject;
  if (d->current_density > 0 && isfinite (d->current_density))
    return d->current_density;
  if (d->current_density == 0 && s != NULL && s->rows > 0 && s->cols > 0)
    return (double) spx_mask_count_elements (s) / ((double) s->rows * s->cols);
  return 0;
}

/* Both sweeps' extent; the current one's with its error bars. */
static gboolean
data_range (const Chart *c, double *xlo, double *xhi, double *ylo,
            double *yhi)
{
  *xlo = *ylo = INFINITY;
  *xhi = *yhi = -INFINITY;
  for (guint w = 0; w < n_sweeps (c); w++)
    {
      const GArray *pts = sweep_points (c, w);
      for (guint i = 0; i < pts->len; i++)
        {
          const SpxSweepPoint *p = &g_array_index (pts, SpxSweepPoint, i);
          double v;
          if (!point_value (c, p, &v))
            continue;
          *xlo = MIN (*xlo, p->density);
          *xhi = MAX (*xhi, p->density);
          if (!point_on_y_range (c, p))
            continue;
          double lo = v, hi = v;
          if (p->mode != SPX_SWEEP_DENSE && w == 0) /* its bar, uncut */
            point_spread (c, p, v, &lo, &hi);
          *ylo = MIN (*ylo, lo);
          *yhi = MAX (*yhi, hi);
        }
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
  widen (&ylo, &yhi, 4, 1.25);
  c->ax.y_lo = ylo;
  c->ax.y_hi = yhi;
  if (c->ax.by_block)
    return TRUE; /* its columns are known */
  if (c->current > 0)
    {
      xlo = MIN (xlo, c->current);
      xhi = MAX (xhi, c->current);
    }
  widen (&xlo, &xhi, 8, pow (2, 0.3)); /* three octaves at least */
  c->ax.x_lo = xlo;
  c->ax.x_hi = xhi;
  return TRUE;
}

double
spx_speedup_axes_x (const SpxSpeedupAxes *a, double value)
{
  if (!a->by_block)
    return a->x + a->w * log (value / a->x_lo) / log (a->x_hi / a->x_lo);
  for (guint i = 0; i < a->n_blocks && i < MAX_BLOCKS; i++)
    if (a->blocks[i] == value)
      return a->x + a->w * (i + 0.5) / a->n_blocks;
  return NAN;
}

double
spx_speedup_axes_point_x (const SpxSpeedupAxes *a, const SpxSweepPoint *p)
{
  return spx_speedup_axes_x (a, a->by_block ? (double) p->block
                                            : p->density);
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

/* n when d is 1/n for a whole n (1 for every block), else 0. */
static double
whole_inverse (double d)
{
  if (!(d > 0 && d <= 1 + 1e-9))
    return 0;
  double inv = 1 / d;
  return fabs (inv - round (inv)) < 1e-6 * inv ? round (inv) : 0;
}

/* d is 1/2^k. */
static gboolean
power_fraction (double d)
{
  double n = whole_inverse (d);
  return n >= 1 && n < 1e15 && ((guint64) n & ((guint64) n - 1)) == 0;
}

/* "1/16"; every block: "1". */
static char *
format_fraction (double d)
{
  double n = whole_inverse (d);
  return n == 1 ? g_strdup ("1") : g_strdup_printf ("1/%.0f", n);
}

/* A percentage to digits significant digits: less than every block is
 * never rounded up to "100%". */
static char *
format_percent (double d, int digits)
{
  char *text = g_strdup_printf ("%.*g%%", digits, d * 100);
  while (d < 1 && g_str_equal (text, "100%") && digits < 9)
    {
      g_free (text);
      text = g_strdup_printf ("%.*g%%", ++digits, d * 100);
    }
  return text;
}

/* Labels of n densities in one notation: fractions when every one is
 * 1/2^k, else percentages. (Two that read alike at 3 digits are too
 * close on a log axis of three octaves or more to be labelled both.) */
static GPtrArray *
density_labels (const double *d, guint n)
{
  gboolean fractions = TRUE;
  for (guint i = 0; i < n; i++)
    fractions = fractions && power_fraction (d[i]);
  GPtrArray *labels = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < n; i++)
    g_ptr_array_add (labels, fractions ? format_fraction (d[i])
                                       : format_percent (d[i], 3));
  return labels;
}

double
_spx_speedup_text_h (cairo_t *cr, const SpxRenderStyle *style, double size)
{
  double h;
  spx_render_text_width (cr, style, size, "Ag", &h);
  return h;
}

/* The legend */

typedef enum {
  ROW_HEADING,
  ROW_SWEEP,      /* arg 0: the current sweep, 1: the overlay */
  ROW_SWEEP_NOTE, /* what it ran, under its name */
  ROW_BLOCK,
  ROW_MODE,       /* arg: kind_row's (source, mode) */
  ROW_DENSE,
  ROW_CURRENT,
  ROW_UNFIT,
  ROW_NOISY,
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

/* The legend's words: "tilewise" is the files' spelling. */
static const char *
mode_label (SpxSweepMode mode)
{
  return mode == SPX_SWEEP_TILEWISE ? "tile-wise"
                                    : spx_sweep_mode_to_string (mode);
}

/* text, its middle cut to max characters ("transfor…_q.smtx"). */
static char *
cut_middle (const char *text, glong max)
{
  glong n = g_utf8_strlen (text, -1);
  if (n <= max)
    return g_strdup (text);
  g_autofree char *start = g_utf8_substring (text, 0, (max - 1) / 2);
  g_autofree char *end = g_utf8_substring (text, n - max / 2, n);
  return g_strconcat (start, "…", end, NULL);
}

/* A sweep's legend entry: its subject, or generated masks. */
static char *
sweep_name (const SpxSweep *sweep)
{
  const SpxSweepOptions *o = &sweep->settings;
  if (o->subject == NULL)
    return g_strdup ("generated masks");
  return cut_middle (o->subject_name != NULL && *o->subject_name
                       ? o->subject_name : "a mask", 24);
}

/* What it ran: "bow, best n · CPU, n = 256 · fp16". */
static char *
sweep_note (const SpxSweep *sweep)
{
  const SpxSweepOptions *o = &sweep->settings;
  GString *out = g_string_new (o->op == SPX_BENCH_OP_SDDMM ? "SDDMM · "
                                                           : "");
  if (o->run_model && o->model_n == 0)
    g_string_append_printf (out, "%s, best n · ",
                            o->machine != NULL ? o->machine->name : "bow");
  else if (o->run_model)
    g_string_append_printf (out, "%s, n = %" G_GUINT64_FORMAT " · ",
                            o->machine != NULL ? o->machine->name : "bow",
                            o->model_n);
  if (o->run_cpu)
    g_string_append_printf (out, "CPU, n = %" G_GUINT64_FORMAT " · ",
                            o->cpu_n);
  g_string_append (out, spx_dtype_to_string (o->dtype));
  return g_string_free (out, FALSE);
}

static gboolean
has_overlay (const SpxRenderSpeedupData *d)
{
  return d->overlay != NULL && d->overlay != d->sweep;
}

/* The legend entry of the current sweep (which 0) or the overlay (1):
 * a name, and what it ran (NULL: the caller's overlay_label says all). */
static void
sweep_entry (const SpxRenderSpeedupData *d, guint which, char **name,
             char **note)
{
  const SpxSweep *sweep = which == 0 ? d->sweep : d->overlay;
  if (which == 1 && d->overlay_label != NULL)
    {
      *name = cut_middle (d->overlay_label, 24);
      *note = NULL;
      return;
    }
  *name = sweep_name (sweep);
  *note = sweep_note (sweep);
}

/* With an overlay, an entry per sweep. */
static void
sweep_rows (const Chart *c, GArray *rows)
{
  if (c->over == NULL)
    return;
  row_add (rows, ROW_HEADING, 0, g_strdup ("sweep"));
  for (guint w = 0; w < 2; w++)
    {
      char *name, *note;
      sweep_entry (c->d, w, &name, &note);
      row_add (rows, ROW_SWEEP, w, name);
      if (note != NULL)
        row_add (rows, ROW_SWEEP_NOTE, w, note);
    }
}

static GArray *
legend_rows (const Chart *c)
{
  GArray *rows = g_array_new (FALSE, FALSE, sizeof (Row));
  g_array_set_clear_func (rows, row_clear);
  sweep_rows (c, rows);
  guint first = rows->len;
  for (guint i = 0; i < c->n_blocks; i++)
    row_add (rows, ROW_BLOCK, i,
             g_strdup_printf ("%u × %u", c->blocks[i], c->blocks[i]));
  heading (rows, first, "block size");
  guint start = rows->len;
  for (guint s = SPX_SWEEP_CPU + 1; s-- > SPX_SWEEP_MODEL;)
    for (guint m = SPX_SWEEP_STATIC; m < SPX_SWEEP_N_MODES; m++)
      if (c->has_kind[spx_series_kind_row (s, m)])
        row_add (rows, ROW_MODE, spx_series_kind_row (s, m), g_strdup_printf (
          "%s (%s)", mode_label (m), s == SPX_SWEEP_CPU ? "CPU"
                                                        : "IPU model"));
  heading (rows, start, "mode");
  start = rows->len;
  if (c->has_unfit)
    row_add (rows, ROW_UNFIT, 0, g_strdup ("over memory (IPU)"));
  if (c->has_noisy)
    row_add (rows, ROW_NOISY, 0, g_strdup ("noisy (CPU)"));
  heading (rows, start, "marker");
  start = rows->len;
  if (!c->d->throughput)
    row_add (rows, ROW_DENSE, 0, g_strdup ("dense (1×)"));
  else if (c->has_mode[SPX_SWEEP_DENSE])
    row_add (rows, ROW_DENSE, 0, g_strdup (
      c->has_source[SPX_SWEEP_MODEL] && c->has_source[SPX_SWEEP_CPU]
        ? "dense (each source)" : "dense"));
  if (c->current > 0)
    row_add (rows, ROW_CURRENT, 0, g_strdup ("current density"));
  else if (c->current_block > 0)
    row_add (rows, ROW_CURRENT, 0, g_strdup ("current block size"));
  heading (rows, start, "line");
  return rows;
}

/* A marker's look (spx-render-style.h says what each means). */
typedef enum { MARK_PLAIN, MARK_NOISY, MARK_OVER_MEMORY } Mark;

/* Over memory wins: a plan that cannot run says more than its noise. */
static Mark
mark_of (gboolean fits, gboolean noisy)
{
  return !fits ? MARK_OVER_MEMORY : noisy ? MARK_NOISY : MARK_PLAIN;
}

/* The marker of series-style row (kind_row's). */
static void
marker_sized (cairo_t *cr, const Chart *c, guint row, double x, double y,
              SpxRgb colour, Mark look, double r)
{
  cairo_new_path (cr);
  spx_render_marker_path (cr, spx_series_style (row)->marker, x, y, r);
  if (look == MARK_OVER_MEMORY)
    spx_render_look_over_memory (cr, c->style, colour);
  else if (look == MARK_NOISY)
    spx_render_look_noisy (cr, c->style, colour);
  else
    spx_render_look_plain (cr, c->style, colour);
}

static void
marker (cairo_t *cr, const Chart *c, guint row, double x, double y,
        SpxRgb colour, Mark look)
{
  marker_sized (cr, c, row, x, y, colour, look, 4);
}

/* A legend's sample of a line dashed as series-style row. */
static void
swatch_line (cairo_t *cr, double x, double y, SpxRgb colour, double width,
             guint row)
{
  cairo_move_to (cr, x, y);
  cairo_line_to (cr, x + SWATCH, y);
  spx_render_series_dash (cr, row);
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

/* The overlay's: thinner, paler, behind the current sweep. */
#define OVERLAY_WIDTH  1.0
#define OVERLAY_MARKER 3.0

static SpxRgb
overlay_line_colour (const Chart *c)
{
  return spx_rgb_mix (c->style->muted, c->style->panel, 0.3);
}

/* A block's colour, washed towards the panel. */
static SpxRgb
overlay_colour (const Chart *c, SpxRgb colour)
{
  return spx_rgb_mix (colour, c->style->panel, 0.6);
}

/* The lines' colour: a subject's lines join its block sizes, so they
 * cannot take a block's. */
static SpxRgb
line_colour (const Chart *c, guint block_index)
{
  return c->subject ? c->style->muted : block_colour (c, block_index);
}

static void
legend_swatch (cairo_t *cr, const Chart *c, const Row *row, double x,
               double y)
{
  const SpxRenderStyle *s = c->style;
  switch (row->kind)
    {
    case ROW_SWEEP:
      if (row->arg == 0)
        {
          swatch_line (cr, x, y, line_colour (c, 0), 2, 0);
          marker (cr, c, 0, x + SWATCH / 2, y,
                  block_colour (c, 0), MARK_PLAIN);
        }
      else
        {
          swatch_line (cr, x, y, overlay_line_colour (c), OVERLAY_WIDTH, 0);
          marker_sized (cr, c, 0, x + SWATCH / 2, y,
                        overlay_colour (c, block_colour (c, 0)), MARK_PLAIN,
                        OVERLAY_MARKER);
        }
      break;
    case ROW_BLOCK: /* a subject's: only its markers take the colour */
      if (c->subject)
        marker (cr, c, 0, x + SWATCH / 2, y, block_colour (c, row->arg),
                MARK_PLAIN);
      else /* its colour and its dash */
        swatch_line (cr, x, y, block_colour (c, row->arg), 2.5, row->arg);
      break;
    case ROW_MODE: /* a subject's lines are dashed by it too */
      if (c->subject)
        swatch_line (cr, x, y, line_colour (c, 0), 1.5, row->arg);
      marker (cr, c, row->arg, x + SWATCH / 2, y, s->foreground, MARK_PLAIN);
      break;
    case ROW_UNFIT:
      marker (cr, c, 0, x + SWATCH / 2, y, s->muted, MARK_OVER_MEMORY);
      break;
    case ROW_NOISY:
      marker (cr, c, 0, x + SWATCH / 2, y, s->foreground, MARK_NOISY);
      break;
    case ROW_DENSE: /* throughput: dense's lines dashed by their source */
      swatch_line (cr, x, y, s->foreground, 1.5, dense_row (
                     c->d->throughput && !c->has_source[SPX_SWEEP_CPU]
                       ? SPX_SWEEP_MODEL : SPX_SWEEP_CPU));
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
    case ROW_SWEEP_NOTE:
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
      gboolean note = row->kind == ROW_SWEEP_NOTE;
      SpxTextOpts t = { .size = TICK_TEXT, .ay = 0.5, .bold = heading,
                        .colour = c->style->muted,
                        .use_colour = heading || note };
      legend_swatch (cr, c, row, c->legend_x, y + c->row_h / 2);
      spx_render_text (cr, c->style, c->legend_x + (heading ? 0 : SWATCH + 6),
                       y + c->row_h / 2, &t, row->text);
      y += c->row_h;
    }
}

/* Layout */

void
_spx_speedup_chart_init (Chart *c, cairo_t *cr, const SpxRenderSpeedupData *d,
            const SpxRenderStyle *style, double width)
{
  memset (c, 0, sizeof *c);
  c->d = d;
  c->style = style;
  c->points = d->sweep->points;
  c->subject = d->sweep->settings.subject != NULL;
  if (has_overlay (d))
    {
      c->over = d->overlay->points;
      c->over_subject = d->overlay->settings.subject != NULL;
    }
  /* block sizes when every sweep drawn is a subject's; a sweep of
   * generated masks has no one density per block size */
  c->ax.by_block = c->subject && (c->over == NULL || c->over_subject);
  c->x_rows = 1;
  if (c->ax.by_block)
    {
      block_columns (c);
      c->x_rows = c->over != NULL ? 3 : 2;
      for (guint i = 0; i < c->ax.n_blocks; i++)
        if (c->ax.blocks[i] == d->current_block)
          c->current_block = d->current_block;
    }
  else
    c->current = current_density (d);
  survey (c);
  _spx_speedup_fit_titles (cr, c, width);
}

void
_spx_speedup_chart_clear (Chart *c)
{
  g_clear_pointer (&c->subtitle, g_ptr_array_unref);
  g_clear_pointer (&c->title, g_free);
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
  double th = _spx_speedup_text_h (cr, c->style, TICK_TEXT);
  c->row_h = th * 1.2;
  c->ax.y = PAD + c->title_h + 2 +
            c->subtitle->len * th + 12;
  c->ax.h = MAX (height - PAD - (c->x_rows + 1) * th - 10 - c->ax.y, 10);
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
  _spx_speedup_chart_init (&c, cr, data, style, width);
  g_autoptr (GArray) rows = legend_rows (&c);
  gboolean ok = layout (cr, &c, width, height, rows);
  *axes = c.ax;
  _spx_speedup_chart_clear (&c);
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

/* The densities plotted (both sweeps'), one of each, or powers of two
 * when there are too many to label or too few to read a log scale
 * from; ascending. */
static GArray *
density_ticks (const Chart *c)
{
  GArray *ticks = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint w = 0; w < n_sweeps (c); w++)
    for (guint i = 0; i < sweep_points (c, w)->len; i++)
      {
        const SpxSweepPoint *p = &g_array_index (sweep_points (c, w),
                                                 SpxSweepPoint, i);
        double v, d = p->density;
        gboolean seen = FALSE;
        for (guint j = 0; j < ticks->len && !seen; j++)
          seen = fabs (g_array_index (ticks, double, j) / d - 1) < 1e-9;
        if (!seen && point_value (c, p, &v))
          g_array_append_val (ticks, d);
      }
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

/* A tick of the x axis: where, and its label's rows (the block-size
 * axis: the size, the sweep's block density, the overlay's; NULL for
 * none). */
typedef struct {
  double   x;
  char    *label[3];
  gboolean shown;   /* labelled: apart from its neighbours */
} Tick;

static void
tick_clear (gpointer data)
{
  Tick *t = data;
  for (guint i = 0; i < G_N_ELEMENTS (t->label); i++)
    g_free (t->label[i]);
}

static GArray *
ticks_new (void)
{
  GArray *ticks = g_array_new (FALSE, TRUE, sizeof (Tick));
  g_array_set_clear_func (ticks, tick_clear);
  return ticks;
}

static GArray *
density_axis_ticks (const Chart *c)
{
  g_autoptr (GArray) values = density_ticks (c);
  g_autoptr (GPtrArray) labels = density_labels ((double *) values->data,
                                                 values->len);
  GArray *ticks = ticks_new ();
  for (guint i = 0; i < values->len; i++)
    {
      Tick t = { .x = spx_speedup_axes_x (&c->ax,
                                          g_array_index (values, double, i)),
                 .label = { g_strdup (labels->pdata[i]) } };
      g_array_append_val (ticks, t);
    }
  return ticks;
}

/* A sweep's density of non-zero blocks at a block size: its CPU
 * points' (what was measured, should the sources' shapes differ), else
 * its model's; 0: no point there. */
static double
density_at_block (const GArray *pts, guint block)
{
  double model = 0;
  for (guint i = 0; i < pts->len; i++)
    {
      const SpxSweepPoint *p = &g_array_index (pts, SpxSweepPoint, i);
      if (p->block != block || !(p->density > 0) || !isfinite (p->density))
        continue;
      if (p->source == SPX_SWEEP_CPU)
        return p->density;
      model = p->density;
    }
  return model;
}

/* The block sizes, and under each the block density of each sweep, all
 * of those in one notation. */
static GArray *
block_axis_ticks (const Chart *c)
{
  const SpxSpeedupAxes *a = &c->ax;
  guint n = a->n_blocks, rows = n_sweeps (c);
  g_autofree double *d = g_new0 (double, 2 * n + 1);
  g_autofree double *known = g_new0 (double, 2 * n + 1);
  guint n_known = 0;
  for (guint w = 0; w < rows; w++)
    for (guint i = 0; i < n; i++)
      if ((d[w * n + i] = density_at_block (sweep_points (c, w),
                                            a->blocks[i])) > 0)
        known[n_known++] = d[w * n + i];
  g_autoptr (GPtrArray) labels = density_labels (known, n_known);
  GArray *ticks = ticks_new ();
  guint k = 0;
  for (guint i = 0; i < n; i++)
    {
      Tick t = { .x = spx_speedup_axes_x (a, a->blocks[i]) };
      t.label[0] = g_strdup_printf ("%u", a->blocks[i]);
      g_array_append_val (ticks, t);
    }
  for (guint w = 0; w < rows; w++)
    for (guint i = 0; i < n; i++)
      if (d[w * n + i] > 0)
        g_array_index (ticks, Tick, i).label[1 + w] =
          g_strdup (labels->pdata[k++]);
  return ticks;
}

/* The ticks, each labelled unless it would touch the last one labelled
 * (labels that read alike are of densities too close to be apart). */
static GArray *
x_axis_ticks (cairo_t *cr, const Chart *c)
{
  GArray *ticks = c->ax.by_block ? block_axis_ticks (c)
                                 : density_axis_ticks (c);
  double last_right = -INFINITY;
  for (guint i = 0; i < ticks->len; i++)
    {
      Tick *t = &g_array_index (ticks, Tick, i);
      double w = 0;
      for (guint r = 0; r < G_N_ELEMENTS (t->label); r++)
        if (t->label[r] != NULL)
          w = MAX (w, spx_render_text_width (cr, c->style, TICK_TEXT,
                                             t->label[r], NULL));
      t->shown = isfinite (t->x) && t->x - w / 2 >= last_right + 5;
      if (t->shown)
        last_right = t->x + w / 2;
    }
  return ticks;
}

/* The longest title that fits under the plot. */
static const char *
x_title (cairo_t *cr, const Chart *c)
{
  static const char *const by_density[] = {
    "density of non-zero blocks (log scale)", "density of non-zero blocks",
    "block density", NULL,
  };
  static const char *const by_block[] = {
    "block size, and its density of non-zero blocks (fainter: the "
    "overlay's)", "block size, and its density of non-zero blocks",
    "block size, and its block density", "block size", NULL,
  };
  const char *const *titles = !c->ax.by_block ? by_density
                              : c->over != NULL ? by_block : by_block + 1;
  guint i = 0;
  while (titles[i + 1] != NULL &&
         spx_render_text_width (cr, c->style, TICK_TEXT, titles[i], NULL) >
           c->ax.w + 2 * PAD)
    i++;
  return titles[i];
}

static void
draw_x_axis (cairo_t *cr, const Chart *c)
{
  const SpxSpeedupAxes *a = &c->ax;
  g_autoptr (GArray) ticks = x_axis_ticks (cr, c);
  double th = _spx_speedup_text_h (cr, c->style, TICK_TEXT);
  cairo_set_line_width (cr, 1);
  for (guint i = 0; i < ticks->len; i++)
    {
      const Tick *t = &g_array_index (ticks, Tick, i);
      double x = round (t->x) + 0.5;
      cairo_move_to (cr, x, a->y);
      cairo_line_to (cr, x, a->y + a->h);
      spx_render_set_rgb (cr, grid_colour (c));
      cairo_stroke (cr);
      for (guint r = 0; t->shown && r < c->x_rows; r++)
        {
          /* the block densities muted, the overlay's fainter still */
          SpxTextOpts o = { .size = TICK_TEXT, .ax = 0.5, .use_colour = r > 0,
                            .colour = r == 1 ? c->style->muted
                                             : overlay_line_colour (c) };
          if (t->label[r] != NULL)
            spx_render_text (cr, c->style, x, a->y + a->h + 4 + r * th, &o,
                             t->label[r]);
        }
    }
  SpxTextOpts t = { .size = TICK_TEXT, .ax = 0.5, .ay = 1 };
  const char *title = x_title (cr, c);
  spx_render_text (cr, c->style, a->x + a->w / 2,
                   a->y + a->h + 4 + (c->x_rows + 1) * th + 4, &t, title);
}

GStrv
spx_render_speedup_x_labels (cairo_t *cr, double width, double height,
                             const SpxRenderSpeedupData *data,
                             const SpxRenderStyle *style, double **xs)
{
  if (xs != NULL)
    *xs = NULL;
  if (data == NULL || data->sweep == NULL || cr == NULL || style == NULL)
    return NULL;
  Chart c;
  _spx_speedup_chart_init (&c, cr, data, style, width);
  g_autoptr (GArray) rows = legend_rows (&c);
  GStrv labels = NULL;
  if (layout (cr, &c, width, height, rows))
    {
      g_autoptr (GArray) ticks = x_axis_ticks (cr, &c);
      GStrvBuilder *b = g_strv_builder_new ();
      GArray *at = g_array_new (FALSE, FALSE, sizeof (double));
      for (guint i = 0; i < ticks->len; i++)
        {
          const Tick *t = &g_array_index (ticks, Tick, i);
          if (!t->shown)
            continue;
          GString *text = g_string_new (t->label[0]);
          for (guint r = 1; r < c.x_rows; r++)
            g_string_append_printf (text, "\n%s",
                                    t->label[r] ? t->label[r] : "");
          g_strv_builder_add (b, text->str);
          g_string_free (text, TRUE);
          g_array_append_val (at, t->x);
        }
      labels = g_strv_builder_end (b);
      g_strv_builder_unref (b);
      double *got = (double *) (void *) g_array_free (at, FALSE);
      if (xs != NULL)
        *xs = got;
      else
        g_free (got);
    }
  _spx_speedup_chart_clear (&c);
  return labels;
}

/* Series */

typedef struct {
  double   x, v;
  double   lo, hi;  /* the value at the quartiles: v, v without a spread */
  guint    block;
  gboolean fits, noisy;
  guint    index;   /* in the sweep's points (merged: the first) */
} Xy;

static int
compare_xy (gconstpointer a, gconstpointer b)
{
  const Xy *p = a, *q = b;
  int by_x = compare_double (&p->x, &q->x);
  return by_x != 0 ? by_x : (p->block > q->block) - (p->block < q->block);
}

/* Average the points at one density into one. */
static void
merge_same_x (GArray *xy)
{
  guint out = 0;
  for (guint i = 0; i < xy->len; out++)
    {
      Xy m = g_array_index (xy, Xy, i);
      guint j = i + 1;
      for (; j < xy->len && g_array_index (xy, Xy, j).x == m.x; j++)
        {
          const Xy *e = &g_array_index (xy, Xy, j);
          m.v += e->v;
          m.lo += e->lo;
          m.hi += e->hi;
          m.fits = m.fits && e->fits;
          m.noisy = m.noisy || e->noisy;
        }
      m.v /= j - i;
      m.lo /= j - i;
      m.hi /= j - i;
      g_array_index (xy, Xy, out) = m;
      i = j;
    }
  g_array_set_size (xy, out);
}

/* The points of one (source, block, mode) of pts (a sweep's), along the
 * x axis; block 0: any, by block at one x. merge: the values at one x
 * averaged (dense's reference). */
static GArray *
series (const Chart *c, const GArray *pts, SpxSweepSource source,
        guint block, SpxSweepMode mode, gboolean merge)
{
  GArray *xy = g_array_new (FALSE, FALSE, sizeof (Xy));
  for (guint i = 0; i < pts->len; i++)
    {
      const SpxSweepPoint *p = &g_array_index (pts, SpxSweepPoint, i);
      Xy e = { .x = point_x (c, p), .block = p->block, .fits = p->fits,
               .noisy = p->noise != 0, .index = i };
      if (p->source != source || p->mode != mode ||
          (block != 0 && p->block != block) || !point_value (c, p, &e.v))
        continue;
      point_spread (c, p, e.v, &e.lo, &e.hi);
      g_array_append_val (xy, e);
    }
  g_array_sort (xy, compare_xy);
  if (merge)
    merge_same_x (xy);
  return xy;
}

static void
polyline (cairo_t *cr, const Chart *c, const GArray *xy, SpxRgb colour,
          double width, guint dash_row)
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
  spx_render_series_dash (cr, dash_row);
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
      g_autoptr (GArray) xy = series (c, c->points, s, 0, SPX_SWEEP_DENSE,
                                      TRUE);
      polyline (cr, c, xy, c->style->foreground, 1.5, dense_row (s));
    }
}

static void
draw_current (cairo_t *cr, const Chart *c)
{
  if (!(c->current > 0) && c->current_block == 0)
    return;
  /* on the pixel column of its grid line, when it has one */
  double x = round (spx_speedup_axes_x (&c->ax, c->current > 0
                                        ? c->current
                                        : (double) c->current_block)) + 0.5;
  cairo_move_to (cr, x, c->ax.y);
  cairo_line_to (cr, x, c->ax.y + c->ax.h);
  cairo_set_dash (cr, current_dash, 2, 0);
  cairo_set_line_width (cr, 1.5);
  /* not the highlight colour: that orange is also a series colour */
  spx_render_set_rgb (cr, c->style->muted);
  cairo_stroke (cr);
  cairo_set_dash (cr, NULL, 0, 0);
}

/* The middle half of the timed runs. On pixel centres: a thin bar stays
 * solid rather than two half-tone columns. */
static void
error_bar (cairo_t *cr, const Chart *c, const Xy *e, SpxRgb colour)
{
  if (!(e->hi > e->lo * (1 + 1e-9)))
    return;
  double x = floor (spx_speedup_axes_x (&c->ax, e->x)) + 0.5;
  double y_lo = floor (spx_speedup_axes_y (&c->ax, e->lo)) + 0.5;
  double y_hi = floor (spx_speedup_axes_y (&c->ax, e->hi)) + 0.5;
  cairo_new_path (cr);
  cairo_move_to (cr, x, y_lo);
  cairo_line_to (cr, x, y_hi);
  cairo_move_to (cr, x - CAP, y_lo);
  cairo_line_to (cr, x + CAP, y_lo);
  cairo_move_to (cr, x - CAP, y_hi);
  cairo_line_to (cr, x + CAP, y_hi);
  cairo_set_dash (cr, NULL, 0, 0);
  cairo_set_line_width (cr, 1.25);
  spx_render_set_rgb (cr, colour);
  cairo_stroke (cr);
}

typedef enum {
  LAYER_LINES,
  LAYER_BARS,
  LAYER_MARKERS,
} Layer;

static void
draw_points (cairo_t *cr, const Chart *c, const GArray *xy, guint row,
             SpxRgb colour, Layer layer)
{
  for (guint i = 0; i < xy->len; i++)
    {
      const Xy *e = &g_array_index (xy, Xy, i);
      if (layer == LAYER_BARS)
        error_bar (cr, c, e, colour);
      else
        marker (cr, c, row, spx_speedup_axes_x (&c->ax, e->x),
                spx_speedup_axes_y (&c->ax, e->v), colour,
                mark_of (e->fits, e->noisy));
    }
}

/* A subject's: one line per (source, mode) through its block sizes, so
 * the best block size reads as the line's peak. */
static void
draw_subject_lines (cairo_t *cr, const Chart *c)
{
  for (guint s = SPX_SWEEP_MODEL; s <= SPX_SWEEP_CPU; s++)
    for (guint m = SPX_SWEEP_STATIC; m < SPX_SWEEP_N_MODES; m++)
      {
        g_autoptr (GArray) xy = series (c, c->points, s, 0, m, FALSE);
        polyline (cr, c, xy, line_colour (c, 0), 1.5, spx_series_kind_row (s, m));
      }
}

/* The overlay's lines: in throughput dense's own too; a subject's
 * through its block sizes, else one per block size. */
static void
draw_overlay_lines (cairo_t *cr, const Chart *c, SpxSweepSource s)
{
  SpxRgb colour = overlay_line_colour (c);
  if (c->d->throughput)
    {
      g_autoptr (GArray) xy = series (c, c->over, s, 0, SPX_SWEEP_DENSE,
                                      TRUE);
      polyline (cr, c, xy, colour, OVERLAY_WIDTH, dense_row (s));
    }
  for (guint m = SPX_SWEEP_STATIC; m < SPX_SWEEP_N_MODES; m++)
    for (guint b = 0; b < (c->over_subject ? 1 : c->n_blocks); b++)
      {
        g_autoptr (GArray) xy = series (c, c->over, s,
                                        c->over_subject ? 0 : c->blocks[b],
                                        m, !c->over_subject);
        polyline (cr, c, xy, colour, OVERLAY_WIDTH,
                  c->over_subject ? spx_series_kind_row (s, m) : b);
      }
}

/* The earlier sweep, under the current one: thin grey lines and small
 * washed-out markers, no error bars. */
static void
draw_overlay (cairo_t *cr, const Chart *c)
{
  if (c->over == NULL)
    return;
  for (guint s = SPX_SWEEP_MODEL; s <= SPX_SWEEP_CPU; s++)
    draw_overlay_lines (cr, c, s);
  for (guint s = SPX_SWEEP_MODEL; s <= SPX_SWEEP_CPU; s++)
    for (guint b = 0; b < c->n_blocks; b++)
      for (guint m = SPX_SWEEP_STATIC; m < SPX_SWEEP_N_MODES; m++)
        {
          g_autoptr (GArray) xy = series (c, c->over, s, c->blocks[b], m,
                                          TRUE);
          for (guint i = 0; i < xy->len; i++)
            {
              const Xy *e = &g_array_index (xy, Xy, i);
              marker_sized (cr, c, spx_series_kind_row (s, m),
                            spx_speedup_axes_x (&c->ax, e->x),
                            spx_speedup_axes_y (&c->ax, e->v),
                            overlay_colour (c, block_colour (c, b)),
                            mark_of (e->fits, e->noisy), OVERLAY_MARKER);
            }
        }
}

/* Every line, then every bar, then every marker, so that none hides
 * another's marker. */
static void
draw_series (cairo_t *cr, const Chart *c, Layer layer)
{
  if (layer == LAYER_LINES && c->subject)
    {
      draw_subject_lines (cr, c);
      return;
    }
  for (guint s = SPX_SWEEP_MODEL; s <= SPX_SWEEP_CPU; s++)
    for (guint b = 0; b < c->n_blocks; b++)
      for (guint m = SPX_SWEEP_STATIC; m < SPX_SWEEP_N_MODES; m++)
        {
          g_autoptr (GArray) xy = series (c, c->points, s, c->blocks[b], m,
                                          TRUE);
          if (layer == LAYER_LINES) /* dashed by block, as coloured */
            polyline (cr, c, xy, line_colour (c, b), 2, b);
          else
            draw_points (cr, c, xy, spx_series_kind_row (s, m), block_colour (c, b),
                         layer);
        }
}

/* Drawn, then veiled: the points are of another subject, machine or
 * problem than the one shown elsewhere. */
static void
draw_stale (cairo_t *cr, const Chart *c)
{
  const SpxSpeedupAxes *a = &c->ax;
  cairo_save (cr);
  cairo_rectangle (cr, a->x, a->y, a->w, a->h);
  cairo_clip_preserve (cr);
  spx_render_set_rgba (cr, c->style->panel, 0.6);
  cairo_fill (cr);
  const char *text = "Out of date: Run Sweep again";
  const double size = 1.1;
  double h, w = _spx_speedup_title_width (cr, c, size, text);
  spx_render_text_width (cr, c->style, size, text, &h);
  /* on a plain card: lines through the words would cross them out */
  double cx = a->x + a->w / 2, cy = a->y + a->h / 2;
  cairo_rectangle (cr, cx - w / 2 - 10, cy - h / 2 - 6, w + 20, h + 12);
  spx_render_set_rgb (cr, c->style->panel);
  cairo_fill_preserve (cr);
  cairo_set_line_width (cr, 1);
  spx_render_set_rgb (cr, c->style->muted);
  cairo_stroke (cr);
  SpxTextOpts t = { .size = size, .bold = TRUE, .ax = 0.5, .ay = 0.5 };
  spx_render_text (cr, c->style, cx, cy, &t, text);
  cairo_restore (cr);
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
  draw_overlay (cr, c);
  for (Layer l = LAYER_LINES; l <= LAYER_MARKERS; l++)
    draw_series (cr, c, l);
  cairo_restore (cr);
  cairo_rectangle (cr, a->x + 0.5, a->y + 0.5, a->w - 1, a->h - 1);
  cairo_set_line_width (cr, 1);
  spx_render_set_rgb (cr, c->style->muted);
  cairo_stroke (cr);
  if (c->d->stale)
    draw_stale (cr, c);
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
  _spx_speedup_chart_init (&c, cr, d, style, width);
  g_autoptr (GArray) rows = legend_rows (&c);
  cairo_save (cr);
  _spx_speedup_draw_titles (cr, &c, width);
  if (layout (cr, &c, width, height, rows))
    {
      draw_plot (cr, &c);
      draw_legend (cr, &c, rows, height - PAD);
    }
  else
    spx_render_placeholder (cr, style, width, height,
                            "No points yet: run a sweep");
  cairo_restore (cr);
  _spx_speedup_chart_clear (&c);
}

/* For a layout without a picture: the text sizes it depends on want a
 * cairo_t (which keeps its surface alive). */
static cairo_t *
scratch_cr (void)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32,
                                                         1, 1);
  cairo_t *cr = cairo_create (surface);
  cairo_surface_destroy (surface);
  return cr;
}

GStrv
spx_render_speedup_sweep_labels (const SpxRenderSpeedupData *data)
{
  GStrvBuilder *b = g_strv_builder_new ();
  if (data != NULL && data->sweep != NULL)
    {
      /* the rows the legend draws */
      cairo_t *cr = scratch_cr ();
      SpxRenderStyle style;
      spx_render_style_init (&style, SPX_THEME_LIGHT);
      Chart c;
      _spx_speedup_chart_init (&c, cr, data, &style, 800);
      g_autoptr (GArray) rows = legend_rows (&c);
      for (guint i = 0; i < rows->len; i++)
        {
          const Row *r = &g_array_index (rows, Row, i);
          const Row *next = i + 1 < rows->len ? r + 1 : NULL;
          if (r->kind != ROW_SWEEP)
            continue;
          g_autofree char *label = next == NULL ||
                                   next->kind != ROW_SWEEP_NOTE
            ? g_strdup (r->text)
            : g_strdup_printf ("%s (%s)", r->text, next->text);
          g_strv_builder_add (b, label);
        }
      _spx_speedup_chart_clear (&c);
      cairo_destroy (cr);
    }
  GStrv labels = g_strv_builder_end (b);
  g_strv_builder_unref (b);
  return labels;
}

/* Hover */

#define HIT_RADIUS 8.0

/* The nearest marker to (x, y) of one series, if nearer than *best. */
static void
nearest_in (const Chart *c, const GArray *xy, double x, double y,
            double *best, guint *point)
{
  const SpxSpeedupAxes *a = &c->ax;
  for (guint i = 0; i < xy->len; i++)
    {
      const Xy *e = &g_array_index (xy, Xy, i);
      double mx = spx_speedup_axes_x (a, e->x);
      double my = spx_speedup_axes_y (a, e->v);
      double dist = hypot (mx - x, my - y);
      /* markers outside the plot are clipped away */
      gboolean inside = mx >= a->x && mx <= a->x + a->w && my >= a->y &&
                        my <= a->y + a->h;
      if (inside && dist < *best)
        {
          *best = dist;
          *point = e->index;
        }
    }
}

gboolean
spx_render_speedup_hit (double width, double height,
                        const SpxRenderSpeedupData *d,
                        const SpxRenderStyle *style, double x, double y,
                        guint *point)
{
  if (d == NULL || d->sweep == NULL || style == NULL)
    return FALSE;
  cairo_t *cr = scratch_cr ();
  Chart c;
  _spx_speedup_chart_init (&c, cr, d, style, width);
  g_autoptr (GArray) rows = legend_rows (&c);
  double best = HIT_RADIUS;
  guint found = G_MAXUINT;
  if (layout (cr, &c, width, height, rows))
    for (guint s = SPX_SWEEP_MODEL; s <= SPX_SWEEP_CPU; s++)
      for (guint b = 0; b < c.n_blocks; b++)
        for (guint m = SPX_SWEEP_STATIC; m < SPX_SWEEP_N_MODES; m++)
          {
            g_autoptr (GArray) xy = series (&c, c.points, s, c.blocks[b], m,
                                            TRUE);
            nearest_in (&c, xy, x, y, &best, &found);
          }
  _spx_speedup_chart_clear (&c);
  cairo_destroy (cr);
  if (found == G_MAXUINT)
    return FALSE;
  if (point != NULL)
    *point = found;
  return TRUE;
}

/* Milliseconds: "0.0381"; from 100 whole, thousands grouped. */
static char *
format_ms (double ms)
{
  if (ms >= 100 && ms < 1e18)
    return spx_format_count ((guint64) llround (ms));
  return g_strdup_printf ("%.3g", ms);
}

/* "1/16 (6.25%)", or only the percentage when it is no such fraction. */
static char *
describe_density (double d)
{
  g_autofree char *percent = format_percent (MIN (d, 1), 3);
  if (whole_inverse (d) < 2)
    return g_steal_pointer (&percent);
  g_autofree char *f = format_fraction (d);
  return g_strdup_printf ("%s (%s)", f, percent);
}

/* Dense of the point's source, block and density, or NULL. */
static const SpxSweepPoint *
dense_of (const SpxSweep *sweep, const SpxSweepPoint *p)
{
  for (guint i = 0; i < sweep->points->len; i++)
    {
      const SpxSweepPoint *q = &g_array_index (sweep->points, SpxSweepPoint,
                                               i);
      if (q->mode == SPX_SWEEP_DENSE && q->source == p->source &&
          q->block == p->block &&
          fabs (q->density - p->density) <= 1e-9 * p->density)
        return q;
    }
  return NULL;
}

/* "0.031 ms at n 1,024" */
static char *
time_at_n (const SpxSweepPoint *p)
{
  g_autofree char *ms = format_ms (p->ms);
  g_autofree char *n = spx_format_count (p->n);
  return g_strdup_printf ("%s ms at n %s", ms, n);
}

static void
append_times (GString *out, const SpxSweep *sweep, const SpxSweepPoint *p)
{
  g_autofree char *t = time_at_n (p);
  g_string_append_printf (out, "\n%s %s", mode_label (p->mode),
                          t);
  const SpxSweepPoint *dense = dense_of (sweep, p);
  if (dense != NULL && dense != p)
    {
      g_autofree char *dt = time_at_n (dense);
      g_string_append_printf (out, "; dense %s", dt);
    }
}

/* The quartiles of a CPU point's timed runs; a model has no spread. */
static void
append_spread (GString *out, const SpxSweepPoint *p)
{
  if (p->source == SPX_SWEEP_MODEL)
    g_string_append (out, "\nno spread: a model");
  else if (p->ms_q1 > 0 && p->ms_q3 >= p->ms_q1)
    {
      g_autofree char *q1 = format_ms (p->ms_q1);
      g_autofree char *q3 = format_ms (p->ms_q3);
      g_string_append_printf (out, "\nquartiles %s–%s ms", q1, q3);
      if (p->speedup_q1 > 0 && p->speedup_q3 >= p->speedup_q1)
        g_string_append_printf (out, "; ratio %.2f–%.2f×", p->speedup_q1,
                                p->speedup_q3);
    }
  else
    g_string_append (out, "\nno quartiles measured");
}

static void
append_flags (GString *out, const SpxSweepPoint *p)
{
  if (p->source == SPX_SWEEP_MODEL)
    g_string_append (out, p->fits ? "\nfits every tile's memory"
                                  : "\nover memory: the plan does not fit");
  if (p->noise != 0)
    {
      g_autofree char *why = spx_noise_to_string (p->noise);
      g_auto (GStrv) parts = g_strsplit (why, ",", -1);
      g_autofree char *list = g_strjoinv (", ", parts);
      g_string_append_printf (out, "\nnoisy (%s): not a result", list);
    }
}

char *
spx_render_speedup_describe (const SpxRenderSpeedupData *d, guint point)
{
  if (d == NULL || d->sweep == NULL || point >= d->sweep->points->len)
    return NULL;
  const SpxSweepPoint *p = &g_array_index (d->sweep->points, SpxSweepPoint,
                                           point);
  GString *out = g_string_new (NULL);
  if (p->source == SPX_SWEEP_CPU)
    g_string_append_printf (out, "CPU measured (%s)",
                            _spx_speedup_cpu_name (p));
  else
    g_string_append_printf (out, "IPU model (%s)", p->machine);
  g_string_append_printf (out, " · %u × %u blocks · %s", p->block, p->block,
                          mode_label (p->mode));
  g_autofree char *density = describe_density (p->density);
  g_string_append_printf (out, "\ndensity %s", density);
  const char *unit = p->source == SPX_SWEEP_CPU ? "GFLOP/s" : "TFLOP/s";
  g_autofree char *over = p->dense[0] != '\0'
    ? g_strdup_printf ("dense (%s)", p->dense) : g_strdup ("dense");
  g_string_append_printf (out, "\n%.2f× over %s · %.3g non-zero %s",
                          p->speedup, over, p->nz_throughput, unit);
  if (p->kernel[0] != '\0')
    g_string_append_printf (out, "\nkernels %s (%s)", p->kernel,
                            spx_kernel_choice_to_string (p->kernel_choice));
  append_times (out, d->sweep, p);
  append_spread (out, p);
  append_flags (out, p);
  return g_string_free (out, FALSE);
}

/* ---- its row in the table of views ------------------------------- */

static void
speedup_fill (const SpxRenderViewState *st, gpointer data)
{
  SpxRenderSpeedupData *d = data;
  d->sweep = st->sweep;
  d->throughput = st->metric == 1; /* its metrics' second */
  d->current_density = st->density;
  /* the block size the other views show */
  d->current_block = st->mask != NULL ? st->mask->block : 0;
  d->stale = st->stale;
  d->running = st->running;
  d->overlay = st->overlay;
  d->overlay_label = st->overlay_label;
}

static gboolean
speedup_hit (double width, double height, gconstpointer data,
             const SpxRenderStyle *style, double x, double y,
             SpxRenderViewHit *hit)
{
  guint point = 0;
  if (!spx_render_speedup_hit (width, height, data, style, x, y, &point))
    return FALSE;
  hit->point = (gint) point;
  return TRUE;
}

/* A point of the chart: what it is and how it was measured. */
static char *
speedup_describe (double width, double height, gconstpointer data,
                  const SpxRenderStyle *style, double x, double y)
{
  SpxRenderViewHit hit;
  if (!speedup_hit (width, height, data, style, x, y, &hit))
    return NULL;
  return spx_render_speedup_describe (data, (guint) hit.point);
}

const SpxRenderView spx_render_view_speedup = {
  .name = "speedup", .title = "Speedup",
  .summary = "sparse over dense, measured and modelled",
  .metrics = (const char *const[]) { "speedup", "throughput", NULL },
  .needs = SPX_RENDER_VIEW_NEEDS_SWEEP,
  .data_size = sizeof (SpxRenderSpeedupData), .fill = speedup_fill,
  .draw = spx_render_speedup, .hit = speedup_hit,
  .describe = speedup_describe,
};
