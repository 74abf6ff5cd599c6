/* spx-ipu-cost.c: the IPU model's cycle formulas and constants. Each
 * constant says where it comes from: a paper's figure, a documented
 * hardware fact, or what it was fitted to. */
#include "spx-ipu-cost.h"

#include <math.h>
#include <stdarg.h>

#include "spx-util.h"

/* ---- constants ---------------------------------------------------------- */

/* Starting a vertex's workers and returning (supervisor cycles): the
 * constant of PopSparse's published block-vertex formula. */
#define VERTEX_START 30
/* Block vertex: per row and per block the loop set-up of the published
 * formula (17 and 16); the rest per block size in block_table. */
#define BLOCK_ROW      17
#define BLOCK_SETUP    16
/* Element-wise vertex (fp16, published): 33 per worker to start, per row
 * 11 plus 11 per 8-column vector, per non-zero 3 per vector. The paper's
 * static b = 1 curve sits ~13% under this at every density: each non-zero
 * gathers from a different X row, so the 3-cycle step is not sustained.
 * Fitted to the static b = 1 column of the 4096 table only. */
#define ELEM_START     33
#define ELEM_ROW       11
#define ELEM_STEP      3
#define ELEM_SLOWDOWN  1.15
/* Dynamic block-sparse (popsparse::dynamic). Partials are fp32 (its
 * default partials type). Vertex supervisor cycles, b > 1, from [PopLibs]
 * lib/popsparse/PerformanceEstimation.hpp, sparseDenseBlockMultiply: */
#define DYN_BLOCK_START     40 /* supervisorOverhead */
#define DYN_BLOCK_END       2  /* the + 2 after the block loads */
#define DYN_BLOCK_MATCH     56 /* per bucket holding its sub-group: start it */
#define DYN_BLOCK_SEARCH    46 /* per sub-group searched in such a bucket */
#define DYN_BLOCK_WALK      33 /* per sub-group of a bucket without one */
#define DYN_BLOCK_LOAD      3  /* per block, besides its coefficients */
#define DYN_BLOCK_WEIGHTS   12 /* per block per load of its weights */
#define DYN_BLOCK_RETAIN_X  3  /* inner cycles X kept in registers saves */
/* MACs per cycle of one AMP conv unit (fp16): the machine's fp16 rate
 * over this is its conv units; with 8 a 16 × 16 block takes two weight
 * loads (sparseDenseBlockMultiply's numConvUnits). */
#define DYN_CONV_UNIT_MACS  4
/* b = 1, [PopLibs] PerformanceEstimation.hpp,
 * sparseDenseElementwiseMultiply (supervisor cycles): */
#define DYN_ELEM_START      30 /* supervisorOverhead */
#define DYN_ELEM_MATCH      46 /* per bucket holding its sub-group */
#define DYN_ELEM_SEARCH     47 /* per sub-group searched in such a bucket */
#define DYN_ELEM_WALK       32 /* per sub-group of a bucket without one */
/* ... and its worker cycles per row for z columns that are not one
 * vector, in pieces: fp16 of 8, 4 and the last 1–3 columns, fp32 of 4, 2
 * and 1, each piece a fixed part per row and a part per non-zero: */
#define DYN_ELEM_H8_ROW     16 /* fp16, the 8-column pieces: once */
#define DYN_ELEM_H8_NZ      3  /* ... per piece */
#define DYN_ELEM_H4_ROW     13 /* fp16, a 4-column piece */
#define DYN_ELEM_H4_NZ      2
#define DYN_ELEM_H1_ROW     11 /* fp16, the last 1–3 columns */
#define DYN_ELEM_H1_NZ      2  /* ... per column */
#define DYN_ELEM_F4_ROW     12 /* fp32, the 4-column pieces: once */
#define DYN_ELEM_F4_NZ      3  /* ... per piece */
#define DYN_ELEM_F2_ROW     8  /* fp32, a 2-column piece */
#define DYN_ELEM_F2_NZ      2  /* ... times z / 2 (sic) */
#define DYN_ELEM_F1_ROW     8  /* fp32, a last column */
#define DYN_ELEM_F1_NZ      2
#define DYN_ELEM_F_TAIL     3  /* fp32, after a 2- or 1-column piece */
#define DYN_ELEM_F_END      1  /* fp32, after 4-column pieces only */
/* Zeroing the partials, [PopLibs] PerformanceEstimation.hpp,
 * zeroPartialsCycles (the value it computes: 64-bit stores): */
#define DYN_ZERO_START      13 /* per worker: 3 (block vertex) + 10 */
#define DYN_ZERO_WIDTH      2  /* fp32 partials per worker-cycle */
/* Reduce over py, fp32 partials, [PopLibs] PerformanceEstimation.hpp,
 * getReduceCycleEstimate: */
#define DYN_REDUCE_START    32 /* per worker */
#define DYN_REDUCE_WIDTH    4  /* outputs per worker loop */
#define DYN_REDUCE_PER_PARTIAL 3 /* per loop and partial */
#define DYN_REDUCE_LOOP_FP16 6 /* per loop, fp16 output */
#define DYN_REDUCE_LOOP_FP32 7 /* per loop, fp32 output */
#define DYN_REDUCE_TAIL     13 /* a short last loop: 2 per partial + 13 */
/* Casting fp32 partials to fp16 when py = 1, [PopLibs]
 * PerformanceEstimation.hpp, getCastCycleEstimate: */
#define DYN_CAST_START      26 /* per worker */
#define DYN_CAST_WIDTH      2  /* fp32 loads per worker-cycle (fp16 out: 4) */
/* Meta-information per bucket (u16 fields), [PopLibs]
 * lib/popsparse/SparseMetaInfo.hpp and FullyConnectedPlan.cpp,
 * addMetaInfoElemsPerBucket (forward pass only): */
#define DYN_META_SUBGROUPS  2  /* sub-groups per bucket it plans room for */
#define DYN_META_SUBGROUP_BLOCK 7 /* BlockMetaInfo::SubGroupEntry */
#define DYN_META_SUBGROUP_ELEM  9 /* MetaInfo::SubGroupEntry */
#define DYN_META_WORKER     5  /* MetaInfo::WorkerEntry, one per worker */
#define DYN_META_OUTPUT     2  /* OutputEntry, per non-empty row */
#define DYN_META_ATOM       4  /* whole exchange atoms: fields rounded to 4 */
/* What the paper measured beyond PopLibs' own formulas for the same
 * program: one constant per call. Fitted to [PopSparse] Fig.
 * ipu_density (dynamic b 1 and b 16 at m = k = 4096) and Fig.
 * ipu_feature_size (dynamic b 16, d 1/16, m = k 256 to 8192). */
