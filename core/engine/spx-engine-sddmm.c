/* spx-engine-sddmm.c: sampled dense-dense product: the entries of P·Qᵀ
 * that a block-sparse pattern keeps, and nothing else (Sputnik's SDDMM) */
#include "spx-engine.h"
#include "spx-kernels.h"

#include <omp.h>
#include <string.h>

/* Blocks [first, last) of the pattern, in order, from the rows of P and
 * Q. */
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

/* The packed path visits the blocks column by column: each thread packs
 * a block-column of Q once into its panel (kd×b, L1- or L2-sized) and
 * runs all that column's blocks of its chunk against it. Chunks end at
 * column boundaries unless a column alone is longer than a chunk. */
typedef struct {
  guint64 *order;  /* pattern index of each block, by block-column */
  guint64 *brow;   /* its block-row */
  guint64 *cuts;   /* chunk c is [cuts[c], cuts[c + 1]) of order */
  guint64  n_chunks;
} ByColumn;

static void
by_column_clear (ByColumn *bycol)
{
  g_free (bycol->order);
  g_free (bycol->brow);
  g_free (bycol->cuts);
}

static void
by_column_init (ByColumn *bycol, const SpxBlockCsr *pat, guint64 target)
{
  guint64 n = pat->n_blocks, bcols = pat->bcols, last = 0;
  g_autofree guint64 *start = g_new0 (guint64, bcols + 1);

  for (guint64 i = 0; i < n; i++)
    start[pat->col_indices[i] + 1]++;
  for (guint64 bc = 0; bc < bcols; bc++)
    start[bc + 1] += start[bc];
  g_autofree guint64 *next = g_memdup2 (start, bcols * sizeof (guint64));
  bycol->order = g_new (guint64, n);
  bycol->brow = g_new (guint64, n);
  for (guint64 br = 0; br < pat->brows; br++)
    for (guint64 i = pat->row_offsets[br]; i < pat->row_offsets[br + 1]; i++)
      {
        guint64 j = next[pat->col_indices[i]]++;
        bycol->order[j] = i;
        bycol->brow[j] = br;
      }
  /* at most one cut per column and one per target blocks */
  bycol->cuts = g_new (guint64, bcols + n / target + 2);
  bycol->n_chunks = 0;
  bycol->cuts[0] = 0;
  for (guint64 bc = 0; bc < bcols; bc++)
    {
      if (start[bc + 1] - last > target && start[bc] > last)
        bycol->cuts[++bycol->n_chunks] = last = start[bc];
      while (start[bc + 1] - last > target)
        bycol->cuts[++bycol->n_chunks] = last += target;
    }
  if (last < n)
    bycol->cuts[++bycol->n_chunks] = n;
}

/* The packed path's kernel and its packing of Q. */
typedef struct {
  SpxSddmmPanel panel;
  SpxSddmmPack  pack;
} Kernel;

/* Rows waiting for the kernel, all of one block-column. */
#define BATCH 64
typedef struct {
  const float *p[BATCH];
  float       *o[BATCH];
  guint        n;
} Rows;

/* Run the rows against the panel of block-column bc, then zero what lies
 * past k in each (whatever P holds: 0 × ∞ would not be 0). */
static void
flush (SpxSddmmPanel kernel, const SpxBlockCsr *pat, Rows *rows, guint64 kd,
       guint64 bc, const float *panel)
{
  guint64 b = pat->b, cols = MIN (b, pat->k - bc * b);

  kernel (rows->p, rows->o, rows->n, kd, panel);
  for (guint i = 0; cols < b && i < rows->n; i++)
    memset (rows->o[i] + cols, 0, (b - cols) * sizeof (float));
  rows->n = 0;
}

/* One chunk of the by-column order, a block-column's rows at a time (up
 * to BATCH, so that narrow blocks fill the kernel's tiles); panel holds
 * block-column *packed. Rows past m are zeroed. */
