/* spx-window-files.c: open masks and scenarios, save scenarios and
 * masks; never lose unsaved edits or the user's own mask */
#include "spx-window-private.h"
#include "spx-mask-io.h"
#include "spx-util.h"

/* ---- opening ------------------------------------------------------- */

void
spx_window_open_file (SpxWindow *w, GFile *file, gboolean force)
{
  g_autofree char *path = g_file_get_path (file);
  if (path == NULL)
    {
      g_autofree char *uri = g_file_get_uri (file);
      g_autofree char *msg = g_strdup_printf ("%s: only local files can be "
                                              "opened", uri);
      _spx_window_show_error (w, msg);
      return;
    }
  /* a network (or a saved survey) goes to the Layers page, keeping the
   * subject; a mask file replaces only the subject, as one undo step; a
   * scenario replaces everything */
  if (_spx_window_is_network (path))
    {
      if (force || _spx_window_may_replace_survey (w))
        _spx_window_open_network (w, path);
      return;
    }
  gboolean scenario = spx_has_suffix (path, ".spx");
  if (scenario && !force && !_spx_window_confirm_discard (w))
    return;
  _spx_window_cancel_work (w);
  /* off the main loop: files can be big */
  if (scenario)
    _spx_window_load_scenario (w, path);
  else
    _spx_window_load_mask (w, path);
}

static void
add_filter (GtkFileChooser *chooser, const char *name,
            const char *const *patterns, const char *const *more)
{
  GtkFileFilter *f = gtk_file_filter_new ();
  gtk_file_filter_set_name (f, name);
  for (guint i = 0; patterns[i]; i++)
    gtk_file_filter_add_pattern (f, patterns[i]);
  for (guint i = 0; more != NULL && more[i]; i++)
    gtk_file_filter_add_pattern (f, more[i]);
  gtk_file_chooser_add_filter (chooser, f);
}

/* "(.mtx, .smtx, …)": the extensions of the formats that can do caps */
static char *
shown_extensions (SpxFormatCaps caps)
{
  g_auto (GStrv) exts = spx_format_extensions (caps, ".");
  g_autofree char *list = g_strjoinv (", ", exts);
  return g_strdup_printf ("(%s)", list);
}

/* What the chooser picks is opened. */
static void
run_open (SpxWindow *w, GtkFileChooserNative *dialog)
{
  if (gtk_native_dialog_run (GTK_NATIVE_DIALOG (dialog)) ==
      GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (
        GTK_FILE_CHOOSER (dialog));
      spx_window_open_file (w, file, FALSE);
    }
  g_object_unref (dialog);
}

void
_spx_window_open_dialog (SpxWindow *w)
{
  static const char *const spx[] = { "*.spx", NULL };
  static const char *const surveys[] = { "*.json", NULL };
  g_auto (GStrv) masks = spx_format_extensions (SPX_FORMAT_READS_MASK, "*.");
  g_auto (GStrv) nets = spx_format_extensions (SPX_FORMAT_READS_NETWORK,
                                               "*.");
  g_autofree char *exts = shown_extensions (SPX_FORMAT_READS_MASK);
  g_autofree char *masks_name = g_strdup_printf ("Masks %s", exts);
  g_autofree char *net_exts = shown_extensions (SPX_FORMAT_READS_NETWORK);
  g_autofree char *nets_name = g_strdup_printf ("Networks %s", net_exts);
  g_autoptr (GPtrArray) every = g_ptr_array_new ();
  for (guint i = 0; masks[i] != NULL; i++)
    g_ptr_array_add (every, masks[i]);
  for (guint i = 0; nets[i] != NULL; i++)
    g_ptr_array_add (every, nets[i]);
  g_ptr_array_add (every, (gpointer) surveys[0]);
  g_ptr_array_add (every, NULL);
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (
    "Open a Scenario, Mask or Network", GTK_WINDOW (w),
    GTK_FILE_CHOOSER_ACTION_OPEN, "_Open", "_Cancel");
  GtkFileChooser *chooser = GTK_FILE_CHOOSER (dialog);
  add_filter (chooser, "Scenarios, masks and networks", spx,
              (const char *const *) every->pdata);
  add_filter (chooser, "Scenarios (.spx)", spx, NULL);
  add_filter (chooser, masks_name, (const char *const *) masks, NULL);
  if (nets[0] != NULL)
    add_filter (chooser, nets_name, (const char *const *) nets, NULL);
  add_filter (chooser, "Saved surveys (.json)", surveys, NULL);
  run_open (w, dialog);
}

