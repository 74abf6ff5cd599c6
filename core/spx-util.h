/* spx-util.h: small helpers shared across core */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Write data to path atomically (temporary file, then rename); the error
 * names the path. */
gboolean spx_write_file_atomic (const char *path, const char *data,
                                gsize len, GError **error);

/* Monotonic time in milliseconds, for timings reported to users. */
double   spx_now_ms (void);

G_END_DECLS
