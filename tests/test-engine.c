/* test-engine.c: static and dynamic plans against dense sgemm */
#include "spx-config.h"
#include "spx-engine.h"
#include "spx-bench.h"
#include "spx-bf16.h"
#include "spx-mask-gen.h"
#include "spx-util.h"

#include <math.h>
#include <string.h>

/* A problem: mask, its values, dense A, B, and the sgemm reference with an
 * error bound per element (|A|·|B| scaled by float precision). */
typedef struct {
  SpxMask *mask;
  guint64  m, k, n;
  float   *values, *A, *B, *ref, *bound;
} Problem;

static void
fill (float *x, gsize len, SpxRng *rng)
{
  for (gsize i = 0; i < len; i++)
    x[i] = (float) (2.0 * spx_rng_uniform (rng) - 1.0);
}

static void
fill_dense (Problem *p)
{
  guint b = p->mask->block;
  SpxMaskIter it;
  guint64 br, bc, i = 0;
  spx_mask_iter_init (&it, p->mask);
  while (spx_mask_iter_next (&it, &br, &bc))
    {
      const float *v = p->values + (i++) * b * b;
      for (guint r = 0; r < b; r++)
        for (guint c = 0; c < b; c++)
          if (br * b + r < p->m && bc * b + c < p->k)
            p->A[(br * b + r) * p->k + bc * b + c] = v[r * b + c];
    }
}

static void
problem_reference (Problem *p)
{
  gsize mk = p->m * p->k, kn = p->k * p->n;
  float *absA = g_new (float, mk), *absB = g_new (float, kn);
  for (gsize i = 0; i < mk; i++)
    absA[i] = fabsf (p->A[i]);
  for (gsize i = 0; i < kn; i++)
    absB[i] = fabsf (p->B[i]);
  spx_dense_sgemm (p->m, p->k, p->n, p->A, p->B, p->ref, FALSE, 1);
  spx_dense_sgemm (p->m, p->k, p->n, absA, absB, p->bound, FALSE, 1);
  for (gsize i = 0; i < p->m * p->n; i++)
    p->bound[i] = p->bound[i] * 1e-5f + 1e-30f;
  g_free (absA);
  g_free (absB);
}

/* Takes the mask. */
static Problem
problem_new (SpxMask *mask, guint64 n, guint64 seed)
{
  Problem p = { .mask = mask, .m = mask->rows, .k = mask->cols, .n = n };
  gsize bb = (gsize) mask->block * mask->block;
  SpxRng rng;
  spx_rng_init (&rng, seed);
  p.values = g_new (float, MAX (spx_mask_count (mask) * bb, 1));
  p.A = g_new0 (float, p.m * p.k);
  p.B = g_new (float, p.k * n);
  p.ref = g_new (float, p.m * n);
  p.bound = g_new (float, p.m * n);
  fill (p.values, spx_mask_count (mask) * bb, &rng);
  fill (p.B, p.k * n, &rng);
  fill_dense (&p);
  problem_reference (&p);
  return p;
}

static void
problem_clear (Problem *p)
{
  spx_mask_free (p->mask);
  g_free (p->values);
  g_free (p->A);
  g_free (p->B);
  g_free (p->ref);
  g_free (p->bound);
}

static void
assert_close (const Problem *p, const float *C, const char *what)
{
  for (gsize i = 0; i < p->m * p->n; i++)
    if (!(fabsf (C[i] - p->ref[i]) <= p->bound[i]))
      g_error ("%s: C[%" G_GSIZE_FORMAT ",%" G_GSIZE_FORMAT "] = %g, sgemm "
               "gives %g (b=%u, %" G_GUINT64_FORMAT "×%" G_GUINT64_FORMAT
               "×%" G_GUINT64_FORMAT ")", what, i / p->n, i % p->n, C[i],
               p->ref[i], p->mask->block, p->m, p->k, p->n);
}

/* Shapes to cover, as functions of the block size. */
typedef enum {
  SHAPE_MULTIPLES, SHAPE_RAGGED, SHAPE_N1, SHAPE_N17, SHAPE_EMPTY, SHAPE_FULL,
  SHAPE_SINGLE, SHAPE_DENSE_ROW, N_SHAPES
} Shape;

static const char *const shape_names[] = {
  "multiples", "ragged", "n1", "n17", "empty", "full", "single", "dense-row"
};

static SpxMask *
shape_mask (Shape shape, guint b, guint64 *n)
{
  guint64 m = 6 * b, k = 5 * b;
  *n = shape == SHAPE_N1 ? 1 : shape == SHAPE_N17 ? 17 : 40;
  if (shape == SHAPE_RAGGED)
    {
      m = 6 * b + (b > 1 ? b / 2 + 1 : 3) - (b > 1 ? 1 : 0);
      k = 5 * b + (b > 1 ? b - 1 : 2);
      *n = 35;
    }
  SpxGenOptions gen;
  spx_gen_options_init (&gen);
  gen.density = 0.3;
  gen.seed = b * 31 + shape;
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
  else if (shape == SHAPE_DENSE_ROW)
    {
      spx_mask_clear_all (mask);
      for (guint64 c = 0; c < mask->bcols; c++)
        spx_mask_set (mask, 1, c);
    }
  return mask;
}

