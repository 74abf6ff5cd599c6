/* spx-render-png.c: masks as PNG images, through cairo */
#include "spx-render-png.h"
#include "spx-mask-io.h"
#include "spx-util.h"

#include <cairo.h>
#include <string.h>

static const guint8 png_signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };

static gboolean
fail (GError **error, SpxMaskError code, const char *name, const char *fmt, ...)
  G_GNUC_PRINTF (4, 5);

static gboolean
fail (GError **error, SpxMaskError code, const char *name, const char *fmt, ...)
{
  va_list args;
  va_start (args, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, args);
  va_end (args);
  g_set_error (error, SPX_MASK_ERROR, code, "%s: %s", name, msg);
  return FALSE;
}

static guint32
read_be32 (const guint8 *p)
{
  return ((guint32) p[0] << 24) | ((guint32) p[1] << 16) |
         ((guint32) p[2] << 8) | p[3];
}

/* The size sits in the IHDR chunk right after the signature; read it
 * before cairo allocates anything. */
static gboolean
check_header (const char *name, const guint8 *data, gsize len,
              guint32 *width, guint32 *height, GError **error)
{
  if (len < 8 || memcmp (data, png_signature, 8) != 0)
    return fail (error, SPX_MASK_ERROR_FORMAT, name,
                 "byte 0: expected the PNG signature 89 50 4E 47 0D 0A 1A 0A");
  if (len < 8 + 8 + 13 || memcmp (data + 12, "IHDR", 4) != 0 ||
      read_be32 (data + 8) != 13)
    return fail (error, SPX_MASK_ERROR_INVALID, name,
                 "byte 8: expected an IHDR chunk of 13 bytes (file truncated?)");
  *width = read_be32 (data + 16);
  *height = read_be32 (data + 20);
  if (*width == 0 || *height == 0)
    return fail (error, SPX_MASK_ERROR_INVALID, name,
                 "byte 16: expected a non-zero width and height");
  if (*width > SPX_PNG_MAX_SIDE || *height > SPX_PNG_MAX_SIDE ||
      (guint64) *width * *height > SPX_PNG_MAX_PIXELS)
    return fail (error, SPX_MASK_ERROR_TOO_LARGE, name,
                 "byte 16: image of %u×%u pixels is over the limit "
                 "(%u per side, %" G_GUINT64_FORMAT " pixels)", *width, *height,
                 SPX_PNG_MAX_SIDE, SPX_PNG_MAX_PIXELS);
  return TRUE;
}

typedef struct {
  const guint8 *data;
  gsize         len, pos;
} Reader;

static cairo_status_t
read_chunk (void *closure, unsigned char *out, unsigned int length)
{
  Reader *r = closure;
  if (length > r->len - r->pos)
    return CAIRO_STATUS_READ_ERROR;
  memcpy (out, r->data + r->pos, length);
  r->pos += length;
  return CAIRO_STATUS_SUCCESS;
}

/* cairo may hand back other formats (16-bit images in newer versions):
 * paint onto ARGB32 so the pixel rule sees one layout. */
static cairo_surface_t *
to_argb32 (cairo_surface_t *image)
{
  if (cairo_image_surface_get_format (image) == CAIRO_FORMAT_ARGB32)
    return cairo_surface_reference (image);
  int w = cairo_image_surface_get_width (image);
  int h = cairo_image_surface_get_height (image);
  cairo_surface_t *out = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, w, h);
  cairo_t *cr = cairo_create (out);
  cairo_set_source_surface (cr, image, 0, 0);
  cairo_set_operator (cr, CAIRO_OPERATOR_SOURCE);
  cairo_paint (cr);
  cairo_destroy (cr);
  return out;
}

/* Premultiplied ARGB: un-premultiply before judging luminance. */
static gboolean
pixel_is_set (guint32 argb)
{
  guint a = argb >> 24;
  if (a < 128)
    return FALSE;
  guint r = (argb >> 16) & 0xff, g = (argb >> 8) & 0xff, b = argb & 0xff;
  guint lum = (299 * r + 587 * g + 114 * b) / 1000; /* premultiplied */
  return lum * 255 < 128 * a;
}

