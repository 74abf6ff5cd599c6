/* spx-engine-tilewise.c: tile-wise sparsity as condensed dense tiles, one
 * small sgemm per tile and block of rows */
#include "spx-engine-private.h"
#include "spx-util.h"

#include <cblas.h>
#include <limits.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* Work is cut into units of about CHUNK_ROWS rows of C and NC columns,
 * fixed whatever the thread count, so that every element of C is made by
 * the same sgemm calls and additions on 1 thread as on 2. */
#define CHUNK_ROWS 256u
#define NC         512u

struct _SpxTilewisePlan {
  guint64  m, k, n;
  guint    b, width;       /* block side, tile width G */
  guint    threads;
  guint64  chunk_brows;    /* block-rows per unit of work */
  guint64  nc;             /* columns of C per unit: MIN (n, NC) */
  guint64  nnz;            /* non-zero elements */
  guint64  k_kept;         /* non-empty columns of A */
  guint32 *cols;           /* the kept columns; NULL when all are */
  guint64  n_tiles;
  guint64 *tile_offsets;   /* n_tiles + 1 entries into tile_brows */
  guint32 *tile_brows;     /* each tile's kept block-rows, increasing */
  guint64 *value_offsets;  /* n_tiles + 1 entries into values */
  float   *values;         /* tile t: its kept rows × its columns */
  float   *packed_b;       /* B's kept rows (k_kept × n) when cols */
  float   *scratch;        /* per thread: chunk rows × nc */
};

/* Columns of tile t, in kept columns. */
static guint64
tile_width (const SpxTilewisePlan *plan, guint64 t)
{
  return MIN ((guint64) plan->width, plan->k_kept - t * plan->width);
}

static guint64
brow_height (const SpxTilewisePlan *plan, guint64 br)
{
  return MIN ((guint64) plan->b, plan->m - br * plan->b);
}

static guint64
tile_rows (const SpxTilewisePlan *plan, guint64 t)
{
  return (plan->value_offsets[t + 1] - plan->value_offsets[t]) /
         MAX (tile_width (plan, t), 1);
}

/* The first kept position of each block-column (in kept columns), with
 * kept_bc[bc] TRUE for non-empty ones; returns the kept width. */
static guint64
find_columns (const SpxMask *mask, gboolean *kept_bc, guint64 *pos)
{
  SpxMaskIter it;
  guint64 br, bc, k_kept = 0;
  spx_mask_iter_init (&it, mask);
  while (spx_mask_iter_next (&it, &br, &bc))
    kept_bc[bc] = TRUE;
  for (bc = 0; bc < mask->bcols; bc++)
    {
      pos[bc] = k_kept;
      if (kept_bc[bc])
        k_kept += spx_mask_block_width (mask, bc);
    }
  return k_kept;
}

/* Block-row br's part of a block (b×b values, its columns at kept
 * positions first..first + w) inside tile t, at the tile's kept row
 * index j (in block-rows). */
static void
copy_into_tile (SpxTilewisePlan *plan, guint64 t, guint64 j, guint64 br,
                guint64 first, guint64 w, const float *block)
{
  guint64 g = tile_width (plan, t), start = t * plan->width;
  guint64 lo = MAX (first, start), hi = MIN (first + w, start + g);
  float *dst = plan->values + plan->value_offsets[t] + j * plan->b * g +
               (lo - start);
  for (guint64 r = 0; r < brow_height (plan, br); r++)
    memcpy (dst + r * g, block + r * plan->b + (lo - first),
            (hi - lo) * sizeof (float));
}

/* Visit every (block, tile) pair: count[t] gets each tile's kept
 * block-rows and last[t] its last; with plan->values set, the block-rows
 * are listed and values copied to their place. */
static void
walk_blocks (SpxTilewisePlan *plan, const SpxMask *mask, const guint64 *pos,
             const float *values, guint64 *count, guint64 *last)
{
  gsize bb = (gsize) plan->b * plan->b;
  SpxMaskIter it;
  guint64 br, bc, i = 0;
  for (guint64 t = 0; t < plan->n_tiles; t++)
    last[t] = G_MAXUINT64;
  spx_mask_iter_init (&it, mask);
  for (; spx_mask_iter_next (&it, &br, &bc); i++)
    {
      guint64 w = spx_mask_block_width (mask, bc);
      for (guint64 t = pos[bc] / plan->width;
           t <= (pos[bc] + w - 1) / plan->width; t++)
        {
          if (last[t] != br)
            {
              if (plan->values != NULL)
                plan->tile_brows[plan->tile_offsets[t] + count[t]] =
                  (guint32) br;
              count[t]++;
              last[t] = br;
            }
          if (plan->values != NULL)
            copy_into_tile (plan, t, count[t] - 1, br, pos[bc], w,
                            values + i * bb);
        }
    }
}

