/* spx-study.c: the subject, its machine, programs and sweep, built the
 * same way for the window and every command */
#include "spx-study.h"
#include "spx-defaults.h"
#include "spx-mask-gen.h"
#include "spx-mask-io.h"
#include "spx-util.h"

#include <math.h>
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

static gboolean
is_scenario_file (const char *path)
{
  return spx_has_suffix (path, ".spx");
}

SpxStudy *
spx_study_load (const char *path, GError **error)
{
  if (is_scenario_file (path))
    return spx_study_load_scenario (path, error);
  g_autoptr (SpxStudy) s = spx_study_new ();
  return spx_study_open_mask (s, path, error) ? g_steal_pointer (&s) : NULL;
}

/* The oldest kept sweeps go past SPX_STUDY_HISTORY_MAX; the indices of
 * the sweep's own copy and of the overlay follow (-1 once gone). */
static void
trim_history (SpxStudy *s)
{
  if (s->history->len <= SPX_STUDY_HISTORY_MAX)
    return;
  gint gone = (gint) (s->history->len - SPX_STUDY_HISTORY_MAX);
  g_ptr_array_remove_range (s->history, 0, (guint) gone);
  s->kept = s->kept >= gone ? s->kept - gone : -1;
  s->overlay = s->overlay >= gone ? s->overlay - gone : -1;
}

/* The sweeps kept in the .spx join the history (the scenario keeps
 * none: they are the study's from now on). */
