/* spx-ipu-dynamic.c: the dynamic block-sparse planner. The plan is sized
 * from a non-zero budget only (as PopSparse's dynamic matmul is), then the
 * mask's actual pattern is written into its buckets, spilled where it does
 * not fit, and the propagation steps it really needs are costed. */
#include "spx-ipu.h"
#include "spx-ipu-cost.h"
#include "spx-util.h"

#include <math.h>
#include <string.h>

/* Long loops poll for cancellation every this many steps (a power of 2). */
#define POLL_EVERY 65536u
/* The step of the fitted per-call constant, named for what it is. */
#define CALL_OVERHEAD_PHASE "unexplained overhead per call"
/* A GArray's header and allocation overhead. */
#define ARRAY_HEADER_BYTES 48u
/* Part i of n things split into p nearly equal parts starts here. */
static inline guint64
split_start (guint64 n, guint64 p, guint64 i)
{
  return i * n / p;
}

static inline guint64
split_len (guint64 n, guint64 p, guint64 i)
{
  return split_start (n, p, i + 1) - split_start (n, p, i);
}

/* ------------------------------------------------------------------ */
/* Candidates, costed from counts only                                 */

typedef struct {
  const SpxIpuMachine *mc;
  guint64  m, k, n;
  guint    b;
  SpxDtype dtype;
  guint64  brows, bcols;
  guint64  budget;       /* non-zero blocks the plan is sized for */
} Problem;

typedef struct {
  guint   px, py, pz;
  guint64 cap;           /* blocks per bucket */
  guint64 meta;          /* meta-information bytes per bucket */
  gboolean flip;         /* second bucket buffer for propagation */
  guint64 held;          /* buckets a tile holds at most */
  guint64 bytes;         /* largest tile footprint */
  guint64 out_bytes;     /* of which its share of Y */
  gboolean tight;        /* a uniform pattern likely spills */
  guint64 cycles;        /* estimated, uniform pattern */
} Cand;

static guint64
block_bytes (const Problem *pr)
{
  return (guint64) pr->b * pr->b * spx_ipu_dtype_bytes (pr->dtype);
}

/* A bucket: its blocks' values and its meta-information. */
static guint64
bucket_bytes (const Problem *pr, const Cand *c)
{
  return c->cap * block_bytes (pr) + c->meta;
}

/* Blocks per bucket: the uniform share with room to spare, rounded to
 * the nearest, in whole exchange atoms (4 bytes: b = 1 fp16 takes two
 * elements at a time), at least one ([PopLibs]
 * lib/popsparse/FullyConnectedPlan.cpp, addNumNonZeroGroupsPerBucket). */
static guint64
bucket_cap (const Problem *pr, guint64 partitions)
{
  guint64 share = spx_ipu_div_up (pr->budget, partitions);
  guint64 cap = (guint64) round ((double) share *
                                 (1.0 + SPX_IPU_BUCKET_OVERSIZE));
  guint64 bytes = (guint64) pr->b * pr->b * spx_ipu_dtype_bytes (pr->dtype);
  /* the fewest blocks whose bytes are whole 4-byte atoms */
  guint64 grain = bytes % 4 == 0 ? 1 : bytes % 2 == 0 ? 2 : 4;
  return MAX (spx_ipu_div_up (cap, grain) * grain, 1);
}

/* An exchange whose busiest tile receives bytes. */
static guint64
exchange_in (const SpxIpuMachine *mc, guint64 bytes)
{
  SpxIpuTraffic t = { (double) bytes, 0, 0, 1 };
  return spx_ipu_cost_exchange (mc, &t, NULL);
}

/* Each of the py tiles of an output slice adds one piece of it (with py
 * = 1: casts it to fp16). */
static guint64
reduce_cycles (const Problem *pr, guint py, guint64 piece, GArray *terms)
{
  return spx_ipu_cost_dynamic_reduce (pr->mc, pr->dtype, piece, py, terms);
}

/* Expected non-empty rows among rows rows holding blocks blocks spread
 * uniformly. */
static guint64
expected_rows (guint64 rows, guint64 blocks)
{
  if (rows <= 1 || blocks == 0)
    return MIN (rows, blocks);
  double r = (double) rows;
  return (guint64) ceil (r * -expm1 ((double) blocks * log1p (-1.0 / r)));
}

/* Bytes the partials a tile adds take beyond its own: they land beside
 * them ([PopLibs] FullyConnectedPlan.cpp, addReductionCost:
 * mExchangeTempBytes) where the buckets and X were (freed by then). */
static guint64
landing_bytes (guint64 partials, guint64 freed)
{
  guint64 bytes = partials * SPX_IPU_PARTIAL_BYTES;
  return bytes > freed ? bytes - freed : 0;
}

