/* test-survey.c: a network surveyed layer by layer (core/study/spx-survey),
 * its files, and its chart (ui/render/spx-render-layers) */
#include "spx-render-export.h"
#include "spx-render-layers.h"
#include "spx-survey.h"
#include "spx-util.h"
#include "test-files.h"
#include "test-sweep-point.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

/* The folder every test surveys, made once:
 *   attention_q.smtx  512 × 512, 5242 non-zeros (DLMC Transformer, 98%)
 *   broken.mtx        not a mask file: skipped, saying why
 *   conv.smtx         64 × 147, 940 non-zeros (DLMC ResNet-50's first)
 *   full.mtx          16 × 16, every element: nothing beats dense
 *   sub/small.mtx     4 × 5, 5 entries (block sizes 8 and 16 left out) */
static char *folder;

#define N_ENTRIES 5
static const struct {
  const char *name;
  guint64     rows, cols, nnz;
} entries[N_ENTRIES] = {
  { "attention_q.smtx", 512, 512, 5242 },
  { "broken.mtx", 0, 0, 0 },
  { "conv.smtx", 64, 147, 940 },
  { "full.mtx", 16, 16, 256 },
  { "sub/small.mtx", 4, 5, 5 },
};

static void
copy_data (const char *from, const char *to)
{
  g_autofree char *src = g_test_build_filename (G_TEST_DIST, "data", from,
                                                NULL);
  g_autofree char *dst = g_build_filename (folder, to, NULL);
  g_autofree char *text = test_read_all (src);
  g_assert_true (g_file_set_contents (dst, text, -1, NULL));
}

static void
write_file (const char *name, const char *text)
{
  g_autofree char *path = g_build_filename (folder, name, NULL);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
}

static void
make_folder (void)
{
  folder = g_dir_make_tmp ("spx-survey-XXXXXX", NULL);
  g_assert_nonnull (folder);
  g_autofree char *sub = g_build_filename (folder, "sub", NULL);
  g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
  copy_data ("transformer-magnitude_pruning-0.98-attention_q.smtx",
             "attention_q.smtx");
  copy_data ("rn50-magnitude_pruning-0.9-initial_conv.smtx", "conv.smtx");
  copy_data ("small.mtx", "sub/small.mtx");
  write_file ("broken.mtx", "%%MatrixMarket matrix coordinate pattern "
              "general\n3 3 9\n1 1\n");
  GString *full = g_string_new ("%%MatrixMarket matrix coordinate pattern "
                                "general\n16 16 256\n");
  for (guint i = 1; i <= 16; i++)
    for (guint j = 1; j <= 16; j++)
      g_string_append_printf (full, "%u %u\n", i, j);
  write_file ("full.mtx", full->str);
  g_string_free (full, TRUE);
}

static void
remove_folder (void)
{
  g_autofree char *sub = g_build_filename (folder, "sub", NULL);
  test_remove_folder (sub);
  test_remove_folder (folder);
  g_free (folder);
}

/* The model alone: deterministic. */
static void
model_options (SpxSurveyOptions *o)
{
  spx_survey_options_init (o);
  o->run_cpu = FALSE;
  o->n = 64;
}

typedef struct {
  guint calls, last_done, total, last_layer;
  gboolean increasing;
  guint stop_after; /* 0: never */
} Seen;

static gboolean
count_points (guint done, guint total, guint layer, const SpxSweepPoint *p,
              gpointer data)
{
  Seen *s = data;
  if (p == NULL)
    return s->stop_after == 0 || s->calls < s->stop_after;
  s->calls++;
  s->increasing = s->increasing && done > s->last_done &&
                  layer >= s->last_layer;
  s->last_done = done;
  s->last_layer = layer;
  s->total = total;
  return s->stop_after == 0 || s->calls < s->stop_after;
}

static SpxSurvey *
survey_folder (const SpxSurveyOptions *o, Seen *seen)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxNetwork) network = spx_network_open (folder, &error);
  g_assert_no_error (error);
  SpxSurvey *survey = spx_survey_new ();
  g_assert_true (spx_survey_run (survey, network, o,
                                 seen ? count_points : NULL, seen, &error));
  g_assert_no_error (error);
  return survey;
}

static const SpxSweepPoint *
pt (const SpxSurveyLayer *layer, guint i)
{
  return &g_array_index (layer->points, SpxSweepPoint, i);
}

static gboolean
counts (const SpxSweepPoint *p)
{
  return p->mode != SPX_SWEEP_DENSE && p->noise == SPX_NOISE_NONE &&
         p->fits && isfinite (p->speedup);
}

/* A recommendation agrees with the points, checked here from the rule
 * itself: the point named exists, is not noisy and fits, beats dense of
 * its block by 5%, and no such point has a higher speedup; "dense" only
 * when none beats dense by 5%. */
static void
check_choice (const SpxSurveyLayer *layer, SpxSweepSource s)
{
  const SpxSurveyChoice *c = &layer->recommended[s];
  double best = 0;
  guint noisy = 0, of_source = 0;
  const SpxSweepPoint *chosen = NULL, *dense = NULL;
  for (guint i = 0; i < layer->points->len; i++)
    {
      const SpxSweepPoint *p = pt (layer, i);
      if (p->source != s)
        continue;
      of_source++;
      noisy += p->noise != SPX_NOISE_NONE;
      if (counts (p))
        best = MAX (best, p->speedup);
      if (p->mode == c->mode && p->block == c->block)
        chosen = p;
      if (p->mode == SPX_SWEEP_DENSE && p->block == c->block)
        dense = p;
    }
  g_assert_cmpint (c->valid, ==, of_source > 0);
  if (!c->valid)
    return;
  g_assert_cmpuint (c->noisy, ==, noisy);
  g_assert_cmpfloat (c->best, ==, best);
  if (!c->measured)
    g_assert_cmpint (c->mode, ==, SPX_SWEEP_DENSE);
  if (c->mode == SPX_SWEEP_DENSE)
    {
      g_assert_cmpfloat (best, <, SPX_SURVEY_FASTER);
      g_assert_cmpuint (c->block, ==, 0);
      g_assert_cmpfloat (c->ms, ==, c->dense_ms);
      g_assert_cmpfloat (c->speedup, ==, 1);
      return;
    }
  g_assert_nonnull (chosen);
  g_assert_nonnull (dense);
  g_assert_true (counts (chosen));
  g_assert_cmpfloat (chosen->speedup, ==, best);
  g_assert_cmpfloat (best, >=, SPX_SURVEY_FASTER);
  g_assert_cmpfloat (c->ms, ==, chosen->ms);
  /* a noisy dense beside it is not its dense time; the model's speedup
   * is its times' ratio, the CPU's points' the median of the rounds'
   * ratios, which the ratio of the medians (the recommendation's, as in
   * the totals) need not equal */
  if (dense->noise == SPX_NOISE_NONE)
    {
      g_assert_cmpfloat (c->dense_ms, ==, dense->ms);
      if (s == SPX_SWEEP_MODEL)
        g_assert_cmpfloat_with_epsilon (c->speedup, chosen->speedup, 1e-9);
    }
  g_assert_cmpfloat_with_epsilon (c->speedup, c->dense_ms / c->ms, 1e-12);
}

