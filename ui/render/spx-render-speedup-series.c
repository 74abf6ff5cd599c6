/* spx-render-speedup-series.c: the speedup chart's series (each sweep's
 * lines, error bars and markers, and dense's reference) and its legend */
#include "spx-render-speedup-private.h"

#include <math.h>

static const double current_dash[] = { 3, 3 };

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
const char *
_spx_speedup_mode_label (SpxSweepMode mode)
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

GArray *
_spx_speedup_legend_rows (const Chart *c)
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
          "%s (%s)", _spx_speedup_mode_label (m),
          s == SPX_SWEEP_CPU ? "CPU" : "IPU model"));
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

SpxRgb
_spx_speedup_overlay_line_colour (const Chart *c)
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
          swatch_line (cr, x, y, _spx_speedup_overlay_line_colour (c),
                       OVERLAY_WIDTH, 0);
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

double
_spx_speedup_legend_width (cairo_t *cr, const Chart *c, const GArray *rows)
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
void
_spx_speedup_draw_legend (cairo_t *cr, const Chart *c, const GArray *rows,
                          double bottom)
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

GStrv
spx_render_speedup_sweep_labels (const SpxRenderSpeedupData *data)
{
  GStrvBuilder *b = g_strv_builder_new ();
  if (data != NULL && data->sweep != NULL)
    {
      /* the rows the legend draws */
      cairo_t *cr = _spx_speedup_scratch_cr ();
      SpxRenderStyle style;
      spx_render_style_init (&style, SPX_THEME_LIGHT);
      Chart c;
      _spx_speedup_chart_init (&c, cr, data, &style, 800);
      g_autoptr (GArray) rows = _spx_speedup_legend_rows (&c);
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

/* Series */

static int
compare_xy (gconstpointer a, gconstpointer b)
{
  const Xy *p = a, *q = b;
  int by_x = _spx_speedup_compare_double (&p->x, &q->x);
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

/* Where a point sits along the x axis: its block size or its density. */
static double
point_x (const Chart *c, const SpxSweepPoint *p)
{
  return c->ax.by_block ? (double) p->block : p->density;
}

/* The points of one (source, block, mode) of pts (a sweep's), along the
 * x axis; block 0: any, by block at one x. merge: the values at one x
 * averaged (dense's reference). */
GArray *
_spx_speedup_series (const Chart *c, const GArray *pts, SpxSweepSource source,
                     guint block, SpxSweepMode mode, gboolean merge)
{
  GArray *xy = g_array_new (FALSE, FALSE, sizeof (Xy));
  for (guint i = 0; i < pts->len; i++)
    {
      const SpxSweepPoint *p = &g_array_index (pts, SpxSweepPoint, i);
      Xy e = { .x = point_x (c, p), .block = p->block, .fits = p->fits,
               .noisy = p->noise != 0, .index = i };
      if (p->source != source || p->mode != mode ||
          (block != 0 && p->block != block) ||
          !_spx_speedup_point_value (c, p, &e.v))
        continue;
      _spx_speedup_point_spread (c, p, e.v, &e.lo, &e.hi);
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
void
_spx_speedup_draw_reference (cairo_t *cr, const Chart *c)
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
      g_autoptr (GArray) xy = _spx_speedup_series (c, c->points, s, 0,
                                                   SPX_SWEEP_DENSE, TRUE);
      polyline (cr, c, xy, c->style->foreground, 1.5, dense_row (s));
    }
}

void
_spx_speedup_draw_current (cairo_t *cr, const Chart *c)
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
        g_autoptr (GArray) xy = _spx_speedup_series (c, c->points, s, 0, m,
                                                     FALSE);
        polyline (cr, c, xy, line_colour (c, 0), 1.5,
                  spx_series_kind_row (s, m));
      }
}

/* The overlay's lines: in throughput dense's own too; a subject's
 * through its block sizes, else one per block size. */
static void
draw_overlay_lines (cairo_t *cr, const Chart *c, SpxSweepSource s)
{
  SpxRgb colour = _spx_speedup_overlay_line_colour (c);
  if (c->d->throughput)
    {
      g_autoptr (GArray) xy = _spx_speedup_series (c, c->over, s, 0,
                                                   SPX_SWEEP_DENSE, TRUE);
      polyline (cr, c, xy, colour, OVERLAY_WIDTH, dense_row (s));
    }
  for (guint m = SPX_SWEEP_STATIC; m < SPX_SWEEP_N_MODES; m++)
    for (guint b = 0; b < (c->over_subject ? 1 : c->n_blocks); b++)
      {
        g_autoptr (GArray) xy = _spx_speedup_series (
          c, c->over, s, c->over_subject ? 0 : c->blocks[b], m,
          !c->over_subject);
        polyline (cr, c, xy, colour, OVERLAY_WIDTH,
                  c->over_subject ? spx_series_kind_row (s, m) : b);
      }
}

/* The earlier sweep, under the current one: thin grey lines and small
 * washed-out markers, no error bars. */
void
_spx_speedup_draw_overlay (cairo_t *cr, const Chart *c)
{
  if (c->over == NULL)
    return;
  for (guint s = SPX_SWEEP_MODEL; s <= SPX_SWEEP_CPU; s++)
    draw_overlay_lines (cr, c, s);
  for (guint s = SPX_SWEEP_MODEL; s <= SPX_SWEEP_CPU; s++)
    for (guint b = 0; b < c->n_blocks; b++)
      for (guint m = SPX_SWEEP_STATIC; m < SPX_SWEEP_N_MODES; m++)
        {
          g_autoptr (GArray) xy = _spx_speedup_series (c, c->over, s,
                                                       c->blocks[b], m, TRUE);
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
void
_spx_speedup_draw_series (cairo_t *cr, const Chart *c, Layer layer)
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
          g_autoptr (GArray) xy = _spx_speedup_series (c, c->points, s,
                                                       c->blocks[b], m, TRUE);
          if (layer == LAYER_LINES) /* dashed by block, as coloured */
            polyline (cr, c, xy, line_colour (c, b), 2, b);
          else
            draw_points (cr, c, xy, spx_series_kind_row (s, m),
                         block_colour (c, b), layer);
        }
}
