/* spx-sddmm-avx512bf16.c: SDDMM on bf16 P and Q with AVX512_BF16's
 * vdpbf16ps, which multiplies pairs of bf16 and adds both products to an
 * fp32 lane. Its pairs run along kd, SDDMM's dot-product dimension, so
 * rows of P are read as they are and only Q's block-column is packed.
 * Compiled with -mavx512bf16 on its own, so that no other kernel can
 * pick up a bf16 instruction; called only on processors that have it.
 *
 * Three ways, by block size:
 * - b ≤ 2, block by block: each entry a dot product straight from the
 *   rows of P and Q, 32 of kd a vdpbf16ps (ordering single rows by
 *   column costs more than it saves there);
 * - b ≥ 3 on a processor with AMX, its tiles (tdpbf16ps: 16×16 entries ×
 *   32 of kd an instruction) against a panel of Q's pairs, 16 rows of P
 *   at a time, straight from P where they are a block's, else gathered;
 * - b ≥ 3 without AMX, "lanes": a zmm holds 16 lanes, and each of the
 *   block's C columns gets G = 16 / C of them (C = b rounded up to a
 *   power of two, G = 1 past 8 columns, with up to 4 vectors a tile);
 *   lane i of column c sums the pairs i, i + G, i + 2G, … of its dot
 *   product, so a step covers 2G of kd and each row of P contributes its
 *   next 2G bf16, repeated across the vector. After kd, a column's G
 *   lanes are added up. As in spx-sddmm-panel.h, R rows × V vectors of
 *   accumulators stay in registers over all of kd, and the rows may come
 *   from any blocks of the column.
 * AMX where it is: vdpbf16ps does half of fp32's multiply-adds per cycle
 * on the machine this was measured on (a zmm every 2 cycles, against two
 * FMAs a cycle), so lanes lose to fp32 from b = 16 on (0.6×) while AMX
 * tiles run 2–4× fp32. AMX's intrinsics are compiled here only; the
 * compiler never emits them unasked. */
#include "spx-kernels-private.h"

#include <immintrin.h>
#include <string.h>

#define INLINE static inline __attribute__ ((always_inline))
#define MAX_R 16
#define MAX_V 4 /* vectors per tile: 64 columns */

/* Lanes per column for block size b. */
static guint
lanes_per_column (guint b)
{
  guint c = 1;

  while (c < b && c < 16)
    c *= 2;
  return 16 / c;
}

/* Vectors across the whole block-column. */
static guint
vectors (guint b)
{
  return b <= 16 ? 1 : (b + 15) / 16;
}

/* The bf16 of kd left from t on, as a mask of at most 32. */
INLINE __mmask32
chunk_mask (guint64 kd, guint64 t)
{
  return kd - t >= 32 ? ~(__mmask32) 0 : (__mmask32) ((1u << (kd - t)) - 1);
}

/* The next 2G bf16 (G = 1, 2 or 4) of a row of P from bf16 s·2G on,
 * repeated across the vector; rem > 0 (the last, partial step) reads
 * only rem of them and zeroes the rest, so nothing past the row is read
 * and the padding adds 0 · 0. */
INLINE __m512i
p_step (const guint16 *p, guint G, guint64 s, guint rem)
{
  const guint16 *x = p + 2 * G * s;
  guint32 pair;

  switch (G)
    {
    case 1:
      if (rem == 0)
        memcpy (&pair, x, sizeof pair);
      else
        pair = x[0];
      return _mm512_set1_epi32 ((int) pair);
    case 2:
      return _mm512_broadcastq_epi64 (
        rem == 0 ? _mm_loadl_epi64 ((const __m128i *) x)
                 : _mm_maskz_loadu_epi16 ((__mmask8) ((1u << rem) - 1), x));
    default: /* 4 */
      return _mm512_broadcast_i32x4 (
        rem == 0 ? _mm_loadu_si128 ((const __m128i *) x)
                 : _mm_maskz_loadu_epi16 ((__mmask8) ((1u << rem) - 1), x));
    }
}

