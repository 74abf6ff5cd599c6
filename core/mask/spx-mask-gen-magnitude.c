/* spx-mask-gen-magnitude.c: the magnitude pattern, magnitude pruning and
 * the radix selection of the largest keys */
#include "spx-mask-gen-private.h"

#include <string.h>

/* Pattern "magnitude" in spx_mask_generate draws every element: keep that
 * bounded (2^28 normals take a few seconds). */
#define MAGNITUDE_MAX_ELEMENTS (G_GUINT64_CONSTANT (1) << 28)

/* ------------------------------------------------------------------ */
/* Selecting the largest keys                                          */

/* |x| as bits: non-negative floats and doubles order like their bit
 * patterns; NaNs sort above infinity. */
static inline guint64
key_at (const SpxGenKeys *keys, guint64 i)
{
  if (keys->raw != NULL)
    return keys->raw[i];
  if (keys->values != NULL)
    {
      guint32 k;
      memcpy (&k, &keys->values[i], sizeof k);
      return k & 0x7fffffffu;
    }
  guint64 k;
  memcpy (&k, &keys->norms[i], sizeof k);
  return k & ~(G_GUINT64_CONSTANT (1) << 63);
}

static guint
key_bits (const SpxGenKeys *keys)
{
  return keys->values != NULL ? 32 : 64;
}

/* Index of the first NaN key, or n; *at is untouched when cancelled. */
static gboolean
find_nan (const SpxGenKeys *keys, guint64 *at, SpxGen *g)
{
  guint64 inf = keys->values != NULL ? G_GUINT64_CONSTANT (0x7f800000)
                                     : G_GUINT64_CONSTANT (0x7ff0000000000000);
  guint64 found = 0;
  for (guint64 i0 = 0; i0 < keys->n; i0 += SPX_GEN_POLL_WORK)
    {
      guint64 end = MIN (i0 + SPX_GEN_POLL_WORK, keys->n);
      for (guint64 i = i0; i < end; i++)
        found |= key_at (keys, i) > inf;
      if (spx_gen_stop (g, end - i0))
        return FALSE;
    }
  guint64 i = 0;
  while (found && key_at (keys, i) <= inf)
    i++;
  *at = found ? i : keys->n;
  return TRUE;
}

/* One radix pass: how many keys with the given high bits (prefix) have
 * each 16-bit digit at shift. */
static gboolean
histogram (const SpxGenKeys *keys, int shift, guint64 prefix, guint64 *hist,
           SpxGen *g)
{
  guint64 high = shift + 16 >= 64 ? 0 : ~G_GUINT64_CONSTANT (0) << (shift + 16);
  memset (hist, 0, 0x10000 * sizeof (guint64));
  for (guint64 i0 = 0; i0 < keys->n; i0 += SPX_GEN_POLL_WORK)
    {
      guint64 end = MIN (i0 + SPX_GEN_POLL_WORK, keys->n);
      for (guint64 i = i0; i < end; i++)
        {
          guint64 key = key_at (keys, i);
          hist[(key >> shift) & 0xffff] += (key & high) == prefix;
        }
      if (spx_gen_stop (g, end - i0))
        return FALSE;
    }
  return TRUE;
}

/* The k-th largest key (k ≥ 1), by MSD radix selection on 16-bit digits:
 * one linear pass per digit, no copy, and no quickselect worst case on the
 * many equal norms of an already sparse matrix. Keys outside the current
 * prefix add 0 rather than branch (the branch mispredicts half the time).
 * *ties gets how many keys equal to the result belong to the top k. */
