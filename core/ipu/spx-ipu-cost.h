/* spx-ipu-cost.h: every cycle formula of the IPU model and every constant
 * it rests on, in one place. The planners estimate and build with these
 * same functions. Each adds its named terms to `terms` (a GArray of
 * SpxIpuTerm) when that is not NULL and returns their sum; every term is
 * rounded up to whole cycles first, so a step's terms add up to its
 * cycles exactly. */
#pragma once

#include "spx-ipu-program.h"

G_BEGIN_DECLS

/* ---- bytes ------------------------------------------------------------ */

/* Partial sums of the dynamic program are fp32 whatever the dtype (they
 * accumulate in fp32 and cast once at the end), and so are the dense
 * program's unless its planner finds the dtype's faster; the static
 * program's are the dtype (spx_ipu_cost_partials). */
#define SPX_IPU_PARTIAL_BYTES 4u
/* Static index metadata: per block its column offset (u16), per row a
 * header (u32: row offset and block count), per tile a vertex header. */
#define SPX_IPU_INDEX_BYTES_BLOCK 2u
#define SPX_IPU_INDEX_BYTES_ROW   4u
#define SPX_IPU_INDEX_BYTES_TILE  16u
/* Share of every dynamic bucket kept free for an uneven pattern
 * (PopSparse's "bucket oversize proportion", its default). */
#define SPX_IPU_BUCKET_OVERSIZE 0.3
/* What partial sums are kept in by default in a program of mode: the
 * static program's are its dtype ([PopLibs] lib/popsparse/StaticMatMul.cpp
 * and MatMulOptions.hpp: partials type = data type), the others' fp32
 * (poplin's default partials type). */
SpxDtype spx_ipu_cost_partials  (SpxIpuMode mode, SpxDtype dtype);
/* Bytes of one of them. */
guint spx_ipu_cost_partial_bytes (SpxIpuMode mode, SpxDtype dtype);
/* Columns of X in 8 bytes: the step n is split in (4 halves, 2 floats). */
guint spx_ipu_cost_grain      (SpxDtype dtype);

/* ---- layouts ----------------------------------------------------------- */

/* A tensor spread linearly over the tiles in order, as PopLibs'
 * mapTensorLinearly does ([PopLibs] lib/poputil/TileMapping.cpp,
 * calcLinearTileMapping): units cut in grains of grain units, each of
 * the first `used` tiles taking per or per − 1 grains. */
typedef struct {
  guint64 units, grain, grains, per;
  guint   used;
} SpxIpuLinearMap;

void  spx_ipu_linear_map_init  (SpxIpuLinearMap *map, guint64 units,
                                guint64 grain, guint tiles);
/* The tile holding unit (< units). */
guint spx_ipu_linear_map_tile  (const SpxIpuLinearMap *map, guint64 unit);
/* Units [*lo, *hi) of tile (empty past the used tiles). */
void  spx_ipu_linear_map_range (const SpxIpuLinearMap *map, guint tile,
                                guint64 *lo, guint64 *hi);
/* The static program lays X and Y out block by block, a column of a
 * block (its b rows) after the other ([PopLibs] StaticMatMul.cpp,
 * createSparseDenseMatMulRHS and constructGraph); its linear maps take
 * this many such columns a grain: PopLibs' grain of n-grain × m-grain
 * elements (16 halves, 4 floats; b = 1: the n-grain), rounded to whole
 * columns. */
guint spx_ipu_cost_static_grain_cols (guint b, SpxDtype dtype);

/* ---- terms ------------------------------------------------------------- */

GArray  *spx_ipu_terms_new  (void);
void     spx_ipu_terms_free (GArray *terms);
/* Append a term; formula is printf-style. No-op when terms is NULL. */
void     spx_ipu_terms_add  (GArray *terms, const char *term, guint64 cycles,
                             const char *formula, ...) G_GNUC_PRINTF (4, 5);
/* Say the last term's formula in words (printf-style), from the numbers
 * its formula was written from. No-op when terms is NULL or empty. */
void     spx_ipu_terms_say  (GArray *terms, const char *words, ...)
  G_GNUC_PRINTF (2, 3);
guint64  spx_ipu_terms_sum  (const GArray *terms);
/* Replace dst's terms by a copy of src's. */
void     spx_ipu_terms_copy (GArray *dst, const GArray *src);

/* ---- supersteps -------------------------------------------------------- */

/* What the busiest tile of an exchange moves. */
typedef struct {
  double in;        /* bytes received alone */
  double in_paired; /* bytes both tiles of a pair receive as one broadcast */
  double out;       /* bytes sent (a broadcast goes out once) */
  guint  rounds;    /* serial rounds, each paying the fixed overhead; ≥ 1 */
} SpxIpuTraffic;

