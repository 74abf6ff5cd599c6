/* spx-window-export.c: export the view shown (PNG at a size or scale,
 * SVG or PDF on a page, in the theme shown or one chosen, with or
 * without the noise note) or the sweep's data; the dialog remembers its
 * choices and folder in the settings, and a save is confirmed in the
 * window */
#include "spx-window-private.h"
#include "spx-settings.h"
#include "spx-util.h"

#define G_SETTINGS_ENABLE_BACKEND /* the backend property */
#include <gio/gsettingsbackend.h>

#include <string.h>

#define MM_TO_PT (72.0 / 25.4)

/* ---- what to draw -------------------------------------------------- */

void
spx_export_choice_load (SpxExportChoice *c, GSettings *s)
{
  c->png = (SpxPngSize) g_settings_get_enum (s, "export-png-size");
  c->png_width = g_settings_get_uint (s, "export-png-width");
  c->png_height = g_settings_get_uint (s, "export-png-height");
  c->page = (SpxPage) g_settings_get_enum (s, "export-page");
  c->page_width = g_settings_get_double (s, "export-page-width");
  c->page_height = g_settings_get_double (s, "export-page-height");
  c->theme = (SpxExportTheme) g_settings_get_enum (s, "export-theme");
  c->noise_note = g_settings_get_boolean (s, "export-noise-note");
}

void
spx_export_choice_save (const SpxExportChoice *c, GSettings *s)
{
  g_settings_set_enum (s, "export-png-size", c->png);
  g_settings_set_uint (s, "export-png-width", c->png_width);
  g_settings_set_uint (s, "export-png-height", c->png_height);
  g_settings_set_enum (s, "export-page", c->page);
  g_settings_set_double (s, "export-page-width", c->page_width);
  g_settings_set_double (s, "export-page-height", c->page_height);
  g_settings_set_enum (s, "export-theme", c->theme);
  g_settings_set_boolean (s, "export-noise-note", c->noise_note);
}

void
spx_export_choice_style (const SpxExportChoice *c, SpxTheme shown,
                         SpxRenderStyle *style)
{
  spx_render_style_init (style, spx_export_theme_resolve (c->theme, shown));
  style->no_noise_note = !c->noise_note;
}

/* The presets, whatever the view's size: PNGs in pixels, pages (A4 and
 * Letter landscape) in millimetres. */
static const double png_presets[][2] = {
  [SPX_PNG_1200] = { 1200, 750 }, [SPX_PNG_1600] = { 1600, 1000 },
  [SPX_PNG_2400] = { 2400, 1500 },
};
static const double page_presets[][2] = {
  [SPX_PAGE_A4] = { 297, 210 }, [SPX_PAGE_LETTER] = { 279.4, 215.9 },
  [SPX_PAGE_COLUMN] = { 88, 66 }, [SPX_PAGE_TWO_COLUMNS] = { 180, 110 },
};

void
spx_export_geometry (const SpxExportChoice *c, SpxExportFormat format,
                     double view_width, double view_height, double *width,
                     double *height, double *scale)
{
  *width = view_width;
  *height = view_height;
  *scale = 1;
  if (format == SPX_EXPORT_PNG)
    {
      if (c->png == SPX_PNG_2X)
        *scale = 2;
      else if (c->png == SPX_PNG_CUSTOM)
        *width = c->png_width, *height = c->png_height;
      else if (c->png < G_N_ELEMENTS (png_presets) &&
               png_presets[c->png][0] > 0)
        *width = png_presets[c->png][0], *height = png_presets[c->png][1];
      return;
    }
  if (c->page == SPX_PAGE_CUSTOM)
    {
      *width = c->page_width * MM_TO_PT;
      *height = c->page_height * MM_TO_PT;
    }
  else if (c->page < G_N_ELEMENTS (page_presets) &&
           page_presets[c->page][0] > 0)
    {
      *width = page_presets[c->page][0] * MM_TO_PT;
      *height = page_presets[c->page][1] * MM_TO_PT;
    }
}