static void
run_static (const Problem *p, SpxIsa isa, guint threads, float *C,
            gboolean accumulate)
{
  SpxEngineOptions options = { .threads = threads, .isa = isa };
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxStaticPlan) plan = spx_static_plan_new (p->mask, p->values,
                                                        p->n, &options, &error);
  g_assert_no_error (error);
  spx_static_plan_execute (plan, p->B, C, accumulate);
  spx_static_plan_execute (plan, p->B, C, accumulate); /* reusable */
}

static void
run_dynamic (const Problem *p, SpxIsa isa, guint threads, float *C)
{
  SpxEngineOptions options = { .threads = threads, .isa = isa };
  SpxBlockCsr csr;
  spx_block_csr_from_mask (&csr, p->mask);
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxDynamicPlan) plan = spx_dynamic_plan_new (
    p->m, p->k, p->n, p->mask->block, csr.n_blocks, &options, &error);
  g_assert_no_error (error);
  g_assert_true (spx_dynamic_plan_execute (plan, &csr, p->values, p->B, C,
                                           FALSE, &error));
  g_assert_no_error (error);
  spx_block_csr_clear (&csr);
}

typedef struct {
  SpxIsa isa;
  guint  b;
} Case;

/* Every shape class for one ISA and block size: static (overwrite and
 * accumulate) and dynamic, on 1 and 2 threads with identical results. */
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
    {
      guint64 n = 0;
      SpxMask *mask = shape_mask (s, c->b, &n);
      Problem p = problem_new (mask, n, s + 1);
      gsize len = p.m * p.n;
      float *C1 = g_new (float, len), *C2 = g_new (float, len);
      for (gsize i = 0; i < len; i++)
        C1[i] = NAN; /* overwrite must not read C */
      run_static (&p, c->isa, 1, C1, FALSE);
      assert_close (&p, C1, shape_names[s]);
      run_static (&p, c->isa, 2, C2, FALSE);
      g_assert_cmpmem (C1, len * sizeof (float), C2, len * sizeof (float));
      /* the threads sharing one panel (no memory for their own) */
      g_setenv ("SPX_TEST_SHARED_PANEL", "1", TRUE);
      run_static (&p, c->isa, 2, C2, FALSE);
      g_unsetenv ("SPX_TEST_SHARED_PANEL");
      g_assert_cmpmem (C1, len * sizeof (float), C2, len * sizeof (float));
      /* accumulate: C += A·B, twice from zero gives 2·A·B */
      memset (C2, 0, len * sizeof (float));
      run_static (&p, c->isa, 2, C2, TRUE);
      for (gsize i = 0; i < len; i++)
        C2[i] *= 0.5f;
      assert_close (&p, C2, shape_names[s]);
      for (gsize i = 0; i < len; i++)
        C2[i] = NAN;
      run_dynamic (&p, c->isa, 2, C2);
      g_assert_cmpmem (C1, len * sizeof (float), C2, len * sizeof (float));
      g_free (C1);
      g_free (C2);
      problem_clear (&p);
    }
}

/* A dynamic plan over tens of thousands of blocks, whose kernels scale
 * the pattern's block-columns as they go (b = 1 and 4, with a ragged
 * last block-row): the same bits as the static plan's pre-scaled
 * offsets, which match the reference. */
static void
test_dynamic_large (void)
{
  SpxGenOptions gen;
  spx_gen_options_init (&gen);
  gen.density = 0.3;
  gen.seed = 7;
  const guint sizes[] = { 1, 4 };
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      guint b = sizes[i];
      SpxMask *mask = spx_mask_generate (400 * b + 3, 256 * b, b, &gen,
                                         NULL);
      Problem p = problem_new (mask, 40, b);
      g_assert_cmpuint (spx_mask_count (mask), >, 30000);
      gsize len = p.m * p.n;
      g_autofree float *C1 = g_new (float, len);
      g_autofree float *C2 = g_new (float, len);
      for (SpxIsa isa = SPX_ISA_GENERIC; isa <= SPX_ISA_AVX512; isa++)
        {
          if (!spx_isa_supported (isa))
            continue;
          run_static (&p, isa, 2, C1, FALSE);
          assert_close (&p, C1, "static");
          run_dynamic (&p, isa, 2, C2);
          g_assert_cmpmem (C1, len * sizeof (float), C2,
                           len * sizeof (float));
        }
      problem_clear (&p);
    }
}

