/* test-bf16.c: static and dynamic bf16 plans on every path this
 * processor runs (fp32 kernels on widened values, AVX512_BF16, AMX)
 * against a reference summed in double.
 *
 * The reference takes the bf16-rounded A and B, so every product a·b is
 * the same exact number on both sides (two 8-bit significands multiply
 * exactly in fp32) and the only error left is the fp32 summation: per
 * entry, |C − ref| ≤ γ·Σ|a·b| with γ = K·2^-24, K the terms summed (the
 * row's non-zeros, plus C's old value when accumulating). A second check
 * against the unrounded fp32 inputs adds bf16's input rounding: bf16
 * keeps 8 significant bits, so each of a and b is off by at most 2^-8
 * relative (not 2^-9: that would be 9 bits) and a product by 2·2^-8 and
 * a hair, hence |C − ref32| ≤ (2.01·2^-8 + γ)·Σ|a·b|. Denormals are not
 * generated (vdpbf16ps and AMX flush them). */
#include "spx-engine.h"
#include "spx-bf16.h"
#include "spx-mask-gen.h"

#include <math.h>
#include <string.h>

static const guint block_sizes[] = { 1, 2, 3, 4, 5, 8, 16, 32 };

/* The bf16 paths, by the ISA asked for (given, not tuned): avx512 and
 * avx2 run fp32 FMAs on widened values, avx512-bf16 vdpbf16ps, amx-bf16
 * AMX tiles where a block fills one. */
static const SpxIsa paths[] = {
  SPX_ISA_GENERIC, SPX_ISA_AVX2, SPX_ISA_AVX512, SPX_ISA_AVX512_BF16,
  SPX_ISA_AMX_BF16,
};

typedef enum {
  SHAPE_MULTIPLES, SHAPE_RAGGED, SHAPE_N1, SHAPE_N17, SHAPE_WIDE,
  SHAPE_EMPTY, SHAPE_FULL, SHAPE_SINGLE, N_SHAPES
} Shape;

static const char *const shape_names[] = {
  "multiples", "ragged", "n1", "n17", "wide", "empty", "full", "single"
};

typedef struct {
  SpxMask *mask;
  guint64  m, k, n;
  float   *values, *B;     /* as drawn, fp32 */
  guint16 *values16, *B16; /* rounded */
  double  *ref, *ref32, *mag; /* rounded and fp32 sums, Σ|a·b| */
  guint64 *terms;          /* per row of C */
} Problem;

static void
fill (float *x, gsize len, SpxRng *rng)
{
  for (gsize i = 0; i < len; i++)
    x[i] = (float) (2.0 * spx_rng_uniform (rng) - 1.0);
}

/* One block's contribution to the sums, elements outside m×k skipped. */
static void
add_block (Problem *p, guint64 br, guint64 bc, gsize i)
{
  guint b = p->mask->block;
  for (guint r = 0; r < b && br * b + r < p->m; r++)
    for (guint c = 0; c < b && bc * b + c < p->k; c++)
      {
        guint64 row = br * b + r, kk = bc * b + c;
        gsize v = i * b * b + r * b + c;
        double a = spx_bf16_to_float (p->values16[v]), a32 = p->values[v];
        p->terms[row]++;
        for (guint64 x = 0; x < p->n; x++)
          {
            double bx = spx_bf16_to_float (p->B16[kk * p->n + x]);
            p->ref[row * p->n + x] += a * bx;
            p->ref32[row * p->n + x] += a32 * p->B[kk * p->n + x];
            p->mag[row * p->n + x] += fabs (a * bx);
          }
      }
}

static void
reference (Problem *p)
{
  SpxMaskIter it;
  guint64 br, bc;
  gsize i = 0;
  spx_mask_iter_init (&it, p->mask);
  while (spx_mask_iter_next (&it, &br, &bc))
    add_block (p, br, bc, i++);
}

