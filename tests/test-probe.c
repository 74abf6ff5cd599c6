/* test-probe.c: what bounds a kernel: the lower of its instructions'
 * peak and what L2 can feed it, by hand; the probe's rates where the
 * processor has the instructions; bench --probe's JSON */
#include "spx-engine-probe.h"
#include "spx-probe.h"
#include "test-run.h"

#include <json-glib/json-glib.h>

static void
test_kernel_bound (void)
{
  SpxProbe p = { .threads = 2 };
  p.rate[SPX_BOUND_FMA_AVX2] = 100;
  p.rate[SPX_BOUND_FMA_AVX512] = 200;
  p.rate[SPX_BOUND_DPBF16] = 300;
  p.rate[SPX_BOUND_L2] = 100;    /* GB/s */
  p.rate[SPX_BOUND_GATHER] = 80; /* GB/s */
  static const struct {
    const char *kernel;
    SpxCpuType  type;
    guint       b;
    SpxBoundId  by;
    double      gflops;
  } cases[] = {
    /* fp32 b = 1: rows at random, 80 GB/s × 2 flops per 4 bytes = 40 */
    { "avx512", SPX_CPU_FP32, 1, SPX_BOUND_GATHER, 40 },
    /* b = 2: 100 GB/s × 4 / 4 = 100 < 200 */
    { "avx512", SPX_CPU_FP32, 2, SPX_BOUND_L2, 100 },
    /* b = 16: 100 × 32 / 4 = 800 > 200: the FMAs */
    { "avx512", SPX_CPU_FP32, 16, SPX_BOUND_FMA_AVX512, 200 },
    /* bf16 b = 2: 100 × 4 / 2 = 200 < 300 */
    { "avx512-bf16", SPX_CPU_BF16, 2, SPX_BOUND_L2, 200 },
    { "avx512-bf16", SPX_CPU_BF16, 4, SPX_BOUND_DPBF16, 300 },
    /* widened bf16 on 256-bit FMAs: 100 × 8 / 2 = 400 > 100 */
    { "avx2", SPX_CPU_BF16, 4, SPX_BOUND_FMA_AVX2, 100 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      SpxKernelBound b;
      g_assert_true (spx_probe_kernel_bound (&p, cases[i].kernel,
                                             cases[i].type, cases[i].b, &b));
      g_assert_cmpint (b.by, ==, cases[i].by);
      g_assert_cmpfloat_with_epsilon (b.gflops, cases[i].gflops, 1e-9);
    }
  SpxKernelBound b;
  g_assert_false (spx_probe_kernel_bound (&p, "generic", SPX_CPU_FP32, 4,
                                          &b));
  /* AMX not measured here (0): no bound for its kernel */
  g_assert_false (spx_probe_kernel_bound (&p, "amx-bf16", SPX_CPU_BF16, 16,
                                          &b));
  g_assert_cmpstr (spx_bound_name (SPX_BOUND_DPBF16), ==, "vdpbf16ps");
}

/* A rate for each bound whose instructions this processor runs, none
 * for the others. */
static void
test_probe_rates (void)
{
  SpxProbe p;
  spx_probe_run (&p, 1, 256, 64, SPX_CPU_FP32);
  g_assert_cmpuint (p.threads, ==, 1);
  const SpxIsa needs[SPX_N_BOUNDS] = {
    SPX_ISA_AVX2, SPX_ISA_AVX512, SPX_ISA_AVX512_BF16, SPX_ISA_AMX_BF16,
    SPX_ISA_AVX512, SPX_ISA_AVX512
  };
  for (SpxBoundId id = 0; id < SPX_N_BOUNDS; id++)
    if (spx_isa_supported (needs[id]))
      g_assert_cmpfloat (p.rate[id], >, 0);
    else
      g_assert_cmpfloat (p.rate[id], ==, 0);
}

/* The gather reads the first vectors of each listed row, repeats and
 * all: its sum is theirs, its bytes 64 a vector. */
static void
test_gather (void)
{
  if (!spx_isa_supported (SPX_ISA_AVX512))
    {
      g_test_skip ("no AVX-512 here");
      return;
    }
  enum { ROWS = 8, LD = 48 };
  float panel[ROWS * LD];
  for (guint i = 0; i < ROWS * LD; i++)
    panel[i] = (float) (i % LD < 32 ? i : 1000 * i); /* past 2 vectors: big */
  const guint32 rows[] = { 3, 0, 3, 7 };
  double want = 0;
  for (guint r = 0; r < G_N_ELEMENTS (rows); r++)
    for (guint c = 0; c < 32; c++)
      want += panel[rows[r] * LD + c];
  float keep = 0;
  double bytes = spx_probe_gather_avx512 (panel, LD, 2, rows,
                                          G_N_ELEMENTS (rows), &keep);
  g_assert_cmpfloat (bytes, ==, 4 * 2 * 64);
  g_assert_cmpfloat_with_epsilon (keep, want, 1e-3 * want);
}

/* bench --probe --json: each sparse timing's bound, its fraction the
 * kernel's non-zero rate over it. */
static void
test_cli (void)
{
  const char *argv[] = { test_binary (), "bench", "--m", "64", "--k", "64",
                         "--n", "16", "--block", "4", "--threads", "1",
                         "--reps", "1", "--warmup", "0", "--json", "--probe",
                         NULL };
  int status;
  g_autofree char *out = test_run (argv, NULL, &status, NULL);
  g_assert_cmpint (status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_data (parser, out, -1, NULL));
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));
  const char *keys[] = { "static", "dynamic" };
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      JsonObject *t = json_object_get_object_member (root, keys[i]);
      if (!json_object_has_member (t, "bound"))
        {
          g_assert_cmpstr (json_object_get_string_member (t, "kernel"), ==,
                           "generic");
          continue;
        }
      JsonObject *b = json_object_get_object_member (t, "bound");
      double gflops = json_object_get_double_member (b, "gflops");
      g_assert_cmpfloat (gflops, >, 0);
      g_assert_cmpfloat_with_epsilon (
        json_object_get_double_member (b, "fraction"),
        json_object_get_double_member (t, "nz_gflops") / gflops, 1e-9);
      g_assert_nonnull (json_object_get_string_member (b, "name"));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/probe/kernel-bound", test_kernel_bound);
  g_test_add_func ("/probe/rates", test_probe_rates);
  g_test_add_func ("/probe/gather", test_gather);
  g_test_add_func ("/probe/cli", test_cli);
  return g_test_run ();
}
