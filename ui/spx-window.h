/* spx-window.h: the main window: a scenario, its mask, its three IPU
 * programs and the views of them */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SPX_TYPE_WINDOW (spx_window_get_type ())
G_DECLARE_FINAL_TYPE (SpxWindow, spx_window, SPX, WINDOW,
                      GtkApplicationWindow)

SpxWindow *spx_window_new       (GtkApplication *app);
/* Open a mask (in any format of spx-mask-io's table: the new subject, one
 * undo step), a scenario (.spx: asks first when there are unsaved
 * edits, unless force), or a network (a folder of masks, a network file,
 * a saved survey: the Layers page; asks first when the survey shown has
 * unsaved points, unless force); errors go to the info bar. */
void       spx_window_open_file (SpxWindow *window, GFile *file,
                                 gboolean force);
/* The Layers page's name (win.view::layers, spx_window_show_view): a
 * network's layers and their survey, shown once a network is opened. */
#define SPX_WINDOW_LAYERS_VIEW  "layers"
#define SPX_WINDOW_LAYERS_TITLE "Layers"

/* The application's keys (the shortcuts window lists them). */
void       spx_window_set_accels (GtkApplication *app);
/* The preferences' default machine (a preset) and CPU threads. */
void       spx_window_use_defaults (SpxWindow *window, const char *machine,
                                    guint threads);
/* One of the views' names (spx-render-views.h); others are ignored. */
void       spx_window_show_view (SpxWindow *window, const char *name);
/* TRUE while planning or a sweep runs (tests wait on it). */
gboolean   spx_window_is_busy   (SpxWindow *window);
gboolean   spx_window_is_dirty  (SpxWindow *window);
/* The info bar's message, or NULL when hidden. */
const char *spx_window_get_error (SpxWindow *window);

G_END_DECLS
