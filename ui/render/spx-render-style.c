/* spx-render-style.c: colours, text and numbers every picture shares */
#include "spx-render-style-private.h"

#include <math.h>
#include <pango/pangocairo.h>
#include <string.h>

G_DEFINE_QUARK (spx-render-error-quark, spx_render_error)

static SpxRgb
hex (guint32 v)
{
  return (SpxRgb) { ((v >> 16) & 0xff) / 255.0, ((v >> 8) & 0xff) / 255.0,
                    (v & 0xff) / 255.0 };
}

/* Sixteen hues 22.5° apart in OKLCH, every other one lighter (OKLab
 * lightness 0.50 and 0.67 on light, 0.66 and 0.80 on dark, chroma as
 * much as sRGB allows), taken in steps of 157.5° so that consecutive
 * tiles differ most. Any two differ by at least 0.085 in OKLab. */
static void
init_tiles (SpxRenderStyle *s, gboolean dark)
{
  static const guint32 light[SPX_N_TILE_COLOURS] = {
    0xba0035, 0x00ae92, 0xa60098, 0x6daa00, 0x672ce5, 0xbb8d00, 0x0069a2,
    0xf85900, 0x007275, 0xff319b, 0x00773e, 0xc35bff, 0x6a6700, 0x618eff,
    0x905200, 0x00a6c9,
  };
  static const guint32 dark_[SPX_N_TILE_COLOURS] = {
    0xff3e4e, 0x00dcc0, 0xe93bc8, 0x77dc00, 0x9874ff, 0xe7b700, 0x0098f5,
    0xffa47b, 0x00a6af, 0xff9bbb, 0x00ae6a, 0xe1a0ff, 0x959a00, 0xa4bbff,
    0xcc7d00, 0x3bd0ff,
  };
  for (guint i = 0; i < SPX_N_TILE_COLOURS; i++)
    s->tiles[i] = hex (dark ? dark_[i] : light[i]);
}

void
spx_render_style_init (SpxRenderStyle *s, SpxTheme theme)
{
  memset (s, 0, sizeof *s);
  s->theme = theme;
  gboolean dark = theme == SPX_THEME_DARK;
  s->background = hex (dark ? 0x1e1e1e : 0xffffff);
  s->foreground = hex (dark ? 0xe8e8e8 : 0x202020);
  s->muted = hex (dark ? 0x8a8a8a : 0x8c8c8c);
  s->panel = hex (dark ? 0x2a2a2a : 0xf3f3f3);
  s->ink = hex (dark ? 0xf2f2f2 : 0x1a1a1a);
  s->highlight = hex (0xe69f00); /* orange: not on the heat map */
  s->alert = hex (dark ? 0xff5c5c : 0xd01c1c);
  s->partition = hex (dark ? 0xff5cc8 : 0xc2007a); /* magenta */
  /* Okabe & Ito's palette, darkest first on light, brightest on dark */
  static const guint32 light[SPX_N_SERIES] = {
    0x0072b2, 0xd55e00, 0x009e73, 0xcc79a7, 0xe69f00, 0x56b4e9, 0x000000,
    0xb8a200,
  };
  static const guint32 dark_[SPX_N_SERIES] = {
    0x56b4e9, 0xe69f00, 0x009e73, 0xcc79a7, 0xd55e00, 0x0072b2, 0xf0e442,
    0xbbbbbb,
  };
  for (guint i = 0; i < SPX_N_SERIES; i++)
    s->series[i] = hex (dark ? dark_[i] : light[i]);
  init_tiles (s, dark);
  s->font_family = "Sans";
  s->font_size = SPX_RENDER_FONT_SIZE;
}

gboolean
spx_theme_from_string (const char *text, SpxTheme *theme)
{
  if (g_strcmp0 (text, "light") == 0)
    *theme = SPX_THEME_LIGHT;
  else if (g_strcmp0 (text, "dark") == 0)
    *theme = SPX_THEME_DARK;
  else
    return FALSE;
  return TRUE;
}

void
spx_render_set_rgb (cairo_t *cr, SpxRgb c)
{
  cairo_set_source_rgb (cr, c.r, c.g, c.b);
}

void
spx_render_set_rgba (cairo_t *cr, SpxRgb c, double alpha)
{
  cairo_set_source_rgba (cr, c.r, c.g, c.b, alpha);
}

SpxRgb
spx_rgb_mix (SpxRgb a, SpxRgb b, double t)
{
  return (SpxRgb) { a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t,
                    a.b + (b.b - a.b) * t };
}

/* Five stops evenly spaced over t in [0, 1], mixed linearly between. */
static SpxRgb
five_stops (const SpxRgb stops[5], double t)
{
  if (!(t > 0))
    return stops[0];
  if (t >= 1)
    return stops[4];
  double x = t * 4;
  guint i = (guint) x;
  return spx_rgb_mix (stops[i], stops[i + 1], x - i);
}

