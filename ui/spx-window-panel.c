/* spx-window-panel.c: the side panel: the scenario's shape, mask
 * generator, number type, machine (presets and what-if edits), the
 * program shown and CPU threads. Every change re-plans at once. */
#include "spx-window-private.h"
#include "spx-util.h"

#include <math.h>

#define CUSTOM "custom"
#define DENSITY_DIGITS 4
#define DENSITY_STEP   1e-4 /* what the spin button shows */

static GtkWidget *
spin (double lo, double hi, double step, guint digits)
{
  GtkWidget *s = gtk_spin_button_new_with_range (lo, hi, step);
  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (s), digits);
  gtk_spin_button_set_numeric (GTK_SPIN_BUTTON (s), TRUE);
  gtk_widget_set_hexpand (s, TRUE);
  return s;
}

static double
value (GtkWidget *s)
{
  return gtk_spin_button_get_value (GTK_SPIN_BUTTON (s));
}

static void
set_value (GtkWidget *s, double v)
{
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (s), v);
}

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
spx_window_may_replace_mask (SpxWindow *w, const char *why)
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

/* The problem changed: the sweep may be out of date, the file unsaved. */
static void
changed (SpxWindow *w)
{
  spx_study_changed (w->study);
  spx_window_set_dirty (w, TRUE);
}

static double shown_density (const SpxScenario *sc);

/* The generator controls show what the subject already is (a spin
 * button put back after "keep" may say so again). */
static gboolean
panel_unchanged (SpxWindow *w)
{
  const SpxScenario *sc = w->study->scenario;
  const SpxPanel *p = &w->panel;
  SpxPattern pattern = sc->gen.pattern;
  spx_pattern_from_string (gtk_combo_box_get_active_id (
                             GTK_COMBO_BOX (p->pattern)), &pattern);
  return (guint64) value (p->m) == sc->m && (guint64) value (p->k) == sc->k &&
         fabs (value (p->density) - shown_density (sc)) < DENSITY_STEP / 2 &&
         (guint64) value (p->seed) == sc->gen.seed &&
         pattern == sc->gen.pattern;
}

static void
on_generator_changed (GtkWidget *widget, SpxWindow *w)
{
  if (w->updating || panel_unchanged (w))
    return;
  if (!spx_window_may_replace_mask (w, "Changing the shape, density, "
                                    "pattern or seed generates a new mask."))
    {
      spx_window_panel_load (w); /* put the controls back */
      return;
    }
  SpxScenario *sc = w->study->scenario;
  SpxPanel *p = &w->panel;
  sc->m = (guint64) value (p->m);
  sc->k = (guint64) value (p->k);
  sc->gen.density = value (p->density);
  sc->gen.seed = (guint64) value (p->seed);
  spx_pattern_from_string (gtk_combo_box_get_active_id (
                             GTK_COMBO_BOX (p->pattern)), &sc->gen.pattern);
  sc->source = SPX_MASK_SOURCE_GENERATED;
  g_clear_pointer (&sc->mask_path, g_free);
  changed (w);
  spx_window_rebuild (w);
}

/* A new block size re-blocks a file's or a drawing's mask, and
 * generates a mask of the scenario's pattern at that size otherwise. */
static void
on_block_changed (GtkWidget *widget, SpxWindow *w)
{
  if (w->updating)
    return;
  w->study->scenario->block = (guint) value (w->panel.block);
  changed (w);
  spx_window_rebuild (w);
}

static void
on_plan_changed (GtkWidget *widget, SpxWindow *w)
{
  if (w->updating)
    return;
  SpxPanel *p = &w->panel;
  SpxScenario *sc = w->study->scenario;
  sc->n = (guint64) value (p->n);
  spx_dtype_from_string (gtk_combo_box_get_active_id (GTK_COMBO_BOX (p->dtype)),
                         &sc->dtype);
  changed (w);
  spx_window_replan (w);
}

