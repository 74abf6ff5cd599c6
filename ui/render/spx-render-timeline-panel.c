/* spx-render-timeline-panel.c: the Timeline's panel under the axis: the
 * selected superstep's cycles term by term, each term's formula and,
 * under it, the same said in words (the model's, spx_ipu_terms_say's),
 * wrapped to the panel's width as far as the picture has room. */
#include "spx-render-timeline-private.h"
#include "spx-util.h"

#define WORDS_GAP 2.0 /* under a term's words, before the next row */

/* text cut to max_w with an ellipsis (a whole character at a time) */
static char *
fit_text (cairo_t *cr, const SpxRenderStyle *style, double size,
          const char *text, double max_w)
{
  if (spx_render_text_width (cr, style, size, text, NULL) <= max_w)
    return g_strdup (text);
  glong lo = 0, hi = g_utf8_strlen (text, -1);
  while (lo < hi) /* the longest prefix that fits with its ellipsis */
    {
      glong mid = (lo + hi + 1) / 2;
      g_autofree char *pre = g_utf8_substring (text, 0, mid);
      g_autofree char *t = g_strconcat (pre, "…", NULL);
      if (spx_render_text_width (cr, style, size, t, NULL) <= max_w)
        lo = mid;
      else
        hi = mid - 1;
    }
  if (lo == 0)
    return g_strdup ("");
  g_autofree char *pre = g_utf8_substring (text, 0, lo);
  return g_strconcat (pre, "…", NULL);
}

/* One row of the panel: the term, how it is worked out, and its cycles
 * right-aligned in a column of their own; under it its words (NULL:
 * none) in words_h (0: not drawn). */
typedef struct {
  const char *term, *formula, *words;
  guint64     cycles;
  double      words_h;
} Row;

/* Where the columns go: the term's at left, the formula's at fx, the
 * cycles' right-aligned at right; the words under the formula, as wide
 * as the panel. */
typedef struct {
  double left, tw, fx, fw, right, words_w;
} Columns;

static void
columns (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
         const Row *rows, guint n, Columns *c)
{
  double left = l->ax.x0 + PANEL_PAD, right = l->ax.x1 - PANEL_PAD;
  double tw = 0, fw = 0, cw = 0;
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *count = spx_format_count (rows[i].cycles);
      tw = MAX (tw, spx_render_text_width (cr, style, PANEL_SIZE,
                                           rows[i].term, NULL));
      fw = MAX (fw, spx_render_text_width (cr, style, PANEL_SIZE,
                                           rows[i].formula, NULL));
      cw = MAX (cw, spx_render_text_width (cr, style, PANEL_SIZE, count,
                                           NULL));
    }
  tw = MIN (tw, 0.35 * (right - left));
  c->left = left;
  c->tw = tw;
  c->words_w = right - (left + tw + 16);
  /* the numbers close to their formulas, not across a wide picture */
  c->fx = left + tw + 16;
  c->right = MIN (right, c->fx + fw + 24 + cw);
  c->fw = c->right - cw - 24 - c->fx;
}

static SpxTextOpts
words_opts (const SpxRenderStyle *style, double width)
{
  return (SpxTextOpts) { .size = PANEL_SIZE, .max_width = MAX (width, 1),
                         .wrap = TRUE, .use_colour = TRUE,
                         .colour = spx_rgb_mix (style->foreground,
                                                style->muted, 0.3) };
}

guint
_spx_timeline_words_rows (const Layout *l, const SpxIpuStep *s, double fs)
{
  if (s->terms == NULL)
    return 0;
  guint n = MIN (s->terms->len, PANEL_MAX_TERMS), rows = 0;
  /* the words' column at its narrowest (see columns), a character
   * about 0.55 of the text's size */
  double words_w = 0.65 * (l->ax.x1 - l->ax.x0 - 2 * PANEL_PAD) - 16;
  guint per_line = MAX (1, (guint) (words_w / (0.55 * PANEL_SIZE * fs)));
  for (guint i = 0; i < n; i++)
    {
      const char *w = g_array_index (s->terms, SpxIpuTerm, i).words;
      guint chars = w != NULL ? (guint) g_utf8_strlen (w, -1) : 0;
      rows += (chars + per_line - 1) / per_line;
    }
  return rows;
}