/* A cividis-like ramp: blue to yellow, monotone in lightness, so it
 * reads the same to colour-blind eyes and in grey. */
SpxRgb
spx_render_heat (const SpxRenderStyle *style, double t)
{
  static const SpxRgb stops[5] = {
    { 0.000, 0.135, 0.304 }, { 0.250, 0.306, 0.431 }, { 0.488, 0.485, 0.471 },
    { 0.741, 0.679, 0.424 }, { 0.995, 0.909, 0.217 },
  };
  (void) style;
  return five_stops (stops, t);
}

/* Blue through magenta and red to yellow, lighter at every stop: from
 * dark to mid lightness on a light panel, mid to light on a dark one. */
SpxRgb
spx_render_tile_ramp (const SpxRenderStyle *style, double t)
{
  static const guint32 light[5] = {
    0x072187, 0x6a1c86, 0xa82453, 0xb75d00, 0xa09600,
  };
  static const guint32 dark[5] = {
    0x537feb, 0xc478e4, 0xff8ba8, 0xffbb8d, 0xf6ea4d,
  };
  const guint32 *v = style->theme == SPX_THEME_DARK ? dark : light;
  SpxRgb stops[5];
  for (guint i = 0; i < 5; i++)
    stops[i] = hex (v[i]);
  return five_stops (stops, t);
}

static double
linear (double c)
{
  return c <= 0.04045 ? c / 12.92 : pow ((c + 0.055) / 1.055, 2.4);
}

static double
luminance (SpxRgb c)
{
  return 0.2126 * linear (c.r) + 0.7152 * linear (c.g) +
         0.0722 * linear (c.b);
}

double
spx_rgb_contrast (SpxRgb a, SpxRgb b)
{
  double la = luminance (a), lb = luminance (b);
  return (MAX (la, lb) + 0.05) / (MIN (la, lb) + 0.05);
}

void
spx_render_clear (cairo_t *cr, const SpxRenderStyle *style, double width,
                  double height)
{
  cairo_save (cr);
  spx_render_set_rgb (cr, style->background);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_fill (cr);
  cairo_restore (cr);
}

static PangoLayout *
layout_new (cairo_t *cr, const SpxRenderStyle *style, double size,
            gboolean bold, const char *text)
{
  PangoLayout *layout = pango_cairo_create_layout (cr);
  PangoFontDescription *font = pango_font_description_from_string (
    style->font_family);
  pango_font_description_set_absolute_size (
    font, style->font_size * (size > 0 ? size : 1) * PANGO_SCALE);
  if (bold)
    pango_font_description_set_weight (font, PANGO_WEIGHT_BOLD);
  pango_layout_set_font_description (layout, font);
  pango_font_description_free (font);
  pango_layout_set_text (layout, text, -1);
  return layout;
}

/* The layout spx_render_text draws and spx_render_text_extent
 * measures: one place, so that what is measured is what is drawn. */
static PangoLayout *
opts_layout (cairo_t *cr, const SpxRenderStyle *style,
             const SpxTextOpts *opts, const char *text)
{
  PangoLayout *layout = layout_new (cr, style, opts->size, opts->bold, text);
  if (opts->max_width > 0)
    pango_layout_set_width (layout, (int) (opts->max_width * PANGO_SCALE));
  if (opts->max_width > 0 && opts->wrap)
    {
      pango_layout_set_wrap (layout, PANGO_WRAP_WORD_CHAR);
      pango_layout_set_alignment (layout, opts->ax >= 0.75 ? PANGO_ALIGN_RIGHT
                                          : opts->ax >= 0.25
                                          ? PANGO_ALIGN_CENTER
                                          : PANGO_ALIGN_LEFT);
    }
  else if (opts->max_width > 0)
    pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_MIDDLE);
  return layout;
}

static const SpxTextOpts plain_opts = { 0 };

double
spx_render_text (cairo_t *cr, const SpxRenderStyle *style, double x, double y,
                 const SpxTextOpts *opts, const char *text)
{
  if (opts == NULL)
    opts = &plain_opts;
  PangoLayout *layout = opts_layout (cr, style, opts, text);
  /* the ink's box: a wrapped layout's lines sit inside its full width */
  PangoRectangle r;
  pango_layout_get_pixel_extents (layout, NULL, &r);
  cairo_save (cr);
  cairo_translate (cr, x, y);
  cairo_rotate (cr, opts->angle);
  cairo_move_to (cr, -opts->ax * r.width - r.x, -opts->ay * r.height - r.y);
  spx_render_set_rgb (cr, opts->use_colour ? opts->colour : style->foreground);
  pango_cairo_show_layout (cr, layout);
  _spx_render_text_recorded (cr, text, layout);
  cairo_restore (cr);
  g_object_unref (layout);
  return r.width;
}