/* One step: the tile's V vectors of the panel against R rows of P. */
INLINE void
tile_step (__m512 c[MAX_R][MAX_V], const guint16 *const *pr,
           const guint16 *q, guint64 s, guint rem, guint R, guint V,
           guint G)
{
  __m512i x[MAX_V];

#pragma GCC unroll 4
  for (guint v = 0; v < V; v++)
    x[v] = _mm512_loadu_si512 (q + 32 * v);
#pragma GCC unroll 16
  for (guint r = 0; r < R; r++)
    {
      __m512i p = p_step (pr[r], G, s, rem);
#pragma GCC unroll 4
      for (guint v = 0; v < V; v++)
        c[r][v] = _mm512_dpbf16_ps (c[r][v], (__m512bh) p, (__m512bh) x[v]);
    }
}

/* Each column's G lanes added up, in the same tree whatever the tile,
 * column c's sum then in lane c. */
INLINE __m512
sum_lanes (__m512 x, guint G)
{
  if (G >= 2)
    x = _mm512_add_ps (x, _mm512_permute_ps (x, 0xb1)); /* neighbours */
  if (G >= 4)
    x = _mm512_add_ps (x, _mm512_permute_ps (x, 0x4e)); /* pairs */
  if (G == 1)
    return x;
  __m512i first = _mm512_mullo_epi32 (
    _mm512_setr_epi32 (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
    _mm512_set1_epi32 ((int) G));
  return _mm512_permutexvar_ps (first, x);
}

/* Where a tile sits: the block size, the panel's vectors and the tile's
 * first one. */
typedef struct {
  guint b, vectors, v0;
} Place;

/* R rows × V vectors of the block-column, over all of kd. */
INLINE void
tile (const guint16 *const *p, float *const *o, guint64 kd,
      const guint16 *Qt, Place at, guint R, guint V, guint G)
{
  const guint16 *pr[MAX_R];
  __m512 c[MAX_R][MAX_V];
  guint64 steps = kd / (2 * G), s = 0, stride = 32 * at.vectors;
  const guint16 *q = Qt + 32 * at.v0;

#pragma GCC unroll 16
  for (guint r = 0; r < R; r++)
    {
      pr[r] = p[r];
#pragma GCC unroll 4
      for (guint v = 0; v < V; v++)
        c[r][v] = _mm512_setzero_ps ();
    }
  for (; s < steps; s++, q += stride)
    tile_step (c, pr, q, s, 0, R, V, G);
  if (kd % (2 * G) != 0) /* the panel's last step is zero-padded */
    tile_step (c, pr, q, s, (guint) (kd % (2 * G)), R, V, G);

  guint last = at.b - 16 * (at.v0 + V - 1); /* columns in the last vector */
  __mmask16 tail = (__mmask16) (last >= 16 ? 0xffff : (1u << last) - 1);
#pragma GCC unroll 16
  for (guint r = 0; r < R; r++)
#pragma GCC unroll 4
    for (guint v = 0; v < V; v++)
      _mm512_mask_storeu_ps (o[r] + 16 * (at.v0 + v),
                             v + 1 == V ? tail : 0xffff,
                             sum_lanes (c[r][v], G));
}

/* n rows: R at a time, then R/2, then one at a time. */
INLINE void
rows (const guint16 *const *p, float *const *o, guint n, guint64 kd,
      const guint16 *Qt, Place at, guint R, guint V, guint G)
{
  guint r = 0;

  for (; r + R <= n; r += R)
    tile (p + r, o + r, kd, Qt, at, R, V, G);
  if (R > 1 && r + R / 2 <= n)
    {
      tile (p + r, o + r, kd, Qt, at, R / 2, V, G);
      r += R / 2;
    }
  for (; r < n; r++)
    tile (p + r, o + r, kd, Qt, at, 1, V, G);
}

/* Blocks of 3 to 8 columns: one vector, G = 4 or 2 lanes a column. */
#define NARROW(G) \
  static void \
  narrow_##G (const guint16 *const *p, float *const *o, guint n, \
              guint64 kd, guint b, const guint16 *Qt) \
  { \
    rows (p, o, n, kd, Qt, (Place) { b, 1, 0 }, MAX_R, 1, G); \
  }

