/* spx-window.c: the main window: header bar, views, actions, title */
#include "spx-window-private.h"
#include "spx-render-exchange.h"
#include "spx-render-tiles.h"
#include "spx-render-verdict.h"
#include "spx-util.h"

#include <string.h>

/* The button (and menu item) that runs a sweep, as the verdict names it. */
#define RUN_SWEEP "Run Sweep"

G_DEFINE_TYPE (SpxWindow, spx_window, GTK_TYPE_APPLICATION_WINDOW)

#define INFO_LINES 4 /* of the message bar, at most */
#define FIT_RESPONSE 1 /* the bar's "Use a size that fits" */
#define FOLDER_RESPONSE 2 /* the bar's "Open Folder" */

/* ---- state shown in the chrome --------------------------------------- */

void
_spx_window_update_title (SpxWindow *w)
{
  const SpxScenario *sc = w->study->scenario;
  const char *file = w->study->path;
  g_autofree char *base = file ? g_filename_display_basename (file) : NULL;
  /* a mask, or a network's layer, opened on its own */
  g_autofree char *name = base ? spx_escape (base)
    : sc->source == SPX_MASK_SOURCE_FILE
      ? g_strdup (spx_study_label (w->study))
      : g_strdup (w->scenario_name);
  g_autofree char *title = NULL;
  if (name != NULL || w->dirty)
    title = g_strdup_printf ("Sparse Explorer — %s%s", w->dirty ? "•" : "",
                             name ? name : "unsaved scenario");
  /* the header bar shows the program and, below, the file */
  gtk_header_bar_set_title (GTK_HEADER_BAR (w->header), "Sparse Explorer");
  gtk_header_bar_set_subtitle (GTK_HEADER_BAR (w->header),
                               name || w->dirty
                                 ? title + strlen ("Sparse Explorer — ")
                                 : NULL);
  gtk_window_set_title (GTK_WINDOW (w), title ? title : "Sparse Explorer");
}

void
_spx_window_set_dirty (SpxWindow *w, gboolean dirty)
{
  w->dirty = dirty;
  _spx_window_update_title (w);
}

void
_spx_window_show_message (SpxWindow *w, GtkMessageType type,
                          const char *message)
{
  /* messages quote names and values from files: shown escaped (and
   * message may be w->error itself) */
  char *escaped = spx_escape (message);
  g_free (w->error);
  w->error = escaped;
  gtk_info_bar_set_message_type (GTK_INFO_BAR (w->info_bar), type);
  gtk_label_set_text (GTK_LABEL (w->info_label), w->error);
  /* only a plan too big, or a file saved, offers these */
  gtk_widget_hide (w->fit_button);
  gtk_widget_hide (w->folder_button);
  gtk_widget_show (w->info_bar);
}

void
_spx_window_offer_folder (SpxWindow *w, const char *dir)
{
  char *copy = g_strdup (dir); /* dir may be w->saved_folder */
  g_free (w->saved_folder);
  w->saved_folder = copy;
  gtk_widget_show (w->folder_button);
}

/* In the file manager; without one, the bar says so. */
static void
open_saved_folder (SpxWindow *w)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_strdup (w->saved_folder);
  g_autofree char *uri = g_filename_to_uri (dir, NULL, &error);
  g_autoptr (GdkAppLaunchContext) context = gdk_display_get_app_launch_context (
    gtk_widget_get_display (GTK_WIDGET (w)));
  if (uri != NULL && g_app_info_launch_default_for_uri (
                       uri, G_APP_LAUNCH_CONTEXT (context), &error))
    return;
  g_autofree char *shown = g_filename_display_name (dir);
  g_autofree char *msg = g_strdup_printf ("Cannot open the folder %s: %s",
                                          shown, error->message);
  _spx_window_show_error (w, msg);
}

void
_spx_window_show_error (SpxWindow *w, const char *message)
{
  _spx_window_show_message (w, GTK_MESSAGE_ERROR, message);
}

void
_spx_window_clear_error (SpxWindow *w)
{
  g_clear_pointer (&w->error, g_free);
  gtk_widget_hide (w->info_bar);
}

const char *
spx_window_get_error (SpxWindow *w)
{
  return w->error;
}

gboolean
spx_window_is_busy (SpxWindow *w)
{
  return w->plan_job != NULL || w->sweep_job != NULL ||
         _spx_window_layers_busy (w);
}

gboolean
spx_window_is_dirty (SpxWindow *w)
{
  return w->dirty;
}

static void
show_fraction (SpxWindow *w, const char *what, guint done, guint total)
{
  g_autofree char *text = g_strdup_printf ("%s %u / %u", what, done, total);
  gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (w->progress),
                                 (double) done / total);
  gtk_progress_bar_set_text (GTK_PROGRESS_BAR (w->progress), text);
}

/* The progress bar and cancel button show while work runs: a sweep or
 * a survey shows its fraction, planning and reading pulse. A sweep and
 * a survey both measure this CPU: one at a time. */
void
_spx_window_update_busy (SpxWindow *w)
{
  gboolean busy = spx_window_is_busy (w);
  guint done = 0, total = 0;
  gboolean surveying = _spx_window_surveying (w, &done, &total);
  gtk_widget_set_visible (w->progress, busy);
  gtk_widget_set_visible (w->cancel, busy);
  guint swept = 0, points = 0;
  if (w->sweep_job != NULL)
    spx_job_progress (w->sweep_job, &swept, &points);
  if (w->sweep_job != NULL && points > 0)
    show_fraction (w, "sweep", swept, points);
  else if (surveying && total > 0)
    show_fraction (w, "survey", done, total);
  else if (busy)
    {
      gboolean planning = w->plan_job != NULL || surveying;
      gtk_progress_bar_set_text (GTK_PROGRESS_BAR (w->progress),
                                 planning ? "planning" : "reading");
      gtk_progress_bar_pulse (GTK_PROGRESS_BAR (w->progress));
    }
  gtk_widget_set_sensitive (w->sweep_button,
                            w->sweep_job == NULL && !surveying);
  gtk_widget_set_sensitive (w->again_button,
                            w->sweep_job == NULL && !surveying);
  _spx_window_layers_actions (w);
}

/* The element density of the subject (a file's own non-zeros). */
static double
subject_density (SpxStudy *s)
{
  const SpxMask *m = spx_study_elements (s);
  m = m ? m : s->scenario->mask;
  return m ? (double) spx_mask_count_elements (m) /
             ((double) m->rows * (double) m->cols) : 0;
}

/* How many points are noisy, and how to measure cleanly. */
static char *
sweep_note (SpxWindow *w)
{
  const SpxSweep *sweep = w->study->sweep;
  guint noisy = spx_sweep_count_noisy (sweep);
  /* an out-of-date sweep's noise is not this subject's */
  if (w->sweep_job != NULL || noisy == 0 ||
      spx_study_sweep_stale (w->study))
    return g_strdup ("");
  g_autofree char *advice = spx_noise_advice (SPX_NOISE_BUSY,
                                              sweep->settings.threads);
  return g_strdup_printf ("%u of %u points noisy (hollow): %s", noisy,
                          sweep->points->len, advice);
}

/* Offered for exactly the block sizes the CPU could not measure
 * cleanly, once the sweep is done. */
