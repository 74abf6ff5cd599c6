/* spx-scenario.c: scenarios and their .spx key files */
#include "spx-scenario.h"
#include "spx-defaults.h"
#include "spx-util.h"

#include <math.h>
#include <string.h>

G_DEFINE_QUARK (spx-scenario-error-quark, spx_scenario_error)

#define GROUP_SCENARIO "scenario"
#define GROUP_MASK     "mask"
#define MAX_THREADS    1024 /* what the format holds */

static const char *const scenario_keys[] = {
  "version", "m", "k", "n", "block", "dtype", "machine", "threads", NULL
};
static const char *const sweep_keys[] = {
  "json", "subject-rows", "subject-cols", "subject-block", "subject-count",
  "subject-bits", NULL
};
static const char *const mask_keys[] = {
  "source", "pattern", "density", "seed", "tile-width", "nm", "band",
  "exponent", "path", "layer", "count", "bits", NULL
};

SpxScenario *
spx_scenario_new (void)
{
  SpxScenario *s = g_new0 (SpxScenario, 1);
  s->m = s->k = 4096;
  s->n = spx_defaults ()->n;
  s->block = spx_defaults ()->block;
  s->threads = spx_defaults ()->threads;
  s->dtype = SPX_DTYPE_FP16;
  s->machine = g_strdup ("bow");
  s->source = SPX_MASK_SOURCE_GENERATED;
  spx_gen_options_init (&s->gen);
  s->gen.density = 1.0 / 16.0;
  s->gen.seed = 1;
  return s;
}

void
spx_scenario_free (SpxScenario *s)
{
  if (s == NULL)
    return;
  g_free (s->machine);
  g_free (s->mask_path);
  g_free (s->mask_layer);
  spx_mask_free (s->mask);
  if (s->sweeps != NULL)
    g_ptr_array_unref (s->sweeps);
  g_free (s);
}

static void
scenario_sweep_free (SpxScenarioSweep *sw)
{
  g_free (sw->json);
  spx_mask_free (sw->subject);
  g_free (sw);
}

void
spx_scenario_add_sweep (SpxScenario *s, const char *json,
                        const SpxMask *subject)
{
  if (s->sweeps == NULL)
    s->sweeps = g_ptr_array_new_with_free_func ((GDestroyNotify)
                                                scenario_sweep_free);
  SpxScenarioSweep *sw = g_new0 (SpxScenarioSweep, 1);
  sw->json = g_strdup (json);
  sw->subject = subject ? spx_mask_ref (subject) : NULL;
  g_ptr_array_add (s->sweeps, sw);
}

SpxScenario *
spx_scenario_copy (const SpxScenario *s)
{
  SpxScenario *copy = g_memdup2 (s, sizeof *s);
  copy->machine = g_strdup (s->machine);
  copy->mask_path = g_strdup (s->mask_path);
  copy->mask_layer = g_strdup (s->mask_layer);
  copy->mask = s->mask ? spx_mask_ref (s->mask) : NULL; /* kept as it is */
  copy->sweeps = NULL;
  for (guint i = 0; s->sweeps != NULL && i < s->sweeps->len; i++)
    {
      const SpxScenarioSweep *sw = g_ptr_array_index (s->sweeps, i);
      spx_scenario_add_sweep (copy, sw->json, sw->subject);
    }
  return copy;
}

static const char *const dtype_names[SPX_DTYPE_COUNT] = {
  [SPX_DTYPE_FP16] = "fp16", [SPX_DTYPE_FP32] = "fp32",
  [SPX_DTYPE_BF16] = "bf16",
};

const char *
spx_dtype_to_string (SpxDtype dtype)
{
  return (guint) dtype < SPX_DTYPE_COUNT ? dtype_names[dtype] : "fp16";
}

gboolean
spx_dtype_from_string (const char *name, SpxDtype *dtype)
{
  for (guint i = 0; i < SPX_DTYPE_COUNT; i++)
    if (g_strcmp0 (name, dtype_names[i]) == 0)
      {
        *dtype = (SpxDtype) i;
        return TRUE;
      }
  return FALSE;
}

