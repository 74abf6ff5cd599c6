/* spx-engine-schedule.c: ordering block-rows and splitting them across
 * threads, shared by the static and dynamic plans */
#include "spx-engine-private.h"
#include "spx-util.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE_PAGE (2u << 20)

/* B is copied into a contiguous panel of nc columns at a time, sized to
 * half of this processor's L2 (k·nc elements of size bytes): the values,
 * offsets and C streaming past keep the other half. Its row stride is
 * padded off powers of two: its rows then share pages (few TLB misses;
 * the kernels read B's rows at random) and do not alias in L1 as a 1 KiB
 * stride would. */
void
spx_schedule_panel_shape (guint64 k, guint64 n, guint size, guint64 *nc,
                          guint64 *ldp)
{
  guint64 c = (spx_kernel_l2_bytes () / 2 / size / k) / 16 * 16;
  c = CLAMP (c, 16, 512);
  /* as few passes over n as fit, of even widths: a narrow last pass
   * reads all of A's values again for a sliver of C */
  guint64 passes = MAX ((n + c - 1) / c, 1);
  *nc = MIN (((n + passes - 1) / passes + 15) / 16 * 16, n);
  *ldp = (*nc + 15) / 16 * 16 + 16;
}

void
spx_schedule_init (SpxSchedule *s, guint64 k, guint64 n, guint b,
                   guint64 brows, guint64 bcols, guint64 max_blocks,
                   guint n_threads)
{
  s->n_threads = n_threads;
  s->k = k;
  s->n = n;
  s->b = b;
  s->bcol_rows = b;
  s->element_bytes = sizeof (float);
  s->panel_rows = bcols * b;
  s->bf16 = FALSE;
  spx_schedule_panel_shape (k, n, sizeof (float), &s->nc, &s->ldp);
  s->work = g_new0 (SpxRowWork, brows);
  s->start = g_new0 (gsize, n_threads + 1);
  s->b_offsets = g_new (guint32, MAX (max_blocks, 1));
  s->scratch = g_new (guint32, 3 * brows + bcols + 1);
  s->load = g_new (guint64, n_threads);
  s->next = g_new (gsize, n_threads);
}

void
spx_schedule_set_bf16 (SpxSchedule *s, SpxIsa isa)
{
  const SpxKernelSetBf16 *set = spx_kernel_set_bf16 (isa);
  s->bf16 = TRUE;
  s->bf16_isa = isa;
  s->bcol_rows = set->bcol_rows (s->b);
  s->element_bytes = set->element_bytes;
  /* A panel of bf16 takes twice the columns in the same bytes; with no
   * padding rows (bcol_rows ≤ b) it still fits the fp32 panel's
   * (panel_rows · ldp floats), which the budget counted. */
  if (set->element_bytes == sizeof (guint16) && s->bcol_rows <= s->b)
    spx_schedule_panel_shape (s->k, s->n, sizeof (guint16), &s->nc, &s->ldp);
}

/* The panel is B's rows padded to whole blocks: a bf16 set's padded
 * pairs or plain bf16 rows take no more than that in floats. Each thread
 * runs on a panel of its own (see run). */
double
spx_schedule_bytes (guint64 k, guint64 n, guint b, guint64 brows,
                    guint64 bcols, guint64 max_blocks, guint n_threads)
{
  guint64 nc, ldp;
  spx_schedule_panel_shape (k, n, sizeof (float), &nc, &ldp);
  return (double) brows * sizeof (SpxRowWork) +
         (double) MAX (max_blocks, 1) * sizeof (guint32) +
         (3.0 * brows + bcols + 1) * sizeof (guint32) +
         ((double) n_threads + 1) * 3 * sizeof (guint64) +
         (double) MAX (n_threads, 1) * bcols * b * ldp * sizeof (float);
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
          const char *values, gsize block_bytes, const guint32 *b_offsets)
{
  guint b = csr->b;
  guint64 first = csr->row_offsets[r], n = csr->row_offsets[r + 1] - first;
  guint kw_last = (guint) (csr->k - (csr->bcols - 1) * b);
  memset (w, 0, sizeof *w);
  w->c_row = r * b;
  w->task.b = b;
  w->task.rows = (guint) MIN ((guint64) b, csr->m - r * b);
  w->task.values = (const float *) values;
  w->task.b_offsets = b_offsets;
  if (n > 0 && kw_last < b && csr->col_indices[first + n - 1] == csr->bcols - 1)
    {
      n--;
      w->edge_values = (const float *) (values + n * block_bytes);
      w->edge_kw = kw_last;
    }
  w->task.n_blocks = (guint) n;
}

