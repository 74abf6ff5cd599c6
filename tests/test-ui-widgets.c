/* test-ui-widgets.c: SpxMaskEditor, SpxView and SpxScenarioPanel,
 * driven by synthesized GDK events in an offscreen window. Needs a
 * display (run under xvfb-run); without one every test skips. */
#include "spx-mask-editor.h"
#include "spx-scenario-panel.h"
#include "spx-spin-check.h"
#include "spx-view.h"
#include "test-keys.h"

#include <math.h>

#define WIDTH  420
#define HEIGHT 340
#define ROWS   64   /* elements: 16 × 20 blocks of 4 */
#define COLS   80
#define BLOCK  4

static gboolean have_display;

#define REQUIRE_DISPLAY()                       \
  G_STMT_START {                                \
    if (!have_display)                          \
      {                                         \
        g_test_skip ("no display");             \
        return;                                 \
      }                                         \
  } G_STMT_END

/* ------------------------------------------------------------------ */
/* Events                                                              */

static GdkDevice *
pointer (void)
{
  GdkSeat *seat = gdk_display_get_default_seat (gdk_display_get_default ());
  return gdk_seat_get_pointer (seat);
}

static void
deliver (GtkWidget *widget, GdkEvent *event)
{
  event->any.window = g_object_ref (gtk_widget_get_window (widget));
  event->any.send_event = TRUE;
  gdk_event_set_device (event, pointer ());
  gtk_widget_event (widget, event);
  gdk_event_free (event);
}

static void
button (GtkWidget *widget, GdkEventType type, guint b, double x, double y,
        GdkModifierType state)
{
  GdkEvent *event = gdk_event_new (type);
  event->button.time = GDK_CURRENT_TIME;
  event->button.x = x;
  event->button.y = y;
  event->button.button = b;
  event->button.state = state;
  deliver (widget, event);
}

static void
motion (GtkWidget *widget, double x, double y, GdkModifierType state)
{
  GdkEvent *event = gdk_event_new (GDK_MOTION_NOTIFY);
  event->motion.time = GDK_CURRENT_TIME;
  event->motion.x = x;
  event->motion.y = y;
  event->motion.state = state;
  deliver (widget, event);
}

static void
scroll (GtkWidget *widget, GdkScrollDirection direction, double x, double y,
        GdkModifierType state)
{
  GdkEvent *event = gdk_event_new (GDK_SCROLL);
  event->scroll.time = GDK_CURRENT_TIME;
  event->scroll.x = x;
  event->scroll.y = y;
  event->scroll.direction = direction;
  event->scroll.state = state;
  deliver (widget, event);
}

static void
key (GtkWidget *widget, guint keyval)
{
  GdkEvent *event = gdk_event_new (GDK_KEY_PRESS);
  event->key.time = GDK_CURRENT_TIME;
  event->key.keyval = keyval;
  event->any.window = g_object_ref (gtk_widget_get_window (widget));
  event->any.send_event = TRUE;
  GdkSeat *seat = gdk_display_get_default_seat (gdk_display_get_default ());
  gdk_event_set_device (event, gdk_seat_get_keyboard (seat));
  gtk_widget_event (widget, event);
  gdk_event_free (event);
}

static void
flush_events (void)
{
  while (gtk_events_pending ())
    gtk_main_iteration ();
}

/* Draw the widget into an image surface, as an expose would. */
static cairo_surface_t *
draw_widget (GtkWidget *widget)
{
  int w = gtk_widget_get_allocated_width (widget);
  int h = gtk_widget_get_allocated_height (widget);
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, w, h);
  cairo_t *cr = cairo_create (s);
  gtk_widget_draw (widget, cr);
  cairo_destroy (cr);
  cairo_surface_flush (s);
  return s;
}

static guint32
pixel (cairo_surface_t *s, int x, int y)
{
  const guint8 *data = cairo_image_surface_get_data (s);
  int stride = cairo_image_surface_get_stride (s);
  return *(const guint32 *) (data + (gsize) y * stride + (gsize) x * 4) &
         0xffffff;
}

/* ------------------------------------------------------------------ */
/* The editor fixture                                                  */

typedef struct {
  GtkWidget     *window;
  GtkWidget     *widget;
  SpxMaskEditor *editor;
  int            width, height;
  double         col_x[COLS / BLOCK], row_y[ROWS / BLOCK]; /* centres */
  guint          edited, history, activated;
  guint64        act_br, act_bc;
} Fixture;

static void
on_edited (SpxMaskEditor *e, Fixture *f)
{
  f->edited++;
}

static void
on_history (SpxMaskEditor *e, Fixture *f)
{
  f->history++;
}

static void
on_activated (SpxMaskEditor *e, guint64 br, guint64 bc, Fixture *f)
{
  f->activated++;
  f->act_br = br;
  f->act_bc = bc;
}

/* Centres of every block column and row of the unzoomed plot, from the
 * renderer's own hit test. */
