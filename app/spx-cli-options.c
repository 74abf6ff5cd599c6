/* spx-cli-options.c: a command's options, each declared in one row */
#include "spx-cli-options.h"

#include <stdarg.h>

struct _SpxCliOptions {
  GOptionContext *context;
  gpointer        args;
  GArray         *rows;  /* SpxCliOptionInfo */
  GPtrArray      *names; /* the long names GOption points to */
};

/* Help texts made at run time, until the options are freed. */
static GPtrArray *kept;

SpxCliOptions *
spx_cli_options_new (const char *parameter_string, gsize args_size)
{
  SpxCliOptions *o = g_new0 (SpxCliOptions, 1);
  o->context = g_option_context_new (parameter_string);
  o->args = g_malloc0 (args_size);
  o->rows = g_array_new (FALSE, FALSE, sizeof (SpxCliOptionInfo));
  o->names = g_ptr_array_new_with_free_func (g_free);
  return o;
}

void
spx_cli_options_free (SpxCliOptions *o)
{
  g_option_context_free (o->context);
  for (guint i = 0; i < o->rows->len; i++)
    {
      const SpxCliOption *row = &g_array_index (o->rows, SpxCliOptionInfo,
                                                i).option;
      if (row->kind != SPX_CLI_FLAG)
        g_clear_pointer ((char **) row->data, g_free);
    }
  g_array_unref (o->rows);
  g_ptr_array_unref (o->names);
  g_free (o->args);
  g_clear_pointer (&kept, g_ptr_array_unref);
  g_free (o);
}

gpointer
spx_cli_options_args (SpxCliOptions *o)
{
  return o->args;
}

GOptionContext *
spx_cli_options_context (SpxCliOptions *o)
{
  return o->context;
}

static GOptionEntry
entry_of (const char *name, const SpxCliOption *row, gint flags)
{
  static const GOptionArg args[] = {
    [SPX_CLI_TEXT] = G_OPTION_ARG_STRING,
    [SPX_CLI_FILE] = G_OPTION_ARG_FILENAME,
    [SPX_CLI_FLAG] = G_OPTION_ARG_NONE,
  };
  return (GOptionEntry) { name, row->letter, flags, args[row->kind],
                          row->data, row->help, row->value };
}

void
spx_cli_options_add (SpxCliOptions *o, const SpxCliOption *rows,
                     guint n_rows, const char *section)
{
  g_autofree GOptionEntry *entries = g_new0 (GOptionEntry, n_rows + 1);
  for (guint i = 0; i < n_rows; i++)
    {
      char *name = g_strdelimit (g_strdup (rows[i].field), "_", '-');
      SpxCliOptionInfo info = { name, section, rows[i] };
      g_ptr_array_add (o->names, name);
      g_array_append_val (o->rows, info);
      entries[i] = entry_of (name, &rows[i], 0);
    }
  g_option_context_add_main_entries (o->context, entries, NULL);
}

void
spx_cli_options_alias (SpxCliOptions *o, const char *name, const char *of)
{
  for (guint i = 0; i < o->rows->len; i++)
    {
      const SpxCliOptionInfo *info = &g_array_index (o->rows,
                                                     SpxCliOptionInfo, i);
      if (!g_str_equal (info->name, of))
        continue;
      GOptionEntry entries[] = {
        entry_of (name, &info->option, G_OPTION_FLAG_HIDDEN),
        G_OPTION_ENTRY_NULL
      };
      entries[0].short_name = 0;
      g_option_context_add_main_entries (o->context, entries, NULL);
      g_ptr_array_add (o->names, g_strdup (name));
      return;
    }
  g_return_if_reached ();
}

char **
spx_cli_options_long_names (SpxCliOptions *o)
{
  GStrvBuilder *b = g_strv_builder_new ();
  for (guint i = 0; i < o->names->len; i++)
    g_strv_builder_add (b, g_ptr_array_index (o->names, i));
  g_strv_builder_add (b, "help");
  char **names = g_strv_builder_end (b);
  g_strv_builder_unref (b);
  return names;
}

const SpxCliOptionInfo *
spx_cli_options_list (SpxCliOptions *o, guint *n)
{
  *n = o->rows->len;
  return (const SpxCliOptionInfo *) (gpointer) o->rows->data;
}

const char *
spx_cli_keep (char *text)
{
  if (kept == NULL)
    kept = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (kept, text);
  return text;
}

const char *
spx_cli_keep_printf (const char *format, ...)
{
  va_list args;
  va_start (args, format);
  char *text = g_strdup_vprintf (format, args);
  va_end (args);
  return spx_cli_keep (text);
}
