/* spx-mask-gen.c: seeded mask generators and magnitude pruning
 *
 * Every choice is driven by SpxRng and integer arithmetic, so the same
 * options give the same mask on every machine. The exceptions are noted
 * where they occur (skewed weights and normal values go through libm). */
#include "spx-mask-gen.h"
#include "spx-util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Pattern "magnitude" in spx_mask_generate draws every element: keep that
 * bounded (2^28 normals take a few seconds). */
#define MAGNITUDE_MAX_ELEMENTS (G_GUINT64_CONSTANT (1) << 28)

/* ------------------------------------------------------------------ */
/* Random numbers                                                      */

static guint64
splitmix64 (guint64 *state)
{
  guint64 z = (*state += G_GUINT64_CONSTANT (0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94d049bb133111eb);
  return z ^ (z >> 31);
}

static inline guint64
rotl (guint64 x, int k)
{
  return (x << k) | (x >> (64 - k));
}

/* splitmix64 is a bijection of its counter, so four consecutive outputs are
 * never all zero: xoshiro's one forbidden state cannot occur. */
void
spx_rng_init (SpxRng *rng, guint64 seed)
{
  guint64 state = seed;
  for (int i = 0; i < 4; i++)
    rng->s[i] = splitmix64 (&state);
}

guint64
spx_rng_next (SpxRng *rng)
{
  guint64 *s = rng->s;
  guint64 result = rotl (s[1] * 5, 7) * 9;
  guint64 t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl (s[3], 45);
  return result;
}

/* Full 64×64 → 128-bit product in portable C (one code path everywhere,
 * so the tested path is the shipped one). Returns the high half. */
static inline guint64
mul_wide (guint64 a, guint64 b, guint64 *lo)
{
  guint64 a0 = a & 0xffffffffu, a1 = a >> 32;
  guint64 b0 = b & 0xffffffffu, b1 = b >> 32;
  guint64 p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  guint64 mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
  *lo = (mid << 32) | (p00 & 0xffffffffu);
  return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

/* Lemire's multiply-shift: the high half of x·bound is uniform on
 * [0, bound) once the few low halves below 2^64 mod bound are rejected. */
guint64
spx_rng_below (SpxRng *rng, guint64 bound)
{
  g_return_val_if_fail (bound > 0, 0);
  guint64 lo, hi = mul_wide (spx_rng_next (rng), bound, &lo);
  if (lo < bound)
    {
      guint64 threshold = (0 - bound) % bound;
      while (lo < threshold)
        hi = mul_wide (spx_rng_next (rng), bound, &lo);
    }
  return hi;
}

double
spx_rng_uniform (SpxRng *rng)
{
  return (double) (spx_rng_next (rng) >> 11) * 0x1.0p-53;
}

/* Marsaglia's polar method: the accept/reject test uses only exact IEEE
 * operations, so every machine consumes the same draws; only log() may
 * differ in the last ulp between libms. The second value is dropped
 * because SpxRng has nowhere to keep it. */
double
spx_rng_normal (SpxRng *rng)
{
  double u, v, s;
  do
    {
      u = 2.0 * spx_rng_uniform (rng) - 1.0;
      v = 2.0 * spx_rng_uniform (rng) - 1.0;
      s = u * u + v * v;
    }
  while (s >= 1.0 || s == 0.0);
  return u * sqrt (-2.0 * log (s) / s);
}

/* A tail ends where its weights fall below 2^-64 of the mode's. */
#define TAIL_EPSILON 0x1p-64

/* x of the k chosen among len in a sample of the first n: the support
 * [lo, hi] and a start x0 at the mode. */
typedef struct {
  guint64 len, k, n, lo, hi, x0;
} Hyper;

static double
hyper_up (const Hyper *h, guint64 x) /* weight of x + 1 over x's */
{
  return (double) (h->k - x) / (double) (x + 1) * (double) (h->n - x) /
         (double) ((h->len - h->k) - (h->n - x) + 1);
}

static double
hyper_down (const Hyper *h, guint64 x) /* weight of x − 1 over x's */
{
  return (double) x / (double) (h->k - x + 1) *
         (double) ((h->len - h->k) - (h->n - x)) / (double) (h->n - x + 1);
}

/* Adds the weights (x0's is 1) in one fixed order, x0, then up, then down,
 * until the running sum passes target: returns the sum, *at the last x
 * added. The sum (target ∞) and the draw walk the same terms. A product
 * and a sum are never one expression, where a compiler could fuse them. */
static double
hyper_walk (const Hyper *h, double target, guint64 *at)
{
  double acc = 1.0, w = 1.0;
  *at = h->x0;
  for (guint64 x = h->x0; acc <= target && x < h->hi && w >= TAIL_EPSILON;
       x++, *at = x)
    {
      w *= hyper_up (h, x);
      acc += w;
    }
  w = 1.0;
  for (guint64 x = h->x0; acc <= target && x > h->lo && w >= TAIL_EPSILON;
       x--, *at = x)
    {
      w *= hyper_down (h, x);
      acc += w;
    }
  return acc;
}

/* By inversion: only IEEE-exact operations in a fixed order, so every
 * machine draws the same count. */
guint64
spx_rng_hypergeometric (SpxRng *rng, guint64 len, guint64 k, guint64 n)
{
  g_return_val_if_fail (k <= len && n <= len, 0);
  Hyper h = { len, k, n, n > len - k ? n - (len - k) : 0, MIN (n, k), 0 };
  if (h.lo == h.hi)
    return h.lo;
  double mode = ((double) n + 1) * ((double) k + 1) / ((double) len + 2);
  h.x0 = CLAMP ((guint64) mode, h.lo, h.hi);
  double u = spx_rng_uniform (rng);
  guint64 x;
  double total = hyper_walk (&h, INFINITY, &x);
  hyper_walk (&h, u * total, &x);
  return x;
}

/* ------------------------------------------------------------------ */
/* Options                                                             */

static const char *const pattern_names[] = {
  [SPX_PATTERN_UNIFORM] = "uniform",
  [SPX_PATTERN_TILEWISE] = "tilewise",
  [SPX_PATTERN_NM] = "nm",
  [SPX_PATTERN_BANDED] = "banded",
  [SPX_PATTERN_SKEWED] = "skewed",
  [SPX_PATTERN_MAGNITUDE] = "magnitude",
};

void
spx_gen_options_init (SpxGenOptions *options)
{
  memset (options, 0, sizeof *options);
  options->pattern = SPX_PATTERN_UNIFORM;
  options->density = 0.1;
  options->seed = 1;
  options->tile_width = 128;
  options->nm_n = 2;
  options->nm_m = 4;
  options->band = 0;
  options->exponent = 1.0;
}

const char *
spx_pattern_to_string (SpxPattern pattern)
{
  if ((guint) pattern >= G_N_ELEMENTS (pattern_names))
    return NULL;
  return pattern_names[pattern];
}

char *
spx_pattern_list (guint only)
{
  const char *names[G_N_ELEMENTS (pattern_names) + 1] = { NULL };
  guint n = 0;
  for (guint p = 0; p < G_N_ELEMENTS (pattern_names); p++)
    if (only == 0 || (only & (1u << p)))
      names[n++] = pattern_names[p];
  return spx_join_choices (names, n);
}

gboolean
spx_pattern_from_string (const char *name, SpxPattern *pattern)
{
  if (name == NULL)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (pattern_names); i++)
    if (strcmp (name, pattern_names[i]) == 0)
      {
        *pattern = (SpxPattern) i;
        return TRUE;
      }
  return FALSE;
}

static gboolean
check_density (double density, GError **error)
{
  if (isfinite (density) && density >= 0.0 && density <= 1.0)
    return TRUE;
  g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
               "density %g: expected a number from 0 to 1", density);
  return FALSE;
}

