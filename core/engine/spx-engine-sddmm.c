/* spx-engine-sddmm.c: sampled dense-dense product: the entries of P·Qᵀ
 * that a block-sparse pattern keeps, and nothing else (Sputnik's SDDMM) */
#include "spx-engine.h"
#include "spx-bf16.h"
#include "spx-kernels.h"
#include "spx-engine-tune.h"

#include <omp.h>
#include <string.h>

/* SDDMM's kernels in fp32 or in bf16 (the other ones NULL): one block
 * at a time from P and Q, or (panel and pack non-NULL) rows against a
 * packed block-column of Q. Everything up to the kernels handles P, Q
 * and the panel as elements of esize bytes. */
typedef struct {
  gsize             esize;
  SpxSddmmBlock     block;
  SpxSddmmPanel     panel;
  SpxSddmmPack      pack;
  SpxSddmmBlockBf16 block_bf16;
  SpxSddmmPanelBf16 panel_bf16;
  SpxSddmmPackBf16  pack_bf16;
} Kernel;

/* Row (or block-row) i of a kd-wide matrix of esize-byte elements. */
static inline gconstpointer
row_at (const Kernel *kern, gconstpointer x, guint64 kd, guint64 i)
{
  return (const guint8 *) x + i * kd * kern->esize;
}

/* One block, from block-row br of P and block-column bc of Q. */
static void
kernel_block (const Kernel *kern, const SpxBlockCsr *pat, gconstpointer P,
              gconstpointer Q, guint64 kd, guint64 br, guint64 bc, float *out)
{
  guint64 b = pat->b;
  guint rows = (guint) MIN (b, pat->m - br * b);
  guint cols = (guint) MIN (b, pat->k - bc * b);
  gconstpointer p = row_at (kern, P, kd, br * b);
  gconstpointer q = row_at (kern, Q, kd, bc * b);

  if (kern->block_bf16 != NULL)
    kern->block_bf16 (p, q, kd, pat->b, rows, cols, out);
  else
    kern->block (p, q, kd, pat->b, rows, cols, out);
}

/* Blocks [first, last) of the pattern, in order, from the rows of P and
 * Q. */
static void
run_range (const Kernel *kern, const SpxBlockCsr *pat, gconstpointer P,
           gconstpointer Q, guint64 kd, float *out, guint64 first,
           guint64 last)
{
  const guint64 *off = pat->row_offsets;
  guint64 b = pat->b, lo = 0, hi = pat->brows;

  if (first >= last)
    return;
  /* The block-row holding block first: the last br with off[br] ≤ first. */
  while (hi - lo > 1)
    {
      guint64 mid = lo + (hi - lo) / 2;
      if (off[mid] <= first)
        lo = mid;
      else
        hi = mid;
    }
  for (guint64 i = first, br = lo; i < last; i++)
    {
      while (off[br + 1] <= i)
        br++;
      kernel_block (kern, pat, P, Q, kd, br, pat->col_indices[i],
                    out + i * b * b);
    }
}

/* The packed path visits the blocks column by column: each thread packs
 * a block-column of Q once into its panel (kd×b, L1- or L2-sized) and
 * runs all that column's blocks of its chunk against it. Chunks end at
 * column boundaries unless a column alone is longer than a chunk. */
typedef struct {
  guint64 *order;  /* pattern index of each block, by block-column */
  guint64 *brow;   /* its block-row */
  guint64 *cuts;   /* chunk c is [cuts[c], cuts[c + 1]) of order */
  guint64  n_chunks;
} ByColumn;

static void
by_column_clear (ByColumn *bycol)
{
  g_free (bycol->order);
  g_free (bycol->brow);
  g_free (bycol->cuts);
}

