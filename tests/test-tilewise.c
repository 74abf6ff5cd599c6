/* test-tilewise.c: the tile-wise plan against a double-precision product */
#include "spx-engine.h"
#include "spx-mask-gen.h"
#include "spx-util.h"

#include <math.h>
#include <omp.h>
#include <string.h>

/* A and B with random entries (A's only where the mask is set), and the
 * mask's values in block order, b×b row-major per block. */
typedef struct {
  const SpxMask *mask;
  guint64        m, k, n;
  float         *values, *A, *B;
} Problem;

static float
draw (SpxRng *rng)
{
  return (float) (2.0 * spx_rng_uniform (rng) - 1.0);
}

static Problem
problem_new (const SpxMask *mask, guint64 n, guint64 seed)
{
  Problem p = { mask, mask->rows, mask->cols, n, NULL, NULL, NULL };
  guint b = mask->block;
  SpxRng rng;
  spx_rng_init (&rng, seed);
  p.values = g_new (float, MAX (spx_mask_count (mask) * b * b, 1));
  p.A = g_new0 (float, p.m * p.k);
  p.B = g_new (float, p.k * n);
  for (guint64 i = 0; i < p.k * n; i++)
    p.B[i] = draw (&rng);
  SpxMaskIter it;
  guint64 br, bc, i = 0;
  spx_mask_iter_init (&it, mask);
  while (spx_mask_iter_next (&it, &br, &bc))
    for (guint r = 0; r < b; r++)
      for (guint c = 0; c < b; c++)
        {
          float v = p.values[i++] = draw (&rng);
          if (br * b + r < p.m && bc * b + c < p.k)
            p.A[(br * b + r) * p.k + bc * b + c] = v;
        }
  return p;
}

static void
problem_clear (Problem *p)
{
  g_free (p->values);
  g_free (p->A);
  g_free (p->B);
}

/* C against C0 + A·B (C0 zero unless accumulating), summed in double,
 * within float rounding of Σ|a||b|. */
static void
check_product (const Problem *p, const float *C0, const float *C)
{
  for (guint64 i = 0; i < p->m; i++)
    for (guint64 j = 0; j < p->n; j++)
      {
        double sum = C0 != NULL ? C0[i * p->n + j] : 0.0, mag = fabs (sum);
        for (guint64 l = 0; l < p->k; l++)
          {
            double t = (double) p->A[i * p->k + l] * p->B[l * p->n + j];
            sum += t;
            mag += fabs (t);
          }
        g_assert_cmpfloat (fabs (C[i * p->n + j] - sum), <=,
                           1e-5 * mag + 1e-30);
      }
}

static SpxTilewisePlan *
plan_new (const Problem *p, guint width, guint threads)
{
  SpxEngineOptions options;
  g_autoptr (GError) error = NULL;
  g_assert_true (spx_engine_options_init (&options, &error));
  options.threads = threads;
  SpxTilewisePlan *plan = spx_tilewise_plan_new (p->mask, p->values, width,
                                                 p->n, &options, &error);
  g_assert_no_error (error);
  g_assert_nonnull (plan);
  return plan;
}

/* One run without and one with accumulate, C starting as garbage then as
 * random values. */
static void
check_mask (const SpxMask *mask, guint width, guint64 n)
{
  Problem p = problem_new (mask, n, mask->rows * 31 + n);
  g_autoptr (SpxTilewisePlan) plan = plan_new (&p, width, 2);
  g_autofree float *C = g_new (float, p.m * n);
  g_autofree float *C0 = g_new (float, p.m * n);
  SpxRng rng;
  spx_rng_init (&rng, 5);
  for (guint64 i = 0; i < p.m * n; i++)
    {
      C[i] = NAN;
      C0[i] = draw (&rng);
    }
  spx_tilewise_plan_execute (plan, p.B, C, FALSE);
  check_product (&p, NULL, C);
  memcpy (C, C0, p.m * n * sizeof (float));
  spx_tilewise_plan_execute (plan, p.B, C, TRUE);
  check_product (&p, C0, C);
  problem_clear (&p);
}

static SpxMask *
generate (SpxPattern pattern, guint64 m, guint64 k, guint b, guint width,
          double density)
{
  SpxGenOptions options;
  spx_gen_options_init (&options);
  options.pattern = pattern;
  options.density = density;
  options.tile_width = width;
  options.seed = m * 7 + k + b;
  g_autoptr (GError) error = NULL;
  SpxMask *mask = spx_mask_generate (m, k, b, &options, &error);
  g_assert_no_error (error);
  return mask;
}

typedef struct {
  SpxPattern pattern;
  guint      b;
} Case;

/* Odd shapes: m and k not multiples of b or of the tile width, which
 * does not divide k either. */
