/* test-files.h: the files a test makes, read and removed */
#pragma once

#include <glib.h>
#include <glib/gstdio.h>

/* A file's whole contents (the test fails when it cannot be read). */
static inline char *
test_read_all (const char *path)
{
  char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
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
