/* spx-json.h: a small streaming JSON writer (--json output, sweep files) */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  GString *out;
  guint    depth;
  gboolean need_comma;
} SpxJson;

void  spx_json_init         (SpxJson *json);
/* Returns the text (caller frees) and resets the writer. */
char *spx_json_finish       (SpxJson *json);
/* The same ending in a newline, as a file's text. */
char *spx_json_finish_line  (SpxJson *json);

void  spx_json_begin_object (SpxJson *json, const char *key);
void  spx_json_end_object   (SpxJson *json);
/* Values inside an array take a NULL key. */
void  spx_json_begin_array  (SpxJson *json, const char *key);
void  spx_json_end_array    (SpxJson *json);
void  spx_json_string       (SpxJson *json, const char *key, const char *value);
void  spx_json_bool         (SpxJson *json, const char *key, gboolean value);
void  spx_json_uint         (SpxJson *json, const char *key, guint64 value);
/* Non-finite numbers are written as null (JSON has no NaN). */
void  spx_json_double       (SpxJson *json, const char *key, double value);

G_END_DECLS
