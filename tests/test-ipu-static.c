/* test-ipu-static.c: the static block-sparse IPU planner */
#include "spx-ipu.h"
#include "test-ipu-check.h"
#include "spx-mask-gen.h"
#include "spx-mask-io.h"
#include "spx-util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A machine with Bow's per-tile figures, for shapes no preset has. */
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
  return spx_ipu_machine_preset ("bow");
}

static SpxIpuMachine *
teach16 (void)
{
  return spx_ipu_machine_preset ("teach16");
}

/* ---- invariants -------------------------------------------------------- */

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

/* With sn n-splits, the sn tiles computing on the same blocks each own
 * (list) a part of them: every block is listed by exactly one tile. */
static void
check_program (const SpxIpuProgram *p, const SpxMask *mask)
{
  guint sn = plan_sn (p);
  guint split_tiles = (p->n_tiles / sn) & ~1u;
  guint64 nb = spx_mask_n_blocks (mask);
  guint8 *seen = g_new0 (guint8, nb);
  guint64 macs = 0;
  for (guint t = 0; t < p->n_tiles; t++)
    {
      const SpxIpuTile *tile = &p->tiles[t];
      macs += tile->macs;
      if (tile->blocks == NULL)
        continue;
      g_assert_cmpuint (t, <, split_tiles * sn);
      for (guint i = 0; i < tile->blocks->len; i++)
        {
          guint64 f = g_array_index (tile->blocks, guint64, i);
          g_assert_cmpuint (f, <, nb);
          g_assert_true (spx_mask_get_flat (mask, f));
          g_assert_cmpuint (seen[f], ==, 0);
          seen[f] = 1;
        }
    }
  SpxMaskIter it;
  guint64 br, bc;
  spx_mask_iter_init (&it, mask);
  while (spx_mask_iter_next (&it, &br, &bc))
    g_assert_cmpuint (seen[spx_mask_index (mask, br, bc)], ==, 1);
  g_free (seen);

  g_assert_cmpuint (macs, ==, spx_mask_count_elements (mask) * p->n);
  guint64 total = 0;
  for (guint i = 0; i < p->steps->len; i++)
    {
      const SpxIpuStep *s = &g_array_index (p->steps, SpxIpuStep, i);
      if (s->kind == SPX_STEP_EXCHANGE)
        {
          test_ipu_check_traffic (p, s);
          test_ipu_check_pieces (p, s);
        }
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

/* Every block-column in one of the sk k-bands (a band may be empty:
 * skewed columns fill the first ones); no row partition. */
static void
check_bands (const SpxIpuProgram *p, const SpxMask *mask)
{
  guint sn, sk;
  g_assert_null (p->row_group);
  if (p->col_group == NULL) /* an empty mask has no plan to draw */
    {
      g_assert_cmpuint (spx_mask_count (mask), ==, 0);
      return;
    }
  g_assert_cmpint (sscanf (p->plan, "sn=%u sk=%u", &sn, &sk), ==, 2);
  for (guint64 c = 0; c < mask->bcols; c++)
    g_assert_cmpuint (p->col_group[c], <, sk);
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
  check_bands (p, mask);
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

/* The finding: a mask without blocks (density 0) sorted an empty run list
 * (qsort of NULL); it plans, every output a zero. */
static void
test_density_zero (void)
{
  g_autoptr (SpxIpuMachine) small = teach16 ();
  SpxGenOptions o;
  spx_gen_options_init (&o);
  o.density = 0;
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxMask) mask = spx_mask_generate (64, 64, 16, &o, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (spx_mask_count (mask), ==, 0);
  g_autoptr (SpxIpuProgram) p = spx_ipu_plan_static (small, mask, 16,
                                                     SPX_DTYPE_FP16, &error);
  g_assert_no_error (error);
  check_program (p, mask);
  for (guint t = 0; t < p->n_tiles; t++)
    {
      g_assert_cmpuint (p->tiles[t].macs, ==, 0);
      g_assert_true (p->tiles[t].blocks == NULL ||
                     p->tiles[t].blocks->len == 0);
    }
}

/* ---- hostile sizes ------------------------------------------------------ */

/* A machine file may ask for 16384 tiles and an exchange fast enough that
 * every tile of a band all-gathers from every other: tiles² transfers. */
static SpxIpuMachine *
many_tiles (void)
{
  SpxIpuMachine *m = bow ();
  m->tiles = 16384;
  m->grid_width = 128;
  m->exchange_bytes_per_cycle = 1e6;
  return m;
}

static SpxMask *
uniform_mask (guint64 side, guint b, double density)
{
  SpxGenOptions o;
  spx_gen_options_init (&o);
  o.density = density;
  g_autoptr (GError) error = NULL;
  SpxMask *mask = spx_mask_generate (side, side, b, &o, &error);
  g_assert_no_error (error);
  return mask;
}

/* The command line keeps only the figures of each plan: dropping the
 * detail leaves them as they were. */
static void
test_drop_detail (void)
{
  g_autoptr (SpxIpuMachine) m = bow ();
  g_autoptr (SpxMask) mask = uniform_mask (512, 4, 0.1);
  g_autoptr (SpxIpuProgram) p = spx_ipu_plan_static (m, mask, 64,
                                                     SPX_DTYPE_FP16, NULL);
  guint64 cycles = p->cycles, bytes = p->max_tile_bytes;
  guint steps = p->steps->len, phases = p->phases->len;
  const SpxIpuStep *dist = &g_array_index (p->steps, SpxIpuStep, 0);
  g_assert_cmpuint (dist->transfers->len, >, 0);
  spx_ipu_program_drop_detail (p);
  g_assert_cmpuint (p->cycles, ==, cycles);
  g_assert_cmpuint (p->max_tile_bytes, ==, bytes);
  g_assert_cmpuint (p->steps->len, ==, steps);
  g_assert_cmpuint (p->phases->len, ==, phases);
  g_assert_null (p->col_group);
  g_assert_null (dist->transfers);
  g_assert_null (dist->bytes_in);
  g_assert_cmpuint (spx_ipu_program_first_exchange (p), ==, 0);
  for (guint t = 0; t < p->n_tiles; t++)
    g_assert_null (p->tiles[t].blocks);
}

/* Refused with the budget's error, naming the plan and its size. */
static void
assert_over_budget (const SpxIpuProgram *p, const GError *error)
{
  g_assert_null (p);
  g_assert_error (error, SPX_BUDGET_ERROR, SPX_BUDGET_ERROR_TOO_LARGE);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "the static plan"));
  g_assert_nonnull (strstr (error->message, "would need"));
  g_assert_nonnull (strstr (error->message, "MiB"));
}

/* Planning 4096² in blocks of 16 on it holds ~140 MiB, most of it
 * transfers (the same problem on Bow takes a few MiB): over a 64 MiB
 * budget it is refused before anything is built. */
static void
test_budget_many_tiles (void)
{
  g_autoptr (SpxIpuMachine) big = many_tiles ();
  g_autoptr (SpxIpuMachine) normal = bow ();
  g_autoptr (SpxMask) mask = uniform_mask (4096, 16, 1.0 / 16);
  g_autoptr (GError) error = NULL;
  g_setenv (SPX_MEMORY_BUDGET_ENV, "64M", TRUE);
  gint64 t0 = g_get_monotonic_time ();
  SpxIpuProgram *p = spx_ipu_plan_static (big, mask, 1024, SPX_DTYPE_FP16,
                                          &error);
  double ms = (g_get_monotonic_time () - t0) / 1e3;
  assert_over_budget (p, error);
  g_assert_nonnull (strstr (error->message, "16384 tiles"));
  g_clear_error (&error);
  g_autoptr (SpxIpuProgram) fine = spx_ipu_plan_static (normal, mask, 1024,
                                                        SPX_DTYPE_FP16,
                                                        &error);
  g_assert_no_error (error);
  check_program (fine, mask);
  /* best over n passes over the n it cannot afford and takes the best of
   * the others */
  g_autoptr (SpxIpuProgram) best = spx_ipu_plan_best_n (
    big, SPX_IPU_MODE_STATIC, mask, 4096, SPX_DTYPE_FP16, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (best->n, !=, 1024);
  check_program (best, mask);
  /* and says so when it can afford none */
  g_setenv (SPX_MEMORY_BUDGET_ENV, "1K", TRUE);
  p = spx_ipu_plan_best_n (big, SPX_IPU_MODE_STATIC, mask, 4096,
                           SPX_DTYPE_FP16, &error);
  g_unsetenv (SPX_MEMORY_BUDGET_ENV);
  g_assert_null (p);
  g_assert_error (error, SPX_BUDGET_ERROR, SPX_BUDGET_ERROR_TOO_LARGE);
  g_test_message ("refused in %.1f ms; best n within the budget: %"
                  G_GUINT64_FORMAT, ms, best->n);
}

/* The finding: a ~120-byte scenario, 65536² in blocks of 1 with a skewed
 * pattern, made the planner ask for the dealt list (8 bytes a block) and
 * the tiles' lists in one g_new each, and abort. */
static void
test_budget_skewed_b1 (void)
{
  g_autoptr (SpxIpuMachine) m = bow ();
  SpxGenOptions o;
  spx_gen_options_init (&o);
  o.pattern = SPX_PATTERN_SKEWED;
  o.density = 0.01;
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxMask) mask = spx_mask_generate (65536, 65536, 1, &o, &error);
  g_assert_no_error (error);
  g_setenv (SPX_MEMORY_BUDGET_ENV, "256M", TRUE);
  SpxIpuProgram *p = spx_ipu_plan_static (m, mask, 16, SPX_DTYPE_FP16,
                                          &error);
  g_unsetenv (SPX_MEMORY_BUDGET_ENV);
  assert_over_budget (p, error);
  g_assert_nonnull (strstr (error->message, "65536×65536 in blocks of 1"));
}

/* A cancelled planning (the window's Escape, or a newer request) ends
 * with the cancellation, at once. */
static void
test_cancelled (void)
{
  g_autoptr (SpxIpuMachine) m = bow ();
  g_autoptr (SpxMask) mask = uniform_mask (4096, 1, 0.25);
  g_autoptr (GCancellable) cancel = g_cancellable_new ();
  g_autoptr (GError) error = NULL;
  g_cancellable_cancel (cancel);
  g_cancellable_push_current (cancel);
  gint64 t0 = g_get_monotonic_time ();
  SpxIpuProgram *p = spx_ipu_plan_static (m, mask, 256, SPX_DTYPE_FP16,
                                          &error);
  g_assert_null (p);
  g_assert_error (error, SPX_BUDGET_ERROR, SPX_BUDGET_ERROR_CANCELLED);
  g_clear_error (&error);
  p = spx_ipu_plan_best_n (m, SPX_IPU_MODE_STATIC, mask, 65536,
                           SPX_DTYPE_FP16, &error);
  double ms = (g_get_monotonic_time () - t0) / 1e3;
  g_cancellable_pop_current (cancel);
  g_assert_null (p);
  g_assert_error (error, SPX_BUDGET_ERROR, SPX_BUDGET_ERROR_CANCELLED);
  g_test_message ("both cancelled in %.1f ms", ms);
  g_assert_cmpfloat (ms, <, 1000);
}

/* ---- by hand ----------------------------------------------------------- */

static guint64
phase_cycles (const SpxIpuProgram *p, const char *name)
{
  for (guint i = 0; i < p->phases->len; i++)
    {
      const SpxIpuPhase *ph = &g_array_index (p->phases, SpxIpuPhase, i);
      if (g_str_equal (ph->name, name))
        return ph->cycles;
    }
  return 0;
}

static void
assert_bytes (const SpxIpuTile *tile, guint64 values, guint64 indices,
              guint64 input, guint64 partials, guint64 output)
{
  g_assert_cmpuint (tile->bytes[SPX_BYTES_VALUES], ==, values);
  g_assert_cmpuint (tile->bytes[SPX_BYTES_INDICES], ==, indices);
  g_assert_cmpuint (tile->bytes[SPX_BYTES_INPUT], ==, input);
  g_assert_cmpuint (tile->bytes[SPX_BYTES_PARTIALS], ==, partials);
  g_assert_cmpuint (tile->bytes[SPX_BYTES_OUTPUT], ==, output);
}

/* teach16, fp32, b = 4, n = 2: W is 32×4 (8 block-rows, one block-column)
 * with blocks in block-rows 0, 2, 3, 5, 6.
 * - n/grain = 2/2 = 1 and one busy column: sn = sk = 1; the one band gets
 *   all 16 tiles; ceil(5/16) = 1 block each, rows sorted (all 1, stable):
 *   tiles 0..4 get rows 0, 2, 3, 5, 6 (flat index = row).
 * - layouts: a unit is one column of one block (4 floats, 16 bytes); a
 *   grain is 2·2/4 = 1 unit. X has 1 × 2 units: tile 0 holds X's column
 *   0, tile 1 column 1. Y has 8 × 2 units: tile t holds block-row t/2,
 *   column t%2.
 * - distribute: each of tiles 0..4 takes the band's X (4 rows × 2
 *   columns, 32 bytes). Tile 1 sends column 1 to tile 0 (the band's
 *   first tile), tile 0 column 0 to tile 1 (the first other than
 *   itself); tiles 2, 3, 4 receive both as broadcasts: 8 transfers, each
 *   holder sends 16 bytes once. Busiest: tile 2 receives 32: 100 + 32/4
 *   = 108.
 * - per tile: values 64, indices 2 + 4 + 16 = 22, X 32 (tiles 0 and 1
 *   also hold their 16-byte share of X: 48), partials 4 × 2 × 4 = 32,
 *   output 16 (every tile, its unit of Y); MACs 16 × 2 = 32.
 * - compute (PopLibs' b = 4 fp32 row: header 13, X rows 1, y(n) = 8 + 4n):
 *   one row, two columns: one worker (wn = ceil(2/2) = 1, wr = 1), y(2) =
 *   16; 30 + 13·6 + 1·(1·6 + 17) + 1·(16 + 16·4/8 + 16·6) = 108 + 23 +
 *   120 = 251.
 * - reduce: one holder per row, so each row's two columns are copied to
 *   their owners, nothing added: row 0 (tile 0) column 1 to tile 1 (column
 *   0 is its own), row 2 (tile 1) to tiles 4, 5, row 3 (tile 2) to 6, 7,
 *   row 5 (tile 3) to 10, 11, row 6 (tile 4) to 12, 13: 9 transfers of 16
 *   bytes. Busiest: tile 1 sends 32: 100 + 32/4 = 108; final output:
 *   32 × 2 × 4 = 256 bytes over 16 tiles = 16; 124 in all. Adds: 0.
 * - empty rows 1, 4, 7: their outputs' memory on tiles 2, 3, 8, 9, 14,
 *   15, never written (PopLibs never runs that copy).
 * - total: 108 + 90 + 251 + 90 + 124 + 0 + 90 = 753. */
static void
test_hand_teach16 (void)
{
  g_autoptr (SpxIpuMachine) m = teach16 ();
  g_autoptr (SpxMask) mask = spx_mask_new (32, 4, 4, NULL);
  const guint rows[] = { 0, 2, 3, 5, 6 };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    spx_mask_set (mask, rows[i], 0);
  g_autoptr (SpxIpuProgram) p = spx_ipu_plan_static (m, mask, 2,
                                                     SPX_DTYPE_FP32, NULL);
  check_program (p, mask);
  g_assert_cmpstr (p->plan, ==, "sn=1 sk=1");
  for (guint t = 0; t < 16; t++)
    {
      const SpxIpuTile *tile = &p->tiles[t];
      if (t >= 5)
        {
          g_assert_null (tile->blocks);
          assert_bytes (tile, 0, 0, 0, 0, 16);
          continue;
        }
      g_assert_cmpuint (tile->blocks->len, ==, 1);
      g_assert_cmpuint (g_array_index (tile->blocks, guint64, 0), ==,
                        rows[t]);
      assert_bytes (tile, 64, 22, t < 2 ? 48 : 32, 32, 16);
      g_assert_cmpuint (tile->macs, ==, 32);
      g_assert_cmpuint (tile->compute_cycles, ==, 251);
    }
  const SpxIpuStep *dist = &g_array_index (p->steps, SpxIpuStep, 0);
  g_assert_cmpstr (dist->phase, ==, "distribute");
  g_assert_cmpuint (dist->transfers->len, ==, 8);
  g_assert_cmpuint (dist->bytes_in[0], ==, 16);
  g_assert_cmpuint (dist->bytes_in[2], ==, 32);
  g_assert_cmpuint (dist->bytes_out[0], ==, 16); /* one broadcast */
  g_assert_cmpuint (dist->bytes_out[1], ==, 16);
  /* X rows 0–3: column 1 from tile 1, column 0 from tile 0 */
  test_ipu_check_transfer (dist, 0, 1, 0, 16, SPX_BYTES_INPUT, 0, 4, 1, 2);
  test_ipu_check_transfer (dist, 1, 0, 1, 16, SPX_BYTES_INPUT, 0, 4, 0, 1);
  test_ipu_check_transfer (dist, 2, 0, 2, 16, SPX_BYTES_INPUT, 0, 4, 0, 1);
  test_ipu_check_transfer (dist, 3, 1, 2, 16, SPX_BYTES_INPUT, 0, 4, 1, 2);
  g_assert_cmpuint (dist->cycles, ==, 108);
  const SpxIpuStep *red = &g_array_index (p->steps, SpxIpuStep, 4);
  g_assert_cmpstr (red->phase, ==, "reduce");
  g_assert_cmpuint (red->transfers->len, ==, 9);
  /* Y rows 0–3, column 1: tile 0's partials to their owner, tile 1 */
  test_ipu_check_transfer (red, 0, 0, 1, 16, SPX_BYTES_PARTIALS, 0, 4, 1, 2);
  /* Y rows 8–11 (block-row 2) from tile 1 to tiles 4 and 5 */
  test_ipu_check_transfer (red, 1, 1, 4, 16, SPX_BYTES_PARTIALS, 8, 12, 0, 1);
  test_ipu_check_transfer (red, 2, 1, 5, 16, SPX_BYTES_PARTIALS, 8, 12, 1, 2);
  g_assert_cmpuint (red->bytes_out[1], ==, 32);
  g_assert_cmpuint (red->cycles, ==, 124);
  g_assert_cmpuint (phase_cycles (p, "distribute"), ==, 108 + 90);
  g_assert_cmpuint (phase_cycles (p, "compute"), ==, 251 + 90);
  g_assert_cmpuint (phase_cycles (p, "reduce"), ==, 124 + 0 + 90);
  g_assert_cmpuint (phase_cycles (p, "zero-fill"), ==, 0); /* no step */
  g_assert_cmpuint (p->cycles, ==, 753);
  /* every step's terms, as worked out above */
  static const guint64 want[][3] = {
    { 100, 8, 0 },  /* distribute: overhead, busiest tile receives */
    { 90, 0, 0 },   /* sync */
    { 108, 23, 120 }, /* compute: start 30 + 13·6, row, block */
    { 90, 0, 0 },   /* sync */
    { 100, 8, 16 }, /* reduce exchange: overhead, busiest sends, output */
    { 0, 0, 0 },    /* reduce: nothing to add */
    { 90, 0, 0 },   /* sync */
  };
  g_assert_cmpuint (p->steps->len, ==, G_N_ELEMENTS (want));
  for (guint i = 0; i < p->steps->len; i++)
    {
      const SpxIpuStep *s = &g_array_index (p->steps, SpxIpuStep, i);
      for (guint j = 0; j < 3; j++)
        g_assert_cmpuint (j < s->terms->len ?
                          g_array_index (s->terms, SpxIpuTerm, j).cycles : 0,
                          ==, want[i][j]);
    }
  g_assert_cmpuint (p->max_tile_bytes, ==, 64 + 22 + 48 + 32 + 16);
  g_assert_cmpuint (p->tiles_used, ==, 16);
  g_assert_true (p->fits);
  g_assert_cmpfloat_with_epsilon (p->density, 80.0 / 128.0, 1e-12);
}

/* Two tiles (one pair), fp32, b = 4, n = 2: W is 8×16 (2×4 blocks) with
 * all four blocks of block-row 0 and block (1, 1): flat 0, 1, 2, 3, 5.
 * - sn·sk ≤ 2/2: sn = sk = 1; ceil(5/2) = 3 blocks a tile in row order:
 *   tile 0 {0, 1, 2} (row 0), tile 1 {3, 5} (rows 0 and 1).
 * - layouts (a unit: one column of a block, 16 bytes; a grain 1 unit): X
 *   has 4 × 2 units, tile 0 holds block-columns 0 and 1 (X rows 0–7),
 *   tile 1 block-columns 2 and 3; Y has 2 × 2 units, tile 0 holds
 *   block-row 0, tile 1 block-row 1.
 * - distribute: the band is all 16 rows of X: each tile receives the 8
 *   rows the other holds, 8 × 2 × 4 = 64 bytes, and sends 64: 100 + 64/4
 *   = 116.
 * - tile 0: values 48 × 4 = 192, indices 3·2 + 4 + 16 = 26, X 64 held +
 *   128 received = 192, partials 32 own + 32 received, output 32;
 *   compute: one row, 3 blocks: 108 + 23 + 3·120 = 491 (as in
 *   teach16).
 * - tile 1: values 128, indices 2·2 + 2·4 + 16 = 28, X 192, partials 2 ×
 *   32 = 64, output 32; compute: 2 rows on 2 workers, 1 block each: 251.
 * - reduce: block-row 0 is held by both and owned by tile 0: tile 1 sends
 *   its 32 bytes there, 100 + 32/4 = 108, plus the final output, 8 × 2 ×
 *   4 = 64 bytes over 2 tiles = 32: 140. Row 1 is held and owned by tile
 *   1: nothing moves. Adds on tile 0: 8 outputs of 2 partials, floats:
 *   6 × (16 + ceil(ceil(8/6)/4) × (5 + 6 + 2 − 1)) = 6 × (16 + 12) = 168.
 * - total: 116 + 90 + 491 + 90 + 140 + 168 + 90 = 1185. */
static void
test_hand_pair (void)
{
  g_autoptr (SpxIpuMachine) m = machine_new ("pair", 2, 2, 64 * 1024);
  g_autoptr (SpxMask) mask = spx_mask_new (8, 16, 4, NULL);
  for (guint c = 0; c < 4; c++)
    spx_mask_set (mask, 0, c);
  spx_mask_set (mask, 1, 1);
  g_autoptr (SpxIpuProgram) p = spx_ipu_plan_static (m, mask, 2,
                                                     SPX_DTYPE_FP32, NULL);
  check_program (p, mask);
  g_assert_cmpstr (p->plan, ==, "sn=1 sk=1");
  g_assert_cmpuint (p->tiles[0].blocks->len, ==, 3);
  g_assert_cmpuint (p->tiles[1].blocks->len, ==, 2);
  g_assert_cmpuint (g_array_index (p->tiles[1].blocks, guint64, 0), ==, 3);
  g_assert_cmpuint (g_array_index (p->tiles[1].blocks, guint64, 1), ==, 5);
  assert_bytes (&p->tiles[0], 192, 26, 192, 64, 32);
  assert_bytes (&p->tiles[1], 128, 28, 192, 64, 32);
  g_assert_cmpuint (p->tiles[0].compute_cycles, ==, 491 + 168);
  g_assert_cmpuint (p->tiles[1].compute_cycles, ==, 251);
  const SpxIpuStep *red = &g_array_index (p->steps, SpxIpuStep, 4);
  g_assert_cmpstr (red->phase, ==, "reduce");
  g_assert_cmpuint (red->transfers->len, ==, 1);
  g_assert_cmpuint (red->bytes_out[1], ==, 32);
  g_assert_cmpuint (red->bytes_in[0], ==, 32);
  /* Y rows 0–3 (block-row 0), both columns */
  test_ipu_check_transfer (red, 0, 1, 0, 32, SPX_BYTES_PARTIALS, 0, 4, 0, 2);
  /* X, k = 16 rows: tile 0 holds rows 0–7, tile 1 rows 8–15, 8 × 2 × 4 */
  const SpxIpuStep *dist = &g_array_index (p->steps, SpxIpuStep, 0);
  g_assert_cmpuint (dist->transfers->len, ==, 2);
  test_ipu_check_transfer (dist, 0, 1, 0, 64, SPX_BYTES_INPUT, 8, 16, 0, 2);
  test_ipu_check_transfer (dist, 1, 0, 1, 64, SPX_BYTES_INPUT, 0, 8, 0, 2);
  const SpxIpuStep *adds = &g_array_index (p->steps, SpxIpuStep, 5);
  g_assert_cmpuint (adds->worst_tile, ==, 0);
  g_assert_cmpuint (adds->terms->len, ==, 2);
  g_assert_cmpuint (g_array_index (adds->terms, SpxIpuTerm, 0).cycles, ==,
                    96);
  g_assert_cmpuint (g_array_index (adds->terms, SpxIpuTerm, 1).cycles, ==,
                    72);
  g_assert_cmpuint (phase_cycles (p, "distribute"), ==, 116 + 90);
  g_assert_cmpuint (phase_cycles (p, "compute"), ==, 491 + 90);
  g_assert_cmpuint (phase_cycles (p, "reduce"), ==, 140 + 168 + 90);
  g_assert_cmpuint (p->cycles, ==, 1185);
  g_assert_cmpuint (p->max_tile_bytes, ==, 506);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ipu-static/invariants/random", test_invariants_random);
  g_test_add_func ("/ipu-static/invariants/dlmc", test_invariants_dlmc);
  g_test_add_func ("/ipu-static/empty", test_empty_mask);
  g_test_add_func ("/ipu-static/density-zero", test_density_zero);
  g_test_add_func ("/ipu-static/drop-detail", test_drop_detail);
  g_test_add_func ("/ipu-static/budget/many-tiles", test_budget_many_tiles);
  g_test_add_func ("/ipu-static/budget/skewed-b1", test_budget_skewed_b1);
  g_test_add_func ("/ipu-static/cancelled", test_cancelled);
  g_test_add_func ("/ipu-static/hand/teach16", test_hand_teach16);
  g_test_add_func ("/ipu-static/hand/pair", test_hand_pair);
  return g_test_run ();
}
