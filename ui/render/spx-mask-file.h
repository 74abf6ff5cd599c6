/* spx-mask-file.h: load and save masks in every format, PNG included.
 * The command line and the window both go through here. */
#pragma once

#include "spx-mask-io.h"

G_BEGIN_DECLS

/* Detects the format from the content and returns an element mask. */
SpxMask  *spx_mask_file_load (const char *path, SpxFormat *format,
                              GError **error);
/* Chooses the format from the extension: .mtx, .smtx, .npy, .png. */
gboolean  spx_mask_file_save (const SpxMask *mask, const char *path,
                              GError **error);

G_END_DECLS