#define SPX_IPU_DYN_CALL_OVERHEAD 150000

/* The dynamic block vertex's worker cycles, [PopLibs]
 * PerformanceEstimation.hpp, sparseDenseBlockMultiply (fp32 partials):
 * per worker start, per column per block, and the inner loop's overhead
 * for a worker's 1, 2 or more columns. PopLibs has block vertices for b
 * 4, 8 and 16: other sizes are taken as the next (larger: pieces of 16). */
typedef struct {
  guint b;
  gboolean fp32;
  guint start, per_column, inner[3];
} DynBlockRow;

static const DynBlockRow dyn_block_rows[] = {
  { 4, FALSE, 26, 2, { 17, 18, 19 } },
  { 4, TRUE, 26, 4, { 14, 14, 14 } },
  { 8, FALSE, 20, 4, { 22, 23, 23 } },
  { 8, TRUE, 23, 8, { 22, 22, 23 } },
  { 16, FALSE, 23, 4, { 24, 25, 24 } },
  { 16, TRUE, 23, 4, { 24, 25, 24 } },
};

/* The element-wise vertex's worker cycles, [PopLibs]
 * PerformanceEstimation.hpp, sparseDenseElementwiseMultiply: a worker's
 * z columns are either one vector (fp16: 8 or 4, fp32: 4 or 2 columns),
 * with its own start, per-row and per-non-zero cycles, or any other z,
 * taken in pieces (see elem_inner). */
typedef struct {
  guint z, start, per_row, per_nz;
} DynElemCase;

static const DynElemCase dyn_elem_fp16[] = {
  { 8, 28, 15, 3 }, { 4, 30, 11, 2 }, { 0, 33, 12, 0 },
};
static const DynElemCase dyn_elem_fp32[] = {
  { 4, 25, 13, 3 }, { 2, 27, 11, 2 }, { 0, 30, 13, 0 },
};

/* The static block vertex per block size and type, PopLibs' estimate
 * ([PopLibs] lib/popsparse/StaticMatMulPartitioner.cpp,
 * matmulComputeCycles): per worker a header, per row the cost of fetching
 * X's row pointers (worker cycles), and per block times n columns of X
 * y(n) = base + slope·n worker cycles, or base_small + slope·n for n up to
 * small_n. The slope is the AMP's width (per_column): on a Mk2 fp16
 * does min(4b, 64) MACs per worker step, fp32 min(b, 16), the figures
 * PopLibs' estimate rests on; a machine with fewer MACs per cycle
 * proportionally fewer. Another b takes the next listed size's row. */
typedef struct {
  guint    b;
  SpxDtype dtype;
  double   hdr, xret, base, small_n, base_small;
  const char *source;
} BlockRow;

static const BlockRow block_table[] = {
  { 4, SPX_DTYPE_FP16, 17, 1, 13, 2, 7, "[PopLibs] matmulComputeCycles" },
  { 8, SPX_DTYPE_FP16, 13, 1, 12, 0, 0, "[PopLibs] matmulComputeCycles" },
  { 16, SPX_DTYPE_FP16, 13, 1, 15, 0, 0, "[PopLibs] matmulComputeCycles" },
  { 4, SPX_DTYPE_FP32, 13, 1, 8, 0, 0, "[PopLibs] matmulComputeCycles" },
  { 8, SPX_DTYPE_FP32, 13, 4, 11, 0, 0, "[PopLibs] matmulComputeCycles" },
  { 16, SPX_DTYPE_FP32, 16, 4, 58, 1, 42, "[PopLibs] matmulComputeCycles" },
};
/* Dense vertex (the accumulating matrix product unit): GRAIN × GRAIN
 * pieces of W at the tile's full MAC rate once the pipeline is full; each
 * piece pays FILL worker cycles, each row of pieces ROW. Fitted to the
 * dense column of the 4096 table (about 228 TFLOP/s). */
#define DENSE_GRAIN    16u
#define DENSE_FILL     16.0
#define DENSE_ROW      24.0
/* Adding partial sums at the outputs' owners (the static and dense
 * programs), PopLibs' estimate for its strided reduce ([PopLibs]
 * lib/popsparse/StaticMatMulPartitioner.cpp, reductionCycleEstimate): per
 * worker a start, then per vector of outputs a loop step plus one cycle
 * per partial. Vector: 8 halves or 4 floats; loop step c0 + 6 − 1 with
 * c0 = 8 (half) or 5 (float). */
#define REDUCE_START   16
#define REDUCE_STEP    6
#define REDUCE_C0_HALF 8
#define REDUCE_C0_FLOAT 5

/* ---- bytes --------------------------------------------------------------- */

SpxDtype
spx_ipu_cost_partials (SpxIpuMode mode, SpxDtype dtype)
{
  return mode == SPX_IPU_MODE_STATIC ? dtype : SPX_DTYPE_FP32;
}

guint
spx_ipu_cost_partial_bytes (SpxIpuMode mode, SpxDtype dtype)
{
  return spx_ipu_dtype_bytes (spx_ipu_cost_partials (mode, dtype));
}

guint
spx_ipu_cost_grain (SpxDtype dtype)
{
  return 8 / spx_ipu_dtype_bytes (dtype);
}

/* ---- layouts ------------------------------------------------------------- */

void
spx_ipu_linear_map_init (SpxIpuLinearMap *map, guint64 units, guint64 grain,
                         guint tiles)
{
  map->units = units;
  map->grain = MAX (grain, 1);
  map->grains = spx_ipu_div_up (units, map->grain);
  map->per = MAX (spx_ipu_div_up (map->grains, MAX (tiles, 1)), 1);
  map->used = (guint) spx_ipu_div_up (map->grains, map->per);
}

guint
spx_ipu_linear_map_tile (const SpxIpuLinearMap *map, guint64 unit)
{
  /* the last tile i with floor(i·grains/used) ≤ the unit's grain */
  guint64 q = unit / map->grain;
  return (guint) (((q + 1) * map->used - 1) / map->grains);
}

