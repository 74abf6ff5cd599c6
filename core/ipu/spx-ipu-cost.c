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
/* Dynamic vertex, on top of the static one. Per bucket taken in: walking
 * its sub-group headers to find the tile's own (one pass over the
 * bucket's meta-information). Per row and per block: reading the offsets
 * the static program bakes in. Fitted to the dynamic b = 1 and b = 16
 * columns of the 4096 table. */
#define DYN_BUCKET_CYCLES  6000
#define DYN_ROW_CYCLES     1000
#define DYN_BLOCK_CYCLES   30
/* The dynamic block loop is not specialised for a pattern: per block it
 * pays the inner loop's overhead once per load of the weights into the
 * AMP, and a 16 × 16 fp16 block with fp32 partials takes two loads (8
 * conv units). Overheads per block size from PopLibs' dynamic block
 * estimate (fp32 partials, several columns per worker). */
#define DYN_INNER_B4_FP16  19
#define DYN_INNER_B4_FP32  14
#define DYN_INNER_B8       23
#define DYN_INNER_B16      24
/* The static block vertex per block size and type, PopLibs' estimate
 * ([PopLibs] lib/popsparse/StaticMatMulPartitioner.cpp,
 * matmulComputeCycles): per worker a header, per row the cost of fetching
 * X's row pointers (worker cycles), and per block times n columns of X
 * y(n) = base + slope·n worker cycles, or base_small + slope·n for n up to
 * small_n. The slope is the AMP's width (per_column): fp16 does
 * min(4b, 64) MACs per worker step, fp32 min(b, 16). Another b takes the
 * next listed size's row. */
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
/* Reduce: each worker adds two fp32 partials per cycle (a 64-bit vector
 * add), after the vertex start. */
#define REDUCE_WIDTH        2u
/* The static reduce at the outputs' owners, PopLibs' estimate for its
 * strided reduce ([PopLibs] lib/popsparse/StaticMatMulPartitioner.cpp,
 * reductionCycleEstimate): per worker a start, then per vector of outputs
 * a loop step plus one cycle per partial. Vector: 8 halves or 4 floats;
 * loop step c0 + 6 − 1 with c0 = 8 (half) or 5 (float). */
#define STATIC_REDUCE_START   16
#define STATIC_REDUCE_STEP    6
#define STATIC_REDUCE_C0_HALF 8
#define STATIC_REDUCE_C0_FLOAT 5

/* ---- bytes --------------------------------------------------------------- */

