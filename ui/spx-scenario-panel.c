/* spx-scenario-panel.c: the side panel: the scenario's shape, mask
 * generator, number type, machine (presets and what-if figures), the
 * program shown and CPU threads, in a column that scrolls. Loading
 * blocks the controls' handlers, so only the user's changes are said. */
#include "spx-scenario-panel.h"
#include "spx-defaults.h"
#include "spx-spin-check.h"
#include "spx-util.h"

#include <math.h>

#define DENSITY_DIGITS 4
#define DENSITY_STEP   1e-4 /* what the spin button shows */
#define FIELD(name) SPX_SCENARIO_FIELD_##name
/* The Pattern entry that says where a mask no pattern made comes from. */
#define ORIGIN_ID "origin"
#define PATTERN_TIP "How the non-zero blocks are placed, or where a mask " \
                    "no pattern made comes from (a file, a drawing): " \
                    "choosing a pattern generates a mask"

struct _SpxScenarioPanel {
  GtkScrolledWindow parent;
  GtkWidget        *controls[SPX_SCENARIO_N_FIELDS];
  /* The generator as shown (loaded, or last said): a control put back
   * to it says nothing. */
  SpxStudyGenerator shown;
  gboolean          generated; /* the mask shown is the generator's */
};

G_DEFINE_TYPE (SpxScenarioPanel, spx_scenario_panel,
               GTK_TYPE_SCROLLED_WINDOW)

enum {
  GENERATOR_CHANGED, BLOCK_CHANGED, N_CHANGED, DTYPE_CHANGED,
  THREADS_CHANGED, PRESET_CHOSEN, MACHINE_EDITED, MODE_CHANGED, N_SIGNALS
};
static guint signals[N_SIGNALS];

/* ---- reading and writing the controls ------------------------------ */

static double
value (SpxScenarioPanel *p, SpxScenarioField f)
{
  return gtk_spin_button_get_value (GTK_SPIN_BUTTON (p->controls[f]));
}

static void
set_value (SpxScenarioPanel *p, SpxScenarioField f, double v)
{
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (p->controls[f]), v);
}

static const char *
active_id (SpxScenarioPanel *p, SpxScenarioField f)
{
  return gtk_combo_box_get_active_id (GTK_COMBO_BOX (p->controls[f]));
}

static gboolean
set_active_id (SpxScenarioPanel *p, SpxScenarioField f, const char *id)
{
  return gtk_combo_box_set_active_id (GTK_COMBO_BOX (p->controls[f]), id);
}