NARROW (2)
NARROW (4)
#undef NARROW

/* Blocks wider than 8, a lane a column: tiles of up to 4 vectors (16
 * accumulators at most), the last vector's store masked. */
static void
wide (const guint16 *const *p, float *const *o, guint n, guint64 kd,
      guint b, const guint16 *Qt)
{
  guint nv = vectors (b);

  for (guint v0 = 0; v0 < nv; v0 += MAX_V)
    {
      Place at = { b, nv, v0 };
      switch (MIN (nv - v0, MAX_V))
        {
        case 1: rows (p, o, n, kd, Qt, at, 16, 1, 1); break;
        case 2: rows (p, o, n, kd, Qt, at, 8, 2, 1); break;
        case 3: rows (p, o, n, kd, Qt, at, 4, 3, 1); break;
        default: rows (p, o, n, kd, Qt, at, 4, 4, 1); break;
        }
    }
}

/* ------------------------------------------------------------------ */
/* Block by block                                                      */

/* P's row p against Q's row q: 32 of kd a step in 16 lanes, four chains
 * at once (a vdpbf16ps waits for the last one's sum), then the lanes
 * added up in a fixed order. */
static float
dot (const guint16 *p, const guint16 *q, guint64 kd)
{
  __m512 c[4];
  guint64 t = 0;

  for (guint i = 0; i < 4; i++)
    c[i] = _mm512_setzero_ps ();
  for (; t + 128 <= kd; t += 128)
#pragma GCC unroll 4
    for (guint i = 0; i < 4; i++)
      c[i] = _mm512_dpbf16_ps (c[i],
                               (__m512bh) _mm512_loadu_si512 (p + t + 32 * i),
                               (__m512bh) _mm512_loadu_si512 (q + t + 32 * i));
  for (guint i = 0; t < kd; t += 32, i++)
    {
      __mmask32 m = chunk_mask (kd, t);
      c[i] = _mm512_dpbf16_ps (c[i],
                               (__m512bh) _mm512_maskz_loadu_epi16 (m, p + t),
                               (__m512bh) _mm512_maskz_loadu_epi16 (m, q + t));
    }
  return _mm512_reduce_add_ps (_mm512_add_ps (_mm512_add_ps (c[0], c[1]),
                                              _mm512_add_ps (c[2], c[3])));
}

/* One rows×cols block (≤ b) of P·Qᵀ into out (b×b, zeros past rows and
 * cols): for the smallest blocks, where ordering the rows by column costs
 * more than it saves. */
static void
block (const guint16 *P, const guint16 *Q, guint64 kd, guint b, guint rows,
       guint cols, float *out)
{
  if (rows < b || cols < b)
    memset (out, 0, (gsize) b * b * sizeof (float));
  for (guint r = 0; r < rows; r++)
    for (guint c = 0; c < cols; c++)
      out[r * b + c] = dot (P + r * kd, Q + c * kd, kd);
}

/* ------------------------------------------------------------------ */
/* AMX                                                                 */

#define TILE 16 /* rows of a tile, and fp32 columns */
#define CHUNK 32 /* of kd per tdpbf16ps */

/* AMX where the processor has it and Linux grants its tiles (asked once,
 * by spx-isa.c), unless SPX_AMX=0, as for SpMM. */
static gboolean
amx_ready (void)
{
  return spx_isa_supported (SPX_ISA_AMX_BF16);
}

