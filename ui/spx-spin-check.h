/* spx-spin-check.h: a number field that never invents a value. Text it
 * cannot read as a number (or a fraction a/b), a number outside its
 * range, or one with decimals in a field of whole numbers is refused:
 * the field keeps its value (nothing is said to have changed), is marked
 * with the "error" style class and says why in its message label, until
 * its text is edited. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Check what is typed into spin; message (hidden until needed) says why
 * a text was refused. */
void        spx_spin_check (GtkSpinButton *spin, GtkLabel *message);
/* What spin shows it refused: "'x' is not a number: kept 0.0625", or
 * NULL when it shows nothing. */
const char *spx_spin_check_get_problem (GtkSpinButton *spin);

G_END_DECLS
