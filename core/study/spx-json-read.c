/* spx-json-read.c: reading JSON files that people may have edited:
 * every value checked, every refusal naming the file, where and the key */
#include "spx-json-read.h"
#include "spx-json-check.h"
#include "spx-util.h"

#include <math.h>
#include <string.h>

gboolean
spx_json_refuse (SpxJsonReader *r, const char *where, const char *key, const char *fmt, ...)
{
  va_list args;
  va_start (args, fmt);
  g_autofree char *what = g_strdup_vprintf (fmt, args);
  va_end (args);
  g_autofree char *k = spx_short (key);
  g_set_error (r->error, r->domain, r->code,
               "%s: %s%s%s: %s", r->file, where, *where ? "." : "", k, what);
  return FALSE;
}

/* o's member key holding a value of type (a JSON_NODE_* for objects and
 * arrays, else G_TYPE_STRING, G_TYPE_BOOLEAN, G_TYPE_DOUBLE for any
 * number or G_TYPE_INT64). nullable: null is taken (NULL returned,
 * no error). */
JsonNode *
spx_json_member (SpxJsonReader *r, JsonObject *o, const char *where, const char *key,
        JsonNodeType kind, GType type, gboolean nullable, gboolean *ok)
{
  static const char *const kinds[] = {
    [JSON_NODE_OBJECT] = "an object", [JSON_NODE_ARRAY] = "an array",
  };
  JsonNode *node = json_object_get_member (o, key);
  *ok = TRUE;
  if (node != NULL && nullable && JSON_NODE_HOLDS_NULL (node))
    return NULL;
  gboolean right = node != NULL && JSON_NODE_TYPE (node) == kind;
  if (right && kind == JSON_NODE_VALUE)
    {
      GType t = json_node_get_value_type (node);
      right = t == type || (type == G_TYPE_DOUBLE && t == G_TYPE_INT64);
    }
  if (right)
    return node;
  const char *expected = kind != JSON_NODE_VALUE ? kinds[kind]
                         : type == G_TYPE_STRING ? "a string"
                         : type == G_TYPE_BOOLEAN ? "true or false"
                         : type == G_TYPE_INT64 ? "a whole number"
                                                : "a number";
  *ok = spx_json_refuse (r, where, key, node ? "expected %s" : "missing (expected %s)",
                expected);
  return NULL;
}

JsonObject *
spx_json_get_object (SpxJsonReader *r, JsonObject *o, const char *where, const char *key)
{
  gboolean ok;
  JsonNode *n = spx_json_member (r, o, where, key, JSON_NODE_OBJECT, 0, FALSE, &ok);
  return n ? json_node_get_object (n) : NULL;
}

JsonArray *
spx_json_get_array (SpxJsonReader *r, JsonObject *o, const char *where, const char *key)
{
  gboolean ok;
  JsonNode *n = spx_json_member (r, o, where, key, JSON_NODE_ARRAY, 0, FALSE, &ok);
  return n ? json_node_get_array (n) : NULL;
}

const char *
spx_json_get_string (SpxJsonReader *r, JsonObject *o, const char *where, const char *key)
{
  gboolean ok;
  JsonNode *n = spx_json_member (r, o, where, key, JSON_NODE_VALUE, G_TYPE_STRING,
                        FALSE, &ok);
  return n ? json_node_get_string (n) : NULL;
}

gboolean
spx_json_get_bool (SpxJsonReader *r, JsonObject *o, const char *where, const char *key,
          gboolean *value)
{
  gboolean ok;
  JsonNode *n = spx_json_member (r, o, where, key, JSON_NODE_VALUE, G_TYPE_BOOLEAN,
                        FALSE, &ok);
  if (n != NULL)
    *value = json_node_get_boolean (n);
  return n != NULL;
}

gboolean
spx_json_get_uint (SpxJsonReader *r, JsonObject *o, const char *where, const char *key,
          guint64 lo, guint64 hi, guint64 *value)
{
  gboolean ok;
  JsonNode *n = spx_json_member (r, o, where, key, JSON_NODE_VALUE, G_TYPE_INT64,
                        FALSE, &ok);
  if (n == NULL)
    return FALSE;
  gint64 v = json_node_get_int (n);
  if (v < 0 || (guint64) v < lo || (guint64) v > hi)
    return spx_json_refuse (r, where, key, "expected a whole number from %"
                   G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT, lo, hi);
  *value = (guint64) v;
  return TRUE;
}

