/* spx-study.c: the subject, its machine and programs, built the same
 * way for the window and every command; spx-study-sweeps.c holds its
 * sweeps, spx-study-save.c its saving, spx-study-verdict.c what it says */
#include "spx-study.h"
#include "spx-study-private.h"
#include "spx-mask-gen.h"
#include "spx-mask-io.h"
#include "spx-util.h"

#include <string.h>

SpxStudy *
spx_study_new (void)
{
  SpxStudy *s = g_new0 (SpxStudy, 1);
  s->scenario = spx_scenario_new ();
  s->machine = spx_ipu_machine_preset (s->scenario->machine);
  s->sweep = spx_sweep_new ();
  s->history = g_ptr_array_new_with_free_func ((GDestroyNotify)
                                               spx_sweep_free);
  s->kept = s->overlay = -1;
  return s;
}

static void
clear_programs (SpxStudy *s)
{
  for (guint i = 0; i < SPX_IPU_N_MODES; i++)
    g_clear_pointer (&s->programs[i], spx_ipu_program_free);
}

void
spx_study_free (SpxStudy *s)
{
  if (s == NULL)
    return;
  spx_scenario_free (s->scenario);
  spx_mask_free (s->elements);
  g_free (s->path);
  spx_ipu_machine_free (s->machine);
  clear_programs (s);
  spx_sweep_free (s->sweep);
  g_ptr_array_unref (s->history);
  g_free (s->label);
  g_free (s->warning);
  g_free (s);
}

SpxStudy *
spx_study_copy (const SpxStudy *s)
{
  SpxStudy *copy = g_new0 (SpxStudy, 1);
  copy->scenario = spx_scenario_copy (s->scenario);
  copy->elements = s->elements ? spx_mask_ref (s->elements) : NULL;
  copy->path = g_strdup (s->path);
  copy->machine = spx_ipu_machine_copy (s->machine);
  copy->sweep = spx_sweep_new ();
  copy->history = g_ptr_array_new_with_free_func ((GDestroyNotify)
                                                  spx_sweep_free);
  copy->kept = copy->overlay = -1;
  copy->revision = copy->sweep_revision = s->revision;
  copy->survey = s->survey;
  copy->surveyed = s->surveyed;
  copy->survey_revision = s->survey_revision;
  return copy;
}

/* Something about the problem changed: the sweep is out of date. */
static void
changed (SpxStudy *s)
{
  s->revision++;
}

gboolean
_spx_study_is_scenario_file (const char *path)
{
  return spx_has_suffix (path, ".spx");
}

SpxStudy *
spx_study_load (const char *path, GError **error)
{
  if (_spx_study_is_scenario_file (path))
    return spx_study_load_scenario (path, error);
  g_autoptr (SpxStudy) s = spx_study_new ();
  return spx_study_open_mask (s, path, error) ? g_steal_pointer (&s) : NULL;
}

SpxStudy *
spx_study_load_scenario (const char *path, GError **error)
{
  g_autoptr (SpxStudy) s = spx_study_new ();
  SpxScenario *sc = spx_scenario_load (path, error);
  if (sc == NULL)
    return NULL;
  spx_scenario_free (s->scenario);
  s->scenario = sc;
  s->path = g_strdup (path);
  if (!spx_study_set_machine (s, sc->machine, error))
    {
      g_prefix_error (error, "%s: ", path);
      return NULL;
    }
  if (!_spx_study_take_saved_sweeps (s, path, error))
    return NULL;
  if (spx_study_build_mask (s, error))
    return g_steal_pointer (&s);
  if (sc->source == SPX_MASK_SOURCE_GENERATED) /* a file's names itself */
    g_prefix_error (error, "%s: ", path);
  return NULL;
}

