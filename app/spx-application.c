/* spx-application.c: the GtkApplication: windows, app actions, the
 * preferences dialog (its values in GSettings, spx-settings.h) */
#include "spx-application.h"
#include "spx-cli.h"
#include "spx-config.h"
#include "spx-ipu.h"
#include "spx-render-views.h"
#include "spx-settings.h"
#include "spx-util.h"
#include "spx-window.h"

#include <stdio.h>
#include <string.h>

struct _SpxApplication {
  GtkApplication parent;
  char          *view;     /* --view: the view new windows open on */
  gboolean       sweep;    /* --sweep: new windows start a sweep */
  gboolean       lesson;   /* --lesson: new windows open the lesson */
};

G_DEFINE_TYPE (SpxApplication, spx_application, GTK_TYPE_APPLICATION)

/* ---- preferences --------------------------------------------------- */

/* The theme follows the setting, also when changed from outside
 * (gsettings set). */
static void
apply_theme (GSettings *settings, const char *key, gpointer data)
{
  g_autofree char *theme = g_settings_get_string (settings, "theme");
  g_object_set (gtk_settings_get_default (),
                "gtk-application-prefer-dark-theme",
                g_str_equal (theme, "dark"), NULL);
}

static void
on_dark_toggled (GtkSwitch *sw, GParamSpec *pspec, gpointer data)
{
  g_settings_set_string (spx_settings_get (), "theme",
                         gtk_switch_get_active (sw) ? "dark" : "light");
}

static void
grid_row (GtkWidget *grid, gint row, const char *label, GtkWidget *control)
{
  GtkWidget *l = gtk_label_new_with_mnemonic (label);
  gtk_label_set_xalign (GTK_LABEL (l), 1);
  gtk_label_set_mnemonic_widget (GTK_LABEL (l), control);
  gtk_widget_set_halign (control, GTK_ALIGN_START);
  gtk_grid_attach (GTK_GRID (grid), l, 0, row, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), control, 1, row, 1, 1);
}

static void
act_preferences (GSimpleAction *a, GVariant *p, gpointer data)
{
  SpxApplication *app = data;
  GSettings *settings = spx_settings_get ();
  g_autofree char *theme = g_settings_get_string (settings, "theme");
  GtkWidget *dialog = gtk_dialog_new_with_buttons (
    "Preferences", gtk_application_get_active_window (GTK_APPLICATION (app)),
    GTK_DIALOG_DESTROY_WITH_PARENT | GTK_DIALOG_USE_HEADER_BAR, NULL, NULL);
  GtkWidget *grid = gtk_grid_new ();
  gtk_grid_set_row_spacing (GTK_GRID (grid), 8);
  gtk_grid_set_column_spacing (GTK_GRID (grid), 12);
  gtk_container_set_border_width (GTK_CONTAINER (grid), 18);
  GtkWidget *dark = gtk_switch_new ();
  gtk_switch_set_active (GTK_SWITCH (dark), g_str_equal (theme, "dark"));
  g_signal_connect (dark, "notify::active", G_CALLBACK (on_dark_toggled),
                    NULL);
  GtkWidget *threads = gtk_spin_button_new_with_range (0, 1024, 1);
  g_settings_bind (settings, "threads", threads, "value",
                   G_SETTINGS_BIND_DEFAULT);
  GtkWidget *machine = gtk_combo_box_text_new ();
  for (const char *const *n = spx_ipu_machine_presets (); *n; n++)
    gtk_combo_box_text_append (GTK_COMBO_BOX_TEXT (machine), *n, *n);
  g_settings_bind (settings, "machine", machine, "active-id",
                   G_SETTINGS_BIND_DEFAULT);
  grid_row (grid, 0, "_Dark theme", dark);
  grid_row (grid, 1, "CPU _threads (0: all)", threads);
  grid_row (grid, 2, "Default _machine", machine);
  gtk_container_add (GTK_CONTAINER (gtk_dialog_get_content_area (
                       GTK_DIALOG (dialog))), grid);
  g_signal_connect (dialog, "response", G_CALLBACK (gtk_widget_destroy),
                    NULL);
  gtk_widget_show_all (dialog);
}

/* ---- app actions --------------------------------------------------- */

static void
act_about (GSimpleAction *a, GVariant *p, gpointer data)
{
  static const char *const authors[] = { "The Sparse Explorer authors",
                                         NULL };
  gtk_show_about_dialog (
    gtk_application_get_active_window (GTK_APPLICATION (data)),
    "program-name", "Sparse Explorer", "version", SPX_VERSION,
    "comments", "Will a pruned weight matrix run faster than dense? "
    "Block-sparse matrix multiplication on this CPU and on a model of a "
    "Graphcore IPU.", "license-type", GTK_LICENSE_MIT_X11,
    "authors", authors, "logo-icon-name", SPX_APPLICATION_ID, NULL);
}

