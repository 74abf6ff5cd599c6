/* spx-network.h: a pruned network's weights as a list of entries, each a
 * tensor (or a mask file) that is a layer or is skipped with the reason.
 * Three sources, through core's format table like every mask file:
 *   - a safetensors file (header read, the file kept open: only the
 *     tensors asked for are read);
 *   - a NumPy .npz archive (numpy.savez, savez_compressed) through libzip;
 *   - a folder: every file in it, recursively, that a row of the table
 *     reads (a mask file, or a network file whose entries are then named
 *     "FILE/TENSOR").
 * A layer is a 2-D tensor, its non-zero pattern the mask; a 4-D
 * convolution weight [out, in, kh, kw] is viewed as [out, in·kh·kw]. */
#pragma once

#include "spx-mask.h"

G_BEGIN_DECLS

/* Dimensions an entry may have; more is listed as skipped. */
#define SPX_NETWORK_MAX_DIMS 8

typedef struct {
  char    *name;     /* tensor or member name; a folder's: the path from
                        the folder ("0.9/ffn_conv1.smtx"), '/'-separated */
  guint    n_dims;
  guint64  shape[SPX_NETWORK_MAX_DIMS]; /* as stored */
  char     dtype[8]; /* as the file names it: "F16", "BF16", "<f4", "mtx" */
  /* The 2-D view of a layer; 0 × 0 for a skipped entry. */
  guint64  rows, cols;
  /* NULL for a layer; else why it is not one, for the user ("1-D: a
   * bias or a norm", "3-D", "dtype C64 has no zero test here"). */
  char    *skipped;
} SpxNetworkEntry;

typedef struct _SpxNetwork SpxNetwork;

/* A network file (by content, then extension, through the rows that read
 * networks) or a folder. Lists the entries; loads no tensor. A file that
 * lies about itself (offsets past the end, overlapping tensors, a dtype
 * whose size disagrees with its byte range, a shape whose size overflows,
 * a header over the budget) fails with one message naming the file and
 * the tensor (SPX_MASK_ERROR_INVALID, or SPX_BUDGET_ERROR_TOO_LARGE). A
 * mask file on its own is a network of one layer. In a folder, a file
 * that does not open or lies (a dangling link, a FIFO, a device, an
 * unreadable file, a lying network or mask file) is listed as skipped
 * with why, and the rest is read. */
SpxNetwork *spx_network_open (const char *path, GError **error);
void        spx_network_free (SpxNetwork *network);

const char *spx_network_path   (const SpxNetwork *network);
/* The table's row name: "safetensors", "npz", or "folder". */
const char *spx_network_format (const SpxNetwork *network);

guint       spx_network_n_entries (const SpxNetwork *network);
const SpxNetworkEntry *spx_network_entry (const SpxNetwork *network,
                                          guint i);
/* Entries that are layers (not skipped). */
guint       spx_network_n_layers  (const SpxNetwork *network);
/* By name, or -1. */
gint        spx_network_find (const SpxNetwork *network, const char *name);

/* The file entry i is read from (a mask file, or the network file that
 * holds it), and in *tensor (when not NULL) its name in that file, NULL
 * for a mask file: what names the layer for a later read without the
 * network (a scenario's mask file and layer). */
const char *spx_network_entry_file (const SpxNetwork *network, guint i,
                                    const char **tensor);

/* Entry i's element mask (rows × cols, block 1): its non-zero elements
 * (a float's -0 and +0 are zero; NaN is non-zero). A network file that
 * changed since it was opened (its size or its time of change), or that
 * ends before a tensor does, fails with SPX_MASK_ERROR_CHANGED naming it:
 * "FILE: changed while it was read: …". Safe to call from any
 * thread, one call at a time per network or several (the network locks
 * what it must). Polls spx_cancelled. */
SpxMask    *spx_network_load (SpxNetwork *network, guint i, GError **error);

/* How the network views an entry a row listed: rows × cols for a 2-D or
 * 4-D shape, else skipped with why (1-D, a scalar, a zero dimension).
 * For callers of a row's SpxNetworkClass directly (the fuzz harness). */
void        spx_network_entry_view (SpxNetworkEntry *entry);
/* An entry a row made (g_new0, its strings g_malloc'd), freed. */
void        spx_network_entry_free (gpointer entry);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SpxNetwork, spx_network_free)

G_END_DECLS
