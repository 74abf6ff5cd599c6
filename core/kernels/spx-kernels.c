/* spx-kernels.c: kernel dispatch and the single-thread executor. Compiled
 * with the baseline flags: nothing here may run an ISA-specific
 * instruction, it only calls the kernels of the ISA it is given. */
#include "spx-kernels-private.h"

#include <unistd.h>

/* Half of L2 for the panel of B a chunk touches; the rest is for C, A
 * and whatever else shares the cache. */
#define L2_FALLBACK (1024 * 1024)
#define CHUNK_ALIGN 64 /* floats: a multiple of every kernel's tile width */

SpxSpmmKernel
spx_kernel_spmm (SpxIsa isa, guint b)
{
  switch (isa)
    {
    case SPX_ISA_AVX512:
      return spx_kernel_spmm_avx512 (b);
    case SPX_ISA_AVX2:
      return spx_kernel_spmm_avx2 (b);
    case SPX_ISA_GENERIC:
    default:
      return spx_kernel_spmm_generic (b);
    }
}

/* Off the hot path (one block per block-row at most), so plain C. */
void
spx_kernel_edge (guint b, guint rows, guint kw, const float *values,
                 const float *B, guint64 ldb, float *C, guint64 ldc,
                 guint64 n)
{
  for (guint r = 0; r < rows; r++)
    {
      float *c = C + r * ldc;
      for (guint kk = 0; kk < kw; kk++)
        {
          const float *brow = B + kk * ldb;
          float s = values[r * b + kk];
          for (guint64 x = 0; x < n; x++)
            c[x] += s * brow[x];
        }
    }
}

/* Asking the processor (cpuid, slow under a hypervisor) once is enough. */
static gsize
l2_bytes (void)
{
  static gsize cached = 0;

  if (g_once_init_enter (&cached))
    {
      long size = sysconf (_SC_LEVEL2_CACHE_SIZE);
      g_once_init_leave (&cached, size > 0 ? (gsize) size : L2_FALLBACK);
    }
  return cached;
}

/* Rows of B the work reaches: offsets rise along a block-row, so each
 * row's last block (or its edge block) is its furthest. */
static guint64
b_rows_touched (const SpxRowWork *work, gsize n_work, guint64 ldb)
{
  guint64 rows = 0;

  for (gsize i = 0; i < n_work; i++)
    {
      const SpxRowTask *t = &work[i].task;
      if (t->n_blocks > 0)
        rows = MAX (rows, t->b_offsets[t->n_blocks - 1] / ldb + t->b);
      if (work[i].edge_values != NULL)
        rows = MAX (rows, work[i].edge_b_offset / ldb + work[i].edge_kw);
    }
  return rows;
}

/* As wide as keeps the panel of B (rows touched × nc) in half of L2,
 * then evened out over the chunks and rounded to whole tiles. */
guint64
spx_kernel_chunk_width (const SpxRowWork *work, gsize n_work, guint64 ldb,
                        guint64 n)
{
  guint64 rows = MAX (b_rows_touched (work, n_work, ldb), 1);
  guint64 widest = l2_bytes () / 2 / (rows * sizeof (float));
  widest = MAX (widest / CHUNK_ALIGN * CHUNK_ALIGN, CHUNK_ALIGN);
  if (widest >= n)
    return n;

  guint64 chunks = (n + widest - 1) / widest;
  guint64 nc = (n + chunks - 1) / chunks;
  return (nc + CHUNK_ALIGN - 1) / CHUNK_ALIGN * CHUNK_ALIGN;
}

/* Chunk by chunk of columns, every block-row's kernel and then its edge
 * block: while a chunk lasts its panel of B stays in L2. */
void
spx_kernel_run_chunked (SpxIsa isa, const SpxRowWork *work, gsize n_work,
                        const float *B, guint64 ldb, float *C, guint64 ldc,
                        guint64 n, gboolean accumulate, guint64 nc)
{
  SpxSpmmKernel kernel = NULL;
  guint kernel_b = 0;

  for (guint64 j0 = 0; j0 < n; j0 += nc)
    {
      guint64 w = MIN (nc, n - j0);
      for (gsize i = 0; i < n_work; i++)
        {
          const SpxRowWork *wk = &work[i];
          float *c = C + wk->c_row * ldc + j0;
          if (wk->task.b != kernel_b)
            kernel = spx_kernel_spmm (isa, kernel_b = wk->task.b);
          kernel (&wk->task, B + j0, ldb, c, ldc, w, accumulate);
          if (wk->edge_values != NULL)
            spx_kernel_edge (wk->task.b, wk->task.rows, wk->edge_kw,
                             wk->edge_values, B + wk->edge_b_offset + j0,
                             ldb, c, ldc, w);
        }
    }
}

void
spx_kernel_run (SpxIsa isa, const SpxRowWork *work, gsize n_work,
                const float *B, guint64 ldb, float *C, guint64 ldc,
                guint64 n, gboolean accumulate)
{
  if (n_work == 0 || n == 0)
    return;
  spx_kernel_run_chunked (isa, work, n_work, B, ldb, C, ldc, n, accumulate,
                          spx_kernel_chunk_width (work, n_work, ldb, n));
}
