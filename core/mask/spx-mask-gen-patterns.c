/* spx-mask-gen-patterns.c: the patterns uniform, tilewise, nm, banded and
 * skewed, and the bit sampling they share */
#include "spx-mask-gen-private.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Bitset helpers, on raw words so scratch sets can use them too       */

static inline gboolean
bit_get (const guint64 *bits, guint64 i)
{
  return (bits[i >> 6] >> (i & 63)) & 1;
}

static inline void
bit_toggle (guint64 *bits, guint64 i)
{
  bits[i >> 6] ^= G_GUINT64_CONSTANT (1) << (i & 63);
}

static void
set_range (guint64 *bits, guint64 start, guint64 len)
{
  guint64 i = start, end = start + len;
  for (; i < end && (i & 63) != 0; i++)
    bits[i >> 6] |= G_GUINT64_CONSTANT (1) << (i & 63);
  for (; i + 64 <= end; i += 64)
    bits[i >> 6] = ~G_GUINT64_CONSTANT (0);
  for (; i < end; i++)
    bits[i >> 6] |= G_GUINT64_CONSTANT (1) << (i & 63);
}

static guint64
bitset_words (guint64 n_bits)
{
  return n_bits / 64 + 1;
}

/* Robert Floyd's sampling: sets k of the len (all clear) bits from start,
 * every k-subset equally likely, in exactly k draws with no retries. The
 * bits themselves are the set, so no index array is needed. For k > len/2
 * the len-k bits to leave clear are sampled instead (fewer draws); then
 * "in the set" means "bit clear". Toggling adds to the set either way. */
static gboolean
floyd_range (guint64 *bits, guint64 start, guint64 len, guint64 k, SpxGen *g)
{
  gboolean invert = k > len / 2;
  if (invert)
    {
      set_range (bits, start, len);
      k = len - k;
    }
  if (spx_gen_stop (g, 1 + (invert ? len / 64 : 0)))
    return FALSE;
  for (guint64 j = len - k; j < len; j++)
    {
      guint64 t = spx_rng_below (&g->rng, j + 1);
      gboolean taken = bit_get (bits, start + t) != invert;
      bit_toggle (bits, start + (taken ? j : t));
      if (spx_gen_stop (g, 1))
        return FALSE;
    }
  return TRUE;
}

/* Floyd's draws land anywhere in the range: past the caches each one is a
 * miss, and 2^31 of them over a 512 MiB mask took minutes. Longer ranges
 * are drawn a piece of SPAN bits (2 MiB) at a time. */
#define SPAN (G_GUINT64_CONSTANT (1) << 24)

/* A word whose bits are each set with probability q/256 (0 < q < 256):
 * each binary digit of q, lowest first, ORs (1) or ANDs (0) a fresh
 * random word in; the low zero digits would AND into an all-clear word. */
static guint64
bernoulli_word (SpxRng *rng, guint q)
{
  gint i = g_bit_nth_lsf (q, -1);
  guint64 w = spx_rng_next (rng);
  while (++i < 8)
    w = (q >> i) & 1 ? w | spx_rng_next (rng) : w & spx_rng_next (rng);
  return w;
}

/* Sets each of the len (all clear) bits from start with probability q/256,
 * a word at a time; returns how many it set. */
static guint64
bernoulli_range (guint64 *bits, guint64 start, guint64 len, guint q, SpxGen *g)
{
  guint64 end = start + len, count = 0;
  for (guint64 w = start / 64; w * 64 < end; w++)
    {
      guint64 in = ~G_GUINT64_CONSTANT (0);
      if (w == start / 64)
        in <<= start & 63;
      if ((w + 1) * 64 > end)
        in &= ~G_GUINT64_CONSTANT (0) >> (64 - (end & 63));
      guint64 r = bernoulli_word (&g->rng, q) & in;
      bits[w] |= r;
      count += (guint64) __builtin_popcountll (r);
    }
  return count;
}

/* For a piece with at least 1/16 of its bits set and at least 1/16 clear,
 * Floyd's one draw per bit costs more than words of bits set with about
 * the right probability, then random bits cleared (or set) until k are
 * set. Given how many it holds, a set of independent bits is a uniform
 * subset of that size, and so is what the corrections leave of it. */
static gboolean
dense_range (guint64 *bits, guint64 start, guint64 len, guint64 k, SpxGen *g)
{
  guint q = (guint) ((k * 256 + len / 2) / len); /* 16 ≤ q ≤ 240 */
  guint64 count = bernoulli_range (bits, start, len, q, g);
  if (spx_gen_stop (g, len / 64))
    return FALSE;
  while (count != k)
    {
      guint64 i = start + spx_rng_below (&g->rng, len);
      gboolean over = count > k;
      if (bit_get (bits, i) == over)
        {
          bit_toggle (bits, i);
          count = over ? count - 1 : count + 1;
        }
      if (spx_gen_stop (g, 1))
        return FALSE;
    }
  return TRUE;
}