const char *
spx_dtype_names (void)
{
  return "fp16, fp32, bf16";
}

SpxDtype
spx_dtype_on_ipu (SpxDtype dtype)
{
  return dtype == SPX_DTYPE_FP32 ? SPX_DTYPE_FP32 : SPX_DTYPE_FP16;
}

gboolean
spx_dtype_cpu_bf16 (SpxDtype dtype)
{
  return dtype != SPX_DTYPE_FP32;
}

char *
spx_dtype_label (SpxDtype dtype)
{
  if (dtype == SPX_DTYPE_FP32)
    return g_strdup ("fp32");
  return g_strdup_printf ("CPU bf16 / IPU %s",
                          spx_dtype_to_string (spx_dtype_on_ipu (dtype)));
}

static const char *const source_names[] = { "generated", "file", "drawn" };

const char *
spx_mask_source_to_string (SpxMaskSource source)
{
  return source_names[source];
}

char *
spx_scenario_mask_origin (const SpxScenario *s)
{
  if (s->source == SPX_MASK_SOURCE_DRAWN)
    return g_strdup ("drawn");
  if (s->source != SPX_MASK_SOURCE_FILE || s->mask_path == NULL)
    return g_strdup (spx_pattern_to_string (s->gen.pattern));
  g_autofree char *name = g_filename_display_basename (s->mask_path);
  g_autofree char *shown = spx_escape (name);
  if (s->mask_layer == NULL)
    return g_strdup_printf ("from file %s", shown);
  g_autofree char *layer = spx_escape (s->mask_layer);
  return g_strdup_printf ("from file %s, layer %s", shown, layer);
}

static gboolean
mask_source_from_string (const char *name, SpxMaskSource *source)
{
  for (guint i = 0; i < G_N_ELEMENTS (source_names); i++)
    if (g_strcmp0 (name, source_names[i]) == 0)
      {
        *source = (SpxMaskSource) i;
        return TRUE;
      }
  return FALSE;
}

gboolean
spx_scenario_validate (const SpxScenario *s, GError **error)
{
  if (s->m == 0 || s->k == 0 || s->n == 0 || s->m > SPX_MASK_MAX_DIM ||
      s->k > SPX_MASK_MAX_DIM || s->n > SPX_MASK_MAX_DIM)
    return spx_invalid (error, SPX_SCENARIO_ERROR, SPX_SCENARIO_ERROR_INVALID,
                        "m, k and n must be between 1 and %" G_GUINT64_FORMAT,
                        SPX_MASK_MAX_DIM);
  if (s->block == 0 || s->block > SPX_MASK_MAX_BLOCK)
    return spx_invalid (error, SPX_SCENARIO_ERROR, SPX_SCENARIO_ERROR_INVALID,
                        "block size %u: expected 1 to %u", s->block,
                        SPX_MASK_MAX_BLOCK);
  if (!isfinite (s->gen.density) || s->gen.density < 0 || s->gen.density > 1)
    return spx_invalid (error, SPX_SCENARIO_ERROR, SPX_SCENARIO_ERROR_INVALID,
                        "density %g: expected a number from 0 to 1",
                        s->gen.density);
  if (s->machine == NULL || s->machine[0] == '\0' ||
      strpbrk (s->machine, "\n\r") != NULL)
    return spx_invalid (error, SPX_SCENARIO_ERROR, SPX_SCENARIO_ERROR_INVALID,
                        "machine: expected a preset name or a file");
  if (s->threads > MAX_THREADS)
    return spx_invalid (error, SPX_SCENARIO_ERROR, SPX_SCENARIO_ERROR_INVALID,
                        "threads %u: expected 0 (all cores) to %d",
                        s->threads, MAX_THREADS);
  if (s->source == SPX_MASK_SOURCE_FILE && s->mask_path == NULL)
    return spx_invalid (error, SPX_SCENARIO_ERROR, SPX_SCENARIO_ERROR_INVALID,
                        "mask source is a file but no path is given");
  if (s->mask != NULL &&
      (s->mask->rows != s->m || s->mask->cols != s->k ||
       s->mask->block != s->block))
    return spx_invalid (error, SPX_SCENARIO_ERROR, SPX_SCENARIO_ERROR_INVALID,
                        "the mask is %" G_GUINT64_FORMAT "×%"
                        G_GUINT64_FORMAT " with block %u, but the scenario "
                        "is m×k = %" G_GUINT64_FORMAT "×%" G_GUINT64_FORMAT
                        " with block %u", s->mask->rows, s->mask->cols,
                        s->mask->block, s->m, s->k, s->block);
  return TRUE;
}

