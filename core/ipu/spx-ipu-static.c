/* spx-ipu-static.c: the static block-sparse planner (pattern known when
 * the program is built), after PopSparse's static algorithm.
 *
 * Assumptions the paper leaves open:
 * - Before the program runs, X's slice for each (n-split, k-band) lies
 *   spread evenly over the tiles that will use it (the layout a previous
 *   layer would leave), so distributing it is an all-gather inside the
 *   group. W's non-zero values of a tile's share lie spread over the sn
 *   tiles (one per n-split) that hold the same blocks.
 * - Partial sums are fp32. The partials of a (block-row, n-split) are
 *   reduced on one of the tiles holding them, the least loaded one.
 * - n-splits all get the same (even) number of tiles; rows and columns are
 *   sorted by non-zero blocks, most first (ties: lower index first), and
 *   the blocks of one row within a band keep their column order.
 * - With sn > 1 the sn tiles that compute on the same blocks each own a
 *   1/sn part of them (tile->blocks lists the owned part, so every block
 *   is listed once); all sn hold all the values while computing.
 * - X goes to both tiles of a pair as one broadcast, received at twice
 *   the exchange rate; whatever a tile sends goes out once.
 * - Workers of a block vertex split the columns of X (the reference's nW),
 *   those of an element-wise vertex split rows.
 * - Candidates are costed from counts (estimating how many rows a tile's
 *   blocks span); only the best few are built and costed exactly.
 * - fits means within the available share of SRAM (0.6), the limit the
 *   search keeps to. */
#include "spx-ipu.h"
#include "spx-ipu-cost.h"
#include "spx-util.h"

#include <math.h>
#include <string.h>

#define MAX_SN 32u
#define MAX_SK 128u

#define HIST_GROUPS 8

/* Long loops poll for cancellation every this many steps (a power of 2). */
#define POLL_EVERY 1024u
/* Memory a GArray takes beyond its data: its header. */
#define ARRAY_HEADER_BYTES 48u

typedef struct {
  const SpxIpuMachine *machine;
  const SpxMask       *mask;
  guint64              n;
  SpxDtype             dtype;
  guint                bytes, grain, b;
  guint64              nnz;          /* non-zero blocks */
  guint64              empty_rows;   /* block-rows without blocks */
  guint32             *row_count, *col_count;
  guint64             *row_order, *col_order; /* sorted, most first */
  guint64             *col_prefix;   /* blocks in sorted columns [0, i) */
  guint64             *width_prefix; /* elements in sorted columns [0, i) */
  /* groups of non-empty rows: their mean count and how many rows */
  double               hist_count[HIST_GROUPS], hist_rows[HIST_GROUPS];
  guint                n_hist;
  double               footprint;    /* bytes of the arrays above */
} Ctx;

/* One (sn, sk) partition. */
typedef struct {
  guint   sn, sk;
  guint   split_tiles;                 /* tiles per n-split, even */
  guint64 n_part;                      /* widest n-split, columns */
  guint64 band_start[MAX_SK + 1];      /* sorted column positions */
  guint64 band_blocks[MAX_SK];
  guint   band_tiles[MAX_SK];
  guint   band_first[MAX_SK];          /* first tile within the split */
  double  cycles;                      /* estimated */
  guint64 bytes;                       /* estimated largest tile */
} Shape;

/* ---- pre-processing ---------------------------------------------------- */

/* The plan in errors, by what makes it large. */
static char *
plan_what (const Ctx *c)
{
  const SpxMask *mask = c->mask;
  return g_strdup_printf ("the static plan (%" G_GUINT64_FORMAT "×%"
                          G_GUINT64_FORMAT " in blocks of %u, n = %"
                          G_GUINT64_FORMAT ", %u tiles)", mask->rows,
                          mask->cols, mask->block, c->n, c->machine->tiles);
}

/* Every stage checks what it is about to hold against the memory
 * budget. */
static gboolean
check_budget (const Ctx *c, double bytes, GError **error)
{
  g_autofree char *what = plan_what (c);
  return spx_budget_check_estimate (bytes, what, error);
}

/* Counts (u32) and orders (u64) per row and column, the counting sort's
 * starts, and the two prefix sums over columns. */
static double
ctx_bytes (const SpxMask *mask)
{
  return (double) mask->brows * (4 + 8 + 8) +
         (double) mask->bcols * (4 + 8 + 8 + 2 * 8) + 64;
}

/* Count blocks per block-row and block-column. */
static gboolean
count_blocks (Ctx *c, GError **error)
{
  const SpxMask *mask = c->mask;
  c->row_count = g_new0 (guint32, mask->brows);
  c->col_count = g_new0 (guint32, mask->bcols);
  SpxMaskIter it;
  guint64 br, bc, seen = 0;
  spx_mask_iter_init (&it, mask);
  while (spx_mask_iter_next (&it, &br, &bc))
    {
      if (++seen % (64 * POLL_EVERY) == 0 && spx_cancelled (error))
        return FALSE;
      c->row_count[br]++;
      c->col_count[bc]++;
    }
  return TRUE;
}

/* A mask too large to plan is refused before the seconds its counting
 * takes: by its count of blocks, and because whatever the partition, a
 * build lists every block twice, dealt and per tile (build_bytes). */
static gboolean
check_size (const Ctx *c, GError **error)
{
  guint64 nnz = spx_mask_count (c->mask);
  g_autofree char *what = plan_what (c);
  return spx_ipu_check_blocks (nnz, what, error) &&
         check_budget (c, c->footprint + 2.0 * (double) nnz *
                          sizeof (guint64), error);
}

/* A stable counting sort, most blocks first: O(n + max count). */
static guint64 *
order_by_count (const guint32 *count, guint64 n, guint64 max)
{
  guint64 *start = g_new0 (guint64, max + 2);
  guint64 *order = g_new (guint64, n);
  for (guint64 i = 0; i < n; i++)
    start[max - count[i] + 1]++;
  for (guint64 v = 1; v <= max + 1; v++)
    start[v] += start[v - 1];
  for (guint64 i = 0; i < n; i++)
    order[start[max - count[i]]++] = i;
  g_free (start);
  return order;
}

/* Non-empty rows in up to HIST_GROUPS groups of equal size (rows are
 * sorted by count), each with its mean count: enough for estimates. */