/* Footprint and cycles of the largest tile of a partition. */
static void
cand_cost (const Problem *pr, Cand *c)
{
  const SpxIpuMachine *mc = pr->mc;
  guint64 groups = (guint64) c->px * c->py, parts = groups * c->pz;
  guint64 mx = spx_ipu_div_up (pr->brows, c->px), ky = spx_ipu_div_up (pr->bcols, c->py);
  guint64 rows_el = MIN (mx * pr->b, pr->m), cols_el = MIN (ky * pr->b, pr->k);
  guint64 nc = spx_ipu_div_up (pr->n, c->pz), db = spx_ipu_dtype_bytes (pr->dtype);
  c->cap = bucket_cap (pr, parts);
  c->meta = spx_ipu_cost_dynamic_meta_bytes (
    mc, pr->b, (double) pr->budget / ((double) pr->brows * pr->bcols), mx, ky);
  c->flip = groups > 1;
  /* its group's pz buckets while computing, while propagating the one it
   * holds and the next ([PopLibs] lib/popsparse/FullyConnected.cpp:
   * propagation flips between two bucket buffers) */
  c->held = MAX (c->pz, c->flip ? 2u : 1u);
  guint64 w_bytes = c->held * bucket_bytes (pr, c);
  guint64 x_bytes = cols_el * nc * db;
  guint64 part_bytes = rows_el * nc * SPX_IPU_PARTIAL_BYTES;
  guint64 piece = spx_ipu_div_up (rows_el, c->py) * nc; /* whole rows */
  c->out_bytes = piece * db;
  c->bytes = w_bytes + x_bytes + part_bytes +
             landing_bytes ((c->py - 1) * piece, w_bytes + x_bytes) +
             c->out_bytes;

  /* Uniform pattern: a group holds its share of the budget, the busiest
   * the largest of groups Poisson counts (mean + sqrt(2 mean ln groups)),
   * as far as its buckets hold. */
  double mean = (double) pr->budget / groups;
  double most = ceil (mean + sqrt (2 * mean * log ((double) groups)));
  c->tight = most > (double) c->cap * c->pz;
  guint64 blocks = (guint64) MIN (most, (double) c->cap * c->pz);
  guint64 rows = expected_rows (mx, blocks);
  guint64 dist_in = x_bytes - x_bytes / c->px +
                    (c->pz - 1) * bucket_bytes (pr, c);
  guint64 sync = spx_ipu_cost_sync (mc, 1, NULL);
  /* PopLibs' planner's assumption: every bucket holds one sub-group, the
   * tile's own ([PopLibs] lib/popsparse/FullyConnectedPlan.cpp,
   * addDistributionComputeCostSparseDense) */
  SpxIpuBuckets in = { c->pz, c->pz, 1 };
  c->cycles = exchange_in (mc, dist_in) + sync +
              spx_ipu_cost_dynamic_vertex (mc, pr->b, pr->dtype, &in, blocks,
                                           rows, nc, rows_el * nc, NULL) +
              spx_ipu_cost_dynamic_call (NULL) +
              (c->py > 1 ? exchange_in (mc, part_bytes -
                                            piece * SPX_IPU_PARTIAL_BYTES)
                         : 0) +
              reduce_cycles (pr, c->py, piece, NULL) + sync;
}

/* The running best of the search. */
typedef struct {
  Cand     cand;
  gboolean have, fits;
} Best;

/* Plans that fit and leave a uniform pattern room come first; then the
 * fastest that fits, else the smallest. */
static void
consider (Best *b, const Cand *c, const SpxIpuMachine *mc)
{
  gboolean fits = spx_ipu_tile_fits (mc, (double) c->bytes,
                                     (double) c->out_bytes);
  if (b->have && b->fits && fits && c->tight != b->cand.tight)
    {
      if (!c->tight)
        b->cand = *c;
      return;
    }
  if (!b->have || (fits && !b->fits) || (fits && c->cycles < b->cand.cycles) ||
      (!fits && !b->fits && c->bytes < b->cand.bytes))
    {
      b->cand = *c;
      b->fits = fits;
      b->have = TRUE;
    }
}

/* The z partitions PopLibs allows: divisors of n's vectors (b = 1: of
 * the grain, else columns), so that every tile takes as many ([PopLibs]
 * lib/popsparse/FullyConnectedPlan.cpp, createPlan: factorOf). Ascending,
 * at most tiles. */
static GArray *
z_partitions (const Problem *pr)
{
  guint64 groups = pr->b == 1 ? spx_ipu_div_up (pr->n,
                                                spx_ipu_cost_grain (pr->dtype))
                              : pr->n;
  GArray *zs = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint pz = 1; pz <= MIN (pr->mc->tiles, groups); pz++)
    if (groups % pz == 0)
      g_array_append_val (zs, pz);
  return zs;
}

/* Every px·py·pz ≤ tiles. FALSE when none exists, or (error set) when
 * cancelled. */
