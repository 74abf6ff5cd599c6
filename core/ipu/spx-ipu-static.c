/* spx-ipu-static.c: the static block-sparse planner (pattern known when
 * the program is built), after PopSparse's static algorithm.
 *
 * Assumptions the paper leaves open, and what PopLibs' source settles
 * ([PopLibs] lib/popsparse/StaticMatMul.cpp, constructGraph):
 * - X and Y lie block by block (a column of a block, its b rows, after
 *   the other), each spread linearly over all tiles (SpxIpuLinearMap),
 *   whatever the plan: X as the layer before left it, Y where PopLibs
 *   maps the output.
 * - Distributing X: each tile copies the rows of X of its k-band's
 *   block-columns (those with blocks), for its n-split, from the tiles
 *   holding them; a piece several tiles need goes out once (the exchange
 *   multicasts). PopLibs' graph copies only the block-columns a tile's
 *   own blocks touch (tileRhs of uniqueColIndices), but its planner
 *   charges the whole band (exchangeRhsDenseRows, kSparse × rhsBias =
 *   kTile), and the paper's figures side with the planner: costing only
 *   the touched columns puts static b = 16 at m = k = 4096, density 1/32
 *   at 1.9× the paper's throughput and 1.1–2.3× over it across sizes
 *   (see the README's IPU model section). W's non-zero values of a
 *   tile's share lie spread over the sn tiles (one per n-split) that
 *   hold the same blocks.
 * - Partial sums are the dtype (PopLibs: partials type = data type). Each
 *   holder of a (block-row, n-split) sends its partials to the tiles
 *   owning that slice of Y, which add them (popops::reduceMany reducing
 *   at the destination); a row with one holder is only copied. PopLibs
 *   runs those copies as an exchange of their own just before; here they
 *   share the reduce exchange.
 * - n-splits all get the same (even) number of tiles; rows and columns are
 *   sorted by non-zero blocks, most first (ties: lower index first), and
 *   the blocks of one row within a band keep their column order.
 * - With sn > 1 the sn tiles that compute on the same blocks each own a
 *   1/sn part of them (tile->blocks lists the owned part, so every block
 *   is listed once); all sn hold all the values while computing.
 * - Workers of a block vertex split the columns of X (the reference's nW),
 *   those of an element-wise vertex split rows.
 * - Candidates are costed from counts (estimating how many rows a tile's
 *   blocks span); only the best few are built and costed exactly.
 * - fits means by spx_ipu_tile_fits (working memory within the available
 *   share of SRAM, 0.6; the share of Y beside it within SRAM), the limit the
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
  guint                pbytes;       /* of a partial sum */
  SpxIpuLinearMap      x_map, y_map; /* units: a column of a block */
  guint64              busy_cols;    /* block-columns with blocks */
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
  guint64 out_bytes;                   /* of which its share of Y */
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
  c->pbytes = spx_ipu_cost_partial_bytes (SPX_IPU_MODE_STATIC, dtype);
  guint cols = spx_ipu_cost_static_grain_cols (c->b, dtype);
  spx_ipu_linear_map_init (&c->x_map, mask->bcols * c->n, cols,
                           machine->tiles);
  spx_ipu_linear_map_init (&c->y_map, mask->brows * c->n, cols,
                           machine->tiles);
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
  c->busy_cols = mask->bcols;
  while (c->busy_cols > 0 && c->col_count[c->col_order[c->busy_cols - 1]] == 0)
    c->busy_cols--;
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

/* Y's bytes. */
static guint64
out_bytes (const Ctx *c)
{
  return c->mask->rows * c->n * c->bytes;
}

/* Elements of Y (or X) a tile holds under the linear map, about. */
static double
map_elements (const Ctx *c, const SpxIpuLinearMap *map)
{
  return (double) (map->per * map->grain) * c->b;
}

/* The reduce: partials out of the busiest holder (all of them: owners
 * are elsewhere), into an owner its slice's mean holders' worth, adds
 * where a row has two holders or more. */
