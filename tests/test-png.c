/* test-png.c: masks as PNG images (ui/render) and the any-format loader */
#include "spx-mask-io.h"
#include "spx-render-png.h"
#include "spx-util.h"
#include "test-run.h"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

/* tests/data/png-*.png all hold this 8×6 picture in different encodings
 * (made with ImageMagick from one PBM): black pixels are set bits. */
static const char *const expected_rows[] = {
  "X......X",
  ".X......",
  "..XX....",
  "........",
  ".....X..",
  "XXXXXXXX",
};

static void
assert_picture (const SpxMask *mask)
{
  g_assert_cmpuint (mask->rows, ==, 6);
  g_assert_cmpuint (mask->cols, ==, 8);
  for (guint r = 0; r < 6; r++)
    for (guint c = 0; c < 8; c++)
      g_assert_cmpint (spx_mask_get (mask, r, c), ==, expected_rows[r][c] == 'X');
  g_assert_cmpuint (spx_mask_count (mask), ==, 14);
}

static SpxMask *
load_fixture (const char *name, GError **error)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", name, NULL);
  const SpxFormat *format = NULL;
  SpxMask *mask = spx_mask_load (path, &format, error);
  if (mask != NULL)
    g_assert_cmpstr (spx_format_to_string (format), ==, "png");
  return mask;
}

static void
test_encodings (void)
{
  const char *names[] = { "png-grey1.png", "png-grey8.png", "png-palette.png",
                          "png-grey-alpha.png", "png-rgb16.png",
                          "png-interlaced.png" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (SpxMask) mask = load_fixture (names[i], &error);
      g_assert_no_error (error);
      assert_picture (mask);
    }
}

/* 3×1: black at 20% opacity (unset), opaque black (set), white (unset). */
static void
test_alpha_rule (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxMask) mask = load_fixture ("png-alpha.png", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (mask->cols, ==, 3);
  g_assert_false (spx_mask_get (mask, 0, 0));
  g_assert_true (spx_mask_get (mask, 0, 1));
  g_assert_false (spx_mask_get (mask, 0, 2));
}

static void
test_round_trip_blocks (void)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-png-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "m.png", NULL);
  g_autoptr (SpxMask) mask = spx_mask_new (10, 7, 4, NULL);
  spx_mask_set (mask, 0, 0);
  spx_mask_set (mask, 2, 1); /* rows 8-9, cols 4-6: a ragged corner */
  g_autoptr (GError) error = NULL;
  g_assert_true (spx_mask_save (mask, path, SPX_SAVE_DEFAULT, &error));
  g_assert_no_error (error);
  g_autoptr (SpxMask) back = spx_mask_load (path, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (back->rows, ==, 10);
  g_assert_cmpuint (back->cols, ==, 7);
  g_assert_cmpuint (spx_mask_count (back), ==, 16 + 2 * 3);
  g_autoptr (SpxMask) reblocked = spx_mask_to_blocks (back, 4, &error);
  g_assert_true (spx_mask_equal (reblocked, mask));
  g_unlink (path);
  g_rmdir (dir);
}

static void
assert_refused (const guint8 *data, gsize len, int code, const char *needle)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxMask) mask = spx_format_png.load ("x.png", data, len, &error);
  g_assert_null (mask);
  g_assert_error (error, SPX_MASK_ERROR, code);
  g_assert_true (g_str_has_prefix (error->message, "x.png: byte "));
  g_assert_nonnull (strstr (error->message, needle));
}

static void
test_refusals (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data",
                                                 "png-grey8.png", NULL);
  g_autofree guint8 *data = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (path, (char **) &data, &len, NULL));

  assert_refused ((const guint8 *) "hello, world", 12, SPX_MASK_ERROR_FORMAT,
                  "signature");
  assert_refused (data, 4, SPX_MASK_ERROR_FORMAT, "signature");
  assert_refused (data, 20, SPX_MASK_ERROR_INVALID, "IHDR");
  assert_refused (data, len / 2, SPX_MASK_ERROR_INVALID, "complete PNG");

  /* A decompression bomb announces its size up front: refuse it there. */
  g_autofree guint8 *bomb = g_memdup2 (data, len);
  const guint8 huge[8] = { 0, 1, 0x86, 0xa0, 0, 1, 0x86, 0xa0 }; /* 100000² */
  memcpy (bomb + 16, huge, 8);
  assert_refused (bomb, len, SPX_MASK_ERROR_TOO_LARGE, "limit");
  const guint8 zero[4] = { 0, 0, 0, 0 };
  memcpy (bomb + 16, zero, 4);
  assert_refused (bomb, len, SPX_MASK_ERROR_INVALID, "non-zero");
}