/* The kept element columns, in order, when some are empty. */
static void
list_columns (SpxTilewisePlan *plan, const SpxMask *mask,
              const gboolean *kept_bc)
{
  if (plan->k_kept == plan->k)
    return;
  plan->cols = g_new (guint32, MAX (plan->k_kept, 1));
  guint64 j = 0;
  for (guint64 bc = 0; bc < mask->bcols; bc++)
    for (guint64 c = 0; kept_bc[bc] && c < spx_mask_block_width (mask, bc);
         c++)
      plan->cols[j++] = (guint32) (bc * plan->b + c);
}

static gboolean
check_arguments (const SpxMask *mask, const float *values, guint tile_width,
                 guint64 n, const SpxEngineOptions *options, GError **error)
{
  const char *problem = mask == NULL ? "no mask" :
                        options == NULL ? "no engine options" :
                        tile_width == 0 ? "a tile width of 0 columns" : NULL;
  if (problem != NULL)
    {
      g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID,
                   "the tile-wise plan got %s: it needs a mask, options and "
                   "tiles at least 1 column wide", problem);
      return FALSE;
    }
  if (!spx_engine_check_sizes (mask->rows, mask->cols, n, mask->block, error))
    return FALSE;
  if (n > INT_MAX)
    {
      g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID,
                   "n = %" G_GUINT64_FORMAT ": the tile-wise plan supports "
                   "n < 2^31", n);
      return FALSE;
    }
  guint64 blocks = spx_mask_count (mask);
  if (values == NULL && blocks > 0)
    {
      g_autofree char *count = spx_format_count (blocks);
      g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID,
                   "the tile-wise plan got no values for a mask of %s %s",
                   count, blocks == 1 ? "block" : "blocks");
      return FALSE;
    }
  return TRUE;
}

/* Everything the plan allocates after counting, against the budget. */
static gboolean
check_budget (const SpxTilewisePlan *plan, guint64 pairs, guint64 elements,
              GError **error)
{
  double bytes = (double) pairs * sizeof (guint32) +
                 (double) elements * sizeof (float) +
                 (plan->n_tiles + 1.0) * 2 * sizeof (guint64) +
                 (plan->cols ? (double) plan->k_kept * plan->n : 0.0) *
                   sizeof (float) +
                 (double) plan->threads * plan->chunk_brows * plan->b *
                   plan->nc * sizeof (float);
  g_autofree char *count = spx_format_count (elements);
  g_autofree char *what = g_strdup_printf (
    "the CPU tile-wise plan (%" G_GUINT64_FORMAT "×%" G_GUINT64_FORMAT
    " in tiles of %u columns, %s condensed values)", plan->m, plan->k,
    plan->width, count);
  return spx_budget_check_estimate (bytes, what, error);
}

/* Offsets from counts and each tile's last kept block-row; returns the
 * condensed elements (floats). */
static guint64
set_offsets (SpxTilewisePlan *plan, const guint64 *count, const guint64 *last,
             guint64 *pairs)
{
  plan->tile_offsets = g_new (guint64, plan->n_tiles + 1);
  plan->value_offsets = g_new (guint64, plan->n_tiles + 1);
  plan->tile_offsets[0] = plan->value_offsets[0] = 0;
  for (guint64 t = 0; t < plan->n_tiles; t++)
    {
      /* whole blocks of rows: only the last block-row may be short */
      guint64 rows = count[t] == 0 ? 0 : (count[t] - 1) * plan->b +
                                         brow_height (plan, last[t]);
      plan->tile_offsets[t + 1] = plan->tile_offsets[t] + count[t];
      plan->value_offsets[t + 1] = plan->value_offsets[t] +
                                   rows * tile_width (plan, t);
    }
  *pairs = plan->tile_offsets[plan->n_tiles];
  return plan->value_offsets[plan->n_tiles];
}

static gboolean
allocate (SpxTilewisePlan *plan, guint64 pairs, guint64 elements,
          GError **error)
{
  plan->tile_brows = g_try_new (guint32, MAX (pairs, 1));
  plan->values = spx_engine_alloc (MAX (elements, 1) * sizeof (float));
  plan->scratch = spx_engine_alloc ((gsize) plan->threads * plan->chunk_brows *
                                    plan->b * plan->nc * sizeof (float));
  if (plan->cols != NULL)
    plan->packed_b = spx_engine_alloc (MAX (plan->k_kept * plan->n, 1) *
                                       sizeof (float));
  if (plan->tile_brows != NULL && plan->values != NULL &&
      plan->scratch != NULL && (plan->cols == NULL || plan->packed_b != NULL))
    return TRUE;
  g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_NO_MEMORY,
               "no memory for the tile-wise plan's %" G_GUINT64_FORMAT
               " condensed values", elements);
  return FALSE;
}

