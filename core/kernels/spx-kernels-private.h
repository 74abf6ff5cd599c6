/* spx-kernels-private.h: each instruction set's entry points, for the
 * dispatcher (spx-kernels.c), the tests and the kernel benchmark. Only
 * call an ISA's functions after checking that the processor runs it. */
#pragma once

#include "spx-kernels.h"

G_BEGIN_DECLS

/* What every ISA's kernel works on: one block-row's operands, with B and
 * C at the current column tile. */
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

/* Each returns its kernel for block size b: a specialised one for
 * b ∈ {1, 2, 4, 8, 16, 32}, its generic-b kernel otherwise. */
SpxSpmmKernel spx_kernel_spmm_generic (guint b);
SpxSpmmKernel spx_kernel_spmm_avx2    (guint b);
SpxSpmmKernel spx_kernel_spmm_avx512  (guint b);

/* The same kernels' generic-b paths, whatever b is (for the tests). */
SpxSpmmKernel spx_kernel_spmm_generic_any (void);
SpxSpmmKernel spx_kernel_spmm_avx2_any    (void);
SpxSpmmKernel spx_kernel_spmm_avx512_any  (void);

/* Each instruction set's SDDMM block (spx-sddmm-block.h). */
void spx_kernel_sddmm_generic (const float *P, const float *Q, guint64 kd,
                               guint b, guint rows, guint cols, float *out);
void spx_kernel_sddmm_avx2    (const float *P, const float *Q, guint64 kd,
                               guint b, guint rows, guint cols, float *out);
void spx_kernel_sddmm_avx512  (const float *P, const float *Q, guint64 kd,
                               guint b, guint rows, guint cols, float *out);
/* Each instruction set's packed-panel SDDMM for block size b, or NULL. */
SpxSddmmPanel spx_kernel_sddmm_panel_avx2   (guint b);
SpxSddmmPanel spx_kernel_sddmm_panel_avx512 (guint b);
/* Their packing of Q: Q transposed (the AVX2 one, and AVX-512's for every
 * b but 4), or AVX-512's for its panels at b. */
void          spx_kernel_sddmm_pack_avx2      (const float *q, guint64 kd,
                                               guint b, guint cols,
                                               float *panel);
void          spx_kernel_sddmm_transpose_avx512 (const float *q, guint64 kd,
                                                 guint b, guint cols,
                                                 float *panel);
SpxSddmmPack  spx_kernel_sddmm_pack_avx512    (guint b);

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
