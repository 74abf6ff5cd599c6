/* spx-window-work.c: the long work, off the main loop. Planning (and
 * making or reading a mask first) runs on a worker thread on a copy of
 * the study for every change; a result older than the latest request is
 * dropped. A sweep runs on another and sends each point to the main loop
 * as it is done, so the chart grows while it runs. */
#include "spx-window-private.h"
#include "spx-util.h"

#include <string.h>

/* ---- planning ------------------------------------------------------ */

typedef enum {
  JOB_PLAN,     /* the study's mask as it is */
  JOB_BUILD,    /* generate or re-block first */
  JOB_OPEN,     /* a mask file first */
  JOB_LAYER,    /* a network's layer first */
  JOB_LOAD,     /* a .spx first: a whole new study */
  JOB_FIT,      /* a size at which every plan fits, then generate */
} JobKind;

typedef struct {
  JobKind   kind;
  SpxStudy *study;   /* the worker's own */
  char     *path;    /* JOB_OPEN, JOB_LOAD */
  SpxSharedNetwork *network; /* JOB_LAYER: a reference, and its entry */
  guint     entry;
  guint     asked_block; /* JOB_OPEN: the block asked for, when another
                            was chosen for the picture */
  gboolean  subject_ok;  /* the subject was made (it may still not plan) */
  gboolean  keep_message; /* made after a failure: its message stays */
  GError   *error;
} PlanJob;

static void
plan_job_free (gpointer data)
{
  PlanJob *j = data;
  spx_study_free (j->study);
  g_free (j->path);
  _spx_shared_network_release (j->network);
  g_clear_error (&j->error);
  g_free (j);
}

/* A mask file (or a network's layer) that looks solid at the block
 * asked for opens at one where its structure shows. */
static gboolean
open_readable (PlanJob *j)
{
  SpxStudy *s = j->study;
  gboolean read = j->kind == JOB_LAYER
    ? spx_study_open_layer (s, j->network->network, j->entry, &j->error)
    : spx_study_open_mask (s, j->path, &j->error);
  if (!read)
    return FALSE;
  guint block = spx_study_readable_block (s, s->scenario->block);
  if (block == s->scenario->block)
    return TRUE;
  j->asked_block = s->scenario->block;
  spx_study_set_block (s, block);
  return spx_study_build_mask (s, &j->error);
}

static gboolean
make_subject (PlanJob *j)
{
  switch (j->kind)
    {
    case JOB_LOAD:
      j->study = spx_study_load (j->path, &j->error);
      return j->study != NULL;
    case JOB_OPEN:
    case JOB_LAYER:
      return open_readable (j);
    case JOB_BUILD:
      return spx_study_build_mask (j->study, &j->error);
    case JOB_FIT:
      return spx_study_fit_size (j->study, &j->error);
    case JOB_PLAN:
    default:
      return TRUE;
    }
}

/* The results are in j (a subject made may still not plan). */
static void
plan_run (SpxJob *job, gpointer data, GError **error)
{
  PlanJob *j = data;
  j->subject_ok = make_subject (j);
  if (j->subject_ok && (!j->study->surveyed ||
                        j->study->survey_revision != j->study->revision))
    spx_study_survey_blocks (j->study);
  if (j->subject_ok)
    spx_study_plan (j->study, &j->error);
}

/* The job's programs become the study's (the views are told at once:
 * they hold the old ones until then). */
static void
take_programs (SpxWindow *w, SpxStudy *from)
{
  for (guint i = 0; i < SPX_IPU_N_MODES; i++)
    {
      spx_ipu_program_free (w->study->programs[i]);
      w->study->programs[i] = g_steal_pointer (&from->programs[i]);
    }
}

/* A new subject made on the worker replaces the shown one as one undo
 * step; the rest of the study (n, machine, sweep) stays. Its masks are
 * shared, not copied: the editor copies the mask when it is drawn on. */
static void
take_subject (SpxWindow *w, PlanJob *j)
{
  SpxStudy *s = w->study;
  SpxSubject *after = spx_study_save_subject (j->study);
  spx_study_restore_subject (s, after,
                             spx_mask_ref (j->study->scenario->mask));
  spx_mask_editor_set_program (SPX_MASK_EDITOR (w->editor), NULL);
  spx_mask_editor_replace_mask (SPX_MASK_EDITOR (w->editor),
                                spx_mask_ref (s->scenario->mask),
                                g_steal_pointer (&w->shown), after,
                                (GDestroyNotify) spx_subject_free);
  w->shown = spx_study_save_subject (s);
}

/* The latest job saw the subject as it is now. */
static void
take_survey (SpxWindow *w, const SpxStudy *from)
{
  SpxStudy *s = w->study;
  s->survey = from->survey;
  s->surveyed = from->surveyed;
  s->survey_revision = s->revision;
}

