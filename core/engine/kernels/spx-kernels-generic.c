/* spx-kernels-generic.c: portable micro-kernels, correct on any processor
 * GCC or Clang targets: a tile of R rows × W columns of C is accumulated
 * in generic vectors (SSE at the x86-64 baseline) while the block-row's
 * blocks stream through it; the last columns of a row (n not a multiple
 * of W) go through plain C, so nothing reads past a row. */
#include "spx-kernels-private.h"

#include <string.h>

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

/* Four floats: GCC's generic vectors become SSE here, NEON or scalar
 * code elsewhere; accumulators in them stay in registers. */
typedef float Vec __attribute__ ((vector_size (16)));
#define VW 4 /* floats per Vec */

INLINE Vec
vload (const float *p)
{
  Vec x;
  memcpy (&x, p, sizeof x); /* unaligned */
  return x;
}

/* The fast path: R rows × W columns in vector accumulators. */
INLINE void
tile_full (const Tile *t, guint b, guint r0, guint R)
{
  Vec c[MAX_R][W / VW];
  float *cp = t->C + r0 * t->ldc;

  for (guint r = 0; r < R; r++)
    for (guint v = 0; v < W / VW; v++)
      c[r][v] = t->accumulate ? vload (cp + r * t->ldc + v * VW) : (Vec) { 0 };

  const float *a = t->values + (gsize) r0 * b;
  for (guint j = 0; j < t->n_blocks; j++, a += (gsize) b * b)
    {
      const float *bp = t->B + t->b_offsets[j] * t->b_scale;
      for (guint kk = 0; kk < b; kk++)
        {
          const float *brow = bp + kk * t->ldb;
          Vec x[W / VW];
          for (guint v = 0; v < W / VW; v++)
            x[v] = vload (brow + v * VW);
          for (guint r = 0; r < R; r++)
            {
              float s = a[r * b + kk];
              for (guint v = 0; v < W / VW; v++)
                c[r][v] += s * x[v];
            }
        }
    }

  for (guint r = 0; r < R; r++)
    for (guint v = 0; v < W / VW; v++)
      memcpy (cp + r * t->ldc + v * VW, &c[r][v], sizeof (Vec));
}

/* The last, narrower columns (w < W) of one row, in plain C. */
static void
tile_tail (const Tile *t, guint b, guint r0, guint w)
{
  float c[W];
  float *cp = t->C + r0 * t->ldc;

  for (guint x = 0; x < w; x++)
    c[x] = t->accumulate ? cp[x] : 0.0f;
  const float *a = t->values + (gsize) r0 * b;
  for (guint j = 0; j < t->n_blocks; j++, a += (gsize) b * b)
    for (guint kk = 0; kk < b; kk++)
      {
        const float *brow = t->B + t->b_offsets[j] * t->b_scale +
                            kk * t->ldb;
        for (guint x = 0; x < w; x++)
          c[x] += a[kk] * brow[x];
      }
  memcpy (cp, c, w * sizeof (float));
}

/* Every row of one column tile: R at a time, then one at a time. */
INLINE void
col_tile (const Tile *t, guint b, guint rows, guint R)
{
  guint r0 = 0;

  for (; r0 + R <= rows; r0 += R)
    tile_full (t, b, r0, R);
  for (; r0 < rows; r0++)
    tile_full (t, b, r0, 1);
}

INLINE void
block_row (const SpxRowTask *task, const float *B, guint64 ldb, float *C,
           guint64 ldc, guint64 n, gboolean accumulate, guint b, guint R)
{
  Tile t = { task->values, task->b_offsets, spx_task_scale (task),
             task->n_blocks, B, ldb, C, ldc, accumulate };
  guint64 j0 = 0;

  if (task->n_blocks == 0 && accumulate)
    return;
  for (; j0 + W <= n; j0 += W, t.B += W, t.C += W)
    col_tile (&t, b, task->rows, R);
  if (j0 < n)
    for (guint r = 0; r < task->rows; r++)
      tile_tail (&t, b, r, (guint) (n - j0));
}

#define SHAPE_1 ROWS_1
#define SHAPE_2 ROWS_N
#define SHAPE_4 ROWS_N
#define SHAPE_8 ROWS_N
#define SHAPE_16 ROWS_N
#define SHAPE_32 ROWS_N
#define SHAPE_ANY ROWS_N
#define KERNEL_TABLE_ANY spx_kernel_spmm_generic_any
#include "spx-kernels-table.h"

#define WIDEN_SET spx_kernels_generic_bf16
#define WIDEN_NAME "generic"
#include "spx-kernels-widen.h"

#define SDDMM_BLOCK sddmm_block
#include "spx-sddmm-block.h"

/* No packed SDDMM kernels: every block goes through sddmm_block. */
static SpxSddmmPanel
no_panel (guint b)
{
  return NULL;
}

static SpxSddmmPack
no_pack (guint b)
{
  return NULL;
}

const SpxKernelSet spx_kernels_generic_fp32 = {
  spmm_kernel, sddmm_block, no_panel, no_pack
};