/* The totals are the sums of the parts: the measured layers' times, the
 * others' count and flops apart; the counts of layers and skipped. */
static void
check_totals (const SpxSurvey *survey)
{
  guint layers = 0, skipped = 0;
  for (guint i = 0; i < survey->layers->len; i++)
    {
      const SpxSurveyLayer *l = survey->layers->pdata[i];
      layers += l->skipped == NULL;
      skipped += l->skipped != NULL;
    }
  g_assert_cmpuint (survey->n_layers, ==, layers);
  g_assert_cmpuint (survey->n_skipped, ==, skipped);
  for (guint s = 0; s < SPX_SWEEP_N_SOURCES; s++)
    {
      double dense = 0, chosen = 0, kept = 0, flops = 0, left_flops = 0;
      guint measured = 0, left = 0;
      for (guint i = 0; i < survey->layers->len; i++)
        {
          const SpxSurveyLayer *l = survey->layers->pdata[i];
          const SpxSurveyChoice *c = &l->recommended[s];
          double f = 2.0 * l->rows * l->cols * survey->settings.n;
          if (l->skipped != NULL || !c->valid)
            continue;
          flops += f;
          left += !c->measured;
          left_flops += c->measured ? 0 : f;
          if (!c->measured)
            continue;
          measured++;
          dense += c->dense_ms;
          chosen += c->ms;
          kept += c->mode == SPX_SWEEP_DENSE ? c->dense_ms : 0;
        }
      const SpxSurveyTotal *t = &survey->total[s];
      g_assert_cmpint (t->valid, ==, measured + left > 0);
      if (!t->valid)
        continue;
      g_assert_cmpuint (t->layers, ==, measured);
      g_assert_cmpuint (t->unmeasured, ==, left);
      g_assert_cmpfloat_with_epsilon (t->flops, flops, 1e-9 * flops);
      g_assert_cmpfloat_with_epsilon (t->unmeasured_flops, left_flops,
                                      1e-9 * flops);
      /* running sums may differ from these in the last bits */
      g_assert_cmpfloat_with_epsilon (t->dense_ms, dense,
                                      1e-12 * dense + 1e-12);
      g_assert_cmpfloat_with_epsilon (t->chosen_ms, chosen,
                                      1e-12 * chosen + 1e-12);
      g_assert_cmpfloat_with_epsilon (t->kept_dense_ms, kept,
                                      1e-12 * dense + 1e-12);
      if (measured == 0)
        g_assert_true (isnan (t->speedup));
      else
        g_assert_cmpfloat_with_epsilon (t->speedup, dense / chosen, 1e-12);
    }
}

static void
check_layers (const SpxSurvey *survey)
{
  for (guint i = 0; i < survey->layers->len; i++)
    {
      const SpxSurveyLayer *l = survey->layers->pdata[i];
      for (guint s = 0; l->skipped == NULL && s < SPX_SWEEP_N_SOURCES; s++)
        check_choice (l, (SpxSweepSource) s);
    }
  check_totals (survey);
}

static const SpxSurveyLayer *
layer (const SpxSurvey *survey, guint i)
{
  return survey->layers->pdata[i];
}

static void
test_model (void)
{
  SpxSurveyOptions o;
  model_options (&o);
  Seen seen = { .increasing = TRUE };
  g_autoptr (SpxSurvey) survey = survey_folder (&o, &seen);
  g_assert_true (survey->complete);
  g_assert_cmpstr (survey->format, ==, "folder");
  g_assert_cmpuint (survey->layers->len, ==, N_ENTRIES);
  guint points = 0;
  for (guint i = 0; i < N_ENTRIES; i++)
    {
      const SpxSurveyLayer *l = layer (survey, i);
      g_assert_cmpstr (l->name, ==, entries[i].name);
      g_assert_cmpuint (l->entry, ==, i);
      if (entries[i].rows == 0)
        {
          /* the loader's reason, naming the file */
          g_assert_nonnull (l->skipped);
          g_assert_nonnull (strstr (l->skipped, "broken.mtx"));
          g_assert_null (l->points);
          continue;
        }
      g_assert_null (l->skipped);
      g_assert_cmpuint (l->rows, ==, entries[i].rows);
      g_assert_cmpuint (l->cols, ==, entries[i].cols);
      g_assert_cmpuint (l->nnz, ==, entries[i].nnz);
      g_assert_cmpfloat (l->density, ==, (double) entries[i].nnz /
                                         (entries[i].rows * entries[i].cols));
      /* dense, static, dynamic at each block size that fits */
      guint fit = 0;
      for (guint b = 0; b < o.n_blocks; b++)
        {
          gboolean fits = o.blocks[b] <= l->rows && o.blocks[b] <= l->cols;
          fit += fits;
          g_assert_cmpint (isnan (l->block_density[b]), ==, !fits);
        }
      g_assert_cmpuint (l->points->len, ==, 3 * fit);
      points += l->points->len;
      for (guint j = 0; j < l->points->len; j++)
        {
          g_assert_cmpint (pt (l, j)->source, ==, SPX_SWEEP_MODEL);
          g_assert_cmpuint (pt (l, j)->n, ==, 64);
          g_assert_cmpuint (pt (l, j)->m, ==, l->rows);
        }
      g_assert_false (l->recommended[SPX_SWEEP_CPU].valid);
      g_assert_true (l->recommended[SPX_SWEEP_MODEL].valid);
    }
  /* small.mtx: 4 × 5 at blocks 1, 2, 4 only */
  g_assert_cmpfloat (layer (survey, 4)->block_density[0], ==, 5 / 20.0);
  g_assert_true (isnan (layer (survey, 4)->block_density[3]));
  /* every element full: nothing beats dense; nor, at n = 64, does the
   * 98% pruned one: 512² is mostly syncs and exchange overheads on the
   * IPU, and the dense plan (W kept where it multiplies it, 2,031 cycles
   * on bow) has fewer of them than static b = 1 (2,292) */
  for (guint i = 0; i < 4; i += 3)
    {
      const SpxSurveyChoice *c = &layer (survey, i)->recommended[
        SPX_SWEEP_MODEL];
      g_assert_cmpint (c->mode, ==, SPX_SWEEP_DENSE);
      g_assert_cmpfloat (c->best, <, 1.0);
    }
  check_layers (survey);
  g_assert_false (survey->total[SPX_SWEEP_CPU].valid);
  g_assert_cmpuint (points, ==, seen.calls);
  g_assert_cmpuint (seen.total, ==, points);
  g_assert_cmpuint (seen.last_done, ==, points);
  g_assert_true (seen.increasing);
}

