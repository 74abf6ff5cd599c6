/* spx-cli-picture.c: the options every command that draws takes */
#include "spx-cli.h"
#include "spx-cli-picture.h"

void
spx_cli_picture_args_add (SpxCliPictureArgs *a, GOptionContext *context,
                          const SpxCliPicture *d)
{
  char **help = a->help;
  help[0] = g_strdup_printf ("Width in logical pixels (default %.0f)",
                             d->width);
  help[1] = g_strdup_printf ("Height in logical pixels (default %.0f)",
                             d->height);
  help[2] = g_strdup_printf ("Device pixels per logical pixel, PNG only "
                             "(default %g)", d->scale);
  GOptionEntry entries[] = {
    { "width", 0, 0, G_OPTION_ARG_STRING, &a->width, help[0], "W" },
    { "height", 0, 0, G_OPTION_ARG_STRING, &a->height, help[1], "H" },
    { "scale", 0, 0, G_OPTION_ARG_STRING, &a->scale, help[2], "S" },
    { "theme", 0, 0, G_OPTION_ARG_STRING, &a->theme,
      "light or dark (default light)", "THEME" },
    G_OPTION_ENTRY_NULL
  };
  g_option_context_add_main_entries (context, entries, NULL);
}

void
spx_cli_picture_args_clear (SpxCliPictureArgs *a)
{
  char **fields[] = { &a->width, &a->height, &a->scale, &a->theme,
                      &a->help[0], &a->help[1], &a->help[2] };
  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    g_clear_pointer (fields[i], g_free);
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
                                    &p->scale)))
    return FALSE;
  if (a->theme && !spx_theme_from_string (a->theme, &theme))
    return spx_cli_usage_error (command, "--theme: expected light or dark, "
                                "got '%s'", a->theme), FALSE;
  p->width = (double) w;
  p->height = (double) h;
  spx_render_style_init (&p->style, theme);
  return TRUE;
}
