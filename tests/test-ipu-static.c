/* test-ipu-static.c: the static block-sparse IPU planner */
#include "spx-ipu.h"
#include "spx-mask-gen.h"
#include "spx-mask-io.h"

#include <math.h>
#include <stdio.h>

/* Machines by hand, so these tests do not depend on the presets. */
static SpxIpuMachine *
machine_new (const char *name, guint tiles, guint width, guint64 sram)
{
  SpxIpuMachine *m = g_new0 (SpxIpuMachine, 1);
  m->name = g_strdup (name);
  m->tiles = tiles;
  m->grid_width = width;
  m->sram_bytes = sram;
  m->clock_hz = 1.85e9;
  m->flop_per_cycle_fp16 = 128;
  m->flop_per_cycle_fp32 = 32;
  m->exchange_bytes_per_cycle = 4;
  m->sync_cycles = 90;
  m->exchange_overhead_cycles = 100;
  m->available_memory = 0.6;
  m->workers = 6;
  return m;
}

static SpxIpuMachine *
bow (void)
{
  return machine_new ("bow", 1472, 46, 624 * 1024);
}

static SpxIpuMachine *
teach16 (void)
{
  return machine_new ("teach16", 16, 4, 64 * 1024);
}

/* ---- invariants -------------------------------------------------------- */

static void
check_exchange (const SpxIpuProgram *p, const SpxIpuStep *s)
{
  guint64 in = 0, out = 0, moved = 0;
  for (guint t = 0; t < p->n_tiles; t++)
    {
      in += s->bytes_in[t];
      out += s->bytes_out[t];
    }
  for (guint i = 0; i < s->transfers->len; i++)
    {
      SpxIpuTransfer *x = &g_array_index (s->transfers, SpxIpuTransfer, i);
      g_assert_cmpuint (x->src, <, p->n_tiles);
      g_assert_cmpuint (x->dst, <, p->n_tiles);
      g_assert_cmpuint (x->src, !=, x->dst);
      moved += x->bytes;
    }
  g_assert_cmpuint (in, ==, out);
  g_assert_cmpuint (in, ==, moved);
}

/* Which n-split a tile serves, from the plan string "sn=… sk=…". */
static guint
plan_sn (const SpxIpuProgram *p)
{
  guint sn = 0, sk = 0;
  g_assert_cmpint (sscanf (p->plan, "sn=%u sk=%u", &sn, &sk), ==, 2);
  g_assert_cmpuint (sn, >=, 1);
  g_assert_cmpuint (sk, >=, 1);
  return sn;
}

static void
check_program (const SpxIpuProgram *p, const SpxMask *mask)
{
  guint sn = plan_sn (p);
  guint split_tiles = (p->n_tiles / sn) & ~1u;
  guint64 nb = spx_mask_n_blocks (mask);
  /* each block: once per n-split, on a tile of that split */
  guint8 *seen = g_new0 (guint8, nb * sn);
  guint64 macs = 0;
  for (guint t = 0; t < p->n_tiles; t++)
    {
      const SpxIpuTile *tile = &p->tiles[t];
      macs += tile->macs;
      if (tile->blocks == NULL)
        continue;
      g_assert_cmpuint (t, <, split_tiles * sn);
      guint s = t / split_tiles;
      for (guint i = 0; i < tile->blocks->len; i++)
        {
          guint64 f = g_array_index (tile->blocks, guint64, i);
          g_assert_cmpuint (f, <, nb);
          g_assert_true (spx_mask_get_flat (mask, f));
          g_assert_cmpuint (seen[f * sn + s], ==, 0);
          seen[f * sn + s] = 1;
        }
    }
  SpxMaskIter it;
  guint64 br, bc;
  spx_mask_iter_init (&it, mask);
  while (spx_mask_iter_next (&it, &br, &bc))
    for (guint s = 0; s < sn; s++)
      g_assert_cmpuint (seen[spx_mask_index (mask, br, bc) * sn + s], ==, 1);
  g_free (seen);

  g_assert_cmpuint (macs, ==, spx_mask_count_elements (mask) * p->n);
  guint64 total = 0;
  for (guint i = 0; i < p->steps->len; i++)
    {
      const SpxIpuStep *s = &g_array_index (p->steps, SpxIpuStep, i);
      if (s->kind == SPX_STEP_EXCHANGE)
        check_exchange (p, s);
      total += s->cycles;
    }
  g_assert_cmpuint (total, ==, p->cycles);
  if (p->fits)
    for (guint t = 0; t < p->n_tiles; t++)
      {
        guint64 sum = 0;
        for (guint k = 0; k < SPX_N_BYTE_KINDS; k++)
          sum += p->tiles[t].bytes[k];
        g_assert_cmpuint (sum, <=, p->machine->sram_bytes);
      }
  /* every output element lives on some tile */
  guint64 out = 0;
  for (guint t = 0; t < p->n_tiles; t++)
    out += p->tiles[t].bytes[SPX_BYTES_OUTPUT];
  g_assert_cmpuint (out, ==, mask->rows * p->n *
                             (p->dtype == SPX_DTYPE_FP16 ? 2 : 4));
  g_assert_cmpuint (p->cycles, >, 0);
}

