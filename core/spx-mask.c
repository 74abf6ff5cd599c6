/* spx-mask.c: the block bitset and its basic operations */
#include "spx-mask.h"

#include <math.h>
#include <string.h>

G_DEFINE_QUARK (spx-mask-error-quark, spx_mask_error)

static inline guint64
div_up (guint64 a, guint64 b)
{
  return a / b + (a % b != 0);
}

/* Bits past the last block in the last word stay zero, so whole-word
 * operations (count, equal) need no special case. */
static void
clear_tail (SpxMask *mask)
{
  guint64 used = spx_mask_n_blocks (mask) & 63;
  if (used != 0)
    mask->bits[mask->n_words - 1] &= (G_GUINT64_CONSTANT (1) << used) - 1;
}

SpxMask *
spx_mask_new (guint64 rows, guint64 cols, guint block, GError **error)
{
  if (rows == 0 || cols == 0)
    {
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
                   "mask size %" G_GUINT64_FORMAT "×%" G_GUINT64_FORMAT
                   ": expected at least one row and one column", rows, cols);
      return NULL;
    }
  if (block == 0 || block > SPX_MASK_MAX_BLOCK)
    {
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
                   "block size %u: expected 1 to %u", block, SPX_MASK_MAX_BLOCK);
      return NULL;
    }
  if (rows > SPX_MASK_MAX_DIM || cols > SPX_MASK_MAX_DIM)
    {
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_TOO_LARGE,
                   "mask size %" G_GUINT64_FORMAT "×%" G_GUINT64_FORMAT
                   ": each side must be at most %" G_GUINT64_FORMAT,
                   rows, cols, SPX_MASK_MAX_DIM);
      return NULL;
    }
  guint64 brows = div_up (rows, block), bcols = div_up (cols, block);
  if (brows * bcols > SPX_MASK_MAX_BLOCKS) /* both < 2^31: no overflow */
    {
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_TOO_LARGE,
                   "mask of %" G_GUINT64_FORMAT "×%" G_GUINT64_FORMAT
                   " blocks: at most %" G_GUINT64_FORMAT " blocks are supported",
                   brows, bcols, SPX_MASK_MAX_BLOCKS);
      return NULL;
    }
  SpxMask *mask = g_new0 (SpxMask, 1);
  mask->rows = rows;
  mask->cols = cols;
  mask->block = block;
  mask->brows = brows;
  mask->bcols = bcols;
  mask->n_words = div_up (brows * bcols, 64);
  mask->bits = g_try_new0 (guint64, mask->n_words);
  if (mask->bits == NULL)
    {
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_TOO_LARGE,
                   "mask of %" G_GUINT64_FORMAT " blocks: out of memory",
                   brows * bcols);
      g_free (mask);
      return NULL;
    }
  return mask;
}

void
spx_mask_free (SpxMask *mask)
{
  if (mask == NULL)
    return;
  g_free (mask->bits);
  g_free (mask);
}

SpxMask *
spx_mask_copy (const SpxMask *mask)
{
  SpxMask *copy = g_memdup2 (mask, sizeof *mask);
  copy->bits = g_memdup2 (mask->bits, mask->n_words * sizeof (guint64));
  return copy;
}

gboolean
spx_mask_equal (const SpxMask *a, const SpxMask *b)
{
  return a->rows == b->rows && a->cols == b->cols && a->block == b->block &&
         memcmp (a->bits, b->bits, a->n_words * sizeof (guint64)) == 0;
}

void
spx_mask_clear_all (SpxMask *mask)
{
  memset (mask->bits, 0, mask->n_words * sizeof (guint64));
}

void
spx_mask_fill (SpxMask *mask)
{
  memset (mask->bits, 0xff, mask->n_words * sizeof (guint64));
  clear_tail (mask);
}

guint64
spx_mask_count (const SpxMask *mask)
{
  guint64 n = 0;
  for (guint64 w = 0; w < mask->n_words; w++)
    n += (guint64) __builtin_popcountll (mask->bits[w]);
  return n;
}

/* Set bits in the flat range [from, to). */
static guint64
count_range (const SpxMask *mask, guint64 from, guint64 to)
{
  guint64 n = 0;
  while (from < to && (from & 63) != 0)
    n += spx_mask_get_flat (mask, from++);
  for (; from + 64 <= to; from += 64)
    n += (guint64) __builtin_popcountll (mask->bits[from >> 6]);
  while (from < to)
    n += spx_mask_get_flat (mask, from++);
  return n;
}

guint64
spx_mask_count_row (const SpxMask *mask, guint64 br)
{
  guint64 start = br * mask->bcols;
  return count_range (mask, start, start + mask->bcols);
}

