/* test-sddmm.c: block CSR patterns (core/engine/spx-engine-csr.c) and
 * SDDMM (core/engine/spx-engine-sddmm.c), in fp32 and bf16, against a
 * naive double-precision reference. */
#include "spx-bf16.h"
#include "spx-engine.h"
#include "spx-kernels-private.h"

#include <math.h>
#include <string.h>
#include <time.h>

static SpxMask *
new_mask (guint64 rows, guint64 cols, guint block)
{
  GError *error = NULL;
  SpxMask *mask = spx_mask_new (rows, cols, block, &error);
  g_assert_no_error (error);
  return mask;
}

/* Each block kept with probability density, reproducibly. */
static SpxMask *
random_mask (guint64 rows, guint64 cols, guint block, double density,
             guint32 seed)
{
  SpxMask *mask = new_mask (rows, cols, block);
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  for (guint64 br = 0; br < mask->brows; br++)
    for (guint64 bc = 0; bc < mask->bcols; bc++)
      if (g_rand_double (rand) < density)
        spx_mask_set (mask, br, bc);
  return mask;
}

static float *
random_floats (guint64 n, guint32 seed)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  float *x = g_new (float, MAX (n, 1));
  for (guint64 i = 0; i < n; i++)
    x[i] = (float) g_rand_double_range (rand, -1.0, 1.0);
  return x;
}

/* Output buffers start as NaN, so an entry left unwritten shows. */
static float *
nan_floats (guint64 n)
{
  float *x = g_new (float, MAX (n, 1));
  for (guint64 i = 0; i < n; i++)
    x[i] = NAN;
  return x;
}

