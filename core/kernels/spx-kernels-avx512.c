/* spx-kernels-avx512.c: the micro-kernel of spx-kernels-tile.h with
 * AVX-512: 16-float vectors, 32 registers, mask registers for the last
 * vector of a row. */
#include "spx-kernels-private.h"

#include <immintrin.h>

#define INLINE static inline __attribute__ ((always_inline))
#define MAX_R 16
#define MAX_V 8

/* Tile shapes per block size: rows R, vectors V (R·V accumulators of
 * 32 zmm), k-steps unrolled U, and how many blocks ahead D the B rows are
 * prefetched; each measured against its alternatives with
 * tests/bench-kernels and bench. A whole block's rows in one tile (R = b)
 * beat re-reading its B rows for a second row tile (at b = 16 once the
 * plans pack B: 16×1 0.87–0.89 efficiency against 8×2's 0.82). */
#ifndef SHAPE_1
#define SHAPE_1 1, 8, 1, 4
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
#define SHAPE_16 16, 1, 16, 1
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
#define KERNEL_TABLE spx_kernel_spmm_avx512
#define KERNEL_TABLE_ANY spx_kernel_spmm_avx512_any

INLINE Mask
tail_mask (guint rem)
{
  return (Mask) ((1u << rem) - 1);
}

#include "spx-kernels-tile.h"

#define SDDMM_BLOCK spx_kernel_sddmm_avx512
#define SDDMM_PACK spx_kernel_sddmm_pack_avx512
#include "spx-sddmm-block.h"

/* SDDMM's packed kernels in zmm (b = 16, 32, 64), and in ymm and xmm
 * (b = 8, 4): AVX-512VL gives those 32 registers and broadcasts folded
 * into the multiply-adds. Rows per tile: R·V accumulators of 32. */
#define PANEL_VEC __m512
#define PANEL_VW 16
#define PANEL_LOAD(p) _mm512_loadu_ps (p)
#define PANEL_STORE(p, x) _mm512_storeu_ps (p, x)
#define PANEL_ZERO() _mm512_setzero_ps ()
#define PANEL_SET1(x) _mm512_set1_ps (x)
#define PANEL_FMA(a, b, c) _mm512_fmadd_ps (a, b, c)
#define PANEL_R1 16
#define PANEL_R2 8
#define PANEL_R4 4
#define PANEL_NAME(x) zmm_##x
#define PANEL_TABLE panel_zmm
#include "spx-sddmm-panel.h"

#define PANEL_VEC __m256
#define PANEL_VW 8
#define PANEL_LOAD(p) _mm256_loadu_ps (p)
#define PANEL_STORE(p, x) _mm256_storeu_ps (p, x)
#define PANEL_ZERO() _mm256_setzero_ps ()
#define PANEL_SET1(x) _mm256_set1_ps (x)
#define PANEL_FMA(a, b, c) _mm256_fmadd_ps (a, b, c)
#define PANEL_R1 16
#define PANEL_R2 8
#define PANEL_R4 4
#define PANEL_NAME(x) ymm_##x
#define PANEL_TABLE panel_ymm
#include "spx-sddmm-panel.h"

#define PANEL_VEC __m128
#define PANEL_VW 4
#define PANEL_LOAD(p) _mm_loadu_ps (p)
#define PANEL_STORE(p, x) _mm_storeu_ps (p, x)
#define PANEL_ZERO() _mm_setzero_ps ()
#define PANEL_SET1(x) _mm_set1_ps (x)
#define PANEL_FMA(a, b, c) _mm_fmadd_ps (a, b, c)
#define PANEL_R1 16
#define PANEL_R2 8
#define PANEL_R4 4
#define PANEL_NAME(x) xmm_##x
#define PANEL_TABLE panel_xmm
#include "spx-sddmm-panel.h"

/* The packed kernel for b, in the widest vectors it fills. */
SpxSddmmPanel
spx_kernel_sddmm_panel_avx512 (guint b)
{
  SpxSddmmPanel k = panel_zmm (b);
  if (k == NULL)
    k = panel_ymm (b);
  return k != NULL ? k : panel_xmm (b);
}
