/* test-ui.h: what the window's tests share: the application they open
 * windows in, waiting for a window's work, and closing it */
#pragma once

#include "spx-window-private.h"
#include "spx-render-png.h"

#include <glib/gstdio.h>

static gboolean have_display;
static GtkApplication *app;

#define WAIT_S 120

/* The longest single main-loop iteration seen (reported, not asserted:
 * machines are shared and noisy). */
static gint64 longest_us;

/* Run the main loop until the window has no work under way. */
static void
wait_idle (SpxWindow *w)
{
  gint64 end = g_get_monotonic_time () + WAIT_S * G_USEC_PER_SEC;
  do
    {
      gint64 t0 = g_get_monotonic_time ();
      g_main_context_iteration (NULL, FALSE);
      longest_us = MAX (longest_us, g_get_monotonic_time () - t0);
    }
  while ((spx_window_is_busy (w) || g_main_context_pending (NULL)) &&
         g_get_monotonic_time () < end);
  g_assert_false (spx_window_is_busy (w));
}

static SpxWindow *
window_new (void)
{
  SpxWindow *w = spx_window_new (app);
  gtk_widget_show (GTK_WIDGET (w));
  wait_idle (w);
  return w;
}

static void
window_close (SpxWindow *w)
{
  _spx_window_set_dirty (w, FALSE); /* no question in a test */
  gtk_widget_destroy (GTK_WIDGET (w));
  while (g_main_context_pending (NULL))
    g_main_context_iteration (NULL, FALSE);
}

/* A page just shown is allocated at the frame clock's next layout. */
static inline void
wait_drawn (GtkWidget *widget)
{
  gint64 end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while ((!gtk_widget_get_mapped (widget) ||
          gtk_widget_get_allocated_width (widget) <= 1) &&
         g_get_monotonic_time () < end)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  g_assert_true (gtk_widget_get_mapped (widget));
  while (g_main_context_pending (NULL))
    g_main_context_iteration (NULL, FALSE);
}

static inline void
activate (SpxWindow *w, const char *action, GVariant *param)
{
  g_action_group_activate_action (G_ACTION_GROUP (w), action, param);
}

#define SKIP_WITHOUT_DISPLAY()                                           \
  do {                                                                   \
    if (!have_display)                                                   \
      {                                                                  \
        g_test_skip ("no display (run under xvfb-run)");                 \
        return;                                                          \
      }                                                                  \
  } while (0)

static inline char *
data_path (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", name, NULL);
}

/* Answer the next message dialog with response once it shows (modal
 * dialogs run their own main loop, where this timeout still fires). */
static guint dialogs_answered;

static gboolean
answer_dialog (gpointer data)
{
  GList *tops = gtk_window_list_toplevels ();
  gboolean done = FALSE;
  for (GList *l = tops; l != NULL && !done; l = l->next)
    if (GTK_IS_MESSAGE_DIALOG (l->data) && gtk_widget_get_visible (l->data))
      {
        gtk_dialog_response (GTK_DIALOG (l->data), GPOINTER_TO_INT (data));
        dialogs_answered++;
        done = TRUE;
      }
  g_list_free (tops);
  return done ? G_SOURCE_REMOVE : G_SOURCE_CONTINUE;
}

static inline guint
answer_next_dialog (GtkResponseType response)
{
  return g_timeout_add (20, answer_dialog, GINT_TO_POINTER (response));
}

/* A dialog that never came: its answer is not left for a later one. */
static inline void
forget_answer (guint id)
{
  if (g_main_context_find_source_by_id (NULL, id) != NULL)
    g_source_remove (id);
}

/* Activates action (no parameter) answering the one dialog it asks with
 * response, and waits until the window is idle. */
static inline void
activate_answering (SpxWindow *w, const char *action,
                    GtkResponseType response)
{
  guint answered = dialogs_answered;
  guint id = answer_next_dialog (response);
  activate (w, action, NULL);
  wait_idle (w);
  forget_answer (id);
  g_assert_cmpuint (dialogs_answered, ==, answered + 1);
}

/* Preferences go to a throw-away place (returned, to remove at the
 * end); a display, when there is one, gets the test's application. */
static char *
test_ui_init (int *argc, char ***argv)
{
  char *home = g_dir_make_tmp ("spx-ui-home-XXXXXX", NULL);
  g_setenv ("XDG_CONFIG_HOME", home, TRUE);
  g_test_init (argc, argv, NULL);
  spx_mask_png_register ();
  have_display = gtk_init_check (argc, argv);
  if (have_display)
    {
      g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
      app = gtk_application_new ("org.sparseexplorer.Test",
                                 G_APPLICATION_NON_UNIQUE);
      /* the program's resources, so windows get its shortcuts window */
      g_application_set_resource_base_path (G_APPLICATION (app),
        "/org/sparseexplorer/SparseExplorer");
      g_application_register (G_APPLICATION (app), NULL, NULL);
      spx_window_set_accels (app);
    }
  return home;
}

static int
test_ui_run (const char *home)
{
  int status = g_test_run ();
  g_clear_object (&app);
  g_rmdir (home);
  return status;
}
