/* spx-kernels-amx.c: bf16 SpMM on AMX tiles for b = 16 and 32; other
 * block sizes, a last block-row of fewer than b rows and the last < 16
 * columns go to the AVX512_BF16 kernels, whose panel (pair-interleaved
 * B) this set shares: a block-column's pair-rows are exactly the B tile
 * tdpbf16ps wants (K/2 rows of 16 column pairs, 64 bytes).
 *
 * b = 16: a block is an A tile of 16 rows × 16 values (K = 16, row
 * stride 32 bytes, straight from the row-major values), B's tile its 8
 * pair-rows; four C tiles of 16×16 fp32 cover 64 columns.
 * b = 32: a block is two A tiles (its top and bottom 16 rows, K = 32,
 * stride 64 bytes), B's tile 16 pair-rows; four C tiles cover 32 rows ×
 * 32 columns.
 *
 * The tile configuration is checked at the start of every call (other
 * code on the thread, oneDNN, may have loaded its own) and loaded only
 * when it differs: ldtilecfg took 15% of the time at b = 16 when loaded
 * (and the tiles released) on every call. Tiles are not released after:
 * whoever uses them next loads a configuration of its own. */
#include "spx-kernels-private.h"

#include "spx-amx-tile.h"

#include <immintrin.h>
#include <string.h>

/* Tiles 0–3 C (rows × 16 fp32), 4–5 A (rows of a_bytes), 6–7 B. */
static void
configure (guint rows, guint a_bytes, guint b_rows)
{
  SpxTileConfig cfg = { .palette = 1 };

  for (guint t = 0; t < 4; t++)
    {
      cfg.rows[t] = (guint8) rows;
      cfg.colsb[t] = 64;
    }
  for (guint t = 4; t < 6; t++)
    {
      cfg.rows[t] = (guint8) rows;
      cfg.colsb[t] = (guint16) a_bytes;
    }
  for (guint t = 6; t < 8; t++)
    {
      cfg.rows[t] = (guint8) b_rows;
      cfg.colsb[t] = 64;
    }
  SpxTileConfig now;
  _tile_storeconfig (&now);
  if (memcmp (&now, &cfg, sizeof cfg) != 0)
    _tile_loadconfig (&cfg);
}

/* B's rows for block j + PF_D are fetched into L1 while block j runs:
 * from L2, a tile load's 8 or 16 lines would stall the multiplies. */
#define PF_D 2

static inline __attribute__ ((always_inline)) void
prefetch_b (const SpxRowTask *task, const guint32 *B, guint64 ldb, guint j,
            guint rows, guint G)
{
  guint jn = MIN (j + PF_D, task->n_blocks - 1);
  const guint32 *bp = B + task->b_offsets[jn] * spx_task_scale (task) / 2;
  for (guint r = 0; r < rows; r++)
    for (guint g = 0; g < G; g++)
      _mm_prefetch ((const char *) (bp + r * ldb + 16 * g), _MM_HINT_T0);
}

/* C's rows for this pass, fetched for writing while the blocks run: the
 * tile stores at the end otherwise wait for each line to come from L3
 * (C is written once per run, too large to stay in L2). */
static inline __attribute__ ((always_inline)) void
prefetch_c (float *C, guint64 ldc, guint rows, guint G)
{
  for (guint r = 0; r < rows; r++)
    for (guint g = 0; g < G; g++)
      __builtin_prefetch (C + r * ldc + 16 * g, 1, 3); /* for writing */
}

#define C_IN(T, P) \
  do { \
    if (accumulate) \
      _tile_loadd (T, (P), ldc * sizeof (float)); \
    else \
      _tile_zero (T); \
  } while (0)

/* b = 8 or 16 (a block one tile), G ≤ 4 groups of 16 columns from
 * column 0 of B and C. */
static inline __attribute__ ((always_inline)) void
pass_one (const SpxRowTask *task, const guint32 *B, guint64 ldb, float *C,
          guint64 ldc, guint b, guint G, gboolean accumulate)
{
  gsize stride = ldb * sizeof (guint32);

  if (!accumulate)
    prefetch_c (C, ldc, b, G);
  C_IN (0, C);
  if (G > 1) C_IN (1, C + 16);
  if (G > 2) C_IN (2, C + 32);
  if (G > 3) C_IN (3, C + 48);
  for (guint j = 0; j < task->n_blocks; j++)
    {
      const guint32 *bp = B + task->b_offsets[j] * spx_task_scale (task) / 2;
      prefetch_b (task, B, ldb, j, b / 2, G);
      _tile_loadd (4, task->values_bf16 + (gsize) j * b * b, b * 2);
      _tile_loadd (6, bp, stride);
      _tile_dpbf16ps (0, 4, 6);
      if (G > 1)
        {
          _tile_loadd (7, bp + 16, stride);
          _tile_dpbf16ps (1, 4, 7);
        }
      if (G > 2)
        {
          _tile_loadd (6, bp + 32, stride);
          _tile_dpbf16ps (2, 4, 6);
        }
      if (G > 3)
        {
          _tile_loadd (7, bp + 48, stride);
          _tile_dpbf16ps (3, 4, 7);
        }
    }
  _tile_stored (0, C, ldc * sizeof (float));
  if (G > 1) _tile_stored (1, C + 16, ldc * sizeof (float));
  if (G > 2) _tile_stored (2, C + 32, ldc * sizeof (float));
  if (G > 3) _tile_stored (3, C + 48, ldc * sizeof (float));
}

