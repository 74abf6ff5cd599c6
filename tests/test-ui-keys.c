/* test-ui-keys.c: the window's keyboard under a display, keys pressed
 * as the keyboard sends them through the application's accelerators:
 * F10 opens the main menu; every key the application binds is in the
 * shortcuts window, and the mask's own keys listed there are the
 * editor's; keys in a window opened on any view raise no GTK critical
 * (test-ui.h makes criticals fatal) and go to the view shown. */
#include "test-ui.h"
#include "test-keys.h"
#include "spx-render-timeline.h"

/* F10 opens the header bar's menu and closes it, as a menu bar's;
 * Escape closes it too. */
static void
test_menu_key (void)
{
  SKIP_WITHOUT_DISPLAY ();
  g_object_set (gtk_settings_get_default (), "gtk-enable-animations", FALSE,
                NULL);
  SpxWindow *w = window_new ();
  GtkWidget *window = GTK_WIDGET (w);
  GtkWidget *menu = GTK_WIDGET (
    gtk_menu_button_get_popover (GTK_MENU_BUTTON (w->menu_button)));
  g_assert_nonnull (menu);
  keys_focus_window (window);
  g_assert_false (gtk_widget_get_visible (menu));
  keys_press (window, GDK_KEY_F10);
  g_assert_true (gtk_widget_get_visible (menu));
  g_assert_true (gtk_widget_is_ancestor (
    gtk_window_get_focus (GTK_WINDOW (w)), menu)); /* arrows walk it */
  keys_press (window, GDK_KEY_F10);
  g_assert_false (gtk_widget_get_visible (menu));
  keys_press (window, GDK_KEY_F10);
  g_assert_true (gtk_widget_get_visible (menu));
  keys_press (window, GDK_KEY_Escape);
  g_assert_false (gtk_widget_get_visible (menu));
  window_close (w);
}

/* Does a shortcuts window's line ("<Primary>z <Primary>y",
 * "<Alt>1...7") hold accel? */
static gboolean
line_holds (const char *line, const char *accel)
{
  guint key, lo, hi;
  GdkModifierType mods, line_mods, hi_mods;
  gtk_accelerator_parse (accel, &key, &mods);
  g_assert_cmpuint (key, !=, 0);
  g_auto (GStrv) alternatives = g_strsplit (line, " ", -1);
  for (guint i = 0; alternatives[i] != NULL; i++)
    {
      g_auto (GStrv) range = g_strsplit (alternatives[i], "...", 2);
      gtk_accelerator_parse (range[0], &lo, &line_mods);
      hi = lo;
      if (range[1] != NULL)
        gtk_accelerator_parse (range[1], &hi, &hi_mods);
      if (mods == line_mods && key >= lo && key <= hi && lo != 0)
        return TRUE;
    }
  return FALSE;
}

/* The shortcuts window's lines, their keys as it shows them. */
static GPtrArray *
shown_lines (SpxWindow *w)
{
  GtkShortcutsWindow *overlay =
    gtk_application_window_get_help_overlay (GTK_APPLICATION_WINDOW (w));
  g_assert_nonnull (overlay);
  GPtrArray *lines = g_ptr_array_new ();
  keys_gather_shortcuts (GTK_WIDGET (overlay), lines);
  return lines;
}

static gboolean
listed (GPtrArray *lines, const char *accel)
{
  for (guint k = 0; k < lines->len; k++)
    {
      g_autofree char *keys = NULL;
      g_object_get (lines->pdata[k], "accelerator", &keys, NULL);
      if (keys != NULL && line_holds (keys, accel))
        return TRUE;
    }
  return FALSE;
}

/* Every key bound to an action of the application (whoever bound it)
 * has a line in the shortcuts window; every line naming an action shows
 * keys (the action has some). */