/* A .spx from a bigger machine opens as it is; its sweep here runs on
 * the threads this machine has, and the bar says so. Set in place, not
 * through spx_study_set_threads: the file is read, not edited, so its
 * revision (and the survey made at it) stays current. */
static void
fit_threads (SpxWindow *w)
{
  g_autoptr (GError) many = NULL;
  SpxScenario *sc = w->study->scenario;
  if (spx_scenario_check_threads (sc, w->study->path, &many))
    return;
  sc->threads = spx_max_threads ();
  g_autofree char *msg = g_strdup_printf ("%s; the sweep here uses %u.",
                                          many->message, sc->threads);
  _spx_window_show_message (w, GTK_MESSAGE_INFO, msg);
}

/* A .spx read on the worker: everything is its. */
static void
take_study (SpxWindow *w, PlanJob *j)
{
  spx_study_take_history (j->study, w->study);
  spx_study_free (w->study);
  w->study = g_steal_pointer (&j->study);
  w->view_state.sweep = w->study->sweep;
  _spx_window_views_changed (w, 0); /* none holds the old study's */
  spx_subject_free (w->shown);
  w->shown = spx_study_save_subject (w->study);
  spx_mask_editor_set_program (SPX_MASK_EDITOR (w->editor), NULL);
  spx_mask_editor_set_mask (SPX_MASK_EDITOR (w->editor),
                            spx_mask_ref (w->study->scenario->mask));
  fit_threads (w);
  spx_scenario_panel_load (w->panel, w->study);
  g_clear_pointer (&w->scenario_name, g_free);
  _spx_window_set_dirty (w, FALSE);
}

/* A mask file opened on its own: no .spx yet, nothing unsaved. */
static void
took_file (SpxWindow *w, PlanJob *j)
{
  g_clear_pointer (&w->study->path, g_free);
  g_clear_pointer (&w->scenario_name, g_free);
  _spx_window_set_dirty (w, FALSE);
  if (j->study->warning != NULL)
    _spx_window_show_message (w, GTK_MESSAGE_WARNING, j->study->warning);
  if (j->asked_block == 0 || j->study->warning != NULL)
    return;
  g_autofree char *msg = g_strdup_printf (
    "Opened at %u × %u blocks: at %u × %u, almost every block of this mask "
    "holds a non-zero, so it looks solid. The block size is in the panel.",
    w->study->scenario->block, w->study->scenario->block, j->asked_block,
    j->asked_block);
  _spx_window_show_message (w, GTK_MESSAGE_INFO, msg);
}

static PlanJob *start (SpxWindow *w, JobKind kind, const char *path);

static void
plan_done (gpointer owner, gpointer data, const GError *error)
{
  SpxWindow *w = owner;
  PlanJob *j = data;
  g_clear_pointer (&w->plan_job, spx_job_unref);
  if (!j->keep_message)
    _spx_window_clear_error (w);
  if (j->subject_ok && j->kind == JOB_LOAD)
    take_study (w, j);
  else if (j->subject_ok && j->kind != JOB_PLAN)
    take_subject (w, j);
  if (j->subject_ok && (j->kind == JOB_OPEN || j->kind == JOB_LAYER))
    took_file (w, j);
  if (j->subject_ok && j->kind == JOB_LAYER)
    spx_window_show_view (w, spx_render_views[SPX_RENDER_VIEW_MASK]->name);
  if (j->subject_ok && j->kind == JOB_FIT) /* it may have needed a smaller n */
    spx_study_set_n (w->study, j->study->scenario->n);
  if (j->subject_ok && j->kind != JOB_LOAD)
    take_survey (w, j->study);
  if (j->subject_ok && j->kind != JOB_LOAD && j->kind != JOB_PLAN)
    spx_scenario_panel_load (w->panel, w->study);
  if (j->error != NULL)
    _spx_window_show_error (w, j->error->message);
  else if (j->study != NULL) /* a loaded study came with its own */
    take_programs (w, j->study);
  _spx_window_programs_changed (w);
  _spx_window_update_title (w);
  _spx_window_update_busy (w);
  if (w->sweep_pending && j->error == NULL)
    _spx_window_run_sweep (w);
  w->sweep_pending = FALSE;
  /* a first file that failed leaves the scenario's own mask, not none;
   * the failure stays in the bar */
  if (w->study->scenario->mask == NULL && j->kind != JOB_BUILD)
    start (w, JOB_BUILD, NULL)->keep_message = TRUE;
}

