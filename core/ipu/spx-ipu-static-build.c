/* spx-ipu-static-build.c: the static planner's detailed program for one
 * partition: blocks dealt to tiles, X and the values distributed, the
 * partials reduced; and the memory a build holds */
#include "spx-ipu.h"
#include "spx-ipu-cost.h"
#include "spx-ipu-static-private.h"
#include "spx-util.h"

#include <string.h>

/* Memory a GArray takes beyond its data: its header. */
#define ARRAY_HEADER_BYTES 48u

/* ---- the detailed program ---------------------------------------------- */

/* A run of one tile's blocks within one block-row. */
typedef struct {
  guint64 row;
  guint   tile;   /* within the split */
  guint   blocks;
} Run;

typedef struct {
  const SpxIpuStaticCtx     *c;
  const SpxIpuStaticShape   *sh;
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
split_tile (const SpxIpuStaticShape *sh, guint s, guint t)
{
  return (guint64) s * sh->split_tiles + t;
}

/* Deal each band's blocks, rows in sorted order, into one list. */
static gboolean
deal_blocks (Build *bd, GError **error)
{
  const SpxIpuStaticCtx *c = bd->c;
  const SpxMask *mask = c->mask;
  const SpxIpuStaticShape *sh = bd->sh;
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
      if (i % SPX_IPU_STATIC_POLL_EVERY == 0 &&
          (cancelled = spx_cancelled (error)))
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
  const SpxIpuStaticCtx *c = bd->c;
  const SpxIpuStaticShape *sh = bd->sh;
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
      guint64 np = spx_ipu_static_split_cols (c, sh->sn, s);
      guint64 id = split_tile (sh, s, pos);
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
  const SpxIpuStaticShape *sh = bd->sh;
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
layout_elements (const SpxIpuStaticCtx *c, guint64 count, guint last,
                 guint64 lo, guint64 hi)
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
  const SpxIpuStaticCtx *c = bd->c;
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
  const SpxIpuStaticCtx *c = bd->c;
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
  const SpxIpuStaticCtx *c = bd->c;
  GArray *pieces = g_array_new (FALSE, FALSE, sizeof (XPiece));
  guint64 n0, n1;
  spx_ipu_static_split_range (c, bd->sh->sn, s, &n0, &n1);
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
  const SpxIpuStaticShape *sh = bd->sh;
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
 * SpxIpuStaticStep) and values. FALSE when cancelled. */
static gboolean
distribute (Build *bd, SpxIpuStep *ex, GError **error)
{
  const SpxIpuStaticShape *sh = bd->sh;
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
  const SpxIpuStaticCtx *c = bd->c;
  const SpxIpuStaticShape *sh = bd->sh;
  SpxIpuProgram *p = bd->p;
  const Run *runs = (const Run *) bd->runs->data;
  guint64 row = runs[i].row, holders = end - i;
  guint h = spx_mask_block_height (c->mask, row);
  for (guint s = 0; s < sh->sn; s++)
    {
      guint64 n0, n1;
      spx_ipu_static_split_range (c, sh->sn, s, &n0, &n1);
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
      if (polled % SPX_IPU_STATIC_POLL_EVERY == 0 &&
          (cancelled = spx_cancelled (error)))
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
      spx_ipu_cost_static_output (bd->p->machine,
                                  spx_ipu_static_out_bytes (bd->c),
                                  ex->terms);
    }
  g_free (adds.outputs);
  g_free (adds.partials);
  return !cancelled;
}

gboolean
spx_ipu_static_build_program (const SpxIpuStaticCtx *c,
                              const SpxIpuStaticShape *sh, SpxIpuProgram *p,
                              gboolean dry, GError **error)
{
  Build bd = { .c = c, .sh = sh, .p = p, .dry = dry };
  bd.runs = g_array_new (FALSE, FALSE, sizeof (Run));
  bd.owned = g_new0 (guint64, p->n_tiles);
  bd.owned_what = g_new0 (SpxIpuPiece, p->n_tiles);
  gboolean ok = deal_blocks (&bd, error);

  /* appending moves the step array: take the pointers once all exist */
  guint first = p->steps->len, at[SPX_IPU_ST_N];
  for (guint i = 0, next = first; i < SPX_IPU_ST_N; i++)
    {
      at[i] = next++;
      if (spx_ipu_static_steps[i].kind == SPX_STEP_COMPUTE)
        spx_ipu_program_add_compute (p, spx_ipu_static_steps[i].phase);
      else if (spx_ipu_static_steps[i].kind == SPX_STEP_EXCHANGE && dry)
        spx_ipu_step_count_only (spx_ipu_program_add_exchange (
          p, spx_ipu_static_steps[i].phase));
      else if (spx_ipu_static_steps[i].kind == SPX_STEP_EXCHANGE)
        spx_ipu_program_add_exchange (p, spx_ipu_static_steps[i].phase);
      else
        spx_ipu_program_add_sync (p, spx_ipu_static_steps[i].phase);
    }
#define STEP(i) (&g_array_index (p->steps, SpxIpuStep, at[i]))
  SpxIpuStep *dist = STEP (SPX_IPU_ST_DISTRIBUTE);
  SpxIpuStep *compute = STEP (SPX_IPU_ST_COMPUTE);
  SpxIpuStep *red = STEP (SPX_IPU_ST_REDUCE_EXCHANGE);
  SpxIpuStep *adds = STEP (SPX_IPU_ST_REDUCE_ADD);
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
lists_bytes (const SpxIpuStaticShape *sh, guint64 blocks, guint64 per)
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
double
spx_ipu_static_build_bytes (const SpxIpuStaticCtx *c,
                            const SpxIpuStaticShape *sh)
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