static void
pixels_to_mask (cairo_surface_t *argb, SpxMask *mask)
{
  const guint8 *pixels = cairo_image_surface_get_data (argb);
  int stride = cairo_image_surface_get_stride (argb);
  for (guint64 y = 0; y < mask->rows; y++)
    {
      const guint32 *row = (const guint32 *) (pixels + y * (guint64) stride);
      for (guint64 x = 0; x < mask->cols; x++)
        if (pixel_is_set (row[x]))
          spx_mask_set (mask, y, x);
    }
}

SpxMask *
spx_mask_load_png_data (const char *name, const guint8 *data, gsize len,
                        GError **error)
{
  guint32 width = 0, height = 0;
  if (!check_header (name, data, len, &width, &height, error))
    return NULL;
  Reader reader = { data, len, 0 };
  cairo_surface_t *image =
    cairo_image_surface_create_from_png_stream (read_chunk, &reader);
  cairo_status_t status = cairo_surface_status (image);
  if (status != CAIRO_STATUS_SUCCESS)
    {
      cairo_surface_destroy (image);
      fail (error, SPX_MASK_ERROR_INVALID, name,
            "byte %" G_GSIZE_FORMAT ": expected a complete PNG image (%s)",
            reader.pos, cairo_status_to_string (status));
      return NULL;
    }
  cairo_surface_t *argb = to_argb32 (image);
  cairo_surface_destroy (image);
  cairo_surface_flush (argb);
  SpxMask *mask = NULL;
  if (cairo_surface_status (argb) == CAIRO_STATUS_SUCCESS)
    mask = spx_mask_new (height, width, 1, error);
  else
    fail (error, SPX_MASK_ERROR_TOO_LARGE, name, "%s",
          cairo_status_to_string (cairo_surface_status (argb)));
  if (mask != NULL)
    pixels_to_mask (argb, mask);
  cairo_surface_destroy (argb);
  return mask;
}

static void
mask_to_pixels (const SpxMask *mask, cairo_surface_t *surface)
{
  guint8 *pixels = cairo_image_surface_get_data (surface);
  int stride = cairo_image_surface_get_stride (surface);
  for (guint64 y = 0; y < mask->rows; y++)
    {
      guint32 *row = (guint32 *) (pixels + y * (guint64) stride);
      guint64 br = y / mask->block;
      for (guint64 x = 0; x < mask->cols; x++)
        row[x] = spx_mask_get (mask, br, x / mask->block) ? 0xff000000u
                                                          : 0xffffffffu;
    }
  cairo_surface_mark_dirty (surface);
}

static cairo_status_t
append_chunk (void *closure, const unsigned char *data, unsigned int length)
{
  g_byte_array_append (closure, data, length);
  return CAIRO_STATUS_SUCCESS;
}

gboolean
spx_mask_save_png (const SpxMask *mask, const char *path, GError **error)
{
  if (mask->rows > SPX_PNG_MAX_SIDE || mask->cols > SPX_PNG_MAX_SIDE ||
      mask->rows * mask->cols > SPX_PNG_MAX_PIXELS)
    return fail (error, SPX_MASK_ERROR_TOO_LARGE, path,
                 "a %" G_GUINT64_FORMAT "×%" G_GUINT64_FORMAT " mask is too "
                 "large for a PNG of one pixel per element (at most %u per "
                 "side)", mask->rows, mask->cols, SPX_PNG_MAX_SIDE);
  cairo_surface_t *surface = cairo_image_surface_create (
    CAIRO_FORMAT_RGB24, (int) mask->cols, (int) mask->rows);
  if (cairo_surface_status (surface) != CAIRO_STATUS_SUCCESS)
    {
      cairo_surface_destroy (surface);
      return fail (error, SPX_MASK_ERROR_TOO_LARGE, path, "out of memory");
    }
  mask_to_pixels (mask, surface);
  g_autoptr (GByteArray) bytes = g_byte_array_new ();
  cairo_status_t status =
    cairo_surface_write_to_png_stream (surface, append_chunk, bytes);
  cairo_surface_destroy (surface);
  if (status != CAIRO_STATUS_SUCCESS)
    return fail (error, SPX_MASK_ERROR_IO, path, "could not encode PNG: %s",
                 cairo_status_to_string (status));
  return spx_write_file_atomic (path, (const char *) bytes->data, bytes->len,
                                error);
}

void
spx_mask_png_register (void)
{
  spx_mask_io_register (SPX_FORMAT_PNG, spx_mask_load_png_data,
                        spx_mask_save_png);
}
