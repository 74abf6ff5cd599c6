/* spx-window-layers-page.c: the Layers page's widgets: the tools row,
 * the table (sorted with the skipped entries last, and hidden when
 * asked), the chart below it, and the empty state before a network is
 * open */
#include "spx-window-layers-private.h"

/* What the sources list offers, in its order. */
static const struct { const char *text; gboolean model, cpu; } sources[] = {
  { "IPU model and this CPU", TRUE, TRUE },
  { "IPU model only", TRUE, FALSE },
  { "This CPU only", FALSE, TRUE },
};

void
_spx_window_layers_source (gint i, gboolean *model, gboolean *cpu)
{
  i = CLAMP (i, 0, (gint) G_N_ELEMENTS (sources) - 1);
  *model = sources[i].model;
  *cpu = sources[i].cpu;
}

/* ---- the page ------------------------------------------------------ */

/* Why a row (of entry in the network open, or -1) cannot be studied,
 * or NULL when it can: the entry is a layer (one the survey left out as
 * all zero still can). */
static const char *
not_studied (SpxNetwork *net, gint entry)
{
  if (net == NULL)
    return "its network is not open (open it, then double-click again)";
  if (entry < 0)
    return "the network open has no layer of that name";
  return spx_network_entry (net, (guint) entry)->skipped;
}

/* A double-click studies the layer; a skipped one says why not. */
static void
on_row_activated (GtkTreeView *tree, GtkTreePath *path,
                  GtkTreeViewColumn *column, SpxWindow *w)
{
  GtkTreeModel *model = gtk_tree_view_get_model (tree);
  GtkTreeIter it;
  g_autofree char *name = NULL;
  gint e = -1;
  if (!gtk_tree_model_get_iter (model, &it, path))
    return;
  gtk_tree_model_get (model, &it, COL_NAME, &name, COL_ENTRY, &e, -1);
  const char *why = not_studied (_spx_window_layers_network (w), e);
  if (why != NULL)
    {
      g_autofree char *msg = g_strdup_printf ("%s cannot be studied: %s",
                                              name, why);
      _spx_window_show_error (w, msg);
      return;
    }
  _spx_window_cancel_work (w);
  _spx_window_load_layer (w, w->layers.network, (guint) e);
}

/* Wrapped to the column's width: a long name (or recommendation) reads
 * whole on as many lines as it needs, so that two never read the same. */
static void
on_column_width (GtkTreeViewColumn *c, GParamSpec *pspec,
                 GtkCellRenderer *cell)
{
  gint width = gtk_tree_view_column_get_width (c) - 8;
  gint now;
  g_object_get (cell, "wrap-width", &now, NULL);
  if (width > 0 && width != now)
    {
      g_object_set (cell, "wrap-width", width, NULL);
      gtk_tree_view_column_queue_resize (c);
    }
}

/* A column of text col sorted by key: a number right-aligned; words
 * wrapped at the column's width (the name taking the width left). */
static GtkTreeViewColumn *
text_column (GtkTreeView *tree, const char *title, const char *tooltip,
             gint col, gint key, gboolean numeric)
{
  GtkCellRenderer *cell = gtk_cell_renderer_text_new ();
  if (numeric)
    g_object_set (cell, "xalign", 1.0, NULL);
  else
    g_object_set (cell, "wrap-mode", PANGO_WRAP_WORD_CHAR, "wrap-width",
                  col == COL_NAME ? 140 : 96, NULL);
  GtkTreeViewColumn *c = gtk_tree_view_column_new_with_attributes (
    title, cell, "text", col, "sensitive", COL_LAYER, NULL);
  GtkWidget *header = gtk_label_new (title);
  gtk_widget_set_tooltip_text (header, tooltip);
  gtk_widget_show (header);
  gtk_tree_view_column_set_widget (c, header);
  gtk_tree_view_column_set_sort_column_id (c, key);
  gtk_tree_view_column_set_resizable (c, TRUE);
  gtk_tree_view_column_set_expand (c, col == COL_NAME);
  if (numeric)
    gtk_tree_view_column_set_alignment (c, 1.0);
  else
    {
      gtk_tree_view_column_set_min_width (c, col == COL_NAME ? 140 : 96);
      g_signal_connect (c, "notify::width", G_CALLBACK (on_column_width),
                        cell);
    }
  gtk_tree_view_append_column (tree, c);
  return c;
}

