/* spx-cli-picture.c: the options every command that draws takes */
#include "spx-cli.h"
#include "spx-cli-picture.h"
#include "spx-render-export.h"

void
spx_cli_picture_args_add (SpxCliPictureArgs *args, SpxCliOptions *options,
                          const SpxCliPicture *d)
{
  SPX_CLI_ADD (options, SPX_CLI_PICTURE_OPTIONS, NULL);
}

void
spx_cli_picture_noise_add (SpxCliPictureArgs *args, SpxCliOptions *options)
{
  SPX_CLI_ADD (options, SPX_CLI_NOISE_NOTE_OPTIONS, NULL);
}

/* --size, when given, into w and h; not with --width or --height. */
static gboolean
parse_size (const SpxCliPictureArgs *a, const char *command, guint64 *w,
            guint64 *h)
{
  g_autoptr (GError) error = NULL;
  guint width, height;
  if (a->size == NULL)
    return TRUE;
  if (a->width || a->height)
    return spx_cli_usage_error (command, "--size: gives the width and the "
                                "height; not with --%s",
                                a->width ? "width" : "height"), FALSE;
  if (!spx_export_size_from_string (a->size, 64, 16384, &width, &height,
                                    &error))
    return spx_cli_usage_error (command, "--size: %s", error->message),
           FALSE;
  *w = width;
  *h = height;
  return TRUE;
}

gboolean
spx_cli_picture_args_parse (const SpxCliPictureArgs *a, const char *command,
                            SpxCliPicture *p)
{
  guint64 w = (guint64) p->width, h = (guint64) p->height;
  SpxTheme theme = SPX_THEME_LIGHT;
  if ((a->width && !spx_cli_uint (command, "--width", a->width, 64, 16384,
                                  &w)) ||
      (a->height && !spx_cli_uint (command, "--height", a->height, 64, 16384,
                                   &h)) ||
      (a->scale && !spx_cli_double (command, "--scale", a->scale, 0.25, 8,
                                    &p->scale)) ||
      !parse_size (a, command, &w, &h))
    return FALSE;
  if (a->theme && !spx_theme_from_string (a->theme, &theme))
    return spx_cli_usage_error (command, "--theme: expected light or dark, "
                                "got '%s'", a->theme), FALSE;
  p->width = (double) w;
  p->height = (double) h;
  spx_render_style_init (&p->style, theme);
  p->style.no_noise_note = a->no_noise_note;
  p->style.title = a->title;
  return TRUE;
}
