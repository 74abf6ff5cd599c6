/* spx-engine.h: the CPU engine: block-sparse × dense products, measured
 * against dense sgemm. A is m×k with square b×b blocks, B is k×n and C is
 * m×n, all row-major fp32. */
#pragma once

#include "spx-isa.h"
#include "spx-mask.h"

G_BEGIN_DECLS

#define SPX_ENGINE_ERROR (spx_engine_error_quark ())
GQuark spx_engine_error_quark (void);

typedef enum {
  SPX_ENGINE_ERROR_INVALID,     /* bad sizes, pattern or options */
  SPX_ENGINE_ERROR_OVER_BUDGET, /* a dynamic pattern over its budget */
  SPX_ENGINE_ERROR_UNSUPPORTED, /* an instruction set this CPU lacks */
  SPX_ENGINE_ERROR_NO_MEMORY,
  SPX_ENGINE_ERROR_CANCELLED,
} SpxEngineError;

/* How a plan's kernels are picked. */
typedef enum {
  SPX_PICK_GIVEN,    /* isa's, as given (SPX_ISA, a test of one set) */
  SPX_PICK_TUNED,    /* the fastest here, timed once and remembered (or
                      * the table of defaults: spx_tune_set_measuring) */
} SpxKernelPick;

/* How a plan's kernels were chosen, as bench --json says it. */
typedef enum {
  SPX_KERNEL_DEFAULT,    /* the table of defaults: measuring is off */
  SPX_KERNEL_MEASURED,   /* timed now */
  SPX_KERNEL_REMEMBERED, /* timed before: this process or the cache */
  SPX_KERNEL_FORCED,     /* SPX_ISA, or the caller's isa */
  SPX_KERNEL_N_CHOICES
} SpxKernelChoice;

const char *spx_kernel_choice_to_string (SpxKernelChoice choice);

/* SPX_ISA=amx-bf16|avx512-bf16|avx512|avx2|generic forces one (refused
 * if unsupported; *pick SPX_PICK_GIVEN); otherwise the best, its kernels
 * tuned (*pick SPX_PICK_TUNED). pick may be NULL. */
gboolean    spx_isa_from_env    (SpxIsa *isa, SpxKernelPick *pick,
                                 GError **error);

/* The number formats a CPU product takes its inputs in; C and the sums
 * are fp32 either way. bf16 values are guint16 (spx-bf16.h). */
typedef enum {
  SPX_CPU_FP32,
  SPX_CPU_BF16,
} SpxCpuType;

typedef struct {
  guint      threads; /* 0: all cores (OpenMP's default) */
  SpxIsa     isa;
  SpxKernelPick pick;
  /* What the plans take A's values and B in. A bf16 plan stores its
   * values rounded to bf16 and is run by the _bf16 calls; the sums and C
   * stay fp32. */
  SpxCpuType type;
} SpxEngineOptions;

/* The threads a plan made with options runs on: the option, or
 * OpenMP's default (what 0 asks for). */
guint    spx_engine_threads (const SpxEngineOptions *options);
/* threads 0, fp32, and the ISA from SPX_ISA (given) or the processor
 * (tuned). */
gboolean    spx_engine_options_init (SpxEngineOptions *options,
                                     GError **error);

/* A block-sparse pattern in block CSR form: row_offsets has brows + 1
 * entries, col_indices one block-column per non-zero block, each row's
 * columns strictly increasing. Values go with it: n_blocks blocks of b×b
 * floats, row-major inside a block, in the same order. Elements of edge
 * blocks that fall outside m×k are ignored. */
typedef struct {
  guint64        m, k;
  guint          b;
  guint64        brows, bcols;
  guint64        n_blocks;
  const guint64 *row_offsets;
  const guint32 *col_indices;
} SpxBlockCsr;

/* Fill csr (pointing into arrays it allocates; free with
 * spx_block_csr_clear) from a mask. */
void        spx_block_csr_from_mask (SpxBlockCsr *csr, const SpxMask *mask);
void        spx_block_csr_clear     (SpxBlockCsr *csr);
/* Structure checks with a message saying what is wrong and where. */
gboolean    spx_block_csr_validate  (const SpxBlockCsr *csr, GError **error);

/* Static sparsity: all pattern-dependent work happens once here. values
 * are copied (NULL when the mask has no blocks). Both plans are refused
 * with SPX_BUDGET_ERROR_TOO_LARGE (spx-util.h) before allocating when
 * they would take more than the memory budget. */
typedef struct _SpxStaticPlan SpxStaticPlan;

SpxStaticPlan *spx_static_plan_new     (const SpxMask *mask,
                                        const float *values, guint64 n,
                                        const SpxEngineOptions *options,
                                        GError **error);
