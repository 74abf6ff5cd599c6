/* test-dlmc.h: the DLMC collection, which the repository does not hold */
#pragma once

#include <glib.h>

/* The collection's folder: SPX_DLMC_DIR when set (so it can be pointed
 * elsewhere, or nowhere, for one run), else where meson says it is; NULL
 * when that is not a folder. */
static inline const char *
test_dlmc_dir (void)
{
  const char *dir = g_getenv ("SPX_DLMC_DIR");
  if (dir == NULL)
    dir = g_getenv ("SPX_DLMC_DEFAULT");
  return dir != NULL && g_file_test (dir, G_FILE_TEST_IS_DIR) ? dir : NULL;
}
