/* spx-survey.c: a whole network, layer by layer: each swept as a study's
 * subject is, recommended, and added up */
#include "spx-survey.h"
#include "spx-defaults.h"
#include "spx-survey-private.h"
#include "spx-sweep-dense.h"
#include "spx-util.h"

#include <math.h>
#include <string.h>

G_DEFINE_QUARK (spx-survey-error-quark, spx_survey_error)

void
spx_survey_options_init (SpxSurveyOptions *o)
{
  const SpxDefaults *d = spx_defaults ();
  SpxSweepOptions sweep;
  spx_sweep_options_init (&sweep); /* its dtype */
  memset (o, 0, sizeof *o);
  o->run_model = o->run_cpu = TRUE;
  memcpy (o->blocks, d->blocks, d->n_blocks * sizeof *o->blocks);
  o->n_blocks = d->n_blocks;
  o->run_static = o->run_dynamic = o->run_tilewise = TRUE;
  o->n = d->n;
  o->dtype = sweep.dtype; /* the default scenario's, as sweep and the window */
  o->threads = d->threads;
  o->reps = d->reps;
  o->warmup = d->warmup;
  o->seed = 1;
}

/* The block sizes of o that fit a rows × cols layer, into blocks (room
 * for SPX_SWEEP_MAX_VALUES); how many. */
static guint
fitting_blocks (const SpxSurveyOptions *o, guint64 rows, guint64 cols,
                guint *blocks)
{
  guint n = 0;
  for (guint i = 0; i < o->n_blocks && i < SPX_SWEEP_MAX_VALUES; i++)
    if (o->blocks[i] <= rows && o->blocks[i] <= cols)
      blocks[n++] = o->blocks[i];
  return n;
}

/* The sweep of a rows × cols layer (subject, when given, its element
 * mask); FALSE when no block size fits it. */
gboolean
_spx_survey_sweep_options (const SpxSurveyOptions *s, guint64 rows,
                           guint64 cols, const SpxMask *subject,
                           const char *name, SpxSweepOptions *o)
{
  spx_sweep_options_init (o);
  if (subject != NULL)
    spx_sweep_options_set_subject (o, subject, name);
  o->model_m = o->cpu_m = rows;
  o->model_k = o->cpu_k = cols;
  o->n_densities = 1; /* a subject's one mask per block (for the count) */
  o->n_blocks = fitting_blocks (s, rows, cols, o->blocks);
  o->run_model = s->run_model;
  o->run_cpu = s->run_cpu;
  o->run_static = s->run_static;
  o->run_dynamic = s->run_dynamic;
  o->run_tilewise = s->run_tilewise;
  o->model_n = o->cpu_n = s->n;
  o->dtype = s->dtype;
  o->machine = s->machine;
  o->threads = s->threads;
  o->reps = s->reps;
  o->warmup = s->warmup;
  o->seed = s->seed;
  return o->n_blocks > 0;
}

static GRegex *
only_regex (const char *only, GError **error)
{
  g_autoptr (GError) local = NULL;
  GRegex *regex = g_regex_new (only, G_REGEX_OPTIMIZE, 0, &local);
  if (regex == NULL)
    g_set_error (error, SPX_SURVEY_ERROR, SPX_SURVEY_ERROR_INVALID,
                 "only: '%s' is not a regular expression: %s", only,
                 local->message);
  return regex;
}