static void
run_chunk (const Kernel *kern, const SpxBlockCsr *pat, const ByColumn *bycol,
           guint64 chunk, const float *P, const float *Q, guint64 kd,
           float *out, float *panel, guint64 *packed)
{
  SpxSddmmPanel kernel = kern->panel;
  guint64 b = pat->b;
  Rows rows;

  rows.n = 0;
  for (guint64 j = bycol->cuts[chunk]; j < bycol->cuts[chunk + 1]; j++)
    {
      guint64 i = bycol->order[j], br = bycol->brow[j];
      guint64 bc = pat->col_indices[i], have = MIN (b, pat->m - br * b);
      float *o = out + i * b * b;
      if (bc != *packed)
        {
          if (rows.n > 0)
            flush (kernel, pat, &rows, kd, *packed, panel);
          *packed = bc;
          kern->pack (Q + bc * b * kd, kd, pat->b,
                      (guint) MIN (b, pat->k - bc * b), panel);
        }
      for (guint64 r = 0; r < have; r++)
        {
          if (rows.n == BATCH)
            flush (kernel, pat, &rows, kd, bc, panel);
          rows.p[rows.n] = P + (br * b + r) * kd;
          rows.o[rows.n++] = o + r * b;
        }
      memset (o + have * b, 0, (b - have) * b * sizeof (float));
    }
  if (rows.n > 0)
    flush (kernel, pat, &rows, kd, *packed, panel);
}

/* The packed path on threads threads: a panel each, chunks handed out
 * dynamically. FALSE when the panels do not fit in memory. */
static gboolean
run_panels (const Kernel *kern, const SpxBlockCsr *pat, const float *P,
            const float *Q, guint64 kd, float *out, guint64 target,
            int threads, GError **error)
{
  guint64 len = pat->b * (kd + 3); /* as SpxSddmmPack says */
  g_autofree float **panels = g_new0 (float *, threads);
  gboolean ok = kd <= G_MAXUINT64 / 2 / pat->b &&
               len <= G_MAXSIZE / sizeof (float) / (guint64) threads;

  for (int i = 0; ok && i < threads; i++)
    ok = (panels[i] = g_try_new (float, len)) != NULL;
  if (ok)
    {
      ByColumn bycol;
      by_column_init (&bycol, pat, target);
#pragma omp parallel num_threads (threads)
      {
        guint64 packed = G_MAXUINT64;
        float *panel = panels[omp_get_thread_num ()];
#pragma omp for schedule (dynamic, 1)
        for (guint64 c = 0; c < bycol.n_chunks; c++)
          run_chunk (kern, pat, &bycol, c, P, Q, kd, out, panel, &packed);
      }
      by_column_clear (&bycol);
    }
  else
    g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_NO_MEMORY,
                 "no memory for %d panels of Q (%" G_GUINT64_FORMAT
                 " floats each)", threads, len);
  for (int i = 0; i < threads; i++)
    g_free (panels[i]);
  return ok;
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

  /* Chunks of consecutive blocks (sharing rows of P, or a column of Q)
   * handed out dynamically: edge blocks cost less, and a core busy
   * elsewhere should not hold the others up. A chunk is about 2^18
   * multiply-adds (2^22 for the packed path, so that a column's panel
   * serves many blocks), and there are a few per thread at least. Each
   * entry is computed whole by one thread, so the thread count never
   * changes a bit of the result. */
  int threads = options != NULL && options->threads > 0
                ? (int) MIN (options->threads, (guint) G_MAXINT)
                : omp_get_max_threads ();
  const SpxKernelSet *set =
    spx_kernel_set (options != NULL ? options->isa : spx_isa_best ());
  SpxSddmmPanel panel = set->sddmm_panel (pattern->b);
  guint64 b = pattern->b;
  guint64 macs = G_GUINT64_CONSTANT (1) << (panel != NULL ? 22 : 18);
  guint64 chunk = MIN (macs / b / b / kd, n_blocks / (4 * (guint64) threads));
  chunk = MAX (chunk, 1);
  guint64 n_chunks = (n_blocks + chunk - 1) / chunk;
  threads = (int) MIN ((guint64) threads, n_chunks);

  Kernel kern = { panel, set->sddmm_pack (pattern->b) };
  if (panel != NULL && kern.pack != NULL)
    return run_panels (&kern, pattern, P, Q, kd, out, chunk, threads, error);
  SpxSddmmBlock kernel = set->sddmm;
#pragma omp parallel for schedule (dynamic, 1) num_threads (threads)
  for (guint64 i = 0; i < n_chunks; i++)
    run_range (kernel, pattern, P, Q, kd, out, i * chunk,
               MIN (n_blocks, (i + 1) * chunk));
  return TRUE;
}