static void
estimate_reduce (const Ctx *c, double pieces, double max_partials,
                 double *cost, double *red_in)
{
  const SpxIpuMachine *m = c->machine;
  double nonempty = (double) (c->mask->brows - c->empty_rows);
  double holders = pieces / MAX (nonempty, 1);
  double owned = map_elements (c, &c->y_map) * nonempty /
                 MAX ((double) c->mask->brows, 1);
  *red_in = owned * holders * c->pbytes;
  SpxIpuTraffic red = { *red_in, 0, max_partials, 1 };
  cost[ST_REDUCE_EXCHANGE] = (double) (spx_ipu_cost_exchange (m, &red, NULL) +
                                        spx_ipu_cost_static_output (
                                          m, out_bytes (c), NULL));
  double multi = MIN (1.0, MAX (holders - 1, 0)); /* share of rows to add */
  cost[ST_REDUCE_ADD] = (double) spx_ipu_cost_reduce (
    m, c->dtype, (guint64) ceil (owned * multi), MAX (holders, 2), NULL);
}

static void
shape_estimate (const Ctx *c, Shape *sh, const double *rows_band)
{
  const SpxIpuMachine *m = c->machine;
  double b = c->b, np = (double) sh->n_part, bytes = c->bytes;
  double mem = 0, pieces = 0, max_partials = 0, max_rows = 0, x_in = 0;
  double v_in = 0, v_out = 0;
  double cost[ST_N] = { 0 };
  guint64 max_per = 0;
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
      guint64 c0 = MIN (sh->band_start[j], c->busy_cols);
      guint64 c1 = MIN (sh->band_start[j + 1], c->busy_cols);
      double width = (double) (c->width_prefix[c1] - c->width_prefix[c0]);
      double x = width * np * bytes;
      double values = per * b * b * bytes;
      double partials = rows * b * np * c->pbytes;
      x_in = MAX (x_in, x);
      if (sh->sn > 1)
        {
          v_in = MAX (v_in, values * (sh->sn - 1) / sh->sn);
          v_out = MAX (v_out, values / sh->sn);
        }
      mem = MAX (mem, values + x + partials +
                      per * SPX_IPU_INDEX_BYTES_BLOCK +
                      rows * SPX_IPU_INDEX_BYTES_ROW +
                      SPX_IPU_INDEX_BYTES_TILE);
      pieces += rows * tiles;
      max_partials = MAX (max_partials, partials);
    }
  /* X's owners send their share once, whoever needs it */
  double x_out = map_elements (c, &c->x_map) * bytes;
  SpxIpuTraffic dist = { x_in + v_in, 0, x_out + v_out, 1 };
  cost[ST_DISTRIBUTE] = (double) spx_ipu_cost_exchange (m, &dist, NULL);
  /* the bands are balanced: the busiest tile's blocks over the most rows
   * bound every band's vertex, at one evaluation per candidate */
  cost[ST_COMPUTE] = (double) spx_ipu_cost_block_vertex (
    m, c->b, c->dtype, max_per, (guint64) max_rows, sh->n_part, NULL);
  double red_in;
  estimate_reduce (c, pieces, max_partials, cost, &red_in);
  sh->cycles = estimate_total (m, cost);
  sh->out_bytes = (guint64) (map_elements (c, &c->y_map) * bytes);
  sh->bytes = (guint64) (mem + red_in + x_out) + sh->out_bytes;
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
  guint64 sk_max = MIN ((guint64) MAX_SK, MAX (1, c->mask->cols / c->grain));
  return (guint) MIN (sk_max, MAX (c->busy_cols, 1));
}

/* Every (sn, sk), costed from counts; the bands and their row estimates
 * depend on sk alone, so they are worked out once per sk. NULL when
 * cancelled. */