gboolean
spx_survey_options_validate (const SpxSurveyOptions *o, GError **error)
{
  if (o->n_blocks < 1 || o->n_blocks > SPX_SWEEP_MAX_VALUES)
    return spx_invalid (error, SPX_SURVEY_ERROR, SPX_SURVEY_ERROR_INVALID,
                        "expected 1 to %d block sizes", SPX_SWEEP_MAX_VALUES);
  for (guint i = 0; i < o->n_blocks; i++)
    if (o->blocks[i] < 1 || o->blocks[i] > SPX_MASK_MAX_BLOCK)
      return spx_invalid (error, SPX_SURVEY_ERROR, SPX_SURVEY_ERROR_INVALID,
                          "block sizes must be from 1 to %d",
                          SPX_MASK_MAX_BLOCK);
  if (o->n < 1 || o->n > SPX_MASK_MAX_DIM)
    return spx_invalid (error, SPX_SURVEY_ERROR, SPX_SURVEY_ERROR_INVALID,
                        "n must be from 1 to %" G_GUINT64_FORMAT, SPX_MASK_MAX_DIM);
  if (o->only != NULL)
    {
      g_autoptr (GRegex) regex = only_regex (o->only, error);
      if (regex == NULL)
        return FALSE;
    }
  /* the rest as a sweep of a layer every block size fits */
  SpxSweepOptions sweep;
  _spx_survey_sweep_options (o, SPX_MASK_MAX_BLOCK, SPX_MASK_MAX_BLOCK, NULL,
                             NULL, &sweep);
  return spx_sweep_options_validate (&sweep, error);
}

/* ---- the survey --------------------------------------------------- */

void
spx_survey_layer_free (SpxSurveyLayer *layer)
{
  if (layer == NULL)
    return;
  g_free (layer->name);
  g_free (layer->skipped);
  g_clear_pointer (&layer->points, g_array_unref);
  g_free (layer);
}

static void
settings_clear (SpxSurveyOptions *s)
{
  spx_ipu_machine_free (s->machine);
  g_free ((char *) s->only);
  s->machine = NULL;
  s->only = NULL;
}

SpxSurvey *
spx_survey_new (void)
{
  SpxSurvey *survey = g_new0 (SpxSurvey, 1);
  survey->layers = g_ptr_array_new_with_free_func (
    (GDestroyNotify) spx_survey_layer_free);
  spx_survey_options_init (&survey->settings);
  return survey;
}

void
spx_survey_free (SpxSurvey *survey)
{
  if (survey == NULL)
    return;
  g_ptr_array_unref (survey->layers);
  settings_clear (&survey->settings);
  g_free (survey->path);
  g_free (survey->format);
  g_free (survey);
}

/* Whether entry is one the survey takes (only: NULL for every one). */
static gboolean
wanted (const SpxNetworkEntry *e, GRegex *only)
{
  return only == NULL || g_regex_match (only, e->name, 0, NULL);
}

/* The points layer i makes (0 when it is skipped before its sweep). */
static guint
layer_total (const SpxSurveyOptions *o, const SpxNetworkEntry *e)
{
  SpxSweepOptions sweep;
  if (e->skipped != NULL ||
      !_spx_survey_sweep_options (o, e->rows, e->cols, NULL, NULL, &sweep))
    return 0;
  return spx_sweep_total (&sweep);
}

guint
spx_survey_total (SpxNetwork *network, const SpxSurveyOptions *o)
{
  g_autoptr (GRegex) only = o->only ? only_regex (o->only, NULL) : NULL;
  guint total = 0;
  if (o->only != NULL && only == NULL)
    return 0;
  for (guint i = 0; i < spx_network_n_entries (network); i++)
    {
      const SpxNetworkEntry *e = spx_network_entry (network, i);
      if (wanted (e, only))
        total += layer_total (o, e);
    }
  return total;
}

/* ---- recommendations ---------------------------------------------- */

static int
compare_doubles (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* The dense time of a layer that stays dense. The CPU measures the same
 * dense product beside every block size's sparse plans: their median (of
 * the quiet ones, when any is; *quiet says whether one was) stands for
 * it, robust to one slowed measurement. The model plans the same dense
 * program at every block size, so any is its median. *library gets the
 * CPU's dense library of the first such point. */
