/* spx-sddmm-panel.h: SDDMM against a packed block-column of Q, written
 * once and included per vector width (an ISA file may include it more
 * than once: AVX-512 also runs 8- and 4-float blocks in ymm and xmm). The
 * includer defines
 *   PANEL_BITS (the vector width: 128, 256 or 512),
 *   PANEL_R1, PANEL_R2, PANEL_R4 (rows per tile for blocks 1, 2 and 4
 *   vectors wide: R·V accumulators), PANEL_NAME (x) (x made unique to
 *   this width) and PANEL_TABLE (the entry point's name);
 * this header undefines them all at its end.
 *
 * SpMM's register tile turned around: R rows × V vectors of a block's
 * columns stay in registers over all of kd; per step t the V vectors of
 * the panel's row t (Q's column t) are loaded once and each row's P[r][t]
 * is broadcast against them. The rows of a tile may come from different
 * blocks of the column, so narrow blocks still fill a tile. Every entry
 * is one chain of fused multiply-adds in t order, whatever the width. */

#include <string.h>

/* The vector type and operations for that width; PANEL_VW floats. */
#if PANEL_BITS == 512
#define PANEL_VEC __m512
#define PANEL_LOAD(p) _mm512_loadu_ps (p)
#define PANEL_STORE(p, x) _mm512_storeu_ps (p, x)
#define PANEL_ZERO() _mm512_setzero_ps ()
#define PANEL_SET1(x) _mm512_set1_ps (x)
#define PANEL_FMA(a, b, c) _mm512_fmadd_ps (a, b, c)
#elif PANEL_BITS == 256
#define PANEL_VEC __m256
#define PANEL_LOAD(p) _mm256_loadu_ps (p)
#define PANEL_STORE(p, x) _mm256_storeu_ps (p, x)
#define PANEL_ZERO() _mm256_setzero_ps ()
#define PANEL_SET1(x) _mm256_set1_ps (x)
#define PANEL_FMA(a, b, c) _mm256_fmadd_ps (a, b, c)
#elif PANEL_BITS == 128
#define PANEL_VEC __m128
#define PANEL_LOAD(p) _mm_loadu_ps (p)
#define PANEL_STORE(p, x) _mm_storeu_ps (p, x)
#define PANEL_ZERO() _mm_setzero_ps ()
#define PANEL_SET1(x) _mm_set1_ps (x)
#define PANEL_FMA(a, b, c) _mm_fmadd_ps (a, b, c)
#else
#error "PANEL_BITS: expected 128, 256 or 512"
#endif
#define PANEL_VW (PANEL_BITS / 32)

INLINE void
PANEL_NAME (tile) (const float *const *p, float *const *o, guint64 kd,
                   const float *Qt, guint R, guint V)
{
  const guint b = PANEL_VW * V;
  const float *pr[16];
  PANEL_VEC c[16][4];

#pragma GCC unroll 16
  for (guint r = 0; r < R; r++)
    {
      pr[r] = p[r];
#pragma GCC unroll 4
      for (guint v = 0; v < V; v++)
        c[r][v] = PANEL_ZERO ();
    }
  for (guint64 t = 0; t < kd; t++, Qt += b)
    {
      PANEL_VEC x[4];
#pragma GCC unroll 4
      for (guint v = 0; v < V; v++)
        x[v] = PANEL_LOAD (Qt + PANEL_VW * v);
#pragma GCC unroll 16
      for (guint r = 0; r < R; r++)
        {
          PANEL_VEC s = PANEL_SET1 (pr[r][t]);
#pragma GCC unroll 4
          for (guint v = 0; v < V; v++)
            c[r][v] = PANEL_FMA (s, x[v], c[r][v]);
        }
    }
#pragma GCC unroll 16
  for (guint r = 0; r < R; r++)
#pragma GCC unroll 4
    for (guint v = 0; v < V; v++)
      PANEL_STORE (o[r] + PANEL_VW * v, c[r][v]);
}

/* n rows: R at a time, then R/2, then one at a time. */
INLINE void
PANEL_NAME (rows) (const float *const *p, float *const *o, guint n,
                   guint64 kd, const float *Qt, guint V, guint R)
{
  guint r = 0;

  for (; r + R <= n; r += R)
    PANEL_NAME (tile) (p + r, o + r, kd, Qt, R, V);
  if (R > 1 && r + R / 2 <= n)
    {
      PANEL_NAME (tile) (p + r, o + r, kd, Qt, R / 2, V);
      r += R / 2;
    }
  for (; r < n; r++)
    PANEL_NAME (tile) (p + r, o + r, kd, Qt, 1, V);
}

#define PANEL_WIDTH(N, R) \
  static void \
  PANEL_NAME (rows_##N##v) (const float *const *p, float *const *o, \
                            guint n, guint64 kd, const float *Qt) \
  { \
    PANEL_NAME (rows) (p, o, n, kd, Qt, N, R); \
  }

PANEL_WIDTH (1, PANEL_R1)
PANEL_WIDTH (2, PANEL_R2)
PANEL_WIDTH (4, PANEL_R4)
#undef PANEL_WIDTH

static SpxSddmmPanel
PANEL_TABLE (guint b)
{
  switch (b)
    {
    case PANEL_VW: return PANEL_NAME (rows_1v);
    case 2 * PANEL_VW: return PANEL_NAME (rows_2v);
    case 4 * PANEL_VW: return PANEL_NAME (rows_4v);
    default: return NULL;
    }
}

#undef PANEL_BITS
#undef PANEL_VEC
#undef PANEL_VW
#undef PANEL_LOAD
#undef PANEL_STORE
#undef PANEL_ZERO
#undef PANEL_SET1
#undef PANEL_FMA
#undef PANEL_R1
#undef PANEL_R2
#undef PANEL_R4
#undef PANEL_NAME
#undef PANEL_TABLE