char *
spx_export_start_folder (const char *remembered)
{
  const char *pictures = g_get_user_special_dir (G_USER_DIRECTORY_PICTURES);
  if (remembered != NULL && *remembered != '\0' &&
      g_file_test (remembered, G_FILE_TEST_IS_DIR))
    return g_strdup (remembered);
  if (pictures != NULL && g_file_test (pictures, G_FILE_TEST_IS_DIR))
    return g_strdup (pictures);
  return g_strdup (g_get_home_dir ());
}

/* The kinds of file, in the dialog's order; data: "The sweep" (or "The
 * survey", on the Layers page) comes first. */
static const struct { const char *name, *ext; gboolean data; } kinds[] = {
  { "PNG image (.png)", ".png", FALSE },
  { "SVG drawing (.svg)", ".svg", FALSE },
  { "PDF document (.pdf)", ".pdf", FALSE },
  { "as CSV (.csv)", ".csv", TRUE },
  { "as JSON (.json)", ".json", TRUE },
};

/* The Layers page is shown: its chart and its survey are exported. */
static gboolean
layers_shown (SpxWindow *w)
{
  return g_strcmp0 (gtk_stack_get_visible_child_name (GTK_STACK (w->stack)),
                    SPX_WINDOW_LAYERS_VIEW) == 0;
}

/* The kind path's extension names, or -1. */
static gint
kind_of (const char *path)
{
  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    if (spx_has_suffix (path, kinds[i].ext))
      return (gint) i;
  return -1;
}

char *
spx_export_rename (const char *name, const char *ext)
{
  gint kind = kind_of (name);
  gsize keep = strlen (name) - (kind < 0 ? 0 : strlen (kinds[kind].ext));
  g_autofree char *stem = g_strndup (name, keep);
  return g_strconcat (stem, ext, NULL);
}

/* ---- writing ------------------------------------------------------- */

void
_spx_window_confirm_saved (SpxWindow *w, const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *shown = g_filename_display_name (path);
  g_autofree char *msg = g_strdup_printf ("Saved %s", shown);
  _spx_window_show_message (w, GTK_MESSAGE_INFO, msg);
  _spx_window_offer_folder (w, dir);
}

static gboolean
write_sweep (SpxWindow *w, const char *path, SpxSaveFlags flags,
             gpointer data, GError **error)
{
  return spx_sweep_save_pair (w->study->sweep,
                              spx_study_overlay (w->study), path, flags,
                              error);
}

gboolean
_spx_window_export_sweep (SpxWindow *w, const char *path)
{
  if (!_spx_window_write (w, path, write_sweep, NULL))
    return FALSE;
  _spx_window_confirm_saved (w, path);
  return TRUE;
}

/* What spx_render_export needs besides the path. */
typedef struct {
  SpxExportFormat format;
  double          width, height, scale;
  SpxRenderFunc   func;
  gpointer        data;
  SpxRenderStyle  style;
} Picture;

/* The shown view's widget, and its renderer and data in p (data made as
 * the table's row makes it: the mask whole, not as zoomed in the
 * editor, and not coloured by tile; the Layers page's chart as shown). */
static GtkWidget *
shown_view (SpxWindow *w, Picture *p)
{
  if (layers_shown (w))
    {
      p->func = spx_render_layers;
      p->data = g_memdup2 (&w->layers.chart_data,
                           sizeof w->layers.chart_data);
      return w->layers.chart;
    }
  gint i = spx_render_view_index (
    gtk_stack_get_visible_child_name (GTK_STACK (w->stack)));
  if (i < 0)
    return NULL;
  const SpxRenderView *v = spx_render_views[i];
  SpxRenderViewState st;
  _spx_window_view_state (w, (guint) i, &st);
  p->func = v->draw;
  p->data = g_malloc0 (v->data_size);
  spx_render_view_fill (v, &st, p->data);
  return w->views[i];
}

static gboolean
write_picture (SpxWindow *w, const char *path, SpxSaveFlags flags,
               gpointer data, GError **error)
{
  const Picture *p = data;
  return spx_render_export (path, p->format, p->width, p->height, p->scale,
                            p->func, p->data, &p->style, flags, error);
}

static void
on_views_allocated (GtkWidget *views, GdkRectangle *a, SpxWindow *w)
{
  /* the bar is above the views in their box: laid out before them */
  w->bar_taken = gtk_widget_get_visible (w->info_bar)
                 ? gtk_widget_get_allocated_height (w->info_bar) : 0;
}

