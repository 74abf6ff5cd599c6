/* spx-kernels-avx512bf16.c: bf16 SpMM with AVX512_BF16's vdpbf16ps,
 * which adds the products of a pair of bf16 to each fp32 lane: per lane
 * (a column of C) two steps of k at once. B's panel is therefore "VNNI":
 * each block-column's rows in pairs, the pair's two values of a column
 * side by side in 32 bits; an odd b is padded with a zero row. A's values
 * stay row-major b×b, so a row's two values for a pair are adjacent and
 * broadcast as one 32-bit word (the last one alone for an odd b). b = 1
 * pairs consecutive non-zeros of a row instead (see spmm_pairs). */
#include "spx-kernels-private.h"

#include <immintrin.h>
#include <string.h>

#define INLINE static inline __attribute__ ((always_inline))
#define MAX_R 16
#define MAX_V 8
#define VW 16 /* fp32 lanes, columns of C, per vector */

/* Rows R, vectors V (R·V accumulators of 32 zmm) and prefetch distance
 * D in blocks, per block size. Each pair step loads V vectors of B and
 * broadcasts R words of A for R·V dots: from b = 16 on, 8×2 (10 loads
 * per 16 dots) rather than 16×1 (17), which leaves the load ports, not
 * the dot units, the limit. */
#define SHAPE_2 2, 8, 2
#define SHAPE_4 4, 4, 2
#define SHAPE_8 8, 3, 2
#define SHAPE_16 8, 2, 1
#define SHAPE_32 8, 2, 1
#define SHAPE_ANY 4, 4, 1

typedef struct {
  const guint16 *values;
  const guint32 *b_offsets;
  guint64        b_scale; /* spx_task_scale */
  guint          n_blocks;
  const guint32 *B; /* pair-rows of the panel, as 32-bit words */
  guint64        ldb; /* words per pair-row */
  float         *C;
  guint64        ldc;
  gboolean       accumulate;
} PairTile;

/* Two bf16 at p as one word: the low half is p[0]. */
INLINE __m512i
broadcast_pair (const guint16 *p)
{
  guint32 w;
  memcpy (&w, p, sizeof w);
  return _mm512_set1_epi32 ((int) w);
}

INLINE __m512
dot (__m512 c, __m512i a, __m512i b)
{
  return _mm512_dpbf16_ps (c, (__m512bh) a, (__m512bh) b);
}

INLINE __m512
load_c (const float *p, gboolean masked, __mmask16 m)
{
  return masked ? _mm512_maskz_loadu_ps (m, p) : _mm512_loadu_ps (p);
}

INLINE void
store_c (float *p, __m512 x, gboolean masked, __mmask16 m)
{
  if (masked)
    _mm512_mask_storeu_ps (p, m, x);
  else
    _mm512_storeu_ps (p, x);
}

/* Rows r0..r0+R of a column tile of V vectors, the last masked by m. */
INLINE void
tile (const PairTile *t, guint b, guint r0, guint R, guint V, guint D,
      gboolean masked, __mmask16 m)
{
  __m512 c[MAX_R][MAX_V];
  float *cp = t->C + r0 * t->ldc;
  guint pairs = b / 2;

#pragma GCC unroll 16
  for (guint r = 0; r < R; r++)
#pragma GCC unroll 8
    for (guint v = 0; v < V; v++)
      c[r][v] = t->accumulate ? load_c (cp + r * t->ldc + VW * v,
                                        masked && v == V - 1, m)
                              : _mm512_setzero_ps ();

  const guint16 *a = t->values + (gsize) r0 * b;
  for (guint j = 0; j < t->n_blocks; j++, a += (gsize) b * b)
    {
      const guint32 *bp = t->B + t->b_offsets[j] * t->b_scale / 2;
      const guint32 *pf =
        t->B + t->b_offsets[MIN (j + D, t->n_blocks - 1)] * t->b_scale / 2;
#pragma GCC unroll 16
      for (guint p = 0; p < pairs + (b & 1); p++)
        {
          __m512i x[MAX_V];
#pragma GCC unroll 8
          for (guint v = 0; v < V; v++)
            {
              const guint32 *q = bp + p * t->ldb + VW * v;
              _mm_prefetch ((const char *) (pf + p * t->ldb + VW * v),
                            _MM_HINT_T0);
              x[v] = masked && v == V - 1 ? _mm512_maskz_loadu_epi32 (m, q)
                                          : _mm512_loadu_si512 (q);
            }
#pragma GCC unroll 16
          for (guint r = 0; r < R; r++)
            {
              /* an odd b's last value pairs with the padding's zero */
              __m512i s = p < pairs ? broadcast_pair (a + r * b + 2 * p)
                                    : _mm512_set1_epi32 (a[r * b + b - 1]);
#pragma GCC unroll 8
              for (guint v = 0; v < V; v++)
                c[r][v] = dot (c[r][v], s, x[v]);
            }
        }
    }

#pragma GCC unroll 16
  for (guint r = 0; r < R; r++)
#pragma GCC unroll 8
    for (guint v = 0; v < V; v++)
      store_c (cp + r * t->ldc + VW * v, c[r][v], masked && v == V - 1, m);
}