static GArray *
search (const Ctx *c, GError **error)
{
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
                             spx_ipu_tile_fits (c->machine,
                                                (double) sh->bytes,
                                                (double) sh->out_bytes) };
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
  GArray        *runs;      /* Run, for split 0 */
  guint64       *owned;     /* per tile: bytes of values it owns */
  SpxIpuPiece   *owned_what; /* per tile: the W region they come from */
  /* what the slowest tile of the compute step does, to explain it */
  guint64        vertex_cycles, vertex_blocks, vertex_rows, vertex_cols;
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
      tile->stored = z - a;
      if (bd->dry)
        continue;
      bd->owned_what[id] = list_region (bd, a, z);
      tile->blocks = g_array_sized_new (FALSE, FALSE, sizeof (guint64),
                                        (guint) (z - a));
      g_array_append_vals (tile->blocks, bd->list + a, (guint) (z - a));
    }
  for (guint s = 0; s < sh->sn; s++)
    {
      guint64 np = split_cols (c, sh->sn, s), id = split_tile (sh, s, pos);
      SpxIpuTile *tile = &bd->p->tiles[id];
      tile->bytes[SPX_BYTES_VALUES] = elements * c->bytes;
      tile->bytes[SPX_BYTES_INDICES] = count * SPX_IPU_INDEX_BYTES_BLOCK +
                                       rows * SPX_IPU_INDEX_BYTES_ROW +
                                       SPX_IPU_INDEX_BYTES_TILE;
      tile->bytes[SPX_BYTES_PARTIALS] = height * np * c->pbytes;
      tile->macs = elements * np;
      tile->products = np > 0 ? count : 0;
      tile->per_worker = spx_ipu_cost_block_per_worker (c->machine, c->b,
                                                        c->dtype, count,
                                                        rows, np);
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

/* Elements of units [lo, hi) of X's or Y's layout (count blocks of b,
 * the last `last` high, n units each): every unit is b elements but
 * those of the last block. */
static guint64
layout_elements (const Ctx *c, guint64 count, guint last, guint64 lo,
                 guint64 hi)
{
  guint64 l0 = (count - 1) * c->n, l1 = count * c->n;
  guint64 a = MAX (lo, l0), z = MIN (hi, l1);
  guint64 short_units = z > a ? z - a : 0;
  return (hi - lo) * c->b - short_units * (c->b - last);
}

/* Every tile's share of X (where the layer before left it) and of Y
 * (where the outputs land, rows without blocks too: memory, no step). */
static void
map_layouts (Build *bd)
{
  const Ctx *c = bd->c;
  const SpxMask *mask = c->mask;
  guint last_w = spx_mask_block_width (mask, mask->bcols - 1);
  guint last_h = spx_mask_block_height (mask, mask->brows - 1);
  for (guint t = 0; t < bd->p->n_tiles; t++)
    {
      guint64 lo, hi;
      SpxIpuTile *tile = &bd->p->tiles[t];
      spx_ipu_linear_map_range (&c->x_map, t, &lo, &hi);
      if (hi > lo)
        tile->bytes[SPX_BYTES_INPUT] += layout_elements (c, mask->bcols,
                                                         last_w, lo, hi) *
                                        c->bytes;
      spx_ipu_linear_map_range (&c->y_map, t, &lo, &hi);
      if (hi > lo)
        tile->bytes[SPX_BYTES_OUTPUT] += layout_elements (c, mask->brows,
                                                          last_h, lo, hi) *
                                         c->bytes;
    }
}

static int
cmp_u64 (const void *a, const void *b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return (x > y) - (x < y);
}

/* Band j's block-columns with blocks, in order, into cols; how many. */
static guint64
band_cols (const Build *bd, guint j, guint64 *cols)
{
  const Ctx *c = bd->c;
  guint64 lo = MIN (bd->sh->band_start[j], c->busy_cols);
  guint64 hi = MIN (bd->sh->band_start[j + 1], c->busy_cols);
  memcpy (cols, c->col_order + lo, (hi - lo) * sizeof (guint64));
  qsort (cols, hi - lo, sizeof (guint64), cmp_u64);
  return hi - lo;
}

/* A run of X one holder sends every tile of a band: block-columns
 * [col0, col1), columns [j0, j1) of X (or, where pieces are not kept,
 * whatever consecutive block-columns the holder has). */
typedef struct {
  guint32 src;
  guint64 col0, col1, j0, j1, bytes;
} XPiece;

/* Add the piece of block-column col, columns [j0, j1), held by src; it
 * joins the last when it continues it (where pieces are drawn, only as
 * one rectangle of X). */
static void
x_add (GArray *pieces, gboolean keep, guint32 src, guint64 col, guint64 j0,
       guint64 j1, guint64 bytes)
{
  XPiece *last = pieces->len
    ? &g_array_index (pieces, XPiece, pieces->len - 1) : NULL;
  if (last != NULL && last->src == src &&
      (!keep || (col == last->col1 && j0 == last->j0 && j1 == last->j1)))
    {
      last->col1 = col + 1;
      last->bytes += bytes;
      return;
    }
  XPiece x = { src, col, col + 1, j0, j1, bytes };
  g_array_append_val (pieces, x);
}

/* What the tiles of a band in split s take: X's rows of block-columns
 * cols[0, n), the split's columns, as runs from their holders; the
 * elements in all into *elements. */
static GArray *
band_pieces (const Build *bd, gboolean keep, guint s, const guint64 *cols,
             guint64 n, guint64 *elements)
{
  const Ctx *c = bd->c;
  GArray *pieces = g_array_new (FALSE, FALSE, sizeof (XPiece));
  guint64 n0, n1;
  split_range (c, bd->sh->sn, s, &n0, &n1);
  *elements = 0;
  for (guint64 i = 0; i < n && n1 > n0; i++)
    {
      guint64 col = cols[i], u0 = col * c->n + n0, u1 = col * c->n + n1;
      guint w = spx_mask_block_width (c->mask, col);
      *elements += (n1 - n0) * w;
      for (guint o = spx_ipu_linear_map_tile (&c->x_map, u0);
           o < c->x_map.used; o++)
        {
          guint64 lo, hi;
          spx_ipu_linear_map_range (&c->x_map, o, &lo, &hi);
          if (lo >= u1)
            break;
          guint64 a = MAX (lo, u0), z = MIN (hi, u1);
          if (z > a)
            x_add (pieces, keep, o, col, a - col * c->n, z - col * c->n,
                   (z - a) * w * c->bytes);
        }
    }
  return pieces;
}

/* Tile dst takes the band's pieces but those it holds. Every tile of the
 * band takes the same: a holder sends a piece out for the band's first
 * tile other than itself (first[0], else first[1]); the others receive
 * that broadcast. */
static void
distribute_x (Build *bd, SpxIpuStep *ex, guint64 dst, const GArray *pieces,
              const guint64 *first)
{
  const SpxMask *mask = bd->c->mask;
  for (guint i = 0; i < pieces->len; i++)
    {
      const XPiece *x = &g_array_index (pieces, XPiece, i);
      if (x->src == dst)
        continue;
      if (ex->pieces != NULL)
        {
          SpxIpuPiece what = spx_ipu_piece (
            SPX_BYTES_INPUT, x->col0 * mask->block,
            MIN (x->col1 * mask->block, mask->cols), x->j0, x->j1);
          spx_ipu_step_set_piece (ex, &what);
        }
      if (dst == (x->src == first[0] ? first[1] : first[0]))
        spx_ipu_step_send (bd->p, ex, x->src, (guint32) dst, x->bytes);
      else
        spx_ipu_step_resend (bd->p, ex, x->src, (guint32) dst, x->bytes);
    }
}

/* Tile dst fetches the values of its blocks its peers in the other
 * splits own. */
static void
distribute_values (Build *bd, SpxIpuStep *ex, guint s, guint pos)
{
  const Shape *sh = bd->sh;
  guint64 dst = split_tile (sh, s, pos);
  for (guint s2 = 0; sh->sn > 1 && s2 < sh->sn; s2++)
    {
      guint64 peer = split_tile (sh, s2, pos);
      spx_ipu_step_set_piece (ex, &bd->owned_what[peer]);
      if (s == (s2 == 0))
        spx_ipu_step_send (bd->p, ex, (guint32) peer, (guint32) dst,
                           bd->owned[peer]);
      else
        spx_ipu_step_resend (bd->p, ex, (guint32) peer, (guint32) dst,
                             bd->owned[peer]);
    }
}

/* Every used tile's X (the rows of its band's block-columns, see
 * StaticStep) and values. FALSE when cancelled. */
static gboolean
distribute (Build *bd, SpxIpuStep *ex, GError **error)
{
  const Shape *sh = bd->sh;
  guint64 *cols = g_new (guint64, MAX (bd->c->mask->bcols, 1));
  gboolean cancelled = FALSE;
  for (guint j = 0; j < sh->sk && !cancelled; j++)
    {
      guint64 blocks = sh->band_blocks[j];
      if (blocks == 0)
        continue;
      guint64 n = band_cols (bd, j, cols);
      guint64 used = spx_ipu_div_up (blocks, spx_ipu_div_up (
                                       blocks, sh->band_tiles[j]));
      for (guint s = 0; s < sh->sn && !cancelled; s++)
        {
          if ((cancelled = spx_cancelled (error)))
            break;
          guint64 elements;
          g_autoptr (GArray) pieces = band_pieces (bd, ex->pieces != NULL, s,
                                                   cols, n, &elements);
          guint64 first[2] = {
            split_tile (sh, s, sh->band_first[j]),
            used > 1 ? split_tile (sh, s, sh->band_first[j] + 1)
                     : G_MAXUINT64 };
          for (guint t = 0; t < used; t++)
            {
              guint64 dst = split_tile (sh, s, sh->band_first[j] + t);
              distribute_x (bd, ex, dst, pieces, first);
              distribute_values (bd, ex, s, sh->band_first[j] + t);
              bd->p->tiles[dst].bytes[SPX_BYTES_INPUT] += elements *
                                                          bd->c->bytes;
            }
        }
    }
  g_free (cols);
  return !cancelled;
}

static int
cmp_run (const void *a, const void *b)
{
  const Run *x = a, *y = b;
  if (x->row != y->row)
    return (x->row > y->row) - (x->row < y->row);
  return (x->tile > y->tile) - (x->tile < y->tile);
}

/* What the reduce's owners add: outputs and partials summed, per tile. */
typedef struct {
  guint64 *outputs;
  guint64 *partials;
} Adds;

/* Runs [i, end) hold block-row row: in every split each holder sends its
 * partials of the slice to the tiles owning it, which add them when there
 * are two holders or more (one holder: a copy). */
static void
reduce_row (Build *bd, SpxIpuStep *ex, guint i, guint end, Adds *adds)
{
  const Ctx *c = bd->c;
  const Shape *sh = bd->sh;
  SpxIpuProgram *p = bd->p;
  const Run *runs = (const Run *) bd->runs->data;
  guint64 row = runs[i].row, holders = end - i;
  guint h = spx_mask_block_height (c->mask, row);
  for (guint s = 0; s < sh->sn; s++)
    {
      guint64 n0, n1;
      split_range (c, sh->sn, s, &n0, &n1);
      guint64 base = row * c->n, u0 = base + n0, u1 = base + n1;
      for (guint o = spx_ipu_linear_map_tile (&c->y_map, u0);
           u1 > u0 && o < c->y_map.used; o++)
        {
          guint64 lo, hi;
          spx_ipu_linear_map_range (&c->y_map, o, &lo, &hi);
          if (lo >= u1)
            break;
          guint64 a = MAX (lo, u0), z = MIN (hi, u1), e = (z - a) * h;
          if (z <= a)
            continue;
          SpxIpuPiece what = spx_ipu_piece (SPX_BYTES_PARTIALS, row * c->b,
                                            row * c->b + h, a - base,
                                            z - base);
          spx_ipu_step_set_piece (ex, &what);
          guint64 remote = 0;
          for (guint x = i; x < end; x++)
            {
              guint64 src = split_tile (sh, s, runs[x].tile);
              remote += src != o;
              spx_ipu_step_send (p, ex, (guint32) src, o, e * c->pbytes);
            }
          if (holders < 2)
            continue;
          p->tiles[o].bytes[SPX_BYTES_PARTIALS] += remote * e * c->pbytes;
          adds->outputs[o] += e;
          adds->partials[o] += e * holders;
        }
    }
}

/* Each owner's additions, the slowest explained. */
static void
reduce_adds (Build *bd, SpxIpuStep *step, const Adds *adds)
{
  const SpxIpuProgram *p = bd->p;
  guint64 slowest = 0;
  guint worst = 0;
  for (guint t = 0; t < p->n_tiles; t++)
    {
      if (adds->outputs[t] == 0)
        continue;
      double mean = (double) adds->partials[t] / adds->outputs[t];
      step->tile_cycles[t] = spx_ipu_cost_reduce (
        p->machine, bd->c->dtype, adds->outputs[t], mean, NULL);
      if (step->tile_cycles[t] > slowest)
        {
          slowest = step->tile_cycles[t];
          worst = t;
        }
    }
  step->worst_tile = worst;
  if (slowest > 0)
    spx_ipu_cost_reduce (p->machine, bd->c->dtype, adds->outputs[worst],
                         (double) adds->partials[worst] /
                         adds->outputs[worst], step->terms);
}

/* The partials of every (block-row, split) go to the tiles owning that
 * slice of Y, which add them ([PopLibs] StaticMatMul.cpp constructGraph,
 * popops::reduceMany reducing at the destination). */
static gboolean
reduce (Build *bd, SpxIpuStep *ex, SpxIpuStep *step, GError **error)
{
  GArray *runs = bd->runs;
  gboolean cancelled = FALSE;
  if (runs->len > 1) /* no blocks, no runs: data is NULL */
    qsort (runs->data, runs->len, sizeof (Run), cmp_run);
  Adds adds = { g_new0 (guint64, bd->p->n_tiles),
                g_new0 (guint64, bd->p->n_tiles) };
  for (guint i = 0, polled = 0; i < runs->len && !cancelled; polled++)
    {
      if (polled % POLL_EVERY == 0 && (cancelled = spx_cancelled (error)))
        break;
      guint end = i;
      while (end < runs->len && g_array_index (runs, Run, end).row ==
                                g_array_index (runs, Run, i).row)
        end++;
      reduce_row (bd, ex, i, end, &adds);
      i = end;
    }
  if (!cancelled)
    {
      reduce_adds (bd, step, &adds);
      SpxIpuTraffic t = spx_ipu_step_busiest (bd->p, ex);
      spx_ipu_cost_exchange (bd->p->machine, &t, ex->terms);
      spx_ipu_cost_static_output (bd->p->machine, out_bytes (bd->c),
                                  ex->terms);
    }
  g_free (adds.outputs);
  g_free (adds.partials);
  return !cancelled;
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
    map_layouts (&bd);
  if (ok)
    spx_ipu_cost_block_vertex (c->machine, c->b, c->dtype, bd.vertex_blocks,
                               bd.vertex_rows, bd.vertex_cols,
                               compute->terms);

  g_array_unref (bd.runs);
  g_free (bd.list);
  g_free (bd.band_off);
  g_free (bd.owned);
  g_free (bd.owned_what);
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

/* Tiles of a linear map a slice of units units can touch. */
static double
owners (const SpxIpuLinearMap *map, guint64 units)
{
  return (double) spx_ipu_div_up (units, map->per * map->grain) + 1;
}

/* Bytes building sh holds at its peak: the dealt list, the column groups,
 * the runs of the reduction, per-tile scratch, and the program with its
 * transfers and block lists. Each tile receives at most one transfer per
 * block-column of its band and holder of it, plus the values of its
 * peers; the reduction sends one per run, split and owner of the slice. */
static double
build_bytes (const Ctx *c, const Shape *sh)
{
  const SpxMask *mask = c->mask;
  guint64 busy = mask->brows - c->empty_rows;
  double runs = 0, lists = 0, sends = 0;
  double x_owners = owners (&c->x_map, sh->n_part);
  for (guint j = 0; j < sh->sk; j++)
    {
      guint64 blocks = sh->band_blocks[j];
      if (blocks == 0)
        continue;
      guint64 per = spx_ipu_div_up (blocks, sh->band_tiles[j]);
      guint64 used = spx_ipu_div_up (blocks, per);
      double cols = (double) (sh->band_start[j + 1] - sh->band_start[j]);
      /* a band's rows are contiguous in the list: its tiles cut them */
      runs += (double) MIN (blocks, busy + used);
      sends += (double) sh->sn * (double) used *
               (cols * x_owners +
                (sh->sn > 1 ? sh->sn - 1 : 0));
      lists += lists_bytes (sh, blocks, per);
    }
  guint n_tiles = c->machine->tiles;
  double tiles = n_tiles;
  double partials = runs * sh->sn * owners (&c->y_map, sh->n_part);
  return (double) mask->bcols * (1 + 4) +
         (double) mask->bcols * sizeof (guint64) +
         (double) MAX (c->nnz, 1) * sizeof (guint64) +
         spx_ipu_array_bytes (runs, sizeof (Run)) +
         tiles * 6 * sizeof (guint64) + /* owned, ranges, adds */
         tiles * sizeof (SpxIpuPiece) + /* owned regions */
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