static gboolean
take_saved_sweeps (SpxStudy *s, const char *path, GError **error)
{
  GPtrArray *saved = s->scenario->sweeps;
  for (guint i = 0; saved != NULL && i < saved->len; i++)
    {
      const SpxScenarioSweep *sw = g_ptr_array_index (saved, i);
      g_autofree char *name = g_strdup_printf ("%s: [sweep %u] json", path,
                                               i + 1);
      SpxSweep *sweep = spx_sweep_from_json (name, sw->json,
                                             strlen (sw->json), sw->subject,
                                             error);
      if (sweep == NULL)
        return FALSE;
      g_ptr_array_add (s->history, sweep);
    }
  trim_history (s);
  g_clear_pointer (&s->scenario->sweeps, g_ptr_array_unref);
  return TRUE;
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
  if (!take_saved_sweeps (s, path, error))
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

/* A preset by name and by every figure: an edited one is a file. */
static gboolean
is_unedited_preset (const SpxStudy *s)
{
  g_autoptr (SpxIpuMachine) preset = spx_ipu_machine_preset (
    s->scenario->machine);
  return preset != NULL && spx_ipu_machine_equal (preset, s->machine);
}

/* NAME.machine beside path, else NAME-2.machine, …: the first whose file
 * is free or already holds exactly this machine (*held), never another
 * file. */
#define MAX_MACHINE_NAMES 100

static char *
free_machine_name (const char *path, const char *data, gsize len,
                   gboolean *held)
{
  g_autofree char *base = g_path_get_basename (path);
  gsize stem = strlen (base) - (is_scenario_file (base) ? 4 : 0);
  g_autofree char *dir = g_path_get_dirname (path);
  for (guint i = 1; i <= MAX_MACHINE_NAMES; i++)
    {
      char *name = i == 1 ? g_strdup_printf ("%.*s.machine", (int) stem, base)
                          : g_strdup_printf ("%.*s-%u.machine", (int) stem,
                                             base, i);
      g_autofree char *full = g_build_filename (dir, name, NULL);
      g_autofree char *old = NULL;
      gsize old_len = 0;
      *held = spx_read_regular (full, "a machine file", len, &old, &old_len,
                                NULL) &&
              old_len == len && memcmp (old, data, len) == 0;
      if (*held || !g_file_test (full, G_FILE_TEST_EXISTS))
        return name;
      g_free (name);
    }
  return NULL;
}

/* A machine that is not a preset goes beside the scenario under a name
 * no other file has, and the scenario names it. Written before the .spx:
 * a failure in between leaves the old .spx naming its old machine. */
static gboolean
save_machine (SpxStudy *s, SpxScenario *copy, const char *path,
              GError **error)
{
  if (is_unedited_preset (s))
    return TRUE;
  gsize len = 0;
  g_autofree char *data = spx_ipu_machine_to_data (s->machine, &len);
  gboolean held = FALSE;
  g_autofree char *name = free_machine_name (path, data, len, &held);
  if (name == NULL)
    {
      g_set_error (error, SPX_SCENARIO_ERROR, SPX_SCENARIO_ERROR_IO,
                   "%s: no free name beside it for its machine file "
                   "(tried %u)", path, MAX_MACHINE_NAMES);
      return FALSE;
    }
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *machine_path = g_build_filename (dir, name, NULL);
  /* one that holds it already is left alone: a read-only copy too */
  if (!held && !spx_ipu_machine_save (s->machine, machine_path,
                                      SPX_SAVE_DEFAULT, error))
    return FALSE;
  g_free (copy->machine);
  copy->machine = g_steal_pointer (&name);
  return TRUE;
}

gboolean
spx_study_save (SpxStudy *s, const char *path, SpxSaveFlags flags,
                GError **error)
{
  g_autoptr (SpxScenario) copy = spx_scenario_copy (s->scenario);
  for (guint i = 0; i < s->history->len; i++)
    {
      const SpxSweep *sweep = g_ptr_array_index (s->history, i);
      g_autofree char *json = spx_sweep_to_json (sweep);
      spx_scenario_add_sweep (copy, json, sweep->settings.subject);
    }
  if (!save_machine (s, copy, path, error) ||
      !spx_scenario_save (copy, path, flags, error))
    return FALSE;
  g_free (s->scenario->machine);
  s->scenario->machine = g_strdup (copy->machine);
  /* copied before the old one goes: path is often s->path itself */
  char *saved = g_strdup (path);
  g_free (s->path);
  s->path = saved;
  return TRUE;
}

static double block_density (const SpxMask *mask);

/* The fraction of non-empty blocks of elements at block b (1 on error). */
static double
density_at (const SpxMask *elements, guint b)
{
  g_autoptr (SpxMask) blocked = spx_mask_at_block (elements, b, NULL);
  return blocked ? block_density (blocked) : 1;
}

guint
spx_study_readable_block (SpxStudy *s, guint block)
{
  const guint *blocks = spx_defaults ()->blocks;
  const SpxMask *elements = spx_study_elements (s);
  if (elements == NULL || density_at (elements, block) <= SPX_STUDY_SOLID)
    return block;
  for (guint i = spx_defaults ()->n_blocks; i-- > 0;)
    if (blocks[i] < block &&
        density_at (elements, blocks[i]) <= SPX_STUDY_READABLE)
      return blocks[i];
  return 1;
}

double
spx_study_element_density (SpxStudy *s)
{
  const SpxMask *e = spx_study_elements (s);
  const SpxMask *mask = e != NULL ? e : s->scenario->mask;
  g_return_val_if_fail (mask != NULL, 0);
  return (double) spx_mask_count_elements (mask) /
         ((double) mask->rows * (double) mask->cols);
}

void
spx_study_survey_blocks (SpxStudy *s)
{
  const SpxMask *elements = spx_study_elements (s);
  s->surveyed = elements != NULL;
  s->survey_revision = s->revision;
  s->survey.n = 0;
  if (elements == NULL)
    return;
  SpxSweepOptions o;
  spx_study_sweep_options (s, &o);
  for (guint i = 0; i < o.n_blocks; i++)
    {
      s->survey.blocks[i] = o.blocks[i];
      s->survey.densities[i] = density_at (elements, o.blocks[i]);
    }
  s->survey.n = o.n_blocks;
}

/* ---- sweeps --------------------------------------------------------- */

const char *
spx_study_label (SpxStudy *s)
{
  const SpxScenario *sc = s->scenario;
  g_free (s->label);
  g_autofree char *base = sc->source != SPX_MASK_SOURCE_FILE ||
                          sc->mask_path == NULL ? NULL
                          : sc->mask_layer != NULL
                            ? g_utf8_make_valid (sc->mask_layer, -1)
                            : g_filename_display_basename (sc->mask_path);
  s->label = base != NULL ? spx_escape (base)
             : sc->source == SPX_MASK_SOURCE_DRAWN ? g_strdup ("drawn mask")
                                                   : NULL;
  return s->label;
}

/* A generated subject's own density joins the sweep's, in order. */
static void
add_density (SpxSweepOptions *o, double d)
{
  guint i = 0;
  for (; i < o->n_densities; i++)
    if (fabs (o->densities[i] / d - 1) < 1e-9)
      return;
  if (o->n_densities == SPX_SWEEP_MAX_VALUES || !(d > 0))
    return;
  for (i = 0; i < o->n_densities && o->densities[i] > d; i++)
    ;
  memmove (o->densities + i + 1, o->densities + i,
           (o->n_densities - i) * sizeof *o->densities);
  o->densities[i] = d;
  o->n_densities++;
}

/* The scenario's own block size joins the sweep's, last (the chart's
 * colours of the others stay as they are). */
static void
add_block (SpxSweepOptions *o, guint block)
{
  for (guint i = 0; i < o->n_blocks; i++)
    if (o->blocks[i] == block)
      return;
  if (o->n_blocks < SPX_SWEEP_MAX_VALUES)
    o->blocks[o->n_blocks++] = block;
}

void
spx_study_sweep_options (SpxStudy *s, SpxSweepOptions *o)
{
  const SpxScenario *sc = s->scenario;
  spx_sweep_options_init (o);
  o->model_m = o->cpu_m = sc->m;
  o->model_k = o->cpu_k = sc->k;
  o->model_n = o->cpu_n = sc->n;
  o->dtype = sc->dtype;
  o->machine = s->machine;
  o->threads = sc->threads;
  o->seed = sc->gen.seed;
  o->tile_width = sc->gen.tile_width;
  if (sc->gen.pattern == SPX_PATTERN_TILEWISE) /* else the paper's uniform */
    o->pattern = SPX_PATTERN_TILEWISE;
  const SpxMask *elements = spx_study_elements (s);
  if (elements != NULL)
    spx_sweep_options_set_subject (o, elements, spx_study_label (s));
  else
    add_density (o, sc->gen.density);
  add_block (o, sc->block);
  spx_sweep_options_fit (o, FALSE, FALSE);
}

gboolean
spx_study_sweep_stale (const SpxStudy *s)
{
  return s->sweep->points->len > 0 && s->sweep_revision != s->revision;
}

/* ---- words ---------------------------------------------------------- */

static double
element_density (const SpxMask *mask)
{
  return (double) spx_mask_count_elements (mask) /
         ((double) mask->rows * (double) mask->cols);
}

static double
block_density (const SpxMask *mask)
{
  return (double) spx_mask_count (mask) / (double) spx_mask_n_blocks (mask);
}

/* 99.9%, 10.0%, 0.05%: enough digits to tell nearly full from full. */
static char *
percent (double fraction)
{
  double p = 100 * fraction;
  if (p > 99 && p < 100)
    return g_strdup_printf ("%.1f%%", floor (p * 10) / 10);
  return g_strdup_printf (p >= 1 || p == 0 ? "%.1f%%" : "%.2g%%", p);
}

char *
spx_study_describe_density (const SpxStudy *s)
{
  const SpxMask *mask = s->scenario->mask;
  if (mask == NULL)
    return g_strdup ("");
  /* a file's own non-zeros; a drawn or generated block counts whole */
  g_autofree char *elements = percent (element_density (
    s->elements ? s->elements : mask));
  if (mask->block == 1)
    return g_strdup_printf ("%s of elements non-zero", elements);
  g_autofree char *blocks = percent (block_density (mask));
  return g_strdup_printf ("%s of elements, %s of %u × %u blocks non-empty",
                          elements, blocks, mask->block, mask->block);
}

/* ---- the session's sweeps ------------------------------------------- */

void
spx_study_keep_sweep (SpxStudy *s)
{
  if (s->sweep->points->len == 0)
    return;
  SpxSweep *copy = spx_sweep_copy (s->sweep);
  if (s->kept >= 0)
    {
      spx_sweep_free (g_ptr_array_index (s->history, s->kept));
      g_ptr_array_index (s->history, s->kept) = copy;
      return;
    }
  g_ptr_array_add (s->history, copy);
  trim_history (s);
  s->kept = (gint) s->history->len - 1;
}

void
spx_study_sweep_cleared (SpxStudy *s)
{
  s->kept = -1;
}

void
spx_study_take_history (SpxStudy *s, SpxStudy *from)
{
  GPtrArray *own = s->history;
  s->history = g_steal_pointer (&from->history);
  from->history = g_ptr_array_new_with_free_func ((GDestroyNotify)
                                                  spx_sweep_free);
  for (guint i = 0; i < own->len; i++)
    g_ptr_array_add (s->history, g_steal_pointer (&own->pdata[i]));
  g_ptr_array_unref (own);
  s->kept = s->overlay = from->kept = from->overlay = -1;
  trim_history (s);
}

guint
spx_study_history_n (const SpxStudy *s)
{
  return s->history->len;
}

const SpxSweep *
spx_study_history_get (const SpxStudy *s, guint i)
{
  return i < s->history->len ? g_ptr_array_index (s->history, i) : NULL;
}

gboolean
spx_study_set_overlay (SpxStudy *s, gint i)
{
  if (i >= (gint) s->history->len || (i >= 0 && i == s->kept))
    return FALSE;
  s->overlay = MAX (i, -1);
  return TRUE;
}

const SpxSweep *
spx_study_overlay (const SpxStudy *s)
{
  return s->overlay >= 0 && s->overlay != s->kept
           ? spx_study_history_get (s, (guint) s->overlay) : NULL;
}

/* ---- verdict -------------------------------------------------------- */

/* The best speedup of a source at one block size (and, for a generated
 * subject, its own density); 0 when there is none. */
static double
best_at (const SpxSweep *sweep, SpxSweepSource source, guint block,
         double density, SpxSweepMode *mode)
{
  double best = 0;
  for (guint i = 0; i < sweep->points->len; i++)
    {
      const SpxSweepPoint *p = &g_array_index (sweep->points, SpxSweepPoint,
                                               i);
      gboolean here = sweep->settings.subject != NULL ||
                      fabs (p->density / density - 1) < 1e-9;
      if (p->source == source && p->block == block && here &&
          spx_sweep_point_judged (p) && p->speedup > best)
        {
          best = p->speedup;
          *mode = p->mode;
        }
    }
  return best;
}

/* Whether a sparse point of source at block (and density d for a
 * generated subject) is noisy: its block size was not measured cleanly. */
static gboolean
noisy_at (const SpxSweep *sweep, SpxSweepSource source, guint block,
          double density)
{
  for (guint i = 0; i < sweep->points->len; i++)
    {
      const SpxSweepPoint *p = &g_array_index (sweep->points, SpxSweepPoint,
                                               i);
      gboolean here = sweep->settings.subject != NULL ||
                      fabs (p->density / density - 1) < 1e-9;
      if (p->source == source && p->block == block && here &&
          p->mode != SPX_SWEEP_DENSE && p->noise != SPX_NOISE_NONE)
        return TRUE;
    }
  return FALSE;
}

static void
judge_source (const SpxSweep *sweep, SpxSweepSource source, double d,
              SpxVerdictSource *v)
{
  const SpxSweepOptions *o = &sweep->settings;
  memset (v, 0, sizeof *v);
  v->best_mode = SPX_SWEEP_STATIC;
  for (guint i = 0; i < sweep->points->len; i++)
    {
      const SpxSweepPoint *p = &g_array_index (sweep->points, SpxSweepPoint,
                                               i);
      v->points += p->source == source;
      v->noisy += p->source == source && p->noise != SPX_NOISE_NONE;
      if (p->source == source && v->numbers[0] == '\0')
        {
          g_strlcpy (v->numbers, spx_dtype_to_string (p->dtype),
                     sizeof v->numbers);
          g_strlcpy (v->dense, p->dense, sizeof v->dense);
        }
    }
  for (guint b = 0; b < o->n_blocks; b++)
    {
      SpxSweepMode mode = SPX_SWEEP_STATIC;
      double speedup = best_at (sweep, source, o->blocks[b], d, &mode);
      if (speedup >= SPX_VERDICT_FASTER)
        v->faster[v->n_faster++] = o->blocks[b];
      else if (noisy_at (sweep, source, o->blocks[b], d))
        v->unclean[v->n_unclean++] = o->blocks[b];
      if (speedup > v->best)
        {
          v->best = speedup;
          v->best_block = o->blocks[b];
          v->best_mode = mode;
        }
    }
}

static void
add_bound (SpxVerdict *v, guint block, double block_density)
{
  SpxVerdictBound *b = &v->bounds[v->n_bounds++];
  b->block = block;
  b->bound = 1 / block_density;
  b->possible = b->bound >= SPX_VERDICT_WORTH;
}

/* Before a sweep: every surveyed block size's bound, else the
 * scenario's. */
static void
judge_bounds (const SpxStudy *s, SpxVerdict *v)
{
  if (!s->surveyed || s->survey_revision != s->revision)
    {
      v->kind = SPX_VERDICT_BOUND;
      add_bound (v, s->scenario->mask->block,
                 block_density (s->scenario->mask));
      return;
    }
  v->kind = SPX_VERDICT_BOUNDS;
  for (guint i = 0; i < s->survey.n; i++)
    add_bound (v, s->survey.blocks[i], s->survey.densities[i]);
}

void
spx_study_judge (const SpxStudy *s, SpxVerdict *v)
{
  memset (v, 0, sizeof *v);
  v->kind = SPX_VERDICT_EMPTY;
  if (s->scenario->mask == NULL || spx_mask_count (s->scenario->mask) == 0)
    return;
  if (s->sweep->points->len == 0 || spx_study_sweep_stale (s))
    {
      judge_bounds (s, v);
      return;
    }
  v->kind = SPX_VERDICT_SWEPT;
  for (guint i = 0; i < SPX_SWEEP_N_SOURCES; i++)
    judge_source (s->sweep, (SpxSweepSource) i, s->scenario->gen.density,
                  &v->sources[i]);
  v->machine = s->machine->name;
  v->done = s->sweep->points->len;
  v->total = spx_sweep_total (&s->sweep->settings);
}