static guint8 *
read_fixture (const char *name, gsize *len)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", name,
                                                 NULL);
  guint8 *data = NULL;
  g_assert_true (g_file_get_contents (path, (char **) &data, len, NULL));
  return data;
}

static guint32
be32 (const guint8 *p)
{
  return (guint32) p[0] << 24 | (guint32) p[1] << 16 | (guint32) p[2] << 8 |
         p[3];
}

/* The chunk at pos given the CRC its contents call for, as an encoder
 * would write it. */
static void
seal_chunk (guint8 *data, gsize pos)
{
  guint32 n = be32 (data + pos);
  guint32 crc = (guint32) crc32 (0, data + pos + 4, 4 + n);
  guint8 *at = data + pos + 8 + n;
  at[0] = crc >> 24, at[1] = crc >> 16, at[2] = crc >> 8, at[3] = crc;
}

/* A small file whose header claims 16384² pixels (2^28, within the side
 * and pixel limits): decoding a row at a time takes the mask's 32 MiB
 * of bits and a row, so a budget of 16 MiB refuses it before libpng
 * runs, naming the file and the size; 256 MiB lets it be decoded (and
 * found short of pixels: the data is for 8×6). */
static void
test_budget (void)
{
  gsize len = 0;
  g_autofree guint8 *data = read_fixture ("png-grey8.png", &len);
  const guint8 side[8] = { 0, 0, 0x40, 0, 0, 0, 0x40, 0 }; /* 16384 */
  memcpy (data + 16, side, 8);
  seal_chunk (data, 8);
  g_setenv (SPX_MEMORY_BUDGET_ENV, "16M", TRUE);
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxMask) mask = spx_format_png.load ("x.png", data, len,
                                                  &error);
  g_assert_null (mask);
  g_assert_error (error, SPX_BUDGET_ERROR, SPX_BUDGET_ERROR_TOO_LARGE);
  g_test_message ("%s", error->message);
  g_assert_true (g_str_has_prefix (error->message, "x.png: "));
  g_assert_nonnull (strstr (error->message, "16384×16384"));
  g_assert_nonnull (strstr (error->message, "32.1"));
  g_clear_error (&error);
  g_setenv (SPX_MEMORY_BUDGET_ENV, "256M", TRUE);
  g_assert_null (spx_format_png.load ("x.png", data, len, &error));
  g_test_message ("%s", error->message);
  g_assert_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "corrupt pixel data"));
  g_unsetenv (SPX_MEMORY_BUDGET_ENV);
}

/* Byte offset of the first chunk of that type. */
static gsize
find_chunk (const guint8 *data, gsize len, const char *type)
{
  for (gsize pos = 8; pos + 12 <= len; pos += 12 + be32 (data + pos))
    if (memcmp (data + pos + 4, type, 4) == 0)
      return pos;
  g_assert_not_reached ();
}

/* Data the decoder chokes on is called corrupt, not "out of memory"
 * (what cairo, the decoder before libpng, said); a chunk whose CRC does not
 * match is called damaged, where it is, before decoding. */
