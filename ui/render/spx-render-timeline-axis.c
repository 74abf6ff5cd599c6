/* spx-render-timeline-axis.c: the Timeline's cycle axis. Drawn to
 * scale, a dynamic program of 160k cycles leaves dense and static, a few
 * thousand each, as slivers; broken, the axis keeps the shorter programs
 * to scale on most of its width and squeezes the rest of the longest
 * past a gap, and says so under it. */
#include "spx-render-timeline-axis.h"

#include "spx-util.h"

#include <math.h>
#include <string.h>

#define BREAK_RATIO 3.0   /* the longest over the next, to break */
#define BREAK_ROOM  1.15  /* the part to scale: the next longest, and some */
#define BREAK_SHARE 0.75  /* of the axis's width, to scale */
#define BREAK_GAP   10.0  /* px between the two parts */
#define TICK_SIZE   0.85  /* tick labels, × the font size */

void
_spx_timeline_axis_init (SpxTimelineAxis *a, const guint64 *cycles, guint n,
                         double from, double to, double x0, double x1,
                         gboolean may_break)
{
  guint64 most = 0, next = 0;
  for (guint i = 0; i < n; i++)
    if (cycles[i] > most)
      {
        next = most;
        most = cycles[i];
      }
    else
      next = MAX (next, cycles[i]);
  *a = (SpxTimelineAxis) { x0, x1, most, from * (double) most,
                           to * (double) most, FALSE, 0, 0 };
  a->broken = may_break && from <= 0 && to >= 1 && next > 0 &&
              (double) most > BREAK_RATIO * (double) next &&
              x1 - x0 > 4 * BREAK_GAP;
  if (a->broken)
    {
      a->break_c = BREAK_ROOM * (double) next;
      a->break_x = x0 + (x1 - x0) * BREAK_SHARE;
    }
}

double
_spx_timeline_axis_x (const SpxTimelineAxis *a, double cycles)
{
  if (a->broken && cycles <= a->break_c)
    return a->x0 + (a->break_x - a->x0) * cycles / a->break_c;
  if (a->broken)
    {
      double after = a->break_x + BREAK_GAP;
      return after + (a->x1 - after) * (cycles - a->break_c) /
                     MAX (1e-9, a->to_c - a->break_c);
    }
  double span = a->to_c - a->from_c;
  return a->x0 + (a->x1 - a->x0) * (span > 0 ? (cycles - a->from_c) / span
                                             : 0);
}

double
_spx_timeline_axis_cycles (const SpxTimelineAxis *a, double x)
{
  x = CLAMP (x, a->x0, a->x1);
  if (a->broken && x <= a->break_x)
    return a->break_c * (x - a->x0) / MAX (1e-9, a->break_x - a->x0);
  if (a->broken)
    {
      double after = a->break_x + BREAK_GAP;
      return a->break_c + (a->to_c - a->break_c) *
                          MAX (0, x - after) / MAX (1e-9, a->x1 - after);
    }
  return a->from_c + (a->to_c - a->from_c) * (x - a->x0) /
                     MAX (1e-9, a->x1 - a->x0);
}

char *
_spx_timeline_axis_caption (const SpxTimelineAxis *a)
{
  if (a->broken)
    {
      g_autofree char *at = spx_render_format_count (a->break_c);
      g_autofree char *end = spx_render_format_count (a->to_c);
      return g_strdup_printf ("cycles · broken axis: to scale up to %s, "
                              "then squeezed to %s", at, end);
    }
  if (a->from_c <= 0 && a->to_c >= (double) a->max_cycles)
    return g_strdup ("cycles");
  g_autofree char *from = spx_render_format_count (a->from_c);
  g_autofree char *to = spx_render_format_count (a->to_c);
  g_autofree char *all = spx_render_format_count ((double) a->max_cycles);
  return g_strdup_printf ("cycles %s to %s of %s", from, to, all);
}

/* 50k, not 50.0k: ticks are round numbers. */
static char *
tick_label (double v)
{
  char *t = spx_render_format_count (v);
  char *dot = strstr (t, ".0");
  if (dot != NULL && !g_ascii_isdigit (dot[2]))
    memmove (dot, dot + 2, strlen (dot + 2) + 1);
  return t;
}

/* The ticks: nice numbers over the part to scale; broken, also the end
 * of the squeezed part. */
