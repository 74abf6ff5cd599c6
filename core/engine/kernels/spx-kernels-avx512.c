/* spx-kernels-avx512.c: the micro-kernel of spx-kernels-tile.h with
 * AVX-512: 16-float vectors, 32 registers, mask registers for the last
 * vector of a row. */
#include "spx-kernels-private.h"

#include <immintrin.h>
#include <string.h>

#define INLINE static inline __attribute__ ((always_inline))
#define MAX_R 16
#define MAX_V 8

/* Tile shapes per block size: rows R, vectors V (R·V accumulators of
 * 32 zmm), k-steps unrolled U, and how many blocks ahead D the B rows are
 * prefetched; each measured against its alternatives with
 * tests/bench-kernels and bench. At b = 16, two row tiles of 8×2: with
 * B's panel in half of L2, reading a block's B rows a second time costs
 * less than 16×1's 16 broadcast loads of A per 16 FMAs (2 threads,
 * 2048², d 0.1, n 256: 0.91–0.96 of dense against 0.86–0.90).
 * b = 1 prefetches nothing on rows of 16 non-zeros or more (shorter
 * ones: SHAPE_1_SHORT): B's panel is already in L2, and a row's 8
 * prefetches cost as many load-port slots as its 8 loads (1 thread,
 * DLMC 0.7 ffn_conv1 3.8 → 3.2 ms, 0.9 1.32 → 1.13 ms, uniform 2048²
 * at 0.1 efficiency 0.31 → 0.34; panels of B's rows, V = 6, 12 or 16
 * and D = 2 measured no better). */
#ifndef SHAPE_1
#define SHAPE_1 1, 8, 1, 0
#endif
#ifndef SHAPE_1_SHORT
#define SHAPE_1_SHORT 1, 8, 1, 4
#endif
#ifndef SHAPE_2
#define SHAPE_2 2, 8, 2, 2
#endif
#ifndef SHAPE_4
#define SHAPE_4 4, 4, 4, 2
#endif
#ifndef SHAPE_8
#define SHAPE_8 8, 3, 8, 2
#endif
#ifndef SHAPE_16
#define SHAPE_16 8, 2, 16, 1
#endif
#ifndef SHAPE_32
#define SHAPE_32 16, 1, 8, 1
#endif
#ifndef SHAPE_ANY
#define SHAPE_ANY 4, 4, 1, 1
#endif

typedef __m512 Vec;
typedef __mmask16 Mask;
#define VW 16
#define VEC_LOAD(p) _mm512_loadu_ps (p)
#define VEC_MASKLOAD(p, m) _mm512_maskz_loadu_ps (m, p)
#define VEC_STORE(p, x) _mm512_storeu_ps (p, x)
#define VEC_MASKSTORE(p, m, x) _mm512_mask_storeu_ps (p, m, x)
#define VEC_ZERO() _mm512_setzero_ps ()
#define VEC_SET1(x) _mm512_set1_ps (x)
#define VEC_FMA(a, b, c) _mm512_fmadd_ps (a, b, c)
#define KERNEL_TABLE_ANY spx_kernel_spmm_avx512_any

INLINE Mask
tail_mask (guint rem)
{
  return (Mask) ((1u << rem) - 1);
}

static void spmm_b1_avx512 (const SpxRowTask *task, const float *B,
                            guint64 ldb, float *C, guint64 ldc, guint64 n,
                            gboolean accumulate);
#define TABLE_B1 spmm_b1_avx512
#include "spx-kernels-tile.h"

/* A b = 1 row of fewer non-zeros than this still prefetches: too short
 * for the loads of one non-zero to overlap the next ones' (DLMC 0.98
 * ffn_conv1, 10 a row, 2 threads: 0.25 ms with, 0.30 without; a limit
 * of 32 lost on 0.95's rows of 26). */
#define B1_SHORT_ROW 16

static void
spmm_b1_avx512 (const SpxRowTask *task, const float *B, guint64 ldb,
                float *C, guint64 ldc, guint64 n, gboolean accumulate)
{
  if (task->n_blocks < B1_SHORT_ROW)
    block_row (task, B, ldb, C, ldc, n, accumulate, 1, SHAPE_1_SHORT);
  else
    block_row (task, B, ldb, C, ldc, n, accumulate, 1, SHAPE_1);
}

#define WIDEN_SET spx_kernels_avx512_bf16
#define WIDEN_NAME "avx512"
#include "spx-kernels-widen.h"

#define SDDMM_BLOCK sddmm_block
#define SDDMM_PACK sddmm_transpose
#include "spx-sddmm-block.h"

/* SDDMM's packed kernels in zmm (b = 16, 32, 64), and in ymm (b = 8):
 * AVX-512VL gives those 32 registers and broadcasts folded into the
 * multiply-adds. Rows per tile: R·V accumulators of 32. */
