/* spx-probe-avx512.c: the 512-bit FMA peak, L2's read bandwidth and its
 * rate for rows gathered at random (compiled with AVX-512) */
#include "spx-probe.h"

#include <immintrin.h>

double
spx_probe_fma_avx512 (guint64 iters, float *keep)
{
  __m512 a[12], x = _mm512_set1_ps (1.0f), y = _mm512_set1_ps (1e-7f);
  for (guint i = 0; i < 12; i++)
    a[i] = _mm512_set1_ps ((float) i);
  for (guint64 it = 0; it < iters; it++)
    for (guint i = 0; i < 12; i++) /* twelve chains: two units × latency */
      a[i] = _mm512_fmadd_ps (a[i], x, y);
  __m512 s = a[0];
  for (guint i = 1; i < 12; i++)
    s = _mm512_add_ps (s, a[i]);
  *keep += _mm512_reduce_add_ps (s);
  return (double) iters * 12 * 16 * 2;
}

double
spx_probe_read_avx512 (const float *buf, gsize n, guint reps, float *keep)
{
  __m512 s0 = _mm512_setzero_ps (), s1 = s0, s2 = s0, s3 = s0;
  gsize whole = n / 64 * 64;
  for (guint r = 0; r < reps; r++)
    for (gsize i = 0; i < whole; i += 64) /* four lines a round */
      {
        s0 = _mm512_add_ps (s0, _mm512_loadu_ps (buf + i));
        s1 = _mm512_add_ps (s1, _mm512_loadu_ps (buf + i + 16));
        s2 = _mm512_add_ps (s2, _mm512_loadu_ps (buf + i + 32));
        s3 = _mm512_add_ps (s3, _mm512_loadu_ps (buf + i + 48));
      }
  s0 = _mm512_add_ps (_mm512_add_ps (s0, s1), _mm512_add_ps (s2, s3));
  *keep += _mm512_reduce_add_ps (s0);
  return (double) reps * whole * sizeof (float);
}

double
spx_probe_gather_avx512 (const float *panel, guint64 ldp, guint vectors,
                         const guint32 *rows, gsize n_rows, float *keep)
{
  __m512 s[16];
  for (guint v = 0; v < 16; v++)
    s[v] = _mm512_setzero_ps ();
  vectors = MIN (vectors, 16);
  for (gsize i = 0; i < n_rows; i++)
    {
      const float *row = panel + rows[i] * ldp;
#pragma GCC unroll 16
      for (guint v = 0; v < 16; v++) /* constant v: s stays in registers */
        if (v < vectors)
          s[v] = _mm512_add_ps (s[v], _mm512_loadu_ps (row + 16 * v));
    }
  for (guint v = 1; v < 16; v++)
    s[0] = _mm512_add_ps (s[0], s[v]);
  *keep += _mm512_reduce_add_ps (s[0]);
  return (double) n_rows * vectors * 64;
}