void
_spx_window_export_track_bar (SpxWindow *w, GtkWidget *views)
{
  g_signal_connect (views, "size-allocate", G_CALLBACK (on_views_allocated),
                    w);
}

/* Drawn by the same renderer as on screen, at the remembered size ("the
 * view's size" as if no message showed above it), titled title (NULL or
 * "": its own). */
static gboolean
export_view (SpxWindow *w, const char *path, const char *title)
{
  g_autoptr (GError) error = NULL;
  gboolean layers = layers_shown (w);
  if (layers && w->layers.survey == NULL)
    {
      _spx_window_show_error (w, "Nothing to export yet: Run Survey first "
                              "(the chart and the files hold its results).");
      return FALSE;
    }
  if (spx_has_suffix (path, ".csv") ||
      spx_has_suffix (path, ".json"))
    return layers ? _spx_window_save_survey (w, path)
                  : _spx_window_export_sweep (w, path);
  Picture p = { 0 };
  GtkWidget *widget = shown_view (w, &p);
  g_autofree gpointer data = p.data;
  if (widget == NULL)
    return FALSE;
  if (!spx_export_format_from_path (path, &p.format, &error))
    {
      _spx_window_show_error (w, error->message);
      return FALSE;
    }
  SpxExportChoice choice;
  spx_export_choice_load (&choice, spx_settings_get ());
  spx_export_choice_style (&choice, _spx_window_theme (w), &p.style);
  p.style.title = title;
  spx_export_geometry (&choice, p.format,
                       MAX (gtk_widget_get_allocated_width (widget), 640),
                       MAX (gtk_widget_get_allocated_height (widget) +
                            w->bar_taken, 400),
                       &p.width, &p.height, &p.scale);
  if (!_spx_window_write (w, path, write_picture, &p))
    return FALSE;
  _spx_window_confirm_saved (w, path);
  return TRUE;
}

gboolean
_spx_window_export_view (SpxWindow *w, const char *path)
{
  return export_view (w, path, NULL);
}

/* ---- the dialog ---------------------------------------------------- */

/* The title's row: an entry named "title", for this export only; every
 * picture takes one. */
static GtkWidget *
title_row (GtkGrid *grid, gint y)
{
  GtkWidget *entry = gtk_entry_new ();
  gtk_widget_set_name (entry, "title");
  gtk_entry_set_placeholder_text (GTK_ENTRY (entry), "The picture's own");
  gtk_widget_set_tooltip_text (entry, "The picture's title, wrapped onto "
                               "more lines when long; empty: its own");
  GtkWidget *l = gtk_label_new_with_mnemonic ("T_itle");
  gtk_label_set_mnemonic_widget (GTK_LABEL (l), entry);
  gtk_label_set_xalign (GTK_LABEL (l), 1);
  gtk_grid_attach (grid, l, 0, y, 1, 1);
  gtk_grid_attach (grid, entry, 1, y, 5, 1);
  return entry;
}

/* A row of the options: a choice of size (its ids: the settings'
 * names), and the custom width × height, usable only for "custom". */
typedef struct {
  const char *label, *name, *key, *width_key, *height_key, *unit;
  const char *const *items; /* id, text, id, text, …, NULL */
} RowSpec;

typedef struct {
  GtkWidget *combo, *width, *height;
} SizeRow;

static void
on_size_changed (GtkComboBox *combo, SizeRow *row)
{
  gboolean custom = g_strcmp0 (gtk_combo_box_get_active_id (combo),
                               "custom") == 0;
  gtk_widget_set_sensitive (row->width, custom);
  gtk_widget_set_sensitive (row->height, custom);
}

/* The range the schema allows key (a uint or a double). */
static void
key_range (const char *key, double *min, double *max)
{
  g_autoptr (GSettingsSchema) schema = NULL;
  g_object_get (spx_settings_get (), "settings-schema", &schema, NULL);
  g_autoptr (GSettingsSchemaKey) k = g_settings_schema_get_key (schema, key);
  g_autoptr (GVariant) range = g_settings_schema_key_get_range (k);
  g_autoptr (GVariant) bounds = NULL;
  g_variant_get (range, "(&sv)", NULL, &bounds);
  if (g_variant_is_of_type (bounds, G_VARIANT_TYPE ("(uu)")))
    {
      guint32 lo, hi;
      g_variant_get (bounds, "(uu)", &lo, &hi);
      *min = lo, *max = hi;
    }
  else
    g_variant_get (bounds, "(dd)", min, max);
}