/* One dynamic plan, many patterns of different sizes up to its budget. */
static void
test_dynamic_changing (void)
{
  SpxEngineOptions options;
  g_assert_true (spx_engine_options_init (&options, NULL));
  options.threads = 2;
  guint b = 4;
  guint64 m = 90, k = 70, n = 33, budget = 200; /* 23 × 18 blocks */
  g_autoptr (SpxDynamicPlan) plan =
    spx_dynamic_plan_new (m, k, n, b, budget, &options, NULL);
  double densities[] = { 0.05, 0.4, 0.0, 200.0 / 414.0, 0.2 };
  for (guint i = 0; i < G_N_ELEMENTS (densities); i++)
    {
      SpxGenOptions gen;
      spx_gen_options_init (&gen);
      gen.density = densities[i];
      gen.seed = i;
      Problem p = problem_new (spx_mask_generate (m, k, b, &gen, NULL), n, i);
      if (i == 3) /* exactly at budget */
        g_assert_cmpuint (spx_mask_count (p.mask), ==, budget);
      SpxBlockCsr csr;
      spx_block_csr_from_mask (&csr, p.mask);
      float *C = g_new (float, m * n);
      g_autoptr (GError) error = NULL;
      g_assert_true (spx_dynamic_plan_execute (plan, &csr, p.values, p.B, C,
                                               FALSE, &error));
      g_assert_no_error (error);
      assert_close (&p, C, "dynamic");
      spx_block_csr_clear (&csr);
      g_free (C);
      problem_clear (&p);
    }
}

/* Over budget: refused with a clear error and C left exactly as it was. */
static void
test_dynamic_over_budget (void)
{
  SpxEngineOptions options;
  g_assert_true (spx_engine_options_init (&options, NULL));
  SpxGenOptions gen;
  spx_gen_options_init (&gen);
  gen.density = 0.5;
  Problem p = problem_new (spx_mask_generate (64, 64, 8, &gen, NULL), 16, 3);
  SpxBlockCsr csr;
  spx_block_csr_from_mask (&csr, p.mask); /* 32 blocks */
  g_autoptr (SpxDynamicPlan) plan =
    spx_dynamic_plan_new (64, 64, 16, 8, 31, &options, NULL);
  float *C = g_new (float, 64 * 16);
  for (guint i = 0; i < 64 * 16; i++)
    C[i] = (float) i;
  g_autoptr (GError) error = NULL;
  g_assert_false (spx_dynamic_plan_execute (plan, &csr, p.values, p.B, C,
                                            FALSE, &error));
  g_assert_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_OVER_BUDGET);
  g_assert_nonnull (strstr (error->message, "32"));
  g_assert_nonnull (strstr (error->message, "31"));
  for (guint i = 0; i < 64 * 16; i++)
    g_assert_cmpfloat (C[i], ==, (float) i);
  g_clear_error (&error);

  /* A pattern of another shape is refused too, C still untouched. */
  csr.m = 72;
  g_assert_false (spx_dynamic_plan_execute (plan, &csr, p.values, p.B, C,
                                            FALSE, &error));
  g_assert_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID);
  g_assert_cmpfloat (C[5], ==, 5.0f);
  spx_block_csr_clear (&csr);
  g_free (C);
  problem_clear (&p);
}

/* COO in shuffled order gives the same product; duplicates are refused. */
static void
test_dynamic_coo (void)
{
  SpxEngineOptions options;
  g_assert_true (spx_engine_options_init (&options, NULL));
  SpxGenOptions gen;
  spx_gen_options_init (&gen);
  gen.density = 0.3;
  guint b = 2;
  Problem p = problem_new (spx_mask_generate (41, 37, b, &gen, NULL), 9, 5);
  guint64 nb = spx_mask_count (p.mask);
  guint32 *rows = g_new (guint32, nb), *cols = g_new (guint32, nb);
  float *vals = g_new (float, nb * b * b);
  SpxRng rng;
  spx_rng_init (&rng, 9);
  guint64 *perm = g_new (guint64, nb);
  for (guint64 i = 0; i < nb; i++)
    perm[i] = i;
  for (guint64 i = nb; i > 1; i--) /* shuffle */
    {
      guint64 j = spx_rng_below (&rng, i), t = perm[i - 1];
      perm[i - 1] = perm[j];
      perm[j] = t;
    }
  SpxMaskIter it;
  guint64 br, bc, i = 0;
  spx_mask_iter_init (&it, p.mask);
  while (spx_mask_iter_next (&it, &br, &bc))
    {
      rows[perm[i]] = (guint32) br;
      cols[perm[i]] = (guint32) bc;
      memcpy (vals + perm[i] * b * b, p.values + i * b * b, b * b * sizeof (float));
      i++;
    }
  g_autoptr (SpxDynamicPlan) plan =
    spx_dynamic_plan_new (41, 37, 9, b, nb, &options, NULL);
  float *C = g_new (float, 41 * 9);
  g_autoptr (GError) error = NULL;
  g_assert_true (spx_dynamic_plan_execute_coo (plan, nb, rows, cols, vals,
                                               p.B, C, FALSE, &error));
  g_assert_no_error (error);
  assert_close (&p, C, "coo");
  cols[1] = cols[0]; /* make a duplicate (or a clash) */
  rows[1] = rows[0];
  g_assert_false (spx_dynamic_plan_execute_coo (plan, nb, rows, cols, vals,
                                                p.B, C, FALSE, &error));
  g_assert_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID);
  g_clear_error (&error);
  rows[0] = 1000;
  g_assert_false (spx_dynamic_plan_execute_coo (plan, nb, rows, cols, vals,
                                                p.B, C, FALSE, &error));
  g_assert_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID);
  g_free (rows);
  g_free (cols);
  g_free (vals);
  g_free (perm);
  g_free (C);
  problem_clear (&p);
}

