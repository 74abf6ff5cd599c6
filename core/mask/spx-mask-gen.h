/* spx-mask-gen.h: seeded, reproducible mask generators */
#pragma once

#include "spx-mask.h"

G_BEGIN_DECLS

typedef enum {
  SPX_PATTERN_UNIFORM,
  SPX_PATTERN_TILEWISE,
  SPX_PATTERN_NM,
  SPX_PATTERN_BANDED,
  SPX_PATTERN_SKEWED,
  SPX_PATTERN_MAGNITUDE,
} SpxPattern;

typedef struct {
  SpxPattern pattern;
  double     density;     /* of blocks, 0..1 (nm: ignored, N/M is used) */
  guint64    seed;
  guint      tile_width;  /* tilewise: G in elements, default 128 */
  guint      nm_n, nm_m;  /* nm: keep N of every M blocks along a row; 2:4 */
  guint64    band;        /* banded: width in blocks; 0 = from density */
  double     exponent;    /* skewed: power-law exponent, default 1.0 */
} SpxGenOptions;

void         spx_gen_options_init (SpxGenOptions *options);

const char  *spx_pattern_to_string   (SpxPattern pattern);
gboolean     spx_pattern_from_string (const char *name, SpxPattern *pattern);
/* The names, for messages and help: "uniform, tilewise, nm, banded,
 * skewed or magnitude"; only: a bit per SpxPattern to name (0: all). */
char        *spx_pattern_list        (guint only);

/* Whether the options keep at least one block of a brows × bcols block
 * grid, known before any draw: uniform, skewed and magnitude keep
 * round(d·blocks), tilewise round(√d·…) of the block-rows and -columns,
 * nm N of M per group, banded a band of at least one block. */
gboolean     spx_gen_keeps_any (guint64 brows, guint64 bcols,
                                const SpxGenOptions *options);

/* Generate a rows×cols mask with blocks of size block. Same options, same
 * mask on every machine. Magnitude needs values: it prunes random normal
 * values drawn from the seed here; use spx_mask_prune_magnitude for real
 * weights. The mask and the generator's scratch count together against
 * the memory budget (SPX_BUDGET_ERROR_TOO_LARGE, "the generated skewed
 * mask of R×C blocks: would need …"); the loops poll spx_cancelled
 * (SPX_BUDGET_ERROR_CANCELLED). Both errors are in spx-util.h. Time goes
 * with the blocks kept (uniform: with the fewer of kept and left out;
 * magnitude: with the elements drawn, at most 2^28). */
SpxMask     *spx_mask_generate (guint64 rows, guint64 cols, guint block,
                                const SpxGenOptions *options, GError **error);

/* Keep the round(density·blocks) blocks of largest L2 norm of a row-major
 * rows×cols matrix (ties: lower flat index first). Budget and
 * cancellation as spx_mask_generate. */
SpxMask     *spx_mask_prune_magnitude (const float *values, guint64 rows,
                                       guint64 cols, guint block,
                                       double density, GError **error);

/* A small, fast, portable generator (xoshiro256**), seeded by splitmix64,
 * so that every platform draws the same numbers. */
typedef struct {
  guint64 s[4];
} SpxRng;

void         spx_rng_init    (SpxRng *rng, guint64 seed);
guint64      spx_rng_next    (SpxRng *rng);
guint64      spx_rng_below   (SpxRng *rng, guint64 bound); /* unbiased */
double       spx_rng_uniform (SpxRng *rng);                /* [0, 1) */
double       spx_rng_normal  (SpxRng *rng);
/* How many of the k marked among len fall in a uniform sample of n of
 * them (hypergeometric); O(√variance) steps. */
guint64      spx_rng_hypergeometric (SpxRng *rng, guint64 len, guint64 k,
                                     guint64 n);

G_END_DECLS
