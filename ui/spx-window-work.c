/* spx-window-work.c: the long work, off the main loop. Planning runs on
 * a worker thread for every change; a result older than the latest
 * request is dropped. A sweep runs on another and sends each point to
 * the main loop as it is done, so the chart grows while it runs. */
#include "spx-window-private.h"
#include "spx-mask-file.h"

/* ---- planning ------------------------------------------------------ */

typedef struct {
  guint          serial;
  SpxScenario   *scenario;  /* regenerate: the generator settings */
  SpxMask       *mask;      /* the mask to plan (in: a copy; or made) */
  gboolean       made;      /* mask generated here: the window takes it */
  SpxIpuMachine *machine;
  char          *load;      /* a mask file to load first, or NULL */
  SpxIpuProgram *programs[3];
  GError        *error;
} PlanJob;

static void
plan_job_free (PlanJob *j)
{
  if (j->scenario)
    spx_scenario_free (j->scenario);
  spx_mask_free (j->mask);
  spx_ipu_machine_free (j->machine);
  g_free (j->load);
  for (guint i = 0; i < 3; i++)
    spx_ipu_program_free (j->programs[i]);
  g_clear_error (&j->error);
  g_free (j);
}

static void
plan_thread (GTask *task, gpointer source, gpointer data, GCancellable *c)
{
  PlanJob *j = data;
  if (j->load != NULL)
    {
      g_autoptr (SpxMask) elements = spx_mask_file_load (j->load, NULL,
                                                         &j->error);
      j->mask = elements ? spx_mask_to_blocks (elements, j->scenario->block,
                                               &j->error)
                         : NULL;
      j->made = j->mask != NULL;
    }
  else if (j->mask == NULL && spx_scenario_build_mask (j->scenario, &j->error))
    {
      j->mask = g_steal_pointer (&j->scenario->mask);
      j->made = TRUE;
    }
  for (guint mode = 0; mode < 3 && j->error == NULL; mode++)
    j->programs[mode] = spx_ipu_plan (j->machine, mode, j->mask,
                                      j->scenario->n, j->scenario->dtype,
                                      &j->error);
  g_task_return_boolean (task, TRUE); /* the results are in j */
}

/* Not fitting is a result worth saying, not a failure. */
static void
report_fit (SpxWindow *w)
{
  const SpxIpuProgram *p = w->programs[w->mode];
  if (p == NULL || p->fits)
    {
      spx_window_clear_error (w);
      return;
    }
  g_autofree char *need = g_format_size_full (p->max_tile_bytes,
                                              G_FORMAT_SIZE_IEC_UNITS);
  g_autofree char *have = g_format_size_full (spx_ipu_tile_budget (p->machine),
                                              G_FORMAT_SIZE_IEC_UNITS);
  g_autofree char *msg = g_strdup_printf (
    "The %s plan does not fit %s: %s%s on its fullest tile, %s available "
    "per tile.", spx_ipu_mode_to_string (p->mode), p->machine->name,
    p->overflow ? "the pattern overflows its dynamic buckets; " : "", need,
    have);
  spx_window_show_message (w, GTK_MESSAGE_WARNING, msg);
}

static void
show_density (SpxWindow *w)
{
  SpxMask *mask = spx_mask_editor_get_mask (SPX_MASK_EDITOR (w->editor));
  if (mask == NULL)
    return;
  SpxMaskStats st;
  spx_mask_stats (mask, &st);
  g_autofree char *text = g_strdup_printf (
    "%" G_GUINT64_FORMAT " × %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
    " blocks set (%.3g%%), %.1f per block-row (max %.0f)", mask->rows,
    mask->cols, st.nonzero_blocks, 100 * st.block_density,
    st.blocks_per_row.mean, st.blocks_per_row.max);
  gtk_label_set_text (GTK_LABEL (w->density_label), text);
  w->speedup_data.current_density = st.element_density;
}

