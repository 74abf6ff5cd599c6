/* spx-render-png.c: masks as PNG images, read and written a row at a
 * time with libpng. Nothing here uses cairo (it would decode a whole
 * image at 4 bytes a pixel). */
#include "spx-render-png.h"
#include "spx-util.h"

#include <png.h>
#include <string.h>
#include <zlib.h>

static const guint8 png_signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };

static gboolean
detect_png (const guint8 *data, gsize len)
{
  return len >= sizeof png_signature &&
         memcmp (data, png_signature, sizeof png_signature) == 0;
}

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

/* What the IHDR chunk right after the signature says; read before
 * anything is allocated. */
typedef struct {
  guint32 width, height;
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
  if (!detect_png (data, len))
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

/* ---- decoding, one row at a time -------------------------------------- */

/* libpng's last error message, kept by on_error (its error pointer). */
typedef struct {
  char text[160];
} Complaint;

static void
on_error (png_structp png, png_const_charp message)
{
  Complaint *why = png_get_error_ptr (png);
  g_strlcpy (why->text, message, sizeof why->text);
  png_longjmp (png, 1);
}

/* damaged ancillary chunks are skipped: nothing to tell */
static void
on_warning (png_structp png, png_const_charp message)
{
  (void) png;
  (void) message;
}

/* What the reading callbacks reach. The function that calls setjmp keeps
 * no state in its own locals: libpng's errors longjmp back into it. */
typedef struct {
  const char   *name;
  const guint8 *data;
  gsize         len, pos;
  png_structp   png;
  png_infop     info;
  guint8       *row;   /* one row of 8-bit RGBA pixels */
  SpxMask      *mask;
  guint64       changed; /* pixels neither black, white nor transparent */
  enum { AT_HEADER, AT_ROWS, AT_END } stage;
  Complaint     why;
} Decoder;

static void
read_bytes (png_structp png, png_bytep out, size_t n)
{
  Decoder *d = png_get_io_ptr (png);
  if (n > d->len - d->pos)
    png_error (png, "the file ends before the image does");
  memcpy (out, d->data + d->pos, n);
  d->pos += n;
}

/* Any colour type and depth as 8-bit RGBA, straight alpha; the number of
 * passes to read (7 when interlaced). */
static int
set_transforms (png_structp png, png_infop info)
{
  int type = png_get_color_type (png, info);
  int depth = png_get_bit_depth (png, info);
  if (type == PNG_COLOR_TYPE_PALETTE)
    png_set_palette_to_rgb (png);
  if (type == PNG_COLOR_TYPE_GRAY && depth < 8)
    png_set_expand_gray_1_2_4_to_8 (png);
  if (png_get_valid (png, info, PNG_INFO_tRNS))
    png_set_tRNS_to_alpha (png);
  if (depth == 16) /* the high byte, as cairo took it: masks stay the same */
    png_set_strip_16 (png);
  if (!(type & PNG_COLOR_MASK_COLOR))
    png_set_gray_to_rgb (png);
  png_set_filler (png, 0xff, PNG_FILLER_AFTER);
  int passes = png_set_interlace_handling (png);
  png_read_update_info (png, info);
  if (png_get_rowbytes (png, info) != 4 * (gsize) png_get_image_width (png,
                                                                      info))
    png_error (png, "pixels not converted to 8-bit RGBA");
  return passes;
}

/* The README's rule, on straight alpha: opaque enough, and dark. */
static inline gboolean
pixel_is_set (const guint8 *p)
{
  return p[3] >= 128 && 299u * p[0] + 587u * p[1] + 114u * p[2] < 128000u;
}

/* Already a mask's: transparent, or opaque black or white. Any other
 * pixel is changed by the threshold. */
static inline gboolean
pixel_is_two_level (const guint8 *p)
{
  gboolean black = (p[0] | p[1] | p[2]) == 0;
  gboolean white = (p[0] & p[1] & p[2]) == 0xff;
  return p[3] == 0 || (p[3] == 0xff && (black || white));
}

/* Row by row, pass by pass. An interlaced pass writes only its own pixels
 * into the row ("sparkle"), so only those are judged: each pixel is in
 * one pass. Cancellation is polled first and every 64 Ki pixels. */
static gboolean
read_rows (Decoder *d, int passes, GError **error)
{
  SpxMask *mask = d->mask;
  guint64 work = 65536;
  for (int pass = 0; pass < passes; pass++)
    for (guint64 y = 0; y < mask->rows; y++)
      {
        if (work >= 65536)
          {
            work = 0;
            if (spx_cancelled (error))
              return FALSE;
          }
        png_read_row (d->png, d->row, NULL);
        guint64 x0 = 0, dx = 1;
        if (passes > 1)
          {
            if (!PNG_ROW_IN_INTERLACE_PASS (y, pass))
              continue;
            x0 = PNG_PASS_START_COL (pass);
            dx = PNG_PASS_COL_OFFSET (pass);
          }
        for (guint64 x = x0; x < mask->cols; x += dx)
          {
            const guint8 *px = d->row + 4 * x;
            if (pixel_is_set (px))
              spx_mask_set (mask, y, x);
            d->changed += !pixel_is_two_level (px);
          }
        work += mask->cols / dx + 1;
      }
  return TRUE;
}

/* What libpng refused, in its words, and where its reading had got to:
 * the chunks are whole (checked before), so while it reads rows the
 * compressed stream or a row filter is to blame. */
static gboolean
decode_error (const Decoder *d, GError **error)
{
  return fail (error, SPX_MASK_ERROR_INVALID, d->name, "byte %"
               G_GSIZE_FORMAT ": not a readable PNG image (%s%s)", d->pos,
               d->stage == AT_ROWS ? "corrupt pixel data before this "
                                     "byte: " : "", d->why.text);
}

static gboolean
decode (Decoder *d, GError **error)
{
  if (setjmp (png_jmpbuf (d->png)))
    return decode_error (d, error);
  png_set_read_fn (d->png, d, read_bytes);
  png_set_user_limits (d->png, SPX_PNG_MAX_SIDE, SPX_PNG_MAX_SIDE);
#ifdef PNG_HANDLE_AS_UNKNOWN_SUPPORTED
  /* every ancillary chunk but tRNS is skipped unread: they change nothing
   * here, and some would be inflated */
  png_set_keep_unknown_chunks (d->png, PNG_HANDLE_CHUNK_NEVER, NULL, -1);
#endif
  png_read_info (d->png, d->info);
  int passes = set_transforms (d->png, d->info);
  d->stage = AT_ROWS;
  if (!read_rows (d, passes, error))
    return FALSE;
  d->stage = AT_END;
  png_read_end (d->png, NULL);
  return TRUE;
}

/* An image that is not a mask already (a photo, a drawing smoothed at
 * its edges) still opens, thresholded, and the user is told how and
 * how much of it that changed. */
static void
warn_thresholded (const char *name, guint64 changed, guint64 pixels)
{
  spx_mask_io_warn ("%s: not a two-level mask: %.3g%% of its pixels (%"
                    G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT ") are "
                    "neither black, white nor transparent and were "
                    "thresholded: set where alpha ≥ 128 and luminance "
                    "(299 R + 587 G + 114 B) / 1000 < 128", name,
                    100.0 * (double) changed / (double) pixels, changed,
                    pixels);
}

static SpxMask *
load_png (const char *name, const guint8 *data, gsize len, GError **error)
{
  Header h = { 0 };
  if (!check_header (name, data, len, &h, error) ||
      !check_chunks (name, data, len, error))
    return NULL;
  /* A few hundred kilobytes may declare a gigabyte of pixels: decoding
   * holds the mask's bits and one row of RGBA pixels. */
  guint64 bits = ((guint64) h.width * h.height + 63) / 64 * 8;
  gsize row_bytes = 4 * (gsize) h.width;
  g_autofree char *what = g_strdup_printf ("%s: an image of %u×%u pixels",
                                           name, h.width, h.height);
  if (!spx_budget_check_held (bits + row_bytes, spx_mask_held_bytes (), what,
                              error))
    return NULL;
  g_autoptr (SpxMask) mask = spx_mask_new (h.height, h.width, 1, error);
  if (mask == NULL)
    {
      g_prefix_error (error, "%s: ", name);
      return NULL;
    }
  Decoder d = { .name = name, .data = data, .len = len, .mask = mask };
  d.row = g_malloc0 (row_bytes);
  d.png = png_create_read_struct (PNG_LIBPNG_VER_STRING, &d.why, on_error,
                                  on_warning);
  d.info = d.png != NULL ? png_create_info_struct (d.png) : NULL;
  gboolean ok = d.info != NULL
    ? decode (&d, error)
    : fail (error, SPX_MASK_ERROR_TOO_LARGE, name, "out of memory");
  png_destroy_read_struct (&d.png, &d.info, NULL);
  g_free (d.row);
  if (ok && d.changed > 0)
    warn_thresholded (name, d.changed, mask->rows * mask->cols);
  return ok ? g_steal_pointer (&mask) : NULL;
}

/* ---- encoding: 1-bit grey, one row at a time ------------------------- */

typedef struct {
  const SpxMask *mask;
  png_structp    png;
  png_infop      info;
  guint8        *row;
  GByteArray    *bytes;
  Complaint      why;
} Encoder;

static void
append_bytes (png_structp png, png_bytep data, size_t n)
{
  g_byte_array_append (png_get_io_ptr (png), data, n);
}

static void
flush_nothing (png_structp png)
{
  (void) png;
}

/* Block-row br's elements, most significant bit first: set black (0),
 * unset white (1). */
static void
pack_row (const SpxMask *mask, guint64 br, guint8 *row)
{
  memset (row, 0xff, (mask->cols + 7) / 8);
  for (guint64 x = 0; x < mask->cols; x++)
    if (spx_mask_get (mask, br, x / mask->block))
      row[x / 8] &= (guint8) ~(0x80u >> (x % 8));
}

static gboolean
encode (Encoder *e)
{
  const SpxMask *mask = e->mask;
  if (setjmp (png_jmpbuf (e->png)))
    return FALSE;
  png_set_write_fn (e->png, e->bytes, append_bytes, flush_nothing);
  png_set_IHDR (e->png, e->info, (png_uint_32) mask->cols,
                (png_uint_32) mask->rows, 1, PNG_COLOR_TYPE_GRAY,
                PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                PNG_FILTER_TYPE_DEFAULT);
  png_write_info (e->png, e->info);
  /* the rows of one block-row are the same */
  for (guint64 y = 0; y < mask->rows; y++)
    {
      if (y % mask->block == 0)
        pack_row (mask, y / mask->block, e->row);
      png_write_row (e->png, e->row);
    }
  png_write_end (e->png, NULL);
  return TRUE;
}

static gboolean
save_png (const SpxMask *mask, const char *path, SpxSaveFlags flags,
          GError **error)
{
  if (mask->rows > SPX_PNG_MAX_SIDE || mask->cols > SPX_PNG_MAX_SIDE ||
      mask->rows * mask->cols > SPX_PNG_MAX_PIXELS)
    return fail (error, SPX_MASK_ERROR_TOO_LARGE, path,
                 "a %" G_GUINT64_FORMAT "×%" G_GUINT64_FORMAT " mask is too "
                 "large for a PNG of one pixel per element (at most %u per "
                 "side)", mask->rows, mask->cols, SPX_PNG_MAX_SIDE);
  /* the file: at most its raw rows and a little (deflate's stored blocks,
   * chunk headers), held twice while the buffer grows; and one row */
  gsize row_bytes = (mask->cols + 7) / 8;
  guint64 raw = mask->rows * (1 + row_bytes);
  if (!spx_budget_check (2 * (raw + raw / 256 + 4096) + row_bytes, path,
                         error))
    return FALSE;
  g_autoptr (GByteArray) bytes = g_byte_array_new ();
  Encoder e = { .mask = mask, .bytes = bytes };
  e.row = g_malloc (row_bytes);
  e.png = png_create_write_struct (PNG_LIBPNG_VER_STRING, &e.why, on_error,
                                   on_warning);
  e.info = e.png != NULL ? png_create_info_struct (e.png) : NULL;
  if (e.info == NULL)
    g_strlcpy (e.why.text, "out of memory", sizeof e.why.text);
  gboolean ok = e.info != NULL && encode (&e);
  png_destroy_write_struct (&e.png, &e.info);
  g_free (e.row);
  if (!ok)
    return fail (error, SPX_MASK_ERROR_IO, path, "could not encode PNG: %s",
                 e.why.text);
  return spx_save_file (path, bytes->data, bytes->len, flags, error);
}

const SpxFormat spx_format_png = {
  .name = "png",
  .title = "PNG",
  .extensions = (const char *const[]) { "png", NULL },
  .detect = detect_png,
  .load = load_png,
  .save = save_png,
};

void
spx_mask_png_register (void)
{
  spx_format_register (&spx_format_png);
}
