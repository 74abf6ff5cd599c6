/* spx-render-speedup-hover.c: the speedup chart's hover: the marker
 * under the pointer, and what to say of its point */
#include "spx-render-speedup-private.h"
#include "spx-util.h"

#include <math.h>

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
  cairo_t *cr = _spx_speedup_scratch_cr ();
  Chart c;
  _spx_speedup_chart_init (&c, cr, d, style, width);
  g_autoptr (GArray) rows = _spx_speedup_legend_rows (&c);
  double best = HIT_RADIUS;
  guint found = G_MAXUINT;
  if (_spx_speedup_layout (cr, &c, width, height, rows))
    for (guint s = SPX_SWEEP_MODEL; s <= SPX_SWEEP_CPU; s++)
      for (guint b = 0; b < c.n_blocks; b++)
        for (guint m = SPX_SWEEP_STATIC; m < SPX_SWEEP_N_MODES; m++)
          {
            g_autoptr (GArray) xy = _spx_speedup_series (&c, c.points, s,
                                                         c.blocks[b], m,
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
  g_autofree char *percent = _spx_speedup_format_percent (MIN (d, 1), 3);
  if (_spx_speedup_whole_inverse (d) < 2)
    return g_steal_pointer (&percent);
  g_autofree char *f = _spx_speedup_format_fraction (d);
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
  g_string_append_printf (out, "\n%s %s", _spx_speedup_mode_label (p->mode),
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
                          _spx_speedup_mode_label (p->mode));
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