static void
build_histogram (Ctx *c)
{
  const SpxMask *mask = c->mask;
  guint64 busy = 0;
  while (busy < mask->brows && c->row_count[c->row_order[busy]] > 0)
    busy++;
  c->empty_rows = mask->brows - busy;
  c->n_hist = (guint) MIN ((guint64) HIST_GROUPS, busy);
  for (guint g = 0; g < c->n_hist; g++)
    {
      guint64 lo = busy * g / c->n_hist, hi = busy * (g + 1) / c->n_hist;
      guint64 sum = 0;
      for (guint64 i = lo; i < hi; i++)
        sum += c->row_count[c->row_order[i]];
      c->hist_rows[g] = (double) (hi - lo);
      c->hist_count[g] = (double) sum / (double) (hi - lo);
    }
}

static gboolean
ctx_init (Ctx *c, const SpxIpuMachine *machine, const SpxMask *mask,
          guint64 n, SpxDtype dtype, GError **error)
{
  memset (c, 0, sizeof *c);
  c->machine = machine;
  c->mask = mask;
  c->n = n;
  c->dtype = dtype;
  c->bytes = spx_ipu_dtype_bytes (dtype);
  c->grain = spx_ipu_cost_grain (dtype);
  c->b = mask->block;
  c->footprint = ctx_bytes (mask);
  if (!check_size (c, error) || !count_blocks (c, error))
    return FALSE;
  c->row_order = order_by_count (c->row_count, mask->brows, mask->bcols);
  c->col_order = order_by_count (c->col_count, mask->bcols, mask->brows);
  c->col_prefix = g_new (guint64, mask->bcols + 1);
  c->width_prefix = g_new (guint64, mask->bcols + 1);
  c->col_prefix[0] = c->width_prefix[0] = 0;
  for (guint64 i = 0; i < mask->bcols; i++)
    {
      guint64 col = c->col_order[i];
      c->col_prefix[i + 1] = c->col_prefix[i] + c->col_count[col];
      c->width_prefix[i + 1] = c->width_prefix[i] +
                               spx_mask_block_width (mask, col);
    }
  c->nnz = c->col_prefix[mask->bcols];
  build_histogram (c);
  return TRUE;
}

static void
ctx_clear (Ctx *c)
{
  g_free (c->row_count);
  g_free (c->col_count);
  g_free (c->row_order);
  g_free (c->col_order);
  g_free (c->col_prefix);
  g_free (c->width_prefix);
}

/* ---- partition shape --------------------------------------------------- */

/* Columns [*lo, *hi) of n-split s (splits are whole grains, the first
 * ones wider). */
static void
split_range (const Ctx *c, guint sn, guint s, guint64 *lo, guint64 *hi)
{
  guint64 grains = spx_ipu_div_up (c->n, c->grain);
  guint64 first = (grains / sn) * s + MIN ((guint64) s, grains % sn);
  guint64 count = grains / sn + (s < grains % sn);
  *lo = MIN (c->n, first * c->grain);
  *hi = MIN (c->n, (first + count) * c->grain);
}

static guint64
split_cols (const Ctx *c, guint sn, guint s)
{
  guint64 lo, hi;
  split_range (c, sn, s, &lo, &hi);
  return hi - lo;
}

/* Band j ends at the first sorted column where the running block count
 * reaches (j + 1)/sk of all blocks. */
static void
shape_bands (const Ctx *c, Shape *sh)
{
  guint64 bcols = c->mask->bcols;
  sh->band_start[0] = 0;
  for (guint j = 0; j < sh->sk; j++)
    {
      guint64 target = spx_ipu_div_up (c->nnz * (j + 1), sh->sk);
      guint64 lo = sh->band_start[j], hi = bcols;
      while (lo < hi) /* first end with prefix ≥ target */
        {
          guint64 mid = lo + (hi - lo) / 2;
          if (c->col_prefix[mid] >= target)
            hi = mid;
          else
            lo = mid + 1;
        }
      sh->band_start[j + 1] = j + 1 == sh->sk ? bcols : lo;
      sh->band_blocks[j] = c->col_prefix[sh->band_start[j + 1]] -
                           c->col_prefix[sh->band_start[j]];
    }
}

/* Tiles of a split go to bands in units of 2, in proportion to their
 * blocks (rounding the running share, so the units add up exactly), at
 * least one unit for a band with blocks. */
static void
shape_tiles (const Ctx *c, Shape *sh)
{
  guint units = sh->split_tiles / 2, busy = 0;
  for (guint j = 0; j < sh->sk; j++)
    busy += sh->band_blocks[j] > 0;
  guint64 spare = units - busy, seen = 0, given = 0, first = 0;
  for (guint j = 0; j < sh->sk; j++)
    {
      seen += sh->band_blocks[j];
      guint64 upto = (spare * seen + c->nnz / 2) / MAX (c->nnz, 1);
      guint64 u = sh->band_blocks[j] > 0 ? 1 + upto - given : 0;
      given = upto;
      sh->band_tiles[j] = (guint) (2 * u);
      sh->band_first[j] = (guint) first;
      first += 2 * u;
    }
}

static void
shape_split (const Ctx *c, Shape *sh, guint sn)
{
  sh->sn = sn;
  sh->split_tiles = (c->machine->tiles / sn) & ~1u;
  sh->n_part = split_cols (c, sn, 0);
  shape_tiles (c, sh);
}

static void
shape_init (const Ctx *c, Shape *sh, guint sn, guint sk)
{
  sh->sk = sk;
  shape_bands (c, sh);
  shape_split (c, sh, sn);
}

/* ---- estimate from counts ---------------------------------------------- */

/* Expected block-rows with at least one block in a band holding a share
 * p of all blocks, each row's blocks falling into it independently. */
static double
band_rows (const Ctx *c, double p)
{
  double rows = 0;
  for (guint i = 0; i < c->n_hist; i++)
    rows += c->hist_rows[i] * (1 - exp (c->hist_count[i] * log1p (-p)));
  return MAX (rows, 1.0);
}

/* The static program's supersteps in order: the estimate costs and the
 * build adds exactly these. No step writes the outputs of rows without
 * blocks: PopLibs builds the copy that would zero them but never adds it
 * to the program [PopLibs] (lib/popsparse/StaticMatMul.cpp,
 * constructGraph), so they take memory and no cycles. */