static void
show_measure_again (SpxWindow *w, const SpxVerdict *v)
{
  const SpxVerdictSource *cpu = &v->sources[SPX_SWEEP_CPU];
  gboolean offer = v->kind == SPX_VERDICT_SWEPT && cpu->n_unclean > 0 &&
                   w->sweep_job == NULL;
  gtk_widget_set_visible (w->again_button, offer);
  if (!offer)
    return;
  GString *blocks = g_string_new (NULL);
  for (guint i = 0; i < cpu->n_unclean; i++)
    g_string_append_printf (blocks, "%s%u", i ? ", " : "", cpu->unclean[i]);
  g_autofree char *list = g_string_free (blocks, FALSE);
  g_autofree char *tip = g_strdup_printf (
    "Measure b = %s on this CPU again, on one thread: on a busy machine "
    "one thread usually finds a free core and measures cleanly (those "
    "points then name 1 thread)", list);
  gtk_widget_set_tooltip_text (w->again_button, tip);
}

void
_spx_window_update_verdict (SpxWindow *w)
{
  SpxStudy *s = w->study;
  g_autofree char *density = spx_study_describe_density (s);
  SpxVerdict v;
  spx_study_judge (s, &v);
  g_autofree char *verdict = spx_render_verdict_text (&v, RUN_SWEEP);
  g_autofree char *markup = s->scenario->mask == NULL
    ? g_strdup ("") /* nothing to say until the mask is made */
    : g_markup_printf_escaped ("<b>%s.</b> %s", density, verdict);
  gtk_label_set_markup (GTK_LABEL (w->verdict), markup);
  gtk_label_set_markup (GTK_LABEL (w->sweep_verdict), markup);
  g_autofree char *note = sweep_note (w);
  gtk_label_set_text (GTK_LABEL (w->sweep_note), note);
  show_measure_again (w, &v);
  _spx_window_compare_update (w);
  w->view_state.sweep = s->sweep;
  w->view_state.stale = spx_study_sweep_stale (s);
  w->view_state.running = w->sweep_job != NULL;
  w->view_state.density = subject_density (s);
  _spx_window_views_changed (w, SPX_RENDER_VIEW_NEEDS_SWEEP);
}

SpxTheme
_spx_window_theme (SpxWindow *w)
{
  gboolean dark = FALSE;
  g_object_get (gtk_widget_get_settings (GTK_WIDGET (w)),
                "gtk-application-prefer-dark-theme", &dark, NULL);
  /* a dark theme chosen by name (GTK_THEME=Adwaita:dark, Adwaita-dark)
   * states no preference: its light text says so */
  GdkRGBA fg;
  gtk_style_context_get_color (gtk_widget_get_style_context (GTK_WIDGET (w)),
                               GTK_STATE_FLAG_NORMAL, &fg);
  double light = 0.2126 * fg.red + 0.7152 * fg.green + 0.0722 * fg.blue;
  return dark || light > 0.5 ? SPX_THEME_DARK : SPX_THEME_LIGHT;
}

/* ---- what the views show ------------------------------------------ */

static const SpxIpuProgram *
shown_program (SpxWindow *w)
{
  return w->study->programs[w->mode];
}

void
_spx_window_view_state (SpxWindow *w, guint view, SpxRenderViewState *st)
{
  *st = w->view_state;
  st->mask = spx_mask_editor_get_mask (SPX_MASK_EDITOR (w->editor));
  st->programs = w->study->programs;
  st->mode = w->mode;
  st->tile = w->selected_tile;
  st->metric = w->metrics[view];
}

void
_spx_window_views_changed (SpxWindow *w, SpxRenderViewNeeds changed)
{
  for (guint i = 0; i < SPX_RENDER_N_VIEWS; i++)
    {
      if (!SPX_IS_VIEW (w->views[i])) /* the mask's editor draws itself */
        continue;
      SpxRenderViewState st;
      _spx_window_view_state (w, i, &st);
      if (spx_render_view_fill (spx_render_views[i], &st, w->view_data[i]) ||
          (spx_render_views[i]->needs & changed))
        spx_view_changed (SPX_VIEW (w->views[i]));
    }
}

/* What is under (x, y) of view i's picture. */
static void
view_hit (SpxWindow *w, guint i, double x, double y, SpxRenderViewHit *hit)
{
  GtkWidget *view = w->views[i];
  spx_render_view_hit (spx_render_views[i],
                       gtk_widget_get_allocated_width (view),
                       gtk_widget_get_allocated_height (view),
                       w->view_data[i], spx_view_get_style (SPX_VIEW (view)),
                       x, y, hit);
}

/* ---- tiles and blocks: the link between the two pictures -------------- */

void
_spx_window_select_tile (SpxWindow *w, gint tile)
{
  const SpxIpuProgram *p = shown_program (w);
  if (p == NULL || tile >= (gint) p->n_tiles)
    tile = -1;
  w->selected_tile = tile;
  spx_mask_editor_set_selected_tile (SPX_MASK_EDITOR (w->editor), tile);
  _spx_window_views_changed (w, 0);
  g_autofree char *text = tile < 0 || p == NULL
                          ? g_strdup ("Click a tile to see its blocks in "
                                      "the mask.")
                          : spx_render_tiles_describe (p, (guint) tile,
                                                       ", ");
  gtk_label_set_text (GTK_LABEL (w->tile_label), text);
  _spx_window_lesson_refresh (w);
}

static gboolean
on_tiles_press (GtkWidget *view, GdkEventButton *ev, SpxWindow *w)
{
  SpxRenderViewHit hit;
  if (ev->button != GDK_BUTTON_PRIMARY || shown_program (w) == NULL)
    return FALSE;
  view_hit (w, SPX_RENDER_VIEW_TILES, ev->x, ev->y, &hit);
  _spx_window_select_tile (w, hit.tile);
  return TRUE;
}


/* ---- hover ------------------------------------------------------------ */

char *
_spx_window_hover_text (SpxWindow *w, const char *name, double x, double y)
{
  gint i = spx_render_view_index (name);
  GtkWidget *view = i >= 0 ? w->views[i] : NULL;
  if (view == NULL || !SPX_IS_VIEW (view))
    return NULL;
  return spx_render_view_describe (spx_render_views[i],
                                   gtk_widget_get_allocated_width (view),
                                   gtk_widget_get_allocated_height (view),
                                   w->view_data[i],
                                   spx_view_get_style (SPX_VIEW (view)), x,
                                   y);
}

