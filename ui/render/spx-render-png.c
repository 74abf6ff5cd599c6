/* spx-render-png.c: masks as PNG images, through cairo */
#include "spx-render-png.h"
#include "spx-mask-io.h"
#include "spx-util.h"

#include <cairo.h>
#include <string.h>
#include <zlib.h>

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

/* What the IHDR chunk right after the signature says; read before cairo
 * allocates anything. */
typedef struct {
  guint32 width, height;
  guint   depth; /* bits per channel */
} Header;

/* The IHDR fields, by their byte in the file. */
enum {
  IHDR_WIDTH = 16, IHDR_HEIGHT = 20, IHDR_DEPTH = 24, IHDR_COLOUR = 25,
  IHDR_COMPRESSION = 26, IHDR_FILTER = 27, IHDR_INTERLACE = 28, IHDR_CRC = 29,
};

/* The CRC a chunk of n data bytes at pos should carry, and the one it
 * does. */
static gboolean
chunk_crc_ok (const guint8 *data, gsize pos, guint32 n, guint32 *want,
              guint32 *got)
{
  *want = (guint32) crc32 (0, data + pos + 4, 4 + n);
  *got = read_be32 (data + pos + 8 + n);
  return *want == *got;
}

/* The colour types and the bit depths each allows (a bit per depth). */
static const struct {
  guint type, depths;
  const char *name, *depth_list;
} colour_types[] = {
  { 0, 1 << 1 | 1 << 2 | 1 << 4 | 1 << 8 | 1 << 16, "greyscale",
    "1, 2, 4, 8 or 16" },
  { 2, 1 << 8 | 1 << 16, "RGB", "8 or 16" },
  { 3, 1 << 1 | 1 << 2 | 1 << 4 | 1 << 8, "palette", "1, 2, 4 or 8" },
  { 4, 1 << 8 | 1 << 16, "greyscale with alpha", "8 or 16" },
  { 6, 1 << 8 | 1 << 16, "RGBA", "8 or 16" },
};

/* What is wrong with IHDR's fields ("byte N: expected …, got …"), or
 * NULL. */
static char *
ihdr_fault (const guint8 *data)
{
  guint32 width = read_be32 (data + IHDR_WIDTH);
  guint32 height = read_be32 (data + IHDR_HEIGHT);
  guint depth = data[IHDR_DEPTH], type = data[IHDR_COLOUR];
  if (width == 0 || width > G_MAXINT32)
    return g_strdup_printf ("byte %d: expected an IHDR width from 1 to "
                            "2^31-1 (non-zero), got %u", IHDR_WIDTH, width);
  if (height == 0 || height > G_MAXINT32)
    return g_strdup_printf ("byte %d: expected an IHDR height from 1 to "
                            "2^31-1 (non-zero), got %u", IHDR_HEIGHT, height);
  guint c = 0;
  while (c < G_N_ELEMENTS (colour_types) && colour_types[c].type != type)
    c++;
  if (c == G_N_ELEMENTS (colour_types))
    return g_strdup_printf ("byte %d: expected an IHDR colour type of 0 "
                            "(greyscale), 2 (RGB), 3 (palette), 4 "
                            "(greyscale with alpha) or 6 (RGBA), got %u",
                            IHDR_COLOUR, type);
  if (depth > 16 || !(colour_types[c].depths & (1u << depth)))
    return g_strdup_printf ("byte %d: expected an IHDR bit depth of %s for "
                            "colour type %u (%s), got %u", IHDR_DEPTH,
                            colour_types[c].depth_list, type,
                            colour_types[c].name, depth);
  if (data[IHDR_COMPRESSION] != 0)
    return g_strdup_printf ("byte %d: expected IHDR compression method 0 "
                            "(deflate), got %u", IHDR_COMPRESSION,
                            data[IHDR_COMPRESSION]);
  if (data[IHDR_FILTER] != 0)
    return g_strdup_printf ("byte %d: expected IHDR filter method 0, got %u",
                            IHDR_FILTER, data[IHDR_FILTER]);
  if (data[IHDR_INTERLACE] > 1)
    return g_strdup_printf ("byte %d: expected IHDR interlace method 0 "
                            "(none) or 1 (Adam7), got %u", IHDR_INTERLACE,
                            data[IHDR_INTERLACE]);
  return NULL;
}