guint
spx_ipu_cost_partial_bytes (SpxIpuMode mode, SpxDtype dtype)
{
  return mode == SPX_IPU_MODE_STATIC ? spx_ipu_dtype_bytes (dtype)
                                     : SPX_IPU_PARTIAL_BYTES;
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

/* ---- terms --------------------------------------------------------------- */

static void
term_clear (gpointer data)
{
  SpxIpuTerm *t = data;
  g_free (t->term);
  g_free (t->formula);
}

GArray *
spx_ipu_terms_new (void)
{
  GArray *a = g_array_new (FALSE, TRUE, sizeof (SpxIpuTerm));
  g_array_set_clear_func (a, term_clear);
  return a;
}

void
spx_ipu_terms_free (GArray *terms)
{
  if (terms)
    g_array_unref (terms);
}

void
spx_ipu_terms_add (GArray *terms, const char *term, guint64 cycles,
                   const char *formula, ...)
{
  if (terms == NULL)
    return;
  va_list ap;
  va_start (ap, formula);
  SpxIpuTerm t = { g_strdup (term), g_strdup_vprintf (formula, ap), cycles };
  va_end (ap);
  g_array_append_val (terms, t);
}

guint64
spx_ipu_terms_sum (const GArray *terms)
{
  guint64 sum = 0;
  for (guint i = 0; terms && i < terms->len; i++)
    sum += g_array_index (terms, SpxIpuTerm, i).cycles;
  return sum;
}

void
spx_ipu_terms_copy (GArray *dst, const GArray *src)
{
  g_array_set_size (dst, 0);
  for (guint i = 0; src && i < src->len; i++)
    {
      const SpxIpuTerm *t = &g_array_index (src, SpxIpuTerm, i);
      spx_ipu_terms_add (dst, t->term, t->cycles, "%s", t->formula);
    }
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
  g_autofree char *text = NULL;
  if (t->out >= in)
    {
      text = spx_format_bytes (t->out);
      spx_ipu_terms_add (terms, "busiest tile sends", moving,
                         "%s at %g B/cycle", text, rate);
    }
  else if (t->in_paired > 0)
    {
      g_autofree char *alone = spx_format_bytes (t->in);
      text = spx_format_bytes (t->in_paired);
      spx_ipu_terms_add (terms, "busiest tile receives", moving,
                         "%s at %g B/cycle + %s broadcast to its pair at "
                         "%g B/cycle", alone, rate, text, 2 * rate);
    }
  else
    {
      text = spx_format_bytes (t->in);
      spx_ipu_terms_add (terms, "busiest tile receives", moving,
                         "%s at %g B/cycle", text, rate);
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
  return cycles;
}

/* ---- vertices ------------------------------------------------------------ */

/* Worker cycles per column of X of one b×b block on the AMP: fp16 does
 * min(4b, 64) MACs per worker step, fp32 min(b, 16). */
static double
per_column (guint b, SpxDtype dtype)
{
  double bb = (double) b * b;
  return dtype == SPX_DTYPE_FP16 ? bb / MIN (4.0 * b, 64.0)
                                 : bb / MIN ((double) b, 16.0);
}

/* The dynamic vertex's worker cycles of one block times nw columns. */
static double
dynamic_y (guint b, SpxDtype dtype, double nw)
{
  gboolean half = dtype == SPX_DTYPE_FP16;
  double inner = b <= 4 ? (half ? DYN_INNER_B4_FP16 : DYN_INNER_B4_FP32)
                 : b <= 8 ? DYN_INNER_B8 : DYN_INNER_B16;
  double loads = b >= 16 && half ? 2 : 1;
  return loads * (inner + nw * per_column (b, dtype));
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
block_y (const BlockRow *row, guint b, SpxDtype dtype, double nw)
{
  double base = nw <= row->small_n ? row->base_small : row->base;
  return base + per_column (b, dtype) * nw;
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
  spx_ipu_terms_add (terms, "rows", rows,
                     "%.2f × %g workers × %g row%s × (%d + %d × %g vectors)",
                     ELEM_SLOWDOWN * scale, w, mw, plural (mw), ELEM_ROW,
                     ELEM_ROW, g);
  spx_ipu_terms_add (terms, "non-zeros", nz,
                     "%.2f × %g workers × %g non-zero%s × %d × %g vectors",
                     ELEM_SLOWDOWN * scale, w, kw, plural (kw), ELEM_STEP, g);
  return start + rows + nz;
}

/* The static vertex's cycles, or with dynamic the dynamic vertex's block
 * loop, with its terms. */
static guint64
block_vertex (const SpxIpuMachine *m, guint b, SpxDtype dtype,
              guint64 blocks, guint64 rows, guint64 n_cols, gboolean dynamic,
              GArray *terms)
{
  if (blocks == 0 || n_cols == 0)
    return 0;
  rows = MAX (rows, 1);
  double w = m->workers;
  guint64 wr, wn;
  split_workers (m->workers, b, dtype, rows, n_cols, &wr, &wn);
  double mw = (double) spx_ipu_div_up (rows, wr);
  double kw = (double) spx_ipu_div_up (blocks, wr); /* per worker */
  double nw = (double) spx_ipu_div_up (n_cols, wn);
  if (b == 1)
    return element_vertex (m, dtype, mw, kw, nw, 1.0, terms);
  double bytes = spx_ipu_dtype_bytes (dtype);
  const BlockRow *br = block_row (b, dtype);
  double y = dynamic ? dynamic_y (b, dtype, nw) : block_y (br, b, dtype, nw);
  double per_block = BLOCK_SETUP + (double) b * b * bytes / 8 + y * w;
  guint64 start = whole (VERTEX_START + br->hdr * w);
  guint64 row = whole (mw * (br->xret * w + BLOCK_ROW));
  guint64 blk = whole (kw * per_block);
  spx_ipu_terms_add (terms, "vertex start", start, "%d + %g × %g workers",
                     VERTEX_START, br->hdr, w);
  spx_ipu_terms_add (terms, "rows", row, "%g row%s × (%g × %g workers + %d)",
                     mw, plural (mw), br->xret, w, BLOCK_ROW);
  spx_ipu_terms_add (terms, "blocks", blk,
                     "%g block%s × (%d + %u²·%g B/8 + %.1f per %g column%s "
                     "× %g workers)%s", kw, plural (kw), BLOCK_SETUP, b, bytes,
                     y, nw, plural (nw), w,
                     dynamic ? ", the dynamic loop's" : "");
  return start + row + blk;
}

guint64
spx_ipu_cost_block_vertex (const SpxIpuMachine *m, guint b, SpxDtype dtype,
                           guint64 blocks, guint64 rows, guint64 n_cols,
                           GArray *terms)
{
  return block_vertex (m, b, dtype, blocks, rows, n_cols, FALSE, terms);
}

guint64
spx_ipu_cost_dynamic_vertex (const SpxIpuMachine *m, guint b,
                             SpxDtype dtype, guint64 blocks, guint64 rows,
                             guint64 n_cols, guint64 buckets, GArray *terms)
{
  if (blocks == 0 || n_cols == 0)
    return 0;
  double w = m->workers;
  guint64 work = block_vertex (m, b, dtype, blocks, rows, n_cols, TRUE,
                               terms);
  guint64 walk = (guint64) buckets * DYN_BUCKET_CYCLES;
  guint64 meta_rows = whole (ceil ((double) rows / w) * DYN_ROW_CYCLES * w);
  guint64 meta_blocks = whole (ceil ((double) blocks / w) *
                               DYN_BLOCK_CYCLES * w);
  spx_ipu_terms_add (terms, "bucket walk", walk,
                     "%" G_GUINT64_FORMAT " bucket%s × %d", buckets,
                     plural ((double) buckets),
                     DYN_BUCKET_CYCLES);
  spx_ipu_terms_add (terms, "row meta-information", meta_rows,
                     "%g row%s per worker × %d × %g workers",
                     ceil ((double) rows / w), plural (ceil ((double) rows / w)),
                     DYN_ROW_CYCLES, w);
  spx_ipu_terms_add (terms, "block meta-information", meta_blocks,
                     "%g block%s per worker × %d × %g workers",
                     ceil ((double) blocks / w),
                     plural (ceil ((double) blocks / w)), DYN_BLOCK_CYCLES, w);
  return work + walk + meta_rows + meta_blocks;
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
  guint64 rows_each = spx_ipu_div_up (rows, w), cols_each = nt;
  if (rows < w)
    cols_each = spx_ipu_div_up (nt, w / rows);
  double per_column = (double) (DENSE_GRAIN * DENSE_GRAIN) /
                      spx_ipu_macs_per_cycle (m, dtype);
  double re = (double) rows_each * w;
  guint64 row = whole (re * DENSE_ROW);
  guint64 fill = whole (re * pieces * DENSE_FILL);
  guint64 macs = whole (re * pieces * cols_each * per_column);
  spx_ipu_terms_add (terms, "vertex start", VERTEX_START, "%d",
                     VERTEX_START);
  double r = (double) rows_each, p = (double) pieces, c = (double) cols_each;
  spx_ipu_terms_add (terms, "rows", row,
                     "%g row%s of %u per worker × %g × %" G_GUINT64_FORMAT
                     " workers", r, plural (r), DENSE_GRAIN, DENSE_ROW, w);
  spx_ipu_terms_add (terms, "pipeline fill", fill,
                     "%g row%s × %g piece%s × %g × %" G_GUINT64_FORMAT
                     " workers", r, plural (r), p, plural (p), DENSE_FILL, w);
  spx_ipu_terms_add (terms, "multiply-accumulate", macs,
                     "%g row%s × %g piece%s × %g column%s × %g × %"
                     G_GUINT64_FORMAT " workers", r, plural (r), p,
                     plural (p), c, plural (c), per_column, w);
  return VERTEX_START + row + fill + macs;
}

guint64
spx_ipu_cost_reduce (const SpxIpuMachine *m, guint64 outputs,
                     double partials, GArray *terms)
{
  if (outputs == 0 || partials <= 0)
    return 0;
  guint64 w = m->workers;
  double each = (double) spx_ipu_div_up (spx_ipu_div_up (outputs, w),
                                         REDUCE_WIDTH);
  guint64 adds = whole (each * partials * w);
  spx_ipu_terms_add (terms, "vertex start", VERTEX_START, "%d",
                     VERTEX_START);
  spx_ipu_terms_add (terms, "additions", adds,
                     "%g steps of %u outputs per worker × %.2f partials × %"
                     G_GUINT64_FORMAT " workers", each, REDUCE_WIDTH,
                     partials, w);
  return VERTEX_START + adds;
}

guint64
spx_ipu_cost_static_reduce (const SpxIpuMachine *m, SpxDtype dtype,
                            guint64 outputs, double partials, GArray *terms)
{
  if (outputs == 0 || partials <= 0)
    return 0;
  gboolean half = dtype == SPX_DTYPE_FP16;
  double w = m->workers, vec = half ? 8 : 4;
  double c0 = half ? STATIC_REDUCE_C0_HALF : STATIC_REDUCE_C0_FLOAT;
  double steps = ceil (ceil ((double) outputs / w) / vec);
  guint64 start = whole (w * STATIC_REDUCE_START);
  guint64 adds = whole (w * steps * (c0 + STATIC_REDUCE_STEP + partials - 1));
  spx_ipu_terms_add (terms, "vertex start", start, "%g workers × %d", w,
                     STATIC_REDUCE_START);
  spx_ipu_terms_add (terms, "additions", adds,
                     "%g workers × %g vector%s of %g outputs × (%g + %d + "
                     "%.2f partials − 1)", w, steps, plural (steps), vec, c0,
                     STATIC_REDUCE_STEP, partials);
  return start + adds;
}