/* Sorted by a column's key, the skipped entries last either way. */
static gint
compare_rows (GtkTreeModel *model, GtkTreeIter *a, GtkTreeIter *b,
              gpointer data)
{
  gint key = GPOINTER_TO_INT (data), id;
  GtkSortType order;
  gboolean la, lb;
  gtk_tree_model_get (model, a, COL_LAYER, &la, -1);
  gtk_tree_model_get (model, b, COL_LAYER, &lb, -1);
  /* model is the filter; its sorted model knows the order */
  SpxWindow *w = g_object_get_data (G_OBJECT (model), "spx-window");
  gtk_tree_sortable_get_sort_column_id (GTK_TREE_SORTABLE (w->layers.sorted),
                                        &id, &order);
  gint flip = order == GTK_SORT_DESCENDING ? -1 : 1;
  if (!la != !lb)
    return flip * (la ? -1 : 1);
  if (gtk_tree_model_get_column_type (model, key) == G_TYPE_STRING)
    {
      g_autofree char *x = NULL, *y = NULL;
      gtk_tree_model_get (model, a, key, &x, -1);
      gtk_tree_model_get (model, b, key, &y, -1);
      return g_utf8_collate (x ? x : "", y ? y : "");
    }
  double x, y;
  gtk_tree_model_get (model, a, key, &x, -1);
  gtk_tree_model_get (model, b, key, &y, -1);
  return (x > y) - (x < y);
}

static gboolean
row_visible (GtkTreeModel *model, GtkTreeIter *it, gpointer data)
{
  SpxWindow *w = data;
  gboolean layer = TRUE;
  gtk_tree_model_get (model, it, COL_LAYER, &layer, -1);
  return layer || w->layers.show_skipped == NULL ||
         gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (
           w->layers.show_skipped));
}

void
_spx_window_layers_refilter (SpxWindow *w)
{
  gtk_tree_model_filter_refilter (GTK_TREE_MODEL_FILTER (w->layers.filter));
}

/* The store, filtered (skipped entries when asked), sorted (skipped
 * entries last): the table's model. */
static GtkTreeModel *
table_model (SpxWindow *w)
{
  w->layers.rows = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                          g_free);
  w->layers.store = gtk_list_store_new (
    N_COLS, G_TYPE_STRING, G_TYPE_STRING, G_TYPE_DOUBLE, G_TYPE_STRING,
    G_TYPE_DOUBLE, G_TYPE_STRING, G_TYPE_DOUBLE, G_TYPE_STRING,
    G_TYPE_DOUBLE, G_TYPE_STRING, G_TYPE_DOUBLE, G_TYPE_STRING,
    G_TYPE_DOUBLE, G_TYPE_STRING, G_TYPE_BOOLEAN, G_TYPE_INT);
  w->layers.filter = gtk_tree_model_filter_new (
    GTK_TREE_MODEL (w->layers.store), NULL);
  gtk_tree_model_filter_set_visible_func (
    GTK_TREE_MODEL_FILTER (w->layers.filter), row_visible, w, NULL);
  g_object_set_data (G_OBJECT (w->layers.filter), "spx-window", w);
  w->layers.sorted = gtk_tree_model_sort_new_with_model (w->layers.filter);
  static const gint keys[] = { COL_NAME, COL_SIZE, COL_DENSITY_KEY,
                               COL_BLOCKS_KEY, COL_CPU_KEY, COL_MODEL_KEY,
                               COL_SHARE_KEY, COL_ENTRY };
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    gtk_tree_sortable_set_sort_func (GTK_TREE_SORTABLE (w->layers.sorted),
                                     keys[i], compare_rows,
                                     GINT_TO_POINTER (keys[i]), NULL);
  /* network order until a header is clicked, skipped entries last */
  gtk_tree_sortable_set_sort_column_id (GTK_TREE_SORTABLE (w->layers.sorted),
                                        COL_ENTRY, GTK_SORT_ASCENDING);
  return w->layers.sorted;
}

