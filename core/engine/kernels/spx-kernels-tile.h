/* spx-kernels-tile.h: the register-tiled SpMM micro-kernel, written once
 * and compiled per instruction set (BLIS-style): spx-kernels-avx2.c and
 * spx-kernels-avx512.c include it after defining
 *   Vec, Mask, VW (floats per vector), MAX_R, MAX_V, INLINE,
 *   VEC_LOAD, VEC_MASKLOAD, VEC_STORE, VEC_MASKSTORE, VEC_ZERO, VEC_SET1,
 *   VEC_FMA, tail_mask (rem) (the first rem lanes),
 *   SHAPE_1 … SHAPE_32, SHAPE_ANY (R, V, U, D per block size),
 *   KERNEL_TABLE_ANY (spx-kernels-table.h).
 * A tile of R rows × V vectors of C stays in registers while the
 * block-row's blocks stream through it: per k-step the V vectors of one
 * row of B are loaded once and each row's A value is broadcast against
 * them. Column tiles are the outer loop so that the B rows a block-row
 * touches stay in L1 across its row tiles. The rows of B that block
 * j + D will need are prefetched while block j runs: they sit at random
 * places, beyond what the hardware prefetchers guess (D = 0: no
 * prefetches, for shapes that measured faster without). A row's last vector
 * is masked when n is not a multiple of VW: no load or store goes past
 * the end of a row of B or C. */

INLINE Vec
load (const float *p, gboolean masked, Mask m)
{
  return masked ? VEC_MASKLOAD (p, m) : VEC_LOAD (p);
}

INLINE void
store (float *p, Vec x, gboolean masked, Mask m)
{
  if (masked)
    VEC_MASKSTORE (p, m, x);
  else
    VEC_STORE (p, x);
}

/* Rows r0..r0+R of the tile; vector V-1 masked by m when masked. */
INLINE void
tile (const Tile *t, guint b, guint r0, guint R, guint V, guint U,
      guint D, gboolean masked, Mask m)
{
  Vec c[MAX_R][MAX_V];
  float *cp = t->C + r0 * t->ldc;

  if (t->accumulate)
    {
#pragma GCC unroll 16
      for (guint r = 0; r < R; r++)
#pragma GCC unroll 8
        for (guint v = 0; v < V; v++)
          c[r][v] = load (cp + r * t->ldc + VW * v, masked && v == V - 1, m);
    }
  else
    {
#pragma GCC unroll 16
      for (guint r = 0; r < R; r++)
#pragma GCC unroll 8
        for (guint v = 0; v < V; v++)
          c[r][v] = VEC_ZERO ();
    }

  const float *a = t->values + (gsize) r0 * b;
  for (guint j = 0; j < t->n_blocks; j++, a += (gsize) b * b)
    {
      const float *bp = t->B + t->b_offsets[j] * t->b_scale;
      guint jn = MIN (j + D, t->n_blocks - 1);
      const float *pf = t->B + t->b_offsets[jn] * t->b_scale;
      for (guint k0 = 0; k0 < b; k0 += U)
#pragma GCC unroll 16
        for (guint u = 0; u < U; u++)
          {
            const float *brow = bp + (k0 + u) * t->ldb;
            Vec x[MAX_V];
#pragma GCC unroll 8
            for (guint v = 0; v < V && D > 0; v++) /* D = 0: none */
              _mm_prefetch ((const char *) (pf + (k0 + u) * t->ldb + VW * v),
                            _MM_HINT_T0);
#pragma GCC unroll 8
            for (guint v = 0; v < V; v++)
              x[v] = load (brow + VW * v, masked && v == V - 1, m);
#pragma GCC unroll 16
            for (guint r = 0; r < R; r++)
              {
                Vec s = VEC_SET1 (a[r * b + k0 + u]);
#pragma GCC unroll 8
                for (guint v = 0; v < V; v++)
                  c[r][v] = VEC_FMA (s, x[v], c[r][v]);
              }
          }
    }

#pragma GCC unroll 16
  for (guint r = 0; r < R; r++)
#pragma GCC unroll 8
    for (guint v = 0; v < V; v++)
      store (cp + r * t->ldc + VW * v, c[r][v], masked && v == V - 1, m);
}

/* Every row of one column tile: R at a time, then one at a time. */
INLINE void
col_tile (const Tile *t, guint b, guint rows, guint R, guint V, guint U,
          guint D, gboolean masked, Mask m)
{
  guint r0 = 0;

  for (; r0 + R <= rows; r0 += R)
    tile (t, b, r0, R, V, U, D, masked, m);
  for (; r0 < rows; r0++)
    tile (t, b, r0, 1, V, U, D, masked, m);
}

/* The last, narrower column tile: nv vectors, the last one masked. */
INLINE void
col_tail (const Tile *t, guint b, guint rows, guint R, guint V, guint U,
          guint D, guint64 w)
{
  guint nv = (guint) (w + VW - 1) / VW;
  Mask m = tail_mask ((guint) (w - VW * (nv - 1)));

  switch (nv)
    {
#define TAIL(N) \
    case N: \
      if (V >= N) \
        col_tile (t, b, rows, R, N, U, D, TRUE, m); \
      break;
    TAIL (1) TAIL (2) TAIL (3) TAIL (4) TAIL (5) TAIL (6) TAIL (7) TAIL (8)
#undef TAIL
    default:
      g_assert_not_reached ();
    }
}

INLINE void
block_row (const SpxRowTask *task, const float *B, guint64 ldb, float *C,
           guint64 ldc, guint64 n, gboolean accumulate, guint b, guint R,
           guint V, guint U, guint D)
{
  const guint64 width = VW * V;
  Tile t = { task->values, task->b_offsets, spx_task_scale (task),
             task->n_blocks, B, ldb, C, ldc, accumulate };
  guint64 j0 = 0;

  if (task->n_blocks == 0 && accumulate)
    return;
  for (; j0 + width <= n; j0 += width, t.B += width, t.C += width)
    col_tile (&t, b, task->rows, R, V, U, D, FALSE, tail_mask (VW));
  if (j0 < n)
    col_tail (&t, b, task->rows, R, V, U, D, n - j0);
}

#include "spx-kernels-table.h"