void
spx_scenario_set_drawn_mask (SpxScenario *s, SpxMask *mask)
{
  spx_mask_free (s->mask);
  s->mask = mask;
  s->m = mask->rows;
  s->k = mask->cols;
  s->block = mask->block;
  s->source = SPX_MASK_SOURCE_DRAWN;
  g_clear_pointer (&s->mask_path, g_free);
  g_clear_pointer (&s->mask_layer, g_free);
}

/* ---- loading ---------------------------------------------------------- */

typedef struct {
  const char *name;
  GKeyFile   *kf;
  GError    **error;
} Reader;

static gboolean
read_fail (Reader *r, const char *group, const char *key, const char *what)
{
  return spx_invalid (r->error, SPX_SCENARIO_ERROR, SPX_SCENARIO_ERROR_INVALID,
                      "%s: [%s] %s: %s", r->name, group, key, what);
}

static gboolean
check_keys (Reader *r, const char *group, const char *const *known)
{
  g_auto (GStrv) keys = g_key_file_get_keys (r->kf, group, NULL, NULL);
  for (guint i = 0; keys != NULL && keys[i] != NULL; i++)
    if (!g_strv_contains (known, keys[i]))
      {
        g_autofree char *key = spx_short (keys[i]);
        return read_fail (r, group, key, "unknown key");
      }
  return TRUE;
}

/* Missing optional keys leave *value untouched. */
static gboolean
read_uint (Reader *r, const char *group, const char *key, gboolean required,
           guint64 min, guint64 max, guint64 *value)
{
  g_autofree char *text = g_key_file_get_value (r->kf, group, key, NULL);
  if (text == NULL)
    return required ? read_fail (r, group, key, "missing (required)") : TRUE;
  if (!g_ascii_string_to_unsigned (g_strstrip (text), 10, min, max, value,
                                   NULL))
    {
      g_autofree char *got = spx_excerpt (text);
      g_autofree char *what = g_strdup_printf (
        "expected a whole number from %" G_GUINT64_FORMAT " to %"
        G_GUINT64_FORMAT ", got %s", min, max, got);
      return read_fail (r, group, key, what);
    }
  return TRUE;
}

static gboolean
read_uint32 (Reader *r, const char *group, const char *key, gboolean required,
             guint64 min, guint64 max, guint *value)
{
  guint64 v = *value;
  if (!read_uint (r, group, key, required, min, max, &v))
    return FALSE;
  *value = (guint) v;
  return TRUE;
}

static gboolean
read_double (Reader *r, const char *group, const char *key, double min,
             double max, double *value)
{
  g_autofree char *text = g_key_file_get_value (r->kf, group, key, NULL);
  if (text == NULL)
    return TRUE;
  char *end = NULL;
  double v = g_ascii_strtod (g_strstrip (text), &end);
  if (end == text || *end != '\0' || !isfinite (v) || v < min || v > max)
    {
      g_autofree char *got = spx_excerpt (text);
      g_autofree char *what = g_strdup_printf (
        "expected a number from %g to %g, got %s", min, max, got);
      return read_fail (r, group, key, what);
    }
  *value = v;
  return TRUE;
}

/* A text key (*value NULL when missing): GKeyFile's strings are UTF-8
 * with its escapes, and one that is not is refused rather than taken for
 * missing. */