/* Starts beside the network listed, else in the current folder (not
 * among recent files, where a folder cannot be typed in). */
void
_spx_window_open_folder_dialog (SpxWindow *w)
{
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (
    "Open a Folder of Masks as a Network", GTK_WINDOW (w),
    GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER, "_Open", "_Cancel");
  SpxNetwork *net = w->layers.network ? w->layers.network->network : NULL;
  g_autofree char *start = net != NULL
    ? g_path_get_dirname (spx_network_path (net)) : g_get_current_dir ();
  gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (dialog), start);
  run_open (w, dialog);
}

/* ---- saving -------------------------------------------------------- */

/* After a save refused as read-only: TRUE when the user says to replace
 * it (*flags then allow it). *error is cleared once asked, so only
 * another failure is left to show. */
static gboolean
ask_replace (SpxWindow *w, const char *path, SpxSaveFlags *flags,
             GError **error)
{
  if (!g_error_matches (*error, SPX_SAVE_ERROR, SPX_SAVE_ERROR_READ_ONLY) ||
      (*flags & SPX_SAVE_REPLACE_READ_ONLY))
    return FALSE;
  g_clear_error (error);
  g_autofree char *shown = g_filename_display_name (path);
  GtkWidget *d = gtk_message_dialog_new (
    GTK_WINDOW (w), GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
    GTK_MESSAGE_QUESTION, GTK_BUTTONS_NONE, "%s is read-only. Replace it "
    "anyway?", shown);
  gtk_message_dialog_format_secondary_text (
    GTK_MESSAGE_DIALOG (d), "It keeps its permissions after the save.");
  gtk_dialog_add_buttons (GTK_DIALOG (d), "_Cancel", GTK_RESPONSE_CANCEL,
                          "_Replace", GTK_RESPONSE_ACCEPT, NULL);
  gtk_dialog_set_default_response (GTK_DIALOG (d), GTK_RESPONSE_CANCEL);
  gint r = gtk_dialog_run (GTK_DIALOG (d));
  gtk_widget_destroy (d);
  if (r == GTK_RESPONSE_ACCEPT)
    *flags |= SPX_SAVE_REPLACE_READ_ONLY;
  return r == GTK_RESPONSE_ACCEPT;
}

gboolean
_spx_window_write (SpxWindow *w, const char *path, SpxWindowWriteFunc write,
                   gpointer data)
{
  g_autoptr (GError) error = NULL;
  SpxSaveFlags flags = SPX_SAVE_DEFAULT;
  gboolean ok = TRUE;
  while (ok && !write (w, path, flags, data, &error))
    ok = ask_replace (w, path, &flags, &error);
  if (error != NULL)
    _spx_window_show_error (w, error->message);
  return ok;
}

/* a what-if machine is written beside it by the study */
static gboolean
write_study (SpxWindow *w, const char *path, SpxSaveFlags flags,
             gpointer data, GError **error)
{
  return spx_study_save (w->study, path, flags, error);
}

gboolean
_spx_window_save_to (SpxWindow *w, const char *path)
{
  if (!_spx_window_write (w, path, write_study, NULL))
    return FALSE;
  _spx_window_set_dirty (w, FALSE);
  return TRUE;
}

char *
_spx_window_choose_save_path (SpxWindow *w, const char *title,
                              const char *folder, const char *name)
{
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (
    title, GTK_WINDOW (w), GTK_FILE_CHOOSER_ACTION_SAVE, "_Save", "_Cancel");
  GtkFileChooser *chooser = GTK_FILE_CHOOSER (dialog);
  gtk_file_chooser_set_do_overwrite_confirmation (chooser, TRUE);
  if (folder != NULL)
    gtk_file_chooser_set_current_folder (chooser, folder);
  gtk_file_chooser_set_current_name (chooser, name);
  char *path = NULL;
  if (gtk_native_dialog_run (GTK_NATIVE_DIALOG (dialog)) ==
      GTK_RESPONSE_ACCEPT)
    path = gtk_file_chooser_get_filename (chooser);
  g_object_unref (dialog);
  return path;
}

gboolean
_spx_window_save (SpxWindow *w, gboolean choose)
{
  if (w->study->path != NULL && !choose)
    return _spx_window_save_to (w, w->study->path);
  g_autofree char *path = _spx_window_choose_save_path (
    w, "Save the Scenario", NULL, "scenario.spx");
  if (path == NULL)
    return FALSE;
  if (!spx_has_suffix (path, ".spx"))
    {
      char *with = g_strconcat (path, ".spx", NULL);
      g_free (path);
      path = with;
    }
  return _spx_window_save_to (w, path);
}