/* Each row's words_h: its words wrapped to the column, while spare
 * holds them; from the first that does not fit on, none (the hover
 * over the panel says them all). */
static void
fit_words (cairo_t *cr, const SpxRenderStyle *style, const Columns *c,
           Row *rows, guint n, double spare)
{
  SpxTextOpts o = words_opts (style, c->words_w);
  gboolean room = c->words_w > 60;
  for (guint i = 0; i < n; i++)
    {
      rows[i].words_h = 0;
      if (!room || rows[i].words == NULL || *rows[i].words == '\0')
        continue;
      SpxTextExtent e;
      spx_render_text_extent (cr, style, &o, rows[i].words, &e);
      room = e.height + WORDS_GAP <= spare;
      if (room)
        {
          rows[i].words_h = e.height + WORDS_GAP;
          spare -= rows[i].words_h;
        }
    }
}

static void
draw_rows (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
           const Columns *c, const Row *rows, guint n, double y)
{
  /* the formula in a softer ink than the numbers, readable on the panel
   * in either theme */
  SpxRgb soft = spx_rgb_mix (style->foreground, style->muted, 0.45);
  SpxTextOpts wo = words_opts (style, c->words_w);
  for (guint i = 0; i < n; i++)
    {
      double cy = y + l->row_h / 2;
      g_autofree char *term = fit_text (cr, style, PANEL_SIZE, rows[i].term,
                                        c->tw);
      SpxTextOpts o = { .size = PANEL_SIZE, .ay = 0.5 };
      spx_render_text (cr, style, c->left, cy, &o, term);
      if (c->fw > 20)
        {
          g_autofree char *f = fit_text (cr, style, PANEL_SIZE,
                                         rows[i].formula, c->fw);
          SpxTextOpts fo = { .size = PANEL_SIZE, .ay = 0.5,
                             .colour = soft, .use_colour = TRUE };
          spx_render_text (cr, style, c->fx, cy, &fo, f);
        }
      g_autofree char *count = spx_format_count (rows[i].cycles);
      SpxTextOpts co = { .size = PANEL_SIZE, .ay = 0.5, .ax = 1 };
      spx_render_text (cr, style, c->right, cy, &co, count);
      y += l->row_h;
      if (rows[i].words_h > 0)
        spx_render_text (cr, style, c->fx, y, &wo, rows[i].words);
      y += rows[i].words_h;
    }
}

/* The rows of step s's terms, at most room of them: when there are
 * more, the last sums the rest so that the column still adds up to the
 * step. more holds that row's words; *n gets how many. */
static Row *
term_rows (const SpxIpuStep *s, guint room, char **more, guint *n)
{
  GArray *terms = s->terms;
  guint n_terms = terms != NULL ? terms->len : 0;
  guint shown = n_terms <= room ? n_terms : room - 1;
  Row *rows = g_new0 (Row, shown + 1);
  for (guint i = 0; i < shown; i++)
    {
      const SpxIpuTerm *t = &g_array_index (terms, SpxIpuTerm, i);
      rows[i] = (Row) { t->term, t->formula, t->words, t->cycles, 0 };
    }
  *n = shown;
  if (shown < n_terms)
    {
      guint64 rest = 0;
      for (guint i = shown; i < n_terms; i++)
        rest += g_array_index (terms, SpxIpuTerm, i).cycles;
      *more = g_strdup_printf (shown > 0 ? "%u more terms" : "%u terms",
                               n_terms - shown);
      rows[(*n)++] = (Row) { *more, "(a taller picture lists them)", NULL,
                             rest, 0 };
    }
  return rows;
}

