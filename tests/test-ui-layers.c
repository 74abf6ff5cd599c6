/* test-ui-layers.c: the window's Layers page under a display: a folder
 * made here (mask files, a safetensors file, a file that does not read)
 * is listed without touching the subject; a survey fills the rows point
 * by point and agrees with the same survey run without the window; a
 * double-clicked layer becomes the subject; a saved survey reopens
 * without measuring; a cancelled survey keeps the layers done. */
#include "spx-mask-io.h"
#include "spx-util.h"
#include "test-files.h"
#include "test-ui.h"

#include <string.h>

/* The columns the tests read, in the page's store's order. */
enum { COL_NAME, COL_DENSITY = 3, COL_CPU = 7, COL_MODEL = 9, COL_TIP = 13,
       COL_LAYER = 14 };

#define SMALL_N 64 /* the surveys' n: quick on the CPU */

static char *tmp_dir;

/* The layer of the safetensors file: 8 × 12, these non-zeros. */
#define NET_ROWS 8
#define NET_COLS 12
static const guint nonzeros[][2] = { { 0, 0 }, { 3, 7 }, { 7, 11 },
                                     { 5, 2 }, { 5, 3 } };

/* A folder of layers: two mask files copied from the data, a file that
 * does not read, a safetensors file (a layer and a bias), and a text
 * file that no format reads. The large layer comes second, so that a
 * survey stopped there has one layer done. */
static char *
make_folder (const char *name)
{
  static const char *const copies[][2] = {
    { "cli-tiny.mtx", "a-tiny.mtx" },
    { "transformer-magnitude_pruning-0.98-attention_q.smtx",
      "b-attention.smtx" },
  };
  char *dir = g_build_filename (tmp_dir, name, NULL);
  g_mkdir (dir, 0700);
  for (guint i = 0; i < G_N_ELEMENTS (copies); i++)
    {
      g_autofree char *from = data_path (copies[i][0]);
      g_autofree char *to = g_build_filename (dir, copies[i][1], NULL);
      g_autofree char *text = test_read_all (from);
      g_assert_true (g_file_set_contents (to, text, -1, NULL));
    }
  g_autofree char *broken = g_build_filename (dir, "c-broken.mtx", NULL);
  g_assert_true (g_file_set_contents (broken, "%%MatrixMarket matrix "
                                      "coordinate pattern general\n3 3 1\n"
                                      "9 9\n", -1, NULL));
  guint8 values[NET_ROWS * NET_COLS] = { 0 };
  for (guint i = 0; i < G_N_ELEMENTS (nonzeros); i++)
    values[nonzeros[i][0] * NET_COLS + nonzeros[i][1]] = (guint8) (i + 1);
  g_autofree char *net = g_build_filename (dir, "d-net.safetensors", NULL);
  test_write_safetensors (net, "w", NET_ROWS, NET_COLS, values);
  g_autofree char *notes = g_build_filename (dir, "notes.txt", NULL);
  g_assert_true (g_file_set_contents (notes, "not a mask\n", -1, NULL));
  return dir;
}

static void
open_path (SpxWindow *w, const char *path)
{
  g_autoptr (GFile) file = g_file_new_for_path (path);
  spx_window_open_file (w, file, FALSE);
  wait_idle (w);
}

static gboolean
layers_shown (SpxWindow *w)
{
  return g_strcmp0 (gtk_stack_get_visible_child_name (GTK_STACK (w->stack)),
                    SPX_WINDOW_LAYERS_VIEW) == 0;
}

/* The row called name (the test fails without one). */
static void
row_named (SpxWindow *w, const char *name, GtkTreeIter *it)
{
  GtkTreeModel *model = GTK_TREE_MODEL (w->layers.store);
  for (gboolean ok = gtk_tree_model_get_iter_first (model, it); ok;
       ok = gtk_tree_model_iter_next (model, it))
    {
      g_autofree char *row = NULL;
      gtk_tree_model_get (model, it, COL_NAME, &row, -1);
      if (g_str_equal (row, name))
        return;
    }
  g_error ("no row %s", name);
}