/* CPU threads only matter to the sweep: no re-plan, but the chart may
 * be out of date. */
static void
on_threads_changed (GtkWidget *widget, SpxWindow *w)
{
  if (w->updating)
    return;
  w->study->scenario->threads = (guint) value (w->panel.threads);
  changed (w);
  spx_window_update_verdict (w);
}

/* What-if edits: the machine becomes "custom" with the figures given. */
static void
on_machine_edited (GtkWidget *widget, SpxWindow *w)
{
  if (w->updating)
    return;
  SpxPanel *p = &w->panel;
  SpxIpuMachine *m = w->study->machine;
  m->tiles = (guint) value (p->tiles);
  m->grid_width = MIN (m->grid_width, m->tiles);
  m->sram_bytes = (guint64) value (p->sram) * 1024;
  m->clock_hz = value (p->clock) * 1e9;
  m->exchange_bytes_per_cycle = value (p->exchange);
  g_free (m->name);
  m->name = g_strdup (CUSTOM);
  g_free (w->study->scenario->machine);
  w->study->scenario->machine = g_strdup (CUSTOM);
  g_autoptr (GError) error = NULL;
  if (!spx_ipu_machine_validate (m, &error))
    {
      spx_window_show_error (w, error->message);
      return;
    }
  w->updating = TRUE;
  gtk_combo_box_set_active_id (GTK_COMBO_BOX (p->machine), CUSTOM);
  w->updating = FALSE;
  changed (w);
  spx_window_replan (w);
}

static void
on_preset_changed (GtkComboBox *combo, SpxWindow *w)
{
  const char *id = gtk_combo_box_get_active_id (combo);
  if (w->updating || id == NULL || g_str_equal (id, CUSTOM))
    return;
  g_autoptr (GError) error = NULL;
  if (!spx_study_set_machine (w->study, id, &error))
    {
      spx_window_show_error (w, error->message);
      return;
    }
  spx_window_panel_load (w);
  spx_window_set_dirty (w, TRUE);
  spx_window_replan (w);
}

static void
on_mode_changed (GtkComboBox *combo, SpxWindow *w)
{
  if (w->updating)
    return;
  w->mode = (SpxIpuMode) gtk_combo_box_get_active (combo);
  spx_window_programs_changed (w);
}

/* The panel scrolls under the wheel; its numbers and lists do not turn
 * with it (stopping the widget's own handler lets the event go on to
 * the scrolled window). */
static gboolean
pass_scroll (GtkWidget *widget, GdkEvent *event, gpointer data)
{
  g_signal_stop_emission_by_name (widget, "scroll-event");
  return FALSE;
}

/* A generated mask shows its generator's density; a file's or a
 * drawing's shows what it has at its block size. */
static double
shown_density (const SpxScenario *sc)
{
  if (sc->source == SPX_MASK_SOURCE_GENERATED || sc->mask == NULL)
    return sc->gen.density;
  return (double) spx_mask_count (sc->mask) /
         (double) spx_mask_n_blocks (sc->mask);
}

void
spx_window_panel_load (SpxWindow *w)
{
  SpxPanel *p = &w->panel;
  const SpxScenario *sc = w->study->scenario;
  const SpxIpuMachine *m = w->study->machine;
  w->updating = TRUE;
  set_value (p->m, (double) sc->m);
  set_value (p->k, (double) sc->k);
  set_value (p->n, (double) sc->n);
  set_value (p->block, sc->block);
  set_value (p->density, shown_density (sc));
  set_value (p->seed, (double) sc->gen.seed);
  gtk_combo_box_set_active_id (GTK_COMBO_BOX (p->pattern),
                               spx_pattern_to_string (sc->gen.pattern));
  gtk_combo_box_set_active_id (GTK_COMBO_BOX (p->dtype),
                               spx_dtype_to_string (sc->dtype));
  if (!gtk_combo_box_set_active_id (GTK_COMBO_BOX (p->machine), m->name))
    gtk_combo_box_set_active_id (GTK_COMBO_BOX (p->machine), CUSTOM);
  set_value (p->tiles, m->tiles);
  set_value (p->sram, (double) m->sram_bytes / 1024);
  set_value (p->clock, m->clock_hz / 1e9);
  set_value (p->exchange, m->exchange_bytes_per_cycle);
  gtk_combo_box_set_active (GTK_COMBO_BOX (p->mode), (gint) w->mode);
  set_value (p->threads, sc->threads);
  w->updating = FALSE;
}