static double
dense_reference (const GArray *points, SpxSweepSource source,
                 const char **library, gboolean *quiet_found)
{
  g_autoptr (GArray) quiet = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) all = g_array_new (FALSE, FALSE, sizeof (double));
  *library = "";
  for (guint i = 0; i < points->len; i++)
    {
      const SpxSweepPoint *p = &g_array_index (points, SpxSweepPoint, i);
      if (p->source != source || p->mode != SPX_SWEEP_DENSE)
        continue;
      g_array_append_val (all, p->ms);
      if (p->noise == SPX_NOISE_NONE)
        g_array_append_val (quiet, p->ms);
      if (**library == '\0')
        *library = p->dense;
    }
  *quiet_found = quiet->len > 0;
  GArray *use = quiet->len > 0 ? quiet : all;
  if (use->len == 0)
    return NAN;
  g_array_sort (use, compare_doubles);
  double *v = (double *) (gpointer) use->data;
  guint n = use->len;
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static const SpxSweepPoint *
dense_at (const GArray *points, SpxSweepSource source, guint block)
{
  for (guint i = 0; i < points->len; i++)
    {
      const SpxSweepPoint *p = &g_array_index (points, SpxSweepPoint, i);
      if (p->source == source && p->block == block &&
          p->mode == SPX_SWEEP_DENSE)
        return p;
    }
  return NULL;
}

/* The source's best judged point (NULL: none); c->valid, noisy and
 * best counted on the way. */
static const SpxSweepPoint *
best_point (const GArray *points, SpxSweepSource source, SpxSurveyChoice *c,
            guint *sparse)
{
  const SpxSweepPoint *best = NULL;
  *sparse = 0;
  for (guint i = 0; i < points->len; i++)
    {
      const SpxSweepPoint *p = &g_array_index (points, SpxSweepPoint, i);
      if (p->source != source)
        continue;
      c->valid = TRUE;
      c->noisy += p->noise != SPX_NOISE_NONE;
      *sparse += p->mode != SPX_SWEEP_DENSE;
      if (spx_sweep_point_judged (p) &&
          (best == NULL || p->speedup > best->speedup))
        best = p;
    }
  c->best = best != NULL ? best->speedup : 0;
  return best;
}

static void
recommend_source (const GArray *points, SpxSweepSource source,
                  SpxSurveyChoice *c)
{
  const char *library;
  gboolean quiet;
  guint sparse;
  memset (c, 0, sizeof *c);
  const SpxSweepPoint *best = best_point (points, source, c, &sparse);
  if (!c->valid)
    return;
  double reference = dense_reference (points, source, &library, &quiet);
  /* sparse points, none of them judged, one noisy: nothing compared */
  c->measured = quiet && !(best == NULL && sparse > 0 && c->noisy > 0);
  const SpxSweepPoint *dense = best != NULL
                                 ? dense_at (points, source, best->block)
                                 : NULL;
  if (c->measured && dense != NULL && best->speedup >= SPX_SURVEY_FASTER)
    {
      gboolean beside = dense->noise == SPX_NOISE_NONE;
      c->mode = best->mode;
      c->block = best->block;
      c->ms = best->ms;
      c->dense_ms = beside ? dense->ms : reference;
      c->speedup = c->dense_ms / best->ms;
      g_strlcpy (c->dense, beside ? dense->dense : library, sizeof c->dense);
      return;
    }
  c->mode = SPX_SWEEP_DENSE;
  c->ms = c->dense_ms = reference;
  c->speedup = 1;
  c->valid = isfinite (c->ms);
  g_strlcpy (c->dense, library, sizeof c->dense);
}

void
spx_survey_recommend (SpxSurveyLayer *layer)
{
  for (guint s = 0; s < SPX_SWEEP_N_SOURCES; s++)
    {
      if (layer->points == NULL || layer->skipped != NULL)
        memset (&layer->recommended[s], 0, sizeof layer->recommended[s]);
      else
        recommend_source (layer->points, (SpxSweepSource) s,
                          &layer->recommended[s]);
    }
}

/* ---- totals ------------------------------------------------------- */

static void
totals_clear (SpxSurvey *survey)
{
  memset (survey->total, 0, sizeof survey->total);
  memset (survey->libraries, 0, sizeof survey->libraries);
  survey->other_libraries = 0;
  survey->n_layers = survey->n_skipped = 0;
  for (guint s = 0; s < SPX_SWEEP_N_SOURCES; s++)
    survey->total[s].speedup = NAN;
}