static char *
cell (SpxWindow *w, const char *name, gint col)
{
  GtkTreeIter it;
  char *text = NULL;
  row_named (w, name, &it);
  gtk_tree_model_get (GTK_TREE_MODEL (w->layers.store), &it, col, &text,
                      -1);
  return text;
}

static gboolean
row_is_layer (SpxWindow *w, const char *name)
{
  GtkTreeIter it;
  gboolean layer = FALSE;
  row_named (w, name, &it);
  gtk_tree_model_get (GTK_TREE_MODEL (w->layers.store), &it, COL_LAYER,
                      &layer, -1);
  return layer;
}

/* The row called name in the table as shown (filtered and sorted):
 * FALSE when it is hidden. */
static gboolean
shown_row (SpxWindow *w, const char *name, GtkTreeIter *shown)
{
  GtkTreeIter it, in_filter;
  row_named (w, name, &it);
  if (!gtk_tree_model_filter_convert_child_iter_to_iter (
        GTK_TREE_MODEL_FILTER (w->layers.filter), &in_filter, &it))
    return FALSE;
  gtk_tree_model_sort_convert_child_iter_to_iter (
    GTK_TREE_MODEL_SORT (w->layers.sorted), shown, &in_filter);
  return TRUE;
}

/* A double-click on the row called name. */
static void
activate_row (SpxWindow *w, const char *name)
{
  GtkTreeIter it;
  g_assert_true (shown_row (w, name, &it));
  g_autoptr (GtkTreePath) path = gtk_tree_model_get_path (
    gtk_tree_view_get_model (GTK_TREE_VIEW (w->layers.tree)), &it);
  GtkTreeView *tree = GTK_TREE_VIEW (w->layers.tree);
  gtk_tree_view_row_activated (tree, path, gtk_tree_view_get_column (tree,
                                                                     0));
  wait_idle (w);
}

/* Small problems on one thread; sources: 0 both, 1 the model, 2 the
 * CPU (the list beside Run Survey). */
static void
survey_setup (SpxWindow *w, gint sources)
{
  spx_study_set_n (w->study, SMALL_N);
  spx_study_set_threads (w->study, 1);
  gtk_combo_box_set_active (GTK_COMBO_BOX (w->layers.sources), sources);
}

/* A window listing dir, its survey run to the end. */
static SpxWindow *
surveyed_window (const char *dir, gint sources)
{
  SpxWindow *w = window_new ();
  open_path (w, dir);
  survey_setup (w, sources);
  activate (w, "run-survey", NULL);
  wait_idle (w);
  return w;
}

/* The survey the window runs with the model only, run without it. */
static SpxSurvey *
model_survey (SpxWindow *w, const char *folder)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxNetwork) net = spx_network_open (folder, &error);
  g_assert_no_error (error);
  SpxSurveyOptions o;
  spx_survey_options_init (&o);
  o.n = SMALL_N;
  o.dtype = w->study->scenario->dtype;
  o.machine = w->study->machine;
  o.threads = 1;
  o.run_cpu = FALSE;
  SpxSurvey *survey = spx_survey_new ();
  g_assert_true (spx_survey_run (survey, net, &o, NULL, NULL, &error));
  g_assert_no_error (error);
  return survey;
}

/* Each surveyed layer's row says what survey recommends for it. */
static void
assert_rows (SpxWindow *w, const SpxSurvey *survey, SpxSweepSource source)
{
  gint col = source == SPX_SWEEP_CPU ? COL_CPU : COL_MODEL;
  for (guint i = 0; i < survey->layers->len; i++)
    {
      const SpxSurveyLayer *l = survey->layers->pdata[i];
      g_autofree char *text = cell (w, l->name, col);
      if (l->skipped != NULL)
        {
          g_assert_cmpstr (text, ==, "");
          continue;
        }
      g_autofree char *want = spx_survey_choice_describe (
        &l->recommended[source]);
      g_assert_nonnull (want);
      g_assert_cmpstr (text, ==, want);
    }
}

