/* test-files.h: the files a test makes, read and removed */
#pragma once

#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

/* A file's whole contents (the test fails when it cannot be read). */
static inline char *
test_read_all (const char *path)
{
  char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

/* The project's README, beside the tests' folder. */
static inline char *
test_read_readme (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..",
                                                 "README.md", NULL);
  return test_read_all (path);
}

/* A test's folder and what is in it, sub-folders too (a link is removed,
 * not followed). */
static inline void
test_remove_folder (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  for (const char *name; d != NULL && (name = g_dir_read_name (d)) != NULL;)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_DIR) &&
          !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
        test_remove_folder (path);
      else
        g_unlink (path);
    }
  g_rmdir (dir);
}

/* A safetensors file holding a U8 matrix called name (rows × cols, its
 * bytes row by row: non-zero bytes are the layer's non-zeros) and a 1-D
 * F32 "bias" of rows zeros: one layer, and an entry that is not one. */
static inline void
test_write_safetensors (const char *path, const char *name, guint rows,
                        guint cols, const guint8 *values)
{
  guint n = rows * cols;
  g_autoptr (GString) header = g_string_new (NULL);
  g_string_printf (header, "{\"%s\": {\"dtype\": \"U8\", \"shape\": [%u, "
                   "%u], \"data_offsets\": [0, %u]}, \"bias\": {\"dtype\": "
                   "\"F32\", \"shape\": [%u], \"data_offsets\": [%u, %u]}}",
                   name, rows, cols, n, rows, n, n + 4 * rows);
  while (header->len % 8 != 0)
    g_string_append_c (header, ' ');
  g_autoptr (GByteArray) file = g_byte_array_new ();
  guint64 len = GUINT64_TO_LE ((guint64) header->len);
  g_byte_array_append (file, (const guint8 *) &len, sizeof len);
  g_byte_array_append (file, (const guint8 *) header->str, header->len);
  g_byte_array_append (file, values, n);
  g_byte_array_set_size (file, file->len + 4 * rows); /* the bias: zeros */
  memset (file->data + file->len - 4 * rows, 0, 4 * rows);
  g_assert_true (g_file_set_contents (path, (const char *) file->data,
                                      file->len, NULL));
}
