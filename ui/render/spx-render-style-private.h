/* spx-render-style-private.h: what the style's files share */
#pragma once

#include "spx-render-style.h"

#include <pango/pangocairo.h>

G_BEGIN_DECLS

/* Adds text, drawn as layout, to cr's record when it keeps one
 * (spx_render_record_text). */
void _spx_render_text_recorded (cairo_t *cr, const char *text,
                                PangoLayout *layout);

G_END_DECLS