static guint
count_points (const SpxSurvey *survey)
{
  guint n = 0;
  for (guint i = 0; i < survey->layers->len; i++)
    {
      const SpxSurveyLayer *l = survey->layers->pdata[i];
      n += l->points != NULL ? l->points->len : 0;
    }
  return n;
}

/* Export on the page: the chart as a picture, the survey as data. */
static void
assert_exports (SpxWindow *w)
{
  g_autofree char *png = g_build_filename (tmp_dir, "chart.png", NULL);
  g_autofree char *csv = g_build_filename (tmp_dir, "survey.csv", NULL);
  activate (w, "export-path", g_variant_new_string (png));
  activate (w, "export-path", g_variant_new_string (csv));
  g_autofree char *picture = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (png, &picture, &len, NULL));
  g_assert_cmpuint (len, >, 8);
  g_assert_cmpint (memcmp (picture, "\x89PNG\r\n\x1a\n", 8), ==, 0);
  g_autofree char *text = test_read_all (csv);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_assert_true (g_str_has_prefix (lines[0], "layer,"));
  /* a line per point, the header, and the last newline's empty end */
  g_assert_cmpuint (g_strv_length (lines), ==,
                    count_points (w->layers.survey) + 2);
  g_unlink (png);
  g_unlink (csv);
}

/* ---- tests ------------------------------------------------------- */

/* The folder's entries are listed, those that are not layers greyed
 * with why; the subject stays as it was. */
static void
test_open (void)
{
  SKIP_WITHOUT_DISPLAY ();
  g_autofree char *dir = make_folder ("open");
  SpxWindow *w = window_new ();
  g_autoptr (SpxMask) before = spx_mask_ref (w->study->scenario->mask);
  g_assert_true (gtk_stack_get_visible_child (GTK_STACK (w->layers.inner))
                 == w->layers.empty);
  open_path (w, dir);
  g_assert_true (gtk_stack_get_visible_child (GTK_STACK (w->layers.inner))
                 == w->layers.content);
  g_assert_null (spx_window_get_error (w));
  g_assert_true (layers_shown (w));
  g_assert_true (w->study->scenario->mask == before);
  g_assert_cmpint (w->study->scenario->source, ==, SPX_MASK_SOURCE_GENERATED);

  g_autoptr (GError) error = NULL;
  g_autoptr (SpxNetwork) net = spx_network_open (dir, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (spx_network_n_entries (net), ==, 5);
  g_assert_cmpint (gtk_tree_model_iter_n_children (
                     GTK_TREE_MODEL (w->layers.store), NULL), ==, 5);
  for (guint i = 0; i < spx_network_n_entries (net); i++)
    {
      const SpxNetworkEntry *e = spx_network_entry (net, i);
      g_assert_cmpint (row_is_layer (w, e->name), ==, e->skipped == NULL);
      g_autofree char *tip = cell (w, e->name, COL_TIP);
      if (e->skipped != NULL)
        {
          g_autofree char *why = g_markup_escape_text (e->skipped, -1);
          g_assert_nonnull (strstr (tip, why));
        }
      else /* no verdict before a survey, not even what one would mean */
        g_assert_null (strstr (tip, "eep dense"));
      g_autofree char *density = cell (w, e->name, COL_DENSITY);
      g_assert_cmpstr (density, ==, "—"); /* not surveyed yet */
    }
  g_assert_false (row_is_layer (w, "c-broken.mtx"));
  g_assert_false (row_is_layer (w, "d-net.safetensors/bias"));
  g_assert_true (row_is_layer (w, "d-net.safetensors/w"));
  /* Alt+6's action shows the page again from another view */
  spx_window_show_view (w, "mask");
  activate (w, "view", g_variant_new_string (SPX_WINDOW_LAYERS_VIEW));
  g_assert_true (layers_shown (w));
  window_close (w);
  test_remove_folder (dir);
}

/* Rows fill while the survey runs; at the end they say what the same
 * survey says without the window (the model's points are exact), and
 * the line above them is the survey's sentence. */
static void
test_survey (void)
{
  SKIP_WITHOUT_DISPLAY ();
  g_autofree char *dir = make_folder ("survey");
  SpxWindow *w = window_new ();
  open_path (w, dir);
  survey_setup (w, 0);
  activate (w, "run-survey", NULL);
  g_assert_true (spx_window_is_busy (w));
  gboolean partial = FALSE;
  gint64 end = g_get_monotonic_time () + WAIT_S * G_USEC_PER_SEC;
  while (spx_window_is_busy (w) && g_get_monotonic_time () < end)
    {
      g_main_context_iteration (NULL, TRUE);
      g_autofree char *first = cell (w, "a-tiny.mtx", COL_MODEL);
      g_autofree char *last = cell (w, "d-net.safetensors/w", COL_MODEL);
      /* the first layer recommended while the last waits its turn */
      partial |= spx_window_is_busy (w) && *first != '\0' && *last == '\0';
    }
  wait_idle (w);
  g_assert_true (partial);
  g_assert_null (spx_window_get_error (w));
  const SpxSurvey *shown = w->layers.survey;
  g_assert_true (shown->complete);
  g_assert_true (w->layers.unsaved);
  g_autoptr (SpxSurvey) model = model_survey (w, dir);
  g_assert_cmpuint (shown->layers->len, ==, model->layers->len);
  assert_rows (w, model, SPX_SWEEP_MODEL);
  assert_rows (w, shown, SPX_SWEEP_CPU);
  g_autofree char *words = spx_survey_describe (shown);
  words[0] = g_ascii_toupper (words[0]);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (w->layers.summary)), ==,
                   words);
  /* the skipped entries say why in the survey too */
  g_autofree char *tip = cell (w, "c-broken.mtx", COL_TIP);
  g_assert_nonnull (strstr (tip, "Skipped"));
  window_close (w);
  test_remove_folder (dir);
}

