/* spx-engine-csr.c: block CSR patterns: built from masks, freed, and
 * checked before any kernel trusts them */
#include "spx-engine.h"
#include "spx-util.h"

#include <string.h>

static inline guint64
div_up (guint64 a, guint64 b)
{
  return a / b + (a % b != 0);
}

void
spx_block_csr_from_mask (SpxBlockCsr *csr, const SpxMask *mask)
{
  g_return_if_fail (csr != NULL);
  g_return_if_fail (mask != NULL);

  guint64 n = spx_mask_count (mask);
  guint64 *offsets = g_new0 (guint64, mask->brows + 1);
  guint32 *cols = g_new (guint32, n);
  SpxMaskIter it;
  guint64 br, bc, i = 0;

  /* Count per row into offsets[br + 1], then a running sum turns the
   * counts into starts. The iterator goes row-major, so columns come out
   * increasing within each row. */
  spx_mask_iter_init (&it, mask);
  while (spx_mask_iter_next (&it, &br, &bc))
    {
      offsets[br + 1]++;
      cols[i++] = (guint32) bc; /* bcols < 2^31: SPX_MASK_MAX_DIM */
    }
  for (br = 0; br < mask->brows; br++)
    offsets[br + 1] += offsets[br];

  csr->m = mask->rows;
  csr->k = mask->cols;
  csr->b = mask->block;
  csr->brows = mask->brows;
  csr->bcols = mask->bcols;
  csr->n_blocks = n;
  csr->row_offsets = offsets;
  csr->col_indices = cols;
}

void
spx_block_csr_clear (SpxBlockCsr *csr)
{
  if (csr == NULL)
    return;
  /* Only arrays from spx_block_csr_from_mask come here: ours to free. */
  g_free ((gpointer) csr->row_offsets);
  g_free ((gpointer) csr->col_indices);
  memset (csr, 0, sizeof *csr);
}

static gboolean
validate_shape (const SpxBlockCsr *csr, GError **error)
{
  if (csr->b == 0)
    return spx_invalid (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID,
                        "block size 0: expected at least 1");
  if (csr->m == 0 || csr->k == 0)
    return spx_invalid (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID,
                        "pattern size %" G_GUINT64_FORMAT "×%"
                        G_GUINT64_FORMAT ": expected at least one row and one "
                        "column", csr->m, csr->k);

  guint64 brows = div_up (csr->m, csr->b), bcols = div_up (csr->k, csr->b);
  if (csr->brows != brows)
    return spx_invalid (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID,
                        "%" G_GUINT64_FORMAT " rows in blocks of %u make %"
                        G_GUINT64_FORMAT " block-rows, but the pattern says %"
                        G_GUINT64_FORMAT, csr->m, csr->b, brows, csr->brows);
  if (csr->bcols != bcols)
    return spx_invalid (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID,
                        "%" G_GUINT64_FORMAT " columns in blocks of %u "
                        "make %" G_GUINT64_FORMAT " block-columns, but the "
                        "pattern says %" G_GUINT64_FORMAT,
                        csr->k, csr->b, bcols, csr->bcols);
  if (csr->row_offsets == NULL)
    return spx_invalid (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID,
                        "no row_offsets");
  if (csr->n_blocks > 0 && csr->col_indices == NULL)
    return spx_invalid (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID,
                        "%" G_GUINT64_FORMAT " blocks but no col_indices",
                        csr->n_blocks);
  return TRUE;
}

/* After this, every row's range lies inside [0, n_blocks). */
static gboolean
validate_offsets (const SpxBlockCsr *csr, GError **error)
{
  const guint64 *off = csr->row_offsets;

  if (off[0] != 0)
    return spx_invalid (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID,
                        "row_offsets[0] is %" G_GUINT64_FORMAT
                        ": expected 0", off[0]);
  for (guint64 br = 0; br < csr->brows; br++)
    if (off[br + 1] < off[br])
      return spx_invalid (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID,
                          "block-row %" G_GUINT64_FORMAT ": row_offsets "
                          "go down from %" G_GUINT64_FORMAT " to %"
                          G_GUINT64_FORMAT ": they must not decrease",
                          br, off[br], off[br + 1]);
  if (off[csr->brows] != csr->n_blocks)
    return spx_invalid (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID,
                        "row_offsets end at %" G_GUINT64_FORMAT
                        ", but there are %" G_GUINT64_FORMAT " blocks",
                        off[csr->brows], csr->n_blocks);
  return TRUE;
}

/* Whether every row's columns increase and end before bcols: a loop the
 * compiler vectorizes, as dynamic plans check each run's pattern. */
static gboolean
columns_ok (const SpxBlockCsr *csr)
{
  const guint32 *col = csr->col_indices;
  guint bad = 0;
  for (guint64 br = 0; br < csr->brows; br++)
    {
      guint64 i0 = csr->row_offsets[br], i1 = csr->row_offsets[br + 1];
      if (i1 == i0)
        continue;
      bad |= col[i1 - 1] >= csr->bcols;
      for (guint64 i = i0 + 1; i < i1; i++)
        bad |= col[i] <= col[i - 1];
    }
  return bad == 0;
}

/* The first fault, named (after columns_ok found one). */
static gboolean
validate_columns (const SpxBlockCsr *csr, GError **error)
{
  if (columns_ok (csr))
    return TRUE;
  for (guint64 br = 0; br < csr->brows; br++)
    for (guint64 i = csr->row_offsets[br]; i < csr->row_offsets[br + 1]; i++)
      {
        guint32 col = csr->col_indices[i];
        if (col >= csr->bcols)
          return spx_invalid (error,
                              SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID,
                              "block-row %" G_GUINT64_FORMAT ": column %u "
                              "is past the last block-column (%"
                              G_GUINT64_FORMAT " block-columns)", br, col,
                              csr->bcols);
        if (i > csr->row_offsets[br] && col <= csr->col_indices[i - 1])
          return spx_invalid (error,
                              SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID,
                              "block-row %" G_GUINT64_FORMAT ": column %u "
                              "after %u: columns must increase",
                              br, col, csr->col_indices[i - 1]);
      }
  return TRUE;
}

gboolean
spx_block_csr_validate (const SpxBlockCsr *csr, GError **error)
{
  g_return_val_if_fail (csr != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return validate_shape (csr, error) && validate_offsets (csr, error) &&
         validate_columns (csr, error);
}