/* A relative file name is looked for beside the .spx first. */
static char *
beside_study (const SpxStudy *s, const char *name)
{
  if (s->path == NULL || name == NULL || g_path_is_absolute (name))
    return NULL;
  g_autofree char *dir = g_path_get_dirname (s->path);
  char *beside = g_build_filename (dir, name, NULL);
  if (g_file_test (beside, G_FILE_TEST_EXISTS))
    return beside;
  g_free (beside);
  return NULL;
}

gboolean
spx_study_set_machine (SpxStudy *s, const char *name, GError **error)
{
  SpxIpuMachine *m = spx_ipu_machine_preset (name);
  if (m == NULL)
    {
      g_autofree char *beside = beside_study (s, name);
      m = spx_ipu_machine_resolve (beside ? beside : name, error);
    }
  if (m == NULL)
    return FALSE;
  spx_ipu_machine_free (s->machine);
  s->machine = m;
  if (s->scenario->machine != name)
    {
      g_free (s->scenario->machine);
      s->scenario->machine = g_strdup (name);
    }
  changed (s);
  return TRUE;
}

void
spx_study_set_block (SpxStudy *s, guint block)
{
  g_return_if_fail (block > 0);
  s->scenario->block = block;
  changed (s);
}

void
spx_study_set_n (SpxStudy *s, guint64 n)
{
  g_return_if_fail (n > 0);
  s->scenario->n = n;
  changed (s);
}

void
spx_study_set_dtype (SpxStudy *s, SpxDtype dtype)
{
  s->scenario->dtype = dtype;
  changed (s);
}

void
spx_study_set_threads (SpxStudy *s, guint threads)
{
  s->scenario->threads = threads;
  changed (s);
}

void
spx_study_set_generator (SpxStudy *s, const SpxStudyGenerator *gen)
{
  SpxScenario *sc = s->scenario;
  sc->m = gen->m;
  sc->k = gen->k;
  sc->gen.pattern = gen->pattern;
  sc->gen.density = gen->density;
  sc->gen.seed = gen->seed;
  sc->source = SPX_MASK_SOURCE_GENERATED;
  g_clear_pointer (&sc->mask_path, g_free);
  g_clear_pointer (&sc->mask_layer, g_free);
  changed (s);
}

gboolean
spx_study_set_machine_figures (SpxStudy *s, const SpxMachineFigures *f,
                               GError **error)
{
  g_autoptr (SpxIpuMachine) m = spx_ipu_machine_copy (s->machine);
  m->tiles = f->tiles;
  m->grid_width = MIN (m->grid_width, m->tiles);
  m->sram_bytes = f->sram_bytes;
  m->clock_hz = f->clock_hz;
  m->exchange_bytes_per_cycle = f->exchange_bytes_per_cycle;
  g_free (m->name);
  m->name = g_strdup (SPX_STUDY_CUSTOM_MACHINE);
  if (!spx_ipu_machine_validate (m, error))
    return FALSE;
  spx_ipu_machine_free (s->machine);
  s->machine = g_steal_pointer (&m);
  g_free (s->scenario->machine);
  s->scenario->machine = g_strdup (SPX_STUDY_CUSTOM_MACHINE);
  changed (s);
  return TRUE;
}

char *
spx_study_machine_origin (const SpxStudy *s)
{
  const char *name = s->scenario->machine;
  if (name == NULL ||
      g_strv_contains (spx_ipu_machine_presets (), name))
    return NULL;
  if (g_str_equal (name, SPX_STUDY_CUSTOM_MACHINE))
    return g_strdup ("custom (edited)");
  g_autofree char *file = g_filename_display_basename (name);
  g_autofree char *shown = spx_escape (file);
  g_autofree char *machine = spx_escape (s->machine->name);
  return g_strdup_printf ("%s (from %s)", machine, shown);
}

const SpxMask *
spx_study_elements (SpxStudy *s)
{
  const SpxScenario *sc = s->scenario;
  if (sc->source == SPX_MASK_SOURCE_GENERATED)
    return NULL;
  if (s->elements == NULL && sc->source == SPX_MASK_SOURCE_DRAWN &&
      sc->mask != NULL)
    s->elements = spx_mask_at_block (sc->mask, 1, NULL);
  return s->elements;
}

