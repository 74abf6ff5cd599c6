/* test-ui-defaults.c: the window says what every command says: the
 * shared defaults on its panel, a thresholded PNG in its bar */
#include "test-ui.h"
#include "spx-scenario-panel.h"

/* The first label named name under widget, or NULL. */
static GtkWidget *
find_named (GtkWidget *widget, const char *name)
{
  if (g_strcmp0 (gtk_widget_get_name (widget), name) == 0)
    return widget;
  if (!GTK_IS_CONTAINER (widget))
    return NULL;
  g_autoptr (GList) children =
    gtk_container_get_children (GTK_CONTAINER (widget));
  for (GList *c = children; c != NULL; c = c->next)
    {
      GtkWidget *found = find_named (c->data, name);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* A new study on the panel: n 1024 and every core, and under them, in
 * words, the runs and blocks every command measures with. */
static void
test_panel (void)
{
  SKIP_WITHOUT_DISPLAY ();
  GtkWidget *panel = g_object_ref_sink (spx_scenario_panel_new ());
  g_autoptr (SpxStudy) study = spx_study_new ();
  g_autoptr (GError) error = NULL;
  g_assert_true (spx_study_build_mask (study, &error));
  spx_scenario_panel_load (SPX_SCENARIO_PANEL (panel), study);
  GtkWidget *n = spx_scenario_panel_get_control (SPX_SCENARIO_PANEL (panel),
                                                 SPX_SCENARIO_FIELD_N);
  GtkWidget *threads = spx_scenario_panel_get_control (
    SPX_SCENARIO_PANEL (panel), SPX_SCENARIO_FIELD_THREADS);
  g_assert_cmpint (gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (n)),
                   ==, 1024);
  g_assert_cmpint (gtk_spin_button_get_value_as_int (
    GTK_SPIN_BUTTON (threads)), ==, 0);
  GtkWidget *label = find_named (panel, "defaults");
  g_assert_nonnull (label);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==,
                   "CPU: median of 7 runs after 2 warm-up; a mask's sweep "
                   "re-blocks it to 1, 2, 4, 8, 16");
  g_object_unref (panel);
}

/* A colour picture opened as a mask: black, white, red and grey 200,
 * opaque; red and grey are changed by the threshold, 2 of 4 pixels. */
static void
test_png_warning (void)
{
  SKIP_WITHOUT_DISPLAY ();
  static const guint32 pixels[] = { 0x000000, 0xffffff, 0xff0000, 0xc8c8c8 };
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 2, 2);
  cairo_surface_flush (s);
  guint8 *data = cairo_image_surface_get_data (s);
  int stride = cairo_image_surface_get_stride (s);
  for (guint i = 0; i < 4; i++)
    *(guint32 *) (data + (i / 2) * stride + 4 * (i % 2)) = pixels[i];
  cairo_surface_mark_dirty (s);
  g_autofree char *dir = g_dir_make_tmp ("spx-ui-defaults-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "photo.png", NULL);
  g_assert_cmpint (cairo_surface_write_to_png (s, path), ==,
                   CAIRO_STATUS_SUCCESS);
  cairo_surface_destroy (s);

  SpxWindow *w = window_new ();
  g_autoptr (GFile) file = g_file_new_for_path (path);
  spx_window_open_file (w, file, TRUE);
  wait_idle (w);
  g_autofree char *want = g_strdup_printf (
    "%s: not a two-level mask: 50%% of its pixels (2 of 4) are neither "
    "black, white nor transparent and were thresholded: set where alpha "
    "≥ 128 and luminance (299 R + 587 G + 114 B) / 1000 < 128", path);
  g_assert_cmpstr (spx_window_get_error (w), ==, want);
  g_assert_cmpint (gtk_info_bar_get_message_type (GTK_INFO_BAR (w->info_bar)),
                   ==, GTK_MESSAGE_WARNING);
  /* and it opened: black and red set */
  const SpxMask *elements = spx_study_elements (w->study);
  g_assert_nonnull (elements);
  g_assert_cmpuint (spx_mask_count (elements), ==, 2);
  window_close (w);
  g_unlink (path);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_autofree char *home = test_ui_init (&argc, &argv);
  g_test_add_func ("/ui/defaults/panel", test_panel);
  g_test_add_func ("/ui/defaults/png-warning", test_png_warning);
  return test_ui_run (home);
}