/* Only the fields the chosen pattern reads are checked. */
static gboolean
check_options (const SpxGenOptions *o, GError **error)
{
  const char *name = spx_pattern_to_string (o->pattern);
  if (name == NULL)
    {
      g_autofree char *names = spx_pattern_list (0);
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
                   "pattern %d: expected %s", (int) o->pattern, names);
      return FALSE;
    }
  if (o->pattern != SPX_PATTERN_NM && !check_density (o->density, error))
    return FALSE;
  if (o->pattern == SPX_PATTERN_TILEWISE && o->tile_width == 0)
    {
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
                   "tile width 0: expected at least 1 element");
      return FALSE;
    }
  if (o->pattern == SPX_PATTERN_NM && (o->nm_m == 0 || o->nm_n > o->nm_m))
    {
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
                   "N:M %u:%u: expected M ≥ 1 and N ≤ M", o->nm_n, o->nm_m);
      return FALSE;
    }
  if (o->pattern == SPX_PATTERN_SKEWED &&
      !(isfinite (o->exponent) && o->exponent >= 0.0))
    {
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
                   "skew exponent %g: expected a finite number ≥ 0",
                   o->exponent);
      return FALSE;
    }
  return TRUE;
}

/* round(density·n), half away from zero; density is in [0, 1]. */
static guint64
count_for_density (double density, guint64 n)
{
  return MIN ((guint64) round (density * (double) n), n);
}