static gboolean
on_view_tooltip (GtkWidget *view, gint x, gint y, gboolean keyboard,
                 GtkTooltip *tooltip, SpxWindow *w)
{
  const char *name = g_object_get_data (G_OBJECT (view), "spx-view-name");
  g_autofree char *text = keyboard || name == NULL
                            ? NULL : _spx_window_hover_text (w, name, x, y);
  if (text == NULL)
    return FALSE;
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

/* The view explains what is under the pointer. */
static void
hover_explains (SpxWindow *w, GtkWidget *view, const char *name)
{
  g_object_set_data (G_OBJECT (view), "spx-view-name", (gpointer) name);
  gtk_widget_set_has_tooltip (view, TRUE);
  g_signal_connect (view, "query-tooltip", G_CALLBACK (on_view_tooltip), w);
}

static void on_superstep_changed (GtkSpinButton *spin, SpxWindow *w);

/* The Exchange view shows step (of steps, when not 0): the window's
 * choice, so the Timeline's selection stays as it is. */
static void
show_superstep (SpxWindow *w, guint steps, guint step)
{
  GtkSpinButton *spin = GTK_SPIN_BUTTON (w->superstep);
  g_signal_handlers_block_by_func (spin, on_superstep_changed, w);
  if (steps > 0)
    gtk_spin_button_set_range (spin, 1, steps);
  gtk_spin_button_set_value (spin, step + 1);
  g_signal_handlers_unblock_by_func (spin, on_superstep_changed, w);
  w->view_state.superstep = step;
}

void
_spx_window_select_superstep (SpxWindow *w, gint lane, gint step)
{
  if (lane < 0 || lane >= SPX_IPU_N_MODES)
    lane = (gint) w->mode;
  const SpxIpuProgram *p = w->study->programs[lane];
  if (p == NULL || step < 0 || (guint) step >= p->steps->len)
    step = lane = -1;
  w->view_state.step = step;
  w->view_state.lane = lane;
  /* a step of the program the Exchange view shows is its step too */
  if (step >= 0 && lane == (gint) w->mode)
    show_superstep (w, 0, (guint) step);
  _spx_window_views_changed (w, 0);
  _spx_window_lesson_refresh (w);
}

/* Show superstep step of programs[lane] in the Exchange view (the shown
 * program becomes lane's). */
static void
open_superstep (SpxWindow *w, guint lane, gint step)
{
  if (lane >= SPX_IPU_N_MODES || w->study->programs[lane] == NULL)
    return;
  if (lane != w->mode) /* Exchange shows the program shown */
    {
      w->mode = lane;
      spx_scenario_panel_set_mode (w->panel, w->mode);
      _spx_window_programs_changed (w);
    }
  _spx_window_select_superstep (w, (gint) lane, step);
  spx_window_show_view (w, spx_render_views[SPX_RENDER_VIEW_EXCHANGE]->name);
}

/* A click selects a superstep (beside the bars: none); a double click
 * opens it in Exchange. */
static gboolean
on_timeline_press (GtkWidget *view, GdkEventButton *ev, SpxWindow *w)
{
  SpxRenderViewHit hit;
  if (ev->button != GDK_BUTTON_PRIMARY ||
      (ev->type != GDK_BUTTON_PRESS && ev->type != GDK_2BUTTON_PRESS))
    return FALSE;
  if (ev->type == GDK_BUTTON_PRESS &&
      _spx_window_timeline_fit_at (w, ev->x, ev->y))
    return TRUE;
  view_hit (w, SPX_RENDER_VIEW_TIMELINE, ev->x, ev->y, &hit);
  if (ev->type == GDK_2BUTTON_PRESS && hit.step >= 0)
    open_superstep (w, (guint) hit.lane, hit.step);
  else if (ev->type == GDK_BUTTON_PRESS)
    _spx_window_select_superstep (w, hit.lane, hit.step);
  return TRUE;
}

/* ---- new programs ---------------------------------------------------- */

/* Not fitting is a result worth saying, not a failure. */
static void
report_fit (SpxWindow *w)
{
  const SpxIpuProgram *p = w->study->programs[w->mode];
  if (p == NULL || p->fits)
    return;
  g_autofree char *need = g_format_size_full (p->max_tile_bytes,
                                              G_FORMAT_SIZE_IEC_UNITS);
  g_autofree char *have = g_format_size_full (spx_ipu_tile_budget (p->machine),
                                              G_FORMAT_SIZE_IEC_UNITS);
  g_autofree char *msg = g_strdup_printf (
    "The %s plan does not fit %s: %s%s on its fullest tile, %s available "
    "per tile beside its share of Y.", spx_ipu_mode_to_string (p->mode),
    p->machine->name,
    p->overflow ? "the pattern overflows its dynamic buckets; " : "", need,
    have);
  _spx_window_show_message (w, GTK_MESSAGE_WARNING, msg);
  if (w->study->scenario->source == SPX_MASK_SOURCE_GENERATED)
    gtk_widget_show (w->fit_button); /* offer a size that fits */
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
    " blocks set, %.1f per block-row (max %.0f)", mask->rows, mask->cols,
    st.nonzero_blocks, st.blocks_per_row.mean, st.blocks_per_row.max);
  gtk_label_set_text (GTK_LABEL (w->density_label), text);
}

void
_spx_window_programs_changed (SpxWindow *w)
{
  SpxIpuProgram *const *programs = w->study->programs;
  const SpxIpuProgram *p = programs[w->mode];
  spx_mask_editor_set_program (SPX_MASK_EDITOR (w->editor), p);
  if (p != NULL)
    show_superstep (w, MAX (1, p->steps->len),
                    spx_ipu_program_first_exchange (p));
  _spx_window_select_tile (w, w->selected_tile);
  /* the Timeline keeps its step while the new plan still has it */
  _spx_window_select_superstep (w, w->view_state.lane, w->view_state.step);
  show_density (w);
  _spx_window_update_verdict (w);
  _spx_window_views_changed (w, SPX_RENDER_VIEW_NEEDS_PLAN);
  report_fit (w);
  _spx_window_lesson_plan_ready (w);
}




/* A block clicked in the mask: select the tile that holds it. */
static void
on_block_activated (SpxMaskEditor *editor, guint64 br, guint64 bc,
                    SpxWindow *w)
{
  const SpxIpuProgram *p = shown_program (w);
  SpxMask *mask = spx_mask_editor_get_mask (editor);
  if (p == NULL || mask == NULL || p->mode == SPX_IPU_MODE_DENSE)
    return;
  guint64 flat = br * mask->bcols + bc;
  for (guint t = 0; t < p->n_tiles; t++)
    {
      GArray *blocks = p->tiles[t].blocks;
      for (guint i = 0; blocks != NULL && i < blocks->len; i++)
        if (g_array_index (blocks, guint64, i) == flat)
          {
            _spx_window_select_tile (w, (gint) t);
            return;
          }
    }
  _spx_window_select_tile (w, -1);
}

/* Drawn on: the subject becomes the drawing. */
static void
on_mask_edited (SpxMaskEditor *editor, SpxWindow *w)
{
  spx_study_set_drawn (w->study,
                       spx_mask_ref (spx_mask_editor_get_mask (editor)));
  spx_subject_free (w->shown);
  w->shown = spx_study_save_subject (w->study);
  spx_scenario_panel_load (w->panel, w->study);
  _spx_window_set_dirty (w, TRUE);
  _spx_window_replan (w);
}

static void
on_mask_replaced (SpxMaskEditor *editor, gpointer subject, SpxWindow *w)
{
  _spx_window_subject_restored (w, subject);
}

static void
on_edit_refused (SpxMaskEditor *editor, const GError *error, SpxWindow *w)
{
  _spx_window_show_error (w, error->message);
}

static void
update_undo (SpxWindow *w)
{
  SpxMaskEditor *e = SPX_MASK_EDITOR (w->editor);
  GActionMap *map = G_ACTION_MAP (w);
  g_simple_action_set_enabled (
    G_SIMPLE_ACTION (g_action_map_lookup_action (map, "undo")),
    spx_mask_editor_can_undo (e));
  g_simple_action_set_enabled (
    G_SIMPLE_ACTION (g_action_map_lookup_action (map, "redo")),
    spx_mask_editor_can_redo (e));
}

static void
on_history_changed (SpxMaskEditor *editor, SpxWindow *w)
{
  update_undo (w);
}

/* ---- actions ------------------------------------------------------- */

static void
act_open (GSimpleAction *a, GVariant *p, gpointer data)
{
  _spx_window_open_dialog (data);
}

static void
act_open_path (GSimpleAction *a, GVariant *p, gpointer data)
{
  g_autoptr (GFile) file = g_file_new_for_path (g_variant_get_string (p,
                                                                     NULL));
  spx_window_open_file (data, file, FALSE);
}

