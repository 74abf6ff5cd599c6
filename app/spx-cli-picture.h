/* spx-cli-picture.h: the options every command that draws takes */
#pragma once

#include <glib.h>
#include "spx-render-style.h"

G_BEGIN_DECLS

typedef struct {
  char *width, *height, *scale, *theme;
  char *help[3]; /* the option texts: GOption keeps pointers to them */
} SpxCliPictureArgs;

/* The size in logical pixels, PNG's device scale and the style. */
typedef struct {
  double         width, height, scale;
  SpxRenderStyle style;
} SpxCliPicture;

/* Adds --width, --height, --scale, --theme, saying the defaults held in
 * defaults (its width, height and scale; the theme is light). */
void     spx_cli_picture_args_add   (SpxCliPictureArgs *args,
                                     GOptionContext *context,
                                     const SpxCliPicture *defaults);
void     spx_cli_picture_args_clear (SpxCliPictureArgs *args);
/* Checks them over the defaults already in picture (one line naming the
 * option on failure). */
gboolean spx_cli_picture_args_parse (const SpxCliPictureArgs *args,
                                     const char *command,
                                     SpxCliPicture *picture);

G_END_DECLS
