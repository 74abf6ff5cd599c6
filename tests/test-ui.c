/* test-ui.c: the main window under a display (Xvfb in CI): it builds
 * without warnings, every view is filled in, files open through the
 * actions, edits undo, a tile selects exactly its blocks, export writes
 * files, a sweep can be cancelled, unsaved edits survive a save. */
#include "spx-window-private.h"
#include "spx-mask-io.h"
#include "spx-settings.h"
#include "spx-spin-check.h"
#include "spx-util.h"
#include "test-files.h"
#include "test-ui.h"
#include "test-keys.h"
#include "test-ipu-check.h"
#include "spx-render-exchange.h"
#include "spx-render-png.h"
#include "spx-render-speedup.h"
#include "spx-render-tiles.h"
#include "spx-render-timeline.h"

#include <ftw.h>
#include <glib/gstdio.h>
#include <grp.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#ifdef SPX_TEST_X11
#include <X11/Xlib.h>
#include <gdk/gdkx.h>
#endif

/* A view's widget by its id in the table, and what the views draw. */
#define VIEW(w, id) ((w)->views[SPX_RENDER_VIEW_##id])
#define DATA(w, id) ((w)->view_data[SPX_RENDER_VIEW_##id])
#define TILES_DATA(w) ((const SpxRenderTilesData *) DATA (w, TILES))
#define EXCHANGE_DATA(w) ((const SpxRenderExchangeData *) DATA (w, EXCHANGE))
#define TIMELINE_DATA(w) ((const SpxRenderTimelineData *) DATA (w, TIMELINE))
#define SPEEDUP_DATA(w) ((const SpxRenderSpeedupData *) DATA (w, SPEEDUP))
/* A control of the side panel by its field. */
#define PANEL(w, field) \
  spx_scenario_panel_get_control ((w)->panel, SPX_SCENARIO_FIELD_##field)

/* Every view has its program: the lesson is there on first sight. */
static void
assert_filled (SpxWindow *w, const SpxMask *mask)
{
  for (guint mode = 0; mode < SPX_IPU_N_MODES; mode++)
    {
      const SpxIpuProgram *p = w->study->programs[mode];
      g_assert_nonnull (p);
      g_assert_cmpuint (p->m, ==, mask->rows);
      g_assert_cmpuint (p->k, ==, mask->cols);
      g_assert_true (TIMELINE_DATA (w)->programs[mode] == p);
    }
  g_assert_true (TILES_DATA (w)->program == w->study->programs[w->mode]);
  g_assert_true (EXCHANGE_DATA (w)->program == w->study->programs[w->mode]);
  g_assert_cmpuint (w->study->programs[SPX_IPU_MODE_STATIC]->block, ==, mask->block);
}

static void
test_default (void)
{
  SKIP_WITHOUT_DISPLAY ();
  gint64 t0 = g_get_monotonic_time ();
  SpxWindow *w = window_new ();
  g_test_message ("default window built and planned in %.0f ms",
                  (g_get_monotonic_time () - t0) / 1e3);
  SpxMask *mask = spx_mask_editor_get_mask (SPX_MASK_EDITOR (w->editor));
  g_assert_nonnull (mask);
  g_assert_cmpuint (mask->rows, ==, 4096);
  g_assert_cmpuint (mask->cols, ==, 4096);
  g_assert_cmpuint (mask->block, ==, 16);
  g_assert_cmpuint (spx_mask_count (mask), ==, 65536 / 16);
  assert_filled (w, mask);
  g_assert_cmpuint (w->study->programs[0]->n, ==, 1024);
  g_assert_cmpstr (w->study->programs[0]->machine->name, ==, "bow");
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (w)), ==,
                   "Sparse Explorer");
  g_assert_null (spx_window_get_error (w));
  /* a change from the panel: planned off the main loop */
  longest_us = 0;
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (PANEL (w, DENSITY)), 0.125);
  wait_idle (w);
  g_test_message ("re-planned 4096² b16 d=1/8; longest main-loop iteration "
                  "%.1f ms", longest_us / 1e3);
  g_assert_cmpuint (w->study->programs[0]->m, ==, 4096);
  window_close (w);
}

/* A preference for another machine arrives while the first mask is
 * still being made: the window still gets its mask. */
static void
test_default_machine (void)
{
  SKIP_WITHOUT_DISPLAY ();
  SpxWindow *w = spx_window_new (app);
  spx_window_use_defaults (w, "teach16", 1);
  gtk_widget_show (GTK_WIDGET (w));
  wait_idle (w);
  SpxMask *mask = spx_mask_editor_get_mask (SPX_MASK_EDITOR (w->editor));
  g_assert_nonnull (mask);
  assert_filled (w, mask);
  g_assert_cmpuint (w->study->programs[0]->n_tiles, ==, 16);
  g_assert_cmpuint (w->study->scenario->threads, ==, 1);
  window_close (w);
}

#define DLMC_LAYER "transformer-magnitude_pruning-0.98-attention_q.smtx"

/* A new window with the DLMC layer opened in it. */
static SpxWindow *
dlmc_window (void)
{
  SpxWindow *w = window_new ();
  g_autofree char *path = data_path (DLMC_LAYER);
  activate (w, "open-path", g_variant_new_string (path));
  wait_idle (w);
  return w;
}

static void
test_open_dlmc (void)
{
  SKIP_WITHOUT_DISPLAY ();
  SpxWindow *w = dlmc_window ();
  g_autofree char *path = data_path (DLMC_LAYER);
  g_assert_null (spx_window_get_error (w));
  g_autoptr (SpxMask) elements = spx_mask_load (path, NULL, NULL);
  g_autoptr (SpxMask) expected = spx_mask_to_blocks (elements, 16, NULL);
  SpxMask *mask = spx_mask_editor_get_mask (SPX_MASK_EDITOR (w->editor));
  g_assert_cmpuint (mask->rows, ==, expected->rows);
  g_assert_cmpuint (mask->cols, ==, expected->cols);
  g_assert_true (memcmp (mask->bits, expected->bits,
                         (spx_mask_n_blocks (mask) + 7) / 8) == 0);
  assert_filled (w, mask);
  g_assert_nonnull (strstr (gtk_window_get_title (GTK_WINDOW (w)),
                            "attention_q.smtx"));
  /* a new block size re-blocks the file's pattern, it does not generate */
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (PANEL (w, BLOCK)), 4);
  wait_idle (w);
  g_autoptr (SpxMask) by4 = spx_mask_to_blocks (elements, 4, NULL);
  mask = spx_mask_editor_get_mask (SPX_MASK_EDITOR (w->editor));
  g_assert_cmpuint (mask->block, ==, 4);
  g_assert_true (memcmp (mask->bits, by4->bits,
                         (spx_mask_n_blocks (mask) + 7) / 8) == 0);
  assert_filled (w, mask);

  /* a bad file: the message names it, the window keeps its mask */
  g_autofree char *bad = data_path ("png-alpha.png.missing");
  activate (w, "open-path", g_variant_new_string (bad));
  wait_idle (w);
  g_assert_nonnull (spx_window_get_error (w));
  g_assert_nonnull (strstr (spx_window_get_error (w), bad));
  g_assert_true (spx_mask_editor_get_mask (SPX_MASK_EDITOR (w->editor)) ==
                 mask);
  window_close (w);
}

/* A small scenario every later test opens: teach16, 64 × 64, 8×8 blocks. */
static char *
small_scenario (const char *dir)
{
  g_autoptr (SpxScenario) sc = spx_scenario_new ();
  sc->m = sc->k = 64;
  sc->n = 16;
  sc->block = 8;
  sc->gen.density = 0.25;
  g_free (sc->machine);
  sc->machine = g_strdup ("teach16");
  char *path = g_build_filename (dir, "small.spx", NULL);
  g_autoptr (GError) error = NULL;
  g_assert_true (spx_scenario_save (sc, path, SPX_SAVE_DEFAULT, &error));
  return path;
}

static SpxWindow *
small_window (const char *dir)
{
  SpxWindow *w = window_new ();
  g_autofree char *path = small_scenario (dir);
  activate (w, "open-path", g_variant_new_string (path));
  wait_idle (w);
  g_assert_null (spx_window_get_error (w));
  g_assert_cmpuint (w->study->programs[0]->n_tiles, ==, 16);
  return w;
}

/* A .spx from a bigger machine (threads=1024) opens; the bar says its
 * sweep runs here on what this machine has, and the panel shows that. */
static void
test_threads_from_bigger_machine (void)
{
  SKIP_WITHOUT_DISPLAY ();
  guint most = spx_max_threads ();
  if (most >= 1024)
    {
      g_test_skip ("this machine runs 1024 threads");
      return;
    }
  g_autofree char *path = g_test_build_filename (
    G_TEST_DIST, "data", "hostile", "msg-threads-1024.spx", NULL);
  SpxWindow *w = window_new ();
  activate (w, "open-path", g_variant_new_string (path));
  wait_idle (w);
  g_assert_cmpstr (w->study->path, ==, path);
  g_assert_cmpuint (w->study->scenario->threads, ==, most);
  g_assert_cmpuint (gtk_spin_button_get_value_as_int (
                      GTK_SPIN_BUTTON (PANEL (w, THREADS))), ==, most);
  const char *bar = spx_window_get_error (w);
  g_assert_nonnull (bar);
  g_assert_nonnull (strstr (bar, "msg-threads-1024.spx: [scenario] threads: "
                                 "1024 is more than this machine runs"));
  g_autofree char *uses = g_strdup_printf ("the sweep here uses %u.", most);
  g_assert_true (g_str_has_suffix (bar, uses));
  g_assert_false (spx_window_is_dirty (w));
  window_close (w);
}

/* Draw the editor as it is on screen. */
static cairo_surface_t *
snapshot (GtkWidget *widget)
{
  int wd = gtk_widget_get_allocated_width (widget);
  int ht = gtk_widget_get_allocated_height (widget);
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, wd, ht);
  cairo_t *cr = cairo_create (s);
  gtk_widget_draw (widget, cr);
  cairo_destroy (cr);
  cairo_surface_flush (s);
  return s;
}

static SpxRgb
pixel (cairo_surface_t *s, int x, int y)
{
  const guchar *d = cairo_image_surface_get_data (s);
  guint32 v = *(const guint32 *) (gconstpointer) (
    d + y * cairo_image_surface_get_stride (s) + x * 4);
  return (SpxRgb) { ((v >> 16) & 0xff) / 255.0, ((v >> 8) & 0xff) / 255.0,
                    (v & 0xff) / 255.0 };
}

static gboolean
near (SpxRgb a, SpxRgb b)
{
  return fabs (a.r - b.r) < 0.03 && fabs (a.g - b.g) < 0.03 &&
         fabs (a.b - b.b) < 0.03;
}

/* The centre, in editor pixels, of every block (by the editor's hit test). */
static void
block_centres (SpxMaskEditor *e, const SpxMask *mask, double *cx, double *cy)
{
  GtkWidget *widget = GTK_WIDGET (e);
  int wd = gtk_widget_get_allocated_width (widget);
  int ht = gtk_widget_get_allocated_height (widget);
  guint64 n = spx_mask_n_blocks (mask);
  g_autofree double *sx = g_new0 (double, n), *sy = g_new0 (double, n);
  g_autofree guint *count = g_new0 (guint, n);
  for (int y = 0; y < ht; y++)
    for (int x = 0; x < wd; x++)
      {
        guint64 br, bc;
        if (!spx_mask_editor_block_at (e, x + 0.5, y + 0.5, &br, &bc))
          continue;
        guint64 f = br * mask->bcols + bc;
        sx[f] += x;
        sy[f] += y;
        count[f]++;
      }
  for (guint64 f = 0; f < n; f++)
    {
      g_assert_cmpuint (count[f], >, 16); /* every block visible */
      cx[f] = sx[f] / count[f];
      cy[f] = sy[f] / count[f];
    }
}

static void
test_select_tile (void)
{
  SKIP_WITHOUT_DISPLAY ();
  g_autofree char *dir = g_dir_make_tmp ("spx-ui-XXXXXX", NULL);
  SpxWindow *w = small_window (dir);
  activate (w, "view", g_variant_new_string ("mask"));
  wait_idle (w);
  const SpxIpuProgram *p = w->study->programs[w->mode];
  gint tile = -1;
  for (guint t = 0; t < p->n_tiles && tile < 0; t++)
    if (p->tiles[t].blocks && p->tiles[t].blocks->len >= 2)
      tile = (gint) t;
  g_assert_cmpint (tile, >=, 0);
  activate (w, "select-tile", g_variant_new_int32 (tile));
  wait_idle (w);
  g_assert_cmpint (w->selected_tile, ==, tile);
  g_assert_cmpint (TILES_DATA (w)->selected_tile, ==, tile);

  SpxMaskEditor *e = SPX_MASK_EDITOR (w->editor);
  SpxMask *mask = spx_mask_editor_get_mask (e);
  guint64 n = spx_mask_n_blocks (mask);
  g_autofree double *cx = g_new (double, n), *cy = g_new (double, n);
  block_centres (e, mask, cx, cy);
  g_autofree guint8 *mine = g_new0 (guint8, n);
  GArray *blocks = p->tiles[tile].blocks;
  for (guint i = 0; i < blocks->len; i++)
    mine[g_array_index (blocks, guint64, i)] = 1;
  cairo_surface_t *s = snapshot (w->editor);
  SpxRenderStyle style;
  spx_render_style_init (&style, _spx_window_theme (w));
  guint lit = 0;
  for (guint64 f = 0; f < n; f++)
    {
      gboolean on = near (pixel (s, (int) cx[f], (int) cy[f]),
                          style.highlight);
      g_assert_cmpint (on, ==, mine[f]); /* exactly the tile's blocks */
      lit += on;
    }
  g_assert_cmpuint (lit, ==, blocks->len);
  cairo_surface_destroy (s);

  /* and back: a block clicked (the editor's block-activated) selects the
   * tile that holds it */
  activate (w, "select-tile", g_variant_new_int32 (-1));
  g_assert_cmpint (w->selected_tile, ==, -1);
  guint64 first = g_array_index (blocks, guint64, 0);
  g_signal_emit_by_name (e, "block-activated", first / mask->bcols,
                         first % mask->bcols);
  g_assert_cmpint (w->selected_tile, ==, tile);
  window_close (w);
  g_autofree char *spx = g_build_filename (dir, "small.spx", NULL);
  g_unlink (spx);
  g_rmdir (dir);
}

/* A real drag, as GDK delivers it: press, motions, release. */
static void
send_button (GtkWidget *widget, GdkEventType type, double x, double y)
{
  GdkEvent *ev = gdk_event_new (type);
  ev->button.window = g_object_ref (gtk_widget_get_window (widget));
  ev->button.x = x;
  ev->button.y = y;
  ev->button.button = GDK_BUTTON_PRIMARY;
  ev->button.time = GDK_CURRENT_TIME;
  ev->button.state = type == GDK_BUTTON_RELEASE ? GDK_BUTTON1_MASK : 0;
  gdk_event_set_device (ev, gdk_seat_get_pointer (
    gdk_display_get_default_seat (gtk_widget_get_display (widget))));
  gtk_widget_event (widget, ev);
  gdk_event_free (ev);
}

static void
send_motion (GtkWidget *widget, double x, double y)
{
  GdkEvent *ev = gdk_event_new (GDK_MOTION_NOTIFY);
  ev->motion.window = g_object_ref (gtk_widget_get_window (widget));
  ev->motion.x = x;
  ev->motion.y = y;
  ev->motion.state = GDK_BUTTON1_MASK;
  ev->motion.time = GDK_CURRENT_TIME;
  gdk_event_set_device (ev, gdk_seat_get_pointer (
    gdk_display_get_default_seat (gtk_widget_get_display (widget))));
  gtk_widget_event (widget, ev);
  gdk_event_free (ev);
}

