/* spx-mask-io.h: mask files through one table of formats, a row per
 * format. Core's rows (.mtx, .smtx, .npy, and the networks' .safetensors
 * and .npz) are defined in their files (spx-mask-io-NAME.c); PNG's lives
 * in ui/render, so that core stays free of graphics, and is registered
 * from there.
 *
 * Adding a format to core: its file (loader, writer, detect, and the row
 * spx_format_NAME at its end); the row in the table (spx-mask-io.c) and
 * its declaration below; its name in core_mask_formats
 * (core/mask/meson.build, which builds it and its fuzz harness). The
 * window, the command line's help and messages follow the table;
 * test-format-table asks for its row in the README's table of formats. */
#pragma once

#include "spx-mask.h"
#include "spx-network.h"
#include "spx-save.h"

G_BEGIN_DECLS

/* What a row can do. Callers pick rows by it (the window's filters, the
 * lists in help and messages), so a new kind of file (a network holding
 * many layers) is a new flag and a new function in the row, not a
 * switch in each caller. */
typedef enum {
  SPX_FORMAT_READS_MASK  = 1 << 0,
  SPX_FORMAT_WRITES_MASK = 1 << 1,
  SPX_FORMAT_READS_NETWORK = 1 << 2, /* many tensors: spx-network.h */
} SpxFormatCaps;

/* Loaders parse a buffer; name is used in error messages ("FILE:LINE: ...",
 * or "FILE: byte N: ..."). All return an element mask (block 1). Besides
 * SPX_MASK_ERROR, a mask over the memory budget fails with
 * SPX_BUDGET_ERROR_TOO_LARGE (spx-util.h), and they poll spx_cancelled:
 * SPX_BUDGET_ERROR_CANCELLED. */
typedef SpxMask *(*SpxMaskLoadFunc) (const char *name, const guint8 *data,
                                     gsize len, GError **error);
/* Writers expand blocks to elements (a block mask is saved as the element
 * mask it stands for) and write with spx_save_file (its errors are
 * SPX_SAVE_ERROR). What is over the memory budget is refused before it
 * is made: SPX_BUDGET_ERROR_TOO_LARGE naming path. */
typedef gboolean (*SpxMaskSaveFunc) (const SpxMask *mask, const char *path,
                                     SpxSaveFlags flags, GError **error);

/* A network file, read by offset and never mapped (a file cut short
 * while it is read fails the read, naming it, instead of raising
 * SIGBUS); what it was when opened is kept, so that a change since is
 * seen. */
typedef struct _SpxIoFile SpxIoFile;

/* path opened (a regular file, or a link to one), named as shown in
 * messages; NULL with SPX_MASK_ERROR_IO. */
SpxIoFile  *spx_io_file_open  (const char *path, const char *shown,
                               GError **error);
/* An open descriptor of a regular file (then owned) so named. */
SpxIoFile  *spx_io_file_new   (int fd, const char *shown, GError **error);
void        spx_io_file_free  (SpxIoFile *file);
const char *spx_io_file_name  (const SpxIoFile *file);
/* Its size when opened. */
guint64     spx_io_file_size  (const SpxIoFile *file);
/* Up to n bytes at offset: *got of them, fewer only where the file ends;
 * FALSE with SPX_MASK_ERROR_IO naming the file when the system fails. */
gboolean    spx_io_file_read_some (SpxIoFile *file, guint64 offset,
                                   void *buf, gsize n, gsize *got,
                                   GError **error);
/* Exactly n bytes at offset, or an error naming the file:
 * SPX_MASK_ERROR_CHANGED when it ends before them (it changed while it
 * was read), SPX_MASK_ERROR_IO when the system fails. */
gboolean    spx_io_file_read  (SpxIoFile *file, guint64 offset, void *buf,
                               gsize n, GError **error);
/* TRUE when its size and time of change are what they were when opened;
 * else SPX_MASK_ERROR_CHANGED: "FILE: changed while it was read: …". */
gboolean    spx_io_file_unchanged (const SpxIoFile *file, GError **error);

/* Tests only: with SPX_TEST_TRUNCATE set to a byte count, a network file
 * is cut to that size right after its header has been checked (the one
 * place is spx_network_open), so that a file shrinking between the
 * header and the tensors is tested without a race. */
#define SPX_IO_TEST_TRUNCATE_ENV "SPX_TEST_TRUNCATE"
void        spx_io_file_test_hook (SpxIoFile *file);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SpxIoFile, spx_io_file_free)