/* C = A·B, or C += A·B when accumulate. */
void           spx_static_plan_execute (SpxStaticPlan *plan, const float *B,
                                        float *C, gboolean accumulate);
/* The same for a plan made with type SPX_CPU_BF16: B is k×n bf16. */
void           spx_static_plan_execute_bf16 (SpxStaticPlan *plan,
                                             const guint16 *B, float *C,
                                             gboolean accumulate);
/* The kernel a run uses ("avx512", "avx512-bf16", "amx-bf16",
 * "generic"): which instructions did the work. */
const char    *spx_static_plan_kernel  (const SpxStaticPlan *plan);
/* How that kernel was chosen. */
SpxKernelChoice spx_static_plan_kernel_choice (const SpxStaticPlan *plan);
/* Bytes the plan holds (values, indices, schedule). */
gsize          spx_static_plan_bytes   (const SpxStaticPlan *plan);
void           spx_static_plan_free    (SpxStaticPlan *plan);

/* Dynamic sparsity: only sizes and a budget of non-zero blocks are fixed;
 * every execute brings its own pattern and values. A pattern over budget
 * is refused before C is touched. */
typedef struct _SpxDynamicPlan SpxDynamicPlan;

SpxDynamicPlan *spx_dynamic_plan_new     (guint64 m, guint64 k, guint64 n,
                                          guint b, guint64 max_blocks,
                                          const SpxEngineOptions *options,
                                          GError **error);
gboolean        spx_dynamic_plan_execute (SpxDynamicPlan *plan,
                                          const SpxBlockCsr *pattern,
                                          const float *values, const float *B,
                                          float *C, gboolean accumulate,
                                          GError **error);
/* The same from block coordinates in any order (COO); values follow the
 * coordinates' order. */
gboolean        spx_dynamic_plan_execute_coo (SpxDynamicPlan *plan,
                                              guint64 n_blocks,
                                              const guint32 *block_rows,
                                              const guint32 *block_cols,
                                              const float *values,
                                              const float *B, float *C,
                                              gboolean accumulate,
                                              GError **error);
/* For a plan made with type SPX_CPU_BF16: values and B in bf16. */
gboolean        spx_dynamic_plan_execute_bf16 (SpxDynamicPlan *plan,
                                               const SpxBlockCsr *pattern,
                                               const guint16 *values,
                                               const guint16 *B, float *C,
                                               gboolean accumulate,
                                               GError **error);
const char     *spx_dynamic_plan_kernel  (const SpxDynamicPlan *plan);
SpxKernelChoice spx_dynamic_plan_kernel_choice (const SpxDynamicPlan *plan);
void            spx_dynamic_plan_free    (SpxDynamicPlan *plan);

/* Tile-wise sparsity (Guo et al.): A's non-empty columns (columns with
 * no non-zero are dropped, so B's matching rows are never read) are cut
 * into tiles of tile_width consecutive columns; a row of A is kept in a
 * tile when any of its elements there is non-zero (a set block counts all
 * its elements). Each tile is condensed once into a dense matrix of its
 * kept rows, and a run is small sgemms on those, added into C in tile
 * order (the same bits on any number of threads). Any mask is accepted,
 * but one that is not tile-wise keeps more rows, and zeros in them are
 * multiplied too: spx_tilewise_plan_fill says how much of the work is
 * non-zero. values as for spx_static_plan_new (copied); refused with
 * SPX_ENGINE_ERROR_INVALID (no mask, tile width 0, bad sizes, no values
 * for a non-empty mask) or SPX_BUDGET_ERROR_TOO_LARGE before allocating. */
typedef struct _SpxTilewisePlan SpxTilewisePlan;

SpxTilewisePlan *spx_tilewise_plan_new     (const SpxMask *mask,
                                            const float *values,
                                            guint tile_width, guint64 n,
                                            const SpxEngineOptions *options,
                                            GError **error);
/* C = A·B, or C += A·B when accumulate. */
void             spx_tilewise_plan_execute (SpxTilewisePlan *plan,
                                            const float *B, float *C,
                                            gboolean accumulate);
/* Bytes the plan holds (condensed values, indices, buffers). */
gsize            spx_tilewise_plan_bytes   (const SpxTilewisePlan *plan);
guint64          spx_tilewise_plan_n_tiles (const SpxTilewisePlan *plan);
/* Rows kept in tile (0 past the last tile). */
guint64          spx_tilewise_plan_tile_rows (const SpxTilewisePlan *plan,
                                              guint64 tile);