static SpxMask *
shape_mask (Shape shape, guint b, guint64 *n)
{
  guint64 m = 6 * b, k = 5 * b;
  *n = shape == SHAPE_N1 ? 1 : shape == SHAPE_N17 ? 17 : 40;
  if (shape == SHAPE_WIDE) /* two panels of B, tiles and tails */
    *n = 530;
  if (shape == SHAPE_RAGGED)
    {
      m = 6 * b + (b > 1 ? b / 2 : 3);
      k = 5 * b + (b > 1 ? b - 1 : 2);
      *n = 35;
    }
  SpxGenOptions gen;
  spx_gen_options_init (&gen);
  gen.density = 0.4;
  gen.seed = b * 37 + shape;
  SpxMask *mask = spx_mask_generate (m, k, b, &gen, NULL);
  if (shape == SHAPE_EMPTY)
    spx_mask_clear_all (mask);
  else if (shape == SHAPE_FULL)
    spx_mask_fill (mask);
  else if (shape == SHAPE_SINGLE)
    {
      spx_mask_clear_all (mask);
      spx_mask_set (mask, 2, 3);
    }
  return mask;
}

/* Takes the mask. */
static Problem
problem_new (SpxMask *mask, guint64 n, guint64 seed)
{
  Problem p = { .mask = mask, .m = mask->rows, .k = mask->cols, .n = n };
  gsize len = spx_mask_count (mask) * mask->block * mask->block;
  SpxRng rng;
  spx_rng_init (&rng, seed);
  p.values = g_new (float, MAX (len, 1));
  p.values16 = g_new (guint16, MAX (len, 1));
  p.B = g_new (float, p.k * n);
  p.B16 = g_new (guint16, p.k * n);
  p.ref = g_new0 (double, p.m * n);
  p.ref32 = g_new0 (double, p.m * n);
  p.mag = g_new0 (double, p.m * n);
  p.terms = g_new0 (guint64, p.m);
  fill (p.values, len, &rng);
  fill (p.B, p.k * n, &rng);
  spx_bf16_from_floats (p.values, p.values16, len);
  spx_bf16_from_floats (p.B, p.B16, p.k * n);
  reference (&p);
  return p;
}

static void
problem_clear (Problem *p)
{
  spx_mask_free (p->mask);
  g_free (p->values);
  g_free (p->values16);
  g_free (p->B);
  g_free (p->B16);
  g_free (p->ref);
  g_free (p->ref32);
  g_free (p->mag);
  g_free (p->terms);
}

/* C against ref + C0 (when given) within the bound above; input_error
 * is the inputs' rounding (0 against the rounded reference). */
static void
assert_close (const Problem *p, const float *C, const float *C0,
              const double *ref, double input_error, const char *what)
{
  for (gsize i = 0; i < p->m * p->n; i++)
    {
      double want = ref[i] + (C0 != NULL ? C0[i] : 0.0);
      double mag = p->mag[i] + (C0 != NULL ? fabs (C0[i]) : 0.0);
      double terms = (double) p->terms[i / p->n] + (C0 != NULL);
      double bound = (input_error + terms * 0x1p-24) * mag;
      if (!(fabs (C[i] - want) <= bound))
        g_error ("%s: C[%" G_GSIZE_FORMAT ",%" G_GSIZE_FORMAT "] = %.9g, "
                 "want %.9g ± %.3g (b=%u, %" G_GUINT64_FORMAT "×%"
                 G_GUINT64_FORMAT "×%" G_GUINT64_FORMAT ")", what,
                 i / p->n, i % p->n, C[i], want, bound, p->mask->block,
                 p->m, p->k, p->n);
    }
}

static SpxEngineOptions
bf16_options (SpxIsa isa, guint threads)
{
  SpxEngineOptions o = { .threads = threads, .isa = isa,
                         .type = SPX_CPU_BF16 };
  return o;
}

static void
run_static (const Problem *p, SpxIsa isa, guint threads, float *C,
            gboolean accumulate, const char **kernel)
{
  SpxEngineOptions options = bf16_options (isa, threads);
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxStaticPlan) plan = spx_static_plan_new (p->mask, p->values,
                                                        p->n, &options, &error);
  g_assert_no_error (error);
  spx_static_plan_execute_bf16 (plan, p->B16, C, accumulate);
  *kernel = spx_static_plan_kernel (plan);
}

static void
run_dynamic (const Problem *p, SpxIsa isa, guint threads, float *C,
             gboolean accumulate, const char **kernel)
{
  SpxEngineOptions options = bf16_options (isa, threads);
  SpxBlockCsr csr;
  spx_block_csr_from_mask (&csr, p->mask);
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxDynamicPlan) plan = spx_dynamic_plan_new (
    p->m, p->k, p->n, p->mask->block, csr.n_blocks, &options, &error);
  g_assert_no_error (error);
  g_assert_true (spx_dynamic_plan_execute_bf16 (plan, &csr, p->values16,
                                                p->B16, C, accumulate,
                                                &error));
  g_assert_no_error (error);
  *kernel = spx_dynamic_plan_kernel (plan);
  spx_block_csr_clear (&csr);
}

