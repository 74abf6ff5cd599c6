/* spx-engine-sddmm.c: sampled dense-dense product: the entries of P·Qᵀ
 * that a block-sparse pattern keeps, and nothing else (Sputnik's SDDMM) */
#include "spx-engine.h"

#include <omp.h>
#include <string.h>

/* Each output entry is one dot product along kd, summed in a single
 * pass by one thread. "omp simd reduction" lets the compiler split the
 * sum into vector lanes (without it, strict float semantics forbid
 * vectorising a reduction); how it splits depends only on this code and
 * kd, never on the thread, so the thread count changes no bit. Plain
 * loops over hand-made lane arrays were tried first: GCC 12 vectorises
 * those well or very badly depending on their exact shape and -O level. */

static float
dot_1x1 (const float *p, const float *q, guint64 kd)
{
  float s = 0.0f;

#pragma omp simd reduction (+:s)
  for (guint64 t = 0; t < kd; t++)
    s += p[t] * q[t];
  return s;
}

/* One P row against four consecutive Q rows: each load of p feeds four
 * products. */
static void
dot_1x4 (const float *p, const float *q, guint64 kd, float *out)
{
  const float *q0 = q, *q1 = q + kd, *q2 = q1 + kd, *q3 = q2 + kd;
  float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;

#pragma omp simd reduction (+:s0, s1, s2, s3)
  for (guint64 t = 0; t < kd; t++)
    {
      s0 += p[t] * q0[t];
      s1 += p[t] * q1[t];
      s2 += p[t] * q2[t];
      s3 += p[t] * q3[t];
    }
  out[0] = s0;
  out[1] = s1;
  out[2] = s2;
  out[3] = s3;
}

/* Two P rows against four Q rows: eight sums, as many vector registers as
 * baseline SSE can hold with the six loads beside them. */
static void
dot_2x4 (const float *p0, const float *q, guint64 kd, float *out0,
         float *out1)
{
  const float *p1 = p0 + kd;
  const float *q0 = q, *q1 = q + kd, *q2 = q1 + kd, *q3 = q2 + kd;
  float s00 = 0.0f, s01 = 0.0f, s02 = 0.0f, s03 = 0.0f;
  float s10 = 0.0f, s11 = 0.0f, s12 = 0.0f, s13 = 0.0f;

#pragma omp simd reduction (+:s00, s01, s02, s03, s10, s11, s12, s13)
  for (guint64 t = 0; t < kd; t++)
    {
      s00 += p0[t] * q0[t];
      s01 += p0[t] * q1[t];
      s02 += p0[t] * q2[t];
      s03 += p0[t] * q3[t];
      s10 += p1[t] * q0[t];
      s11 += p1[t] * q1[t];
      s12 += p1[t] * q2[t];
      s13 += p1[t] * q3[t];
    }
  out0[0] = s00;
  out0[1] = s01;
  out0[2] = s02;
  out0[3] = s03;
  out1[0] = s10;
  out1[1] = s11;
  out1[2] = s12;
  out1[3] = s13;
}

/* Row r of a block, columns [from, cols), one row at a time. */
static void
row_sddmm (const float *p, const float *Q, guint64 kd, guint from,
           guint cols, float *out)
{
  guint c = from;

  for (; c + 4 <= cols; c += 4)
    dot_1x4 (p, Q + c * kd, kd, out + c);
  for (; c < cols; c++)
    out[c] = dot_1x1 (p, Q + c * kd, kd);
}

/* One rows×cols block (rows, cols ≤ b; fewer on the ragged edges) of
 * P·Qᵀ, P and Q pointing at the block's first rows: 2×4 tiles, then the
 * leftover columns and the leftover row. */
static void
block_sddmm (const float *P, const float *Q, guint64 kd, guint b,
             guint rows, guint cols, float *out)
{
  guint r = 0;

  if (rows < b || cols < b)
    memset (out, 0, (gsize) b * b * sizeof (float));
  for (; r + 2 <= rows; r += 2)
    {
      const float *p = P + r * kd;
      float *o0 = out + (gsize) r * b, *o1 = o0 + b;
      guint c = 0;
      for (; c + 4 <= cols; c += 4)
        dot_2x4 (p, Q + c * kd, kd, o0 + c, o1 + c);
      row_sddmm (p, Q, kd, c, cols, o0);
      row_sddmm (p + kd, Q, kd, c, cols, o1);
    }
  if (r < rows)
    row_sddmm (P + r * kd, Q, kd, 0, cols, out + (gsize) r * b);
}

/* Blocks [first, last) of the pattern, in order. */
static void
run_range (const SpxBlockCsr *pat, const float *P, const float *Q,
           guint64 kd, float *out, guint64 first, guint64 last)
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
      guint64 bc = pat->col_indices[i];
      guint rows = (guint) MIN (b, pat->m - br * b);
      guint cols = (guint) MIN (b, pat->k - bc * b);
      block_sddmm (P + br * b * kd, Q + bc * b * kd, kd, pat->b, rows, cols,
                   out + i * b * b);
    }
}

gboolean
spx_sddmm (const SpxBlockCsr *pattern, const float *P, const float *Q,
           guint64 kd, float *out, const SpxEngineOptions *options,
           GError **error)
{
  g_return_val_if_fail (pattern != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (kd == 0)
    {
      g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID,
                   "inner dimension kd is 0: expected at least 1");
      return FALSE;
    }
  if (!spx_block_csr_validate (pattern, error))
    return FALSE;

  guint64 n_blocks = pattern->n_blocks;
  if (n_blocks == 0)
    return TRUE;
  g_return_val_if_fail (P != NULL && Q != NULL && out != NULL, FALSE);

  /* Chunks of consecutive blocks (sharing P's rows) handed out
   * dynamically: edge blocks cost less, and a core busy elsewhere should
   * not hold the others up. A chunk is about 2^18 multiply-adds, and
   * there are a few per thread at least. Each entry is computed whole by
   * one thread, so the thread count never changes a bit of the result. */
  int threads = options != NULL && options->threads > 0
                ? (int) MIN (options->threads, (guint) G_MAXINT)
                : omp_get_max_threads ();
  guint64 b = pattern->b;
  guint64 chunk = MIN ((G_GUINT64_CONSTANT (1) << 18) / b / b / kd,
                       n_blocks / (4 * (guint64) threads));
  chunk = MAX (chunk, 1);
  guint64 n_chunks = (n_blocks + chunk - 1) / chunk;
  threads = (int) MIN ((guint64) threads, n_chunks);

#pragma omp parallel for schedule (dynamic, 1) num_threads (threads)
  for (guint64 i = 0; i < n_chunks; i++)
    run_range (pattern, P, Q, kd, out, i * chunk,
               MIN (n_blocks, (i + 1) * chunk));
  return TRUE;
}
