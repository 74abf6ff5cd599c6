/* spx-sddmm-block.h: one block of SDDMM (the entries of P·Qᵀ a pattern
 * keeps), written once and compiled per instruction set: each ISA file of
 * the kernels includes it after defining SDDMM_BLOCK, the name of its
 * (static) kernel. It serves the block sizes that have no packed kernel
 * (spx-sddmm-panel.h); with SDDMM_PACK defined (x86, SSE at least) it
 * also gives the packed kernels' packing, under that name. Vector width changes the order of a dot product's
 * sums, so results differ in the last bits between instruction sets,
 * never between thread counts. */

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
SDDMM_BLOCK (const float *P, const float *Q, guint64 kd, guint b,
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

#ifdef SDDMM_PACK

/* Row c of Q at t, four floats, or zeros past Q's last row. */
static inline __m128
pack_row (const float *q, guint64 kd, guint c, guint cols, guint64 t)
{
  return c < cols ? _mm_loadu_ps (q + c * kd + t) : _mm_setzero_ps ();
}

/* 4×4 transposes in SSE registers: a quarter of the loads and stores of
 * copying floats one at a time, which took a sixth of SDDMM's time at
 * b = 16. */
static void
SDDMM_PACK (const float *q, guint64 kd, guint b, guint cols, float *panel)
{
  guint64 t = 0;

  for (; t + 4 <= kd; t += 4)
    for (guint c = 0; c < b; c += 4)
      {
        __m128 r0 = pack_row (q, kd, c, cols, t);
        __m128 r1 = pack_row (q, kd, c + 1, cols, t);
        __m128 r2 = pack_row (q, kd, c + 2, cols, t);
        __m128 r3 = pack_row (q, kd, c + 3, cols, t);
        _MM_TRANSPOSE4_PS (r0, r1, r2, r3);
        _mm_storeu_ps (panel + t * b + c, r0);
        _mm_storeu_ps (panel + (t + 1) * b + c, r1);
        _mm_storeu_ps (panel + (t + 2) * b + c, r2);
        _mm_storeu_ps (panel + (t + 3) * b + c, r3);
      }
  for (; t < kd; t++)
    for (guint c = 0; c < b; c++)
      panel[t * b + c] = c < cols ? q[c * kd + t] : 0.0f;
}

#endif