static void
test_shortcuts_listed (void)
{
  SKIP_WITHOUT_DISPLAY ();
  SpxWindow *w = window_new ();
  g_autoptr (GPtrArray) lines = shown_lines (w);
  g_auto (GStrv) actions = gtk_application_list_action_descriptions (app);
  guint n_keys = 0;
  gboolean f10 = FALSE, prefs = FALSE;
  for (guint i = 0; actions[i] != NULL; i++)
    {
      g_auto (GStrv) accels =
        gtk_application_get_accels_for_action (app, actions[i]);
      for (guint j = 0; accels[j] != NULL; j++, n_keys++)
        {
          if (!listed (lines, accels[j]))
            g_test_fail_printf ("%s (%s) is not in the shortcuts window",
                                accels[j], actions[i]);
          f10 |= g_str_equal (accels[j], "F10");
          prefs |= g_str_equal (actions[i], "app.preferences");
        }
    }
  /* the window's keys are there to check: not an empty list */
  g_assert_true (f10 && prefs);
  g_assert_cmpuint (n_keys, >=, SPX_RENDER_N_VIEWS + 1 + 12);
  for (guint k = 0; k < lines->len; k++)
    {
      g_autofree char *action = NULL, *keys = NULL, *title = NULL;
      g_object_get (lines->pdata[k], "action-name", &action, "accelerator",
                    &keys, "title", &title, NULL);
      if (action != NULL && (keys == NULL || *keys == '\0'))
        g_test_fail_printf ("'%s' names %s, which has no keys", title,
                            action);
    }
  window_close (w);
}

/* The lines without an action are the mask's own keys: the editor takes
 * each of them. */
static void
test_editor_keys_listed (void)
{
  SKIP_WITHOUT_DISPLAY ();
  SpxWindow *w = window_new ();
  g_autoptr (GPtrArray) lines = shown_lines (w);
  guint n_lines = 0;
  for (guint k = 0; k < lines->len; k++)
    {
      g_autofree char *action = NULL, *keys = NULL;
      g_object_get (lines->pdata[k], "action-name", &action, "accelerator",
                    &keys, NULL);
      if (action != NULL || keys == NULL || g_str_has_prefix (keys, "<Alt>"))
        continue;
      n_lines++;
      g_auto (GStrv) alternatives = g_strsplit (keys, " ", -1);
      for (guint i = 0; alternatives[i] != NULL; i++)
        {
          guint key;
          GdkModifierType mods;
          gtk_accelerator_parse (alternatives[i], &key, &mods);
          GdkEvent *ev = keys_event_new (GTK_WIDGET (w), key, mods);
          if (!gtk_widget_event (w->editor, ev))
            g_test_fail_printf ("the mask does not take %s",
                                alternatives[i]);
          gdk_event_free (ev);
        }
    }
  g_assert_cmpuint (n_lines, >=, 2); /* zoom, move */
  window_close (w);
}

/* Keys a user may press anywhere in a view. */
static const guint some_keys[] = {
  GDK_KEY_Left, GDK_KEY_Right, GDK_KEY_Up, GDK_KEY_Down, GDK_KEY_plus,
  GDK_KEY_minus, GDK_KEY_0, GDK_KEY_space, GDK_KEY_Page_Down, GDK_KEY_F10,
  GDK_KEY_Escape,
};

/* A window opened on each view (as --view does: before it shows) takes
 * keys without a critical, at the view shown. */
static void
test_keys_every_view (void)
{
  SKIP_WITHOUT_DISPLAY ();
  for (guint i = 0; i < SPX_RENDER_N_VIEWS; i++)
    {
      SpxWindow *w = spx_window_new (app);
      spx_window_show_view (w, spx_render_views[i]->name);
      gtk_widget_show (GTK_WIDGET (w));
      wait_idle (w);
      keys_focus_window (GTK_WIDGET (w));
      keys_press (GTK_WIDGET (w), GDK_KEY_a);
      g_assert_true (gtk_window_get_focus (GTK_WINDOW (w)) == w->views[i]);
      /* each key to the view: arrows a view does not take move the focus,
       * as GTK's do, and a combo box then given Space pops its menu
       * up with no trigger event (a synthetic press is not current
       * when its menu opens), which GTK warns of */
      for (guint k = 0; k < G_N_ELEMENTS (some_keys); k++)
        {
          gtk_widget_grab_focus (w->views[i]);
          keys_press (GTK_WIDGET (w), some_keys[k]);
        }
      wait_idle (w);
      g_assert_cmpstr (gtk_stack_get_visible_child_name (GTK_STACK (w->stack)),
                       ==, spx_render_views[i]->name);
      window_close (w);
    }
}