static gboolean
read_string (Reader *r, const char *group, const char *key, char **value)
{
  g_autoptr (GError) local = NULL;
  *value = g_key_file_get_string (r->kf, group, key, &local);
  if (*value != NULL || g_error_matches (local, G_KEY_FILE_ERROR,
                                         G_KEY_FILE_ERROR_KEY_NOT_FOUND))
    return TRUE;
  g_autofree char *raw = g_key_file_get_value (r->kf, group, key, NULL);
  g_autofree char *got = spx_excerpt (raw != NULL ? raw : "");
  g_autofree char *what = g_strdup_printf (
    "expected UTF-8 text (escapes \\s \\t \\n \\r \\\\), got %s", got);
  return read_fail (r, group, key, what);
}

static gboolean
read_scenario_group (Reader *r, SpxScenario *s)
{
  guint64 version = 0;
  if (!g_key_file_has_group (r->kf, GROUP_SCENARIO))
    return spx_invalid (r->error,
                        SPX_SCENARIO_ERROR, SPX_SCENARIO_ERROR_INVALID,
                        "%s: expected a [scenario] group", r->name);
  if (!read_uint (r, GROUP_SCENARIO, "version", TRUE, 1, G_MAXUINT32, &version))
    return FALSE;
  if (version > SPX_SCENARIO_VERSION)
    {
      g_set_error (r->error, SPX_SCENARIO_ERROR, SPX_SCENARIO_ERROR_VERSION,
                   "%s: written by a newer Sparse Explorer (file version %"
                   G_GUINT64_FORMAT "); this one reads version %d and older",
                   r->name, version, SPX_SCENARIO_VERSION);
      return FALSE;
    }
  if (!check_keys (r, GROUP_SCENARIO, scenario_keys) ||
      !read_uint (r, GROUP_SCENARIO, "m", TRUE, 1, SPX_MASK_MAX_DIM, &s->m) ||
      !read_uint (r, GROUP_SCENARIO, "k", TRUE, 1, SPX_MASK_MAX_DIM, &s->k) ||
      !read_uint (r, GROUP_SCENARIO, "n", TRUE, 1, SPX_MASK_MAX_DIM, &s->n) ||
      !read_uint32 (r, GROUP_SCENARIO, "block", TRUE, 1, SPX_MASK_MAX_BLOCK,
                    &s->block) ||
      !read_uint32 (r, GROUP_SCENARIO, "threads", FALSE, 0, MAX_THREADS,
                    &s->threads))
    return FALSE;

  g_autofree char *dtype = g_key_file_get_value (r->kf, GROUP_SCENARIO,
                                                 "dtype", NULL);
  if (dtype != NULL && !spx_dtype_from_string (dtype, &s->dtype))
    {
      g_autofree char *what = g_strdup_printf ("expected one of %s",
                                               spx_dtype_names ());
      return read_fail (r, GROUP_SCENARIO, "dtype", what);
    }
  g_autofree char *machine = NULL;
  if (!read_string (r, GROUP_SCENARIO, "machine", &machine))
    return FALSE;
  if (machine != NULL)
    {
      if (machine[0] == '\0')
        return read_fail (r, GROUP_SCENARIO, "machine",
                          "expected a preset name or a file");
      g_free (s->machine);
      s->machine = g_steal_pointer (&machine);
    }
  return TRUE;
}

static gboolean
read_nm (Reader *r, SpxGenOptions *gen)
{
  g_autofree char *text = g_key_file_get_value (r->kf, GROUP_MASK, "nm", NULL);
  if (text == NULL)
    return TRUE;
  guint64 n, m;
  g_auto (GStrv) parts = g_strsplit (text, ":", -1);
  if (g_strv_length (parts) != 2 ||
      !g_ascii_string_to_unsigned (parts[0], 10, 0, 1024, &n, NULL) ||
      !g_ascii_string_to_unsigned (parts[1], 10, 1, 1024, &m, NULL) || n > m)
    return read_fail (r, GROUP_MASK, "nm", "expected N:M with 0 ≤ N ≤ M ≤ 1024");
  gen->nm_n = (guint) n;
  gen->nm_m = (guint) m;
  return TRUE;
}