/* The same recommendation a second time: the model is deterministic. */
static void
test_model_again (void)
{
  SpxSurveyOptions o;
  model_options (&o);
  g_autoptr (SpxSurvey) a = survey_folder (&o, NULL);
  g_autoptr (SpxSurvey) b = survey_folder (&o, NULL);
  g_autofree char *ja = spx_survey_to_json (a);
  g_autofree char *jb = spx_survey_to_json (b);
  g_assert_cmpstr (ja, ==, jb);
}

/* Hand-made points: the noisy are never recommended, and dense's time
 * for a layer kept dense is the median of the quiet dense points. */
static void
test_recommend_noisy (void)
{
  static const struct {
    SpxSweepMode mode;
    guint        block;
    double       ms;
    SpxNoise     noise;
  } rows[] = {
    { SPX_SWEEP_DENSE, 1, 1.0, 0 },
    { SPX_SWEEP_STATIC, 1, 0.25, SPX_NOISE_BUSY }, /* fastest, noisy */
    { SPX_SWEEP_DENSE, 2, 1.2, 0 },
    { SPX_SWEEP_STATIC, 2, 0.8, 0 },               /* 1.5× */
    { SPX_SWEEP_DENSE, 4, 9.0, SPX_NOISE_DENSE_SLOW },
    { SPX_SWEEP_DYNAMIC, 4, 1.0, SPX_NOISE_DENSE_SLOW },
  };
  SpxSurveyLayer l = { .name = (char *) "hand", .rows = 8, .cols = 8 };
  l.points = g_array_new (FALSE, TRUE, sizeof (SpxSweepPoint));
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      SpxSweepPoint p = { .source = SPX_SWEEP_CPU, .mode = rows[i].mode,
                          .block = rows[i].block, .ms = rows[i].ms,
                          .fits = TRUE, .noise = rows[i].noise };
      double dense = rows[i - (rows[i].mode != SPX_SWEEP_DENSE)].ms;
      p.speedup = dense / p.ms;
      g_array_append_val (l.points, p);
    }
  spx_survey_recommend (&l);
  const SpxSurveyChoice *c = &l.recommended[SPX_SWEEP_CPU];
  g_assert_cmpint (c->mode, ==, SPX_SWEEP_STATIC);
  g_assert_cmpuint (c->block, ==, 2);
  g_assert_cmpfloat_with_epsilon (c->speedup, 1.5, 1e-12);
  g_assert_cmpfloat (c->dense_ms, ==, 1.2);
  g_assert_cmpuint (c->noisy, ==, 3);
  g_assert_false (l.recommended[SPX_SWEEP_MODEL].valid);
  check_choice (&l, SPX_SWEEP_CPU);
  /* the quiet one slowed to 1.04×: dense, at the median of the quiet
   * dense points (1.0 and 1.2), not the noisy 9 */
  g_array_index (l.points, SpxSweepPoint, 3).ms = 1.2 / 1.04;
  g_array_index (l.points, SpxSweepPoint, 3).speedup = 1.04;
  spx_survey_recommend (&l);
  g_assert_cmpint (c->mode, ==, SPX_SWEEP_DENSE);
  g_assert_cmpfloat_with_epsilon (c->dense_ms, 1.1, 1e-12);
  g_assert_cmpfloat_with_epsilon (c->best, 1.04, 1e-12);
  check_choice (&l, SPX_SWEEP_CPU);
  g_autofree char *kept = spx_survey_choice_describe (c);
  g_assert_cmpstr (kept, ==, "keep dense (best 1.04×) (3 noisy)");
  /* every sparse point noisy: not known to stay dense, and said so */
  g_array_index (l.points, SpxSweepPoint, 3).noise = SPX_NOISE_BUSY;
  spx_survey_recommend (&l);
  g_assert_cmpint (c->mode, ==, SPX_SWEEP_DENSE);
  g_autofree char *unknown = spx_survey_choice_describe (c);
  g_assert_cmpstr (unknown, ==, "not measured (4 noisy)");
  SpxSurvey survey = { .layers = g_ptr_array_new (), .complete = TRUE };
  spx_survey_options_init (&survey.settings);
  g_ptr_array_add (survey.layers, &l);
  spx_survey_sum (&survey);
  g_autofree char *words = spx_survey_describe (&survey);
  g_assert_nonnull (strstr (words, "nothing measured on this CPU"));
  g_assert_nonnull (strstr (words, "; 1 of 1 layers (100% of the flops) "
                                   "not measured on this CPU (too noisy"));
  g_ptr_array_unref (survey.layers);
  g_array_unref (l.points);
}

/* The CPU alone on the two small layers at blocks 1 and 4, quick. */
static void
cpu_options (SpxSurveyOptions *o, guint threads)
{
  spx_survey_options_init (o);
  o->run_model = FALSE;
  o->only = "conv|small";
  o->n = 16;
  o->n_blocks = 2;
  o->blocks[0] = 1;
  o->blocks[1] = 4;
  o->threads = threads;
  o->reps = 5;
  o->warmup = 1;
  o->dtype = SPX_DTYPE_FP32; /* tile-wise runs in fp32 only */
}

/* The CPU on tiny layers: measured points, judged by the noise rule. */
static void
test_cpu (void)
{
  SpxSurveyOptions o;
  cpu_options (&o, 1);
  g_autoptr (SpxSurvey) survey = survey_folder (&o, NULL);
  g_assert_cmpuint (survey->layers->len, ==, 2);
  g_assert_cmpstr (layer (survey, 0)->name, ==, "conv.smtx");
  g_assert_cmpstr (layer (survey, 1)->name, ==, "sub/small.mtx");
  for (guint i = 0; i < 2; i++)
    {
      const SpxSurveyLayer *l = layer (survey, i);
      /* dense, static, dynamic, tile-wise at blocks 1 and 4 */
      g_assert_cmpuint (l->points->len, ==, 2 * 4);
      for (guint j = 0; j < l->points->len; j++)
        {
          g_assert_cmpint (pt (l, j)->source, ==, SPX_SWEEP_CPU);
          g_assert_cmpfloat (pt (l, j)->ms, >, 0);
          g_assert_cmpfloat (pt (l, j)->ms_q1, <=, pt (l, j)->ms);
          g_assert_cmpfloat (pt (l, j)->ms_q3, >=, pt (l, j)->ms);
        }
      g_assert_true (l->recommended[SPX_SWEEP_CPU].valid);
    }
  check_layers (survey);
  g_assert_true (survey->total[SPX_SWEEP_CPU].valid);
  g_assert_false (survey->total[SPX_SWEEP_MODEL].valid);
}

