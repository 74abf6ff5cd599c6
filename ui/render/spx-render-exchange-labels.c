/* spx-render-exchange-labels.c: the byte labels of an exchange on the
 * tile grid. Every arrow drawn gets one, up to
 * SPX_RENDER_EXCHANGE_MAX_ARROWS of them: on its line, else beside it,
 * else further out, wherever it covers no tile, arrowhead or other
 * label (short arrows between groups, and the diagonals that cross
 * between four groups, have no room on their line). More arrows than
 * that (every arrow of a crowded step) are labelled on their lines as
 * far as there is room; the hover has them all. What stays within a
 * group is written at its middle first, when it fits. */
#include "spx-render-exchange-private.h"

#include "spx-util.h"

#include <math.h>

/* Labels are only tried in pictures with few enough arrows to check
 * each label against every other. */
#define LABEL_MAX_ARROWS 400
#define LABEL_SIZE 0.8      /* × the font size */
#define ALONG_N 5           /* points along an arrow tried */
#define SHIFTS_N 5          /* beside it: label lengths from its middle */
#define OUT_STEPS 4         /* label widths further out tried */
#define SPOTS_MAX (2 + ALONG_N + 2 + (OUT_STEPS + 1) * SHIFTS_N * 2)

/* Free if inside the picture and clear of every tile, arrowhead and
 * placed label. Lines may pass under a label: it has a background. */
static gboolean
label_free (const Layout *l, guint n_tiles, GArray *placed, GArray *heads,
            const Box *b)
{
  if (b->x < 0 || b->y < l->top - 4 || b->x + b->w > l->width ||
      b->y + b->h > l->height)
    return FALSE;
  for (guint t = 0; t < n_tiles; t++)
    {
      double cx, cy;
      _spx_exchange_tile_centre (l, t, &cx, &cy);
      Box tb = { cx - l->box / 2 - 1, cy - l->box / 2 - 1, l->box + 2,
                 l->box + 2 };
      if (_spx_exchange_boxes_overlap (b, &tb))
        return FALSE;
    }
  for (guint i = 0; i < heads->len; i++)
    if (_spx_exchange_boxes_overlap (b, &g_array_index (heads, Box, i)))
      return FALSE;
  for (guint i = 0; i < placed->len; i++)
    if (_spx_exchange_boxes_overlap (b, &g_array_index (placed, Placed, i).box))
      return FALSE;
  return TRUE;
}

/* Around each drawn arrowhead's triangle, a pixel to spare. */
static GArray *
head_boxes (const Layout *l, GArray *arrows, gint sel, guint64 largest)
{
  GArray *heads = g_array_new (FALSE, FALSE, sizeof (Box));
  for (guint i = 0; i < arrows->len; i++)
    {
      const Arrow *a = &g_array_index (arrows, Arrow, i);
      if (!_spx_exchange_shown (a, sel))
        continue;
      double pt[6];
      _spx_exchange_head (l, a, _spx_exchange_arrow_width (l, a->bytes,
                                                           largest), pt);
      double x0 = MIN (pt[0], MIN (pt[2], pt[4]));
      double x1 = MAX (pt[0], MAX (pt[2], pt[4]));
      double y0 = MIN (pt[1], MIN (pt[3], pt[5]));
      double y1 = MAX (pt[1], MAX (pt[3], pt[5]));
      Box b = { x0 - 1, y0 - 1, x1 - x0 + 2, y1 - y0 + 2 };
      g_array_append_val (heads, b);
    }
  return heads;
}

/* An arrow of a pair sent both ways lies beside its twin, under the same
 * labels: its label says which way it points. */
static const char *
direction (const Arrow *a)
{
  static const char *const glyph[] = { "→", "↘", "↓", "↙", "←", "↖", "↑",
                                       "↗" };
  double angle = atan2 (a->y1 - a->y0, a->x1 - a->x0);
  long k = lround (angle / (G_PI / 4));
  return glyph[(k % 8 + 8) % 8];
}

