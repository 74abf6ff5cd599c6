/* spx-scenario-panel.h: the side panel. It shows a study's scenario and
 * machine and the program shown, and says what the user changed; it
 * edits nothing itself.
 *
 * Signals (each after a change by the user, never while loading):
 *   generator-changed (const SpxStudyGenerator *): m, k, density,
 *     pattern or seed (all five as shown: a file's density included)
 *   block-changed (guint), n-changed (guint64), dtype-changed (SpxDtype),
 *   threads-changed (guint)
 *   preset-chosen (const char *): a machine preset by name
 *   machine-edited (const SpxMachineFigures *): the four what-if figures
 *   mode-changed (SpxIpuMode): the program the views show */
#pragma once

#include <gtk/gtk.h>

#include "spx-study.h"

G_BEGIN_DECLS

#define SPX_TYPE_SCENARIO_PANEL (spx_scenario_panel_get_type ())
G_DECLARE_FINAL_TYPE (SpxScenarioPanel, spx_scenario_panel, SPX,
                      SCENARIO_PANEL, GtkScrolledWindow)

/* The controls, top to bottom. */
typedef enum {
  SPX_SCENARIO_FIELD_M,
  SPX_SCENARIO_FIELD_K,
  SPX_SCENARIO_FIELD_N,
  SPX_SCENARIO_FIELD_BLOCK,
  SPX_SCENARIO_FIELD_DENSITY,
  SPX_SCENARIO_FIELD_PATTERN,
  SPX_SCENARIO_FIELD_SEED,
  SPX_SCENARIO_FIELD_DTYPE,
  SPX_SCENARIO_FIELD_MACHINE,
  SPX_SCENARIO_FIELD_TILES,
  SPX_SCENARIO_FIELD_SRAM,
  SPX_SCENARIO_FIELD_CLOCK,
  SPX_SCENARIO_FIELD_EXCHANGE,
  SPX_SCENARIO_FIELD_MODE,
  SPX_SCENARIO_FIELD_THREADS,
  SPX_SCENARIO_N_FIELDS
} SpxScenarioField;

GtkWidget *spx_scenario_panel_new  (void);
/* Show the study's scenario and machine, saying nothing. */
void       spx_scenario_panel_load (SpxScenarioPanel *panel,
                                    const SpxStudy *study);
/* Show mode as the program shown, saying nothing. */
void       spx_scenario_panel_set_mode (SpxScenarioPanel *panel,
                                        SpxIpuMode mode);
/* The widget that edits field (for tests). */
GtkWidget *spx_scenario_panel_get_control (SpxScenarioPanel *panel,
                                           SpxScenarioField field);

G_END_DECLS