/* A layer of the network file at path, by its name there. */
static SpxMask *
load_layer (const char *path, const char *layer, GError **error)
{
  g_autoptr (SpxNetwork) network = spx_network_open (path, error);
  if (network == NULL)
    return NULL;
  gint i = spx_network_find (network, layer);
  if (i >= 0)
    return spx_network_load (network, (guint) i, error);
  g_autofree char *shown = g_filename_display_name (path);
  g_autofree char *name = spx_escape_len (layer, -1, 200);
  g_autofree char *layers = spx_count_text (spx_network_n_layers (network),
                                            "layer", "layers");
  g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
               "%s: no layer '%s' in it (it has %s)", shown, name, layers);
  return NULL;
}

/* The file as read, kept: re-blocking needs no second read. */
static gboolean
read_elements (SpxStudy *s, GError **error)
{
  const SpxScenario *sc = s->scenario;
  if (s->elements != NULL)
    return TRUE;
  s->elements = sc->mask_layer != NULL
                  ? load_layer (sc->mask_path, sc->mask_layer, error)
                  : spx_mask_load (sc->mask_path, NULL, error);
  g_free (s->warning);
  s->warning = spx_mask_io_take_warning ();
  return s->elements != NULL;
}

/* A new mask for the scenario, or NULL with *error (or with nothing to
 * do: a drawing already at its block). */
static SpxMask *
make_mask (SpxStudy *s, GError **error)
{
  SpxScenario *sc = s->scenario;
  switch (sc->source)
    {
    case SPX_MASK_SOURCE_GENERATED:
      return spx_mask_generate (sc->m, sc->k, sc->block, &sc->gen, error);
    case SPX_MASK_SOURCE_FILE:
      if (!read_elements (s, error))
        return NULL;
      break;
    case SPX_MASK_SOURCE_DRAWN:
    default:
      if (sc->mask == NULL)
        g_set_error (error, SPX_SCENARIO_ERROR, SPX_SCENARIO_ERROR_INVALID,
                     "a drawn scenario without its mask");
      if (sc->mask == NULL || sc->mask->block == sc->block)
        return NULL;
      break;
    }
  return spx_mask_at_block (spx_study_elements (s), sc->block, error);
}

gboolean
spx_study_build_mask (SpxStudy *s, GError **error)
{
  SpxScenario *sc = s->scenario;
  GError *local = NULL;
  SpxMask *mask = make_mask (s, &local);
  if (mask == NULL)
    {
      if (local == NULL)
        return TRUE;
      g_propagate_error (error, local);
      return FALSE;
    }
  spx_mask_free (sc->mask);
  sc->mask = mask;
  /* a file or a drawing decides the shape of W */
  sc->m = mask->rows;
  sc->k = mask->cols;
  if (sc->source == SPX_MASK_SOURCE_GENERATED)
    g_clear_pointer (&s->elements, spx_mask_free);
  changed (s);
  return TRUE;
}

/* elements (taken; NULL: its read failed), read from path (layer: its
 * name in that network file, or NULL), become the subject at the
 * scenario's block. */
static gboolean
take_file (SpxStudy *s, SpxMask *elements, const char *path,
           const char *layer, GError **error)
{
  SpxMask *mask = elements ? spx_mask_at_block (elements,
                                                s->scenario->block, error)
                           : NULL;
  if (mask == NULL)
    {
      spx_mask_free (elements);
      return FALSE;
    }
  SpxScenario *sc = s->scenario;
  spx_mask_free (s->elements);
  s->elements = elements;
  spx_mask_free (sc->mask);
  sc->mask = mask;
  sc->m = mask->rows;
  sc->k = mask->cols;
  sc->source = SPX_MASK_SOURCE_FILE;
  g_free (sc->mask_path);
  sc->mask_path = g_canonicalize_filename (path, NULL);
  g_free (sc->mask_layer);
  sc->mask_layer = g_strdup (layer);
  changed (s);
  return TRUE;
}