static void
act_save (GSimpleAction *a, GVariant *p, gpointer data)
{
  _spx_window_save (data, FALSE);
}

static void
act_save_as (GSimpleAction *a, GVariant *p, gpointer data)
{
  _spx_window_save (data, TRUE);
}

static void
act_export (GSimpleAction *a, GVariant *p, gpointer data)
{
  _spx_window_export_dialog (data);
}

/* Non-interactive forms the tests (and scripts) use. */
static void
act_export_path (GSimpleAction *a, GVariant *p, gpointer data)
{
  _spx_window_export_view (data, g_variant_get_string (p, NULL));
}

static void
act_export_sweep_path (GSimpleAction *a, GVariant *p, gpointer data)
{
  _spx_window_export_sweep (data, g_variant_get_string (p, NULL));
}

static void
act_open_folder (GSimpleAction *a, GVariant *p, gpointer data)
{
  _spx_window_open_folder_dialog (data);
}

static void
act_survey (GSimpleAction *a, GVariant *p, gpointer data)
{
  _spx_window_run_survey (data);
}

static void
act_survey_again (GSimpleAction *a, GVariant *p, gpointer data)
{
  _spx_window_survey_again (data);
}

static void
act_save_survey (GSimpleAction *a, GVariant *p, gpointer data)
{
  _spx_window_save_survey_dialog (data);
}

static void
act_save_survey_path (GSimpleAction *a, GVariant *p, gpointer data)
{
  _spx_window_save_survey (data, g_variant_get_string (p, NULL));
}

static void
act_save_mask (GSimpleAction *a, GVariant *p, gpointer data)
{
  _spx_window_save_mask_dialog (data);
}

static void
act_save_mask_path (GSimpleAction *a, GVariant *p, gpointer data)
{
  _spx_window_save_mask (data, g_variant_get_string (p, NULL));
}

static void
act_undo (GSimpleAction *a, GVariant *p, gpointer data)
{
  spx_mask_editor_undo (SPX_MASK_EDITOR (SPX_WINDOW (data)->editor));
}

static void
act_redo (GSimpleAction *a, GVariant *p, gpointer data)
{
  spx_mask_editor_redo (SPX_MASK_EDITOR (SPX_WINDOW (data)->editor));
}

static void
act_view (GSimpleAction *a, GVariant *p, gpointer data)
{
  spx_window_show_view (data, g_variant_get_string (p, NULL));
}

static void
act_select_tile (GSimpleAction *a, GVariant *p, gpointer data)
{
  _spx_window_select_tile (data, g_variant_get_int32 (p));
}

static void
act_select_superstep (GSimpleAction *a, GVariant *p, gpointer data)
{
  gint32 lane, step;
  g_variant_get (p, "(ii)", &lane, &step);
  _spx_window_select_superstep (data, lane, step);
}

static void
act_sweep (GSimpleAction *a, GVariant *p, gpointer data)
{
  _spx_window_run_sweep (data);
}

static void
act_measure_again (GSimpleAction *a, GVariant *p, gpointer data)
{
  _spx_window_measure_again (data);
}

/* Escape: the work under way, and a sweep waiting for it. A window
 * left without any mask (its first one stopped) makes the scenario's. */
static void
act_cancel (GSimpleAction *a, GVariant *p, gpointer data)
{
  SpxWindow *w = data;
  w->sweep_pending = FALSE;
  _spx_window_cancel_work (w);
  _spx_window_layers_cancel (w);
  if (w->study->scenario->mask == NULL)
    _spx_window_rebuild (w);
}

static void
act_main_menu (GSimpleAction *a, GVariant *p, gpointer data)
{
  _spx_window_toggle_menu (data);
}

static void
act_lesson (GSimpleAction *a, GVariant *p, gpointer data)
{
  _spx_window_lesson_start (data);
}

static void
act_lesson_next (GSimpleAction *a, GVariant *p, gpointer data)
{
  _spx_window_lesson_move (data, +1);
}

static void
act_lesson_back (GSimpleAction *a, GVariant *p, gpointer data)
{
  _spx_window_lesson_move (data, -1);
}

static const GActionEntry win_actions[] = {
  { "open", act_open, NULL, NULL, NULL, { 0 } },
  { "open-path", act_open_path, "s", NULL, NULL, { 0 } },
  { "open-folder", act_open_folder, NULL, NULL, NULL, { 0 } },
  { "save", act_save, NULL, NULL, NULL, { 0 } },
  { "save-as", act_save_as, NULL, NULL, NULL, { 0 } },
  { "export", act_export, NULL, NULL, NULL, { 0 } },
  { "export-path", act_export_path, "s", NULL, NULL, { 0 } },
  { "export-sweep-path", act_export_sweep_path, "s", NULL, NULL, { 0 } },
  { "save-mask", act_save_mask, NULL, NULL, NULL, { 0 } },
  { "save-mask-path", act_save_mask_path, "s", NULL, NULL, { 0 } },
  { "undo", act_undo, NULL, NULL, NULL, { 0 } },
  { "redo", act_redo, NULL, NULL, NULL, { 0 } },
  { "view", act_view, "s", NULL, NULL, { 0 } },
  { "select-tile", act_select_tile, "i", NULL, NULL, { 0 } },
  { "select-superstep", act_select_superstep, "(ii)", NULL, NULL, { 0 } },
  { "run-sweep", act_sweep, NULL, NULL, NULL, { 0 } },
  { "measure-again", act_measure_again, NULL, NULL, NULL, { 0 } },
  { "run-survey", act_survey, NULL, NULL, NULL, { 0 } },
  { "survey-again", act_survey_again, NULL, NULL, NULL, { 0 } },
  { "save-survey", act_save_survey, NULL, NULL, NULL, { 0 } },
  { "save-survey-path", act_save_survey_path, "s", NULL, NULL, { 0 } },
  { "cancel", act_cancel, NULL, NULL, NULL, { 0 } },
  { "main-menu", act_main_menu, NULL, NULL, NULL, { 0 } },
  { "lesson", act_lesson, NULL, NULL, NULL, { 0 } },
  { "lesson-next", act_lesson_next, NULL, NULL, NULL, { 0 } },
  { "lesson-back", act_lesson_back, NULL, NULL, NULL, { 0 } },
};

void
spx_window_show_view (SpxWindow *w, const char *name)
{
  /* the Layers page shows (its empty state before a network) when
   * asked for */
  if (g_str_equal (name, SPX_WINDOW_LAYERS_VIEW))
    gtk_widget_show (w->layers.page);
  if (gtk_stack_get_child_by_name (GTK_STACK (w->stack), name) != NULL)
    gtk_stack_set_visible_child_name (GTK_STACK (w->stack), name);
}

void
spx_window_use_defaults (SpxWindow *w, const char *machine, guint threads)
{
  gboolean preset = spx_ipu_machine_presets () != NULL &&
                    g_strv_contains (spx_ipu_machine_presets (), machine);
  if (preset && !g_str_equal (machine, w->study->machine->name))
    {
      spx_study_set_machine (w->study, machine, NULL);
      _spx_window_replan (w);
    }
  /* preferences may ask more than this machine runs */
  spx_study_set_threads (w->study, MIN (threads, spx_max_threads ()));
  spx_scenario_panel_load (w->panel, w->study);
}

/* ---- construction -------------------------------------------------- */

static GtkWidget *
icon_button (const char *icon, const char *action, const char *tooltip)
{
  GtkWidget *b = gtk_button_new_from_icon_name (icon, GTK_ICON_SIZE_BUTTON);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (b), action);
  gtk_widget_set_tooltip_text (b, tooltip);
  return b;
}

