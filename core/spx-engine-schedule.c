/* spx-engine-schedule.c: ordering block-rows and splitting them across
 * threads, shared by the static and dynamic plans */
#include "spx-engine-private.h"

#include <omp.h>
#include <string.h>

void
spx_schedule_init (SpxSchedule *s, guint64 brows, guint64 bcols,
                   guint64 max_blocks, guint n_threads)
{
  s->n_threads = n_threads;
  s->work = g_new0 (SpxRowWork, brows);
  s->start = g_new0 (gsize, n_threads + 1);
  s->b_offsets = g_new (guint32, MAX (max_blocks, 1));
  s->scratch = g_new (guint32, 3 * brows + bcols + 1);
  s->load = g_new (guint64, n_threads);
  s->next = g_new (gsize, n_threads);
}

void
spx_schedule_clear (SpxSchedule *s)
{
  g_free (s->work);
  g_free (s->start);
  g_free (s->b_offsets);
  g_free (s->scratch);
  g_free (s->load);
  g_free (s->next);
  memset (s, 0, sizeof *s);
}

/* Block-rows by decreasing block count (counting sort: stable, O(rows +
 * columns)); returns the order in scratch[0 .. brows). */
static guint32 *
order_heaviest_first (const SpxBlockCsr *csr, guint32 *scratch)
{
  guint32 *order = scratch, *count = scratch + 3 * csr->brows;
  const guint64 *off = csr->row_offsets;
  memset (count, 0, (csr->bcols + 1) * sizeof *count);
  for (guint64 r = 0; r < csr->brows; r++)
    count[csr->bcols - (off[r + 1] - off[r])]++;
  guint32 sum = 0;
  for (guint64 c = 0; c <= csr->bcols; c++)
    {
      guint32 here = count[c];
      count[c] = sum;
      sum += here;
    }
  for (guint64 r = 0; r < csr->brows; r++)
    order[count[csr->bcols - (off[r + 1] - off[r])]++] = (guint32) r;
  return order;
}

/* Greedy: each row (heaviest first) to the thread with the least work so
 * far; a row costs its blocks plus one for the store of its C rows. Then
 * row_at lists the rows thread by thread, heaviest first within each. */
static void
assign_threads (SpxSchedule *s, const SpxBlockCsr *csr, const guint32 *order,
                guint32 *owner, guint32 *row_at)
{
  memset (s->load, 0, s->n_threads * sizeof *s->load);
  memset (s->start, 0, (s->n_threads + 1) * sizeof *s->start);
  for (guint64 i = 0; i < csr->brows; i++)
    {
      guint64 r = order[i];
      guint best = 0;
      for (guint t = 1; t < s->n_threads; t++)
        if (s->load[t] < s->load[best])
          best = t;
      s->load[best] += csr->row_offsets[r + 1] - csr->row_offsets[r] + 1;
      owner[i] = best;
      s->start[best + 1]++;
    }
  for (guint t = 0; t < s->n_threads; t++)
    s->start[t + 1] += s->start[t];
  memcpy (s->next, s->start, s->n_threads * sizeof *s->next);
  for (guint64 i = 0; i < csr->brows; i++)
    row_at[s->next[owner[i]]++] = order[i];
}

/* One block-row's work; the ragged last block-column (always last in a
 * row, columns increasing) becomes the edge block. */
static void
fill_row (SpxRowWork *w, const SpxBlockCsr *csr, guint64 r,
          const float *values, guint32 *b_offsets, guint64 ldb)
{
  guint b = csr->b;
  guint64 first = csr->row_offsets[r], n = csr->row_offsets[r + 1] - first;
  guint kw_last = (guint) (csr->k - (csr->bcols - 1) * b);
  memset (w, 0, sizeof *w);
  w->c_row = r * b;
  w->task.b = b;
  w->task.rows = (guint) MIN ((guint64) b, csr->m - r * b);
  w->task.values = values;
  w->task.b_offsets = b_offsets;
  for (guint64 i = 0; i < n; i++)
    b_offsets[i] = (guint32) (csr->col_indices[first + i] * (guint64) b * ldb);
  if (n > 0 && kw_last < b && csr->col_indices[first + n - 1] == csr->bcols - 1)
    {
      n--;
      w->edge_values = values + n * b * b;
      w->edge_kw = kw_last;
      w->edge_b_offset = b_offsets[n];
    }
  w->task.n_blocks = (guint) n;
}

void
spx_schedule_build (SpxSchedule *s, const SpxBlockCsr *csr,
                    const float *values, guint64 ldb, float *pack)
{
  guint32 *order = order_heaviest_first (csr, s->scratch);
  guint32 *owner = s->scratch + csr->brows, *row_at = owner + csr->brows;
  assign_threads (s, csr, order, owner, row_at);

  gsize bb = (gsize) csr->b * csr->b, placed = 0;
  for (guint64 i = 0; i < csr->brows; i++)
    {
      guint64 r = row_at[i], first = csr->row_offsets[r];
      guint64 n = csr->row_offsets[r + 1] - first;
      const float *v = values + first * bb;
      if (pack != NULL)
        {
          memcpy (pack + placed * bb, v, n * bb * sizeof (float));
          v = pack + placed * bb;
        }
      fill_row (&s->work[i], csr, r, v, s->b_offsets + placed, ldb);
      placed += n;
    }
}

void
spx_schedule_run (const SpxSchedule *s, SpxIsa isa, const float *B, float *C,
                  guint64 n, gboolean accumulate)
{
  guint n_threads = s->n_threads;
#pragma omp parallel num_threads (n_threads)
  {
    /* The team may be smaller than asked (nested regions): stride. */
    for (guint t = (guint) omp_get_thread_num (); t < n_threads;
         t += (guint) omp_get_num_threads ())
      spx_kernel_run (isa, s->work + s->start[t], s->start[t + 1] - s->start[t],
                      B, n, C, n, n, accumulate);
  }
}

guint
spx_engine_threads (const SpxEngineOptions *options)
{
  return options->threads ? options->threads : (guint) omp_get_max_threads ();
}

gboolean
spx_engine_check_sizes (guint64 m, guint64 k, guint64 n, guint b,
                        GError **error)
{
  if (m == 0 || k == 0 || n == 0 || b == 0 || b > SPX_MASK_MAX_BLOCK)
    {
      g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID,
                   "sizes m=%" G_GUINT64_FORMAT " k=%" G_GUINT64_FORMAT
                   " n=%" G_GUINT64_FORMAT " b=%u: expected m, k, n ≥ 1 and "
                   "1 ≤ b ≤ %u", m, k, n, b, SPX_MASK_MAX_BLOCK);
      return FALSE;
    }
  /* Offsets into B are 32-bit (half the index memory of 64-bit ones). */
  if (k * n >= G_GUINT64_CONSTANT (1) << 32 || m * n >= G_MAXINT64 / 4)
    {
      g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID,
                   "B of %" G_GUINT64_FORMAT "×%" G_GUINT64_FORMAT " elements: "
                   "the engine supports k·n < 2^32", k, n);
      return FALSE;
    }
  return TRUE;
}
