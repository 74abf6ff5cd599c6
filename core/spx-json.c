/* spx-json.c: a small streaming JSON writer for --json output */
#include "spx-json.h"

#include <math.h>

void
spx_json_init (SpxJson *json)
{
  json->out = g_string_new (NULL);
  json->depth = 0;
  json->need_comma = FALSE;
}

char *
spx_json_finish (SpxJson *json)
{
  char *text = g_string_free (json->out, FALSE);
  json->out = NULL;
  return text;
}

static void
write_string (GString *out, const char *s)
{
  g_string_append_c (out, '"');
  for (const guchar *p = (const guchar *) s; *p; p++)
    {
      if (*p == '"' || *p == '\\')
        g_string_append_printf (out, "\\%c", *p);
      else if (*p < 0x20)
        g_string_append_printf (out, "\\u%04x", *p);
      else
        g_string_append_c (out, (char) *p);
    }
  g_string_append_c (out, '"');
}

/* Comma and key before a value; key is NULL at the top level. */
static void
begin_value (SpxJson *json, const char *key)
{
  if (json->need_comma)
    g_string_append (json->out, ", ");
  if (key != NULL)
    {
      write_string (json->out, key);
      g_string_append (json->out, ": ");
    }
  json->need_comma = TRUE;
}

void
spx_json_begin_object (SpxJson *json, const char *key)
{
  begin_value (json, key);
  g_string_append_c (json->out, '{');
  json->depth++;
  json->need_comma = FALSE;
}

void
spx_json_end_object (SpxJson *json)
{
  g_return_if_fail (json->depth > 0);
  g_string_append_c (json->out, '}');
  json->depth--;
  json->need_comma = TRUE;
}

void
spx_json_begin_array (SpxJson *json, const char *key)
{
  begin_value (json, key);
  g_string_append_c (json->out, '[');
  json->depth++;
  json->need_comma = FALSE;
}

void
spx_json_end_array (SpxJson *json)
{
  g_return_if_fail (json->depth > 0);
  g_string_append_c (json->out, ']');
  json->depth--;
  json->need_comma = TRUE;
}

void
spx_json_string (SpxJson *json, const char *key, const char *value)
{
  begin_value (json, key);
  write_string (json->out, value);
}

void
spx_json_bool (SpxJson *json, const char *key, gboolean value)
{
  begin_value (json, key);
  g_string_append (json->out, value ? "true" : "false");
}

void
spx_json_uint (SpxJson *json, const char *key, guint64 value)
{
  begin_value (json, key);
  g_string_append_printf (json->out, "%" G_GUINT64_FORMAT, value);
}

void
spx_json_double (SpxJson *json, const char *key, double value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  begin_value (json, key);
  if (!isfinite (value))
    g_string_append (json->out, "null");
  else
    g_string_append (json->out, g_ascii_formatd (buf, sizeof buf, "%.10g", value));
}
