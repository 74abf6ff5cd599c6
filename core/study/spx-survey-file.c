/* spx-survey-file.c: a survey written as CSV or JSON, and read back from
 * JSON, checked key by key */
#include "spx-survey.h"
#include "spx-json.h"
#include "spx-json-read.h"
#include "spx-util.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

/* A survey of a few hundred layers is a few MB; json-glib's tree of it
 * takes many times the text. */
#define MAX_FILE_BYTES  ((gsize) 64 << 20)
#define TREE_PER_BYTE   24.0
/* Deeper than a survey ever nests: a file that does is no survey (and
 * a parser's recursion is kept short). */
#define MAX_DEPTH       16
/* Numbers are written with 10 digits: read back, they agree to this. */
#define CLOSE           1e-8

static const char *const source_keys[SPX_SWEEP_N_SOURCES] = {
  [SPX_SWEEP_MODEL] = "model", [SPX_SWEEP_CPU] = "cpu",
};

/* ---- CSV ---------------------------------------------------------- */

char *
spx_survey_to_csv (const SpxSurvey *survey)
{
  GString *out = g_string_new ("layer," SPX_SWEEP_CSV_HEADER "\n");
  for (guint i = 0; i < survey->layers->len; i++)
    {
      const SpxSurveyLayer *layer = survey->layers->pdata[i];
      for (guint j = 0; layer->points != NULL && j < layer->points->len; j++)
        {
          spx_sweep_csv_field (out, layer->name);
          g_string_append_c (out, ',');
          spx_sweep_csv_row (out, &g_array_index (layer->points,
                                                  SpxSweepPoint, j));
        }
    }
  return g_string_free (out, FALSE);
}

/* ---- JSON out ----------------------------------------------------- */

/* A machine that is not its preset's figures travels as its key file. */
static char *
custom_machine (const SpxIpuMachine *machine)
{
  g_autoptr (SpxIpuMachine) preset = spx_ipu_machine_preset (machine->name);
  if (preset != NULL && spx_ipu_machine_equal (preset, machine))
    return NULL;
  return spx_ipu_machine_to_data (machine, NULL);
}

static void
write_settings (SpxJson *json, const SpxSurveyOptions *o)
{
  spx_json_begin_object (json, "settings");
  spx_json_begin_array (json, "sources");
  for (guint s = 0; s < SPX_SWEEP_N_SOURCES; s++)
    if (s == SPX_SWEEP_CPU ? o->run_cpu : o->run_model)
      spx_json_string (json, NULL, source_keys[s]);
  spx_json_end_array (json);
  spx_json_begin_array (json, "blocks");
  for (guint i = 0; i < o->n_blocks; i++)
    spx_json_uint (json, NULL, o->blocks[i]);
  spx_json_end_array (json);
  const gboolean runs[SPX_SWEEP_N_MODES] = {
    TRUE, o->run_static, o->run_dynamic, o->run_tilewise
  };
  spx_json_begin_array (json, "modes");
  for (guint m = 0; m < SPX_SWEEP_N_MODES; m++)
    if (runs[m])
      spx_json_string (json, NULL, spx_sweep_mode_to_string (m));
  spx_json_end_array (json);
  spx_json_uint (json, "n", o->n);
  spx_json_string (json, "dtype", spx_dtype_to_string (o->dtype));
  spx_json_string (json, "machine", o->machine ? o->machine->name : "bow");
  g_autofree char *file = o->machine ? custom_machine (o->machine) : NULL;
  if (file != NULL)
    spx_json_string (json, "machine_file", file);
  spx_json_uint (json, "threads", o->threads);
  spx_json_uint (json, "reps", o->reps);
  spx_json_uint (json, "warmup", o->warmup);
  spx_json_uint (json, "seed", o->seed);
  if (o->only != NULL)
    spx_json_string (json, "only", o->only);
  spx_json_end_object (json);
}