static gboolean
read_generator (Reader *r, SpxGenOptions *gen)
{
  g_autofree char *pattern = g_key_file_get_value (r->kf, GROUP_MASK,
                                                   "pattern", NULL);
  if (pattern != NULL && !spx_pattern_from_string (pattern, &gen->pattern))
    {
      g_autofree char *names = spx_pattern_list (0);
      g_autofree char *what = g_strconcat ("expected ", names, NULL);
      return read_fail (r, GROUP_MASK, "pattern", what);
    }
  return read_double (r, GROUP_MASK, "density", 0, 1, &gen->density) &&
         read_uint (r, GROUP_MASK, "seed", FALSE, 0, G_MAXUINT64, &gen->seed) &&
         read_uint32 (r, GROUP_MASK, "tile-width", FALSE, 1, SPX_MASK_MAX_DIM,
                      &gen->tile_width) &&
         read_nm (r, gen) &&
         read_uint (r, GROUP_MASK, "band", FALSE, 0, SPX_MASK_MAX_DIM,
                    &gen->band) &&
         read_double (r, GROUP_MASK, "exponent", 0, 100, &gen->exponent);
}

/* The bitset is stored as base64 of its 64-bit words, little-endian. */
static char *
bits_to_base64 (const SpxMask *mask)
{
  gsize n = mask->n_words;
  guint64 *le = g_new (guint64, n);
  for (gsize i = 0; i < n; i++)
    le[i] = GUINT64_TO_LE (mask->bits[i]);
  char *text = g_base64_encode ((const guchar *) le, n * sizeof (guint64));
  g_free (le);
  return text;
}

/* A mask of m × k at block stored as base64 bits_key with its count of
 * blocks count_key in group. */
static SpxMask *
read_bits (Reader *r, const char *group, guint64 m, guint64 k, guint block,
           const char *bits_key, const char *count_key)
{
  guint64 count = 0;
  g_autofree char *text = g_key_file_get_value (r->kf, group, bits_key, NULL);
  if (text == NULL)
    {
      read_fail (r, group, bits_key, "missing (the mask is stored in the "
                 "file)");
      return NULL;
    }
  if (!read_uint (r, group, count_key, TRUE, 0, SPX_MASK_MAX_BLOCKS, &count))
    return NULL;
  g_autoptr (SpxMask) mask = spx_mask_new (m, k, block, r->error);
  if (mask == NULL)
    return NULL;
  gsize expected = mask->n_words * sizeof (guint64);
  gsize len = 0;
  /* base64 is 4 characters per 3 bytes: check before decoding. */
  if (strlen (text) != (expected + 2) / 3 * 4)
    read_fail (r, group, bits_key, "length does not match the m×k mask");
  else if ((g_base64_decode_inplace (text, &len), len != expected))
    read_fail (r, group, bits_key, "not valid base64 of the mask");
  if (len != expected)
    return NULL;
  memcpy (mask->bits, text, len);
  for (gsize i = 0; i < mask->n_words; i++)
    mask->bits[i] = GUINT64_FROM_LE (mask->bits[i]);
  guint64 used = spx_mask_n_blocks (mask) & 63; /* of the last word */
  if (used != 0 && (mask->bits[mask->n_words - 1] >> used) != 0)
    read_fail (r, group, bits_key, "bits set past the end of the mask");
  else if (spx_mask_count (mask) != count)
    read_fail (r, group, count_key, "does not match the stored bits (file "
               "damaged?)");
  else
    return g_steal_pointer (&mask);
  return NULL;
}

static gboolean
read_drawn_mask (Reader *r, SpxScenario *s)
{
  s->mask = read_bits (r, GROUP_MASK, s->m, s->k, s->block, "bits", "count");
  return s->mask != NULL;
}

