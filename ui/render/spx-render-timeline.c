/* spx-render-timeline.c: each program a lane of supersteps, all lanes on
 * one cycle axis so that dense, static and dynamic compare by length,
 * and under the axis a panel that explains the selected superstep's
 * cycles term by term. The axis zooms to a part of it (a program much
 * shorter than the longest, a thin step). Geometry depends only on the
 * size, the data (never the selection: a click does not move the bars)
 * and the font size, so the hit test (which has no cairo_t) finds the boxes the
 * picture draws. */
#include "spx-render-timeline-private.h"
#include "spx-render-views.h"
#include "spx-util.h"

#include <math.h>
#include <string.h>

/* Below the title (and a user's title's extra lines) and the legend. */
static double
lanes_top (const Layout *l)
{
  return 6 + 1.15 * l->line + l->extra + l->line + 4;
}

static double
axis_height (double line)
{
  return 4 + 0.95 * line + 0.95 * line + 4;
}

static double
panel_height (const Layout *l, guint rows)
{
  return rows > 0 ? PANEL_GAP + 2 * PANEL_PAD + rows * l->row_h : 0;
}

/* Rows the panel wants: a header and the most terms any step has (so
 * that it is the same whichever step is selected), at least one; in
 * *words, the most rows any step's words take. */
static guint
panel_rows_wanted (const SpxRenderTimelineData *d, const Layout *l,
                   double fs, guint *words)
{
  guint most = 1;
  *words = 0;
  for (guint i = 0; i < l->n; i++)
    {
      GArray *steps = d->programs[l->which[i]]->steps;
      for (guint j = 0; j < steps->len; j++)
        {
          const SpxIpuStep *s = &g_array_index (steps, SpxIpuStep, j);
          if (s->terms != NULL)
            most = MAX (most, s->terms->len);
          *words = MAX (*words, _spx_timeline_words_rows (l, s, fs));
        }
    }
  return 1 + MIN (most, PANEL_MAX_TERMS);
}

/* The part of the axis d shows, as fractions of it. */
static void
zoom_of (const SpxRenderTimelineData *d, double *from, double *to)
{
  *from = 0;
  *to = 1;
  if (d == NULL || !(d->zoom_to > d->zoom_from) || d->zoom_from < 0 ||
      d->zoom_to > 1)
    return;
  *from = d->zoom_from;
  *to = d->zoom_to;
}

/* Under each bar: its callouts and its phase summary, if room. */
static double
below_bar (const Layout *l)
{
  return (l->callouts ? l->callout_h : 0) +
         (l->summary_below ? 0.9 * l->line : 0);
}

/* FALSE when there is nothing to draw. extra: as Layout's (the hit
 * test's pictures, the window's, have no user title). */
static gboolean
layout_compute (Layout *l, const SpxRenderTimelineData *d, double w,
                double h, double fs, double extra)
{
  *l = (Layout) { .extra = extra };
  l->line = 1.4 * fs;
  l->row_h = 1.4 * PANEL_SIZE * fs + 2;
  guint64 cycles[N_LANES];
  for (guint i = 0; d != NULL && i < N_LANES; i++)
    if (d->programs[i] != NULL)
      {
        cycles[l->n] = d->programs[i]->cycles;
        l->which[l->n++] = i;
      }
  if (l->n == 0)
    return FALSE;
  double from, to;
  zoom_of (d, &from, &to);
  _spx_timeline_axis_init (&l->ax, cycles, l->n, from, to, MARGIN,
                           MAX (MARGIN + 1, w - MARGIN), d->axis_break);
  double top = lanes_top (l);
  double rest = h - top - axis_height (l->line);
  /* the panel as tall as it wants while every lane keeps a bar of two
   * lines (room for its label), else shorter (the last row then sums
   * what is left), else none: a small picture is all bars */
  double lane_min = l->line + 2 * l->line + LANE_GAP;
  guint words, want = panel_rows_wanted (d, l, fs, &words);
  for (guint r = want; r >= 2 && l->panel_rows == 0; r--)
    if (rest - panel_height (l, r) >= l->n * lane_min)
      l->panel_rows = r;
  /* the terms' words in what is left once every lane also keeps its
   * callouts */
  double lane_named = lane_min + LEADER + LABEL_SIZE * l->line;
  if (l->panel_rows == want)
    l->panel_rows += (guint) CLAMP ((rest - panel_height (l, want) -
                                     l->n * lane_named) / l->row_h, 0,
                                    words);
  double room = MAX (0, rest - panel_height (l, l->panel_rows));
  /* bars stop growing at five lines: a tall window is not a thick bar */
  double lane_h = MIN (room / l->n, l->line + 5 * l->line + 0.9 * l->line +
                                    LANE_GAP);
  double bar_h = lane_h - l->line - LANE_GAP;
  /* names first, then the phase summary, while a bar keeps 1.2 lines */
  l->callout_h = LEADER + LABEL_SIZE * l->line;
  l->callouts = bar_h - l->callout_h >= 1.2 * l->line;
  bar_h -= l->callouts ? l->callout_h : 0;
  l->summary_below = bar_h - 0.9 * l->line >= 1.2 * l->line;
  l->bar_h = MAX (4, bar_h - (l->summary_below ? 0.9 * l->line : 0));
  for (guint i = 0; i < l->n; i++)
    {
      l->lane_y[i] = top + i * lane_h;
      l->bar_y[i] = l->lane_y[i] + l->line;
    }
  double bars_end = l->bar_y[l->n - 1] + l->bar_h + below_bar (l);
  l->axis_y = bars_end + 4;
  l->panel_y = bars_end + axis_height (l->line) + PANEL_GAP;
  return TRUE;
}

