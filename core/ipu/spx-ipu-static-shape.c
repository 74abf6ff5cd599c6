/* spx-ipu-static-shape.c: the static planner's partitions (sn n-splits
 * × sk bands), each estimated from the mask's counts, and the search
 * over them */
#include "spx-ipu.h"
#include "spx-ipu-cost.h"
#include "spx-ipu-static-private.h"
#include "spx-util.h"

#include <math.h>

/* ---- partition shape --------------------------------------------------- */

/* Columns [*lo, *hi) of n-split s (splits are whole grains, the first
 * ones wider). */
void
spx_ipu_static_split_range (const SpxIpuStaticCtx *c, guint sn, guint s,
                            guint64 *lo, guint64 *hi)
{
  guint64 grains = spx_ipu_div_up (c->n, c->grain);
  guint64 first = (grains / sn) * s + MIN ((guint64) s, grains % sn);
  guint64 count = grains / sn + (s < grains % sn);
  *lo = MIN (c->n, first * c->grain);
  *hi = MIN (c->n, (first + count) * c->grain);
}

guint64
spx_ipu_static_split_cols (const SpxIpuStaticCtx *c, guint sn, guint s)
{
  guint64 lo, hi;
  spx_ipu_static_split_range (c, sn, s, &lo, &hi);
  return hi - lo;
}

/* Band j ends at the first sorted column where the running block count
 * reaches (j + 1)/sk of all blocks. */
static void
shape_bands (const SpxIpuStaticCtx *c, SpxIpuStaticShape *sh)
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
shape_tiles (const SpxIpuStaticCtx *c, SpxIpuStaticShape *sh)
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
shape_split (const SpxIpuStaticCtx *c, SpxIpuStaticShape *sh, guint sn)
{
  sh->sn = sn;
  sh->split_tiles = (c->machine->tiles / sn) & ~1u;
  sh->n_part = spx_ipu_static_split_cols (c, sn, 0);
  shape_tiles (c, sh);
}

void
spx_ipu_static_shape_init (const SpxIpuStaticCtx *c, SpxIpuStaticShape *sh,
                           guint sn, guint sk)
{
  sh->sk = sk;
  shape_bands (c, sh);
  shape_split (c, sh, sn);
}

/* ---- estimate from counts ---------------------------------------------- */

/* Expected block-rows with at least one block in a band holding a share
 * p of all blocks, each row's blocks falling into it independently. */
static double
band_rows (const SpxIpuStaticCtx *c, double p)
{
  double rows = 0;
  for (guint i = 0; i < c->n_hist; i++)
    rows += c->hist_rows[i] * (1 - exp (c->hist_count[i] * log1p (-p)));
  return MAX (rows, 1.0);
}

/* The steps' kinds and phases, in order. */
const SpxIpuStaticStepRow spx_ipu_static_steps[SPX_IPU_ST_N] = {
  [SPX_IPU_ST_DISTRIBUTE] = { SPX_STEP_EXCHANGE, "distribute" },
  [SPX_IPU_ST_DISTRIBUTE_SYNC] = { SPX_STEP_SYNC, "distribute" },
  [SPX_IPU_ST_COMPUTE] = { SPX_STEP_COMPUTE, "compute" },
  [SPX_IPU_ST_COMPUTE_SYNC] = { SPX_STEP_SYNC, "compute" },
  [SPX_IPU_ST_REDUCE_EXCHANGE] = { SPX_STEP_EXCHANGE, "reduce" },
  [SPX_IPU_ST_REDUCE_ADD] = { SPX_STEP_COMPUTE, "reduce" },
  [SPX_IPU_ST_REDUCE_SYNC] = { SPX_STEP_SYNC, "reduce" },
};

/* The sum of the estimated steps, syncs costed here. */
static double
estimate_total (const SpxIpuMachine *m, const double *cost)
{
  double total = 0;
  for (guint i = 0; i < SPX_IPU_ST_N; i++)
    total += spx_ipu_static_steps[i].kind == SPX_STEP_SYNC
             ? (double) spx_ipu_cost_sync (m, 1, NULL) : cost[i];
  return total;
}

/* Y's bytes. */
guint64
spx_ipu_static_out_bytes (const SpxIpuStaticCtx *c)
{
  return c->mask->rows * c->n * c->bytes;
}

/* Elements of Y (or X) a tile holds under the linear map, about. */
static double
map_elements (const SpxIpuStaticCtx *c, const SpxIpuLinearMap *map)
{
  return (double) (map->per * map->grain) * c->b;
}

