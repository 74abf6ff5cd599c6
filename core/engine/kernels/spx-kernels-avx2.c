/* spx-kernels-avx2.c: the micro-kernel of spx-kernels-tile.h with AVX2
 * and FMA: 8-float vectors, 16 registers, maskload/maskstore for the last
 * vector of a row. */
#include "spx-kernels-private.h"

#include <immintrin.h>
#include <string.h>

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

typedef __m256 Vec;
typedef __m256i Mask;
#define VW 8
#define VEC_LOAD(p) _mm256_loadu_ps (p)
#define VEC_MASKLOAD(p, m) _mm256_maskload_ps (p, m)
#define VEC_STORE(p, x) _mm256_storeu_ps (p, x)
#define VEC_MASKSTORE(p, m, x) _mm256_maskstore_ps (p, m, x)
#define VEC_ZERO() _mm256_setzero_ps ()
#define VEC_SET1(x) _mm256_set1_ps (x)
#define VEC_FMA(a, b, c) _mm256_fmadd_ps (a, b, c)
#define KERNEL_TABLE_ANY spx_kernel_spmm_avx2_any

INLINE Mask
tail_mask (guint rem)
{
  return _mm256_cmpgt_epi32 (_mm256_set1_epi32 ((int) rem),
                             _mm256_setr_epi32 (0, 1, 2, 3, 4, 5, 6, 7));
}

#include "spx-kernels-tile.h"

#define WIDEN_SET spx_kernels_avx2_bf16
#define WIDEN_NAME "avx2"
#include "spx-kernels-widen.h"

#define SDDMM_BLOCK sddmm_block
#define SDDMM_PACK sddmm_transpose
#include "spx-sddmm-block.h"

/* SDDMM's packed kernels in ymm (b = 8, 16, 32) and xmm (b = 4). Rows
 * per tile: R·V accumulators, at most 8 of 16 registers (AVX2 broadcasts
 * into a register of its own before each multiply-add). */
#define PANEL_BITS 256
#define PANEL_R1 8
#define PANEL_R2 4
#define PANEL_R4 2
#define PANEL_NAME(x) ymm_##x
#define PANEL_TABLE panel_ymm
#include "spx-sddmm-panel.h"

#define PANEL_BITS 128
#define PANEL_R1 8
#define PANEL_R2 4
#define PANEL_R4 2
#define PANEL_NAME(x) xmm_##x
#define PANEL_TABLE panel_xmm
#include "spx-sddmm-panel.h"

static SpxSddmmPanel
sddmm_panel (guint b)
{
  SpxSddmmPanel k = panel_ymm (b);
  return k != NULL ? k : panel_xmm (b);
}

/* Every packed kernel here reads Q transposed. */
static SpxSddmmPack
sddmm_pack (guint b)
{
  return sddmm_transpose;
}

const SpxKernelSet spx_kernels_avx2_fp32 = {
  spmm_kernel, sddmm_block, sddmm_panel, sddmm_pack
};