/* A double-clicked layer is the subject (one undo step); the survey
 * stays on its page. */
static void
test_study_layer (void)
{
  SKIP_WITHOUT_DISPLAY ();
  g_autofree char *dir = make_folder ("study");
  SpxWindow *w = surveyed_window (dir, 1);
  const SpxSurvey *survey = w->layers.survey;
  guint layers = survey->layers->len;

  activate_row (w, "d-net.safetensors/w");
  /* at a readable block size: 4 of its 6 blocks of 4 × 4 hold a
   * non-zero, its one block of 16 × 16 would look solid */
  g_assert_nonnull (strstr (spx_window_get_error (w), "Opened at 4 × 4"));
  g_assert_cmpuint (w->study->scenario->block, ==, 4);
  SpxScenario *sc = w->study->scenario;
  g_autofree char *net = g_build_filename (dir, "d-net.safetensors", NULL);
  g_autofree char *canonical = g_canonicalize_filename (net, NULL);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (GTK_STACK (w->stack)),
                   ==, "mask");
  g_assert_cmpint (sc->source, ==, SPX_MASK_SOURCE_FILE);
  g_assert_cmpstr (sc->mask_path, ==, canonical);
  g_assert_cmpstr (sc->mask_layer, ==, "w");
  const SpxMask *elements = spx_study_elements (w->study);
  g_assert_cmpuint (elements->rows, ==, NET_ROWS);
  g_assert_cmpuint (elements->cols, ==, NET_COLS);
  g_assert_cmpuint (spx_mask_count_elements (elements), ==,
                    G_N_ELEMENTS (nonzeros));
  for (guint i = 0; i < G_N_ELEMENTS (nonzeros); i++)
    g_assert_true (spx_mask_get (elements, nonzeros[i][0], nonzeros[i][1]));
  g_assert_nonnull (strstr (gtk_window_get_title (GTK_WINDOW (w)), "— w"));
  g_assert_true (w->layers.survey == survey);
  g_assert_cmpuint (survey->layers->len, ==, layers);

  /* a layer that is its own file is that file */
  activate_row (w, "a-tiny.mtx");
  g_autofree char *tiny = g_build_filename (dir, "a-tiny.mtx", NULL);
  g_autofree char *tiny_canonical = g_canonicalize_filename (tiny, NULL);
  g_assert_cmpstr (w->study->scenario->mask_path, ==, tiny_canonical);
  g_assert_null (w->study->scenario->mask_layer);
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxMask) direct = spx_mask_load (tiny, NULL, &error);
  g_assert_true (spx_mask_equal (spx_study_elements (w->study), direct));

  /* one undo step each */
  activate (w, "undo", NULL);
  wait_idle (w);
  g_assert_cmpstr (w->study->scenario->mask_layer, ==, "w");

  /* an entry that is not a layer says why, the subject as it was */
  activate_row (w, "c-broken.mtx");
  g_assert_nonnull (strstr (spx_window_get_error (w), "cannot be studied"));
  g_assert_cmpstr (w->study->scenario->mask_layer, ==, "w");
  window_close (w);
  test_remove_folder (dir);
}