/* Tiles, their kept rows and condensed values, from the mask. */
static gboolean
condense (SpxTilewisePlan *plan, const SpxMask *mask, const float *values,
          GError **error)
{
  g_autofree gboolean *kept_bc = g_new0 (gboolean, mask->bcols);
  g_autofree guint64 *pos = g_new (guint64, mask->bcols);
  plan->k_kept = find_columns (mask, kept_bc, pos);
  plan->n_tiles = (plan->k_kept + plan->width - 1) / plan->width;
  list_columns (plan, mask, kept_bc);
  g_autofree guint64 *count = g_new0 (guint64, MAX (plan->n_tiles, 1));
  g_autofree guint64 *last = g_new (guint64, MAX (plan->n_tiles, 1));
  walk_blocks (plan, mask, pos, values, count, last);
  guint64 pairs, elements = set_offsets (plan, count, last, &pairs);
  if (!check_budget (plan, pairs, elements, error) ||
      !allocate (plan, pairs, elements, error))
    return FALSE;
  /* Kept rows carry zeros where the mask has none. */
  memset (plan->values, 0, MAX (elements, 1) * sizeof (float));
  memset (count, 0, MAX (plan->n_tiles, 1) * sizeof (guint64));
  walk_blocks (plan, mask, pos, values, count, last);
  return TRUE;
}

SpxTilewisePlan *
spx_tilewise_plan_new (const SpxMask *mask, const float *values,
                       guint tile_width, guint64 n,
                       const SpxEngineOptions *options, GError **error)
{
  if (!check_arguments (mask, values, tile_width, n, options, error))
    return NULL;
  /* the small arrays condensing needs, before any is allocated */
  double small = (mask->bcols * 2.0 + mask->cols) * sizeof (guint64) +
                 (mask->cols / tile_width + 1.0) * 2 * sizeof (guint64);
  if (!spx_budget_check_estimate (small,
                                  "the CPU tile-wise plan's columns", error))
    return NULL;
  SpxTilewisePlan *plan = g_new0 (SpxTilewisePlan, 1);
  plan->m = mask->rows;
  plan->k = mask->cols;
  plan->n = n;
  plan->b = mask->block;
  plan->width = tile_width;
  plan->threads = spx_engine_threads (options);
  plan->chunk_brows = MAX (CHUNK_ROWS / plan->b, 1);
  plan->nc = MIN (n, NC);
  plan->nnz = spx_mask_count_elements (mask);
  if (!condense (plan, mask, values, error))
    g_clear_pointer (&plan, spx_tilewise_plan_free);
  return plan;
}

/* B's kept rows, packed in order (OpenMP over the rows). */
static void
pack_b (SpxTilewisePlan *plan, const float *B)
{
  guint64 n = plan->n;
#pragma omp parallel for num_threads (plan->threads) schedule (static)
  for (guint64 j = 0; j < plan->k_kept; j++)
    memcpy (plan->packed_b + j * n, B + (guint64) plan->cols[j] * n,
            n * sizeof (float));
}

/* First kept position in tile t at or after block-row br. */
static guint64
find_brow (const SpxTilewisePlan *plan, guint64 t, guint64 br)
{
  guint64 lo = plan->tile_offsets[t], hi = plan->tile_offsets[t + 1];
  while (lo < hi)
    {
      guint64 mid = lo + (hi - lo) / 2;
      if (plan->tile_brows[mid] < br)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo - plan->tile_offsets[t];
}

/* C[kept rows of tile t in block-rows br0..br1, j0..j0+w] += tile · B. */
static void
run_tile (const SpxTilewisePlan *plan, guint64 t, guint64 br0, guint64 br1,
          guint64 j0, guint64 w, const float *B, float *C, float *scratch)
{
  guint64 first = find_brow (plan, t, br0), end = find_brow (plan, t, br1);
  if (first == end)
    return;
  guint64 g = tile_width (plan, t), b = plan->b;
  guint64 rows = MIN (end * b, tile_rows (plan, t)) - first * b;
  cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, (int) rows, (int) w,
               (int) g, 1.0f, plan->values + plan->value_offsets[t] +
               first * b * g, (int) g, B + t * plan->width * plan->n + j0,
               (int) plan->n, 0.0f, scratch, (int) w);
  const guint32 *brows = plan->tile_brows + plan->tile_offsets[t];
  for (guint64 i = first; i < end; i++)
    for (guint64 r = 0; r < brow_height (plan, brows[i]); r++)
      {
        float *c = C + (brows[i] * b + r) * plan->n + j0;
        const float *s = scratch + ((i - first) * b + r) * w;
        for (guint64 j = 0; j < w; j++)
          c[j] += s[j];
      }
}