gboolean
spx_study_open_mask (SpxStudy *s, const char *path, GError **error)
{
  SpxMask *mask = spx_mask_load (path, NULL, error);
  g_free (s->warning);
  s->warning = spx_mask_io_take_warning ();
  return take_file (s, mask, path, NULL, error);
}

gboolean
spx_study_open_layer (SpxStudy *s, SpxNetwork *network, guint i,
                      GError **error)
{
  const char *layer = NULL;
  const char *path = spx_network_entry_file (network, i, &layer);
  return take_file (s, spx_network_load (network, i, error), path, layer,
                    error);
}

void
spx_study_set_drawn (SpxStudy *s, SpxMask *mask)
{
  spx_scenario_set_drawn_mask (s->scenario, mask);
  g_clear_pointer (&s->elements, spx_mask_free); /* made again on demand */
  changed (s);
}

struct _SpxSubject {
  SpxMaskSource source;
  SpxGenOptions gen;
  char         *mask_path, *mask_layer;
  guint64       m, k;
  guint         block;
  SpxMask      *elements; /* a file's, as read */
};

SpxSubject *
spx_study_save_subject (const SpxStudy *s)
{
  const SpxScenario *sc = s->scenario;
  SpxSubject *subject = g_new0 (SpxSubject, 1);
  *subject = (SpxSubject) { sc->source, sc->gen, g_strdup (sc->mask_path),
                            g_strdup (sc->mask_layer), sc->m, sc->k,
                            sc->block, NULL };
  if (sc->source == SPX_MASK_SOURCE_FILE && s->elements != NULL)
    subject->elements = spx_mask_ref (s->elements);
  return subject;
}

void
spx_study_restore_subject (SpxStudy *s, const SpxSubject *subject,
                           SpxMask *mask)
{
  SpxScenario *sc = s->scenario;
  sc->source = subject->source;
  sc->gen = subject->gen;
  g_free (sc->mask_path);
  sc->mask_path = g_strdup (subject->mask_path);
  g_free (sc->mask_layer);
  sc->mask_layer = g_strdup (subject->mask_layer);
  sc->m = subject->m;
  sc->k = subject->k;
  sc->block = subject->block;
  spx_mask_free (sc->mask);
  sc->mask = mask;
  spx_mask_free (s->elements);
  s->elements = subject->elements ? spx_mask_ref (subject->elements) : NULL;
  changed (s);
}

void
spx_subject_free (SpxSubject *subject)
{
  if (subject == NULL)
    return;
  g_free (subject->mask_path);
  g_free (subject->mask_layer);
  spx_mask_free (subject->elements);
  g_free (subject);
}

gboolean
spx_study_plan (SpxStudy *s, GError **error)
{
  const SpxScenario *sc = s->scenario;
  SpxIpuProgram *programs[SPX_IPU_N_MODES] = { NULL };
  if (sc->mask == NULL && !spx_study_build_mask (s, error))
    return FALSE;
  for (guint mode = 0; mode < SPX_IPU_N_MODES; mode++)
    {
      programs[mode] = spx_ipu_plan (s->machine, mode, sc->mask, sc->n,
                                     sc->dtype, error);
      if (programs[mode] == NULL)
        {
          for (guint i = 0; i < mode; i++)
            spx_ipu_program_free (programs[i]);
          return FALSE;
        }
    }
  clear_programs (s);
  memcpy (s->programs, programs, sizeof programs);
  return TRUE;
}

/* Whether every mode's plan fits the machine at m = k = size; *blocks
 * gets the mask's non-zero blocks there. */
