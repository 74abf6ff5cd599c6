/* spx-window-timeline.c: the Timeline's zoom. Ctrl+scroll zooms its
 * cycle axis about the pointer, scrolling pans a zoomed axis,
 * Ctrl+plus, Ctrl+minus and Ctrl+0 zoom about the middle and back to
 * all of it (only while the Timeline is shown: elsewhere the keys are
 * the page's), and a click on a program's name fits the axis to it. The
 * lesson may show all of it on a broken axis; any zoom is to scale. */
#include "spx-window-private.h"
#include "spx-render-timeline.h"
#include "spx-widget-private.h"

#include <math.h>

#define ZOOM_STEP 1.25 /* per scroll click or key press */
#define PAN_STEP  0.1  /* of the picture's width per scroll click */

static GtkWidget *
picture (SpxWindow *w)
{
  return w->views[SPX_RENDER_VIEW_TIMELINE];
}

static gboolean
zoomed (SpxWindow *w)
{
  const SpxRenderViewState *st = &w->view_state;
  return st->zoom_to > st->zoom_from && (st->zoom_from > 0 ||
                                         st->zoom_to < 1);
}

/* By factor about x (factor 1: a pan by dx pixels). */
static void
zoom_at (SpxWindow *w, double x, double factor, double dx)
{
  GtkWidget *v = picture (w);
  SpxRenderViewState *st = &w->view_state;
  spx_render_timeline_zoom (gtk_widget_get_allocated_width (v),
                            gtk_widget_get_allocated_height (v),
                            w->view_data[SPX_RENDER_VIEW_TIMELINE], x,
                            factor, dx, &st->zoom_from, &st->zoom_to);
  st->axis_break = FALSE; /* a zoomed axis is to scale */
  _spx_window_views_changed (w, 0);
}

void
_spx_window_timeline_zoom (SpxWindow *w, double factor)
{
  if (factor > 0)
    zoom_at (w, gtk_widget_get_allocated_width (picture (w)) / 2.0, factor,
             0);
  else
    {
      w->view_state.zoom_from = w->view_state.zoom_to = 0;
      w->view_state.axis_break = FALSE;
      _spx_window_views_changed (w, 0);
    }
}

void
_spx_window_timeline_fit (SpxWindow *w, gint lane)
{
  if (lane == SPX_LESSON_FIT_BROKEN)
    {
      _spx_window_timeline_zoom (w, 0);
      w->view_state.axis_break = TRUE;
      _spx_window_views_changed (w, 0);
    }
  else if (lane < 0)
    _spx_window_timeline_zoom (w, 0);
  else
    {
      spx_render_timeline_fit (w->view_data[SPX_RENDER_VIEW_TIMELINE],
                               (guint) lane, &w->view_state.zoom_from,
                               &w->view_state.zoom_to);
      _spx_window_views_changed (w, 0);
    }
}

gboolean
_spx_window_timeline_fit_at (SpxWindow *w, double x, double y)
{
  GtkWidget *v = picture (w);
  const SpxRenderTimelineData *d = w->view_data[SPX_RENDER_VIEW_TIMELINE];
  gint lane = spx_render_timeline_lane_at (gtk_widget_get_allocated_width (v),
                                           gtk_widget_get_allocated_height (v),
                                           d, x, y);
  if (lane < 0)
    return FALSE;
  _spx_window_timeline_fit (w, lane);
  return TRUE;
}

/* Ctrl: zoom about the pointer; else, when zoomed, pan (either wheel). */
static gboolean
on_scroll (GtkWidget *view, GdkEventScroll *ev, SpxWindow *w)
{
  double dx, dy;
  if (!spx_widget_scroll_steps (ev, &dx, &dy))
    return FALSE;
  if (ev->state & GDK_CONTROL_MASK)
    {
      if (dy != 0)
        zoom_at (w, ev->x, pow (ZOOM_STEP, -dy), 0);
      return dy != 0;
    }
  if (!zoomed (w) || dx + dy == 0)
    return FALSE;
  zoom_at (w, ev->x, 1,
           (dx + dy) * PAN_STEP * gtk_widget_get_allocated_width (view));
  return TRUE;
}

static void
act_zoom_in (GSimpleAction *a, GVariant *p, gpointer data)
{
  _spx_window_timeline_zoom (data, ZOOM_STEP);
}

static void
act_zoom_out (GSimpleAction *a, GVariant *p, gpointer data)
{
  _spx_window_timeline_zoom (data, 1 / ZOOM_STEP);
}

static void
act_zoom_all (GSimpleAction *a, GVariant *p, gpointer data)
{
  _spx_window_timeline_zoom (data, 0);
}

static const GActionEntry zoom_actions[] = {
  { "timeline-zoom-in", act_zoom_in, NULL, NULL, NULL, { 0 } },
  { "timeline-zoom-out", act_zoom_out, NULL, NULL, NULL, { 0 } },
  { "timeline-zoom-all", act_zoom_all, NULL, NULL, NULL, { 0 } },
};

/* The keys act on the Timeline only: disabled, they are left to the
 * page shown. */
static void
on_page_shown (GtkStack *stack, GParamSpec *pspec, SpxWindow *w)
{
  const char *shown = gtk_stack_get_visible_child_name (stack);
  gboolean on = g_strcmp0 (shown, spx_render_view_timeline.name) == 0;
  for (guint i = 0; i < G_N_ELEMENTS (zoom_actions); i++)
    g_simple_action_set_enabled (
      G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (w),
                                                   zoom_actions[i].name)),
      on);
}

void
_spx_window_timeline_init (SpxWindow *w, GtkWidget *view)
{
  gtk_widget_add_events (view, GDK_SCROLL_MASK | GDK_SMOOTH_SCROLL_MASK);
  g_signal_connect (view, "scroll-event", G_CALLBACK (on_scroll), w);
  g_action_map_add_action_entries (G_ACTION_MAP (w), zoom_actions,
                                   G_N_ELEMENTS (zoom_actions), w);
  g_signal_connect (w->stack, "notify::visible-child",
                    G_CALLBACK (on_page_shown), w);
  on_page_shown (GTK_STACK (w->stack), NULL, w);
}