typedef enum {
  ST_DISTRIBUTE, ST_DISTRIBUTE_SYNC, ST_COMPUTE, ST_COMPUTE_SYNC,
  ST_REDUCE_EXCHANGE, ST_REDUCE_ADD, ST_REDUCE_SYNC, ST_N
} StaticStep;

static const struct {
  SpxStepKind kind;
  const char *phase;
} static_steps[ST_N] = {
  [ST_DISTRIBUTE] = { SPX_STEP_EXCHANGE, "distribute" },
  [ST_DISTRIBUTE_SYNC] = { SPX_STEP_SYNC, "distribute" },
  [ST_COMPUTE] = { SPX_STEP_COMPUTE, "compute" },
  [ST_COMPUTE_SYNC] = { SPX_STEP_SYNC, "compute" },
  [ST_REDUCE_EXCHANGE] = { SPX_STEP_EXCHANGE, "reduce" },
  [ST_REDUCE_ADD] = { SPX_STEP_COMPUTE, "reduce" },
  [ST_REDUCE_SYNC] = { SPX_STEP_SYNC, "reduce" },
};

/* The sum of the estimated steps, syncs costed here. */
static double
estimate_total (const SpxIpuMachine *m, const double *cost)
{
  double total = 0;
  for (guint i = 0; i < ST_N; i++)
    total += static_steps[i].kind == SPX_STEP_SYNC
             ? (double) spx_ipu_cost_sync (m, 1, NULL) : cost[i];
  return total;
}

/* Distribution traffic of a tile in a band of `tiles` tiles holding
 * `slab` bytes of X between them and `values` bytes of W each (shared by
 * the sn splits): the heavier of what it receives and what it sends. */
static SpxIpuTraffic
distribute_traffic (guint sn, double slab, double values, double tiles)
{
  SpxIpuTraffic t = { 0, 0, 0, 1 };
  t.in_paired = slab * (tiles - 1) / tiles;
  t.in = values * (sn - 1) / sn;
  t.out = slab / tiles + (sn > 1 ? values / sn : 0);
  return t;
}

/* The heavier of two tiles' traffic, by the time it takes. */
static SpxIpuTraffic
heavier (const SpxIpuMachine *m, SpxIpuTraffic a, SpxIpuTraffic b)
{
  return spx_ipu_cost_exchange (m, &b, NULL) >
         spx_ipu_cost_exchange (m, &a, NULL) ? b : a;
}

static void
shape_estimate (const Ctx *c, Shape *sh, const double *rows_band)
{
  const SpxIpuMachine *m = c->machine;
  double b = c->b, np = (double) sh->n_part, bytes = c->bytes;
  double mem = 0, pieces = 0, red_out = 0, max_rows = 0;
  double cost[ST_N] = { 0 };
  SpxIpuTraffic dist = { 0, 0, 0, 1 };
  guint64 max_per = 0;
  guint used = 0;
  double nonempty = (double) (c->mask->brows - c->empty_rows);
  for (guint j = 0; j < sh->sk; j++)
    {
      guint64 blocks = sh->band_blocks[j];
      if (blocks == 0)
        continue;
      guint64 per = spx_ipu_div_up (blocks, sh->band_tiles[j]);
      guint64 tiles = spx_ipu_div_up (blocks, per);
      double per_row = blocks / rows_band[j];
      double rows = MIN ((double) per, MIN (rows_band[j],
                                            ceil (per / per_row) + 1));
      max_per = MAX (max_per, per);
      max_rows = MAX (max_rows, rows);
      double width = (double) (c->width_prefix[sh->band_start[j + 1]] -
                               c->width_prefix[sh->band_start[j]]);
      double slab = width * np * bytes;
      double values = per * b * b * bytes;
      dist = heavier (m, dist, distribute_traffic (sh->sn, slab, values,
                                                   (double) tiles));
      double partials = rows * b * np * SPX_IPU_PARTIAL_BYTES;
      mem = MAX (mem, values + slab + partials +
                      per * SPX_IPU_INDEX_BYTES_BLOCK +
                      rows * SPX_IPU_INDEX_BYTES_ROW +
                      SPX_IPU_INDEX_BYTES_TILE);
      pieces += rows * tiles;
      red_out = MAX (red_out, partials * (1 - nonempty / (rows * tiles)));
      used += tiles;
    }
  cost[ST_DISTRIBUTE] = (double) spx_ipu_cost_exchange (m, &dist, NULL);
  /* the bands are balanced: the busiest tile's blocks over the most rows
   * bound every band's vertex, at one evaluation per candidate */
  cost[ST_COMPUTE] = (double) spx_ipu_cost_block_vertex (
    m, c->b, c->dtype, max_per, (guint64) max_rows, sh->n_part, NULL);
  /* partial blocks that must move to a reducer, spread over the tiles */
  double moved = MAX (pieces - nonempty, 0);
  double red_in = ceil (SPX_IPU_REDUCE_IMBALANCE * moved / used) * b * np *
                  SPX_IPU_PARTIAL_BYTES;
  double outs = ceil ((nonempty + c->empty_rows) / used) * b * np;
  double outs_red = ceil (nonempty / used) * b * np;
  SpxIpuTraffic red = { red_in, 0, red_out, 1 };
  cost[ST_REDUCE_EXCHANGE] = (double) spx_ipu_cost_exchange (m, &red, NULL);
  cost[ST_REDUCE_ADD] = (double) spx_ipu_cost_reduce (
    m, (guint64) outs_red, (moved + nonempty) / nonempty, NULL);
  sh->cycles = estimate_total (m, cost);
  sh->bytes = (guint64) (mem + red_in + outs * bytes);
}

/* Expected non-empty block-rows of each band of sh. */
static void
shape_rows (const Ctx *c, const Shape *sh, double *rows_band)
{
  for (guint j = 0; j < sh->sk; j++)
    rows_band[j] = sh->band_blocks[j] > 0
      ? band_rows (c, (double) sh->band_blocks[j] / MAX (c->nnz, 1)) : 0;
}

/* ---- search ------------------------------------------------------------ */

typedef struct {
  guint   sn, sk;
  double  cycles;
  guint64 bytes;
  gboolean fits;
} Candidate;