/* Palette 1: tiles 16 rows of 64 bytes (C: 16 floats; A: 32 bf16 of
 * kd; B: 16 pairs of kd × 16 columns), but C (0) and B (2) only b
 * columns wide for b < 16: a tdpbf16ps costs by the columns it computes
 * (16×4 took 0.4 of 16×16's time, measured). */
typedef struct {
  guint8  palette, start_row, reserved[14];
  guint16 colsb[16];
  guint8  rows[16];
} __attribute__ ((packed)) TileConfig;

static void
tiles_on (guint b)
{
  TileConfig cfg;

  memset (&cfg, 0, sizeof cfg);
  cfg.palette = 1;
  for (guint i = 0; i < 3; i++)
    {
      cfg.colsb[i] = 64;
      cfg.rows[i] = TILE;
    }
  cfg.colsb[0] = cfg.colsb[2] = (guint16) (4 * MIN (b, TILE));
  _tile_loadconfig (&cfg);
}

/* Chunk k (32 of kd, zeros past kd) of 16 rows of P from p (stride kd),
 * read where they are; a partial last chunk is copied, zero-padded, to
 * a, so that nothing past a row is read. Returns the row stride in bytes
 * through stride. */
static const guint16 *
a_chunk (const guint16 *p, guint64 kd, guint64 k, guint16 *a,
         gsize *stride)
{
  guint64 t = k * CHUNK;

  *stride = kd * sizeof (guint16);
  if (t + CHUNK <= kd)
    return p + t;
  for (guint r = 0; r < TILE; r++)
    _mm512_storeu_si512 (a + r * CHUNK, _mm512_maskz_loadu_epi16 (
                           chunk_mask (kd, t), p + r * kd + t));
  *stride = CHUNK * sizeof (guint16);
  return a;
}

/* Chunk k of n ≤ 16 rows of P anywhere, copied together into a (rows
 * past n zeroed). */
static void
a_gather (const guint16 *const *p, guint n, guint64 kd, guint64 k,
          guint16 *a)
{
  guint64 t = k * CHUNK;
  __mmask32 m = chunk_mask (kd, t);

  for (guint r = 0; r < TILE; r++)
    _mm512_storeu_si512 (a + r * CHUNK,
                         r < n ? _mm512_maskz_loadu_epi16 (m, p[r] + t)
                               : _mm512_setzero_si512 ());
}

/* B for column tile j (of nt) and chunk k: 16 steps of the panel. */
static inline const guint16 *
b_chunk (const guint16 *Qt, guint nt, guint j, guint64 k)
{
  return Qt + (k * TILE * nt + j) * 2 * TILE;
}

/* 16 consecutive rows of P (from p) × column tile j into 16 consecutive
 * rows of a block's out (from o, b a multiple of 16): no copies. */
static void
amx_direct (const guint16 *p, float *o, guint64 kd, guint b, guint j,
            const guint16 *Qt)
{
  guint nt = b / TILE;
  guint16 a[TILE * CHUNK];
  gsize a_stride;

  _tile_zero (0);
  for (guint64 k = 0; k * CHUNK < kd; k++)
    {
      _tile_loadd (1, a_chunk (p, kd, k, a, &a_stride), a_stride);
      _tile_loadd (2, b_chunk (Qt, nt, j, k), 64 * nt);
      _tile_dpbf16ps (0, 1, 2);
    }
  _tile_stored (0, o + TILE * j, b * sizeof (float));
}

/* n ≤ 16 rows from anywhere × column tile j: P's rows gathered chunk by
 * chunk, the sums through c to the columns of out that exist. Row for
 * row the same instructions on the same values as amx_direct, so the
 * same bits. */