static void
test_isa_env (void)
{
  SpxIsa isa;
  g_autoptr (GError) error = NULL;
  g_setenv ("SPX_ISA", "generic", TRUE);
  g_assert_true (spx_isa_from_env (&isa, NULL, &error));
  g_assert_cmpint (isa, ==, SPX_ISA_GENERIC);
  g_setenv ("SPX_ISA", "neon", TRUE);
  g_assert_false (spx_isa_from_env (&isa, NULL, &error));
  g_assert_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID);
  g_clear_error (&error);
  g_unsetenv ("SPX_ISA");
  g_assert_true (spx_isa_from_env (&isa, NULL, &error));
  g_assert_cmpint (isa, ==, spx_isa_best ());
}

static void
test_refusals (void)
{
  SpxEngineOptions options = { .threads = 1, .isa = SPX_ISA_GENERIC };
  g_autoptr (GError) error = NULL;
  g_assert_null (spx_dynamic_plan_new (0, 4, 4, 2, 1, &options, &error));
  g_assert_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID);
  g_clear_error (&error);
  /* Offsets into B's panel are 32-bit: k ≥ 2^22 is refused, not
   * overflowed. */
  g_assert_null (spx_dynamic_plan_new (4, 1u << 22, 16, 2, 1, &options,
                                       &error));
  g_assert_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID);
  g_clear_error (&error);
  g_autoptr (SpxMask) mask = spx_mask_new (8, 8, 2, NULL);
  g_assert_null (spx_static_plan_new (mask, NULL, 0, &options, &error));
  g_assert_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID);
}

static void
test_plan_memory (void)
{
  SpxGenOptions gen;
  spx_gen_options_init (&gen);
  gen.density = 0.1;
  SpxEngineOptions options = { .threads = 2, .isa = spx_isa_best () };
  guint sizes[] = { 1, 4, 16 };
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      guint b = sizes[i];
      g_autoptr (SpxMask) mask = spx_mask_generate (512, 512, b, &gen, NULL);
      guint64 nb = spx_mask_count (mask);
      float *values = g_new0 (float, nb * b * b);
      g_autoptr (SpxStaticPlan) plan =
        spx_static_plan_new (mask, values, 64, &options, NULL);
      /* values + one 32-bit index per block, plus O(rows) */
      gsize payload = nb * b * b * sizeof (float) + nb * sizeof (guint32);
      gsize per_rows = mask->brows * 128 + 4096;
      g_assert_cmpuint (spx_static_plan_bytes (plan), <=,
                        payload * 11 / 10 + per_rows);
      g_free (values);
    }
}

/* ---- hostile input ------------------------------------------------- */

/* A pattern without blocks has no values to pass: NULL is fine (it was
 * handed to memcpy, undefined even for 0 bytes). */
static void
test_empty_null_values (void)
{
  SpxEngineOptions options = { .threads = 2, .isa = SPX_ISA_GENERIC };
  g_autoptr (SpxMask) mask = spx_mask_new (40, 24, 8, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxStaticPlan) plan = spx_static_plan_new (mask, NULL, 5,
                                                        &options, &error);
  g_assert_no_error (error);
  float B[24 * 5], C[40 * 5];
  for (guint i = 0; i < G_N_ELEMENTS (B); i++)
    B[i] = 1.0f;
  for (guint i = 0; i < G_N_ELEMENTS (C); i++)
    C[i] = NAN;
  spx_static_plan_execute (plan, B, C, FALSE);
  for (guint i = 0; i < G_N_ELEMENTS (C); i++)
    g_assert_cmpfloat (C[i], ==, 0.0f);
}