static void
write_choice (SpxJson *json, const char *key, const SpxSurveyChoice *c)
{
  spx_json_begin_object (json, key);
  spx_json_string (json, "mode", spx_sweep_mode_to_string (c->mode));
  spx_json_uint (json, "block", c->block);
  spx_json_double (json, "ms", c->ms);
  spx_json_double (json, "dense_ms", c->dense_ms);
  spx_json_double (json, "speedup", c->speedup);
  spx_json_double (json, "best", c->best);
  spx_json_uint (json, "noisy_points", c->noisy);
  if (c->dense[0] != '\0')
    spx_json_string (json, "dense", c->dense);
  spx_json_bool (json, "measured", c->measured);
  spx_json_end_object (json);
}

static void
write_layer (SpxJson *json, const SpxSurveyLayer *layer,
             const SpxSurveyOptions *o)
{
  spx_json_begin_object (json, NULL);
  spx_json_string (json, "name", layer->name);
  spx_json_uint (json, "entry", layer->entry);
  spx_json_uint (json, "rows", layer->rows);
  spx_json_uint (json, "cols", layer->cols);
  spx_json_uint (json, "nnz", layer->nnz);
  spx_json_double (json, "density", layer->density);
  spx_json_begin_object (json, "block_density");
  for (guint b = 0; b < o->n_blocks; b++)
    if (!isnan (layer->block_density[b]))
      {
        char key[16];
        g_snprintf (key, sizeof key, "%u", o->blocks[b]);
        spx_json_double (json, key, layer->block_density[b]);
      }
  spx_json_end_object (json);
  spx_json_begin_array (json, "points");
  for (guint i = 0; layer->points != NULL && i < layer->points->len; i++)
    spx_sweep_point_to_json (json, &g_array_index (layer->points,
                                                   SpxSweepPoint, i));
  spx_json_end_array (json);
  spx_json_begin_object (json, "recommended");
  for (guint s = 0; s < SPX_SWEEP_N_SOURCES; s++)
    if (layer->recommended[s].valid)
      write_choice (json, source_keys[s], &layer->recommended[s]);
  spx_json_end_object (json);
  if (layer->skipped != NULL)
    spx_json_string (json, "skipped", layer->skipped);
  spx_json_end_object (json);
}

char *
spx_survey_to_json (const SpxSurvey *survey)
{
  SpxJson json;
  spx_json_init (&json);
  spx_json_begin_object (&json, NULL);
  spx_json_string (&json, "path", survey->path ? survey->path : "");
  spx_json_string (&json, "format", survey->format ? survey->format : "");
  spx_json_bool (&json, "complete", survey->complete);
  spx_json_uint (&json, "n_layers", survey->n_layers);
  spx_json_uint (&json, "n_skipped", survey->n_skipped);
  write_settings (&json, &survey->settings);
  spx_json_begin_array (&json, "layers");
  for (guint i = 0; i < survey->layers->len; i++)
    write_layer (&json, survey->layers->pdata[i], &survey->settings);
  spx_json_end_array (&json);
  spx_json_begin_object (&json, "total");
  for (guint s = 0; s < SPX_SWEEP_N_SOURCES; s++)
    {
      const SpxSurveyTotal *t = &survey->total[s];
      if (!t->valid)
        continue;
      spx_json_begin_object (&json, source_keys[s]);
      spx_json_double (&json, "dense_ms", t->dense_ms);
      spx_json_double (&json, "chosen_ms", t->chosen_ms);
      spx_json_double (&json, "speedup", t->speedup);
      spx_json_double (&json, "kept_dense_ms", t->kept_dense_ms);
      spx_json_uint (&json, "layers", t->layers);
      spx_json_uint (&json, "unmeasured_layers", t->unmeasured);
      spx_json_double (&json, "unmeasured_flops_share",
                       t->flops > 0 ? t->unmeasured_flops / t->flops : 0);
      spx_json_end_object (&json);
    }
  spx_json_end_object (&json);
  spx_json_end_object (&json);
  return spx_json_finish_line (&json);
}

gboolean
spx_survey_save (const SpxSurvey *survey, const char *path,
                 SpxSaveFlags flags, GError **error)
{
  return spx_sweep_save_as (path, (SpxSweepText) spx_survey_to_csv,
                            (SpxSweepText) spx_survey_to_json, survey, flags,
                            error);
}

/* ---- JSON in ------------------------------------------------------ */

/* ---- settings ---- */