/* What the busiest tile of exchange step s moves (by the larger of its
 * bytes in and out; the lowest of equals), noted as the step's worst. */
SpxIpuTraffic spx_ipu_step_busiest (const SpxIpuProgram *p, SpxIpuStep *s);

/* Fixed overhead per round, then the busiest tile's bytes in or out over
 * the exchange rate (in and out at once; paired bytes at twice the
 * rate). 0 when nothing moves. */
guint64 spx_ipu_cost_exchange (const SpxIpuMachine *m, const SpxIpuTraffic *t,
                               GArray *terms);
/* Placing the static program's output, as PopLibs' planner charges it
 * beside the reduce ([PopLibs] lib/popsparse/StaticMatMulPartitioner.cpp,
 * getPartition, moveFinalOutput): a cycle per byte of each tile's share
 * of Y's bytes. */
guint64 spx_ipu_cost_static_output (const SpxIpuMachine *m, guint64 bytes,
                                    GArray *terms);
/* rounds on-chip syncs. */
guint64 spx_ipu_cost_sync     (const SpxIpuMachine *m, guint rounds,
                               GArray *terms);

/* ---- vertices (tile cycles, all workers) ------------------------------- */

/* Block-sparse × dense: blocks non-zero b×b blocks over rows block-rows,
 * times n_cols columns of X; b = 1 is the element-wise vertex. */
guint64 spx_ipu_cost_block_vertex   (const SpxIpuMachine *m, guint b,
                                     SpxDtype dtype, guint64 blocks,
                                     guint64 rows, guint64 n_cols,
                                     GArray *terms);
/* The block products (blocks × n_cols columns of X) the busiest worker of
 * that vertex computes: the workers sharing its rows split them. */
guint64 spx_ipu_cost_block_per_worker (const SpxIpuMachine *m, guint b,
                                       SpxDtype dtype, guint64 blocks,
                                       guint64 rows, guint64 n_cols);
/* What a dynamic vertex is given: buckets buckets, matching of them
 * holding a sub-group of the tile's own partition, subgroups sub-groups
 * in each on average (at least 1 where there is one). */
typedef struct {
  guint64 buckets, matching;
  double  subgroups;
} SpxIpuBuckets;

/* The dynamic vertex: it zeroes zero fp32 partials (0: none), walks the
 * buckets' sub-groups, then multiplies blocks non-zero b×b blocks over
 * rows block-rows by n_cols columns of X; b = 1 is the element-wise
 * vertex. */
guint64 spx_ipu_cost_dynamic_vertex (const SpxIpuMachine *m, guint b,
                                     SpxDtype dtype, const SpxIpuBuckets *in,
                                     guint64 blocks, guint64 rows,
                                     guint64 n_cols, guint64 zero,
                                     GArray *terms);
/* The dynamic program's last step on a tile: adding depth fp32 partials
 * into each of outputs outputs of the dtype, or with depth 1 casting
 * them to fp16 (0 when the dtype is fp32: nothing to do). */
guint64 spx_ipu_cost_dynamic_reduce (const SpxIpuMachine *m, SpxDtype dtype,
                                     guint64 outputs, guint depth,
                                     GArray *terms);
/* Bytes of a dynamic bucket's meta-information: room for every non-zero
 * b×b block of an x_groups × y_groups partition at density (the blocks'),
 * whatever share of them the bucket holds, as PopLibs sizes it. */
guint64 spx_ipu_cost_dynamic_meta_bytes (const SpxIpuMachine *m, guint b,
                                         double density, guint64 x_groups,
                                         guint64 y_groups);
/* What a dynamic call costs beyond every mechanism modelled: one fitted
 * constant, its own step. */
guint64 spx_ipu_cost_dynamic_call   (GArray *terms);
/* Dense: an mt × kt slice of W times a kt × nt slice of X on the
 * accumulating matrix product unit. */
guint64 spx_ipu_cost_dense_vertex   (const SpxIpuMachine *m, SpxDtype dtype,
                                     guint64 mt, guint64 kt, guint64 nt,
                                     GArray *terms);
/* Adding partial sums of type dtype at their outputs' owner: outputs
 * outputs, each the sum of partials partials (a mean when they differ).
 * 0 when there is nothing to add. */
guint64 spx_ipu_cost_reduce         (const SpxIpuMachine *m, SpxDtype dtype,
                                     guint64 outputs, double partials,
                                     GArray *terms);

G_END_DECLS