/* The hint, in place of a step. */
static void
draw_hint (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
           double cy)
{
  double max_w = l->ax.x1 - l->ax.x0 - 2 * PANEL_PAD;
  SpxTextOpts o = { .size = PANEL_SIZE, .ay = 0.5, .use_colour = TRUE,
                    .colour = spx_rgb_mix (style->foreground, style->muted,
                                           0.6) };
  g_autofree char *t = fit_text (cr, style, PANEL_SIZE, HINT, max_w);
  spx_render_text (cr, style, l->ax.x0 + PANEL_PAD, cy, &o, t);
}

/* The header: the kind's colour, what the step is, which program. */
static void
draw_step_header (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
                  const SpxRenderTimelineData *d, const SpxIpuStep *s,
                  guint which, double cy)
{
  double sw = 0.75 * l->line / 1.4, hx = l->ax.x0 + PANEL_PAD;
  spx_render_set_rgb (cr, _spx_timeline_kind_colour (style, s->kind));
  cairo_rectangle (cr, hx, cy - sw / 2, sw, sw);
  cairo_fill (cr);
  hx += sw + 6;
  g_autofree char *head = _spx_timeline_step_header (
    s, (guint) d->selected_superstep);
  /* bold runs a little wider than the plain text measured */
  g_autofree char *ht = fit_text (cr, style, PANEL_SIZE, head,
                                  0.92 * (l->ax.x1 - PANEL_PAD - hx));
  SpxTextOpts ho = { .size = PANEL_SIZE, .bold = TRUE, .ay = 0.5 };
  hx += spx_render_text (cr, style, hx, cy, &ho, ht);
  g_autofree char *mode = g_strdup_printf (
    " · %s", spx_ipu_mode_to_string (d->programs[which]->mode));
  if (hx + spx_render_text_width (cr, style, PANEL_SIZE, mode, NULL) <=
      l->ax.x1 - PANEL_PAD && g_str_equal (ht, head))
    {
      SpxTextOpts mo = { .size = PANEL_SIZE, .ay = 0.5,
                         .colour = style->muted, .use_colour = TRUE };
      spx_render_text (cr, style, hx, cy, &mo, mode);
    }
}

static void
fill_panel (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
            double height)
{
  spx_render_set_rgb (cr, style->panel);
  cairo_rectangle (cr, l->ax.x0, l->panel_y, l->ax.x1 - l->ax.x0, height);
  cairo_fill (cr);
}

void
_spx_timeline_draw_panel (cairo_t *cr, const SpxRenderStyle *style,
                          const Layout *l, const SpxRenderTimelineData *d,
                          double bottom)
{
  if (l->panel_rows == 0)
    return;
  guint which = 0;
  const SpxIpuStep *s = _spx_timeline_selected_step (d, &which);
  double y = l->panel_y + PANEL_PAD, cy = y + l->row_h / 2;
  if (s == NULL)
    {
      fill_panel (cr, style, l, 2 * PANEL_PAD + l->row_h);
      draw_hint (cr, style, l, cy);
      return;
    }
  guint n = 0;
  g_autofree char *more = NULL;
  g_autofree Row *rows = term_rows (s, MIN (l->panel_rows - 1,
                                              PANEL_MAX_TERMS), &more, &n);
  Columns c;
  columns (cr, style, l, rows, n, &c);
  double used = 2 * PANEL_PAD + (1 + MAX (1, n)) * l->row_h;
  fit_words (cr, style, &c, rows, n, bottom - l->panel_y - used);
  for (guint i = 0; i < n; i++)
    used += rows[i].words_h;
  fill_panel (cr, style, l, used);
  draw_step_header (cr, style, l, d, s, which, cy);
  y += l->row_h;
  if (n == 0)
    {
      SpxTextOpts o = { .size = PANEL_SIZE, .ay = 0.5, .colour = style->muted,
                        .use_colour = TRUE };
      spx_render_text (cr, style, l->ax.x0 + PANEL_PAD, y + l->row_h / 2, &o,
                       "no breakdown of these cycles");
      return;
    }
  draw_rows (cr, style, l, &c, rows, n, y);
}