/* Saved as JSON, the survey reopens with the same rows and nothing
 * measured; its network opens again so that its layers can be studied,
 * and without it the rows still show. */
static void
test_save_reopen (void)
{
  SKIP_WITHOUT_DISPLAY ();
  g_autofree char *dir = make_folder ("saved");
  g_autofree char *json = g_build_filename (tmp_dir, "saved.json", NULL);
  SpxWindow *w = surveyed_window (dir, 0);
  /* a save that fails says where, and the points stay unsaved */
  g_autofree char *nowhere = g_build_filename (tmp_dir, "no-folder",
                                               "saved.json", NULL);
  activate (w, "save-survey-path", g_variant_new_string (nowhere));
  g_assert_nonnull (strstr (spx_window_get_error (w), "no-folder"));
  g_assert_true (w->layers.unsaved);
  activate (w, "save-survey-path", g_variant_new_string (json));
  g_assert_false (w->layers.unsaved);
  g_assert_nonnull (strstr (spx_window_get_error (w), "Saved"));
  assert_exports (w);

  SpxWindow *again = window_new ();
  open_path (again, json);
  g_assert_true (layers_shown (again));
  g_assert_null (again->layers.job); /* no survey runs */
  g_assert_false (again->layers.unsaved);
  assert_rows (again, w->layers.survey, SPX_SWEEP_CPU);
  assert_rows (again, w->layers.survey, SPX_SWEEP_MODEL);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (again->layers.summary)),
                   ==, gtk_label_get_text (GTK_LABEL (w->layers.summary)));
  activate_row (again, "b-attention.smtx");
  g_assert_cmpuint (again->study->scenario->m, ==, 512);
  window_close (again);

  /* its network gone: the saved rows, and why none can be studied */
  g_autofree char *moved = g_strconcat (dir, "-moved", NULL);
  g_assert_cmpint (g_rename (dir, moved), ==, 0);
  SpxWindow *gone = window_new ();
  open_path (gone, json);
  g_assert_nonnull (strstr (spx_window_get_error (gone), "did not open"));
  assert_rows (gone, w->layers.survey, SPX_SWEEP_MODEL);
  activate_row (gone, "b-attention.smtx");
  g_assert_nonnull (strstr (spx_window_get_error (gone), "not open"));
  g_assert_cmpint (gone->study->scenario->source, ==,
                   SPX_MASK_SOURCE_GENERATED);
  window_close (gone);
  window_close (w);
  g_unlink (json);
  test_remove_folder (moved);
}

/* A survey's unsaved points are not lost to another network without
 * asking: Cancel keeps them, Discard opens the other. */
