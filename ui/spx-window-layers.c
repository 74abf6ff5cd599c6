/* spx-window-layers.c: the Layers page: a network's layers in a table
 * (sortable) over the survey's chart. The network (or a saved survey) is
 * read on a worker; Run Survey runs on another and sends each point to
 * the main loop, so rows fill as it measures; a double-clicked layer
 * becomes the study's subject while the survey stays. */
#include "spx-window-private.h"
#include "spx-mask-io.h"
#include "spx-defaults.h"
#include "spx-util.h"

#include <math.h>
#include <string.h>

/* The block size whose density the table shows, when surveyed. */
#define SHOWN_BLOCK 16

enum {
  COL_NAME,
  COL_SHAPE, COL_SIZE,
  COL_DENSITY, COL_DENSITY_KEY,
  COL_BLOCKS, COL_BLOCKS_KEY,
  COL_CPU, COL_CPU_KEY,
  COL_MODEL, COL_MODEL_KEY,
  COL_SHARE, COL_SHARE_KEY,
  COL_TIP,   /* markup */
  COL_LAYER, /* not skipped: drawn normally, can be studied */
  COL_ENTRY, /* in the network open; -1: none */
  N_COLS
};

/* What the sources list offers, in its order. */
static const struct { const char *text; gboolean model, cpu; } sources[] = {
  { "IPU model and this CPU", TRUE, TRUE },
  { "IPU model only", TRUE, FALSE },
  { "This CPU only", FALSE, TRUE },
};

/* ---- the shared network -------------------------------------------- */

SpxSharedNetwork *
_spx_shared_network_new (SpxNetwork *network)
{
  SpxSharedNetwork *shared = g_atomic_rc_box_new0 (SpxSharedNetwork);
  shared->network = network;
  return shared;
}

static void
shared_network_clear (gpointer data)
{
  spx_network_free (((SpxSharedNetwork *) data)->network);
}

void
_spx_shared_network_release (SpxSharedNetwork *shared)
{
  if (shared != NULL)
    g_atomic_rc_box_release_full (shared, shared_network_clear);
}

/* The window was destroyed while a worker ran: its widgets are gone
 * (dispose clears the progress bar first). */
static gboolean
destroyed (SpxWindow *w)
{
  return w->progress == NULL;
}

/* ---- rows ---------------------------------------------------------- */

/* The index in the survey's blocks whose density the table shows:
 * SHOWN_BLOCK when surveyed, else the largest; -1 without a survey. */
static gint
shown_block (const SpxSurvey *survey)
{
  gint best = -1;
  if (survey == NULL)
    return -1;
  const SpxSurveyOptions *o = &survey->settings;
  for (guint i = 0; i < o->n_blocks; i++)
    {
      if (o->blocks[i] == SHOWN_BLOCK)
        return (gint) i;
      if (best < 0 || o->blocks[i] > o->blocks[best])
        best = (gint) i;
    }
  return best;
}

/* "static b16 2.10×", "keep dense (best 1.02×)"; "—" when the source
 * did not run. Sorted by the speedup it gives. */
static char *
choice_text (const SpxSurveyChoice *c, double *key)
{
  char *text = spx_survey_choice_describe (c);
  *key = text != NULL ? c->speedup : -1;
  return text != NULL ? text : g_strdup ("—");
}

/* The source whose dense time the share is of: the CPU's when measured. */
static SpxSweepSource
share_source (const SpxSurvey *survey)
{
  return survey->total[SPX_SWEEP_CPU].valid ? SPX_SWEEP_CPU
                                            : SPX_SWEEP_MODEL;
}

/* What the tooltip says of a row (markup): its name and choices whole
 * (the columns may end them in "…"), and what a double-click does. */
static char *
row_tip (const char *name, const char *skipped, const char *cpu,
         const char *model)
{
  if (skipped != NULL)
    return g_markup_printf_escaped ("<b>%s</b>\nSkipped: %s", name,
                                    skipped);
  GString *tip = g_string_new (NULL);
  g_autofree char *head = g_markup_printf_escaped ("<b>%s</b>", name);
  g_autofree char *on_cpu = g_markup_printf_escaped ("\nThis CPU: %s", cpu);
  g_autofree char *on_model = g_markup_printf_escaped ("\nIPU model: %s",
                                                       model);
  g_string_append (tip, head);
  if (*cpu != '\0' && !g_str_equal (cpu, "—")) /* it ran */
    g_string_append (tip, on_cpu);
  if (*model != '\0' && !g_str_equal (model, "—"))
    g_string_append (tip, on_model);
  g_string_append_printf (tip, "\nDouble-click to study this layer alone: "
                          "its mask, tiles, exchange and its own sweep "
                          "(keep dense: nothing beat dense by %.0f%%).",
                          100 * (SPX_SURVEY_FASTER - 1));
  return g_string_free (tip, FALSE);
}

static char *
percent (double fraction, double *key)
{
  *key = isfinite (fraction) ? fraction : -1;
  return isfinite (fraction) ? g_strdup_printf ("%.1f%%", 100 * fraction)
                             : g_strdup ("—");
}