const SpxIpuStep *
_spx_timeline_selected_step (const SpxRenderTimelineData *d,
                             guint *which)
{
  if (d == NULL || d->selected_superstep < 0)
    return NULL;
  gboolean any = d->selected_lane < 0 || d->selected_lane >= N_LANES;
  for (guint i = 0; i < N_LANES; i++)
    {
      const SpxIpuProgram *p = d->programs[i];
      if ((any || d->selected_lane == (gint) i) && p != NULL &&
          (guint) d->selected_superstep < p->steps->len)
        {
          *which = i;
          return &g_array_index (p->steps, SpxIpuStep,
                                 d->selected_superstep);
        }
    }
  return NULL;
}

/* Whether the step's terms are about one tile: a sync's are not, nor
 * are those of a step whose cycles nobody explained. */
static gboolean
step_has_tile (const SpxIpuStep *s)
{
  return s->kind != SPX_STEP_SYNC && s->terms != NULL && s->terms->len > 0;
}

/* Named as the bars and the hover name it. */
char *
_spx_timeline_step_header (const SpxIpuStep *s, guint index)
{
  g_autofree char *c = spx_format_count (s->cycles);
  g_autofree char *t = step_has_tile (s)
                         ? g_strdup_printf (", tile %u", s->worst_tile)
                         : g_strdup ("");
  g_autofree char *name = spx_ipu_step_name (s);
  return g_strdup_printf ("Superstep %u: %s, %s cycles%s", index + 1, name,
                          c, t);
}

/* A line per term, each after a newline, and under it the term in
 * words. */
static void
append_terms (GString *out, const SpxIpuStep *s)
{
  for (guint i = 0; s->terms != NULL && i < s->terms->len; i++)
    {
      const SpxIpuTerm *t = &g_array_index (s->terms, SpxIpuTerm, i);
      g_autofree char *c = spx_format_count (t->cycles);
      g_string_append_printf (out, "\n%s — %s — %s cycles", t->term,
                              t->formula, c);
      if (t->words != NULL)
        g_string_append_printf (out, "\n    %s", t->words);
    }
  if (s->terms == NULL || s->terms->len == 0)
    g_string_append (out, "\nno breakdown of these cycles");
}

char *
spx_render_timeline_explain (const SpxRenderTimelineData *d)
{
  guint which = 0;
  const SpxIpuStep *s = _spx_timeline_selected_step (d, &which);
  if (s == NULL)
    return g_strdup (HINT);
  g_autofree char *head = _spx_timeline_step_header (
    s, (guint) d->selected_superstep);
  GString *out = g_string_new (head);
  g_string_append_printf (out, " · %s",
                          spx_ipu_mode_to_string (d->programs[which]->mode));
  append_terms (out, s);
  return g_string_free (out, FALSE);
}

/* "8.1%"; a sliver of the program "<0.1%". */
static char *
share_text (guint64 part, guint64 whole)
{
  double pct = 100.0 * (double) part / (double) whole;
  return pct > 0 && pct < 0.05 ? g_strdup ("<0.1%")
                               : g_strdup_printf ("%.1f%%", pct);
}