/* Sets k of the len (all clear) bits from start, every k-subset equally
 * likely. A range of up to SPAN bits is drawn by floyd_range, as it always
 * was. A longer one is drawn a piece at a time, each piece getting as many
 * of the k as a uniform k-subset puts in it (hypergeometric), so the whole
 * is still uniform. */
static gboolean
sample_range (guint64 *bits, guint64 start, guint64 len, guint64 k, SpxGen *g)
{
  if (len <= SPAN)
    return floyd_range (bits, start, len, k, g);
  for (guint64 at = 0; at < len; at += SPAN)
    {
      guint64 piece = MIN (SPAN, len - at);
      guint64 here = spx_rng_hypergeometric (&g->rng, len - at, k, piece);
      gboolean dense = here * 16 >= piece && (piece - here) * 16 >= piece;
      if (!(dense ? dense_range : floyd_range) (bits, start + at, piece, here,
                                                g))
        return FALSE;
      k -= here;
    }
  return TRUE;
}

/* Fisher–Yates on an array of counts. */
static gboolean
shuffle (guint64 *v, guint64 n, SpxGen *g)
{
  for (guint64 i = n; i > 1; i--)
    {
      guint64 j = spx_rng_below (&g->rng, i), tmp = v[i - 1];
      v[i - 1] = v[j];
      v[j] = tmp;
      if (spx_gen_stop (g, 1))
        return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Patterns                                                            */

gboolean
spx_gen_uniform (SpxMask *mask, const SpxGenOptions *o, SpxGen *g)
{
  guint64 n = spx_mask_n_blocks (mask);
  return sample_range (mask->bits, 0, n,
                       spx_gen_count_for_density (o->density, n), g);
}

/* Set the kept block-rows × the listed block-columns of one tile. */
static gboolean
fill_tile (SpxMask *mask, const guint64 *rows, const guint64 *cols,
           guint64 n_cols, SpxGen *g)
{
  for (guint64 w = 0; w < bitset_words (mask->brows); w++)
    {
      for (guint64 word = rows[w]; word != 0; word &= word - 1)
        {
          guint64 r = w * 64 + (guint64) __builtin_ctzll (word);
          for (guint64 i = 0; i < n_cols; i++)
            spx_mask_set (mask, r, cols[i]);
          if (spx_gen_stop (g, n_cols))
            return FALSE;
        }
      if (spx_gen_stop (g, 1))
        return FALSE;
    }
  return TRUE;
}

/* The kept block-columns, cut into tiles of per_tile (the last one may
 * be short), each with its own random block-rows. */
static gboolean
fill_tiles (SpxMask *mask, const guint64 *colset, guint64 *rowset,
            guint64 *tile, guint64 per_tile, guint64 kr, SpxGen *g)
{
  guint64 n_tile = 0;
  for (guint64 c = 0; c < mask->bcols; c++)
    {
      if (bit_get (colset, c))
        tile[n_tile++] = c;
      if (n_tile == per_tile || (c + 1 == mask->bcols && n_tile > 0))
        {
          memset (rowset, 0, bitset_words (mask->brows) * sizeof (guint64));
          if (!sample_range (rowset, 0, mask->brows, kr, g) ||
              !fill_tile (mask, rowset, tile, n_tile, g))
            return FALSE;
          n_tile = 0;
        }
      if (spx_gen_stop (g, 1))
        return FALSE;
    }
  return TRUE;
}

/* TW (Guo et al.): keep sqrt(d) of the block-columns, cut the survivors
 * into tiles of tile_width elements, and give each tile its own random
 * sqrt(d) of the block-rows. A uniform random column subset has the same
 * law as "top k of i.i.d. random scores", without float ties. */
void
spx_gen_tilewise_counts (double density, guint64 brows, guint64 bcols,
                         guint64 *kr, guint64 *kc)
{
  double keep = sqrt (density);
  *kc = spx_gen_count_for_density (keep, bcols);
  *kr = spx_gen_count_for_density (keep, brows);
}

gboolean
spx_gen_tilewise (SpxMask *mask, const SpxGenOptions *o, SpxGen *g)
{
  guint64 kc, kr;
  spx_gen_tilewise_counts (o->density, mask->brows, mask->bcols, &kr, &kc);
  guint64 per_tile = MAX (1u, o->tile_width / mask->block);
  per_tile = MIN (per_tile, mask->bcols);

  /* A tile never holds more than the kc kept columns. */
  guint64 tile_len = MAX (MIN (per_tile, kc), 1);
  guint64 words = bitset_words (mask->bcols) + bitset_words (mask->brows);
  if (!spx_gen_budget (g, (words + tile_len) * sizeof (guint64)))
    return FALSE;
  g_autofree guint64 *colset = spx_gen_alloc0 (g, bitset_words (mask->bcols),
                                               sizeof (guint64));
  g_autofree guint64 *rowset = spx_gen_alloc0 (g, bitset_words (mask->brows),
                                               sizeof (guint64));
  g_autofree guint64 *tile = spx_gen_alloc0 (g, tile_len, sizeof (guint64));
  return !g->failed && sample_range (colset, 0, mask->bcols, kc, g) &&
         fill_tiles (mask, colset, rowset, tile, per_tile, kr, g);
}

/* What a group of len ≤ M blocks keeps: N, or round(N·len/M) for a
 * final short one, in integers (len < bcols < 2^31, so no overflow). */
guint64
spx_gen_nm_group_keeps (const SpxGenOptions *o, guint64 len)
{
  guint64 n = o->nm_n, m = o->nm_m;
  return len == m ? n : (2 * n * len + m) / (2 * m);
}

/* floyd_range's draws for k of len ≤ 64 bits, in a word: nm's groups are
 * a few blocks each, too short for the costs of a call per group. */
static guint64
floyd_word (guint64 len, guint64 k, SpxRng *rng)
{
  gboolean invert = k > len / 2;
  guint64 set = 0, one = 1;
  for (guint64 j = invert ? k : len - k; j < len; j++)
    {
      guint64 t = spx_rng_below (rng, j + 1);
      set |= one << ((set >> t) & 1 ? j : t);
    }
  guint64 all = len == 64 ? ~G_GUINT64_CONSTANT (0) : (one << len) - 1;
  return invert ? ~set & all : set;
}

/* ORs the len low bits of word into bits from start on. */
static void
or_bits (guint64 *bits, guint64 start, guint64 word, guint64 len)
{
  guint shift = start & 63;
  bits[start >> 6] |= word << shift;
  if (shift + len > 64)
    bits[(start >> 6) + 1] |= word >> (64 - shift);
}

/* Groups start at block-column 0 of every row. */
gboolean
spx_gen_nm (SpxMask *mask, const SpxGenOptions *o, SpxGen *g)
{
  guint64 m = o->nm_m;
  if (o->nm_n == 0) /* keeps nothing and draws nothing */
    return TRUE;
  for (guint64 r = 0; r < mask->brows; r++)
    for (guint64 c = 0; c < mask->bcols; c += m)
      {
        guint64 len = MIN (m, mask->bcols - c);
        guint64 k = spx_gen_nm_group_keeps (o, len);
        guint64 at = spx_mask_index (mask, r, c);
        if (len <= 64)
          or_bits (mask->bits, at, floyd_word (len, k, &g->rng), len);
        else if (!sample_range (mask->bits, at, len, k, g))
          return FALSE;
        if (spx_gen_stop (g, 1 + k))
          return FALSE;
      }
  return TRUE;
}

/* Row i is centred on floor((i + 0.5)·bcols/brows), in integers; the
 * window is [centre − band/2, centre − band/2 + band), clipped. */
gboolean
spx_gen_banded (SpxMask *mask, const SpxGenOptions *o, SpxGen *g)
{
  guint64 bcols = mask->bcols, band = o->band;
  if (band == 0)
    band = MAX (spx_gen_count_for_density (o->density, bcols), 1);
  band = MIN (band, 2 * bcols + 1); /* wider covers every row anyway */
  for (guint64 i = 0; i < mask->brows; i++)
    {
      gint64 centre = (gint64) ((2 * i + 1) * bcols / (2 * mask->brows));
      gint64 start = centre - (gint64) (band / 2);
      gint64 end = MIN (start + (gint64) band, (gint64) bcols);
      start = MAX (start, 0);
      if (end > start)
        set_range (mask->bits, spx_mask_index (mask, i, (guint64) start),
                   (guint64) (end - start));
      if (spx_gen_stop (g, 1 + (guint64) MAX (end - start, 0) / 64))
        return FALSE;
    }
  return TRUE;
}

/* Scratch of skewed_counts: four arrays of 8 bytes per block-row. */
typedef struct {
  double  *w, *suffix;
  guint64 *counts, *keys;
} Skew;

/* A row's fraction as a selection key above every row that may not take
 * one more block (key 0): a non-negative double orders like its bits. */
static guint64
fraction_key (double frac)
{
  guint64 bits;
  memcpy (&bits, &frac, sizeof bits);
  return bits + 1;
}

/* Largest-remainder rounding of rem·w[r]/wsum over ranks [p, n): floors,
 * then +1 to the largest fractions (ties: heavier rank), none past cap.
 * Keeps counts non-increasing in rank when w is. The fractions are ranked
 * by radix selection, not sorted: linear, polled, and no sort's scratch.
 * *left gets rem − Σ counts. */
static gboolean
apportion (Skew *s, double wsum, guint64 p, guint64 n, guint64 rem,
           guint64 cap, gint64 *left, SpxGen *g)
{
  guint64 *counts = s->counts, *keys = s->keys, open = 0, top = 0, ties = 0;
  gint64 l = (gint64) rem;
  for (guint64 r = p; r < n; r++)
    {
      double ideal = wsum > 0 ? (double) rem * s->w[r] / wsum : 0.0;
      ideal = MIN (ideal, (double) cap);
      counts[r] = (guint64) floor (ideal);
      l -= (gint64) counts[r];
      keys[r - p] = counts[r] < cap ? fraction_key (ideal - floor (ideal)) : 0;
      open += counts[r] < cap;
      if (spx_gen_stop (g, 1))
        return FALSE;
    }
  guint64 k = l > 0 ? MIN ((guint64) l, open) : 0;
  SpxGenKeys fractions = { .raw = keys, .n = n - p };
  if (k > 0 && !spx_gen_kth_largest_key (&fractions, k, &top, &ties, g))
    return FALSE;
  for (guint64 i = 0; k > 0 && i < n - p; i++)
    {
      gboolean tie = keys[i] == top && ties > 0;
      counts[p + i] += keys[i] > top || tie;
      ties -= tie;
    }
  *left = l - (gint64) k;
  return TRUE;
}

/* Rounding slack (only from float error or underflowed weights): fill
 * the heaviest non-full rows, or trim the lightest non-empty ones; both
 * keep the counts non-increasing and make the total exact. */
static void
fix_total (guint64 *counts, guint64 n, gint64 left, guint64 cap)
{
  for (guint64 r = 0; r < n && left > 0; r++)
    {
      guint64 add = MIN (cap - counts[r], (guint64) left);
      counts[r] += add;
      left -= (gint64) add;
    }
  for (guint64 r = n; r > 0 && left < 0; r--)
    {
      guint64 sub = MIN (counts[r - 1], (guint64) -left);
      counts[r - 1] -= sub;
      left += (gint64) sub;
    }
}

/* Blocks per rank r ∝ (r+1)^−exponent, total exactly `total`, none over
 * cap, into s->counts. Rows whose share would exceed cap form a prefix
 * (weights decrease); they are capped and the rest is shared among the
 * others. pow() is the one libm dependence: an ulp there could move a
 * remainder tie. */
static gboolean
skewed_counts (Skew *s, guint64 n, guint64 cap, guint64 total,
               double exponent, SpxGen *g)
{
  double *w = s->w, *suffix = s->suffix;
  guint64 *counts = s->counts, p = 0, rem = total;
  for (guint64 r = 0; r < n; r++)
    {
      w[r] = exponent == 0.0 ? 1.0 : pow ((double) (r + 1), -exponent);
      if (spx_gen_stop (g, 1))
        return FALSE;
    }
  suffix[n] = 0.0;
  for (guint64 r = n; r > 0; r--) /* smallest first: less rounding */
    suffix[r - 1] = suffix[r] + w[r - 1];
  while (p < n && rem > cap && (double) rem * w[p] / suffix[p] > (double) cap)
    {
      counts[p++] = cap;
      rem -= cap;
    }
  gint64 left = (gint64) rem;
  if (spx_gen_stop (g, n) ||
      (p < n && !apportion (s, suffix[p], p, n, rem, cap, &left, g)))
    return FALSE;
  fix_total (counts, n, left, cap);
  return !spx_gen_stop (g, n);
}

gboolean
spx_gen_skewed (SpxMask *mask, const SpxGenOptions *o, SpxGen *g)
{
  guint64 n = mask->brows;
  guint64 total = spx_gen_count_for_density (o->density,
                                             spx_mask_n_blocks (mask));
  guint64 per_row = 4 * sizeof (guint64);
  if (!spx_gen_budget (g, n < G_MAXUINT64 / per_row ? (n + 1) * per_row
                                                    : G_MAXUINT64))
    return FALSE;
  g_autofree double *w = spx_gen_alloc0 (g, n, sizeof (double));
  g_autofree double *suffix = spx_gen_alloc0 (g, n + 1, sizeof (double));
  g_autofree guint64 *counts = spx_gen_alloc0 (g, n, sizeof (guint64));
  g_autofree guint64 *keys = spx_gen_alloc0 (g, n, sizeof (guint64));
  Skew s = { w, suffix, counts, keys };
  if (g->failed || !skewed_counts (&s, n, mask->bcols, total, o->exponent, g)
      || !shuffle (counts, n, g)) /* row r now gets counts[r] */
    return FALSE;
  for (guint64 r = 0; r < n; r++)
    if (!sample_range (mask->bits, spx_mask_index (mask, r, 0), mask->bcols,
                       counts[r], g))
      return FALSE;
  return TRUE;
}
