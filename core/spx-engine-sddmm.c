/* spx-engine-sddmm.c: sampled dense-dense product: the entries of P·Qᵀ
 * that a block-sparse pattern keeps, and nothing else (Sputnik's SDDMM) */
#include "spx-engine.h"
#include "spx-kernels.h"

#include <omp.h>
#include <string.h>

/* How the blocks are computed: from the rows of P and Q (block) or,
 * when the instruction set has a kernel for b, from both packed into
 * kd×b panels, one per block-row of P (Pt) and block-column of Q (Qt). */
typedef struct {
  SpxSddmmBlock block;
  SpxSddmmPanel panel;
  float        *Pt, *Qt;
} Kernel;

/* Rows [i·b, i·b + b) of X (rows × kd) transposed into panel i, rows past
 * the end zeroed: the kernel then reads both panels front to back, whole
 * vectors at a time, and each is packed once for all its blocks. */
static void
pack_panel (const float *X, guint64 rows, guint64 kd, guint64 b, guint64 i,
            float *panels)
{
  float *panel = panels + i * b * kd;
  guint64 have = MIN (b, rows - i * b);
  const float *x = X + i * b * kd;

  for (guint64 t = 0; t < kd; t++)
    for (guint64 r = 0; r < b; r++)
      panel[t * b + r] = r < have ? x[r * kd + t] : 0.0f;
}

/* Zero what lies outside m×k in a ragged edge block, whatever P and Q
 * hold (0 × ∞ would not be 0). */
static void
zero_outside (float *out, guint b, guint rows, guint cols)
{
  for (guint r = 0; r < b; r++)
    {
      guint from = r < rows ? cols : 0;
      memset (out + r * b + from, 0, (b - from) * sizeof (float));
    }
}

static void
run_block (const Kernel *kern, const SpxBlockCsr *pat, const float *P,
           const float *Q, guint64 kd, guint64 br, guint64 bc, float *out)
{
  guint64 b = pat->b;
  guint rows = (guint) MIN (b, pat->m - br * b);
  guint cols = (guint) MIN (b, pat->k - bc * b);

  if (kern->panel == NULL)
    {
      kern->block (P + br * b * kd, Q + bc * b * kd, kd, pat->b, rows, cols,
                   out);
      return;
    }
  kern->panel (kern->Pt + br * b * kd, kern->Qt + bc * b * kd, kd, out);
  if (rows < b || cols < b)
    zero_outside (out, pat->b, rows, cols);
}

/* Blocks [first, last) of the pattern, in order. */
static void
run_range (const Kernel *kern, const SpxBlockCsr *pat, const float *P,
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
      run_block (kern, pat, P, Q, kd, br, pat->col_indices[i],
                 out + i * b * b);
    }
}

static float *
try_panels (guint64 len, GError **error)
{
  float *p = len <= G_MAXSIZE / sizeof (float) ? g_try_new (float, len)
                                                : NULL;
  if (p == NULL)
    g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_NO_MEMORY,
                 "no memory for P and Q packed in panels (%" G_GUINT64_FORMAT
                 " floats)", len);
  return p;
}

/* The kernel for the instruction set, with P and Q packed if it takes
 * panels; FALSE when they do not fit in memory. */
static gboolean
kernel_init (Kernel *kern, const SpxBlockCsr *pat, const float *P,
             const float *Q, guint64 kd, SpxIsa isa, int threads,
             GError **error)
{
  guint64 b = pat->b, brows = pat->brows, bcols = pat->bcols;

  kern->block = spx_kernel_sddmm (isa);
  kern->panel = spx_kernel_sddmm_panel (isa, pat->b);
  kern->Pt = kern->Qt = NULL;
  if (kern->panel == NULL)
    return TRUE;
  if (!(kern->Pt = try_panels (brows * b * kd, error)) ||
      !(kern->Qt = try_panels (bcols * b * kd, error)))
    {
      g_free (kern->Pt);
      return FALSE;
    }
#pragma omp parallel num_threads (threads)
  {
#pragma omp for schedule (static) nowait
    for (guint64 br = 0; br < brows; br++)
      pack_panel (P, pat->m, kd, b, br, kern->Pt);
#pragma omp for schedule (static)
    for (guint64 bc = 0; bc < bcols; bc++)
      pack_panel (Q, pat->k, kd, b, bc, kern->Qt);
  }
  return TRUE;
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

  Kernel kern;
  if (!kernel_init (&kern, pattern, P, Q, kd,
                    options != NULL ? options->isa : spx_isa_best (),
                    threads, error))
    return FALSE;
#pragma omp parallel for schedule (dynamic, 1) num_threads (threads)
  for (guint64 i = 0; i < n_chunks; i++)
    run_range (&kern, pattern, P, Q, kd, out, i * chunk,
               MIN (n_blocks, (i + 1) * chunk));
  g_free (kern.Pt);
  g_free (kern.Qt);
  return TRUE;
}