char *
spx_render_timeline_describe (const SpxRenderTimelineData *d, guint lane,
                               gint step)
{
  if (d == NULL || lane >= N_LANES || d->programs[lane] == NULL || step < 0 ||
      (guint) step >= d->programs[lane]->steps->len)
    return NULL;
  const SpxIpuProgram *p = d->programs[lane];
  const SpxIpuStep *s = &g_array_index (p->steps, SpxIpuStep, step);
  g_autofree char *name = spx_ipu_step_name (s);
  g_autofree char *c = spx_format_count (s->cycles);
  GString *out = g_string_new (NULL);
  g_string_append_printf (out, "%s · Superstep %d: %s\n%s cycles",
                          spx_ipu_mode_to_string (p->mode), step + 1, name,
                          c);
  if (p->cycles > 0)
    {
      g_autofree char *share = share_text (s->cycles, p->cycles);
      g_autofree char *total = spx_format_count (p->cycles);
      g_string_append_printf (out, " · %s of %s cycles", share, total);
    }
  if (step_has_tile (s))
    g_string_append_printf (out, "\n%s tile: %u",
                            s->kind == SPX_STEP_COMPUTE ? "slowest"
                                                        : "busiest",
                            s->worst_tile);
  append_terms (out, s);
  return g_string_free (out, FALSE);
}

/* A box cut to the axis shown; FALSE when it lies outside. */
static gboolean
visible (const Layout *l, double *x, double *w)
{
  if (*x > l->ax.x1 || *x + *w <= l->ax.x0)
    return FALSE;
  double lo = MAX (*x, l->ax.x0), hi = MIN (*x + *w, l->ax.x1 + 1);
  *x = lo;
  *w = MAX (1, hi - lo);
  return TRUE;
}

/* A superstep's box: at least one pixel wide so that a 90-cycle sync
 * in a 300k-cycle program still shows. */
static void
step_box (const Layout *l, guint64 start, guint64 cycles, double *x,
          double *w)
{
  *x = _spx_timeline_axis_x (&l->ax, (double) start);
  *w = MAX (1, _spx_timeline_axis_x (&l->ax, (double) (start + cycles)) - *x);
}

/* The width a box is filled: a hairline gap keeps neighbours of one
 * kind apart. */
static double
fill_width (double w)
{
  return w > 3 ? w - 1 : w;
}

/* ---- step names ---- */

/* Where a step's name goes: inside its box, or (a callout) in the row
 * under the bar, joined to the middle of its box by a leader. */
typedef struct {
  char    *text;        /* NULL: no label */
  double   x, y, w, h;  /* the text's box */
  gboolean callout;
  double   anchor;      /* a callout: the middle of its step */
  double   step_w;      /* the step's box */
} Label;

static void
label_clear (gpointer data)
{
  g_free (((Label *) data)->text);
}

/* Inside when the name (with its cycles if they fit too) fits the box;
 * else a callout with the name, placed later. */
static void
label_for_step (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
                const SpxIpuStep *s, guint lane, double x, double w,
                Label *out)
{
  g_autofree char *name = spx_ipu_step_name (s);
  g_autofree char *c = spx_render_format_count ((double) s->cycles);
  g_autofree char *both = g_strdup_printf ("%s %s", name, c);
  const char *tries[] = { both, name };
  double y = l->bar_y[lane], h = l->bar_h;
  *out = (Label) { .anchor = x + w / 2, .step_w = w };
  for (guint i = 0; i < G_N_ELEMENTS (tries); i++)
    {
      double th, tw = spx_render_text_width (cr, style, LABEL_SIZE, tries[i],
                                             &th);
      if (tw + 6 > w || th > h)
        continue;
      *out = (Label) { g_strdup (tries[i]), x + w / 2 - tw / 2,
                       y + h / 2 - th / 2, tw, th, FALSE, x + w / 2, w };
      return;
    }
  if (!l->callouts)
    return;
  double th, tw = spx_render_text_width (cr, style, LABEL_SIZE, name, &th);
  *out = (Label) { g_strdup (name), 0, y + h + LEADER, tw, th, TRUE,
                   x + w / 2, w };
}

static gboolean
is_callout (const Label *b)
{
  return b->text != NULL && b->callout;
}