static GMenuModel *
primary_menu (void)
{
  GMenu *menu = g_menu_new ();
  GMenu *file = g_menu_new ();
  g_menu_append (file, "Open _Network Folder…", "win.open-folder");
  g_menu_append (file, "Save _As…", "win.save-as");
  g_menu_append (file, "Save _Mask As…", "win.save-mask");
  g_menu_append (file, "_Export View…", "win.export");
  g_menu_append (file, "_" RUN_SWEEP, "win.run-sweep");
  g_menu_append (file, "Run S_urvey", "win.run-survey");
  g_menu_append (file, "Sa_ve Survey…", "win.save-survey");
  g_menu_append_section (menu, NULL, G_MENU_MODEL (file));
  GMenu *app = g_menu_new ();
  g_menu_append (app, "_Preferences", "app.preferences");
  g_menu_append (app, "_Learn the IPU Model", "win.lesson");
  g_menu_append (app, "_Keyboard Shortcuts", "win.show-help-overlay");
  g_menu_append (app, "_About Sparse Explorer", "app.about");
  g_menu_append_section (menu, NULL, G_MENU_MODEL (app));
  g_object_unref (file);
  g_object_unref (app);
  return G_MENU_MODEL (menu);
}

static void
build_header (SpxWindow *w)
{
  w->header = gtk_header_bar_new ();
  gtk_header_bar_set_show_close_button (GTK_HEADER_BAR (w->header), TRUE);
  GtkHeaderBar *h = GTK_HEADER_BAR (w->header);
  gtk_header_bar_pack_start (h, icon_button ("document-open-symbolic",
                                             "win.open", "Open (Ctrl+O)"));
  gtk_header_bar_pack_start (h, icon_button ("document-save-symbolic",
                                             "win.save", "Save (Ctrl+S)"));
  gtk_header_bar_pack_start (h, icon_button ("document-send-symbolic",
                                             "win.export",
                                             "Export the view (Ctrl+E)"));
  w->undo_button = icon_button ("edit-undo-symbolic", "win.undo",
                                "Undo (Ctrl+Z)");
  w->redo_button = icon_button ("edit-redo-symbolic", "win.redo",
                                "Redo (Shift+Ctrl+Z)");
  gtk_header_bar_pack_start (h, w->undo_button);
  gtk_header_bar_pack_start (h, w->redo_button);

  GtkWidget *menu = w->menu_button = gtk_menu_button_new ();
  gtk_button_set_image (GTK_BUTTON (menu), gtk_image_new_from_icon_name (
                          "open-menu-symbolic", GTK_ICON_SIZE_BUTTON));
  g_autoptr (GMenuModel) model = primary_menu ();
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (menu), model);
  gtk_widget_set_tooltip_text (menu, "Main menu (F10)");
  gtk_header_bar_pack_end (h, menu);
  w->cancel = icon_button ("process-stop-symbolic", "win.cancel",
                           "Cancel (Escape)");
  gtk_header_bar_pack_end (h, w->cancel);
  w->progress = gtk_progress_bar_new ();
  gtk_progress_bar_set_show_text (GTK_PROGRESS_BAR (w->progress), TRUE);
  gtk_widget_set_valign (w->progress, GTK_ALIGN_CENTER);
  gtk_header_bar_pack_end (h, w->progress);
  gtk_widget_set_no_show_all (w->progress, TRUE);
  gtk_widget_set_no_show_all (w->cancel, TRUE);
  gtk_widget_show_all (w->header);
  gtk_window_set_titlebar (GTK_WINDOW (w), w->header);
}

static GtkWidget *
labelled_row (GtkWidget *child, GtkWidget *extra)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_container_set_border_width (GTK_CONTAINER (box), 4);
  gtk_box_pack_start (GTK_BOX (box), child, FALSE, FALSE, 0);
  if (extra)
    gtk_box_pack_start (GTK_BOX (box), extra, TRUE, TRUE, 0);
  return box;
}

static void
on_metric_changed (GtkComboBox *combo, SpxWindow *w)
{
  w->metrics[SPX_RENDER_VIEW_TILES] = (guint) gtk_combo_box_get_active (combo);
  _spx_window_views_changed (w, 0);
}

static void
on_superstep_changed (GtkSpinButton *spin, SpxWindow *w)
{
  w->view_state.superstep =
    (guint) gtk_spin_button_get_value_as_int (spin) - 1;
  _spx_window_views_changed (w, 0);
  /* the step chosen here is the Timeline's selection too (not the one
   * a new plan starts the Exchange view on: show_superstep) */
  _spx_window_select_superstep (w, (gint) w->mode,
                                (gint) w->view_state.superstep);
}

static void
on_every_arrow_toggled (GtkToggleButton *b, SpxWindow *w)
{
  /* the Exchange view's second metric */
  w->metrics[SPX_RENDER_VIEW_EXCHANGE] = gtk_toggle_button_get_active (b);
  _spx_window_views_changed (w, 0);
}

static void
on_throughput_toggled (GtkToggleButton *b, SpxWindow *w)
{
  /* the chart's second metric */
  w->metrics[SPX_RENDER_VIEW_SPEEDUP] = gtk_toggle_button_get_active (b);
  _spx_window_views_changed (w, 0);
}

static void
on_colour_toggled (GtkToggleButton *b, SpxWindow *w)
{
  spx_mask_editor_set_colour_by_tile (SPX_MASK_EDITOR (w->editor),
                                      gtk_toggle_button_get_active (b));
}

static void
on_tool_changed (GtkComboBox *combo, SpxWindow *w)
{
  spx_mask_editor_set_tool (SPX_MASK_EDITOR (w->editor),
                            gtk_combo_box_get_active (combo));
}

static GtkWidget *
combo_of (const char *const *items, guint active)
{
  GtkWidget *c = gtk_combo_box_text_new ();
  for (guint i = 0; items[i]; i++)
    gtk_combo_box_text_append_text (GTK_COMBO_BOX_TEXT (c), items[i]);
  gtk_combo_box_set_active (GTK_COMBO_BOX (c), (gint) active);
  return c;
}

/* A line of words under a page's tools: wraps, selectable. */
static GtkWidget *
verdict_label (void)
{
  GtkWidget *l = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (l), 0);
  gtk_label_set_line_wrap (GTK_LABEL (l), TRUE);
  gtk_label_set_selectable (GTK_LABEL (l), TRUE);
  gtk_widget_set_margin_start (l, 8);
  gtk_widget_set_margin_end (l, 8);
  gtk_widget_set_margin_bottom (l, 4);
  return l;
}