gboolean
spx_gen_kth_largest_key (const SpxGenKeys *keys, guint64 k, guint64 *key,
                         guint64 *ties, SpxGen *g)
{
  g_autofree guint64 *hist = g_new (guint64, 0x10000); /* 512 KiB, fixed */
  guint64 prefix = 0, want = k;
  for (int shift = (int) key_bits (keys) - 16; shift >= 0; shift -= 16)
    {
      if (!histogram (keys, shift, prefix, hist, g))
        return FALSE;
      guint digit = 0xffff;
      for (; hist[digit] < want; digit--)
        want -= hist[digit];
      prefix |= (guint64) digit << shift;
    }
  *key = prefix;
  *ties = want;
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Magnitude                                                           */

/* Add the squares of one element row into its block-row's norms. Both the
 * pruner and the generator go through here, in the same order, so their
 * sums are bit-identical. */
static void
add_row_norms (double *norms, const float *row, guint64 cols, guint block)
{
  for (guint64 c0 = 0, bc = 0; c0 < cols; c0 += block, bc++)
    {
      guint64 c1 = MIN (c0 + block, cols);
      double s = 0.0;
      for (guint64 c = c0; c < c1; c++)
        s += (double) row[c] * (double) row[c];
      norms[bc] += s;
    }
}

/* Whole words without branches first, then the ties in index order. */
static gboolean
set_above (SpxMask *mask, const SpxGenKeys *keys, guint64 threshold,
           guint64 ties, SpxGen *g)
{
  guint64 n = keys->n;
  for (guint64 w = 0; w < mask->n_words; w++)
    {
      guint64 word = 0, end = MIN (n, w * 64 + 64);
      for (guint64 i = w * 64; i < end; i++)
        word |= (guint64) (key_at (keys, i) > threshold) << (i & 63);
      mask->bits[w] = word;
      if (spx_gen_stop (g, 64))
        return FALSE;
    }
  for (guint64 i = 0; ties > 0; i++)
    if (key_at (keys, i) == threshold)
      {
        spx_mask_set_flat (mask, i);
        ties--;
      }
  return TRUE;
}

/* Set the round(density·n) blocks of largest key; ties go to the lower
 * flat index. */
static gboolean
keep_largest (SpxMask *mask, const SpxGenKeys *keys, double density, SpxGen *g)
{
  guint64 n = keys->n, k = spx_gen_count_for_density (density, n), nan = n;
  if (!find_nan (keys, &nan, g))
    return FALSE;
  if (nan < n)
    {
      g_set_error (g->error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
                   "values: block (%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
                   ") contains NaN; expected numbers",
                   nan / mask->bcols, nan % mask->bcols);
      return FALSE;
    }
  if (k == 0)
    return TRUE;
  guint64 ties, threshold;
  return spx_gen_kth_largest_key (keys, k, &threshold, &ties, g) &&
         set_above (mask, keys, threshold, ties, g);
}

/* One double per block, within the budget with the mask. */
static double *
norms_new (SpxGen *g)
{
  guint64 n = spx_mask_n_blocks (g->mask);
  if (!spx_gen_budget (g, n * sizeof (double)))
    return NULL;
  return spx_gen_alloc0 (g, n, sizeof (double));
}

/* Prune a row-major matrix with the shape of mask into mask. */
static gboolean
prune_into (SpxMask *mask, const float *values, double density, SpxGen *g)
{
  SpxGenKeys keys = { .values = values, .n = spx_mask_n_blocks (mask) };
  if (mask->block == 1)
    return keep_largest (mask, &keys, density, g);
  g_autofree double *norms = norms_new (g);
  if (norms == NULL)
    return FALSE;
  for (guint64 r = 0; r < mask->rows; r++)
    {
      add_row_norms (norms + (r / mask->block) * mask->bcols,
                     values + r * mask->cols, mask->cols, mask->block);
      if (spx_gen_stop (g, mask->cols / 64 + 1))
        return FALSE;
    }
  keys = (SpxGenKeys) { .norms = norms, .n = keys.n };
  return keep_largest (mask, &keys, density, g);
}

SpxMask *
spx_mask_prune_magnitude (const float *values, guint64 rows, guint64 cols,
                          guint block, double density, GError **error)
{
  g_return_val_if_fail (values != NULL, NULL);
  if (!spx_gen_check_density (density, error))
    return NULL;
  g_autoptr(SpxMask) mask = spx_mask_new (rows, cols, block, error);
  if (mask == NULL)
    return NULL;
  SpxGen g = { .mask = mask, .what = "magnitude-pruned", .error = error };
  if (!prune_into (mask, values, density, &g))
    return NULL;
  return g_steal_pointer (&mask);
}

/* Block 1: draw the whole matrix (4 bytes an element) and prune it. */
static gboolean
gen_magnitude_elements (SpxMask *mask, const SpxGenOptions *o, SpxGen *g)
{
  guint64 n = mask->rows * mask->cols;
  if (!spx_gen_budget (g, n * sizeof (float)))
    return FALSE;
  g_autofree float *values = spx_gen_alloc0 (g, n, sizeof (float));
  if (values == NULL)
    return FALSE;
  for (guint64 i = 0; i < n; i++)
    {
      values[i] = (float) spx_rng_normal (&g->rng);
      if (spx_gen_stop (g, 1))
        return FALSE;
    }
  return prune_into (mask, values, o->density, g);
}

/* Same result as pruning a rows×cols matrix of spx_rng_normal draws
 * (row-major); for blocks over 1 only block norms are kept, filled one
 * element row at a time. */
gboolean
spx_gen_magnitude (SpxMask *mask, const SpxGenOptions *o, SpxGen *g)
{
  if (mask->rows * mask->cols > MAGNITUDE_MAX_ELEMENTS)
    {
      g_set_error (g->error, SPX_MASK_ERROR, SPX_MASK_ERROR_TOO_LARGE,
                   "magnitude pattern of %" G_GUINT64_FORMAT "×%"
                   G_GUINT64_FORMAT " elements: at most %" G_GUINT64_FORMAT
                   " random values are drawn; prune real weights with "
                   "spx_mask_prune_magnitude instead",
                   mask->rows, mask->cols, MAGNITUDE_MAX_ELEMENTS);
      return FALSE;
    }
  if (mask->block == 1)
    return gen_magnitude_elements (mask, o, g);
  /* norms, and one row of values (cols ≤ 2^28 here) */
  if (!spx_gen_budget (g, spx_mask_n_blocks (mask) * sizeof (double) +
                            mask->cols * sizeof (float)))
    return FALSE;
  g_autofree double *norms = spx_gen_alloc0 (g, spx_mask_n_blocks (mask),
                                             sizeof (double));
  g_autofree float *row = spx_gen_alloc0 (g, mask->cols, sizeof (float));
  if (g->failed)
    return FALSE;
  for (guint64 r = 0; r < mask->rows; r++)
    {
      for (guint64 c = 0; c < mask->cols; c++)
        row[c] = (float) spx_rng_normal (&g->rng);
      add_row_norms (norms + (r / mask->block) * mask->bcols, row,
                     mask->cols, mask->block);
      if (spx_gen_stop (g, mask->cols))
        return FALSE;
    }
  SpxGenKeys keys = { .norms = norms, .n = spx_mask_n_blocks (mask) };
  return keep_largest (mask, &keys, o->density, g);
}