/* The callouts side by side in one row, each as near its step as the
 * others allow; while they cannot all fit, the thinnest step's goes. */
static void
place_callouts (const Layout *l, GArray *labels)
{
  for (;;)
    {
      double need = -CALLOUT_GAP;
      Label *thinnest = NULL;
      for (guint i = 0; i < labels->len; i++)
        {
          Label *b = &g_array_index (labels, Label, i);
          if (!is_callout (b))
            continue;
          need += b->w + CALLOUT_GAP;
          if (thinnest == NULL || b->step_w < thinnest->step_w)
            thinnest = b;
        }
      if (thinnest == NULL || need <= l->ax.x1 - l->ax.x0)
        break;
      g_clear_pointer (&thinnest->text, g_free);
    }
  /* pushed right past their neighbours, then back left from the end */
  double edge = l->ax.x0;
  for (guint i = 0; i < labels->len; i++)
    {
      Label *b = &g_array_index (labels, Label, i);
      if (!is_callout (b))
        continue;
      b->x = MAX (b->anchor - b->w / 2, edge);
      edge = b->x + b->w + CALLOUT_GAP;
    }
  edge = l->ax.x1;
  for (guint i = labels->len; i-- > 0;)
    {
      Label *b = &g_array_index (labels, Label, i);
      if (!is_callout (b))
        continue;
      b->x = MIN (b->x, edge - b->w);
      edge = b->x - CALLOUT_GAP;
    }
}

/* A label per step of the lane's program (text NULL: none). */
static GArray *
place_labels (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
              const SpxIpuProgram *p, guint lane)
{
  GArray *labels = g_array_new (FALSE, TRUE, sizeof (Label));
  g_array_set_clear_func (labels, label_clear);
  g_array_set_size (labels, p->steps->len);
  guint64 start = 0;
  for (guint i = 0; i < p->steps->len; i++)
    {
      const SpxIpuStep *s = &g_array_index (p->steps, SpxIpuStep, i);
      double x, w;
      step_box (l, start, s->cycles, &x, &w);
      start += s->cycles;
      if (visible (l, &x, &w))
        label_for_step (cr, style, l, s, lane, x, fill_width (w),
                        &g_array_index (labels, Label, i));
    }
  place_callouts (l, labels);
  return labels;
}

/* The labels as a picture at the default font size places them, for
 * a caller without a cairo_t. */
static GArray *
default_labels (const Layout *l, const SpxIpuProgram *p, guint lane)
{
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32,
                                                         1, 1);
  cairo_t *cr = cairo_create (surface);
  GArray *labels = place_labels (cr, &style, l, p, lane);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  return labels;
}

gboolean
spx_render_timeline_label_box (double width, double height,
                               const SpxRenderTimelineData *d, guint lane,
                               guint step, cairo_rectangle_t *box)
{
  Layout l;
  if (box == NULL || !layout_compute (&l, d, width, height,
                                      SPX_RENDER_FONT_SIZE, 0))
    return FALSE;
  for (guint i = 0; i < l.n; i++)
    {
      const SpxIpuProgram *p = d->programs[l.which[i]];
      if (l.which[i] != lane || step >= p->steps->len)
        continue;
      g_autoptr (GArray) labels = default_labels (&l, p, i);
      const Label *b = &g_array_index (labels, Label, step);
      *box = (cairo_rectangle_t) { b->x, b->y, b->w, b->h };
      return b->text != NULL;
    }
  return FALSE;
}

static gint
hit_lane (const Layout *l, const SpxIpuProgram *p, double x)
{
  GArray *steps = p->steps;
  guint64 start = 0;
  gint inside = -1;
  for (guint i = 0; i < steps->len; i++)
    {
      guint64 c = g_array_index (steps, SpxIpuStep, i).cycles;
      double bx, bw;
      step_box (l, start, c, &bx, &bw);
      start += c;
      if (!visible (l, &bx, &bw))
        continue;
      /* thin steps first: they could not be pointed at otherwise */
      if (bw < 2 * HIT_SLOP && fabs (x - (bx + bw / 2)) <= HIT_SLOP)
        return (gint) i;
      if (inside < 0 && x >= bx && x < bx + bw)
        inside = (gint) i;
    }
  return inside;
}

