/* spx-kernels-private.h: each instruction set's kernels, for the
 * dispatcher (spx-kernels.c), the tests and the kernel benchmark. Only
 * call an ISA's kernels after checking that the processor runs it. */
#pragma once

#include "spx-kernels.h"

G_BEGIN_DECLS

/* What every ISA's kernel works on: one block-row's operands, with B and
 * C at the current column tile. */
typedef struct {
  const float   *values;
  const guint32 *b_offsets;
  guint64        b_scale; /* spx_task_scale */
  guint          n_blocks;
  const float   *B;
  guint64        ldb;
  float         *C;
  guint64        ldc;
  gboolean       accumulate;
} Tile;

/* Each instruction set's fp32 kernels (the rows of spx-kernels.c's
 * table). */
extern const SpxKernelSet spx_kernels_generic_fp32;
extern const SpxKernelSet spx_kernels_avx2_fp32;
extern const SpxKernelSet spx_kernels_avx512_fp32;
/* bf16 SDDMM's (spx-kernels.c's SDDMM table); needs AVX512_BF16. */
extern const SpxSddmmSetBf16 spx_sddmm_avx512bf16_set;
/* The same without AMX, whatever the processor has (for the tests). */
extern const SpxSddmmSetBf16 spx_sddmm_avx512bf16_lanes_set;

/* Each instruction set's bf16 kernels (the rows of the second table). */
extern const SpxKernelSetBf16 spx_kernels_generic_bf16;
extern const SpxKernelSetBf16 spx_kernels_avx2_bf16;
extern const SpxKernelSetBf16 spx_kernels_avx512_bf16;
extern const SpxKernelSetBf16 spx_kernels_avx512bf16_bf16;
extern const SpxKernelSetBf16 spx_kernels_amx_bf16;

/* Their SpMM kernels' generic-b paths, whatever b is (for the tests). */
SpxSpmmKernel spx_kernel_spmm_generic_any (void);
SpxSpmmKernel spx_kernel_spmm_avx2_any    (void);
SpxSpmmKernel spx_kernel_spmm_avx512_any  (void);

/* The column-chunk width spx_kernel_run picks for these work items. */
guint64       spx_kernel_chunk_width (const SpxRowWork *work, gsize n_work,
                                      guint64 ldb, guint64 n);

/* spx_kernel_run with a given chunk width nc (n or more: one chunk) and
 * panel height kp (rows of B; the rows touched or more: one panel), so
 * that the tests and the benchmark can choose them. All work items must
 * have the same b. */
void          spx_kernel_run_blocked (SpxIsa isa, const SpxRowWork *work,
                                      gsize n_work, const float *B,
                                      guint64 ldb, float *C, guint64 ldc,
                                      guint64 n, gboolean accumulate,
                                      guint64 nc, guint64 kp);

G_END_DECLS