void
spx_render_text_extent (cairo_t *cr, const SpxRenderStyle *style,
                        const SpxTextOpts *opts, const char *text,
                        SpxTextExtent *extent)
{
  PangoLayout *layout = opts_layout (cr, style, opts ? opts : &plain_opts,
                                     text);
  PangoRectangle r;
  pango_layout_get_pixel_extents (layout, NULL, &r);
  extent->width = r.width;
  extent->height = r.height;
  extent->lines = (guint) pango_layout_get_line_count (layout);
  extent->ellipsized = pango_layout_is_ellipsized (layout);
  g_object_unref (layout);
}

/* opts made to wrap at max_width. */
static SpxTextOpts
title_opts (const SpxTextOpts *opts, double max_width)
{
  SpxTextOpts t = opts ? *opts : plain_opts;
  t.max_width = MAX (max_width, 1);
  t.wrap = TRUE;
  t.angle = 0;
  return t;
}

double
spx_render_title (cairo_t *cr, const SpxRenderStyle *style, double x,
                  double y, const SpxTextOpts *opts, double max_width,
                  const char *text)
{
  SpxTextOpts t = title_opts (opts, max_width);
  SpxTextExtent e;
  spx_render_text_extent (cr, style, &t, text, &e);
  spx_render_text (cr, style, x, y, &t, text);
  return e.height;
}

double
spx_render_title_height (cairo_t *cr, const SpxRenderStyle *style,
                         const SpxTextOpts *opts, double max_width,
                         const char *text)
{
  SpxTextOpts t = title_opts (opts, max_width);
  SpxTextExtent e;
  spx_render_text_extent (cr, style, &t, text, &e);
  return e.height;
}

const char *
spx_render_title_text (const SpxRenderStyle *style, const char *own)
{
  return style->title != NULL && *style->title != '\0' ? style->title : own;
}

double
spx_render_text_width (cairo_t *cr, const SpxRenderStyle *style, double size,
                       const char *text, double *h)
{
  PangoLayout *layout = layout_new (cr, style, size, FALSE, text);
  int w, hh;
  pango_layout_get_pixel_size (layout, &w, &hh);
  g_object_unref (layout);
  if (h != NULL)
    *h = hh;
  return w;
}

guint
spx_render_nice_ticks (double lo, double hi, guint max_ticks, double *ticks)
{
  if (!(hi > lo) || max_ticks < 2 || !isfinite (lo) || !isfinite (hi))
    {
      ticks[0] = lo;
      return 1;
    }
  double raw = (hi - lo) / (max_ticks - 1);
  double mag = pow (10, floor (log10 (raw)));
  double step = mag;
  static const double steps[] = { 1, 2, 2.5, 5, 10 };
  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    if (steps[i] * mag >= raw)
      {
        step = steps[i] * mag;
        break;
      }
  guint n = 0;
  for (double v = ceil (lo / step - 1e-9) * step; v <= hi + step * 1e-9 &&
       n < max_ticks + 2; v += step)
    ticks[n++] = fabs (v) < step * 1e-9 ? 0 : v;
  return n;
}

static char *
format_scaled (double v, const char *const *units, double base, guint n_units)
{
  guint u = 0;
  double a = fabs (v);
  while (a >= base && u + 1 < n_units)
    {
      a /= base;
      v /= base;
      u++;
    }
  if (a == 0 || a >= 100 || (u == 0 && a == floor (a)))
    return g_strdup_printf ("%.0f%s", v, units[u]);
  if (a >= 10)
    return g_strdup_printf ("%.1f%s", v, units[u]);
  return g_strdup_printf ("%.3g%s", v, units[u]);
}

char *
spx_render_format_count (double value)
{
  static const char *const units[] = { "", "k", "M", "G", "T" };
  return format_scaled (value, units, 1000, G_N_ELEMENTS (units));
}

char *
spx_render_format_bytes (double value)
{
  static const char *const units[] = { " B", " KiB", " MiB", " GiB" };
  return format_scaled (value, units, 1024, G_N_ELEMENTS (units));
}

