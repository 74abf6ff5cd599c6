/* spx-cli-picture.h: the options every command that draws takes */
#pragma once

#include <glib.h>
#include "spx-cli-options.h"
#include "spx-render-style.h"

G_BEGIN_DECLS

/* The options (see spx-cli-options.h), their help stating the defaults
 * d that spx_cli_picture_args_add is given. */
#define SPX_CLI_PICTURE_OPTIONS(O) \
  O (width, 0, TEXT, "W", spx_cli_keep_printf ( \
     "Width in logical pixels (default %.0f)", d->width), NULL) \
  O (height, 0, TEXT, "H", d->height > 0 ? spx_cli_keep_printf ( \
     "Height in logical pixels (default %.0f)", d->height) \
     : "Height in logical pixels (default: what the picture needs)", NULL) \
  O (scale, 0, TEXT, "S", spx_cli_keep_printf ( \
     "Device pixels per logical pixel, PNG only (default %g)", d->scale), \
     NULL) \
  O (size, 0, TEXT, "WxH", "Width and height at once, as 1200x750 (not " \
     "with --width or --height)", NULL) \
  O (theme, 0, TEXT, "THEME", "light or dark (default light)", NULL) \
  O (title, 0, TEXT, "TEXT", "The picture's title instead of its own, " \
     "wrapped onto more lines when long (empty: its own)", NULL)

/* For the commands whose chart can have noisy points. */
#define SPX_CLI_NOISE_NOTE_OPTIONS(O) \
  O (no_noise_note, 0, FLAG, NULL, "Leave out the chart's line counting " \
     "the noisy points (their markers stay hollow)", NULL)

typedef struct {
  SPX_CLI_FIELDS (SPX_CLI_PICTURE_OPTIONS)
  SPX_CLI_FIELDS (SPX_CLI_NOISE_NOTE_OPTIONS)
} SpxCliPictureArgs;

/* The size in logical pixels, PNG's device scale and the style. */
typedef struct {
  double         width, height, scale;
  SpxRenderStyle style;
} SpxCliPicture;

/* Adds --width, --height, --scale, --size, --theme, --title (the
 * style's title, pointing into args), saying the defaults
 * held in defaults (its width, height and scale; the theme is light). */
void     spx_cli_picture_args_add   (SpxCliPictureArgs *args,
                                     SpxCliOptions *options,
                                     const SpxCliPicture *defaults);
/* Adds --no-noise-note (the style's no_noise_note). */
void     spx_cli_picture_noise_add  (SpxCliPictureArgs *args,
                                     SpxCliOptions *options);
/* Checks them over the defaults already in picture (one line naming the
 * option on failure). A default height of 0 stays 0 unless --height is
 * given: the command then sizes the picture. */
gboolean spx_cli_picture_args_parse (const SpxCliPictureArgs *args,
                                     const char *command,
                                     SpxCliPicture *picture);

G_END_DECLS