INLINE void
col_tile (const PairTile *t, guint b, guint rows, guint R, guint V, guint D,
          gboolean masked, __mmask16 m)
{
  guint r0 = 0;

  for (; r0 + R <= rows; r0 += R)
    tile (t, b, r0, R, V, D, masked, m);
  for (; r0 < rows; r0++)
    tile (t, b, r0, 1, V, D, masked, m);
}

/* The last, narrower column tile: nv vectors, the last one masked. */
INLINE void
col_tail (const PairTile *t, guint b, guint rows, guint R, guint V, guint D,
          guint64 w)
{
  guint nv = (guint) (w + VW - 1) / VW;
  __mmask16 m = (__mmask16) ((1u << (w - VW * (nv - 1))) - 1);

  switch (nv)
    {
#define TAIL(N) \
    case N: \
      if (V >= N) \
        col_tile (t, b, rows, R, N, D, TRUE, m); \
      break;
    TAIL (1) TAIL (2) TAIL (3) TAIL (4) TAIL (5) TAIL (6) TAIL (7) TAIL (8)
#undef TAIL
    default:
      g_assert_not_reached ();
    }
}

INLINE void
block_row (const SpxRowTask *task, const void *panel, guint64 ldb,
           float *C, guint64 ldc, guint64 n, gboolean accumulate, guint b,
           guint R, guint V, guint D)
{
  const guint64 width = VW * V;
  PairTile t = { task->values_bf16, task->b_offsets, spx_task_scale (task),
                 task->n_blocks, panel, ldb, C, ldc, accumulate };
  guint64 j0 = 0;

  if (task->n_blocks == 0 && accumulate)
    return;
  for (; j0 + width <= n; j0 += width, t.B += width, t.C += width)
    col_tile (&t, b, task->rows, R, V, D, FALSE, 0xffff);
  if (j0 < n)
    col_tail (&t, b, task->rows, R, V, D, n - j0);
}

/* b = 1: two consecutive non-zeros of the row (values j, j + 1, adjacent
 * in memory) make the pair, their two rows of B (a plain bf16 panel) are
 * interleaved on the fly: unpacklo/hi of 32 columns give the pairs of
 * columns 0–3, 8–11, 16–19, 24–27 and 4–7, 12–15, 20–23, 28–31. C stays
 * in that order in registers and is put back in place at the store. */
#define PAIR_G 4 /* groups of 32 columns per tile */
#define PAIR_D 8 /* prefetch distance, in non-zeros */

static const int to_lo[16] = { 0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19,
                               24, 25, 26, 27 };
static const int from_pairs[16] = { 0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7,
                                    20, 21, 22, 23 };