static gboolean
fits_at (const SpxStudy *s, guint64 size, gboolean *fits, guint64 *blocks,
         GError **error)
{
  const SpxScenario *sc = s->scenario;
  g_autoptr (SpxMask) mask = spx_mask_generate (size, size, sc->block,
                                                &sc->gen, error);
  if (mask == NULL)
    return FALSE;
  *blocks = spx_mask_count (mask);
  *fits = TRUE;
  for (guint mode = 0; mode < SPX_IPU_N_MODES && *fits; mode++)
    {
      SpxIpuProgram *p = spx_ipu_plan (s->machine, mode, mask, sc->n,
                                       sc->dtype, error);
      if (p == NULL)
        return FALSE;
      *fits = p->fits;
      spx_ipu_program_free (p);
    }
  return TRUE;
}

/* The largest m = k in whole blocks, up to hi blocks, at which every
 * plan fits with the scenario's n (0: none), and its non-zero blocks. */
static gboolean
largest_fit (const SpxStudy *s, guint64 hi, guint64 *size, guint64 *blocks,
             GError **error)
{
  guint b = s->scenario->block;
  guint64 lo = 0; /* fits (0: nothing yet); nothing above hi does */
  *blocks = 0;
  while (lo < hi)
    {
      guint64 mid = lo + (hi - lo + 1) / 2, count = 0;
      gboolean fits = FALSE;
      if (!fits_at (s, mid * b, &fits, &count, error))
        return FALSE;
      if (fits)
        {
          lo = mid;
          *blocks = count;
        }
      else
        hi = mid - 1;
    }
  *size = lo * b;
  return TRUE;
}

gboolean
spx_study_fit_size (SpxStudy *s, GError **error)
{
  SpxScenario *sc = s->scenario;
  if (sc->source != SPX_MASK_SOURCE_GENERATED)
    {
      g_set_error (error, SPX_SCENARIO_ERROR, SPX_SCENARIO_ERROR_INVALID,
                   "only a generated mask can change its size; a file or "
                   "a drawing keeps its own");
      return FALSE;
    }
  guint64 asked_n = sc->n, hi = MIN (sc->m, sc->k) / sc->block;
  /* a size whose mask is empty teaches nothing: a smaller n makes room */
  for (;;)
    {
      guint64 size = 0, blocks = 0;
      if (!largest_fit (s, hi, &size, &blocks, error))
        return FALSE;
      if (size > 0 && (blocks > 0 || sc->gen.density == 0))
        {
          sc->m = sc->k = size;
          return spx_study_build_mask (s, error);
        }
      if (sc->n == 1)
        break;
      sc->n /= 2;
    }
  sc->n = asked_n;
  g_set_error (error, SPX_SCENARIO_ERROR, SPX_SCENARIO_ERROR_INVALID,
               "no size fits %s, not even one non-zero %u × %u block with "
               "n = 1: try a larger machine", s->machine->name, sc->block,
               sc->block);
  return FALSE;
}

gboolean
spx_study_use_scenario (SpxStudy *s, const SpxScenario *scenario,
                        GError **error)
{
  SpxScenario *sc = spx_scenario_copy (scenario);
  spx_mask_free (sc->mask);
  sc->mask = NULL;
  sc->threads = s->scenario->threads; /* the CPU's, not the scenario's */
  g_autofree char *now = spx_scenario_to_data (s->scenario, NULL);
  g_autofree char *then = spx_scenario_to_data (sc, NULL);
  if (g_str_equal (now, then) && s->scenario->mask != NULL)
    {
      spx_scenario_free (sc);
      return FALSE;
    }
  SpxScenario *old = s->scenario;
  s->scenario = sc;
  if (!spx_study_set_machine (s, sc->machine, error))
    {
      s->scenario = old;
      spx_scenario_free (sc);
      return FALSE;
    }
  spx_scenario_free (old);
  g_clear_pointer (&s->elements, spx_mask_free);
  changed (s);
  return TRUE;
}
