/* spx-kernels-avx2.c: AVX2 + FMA micro-kernels, the design of
 * spx-kernels-avx512.c with 8-float vectors and 16 registers: a tile of
 * R rows × V vectors of C stays in ymm registers while the block-row's
 * blocks stream through it, and the B rows of block j + D are prefetched
 * while block j runs. A row's last vector goes through
 * maskload/maskstore when n is not a multiple of 8, so no access passes
 * the end of a row of B or C. */
#include "spx-kernels-private.h"

#include <immintrin.h>

#define INLINE static inline __attribute__ ((always_inline))
#define MAX_R 8
#define MAX_V 8

/* Tile shapes per block size: rows R, vectors V (R·V accumulators, at
 * most 12 of 16 ymm), k-steps unrolled U, prefetch distance D in
 * blocks. */
#ifndef SHAPE_1
#define SHAPE_1 1, 8, 1, 4
#endif
#ifndef SHAPE_2
#define SHAPE_2 2, 4, 2, 2
#endif
#ifndef SHAPE_4
#define SHAPE_4 4, 3, 4, 2
#endif
#ifndef SHAPE_8
#define SHAPE_8 4, 3, 8, 2
#endif
#ifndef SHAPE_16
#define SHAPE_16 4, 3, 16, 1
#endif
#ifndef SHAPE_32
#define SHAPE_32 4, 3, 8, 1
#endif
#ifndef SHAPE_ANY
#define SHAPE_ANY 4, 2, 1, 1
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

INLINE __m256
load (const float *p, gboolean masked, __m256i m)
{
  return masked ? _mm256_maskload_ps (p, m) : _mm256_loadu_ps (p);
}

INLINE void
store (float *p, __m256 x, gboolean masked, __m256i m)
{
  if (masked)
    _mm256_maskstore_ps (p, m, x);
  else
    _mm256_storeu_ps (p, x);
}

/* Rows r0..r0+R of the tile; vector V-1 masked by m when masked. */
INLINE void
tile (const Tile *t, guint b, guint r0, guint R, guint V, guint U,
      guint D, gboolean masked, __m256i m)
{
  __m256 c[MAX_R][MAX_V];
  float *cp = t->C + r0 * t->ldc;

  if (t->accumulate)
    {
#pragma GCC unroll 16
      for (guint r = 0; r < R; r++)
#pragma GCC unroll 8
        for (guint v = 0; v < V; v++)
          c[r][v] = load (cp + r * t->ldc + 8 * v, masked && v == V - 1, m);
    }
  else
    {
#pragma GCC unroll 16
      for (guint r = 0; r < R; r++)
#pragma GCC unroll 8
        for (guint v = 0; v < V; v++)
          c[r][v] = _mm256_setzero_ps ();
    }

  const float *a = t->values + (gsize) r0 * b;
  for (guint j = 0; j < t->n_blocks; j++, a += (gsize) b * b)
    {
      const float *bp = t->B + t->b_offsets[j];
      guint jn = MIN (j + D, t->n_blocks - 1);
      const float *pf = t->B + t->b_offsets[jn];
      for (guint k0 = 0; k0 < b; k0 += U)
#pragma GCC unroll 16
        for (guint u = 0; u < U; u++)
          {
            const float *brow = bp + (k0 + u) * t->ldb;
            __m256 x[MAX_V];
#pragma GCC unroll 8
            for (guint v = 0; v < V; v++)
              _mm_prefetch ((const char *) (pf + (k0 + u) * t->ldb + 8 * v),
                            _MM_HINT_T0);
#pragma GCC unroll 8
            for (guint v = 0; v < V; v++)
              x[v] = load (brow + 8 * v, masked && v == V - 1, m);
#pragma GCC unroll 16
            for (guint r = 0; r < R; r++)
              {
                __m256 s = _mm256_set1_ps (a[r * b + k0 + u]);
#pragma GCC unroll 8
                for (guint v = 0; v < V; v++)
                  c[r][v] = _mm256_fmadd_ps (s, x[v], c[r][v]);
              }
          }
    }

#pragma GCC unroll 16
  for (guint r = 0; r < R; r++)
#pragma GCC unroll 8
    for (guint v = 0; v < V; v++)
      store (cp + r * t->ldc + 8 * v, c[r][v], masked && v == V - 1, m);
}

/* Every row of one column tile: R at a time, then one at a time. */
INLINE void
col_tile (const Tile *t, guint b, guint rows, guint R, guint V, guint U,
          guint D, gboolean masked, __m256i m)
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
  guint nv = (guint) (w + 7) / 8;
  __m256i m = _mm256_cmpgt_epi32 (_mm256_set1_epi32 ((int) (w - 8 * (nv - 1))),
                                  _mm256_setr_epi32 (0, 1, 2, 3, 4, 5, 6, 7));

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
  const guint64 width = 8 * V;
  Tile t = { task->values, task->b_offsets, task->n_blocks, B, ldb, C, ldc,
             accumulate };
  guint64 j0 = 0;

  if (task->n_blocks == 0 && accumulate)
    return;
  for (; j0 + width <= n; j0 += width, t.B += width, t.C += width)
    col_tile (&t, b, task->rows, R, V, U, D, FALSE,
              _mm256_setzero_si256 ());
  if (j0 < n)
    col_tail (&t, b, task->rows, R, V, U, D, n - j0);
}

#define KERNEL(NAME, B_, SHAPE) \
  static void \
  NAME (const SpxRowTask *task, const float *B, guint64 ldb, float *C, \
        guint64 ldc, guint64 n, gboolean accumulate) \
  { \
    block_row (task, B, ldb, C, ldc, n, accumulate, B_, SHAPE); \
  }

KERNEL (spmm_b1, 1, SHAPE_1)
KERNEL (spmm_b2, 2, SHAPE_2)
KERNEL (spmm_b4, 4, SHAPE_4)
KERNEL (spmm_b8, 8, SHAPE_8)
KERNEL (spmm_b16, 16, SHAPE_16)
KERNEL (spmm_b32, 32, SHAPE_32)
KERNEL (spmm_any, task->b, SHAPE_ANY)

SpxSpmmKernel
spx_kernel_spmm_avx2 (guint b)
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
spx_kernel_spmm_avx2_any (void)
{
  return spmm_any;
}