/* Fitting candidates first, each group fastest first. */
static int
cmp_candidate (const void *pa, const void *pb)
{
  const Candidate *a = pa, *b = pb;
  if (a->fits != b->fits)
    return a->fits ? -1 : 1;
  return (a->cycles > b->cycles) - (a->cycles < b->cycles);
}

static guint
sk_limit (const Ctx *c)
{
  guint64 busy_cols = c->mask->bcols;
  while (busy_cols > 0 && c->col_count[c->col_order[busy_cols - 1]] == 0)
    busy_cols--;
  guint64 sk_max = MIN ((guint64) MAX_SK, MAX (1, c->mask->cols / c->grain));
  return (guint) MIN (sk_max, MAX (busy_cols, 1));
}

/* Every (sn, sk), costed from counts; the bands and their row estimates
 * depend on sk alone, so they are worked out once per sk. NULL when
 * cancelled. */
static GArray *
search (const Ctx *c, GError **error)
{
  guint64 budget = spx_ipu_tile_budget (c->machine);
  guint sn_max = (guint) MIN ((guint64) MAX_SN, MAX (1, c->n / c->grain));
  guint sk_max = sk_limit (c);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (Candidate));
  Shape *sh = g_new0 (Shape, 1);
  double rows_band[MAX_SK];
  for (guint sk = 1; sk <= sk_max && sk <= c->machine->tiles / 2; sk++)
    {
      if (spx_cancelled (error))
        {
          g_free (sh);
          g_array_unref (out);
          return NULL;
        }
      sh->sk = sk;
      shape_bands (c, sh);
      shape_rows (c, sh, rows_band);
      for (guint sn = 1; sn <= sn_max && sn * sk <= c->machine->tiles / 2;
           sn++)
        {
          shape_split (c, sh, sn);
          shape_estimate (c, sh, rows_band);
          Candidate cand = { sn, sk, sh->cycles, sh->bytes,
                             sh->bytes <= budget };
          g_array_append_val (out, cand);
        }
    }
  g_free (sh);
  g_array_sort (out, cmp_candidate);
  return out;
}

/* ---- the detailed program ---------------------------------------------- */

/* A run of one tile's blocks within one block-row. */
typedef struct {
  guint64 row;
  guint   tile;   /* within the split */
  guint   blocks;
} Run;

typedef struct {
  const Ctx     *c;
  const Shape   *sh;
  SpxIpuProgram *p;
  gboolean       dry;       /* cost only: no transfer or block lists */
  guint64       *list;      /* flat block indices, band by band */
  guint64       *band_off;  /* sk + 1 */
  guint64       *band_cols; /* block-columns band by band (at band_start),
                               in order within a band: X's rows */
  GArray        *runs;      /* Run, for split 0 */
  guint64       *owned;     /* per tile: bytes of values it owns */
  SpxIpuPiece   *owned_what; /* per tile: the W region they come from */
  /* what the slowest or busiest tile of each step does, to explain it */
  guint64        vertex_cycles, vertex_blocks, vertex_rows, vertex_cols;
  SpxIpuTraffic  dist;
  guint64        dist_cycles;
} Build;

static guint64
split_tile (const Shape *sh, guint s, guint t)
{
  return (guint64) s * sh->split_tiles + t;
}

/* Deal each band's blocks, rows in sorted order, into one list. */
static gboolean
deal_blocks (Build *bd, GError **error)
{
  const Ctx *c = bd->c;
  const SpxMask *mask = c->mask;
  const Shape *sh = bd->sh;
  guint8 *band_of = g_new (guint8, mask->bcols);
  for (guint j = 0; j < sh->sk; j++)
    for (guint64 i = sh->band_start[j]; i < sh->band_start[j + 1]; i++)
      band_of[c->col_order[i]] = (guint8) j;
  bd->p->col_group = g_new (guint32, MAX (mask->bcols, 1));
  for (guint64 i = 0; i < mask->bcols; i++)
    bd->p->col_group[i] = band_of[i];
  guint64 next[MAX_SK];
  memcpy (next, sh->band_start, sh->sk * sizeof (guint64));
  bd->band_cols = g_new (guint64, MAX (mask->bcols, 1));
  for (guint64 i = 0; i < mask->bcols; i++)
    bd->band_cols[next[band_of[i]]++] = i;
  bd->band_off = g_new0 (guint64, sh->sk + 1);
  for (guint j = 0; j < sh->sk; j++)
    bd->band_off[j + 1] = bd->band_off[j] + sh->band_blocks[j];
  guint64 *fill = g_memdup2 (bd->band_off, sizeof (guint64) * sh->sk);
  bd->list = g_new (guint64, MAX (c->nnz, 1));
  gboolean cancelled = FALSE;
  for (guint64 i = 0; i < mask->brows && !cancelled; i++)
    {
      if (i % POLL_EVERY == 0 && (cancelled = spx_cancelled (error)))
        break;
      guint64 row = c->row_order[i];
      guint64 from = row * mask->bcols, to = from + mask->bcols;
      for (guint64 w = from >> 6; w <= (to - 1) >> 6; w++)
        {
          guint64 word = mask->bits[w];
          if ((w << 6) < from)
            word &= ~G_GUINT64_CONSTANT (0) << (from - (w << 6));
          if (((w + 1) << 6) > to)
            word &= ~(~G_GUINT64_CONSTANT (0) << (to - (w << 6)));
          for (; word != 0; word &= word - 1)
            {
              guint64 flat = (w << 6) + (guint64) __builtin_ctzll (word);
              bd->list[fill[band_of[flat - from]]++] = flat;
            }
        }
    }
  g_free (fill);
  g_free (band_of);
  return !cancelled;
}

static inline guint
row_height (const SpxMask *mask, guint64 row)
{
  return row + 1 < mask->brows ? mask->block
                               : (guint) (mask->rows - row * mask->block);
}

static inline guint
col_width (const SpxMask *mask, guint64 col)
{
  return col + 1 < mask->bcols ? mask->block
                               : (guint) (mask->cols - col * mask->block);
}

/* Note the block-rows a tile's blocks [lo, hi) span, as runs for the
 * reduction; return how many and their height in elements. */