gboolean
spx_json_get_guint (SpxJsonReader *r, JsonObject *o, const char *where, const char *key,
           guint lo, guint hi, guint *value)
{
  guint64 v;
  if (!spx_json_get_uint (r, o, where, key, lo, hi, &v))
    return FALSE;
  *value = (guint) v;
  return TRUE;
}

/* The kernels a CPU point ran and how they were chosen, when it says
 * (points from before kernels were chosen do not). */
static gboolean
read_kernel (SpxJsonReader *r, JsonObject *o, const char *where,
             SpxSweepPoint *p)
{
  if (!json_object_has_member (o, "kernel"))
    return TRUE;
  const char *kernel = spx_json_get_string (r, o, where, "kernel");
  const char *choice = kernel ? spx_json_get_string (r, o, where,
                                                     "kernel_choice")
                              : NULL;
  if (choice == NULL)
    return FALSE;
  if (strlen (kernel) >= sizeof p->kernel)
    return spx_json_refuse (r, where, "kernel", "expected a kernel's name");
  g_strlcpy (p->kernel, kernel, sizeof p->kernel);
  for (SpxKernelChoice c = 0; c < SPX_KERNEL_N_CHOICES; c++)
    if (g_str_equal (choice, spx_kernel_choice_to_string (c)))
      {
        p->kernel_choice = c;
        return TRUE;
      }
  return spx_json_refuse (r, where, "kernel_choice", "expected measured, "
                          "remembered, default or forced");
}

/* A finite number from lo to hi; with nullable, null reads as NAN. */
gboolean
spx_json_get_double (SpxJsonReader *r, JsonObject *o, const char *where, const char *key,
            double lo, double hi, gboolean nullable, double *value)
{
  gboolean ok;
  JsonNode *n = spx_json_member (r, o, where, key, JSON_NODE_VALUE, G_TYPE_DOUBLE,
                        nullable, &ok);
  if (!ok)
    return FALSE;
  *value = n ? json_node_get_double (n) : NAN;
  if (n == NULL || (isfinite (*value) && *value >= lo && *value <= hi))
    return TRUE;
  return spx_json_refuse (r, where, key, "expected a number from %g to %g", lo, hi);
}


static gboolean
spx_sweep_point_read_words (SpxJsonReader *r, JsonObject *o, const char *where,
                  SpxSweepPoint *p)
{
  const char *source = spx_json_get_string (r, o, where, "source");
  const char *mode = source ? spx_json_get_string (r, o, where, "mode") : NULL;
  const char *dtype = mode ? spx_json_get_string (r, o, where, "dtype") : NULL;
  const char *machine = dtype ? spx_json_get_string (r, o, where, "machine") : NULL;
  const char *noise = machine ? spx_json_get_string (r, o, where, "noise") : NULL;
  if (noise == NULL)
    return FALSE;
  if (!g_str_equal (source, "cpu") && !g_str_equal (source, "model"))
    return spx_json_refuse (r, where, "source", "expected \"cpu\" or \"model\"");
  p->source = g_str_equal (source, "cpu") ? SPX_SWEEP_CPU : SPX_SWEEP_MODEL;
  if (!spx_sweep_mode_from_string (mode, &p->mode) ||
      (p->mode == SPX_SWEEP_TILEWISE && p->source == SPX_SWEEP_MODEL))
    return spx_json_refuse (r, where, "mode", "expected dense, static, dynamic or "
                   "(the CPU's) tilewise");
  if (!spx_dtype_from_string (dtype, &p->dtype))
    return spx_json_refuse (r, where, "dtype", "expected %s", spx_dtype_names ());
  if (strlen (machine) >= sizeof p->machine)
    return spx_json_refuse (r, where, "machine", "expected a name under %zu bytes",
                   sizeof p->machine);
  g_strlcpy (p->machine, machine, sizeof p->machine);
  if (!spx_noise_from_string (noise, &p->noise))
    return spx_json_refuse (r, where, "noise", "expected \"\" or some of "
                   "efficiency, dense-slow, busy, spread");
  if (p->source == SPX_SWEEP_CPU)
    {
      const char *dense = spx_json_get_string (r, o, where, "dense");
      if (dense == NULL)
        return FALSE;
      if (strlen (dense) >= sizeof p->dense)
        return spx_json_refuse (r, where, "dense", "expected a library's name");
      g_strlcpy (p->dense, dense, sizeof p->dense);
      /* files from before points said their threads have none */
      if (json_object_has_member (o, "threads") &&
          !spx_json_get_guint (r, o, where, "threads", 1, G_MAXUINT16,
                               &p->threads))
        return FALSE;
    }
  return read_kernel (r, o, where, p);
}