static void
run_isa (const SpxBlockCsr *csr, const float *P, const float *Q, guint64 kd,
         float *out, guint threads, SpxIsa isa)
{
  SpxEngineOptions options = { .threads = threads, .isa = isa };
  GError *error = NULL;
  gboolean ok = spx_sddmm (csr, P, Q, kd, out, &options, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
}

/* The fastest kernels this processor runs. */
static void
run (const SpxBlockCsr *csr, const float *P, const float *Q, guint64 kd,
     float *out, guint threads)
{
  run_isa (csr, P, Q, kd, out, threads, spx_isa_best ());
}

/* Every entry of every block against a double-precision dot product;
 * entries outside m×k must be exactly 0. */
static void
check_against_reference (const SpxBlockCsr *csr, const float *P,
                         const float *Q, guint64 kd, const float *out)
{
  guint64 b = csr->b;

  for (guint64 br = 0; br < csr->brows; br++)
    for (guint64 i = csr->row_offsets[br]; i < csr->row_offsets[br + 1]; i++)
      for (guint64 r = 0; r < b; r++)
        for (guint64 c = 0; c < b; c++)
          {
            guint64 row = br * b + r, col = csr->col_indices[i] * b + c;
            float got = out[i * b * b + r * b + c];
            if (row >= csr->m || col >= csr->k)
              {
                g_assert_true (got == 0.0f);
                continue;
              }
            double want = 0.0, scale = 0.0;
            for (guint64 t = 0; t < kd; t++)
              {
                double x = (double) P[row * kd + t] * Q[col * kd + t];
                want += x;
                scale += fabs (x);
              }
            g_assert_cmpfloat_with_epsilon (got, want, 1e-5 * scale + 1e-30);
          }
}

/* One and two threads of isa's kernels, compared with the reference and
 * with each other byte for byte (instruction sets sum in different
 * orders, so only thread counts must agree). */
static void
check_pattern (const SpxMask *mask, guint64 kd, guint32 seed, SpxIsa isa)
{
  SpxBlockCsr csr;
  spx_block_csr_from_mask (&csr, mask);
  guint64 n_out = csr.n_blocks * csr.b * csr.b;
  g_autofree float *P = random_floats (csr.m * kd, seed);
  g_autofree float *Q = random_floats (csr.k * kd, seed + 1);
  g_autofree float *one = nan_floats (n_out);
  g_autofree float *two = nan_floats (n_out);

  run_isa (&csr, P, Q, kd, one, 1, isa);
  check_against_reference (&csr, P, Q, kd, one);
  run_isa (&csr, P, Q, kd, two, 2, isa);
  g_assert_cmpmem (one, n_out * sizeof (float), two, n_out * sizeof (float));
  spx_block_csr_clear (&csr);
}

/* ------------------------------------------------------------------ */
/* spx_block_csr_from_mask / clear                                     */

static void
test_from_mask (void)
{
  /* 5×7 in 2×2 blocks: 3 block-rows (the last one row high), 4
   * block-columns (the last one column wide); block-row 1 is empty. */
  g_autoptr(SpxMask) mask = new_mask (5, 7, 2);
  spx_mask_set (mask, 2, 3);
  spx_mask_set (mask, 0, 3);
  spx_mask_set (mask, 2, 0);
  spx_mask_set (mask, 0, 1);
  spx_mask_set (mask, 2, 2);
  static const guint64 offsets[] = { 0, 2, 2, 5 };
  static const guint32 cols[] = { 1, 3, 0, 2, 3 };

  SpxBlockCsr csr;
  spx_block_csr_from_mask (&csr, mask);
  g_assert_cmpuint (csr.m, ==, 5);
  g_assert_cmpuint (csr.k, ==, 7);
  g_assert_cmpuint (csr.b, ==, 2);
  g_assert_cmpuint (csr.brows, ==, 3);
  g_assert_cmpuint (csr.bcols, ==, 4);
  g_assert_cmpuint (csr.n_blocks, ==, 5);
  g_assert_cmpmem (csr.row_offsets, sizeof offsets, offsets, sizeof offsets);
  g_assert_cmpmem (csr.col_indices, sizeof cols, cols, sizeof cols);
  g_assert_true (spx_block_csr_validate (&csr, NULL));

  spx_block_csr_clear (&csr);
  g_assert_null (csr.row_offsets);
  g_assert_null (csr.col_indices);
  g_assert_cmpuint (csr.n_blocks, ==, 0);
  g_assert_cmpuint (csr.m, ==, 0);
  g_assert_cmpuint (csr.b, ==, 0);
}

static void
test_from_mask_empty (void)
{
  g_autoptr(SpxMask) mask = new_mask (9, 4, 3);
  static const guint64 offsets[] = { 0, 0, 0, 0 };

  SpxBlockCsr csr;
  spx_block_csr_from_mask (&csr, mask);
  g_assert_cmpuint (csr.brows, ==, 3);
  g_assert_cmpuint (csr.bcols, ==, 2);
  g_assert_cmpuint (csr.n_blocks, ==, 0);
  g_assert_cmpmem (csr.row_offsets, sizeof offsets, offsets, sizeof offsets);
  g_assert_true (spx_block_csr_validate (&csr, NULL));
  spx_block_csr_clear (&csr);
  spx_block_csr_clear (NULL);
}

/* ------------------------------------------------------------------ */
/* Validation                                                          */

/* 10×10 in 4×4 blocks: 3×3 blocks, 5 of them. */
static const guint64 good_offsets[] = { 0, 2, 2, 5 };
static const guint32 good_cols[] = { 0, 2, 0, 1, 2 };

static SpxBlockCsr
good_pattern (guint64 *offsets, guint32 *cols)
{
  memcpy (offsets, good_offsets, sizeof good_offsets);
  memcpy (cols, good_cols, sizeof good_cols);
  return (SpxBlockCsr) {
    .m = 10, .k = 10, .b = 4, .brows = 3, .bcols = 3, .n_blocks = 5,
    .row_offsets = offsets, .col_indices = cols,
  };
}

/* Refused by the validator, spx_sddmm and spx_sddmm_bf16, which must leave
 * out alone;
 * the message must contain what. */
static void
assert_refused (const SpxBlockCsr *csr, guint64 kd, const char *what)
{
  GError *error = NULL;
  float P[12 * 8] = { 0 }, Q[12 * 8] = { 0 }, out[8 * 16];
  guint16 P16[12 * 8] = { 0 }, Q16[12 * 8] = { 0 };

  for (guint bf16 = 0; bf16 < 2; bf16++)
    {
      for (guint i = 0; i < G_N_ELEMENTS (out); i++)
        out[i] = 42.0f;
      g_assert_false (bf16 ? spx_sddmm_bf16 (csr, P16, Q16, kd, out, NULL,
                                             &error)
                           : spx_sddmm (csr, P, Q, kd, out, NULL, &error));
      g_assert_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID);
      g_test_message ("refused: %s", error->message);
      if (strstr (error->message, what) == NULL)
        g_error ("message \"%s\" lacks \"%s\"", error->message, what);
      g_clear_error (&error);
      for (guint i = 0; i < G_N_ELEMENTS (out); i++)
        g_assert_true (out[i] == 42.0f);
    }

  if (kd == 0)
    return;
  g_assert_false (spx_block_csr_validate (csr, &error));
  g_assert_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, what));
  g_clear_error (&error);
}