static void
add_row (GtkGrid *grid, gint *row, const char *label, GtkWidget *control,
         const char *tooltip)
{
  GtkWidget *l = gtk_label_new_with_mnemonic (label);
  gtk_label_set_xalign (GTK_LABEL (l), 1);
  gtk_label_set_mnemonic_widget (GTK_LABEL (l), control);
  gtk_widget_set_tooltip_text (control, tooltip);
  gtk_grid_attach (grid, l, 0, *row, 1, 1);
  gtk_grid_attach (grid, control, 1, *row, 1, 1);
  (*row)++;
}

static void
add_heading (GtkGrid *grid, gint *row, const char *text)
{
  GtkWidget *l = gtk_label_new (NULL);
  g_autofree char *markup = g_markup_printf_escaped ("<b>%s</b>", text);
  gtk_label_set_markup (GTK_LABEL (l), markup);
  gtk_label_set_xalign (GTK_LABEL (l), 0);
  gtk_widget_set_margin_top (l, *row ? 12 : 0);
  gtk_grid_attach (grid, l, 0, (*row)++, 2, 1);
}

static GtkWidget *
id_combo (const char *const *ids)
{
  GtkWidget *c = gtk_combo_box_text_new ();
  for (guint i = 0; ids[i]; i++)
    gtk_combo_box_text_append (GTK_COMBO_BOX_TEXT (c), ids[i], ids[i]);
  return c;
}

static void
build_problem (SpxWindow *w, GtkGrid *g, gint *row)
{
  static const char *const patterns[] = { "uniform", "tilewise", "nm",
                                          "banded", "skewed", "magnitude",
                                          NULL };
  static const char *const dtypes[] = { "fp16", "fp32", NULL };
  SpxPanel *p = &w->panel;
  p->m = spin (1, 65536, 64, 0);
  p->k = spin (1, 65536, 64, 0);
  p->n = spin (1, 65536, 64, 0);
  p->block = spin (1, 64, 1, 0);
  p->density = spin (DENSITY_STEP, 1, 0.005, DENSITY_DIGITS);
  p->pattern = id_combo (patterns);
  p->seed = spin (0, 1e9, 1, 0);
  p->dtype = id_combo (dtypes);
  add_heading (g, row, "Problem");
  add_row (g, row, "_m", p->m, "Rows of the sparse operand W (m × k)");
  add_row (g, row, "_k", p->k, "Columns of W, rows of X");
  add_row (g, row, "_n", p->n, "Columns of X (the batch)");
  add_row (g, row, "_Block size", p->block, "Square b × b blocks; 1 is "
           "unstructured");
  add_heading (g, row, "Mask");
  add_row (g, row, "_Density", p->density, "Fraction of non-zero blocks "
           "(of a file's or a drawing's mask: what it has at this block "
           "size; a new value generates a mask)");
  add_row (g, row, "_Pattern", p->pattern, "How the non-zero blocks are "
           "placed");
  add_row (g, row, "_Seed", p->seed, "Random seed of the generator");
  add_row (g, row, "_Numbers", p->dtype, "fp16 (with fp32 partials) or fp32");
  GtkWidget *gen[] = { p->m, p->k, p->density, p->seed };
  for (guint i = 0; i < G_N_ELEMENTS (gen); i++)
    g_signal_connect (gen[i], "value-changed",
                      G_CALLBACK (on_generator_changed), w);
  g_signal_connect (p->block, "value-changed", G_CALLBACK (on_block_changed),
                    w);
  g_signal_connect (p->pattern, "changed", G_CALLBACK (on_generator_changed),
                    w);
  g_signal_connect (p->n, "value-changed", G_CALLBACK (on_plan_changed), w);
  g_signal_connect (p->dtype, "changed", G_CALLBACK (on_plan_changed), w);
}