static void
find_centres (Fixture *f)
{
  SpxMask *mask = spx_mask_editor_get_mask (f->editor);
  SpxRenderMaskData d = { .mask = mask, .grid = TRUE, .selected_tile = -1 };
  double yin = -1, xin = -1;
  for (double y = 0; y < f->height && yin < 0; y += 1)
    for (double x = 0; x < f->width && yin < 0; x += 1)
      if (spx_render_mask_hit (f->width, f->height, &d, x, y, NULL, NULL))
        {
          xin = x;
          yin = y;
        }
  g_assert_cmpfloat (yin, >=, 0);
  double lo[COLS / BLOCK], hi[COLS / BLOCK];
  for (guint i = 0; i < G_N_ELEMENTS (lo); i++)
    lo[i] = G_MAXDOUBLE, hi[i] = -G_MAXDOUBLE;
  for (double x = 0; x < f->width; x += 0.25)
    {
      guint64 br, bc;
      if (spx_render_mask_hit (f->width, f->height, &d, x, yin + 1, &br, &bc))
        {
          lo[bc] = MIN (lo[bc], x);
          hi[bc] = MAX (hi[bc], x);
        }
    }
  for (guint i = 0; i < G_N_ELEMENTS (lo); i++)
    {
      g_assert_cmpfloat (hi[i], >, lo[i]);
      f->col_x[i] = (lo[i] + hi[i]) / 2;
    }
  double rlo[ROWS / BLOCK], rhi[ROWS / BLOCK];
  for (guint i = 0; i < G_N_ELEMENTS (rlo); i++)
    rlo[i] = G_MAXDOUBLE, rhi[i] = -G_MAXDOUBLE;
  for (double y = 0; y < f->height; y += 0.25)
    {
      guint64 br, bc;
      if (spx_render_mask_hit (f->width, f->height, &d, xin + 1, y, &br, &bc))
        {
          rlo[br] = MIN (rlo[br], y);
          rhi[br] = MAX (rhi[br], y);
        }
    }
  for (guint i = 0; i < G_N_ELEMENTS (rlo); i++)
    {
      g_assert_cmpfloat (rhi[i], >, rlo[i]);
      f->row_y[i] = (rlo[i] + rhi[i]) / 2;
    }
  /* Every centre hits its own block. */
  for (guint r = 0; r < ROWS / BLOCK; r++)
    for (guint c = 0; c < COLS / BLOCK; c++)
      {
        guint64 br, bc;
        g_assert_true (spx_render_mask_hit (f->width, f->height, &d,
                                            f->col_x[c], f->row_y[r],
                                            &br, &bc));
        g_assert_cmpuint (br, ==, r);
        g_assert_cmpuint (bc, ==, c);
      }
}

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  if (!have_display)
    return;
  f->window = gtk_offscreen_window_new ();
  f->widget = spx_mask_editor_new ();
  f->editor = SPX_MASK_EDITOR (f->widget);
  gtk_widget_set_size_request (f->widget, WIDTH, HEIGHT);
  gtk_container_add (GTK_CONTAINER (f->window), f->widget);
  gtk_widget_show_all (f->window);
  flush_events ();
  f->width = gtk_widget_get_allocated_width (f->widget);
  f->height = gtk_widget_get_allocated_height (f->widget);
  g_assert_cmpint (f->width, ==, WIDTH);
  g_assert_cmpint (f->height, ==, HEIGHT);
  g_assert_true (gtk_widget_get_realized (f->widget));

  g_signal_connect (f->widget, "mask-edited", G_CALLBACK (on_edited), f);
  g_signal_connect (f->widget, "history-changed", G_CALLBACK (on_history), f);
  g_signal_connect (f->widget, "block-activated", G_CALLBACK (on_activated),
                    f);
  if (data == NULL)
    {
      g_autoptr (GError) error = NULL;
      SpxMask *mask = spx_mask_new (ROWS, COLS, BLOCK, &error);
      g_assert_no_error (error);
      spx_mask_editor_set_mask (f->editor, mask);
      find_centres (f);
    }
  f->edited = f->history = f->activated = 0;
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  if (f->window != NULL)
    gtk_widget_destroy (f->window);
  flush_events ();
}

/* Press on block (r0, c0), one motion per listed block, release on the
 * last: a stroke. */
static void
stroke (Fixture *f, guint b, const guint *blocks, guint n)
{
  GdkModifierType held = b == 1 ? GDK_BUTTON1_MASK : GDK_BUTTON3_MASK;
  button (f->widget, GDK_BUTTON_PRESS, b, f->col_x[blocks[1]],
          f->row_y[blocks[0]], 0);
  for (guint i = 1; i < n; i++)
    motion (f->widget, f->col_x[blocks[2 * i + 1]], f->row_y[blocks[2 * i]],
            held);
  button (f->widget, GDK_BUTTON_RELEASE, b, f->col_x[blocks[2 * n - 1]],
          f->row_y[blocks[2 * n - 2]], held);
}

static void
click (Fixture *f, guint r, guint c, GdkModifierType state)
{
  button (f->widget, GDK_BUTTON_PRESS, 1, f->col_x[c], f->row_y[r], state);
  button (f->widget, GDK_BUTTON_RELEASE, 1, f->col_x[c], f->row_y[r],
          state | GDK_BUTTON1_MASK);
}