static gboolean
read_machine (SpxJsonReader *r, JsonObject *o, SpxSurveyOptions *s)
{
  const char *name = spx_json_get_string (r, o, "settings", "machine");
  if (name == NULL)
    return FALSE;
  if (!json_object_has_member (o, "machine_file"))
    {
      s->machine = spx_ipu_machine_preset (name);
      return s->machine != NULL ||
             spx_json_refuse (r, "settings", "machine", "expected a preset (a custom "
                     "machine has its machine_file)");
    }
  const char *data = spx_json_get_string (r, o, "settings", "machine_file");
  if (data == NULL)
    return FALSE;
  g_autoptr (GError) local = NULL;
  s->machine = spx_ipu_machine_load_data (name, data, strlen (data), &local);
  return s->machine != NULL ||
         spx_json_refuse (r, "settings", "machine_file", "%s", local->message);
}

static gboolean
read_settings (SpxJsonReader *r, JsonObject *root, SpxSurveyOptions *s)
{
  JsonObject *o = spx_json_get_object (r, root, "", "settings");
  const char *dtype = o ? spx_json_get_string (r, o, "settings", "dtype") : NULL;
  if (dtype == NULL || !spx_json_read_sources (r, o, &s->run_model, &s->run_cpu) ||
      !spx_json_read_blocks (r, o, s->blocks, &s->n_blocks) ||
      !spx_json_read_modes (r, o, &s->run_static, &s->run_dynamic,
                            &s->run_tilewise) ||
      !spx_json_get_uint (r, o, "settings", "n", 1, SPX_MASK_MAX_DIM, &s->n) ||
      !spx_json_get_guint (r, o, "settings", "threads", 0, G_MAXINT, &s->threads) ||
      !spx_json_get_guint (r, o, "settings", "reps", 1, G_MAXINT, &s->reps) ||
      !spx_json_get_guint (r, o, "settings", "warmup", 0, G_MAXINT, &s->warmup) ||
      !spx_json_get_uint (r, o, "settings", "seed", 0, G_MAXINT64, &s->seed) ||
      !read_machine (r, o, s))
    return FALSE;
  if (!spx_dtype_from_string (dtype, &s->dtype))
    return spx_json_refuse (r, "settings", "dtype", "expected %s", spx_dtype_names ());
  if (json_object_has_member (o, "only"))
    {
      const char *only = spx_json_get_string (r, o, "settings", "only");
      if (only == NULL)
        return FALSE;
      s->only = g_strdup (only);
    }
  g_autoptr (GError) local = NULL;
  if (!spx_survey_options_validate (s, &local))
    return spx_json_refuse (r, "", "settings", "%s", local->message);
  return TRUE;
}

/* ---- points ---- */

static gboolean
read_point (SpxJsonReader *r, JsonObject *o, const char *where,
            const SpxSurveyLayer *layer, const SpxSurveyOptions *s,
            SpxSweepPoint *p)
{
  const guint64 shape[] = { layer->rows, layer->cols, s->n };
  if (!spx_sweep_point_read (r, o, where, shape, p))
    return FALSE;
  for (guint b = 0; b < s->n_blocks; b++)
    if (s->blocks[b] == p->block)
      return TRUE;
  return spx_json_refuse (r, where, "block", "expected one of settings.blocks");
}

static gboolean
read_points (SpxJsonReader *r, JsonObject *o, const char *where,
             SpxSurveyLayer *layer, const SpxSurveyOptions *s)
{
  JsonArray *a = spx_json_get_array (r, o, where, "points");
  if (a == NULL)
    return FALSE;
  guint n = json_array_get_length (a);
  layer->points = g_array_sized_new (FALSE, TRUE, sizeof (SpxSweepPoint), n);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *at = g_strdup_printf ("%s.points[%u]", where, i);
      JsonNode *e = json_array_get_element (a, i);
      SpxSweepPoint p;
      if (!JSON_NODE_HOLDS_OBJECT (e))
        return spx_json_refuse (r, where, "points", "expected an object in each "
                       "place");
      if (!read_point (r, json_node_get_object (e), at, layer, s, &p))
        return FALSE;
      g_array_append_val (layer->points, p);
    }
  if (n > 0 && layer->skipped != NULL)
    return spx_json_refuse (r, where, "points", "expected none: the layer was "
                   "skipped");
  return TRUE;
}

