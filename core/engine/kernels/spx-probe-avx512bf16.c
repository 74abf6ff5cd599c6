/* spx-probe-avx512bf16.c: vdpbf16ps's peak (compiled with AVX512_BF16) */
#include "spx-probe.h"

#include <immintrin.h>

double
spx_probe_dpbf16 (guint64 iters, float *keep)
{
  __m512 a[12];
  __m512bh x = (__m512bh) _mm512_set1_epi16 (0x3f80); /* 1.0 */
  __m512bh y = (__m512bh) _mm512_set1_epi16 (0x3380); /* 2^-24 */
  for (guint i = 0; i < 12; i++)
    a[i] = _mm512_set1_ps ((float) i);
  for (guint64 it = 0; it < iters; it++)
    for (guint i = 0; i < 12; i++)
      a[i] = _mm512_dpbf16_ps (a[i], x, y);
  __m512 s = a[0];
  for (guint i = 1; i < 12; i++)
    s = _mm512_add_ps (s, a[i]);
  *keep += _mm512_reduce_add_ps (s);
  return (double) iters * 12 * 32 * 2; /* 32 products a lane pair */
}
