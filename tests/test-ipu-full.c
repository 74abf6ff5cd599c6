/* test-ipu-full.c: a mask with every block set is a dense layer, so no
 * sparse plan of it may beat the dense planner's best, on any machine,
 * dtype or shape */
#include "spx-ipu.h"
#include "spx-mask.h"

/* Sides of W and columns of X, powers of 2 and the odd sizes of real
 * layers (576 = 3 · 192, 2304 = 9 · 256). */
static const guint64 sides[] = { 64, 256, 576, 2304, 8192 };
static const guint64 columns[] = { 16, 64, 256, 1024, 4096 };
static const guint blocks[] = { 1, 4, 8, 16 };

/* A mask of more blocks than this is planned at the next block size:
 * the sparse planners go over every block, several times (a 8192² mask
 * at b = 4, 2^22 blocks, takes 0.7 s of CPU to plan, at b = 16 0.05 s). */
#define BLOCKS_MAX (G_GUINT64_CONSTANT (1) << 16)

typedef struct {
  double  worst;  /* dense cycles / the sparse plan's, the largest */
  char   *where;
  guint   compared;
} Worst;

/* The sparse plan p of the full mask, against dense d: if p fits, dense
 * fits and takes no more cycles. */
static void
compare (const SpxIpuProgram *d, const SpxIpuProgram *p, Worst *w)
{
  g_autofree char *where = g_strdup_printf (
    "%s %s %" G_GUINT64_FORMAT "×%" G_GUINT64_FORMAT " n %" G_GUINT64_FORMAT
    " b %u %s: dense %" G_GUINT64_FORMAT " (%s), %s %" G_GUINT64_FORMAT
    " (%s)", d->machine->name, spx_dtype_to_string (d->dtype), d->m, d->k,
    d->n, p->block, p->fits ? "fits" : "over memory", d->cycles, d->plan,
    spx_ipu_mode_to_string (p->mode), p->cycles, p->plan);
  if (!p->fits)
    return;
  double ratio = (double) d->cycles / (double) p->cycles;
  if (ratio > w->worst)
    {
      w->worst = ratio;
      g_free (w->where);
      w->where = g_strdup (where);
    }
  w->compared++;
  if (!d->fits || d->cycles > p->cycles)
    g_test_fail_printf ("a full mask beats dense: %s", where);
}

static void
check_point (const SpxIpuMachine *m, SpxDtype dtype, guint64 rows,
             guint64 cols, guint64 n, guint b, Worst *worst)
{
  g_autoptr (GError) error = NULL;
  guint i = 0;
  while (blocks[i] < b)
    i++;
  while (blocks[i] < 16 &&
         rows * cols / ((guint64) blocks[i] * blocks[i]) > BLOCKS_MAX)
    i++;
  b = blocks[i];
  g_autoptr (SpxMask) mask = spx_mask_new (rows, cols, b, &error);
  g_assert_no_error (error);
  spx_mask_fill (mask);
  g_autoptr (SpxIpuProgram) d = spx_ipu_plan_dense (m, rows, cols, n, dtype,
                                                    &error);
  g_assert_no_error (error);
  g_autoptr (SpxIpuProgram) s = spx_ipu_plan_static (m, mask, n, dtype,
                                                     &error);
  g_assert_no_error (error);
  g_autoptr (SpxIpuProgram) y = spx_ipu_plan_dynamic (m, mask, 0, n, dtype,
                                                      &error);
  g_assert_no_error (error);
  compare (d, s, &worst[0]);
  compare (d, y, &worst[1]);
}

/* Every preset, fp16 and fp32, every m × k of sides at b = 16 (where
 * static plans come closest to dense) and at one other b; n and that b
 * go round their lists, from a different start for each machine and
 * dtype, so that each (m, k) meets several of both. */
static void
test_full_mask (void)
{
  const char *const *names = spx_ipu_machine_presets ();
  Worst worst[2] = { { 0, NULL, 0 }, { 0, NULL, 0 } };
  guint turn = 0;
  for (guint i = 0; names[i] != NULL; i++)
    for (guint t = 0; t < 2; t++, turn++)
      {
        g_autoptr (SpxIpuMachine) m = spx_ipu_machine_preset (names[i]);
        SpxDtype dtype = t ? SPX_DTYPE_FP32 : SPX_DTYPE_FP16;
        guint at = turn;
        for (guint a = 0; a < G_N_ELEMENTS (sides); a++)
          for (guint c = 0; c < G_N_ELEMENTS (sides); c++, at++)
            {
              guint64 n = columns[at % G_N_ELEMENTS (columns)];
              guint64 n2 = columns[(at + 2) % G_N_ELEMENTS (columns)];
              check_point (m, dtype, sides[a], sides[c], n, 16, worst);
              check_point (m, dtype, sides[a], sides[c], n2,
                           blocks[(at / 5 + turn) % 3], worst);
            }
      }
  for (guint i = 0; i < 2; i++)
    {
      g_test_message ("dense / %s, the largest of %u plans that fit: "
                      "%.4f, %s", i ? "dynamic" : "static",
                      worst[i].compared, worst[i].worst,
                      worst[i].where ? worst[i].where : "none");
      g_free (worst[i].where);
    }
  /* most plans fit: the comparison is not vacuous */
  g_assert_cmpuint (worst[0].compared, >=, 250);
  g_assert_cmpuint (worst[1].compared, >=, 250);
}

/* The case a tester found: Bow, fp16, 256 × 2304, n 1024, b 16. The
 * static plan (sn = 10, sk = 36) took 20,755 cycles and dense, whose
 * pM = 3 pN = 27 pK = 18 fetched W from where it starts each call and
 * left two of six workers idle on 4 rows of pieces, 21,542. */
static void
test_full_mask_found (void)
{
  g_autoptr (SpxIpuMachine) bow = spx_ipu_machine_preset ("bow");
  Worst worst[2] = { { 0, NULL, 0 }, { 0, NULL, 0 } };
  check_point (bow, SPX_DTYPE_FP16, 256, 2304, 1024, 16, worst);
  g_assert_cmpuint (worst[0].compared, ==, 1);
  g_assert_cmpfloat (worst[0].worst, <=, 1.0);
  g_free (worst[0].where);
  g_free (worst[1].where);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ipu/full/found", test_full_mask_found);
  g_test_add_func ("/ipu/full/grid", test_full_mask);
  return g_test_run ();
}