static void
test_only (void)
{
  SpxSurveyOptions o;
  model_options (&o);
  o.only = "^sub/";
  g_autoptr (SpxSurvey) survey = survey_folder (&o, NULL);
  g_assert_cmpuint (survey->layers->len, ==, 1);
  g_assert_cmpstr (layer (survey, 0)->name, ==, "sub/small.mtx");
  g_assert_cmpstr (survey->settings.only, ==, "^sub/");
  g_autoptr (SpxNetwork) network = spx_network_open (folder, NULL);
  g_assert_cmpuint (spx_survey_total (network, &o), ==,
                    layer (survey, 0)->points->len);
  /* a bad expression is refused before anything runs */
  o.only = "conv(";
  g_autoptr (GError) error = NULL;
  g_assert_false (spx_survey_options_validate (&o, &error));
  g_assert_error (error, SPX_SURVEY_ERROR, SPX_SURVEY_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "conv("));
  g_clear_error (&error);
  g_assert_false (spx_survey_run (survey, network, &o, NULL, NULL, &error));
  g_assert_error (error, SPX_SURVEY_ERROR, SPX_SURVEY_ERROR_INVALID);
  g_assert_cmpuint (survey->layers->len, ==, 1); /* as it was */
}

/* Stopped in the third layer: the two before it kept, recommended and
 * added up; the one under way dropped. */
static void
test_cancel (void)
{
  SpxSurveyOptions o;
  model_options (&o);
  g_autoptr (SpxSurvey) whole = survey_folder (&o, NULL);
  /* attention_q, broken (no points), then into conv */
  guint first = layer (whole, 0)->points->len;
  Seen seen = { .increasing = TRUE, .stop_after = first + 2 };
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxNetwork) network = spx_network_open (folder, &error);
  g_autoptr (SpxSurvey) survey = spx_survey_new ();
  g_assert_false (spx_survey_run (survey, network, &o, count_points, &seen,
                                  &error));
  g_assert_error (error, SPX_SWEEP_ERROR, SPX_SWEEP_ERROR_CANCELLED);
  g_assert_false (survey->complete);
  g_assert_cmpuint (survey->layers->len, ==, 2);
  g_assert_cmpstr (layer (survey, 0)->name, ==, "attention_q.smtx");
  g_assert_nonnull (layer (survey, 1)->skipped);
  g_assert_cmpuint (layer (survey, 0)->points->len, ==, first);
  check_layers (survey);
  g_assert_cmpfloat (survey->total[SPX_SWEEP_MODEL].dense_ms, ==,
                     layer (whole, 0)->recommended[SPX_SWEEP_MODEL].dense_ms);
  g_autofree char *words = spx_survey_describe (survey);
  g_assert_true (g_str_has_prefix (words, "the layers surveyed so far (1)"));
  /* the thread's GCancellable (Ctrl-C, the window's Stop) stops it too */
  g_autoptr (GCancellable) cancel = g_cancellable_new ();
  g_cancellable_cancel (cancel);
  g_cancellable_push_current (cancel);
  g_clear_error (&error);
  gboolean ok = spx_survey_run (survey, network, &o, NULL, NULL, &error);
  g_cancellable_pop_current (cancel);
  g_assert_false (ok);
  g_assert_error (error, SPX_SWEEP_ERROR, SPX_SWEEP_ERROR_CANCELLED);
  g_assert_cmpuint (survey->layers->len, ==, 0);
  g_assert_false (survey->total[SPX_SWEEP_MODEL].valid);
}

static char *
temp_path (const char *name)
{
  return g_build_filename (folder, name, NULL);
}

/* Equal as written with 10 digits and read back. */
#define assert_close(a, b) \
  g_assert_cmpfloat_with_epsilon ((a), (b), 1e-9 * fabs (a) + 1e-300)

static void
assert_choice_equal (const SpxSurveyChoice *a, const SpxSurveyChoice *b)
{
  g_assert_cmpint (a->valid, ==, b->valid);
  g_assert_cmpint (a->mode, ==, b->mode);
  g_assert_cmpuint (a->block, ==, b->block);
  assert_close (a->ms, b->ms);
  assert_close (a->dense_ms, b->dense_ms);
  assert_close (a->speedup, b->speedup);
  assert_close (a->best, b->best);
  g_assert_cmpuint (a->noisy, ==, b->noisy);
}

static void
assert_survey_equal (const SpxSurvey *a, const SpxSurvey *b)
{
  g_assert_cmpstr (a->path, ==, b->path);
  g_assert_cmpstr (a->format, ==, b->format);
  g_assert_cmpint (a->complete, ==, b->complete);
  const SpxSurveyOptions *s = &a->settings, *t = &b->settings;
  g_assert_cmpint (s->run_model, ==, t->run_model);
  g_assert_cmpint (s->run_cpu, ==, t->run_cpu);
  g_assert_cmpuint (s->n_blocks, ==, t->n_blocks);
  g_assert_cmpmem (s->blocks, s->n_blocks * sizeof (guint), t->blocks,
                   t->n_blocks * sizeof (guint));
  g_assert_cmpint (s->run_static, ==, t->run_static);
  g_assert_cmpint (s->run_dynamic, ==, t->run_dynamic);
  g_assert_cmpint (s->run_tilewise, ==, t->run_tilewise);
  g_assert_cmpuint (s->n, ==, t->n);
  g_assert_cmpint (s->dtype, ==, t->dtype);
  g_assert_true (spx_ipu_machine_equal (s->machine, t->machine));
  g_assert_cmpuint (s->threads, ==, t->threads);
  g_assert_cmpuint (s->reps, ==, t->reps);
  g_assert_cmpuint (s->warmup, ==, t->warmup);
  g_assert_cmpuint (s->seed, ==, t->seed);
  g_assert_cmpstr (s->only, ==, t->only);
  g_assert_cmpuint (a->layers->len, ==, b->layers->len);
  for (guint i = 0; i < a->layers->len; i++)
    {
      const SpxSurveyLayer *x = layer (a, i), *y = layer (b, i);
      g_assert_cmpstr (x->name, ==, y->name);
      g_assert_cmpstr (x->skipped, ==, y->skipped);
      g_assert_cmpuint (x->entry, ==, y->entry);
      g_assert_cmpuint (x->rows, ==, y->rows);
      g_assert_cmpuint (x->cols, ==, y->cols);
      g_assert_cmpuint (x->nnz, ==, y->nnz);
      assert_close (x->density, y->density);
      for (guint j = 0; j < s->n_blocks; j++)
        g_assert_true ((isnan (x->block_density[j]) &&
                        isnan (y->block_density[j])) ||
                       fabs (x->block_density[j] - y->block_density[j]) <
                         1e-9);
      g_assert_cmpuint (x->points ? x->points->len : 0, ==,
                        y->points ? y->points->len : 0);
      for (guint j = 0; x->points && j < x->points->len; j++)
        test_assert_point_equal (pt (x, j), pt (y, j), 1e-9);
      for (guint k = 0; k < SPX_SWEEP_N_SOURCES; k++)
        assert_choice_equal (&x->recommended[k], &y->recommended[k]);
    }
  for (guint k = 0; k < SPX_SWEEP_N_SOURCES; k++)
    {
      g_assert_cmpint (a->total[k].valid, ==, b->total[k].valid);
      assert_close (a->total[k].dense_ms, b->total[k].dense_ms);
      assert_close (a->total[k].chosen_ms, b->total[k].chosen_ms);
      assert_close (a->total[k].kept_dense_ms, b->total[k].kept_dense_ms);
    }
}