/* The ratios' quartiles around the speedup; a survey saved before they
 * were measured has none: the speedup stands for both. */
static gboolean
spx_sweep_point_read_ratios (SpxJsonReader *r, JsonObject *o, const char *where,
                     SpxSweepPoint *p)
{
  p->speedup_q1 = p->speedup_q3 = p->speedup;
  if (!json_object_has_member (o, "speedup_q1") &&
      !json_object_has_member (o, "speedup_q3"))
    return TRUE;
  double hi = isfinite (p->speedup) ? p->speedup : G_MAXDOUBLE;
  double lo = isfinite (p->speedup) ? p->speedup : 0;
  return spx_json_get_double (r, o, where, "speedup_q1", 0, hi, TRUE,
                     &p->speedup_q1) &&
         spx_json_get_double (r, o, where, "speedup_q3", lo, G_MAXDOUBLE, TRUE,
                     &p->speedup_q3);
}



gboolean
spx_json_text_ok (SpxJsonReader *r, const char *text, gsize len,
                  guint max_depth, const char *what)
{
  SpxJsonFlaw flaw;
  if (spx_json_check (text, len, max_depth, &flaw))
    return TRUE;
  if (flaw.deep)
    return spx_json_refuse (r, "", "(top)", "nested deeper than %u: not %s",
                            max_depth, what);
  return spx_json_refuse (r, "", "(top)", "line %" G_GUINT64_FORMAT ": %s",
                          flaw.line, flaw.why);
}

/* A size from a file: whole, from 1 to 2⁴⁰, or exactly *expect. */
static gboolean
get_size (SpxJsonReader *r, JsonObject *o, const char *where,
          const char *key, const guint64 *expect, guint64 *value)
{
  guint64 lo = expect ? *expect : 1;
  guint64 hi = expect ? *expect : G_GUINT64_CONSTANT (1) << 40;
  return spx_json_get_uint (r, o, where, key, lo, hi, value);
}

/* density (of elements) and block_density; a file from before points
 * had block_density has only the block density, under density. */
static gboolean
read_densities (SpxJsonReader *r, JsonObject *o, const char *where,
                SpxSweepPoint *p)
{
  if (!spx_json_get_double (r, o, where, "density", 0, 1, FALSE,
                            &p->elements))
    return FALSE;
  p->density = p->elements;
  return !json_object_has_member (o, "block_density") ||
         spx_json_get_double (r, o, where, "block_density", 0, 1, FALSE,
                              &p->density);
}

gboolean
spx_sweep_point_read (SpxJsonReader *r, JsonObject *o, const char *where,
                      const guint64 *shape, SpxSweepPoint *p)
{
  gboolean noisy;
  memset (p, 0, sizeof *p);
  if (!spx_sweep_point_read_words (r, o, where, p) ||
      !spx_json_get_guint (r, o, where, "block", 1, SPX_MASK_MAX_BLOCK,
                           &p->block) ||
      !read_densities (r, o, where, p) ||
      !get_size (r, o, where, "m", shape ? &shape[0] : NULL, &p->m) ||
      !get_size (r, o, where, "k", shape ? &shape[1] : NULL, &p->k) ||
      !get_size (r, o, where, "n", shape ? &shape[2] : NULL, &p->n) ||
      !spx_json_get_double (r, o, where, "ms", 0, G_MAXDOUBLE, FALSE,
                            &p->ms) ||
      !spx_json_get_double (r, o, where, "ms_q1", 0, p->ms, FALSE,
                            &p->ms_q1) ||
      !spx_json_get_double (r, o, where, "ms_q3", p->ms, G_MAXDOUBLE, FALSE,
                            &p->ms_q3) ||
      !spx_json_get_double (r, o, where, "nz_throughput", 0, G_MAXDOUBLE,
                            TRUE, &p->nz_throughput) ||
      !spx_json_get_double (r, o, where, "speedup", 0, G_MAXDOUBLE, TRUE,
                            &p->speedup) ||
      !spx_json_get_bool (r, o, where, "fits", &p->fits) ||
      !spx_json_get_bool (r, o, where, "noisy", &noisy) ||
      !spx_sweep_point_read_ratios (r, o, where, p))
    return FALSE;
  if (!(p->ms > 0))
    return spx_json_refuse (r, where, "ms", "expected a time above 0");
  if (noisy != (p->noise != SPX_NOISE_NONE))
    return spx_json_refuse (r, where, "noisy", "expected %s, as noise says",
                            noisy ? "false" : "true");
  return TRUE;
}