static SpxNetwork *
listed_network (SpxWindow *w)
{
  return w->layers.network ? w->layers.network->network : NULL;
}

/* A row's columns from entry i of the network open (-1 for a saved
 * survey's layer the network does not list) and its layer in the survey
 * (NULL: not surveyed). */
static void
set_row (SpxWindow *w, GtkTreeIter *it, gint i, const SpxSurveyLayer *l)
{
  const SpxNetworkEntry *e = i >= 0 ? spx_network_entry (listed_network (w),
                                                         (guint) i)
                                    : NULL;
  const SpxSurvey *survey = w->layers.survey;
  const char *name = e ? e->name : l->name;
  guint64 rows = e ? e->rows : l->rows, cols = e ? e->cols : l->cols;
  const char *skipped = e && e->skipped ? e->skipped
                        : l ? l->skipped : NULL;
  gboolean has = l != NULL && l->skipped == NULL && l->points != NULL;
  gint b = shown_block (survey);
  double dk, bk, ck = -1, mk = -1, sk = -1;
  g_autofree char *shape = skipped && rows == 0
    ? g_strdup ("—")
    : g_strdup_printf ("%" G_GUINT64_FORMAT " × %" G_GUINT64_FORMAT, rows,
                       cols);
  g_autofree char *density = percent (has ? l->density : NAN, &dk);
  g_autofree char *blocks = percent (has && b >= 0 ? l->block_density[b]
                                                   : NAN, &bk);
  g_autofree char *cpu = has ? choice_text (&l->recommended[SPX_SWEEP_CPU],
                                            &ck) : g_strdup ("");
  g_autofree char *model = has ? choice_text (
    &l->recommended[SPX_SWEEP_MODEL], &mk) : g_strdup ("");
  g_autofree char *share = NULL;
  if (has)
    {
      SpxSweepSource s = share_source (survey);
      double total = survey->total[s].dense_ms;
      share = percent (l->recommended[s].valid && total > 0
                       ? l->recommended[s].dense_ms / total : NAN, &sk);
    }
  g_autofree char *shown = g_utf8_make_valid (name, -1);
  g_autofree char *tip = row_tip (shown, skipped, cpu, model);
  gtk_list_store_set (w->layers.store, it, COL_NAME, shown, COL_SHAPE, shape,
                      COL_SIZE, (double) rows * (double) cols,
                      COL_DENSITY, density, COL_DENSITY_KEY, dk,
                      COL_BLOCKS, blocks, COL_BLOCKS_KEY, bk, COL_CPU, cpu,
                      COL_CPU_KEY, ck, COL_MODEL, model, COL_MODEL_KEY, mk,
                      COL_SHARE, share ? share : "", COL_SHARE_KEY, sk,
                      COL_TIP, tip, COL_LAYER, skipped == NULL, COL_ENTRY, i,
                      -1);
}

/* The survey's layer called name, or NULL. */
static SpxSurveyLayer *
survey_layer (const SpxSurvey *survey, const char *name)
{
  for (guint i = 0; survey != NULL && i < survey->layers->len; i++)
    {
      SpxSurveyLayer *l = survey->layers->pdata[i];
      if (g_str_equal (l->name, name))
        return l;
    }
  return NULL;
}

/* The row of the network's entry or survey layer called name. */
static void
update_row (SpxWindow *w, const char *name)
{
  GtkTreeModel *model = GTK_TREE_MODEL (w->layers.store);
  SpxNetwork *net = listed_network (w);
  g_autofree char *shown = g_utf8_make_valid (name, -1);
  GtkTreeIter it;
  for (gboolean ok = gtk_tree_model_get_iter_first (model, &it); ok;
       ok = gtk_tree_model_iter_next (model, &it))
    {
      g_autofree char *row = NULL;
      gtk_tree_model_get (model, &it, COL_NAME, &row, -1);
      if (!g_str_equal (row, shown))
        continue;
      set_row (w, &it, net ? spx_network_find (net, name) : -1,
               survey_layer (w->layers.survey, name));
      return;
    }
}

/* The block density column says which block size it shows. */
static void
title_blocks (SpxWindow *w)
{
  const SpxSurvey *survey = w->layers.survey;
  gint b = shown_block (survey);
  guint block = b >= 0 ? survey->settings.blocks[b] : SHOWN_BLOCK;
  g_autofree char *tip = g_strdup_printf ("Non-empty blocks at %u × %u",
                                          block, block);
  gtk_widget_set_tooltip_text (gtk_tree_view_column_get_widget (
                                 w->layers.blocks_column), tip);
}

/* The chart gets the height that shows every row of it, up to half the
 * page; the table the rest. A page not shown yet does it once it is. */
static void
fit_table (SpxWindow *w)
{
  gint page = gtk_widget_get_allocated_height (w->layers.paned);
  w->layers.fit_pending = page <= 1 ||
                          !gtk_widget_get_mapped (w->layers.paned);
  if (w->layers.fit_pending || w->layers.survey == NULL)
    return;
  double chart = spx_render_layers_height (
    w->layers.survey, spx_view_get_style (SPX_VIEW (w->layers.chart)));
  gtk_paned_set_position (GTK_PANED (w->layers.paned),
                          MAX (120, page - MIN ((gint) chart, page / 2)));
}