/* While the panel is loaded, its controls' handlers wait. */
static void
hold (SpxScenarioPanel *p, gboolean hold)
{
  for (guint i = 0; i < SPX_SCENARIO_N_FIELDS; i++)
    if (hold)
      g_signal_handlers_block_matched (p->controls[i], G_SIGNAL_MATCH_DATA,
                                       0, 0, NULL, NULL, p);
    else
      g_signal_handlers_unblock_matched (p->controls[i], G_SIGNAL_MATCH_DATA,
                                         0, 0, NULL, NULL, p);
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

/* A combo's last entry, id, is there only while it is what the study
 * has (label; NULL: none), and is then the one shown: the source of a mask
 * no pattern made, a machine that is no preset. */
static void
show_extra (SpxScenarioPanel *p, SpxScenarioField f, const char *id,
            const char *label)
{
  GtkComboBox *combo = GTK_COMBO_BOX (p->controls[f]);
  GtkTreeModel *model = gtk_combo_box_get_model (combo);
  gint n = gtk_tree_model_iter_n_children (model, NULL);
  GtkTreeIter last;
  g_autofree char *last_id = NULL;
  if (n > 0 && gtk_tree_model_iter_nth_child (model, &last, NULL, n - 1))
    gtk_tree_model_get (model, &last, gtk_combo_box_get_id_column (combo),
                        &last_id, -1);
  if (g_strcmp0 (last_id, id) == 0)
    gtk_combo_box_text_remove (GTK_COMBO_BOX_TEXT (combo), n - 1);
  if (label == NULL)
    return;
  gtk_combo_box_text_append (GTK_COMBO_BOX_TEXT (combo), id, label);
  set_active_id (p, f, id);
}

/* Pattern and seed say what made the mask: a generator's pattern and
 * seed, or where a file's or a drawing's comes from (and no seed). */
static void
load_origin (SpxScenarioPanel *p, const SpxScenario *sc)
{
  g_autofree char *origin = spx_scenario_mask_origin (sc);
  p->generated = sc->source == SPX_MASK_SOURCE_GENERATED;
  show_extra (p, FIELD (PATTERN), ORIGIN_ID, p->generated ? NULL : origin);
  if (p->generated)
    set_active_id (p, FIELD (PATTERN), origin);
  gtk_widget_set_sensitive (p->controls[FIELD (SEED)], p->generated);
  g_autofree char *tip = g_strdup_printf ("The mask: %s. %s", origin,
                                          PATTERN_TIP);
  gtk_widget_set_tooltip_text (p->controls[FIELD (PATTERN)],
                               p->generated ? PATTERN_TIP : tip);
}

void
spx_scenario_panel_load (SpxScenarioPanel *p, const SpxStudy *study)
{
  const SpxScenario *sc = study->scenario;
  const SpxIpuMachine *m = study->machine;
  g_autofree char *machine = spx_study_machine_origin (study);
  p->shown = (SpxStudyGenerator) { sc->m, sc->k, sc->gen.pattern,
                                   shown_density (sc), sc->gen.seed };
  hold (p, TRUE);
  set_value (p, FIELD (M), (double) sc->m);
  set_value (p, FIELD (K), (double) sc->k);
  set_value (p, FIELD (N), (double) sc->n);
  set_value (p, FIELD (BLOCK), sc->block);
  set_value (p, FIELD (DENSITY), p->shown.density);
  set_value (p, FIELD (SEED), (double) sc->gen.seed);
  load_origin (p, sc);
  set_active_id (p, FIELD (DTYPE), spx_dtype_to_string (sc->dtype));
  show_extra (p, FIELD (MACHINE), SPX_STUDY_CUSTOM_MACHINE, machine);
  if (machine == NULL)
    set_active_id (p, FIELD (MACHINE), m->name);
  set_value (p, FIELD (TILES), m->tiles);
  set_value (p, FIELD (SRAM), (double) m->sram_bytes / 1024);
  set_value (p, FIELD (CLOCK), m->clock_hz / 1e9);
  set_value (p, FIELD (EXCHANGE), m->exchange_bytes_per_cycle);
  set_value (p, FIELD (THREADS), sc->threads);
  hold (p, FALSE);
}

void
spx_scenario_panel_set_mode (SpxScenarioPanel *p, SpxIpuMode mode)
{
  hold (p, TRUE);
  gtk_combo_box_set_active (GTK_COMBO_BOX (p->controls[FIELD (MODE)]),
                            (gint) mode);
  hold (p, FALSE);
}

GtkWidget *
spx_scenario_panel_get_control (SpxScenarioPanel *p, SpxScenarioField f)
{
  g_return_val_if_fail (f < SPX_SCENARIO_N_FIELDS, NULL);
  return p->controls[f];
}

/* ---- what the user changed ----------------------------------------- */

/* m, k, density, seed and pattern are said together, and only when
 * they differ from what the panel shows (a control put back after
 * "keep" may say its value again), or when a pattern is chosen for a
 * mask no pattern made. */
static void
on_generator (GtkWidget *widget, SpxScenarioPanel *p)
{
  SpxStudyGenerator g = {
    (guint64) value (p, FIELD (M)), (guint64) value (p, FIELD (K)),
    p->shown.pattern, value (p, FIELD (DENSITY)),
    (guint64) value (p, FIELD (SEED)),
  };
  gboolean chosen = spx_pattern_from_string (active_id (p, FIELD (PATTERN)),
                                              &g.pattern) &&
                     widget == p->controls[FIELD (PATTERN)] && !p->generated;
  const SpxStudyGenerator *s = &p->shown;
  if (!chosen && g.m == s->m && g.k == s->k && g.seed == s->seed &&
      g.pattern == s->pattern &&
      fabs (g.density - s->density) < DENSITY_STEP / 2)
    return;
  p->shown = g;
  g_signal_emit (p, signals[GENERATOR_CHANGED], 0, &g);
}

/* n, block size and threads: each said as the whole number it is. */
static void
on_number (GtkWidget *widget, SpxScenarioPanel *p)
{
  guint64 v = (guint64) gtk_spin_button_get_value (GTK_SPIN_BUTTON (widget));
  if (widget == p->controls[FIELD (N)])
    g_signal_emit (p, signals[N_CHANGED], 0, v);
  else if (widget == p->controls[FIELD (BLOCK)])
    g_signal_emit (p, signals[BLOCK_CHANGED], 0, (guint) v);
  else
    g_signal_emit (p, signals[THREADS_CHANGED], 0, (guint) v);
}

static void
on_dtype (GtkWidget *widget, SpxScenarioPanel *p)
{
  SpxDtype dtype;
  if (spx_dtype_from_string (active_id (p, FIELD (DTYPE)), &dtype))
    g_signal_emit (p, signals[DTYPE_CHANGED], 0, (gint) dtype);
}

/* Choosing "custom" itself says nothing: it is what edits lead to. */
static void
on_preset (GtkWidget *widget, SpxScenarioPanel *p)
{
  const char *id = active_id (p, FIELD (MACHINE));
  if (id != NULL && !g_str_equal (id, SPX_STUDY_CUSTOM_MACHINE))
    g_signal_emit (p, signals[PRESET_CHOSEN], 0, id);
}

static void
on_figure (GtkWidget *widget, SpxScenarioPanel *p)
{
  SpxMachineFigures f = {
    (guint) value (p, FIELD (TILES)),
    (guint64) value (p, FIELD (SRAM)) * 1024,
    value (p, FIELD (CLOCK)) * 1e9,
    value (p, FIELD (EXCHANGE)),
  };
  g_signal_emit (p, signals[MACHINE_EDITED], 0, &f);
}

static void
on_mode (GtkWidget *widget, SpxScenarioPanel *p)
{
  g_signal_emit (p, signals[MODE_CHANGED], 0, gtk_combo_box_get_active (
                   GTK_COMBO_BOX (p->controls[FIELD (MODE)])));
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

/* ---- construction -------------------------------------------------- */

static GtkWidget *
spin (double lo, double hi, double step, guint digits)
{
  GtkWidget *s = gtk_spin_button_new_with_range (lo, hi, step);
  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (s), digits);
  /* not as wide as the largest value: the panel must leave room for the
   * view and the lesson on a 1024-pixel screen */
  gtk_entry_set_width_chars (GTK_ENTRY (s), 6);
  gtk_widget_set_hexpand (s, TRUE);
  return s;
}

/* A list whose entries may be long (a file's name): shortened at the
 * end rather than widening the panel (its tooltip says it whole). */
static GtkWidget *
short_combo (void)
{
  GtkWidget *c = gtk_combo_box_text_new ();
  g_autoptr (GList) cells = gtk_cell_layout_get_cells (GTK_CELL_LAYOUT (c));
  for (GList *l = cells; l != NULL; l = l->next)
    g_object_set (l->data, "ellipsize", PANGO_ELLIPSIZE_END,
                  "max-width-chars", 16, NULL);
  return c;
}

static GtkWidget *
id_combo (const char *const *ids)
{
  GtkWidget *c = short_combo ();
  for (guint i = 0; ids[i]; i++)
    gtk_combo_box_text_append (GTK_COMBO_BOX_TEXT (c), ids[i], ids[i]);
  return c;
}

static GtkWidget *
machine_combo (void)
{
  GtkWidget *c = short_combo ();
  for (const char *const *n = spx_ipu_machine_presets (); *n; n++)
    gtk_combo_box_text_append (GTK_COMBO_BOX_TEXT (c), *n, *n);
  return c; /* and, while the study has one, the machine no preset is */
}

/* Each control's row, top to bottom: the heading above it (if any),
 * its label and tooltip, and the handler that says its changes. */
typedef struct {
  const char *heading, *label, *tooltip;
  const char *signal;
  GCallback   handler;
} Row;

#define SPIN  "value-changed"
#define COMBO "changed"

static const Row rows[SPX_SCENARIO_N_FIELDS] = {
  [FIELD (M)] = { "Problem", "_m", "Rows of the sparse operand W (m × k)",
                  SPIN, G_CALLBACK (on_generator) },
  [FIELD (K)] = { NULL, "_k", "Columns of W, rows of X",
                  SPIN, G_CALLBACK (on_generator) },
  [FIELD (N)] = { NULL, "_n", "Columns of X (the batch)",
                  SPIN, G_CALLBACK (on_number) },
  [FIELD (BLOCK)] = { NULL, "_Block size", "Square b × b blocks; 1 is "
                      "unstructured", SPIN, G_CALLBACK (on_number) },
  [FIELD (DENSITY)] = { "Mask", "_Density", "Fraction of non-zero blocks "
                        "(of a file's or a drawing's mask: what it has at "
                        "this block size; a new value generates a mask)",
                        SPIN, G_CALLBACK (on_generator) },
  [FIELD (PATTERN)] = { NULL, "_Pattern", PATTERN_TIP, COMBO,
                        G_CALLBACK (on_generator) },
  [FIELD (SEED)] = { NULL, "_Seed", "Random seed of the generator (a file's "
                     "or a drawn mask has none)", SPIN,
                     G_CALLBACK (on_generator) },
  [FIELD (DTYPE)] = { NULL, "_Numbers", "fp16, fp32 or bf16: the IPU model "
                      "computes bf16 as fp16 (it has no bf16), the CPU fp16 "
                      "as bf16 (it has no fp16 arithmetic)",
                      COMBO, G_CALLBACK (on_dtype) },
  [FIELD (MACHINE)] = { "IPU", "_Machine", "A preset, or the scenario's "
                        "own machine: your edits of one, or a machine file",
                        COMBO, G_CALLBACK (on_preset) },
  [FIELD (TILES)] = { NULL, "_Tiles", "Tiles (what if there were more?)",
                      SPIN, G_CALLBACK (on_figure) },
  [FIELD (SRAM)] = { NULL, "S_RAM (KiB)", "Memory per tile",
                     SPIN, G_CALLBACK (on_figure) },
  [FIELD (CLOCK)] = { NULL, "_Clock (GHz)", "Tile clock",
                      SPIN, G_CALLBACK (on_figure) },
  [FIELD (EXCHANGE)] = { NULL, "_Exchange (B/cycle)", "Bytes per cycle "
                         "each tile sends and receives",
                         SPIN, G_CALLBACK (on_figure) },
  [FIELD (MODE)] = { NULL, "_Program shown", "The plan the mask, tiles and "
                     "exchange views show", COMBO, G_CALLBACK (on_mode) },
  [FIELD (THREADS)] = { "CPU", "T_hreads", "Threads of the measured CPU "
                        "engine (0: all cores)", SPIN,
                        G_CALLBACK (on_number) },
};

static void
make_controls (SpxScenarioPanel *p)
{
  static const char *const patterns[] = { "uniform", "tilewise", "nm",
                                          "banded", "skewed", "magnitude",
                                          NULL };
  static const char *const modes[] = { "dense", "static", "dynamic", NULL };
  const char *dtypes[SPX_DTYPE_COUNT + 1] = { NULL };
  for (guint i = 0; i < SPX_DTYPE_COUNT; i++)
    dtypes[i] = spx_dtype_to_string ((SpxDtype) i);
  GtkWidget **c = p->controls;
  c[FIELD (M)] = spin (1, 65536, 64, 0);
  c[FIELD (K)] = spin (1, 65536, 64, 0);
  c[FIELD (N)] = spin (1, 65536, 64, 0);
  c[FIELD (BLOCK)] = spin (1, 64, 1, 0);
  c[FIELD (DENSITY)] = spin (DENSITY_STEP, 1, 0.005, DENSITY_DIGITS);
  c[FIELD (PATTERN)] = id_combo (patterns);
  c[FIELD (SEED)] = spin (0, 1e9, 1, 0);
  c[FIELD (DTYPE)] = id_combo (dtypes);
  c[FIELD (MACHINE)] = machine_combo ();
  c[FIELD (TILES)] = spin (1, 65536, 16, 0);
  c[FIELD (SRAM)] = spin (1, 1 << 20, 16, 0);
  c[FIELD (CLOCK)] = spin (0.1, 10, 0.05, 3);
  c[FIELD (EXCHANGE)] = spin (0.25, 1024, 0.25, 2);
  c[FIELD (MODE)] = id_combo (modes);
  c[FIELD (THREADS)] = spin (0, spx_max_threads (), 1, 0);
  for (guint i = 0; i < SPX_SCENARIO_N_FIELDS; i++)
    {
      g_signal_connect (c[i], rows[i].signal, rows[i].handler, p);
      g_signal_connect (c[i], "scroll-event", G_CALLBACK (pass_scroll),
                        NULL);
    }
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

/* Under a number, the line saying why a text typed was refused. */
static void
add_check (GtkGrid *grid, gint *row, GtkSpinButton *spin)
{
  GtkWidget *message = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (message), 0);
  gtk_label_set_line_wrap (GTK_LABEL (message), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (message), 24);
  spx_spin_check (spin, GTK_LABEL (message));
  gtk_grid_attach (grid, message, 1, (*row)++, 1, 1);
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

/* What every measurement starts from and the panel has no control for,
 * as the commands' --help states it. */
static void
add_defaults (GtkGrid *grid, gint *row)
{
  g_autofree char *text = spx_defaults_describe ();
  GtkWidget *l = gtk_label_new (text);
  gtk_widget_set_name (l, "defaults");
  gtk_label_set_xalign (GTK_LABEL (l), 0);
  gtk_label_set_line_wrap (GTK_LABEL (l), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (l), 32);
  gtk_style_context_add_class (gtk_widget_get_style_context (l),
                               "dim-label");
  gtk_grid_attach (grid, l, 0, (*row)++, 2, 1);
}

static void
spx_scenario_panel_constructed (GObject *object)
{
  SpxScenarioPanel *p = SPX_SCENARIO_PANEL (object);
  G_OBJECT_CLASS (spx_scenario_panel_parent_class)->constructed (object);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (p), GTK_POLICY_NEVER,
                                  GTK_POLICY_AUTOMATIC);
  GtkWidget *grid = gtk_grid_new ();
  gtk_grid_set_row_spacing (GTK_GRID (grid), 4);
  gtk_grid_set_column_spacing (GTK_GRID (grid), 8);
  gtk_container_set_border_width (GTK_CONTAINER (grid), 12);
  make_controls (p);
  gint row = 0;
  for (guint i = 0; i < SPX_SCENARIO_N_FIELDS; i++)
    {
      if (rows[i].heading != NULL)
        add_heading (GTK_GRID (grid), &row, rows[i].heading);
      add_row (GTK_GRID (grid), &row, rows[i].label, p->controls[i],
               rows[i].tooltip);
      if (GTK_IS_SPIN_BUTTON (p->controls[i]))
        add_check (GTK_GRID (grid), &row, GTK_SPIN_BUTTON (p->controls[i]));
    }
  add_defaults (GTK_GRID (grid), &row);
  gtk_container_add (GTK_CONTAINER (p), grid);
}

static void
spx_scenario_panel_init (SpxScenarioPanel *p)
{
}

/* A signal of the panel with one value. */
static guint
said (const char *name, GType type)
{
  return g_signal_new (name, SPX_TYPE_SCENARIO_PANEL, G_SIGNAL_RUN_LAST, 0,
                       NULL, NULL, NULL, G_TYPE_NONE, 1, type);
}

static void
spx_scenario_panel_class_init (SpxScenarioPanelClass *klass)
{
  G_OBJECT_CLASS (klass)->constructed = spx_scenario_panel_constructed;
  signals[GENERATOR_CHANGED] = said ("generator-changed", G_TYPE_POINTER);
  signals[BLOCK_CHANGED] = said ("block-changed", G_TYPE_UINT);
  signals[N_CHANGED] = said ("n-changed", G_TYPE_UINT64);
  signals[DTYPE_CHANGED] = said ("dtype-changed", G_TYPE_INT);
  signals[THREADS_CHANGED] = said ("threads-changed", G_TYPE_UINT);
  signals[PRESET_CHOSEN] = said ("preset-chosen", G_TYPE_STRING);
  signals[MACHINE_EDITED] = said ("machine-edited", G_TYPE_POINTER);
  signals[MODE_CHANGED] = said ("mode-changed", G_TYPE_INT);
}

GtkWidget *
spx_scenario_panel_new (void)
{
  /* as gtk_scrolled_window_new (NULL, NULL): adjustments of its own */
  return g_object_new (SPX_TYPE_SCENARIO_PANEL, "hadjustment", NULL,
                       "vadjustment", NULL, NULL);
}