static GtkWidget *
spin_for (GSettings *pending, const char *key, const char *tooltip)
{
  double min, max;
  key_range (key, &min, &max);
  GtkWidget *spin = gtk_spin_button_new_with_range (min, max, 1);
  gtk_widget_set_tooltip_text (spin, tooltip);
  g_settings_bind (pending, key, spin, "value",
                   G_SETTINGS_BIND_DEFAULT);
  return spin;
}

/* The widgets are bound to the settings: what was chosen last shows. */
static void
size_row (GtkGrid *grid, gint y, const RowSpec *spec, GSettings *pending)
{
  SizeRow *row = g_new0 (SizeRow, 1);
  row->combo = gtk_combo_box_text_new ();
  gtk_widget_set_name (row->combo, spec->name);
  for (guint i = 0; spec->items[i] != NULL; i += 2)
    gtk_combo_box_text_append (GTK_COMBO_BOX_TEXT (row->combo),
                               spec->items[i], spec->items[i + 1]);
  row->width = spin_for (pending, spec->width_key, "Width");
  row->height = spin_for (pending, spec->height_key, "Height");
  g_signal_connect_data (row->combo, "changed", G_CALLBACK (on_size_changed),
                         row, (GClosureNotify) (void (*) (void)) g_free, 0);
  g_settings_bind (pending, spec->key, row->combo, "active-id",
                   G_SETTINGS_BIND_DEFAULT);
  on_size_changed (GTK_COMBO_BOX (row->combo), row);
  GtkWidget *l = gtk_label_new_with_mnemonic (spec->label);
  gtk_label_set_mnemonic_widget (GTK_LABEL (l), row->combo);
  gtk_label_set_xalign (GTK_LABEL (l), 1);
  GtkWidget *cells[] = { l, row->combo, row->width, gtk_label_new ("×"),
                         row->height, gtk_label_new (spec->unit) };
  for (guint x = 0; x < G_N_ELEMENTS (cells); x++)
    gtk_grid_attach (grid, cells[x], (gint) x, y, 1, 1);
}

/* The theme's row: a choice named "theme" (its ids the settings'). */
static void
theme_row (GtkGrid *grid, gint y, GSettings *pending)
{
  GtkWidget *combo = gtk_combo_box_text_new ();
  gtk_widget_set_name (combo, "theme");
  static const char *const items[] = {
    "shown", "As shown", "light", "Light", "dark", "Dark", NULL };
  for (guint i = 0; items[i] != NULL; i += 2)
    gtk_combo_box_text_append (GTK_COMBO_BOX_TEXT (combo), items[i],
                               items[i + 1]);
  gtk_widget_set_tooltip_text (combo, "The picture's colours: the window's "
                               "theme, or light or dark whatever it is");
  g_settings_bind (pending, "export-theme", combo, "active-id",
                   G_SETTINGS_BIND_DEFAULT);
  GtkWidget *l = gtk_label_new_with_mnemonic ("_Theme");
  gtk_label_set_mnemonic_widget (GTK_LABEL (l), combo);
  gtk_label_set_xalign (GTK_LABEL (l), 1);
  gtk_grid_attach (grid, l, 0, y, 1, 1);
  gtk_grid_attach (grid, combo, 1, y, 1, 1);
  GtkWidget *note = gtk_check_button_new_with_mnemonic (
    "Include the _noise note");
  gtk_widget_set_name (note, "noise-note");
  gtk_widget_set_tooltip_text (note, "The Speedup chart's line counting "
                               "the noisy points; their markers stay "
                               "hollow either way");
  g_settings_bind (pending, "export-noise-note", note, "active",
                   G_SETTINGS_BIND_DEFAULT);
  gtk_grid_attach (grid, note, 2, y, 4, 1);
}