/* Alt+N shows view N and its picture takes the keys (the mask's arrows
 * no longer pan it unseen); the panel keeps them when it has them. */
static void
test_keys_follow_view (void)
{
  SKIP_WITHOUT_DISPLAY ();
  SpxWindow *w = window_new ();
  GtkWindow *window = GTK_WINDOW (w);
  keys_focus_window (GTK_WIDGET (w));
  g_assert_true (gtk_window_get_focus (window) == w->editor);
  for (guint i = SPX_RENDER_N_VIEWS; i-- > 0;)
    {
      keys_press_with (GTK_WIDGET (w), GDK_KEY_1 + i, GDK_MOD1_MASK);
      g_assert_cmpstr (gtk_stack_get_visible_child_name (GTK_STACK (w->stack)),
                       ==, spx_render_views[i]->name);
      g_assert_true (gtk_window_get_focus (window) == w->views[i]);
    }
  GtkWidget *spin = spx_scenario_panel_get_control (w->panel,
                                                    SPX_SCENARIO_FIELD_DENSITY);
  gtk_widget_grab_focus (spin);
  keys_press_with (GTK_WIDGET (w), GDK_KEY_2, GDK_MOD1_MASK);
  g_assert_true (gtk_window_get_focus (window) == spin);
  window_close (w);
}

/* The Timeline's zoom keys: Ctrl+plus and Ctrl+minus zoom its axis by
 * a step about the middle, Ctrl+0 shows all of it; on another page they
 * leave it alone (and the Mask's zoom too). */
static void
test_timeline_zoom_keys (void)
{
  SKIP_WITHOUT_DISPLAY ();
  SpxWindow *w = window_new ();
  GtkWidget *window = GTK_WIDGET (w);
  const SpxRenderViewState *st = &w->view_state;
  keys_focus_window (window);
  keys_press_with (window, GDK_KEY_1 + SPX_RENDER_VIEW_TIMELINE,
                   GDK_MOD1_MASK);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (GTK_STACK (w->stack)),
                   ==, "timeline");
  wait_drawn (w->views[SPX_RENDER_VIEW_TIMELINE]);
  g_assert_false (st->zoom_to > st->zoom_from);
  keys_press_with (window, GDK_KEY_plus, GDK_CONTROL_MASK);
  g_assert_cmpfloat_with_epsilon (st->zoom_to - st->zoom_from, 1 / 1.25,
                                  1e-9);
  /* about the middle */
  g_assert_cmpfloat_with_epsilon (st->zoom_to + st->zoom_from, 1, 1e-9);
  keys_press_with (window, GDK_KEY_plus, GDK_CONTROL_MASK);
  g_assert_cmpfloat_with_epsilon (st->zoom_to - st->zoom_from,
                                  1 / 1.25 / 1.25, 1e-9);
  keys_press_with (window, GDK_KEY_minus, GDK_CONTROL_MASK);
  g_assert_cmpfloat_with_epsilon (st->zoom_to - st->zoom_from, 1 / 1.25,
                                  1e-9);
  /* the picture follows */
  const SpxRenderTimelineData *d = w->view_data[SPX_RENDER_VIEW_TIMELINE];
  g_assert_cmpfloat (d->zoom_to - d->zoom_from, ==,
                     st->zoom_to - st->zoom_from);
  keys_press_with (window, GDK_KEY_0, GDK_CONTROL_MASK);
  g_assert_false (st->zoom_to > st->zoom_from);
  /* zoomed, then on the Mask page: its keys are the page's */
  keys_press_with (window, GDK_KEY_plus, GDK_CONTROL_MASK);
  double from = st->zoom_from, to = st->zoom_to;
  g_assert_cmpfloat (to - from, <, 1);
  keys_press_with (window, GDK_KEY_1, GDK_MOD1_MASK);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (GTK_STACK (w->stack)),
                   ==, "mask");
  guint keys[] = { GDK_KEY_plus, GDK_KEY_minus, GDK_KEY_0 };
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    keys_press_with (window, keys[i], GDK_CONTROL_MASK);
  g_assert_cmpfloat (st->zoom_from, ==, from);
  g_assert_cmpfloat (st->zoom_to, ==, to);
  window_close (w);
}