/* The w ≤ 32 columns of C at p into unpack order (lo, hi). */
INLINE void
c_to_pairs (const float *p, guint w, __m512 *lo, __m512 *hi)
{
  __mmask16 m0 = (__mmask16) (w >= 16 ? 0xffff : (1u << w) - 1);
  __mmask16 m1 = (__mmask16) (w >= 32 ? 0xffff : w > 16 ? (1u << (w - 16)) - 1
                                                         : 0);
  __m512 c0 = _mm512_maskz_loadu_ps (m0, p);
  __m512 c1 = _mm512_maskz_loadu_ps (m1, p + 16);
  __m512i lo_idx = _mm512_loadu_si512 (to_lo);
  __m512i hi_idx = _mm512_add_epi32 (lo_idx, _mm512_set1_epi32 (4));
  *lo = _mm512_permutex2var_ps (c0, lo_idx, c1);
  *hi = _mm512_permutex2var_ps (c0, hi_idx, c1);
}

INLINE void
pairs_to_c (float *p, guint w, __m512 lo, __m512 hi)
{
  __mmask16 m0 = (__mmask16) (w >= 16 ? 0xffff : (1u << w) - 1);
  __mmask16 m1 = (__mmask16) (w >= 32 ? 0xffff : w > 16 ? (1u << (w - 16)) - 1
                                                         : 0);
  __m512i idx0 = _mm512_loadu_si512 (from_pairs);
  __m512i idx1 = _mm512_add_epi32 (idx0, _mm512_set1_epi32 (8));
  _mm512_mask_storeu_ps (p, m0, _mm512_permutex2var_ps (lo, idx0, hi));
  _mm512_mask_storeu_ps (p + 16, m1, _mm512_permutex2var_ps (lo, idx1, hi));
}

INLINE __m512i
load_row (const guint16 *p, guint w)
{
  __mmask32 m = w >= 32 ? 0xffffffffu : (1u << w) - 1;
  return w >= 32 ? _mm512_loadu_si512 (p) : _mm512_maskz_loadu_epi16 (m, p);
}

/* G groups of 32 columns from column 0 of B and C; w columns in all
 * (the last group may be partial). */
INLINE void
pair_tile (const SpxRowTask *task, const guint16 *B, float *C, guint G,
           guint64 w, gboolean accumulate)
{
  __m512 lo[PAIR_G], hi[PAIR_G];
  const guint16 *v = task->values_bf16;
  const guint32 *off = task->b_offsets;
  guint64 sc = spx_task_scale (task);
  guint nb = task->n_blocks, j = 0;

#pragma GCC unroll 4
  for (guint g = 0; g < G; g++)
    if (accumulate)
      c_to_pairs (C + 32 * g, (guint) MIN (w - 32 * g, 32), &lo[g], &hi[g]);
    else
      lo[g] = hi[g] = _mm512_setzero_ps ();
  for (; j + 1 < nb; j += 2)
    {
      const guint16 *b0 = B + off[j] * sc, *b1 = B + off[j + 1] * sc;
      const guint16 *p0 = B + off[MIN (j + PAIR_D, nb - 1)] * sc;
      const guint16 *p1 = B + off[MIN (j + PAIR_D + 1, nb - 1)] * sc;
      __m512i s = broadcast_pair (v + j);
#pragma GCC unroll 4
      for (guint g = 0; g < G; g++)
        {
          guint wg = (guint) MIN (w - 32 * g, 32);
          _mm_prefetch ((const char *) (p0 + 32 * g), _MM_HINT_T0);
          _mm_prefetch ((const char *) (p1 + 32 * g), _MM_HINT_T0);
          __m512i x = load_row (b0 + 32 * g, wg);
          __m512i y = load_row (b1 + 32 * g, wg);
          lo[g] = dot (lo[g], s, _mm512_unpacklo_epi16 (x, y));
          hi[g] = dot (hi[g], s, _mm512_unpackhi_epi16 (x, y));
        }
    }
  if (j < nb) /* the odd one out, paired with zero */
    {
      __m512i s = _mm512_set1_epi32 (v[j]), z = _mm512_setzero_si512 ();
#pragma GCC unroll 4
      for (guint g = 0; g < G; g++)
        {
          guint wg = (guint) MIN (w - 32 * g, 32);
          __m512i x = load_row (B + off[j] * sc + 32 * g, wg);
          lo[g] = dot (lo[g], s, _mm512_unpacklo_epi16 (x, z));
          hi[g] = dot (hi[g], s, _mm512_unpackhi_epi16 (x, z));
        }
    }
#pragma GCC unroll 4
  for (guint g = 0; g < G; g++)
    pairs_to_c (C + 32 * g, (guint) MIN (w - 32 * g, 32), lo[g], hi[g]);
}