/* [sweep N]: its JSON, and its subject's elements when it has one. */
static gboolean
read_sweep_group (Reader *r, SpxScenario *s, const char *group)
{
  g_autofree char *json = NULL;
  guint64 m = 0, k = 0, b = 1;
  if (!check_keys (r, group, sweep_keys) ||
      !read_string (r, group, "json", &json))
    return FALSE;
  if (json == NULL)
    return read_fail (r, group, "json", "missing (the sweep)");
  if (!g_key_file_has_key (r->kf, group, "subject-bits", NULL))
    {
      spx_scenario_add_sweep (s, json, NULL);
      return TRUE;
    }
  if (!read_uint (r, group, "subject-rows", TRUE, 1, SPX_MASK_MAX_DIM, &m) ||
      !read_uint (r, group, "subject-cols", TRUE, 1, SPX_MASK_MAX_DIM, &k) ||
      !read_uint (r, group, "subject-block", TRUE, 1, SPX_MASK_MAX_BLOCK, &b))
    return FALSE;
  g_autoptr (SpxMask) subject = read_bits (r, group, m, k, (guint) b,
                                           "subject-bits",
                                           "subject-count");
  if (subject == NULL)
    return FALSE;
  spx_scenario_add_sweep (s, json, subject);
  return TRUE;
}

/* "sweep N": N from 1 up to SPX_SCENARIO_MAX_SWEEPS, or 0. */
static guint
sweep_number (const char *group)
{
  if (!g_str_has_prefix (group, "sweep "))
    return 0;
  guint64 n = 0;
  if (!g_ascii_string_to_unsigned (group + 6, 10, 1, SPX_SCENARIO_MAX_SWEEPS,
                                   &n, NULL))
    return 0;
  return (guint) n;
}

/* [sweep 1], [sweep 2], … in order, none missing. */
static gboolean
read_sweeps (Reader *r, SpxScenario *s, guint n)
{
  for (guint i = 1; i <= n; i++)
    {
      g_autofree char *group = g_strdup_printf ("sweep %u", i);
      if (!g_key_file_has_group (r->kf, group))
        return read_fail (r, group, "json", "missing: the sweeps are "
                          "numbered from 1 without gaps");
      if (!read_sweep_group (r, s, group))
        return FALSE;
    }
  return TRUE;
}

static gboolean
read_mask_group (Reader *r, SpxScenario *s, const char *dir)
{
  if (!g_key_file_has_group (r->kf, GROUP_MASK))
    return TRUE; /* all defaults: generated */
  g_autofree char *source = g_key_file_get_value (r->kf, GROUP_MASK, "source",
                                                  NULL);
  if (source != NULL && !mask_source_from_string (source, &s->source))
    return read_fail (r, GROUP_MASK, "source",
                      "expected generated, file or drawn");
  if (!check_keys (r, GROUP_MASK, mask_keys) || !read_generator (r, &s->gen))
    return FALSE;
  if (s->source == SPX_MASK_SOURCE_FILE)
    {
      g_autofree char *path = NULL;
      if (!read_string (r, GROUP_MASK, "path", &path))
        return FALSE;
      if (path == NULL || path[0] == '\0')
        return read_fail (r, GROUP_MASK, "path", "missing (mask source is a file)");
      s->mask_path = g_path_is_absolute (path) || dir == NULL
                       ? g_steal_pointer (&path)
                       : g_build_filename (dir, path, NULL);
      if (!read_string (r, GROUP_MASK, "layer", &s->mask_layer))
        return FALSE;
    }
  if (s->source == SPX_MASK_SOURCE_DRAWN)
    return read_drawn_mask (r, s);
  return TRUE;
}

static SpxScenario *
load_key_file (const char *name, GKeyFile *kf, const char *dir, GError **error)
{
  Reader r = { name, kf, error };
  g_autoptr (SpxScenario) s = spx_scenario_new ();
  g_auto (GStrv) groups = g_key_file_get_groups (kf, NULL);
  guint sweeps = 0;
  for (guint i = 0; groups[i] != NULL; i++)
    if (sweep_number (groups[i]) > 0)
      sweeps = MAX (sweeps, sweep_number (groups[i]));
    else if (g_strcmp0 (groups[i], GROUP_SCENARIO) != 0 &&
             g_strcmp0 (groups[i], GROUP_MASK) != 0)
      {
        g_autofree char *group = spx_short (groups[i]);
        spx_invalid (error, SPX_SCENARIO_ERROR, SPX_SCENARIO_ERROR_INVALID,
                     "%s: [%s]: unknown group (expected [scenario], [mask] "
                     "and [sweep 1] to [sweep %d])", name, group,
                     SPX_SCENARIO_MAX_SWEEPS);
        return NULL;
      }
  if (!read_scenario_group (&r, s) || !read_mask_group (&r, s, dir) ||
      !read_sweeps (&r, s, sweeps))
    return NULL;
  if (!spx_scenario_validate (s, error))
    {
      g_prefix_error (error, "%s: ", name);
      return NULL;
    }
  return g_steal_pointer (&s);
}