void
spx_ipu_linear_map_range (const SpxIpuLinearMap *map, guint tile,
                          guint64 *lo, guint64 *hi)
{
  guint64 t = MIN ((guint64) tile, (guint64) map->used);
  guint64 g0 = t * map->grains / MAX (map->used, 1);
  guint64 g1 = MIN (t + 1, (guint64) map->used) * map->grains /
               MAX (map->used, 1);
  *lo = MIN (g0 * map->grain, map->units);
  *hi = MIN (g1 * map->grain, map->units);
}

guint
spx_ipu_cost_static_grain_cols (guint b, SpxDtype dtype)
{
  guint n_grain = spx_ipu_cost_grain (dtype);
  return b <= 1 ? n_grain : MAX (n_grain * n_grain / b, 1u);
}

/* "s" unless there is exactly one. */
static const char *
plural (double count)
{
  return count == 1 ? "" : "s";
}

/* Whole cycles of a term: rounded up, never negative. */
static guint64
whole (double cycles)
{
  return cycles > 0 ? (guint64) ceil (cycles - 1e-9) : 0;
}


/* ---- supersteps ---------------------------------------------------------- */

guint64
spx_ipu_cost_exchange (const SpxIpuMachine *m, const SpxIpuTraffic *t,
                       GArray *terms)
{
  double rate = m->exchange_bytes_per_cycle;
  double in = t->in + t->in_paired / 2.0;
  double busiest = MAX (in, t->out);
  if (busiest <= 0)
    return 0;
  guint rounds = MAX (t->rounds, 1);
  guint64 fixed = (guint64) m->exchange_overhead_cycles * rounds;
  guint64 moving = whole (busiest / rate);
  if (terms == NULL) /* costing only: no text */
    return fixed + moving;
  spx_ipu_terms_add (terms, "exchange overhead", fixed,
                     "%u round%s × %u cycles", rounds, rounds == 1 ? "" : "s",
                     m->exchange_overhead_cycles);
  spx_ipu_terms_say (terms, "a fixed %u cycles to start each of %u round%s "
                     "of sending", m->exchange_overhead_cycles, rounds,
                     rounds == 1 ? "" : "s");
  g_autofree char *text = NULL;
  if (t->out >= in)
    {
      text = spx_format_bytes (t->out);
      spx_ipu_terms_add (terms, "busiest tile sends", moving,
                         "%s at %g B/cycle", text, rate);
      spx_ipu_terms_say (terms, "the tile that sends most sends %s, %g "
                         "bytes a cycle", text, rate);
    }
  else if (t->in_paired > 0)
    {
      g_autofree char *alone = spx_format_bytes (t->in);
      text = spx_format_bytes (t->in_paired);
      spx_ipu_terms_add (terms, "busiest tile receives", moving,
                         "%s at %g B/cycle + %s broadcast to its pair at "
                         "%g B/cycle", alone, rate, text, 2 * rate);
      spx_ipu_terms_say (terms, "the tile that receives most takes %s on "
                         "its own, %g bytes a cycle, plus %s that it and "
                         "its pair receive at once, %g bytes a cycle", alone,
                         rate, text, 2 * rate);
    }
  else
    {
      text = spx_format_bytes (t->in);
      spx_ipu_terms_add (terms, "busiest tile receives", moving,
                         "%s at %g B/cycle", text, rate);
      spx_ipu_terms_say (terms, "the tile that receives most receives %s, "
                         "%g bytes a cycle", text, rate);
    }
  return fixed + moving;
}

guint64
spx_ipu_cost_static_output (const SpxIpuMachine *m, guint64 bytes,
                            GArray *terms)
{
  guint64 cycles = spx_ipu_div_up (bytes, MAX (m->tiles, 1));
  if (cycles == 0)
    return 0;
  g_autofree char *text = spx_format_bytes ((double) bytes);
  spx_ipu_terms_add (terms, "final output", cycles,
                     "%s of Y over %u tiles, a cycle a byte", text,
                     m->tiles);
  spx_ipu_terms_say (terms, "placing Y, %s shared by %u tiles: one cycle for "
                     "each byte of a tile's share", text, m->tiles);
  return cycles;
}

guint64
spx_ipu_cost_sync (const SpxIpuMachine *m, guint rounds, GArray *terms)
{
  guint64 cycles = (guint64) m->sync_cycles * MAX (rounds, 1);
  if (rounds > 1)
    spx_ipu_terms_add (terms, "sync", cycles, "%u rounds × %u cycles", rounds,
                       m->sync_cycles);
  else
    spx_ipu_terms_add (terms, "sync", cycles, "one on-chip sync");
  spx_ipu_terms_say (terms, "%u sync%s of %u cycles, each waiting until "
                     "every tile is done", MAX (rounds, 1),
                     rounds > 1 ? "s" : "", m->sync_cycles);
  return cycles;
}

/* ---- vertices ------------------------------------------------------------ */

/* Worker cycles per column of X of one b×b block on the AMP: a worker
 * step does b/16 of the tile's MACs per cycle, at most all of them (Mk2:
 * fp16 min(4b, 64), fp32 min(b, 16); a slower machine, proportionally
 * fewer). */
static double
per_column (const SpxIpuMachine *m, guint b, SpxDtype dtype)
{
  double bb = (double) b * b, macs = spx_ipu_macs_per_cycle (m, dtype);
  return bb / MIN ((double) b * macs / 16.0, macs);
}

/* The static vertex's row of block_table for b: the first of its type as
 * large, else the largest. */
static const BlockRow *
block_row (guint b, SpxDtype dtype)
{
  SpxDtype t = dtype == SPX_DTYPE_FP16 ? SPX_DTYPE_FP16 : SPX_DTYPE_FP32;
  const BlockRow *row = NULL;
  for (guint i = 0; i < G_N_ELEMENTS (block_table); i++)
    if (block_table[i].dtype == t)
      {
        row = &block_table[i];
        if (row->b >= b)
          break;
      }
  return row;
}

/* The static vertex's worker cycles of one block times nw columns. */
static double
block_y (const SpxIpuMachine *m, const BlockRow *row, guint b, SpxDtype dtype,
         double nw)
{
  double base = nw <= row->small_n ? row->base_small : row->base;
  return base + per_column (m, b, dtype) * nw;
}