static void
test_patterns (gconstpointer data)
{
  const Case *c = data;
  const guint64 ns[] = { 1, 3, 17 };
  const guint64 shapes[][2] = { { 37, 53 }, { 45, 29 }, { 3, 70 } };
  for (guint s = 0; s < G_N_ELEMENTS (shapes); s++)
    for (guint i = 0; i < G_N_ELEMENTS (ns); i++)
      {
        guint width = c->b == 1 ? 8 : 6;
        g_autoptr (SpxMask) mask = generate (c->pattern, shapes[s][0],
                                             shapes[s][1], c->b, width, 0.3);
        check_mask (mask, width, ns[i]);
        check_mask (mask, 5, ns[i]);
      }
}

/* Rows chunked and columns cut in more than one piece: 1 and 2 threads
 * give the same bits, and the caller's OpenMP setting is left alone. */
static void
test_threads (void)
{
  int default_threads = omp_get_max_threads ();
  g_autoptr (SpxMask) mask = generate (SPX_PATTERN_TILEWISE, 700, 300, 1, 32,
                                       0.25);
  Problem p = problem_new (mask, 600, 3);
  g_autoptr (SpxTilewisePlan) one = plan_new (&p, 32, 1);
  g_autoptr (SpxTilewisePlan) two = plan_new (&p, 32, 2);
  g_autofree float *C1 = g_new (float, p.m * p.n);
  g_autofree float *C2 = g_new (float, p.m * p.n);
  spx_tilewise_plan_execute (two, p.B, C2, FALSE);
  spx_tilewise_plan_execute (one, p.B, C1, FALSE);
  g_assert_cmpint (omp_get_max_threads (), ==, default_threads);
  g_assert_cmpmem (C1, p.m * p.n * sizeof (float), C2,
                   p.m * p.n * sizeof (float));
  check_product (&p, NULL, C1);
  problem_clear (&p);
}

/* A tile-wise mask is computed with no zeros. */
static void
test_tilewise_fill (void)
{
  g_autoptr (SpxMask) mask = generate (SPX_PATTERN_TILEWISE, 256, 512, 1,
                                       64, 0.25);
  Problem p = problem_new (mask, 4, 9);
  g_autoptr (SpxTilewisePlan) plan = plan_new (&p, 64, 2);
  g_assert_cmpfloat (spx_tilewise_plan_fill (plan), ==, 1.0);
  /* half the columns kept, in 4 tiles of 64, each with half the rows */
  g_assert_cmpuint (spx_tilewise_plan_kept_columns (plan), ==, 256);
  g_assert_cmpuint (spx_tilewise_plan_n_tiles (plan), ==, 4);
  for (guint t = 0; t < 4; t++)
    g_assert_cmpuint (spx_tilewise_plan_tile_rows (plan, t), ==, 128);
  g_assert_cmpfloat (spx_tilewise_plan_flops (plan), ==,
                     2.0 * spx_mask_count_elements (mask) * 4);
  problem_clear (&p);
}

/* 4×6 elements, tile width 3, column 3 empty:
 *   row 0: x x . . . .    kept columns 0 1 2 | 4 5
 *   row 1: . . . . . .    tile 0 keeps rows 0 and 3 (2×3 computed),
 *   row 2: . . . . x .    tile 1 rows 2 and 3 (2×2): 5 of 10 non-zero.
 *   row 3: . . x . . x                                                   */
static void
test_fill_by_hand (void)
{
  g_autoptr (SpxMask) mask = spx_mask_new (4, 6, 1, NULL);
  const guint64 set[][2] = { { 0, 0 }, { 0, 1 }, { 2, 4 }, { 3, 2 }, { 3, 5 } };
  for (guint i = 0; i < G_N_ELEMENTS (set); i++)
    spx_mask_set (mask, set[i][0], set[i][1]);
  Problem p = problem_new (mask, 3, 1);
  g_autoptr (SpxTilewisePlan) plan = plan_new (&p, 3, 1);
  g_assert_cmpfloat (spx_tilewise_plan_fill (plan), ==, 0.5);
  g_assert_cmpuint (spx_tilewise_plan_kept_columns (plan), ==, 5);
  g_assert_cmpuint (spx_tilewise_plan_n_tiles (plan), ==, 2);
  g_assert_cmpuint (spx_tilewise_plan_tile_rows (plan, 0), ==, 2);
  g_assert_cmpuint (spx_tilewise_plan_tile_rows (plan, 1), ==, 2);
  g_assert_cmpuint (spx_tilewise_plan_tile_rows (plan, 2), ==, 0);
  g_assert_cmpfloat (spx_tilewise_plan_flops (plan), ==, 2.0 * 10 * 3);
  check_mask (mask, 3, 3);
  problem_clear (&p);
}

/* 3×5 elements in blocks of 2, blocks (0,0) and (1,2) set: the second
 * holds one element (row 2, column 4). Kept columns 0, 1, 4 make one tile
 * of width 3 with all 3 rows: 5 of 9 non-zero. */