static SpxScenario *
load_data (const char *name, const char *data, gsize len, const char *dir,
           GError **error)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autofree char *where = NULL;
  if (!spx_key_file_parse (kf, name, data, len, &where, error))
    {
      if (where != NULL)
        spx_invalid (error, SPX_SCENARIO_ERROR, SPX_SCENARIO_ERROR_INVALID,
                     "%s: not a scenario key file (expected [scenario] "
                     "and [mask] groups of key = value lines)", where);
      return NULL;
    }
  return load_key_file (name, kf, dir, error);
}

SpxScenario *
spx_scenario_load_data (const char *name, const char *data, gsize len,
                        GError **error)
{
  return load_data (name, data, len, NULL, error);
}

SpxScenario *
spx_scenario_load (const char *path, GError **error)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  GError *err = NULL;
  /* a drawn mask inside makes it as long as the mask's bits in base64 */
  gsize max = (gsize) MIN (spx_memory_budget (), G_MAXSIZE / 2);
  if (!spx_read_regular (path, "a scenario (.spx)", max, &data, &len, &err))
    {
      g_set_error_literal (error, SPX_SCENARIO_ERROR, SPX_SCENARIO_ERROR_IO,
                           err->message);
      g_error_free (err);
      return NULL;
    }
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *abs_dir = g_canonicalize_filename (dir, NULL);
  return load_data (path, data, len, abs_dir, error);
}

/* ---- saving ----------------------------------------------------------- */

static void
write_generator (GKeyFile *kf, const SpxGenOptions *gen)
{
  char num[G_ASCII_DTOSTR_BUF_SIZE];
  g_key_file_set_string (kf, GROUP_MASK, "pattern",
                         spx_pattern_to_string (gen->pattern));
  g_key_file_set_value (kf, GROUP_MASK, "density",
                        g_ascii_dtostr (num, sizeof num, gen->density));
  g_key_file_set_uint64 (kf, GROUP_MASK, "seed", gen->seed);
  g_key_file_set_uint64 (kf, GROUP_MASK, "tile-width", gen->tile_width);
  g_autofree char *nm = g_strdup_printf ("%u:%u", gen->nm_n, gen->nm_m);
  g_key_file_set_value (kf, GROUP_MASK, "nm", nm);
  g_key_file_set_uint64 (kf, GROUP_MASK, "band", gen->band);
  g_key_file_set_value (kf, GROUP_MASK, "exponent",
                        g_ascii_dtostr (num, sizeof num, gen->exponent));
}

static void
write_sweeps (GKeyFile *kf, const SpxScenario *s)
{
  for (guint i = 0; s->sweeps != NULL && i < s->sweeps->len &&
                    i < SPX_SCENARIO_MAX_SWEEPS; i++)
    {
      const SpxScenarioSweep *sw = g_ptr_array_index (s->sweeps, i);
      g_autofree char *group = g_strdup_printf ("sweep %u", i + 1);
      g_key_file_set_string (kf, group, "json", sw->json);
      if (sw->subject == NULL)
        continue;
      g_autofree char *bits = bits_to_base64 (sw->subject);
      g_key_file_set_uint64 (kf, group, "subject-rows", sw->subject->rows);
      g_key_file_set_uint64 (kf, group, "subject-cols", sw->subject->cols);
      g_key_file_set_uint64 (kf, group, "subject-block", sw->subject->block);
      g_key_file_set_uint64 (kf, group, "subject-count",
                             spx_mask_count (sw->subject));
      g_key_file_set_value (kf, group, "subject-bits", bits);
    }
}