static gboolean
read_block_densities (SpxJsonReader *r, JsonObject *o, const char *where,
                      SpxSurveyLayer *layer, const SpxSurveyOptions *s)
{
  g_autofree char *at = g_strdup_printf ("%s.block_density", where);
  JsonObject *bd = spx_json_get_object (r, o, where, "block_density");
  if (bd == NULL)
    return FALSE;
  for (guint b = 0; b < s->n_blocks; b++)
    {
      char key[16];
      g_snprintf (key, sizeof key, "%u", s->blocks[b]);
      layer->block_density[b] = NAN;
      if (json_object_has_member (bd, key) &&
          !spx_json_get_double (r, bd, at, key, 0, 1, FALSE,
                       &layer->block_density[b]))
        return FALSE;
    }
  return TRUE;
}

/* ---- recommendations, checked against the points ---- */

static gboolean
close_to (double a, double b)
{
  return (isnan (a) && isnan (b)) ||
         fabs (a - b) <= CLOSE * MAX (fabs (a), fabs (b));
}

/* Each of keys in o: a number close to *values[i], what the points
 * give, which then takes the file's own (so that a survey read back
 * writes the same file); why: what a number that is not says. */
static gboolean
check_numbers (SpxJsonReader *r, JsonObject *o, const char *where,
               const char *const *keys, double *const *values, guint n,
               const char *why)
{
  for (guint i = 0; i < n; i++)
    {
      double v; /* null: NAN (a speedup of nothing measured) */
      if (!spx_json_get_double (r, o, where, keys[i], 0, G_MAXDOUBLE, TRUE,
                                &v))
        return FALSE;
      if (!close_to (v, *values[i]))
        return spx_json_refuse (r, where, keys[i], "%s (%s %.6g)", why, keys[i],
                       *values[i]);
      *values[i] = v;
    }
  return TRUE;
}

/* A count added since the first version: when o has it, it is want. */
static gboolean
check_count (SpxJsonReader *r, JsonObject *o, const char *where,
             const char *key, guint want)
{
  guint count;
  if (!json_object_has_member (o, key))
    return TRUE;
  if (!spx_json_get_guint (r, o, where, key, 0, G_MAXUINT, &count))
    return FALSE;
  return count == want ||
         spx_json_refuse (r, where, key, "expected %u, what the layers give",
                          want);
}

/* "measured" is what the points give. */
static gboolean
check_measured (SpxJsonReader *r, JsonObject *o, const char *where,
                gboolean want)
{
  gboolean measured;
  if (!spx_json_get_bool (r, o, where, "measured", &measured))
    return FALSE;
  return !measured == !want ||
         spx_json_refuse (r, where, "measured", "expected %s: what the "
                          "layer's points give", want ? "true" : "false");
}

static gboolean
check_choice (SpxJsonReader *r, JsonObject *o, const char *where, gpointer item)
{
  SpxSurveyChoice *c = item;
  static const char *const keys[] = { "ms", "dense_ms", "speedup", "best" };
  double *const values[] = { &c->ms, &c->dense_ms, &c->speedup, &c->best };
  /* a file from before "measured": recommended again as this version
   * judges its points (it may have kept a noisy dense time) */
  if (!json_object_has_member (o, "measured"))
    return TRUE;
  const char *mode = spx_json_get_string (r, o, where, "mode");
  guint block, noisy;
  if (mode == NULL ||
      !spx_json_get_guint (r, o, where, "block", 0, SPX_MASK_MAX_BLOCK, &block) ||
      !spx_json_get_guint (r, o, where, "noisy_points", 0, G_MAXINT, &noisy))
    return FALSE;
  const char *key = !g_str_equal (mode, spx_sweep_mode_to_string (c->mode))
                      ? "mode"
                    : block != c->block ? "block"
                    : noisy != c->noisy ? "noisy_points" : NULL;
  g_autofree char *why = g_strdup_printf (
    "disagrees with the layer's points: they recommend %s b%u",
    spx_sweep_mode_to_string (c->mode), c->block);
  if (key != NULL)
    return spx_json_refuse (r, where, key, "%s", why);
  return check_measured (r, o, where, c->measured) &&
         check_numbers (r, o, where, keys, values, G_N_ELEMENTS (keys), why);
}

