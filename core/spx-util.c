/* spx-util.c: small helpers shared across core */
#include "spx-util.h"

#include <time.h>

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

/* Nanoseconds: small products finish within a microsecond, and
 * g_get_monotonic_time's microseconds would time them as 0. */
double
spx_now_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec * 1e-6;
}