static void
by_column_init (ByColumn *bycol, const SpxBlockCsr *pat, guint64 target)
{
  guint64 n = pat->n_blocks, bcols = pat->bcols, last = 0;
  g_autofree guint64 *start = g_new0 (guint64, bcols + 1);

  for (guint64 i = 0; i < n; i++)
    start[pat->col_indices[i] + 1]++;
  for (guint64 bc = 0; bc < bcols; bc++)
    start[bc + 1] += start[bc];
  g_autofree guint64 *next = g_memdup2 (start, bcols * sizeof (guint64));
  bycol->order = g_new (guint64, n);
  bycol->brow = g_new (guint64, n);
  for (guint64 br = 0; br < pat->brows; br++)
    for (guint64 i = pat->row_offsets[br]; i < pat->row_offsets[br + 1]; i++)
      {
        guint64 j = next[pat->col_indices[i]]++;
        bycol->order[j] = i;
        bycol->brow[j] = br;
      }
  /* at most one cut per column and one per target blocks */
  bycol->cuts = g_new (guint64, bcols + n / target + 2);
  bycol->n_chunks = 0;
  bycol->cuts[0] = 0;
  for (guint64 bc = 0; bc < bcols; bc++)
    {
      if (start[bc + 1] - last > target && start[bc] > last)
        bycol->cuts[++bycol->n_chunks] = last = start[bc];
      while (start[bc + 1] - last > target)
        bycol->cuts[++bycol->n_chunks] = last += target;
    }
  if (last < n)
    bycol->cuts[++bycol->n_chunks] = n;
}

/* Rows waiting for the kernel, all of one block-column. */
#define BATCH 64
typedef struct {
  gconstpointer p[BATCH];
  float        *o[BATCH];
  guint         n;
} Rows;

/* The kernel on the rows, their pointers handed over in its type. */
static void
kernel_rows (const Kernel *kern, const Rows *rows, guint64 kd, guint b,
             gconstpointer panel)
{
  if (kern->panel_bf16 != NULL)
    {
      const guint16 *p[BATCH];
      for (guint i = 0; i < rows->n; i++)
        p[i] = rows->p[i];
      kern->panel_bf16 (p, rows->o, rows->n, kd, b, panel);
    }
  else
    {
      const float *p[BATCH];
      for (guint i = 0; i < rows->n; i++)
        p[i] = rows->p[i];
      kern->panel (p, rows->o, rows->n, kd, panel);
    }
}

/* Block-column bc of Q (cols rows from row bc·b) into the panel. */
static void
kernel_pack (const Kernel *kern, gconstpointer Q, guint64 kd, guint b,
             guint64 bc, guint cols, gpointer panel)
{
  gconstpointer q = row_at (kern, Q, kd, bc * b);

  if (kern->pack_bf16 != NULL)
    kern->pack_bf16 (q, kd, b, cols, panel);
  else
    kern->pack (q, kd, b, cols, panel);
}

/* Run the rows against the panel of block-column bc, then zero what lies
 * past k in each (whatever P holds: 0 × ∞ would not be 0). */
static void
flush (const Kernel *kern, const SpxBlockCsr *pat, Rows *rows, guint64 kd,
       guint64 bc, gconstpointer panel)
{
  guint64 b = pat->b, cols = MIN (b, pat->k - bc * b);

  kernel_rows (kern, rows, kd, pat->b, panel);
  for (guint i = 0; cols < b && i < rows->n; i++)
    memset (rows->o[i] + cols, 0, (b - cols) * sizeof (float));
  rows->n = 0;
}

/* One chunk of the by-column order, a block-column's rows at a time (up
 * to BATCH, so that narrow blocks fill the kernel's tiles); panel holds
 * block-column *packed. Rows past m are zeroed. */
static void
run_chunk (const Kernel *kern, const SpxBlockCsr *pat, const ByColumn *bycol,
           guint64 chunk, gconstpointer P, gconstpointer Q, guint64 kd,
           float *out, gpointer panel, guint64 *packed)
{
  guint64 b = pat->b;
  Rows rows;

  rows.n = 0;
  for (guint64 j = bycol->cuts[chunk]; j < bycol->cuts[chunk + 1]; j++)
    {
      guint64 i = bycol->order[j], br = bycol->brow[j];
      guint64 bc = pat->col_indices[i], have = MIN (b, pat->m - br * b);
      float *o = out + i * b * b;
      if (bc != *packed)
        {
          if (rows.n > 0)
            flush (kern, pat, &rows, kd, *packed, panel);
          *packed = bc;
          kernel_pack (kern, Q, kd, pat->b, bc,
                       (guint) MIN (b, pat->k - bc * b), panel);
        }
      for (guint64 r = 0; r < have; r++)
        {
          if (rows.n == BATCH)
            flush (kern, pat, &rows, kd, bc, panel);
          rows.p[rows.n] = row_at (kern, P, kd, br * b + r);
          rows.o[rows.n++] = o + r * b;
        }
      memset (o + have * b, 0, (b - have) * b * sizeof (float));
    }
  if (rows.n > 0)
    flush (kern, pat, &rows, kd, *packed, panel);
}