static gboolean
check_total (SpxJsonReader *r, JsonObject *o, const char *where, gpointer item)
{
  SpxSurveyTotal *t = item;
  static const char *const keys[] = { "dense_ms", "chosen_ms", "speedup",
                                      "kept_dense_ms" };
  double *const values[] = { &t->dense_ms, &t->chosen_ms, &t->speedup,
                             &t->kept_dense_ms };
  /* a file from before "layers": summed again as this version sums
   * (it counted layers not measured) */
  if (!json_object_has_member (o, "layers"))
    return TRUE;
  double share = t->flops > 0 ? t->unmeasured_flops / t->flops : 0;
  static const char *const share_key[] = { "unmeasured_flops_share" };
  double *const share_value[] = { &share };
  return check_numbers (r, o, where, keys, values, G_N_ELEMENTS (keys),
                        "not the sum of the layers'") &&
         check_count (r, o, where, "layers", t->layers) &&
         check_count (r, o, where, "unmeasured_layers", t->unmeasured) &&
         (!json_object_has_member (o, share_key[0]) ||
          check_numbers (r, o, where, share_key, share_value, 1,
                         "not the layers' share"));
}

/* What the file recommends for a layer (or totals) must be what its
 * points give: items[s], source s's as recomputed (valid[s]: it has
 * one), checked by check against o's member key. */
static gboolean
check_sources (SpxJsonReader *r, JsonObject *o, const char *where,
               const char *key, const gboolean *valid,
               gboolean (*check) (SpxJsonReader *, JsonObject *, const char *,
                                  gpointer),
               gpointer const *items)
{
  JsonObject *by = spx_json_get_object (r, o, where, key);
  if (by == NULL)
    return FALSE;
  g_autofree char *at = g_strdup_printf ("%s%s%s", where, *where ? "." : "",
                                         key);
  for (guint s = 0; s < SPX_SWEEP_N_SOURCES; s++)
    {
      gboolean has = json_object_has_member (by, source_keys[s]);
      if (has != valid[s])
        return spx_json_refuse (r, at, source_keys[s], valid[s]
                       ? "missing, yet the points have it"
                       : "expected none: no such points");
      g_autofree char *in = g_strdup_printf ("%s.%s", at, source_keys[s]);
      JsonObject *c = has ? spx_json_get_object (r, by, at, source_keys[s]) : NULL;
      if (has && (c == NULL || !check (r, c, in, items[s])))
        return FALSE;
    }
  return TRUE;
}

/* ---- layers ---- */

static gboolean
read_layer_figures (SpxJsonReader *r, JsonObject *o, const char *where,
                    SpxSurveyLayer *layer)
{
  guint64 entry, most;
  const char *name = spx_json_get_string (r, o, where, "name");
  if (name == NULL ||
      !spx_json_get_uint (r, o, where, "entry", 0, G_MAXUINT, &entry) ||
      !spx_json_get_uint (r, o, where, "rows", 0, SPX_MASK_MAX_DIM, &layer->rows) ||
      !spx_json_get_uint (r, o, where, "cols", 0, SPX_MASK_MAX_DIM, &layer->cols))
    return FALSE;
  layer->name = g_strdup (name);
  layer->entry = (guint) entry;
  most = layer->rows * layer->cols; /* each under 2^31 */
  if (!spx_json_get_uint (r, o, where, "nnz", 0, most, &layer->nnz) ||
      !spx_json_get_double (r, o, where, "density", 0, 1, FALSE, &layer->density))
    return FALSE;
  if (most > 0 && !close_to (layer->density, (double) layer->nnz / most))
    return spx_json_refuse (r, where, "density", "expected nnz / (rows × cols)");
  if (json_object_has_member (o, "skipped"))
    {
      const char *why = spx_json_get_string (r, o, where, "skipped");
      if (why == NULL)
        return FALSE;
      layer->skipped = g_strdup (why);
    }
  return TRUE;
}