/* The CPU's library name counted (sign 1) or uncounted (-1). */
static void
tally_library (SpxSurvey *survey, const char *name, int sign)
{
  SpxSurveyLibrary *free_slot = NULL;
  for (guint i = 0; i < SPX_SURVEY_MAX_LIBRARIES; i++)
    {
      SpxSurveyLibrary *l = &survey->libraries[i];
      if (l->count > 0 && g_str_equal (l->name, name))
        {
          l->count += sign;
          return;
        }
      if (l->count == 0 && free_slot == NULL)
        free_slot = l;
    }
  if (sign < 0)
    survey->other_libraries--;
  else if (free_slot == NULL)
    survey->other_libraries++;
  else
    {
      g_strlcpy (free_slot->name, name, sizeof free_slot->name);
      free_slot->count = 1;
    }
}

static void
tally_source (SpxSurveyTotal *t, const SpxSurveyChoice *c, double flops,
              int sign)
{
  if (!c->valid)
    return;
  t->flops += sign * flops;
  if (!c->measured)
    {
      t->unmeasured += sign;
      t->unmeasured_flops += sign * flops;
    }
  else
    {
      t->layers += sign;
      t->dense_ms += sign * c->dense_ms;
      t->chosen_ms += sign * c->ms;
      if (c->mode == SPX_SWEEP_DENSE)
        t->kept_dense_ms += sign * c->dense_ms;
    }
  t->valid = t->layers + t->unmeasured > 0;
  t->speedup = t->layers > 0 ? t->dense_ms / t->chosen_ms : NAN;
}

void
spx_survey_tally (SpxSurvey *survey, const SpxSurveyLayer *layer, int sign)
{
  g_return_if_fail (sign == 1 || sign == -1);
  if (layer->skipped != NULL)
    {
      survey->n_skipped += sign;
      return;
    }
  survey->n_layers += sign;
  double flops = 2.0 * (double) layer->rows * (double) layer->cols *
                 (double) survey->settings.n;
  for (guint s = 0; s < SPX_SWEEP_N_SOURCES; s++)
    tally_source (&survey->total[s], &layer->recommended[s], flops, sign);
  const SpxSurveyChoice *c = &layer->recommended[SPX_SWEEP_CPU];
  if (c->valid && c->measured && c->dense[0] != '\0')
    tally_library (survey, c->dense, sign);
}

void
spx_survey_sum (SpxSurvey *survey)
{
  totals_clear (survey);
  for (guint i = 0; i < survey->layers->len; i++)
    spx_survey_tally (survey, survey->layers->pdata[i], 1);
}

SpxSweepSource
spx_survey_share_source (const SpxSurvey *survey)
{
  return survey->total[SPX_SWEEP_CPU].layers > 0 ? SPX_SWEEP_CPU
                                                 : SPX_SWEEP_MODEL;
}

double
spx_survey_layer_share (const SpxSurvey *survey, const SpxSurveyLayer *layer)
{
  SpxSweepSource s = spx_survey_share_source (survey);
  const SpxSurveyChoice *c = &layer->recommended[s];
  double total = survey->total[s].dense_ms;
  return layer->skipped == NULL && c->valid && c->measured && total > 0
           ? c->dense_ms / total : NAN;
}

char *
spx_survey_count_describe (guint layers, guint skipped)
{
  g_autofree char *counted = spx_count_text (layers, "layer", "layers");
  if (skipped == 0)
    return g_steal_pointer (&counted);
  g_autofree char *others = spx_count_text (skipped, "entry that is not",
                                            "entries that are not");
  return g_strdup_printf ("%s (and %s)", counted, others);
}

/* ---- running ------------------------------------------------------ */

typedef struct {
  SpxSurvey        *survey;
  SpxSurveyProgress progress;
  gpointer          user_data;
  guint             before, total; /* points of the layers before */
  guint             layer;
  SpxSweepDensePlans *dense_plans; /* the run's, shared by its layers */
} Runner;

