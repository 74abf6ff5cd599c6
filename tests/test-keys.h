/* test-keys.h: keys as the keyboard sends them, for the window tests
 * (bindings and input methods need a key's keycode) */
#pragma once

#include <gtk/gtk.h>

/* window has the keyboard, as a window the user works in (a display
 * without a window manager gives it no focus of its own) */
static inline void
keys_focus_window (GtkWidget *window)
{
  GdkEvent *in = gdk_event_new (GDK_FOCUS_CHANGE);
  in->focus_change.window = g_object_ref (gtk_widget_get_window (window));
  in->focus_change.send_event = TRUE;
  in->focus_change.in = TRUE;
  gtk_widget_send_focus_change (window, in);
  gdk_event_free (in);
}

/* A press of keyval with modifiers state, for window (its keycode as
 * the keyboard has it). */
static inline GdkEvent *
keys_event_new (GtkWidget *window, guint keyval, GdkModifierType state)
{
  GdkKeymapKey *keys = NULL;
  gint n = 0;
  GdkKeymap *map = gdk_keymap_get_for_display (gdk_display_get_default ());
  g_assert_true (gdk_keymap_get_entries_for_keyval (map, keyval, &keys, &n));
  GdkEvent *event = gdk_event_new (GDK_KEY_PRESS);
  event->key.time = GDK_CURRENT_TIME;
  event->key.keyval = keyval;
  event->key.state = state;
  event->key.hardware_keycode = (guint16) keys[0].keycode;
  event->key.group = (guint8) keys[0].group;
  g_free (keys);
  event->any.window = g_object_ref (gtk_widget_get_window (window));
  event->any.send_event = TRUE;
  GdkSeat *seat = gdk_display_get_default_seat (gdk_display_get_default ());
  gdk_event_set_device (event, gdk_seat_get_keyboard (seat));
  return event;
}

/* Press keyval with modifiers state in window and let the events it
 * makes run. */
static inline void
keys_press_with (GtkWidget *window, guint keyval, GdkModifierType state)
{
  GdkEvent *event = keys_event_new (window, keyval, state);
  gtk_main_do_event (event);
  gdk_event_free (event);
  while (gtk_events_pending ())
    gtk_main_iteration ();
}

/* Press keyval in window and let the events it makes run. */
static inline void
keys_press (GtkWidget *window, guint keyval)
{
  keys_press_with (window, keyval, 0);
}

/* Type text (ASCII), key by key. */
static inline void
keys_type (GtkWidget *window, const char *text)
{
  for (const char *c = text; *c != '\0'; c++)
    keys_press (window, gdk_unicode_to_keyval ((guchar) *c));
}

/* Every line of a shortcuts window under widget. */
static inline void
keys_gather_shortcuts (GtkWidget *widget, gpointer lines)
{
  if (GTK_IS_SHORTCUTS_SHORTCUT (widget))
    g_ptr_array_add (lines, widget);
  else if (GTK_IS_CONTAINER (widget))
    gtk_container_forall (GTK_CONTAINER (widget), keys_gather_shortcuts,
                          lines);
}