static void
amx_gathered (const guint16 *const *p, float *const *o, guint n,
              guint64 kd, guint b, guint j, const guint16 *Qt)
{
  guint nt = vectors (b), w = MIN (TILE, b - TILE * j);
  guint16 a[TILE * CHUNK];
  float c[TILE * TILE];

  _tile_zero (0);
  for (guint64 k = 0; k * CHUNK < kd; k++)
    {
      a_gather (p, n, kd, k, a);
      _tile_loadd (1, a, CHUNK * sizeof (guint16));
      _tile_loadd (2, b_chunk (Qt, nt, j, k), 64 * nt);
      _tile_dpbf16ps (0, 1, 2);
    }
  _tile_stored (0, c, TILE * sizeof (float));
  for (guint r = 0; r < n; r++)
    memcpy (o[r] + TILE * j, c + r * TILE, w * sizeof (float));
}

/* Rows r to r + 15 are 16 consecutive rows of P and of a block's out. */
static gboolean
tile_rows (const guint16 *const *p, float *const *o, guint r, guint n,
           guint64 kd, guint b)
{
  if (r + TILE > n || b % TILE != 0)
    return FALSE;
  for (guint i = 1; i < TILE; i++)
    if (p[r + i] != p[r] + i * kd || o[r + i] != o[r] + i * b)
      return FALSE;
  return TRUE;
}

/* Any b > 2, 16 rows at a time: straight from P and into out where they
 * are a block's (b a multiple of 16), else gathered; a lane-a-column
 * panel (pack_pairs). */
static void
amx_rows (const guint16 *const *p, float *const *o, guint n, guint64 kd,
          guint b, const guint16 *Qt)
{
  guint nt = vectors (b);

  tiles_on (b);
  for (guint r = 0; r < n; r += TILE)
    for (guint j = 0; j < nt; j++)
      if (tile_rows (p, o, r, n, kd, b))
        amx_direct (p[r], o[r], kd, b, j, Qt);
      else
        amx_gathered (p + r, o + r, MIN (TILE, n - r), kd, b, j, Qt);
  _tile_release ();
}

/* Column c's 2G bf16 of step s (from bf16 2G·s of its row), zeros past
 * kd. */
static void
pack_cell (const guint16 *q, guint64 kd, guint G, guint64 s, guint16 *dst)
{
  guint64 t = 2 * G * s;

  if (t + 2 * G <= kd)
    memcpy (dst, q + t, 4 * G);
  else
    for (guint i = 0; i < 2 * G; i++)
      dst[i] = t + i < kd ? q[t + i] : 0;
}

/* 16×16 32-bit elements transposed in registers: r[i]'s lane j to
 * r[j]'s lane i. 4×4 transposes inside each 128-bit lane, then of the
 * 128-bit lanes across the rows. */
INLINE void
transpose_16x16 (__m512i r[16])
{
  __m512i t[16];

#pragma GCC unroll 8
  for (guint i = 0; i < 16; i += 2)
    {
      t[i] = _mm512_unpacklo_epi32 (r[i], r[i + 1]);
      t[i + 1] = _mm512_unpackhi_epi32 (r[i], r[i + 1]);
    }
#pragma GCC unroll 4
  for (guint i = 0; i < 16; i += 4)
    {
      r[i] = _mm512_unpacklo_epi64 (t[i], t[i + 2]);
      r[i + 1] = _mm512_unpackhi_epi64 (t[i], t[i + 2]);
      r[i + 2] = _mm512_unpacklo_epi64 (t[i + 1], t[i + 3]);
      r[i + 3] = _mm512_unpackhi_epi64 (t[i + 1], t[i + 3]);
    }
  /* r[4i + m]'s 128-bit lane L now holds column 4L + m of rows 4i to
   * 4i + 3 */
#pragma GCC unroll 4
  for (guint m = 0; m < 4; m++)
    {
      __m512i v0 = _mm512_shuffle_i32x4 (r[m], r[4 + m], 0x88);
      __m512i v1 = _mm512_shuffle_i32x4 (r[m], r[4 + m], 0xdd);
      __m512i v2 = _mm512_shuffle_i32x4 (r[8 + m], r[12 + m], 0x88);
      __m512i v3 = _mm512_shuffle_i32x4 (r[8 + m], r[12 + m], 0xdd);
      t[m] = _mm512_shuffle_i32x4 (v0, v2, 0x88);
      t[4 + m] = _mm512_shuffle_i32x4 (v1, v3, 0x88);
      t[8 + m] = _mm512_shuffle_i32x4 (v0, v2, 0xdd);
      t[12 + m] = _mm512_shuffle_i32x4 (v1, v3, 0xdd);
    }
#pragma GCC unroll 16
  for (guint i = 0; i < 16; i++)
    r[i] = t[i];
}