/* Pre-scaled offsets of a row's blocks in B's panel (edge block last). */
static void
fill_offsets (SpxRowWork *w, const guint32 *cols, guint64 scale)
{
  guint32 *off = (guint32 *) w->task.b_offsets;
  guint n = w->task.n_blocks + (w->edge_values != NULL);
  for (guint i = 0; i < n; i++)
    off[i] = (guint32) (cols[i] * scale);
  if (w->edge_values != NULL)
    w->edge_b_offset = off[n - 1];
}

void
spx_schedule_build (SpxSchedule *s, const SpxBlockCsr *csr,
                    const void *values, void *pack)
{
  const char *from = values;
  char *to = pack;
  guint32 *order = order_heaviest_first (csr, s->scratch);
  guint32 *owner = s->scratch + csr->brows, *row_at = owner + csr->brows;
  assign_threads (s, csr, order, owner, row_at);

  gsize bb = (gsize) csr->b * csr->b, placed = 0;
  gsize block_bytes = bb * (s->bf16 ? sizeof (guint16) : sizeof (float));
  for (guint64 i = 0; i < csr->brows; i++)
    {
      guint64 r = row_at[i], first = csr->row_offsets[r];
      guint64 n = csr->row_offsets[r + 1] - first;
      if (pack == NULL) /* the kernels scale the columns themselves */
        {
          SpxRowWork *w = &s->work[i];
          fill_row (w, csr, r, from + first * block_bytes, block_bytes,
                    csr->col_indices + first);
          w->task.b_scale = s->bcol_rows * (guint32) s->ldp;
          if (w->edge_values != NULL)
            w->edge_b_offset = w->task.b_offsets[w->task.n_blocks] *
                               w->task.b_scale;
          continue;
        }
      if (n > 0) /* values may be NULL for a pattern without blocks */
        memcpy (to + placed * block_bytes, from + first * block_bytes,
                n * block_bytes);
      fill_row (&s->work[i], csr, r, to + placed * block_bytes, block_bytes,
                s->b_offsets + placed);
      fill_offsets (&s->work[i], csr->col_indices + first,
                    (guint64) s->bcol_rows * s->ldp);
      placed += n;
    }
}

void *
spx_engine_alloc (gsize bytes)
{
  void *p = NULL;
  if (bytes >= HUGE_PAGE / 2)
    {
      gsize size = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
      if (posix_memalign (&p, HUGE_PAGE, size) != 0)
        return NULL;
      madvise (p, size, MADV_HUGEPAGE); /* a hint; fine if refused */
      return p;
    }
  return posix_memalign (&p, 64, MAX (bytes, 1)) == 0 ? p : NULL;
}

typedef struct {
  float *data;
  gsize  bytes;
} Workspace;

static void
workspace_free (gpointer p)
{
  Workspace *w = p;
  free (w->data);
  g_free (w);
}

/* The panel buffer of the calling thread, kept for its next calls: a
 * fresh one would cost page faults on every run. NULL when out of memory
 * (the smaller one it had is kept). */
static float *
workspace_get (gsize bytes)
{
  static GPrivate key = G_PRIVATE_INIT (workspace_free);
  Workspace *w = g_private_get (&key);
  if (w == NULL)
    {
      w = g_new0 (Workspace, 1);
      g_private_set (&key, w);
    }
  if (w->bytes < bytes)
    {
      float *data = spx_engine_alloc (bytes);
      if (data == NULL)
        return NULL;
      free (w->data);
      w->data = data;
      w->bytes = bytes;
    }
  return w->data;
}

static gsize
panel_bytes (const SpxSchedule *s)
{
  return s->panel_rows / s->b * s->bcol_rows * s->ldp * s->element_bytes;
}

gboolean
spx_schedule_reserve (SpxSchedule *s, const char *what, GError **error)
{
  if (workspace_get (panel_bytes (s)) != NULL)
    return TRUE;
  g_autofree char *size = g_format_size_full (panel_bytes (s),
                                              G_FORMAT_SIZE_IEC_UNITS);
  g_set_error (error, SPX_BUDGET_ERROR, SPX_BUDGET_ERROR_TOO_LARGE,
               "%s: could not get %s of memory for the panel of B", what,
               size);
  return FALSE;
}

/* This thread's share of the rows of B's panel starting at column j0. */
static void
pack_rows (const SpxSchedule *s, const float *B, float *panel, guint64 j0,
           guint64 width, guint tid, guint team)
{
  guint64 r0 = s->k * tid / team, r1 = s->k * (tid + 1) / team;
  for (guint64 r = r0; r < r1; r++)
    memcpy (panel + r * s->ldp, B + r * s->n + j0, width * sizeof (float));
}

/* This thread's share of the block-columns of a bf16 panel, packed by
 * its set. */
static void
pack_bf16 (const SpxSchedule *s, const guint16 *B, void *panel, guint64 j0,
           guint64 width, guint tid, guint team)
{
  guint64 bcols = s->panel_rows / s->b;
  guint64 c0 = bcols * tid / team, c1 = bcols * (tid + 1) / team;
  SpxBf16Pack pack = spx_kernel_set_bf16 (s->bf16_isa)->pack (s->b);
  pack (B + j0, s->n, s->k, s->b, c0, c1, width, panel, s->ldp);
}

