/* spx-application.h: the GtkApplication: windows, app actions, the
 * preferences dialog */
#pragma once

#include "spx-config.h" /* SPX_APPLICATION_ID */

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SPX_TYPE_APPLICATION (spx_application_get_type ())
G_DECLARE_FINAL_TYPE (SpxApplication, spx_application, SPX, APPLICATION,
                      GtkApplication)

SpxApplication *spx_application_new (void);
/* The window, opening any files given. A mistake in its options (exit
 * 2) or no display to open (exit 1) is one line on stderr, before GTK
 * says anything. */
int             spx_application_main (int argc, char **argv);

G_END_DECLS
