/* spx-ipu-static.c: the static block-sparse planner (pattern known when
 * the program is built), after PopSparse's static algorithm: the mask
 * counted, the candidates searched (spx-ipu-static-shape.c), the best
 * built (spx-ipu-static-build.c).
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
#include "spx-ipu-static-private.h"
#include "spx-util.h"

#include <string.h>

/* ---- pre-processing ---------------------------------------------------- */

/* The plan in errors, by what makes it large. */
static char *
plan_what (const SpxIpuStaticCtx *c)
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
check_budget (const SpxIpuStaticCtx *c, double bytes, GError **error)
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
count_blocks (SpxIpuStaticCtx *c, GError **error)
{
  const SpxMask *mask = c->mask;
  c->row_count = g_new0 (guint32, mask->brows);
  c->col_count = g_new0 (guint32, mask->bcols);
  SpxMaskIter it;
  guint64 br, bc, seen = 0;
  spx_mask_iter_init (&it, mask);
  while (spx_mask_iter_next (&it, &br, &bc))
    {
      if (++seen % (64 * SPX_IPU_STATIC_POLL_EVERY) == 0 &&
          spx_cancelled (error))
        return FALSE;
      c->row_count[br]++;
      c->col_count[bc]++;
    }
  return TRUE;
}

/* A mask too large to plan is refused before the seconds its counting
 * takes: by its count of blocks, and because whatever the partition, a
 * build lists every block twice, dealt and per tile
 * (spx_ipu_static_build_bytes). */
static gboolean
check_size (const SpxIpuStaticCtx *c, GError **error)
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

/* Non-empty rows in up to SPX_IPU_STATIC_HIST_GROUPS groups of equal size
 * (rows are sorted by count), each with its mean count: enough for
 * estimates. */
static void
build_histogram (SpxIpuStaticCtx *c)
{
  const SpxMask *mask = c->mask;
  guint64 busy = 0;
  while (busy < mask->brows && c->row_count[c->row_order[busy]] > 0)
    busy++;
  c->empty_rows = mask->brows - busy;
  c->n_hist = (guint) MIN ((guint64) SPX_IPU_STATIC_HIST_GROUPS, busy);
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
ctx_init (SpxIpuStaticCtx *c, const SpxIpuMachine *machine,
          const SpxMask *mask, guint64 n, SpxDtype dtype, GError **error)
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
ctx_clear (SpxIpuStaticCtx *c)
{
  g_free (c->row_count);
  g_free (c->col_count);
  g_free (c->row_order);
  g_free (c->col_order);
  g_free (c->col_prefix);
  g_free (c->width_prefix);
}

/* ---- choosing ---------------------------------------------------------- */

/* Build one partition, or with dry only cost it exactly (per-tile
 * counts, no transfer or block lists). NULL when over the budget or
 * cancelled. */
static SpxIpuProgram *
program_for (const SpxIpuStaticCtx *c, guint sn, guint sk, gboolean dry,
             GError **error)
{
  const SpxMask *mask = c->mask;
  SpxIpuStaticShape *sh = g_new0 (SpxIpuStaticShape, 1);
  spx_ipu_static_shape_init (c, sh, sn, sk);
  if (!check_budget (c, c->footprint + spx_ipu_static_build_bytes (c, sh),
                     error))
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
  if (spx_ipu_static_build_program (c, sh, p, dry, error))
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
static const SpxIpuStaticCandidate *
fastest_candidate (GArray *cands)
{
  guint best = 0;
  for (guint i = 1; i < cands->len; i++)
    if (g_array_index (cands, SpxIpuStaticCandidate, i).cycles <
        g_array_index (cands, SpxIpuStaticCandidate, best).cycles)
      best = i;
  return &g_array_index (cands, SpxIpuStaticCandidate, best);
}

/* The candidate to build and its exact cost in *cycles; NULL (error
 * set) when cancelled or over the budget. */
static const SpxIpuStaticCandidate *
pick (const SpxIpuStaticCtx *c, GArray *cands, guint64 *cycles, GError **error)
{
  for (guint i = 0; i < MIN (cands->len, EXACT_TRIES); i++)
    {
      const SpxIpuStaticCandidate *cand = &g_array_index (
        cands, SpxIpuStaticCandidate, i);
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
  const SpxIpuStaticCandidate *best = fastest_candidate (cands);
  SpxIpuProgram *p = program_for (c, best->sn, best->sk, TRUE, error);
  if (p == NULL)
    return NULL;
  *cycles = p->cycles;
  spx_ipu_program_free (p);
  return best;
}

static SpxIpuProgram *
choose (const SpxIpuStaticCtx *c, GArray *cands, GError **error)
{
  guint64 cycles = 0;
  const SpxIpuStaticCandidate *cand = pick (c, cands, &cycles, error);
  if (cand == NULL)
    return NULL;
  SpxIpuProgram *p = program_for (c, cand->sn, cand->sk, FALSE, error);
  if (p != NULL)
    p->estimate = cycles;
  return p;
}

/* The plan of a counted mask. */
static SpxIpuProgram *
plan_counted (const SpxIpuStaticCtx *c, GError **error)
{
  if (c->nnz == 0) /* no blocks: every output is a zero */
    {
      SpxIpuProgram *p = program_for (c, 1, 1, FALSE, error);
      if (p != NULL)
        p->estimate = p->cycles;
      return p;
    }
  g_autoptr (GArray) cands = spx_ipu_static_search (c, error);
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
  SpxIpuStaticCtx c;
  SpxIpuProgram *p = NULL;
  if (ctx_init (&c, machine, mask, n, spx_dtype_on_ipu (dtype), error))
    p = plan_counted (&c, error);
  ctx_clear (&c);
  return p;
}