static guint64
note_runs (Build *bd, guint pos, guint64 lo, guint64 hi, guint64 *height)
{
  const SpxMask *mask = bd->c->mask;
  guint64 rows = 0, last = G_MAXUINT64;
  *height = 0;
  for (guint64 i = lo; i < hi; i++)
    {
      guint64 row = bd->list[i] / mask->bcols;
      if (row == last)
        {
          g_array_index (bd->runs, Run, bd->runs->len - 1).blocks++;
          continue;
        }
      Run run = { row, pos, 1 };
      g_array_append_val (bd->runs, run);
      last = row;
      rows++;
      *height += row_height (mask, row);
    }
  return rows;
}

/* The W region blocks [a, z) of the dealt list come from: the rows and
 * columns from their first to their last. */
static SpxIpuPiece
list_region (const Build *bd, guint64 a, guint64 z)
{
  const SpxMask *mask = bd->c->mask;
  guint64 r0 = G_MAXUINT64, r1 = 0, c0 = G_MAXUINT64, c1 = 0;
  for (guint64 i = a; i < z; i++)
    {
      guint64 row = bd->list[i] / mask->bcols, col = bd->list[i] % mask->bcols;
      r0 = MIN (r0, row);
      r1 = MAX (r1, row + 1);
      c0 = MIN (c0, col);
      c1 = MAX (c1, col + 1);
    }
  if (a >= z)
    return spx_ipu_piece (SPX_BYTES_VALUES, 0, 0, 0, 0);
  return spx_ipu_piece (SPX_BYTES_VALUES, r0 * mask->block,
                        MIN (r1 * mask->block, mask->rows), c0 * mask->block,
                        MIN (c1 * mask->block, mask->cols));
}

/* Give tile t of band j its contiguous share in every split: the sn tiles
 * compute on the same blocks, each owning (listing) a 1/sn part of them
 * whose values it sends to the others. */
static void
place_tile (Build *bd, SpxIpuStep *compute, guint j, guint t,
            guint64 lo, guint64 hi)
{
  const Ctx *c = bd->c;
  const Shape *sh = bd->sh;
  const SpxMask *mask = c->mask;
  guint pos = sh->band_first[j] + t;
  guint64 height, elements = 0, count = hi - lo;
  guint64 rows = note_runs (bd, pos, lo, hi, &height);
  for (guint s = 0; s < sh->sn; s++)
    {
      guint64 a = lo + count * s / sh->sn, z = lo + count * (s + 1) / sh->sn;
      guint64 owned = 0;
      for (guint64 i = a; i < z; i++)
        owned += (guint64) row_height (mask, bd->list[i] / mask->bcols) *
                 col_width (mask, bd->list[i] % mask->bcols);
      guint64 id = split_tile (sh, s, pos);
      bd->owned[id] = owned * c->bytes;
      elements += owned;
      SpxIpuTile *tile = &bd->p->tiles[id];
      if (bd->dry)
        continue;
      bd->owned_what[id] = list_region (bd, a, z);
      tile->blocks = g_array_sized_new (FALSE, FALSE, sizeof (guint64),
                                        (guint) (z - a));
      g_array_append_vals (tile->blocks, bd->list + a, (guint) (z - a));
    }
  guint64 width = c->width_prefix[sh->band_start[j + 1]] -
                  c->width_prefix[sh->band_start[j]];
  for (guint s = 0; s < sh->sn; s++)
    {
      guint64 np = split_cols (c, sh->sn, s), id = split_tile (sh, s, pos);
      SpxIpuTile *tile = &bd->p->tiles[id];
      tile->bytes[SPX_BYTES_VALUES] = elements * c->bytes;
      tile->bytes[SPX_BYTES_INDICES] = count * SPX_IPU_INDEX_BYTES_BLOCK +
                                       rows * SPX_IPU_INDEX_BYTES_ROW +
                                       SPX_IPU_INDEX_BYTES_TILE;
      tile->bytes[SPX_BYTES_INPUT] = width * np * c->bytes;
      tile->bytes[SPX_BYTES_PARTIALS] = height * np * SPX_IPU_PARTIAL_BYTES;
      tile->macs = elements * np;
      compute->tile_cycles[id] = spx_ipu_cost_block_vertex (
        c->machine, c->b, c->dtype, count, rows, np, NULL);
      if (compute->tile_cycles[id] > bd->vertex_cycles)
        {
          bd->vertex_cycles = compute->tile_cycles[id];
          bd->vertex_blocks = count;
          bd->vertex_rows = rows;
          bd->vertex_cols = np;
          compute->worst_tile = (guint32) id;
        }
    }
}

static gboolean
place_blocks (Build *bd, SpxIpuStep *compute, GError **error)
{
  const Shape *sh = bd->sh;
  for (guint j = 0; j < sh->sk; j++)
    {
      guint64 blocks = sh->band_blocks[j];
      if (blocks == 0)
        continue;
      if (spx_cancelled (error))
        return FALSE;
      guint64 per = spx_ipu_div_up (blocks, sh->band_tiles[j]);
      for (guint t = 0; t * per < blocks; t++)
        place_tile (bd, compute, j, t, bd->band_off[j] + t * per,
                    bd->band_off[j] + MIN (blocks, (t + 1) * per));
    }
  return TRUE;
}

/* The share i of n equal shares of total. */
static guint64
share (guint64 total, guint64 i, guint64 n)
{
  return total * (i + 1) / n - total * i / n;
}

/* Rows of X band j holds (the k of its block-columns). */
static guint64
band_width (const Build *bd, guint j)
{
  const Shape *sh = bd->sh;
  return bd->c->width_prefix[sh->band_start[j + 1]] -
         bd->c->width_prefix[sh->band_start[j]];
}

/* What each of the used tiles of band j holds of X's slice for columns
 * [n0, n1): its share of the band's rows, in column order. A band's
 * block-columns need not be neighbours: a share spanning a gap is no
 * one range of X, and is left not known. */