static void
test_drag_undo (void)
{
  SKIP_WITHOUT_DISPLAY ();
  g_autofree char *dir = g_dir_make_tmp ("spx-ui-XXXXXX", NULL);
  SpxWindow *w = small_window (dir);
  SpxMaskEditor *e = SPX_MASK_EDITOR (w->editor);
  SpxMask *mask = spx_mask_editor_get_mask (e);
  guint64 n = spx_mask_n_blocks (mask);
  g_autofree double *cx = g_new (double, n), *cy = g_new (double, n);
  block_centres (e, mask, cx, cy);
  g_autoptr (SpxMask) before = spx_mask_copy (mask, NULL);
  /* drag along block-row 3 from column 1 to column 6 */
  send_button (w->editor, GDK_BUTTON_PRESS, cx[3 * 8 + 1], cy[3 * 8 + 1]);
  for (guint c = 2; c <= 6; c++)
    send_motion (w->editor, cx[3 * 8 + c], cy[3 * 8 + c]);
  send_button (w->editor, GDK_BUTTON_RELEASE, cx[3 * 8 + 6], cy[3 * 8 + 6]);
  wait_idle (w);
  mask = spx_mask_editor_get_mask (e);
  for (guint64 r = 0; r < 8; r++)
    for (guint64 c = 0; c < 8; c++)
      {
        gboolean dragged = r == 3 && c >= 1 && c <= 6;
        g_assert_cmpint (spx_mask_get (mask, r, c), ==,
                         dragged || spx_mask_get (before, r, c));
      }
  g_assert_true (spx_window_is_dirty (w));
  g_assert_nonnull (strstr (gtk_window_get_title (GTK_WINDOW (w)), "•"));
  g_assert_cmpuint (w->study->programs[0]->n, ==, 16); /* re-planned */

  /* the stroke is one step */
  activate (w, "undo", NULL);
  wait_idle (w);
  mask = spx_mask_editor_get_mask (e);
  g_assert_true (memcmp (mask->bits, before->bits, (n + 7) / 8) == 0);
  activate (w, "redo", NULL);
  wait_idle (w);
  mask = spx_mask_editor_get_mask (e);
  for (guint c = 1; c <= 6; c++)
    g_assert_true (spx_mask_get (mask, 3, c));

  /* the mask alone, as a file any loader reads back (a PNG too) */
  const char *const names[] = { "drawn.mtx", "drawn.png" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *file = g_build_filename (dir, names[i], NULL);
      activate (w, "save-mask-path", g_variant_new_string (file));
      g_assert_null (spx_window_get_error (w));
      g_autoptr (SpxMask) read = spx_mask_load (file, NULL, NULL);
      g_assert_nonnull (read);
      g_autoptr (SpxMask) reblocked = spx_mask_to_blocks (read, 8, NULL);
      g_assert_true (memcmp (reblocked->bits, mask->bits, (n + 7) / 8) == 0);
      g_unlink (file);
    }

  /* saved and reopened: the drawing comes back exactly */
  g_autofree char *saved = g_build_filename (dir, "drawn.spx", NULL);
  g_assert_true (_spx_window_save_to (w, saved));
  g_assert_false (spx_window_is_dirty (w));
  g_autoptr (SpxMask) drawn = spx_mask_copy (mask, NULL);
  window_close (w);
  SpxWindow *again = window_new ();
  activate (again, "open-path", g_variant_new_string (saved));
  wait_idle (again);
  SpxMask *back = spx_mask_editor_get_mask (SPX_MASK_EDITOR (again->editor));
  g_assert_cmpuint (back->rows, ==, 64);
  g_assert_true (memcmp (back->bits, drawn->bits, (n + 7) / 8) == 0);
  g_assert_cmpstr (again->study->machine->name, ==, "teach16");
  window_close (again);
  g_autofree char *small = g_build_filename (dir, "small.spx", NULL);
  g_unlink (small);
  g_unlink (saved);
  g_rmdir (dir);
}

/* Where the Timeline draws step of lane, by its own hit test: the
 * middle of the box's pixels. */
static gboolean
timeline_point (SpxWindow *w, guint lane, guint step, double *x, double *y)
{
  GtkWidget *v = VIEW (w, TIMELINE);
  int wd = gtk_widget_get_allocated_width (v);
  int ht = gtk_widget_get_allocated_height (v);
  double sx = 0, sy = 0;
  guint n = 0;
  for (int py = 0; py < ht; py += 2)
    for (int px = 0; px < wd; px++)
      {
        guint l = G_MAXUINT;
        if (spx_render_timeline_hit (wd, ht, TIMELINE_DATA (w), px + 0.5,
                                     py + 0.5, &l) == (gint) step &&
            l == lane)
          {
            sx += px + 0.5;
            sy += py + 0.5;
            n++;
          }
      }
  if (n == 0)
    return FALSE;
  *x = sx / n;
  *y = sy / n;
  return TRUE;
}

/* What the Timeline's panel shows for a step: its header, every term
 * with its formula and cycles, and terms that add up to the step. */
static void
assert_explained (SpxWindow *w, const SpxIpuProgram *p, guint step)
{
  const SpxIpuStep *s = &g_array_index (p->steps, SpxIpuStep, step);
  g_autofree char *text = spx_render_timeline_explain (TIMELINE_DATA (w));
  g_autofree char *c = spx_format_count (s->cycles);
  g_autofree char *name = spx_ipu_step_name (s);
  g_autofree char *head = g_strdup_printf ("Superstep %u: %s, %s cycles",
                                           step + 1, name, c);
  g_assert_true (g_str_has_prefix (text, head));
  g_assert_nonnull (s->terms);
  if (s->terms->len == 0) /* nothing to explain: nothing to add up */
    {
      g_assert_cmpuint (s->cycles, ==, 0);
      g_assert_true (g_str_has_suffix (text, "\nno breakdown of these cycles"));
      return;
    }
  if (s->kind != SPX_STEP_SYNC)
    {
      g_autofree char *tile = g_strdup_printf ("%s, tile %u", head,
                                               s->worst_tile);
      g_assert_true (g_str_has_prefix (text, tile));
    }
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  test_ipu_check_term_lines (lines, s);
}

static gboolean
surfaces_differ (cairo_surface_t *a, cairo_surface_t *b)
{
  int h = cairo_image_surface_get_height (a);
  return cairo_image_surface_get_height (b) != h ||
         memcmp (cairo_image_surface_get_data (a),
                 cairo_image_surface_get_data (b),
                 (gsize) cairo_image_surface_get_stride (a) * h) != 0;
}

/* A superstep clicked in the Timeline is explained under the bars, and
 * is the Exchange view's step when it is the shown program's; the
 * Exchange view's step is the Timeline's selection in turn. */
static void
test_timeline_explain (void)
{
  SKIP_WITHOUT_DISPLAY ();
  g_autofree char *dir = g_dir_make_tmp ("spx-ui-XXXXXX", NULL);
  SpxWindow *w = small_window (dir);
  /* n = 256: at 16 the dynamic program's per-call constant, on the axis
   * all lanes share, leaves static and dense steps a pixel or two */
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (PANEL (w, N)), 256);
  wait_idle (w);
  activate (w, "view", g_variant_new_string ("timeline"));
  wait_idle (w);
  wait_drawn (VIEW (w, TIMELINE));
  g_assert_cmpint (TIMELINE_DATA (w)->selected_superstep, ==, -1);
  g_autofree char *hint = spx_render_timeline_explain (TIMELINE_DATA (w));
  g_assert_cmpstr (hint, ==, "Click a superstep to see its cycles explained.");
  cairo_surface_t *before = snapshot (VIEW (w, TIMELINE));

  /* the shown program's compute superstep, clicked */
  guint mode = w->mode;
  const SpxIpuProgram *p = w->study->programs[mode];
  guint compute = G_MAXUINT;
  for (guint i = 0; i < p->steps->len && compute == G_MAXUINT; i++)
    if (g_array_index (p->steps, SpxIpuStep, i).kind == SPX_STEP_COMPUTE)
      compute = i;
  g_assert_cmpuint (compute, <, p->steps->len);
  double x = 0, y = 0;
  g_assert_true (timeline_point (w, mode, compute, &x, &y));
  send_button (VIEW (w, TIMELINE), GDK_BUTTON_PRESS, x, y);
  send_button (VIEW (w, TIMELINE), GDK_BUTTON_RELEASE, x, y);
  wait_idle (w);
  g_assert_cmpint (TIMELINE_DATA (w)->selected_superstep, ==, (gint) compute);
  g_assert_cmpint (TIMELINE_DATA (w)->selected_lane, ==, (gint) mode);
  assert_explained (w, p, compute);
  g_autofree char *shown = spx_render_timeline_explain (TIMELINE_DATA (w));
  g_test_message ("%s", shown);
  /* drawn: the picture changed, not only the data */
  cairo_surface_t *after = snapshot (VIEW (w, TIMELINE));
  g_assert_true (surfaces_differ (before, after));
  cairo_surface_destroy (after);
  /* shared with the Exchange view */
  g_assert_cmpint (gtk_spin_button_get_value_as_int (
                     GTK_SPIN_BUTTON (w->superstep)), ==, compute + 1);
  g_assert_cmpuint (EXCHANGE_DATA (w)->superstep, ==, compute);

  /* the Exchange view's step chosen: the Timeline follows */
  guint exchange = spx_ipu_program_first_exchange (p);
  g_assert_cmpuint (g_array_index (p->steps, SpxIpuStep, exchange).kind, ==,
                    SPX_STEP_EXCHANGE);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (w->superstep), exchange + 1);
  g_assert_cmpint (TIMELINE_DATA (w)->selected_superstep, ==, (gint) exchange);
  g_assert_cmpint (TIMELINE_DATA (w)->selected_lane, ==, (gint) mode);
  assert_explained (w, p, exchange);

  /* another program's step: the Exchange view keeps its own */
  guint other = (mode + 1) % SPX_IPU_N_MODES;
  const SpxIpuProgram *q = w->study->programs[other];
  guint last = q->steps->len - 1;
  activate (w, "select-superstep", g_variant_new ("(ii)", other, last));
  g_assert_cmpint (TIMELINE_DATA (w)->selected_lane, ==, (gint) other);
  assert_explained (w, q, last);
  g_assert_cmpuint (EXCHANGE_DATA (w)->superstep, ==, exchange);
  /* every step of every program adds up */
  for (guint m = 0; m < SPX_IPU_N_MODES; m++)
    for (guint i = 0; i < w->study->programs[m]->steps->len; i++)
      {
        activate (w, "select-superstep", g_variant_new ("(ii)", m, i));
        assert_explained (w, w->study->programs[m], i);
      }

  /* a click beside the bars clears it, and the hint is back */
  send_button (VIEW (w, TIMELINE), GDK_BUTTON_PRESS, 2, 2);
  send_button (VIEW (w, TIMELINE), GDK_BUTTON_RELEASE, 2, 2);
  wait_idle (w);
  g_assert_cmpint (TIMELINE_DATA (w)->selected_superstep, ==, -1);
  g_autofree char *again = spx_render_timeline_explain (TIMELINE_DATA (w));
  g_assert_cmpstr (again, ==, hint);
  after = snapshot (VIEW (w, TIMELINE));
  g_assert_false (surfaces_differ (before, after));
  cairo_surface_destroy (after);
  cairo_surface_destroy (before);

  /* a double click on another program's step opens it in Exchange,
   * that program shown */
  activate (w, "view", g_variant_new_string ("timeline"));
  wait_drawn (VIEW (w, TIMELINE));
  guint dense_exchange = spx_ipu_program_first_exchange (
    w->study->programs[SPX_IPU_MODE_DENSE]);
  g_assert_true (timeline_point (w, SPX_IPU_MODE_DENSE, dense_exchange, &x,
                                 &y));
  send_button (VIEW (w, TIMELINE), GDK_BUTTON_PRESS, x, y);
  send_button (VIEW (w, TIMELINE), GDK_2BUTTON_PRESS, x, y);
  send_button (VIEW (w, TIMELINE), GDK_BUTTON_RELEASE, x, y);
  wait_idle (w);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (GTK_STACK (w->stack)),
                   ==, "exchange");
  g_assert_cmpint (w->mode, ==, SPX_IPU_MODE_DENSE);
  g_assert_true (EXCHANGE_DATA (w)->program ==
                 w->study->programs[SPX_IPU_MODE_DENSE]);
  g_assert_cmpuint (EXCHANGE_DATA (w)->superstep, ==, dense_exchange);
  window_close (w);
  g_autofree char *spx = g_build_filename (dir, "small.spx", NULL);
  g_unlink (spx);
  g_rmdir (dir);
}

static void
assert_file_starts (const char *path, const char *magic)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (path, &text, &len, NULL));
  g_assert_cmpuint (len, >, 100);
  g_assert_nonnull (g_strstr_len (text, MIN (len, 200), magic));
}

/* The bar confirms a save: the path, and Open Folder for its folder. */
static void
assert_saved (SpxWindow *w, const char *path)
{
  g_autofree char *msg = g_strdup_printf ("Saved %s", path);
  g_autofree char *dir = g_path_get_dirname (path);
  g_assert_cmpstr (spx_window_get_error (w), ==, msg);
  g_assert_cmpint (gtk_info_bar_get_message_type (GTK_INFO_BAR (w->info_bar)),
                   ==, GTK_MESSAGE_INFO);
  g_assert_true (gtk_widget_get_visible (w->folder_button));
  g_assert_cmpstr (w->saved_folder, ==, dir);
}

/* A PNG's size in pixels. */
static void
png_size (const char *path, int *width, int *height)
{
  cairo_surface_t *s = cairo_image_surface_create_from_png (path);
  g_assert_cmpint (cairo_surface_status (s), ==, CAIRO_STATUS_SUCCESS);
  *width = cairo_image_surface_get_width (s);
  *height = cairo_image_surface_get_height (s);
  cairo_surface_destroy (s);
}

/* The export choices back to their defaults (the settings are the
 * process's, in memory). */
static void
reset_export_settings (void)
{
  GSettings *s = spx_settings_get ();
  const char *keys[] = { "export-folder", "export-png-size",
                         "export-png-width", "export-png-height",
                         "export-page", "export-page-width",
                         "export-page-height", "export-theme",
                         "export-noise-note" };
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    g_settings_reset (s, keys[i]);
}

static void
test_export (void)
{
  SKIP_WITHOUT_DISPLAY ();
  reset_export_settings ();
  SpxWindow *w = window_new ();
  g_autofree char *dir = g_dir_make_tmp ("spx-ui-XXXXXX", NULL);
  static const char *views[] = { "mask", "tiles", "timeline" };
  static const char *ext[] = { "png", "svg", "pdf" };
  static const char *magic[] = { "PNG", "<svg", "%PDF" };
  for (guint i = 0; i < G_N_ELEMENTS (views); i++)
    {
      activate (w, "view", g_variant_new_string (views[i]));
      wait_idle (w);
      g_autofree char *name = g_strdup_printf ("%s.%s", views[i], ext[i]);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      activate (w, "export-path", g_variant_new_string (path));
      assert_file_starts (path, magic[i]);
      assert_saved (w, path);
      g_unlink (path);
    }
  /* a place that cannot be written: the info bar says where */
  activate (w, "export-path",
            g_variant_new_string ("/nonexistent-dir/view.png"));
  g_assert_nonnull (spx_window_get_error (w));
  g_assert_nonnull (strstr (spx_window_get_error (w),
                            "/nonexistent-dir/view.png"));
  g_assert_false (gtk_widget_get_visible (w->folder_button));
  window_close (w);
  g_rmdir (dir);
}

