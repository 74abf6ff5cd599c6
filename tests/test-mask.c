/* test-mask.c: the block bitset (core/mask/spx-mask.c) and the generators
 * (core/mask/spx-mask-gen*.c), against hand-computed expectations. */
#include "spx-mask-gen.h"
#include "spx-util.h"

#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static SpxMask *
new_mask (guint64 rows, guint64 cols, guint block)
{
  GError *error = NULL;
  SpxMask *mask = spx_mask_new (rows, cols, block, &error);
  g_assert_no_error (error);
  g_assert_nonnull (mask);
  return mask;
}

static SpxMask *
generate (guint64 rows, guint64 cols, guint block, const SpxGenOptions *o)
{
  GError *error = NULL;
  SpxMask *mask = spx_mask_generate (rows, cols, block, o, &error);
  g_assert_no_error (error);
  g_assert_nonnull (mask);
  return mask;
}

static double
elapsed_ms (gint64 since)
{
  return (double) (g_get_monotonic_time () - since) / 1000.0;
}

/* ------------------------------------------------------------------ */
/* SpxMask basics                                                      */

static void
test_new (void)
{
  g_autoptr(SpxMask) mask = new_mask (10, 7, 4);
  g_assert_cmpuint (mask->rows, ==, 10);
  g_assert_cmpuint (mask->cols, ==, 7);
  g_assert_cmpuint (mask->block, ==, 4);
  g_assert_cmpuint (mask->brows, ==, 3);
  g_assert_cmpuint (mask->bcols, ==, 2);
  g_assert_cmpuint (mask->n_words, ==, 1);
  g_assert_cmpuint (spx_mask_n_blocks (mask), ==, 6);
  g_assert_cmpuint (spx_mask_count (mask), ==, 0);

  g_autoptr(SpxMask) wide = new_mask (1, 130, 1);
  g_assert_cmpuint (wide->n_words, ==, 3);
  g_autoptr(SpxMask) exact = new_mask (8, 16, 1); /* 128 blocks, 2 words */
  g_assert_cmpuint (exact->n_words, ==, 2);
  g_autoptr(SpxMask) big_block = new_mask (3, 5, SPX_MASK_MAX_BLOCK);
  g_assert_cmpuint (spx_mask_n_blocks (big_block), ==, 1);
}

static void
assert_refused (guint64 rows, guint64 cols, guint block, int code)
{
  GError *error = NULL;
  SpxMask *mask = spx_mask_new (rows, cols, block, &error);
  g_assert_null (mask);
  g_assert_error (error, SPX_MASK_ERROR, code);
  g_assert_cmpstr (error->message, !=, "");
  g_clear_error (&error);
  /* NULL error is allowed too */
  g_assert_null (spx_mask_new (rows, cols, block, NULL));
}

/* The size checks come before any allocation: the refused sizes below
 * would need 2 GiB to 2^59 bytes, so reaching malloc would show up as an
 * out-of-memory failure or a very slow test, not a quick NULL. */
static void
test_new_refusals (void)
{
  assert_refused (0, 5, 1, SPX_MASK_ERROR_INVALID);
  assert_refused (5, 0, 1, SPX_MASK_ERROR_INVALID);
  assert_refused (5, 5, 0, SPX_MASK_ERROR_INVALID);
  assert_refused (5, 5, SPX_MASK_MAX_BLOCK + 1, SPX_MASK_ERROR_INVALID);
  assert_refused (SPX_MASK_MAX_DIM + 1, 5, 1, SPX_MASK_ERROR_TOO_LARGE);
  assert_refused (5, G_MAXUINT64, 1, SPX_MASK_ERROR_TOO_LARGE);
  assert_refused (SPX_MASK_MAX_DIM, SPX_MASK_MAX_DIM, 1,
                  SPX_MASK_ERROR_TOO_LARGE);
  /* 2^17 × (2^17 + 1) blocks: just over 2^34 */
  assert_refused (1u << 17, (1u << 17) + 1, 1, SPX_MASK_ERROR_TOO_LARGE);
  assert_refused ((guint64) 4 << 17, ((guint64) 4 << 17) + 4, 4,
                  SPX_MASK_ERROR_TOO_LARGE);
}

static void
test_bits (void)
{
  g_autoptr(SpxMask) mask = new_mask (30, 50, 5); /* 6 × 10 blocks */
  g_assert_cmpuint (spx_mask_index (mask, 2, 3), ==, 23);

  spx_mask_set (mask, 2, 3);
  g_assert_true (spx_mask_get (mask, 2, 3));
  g_assert_true (spx_mask_get_flat (mask, 23));
  g_assert_false (spx_mask_get (mask, 3, 2));
  spx_mask_set (mask, 2, 3); /* idempotent */
  g_assert_cmpuint (spx_mask_count (mask), ==, 1);

  spx_mask_toggle (mask, 5, 9);
  g_assert_true (spx_mask_get (mask, 5, 9));
  spx_mask_toggle (mask, 5, 9);
  g_assert_false (spx_mask_get (mask, 5, 9));

  spx_mask_clear (mask, 2, 3);
  g_assert_false (spx_mask_get (mask, 2, 3));
  spx_mask_clear (mask, 2, 3); /* clearing a clear bit is harmless */
  g_assert_cmpuint (spx_mask_count (mask), ==, 0);

  spx_mask_set_flat (mask, 59); /* last block, bit 59 of word 0 */
  g_assert_true (spx_mask_get (mask, 5, 9));
  spx_mask_set (mask, 0, 0);
  g_assert_cmpuint (mask->bits[0], ==,
                    (G_GUINT64_CONSTANT (1) << 59) | 1);
}

static void
test_count (void)
{
  g_autoptr(SpxMask) mask = new_mask (7, 100, 1); /* rows cross words */
  g_assert_cmpuint (spx_mask_count_row (mask, 3), ==, 0);
  for (guint64 c = 10; c < 90; c += 3) /* 27 blocks */
    spx_mask_set (mask, 1, c);
  spx_mask_set (mask, 0, 99);
  spx_mask_set (mask, 2, 0);
  spx_mask_set (mask, 6, 99);
  g_assert_cmpuint (spx_mask_count (mask), ==, 30);
  g_assert_cmpuint (spx_mask_count_row (mask, 0), ==, 1);
  g_assert_cmpuint (spx_mask_count_row (mask, 1), ==, 27);
  g_assert_cmpuint (spx_mask_count_row (mask, 2), ==, 1);
  g_assert_cmpuint (spx_mask_count_row (mask, 5), ==, 0);
  g_assert_cmpuint (spx_mask_count_row (mask, 6), ==, 1);
  for (guint64 c = 0; c < 100; c++)
    spx_mask_set (mask, 4, c);
  g_assert_cmpuint (spx_mask_count_row (mask, 4), ==, 100);
  g_assert_cmpuint (spx_mask_count_row (mask, 3), ==, 0);
  g_assert_cmpuint (spx_mask_count_row (mask, 5), ==, 0);
}

/* 10×7 elements, b = 4: block-rows of 4, 4, 2 rows; block-columns of 4, 3
 * columns. */
static void
test_count_elements (void)
{
  g_autoptr(SpxMask) mask = new_mask (10, 7, 4);
  g_assert_cmpuint (spx_mask_block_height (mask, 0), ==, 4);
  g_assert_cmpuint (spx_mask_block_height (mask, 2), ==, 2);
  g_assert_cmpuint (spx_mask_block_width (mask, 0), ==, 4);
  g_assert_cmpuint (spx_mask_block_width (mask, 1), ==, 3);
  g_assert_cmpuint (spx_mask_count_elements (mask), ==, 0);

  spx_mask_set (mask, 0, 1); /* 4 × 3 */
  g_assert_cmpuint (spx_mask_count_elements (mask), ==, 12);
  spx_mask_set (mask, 2, 0); /* 2 × 4 */
  g_assert_cmpuint (spx_mask_count_elements (mask), ==, 20);
  spx_mask_set (mask, 2, 1); /* 2 × 3 */
  g_assert_cmpuint (spx_mask_count_elements (mask), ==, 26);
  spx_mask_set (mask, 0, 0); /* 4 × 4 */
  g_assert_cmpuint (spx_mask_count_elements (mask), ==, 42);
  spx_mask_fill (mask);
  g_assert_cmpuint (spx_mask_count_elements (mask), ==, 70);

  /* a single block larger than the matrix */
  g_autoptr(SpxMask) tiny = new_mask (3, 2, 8);
  spx_mask_set (tiny, 0, 0);
  g_assert_cmpuint (spx_mask_count_elements (tiny), ==, 6);
}

static void
test_iter (void)
{
  g_autoptr(SpxMask) mask = new_mask (3, 100, 1);
  SpxMaskIter it;
  guint64 br = 99, bc = 99;

  spx_mask_iter_init (&it, mask);
  g_assert_false (spx_mask_iter_next (&it, &br, &bc));

  /* flat 0, 63, 64, 127, 128, 200, 299: word edges and the last block */
  const guint64 flat[] = { 0, 63, 64, 127, 128, 200, 299 };
  for (guint i = G_N_ELEMENTS (flat); i > 0; i--) /* order of setting is moot */
    spx_mask_set_flat (mask, flat[i - 1]);
  spx_mask_iter_init (&it, mask);
  for (guint i = 0; i < G_N_ELEMENTS (flat); i++)
    {
      g_assert_true (spx_mask_iter_next (&it, &br, &bc));
      g_assert_cmpuint (br, ==, flat[i] / 100);
      g_assert_cmpuint (bc, ==, flat[i] % 100);
    }
  g_assert_false (spx_mask_iter_next (&it, &br, &bc));
  g_assert_false (spx_mask_iter_next (&it, &br, &bc)); /* stays finished */

  /* full mask: every block exactly once, in row-major order */
  spx_mask_fill (mask);
  guint64 n = 0;
  spx_mask_iter_init (&it, mask);
  while (spx_mask_iter_next (&it, &br, &bc))
    {
      g_assert_cmpuint (spx_mask_index (mask, br, bc), ==, n);
      n++;
    }
  g_assert_cmpuint (n, ==, 300);
}

static void
test_copy_equal (void)
{
  g_autoptr(SpxMask) a = new_mask (20, 30, 3);
  spx_mask_set (a, 1, 2);
  spx_mask_set (a, 6, 9);
  g_autoptr(SpxMask) b = spx_mask_copy (a, NULL);
  g_assert_true (b->bits != a->bits);
  g_assert_true (spx_mask_equal (a, b));
  spx_mask_toggle (b, 0, 0);
  g_assert_false (spx_mask_equal (a, b));
  g_assert_false (spx_mask_get (a, 0, 0)); /* deep copy */
  spx_mask_toggle (b, 0, 0);
  g_assert_true (spx_mask_equal (a, b));

  /* same block grid, different element shape or block: not equal */
  g_autoptr(SpxMask) c = new_mask (19, 30, 3);
  spx_mask_set (c, 1, 2);
  spx_mask_set (c, 6, 9);
  g_assert_false (spx_mask_equal (a, c));
  g_autoptr(SpxMask) d = spx_mask_copy (c, NULL);
  d->block = 4; /* a hand-edited header, same bits and sizes */
  g_assert_false (spx_mask_equal (c, d));
}

/* A shared mask costs no memory and is copied before it changes; the
 * bits of every mask alive are counted. */
