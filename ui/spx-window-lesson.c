/* spx-window-lesson.c: the guided lesson beside the views. A step sets
 * the scenario (planned on the worker like any change), then, once its
 * plan is in, the view, program, tile, superstep and colouring it names;
 * its text is expanded again whenever the plan or the selection changes,
 * so it quotes what is shown. */
#include "spx-window-private.h"

#include "spx-lesson.h"

#define LESSON_RESOURCE \
  "/org/sparseexplorer/SparseExplorer/lesson/ipu-model.lesson"
#define LESSON_WIDTH 280 /* px: the text column */

static const SpxLessonStep *
current (SpxWindow *w)
{
  if (w->lesson == NULL || w->lesson_step >= w->lesson->steps->len)
    return NULL;
  return g_ptr_array_index (w->lesson->steps, w->lesson_step);
}

static gboolean
load (SpxWindow *w)
{
  if (w->lesson != NULL)
    return TRUE;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = g_resources_lookup_data (
    LESSON_RESOURCE, G_RESOURCE_LOOKUP_FLAGS_NONE, &error);
  if (bytes != NULL)
    {
      gsize len = 0;
      const char *data = g_bytes_get_data (bytes, &len);
      w->lesson = spx_lesson_load_data ("ipu-model.lesson", data, len,
                                        spx_render_view_names (), &error);
    }
  if (w->lesson == NULL)
    _spx_window_show_error (w, error->message);
  return w->lesson != NULL;
}

/* The tile, superstep and Timeline axis the step names, in the plan now
 * shown. */
static void
select_for (SpxWindow *w, const SpxLessonStep *s)
{
  const SpxIpuProgram *p = w->study->programs[w->mode];
  _spx_window_select_tile (w, s->tile);
  _spx_window_select_superstep (w, (gint) w->mode,
                                spx_lesson_find_step (p, s->superstep));
  _spx_window_timeline_fit (w, s->timeline_fit);
}

void
_spx_window_lesson_refresh (SpxWindow *w)
{
  const SpxLessonStep *s = current (w);
  if (s == NULL || !_spx_window_lesson_active (w))
    return;
  gint step = w->view_state.lane == (gint) w->mode ? w->view_state.step : -1;
  SpxLessonView v = { w->study, w->mode, w->selected_tile, step };
  g_autofree char *text = spx_lesson_expand (s->text, &v);
  gtk_label_set_text (GTK_LABEL (w->lesson_text), text);
}

void
_spx_window_lesson_plan_ready (SpxWindow *w)
{
  const SpxLessonStep *s = current (w);
  if (s != NULL && w->lesson_pending && w->plan_job == NULL)
    {
      w->lesson_pending = FALSE;
      select_for (w, s);
    }
  _spx_window_lesson_refresh (w);
}

static void
show_words (SpxWindow *w, const SpxLessonStep *s)
{
  guint n = w->lesson->steps->len;
  g_autofree char *count = g_strdup_printf ("%s · step %u of %u",
                                            w->lesson->title,
                                            w->lesson_step + 1, n);
  gtk_label_set_text (GTK_LABEL (w->lesson_count), count);
  gtk_label_set_text (GTK_LABEL (w->lesson_title), s->title);
  gtk_widget_set_sensitive (w->lesson_back, w->lesson_step > 0);
  gtk_widget_set_sensitive (w->lesson_next, w->lesson_step + 1 < n);
}

/* The step's scenario as the lesson wrote it: no file of the user's
 * (saving asks for a name), nothing unsaved, named after the step. */
static void
name_scenario (SpxWindow *w)
{
  g_clear_pointer (&w->study->path, g_free);
  g_free (w->scenario_name);
  w->scenario_name = g_strdup_printf ("%s, step %u", w->lesson->title,
                                      w->lesson_step + 1);
  _spx_window_set_dirty (w, FALSE);
}

static void
go (SpxWindow *w, guint index)
{
  w->lesson_step = index;
  const SpxLessonStep *s = current (w);
  g_autoptr (GError) error = NULL;
  show_words (w, s);
  gboolean replan = spx_study_use_scenario (w->study, s->scenario, &error);
  if (error != NULL)
    _spx_window_show_error (w, error->message);
  w->mode = s->mode;
  spx_scenario_panel_set_mode (w->panel, w->mode);
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (w->colour),
                                s->colour_by_tile);
  spx_window_show_view (w, s->view);
  w->lesson_pending = TRUE;
  name_scenario (w);
  if (replan)
    {
      spx_scenario_panel_load (w->panel, w->study);
      _spx_window_rebuild (w); /* the selection follows the new plan */
    }
  else
    _spx_window_programs_changed (w);
}

/* Page Up and Page Down belong to the lesson only while it is open. */
static void
show_panel (SpxWindow *w, gboolean show)
{
  static const char *const keys[] = { "lesson-next", "lesson-back" };
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (
                                   G_ACTION_MAP (w), keys[i])), show);
  gtk_revealer_set_reveal_child (GTK_REVEALER (w->lesson_panel), show);
}

