/* spx-probe-avx2.c: the 256-bit FMA peak (compiled with AVX2 and FMA) */
#include "spx-probe.h"

#include <immintrin.h>

double
spx_probe_fma_avx2 (guint64 iters, float *keep)
{
  __m256 a[10], x = _mm256_set1_ps (1.0f), y = _mm256_set1_ps (1e-7f);
  for (guint i = 0; i < 10; i++)
    a[i] = _mm256_set1_ps ((float) i);
  for (guint64 it = 0; it < iters; it++)
    for (guint i = 0; i < 10; i++) /* ten chains hide the FMA's latency */
      a[i] = _mm256_fmadd_ps (a[i], x, y);
  __m256 s = a[0];
  for (guint i = 1; i < 10; i++)
    s = _mm256_add_ps (s, a[i]);
  *keep += _mm256_cvtss_f32 (s);
  return (double) iters * 10 * 8 * 2;
}
