/* spx-window-layers.c: the Layers page: a network's layers in a table
 * (sortable) over the survey's chart. The network (or a saved survey) is
 * read on a worker; Run Survey runs on another and sends each point to
 * the main loop, so rows fill as it measures; a double-clicked layer
 * becomes the study's subject while the survey stays. */
#include "spx-window-private.h"
#include "spx-window-layers-private.h"
#include "spx-mask-io.h"
#include "spx-defaults.h"
#include "spx-util.h"

#include <math.h>
#include <string.h>

/* The block size whose density the table shows, when surveyed. */
#define SHOWN_BLOCK 16



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
  /* what "keep dense" means, where a choice says it (not before a
   * survey, where it would read as a verdict) */
  if (strstr (cpu, "keep dense") != NULL || strstr (model, "keep dense"))
    g_string_append_printf (tip, "\nKeep dense: nothing beat dense by "
                            "%.0f%%.", 100 * (SPX_SURVEY_FASTER - 1));
  g_string_append (tip, "\nDouble-click to study this layer alone: its "
                   "mask, tiles, exchange and its own sweep.");
  return g_string_free (tip, FALSE);
}

static char *
percent (double fraction, double *key)
{
  *key = isfinite (fraction) ? fraction : -1;
  return isfinite (fraction) ? g_strdup_printf ("%.1f%%", 100 * fraction)
                             : g_strdup ("—");
}

SpxNetwork *
_spx_window_layers_network (SpxWindow *w)
{
  return w->layers.network ? w->layers.network->network : NULL;
}

/* A row's columns from entry i of the network open (-1 for a saved
 * survey's layer the network does not list) and its layer in the survey
 * (NULL: not surveyed). */
static void
set_row (SpxWindow *w, GtkTreeIter *it, gint i, const SpxSurveyLayer *l)
{
  const SpxNetworkEntry *e = i >= 0 ? spx_network_entry (_spx_window_layers_network (w),
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
    share = percent (spx_survey_layer_share (survey, l), &sk);
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

/* The survey's layers by name. */
static GHashTable *
layers_by_name (const SpxSurvey *survey)
{
  GHashTable *by = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; survey != NULL && i < survey->layers->len; i++)
    {
      SpxSurveyLayer *l = survey->layers->pdata[i];
      g_hash_table_insert (by, l->name, l);
    }
  return by;
}

/* The row of the network's entry (or -1) called name, from its layer
 * l: found by name (the store's iters persist), in time independent of
 * the rows. */
static void
update_row (SpxWindow *w, const char *name, gint entry,
            const SpxSurveyLayer *l)
{
  GtkTreeIter *it = g_hash_table_lookup (w->layers.rows, name);
  if (it != NULL)
    set_row (w, it, entry, l);
}

/* A row appended for entry (or -1) and layer l, found by its name. */
static void
append_row (SpxWindow *w, const char *name, gint entry,
            const SpxSurveyLayer *l)
{
  GtkTreeIter it;
  gtk_list_store_append (w->layers.store, &it);
  set_row (w, &it, entry, l);
  g_hash_table_replace (w->layers.rows, g_strdup (name),
                        g_memdup2 (&it, sizeof it));
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

/* The chart's width: the page's (before it is laid out, a narrow
 * window's, so that the sentence below it has room). */
static double
chart_width (SpxWindow *w)
{
  return w->layers.width > 1 ? w->layers.width : 640;
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
    w->layers.survey, spx_view_get_style (SPX_VIEW (w->layers.chart)),
    chart_width (w));
  gtk_paned_set_position (GTK_PANED (w->layers.paned),
                          MAX (120, page - MIN ((gint) chart, page / 2)));
}

static void update_chart (SpxWindow *w);

static gboolean
fit_later (gpointer data)
{
  SpxWindow *w = data;
  if (destroyed (w))
    return G_SOURCE_REMOVE;
  update_chart (w); /* its sentence's lines follow the width */
  if (w->layers.fit_pending)
    fit_table (w);
  return G_SOURCE_REMOVE;
}

/* Not while the page is being laid out: at the next idle. */
void
_spx_window_layers_allocated (GtkWidget *paned, GdkRectangle *area,
                              SpxWindow *w)
{
  gboolean resized = area->width != w->layers.width;
  w->layers.width = area->width;
  if (w->layers.fit_pending || resized)
    g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, fit_later, g_object_ref (w),
                     g_object_unref);
}