static gboolean
fit_later (gpointer data)
{
  SpxWindow *w = data;
  if (w->layers.fit_pending && !destroyed (w))
    fit_table (w);
  return G_SOURCE_REMOVE;
}

/* Not while the page is being laid out: at the next idle. */
static void
on_paned_allocated (GtkWidget *paned, GdkRectangle *area, SpxWindow *w)
{
  if (w->layers.fit_pending)
    g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, fit_later, g_object_ref (w),
                     g_object_unref);
}

/* Every row made again: the network's entries, then the survey's
 * layers it does not list (a saved survey without its network). */
static void
fill_rows (SpxWindow *w)
{
  SpxNetwork *net = listed_network (w);
  const SpxSurvey *survey = w->layers.survey;
  GtkTreeIter it;
  gtk_list_store_clear (w->layers.store);
  for (guint i = 0; net != NULL && i < spx_network_n_entries (net); i++)
    {
      const SpxNetworkEntry *e = spx_network_entry (net, i);
      gtk_list_store_append (w->layers.store, &it);
      set_row (w, &it, (gint) i, survey_layer (survey, e->name));
    }
  for (guint i = 0; survey != NULL && i < survey->layers->len; i++)
    {
      const SpxSurveyLayer *l = survey->layers->pdata[i];
      if (net != NULL && spx_network_find (net, l->name) >= 0)
        continue;
      gtk_list_store_append (w->layers.store, &it);
      set_row (w, &it, -1, l);
    }
  title_blocks (w);
  fit_table (w);
}

/* ---- the words and the chart --------------------------------------- */

static char *
settings_text (SpxWindow *w)
{
  const SpxScenario *sc = w->study->scenario;
  g_autofree char *dtype = spx_dtype_label (sc->dtype);
  g_autofree char *threads = spx_defaults_threads_text (sc->threads);
  return g_strdup_printf ("at n = %" G_GUINT64_FORMAT " in %s (IPU %s, "
                          "CPU %s: the panel's)", sc->n, dtype,
                          w->study->machine->name, threads);
}

/* Above the table: before a survey, what is listed and what Run Survey
 * does; then what the survey says of the whole network. */
static void
update_summary (SpxWindow *w)
{
  SpxNetwork *net = listed_network (w);
  const SpxSurvey *survey = w->layers.survey;
  g_autofree char *text = NULL;
  if (survey != NULL && survey->layers->len > 0)
    {
      text = spx_survey_describe (survey);
      text[0] = g_ascii_toupper (text[0]);
    }
  else if (net != NULL)
    {
      guint layers = spx_network_n_layers (net);
      guint skipped = spx_network_n_entries (net) - layers;
      g_autofree char *how = settings_text (w);
      g_autofree char *entries = spx_count_text (skipped, "entry",
                                                 "entries");
      g_autofree char *listed = spx_count_text (layers, "layer", "layers");
      g_autofree char *others = skipped
        ? g_strdup_printf (" (and %s that %s not, greyed)", entries,
                           skipped == 1 ? "is" : "are")
        : g_strdup ("");
      text = g_strdup_printf ("%s%s. Run Survey plans each on the IPU "
                              "model and measures it on this CPU %s; "
                              "double-click a layer to study it alone.",
                              listed, others, how);
    }
  gtk_label_set_text (GTK_LABEL (w->layers.summary), text ? text : "");
}

static void
update_chart (SpxWindow *w)
{
  SpxRenderLayersData *d = &w->layers.chart_data;
  const SpxSurvey *survey = w->layers.survey;
  d->survey = survey;
  d->running = w->layers.cancel != NULL;
  SpxView *view = SPX_VIEW (w->layers.chart);
  spx_view_set_renderer (view, survey ? spx_render_layers : NULL, d);
  /* every row legible: the chart scrolls when the network is long */
  gint height = survey ? (gint) ceil (spx_render_layers_height (
                  survey, spx_view_get_style (view))) : -1;
  gtk_widget_set_size_request (w->layers.chart, -1, height);
  gtk_widget_set_visible (w->layers.chart_box, survey != NULL);
}

void
_spx_window_layers_actions (SpxWindow *w)
{
  if (w->layers.survey == NULL) /* it says the panel's settings */
    update_summary (w);
  gboolean idle = w->layers.cancel == NULL && w->sweep_cancel == NULL;
  GActionMap *map = G_ACTION_MAP (w);
  g_simple_action_set_enabled (
    G_SIMPLE_ACTION (g_action_map_lookup_action (map, "run-survey")),
    idle && listed_network (w) != NULL);
  g_simple_action_set_enabled (
    G_SIMPLE_ACTION (g_action_map_lookup_action (map, "save-survey")),
    w->layers.survey != NULL && w->layers.survey->layers->len > 0);
}

static void
layers_changed (SpxWindow *w)
{
  update_summary (w);
  update_chart (w);
  _spx_window_update_busy (w);
}

/* ---- opening ------------------------------------------------------- */

gboolean
_spx_window_is_network (const char *path)
{
  return g_file_test (path, G_FILE_TEST_IS_DIR) ||
         spx_has_suffix (path, ".json") ||
         spx_format_can (spx_format_from_path (path),
                         SPX_FORMAT_READS_NETWORK);
}