static void
build_machine (SpxWindow *w, GtkGrid *g, gint *row)
{
  static const char *const modes[] = { "dense", "static", "dynamic", NULL };
  SpxPanel *p = &w->panel;
  p->machine = gtk_combo_box_text_new ();
  for (const char *const *n = spx_ipu_machine_presets (); *n; n++)
    gtk_combo_box_text_append (GTK_COMBO_BOX_TEXT (p->machine), *n, *n);
  gtk_combo_box_text_append (GTK_COMBO_BOX_TEXT (p->machine), CUSTOM,
                             "custom (edited)");
  p->tiles = spin (1, 65536, 16, 0);
  p->sram = spin (1, 1 << 20, 16, 0);
  p->clock = spin (0.1, 10, 0.05, 3);
  p->exchange = spin (0.25, 1024, 0.25, 2);
  p->mode = id_combo (modes);
  p->threads = spin (0, spx_max_threads (), 1, 0);
  add_heading (g, row, "IPU");
  add_row (g, row, "_Machine", p->machine, "A preset, or your edits of one");
  add_row (g, row, "_Tiles", p->tiles, "Tiles (what if there were more?)");
  add_row (g, row, "S_RAM (KiB)", p->sram, "Memory per tile");
  add_row (g, row, "_Clock (GHz)", p->clock, "Tile clock");
  add_row (g, row, "_Exchange (B/cycle)", p->exchange,
           "Bytes per cycle each tile sends and receives");
  add_row (g, row, "_Program shown", p->mode, "The plan the mask, tiles and "
           "exchange views show");
  add_heading (g, row, "CPU");
  add_row (g, row, "T_hreads", p->threads, "Threads of the measured CPU "
           "engine (0: all cores)");
  g_signal_connect (p->machine, "changed", G_CALLBACK (on_preset_changed), w);
  GtkWidget *edits[] = { p->tiles, p->sram, p->clock, p->exchange };
  for (guint i = 0; i < G_N_ELEMENTS (edits); i++)
    g_signal_connect (edits[i], "value-changed",
                      G_CALLBACK (on_machine_edited), w);
  g_signal_connect (p->mode, "changed", G_CALLBACK (on_mode_changed), w);
  g_signal_connect (p->threads, "value-changed",
                    G_CALLBACK (on_threads_changed), w);
}

GtkWidget *
spx_window_panel_new (SpxWindow *w)
{
  GtkWidget *grid = gtk_grid_new ();
  gtk_grid_set_row_spacing (GTK_GRID (grid), 4);
  gtk_grid_set_column_spacing (GTK_GRID (grid), 8);
  gtk_container_set_border_width (GTK_CONTAINER (grid), 12);
  gint row = 0;
  build_problem (w, GTK_GRID (grid), &row);
  build_machine (w, GTK_GRID (grid), &row);
  GtkWidget *wheel[] = { w->panel.m, w->panel.k, w->panel.n, w->panel.block,
                         w->panel.density, w->panel.pattern, w->panel.seed,
                         w->panel.dtype, w->panel.machine, w->panel.tiles,
                         w->panel.sram, w->panel.clock, w->panel.exchange,
                         w->panel.mode, w->panel.threads };
  for (guint i = 0; i < G_N_ELEMENTS (wheel); i++)
    g_signal_connect (wheel[i], "scroll-event", G_CALLBACK (pass_scroll),
                      NULL);
  return grid;
}