/* Every row made again: the network's entries, then the survey's
 * layers it does not list (a saved survey without its network). */
static void
fill_rows (SpxWindow *w)
{
  SpxNetwork *net = _spx_window_layers_network (w);
  const SpxSurvey *survey = w->layers.survey;
  g_autoptr (GHashTable) layers = layers_by_name (survey);
  gtk_list_store_clear (w->layers.store);
  g_hash_table_remove_all (w->layers.rows);
  for (guint i = 0; net != NULL && i < spx_network_n_entries (net); i++)
    {
      const SpxNetworkEntry *e = spx_network_entry (net, i);
      append_row (w, e->name, (gint) i,
                  g_hash_table_lookup (layers, e->name));
    }
  for (guint i = 0; survey != NULL && i < survey->layers->len; i++)
    {
      const SpxSurveyLayer *l = survey->layers->pdata[i];
      if (!g_hash_table_contains (w->layers.rows, l->name))
        append_row (w, l->name, -1, l);
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
  SpxNetwork *net = _spx_window_layers_network (w);
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
  d->running = w->layers.job != NULL;
  SpxView *view = SPX_VIEW (w->layers.chart);
  spx_view_set_renderer (view, survey ? spx_render_layers : NULL, d);
  /* every row legible: the chart scrolls when the network is long */
  gint height = survey ? (gint) ceil (spx_render_layers_height (
                  survey, spx_view_get_style (view), chart_width (w))) : -1;
  gtk_widget_set_size_request (w->layers.chart, -1, height);
  gtk_widget_set_visible (w->layers.chart_box, survey != NULL);
}

/* Whether the survey shown has a layer Measure Again would measure. */
static gboolean
has_noisy (const SpxSurvey *survey)
{
  for (guint i = 0; survey != NULL && i < survey->layers->len; i++)
    if (spx_survey_layer_noisy (survey->layers->pdata[i]))
      return TRUE;
  return FALSE;
}

void
_spx_window_layers_actions (SpxWindow *w)
{
  if (w->layers.survey == NULL) /* it says the panel's settings */
    update_summary (w);
  gboolean idle = w->layers.job == NULL && w->sweep_job == NULL;
  GActionMap *map = G_ACTION_MAP (w);
  g_simple_action_set_enabled (
    G_SIMPLE_ACTION (g_action_map_lookup_action (map, "run-survey")),
    idle && _spx_window_layers_network (w) != NULL);
  g_simple_action_set_enabled (
    G_SIMPLE_ACTION (g_action_map_lookup_action (map, "survey-again")),
    idle && _spx_window_layers_network (w) != NULL &&
    has_noisy (w->layers.survey));
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
  char         *path;
  SpxNetwork   *network;
  SpxSurvey    *survey;  /* a saved survey's */
  GError       *gone;    /* a saved survey's network that did not open */
} OpenJob;

static void
open_job_free (gpointer data)
{
  OpenJob *j = data;
  g_free (j->path);
  spx_network_free (j->network);
  spx_survey_free (j->survey);
  g_clear_error (&j->gone);
  g_free (j);
}

/* A saved survey, and its network when it is still where it was. */
static void
read_survey (OpenJob *j, GError **error)
{
  j->survey = spx_survey_load (j->path, error);
  if (j->survey == NULL || j->survey->path == NULL)
    return;
  j->network = spx_network_open (j->survey->path, &j->gone);
}

static void
open_run (SpxJob *job, gpointer data, GError **error)
{
  OpenJob *j = data;
  if (spx_has_suffix (j->path, ".json"))
    read_survey (j, error);
  else
    j->network = spx_network_open (j->path, error);
}

static void
show_page (SpxWindow *w)
{
  gtk_widget_show (w->layers.content);
  gtk_stack_set_visible_child (GTK_STACK (w->layers.inner),
                               w->layers.content);
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
open_done (gpointer owner, gpointer data, const GError *error)
{
  SpxWindow *w = owner;
  OpenJob *j = data;
  g_clear_pointer (&w->layers.open_job, spx_job_unref);
  _spx_window_update_busy (w);
  if (error != NULL)
    {
      if (!g_error_matches (error, SPX_BUDGET_ERROR,
                            SPX_BUDGET_ERROR_CANCELLED))
        _spx_window_show_error (w, error->message);
      return;
    }
  _spx_window_clear_error (w);
  /* a survey running is of the network replaced */
  if (w->layers.job != NULL)
    spx_job_cancel (w->layers.job);
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

static const SpxJobKind open_kind = {
  open_run, NULL, open_done, open_job_free, NULL
};

/* A newer request drops the one under way. */
void
_spx_window_open_network (SpxWindow *w, const char *path)
{
  OpenJob *j = g_new0 (OpenJob, 1);
  j->path = g_strdup (path);
  g_clear_pointer (&w->layers.open_job, spx_job_drop);
  w->layers.open_job = spx_job_start (&open_kind, w, j);
  _spx_window_pulse (w);
  _spx_window_update_busy (w);
}

/* ---- the survey ---------------------------------------------------- */

typedef struct {
  SpxSharedNetwork *network; /* a reference */
  SpxSurveyOptions  options;
  SpxIpuMachine    *machine; /* options' */
  SpxSurvey        *survey;  /* the worker's own */
  /* the survey shown before, back when this one ends with no layer */
  SpxSurvey        *before;
  gboolean          before_unsaved;
  gboolean          again;   /* the noisy layers of survey measured again */
} SurveyJob;

/* A point for the main loop, with what it needs of its layer (no name:
 * measuring again, progress only). */
typedef struct {
  char          *name;
  guint          entry;
  guint64        rows, cols, nnz;
  double         density;
  SpxSweepPoint  point;
} PointMsg;

static void
survey_job_free (gpointer data)
{
  SurveyJob *j = data;
  _spx_shared_network_release (j->network);
  spx_ipu_machine_free (j->machine);
  spx_survey_free (j->survey);
  spx_survey_free (j->before);
  g_free (j);
}

static void
point_msg_free (gpointer data)
{
  PointMsg *m = data;
  g_free (m->name);
  g_free (m);
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
  spx_survey_tally (survey, l, 1);
  return l;
}

/* The point added to its layer; the layer's part in the totals taken
 * out and added back, not every layer's summed again. */
static SpxSurveyLayer *
add_point (SpxSurvey *survey, const PointMsg *m)
{
  SpxSurveyLayer *l = layer_of (survey, m);
  const SpxSurveyOptions *o = &survey->settings;
  spx_survey_tally (survey, l, -1);
  g_array_append_val (l->points, m->point);
  for (guint b = 0; b < o->n_blocks; b++) /* a point has its block's */
    if (o->blocks[b] == m->point.block)
      l->block_density[b] = m->point.density;
  spx_survey_recommend (l);
  spx_survey_tally (survey, l, 1);
  return l;
}

static void
deliver_point (gpointer owner, gpointer data, gpointer message)
{
  SpxWindow *w = owner;
  PointMsg *m = message;
  if (m->name != NULL && w->layers.survey != NULL)
    {
      guint layers = w->layers.survey->layers->len;
      SpxSurveyLayer *l = add_point (w->layers.survey, m);
      w->layers.unsaved = TRUE;
      update_row (w, m->name, (gint) m->entry, l);
      layers_changed (w);
      if (w->layers.survey->layers->len != layers) /* the chart grew */
        fit_table (w);
    }
  _spx_window_update_busy (w);
}

typedef struct {
  SpxJob    *job;
  SurveyJob *survey;
} Progress;

/* On the worker: each point to the main loop with its layer's figures
 * (the survey is the worker's until the run returns); stop when
 * cancelled (also midway through a CPU point: point is NULL then). */
static gboolean
survey_progress (guint done, guint total, guint layer,
                 const SpxSweepPoint *point, gpointer data)
{
  Progress *p = data;
  if (point != NULL)
    {
      PointMsg *m = g_new0 (PointMsg, 1);
      if (!p->survey->again)
        {
          const SpxSurveyLayer *l = p->survey->survey->layers->pdata[layer];
          *m = (PointMsg) { g_strdup (l->name), l->entry, l->rows, l->cols,
                            l->nnz, l->density, *point };
        }
      spx_job_post (p->job, done, total, m);
    }
  return !spx_job_cancelled (p->job);
}

static void
survey_run (SpxJob *job, gpointer data, GError **error)
{
  SurveyJob *j = data;
  Progress p = { job, j };
  if (j->again)
    spx_survey_measure_again (j->survey, j->network->network, 1,
                              survey_progress, &p, error);
  else
    spx_survey_run (j->survey, j->network->network, &j->options,
                    survey_progress, &p, error);
}

/* The worker's survey is the final word: its layers (the one under way
 * when cancelled left out), skipped ones with why, every point judged
 * again (points still on their way are not delivered after it). Stopped
 * before its first layer was done, the survey shown before comes back. */
static void
survey_done (gpointer owner, gpointer data, const GError *error)
{
  SpxWindow *w = owner;
  SurveyJob *j = data;
  g_clear_pointer (&w->layers.job, spx_job_unref);
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
  if (error != NULL &&
      !g_error_matches (error, SPX_SWEEP_ERROR, SPX_SWEEP_ERROR_CANCELLED))
    _spx_window_show_error (w, error->message);
  layers_changed (w);
  _spx_window_update_busy (w);
}

static const SpxJobKind survey_kind = {
  survey_run, deliver_point, survey_done, survey_job_free, point_msg_free
};

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
  _spx_window_layers_source (s, &o->run_model, &o->run_cpu);
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

static gboolean
survey_free_to_run (SpxWindow *w)
{
  return w->layers.job == NULL && w->sweep_job == NULL &&
         _spx_window_layers_network (w) != NULL;
}

void
_spx_window_survey_again (SpxWindow *w)
{
  if (!survey_free_to_run (w) || !has_noisy (w->layers.survey))
    return;
  SurveyJob *j = g_new0 (SurveyJob, 1);
  j->network = g_atomic_rc_box_acquire (w->layers.network);
  j->again = TRUE;
  /* the worker's own copy; the one shown stays until it is done */
  j->survey = spx_survey_copy (w->layers.survey);
  w->layers.job = spx_job_start (&survey_kind, w, j);
  spx_job_set_progress (w->layers.job, 0, 1);
  _spx_window_update_busy (w);
}

void
_spx_window_run_survey (SpxWindow *w)
{
  if (!survey_free_to_run (w))
    return;
  SurveyJob *j = g_new0 (SurveyJob, 1);
  j->network = g_atomic_rc_box_acquire (w->layers.network);
  survey_options (w, j);
  j->survey = spx_survey_new ();
  j->before = g_steal_pointer (&w->layers.survey);
  j->before_unsaved = w->layers.unsaved;
  w->layers.survey = shown_survey (j);
  guint total = spx_survey_total (j->network->network, &j->options);
  w->layers.job = spx_job_start (&survey_kind, w, j);
  spx_job_set_progress (w->layers.job, 0, total);
  fill_rows (w);
  layers_changed (w);
  _spx_window_update_busy (w);
}

gboolean
_spx_window_surveying (SpxWindow *w, guint *done, guint *total)
{
  *done = *total = 0;
  if (w->layers.job != NULL)
    spx_job_progress (w->layers.job, done, total);
  return w->layers.job != NULL;
}

gboolean
_spx_window_layers_busy (SpxWindow *w)
{
  return w->layers.job != NULL || w->layers.open_job != NULL;
}

void
_spx_window_layers_cancel (SpxWindow *w)
{
  if (w->layers.job != NULL)
    spx_job_cancel (w->layers.job);
  g_clear_pointer (&w->layers.open_job, spx_job_drop); /* nothing of it */
}

void
_spx_window_layers_free (SpxWindow *w)
{
  g_clear_pointer (&w->layers.open_job, spx_job_drop);
  g_clear_pointer (&w->layers.job, spx_job_drop);
  g_clear_pointer (&w->layers.network, _spx_shared_network_release);
  g_clear_pointer (&w->layers.survey, spx_survey_free);
  g_clear_object (&w->layers.sorted);
  g_clear_object (&w->layers.filter);
  g_clear_object (&w->layers.store);
  g_clear_pointer (&w->layers.rows, g_hash_table_unref);
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

