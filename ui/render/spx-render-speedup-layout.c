/* spx-render-speedup-layout.c: where the speedup chart's parts go: the
 * axes' ranges, scales and ticks, the margins, and the axes drawn */
#include "spx-render-speedup-private.h"

#include <math.h>
#include <string.h>

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
  for (guint w = 0; w < _spx_speedup_n_sweeps (c); w++)
    {
      const SpxSweepOptions *o = &_spx_speedup_sweep_of (c, w)->settings;
      const GArray *pts = _spx_speedup_sweep_points (c, w);
      for (guint b = 0; b < o->n_blocks && b < SPX_SWEEP_MAX_VALUES; b++)
        _spx_speedup_add_block (a->blocks, &a->n_blocks, o->blocks[b]);
      for (guint i = 0; i < pts->len; i++)
        _spx_speedup_add_block (a->blocks, &a->n_blocks,
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
  for (guint w = 0; w < _spx_speedup_n_sweeps (c); w++)
    {
      const GArray *pts = _spx_speedup_sweep_points (c, w);
      for (guint i = 0; i < pts->len; i++)
        {
          const SpxSweepPoint *p = &g_array_index (pts, SpxSweepPoint, i);
          double v;
          if (!_spx_speedup_point_value (c, p, &v))
            continue;
          *xlo = MIN (*xlo, p->density);
          *xhi = MAX (*xhi, p->density);
          if (!_spx_speedup_point_on_y_range (c, p))
            continue;
          double lo = v, hi = v;
          if (p->mode != SPX_SWEEP_DENSE && w == 0) /* its bar, uncut */
            _spx_speedup_point_spread (c, p, v, &lo, &hi);
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
double
_spx_speedup_whole_inverse (double d)
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
  double n = _spx_speedup_whole_inverse (d);
  return n >= 1 && n < 1e15 && ((guint64) n & ((guint64) n - 1)) == 0;
}

/* "1/16"; every block: "1". */
char *
_spx_speedup_format_fraction (double d)
{
  double n = _spx_speedup_whole_inverse (d);
  return n == 1 ? g_strdup ("1") : g_strdup_printf ("1/%.0f", n);
}

/* A percentage to digits significant digits: less than every block is
 * never rounded up to "100%". */
char *
_spx_speedup_format_percent (double d, int digits)
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
    g_ptr_array_add (labels,
                     fractions ? _spx_speedup_format_fraction (d[i])
                               : _spx_speedup_format_percent (d[i], 3));
  return labels;
}

double
_spx_speedup_text_h (cairo_t *cr, const SpxRenderStyle *style, double size)
{
  double h;
  spx_render_text_width (cr, style, size, "Ag", &h);
  return h;
}

/* Layout */

static gboolean
has_overlay (const SpxRenderSpeedupData *d)
{
  return d->overlay != NULL && d->overlay != d->sweep;
}

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
  _spx_speedup_survey (c);
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
gboolean
_spx_speedup_layout (cairo_t *cr, Chart *c, double width, double height,
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
  c->legend_w = _spx_speedup_legend_width (cr, c, rows);
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
  g_autoptr (GArray) rows = _spx_speedup_legend_rows (&c);
  gboolean ok = _spx_speedup_layout (cr, &c, width, height, rows);
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

void
_spx_speedup_draw_y_axis (cairo_t *cr, const Chart *c)
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

int
_spx_speedup_compare_double (gconstpointer a, gconstpointer b)
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
  for (guint w = 0; w < _spx_speedup_n_sweeps (c); w++)
    for (guint i = 0; i < _spx_speedup_sweep_points (c, w)->len; i++)
      {
        const SpxSweepPoint *p =
          &g_array_index (_spx_speedup_sweep_points (c, w), SpxSweepPoint, i);
        double v, d = p->density;
        gboolean seen = FALSE;
        for (guint j = 0; j < ticks->len && !seen; j++)
          seen = fabs (g_array_index (ticks, double, j) / d - 1) < 1e-9;
        if (!seen && _spx_speedup_point_value (c, p, &v))
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
  g_array_sort (ticks, _spx_speedup_compare_double);
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
  guint n = a->n_blocks, rows = _spx_speedup_n_sweeps (c);
  g_autofree double *d = g_new0 (double, 2 * n + 1);
  g_autofree double *known = g_new0 (double, 2 * n + 1);
  guint n_known = 0;
  for (guint w = 0; w < rows; w++)
    for (guint i = 0; i < n; i++)
      if ((d[w * n + i] = density_at_block (_spx_speedup_sweep_points (c, w),
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

void
_spx_speedup_draw_x_axis (cairo_t *cr, const Chart *c)
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
          SpxTextOpts o = {
            .size = TICK_TEXT, .ax = 0.5, .use_colour = r > 0,
            .colour = r == 1 ? c->style->muted
                             : _spx_speedup_overlay_line_colour (c) };
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
  g_autoptr (GArray) rows = _spx_speedup_legend_rows (&c);
  GStrv labels = NULL;
  if (_spx_speedup_layout (cr, &c, width, height, rows))
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
