/* spx-study-sweeps.c: a study's sweep options, and the session's
 * sweeps kept beside it (those a .spx brings among them) */
#include "spx-study.h"
#include "spx-study-private.h"
#include "spx-util.h"

#include <math.h>
#include <string.h>

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

/* ---- the session's sweeps ------------------------------------------- */

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
gboolean
_spx_study_take_saved_sweeps (SpxStudy *s, const char *path, GError **error)
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