/* A's non-empty columns, the ones cut into tiles. */
guint64          spx_tilewise_plan_kept_columns (const SpxTilewisePlan *plan);
/* Floating-point operations a run does: 2 · condensed elements · n. */
double           spx_tilewise_plan_flops   (const SpxTilewisePlan *plan);
/* Non-zero elements / condensed elements computed (1 when both are 0):
 * 1 for a tile-wise mask, less when zeros are computed. */
double           spx_tilewise_plan_fill    (const SpxTilewisePlan *plan);
void             spx_tilewise_plan_free    (SpxTilewisePlan *plan);

/* SDDMM: for every non-zero block of pattern, out = the matching entries
 * of P·Qᵀ, P m×kd and Q k×kd row-major (so the result has A's shape),
 * written in the pattern's value order (b×b per block, row-major; entries
 * outside m×k are written as 0). */
gboolean    spx_sddmm (const SpxBlockCsr *pattern, const float *P,
                       const float *Q, guint64 kd, float *out,
                       const SpxEngineOptions *options, GError **error);

/* The same with P and Q in bf16 (out stays fp32, sums in fp32). With
 * AVX512_BF16 (and AMX where there is) the sums flush subnormals to 0,
 * as those instructions do; elsewhere P and Q are widened to fp32 first
 * (which takes (m + k)·kd floats more memory for the call). */
gboolean    spx_sddmm_bf16 (const SpxBlockCsr *pattern, const guint16 *P,
                            const guint16 *Q, guint64 kd, float *out,
                            const SpxEngineOptions *options, GError **error);

/* Dense reference: C = A·B (or C += A·B) through OpenBLAS cblas_sgemm,
 * on threads threads (0: all). */
void        spx_dense_sgemm (guint64 m, guint64 k, guint64 n, const float *A,
                             const float *B, float *C, gboolean accumulate,
                             guint threads);
/* Dense C = A·B through oneDNN's matmul on threads threads (0: all),
 * made once for the shape m × k × n (row-major, as spx_dense_sgemm's),
 * A and B of type. Without oneDNN in the build, or (bf16) on a CPU
 * oneDNN has no bf16 matmul for, _new fails with
 * SPX_ENGINE_ERROR_UNSUPPORTED saying so. */
typedef struct _SpxDenseOnednn SpxDenseOnednn;
SpxDenseOnednn *spx_dense_onednn_new (guint64 m, guint64 k, guint64 n,
                                      SpxCpuType type, guint threads,
                                      GError **error);
void        spx_dense_onednn_run     (SpxDenseOnednn *d, gconstpointer A,
                                      gconstpointer B, float *C);
/* The kernel oneDNN chose ("brg:avx512_core", "gemm:jit"). */
const char *spx_dense_onednn_kernel  (const SpxDenseOnednn *d);
void        spx_dense_onednn_free    (SpxDenseOnednn *d);
/* "oneDNN 2.6.3", or NULL when the build has none. */
const char *spx_dense_onednn_version (void);

/* OpenBLAS's build string, and whether it shares OpenMP's threads (a
 * pthread build spins after each call and starves the sparse kernels). */
const char *spx_dense_config (gboolean *uses_openmp);
/* The kernel OpenBLAS runs ("Haswell", "SkylakeX", "Zen", …). */
const char *spx_dense_core (void);
/* OpenBLAS 0.3.21 does not know newer processors and falls back to an old
 * SSE3 kernel (5× slower on an AVX-512 core), and some systems set
 * OPENBLAS_CORETYPE to a kernel weaker than the processor runs (Haswell on
 * an AVX-512 core: dense at ~60% of its speed, every speedup inflated).
 * The OPENBLAS_CORETYPE that would give it full speed, or NULL when it
 * already runs a fitting kernel. OpenBLAS reads it only when loaded. */
const char *spx_dense_better_coretype (void);
/* If OpenBLAS runs a weaker kernel than it could, set OPENBLAS_CORETYPE
 * (overriding the environment's, kept in SPX_CORETYPE_WAS) and start this
 * program again (once; argv as main got it), unless SPX_KEEP_CORETYPE is
 * set. Call first thing in main, before any thread exists. Returns only
 * when no restart was needed or it failed. */
#define SPX_KEEP_CORETYPE_ENV "SPX_KEEP_CORETYPE"
#define SPX_CORETYPE_WAS_ENV  "SPX_CORETYPE_WAS"
void        spx_dense_restart_at_full_speed (char **argv);
/* The OPENBLAS_CORETYPE the environment asked for when the restart
 * overrode it, else NULL. */
const char *spx_dense_core_requested (void);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SpxStaticPlan, spx_static_plan_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SpxDynamicPlan, spx_dynamic_plan_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SpxTilewisePlan, spx_tilewise_plan_free)

G_END_DECLS