static gboolean
search (const Problem *pr, Cand *best, GError **error)
{
  guint tiles = pr->mc->tiles;
  Best b = { .have = FALSE };
  g_autoptr (GArray) zs = z_partitions (pr);
  for (guint px = 1; px <= MIN (tiles, pr->brows); px++)
    {
      if (spx_cancelled (error))
        return FALSE;
      for (guint py = 1; py <= MIN (tiles / px, pr->bcols); py++)
        for (guint i = 0; i < zs->len; i++)
          {
            guint pz = g_array_index (zs, guint, i);
            if ((guint64) px * py * pz > tiles)
              break;
            Cand c = { .px = px, .py = py, .pz = pz };
            cand_cost (pr, &c);
            consider (&b, &c, pr->mc);
          }
    }
  *best = b.cand;
  return b.have;
}

/* ------------------------------------------------------------------ */
/* The actual pattern in the winner's buckets                          */

/* Blocks of group dst that live in src's buckets and reach dst's tiles
 * after dist propagation steps. */
typedef struct {
  guint   dst, src, dist;
  guint64 amount;        /* blocks placed */
  guint64 rows, blocks;  /* what dst computes when they arrive */
  guint64 last_row;
} Spill;

typedef struct {
  Problem  pr;
  Cand     c;
  guint64  nnz;          /* the mask's non-zero blocks */
  guint    groups;
  guint64  group_cap;    /* blocks the pz buckets of a group hold */
  guint   *row_x, *col_y;
  guint64 *count;        /* non-zero blocks per group */
  guint64 *elements;     /* non-zero elements per group */
  guint64 *rows;         /* non-empty block-rows kept in the group */
  GArray **blocks;       /* guint64 flat indices per group */
  GArray  *spills;       /* Spill, grouped by dst */
  guint   *first_spill, *n_spills;
  guint   *pieces;       /* spills placed in each group's buckets */
  guint    steps;        /* propagation steps */
  gboolean overflow;
  gboolean dry;          /* cost only: exchanges keep no transfer lists */
} Layout;

static guint *
part_map (guint64 n, guint p)
{
  guint *map = g_new (guint, n);
  for (guint64 i = 0; i < n; i++)
    map[i] = (guint) (((i + 1) * p - 1) / n);
  return map;
}

static void
layout_clear (Layout *l)
{
  g_free (l->row_x);
  g_free (l->col_y);
  g_free (l->count);
  g_free (l->elements);
  g_free (l->rows);
  g_free (l->first_spill);
  g_free (l->n_spills);
  g_free (l->pieces);
  if (l->spills)
    g_array_unref (l->spills);
  if (l->blocks)
    for (guint g = 0; g < l->groups; g++)
      if (l->blocks[g])
        g_array_unref (l->blocks[g]);
  g_free (l->blocks);
}

static gboolean
count_groups (Layout *l, const SpxMask *mask, GError **error)
{
  SpxMaskIter it;
  guint64 br, bc, seen = 0;
  guint py = l->c.py;
  spx_mask_iter_init (&it, mask);
  while (spx_mask_iter_next (&it, &br, &bc))
    {
      if (seen++ % POLL_EVERY == 0 && spx_cancelled (error))
        return FALSE;
      l->count[l->row_x[br] * py + l->col_y[bc]]++;
    }
  return TRUE;
}

/* Place the excess of every over-full group in the free space of others,
 * nearest first in propagation steps: the same x and y (the group's own
 * buckets, already pooled), then the same x (dist < py), then anywhere. */
static void
place_spills (Layout *l)
{
  guint px = l->c.px, py = l->c.py, G = l->groups;
  guint64 *free_ = g_new0 (guint64, G);
  for (guint g = 0; g < G; g++)
    free_[g] = l->count[g] < l->group_cap ? l->group_cap - l->count[g] : 0;
  for (guint g = 0; g < G; g++)
    {
      guint64 excess = l->count[g] > l->group_cap ?
                       l->count[g] - l->group_cap : 0;
      guint x = g / py, y = g % py;
      l->first_spill[g] = l->spills->len;
      for (guint d = 1; d < G && excess > 0; d++)
        {
          guint dx = d / py, dy = d % py;
          if (dx >= px)
            break;
          guint src = ((x + px - dx) % px) * py + (y + py - dy) % py;
          guint64 take = MIN (excess, free_[src]);
          if (take == 0)
            continue;
          Spill s = { g, src, d, take, 0, 0, G_MAXUINT64 };
          g_array_append_val (l->spills, s);
          free_[src] -= take;
          l->pieces[src]++;
          excess -= take;
          l->steps = MAX (l->steps, d);
        }
      l->n_spills[g] = l->spills->len - l->first_spill[g];
      l->overflow |= excess > 0;
    }
  g_free (free_);
}

/* Second pass: the blocks of every group in row-major order; the first
 * group_cap stay home, the rest go to the spills in order. Blocks that fit
 * nowhere (overflow) are listed but computed in no step. */
