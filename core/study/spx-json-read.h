/* spx-json-read.h: reading JSON that people may have edited (surveys,
 * sweeps kept in a .spx): each getter checks the member's kind and range
 * and, on failure, sets "FILE: WHERE.KEY: what was expected" in the
 * reader's error domain and returns FALSE or NULL */
#pragma once

#include "spx-sweep.h"

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct {
  const char *file;   /* as shown */
  GError    **error;
  GQuark      domain; /* of the errors set */
  gint        code;
} SpxJsonReader;

/* Sets the error for key of the value at where ("layers[2].points[5]",
 * "" for the top); FALSE. */
gboolean    spx_json_refuse (SpxJsonReader *r, const char *where,
                             const char *key, const char *fmt, ...)
  G_GNUC_PRINTF (4, 5);
/* o's member key holding a value of kind (JSON_NODE_OBJECT, _ARRAY, or
 * _VALUE of type G_TYPE_STRING, G_TYPE_BOOLEAN, G_TYPE_INT64, or
 * G_TYPE_DOUBLE for any number); nullable: null is taken (NULL, *ok). */
JsonNode   *spx_json_member (SpxJsonReader *r, JsonObject *o,
                             const char *where, const char *key,
                             JsonNodeType kind, GType type,
                             gboolean nullable, gboolean *ok);
JsonObject *spx_json_get_object (SpxJsonReader *r, JsonObject *o,
                                 const char *where, const char *key);
JsonArray  *spx_json_get_array  (SpxJsonReader *r, JsonObject *o,
                                 const char *where, const char *key);
const char *spx_json_get_string (SpxJsonReader *r, JsonObject *o,
                                 const char *where, const char *key);
gboolean    spx_json_get_bool   (SpxJsonReader *r, JsonObject *o,
                                 const char *where, const char *key,
                                 gboolean *value);
/* A whole number from lo to hi. */
gboolean    spx_json_get_uint   (SpxJsonReader *r, JsonObject *o,
                                 const char *where, const char *key,
                                 guint64 lo, guint64 hi, guint64 *value);
gboolean    spx_json_get_guint  (SpxJsonReader *r, JsonObject *o,
                                 const char *where, const char *key,
                                 guint lo, guint hi, guint *value);
/* A finite number from lo to hi; with nullable, null reads as NAN. */
gboolean    spx_json_get_double (SpxJsonReader *r, JsonObject *o,
                                 const char *where, const char *key,
                                 double lo, double hi, gboolean nullable,
                                 double *value);
/* text checked before a parser sees it (spx_json_check): TRUE, or the
 * error "(top): nested deeper than MAX: not WHAT" ("a survey") or
 * "(top): line N: a number with a leading zero", and FALSE. */
gboolean    spx_json_text_ok (SpxJsonReader *r, const char *text, gsize len,
                              guint max_depth, const char *what);

/* A sweep's settings.sources ("cpu", "model"), settings.blocks (whole
 * numbers, 1 to SPX_SWEEP_MAX_VALUES of them) and settings.modes
 * (dense, static, dynamic, tilewise): any other word or value refused. */
gboolean    spx_json_read_sources (SpxJsonReader *r, JsonObject *o,
                                   gboolean *model, gboolean *cpu);
gboolean    spx_json_read_blocks  (SpxJsonReader *r, JsonObject *o,
                                   guint *blocks, guint *n_blocks);
gboolean    spx_json_read_modes   (SpxJsonReader *r, JsonObject *o,
                                   gboolean *run_static,
                                   gboolean *run_dynamic,
                                   gboolean *run_tilewise);

/* A sweep point as spx_sweep_point_to_json wrote it, every key checked
 * (the ratios' quartiles may be absent, in files written before they
 * were measured: the speedup stands for both); shape: the m, k and n it
 * must have, NULL for any. */
gboolean    spx_sweep_point_read (SpxJsonReader *r, JsonObject *o,
                                  const char *where, const guint64 *shape,
                                  SpxSweepPoint *p);

G_END_DECLS