static void
act_quit (GSimpleAction *a, GVariant *p, gpointer data)
{
  /* each window asks before losing edits; quit only if all agree */
  GList *windows = g_list_copy (gtk_application_get_windows (data));
  gboolean keep = FALSE;
  for (GList *i = windows; i != NULL && !keep; i = i->next)
    {
      GdkEvent *ev = gdk_event_new (GDK_DELETE);
      g_signal_emit_by_name (i->data, "delete-event", ev, &keep);
      gdk_event_free (ev);
    }
  g_list_free (windows);
  if (!keep)
    g_application_quit (G_APPLICATION (data));
}

static const GActionEntry app_actions[] = {
  { "preferences", act_preferences, NULL, NULL, NULL, { 0 } },
  { "about", act_about, NULL, NULL, NULL, { 0 } },
  { "quit", act_quit, NULL, NULL, NULL, { 0 } },
};

/* ---- lifetime ------------------------------------------------------ */

static SpxWindow *
new_window (SpxApplication *app)
{
  SpxWindow *w = spx_window_new (GTK_APPLICATION (app));
  GSettings *settings = spx_settings_get ();
  g_autofree char *machine = g_settings_get_string (settings, "machine");
  spx_window_use_defaults (w, machine,
                           g_settings_get_uint (settings, "threads"));
  if (app->view)
    spx_window_show_view (w, app->view);
  gtk_window_present (GTK_WINDOW (w));
  if (app->sweep)
    g_action_group_activate_action (G_ACTION_GROUP (w), "run-sweep", NULL);
  if (app->lesson)
    g_action_group_activate_action (G_ACTION_GROUP (w), "lesson", NULL);
  return w;
}

static void
spx_application_startup (GApplication *gapp)
{
  SpxApplication *app = SPX_APPLICATION (gapp);
  G_APPLICATION_CLASS (spx_application_parent_class)->startup (gapp);
  g_action_map_add_action_entries (G_ACTION_MAP (app), app_actions,
                                   G_N_ELEMENTS (app_actions), app);
  spx_window_set_accels (GTK_APPLICATION (app));
  /* our icon, from the theme or else from our resources' icons/ */
  gtk_window_set_default_icon_name (SPX_APPLICATION_ID);
  GSettings *settings = spx_settings_get ();
  g_signal_connect (settings, "changed::theme", G_CALLBACK (apply_theme),
                    NULL);
  apply_theme (settings, "theme", NULL);
}

static void
spx_application_activate (GApplication *gapp)
{
  new_window (SPX_APPLICATION (gapp));
}

static void
spx_application_open (GApplication *gapp, GFile **files, gint n_files,
                      const char *hint)
{
  for (gint i = 0; i < n_files; i++)
    spx_window_open_file (new_window (SPX_APPLICATION (gapp)), files[i],
                          TRUE);
}

/* The options were checked before the run (spx_application_main). */
static gint
spx_application_local_options (GApplication *gapp, GVariantDict *options)
{
  SpxApplication *app = SPX_APPLICATION (gapp);
  app->sweep = g_variant_dict_contains (options, "sweep");
  app->lesson = g_variant_dict_contains (options, "lesson");
  g_variant_dict_lookup (options, "view", "s", &app->view);
  return -1;
}

static void
spx_application_finalize (GObject *object)
{
  SpxApplication *app = SPX_APPLICATION (object);
  g_free (app->view);
  G_OBJECT_CLASS (spx_application_parent_class)->finalize (object);
}

static void
spx_application_init (SpxApplication *app)
{
  g_application_add_main_option_entries (G_APPLICATION (app),
                                         spx_cli_window_options ());
}

static void
spx_application_class_init (SpxApplicationClass *klass)
{
  GApplicationClass *app = G_APPLICATION_CLASS (klass);
  app->startup = spx_application_startup;
  app->activate = spx_application_activate;
  app->open = spx_application_open;
  app->handle_local_options = spx_application_local_options;
  G_OBJECT_CLASS (klass)->finalize = spx_application_finalize;
}

SpxApplication *
spx_application_new (void)
{
  return g_object_new (SPX_TYPE_APPLICATION, "application-id",
                       SPX_APPLICATION_ID, "flags",
                       G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE,
                       "resource-base-path", "/org/sparseexplorer/SparseExplorer",
                       NULL);
}