static void
test_unsaved_asks (void)
{
  SKIP_WITHOUT_DISPLAY ();
  g_autofree char *dir = make_folder ("asks");
  SpxWindow *w = surveyed_window (dir, 1);
  const SpxSurvey *survey = w->layers.survey;
  guint asked = dialogs_answered;
  guint id = answer_next_dialog (GTK_RESPONSE_CANCEL);
  open_path (w, dir);
  forget_answer (id);
  g_assert_cmpuint (dialogs_answered, ==, asked + 1);
  g_assert_true (w->layers.survey == survey);
  id = answer_next_dialog (GTK_RESPONSE_REJECT);
  open_path (w, dir);
  forget_answer (id);
  g_assert_cmpuint (dialogs_answered, ==, asked + 2);
  g_assert_null (w->layers.survey);
  g_assert_false (w->layers.unsaved);
  window_close (w);
  test_remove_folder (dir);
}

/* Escape stops a survey midway: the window is idle again at once, the
 * layer done keeps its row, the one under way is left out; stopped
 * before any layer is done, the survey before it stays. */
static void
test_cancel (void)
{
  SKIP_WITHOUT_DISPLAY ();
  g_autofree char *dir = make_folder ("cancel");
  /* stopped before a layer is done: the survey before stays */
  SpxWindow *w = surveyed_window (dir, 1);
  const SpxSurvey *before = w->layers.survey;
  g_assert_true (before->complete);
  survey_setup (w, 0);
  activate (w, "run-survey", NULL);
  activate (w, "cancel", NULL);
  wait_idle (w);
  g_assert_true (w->layers.survey == before);
  assert_rows (w, before, SPX_SWEEP_MODEL);

  spx_study_set_n (w->study, 256); /* the second layer takes a while */
  activate (w, "run-survey", NULL);
  gint64 end = g_get_monotonic_time () + WAIT_S * G_USEC_PER_SEC;
  while (spx_window_is_busy (w) && g_get_monotonic_time () < end)
    {
      g_main_context_iteration (NULL, TRUE);
      const SpxSurvey *s = w->layers.survey;
      if (s->layers->len > 1) /* a point of the second layer came */
        break;
    }
  g_assert_true (spx_window_is_busy (w));
  gint64 t0 = g_get_monotonic_time ();
  activate (w, "cancel", NULL);
  wait_idle (w);
  g_test_message ("the survey stopped %.0f ms after Escape",
                  (g_get_monotonic_time () - t0) / 1e3);
  const SpxSurvey *s = w->layers.survey;
  g_assert_false (s->complete);
  g_assert_cmpuint (s->layers->len, ==, 1);
  g_autofree char *done = cell (w, "a-tiny.mtx", COL_CPU);
  g_autofree char *dropped = cell (w, "b-attention.smtx", COL_CPU);
  g_assert_cmpstr (done, !=, "");
  g_assert_cmpstr (dropped, ==, "");
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (w),
                                                    "run-survey"));
  g_assert_null (spx_window_get_error (w));
  window_close (w);
  test_remove_folder (dir);
}

/* A window closed while its survey runs goes once the worker stops,
 * touching none of its widgets. */
static void
test_close_while_running (void)
{
  SKIP_WITHOUT_DISPLAY ();
  g_autofree char *dir = make_folder ("close");
  SpxWindow *w = window_new ();
  open_path (w, dir);
  survey_setup (w, 0);
  activate (w, "run-survey", NULL);
  while (w->layers.survey->layers->len == 0)
    g_main_context_iteration (NULL, TRUE);
  gpointer alive = w;
  g_object_add_weak_pointer (G_OBJECT (w), &alive);
  window_close (w);
  gint64 end = g_get_monotonic_time () + WAIT_S * G_USEC_PER_SEC;
  while (alive != NULL && g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, TRUE);
  g_assert_null (alive);
  test_remove_folder (dir);
}

