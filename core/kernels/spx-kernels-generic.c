/* spx-kernels-generic.c: portable micro-kernels, correct on any processor
 * and written so that the compiler vectorises them at whatever baseline it
 * targets: a tile of R rows × W columns of C is accumulated in a small
 * local array (fixed W, so its loops become whole vector operations) while
 * the block-row's blocks stream through it. */
#include "spx-kernels-private.h"

#define INLINE static inline __attribute__ ((always_inline))
#define MAX_R 4
#define W 16 /* columns per tile */

/* Rows per tile for each block size (R·W floats of accumulators). */
#ifndef ROWS_1
#define ROWS_1 1
#endif
#ifndef ROWS_N
#define ROWS_N 2
#endif

/* One block-row's operands, with B and C at the current column tile. */
typedef struct {
  const float   *values;
  const guint32 *b_offsets;
  guint          n_blocks;
  const float   *B;
  guint64        ldb;
  float         *C;
  guint64        ldc;
  gboolean       accumulate;
} Tile;

/* Rows r0..r0+R, columns 0..w of the tile (w = W on the fast path). */
INLINE void
tile (const Tile *t, guint b, guint r0, guint R, guint w)
{
  float c[MAX_R][W];
  float *cp = t->C + r0 * t->ldc;

  for (guint r = 0; r < R; r++)
    for (guint x = 0; x < w; x++)
      c[r][x] = t->accumulate ? cp[r * t->ldc + x] : 0.0f;

  const float *a = t->values + (gsize) r0 * b;
  for (guint j = 0; j < t->n_blocks; j++, a += (gsize) b * b)
    {
      const float *bp = t->B + t->b_offsets[j];
      for (guint kk = 0; kk < b; kk++)
        {
          const float *brow = bp + kk * t->ldb;
          for (guint r = 0; r < R; r++)
            {
              float s = a[r * b + kk];
              for (guint x = 0; x < w; x++)
                c[r][x] += s * brow[x];
            }
        }
    }

  for (guint r = 0; r < R; r++)
    for (guint x = 0; x < w; x++)
      cp[r * t->ldc + x] = c[r][x];
}

/* Every row of one column tile: R at a time, then one at a time. */
INLINE void
col_tile (const Tile *t, guint b, guint rows, guint R, guint w)
{
  guint r0 = 0;

  for (; r0 + R <= rows; r0 += R)
    tile (t, b, r0, R, w);
  for (; r0 < rows; r0++)
    tile (t, b, r0, 1, w);
}

INLINE void
block_row (const SpxRowTask *task, const float *B, guint64 ldb, float *C,
           guint64 ldc, guint64 n, gboolean accumulate, guint b, guint R)
{
  Tile t = { task->values, task->b_offsets, task->n_blocks, B, ldb, C, ldc,
             accumulate };
  guint64 j0 = 0;

  if (task->n_blocks == 0 && accumulate)
    return;
  for (; j0 + W <= n; j0 += W, t.B += W, t.C += W)
    col_tile (&t, b, task->rows, R, W);
  if (j0 < n)
    col_tile (&t, b, task->rows, R, (guint) (n - j0));
}

#define KERNEL(NAME, B_, R) \
  static void \
  NAME (const SpxRowTask *task, const float *B, guint64 ldb, float *C, \
        guint64 ldc, guint64 n, gboolean accumulate) \
  { \
    block_row (task, B, ldb, C, ldc, n, accumulate, B_, R); \
  }

KERNEL (spmm_b1, 1, ROWS_1)
KERNEL (spmm_b2, 2, ROWS_N)
KERNEL (spmm_b4, 4, ROWS_N)
KERNEL (spmm_b8, 8, ROWS_N)
KERNEL (spmm_b16, 16, ROWS_N)
KERNEL (spmm_b32, 32, ROWS_N)
KERNEL (spmm_any, task->b, ROWS_N)

SpxSpmmKernel
spx_kernel_spmm_generic (guint b)
{
  switch (b)
    {
    case 1: return spmm_b1;
    case 2: return spmm_b2;
    case 4: return spmm_b4;
    case 8: return spmm_b8;
    case 16: return spmm_b16;
    case 32: return spmm_b32;
    default: return spmm_any;
    }
}

SpxSpmmKernel
spx_kernel_spmm_generic_any (void)
{
  return spmm_any;
}