static void
test_validate (void)
{
  guint64 offsets[4];
  guint32 cols[5];
  SpxBlockCsr csr = good_pattern (offsets, cols);
  GError *error = NULL;

  g_assert_true (spx_block_csr_validate (&csr, &error));
  g_assert_no_error (error);

  assert_refused (&csr, 0, "kd is 0");

  csr = good_pattern (offsets, cols);
  offsets[0] = 1;
  assert_refused (&csr, 8, "row_offsets[0] is 1: expected 0");

  csr = good_pattern (offsets, cols);
  offsets[2] = 1;
  assert_refused (&csr, 8, "block-row 1: row_offsets go down from 2 to 1");

  csr = good_pattern (offsets, cols);
  offsets[3] = 4;
  assert_refused (&csr, 8, "row_offsets end at 4, but there are 5 blocks");

  csr = good_pattern (offsets, cols);
  csr.n_blocks = 6;
  assert_refused (&csr, 8, "row_offsets end at 5, but there are 6 blocks");

  csr = good_pattern (offsets, cols);
  cols[3] = 2;
  cols[4] = 1;
  assert_refused (&csr, 8, "block-row 2: column 1 after 2: columns must "
                  "increase");

  csr = good_pattern (offsets, cols);
  cols[1] = 0;
  assert_refused (&csr, 8, "block-row 0: column 0 after 0: columns must "
                  "increase");

  csr = good_pattern (offsets, cols);
  cols[4] = 3;
  assert_refused (&csr, 8, "block-row 2: column 3 is past the last "
                  "block-column");

  csr = good_pattern (offsets, cols);
  csr.m = 13;
  assert_refused (&csr, 8, "13 rows in blocks of 4 make 4 block-rows, but "
                  "the pattern says 3");

  csr = good_pattern (offsets, cols);
  csr.k = 8;
  assert_refused (&csr, 8, "8 columns in blocks of 4 make 2 block-columns");

  csr = good_pattern (offsets, cols);
  csr.b = 0;
  assert_refused (&csr, 8, "block size 0");

  csr = good_pattern (offsets, cols);
  csr.m = 0;
  assert_refused (&csr, 8, "expected at least one row");

  csr = good_pattern (offsets, cols);
  csr.col_indices = NULL;
  assert_refused (&csr, 8, "5 blocks but no col_indices");

  csr = good_pattern (offsets, cols);
  csr.row_offsets = NULL;
  assert_refused (&csr, 8, "no row_offsets");
}

/* ------------------------------------------------------------------ */
/* SDDMM                                                               */

/* Odd ones leave a vector's worth of kd over, 255 one short of whole. */
static const guint64 kds[] = { 1, 3, 17, 64, 255 };

/* A test's data: an instruction set and a block size. */
#define CASE(isa, b) GUINT_TO_POINTER ((guint) (isa) << 16 | (b))
#define CASE_ISA(data) ((SpxIsa) (GPOINTER_TO_UINT (data) >> 16))
#define CASE_B(data) (GPOINTER_TO_UINT (data) & 0xffff)

/* FALSE, and the test skipped, when this processor cannot run isa. */
static gboolean
have_isa (SpxIsa isa)
{
  if (spx_isa_supported (isa))
    return TRUE;
  g_test_skip ("this processor does not run these kernels");
  return FALSE;
}

/* Random patterns on a ragged shape and on an exact multiple of b. */
static void
test_random (gconstpointer data)
{
  guint b = CASE_B (data);
  SpxIsa isa = CASE_ISA (data);

  if (!have_isa (isa))
    return;
  const guint64 shapes[][2] = {
    { 5 * b + b / 2 + 1, 4 * b + b - 1 },
    { 3 * b, 6 * b },
    { 2 * b + 1, 7 },
  };

  for (guint s = 0; s < G_N_ELEMENTS (shapes); s++)
    for (guint d = 0; d < G_N_ELEMENTS (kds); d++)
      {
        g_autoptr(SpxMask) mask = random_mask (shapes[s][0], shapes[s][1], b,
                                               0.4, 100 * b + s);
        check_pattern (mask, kds[d], 7 * s + d, isa);
      }
}