static gboolean
only_rectangle (const SpxMask *m, guint r0, guint c0, guint r1, guint c1)
{
  for (guint64 r = 0; r < m->brows; r++)
    for (guint64 c = 0; c < m->bcols; c++)
      {
        gboolean in = r >= r0 && r <= r1 && c >= c0 && c <= c1;
        if (spx_mask_get (m, r, c) != in)
          return FALSE;
      }
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Editor tests                                                        */

static void
test_draw_fast_drag (Fixture *f, gconstpointer data)
{
  REQUIRE_DISPLAY ();
  SpxMask *m = spx_mask_editor_get_mask (f->editor);
  /* One motion straight from column 1 to column 5: no gaps. */
  const guint path[] = { 2, 1, 2, 5 };
  stroke (f, 1, path, 2);
  g_assert_true (only_rectangle (m, 2, 1, 2, 5));
  g_assert_cmpuint (spx_mask_count (m), ==, 5);
  g_assert_cmpuint (f->edited, ==, 1);
  g_assert_true (spx_mask_editor_can_undo (f->editor));
  g_assert_false (spx_mask_editor_can_redo (f->editor));

  spx_mask_editor_undo (f->editor);
  g_assert_cmpuint (spx_mask_count (m), ==, 0);
  g_assert_false (spx_mask_editor_can_undo (f->editor));
  g_assert_true (spx_mask_editor_can_redo (f->editor));
  g_assert_cmpuint (f->edited, ==, 2);

  spx_mask_editor_redo (f->editor);
  g_assert_true (only_rectangle (m, 2, 1, 2, 5));
  g_assert_cmpuint (f->edited, ==, 3);
  g_assert_cmpuint (f->history, ==, 3);

  /* A long steep diagonal in one motion leaves no row out. */
  const guint diag[] = { 0, 19, 15, 12 };
  stroke (f, 1, diag, 2);
  g_assert_cmpuint (f->edited, ==, 4);
  for (guint64 r = 0; r < m->brows; r++)
    g_assert_cmpuint (spx_mask_count_row (m, r), >=, 1);

  /* Over blocks already set: nothing changes, no step, no signal. */
  guint steps_before = f->history;
  stroke (f, 1, path, 2);
  g_assert_cmpuint (f->edited, ==, 4);
  g_assert_cmpuint (f->history, ==, steps_before);

  /* Undo the diagonal only. */
  spx_mask_editor_undo (f->editor);
  g_assert_true (only_rectangle (m, 2, 1, 2, 5));
}

static void
test_erase (Fixture *f, gconstpointer data)
{
  REQUIRE_DISPLAY ();
  SpxMask *m = spx_mask_editor_get_mask (f->editor);
  spx_mask_editor_set_tool (f->editor, SPX_EDIT_RECTANGLE_DRAW);
  const guint rect[] = { 4, 2, 6, 8 };
  stroke (f, 1, rect, 2);
  g_assert_true (only_rectangle (m, 4, 2, 6, 8));

  /* Right drag with the draw tool erases. */
  spx_mask_editor_set_tool (f->editor, SPX_EDIT_DRAW);
  const guint row5[] = { 5, 0, 5, 3, 5, 11 };
  stroke (f, 3, row5, 3);
  for (guint c = 2; c <= 8; c++)
    g_assert_false (spx_mask_get (m, 5, c));
  g_assert_cmpuint (spx_mask_count (m), ==, 14);

  /* The erase tool with the left button. */
  spx_mask_editor_set_tool (f->editor, SPX_EDIT_ERASE);
  const guint row4[] = { 4, 2, 4, 8 };
  stroke (f, 1, row4, 2);
  g_assert_true (only_rectangle (m, 6, 2, 6, 8));
  g_assert_cmpuint (f->edited, ==, 3);

  /* Rectangle erase. */
  spx_mask_editor_set_tool (f->editor, SPX_EDIT_RECTANGLE_ERASE);
  const guint part[] = { 6, 3, 6, 8 };
  stroke (f, 1, part, 2);
  g_assert_true (only_rectangle (m, 6, 2, 6, 2));
  g_assert_cmpuint (f->edited, ==, 4);

  /* Four undos bring back the empty mask, one step at a time. */
  spx_mask_editor_undo (f->editor);
  g_assert_true (only_rectangle (m, 6, 2, 6, 8));
  spx_mask_editor_undo (f->editor);
  spx_mask_editor_undo (f->editor);
  g_assert_true (only_rectangle (m, 4, 2, 6, 8));
  spx_mask_editor_undo (f->editor);
  g_assert_cmpuint (spx_mask_count (m), ==, 0);
  g_assert_false (spx_mask_editor_can_undo (f->editor));
}

static void
test_rectangle (Fixture *f, gconstpointer data)
{
  REQUIRE_DISPLAY ();
  SpxMask *m = spx_mask_editor_get_mask (f->editor);
  spx_mask_editor_set_tool (f->editor, SPX_EDIT_RECTANGLE_DRAW);

  /* Dragged from bottom right to top left through other blocks; the
   * rubber band shows while dragging and nothing is set before release. */
  button (f->widget, GDK_BUTTON_PRESS, 1, f->col_x[9], f->row_y[7], 0);
  motion (f->widget, f->col_x[15], f->row_y[12], GDK_BUTTON1_MASK);
  cairo_surface_t *s = draw_widget (f->widget);
  cairo_surface_destroy (s);
  motion (f->widget, f->col_x[3], f->row_y[5], GDK_BUTTON1_MASK);
  g_assert_cmpuint (spx_mask_count (m), ==, 0);
  s = draw_widget (f->widget);
  cairo_surface_destroy (s);
  button (f->widget, GDK_BUTTON_RELEASE, 1, f->col_x[3], f->row_y[5],
          GDK_BUTTON1_MASK);
  g_assert_true (only_rectangle (m, 5, 3, 7, 9));
  g_assert_cmpuint (spx_mask_count (m), ==, 3 * 7);
  g_assert_cmpuint (f->edited, ==, 1);

  /* Released outside the plot: clamped to the last block. */
  button (f->widget, GDK_BUTTON_PRESS, 1, f->col_x[18], f->row_y[14], 0);
  button (f->widget, GDK_BUTTON_RELEASE, 1, f->width - 1, f->height - 1,
          GDK_BUTTON1_MASK);
  g_assert_cmpuint (spx_mask_count (m), ==, 3 * 7 + 2 * 2);
  g_assert_true (spx_mask_get (m, 15, 19));

  /* Escape cancels a rectangle. */
  gtk_widget_grab_focus (f->widget);
  button (f->widget, GDK_BUTTON_PRESS, 1, f->col_x[0], f->row_y[0], 0);
  motion (f->widget, f->col_x[2], f->row_y[2], GDK_BUTTON1_MASK);
  key (f->widget, GDK_KEY_Escape);
  button (f->widget, GDK_BUTTON_RELEASE, 1, f->col_x[2], f->row_y[2],
          GDK_BUTTON1_MASK);
  g_assert_false (spx_mask_get (m, 0, 0));
  g_assert_cmpuint (f->edited, ==, 2);

  /* Press outside the plot: no rectangle. */
  button (f->widget, GDK_BUTTON_PRESS, 1, 1, 1, 0);
  button (f->widget, GDK_BUTTON_RELEASE, 1, f->col_x[2], f->row_y[2],
          GDK_BUTTON1_MASK);
  g_assert_cmpuint (f->edited, ==, 2);
}

static void
test_history (Fixture *f, gconstpointer data)
{
  REQUIRE_DISPLAY ();
  SpxMask *m = spx_mask_editor_get_mask (f->editor);
  click (f, 0, 0, 0); /* A */
  click (f, 1, 1, 0); /* B */
  spx_mask_editor_undo (f->editor);
  g_assert_false (spx_mask_get (m, 1, 1));
  g_assert_true (spx_mask_editor_can_redo (f->editor));
  click (f, 2, 2, 0); /* C drops B's redo */
  g_assert_false (spx_mask_editor_can_redo (f->editor));
  spx_mask_editor_undo (f->editor);
  spx_mask_editor_undo (f->editor);
  g_assert_cmpuint (spx_mask_count (m), ==, 0);
  spx_mask_editor_redo (f->editor);
  spx_mask_editor_redo (f->editor);
  g_assert_true (spx_mask_get (m, 0, 0));
  g_assert_true (spx_mask_get (m, 2, 2));
  g_assert_false (spx_mask_get (m, 1, 1));
  g_assert_cmpuint (spx_mask_count (m), ==, 2);
  /* Redo with nothing to redo does nothing. */
  guint edited = f->edited;
  spx_mask_editor_redo (f->editor);
  g_assert_cmpuint (f->edited, ==, edited);

  /* The history keeps the last 200 steps. */
  for (guint i = 0; i < 205; i++)
    {
      spx_mask_editor_set_tool (f->editor,
                                i % 2 ? SPX_EDIT_ERASE : SPX_EDIT_DRAW);
      click (f, 9, 9, 0);
    }
  guint undos = 0;
  while (spx_mask_editor_can_undo (f->editor))
    {
      spx_mask_editor_undo (f->editor);
      undos++;
    }
  g_assert_cmpuint (undos, ==, 200);

  /* A new mask clears the history. */
  spx_mask_editor_redo (f->editor);
  g_assert_true (spx_mask_editor_can_undo (f->editor));
  guint history = f->history;
  spx_mask_editor_set_mask (f->editor, spx_mask_copy (m, NULL));
  g_assert_false (spx_mask_editor_can_undo (f->editor));
  g_assert_false (spx_mask_editor_can_redo (f->editor));
  g_assert_cmpuint (f->history, ==, history + 1);
}

static void
test_activate (Fixture *f, gconstpointer data)
{
  REQUIRE_DISPLAY ();
  SpxMask *m = spx_mask_editor_get_mask (f->editor);
  spx_mask_editor_set_tool (f->editor, SPX_EDIT_SELECT);
  click (f, 7, 13, 0);
  g_assert_cmpuint (f->activated, ==, 1);
  g_assert_cmpuint (f->act_br, ==, 7);
  g_assert_cmpuint (f->act_bc, ==, 13);
  g_assert_cmpuint (spx_mask_count (m), ==, 0);

  /* Ctrl+click with the draw tool activates and does not draw. */
  spx_mask_editor_set_tool (f->editor, SPX_EDIT_DRAW);
  click (f, 15, 0, GDK_CONTROL_MASK);
  g_assert_cmpuint (f->activated, ==, 2);
  g_assert_cmpuint (f->act_br, ==, 15);
  g_assert_cmpuint (f->act_bc, ==, 0);
  g_assert_cmpuint (spx_mask_count (m), ==, 0);
  g_assert_cmpuint (f->edited, ==, 0);

  /* Outside the plot: nothing. */
  spx_mask_editor_set_tool (f->editor, SPX_EDIT_SELECT);
  button (f->widget, GDK_BUTTON_PRESS, 1, 0, 0, 0);
  button (f->widget, GDK_BUTTON_RELEASE, 1, 0, 0, GDK_BUTTON1_MASK);
  g_assert_cmpuint (f->activated, ==, 2);
}

/* The block a select click at (x, y) activates; FALSE for none. */
static gboolean
probe (Fixture *f, double x, double y, guint64 *br, guint64 *bc)
{
  guint before = f->activated;
  button (f->widget, GDK_BUTTON_PRESS, 1, x, y, 0);
  button (f->widget, GDK_BUTTON_RELEASE, 1, x, y, GDK_BUTTON1_MASK);
  if (f->activated == before)
    return FALSE;
  *br = f->act_br;
  *bc = f->act_bc;
  return TRUE;
}

static void
test_zoom (Fixture *f, gconstpointer data)
{
  REQUIRE_DISPLAY ();
  spx_mask_editor_set_tool (f->editor, SPX_EDIT_SELECT);
  double px = f->col_x[10], py = f->row_y[8];
  double qx = f->col_x[2], qy = f->row_y[2];
  guint64 br, bc;

  spx_mask_editor_zoom (f->editor, 2.0, px, py);
  g_assert_true (probe (f, px, py, &br, &bc)); /* fixed point */
  g_assert_cmpuint (br, ==, 8);
  g_assert_cmpuint (bc, ==, 10);
  g_assert_true (probe (f, qx, qy, &br, &bc)); /* closer to it */
  g_assert_cmpuint (br, >, 2);
  g_assert_cmpuint (bc, >, 2);
  g_assert_cmpuint (br, <, 8);
  g_assert_cmpuint (bc, <, 10);

  /* Drawing follows the zoom. */
  spx_mask_editor_set_tool (f->editor, SPX_EDIT_DRAW);
  click (f, 2, 2, 0);
  SpxMask *m = spx_mask_editor_get_mask (f->editor);
  g_assert_true (spx_mask_get (m, br, bc));
  g_assert_false (spx_mask_get (m, 2, 2));
  spx_mask_editor_set_tool (f->editor, SPX_EDIT_SELECT);

  spx_mask_editor_zoom_reset (f->editor);
  g_assert_true (probe (f, qx, qy, &br, &bc));
  g_assert_cmpuint (br, ==, 2);
  g_assert_cmpuint (bc, ==, 2);

  /* Ctrl+scroll zooms about the pointer, 0 resets. */
  scroll (f->widget, GDK_SCROLL_UP, px, py, GDK_CONTROL_MASK);
  scroll (f->widget, GDK_SCROLL_UP, px, py, GDK_CONTROL_MASK);
  g_assert_true (probe (f, px, py, &br, &bc));
  g_assert_cmpuint (br, ==, 8);
  g_assert_cmpuint (bc, ==, 10);
  g_assert_true (probe (f, qx, qy, &br, &bc));
  g_assert_cmpuint (br, >, 2);
  /* Scroll down pans down: the same pixel shows a lower row. */
  guint64 before_r = 0, before_c = 0;
  g_assert_true (probe (f, px, py, &before_r, &before_c));
  scroll (f->widget, GDK_SCROLL_DOWN, px, py, 0);
  g_assert_true (probe (f, px, py, &br, &bc));
  g_assert_cmpuint (br, >, before_r);
  g_assert_cmpuint (bc, ==, before_c);
  /* Shift+scroll pans sideways. */
  scroll (f->widget, GDK_SCROLL_DOWN, px, py, GDK_SHIFT_MASK);
  g_assert_true (probe (f, px, py, &before_r, &before_c));
  g_assert_cmpuint (before_c, >, bc);
  /* Middle drag pans: dragging left shows columns further right. */
  button (f->widget, GDK_BUTTON_PRESS, 2, px, py, 0);
  motion (f->widget, px - 40, py, GDK_BUTTON2_MASK);
  button (f->widget, GDK_BUTTON_RELEASE, 2, px - 40, py, GDK_BUTTON2_MASK);
  g_assert_true (probe (f, px, py, &br, &bc));
  g_assert_cmpuint (bc, >, before_c);

  gtk_widget_grab_focus (f->widget);
  key (f->widget, GDK_KEY_0);
  g_assert_true (probe (f, qx, qy, &br, &bc));
  g_assert_cmpuint (br, ==, 2);
  g_assert_cmpuint (bc, ==, 2);

  /* + zooms in about the middle, - back out. */
  key (f->widget, GDK_KEY_plus);
  g_assert_true (probe (f, qx, qy, &br, &bc));
  g_assert_true (br != 2 || bc != 2);
  key (f->widget, GDK_KEY_minus);
  g_assert_true (probe (f, qx, qy, &br, &bc));
  g_assert_cmpuint (br, ==, 2);
  g_assert_cmpuint (bc, ==, 2);

  /* Zooming far in and out stays inside the mask. */
  for (int i = 0; i < 30; i++)
    spx_mask_editor_zoom (f->editor, 3.0, 0, 0);
  g_assert_true (probe (f, f->width / 2.0, f->height / 2.0 + 20, &br, &bc));
  for (int i = 0; i < 30; i++)
    spx_mask_editor_zoom (f->editor, 0.1, f->width, f->height);
  g_assert_true (probe (f, qx, qy, &br, &bc));
  g_assert_cmpuint (br, ==, 2);
  g_assert_cmpuint (bc, ==, 2);
}

static void
test_tooltip_and_draw (Fixture *f, gconstpointer data)
{
  REQUIRE_DISPLAY ();
  SpxMask *m = spx_mask_editor_get_mask (f->editor);
  GtkTooltip *tooltip = g_object_new (GTK_TYPE_TOOLTIP, NULL);
  gboolean shown = FALSE;
  g_signal_emit_by_name (f->widget, "query-tooltip", (int) f->col_x[3],
                         (int) f->row_y[4], FALSE, tooltip, &shown);
  g_assert_true (shown);
  shown = TRUE;
  g_signal_emit_by_name (f->widget, "query-tooltip", 0, 0, FALSE, tooltip,
                         &shown);
  g_assert_false (shown);
  g_object_unref (tooltip);

  /* The picture follows edits, themes and overlays. */
  int x = (int) f->col_x[6], y = (int) f->row_y[6];
  cairo_surface_t *s0 = draw_widget (f->widget);
  click (f, 6, 6, 0);
  g_assert_true (spx_mask_get (m, 6, 6));
  cairo_surface_t *s1 = draw_widget (f->widget);
  g_assert_cmphex (pixel (s0, x, y), !=, pixel (s1, x, y));
  spx_mask_editor_undo (f->editor);
  cairo_surface_t *s2 = draw_widget (f->widget);
  g_assert_cmphex (pixel (s0, x, y), ==, pixel (s2, x, y));
  spx_mask_editor_set_theme (f->editor, SPX_THEME_DARK);
  cairo_surface_t *s3 = draw_widget (f->widget);
  g_assert_cmphex (pixel (s0, 1, 1), !=, pixel (s3, 1, 1));
  spx_mask_editor_set_selected_tile (f->editor, 3);
  spx_mask_editor_set_colour_by_tile (f->editor, TRUE);
  spx_mask_editor_set_program (f->editor, NULL);
  cairo_surface_destroy (draw_widget (f->widget));
  cairo_surface_destroy (s0);
  cairo_surface_destroy (s1);
  cairo_surface_destroy (s2);
  cairo_surface_destroy (s3);
}

static void
test_null_mask (Fixture *f, gconstpointer data)
{
  REQUIRE_DISPLAY ();
  g_assert_null (spx_mask_editor_get_mask (f->editor));
  cairo_surface_destroy (draw_widget (f->widget));
  for (SpxEditTool t = SPX_EDIT_DRAW; t <= SPX_EDIT_SELECT; t++)
    {
      spx_mask_editor_set_tool (f->editor, t);
      button (f->widget, GDK_BUTTON_PRESS, 1, 100, 100, 0);
      motion (f->widget, 200, 150, GDK_BUTTON1_MASK);
      button (f->widget, GDK_BUTTON_RELEASE, 1, 200, 150, GDK_BUTTON1_MASK);
    }
  scroll (f->widget, GDK_SCROLL_UP, 100, 100, GDK_CONTROL_MASK);
  scroll (f->widget, GDK_SCROLL_DOWN, 100, 100, 0);
  gtk_widget_grab_focus (f->widget);
  key (f->widget, GDK_KEY_plus);
  key (f->widget, GDK_KEY_0);
  spx_mask_editor_zoom (f->editor, 2, 10, 10);
  spx_mask_editor_zoom_reset (f->editor);
  spx_mask_editor_undo (f->editor);
  spx_mask_editor_redo (f->editor);
  GtkTooltip *tooltip = g_object_new (GTK_TYPE_TOOLTIP, NULL);
  gboolean shown = TRUE;
  g_signal_emit_by_name (f->widget, "query-tooltip", 100, 100, FALSE,
                         tooltip, &shown);
  g_assert_false (shown);
  g_object_unref (tooltip);
  cairo_surface_destroy (draw_widget (f->widget));
  g_assert_cmpuint (f->edited + f->history + f->activated, ==, 0);

  /* A mask, then none again; and a one-block mask. */
  spx_mask_editor_set_mask (f->editor, spx_mask_new (3, 3, 4, NULL));
  spx_mask_editor_set_tool (f->editor, SPX_EDIT_DRAW);
  button (f->widget, GDK_BUTTON_PRESS, 1, f->width / 2.0,
          f->height / 2.0 + 20, 0);
  button (f->widget, GDK_BUTTON_RELEASE, 1, f->width / 2.0,
          f->height / 2.0 + 20, GDK_BUTTON1_MASK);
  g_assert_cmpuint (spx_mask_count (spx_mask_editor_get_mask (f->editor)),
                    ==, 1);
  spx_mask_editor_zoom (f->editor, 8, 10, 10);
  cairo_surface_destroy (draw_widget (f->widget));
  spx_mask_editor_set_mask (f->editor, NULL);
  cairo_surface_destroy (draw_widget (f->widget));
  g_assert_false (spx_mask_editor_can_undo (f->editor));
}

/* ------------------------------------------------------------------ */
/* SpxView                                                             */

typedef struct {
  double r, g, b;
} Colour;

static guint render_calls;

static void
test_renderer (cairo_t *cr, double width, double height, gconstpointer data,
               const SpxRenderStyle *style)
{
  const Colour *c = data;
  render_calls++;
  g_assert_cmpfloat (width, >, 0);
  g_assert_cmpfloat (height, >, 0);
  if (style->theme == SPX_THEME_DARK)
    cairo_set_source_rgb (cr, 0, 0, 0);
  else
    cairo_set_source_rgb (cr, c->r, c->g, c->b);
  cairo_paint (cr);
}

static void
test_view (void)
{
  REQUIRE_DISPLAY ();
  GtkWidget *window = gtk_offscreen_window_new ();
  GtkWidget *widget = spx_view_new ();
  SpxView *view = SPX_VIEW (widget);
  gtk_container_add (GTK_CONTAINER (window), widget);
  gtk_widget_show_all (window);
  flush_events ();
  int min_w, min_h, nat;
  gtk_widget_get_preferred_width (widget, &min_w, &nat);
  gtk_widget_get_preferred_height (widget, &min_h, &nat);
  g_assert_cmpint (min_w, ==, 320);
  g_assert_cmpint (min_h, ==, 200);

  /* No renderer: the background. */
  cairo_surface_destroy (draw_widget (widget));
  g_assert_cmpint (spx_view_get_theme (view), ==, SPX_THEME_LIGHT);
  g_assert_nonnull (spx_view_get_style (view));

  Colour c = { 1, 0, 0 };
  render_calls = 0;
  spx_view_set_renderer (view, test_renderer, &c);
  cairo_surface_t *s = draw_widget (widget);
  g_assert_cmpuint (render_calls, ==, 1);
  g_assert_cmphex (pixel (s, 5, 5), ==, 0xff0000);
  cairo_surface_destroy (s);

  /* Exposes reuse the picture, even if the data changed unannounced. */
  c.r = 0;
  c.b = 1;
  s = draw_widget (widget);
  g_assert_cmpuint (render_calls, ==, 1);
  g_assert_cmphex (pixel (s, 5, 5), ==, 0xff0000);
  cairo_surface_destroy (s);

  /* spx_view_changed renders again. */
  spx_view_changed (view);
  s = draw_widget (widget);
  g_assert_cmpuint (render_calls, ==, 2);
  g_assert_cmphex (pixel (s, 5, 5), ==, 0x0000ff);
  cairo_surface_destroy (s);
  cairo_surface_destroy (draw_widget (widget));
  g_assert_cmpuint (render_calls, ==, 2);

  /* So does a new theme (and the same one does not). */
  spx_view_set_theme (view, SPX_THEME_DARK);
  g_assert_cmpint (spx_view_get_theme (view), ==, SPX_THEME_DARK);
  g_assert_cmpint (spx_view_get_style (view)->theme, ==, SPX_THEME_DARK);
  s = draw_widget (widget);
  g_assert_cmpuint (render_calls, ==, 3);
  g_assert_cmphex (pixel (s, 5, 5), ==, 0x000000);
  cairo_surface_destroy (s);
  spx_view_set_theme (view, SPX_THEME_DARK);
  cairo_surface_destroy (draw_widget (widget));
  g_assert_cmpuint (render_calls, ==, 3);

  /* And a new size. */
  int w0 = gtk_widget_get_allocated_width (widget);
  gtk_widget_set_size_request (widget, w0 + 50, 250);
  gtk_container_check_resize (GTK_CONTAINER (window));
  flush_events ();
  g_assert_cmpint (gtk_widget_get_allocated_width (widget), ==, w0 + 50);
  cairo_surface_destroy (draw_widget (widget));
  g_assert_cmpuint (render_calls, ==, 4);

  /* Back to nothing. */
  spx_view_set_renderer (view, NULL, NULL);
  cairo_surface_destroy (draw_widget (widget));
  g_assert_cmpuint (render_calls, ==, 4);
  gtk_widget_destroy (window);
  flush_events ();
}

/* ------------------------------------------------------------------ */
/* SpxScenarioPanel                                                    */

/* What the panel said, one line per signal. */
static GString *said;

static void
said_generator (SpxScenarioPanel *p, const SpxStudyGenerator *g,
                gpointer data)
{
  g_string_append_printf (said, "generator %" G_GUINT64_FORMAT " %"
                          G_GUINT64_FORMAT " %s %.4f %" G_GUINT64_FORMAT
                          "\n", g->m, g->k, spx_pattern_to_string (g->pattern),
                          g->density, g->seed);
}

static void
said_uint (SpxScenarioPanel *p, guint v, const char *what)
{
  g_string_append_printf (said, "%s %u\n", what, v);
}

static void
said_int (SpxScenarioPanel *p, gint v, const char *what)
{
  g_string_append_printf (said, "%s %d\n", what, v);
}

static void
said_n (SpxScenarioPanel *p, guint64 n, gpointer data)
{
  g_string_append_printf (said, "n %" G_GUINT64_FORMAT "\n", n);
}

static void
said_preset (SpxScenarioPanel *p, const char *name, gpointer data)
{
  g_string_append_printf (said, "preset %s\n", name);
}

static void
said_figures (SpxScenarioPanel *p, const SpxMachineFigures *f, gpointer data)
{
  g_string_append_printf (said, "figures %u %" G_GUINT64_FORMAT " %g %g\n",
                          f->tiles, f->sram_bytes, f->clock_hz,
                          f->exchange_bytes_per_cycle);
}

static void
listen (GtkWidget *panel)
{
  g_signal_connect (panel, "generator-changed", G_CALLBACK (said_generator),
                    NULL);
  g_signal_connect (panel, "block-changed", G_CALLBACK (said_uint), "block");
  g_signal_connect (panel, "n-changed", G_CALLBACK (said_n), NULL);
  g_signal_connect (panel, "dtype-changed", G_CALLBACK (said_int), "dtype");
  g_signal_connect (panel, "threads-changed", G_CALLBACK (said_uint),
                    "threads");
  g_signal_connect (panel, "preset-chosen", G_CALLBACK (said_preset), NULL);
  g_signal_connect (panel, "machine-edited", G_CALLBACK (said_figures), NULL);
  g_signal_connect (panel, "mode-changed", G_CALLBACK (said_int), "mode");
}

/* What was said since the last call, and nothing more. */
static void
assert_said (const char *expected)
{
  g_assert_cmpstr (said->str, ==, expected);
  g_string_truncate (said, 0);
}

static GtkWidget *
control (GtkWidget *panel, SpxScenarioField field)
{
  return spx_scenario_panel_get_control (SPX_SCENARIO_PANEL (panel), field);
}

static double
spin_value (GtkWidget *panel, SpxScenarioField field)
{
  return gtk_spin_button_get_value (GTK_SPIN_BUTTON (control (panel, field)));
}

static void
set_spin (GtkWidget *panel, SpxScenarioField field, double value)
{
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (control (panel, field)), value);
}