gboolean
_spx_window_confirm_discard (SpxWindow *w)
{
  if (!w->dirty)
    return TRUE;
  GtkWidget *d = gtk_message_dialog_new (
    GTK_WINDOW (w), GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
    GTK_MESSAGE_QUESTION, GTK_BUTTONS_NONE,
    "Save the changes to the scenario first?");
  gtk_message_dialog_format_secondary_text (
    GTK_MESSAGE_DIALOG (d), "Without saving, your edits are lost.");
  gtk_dialog_add_buttons (GTK_DIALOG (d), "_Cancel", GTK_RESPONSE_CANCEL,
                          "_Discard", GTK_RESPONSE_REJECT, "_Save",
                          GTK_RESPONSE_ACCEPT, NULL);
  gtk_dialog_set_default_response (GTK_DIALOG (d), GTK_RESPONSE_ACCEPT);
  gint r = gtk_dialog_run (GTK_DIALOG (d));
  gtk_widget_destroy (d);
  if (r == GTK_RESPONSE_ACCEPT)
    return _spx_window_save (w, FALSE);
  return r == GTK_RESPONSE_REJECT;
}

/* ---- the user's own mask ------------------------------------------- */

/* A file's name for a sentence: at most NAME_CHARS, its middle cut. */
#define NAME_CHARS 48

static char *
short_name (const char *path)
{
  g_autofree char *raw = g_filename_display_basename (path);
  g_autofree char *base = spx_escape (raw);
  glong n = g_utf8_strlen (base, -1);
  if (n <= NAME_CHARS)
    return g_steal_pointer (&base);
  g_autofree char *head = g_utf8_substring (base, 0, NAME_CHARS / 2);
  g_autofree char *tail = g_utf8_substring (base, n - NAME_CHARS / 2 + 1, n);
  return g_strconcat (head, "…", tail, NULL);
}

gboolean
_spx_window_may_replace_mask (SpxWindow *w, const char *why)
{
  const SpxScenario *sc = w->study->scenario;
  if (sc->source == SPX_MASK_SOURCE_GENERATED)
    return TRUE;
  g_autofree char *name = sc->source == SPX_MASK_SOURCE_FILE
                            ? short_name (sc->mask_path) : NULL;
  g_autofree char *question = g_strdup_printf (
    "Replace %s with a generated mask?", name ? name : "the mask you drew");
  GtkWidget *d = gtk_message_dialog_new (
    GTK_WINDOW (w), GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
    GTK_MESSAGE_QUESTION, GTK_BUTTONS_NONE, "%s", question);
  gtk_message_dialog_format_secondary_text (
    GTK_MESSAGE_DIALOG (d), "%s Undo (Ctrl+Z) brings this one back.", why);
  gtk_dialog_add_buttons (GTK_DIALOG (d), name ? "_Keep the File's Mask"
                                               : "_Keep the Drawing",
                          GTK_RESPONSE_CANCEL, "_Replace",
                          GTK_RESPONSE_ACCEPT, NULL);
  gtk_dialog_set_default_response (GTK_DIALOG (d), GTK_RESPONSE_CANCEL);
  gint r = gtk_dialog_run (GTK_DIALOG (d));
  gtk_widget_destroy (d);
  return r == GTK_RESPONSE_ACCEPT;
}

/* ---- the mask on its own ------------------------------------------- */

static gboolean
write_mask (SpxWindow *w, const char *path, SpxSaveFlags flags,
            gpointer mask, GError **error)
{
  return spx_mask_save (mask, path, flags, error);
}

gboolean
_spx_window_save_mask (SpxWindow *w, const char *path)
{
  g_autoptr (GError) error = NULL;
  SpxMask *mask = spx_mask_editor_get_mask (SPX_MASK_EDITOR (w->editor));
  if (mask == NULL)
    return FALSE;
  /* files hold elements: a block mask is written at element resolution */
  g_autoptr (SpxMask) elements = spx_mask_at_block (mask, 1, &error);
  if (elements == NULL)
    {
      _spx_window_show_error (w, error->message);
      return FALSE;
    }
  return _spx_window_write (w, path, write_mask, elements);
}

void
_spx_window_save_mask_dialog (SpxWindow *w)
{
  g_autofree char *exts = shown_extensions (SPX_FORMAT_WRITES_MASK);
  g_autofree char *title = g_strdup_printf ("Save the Mask %s", exts);
  g_autofree char *path = _spx_window_choose_save_path (w, title, NULL,
                                                        "mask.smtx");
  if (path != NULL)
    _spx_window_save_mask (w, path);
}