guint
spx_mask_block_height (const SpxMask *mask, guint64 br)
{
  guint64 rest = mask->rows - br * mask->block;
  return (guint) MIN (rest, (guint64) mask->block);
}

guint
spx_mask_block_width (const SpxMask *mask, guint64 bc)
{
  guint64 rest = mask->cols - bc * mask->block;
  return (guint) MIN (rest, (guint64) mask->block);
}

guint64
spx_mask_count_elements (const SpxMask *mask)
{
  guint64 last_bc = mask->bcols - 1, b = mask->block, n = 0;
  guint64 w_last = spx_mask_block_width (mask, last_bc);
  for (guint64 br = 0; br < mask->brows; br++)
    {
      guint64 in_row = spx_mask_count_row (mask, br);
      if (in_row == 0)
        continue;
      /* Only the last block-column can be narrower than b. */
      guint64 last_set = spx_mask_get (mask, br, last_bc);
      n += spx_mask_block_height (mask, br) *
           ((in_row - last_set) * b + last_set * w_last);
    }
  return n;
}

void
spx_mask_iter_init (SpxMaskIter *iter, const SpxMask *mask)
{
  iter->mask = mask;
  iter->next = 0;
}

gboolean
spx_mask_iter_next (SpxMaskIter *iter, guint64 *br, guint64 *bc)
{
  const SpxMask *mask = iter->mask;
  guint64 total = spx_mask_n_blocks (mask), i = iter->next;
  while (i < total)
    {
      guint64 word = mask->bits[i >> 6] >> (i & 63);
      if (word != 0)
        {
          i += (guint64) __builtin_ctzll (word);
          break;
        }
      i = (i | 63) + 1;
    }
  if (i >= total)
    {
      iter->next = total;
      return FALSE;
    }
  *br = i / mask->bcols;
  *bc = i % mask->bcols;
  iter->next = i + 1;
  return TRUE;
}

SpxMask *
spx_mask_to_blocks (const SpxMask *mask, guint block, GError **error)
{
  SpxMask *out = spx_mask_new (mask->rows, mask->cols, block, error);
  if (out == NULL)
    return NULL;
  SpxMaskIter it;
  guint64 br, bc, b = mask->block;
  spx_mask_iter_init (&it, mask);
  while (spx_mask_iter_next (&it, &br, &bc))
    {
      guint64 r0 = br * b / block;
      guint64 r1 = (br * b + spx_mask_block_height (mask, br) - 1) / block;
      guint64 c0 = bc * b / block;
      guint64 c1 = (bc * b + spx_mask_block_width (mask, bc) - 1) / block;
      for (guint64 r = r0; r <= r1; r++)
        for (guint64 c = c0; c <= c1; c++)
          spx_mask_set (out, r, c);
    }
  return out;
}

/* Two passes (mean, then spread) to keep the variance accurate. */
static void
summarize (const guint32 *counts, guint64 n, SpxSummary *s)
{
  double sum = 0, spread = 0;
  s->min = G_MAXDOUBLE;
  s->max = 0;
  for (guint64 i = 0; i < n; i++)
    {
      s->min = MIN (s->min, (double) counts[i]);
      s->max = MAX (s->max, (double) counts[i]);
      sum += counts[i];
    }
  s->mean = sum / (double) n;
  for (guint64 i = 0; i < n; i++)
    spread += (counts[i] - s->mean) * (counts[i] - s->mean);
  s->stddev = sqrt (spread / (double) n);
}

void
spx_mask_stats (const SpxMask *mask, SpxMaskStats *stats)
{
  memset (stats, 0, sizeof *stats);
  stats->total_blocks = spx_mask_n_blocks (mask);
  stats->nonzero_blocks = spx_mask_count (mask);
  stats->nnz_elements = spx_mask_count_elements (mask);
  stats->block_density =
    (double) stats->nonzero_blocks / (double) stats->total_blocks;
  stats->element_density =
    (double) stats->nnz_elements / ((double) mask->rows * (double) mask->cols);

  /* Counts fit 32 bits: each side has fewer than 2^31 blocks. */
  guint32 *per_row = g_new0 (guint32, mask->brows);
  guint32 *per_col = g_new0 (guint32, mask->bcols);
  SpxMaskIter it;
  guint64 br, bc;
  spx_mask_iter_init (&it, mask);
  while (spx_mask_iter_next (&it, &br, &bc))
    {
      per_row[br]++;
      per_col[bc]++;
    }
  summarize (per_row, mask->brows, &stats->blocks_per_row);
  summarize (per_col, mask->bcols, &stats->blocks_per_col);
  g_free (per_row);
  g_free (per_col);
}
