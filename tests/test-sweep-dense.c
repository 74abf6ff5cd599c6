/* test-sweep-dense.c: the model's dense plans kept by shape across the
 * sweeps of a run (a survey's layers) give every point exactly what
 * planning it again gives, and are made once per shape */
#include "spx-mask-gen.h"
#include "spx-mask-io.h"
#include "spx-survey.h"
#include "spx-survey-private.h"
#include "spx-sweep-dense.h"
#include "test-files.h"
#include "test-sweep-point.h"

/* To the bit, point by point. */
static void
assert_points_same (GArray *a, GArray *b)
{
  g_assert_cmpuint (a->len, ==, b->len);
  for (guint i = 0; i < a->len; i++)
    test_assert_point_equal (&g_array_index (a, SpxSweepPoint, i),
                             &g_array_index (b, SpxSweepPoint, i), 0);
}

static SpxMask *
element_mask (guint64 rows, guint64 cols, double density, guint64 seed)
{
  SpxGenOptions g;
  spx_gen_options_init (&g);
  g.density = density;
  g.seed = seed;
  SpxMask *mask = spx_mask_generate (rows, cols, 1, &g, NULL);
  g_assert_nonnull (mask);
  return mask;
}

/* A model sweep of subject, with plans or without. */
static SpxSweep *
sweep_of (const SpxMask *subject, guint64 n, SpxSweepDensePlans *plans)
{
  SpxSweepOptions o;
  spx_sweep_options_init (&o);
  spx_sweep_options_set_subject (&o, subject, "layer");
  o.run_cpu = FALSE;
  o.model_n = n;
  o.dense_plans = plans;
  g_autoptr (GError) error = NULL;
  SpxSweep *sweep = spx_sweep_new ();
  g_assert_true (spx_sweep_run (sweep, &o, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_null (sweep->settings.dense_plans); /* not kept past the run */
  return sweep;
}

/* Two layers of one shape and different densities, each at every block
 * size: one dense plan, each layer's dense point scaled to its own
 * density; another n is another plan; the best n is always planned. */
static void
test_sweeps_share (void)
{
  g_autoptr (SpxSweepDensePlans) plans = spx_sweep_dense_plans_new ();
  g_autoptr (SpxMask) sparse = element_mask (48, 80, 0.2, 1);
  g_autoptr (SpxMask) denser = element_mask (48, 80, 0.7, 2);
  const SpxMask *layers[] = { sparse, denser, sparse };
  for (guint i = 0; i < G_N_ELEMENTS (layers); i++)
    {
      g_autoptr (SpxSweep) kept = sweep_of (layers[i], 256, plans);
      g_autoptr (SpxSweep) fresh = sweep_of (layers[i], 256, NULL);
      g_assert_cmpuint (kept->settings.n_blocks, >=, 3);
      assert_points_same (kept->points, fresh->points);
      g_assert_cmpuint (spx_sweep_dense_plans_planned (plans), ==, 1);
    }
  g_autoptr (SpxSweep) other_n = sweep_of (sparse, 64, plans);
  g_autoptr (SpxSweep) other_fresh = sweep_of (sparse, 64, NULL);
  assert_points_same (other_n->points, other_fresh->points);
  g_assert_cmpuint (spx_sweep_dense_plans_planned (plans), ==, 2);
  g_autoptr (SpxMask) tiny = element_mask (3, 5, 0.5, 7); /* quick at every n */
  g_autoptr (SpxSweep) best = sweep_of (tiny, 0, plans);
  g_autoptr (SpxSweep) best_fresh = sweep_of (tiny, 0, NULL);
  assert_points_same (best->points, best_fresh->points);
  g_assert_cmpuint (spx_sweep_dense_plans_planned (plans), ==, 2);
}

static void
save (const char *folder, const char *name, const SpxMask *mask)
{
  g_autofree char *path = g_build_filename (folder, name, NULL);
  g_autoptr (GError) error = NULL;
  g_assert_true (spx_mask_save (mask, path, 0, &error));
  g_assert_no_error (error);
}

/* A folder whose layers repeat two shapes: each layer's points are those
 * of its sweep made on its own, every dense plan made anew. */
static void
test_survey_repeated_shapes (void)
{
  g_autofree char *folder = g_dir_make_tmp ("spx-sweep-dense-XXXXXX", NULL);
  g_assert_nonnull (folder);
  g_autoptr (SpxMask) a = element_mask (40, 24, 0.3, 3);
  g_autoptr (SpxMask) b = element_mask (40, 24, 0.8, 4);
  g_autoptr (SpxMask) c = element_mask (17, 33, 0.5, 5);
  g_autoptr (SpxMask) d = element_mask (17, 33, 0.1, 6);
  save (folder, "a.mtx", a);
  save (folder, "b.smtx", b);
  save (folder, "c.mtx", c);
  save (folder, "d.npy", d);
  save (folder, "e.mtx", a);
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxNetwork) network = spx_network_open (folder, &error);
  g_assert_no_error (error);
  SpxSurveyOptions s;
  spx_survey_options_init (&s);
  s.run_cpu = FALSE;
  s.n = 128;
  g_autoptr (SpxSurvey) survey = spx_survey_new ();
  g_assert_true (spx_survey_run (survey, network, &s, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (survey->layers->len, ==, 5);
  for (guint i = 0; i < survey->layers->len; i++)
    {
      const SpxSurveyLayer *layer = g_ptr_array_index (survey->layers, i);
      g_assert_null (layer->skipped);
      g_autofree char *path = g_build_filename (folder, layer->name, NULL);
      g_autoptr (SpxMask) mask = spx_mask_load (path, NULL, &error);
      g_assert_no_error (error);
      SpxSweepOptions o;
      g_assert_true (_spx_survey_sweep_options (&survey->settings,
                                                mask->rows, mask->cols, mask,
                                                layer->name, &o));
      g_assert_null (o.dense_plans);
      g_autoptr (SpxSweep) fresh = spx_sweep_new ();
      g_assert_true (spx_sweep_run (fresh, &o, NULL, NULL, &error));
      g_assert_no_error (error);
      assert_points_same (layer->points, fresh->points);
    }
  test_remove_folder (folder);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sweep/dense-plans/sweeps-share", test_sweeps_share);
  g_test_add_func ("/sweep/dense-plans/survey-repeated-shapes",
                   test_survey_repeated_shapes);
  return g_test_run ();
}