typedef struct {
  guint         serial;
  char         *path;
  GCancellable *cancel;
  SpxNetwork   *network;
  SpxSurvey    *survey;  /* a saved survey's */
  GError       *error;
  GError       *gone;    /* a saved survey's network that did not open */
} OpenJob;

static void
open_job_free (OpenJob *j)
{
  g_free (j->path);
  g_clear_object (&j->cancel);
  spx_network_free (j->network);
  spx_survey_free (j->survey);
  g_clear_error (&j->error);
  g_clear_error (&j->gone);
  g_free (j);
}

/* A saved survey, and its network when it is still where it was. */
static void
read_survey (OpenJob *j)
{
  j->survey = spx_survey_load (j->path, &j->error);
  if (j->survey == NULL || j->survey->path == NULL)
    return;
  j->network = spx_network_open (j->survey->path, &j->gone);
}

static void
open_thread (GTask *task, gpointer source, gpointer data, GCancellable *c)
{
  OpenJob *j = data;
  g_cancellable_push_current (j->cancel);
  if (spx_has_suffix (j->path, ".json"))
    read_survey (j);
  else
    j->network = spx_network_open (j->path, &j->error);
  g_cancellable_pop_current (j->cancel);
  g_task_return_boolean (task, TRUE); /* the outcome is in j */
}

static void
show_page (SpxWindow *w)
{
  gtk_widget_show (w->layers.page);
  spx_window_show_view (w, SPX_WINDOW_LAYERS_VIEW);
}

/* A saved survey whose network is not there still shows its rows; the
 * bar says why its layers cannot be studied. */
static void
say_gone (SpxWindow *w, const OpenJob *j)
{
  if (j->gone == NULL)
    return;
  g_autofree char *msg = g_strdup_printf (
    "The survey's network did not open (%s): its rows are the saved ones, "
    "and its layers cannot be studied one by one until it is opened.",
    j->gone->message);
  _spx_window_show_message (w, GTK_MESSAGE_INFO, msg);
}

static void
open_done (GObject *source, GAsyncResult *result, gpointer data)
{
  SpxWindow *w = SPX_WINDOW (source);
  OpenJob *j = g_task_get_task_data (G_TASK (result));
  g_task_propagate_boolean (G_TASK (result), NULL);
  if (j->serial != w->layers.open_serial || destroyed (w))
    return; /* a newer request, or cancelled */
  g_clear_object (&w->layers.open_cancel);
  _spx_window_update_busy (w);
  if (j->error != NULL)
    {
      if (!g_error_matches (j->error, SPX_BUDGET_ERROR,
                            SPX_BUDGET_ERROR_CANCELLED))
        _spx_window_show_error (w, j->error->message);
      return;
    }
  _spx_window_clear_error (w);
  /* a survey running is of the network replaced */
  if (w->layers.cancel != NULL)
    g_cancellable_cancel (w->layers.cancel);
  _spx_shared_network_release (w->layers.network);
  w->layers.network = j->network
    ? _spx_shared_network_new (g_steal_pointer (&j->network)) : NULL;
  spx_survey_free (w->layers.survey);
  w->layers.survey = g_steal_pointer (&j->survey);
  w->layers.unsaved = FALSE;
  fill_rows (w);
  layers_changed (w);
  show_page (w);
  say_gone (w, j);
}

void
_spx_window_open_network (SpxWindow *w, const char *path)
{
  OpenJob *j = g_new0 (OpenJob, 1);
  j->path = g_strdup (path);
  j->serial = ++w->layers.open_serial;
  j->cancel = g_cancellable_new ();
  if (w->layers.open_cancel != NULL)
    g_cancellable_cancel (w->layers.open_cancel);
  g_set_object (&w->layers.open_cancel, j->cancel);
  _spx_window_pulse (w);
  _spx_window_update_busy (w);
  GTask *task = g_task_new (w, NULL, open_done, NULL);
  g_task_set_task_data (task, j, (GDestroyNotify) open_job_free);
  g_task_run_in_thread (task, open_thread);
  g_object_unref (task);
}

/* ---- the survey ---------------------------------------------------- */

typedef struct {
  SpxWindow        *window;  /* a reference */
  guint             serial;
  SpxSharedNetwork *network; /* a reference */
  SpxSurveyOptions  options;
  SpxIpuMachine    *machine; /* options' */
  GCancellable     *cancel;
  SpxSurvey        *survey;  /* the worker's own */
  GError           *error;
  /* the survey shown before, back when this one ends with no layer */
  SpxSurvey        *before;
  gboolean          before_unsaved;
} SurveyJob;

/* A point for the main loop, with what it needs of its layer. */
typedef struct {
  SpxWindow     *window;
  guint          serial, done, total;
  char          *name;
  guint          entry;
  guint64        rows, cols, nnz;
  double         density;
  SpxSweepPoint  point;
} PointMsg;