static SpxSurveyLayer *
read_layer (SpxJsonReader *r, JsonObject *o, const char *where,
            const SpxSurveyOptions *s)
{
  SpxSurveyLayer *layer = g_new0 (SpxSurveyLayer, 1);
  gboolean ok = read_layer_figures (r, o, where, layer) &&
                read_block_densities (r, o, where, layer, s) &&
                read_points (r, o, where, layer, s);
  if (ok)
    {
      gboolean valid[SPX_SWEEP_N_SOURCES];
      gpointer items[SPX_SWEEP_N_SOURCES];
      spx_survey_recommend (layer);
      for (guint i = 0; i < SPX_SWEEP_N_SOURCES; i++)
        {
          valid[i] = layer->recommended[i].valid;
          items[i] = &layer->recommended[i];
        }
      ok = check_sources (r, o, where, "recommended", valid,
                          check_choice, items);
    }
  if (ok)
    return layer;
  spx_survey_layer_free (layer);
  return NULL;
}

static gboolean
read_layers (SpxJsonReader *r, JsonObject *root, SpxSurvey *survey)
{
  JsonArray *a = spx_json_get_array (r, root, "", "layers");
  if (a == NULL)
    return FALSE;
  for (guint i = 0; i < json_array_get_length (a); i++)
    {
      g_autofree char *at = g_strdup_printf ("layers[%u]", i);
      JsonNode *e = json_array_get_element (a, i);
      if (!JSON_NODE_HOLDS_OBJECT (e))
        return spx_json_refuse (r, "", "layers", "expected an object in each place");
      SpxSurveyLayer *layer = read_layer (r, json_node_get_object (e), at,
                                          &survey->settings);
      if (layer == NULL)
        return FALSE;
      g_ptr_array_add (survey->layers, layer);
    }
  spx_survey_sum (survey);
  gboolean valid[SPX_SWEEP_N_SOURCES];
  gpointer items[SPX_SWEEP_N_SOURCES];
  for (guint i = 0; i < SPX_SWEEP_N_SOURCES; i++)
    {
      valid[i] = survey->total[i].valid;
      items[i] = &survey->total[i];
    }
  return check_sources (r, root, "", "total", valid, check_total,
                        items) &&
         check_count (r, root, "", "n_layers", survey->n_layers) &&
         check_count (r, root, "", "n_skipped", survey->n_skipped);
}

/* ---- the file ---- */

static gboolean
read_root (SpxJsonReader *r, JsonObject *root, SpxSurvey *survey)
{
  const char *path = spx_json_get_string (r, root, "", "path");
  const char *format = path ? spx_json_get_string (r, root, "", "format") : NULL;
  if (format == NULL || !spx_json_get_bool (r, root, "", "complete",
                                   &survey->complete))
    return FALSE;
  survey->path = g_strdup (path);
  survey->format = g_strdup (format);
  /* settings' defaults hold no machine until read */
  survey->settings.machine = NULL;
  return read_settings (r, root, &survey->settings) &&
         read_layers (r, root, survey);
}

static JsonParser *
parse (SpxJsonReader *r, const char *path, GError **error)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  g_autoptr (GError) local = NULL;
  if (!spx_read_regular (path, "a survey", MAX_FILE_BYTES, &text, &len,
                         error) ||
      !spx_budget_check_estimate (len * TREE_PER_BYTE, r->file, error))
    return NULL;
  if (!spx_json_text_ok (r, text, len, MAX_DEPTH, "a survey"))
    return NULL;
  JsonParser *parser = json_parser_new ();
  if (json_parser_load_from_data (parser, text, len, &local))
    return parser;
  g_set_error (error, SPX_SURVEY_ERROR, SPX_SURVEY_ERROR_INVALID,
               "%s: not JSON: %s", r->file, local->message);
  g_object_unref (parser);
  return NULL;
}

SpxSurvey *
spx_survey_load (const char *path, GError **error)
{
  g_autofree char *shown = g_filename_display_name (path);
  SpxJsonReader r = { shown, error, SPX_SURVEY_ERROR,
                     SPX_SURVEY_ERROR_INVALID };
  g_autoptr (JsonParser) parser = parse (&r, path, error);
  if (parser == NULL)
    return NULL;
  JsonNode *root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      spx_json_refuse (&r, "", "(top)", "expected an object");
      return NULL;
    }
  g_autoptr (SpxSurvey) survey = spx_survey_new ();
  if (!read_root (&r, json_node_get_object (root), survey))
    return NULL;
  return g_steal_pointer (&survey);
}
