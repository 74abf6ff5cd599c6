/* spx-sweep-private.h: what the sweep's files share, not its users */
#pragma once

#include "spx-sweep.h"

G_BEGIN_DECLS

/* Whether the options ask for mode (dense always). */
gboolean _spx_sweep_want_mode (const SpxSweepOptions *o, SpxSweepMode mode);

G_END_DECLS