/* ------------------------------------------------------------------ */
/* Work in progress: the generator, polls and scratch memory           */

/* Loops poll spx_cancelled after about this much work (draws, or words
 * written): well under a millisecond between polls. */
#define POLL_WORK 16384

/* One generation: its random numbers, the work since the last poll, and
 * where a refusal or a cancellation goes. */
typedef struct {
  SpxRng        rng;
  guint64       work;
  const SpxMask *mask;
  const char   *what;   /* "generated skewed", for messages */
  gboolean      failed; /* an allocation failed: the error is set */
  GError      **error;
} Gen;

/* Counts units of work done; TRUE (with the CANCELLED error) once the
 * caller has given up. */
static inline gboolean
gen_stop (Gen *g, guint64 units)
{
  g->work += units;
  if (g->work < POLL_WORK)
    return FALSE;
  g->work = 0;
  return spx_cancelled (g->error);
}

/* Scratch memory is checked against the budget together with the mask
 * it serves, before any of it is asked for. */
static gboolean
gen_budget (Gen *g, guint64 scratch_bytes)
{
  const SpxMask *m = g->mask;
  guint64 bytes = m->n_words * sizeof (guint64);
  bytes = scratch_bytes > G_MAXUINT64 - bytes ? G_MAXUINT64
                                              : bytes + scratch_bytes;
  g_autofree char *what = g_strdup_printf (
    "the %s mask of %" G_GUINT64_FORMAT "×%" G_GUINT64_FORMAT " blocks",
    g->what, m->brows, m->bcols);
  return spx_budget_check (bytes, what, g->error);
}

/* count × size bytes of scratch, already within the budget (gen_budget);
 * NULL and g->failed, with one error, if the system has less than that. */