static gboolean
pulse (gpointer data)
{
  SpxWindow *w = data;
  /* work may still end on a worker after the window's widgets went
   * (dispose clears the progress bar first) */
  if (!spx_window_is_busy (w) || w->progress == NULL)
    {
      w->pulse_source = 0;
      return G_SOURCE_REMOVE;
    }
  _spx_window_update_busy (w);
  return G_SOURCE_CONTINUE;
}

void
_spx_window_pulse (SpxWindow *w)
{
  if (w->pulse_source == 0)
    w->pulse_source = g_timeout_add_full (G_PRIORITY_DEFAULT, 100, pulse,
                                          g_object_ref (w), g_object_unref);
}

static PlanJob *
job_new (JobKind kind, const char *path)
{
  PlanJob *j = g_new0 (PlanJob, 1);
  j->kind = kind;
  j->path = g_strdup (path);
  return j;
}

static const SpxJobKind plan_kind = {
  plan_run, NULL, plan_done, plan_job_free, NULL
};

/* j runs on a worker; the job before is out of date: dropped, its work
 * stopped, not just its result. */
static PlanJob *
run (SpxWindow *w, PlanJob *j)
{
  if (j->kind != JOB_LOAD)
    j->study = spx_study_copy (w->study);
  g_clear_pointer (&w->plan_job, spx_job_drop);
  w->plan_job = spx_job_start (&plan_kind, w, j);
  _spx_window_pulse (w);
  _spx_window_update_busy (w);
  _spx_window_update_verdict (w); /* the chart may be out of date now */
  return j;
}

static PlanJob *
start (SpxWindow *w, JobKind kind, const char *path)
{
  return run (w, job_new (kind, path));
}

void
_spx_window_replan (SpxWindow *w)
{
  /* before the first mask arrived, a newer request must make it */
  start (w, w->study->scenario->mask ? JOB_PLAN : JOB_BUILD, NULL);
}

void
_spx_window_rebuild (SpxWindow *w)
{
  start (w, JOB_BUILD, NULL);
}

void
_spx_window_fit_size (SpxWindow *w)
{
  start (w, JOB_FIT, NULL);
}

void
_spx_window_load_mask (SpxWindow *w, const char *path)
{
  start (w, JOB_OPEN, path);
}

void
_spx_window_load_layer (SpxWindow *w, SpxSharedNetwork *network, guint entry)
{
  PlanJob *j = job_new (JOB_LAYER, NULL);
  j->network = g_atomic_rc_box_acquire (network);
  j->entry = entry;
  run (w, j);
}

void
_spx_window_load_scenario (SpxWindow *w, const char *path)
{
  start (w, JOB_LOAD, path);
}

void
_spx_window_subject_restored (SpxWindow *w, const SpxSubject *subject)
{
  SpxMask *mask = spx_mask_editor_get_mask (SPX_MASK_EDITOR (w->editor));
  spx_mask_editor_set_program (SPX_MASK_EDITOR (w->editor), NULL);
  spx_study_restore_subject (w->study, subject, spx_mask_ref (mask));
  spx_subject_free (w->shown);
  w->shown = spx_study_save_subject (w->study);
  spx_scenario_panel_load (w->panel, w->study);
  _spx_window_set_dirty (w, TRUE);
  _spx_window_replan (w);
}

/* ---- sweeps -------------------------------------------------------- */

typedef struct {
  guint            revision; /* of the study when it started */
  SpxStudy        *study;    /* the worker's copy; the options borrow it */
  SpxSweepOptions  options;
  SpxSweep        *sweep;    /* the worker's own */
  /* Measuring again: these block sizes of a copy of the sweep, on one
   * thread; 0 of them: a whole new sweep. */
  guint            again[SPX_SWEEP_MAX_VALUES];
  guint            n_again;
} SweepJob;

typedef struct {
  SpxSweepPoint  point;
  gboolean       append; /* a new point (measured again: progress only) */
} PointMsg;

static void
sweep_job_free (gpointer data)
{
  SweepJob *j = data;
  spx_sweep_free (j->sweep);
  spx_study_free (j->study);
  g_free (j);
}

static void
deliver_point (gpointer owner, gpointer data, gpointer message)
{
  SpxWindow *w = owner;
  PointMsg *m = message;
  if (m->append)
    g_array_append_val (w->study->sweep->points, m->point);
  _spx_window_views_changed (w, SPX_RENDER_VIEW_NEEDS_SWEEP);
  _spx_window_update_busy (w);
}

typedef struct {
  SpxJob   *job;
  SweepJob *sweep;
} Progress;

/* On the worker: hand each point to the main loop; stop when cancelled
 * (also while a point is being measured: point is NULL then). */