/* The reduce: partials out of the busiest holder (all of them: owners
 * are elsewhere), into an owner its slice's mean holders' worth, adds
 * where a row has two holders or more. */
static void
estimate_reduce (const SpxIpuStaticCtx *c, double pieces, double max_partials,
                 double *cost, double *red_in)
{
  const SpxIpuMachine *m = c->machine;
  double nonempty = (double) (c->mask->brows - c->empty_rows);
  double holders = pieces / MAX (nonempty, 1);
  double owned = map_elements (c, &c->y_map) * nonempty /
                 MAX ((double) c->mask->brows, 1);
  *red_in = owned * holders * c->pbytes;
  SpxIpuTraffic red = { *red_in, 0, max_partials, 1 };
  cost[SPX_IPU_ST_REDUCE_EXCHANGE] =
    (double) (spx_ipu_cost_exchange (m, &red, NULL) +
              spx_ipu_cost_static_output (m, spx_ipu_static_out_bytes (c),
                                          NULL));
  double multi = MIN (1.0, MAX (holders - 1, 0)); /* share of rows to add */
  cost[SPX_IPU_ST_REDUCE_ADD] = (double) spx_ipu_cost_reduce (
    m, c->dtype, (guint64) ceil (owned * multi), MAX (holders, 2), NULL);
}

static void
shape_estimate (const SpxIpuStaticCtx *c, SpxIpuStaticShape *sh,
                const double *rows_band)
{
  const SpxIpuMachine *m = c->machine;
  double b = c->b, np = (double) sh->n_part, bytes = c->bytes;
  double mem = 0, pieces = 0, max_partials = 0, max_rows = 0, x_in = 0;
  double v_in = 0, v_out = 0;
  double cost[SPX_IPU_ST_N] = { 0 };
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
  cost[SPX_IPU_ST_DISTRIBUTE] = (double) spx_ipu_cost_exchange (m, &dist,
                                                                NULL);
  /* the bands are balanced: the busiest tile's blocks over the most rows
   * bound every band's vertex, at one evaluation per candidate */
  cost[SPX_IPU_ST_COMPUTE] = (double) spx_ipu_cost_block_vertex (
    m, c->b, c->dtype, max_per, (guint64) max_rows, sh->n_part, NULL);
  double red_in;
  estimate_reduce (c, pieces, max_partials, cost, &red_in);
  sh->cycles = estimate_total (m, cost);
  sh->out_bytes = (guint64) (map_elements (c, &c->y_map) * bytes);
  sh->bytes = (guint64) (mem + red_in + x_out) + sh->out_bytes;
}

/* Expected non-empty block-rows of each band of sh. */
static void
shape_rows (const SpxIpuStaticCtx *c, const SpxIpuStaticShape *sh,
            double *rows_band)
{
  for (guint j = 0; j < sh->sk; j++)
    rows_band[j] = sh->band_blocks[j] > 0
      ? band_rows (c, (double) sh->band_blocks[j] / MAX (c->nnz, 1)) : 0;
}

/* ---- search ------------------------------------------------------------ */

/* Fitting candidates first, each group fastest first. */
static int
cmp_candidate (const void *pa, const void *pb)
{
  const SpxIpuStaticCandidate *a = pa, *b = pb;
  if (a->fits != b->fits)
    return a->fits ? -1 : 1;
  return (a->cycles > b->cycles) - (a->cycles < b->cycles);
}

static guint
sk_limit (const SpxIpuStaticCtx *c)
{
  guint64 sk_max = MIN ((guint64) SPX_IPU_STATIC_MAX_SK,
                       MAX (1, c->mask->cols / c->grain));
  return (guint) MIN (sk_max, MAX (c->busy_cols, 1));
}

/* Every (sn, sk), costed from counts; the bands and their row estimates
 * depend on sk alone, so they are worked out once per sk. NULL when
 * cancelled. */
GArray *
spx_ipu_static_search (const SpxIpuStaticCtx *c, GError **error)
{
  guint sn_max = (guint) MIN ((guint64) SPX_IPU_STATIC_MAX_SN,
                              MAX (1, c->n / c->grain));
  guint sk_max = sk_limit (c);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (SpxIpuStaticCandidate));
  SpxIpuStaticShape *sh = g_new0 (SpxIpuStaticShape, 1);
  double rows_band[SPX_IPU_STATIC_MAX_SK];
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
          SpxIpuStaticCandidate cand = { sn, sk, sh->cycles, sh->bytes,
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