gint
spx_render_timeline_hit (double width, double height,
                         const SpxRenderTimelineData *d, double x, double y,
                         guint *lane)
{
  Layout l;
  if (!layout_compute (&l, d, width, height, SPX_RENDER_FONT_SIZE, 0))
    return -1;
  for (guint i = 0; i < l.n; i++)
    {
      if (y < l.bar_y[i] || y >= l.bar_y[i] + l.bar_h)
        continue;
      gint step = hit_lane (&l, d->programs[l.which[i]], x);
      if (step >= 0 && lane != NULL)
        *lane = l.which[i];
      return step;
    }
  return -1;
}

/* ---- drawing ---- */

SpxRgb
_spx_timeline_kind_colour (const SpxRenderStyle *style, SpxStepKind kind)
{
  /* series[1] is close to the highlight orange in the dark theme */
  switch (kind)
    {
    case SPX_STEP_COMPUTE:
      return style->series[0];
    case SPX_STEP_EXCHANGE:
      return style->series[2];
    case SPX_STEP_SYNC:
    default:
      return style->series[3];
    }
}

/* Black or white, whichever reads on c. */
static SpxRgb
text_on (SpxRgb c)
{
  double y = 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b;
  return y > 0.45 ? (SpxRgb) { 0, 0, 0 } : (SpxRgb) { 1, 1, 1 };
}

/* Join parts with sep while they fit in max_w. */
static char *
fit_parts (cairo_t *cr, const SpxRenderStyle *style, double size,
           double max_w, const char *sep, char **parts, guint n)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < n; i++)
    {
      gsize old = s->len;
      if (s->len > 0)
        g_string_append (s, sep);
      g_string_append (s, parts[i]);
      if (spx_render_text_width (cr, style, size, s->str, NULL) > max_w)
        {
          g_string_truncate (s, old);
          break;
        }
    }
  return g_string_free (s, FALSE);
}

/* The problem's shape and block come from a sparse program if there is
 * one: dense plans have no block. */
static const SpxIpuProgram *
title_program (const SpxRenderTimelineData *d, const Layout *l)
{
  for (guint i = 0; i < l->n; i++)
    if (d->programs[l->which[i]]->mode != SPX_IPU_MODE_DENSE)
      return d->programs[l->which[i]];
  return d->programs[l->which[0]];
}

static const SpxTextOpts title_opts = { .size = 1.05, .bold = TRUE };

static void
draw_title (cairo_t *cr, const SpxRenderStyle *style, double width,
            const Layout *l, const SpxRenderTimelineData *d)
{
  const SpxIpuProgram *p = title_program (d, l);
  gboolean dense = p->mode == SPX_IPU_MODE_DENSE;
  char *parts[] = {
    g_strdup ("BSP supersteps"),
    g_strdup (p->machine->name),
    g_strdup_printf ("%" G_GUINT64_FORMAT "×%" G_GUINT64_FORMAT " · n %"
                     G_GUINT64_FORMAT, p->m, p->k, p->n),
    dense ? g_strdup (spx_dtype_to_string (p->dtype))
          : g_strdup_printf ("b%u %s", p->block,
                             spx_dtype_to_string (p->dtype)),
  };
  g_autofree char *t = fit_parts (cr, style, 1.05, width - 2 * MARGIN, " · ",
                                  parts, G_N_ELEMENTS (parts));
  if (!spx_render_user_title (cr, style, MARGIN, 6, &title_opts,
                              width - 2 * MARGIN))
    spx_render_text (cr, style, MARGIN, 6, &title_opts, t);
  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    g_free (parts[i]);
}

static void
draw_legend (cairo_t *cr, const SpxRenderStyle *style, const Layout *l)
{
  static const struct {
    SpxStepKind kind;
    const char *name;
  } items[] = {
    { SPX_STEP_COMPUTE, "compute" },
    { SPX_STEP_EXCHANGE, "exchange" },
    { SPX_STEP_SYNC, "sync" },
  };
  double x = MARGIN, y = 6 + 1.15 * l->line + l->extra;
  double sw = 0.75 * l->line / 1.4;
  SpxTextOpts o = { .size = 0.9, .ay = 0.5 };
  for (guint i = 0; i < G_N_ELEMENTS (items); i++)
    {
      spx_render_set_rgb (cr, _spx_timeline_kind_colour (style,
                                                         items[i].kind));
      cairo_rectangle (cr, x, y + l->line / 2 - sw / 2, sw, sw);
      cairo_fill (cr);
      x += sw + 4;
      x += spx_render_text (cr, style, x, y + l->line / 2, &o,
                            items[i].name) + 14;
    }
}

