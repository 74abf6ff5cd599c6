/* spx-sweep-file.c: a sweep read back from the JSON spx_sweep_to_json
 * wrote (kept in a .spx), every value checked */
#include "spx-sweep.h"
#include "spx-json-read.h"
#include "spx-util.h"

#include <math.h>
#include <string.h>

#define MAX_DEPTH 16
#define MAX_SIZE  (G_GUINT64_CONSTANT (1) << 40)

/* settings.densities: 1 to SPX_SWEEP_MAX_VALUES fractions above 0;
 * absent from a subject's sweep, which uses none. */
static gboolean
read_densities (SpxJsonReader *r, JsonObject *o, SpxSweepOptions *s)
{
  if (!json_object_has_member (o, "densities") &&
      json_object_has_member (o, "subject"))
    {
      s->n_densities = 1; /* one mask per block, as set_subject counts */
      s->densities[0] = 1;
      return TRUE;
    }
  JsonArray *a = spx_json_get_array (r, o, "settings", "densities");
  if (a == NULL)
    return FALSE;
  s->n_densities = json_array_get_length (a);
  if (s->n_densities == 0 || s->n_densities > SPX_SWEEP_MAX_VALUES)
    return spx_json_refuse (r, "settings", "densities", "expected 1 to %d "
                            "values", SPX_SWEEP_MAX_VALUES);
  for (guint i = 0; i < s->n_densities; i++)
    {
      JsonNode *e = json_array_get_element (a, i);
      double d = JSON_NODE_HOLDS_VALUE (e) &&
                 (json_node_get_value_type (e) == G_TYPE_DOUBLE ||
                  json_node_get_value_type (e) == G_TYPE_INT64)
                   ? json_node_get_double (e) : NAN;
      if (!(d > 0 && d <= 1))
        return spx_json_refuse (r, "settings", "densities", "expected "
                                "fractions above 0, at most 1");
      s->densities[i] = d;
    }
  return TRUE;
}

static gboolean
read_model (SpxJsonReader *r, JsonObject *o, SpxSweepOptions *s)
{
  JsonObject *m = spx_json_get_object (r, o, "settings", "model");
  const char *machine = m ? spx_json_get_string (r, m, "settings.model",
                                                 "machine") : NULL;
  if (machine == NULL ||
      !spx_json_get_uint (r, m, "settings.model", "m", 1, MAX_SIZE,
                          &s->model_m) ||
      !spx_json_get_uint (r, m, "settings.model", "k", 1, MAX_SIZE,
                          &s->model_k))
    return FALSE;
  JsonNode *n = json_object_get_member (m, "n");
  gboolean best = n && JSON_NODE_HOLDS_VALUE (n) &&
                  json_node_get_value_type (n) == G_TYPE_STRING &&
                  g_str_equal (json_node_get_string (n), "best");
  if (best)
    s->model_n = 0;
  else if (!spx_json_get_uint (r, m, "settings.model", "n", 1, MAX_SIZE,
                               &s->model_n))
    return FALSE;
  /* a machine from a file is not at hand: a preset renamed stands in,
   * for the labels it is read for */
  s->machine = spx_ipu_machine_preset (machine);
  if (s->machine == NULL)
    {
      s->machine = spx_ipu_machine_preset ("bow");
      g_free (s->machine->name);
      s->machine->name = g_strdup (machine);
    }
  return TRUE;
}

static gboolean
read_cpu (SpxJsonReader *r, JsonObject *o, SpxSweepOptions *s)
{
  const char *at = "settings.cpu";
  JsonObject *c = spx_json_get_object (r, o, "settings", "cpu");
  return c != NULL &&
         spx_json_get_uint (r, c, at, "m", 1, MAX_SIZE, &s->cpu_m) &&
         spx_json_get_uint (r, c, at, "k", 1, MAX_SIZE, &s->cpu_k) &&
         spx_json_get_uint (r, c, at, "n", 1, MAX_SIZE, &s->cpu_n) &&
         spx_json_get_guint (r, c, at, "threads", 0, G_MAXUINT16,
                             &s->threads) &&
         spx_json_get_guint (r, c, at, "reps", 1, G_MAXUINT16, &s->reps) &&
         spx_json_get_guint (r, c, at, "warmup", 0, G_MAXUINT16,
                             &s->warmup);
}

