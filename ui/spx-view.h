/* spx-view.h: a widget that shows any renderer (SpxRenderFunc), keeping
 * the last picture so that exposes cost a paint, not a render */
#pragma once

#include <gtk/gtk.h>

#include "spx-render-export.h"

G_BEGIN_DECLS

#define SPX_TYPE_VIEW (spx_view_get_type ())
G_DECLARE_FINAL_TYPE (SpxView, spx_view, SPX, VIEW, GtkDrawingArea)

GtkWidget *spx_view_new (void);

/* data is borrowed: the caller keeps it alive until the next
 * set_renderer or the widget's destruction, and calls spx_view_changed
 * after mutating it. func NULL shows an empty background. */
void       spx_view_set_renderer (SpxView *view, SpxRenderFunc func,
                                  gconstpointer data);
/* The data changed: render again at the next draw. */
void       spx_view_changed      (SpxView *view);
void       spx_view_set_theme    (SpxView *view, SpxTheme theme);
SpxTheme   spx_view_get_theme    (SpxView *view);
const SpxRenderStyle *spx_view_get_style (SpxView *view);

G_END_DECLS