static void
set_combo (GtkWidget *panel, SpxScenarioField field, const char *id)
{
  g_assert_true (gtk_combo_box_set_active_id (
    GTK_COMBO_BOX (control (panel, field)), id));
}

/* An offscreen window with a panel showing study, what the panel says
 * going into said (made here). */
static GtkWidget *
panel_window (const SpxStudy *study, GtkWidget **panel)
{
  said = g_string_new (NULL);
  GtkWidget *window = gtk_offscreen_window_new ();
  *panel = spx_scenario_panel_new ();
  gtk_container_add (GTK_CONTAINER (window), *panel);
  gtk_widget_show_all (window);
  listen (*panel);
  spx_scenario_panel_load (SPX_SCENARIO_PANEL (*panel), study);
  return window;
}

/* Loading shows the study and says nothing; every edit by the user is
 * said once, with its value; the generator's five are said together,
 * and only when they differ from what is shown. */
static void
test_panel_says (void)
{
  REQUIRE_DISPLAY ();
  g_autoptr (SpxStudy) study = spx_study_new ();
  GtkWidget *panel, *window = panel_window (study, &panel);
  SpxScenarioPanel *p = SPX_SCENARIO_PANEL (panel);
  spx_scenario_panel_set_mode (p, SPX_IPU_MODE_DYNAMIC);
  assert_said ("");
  g_assert_cmpfloat (spin_value (panel, SPX_SCENARIO_FIELD_M), ==, 4096);
  g_assert_cmpfloat (spin_value (panel, SPX_SCENARIO_FIELD_N), ==, 1024);
  g_assert_cmpfloat (spin_value (panel, SPX_SCENARIO_FIELD_BLOCK), ==, 16);
  g_assert_cmpfloat (spin_value (panel, SPX_SCENARIO_FIELD_DENSITY), ==,
                     1.0 / 16);
  g_assert_cmpfloat (spin_value (panel, SPX_SCENARIO_FIELD_SRAM), ==,
                     (double) study->machine->sram_bytes / 1024);
  g_assert_cmpstr (gtk_combo_box_get_active_id (GTK_COMBO_BOX (
                     control (panel, SPX_SCENARIO_FIELD_MACHINE))), ==,
                   "bow");
  g_assert_cmpint (gtk_combo_box_get_active (GTK_COMBO_BOX (
                     control (panel, SPX_SCENARIO_FIELD_MODE))), ==,
                   SPX_IPU_MODE_DYNAMIC);

  set_spin (panel, SPX_SCENARIO_FIELD_BLOCK, 8);
  set_spin (panel, SPX_SCENARIO_FIELD_N, 32);
  set_combo (panel, SPX_SCENARIO_FIELD_DTYPE, "fp32");
  set_spin (panel, SPX_SCENARIO_FIELD_THREADS, 1);
  set_combo (panel, SPX_SCENARIO_FIELD_MODE, "dense");
  assert_said ("block 8\nn 32\ndtype 1\nthreads 1\nmode 0\n");

  set_spin (panel, SPX_SCENARIO_FIELD_M, 2048);
  set_combo (panel, SPX_SCENARIO_FIELD_PATTERN, "banded");
  /* the same density as shown, to the digits shown: nothing new */
  set_spin (panel, SPX_SCENARIO_FIELD_DENSITY, 1.0 / 16 + 1e-5);
  set_spin (panel, SPX_SCENARIO_FIELD_SEED, 7);
  assert_said ("generator 2048 4096 uniform 0.0625 1\n"
               "generator 2048 4096 banded 0.0625 1\n"
               "generator 2048 4096 banded 0.0625 7\n");

  /* what-if figures, all four at once; "custom" is no choice (listed
   * only while the study's machine is edited, then shown, said by none) */
  GtkComboBox *machines = GTK_COMBO_BOX (control (panel,
                                                  SPX_SCENARIO_FIELD_MACHINE));
  g_assert_false (gtk_combo_box_set_active_id (machines,
                                               SPX_STUDY_CUSTOM_MACHINE));
  set_spin (panel, SPX_SCENARIO_FIELD_TILES, 100);
  g_autofree char *figures = g_strdup_printf (
    "figures 100 %" G_GUINT64_FORMAT " %g %g\n",
    study->machine->sram_bytes, study->machine->clock_hz,
    study->machine->exchange_bytes_per_cycle);
  assert_said (figures);
  SpxMachineFigures f = { 100, study->machine->sram_bytes,
                          study->machine->clock_hz,
                          study->machine->exchange_bytes_per_cycle };
  g_assert_true (spx_study_set_machine_figures (study, &f, NULL));
  spx_scenario_panel_load (p, study);
  g_assert_cmpstr (gtk_combo_box_get_active_id (machines), ==,
                   SPX_STUDY_CUSTOM_MACHINE);
  g_autofree char *custom = gtk_combo_box_text_get_active_text (
    GTK_COMBO_BOX_TEXT (machines));
  g_assert_cmpstr (custom, ==, "custom (edited)");
  set_combo (panel, SPX_SCENARIO_FIELD_MACHINE, "teach16");
  assert_said ("preset teach16\n");

  /* a drawing's density is what it has: said with the shape */
  SpxMask *mask = spx_mask_new (64, 64, 32, NULL);
  spx_mask_set (mask, 0, 1);
  spx_study_set_drawn (study, mask);
  spx_scenario_panel_load (p, study);
  assert_said ("");
  g_assert_cmpfloat (spin_value (panel, SPX_SCENARIO_FIELD_DENSITY), ==,
                     0.25);
  set_spin (panel, SPX_SCENARIO_FIELD_K, 128);
  assert_said ("generator 64 128 uniform 0.2500 1\n");
  gtk_widget_destroy (window);
  flush_events ();
  g_string_free (said, TRUE);
}