/* ---- a sweep's settings ---- */

/* Element i of a, when a string; else "" (no word the caller takes). */
static const char *
element_string (JsonArray *a, guint i)
{
  JsonNode *n = json_array_get_element (a, i);
  return JSON_NODE_HOLDS_VALUE (n) &&
         json_node_get_value_type (n) == G_TYPE_STRING
           ? json_node_get_string (n) : "";
}

gboolean
spx_json_read_sources (SpxJsonReader *r, JsonObject *o, gboolean *model,
                       gboolean *cpu)
{
  JsonArray *a = spx_json_get_array (r, o, "settings", "sources");
  if (a == NULL)
    return FALSE;
  *model = *cpu = FALSE;
  for (guint i = 0; i < json_array_get_length (a); i++)
    {
      const char *word = element_string (a, i);
      if (g_str_equal (word, "cpu"))
        *cpu = TRUE;
      else if (g_str_equal (word, "model"))
        *model = TRUE;
      else
        return spx_json_refuse (r, "settings", "sources", "expected \"cpu\" or "
                       "\"model\" in each place");
    }
  return TRUE;
}

gboolean
spx_json_read_blocks (SpxJsonReader *r, JsonObject *o, guint *blocks,
                      guint *n_blocks)
{
  JsonArray *a = spx_json_get_array (r, o, "settings", "blocks");
  if (a == NULL)
    return FALSE;
  guint n = json_array_get_length (a);
  if (n < 1 || n > SPX_SWEEP_MAX_VALUES)
    return spx_json_refuse (r, "settings", "blocks", "expected 1 to %d block sizes",
                   SPX_SWEEP_MAX_VALUES);
  *n_blocks = n;
  for (guint i = 0; i < n; i++)
    {
      JsonNode *e = json_array_get_element (a, i);
      gint64 b = JSON_NODE_HOLDS_VALUE (e) &&
                 json_node_get_value_type (e) == G_TYPE_INT64
                   ? json_node_get_int (e) : 0;
      if (b < 1 || b > SPX_MASK_MAX_BLOCK)
        return spx_json_refuse (r, "settings", "blocks", "expected whole numbers "
                       "from 1 to %u", SPX_MASK_MAX_BLOCK);
      blocks[i] = (guint) b;
    }
  return TRUE;
}

gboolean
spx_json_read_modes (SpxJsonReader *r, JsonObject *o, gboolean *run_static,
                     gboolean *run_dynamic, gboolean *run_tilewise)
{
  JsonArray *a = spx_json_get_array (r, o, "settings", "modes");
  if (a == NULL)
    return FALSE;
  gboolean *runs[SPX_SWEEP_N_MODES] = {
    NULL, run_static, run_dynamic, run_tilewise
  };
  *run_static = *run_dynamic = *run_tilewise = FALSE;
  for (guint i = 0; i < json_array_get_length (a); i++)
    {
      SpxSweepMode mode;
      if (!spx_sweep_mode_from_string (element_string (a, i), &mode))
        return spx_json_refuse (r, "settings", "modes", "expected dense, static, "
                       "dynamic or tilewise in each place");
      if (runs[mode] != NULL)
        *runs[mode] = TRUE;
    }
  return TRUE;
}