static void
test_full (gconstpointer data)
{
  guint b = CASE_B (data);
  SpxIsa isa = CASE_ISA (data);

  if (!have_isa (isa))
    return;

  for (guint d = 0; d < G_N_ELEMENTS (kds); d++)
    {
      g_autoptr(SpxMask) mask = new_mask (3 * b + 1, 2 * b + b / 2 + 1, b);
      spx_mask_fill (mask);
      check_pattern (mask, kds[d], d, isa);
    }
}

/* A single block, in a middle and in the ragged corner; one dense
 * block-row, an interior one and the ragged last one. */
static void
test_single_and_row (gconstpointer data)
{
  guint b = CASE_B (data);
  SpxIsa isa = CASE_ISA (data);

  if (!have_isa (isa))
    return;
  guint64 m = 4 * b + b / 2 + 1, k = 5 * b + b / 3 + 1;

  for (guint d = 0; d < G_N_ELEMENTS (kds); d++)
    {
      g_autoptr(SpxMask) middle = new_mask (m, k, b);
      spx_mask_set (middle, 1, 2);
      check_pattern (middle, kds[d], d, isa);

      g_autoptr(SpxMask) corner = new_mask (m, k, b);
      spx_mask_set (corner, corner->brows - 1, corner->bcols - 1);
      check_pattern (corner, kds[d], d, isa);

      g_autoptr(SpxMask) rows = new_mask (m, k, b);
      for (guint64 bc = 0; bc < rows->bcols; bc++)
        {
          spx_mask_set (rows, 2, bc);
          spx_mask_set (rows, rows->brows - 1, bc);
        }
      check_pattern (rows, kds[d], d, isa);
    }
}