void
spx_window_programs_changed (SpxWindow *w)
{
  const SpxIpuProgram *p = w->programs[w->mode];
  spx_mask_editor_set_program (SPX_MASK_EDITOR (w->editor), p);
  w->tiles_data.program = p;
  w->exchange_data.program = p;
  for (guint i = 0; i < 3; i++)
    w->timeline_data.programs[i] = w->programs[i];
  if (p != NULL)
    {
      w->updating = TRUE;
      gtk_spin_button_set_range (GTK_SPIN_BUTTON (w->superstep), 1,
                                 MAX (1, p->steps->len));
      gtk_spin_button_set_value (GTK_SPIN_BUTTON (w->superstep),
                                 spx_ipu_program_first_exchange (p) + 1);
      w->updating = FALSE;
      w->exchange_data.superstep = spx_ipu_program_first_exchange (p);
    }
  spx_window_select_tile (w, w->selected_tile);
  show_density (w);
  GtkWidget *views[] = { w->tiles, w->exchange, w->timeline, w->speedup };
  for (guint i = 0; i < G_N_ELEMENTS (views); i++)
    spx_view_changed (SPX_VIEW (views[i]));
  report_fit (w);
}

/* A mask file loaded: it becomes the scenario's mask; the rest of the
 * scenario stays. */
static void
take_loaded (SpxWindow *w, PlanJob *j)
{
  SpxScenario *sc = w->scenario;
  sc->m = j->mask->rows;
  sc->k = j->mask->cols;
  sc->source = SPX_MASK_SOURCE_FILE;
  g_free (sc->mask_path);
  sc->mask_path = g_canonicalize_filename (j->load, NULL);
  g_clear_pointer (&w->path, g_free);
  w->mask_edited = FALSE;
  spx_window_panel_load (w);
  spx_window_clear_error (w);
  spx_window_set_dirty (w, FALSE);
}

static void
plan_done (GObject *source, GAsyncResult *result, gpointer data)
{
  SpxWindow *w = SPX_WINDOW (source);
  PlanJob *j = g_task_get_task_data (G_TASK (result));
  g_task_propagate_boolean (G_TASK (result), NULL);
  if (j->serial != w->plan_serial)
    return; /* a newer request, or cancelled */
  w->planning = FALSE;
  if (j->load != NULL && j->error == NULL)
    take_loaded (w, j);
  if (j->made)
    spx_mask_editor_set_mask (SPX_MASK_EDITOR (w->editor),
                              g_steal_pointer (&j->mask));
  if (j->error != NULL)
    spx_window_show_error (w, j->error->message);
  else
    {
      for (guint i = 0; i < 3; i++)
        {
          spx_ipu_program_free (w->programs[i]);
          w->programs[i] = g_steal_pointer (&j->programs[i]);
        }
      spx_window_programs_changed (w);
    }
  spx_window_update_busy (w);
}

static gboolean
pulse (gpointer data)
{
  SpxWindow *w = data;
  if (!w->planning)
    return G_SOURCE_REMOVE;
  spx_window_update_busy (w);
  return G_SOURCE_CONTINUE;
}

static void
start_plan (SpxWindow *w, gboolean regenerate, const char *load)
{
  PlanJob *j = g_new0 (PlanJob, 1);
  j->load = g_strdup (load);
  j->serial = ++w->plan_serial;
  j->scenario = spx_scenario_copy (w->scenario);
  g_clear_pointer (&j->scenario->mask, spx_mask_free);
  SpxMask *mask = spx_mask_editor_get_mask (SPX_MASK_EDITOR (w->editor));
  if (!regenerate && load == NULL && mask != NULL)
    j->mask = spx_mask_copy (mask);
  j->machine = spx_ipu_machine_copy (w->machine);
  if (!w->planning)
    g_timeout_add_full (G_PRIORITY_DEFAULT, 100, pulse, g_object_ref (w),
                        g_object_unref);
  w->planning = TRUE;
  spx_window_update_busy (w);
  GTask *task = g_task_new (w, NULL, plan_done, NULL);
  g_task_set_task_data (task, j, (GDestroyNotify) plan_job_free);
  g_task_run_in_thread (task, plan_thread);
  g_object_unref (task);
}

void
spx_window_replan (SpxWindow *w, gboolean regenerate)
{
  start_plan (w, regenerate, NULL);
}

void
spx_window_load_mask (SpxWindow *w, const char *path)
{
  start_plan (w, FALSE, path);
}

/* ---- sweeps -------------------------------------------------------- */

