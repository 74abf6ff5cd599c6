/* spx-mask-io.h: reading and writing mask files (.mtx, .smtx, .npy);
 * PNG lives in ui/render so that core stays free of graphics. */
#pragma once

#include "spx-mask.h"
#include "spx-save.h"

G_BEGIN_DECLS

typedef enum {
  SPX_FORMAT_UNKNOWN,
  SPX_FORMAT_MTX,
  SPX_FORMAT_SMTX,
  SPX_FORMAT_NPY,
  SPX_FORMAT_PNG,
} SpxFormat;

const char *spx_format_to_string (SpxFormat format); /* "mtx", "smtx", ... */
/* The formats this program reads and writes (PNG once registered), for
 * messages and help: ".mtx, .smtx, .npy or .png", or named: "Matrix
 * Market (.mtx), DLMC (.smtx), NumPy (.npy) or PNG (.png)". */
char       *spx_format_list      (gboolean named);
/* By extension only (for saving): NULL-safe, case-insensitive. */
SpxFormat   spx_format_from_path (const char *path);
/* By content: magic bytes and banners; the name breaks ties only. */
SpxFormat   spx_format_detect    (const guint8 *data, gsize len,
                                  const char *name);

/* Loaders parse a buffer; name is used in error messages ("FILE:LINE: ...",
 * or "FILE: byte N: ..."). All return an element mask (block 1). Besides
 * SPX_MASK_ERROR, a mask over the memory budget fails with
 * SPX_BUDGET_ERROR_TOO_LARGE (spx-util.h), and they poll spx_cancelled:
 * SPX_BUDGET_ERROR_CANCELLED. */
SpxMask *spx_mask_load_mtx_data  (const char *name, const guint8 *data,
                                  gsize len, GError **error);
SpxMask *spx_mask_load_smtx_data (const char *name, const guint8 *data,
                                  gsize len, GError **error);
SpxMask *spx_mask_load_npy_data  (const char *name, const guint8 *data,
                                  gsize len, GError **error);

/* A format whose code lives in a higher layer (PNG, through cairo)
 * registers its loader and writer here, once, before any thread starts;
 * spx_mask_load and spx_mask_save then handle it like the others. */
typedef SpxMask *(*SpxMaskLoadFunc) (const char *name, const guint8 *data,
                                     gsize len, GError **error);
typedef gboolean (*SpxMaskSaveFunc) (const SpxMask *mask, const char *path,
                                     SpxSaveFlags flags, GError **error);
void     spx_mask_io_register (SpxFormat format, SpxMaskLoadFunc load,
                               SpxMaskSaveFunc save);

/* Map the file, detect the format from its content, parse. Only a regular
 * file (or a link to one) is opened: a directory, FIFO or device is
 * refused at once with SPX_MASK_ERROR_IO ("FILE: is a directory, expected
 * a mask file"). Messages name the file as g_filename_display_name shows
 * it (valid UTF-8). A format no layer registered (PNG in a program
 * without graphics) is refused with SPX_MASK_ERROR_FORMAT. */
SpxMask *spx_mask_load (const char *path, SpxFormat *format, GError **error);

/* Writers expand blocks to elements (a block mask is saved as the element
 * mask it stands for) and write with spx_save_file (its errors are
 * SPX_SAVE_ERROR). Text over the memory budget is refused before it is
 * made: SPX_BUDGET_ERROR_TOO_LARGE naming path. */
gboolean spx_mask_save_mtx  (const SpxMask *mask, const char *path,
                             SpxSaveFlags flags, GError **error);
gboolean spx_mask_save_smtx (const SpxMask *mask, const char *path,
                             SpxSaveFlags flags, GError **error);
gboolean spx_mask_save_npy  (const SpxMask *mask, const char *path,
                             SpxSaveFlags flags, GError **error);
/* By extension: .mtx, .smtx, .npy, and any format registered. */
gboolean spx_mask_save (const SpxMask *mask, const char *path,
                        SpxSaveFlags flags, GError **error);

G_END_DECLS