static void
x_shares (const Build *bd, guint j, guint64 used, guint64 n0, guint64 n1,
          SpxIpuPiece *out)
{
  const SpxMask *mask = bd->c->mask;
  const guint64 *cols = bd->band_cols;
  guint64 width = band_width (bd, j), i = bd->sh->band_start[j], at = 0;
  for (guint64 d = 0; d < used; d++)
    {
      guint64 p0 = width * d / used, p1 = width * (d + 1) / used;
      out[d] = spx_ipu_piece (SPX_BYTES_INPUT, 0, 0, 0, 0);
      if (p1 == p0)
        continue;
      while (at + spx_mask_block_width (mask, cols[i]) <= p0)
        at += spx_mask_block_width (mask, cols[i++]);
      guint64 row0 = cols[i] * mask->block + (p0 - at), last = i, end = at;
      gboolean run = TRUE;
      while (end + spx_mask_block_width (mask, cols[last]) < p1)
        {
          end += spx_mask_block_width (mask, cols[last]);
          run = run && cols[last + 1] == cols[last] + 1;
          last++;
        }
      if (run)
        out[d] = spx_ipu_piece (SPX_BYTES_INPUT, row0, row0 + (p1 - p0), n0,
                                n1);
    }
}

/* One (split s, band j) group of used tiles: X is all-gathered inside it
 * (each tile holding a share of its rows); each tile fetches the values
 * of its blocks that its peers in the other splits own; X reaches both
 * tiles of a pair as one broadcast, what a tile sends goes out once.
 * Notes the busiest tile's traffic in bd. FALSE when cancelled (a group
 * sends up to tiles² transfers). */
static gboolean
distribute_group (Build *bd, SpxIpuStep *ex, guint s, guint j,
                  guint64 used, GError **error)
{
  const Shape *sh = bd->sh;
  SpxIpuProgram *p = bd->p;
  guint first = sh->band_first[j];
  guint64 n0, n1, width = band_width (bd, j);
  split_range (bd->c, sh->sn, s, &n0, &n1);
  guint64 row_bytes = (n1 - n0) * bd->c->bytes;
  g_autofree SpxIpuPiece *xs = NULL;
  if (ex->pieces != NULL) /* only small machines keep them */
    {
      xs = g_new (SpxIpuPiece, used);
      x_shares (bd, j, used, n0, n1, xs);
    }
  for (guint64 a = 0; a < used; a++)
    {
      if (spx_cancelled (error))
        return FALSE;
      guint64 dst = split_tile (sh, s, first + a), x_in = 0, v_in = 0;
      for (guint64 d = 0; d < used; d++)
        {
          guint64 bytes = share (width, d, used) * row_bytes;
          if (xs != NULL)
            spx_ipu_step_set_piece (ex, &xs[d]);
          /* d's share is broadcast: it counts out once, for its first
           * receiver */
          if (a == (d == 0))
            spx_ipu_step_send (p, ex, split_tile (sh, s, first + d), dst,
                               bytes);
          else
            spx_ipu_step_resend (p, ex, split_tile (sh, s, first + d), dst,
                                 bytes);
          x_in += d == a ? 0 : bytes;
        }
      for (guint s2 = 0; sh->sn > 1 && s2 < sh->sn; s2++)
        {
          guint64 peer = split_tile (sh, s2, first + a);
          spx_ipu_step_set_piece (ex, &bd->owned_what[peer]);
          if (s == (s2 == 0))
            spx_ipu_step_send (p, ex, peer, dst, bd->owned[peer]);
          else
            spx_ipu_step_resend (p, ex, peer, dst, bd->owned[peer]);
          v_in += s2 == s ? 0 : bd->owned[peer];
        }
      /* what it sends: its X share and its values, once each */
      double out = (used > 1 ? share (width, a, used) * row_bytes : 0) +
                   (sh->sn > 1 ? bd->owned[dst] : 0);
      SpxIpuTraffic t = { (double) v_in, (double) x_in, out, 1 };
      guint64 cycles = spx_ipu_cost_exchange (p->machine, &t, NULL);
      if (cycles > bd->dist_cycles)
        {
          bd->dist_cycles = cycles;
          bd->dist = t;
          ex->worst_tile = (guint32) dst;
        }
    }
  return TRUE;
}

static gboolean
distribute (Build *bd, SpxIpuStep *ex, GError **error)
{
  const Shape *sh = bd->sh;
  for (guint j = 0; j < sh->sk; j++)
    {
      guint64 blocks = sh->band_blocks[j];
      if (blocks == 0)
        continue;
      guint64 used = spx_ipu_div_up (blocks, spx_ipu_div_up (blocks, sh->band_tiles[j]));
      for (guint s = 0; s < sh->sn; s++)
        if (!distribute_group (bd, ex, s, j, used, error))
          return FALSE;
    }
  spx_ipu_cost_exchange (bd->p->machine, &bd->dist, ex->terms);
  return TRUE;
}

static int
cmp_run (const void *a, const void *b)
{
  const Run *x = a, *y = b;
  if (x->row != y->row)
    return (x->row > y->row) - (x->row < y->row);
  return (x->tile > y->tile) - (x->tile < y->tile);
}

/* Every (block-row, split) is reduced on the holder with the least
 * incoming partials so far; the others send it theirs. */