typedef struct {
  SpxIsa isa;
  guint  b;
} Case;

/* The kernel a path names: its ISA's; AMX only where it has tiles (else
 * its AVX512_BF16 fallback). */
static gboolean
kernel_fits (SpxIsa isa, guint b, const char *kernel)
{
  if (isa == SPX_ISA_AMX_BF16)
    return g_str_equal (kernel, b == 8 || b == 16 || b == 32 ? "amx-bf16"
                                                   : "avx512-bf16");
  return g_str_equal (kernel, spx_isa_to_string (isa));
}

static void
check_shape (const Case *c, Shape s)
{
  guint64 n = 0;
  SpxMask *mask = shape_mask (s, c->b, &n);
  Problem p = problem_new (mask, n, s + 7);
  gsize len = p.m * p.n, bytes = len * sizeof (float);
  g_autofree float *C1 = g_new (float, len), *C2 = g_new (float, len);
  g_autofree float *C0 = g_new (float, len);
  const char *kernel = NULL;
  g_autofree char *what = g_strdup_printf ("%s b=%u %s",
                                           spx_isa_to_string (c->isa), c->b,
                                           shape_names[s]);

  for (gsize i = 0; i < len; i++)
    C1[i] = NAN; /* overwrite must not read C */
  run_static (&p, c->isa, 1, C1, FALSE, &kernel);
  g_assert_true (kernel_fits (c->isa, c->b, kernel));
  assert_close (&p, C1, NULL, p.ref, 0, what);
  assert_close (&p, C1, NULL, p.ref32, 2.01 * 0x1p-8, what);
  run_static (&p, c->isa, 2, C2, FALSE, &kernel);
  g_assert_cmpmem (C1, bytes, C2, bytes);
  g_setenv ("SPX_TEST_SHARED_PANEL", "1", TRUE); /* one panel for both */
  run_static (&p, c->isa, 2, C2, FALSE, &kernel);
  g_unsetenv ("SPX_TEST_SHARED_PANEL");
  g_assert_cmpmem (C1, bytes, C2, bytes);
  for (gsize i = 0; i < len; i++)
    C2[i] = NAN;
  run_dynamic (&p, c->isa, 2, C2, FALSE, &kernel);
  g_assert_true (kernel_fits (c->isa, c->b, kernel));
  g_assert_cmpmem (C1, bytes, C2, bytes);
  /* accumulate onto an old C, static on 2 threads and dynamic on 1 */
  SpxRng rng;
  spx_rng_init (&rng, 99);
  fill (C0, len, &rng);
  memcpy (C2, C0, bytes);
  run_static (&p, c->isa, 2, C2, TRUE, &kernel);
  assert_close (&p, C2, C0, p.ref, 0, what);
  memcpy (C2, C0, bytes);
  run_dynamic (&p, c->isa, 1, C2, TRUE, &kernel);
  assert_close (&p, C2, C0, p.ref, 0, what);
  problem_clear (&p);
}

static void
test_plans (gconstpointer data)
{
  const Case *c = data;
  if (!spx_isa_supported (c->isa))
    {
      g_test_skip ("this processor lacks the instruction set");
      return;
    }
  for (Shape s = 0; s < N_SHAPES; s++)
    check_shape (c, s);
}

/* The plans say which kernel ran. */
static void
test_kernel_names (void)
{
  g_autoptr (SpxMask) mask = shape_mask (SHAPE_FULL, 16, &(guint64) { 0 });
  SpxEngineOptions options = { .threads = 1, .isa = SPX_ISA_GENERIC };
  g_autoptr (GError) error = NULL;
  g_autofree float *values = g_new0 (float, spx_mask_count (mask) * 256);
  g_autoptr (SpxStaticPlan) fp32 = spx_static_plan_new (mask, values, 8,
                                                        &options, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (spx_static_plan_kernel (fp32), ==, "generic");
  g_assert_cmpint (spx_static_plan_kernel_choice (fp32), ==,
                   SPX_KERNEL_FORCED);
  options.type = SPX_CPU_BF16;
  g_autoptr (SpxDynamicPlan) bf16 = spx_dynamic_plan_new (96, 80, 8, 16, 4,
                                                          &options, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (spx_dynamic_plan_kernel (bf16), ==, "generic");
  g_assert_cmpint (spx_dynamic_plan_kernel_choice (bf16), ==,
                   SPX_KERNEL_FORCED);
}

/* A number format the engine does not know is refused. */
static void
test_bad_type (void)
{
  SpxEngineOptions options = { .threads = 1, .isa = SPX_ISA_GENERIC,
                               .type = (SpxCpuType) 7 };
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxDynamicPlan) plan = spx_dynamic_plan_new (8, 8, 8, 4, 4,
                                                          &options, &error);
  g_assert_null (plan);
  g_assert_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID);
}