/* Workers of an element-wise vertex take rows (with fewer rows than
 * workers they split the columns too); workers of a block vertex take
 * columns of X, a grain or more each, and rows only when the columns run
 * out. */
static void
split_workers (guint w, guint b, SpxDtype dtype, guint64 rows,
               guint64 n_cols, guint64 *wr, guint64 *wn)
{
  if (b == 1)
    {
      *wr = MIN (rows, w);
      *wn = w / *wr;
      return;
    }
  *wn = MIN (w, spx_ipu_div_up (n_cols, spx_ipu_cost_grain (dtype)));
  *wr = MIN (rows, MAX (1, w / *wn));
}

static guint64
element_vertex (const SpxIpuMachine *m, SpxDtype dtype, double mw,
                double kw, double nw, double scale, GArray *terms)
{
  double w = m->workers, grain = spx_ipu_cost_grain (dtype);
  double vec = dtype == SPX_DTYPE_FP16 ? 8.0 : 4.0;
  double g = ceil (nw / grain) * grain / vec; /* X vectors per row */
  double k = ELEM_SLOWDOWN * scale * w;
  guint64 start = whole (k * ELEM_START);
  guint64 rows = whole (k * mw * (ELEM_ROW + ELEM_ROW * g));
  guint64 nz = whole (k * ELEM_STEP * g * kw);
  spx_ipu_terms_add (terms, "vertex start", start,
                     "%.2f × %g workers × %d", ELEM_SLOWDOWN * scale, w,
                     ELEM_START);
  spx_ipu_terms_say (terms, "%d cycles for each of the %g workers to start, "
                     "times %.2f for the gathers from X", ELEM_START, w,
                     ELEM_SLOWDOWN * scale);
  spx_ipu_terms_add (terms, "rows", rows,
                     "%.2f × %g workers × %g row%s × (%d + %d × %g vectors)",
                     ELEM_SLOWDOWN * scale, w, mw, plural (mw), ELEM_ROW,
                     ELEM_ROW, g);
  spx_ipu_terms_say (terms, "for each of the %g row%s a worker takes, %d "
                     "cycles plus %d for each of its %g vectors of X, times "
                     "%g workers taking turns, times %.2f", mw, plural (mw),
                     ELEM_ROW, ELEM_ROW, g, w, ELEM_SLOWDOWN * scale);
  spx_ipu_terms_add (terms, "non-zeros", nz,
                     "%.2f × %g workers × %g non-zero%s × %d × %g vectors",
                     ELEM_SLOWDOWN * scale, w, kw, plural (kw), ELEM_STEP, g);
  spx_ipu_terms_say (terms, "for each of the %g non-zero%s a worker takes, "
                     "%d cycles per vector of X (%g vectors), times %g "
                     "workers taking turns, times %.2f", kw, plural (kw),
                     ELEM_STEP, g, w, ELEM_SLOWDOWN * scale);
  return start + rows + nz;
}

/* The static vertex's cycles, with its terms. */
static guint64
block_vertex (const SpxIpuMachine *m, guint b, SpxDtype dtype,
              guint64 blocks, guint64 rows, guint64 n_cols, GArray *terms)
{
  if (blocks == 0 || n_cols == 0)
    return 0;
  rows = MAX (rows, 1);
  double w = m->workers;
  guint64 wr, wn;
  split_workers (m->workers, b, dtype, rows, n_cols, &wr, &wn);
  double mw = (double) spx_ipu_div_up (rows, wr);
  guint64 per_worker = spx_ipu_cost_block_per_worker (m, b, dtype, blocks,
                                                      rows, n_cols);
  double kw = (double) per_worker;
  double nw = (double) spx_ipu_div_up (n_cols, wn);
  if (b == 1)
    return element_vertex (m, dtype, mw, kw, nw, 1.0, terms);
  double bytes = spx_ipu_dtype_bytes (dtype);
  const BlockRow *br = block_row (b, dtype);
  double y = block_y (m, br, b, dtype, nw);
  double per_block = BLOCK_SETUP + (double) b * b * bytes / 8 + y * w;
  guint64 start = whole (VERTEX_START + br->hdr * w);
  guint64 row = whole (mw * (br->xret * w + BLOCK_ROW));
  guint64 blk = whole (kw * per_block);
  spx_ipu_terms_add (terms, "vertex start", start, "%d + %g × %g workers",
                     VERTEX_START, br->hdr, w);
  spx_ipu_terms_say (terms, "%d cycles to start the vertex, plus %g for "
                     "each of its %g workers to read its header",
                     VERTEX_START, br->hdr, w);
  spx_ipu_terms_add (terms, "rows", row, "%g row%s × (%g × %g workers + %d)",
                     mw, plural (mw), br->xret, w, BLOCK_ROW);
  spx_ipu_terms_say (terms, "for each of the %g block-row%s a worker takes, "
                     "%g cycle%s for each of the %g workers to fetch where "
                     "its rows of X are, plus %d to set the row up", mw,
                     plural (mw), br->xret, plural (br->xret), w, BLOCK_ROW);
  /* words only for an explanation: the search costs without one */
  g_autofree char *each = terms ? spx_ipu_count_text (SPX_IPU_COUNT_PER_WORKER,
                                                      per_worker)
                                : NULL;
  spx_ipu_terms_add (terms, "blocks", blk,
                     "%s × (%d + %u²·%g B/8 + %.1f per %g column%s × %g "
                     "workers)", each, BLOCK_SETUP, b, bytes, y, nw,
                     plural (nw), w);
  spx_ipu_terms_say (terms, "for each of its %s: %d cycles to start the "
                     "block, plus %u²·%g bytes / 8 = %g cycles to load its "
                     "values, plus %.1f cycles to multiply it by %g "
                     "column%s of X (%g, then %g a column), times %g "
                     "workers taking turns", each, BLOCK_SETUP, b, bytes,
                     (double) b * b * bytes / 8, y, nw, plural (nw),
                     nw <= br->small_n ? br->base_small : br->base,
                     per_column (m, b, dtype), w);
  return start + row + blk;
}