static gboolean
reduce (Build *bd, SpxIpuStep *ex, SpxIpuStep *adds, GError **error)
{
  const Ctx *c = bd->c;
  const Shape *sh = bd->sh;
  SpxIpuProgram *p = bd->p;
  GArray *runs = bd->runs;
  gboolean cancelled = FALSE;
  if (runs->len > 1) /* no blocks, no runs: data is NULL */
    qsort (runs->data, runs->len, sizeof (Run), cmp_run);
  guint64 *load = g_new0 (guint64, sh->split_tiles);
  /* per reducer: output rows (elements per column) and partials summed */
  guint64 *out = g_new0 (guint64, sh->split_tiles);
  guint64 *sums = g_new0 (guint64, sh->split_tiles);
  for (guint i = 0, polled = 0; i < runs->len && !cancelled; polled++)
    {
      if (polled % POLL_EVERY == 0 && (cancelled = spx_cancelled (error)))
        break;
      const Run *r = &g_array_index (runs, Run, i);
      guint end = i, pick = i;
      while (end < runs->len && g_array_index (runs, Run, end).row == r->row)
        {
          if (load[g_array_index (runs, Run, end).tile] <
              load[g_array_index (runs, Run, pick).tile])
            pick = end;
          end++;
        }
      guint dst = g_array_index (runs, Run, pick).tile;
      guint h = spx_mask_block_height (c->mask, r->row);
      load[dst] += end - i - 1;
      out[dst] += h;
      sums[dst] += (end - i) * h;
      for (guint s = 0; s < sh->sn; s++)
        {
          guint64 n0, n1;
          split_range (c, sh->sn, s, &n0, &n1);
          guint64 np = n1 - n0;
          SpxIpuTile *tile = &p->tiles[split_tile (sh, s, dst)];
          tile->bytes[SPX_BYTES_OUTPUT] += h * np * c->bytes;
          tile->bytes[SPX_BYTES_PARTIALS] += (end - i - 1) * h * np *
                                             SPX_IPU_PARTIAL_BYTES;
          SpxIpuPiece what = spx_ipu_piece (SPX_BYTES_PARTIALS,
                                            r->row * c->b, r->row * c->b + h,
                                            n0, n1);
          spx_ipu_step_set_piece (ex, &what);
          for (guint x = i; x < end; x++)
            if (x != pick)
              spx_ipu_step_send (p, ex, split_tile (sh, s,
                                                    g_array_index (runs, Run,
                                                                   x).tile),
                                 split_tile (sh, s, dst),
                                 h * np * SPX_IPU_PARTIAL_BYTES);
        }
      i = end;
    }
  guint64 slowest = 0, outputs = 0;
  double partials = 0;
  for (guint t = 0; t < sh->split_tiles && !cancelled; t++)
    for (guint s = 0; s < sh->sn && out[t] > 0; s++)
      {
        guint64 id = split_tile (sh, s, t), o = out[t] * split_cols (c, sh->sn, s);
        adds->tile_cycles[id] = spx_ipu_cost_reduce (
          p->machine, o, (double) sums[t] / out[t], NULL);
        if (adds->tile_cycles[id] > slowest)
          {
            slowest = adds->tile_cycles[id];
            outputs = o;
            partials = (double) sums[t] / out[t];
            adds->worst_tile = (guint32) id;
          }
      }
  spx_ipu_cost_reduce (p->machine, outputs, partials, adds->terms);
  g_free (load);
  g_free (out);
  g_free (sums);
  return !cancelled;
}

/* Outputs of rows without blocks: memory dealt round-robin, never
 * written (see StaticStep). */
static void
map_empty_rows (Build *bd)
{
  const Ctx *c = bd->c;
  const Shape *sh = bd->sh;
  guint64 next = 0;
  for (guint64 i = c->mask->brows - c->empty_rows; i < c->mask->brows; i++)
    {
      guint64 row = c->row_order[i];
      guint h = spx_mask_block_height (c->mask, row);
      guint t = (guint) (next++ % sh->split_tiles);
      for (guint s = 0; s < sh->sn; s++)
        bd->p->tiles[split_tile (sh, s, t)].bytes[SPX_BYTES_OUTPUT] +=
          h * split_cols (c, sh->sn, s) * c->bytes;
    }
}

static gboolean
build_program (const Ctx *c, const Shape *sh, SpxIpuProgram *p,
               gboolean dry, GError **error)
{
  Build bd = { .c = c, .sh = sh, .p = p, .dry = dry };
  bd.runs = g_array_new (FALSE, FALSE, sizeof (Run));
  bd.owned = g_new0 (guint64, p->n_tiles);
  bd.owned_what = g_new0 (SpxIpuPiece, p->n_tiles);
  gboolean ok = deal_blocks (&bd, error);

  /* appending moves the step array: take the pointers once all exist */
  guint first = p->steps->len, at[ST_N];
  for (guint i = 0, next = first; i < ST_N; i++)
    {
      at[i] = next++;
      if (static_steps[i].kind == SPX_STEP_COMPUTE)
        spx_ipu_program_add_compute (p, static_steps[i].phase);
      else if (static_steps[i].kind == SPX_STEP_EXCHANGE && dry)
        spx_ipu_step_count_only (spx_ipu_program_add_exchange (
          p, static_steps[i].phase));
      else if (static_steps[i].kind == SPX_STEP_EXCHANGE)
        spx_ipu_program_add_exchange (p, static_steps[i].phase);
      else
        spx_ipu_program_add_sync (p, static_steps[i].phase);
    }
#define STEP(i) (&g_array_index (p->steps, SpxIpuStep, at[i]))
  SpxIpuStep *dist = STEP (ST_DISTRIBUTE), *compute = STEP (ST_COMPUTE);
  SpxIpuStep *red = STEP (ST_REDUCE_EXCHANGE), *adds = STEP (ST_REDUCE_ADD);
#undef STEP

  ok = ok && place_blocks (&bd, compute, error) &&
       distribute (&bd, dist, error) && reduce (&bd, red, adds, error);
  if (ok)
    map_empty_rows (&bd);
  if (ok)
    spx_ipu_cost_block_vertex (c->machine, c->b, c->dtype, bd.vertex_blocks,
                               bd.vertex_rows, bd.vertex_cols,
                               compute->terms);

  g_array_unref (bd.runs);
  g_free (bd.list);
  g_free (bd.band_off);
  g_free (bd.owned);
  g_free (bd.owned_what);
  g_free (bd.band_cols);
  return ok;
}

/* ---- what a build holds ------------------------------------------------ */

/* The block lists of one band's tiles: of the sn tiles sharing a tile's
 * blocks, each lists its part in a GArray sized to it. */
static double
lists_bytes (const Shape *sh, guint64 blocks, guint64 per)
{
  guint64 used = spx_ipu_div_up (blocks, per);
  guint64 last = blocks - (used - 1) * per;
  double bytes = 0;
  for (guint s = 0; s < sh->sn; s++)
    {
      guint64 part = per * (s + 1) / sh->sn - per * s / sh->sn;
      guint64 part_last = last * (s + 1) / sh->sn - last * s / sh->sn;
      bytes += (double) (used - 1) *
               spx_ipu_array_bytes (part, sizeof (guint64)) +
               spx_ipu_array_bytes (part_last, sizeof (guint64)) +
               (double) used * ARRAY_HEADER_BYTES;
    }
  return bytes;
}

/* Bytes building sh holds at its peak: the dealt list, the column groups
 * and band order, the runs of the reduction, per-tile scratch, and the
 * program with its transfers and block lists: the reduction sends at most
 * one transfer per run and split. A band's tiles all-gather
 * X: used² transfers, the tiles² of a large machine. */