/* A window showing the Tiles view, the export choices their defaults. */
static SpxWindow *
tiles_window (void)
{
  reset_export_settings ();
  SpxWindow *w = window_new ();
  activate (w, "view", g_variant_new_string ("tiles"));
  wait_idle (w);
  return w;
}

/* The remembered size and page: by default 1,600 × 1,000 pixels
 * whatever the window's size (before and after it is resized); 1× is
 * the view's size, 2× twice its pixels, custom exactly what was asked;
 * A4 is a landscape A4 page. */
static void
test_export_sizes (void)
{
  SKIP_WITHOUT_DISPLAY ();
  SpxWindow *w = tiles_window ();
  GSettings *s = spx_settings_get ();
  g_autofree char *dir = g_dir_make_tmp ("spx-ui-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "tiles.png", NULL);
  int w1, h1, w2, h2, wc, hc;
  for (guint i = 0; i < 2; i++)
    {
      if (i == 1)
        {
          gtk_window_resize (GTK_WINDOW (w), 1000, 700);
          wait_idle (w);
        }
      activate (w, "export-path", g_variant_new_string (path));
      png_size (path, &w1, &h1);
      g_assert_cmpint (w1, ==, 1600);
      g_assert_cmpint (h1, ==, 1000);
    }
  g_settings_set_string (s, "export-png-size", "1x");
  activate (w, "export-path", g_variant_new_string (path));
  png_size (path, &w1, &h1);
  GtkWidget *tiles = VIEW (w, TILES);
  g_assert_cmpint (w1, ==, MAX (gtk_widget_get_allocated_width (tiles), 640));
  /* as if the bar saying "Saved" were not above the view */
  g_assert_cmpint (h1, ==, MAX (gtk_widget_get_allocated_height (tiles) +
                                w->bar_taken, 400));
  g_settings_set_string (s, "export-png-size", "2x");
  activate (w, "export-path", g_variant_new_string (path));
  png_size (path, &w2, &h2);
  g_assert_cmpint (w2, ==, 2 * w1);
  g_assert_cmpint (h2, ==, 2 * h1);
  g_settings_set_string (s, "export-png-size", "custom");
  g_settings_set_uint (s, "export-png-width", 300);
  g_settings_set_uint (s, "export-png-height", 200);
  activate (w, "export-path", g_variant_new_string (path));
  png_size (path, &wc, &hc);
  g_assert_cmpint (wc, ==, 300);
  g_assert_cmpint (hc, ==, 200);
  g_unlink (path);
  /* A4 landscape: 297 × 210 mm in points */
  g_settings_set_string (s, "export-page", "a4");
  g_autofree char *pdf = g_build_filename (dir, "tiles.pdf", NULL);
  activate (w, "export-path", g_variant_new_string (pdf));
  g_autofree char *text = NULL;
  gsize len;
  g_assert_true (g_file_get_contents (pdf, &text, &len, NULL));
  const char *box = "/MediaBox [ 0 0 841.889764 595.275591 ]";
  g_assert_nonnull (memmem (text, len, box, strlen (box)));
  g_unlink (pdf);
  window_close (w);
  g_rmdir (dir);
  reset_export_settings ();
}

/* Iterates until the info bar is laid out whole above view (its height
 * taken from view's h0), at most 5 s. */
static void
wait_for_bar (SpxWindow *w, GtkWidget *view, int h0)
{
  gint64 end = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  while (g_get_monotonic_time () < end &&
         !(gtk_widget_get_allocated_height (w->info_bar) > 1 &&
           gtk_widget_get_allocated_height (view) ==
             h0 - gtk_widget_get_allocated_height (w->info_bar)))
    g_main_context_iteration (NULL, FALSE);
}

/* "The view's size" is the same with a message above the view (which
 * takes its height from the view) as without: PNG and SVG alike. */
static void
test_export_with_bar (void)
{
  SKIP_WITHOUT_DISPLAY ();
  SpxWindow *w = tiles_window ();
  g_settings_set_string (spx_settings_get (), "export-png-size", "1x");
  g_settings_set_string (spx_settings_get (), "export-page", "view");
  GtkWidget *tiles = VIEW (w, TILES);
  g_assert_false (gtk_widget_get_visible (w->info_bar));
  gint64 end = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  while (gtk_widget_get_allocated_height (tiles) <= 1 &&
         g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, FALSE); /* the first layout */
  int h0 = gtk_widget_get_allocated_height (tiles);
  g_assert_cmpint (h0, >, 400); /* else the size is the floor, not the view */
  g_autofree char *dir = g_dir_make_tmp ("spx-ui-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "tiles.png", NULL);
  g_autofree char *svg = g_build_filename (dir, "tiles.svg", NULL);
  int w1, h1, w2, h2;
  activate (w, "export-path", g_variant_new_string (path));
  png_size (path, &w1, &h1);
  g_assert_cmpint (h1, ==, h0);
  /* "Saved …" shows above the views, which shrink */
  g_assert_true (gtk_widget_get_visible (w->info_bar));
  wait_for_bar (w, tiles, h0);
  g_assert_cmpint (gtk_widget_get_allocated_height (tiles), <, h0);
  activate (w, "export-path", g_variant_new_string (path));
  png_size (path, &w2, &h2);
  g_assert_cmpint (w2, ==, w1);
  g_assert_cmpint (h2, ==, h1);
  activate (w, "export-path", g_variant_new_string (svg));
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (svg, &text, NULL, NULL));
  g_autofree char *size = g_strdup_printf ("width=\"%d\" height=\"%d\"",
                                           w1, h1);
  g_assert_nonnull (strstr (text, size));
  g_unlink (path);
  g_unlink (svg);
  window_close (w);
  g_rmdir (dir);
  reset_export_settings ();
}

/* The exported picture's background: the theme chosen, whatever the
 * window's; "shown" the window's. */
static void
test_export_theme (void)
{
  SKIP_WITHOUT_DISPLAY ();
  SpxWindow *w = tiles_window ();
  GSettings *s = spx_settings_get ();
  g_autofree char *dir = g_dir_make_tmp ("spx-ui-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "tiles.png", NULL);
  static const struct { const char *choice; gint theme; } cases[] = {
    { "light", SPX_THEME_LIGHT }, { "dark", SPX_THEME_DARK },
    { "shown", -1 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_settings_set_string (s, "export-theme", cases[i].choice);
      activate (w, "export-path", g_variant_new_string (path));
      SpxRenderStyle want;
      spx_render_style_init (&want, cases[i].theme >= 0
                                      ? (SpxTheme) cases[i].theme
                                      : _spx_window_theme (w));
      cairo_surface_t *png = cairo_image_surface_create_from_png (path);
      g_assert_cmpint (cairo_surface_status (png), ==, CAIRO_STATUS_SUCCESS);
      guint32 px = *(const guint32 *) cairo_image_surface_get_data (png);
      g_assert_cmpuint ((px >> 16) & 0xff, ==,
                        (guint) round (want.background.r * 255));
      g_assert_cmpuint ((px >> 8) & 0xff, ==,
                        (guint) round (want.background.g * 255));
      g_assert_cmpuint (px & 0xff, ==,
                        (guint) round (want.background.b * 255));
      cairo_surface_destroy (png);
    }
  /* light and dark really differ */
  SpxRenderStyle light, dark;
  spx_render_style_init (&light, SPX_THEME_LIGHT);
  spx_render_style_init (&dark, SPX_THEME_DARK);
  g_assert_cmpfloat (fabs (light.background.r - dark.background.r), >, 0.5);
  g_unlink (path);
  window_close (w);
  g_rmdir (dir);
  reset_export_settings ();
}

/* A write that fails at the end (the name is taken by a folder): the
 * error names the user's path and no file, whole or partial, is left
 * beside it. */
static void
test_export_fails (void)
{
  SKIP_WITHOUT_DISPLAY ();
  reset_export_settings ();
  SpxWindow *w = window_new ();
  g_autofree char *dir = g_dir_make_tmp ("spx-ui-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "view.png", NULL);
  g_assert_cmpint (g_mkdir (path, 0700), ==, 0);
  activate (w, "export-path", g_variant_new_string (path));
  g_assert_nonnull (spx_window_get_error (w));
  g_assert_nonnull (strstr (spx_window_get_error (w), path));
  g_assert_null (strstr (spx_window_get_error (w), "Saved"));
  g_assert_false (gtk_widget_get_visible (w->folder_button));
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_assert_cmpstr (g_dir_read_name (d), ==, "view.png");
  g_assert_null (g_dir_read_name (d));
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_DIR));
  window_close (w);
  g_rmdir (path);
  g_rmdir (dir);
}

/* The dialog, driven as a user would: it starts in the remembered
 * folder, 2× is chosen, a name without an extension gets the filter's;
 * the file is written at twice the pixels and its folder remembered. */
static GtkWidget *
find_named (GtkWidget *root, const char *name)
{
  if (g_strcmp0 (gtk_widget_get_name (root), name) == 0)
    return root;
  GtkWidget *found = NULL;
  if (GTK_IS_CONTAINER (root))
    {
      GList *children = gtk_container_get_children (GTK_CONTAINER (root));
      for (GList *l = children; l != NULL && found == NULL; l = l->next)
        found = find_named (l->data, name);
      g_list_free (children);
    }
  return found;
}

typedef struct {
  char *expect_folder; /* where the dialog must start */
  char *go_to;         /* the folder chosen in it */
  char *name;          /* typed into it */
  gboolean answered;
  gboolean cancel;     /* Cancel instead of Export */
  const char *title;   /* typed into its Title, or NULL */
} DialogScript;

static gboolean
drive_export_dialog (gpointer data)
{
  DialogScript *script = data;
  GList *tops = gtk_window_list_toplevels ();
  GtkWidget *dialog = NULL;
  for (GList *l = tops; l != NULL; l = l->next)
    if (GTK_IS_FILE_CHOOSER_DIALOG (l->data) &&
        gtk_widget_get_visible (l->data))
      dialog = l->data;
  g_list_free (tops);
  if (dialog == NULL)
    return G_SOURCE_CONTINUE;
  GtkFileChooser *chooser = GTK_FILE_CHOOSER (dialog);
  g_autofree char *folder = gtk_file_chooser_get_current_folder (chooser);
  if (folder == NULL)
    return G_SOURCE_CONTINUE; /* still loading it */
  g_assert_cmpstr (folder, ==, script->expect_folder);
  GtkWidget *png = find_named (gtk_file_chooser_get_extra_widget (chooser),
                               "png-size");
  g_assert_nonnull (png);
  /* every view's title can be set, Tiles' too */
  GtkWidget *title = find_named (gtk_file_chooser_get_extra_widget (chooser),
                                 "title");
  g_assert_true (GTK_IS_ENTRY (title));
  g_assert_true (gtk_widget_get_sensitive (title));
  if (script->title != NULL)
    gtk_entry_set_text (GTK_ENTRY (title), script->title);
  gtk_combo_box_set_active_id (GTK_COMBO_BOX (png), "2x");
  gtk_file_chooser_set_current_folder (chooser, script->go_to);
  gtk_file_chooser_set_current_name (chooser, script->name);
  script->answered = TRUE;
  gtk_dialog_response (GTK_DIALOG (dialog), script->cancel
                                              ? GTK_RESPONSE_CANCEL
                                              : GTK_RESPONSE_ACCEPT);
  return G_SOURCE_REMOVE;
}

/* Run the dialog once with script; the path it wrote. */
static char *
export_with_dialog (SpxWindow *w, DialogScript *script)
{
  script->answered = FALSE;
  guint id = g_timeout_add (50, drive_export_dialog, script);
  activate (w, "export", NULL);
  if (!script->answered)
    g_source_remove (id);
  g_assert_true (script->answered);
  g_autofree char *with_ext = g_strconcat (script->name, ".png", NULL);
  return g_build_filename (script->go_to, with_ext, NULL);
}

static void
test_export_dialog (void)
{
  SKIP_WITHOUT_DISPLAY ();
  reset_export_settings ();
  GSettings *s = spx_settings_get ();
  g_autofree char *first = g_dir_make_tmp ("spx-ui-XXXXXX", NULL);
  g_autofree char *second = g_dir_make_tmp ("spx-ui-XXXXXX", NULL);
  g_settings_set_string (s, "export-folder", first);
  SpxWindow *w = window_new ();
  activate (w, "view", g_variant_new_string ("tiles"));
  wait_idle (w);
  /* 2× chosen, then Cancel: nothing written, nothing remembered */
  DialogScript cancelled = { first, second, "cancelled", FALSE, TRUE,
                             NULL };
  g_autofree char *not_written = export_with_dialog (w, &cancelled);
  g_assert_false (g_file_test (not_written, G_FILE_TEST_EXISTS));
  g_assert_cmpint (g_settings_get_enum (s, "export-png-size"), ==,
                   SPX_PNG_1600);
  g_autofree char *kept = g_settings_get_string (s, "export-folder");
  g_assert_cmpstr (kept, ==, first);
  DialogScript script = { first, second, "tiles-2x", FALSE, FALSE, NULL };
  g_autofree char *path = export_with_dialog (w, &script);
  int width, height;
  png_size (path, &width, &height);
  GtkWidget *tiles = VIEW (w, TILES);
  g_assert_cmpint (width, ==,
                   2 * MAX (gtk_widget_get_allocated_width (tiles), 640));
  g_assert_cmpint (height, ==,
                   2 * MAX (gtk_widget_get_allocated_height (tiles), 400));
  assert_saved (w, path);
  g_assert_cmpint (g_settings_get_enum (s, "export-png-size"), ==,
                   SPX_PNG_2X);
  g_autofree char *remembered = g_settings_get_string (s, "export-folder");
  g_assert_cmpstr (remembered, ==, second);
  /* the next dialog starts where the last file went; its title drawn
   * in place of Tiles' own, the picture otherwise the same size */
  DialogScript again = { second, second, "again", FALSE, FALSE, "Tiles" };
  g_autofree char *path2 = export_with_dialog (w, &again);
  g_autofree char *plain = NULL, *titled = NULL;
  gsize plain_len, titled_len;
  g_assert_true (g_file_get_contents (path, &plain, &plain_len, NULL));
  g_assert_true (g_file_get_contents (path2, &titled, &titled_len, NULL));
  g_assert_false (plain_len == titled_len &&
                  memcmp (plain, titled, plain_len) == 0);
  png_size (path2, &width, &height);
  g_assert_cmpint (width, ==,
                   2 * MAX (gtk_widget_get_allocated_width (tiles), 640));
  /* its folder gone, Open Folder says so in the bar (no file manager
   * needed, nothing fatal) */
  g_unlink (path);
  g_unlink (path2);
  g_rmdir (second);
  gtk_button_clicked (GTK_BUTTON (w->folder_button));
  g_assert_nonnull (spx_window_get_error (w));
  g_assert_nonnull (strstr (spx_window_get_error (w), "Cannot open the "
                                                      "folder"));
  g_assert_nonnull (strstr (spx_window_get_error (w), second));
  window_close (w);
  g_rmdir (first);
  reset_export_settings ();
}

/* Opens path and sweeps it to the end. */
static void
open_and_sweep (SpxWindow *w, const char *path)
{
  activate (w, "open-path", g_variant_new_string (path));
  wait_idle (w);
  g_assert_true (g_str_has_suffix (w->study->scenario->mask_path,
                                   strrchr (path, '/')));
  activate (w, "run-sweep", NULL);
  wait_idle (w);
  g_assert_cmpuint (w->study->sweep->points->len, ==,
                    spx_sweep_total (&w->study->sweep->settings));
}

/* Two layers side by side: the first one's sweep is kept when the
 * second is opened and swept, can be drawn under it with a legend entry
 * each on the five block sizes' axis, and both export together. */
static void
test_compare (void)
{
  SKIP_WITHOUT_DISPLAY ();
  g_autofree char *dir = g_dir_make_tmp ("spx-ui-XXXXXX", NULL);
  SpxWindow *w = window_new ();
  g_assert_false (gtk_widget_get_visible (w->compare));
  open_and_sweep (w, g_test_get_filename (G_TEST_DIST, "data",
                                          "rn50-magnitude_pruning-0.9-"
                                          "initial_conv.smtx", NULL));
  g_assert_false (gtk_widget_get_visible (w->compare)); /* only itself */
  open_and_sweep (w, g_test_get_filename (G_TEST_DIST, "data",
                                          "transformer-magnitude_pruning-"
                                          "0.98-attention_q.smtx", NULL));
  g_assert_cmpuint (spx_study_history_n (w->study), ==, 2);
  g_assert_true (gtk_widget_get_visible (w->compare));
  g_assert_null (SPEEDUP_DATA (w)->overlay);
  /* "none", and the first layer's sweep */
  GtkTreeModel *items = gtk_combo_box_get_model (GTK_COMBO_BOX (w->compare));
  g_assert_cmpint (gtk_tree_model_iter_n_children (items, NULL), ==, 2);
  g_assert_true (gtk_combo_box_set_active_id (GTK_COMBO_BOX (w->compare),
                                              "0"));
  const SpxRenderSpeedupData *d = SPEEDUP_DATA (w);
  g_assert_true (d->overlay == spx_study_history_get (w->study, 0));
  g_assert_nonnull (strstr (w->overlay_label, "initial_conv"));
  g_auto (GStrv) legend = spx_render_speedup_sweep_labels (d);
  g_assert_cmpuint (g_strv_length (legend), ==, 2);
  g_assert_nonnull (strstr (legend[0], "ntion_q")); /* cut in the middle */
  g_assert_nonnull (strstr (legend[1], "al_conv"));
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24,
                                                         1, 1);
  cairo_t *cr = cairo_create (surface);
  g_autofree double *xs = NULL;
  g_auto (GStrv) ticks = spx_render_speedup_x_labels (cr, 800, 500, d,
                                                      &style, &xs);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  g_assert_cmpuint (g_strv_length (ticks), ==, 5); /* 1, 2, 4, 8, 16 */
  g_assert_true (g_str_has_prefix (ticks[0], "1\n"));
  g_assert_true (g_str_has_prefix (ticks[4], "16\n"));
  /* the export carries both, each row saying whose it is */
  g_autofree char *csv = g_build_filename (dir, "both.csv", NULL);
  activate (w, "export-sweep-path", g_variant_new_string (csv));
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (csv, &text, NULL, NULL));
  g_auto (GStrv) lines = g_strsplit (g_strstrip (text), "\n", -1);
  g_assert_cmpstr (lines[0], ==, "sweep," SPX_SWEEP_CSV_HEADER);
  guint current = 0, earlier = 0;
  for (guint i = 1; lines[i] != NULL; i++)
    {
      current += g_str_has_prefix (lines[i], "current,");
      earlier += g_str_has_prefix (lines[i], "overlay,");
    }
  g_assert_cmpuint (current, ==, w->study->sweep->points->len);
  g_assert_cmpuint (earlier, ==, d->overlay->points->len);
  /* and the picture draws both */
  g_autofree char *png = g_build_filename (dir, "both.png", NULL);
  activate (w, "view", g_variant_new_string ("speedup"));
  activate (w, "export-path", g_variant_new_string (png));
  g_assert_true (g_file_test (png, G_FILE_TEST_IS_REGULAR));
  /* none again: the chart and the export are the current sweep's alone */
  g_assert_true (gtk_combo_box_set_active_id (GTK_COMBO_BOX (w->compare),
                                              "-1"));
  g_assert_null (SPEEDUP_DATA (w)->overlay);
  window_close (w);
  g_unlink (csv);
  g_rmdir (dir);
}