static gboolean
check_header (const char *name, const guint8 *data, gsize len, Header *h,
              GError **error)
{
  if (len < 8 || memcmp (data, png_signature, 8) != 0)
    return fail (error, SPX_MASK_ERROR_FORMAT, name,
                 "byte 0: expected the PNG signature 89 50 4E 47 0D 0A 1A 0A");
  if (len < 8 + 8 + 13 + 4 || memcmp (data + 12, "IHDR", 4) != 0 ||
      read_be32 (data + 8) != 13)
    return fail (error, SPX_MASK_ERROR_INVALID, name,
                 "byte 8: expected an IHDR chunk of 13 bytes (file truncated?)");
  g_autofree char *fault = ihdr_fault (data);
  guint32 want, got;
  if (fault != NULL)
    /* a field out of range under a CRC that does not match: damage */
    return fail (error, SPX_MASK_ERROR_INVALID, name, "%s%s", fault,
                 chunk_crc_ok (data, 8, 13, &want, &got)
                   ? "" : " (the chunk's CRC does not match either: the "
                          "file is damaged)");
  h->width = read_be32 (data + IHDR_WIDTH);
  h->height = read_be32 (data + IHDR_HEIGHT);
  h->depth = data[IHDR_DEPTH];
  if (h->width > SPX_PNG_MAX_SIDE || h->height > SPX_PNG_MAX_SIDE ||
      (guint64) h->width * h->height > SPX_PNG_MAX_PIXELS)
    return fail (error, SPX_MASK_ERROR_TOO_LARGE, name,
                 "byte 16: image of %u×%u pixels is over the limit "
                 "(%u per side, %" G_GUINT64_FORMAT " pixels)", h->width,
                 h->height, SPX_PNG_MAX_SIDE, SPX_PNG_MAX_PIXELS);
  return TRUE;
}

static gboolean
chunk_type_valid (const guint8 *type)
{
  for (guint i = 0; i < 4; i++)
    if (!g_ascii_isalpha (type[i]))
      return FALSE;
  return TRUE;
}

/* Walks the chunks (length, type, data, CRC) up to IEND, so that a
 * truncated or damaged file is called that before the decoder, whose own
 * errors say little, runs. A type is four letters: anything else (a file
 * of zeros) stops the walk at once. */
static gboolean
check_chunks (const char *name, const guint8 *data, gsize len, GError **error)
{
  gsize pos = 8;
  for (;;)
    {
      if (len - pos < 12)
        return fail (error, SPX_MASK_ERROR_INVALID, name, "byte %"
                     G_GSIZE_FORMAT ": expected a complete PNG image, got the "
                     "end of the file before its IEND chunk", pos);
      guint32 n = read_be32 (data + pos);
      const guint8 *type = data + pos + 4;
      if (!chunk_type_valid (type))
        {
          g_autofree char *got = g_strdup_printf ("%02X %02X %02X %02X",
                                                  type[0], type[1], type[2],
                                                  type[3]);
          return fail (error, SPX_MASK_ERROR_INVALID, name, "byte %"
                       G_GSIZE_FORMAT ": expected a chunk type of four "
                       "letters, got %s", pos + 4, got);
        }
      if (n > G_MAXINT32)
        return fail (error, SPX_MASK_ERROR_INVALID, name, "byte %"
                     G_GSIZE_FORMAT ": expected a chunk length below 2^31, "
                     "got %u", pos, n);
      if (n > len - pos - 12)
        return fail (error, SPX_MASK_ERROR_INVALID, name, "byte %"
                     G_GSIZE_FORMAT ": expected a complete PNG image, but "
                     "the %.4s chunk of %u bytes runs past the end of the "
                     "file (truncated?)", pos, (const char *) type, n);
      guint32 want, got;
      /* critical chunks (an upper-case first letter) must be whole, as
       * libpng requires; it skips damaged ancillary ones */
      if (g_ascii_isupper (type[0]) && !chunk_crc_ok (data, pos, n, &want,
                                                      &got))
        return fail (error, SPX_MASK_ERROR_INVALID, name, "byte %"
                     G_GSIZE_FORMAT ": expected the CRC of the %.4s chunk's "
                     "%u bytes, %08X, got %08X: the file is damaged",
                     pos + 8 + n, (const char *) type, n, want, got);
      if (memcmp (type, "IEND", 4) == 0)
        return TRUE;
      pos += 12 + (gsize) n;
    }
}

/* Bytes the decoding takes at most: cairo's image of 4 bytes a pixel (16
 * bits a channel may come back as 16-byte float pixels in newer cairo,
 * then painted onto 4 bytes) and the mask's bits. */
static guint64
decode_bytes (const Header *h)
{
  guint64 pixels = (guint64) h->width * h->height;
  return pixels * (h->depth == 16 ? 16 + 4 : 4) + pixels / 8;
}

typedef struct {
  const guint8 *data;
  gsize         len, pos;
  gboolean      cancelled;
} Reader;

static cairo_status_t
read_chunk (void *closure, unsigned char *out, unsigned int length)
{
  Reader *r = closure;
  /* cairo reads a chunk at a time: a cancelled load stops here */
  r->cancelled = spx_cancelled (NULL);
  if (r->cancelled || length > r->len - r->pos)
    return CAIRO_STATUS_READ_ERROR;
  memcpy (out, r->data + r->pos, length);
  r->pos += length;
  return CAIRO_STATUS_SUCCESS;
}

/* Pixels as ARGB32 or RGB24, which share a layout; cairo may hand back
 * other formats (16-bit images in newer versions): paint those onto
 * ARGB32. A new reference, whose status tells whether that worked. */