static void
check_mask (const SpxIpuMachine *m, const SpxMask *mask, guint64 n,
            SpxDtype dtype)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxIpuProgram) p = spx_ipu_plan_static (m, mask, n, dtype,
                                                     &error);
  g_assert_no_error (error);
  g_assert_nonnull (p);
  g_assert_cmpint (p->mode, ==, SPX_IPU_MODE_STATIC);
  check_program (p, mask);
}

static void
test_invariants_random (void)
{
  g_autoptr (SpxIpuMachine) small = teach16 ();
  g_autoptr (SpxIpuMachine) big = bow ();
  const SpxPattern patterns[] = {
    SPX_PATTERN_UNIFORM, SPX_PATTERN_TILEWISE, SPX_PATTERN_NM,
    SPX_PATTERN_BANDED, SPX_PATTERN_SKEWED, SPX_PATTERN_MAGNITUDE,
  };
  const guint blocks[] = { 1, 4, 8, 16 };
  const guint64 ns[] = { 1, 7, 64, 300 };
  guint seed = 1;
  for (guint ip = 0; ip < G_N_ELEMENTS (patterns); ip++)
    for (guint ib = 0; ib < G_N_ELEMENTS (blocks); ib++)
      {
        SpxGenOptions o;
        spx_gen_options_init (&o);
        o.pattern = patterns[ip];
        o.density = 0.02 + 0.1 * (seed % 4);
        o.seed = seed++;
        guint64 rows = blocks[ib] == 1 ? 100 : 250, cols = rows + 37;
        g_autoptr (GError) error = NULL;
        g_autoptr (SpxMask) mask = spx_mask_generate (rows, cols, blocks[ib],
                                                      &o, &error);
        g_assert_no_error (error);
        for (guint in = 0; in < G_N_ELEMENTS (ns); in++)
          {
            check_mask (small, mask, ns[in], SPX_DTYPE_FP32);
            check_mask (big, mask, ns[in], SPX_DTYPE_FP16);
          }
      }
}

static void
test_invariants_dlmc (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data",
    "transformer-magnitude_pruning-0.98-attention_q.smtx", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxMask) mask = spx_mask_load (path, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (SpxIpuMachine) big = bow ();
  g_autoptr (SpxIpuMachine) small = teach16 ();
  check_mask (big, mask, 128, SPX_DTYPE_FP16);
  check_mask (big, mask, 1, SPX_DTYPE_FP32);
  check_mask (small, mask, 16, SPX_DTYPE_FP32);
  for (guint b = 4; b <= 16; b *= 2)
    {
      g_autoptr (SpxMask) blocked = spx_mask_to_blocks (mask, b, &error);
      g_assert_no_error (error);
      check_mask (big, blocked, 64, SPX_DTYPE_FP16);
    }
}

static void
test_empty_mask (void)
{
  g_autoptr (SpxIpuMachine) small = teach16 ();
  g_autoptr (SpxMask) mask = spx_mask_new (32, 32, 4, NULL);
  check_mask (small, mask, 8, SPX_DTYPE_FP32);
}

/* ---- calibration ------------------------------------------------------- */

static double
best_nz_tflops (const SpxIpuMachine *m, const SpxMask *mask, guint64 *best_n)
{
  double best = 0;
  for (guint64 n = 1; n <= 65536; n *= 2)
    {
      g_autoptr (SpxIpuProgram) p = spx_ipu_plan_static (m, mask, n,
                                                         SPX_DTYPE_FP16, NULL);
      if (p->fits && p->nz_tflops > best)
        {
          best = p->nz_tflops;
          *best_n = n;
        }
    }
  return best;
}

static void
test_calibration (void)
{
  /* PopSparse, Bow, fp16, m = k = 4096, best over n (reference table) */
  static const struct { guint b, inv_d; double paper; } points[] = {
    { 1, 4, 11.5 }, { 1, 8, 11.5 }, { 1, 16, 10.5 }, { 1, 32, 8.5 },
    { 16, 4, 88 }, { 16, 8, 70 }, { 16, 16, 72 }, { 16, 32, 35 },
  };
  g_autoptr (SpxIpuMachine) m = bow ();
  for (guint i = 0; i < G_N_ELEMENTS (points); i++)
    {
      SpxGenOptions o;
      spx_gen_options_init (&o);
      o.density = 1.0 / points[i].inv_d;
      o.seed = 42;
      g_autoptr (SpxMask) mask = spx_mask_generate (4096, 4096, points[i].b,
                                                    &o, NULL);
      guint64 n = 0;
      double model = best_nz_tflops (m, mask, &n);
      double dense = 228.0 / points[i].inv_d;
      g_test_message ("b=%u d=1/%u: model %.1f (n=%" G_GUINT64_FORMAT
                      ") paper %.1f dense %.1f", points[i].b,
                      points[i].inv_d, model, n, points[i].paper, dense);
      g_assert_cmpfloat (model, >=, 0.75 * points[i].paper);
      g_assert_cmpfloat (model, <=, 1.25 * points[i].paper);
      if (points[i].b == 16)
        g_assert_cmpfloat (model, >, dense);
      if (points[i].b == 1 && points[i].inv_d <= 8)
        g_assert_cmpfloat (model, <, dense);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ipu-static/invariants/random", test_invariants_random);
  g_test_add_func ("/ipu-static/invariants/dlmc", test_invariants_dlmc);
  g_test_add_func ("/ipu-static/empty", test_empty_mask);
  g_test_add_func ("/ipu-static/calibration", test_calibration);
  return g_test_run ();
}