/* Text typed into spin, then Enter. */
static void
enter (GtkWidget *spin, const char *text)
{
  gtk_entry_set_text (GTK_ENTRY (spin), text);
  gtk_widget_activate (spin);
  flush_events ();
}

/* Every number of the panel refuses text it cannot read, a number past
 * its range and (when it shows no decimals) a fraction: it keeps its
 * value, says nothing and shows why; a number it can read is said. */
static void
test_panel_refuses (void)
{
  REQUIRE_DISPLAY ();
  g_autoptr (SpxStudy) study = spx_study_new ();
  GtkWidget *panel, *window = panel_window (study, &panel);
  guint spins = 0;
  for (guint f = 0; f < SPX_SCENARIO_N_FIELDS; f++)
    {
      if (!GTK_IS_SPIN_BUTTON (control (panel, f)))
        continue;
      spins++;
      GtkSpinButton *spin = GTK_SPIN_BUTTON (control (panel, f));
      double before = gtk_spin_button_get_value (spin), lo, hi;
      gtk_spin_button_get_range (spin, &lo, &hi);
      g_autofree char *shown = g_strdup (gtk_entry_get_text (
                                           GTK_ENTRY (spin)));
      g_autofree char *above = g_strdup_printf ("%.15g", hi * 2 + 1);
      g_autofree char *past = g_strdup_printf (
        "'%s' is not between %.15g and %.15g: kept %s", above, lo, hi, shown);
      g_autofree char *x = g_strdup_printf ("'x' is not a number: kept %s",
                                            shown);
      const char *texts[] = { "x", "", above, "1.5", "1/0" };
      const char *problems[] = { x, NULL, past, NULL, NULL };
      for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
        {
          gboolean whole = gtk_spin_button_get_digits (spin) == 0;
          if (i == 3 && (!whole || lo > 1.5))
            continue; /* 1.5 is refused only by whole numbers */
          enter (GTK_WIDGET (spin), texts[i]);
          g_assert_cmpfloat (gtk_spin_button_get_value (spin), ==, before);
          g_assert_cmpstr (gtk_entry_get_text (GTK_ENTRY (spin)), ==, shown);
          const char *problem = spx_spin_check_get_problem (spin);
          g_assert_nonnull (problem);
          if (problems[i] != NULL)
            g_assert_cmpstr (problem, ==, problems[i]);
          g_assert_true (gtk_style_context_has_class (
            gtk_widget_get_style_context (GTK_WIDGET (spin)), "error"));
          assert_said ("");
        }
      /* editing the text ends the message; an end of the range (the
       * other than shown) is taken */
      double end = before == lo ? hi : lo;
      g_autofree char *text = g_strdup_printf ("%.15g", end);
      enter (GTK_WIDGET (spin), text);
      g_assert_null (spx_spin_check_get_problem (spin));
      g_assert_false (gtk_style_context_has_class (
        gtk_widget_get_style_context (GTK_WIDGET (spin)), "error"));
      g_assert_cmpfloat (gtk_spin_button_get_value (spin), ==, end);
      g_assert_cmpstr (said->str, !=, "");
      g_string_truncate (said, 0);
    }
  g_assert_cmpuint (spins, ==, 11);
  gtk_widget_destroy (window);
  flush_events ();
  g_string_free (said, TRUE);
}

