/* spx-json.c: a small streaming JSON writer for --json output */
#include "spx-json.h"
#include "spx-util.h"

#include <math.h>
#include <string.h>

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

char *
spx_json_finish_line (SpxJson *json)
{
  g_string_append_c (json->out, '\n');
  return spx_json_finish (json);
}

/* Control characters (C0, DEL, C1) as \u escapes, so that the text is
 * safe on a terminal as well as valid JSON; bytes that are not UTF-8 as
 * U+FFFD, since JSON holds characters only. */
static void
write_string (GString *out, const char *s)
{
  g_string_append_c (out, '"');
  const char *p = s, *end = s + strlen (s);
  while (p < end)
    {
      const char *start = p;
      gunichar c = spx_utf8_take (&p, end);
      if (c == (gunichar) -1)
        g_string_append (out, "\\ufffd");
      else if (c == '"' || c == '\\')
        g_string_append_printf (out, "\\%c", (char) c);
      else if (c < 0x20 || (c >= 0x7f && c <= 0x9f))
        g_string_append_printf (out, "\\u%04x", c);
      else
        g_string_append_len (out, start, p - start);
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
