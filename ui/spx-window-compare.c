/* spx-window-compare.c: the Speedup view's "Compare with": one earlier
 * sweep of the session (another layer, machine or n) drawn under the
 * current one */
#include "spx-window-private.h"

static void
on_compare_changed (GtkComboBox *combo, SpxWindow *w)
{
  if (w->compare_filling)
    return;
  const char *id = gtk_combo_box_get_active_id (combo);
  gint i = id != NULL ? (gint) g_ascii_strtoll (id, NULL, 10) : -1;
  spx_study_set_overlay (w->study, i);
  _spx_window_update_verdict (w);
}

GtkWidget *
_spx_window_compare_new (SpxWindow *w)
{
  w->compare = gtk_combo_box_text_new ();
  gtk_widget_set_valign (w->compare, GTK_ALIGN_CENTER);
  gtk_widget_set_no_show_all (w->compare, TRUE);
  /* a label names file, shape, machine, n and numbers: too wide for the
   * bar, so it is cut in the middle (the list shows it whole) */
  g_autoptr (GList) cells = gtk_cell_layout_get_cells (
    GTK_CELL_LAYOUT (w->compare));
  if (cells != NULL)
    g_object_set (cells->data, "ellipsize", PANGO_ELLIPSIZE_MIDDLE,
                  "width-chars", 48, NULL);
  g_signal_connect (w->compare, "changed", G_CALLBACK (on_compare_changed),
                    w);
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *label = gtk_label_new_with_mnemonic ("Compare _with");
  gtk_label_set_mnemonic_widget (GTK_LABEL (label), w->compare);
  gtk_box_pack_start (GTK_BOX (row), label, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (row), w->compare, FALSE, FALSE, 0);
  gtk_widget_set_margin_start (row, 8);
  gtk_widget_set_no_show_all (row, TRUE);
  gtk_widget_show (label);
  _spx_window_compare_update (w);
  return row;
}

/* "None", then every kept sweep but the one shown, newest first. */
static void
fill (SpxWindow *w)
{
  GtkComboBoxText *combo = GTK_COMBO_BOX_TEXT (w->compare);
  SpxStudy *s = w->study;
  w->compare_filling = TRUE;
  gtk_combo_box_text_remove_all (combo);
  gtk_combo_box_text_append (combo, "-1", "none");
  for (gint i = (gint) spx_study_history_n (s) - 1; i >= 0; i--)
    {
      if (i == s->kept)
        continue;
      g_autofree char *label = spx_sweep_label (
        spx_study_history_get (s, (guint) i));
      g_autofree char *id = g_strdup_printf ("%d", i);
      gtk_combo_box_text_append (combo, id, label);
    }
  g_autofree char *active = g_strdup_printf ("%d", spx_study_overlay (s)
                                                     ? s->overlay : -1);
  gtk_combo_box_set_active_id (GTK_COMBO_BOX (combo), active);
  w->compare_filling = FALSE;
}

void
_spx_window_compare_update (SpxWindow *w)
{
  if (w->compare == NULL)
    return;
  fill (w);
  /* nothing to compare with yet: not offered */
  gboolean offer = spx_study_history_n (w->study) >
                   (w->study->kept >= 0 ? 1u : 0u);
  gtk_widget_set_visible (w->compare, offer);
  gtk_widget_set_visible (gtk_widget_get_parent (w->compare), offer);
  const SpxSweep *overlay = spx_study_overlay (w->study);
  g_free (w->overlay_label);
  w->overlay_label = overlay ? spx_sweep_label (overlay) : NULL;
  gtk_widget_set_tooltip_text (w->compare, overlay ? w->overlay_label
                               : "Draw an earlier sweep of this session "
                                 "under this one, muted, to compare two "
                                 "layers, machines or sizes; Export then "
                                 "writes both");
  w->view_state.overlay = overlay;
  /* the chart's legend makes its own shorter entry */
  w->view_state.overlay_label = NULL;
}
