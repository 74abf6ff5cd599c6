/* spx-util.c: small helpers shared across core */
#include "spx-util.h"

gboolean
spx_write_file_atomic (const char *path, const char *data, gsize len,
                       GError **error)
{
  /* CONSISTENT: write a temporary file and rename it over path, so a
   * failed or interrupted save leaves the old file whole. */
  return g_file_set_contents_full (path, data, (gssize) len,
                                   G_FILE_SET_CONTENTS_CONSISTENT, 0666,
                                   error);
}

double
spx_now_ms (void)
{
  return (double) g_get_monotonic_time () / 1000.0;
}