static void
test_sweep_cancel (void)
{
  SKIP_WITHOUT_DISPLAY ();
  /* the default scenario: its points take long enough to stop midway */
  g_autofree char *dir = g_dir_make_tmp ("spx-ui-XXXXXX", NULL);
  SpxWindow *w = window_new ();
  activate (w, "run-sweep", NULL);
  g_assert_true (spx_window_is_busy (w));
  g_assert_true (gtk_widget_get_visible (w->cancel));
  /* let a few points arrive, then cancel */
  gint64 end = g_get_monotonic_time () + WAIT_S * G_USEC_PER_SEC;
  while (w->study->sweep->points->len < 3 && g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (w->study->sweep->points->len, >=, 3);
  activate (w, "cancel", NULL);
  wait_idle (w);
  guint got = w->study->sweep->points->len;
  g_assert_cmpuint (got, <, spx_sweep_total (&w->study->sweep->settings));
  g_assert_false (gtk_widget_get_visible (w->cancel));
  /* the chart knows it is partial (not running) and up to date */
  g_assert_false (SPEEDUP_DATA (w)->running);
  g_assert_false (SPEEDUP_DATA (w)->stale);
  /* the points done are on the chart and export as CSV */
  g_autofree char *csv = g_build_filename (dir, "sweep.csv", NULL);
  activate (w, "export-sweep-path", g_variant_new_string (csv));
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (csv, &text, NULL, NULL));
  g_auto (GStrv) lines = g_strsplit (g_strstrip (text), "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, got + 1);
  /* a new n: the points no longer describe the problem */
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (PANEL (w, N)), 512);
  wait_idle (w);
  g_assert_true (SPEEDUP_DATA (w)->stale);
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (w->verdict)),
                            "Run Sweep"));
  window_close (w);
  g_unlink (csv);
  g_rmdir (dir);
}

/* Run Sweep while the subject is still being made (a file opened, as
 * `--sweep FILE` does): the sweep waits for it and studies it. */
static void
test_sweep_waits (void)
{
  SKIP_WITHOUT_DISPLAY ();
  SpxWindow *w = window_new ();
  g_autofree char *path = data_path (DLMC_LAYER);
  activate (w, "open-path", g_variant_new_string (path));
  g_assert_nonnull (w->plan_job);
  activate (w, "run-sweep", NULL);
  g_assert_null (w->sweep_job); /* not yet */
  gint64 end = g_get_monotonic_time () + WAIT_S * G_USEC_PER_SEC;
  while (w->sweep_job == NULL && g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, TRUE);
  const SpxSweepOptions *o = &w->study->sweep->settings;
  g_assert_nonnull (o->subject);
  g_assert_cmpstr (o->subject_name, ==, DLMC_LAYER);
  g_assert_cmpuint (o->cpu_m, ==, 512);
  activate (w, "cancel", NULL);
  wait_idle (w);
  window_close (w);
}

/* A scenario too big to make quickly: Escape stops it, and a window left
 * without a mask makes its scenario's instead of staying empty. */
static void
test_cancel_making (void)
{
  SKIP_WITHOUT_DISPLAY ();
  g_autofree char *dir = g_dir_make_tmp ("spx-ui-XXXXXX", NULL);
  g_autofree char *spx = g_build_filename (dir, "big.spx", NULL);
  g_assert_true (g_file_set_contents (spx,
    "[scenario]\nversion=1\nm=65536\nk=65536\nn=16\nblock=1\n"
    "[mask]\npattern=uniform\ndensity=0.25\n", -1, NULL));
  SpxWindow *w = spx_window_new (app);
  gtk_widget_show (GTK_WIDGET (w));
  g_autoptr (GFile) file = g_file_new_for_path (spx);
  spx_window_open_file (w, file, TRUE); /* before the first mask came */
  g_usleep (G_USEC_PER_SEC / 5);
  activate (w, "cancel", NULL);
  wait_idle (w);
  SpxMask *mask = spx_mask_editor_get_mask (SPX_MASK_EDITOR (w->editor));
  g_assert_nonnull (mask);
  g_assert_cmpuint (mask->rows, ==, 4096); /* the default scenario's */
  assert_filled (w, mask);
  window_close (w);

  /* a first file that cannot be read: the scenario's mask, and why */
  w = spx_window_new (app);
  gtk_widget_show (GTK_WIDGET (w));
  g_autoptr (GFile) missing = g_file_new_for_path ("/nonexistent/m.smtx");
  spx_window_open_file (w, missing, TRUE);
  wait_idle (w);
  g_assert_nonnull (spx_mask_editor_get_mask (SPX_MASK_EDITOR (w->editor)));
  g_assert_nonnull (spx_window_get_error (w));
  g_assert_nonnull (strstr (spx_window_get_error (w), "/nonexistent/m.smtx"));
  window_close (w);
  g_unlink (spx);
  g_rmdir (dir);
}

/* The side panel: every change re-plans; what-if machine edits move the
 * model and make the machine "custom". */
static void
test_panel (void)
{
  SKIP_WITHOUT_DISPLAY ();
  g_autofree char *dir = g_dir_make_tmp ("spx-ui-XXXXXX", NULL);
  SpxWindow *w = small_window (dir);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (PANEL (w, N)), 32);
  wait_idle (w);
  for (guint mode = 0; mode < SPX_IPU_N_MODES; mode++)
    g_assert_cmpuint (w->study->programs[mode]->n, ==, 32);
  guint64 cycles = w->study->programs[SPX_IPU_MODE_DENSE]->cycles;
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (PANEL (w, TILES)), 4);
  wait_idle (w);
  g_assert_cmpuint (w->study->programs[0]->n_tiles, ==, 4);
  g_assert_cmpstr (w->study->machine->name, ==, "custom");
  g_assert_cmpuint (w->study->programs[SPX_IPU_MODE_DENSE]->cycles, >, cycles);
  g_assert_true (spx_window_is_dirty (w));
  /* a new density generates a new mask of that density */
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (PANEL (w, DENSITY)), 0.5);
  wait_idle (w);
  SpxMask *mask = spx_mask_editor_get_mask (SPX_MASK_EDITOR (w->editor));
  g_assert_cmpuint (spx_mask_count (mask), ==, 32);
  /* the custom machine is saved beside the scenario and comes back */
  g_autofree char *saved = g_build_filename (dir, "what-if.spx", NULL);
  g_assert_true (_spx_window_save_to (w, saved));
  window_close (w);
  SpxWindow *again = window_new ();
  activate (again, "open-path", g_variant_new_string (saved));
  wait_idle (again);
  g_assert_null (spx_window_get_error (again));
  g_assert_cmpuint (again->study->machine->tiles, ==, 4);
  g_assert_cmpuint (again->study->programs[0]->n_tiles, ==, 4);
  window_close (again);
  g_autofree char *machine = g_build_filename (dir, "what-if.machine", NULL);
  g_autofree char *small = g_build_filename (dir, "small.spx", NULL);
  g_assert_true (g_file_test (machine, G_FILE_TEST_EXISTS));
  g_unlink (machine);
  g_unlink (saved);
  g_unlink (small);
  g_rmdir (dir);
}

/* Whether combo lists an entry id, and the text of the one shown. */
static gboolean
combo_lists (GtkWidget *combo, const char *id)
{
  GtkTreeModel *model = gtk_combo_box_get_model (GTK_COMBO_BOX (combo));
  gint column = gtk_combo_box_get_id_column (GTK_COMBO_BOX (combo));
  GtkTreeIter it;
  gboolean more = gtk_tree_model_get_iter_first (model, &it);
  for (; more; more = gtk_tree_model_iter_next (model, &it))
    {
      g_autofree char *row = NULL;
      gtk_tree_model_get (model, &it, column, &row, -1);
      if (g_strcmp0 (row, id) == 0)
        return TRUE;
    }
  return FALSE;
}

static char *
combo_text (GtkWidget *combo)
{
  return gtk_combo_box_text_get_active_text (GTK_COMBO_BOX_TEXT (combo));
}

/* The machine list holds an edited machine only while the study has
 * one: not in a fresh window, not after a .spx with a preset. */
static void
test_panel_machine_origin (void)
{
  SKIP_WITHOUT_DISPLAY ();
  SpxWindow *fresh = window_new ();
  g_assert_false (combo_lists (PANEL (fresh, MACHINE), "custom"));
  g_autofree char *bow = combo_text (PANEL (fresh, MACHINE));
  g_assert_cmpstr (bow, ==, "bow");
  window_close (fresh);

  g_autofree char *dir = g_dir_make_tmp ("spx-ui-XXXXXX", NULL);
  SpxWindow *w = small_window (dir);
  g_assert_false (combo_lists (PANEL (w, MACHINE), "custom"));
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (PANEL (w, TILES)), 4);
  wait_idle (w);
  g_autofree char *edited = combo_text (PANEL (w, MACHINE));
  g_assert_cmpstr (edited, ==, "custom (edited)");
  g_autofree char *saved = g_build_filename (dir, "what-if.spx", NULL);
  g_assert_true (_spx_window_save_to (w, saved));
  /* the scenario with teach16, opened over the edited one */
  g_autofree char *small = g_build_filename (dir, "small.spx", NULL);
  activate (w, "open-path", g_variant_new_string (small));
  wait_idle (w);
  g_assert_null (spx_window_get_error (w));
  g_assert_false (combo_lists (PANEL (w, MACHINE), "custom"));
  g_autofree char *teach = combo_text (PANEL (w, MACHINE));
  g_assert_cmpstr (teach, ==, "teach16");
  /* the edited one again: its machine file, named */
  activate (w, "open-path", g_variant_new_string (saved));
  wait_idle (w);
  g_autofree char *file = combo_text (PANEL (w, MACHINE));
  g_assert_cmpstr (file, ==, "custom (from what-if.machine)");
  window_close (w);
  fresh = window_new ();
  g_assert_false (combo_lists (PANEL (fresh, MACHINE), "custom"));
  window_close (fresh);
  g_autofree char *machine = g_build_filename (dir, "what-if.machine", NULL);
  g_unlink (machine);
  g_unlink (saved);
  g_unlink (small);
  g_rmdir (dir);
}

/* Pattern and seed say what made the mask: a file's and a drawing's
 * have no pattern or seed; choosing a pattern generates one again. */