/* ---- before the run ------------------------------------------------ */

/* The window's long options (and those --help lists beside them), for
 * a typo's nearest. */
static char *
window_did_you_mean (int argc, char **argv)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  for (const GOptionEntry *e = spx_cli_window_options (); e->long_name; e++)
    g_ptr_array_add (names, (gpointer) e->long_name);
  g_ptr_array_add (names, (gpointer) "help");
  g_ptr_array_add (names, (gpointer) "version");
  g_ptr_array_add (names, (gpointer) "display"); /* GTK's, in --help */
  g_ptr_array_add (names, NULL);
  return spx_cli_did_you_mean ((const char *const *) names->pdata, argc,
                               argv);
}

/* The window's options read as GApplication will, but a mistake is
 * reported the program's way (GApplication prints it bare and exits
 * 1): one line, exit 2. */
static gboolean
check_options (int argc, char **argv, int *status)
{
  char *view = NULL;
  gboolean flag = FALSE;
  GOptionEntry entries[SPX_CLI_N_WINDOW_OPTIONS + 1];
  memcpy (entries, spx_cli_window_options (), sizeof entries);
  entries[SPX_CLI_WINDOW_VIEW].arg_data = &view;
  entries[SPX_CLI_WINDOW_SWEEP].arg_data = &flag;
  entries[SPX_CLI_WINDOW_LESSON].arg_data = &flag;
  g_autoptr (GOptionContext) context = g_option_context_new (NULL);
  g_option_context_set_help_enabled (context, FALSE);
  g_option_context_add_main_entries (context, entries, NULL);
  /* GtkApplication takes GTK's (--display, --class, …) too */
  g_option_context_add_group (context, gtk_get_option_group (FALSE));
  g_auto (GStrv) args = g_new0 (char *, argc + 1);
  for (int i = 0; i < argc; i++)
    args[i] = g_strdup (argv[i]);
  g_autoptr (GError) error = NULL;
  gboolean ok = g_option_context_parse_strv (context, &args, &error);
  if (!ok)
    {
      g_autofree char *near = window_did_you_mean (argc, argv);
      spx_cli_line (stderr, "sparse-explorer: %s%s (try --help)",
                    error->message,
                    g_error_matches (error, G_OPTION_ERROR,
                                     G_OPTION_ERROR_UNKNOWN_OPTION)
                      ? near : "");
    }
  else if (view != NULL && spx_render_view_find (view) == NULL)
    {
      g_autofree char *views = g_strjoinv (", ",
                                           (char **) spx_render_view_names ());
      const char *near = spx_nearest (view, spx_render_view_names (), 2);
      g_autofree char *hint = near ? g_strdup_printf (" (did you mean %s?)",
                                                      near)
                                   : g_strdup ("");
      spx_cli_line (stderr, "sparse-explorer: --view: expected one of %s, "
                    "got '%s'%s", views, view, hint);
      ok = FALSE;
    }
  g_free (view);
  *status = SPX_EXIT_USAGE;
  /* what the options left are files: one not there fails as every
   * command's does, a word that is not a file is a typo */
  for (int i = 1; ok && args[i] != NULL; i++)
    if (args[i][0] != '-' && !g_file_test (args[i], G_FILE_TEST_EXISTS))
      {
        *status = spx_cli_not_there (args[i]);
        ok = FALSE;
      }
  return ok;
}

/* Asking for GApplication's help needs neither check. */
static gboolean
asks_help (int argc, char **argv)
{
  for (int i = 1; i < argc && !g_str_equal (argv[i], "--"); i++)
    if (g_str_has_prefix (argv[i], "--help") || g_str_equal (argv[i], "-h"))
      return TRUE;
  return FALSE;
}

int
spx_application_main (int argc, char **argv)
{
  int status;
  gboolean help = asks_help (argc, argv);
  spx_settings_keep_saving ();
  if (!help && !check_options (argc, argv, &status))
    return status;
  /* GTK's own message would be a bare warning: say what works instead */
  if (!help && !gtk_init_check (NULL, NULL))
    {
      g_autofree char *commands = spx_cli_command_list ();
      spx_cli_line (stderr, "sparse-explorer: no display for the window "
                    "(neither DISPLAY nor WAYLAND_DISPLAY opens one); without "
                    "a display use the commands %s (sparse-explorer --help)",
                    commands);
      return SPX_EXIT_INPUT;
    }
  g_autoptr (SpxApplication) app = spx_application_new ();
  return g_application_run (G_APPLICATION (app), argc, argv);
}