/* Plans over the memory budget are refused before they allocate. */
static void
test_plans_over_budget (void)
{
  SpxEngineOptions options = { .threads = 2, .isa = SPX_ISA_GENERIC };
  SpxGenOptions gen;
  spx_gen_options_init (&gen);
  gen.density = 0.5;
  g_autoptr (SpxMask) mask = spx_mask_generate (4096, 4096, 1, &gen, NULL);
  g_autoptr (GError) error = NULL;
  g_setenv (SPX_MEMORY_BUDGET_ENV, "16M", TRUE);
  /* 8 Mi blocks: 32 MiB of values and as much of indices */
  SpxStaticPlan *stat = spx_static_plan_new (mask, NULL, 64, &options,
                                             &error);
  g_assert_null (stat);
  g_assert_error (error, SPX_BUDGET_ERROR, SPX_BUDGET_ERROR_TOO_LARGE);
  g_assert_nonnull (strstr (error->message, "the CPU static plan"));
  g_assert_nonnull (strstr (error->message, "MiB of memory"));
  g_clear_error (&error);
  /* a dynamic plan keeps nothing per block, but a schedule entry per
   * block-row: 4 Mi of them */
  SpxDynamicPlan *dyn = spx_dynamic_plan_new (1u << 22, 4096, 64, 1,
                                              1u << 24, &options, &error);
  g_unsetenv (SPX_MEMORY_BUDGET_ENV);
  g_assert_null (dyn);
  g_assert_error (error, SPX_BUDGET_ERROR, SPX_BUDGET_ERROR_TOO_LARGE);
  g_assert_nonnull (strstr (error->message, "the CPU dynamic plan"));
}

/* Every thread runs on a panel of B of its own: the budget counts one
 * per thread (a panel is half of L2, most of a MiB). A dynamic plan
 * keeps nothing per block of its budget: 16 Mi blocks fit in 4 MiB. */
static void
test_panels_per_thread (void)
{
  g_autoptr (GError) error = NULL;
  g_setenv (SPX_MEMORY_BUDGET_ENV, "4M", TRUE);
  SpxEngineOptions one = { .threads = 1, .isa = SPX_ISA_GENERIC };
  SpxDynamicPlan *dyn = spx_dynamic_plan_new (4096, 4096, 512, 1, 1u << 24,
                                              &one, &error);
  g_assert_no_error (error);
  g_assert_nonnull (dyn);
  spx_dynamic_plan_free (dyn);
  SpxEngineOptions eight = { .threads = 8, .isa = SPX_ISA_GENERIC };
  dyn = spx_dynamic_plan_new (4096, 4096, 512, 1, 1u << 24, &eight, &error);
  g_unsetenv (SPX_MEMORY_BUDGET_ENV);
  g_assert_null (dyn);
  g_assert_error (error, SPX_BUDGET_ERROR, SPX_BUDGET_ERROR_TOO_LARGE);
}

static SpxMask *
bench_mask (guint64 m, guint64 k, guint b)
{
  SpxGenOptions gen;
  spx_gen_options_init (&gen);
  gen.density = 0.1;
  g_autoptr (GError) error = NULL;
  SpxMask *mask = spx_mask_generate (m, k, b, &gen, &error);
  g_assert_no_error (error);
  return mask;
}

/* The findings: bench --n 2147483647 on a 64² A, and a 100000² dense A,
 * asked for terabytes of operands. Refused at once, with the operands'
 * shapes and the size; a smaller budget refuses smaller operands the same
 * way, before any is allocated. */
static void
test_bench_operands (void)
{
  SpxBenchOptions options;
  SpxBenchResult result;
  spx_bench_options_init (&options);
  options.engine.threads = 1;
  options.warmup = 0;
  options.reps = 1;
  g_autoptr (SpxMask) small = bench_mask (64, 64, 16);
  g_autoptr (GError) error = NULL;
  gint64 t0 = g_get_monotonic_time ();
  g_assert_false (spx_bench_run (small, G_MAXINT32, &options, &result,
                                 &error));
  g_assert_error (error, SPX_BUDGET_ERROR, SPX_BUDGET_ERROR_TOO_LARGE);
  g_test_message ("%s (%.1f ms)", error->message,
                  (g_get_monotonic_time () - t0) / 1e3);
  g_assert_nonnull (strstr (error->message, "B 64×2147483647"));
  g_assert_nonnull (strstr (error->message, "TiB of memory"));
  g_clear_error (&error);
  /* 16 MiB of A, 8 of B, 2 × 8 of C */
  g_autoptr (SpxMask) mid = bench_mask (2048, 2048, 16);
  g_setenv (SPX_MEMORY_BUDGET_ENV, "32M", TRUE);
  gboolean ran = spx_bench_run (mid, 1024, &options, &result, &error);
  g_unsetenv (SPX_MEMORY_BUDGET_ENV);
  g_assert_false (ran);
  g_assert_error (error, SPX_BUDGET_ERROR, SPX_BUDGET_ERROR_TOO_LARGE);
  g_assert_nonnull (strstr (error->message, "dense A 2048×2048"));
}

/* More threads than the processors can run are refused before OpenBLAS
 * starts them (under a memory limit it retried its buffers forever). */
static void
test_bench_threads (void)
{
  SpxBenchOptions options;
  SpxBenchResult result;
  spx_bench_options_init (&options);
  options.engine.threads = spx_max_threads () + 1;
  g_autoptr (SpxMask) mask = bench_mask (64, 64, 16);
  g_autoptr (GError) error = NULL;
  g_assert_false (spx_bench_run (mask, 8, &options, &result, &error));
  g_assert_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID);
  g_autofree char *most = g_strdup_printf ("at most %u", spx_max_threads ());
  g_assert_nonnull (strstr (error->message, most));
}