/* A survey of both sources (the CPU on the small layers, quick). */
static SpxSurvey *
both_sources (void)
{
  SpxSurveyOptions o;
  spx_survey_options_init (&o);
  o.only = "conv|small|broken";
  o.n = 16;
  o.threads = 1;
  o.reps = 5;
  o.warmup = 0;
  g_autoptr (SpxIpuMachine) custom = spx_ipu_machine_preset ("teach16");
  custom->clock_hz *= 2;
  o.machine = custom;
  return survey_folder (&o, NULL);
}

static void
test_json_round_trip (void)
{
  g_autoptr (SpxSurvey) survey = both_sources ();
  g_autofree char *path = temp_path ("survey.json");
  g_autoptr (GError) error = NULL;
  g_assert_true (spx_survey_save (survey, path, SPX_SAVE_DEFAULT, &error));
  g_assert_no_error (error);
  g_autoptr (SpxSurvey) back = spx_survey_load (path, &error);
  g_assert_no_error (error);
  assert_survey_equal (survey, back);
  /* the CPU's sparse points say their kernels, and keep them */
  guint said = 0;
  for (guint i = 0; i < back->layers->len; i++)
    for (guint j = 0; layer (back, i)->points &&
                      j < layer (back, i)->points->len; j++)
      {
        const SpxSweepPoint *p = pt (layer (back, i), j);
        gboolean sparse = p->mode == SPX_SWEEP_STATIC ||
                          p->mode == SPX_SWEEP_DYNAMIC;
        g_assert_cmpint (p->kernel[0] != '\0', ==,
                         p->source == SPX_SWEEP_CPU && sparse);
        said += p->kernel[0] != '\0';
      }
  g_assert_cmpuint (said, >, 0);
  /* and the same file again */
  g_autofree char *a = spx_survey_to_json (survey);
  g_autofree char *b = spx_survey_to_json (back);
  g_assert_cmpstr (a, ==, b);
  g_unlink (path);
}

static void
test_csv (void)
{
  g_autoptr (SpxSurvey) survey = both_sources ();
  g_autofree char *path = temp_path ("survey.csv");
  g_autoptr (GError) error = NULL;
  g_assert_true (spx_survey_save (survey, path, SPX_SAVE_DEFAULT, &error));
  g_autofree char *text = test_read_all (path);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_assert_cmpstr (lines[0], ==, "layer," SPX_SWEEP_CSV_HEADER);
  guint row = 1;
  for (guint i = 0; i < survey->layers->len; i++)
    for (guint j = 0; layer (survey, i)->points &&
                      j < layer (survey, i)->points->len; j++, row++)
      {
        g_autofree char *start = g_strdup_printf (
          "%s,%s,%s,%u,", layer (survey, i)->name,
          spx_sweep_source_to_string (pt (layer (survey, i), j)->source),
          spx_sweep_mode_to_string (pt (layer (survey, i), j)->mode),
          pt (layer (survey, i), j)->block);
        g_assert_true (g_str_has_prefix (lines[row], start));
      }
  g_assert_cmpstr (lines[row], ==, "");
  g_assert_null (lines[row + 1]);
  g_unlink (path);
  g_autofree char *bad = temp_path ("survey.txt");
  g_assert_false (spx_survey_save (survey, bad, SPX_SAVE_DEFAULT, &error));
  g_assert_nonnull (strstr (error->message, "survey.txt"));
}

/* text with the first "from" after "after" made "to". */
static char *
edit (const char *text, const char *after, const char *from, const char *to)
{
  const char *at = strstr (text, after);
  g_assert_nonnull (at);
  const char *p = strstr (at, from);
  g_assert_nonnull (p);
  return g_strdup_printf ("%.*s%s%s", (int) (p - text), text, to,
                          p + strlen (from));
}

