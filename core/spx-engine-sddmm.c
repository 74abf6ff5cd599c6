/* spx-engine-sddmm.c: sampled dense-dense product: the entries of P·Qᵀ
 * that a block-sparse pattern keeps, and nothing else (Sputnik's SDDMM) */
#include "spx-engine.h"
#include "spx-kernels.h"

#include <omp.h>
#include <string.h>

/* Blocks [first, last) of the pattern, in order. */
static void
run_range (SpxSddmmBlock block_sddmm, const SpxBlockCsr *pat, const float *P,
           const float *Q, guint64 kd, float *out, guint64 first,
           guint64 last)
{
  const guint64 *off = pat->row_offsets;
  guint64 b = pat->b, lo = 0, hi = pat->brows;

  if (first >= last)
    return;
  /* The block-row holding block first: the last br with off[br] ≤ first. */
  while (hi - lo > 1)
    {
      guint64 mid = lo + (hi - lo) / 2;
      if (off[mid] <= first)
        lo = mid;
      else
        hi = mid;
    }
  for (guint64 i = first, br = lo; i < last; i++)
    {
      while (off[br + 1] <= i)
        br++;
      guint64 bc = pat->col_indices[i];
      guint rows = (guint) MIN (b, pat->m - br * b);
      guint cols = (guint) MIN (b, pat->k - bc * b);
      block_sddmm (P + br * b * kd, Q + bc * b * kd, kd, pat->b, rows, cols,
                   out + i * b * b);
    }
}

gboolean
spx_sddmm (const SpxBlockCsr *pattern, const float *P, const float *Q,
           guint64 kd, float *out, const SpxEngineOptions *options,
           GError **error)
{
  g_return_val_if_fail (pattern != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (kd == 0)
    {
      g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID,
                   "inner dimension kd is 0: expected at least 1");
      return FALSE;
    }
  if (!spx_block_csr_validate (pattern, error))
    return FALSE;

  guint64 n_blocks = pattern->n_blocks;
  if (n_blocks == 0)
    return TRUE;
  g_return_val_if_fail (P != NULL && Q != NULL && out != NULL, FALSE);

  /* Chunks of consecutive blocks (sharing P's rows) handed out
   * dynamically: edge blocks cost less, and a core busy elsewhere should
   * not hold the others up. A chunk is about 2^18 multiply-adds, and
   * there are a few per thread at least. Each entry is computed whole by
   * one thread, so the thread count never changes a bit of the result. */
  int threads = options != NULL && options->threads > 0
                ? (int) MIN (options->threads, (guint) G_MAXINT)
                : omp_get_max_threads ();
  guint64 b = pattern->b;
  guint64 chunk = MIN ((G_GUINT64_CONSTANT (1) << 18) / b / b / kd,
                       n_blocks / (4 * (guint64) threads));
  chunk = MAX (chunk, 1);
  guint64 n_chunks = (n_blocks + chunk - 1) / chunk;
  threads = (int) MIN ((guint64) threads, n_chunks);

  SpxSddmmBlock kernel =
    spx_kernel_sddmm (options != NULL ? options->isa : spx_isa_best ());
#pragma omp parallel for schedule (dynamic, 1) num_threads (threads)
  for (guint64 i = 0; i < n_chunks; i++)
    run_range (kernel, pattern, P, Q, kd, out, i * chunk,
               MIN (n_blocks, (i + 1) * chunk));
  return TRUE;
}
