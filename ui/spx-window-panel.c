/* spx-window-panel.c: what the window does with the side panel's
 * edits: each goes into the study through its setter (which makes the
 * sweep out of date) and is planned at once. */
#include "spx-window-private.h"

/* An edit of the scenario: unsaved now, and then made or planned. */
static void
edited (SpxWindow *w, void (*then) (SpxWindow *))
{
  _spx_window_set_dirty (w, TRUE);
  then (w);
}

static void
on_generator_changed (SpxScenarioPanel *panel, const SpxStudyGenerator *gen,
                      SpxWindow *w)
{
  if (!_spx_window_may_replace_mask (w, "Changing the shape, density, "
                                     "pattern or seed generates a new "
                                     "mask."))
    {
      spx_scenario_panel_load (panel, w->study); /* put the controls back */
      return;
    }
  spx_study_set_generator (w->study, gen);
  edited (w, _spx_window_rebuild);
}

/* A new block size re-blocks a file's or a drawing's mask, and
 * generates a mask of the scenario's pattern at that size otherwise. */
static void
on_block_changed (SpxScenarioPanel *panel, guint block, SpxWindow *w)
{
  spx_study_set_block (w->study, block);
  edited (w, _spx_window_rebuild);
}

static void
on_n_changed (SpxScenarioPanel *panel, guint64 n, SpxWindow *w)
{
  spx_study_set_n (w->study, n);
  edited (w, _spx_window_replan);
}

static void
on_dtype_changed (SpxScenarioPanel *panel, gint dtype, SpxWindow *w)
{
  spx_study_set_dtype (w->study, (SpxDtype) dtype);
  edited (w, _spx_window_replan);
}

/* CPU threads only matter to the sweep: no re-plan, but the chart may
 * be out of date. */
static void
on_threads_changed (SpxScenarioPanel *panel, guint threads, SpxWindow *w)
{
  spx_study_set_threads (w->study, threads);
  edited (w, _spx_window_update_verdict);
}

static void
on_preset_chosen (SpxScenarioPanel *panel, const char *name, SpxWindow *w)
{
  g_autoptr (GError) error = NULL;
  if (!spx_study_set_machine (w->study, name, &error))
    {
      _spx_window_show_error (w, error->message);
      return;
    }
  spx_scenario_panel_load (panel, w->study);
  edited (w, _spx_window_replan);
}

/* What-if edits: the machine becomes "custom" with the figures given. */
static void
on_machine_edited (SpxScenarioPanel *panel, const SpxMachineFigures *figures,
                   SpxWindow *w)
{
  g_autoptr (GError) error = NULL;
  if (!spx_study_set_machine_figures (w->study, figures, &error))
    {
      _spx_window_show_error (w, error->message);
      return;
    }
  spx_scenario_panel_load (panel, w->study); /* "custom" */
  edited (w, _spx_window_replan);
}

static void
on_mode_changed (SpxScenarioPanel *panel, gint mode, SpxWindow *w)
{
  w->mode = (SpxIpuMode) mode;
  _spx_window_programs_changed (w);
}

GtkWidget *
_spx_window_panel_new (SpxWindow *w)
{
  static const struct { const char *signal; GCallback handler; } edits[] = {
    { "generator-changed", G_CALLBACK (on_generator_changed) },
    { "block-changed", G_CALLBACK (on_block_changed) },
    { "n-changed", G_CALLBACK (on_n_changed) },
    { "dtype-changed", G_CALLBACK (on_dtype_changed) },
    { "threads-changed", G_CALLBACK (on_threads_changed) },
    { "preset-chosen", G_CALLBACK (on_preset_chosen) },
    { "machine-edited", G_CALLBACK (on_machine_edited) },
    { "mode-changed", G_CALLBACK (on_mode_changed) },
  };
  GtkWidget *panel = spx_scenario_panel_new ();
  w->panel = SPX_SCENARIO_PANEL (panel);
  for (guint i = 0; i < G_N_ELEMENTS (edits); i++)
    g_signal_connect (panel, edits[i].signal, edits[i].handler, w);
  return panel;
}