static void
test_corrupt (void)
{
  gsize len = 0;
  g_autofree guint8 *data = read_fixture ("png-grey8.png", &len);
  gsize idat = find_chunk (data, len, "IDAT");
  guint32 n = be32 (data + idat);
  for (gsize i = idat + 8; i < idat + 8 + n; i++)
    data[i] ^= 0x5a;
  g_autofree char *where = g_strdup_printf ("byte %" G_GSIZE_FORMAT ": "
                                            "expected the CRC of the IDAT "
                                            "chunk's %u bytes", idat + 8 + n,
                                            n);
  assert_refused (data, len, SPX_MASK_ERROR_INVALID, where);
  assert_refused (data, len, SPX_MASK_ERROR_INVALID, "the file is damaged");
  /* sealed again: the pixels' own stream is what is wrong */
  seal_chunk (data, idat);
  assert_refused (data, len, SPX_MASK_ERROR_INVALID, "not a readable PNG");
  assert_refused (data, len, SPX_MASK_ERROR_INVALID, "corrupt pixel data");
  g_autoptr (GError) error = NULL;
  g_assert_null (spx_format_png.load ("x.png", data, len, &error));
  g_test_message ("%s", error->message);
  g_assert_null (strstr (error->message, "out of memory"));
  g_assert_null (strstr (error->message, "checksum"));

  /* cut inside the pixels: says so before decoding */
  assert_refused (data, idat + 20, SPX_MASK_ERROR_INVALID,
                  "runs past the end of the file");
  /* zeros where a chunk should be: no chunk type, stops there */
  memset (data + idat, 0, len - idat);
  assert_refused (data, len, SPX_MASK_ERROR_INVALID, "four letters");
}

/* A bad IHDR says which field, where and what it may be: the
 * tests/data/hostile/msg-png-* files, then every field edited here, with
 * its CRC sealed and without. */