static GtkWidget *
table_new (SpxWindow *w)
{
  GtkWidget *tree = gtk_tree_view_new_with_model (table_model (w));
  GtkTreeView *t = GTK_TREE_VIEW (tree);
  w->layers.tree = tree;
  text_column (t, "Layer", "Its name in the network (a click on a header "
               "sorts by it)", COL_NAME, COL_NAME, FALSE);
  text_column (t, "Shape", "Rows × columns (a convolution's [out, in, kh, "
               "kw] as out × in·kh·kw)", COL_SHAPE, COL_SIZE, TRUE);
  text_column (t, "Density", "Non-zero elements", COL_DENSITY,
               COL_DENSITY_KEY, TRUE);
  w->layers.blocks_column = text_column (t, "Blocks", NULL, COL_BLOCKS,
                                         COL_BLOCKS_KEY, TRUE);
  text_column (t, "Best CPU", "The fastest mode and block size measured on "
               "this CPU, and its speedup over dense; keep dense when none "
               "beats it", COL_CPU, COL_CPU_KEY, FALSE);
  text_column (t, "Best IPU", "The same on the IPU model (planned)",
               COL_MODEL, COL_MODEL_KEY, FALSE);
  text_column (t, "Dense time", "The layer's share of the network's dense "
               "time (this CPU's when measured, else the model's)",
               COL_SHARE, COL_SHARE_KEY, TRUE);
  gtk_tree_view_set_tooltip_column (t, COL_TIP);
  gtk_tree_view_set_search_column (t, COL_NAME);
  gtk_tree_view_set_activate_on_single_click (t, FALSE);
  g_signal_connect (tree, "row-activated", G_CALLBACK (on_row_activated), w);
  GtkWidget *scroll = gtk_scrolled_window_new (NULL, NULL);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroll),
                                  GTK_POLICY_AUTOMATIC, GTK_POLICY_AUTOMATIC);
  gtk_widget_set_size_request (scroll, -1, 120);
  gtk_container_add (GTK_CONTAINER (scroll), tree);
  return scroll;
}

/* Run Survey, what it measures, Save Survey. */
static GtkWidget *
tools_new (SpxWindow *w)
{
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_container_set_border_width (GTK_CONTAINER (row), 4);
  w->layers.run_button = gtk_button_new_with_mnemonic ("Run S_urvey");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (w->layers.run_button),
                                  "win.run-survey");
  gtk_widget_set_tooltip_text (w->layers.run_button, "Plan every layer on "
                               "the IPU model and measure it on this CPU at "
                               "block sizes 1 to 16, static, dynamic and "
                               "tile-wise, at the panel's n, numbers, "
                               "machine and threads (Escape stops it, "
                               "keeping the layers done)");
  w->layers.sources = gtk_combo_box_text_new ();
  for (guint i = 0; i < G_N_ELEMENTS (sources); i++)
    gtk_combo_box_text_append_text (GTK_COMBO_BOX_TEXT (w->layers.sources),
                                    sources[i].text);
  gtk_combo_box_set_active (GTK_COMBO_BOX (w->layers.sources), 0);
  gtk_widget_set_tooltip_text (w->layers.sources, "What Run Survey runs: "
                               "the IPU model alone takes a moment; this "
                               "CPU measures every point");
  GtkWidget *again = gtk_button_new_with_mnemonic (
    "Measure _Again on 1 Thread");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (again),
                                  "win.survey-again");
  gtk_widget_set_tooltip_text (again, "Measure again, on one thread, the "
                               "layers with a noisy point on this CPU "
                               "(other programs slowed them), keeping the "
                               "others as they are");
  GtkWidget *save = gtk_button_new_with_mnemonic ("Sa_ve Survey…");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (save), "win.save-survey");
  gtk_widget_set_tooltip_text (save, "Save the survey as JSON (it reopens "
                               "without measuring again) or CSV");
  w->layers.show_skipped = gtk_check_button_new_with_mnemonic (
    "Show s_kipped entries");
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (w->layers.show_skipped),
                                TRUE);
  gtk_widget_set_tooltip_text (w->layers.show_skipped, "List the entries "
                               "that are not surveyed (biases, norms, "
                               "files that do not read), greyed, after "
                               "the layers");
  g_signal_connect_swapped (w->layers.show_skipped, "toggled",
                            G_CALLBACK (_spx_window_layers_refilter), w);
  gtk_box_pack_start (GTK_BOX (row), w->layers.run_button, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (row), w->layers.sources, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (row), again, FALSE, FALSE, 0);
  gtk_box_pack_end (GTK_BOX (row), save, FALSE, FALSE, 0);
  return row;
}