#define PANEL_BITS 512
#define PANEL_R1 16
#define PANEL_R2 8
#define PANEL_R4 4
#define PANEL_NAME(x) zmm_##x
#define PANEL_TABLE panel_zmm
#include "spx-sddmm-panel.h"

#define PANEL_BITS 256
#define PANEL_R1 16
#define PANEL_R2 8
#define PANEL_R4 4
#define PANEL_NAME(x) ymm_##x
#define PANEL_TABLE panel_ymm
#include "spx-sddmm-panel.h"

/* b = 4 in zmm, four steps of kd at a time: the panel holds, per group
 * of four steps, Q's four rows' four floats each (lane 4c + i: Q[c][t +
 * i]), and each row of P is loaded as its four floats and repeated in
 * every 128-bit lane (lane 4c + i: P[r][t + i]). Each lane sums one of
 * four interleaved chains in t order; a column's four lanes are then
 * added in pairs. Twice the throughput of xmm tiles, which fill a
 * quarter of the vector. */
INLINE __m512
quad_p (const float *p, guint64 g, guint rem)
{
  __m128 x = rem == 0 ? _mm_loadu_ps (p + 4 * g)
                      : _mm_maskz_loadu_ps ((__mmask8) ((1u << rem) - 1),
                                            p + 4 * g);
  return _mm512_broadcast_f32x4 (x);
}

/* Lanes 4c..4c+3 summed, c = 0..3, into o[0..3]. */
INLINE void
quad_store (float *o, __m512 x)
{
  x = _mm512_add_ps (x, _mm512_permute_ps (x, 0xb1)); /* pairs */
  x = _mm512_add_ps (x, _mm512_permute_ps (x, 0x4e)); /* halves */
  __m512i first = _mm512_setr_epi32 (0, 4, 8, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                     0, 0, 0);
  _mm_storeu_ps (o, _mm512_castps512_ps128 (_mm512_permutexvar_ps (first,
                                                                   x)));
}

INLINE void
quad_tile (const float *const *p, float *const *o, guint64 kd,
           const float *Qg, guint R)
{
  const float *pr[16];
  __m512 c[16];
  guint64 g = 0, groups = kd / 4;

#pragma GCC unroll 16
  for (guint r = 0; r < R; r++)
    {
      pr[r] = p[r];
      c[r] = _mm512_setzero_ps ();
    }
  for (; g < groups; g++)
    {
      __m512 x = _mm512_loadu_ps (Qg + 16 * g);
#pragma GCC unroll 16
      for (guint r = 0; r < R; r++)
        c[r] = _mm512_fmadd_ps (quad_p (pr[r], g, 0), x, c[r]);
    }
  if (kd % 4 != 0) /* the panel's last group is zero-padded */
    {
      __m512 x = _mm512_loadu_ps (Qg + 16 * g);
#pragma GCC unroll 16
      for (guint r = 0; r < R; r++)
        c[r] = _mm512_fmadd_ps (quad_p (pr[r], g, (guint) (kd % 4)), x,
                                c[r]);
    }
#pragma GCC unroll 16
  for (guint r = 0; r < R; r++)
    quad_store (o[r], c[r]);
}

static void
quad_rows (const float *const *p, float *const *o, guint n, guint64 kd,
           const float *Qg)
{
  guint r = 0;

  for (; r + 16 <= n; r += 16)
    quad_tile (p + r, o + r, kd, Qg, 16);
  if (r + 8 <= n)
    {
      quad_tile (p + r, o + r, kd, Qg, 8);
      r += 8;
    }
  for (; r < n; r++)
    quad_tile (p + r, o + r, kd, Qg, 1);
}

/* quad_rows' panel: rows past cols and steps past kd zeroed. */
static void
quad_pack (const float *q, guint64 kd, guint b, guint cols, float *panel)
{
  guint64 groups = (kd + 3) / 4;

  for (guint64 g = 0; g < groups; g++)
    for (guint c = 0; c < 4; c++)
      {
        float *dst = panel + 16 * g + 4 * c;
        if (c < cols && 4 * g + 4 <= kd)
          _mm_storeu_ps (dst, _mm_loadu_ps (q + c * kd + 4 * g));
        else
          for (guint i = 0; i < 4; i++)
            dst[i] = c < cols && 4 * g + i < kd ? q[c * kd + 4 * g + i]
                                                : 0.0f;
      }
}

/* The packed kernel for b, in the widest vectors it fills. */
static SpxSddmmPanel
sddmm_panel (guint b)
{
  SpxSddmmPanel k = panel_zmm (b);
  if (k == NULL)
    k = panel_ymm (b);
  return k != NULL || b != 4 ? k : quad_rows;
}

/* Its packing: quad_rows' own at b = 4. */
static SpxSddmmPack
sddmm_pack (guint b)
{
  return b == 4 ? quad_pack : sddmm_transpose;
}

const SpxKernelSet spx_kernels_avx512_fp32 = {
  spmm_kernel, sddmm_block, sddmm_panel, sddmm_pack
};