static void
test_panel_mask_origin (void)
{
  SKIP_WITHOUT_DISPLAY ();
  g_autofree char *dir = g_dir_make_tmp ("spx-ui-XXXXXX", NULL);
  SpxWindow *w = small_window (dir);
  g_autofree char *generated = combo_text (PANEL (w, PATTERN));
  g_assert_cmpstr (generated, ==, "uniform");
  g_assert_true (gtk_widget_get_sensitive (PANEL (w, SEED)));
  /* a mask file: 64 × 64, two non-zeros */
  g_autofree char *mtx = g_build_filename (dir, "two.mtx", NULL);
  g_assert_true (g_file_set_contents (
    mtx, "%%MatrixMarket matrix coordinate pattern general\n"
    "64 64 2\n1 1\n40 33\n", -1, NULL));
  activate (w, "open-path", g_variant_new_string (mtx));
  wait_idle (w);
  g_assert_null (spx_window_get_error (w));
  g_assert_cmpint (w->study->scenario->source, ==, SPX_MASK_SOURCE_FILE);
  g_autofree char *from = combo_text (PANEL (w, PATTERN));
  g_assert_cmpstr (from, ==, "from file two.mtx");
  g_assert_false (gtk_widget_get_sensitive (PANEL (w, SEED)));
  /* drawn on: a drawing */
  SpxMaskEditor *e = SPX_MASK_EDITOR (w->editor);
  SpxMask *mask = spx_mask_editor_get_mask (e);
  guint64 n = spx_mask_n_blocks (mask);
  g_autofree double *cx = g_new (double, n), *cy = g_new (double, n);
  block_centres (e, mask, cx, cy);
  send_button (w->editor, GDK_BUTTON_PRESS, cx[n / 2], cy[n / 2]);
  send_button (w->editor, GDK_BUTTON_RELEASE, cx[n / 2], cy[n / 2]);
  wait_idle (w);
  g_assert_cmpint (w->study->scenario->source, ==, SPX_MASK_SOURCE_DRAWN);
  g_autofree char *drawn = combo_text (PANEL (w, PATTERN));
  g_assert_cmpstr (drawn, ==, "drawn");
  g_assert_false (gtk_widget_get_sensitive (PANEL (w, SEED)));
  /* a pattern chosen replaces the drawing (asked first), even the one
   * the generator had before */
  g_assert_cmpint (w->study->scenario->gen.pattern, ==, SPX_PATTERN_UNIFORM);
  answer_next_dialog (GTK_RESPONSE_ACCEPT);
  gtk_combo_box_set_active_id (GTK_COMBO_BOX (PANEL (w, PATTERN)), "uniform");
  wait_idle (w);
  g_assert_cmpint (w->study->scenario->source, ==,
                   SPX_MASK_SOURCE_GENERATED);
  g_autofree char *uniform = combo_text (PANEL (w, PATTERN));
  g_assert_cmpstr (uniform, ==, "uniform");
  g_assert_false (combo_lists (PANEL (w, PATTERN), "origin"));
  g_assert_true (gtk_widget_get_sensitive (PANEL (w, SEED)));
  window_close (w);
  g_autofree char *small = g_build_filename (dir, "small.spx", NULL);
  g_unlink (mtx);
  g_unlink (small);
  g_rmdir (dir);
}

/* Where widget sits in the window. */
static int
window_y (SpxWindow *w, GtkWidget *widget)
{
  int x = 0, y = 0;
  g_assert_true (gtk_widget_translate_coordinates (widget, GTK_WIDGET (w), 0,
                                                   0, &x, &y));
  return y;
}

/* teach16 with the default problem does not fit: the bar says so above
 * the views (the panel stays where it was) and offers a size that fits,
 * which is then one undo step. */
static void
test_fit_size (void)
{
  SKIP_WITHOUT_DISPLAY ();
  SpxWindow *w = window_new ();
  int m_y = window_y (w, PANEL (w, M));
  int density_y = window_y (w, PANEL (w, DENSITY));
  gtk_combo_box_set_active_id (GTK_COMBO_BOX (PANEL (w, MACHINE)), "teach16");
  wait_idle (w);
  g_assert_nonnull (strstr (spx_window_get_error (w), "does not fit teach16"));
  g_assert_true (gtk_widget_get_visible (w->info_bar));
  g_assert_true (gtk_widget_get_visible (w->fit_button));
  while (g_main_context_pending (NULL)) /* the new allocation */
    g_main_context_iteration (NULL, FALSE);
  g_assert_cmpint (window_y (w, PANEL (w, M)), ==, m_y);
  g_assert_cmpint (window_y (w, PANEL (w, DENSITY)), ==, density_y);

  gtk_button_clicked (GTK_BUTTON (w->fit_button));
  wait_idle (w);
  g_assert_null (spx_window_get_error (w));
  const SpxScenario *sc = w->study->scenario;
  g_assert_cmpuint (sc->m, <, 4096);
  g_assert_cmpuint (sc->k, ==, sc->m);
  for (guint mode = 0; mode < SPX_IPU_N_MODES; mode++)
    g_assert_true (w->study->programs[mode]->fits);
  g_assert_cmpint (gtk_spin_button_get_value_as_int (
                     GTK_SPIN_BUTTON (PANEL (w, M))), ==, (int) sc->m);
  g_assert_cmpint (gtk_spin_button_get_value_as_int (
                     GTK_SPIN_BUTTON (PANEL (w, N))), ==, (int) sc->n);
  activate (w, "undo", NULL);
  wait_idle (w);
  g_assert_cmpuint (w->study->scenario->m, ==, 4096);

  /* a mask from a file keeps its shape: no offer */
  activate (w, "open-path", g_variant_new_string (g_test_get_filename (
              G_TEST_DIST, "data",
              "transformer-magnitude_pruning-0.98-attention_q.smtx", NULL)));
  wait_idle (w);
  g_assert_nonnull (strstr (spx_window_get_error (w), "does not fit"));
  g_assert_false (gtk_widget_get_visible (w->fit_button));
  window_close (w);
}

/* The window's stack holds the table's views in its order, titled as
 * the table says, each shown by win.view::NAME, then the Layers page
 * (hidden until a network is opened); the shortcuts window's Alt+1…N
 * line names them in that order (the application binds Alt+i to the
 * i-th). */
static void
test_views (void)
{
  SKIP_WITHOUT_DISPLAY ();
  SpxWindow *w = window_new ();
  GList *pages = gtk_container_get_children (GTK_CONTAINER (w->stack));
  g_assert_cmpuint (g_list_length (pages), ==, SPX_RENDER_N_VIEWS + 1);
  g_autoptr (GPtrArray) titles = g_ptr_array_new_with_free_func (g_free);
  guint i = 0;
  for (GList *l = pages; l != NULL && i < SPX_RENDER_N_VIEWS;
       l = l->next, i++)
    {
      const SpxRenderView *v = spx_render_views[i];
      g_autofree char *name = NULL;
      char *title = NULL;
      gtk_container_child_get (GTK_CONTAINER (w->stack), l->data, "name",
                               &name, "title", &title, NULL);
      g_ptr_array_add (titles, title);
      g_assert_cmpstr (name, ==, v->name);
      g_assert_cmpstr (title, ==, v->title);
      g_assert_nonnull (w->views[i]);
      activate (w, "view", g_variant_new_string (v->name));
      g_assert_cmpstr (gtk_stack_get_visible_child_name (
                         GTK_STACK (w->stack)), ==, v->name);
    }
  g_autofree char *layers = NULL;
  char *layers_title = NULL;
  GtkWidget *last = g_list_last (pages)->data;
  gtk_container_child_get (GTK_CONTAINER (w->stack), last, "name", &layers,
                           "title", &layers_title, NULL);
  g_ptr_array_add (titles, layers_title);
  g_assert_cmpstr (layers, ==, SPX_WINDOW_LAYERS_VIEW);
  g_assert_cmpstr (layers_title, ==, SPX_WINDOW_LAYERS_TITLE);
  g_assert_false (gtk_widget_get_visible (last)); /* no network yet */
  /* asked for, it shows: its empty state says how to open one */
  activate (w, "view", g_variant_new_string (layers));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (GTK_STACK (w->stack)),
                   ==, layers);
  g_list_free (pages);
  g_ptr_array_add (titles, NULL);

  /* the shortcuts window the user opens, not its .ui */
  g_autofree char *keys = g_strdup_printf ("<Alt>1...%u",
                                           SPX_RENDER_N_VIEWS + 1);
  g_autofree char *names = g_strjoinv (", ", (char **) titles->pdata);
  GtkShortcutsWindow *overlay =
    gtk_application_window_get_help_overlay (GTK_APPLICATION_WINDOW (w));
  g_assert_nonnull (overlay);
  g_autoptr (GPtrArray) shortcuts = g_ptr_array_new ();
  keys_gather_shortcuts (GTK_WIDGET (overlay), shortcuts);
  guint found = 0;
  for (guint k = 0; k < shortcuts->len; k++)
    {
      g_autofree char *accel = NULL, *title = NULL;
      g_object_get (shortcuts->pdata[k], "accelerator", &accel, "title",
                    &title, NULL);
      if (accel == NULL || !g_str_has_prefix (accel, "<Alt>"))
        continue;
      g_assert_cmpstr (accel, ==, keys);
      g_assert_cmpstr (title, ==, names);
      found++;
    }
  g_assert_cmpuint (found, ==, 1);
  window_close (w);
}

/* A point of the view's widget whose hover text holds needle (scanning
 * every 2 px), or FALSE. */
static gboolean
find_hover (SpxWindow *w, const char *view, GtkWidget *widget,
            const char *needle, double *x, double *y, char **text)
{
  int wd = gtk_widget_get_allocated_width (widget);
  int ht = gtk_widget_get_allocated_height (widget);
  for (int py = 0; py < ht; py += 2)
    for (int px = 0; px < wd; px += 2)
      {
        char *t = _spx_window_hover_text (w, view, px, py);
        if (t != NULL && strstr (t, needle) != NULL)
          {
            *x = px;
            *y = py;
            *text = t;
            return TRUE;
          }
        g_free (t);
      }
  return FALSE;
}

/* Whether step has a transfer src → dst whose piece text is in hover. */
static gboolean
transfer_told (const SpxIpuProgram *p, const SpxIpuStep *s, guint src,
               guint dst, const char *hover)
{
  for (guint i = 0; i < s->transfers->len; i++)
    {
      const SpxIpuTransfer *t = &g_array_index (s->transfers, SpxIpuTransfer,
                                                i);
      if (t->src != src || t->dst != dst)
        continue;
      g_autofree char *piece = spx_ipu_piece_describe (
        p, &g_array_index (s->pieces, SpxIpuPiece, i), t->bytes);
      if (strstr (hover, piece) != NULL)
        return TRUE;
    }
  return FALSE;
}

/* A scroll of direction with modifiers state at (x, y) of view: TRUE
 * when the view took it. */
static gboolean
scroll_at (GtkWidget *view, double x, double y, GdkScrollDirection direction,
           GdkModifierType state)
{
  GdkEvent *ev = gdk_event_new (GDK_SCROLL);
  ev->scroll.window = g_object_ref (gtk_widget_get_window (view));
  ev->scroll.send_event = TRUE;
  ev->scroll.time = GDK_CURRENT_TIME;
  ev->scroll.x = x;
  ev->scroll.y = y;
  ev->scroll.direction = direction;
  ev->scroll.state = state;
  GdkSeat *seat = gdk_display_get_default_seat (gdk_display_get_default ());
  gdk_event_set_device (ev, gdk_seat_get_pointer (seat));
  gboolean taken = gtk_widget_event (view, ev);
  gdk_event_free (ev);
  return taken;
}

/* Ctrl+scroll zooms the Timeline's axis about the pointer (the cycle
 * there stays there); a scroll then pans it; unzoomed, a plain scroll
 * is not the Timeline's. */
static void
test_timeline_scroll (void)
{
  SKIP_WITHOUT_DISPLAY ();
  SpxWindow *w = window_new ();
  activate (w, "view", g_variant_new_string ("timeline"));
  GtkWidget *v = VIEW (w, TIMELINE);
  wait_drawn (v);
  double width = gtk_widget_get_allocated_width (v);
  double height = gtk_widget_get_allocated_height (v);
  const SpxRenderTimelineData *d = w->view_data[SPX_RENDER_VIEW_TIMELINE];
  double most = 0;
  for (guint i = 0; i < SPX_IPU_N_MODES; i++)
    if (d->programs[i] != NULL)
      most = MAX (most, (double) d->programs[i]->cycles);
  double x0 = spx_render_timeline_cycle_x (width, height, d, 0);
  double x1 = spx_render_timeline_cycle_x (width, height, d, most);
  double x = x0 + (x1 - x0) / 5, c = most / 5;
  g_assert_false (scroll_at (v, x, height / 3, GDK_SCROLL_DOWN, 0));
  g_assert_true (scroll_at (v, x, height / 3, GDK_SCROLL_UP,
                            GDK_CONTROL_MASK));
  g_assert_cmpfloat_with_epsilon (d->zoom_to - d->zoom_from, 1 / 1.25,
                                  1e-9);
  g_assert_cmpfloat_with_epsilon (
    spx_render_timeline_cycle_x (width, height, d, c), x, 1e-6);
  double from = d->zoom_from;
  g_assert_true (scroll_at (v, x, height / 3, GDK_SCROLL_DOWN, 0));
  g_assert_cmpfloat (d->zoom_from, >, from);
  g_assert_true (scroll_at (v, x, height / 3, GDK_SCROLL_DOWN,
                            GDK_CONTROL_MASK));
  g_assert_cmpfloat (d->zoom_to - d->zoom_from, ==, 1);
  window_close (w);
}

/* Every view explains what is under the pointer: a tile, an arrow, a
 * superstep, a point of the chart. */
static void
test_hover (void)
{
  SKIP_WITHOUT_DISPLAY ();
  g_autofree char *dir = g_dir_make_tmp ("spx-ui-XXXXXX", NULL);
  SpxWindow *w = small_window (dir);
  const SpxIpuProgram *p = w->study->programs[w->mode];
  double x = 0, y = 0;
  char *text = NULL;

  activate (w, "view", g_variant_new_string ("tiles"));
  wait_drawn (VIEW (w, TILES));
  g_assert_true (find_hover (w, "tiles", VIEW (w, TILES), "Tile 3\n", &x, &y,
                             &text));
  g_autofree char *tile3 = spx_render_tiles_describe (p, 3, "\n");
  g_assert_cmpstr (text, ==, tile3);
  g_clear_pointer (&text, g_free);

  activate (w, "view", g_variant_new_string ("exchange"));
  wait_drawn (VIEW (w, EXCHANGE));
  const SpxIpuStep *s = &g_array_index (p->steps, SpxIpuStep,
                                        EXCHANGE_DATA (w)->superstep);
  g_assert_cmpint (s->kind, ==, SPX_STEP_EXCHANGE);
  /* a crowded step: its arrows join groups of tiles until every arrow is
   * asked for */
  g_assert_true (find_hover (w, "exchange", VIEW (w, EXCHANGE),
                             " summed over ", &x, &y, &text));
  g_assert_true (g_str_has_prefix (text, "Tiles "));
  g_clear_pointer (&text, g_free);
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (w->every_arrow), TRUE);
  g_assert_true (EXCHANGE_DATA (w)->every_arrow);
  wait_drawn (VIEW (w, EXCHANGE));
  g_assert_true (find_hover (w, "exchange", VIEW (w, EXCHANGE), " → tile ",
                             &x, &y, &text));
  g_test_message ("%s", text);
  g_assert_true (g_str_has_prefix (text, "Tile "));
  guint src = (guint) strtoul (text + strlen ("Tile "), NULL, 10);
  guint dst = (guint) strtoul (strstr (text, " → tile ") +
                               strlen (" → tile "), NULL, 10);
  g_assert_true (transfer_told (p, s, src, dst, text));
  g_clear_pointer (&text, g_free);
  g_assert_true (find_hover (w, "exchange", VIEW (w, EXCHANGE), "receives",
                             &x, &y, &text));
  g_clear_pointer (&text, g_free);

  activate (w, "view", g_variant_new_string ("timeline"));
  wait_drawn (VIEW (w, TIMELINE));
  g_assert_true (timeline_point (w, w->mode, 0, &x, &y));
  text = _spx_window_hover_text (w, "timeline", x, y);
  g_autofree char *first = spx_render_timeline_describe (TIMELINE_DATA (w),
                                                         w->mode, 0);
  g_assert_true (g_str_has_prefix (text, first));
  g_assert_nonnull (strstr (text, "% of "));
  g_assert_nonnull (strstr (text, "double-click to open it in Exchange"));
  g_clear_pointer (&text, g_free);

  activate (w, "run-sweep", NULL);
  wait_idle (w);
  activate (w, "view", g_variant_new_string ("speedup"));
  wait_drawn (VIEW (w, SPEEDUP));
  g_assert_true (find_hover (w, "speedup", VIEW (w, SPEEDUP), "over dense",
                             &x, &y, &text));
  g_test_message ("%s", text);
  g_assert_nonnull (strstr (text, " blocks · "));
  g_assert_nonnull (strstr (text, "density "));
  g_clear_pointer (&text, g_free);
  g_assert_null (_spx_window_hover_text (w, "speedup", 1, 1));
  window_close (w);
  g_autofree char *spx = g_build_filename (dir, "small.spx", NULL);
  g_unlink (spx);
  g_rmdir (dir);
}