static void
survey_job_free (SurveyJob *j)
{
  g_object_unref (j->window);
  _spx_shared_network_release (j->network);
  spx_ipu_machine_free (j->machine);
  g_object_unref (j->cancel);
  spx_survey_free (j->survey);
  spx_survey_free (j->before);
  g_clear_error (&j->error);
  g_free (j);
}

/* The shown survey's layer for msg's entry, made when its first point
 * arrives. */
static SpxSurveyLayer *
layer_of (SpxSurvey *survey, const PointMsg *m)
{
  for (guint i = survey->layers->len; i-- > 0;)
    {
      SpxSurveyLayer *l = survey->layers->pdata[i];
      if (l->entry == m->entry)
        return l;
    }
  SpxSurveyLayer *l = g_new0 (SpxSurveyLayer, 1);
  l->name = g_strdup (m->name);
  l->entry = m->entry;
  l->rows = m->rows;
  l->cols = m->cols;
  l->nnz = m->nnz;
  l->density = m->density;
  for (guint b = 0; b < SPX_SWEEP_MAX_VALUES; b++)
    l->block_density[b] = NAN;
  l->points = g_array_new (FALSE, FALSE, sizeof (SpxSweepPoint));
  g_ptr_array_add (survey->layers, l);
  return l;
}

static void
add_point (SpxSurvey *survey, const PointMsg *m)
{
  SpxSurveyLayer *l = layer_of (survey, m);
  const SpxSurveyOptions *o = &survey->settings;
  g_array_append_val (l->points, m->point);
  for (guint b = 0; b < o->n_blocks; b++) /* a point has its block's */
    if (o->blocks[b] == m->point.block)
      l->block_density[b] = m->point.density;
  spx_survey_recommend (l);
  spx_survey_sum (survey);
}

static gboolean
deliver_point (gpointer data)
{
  PointMsg *m = data;
  SpxWindow *w = m->window;
  if (m->serial == w->layers.serial && w->layers.survey != NULL &&
      !destroyed (w))
    {
      guint layers = w->layers.survey->layers->len;
      add_point (w->layers.survey, m);
      w->layers.unsaved = TRUE;
      w->layers.done = m->done;
      w->layers.total = m->total;
      update_row (w, m->name);
      layers_changed (w);
      if (w->layers.survey->layers->len != layers) /* the chart grew */
        fit_table (w);
      _spx_window_update_busy (w);
    }
  g_object_unref (w);
  g_free (m->name);
  g_free (m);
  return G_SOURCE_REMOVE;
}

/* On the worker: each point to the main loop with its layer's figures
 * (the survey is the worker's until the run returns); stop when
 * cancelled (also midway through a CPU point: point is NULL then). */
static gboolean
survey_progress (guint done, guint total, guint layer,
                 const SpxSweepPoint *point, gpointer data)
{
  SurveyJob *j = data;
  if (point != NULL)
    {
      const SpxSurveyLayer *l = j->survey->layers->pdata[layer];
      PointMsg *m = g_new0 (PointMsg, 1);
      *m = (PointMsg) { g_object_ref (j->window), j->serial, done, total,
                        g_strdup (l->name), l->entry, l->rows, l->cols,
                        l->nnz, l->density, *point };
      g_idle_add (deliver_point, m);
    }
  return !g_cancellable_is_cancelled (j->cancel);
}

static void
survey_thread (GTask *task, gpointer source, gpointer data, GCancellable *c)
{
  SurveyJob *j = data;
  g_cancellable_push_current (j->cancel);
  spx_survey_run (j->survey, j->network->network, &j->options,
                  survey_progress, j, &j->error);
  g_cancellable_pop_current (j->cancel);
  g_task_return_boolean (task, TRUE); /* the outcome is in j */
}

/* The worker's survey is the final word: its layers (the one under way
 * when cancelled left out), skipped ones with why, every point judged
 * again; points still on their way are dropped. Stopped before its
 * first layer was done, the survey shown before comes back. */
static void
survey_done (GObject *source, GAsyncResult *result, gpointer data)
{
  SpxWindow *w = SPX_WINDOW (source);
  SurveyJob *j = data;
  g_task_propagate_boolean (G_TASK (result), NULL);
  if (j->serial == w->layers.serial && !destroyed (w))
    {
      g_clear_object (&w->layers.cancel);
      w->layers.serial++;
      gboolean none = j->survey->layers->len == 0 && j->before != NULL;
      if (j->network == w->layers.network) /* not another one's since */
        {
          spx_survey_free (w->layers.survey);
          w->layers.survey = none ? g_steal_pointer (&j->before)
                                  : g_steal_pointer (&j->survey);
          w->layers.unsaved = none ? j->before_unsaved
                                   : w->layers.survey->layers->len > 0;
          fill_rows (w);
        }
      if (j->error != NULL && !g_error_matches (j->error, SPX_SWEEP_ERROR,
                                                SPX_SWEEP_ERROR_CANCELLED))
        _spx_window_show_error (w, j->error->message);
      layers_changed (w);
      _spx_window_update_busy (w);
    }
  survey_job_free (j);
}

/* What Run Survey runs: the panel's n, numbers, machine and threads;
 * the sources chosen beside the button. */
