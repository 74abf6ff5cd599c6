/* spx-widget-private.h: what the widgets in ui/ share (not installed) */
#pragma once

#include <gtk/gtk.h>

#include "spx-render-export.h"

G_BEGIN_DECLS

/* A picture of func at the widget's width × height logical pixels in an
 * image surface fit for its window (device scale included), to be
 * painted at (0, 0) until something changes. NULL when the widget has no
 * window yet or cairo cannot make the surface: the caller then draws
 * straight into its cairo_t. */
static inline cairo_surface_t *
spx_widget_render_picture (GtkWidget *widget, int width, int height,
                           SpxRenderFunc func, gconstpointer data,
                           const SpxRenderStyle *style)
{
  GdkWindow *window = gtk_widget_get_window (widget);
  if (window == NULL || width <= 0 || height <= 0)
    return NULL;
  int scale = gtk_widget_get_scale_factor (widget);
  cairo_surface_t *surface =
    gdk_window_create_similar_image_surface (window, CAIRO_FORMAT_ARGB32,
                                             width * scale, height * scale,
                                             scale);
  if (cairo_surface_status (surface) != CAIRO_STATUS_SUCCESS)
    {
      cairo_surface_destroy (surface);
      return NULL;
    }
  cairo_t *cr = cairo_create (surface);
  if (func != NULL)
    func (cr, width, height, data, style);
  else
    spx_render_clear (cr, style, width, height);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  return surface;
}

/* Whether a kept picture still fits the widget's size and scale. */
static inline gboolean
spx_widget_picture_fits (GtkWidget *widget, cairo_surface_t *surface,
                         int width, int height)
{
  if (surface == NULL)
    return FALSE;
  int scale = gtk_widget_get_scale_factor (widget);
  double sx = 1, sy = 1;
  cairo_surface_get_device_scale (surface, &sx, &sy);
  return cairo_image_surface_get_width (surface) == width * scale &&
         cairo_image_surface_get_height (surface) == height * scale &&
         sx == scale && sy == scale;
}

/* A scroll's steps across (dx, right positive) and down (dy), from
 * wheel clicks or smooth deltas; FALSE when it says neither. */
static inline gboolean
spx_widget_scroll_steps (GdkEventScroll *event, double *dx, double *dy)
{
  *dx = *dy = 0;
  switch (event->direction)
    {
    case GDK_SCROLL_UP:
      *dy = -1;
      return TRUE;
    case GDK_SCROLL_DOWN:
      *dy = 1;
      return TRUE;
    case GDK_SCROLL_LEFT:
      *dx = -1;
      return TRUE;
    case GDK_SCROLL_RIGHT:
      *dx = 1;
      return TRUE;
    case GDK_SCROLL_SMOOTH:
      return gdk_event_get_scroll_deltas ((GdkEvent *) event, dx, dy);
    default:
      return FALSE;
    }
}

G_END_DECLS