/* What the window shows, to compare two visits to a lesson step. */
typedef struct {
  char      *view, *title, *text;
  SpxIpuMode mode;
  gint       tile, superstep, lane;
  gboolean   colour;
  guint64    m, n;
  char      *machine;
} Shown;

static void
shown_clear (Shown *s)
{
  g_free (s->view);
  g_free (s->title);
  g_free (s->text);
  g_free (s->machine);
}

static Shown
shown_now (SpxWindow *w)
{
  Shown s = {
    g_strdup (gtk_stack_get_visible_child_name (GTK_STACK (w->stack))),
    g_strdup (gtk_label_get_text (GTK_LABEL (w->lesson_title))),
    g_strdup (gtk_label_get_text (GTK_LABEL (w->lesson_text))),
    w->mode, w->selected_tile, TIMELINE_DATA (w)->selected_superstep,
    TIMELINE_DATA (w)->selected_lane,
    gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (w->colour)),
    w->study->scenario->m, w->study->scenario->n,
    g_strdup (w->study->machine->name),
  };
  return s;
}

/* The window shows what lesson step s says: its scenario, view, program,
 * tile, superstep and colouring, and its text with every figure read. */
static void
assert_step_shown (SpxWindow *w, const SpxLessonStep *s, const Shown *now)
{
  g_assert_cmpstr (now->title, ==, s->title);
  g_assert_cmpstr (now->view, ==, s->view);
  g_assert_cmpstr (now->machine, ==, s->scenario->machine);
  g_assert_cmpuint (now->m, ==, s->scenario->m);
  g_assert_cmpint (now->mode, ==, s->mode);
  g_assert_cmpint (now->tile, ==, s->tile);
  g_assert_true (now->colour == s->colour_by_tile);
  gint want = spx_lesson_find_step (w->study->programs[w->mode],
                                    s->superstep);
  g_assert_cmpint (now->superstep, ==, want);
  if (want >= 0)
    {
      g_assert_cmpint (now->lane, ==, (gint) w->mode);
      g_assert_cmpuint (EXCHANGE_DATA (w)->superstep, ==, (guint) want);
    }
  g_assert_null (strchr (now->text, '{'));
  g_assert_null (strstr (now->text, "—")); /* every figure was there */
  /* the Timeline's axis: all of it, or the named program's cycles */
  const SpxRenderViewState *st = &w->view_state;
  if (s->timeline_fit < 0)
    g_assert_cmpfloat (st->zoom_to, <=, st->zoom_from);
  else
    {
      SpxIpuProgram *const *p = w->study->programs;
      guint64 longest = MAX (MAX (p[0]->cycles, p[1]->cycles), p[2]->cycles);
      g_assert_cmpfloat (st->zoom_from, ==, 0);
      g_assert_cmpfloat_with_epsilon (st->zoom_to,
                                      (double) p[s->timeline_fit]->cycles
                                      / longest, 1e-9);
    }
}

/* The window with the lesson beside the view fits a 1024-pixel-wide
 * screen, on every view (it was 1128 at least). */
static void
assert_fits_laptop (SpxWindow *w)
{
  const char *shown = gtk_stack_get_visible_child_name (GTK_STACK (w->stack));
  g_autoptr (GList) pages = gtk_container_get_children (GTK_CONTAINER (
                                                          w->stack));
  for (GList *l = pages; l != NULL; l = l->next)
    {
      gtk_stack_set_visible_child (GTK_STACK (w->stack), l->data);
      gint min, nat;
      gtk_widget_get_preferred_width (GTK_WIDGET (w), &min, &nat);
      g_test_message ("%s: at least %d px (%d natural)",
                      gtk_stack_get_visible_child_name (GTK_STACK (w->stack)),
                      min, nat);
      g_assert_cmpint (min, <=, 1024);
    }
  gtk_stack_set_visible_child_name (GTK_STACK (w->stack), shown);
}

static void
test_lesson (void)
{
  SKIP_WITHOUT_DISPLAY ();
  SpxWindow *w = window_new ();
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (w),
                                                     "lesson-next"));
  activate (w, "lesson", NULL);
  wait_idle (w);
  g_assert_true (_spx_window_lesson_active (w));
  g_assert_null (spx_window_get_error (w));
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (w),
                                                    "lesson-next"));
  assert_fits_laptop (w);
  guint n = w->lesson->steps->len;
  Shown *seen = g_new0 (Shown, n);
  for (guint i = 0; i < n; i++)
    {
      if (i > 0)
        activate (w, "lesson-next", NULL);
      wait_idle (w);
      seen[i] = shown_now (w);
      g_test_message ("step %u: %s", i + 1, seen[i].title);
      assert_step_shown (w, g_ptr_array_index (w->lesson->steps, i),
                         &seen[i]);
    }
  g_assert_false (gtk_widget_get_sensitive (w->lesson_next));
  activate (w, "lesson-next", NULL); /* past the end: stays */
  wait_idle (w);
  g_assert_cmpuint (w->lesson_step, ==, n - 1);
  for (guint i = n - 1; i-- > 0;)
    {
      activate (w, "lesson-back", NULL);
      wait_idle (w);
      Shown again = shown_now (w);
      g_assert_cmpstr (again.view, ==, seen[i].view);
      g_assert_cmpstr (again.text, ==, seen[i].text);
      g_assert_cmpstr (again.machine, ==, seen[i].machine);
      g_assert_cmpint (again.tile, ==, seen[i].tile);
      g_assert_cmpint (again.superstep, ==, seen[i].superstep);
      g_assert_true (again.colour == seen[i].colour);
      g_assert_cmpuint (again.m, ==, seen[i].m);
      g_assert_cmpint (again.mode, ==, seen[i].mode);
      shown_clear (&again);
    }
  g_assert_false (gtk_widget_get_sensitive (w->lesson_back));

  /* the user changes the problem: the text follows the new plan */
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (PANEL (w, N)), 32);
  wait_idle (w);
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (w->lesson_text)),
                            "X is 128 × 32"));
  gtk_button_clicked (GTK_BUTTON (w->lesson_next)); /* the buttons too */
  wait_idle (w);
  g_assert_cmpuint (w->lesson_step, ==, 1);
  for (guint i = 0; i < n; i++)
    shown_clear (&seen[i]);
  g_free (seen);
  window_close (w);
}

/* Run the main loop until tiles shows theme (the style is recomputed on
 * the next frame), at most a second. */
static void
wait_theme (SpxView *tiles, SpxTheme theme)
{
  gint64 end = g_get_monotonic_time () + G_USEC_PER_SEC;
  while (spx_view_get_theme (tiles) != theme &&
         g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, FALSE);
}

/* A dark GTK theme that states no dark preference (GTK_THEME=…:dark; here
 * a style sheet with light text over the theme) turns the views dark
 * too, and back. */
static void
test_dark_by_name (void)
{
  SKIP_WITHOUT_DISPLAY ();
  SpxWindow *w = window_new ();
  SpxView *tiles = SPX_VIEW (w->views[SPX_RENDER_VIEW_TILES]);
  g_assert_cmpint (spx_view_get_theme (tiles), ==, SPX_THEME_LIGHT);
  g_autoptr (GtkCssProvider) css = gtk_css_provider_new ();
  g_assert_true (gtk_css_provider_load_from_data (
    css, "* { color: #eeeeee; background-color: #202020; }", -1, NULL));
  GdkScreen *screen = gtk_widget_get_screen (GTK_WIDGET (w));
  gtk_style_context_add_provider_for_screen (
    screen, GTK_STYLE_PROVIDER (css), GTK_STYLE_PROVIDER_PRIORITY_USER);
  wait_theme (tiles, SPX_THEME_DARK);
  g_assert_cmpint (spx_view_get_theme (tiles), ==, SPX_THEME_DARK);
  gtk_style_context_remove_provider_for_screen (screen,
                                                GTK_STYLE_PROVIDER (css));
  wait_theme (tiles, SPX_THEME_LIGHT);
  g_assert_cmpint (spx_view_get_theme (tiles), ==, SPX_THEME_LIGHT);
  window_close (w);
}

static gboolean
same_bits (const SpxMask *a, const SpxMask *b)
{
  return a->rows == b->rows && a->cols == b->cols && a->block == b->block &&
         memcmp (a->bits, b->bits, (spx_mask_n_blocks (a) + 7) / 8) == 0;
}

/* A layer opened from a file is the subject: a panel change that would
 * generate a mask asks first; keeping it keeps it bit for bit; replacing
 * it is one undo step. The panel's numbers ignore the wheel. */
/* Block sizes whose CPU points are noisy are offered "Measure Again on 1
 * Thread", which measures exactly those again and keeps the rest. */
static void
test_measure_again (void)
{
  SKIP_WITHOUT_DISPLAY ();
  g_autofree char *dir = g_dir_make_tmp ("spx-ui-XXXXXX", NULL);
  SpxWindow *w = small_window (dir);
  activate (w, "run-sweep", NULL);
  wait_idle (w);
  g_assert_false (gtk_widget_get_visible (w->again_button) &&
                  spx_sweep_count_noisy (w->study->sweep) == 0);
  /* every sparse CPU point of the first block size noisy */
  SpxSweep *sw = w->study->sweep;
  guint b = sw->settings.blocks[0], len = sw->points->len;
  for (guint i = 0; i < len; i++)
    {
      SpxSweepPoint *p = &g_array_index (sw->points, SpxSweepPoint, i);
      p->noise = p->source == SPX_SWEEP_CPU && p->block == b &&
                 p->mode != SPX_SWEEP_DENSE ? SPX_NOISE_SPREAD
                                            : SPX_NOISE_NONE;
    }
  _spx_window_update_verdict (w);
  g_assert_true (gtk_widget_get_visible (w->again_button));
  g_autofree char *named = g_strdup_printf ("b = %u could not be measured "
                                            "cleanly", b);
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (w->verdict)),
                            named));
  g_autofree SpxSweepPoint *before = g_memdup2 (sw->points->data,
                                                len * sizeof *before);
  activate (w, "measure-again", NULL);
  g_assert_true (spx_window_is_busy (w));
  wait_idle (w);
  g_assert_null (spx_window_get_error (w));
  g_assert_cmpuint (sw->points->len, ==, len);
  guint again = 0;
  for (guint i = 0; i < len; i++)
    {
      const SpxSweepPoint *p = &g_array_index (sw->points, SpxSweepPoint, i);
      gboolean asked = p->source == SPX_SWEEP_CPU && p->block == b;
      g_assert_cmpuint (p->block, ==, before[i].block);
      g_assert_cmpint (p->mode, ==, before[i].mode);
      if (asked)
        g_assert_true (g_str_has_suffix (p->machine, "-1t"));
      else
        g_assert_cmpstr (p->machine, ==, before[i].machine);
      again += asked;
    }
  g_assert_cmpuint (again, >, 0);
  window_close (w);
  g_autofree char *spx = g_build_filename (dir, "small.spx", NULL);
  g_unlink (spx);
  g_rmdir (dir);
}

/* The Speedup view's operation: SDDMM sweeps this CPU alone, dense and
 * static. */
static void
test_sweep_sddmm (void)
{
  SKIP_WITHOUT_DISPLAY ();
  g_autofree char *dir = g_dir_make_tmp ("spx-ui-XXXXXX", NULL);
  SpxWindow *w = small_window (dir);
  gtk_combo_box_set_active (GTK_COMBO_BOX (w->sweep_op), SPX_BENCH_OP_SDDMM);
  activate (w, "run-sweep", NULL);
  wait_idle (w);
  const SpxSweep *sw = w->study->sweep;
  g_assert_cmpint (sw->settings.op, ==, SPX_BENCH_OP_SDDMM);
  g_assert_cmpuint (sw->points->len, >, 0);
  g_assert_cmpuint (sw->points->len, ==, spx_sweep_total (&sw->settings));
  for (guint i = 0; i < sw->points->len; i++)
    {
      const SpxSweepPoint *p = &g_array_index (sw->points, SpxSweepPoint, i);
      g_assert_cmpint (p->source, ==, SPX_SWEEP_CPU);
      g_assert_cmpint (p->mode, ==, i % 2 ? SPX_SWEEP_STATIC
                                           : SPX_SWEEP_DENSE);
    }
  /* a long note goes under the controls, across the view, and leaves
   * them at their own height */
  activate (w, "view", g_variant_new_string ("speedup"));
  gtk_label_set_text (GTK_LABEL (w->sweep_note),
                      "a note long enough to wrap over several lines, "
                      "a note long enough to wrap over several lines, "
                      "a note long enough to wrap over several lines, "
                      "a note long enough to wrap over several lines");
  gint64 end = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  while (gtk_widget_get_allocated_height (w->sweep_note) <= 1 &&
         g_get_monotonic_time () < end) /* laid out on the next frame */
    g_main_context_iteration (NULL, FALSE);
  gint natural, note_y;
  gtk_widget_get_preferred_height (w->sweep_button, NULL, &natural);
  g_assert_true (gtk_widget_translate_coordinates (w->sweep_note,
                                                   w->sweep_button, 0, 0,
                                                   NULL, &note_y));
  g_assert_cmpint (note_y, >=, gtk_widget_get_allocated_height (
                                 w->sweep_button));
  g_assert_cmpint (gtk_widget_get_allocated_width (w->sweep_note), >,
                   gtk_widget_get_allocated_width (w->sweep_button) * 3);
  g_assert_cmpint (gtk_widget_get_allocated_height (w->sweep_button), ==,
                   natural);
  window_close (w);
  g_autofree char *spx = g_build_filename (dir, "small.spx", NULL);
  g_unlink (spx);
  g_rmdir (dir);
}

/* A mask of the user's own is not replaced by the lesson without asking:
 * kept, or replaced as one undo step. */
static void
test_lesson_asks (void)
{
  SKIP_WITHOUT_DISPLAY ();
  SpxWindow *w = window_new ();
  activate (w, "open-path", g_variant_new_string (g_test_get_filename (
              G_TEST_DIST, "data", "small.mtx", NULL)));
  wait_idle (w);
  g_assert_cmpint (w->study->scenario->source, ==, SPX_MASK_SOURCE_FILE);
  SpxMask *mine = spx_mask_copy (w->study->scenario->mask, NULL);
  activate_answering (w, "lesson", GTK_RESPONSE_CANCEL);
  g_assert_false (_spx_window_lesson_active (w));
  g_assert_true (same_bits (w->study->scenario->mask, mine));

  activate_answering (w, "lesson", GTK_RESPONSE_ACCEPT);
  g_assert_true (_spx_window_lesson_active (w));
  g_assert_cmpint (w->study->scenario->source, ==,
                   SPX_MASK_SOURCE_GENERATED);
  activate (w, "undo", NULL);
  wait_idle (w);
  g_assert_true (same_bits (w->study->scenario->mask, mine));
  spx_mask_free (mine);
  window_close (w);
}