static gboolean
fill_groups (Layout *l, const SpxMask *mask, GError **error)
{
  guint64 *seen = g_new0 (guint64, l->groups);
  guint64 *last = g_new (guint64, l->groups);
  SpxMaskIter it;
  guint64 br, bc, done = 0;
  gboolean cancelled = FALSE;
  memset (last, 0xff, l->groups * sizeof *last);
  for (guint g = 0; g < l->groups; g++)
    l->blocks[g] = g_array_sized_new (FALSE, FALSE, sizeof (guint64),
                                      (guint) MIN (l->count[g], G_MAXUINT));
  spx_mask_iter_init (&it, mask);
  while (!cancelled && spx_mask_iter_next (&it, &br, &bc))
    {
      if (done++ % POLL_EVERY == 0 && (cancelled = spx_cancelled (error)))
        break;
      guint g = l->row_x[br] * l->c.py + l->col_y[bc];
      guint64 flat = spx_mask_index (mask, br, bc);
      g_array_append_val (l->blocks[g], flat);
      l->elements[g] += (guint64) spx_mask_block_height (mask, br) *
                        spx_mask_block_width (mask, bc);
      guint64 i = seen[g]++;
      if (i < l->group_cap)
        {
          l->rows[g] += last[g] != br;
          last[g] = br;
          continue;
        }
      i -= l->group_cap;
      for (guint e = 0; e < l->n_spills[g]; e++)
        {
          Spill *s = &g_array_index (l->spills, Spill,
                                     l->first_spill[g] + e);
          if (i >= s->amount)
            {
              i -= s->amount;
              continue;
            }
          s->rows += s->last_row != br;
          s->last_row = br;
          s->blocks++;
          break;
        }
    }
  g_free (last);
  g_free (seen);
  return !cancelled;
}

/* What the plan is called in errors: what makes it large. */
static char *
plan_what (const Problem *pr)
{
  return g_strdup_printf ("the dynamic plan (%" G_GUINT64_FORMAT "×%"
                          G_GUINT64_FORMAT " in blocks of %u, n = %"
                          G_GUINT64_FORMAT ", %u tiles)", pr->m, pr->k, pr->b,
                          pr->n, pr->mc->tiles);
}

static gboolean
check_budget (const Layout *l, double bytes, GError **error)
{
  g_autofree char *what = plan_what (&l->pr);
  return spx_budget_check_estimate (bytes, what, error);
}

/* The maps, the per-group arrays (counts, spill indices, pass scratch)
 * and the spills: each over-full group's last spill, and at most one
 * more per group whose free space a spill used up. */
static double
layout_bytes (const Layout *l)
{
  double groups = (double) l->c.px * l->c.py;
  return (double) (l->pr.brows + l->pr.bcols) * sizeof (guint) +
         groups * (6 * sizeof (guint64) + sizeof (GArray *) +
                   3 * sizeof (guint)) +
         spx_ipu_array_bytes (2 * groups, sizeof (Spill));
}

/* The groups' block lists and the program: per-tile arrays of every step,
 * and the transfers: each used tile gathers X from px - 1 tiles and the
 * buckets from pz - 1, forwards its buffer once per propagation step and
 * sends py - 1 pieces of partials. */
static double
program_bytes (const Layout *l)
{
  const Cand *c = &l->c;
  double used = (double) c->px * c->py * c->pz, lists = 0;
  double reduce = c->py > 1, steps = l->steps;
  guint tiles = l->pr.mc->tiles;
  for (guint g = 0; g < l->groups; g++)
    lists += ARRAY_HEADER_BYTES +
             spx_ipu_array_bytes (l->count[g], sizeof (guint64));
  return lists +
         spx_ipu_program_bytes (tiles, 1 + steps + reduce,
                                1 + steps + reduce) +
         spx_ipu_transfers_bytes (tiles, used * (c->px - 1 + c->pz - 1)) +
         steps * spx_ipu_transfers_bytes (tiles, used) +
         spx_ipu_transfers_bytes (tiles, used * (c->py - 1));
}

/* Counts, spills, then (once the program's size is known and fits the
 * budget) the groups' blocks. */
static gboolean
layout_build (Layout *l, const SpxMask *mask, GError **error)
{
  l->groups = l->c.px * l->c.py;
  l->group_cap = l->c.cap * l->c.pz;
  double held = layout_bytes (l);
  /* the groups' lists hold every block: refused before counting them */
  double lists = (double) l->nnz * sizeof (guint64);
  if (!check_budget (l, held + lists, error))
    return FALSE;
  l->row_x = part_map (mask->brows, l->c.px);
  l->col_y = part_map (mask->bcols, l->c.py);
  l->count = g_new0 (guint64, l->groups);
  l->elements = g_new0 (guint64, l->groups);
  l->rows = g_new0 (guint64, l->groups);
  l->blocks = g_new0 (GArray *, l->groups);
  l->first_spill = g_new0 (guint, l->groups);
  l->n_spills = g_new0 (guint, l->groups);
  l->pieces = g_new0 (guint, l->groups);
  l->spills = g_array_new (FALSE, FALSE, sizeof (Spill));
  if (!count_groups (l, mask, error))
    return FALSE;
  place_spills (l);
  return check_budget (l, held + program_bytes (l), error) &&
         fill_groups (l, mask, error);
}