/* Tab goes down the panel, one control after another (keys need a
 * window on the display, not an offscreen one). */
static void
test_panel_focus (void)
{
  REQUIRE_DISPLAY ();
  GtkWidget *window = gtk_window_new (GTK_WINDOW_TOPLEVEL);
  GtkWidget *panel = spx_scenario_panel_new ();
  gtk_widget_set_size_request (panel, 300, 900);
  gtk_container_add (GTK_CONTAINER (window), panel);
  g_autoptr (SpxStudy) study = spx_study_new ();
  spx_scenario_panel_load (SPX_SCENARIO_PANEL (panel), study);
  spx_scenario_panel_set_mode (SPX_SCENARIO_PANEL (panel),
                               SPX_IPU_MODE_STATIC);
  gtk_widget_show_all (window);
  flush_events ();
  keys_focus_window (window);
  gtk_widget_grab_focus (control (panel, SPX_SCENARIO_FIELD_M));
  for (guint f = 0; f < SPX_SCENARIO_N_FIELDS; f++)
    {
      GtkWidget *focus = gtk_window_get_focus (GTK_WINDOW (window));
      GtkWidget *c = control (panel, f);
      g_assert_true (focus == c || gtk_widget_is_ancestor (focus, c));
      keys_press (window, GDK_KEY_Tab);
    }
  gtk_widget_destroy (window);
  flush_events ();
}