static GKeyFile *
to_key_file (const SpxScenario *s, const char *dir)
{
  GKeyFile *kf = g_key_file_new ();
  gboolean sweeps = s->sweeps != NULL && s->sweeps->len > 0;
  g_key_file_set_integer (kf, GROUP_SCENARIO, "version", sweeps ? 2 : 1);
  g_key_file_set_uint64 (kf, GROUP_SCENARIO, "m", s->m);
  g_key_file_set_uint64 (kf, GROUP_SCENARIO, "k", s->k);
  g_key_file_set_uint64 (kf, GROUP_SCENARIO, "n", s->n);
  g_key_file_set_uint64 (kf, GROUP_SCENARIO, "block", s->block);
  g_key_file_set_string (kf, GROUP_SCENARIO, "dtype",
                         spx_dtype_to_string (s->dtype));
  g_key_file_set_string (kf, GROUP_SCENARIO, "machine", s->machine);
  g_key_file_set_uint64 (kf, GROUP_SCENARIO, "threads", s->threads);
  g_key_file_set_string (kf, GROUP_MASK, "source",
                         spx_mask_source_to_string (s->source));
  write_generator (kf, &s->gen);
  if (s->source == SPX_MASK_SOURCE_FILE)
    {
      /* Beside the scenario: keep the path relative so both can move. */
      g_autofree char *abs = g_canonicalize_filename (s->mask_path, NULL);
      g_autofree char *prefix = dir ? g_strconcat (dir, G_DIR_SEPARATOR_S, NULL)
                                    : NULL;
      gboolean inside = prefix && g_str_has_prefix (abs, prefix);
      g_key_file_set_string (kf, GROUP_MASK, "path",
                             inside ? abs + strlen (prefix) : abs);
      if (s->mask_layer != NULL)
        g_key_file_set_string (kf, GROUP_MASK, "layer", s->mask_layer);
    }
  if (s->source == SPX_MASK_SOURCE_DRAWN && s->mask != NULL)
    {
      g_autofree char *bits = bits_to_base64 (s->mask);
      g_key_file_set_uint64 (kf, GROUP_MASK, "count", spx_mask_count (s->mask));
      g_key_file_set_value (kf, GROUP_MASK, "bits", bits);
    }
  write_sweeps (kf, s);
  return kf;
}

char *
spx_scenario_to_data (const SpxScenario *s, gsize *len)
{
  g_autoptr (GKeyFile) kf = to_key_file (s, NULL);
  return g_key_file_to_data (kf, len, NULL);
}

gboolean
spx_scenario_check_threads (const SpxScenario *s, const char *path,
                            GError **error)
{
  if (s->threads <= spx_max_threads ())
    return TRUE;
  g_autofree char *most = spx_max_threads_text ();
  return spx_invalid (error, SPX_SCENARIO_ERROR, SPX_SCENARIO_ERROR_INVALID,
                      "%s: [%s] threads: %u is more than this machine "
                      "runs: expected 0 (all cores) to %s", path,
                      GROUP_SCENARIO, s->threads, most);
}

gboolean
spx_scenario_save (const SpxScenario *s, const char *path,
                   SpxSaveFlags flags, GError **error)
{
  if (!spx_scenario_validate (s, error))
    return FALSE;
  if (s->source == SPX_MASK_SOURCE_DRAWN && s->mask == NULL)
    return spx_invalid (error, SPX_SCENARIO_ERROR, SPX_SCENARIO_ERROR_INVALID,
                        "%s: a drawn scenario needs its mask to be saved",
                        path);
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *abs_dir = g_canonicalize_filename (dir, NULL);
  g_autoptr (GKeyFile) kf = to_key_file (s, abs_dir);
  gsize len = 0;
  g_autofree char *data = g_key_file_to_data (kf, &len, NULL);
  return spx_save_file (path, data, len, flags, error);
}