/* ------------------------------------------------------------------ */
/* The BSP program                                                     */

typedef struct {
  guint x, y, z;
} Coord;

static inline guint
tile_of (const Cand *c, guint x, guint y, guint z)
{
  return (x * c->py + y) * c->pz + z;
}

static inline Coord
coord_of (const Cand *c, guint t)
{
  Coord k = { t / (c->py * c->pz), (t / c->pz) % c->py, t % c->pz };
  return k;
}

static SpxIpuStep *
add_exchange (SpxIpuProgram *p, const Layout *l, const char *phase)
{
  SpxIpuStep *s = spx_ipu_program_add_exchange (p, phase);
  if (l->dry)
    spx_ipu_step_count_only (s);
  return s;
}

/* Elements [*lo, *hi) of part i of p parts of blocks blocks of b
 * elements, along a side of len elements (the last block may be short). */
static void
block_part (guint64 blocks, guint64 p, guint64 i, guint b, guint64 len,
            guint64 *lo, guint64 *hi)
{
  *lo = MIN (split_start (blocks, p, i) * b, len);
  *hi = MIN (split_start (blocks, p, i + 1) * b, len);
}

/* The W region of group (x, y): its block-rows and block-columns. */
static SpxIpuPiece
group_region (const Layout *l, guint x, guint y)
{
  const Problem *pr = &l->pr;
  guint64 r0, r1, c0, c1;
  block_part (pr->brows, l->c.px, x, pr->b, pr->m, &r0, &r1);
  block_part (pr->bcols, l->c.py, y, pr->b, pr->k, &c0, &c1);
  return spx_ipu_piece (SPX_BYTES_VALUES, r0, r1, c0, c1);
}

/* Sizes of the slices tile t works on. */
static guint64
tile_ncols (const Layout *l, Coord k)
{
  return split_len (l->pr.n, l->c.pz, k.z);
}

static guint64
tile_rows_el (const Layout *l, Coord k)
{
  guint64 lo, hi;
  block_part (l->pr.brows, l->c.px, k.x, l->pr.b, l->pr.m, &lo, &hi);
  return hi - lo;
}

static guint64
tile_x_bytes (const Layout *l, Coord k)
{
  guint64 lo, hi;
  block_part (l->pr.bcols, l->c.py, k.y, l->pr.b, l->pr.k, &lo, &hi);
  return (hi - lo) * tile_ncols (l, k) * spx_ipu_dtype_bytes (l->pr.dtype);
}

/* Part x of the px shares of tile k's X slice (the k-rows of its y, the
 * columns of its z): its rows split px ways. Returns its bytes. */
static guint64
x_share (const Layout *l, Coord k, guint x, SpxIpuPiece *what)
{
  guint64 lo, hi, c0 = split_start (l->pr.n, l->c.pz, k.z);
  block_part (l->pr.bcols, l->c.py, k.y, l->pr.b, l->pr.k, &lo, &hi);
  guint64 r0 = lo + split_start (hi - lo, l->c.px, x);
  guint64 r1 = lo + split_start (hi - lo, l->c.px, x + 1);
  *what = spx_ipu_piece (SPX_BYTES_INPUT, r0, r1, c0,
                         c0 + tile_ncols (l, k));
  return (r1 - r0) * tile_ncols (l, k) * spx_ipu_dtype_bytes (l->pr.dtype);
}

/* Partial sums of piece y of a tile's output slice (the rows of its x,
 * the columns of its z): its rows split py ways, whole rows each. */
static guint64
piece_elems (const Layout *l, Coord k, guint y)
{
  return split_len (tile_rows_el (l, k), l->c.py, y) * tile_ncols (l, k);
}

static SpxIpuPiece
partials_piece (const Layout *l, Coord k, guint y)
{
  guint64 lo, hi, c0 = split_start (l->pr.n, l->c.pz, k.z);
  block_part (l->pr.brows, l->c.px, k.x, l->pr.b, l->pr.m, &lo, &hi);
  return spx_ipu_piece (SPX_BYTES_PARTIALS,
                        lo + split_start (hi - lo, l->c.py, y),
                        lo + split_start (hi - lo, l->c.py, y + 1), c0,
                        c0 + tile_ncols (l, k));
}

/* Tile t's blocks: its group's buckets hold the group's own blocks that
 * stay home and the spills other groups place there, filled in order, a
 * bucket per z; it computes the blocks that stay home and those spilled
 * from its group (each worker every block of its columns, b > 1). */