/* Cancelled through the thread's current cancellable: FALSE with the
 * cancellation, before any round. */
static void
test_bench_cancelled (void)
{
  SpxBenchOptions options;
  SpxBenchResult result;
  spx_bench_options_init (&options);
  options.engine.threads = 1;
  g_autoptr (SpxMask) mask = bench_mask (512, 512, 16);
  g_autoptr (GCancellable) cancel = g_cancellable_new ();
  g_autoptr (GError) error = NULL;
  g_cancellable_cancel (cancel);
  g_cancellable_push_current (cancel);
  gboolean ran = spx_bench_run (mask, 256, &options, &result, &error);
  g_cancellable_pop_current (cancel);
  g_assert_false (ran);
  g_assert_error (error, SPX_BUDGET_ERROR, SPX_BUDGET_ERROR_CANCELLED);
}

/* fp32 to bf16: nearest, ties to even; NaN, infinities, overflow. */
static void
test_bf16_round (void)
{
  static const struct { guint32 in; guint16 out; } cases[] = {
    { 0x3f800000, 0x3f80 }, /* 1 */
    { 0x3f808000, 0x3f80 }, /* 1 + 2⁻⁸: a tie, to the even 1 */
    { 0x3f818000, 0x3f82 }, /* a tie above an odd one: up */
    { 0x3f808001, 0x3f81 }, /* just above the tie: up */
    { 0x3f807fff, 0x3f80 }, /* just below: down */
    { 0x80000000, 0x8000 }, /* -0 */
    { 0x7f800000, 0x7f80 }, /* inf */
    { 0xff800000, 0xff80 }, /* -inf */
    { 0x7f7fffff, 0x7f80 }, /* the largest float: past bf16's, inf */
    { 0x00000001, 0x0000 }, /* the smallest denormal: to 0 */
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      float x;
      memcpy (&x, &cases[i].in, sizeof x);
      g_assert_cmphex (spx_bf16_from_float (x), ==, cases[i].out);
    }
  guint32 nan_bits = 0x7f800001; /* a NaN whose top half reads as inf */
  float nan;
  memcpy (&nan, &nan_bits, sizeof nan);
  g_assert_true (isnan (spx_bf16_to_float (spx_bf16_from_float (nan))));
  g_assert_cmpfloat (spx_bf16_to_float (0x3f80), ==, 1.0f);
  g_assert_cmpfloat (spx_bf16_to_float (0xc040), ==, -3.0f);
}

/* oneDNN's dense against a double-precision product, at a shape no
 * kernel's tile divides, on one thread and two, in fp32 and in bf16.
 * bf16: A and B are rounded to bf16 first and the reference is made from
 * those same values, so only the sums differ: each product of two bf16
 * (8-bit significands) is exact in fp32, and k = 53 of them summed in
 * fp32 round at most 2⁻²⁴ relative each. The bound, 1e-5 of C's largest
 * entry, is 10× that for both types. Without oneDNN: refused, naming the
 * package. */
static void
test_dense_onednn (gconstpointer data)
{
  SpxCpuType type = GPOINTER_TO_INT (data);
  gboolean bf16 = type == SPX_CPU_BF16;
  const guint64 m = 37, k = 53, n = 29;
  g_autoptr (GError) error = NULL;
  SpxDenseOnednn *d = spx_dense_onednn_new (m, k, n, type, 1, &error);
  if (!SPX_HAVE_ONEDNN)
    {
      g_assert_null (d);
      g_assert_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_UNSUPPORTED);
      g_assert_nonnull (strstr (error->message, "libdnnl-dev"));
      g_assert_null (spx_dense_onednn_version ());
      return;
    }
  if (bf16 && !spx_isa_supported (SPX_ISA_AVX512))
    {
      g_assert_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_UNSUPPORTED);
      g_test_skip ("oneDNN's bf16 matmul needs AVX-512");
      return;
    }
  g_assert_no_error (error);
  g_assert_true (g_str_has_prefix (spx_dense_onednn_version (), "oneDNN "));
  g_assert_cmpstr (spx_dense_onednn_kernel (d), !=, "");
  SpxRng rng;
  spx_rng_init (&rng, 7);
  g_autofree float *A = g_new (float, m * k), *B = g_new (float, k * n);
  g_autofree float *C = g_new (float, m * n);
  g_autofree guint16 *A16 = g_new (guint16, m * k);
  g_autofree guint16 *B16 = g_new (guint16, k * n);
  fill (A, m * k, &rng);
  fill (B, k * n, &rng);
  spx_bf16_from_floats (A, A16, m * k);
  spx_bf16_from_floats (B, B16, k * n);
  for (guint64 i = 0; bf16 && i < m * k; i++)
    A[i] = spx_bf16_to_float (A16[i]);
  for (guint64 i = 0; bf16 && i < k * n; i++)
    B[i] = spx_bf16_to_float (B16[i]);
  for (guint threads = 1; threads <= 2; threads++)
    {
      if (threads == 2)
        {
          spx_dense_onednn_free (d);
          d = spx_dense_onednn_new (m, k, n, type, 2, &error);
          g_assert_no_error (error);
        }
      memset (C, 0xff, m * n * sizeof *C); /* NaN: every entry written */
      spx_dense_onednn_run (d, bf16 ? (gconstpointer) A16 : A,
                            bf16 ? (gconstpointer) B16 : B, C);
      double err = 0, scale = 0;
      for (guint64 i = 0; i < m; i++)
        for (guint64 j = 0; j < n; j++)
          {
            double ref = 0;
            for (guint64 p = 0; p < k; p++)
              ref += (double) A[i * k + p] * B[p * n + j];
            err = MAX (err, fabs (C[i * n + j] - ref));
            scale = MAX (scale, fabs (ref));
          }
      g_assert_cmpfloat (err, <=, 1e-5 * scale);
    }
  spx_dense_onednn_free (d);
}