static void
test_empty (void)
{
  g_autoptr(SpxMask) mask = new_mask (20, 30, 4);
  SpxBlockCsr csr;
  float sentinel = 42.0f, P[20] = { 0 }, Q[30] = { 0 };
  GError *error = NULL;

  spx_block_csr_from_mask (&csr, mask);
  g_assert_true (spx_sddmm (&csr, P, Q, 1, &sentinel, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (sentinel == 42.0f);
  /* Nothing to read or write: no buffers needed. */
  g_assert_true (spx_sddmm (&csr, NULL, NULL, 1, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (spx_sddmm_bf16 (&csr, NULL, NULL, 1, NULL, NULL, &error));
  g_assert_no_error (error);
  spx_block_csr_clear (&csr);
}

/* Entries outside m×k stay 0 even when Q holds an infinity (0 × ∞ would
 * be NaN): a ragged corner block of every instruction set. */
static void
test_outside_inf (gconstpointer data)
{
  guint b = CASE_B (data);
  SpxIsa isa = CASE_ISA (data);
  guint64 m = b + 1, k = 2 * b, kd = 5;
  g_autoptr(SpxMask) mask = new_mask (m, k, b);
  SpxBlockCsr csr;

  if (!have_isa (isa))
    return;
  spx_mask_set (mask, 1, 1);
  spx_block_csr_from_mask (&csr, mask);
  g_autofree float *P = random_floats (m * kd, 3);
  g_autofree float *Q = random_floats (k * kd, 4);
  g_autofree float *out = nan_floats ((gsize) b * b);
  Q[(b + 1) * kd + 2] = INFINITY;
  run_isa (&csr, P, Q, kd, out, 1, isa);
  for (guint r = 1; r < b; r++) /* only row 0 of the block is inside */
    for (guint c = 0; c < b; c++)
      g_assert_true (out[r * b + c] == 0.0f);
  g_assert_true (isinf (out[1]));
  spx_block_csr_clear (&csr);
}

/* More threads than blocks, and the default thread count. */
static void
test_threads (void)
{
  g_autoptr(SpxMask) mask = random_mask (45, 61, 4, 0.3, 5);
  SpxBlockCsr csr;
  spx_block_csr_from_mask (&csr, mask);
  guint64 kd = 19, n_out = csr.n_blocks * 16;
  g_autofree float *P = random_floats (csr.m * kd, 1);
  g_autofree float *Q = random_floats (csr.k * kd, 2);
  g_autofree float *one = nan_floats (n_out);
  g_autofree float *other = nan_floats (n_out);
  GError *error = NULL;

  run (&csr, P, Q, kd, one, 1);
  run (&csr, P, Q, kd, other, 64);
  g_assert_cmpmem (one, n_out * sizeof (float), other, n_out * sizeof (float));
  memset (other, 0xff, n_out * sizeof (float));
  g_assert_true (spx_sddmm (&csr, P, Q, kd, other, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (one, n_out * sizeof (float), other, n_out * sizeof (float));

  g_autoptr(SpxMask) single = new_mask (8, 8, 8);
  spx_mask_fill (single);
  check_pattern (single, kd, 3, spx_isa_best ());
  spx_block_csr_clear (&csr);
}

/* A measurement, not a check: registered only with -m perf.
 * m = k = 2048, kd = 256, density 0.1, b = 1, 4, 8 and 16. */
static void
test_perf (void)
{
  static const guint blocks[] = { 1, 4, 8, 16 };
  guint64 n = 2048, kd = 256;
  g_autofree float *P = random_floats (n * kd, 1);
  g_autofree float *Q = random_floats (n * kd, 2);

  for (guint i = 0; i < G_N_ELEMENTS (blocks); i++)
    {
      guint b = blocks[i];
      g_autoptr(SpxMask) mask = random_mask (n, n, b, 0.1, 11);
      SpxBlockCsr csr;
      spx_block_csr_from_mask (&csr, mask);
      g_autofree float *out = nan_floats (csr.n_blocks * b * b);
      double flops = 2.0 * (double) kd * (double) csr.n_blocks * b * b;
      for (guint threads = 1; threads <= 2; threads++)
        {
          double best = G_MAXDOUBLE;
          run (&csr, P, Q, kd, out, threads); /* warm-up */
          for (guint rep = 0; rep < 7; rep++)
            {
              gint64 start = g_get_monotonic_time ();
              run (&csr, P, Q, kd, out, threads);
              best = MIN (best, (g_get_monotonic_time () - start) * 1e-6);
            }
          g_test_minimized_result (best, "sddmm b = %u, %u thread(s): %.3f "
                                   "ms, %.2f GFLOP/s", b, threads,
                                   best * 1e3, flops / best * 1e-9);
        }
      spx_block_csr_clear (&csr);
    }
}

/* ------------------------------------------------------------------ */
/* SDDMM in bf16                                                       */

/* The paths spx_sddmm_bf16 takes: P and Q widened to fp32 for generic's
 * and AVX2's kernels, vdpbf16ps for AVX-512 on a processor with
 * AVX512_BF16 (skipped elsewhere). */
typedef enum {
  PATH_GENERIC,
  PATH_AVX2,
  PATH_AVX512_BF16,
  N_PATHS,
} Path;

static const char *const path_names[N_PATHS] = {
  "generic", "avx2", "avx512-bf16",
};

static const SpxIsa path_isas[N_PATHS] = {
  SPX_ISA_GENERIC, SPX_ISA_AVX2, SPX_ISA_AVX512,
};

/* FALSE, and the test skipped, when this processor cannot take path. */
static gboolean
have_path (Path path)
{
  if (path == PATH_AVX512_BF16)
    {
      if (!spx_isa_supported (SPX_ISA_AVX512_BF16))
        {
          g_test_skip ("this processor lacks AVX512_BF16");
          return FALSE;
        }
      /* the bf16 kernels, not the widened fallback */
      g_assert_nonnull (spx_sddmm_set_bf16 (SPX_ISA_AVX512));
      return TRUE;
    }
  g_assert_null (spx_sddmm_set_bf16 (path_isas[path]));
  return have_isa (path_isas[path]);
}

/* Random bf16 values in [-1, 1). */
static guint16 *
random_bf16 (guint64 n, guint32 seed)
{
  g_autofree float *x = random_floats (n, seed);
  guint16 *h = g_new (guint16, MAX (n, 1));
  spx_bf16_from_floats (x, h, n);
  return h;
}

static void
run_bf16 (const SpxBlockCsr *csr, const guint16 *P, const guint16 *Q,
          guint64 kd, float *out, guint threads, Path path)
{
  SpxEngineOptions options = { .threads = threads, .isa = path_isas[path] };
  GError *error = NULL;
  gboolean ok = spx_sddmm_bf16 (csr, P, Q, kd, out, &options, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
}

/* Entry (row, col) against the fp64 dot product of the bf16 values
 * themselves (each product of two bf16 is exact in fp32 and fp64), so
 * only the fp32 sums err: kd terms added in any order into fp32 err by at
 * most about (kd − 1)·2^-24·Σ|p·q|, and γ = kd·2^-24 bounds that. */
static void
check_entry_bf16 (const guint16 *p, const guint16 *q, guint64 kd,
                  float got)
{
  double want = 0.0, scale = 0.0;

  for (guint64 t = 0; t < kd; t++)
    {
      double x = (double) spx_bf16_to_float (p[t]) * spx_bf16_to_float (q[t]);
      want += x;
      scale += fabs (x);
    }
  if (fabs (got - want) > ldexp ((double) kd, -24) * scale)
    g_error ("%g, expected %g (within %g)", got, want,
             ldexp ((double) kd, -24) * scale);
}

/* Every entry of every block; those outside m×k must be exactly 0. */
static void
check_reference_bf16 (const SpxBlockCsr *csr, const guint16 *P,
                      const guint16 *Q, guint64 kd, const float *out)
{
  guint64 b = csr->b;

  for (guint64 br = 0; br < csr->brows; br++)
    for (guint64 i = csr->row_offsets[br]; i < csr->row_offsets[br + 1]; i++)
      for (guint64 r = 0; r < b; r++)
        for (guint64 c = 0; c < b; c++)
          {
            guint64 row = br * b + r, col = csr->col_indices[i] * b + c;
            float got = out[i * b * b + r * b + c];
            if (row >= csr->m || col >= csr->k)
              g_assert_true (got == 0.0f);
            else
              check_entry_bf16 (P + row * kd, Q + col * kd, kd, got);
          }
}

/* One and two threads, against the reference and byte for byte. */
static void
check_pattern_bf16 (const SpxMask *mask, guint64 kd, guint32 seed,
                    Path path)
{
  SpxBlockCsr csr;
  spx_block_csr_from_mask (&csr, mask);
  guint64 n_out = csr.n_blocks * csr.b * csr.b;
  g_autofree guint16 *P = random_bf16 (csr.m * kd, seed);
  g_autofree guint16 *Q = random_bf16 (csr.k * kd, seed + 1);
  g_autofree float *one = nan_floats (n_out);
  g_autofree float *two = nan_floats (n_out);

  run_bf16 (&csr, P, Q, kd, one, 1, path);
  check_reference_bf16 (&csr, P, Q, kd, one);
  run_bf16 (&csr, P, Q, kd, two, 2, path);
  g_assert_cmpmem (one, n_out * sizeof (float), two, n_out * sizeof (float));
  spx_block_csr_clear (&csr);
}

/* Odd ones pad the last pair; around 32 and 64 the kernels' steps (2 to
 * 32 of kd) end whole, one short or one over. */
static const guint64 kds_bf16[] = { 1, 2, 3, 17, 31, 33, 64, 255 };

/* Random patterns on a ragged shape and an exact multiple of b, a full
 * one, and a single block in the ragged corner. */
static void
test_bf16 (gconstpointer data)
{
  guint b = CASE_B (data);
  Path path = (Path) CASE_ISA (data);

  if (!have_path (path))
    return;
  const guint64 shapes[][2] = {
    { 5 * b + b / 2 + 1, 4 * b + b - 1 },
    { 3 * b, 6 * b },
    { 2 * b + 1, 7 },
  };
  for (guint d = 0; d < G_N_ELEMENTS (kds_bf16); d++)
    {
      for (guint s = 0; s < G_N_ELEMENTS (shapes); s++)
        {
          g_autoptr(SpxMask) mask = random_mask (shapes[s][0], shapes[s][1],
                                                 b, 0.4, 100 * b + s);
          check_pattern_bf16 (mask, kds_bf16[d], 7 * s + d, path);
        }
      g_autoptr(SpxMask) full = new_mask (3 * b + 1, 2 * b + b / 2 + 1, b);
      spx_mask_fill (full);
      check_pattern_bf16 (full, kds_bf16[d], d, path);
      g_autoptr(SpxMask) corner = new_mask (2 * b + 1, 2 * b + b / 3 + 1, b);
      spx_mask_set (corner, corner->brows - 1, corner->bcols - 1);
      check_pattern_bf16 (corner, kds_bf16[d], d, path);
    }
}

/* Outside m×k stays 0 with an infinity in Q (0 × ∞ would be NaN); the
 * infinity still reaches its entry inside. */
static void
test_bf16_outside_inf (gconstpointer data)
{
  guint b = CASE_B (data);
  Path path = (Path) CASE_ISA (data);
  guint64 m = b + 1, k = 2 * b, kd = 5;
  g_autoptr(SpxMask) mask = new_mask (m, k, b);
  SpxBlockCsr csr;

  if (!have_path (path))
    return;
  spx_mask_set (mask, 1, 1);
  spx_block_csr_from_mask (&csr, mask);
  g_autofree guint16 *P = random_bf16 (m * kd, 3);
  g_autofree guint16 *Q = random_bf16 (k * kd, 4);
  g_autofree float *out = nan_floats ((gsize) b * b);
  P[b * kd + 2] = 0x3f80; /* 1: the infinity cannot meet a 0 */
  Q[(b + 1) * kd + 2] = spx_bf16_from_float (INFINITY);
  run_bf16 (&csr, P, Q, kd, out, 1, path);
  for (guint r = 1; r < b; r++) /* only row 0 of the block is inside */
    for (guint c = 0; c < b; c++)
      g_assert_true (out[r * b + c] == 0.0f);
  g_assert_true (isinf (out[1]));
  spx_block_csr_clear (&csr);
}

/* Milliseconds: of CPU time on one thread (steadier than the clock on a
 * shared machine: time spent descheduled does not count), else of the
 * clock. */
static double
now_ms (guint threads)
{
  struct timespec t;

  clock_gettime (threads == 1 ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC,
                 &t);
  return (double) t.tv_sec * 1e3 + (double) t.tv_nsec * 1e-6;
}

/* The vdpbf16ps kernels alone, which AMX replaces in spx_sddmm_bf16
 * where there is AMX: n rows of P in a scrambled order against one
 * block-column of cols ≤ b rows of Q, packed. Entries past cols meet the
 * panel's zeros. */
static void
check_lanes (guint b, guint cols, guint64 kd)
{
  const SpxSddmmSetBf16 *set = &spx_sddmm_avx512bf16_lanes_set;
  guint n = 37;
  g_autofree guint16 *P = random_bf16 (n * kd, b);
  g_autofree guint16 *Q = random_bf16 (cols * kd, b + 1);
  g_autofree guint16 *panel = g_new (guint16, 2 * (b + 15) * (kd + 32));
  g_autofree float *out = nan_floats (n * b);
  const guint16 *p[37];
  float *o[37];

  for (guint i = 0; i < n; i++)
    {
      p[i] = P + (7 * i % n) * kd;
      o[i] = out + i * b;
    }
  set->sddmm_pack (b) (Q, kd, b, cols, panel);
  set->sddmm_panel (b) (p, o, n, kd, b, panel);
  for (guint i = 0; i < n; i++)
    for (guint c = 0; c < b; c++)
      if (c < cols)
        check_entry_bf16 (p[i], Q + c * kd, kd, o[i][c]);
      else
        g_assert_true (o[i][c] == 0.0f);
}

static void
test_bf16_lanes (void)
{
  static const guint blocks[] = { 3, 4, 5, 8, 12, 16, 17, 32, 48, 64, 100 };

  if (!have_path (PATH_AVX512_BF16))
    return;
  for (guint i = 0; i < G_N_ELEMENTS (blocks); i++)
    for (guint d = 0; d < G_N_ELEMENTS (kds_bf16); d++)
      {
        check_lanes (blocks[i], blocks[i], kds_bf16[d]);
        check_lanes (blocks[i], blocks[i] * 2 / 3, kds_bf16[d]);
      }
}

/* A measurement, not a check (-m perf): bf16 against fp32 on the same
 * pattern and values (rounded), m = k = 2048, kd = 256, density 0.1. */
static double
best_ms (const SpxBlockCsr *csr, gconstpointer P, gconstpointer Q,
         guint64 kd, float *out, guint threads, gboolean bf16)
{
  SpxEngineOptions options = { .threads = threads, .isa = spx_isa_best () };
  double best = G_MAXDOUBLE;

  for (guint rep = 0; rep < 16; rep++) /* the first one warms up */
    {
      double start = now_ms (threads);
      gboolean ok = bf16 ? spx_sddmm_bf16 (csr, P, Q, kd, out, &options, NULL)
                         : spx_sddmm (csr, P, Q, kd, out, &options, NULL);
      g_assert_true (ok);
      if (rep > 0)
        best = MIN (best, now_ms (threads) - start);
    }
  return best;
}

static void
test_perf_bf16 (void)
{
  static const guint blocks[] = { 1, 4, 8, 16, 32, 64 };
  guint64 n = 2048, kd = 256;
  g_autofree guint16 *P16 = random_bf16 (n * kd, 1);
  g_autofree guint16 *Q16 = random_bf16 (n * kd, 2);
  g_autofree float *P = g_new (float, n * kd);
  g_autofree float *Q = g_new (float, n * kd);

  for (guint64 i = 0; i < n * kd; i++)
    {
      P[i] = spx_bf16_to_float (P16[i]);
      Q[i] = spx_bf16_to_float (Q16[i]);
    }
  for (guint i = 0; i < G_N_ELEMENTS (blocks); i++)
    {
      guint b = blocks[i];
      g_autoptr(SpxMask) mask = random_mask (n, n, b, 0.1, 11);
      SpxBlockCsr csr;
      spx_block_csr_from_mask (&csr, mask);
      g_autofree float *out = nan_floats (csr.n_blocks * b * b);
      double gflop = 2e-9 * (double) kd * (double) csr.n_blocks * b * b;
      for (guint threads = 1; threads <= 2; threads++)
        {
          double f32 = best_ms (&csr, P, Q, kd, out, threads, FALSE);
          double bf = best_ms (&csr, P16, Q16, kd, out, threads, TRUE);
          g_test_minimized_result (bf, "sddmm b = %u, %u thread(s): fp32 "
                                   "%.3f ms (%.1f GFLOP/s), bf16 %.3f ms "
                                   "(%.1f GFLOP/s), fp32/bf16 %.2f", b,
                                   threads, f32, gflop / f32 * 1e3, bf,
                                   gflop / bf * 1e3, f32 / bf);
        }
      spx_block_csr_clear (&csr);
    }
}

int
main (int argc, char **argv)
{
  /* 8, 16 and 32 take the packed kernels where there are some. */
  static const guint blocks[] = { 1, 2, 4, 8, 16, 32, 3 };

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/csr/from-mask", test_from_mask);
  g_test_add_func ("/csr/from-mask-empty", test_from_mask_empty);
  g_test_add_func ("/csr/validate", test_validate);
  for (SpxIsa isa = SPX_ISA_GENERIC; isa <= SPX_ISA_AVX512; isa++)
    for (guint i = 0; i < G_N_ELEMENTS (blocks); i++)
      {
        gconstpointer c = CASE (isa, blocks[i]);
        const char *name = spx_isa_to_string (isa);
        g_autofree char *random = g_strdup_printf ("/sddmm/%s/random/b%u",
                                                   name, blocks[i]);
        g_autofree char *full = g_strdup_printf ("/sddmm/%s/full/b%u", name,
                                                 blocks[i]);
        g_autofree char *single = g_strdup_printf (
          "/sddmm/%s/single-and-row/b%u", name, blocks[i]);
        g_autofree char *inf = g_strdup_printf ("/sddmm/%s/outside-inf/b%u",
                                                name, blocks[i]);
        g_test_add_data_func (random, c, test_random);
        g_test_add_data_func (full, c, test_full);
        g_test_add_data_func (single, c, test_single_and_row);
        if (blocks[i] > 1)
          g_test_add_data_func (inf, c, test_outside_inf);
      }
  static const guint blocks_bf16[] = { 1, 2, 3, 4, 5, 8, 12, 16, 17, 32,
                                        48, 64, 100 };
  for (Path path = 0; path < N_PATHS; path++)
    for (guint i = 0; i < G_N_ELEMENTS (blocks_bf16); i++)
      {
        gconstpointer c = CASE (path, blocks_bf16[i]);
        g_autofree char *name = g_strdup_printf ("/sddmm-bf16/%s/b%u",
                                                 path_names[path],
                                                 blocks_bf16[i]);
        g_autofree char *inf = g_strdup_printf (
          "/sddmm-bf16/%s/outside-inf/b%u", path_names[path], blocks_bf16[i]);
        g_test_add_data_func (name, c, test_bf16);
        if (blocks_bf16[i] > 1)
          g_test_add_data_func (inf, c, test_bf16_outside_inf);
      }
  g_test_add_func ("/sddmm-bf16/avx512-bf16/lanes", test_bf16_lanes);
  g_test_add_func ("/sddmm/empty", test_empty);
  g_test_add_func ("/sddmm/threads", test_threads);
  if (g_test_perf ())
    {
      g_test_add_func ("/sddmm/perf", test_perf);
      g_test_add_func ("/sddmm-bf16/perf", test_perf_bf16);
    }
  return g_test_run ();
}