/* Where a label of tw × th may go on arrow a, in order: at its middle,
 * else slid along it; a group's short arrow also beside its middle,
 * first on the side away from its twin (so that the two labels do not
 * cover both arrows), then the other; then beside it, a label's length
 * along it either way from its middle (a twin's label stacks on its
 * pair's), then each a label's width further out; those only when far
 * (with more arrows, a label away from its line would be read as
 * another's). */
static guint
label_spots (const Layout *l, const Arrow *a, double tw, double th,
             gboolean far, double *xs, double *ys)
{
  static const double along[ALONG_N] = { 0.5, 0.4, 0.6, 0.3, 0.7 };
  static const int shifts[SHIFTS_N] = { 0, 1, -1, 2, -2 };
  guint n = 0;
  double mx, my;
  _spx_exchange_curve_point (a, 0.5, &mx, &my);
  double dx = a->x1 - a->x0, dy = a->y1 - a->y0;
  double len = MAX (1e-9, hypot (dx, dy)), nx = -dy / len, ny = dx / len;
  double extent = fabs (nx) * tw / 2 + fabs (ny) * th / 2;
  double length = fabs (ny) * tw + fabs (nx) * th + 2; /* along it */
  double off = extent + l->widest / 2 + 9;
  gboolean beside = l->grouped;
  for (int side = 1; beside && a->twin && side >= -1; side -= 2, n++)
    {
      xs[n] = mx + side * nx * off;
      ys[n] = my + side * ny * off;
    }
  for (guint k = 0; k < ALONG_N; k++, n++)
    _spx_exchange_curve_point (a, along[k], &xs[n], &ys[n]);
  for (int side = 1; beside && !a->twin && side >= -1; side -= 2, n++)
    {
      xs[n] = mx + side * nx * off;
      ys[n] = my + side * ny * off;
    }
  for (guint step = 0; far && step <= OUT_STEPS; step++)
    for (guint k = 0; k < SHIFTS_N; k++)
      for (int side = 1; side >= -1; side -= 2, n++)
        {
          double o = off + step * (2 * extent + 2);
          double at = shifts[k] * length;
          xs[n] = mx + side * nx * o + ny * at;
          ys[n] = my + side * ny * o - nx * at;
        }
  return n;
}

/* The first free spot for text on a, added to placed; FALSE for none. */
static gboolean
place_on_arrow (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
                guint n_tiles, const Arrow *a, guint index, gboolean far,
                GArray *heads, GArray *placed)
{
  g_autofree char *size = spx_format_bytes ((double) a->bytes);
  char *text = a->twin ? g_strdup_printf ("%s %s", direction (a), size)
                       : g_strdup (size);
  double th, tw = spx_render_text_width (cr, style, LABEL_SIZE, text, &th);
  double xs[SPOTS_MAX], ys[SPOTS_MAX];
  guint spots = label_spots (l, a, tw, th, far, xs, ys);
  for (guint k = 0; k < spots; k++)
    {
      Placed p = { index, FALSE,
                   { xs[k] - tw / 2 - 3, ys[k] - th / 2 - 1, tw + 6, th + 2 },
                   text };
      if (!label_free (l, n_tiles, placed, heads, &p.box))
        continue;
      g_array_append_val (placed, p);
      return TRUE;
    }
  g_free (text);
  return FALSE;
}

/* What stays within a group, at its middle (between its tiles) when it
 * fits there, shortened if need be; the hover has it anyway. */
static void
place_within (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
              guint n_tiles, GArray *arrows, GArray *placed)
{
  g_autoptr (GArray) none = g_array_new (FALSE, FALSE, sizeof (Box));
  for (guint i = 0; i < arrows->len; i++)
    {
      const Arrow *a = &g_array_index (arrows, Arrow, i);
      Box g;
      if (!_spx_exchange_is_loop (a) ||
          !_spx_exchange_group_box (l, n_tiles, a->src, &g))
        continue;
      g_autofree char *size = spx_format_bytes ((double) a->bytes);
      g_autofree char *long_text = g_strdup_printf ("within %s", size);
      const char *tries[] = { long_text, size };
      for (guint k = 0; k < G_N_ELEMENTS (tries); k++)
        {
          double th, tw = spx_render_text_width (cr, style, LABEL_SIZE,
                                                 tries[k], &th);
          Placed p = { i, TRUE, { g.x + g.w / 2 - tw / 2 - 3,
                                  g.y + g.h / 2 - th / 2 - 1, tw + 6,
                                  th + 2 }, NULL };
          if (!label_free (l, n_tiles, placed, none, &p.box))
            continue;
          p.text = g_strdup (tries[k]);
          g_array_append_val (placed, p);
          break;
        }
    }
}