/* The label texts under widget, joined. */
static void
labels_text (GtkWidget *widget, GString *out)
{
  if (GTK_IS_LABEL (widget))
    g_string_append (out, gtk_label_get_text (GTK_LABEL (widget)));
  if (!GTK_IS_CONTAINER (widget))
    return;
  g_autoptr (GList) children = gtk_container_get_children (
    GTK_CONTAINER (widget));
  for (GList *l = children; l != NULL; l = l->next)
    labels_text (l->data, out);
}

/* With no network the page says how to open one, and the tab shows it. */
static void
test_empty (void)
{
  SKIP_WITHOUT_DISPLAY ();
  SpxWindow *w = window_new ();
  activate (w, "view", g_variant_new_string (SPX_WINDOW_LAYERS_VIEW));
  wait_idle (w);
  g_assert_true (layers_shown (w));
  g_assert_true (gtk_widget_get_mapped (w->layers.empty));
  g_assert_false (gtk_widget_get_mapped (w->layers.content));
  g_autoptr (GString) text = g_string_new (NULL);
  labels_text (w->layers.empty, text);
  g_assert_nonnull (strstr (text->str, "No network open"));
  g_assert_nonnull (strstr (text->str, "sparse-explorer layers PATH"));
  g_assert_nonnull (strstr (text->str, "Open Network Folder"));
  window_close (w);
}

/* The names of the rows as the table shows them, in its order; how many
 * of them are layers before the first skipped entry, in *layers_first. */
static GPtrArray *
shown_names (SpxWindow *w, guint *layers_first)
{
  GtkTreeModel *model = gtk_tree_view_get_model (GTK_TREE_VIEW (
    w->layers.tree));
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  gboolean skipped_seen = FALSE;
  GtkTreeIter it;
  *layers_first = 0;
  for (gboolean ok = gtk_tree_model_get_iter_first (model, &it); ok;
       ok = gtk_tree_model_iter_next (model, &it))
    {
      char *name = NULL;
      gboolean layer = FALSE;
      gtk_tree_model_get (model, &it, COL_NAME, &name, COL_LAYER, &layer,
                          -1);
      g_ptr_array_add (names, name);
      /* no layer after a skipped entry */
      g_assert_false (layer && skipped_seen);
      skipped_seen |= !layer;
      *layers_first += layer;
    }
  return names;
}

/* Skipped entries come last whichever way the table is sorted, and the
 * toggle hides them. */
static void
test_skipped_last (void)
{
  SKIP_WITHOUT_DISPLAY ();
  g_autofree char *dir = make_folder ("skipped");
  SpxWindow *w = window_new ();
  open_path (w, dir);
  GtkTreeSortable *sorted = GTK_TREE_SORTABLE (w->layers.sorted);
  guint layers;
  /* by name: c-broken.mtx would come before d-net's layer */
  gtk_tree_sortable_set_sort_column_id (sorted, COL_NAME,
                                        GTK_SORT_ASCENDING);
  g_autoptr (GPtrArray) up = shown_names (w, &layers);
  g_assert_cmpuint (up->len, ==, 5);
  g_assert_cmpuint (layers, ==, 3);
  g_assert_cmpstr (up->pdata[0], ==, "a-tiny.mtx");
  g_assert_cmpstr (up->pdata[2], ==, "d-net.safetensors/w");
  g_assert_cmpstr (up->pdata[3], ==, "c-broken.mtx");
  gtk_tree_sortable_set_sort_column_id (sorted, COL_NAME,
                                        GTK_SORT_DESCENDING);
  g_autoptr (GPtrArray) down = shown_names (w, &layers);
  g_assert_cmpuint (layers, ==, 3);
  g_assert_cmpstr (down->pdata[0], ==, "d-net.safetensors/w");
  g_assert_cmpstr (down->pdata[2], ==, "a-tiny.mtx");
  /* hidden, then shown again */
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (w->layers.show_skipped),
                                FALSE);
  g_autoptr (GPtrArray) hidden = shown_names (w, &layers);
  g_assert_cmpuint (hidden->len, ==, 3);
  g_assert_cmpuint (layers, ==, 3);
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (w->layers.show_skipped),
                                TRUE);
  g_autoptr (GPtrArray) again = shown_names (w, &layers);
  g_assert_cmpuint (again->len, ==, 5);
  window_close (w);
  test_remove_folder (dir);
}

