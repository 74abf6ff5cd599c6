/* spx-mask-gen.c: the random numbers, the patterns' names and options,
 * and spx_mask_generate, which runs a pattern's generator */
#include "spx-mask-gen-private.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Random numbers                                                      */

/* Every choice is driven by SpxRng and integer arithmetic, so the same
 * options give the same mask on every machine. The exceptions are noted
 * where they occur (skewed weights and normal values go through libm). */

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

gboolean
spx_gen_check_density (double density, GError **error)
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
  if (o->pattern != SPX_PATTERN_NM &&
      !spx_gen_check_density (o->density, error))
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

/* ------------------------------------------------------------------ */
/* The generation's budget and scratch                                */

/* Scratch memory is checked against the budget together with the mask
 * it serves, before any of it is asked for. */
gboolean
spx_gen_budget (SpxGen *g, guint64 scratch_bytes)
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

/* count × size bytes of scratch, already within the budget (spx_gen_budget);
 * NULL and g->failed, with one error, if the system has less than that. */
gpointer
spx_gen_alloc0 (SpxGen *g, guint64 count, gsize size)
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
/* Generating                                                          */

static gboolean
run_pattern (SpxMask *mask, const SpxGenOptions *o, SpxGen *g)
{
  switch (o->pattern)
    {
    case SPX_PATTERN_UNIFORM:
      return spx_gen_uniform (mask, o, g);
    case SPX_PATTERN_TILEWISE:
      return spx_gen_tilewise (mask, o, g);
    case SPX_PATTERN_NM:
      return spx_gen_nm (mask, o, g);
    case SPX_PATTERN_BANDED:
      return spx_gen_banded (mask, o, g);
    case SPX_PATTERN_SKEWED:
      return spx_gen_skewed (mask, o, g);
    case SPX_PATTERN_MAGNITUDE:
    default:
      return spx_gen_magnitude (mask, o, g);
    }
}

gboolean
spx_gen_keeps_any (guint64 brows, guint64 bcols, const SpxGenOptions *o)
{
  guint64 kr, kc;
  switch (o->pattern)
    {
    case SPX_PATTERN_TILEWISE:
      spx_gen_tilewise_counts (o->density, brows, bcols, &kr, &kc);
      return kr > 0 && kc > 0;
    case SPX_PATTERN_NM: /* the first group is the longest */
      return brows > 0 && spx_gen_nm_group_keeps (o, MIN (o->nm_m, bcols)) > 0;
    case SPX_PATTERN_BANDED: /* a band is at least one block wide */
      return brows > 0 && bcols > 0;
    case SPX_PATTERN_UNIFORM:
    case SPX_PATTERN_SKEWED:
    case SPX_PATTERN_MAGNITUDE:
    default:
      return spx_gen_count_for_density (o->density, brows * bcols) > 0;
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
  SpxGen g = { .mask = mask, .what = what, .error = error };
  spx_rng_init (&g.rng, options->seed);
  if (!run_pattern (mask, options, &g))
    return NULL;
  return g_steal_pointer (&mask);
}