static void
count_blocks (SpxIpuTile *tile, const Layout *l, guint g, Coord k)
{
  guint64 home = MIN (l->count[g], l->group_cap), kept = home, spilled = 0;
  for (guint i = 0; i < l->spills->len; i++)
    {
      const Spill *sp = &g_array_index (l->spills, Spill, i);
      kept += sp->src == g ? sp->amount : 0;
      spilled += sp->dst == g ? sp->blocks : 0;
    }
  guint64 before = MIN (kept, (guint64) k.z * l->c.cap);
  tile->stored = MIN (kept - before, l->c.cap);
  tile->products = tile_ncols (l, k) > 0 ? home + spilled : 0;
  tile->per_worker = l->pr.b > 1 ? tile->products : 0;
}

static void
fill_tiles (SpxIpuProgram *p, const Layout *l)
{
  const Cand *c = &l->c;
  guint64 db = spx_ipu_dtype_bytes (l->pr.dtype);
  for (guint t = 0; t < c->px * c->py * c->pz; t++)
    {
      Coord k = coord_of (c, t);
      guint g = k.x * c->py + k.y;
      SpxIpuTile *tile = &p->tiles[t];
      tile->blocks = g_array_ref (l->blocks[g]); /* shared along z */
      tile->macs = l->elements[g] * tile_ncols (l, k);
      count_blocks (tile, l, g, k);
      tile->bytes[SPX_BYTES_VALUES] = c->held * c->cap * l->pr.b *
                                      l->pr.b * db;
      tile->bytes[SPX_BYTES_INDICES] = c->held * c->meta;
      tile->bytes[SPX_BYTES_INPUT] = tile_x_bytes (l, k);
      tile->bytes[SPX_BYTES_PARTIALS] =
        tile_rows_el (l, k) * tile_ncols (l, k) * SPX_IPU_PARTIAL_BYTES +
        landing_bytes ((c->py - 1) * piece_elems (l, k, k.y),
                       tile->bytes[SPX_BYTES_VALUES] +
                       tile->bytes[SPX_BYTES_INDICES] +
                       tile->bytes[SPX_BYTES_INPUT]);
      tile->bytes[SPX_BYTES_OUTPUT] = piece_elems (l, k, k.y) * db;
    }
}

/* The first receiver of a broadcast counts it out of the sender too. */
static void
send_once (SpxIpuProgram *p, SpxIpuStep *s, guint32 src, guint32 dst,
           guint64 bytes, gboolean first)
{
  if (first)
    spx_ipu_step_send (p, s, src, dst, bytes);
  else
    spx_ipu_step_resend (p, s, src, dst, bytes);
}

/* X is spread over the px tiles that share a slice (its rows split px
 * ways) and gathered; the buckets of a group are broadcast to its pz
 * tiles. Up to tiles² transfers: polls for cancellation. */
static gboolean
add_distribute (SpxIpuProgram *p, const Layout *l, GError **error)
{
  const Cand *c = &l->c;
  SpxIpuStep *s = add_exchange (p, l, "distribute");
  guint64 bucket = bucket_bytes (&l->pr, c);
  for (guint t = 0; t < c->px * c->py * c->pz; t++)
    {
      if (spx_cancelled (error))
        return FALSE;
      Coord k = coord_of (c, t);
      /* a share goes out once, however many tiles receive it */
      for (guint x = 0; x < c->px; x++)
        if (x != k.x)
          {
            SpxIpuPiece share;
            guint64 bytes = x_share (l, k, x, &share);
            spx_ipu_step_set_piece (s, &share);
            send_once (p, s, tile_of (c, x, k.y, k.z), t, bytes,
                       k.x == (x == 0));
          }
      SpxIpuPiece w = group_region (l, k.x, k.y);
      spx_ipu_step_set_piece (s, &w);
      for (guint z = 0; z < c->pz; z++)
        if (z != k.z)
          send_once (p, s, tile_of (c, k.x, k.y, z), t, bucket,
                     k.z == (z == 0));
    }
  return TRUE;
}

/* Sub-groups per bucket of group g, on average: its own (if it kept
 * blocks) and the spilled pieces it took in, each one more. */
static double
subgroups (const Layout *l, guint g)
{
  return (l->count[g] > 0) + (double) l->pieces[g] / l->c.pz;
}

/* The vertex of tile t on its group's blocks that stayed home, over the
 * group's pz buckets (those holding some of them match). */
static guint64
tile_vertex (SpxIpuProgram *p, const Layout *l, guint t, GArray *terms)
{
  const Cand *c = &l->c;
  Coord k = coord_of (c, t);
  guint g = k.x * c->py + k.y;
  guint64 home = MIN (l->count[g], l->group_cap);
  SpxIpuBuckets in = { c->pz, MIN (c->pz, home), subgroups (l, g) };
  return spx_ipu_cost_dynamic_vertex (p->machine, l->pr.b, l->pr.dtype, &in,
                                      home, l->rows[g], tile_ncols (l, k),
                                      tile_rows_el (l, k) * tile_ncols (l, k),
                                      terms);
}