/* Files that are not surveys, each refused with the file and the key. */
static void
test_bad_json (void)
{
  SpxSurveyOptions o;
  model_options (&o);
  g_autoptr (SpxSurvey) survey = survey_folder (&o, NULL);
  g_autofree char *good = spx_survey_to_json (survey);
  g_autofree char *nested = g_strnfill (100000, '[');
  /* a static point at 50×, its ratios' third quartile with it */
  g_autofree char *fifty = edit (good, "\"mode\": \"static\"",
                                 "\"speedup_q3\": ",
                                 "\"speedup_q3\": 50, \"was_q3\": ");
  struct {
    char       *text;
    const char *needle;
  } cases[] = {
    { edit (good, "\"points\"", "\"ms\":", "\"mz\":"),
      "layers[0].points[0].ms: missing" },
    { edit (good, "\"layers\"", "\"rows\": 512", "\"rows\": \"512\""),
      "layers[0].rows: expected a whole number" },
    { edit (good, "\"layers\"", "\"rows\": 512", "\"rows\": 513"),
      "layers[0].density: expected nnz" },
    { edit (good, "\"points\"", "\"source\": \"model\"",
            "\"source\": \"gpu\""), "layers[0].points[0].source" },
    { edit (good, "\"points\"", "\"noisy\": false", "\"noisy\": true"),
      "layers[0].points[0].noisy" },
    /* a static point at 50×: no longer what the file recommends */
    { edit (fifty, "\"mode\": \"static\"", "\"speedup\": ",
            "\"speedup\": 50, \"was\": "), "layers[0].recommended.model" },
    { edit (good, "\"mode\": \"static\"", "\"speedup_q1\": ",
            "\"speedup_q1\": 60, \"was\": "), "speedup_q1: expected" },
    { edit (good, "\"total\"", "\"dense_ms\":", "\"dense_ms\": 1, \"x\":"),
      "total.model.dense_ms: not the sum" },
    { edit (good, "\"settings\"", "\"n\": 64", "\"n\": 0"), "settings.n" },
    { edit (good, "\"settings\"", "\"machine\": \"bow\"",
            "\"machine\": \"nope\""), "settings.machine" },
    { g_strdup ("{\"path\": "), "not JSON" },
    { g_strdup ("[1, 2]"), "expected an object" },
    { g_strdup (nested), "nested deeper" },
  };
  g_autofree char *path = temp_path ("bad.json");
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_test_message ("case %u: %s", i, cases[i].needle);
      g_assert_true (g_file_set_contents (path, cases[i].text, -1, NULL));
      g_autoptr (GError) error = NULL;
      g_autoptr (SpxSurvey) back = spx_survey_load (path, &error);
      g_assert_null (back);
      g_assert_nonnull (error);
      g_test_message ("%s", error->message);
      g_assert_nonnull (strstr (error->message, "bad.json"));
      g_assert_nonnull (strstr (error->message, cases[i].needle));
      g_free (cases[i].text);
    }
  g_unlink (path);
  g_autoptr (GError) error = NULL;
  g_assert_null (spx_survey_load (folder, &error)); /* a folder */
  g_assert_nonnull (error);
}

/* Hand-made layers of a survey at n = 10 (flops 2 · rows · cols · 10):
 *   a  4 × 8    static b1 1.0 ms over a quiet dense 2.0: static
 *   b  8 × 8    static 1.03× over dense 3.0: keep dense
 *   c  16 × 16  every point noisy: not measured (5120 of 7360 flops)
 *   d  4 × 4    static b1 1.0 ms, 4× over a noisy dense 4.0; the quiet
 *               dense (b2) 2.0 is its dense time: 2×
 *   e  skipped */
static const struct {
  const char  *layer;
  SpxSweepMode mode;
  guint        block;
  double       ms, speedup;
  SpxNoise     noise;
} hand_points[] = {
  { "a", SPX_SWEEP_DENSE, 1, 2.0, 1, 0 },
  { "a", SPX_SWEEP_STATIC, 1, 1.0, 2, 0 },
  { "b", SPX_SWEEP_DENSE, 1, 3.0, 1, 0 },
  { "b", SPX_SWEEP_STATIC, 1, 2.9, 3 / 2.9, 0 },
  { "c", SPX_SWEEP_DENSE, 1, 50, 1, SPX_NOISE_BUSY },
  { "c", SPX_SWEEP_STATIC, 1, 10, 5, SPX_NOISE_BUSY },
  { "d", SPX_SWEEP_DENSE, 1, 4.0, 1, SPX_NOISE_BUSY },
  { "d", SPX_SWEEP_STATIC, 1, 1.0, 4, 0 },
  { "d", SPX_SWEEP_DENSE, 2, 2.0, 1, 0 },
  { "d", SPX_SWEEP_STATIC, 2, 1.9, 2 / 1.9, 0 },
};
static const struct {
  const char *name;
  guint64     rows, cols;
} hand_layers[] = {
  { "a", 4, 8 }, { "b", 8, 8 }, { "c", 16, 16 }, { "d", 4, 4 }, { "e", 0, 0 },
};

static SpxSweepPoint
hand_point (guint i, const SpxSurveyLayer *l)
{
  SpxSweepPoint p = {
    .source = SPX_SWEEP_CPU, .mode = hand_points[i].mode,
    .block = hand_points[i].block, .density = 0.5, .m = l->rows,
    .k = l->cols, .n = 10, .dtype = SPX_DTYPE_FP32,
    .ms = hand_points[i].ms, .nz_throughput = 1,
    .speedup = hand_points[i].speedup, .fits = TRUE,
    .ms_q1 = hand_points[i].ms, .ms_q3 = hand_points[i].ms,
    .speedup_q1 = hand_points[i].speedup,
    .speedup_q3 = hand_points[i].speedup, .noise = hand_points[i].noise,
  };
  g_strlcpy (p.machine, "cpu-avx2-2t", sizeof p.machine);
  g_strlcpy (p.dense, "OpenBLAS", sizeof p.dense);
  return p;
}

static SpxSurveyLayer *
hand_layer (guint i)
{
  SpxSurveyLayer *l = g_new0 (SpxSurveyLayer, 1);
  l->name = g_strdup (hand_layers[i].name);
  l->entry = i;
  l->rows = hand_layers[i].rows;
  l->cols = hand_layers[i].cols;
  l->nnz = l->rows * l->cols / 2;
  l->density = l->rows ? 0.5 : 0;
  for (guint b = 0; b < SPX_SWEEP_MAX_VALUES; b++)
    l->block_density[b] = NAN;
  if (l->rows == 0)
    l->skipped = g_strdup ("1-D: not a layer");
  else
    l->points = g_array_new (FALSE, TRUE, sizeof (SpxSweepPoint));
  return l;
}

static SpxSurvey *
hand_survey (void)
{
  SpxSurvey *survey = spx_survey_new ();
  survey->settings.run_model = FALSE;
  survey->settings.n = 10;
  survey->settings.dtype = SPX_DTYPE_FP32;
  survey->settings.machine = spx_ipu_machine_preset ("bow");
  survey->complete = TRUE;
  survey->path = g_strdup ("hand");
  survey->format = g_strdup ("folder");
  return survey;
}

static SpxSurveyLayer *
named (const SpxSurvey *survey, const char *name)
{
  for (guint i = 0; i < survey->layers->len; i++)
    if (g_str_equal (layer (survey, i)->name, name))
      return survey->layers->pdata[i];
  g_assert_not_reached ();
}

/* Totals leave out the layer with no quiet point; shares come from a
 * dense time that passed the noise rule; the flops not measured are
 * said, and saved and read back. */