void
spx_render_colour_bar (cairo_t *cr, const SpxRenderStyle *style, double x,
                       double y, double w, double h, const char *title,
                       const char *lo, const char *hi)
{
  double th;
  spx_render_text_width (cr, style, 0.9, "Ag", &th);
  double bar_y = y + th + 2, bar_h = MAX (4, h - 2 * (th + 2));
  cairo_pattern_t *grad = cairo_pattern_create_linear (x, 0, x + w, 0);
  for (guint i = 0; i <= 8; i++)
    {
      SpxRgb c = spx_render_heat (style, i / 8.0);
      cairo_pattern_add_color_stop_rgb (grad, i / 8.0, c.r, c.g, c.b);
    }
  cairo_save (cr);
  cairo_rectangle (cr, x, bar_y, w, bar_h);
  cairo_set_source (cr, grad);
  cairo_fill_preserve (cr);
  spx_render_set_rgb (cr, style->muted);
  cairo_set_line_width (cr, 1);
  cairo_stroke (cr);
  cairo_restore (cr);
  cairo_pattern_destroy (grad);
  SpxTextOpts t = { .size = 0.9 };
  spx_render_text (cr, style, x, y, &t, title);
  spx_render_text (cr, style, x, bar_y + bar_h + 2, &t, lo);
  t.ax = 1;
  spx_render_text (cr, style, x + w, bar_y + bar_h + 2, &t, hi);
}

void
spx_render_placeholder (cairo_t *cr, const SpxRenderStyle *style,
                        double width, double height, const char *message)
{
  SpxTextOpts t = { .size = 1.2, .ax = 0.5, .ay = 0.5,
                    .colour = style->muted, .use_colour = TRUE };
  spx_render_text (cr, style, width / 2, height / 2, &t, message);
}

/* ---- the looks of a mark ------------------------------------------- */

/* The current path filled with fill and outlined with line. */
static void
fill_and_outline (cairo_t *cr, SpxRgb fill, double width, SpxRgb line)
{
  cairo_save (cr);
  cairo_set_dash (cr, NULL, 0, 0);
  spx_render_set_rgb (cr, fill);
  cairo_fill_preserve (cr);
  cairo_set_line_width (cr, width);
  spx_render_set_rgb (cr, line);
  cairo_stroke (cr);
  cairo_restore (cr);
}

void
spx_render_look_plain (cairo_t *cr, const SpxRenderStyle *style,
                       SpxRgb colour)
{
  fill_and_outline (cr, colour, 1, style->background);
}

void
spx_render_look_noisy (cairo_t *cr, const SpxRenderStyle *style,
                       SpxRgb colour)
{
  fill_and_outline (cr, style->panel, 1.5, colour);
}

/* An × in the alert colour (the Tiles view's cross, the Timeline's
 * "over memory") reaching well past the mark, then the mark filled over
 * it: the arms show on any fill and the fill keeps its colour. */
void
spx_render_look_over_memory (cairo_t *cr, const SpxRenderStyle *style,
                             SpxRgb colour)
{
  double x0, y0, x1, y1;
  cairo_path_extents (cr, &x0, &y0, &x1, &y1);
  cairo_path_t *mark = cairo_copy_path (cr);
  cairo_new_path (cr);
  double cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
  double r = 0.5 * MAX (x1 - x0, y1 - y0) + 4;
  cairo_save (cr);
  cairo_set_dash (cr, NULL, 0, 0);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  cairo_move_to (cr, cx - r, cy - r);
  cairo_line_to (cr, cx + r, cy + r);
  cairo_move_to (cr, cx - r, cy + r);
  cairo_line_to (cr, cx + r, cy - r);
  cairo_set_line_width (cr, 1.6);
  spx_render_set_rgb (cr, style->alert);
  cairo_stroke (cr);
  cairo_restore (cr);
  cairo_append_path (cr, mark);
  cairo_path_destroy (mark);
  spx_render_look_plain (cr, style, colour);
}

/* Washed with colour, diagonal lines 4 pixels apart inside, and the
 * outline. */
void
spx_render_look_keep_dense (cairo_t *cr, const SpxRenderStyle *style,
                            SpxRgb colour)
{
  double x0, y0, x1, y1;
  cairo_path_extents (cr, &x0, &y0, &x1, &y1);
  cairo_path_t *outline = cairo_copy_path (cr);
  cairo_save (cr);
  cairo_set_dash (cr, NULL, 0, 0);
  cairo_clip_preserve (cr);
  spx_render_set_rgba (cr, colour, 0.12);
  cairo_fill (cr);
  double h = y1 - y0;
  for (double x = x0 - h; x < x1; x += 4)
    {
      cairo_move_to (cr, x, y1);
      cairo_line_to (cr, x + h, y0);
    }
  cairo_set_line_width (cr, 1);
  spx_render_set_rgb (cr, colour);
  cairo_stroke (cr);
  cairo_restore (cr); /* the caller's clip again */
  cairo_save (cr);
  cairo_set_dash (cr, NULL, 0, 0);
  cairo_append_path (cr, outline);
  cairo_set_line_width (cr, 1.5);
  spx_render_set_rgb (cr, colour);
  cairo_stroke (cr);
  cairo_restore (cr);
  cairo_path_destroy (outline);
}