static void
spmm_pairs (const SpxRowTask *task, const void *panel, guint64 ldb,
            float *C, guint64 ldc, guint64 n, gboolean accumulate)
{
  const guint16 *B = panel;
  guint64 j0 = 0, width = 32 * PAIR_G;

  if (task->n_blocks == 0 && accumulate)
    return;
  for (; j0 + width <= n; j0 += width)
    pair_tile (task, B + j0, C + j0, PAIR_G, width, accumulate);
  for (; j0 < n; j0 += 32) /* the rest a group at a time */
    pair_tile (task, B + j0, C + j0, 1, MIN (n - j0, 32), accumulate);
}

#define TABLE_PANEL const void *
#define TABLE_KERNEL SpxSpmmBf16Kernel
#define TABLE_B1 spmm_pairs
#include "spx-kernels-table.h"

/* A block-column's rows in pairs: a pair-row per two rows (an odd b's
 * last with a zero row), b = 1 plain rows (spmm_pairs pairs them). */
static guint
bcol_rows (guint b)
{
  return b == 1 ? 1 : b + (b & 1);
}

static void
pack_plain (const guint16 *B, guint64 ldb, guint64 k, guint b, guint64 c0,
            guint64 c1, guint64 n, void *panel, guint64 ldp)
{
  guint16 *p = panel;
  for (guint64 r = c0; r < c1; r++)
    memcpy (p + r * ldp, B + r * ldb, n * sizeof (guint16));
}

/* 16 bf16 of row p (NULL: zeros), widened to the low halves of 32-bit
 * lanes; m masks the columns that exist. */
INLINE __m512i
widen_row (const guint16 *p, __mmask16 m)
{
  return p != NULL ? _mm512_cvtepu16_epi32 (_mm256_maskz_loadu_epi16 (m, p))
                   : _mm512_setzero_si512 ();
}

/* One pair-row from rows r0 and r1 of B (NULL: zeros), 16 columns a
 * step: packing is on every run's path. */
static void
pack_pair (const guint16 *r0, const guint16 *r1, guint64 n, guint32 *dst)
{
  for (guint64 x = 0; x < n; x += VW)
    {
      __mmask16 m = (__mmask16) (n - x >= VW ? 0xffff
                                             : (1u << (n - x)) - 1);
      __m512i lo = widen_row (r0 != NULL ? r0 + x : NULL, m);
      __m512i hi = widen_row (r1 != NULL ? r1 + x : NULL, m);
      _mm512_mask_storeu_epi32 (dst + x, m,
                                _mm512_or_si512 (lo,
                                                 _mm512_slli_epi32 (hi, 16)));
    }
}

static void
pack_vnni (const guint16 *B, guint64 ldb, guint64 k, guint b, guint64 c0,
           guint64 c1, guint64 n, void *panel, guint64 ldp)
{
  guint half = (b + 1) / 2;
  for (guint64 c = c0; c < c1; c++)
    for (guint p = 0; p < half; p++)
      {
        guint64 r = c * b + 2 * p;
        const guint16 *x = r < k ? B + r * ldb : NULL;
        const guint16 *y = 2 * p + 1 < b && r + 1 < k ? B + (r + 1) * ldb
                                                      : NULL;
        pack_pair (x, y, n, (guint32 *) panel + (c * half + p) * ldp);
      }
}

static SpxBf16Pack
packer (guint b)
{
  return b == 1 ? pack_plain : pack_vnni;
}

static const char *
name (guint b)
{
  return "avx512-bf16";
}

const SpxKernelSetBf16 spx_kernels_avx512bf16_bf16 = {
  name, spmm_kernel, bcol_rows, packer, sizeof (guint16)
};