static void
test_share (void)
{
  guint64 held = spx_mask_held_bytes ();
  SpxMask *a = new_mask (64, 64, 1);
  g_assert_cmpuint (spx_mask_held_bytes () - held, ==, 64 * 64 / 8);
  spx_mask_set (a, 3, 4);
  SpxMask *b = spx_mask_ref (a);
  g_assert_true (b == a);
  g_assert_cmpuint (spx_mask_held_bytes () - held, ==, 64 * 64 / 8);
  /* alone, a mask is changed where it is */
  SpxMask *c = spx_mask_copy (a, NULL);
  SpxMask *was = c;
  g_assert_true (spx_mask_unshare (&c, NULL));
  g_assert_true (c == was);
  /* shared, it becomes a copy: the other holder keeps its bits */
  g_assert_true (spx_mask_unshare (&b, NULL));
  g_assert_true (b != a);
  g_assert_true (spx_mask_equal (a, b));
  spx_mask_toggle (b, 0, 0);
  g_assert_false (spx_mask_get (a, 0, 0));
  g_assert_cmpuint (spx_mask_held_bytes () - held, ==, 3 * 64 * 64 / 8);
  /* the same block is the mask itself */
  SpxMask *same = spx_mask_at_block (a, 1, NULL);
  g_assert_true (same == a);
  spx_mask_free (same);
  spx_mask_free (a);
  spx_mask_free (b);
  spx_mask_free (c);
  g_assert_cmpuint (spx_mask_held_bytes (), ==, held);
}

static void
test_fill (void)
{
  /* 7 × 13 = 91 blocks: the last word is partly used */
  g_autoptr(SpxMask) mask = new_mask (7, 13, 1);
  spx_mask_fill (mask);
  g_assert_cmpuint (spx_mask_count (mask), ==, 91);
  g_assert_cmpuint (mask->bits[1] >> (91 - 64), ==, 0);
  for (guint64 r = 0; r < 7; r++)
    g_assert_cmpuint (spx_mask_count_row (mask, r), ==, 13);
  spx_mask_clear_all (mask);
  g_assert_cmpuint (spx_mask_count (mask), ==, 0);

  g_autoptr(SpxMask) exact = new_mask (8, 8, 1); /* 64: no tail */
  spx_mask_fill (exact);
  g_assert_cmpuint (spx_mask_count (exact), ==, 64);
  g_assert_cmpuint (exact->bits[0], ==, G_MAXUINT64);
}

