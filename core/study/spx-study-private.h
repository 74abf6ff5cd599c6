/* spx-study-private.h: what the study's files share, not its users */
#pragma once

#include "spx-study.h"

G_BEGIN_DECLS

/* Whether path names a scenario (.spx) rather than a mask. */
gboolean _spx_study_is_scenario_file  (const char *path);
/* The sweeps kept in the just loaded .spx at path join the history. */
gboolean _spx_study_take_saved_sweeps (SpxStudy *s, const char *path,
                                       GError **error);

G_END_DECLS