static void
test_ihdr (void)
{
  static const struct {
    const char *file, *needle;
  } files[] = {
    { "msg-png-width0.png", "byte 16: expected an IHDR width from 1" },
    { "msg-png-depth3.png", "byte 24: expected an IHDR bit depth of 1, 2, 4, "
      "8 or 16 for colour type 0 (greyscale), got 3" },
    { "msg-png-colour5.png", "byte 25: expected an IHDR colour type of 0" },
    { "msg-png-interlace2.png", "byte 28: expected IHDR interlace method 0 "
      "(none) or 1 (Adam7), got 2" },
    { "msg-png-interlace2-bad-crc.png", "got 2 (the chunk's CRC does not "
      "match either: the file is damaged)" },
    { "msg-png-ihdr-bad-crc.png", "byte 29: expected the CRC of the IHDR "
      "chunk's 13 bytes, DB6E8027, got DEADBEEF: the file is damaged" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *name = g_build_filename ("hostile", files[i].file,
                                                NULL);
      gsize len = 0;
      g_autofree guint8 *data = read_fixture (name, &len);
      assert_refused (data, len, SPX_MASK_ERROR_INVALID, files[i].needle);
    }
  static const struct {
    guint byte, value;
    const char *needle;
  } fields[] = { /* png-grey8.png is greyscale at 8 bits */
    { 23, 0, "byte 20: expected an IHDR height from 1" }, /* 6 → 0 */
    { 16, 0x80, "byte 16: expected an IHDR width from 1 to 2^31-1" },
    { 24, 5, "bit depth of 1, 2, 4, 8 or 16" },
    { 26, 1, "byte 26: expected IHDR compression method 0" },
    { 27, 1, "byte 27: expected IHDR filter method 0, got 1" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    for (guint sealed = 0; sealed < 2; sealed++)
      {
        gsize len = 0;
        g_autofree guint8 *data = read_fixture ("png-grey8.png", &len);
        data[fields[i].byte] = (guint8) fields[i].value;
        if (sealed)
          seal_chunk (data, 8);
        g_autoptr (GError) error = NULL;
        g_assert_null (spx_format_png.load ("x.png", data, len, &error));
        g_assert_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID);
        g_test_message ("%s", error->message);
        g_assert_nonnull (strstr (error->message, fields[i].needle));
        g_assert_true (sealed == (strstr (error->message, "damaged") == NULL));
      }
  /* the depths allowed depend on the colour type */
  gsize len = 0;
  g_autofree guint8 *data = read_fixture ("png-grey8.png", &len);
  data[24] = 16;
  data[25] = 3;
  seal_chunk (data, 8);
  assert_refused (data, len, SPX_MASK_ERROR_INVALID, "byte 24: expected an "
                  "IHDR bit depth of 1, 2, 4 or 8 for colour type 3 "
                  "(palette), got 16");
}

static void
assert_load_refused (const char *path, const char *why)
{
  g_autoptr (GError) error = NULL;
  g_assert_null (spx_mask_load (path, NULL, &error));
  g_assert_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_IO);
  g_assert_true (g_str_has_prefix (error->message, path));
  g_assert_nonnull (strstr (error->message, why));
}

/* PNG goes through spx_mask_load like the rest: only regular files. The
 * FIFO is tried in a subprocess with a time limit, as opening one could
 * wait for ever. */
static void
test_not_regular (void)
{
  if (g_test_subprocess ())
    {
      assert_load_refused (g_getenv ("SPX_TEST_FIFO"),
                           "is not a regular file (a FIFO)");
      return;
    }
  g_autofree char *dir = g_dir_make_tmp ("spx-png-XXXXXX", NULL);
  g_autofree char *sub = g_build_filename (dir, "d.png", NULL);
  g_autofree char *fifo = g_build_filename (dir, "f.png", NULL);
  g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
  assert_load_refused (sub, "is a directory");
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_setenv ("SPX_TEST_FIFO", fifo, TRUE);
  g_test_trap_subprocess (NULL, 5 * G_USEC_PER_SEC,
                          G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
  g_unsetenv ("SPX_TEST_FIFO");
  g_unlink (fifo);
  g_rmdir (sub);
  g_rmdir (dir);
}

/* A cancelled load stops in the decoder's reads. */
static void
test_cancelled (void)
{
  gsize len = 0;
  g_autofree guint8 *data = read_fixture ("png-grey8.png", &len);
  g_autoptr (GCancellable) cancel = g_cancellable_new ();
  g_cancellable_cancel (cancel);
  g_cancellable_push_current (cancel);
  g_autoptr (GError) error = NULL;
  g_assert_null (spx_format_png.load ("x.png", data, len, &error));
  g_assert_error (error, SPX_BUDGET_ERROR, SPX_BUDGET_ERROR_CANCELLED);
  g_cancellable_pop_current (cancel);
}

/* ---- images made here ------------------------------------------------ */

static void
append_chunk (GByteArray *png, const char *type, const guint8 *data,
              guint32 n)
{
  gsize pos = png->len;
  const guint8 length[4] = { n >> 24, n >> 16, n >> 8, n };
  const guint8 crc[4] = { 0 };
  g_byte_array_append (png, length, 4);
  g_byte_array_append (png, (const guint8 *) type, 4);
  if (n > 0)
    g_byte_array_append (png, data, n);
  g_byte_array_append (png, crc, 4);
  seal_chunk (png->data, pos);
}

/* A PNG around scanlines (each with its filter byte), deflated here. */
static GByteArray *
make_png (guint32 width, guint32 height, guint8 depth, guint8 colour,
          guint8 interlace, const GByteArray *scanlines)
{
  GByteArray *png = g_byte_array_new ();
  g_byte_array_append (png, (const guint8 *) "\x89PNG\r\n\x1a\n", 8);
  const guint8 ihdr[13] = { width >> 24, width >> 16, width >> 8, width,
                            height >> 24, height >> 16, height >> 8, height,
                            depth, colour, 0, 0, interlace };
  append_chunk (png, "IHDR", ihdr, 13);
  uLongf zlen = compressBound (scanlines->len);
  g_autofree guint8 *z = g_malloc (zlen);
  g_assert_cmpint (compress2 (z, &zlen, scanlines->data, scanlines->len, 9),
                   ==, Z_OK);
  append_chunk (png, "IDAT", z, (guint32) zlen);
  append_chunk (png, "IEND", NULL, 0);
  return png;
}

/* Adam7's passes: first column and row, column and row steps. */
static const guint adam7[7][4] = {
  { 0, 0, 8, 8 }, { 4, 0, 8, 8 }, { 0, 4, 4, 8 }, { 2, 0, 4, 4 },
  { 0, 2, 2, 4 }, { 1, 0, 2, 2 }, { 0, 1, 1, 2 },
};

/* 8-bit RGBA pixels as unfiltered scanlines, in rows or in Adam7's passes
 * (a pass with no pixels has no scanlines). */
static GByteArray *
rgba_scanlines (const guint8 *rgba, guint w, guint h, gboolean interlaced)
{
  GByteArray *raw = g_byte_array_new ();
  const guint8 filter = 0;
  for (guint p = 0; p < (interlaced ? 7u : 1u); p++)
    {
      guint x0 = interlaced ? adam7[p][0] : 0, y0 = interlaced ? adam7[p][1] : 0;
      guint dx = interlaced ? adam7[p][2] : 1, dy = interlaced ? adam7[p][3] : 1;
      for (guint y = y0; x0 < w && y < h; y += dy)
        {
          g_byte_array_append (raw, &filter, 1);
          for (guint x = x0; x < w; x += dx)
            g_byte_array_append (raw, rgba + 4 * (y * w + x), 4);
        }
    }
  return raw;
}

static SpxMask *
load_bytes (const GByteArray *png)
{
  g_autoptr (GError) error = NULL;
  SpxMask *mask = spx_format_png.load ("made.png", png->data, png->len,
                                       &error);
  g_assert_no_error (error);
  return mask;
}

/* The rule on straight (not premultiplied) alpha: grey 128 at alpha 128
 * is not dark (premultiplied, it was counted set), grey 127 is; alpha
 * 127 is not opaque enough. */
static void
test_straight_alpha (void)
{
  /* grey and alpha, 8 bits each */
  const guint8 row[] = { 0, 128, 128, 127, 128, 0, 127, 0, 128 };
  g_autoptr (GByteArray) raw = g_byte_array_new ();
  g_byte_array_append (raw, row, sizeof row);
  g_autoptr (GByteArray) png = make_png (4, 1, 8, 4, 0, raw);
  g_autoptr (SpxMask) mask = load_bytes (png);
  const gboolean want[4] = { FALSE, TRUE, FALSE, TRUE };
  for (guint x = 0; x < 4; x++)
    g_assert_cmpint (spx_mask_get (mask, 0, x), ==, want[x]);
}

/* Random pixels near both thresholds, in rows and interlaced (sizes with
 * empty passes too): both load to the mask the rule gives pixel by
 * pixel, so each interlaced pixel is read in its own pass. */
static void
test_interlaced_pixels (void)
{
  const guint sizes[][2] = { { 1, 1 }, { 3, 2 }, { 5, 9 }, { 13, 11 },
                             { 64, 33 } };
  const guint8 levels[] = { 0, 100, 127, 128, 129, 255 };
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      guint w = sizes[s][0], h = sizes[s][1];
      g_autofree guint8 *rgba = g_malloc (4 * w * h);
      for (guint i = 0; i < 4 * w * h; i++)
        rgba[i] = g_test_rand_bit () ? levels[g_test_rand_int_range (0, 6)]
                                     : (guint8) g_test_rand_int_range (0, 256);
      for (gboolean interlaced = 0; interlaced <= 1; interlaced++)
        {
          g_autoptr (GByteArray) raw = rgba_scanlines (rgba, w, h, interlaced);
          g_autoptr (GByteArray) png = make_png (w, h, 8, 6, interlaced, raw);
          g_autoptr (SpxMask) mask = load_bytes (png);
          for (guint y = 0; y < h; y++)
            for (guint x = 0; x < w; x++)
              {
                const guint8 *p = rgba + 4 * (y * w + x);
                gboolean set = p[3] >= 128 &&
                               299 * p[0] + 587 * p[1] + 114 * p[2] < 128000;
                g_assert_cmpint (spx_mask_get (mask, y, x), ==, set);
              }
        }
    }
}

/* Random masks of awkward shapes and blocks go through a PNG file and
 * come back element for element; the file is 1-bit greyscale. */
static void
test_round_trip_generated (void)
{
  const guint shapes[][3] = { { 1, 1, 1 }, { 1, 9, 1 }, { 7, 8, 1 },
                              { 65, 130, 1 }, { 10, 7, 4 }, { 33, 100, 3 },
                              { 200, 17, 16 }, { 1000, 777, 1 } };
  g_autofree char *dir = g_dir_make_tmp ("spx-png-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "m.png", NULL);
  for (guint s = 0; s < G_N_ELEMENTS (shapes); s++)
    {
      guint rows = shapes[s][0], cols = shapes[s][1], block = shapes[s][2];
      g_autoptr (SpxMask) mask = spx_mask_new (rows, cols, block, NULL);
      for (guint64 br = 0; br < mask->brows; br++)
        for (guint64 bc = 0; bc < mask->bcols; bc++)
          if (g_test_rand_int_range (0, 3) == 0)
            spx_mask_set (mask, br, bc);
      g_autoptr (GError) error = NULL;
      g_assert_true (spx_mask_save (mask, path, SPX_SAVE_DEFAULT, &error));
      gsize len = 0;
      g_autofree guint8 *data = NULL;
      g_assert_true (g_file_get_contents (path, (char **) &data, &len, NULL));
      g_assert_cmpuint (data[24], ==, 1); /* bit depth */
      g_assert_cmpuint (data[25], ==, 0); /* greyscale */
      g_autoptr (SpxMask) back = spx_mask_load (path, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (back->rows, ==, rows);
      g_assert_cmpuint (back->cols, ==, cols);
      for (guint64 r = 0; r < rows; r++)
        for (guint64 c = 0; c < cols; c++)
          g_assert_cmpint (spx_mask_get (back, r, c), ==,
                           spx_mask_get (mask, r / block, c / block));
    }
  g_unlink (path);
  g_rmdir (dir);
}

static void
test_save_errors (void)
{
  g_autoptr (SpxMask) mask = spx_mask_new (4, 4, 1, NULL);
  g_autoptr (GError) error = NULL;
  g_assert_false (spx_mask_save (mask, "/nonexistent-dir/m.png",
                                 SPX_SAVE_DEFAULT, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "/nonexistent-dir/m.png"));
  g_clear_error (&error);
  g_autoptr (SpxMask) wide = spx_mask_new (1, 40000, 1, NULL);
  g_assert_false (spx_format_png.save (wide, "/tmp/never-written.png",
                                       SPX_SAVE_DEFAULT, &error));
  g_assert_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_TOO_LARGE);
  g_assert_false (g_file_test ("/tmp/never-written.png", G_FILE_TEST_EXISTS));
}

/* Once registered, PNG is a row like core's: found by its signature
 * whatever the name, and by its extension, after core's rows (the
 * networks' rows read no mask, so lists of mask formats leave them out). */
/* A colour picture that is not a mask opens thresholded, and says how
 * and how much that changed. Of these 4 × 2 pixels, black, white and a
 * transparent red are a mask's already; red, grey 100, grey 200, black
 * at alpha 128 and white at alpha 254 are not: 5 of 8, 62.5%. */
static const guint8 colour_rgba[] = {
  0, 0, 0, 255,       255, 255, 255, 255, 255, 0, 0, 0,   255, 0, 0, 255,
  100, 100, 100, 255, 200, 200, 200, 255, 0, 0, 0, 128,   255, 255, 255, 254,
};
#define COLOUR_WARNING "not a two-level mask: 62.5% of its pixels (5 of 8) " \
  "are neither black, white nor transparent and were thresholded: set " \
  "where alpha ≥ 128 and luminance (299 R + 587 G + 114 B) / 1000 < 128"

static void
test_thresholded (void)
{
  g_autoptr (GByteArray) raw = rgba_scanlines (colour_rgba, 4, 2, FALSE);
  g_autoptr (GByteArray) png = make_png (4, 2, 8, 6, 0, raw);
  g_autoptr (SpxMask) mask = load_bytes (png);
  /* set: opaque enough and dark (red is, at 299 × 255 / 1000) */
  const char *const rows[] = { "X..X", "X.X." };
  for (guint y = 0; y < 2; y++)
    for (guint x = 0; x < 4; x++)
      g_assert_cmpint (spx_mask_get (mask, y, x), ==, rows[y][x] == 'X');
  g_autofree char *warning = spx_mask_io_take_warning ();
  g_assert_cmpstr (warning, ==, "made.png: " COLOUR_WARNING);
  g_assert_null (spx_mask_io_take_warning ()); /* taken */

  /* a mask's own pixels: nothing to say, and spx_mask_load forgets an
   * earlier file's warning */
  g_autoptr (SpxMask) again = load_bytes (png);
  g_autoptr (GError) error = NULL;
  g_autofree char *fixture = g_test_build_filename (G_TEST_DIST, "data",
                                                    "png-rgb16.png", NULL);
  g_autoptr (SpxMask) plain = spx_mask_load (fixture, NULL, &error);
  g_assert_no_error (error);
  g_assert_null (spx_mask_io_take_warning ());
}

/* The command line says it on stderr and goes on. */
static void
test_thresholded_cli (void)
{
  g_autoptr (GByteArray) raw = rgba_scanlines (colour_rgba, 4, 2, FALSE);
  g_autoptr (GByteArray) png = make_png (4, 2, 8, 6, 0, raw);
  g_autofree char *dir = g_dir_make_tmp ("spx-test-png-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "photo.png", NULL);
  g_assert_true (g_file_set_contents (path, (const char *) png->data,
                                      png->len, NULL));
  const char *argv[] = { test_binary (), "info", path, NULL };
  int status;
  g_autofree char *err = NULL;
  g_autofree char *out = test_run (argv, NULL, &status, &err);
  g_assert_cmpint (status, ==, 0);
  g_autofree char *want = g_strconcat ("sparse-explorer info: warning: ",
                                       path, ": " COLOUR_WARNING "\n", NULL);
  g_assert_cmpstr (err, ==, want);
  g_assert_nonnull (strstr (out, "non-zeros        4"));
  g_unlink (path);
  g_rmdir (dir);
}

static void
test_registered (void)
{
  static const guint8 head[] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n',
                                 0, 0 };
  g_assert_true (spx_format_detect (head, sizeof head, "x.npy") ==
                 &spx_format_png);
  g_assert_true (spx_format_from_path ("X.PNG") == &spx_format_png);
  g_assert_true (spx_format_lookup ("png") == &spx_format_png);
  spx_mask_png_register (); /* again: nothing changes */
  const SpxFormat *const *all = spx_formats ();
  guint n = 0;
  while (all[n] != NULL)
    n++;
  g_assert_cmpuint (n, ==, 6); /* mtx, smtx, npy, safetensors, npz, png */
  g_assert_true (all[5] == &spx_format_png);
  g_autofree char *named = spx_format_list (SPX_FORMAT_READS_MASK, TRUE);
  g_assert_cmpstr (named, ==, "Matrix Market (.mtx), DLMC (.smtx), NumPy "
                   "(.npy) or PNG (.png)");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  spx_mask_png_register ();
  g_test_add_func ("/png/registered", test_registered);
  g_test_add_func ("/png/encodings", test_encodings);
  g_test_add_func ("/png/alpha-rule", test_alpha_rule);
  g_test_add_func ("/png/round-trip-blocks", test_round_trip_blocks);
  g_test_add_func ("/png/round-trip-generated", test_round_trip_generated);
  g_test_add_func ("/png/straight-alpha", test_straight_alpha);
  g_test_add_func ("/png/interlaced-pixels", test_interlaced_pixels);
  g_test_add_func ("/png/refusals", test_refusals);
  g_test_add_func ("/png/save-errors", test_save_errors);
  g_test_add_func ("/png/budget", test_budget);
  g_test_add_func ("/png/corrupt", test_corrupt);
  g_test_add_func ("/png/ihdr", test_ihdr);
  g_test_add_func ("/png/not-regular", test_not_regular);
  g_test_add_func ("/png/cancelled", test_cancelled);
  g_test_add_func ("/png/thresholded", test_thresholded);
  g_test_add_func ("/png/thresholded-cli", test_thresholded_cli);
  return g_test_run ();
}