static double
build_bytes (const Ctx *c, const Shape *sh)
{
  const SpxMask *mask = c->mask;
  guint64 busy = mask->brows - c->empty_rows;
  double runs = 0, lists = 0, sends = 0;
  for (guint j = 0; j < sh->sk; j++)
    {
      guint64 blocks = sh->band_blocks[j];
      if (blocks == 0)
        continue;
      guint64 per = spx_ipu_div_up (blocks, sh->band_tiles[j]);
      guint64 used = spx_ipu_div_up (blocks, per);
      /* a band's rows are contiguous in the list: its tiles cut them */
      runs += (double) MIN (blocks, busy + used);
      sends += (double) sh->sn * (double) used *
               (double) (used - 1 + (sh->sn > 1 ? sh->sn - 1 : 0));
      lists += lists_bytes (sh, blocks, per);
    }
  guint n_tiles = c->machine->tiles;
  double partials = runs * sh->sn, tiles = n_tiles;
  return (double) mask->bcols * (1 + 4 + 8) +
         (double) MAX (c->nnz, 1) * sizeof (guint64) +
         spx_ipu_array_bytes (runs, sizeof (Run)) +
         tiles * 5 * sizeof (guint64) + /* owned, loads, sums, zeros */
         tiles * 2 * sizeof (SpxIpuPiece) + /* owned regions, X shares */
         spx_ipu_program_bytes (n_tiles, 3, 2) +
         spx_ipu_transfers_bytes (n_tiles, sends) +
         spx_ipu_transfers_bytes (n_tiles, partials) + lists;
}

/* ---- choosing ---------------------------------------------------------- */

/* Build one partition, or with dry only cost it exactly (per-tile
 * counts, no transfer or block lists). NULL when over the budget or
 * cancelled. */
static SpxIpuProgram *
program_for (const Ctx *c, guint sn, guint sk, gboolean dry, GError **error)
{
  const SpxMask *mask = c->mask;
  Shape *sh = g_new0 (Shape, 1);
  shape_init (c, sh, sn, sk);
  if (!check_budget (c, c->footprint + build_bytes (c, sh), error))
    {
      g_free (sh);
      return NULL;
    }
  double density = (double) spx_mask_count_elements (mask) /
                   ((double) mask->rows * mask->cols);
  SpxIpuProgram *p = spx_ipu_program_new (SPX_IPU_MODE_STATIC, c->machine,
                                          mask->rows, mask->cols, c->n,
                                          mask->block, c->dtype, density);
  p->plan = g_strdup_printf ("sn=%u sk=%u", sn, sk);
  if (build_program (c, sh, p, dry, error))
    spx_ipu_program_finish (p);
  else
    g_clear_pointer (&p, spx_ipu_program_free);
  g_free (sh);
  return p;
}

/* The estimate from counts can miss the footprint (uneven rows,
 * reducers): the best few candidates by it, in its order, are costed
 * exactly, and the first that really fits is built (PopSparse's planner,
 * too, takes its own estimate's best). If none does, the fastest by
 * estimate is built, not fitting. */
#define EXACT_TRIES 4

/* The fastest of all by estimate, for when none fits even by estimate. */
static const Candidate *
fastest_candidate (GArray *cands)
{
  guint best = 0;
  for (guint i = 1; i < cands->len; i++)
    if (g_array_index (cands, Candidate, i).cycles <
        g_array_index (cands, Candidate, best).cycles)
      best = i;
  return &g_array_index (cands, Candidate, best);
}

/* The candidate to build and its exact cost in *cycles; NULL (error
 * set) when cancelled or over the budget. */
static const Candidate *
pick (const Ctx *c, GArray *cands, guint64 *cycles, GError **error)
{
  for (guint i = 0; i < MIN (cands->len, EXACT_TRIES); i++)
    {
      const Candidate *cand = &g_array_index (cands, Candidate, i);
      if (!cand->fits)
        break;
      SpxIpuProgram *p = program_for (c, cand->sn, cand->sk, TRUE, error);
      if (p == NULL)
        return NULL;
      gboolean fits = p->fits;
      *cycles = p->cycles;
      spx_ipu_program_free (p);
      if (fits)
        return cand;
    }
  const Candidate *best = fastest_candidate (cands);
  SpxIpuProgram *p = program_for (c, best->sn, best->sk, TRUE, error);
  if (p == NULL)
    return NULL;
  *cycles = p->cycles;
  spx_ipu_program_free (p);
  return best;
}

static SpxIpuProgram *
choose (const Ctx *c, GArray *cands, GError **error)
{
  guint64 cycles = 0;
  const Candidate *cand = pick (c, cands, &cycles, error);
  if (cand == NULL)
    return NULL;
  SpxIpuProgram *p = program_for (c, cand->sn, cand->sk, FALSE, error);
  if (p != NULL)
    p->estimate = cycles;
  return p;
}

/* The plan of a counted mask. */
static SpxIpuProgram *
plan_counted (const Ctx *c, GError **error)
{
  if (c->nnz == 0) /* no blocks: every output is a zero */
    {
      SpxIpuProgram *p = program_for (c, 1, 1, FALSE, error);
      if (p != NULL)
        p->estimate = p->cycles;
      return p;
    }
  g_autoptr (GArray) cands = search (c, error);
  return cands != NULL ? choose (c, cands, error) : NULL;
}

SpxIpuProgram *
spx_ipu_plan_static (const SpxIpuMachine *machine, const SpxMask *mask,
                     guint64 n, SpxDtype dtype, GError **error)
{
  g_return_val_if_fail (machine != NULL && mask != NULL, NULL);
  if (n == 0 || machine->tiles < 2 || machine->workers == 0)
    {
      g_set_error (error, SPX_IPU_ERROR, SPX_IPU_ERROR_NO_PLAN,
                   "static plan: need n ≥ 1 and a machine of 2 or more "
                   "tiles with workers (n = %" G_GUINT64_FORMAT
                   ", tiles = %u)", n, machine->tiles);
      return NULL;
    }
  Ctx c;
  SpxIpuProgram *p = NULL;
  if (ctx_init (&c, machine, mask, n, spx_dtype_on_ipu (dtype), error))
    p = plan_counted (&c, error);
  ctx_clear (&c);
  return p;
}