static cairo_surface_t *
to_32bit (cairo_surface_t *image)
{
  cairo_format_t format = cairo_image_surface_get_format (image);
  if (format == CAIRO_FORMAT_ARGB32 || format == CAIRO_FORMAT_RGB24)
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

static gboolean
pixels_to_mask (cairo_surface_t *image, SpxMask *mask, GError **error)
{
  const guint8 *pixels = cairo_image_surface_get_data (image);
  int stride = cairo_image_surface_get_stride (image);
  /* RGB24 leaves the top byte undefined: those pixels are opaque */
  guint32 opaque = cairo_image_surface_get_format (image) ==
                   CAIRO_FORMAT_RGB24 ? 0xff000000u : 0;
  guint64 work = 0;
  for (guint64 y = 0; y < mask->rows; y++)
    {
      const guint32 *row = (const guint32 *) (pixels + y * (guint64) stride);
      for (guint64 x = 0; x < mask->cols; x++)
        if (pixel_is_set (row[x] | opaque))
          spx_mask_set (mask, y, x);
      work += mask->cols;
      if (work < 65536)
        continue;
      work = 0;
      if (spx_cancelled (error))
        return FALSE;
    }
  return TRUE;
}

/* cairo reports libpng's errors as NO_MEMORY (1.16) or PNG_ERROR; the
 * memory was checked against the budget before, so the data is to blame
 * and "out of memory" would mislead. */
static void
decode_error (const char *name, const Reader *r, cairo_status_t status,
              GError **error)
{
  const char *why = status == CAIRO_STATUS_NO_MEMORY ||
                    status == CAIRO_STATUS_PNG_ERROR ||
                    status == CAIRO_STATUS_READ_ERROR
                    ? "corrupt pixel data: a damaged compressed stream or "
                      "row filter before this byte"
                    : cairo_status_to_string (status);
  fail (error, SPX_MASK_ERROR_INVALID, name, "byte %" G_GSIZE_FORMAT
        ": not a readable PNG image (%s)", r->pos, why);
}

/* The decoded pixels, 32 bits each, or NULL with an error. */
static cairo_surface_t *
decode (const char *name, const guint8 *data, gsize len, GError **error)
{
  Reader reader = { data, len, 0, FALSE };
  cairo_surface_t *image =
    cairo_image_surface_create_from_png_stream (read_chunk, &reader);
  cairo_status_t status = cairo_surface_status (image);
  cairo_surface_t *out = status == CAIRO_STATUS_SUCCESS ? to_32bit (image)
                                                        : NULL;
  cairo_surface_destroy (image);
  if (reader.cancelled)
    spx_cancelled (error);
  else if (status != CAIRO_STATUS_SUCCESS)
    decode_error (name, &reader, status, error);
  else if (cairo_surface_status (out) != CAIRO_STATUS_SUCCESS)
    fail (error, SPX_MASK_ERROR_TOO_LARGE, name, "could not convert the "
          "image's pixels (%s)", cairo_status_to_string (
            cairo_surface_status (out)));
  else
    {
      cairo_surface_flush (out);
      return out;
    }
  if (out != NULL)
    cairo_surface_destroy (out);
  return NULL;
}

SpxMask *
spx_mask_load_png_data (const char *name, const guint8 *data, gsize len,
                        GError **error)
{
  Header h = { 0 };
  if (!check_header (name, data, len, &h, error) ||
      !check_chunks (name, data, len, error))
    return NULL;
  /* A few hundred kilobytes may declare a gigabyte of pixels. */
  g_autofree char *what = g_strdup_printf ("%s: an image of %u×%u pixels",
                                           name, h.width, h.height);
  if (!spx_budget_check (decode_bytes (&h), what, error))
    return NULL;
  g_autoptr (SpxMask) mask = spx_mask_new (h.height, h.width, 1, error);
  if (mask == NULL)
    {
      g_prefix_error (error, "%s: ", name);
      return NULL;
    }
  cairo_surface_t *image = decode (name, data, len, error);
  if (image == NULL)
    return NULL;
  gboolean ok = pixels_to_mask (image, mask, error);
  cairo_surface_destroy (image);
  return ok ? g_steal_pointer (&mask) : NULL;
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
spx_mask_save_png (const SpxMask *mask, const char *path, SpxSaveFlags flags,
                   GError **error)
{
  if (mask->rows > SPX_PNG_MAX_SIDE || mask->cols > SPX_PNG_MAX_SIDE ||
      mask->rows * mask->cols > SPX_PNG_MAX_PIXELS)
    return fail (error, SPX_MASK_ERROR_TOO_LARGE, path,
                 "a %" G_GUINT64_FORMAT "×%" G_GUINT64_FORMAT " mask is too "
                 "large for a PNG of one pixel per element (at most %u per "
                 "side)", mask->rows, mask->cols, SPX_PNG_MAX_SIDE);
  /* the image, and its encoding which is smaller */
  if (!spx_budget_check (2 * 4 * mask->rows * mask->cols, path, error))
    return FALSE;
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
  return spx_save_file (path, bytes->data, bytes->len, flags, error);
}

void
spx_mask_png_register (void)
{
  spx_mask_io_register (SPX_FORMAT_PNG, spx_mask_load_png_data,
                        spx_mask_save_png);
}