static gpointer
gen_alloc0 (Gen *g, guint64 count, gsize size)
{
  if (g->failed)
    return NULL;
  g_autofree char *what = g_strdup_printf ("the %s mask's scratch",
                                           g->what);
  gpointer p = spx_budget_alloc0 (count, size, what, g->error);
  g->failed = p == NULL;
  return p;
}

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
floyd_range (guint64 *bits, guint64 start, guint64 len, guint64 k, Gen *g)
{
  gboolean invert = k > len / 2;
  if (invert)
    {
      set_range (bits, start, len);
      k = len - k;
    }
  if (gen_stop (g, 1 + (invert ? len / 64 : 0)))
    return FALSE;
  for (guint64 j = len - k; j < len; j++)
    {
      guint64 t = spx_rng_below (&g->rng, j + 1);
      gboolean taken = bit_get (bits, start + t) != invert;
      bit_toggle (bits, start + (taken ? j : t));
      if (gen_stop (g, 1))
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
bernoulli_range (guint64 *bits, guint64 start, guint64 len, guint q, Gen *g)
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
dense_range (guint64 *bits, guint64 start, guint64 len, guint64 k, Gen *g)
{
  guint q = (guint) ((k * 256 + len / 2) / len); /* 16 ≤ q ≤ 240 */
  guint64 count = bernoulli_range (bits, start, len, q, g);
  if (gen_stop (g, len / 64))
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
      if (gen_stop (g, 1))
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
sample_range (guint64 *bits, guint64 start, guint64 len, guint64 k, Gen *g)
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
shuffle (guint64 *v, guint64 n, Gen *g)
{
  for (guint64 i = n; i > 1; i--)
    {
      guint64 j = spx_rng_below (&g->rng, i), tmp = v[i - 1];
      v[i - 1] = v[j];
      v[j] = tmp;
      if (gen_stop (g, 1))
        return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Selecting the largest keys                                          */

/* What a selection ranks: magnitude's block norms, or for block 1 the
 * values themselves (a float squares exactly in a double, so |v| orders
 * exactly like v², and the largest case needs no 8-byte-per-element norm
 * array); or keys made by the caller (raw). */
typedef struct {
  const double  *norms;
  const float   *values;
  const guint64 *raw;
  guint64        n;
} Keys;

/* |x| as bits: non-negative floats and doubles order like their bit
 * patterns; NaNs sort above infinity. */
static inline guint64
key_at (const Keys *keys, guint64 i)
{
  if (keys->raw != NULL)
    return keys->raw[i];
  if (keys->values != NULL)
    {
      guint32 k;
      memcpy (&k, &keys->values[i], sizeof k);
      return k & 0x7fffffffu;
    }
  guint64 k;
  memcpy (&k, &keys->norms[i], sizeof k);
  return k & ~(G_GUINT64_CONSTANT (1) << 63);
}

static guint
key_bits (const Keys *keys)
{
  return keys->values != NULL ? 32 : 64;
}

/* Index of the first NaN key, or n; *at is untouched when cancelled. */
static gboolean
find_nan (const Keys *keys, guint64 *at, Gen *g)
{
  guint64 inf = keys->values != NULL ? G_GUINT64_CONSTANT (0x7f800000)
                                     : G_GUINT64_CONSTANT (0x7ff0000000000000);
  guint64 found = 0;
  for (guint64 i0 = 0; i0 < keys->n; i0 += POLL_WORK)
    {
      guint64 end = MIN (i0 + POLL_WORK, keys->n);
      for (guint64 i = i0; i < end; i++)
        found |= key_at (keys, i) > inf;
      if (gen_stop (g, end - i0))
        return FALSE;
    }
  guint64 i = 0;
  while (found && key_at (keys, i) <= inf)
    i++;
  *at = found ? i : keys->n;
  return TRUE;
}

/* One radix pass: how many keys with the given high bits (prefix) have
 * each 16-bit digit at shift. */
static gboolean
histogram (const Keys *keys, int shift, guint64 prefix, guint64 *hist,
           Gen *g)
{
  guint64 high = shift + 16 >= 64 ? 0 : ~G_GUINT64_CONSTANT (0) << (shift + 16);
  memset (hist, 0, 0x10000 * sizeof (guint64));
  for (guint64 i0 = 0; i0 < keys->n; i0 += POLL_WORK)
    {
      guint64 end = MIN (i0 + POLL_WORK, keys->n);
      for (guint64 i = i0; i < end; i++)
        {
          guint64 key = key_at (keys, i);
          hist[(key >> shift) & 0xffff] += (key & high) == prefix;
        }
      if (gen_stop (g, end - i0))
        return FALSE;
    }
  return TRUE;
}

/* The k-th largest key (k ≥ 1), by MSD radix selection on 16-bit digits:
 * one linear pass per digit, no copy, and no quickselect worst case on the
 * many equal norms of an already sparse matrix. Keys outside the current
 * prefix add 0 rather than branch (the branch mispredicts half the time).
 * *ties gets how many keys equal to the result belong to the top k. */
static gboolean
kth_largest_key (const Keys *keys, guint64 k, guint64 *key, guint64 *ties,
                 Gen *g)
{
  g_autofree guint64 *hist = g_new (guint64, 0x10000); /* 512 KiB, fixed */
  guint64 prefix = 0, want = k;
  for (int shift = (int) key_bits (keys) - 16; shift >= 0; shift -= 16)
    {
      if (!histogram (keys, shift, prefix, hist, g))
        return FALSE;
      guint digit = 0xffff;
      for (; hist[digit] < want; digit--)
        want -= hist[digit];
      prefix |= (guint64) digit << shift;
    }
  *key = prefix;
  *ties = want;
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Patterns                                                            */

static gboolean
gen_uniform (SpxMask *mask, const SpxGenOptions *o, Gen *g)
{
  guint64 n = spx_mask_n_blocks (mask);
  return sample_range (mask->bits, 0, n, count_for_density (o->density, n),
                       g);
}

/* Set the kept block-rows × the listed block-columns of one tile. */
static gboolean
fill_tile (SpxMask *mask, const guint64 *rows, const guint64 *cols,
           guint64 n_cols, Gen *g)
{
  for (guint64 w = 0; w < bitset_words (mask->brows); w++)
    {
      for (guint64 word = rows[w]; word != 0; word &= word - 1)
        {
          guint64 r = w * 64 + (guint64) __builtin_ctzll (word);
          for (guint64 i = 0; i < n_cols; i++)
            spx_mask_set (mask, r, cols[i]);
          if (gen_stop (g, n_cols))
            return FALSE;
        }
      if (gen_stop (g, 1))
        return FALSE;
    }
  return TRUE;
}

/* The kept block-columns, cut into tiles of per_tile (the last one may
 * be short), each with its own random block-rows. */
static gboolean
fill_tiles (SpxMask *mask, const guint64 *colset, guint64 *rowset,
            guint64 *tile, guint64 per_tile, guint64 kr, Gen *g)
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
      if (gen_stop (g, 1))
        return FALSE;
    }
  return TRUE;
}

/* TW (Guo et al.): keep sqrt(d) of the block-columns, cut the survivors
 * into tiles of tile_width elements, and give each tile its own random
 * sqrt(d) of the block-rows. A uniform random column subset has the same
 * law as "top k of i.i.d. random scores", without float ties. */
static void
tilewise_counts (double density, guint64 brows, guint64 bcols, guint64 *kr,
                 guint64 *kc)
{
  double keep = sqrt (density);
  *kc = count_for_density (keep, bcols);
  *kr = count_for_density (keep, brows);
}

static gboolean
gen_tilewise (SpxMask *mask, const SpxGenOptions *o, Gen *g)
{
  guint64 kc, kr;
  tilewise_counts (o->density, mask->brows, mask->bcols, &kr, &kc);
  guint64 per_tile = MAX (1u, o->tile_width / mask->block);
  per_tile = MIN (per_tile, mask->bcols);

  /* A tile never holds more than the kc kept columns. */
  guint64 tile_len = MAX (MIN (per_tile, kc), 1);
  guint64 words = bitset_words (mask->bcols) + bitset_words (mask->brows);
  if (!gen_budget (g, (words + tile_len) * sizeof (guint64)))
    return FALSE;
  g_autofree guint64 *colset = gen_alloc0 (g, bitset_words (mask->bcols),
                                           sizeof (guint64));
  g_autofree guint64 *rowset = gen_alloc0 (g, bitset_words (mask->brows),
                                           sizeof (guint64));
  g_autofree guint64 *tile = gen_alloc0 (g, tile_len, sizeof (guint64));
  return !g->failed && sample_range (colset, 0, mask->bcols, kc, g) &&
         fill_tiles (mask, colset, rowset, tile, per_tile, kr, g);
}

/* What a group of len ≤ M blocks keeps: N, or round(N·len/M) for a
 * final short one, in integers (len < bcols < 2^31, so no overflow). */
static guint64
nm_group_keeps (const SpxGenOptions *o, guint64 len)
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
static gboolean
gen_nm (SpxMask *mask, const SpxGenOptions *o, Gen *g)
{
  guint64 m = o->nm_m;
  if (o->nm_n == 0) /* keeps nothing and draws nothing */
    return TRUE;
  for (guint64 r = 0; r < mask->brows; r++)
    for (guint64 c = 0; c < mask->bcols; c += m)
      {
        guint64 len = MIN (m, mask->bcols - c);
        guint64 k = nm_group_keeps (o, len), at = spx_mask_index (mask, r, c);
        if (len <= 64)
          or_bits (mask->bits, at, floyd_word (len, k, &g->rng), len);
        else if (!sample_range (mask->bits, at, len, k, g))
          return FALSE;
        if (gen_stop (g, 1 + k))
          return FALSE;
      }
  return TRUE;
}

/* Row i is centred on floor((i + 0.5)·bcols/brows), in integers; the
 * window is [centre − band/2, centre − band/2 + band), clipped. */
static gboolean
gen_banded (SpxMask *mask, const SpxGenOptions *o, Gen *g)
{
  guint64 bcols = mask->bcols, band = o->band;
  if (band == 0)
    band = MAX (count_for_density (o->density, bcols), 1);
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
      if (gen_stop (g, 1 + (guint64) MAX (end - start, 0) / 64))
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
           guint64 cap, gint64 *left, Gen *g)
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
      if (gen_stop (g, 1))
        return FALSE;
    }
  guint64 k = l > 0 ? MIN ((guint64) l, open) : 0;
  Keys fractions = { .raw = keys, .n = n - p };
  if (k > 0 && !kth_largest_key (&fractions, k, &top, &ties, g))
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
               double exponent, Gen *g)
{
  double *w = s->w, *suffix = s->suffix;
  guint64 *counts = s->counts, p = 0, rem = total;
  for (guint64 r = 0; r < n; r++)
    {
      w[r] = exponent == 0.0 ? 1.0 : pow ((double) (r + 1), -exponent);
      if (gen_stop (g, 1))
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
  if (gen_stop (g, n) ||
      (p < n && !apportion (s, suffix[p], p, n, rem, cap, &left, g)))
    return FALSE;
  fix_total (counts, n, left, cap);
  return !gen_stop (g, n);
}

static gboolean
gen_skewed (SpxMask *mask, const SpxGenOptions *o, Gen *g)
{
  guint64 n = mask->brows;
  guint64 total = count_for_density (o->density, spx_mask_n_blocks (mask));
  guint64 per_row = 4 * sizeof (guint64);
  if (!gen_budget (g, n < G_MAXUINT64 / per_row ? (n + 1) * per_row
                                                : G_MAXUINT64))
    return FALSE;
  g_autofree double *w = gen_alloc0 (g, n, sizeof (double));
  g_autofree double *suffix = gen_alloc0 (g, n + 1, sizeof (double));
  g_autofree guint64 *counts = gen_alloc0 (g, n, sizeof (guint64));
  g_autofree guint64 *keys = gen_alloc0 (g, n, sizeof (guint64));
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

/* ------------------------------------------------------------------ */
/* Magnitude                                                           */

/* Add the squares of one element row into its block-row's norms. Both the
 * pruner and the generator go through here, in the same order, so their
 * sums are bit-identical. */
static void
add_row_norms (double *norms, const float *row, guint64 cols, guint block)
{
  for (guint64 c0 = 0, bc = 0; c0 < cols; c0 += block, bc++)
    {
      guint64 c1 = MIN (c0 + block, cols);
      double s = 0.0;
      for (guint64 c = c0; c < c1; c++)
        s += (double) row[c] * (double) row[c];
      norms[bc] += s;
    }
}

/* Whole words without branches first, then the ties in index order. */
static gboolean
set_above (SpxMask *mask, const Keys *keys, guint64 threshold, guint64 ties,
           Gen *g)
{
  guint64 n = keys->n;
  for (guint64 w = 0; w < mask->n_words; w++)
    {
      guint64 word = 0, end = MIN (n, w * 64 + 64);
      for (guint64 i = w * 64; i < end; i++)
        word |= (guint64) (key_at (keys, i) > threshold) << (i & 63);
      mask->bits[w] = word;
      if (gen_stop (g, 64))
        return FALSE;
    }
  for (guint64 i = 0; ties > 0; i++)
    if (key_at (keys, i) == threshold)
      {
        spx_mask_set_flat (mask, i);
        ties--;
      }
  return TRUE;
}

/* Set the round(density·n) blocks of largest key; ties go to the lower
 * flat index. */
static gboolean
keep_largest (SpxMask *mask, const Keys *keys, double density, Gen *g)
{
  guint64 n = keys->n, k = count_for_density (density, n), nan = n;
  if (!find_nan (keys, &nan, g))
    return FALSE;
  if (nan < n)
    {
      g_set_error (g->error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
                   "values: block (%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
                   ") contains NaN; expected numbers",
                   nan / mask->bcols, nan % mask->bcols);
      return FALSE;
    }
  if (k == 0)
    return TRUE;
  guint64 ties, threshold;
  return kth_largest_key (keys, k, &threshold, &ties, g) &&
         set_above (mask, keys, threshold, ties, g);
}

/* One double per block, within the budget with the mask. */
static double *
norms_new (Gen *g)
{
  guint64 n = spx_mask_n_blocks (g->mask);
  if (!gen_budget (g, n * sizeof (double)))
    return NULL;
  return gen_alloc0 (g, n, sizeof (double));
}

/* Prune a row-major matrix with the shape of mask into mask. */
static gboolean
prune_into (SpxMask *mask, const float *values, double density, Gen *g)
{
  Keys keys = { .values = values, .n = spx_mask_n_blocks (mask) };
  if (mask->block == 1)
    return keep_largest (mask, &keys, density, g);
  g_autofree double *norms = norms_new (g);
  if (norms == NULL)
    return FALSE;
  for (guint64 r = 0; r < mask->rows; r++)
    {
      add_row_norms (norms + (r / mask->block) * mask->bcols,
                     values + r * mask->cols, mask->cols, mask->block);
      if (gen_stop (g, mask->cols / 64 + 1))
        return FALSE;
    }
  keys = (Keys) { .norms = norms, .n = keys.n };
  return keep_largest (mask, &keys, density, g);
}

SpxMask *
spx_mask_prune_magnitude (const float *values, guint64 rows, guint64 cols,
                          guint block, double density, GError **error)
{
  g_return_val_if_fail (values != NULL, NULL);
  if (!check_density (density, error))
    return NULL;
  g_autoptr(SpxMask) mask = spx_mask_new (rows, cols, block, error);
  if (mask == NULL)
    return NULL;
  Gen g = { .mask = mask, .what = "magnitude-pruned", .error = error };
  if (!prune_into (mask, values, density, &g))
    return NULL;
  return g_steal_pointer (&mask);
}

/* Block 1: draw the whole matrix (4 bytes an element) and prune it. */
static gboolean
gen_magnitude_elements (SpxMask *mask, const SpxGenOptions *o, Gen *g)
{
  guint64 n = mask->rows * mask->cols;
  if (!gen_budget (g, n * sizeof (float)))
    return FALSE;
  g_autofree float *values = gen_alloc0 (g, n, sizeof (float));
  if (values == NULL)
    return FALSE;
  for (guint64 i = 0; i < n; i++)
    {
      values[i] = (float) spx_rng_normal (&g->rng);
      if (gen_stop (g, 1))
        return FALSE;
    }
  return prune_into (mask, values, o->density, g);
}

/* Same result as pruning a rows×cols matrix of spx_rng_normal draws
 * (row-major); for blocks over 1 only block norms are kept, filled one
 * element row at a time. */
static gboolean
gen_magnitude (SpxMask *mask, const SpxGenOptions *o, Gen *g)
{
  if (mask->rows * mask->cols > MAGNITUDE_MAX_ELEMENTS)
    {
      g_set_error (g->error, SPX_MASK_ERROR, SPX_MASK_ERROR_TOO_LARGE,
                   "magnitude pattern of %" G_GUINT64_FORMAT "×%"
                   G_GUINT64_FORMAT " elements: at most %" G_GUINT64_FORMAT
                   " random values are drawn; prune real weights with "
                   "spx_mask_prune_magnitude instead",
                   mask->rows, mask->cols, MAGNITUDE_MAX_ELEMENTS);
      return FALSE;
    }
  if (mask->block == 1)
    return gen_magnitude_elements (mask, o, g);
  /* norms, and one row of values (cols ≤ 2^28 here) */
  if (!gen_budget (g, spx_mask_n_blocks (mask) * sizeof (double) +
                        mask->cols * sizeof (float)))
    return FALSE;
  g_autofree double *norms = gen_alloc0 (g, spx_mask_n_blocks (mask),
                                         sizeof (double));
  g_autofree float *row = gen_alloc0 (g, mask->cols, sizeof (float));
  if (g->failed)
    return FALSE;
  for (guint64 r = 0; r < mask->rows; r++)
    {
      for (guint64 c = 0; c < mask->cols; c++)
        row[c] = (float) spx_rng_normal (&g->rng);
      add_row_norms (norms + (r / mask->block) * mask->bcols, row,
                     mask->cols, mask->block);
      if (gen_stop (g, mask->cols))
        return FALSE;
    }
  Keys keys = { .norms = norms, .n = spx_mask_n_blocks (mask) };
  return keep_largest (mask, &keys, o->density, g);
}

static gboolean
run_pattern (SpxMask *mask, const SpxGenOptions *o, Gen *g)
{
  switch (o->pattern)
    {
    case SPX_PATTERN_UNIFORM:
      return gen_uniform (mask, o, g);
    case SPX_PATTERN_TILEWISE:
      return gen_tilewise (mask, o, g);
    case SPX_PATTERN_NM:
      return gen_nm (mask, o, g);
    case SPX_PATTERN_BANDED:
      return gen_banded (mask, o, g);
    case SPX_PATTERN_SKEWED:
      return gen_skewed (mask, o, g);
    case SPX_PATTERN_MAGNITUDE:
    default:
      return gen_magnitude (mask, o, g);
    }
}

gboolean
spx_gen_keeps_any (guint64 brows, guint64 bcols, const SpxGenOptions *o)
{
  guint64 kr, kc;
  switch (o->pattern)
    {
    case SPX_PATTERN_TILEWISE:
      tilewise_counts (o->density, brows, bcols, &kr, &kc);
      return kr > 0 && kc > 0;
    case SPX_PATTERN_NM: /* the first group is the longest */
      return brows > 0 && nm_group_keeps (o, MIN (o->nm_m, bcols)) > 0;
    case SPX_PATTERN_BANDED: /* a band is at least one block wide */
      return brows > 0 && bcols > 0;
    case SPX_PATTERN_UNIFORM:
    case SPX_PATTERN_SKEWED:
    case SPX_PATTERN_MAGNITUDE:
    default:
      return count_for_density (o->density, brows * bcols) > 0;
    }
}

SpxMask *
spx_mask_generate (guint64 rows, guint64 cols, guint block,
                   const SpxGenOptions *options, GError **error)
{
  g_return_val_if_fail (options != NULL, NULL);
  if (!check_options (options, error))
    return NULL;
  g_autoptr(SpxMask) mask = spx_mask_new (rows, cols, block, error);
  if (mask == NULL)
    return NULL;
  g_autofree char *what = g_strdup_printf (
    "generated %s", spx_pattern_to_string (options->pattern));
  Gen g = { .mask = mask, .what = what, .error = error };
  spx_rng_init (&g.rng, options->seed);
  if (!run_pattern (mask, options, &g))
    return NULL;
  return g_steal_pointer (&mask);
}
