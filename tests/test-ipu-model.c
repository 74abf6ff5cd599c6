/* test-ipu-model.c: the IPU model against the PopSparse paper's table of
 * measurements: Bow, FP16, m = k = 4096,
 * uniform pattern, best over n, non-zero TFLOP/s. Every modelled point
 * within ±25% of the paper's and the paper's orderings. */
#include "spx-ipu.h"
#include "spx-mask-gen.h"
#include "spx-util.h"

#include <string.h>

#define N_MAX 65536
#define TOLERANCE 0.25

typedef struct {
  guint  inv_density;
  double dense, static_b1, static_b16, dynamic_b1, dynamic_b16;
} PaperRow;

static const PaperRow paper[] = {
  { 4, 57, 11.5, 88, 9.5, 55 },
  { 8, 28, 11.5, 70, 7.5, 37 },
  { 16, 14, 10.5, 72, 6, 26 },
  { 32, 7, 8.5, 35, 3.7, 15 },
};

static SpxMask *
uniform (guint b, guint inv_density)
{
  SpxGenOptions o;
  spx_gen_options_init (&o);
  o.pattern = SPX_PATTERN_UNIFORM;
  o.density = 1.0 / inv_density;
  o.seed = 42;
  SpxMask *mask = spx_mask_generate (4096, 4096, b, &o, NULL);
  g_assert_nonnull (mask);
  return mask;
}

/* Best over n, checked to fit, and held to the paper's figure. */
static double
modelled (const SpxIpuMachine *bow, SpxIpuMode mode, const SpxMask *mask,
          double paper_tflops)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxIpuProgram) p = spx_ipu_plan_best_n (bow, mode, mask, N_MAX,
                                                     SPX_DTYPE_FP16, &error);
  g_assert_no_error (error);
  g_test_message ("%-7s b=%-2u model %6.2f at n=%-5" G_GUINT64_FORMAT
                  " paper %5.1f (%+.0f%%)", spx_ipu_mode_to_string (mode),
                  mask->block, p->nz_tflops, p->n, paper_tflops,
                  100 * (p->nz_tflops / paper_tflops - 1));
  g_assert_true (p->fits);
  g_assert_cmpfloat (p->nz_tflops, >=, (1 - TOLERANCE) * paper_tflops);
  g_assert_cmpfloat (p->nz_tflops, <=, (1 + TOLERANCE) * paper_tflops);
  return p->nz_tflops;
}

static void
test_row (gconstpointer data)
{
  const PaperRow *row = data;
  g_autoptr (SpxIpuMachine) bow = spx_ipu_machine_preset ("bow");
  g_autoptr (SpxMask) b1 = uniform (1, row->inv_density);
  g_autoptr (SpxMask) b16 = uniform (16, row->inv_density);

  double dense = modelled (bow, SPX_IPU_MODE_DENSE, b16, row->dense);
  double s1 = modelled (bow, SPX_IPU_MODE_STATIC, b1, row->static_b1);
  double s16 = modelled (bow, SPX_IPU_MODE_STATIC, b16, row->static_b16);
  double d1 = modelled (bow, SPX_IPU_MODE_DYNAMIC, b1, row->dynamic_b1);
  double d16 = modelled (bow, SPX_IPU_MODE_DYNAMIC, b16, row->dynamic_b16);

  /* the paper's orderings */
  g_assert_cmpfloat (s1, >, d1);
  g_assert_cmpfloat (s16, >, d16);
  g_assert_cmpfloat (s16, >, dense);
  if (row->inv_density <= 8)
    g_assert_cmpfloat (s1, <, dense);
}

/* ---- hostile input: the dense planner ------------------------------- */

/* 16384 tiles and a fast exchange: every tile gathers its slices from
 * dozens of home tiles, ~70 MiB of transfers for 4096² × 1024; over a
 * 32 MiB budget it is refused, while Bow plans it within. */
static void
test_dense_budget (void)
{
  g_autoptr (SpxIpuMachine) bow = spx_ipu_machine_preset ("bow");
  g_autoptr (SpxIpuMachine) big = spx_ipu_machine_preset ("bow");
  big->tiles = 16384;
  big->grid_width = 128;
  big->exchange_bytes_per_cycle = 1e6;
  g_autoptr (GError) error = NULL;
  g_setenv (SPX_MEMORY_BUDGET_ENV, "32M", TRUE);
  SpxIpuProgram *p = spx_ipu_plan_dense (big, 4096, 4096, 1024,
                                         SPX_DTYPE_FP16, &error);
  g_assert_null (p);
  g_assert_error (error, SPX_BUDGET_ERROR, SPX_BUDGET_ERROR_TOO_LARGE);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "the dense plan"));
  g_assert_nonnull (strstr (error->message, "MiB of memory"));
  g_clear_error (&error);
  p = spx_ipu_plan_dense (bow, 4096, 4096, 1024, SPX_DTYPE_FP16, &error);
  g_unsetenv (SPX_MEMORY_BUDGET_ENV);
  g_assert_no_error (error);
  g_assert_true (p->fits);
  spx_ipu_program_free (p);
}

/* Cancelled before it starts: NULL with the cancellation, alone and in
 * best-over-n. */
static void
test_dense_cancelled (void)
{
  g_autoptr (SpxIpuMachine) bow = spx_ipu_machine_preset ("bow");
  g_autoptr (SpxMask) mask = uniform (16, 8);
  g_autoptr (GCancellable) cancel = g_cancellable_new ();
  g_autoptr (GError) error = NULL;
  g_cancellable_cancel (cancel);
  g_cancellable_push_current (cancel);
  SpxIpuProgram *p = spx_ipu_plan_dense (bow, 4096, 4096, 16384,
                                         SPX_DTYPE_FP16, &error);
  g_assert_null (p);
  g_assert_error (error, SPX_BUDGET_ERROR, SPX_BUDGET_ERROR_CANCELLED);
  g_clear_error (&error);
  p = spx_ipu_plan_best_n (bow, SPX_IPU_MODE_DENSE, mask, N_MAX,
                           SPX_DTYPE_FP16, &error);
  g_cancellable_pop_current (cancel);
  g_assert_null (p);
  g_assert_error (error, SPX_BUDGET_ERROR, SPX_BUDGET_ERROR_CANCELLED);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ipu/model/dense-budget", test_dense_budget);
  g_test_add_func ("/ipu/model/dense-cancelled", test_dense_cancelled);
  for (guint i = 0; i < G_N_ELEMENTS (paper); i++)
    {
      g_autofree char *path = g_strdup_printf ("/ipu/model/paper/density-1-%u",
                                               paper[i].inv_density);
      g_test_add_data_func (path, &paper[i], test_row);
    }
  return g_test_run ();
}