guint64
spx_ipu_cost_block_per_worker (const SpxIpuMachine *m, guint b,
                               SpxDtype dtype, guint64 blocks, guint64 rows,
                               guint64 n_cols)
{
  guint64 wr, wn;
  if (blocks == 0 || n_cols == 0)
    return 0;
  split_workers (m->workers, b, dtype, MAX (rows, 1), n_cols, &wr, &wn);
  return spx_ipu_div_up (blocks, wr); /* the workers of a row share it */
}

guint64
spx_ipu_cost_block_vertex (const SpxIpuMachine *m, guint b, SpxDtype dtype,
                           guint64 blocks, guint64 rows, guint64 n_cols,
                           GArray *terms)
{
  return block_vertex (m, b, dtype, blocks, rows, n_cols, terms);
}

/* The dense vertex's workers: wr of them take the rows of pieces, each
 * with w / wr others splitting its columns; the wr whose busiest worker
 * finishes first (ties: more rows apart). */
static void
dense_workers (guint64 w, guint64 rows, guint64 pieces, guint64 nt,
               double per_column, guint64 *rows_each, guint64 *cols_each)
{
  double best = G_MAXDOUBLE;
  *rows_each = rows;
  *cols_each = nt;
  for (guint64 wr = MIN (rows, w); wr >= 1; wr--)
    {
      guint64 re = spx_ipu_div_up (rows, wr);
      guint64 ce = spx_ipu_div_up (nt, w / wr);
      double cycles = (double) re * (DENSE_ROW + (double) pieces *
                                     (DENSE_FILL + (double) ce * per_column));
      if (cycles < best)
        {
          best = cycles;
          *rows_each = re;
          *cols_each = ce;
        }
    }
}

guint64
spx_ipu_cost_dense_vertex (const SpxIpuMachine *m, SpxDtype dtype,
                           guint64 mt, guint64 kt, guint64 nt, GArray *terms)
{
  if (mt == 0 || kt == 0 || nt == 0)
    return 0;
  guint64 w = m->workers;
  guint64 rows = spx_ipu_div_up (mt, DENSE_GRAIN);
  guint64 pieces = spx_ipu_div_up (kt, DENSE_GRAIN);
  double per_column = (double) (DENSE_GRAIN * DENSE_GRAIN) /
                      spx_ipu_macs_per_cycle (m, dtype);
  guint64 rows_each, cols_each;
  dense_workers (w, rows, pieces, nt, per_column, &rows_each, &cols_each);
  double re = (double) rows_each * w;
  guint64 row = whole (re * DENSE_ROW);
  guint64 fill = whole (re * pieces * DENSE_FILL);
  guint64 macs = whole (re * pieces * cols_each * per_column);
  spx_ipu_terms_add (terms, "vertex start", VERTEX_START, "%d",
                     VERTEX_START);
  spx_ipu_terms_say (terms, "%d cycles to start the vertex", VERTEX_START);
  double r = (double) rows_each, p = (double) pieces, c = (double) cols_each;
  spx_ipu_terms_add (terms, "rows", row,
                     "%g row%s of %u per worker × %g × %" G_GUINT64_FORMAT
                     " workers", r, plural (r), DENSE_GRAIN, DENSE_ROW, w);
  spx_ipu_terms_say (terms, "%g cycles for each of the %g row%s of %u a "
                     "worker takes, times %" G_GUINT64_FORMAT " workers "
                     "taking turns", DENSE_ROW, r, plural (r), DENSE_GRAIN,
                     w);
  spx_ipu_terms_add (terms, "pipeline fill", fill,
                     "%g row%s × %g piece%s × %g × %" G_GUINT64_FORMAT
                     " workers", r, plural (r), p, plural (p), DENSE_FILL, w);
  spx_ipu_terms_say (terms, "%g cycles to fill the pipeline for each of the "
                     "%g piece%s of %u × %u in each of those %g row%s, times "
                     "%" G_GUINT64_FORMAT " workers", DENSE_FILL, p,
                     plural (p), DENSE_GRAIN, DENSE_GRAIN, r, plural (r), w);
  spx_ipu_terms_add (terms, "multiply-accumulate", macs,
                     "%g row%s × %g piece%s × %g column%s × %g × %"
                     G_GUINT64_FORMAT " workers", r, plural (r), p,
                     plural (p), c, plural (c), per_column, w);
  spx_ipu_terms_say (terms, "%g cycle%s per column of X (%u × %u "
                     "multiply-adds at the tile's rate) for each of %g "
                     "column%s, %g piece%s and %g row%s, times %"
                     G_GUINT64_FORMAT " workers", per_column,
                     plural (per_column), DENSE_GRAIN, DENSE_GRAIN, c,
                     plural (c), p, plural (p), r, plural (r), w);
  return VERTEX_START + row + fill + macs;
}

guint64
spx_ipu_cost_reduce (const SpxIpuMachine *m, SpxDtype dtype, guint64 outputs,
                     double partials, GArray *terms)
{
  if (outputs == 0 || partials <= 0)
    return 0;
  gboolean half = dtype == SPX_DTYPE_FP16;
  double w = m->workers, vec = half ? 8 : 4;
  double c0 = half ? REDUCE_C0_HALF : REDUCE_C0_FLOAT;
  double steps = ceil (ceil ((double) outputs / w) / vec);
  guint64 start = whole (w * REDUCE_START);
  guint64 adds = whole (w * steps * (c0 + REDUCE_STEP + partials - 1));
  spx_ipu_terms_add (terms, "vertex start", start, "%g workers × %d", w,
                     REDUCE_START);
  spx_ipu_terms_say (terms, "%d cycles for each of the %g workers to start",
                     REDUCE_START, w);
  spx_ipu_terms_add (terms, "additions", adds,
                     "%g workers × %g vector%s of %g outputs × (%g + %d + "
                     "%.2f partials − 1)", w, steps, plural (steps), vec, c0,
                     REDUCE_STEP, partials);
  spx_ipu_terms_say (terms, "for each of the %g vector%s of %g outputs a "
                     "worker takes, %g + %d cycles of loop plus a cycle for "
                     "each of its %.2f partial sums but 1, times %g workers "
                     "taking turns", steps, plural (steps), vec, c0,
                     REDUCE_STEP, partials, w);
  return start + adds;
}

/* ---- the dynamic program ------------------------------------------------- */

/* The busiest worker's share of a rows × cols tile split over w workers
 * as [PopLibs] lib/popsparse/FullyConnectedUtils.cpp,
 * splitTileBetweenWorkers does: equal runs, the last taking the rest. */