static void
assert_blocks (const SpxMask *mask, const guint64 (*expected)[2], guint n)
{
  g_assert_cmpuint (spx_mask_count (mask), ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_true (spx_mask_get (mask, expected[i][0], expected[i][1]));
}

static void
test_to_blocks (void)
{
  GError *error = NULL;

  /* elements of a 10×7 matrix → b = 4 (blocks 3 × 2) */
  g_autoptr(SpxMask) elems = new_mask (10, 7, 1);
  spx_mask_set (elems, 0, 0);
  spx_mask_set (elems, 3, 3);  /* also block (0, 0) */
  spx_mask_set (elems, 4, 6);  /* block (1, 1): the narrow column */
  spx_mask_set (elems, 9, 4);  /* block (2, 1): the short row */
  g_autoptr(SpxMask) b4 = spx_mask_to_blocks (elems, 4, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (b4->brows, ==, 3);
  const guint64 want_b4[][2] = { { 0, 0 }, { 1, 1 }, { 2, 1 } };
  assert_blocks (b4, want_b4, G_N_ELEMENTS (want_b4));

  /* b = 4 → elements: block (2, 1) covers rows 8–9, columns 4–6 */
  g_autoptr(SpxMask) blocks = new_mask (10, 7, 4);
  spx_mask_set (blocks, 2, 1);
  g_autoptr(SpxMask) back = spx_mask_to_blocks (blocks, 1, &error);
  g_assert_no_error (error);
  const guint64 want_e[][2] = {
    { 8, 4 }, { 8, 5 }, { 8, 6 }, { 9, 4 }, { 9, 5 }, { 9, 6 } };
  assert_blocks (back, want_e, G_N_ELEMENTS (want_e));
  g_assert_cmpuint (spx_mask_count_elements (back), ==,
                    spx_mask_count_elements (blocks));

  /* b = 3 → b = 2 on 10×7 (b=3: heights 3,3,3,1; widths 3,3,1).
   * Block (1, 1) covers rows 3–5, columns 3–5 → b=2 blocks rows 1–2,
   * columns 1–2; block (3, 2) is the single element (9, 6) → (4, 3). */
  g_autoptr(SpxMask) b3 = new_mask (10, 7, 3);
  spx_mask_set (b3, 1, 1);
  spx_mask_set (b3, 3, 2);
  g_autoptr(SpxMask) b2 = spx_mask_to_blocks (b3, 2, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (b2->brows, ==, 5);
  g_assert_cmpuint (b2->bcols, ==, 4);
  const guint64 want_b2[][2] = {
    { 1, 1 }, { 1, 2 }, { 2, 1 }, { 2, 2 }, { 4, 3 } };
  assert_blocks (b2, want_b2, G_N_ELEMENTS (want_b2));

  /* b = 2 → b = 3: (2, 1) covers rows 4–5, columns 2–3 → b=3 rows 1,
   * columns 0–1; (4, 3) covers row 8–9, column 6 → (2, 2) and (3, 2) */
  g_autoptr(SpxMask) src = new_mask (10, 7, 2);
  spx_mask_set (src, 2, 1);
  spx_mask_set (src, 4, 3);
  g_autoptr(SpxMask) dst = spx_mask_to_blocks (src, 3, &error);
  g_assert_no_error (error);
  const guint64 want_b3[][2] = { { 1, 0 }, { 1, 1 }, { 2, 2 }, { 3, 2 } };
  assert_blocks (dst, want_b3, G_N_ELEMENTS (want_b3));

  /* same block size: an equal copy */
  g_autoptr(SpxMask) same = spx_mask_to_blocks (b3, 3, &error);
  g_assert_no_error (error);
  g_assert_true (spx_mask_equal (same, b3));

  g_assert_null (spx_mask_to_blocks (b3, 0, &error));
  g_assert_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID);
  g_clear_error (&error);
}

/* Re-blocking against the definition, element by element: coarser and
 * finer, sizes that do not divide each other, ragged edges, and masks
 * from empty to full. */
static void
test_to_blocks_reference (void)
{
  const guint blocks[] = { 1, 2, 3, 4, 7, 16, 70 };
  const double densities[] = { 0, 0.01, 0.2, 1 };
  SpxRng rng;
  spx_rng_init (&rng, 9);
  for (guint t = 0; t < 120; t++)
    {
      guint64 rows = 1 + spx_rng_below (&rng, 150);
      guint64 cols = 1 + spx_rng_below (&rng, 300);
      guint from = blocks[spx_rng_below (&rng, G_N_ELEMENTS (blocks))];
      double d = densities[t % G_N_ELEMENTS (densities)];
      g_autoptr(SpxMask) m = new_mask (rows, cols, from);
      for (guint64 f = 0; f < spx_mask_n_blocks (m); f++)
        if (spx_rng_uniform (&rng) < d)
          spx_mask_set_flat (m, f);
      for (guint k = 0; k < G_N_ELEMENTS (blocks); k++)
        {
          GError *error = NULL;
          g_autoptr(SpxMask) got = spx_mask_to_blocks (m, blocks[k], &error);
          g_assert_no_error (error);
          g_autoptr(SpxMask) want = new_mask (rows, cols, blocks[k]);
          for (guint64 r = 0; r < rows; r++)
            for (guint64 c = 0; c < cols; c++)
              if (spx_mask_get (m, r / from, c / from))
                spx_mask_set (want, r / blocks[k], c / blocks[k]);
          g_assert_true (spx_mask_equal (got, want));
        }
    }
}

/* 6×7 elements, b = 2: 3 × 4 blocks, the last column 1 element wide.
 *   row 0: X X . X   (3)
 *   row 1: . . . .   (0)
 *   row 2: X . . X   (2)
 * rows: mean 5/3, variance 13/3 − 25/9 = 14/9;
 * columns 2, 1, 0, 2: mean 5/4, variance 9/4 − 25/16 = 11/16;
 * elements 4 + 4 + 2 + 4 + 2 = 16 of 42. */
static void
test_stats (void)
{
  g_autoptr(SpxMask) mask = new_mask (6, 7, 2);
  spx_mask_set (mask, 0, 0);
  spx_mask_set (mask, 0, 1);
  spx_mask_set (mask, 0, 3);
  spx_mask_set (mask, 2, 0);
  spx_mask_set (mask, 2, 3);
  SpxMaskStats s;
  spx_mask_stats (mask, &s);
  g_assert_cmpuint (s.nonzero_blocks, ==, 5);
  g_assert_cmpuint (s.total_blocks, ==, 12);
  g_assert_cmpuint (s.nnz_elements, ==, 16);
  g_assert_cmpfloat_with_epsilon (s.block_density, 5.0 / 12, 1e-12);
  g_assert_cmpfloat_with_epsilon (s.element_density, 16.0 / 42, 1e-12);

  g_assert_cmpfloat (s.blocks_per_row.min, ==, 0);
  g_assert_cmpfloat (s.blocks_per_row.max, ==, 3);
  g_assert_cmpfloat_with_epsilon (s.blocks_per_row.mean, 5.0 / 3, 1e-12);
  g_assert_cmpfloat_with_epsilon (s.blocks_per_row.stddev, sqrt (14.0) / 3,
                                  1e-12);
  g_assert_cmpfloat (s.blocks_per_col.min, ==, 0);
  g_assert_cmpfloat (s.blocks_per_col.max, ==, 2);
  g_assert_cmpfloat_with_epsilon (s.blocks_per_col.mean, 5.0 / 4, 1e-12);
  g_assert_cmpfloat_with_epsilon (s.blocks_per_col.stddev, sqrt (11.0) / 4,
                                  1e-12);

  /* empty and full */
  spx_mask_clear_all (mask);
  spx_mask_stats (mask, &s);
  g_assert_cmpfloat (s.block_density, ==, 0);
  g_assert_cmpfloat (s.blocks_per_row.min, ==, 0);
  g_assert_cmpfloat (s.blocks_per_row.max, ==, 0);
  g_assert_cmpfloat (s.blocks_per_col.stddev, ==, 0);
  spx_mask_fill (mask);
  spx_mask_stats (mask, &s);
  g_assert_cmpfloat (s.element_density, ==, 1);
  g_assert_cmpfloat (s.blocks_per_row.min, ==, 4);
  g_assert_cmpfloat (s.blocks_per_col.mean, ==, 3);
  g_assert_cmpfloat (s.blocks_per_col.stddev, ==, 0);
}

/* The obvious statistics: a counter for every block-row and column. */
static void
stats_reference (const SpxMask *m, SpxMaskStats *s)
{
  g_autofree guint64 *rows = g_new0 (guint64, m->brows);
  g_autofree guint64 *cols = g_new0 (guint64, m->bcols);
  guint64 elements = 0;
  for (guint64 r = 0; r < m->brows; r++)
    for (guint64 c = 0; c < m->bcols; c++)
      if (spx_mask_get (m, r, c))
        {
          rows[r]++;
          cols[c]++;
          elements += (guint64) spx_mask_block_height (m, r) *
                      spx_mask_block_width (m, c);
        }
  s->nnz_elements = elements;
  const struct { guint64 *v, n; SpxSummary *out; } sides[] = {
    { rows, m->brows, &s->blocks_per_row },
    { cols, m->bcols, &s->blocks_per_col } };
  for (guint k = 0; k < 2; k++)
    {
      double sum = 0, spread = 0, lo = G_MAXDOUBLE, hi = 0;
      for (guint64 i = 0; i < sides[k].n; i++)
        {
          sum += sides[k].v[i];
          lo = MIN (lo, sides[k].v[i]);
          hi = MAX (hi, sides[k].v[i]);
        }
      double mean = sum / sides[k].n;
      for (guint64 i = 0; i < sides[k].n; i++)
        spread += (sides[k].v[i] - mean) * (sides[k].v[i] - mean);
      *sides[k].out = (SpxSummary) { lo, mean, hi,
                                     sqrt (spread / sides[k].n) };
    }
}

static void
assert_summary (const SpxSummary *got, const SpxSummary *want)
{
  g_assert_cmpfloat (got->min, ==, want->min);
  g_assert_cmpfloat (got->max, ==, want->max);
  g_assert_cmpfloat_with_epsilon (got->mean, want->mean, 1e-12);
  g_assert_cmpfloat_with_epsilon (got->stddev, want->stddev, 1e-9);
}

/* The streaming statistics (rows cut out of words, columns a chunk at a
 * time) against counters, on shapes that cross words, rows narrower than
 * a word, masks wider than one chunk of 65536 columns, and partial edge
 * blocks. */
static void
test_stats_reference (void)
{
  const guint64 shapes[][3] = {
    { 1, 1, 1 }, { 7, 5, 1 }, { 3, 130, 1 }, { 300, 1, 1 }, { 61, 83, 2 },
    { 50, 70, 7 }, { 2, 200000, 1 }, { 3, 140000, 3 }, { 1, 65537, 1 },
  };
  const double densities[] = { 0.0005, 0.3, 1.0 };
  SpxRng rng;
  spx_rng_init (&rng, 31);
  for (guint i = 0; i < G_N_ELEMENTS (shapes); i++)
    for (guint d = 0; d < G_N_ELEMENTS (densities); d++)
      {
        g_autoptr(SpxMask) m = new_mask (shapes[i][0], shapes[i][1],
                                         (guint) shapes[i][2]);
        for (guint64 f = 0; f < spx_mask_n_blocks (m); f++)
          if (spx_rng_uniform (&rng) < densities[d])
            spx_mask_set_flat (m, f);
        SpxMaskStats got, want;
        spx_mask_stats (m, &got);
        stats_reference (m, &want);
        g_assert_cmpuint (got.nonzero_blocks, ==, spx_mask_count (m));
        g_assert_cmpuint (got.nnz_elements, ==, want.nnz_elements);
        g_assert_cmpuint (spx_mask_count_elements (m), ==, want.nnz_elements);
        assert_summary (&got.blocks_per_row, &want.blocks_per_row);
        assert_summary (&got.blocks_per_col, &want.blocks_per_col);
      }
}

/* 1 × (2^31 − 1) elements, three of them set: the statistics need no
 * counter per column (8 GiB), so they hold under a 3 GB address-space
 * limit and take about one pass over the 256 MiB of bits. */
static void
stats_wide_subprocess (void)
{
#ifndef __SANITIZE_ADDRESS__ /* the sanitizer reserves terabytes */
  struct rlimit rl = { (rlim_t) 3 << 30, (rlim_t) 3 << 30 };
  g_assert_cmpint (setrlimit (RLIMIT_AS, &rl), ==, 0);
#endif
  g_autoptr(SpxMask) m = new_mask (1, SPX_MASK_MAX_DIM, 1);
  spx_mask_set (m, 0, 0);
  spx_mask_set (m, 0, 70000);
  spx_mask_set (m, 0, SPX_MASK_MAX_DIM - 1);
  SpxMaskStats s;
  gint64 t0 = g_get_monotonic_time ();
  spx_mask_stats (m, &s);
  g_test_message ("stats of 1×(2^31−1): %.1f ms", elapsed_ms (t0));
  g_assert_cmpuint (s.nonzero_blocks, ==, 3);
  g_assert_cmpuint (s.nnz_elements, ==, 3);
  g_assert_cmpfloat (s.blocks_per_row.max, ==, 3);
  g_assert_cmpfloat (s.blocks_per_col.min, ==, 0);
  g_assert_cmpfloat (s.blocks_per_col.max, ==, 1);
  g_assert_cmpfloat_with_epsilon (s.blocks_per_col.mean,
                                  3.0 / SPX_MASK_MAX_DIM, 1e-18);
}

static void
test_stats_wide (void)
{
  if (g_test_subprocess ())
    {
      stats_wide_subprocess ();
      return;
    }
  g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC,
                          G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

/* The budget is read at each call: tests set it and put it back. */
static void
set_budget (const char *budget)
{
  if (budget != NULL)
    g_setenv (SPX_MEMORY_BUDGET_ENV, budget, TRUE);
  else
    g_unsetenv (SPX_MEMORY_BUDGET_ENV);
}

static void
assert_budget_refusal (const GError *error, const char *shape,
                       const char *size)
{
  g_assert_error (error, SPX_BUDGET_ERROR, SPX_BUDGET_ERROR_TOO_LARGE);
  g_test_message ("%s", error->message);
  for (guint i = 0; i < 3; i++)
    {
      const char *part = i == 0 ? shape : i == 1 ? size : "256";
      if (part != NULL && strstr (error->message, part) == NULL)
        g_error ("message \"%s\" lacks \"%s\"", error->message, part);
    }
}

/* A mask within the documented limits but over the budget is refused
 * before its bits are asked for (2 GiB each here, which malloc would
 * grant lazily), naming its shape and size. */
static void
test_new_budget (void)
{
  set_budget ("256M");
  GError *error = NULL;
  g_assert_null (spx_mask_new (8, SPX_MASK_MAX_DIM, 1, &error));
  assert_budget_refusal (error, "8×2147483647", "2.0");
  g_clear_error (&error);
  g_assert_null (spx_mask_new (131072, 131072, 1, &error));
  assert_budget_refusal (error, "131072×131072", "2.0");
  g_clear_error (&error);
  g_assert_null (spx_mask_new (131072, 131072, 1, NULL));

  /* 1024 × 1024 blocks of 128 are fine; their 2^34 elements are not */
  g_autoptr(SpxMask) blocks = new_mask (131072, 131072, 128);
  g_assert_null (spx_mask_to_blocks (blocks, 1, &error));
  assert_budget_refusal (error, "131072×131072", NULL);
  g_clear_error (&error);

  g_autoptr(SpxMask) fits = new_mask (16384, 16384, 1); /* 32 MiB */
  g_assert_nonnull (fits);
  set_budget (NULL);
}

/* A generator's scratch counts with its mask: the mask alone fits. Run
 * in a subprocess with a time limit: generating these would take
 * minutes. */
static void
generate_budget_subprocess (void)
{
  set_budget ("256M");
  SpxGenOptions o;
  spx_gen_options_init (&o);
  GError *error = NULL;
  g_assert_null (spx_mask_generate (131072, 131072, 1, &o, &error));
  assert_budget_refusal (error, "131072×131072", "2.0");
  g_clear_error (&error);

  /* skewed: 32 bytes per block-row, 2 GiB for 2^26 rows (mask 64 MiB) */
  o.pattern = SPX_PATTERN_SKEWED;
  g_assert_null (spx_mask_generate (1u << 26, 8, 1, &o, &error));
  assert_budget_refusal (error, "skewed", NULL);
  g_clear_error (&error);
  /* magnitude at block 1: 4 bytes per element, 1 GiB */
  o.pattern = SPX_PATTERN_MAGNITUDE;
  g_assert_null (spx_mask_generate (16384, 16384, 1, &o, &error));
  assert_budget_refusal (error, "magnitude", "1.0");
  g_clear_error (&error);
  /* magnitude pruning: 8 bytes per block norm, 2 GiB for 2^28 blocks;
   * refused before the values (here a single one) are read */
  float v = 1;
  g_assert_null (spx_mask_prune_magnitude (&v, 1u << 18, 1u << 18, 16, 0.5,
                                           &error));
  assert_budget_refusal (error, "magnitude", "2.0");
  g_clear_error (&error);
}

static void
test_generate_budget (void)
{
  if (g_test_subprocess ())
    {
      generate_budget_subprocess ();
      return;
    }
  g_test_trap_subprocess (NULL, 20 * G_USEC_PER_SEC,
                          G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

/* Every pattern, and re-blocking, stop soon after the caller gave up:
 * each of these would take seconds to minutes, so one that checked too
 * late runs this past meson's limit (no timed assertion: a loaded
 * machine is slow to stop too). */
static void
test_generate_cancelled (void)
{
  set_budget ("1G"); /* what these masks need, whatever the machine */
  g_autoptr(GCancellable) cancel = g_cancellable_new ();
  g_cancellable_cancel (cancel);
  g_cancellable_push_current (cancel);
  for (guint p = SPX_PATTERN_UNIFORM; p <= SPX_PATTERN_MAGNITUDE; p++)
    {
      SpxGenOptions o;
      spx_gen_options_init (&o);
      o.pattern = p;
      o.density = 0.5;
      o.tile_width = 1; /* one tile per kept column */
      /* 2^30 blocks; magnitude draws at most 2^28 elements */
      guint64 side = p == SPX_PATTERN_MAGNITUDE ? 8192 : 32768;
      GError *error = NULL;
      gint64 t0 = g_get_monotonic_time ();
      g_assert_null (spx_mask_generate (side, side, 1, &o, &error));
      g_test_message ("%s: cancelled after %.1f ms",
                      spx_pattern_to_string (p), elapsed_ms (t0));
      g_assert_error (error, SPX_BUDGET_ERROR, SPX_BUDGET_ERROR_CANCELLED);
      g_clear_error (&error);
    }
  g_autoptr(SpxMask) m = new_mask (32768, 32768, 1);
  spx_mask_fill (m);
  GError *error = NULL;
  g_assert_null (spx_mask_to_blocks (m, 4, &error));
  g_assert_error (error, SPX_BUDGET_ERROR, SPX_BUDGET_ERROR_CANCELLED);
  g_clear_error (&error);
  g_cancellable_pop_current (cancel);

  /* once the cancellable is gone, work goes on as before */
  g_autoptr(SpxMask) b = spx_mask_to_blocks (m, 4, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (spx_mask_count (b), ==, 8192 * 8192);
  set_budget (NULL);
}

/* ------------------------------------------------------------------ */
/* Random numbers                                                      */

/* Reference values from an independent Python transcription of splitmix64
 * and xoshiro256** (the splitmix64 seed-0 outputs are the published
 * ones). */
static void
test_rng_reference (void)
{
  SpxRng rng;
  spx_rng_init (&rng, 0);
  g_assert_cmphex (rng.s[0], ==, G_GUINT64_CONSTANT (0xe220a8397b1dcdaf));
  g_assert_cmphex (rng.s[1], ==, G_GUINT64_CONSTANT (0x6e789e6aa1b965f4));
  g_assert_cmphex (rng.s[2], ==, G_GUINT64_CONSTANT (0x06c45d188009454f));
  g_assert_cmphex (rng.s[3], ==, G_GUINT64_CONSTANT (0xf88bb8a8724c81ec));
  g_assert_cmphex (spx_rng_next (&rng), ==,
                   G_GUINT64_CONSTANT (0x99ec5f36cb75f2b4));
  g_assert_cmphex (spx_rng_next (&rng), ==,
                   G_GUINT64_CONSTANT (0xbf6e1f784956452a));

  spx_rng_init (&rng, 1);
  g_assert_cmphex (spx_rng_next (&rng), ==,
                   G_GUINT64_CONSTANT (0xb3f2af6d0fc710c5));
  g_assert_cmphex (spx_rng_next (&rng), ==,
                   G_GUINT64_CONSTANT (0x853b559647364cea));
  g_assert_cmphex (spx_rng_next (&rng), ==,
                   G_GUINT64_CONSTANT (0x92f89756082a4514));

  /* Lemire's method, same reference */
  const guint64 below10[] = { 7, 5, 5, 3, 6, 1, 0, 3, 8, 5 };
  spx_rng_init (&rng, 1);
  for (guint i = 0; i < G_N_ELEMENTS (below10); i++)
    g_assert_cmpuint (spx_rng_below (&rng, 10), ==, below10[i]);
  spx_rng_init (&rng, 1);
  g_assert_cmpuint (spx_rng_below (&rng, (G_GUINT64_CONSTANT (1) << 63) + 1),
                    ==, G_GUINT64_CONSTANT (4800180567299270261));
}

static void
test_rng_below (void)
{
  SpxRng rng;
  spx_rng_init (&rng, 42);
  for (int i = 0; i < 1000; i++)
    g_assert_cmpuint (spx_rng_below (&rng, 1), ==, 0);

  /* a bound just over 2^63 rejects almost half the draws: still below */
  guint64 huge = (G_GUINT64_CONSTANT (1) << 63) + 1;
  for (int i = 0; i < 1000; i++)
    g_assert_cmpuint (spx_rng_below (&rng, huge), <, huge);
  for (int i = 0; i < 1000; i++)
    spx_rng_below (&rng, G_MAXUINT64); /* 2^64 − 1: no overflow trouble */

  /* chi-square over 7 bins, 70000 draws: 6 degrees of freedom, 99.9%
   * quantile 22.46 (seeded, so not flaky) */
  guint64 bins[7] = { 0 };
  for (int i = 0; i < 70000; i++)
    bins[spx_rng_below (&rng, 7)]++;
  double chi2 = 0;
  for (int b = 0; b < 7; b++)
    chi2 += (bins[b] - 10000.0) * (bins[b] - 10000.0) / 10000.0;
  g_assert_cmpfloat (chi2, <, 22.46);
}

static void
test_rng_uniform_normal (void)
{
  SpxRng rng;
  spx_rng_init (&rng, 7);
  double sum = 0, sum_sq = 0;
  for (int i = 0; i < 100000; i++)
    {
      double u = spx_rng_uniform (&rng);
      g_assert_cmpfloat (u, >=, 0.0);
      g_assert_cmpfloat (u, <, 1.0);
      sum += u;
    }
  g_assert_cmpfloat (fabs (sum / 100000 - 0.5), <, 0.005);

  sum = 0;
  for (int i = 0; i < 100000; i++)
    {
      double x = spx_rng_normal (&rng);
      g_assert_true (isfinite (x));
      sum += x;
      sum_sq += x * x;
    }
  g_assert_cmpfloat (fabs (sum / 100000), <, 0.015);
  g_assert_cmpfloat (fabs (sum_sq / 100000 - 1.0), <, 0.02);

  /* same seed, same stream */
  SpxRng a, b;
  spx_rng_init (&a, 99);
  spx_rng_init (&b, 99);
  for (int i = 0; i < 100; i++)
    g_assert_cmpfloat (spx_rng_normal (&a), ==, spx_rng_normal (&b));
}

/* P(x) of the hypergeometric law, through lgamma: a reference that
 * shares nothing with the sampler's walk over ratios. */
static double
hyper_pmf (double len, double k, double n, double x)
{
  double lc = lgamma (k + 1) - lgamma (x + 1) - lgamma (k - x + 1) +
              lgamma (len - k + 1) - lgamma (n - x + 1) -
              lgamma (len - k - n + x + 1) - lgamma (len + 1) +
              lgamma (n + 1) + lgamma (len - n + 1);
  return exp (lc);
}

static void
test_rng_hypergeometric (void)
{
  SpxRng rng;
  spx_rng_init (&rng, 1);
  /* recorded once: the same on every machine (basic IEEE operations) */
  const guint64 golden[] = { 28, 39, 29, 35, 28, 31 };
  for (guint i = 0; i < G_N_ELEMENTS (golden); i++)
    g_assert_cmpuint (spx_rng_hypergeometric (&rng, 1000, 300, 100), ==,
                      golden[i]);

  /* no choice: none or all marked, none or all sampled */
  g_assert_cmpuint (spx_rng_hypergeometric (&rng, 50, 0, 20), ==, 0);
  g_assert_cmpuint (spx_rng_hypergeometric (&rng, 50, 50, 20), ==, 20);
  g_assert_cmpuint (spx_rng_hypergeometric (&rng, 50, 30, 0), ==, 0);
  g_assert_cmpuint (spx_rng_hypergeometric (&rng, 50, 30, 50), ==, 30);
  /* 45 marked of 50, 10 sampled: at least 5 are marked */
  for (int i = 0; i < 1000; i++)
    g_assert_cmpuint (spx_rng_hypergeometric (&rng, 50, 45, 10), >=, 5);

  /* chi-square against the law, 40000 draws of (60, 25, 20) in bins
   * ≤ 4, 5, …, 12, ≥ 13: 9 degrees of freedom, 99.9 % quantile 27.88 */
  double bins[10] = { 0 }, expect[10] = { 0 };
  for (int i = 0; i < 40000; i++)
    {
      guint64 x = spx_rng_hypergeometric (&rng, 60, 25, 20);
      bins[CLAMP ((gint64) x, 4, 13) - 4]++;
    }
  for (int x = 0; x <= 20; x++)
    expect[CLAMP (x, 4, 13) - 4] += 40000 * hyper_pmf (60, 25, 20, x);
  double chi2 = 0;
  for (int b = 0; b < 10; b++)
    chi2 += (bins[b] - expect[b]) * (bins[b] - expect[b]) / expect[b];
  g_assert_cmpfloat (chi2, <, 27.88);

  /* a piece of 2^24 of a 2^34-block mask at density 1/2: mean 2^23,
   * variance 2^22 (1 − 2^-10) */
  double n = 2000, sum = 0, sum_sq = 0;
  for (int i = 0; i < n; i++)
    {
      double x = (double) spx_rng_hypergeometric (
        &rng, G_GUINT64_CONSTANT (1) << 34, G_GUINT64_CONSTANT (1) << 33,
        1u << 24) - 8388608.0;
      sum += x;
      sum_sq += x * x;
    }
  double var = 4194304.0 * (1 - 1.0 / 1024);
  g_assert_cmpfloat (fabs (sum / n), <, 5 * sqrt (var / n));
  g_assert_cmpfloat (fabs (sum_sq / n / var - 1), <, 0.15);
}

/* ------------------------------------------------------------------ */
/* Options                                                             */

static void
test_options (void)
{
  SpxGenOptions o;
  memset (&o, 0xab, sizeof o);
  spx_gen_options_init (&o);
  g_assert_cmpint (o.pattern, ==, SPX_PATTERN_UNIFORM);
  g_assert_cmpfloat (o.density, ==, 0.1);
  g_assert_cmpuint (o.seed, ==, 1);
  g_assert_cmpuint (o.tile_width, ==, 128);
  g_assert_cmpuint (o.nm_n, ==, 2);
  g_assert_cmpuint (o.nm_m, ==, 4);
  g_assert_cmpuint (o.band, ==, 0);
  g_assert_cmpfloat (o.exponent, ==, 1.0);

  const char *names[] = { "uniform", "tilewise", "nm", "banded", "skewed",
                          "magnitude" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      SpxPattern p = 99;
      g_assert_true (spx_pattern_from_string (names[i], &p));
      g_assert_cmpint (p, ==, (int) i);
      g_assert_cmpstr (spx_pattern_to_string (p), ==, names[i]);
    }
  SpxPattern p = SPX_PATTERN_NM;
  g_assert_false (spx_pattern_from_string ("NM", &p)); /* names are exact */
  g_assert_false (spx_pattern_from_string ("uniform ", &p));
  g_assert_false (spx_pattern_from_string ("random", &p));
  g_assert_false (spx_pattern_from_string ("", &p));
  g_assert_false (spx_pattern_from_string (NULL, &p));
  g_assert_cmpint (p, ==, SPX_PATTERN_NM); /* untouched on failure */
  g_assert_null (spx_pattern_to_string ((SpxPattern) 6));
}

static void
assert_gen_refused (const SpxGenOptions *o, guint64 rows, guint64 cols,
                    guint block, int code, const char *word)
{
  GError *error = NULL;
  g_assert_null (spx_mask_generate (rows, cols, block, o, &error));
  g_assert_error (error, SPX_MASK_ERROR, code);
  if (word != NULL && strstr (error->message, word) == NULL)
    g_error ("message '%s' does not mention '%s'", error->message, word);
  g_clear_error (&error);
}

static void
test_invalid_options (void)
{
  SpxGenOptions o;
  const double bad_density[] = { -0.1, 1.0001, NAN, INFINITY, -INFINITY };
  for (guint p = SPX_PATTERN_UNIFORM; p <= SPX_PATTERN_MAGNITUDE; p++)
    for (guint i = 0; i < G_N_ELEMENTS (bad_density); i++)
      {
        spx_gen_options_init (&o);
        o.pattern = p;
        o.density = bad_density[i];
        if (p == SPX_PATTERN_NM) /* density ignored there */
          {
            spx_mask_free (generate (8, 8, 1, &o));
            continue;
          }
        assert_gen_refused (&o, 8, 8, 1, SPX_MASK_ERROR_INVALID, "density");
      }

  spx_gen_options_init (&o);
  o.pattern = SPX_PATTERN_TILEWISE;
  o.tile_width = 0;
  assert_gen_refused (&o, 8, 8, 1, SPX_MASK_ERROR_INVALID, "tile width");

  spx_gen_options_init (&o);
  o.pattern = SPX_PATTERN_NM;
  o.nm_n = 3;
  o.nm_m = 2;
  assert_gen_refused (&o, 8, 8, 1, SPX_MASK_ERROR_INVALID, "3:2");
  o.nm_n = 0;
  o.nm_m = 0;
  assert_gen_refused (&o, 8, 8, 1, SPX_MASK_ERROR_INVALID, "0:0");

  spx_gen_options_init (&o);
  o.pattern = SPX_PATTERN_SKEWED;
  o.exponent = -1;
  assert_gen_refused (&o, 8, 8, 1, SPX_MASK_ERROR_INVALID, "exponent");
  o.exponent = NAN;
  assert_gen_refused (&o, 8, 8, 1, SPX_MASK_ERROR_INVALID, "exponent");

  spx_gen_options_init (&o);
  o.pattern = (SpxPattern) 42;
  assert_gen_refused (&o, 8, 8, 1, SPX_MASK_ERROR_INVALID, "pattern");

  /* mask limits come through from spx_mask_new */
  spx_gen_options_init (&o);
  assert_gen_refused (&o, 0, 8, 1, SPX_MASK_ERROR_INVALID, NULL);
  assert_gen_refused (&o, 8, 8, 0, SPX_MASK_ERROR_INVALID, NULL);
  assert_gen_refused (&o, SPX_MASK_MAX_DIM, SPX_MASK_MAX_DIM, 1,
                      SPX_MASK_ERROR_TOO_LARGE, NULL);

  /* magnitude draws every element: 2^15 × 2^14 = 2^29 is over the limit,
   * even with large blocks (a 512 × 256 block mask) */
  o.pattern = SPX_PATTERN_MAGNITUDE;
  assert_gen_refused (&o, 1u << 15, 1u << 14, 64, SPX_MASK_ERROR_TOO_LARGE,
                      "spx_mask_prune_magnitude");

  /* fields another pattern reads are not checked */
  spx_gen_options_init (&o);
  o.tile_width = 0;
  o.nm_m = 0;
  o.exponent = -5;
  spx_mask_free (generate (8, 8, 1, &o));
}

/* ------------------------------------------------------------------ */
/* Generators                                                          */

static guint64
round_count (double density, guint64 n)
{
  return (guint64) floor (density * (double) n + 0.5);
}

static void
test_reproducible (void)
{
  for (guint p = SPX_PATTERN_UNIFORM; p <= SPX_PATTERN_MAGNITUDE; p++)
    {
      SpxGenOptions o;
      spx_gen_options_init (&o);
      o.pattern = p;
      o.density = 0.3;
      o.seed = 12345;
      o.tile_width = 8;
      g_autoptr(SpxMask) a = generate (61, 83, 2, &o);
      g_autoptr(SpxMask) b = generate (61, 83, 2, &o);
      g_assert_true (spx_mask_equal (a, b));
      o.seed = 12346;
      g_autoptr(SpxMask) c = generate (61, 83, 2, &o);
      if (p == SPX_PATTERN_BANDED) /* the only pattern without chance */
        g_assert_true (spx_mask_equal (a, c));
      else
        g_assert_false (spx_mask_equal (a, c));
    }
}

static void
test_uniform_counts (void)
{
  const double densities[] = { 0, 1, 0.5, 0.75, 0.1, 1.0 / 3, 0.999, 0.001 };
  const guint64 shapes[][3] = {
    { 64, 64, 1 }, { 37, 53, 1 }, { 100, 100, 3 }, { 5, 3, 8 }, { 1, 1, 1 } };
  for (guint s = 0; s < G_N_ELEMENTS (shapes); s++)
    for (guint d = 0; d < G_N_ELEMENTS (densities); d++)
      {
        SpxGenOptions o;
        spx_gen_options_init (&o);
        o.density = densities[d];
        o.seed = s * 100 + d;
        g_autoptr(SpxMask) m = generate (shapes[s][0], shapes[s][1],
                                         (guint) shapes[s][2], &o);
        guint64 n = spx_mask_n_blocks (m);
        g_assert_cmpuint (spx_mask_count (m), ==,
                          round_count (densities[d], n));
      }

  /* by hand: 100×100 at b=3 is 34 × 34 = 1156 blocks; 0.75 → 867 */
  SpxGenOptions o;
  spx_gen_options_init (&o);
  o.density = 0.75;
  g_autoptr(SpxMask) m = generate (100, 100, 3, &o);
  g_assert_cmpuint (spx_mask_count (m), ==, 867);
  /* 0.5 of 37·53 = 1961 blocks is 980.5: half rounds up */
  o.density = 0.5;
  g_autoptr(SpxMask) h = generate (37, 53, 1, &o);
  g_assert_cmpuint (spx_mask_count (h), ==, 981);
}

/* Every position is kept with probability K/N, on both sides of the
 * complement switch (K = 3 and K = 7 of 10). */
static void
test_uniform_unbiased (void)
{
  const guint64 ks[] = { 3, 7 };
  for (guint t = 0; t < G_N_ELEMENTS (ks); t++)
    {
      guint hits[10] = { 0 }, runs = 20000;
      SpxGenOptions o;
      spx_gen_options_init (&o);
      o.density = ks[t] / 10.0;
      for (guint s = 0; s < runs; s++)
        {
          o.seed = s;
          g_autoptr(SpxMask) m = generate (1, 10, 1, &o);
          for (guint i = 0; i < 10; i++)
            hits[i] += spx_mask_get_flat (m, i);
        }
      /* binomial sd at p = 0.3, n = 20000: 65; allow 5 sd */
      for (guint i = 0; i < 10; i++)
        g_assert_cmpfloat (fabs (hits[i] - runs * o.density), <, 330);
    }
}

/* Recorded once from this implementation (xoshiro256** via splitmix64,
 * Lemire's bounded draws, Floyd's sampling) and matched by a throw-away
 * Python transcription: only integer arithmetic, so they hold on every
 * machine. A change here means every saved scenario with a generated mask
 * changes too. */
static void
test_uniform_golden (void)
{
  SpxGenOptions o;
  spx_gen_options_init (&o);
  o.density = 0.1;
  o.seed = 1;
  g_autoptr(SpxMask) m = generate (64, 64, 1, &o);
  g_assert_cmpuint (spx_mask_count (m), ==, 410);
  const guint64 golden[] = { 40, 44, 55, 66, 67, 70, 78, 91, 134, 137,
                             169, 187 };
  SpxMaskIter it;
  guint64 br, bc;
  spx_mask_iter_init (&it, m);
  for (guint i = 0; i < G_N_ELEMENTS (golden); i++)
    {
      g_assert_true (spx_mask_iter_next (&it, &br, &bc));
      g_assert_cmpuint (spx_mask_index (m, br, bc), ==, golden[i]);
    }

  /* Over 0.5 the 4096 − 3686 = 410 blocks to leave out are drawn the same
   * way, so 0.9 is exactly the complement of 0.1 */
  o.density = 0.9;
  g_autoptr(SpxMask) c = generate (64, 64, 1, &o);
  g_assert_cmpuint (spx_mask_count (c), ==, 3686);
  for (guint64 i = 0; i < 4096; i++)
    g_assert_cmpint (spx_mask_get_flat (c, i), !=, spx_mask_get_flat (m, i));
}

static void
test_uniform_large (void)
{
  SpxGenOptions o;
  spx_gen_options_init (&o);
  o.density = 0.5;
  gint64 t0 = g_get_monotonic_time ();
  g_autoptr(SpxMask) m = generate (4096, 4096, 1, &o);
  g_test_message ("uniform 4096x4096 b=1 d=0.5: %.1f ms", elapsed_ms (t0));
  g_assert_cmpuint (spx_mask_count (m), ==, 8388608);
  o.density = 0.9;
  g_autoptr(SpxMask) m9 = generate (4096, 4096, 1, &o);
  g_assert_cmpuint (spx_mask_count (m9), ==, 15099494);
}

/* FNV-1a over a mask's words: a whole mask in one pinned number. */
static guint64
mask_hash (const SpxMask *m)
{
  guint64 h = G_GUINT64_CONSTANT (0xcbf29ce484222325);
  for (guint64 w = 0; w < m->n_words; w++)
    h = (h ^ m->bits[w]) * G_GUINT64_CONSTANT (0x100000001b3);
  return h;
}

/* Past 2^24 blocks a uniform mask is drawn a piece at a time (Floyd's
 * draws spread over a whole mask miss the caches): exact counts on both
 * sides of 1/2 and through the denser pieces' word-wise path, each piece
 * near its share, and the same mask on every machine (recorded once). */
static void
test_uniform_pieces (void)
{
  const struct {
    double  density;
    guint64 count, hash;
  } cases[] = {
    { 0.3, 5035623, G_GUINT64_CONSTANT (0xdf113504bc987e8e) },
    { 0.01, 167854, G_GUINT64_CONSTANT (0xe57dc39e088f3aad) },
    { 0.9, 15106868, G_GUINT64_CONSTANT (0x7fd9de5db6dfe552) },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      SpxGenOptions o;
      spx_gen_options_init (&o);
      o.density = cases[i].density;
      o.seed = 2;
      g_autoptr(SpxMask) m = generate (4097, 4097, 1, &o); /* 2^24 + 8193 */
      g_assert_cmpuint (spx_mask_count (m), ==, cases[i].count);
      g_assert_cmphex (mask_hash (m), ==, cases[i].hash);
      /* the first piece: 2^24 of the blocks, hypergeometric count */
      guint64 first = 0, piece = G_GUINT64_CONSTANT (1) << 24;
      for (guint64 w = 0; w < piece / 64; w++)
        first += (guint64) __builtin_popcountll (m->bits[w]);
      double p = o.density, n = (double) spx_mask_n_blocks (m);
      double sd = sqrt (piece * p * (1 - p) * (n - piece) / (n - 1));
      g_assert_cmpfloat (fabs (first - piece * p), <, 6 * sd + 1);
      o.seed = 3;
      g_autoptr(SpxMask) other = generate (4097, 4097, 1, &o);
      g_assert_cmpuint (spx_mask_count (other), ==, cases[i].count);
      g_assert_false (spx_mask_equal (m, other));
    }
}

/* Patterns that draw many short ranges (nm's groups, tilewise's tiles)
 * or rank many rows (skewed's rounding) have fast paths that must make
 * what the plain loops and the sort made: these were recorded before
 * them (skewed with ties, capped rows, exponent 0). A change here changes
 * every saved scenario with such a mask. */
static void
test_pinned_patterns (void)
{
  const struct {
    SpxPattern pattern;
    guint64    rows, cols;
    guint      block, tile_width, nm_n, nm_m;
    double     density;
    guint64    seed, count, hash;
    double     exponent;
  } cases[] = {
    { SPX_PATTERN_NM, 16, 22, 1, 0, 2, 4, 0, 5, 176,
      G_GUINT64_CONSTANT (0x4f54da3dd8de65a5), 0 },
    { SPX_PATTERN_NM, 40, 200, 1, 0, 3, 4, 0, 6, 6000,
      G_GUINT64_CONSTANT (0x4ca74000efd0e735), 0 },
    { SPX_PATTERN_NM, 9, 300, 2, 0, 5, 64, 0, 7, 60,
      G_GUINT64_CONSTANT (0xa40e298f636418ef), 0 },
    { SPX_PATTERN_NM, 9, 300, 1, 0, 40, 100, 0, 8, 1080,
      G_GUINT64_CONSTANT (0xa710bd91bf72ce79), 0 },
    { SPX_PATTERN_TILEWISE, 64, 64, 1, 8, 0, 0, 0.3, 3, 1225,
      G_GUINT64_CONSTANT (0xda97a9c15c807fc0), 0 },
    { SPX_PATTERN_TILEWISE, 200, 300, 2, 3, 0, 0, 0.2, 4, 3015,
      G_GUINT64_CONSTANT (0xee69c2af90fa08a6), 0 },
    { SPX_PATTERN_SKEWED, 100, 100, 1, 0, 0, 0, 0.3, 9, 3000,
      G_GUINT64_CONSTANT (0x9d88d1676f364181), 1.5 },
    { SPX_PATTERN_SKEWED, 1000, 50, 1, 0, 0, 0, 0.6, 10, 30000,
      G_GUINT64_CONSTANT (0xa7c424765ef424af), 2 },
    { SPX_PATTERN_SKEWED, 300, 7, 1, 0, 0, 0, 0.9, 12, 1890,
      G_GUINT64_CONSTANT (0x3c38d6c2db18a99d), 3 },
    { SPX_PATTERN_SKEWED, 97, 13, 1, 0, 0, 0, 0.41, 16, 517,
      G_GUINT64_CONSTANT (0x628c12fea3ed0cfa), 0 },
    { SPX_PATTERN_SKEWED, 2000, 40, 2, 0, 0, 0, 0.33, 15, 6600,
      G_GUINT64_CONSTANT (0x3ea67ca7de7c2064), 1.2 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      SpxGenOptions o;
      spx_gen_options_init (&o);
      o.pattern = cases[i].pattern;
      o.density = cases[i].density;
      o.seed = cases[i].seed;
      if (cases[i].tile_width)
        o.tile_width = cases[i].tile_width;
      if (cases[i].nm_m)
        {
          o.nm_n = cases[i].nm_n;
          o.nm_m = cases[i].nm_m;
        }
      if (o.pattern == SPX_PATTERN_SKEWED)
        o.exponent = cases[i].exponent;
      g_autoptr(SpxMask) m = generate (cases[i].rows, cases[i].cols,
                                       cases[i].block, &o);
      g_assert_cmpuint (spx_mask_count (m), ==, cases[i].count);
      g_assert_cmphex (mask_hash (m), ==, cases[i].hash);
    }
}

/* An N:M group longer than a piece, in rows that start mid-word. */
static void
test_nm_long_groups (void)
{
  SpxGenOptions o;
  spx_gen_options_init (&o);
  o.pattern = SPX_PATTERN_NM;
  o.nm_m = (1u << 24) + 100;
  o.nm_n = 1u << 23;
  g_autoptr(SpxMask) m = generate (3, o.nm_m, 1, &o);
  for (guint64 r = 0; r < 3; r++)
    g_assert_cmpuint (spx_mask_count_row (m, r), ==, o.nm_n);
}

/* Block-column c's row set as a bitmask (brows ≤ 64 here). */
static guint64
column_rows (const SpxMask *m, guint64 c)
{
  guint64 rows = 0;
  for (guint64 r = 0; r < m->brows; r++)
    rows |= (guint64) spx_mask_get (m, r, c) << r;
  return rows;
}

/* 256×1024 at b = 4: 64 × 256 blocks; tile 64 elements = 16 block-columns.
 * density 0.25 keeps 0.5: 128 columns, 32 rows per tile, 8 tiles. */
static void
test_tilewise_exact (void)
{
  SpxGenOptions o;
  spx_gen_options_init (&o);
  o.pattern = SPX_PATTERN_TILEWISE;
  o.density = 0.25;
  o.tile_width = 64;
  o.seed = 3;
  g_autoptr(SpxMask) m = generate (256, 1024, 4, &o);
  g_assert_cmpuint (spx_mask_count (m), ==, 128 * 32);

  guint64 kept = 0, tile_rows = 0, n_distinct = 0, prev = 0;
  for (guint64 c = 0; c < m->bcols; c++)
    {
      guint64 rows = column_rows (m, c);
      if (rows == 0)
        continue;
      g_assert_cmpint (__builtin_popcountll (rows), ==, 32);
      if (kept % 16 == 0) /* first column of a tile */
        {
          n_distinct += rows != prev;
          tile_rows = prev = rows;
        }
      g_assert_cmphex (rows, ==, tile_rows);
      kept++;
    }
  g_assert_cmpuint (kept, ==, 128);
  g_assert_cmpuint (n_distinct, >=, 7); /* tiles draw rows independently */
}

static void
test_tilewise_density (void)
{
  const double densities[] = { 0.05, 0.1, 0.3, 0.6, 0.9 };
  for (guint i = 0; i < G_N_ELEMENTS (densities); i++)
    {
      SpxGenOptions o;
      spx_gen_options_init (&o);
      o.pattern = SPX_PATTERN_TILEWISE;
      o.density = densities[i];
      o.seed = i;
      g_autoptr(SpxMask) m = generate (1000, 3000, 4, &o); /* 250 × 750 */
      double got = (double) spx_mask_count (m) / spx_mask_n_blocks (m);
      g_assert_cmpfloat (fabs (got - densities[i]), <, 0.01);
    }

  /* tile narrower than a block: one block-column per tile, so every kept
   * column has its own rows; 0 and 1 are exact */
  SpxGenOptions o;
  spx_gen_options_init (&o);
  o.pattern = SPX_PATTERN_TILEWISE;
  o.tile_width = 3;
  o.density = 0.36; /* keep 0.6: 30 of 50 columns, 24 of 40 rows */
  g_autoptr(SpxMask) m = generate (160, 200, 4, &o);
  g_assert_cmpuint (spx_mask_count (m), ==, 30 * 24);
  o.density = 0;
  g_autoptr(SpxMask) none = generate (160, 200, 4, &o);
  g_assert_cmpuint (spx_mask_count (none), ==, 0);
  o.density = 1;
  g_autoptr(SpxMask) all = generate (160, 200, 4, &o);
  g_assert_cmpuint (spx_mask_count (all), ==, 40 * 50);
}

/* Count set blocks of row r in [c, c + len). */
static guint64
count_span (const SpxMask *m, guint64 r, guint64 c, guint64 len)
{
  guint64 n = 0;
  for (guint64 i = c; i < c + len; i++)
    n += spx_mask_get (m, r, i);
  return n;
}

static void
check_nm (guint n, guint mm, guint64 bcols, guint64 partial_keep)
{
  SpxGenOptions o;
  spx_gen_options_init (&o);
  o.pattern = SPX_PATTERN_NM;
  o.nm_n = n;
  o.nm_m = mm;
  o.density = 0.9; /* ignored */
  g_autoptr(SpxMask) m = generate (16, bcols, 1, &o);
  guint64 full = bcols / mm, rest = bcols % mm;
  for (guint64 r = 0; r < 16; r++)
    {
      for (guint64 g = 0; g < full; g++)
        g_assert_cmpuint (count_span (m, r, g * mm, mm), ==, n);
      if (rest > 0)
        g_assert_cmpuint (count_span (m, r, full * mm, rest), ==,
                          partial_keep);
    }
  g_assert_cmpuint (spx_mask_count (m), ==, 16 * (full * n + partial_keep));
}

static void
test_nm (void)
{
  check_nm (2, 4, 22, 1);   /* partial of 2: round(2·2/4) = 1 */
  check_nm (1, 3, 8, 1);    /* partial of 2: round(2/3) = 1 */
  check_nm (3, 4, 10, 2);   /* partial of 2: round(1.5) = 2 */
  check_nm (1, 4, 9, 0);    /* partial of 1: round(0.25) = 0 */
  check_nm (0, 4, 12, 0);
  check_nm (4, 4, 13, 1);
  check_nm (2, 8, 64, 0);
  check_nm (5, 7, 3, 2);    /* only a partial group: round(15/7) = 2 */

  /* at b > 1 the groups are of blocks */
  SpxGenOptions o;
  spx_gen_options_init (&o);
  o.pattern = SPX_PATTERN_NM;
  g_autoptr(SpxMask) m = generate (32, 64, 4, &o); /* 8 × 16 blocks */
  g_assert_cmpuint (spx_mask_count (m), ==, 8 * 8);
  /* choices vary between groups */
  guint64 first = m->bits[0] & 0xf;
  gboolean varied = FALSE;
  for (guint64 c = 4; c < 16; c += 4)
    varied |= ((m->bits[0] >> c) & 0xf) != first;
  g_assert_true (varied);
}

static void
test_banded_exact (void)
{
  SpxGenOptions o;
  spx_gen_options_init (&o);
  o.pattern = SPX_PATTERN_BANDED;
  o.band = 3;
  /* square: centre i, window [i − 1, i + 1]: tridiagonal, 3·8 − 2 = 22 */
  g_autoptr(SpxMask) tri = generate (8, 8, 1, &o);
  g_assert_cmpuint (spx_mask_count (tri), ==, 22);
  for (guint64 i = 0; i < 8; i++)
    for (guint64 j = 0; j < 8; j++)
      g_assert_cmpint (spx_mask_get (tri, i, j), ==,
                       (i > j ? i - j : j - i) <= 1);

  /* 4 × 12 blocks, band 2: centres floor((i + 0.5)·3) = 1, 4, 7, 10;
   * windows [c − 1, c] */
  o.band = 2;
  g_autoptr(SpxMask) wide = generate (8, 24, 2, &o);
  const guint64 want[][2] = { { 0, 0 }, { 0, 1 }, { 1, 3 }, { 1, 4 },
                              { 2, 6 }, { 2, 7 }, { 3, 9 }, { 3, 10 } };
  assert_blocks (wide, want, G_N_ELEMENTS (want));

  /* 12 × 4 blocks, band 1: centres floor((i + 0.5)/3) = 0,0,0,1,1,1,... */
  o.band = 1;
  g_autoptr(SpxMask) tall = generate (12, 4, 1, &o);
  g_assert_cmpuint (spx_mask_count (tall), ==, 12);
  for (guint64 i = 0; i < 12; i++)
    g_assert_true (spx_mask_get (tall, i, i / 3));

  /* band from density: round(0.25 · 12) = 3; density 0 still gives 1 */
  o.band = 0;
  o.density = 0.25;
  g_autoptr(SpxMask) from_d = generate (12, 12, 1, &o);
  g_assert_cmpuint (spx_mask_count (from_d), ==, 3 * 12 - 2);
  o.density = 0;
  g_autoptr(SpxMask) thin = generate (12, 12, 1, &o);
  g_assert_cmpuint (spx_mask_count (thin), ==, 12);

  /* a band wider than the matrix fills it */
  o.band = G_MAXUINT64;
  g_autoptr(SpxMask) full = generate (5, 7, 1, &o);
  g_assert_cmpuint (spx_mask_count (full), ==, 35);
}

static void
test_banded_window (void)
{
  SpxGenOptions o;
  spx_gen_options_init (&o);
  o.pattern = SPX_PATTERN_BANDED;
  o.band = 7;
  g_autoptr(SpxMask) m = generate (300, 1000, 4, &o); /* 75 × 250 */
  for (guint64 i = 0; i < m->brows; i++)
    {
      gint64 centre = (gint64) ((2 * i + 1) * m->bcols / (2 * m->brows));
      gint64 lo = MAX (centre - 3, 0), hi = MIN (centre + 3, 249);
      g_assert_cmpuint (spx_mask_count_row (m, i), ==, hi - lo + 1);
      for (gint64 j = lo; j <= hi; j++)
        g_assert_true (spx_mask_get (m, i, (guint64) j));
    }
}

static int
cmp_desc (const void *a, const void *b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return x < y ? 1 : x > y ? -1 : 0;
}

/* Row counts of m, sorted heaviest first, into counts. */
static void
sorted_row_counts (const SpxMask *m, guint64 *counts)
{
  for (guint64 r = 0; r < m->brows; r++)
    counts[r] = spx_mask_count_row (m, r);
  qsort (counts, m->brows, sizeof *counts, cmp_desc);
}

static void
check_skewed (guint64 rows, guint64 cols, double density, double exponent,
              const guint64 *want)
{
  SpxGenOptions o;
  spx_gen_options_init (&o);
  o.pattern = SPX_PATTERN_SKEWED;
  o.density = density;
  o.exponent = exponent;
  g_autoptr(SpxMask) m = generate (rows, cols, 1, &o);
  g_autofree guint64 *counts = g_new (guint64, rows);
  sorted_row_counts (m, counts);
  for (guint64 r = 0; r < rows; r++)
    g_assert_cmpuint (counts[r], ==, want[r]);
}

static void
test_skewed_exact (void)
{
  /* weights 1, 1/2, 1/3, 1/4 (sum 25/12) sharing 100: 48, 24, 16, 12 */
  const guint64 plain[] = { 48, 24, 16, 12 };
  check_skewed (4, 100, 0.25, 1.0, plain);
  /* same at 40 columns (d = 100/160): row 0 is capped at 40 and 60 is
   * shared over 1/2, 1/3, 1/4 (sum 13/12): 27.69, 18.46, 13.85 → floors
   * 27, 18, 13 and the 2 left go to the largest fractions: 28, 18, 14 */
  const guint64 capped[] = { 40, 28, 18, 14 };
  check_skewed (4, 40, 0.625, 1.0, capped);
  /* exponent 0: equal rows */
  const guint64 equal[] = { 16, 16, 16, 16, 16, 16, 16, 16 };
  check_skewed (8, 32, 0.5, 0.0, equal);
  /* a steep exponent fills the heaviest rows first */
  const guint64 steep[] = { 10, 10, 0, 0 };
  check_skewed (4, 10, 0.5, 60.0, steep);
  /* everything */
  const guint64 full[] = { 9, 9, 9 };
  check_skewed (3, 9, 1.0, 2.0, full);
}

static void
test_skewed_shape (void)
{
  const double exponents[] = { 0.0, 0.5, 1.0, 2.0 };
  const double densities[] = { 0.02, 0.1, 0.5, 0.9 };
  for (guint e = 0; e < G_N_ELEMENTS (exponents); e++)
    for (guint d = 0; d < G_N_ELEMENTS (densities); d++)
      {
        SpxGenOptions o;
        spx_gen_options_init (&o);
        o.pattern = SPX_PATTERN_SKEWED;
        o.density = densities[d];
        o.exponent = exponents[e];
        o.seed = e * 10 + d;
        g_autoptr(SpxMask) m = generate (200, 300, 2, &o); /* 100 × 150 */
        guint64 total = round_count (densities[d], 15000), counts[100];
        g_assert_cmpuint (spx_mask_count (m), ==, total);
        sorted_row_counts (m, counts);
        g_assert_cmpuint (counts[0], <=, 150);
        /* where no row is capped, count[r] ≈ count[0]·(r+1)^−e */
        if (counts[0] < 150 && counts[0] >= 20)
          for (guint r = 1; r < 100; r++)
            {
              double want = counts[0] * pow (r + 1, -exponents[e]);
              g_assert_cmpfloat (fabs (counts[r] - want), <=, 2.0);
            }
      }

  /* the heaviest row lands on different rows for different seeds */
  guint64 heaviest_at[8];
  for (guint s = 0; s < 8; s++)
    {
      SpxGenOptions o;
      spx_gen_options_init (&o);
      o.pattern = SPX_PATTERN_SKEWED;
      o.density = 0.2;
      o.exponent = 3.0;
      o.seed = s;
      g_autoptr(SpxMask) m = generate (50, 100, 1, &o);
      heaviest_at[s] = 0;
      for (guint64 r = 1; r < 50; r++)
        if (spx_mask_count_row (m, r) > spx_mask_count_row (m, heaviest_at[s]))
          heaviest_at[s] = r;
    }
  gboolean moved = FALSE;
  for (guint s = 1; s < 8; s++)
    moved |= heaviest_at[s] != heaviest_at[0];
  g_assert_true (moved);
}

/* ------------------------------------------------------------------ */
/* Magnitude                                                           */

static SpxMask *
prune (const float *values, guint64 rows, guint64 cols, guint block,
       double density)
{
  GError *error = NULL;
  SpxMask *m = spx_mask_prune_magnitude (values, rows, cols, block, density,
                                         &error);
  g_assert_no_error (error);
  g_assert_nonnull (m);
  return m;
}

/* 5×5 at b = 2: 3 × 3 blocks, the last row and column of blocks partial.
 * Squared norms by block:
 *   (0,0) 4   (0,1) 9     (0,2) 4 (two elements)
 *   (1,0) 0   (1,1) 1     (1,2) 2
 *   (2,0) 8   (2,1) 0.25  (2,2) 25 (one element)
 * Largest first: (2,2) (0,1) (2,0), then the tie (0,0)/(0,2) at 4, which
 * the lower flat index (0,0) wins. */
static const float hand_5x5[25] = {
  1, 1,   0, 3,   2,
  1, 1,   0, 0,   0,
  0, 0,  -1, 0,   1,
  0, 0,   0, 0,   1,
  2, 2,   0, 0.5, -5,
};

static void
test_magnitude_hand (void)
{
  g_autoptr(SpxMask) k4 = prune (hand_5x5, 5, 5, 2, 4.0 / 9);
  const guint64 want4[][2] = { { 2, 2 }, { 0, 1 }, { 2, 0 }, { 0, 0 } };
  assert_blocks (k4, want4, G_N_ELEMENTS (want4));

  g_autoptr(SpxMask) k5 = prune (hand_5x5, 5, 5, 2, 5.0 / 9);
  const guint64 want5[][2] = { { 2, 2 }, { 0, 1 }, { 2, 0 }, { 0, 0 },
                               { 0, 2 } };
  assert_blocks (k5, want5, G_N_ELEMENTS (want5));

  g_autoptr(SpxMask) k8 = prune (hand_5x5, 5, 5, 2, 8.0 / 9);
  g_assert_cmpuint (spx_mask_count (k8), ==, 8);
  g_assert_false (spx_mask_get (k8, 1, 0)); /* the zero block goes last */

  g_autoptr(SpxMask) none = prune (hand_5x5, 5, 5, 2, 0);
  g_assert_cmpuint (spx_mask_count (none), ==, 0);
  g_autoptr(SpxMask) all = prune (hand_5x5, 5, 5, 2, 1);
  g_assert_cmpuint (spx_mask_count (all), ==, 9);
}

/* Block 1 ranks the values themselves: |−2| = |2| and the zeros (−0 among
 * them) tie, lower index first. Flat order of |v|: 6 (3), 1 (−2), 3 (2),
 * 2 (1), 5 (−1), 4 (0.5), then the zeros 0, 7 (−0), 8. */
static void
test_magnitude_elements (void)
{
  const float v[9] = { 0, -2, 1, 2, 0.5f, -1, 3, -0.0f, 0 };
  const guint64 order[] = { 6, 1, 3, 2, 5, 4, 0, 7, 8 };
  for (guint k = 0; k <= 9; k++)
    {
      g_autoptr(SpxMask) m = prune (v, 3, 3, 1, k / 9.0);
      g_assert_cmpuint (spx_mask_count (m), ==, k);
      for (guint i = 0; i < k; i++)
        g_assert_true (spx_mask_get_flat (m, order[i]));
    }

  const float inf[4] = { 1, -INFINITY, 2, 3 };
  g_autoptr(SpxMask) m = prune (inf, 2, 2, 1, 0.25);
  g_assert_true (spx_mask_get_flat (m, 1));
}

static void
test_magnitude_invalid (void)
{
  GError *error = NULL;
  float v[6] = { 1, 2, 3, 4, 5, 6 };
  g_assert_null (spx_mask_prune_magnitude (v, 2, 3, 1, 1.5, &error));
  g_assert_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_null (spx_mask_prune_magnitude (v, 2, 3, 1, NAN, &error));
  g_assert_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_null (spx_mask_prune_magnitude (v, 0, 3, 1, 0.5, &error));
  g_assert_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID);
  g_clear_error (&error);

  /* NaN is refused, naming the block; at b = 1 and b = 2 */
  v[4] = NAN; /* element (1, 1) */
  g_assert_null (spx_mask_prune_magnitude (v, 2, 3, 1, 0.5, &error));
  g_assert_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "(1, 1)"));
  g_clear_error (&error);
  g_assert_null (spx_mask_prune_magnitude (v, 2, 3, 2, 0.5, &error));
  g_assert_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "(0, 0)"));
  g_clear_error (&error);
}

typedef struct {
  double  norm;
  guint64 index;
} Ranked;

static int
cmp_ranked (const void *pa, const void *pb)
{
  const Ranked *a = pa, *b = pb;
  if (a->norm != b->norm)
    return a->norm > b->norm ? -1 : 1;
  return a->index < b->index ? -1 : 1;
}

/* The obvious way: every block's norm, sort, keep the first k. */
static SpxMask *
prune_reference (const float *v, guint64 rows, guint64 cols, guint block,
                 double density)
{
  SpxMask *m = new_mask (rows, cols, block);
  guint64 n = spx_mask_n_blocks (m);
  Ranked *ranked = g_new0 (Ranked, n);
  for (guint64 i = 0; i < n; i++)
    ranked[i].index = i;
  for (guint64 r = 0; r < rows; r++)
    for (guint64 c = 0; c < cols; c++)
      ranked[(r / block) * m->bcols + c / block].norm +=
        (double) v[r * cols + c] * v[r * cols + c];
  qsort (ranked, n, sizeof *ranked, cmp_ranked);
  for (guint64 i = 0; i < round_count (density, n); i++)
    spx_mask_set_flat (m, ranked[i].index);
  g_free (ranked);
  return m;
}

static void
test_magnitude_reference (void)
{
  const guint blocks[] = { 1, 2, 3, 8 };
  const double densities[] = { 0.05, 0.3, 0.5, 0.77 };
  SpxRng rng;
  spx_rng_init (&rng, 2024);
  float v[37 * 41];
  for (guint t = 0; t < 2; t++)
    {
      /* t = 1: values on a coarse grid, so many norms tie */
      for (guint i = 0; i < G_N_ELEMENTS (v); i++)
        {
          double x = spx_rng_normal (&rng);
          v[i] = (float) (t == 0 ? x : round (x * 2) / 2);
        }
      for (guint b = 0; b < G_N_ELEMENTS (blocks); b++)
        for (guint d = 0; d < G_N_ELEMENTS (densities); d++)
          {
            g_autoptr(SpxMask) got = prune (v, 37, 41, blocks[b],
                                            densities[d]);
            g_autoptr(SpxMask) want = prune_reference (v, 37, 41, blocks[b],
                                                       densities[d]);
            g_assert_true (spx_mask_equal (got, want));
          }
    }
}

/* Pattern magnitude is pruning of normal draws taken row-major from the
 * seed. */
static void
test_magnitude_generate (void)
{
  const guint blocks[] = { 1, 3 };
  for (guint b = 0; b < G_N_ELEMENTS (blocks); b++)
    {
      SpxGenOptions o;
      spx_gen_options_init (&o);
      o.pattern = SPX_PATTERN_MAGNITUDE;
      o.density = 0.3;
      o.seed = 77;
      g_autoptr(SpxMask) got = generate (40, 50, blocks[b], &o);

      SpxRng rng;
      float v[40 * 50];
      spx_rng_init (&rng, 77);
      for (guint i = 0; i < G_N_ELEMENTS (v); i++)
        v[i] = (float) spx_rng_normal (&rng);
      g_autoptr(SpxMask) want = prune (v, 40, 50, blocks[b], 0.3);
      g_assert_true (spx_mask_equal (got, want));
      g_assert_cmpuint (spx_mask_count (got), ==,
                        round_count (0.3, spx_mask_n_blocks (got)));
    }
}

static void
test_magnitude_large (void)
{
  guint64 n = 4096 * 4096;
  g_autofree float *v = g_new (float, n);
  SpxRng rng;
  spx_rng_init (&rng, 5);
  for (guint64 i = 0; i < n; i++) /* cheap, varied values with ties */
    v[i] = (float) (spx_rng_next (&rng) >> 40) - 8388608.0f;

  gint64 t0 = g_get_monotonic_time ();
  g_autoptr(SpxMask) m = prune (v, 4096, 4096, 1, 0.1);
  g_test_message ("magnitude 4096x4096 b=1 d=0.1: %.1f ms", elapsed_ms (t0));
  g_assert_cmpuint (spx_mask_count (m), ==, 1677722);

  /* every kept value is at least as large as every dropped one */
  float kept_min = G_MAXFLOAT, dropped_max = 0;
  for (guint64 i = 0; i < n; i++)
    if (spx_mask_get_flat (m, i))
      kept_min = MIN (kept_min, fabsf (v[i]));
    else
      dropped_max = MAX (dropped_max, fabsf (v[i]));
  g_assert_cmpfloat (kept_min, >=, dropped_max);

  t0 = g_get_monotonic_time ();
  g_autoptr(SpxMask) m16 = prune (v, 4096, 4096, 16, 0.1);
  g_test_message ("magnitude 4096x4096 b=16 d=0.1: %.1f ms", elapsed_ms (t0));
  g_assert_cmpuint (spx_mask_count (m16), ==, 6554);
}

/* Thousands grouped, none below a thousand, exact at the top. */
static void
test_format_count (void)
{
  static const struct { guint64 v; const char *text; } cases[] = {
    { 0, "0" }, { 999, "999" }, { 1000, "1,000" }, { 66944, "66,944" },
    { 1234567, "1,234,567" },
    { G_MAXUINT64, "18,446,744,073,709,551,615" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *got = spx_format_count (cases[i].v);
      g_assert_cmpstr (got, ==, cases[i].text);
    }
}

/* Control characters (C0, DEL, C1) and bytes that are not UTF-8 are
 * escaped, other characters kept; escaping twice changes nothing, and
 * the short forms cut at 32 characters. */
static void
test_escape (void)
{
  static const struct { const char *in, *out; } cases[] = {
    { "plain × text…", "plain × text…" },
    { "\033]0;title\a\033[2J", "\\x1b]0;title\\x07\\x1b[2J" },
    { "a\rb\nc\td\x7f", "a\\x0db\\x0ac\\x09d\\x7f" },
    { "csi \xc2\x9b nel \xc2\x85 nbsp \xc2\xa0", "csi \\u009b nel \\u0085 "
      "nbsp \xc2\xa0" },
    { "bad \xff \xc3 \xe2\x82", "bad \\xff \\xc3 \\xe2\\x82" },
    { "C:\\dir", "C:\\dir" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *got = spx_escape (cases[i].in);
      g_assert_cmpstr (got, ==, cases[i].out);
      g_autofree char *again = spx_escape (got);
      g_assert_cmpstr (again, ==, got);
    }
  /* a NUL inside a counted text, and the cut */
  g_autofree char *nul = spx_escape_len ("a\0b", 3, 0);
  g_assert_cmpstr (nul, ==, "a\\x00b");
  g_autofree char *cut = spx_short ("\033123456789012345678901234567890123");
  g_assert_cmpstr (cut, ==, "\\x1b1234567890123456789012345678901…");
  g_autofree char *quoted = spx_excerpt ("\r");
  g_assert_cmpstr (quoted, ==, "'\\x0d'");
}

/* Lines that end in CR alone are read as lines; CRLF and LF text is left
 * as it is, without a copy. */
static void
test_cr_lines (void)
{
  const char *text = "a\rb\r\nc\r";
  g_autofree char *copy = NULL;
  g_assert_true (spx_text_cr_lines ("t", &text, 7, &copy, NULL));
  g_assert_nonnull (copy);
  g_assert_cmpmem (text, 7, "a\nb\r\nc\n", 7);
  g_assert_cmpint (text[7], ==, '\0');
  const char *const others[] = { "a\r\nb\r", "a\nb\r", "no line end\r\n",
                                 "" };
  for (guint i = 0; i < G_N_ELEMENTS (others); i++)
    {
      const char *t = others[i];
      g_autofree char *none = NULL;
      g_assert_true (spx_text_cr_lines ("t", &t, strlen (t), &none, NULL));
      g_assert_null (none);
      g_assert_true (t == others[i]);
    }
  /* the copy is within the budget like any other memory */
  set_budget ("4");
  const char *big = "0123456789\r";
  g_autofree char *none = NULL;
  g_autoptr (GError) error = NULL;
  g_assert_false (spx_text_cr_lines ("big.mtx", &big, 11, &none, &error));
  g_assert_error (error, SPX_BUDGET_ERROR, SPX_BUDGET_ERROR_TOO_LARGE);
  g_assert_true (g_str_has_prefix (error->message, "big.mtx: "));
  set_budget (NULL);
}

/* The thread limit in words says what it is made of. */
static void
test_max_threads (void)
{
  g_autofree char *text = spx_max_threads_text ();
  g_autofree char *want = g_strdup_printf ("%u (%d × the %u processors "
                                           "online)", spx_max_threads (),
                                           SPX_THREADS_PER_CPU,
                                           spx_max_threads ()
                                             / SPX_THREADS_PER_CPU);
  g_assert_cmpstr (text, ==, want);
  g_assert_cmpuint (spx_max_threads () % SPX_THREADS_PER_CPU, ==, 0);
}

static void
test_join_choices (void)
{
  const char *const items[] = { "a", "b", "c", NULL };
  const char *const want[] = { "", "a", "a or b", "a, b or c" };
  for (guint n = 0; n <= 3; n++)
    {
      g_autofree char *got = spx_join_choices (items, n);
      g_assert_cmpstr (got, ==, want[n]);
    }
  g_autofree char *all = spx_join_choices (items, -1);
  g_assert_cmpstr (all, ==, "a, b or c");
  /* the pattern names, as every message and help lists them */
  g_autofree char *patterns = spx_pattern_list (0);
  g_assert_cmpstr (patterns, ==, "uniform, tilewise, nm, banded, skewed or "
                                 "magnitude");
  g_autofree char *two = spx_pattern_list ((1u << SPX_PATTERN_UNIFORM) |
                                           (1u << SPX_PATTERN_TILEWISE));
  g_assert_cmpstr (two, ==, "uniform or tilewise");
}

/* Whether options keep a block, against what the generators make. */
static void
test_keeps_any (void)
{
  static const struct {
    SpxPattern pattern;
    double density;
    guint nm_n, nm_m, rows, cols, block;
  } cases[] = {
    { SPX_PATTERN_UNIFORM, 0.001, 0, 0, 100, 100, 10 },  /* round(0.1) */
    { SPX_PATTERN_UNIFORM, 0.005, 0, 0, 100, 100, 10 },  /* round(0.5) */
    { SPX_PATTERN_UNIFORM, 0.1, 0, 0, 100, 100, 200 },   /* one block */
    { SPX_PATTERN_UNIFORM, 0, 0, 0, 64, 64, 1 },
    { SPX_PATTERN_TILEWISE, 0.01, 0, 0, 64, 64, 4 },     /* √d · 16 */
    { SPX_PATTERN_TILEWISE, 0.001, 0, 0, 64, 64, 4 },
    { SPX_PATTERN_NM, 0, 0, 4, 64, 64, 4 },
    { SPX_PATTERN_NM, 0, 1, 4, 8, 4, 4 },                /* a short group */
    { SPX_PATTERN_NM, 0, 2, 4, 8, 4, 4 },
    { SPX_PATTERN_BANDED, 0, 0, 0, 64, 64, 8 },
    { SPX_PATTERN_SKEWED, 0.001, 0, 0, 64, 64, 8 },
    { SPX_PATTERN_SKEWED, 0.02, 0, 0, 64, 64, 8 },
    { SPX_PATTERN_MAGNITUDE, 0.001, 0, 0, 64, 64, 8 },
    { SPX_PATTERN_MAGNITUDE, 0.02, 0, 0, 64, 64, 8 },
  };
  guint kept = 0, empty = 0;
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      SpxGenOptions o;
      spx_gen_options_init (&o);
      o.pattern = cases[i].pattern;
      o.density = cases[i].density;
      o.nm_n = cases[i].nm_n;
      o.nm_m = cases[i].nm_m ? cases[i].nm_m : o.nm_m;
      g_autoptr (GError) error = NULL;
      g_autoptr (SpxMask) m = spx_mask_generate (cases[i].rows, cases[i].cols,
                                                 cases[i].block, &o, &error);
      g_assert_no_error (error);
      gboolean any = spx_mask_count (m) > 0;
      g_assert_cmpint (spx_gen_keeps_any (m->brows, m->bcols, &o), ==, any);
      kept += any;
      empty += !any;
    }
  g_assert_cmpuint (kept, >=, 6);
  g_assert_cmpuint (empty, >=, 6);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/util/format-count", test_format_count);
  g_test_add_func ("/util/join-choices", test_join_choices);
  g_test_add_func ("/util/escape", test_escape);
  g_test_add_func ("/util/cr-lines", test_cr_lines);
  g_test_add_func ("/util/max-threads", test_max_threads);
  g_test_add_func ("/gen/keeps-any", test_keeps_any);

  g_test_add_func ("/mask/new", test_new);
  g_test_add_func ("/mask/new-refusals", test_new_refusals);
  g_test_add_func ("/mask/bits", test_bits);
  g_test_add_func ("/mask/count", test_count);
  g_test_add_func ("/mask/count-elements", test_count_elements);
  g_test_add_func ("/mask/iter", test_iter);
  g_test_add_func ("/mask/copy-equal", test_copy_equal);
  g_test_add_func ("/mask/fill", test_fill);
  g_test_add_func ("/mask/share", test_share);
  g_test_add_func ("/mask/to-blocks", test_to_blocks);
  g_test_add_func ("/mask/to-blocks-reference", test_to_blocks_reference);
  g_test_add_func ("/mask/stats", test_stats);
  g_test_add_func ("/mask/stats-reference", test_stats_reference);
  g_test_add_func ("/mask/stats-wide", test_stats_wide);
  g_test_add_func ("/mask/new-budget", test_new_budget);

  g_test_add_func ("/rng/reference", test_rng_reference);
  g_test_add_func ("/rng/below", test_rng_below);
  g_test_add_func ("/rng/uniform-normal", test_rng_uniform_normal);
  g_test_add_func ("/rng/hypergeometric", test_rng_hypergeometric);

  g_test_add_func ("/gen/options", test_options);
  g_test_add_func ("/gen/invalid-options", test_invalid_options);
  g_test_add_func ("/gen/reproducible", test_reproducible);
  g_test_add_func ("/gen/uniform/counts", test_uniform_counts);
  g_test_add_func ("/gen/uniform/unbiased", test_uniform_unbiased);
  g_test_add_func ("/gen/uniform/golden", test_uniform_golden);
  g_test_add_func ("/gen/uniform/large", test_uniform_large);
  g_test_add_func ("/gen/uniform/pieces", test_uniform_pieces);
  g_test_add_func ("/gen/pinned", test_pinned_patterns);
  g_test_add_func ("/gen/nm/long-groups", test_nm_long_groups);
  g_test_add_func ("/gen/tilewise/exact", test_tilewise_exact);
  g_test_add_func ("/gen/tilewise/density", test_tilewise_density);
  g_test_add_func ("/gen/nm", test_nm);
  g_test_add_func ("/gen/banded/exact", test_banded_exact);
  g_test_add_func ("/gen/banded/window", test_banded_window);
  g_test_add_func ("/gen/skewed/exact", test_skewed_exact);
  g_test_add_func ("/gen/skewed/shape", test_skewed_shape);
  g_test_add_func ("/gen/magnitude/hand", test_magnitude_hand);
  g_test_add_func ("/gen/magnitude/elements", test_magnitude_elements);
  g_test_add_func ("/gen/magnitude/invalid", test_magnitude_invalid);
  g_test_add_func ("/gen/magnitude/reference", test_magnitude_reference);
  g_test_add_func ("/gen/magnitude/generate", test_magnitude_generate);
  g_test_add_func ("/gen/magnitude/large", test_magnitude_large);
  g_test_add_func ("/gen/budget", test_generate_budget);
  g_test_add_func ("/gen/cancelled", test_generate_cancelled);

  return g_test_run ();
}