static void
add_compute (SpxIpuProgram *p, const Layout *l)
{
  const Cand *c = &l->c;
  SpxIpuStep *s = spx_ipu_program_add_compute (p, "compute");
  for (guint t = 0; t < c->px * c->py * c->pz; t++)
    s->tile_cycles[t] = tile_vertex (p, l, t, NULL);
  s->worst_tile = spx_ipu_step_slowest (p, s);
  tile_vertex (p, l, s->worst_tile, s->terms);
}

/* What the call costs beyond every mechanism modelled, as its own step
 * (on every tile used) so that it shows as one. */
static void
add_call_overhead (SpxIpuProgram *p, const Layout *l)
{
  const Cand *c = &l->c;
  SpxIpuStep *s = spx_ipu_program_add_compute (p, CALL_OVERHEAD_PHASE);
  guint64 cycles = spx_ipu_cost_dynamic_call (s->terms);
  for (guint t = 0; t < c->px * c->py * c->pz; t++)
    s->tile_cycles[t] = cycles;
  s->worst_tile = 0;
}

/* Step d moves every group's buffer one place along y, and along x too
 * every py steps: after d = dx·py + dy steps a buffer has moved dy along
 * y and dx along x, the distance place_spills counted. Every tile forwards
 * the whole buffer (the program is fixed; it cannot know what is in it):
 * the buckets of the group d - 1 places behind it. */
static gboolean
add_propagation (SpxIpuProgram *p, const Layout *l, GError **error)
{
  const Cand *c = &l->c;
  guint64 buffer = c->pz * bucket_bytes (&l->pr, c);
  guint first = p->steps->len;
  for (guint d = 1; d <= l->steps; d++)
    {
      if (spx_cancelled (error))
        return FALSE;
      SpxIpuStep *s = add_exchange (p, l, "propagate");
      for (guint t = 0; t < c->px * c->py * c->pz; t++)
        {
          Coord k = coord_of (c, t);
          guint x = d % c->py == 0 ? (k.x + 1) % c->px : k.x;
          guint back_x = (d - 1) / c->py % c->px, back_y = (d - 1) % c->py;
          SpxIpuPiece w = group_region (l, (k.x + c->px - back_x) % c->px,
                                        (k.y + c->py - back_y) % c->py);
          spx_ipu_step_set_piece (s, &w);
          spx_ipu_step_send (p, s, t, tile_of (c, x, (k.y + 1) % c->py, k.z),
                             buffer);
        }
      spx_ipu_program_add_compute (p, "propagate");
    }
  /* a group receives at most one spill per step: each tile's vertex */
  for (guint i = 0; i < l->spills->len; i++)
    {
      const Spill *sp = &g_array_index (l->spills, Spill, i);
      SpxIpuStep *s = &g_array_index (p->steps, SpxIpuStep,
                                      first + 2 * sp->dist - 1);
      guint x = sp->dst / c->py, y = sp->dst % c->py;
      /* one bucket in: the source's, its piece of dst among its own */
      SpxIpuBuckets in = { 1, 1, subgroups (l, sp->src) };
      for (guint z = 0; z < c->pz; z++)
        {
          guint t = tile_of (c, x, y, z);
          Coord k = coord_of (c, t);
          guint64 cycles = spx_ipu_cost_dynamic_vertex (
            p->machine, l->pr.b, l->pr.dtype, &in, sp->blocks, sp->rows,
            tile_ncols (l, k), 0, NULL);
          s->tile_cycles[t] += cycles;
          if (cycles > spx_ipu_terms_sum (s->terms))
            {
              g_array_set_size (s->terms, 0);
              s->worst_tile = t;
              spx_ipu_cost_dynamic_vertex (p->machine, l->pr.b, l->pr.dtype,
                                           &in, sp->blocks, sp->rows,
                                           tile_ncols (l, k), 0, s->terms);
            }
        }
    }
  return TRUE;
}

/* The compute step that writes Y: each tile's piece of its output slice
 * reduced over y (py > 1) or cast to fp16 (py = 1). None with nothing to
 * do (fp32, py = 1). */
static void
add_finish (SpxIpuProgram *p, const Layout *l)
{
  const Cand *c = &l->c;
  if (c->py < 2 && l->pr.dtype == SPX_DTYPE_FP32)
    return;
  SpxIpuStep *s = spx_ipu_program_add_compute (p, c->py > 1 ? "reduce"
                                                            : "cast");
  for (guint t = 0; t < c->px * c->py * c->pz; t++)
    s->tile_cycles[t] = reduce_cycles (&l->pr, c->py,
                                       piece_elems (l, coord_of (c, t),
                                                    coord_of (c, t).y), NULL);
  s->worst_tile = spx_ipu_step_slowest (p, s);
  Coord w = coord_of (c, s->worst_tile);
  reduce_cycles (&l->pr, c->py, piece_elems (l, w, w.y), s->terms);
}