static void
worker_tile (guint64 rows, guint64 cols, guint w, guint64 *wr, guint64 *wc)
{
  guint64 grains = spx_ipu_div_up (rows * cols, w);
  guint64 rpw = MIN (spx_ipu_div_up (grains, cols), rows);
  guint64 cpw = MIN (spx_ipu_div_up (grains, rpw), cols);
  *wr = rows - (rows / rpw - 1) * rpw;
  *wc = cols - (cols / cpw - 1) * cpw;
}

/* Finding the tile's sub-group: in a bucket that holds one, halfway
 * through its sub-groups on average; the others walked to their end. */
static guint64
bucket_terms (const SpxIpuBuckets *in, guint match, guint search,
              guint walk, GArray *terms)
{
  double s = MAX (in->subgroups, 1.0), half = (s - 1) / 2 + 1;
  double m = (double) in->matching, past = (double) (in->buckets -
                                                     in->matching);
  guint64 found = whole (m * (match + search * half));
  guint64 walked = whole (past * walk * s);
  if (in->matching > 0)
    {
      spx_ipu_terms_add (terms, "sub-group search", found,
                         "%g bucket%s × (%u + %u × %g sub-group%s searched)",
                         m, plural (m), match, search, half, plural (half));
      spx_ipu_terms_say (terms, "for each of the %g bucket%s holding some "
                         "of the tile's blocks, %u cycles to start on it "
                         "plus %u for each of the %g sub-group%s searched "
                         "before its own, on average", m, plural (m), match,
                         search, half, plural (half));
    }
  if (past > 0)
    {
      spx_ipu_terms_add (terms, "buckets walked past", walked,
                         "%g bucket%s × %g sub-group%s × %u", past,
                         plural (past), s, plural (s), walk);
      spx_ipu_terms_say (terms, "%u cycles for each of the %g sub-group%s "
                         "of each of the %g bucket%s holding none of its "
                         "blocks, walked to the end", walk, s, plural (s),
                         past, plural (past));
    }
  return found + walked;
}

/* The vertex zeroes its fp32 partials first. */
static guint64
zero_term (const SpxIpuMachine *m, guint64 partials, GArray *terms)
{
  if (partials == 0)
    return 0;
  guint64 w = m->workers;
  guint64 each = spx_ipu_div_up (spx_ipu_div_up (partials, w),
                                 DYN_ZERO_WIDTH);
  guint64 cycles = w * (DYN_ZERO_START + each);
  spx_ipu_terms_add (terms, "zero partials", cycles,
                     "%" G_GUINT64_FORMAT " workers × (%d + %" G_GUINT64_FORMAT
                     " stores of %d partials)", w, DYN_ZERO_START, each,
                     DYN_ZERO_WIDTH);
  spx_ipu_terms_say (terms, "setting the partial sums to zero first: %d "
                     "cycles to start, plus one a store of %d partials, %"
                     G_GUINT64_FORMAT " stores for a worker's share, times %"
                     G_GUINT64_FORMAT " workers taking turns", DYN_ZERO_START,
                     DYN_ZERO_WIDTH, each, w);
  return cycles;
}

static const DynBlockRow *
dyn_block_row (guint b, gboolean fp32)
{
  guint size = b <= 4 ? 4 : b <= 8 ? 8 : 16;
  for (guint i = 0; i < G_N_ELEMENTS (dyn_block_rows); i++)
    if (dyn_block_rows[i].b == size && dyn_block_rows[i].fp32 == fp32)
      return &dyn_block_rows[i];
  g_return_val_if_reached (&dyn_block_rows[0]);
}

/* b > 1: workers split the columns; each takes every block. */
static guint64
dyn_block_vertex (const SpxIpuMachine *m, guint b, SpxDtype dtype,
                  guint64 blocks, guint64 rows, guint64 n_cols,
                  GArray *terms)
{
  gboolean fp32 = dtype == SPX_DTYPE_FP32;
  const DynBlockRow *r = dyn_block_row (b, fp32);
  /* over 16: as pieces of 16 × 16 */
  guint64 q = b > 16 ? spx_ipu_div_up (b, 16) : 1, pieces = blocks * q * q;
  guint units = spx_ipu_macs_per_cycle (m, dtype) / DYN_CONV_UNIT_MACS;
  guint loads = r->b == 16 && !fp32 && units <= 8 ? 2 : 1;
  guint coeff = r->b * r->b / (fp32 ? 2 : 4), w = m->workers;
  guint64 unused, z;
  worker_tile (1, n_cols, w, &unused, &z);
  guint inner = r->inner[MIN (z, 3) - 1];
  guint64 start = DYN_BLOCK_START + DYN_BLOCK_END + (guint64) w * r->start;
  guint64 coeffs = pieces * (coeff + DYN_BLOCK_LOAD +
                             DYN_BLOCK_WEIGHTS * loads) + rows;
  guint64 loop = (guint64) w * pieces * loads *
                 (inner - DYN_BLOCK_RETAIN_X + z * r->per_column);
  double pc = (double) pieces, rc = (double) rows, zc = (double) z;
  spx_ipu_terms_add (terms, "vertex start", start, "%d + %d + %u workers × %u",
                     DYN_BLOCK_START, DYN_BLOCK_END, w, r->start);
  spx_ipu_terms_say (terms, "%d cycles to start the vertex and %d to end "
                     "it, plus %u for each of the %u workers to start",
                     DYN_BLOCK_START, DYN_BLOCK_END, r->start, w);
  spx_ipu_terms_add (terms, "coefficient loads", coeffs,
                     "%g block%s × (%u + %d + %d × %u load%s) + %g row%s", pc,
                     plural (pc), coeff, DYN_BLOCK_LOAD, DYN_BLOCK_WEIGHTS,
                     loads, plural (loads), rc, plural (rc));
  spx_ipu_terms_say (terms, "for each of the %g block%s, %u cycles to load "
                     "its values, %d to find it and %d for each of %u "
                     "load%s of its weights into the multiply unit; plus "
                     "one for each of %g row%s", pc, plural (pc), coeff,
                     DYN_BLOCK_LOAD, DYN_BLOCK_WEIGHTS, loads, plural (loads),
                     rc, plural (rc));
  spx_ipu_terms_add (terms, "blocks", loop,
                     "%u workers × %g %s%s each × %u load%s × "
                     "(%u − %d + %g column%s × %u)", w, pc,
                     q > 1 ? "16 × 16 piece" : "block product", plural (pc),
                     loads,
                     plural (loads), inner, DYN_BLOCK_RETAIN_X, zc,
                     plural (zc), r->per_column);
  spx_ipu_terms_say (terms, "each of the %u workers, taking turns, goes "
                     "through all %g %s%s, for each of %u load%s: %u cycles "
                     "of loop, less %d for keeping X at hand, plus %u for "
                     "each of its %g column%s of X", w, pc,
                     q > 1 ? "16 × 16 piece" : "block product", plural (pc),
                     loads, plural (loads), inner, DYN_BLOCK_RETAIN_X,
                     r->per_column, zc, plural (zc));
  return start + coeffs + loop;
}