static GtkWidget *
mask_page (SpxWindow *w)
{
  static const char *const tools[] = { "Draw blocks", "Erase blocks",
                                       "Draw a rectangle",
                                       "Erase a rectangle",
                                       "Select (show its tile)", NULL };
  w->editor = w->views[SPX_RENDER_VIEW_MASK] = spx_mask_editor_new ();
  g_signal_connect (w->editor, "mask-edited", G_CALLBACK (on_mask_edited), w);
  g_signal_connect (w->editor, "history-changed",
                    G_CALLBACK (on_history_changed), w);
  g_signal_connect (w->editor, "block-activated",
                    G_CALLBACK (on_block_activated), w);
  g_signal_connect (w->editor, "edit-refused", G_CALLBACK (on_edit_refused),
                    w);
  g_signal_connect (w->editor, "mask-replaced",
                    G_CALLBACK (on_mask_replaced), w);
  GtkWidget *tool = combo_of (tools, 0);
  g_signal_connect (tool, "changed", G_CALLBACK (on_tool_changed), w);
  GtkWidget *colour = gtk_check_button_new_with_label ("Colour by tile");
  g_signal_connect (colour, "toggled", G_CALLBACK (on_colour_toggled), w);
  w->colour = colour;
  w->density_label = gtk_label_new (NULL);
  gtk_label_set_ellipsize (GTK_LABEL (w->density_label), PANGO_ELLIPSIZE_END);
  gtk_label_set_xalign (GTK_LABEL (w->density_label), 1);
  GtkWidget *bar = labelled_row (tool, colour);
  gtk_box_pack_end (GTK_BOX (bar), w->density_label, FALSE, FALSE, 0);
  w->verdict = verdict_label ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_box_pack_start (GTK_BOX (box), bar, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (box), w->verdict, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (box), w->editor, TRUE, TRUE, 0);
  return box;
}

static GtkWidget *
view_page (GtkWidget *view, GtkWidget *bar)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  if (bar)
    gtk_box_pack_start (GTK_BOX (box), bar, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (box), view, TRUE, TRUE, 0);
  return box;
}

/* Clicks on view go to on_press. */
static void
view_clicks (GtkWidget *view, GCallback on_press, SpxWindow *w)
{
  gtk_widget_add_events (view, GDK_BUTTON_PRESS_MASK);
  g_signal_connect (view, "button-press-event", on_press, w);
}

/* The Tiles view's metric (in its metrics' order) and selected tile. */
static GtkWidget *
tiles_bar (SpxWindow *w, GtkWidget *view)
{
  static const char *const metrics[] = { "Memory per tile",
                                         "Compute cycles",
                                         "Bytes exchanged", NULL };
  view_clicks (view, G_CALLBACK (on_tiles_press), w);
  w->metric = combo_of (metrics, 0);
  g_signal_connect (w->metric, "changed", G_CALLBACK (on_metric_changed), w);
  w->tile_label = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (w->tile_label), 0);
  /* long lines give way to the lesson beside the views */
  gtk_label_set_ellipsize (GTK_LABEL (w->tile_label), PANGO_ELLIPSIZE_END);
  return labelled_row (w->metric, w->tile_label);
}

/* A click on a tile keeps only its traffic (and selects it everywhere);
 * a click beside the tiles, or on the tile again, shows all. */
static gboolean
on_exchange_press (GtkWidget *view, GdkEventButton *ev, SpxWindow *w)
{
  SpxRenderViewHit hit;
  if (ev->button != GDK_BUTTON_PRIMARY || ev->type != GDK_BUTTON_PRESS ||
      shown_program (w) == NULL)
    return FALSE;
  view_hit (w, SPX_RENDER_VIEW_EXCHANGE, ev->x, ev->y, &hit);
  _spx_window_select_tile (w, hit.tile == w->selected_tile ? -1 : hit.tile);
  return TRUE;
}

/* The Exchange view's superstep. */
static GtkWidget *
exchange_bar (SpxWindow *w, GtkWidget *view)
{
  view_clicks (view, G_CALLBACK (on_exchange_press), w);
  w->superstep = gtk_spin_button_new_with_range (1, 1, 1);
  g_signal_connect (w->superstep, "value-changed",
                    G_CALLBACK (on_superstep_changed), w);
  GtkWidget *label = gtk_label_new ("Superstep");
  GtkWidget *row = labelled_row (label, NULL);
  gtk_box_pack_start (GTK_BOX (row), w->superstep, FALSE, FALSE, 0);
  w->every_arrow = gtk_check_button_new_with_mnemonic ("Every _arrow");
  gtk_widget_set_tooltip_text (w->every_arrow, "An arrow per tile pair "
                               "however many there are; unticked, a step "
                               "with more than "
                               G_STRINGIFY (SPX_RENDER_EXCHANGE_MAX_ARROWS)
                               " draws the traffic summed between groups "
                               "of tiles");
  g_signal_connect (w->every_arrow, "toggled",
                    G_CALLBACK (on_every_arrow_toggled), w);
  gtk_box_pack_start (GTK_BOX (row), w->every_arrow, FALSE, FALSE, 12);
  return row;
}

/* The Timeline has clicks and its zoom, no bar. */
static GtkWidget *
timeline_bar (SpxWindow *w, GtkWidget *view)
{
  view_clicks (view, G_CALLBACK (on_timeline_press), w);
  _spx_window_timeline_init (w, view);
  return NULL;
}

/* The sweep: what it measures, run it, the chart's metric, its notes. */
static GtkWidget *
speedup_bar (SpxWindow *w, GtkWidget *view)
{
  w->sweep_button = gtk_button_new_with_mnemonic ("_" RUN_SWEEP);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (w->sweep_button),
                                  "win.run-sweep");
  gtk_widget_set_tooltip_text (w->sweep_button, "Model the IPU and measure "
                               "this CPU: a mask from a file or drawn at "
                               "block sizes 1 to 16, a generated one at "
                               "densities 1/4 to 1/32 (Ctrl+R)");
  w->again_button = gtk_button_new_with_mnemonic ("Measure _Again on 1 "
                                                  "Thread");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (w->again_button),
                                  "win.measure-again");
  gtk_widget_set_no_show_all (w->again_button, TRUE);
  w->throughput = gtk_check_button_new_with_label ("Non-zero throughput");
  g_signal_connect (w->throughput, "toggled",
                    G_CALLBACK (on_throughput_toggled), w);
  w->sweep_note = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (w->sweep_note), 0);
  gtk_label_set_line_wrap (GTK_LABEL (w->sweep_note), TRUE);
  /* in SpxBenchOp's order */
  static const char *const ops[] = { "SpMM (W·X)", "SDDMM ((P·Qᵀ) ⊙ mask)",
                                     NULL };
  w->sweep_op = combo_of (ops, SPX_BENCH_OP_SPMM);
  gtk_widget_set_tooltip_text (w->sweep_op, "What Run Sweep measures: the "
                               "sparse × dense product (the IPU model and "
                               "this CPU), or the sampled dense × dense "
                               "product training needs (this CPU only, "
                               "dense and static)");
  GtkWidget *row = labelled_row (w->sweep_op, NULL);
  /* a note wrapped over lines must not stretch the controls beside it */
  gtk_widget_set_valign (w->sweep_op, GTK_ALIGN_CENTER);
  gtk_widget_set_valign (w->sweep_button, GTK_ALIGN_CENTER);
  gtk_box_pack_start (GTK_BOX (row), w->sweep_button, FALSE, FALSE, 0);
  /* the rest on a second line: the view stays narrow enough for the
   * lesson beside it on a 1024-pixel screen */
  GtkWidget *more = labelled_row (w->throughput, NULL);
  gtk_widget_set_valign (w->again_button, GTK_ALIGN_CENTER);
  gtk_box_pack_start (GTK_BOX (more), w->again_button, FALSE, FALSE, 0);
  w->sweep_verdict = verdict_label ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_box_pack_start (GTK_BOX (box), row, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (box), more, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (box), _spx_window_compare_new (w), FALSE,
                      FALSE, 2);
  /* under the controls, the width of the view: a long note wraps over a
   * few wide lines, not many narrow ones */
  gtk_widget_set_margin_start (w->sweep_note, 8);
  gtk_widget_set_margin_end (w->sweep_note, 8);
  gtk_box_pack_start (GTK_BOX (box), w->sweep_note, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (box), w->sweep_verdict, FALSE, FALSE, 0);
  return box;
}