static void
placed_clear (gpointer data)
{
  g_free (((Placed *) data)->text);
}

GArray *
_spx_exchange_place_labels (cairo_t *cr, const SpxRenderStyle *style,
                            const Layout *l, guint n_tiles, GArray *arrows,
                            gint sel, guint64 largest)
{
  GArray *placed = g_array_new (FALSE, FALSE, sizeof (Placed));
  g_array_set_clear_func (placed, placed_clear);
  if (arrows->len > LABEL_MAX_ARROWS)
    return placed;
  if (l->grouped)
    place_within (cr, style, l, n_tiles, arrows, placed);
  g_autoptr (GArray) heads = head_boxes (l, arrows, sel, largest);
  gboolean far = heads->len <= SPX_RENDER_EXCHANGE_MAX_ARROWS;
  for (guint i = arrows->len; i-- > 0;) /* the largest first */
    {
      const Arrow *a = &g_array_index (arrows, Arrow, i);
      if (_spx_exchange_shown (a, sel))
        place_on_arrow (cr, style, l, n_tiles, a, i, far, heads, placed);
    }
  return placed;
}

void
_spx_exchange_draw_labels (cairo_t *cr, const SpxRenderStyle *style,
                           GArray *placed, SpxRgb edge)
{
  SpxTextOpts o = { .size = LABEL_SIZE, .ax = 0.5, .ay = 0.5 };
  cairo_set_line_width (cr, 1);
  for (guint i = 0; i < placed->len; i++)
    {
      const Placed *p = &g_array_index (placed, Placed, i);
      const Box *b = &p->box;
      cairo_rectangle (cr, b->x + 0.5, b->y + 0.5, b->w - 1, b->h - 1);
      spx_render_set_rgb (cr, style->background);
      cairo_fill_preserve (cr);
      spx_render_set_rgb (cr, p->within ? style->muted : edge);
      cairo_stroke (cr);
      spx_render_text (cr, style, b->x + b->w / 2, b->y + b->h / 2, &o,
                       p->text);
    }
}

static void
label_clear (gpointer data)
{
  g_free (((SpxRenderExchangeLabel *) data)->text);
}

GArray *
spx_render_exchange_labels (double width, double height,
                            const SpxRenderExchangeData *d)
{
  const SpxIpuStep *s = _spx_exchange_shown_step (d);
  if (s == NULL || s->kind != SPX_STEP_EXCHANGE)
    return NULL;
  Layout l;
  _spx_exchange_layout_for (&l, d, s, width, height, SPX_RENDER_FONT_SIZE,
                            0);
  if (!l.grid)
    return NULL;
  Totals t = { 0 };
  g_autoptr (GArray) arrows = _spx_exchange_grid_arrows (&l, d->program, s,
                                                         &t);
  /* text is measured as the picture measures it */
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32,
                                                         1, 1);
  cairo_t *cr = cairo_create (surface);
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  g_autoptr (GArray) placed = _spx_exchange_place_labels (
    cr, &style, &l, d->program->n_tiles, arrows,
    _spx_exchange_selection (d), t.largest);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (SpxRenderExchangeLabel));
  g_array_set_clear_func (out, label_clear);
  for (guint i = 0; i < placed->len; i++)
    {
      const Placed *p = &g_array_index (placed, Placed, i);
      SpxRenderExchangeLabel label = { p->arrow, p->within, p->box.x,
                                       p->box.y, p->box.w, p->box.h,
                                       g_strdup (p->text) };
      g_array_append_val (out, label);
    }
  return out;
}