/* A name inside its box, or a callout under the bar with its leader. */
static void
draw_label (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
            guint lane, const Label *b, SpxRgb fill)
{
  if (b->text == NULL)
    return;
  SpxTextOpts o = { .size = LABEL_SIZE, .colour = text_on (fill),
                    .use_colour = !b->callout };
  if (b->callout)
    {
      /* straight down when the label is under its step, else slanted */
      double top = l->bar_y[lane] + l->bar_h;
      spx_render_set_rgb (cr, style->muted);
      cairo_set_line_width (cr, 1);
      cairo_move_to (cr, b->anchor, top + 1);
      cairo_line_to (cr, b->anchor, top + 4);
      cairo_line_to (cr, CLAMP (b->anchor, b->x + 2, b->x + b->w - 2),
                     b->y - 1);
      cairo_stroke (cr);
    }
  spx_render_text (cr, style, b->x, b->y, &o, b->text);
}

static gboolean
lane_selected (const SpxRenderTimelineData *d, guint which, guint step)
{
  return d->selected_superstep == (gint) step &&
         (d->selected_lane < 0 || d->selected_lane >= N_LANES ||
          d->selected_lane == (gint) which);
}

static void
draw_bar (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
          const SpxRenderTimelineData *d, guint lane)
{
  const SpxIpuProgram *p = d->programs[l->which[lane]];
  double y = l->bar_y[lane], h = l->bar_h;
  guint64 start = 0;
  double sel_x = 0, sel_w = -1;
  g_autoptr (GArray) labels = place_labels (cr, style, l, p, lane);
  for (guint i = 0; i < p->steps->len; i++)
    {
      const SpxIpuStep *s = &g_array_index (p->steps, SpxIpuStep, i);
      double x, w;
      step_box (l, start, s->cycles, &x, &w);
      start += s->cycles;
      if (!visible (l, &x, &w))
        continue;
      double fw = fill_width (w);
      SpxRgb fill = _spx_timeline_kind_colour (style, s->kind);
      spx_render_set_rgb (cr, fill);
      cairo_rectangle (cr, x, y, fw, h);
      cairo_fill (cr);
      draw_label (cr, style, l, lane, &g_array_index (labels, Label, i),
                  fill);
      if (lane_selected (d, l->which[lane], i))
        {
          sel_x = x;
          sel_w = fw;
        }
    }
  if ((double) p->cycles > l->ax.break_c)
    _spx_timeline_axis_draw_break (cr, style, &l->ax, y, h);
  if (sel_w >= 0) /* drawn last so its neighbours do not cover it */
    {
      spx_render_set_rgb (cr, style->foreground);
      cairo_set_line_width (cr, 2);
      cairo_rectangle (cr, sel_x - 1, y - 1, sel_w + 2, h + 2);
      cairo_stroke (cr);
    }
}

/* "distribute 40% · compute 34% · reduce 25%", in the program's order. */
static char *
phase_summary (const SpxIpuProgram *p)
{
  guint n = p->phases->len;
  char **parts = g_new0 (char *, n + 1);
  for (guint i = 0; i < n; i++)
    {
      const SpxIpuPhase *ph = &g_array_index (p->phases, SpxIpuPhase, i);
      double pct = p->cycles > 0 ? 100.0 * ph->cycles / p->cycles : 0;
      parts[i] = pct > 0 && pct < 1 ? g_strdup_printf ("%s <1%%", ph->name)
                                     : g_strdup_printf ("%s %.0f%%", ph->name,
                                                        pct);
    }
  char *s = g_strjoinv (" · ", parts);
  g_strfreev (parts);
  return s;
}

