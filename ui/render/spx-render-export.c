/* spx-render-export.c: one renderer, three file formats. The picture is
 * drawn into memory first, so a cairo failure never reaches the disk and
 * the file is written in one atomic step. */
#include "spx-render-export.h"
#include "spx-util.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <math.h>

#define MAX_SIDE 32767.0 /* cairo's image surface limit, device pixels */

gboolean
spx_export_format_from_path (const char *path, SpxExportFormat *format,
                             GError **error)
{
  if (spx_has_suffix (path, ".png"))
    *format = SPX_EXPORT_PNG;
  else if (spx_has_suffix (path, ".svg"))
    *format = SPX_EXPORT_SVG;
  else if (spx_has_suffix (path, ".pdf"))
    *format = SPX_EXPORT_PDF;
  else
    {
      g_set_error (error, SPX_RENDER_ERROR, SPX_RENDER_ERROR_INVALID,
                   "%s: expected a file name ending in .png, .svg or .pdf",
                   path);
      return FALSE;
    }
  return TRUE;
}

SpxTheme
spx_export_theme_resolve (SpxExportTheme theme, SpxTheme shown)
{
  switch (theme)
    {
    case SPX_EXPORT_THEME_LIGHT:
      return SPX_THEME_LIGHT;
    case SPX_EXPORT_THEME_DARK:
      return SPX_THEME_DARK;
    case SPX_EXPORT_THEME_SHOWN:
    default:
      return shown;
    }
}

/* One side: digits only, in range. */
static gboolean
side_from_string (const char *text, guint min, guint max, guint *value)
{
  guint64 v;
  if (!g_ascii_string_to_unsigned (text, 10, min, max, &v, NULL))
    return FALSE;
  *value = (guint) v;
  return TRUE;
}

gboolean
spx_export_size_from_string (const char *text, guint min, guint max,
                             guint *width, guint *height, GError **error)
{
  g_autoptr (GString) ascii = g_string_new (text);
  g_string_replace (ascii, "×", "x", 0);
  g_auto (GStrv) sides = g_strsplit (ascii->str, "x", -1);
  if (g_strv_length (sides) == 2 &&
      side_from_string (sides[0], min, max, width) &&
      side_from_string (sides[1], min, max, height))
    return TRUE;
  g_set_error (error, SPX_RENDER_ERROR, SPX_RENDER_ERROR_INVALID,
               "expected WIDTHxHEIGHT, each a whole number from %u to %u "
               "(1200x750), got '%s'", min, max, text);
  return FALSE;
}

static cairo_status_t
append (void *closure, const unsigned char *data, unsigned int length)
{
  g_byte_array_append (closure, data, length);
  return CAIRO_STATUS_SUCCESS;
}

static cairo_surface_t *
surface_new (SpxExportFormat format, double w, double h, double scale,
             GByteArray *out)
{
  switch (format)
    {
    case SPX_EXPORT_SVG:
      return cairo_svg_surface_create_for_stream (append, out, w, h);
    case SPX_EXPORT_PDF:
      return cairo_pdf_surface_create_for_stream (append, out, w, h);
    case SPX_EXPORT_PNG:
    default:
      return cairo_image_surface_create (CAIRO_FORMAT_ARGB32,
                                         (int) ceil (w * scale),
                                         (int) ceil (h * scale));
    }
}

GBytes *
spx_render_export_bytes (SpxExportFormat format, double width, double height,
                         double scale, SpxRenderFunc func, gconstpointer data,
                         const SpxRenderStyle *style, GError **error)
{
  if (format != SPX_EXPORT_PNG)
    scale = 1;
  if (!(width >= 1 && height >= 1 && scale > 0 && width * scale <= MAX_SIDE &&
        height * scale <= MAX_SIDE))
    {
      g_set_error (error, SPX_RENDER_ERROR, SPX_RENDER_ERROR_INVALID,
                   "picture of %g × %g at scale %g: expected at least 1 × 1 "
                   "and at most %.0f pixels a side", width, height, scale,
                   MAX_SIDE);
      return NULL;
    }
  GByteArray *out = g_byte_array_new ();
  cairo_surface_t *surface = surface_new (format, width, height, scale, out);
  cairo_t *cr = cairo_create (surface);
  cairo_scale (cr, scale, scale);
  func (cr, width, height, data, style);
  cairo_status_t status = cairo_status (cr);
  cairo_destroy (cr);
  if (status == CAIRO_STATUS_SUCCESS && format == SPX_EXPORT_PNG)
    status = cairo_surface_write_to_png_stream (surface, append, out);
  cairo_surface_finish (surface); /* SVG and PDF write out here */
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);
  if (status != CAIRO_STATUS_SUCCESS || out->len == 0)
    {
      g_set_error (error, SPX_RENDER_ERROR, SPX_RENDER_ERROR_WRITE,
                   "drawing failed: %s", cairo_status_to_string (status));
      g_byte_array_unref (out);
      return NULL;
    }
  return g_byte_array_free_to_bytes (out);
}

gboolean
spx_render_export (const char *path, SpxExportFormat format, double width,
                   double height, double scale, SpxRenderFunc func,
                   gconstpointer data, const SpxRenderStyle *style,
                   SpxSaveFlags flags, GError **error)
{
  GError *local = NULL;
  g_autoptr (GBytes) bytes = spx_render_export_bytes (format, width, height,
                                                      scale, func, data,
                                                      style, &local);
  if (bytes == NULL)
    {
      g_set_error (error, SPX_RENDER_ERROR, local->code, "%s: %s", path,
                   local->message);
      g_error_free (local);
      return FALSE;
    }
  gsize len;
  const char *p = g_bytes_get_data (bytes, &len);
  return spx_save_file (path, p, len, flags, error);
}