static void
test_totals_unmeasured (void)
{
  g_autoptr (SpxSurvey) survey = hand_survey ();
  for (guint i = 0; i < G_N_ELEMENTS (hand_layers); i++)
    g_ptr_array_add (survey->layers, hand_layer (i));
  for (guint i = 0; i < G_N_ELEMENTS (hand_points); i++)
    {
      SpxSurveyLayer *l = named (survey, hand_points[i].layer);
      SpxSweepPoint p = hand_point (i, l);
      g_array_append_val (l->points, p);
    }
  for (guint i = 0; i < survey->layers->len; i++)
    spx_survey_recommend (survey->layers->pdata[i]);
  spx_survey_sum (survey);
  const SpxSurveyChoice *c = &named (survey, "c")->recommended[SPX_SWEEP_CPU];
  const SpxSurveyChoice *d = &named (survey, "d")->recommended[SPX_SWEEP_CPU];
  g_assert_true (c->valid);
  g_assert_false (c->measured);
  g_assert_true (d->measured);
  g_assert_cmpint (d->mode, ==, SPX_SWEEP_STATIC);
  g_assert_cmpuint (d->block, ==, 1);
  g_assert_cmpfloat (d->dense_ms, ==, 2.0); /* not the noisy 4.0 */
  g_assert_cmpfloat (d->speedup, ==, 2.0);
  const SpxSurveyTotal *t = &survey->total[SPX_SWEEP_CPU];
  g_assert_cmpuint (t->layers, ==, 3);
  g_assert_cmpuint (t->unmeasured, ==, 1);
  g_assert_cmpfloat_with_epsilon (t->dense_ms, 2 + 3 + 2, 1e-12);
  g_assert_cmpfloat_with_epsilon (t->chosen_ms, 1 + 3 + 1, 1e-12);
  g_assert_cmpfloat_with_epsilon (t->kept_dense_ms, 3, 1e-12);
  g_assert_cmpfloat_with_epsilon (t->speedup, 7.0 / 5, 1e-12);
  g_assert_cmpfloat (t->flops, ==, 7360);
  g_assert_cmpfloat (t->unmeasured_flops, ==, 5120);
  g_assert_cmpuint (survey->n_layers, ==, 4);
  g_assert_cmpuint (survey->n_skipped, ==, 1);
  /* shares of the 7 ms measured: c's noisy 50 ms is none */
  g_assert_cmpint (spx_survey_share_source (survey), ==, SPX_SWEEP_CPU);
  static const double shares[] = { 2 / 7.0, 3 / 7.0, NAN, 2 / 7.0, NAN };
  for (guint i = 0; i < G_N_ELEMENTS (shares); i++)
    {
      double share = spx_survey_layer_share (survey, layer (survey, i));
      if (isnan (shares[i]))
        g_assert_true (isnan (share));
      else
        g_assert_cmpfloat_with_epsilon (share, shares[i], 1e-12);
    }
  check_layers (survey);
  g_autofree char *words = spx_survey_describe (survey);
  g_assert_nonnull (strstr (words, "1.40× on this CPU (fp32, over OpenBLAS "
                                   "dense); 43% of the dense time is in "
                                   "layers that should stay dense; 1 of 4 "
                                   "layers (70% of the flops) not measured"));
  g_autofree char *said = spx_survey_choice_describe (c);
  g_assert_cmpstr (said, ==, "not measured (2 noisy)");
  g_autofree char *count = spx_survey_count_describe (survey->n_layers,
                                                      survey->n_skipped);
  g_assert_cmpstr (count, ==, "4 layers (and 1 entry that is not)");
  g_autofree char *many = spx_survey_count_describe (30, 87);
  g_assert_cmpstr (many, ==, "30 layers (and 87 entries that are not)");
  /* written and read back, the new keys checked */
  g_autofree char *json = spx_survey_to_json (survey);
  g_assert_nonnull (strstr (json, "\"n_layers\": 4, \"n_skipped\": 1"));
  g_assert_nonnull (strstr (json, "\"layers\": 3, \"unmeasured_layers\": 1, "
                                  "\"unmeasured_flops_share\": 0.6956521739"));
  g_autofree char *path = temp_path ("hand.json");
  g_assert_true (g_file_set_contents (path, json, -1, NULL));
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxSurvey) back = spx_survey_load (path, &error);
  g_assert_no_error (error);
  g_autofree char *again = spx_survey_to_json (back);
  g_assert_cmpstr (again, ==, json);
  /* an earlier version's file (no new keys, c counted in its totals)
   * reads, its totals made again */
  g_autoptr (GRegex) added = g_regex_new (
    ", \"(measured|n_layers|n_skipped|layers|unmeasured_layers|"
    "unmeasured_flops_share)\": (true|false|[0-9.e+-]+)", 0, 0, NULL);
  g_autofree char *stripped = g_regex_replace (added, json, -1, 0, "", 0,
                                               NULL);
  g_autofree char *old = edit (stripped, "\"total\"", "\"dense_ms\": 7",
                               "\"dense_ms\": 57");
  g_assert_null (strstr (old, "measured"));
  g_assert_nonnull (strstr (old, "\"dense_ms\": 57"));
  g_assert_true (g_file_set_contents (path, old, -1, NULL));
  g_autoptr (SpxSurvey) earlier = spx_survey_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat_with_epsilon (earlier->total[SPX_SWEEP_CPU].dense_ms, 7,
                                  1e-9);
  g_assert_cmpuint (earlier->total[SPX_SWEEP_CPU].unmeasured, ==, 1);
  /* a count that is not the layers' is refused, naming it */
  g_autofree char *bad = edit (json, "", "\"n_layers\": 4", "\"n_layers\": 5");
  g_assert_true (g_file_set_contents (path, bad, -1, NULL));
  g_autoptr (SpxSurvey) none = spx_survey_load (path, &error);
  g_assert_null (none);
  g_assert_nonnull (strstr (error->message, "hand.json: n_layers: expected "
                                            "4"));
  g_unlink (path);
}

/* Points arriving one by one, as the window adds them (each layer taken
 * out of the totals, recommended again, added back): after every one the
 * running totals are a full sum's. */
static void
test_running_sums (void)
{
  g_autoptr (SpxSurvey) survey = hand_survey ();
  for (guint i = 0; i < G_N_ELEMENTS (hand_layers); i++)
    {
      SpxSurveyLayer *l = hand_layer (i);
      g_ptr_array_add (survey->layers, l);
      spx_survey_tally (survey, l, 1);
      check_totals (survey);
      for (guint j = 0; j < G_N_ELEMENTS (hand_points); j++)
        {
          if (!g_str_equal (hand_points[j].layer, l->name))
            continue;
          SpxSweepPoint p = hand_point (j, l);
          spx_survey_tally (survey, l, -1);
          g_array_append_val (l->points, p);
          spx_survey_recommend (l);
          spx_survey_tally (survey, l, 1);
          check_totals (survey);
        }
    }
  /* a layer's points made quiet: now it counts */
  SpxSurveyLayer *c = named (survey, "c");
  spx_survey_tally (survey, c, -1);
  for (guint i = 0; i < c->points->len; i++)
    g_array_index (c->points, SpxSweepPoint, i).noise = SPX_NOISE_NONE;
  spx_survey_recommend (c);
  spx_survey_tally (survey, c, 1);
  check_totals (survey);
  g_assert_cmpuint (survey->total[SPX_SWEEP_CPU].unmeasured, ==, 0);
}