/* What the window adds above a view's picture (NULL: nothing), with
 * the clicks it takes; a view without an entry is its picture alone. */
static GtkWidget *(*const view_bars[SPX_RENDER_N_VIEWS]) (SpxWindow *,
                                                         GtkWidget *) = {
  [SPX_RENDER_VIEW_TILES] = tiles_bar,
  [SPX_RENDER_VIEW_EXCHANGE] = exchange_bar,
  [SPX_RENDER_VIEW_TIMELINE] = timeline_bar,
  [SPX_RENDER_VIEW_SPEEDUP] = speedup_bar,
};

/* View i drawn by its row's renderer from the data its row makes, and
 * explaining what is under the pointer when its row can. */
static GtkWidget *
picture_new (SpxWindow *w, guint i)
{
  const SpxRenderView *v = spx_render_views[i];
  GtkWidget *view = spx_view_new ();
  w->view_data[i] = g_malloc0 (v->data_size);
  spx_view_set_renderer (SPX_VIEW (view), v->draw, w->view_data[i]);
  if (v->describe != NULL)
    hover_explains (w, view, v->name);
  return view;
}

/* The page of view i: the mask's is the editor and its tools. */
static GtkWidget *
view_page_new (SpxWindow *w, guint i)
{
  if (i == SPX_RENDER_VIEW_MASK)
    return mask_page (w);
  w->views[i] = picture_new (w, i);
  return view_page (w->views[i],
                    view_bars[i] ? view_bars[i] (w, w->views[i]) : NULL);
}

static GtkWidget *build_info_bar (SpxWindow *w);

