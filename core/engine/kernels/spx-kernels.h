/* spx-kernels.h: per-instruction-set micro-kernels for one block-row of a
 * block-sparse × dense product. The plans (core/engine/spx-engine-*.c) do the
 * ordering, threading and n-chunking; a kernel only multiplies. */
#pragma once

#include <glib.h>
#include "spx-isa.h"

G_BEGIN_DECLS

/* One block-row of A: n_blocks full-width blocks (the ragged last
 * block-column, if any, is handled by spx_kernel_edge). */
typedef struct {
  guint          b;         /* block size */
  guint          rows;      /* rows of C here: b, or fewer on the last block-row */
  guint          n_blocks;
  union {
    const float   *values;  /* n_blocks × b × b, row-major inside a block */
    const guint16 *values_bf16; /* the same in bf16, for bf16 kernels */
  };
  const guint32 *b_offsets; /* per block: offset in floats of its first row
                               in B, i.e. block-column · b · ldb (pre-scaled;
                               32 bits keep the plan small: the plans refuse
                               k·ldb ≥ 2^32); for bf16 kernels in elements
                               of their panel, block-column · rows · ldb
                               (rows: their set's bcol_rows) */
  guint32        b_scale;   /* b_offsets are multiplied by this (0: by 1):
                               a dynamic plan passes its pattern's
                               block-columns and the panel's stride per
                               block-column, saving a pass over them */
} SpxRowTask;

/* What b_offsets are multiplied by. */
static inline guint64
spx_task_scale (const SpxRowTask *t)
{
  return t->b_scale != 0 ? t->b_scale : 1;
}

/* C[0..rows) × [0..n) = (accumulate ? C : 0) + A_row · B, where B and C
 * point at column 0 of the part being computed (the caller offsets them
 * for n-chunks), ldb and ldc are row strides in floats. With n_blocks = 0
 * and !accumulate the rows are zeroed. Any n ≥ 1. */
typedef void (*SpxSpmmKernel) (const SpxRowTask *task, const float *B,
                               guint64 ldb, float *C, guint64 ldc, guint64 n,
                               gboolean accumulate);

/* C += one block of width kw < b (the ragged last block-column) · B. */
void          spx_kernel_edge (guint b, guint rows, guint kw,
                               const float *values, const float *B,
                               guint64 ldb, float *C, guint64 ldc, guint64 n);

/* SDDMM: one rows×cols block (≤ b; fewer on the ragged edges) of P·Qᵀ, P
 * and Q at the block's first rows (row stride kd), into out (b×b,
 * row-major; entries past rows/cols zeroed). */
typedef void (*SpxSddmmBlock) (const float *P, const float *Q, guint64 kd,
                               guint b, guint rows, guint cols, float *out);

/* SDDMM from a packed Q: n rows of P (p[i], kd long) against one
 * block-column's panel Qt (as the set's sddmm_pack leaves it: mostly
 * kd×b, Q transposed, Qt[t·b + c] = Q[c][t], 0 past Q's last row), row i
 * of the result into o[i] (b floats). The rows may come from any blocks
 * of that column. */
typedef void (*SpxSddmmPanel) (const float *const *p, float *const *o,
                               guint n, guint64 kd, const float *Qt);

/* A block-column of Q (cols ≤ b rows of kd floats from q) packed into
 * the panel the packed kernel for the same b reads (at most b·(kd + 3)
 * floats; Q transposed unless that kernel says otherwise), rows past cols
 * as zeros. */
typedef void (*SpxSddmmPack) (const float *q, guint64 kd, guint b,
                              guint cols, float *panel);

/* One instruction set's fp32 kernels, each chosen once per plan or run,
 * never per block. A second dtype is a second table of sets (its own
 * kernel types) beside fp32's in spx-kernels.c, not more switches. */
typedef struct {
  /* specialised for b ∈ {1, 2, 4, 8, 16, 32}, a generic one otherwise */
  SpxSpmmKernel (*spmm)        (guint b);
  SpxSddmmBlock   sddmm;
  /* the packed kernel for b, or NULL (then sddmm) */
  SpxSddmmPanel (*sddmm_panel) (guint b);
  /* its packing of Q, or NULL when the set has no packed kernels */
  SpxSddmmPack  (*sddmm_pack)  (guint b);
} SpxKernelSet;

/* SDDMM with P and Q in bf16 (guint16, spx-bf16.h), sums and out in
 * fp32: one block as SpxSddmmBlock does. */
typedef void (*SpxSddmmBlockBf16) (const guint16 *P, const guint16 *Q,
                                   guint64 kd, guint b, guint rows,
                                   guint cols, float *out);

