/* spx-application.h: the GtkApplication: windows, app actions,
 * preferences kept in a key file under the user's config folder */
#pragma once

#include "spx-config.h" /* SPX_APPLICATION_ID */

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SPX_TYPE_APPLICATION (spx_application_get_type ())
G_DECLARE_FINAL_TYPE (SpxApplication, spx_application, SPX, APPLICATION,
                      GtkApplication)

SpxApplication *spx_application_new (void);

G_END_DECLS
