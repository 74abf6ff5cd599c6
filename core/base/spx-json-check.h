/* spx-json-check.h: JSON text looked over before json-glib parses it, for
 * what json-glib would misread or not survive */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Where text goes wrong. */
typedef struct {
  gsize       at;      /* the byte it starts at */
  guint64     line;    /* its line, from 1 */
  gboolean    deep;    /* nested deeper than allowed */
  const char *why;     /* "a number with a leading zero" */
  const char *key;     /* the last member name of the top object before
                          it (not NUL-terminated), or NULL */
  gsize       key_len;
} SpxJsonFlaw;

/* TRUE when text nests at most max_depth deep (json-glib recurses
 * without a limit) and every number is one by RFC 8259's grammar: json-glib
 * reads "01" as octal, "0x10" as hex, ".5", "1." and "1.e5" as numbers,
 * wraps whole numbers past 64 bits and makes 1e400 infinite. Else FALSE
 * with *flaw. Strings, words and the rest are left to the parser. */
gboolean spx_json_check (const char *text, gsize len, guint max_depth,
                         SpxJsonFlaw *flaw);

G_END_DECLS