static void
draw_header (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
             const SpxIpuProgram *p, guint lane)
{
  double y = l->lane_y[lane] + l->line / 2, max_w = l->ax.x1 - l->ax.x0;
  SpxTextOpts o = { .bold = TRUE, .ay = 0.5 };
  double x = l->ax.x0;
  x += spx_render_text (cr, style, x, y, &o,
                        spx_ipu_mode_to_string (p->mode)) + 8;
  g_autofree char *c = spx_render_format_count ((double) p->cycles);
  char *parts[] = {
    g_strdup_printf ("%s cycles", c),
    g_strdup_printf ("%.3g ms", p->ms),
    g_strdup (p->fits ? "" : "over memory"),
  };
  g_autofree char *rest = fit_parts (cr, style, 0.9, l->ax.x1 - x, " · ", parts,
                                     p->fits ? 2 : 3);
  SpxTextOpts r = { .size = 0.9, .ay = 0.5, .use_colour = TRUE,
                    .colour = p->fits ? style->muted : style->alert };
  x += spx_render_text (cr, style, x, y, &r, rest) + 16;
  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    g_free (parts[i]);
  /* the phase summary, whole or not at all: right of the header if it
   * fits, else below the bar if there is a line for it */
  g_autofree char *sum = phase_summary (p);
  double sw = spx_render_text_width (cr, style, 0.8, sum, NULL);
  SpxTextOpts so = { .size = 0.8, .ay = 0.5, .ax = 1, .use_colour = TRUE,
                     .colour = style->muted };
  if (sw > 0 && x + sw <= l->ax.x1)
    spx_render_text (cr, style, l->ax.x1, y, &so, sum);
  else if (sw > 0 && sw <= max_w && l->summary_below)
    {
      so.ax = 0;
      double y0 = l->bar_y[lane] + l->bar_h +
                  (l->callouts ? l->callout_h : 0);
      spx_render_text (cr, style, l->ax.x0, y0 + 0.45 * l->line, &so, sum);
    }
}


void
spx_render_timeline (cairo_t *cr, double width, double height,
                     gconstpointer data, const SpxRenderStyle *style)
{
  const SpxRenderTimelineData *d = data;
  spx_render_clear (cr, style, width, height);
  Layout l;
  double extra = spx_render_user_title_extra (cr, style, &title_opts,
                                              width - 2 * MARGIN);
  if (!layout_compute (&l, d, width, height, style->font_size, extra))
    {
      spx_render_placeholder (cr, style, width, height, "No program");
      return;
    }
  cairo_save (cr);
  draw_title (cr, style, width, &l, d);
  draw_legend (cr, style, &l);
  _spx_timeline_axis_draw (cr, style, &l.ax, width, lanes_top (&l),
                           l.axis_y, l.line);
  for (guint i = 0; i < l.n; i++)
    {
      draw_header (cr, style, &l, d->programs[l.which[i]], i);
      draw_bar (cr, style, &l, d, i);
    }
  _spx_timeline_draw_panel (cr, style, &l, d, height - MARGIN);
  cairo_restore (cr);
}

/* ---- zoom ---- */

double
spx_render_timeline_cycle_x (double width, double height,
                             const SpxRenderTimelineData *d, double cycles)
{
  Layout l;
  if (!layout_compute (&l, d, width, height, SPX_RENDER_FONT_SIZE, 0))
    return MARGIN;
  return _spx_timeline_axis_x (&l.ax, cycles);
}

char *
spx_render_timeline_axis_caption (double width, double height,
                                  const SpxRenderTimelineData *d)
{
  Layout l;
  if (!layout_compute (&l, d, width, height, SPX_RENDER_FONT_SIZE, 0))
    return NULL;
  return _spx_timeline_axis_caption (&l.ax);
}

void
spx_render_timeline_zoom (double width, double height,
                          const SpxRenderTimelineData *d, double x,
                          double factor, double dx, double *from, double *to)
{
  Layout l;
  zoom_of (d, from, to);
  if (!layout_compute (&l, d, width, height, SPX_RENDER_FONT_SIZE, 0) ||
      l.ax.max_cycles == 0 || !(factor > 0))
    return;
  double span = *to - *from, axis = l.ax.x1 - l.ax.x0;
  double at = _spx_timeline_axis_cycles (&l.ax, x) / l.ax.max_cycles;
  double least = MIN (1, SPX_RENDER_TIMELINE_MIN_CYCLES / l.ax.max_cycles);
  double now = CLAMP (span / factor, least, 1);
  /* the point at x stays there (the axis after is to scale), then the
   * pan */
  double start = at - CLAMP ((x - l.ax.x0) / axis, 0, 1) * now +
                 dx / axis * now;
  *from = CLAMP (start, 0, 1 - now);
  *to = *from + now;
}

