/* spx-engine-tune-private.h: what the choice of kernels shares between
 * its files: the cache file and the timing */
#pragma once

#include "spx-engine-tune.h"

G_BEGIN_DECLS

/* The ISA remembered under key in the cache file, if it names one of
 * isas; a file or entry that is not ours is ignored with a warning. */
gboolean _spx_tune_cache_read   (const char *key, const SpxIsa *isas,
                                 guint n_isas, SpxIsa *isa);
/* Remembers isa under key, replacing the file whole (never a file that
 * was not ours). */
void     _spx_tune_cache_write  (const char *key, SpxIsa isa);
/* Forgets the warnings given (tests). */
void     _spx_tune_cache_forget (void);

/* The fastest of isas on a representative product of op at n columns,
 * timed in turns; default_isa unless another is clearly faster. steady:
 * the same answer in every round (worth remembering). */
SpxIsa   _spx_tune_time (SpxTuneOp op, SpxCpuType type, guint b, guint64 n,
                         guint threads, const SpxIsa *isas, guint n_isas,
                         SpxIsa default_isa, gboolean *steady);

/* The kernels' revision, kept in the cache file: raised whenever a
 * kernel changes, so that choices timed on older kernels are timed
 * again (quietly: the file is still ours). */
#define SPX_TUNE_KERNELS_REVISION 2

/* Each candidate is timed in turn this many times. */
#define SPX_TUNE_ROUNDS 5
/* Of times[round][i], the candidate that replaces the default d: the
 * fastest that beats it by 5% at its best and is fastest in most
 * rounds; else d. Steady when it was within 5% of each round's fastest:
 * a busy machine's choice is not worth remembering. */
guint    _spx_tune_decide (double times[SPX_TUNE_ROUNDS][SPX_ISA_COUNT],
                           guint n_isas, guint d, gboolean *steady);

G_END_DECLS
