/* spx-save.h: the one way every file is written, by the window and by
 * the command line */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define SPX_SAVE_ERROR (spx_save_error_quark ())
GQuark spx_save_error_quark (void);

typedef enum {
  SPX_SAVE_ERROR_READ_ONLY,  /* an existing file its user may not write:
                              * ask, then save with REPLACE_READ_ONLY */
  SPX_SAVE_ERROR_NOT_A_FILE, /* a folder, block device or socket */
  SPX_SAVE_ERROR_NO_READER,  /* a FIFO that no program reads */
  SPX_SAVE_ERROR_FAILED,     /* the system's reason is in the message */
} SpxSaveError;

typedef enum {
  SPX_SAVE_DEFAULT = 0,
  SPX_SAVE_REPLACE_READ_ONLY = 1 << 0, /* the user confirmed replacing it */
} SpxSaveFlags;

/* Write len bytes of data to path; a link is followed to its final
 * target and stays a link.
 * - A new file is written beside and renamed into place (0666 less the
 *   umask), so no half-written file ever carries the name.
 * - A regular file is replaced the same way, keeping its owner, group
 *   and mode; a failure leaves the old file whole. When that would split
 *   a hard link or lose the owner or group, the complete new contents
 *   are first written beside it, then over the file in place (the error
 *   then says where the new contents were kept). One whose mode gives
 *   no one write permission (root too is refused), or that its user may
 *   not write, is refused (SPX_SAVE_ERROR_READ_ONLY) unless flags say the
 *   user confirmed; then, written in place, their own file is made
 *   writable for the moment, as editors do.
 * - A FIFO or character device is written into as a stream, never
 *   replaced; a FIFO without a reader is refused at once.
 * - A folder, block device or socket is refused.
 * Every message starts with path. */
gboolean spx_save_file (const char *path, const void *data, gsize len,
                        SpxSaveFlags flags, GError **error);

G_END_DECLS