static gboolean
on_point (guint done, guint total, const SpxSweepPoint *point, gpointer data)
{
  Runner *r = data;
  return r->progress == NULL ||
         r->progress (r->before + done, r->total, r->layer, point,
                      r->user_data);
}

/* Whether error is the run being stopped, by the progress callback or
 * the thread's current GCancellable (whichever layer saw it first). */
gboolean
_spx_survey_stopped (const GError *error)
{
  GCancellable *current = g_cancellable_get_current ();
  return g_error_matches (error, SPX_SWEEP_ERROR, SPX_SWEEP_ERROR_CANCELLED) ||
         g_error_matches (error, SPX_BUDGET_ERROR,
                          SPX_BUDGET_ERROR_CANCELLED) ||
         g_error_matches (error, SPX_ENGINE_ERROR,
                          SPX_ENGINE_ERROR_CANCELLED) ||
         (current != NULL && g_cancellable_is_cancelled (current));
}

/* Each block size's density, from the points (a subject's point has its
 * own block density). */
static void
block_densities (SpxSurveyLayer *layer, const SpxSurveyOptions *s)
{
  for (guint b = 0; b < SPX_SWEEP_MAX_VALUES; b++)
    layer->block_density[b] = NAN;
  for (guint i = 0; i < layer->points->len; i++)
    {
      const SpxSweepPoint *p = &g_array_index (layer->points, SpxSweepPoint,
                                               i);
      for (guint b = 0; b < s->n_blocks; b++)
        if (s->blocks[b] == p->block)
          layer->block_density[b] = p->density;
    }
}

/* Sweeps layer (its entry's mask loaded); FALSE only when stopped or
 * when its file changed while it was read. Anything else that goes
 * wrong is the layer's skipped reason. */
static gboolean
survey_layer (Runner *r, SpxNetwork *network, SpxSurveyLayer *layer,
              GError **error)
{
  const SpxSurveyOptions *s = &r->survey->settings;
  g_autoptr (GError) local = NULL;
  g_autoptr (SpxMask) mask = spx_network_load (network, layer->entry,
                                               &local);
  if (mask != NULL)
    {
      SpxSweepOptions o;
      g_autoptr (SpxSweep) sweep = spx_sweep_new ();
      layer->rows = mask->rows; /* the file as read now */
      layer->cols = mask->cols;
      layer->nnz = spx_mask_count_elements (mask);
      layer->density = (double) layer->nnz /
                       ((double) layer->rows * (double) layer->cols);
      if (layer->nnz == 0)
        {
          layer->skipped = g_strdup ("all zero: nothing to multiply");
          return TRUE;
        }
      _spx_survey_sweep_options (s, layer->rows, layer->cols, mask,
                                 layer->name, &o);
      o.dense_plans = r->dense_plans;
      if (spx_sweep_run (sweep, &o, on_point, r, &local))
        {
          layer->points = g_array_ref (sweep->points);
          block_densities (layer, s);
          spx_survey_recommend (layer);
          return TRUE;
        }
    }
  if (_spx_survey_stopped (local))
    {
      g_set_error (error, SPX_SWEEP_ERROR, SPX_SWEEP_ERROR_CANCELLED,
                   "cancelled in layer %s", layer->name);
      return FALSE;
    }
  /* a network file that changed while it was read: no layer of it can
   * be trusted any more */
  if (g_error_matches (local, SPX_MASK_ERROR, SPX_MASK_ERROR_CHANGED))
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  layer->skipped = g_strdup (local->message);
  return TRUE;
}

static SpxSurveyLayer *
layer_new (const SpxNetworkEntry *e, guint index)
{
  SpxSurveyLayer *layer = g_new0 (SpxSurveyLayer, 1);
  layer->name = g_strdup (e->name);
  layer->entry = index;
  layer->rows = e->rows;
  layer->cols = e->cols;
  for (guint b = 0; b < SPX_SWEEP_MAX_VALUES; b++)
    layer->block_density[b] = NAN;
  return layer;
}

