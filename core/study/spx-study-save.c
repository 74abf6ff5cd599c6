/* spx-study-save.c: a study saved as a .spx, with its machine beside
 * it when that is not an unedited preset */
#include "spx-study.h"
#include "spx-study-private.h"
#include "spx-util.h"

#include <string.h>

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
  gsize stem = strlen (base) - (_spx_study_is_scenario_file (base) ? 4 : 0);
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