gint
spx_render_timeline_lane_at (double width, double height,
                             const SpxRenderTimelineData *d, double x,
                             double y)
{
  Layout l;
  if (!layout_compute (&l, d, width, height, SPX_RENDER_FONT_SIZE, 0) ||
      x < l.ax.x0 || x > l.ax.x1)
    return -1;
  for (guint i = 0; i < l.n; i++)
    if (y >= l.lane_y[i] && y < l.lane_y[i] + l.line)
      return (gint) l.which[i];
  return -1;
}

void
spx_render_timeline_fit (const SpxRenderTimelineData *d, guint lane,
                         double *from, double *to)
{
  guint64 most = 0;
  for (guint i = 0; i < N_LANES; i++)
    if (d->programs[i] != NULL)
      most = MAX (most, d->programs[i]->cycles);
  *from = 0;
  *to = 1;
  if (lane < N_LANES && d->programs[lane] != NULL && most > 0)
    *to = MAX ((double) d->programs[lane]->cycles / (double) most,
               MIN (1, SPX_RENDER_TIMELINE_MIN_CYCLES / (double) most));
}

/* ---- its row in the table of views ------------------------------- */

static void
timeline_fill (const SpxRenderViewState *st, gpointer data)
{
  SpxRenderTimelineData *d = data;
  for (guint i = 0; i < SPX_IPU_N_MODES; i++)
    d->programs[i] = st->programs[i];
  d->selected_superstep = st->step;
  d->selected_lane = st->lane;
  d->zoom_from = st->zoom_from;
  d->zoom_to = st->zoom_to;
  d->axis_break = st->axis_break;
}

static gboolean
timeline_hit (double width, double height, gconstpointer data,
              const SpxRenderStyle *style, double x, double y,
              SpxRenderViewHit *hit)
{
  guint lane = 0;
  gint step = spx_render_timeline_hit (width, height, data, x, y, &lane);
  if (step < 0)
    return FALSE;
  hit->lane = (gint) lane;
  hit->step = step;
  return TRUE;
}

/* Whether (x, y) is on the explanation panel, which may cut long
 * formulas short: it is all below the axis. */
static gboolean
on_panel (double width, double height, const SpxRenderTimelineData *d,
          const SpxRenderStyle *style, double x, double y)
{
  Layout l;
  double fs = style != NULL ? style->font_size : SPX_RENDER_FONT_SIZE;
  if (!layout_compute (&l, d, width, height, fs, 0) || l.panel_rows == 0)
    return FALSE;
  return x >= l.ax.x0 && x <= l.ax.x1 && y >= l.panel_y &&
         y <= MAX (height - MARGIN,
                   l.panel_y + panel_height (&l, l.panel_rows));
}

/* A superstep explained without selecting it; on the panel, the selected
 * one's terms with every formula whole. */
static char *
timeline_describe (double width, double height, gconstpointer data,
                   const SpxRenderStyle *style, double x, double y)
{
  SpxRenderViewHit hit;
  const SpxRenderTimelineData *d = data;
  gint lane = spx_render_timeline_lane_at (width, height, d, x, y);
  if (lane >= 0)
    {
      g_autofree char *c = spx_format_count (d->programs[lane]->cycles);
      return g_strdup_printf ("%s: %s cycles\nClick to fit the axis to this "
                              "program (Ctrl+0: all of it again; Ctrl+scroll "
                              "zooms)",
                              spx_ipu_mode_to_string (lane), c);
    }
  if (!timeline_hit (width, height, data, style, x, y, &hit))
    {
      if (d->selected_superstep < 0 ||
          !on_panel (width, height, d, style, x, y))
        return NULL;
      return spx_render_timeline_explain (d);
    }
  g_autofree char *text = spx_render_timeline_describe (data,
                                                        (guint) hit.lane,
                                                        hit.step);
  if (text == NULL)
    return NULL;
  return g_strdup_printf ("%s\n\nClick to select it, double-click to open "
                          "it in Exchange.", text);
}

const SpxRenderView spx_render_view_timeline = {
  .name = "timeline", .title = "Timeline",
  .summary = "the dense, static and dynamic programs, superstep by "
             "superstep",
  .needs = SPX_RENDER_VIEW_NEEDS_PLAN,
  .data_size = sizeof (SpxRenderTimelineData), .fill = timeline_fill,
  .draw = spx_render_timeline, .hit = timeline_hit,
  .describe = timeline_describe,
};