/* The choices are bound to pending, the settings in delay-apply mode:
 * kept only when the dialog exports. */
static GtkWidget *
options_new (GSettings *pending)
{
  static const char *const png[] = {
    "1200x750", "1,200 × 750 (a slide)", "1600x1000", "1,600 × 1,000",
    "2400x1500", "2,400 × 1,500 (print)", "1x", "The view's size (1×)",
    "2x", "Twice the view's pixels (2×)", "custom", "Custom", NULL };
  static const char *const page[] = {
    "a4", "A4 landscape", "letter", "Letter landscape",
    "column", "A paper's column (88 × 66 mm)",
    "two-columns", "A paper's two columns (180 × 110 mm)",
    "view", "The view's size", "custom", "Custom", NULL };
  static const RowSpec rows[] = {
    { "_PNG size", "png-size", "export-png-size", "export-png-width",
      "export-png-height", "pixels", png },
    { "SVG/PDF pa_ge", "page", "export-page", "export-page-width",
      "export-page-height", "mm", page },
  };
  GtkWidget *grid = gtk_grid_new ();
  gtk_grid_set_row_spacing (GTK_GRID (grid), 6);
  gtk_grid_set_column_spacing (GTK_GRID (grid), 6);
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    size_row (GTK_GRID (grid), (gint) i, &rows[i], pending);
  theme_row (GTK_GRID (grid), G_N_ELEMENTS (rows), pending);
  g_object_set_data (G_OBJECT (grid), "title",
                     title_row (GTK_GRID (grid), G_N_ELEMENTS (rows) + 1));
  gtk_widget_show_all (grid);
  return grid;
}

/* A new kind of file chosen: the name's extension follows it. */
static void
on_filter_changed (GtkFileChooser *chooser, GParamSpec *pspec, gpointer p)
{
  GtkFileFilter *filter = gtk_file_chooser_get_filter (chooser);
  const char *ext = filter ? g_object_get_data (G_OBJECT (filter), "ext")
                           : NULL;
  g_autofree char *name = gtk_file_chooser_get_current_name (chooser);
  if (ext == NULL || name == NULL || *name == '\0' ||
      spx_has_suffix (name, ext))
    return;
  g_autofree char *renamed = spx_export_rename (name, ext);
  gtk_file_chooser_set_current_name (chooser, renamed);
}

static GtkWidget *
dialog_new (SpxWindow *w, GSettings *pending)
{
  gboolean layers = layers_shown (w);
  GtkWidget *d = gtk_file_chooser_dialog_new (
    layers ? "Export the Chart or the Survey" : "Export the View or the Sweep",
    GTK_WINDOW (w),
    GTK_FILE_CHOOSER_ACTION_SAVE, "_Cancel", GTK_RESPONSE_CANCEL, "_Export",
    GTK_RESPONSE_ACCEPT, NULL);
  GtkFileChooser *chooser = GTK_FILE_CHOOSER (d);
  gtk_dialog_set_default_response (GTK_DIALOG (d), GTK_RESPONSE_ACCEPT);
  gtk_file_chooser_set_do_overwrite_confirmation (chooser, TRUE);
  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    {
      GtkFileFilter *f = gtk_file_filter_new ();
      g_autofree char *pattern = g_strconcat ("*", kinds[i].ext, NULL);
      g_autofree char *name = kinds[i].data
        ? g_strdup_printf ("The %s %s", layers ? "survey" : "sweep",
                           kinds[i].name)
        : g_strdup (kinds[i].name);
      gtk_file_filter_set_name (f, name);
      gtk_file_filter_add_pattern (f, pattern);
      g_object_set_data (G_OBJECT (f), "ext", (gpointer) kinds[i].ext);
      gtk_file_chooser_add_filter (chooser, f);
    }
  gtk_file_chooser_set_extra_widget (chooser,
                                     options_new (pending));
  g_autofree char *remembered = g_settings_get_string (spx_settings_get (),
                                                       "export-folder");
  g_autofree char *folder = spx_export_start_folder (remembered);
  gtk_file_chooser_set_current_folder (chooser, folder);
  const char *view = gtk_stack_get_visible_child_name (GTK_STACK (w->stack));
  g_autofree char *name = g_strdup_printf ("%s.png", view);
  gtk_file_chooser_set_current_name (chooser, name);
  g_signal_connect (d, "notify::filter", G_CALLBACK (on_filter_changed),
                    NULL);
  return d;
}

