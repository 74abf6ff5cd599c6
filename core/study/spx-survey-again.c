/* spx-survey-again.c: the noisy layers of a survey measured again (on
 * one thread, say), the others kept as they were; and a survey copied,
 * for a worker to measure again while the original is shown */
#include "spx-survey.h"
#include "spx-survey-private.h"
#include "spx-util.h"

typedef struct {
  SpxSurveyProgress progress;
  gpointer          user_data;
  guint             before, total; /* points of the layers before */
  guint             layer;
} Again;

static SpxSurveyLayer *
layer_copy (const SpxSurveyLayer *from)
{
  SpxSurveyLayer *l = g_memdup2 (from, sizeof *from);
  l->name = g_strdup (from->name);
  l->skipped = g_strdup (from->skipped);
  l->points = from->points ? g_array_copy (from->points) : NULL;
  return l;
}

SpxSurvey *
spx_survey_copy (const SpxSurvey *survey)
{
  SpxSurvey *copy = spx_survey_new ();
  spx_ipu_machine_free (copy->settings.machine);
  copy->settings = survey->settings;
  copy->settings.machine = survey->settings.machine
    ? spx_ipu_machine_copy (survey->settings.machine) : NULL;
  copy->settings.only = g_strdup (survey->settings.only);
  copy->path = g_strdup (survey->path);
  copy->format = g_strdup (survey->format);
  copy->complete = survey->complete;
  for (guint i = 0; i < survey->layers->len; i++)
    g_ptr_array_add (copy->layers, layer_copy (survey->layers->pdata[i]));
  spx_survey_sum (copy);
  return copy;
}

gboolean
spx_survey_layer_noisy (const SpxSurveyLayer *layer)
{
  const SpxSurveyChoice *c = &layer->recommended[SPX_SWEEP_CPU];
  return layer->skipped == NULL && layer->points != NULL && c->valid &&
         c->noisy > 0;
}

static guint
cpu_points (const SpxSurveyLayer *layer)
{
  guint n = 0;
  for (guint i = 0; i < layer->points->len; i++)
    n += g_array_index (layer->points, SpxSweepPoint, i).source ==
         SPX_SWEEP_CPU;
  return n;
}

static gboolean
on_point (guint done, guint total, const SpxSweepPoint *point, gpointer data)
{
  Again *a = data;
  return a->progress == NULL ||
         a->progress (MIN (a->before + done, a->total), a->total, a->layer,
                      point, a->user_data);
}

/* Layer's mask from network, as it was surveyed. */
static SpxMask *
layer_mask (SpxNetwork *network, const SpxSurveyLayer *layer,
            GError **error)
{
  /* its entry's index first: a search by name for each is quadratic */
  gint entry = layer->entry < spx_network_n_entries (network) &&
               g_str_equal (spx_network_entry (network, layer->entry)->name,
                            layer->name)
                 ? (gint) layer->entry
                 : spx_network_find (network, layer->name);
  if (entry < 0)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                   "%s: no layer %s (it was surveyed as one)",
                   spx_network_path (network), layer->name);
      return NULL;
    }
  g_autoptr (SpxMask) mask = spx_network_load (network, (guint) entry,
                                               error);
  if (mask != NULL && (mask->rows != layer->rows ||
                       mask->cols != layer->cols))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   "%s: layer %s is %" G_GUINT64_FORMAT " × %"
                   G_GUINT64_FORMAT " now, surveyed as %" G_GUINT64_FORMAT
                   " × %" G_GUINT64_FORMAT, spx_network_path (network),
                   layer->name, mask->rows, mask->cols, layer->rows,
                   layer->cols);
      return NULL;
    }
  return g_steal_pointer (&mask);
}

/* Layer's CPU points measured again; what was measured replaces its
 * points even when stopped midway. */
static gboolean
again_layer (SpxSurvey *survey, SpxNetwork *network, SpxSurveyLayer *layer,
             guint threads, Again *a, GError **error)
{
  SpxSweepOptions o;
  g_autoptr (SpxMask) mask = layer_mask (network, layer, error);
  g_autoptr (SpxSweep) sweep = spx_sweep_new ();
  if (mask == NULL)
    return FALSE;
  if (!_spx_survey_sweep_options (&survey->settings, layer->rows,
                                  layer->cols, mask, layer->name, &o))
    return spx_invalid (error, SPX_SURVEY_ERROR, SPX_SURVEY_ERROR_INVALID,
                        "%s: no block size fits layer %s",
                        spx_network_path (network), layer->name);
  if (!spx_sweep_reset (sweep, &o, error))
    return FALSE;
  g_array_append_vals (sweep->points, layer->points->data,
                       layer->points->len);
  gboolean ok = spx_sweep_measure_again (sweep, o.blocks, o.n_blocks,
                                         threads, on_point, a, error);
  spx_survey_tally (survey, layer, -1);
  g_array_unref (layer->points);
  layer->points = g_array_ref (sweep->points);
  spx_survey_recommend (layer);
  spx_survey_tally (survey, layer, 1);
  return ok;
}

gboolean
spx_survey_measure_again (SpxSurvey *survey, SpxNetwork *network,
                          guint threads, SpxSurveyProgress progress,
                          gpointer user_data, GError **error)
{
  Again a = { progress, user_data, 0, 0, 0 };
  for (guint i = 0; i < survey->layers->len; i++)
    if (spx_survey_layer_noisy (survey->layers->pdata[i]))
      a.total += cpu_points (survey->layers->pdata[i]);
  for (guint i = 0; i < survey->layers->len; i++)
    {
      SpxSurveyLayer *layer = survey->layers->pdata[i];
      if (!spx_survey_layer_noisy (layer))
        continue;
      guint points = cpu_points (layer);
      a.layer = i;
      if (!again_layer (survey, network, layer, threads, &a, error))
        return FALSE;
      a.before += points;
    }
  return TRUE;
}

guint
spx_survey_layers_on_threads (const SpxSurvey *survey, guint threads)
{
  guint layers = 0;
  for (guint i = 0; i < survey->layers->len; i++)
    {
      const SpxSurveyLayer *layer = survey->layers->pdata[i];
      gboolean on = FALSE; /* a skipped layer has no points */
      for (guint j = 0; layer->points != NULL && j < layer->points->len && !on;
           j++)
        {
          const SpxSweepPoint *p = &g_array_index (layer->points,
                                                   SpxSweepPoint, j);
          on = p->source == SPX_SWEEP_CPU && p->threads == threads;
        }
      layers += on;
    }
  return layers;
}