/* fp32 calls on a bf16 plan (and back) are programming errors: refused
 * without touching C. */
static void
test_wrong_type (void)
{
  g_autoptr (SpxMask) mask = shape_mask (SHAPE_SINGLE, 4, &(guint64) { 0 });
  float values[16] = { 1 }, B[20 * 8] = { 0 }, C[24 * 8];
  guint16 B16[20 * 8] = { 0 };
  SpxEngineOptions options = { .threads = 1, .isa = spx_isa_best (),
                               .type = SPX_CPU_BF16 };
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxStaticPlan) plan = spx_static_plan_new (mask, values, 8,
                                                        &options, &error);
  g_assert_no_error (error);
  memset (C, 0x7f, sizeof C);
  g_test_expect_message ("Spx", G_LOG_LEVEL_CRITICAL, "*SPX_CPU_FP32*");
  spx_static_plan_execute (plan, B, C, FALSE);
  g_test_assert_expected_messages ();
  options.type = SPX_CPU_FP32;
  g_autoptr (SpxStaticPlan) plan32 = spx_static_plan_new (mask, values, 8,
                                                          &options, &error);
  g_test_expect_message ("Spx", G_LOG_LEVEL_CRITICAL, "*SPX_CPU_BF16*");
  spx_static_plan_execute_bf16 (plan32, B16, C, FALSE);
  g_test_assert_expected_messages ();
  for (guint i = 0; i < G_N_ELEMENTS (C); i++)
    g_assert_cmpuint (((guint32 *) C)[i], ==, 0x7f7f7f7fu);
}

/* A bf16 pattern over the dynamic plan's budget is refused before C is
 * touched, like fp32's. */
static void
test_over_budget (void)
{
  guint64 n = 0;
  SpxMask *mask = shape_mask (SHAPE_FULL, 4, &n);
  Problem p = problem_new (mask, n, 5);
  SpxEngineOptions options = bf16_options (spx_isa_best (), 2);
  SpxBlockCsr csr;
  spx_block_csr_from_mask (&csr, p.mask);
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxDynamicPlan) plan = spx_dynamic_plan_new (
    p.m, p.k, p.n, 4, csr.n_blocks - 1, &options, &error);
  g_assert_no_error (error);
  g_autofree float *C = g_new (float, p.m * p.n);
  memset (C, 0x7f, p.m * p.n * sizeof (float));
  g_assert_false (spx_dynamic_plan_execute_bf16 (plan, &csr, p.values16,
                                                 p.B16, C, FALSE, &error));
  g_assert_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_OVER_BUDGET);
  for (gsize i = 0; i < p.m * p.n; i++)
    g_assert_cmpuint (((guint32 *) C)[i], ==, 0x7f7f7f7fu);
  spx_block_csr_clear (&csr);
  problem_clear (&p);
}

int
main (int argc, char **argv)
{
  static Case cases[G_N_ELEMENTS (paths) * G_N_ELEMENTS (block_sizes)];
  guint n = 0;

  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    for (guint j = 0; j < G_N_ELEMENTS (block_sizes); j++)
      {
        cases[n] = (Case) { paths[i], block_sizes[j] };
        g_autofree char *path = g_strdup_printf (
          "/bf16/plans/%s/b%u", spx_isa_to_string (paths[i]), block_sizes[j]);
        g_test_add_data_func (path, &cases[n++], test_plans);
      }
  g_test_add_func ("/bf16/kernel-names", test_kernel_names);
  g_test_add_func ("/bf16/wrong-type", test_wrong_type);
  g_test_add_func ("/bf16/bad-type", test_bad_type);
  g_test_add_func ("/bf16/over-budget", test_over_budget);
  return g_test_run ();
}