/* Before a network is open: what the page is for and how to open one. */
static GtkWidget *
empty_new (SpxWindow *w)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget *title = gtk_label_new (NULL);
  gtk_label_set_markup (GTK_LABEL (title), "<big><b>No network open"
                        "</b></big>");
  GtkWidget *text = gtk_label_new (
    "The Layers page surveys a whole pruned network, layer by layer: "
    "open a folder of mask files, a .safetensors or .npz checkpoint, or a "
    "survey saved as .json (File ▸ Open Network Folder…, Open…, or drop "
    "it on the window). From a terminal: sparse-explorer layers PATH.");
  gtk_label_set_line_wrap (GTK_LABEL (text), TRUE);
  /* at least 50 characters wide: a narrow label would be tall */
  gtk_label_set_width_chars (GTK_LABEL (text), 50);
  gtk_label_set_max_width_chars (GTK_LABEL (text), 60);
  gtk_label_set_justify (GTK_LABEL (text), GTK_JUSTIFY_CENTER);
  GtkWidget *open = gtk_button_new_with_mnemonic ("Open Network _Folder…");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (open), "win.open-folder");
  gtk_widget_set_halign (open, GTK_ALIGN_CENTER);
  gtk_widget_set_valign (box, GTK_ALIGN_CENTER);
  gtk_box_pack_start (GTK_BOX (box), title, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (box), text, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (box), open, FALSE, FALSE, 0);
  w->layers.empty = box;
  return box;
}

GtkWidget *
_spx_window_layers_page_new (SpxWindow *w)
{
  w->layers.summary = gtk_label_new (NULL);
  GtkLabel *summary = GTK_LABEL (w->layers.summary);
  gtk_label_set_xalign (summary, 0);
  gtk_label_set_line_wrap (summary, TRUE);
  gtk_label_set_selectable (summary, TRUE);
  gtk_widget_set_margin_start (w->layers.summary, 8);
  gtk_widget_set_margin_end (w->layers.summary, 8);
  gtk_widget_set_margin_bottom (w->layers.summary, 4);
  w->layers.chart = spx_view_new ();
  GtkWidget *chart = w->layers.chart_box = gtk_scrolled_window_new (NULL,
                                                                     NULL);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (chart),
                                  GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_container_add (GTK_CONTAINER (chart), w->layers.chart);
  GtkWidget *paned = w->layers.paned = gtk_paned_new (
    GTK_ORIENTATION_VERTICAL);
  g_signal_connect (paned, "size-allocate",
                    G_CALLBACK (_spx_window_layers_allocated), w);
  gtk_paned_pack1 (GTK_PANED (paned), table_new (w), TRUE, FALSE);
  gtk_paned_pack2 (GTK_PANED (paned), chart, TRUE, FALSE);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_box_pack_start (GTK_BOX (box), tools_new (w), FALSE, FALSE, 0);
  /* the sentence, and the toggle (on its line: the tools fill 1024 px) */
  GtkWidget *line = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_widget_set_margin_end (w->layers.show_skipped, 8);
  gtk_widget_set_valign (w->layers.show_skipped, GTK_ALIGN_START);
  gtk_box_pack_start (GTK_BOX (line), w->layers.summary, TRUE, TRUE, 0);
  gtk_box_pack_end (GTK_BOX (line), w->layers.show_skipped, FALSE, FALSE,
                    0);
  gtk_box_pack_start (GTK_BOX (box), line, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (box), paned, TRUE, TRUE, 0);
  w->layers.content = box;
  /* the empty state until a network is opened */
  GtkWidget *inner = w->layers.inner = gtk_stack_new ();
  gtk_stack_add_named (GTK_STACK (inner), empty_new (w), "empty");
  gtk_stack_add_named (GTK_STACK (inner), box, "layers");
  gtk_widget_show_all (inner);
  gtk_widget_hide (chart); /* until a survey */
  gtk_widget_set_no_show_all (chart, TRUE);
  gtk_widget_hide (box); /* until a network is open */
  gtk_widget_set_no_show_all (box, TRUE);
  gtk_stack_set_visible_child (GTK_STACK (inner), w->layers.empty);
  /* the page itself until it is asked for (spx_window_show_view), so
   * that its size counts in the views' only then */
  gtk_widget_set_no_show_all (inner, TRUE);
  gtk_widget_hide (inner);
  w->layers.page = inner;
  return inner;
}

/* Also emitted when another view's button takes the press away. */
static void
show_layers (GtkToggleButton *button, SpxWindow *w)
{
  if (gtk_toggle_button_get_active (button))
    spx_window_show_view (w, SPX_WINDOW_LAYERS_VIEW);
}

void
_spx_window_layers_tab (SpxWindow *w, GtkWidget *switcher)
{
  /* its last button is the Layers page's */
  g_autoptr (GList) buttons = gtk_container_get_children (
    GTK_CONTAINER (switcher));
  GList *last = g_list_last (buttons);
  if (last != NULL)
    g_signal_connect (last->data, "clicked", G_CALLBACK (show_layers), w);
}