static void
survey_options (SpxWindow *w, SurveyJob *j)
{
  const SpxScenario *sc = w->study->scenario;
  gint s = gtk_combo_box_get_active (GTK_COMBO_BOX (w->layers.sources));
  SpxSurveyOptions *o = &j->options;
  spx_survey_options_init (o);
  o->n = sc->n;
  o->dtype = sc->dtype;
  o->threads = sc->threads;
  j->machine = spx_ipu_machine_copy (w->study->machine);
  o->machine = j->machine;
  o->run_model = sources[MAX (s, 0)].model;
  o->run_cpu = sources[MAX (s, 0)].cpu;
}

/* The shown survey starts empty with the run's settings, as the
 * worker's does, and grows as points arrive. */
static SpxSurvey *
shown_survey (const SurveyJob *j)
{
  SpxSurvey *survey = spx_survey_new ();
  SpxNetwork *net = j->network->network;
  survey->settings = j->options;
  survey->settings.machine = spx_ipu_machine_copy (j->machine);
  survey->path = g_strdup (spx_network_path (net));
  survey->format = g_strdup (spx_network_format (net));
  return survey;
}

void
_spx_window_run_survey (SpxWindow *w)
{
  if (w->layers.cancel != NULL || w->sweep_cancel != NULL ||
      listed_network (w) == NULL)
    return;
  SurveyJob *j = g_new0 (SurveyJob, 1);
  j->window = g_object_ref (w);
  j->serial = ++w->layers.serial;
  j->network = g_atomic_rc_box_acquire (w->layers.network);
  survey_options (w, j);
  j->cancel = g_cancellable_new ();
  j->survey = spx_survey_new ();
  w->layers.cancel = g_object_ref (j->cancel);
  j->before = g_steal_pointer (&w->layers.survey);
  j->before_unsaved = w->layers.unsaved;
  w->layers.survey = shown_survey (j);
  w->layers.done = 0;
  w->layers.total = spx_survey_total (j->network->network, &j->options);
  fill_rows (w);
  layers_changed (w);
  _spx_window_update_busy (w);
  GTask *task = g_task_new (w, NULL, survey_done, j);
  g_task_set_task_data (task, j, NULL); /* freed by survey_done */
  g_task_run_in_thread (task, survey_thread);
  g_object_unref (task);
}

gboolean
_spx_window_surveying (SpxWindow *w, guint *done, guint *total)
{
  *done = w->layers.done;
  *total = w->layers.total;
  return w->layers.cancel != NULL;
}

gboolean
_spx_window_layers_busy (SpxWindow *w)
{
  return w->layers.cancel != NULL || w->layers.open_cancel != NULL;
}

void
_spx_window_layers_cancel (SpxWindow *w)
{
  if (w->layers.cancel != NULL)
    g_cancellable_cancel (w->layers.cancel);
  if (w->layers.open_cancel != NULL)
    {
      w->layers.open_serial++; /* its result will be dropped */
      g_cancellable_cancel (w->layers.open_cancel);
      g_clear_object (&w->layers.open_cancel);
    }
}

void
_spx_window_layers_free (SpxWindow *w)
{
  g_clear_object (&w->layers.open_cancel);
  g_clear_object (&w->layers.cancel);
  g_clear_pointer (&w->layers.network, _spx_shared_network_release);
  g_clear_pointer (&w->layers.survey, spx_survey_free);
  g_clear_object (&w->layers.store);
}

/* ---- saving -------------------------------------------------------- */

static gboolean
write_survey (SpxWindow *w, const char *path, SpxSaveFlags flags,
              gpointer data, GError **error)
{
  return spx_survey_save (data, path, flags, error);
}

gboolean
_spx_window_save_survey (SpxWindow *w, const char *path)
{
  SpxSurvey *survey = w->layers.survey;
  if (survey == NULL || !_spx_window_write (w, path, write_survey, survey))
    return FALSE;
  /* a JSON file reopens as it was; a CSV file does not */
  if (spx_has_suffix (path, ".json"))
    w->layers.unsaved = FALSE;
  _spx_window_confirm_saved (w, path);
  return TRUE;
}

/* "0.9-survey.json" for a folder …/0.9, "model-survey.json" for a file
 * model.safetensors. */
static char *
survey_name (const SpxSurvey *survey)
{
  g_autofree char *base = survey->path
    ? g_filename_display_basename (survey->path) : g_strdup ("network");
  char *dot = strrchr (base, '.');
  if (dot != NULL && dot != base && g_strcmp0 (survey->format, "folder"))
    *dot = '\0';
  return g_strdup_printf ("%s-survey.json", base);
}

void
_spx_window_save_survey_dialog (SpxWindow *w)
{
  if (w->layers.survey == NULL)
    return;
  /* beside the network */
  const char *net = w->layers.survey->path;
  g_autofree char *folder = net ? g_path_get_dirname (net) : NULL;
  g_autofree char *name = survey_name (w->layers.survey);
  g_autofree char *path = _spx_window_choose_save_path (
    w, "Save the Survey (.json, .csv)",
    folder && g_file_test (folder, G_FILE_TEST_IS_DIR) ? folder : NULL,
    name);
  if (path == NULL)
    return;
  if (!spx_has_suffix (path, ".json") && !spx_has_suffix (path, ".csv"))
    {
      char *with = g_strconcat (path, ".json", NULL);
      g_free (path);
      path = with;
    }
  _spx_window_save_survey (w, path);
}