/* Partial sums over y: each of the py tiles of an output slice reduces
 * one piece of it, a band of its rows. */
static gboolean
add_reduce (SpxIpuProgram *p, const Layout *l, GError **error)
{
  const Cand *c = &l->c;
  if (c->py < 2)
    {
      add_finish (p, l);
      return TRUE;
    }
  SpxIpuStep *s = add_exchange (p, l, "reduce");
  for (guint t = 0; t < c->px * c->py * c->pz; t++)
    {
      if (spx_cancelled (error))
        return FALSE;
      Coord k = coord_of (c, t);
      for (guint y = 0; y < c->py; y++)
        if (y != k.y)
          {
            SpxIpuPiece w = partials_piece (l, k, y);
            spx_ipu_step_set_piece (s, &w);
            spx_ipu_step_send (p, s, t, tile_of (c, k.x, y, k.z),
                               piece_elems (l, k, y) * SPX_IPU_PARTIAL_BYTES);
          }
    }
  add_finish (p, l);
  return TRUE;
}

/* NULL when cancelled. */
static SpxIpuProgram *
build_program (const Layout *l, const SpxMask *mask, GError **error)
{
  const Problem *pr = &l->pr;
  guint64 nnz = 0;
  for (guint g = 0; g < l->groups; g++)
    nnz += l->elements[g];
  SpxIpuProgram *p = spx_ipu_program_new (SPX_IPU_MODE_DYNAMIC, pr->mc,
                                          pr->m, pr->k, pr->n, pr->b,
                                          pr->dtype,
                                          (double) nnz /
                                          ((double) pr->m * (double) pr->k));
  p->plan = g_strdup_printf ("px=%u py=%u pz=%u", l->c.px, l->c.py, l->c.pz);
  p->propagation_steps = l->steps;
  p->overflow = l->overflow;
  fill_tiles (p, l);
  if (!add_distribute (p, l, error))
    goto cancelled;
  spx_ipu_program_add_sync (p, "sync");
  add_compute (p, l);
  add_call_overhead (p, l);
  if (!add_propagation (p, l, error) || !add_reduce (p, l, error))
    goto cancelled;
  spx_ipu_program_add_sync (p, "sync");
  spx_ipu_program_finish (p);
  return p;
cancelled:
  spx_ipu_program_free (p);
  return NULL;
}

SpxIpuProgram *
spx_ipu_plan_dynamic (const SpxIpuMachine *machine, const SpxMask *mask,
                      guint64 max_blocks, guint64 n, SpxDtype dtype,
                      GError **error)
{
  g_return_val_if_fail (machine != NULL && mask != NULL, NULL);
  if (n == 0 || machine->tiles == 0 || machine->workers == 0)
    {
      g_set_error (error, SPX_IPU_ERROR, SPX_IPU_ERROR_INVALID,
                   "dynamic plan: n = %" G_GUINT64_FORMAT ", %u tiles, "
                   "%u workers: expected all at least 1",
                   n, machine->tiles, machine->workers);
      return NULL;
    }
  Layout l = { 0 };
  l.nnz = spx_mask_count (mask);
  l.pr = (Problem) { machine, mask->rows, mask->cols, n, mask->block,
                     spx_dtype_on_ipu (dtype),
                     mask->brows, mask->bcols, max_blocks ? max_blocks : l.nnz };
  l.pr.budget = MAX (l.pr.budget, 1);
  g_autofree char *what = plan_what (&l.pr);
  if (!spx_ipu_check_blocks (l.nnz, what, error))
    return NULL;
  GError *local = NULL;
  if (!search (&l.pr, &l.c, &local))
    {
      if (local != NULL) /* cancelled */
        g_propagate_error (error, local);
      else
        g_set_error (error, SPX_IPU_ERROR, SPX_IPU_ERROR_NO_PLAN,
                     "dynamic plan: no partition of the %" G_GUINT64_FORMAT
                     "×%" G_GUINT64_FORMAT " product over %u tiles",
                     l.pr.m, n, machine->tiles);
      return NULL;
    }
  SpxIpuProgram *p = NULL, *dry = NULL;
  if (layout_build (&l, mask, error))
    {
      /* the run costed from the pattern's counts before any transfer is
       * listed: what the host knows when it fills the buckets */
      l.dry = TRUE;
      dry = build_program (&l, mask, error);
      l.dry = FALSE;
    }
  if (dry != NULL && (p = build_program (&l, mask, error)) != NULL)
    p->estimate = dry->cycles;
  spx_ipu_program_free (dry);
  if (p != NULL)
    {
      /* the partitions, for views */
      p->row_group = g_steal_pointer (&l.row_x);
      p->col_group = g_steal_pointer (&l.col_y);
    }
  layout_clear (&l);
  return p;
}