/* Measure Again on 1 Thread: only the layer with a noisy point (made so
 * here, not left to the machine's load) is measured again, on one
 * thread; the others' points stay as they were; its row follows. */
static void
test_again (void)
{
  SKIP_WITHOUT_DISPLAY ();
  g_autofree char *dir = make_folder ("again");
  SpxWindow *w = window_new ();
  open_path (w, dir);
  survey_setup (w, 2);
  spx_study_set_threads (w->study, 2);
  activate (w, "run-survey", NULL);
  wait_idle (w);
  SpxSurvey *s = w->layers.survey;
  for (guint i = 0; i < s->layers->len; i++)
    {
      SpxSurveyLayer *l = s->layers->pdata[i];
      gboolean noisy = g_str_equal (l->name, "a-tiny.mtx");
      for (guint j = 0; l->points != NULL && j < l->points->len; j++)
        g_array_index (l->points, SpxSweepPoint, j).noise =
          noisy ? SPX_NOISE_BUSY : SPX_NOISE_NONE;
      spx_survey_recommend (l);
    }
  spx_survey_sum (s);
  _spx_window_layers_actions (w);
  g_assert_true (g_action_get_enabled (g_action_map_lookup_action (
    G_ACTION_MAP (w), "survey-again")));
  g_autoptr (SpxSurvey) before = spx_survey_copy (s);
  activate (w, "survey-again", NULL);
  wait_idle (w);
  s = w->layers.survey;
  g_assert_cmpuint (s->layers->len, ==, before->layers->len);
  for (guint i = 0; i < s->layers->len; i++)
    {
      const SpxSurveyLayer *l = s->layers->pdata[i];
      const SpxSurveyLayer *was = before->layers->pdata[i];
      if (l->points == NULL)
        continue;
      g_assert_cmpuint (l->points->len, ==, was->points->len);
      if (!g_str_equal (l->name, "a-tiny.mtx"))
        {
          g_assert_cmpmem (l->points->data, l->points->len *
                           sizeof (SpxSweepPoint), was->points->data,
                           was->points->len * sizeof (SpxSweepPoint));
          continue;
        }
      for (guint j = 0; j < l->points->len; j++)
        g_assert_true (g_str_has_suffix (
          g_array_index (l->points, SpxSweepPoint, j).machine, "-1t"));
      g_autofree char *said = spx_survey_choice_describe (
        &l->recommended[SPX_SWEEP_CPU]);
      g_autofree char *row = cell (w, l->name, COL_CPU);
      g_assert_cmpstr (row, ==, said);
    }
  window_close (w);
  test_remove_folder (dir);
}

int
main (int argc, char **argv)
{
  g_autofree char *home = test_ui_init (&argc, &argv);
  tmp_dir = g_dir_make_tmp ("spx-ui-layers-XXXXXX", NULL);
  g_test_add_func ("/ui/layers/open", test_open);
  g_test_add_func ("/ui/layers/empty", test_empty);
  g_test_add_func ("/ui/layers/skipped-last", test_skipped_last);
  g_test_add_func ("/ui/layers/again", test_again);
  g_test_add_func ("/ui/layers/survey", test_survey);
  g_test_add_func ("/ui/layers/study-layer", test_study_layer);
  g_test_add_func ("/ui/layers/save-reopen", test_save_reopen);
  g_test_add_func ("/ui/layers/unsaved-asks", test_unsaved_asks);
  g_test_add_func ("/ui/layers/cancel", test_cancel);
  g_test_add_func ("/ui/layers/close-while-running",
                   test_close_while_running);
  int status = test_ui_run (home);
  g_rmdir (tmp_dir);
  g_free (tmp_dir);
  return status;
}