/* b = 32, G ≤ 2 groups of 16 columns: C tiles 0, 1 the top rows, 2, 3
 * the bottom ones. */
static inline __attribute__ ((always_inline)) void
pass_b32 (const SpxRowTask *task, const guint32 *B, guint64 ldb, float *C,
          guint64 ldc, guint G, gboolean accumulate)
{
  gsize stride = ldb * sizeof (guint32);
  float *low = C + 16 * ldc;

  if (!accumulate)
    prefetch_c (C, ldc, 32, G);
  C_IN (0, C);
  C_IN (2, low);
  if (G > 1)
    {
      C_IN (1, C + 16);
      C_IN (3, low + 16);
    }
  for (guint j = 0; j < task->n_blocks; j++)
    {
      const guint16 *a = task->values_bf16 + (gsize) j * 1024;
      const guint32 *bp = B + task->b_offsets[j] * spx_task_scale (task) / 2;
      prefetch_b (task, B, ldb, j, 16, G);
      _tile_loadd (4, a, 64);
      _tile_loadd (5, a + 16 * 32, 64);
      _tile_loadd (6, bp, stride);
      _tile_dpbf16ps (0, 4, 6);
      _tile_dpbf16ps (2, 5, 6);
      if (G > 1)
        {
          _tile_loadd (7, bp + 16, stride);
          _tile_dpbf16ps (1, 4, 7);
          _tile_dpbf16ps (3, 5, 7);
        }
    }
  _tile_stored (0, C, ldc * sizeof (float));
  _tile_stored (2, low, ldc * sizeof (float));
  if (G > 1)
    {
      _tile_stored (1, C + 16, ldc * sizeof (float));
      _tile_stored (3, low + 16, ldc * sizeof (float));
    }
}

/* Columns past the last whole group of 16 (or a short block-row): the
 * AVX512_BF16 kernel, on the same panel. */
static void
rest (const SpxRowTask *task, const guint32 *B, guint64 ldb, float *C,
      guint64 ldc, guint64 j0, guint64 n, gboolean accumulate)
{
  if (j0 < n)
    spx_kernels_avx512bf16_bf16.spmm (task->b) (task, B + j0, ldb, C + j0,
                                                 ldc, n - j0, accumulate);
}

static inline __attribute__ ((always_inline)) void
amx_one (const SpxRowTask *task, const guint32 *B, guint64 ldb, float *C,
         guint64 ldc, guint64 n, gboolean accumulate, guint b)
{
  guint64 j0 = 0;

  if (task->rows == b && (task->n_blocks > 0 || !accumulate))
    {
      configure (b, 2 * b, b / 2);
      for (; j0 + 64 <= n; j0 += 64)
        pass_one (task, B + j0, ldb, C + j0, ldc, b, 4, accumulate);
      switch ((n - j0) / 16)
        {
        case 3:
          pass_one (task, B + j0, ldb, C + j0, ldc, b, 3, accumulate);
          break;
        case 2:
          pass_one (task, B + j0, ldb, C + j0, ldc, b, 2, accumulate);
          break;
        case 1:
          pass_one (task, B + j0, ldb, C + j0, ldc, b, 1, accumulate);
          break;
        default:
          break;
        }
      j0 += (n - j0) / 16 * 16;
    }
  rest (task, B, ldb, C, ldc, j0, n, accumulate);
}

static void
amx_b8 (const SpxRowTask *task, const void *panel, guint64 ldb, float *C,
        guint64 ldc, guint64 n, gboolean accumulate)
{
  amx_one (task, panel, ldb, C, ldc, n, accumulate, 8);
}

static void
amx_b16 (const SpxRowTask *task, const void *panel, guint64 ldb, float *C,
         guint64 ldc, guint64 n, gboolean accumulate)
{
  amx_one (task, panel, ldb, C, ldc, n, accumulate, 16);
}

static void
amx_b32 (const SpxRowTask *task, const void *panel, guint64 ldb, float *C,
         guint64 ldc, guint64 n, gboolean accumulate)
{
  const guint32 *B = panel;
  guint64 j0 = 0;

  if (task->rows == 32 && (task->n_blocks > 0 || !accumulate))
    {
      configure (16, 64, 16);
      for (; j0 + 32 <= n; j0 += 32)
        pass_b32 (task, B + j0, ldb, C + j0, ldc, 2, accumulate);
      if (n - j0 >= 16)
        {
          pass_b32 (task, B + j0, ldb, C + j0, ldc, 1, accumulate);
          j0 += 16;
        }
    }
  rest (task, B, ldb, C, ldc, j0, n, accumulate);
}

static SpxSpmmBf16Kernel
spmm_kernel (guint b)
{
  if (b == 8)
    return amx_b8;
  if (b == 16)
    return amx_b16;
  if (b == 32)
    return amx_b32;
  return spx_kernels_avx512bf16_bf16.spmm (b);
}

static const char *
name (guint b)
{
  return b == 8 || b == 16 || b == 32 ? "amx-bf16"
                            : spx_kernels_avx512bf16_bf16.name (b);
}

static guint
bcol_rows (guint b)
{
  return spx_kernels_avx512bf16_bf16.bcol_rows (b);
}

static SpxBf16Pack
packer (guint b)
{
  return spx_kernels_avx512bf16_bf16.pack (b);
}

const SpxKernelSetBf16 spx_kernels_amx_bf16 = {
  name, spmm_kernel, bcol_rows, packer, sizeof (guint16)
};