static guint
ticks_of (cairo_t *cr, const SpxRenderStyle *style, const SpxTimelineAxis *a,
          gboolean exact, double *ticks)
{
  double hi = a->broken ? a->break_c : a->to_c;
  double lo = a->broken ? 0 : a->from_c;
  double x1 = a->broken ? a->break_x : a->x1;
  g_autofree char *widest = exact ? spx_format_count ((guint64) a->to_c)
                                  : spx_render_format_count (a->to_c);
  double lw = spx_render_text_width (cr, style, TICK_SIZE, widest, NULL);
  guint max_ticks = CLAMP ((x1 - a->x0) / (lw + 24), 2, 12);
  guint n = spx_render_nice_ticks (lo, hi, max_ticks, ticks);
  if (a->broken)
    ticks[n++] = a->to_c;
  return n;
}

static void
draw_tick (cairo_t *cr, const SpxRenderStyle *style, double width,
           double top, double y, double x, const char *text)
{
  SpxTextOpts o = { .size = TICK_SIZE, .ax = 0.5 };
  x = round (x) + 0.5;
  spx_render_set_rgba (cr, style->muted, 0.35);
  cairo_move_to (cr, x, top);
  cairo_line_to (cr, x, y);
  cairo_stroke (cr);
  spx_render_set_rgb (cr, style->muted);
  cairo_move_to (cr, x, y);
  cairo_line_to (cr, x, y + 4);
  cairo_stroke (cr);
  double tw = spx_render_text_width (cr, style, TICK_SIZE, text, NULL);
  /* the end labels stay inside the picture */
  double tx = CLAMP (x, tw / 2 + 2, width - tw / 2 - 2);
  spx_render_text (cr, style, tx, y + 4, &o, text);
}

/* Two slanted strokes across the gap, from y0 to y1. */
static void
break_mark (cairo_t *cr, const SpxRenderStyle *style,
            const SpxTimelineAxis *a, double y0, double y1)
{
  double x = a->break_x + BREAK_GAP / 2, s = BREAK_GAP / 3;
  cairo_set_line_width (cr, 1.5);
  spx_render_set_rgb (cr, style->muted);
  for (int k = -1; k <= 1; k += 2)
    {
      cairo_move_to (cr, x + k * s / 2 - s / 2, y1);
      cairo_line_to (cr, x + k * s / 2 + s / 2, y0);
    }
  cairo_stroke (cr);
  cairo_set_line_width (cr, 1);
}

void
_spx_timeline_axis_draw (cairo_t *cr, const SpxRenderStyle *style,
                         const SpxTimelineAxis *a, double width, double top,
                         double y, double line)
{
  double ticks[17];
  /* zoomed close, ticks a few cycles apart need every digit */
  gboolean exact = a->to_c - a->from_c < 10000;
  guint n = ticks_of (cr, style, a, exact, ticks);
  cairo_set_line_width (cr, 1);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *t = exact ? spx_format_count ((guint64) round (ticks[i]))
                                 : tick_label (ticks[i]);
      draw_tick (cr, style, width, top, y, _spx_timeline_axis_x (a, ticks[i]),
                 t);
    }
  spx_render_set_rgb (cr, style->muted);
  cairo_move_to (cr, a->x0, y + 0.5);
  cairo_line_to (cr, a->broken ? a->break_x : a->x1, y + 0.5);
  if (a->broken)
    {
      cairo_move_to (cr, a->break_x + BREAK_GAP, y + 0.5);
      cairo_line_to (cr, a->x1, y + 0.5);
    }
  cairo_stroke (cr);
  if (a->broken)
    break_mark (cr, style, a, y - 4, y + 5);
  g_autofree char *what = _spx_timeline_axis_caption (a);
  SpxTextOpts o = { .size = TICK_SIZE, .ax = 0.5 };
  spx_render_text (cr, style, (a->x0 + a->x1) / 2, y + 4 + 0.95 * line, &o,
                   what);
}

void
_spx_timeline_axis_draw_break (cairo_t *cr, const SpxRenderStyle *style,
                               const SpxTimelineAxis *a, double y, double h)
{
  if (!a->broken)
    return;
  /* the gap in the background's colour, then the mark over it */
  spx_render_set_rgb (cr, style->background);
  cairo_rectangle (cr, a->break_x + 1, y - 1, BREAK_GAP - 2, h + 2);
  cairo_fill (cr);
  break_mark (cr, style, a, y - 3, y + h + 3);
}