int
main (int argc, char **argv)
{
  /* No accessibility bus under Xvfb: keep its warnings out. */
  g_setenv ("NO_AT_BRIDGE", "1", TRUE);
  have_display = gtk_init_check (&argc, &argv);
  g_test_init (&argc, &argv, NULL);

#define EDITOR_TEST(path, func, data)                                   \
  g_test_add ("/ui/mask-editor/" path, Fixture, data, fixture_setup,    \
              func, fixture_teardown)
  EDITOR_TEST ("draw-fast-drag", test_draw_fast_drag, NULL);
  EDITOR_TEST ("erase", test_erase, NULL);
  EDITOR_TEST ("rectangle", test_rectangle, NULL);
  EDITOR_TEST ("history", test_history, NULL);
  EDITOR_TEST ("activate", test_activate, NULL);
  EDITOR_TEST ("zoom", test_zoom, NULL);
  EDITOR_TEST ("tooltip-draw", test_tooltip_and_draw, NULL);
  EDITOR_TEST ("null-mask", test_null_mask, "no mask");
#undef EDITOR_TEST
  g_test_add_func ("/ui/view/cache", test_view);
  g_test_add_func ("/ui/scenario-panel/says", test_panel_says);
  g_test_add_func ("/ui/scenario-panel/focus", test_panel_focus);
  g_test_add_func ("/ui/scenario-panel/refuses", test_panel_refuses);
  return g_test_run ();
}