/* bench measures every dense it has and answers against the faster fp32
 * one that agrees with OpenBLAS's C; bf16 dense runs beside, checked to
 * the rounding of its inputs, never the reference. */
/* bf16: the plans run on operands rounded to bf16, against oneDNN's bf16
 * dense when it runs (else the faster fp32, saying why); OpenBLAS's fp32
 * product of the same rounded numbers is the reference, so only the
 * order of fp32 sums differs: k = 192 terms of |a·b| < 1 give at most
 * about 192·2⁻²⁴·Σ|a·b| ≈ 2·10⁻³ of max |C| in the worst case, typically
 * 10⁻⁶; 10⁻⁴ fails any bf16 rounding of the output or of an input (2⁻⁹). */
static void
test_bench_bf16 (void)
{
  SpxBenchOptions options;
  SpxBenchResult r;
  spx_bench_options_init (&options);
  options.engine.threads = 2;
  options.engine.type = SPX_CPU_BF16;
  options.reps = 3;
  options.warmup = 1;
  g_autoptr (SpxMask) mask = bench_mask (160, 192, 4);
  g_autoptr (GError) error = NULL;
  for (guint op = SPX_BENCH_OP_SPMM; op <= SPX_BENCH_OP_SDDMM; op++)
    {
      options.op = op;
      g_assert_true (spx_bench_run (mask, 48, &options, &r, &error));
      g_assert_no_error (error);
      g_assert_cmpint (r.type, ==, SPX_CPU_BF16);
      g_assert_true (r.stat.ran);
      g_assert_cmpfloat (r.stat.max_rel_err, <, 1e-4);
      g_assert_cmpstr (r.stat_kernel, !=, "");
      if (op == SPX_BENCH_OP_SDDMM)
        continue;
      g_assert_true (r.dyn.ran);
      g_assert_cmpfloat (r.dyn.max_rel_err, <, 1e-4);
      g_assert_false (r.tilewise.ran);
      const SpxBenchDense *bf16 = &r.denses[SPX_DENSE_ONEDNN_BF16];
      /* every dense multiplies the same bf16 values: the fastest is the
       * reference, and only oneDNN's bf16 needs no note */
      SpxDenseId fastest = SPX_DENSE_OPENBLAS;
      for (SpxDenseId id = 0; id < SPX_N_DENSE; id++)
        if (r.denses[id].t.ran &&
            r.denses[id].t.ms < r.denses[fastest].t.ms)
          fastest = id;
      if (bf16->t.ran)
        {
          /* same inputs as OpenBLAS's now: agrees to the sums' order */
          g_assert_cmpfloat (bf16->t.max_rel_err, <, 1e-4);
          g_assert_cmpstr (r.dense_library, ==, spx_dense_name (fastest));
          g_assert_cmpfloat (r.dense.ms, ==, r.denses[fastest].t.ms);
          g_assert_cmpint (r.dense_note[0] == '\0', ==,
                           fastest == SPX_DENSE_ONEDNN_BF16);
          if (fastest != SPX_DENSE_ONEDNN_BF16)
            g_assert_nonnull (strstr (r.dense_note, "ran faster"));
        }
      else
        {
          g_assert_cmpstr (r.dense_library, !=, "oneDNN bf16");
          g_assert_nonnull (strstr (r.dense_note, "no bf16 dense"));
        }
    }
}