/* A file of many tensors. open reads the header of file (name for
 * messages: spx_io_file_name), which stays open while the handle lives,
 * and appends an entry per tensor to entries (SpxNetworkEntry *, freed
 * by the array's function; none are left when open fails): name,
 * n_dims, shape, dtype, and skipped when its dtype has no zero test; the
 * network then views shapes as rows × cols (4-D as [out, in·kh·kw]) or
 * skips them. load reads entry's element mask (entry->rows ×
 * entry->cols) a piece at a time; the network serialises calls on one
 * handle, and checks that the file has not changed since open. */
typedef struct {
  gpointer (*open)  (SpxIoFile *file, GPtrArray *entries, GError **error);
  SpxMask *(*load)  (gpointer handle, const SpxNetworkEntry *entry,
                     GError **error);
  void     (*close) (gpointer handle);
} SpxNetworkClass;

typedef struct {
  const char *name;  /* "mtx": `info` prints it and scripts read it */
  const char *title; /* "Matrix Market": messages and file filters */
  const char *const *extensions; /* lower case, no dot; NULL-terminated */
  /* TRUE when data is this format's by its content (magic bytes, a
   * banner); data may be the file's first 4 KiB only. Rows are asked in
   * table order, so it must say FALSE to any other format's content.
   * NULL: known by its extension only. */
  gboolean (*detect) (const guint8 *data, gsize len);
  SpxMaskLoadFunc load; /* NULL: holds no mask */
  SpxMaskSaveFunc save; /* NULL: not written */
  const SpxNetworkClass *network; /* NULL: not a network */
} SpxFormat;

/* Core's rows, in the table in this order. */
extern const SpxFormat spx_format_mtx, spx_format_smtx, spx_format_npy,
  spx_format_safetensors, spx_format_npz;

/* A format whose code lives in a higher layer (PNG, through libpng)
 * registers its row here, once, before any thread starts; it comes
 * after core's rows and is then handled like them. Registering a row
 * again does nothing. */
void        spx_format_register  (const SpxFormat *format);

/* Every row, in the order messages list them; NULL-terminated. */
const SpxFormat *const *spx_formats (void);
/* By name ("mtx"), or NULL. */
const SpxFormat *spx_format_lookup (const char *name);
/* NULL-safe: FALSE for no format. */
gboolean    spx_format_can       (const SpxFormat *format, SpxFormatCaps caps);
const char *spx_format_to_string (const SpxFormat *format); /* or "unknown" */

/* The formats that can do caps, for messages and help: ".mtx, .smtx,
 * .npy or .png", or named: "Matrix Market (.mtx), DLMC (.smtx), NumPy
 * (.npy) or PNG (.png)". */
char       *spx_format_list       (SpxFormatCaps caps, gboolean named);
/* Their extensions, each after prefix ("*." for file patterns, "." to
 * show): a NULL-terminated array to g_strfreev. */
char      **spx_format_extensions (SpxFormatCaps caps, const char *prefix);

/* By extension only (for saving): NULL-safe, case-insensitive; NULL for
 * none. */
const SpxFormat *spx_format_from_path (const char *path);
/* By content: magic bytes and banners; the name breaks ties only. */
const SpxFormat *spx_format_detect (const guint8 *data, gsize len,
                                    const char *name);

/* Map the file, detect the format from its content, parse. Only a regular
 * file (or a link to one) is opened: a directory, FIFO or device is
 * refused at once with SPX_MASK_ERROR_IO ("FILE: is a directory, expected
 * a mask file"). Messages name the file as g_filename_display_name shows
 * it (valid UTF-8). A format no row reads (PNG in a program that did not
 * register it) is refused with SPX_MASK_ERROR_FORMAT, and so is a network
 * file (safetensors, .npz), naming its layers' count and where it opens. */
SpxMask *spx_mask_load (const char *path, const SpxFormat **format,
                        GError **error);

/* A loader's warning about a mask it read but had to change (a PNG
 * that is not two-level, thresholded): the loader sets it on the
 * loading thread, spx_mask_load clears it first, and whoever tells the
 * user takes it after (NULL: none). The message names the file. */
void     spx_mask_io_warn         (const char *format, ...)
  G_GNUC_PRINTF (1, 2);
char    *spx_mask_io_take_warning (void);

/* path mapped read-only (a regular file, or a link to one), named as
 * shown in messages; NULL with SPX_MASK_ERROR_IO. Empty files map to
 * length 0. */
GMappedFile *spx_mask_io_map (const char *path, const char *shown,
                              GError **error);

/* By extension, through the row that writes it. */
gboolean spx_mask_save (const SpxMask *mask, const char *path,
                        SpxSaveFlags flags, GError **error);

G_END_DECLS