static gboolean
sweep_progress (guint done, guint total, const SpxSweepPoint *point,
                gpointer data)
{
  Progress *p = data;
  if (point != NULL)
    {
      PointMsg *m = g_new (PointMsg, 1);
      *m = (PointMsg) { *point, p->sweep->n_again == 0 };
      spx_job_post (p->job, done, total, m);
    }
  return !spx_job_cancelled (p->job);
}

static void
sweep_run (SpxJob *job, gpointer data, GError **error)
{
  SweepJob *j = data;
  Progress p = { job, j };
  if (j->n_again > 0)
    spx_sweep_measure_again (j->sweep, j->again, j->n_again, 1,
                             sweep_progress, &p, error);
  else
    spx_sweep_run (j->sweep, &j->options, sweep_progress, &p, error);
}

/* The worker's sweep is the final word: every point, judged again at
 * the end against the best dense (points still on their way are not
 * delivered after it). */
static void
sweep_done (gpointer owner, gpointer data, const GError *error)
{
  SpxWindow *w = owner;
  SweepJob *j = data;
  g_clear_pointer (&w->sweep_job, spx_job_unref);
  SpxSweep *sweep = w->study->sweep;
  g_array_set_size (sweep->points, 0);
  g_array_append_vals (sweep->points, j->sweep->points->data,
                       j->sweep->points->len);
  sweep->best_dense_gflops = j->sweep->best_dense_gflops;
  w->study->sweep_revision = j->revision;
  spx_study_keep_sweep (w->study);
  if (error != NULL &&
      !g_error_matches (error, SPX_SWEEP_ERROR, SPX_SWEEP_ERROR_CANCELLED))
    _spx_window_show_error (w, error->message);
  _spx_window_update_verdict (w);
  _spx_window_update_busy (w);
}

static const SpxJobKind sweep_kind = {
  sweep_run, deliver_point, sweep_done, sweep_job_free, g_free
};

/* One measurement of this CPU at a time; none while planning. */
static gboolean
cpu_free (SpxWindow *w)
{
  guint done, total;
  return w->sweep_job == NULL && !_spx_window_surveying (w, &done, &total);
}

static void
sweep_job_start (SpxWindow *w, SweepJob *j, guint total)
{
  w->sweep_job = spx_job_start (&sweep_kind, w, j);
  spx_job_set_progress (w->sweep_job, 0, total);
  _spx_window_update_verdict (w);
  _spx_window_update_busy (w);
}

void
_spx_window_run_sweep (SpxWindow *w)
{
  if (!cpu_free (w))
    return;
  if (w->plan_job != NULL)
    {
      w->sweep_pending = TRUE;
      return;
    }
  SweepJob *j = g_new0 (SweepJob, 1);
  j->sweep = spx_sweep_new ();
  j->revision = w->study->revision;
  j->study = spx_study_copy (w->study);
  spx_study_sweep_options (j->study, &j->options);
  spx_sweep_options_set_op (&j->options, (SpxBenchOp) gtk_combo_box_get_active (
                                           GTK_COMBO_BOX (w->sweep_op)));
  /* the chart starts empty, titled by the new settings */
  spx_sweep_reset (w->study->sweep, &j->options, NULL);
  spx_study_sweep_cleared (w->study);
  w->study->sweep_revision = j->revision;
  sweep_job_start (w, j, spx_sweep_total (&j->options));
}

void
_spx_window_measure_again (SpxWindow *w)
{
  SpxVerdict v;
  spx_study_judge (w->study, &v);
  const SpxVerdictSource *cpu = &v.sources[SPX_SWEEP_CPU];
  if (!cpu_free (w) || w->plan_job != NULL ||
      v.kind != SPX_VERDICT_SWEPT || cpu->n_unclean == 0)
    return;
  const SpxSweep *sweep = w->study->sweep;
  SweepJob *j = g_new0 (SweepJob, 1);
  j->sweep = spx_sweep_new ();
  j->revision = w->study->sweep_revision;
  j->study = spx_study_copy (w->study);
  memcpy (j->again, cpu->unclean, cpu->n_unclean * sizeof *j->again);
  j->n_again = cpu->n_unclean;
  spx_sweep_reset (j->sweep, &sweep->settings, NULL);
  g_array_append_vals (j->sweep->points, sweep->points->data,
                       sweep->points->len);
  j->sweep->best_dense_gflops = sweep->best_dense_gflops;
  sweep_job_start (w, j, 0); /* its total: the worker's first point says */
}

void
_spx_window_cancel_work (SpxWindow *w)
{
  if (w->sweep_job != NULL)
    spx_job_cancel (w->sweep_job);
  g_clear_pointer (&w->plan_job, spx_job_drop); /* nothing of it */
  if (w->progress != NULL)
    _spx_window_update_busy (w);
}
