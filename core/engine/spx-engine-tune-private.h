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
 * timed in turns. */
SpxIsa   _spx_tune_time (SpxTuneOp op, SpxCpuType type, guint b, guint64 n,
                         guint threads, const SpxIsa *isas, guint n_isas);

G_END_DECLS
