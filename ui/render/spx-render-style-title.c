/* spx-render-style-title.c: the user's title (--title, Export's Title)
 * in any picture, one way for all of them, and the record of what text
 * a picture drew, by which tests read a picture's words. */
#include "spx-render-style-private.h"

/* One line of the title at opts' size: the room a picture keeps for its
 * own one-line title. */
static double
one_line (cairo_t *cr, const SpxRenderStyle *style, const SpxTextOpts *opts,
          double max_width)
{
  return spx_render_title_height (cr, style, opts, max_width, "Ag");
}

static gboolean
has_user_title (const SpxRenderStyle *style)
{
  return style->title != NULL && *style->title != '\0';
}

double
spx_render_user_title_extra (cairo_t *cr, const SpxRenderStyle *style,
                             const SpxTextOpts *opts, double max_width)
{
  if (!has_user_title (style))
    return 0;
  double h = spx_render_title_height (cr, style, opts, max_width,
                                      style->title);
  return MAX (0, h - one_line (cr, style, opts, max_width));
}

gboolean
spx_render_user_title (cairo_t *cr, const SpxRenderStyle *style, double x,
                       double y, const SpxTextOpts *opts, double max_width)
{
  if (!has_user_title (style))
    return FALSE;
  spx_render_title (cr, style, x, y, opts, max_width, style->title);
  return TRUE;
}

/* ---- the record of text drawn ---- */

static const cairo_user_data_key_t record_key;

void
spx_text_drawn_free (gpointer drawn)
{
  SpxTextDrawn *d = drawn;
  g_free (d->text);
  g_free (d);
}

void
spx_render_record_text (cairo_t *cr, GPtrArray *drawn)
{
  cairo_set_user_data (cr, &record_key, g_ptr_array_ref (drawn),
                       (cairo_destroy_func_t) g_ptr_array_unref);
}

void
_spx_render_text_recorded (cairo_t *cr, const char *text, PangoLayout *layout)
{
  GPtrArray *drawn = cairo_get_user_data (cr, &record_key);
  if (drawn == NULL)
    return;
  SpxTextDrawn *d = g_new0 (SpxTextDrawn, 1);
  d->text = g_strdup (text);
  d->lines = (guint) pango_layout_get_line_count (layout);
  d->ellipsized = pango_layout_is_ellipsized (layout);
  g_ptr_array_add (drawn, d);
}