gboolean
_spx_window_may_replace_survey (SpxWindow *w)
{
  if (!w->layers.unsaved || w->layers.survey == NULL)
    return TRUE;
  GtkWidget *d = gtk_message_dialog_new (
    GTK_WINDOW (w), GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
    GTK_MESSAGE_QUESTION, GTK_BUTTONS_NONE, "Save the survey first?");
  gtk_message_dialog_format_secondary_text (
    GTK_MESSAGE_DIALOG (d), "Without saving, its measurements are lost and "
    "the network must be measured again.");
  gtk_dialog_add_buttons (GTK_DIALOG (d), "_Cancel", GTK_RESPONSE_CANCEL,
                          "_Discard", GTK_RESPONSE_REJECT, "_Save…",
                          GTK_RESPONSE_ACCEPT, NULL);
  gtk_dialog_set_default_response (GTK_DIALOG (d), GTK_RESPONSE_ACCEPT);
  gint r = gtk_dialog_run (GTK_DIALOG (d));
  gtk_widget_destroy (d);
  if (r == GTK_RESPONSE_ACCEPT)
    {
      _spx_window_save_survey_dialog (w);
      return !w->layers.unsaved;
    }
  return r == GTK_RESPONSE_REJECT;
}

/* ---- the page ------------------------------------------------------ */

/* Why a row (of entry in the network open, or -1) cannot be studied,
 * or NULL when it can: the entry is a layer (one the survey left out as
 * all zero still can). */
static const char *
not_studied (SpxNetwork *net, gint entry)
{
  if (net == NULL)
    return "its network is not open (open it, then double-click again)";
  if (entry < 0)
    return "the network open has no layer of that name";
  return spx_network_entry (net, (guint) entry)->skipped;
}

/* A double-click studies the layer; a skipped one says why not. */
static void
on_row_activated (GtkTreeView *tree, GtkTreePath *path,
                  GtkTreeViewColumn *column, SpxWindow *w)
{
  GtkTreeModel *model = gtk_tree_view_get_model (tree);
  GtkTreeIter it;
  g_autofree char *name = NULL;
  gint e = -1;
  if (!gtk_tree_model_get_iter (model, &it, path))
    return;
  gtk_tree_model_get (model, &it, COL_NAME, &name, COL_ENTRY, &e, -1);
  const char *why = not_studied (listed_network (w), e);
  if (why != NULL)
    {
      g_autofree char *msg = g_strdup_printf ("%s cannot be studied: %s",
                                              name, why);
      _spx_window_show_error (w, msg);
      return;
    }
  _spx_window_cancel_work (w);
  _spx_window_load_layer (w, w->layers.network, (guint) e);
}

/* A column of text col sorted by key: a number right-aligned; words
 * end in "…" when short of room (the row's tooltip has them whole), the
 * name taking the width left. */
static GtkTreeViewColumn *
text_column (GtkTreeView *tree, const char *title, const char *tooltip,
             gint col, gint key, gboolean numeric)
{
  GtkCellRenderer *cell = gtk_cell_renderer_text_new ();
  if (numeric)
    g_object_set (cell, "xalign", 1.0, NULL);
  else
    g_object_set (cell, "ellipsize", PANGO_ELLIPSIZE_END, NULL);
  GtkTreeViewColumn *c = gtk_tree_view_column_new_with_attributes (
    title, cell, "text", col, "sensitive", COL_LAYER, NULL);
  GtkWidget *header = gtk_label_new (title);
  gtk_widget_set_tooltip_text (header, tooltip);
  gtk_widget_show (header);
  gtk_tree_view_column_set_widget (c, header);
  gtk_tree_view_column_set_sort_column_id (c, key);
  gtk_tree_view_column_set_resizable (c, TRUE);
  gtk_tree_view_column_set_expand (c, col == COL_NAME);
  if (numeric)
    gtk_tree_view_column_set_alignment (c, 1.0);
  else
    gtk_tree_view_column_set_min_width (c, col == COL_NAME ? 140 : 96);
  gtk_tree_view_append_column (tree, c);
  return c;
}