/* The blocks where a and b differ, as br * bcols + bc (same grid). */
static GArray *
changed_blocks (const SpxMask *a, const SpxMask *b)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_assert_cmpuint (a->brows, ==, b->brows);
  g_assert_cmpuint (a->bcols, ==, b->bcols);
  for (guint64 r = 0; r < a->brows; r++)
    for (guint64 c = 0; c < a->bcols; c++)
      if (spx_mask_get (a, r, c) != spx_mask_get (b, r, c))
        {
          guint64 i = r * a->bcols + c;
          g_array_append_val (out, i);
        }
  return out;
}

/* Since before, exactly the blocks of rows r0..r1 × cols c0..c1
 * changed, all to value. */
static void
assert_changed (const SpxMask *before, const SpxMask *now, guint64 r0,
                guint64 r1, guint64 c0, guint64 c1, gboolean value)
{
  g_autoptr (GArray) diff = changed_blocks (before, now);
  g_assert_cmpuint (diff->len, ==, (r1 - r0 + 1) * (c1 - c0 + 1));
  for (guint i = 0; i < diff->len; i++)
    {
      guint64 r = g_array_index (diff, guint64, i) / now->bcols;
      guint64 c = g_array_index (diff, guint64, i) % now->bcols;
      g_assert_true (r >= r0 && r <= r1 && c >= c0 && c <= c1);
      g_assert_cmpint (spx_mask_get (now, r, c), ==, value);
    }
}

static void
assert_same (const SpxMask *a, const SpxMask *b)
{
  g_autoptr (GArray) diff = changed_blocks (a, b);
  g_assert_cmpuint (diff->len, ==, 0);
}

static void
press_times (SpxWindow *w, guint key, GdkModifierType mods, guint times)
{
  for (guint i = 0; i < times; i++)
    keys_press_with (GTK_WIDGET (w), key, mods);
}

/* The block cursor on the Mask view: the first arrow shows it at the
 * middle of the view, arrows move it, Space toggles its block; Shift and
 * arrows stretch a rectangle that Space fills (its block clear) or
 * clears; each Space is one undo step (Ctrl+Z), and the window gets the
 * edit as it gets a mouse stroke's. */
