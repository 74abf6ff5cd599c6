/* spx-window-keys.c: the window's keyboard: the application's
 * accelerators (the one list of them: the shortcuts window shows each
 * line's keys from its action), F10's main menu, and keys following the
 * page shown. */
#include "spx-window-private.h"

void
spx_window_set_accels (GtkApplication *app)
{
  static const struct { const char *action, *accels[3]; } table[] = {
    { "app.quit", { "<Primary>q", NULL } },
    { "app.preferences", { "<Primary>comma", NULL } },
    { "win.open", { "<Primary>o", NULL } },
    { "win.save", { "<Primary>s", NULL } },
    { "win.save-as", { "<Primary><Shift>s", NULL } },
    { "win.export", { "<Primary>e", NULL } },
    { "win.undo", { "<Primary>z", NULL } },
    { "win.redo", { "<Primary><Shift>z", "<Primary>y", NULL } },
    { "win.run-sweep", { "<Primary>r", NULL } },
    { "win.cancel", { "Escape", NULL } },
    { "win.show-help-overlay", { "<Primary>question", NULL } },
    { "win.main-menu", { "F10", NULL } },
    { "win.lesson-next", { "Page_Down", NULL } },
    { "win.lesson-back", { "Page_Up", NULL } },
    { "win.timeline-zoom-in", { "<Primary>plus", "<Primary>equal", NULL } },
    { "win.timeline-zoom-out", { "<Primary>minus", NULL } },
    { "win.timeline-zoom-all", { "<Primary>0", NULL } },
  };
  for (guint i = 0; i < G_N_ELEMENTS (table); i++)
    gtk_application_set_accels_for_action (app, table[i].action,
                                           table[i].accels);
  /* Alt+1, Alt+2, … in the views' order, then the Layers page (the
   * shortcuts window's line for them is the window's) */
  G_STATIC_ASSERT (SPX_RENDER_N_VIEWS + 1 <= 9);
  for (guint i = 0; i <= SPX_RENDER_N_VIEWS; i++)
    {
      g_autofree char *action = g_strdup_printf (
        "win.view::%s", i < SPX_RENDER_N_VIEWS ? spx_render_views[i]->name
                                               : SPX_WINDOW_LAYERS_VIEW);
      g_autofree char *key = g_strdup_printf ("<Alt>%u", i + 1);
      const char *accels[] = { key, NULL };
      gtk_application_set_accels_for_action (app, action, accels);
    }
}

/* F10, as a menu bar's: opens the header bar's menu, or closes it. */
void
_spx_window_toggle_menu (SpxWindow *w)
{
  GtkToggleButton *b = GTK_TOGGLE_BUTTON (w->menu_button);
  gtk_toggle_button_set_active (b, !gtk_toggle_button_get_active (b));
}

/* The picture of the page shown (a view's), else NULL. */
static GtkWidget *
page_picture (SpxWindow *w)
{
  const char *name = gtk_stack_get_visible_child_name (GTK_STACK (w->stack));
  for (guint i = 0; i < SPX_RENDER_N_VIEWS; i++)
    if (g_strcmp0 (name, spx_render_views[i]->name) == 0)
      return w->views[i];
  return NULL;
}

/* Keys in the views go to the page shown: a hidden page's widget would
 * take them unseen (and, never shown, is not realized: GTK refuses
 * every key with a critical). Focus elsewhere (the panel) stays. A
 * window without focus would give it to the panel's first number, where
 * arrows change the problem. */
static void
on_page_shown (GtkStack *stack, GParamSpec *pspec, SpxWindow *w)
{
  GtkWidget *focus = gtk_window_get_focus (GTK_WINDOW (w));
  if (focus != NULL && !gtk_widget_is_ancestor (focus, GTK_WIDGET (stack)))
    return;
  gtk_window_set_focus (GTK_WINDOW (w), page_picture (w));
}

void
_spx_window_keys_init (SpxWindow *w)
{
  for (guint i = 0; i < SPX_RENDER_N_VIEWS; i++)
    gtk_widget_set_can_focus (w->views[i], TRUE);
  g_signal_connect (w->stack, "notify::visible-child",
                    G_CALLBACK (on_page_shown), w);
  on_page_shown (GTK_STACK (w->stack), NULL, w);
}
