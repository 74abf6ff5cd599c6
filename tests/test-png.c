/* test-png.c: masks as PNG images (ui/render) and the any-format loader */
#include "spx-mask-io.h"
#include "spx-render-png.h"

#include <glib/gstdio.h>
#include <string.h>

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
  SpxFormat format = SPX_FORMAT_UNKNOWN;
  SpxMask *mask = spx_mask_load (path, &format, error);
  if (mask != NULL)
    g_assert_cmpint (format, ==, SPX_FORMAT_PNG);
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
  g_assert_true (spx_mask_save (mask, path, &error));
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
  g_autoptr (SpxMask) mask = spx_mask_load_png_data ("x.png", data, len, &error);
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

static void
test_save_errors (void)
{
  g_autoptr (SpxMask) mask = spx_mask_new (4, 4, 1, NULL);
  g_autoptr (GError) error = NULL;
  g_assert_false (spx_mask_save (mask, "/nonexistent-dir/m.png", &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "/nonexistent-dir/m.png"));
  g_clear_error (&error);
  g_autoptr (SpxMask) wide = spx_mask_new (1, 40000, 1, NULL);
  g_assert_false (spx_mask_save_png (wide, "/tmp/never-written.png", &error));
  g_assert_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_TOO_LARGE);
  g_assert_false (g_file_test ("/tmp/never-written.png", G_FILE_TEST_EXISTS));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  spx_mask_png_register ();
  g_test_add_func ("/png/encodings", test_encodings);
  g_test_add_func ("/png/alpha-rule", test_alpha_rule);
  g_test_add_func ("/png/round-trip-blocks", test_round_trip_blocks);
  g_test_add_func ("/png/refusals", test_refusals);
  g_test_add_func ("/png/save-errors", test_save_errors);
  return g_test_run ();
}