typedef struct {
  SpxWindow       *window;   /* a reference */
  guint            serial;
  SpxSweepOptions  options;
  GCancellable    *cancel;
  SpxSweep        *sweep;    /* the worker's own */
  GError          *error;
} SweepJob;

typedef struct {
  SpxWindow     *window;
  guint          serial, done, total;
  SpxSweepPoint  point;
} PointMsg;

static void
sweep_job_free (SweepJob *j)
{
  g_object_unref (j->window);
  spx_ipu_machine_free (j->options.machine);
  g_object_unref (j->cancel);
  spx_sweep_free (j->sweep);
  g_clear_error (&j->error);
  g_free (j);
}

static gboolean
deliver_point (gpointer data)
{
  PointMsg *m = data;
  SpxWindow *w = m->window;
  if (m->serial == w->sweep_serial)
    {
      g_array_append_val (w->sweep->points, m->point);
      w->sweep_done = m->done;
      w->sweep_total = m->total;
      spx_view_changed (SPX_VIEW (w->speedup));
      spx_window_update_busy (w);
    }
  g_object_unref (w);
  g_free (m);
  return G_SOURCE_REMOVE;
}

/* On the worker: hand the point to the main loop; stop when cancelled. */
static gboolean
sweep_progress (guint done, guint total, const SpxSweepPoint *point,
                gpointer data)
{
  SweepJob *j = data;
  PointMsg *m = g_new (PointMsg, 1);
  *m = (PointMsg) { g_object_ref (j->window), j->serial, done, total,
                    *point };
  g_idle_add (deliver_point, m);
  return !g_cancellable_is_cancelled (j->cancel);
}

static void
sweep_thread (GTask *task, gpointer source, gpointer data, GCancellable *c)
{
  SweepJob *j = data;
  spx_sweep_run (j->sweep, &j->options, sweep_progress, j, &j->error);
  g_task_return_boolean (task, TRUE); /* the outcome is in j */
}

static void
sweep_done (GObject *source, GAsyncResult *result, gpointer data)
{
  SpxWindow *w = SPX_WINDOW (source);
  SweepJob *j = data;
  g_task_propagate_boolean (G_TASK (result), NULL);
  if (j->serial == w->sweep_serial)
    {
      g_clear_object (&w->sweep_cancel);
      if (j->error != NULL &&
          !g_error_matches (j->error, SPX_SWEEP_ERROR,
                            SPX_SWEEP_ERROR_CANCELLED))
        spx_window_show_error (w, j->error->message);
      spx_window_update_busy (w);
    }
  sweep_job_free (j);
}

void
spx_window_run_sweep (SpxWindow *w)
{
  if (w->sweep_cancel != NULL)
    return;
  SweepJob *j = g_new0 (SweepJob, 1);
  j->window = g_object_ref (w);
  j->serial = ++w->sweep_serial;
  /* the model on the window's machine, the CPU beside it */
  spx_sweep_options_for_scenario (&j->options, w->scenario,
                                  spx_ipu_machine_copy (w->machine));
  j->cancel = g_cancellable_new ();
  j->sweep = spx_sweep_new ();
  w->sweep_cancel = g_object_ref (j->cancel);
  /* the chart starts empty, titled by the new settings */
  g_array_set_size (w->sweep->points, 0);
  spx_ipu_machine_free (w->sweep->settings.machine);
  w->sweep->settings = j->options;
  w->sweep->settings.machine = spx_ipu_machine_copy (j->options.machine);
  w->sweep_done = 0;
  w->sweep_total = spx_sweep_total (&j->options);
  spx_view_changed (SPX_VIEW (w->speedup));
  spx_window_update_busy (w);
  GTask *task = g_task_new (w, NULL, sweep_done, j);
  g_task_set_task_data (task, j, NULL); /* freed by sweep_done */
  g_task_run_in_thread (task, sweep_thread);
  g_object_unref (task);
}

void
spx_window_cancel_work (SpxWindow *w)
{
  if (w->sweep_cancel != NULL)
    g_cancellable_cancel (w->sweep_cancel);
  if (w->planning)
    {
      w->plan_serial++; /* its result will be dropped */
      w->planning = FALSE;
    }
  if (w->progress != NULL)
    spx_window_update_busy (w);
}