static void
pack_part (const SpxSchedule *s, const void *B, void *panel, guint64 j0,
           guint64 width, guint tid, guint team)
{
  if (s->bf16)
    pack_bf16 (s, B, panel, j0, width, tid, team);
  else
    pack_rows (s, B, panel, j0, width, tid, team);
}

/* Thread t's rows on the panel of columns j0 .. j0 + width. */
static void
run_part (const SpxSchedule *s, SpxIsa isa, const void *panel, guint t,
          float *C, guint64 width, gboolean accumulate)
{
  const SpxRowWork *work = s->work + s->start[t];
  gsize n_work = s->start[t + 1] - s->start[t];
  if (s->bf16)
    spx_kernel_run_bf16 (s->bf16_isa, work, n_work, panel, s->ldp, C, s->n,
                         width, accumulate);
  else
    spx_kernel_run (isa, work, n_work, panel, s->ldp, C, s->n, width,
                    accumulate);
}

/* SPX_TEST_SHARED_PANEL=1: every run shares one panel, as when the
 * threads' own cannot be had (the tests' way to reach that path). */
static gboolean
shared_panel_forced (void)
{
  return g_strcmp0 (g_getenv ("SPX_TEST_SHARED_PANEL"), "1") == 0;
}

static void
run (SpxSchedule *s, SpxIsa isa, const void *B, float *C,
     gboolean accumulate)
{
  guint n_threads = s->n_threads;
  float *panel = workspace_get (panel_bytes (s));
  /* Plans reserve it on the thread that makes them; only a run on another
   * thread, with memory exhausted, gets here without one. */
  if (panel == NULL)
    g_error ("out of memory for a %" G_GSIZE_FORMAT "-byte panel",
             panel_bytes (s));
  gint missing = shared_panel_forced ();
#pragma omp parallel num_threads (n_threads)
  {
    guint tid = (guint) omp_get_thread_num ();
    guint team = (guint) omp_get_num_threads ();
    /* Each thread packs the whole panel into one of its own: reading a
     * panel half packed on another core costs more, where the cores
     * share no cache, than packing it again. Without the memory for
     * every thread's, they share one. */
    void *mine = team > 1 ? workspace_get (panel_bytes (s)) : panel;
    if (mine == NULL)
      g_atomic_int_set (&missing, 1);
#pragma omp barrier
    gboolean own = !g_atomic_int_get (&missing);
    for (guint64 j0 = 0; j0 < s->n; j0 += s->nc)
      {
        guint64 width = MIN (s->nc, s->n - j0);
        pack_part (s, B, own ? mine : panel, j0, width, own ? 0 : tid,
                   own ? 1 : team);
        if (!own)
          {
#pragma omp barrier
          }
        /* The team may be smaller than asked (nested regions): stride. */
        for (guint t = tid; t < n_threads; t += team)
          run_part (s, isa, own ? mine : panel, t, C + j0, width,
                    accumulate);
        if (!own)
          {
#pragma omp barrier
          }
      }
  }
}

void
spx_schedule_run (SpxSchedule *s, SpxIsa isa, const float *B, float *C,
                  gboolean accumulate)
{
  g_return_if_fail (!s->bf16);
  run (s, isa, B, C, accumulate);
}

void
spx_schedule_run_bf16 (SpxSchedule *s, const guint16 *B, float *C,
                       gboolean accumulate)
{
  g_return_if_fail (s->bf16);
  run (s, s->bf16_isa, B, C, accumulate);
}

const char *
spx_engine_kernel (SpxCpuType type, SpxIsa isa, guint b)
{
  return type == SPX_CPU_BF16 ? spx_kernel_set_bf16 (isa)->name (b)
                              : spx_kernel_name (isa);
}

guint
spx_engine_threads (const SpxEngineOptions *options)
{
  return options->threads ? options->threads : (guint) omp_get_max_threads ();
}

gboolean
spx_engine_check_type (const SpxEngineOptions *options, GError **error)
{
  if (options->type == SPX_CPU_FP32 || options->type == SPX_CPU_BF16)
    return TRUE;
  g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID,
               "number format %d: expected fp32 or bf16", options->type);
  return FALSE;
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
  /* Offsets into B's panel are 32-bit (half the index memory of 64-bit
   * ones): k·ldp < 2^32 since the panel is at most 528 floats wide. */
  if (k >= G_GUINT64_CONSTANT (1) << 22 || m * n >= G_MAXINT64 / 4)
    {
      g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID,
                   "k = %" G_GUINT64_FORMAT ": the engine supports k < 2^22",
                   k);
      return FALSE;
    }
  return TRUE;
}