/* The words of the settings: operation, numbers, sources, modes. */
static gboolean
read_words (SpxJsonReader *r, JsonObject *o, SpxSweepOptions *s)
{
  const char *op = spx_json_get_string (r, o, "settings", "op");
  const char *dtype = op ? spx_json_get_string (r, o, "settings", "dtype")
                         : NULL;
  if (dtype == NULL)
    return FALSE;
  if (!spx_bench_op_parse (op, &s->op))
    return spx_json_refuse (r, "settings", "op", "expected spmm or sddmm");
  if (!spx_dtype_from_string (dtype, &s->dtype))
    return spx_json_refuse (r, "settings", "dtype", "expected %s",
                            spx_dtype_names ());
  return spx_json_read_sources (r, o, &s->run_model, &s->run_cpu) &&
         spx_json_read_modes (r, o, &s->run_static, &s->run_dynamic,
                              &s->run_tilewise);
}

static gboolean
read_settings (SpxJsonReader *r, JsonObject *root, const SpxMask *subject,
               SpxSweepOptions *s)
{
  JsonObject *o = spx_json_get_object (r, root, "", "settings");
  if (o == NULL || !read_words (r, o, s) ||
      !read_densities (r, o, s) ||
      !spx_json_read_blocks (r, o, s->blocks, &s->n_blocks) ||
      !spx_json_get_uint (r, o, "settings", "seed", 0, G_MAXUINT64,
                          &s->seed) ||
      (s->run_model && !read_model (r, o, s)) ||
      (s->run_cpu && !read_cpu (r, o, s)))
    return FALSE;
  JsonObject *sub = json_object_has_member (o, "subject")
    ? spx_json_get_object (r, o, "settings", "subject") : NULL;
  if (json_object_has_member (o, "subject") && sub == NULL)
    return FALSE;
  if ((sub != NULL) != (subject != NULL))
    return spx_json_refuse (r, "settings", "subject", sub
                            ? "names a mask that is not stored with it"
                            : "missing for the mask stored with it");
  if (sub == NULL)
    return TRUE;
  const char *name = spx_json_get_string (r, sub, "settings.subject",
                                          "name");
  guint64 m, k;
  if (name == NULL ||
      !spx_json_get_uint (r, sub, "settings.subject", "m", 1, MAX_SIZE,
                          &m) ||
      !spx_json_get_uint (r, sub, "settings.subject", "k", 1, MAX_SIZE, &k))
    return FALSE;
  if (m != subject->rows || k != subject->cols)
    return spx_json_refuse (r, "settings.subject", "m", "expected the "
                            "stored mask's %" G_GUINT64_FORMAT " × %"
                            G_GUINT64_FORMAT, subject->rows, subject->cols);
  s->subject = spx_mask_ref (subject);
  s->subject_name = g_strdup (name);
  return TRUE;
}

static gboolean
read_points (SpxJsonReader *r, JsonObject *root, SpxSweep *sweep)
{
  JsonArray *a = spx_json_get_array (r, root, "", "points");
  if (a == NULL)
    return FALSE;
  guint n = json_array_get_length (a);
  g_array_set_size (sweep->points, n);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *where = g_strdup_printf ("points[%u]", i);
      JsonNode *e = json_array_get_element (a, i);
      if (!JSON_NODE_HOLDS_OBJECT (e))
        return spx_json_refuse (r, "", where, "expected an object");
      if (!spx_sweep_point_read (r, json_node_get_object (e), where, NULL,
                                 &g_array_index (sweep->points,
                                                 SpxSweepPoint, i)))
        return FALSE;
    }
  return TRUE;
}

SpxSweep *
spx_sweep_from_json (const char *name, const char *text, gsize len,
                     const SpxMask *subject, GError **error)
{
  SpxJsonReader r = { name, error, SPX_SWEEP_ERROR, SPX_SWEEP_ERROR_INVALID };
  if (!spx_json_text_ok (&r, text, len, MAX_DEPTH, "a sweep"))
    return NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) local = NULL;
  if (!json_parser_load_from_data (parser, text, (gssize) len, &local))
    {
      spx_json_refuse (&r, "", "(top)", "not JSON: %s", local->message);
      return NULL;
    }
  JsonNode *root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      spx_json_refuse (&r, "", "(top)", "expected an object");
      return NULL;
    }
  g_autoptr (SpxSweep) sweep = spx_sweep_new ();
  SpxSweepOptions *s = &sweep->settings;
  if (!read_settings (&r, json_node_get_object (root), subject, s) ||
      !read_points (&r, json_node_get_object (root), sweep))
    return NULL;
  if (s->machine == NULL)
    s->machine = spx_ipu_machine_preset ("bow");
  return g_steal_pointer (&sweep);
}