/* Elements of a panel (as SpxSddmmPack and SpxSddmmPackBf16 say), or 0
 * when that many bytes per thread would not fit in a gsize. */
static guint64
panel_len (const Kernel *kern, guint64 b, guint64 kd, int threads)
{
  guint64 limit = G_MAXSIZE / kern->esize / (guint64) threads;

  if (kern->pack_bf16 != NULL)
    {
      guint64 most = limit / 2 / (b + 15);
      return most > 32 && kd < most - 32 ? 2 * (b + 15) * (kd + 32) : 0;
    }
  return limit / b > 3 && kd < limit / b - 3 ? b * (kd + 3) : 0;
}

/* The packed path on threads threads: a panel each, chunks handed out
 * dynamically. FALSE when the panels do not fit in memory. */
static gboolean
run_panels (const Kernel *kern, const SpxBlockCsr *pat, gconstpointer P,
            gconstpointer Q, guint64 kd, float *out, guint64 target,
            int threads, GError **error)
{
  guint64 len = panel_len (kern, pat->b, kd, threads);
  g_autofree gpointer *panels = g_new0 (gpointer, threads);
  gboolean ok = len > 0;

  for (int i = 0; ok && i < threads; i++)
    ok = (panels[i] = g_try_malloc (len * kern->esize)) != NULL;
  if (ok)
    {
      ByColumn bycol;
      by_column_init (&bycol, pat, target);
#pragma omp parallel num_threads (threads)
      {
        guint64 packed = G_MAXUINT64;
        gpointer panel = panels[omp_get_thread_num ()];
#pragma omp for schedule (dynamic, 1)
        for (guint64 c = 0; c < bycol.n_chunks; c++)
          run_chunk (kern, pat, &bycol, c, P, Q, kd, out, panel, &packed);
      }
      by_column_clear (&bycol);
    }
  else
    g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_NO_MEMORY,
                 "no memory for %d panels of Q (%" G_GUINT64_FORMAT
                 " elements each)", threads, len);
  for (int i = 0; i < threads; i++)
    g_free (panels[i]);
  return ok;
}

/* What both dtypes refuse, and the same way. */
static gboolean
check (const SpxBlockCsr *pattern, guint64 kd, GError **error)
{
  if (kd == 0)
    {
      g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID,
                   "inner dimension kd is 0: expected at least 1");
      return FALSE;
    }
  return spx_block_csr_validate (pattern, error);
}

static int
max_threads (const SpxEngineOptions *options)
{
  return options != NULL && options->threads > 0
         ? (int) MIN (options->threads, (guint) G_MAXINT)
         : omp_get_max_threads ();
}

/* Chunks of consecutive blocks (sharing rows of P, or a column of Q)
 * handed out dynamically: edge blocks cost less, and a core busy
 * elsewhere should not hold the others up. A chunk is about 2^18
 * multiply-adds (2^22 for the packed path, so that a column's panel
 * serves many blocks), and there are a few per thread at least. Each
 * entry is computed whole by one thread, so the thread count never
 * changes a bit of the result. Returns the chunk's blocks; *threads
 * drops to the number of chunks. */
static guint64
chunking (const SpxBlockCsr *pattern, guint64 kd, gboolean packed,
          int *threads, guint64 *n_chunks)
{
  guint64 b = pattern->b, n_blocks = pattern->n_blocks;
  guint64 macs = G_GUINT64_CONSTANT (1) << (packed ? 22 : 18);
  guint64 chunk = MIN (macs / b / b / kd,
                       n_blocks / (4 * (guint64) *threads));

  chunk = MAX (chunk, 1);
  *n_chunks = (n_blocks + chunk - 1) / chunk;
  *threads = (int) MIN ((guint64) *threads, *n_chunks);
  return chunk;
}

/* The kernels for type's blocks of b at kd: options' pick (tuned
 * without options). */
static SpxIsa
options_isa (const SpxEngineOptions *options, SpxCpuType type, guint b,
             guint64 kd)
{
  static const SpxEngineOptions tuned = { .pick = SPX_PICK_TUNED };
  return spx_tune_choose (SPX_TUNE_SDDMM, type, b, kd,
                          options != NULL ? options : &tuned, NULL);
}

/* The packed path where the kernels have one for b, else block by
 * block; on at most options' threads. */