static void
test_block_cursor (void)
{
  SKIP_WITHOUT_DISPLAY ();
  SpxWindow *w = window_new ();
  keys_focus_window (GTK_WIDGET (w));
  SpxMaskEditor *e = SPX_MASK_EDITOR (w->editor);
  g_assert_true (gtk_window_get_focus (GTK_WINDOW (w)) == w->editor);
  g_autoptr (SpxMask) start = spx_mask_copy (spx_mask_editor_get_mask (e),
                                             NULL);
  guint64 mr = start->brows / 2, mc = start->bcols / 2; /* whole mask shown */
  g_assert_cmpuint (start->brows, >=, 8);

  keys_press (GTK_WIDGET (w), GDK_KEY_Right); /* shows it, does not move */
  keys_press (GTK_WIDGET (w), GDK_KEY_space);
  assert_changed (start, spx_mask_editor_get_mask (e), mr, mr, mc, mc,
                  !spx_mask_get (start, mr, mc));
  g_assert_true (spx_mask_editor_can_undo (e));
  g_assert_true (w->dirty);
  g_assert_true (spx_mask_get (w->study->scenario->mask, mr, mc) !=
                 spx_mask_get (start, mr, mc));

  g_autoptr (SpxMask) one = spx_mask_copy (spx_mask_editor_get_mask (e),
                                           NULL);
  press_times (w, GDK_KEY_Right, 0, 2);
  press_times (w, GDK_KEY_Down, 0, 1);
  press_times (w, GDK_KEY_Left, 0, 1);
  keys_press (GTK_WIDGET (w), GDK_KEY_space);
  assert_changed (one, spx_mask_editor_get_mask (e), mr + 1, mr + 1, mc + 1,
                  mc + 1, !spx_mask_get (one, mr + 1, mc + 1));
  keys_press_with (GTK_WIDGET (w), GDK_KEY_z, GDK_CONTROL_MASK);
  assert_same (one, spx_mask_editor_get_mask (e));

  /* a rectangle of 2 × 3 blocks from the cursor, filled or cleared as
   * its far corner's block is clear or set */
  press_times (w, GDK_KEY_Right, GDK_SHIFT_MASK, 2);
  press_times (w, GDK_KEY_Down, GDK_SHIFT_MASK, 1);
  gboolean fill = !spx_mask_get (one, mr + 2, mc + 3);
  keys_press (GTK_WIDGET (w), GDK_KEY_space);
  g_autoptr (SpxMask) filled = spx_mask_copy (spx_mask_editor_get_mask (e),
                                              NULL);
  g_autoptr (GArray) diff = changed_blocks (one, filled);
  for (guint64 r = mr + 1; r <= mr + 2; r++)
    for (guint64 c = mc + 1; c <= mc + 3; c++)
      g_assert_cmpint (spx_mask_get (filled, r, c), ==, fill);
  g_assert_cmpuint (diff->len, <=, 6);
  g_assert_cmpuint (diff->len, >, 0);
  keys_press (GTK_WIDGET (w), GDK_KEY_space); /* now the opposite */
  assert_changed (filled, spx_mask_editor_get_mask (e), mr + 1, mr + 2,
                  mc + 1, mc + 3, !fill);
  keys_press_with (GTK_WIDGET (w), GDK_KEY_z, GDK_CONTROL_MASK);
  assert_same (filled, spx_mask_editor_get_mask (e));
  keys_press_with (GTK_WIDGET (w), GDK_KEY_z, GDK_CONTROL_MASK);
  assert_same (one, spx_mask_editor_get_mask (e));

  /* a plain arrow leaves the rectangle: Space is one block again */
  keys_press (GTK_WIDGET (w), GDK_KEY_Up);
  keys_press (GTK_WIDGET (w), GDK_KEY_space);
  assert_changed (one, spx_mask_editor_get_mask (e), mr + 1, mr + 1, mc + 3,
                  mc + 3, !spx_mask_get (one, mr + 1, mc + 3));
  window_close (w);
}

int
main (int argc, char **argv)
{
  g_autofree char *home = test_ui_init (&argc, &argv);
  g_test_add_func ("/ui/keys/menu", test_menu_key);
  g_test_add_func ("/ui/keys/shortcuts-listed", test_shortcuts_listed);
  g_test_add_func ("/ui/keys/editor-keys-listed", test_editor_keys_listed);
  g_test_add_func ("/ui/keys/every-view", test_keys_every_view);
  g_test_add_func ("/ui/keys/follow-view", test_keys_follow_view);
  g_test_add_func ("/ui/keys/block-cursor", test_block_cursor);
  g_test_add_func ("/ui/keys/timeline-zoom", test_timeline_zoom_keys);
  return test_ui_run (home);
}