static void
test_bench_dense_library (void)
{
  SpxBenchOptions options;
  SpxBenchResult r;
  spx_bench_options_init (&options);
  options.engine.threads = 1;
  options.reps = 3;
  options.warmup = 1;
  g_autoptr (SpxMask) mask = bench_mask (256, 256, 16);
  g_autoptr (GError) error = NULL;
  g_assert_true (spx_bench_run (mask, 64, &options, &r, &error));
  g_assert_no_error (error);
  const SpxBenchDense *blas = &r.denses[SPX_DENSE_OPENBLAS];
  const SpxBenchDense *f32 = &r.denses[SPX_DENSE_ONEDNN];
  const SpxBenchDense *bf16 = &r.denses[SPX_DENSE_ONEDNN_BF16];
  g_assert_true (blas->t.ran);
  g_assert_cmpstr (blas->kernel, ==, r.dense_core);
  g_assert_cmpint (f32->t.ran, ==, SPX_HAVE_ONEDNN);
  SpxDenseId faster = SPX_DENSE_OPENBLAS;
  if (f32->t.ran)
    {
      g_assert_cmpfloat (f32->t.max_rel_err, <, SPX_DENSE_AGREE);
      g_assert_cmpstr (f32->kernel, !=, "");
      if (f32->t.ms < blas->t.ms)
        faster = SPX_DENSE_ONEDNN;
    }
  else
    g_assert_cmpstr (f32->note, !=, "");
  g_assert_cmpstr (r.dense_library, ==, spx_dense_name (faster));
  g_assert_cmpfloat (r.dense.ms, ==, r.denses[faster].t.ms);
  /* over the baseline round by round: a median between its quartiles */
  g_assert_cmpfloat (r.stat.speedup_q1, >, 0);
  g_assert_cmpfloat (r.stat.speedup_q1, <=, r.stat.speedup);
  g_assert_cmpfloat (r.stat.speedup, <=, r.stat.speedup_q3);
  /* k = 256 products of inputs rounded to 8 significant bits (2⁻⁹
   * relative each): at most about 2·2⁻⁹ of Σ|a||b|, which for values in
   * [-1, 1) is a few times max |C|; 0.05 of max |C| passes bf16 and
   * fails anything coarser (fp8's 2⁻⁴) */
  if (bf16->t.ran)
    {
      g_assert_cmpfloat (bf16->t.max_rel_err, <, 0.05);
      g_assert_cmpfloat (bf16->t.max_rel_err, >, 0);
      g_assert_cmpfloat_with_epsilon (bf16->t.speedup,
                                      r.dense.ms / bf16->t.ms, 1e-12);
    }
  else
    g_assert_cmpstr (bf16->note, !=, "");
  /* SDDMM's dense is OpenBLAS's alone, and says so */
  options.op = SPX_BENCH_OP_SDDMM;
  g_assert_true (spx_bench_run (mask, 64, &options, &r, &error));
  g_assert_false (r.denses[SPX_DENSE_ONEDNN].t.ran);
  g_assert_false (r.denses[SPX_DENSE_ONEDNN_BF16].t.ran);
  g_assert_cmpstr (r.dense_library, ==, "OpenBLAS");
  g_assert_nonnull (strstr (r.denses[SPX_DENSE_ONEDNN].note, "SDDMM"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  static Case cases[3 * 7];
  const guint sizes[] = { 1, 2, 3, 4, 8, 16, 32 };
  guint n = 0;
  for (SpxIsa isa = SPX_ISA_GENERIC; isa <= SPX_ISA_AVX512; isa++)
    for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
      {
        cases[n] = (Case) { isa, sizes[i] };
        g_autofree char *path = g_strdup_printf ("/engine/plans/%s/b%u",
                                                 spx_isa_to_string (isa),
                                                 sizes[i]);
        g_test_add_data_func (path, &cases[n++], test_plans);
      }
  g_test_add_func ("/engine/dynamic/changing", test_dynamic_changing);
  g_test_add_func ("/engine/dynamic/large", test_dynamic_large);
  g_test_add_func ("/engine/dynamic/over-budget", test_dynamic_over_budget);
  g_test_add_func ("/engine/dynamic/coo", test_dynamic_coo);
  g_test_add_func ("/engine/isa-env", test_isa_env);
  g_test_add_func ("/engine/refusals", test_refusals);
  g_test_add_func ("/engine/plan-memory", test_plan_memory);
  g_test_add_func ("/engine/empty-null-values", test_empty_null_values);
  g_test_add_func ("/engine/plans-over-budget", test_plans_over_budget);
  g_test_add_func ("/engine/panels-per-thread", test_panels_per_thread);
  g_test_add_func ("/engine/bench/operands", test_bench_operands);
  g_test_add_func ("/engine/bench/threads", test_bench_threads);
  g_test_add_func ("/engine/bench/cancelled", test_bench_cancelled);
  g_test_add_func ("/engine/bf16/round", test_bf16_round);
  g_test_add_data_func ("/engine/dense/onednn/fp32",
                        GINT_TO_POINTER (SPX_CPU_FP32), test_dense_onednn);
  g_test_add_data_func ("/engine/dense/onednn/bf16",
                        GINT_TO_POINTER (SPX_CPU_BF16), test_dense_onednn);
  g_test_add_func ("/engine/bench/dense-library", test_bench_dense_library);
  g_test_add_func ("/engine/bench/bf16", test_bench_bf16);
  return g_test_run ();
}