void
_spx_window_lesson_start (SpxWindow *w)
{
  /* the user's scenario, unsaved edits and all, is not lost to it */
  if (!load (w) || !_spx_window_confirm_discard (w) ||
      !_spx_window_may_replace_mask (w, "The lesson generates a problem of "
                                     "its own at every step."))
    return;
  show_panel (w, TRUE);
  go (w, 0);
}

void
_spx_window_lesson_move (SpxWindow *w, gint by)
{
  if (current (w) == NULL || !_spx_window_lesson_active (w))
    return;
  gint to = (gint) w->lesson_step + by;
  if (to >= 0 && (guint) to < w->lesson->steps->len)
    go (w, (guint) to);
}

gboolean
_spx_window_lesson_active (SpxWindow *w)
{
  return gtk_revealer_get_reveal_child (GTK_REVEALER (w->lesson_panel));
}

static void
on_back (GtkButton *b, SpxWindow *w)
{
  _spx_window_lesson_move (w, -1);
}

static void
on_next (GtkButton *b, SpxWindow *w)
{
  _spx_window_lesson_move (w, +1);
}

static void
on_close (GtkButton *b, SpxWindow *w)
{
  show_panel (w, FALSE);
}

static GtkWidget *
wrapped_label (const char *css_class)
{
  GtkWidget *l = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (l), 0);
  gtk_label_set_line_wrap (GTK_LABEL (l), TRUE);
  gtk_label_set_line_wrap_mode (GTK_LABEL (l), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_max_width_chars (GTK_LABEL (l), 34);
  if (css_class != NULL)
    gtk_style_context_add_class (gtk_widget_get_style_context (l),
                                 css_class);
  return l;
}

static GtkWidget *
buttons (SpxWindow *w)
{
  w->lesson_back = gtk_button_new_with_mnemonic ("_Back");
  w->lesson_next = gtk_button_new_with_mnemonic ("_Next");
  gtk_widget_set_tooltip_text (w->lesson_back, "The step before (Page Up)");
  gtk_widget_set_tooltip_text (w->lesson_next, "The next step (Page Down)");
  GtkWidget *close = gtk_button_new_with_mnemonic ("_Close");
  g_signal_connect (w->lesson_back, "clicked", G_CALLBACK (on_back), w);
  g_signal_connect (w->lesson_next, "clicked", G_CALLBACK (on_next), w);
  g_signal_connect (close, "clicked", G_CALLBACK (on_close), w);
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_box_pack_start (GTK_BOX (row), close, FALSE, FALSE, 0);
  gtk_box_pack_end (GTK_BOX (row), w->lesson_next, FALSE, FALSE, 0);
  gtk_box_pack_end (GTK_BOX (row), w->lesson_back, FALSE, FALSE, 0);
  return row;
}

GtkWidget *
_spx_window_lesson_panel_new (SpxWindow *w)
{
  w->lesson_count = wrapped_label ("dim-label");
  w->lesson_title = wrapped_label (NULL);
  PangoAttrList *bold = pango_attr_list_new ();
  pango_attr_list_insert (bold, pango_attr_weight_new (PANGO_WEIGHT_BOLD));
  pango_attr_list_insert (bold, pango_attr_scale_new (1.2));
  gtk_label_set_attributes (GTK_LABEL (w->lesson_title), bold);
  pango_attr_list_unref (bold);
  w->lesson_text = wrapped_label (NULL);
  gtk_label_set_yalign (GTK_LABEL (w->lesson_text), 0);
  gtk_label_set_selectable (GTK_LABEL (w->lesson_text), TRUE);
  GtkWidget *scroll = gtk_scrolled_window_new (NULL, NULL);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroll),
                                  GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_container_add (GTK_CONTAINER (scroll), w->lesson_text);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
  g_object_set (box, "margin", 12, NULL);
  gtk_widget_set_size_request (box, LESSON_WIDTH, -1);
  gtk_box_pack_start (GTK_BOX (box), w->lesson_count, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (box), w->lesson_title, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (box), scroll, TRUE, TRUE, 0);
  gtk_box_pack_end (GTK_BOX (box), buttons (w), FALSE, FALSE, 0);
  GtkWidget *frame = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_box_pack_start (GTK_BOX (frame),
                      gtk_separator_new (GTK_ORIENTATION_VERTICAL), FALSE,
                      FALSE, 0);
  gtk_box_pack_start (GTK_BOX (frame), box, TRUE, TRUE, 0);
  w->lesson_panel = gtk_revealer_new ();
  gtk_revealer_set_transition_type (GTK_REVEALER (w->lesson_panel),
                                    GTK_REVEALER_TRANSITION_TYPE_SLIDE_LEFT);
  gtk_container_add (GTK_CONTAINER (w->lesson_panel), frame);
  show_panel (w, FALSE);
  return w->lesson_panel;
}