static void
test_fill_blocks (void)
{
  g_autoptr (SpxMask) mask = spx_mask_new (3, 5, 2, NULL);
  spx_mask_set (mask, 0, 0);
  spx_mask_set (mask, 1, 2);
  Problem p = problem_new (mask, 2, 1);
  g_autoptr (SpxTilewisePlan) plan = plan_new (&p, 3, 2);
  g_assert_cmpfloat (spx_tilewise_plan_fill (plan), ==, 5.0 / 9.0);
  g_assert_cmpuint (spx_tilewise_plan_kept_columns (plan), ==, 3);
  g_assert_cmpuint (spx_tilewise_plan_n_tiles (plan), ==, 1);
  g_assert_cmpuint (spx_tilewise_plan_tile_rows (plan, 0), ==, 3);
  check_mask (mask, 3, 2);
  check_mask (mask, 2, 5);
  problem_clear (&p);
}

/* No tiles at all: C is zeroed, or left as it was when accumulating. */
static void
test_empty (void)
{
  g_autoptr (SpxMask) mask = spx_mask_new (9, 7, 2, NULL);
  SpxEngineOptions options = { .threads = 2, .isa = SPX_ISA_GENERIC };
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxTilewisePlan) plan =
    spx_tilewise_plan_new (mask, NULL, 4, 5, &options, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (spx_tilewise_plan_n_tiles (plan), ==, 0);
  g_assert_cmpfloat (spx_tilewise_plan_fill (plan), ==, 1.0);
  g_assert_cmpfloat (spx_tilewise_plan_flops (plan), ==, 0.0);
  float B[7 * 5], C[9 * 5];
  for (guint i = 0; i < G_N_ELEMENTS (B); i++)
    B[i] = 1.0f;
  for (guint i = 0; i < G_N_ELEMENTS (C); i++)
    C[i] = 2.0f;
  spx_tilewise_plan_execute (plan, B, C, TRUE);
  for (guint i = 0; i < G_N_ELEMENTS (C); i++)
    g_assert_cmpfloat (C[i], ==, 2.0f);
  spx_tilewise_plan_execute (plan, B, C, FALSE);
  for (guint i = 0; i < G_N_ELEMENTS (C); i++)
    g_assert_cmpfloat (C[i], ==, 0.0f);
}

static void
expect_refusal (const SpxMask *mask, const float *values, guint width,
                guint64 n, const char *words)
{
  SpxEngineOptions options = { .threads = 1, .isa = SPX_ISA_GENERIC };
  g_autoptr (GError) error = NULL;
  g_assert_null (spx_tilewise_plan_new (mask, values, width, n, &options,
                                        &error));
  g_assert_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, words));
}

static void
test_refusals (void)
{
  g_autoptr (SpxMask) mask = spx_mask_new (8, 8, 1, NULL);
  spx_mask_set (mask, 1, 1);
  float value = 1.0f;
  expect_refusal (NULL, &value, 4, 4, "no mask");
  expect_refusal (mask, &value, 0, 4, "tile width of 0 columns");
  expect_refusal (mask, &value, 4, 0, "n=0");
  expect_refusal (mask, NULL, 4, 4, "no values for a mask of 1 block");
}

/* Refused by the budget, before the condensed values are allocated. */
static void
test_budget (void)
{
  g_autoptr (SpxMask) mask = spx_mask_new (4096, 4096, 64, NULL);
  spx_mask_fill (mask);
  g_autofree float *values = g_new0 (float, spx_mask_count (mask) * 64 * 64);
  SpxEngineOptions options = { .threads = 1, .isa = SPX_ISA_GENERIC };
  g_autoptr (GError) error = NULL;
  g_setenv (SPX_MEMORY_BUDGET_ENV, "16M", TRUE);
  SpxTilewisePlan *plan = spx_tilewise_plan_new (mask, values, 128, 8,
                                                 &options, &error);
  g_unsetenv (SPX_MEMORY_BUDGET_ENV);
  g_assert_null (plan);
  g_assert_error (error, SPX_BUDGET_ERROR, SPX_BUDGET_ERROR_TOO_LARGE);
  g_assert_nonnull (strstr (error->message, "16,777,216 condensed values"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  static const Case cases[] = {
    { SPX_PATTERN_TILEWISE, 1 }, { SPX_PATTERN_TILEWISE, 4 },
    { SPX_PATTERN_UNIFORM, 1 },  { SPX_PATTERN_UNIFORM, 4 },
    { SPX_PATTERN_BANDED, 1 },   { SPX_PATTERN_BANDED, 4 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strdup_printf (
        "/tilewise/%s/b%u", spx_pattern_to_string (cases[i].pattern),
        cases[i].b);
      g_test_add_data_func (path, &cases[i], test_patterns);
    }
  g_test_add_func ("/tilewise/threads", test_threads);
  g_test_add_func ("/tilewise/fill/tilewise", test_tilewise_fill);
  g_test_add_func ("/tilewise/fill/by-hand", test_fill_by_hand);
  g_test_add_func ("/tilewise/fill/blocks", test_fill_blocks);
  g_test_add_func ("/tilewise/empty", test_empty);
  g_test_add_func ("/tilewise/refusals", test_refusals);
  g_test_add_func ("/tilewise/budget", test_budget);
  return g_test_run ();
}