static gboolean
run (const Kernel *kern, const SpxBlockCsr *pattern, gconstpointer P,
     gconstpointer Q, guint64 kd, float *out,
     const SpxEngineOptions *options, GError **error)
{
  gboolean packed = kern->esize == sizeof (float)
                    ? kern->panel != NULL && kern->pack != NULL
                    : kern->panel_bf16 != NULL && kern->pack_bf16 != NULL;
  guint64 n_blocks = pattern->n_blocks, n_chunks;
  int threads = max_threads (options);
  guint64 chunk = chunking (pattern, kd, packed, &threads, &n_chunks);

  if (packed)
    return run_panels (kern, pattern, P, Q, kd, out, chunk, threads, error);
#pragma omp parallel for schedule (dynamic, 1) num_threads (threads)
  for (guint64 i = 0; i < n_chunks; i++)
    run_range (kern, pattern, P, Q, kd, out, i * chunk,
               MIN (n_blocks, (i + 1) * chunk));
  return TRUE;
}

gboolean
spx_sddmm (const SpxBlockCsr *pattern, const float *P, const float *Q,
           guint64 kd, float *out, const SpxEngineOptions *options,
           GError **error)
{
  g_return_val_if_fail (pattern != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check (pattern, kd, error))
    return FALSE;
  if (pattern->n_blocks == 0)
    return TRUE;
  g_return_val_if_fail (P != NULL && Q != NULL && out != NULL, FALSE);

  const SpxKernelSet *set = spx_kernel_set (options_isa (options, SPX_CPU_FP32,
                                                          pattern->b, kd));
  Kernel kern = { sizeof (float), set->sddmm, set->sddmm_panel (pattern->b),
                  set->sddmm_pack (pattern->b), NULL, NULL, NULL };
  return run (&kern, pattern, P, Q, kd, out, options, error);
}

/* n bf16 values widened to fp32 (exactly), or NULL without the memory. */
static float *
to_floats (const guint16 *x, guint64 n, int threads)
{
  float *f = n <= G_MAXSIZE / sizeof (float) ? g_try_new (float, n) : NULL;

  if (f != NULL)
    {
#pragma omp parallel for num_threads (threads)
      for (guint64 i = 0; i < n; i++)
        f[i] = spx_bf16_to_float (x[i]);
    }
  return f;
}

/* Without bf16 kernels: P and Q widened, then fp32's. Widening is exact,
 * so the results are fp32's on the rounded inputs. */
static gboolean
sddmm_widened (const SpxBlockCsr *pattern, const guint16 *P,
               const guint16 *Q, guint64 kd, float *out,
               const SpxEngineOptions *options, GError **error)
{
  int threads = max_threads (options);
  g_autofree float *P32 = NULL, *Q32 = NULL;

  if (pattern->m <= G_MAXUINT64 / kd && pattern->k <= G_MAXUINT64 / kd)
    {
      P32 = to_floats (P, pattern->m * kd, threads);
      Q32 = to_floats (Q, pattern->k * kd, threads);
    }
  if (P32 == NULL || Q32 == NULL)
    {
      g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_NO_MEMORY,
                   "no memory for P and Q in fp32 (%" G_GUINT64_FORMAT
                   " and %" G_GUINT64_FORMAT " rows of %" G_GUINT64_FORMAT
                   ")", pattern->m, pattern->k, kd);
      return FALSE;
    }
  return spx_sddmm (pattern, P32, Q32, kd, out, options, error);
}

gboolean
spx_sddmm_bf16 (const SpxBlockCsr *pattern, const guint16 *P,
                const guint16 *Q, guint64 kd, float *out,
                const SpxEngineOptions *options, GError **error)
{
  g_return_val_if_fail (pattern != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check (pattern, kd, error))
    return FALSE;
  if (pattern->n_blocks == 0)
    return TRUE;
  g_return_val_if_fail (P != NULL && Q != NULL && out != NULL, FALSE);

  const SpxSddmmSetBf16 *set = spx_sddmm_set_bf16 (
    options_isa (options, SPX_CPU_BF16, pattern->b, kd));
  if (set == NULL)
    return sddmm_widened (pattern, P, Q, kd, out, options, error);
  Kernel kern = { sizeof (guint16), NULL, NULL, NULL, set->sddmm,
                  set->sddmm_panel (pattern->b),
                  set->sddmm_pack (pattern->b) };
  return run (&kern, pattern, P, Q, kd, out, options, error);
}