static gboolean
note_layer (guint done, guint total, guint layer, const SpxSweepPoint *p,
            gpointer data)
{
  if (p != NULL)
    g_array_append_val ((GArray *) data, layer);
  return TRUE;
}

/* Measure again: only the layer with a noisy point, on one thread; the
 * other's points as they were. */
static void
test_again_noisy (void)
{
  SpxSurveyOptions o;
  cpu_options (&o, 2);
  g_autoptr (SpxSurvey) survey = survey_folder (&o, NULL);
  g_assert_cmpuint (survey->layers->len, ==, 2);
  /* which is noisy set here, not left to the machine's load */
  for (guint i = 0; i < 2; i++)
    for (guint j = 0; j < layer (survey, i)->points->len; j++)
      g_array_index (layer (survey, i)->points, SpxSweepPoint, j).noise =
        i == 1 ? SPX_NOISE_BUSY : SPX_NOISE_NONE;
  for (guint i = 0; i < 2; i++)
    spx_survey_recommend (survey->layers->pdata[i]);
  spx_survey_sum (survey);
  g_assert_false (spx_survey_layer_noisy (layer (survey, 0)));
  g_assert_true (spx_survey_layer_noisy (layer (survey, 1)));
  g_autoptr (GArray) kept = g_array_copy (layer (survey, 0)->points);
  g_autoptr (GArray) seen = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxNetwork) network = spx_network_open (folder, &error);
  g_assert_cmpuint (spx_survey_layers_on_threads (survey, 2), ==, 2);
  g_assert_cmpuint (spx_survey_layers_on_threads (survey, 1), ==, 0);
  g_assert_true (spx_survey_measure_again (survey, network, 1, note_layer,
                                           seen, &error));
  g_assert_no_error (error);
  /* what the header counts: one layer measured again on 1 thread */
  g_assert_cmpuint (spx_survey_layers_on_threads (survey, 1), ==, 1);
  g_assert_cmpuint (spx_survey_layers_on_threads (survey, 2), ==, 1);
  g_assert_cmpuint (seen->len, ==, layer (survey, 1)->points->len);
  for (guint i = 0; i < seen->len; i++)
    g_assert_cmpuint (g_array_index (seen, guint, i), ==, 1);
  g_assert_cmpmem (kept->data, kept->len * sizeof (SpxSweepPoint),
                   layer (survey, 0)->points->data,
                   layer (survey, 0)->points->len * sizeof (SpxSweepPoint));
  for (guint j = 0; j < layer (survey, 1)->points->len; j++)
    g_assert_true (g_str_has_suffix (pt (layer (survey, 1), j)->machine,
                                     "-1t"));
  check_layers (survey);
}

static void
test_describe (void)
{
  SpxSurveyOptions o;
  model_options (&o);
  g_autoptr (SpxSurvey) survey = survey_folder (&o, NULL);
  g_autofree char *words = spx_survey_describe (survey);
  const SpxSurveyTotal *t = &survey->total[SPX_SWEEP_MODEL];
  g_autofree char *want = g_strdup_printf (
    "the whole network: %.2f× on the modelled IPU (bow, fp16); %.0f%% of "
    "the dense time is in layers that should stay dense", t->speedup,
    100 * t->kept_dense_ms / t->dense_ms);
  g_assert_cmpstr (words, ==, want);
  g_autoptr (SpxSurvey) empty = spx_survey_new ();
  g_autofree char *none = spx_survey_describe (empty);
  g_assert_cmpstr (none, ==, "no layer surveyed");
}

/* The chart at any size: a survey's, and 72 layers' in a small picture
 * (rows too thin for their names) and at the height they need. */
static void
test_chart (void)
{
  g_autoptr (SpxSurvey) survey = both_sources ();
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  SpxRenderLayersData d = { .survey = survey };
  double h = spx_render_layers_height (survey, &style, 900);
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) png = spx_render_export_bytes (SPX_EXPORT_PNG, 900, h, 1,
                                                    spx_render_layers, &d,
                                                    &style, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (png), >, 1000);
  /* 72 layers: every one a copy of conv's */
  const SpxSurveyLayer *first = layer (survey, 1);
  g_assert_cmpstr (first->name, ==, "conv.smtx");
  for (guint i = 1; i < 72; i++)
    {
      SpxSurveyLayer *l = g_new0 (SpxSurveyLayer, 1);
      *l = *first;
      l->name = g_strdup_printf ("encoder.layer.%u.attention.weight", i);
      l->skipped = NULL;
      l->points = g_array_ref (first->points);
      g_ptr_array_add (survey->layers, l);
    }
  spx_survey_sum (survey);
  double tall = spx_render_layers_height (survey, &style, 900);
  g_assert_cmpfloat (tall, >, 72 * 2 * style.font_size);
  const double sizes[][2] = { { 900, tall }, { 400, 300 }, { 64, 64 } };
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      g_autoptr (GBytes) out = spx_render_export_bytes (
        SPX_EXPORT_SVG, sizes[i][0], sizes[i][1], 1, spx_render_layers, &d,
        &style, &error);
      g_assert_no_error (error);
      g_assert_nonnull (out);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  make_folder ();
  g_test_add_func ("/survey/model", test_model);
  g_test_add_func ("/survey/model-again", test_model_again);
  g_test_add_func ("/survey/recommend-noisy", test_recommend_noisy);
  g_test_add_func ("/survey/cpu", test_cpu);
  g_test_add_func ("/survey/totals-unmeasured", test_totals_unmeasured);
  g_test_add_func ("/survey/running-sums", test_running_sums);
  g_test_add_func ("/survey/again-noisy", test_again_noisy);
  g_test_add_func ("/survey/only", test_only);
  g_test_add_func ("/survey/cancel", test_cancel);
  g_test_add_func ("/survey/json-round-trip", test_json_round_trip);
  g_test_add_func ("/survey/csv", test_csv);
  g_test_add_func ("/survey/bad-json", test_bad_json);
  g_test_add_func ("/survey/describe", test_describe);
  g_test_add_func ("/survey/chart", test_chart);
  int status = g_test_run ();
  remove_folder ();
  return status;
}