static GtkWidget *
table_new (SpxWindow *w)
{
  w->layers.store = gtk_list_store_new (
    N_COLS, G_TYPE_STRING, G_TYPE_STRING, G_TYPE_DOUBLE, G_TYPE_STRING,
    G_TYPE_DOUBLE, G_TYPE_STRING, G_TYPE_DOUBLE, G_TYPE_STRING,
    G_TYPE_DOUBLE, G_TYPE_STRING, G_TYPE_DOUBLE, G_TYPE_STRING,
    G_TYPE_DOUBLE, G_TYPE_STRING, G_TYPE_BOOLEAN, G_TYPE_INT);
  GtkWidget *tree = gtk_tree_view_new_with_model (
    GTK_TREE_MODEL (w->layers.store));
  GtkTreeView *t = GTK_TREE_VIEW (tree);
  w->layers.tree = tree;
  text_column (t, "Layer", "Its name in the network (a click on a header "
               "sorts by it)", COL_NAME, COL_NAME, FALSE);
  text_column (t, "Shape", "Rows × columns (a convolution's [out, in, kh, "
               "kw] as out × in·kh·kw)", COL_SHAPE, COL_SIZE, TRUE);
  text_column (t, "Density", "Non-zero elements", COL_DENSITY,
               COL_DENSITY_KEY, TRUE);
  w->layers.blocks_column = text_column (t, "Blocks", NULL, COL_BLOCKS,
                                         COL_BLOCKS_KEY, TRUE);
  text_column (t, "Best CPU", "The fastest mode and block size measured on "
               "this CPU, and its speedup over dense; keep dense when none "
               "beats it", COL_CPU, COL_CPU_KEY, FALSE);
  text_column (t, "Best IPU", "The same on the IPU model (planned)",
               COL_MODEL, COL_MODEL_KEY, FALSE);
  text_column (t, "Dense time", "The layer's share of the network's dense "
               "time (this CPU's when measured, else the model's)",
               COL_SHARE, COL_SHARE_KEY, TRUE);
  gtk_tree_view_set_tooltip_column (t, COL_TIP);
  gtk_tree_view_set_search_column (t, COL_NAME);
  gtk_tree_view_set_activate_on_single_click (t, FALSE);
  g_signal_connect (tree, "row-activated", G_CALLBACK (on_row_activated), w);
  GtkWidget *scroll = gtk_scrolled_window_new (NULL, NULL);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroll),
                                  GTK_POLICY_AUTOMATIC, GTK_POLICY_AUTOMATIC);
  gtk_widget_set_size_request (scroll, -1, 120);
  gtk_container_add (GTK_CONTAINER (scroll), tree);
  return scroll;
}

/* Run Survey, what it measures, Save Survey. */
static GtkWidget *
tools_new (SpxWindow *w)
{
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_container_set_border_width (GTK_CONTAINER (row), 4);
  w->layers.run_button = gtk_button_new_with_mnemonic ("Run S_urvey");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (w->layers.run_button),
                                  "win.run-survey");
  gtk_widget_set_tooltip_text (w->layers.run_button, "Plan every layer on "
                               "the IPU model and measure it on this CPU at "
                               "block sizes 1 to 16, static, dynamic and "
                               "tile-wise, at the panel's n, numbers, "
                               "machine and threads (Escape stops it, "
                               "keeping the layers done)");
  w->layers.sources = gtk_combo_box_text_new ();
  for (guint i = 0; i < G_N_ELEMENTS (sources); i++)
    gtk_combo_box_text_append_text (GTK_COMBO_BOX_TEXT (w->layers.sources),
                                    sources[i].text);
  gtk_combo_box_set_active (GTK_COMBO_BOX (w->layers.sources), 0);
  gtk_widget_set_tooltip_text (w->layers.sources, "What Run Survey runs: "
                               "the IPU model alone takes a moment; this "
                               "CPU measures every point");
  GtkWidget *save = gtk_button_new_with_mnemonic ("Sa_ve Survey…");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (save), "win.save-survey");
  gtk_widget_set_tooltip_text (save, "Save the survey as JSON (it reopens "
                               "without measuring again) or CSV");
  gtk_box_pack_start (GTK_BOX (row), w->layers.run_button, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (row), w->layers.sources, FALSE, FALSE, 0);
  gtk_box_pack_end (GTK_BOX (row), save, FALSE, FALSE, 0);
  return row;
}

GtkWidget *
_spx_window_layers_page_new (SpxWindow *w)
{
  w->layers.summary = gtk_label_new (NULL);
  GtkLabel *summary = GTK_LABEL (w->layers.summary);
  gtk_label_set_xalign (summary, 0);
  gtk_label_set_line_wrap (summary, TRUE);
  gtk_label_set_selectable (summary, TRUE);
  gtk_widget_set_margin_start (w->layers.summary, 8);
  gtk_widget_set_margin_end (w->layers.summary, 8);
  gtk_widget_set_margin_bottom (w->layers.summary, 4);
  w->layers.chart = spx_view_new ();
  GtkWidget *chart = w->layers.chart_box = gtk_scrolled_window_new (NULL,
                                                                     NULL);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (chart),
                                  GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_container_add (GTK_CONTAINER (chart), w->layers.chart);
  GtkWidget *paned = w->layers.paned = gtk_paned_new (
    GTK_ORIENTATION_VERTICAL);
  g_signal_connect (paned, "size-allocate",
                    G_CALLBACK (on_paned_allocated), w);
  gtk_paned_pack1 (GTK_PANED (paned), table_new (w), TRUE, FALSE);
  gtk_paned_pack2 (GTK_PANED (paned), chart, TRUE, FALSE);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_box_pack_start (GTK_BOX (box), tools_new (w), FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (box), w->layers.summary, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (box), paned, TRUE, TRUE, 0);
  /* shown once a network is opened */
  gtk_widget_show_all (box);
  gtk_widget_hide (chart); /* until a survey */
  gtk_widget_set_no_show_all (box, TRUE);
  gtk_widget_hide (box);
  w->layers.page = box;
  return box;
}