/* b = 1, the worker's cycles per row (fixed) and per non-zero of it for z
 * columns that are not one vector: pieces of 8, 4 and the rest (fp16) or
 * of 4, 2, 1 (fp32) as sparseDenseElementwiseMultiply counts them. */
static void
elem_inner (gboolean fp32, guint64 z, guint64 *fixed, guint64 *per_nz)
{
  if (!fp32)
    {
      *fixed = (z / 8 ? DYN_ELEM_H8_ROW : 0) + (z & 4 ? DYN_ELEM_H4_ROW : 0) +
               (z & 3 ? DYN_ELEM_H1_ROW : 0);
      *per_nz = z / 8 * DYN_ELEM_H8_NZ + (z & 4 ? DYN_ELEM_H4_NZ : 0) +
                (z & 3) * DYN_ELEM_H1_NZ;
      return;
    }
  *fixed = (z / 4 ? DYN_ELEM_F4_ROW : 0) + (z & 2 ? DYN_ELEM_F2_ROW : 0) +
           (z & 1 ? DYN_ELEM_F1_ROW : 0) +
           (z & 3 ? DYN_ELEM_F_TAIL : DYN_ELEM_F_END);
  *per_nz = z / 4 * DYN_ELEM_F4_NZ + (z & 2 ? z / 2 * DYN_ELEM_F2_NZ : 0) +
            (z & 1 ? DYN_ELEM_F1_NZ : 0);
}

/* b = 1: workers split rows and vectors of columns; with more than two
 * rows per worker, the rows alone, balanced by their non-zeros as the
 * host lays them out ([PopLibs] lib/popsparse/SparsePartitionerImpl.cpp,
 * splitTileBetweenWorkers with rowWeights). */
static guint64
dyn_elem_vertex (const SpxIpuMachine *m, SpxDtype dtype, guint64 nz,
                 guint64 rows, guint64 n_cols, GArray *terms)
{
  gboolean fp32 = dtype == SPX_DTYPE_FP32;
  const DynElemCase *c = fp32 ? dyn_elem_fp32 : dyn_elem_fp16;
  guint grain = spx_ipu_cost_grain (dtype), w = m->workers;
  guint64 xr, zg = spx_ipu_div_up (n_cols, grain);
  if (rows > 2 * (guint64) w)
    xr = spx_ipu_div_up (rows, w);
  else
    worker_tile (MAX (rows, 1), zg, w, &xr, &zg);
  if (rows == 0)
    xr = 0;
  guint64 z = MIN (zg * grain, n_cols);
  guint64 y = rows ? spx_ipu_div_up (nz, rows) : 0, fixed = 0, per_nz;
  guint i = z == c[0].z ? 0 : z == c[1].z ? 1 : 2;
  if (i < 2)
    per_nz = c[i].per_nz;
  else
    elem_inner (fp32, z, &fixed, &per_nz);
  guint64 start = DYN_ELEM_START + (guint64) w * c[i].start;
  guint64 row = (guint64) w * xr * (c[i].per_row + fixed);
  guint64 nzs = (guint64) w * xr * y * per_nz;
  double xc = (double) xr, yc = (double) y;
  spx_ipu_terms_add (terms, "vertex start", start, "%d + %u workers × %u",
                     DYN_ELEM_START, w, c[i].start);
  spx_ipu_terms_say (terms, "%d cycles to start the vertex, plus %u for "
                     "each of the %u workers to start", DYN_ELEM_START,
                     c[i].start, w);
  spx_ipu_terms_add (terms, "rows", row,
                     "%u workers × %g row%s × (%u + %" G_GUINT64_FORMAT
                     ") for %" G_GUINT64_FORMAT " columns", w, xc, plural (xc),
                     c[i].per_row, fixed, z);
  spx_ipu_terms_say (terms, "for each of the %g row%s a worker takes, %u + %"
                     G_GUINT64_FORMAT " cycles for its %" G_GUINT64_FORMAT
                     " columns of X, times %u workers taking turns", xc,
                     plural (xc), c[i].per_row, fixed, z, w);
  spx_ipu_terms_add (terms, "non-zeros", nzs,
                     "%u workers × %g row%s × %g non-zero%s × %"
                     G_GUINT64_FORMAT, w, xc, plural (xc), yc, plural (yc),
                     per_nz);
  spx_ipu_terms_say (terms, "%" G_GUINT64_FORMAT " cycles for each of the "
                     "%g non-zero%s of each of those %g row%s, times %u "
                     "workers taking turns", per_nz, yc, plural (yc), xc,
                     plural (xc), w);
  return start + row + nzs;
}

guint64
spx_ipu_cost_dynamic_vertex (const SpxIpuMachine *m, guint b,
                             SpxDtype dtype, const SpxIpuBuckets *in,
                             guint64 blocks, guint64 rows, guint64 n_cols,
                             guint64 zero, GArray *terms)
{
  if (in->buckets == 0 || n_cols == 0)
    return 0;
  guint64 cycles = zero_term (m, zero, terms);
  if (b == 1)
    {
      cycles += dyn_elem_vertex (m, dtype, blocks, rows, n_cols, terms);
      return cycles + bucket_terms (in, DYN_ELEM_MATCH, DYN_ELEM_SEARCH,
                                    DYN_ELEM_WALK, terms);
    }
  cycles += dyn_block_vertex (m, b, dtype, blocks, rows, n_cols, terms);
  return cycles + bucket_terms (in, DYN_BLOCK_MATCH, DYN_BLOCK_SEARCH,
                                DYN_BLOCK_WALK, terms);
}