/* The path chosen, with the filter's extension when it has none of
 * ours; NULL when that names a file already there (the dialog shows the
 * new name and asks again, so that it can confirm the overwrite). */
static char *
chosen_path (GtkFileChooser *chooser)
{
  g_autofree char *path = gtk_file_chooser_get_filename (chooser);
  GtkFileFilter *filter = gtk_file_chooser_get_filter (chooser);
  const char *ext = filter ? g_object_get_data (G_OBJECT (filter), "ext")
                           : ".png";
  if (path == NULL || kind_of (path) >= 0)
    return g_steal_pointer (&path);
  g_autofree char *with = spx_export_rename (path, ext);
  if (!g_file_test (with, G_FILE_TEST_EXISTS))
    return g_steal_pointer (&with);
  g_autofree char *base = g_path_get_basename (with);
  gtk_file_chooser_set_current_name (chooser, base);
  return NULL;
}

/* Settings on the same schema and backend as the program's, whose
 * changes wait for g_settings_apply. */
static GSettings *
pending_settings (void)
{
  g_autoptr (GSettingsSchema) schema = NULL;
  g_autoptr (GSettingsBackend) backend = NULL;
  g_object_get (spx_settings_get (), "settings-schema", &schema, "backend",
                &backend, NULL);
  GSettings *pending = g_settings_new_full (schema, backend, NULL);
  g_settings_delay (pending);
  return pending;
}

/* Clears *loaded when widget, or a widget under it (internal children
 * too), is a tree view without its model. */
static void
check_loaded (GtkWidget *widget, gpointer loaded)
{
  if (GTK_IS_TREE_VIEW (widget) &&
      gtk_tree_view_get_model (GTK_TREE_VIEW (widget)) == NULL)
    *(gboolean *) loaded = FALSE;
  if (GTK_IS_CONTAINER (widget) && *(gboolean *) loaded)
    gtk_container_forall (GTK_CONTAINER (widget), check_loaded, loaded);
}

static gboolean
lists_loaded (GtkWidget *dialog)
{
  gboolean loaded = TRUE;
  check_loaded (dialog, &loaded);
  return loaded;
}

static gboolean
on_load_waited (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* GTK 3's file chooser lets go of its file list when destroyed but keeps
 * loading the folder until it is finalized, which a folder change still
 * under way (Export pressed just after one) puts off: the load then hands
 * its model to the list gone (a critical). Until a load ends, or GTK's
 * half-second load timer fires, the list has no model; so the dialog is
 * hidden and destroyed once it has one (at most a second on). */
static void
destroy_when_loaded (GtkWidget *dialog)
{
  gboolean waited = FALSE;
  gtk_widget_hide (dialog);
  guint timer = g_timeout_add (1000, on_load_waited, &waited);
  while (!lists_loaded (dialog) && !waited)
    g_main_context_iteration (NULL, TRUE);
  if (!waited)
    g_source_remove (timer);
  gtk_widget_destroy (dialog);
}

void
_spx_window_export_dialog (SpxWindow *w)
{
  g_autoptr (GSettings) pending = pending_settings ();
  GtkWidget *d = dialog_new (w, pending);
  char *path = NULL;
  while (path == NULL && gtk_dialog_run (GTK_DIALOG (d)) ==
                           GTK_RESPONSE_ACCEPT)
    path = chosen_path (GTK_FILE_CHOOSER (d));
  GtkWidget *entry = g_object_get_data (G_OBJECT (
    gtk_file_chooser_get_extra_widget (GTK_FILE_CHOOSER (d))), "title");
  g_autofree char *title = g_strdup (gtk_entry_get_text (GTK_ENTRY (entry)));
  destroy_when_loaded (d);
  if (path != NULL) /* Cancel forgets the size choices */
    g_settings_apply (pending);
  if (path != NULL && export_view (w, path, title))
    {
      g_autofree char *dir = g_path_get_dirname (path);
      g_settings_set_string (spx_settings_get (), "export-folder", dir);
    }
  g_free (path);
}