static void
test_subject_kept (void)
{
  SKIP_WITHOUT_DISPLAY ();
  SpxWindow *w = dlmc_window ();
  SpxMaskEditor *e = SPX_MASK_EDITOR (w->editor);
  g_autoptr (SpxMask) file = spx_mask_copy (spx_mask_editor_get_mask (e),
                                            NULL);
  /* the panel shows what the file has: 73% of its 16 × 16 blocks */
  g_assert_cmpfloat_with_epsilon (
    gtk_spin_button_get_value (GTK_SPIN_BUTTON (PANEL (w, DENSITY))),
    (double) spx_mask_count (file) / spx_mask_n_blocks (file), 1e-4);
  const char *words = gtk_label_get_text (GTK_LABEL (w->verdict));
  g_assert_nonnull (strstr (words, "2.0% of elements, 72.9% of 16 × 16 "
                                   "blocks non-empty"));

  /* Density "+", then keep the file's mask */
  guint asked = dialogs_answered;
  answer_next_dialog (GTK_RESPONSE_CANCEL);
  gtk_spin_button_spin (GTK_SPIN_BUTTON (PANEL (w, DENSITY)),
                        GTK_SPIN_STEP_FORWARD, 0);
  wait_idle (w);
  g_assert_cmpuint (dialogs_answered, ==, asked + 1);
  g_assert_true (same_bits (spx_mask_editor_get_mask (e), file));
  g_assert_cmpint (w->study->scenario->source, ==, SPX_MASK_SOURCE_FILE);
  g_assert_false (spx_mask_editor_can_redo (e));

  /* again, replacing it: a generated mask, one undo step away */
  answer_next_dialog (GTK_RESPONSE_ACCEPT);
  gtk_spin_button_spin (GTK_SPIN_BUTTON (PANEL (w, DENSITY)),
                        GTK_SPIN_STEP_FORWARD, 0);
  wait_idle (w);
  g_assert_cmpuint (dialogs_answered, ==, asked + 2);
  g_assert_cmpint (w->study->scenario->source, ==,
                   SPX_MASK_SOURCE_GENERATED);
  g_assert_false (same_bits (spx_mask_editor_get_mask (e), file));
  g_assert_true (spx_mask_editor_can_undo (e));
  activate (w, "undo", NULL);
  wait_idle (w);
  g_assert_true (same_bits (spx_mask_editor_get_mask (e), file));
  g_assert_true (same_bits (w->study->scenario->mask, file));
  g_assert_cmpint (w->study->scenario->source, ==, SPX_MASK_SOURCE_FILE);
  g_assert_nonnull (strstr (w->study->scenario->mask_path,
                            "attention_q.smtx"));
  assert_filled (w, file);
  activate (w, "redo", NULL);
  wait_idle (w);
  g_assert_cmpint (w->study->scenario->source, ==,
                   SPX_MASK_SOURCE_GENERATED);
  activate (w, "undo", NULL);
  wait_idle (w);

  /* the wheel over a number in the panel leaves it (and the mask) be;
   * were it to turn it, the question would come (and be answered) */
  guint id = answer_next_dialog (GTK_RESPONSE_CANCEL);
  GtkWidget *spin = PANEL (w, DENSITY);
  double before = gtk_spin_button_get_value (GTK_SPIN_BUTTON (spin));
  GdkEvent *ev = gdk_event_new (GDK_SCROLL);
  ev->scroll.window = g_object_ref (gtk_widget_get_window (spin));
  ev->scroll.direction = GDK_SCROLL_UP;
  ev->scroll.x = ev->scroll.y = 5;
  gdk_event_set_device (ev, gdk_seat_get_pointer (
    gdk_display_get_default_seat (gtk_widget_get_display (spin))));
  gtk_widget_event (spin, ev);
  gdk_event_free (ev);
  wait_idle (w);
  g_assert_cmpuint (dialogs_answered, ==, asked + 2);
  forget_answer (id);
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (spin)), ==,
                     before);
  g_assert_true (same_bits (spx_mask_editor_get_mask (e), file));
  window_close (w);
}

/* Density typed with keys, then Tab (or Enter), as the user does it. */
static void
type_density (SpxWindow *w, const char *text, guint key)
{
  GtkWidget *spin = PANEL (w, DENSITY);
  keys_focus_window (GTK_WIDGET (w));
  gtk_widget_grab_focus (spin);
  gtk_editable_select_region (GTK_EDITABLE (spin), 0, -1);
  keys_type (GTK_WIDGET (w), text);
  g_assert_cmpstr (gtk_entry_get_text (GTK_ENTRY (spin)), ==, text);
  keys_press (GTK_WIDGET (w), key);
  wait_idle (w);
}

/* What cannot be read as a density is refused and said under the
 * field; value, mask and scenario stay as they were. A number that can
 * be read still applies. */
static void
test_typed_number (void)
{
  SKIP_WITHOUT_DISPLAY ();
  SpxWindow *w = window_new ();
  GtkSpinButton *spin = GTK_SPIN_BUTTON (PANEL (w, DENSITY));
  GtkStyleContext *style = gtk_widget_get_style_context (GTK_WIDGET (spin));
  g_autoptr (SpxMask) mask = spx_mask_copy (w->study->scenario->mask, NULL);
  g_autofree char *scenario = spx_scenario_to_data (w->study->scenario, NULL);
  const guint keys[] = { GDK_KEY_Tab, GDK_KEY_Return };
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      type_density (w, "x", keys[i]);
      g_assert_cmpfloat (gtk_spin_button_get_value (spin), ==, 0.0625);
      g_assert_cmpstr (gtk_entry_get_text (GTK_ENTRY (spin)), ==, "0.0625");
      g_assert_cmpstr (spx_spin_check_get_problem (spin), ==,
                       "'x' is not a number: kept 0.0625");
      g_assert_true (gtk_style_context_has_class (style, "error"));
      g_assert_true (same_bits (w->study->scenario->mask, mask));
      g_assert_true (same_bits (spx_mask_editor_get_mask (
                                  SPX_MASK_EDITOR (w->editor)), mask));
      g_autofree char *now = spx_scenario_to_data (w->study->scenario, NULL);
      g_assert_cmpstr (now, ==, scenario);
      g_assert_false (w->dirty);
    }

  /* past the most, 1: refused the same way */
  type_density (w, "2", GDK_KEY_Tab);
  g_assert_cmpstr (spx_spin_check_get_problem (spin), ==,
                   "'2' is not between 0.0001 and 1: kept 0.0625");
  g_assert_true (same_bits (w->study->scenario->mask, mask));

  /* a density as a fraction applies: a new mask of 1/8 of the blocks */
  type_density (w, "1/8", GDK_KEY_Tab);
  g_assert_cmpfloat (gtk_spin_button_get_value (spin), ==, 0.125);
  g_assert_null (spx_spin_check_get_problem (spin));
  g_assert_false (gtk_style_context_has_class (style, "error"));
  g_assert_cmpfloat (w->study->scenario->gen.density, ==, 0.125);
  g_assert_cmpuint (spx_mask_count (w->study->scenario->mask), ==,
                    spx_mask_n_blocks (mask) / 8);
  g_assert_true (w->dirty);
  window_close (w);
}

/* The quick start's sample looks solid at 16 × 16 blocks: it opens at a
 * block size where its structure shows, and says so. */
static void
test_first_run (void)
{
  SKIP_WITHOUT_DISPLAY ();
  SpxWindow *w = window_new ();
  g_autofree char *path = g_test_build_filename (
    G_TEST_DIST, "..", "data", "samples", "transformer-attention-q-0.9.smtx",
    NULL);
  activate (w, "open-path", g_variant_new_string (path));
  wait_idle (w);
  SpxMask *mask = spx_mask_editor_get_mask (SPX_MASK_EDITOR (w->editor));
  g_assert_cmpuint (mask->block, ==, 4);
  double d = (double) spx_mask_count (mask) / spx_mask_n_blocks (mask);
  g_assert_cmpfloat (d, <=, 0.75);
  g_assert_nonnull (spx_window_get_error (w));
  g_assert_nonnull (strstr (spx_window_get_error (w), "looks solid"));
  g_assert_cmpfloat (gtk_spin_button_get_value (
                       GTK_SPIN_BUTTON (PANEL (w, BLOCK))), ==, 4);
  window_close (w);
}

/* A scenario naming a PNG mask opens in the window as on the command
 * line. */
static void
test_png_scenario (void)
{
  SKIP_WITHOUT_DISPLAY ();
  g_autofree char *dir = g_dir_make_tmp ("spx-ui-XXXXXX", NULL);
  g_autoptr (SpxMask) elements = spx_mask_new (48, 40, 1, NULL);
  for (guint i = 0; i < 40; i += 3)
    spx_mask_set (elements, i, i);
  g_autofree char *png = g_build_filename (dir, "m.png", NULL);
  g_assert_true (spx_mask_save (elements, png, SPX_SAVE_DEFAULT, NULL));
  g_autoptr (SpxScenario) sc = spx_scenario_new ();
  sc->source = SPX_MASK_SOURCE_FILE;
  sc->mask_path = g_strdup (png);
  sc->block = 8;
  sc->n = 16;
  g_free (sc->machine);
  sc->machine = g_strdup ("teach16");
  g_autofree char *spx = g_build_filename (dir, "png.spx", NULL);
  g_assert_true (spx_scenario_save (sc, spx, SPX_SAVE_DEFAULT, NULL));
  SpxWindow *w = window_new ();
  activate (w, "open-path", g_variant_new_string (spx));
  wait_idle (w);
  g_assert_null (spx_window_get_error (w));
  g_autoptr (SpxMask) expected = spx_mask_to_blocks (elements, 8, NULL);
  g_assert_true (same_bits (spx_mask_editor_get_mask (
                              SPX_MASK_EDITOR (w->editor)), expected));
  assert_filled (w, expected);
  g_assert_cmpuint (w->study->programs[0]->n_tiles, ==, 16);
  window_close (w);
  g_unlink (spx);
  g_unlink (png);
  g_rmdir (dir);
}

/* Hostile files: a FIFO is refused at once, a very long path in a
 * message keeps the bar within the window, a save beside someone else's
 * NAME.machine leaves it alone. */
static void
test_hostile_files (void)
{
  SKIP_WITHOUT_DISPLAY ();
  g_autofree char *dir = g_dir_make_tmp ("spx-ui-XXXXXX", NULL);
  SpxWindow *w = small_window (dir);
  SpxMask *before = spx_mask_editor_get_mask (SPX_MASK_EDITOR (w->editor));
  g_autofree char *fifo = g_build_filename (dir, "pipe.smtx", NULL);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  activate (w, "open-path", g_variant_new_string (fifo)); /* never blocks */
  wait_idle (w);
  g_assert_nonnull (strstr (spx_window_get_error (w), "not a regular file"));
  g_assert_true (spx_mask_editor_get_mask (SPX_MASK_EDITOR (w->editor)) ==
                 before);

  g_autofree char *name = g_strnfill (3000, 'q');
  g_autofree char *far = g_build_filename (dir, name, NULL);
  activate (w, "open-path", g_variant_new_string (far));
  wait_idle (w);
  g_assert_nonnull (spx_window_get_error (w));
  while (g_main_context_pending (NULL))
    g_main_context_iteration (NULL, FALSE);
  g_assert_cmpint (gtk_widget_get_allocated_width (w->info_bar), <=,
                   gtk_widget_get_allocated_width (GTK_WIDGET (w)));

  /* a what-if machine saved beside a file that is not ours */
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (PANEL (w, TILES)), 4);
  wait_idle (w);
  g_autofree char *theirs = g_build_filename (dir, "mine.machine", NULL);
  g_assert_true (g_file_set_contents (theirs, "not yours\n", -1, NULL));
  g_autofree char *spx = g_build_filename (dir, "mine.spx", NULL);
  g_assert_true (_spx_window_save_to (w, spx));
  g_autofree char *still = NULL;
  g_assert_true (g_file_get_contents (theirs, &still, NULL, NULL));
  g_assert_cmpstr (still, ==, "not yours\n");
  g_autofree char *ours = g_build_filename (dir, "mine-2.machine", NULL);
  g_assert_true (g_file_test (ours, G_FILE_TEST_IS_REGULAR));
  window_close (w);
  const char *names[] = { "pipe.smtx", "mine.machine", "mine-2.machine",
                          "mine.spx", "small.spx" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (dir, names[i], NULL);
      g_unlink (path);
    }
  g_rmdir (dir);
}

/* Ctrl+S twice on an opened .spx: the same file each time, and the
 * title keeps its name (the save used to free the path it was given). */
static void
test_save_twice (void)
{
  SKIP_WITHOUT_DISPLAY ();
  g_autofree char *dir = g_dir_make_tmp ("spx-ui-XXXXXX", NULL);
  SpxWindow *w = small_window (dir);
  g_autofree char *spx = g_build_filename (dir, "small.spx", NULL);
  for (guint n = 24; n <= 32; n += 8)
    {
      gtk_spin_button_set_value (GTK_SPIN_BUTTON (PANEL (w, N)), n);
      wait_idle (w);
      g_assert_true (spx_window_is_dirty (w));
      activate (w, "save", NULL);
      g_assert_null (spx_window_get_error (w));
      g_assert_false (spx_window_is_dirty (w));
      g_assert_cmpstr (w->study->path, ==, spx);
      g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (w)), ==,
                       "Sparse Explorer — small.spx");
      g_autoptr (SpxScenario) back = spx_scenario_load (spx, NULL);
      g_assert_cmpuint (back->n, ==, n);
    }
  window_close (w);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_assert_cmpstr (g_dir_read_name (d), ==, "small.spx");
  g_assert_null (g_dir_read_name (d));
  g_unlink (spx);
  g_rmdir (dir);
}

#define NOBODY 65534

static int
give_to_nobody (const char *path, const struct stat *st, int flag,
                struct FTW *ftw)
{
  return lchown (path, NOBODY, NOBODY);
}

/* From here on an ordinary user (nobody when root, as in CI: root may
 * write any file) owning dir and the preferences; the display stays
 * connected. For a subprocess of the test only. */
static void
become_ordinary (const char *dir)
{
  if (geteuid () != 0)
    return;
  g_assert_cmpint (nftw (g_getenv ("XDG_CONFIG_HOME"), give_to_nobody, 16,
                         FTW_PHYS), ==, 0);
  g_assert_cmpint (chown (dir, NOBODY, NOBODY), ==, 0);
  g_assert_cmpint (setgroups (0, NULL), ==, 0);
  g_assert_cmpint (setgid (NOBODY), ==, 0);
  g_assert_cmpint (setuid (NOBODY), ==, 0);
}

/* Save action (with param) over a read-only file, answering the question
 * with response: whether it asked, and the file's contents after. */