/* py = 1: fp32 partials cast to fp16 (loads of 2, stores of 4). */
static guint64
dyn_cast (const SpxIpuMachine *m, guint64 outputs, GArray *terms)
{
  guint64 w = m->workers;
  guint64 each = spx_ipu_div_up (spx_ipu_div_up (outputs, w), DYN_CAST_WIDTH);
  spx_ipu_terms_add (terms, "vertex start", w * DYN_CAST_START,
                     "%" G_GUINT64_FORMAT " workers × %d", w, DYN_CAST_START);
  spx_ipu_terms_say (terms, "%d cycles for each of the %" G_GUINT64_FORMAT
                     " workers to start", DYN_CAST_START, w);
  spx_ipu_terms_add (terms, "casts to fp16", w * each,
                     "%" G_GUINT64_FORMAT " workers × %" G_GUINT64_FORMAT
                     " loads of %d partials", w, each, DYN_CAST_WIDTH);
  spx_ipu_terms_say (terms, "a cycle for each load of %d fp32 partial sums "
                     "cast to fp16, %" G_GUINT64_FORMAT " for a worker's "
                     "share, times %" G_GUINT64_FORMAT " workers taking "
                     "turns", DYN_CAST_WIDTH, each, w);
  return w * (DYN_CAST_START + each);
}

guint64
spx_ipu_cost_dynamic_reduce (const SpxIpuMachine *m, SpxDtype dtype,
                             guint64 outputs, guint depth, GArray *terms)
{
  gboolean fp32 = dtype == SPX_DTYPE_FP32;
  if (outputs == 0 || depth == 0 || (depth == 1 && fp32))
    return 0;
  if (depth == 1)
    return dyn_cast (m, outputs, terms);
  guint64 w = m->workers;
  guint64 loops = outputs / DYN_REDUCE_WIDTH + (outputs & 1) +
                  (outputs & 2 ? 1 : 0);
  guint64 each = loops / w, tail = 0;
  if (loops % w != 0 && (outputs & (DYN_REDUCE_WIDTH - 1)) != 0)
    tail = 2 * depth + DYN_REDUCE_TAIL;
  else if (loops % w != 0)
    each++;
  guint per_loop = DYN_REDUCE_PER_PARTIAL * depth +
                   (fp32 ? DYN_REDUCE_LOOP_FP32 : DYN_REDUCE_LOOP_FP16);
  spx_ipu_terms_add (terms, "vertex start", w * DYN_REDUCE_START,
                     "%" G_GUINT64_FORMAT " workers × %d", w,
                     DYN_REDUCE_START);
  spx_ipu_terms_say (terms, "%d cycles for each of the %" G_GUINT64_FORMAT
                     " workers to start", DYN_REDUCE_START, w);
  spx_ipu_terms_add (terms, "additions", w * each * per_loop,
                     "%" G_GUINT64_FORMAT " workers × %" G_GUINT64_FORMAT
                     " loops of %d outputs × (%d × %u partials + %d)", w,
                     each, DYN_REDUCE_WIDTH, DYN_REDUCE_PER_PARTIAL, depth,
                     per_loop - DYN_REDUCE_PER_PARTIAL * depth);
  spx_ipu_terms_say (terms, "for each of the %" G_GUINT64_FORMAT " loops "
                     "over %d outputs a worker takes, %d cycles for each of "
                     "the %u partial sums plus %d, times %" G_GUINT64_FORMAT
                     " workers taking turns", each, DYN_REDUCE_WIDTH,
                     DYN_REDUCE_PER_PARTIAL, depth,
                     per_loop - DYN_REDUCE_PER_PARTIAL * depth, w);
  if (tail > 0)
    {
      spx_ipu_terms_add (terms, "short last loop", w * tail,
                         "%" G_GUINT64_FORMAT " workers × (2 × %u partials "
                         "+ %d)", w, depth, DYN_REDUCE_TAIL);
      spx_ipu_terms_say (terms, "a last, shorter loop: 2 cycles for each of "
                         "the %u partial sums plus %d, times %"
                         G_GUINT64_FORMAT " workers", depth, DYN_REDUCE_TAIL,
                         w);
    }
  return w * (DYN_REDUCE_START + each * per_loop + tail);
}

guint64
spx_ipu_cost_dynamic_meta_bytes (const SpxIpuMachine *m, guint b,
                                 double density, guint64 x_groups,
                                 guint64 y_groups)
{
  /* the non-empty rows and their non-zeros of a uniform pattern
   * (getNumGroupsGivenUniformSparsityPattern) */
  double d = CLAMP (density, 0.0, 1.0);
  double p_row = -expm1 ((double) y_groups * log1p (-MIN (d, 1.0 - 1e-12)));
  double total = ceil ((double) x_groups * (double) y_groups * d - 1e-9);
  double x_nz = MAX (ceil ((double) x_groups * p_row - 1e-9), 1.0);
  double y_nz = ceil (total / x_nz - 1e-9);
  double fixed = b == 1 ? DYN_META_SUBGROUP_ELEM +
                          (double) m->workers * DYN_META_WORKER
                        : DYN_META_SUBGROUP_BLOCK;
  double fields = fixed * DYN_META_SUBGROUPS +
                  ceil (x_nz * (DYN_META_OUTPUT + y_nz) *
                        (1.0 + SPX_IPU_BUCKET_OVERSIZE) - 1e-9);
  return spx_ipu_div_up ((guint64) fields, DYN_META_ATOM) * DYN_META_ATOM *
         sizeof (guint16);
}

guint64
spx_ipu_cost_dynamic_call (GArray *terms)
{
  spx_ipu_terms_add (terms, "unexplained overhead per call",
                     SPX_IPU_DYN_CALL_OVERHEAD,
                     "fitted: what PopSparse's measured dynamic runs take "
                     "beyond PopLibs' own estimate of the same program");
  spx_ipu_terms_say (terms, "a fixed %d cycles a call: what the published "
                     "measurements of dynamic runs take beyond everything "
                     "modelled here", SPX_IPU_DYN_CALL_OVERHEAD);
  return SPX_IPU_DYN_CALL_OVERHEAD;
}