/* As SpxSddmmPanel, against the panel the set's sddmm_pack leaves for
 * the same b (its layout is the kernel's own), b passed along. */
typedef void (*SpxSddmmPanelBf16) (const guint16 *const *p, float *const *o,
                                   guint n, guint64 kd, guint b,
                                   const guint16 *Qt);

/* As SpxSddmmPack, in bf16: at most 2·(b + 15)·(kd + 32) of them, zeros
 * past cols and past kd. */
typedef void (*SpxSddmmPackBf16) (const guint16 *q, guint64 kd, guint b,
                                  guint cols, guint16 *panel);

/* One instruction set's bf16 SDDMM kernels, as fp32's (SpMM's bf16
 * kernels are SpxKernelSetBf16, below). */
typedef struct {
  SpxSddmmBlockBf16   sddmm;
  /* the packed kernel for b, or NULL (then sddmm) */
  SpxSddmmPanelBf16 (*sddmm_panel) (guint b);
  SpxSddmmPackBf16  (*sddmm_pack)  (guint b);
} SpxSddmmSetBf16;

/* The set for isa (the generic one for a value out of range). */
const SpxKernelSet *spx_kernel_set  (SpxIsa isa);
/* isa's bf16 SDDMM set if it has one and this processor runs it, else
 * NULL (then convert to fp32). */
const SpxSddmmSetBf16 *spx_sddmm_set_bf16 (SpxIsa isa);
/* spx_kernel_set (isa)->spmm (b). */
SpxSpmmKernel       spx_kernel_spmm (SpxIsa isa, guint b);

/* One block-row as the plans hand it over: its task, where its rows of C
 * start, and its ragged last-column block if it has one. */
typedef struct {
  SpxRowTask   task;
  guint64      c_row;         /* first row of C */
  union {
    const float   *edge_values; /* b × b block of width edge_kw, or NULL */
    const guint16 *edge_values_bf16;
  };
  guint        edge_kw;
  guint32      edge_b_offset; /* as b_offsets */
} SpxRowWork;

/* Run block-rows on the calling thread, in the order given, blocking n
 * for the caches: C = (accumulate ? C : 0) + A·B on those rows. */
void          spx_kernel_run (SpxIsa isa, const SpxRowWork *work,
                              gsize n_work, const float *B, guint64 ldb,
                              float *C, guint64 ldc, guint64 n,
                              gboolean accumulate);

/* bf16: A's values and B in bf16, the sums and C in fp32. A bf16 kernel
 * reads B from a panel its set packed: bcol_rows (b) rows of ldb
 * elements per block-column of b rows of B (rows past B's last one are
 * zeros), in the set's own element type and layout. */
typedef void (*SpxSpmmBf16Kernel) (const SpxRowTask *task,
                                   const void *panel, guint64 ldb, float *C,
                                   guint64 ldc, guint64 n,
                                   gboolean accumulate);

/* Block-columns c0 ≤ c < c1 of B (k rows, n columns from B's column 0,
 * row stride ldb) into the panel (row stride ldp elements). */
typedef void (*SpxBf16Pack) (const guint16 *B, guint64 ldb, guint64 k,
                             guint b, guint64 c0, guint64 c1, guint64 n,
                             void *panel, guint64 ldp);

/* One instruction set's bf16 kernels (a second table beside fp32's): on
 * sets without bf16 instructions, fp32 kernels on widened values. A
 * panel takes at most 4 bytes per element of B's rows padded to whole
 * blocks (the fp32 panel's size). */
typedef struct {
  /* which instructions do the products for b */
  const char       *(*name) (guint b);
  SpxSpmmBf16Kernel (*spmm)  (guint b);
  guint             (*bcol_rows) (guint b);
  SpxBf16Pack       (*pack)  (guint b);
  guint             element_bytes; /* of the panel: 4 widened, 2 bf16 */
} SpxKernelSetBf16;

const SpxKernelSetBf16 *spx_kernel_set_bf16 (SpxIsa isa);
/* The name of the fp32 kernels isa runs ("avx512" on its bf16
 * extensions too). */
const char   *spx_kernel_name (SpxIsa isa);
/* The size of one core's L2 cache, which the plans size B's panels to. */
gsize         spx_kernel_l2_bytes (void);

/* spx_kernel_run for bf16 work (values_bf16) on a panel packed by isa's
 * bf16 set; the ragged edge block runs as a full one with zero columns
 * past edge_kw (the panel's rows there are zeros). */
void          spx_kernel_run_bf16 (SpxIsa isa, const SpxRowWork *work,
                                   gsize n_work, const void *panel,
                                   guint64 ldp, float *C, guint64 ldc,
                                   guint64 n, gboolean accumulate);

G_END_DECLS