/* Why a layer of the network is not swept, before loading it; NULL if
 * it is. */
static char *
skip_reason (const SpxSurveyOptions *o, const SpxNetworkEntry *e)
{
  guint blocks[SPX_SWEEP_MAX_VALUES];
  if (e->skipped != NULL)
    return g_strdup (e->skipped);
  if (fitting_blocks (o, e->rows, e->cols, blocks) == 0)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " × %" G_GUINT64_FORMAT
                            ": smaller than every block size asked",
                            e->rows, e->cols);
  return NULL;
}

/* The settings kept: a copy of options that says what runs (the
 * threads 0 asks for; tile-wise only where it runs, a CPU fp32 plan),
 * the machine resolved (bow by default), only copied; the survey
 * emptied. */
static void
keep_settings (SpxSurvey *survey, SpxNetwork *network,
               const SpxSurveyOptions *options)
{
  /* options may be the survey's own settings: copied before cleared */
  SpxSurveyOptions copy = *options;
  copy.machine = options->machine ? spx_ipu_machine_copy (options->machine)
                                  : spx_ipu_machine_preset ("bow");
  copy.only = g_strdup (options->only);
  SpxEngineOptions engine = { .threads = options->threads };
  if (copy.run_cpu)
    copy.threads = spx_engine_threads (&engine);
  copy.run_tilewise = copy.run_tilewise && copy.run_cpu &&
                      spx_bench_cpu_type (copy.dtype) == SPX_CPU_FP32;
  settings_clear (&survey->settings);
  survey->settings = copy;
  g_ptr_array_set_size (survey->layers, 0);
  totals_clear (survey);
  survey->complete = FALSE;
  g_free (survey->path);
  g_free (survey->format);
  survey->path = g_strdup (spx_network_path (network));
  survey->format = g_strdup (spx_network_format (network));
}

gboolean
spx_survey_run (SpxSurvey *survey, SpxNetwork *network,
                const SpxSurveyOptions *options, SpxSurveyProgress progress,
                gpointer user_data, GError **error)
{
  g_return_val_if_fail (survey != NULL && network != NULL, FALSE);
  if (!spx_survey_options_validate (options, error))
    return FALSE;
  keep_settings (survey, network, options);
  const SpxSurveyOptions *s = &survey->settings;
  g_autoptr (GRegex) only = s->only ? only_regex (s->only, NULL) : NULL;
  g_autoptr (SpxSweepDensePlans) dense_plans = spx_sweep_dense_plans_new ();
  Runner r = { survey, progress, user_data, 0,
               spx_survey_total (network, s), 0, dense_plans };
  for (guint i = 0; i < spx_network_n_entries (network); i++)
    {
      const SpxNetworkEntry *e = spx_network_entry (network, i);
      if (!wanted (e, only))
        continue;
      SpxSurveyLayer *layer = layer_new (e, i);
      r.layer = survey->layers->len;
      g_ptr_array_add (survey->layers, layer);
      layer->skipped = skip_reason (s, e);
      if (layer->skipped == NULL && !survey_layer (&r, network, layer, error))
        {
          /* not tallied yet */
          g_ptr_array_remove_index (survey->layers, r.layer);
          return FALSE;
        }
      r.before += layer_total (s, e);
      spx_survey_tally (survey, layer, 1);
    }
  survey->complete = TRUE;
  return TRUE;
}

/* ---- words -------------------------------------------------------- */

char *
spx_survey_choice_describe (const SpxSurveyChoice *c)
{
  if (!c->valid)
    return NULL;
  if (!c->measured)
    return g_strdup_printf ("not measured (%u noisy)", c->noisy);
  g_autofree char *noisy = c->noisy ? g_strdup_printf (" (%u noisy)",
                                                       c->noisy)
                                    : g_strdup ("");
  if (c->mode == SPX_SWEEP_DENSE && c->best > 0)
    return g_strdup_printf ("keep dense (best %.2f×)%s", c->best, noisy);
  if (c->mode == SPX_SWEEP_DENSE)
    return g_strdup_printf ("keep dense%s", noisy);
  return g_strdup_printf ("%s b%u %.2f×%s", spx_sweep_mode_to_string (c->mode),
                          c->block, c->speedup, noisy);
}