static char *
save_answering (SpxWindow *w, const char *action, const char *path,
                GtkResponseType response)
{
  guint asked = dialogs_answered;
  guint id = answer_next_dialog (response);
  activate (w, action, path ? g_variant_new_string (path) : NULL);
  wait_idle (w);
  forget_answer (id);
  g_assert_cmpuint (dialogs_answered, ==, asked + 1);
  GStatBuf st;
  g_assert_cmpint (g_stat (path ? path : w->study->path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0444);
  return test_read_all (path ? path : w->study->path);
}

/* A read-only file in the user's own folder, as that user: Ctrl+S, Save
 * Mask and Export ask as editors do; Cancel leaves the file, Replace
 * saves it and it stays read-only. */
static void
test_save_read_only (void)
{
  SKIP_WITHOUT_DISPLAY ();
  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, WAIT_S * G_USEC_PER_SEC,
                              G_TEST_SUBPROCESS_INHERIT_STDERR);
      g_test_trap_assert_passed ();
      return;
    }
  g_autofree char *dir = g_dir_make_tmp ("spx-ui-XXXXXX", NULL);
  become_ordinary (dir);
  SpxWindow *w = small_window (dir);
  g_autofree char *spx = g_build_filename (dir, "small.spx", NULL);
  g_autofree char *old = test_read_all (spx);
  g_assert_cmpint (g_chmod (spx, 0444), ==, 0);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (PANEL (w, N)), 40);
  wait_idle (w);
  g_autofree char *kept = save_answering (w, "save", NULL,
                                          GTK_RESPONSE_CANCEL);
  g_assert_cmpstr (kept, ==, old);
  g_assert_null (spx_window_get_error (w));
  g_assert_true (spx_window_is_dirty (w));
  g_autofree char *saved = save_answering (w, "save", NULL,
                                           GTK_RESPONSE_ACCEPT);
  g_assert_nonnull (strstr (saved, "n=40"));
  g_assert_false (spx_window_is_dirty (w));

  const char *names[] = { "mask.mtx", "view.png" };
  const char *actions[] = { "save-mask-path", "export-path" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (dir, names[i], NULL);
      g_assert_true (g_file_set_contents (path, "old", -1, NULL));
      g_assert_cmpint (g_chmod (path, 0444), ==, 0);
      g_autofree char *same = save_answering (w, actions[i], path,
                                              GTK_RESPONSE_CANCEL);
      g_assert_cmpstr (same, ==, "old");
      g_autofree char *now = save_answering (w, actions[i], path,
                                             GTK_RESPONSE_ACCEPT);
      g_assert_cmpstr (now, !=, "old");
      g_unlink (path);
    }
  window_close (w);
  g_unlink (spx);
  g_rmdir (dir);
}

/* No control character (C0, DEL, C1) in text shown. */
static void
assert_no_controls (const char *text)
{
  for (const char *p = text; *p; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      if (c < 0x20 || (c >= 0x7f && c <= 0x9f))
        g_error ("'%s' shows U+%04X raw", text, c);
    }
}

/* A file name with ESC, CR, newline and a C1 control: the title and the
 * message bar show it escaped, on one line. */
static void
test_escaped_names (void)
{
  SKIP_WITHOUT_DISPLAY ();
  g_autofree char *dir = g_dir_make_tmp ("spx-ui-XXXXXX", NULL);
  g_autofree char *small = data_path ("small.smtx");
  g_autofree char *text = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (small, &text, &len, NULL));
  g_autofree char *nasty = g_build_filename (dir, "a\033[2J\rb\nc\xc2\x9b.smtx",
                                             NULL);
  g_assert_true (g_file_set_contents (nasty, text, len, NULL));
  SpxWindow *w = window_new ();
  activate (w, "open-path", g_variant_new_string (nasty));
  wait_idle (w);
  const char *title = gtk_window_get_title (GTK_WINDOW (w));
  assert_no_controls (title);
  g_assert_nonnull (strstr (title, "a\\x1b[2J\\x0db\\x0ac\\u009b.smtx"));
  g_autofree char *missing = g_strconcat (nasty, ".missing", NULL);
  activate (w, "open-path", g_variant_new_string (missing));
  wait_idle (w);
  const char *bar = gtk_label_get_text (GTK_LABEL (w->info_label));
  assert_no_controls (bar);
  g_assert_nonnull (strstr (bar, "a\\x1b[2J\\x0db\\x0ac\\u009b.smtx.missing"));
  g_assert_cmpstr (spx_window_get_error (w), ==, bar);
  window_close (w);
  g_unlink (nasty);
  g_rmdir (dir);
}

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#endif

/* 63 bytes declaring 92681 × 92681 elements: 1 GiB of bits. */
static char *
declared_path (void)
{
  return g_test_build_filename (G_TEST_DIST, "data", "hostile",
                                "win-92681.mtx", NULL);
}

static void
assert_says (const char *message, const char *const *parts, guint n)
{
  g_assert_nonnull (message);
  for (guint i = 0; i < n; i++)
    if (strstr (message, parts[i]) == NULL)
      g_error ("'%s' lacks '%s'", message, parts[i]);
}

/* The file in the window, under its memory budget: when even one copy
 * of its mask does not fit, refused with a message naming the file, the
 * size and the budget, the scenario kept; when one does, opened, that
 * one copy shared by the study, the editor and the undo steps (at block
 * 1 too); drawing on it, which needs a second, refused. */
static void
test_declared_size (void)
{
  SKIP_WITHOUT_DISPLAY ();
  g_autofree char *path = declared_path ();
  SpxWindow *w = window_new ();
  SpxMaskEditor *e = SPX_MASK_EDITOR (w->editor);
  SpxMask *before = spx_mask_editor_get_mask (e);
  g_setenv (SPX_MEMORY_BUDGET_ENV, "512M", TRUE);
  activate (w, "open-path", g_variant_new_string (path));
  wait_idle (w);
  /* g_format_size puts a no-break space before the unit */
  const char *refused[] = { path, "a mask of 92681×92681 elements",
                            "would need 1024.0", "budget of 512.0" };
  assert_says (spx_window_get_error (w), refused, G_N_ELEMENTS (refused));
  g_assert_true (spx_mask_editor_get_mask (e) == before);
  g_assert_true (w->study->scenario->mask == before);
  g_assert_cmpint (w->study->scenario->source, ==, SPX_MASK_SOURCE_GENERATED);
  g_assert_false (spx_mask_editor_can_undo (e));

  g_setenv (SPX_MEMORY_BUDGET_ENV, "1536M", TRUE);
  activate (w, "open-path", g_variant_new_string (path));
  wait_idle (w);
  g_assert_null (spx_window_get_error (w));
  SpxMask *mask = spx_mask_editor_get_mask (e);
  g_assert_cmpuint (mask->rows, ==, 92681);
  g_assert_true (mask == w->study->scenario->mask);
  g_assert_nonnull (strstr (gtk_window_get_title (GTK_WINDOW (w)),
                            "win-92681.mtx"));
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (PANEL (w, BLOCK)), 1);
  wait_idle (w);
  g_assert_null (spx_window_get_error (w));
  mask = spx_mask_editor_get_mask (e);
  g_assert_cmpuint (mask->block, ==, 1);
  g_assert_true (mask == w->study->elements);
  g_assert_cmpuint (spx_mask_held_bytes (), <,
                    mask->n_words * sizeof (guint64) + (64 << 20));

  double x = gtk_widget_get_allocated_width (w->editor) / 2.0;
  double y = gtk_widget_get_allocated_height (w->editor) / 2.0;
  send_button (w->editor, GDK_BUTTON_PRESS, x, y);
  send_button (w->editor, GDK_BUTTON_RELEASE, x, y);
  wait_idle (w);
  const char *copy[] = { "Drawing on the mask needs a copy of it",
                         "with the masks already held" };
  assert_says (spx_window_get_error (w), copy, G_N_ELEMENTS (copy));
  g_assert_true (spx_mask_editor_get_mask (e) == mask);
  g_assert_cmpuint (spx_mask_count (mask), ==, 0);
  g_assert_cmpint (w->study->scenario->source, ==, SPX_MASK_SOURCE_FILE);

  /* back through the block change and the file to the scenario */
  activate (w, "undo", NULL);
  wait_idle (w);
  activate (w, "undo", NULL);
  wait_idle (w);
  g_assert_true (spx_mask_editor_get_mask (e) == before);
  g_assert_cmpint (w->study->scenario->source, ==, SPX_MASK_SOURCE_GENERATED);
  g_unsetenv (SPX_MEMORY_BUDGET_ENV);
  window_close (w);
}

#ifdef SPX_TEST_X11
/* Whether a top-level window on the display has a title holding text. */
static gboolean
window_titled (const char *text)
{
  GdkDisplay *display = gdk_display_get_default ();
  Display *dpy = GDK_DISPLAY_XDISPLAY (display);
  Window root = DefaultRootWindow (dpy), parent, *children = NULL;
  unsigned int n = 0;
  Atom name = XInternAtom (dpy, "_NET_WM_NAME", False);
  Atom utf8 = XInternAtom (dpy, "UTF8_STRING", False);
  gboolean found = FALSE;
  gdk_x11_display_error_trap_push (display); /* windows come and go */
  if (XQueryTree (dpy, root, &root, &parent, &children, &n))
    for (unsigned int i = 0; i < n && !found; i++)
      {
        Atom type;
        int format;
        unsigned long count, after;
        unsigned char *data = NULL;
        if (XGetWindowProperty (dpy, children[i], name, 0, 1024, False, utf8,
                                &type, &format, &count, &after,
                                &data) == Success && data != NULL)
          found = strstr ((const char *) data, text) != NULL;
        if (data != NULL)
          XFree (data);
      }
  if (children != NULL)
    XFree (children);
  gdk_x11_display_error_trap_pop_ignored (display);
  return found;
}

/* As the report ran it: ulimit -v 3000000 (the budget half of it). */
static void
limit_like_report (gpointer data)
{
#ifndef UNDER_ASAN
  struct rlimit rl = { 3000000 * G_GUINT64_CONSTANT (1024),
                       3000000 * G_GUINT64_CONSTANT (1024) };
  setrlimit (RLIMIT_AS, &rl);
#endif
}

/* The program itself, the file given on its command line, under the
 * address-space limit of the report: its window comes up titled with the
 * file (the subject taken, where it aborted) and is still running a
 * second later, ended by us. */
static void
test_declared_size_program (void)
{
  SKIP_WITHOUT_DISPLAY ();
  const char *binary = g_getenv ("SPX_BINARY");
  if (binary == NULL)
    {
      g_test_skip ("SPX_BINARY is not set");
      return;
    }
  g_autofree char *path = declared_path ();
  const char *argv[] = { binary, path, NULL };
  g_auto (GStrv) env = g_get_environ ();
  env = g_environ_unsetenv (env, SPX_MEMORY_BUDGET_ENV);
#ifdef UNDER_ASAN
  env = g_environ_setenv (env, SPX_MEMORY_BUDGET_ENV, "1464M", TRUE);
#endif
  GPid pid = 0;
  gint err_fd = -1;
  g_autoptr (GError) error = NULL;
  g_spawn_async_with_pipes (NULL, (char **) argv, env,
                            G_SPAWN_DO_NOT_REAP_CHILD, limit_like_report,
                            NULL, &pid, NULL, NULL, &err_fd, &error);
  g_assert_no_error (error);
  int status = 0;
  gboolean titled = FALSE, ended = FALSE;
  gint64 end = g_get_monotonic_time () + WAIT_S * G_USEC_PER_SEC;
  gint64 seen = 0;
  while (!ended && g_get_monotonic_time () < end &&
         (!titled || g_get_monotonic_time () < seen + G_USEC_PER_SEC))
    {
      g_usleep (100000);
      ended = waitpid (pid, &status, WNOHANG) == pid;
      if (!titled && window_titled ("win-92681.mtx"))
        {
          titled = TRUE;
          seen = g_get_monotonic_time ();
        }
    }
  if (!ended)
    {
      kill (pid, SIGTERM);
      waitpid (pid, &status, 0);
    }
  char buf[4096];
  gssize got = read (err_fd, buf, sizeof buf - 1);
  buf[MAX (got, 0)] = '\0';
  close (err_fd);
  g_spawn_close_pid (pid);
  if (ended || !titled)
    g_error ("the window %s (status %d); stderr: %s",
             ended ? "ended by itself" : "never showed the file", status, buf);
  g_assert_true (WIFSIGNALED (status) && WTERMSIG (status) == SIGTERM);
  g_assert_null (strstr (buf, "ERROR"));
  g_assert_null (strstr (buf, "CRITICAL"));
}
#endif

int
main (int argc, char **argv)
{
#ifndef UNDER_ASAN
  /* a bomb fails the test, not the machine (ASan's shadow needs more) */
  struct rlimit rl = { G_GUINT64_CONSTANT (3) << 30,
                       G_GUINT64_CONSTANT (3) << 30 };
  setrlimit (RLIMIT_AS, &rl);
#endif
  g_autofree char *home = test_ui_init (&argc, &argv);
  g_test_add_func ("/ui/window/default", test_default);
  g_test_add_func ("/ui/window/default-machine", test_default_machine);
  g_test_add_func ("/ui/window/open-dlmc", test_open_dlmc);
  g_test_add_func ("/ui/window/select-tile", test_select_tile);
  g_test_add_func ("/ui/window/timeline-explain", test_timeline_explain);
  g_test_add_func ("/ui/window/drag-undo", test_drag_undo);
  g_test_add_func ("/ui/window/panel", test_panel);
  g_test_add_func ("/ui/window/panel-machine-origin",
                   test_panel_machine_origin);
  g_test_add_func ("/ui/window/panel-mask-origin", test_panel_mask_origin);
  g_test_add_func ("/ui/window/fit-size", test_fit_size);
  g_test_add_func ("/ui/window/lesson", test_lesson);
  g_test_add_func ("/ui/window/dark-by-name", test_dark_by_name);
  g_test_add_func ("/ui/window/views", test_views);
  g_test_add_func ("/ui/window/hover", test_hover);
  g_test_add_func ("/ui/window/timeline-scroll", test_timeline_scroll);
  g_test_add_func ("/ui/window/lesson-asks", test_lesson_asks);
  g_test_add_func ("/ui/window/sweep-sddmm", test_sweep_sddmm);
  g_test_add_func ("/ui/window/measure-again", test_measure_again);
  g_test_add_func ("/ui/window/compare", test_compare);
  g_test_add_func ("/ui/window/export", test_export);
  g_test_add_func ("/ui/window/export-sizes", test_export_sizes);
  g_test_add_func ("/ui/window/export-fails", test_export_fails);
  g_test_add_func ("/ui/window/export-with-bar", test_export_with_bar);
  g_test_add_func ("/ui/window/export-theme", test_export_theme);
  g_test_add_func ("/ui/window/export-dialog", test_export_dialog);
  g_test_add_func ("/ui/window/sweep-cancel", test_sweep_cancel);
  g_test_add_func ("/ui/window/sweep-waits", test_sweep_waits);
  g_test_add_func ("/ui/window/subject-kept", test_subject_kept);
  g_test_add_func ("/ui/window/typed-number", test_typed_number);
  g_test_add_func ("/ui/window/first-run", test_first_run);
  g_test_add_func ("/ui/window/png-scenario", test_png_scenario);
  g_test_add_func ("/ui/window/hostile-files", test_hostile_files);
  g_test_add_func ("/ui/window/escaped-names", test_escaped_names);
  g_test_add_func ("/ui/window/cancel-making", test_cancel_making);
  g_test_add_func ("/ui/window/declared-size", test_declared_size);
#ifdef SPX_TEST_X11
  g_test_add_func ("/ui/window/declared-size-program",
                   test_declared_size_program);
#endif
  g_test_add_func ("/ui/window/threads-from-bigger-machine",
                   test_threads_from_bigger_machine);
  g_test_add_func ("/ui/window/save-twice", test_save_twice);
  g_test_add_func ("/ui/window/save-read-only", test_save_read_only);
  return test_ui_run (home);
}
