/* spx-render-verdict.h: the verdict in words, the line the window shows
 * under the speedup chart and `sweep` prints, one text for both */
#pragma once

#include "spx-study.h"

G_BEGIN_DECLS

/* One line (UTF-8, no markup). run_sweep says how the reader starts a
 * sweep, where the line suggests one, as a phrase that reads after "or"
 * and at a sentence's start ("Run Sweep": the window's button). */
char *spx_render_verdict_text (const SpxVerdict *verdict,
                               const char *run_sweep);

G_END_DECLS