/* The CPU's dense library over the measured layers: one name, or NULL
 * when they differ. */
static const char *
cpu_dense (const SpxSurvey *survey)
{
  const char *name = NULL;
  if (survey->other_libraries > 0)
    return NULL;
  for (guint i = 0; i < SPX_SURVEY_MAX_LIBRARIES; i++)
    {
      const SpxSurveyLibrary *l = &survey->libraries[i];
      if (l->count == 0)
        continue;
      if (name != NULL)
        return NULL;
      name = l->name;
    }
  return name;
}

static void
describe_source (GString *out, const SpxSurvey *survey, SpxSweepSource s)
{
  const SpxSurveyOptions *o = &survey->settings;
  const SpxSurveyTotal *t = &survey->total[s];
  const char *type = spx_cpu_type_name (spx_bench_cpu_type (o->dtype));
  if (s == SPX_SWEEP_CPU && t->layers == 0)
    g_string_append_printf (out, "nothing measured on this CPU (%s)", type);
  else if (s == SPX_SWEEP_CPU)
    {
      const char *dense = cpu_dense (survey);
      g_string_append_printf (out, "%.2f× on this CPU (%s, over %s dense)",
                              t->speedup, type,
                              dense ? dense : "each layer's faster");
    }
  else
    g_string_append_printf (out, "%.2f× on the modelled IPU (%s, %s)",
                            t->speedup, o->machine ? o->machine->name : "bow",
                            spx_dtype_to_string (spx_dtype_on_ipu (o->dtype)));
}

static double
kept_share (const SpxSurveyTotal *t)
{
  return t->dense_ms > 0 ? 100 * t->kept_dense_ms / t->dense_ms : 0;
}

/* Of the dense time, in layers that stay dense: each source's that
 * measured a layer. */
static void
describe_shares (GString *out, const SpxSurveyTotal *cpu,
                 const SpxSurveyTotal *model)
{
  gboolean has_cpu = cpu->valid && cpu->layers > 0;
  /* the shares, as rounded to whole percents */
  double a = round (kept_share (cpu)), b = round (kept_share (model));
  if (has_cpu && model->valid && a != b)
    g_string_append_printf (out, "; %.0f%% of the CPU's dense time (%.0f%% "
                            "of the model's) is in layers that should stay "
                            "dense", a, b);
  else if (has_cpu || model->valid)
    g_string_append_printf (out, "; %.0f%% of the dense time is in layers "
                            "that should stay dense", has_cpu ? a : b);
}

char *
spx_survey_describe (const SpxSurvey *survey)
{
  const SpxSurveyTotal *cpu = &survey->total[SPX_SWEEP_CPU];
  const SpxSurveyTotal *model = &survey->total[SPX_SWEEP_MODEL];
  if (!cpu->valid && !model->valid)
    return g_strdup ("no layer surveyed");
  GString *out = g_string_new (NULL);
  if (survey->complete)
    g_string_append (out, "the whole network: ");
  else
    g_string_append_printf (out, "the layers surveyed so far (%u): ",
                            survey->n_layers);
  if (cpu->valid)
    describe_source (out, survey, SPX_SWEEP_CPU);
  if (cpu->valid && model->valid)
    g_string_append (out, ", ");
  if (model->valid)
    describe_source (out, survey, SPX_SWEEP_MODEL);
  describe_shares (out, cpu, model);
  if (cpu->unmeasured > 0)
    g_string_append_printf (out, "; %u of %u layers (%.0f%% of the flops) "
                            "not measured on this CPU (too noisy: left out "
                            "of the totals; measure them again on one "
                            "thread)", cpu->unmeasured,
                            cpu->layers + cpu->unmeasured,
                            100 * cpu->unmeasured_flops / cpu->flops);
  return g_string_free (out, FALSE);
}
