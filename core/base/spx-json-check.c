/* spx-json-check.c: RFC 8259's numbers and a bound on nesting, checked
 * on the text, so that json-glib only ever sees what it reads right */
#include "spx-json-check.h"

#include <math.h>

/* Digits at *p, moving past them; how many. v accumulates them, *wraps
 * says when it overflowed. */
static gsize
digits (const char **p, const char *end, guint64 *v, gboolean *wraps)
{
  const char *start = *p;
  for (; *p < end && g_ascii_isdigit (**p); (*p)++)
    *wraps |= !g_uint64_checked_mul (v, *v, 10) ||
              !g_uint64_checked_add (v, *v, (guint) (**p - '0'));
  return (gsize) (*p - start);
}

static gboolean
ends_value (char c)
{
  return c == ',' || c == ']' || c == '}' || c == ' ' || c == '\t' ||
         c == '\n' || c == '\r';
}

/* A fraction or an exponent that makes a number no double holds. */
static gboolean
fits_double (const char *start, const char *end)
{
  g_autofree char *copy = g_strndup (start, (gsize) (end - start));
  return isfinite (g_ascii_strtod (copy, NULL));
}

/* Why the number at *pp (a '-' or a digit) is not one, or NULL; *pp
 * moves past it. */
static const char *
number_flaw (const char **pp, const char *end)
{
  const char *start = *pp, *p = start;
  gboolean negative = *p == '-', wraps = FALSE, whole = TRUE;
  guint64 v = 0, skip = 0;
  p += negative;
  const char *first = p;
  gsize n = digits (&p, end, &v, &wraps);
  const char *why = NULL;
  if (n == 0)
    why = "a '-' without a digit after it";
  else if (n > 1 && *first == '0')
    why = "a number with a leading zero";
  if (why == NULL && p < end && *p == '.')
    {
      p++, whole = FALSE;
      if (digits (&p, end, &skip, &wraps) == 0)
        why = "a number without a digit after its '.'";
    }
  if (why == NULL && p < end && (*p == 'e' || *p == 'E'))
    {
      p++, whole = FALSE;
      p += p < end && (*p == '+' || *p == '-');
      if (digits (&p, end, &skip, &wraps) == 0)
        why = "a number without a digit in its exponent";
    }
  if (why == NULL && p < end && (*p == 'x' || *p == 'X') && n == 1 &&
      *first == '0')
    why = "a hexadecimal number";
  else if (why == NULL && p < end && !ends_value (*p))
    why = "a number run into what follows it";
  else if (why == NULL && whole &&
           (wraps || v > (guint64) G_MAXINT64 + (negative ? 1 : 0)))
    why = negative ? "a whole number below -2^63"
                   : "a whole number past 2^63 - 1";
  else if (why == NULL && !whole && !fits_double (start, p))
    why = "a number past the largest a double holds";
  *pp = p;
  return why;
}

/* Past the string at *p (its opening quote); FALSE when it does not end. */
static gboolean
skip_string (const char **p, const char *end)
{
  for ((*p)++; *p < end && **p != '"'; *p += **p == '\\' ? 2 : 1)
    ;
  if (*p >= end)
    return FALSE;
  (*p)++;
  return TRUE;
}

gboolean
spx_json_check (const char *text, gsize len, guint max_depth,
                SpxJsonFlaw *flaw)
{
  const char *end = text + len;
  guint depth = 0;
  *flaw = (SpxJsonFlaw) { 0, 1, FALSE, NULL, NULL, 0 };
  for (const char *p = text; p < end;)
    {
      const char *at = p;
      if (*p == '"')
        {
          if (!skip_string (&p, end))
            return TRUE; /* json-glib says where the string ends */
          const char *after = p;
          while (after < end && g_ascii_isspace (*after))
            after++;
          if (depth == 1 && after < end && *after == ':')
            flaw->key = at + 1, flaw->key_len = (gsize) (p - 1 - flaw->key);
          continue;
        }
      if (*p == '-' || g_ascii_isdigit (*p))
        flaw->why = number_flaw (&p, end);
      else if (*p == '.')
        flaw->why = "a number without a digit before its '.'";
      else if (*p == '+')
        flaw->why = "a number with a '+' before it";
      else if ((*p == '{' || *p == '[') && ++depth > max_depth)
        flaw->deep = TRUE, flaw->why = "nested too deep";
      else if (*p == '}' || *p == ']')
        depth -= depth > 0;
      if (flaw->why != NULL)
        {
          flaw->at = (gsize) (at - text);
          return FALSE;
        }
      if (p == at)
        flaw->line += *p++ == '\n';
    }
  return TRUE;
}
