/* spx-survey-private.h: what the survey's files share, not its users */
#pragma once

#include "spx-survey.h"

G_BEGIN_DECLS

/* The sweep of a rows × cols layer (subject, when given, its element
 * mask); FALSE when no block size fits it. */
gboolean _spx_survey_sweep_options (const SpxSurveyOptions *survey,
                                    guint64 rows, guint64 cols,
                                    const SpxMask *subject, const char *name,
                                    SpxSweepOptions *options);
/* Whether error is the run being stopped, by the progress callback or
 * the thread's current GCancellable. */
gboolean _spx_survey_stopped       (const GError *error);

G_END_DECLS
