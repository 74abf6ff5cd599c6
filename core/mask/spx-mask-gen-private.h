/* spx-mask-gen-private.h: what the mask generators' files share. Not
 * installed; only core/mask/spx-mask-gen*.c include it. */
#pragma once

#include "spx-mask-gen.h"
#include "spx-util.h"

#include <math.h>

G_BEGIN_DECLS

/* round(density·n), half away from zero; density is in [0, 1]. */
static inline guint64
spx_gen_count_for_density (double density, guint64 n)
{
  return MIN ((guint64) round (density * (double) n), n);
}

/* TRUE if density is a number from 0 to 1; else an INVALID error. */
gboolean spx_gen_check_density (double density, GError **error);

/* ------------------------------------------------------------------ */
/* Work in progress: the generator, polls and scratch memory           */

/* Loops poll spx_cancelled after about this much work (draws, or words
 * written): well under a millisecond between polls. */
#define SPX_GEN_POLL_WORK 16384

/* One generation: its random numbers, the work since the last poll, and
 * where a refusal or a cancellation goes. */
typedef struct {
  SpxRng        rng;
  guint64       work;
  const SpxMask *mask;
  const char   *what;   /* "generated skewed", for messages */
  gboolean      failed; /* an allocation failed: the error is set */
  GError      **error;
} SpxGen;

/* Counts units of work done; TRUE (with the CANCELLED error) once the
 * caller has given up. */
static inline gboolean
spx_gen_stop (SpxGen *g, guint64 units)
{
  g->work += units;
  if (g->work < SPX_GEN_POLL_WORK)
    return FALSE;
  g->work = 0;
  return spx_cancelled (g->error);
}

/* The mask and scratch_bytes against the budget; then the scratch, each
 * piece zeroed (NULL and g->failed if the system has too little). */
gboolean spx_gen_budget (SpxGen *g, guint64 scratch_bytes);
gpointer spx_gen_alloc0 (SpxGen *g, guint64 count, gsize size);

/* ------------------------------------------------------------------ */
/* Selecting the largest keys (spx-mask-gen-magnitude.c)               */

/* What a selection ranks: magnitude's block norms, or for block 1 the
 * values themselves (a float squares exactly in a double, so |v| orders
 * exactly like v², and the largest case needs no 8-byte-per-element norm
 * array); or keys made by the caller (raw). */
typedef struct {
  const double  *norms;
  const float   *values;
  const guint64 *raw;
  guint64        n;
} SpxGenKeys;

/* The k-th largest key (k ≥ 1); *ties gets how many keys equal to the
 * result belong to the top k. */
gboolean spx_gen_kth_largest_key (const SpxGenKeys *keys, guint64 k,
                                  guint64 *key, guint64 *ties, SpxGen *g);

/* ------------------------------------------------------------------ */
/* The patterns' generators                                            */

/* A pattern's generator: fills mask (all clear) as o says, drawing from
 * g->rng; FALSE with g->error set when refused or cancelled. */
typedef gboolean SpxGenPattern (SpxMask *mask, const SpxGenOptions *o,
                                SpxGen *g);

/* In spx-mask-gen-patterns.c */
SpxGenPattern spx_gen_uniform, spx_gen_tilewise, spx_gen_nm, spx_gen_banded,
              spx_gen_skewed;
/* In spx-mask-gen-magnitude.c */
SpxGenPattern spx_gen_magnitude;

/* What tilewise keeps: round(√density·…) of the block-rows (*kr) and of
 * the block-columns (*kc). */
void     spx_gen_tilewise_counts (double density, guint64 brows,
                                  guint64 bcols, guint64 *kr, guint64 *kc);
/* What an nm group of len ≤ M blocks keeps. */
guint64  spx_gen_nm_group_keeps  (const SpxGenOptions *o, guint64 len);

G_END_DECLS