/* One unit: block-rows br0..br1 of C, columns j0..j0+w, tiles in order. */
static void
run_unit (const SpxTilewisePlan *plan, guint64 br0, guint64 j0,
          const float *B, float *C, gboolean accumulate, float *scratch)
{
  guint64 br1 = MIN (br0 + plan->chunk_brows, (plan->m + plan->b - 1) /
                                                plan->b);
  guint64 w = MIN (plan->nc, plan->n - j0);
  if (!accumulate)
    for (guint64 r = br0 * plan->b; r < MIN (br1 * plan->b, plan->m); r++)
      memset (C + r * plan->n + j0, 0, w * sizeof (float));
  for (guint64 t = 0; t < plan->n_tiles; t++)
    run_tile (plan, t, br0, br1, j0, w, B, C, scratch);
}

void
spx_tilewise_plan_execute (SpxTilewisePlan *plan, const float *B, float *C,
                           gboolean accumulate)
{
  g_return_if_fail (plan != NULL && B != NULL && C != NULL);
  if (plan->cols != NULL)
    {
      pack_b (plan, B);
      B = plan->packed_b;
    }
  guint64 brows = (plan->m + plan->b - 1) / plan->b;
  guint64 row_units = (brows + plan->chunk_brows - 1) / plan->chunk_brows;
  guint64 col_units = (plan->n + plan->nc - 1) / plan->nc;
  gsize scratch_len = (gsize) plan->chunk_brows * plan->b * plan->nc;
#pragma omp parallel num_threads (plan->threads)
  {
    /* Each sgemm on its caller's thread: OpenBLAS follows the calling
     * task's OpenMP setting, and a team of 1 is not "in parallel". This
     * setting lasts only as long as the region. */
    omp_set_num_threads (1);
    float *scratch = plan->scratch + omp_get_thread_num () * scratch_len;
#pragma omp for schedule (dynamic, 1)
    for (guint64 u = 0; u < row_units * col_units; u++)
      run_unit (plan, (u / col_units) * plan->chunk_brows,
                (u % col_units) * plan->nc, B, C, accumulate, scratch);
  }
}

gsize
spx_tilewise_plan_bytes (const SpxTilewisePlan *plan)
{
  g_return_val_if_fail (plan != NULL, 0);
  guint64 pairs = plan->tile_offsets[plan->n_tiles];
  return sizeof *plan + (plan->n_tiles + 1) * 2 * sizeof (guint64) +
         pairs * sizeof (guint32) +
         plan->value_offsets[plan->n_tiles] * sizeof (float) +
         (plan->cols ? plan->k_kept * (sizeof (guint32) +
                                       plan->n * sizeof (float)) : 0) +
         (gsize) plan->threads * plan->chunk_brows * plan->b * plan->nc *
           sizeof (float);
}

guint64
spx_tilewise_plan_n_tiles (const SpxTilewisePlan *plan)
{
  g_return_val_if_fail (plan != NULL, 0);
  return plan->n_tiles;
}

guint64
spx_tilewise_plan_tile_rows (const SpxTilewisePlan *plan, guint64 tile)
{
  g_return_val_if_fail (plan != NULL, 0);
  return tile < plan->n_tiles ? tile_rows (plan, tile) : 0;
}

guint64
spx_tilewise_plan_kept_columns (const SpxTilewisePlan *plan)
{
  g_return_val_if_fail (plan != NULL, 0);
  return plan->k_kept;
}

double
spx_tilewise_plan_flops (const SpxTilewisePlan *plan)
{
  g_return_val_if_fail (plan != NULL, 0.0);
  return 2.0 * (double) plan->value_offsets[plan->n_tiles] * (double) plan->n;
}

double
spx_tilewise_plan_fill (const SpxTilewisePlan *plan)
{
  g_return_val_if_fail (plan != NULL, 0.0);
  guint64 elements = plan->value_offsets[plan->n_tiles];
  return elements == 0 ? 1.0 : (double) plan->nnz / (double) elements;
}

void
spx_tilewise_plan_free (SpxTilewisePlan *plan)
{
  if (plan == NULL)
    return;
  g_free (plan->cols);
  g_free (plan->tile_offsets);
  g_free (plan->tile_brows);
  g_free (plan->value_offsets);
  free (plan->values);
  free (plan->packed_b);
  free (plan->scratch);
  g_free (plan);
}