/* A lane a column: 16 steps (32 of kd) × 16 columns at a time, each
 * column's 16 pairs loaded as one vector (zeros past kd and cols), then
 * transposed into 16 steps. Steps are padded to whole AMX chunks. */
static void
pack_pairs (const guint16 *q, guint64 kd, guint b, guint cols,
            guint16 *panel)
{
  guint nv = vectors (b);
  __m512i r[16];

  for (guint64 t = 0; t < kd; t += CHUNK)
    for (guint v = 0; v < nv; v++)
      {
        __mmask32 m = chunk_mask (kd, t);
#pragma GCC unroll 16
        for (guint c = 0; c < 16; c++)
          r[c] = 16 * v + c < cols
                 ? _mm512_maskz_loadu_epi16 (m, q + (16 * v + c) * kd + t)
                 : _mm512_setzero_si512 ();
        transpose_16x16 (r);
#pragma GCC unroll 16
        for (guint s = 0; s < 16; s++)
          _mm512_storeu_si512 (panel + (t / 2 + s) * 32 * nv + 32 * v, r[s]);
      }
}

/* The panel: per step, C columns' 2G bf16 each, in column order (so
 * column c's sit in lanes c·G to c·G + G − 1), zeros past cols; a lane a
 * column (b > 8) as pack_pairs leaves it. */
static void
pack (const guint16 *q, guint64 kd, guint b, guint cols, guint16 *panel)
{
  guint G = lanes_per_column (b), width = 16 / G;
  guint64 steps = (kd + 2 * G - 1) / (2 * G);

  if (G == 1)
    {
      pack_pairs (q, kd, b, cols, panel);
      return;
    }
  for (guint64 s = 0; s < steps; s++)
    for (guint c = 0; c < width; c++)
      {
        guint16 *dst = panel + (s * width + c) * 2 * G;
        if (c < cols)
          pack_cell (q + c * kd, kd, G, s, dst);
        else
          memset (dst, 0, 4 * G);
      }
}

/* The vdpbf16ps kernels: block by block at b ≤ 2, where ordering rows
 * by column costs more than it saves (b = 2: 5.3 ms against 7.1 in
 * lanes, 11.3 in AMX tiles, at 2048², density 0.1, kd 256), lanes
 * otherwise. */
static SpxSddmmPanelBf16
lanes_panel (guint b)
{
  switch (lanes_per_column (b))
    {
    case 16: /* b = 1 */
    case 8: return NULL;
    case 4: return narrow_4;
    case 2: return narrow_2;
    default: return wide;
    }
}

static SpxSddmmPackBf16
lanes_pack (guint b)
{
  return pack;
}

const SpxSddmmSetBf16 spx_sddmm_avx512bf16_lanes_set = {
  block, lanes_panel, lanes_pack
};

/* With AMX, its tiles from b = 3 on. */
static gboolean
uses_amx (guint b)
{
  return b > 2 && amx_ready ();
}

static SpxSddmmPanelBf16
sddmm_panel (guint b)
{
  return uses_amx (b) ? amx_rows : lanes_panel (b);
}

static SpxSddmmPackBf16
sddmm_pack (guint b)
{
  return uses_amx (b) ? pack_pairs : pack;
}

const SpxSddmmSetBf16 spx_sddmm_avx512bf16_set = {
  block, sddmm_panel, sddmm_pack
};
