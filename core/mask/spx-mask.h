/* spx-mask.h: a block-sparsity mask, a bitset over a grid of blocks */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Documented limits, checked before any allocation. Within them, what a
 * mask may take is also bounded by the memory budget (spx_memory_budget):
 * a mask over it is refused with SPX_BUDGET_ERROR_TOO_LARGE. */
#define SPX_MASK_MAX_DIM    ((guint64) G_MAXINT32)     /* elements per side */
#define SPX_MASK_MAX_BLOCKS (G_GUINT64_CONSTANT (1) << 34) /* 2 GiB of bits */
#define SPX_MASK_MAX_BLOCK  4096u                      /* block side */

#define SPX_MASK_ERROR (spx_mask_error_quark ())
GQuark spx_mask_error_quark (void);

typedef enum {
  SPX_MASK_ERROR_INVALID,   /* a bad argument or a malformed file */
  SPX_MASK_ERROR_TOO_LARGE, /* beyond a documented limit */
  SPX_MASK_ERROR_FORMAT,    /* a file of a format or variant we refuse */
  SPX_MASK_ERROR_IO,        /* reading or writing failed */
  SPX_MASK_ERROR_CHANGED,   /* a file changed while it was read */
} SpxMaskError;

/* rows x cols elements cut into block x block tiles; the last block-row and
 * block-column are partial when the sides are not multiples of block.
 * Bit (br * bcols + bc) of bits is set when that block is non-zero. */
typedef struct {
  guint64  rows, cols;
  guint    block;
  guint64  brows, bcols;
  guint64  n_words;
  guint64 *bits;
} SpxMask;

/* NULL with SPX_MASK_ERROR_INVALID or _TOO_LARGE (a documented limit), or
 * SPX_BUDGET_ERROR_TOO_LARGE: the message gives the shape and the size.
 * The budget counts the bits of every mask alive with the new one's:
 * several copies of one file's mask must fit together. */
SpxMask  *spx_mask_new        (guint64 rows, guint64 cols, guint block,
                               GError **error);
/* Drops one reference; the last frees the mask. */
void      spx_mask_free       (SpxMask *mask);
/* A copy of its own, or NULL with the error of spx_mask_new. */
SpxMask  *spx_mask_copy       (const SpxMask *mask, GError **error);
/* Another reference to mask, for holders that keep it as it is (a
 * study and its copies, undo steps): a mask that may be shared is never
 * changed; spx_mask_unshare first. Costs no memory. */
SpxMask  *spx_mask_ref        (const SpxMask *mask);
/* Before changing *mask: when another holder shares it, *mask becomes a
 * copy (one reference given up). FALSE with the copy's error, *mask as
 * it was. */
gboolean  spx_mask_unshare    (SpxMask **mask, GError **error);
/* The bytes the bits of all masks alive take now. */
guint64   spx_mask_held_bytes (void);
gboolean  spx_mask_equal      (const SpxMask *a, const SpxMask *b);
void      spx_mask_clear_all  (SpxMask *mask);
void      spx_mask_fill       (SpxMask *mask);

static inline guint64
spx_mask_index (const SpxMask *mask, guint64 br, guint64 bc)
{
  return br * mask->bcols + bc;
}

static inline gboolean
spx_mask_get (const SpxMask *mask, guint64 br, guint64 bc)
{
  guint64 i = spx_mask_index (mask, br, bc);
  return (mask->bits[i >> 6] >> (i & 63)) & 1;
}

static inline void
spx_mask_set (SpxMask *mask, guint64 br, guint64 bc)
{
  guint64 i = spx_mask_index (mask, br, bc);
  mask->bits[i >> 6] |= G_GUINT64_CONSTANT (1) << (i & 63);
}

static inline void
spx_mask_clear (SpxMask *mask, guint64 br, guint64 bc)
{
  guint64 i = spx_mask_index (mask, br, bc);
  mask->bits[i >> 6] &= ~(G_GUINT64_CONSTANT (1) << (i & 63));
}

static inline void
spx_mask_toggle (SpxMask *mask, guint64 br, guint64 bc)
{
  guint64 i = spx_mask_index (mask, br, bc);
  mask->bits[i >> 6] ^= G_GUINT64_CONSTANT (1) << (i & 63);
}

/* Flat-index forms, for generators that think of the grid as one line. */
static inline gboolean
spx_mask_get_flat (const SpxMask *mask, guint64 i)
{
  return (mask->bits[i >> 6] >> (i & 63)) & 1;
}

static inline void
spx_mask_set_flat (SpxMask *mask, guint64 i)
{
  mask->bits[i >> 6] |= G_GUINT64_CONSTANT (1) << (i & 63);
}

static inline guint64
spx_mask_n_blocks (const SpxMask *mask)
{
  return mask->brows * mask->bcols;
}

guint64   spx_mask_count          (const SpxMask *mask);
guint64   spx_mask_count_row      (const SpxMask *mask, guint64 br);
/* Elements covered by non-zero blocks (partial edge blocks count less). */
guint64   spx_mask_count_elements (const SpxMask *mask);
/* Height and width in elements of block-row br and block-column bc. */
guint     spx_mask_block_height   (const SpxMask *mask, guint64 br);
guint     spx_mask_block_width    (const SpxMask *mask, guint64 bc);

/* Iterate over non-zero blocks in row-major order:
 *   SpxMaskIter it; guint64 br, bc;
 *   spx_mask_iter_init (&it, mask);
 *   while (spx_mask_iter_next (&it, &br, &bc)) ...            */
typedef struct {
  const SpxMask *mask;
  guint64        next;
  guint64        row, row_start; /* the last block's row, and its index */
} SpxMaskIter;

void      spx_mask_iter_init (SpxMaskIter *iter, const SpxMask *mask);
gboolean  spx_mask_iter_next (SpxMaskIter *iter, guint64 *br, guint64 *bc);

/* Re-block: a block of the result is non-zero when any element it covers
 * is non-zero in mask. Works from any block size to any other (the same
 * one gives a copy). Polls spx_cancelled: NULL with
 * SPX_BUDGET_ERROR_CANCELLED when the caller gave up. */
SpxMask  *spx_mask_to_blocks (const SpxMask *mask, guint block, GError **error);
/* mask at block, to be kept as it is: mask itself (spx_mask_ref) when it
 * has that block already, else spx_mask_to_blocks. */
SpxMask  *spx_mask_at_block  (const SpxMask *mask, guint block,
                              GError **error);

/* Statistics */
typedef struct {
  double min, mean, max, stddev;
} SpxSummary;

typedef struct {
  guint64    nonzero_blocks;
  guint64    total_blocks;
  guint64    nnz_elements;
  double     block_density;
  double     element_density;
  SpxSummary blocks_per_row;
  SpxSummary blocks_per_col;
} SpxMaskStats;

/* Needs no memory in proportion to the mask (a few hundred KiB at most)
 * and one pass over its words, so it cannot fail, and an empty mask of
 * 2^31 block-columns costs no more than reading its bits. */
void      spx_mask_stats (const SpxMask *mask, SpxMaskStats *stats);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SpxMask, spx_mask_free)

G_END_DECLS