static void
add_provider (GtkWidget *widget, gpointer provider)
{
  gtk_style_context_add_provider (gtk_widget_get_style_context (widget),
                                  provider,
                                  GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
}

/* The switcher's buttons as wide as their titles need: the theme's
 * 100-pixel minimum for each of six makes the window wider than a
 * 1024-pixel screen. */
static void
compact_buttons (GtkWidget *switcher)
{
  GtkCssProvider *css = gtk_css_provider_new ();
  gtk_css_provider_load_from_data (css, "button { min-width: 56px; }", -1,
                                   NULL);
  gtk_container_foreach (GTK_CONTAINER (switcher), add_provider, css);
  g_object_unref (css);
}

static GtkWidget *
build_views (SpxWindow *w)
{
  w->stack = gtk_stack_new ();
  /* each view as wide as it needs: the Speedup view's controls must not
   * widen the others (the lesson beside them on a 1024-pixel screen) */
  gtk_stack_set_hhomogeneous (GTK_STACK (w->stack), FALSE);
  gtk_stack_set_transition_type (GTK_STACK (w->stack),
                                 GTK_STACK_TRANSITION_TYPE_CROSSFADE);
  for (guint i = 0; i < SPX_RENDER_N_VIEWS; i++)
    gtk_stack_add_titled (GTK_STACK (w->stack), view_page_new (w, i),
                          spx_render_views[i]->name, spx_render_views[i]->title);
  /* Not a row of the views' table: those are pictures of the subject,
   * made from a scenario (`render` draws any of them); this page is a
   * network's table and chart, kept while its layers are studied one by
   * one, and its chart is drawn headless by `layers --out`. */
  gtk_stack_add_titled (GTK_STACK (w->stack), _spx_window_layers_page_new (w),
                        SPX_WINDOW_LAYERS_VIEW, SPX_WINDOW_LAYERS_TITLE);
  GtkWidget *switcher = gtk_stack_switcher_new ();
  gtk_stack_switcher_set_stack (GTK_STACK_SWITCHER (switcher),
                                GTK_STACK (w->stack));
  gtk_widget_set_halign (switcher, GTK_ALIGN_CENTER);
  compact_buttons (switcher);
  _spx_window_layers_tab (w, switcher);
  gtk_widget_set_margin_top (switcher, 6);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  /* above the views, not the panel: a message never moves the field
   * under the pointer */
  gtk_box_pack_start (GTK_BOX (box), build_info_bar (w), FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (box), switcher, FALSE, FALSE, 0);
  /* the lesson shares the views' width, not the window's */
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_box_pack_start (GTK_BOX (row), w->stack, TRUE, TRUE, 0);
  gtk_box_pack_start (GTK_BOX (row), _spx_window_lesson_panel_new (w), FALSE,
                      FALSE, 0);
  gtk_box_pack_start (GTK_BOX (box), row, TRUE, TRUE, 0);
  _spx_window_export_track_bar (w, row);
  return box;
}

static void
on_info_response (GtkInfoBar *bar, gint response, SpxWindow *w)
{
  _spx_window_clear_error (w);
  if (response == FIT_RESPONSE)
    _spx_window_fit_size (w);
  else if (response == FOLDER_RESPONSE)
    open_saved_folder (w);
}

static GtkWidget *
build_info_bar (SpxWindow *w)
{
  w->info_bar = gtk_info_bar_new ();
  gtk_info_bar_set_message_type (GTK_INFO_BAR (w->info_bar),
                                 GTK_MESSAGE_ERROR);
  gtk_info_bar_set_show_close_button (GTK_INFO_BAR (w->info_bar), TRUE);
  w->info_label = gtk_label_new (NULL);
  gtk_label_set_line_wrap (GTK_LABEL (w->info_label), TRUE);
  /* a long path or name breaks anywhere, and at most a few lines show:
   * the bar never grows wider than the window */
  gtk_label_set_line_wrap_mode (GTK_LABEL (w->info_label),
                                PANGO_WRAP_WORD_CHAR);
  gtk_label_set_ellipsize (GTK_LABEL (w->info_label), PANGO_ELLIPSIZE_END);
  gtk_label_set_lines (GTK_LABEL (w->info_label), INFO_LINES);
  gtk_label_set_max_width_chars (GTK_LABEL (w->info_label), 100);
  gtk_label_set_selectable (GTK_LABEL (w->info_label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (w->info_label), 0);
  gtk_container_add (GTK_CONTAINER (gtk_info_bar_get_content_area (
                       GTK_INFO_BAR (w->info_bar))), w->info_label);
  w->fit_button = gtk_info_bar_add_button (GTK_INFO_BAR (w->info_bar),
                                           "_Use a size that fits",
                                           FIT_RESPONSE);
  gtk_widget_set_tooltip_text (w->fit_button, "Set m = k to the largest "
                               "size at which every plan fits this machine");
  gtk_widget_set_no_show_all (w->fit_button, TRUE);
  w->folder_button = gtk_info_bar_add_button (GTK_INFO_BAR (w->info_bar),
                                              "_Open Folder", FOLDER_RESPONSE);
  gtk_widget_set_tooltip_text (w->folder_button,
                               "Show the saved file's folder in the file "
                               "manager");
  gtk_widget_set_no_show_all (w->folder_button, TRUE);
  g_signal_connect (w->info_bar, "response", G_CALLBACK (on_info_response),
                    w);
  gtk_widget_set_no_show_all (w->info_bar, TRUE);
  gtk_widget_show (w->info_label);
  return w->info_bar;
}

/* Files dropped on the window open like files given on the command
 * line (the first one; a window holds one scenario). */
static void
on_drop (GtkWidget *widget, GdkDragContext *context, gint x, gint y,
         GtkSelectionData *data, guint info, guint time, SpxWindow *w)
{
  g_auto (GStrv) uris = gtk_selection_data_get_uris (data);
  gboolean ok = uris != NULL && uris[0] != NULL;
  gtk_drag_finish (context, ok, FALSE, time);
  if (ok)
    {
      g_autoptr (GFile) file = g_file_new_for_uri (uris[0]);
      spx_window_open_file (w, file, FALSE);
    }
}

static void
accept_drops (SpxWindow *w)
{
  gtk_drag_dest_set (GTK_WIDGET (w), GTK_DEST_DEFAULT_ALL, NULL, 0,
                     GDK_ACTION_COPY);
  gtk_drag_dest_add_uri_targets (GTK_WIDGET (w));
  g_signal_connect (w, "drag-data-received", G_CALLBACK (on_drop), w);
}

static gboolean
on_delete (GtkWidget *widget, GdkEvent *event, SpxWindow *w)
{
  /* TRUE keeps the window */
  return !_spx_window_confirm_discard (w) ||
         !_spx_window_may_replace_survey (w);
}

static void
on_theme_changed (GObject *settings, GParamSpec *pspec, SpxWindow *w)
{
  SpxTheme theme = _spx_window_theme (w);
  spx_mask_editor_set_theme (SPX_MASK_EDITOR (w->editor), theme);
  for (guint i = 0; i < SPX_RENDER_N_VIEWS; i++)
    if (SPX_IS_VIEW (w->views[i]))
      spx_view_set_theme (SPX_VIEW (w->views[i]), theme);
  spx_view_set_theme (SPX_VIEW (w->layers.chart), theme);
}

/* The GTK theme changed (by name, or its variant). */
static void
on_style_updated (SpxWindow *w)
{
  on_theme_changed (NULL, NULL, w);
}

/* 1120 × 720, or what fits a smaller screen's work area: without a
 * window manager to clamp it (or under one that does not), a larger
 * window runs off the screen. The margins leave room for the header bar
 * and the window's shadow. */
static void
set_default_size (SpxWindow *w)
{
  gint width = 1120, height = 720;
  GdkDisplay *display = gdk_display_get_default ();
  GdkMonitor *monitor = NULL;
  if (display != NULL)
    monitor = gdk_display_get_primary_monitor (display);
  if (monitor == NULL && display != NULL &&
      gdk_display_get_n_monitors (display) > 0)
    monitor = gdk_display_get_monitor (display, 0);
  if (monitor != NULL)
    {
      GdkRectangle area;
      gdk_monitor_get_workarea (monitor, &area);
      width = CLAMP (area.width - 16, 640, width);
      height = CLAMP (area.height - 64, 480, height);
    }
  gtk_window_set_default_size (GTK_WINDOW (w), width, height);
}

static void
spx_window_init (SpxWindow *w)
{
  w->study = spx_study_new ();
  w->mode = SPX_IPU_MODE_STATIC;
  w->selected_tile = -1;
  w->view_state.step = w->view_state.lane = -1;
  w->view_state.sweep = w->study->sweep;
  g_action_map_add_action_entries (G_ACTION_MAP (w), win_actions,
                                   G_N_ELEMENTS (win_actions), w);
  set_default_size (w);
  build_header (w);
  GtkWidget *content = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *paned = gtk_paned_new (GTK_ORIENTATION_HORIZONTAL);
  gtk_paned_pack1 (GTK_PANED (paned), _spx_window_panel_new (w), FALSE,
                   FALSE);
  gtk_paned_pack2 (GTK_PANED (paned), build_views (w), TRUE, FALSE);
  gtk_box_pack_start (GTK_BOX (content), paned, TRUE, TRUE, 0);
  gtk_container_add (GTK_CONTAINER (w), content);
  gtk_widget_show_all (content);
  g_signal_connect (w, "delete-event", G_CALLBACK (on_delete), w);
  accept_drops (w);
  g_signal_connect (gtk_widget_get_settings (GTK_WIDGET (w)),
                    "notify::gtk-application-prefer-dark-theme",
                    G_CALLBACK (on_theme_changed), w);
  g_signal_connect_swapped (w, "style-updated",
                            G_CALLBACK (on_style_updated), w);
  on_theme_changed (NULL, NULL, w);
  spx_scenario_panel_load (w->panel, w->study);
  spx_scenario_panel_set_mode (w->panel, w->mode);
  _spx_window_update_title (w);
  update_undo (w);
  _spx_window_update_busy (w);
  _spx_window_select_tile (w, -1);
  _spx_window_rebuild (w);
  _spx_window_keys_init (w);
}

static void
spx_window_dispose (GObject *object)
{
  SpxWindow *w = SPX_WINDOW (object);
  _spx_window_cancel_work (w);
  _spx_window_layers_cancel (w);
  /* nothing more of the work: its results would find no widgets */
  g_clear_pointer (&w->sweep_job, spx_job_drop);
  g_clear_pointer (&w->layers.job, spx_job_drop);
  w->progress = NULL; /* dispose runs again once the widgets are gone */
  g_signal_handlers_disconnect_by_data (
    gtk_widget_get_settings (GTK_WIDGET (w)), w);
  G_OBJECT_CLASS (spx_window_parent_class)->dispose (object);
}

static void
spx_window_finalize (GObject *object)
{
  SpxWindow *w = SPX_WINDOW (object);
  spx_study_free (w->study);
  spx_subject_free (w->shown);
  spx_lesson_free (w->lesson);
  _spx_window_layers_free (w);
  g_free (w->error);
  g_free (w->overlay_label);
  g_free (w->saved_folder);
  g_free (w->scenario_name);
  for (guint i = 0; i < SPX_RENDER_N_VIEWS; i++)
    g_free (w->view_data[i]);
  G_OBJECT_CLASS (spx_window_parent_class)->finalize (object);
}

static void
spx_window_class_init (SpxWindowClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = spx_window_dispose;
  G_OBJECT_CLASS (klass)->finalize = spx_window_finalize;
}

typedef struct {
  const char *name;
  GtkWidget  *found;
} Named;

static void
find_named (GtkWidget *widget, gpointer data)
{
  Named *n = data;
  if (n->found != NULL)
    return;
  if (g_strcmp0 (gtk_buildable_get_name (GTK_BUILDABLE (widget)),
                 n->name) == 0)
    n->found = widget;
  else if (GTK_IS_CONTAINER (widget))
    gtk_container_forall (GTK_CONTAINER (widget), find_named, n);
}

/* The shortcuts window's line for Alt+1… names the views of the table. */
static void
name_view_shortcuts (SpxWindow *w)
{
  GtkShortcutsWindow *overlay =
    gtk_application_window_get_help_overlay (GTK_APPLICATION_WINDOW (w));
  Named n = { "view_shortcuts", NULL };
  if (overlay != NULL)
    find_named (GTK_WIDGET (overlay), &n);
  if (n.found == NULL)
    return;
  const char *titles[SPX_RENDER_N_VIEWS + 2] = { NULL };
  for (guint i = 0; i < SPX_RENDER_N_VIEWS; i++)
    titles[i] = spx_render_views[i]->title;
  titles[SPX_RENDER_N_VIEWS] = SPX_WINDOW_LAYERS_TITLE;
  g_autofree char *keys = g_strdup_printf ("<Alt>1...%u",
                                           SPX_RENDER_N_VIEWS + 1);
  g_autofree char *names = g_strjoinv (", ", (char **) titles);
  g_object_set (n.found, "accelerator", keys, "title", names, NULL);
}

SpxWindow *
spx_window_new (GtkApplication *app)
{
  SpxWindow *w = g_object_new (SPX_TYPE_WINDOW, "application", app, NULL);
  name_view_shortcuts (w);
  return w;
}
