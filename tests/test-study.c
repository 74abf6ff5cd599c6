/* test-study.c: the study: its subject from every source, its machine
 * beside the .spx, its sweep options, its words (densities, verdict) */
#include "spx-mask-io.h"
#include "spx-render-png.h"
#include "spx-render-verdict.h"
#include "spx-study.h"
#include "spx-util.h"
#include "test-files.h"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *tmp_dir;

static char *
tmp_path (const char *name)
{
  return g_build_filename (tmp_dir, name, NULL);
}

static char *
data_path (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", name, NULL);
}

static void
test_build_generated (void)
{
  g_autoptr (SpxStudy) s = spx_study_new ();
  g_autoptr (GError) error = NULL;
  g_assert_cmpstr (s->machine->name, ==, "bow");
  g_assert_true (spx_study_build_mask (s, &error));
  g_assert_no_error (error);
  /* 256 × 256 blocks at density 1/16 */
  g_assert_cmpuint (spx_mask_count (s->scenario->mask), ==, 4096);
  g_assert_cmpuint (s->scenario->mask->block, ==, 16);
  g_assert_null (spx_study_elements (s));
  g_autoptr (SpxStudy) again = spx_study_new ();
  g_assert_true (spx_study_build_mask (again, &error));
  g_assert_true (spx_mask_equal (s->scenario->mask, again->scenario->mask));
}

/* A mask file beside the scenario is stored by a relative path and found
 * again after both move together; it is read once and re-blocked. */
static void
test_file_source (void)
{
  g_autoptr (SpxMask) elements = spx_mask_new (40, 24, 1, NULL);
  spx_mask_set (elements, 0, 0);
  spx_mask_set (elements, 39, 23);
  spx_mask_set (elements, 17, 9);
  g_autofree char *mask_path = tmp_path ("m.smtx");
  g_autoptr (GError) error = NULL;
  g_assert_true (spx_format_smtx.save (elements, mask_path, SPX_SAVE_DEFAULT,
                                     &error));

  g_autoptr (SpxStudy) s = spx_study_new ();
  s->scenario->block = 8;
  g_assert_true (spx_study_open_mask (s, mask_path, &error));
  g_assert_no_error (error);
  SpxScenario *sc = s->scenario;
  g_assert_cmpint (sc->source, ==, SPX_MASK_SOURCE_FILE);
  g_assert_cmpuint (sc->m, ==, 40);
  g_assert_cmpuint (sc->k, ==, 24);
  g_assert_cmpuint (spx_mask_count (sc->mask), ==, 3);
  g_assert_true (spx_mask_get (sc->mask, 2, 1)); /* element (17, 9) */
  g_assert_true (spx_mask_equal (spx_study_elements (s), elements));

  g_autofree char *path = tmp_path ("file.spx");
  g_assert_true (spx_study_save (s, path, SPX_SAVE_DEFAULT, &error));
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "path=m.smtx\n"));
  g_assert_nonnull (strstr (text, "machine=bow\n"));

  g_autofree char *sub = tmp_path ("moved");
  g_mkdir (sub, 0700);
  g_autofree char *moved_spx = g_build_filename (sub, "file.spx", NULL);
  g_autofree char *moved_mask = g_build_filename (sub, "m.smtx", NULL);
  g_rename (path, moved_spx);
  g_rename (mask_path, moved_mask);
  g_autoptr (SpxStudy) back = spx_study_load (moved_spx, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (back->scenario->mask_path, ==, moved_mask);
  g_assert_true (spx_mask_equal (back->scenario->mask, sc->mask));
  /* a new block size re-blocks what was read, without the file */
  g_unlink (moved_mask);
  back->scenario->block = 1;
  g_assert_true (spx_study_build_mask (back, &error));
  g_assert_true (spx_mask_equal (back->scenario->mask, elements));
  g_unlink (moved_spx);
  g_rmdir (sub);
}

/* A layer of a network file becomes the subject as a mask file does; the
 * .spx names the file and the layer in it, and reads it again. */
static void
test_layer_source (void)
{
  guint8 values[5 * 7] = { 0 };
  values[0] = 1;          /* (0, 0) */
  values[2 * 7 + 3] = 9;  /* (2, 3) */
  values[4 * 7 + 6] = 255; /* (4, 6) */
  g_autofree char *net_path = tmp_path ("net.safetensors");
  test_write_safetensors (net_path, "enc.weight", 5, 7, values);
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxNetwork) net = spx_network_open (net_path, &error);
  g_assert_no_error (error);
  g_autoptr (SpxStudy) s = spx_study_new ();
  s->scenario->block = 1;
  gint weight = spx_network_find (net, "enc.weight");
  g_assert_cmpint (weight, >=, 0);
  g_assert_true (spx_study_open_layer (s, net, (guint) weight, &error));
  g_assert_no_error (error);
  SpxScenario *sc = s->scenario;
  g_autofree char *canonical = g_canonicalize_filename (net_path, NULL);
  g_assert_cmpint (sc->source, ==, SPX_MASK_SOURCE_FILE);
  g_assert_cmpstr (sc->mask_path, ==, canonical);
  g_assert_cmpstr (sc->mask_layer, ==, "enc.weight");
  g_assert_cmpstr (spx_study_label (s), ==, "enc.weight");
  g_assert_cmpuint (sc->m, ==, 5);
  g_assert_cmpuint (sc->k, ==, 7);
  g_assert_cmpuint (spx_mask_count (sc->mask), ==, 3);
  g_assert_true (spx_mask_get (sc->mask, 2, 3));
  g_assert_true (spx_mask_get (sc->mask, 4, 6));

  /* the bias is not a layer: refused, the study as it was */
  gint bias = spx_network_find (net, "bias");
  g_assert_false (spx_study_open_layer (s, net, (guint) bias, &error));
  g_assert_nonnull (strstr (error->message, "bias"));
  g_clear_error (&error);
  g_assert_cmpstr (sc->mask_layer, ==, "enc.weight");
  g_assert_cmpuint (spx_mask_count (sc->mask), ==, 3);

  /* undo puts the layer back after a mask file replaced it */
  SpxSubject *layer = spx_study_save_subject (s);
  g_autoptr (SpxMask) mask = spx_mask_ref (sc->mask);
  g_autofree char *small = data_path ("small.smtx");
  g_assert_true (spx_study_open_mask (s, small, &error));
  g_assert_null (sc->mask_layer);
  spx_study_restore_subject (s, layer, g_steal_pointer (&mask));
  spx_subject_free (layer);
  g_assert_cmpstr (sc->mask_layer, ==, "enc.weight");
  g_assert_cmpstr (spx_study_label (s), ==, "enc.weight");

  /* the .spx reads the layer again from the network file */
  g_autofree char *spx = tmp_path ("layer.spx");
  g_assert_true (spx_study_save (s, spx, SPX_SAVE_DEFAULT, &error));
  g_autofree char *text = test_read_all (spx);
  g_assert_nonnull (strstr (text, "path=net.safetensors\n"));
  g_assert_nonnull (strstr (text, "layer=enc.weight\n"));
  g_autoptr (SpxStudy) back = spx_study_load (spx, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (back->scenario->mask_layer, ==, "enc.weight");
  g_assert_true (spx_mask_equal (back->scenario->mask, sc->mask));

  /* a layer the file does not have is named */
  GString *edited = g_string_new (text);
  g_string_replace (edited, "layer=enc.weight", "layer=dec.weight", 1);
  g_assert_true (g_file_set_contents (spx, edited->str, -1, NULL));
  g_string_free (edited, TRUE);
  g_assert_null (spx_study_load (spx, &error));
  g_assert_nonnull (strstr (error->message, "no layer 'dec.weight'"));
  g_clear_error (&error);
  g_unlink (spx);
  g_unlink (net_path);
}

/* A folder's layer is its mask file: no layer name in the scenario. */
static void
test_layer_of_folder (void)
{
  g_autofree char *dir = tmp_path ("net");
  g_mkdir (dir, 0700);
  g_autofree char *small = data_path ("small.smtx");
  g_autofree char *copy = g_build_filename (dir, "q.smtx", NULL);
  g_autofree char *text = test_read_all (small);
  g_assert_true (g_file_set_contents (copy, text, -1, NULL));
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxNetwork) net = spx_network_open (dir, &error);
  g_assert_no_error (error);
  g_autoptr (SpxStudy) s = spx_study_new ();
  s->scenario->block = 1;
  g_assert_true (spx_study_open_layer (s, net, 0, &error));
  g_autofree char *canonical = g_canonicalize_filename (copy, NULL);
  g_assert_cmpstr (s->scenario->mask_path, ==, canonical);
  g_assert_null (s->scenario->mask_layer);
  g_assert_cmpstr (spx_study_label (s), ==, "q.smtx");
  g_autoptr (SpxMask) direct = spx_mask_load (small, NULL, &error);
  g_assert_true (spx_mask_equal (spx_study_elements (s), direct));
  test_remove_folder (dir);
}

/* Core's scenario loader reads a PNG mask once the graphics layer has
 * registered it: the command line and the window open the same .spx. */
static void
test_png_scenario (void)
{
  g_autoptr (SpxMask) elements = spx_mask_new (30, 20, 1, NULL);
  for (guint i = 0; i < 20; i++)
    spx_mask_set (elements, i, i);
  g_autofree char *png = tmp_path ("diag.png");
  g_autoptr (GError) error = NULL;
  g_assert_true (spx_mask_save (elements, png, SPX_SAVE_DEFAULT, &error));
  g_autoptr (SpxScenario) sc = spx_scenario_new ();
  sc->source = SPX_MASK_SOURCE_FILE;
  sc->mask_path = g_strdup (png);
  sc->block = 4;
  g_autofree char *spx = tmp_path ("png.spx");
  g_assert_true (spx_scenario_save (sc, spx, SPX_SAVE_DEFAULT, &error));

  g_autoptr (SpxStudy) s = spx_study_load (spx, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (s->scenario->m, ==, 30);
  g_assert_cmpuint (s->scenario->k, ==, 20);
  g_autoptr (SpxMask) expected = spx_mask_to_blocks (elements, 4, NULL);
  g_assert_true (spx_mask_equal (s->scenario->mask, expected));
  g_assert_true (spx_study_plan (s, &error));
  g_assert_cmpuint (s->programs[SPX_IPU_MODE_STATIC]->m, ==, 30);
  g_unlink (png);
  g_unlink (spx);
}

/* A machine that is not a preset is saved beside the scenario and found
 * there again, whatever the current folder. */
static void
test_machine_beside (void)
{
  g_autoptr (SpxStudy) s = spx_study_new ();
  g_autoptr (GError) error = NULL;
  g_assert_true (spx_study_set_machine (s, "teach16", &error));
  s->machine->tiles = 4;
  g_free (s->machine->name);
  s->machine->name = g_strdup ("custom");
  s->scenario->m = s->scenario->k = 64;
  s->scenario->block = 8;
  s->scenario->n = 16;
  g_assert_true (spx_study_build_mask (s, &error));
  g_autofree char *sub = tmp_path ("what-if");
  g_mkdir (sub, 0700);
  g_autofree char *spx = g_build_filename (sub, "four.spx", NULL);
  g_assert_true (spx_study_save (s, spx, SPX_SAVE_DEFAULT, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (s->scenario->machine, ==, "four.machine");
  g_autofree char *machine = g_build_filename (sub, "four.machine", NULL);
  g_assert_true (g_file_test (machine, G_FILE_TEST_IS_REGULAR));

  g_autofree char *cwd = g_get_current_dir ();
  g_assert_cmpint (g_chdir ("/"), ==, 0);
  g_autoptr (SpxStudy) back = spx_study_load (spx, &error);
  g_assert_cmpint (g_chdir (cwd), ==, 0);
  g_assert_no_error (error);
  g_assert_cmpuint (back->machine->tiles, ==, 4);
  g_assert_true (spx_study_plan (back, &error));
  g_assert_cmpuint (back->programs[SPX_IPU_MODE_DENSE]->n_tiles, ==, 4);
  g_autofree char *origin = spx_study_machine_origin (back);
  g_assert_cmpstr (origin, ==, "custom (from four.machine)");
  g_unlink (machine);
  g_unlink (spx);
  g_rmdir (sub);
}

/* What made the mask and what the machine is, in words: a generator's
 * pattern, a file's name (and layer), a drawing; a preset is said by its
 * name alone, an edited machine as such. */
static void
test_origins (void)
{
  g_autoptr (SpxStudy) s = spx_study_new ();
  SpxScenario *sc = s->scenario;
  g_autofree char *uniform = spx_scenario_mask_origin (sc);
  g_assert_cmpstr (uniform, ==, "uniform");
  sc->gen.pattern = SPX_PATTERN_BANDED;
  g_autofree char *banded = spx_scenario_mask_origin (sc);
  g_assert_cmpstr (banded, ==, "banded");
  sc->source = SPX_MASK_SOURCE_FILE;
  sc->mask_path = g_strdup ("/some/where/w q.npy");
  g_autofree char *file = spx_scenario_mask_origin (sc);
  g_assert_cmpstr (file, ==, "from file w q.npy");
  sc->mask_layer = g_strdup ("layer.0.weight");
  g_autofree char *layer = spx_scenario_mask_origin (sc);
  g_assert_cmpstr (layer, ==, "from file w q.npy, layer layer.0.weight");
  spx_scenario_set_drawn_mask (sc, spx_mask_new (16, 16, 4, NULL));
  g_autofree char *drawn = spx_scenario_mask_origin (sc);
  g_assert_cmpstr (drawn, ==, "drawn");

  g_assert_null (spx_study_machine_origin (s)); /* bow, a preset */
  g_assert_true (spx_study_set_machine (s, "teach16", NULL));
  g_assert_null (spx_study_machine_origin (s));
  SpxMachineFigures f = { 4, s->machine->sram_bytes, s->machine->clock_hz,
                          s->machine->exchange_bytes_per_cycle };
  g_assert_true (spx_study_set_machine_figures (s, &f, NULL));
  g_autofree char *edited = spx_study_machine_origin (s);
  g_assert_cmpstr (edited, ==, "custom (edited)");
}

/* A drawn subject keeps its drawing at its block and re-blocks from the
 * elements it stands for. */
static void
test_drawn (void)
{
  g_autoptr (SpxStudy) s = spx_study_new ();
  SpxMask *mask = spx_mask_new (32, 32, 8, NULL);
  spx_mask_set (mask, 1, 2);
  g_autoptr (SpxMask) drawn = spx_mask_copy (mask, NULL);
  guint revision = s->revision;
  spx_study_set_drawn (s, mask);
  g_assert_cmpuint (s->revision, >, revision);
  g_autoptr (GError) error = NULL;
  g_assert_true (spx_study_build_mask (s, &error));
  g_assert_true (spx_mask_equal (s->scenario->mask, drawn));
  const SpxMask *elements = spx_study_elements (s);
  g_assert_cmpuint (spx_mask_count (elements), ==, 64);
  s->scenario->block = 4;
  g_assert_true (spx_study_build_mask (s, &error));
  g_assert_cmpuint (spx_mask_count (s->scenario->mask), ==, 4);
  g_assert_true (spx_mask_get (s->scenario->mask, 2, 4));
  g_assert_true (spx_mask_get (s->scenario->mask, 3, 5));
}

static void
test_sweep_options (void)
{
  g_autoptr (SpxStudy) s = spx_study_new ();
  g_autoptr (GError) error = NULL;
  s->scenario->n = 64;
  s->scenario->threads = 1;
  s->scenario->dtype = SPX_DTYPE_FP32;
  s->scenario->gen.density = 0.1;
  g_assert_true (spx_study_build_mask (s, &error));
  SpxSweepOptions o;
  spx_study_sweep_options (s, &o);
  /* generated: the scenario's shape and n on both sources */
  g_assert_null (o.subject);
  g_assert_cmpuint (o.cpu_m, ==, 4096);
  g_assert_cmpuint (o.cpu_k, ==, 4096);
  g_assert_cmpuint (o.cpu_n, ==, 64);
  g_assert_cmpuint (o.model_n, ==, 64);
  g_assert_cmpint (o.dtype, ==, SPX_DTYPE_FP32);
  g_assert_cmpuint (o.threads, ==, 1);
  g_assert_true (o.machine == s->machine);
  /* its own density among the paper's, in order */
  const double want[] = { 1 / 4.0, 1 / 8.0, 0.1, 1 / 16.0, 1 / 32.0 };
  g_assert_cmpuint (o.n_densities, ==, G_N_ELEMENTS (want));
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    g_assert_cmpfloat (o.densities[i], ==, want[i]);
  /* every mode, on uniform masks unless the scenario's are tile-wise */
  g_assert_true (o.run_static && o.run_dynamic && o.run_tilewise);
  g_assert_cmpint (o.pattern, ==, SPX_PATTERN_UNIFORM);
  s->scenario->gen.pattern = SPX_PATTERN_TILEWISE;
  s->scenario->gen.tile_width = 64;
  spx_study_sweep_options (s, &o);
  g_assert_cmpint (o.pattern, ==, SPX_PATTERN_TILEWISE);
  g_assert_cmpuint (o.tile_width, ==, 64);
  s->scenario->gen.pattern = SPX_PATTERN_BANDED;
  spx_study_sweep_options (s, &o);
  g_assert_cmpint (o.pattern, ==, SPX_PATTERN_UNIFORM);

  /* a file: itself, re-blocked to 1 … 16, at its own shape */
  g_autofree char *path =
    data_path ("transformer-magnitude_pruning-0.98-attention_q.smtx");
  g_assert_true (spx_study_open_mask (s, path, &error));
  spx_study_sweep_options (s, &o);
  g_assert_true (o.subject == spx_study_elements (s));
  g_assert_cmpstr (o.subject_name, ==,
                   "transformer-magnitude_pruning-0.98-attention_q.smtx");
  const guint blocks[] = { 1, 2, 4, 8, 16 }; /* spx_defaults' */
  g_assert_cmpuint (o.n_blocks, ==, G_N_ELEMENTS (blocks));
  for (guint i = 0; i < G_N_ELEMENTS (blocks); i++)
    g_assert_cmpuint (o.blocks[i], ==, blocks[i]);
  g_assert_cmpuint (o.cpu_m, ==, 512);
  g_assert_cmpuint (o.model_k, ==, 512);
  g_assert_cmpuint (o.cpu_n, ==, 64);
  g_assert_true (spx_sweep_options_validate (&o, &error));
}

static void
assert_blocks (const SpxSweepOptions *o, const guint *want, guint n)
{
  g_assert_cmpuint (o->n_blocks, ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpuint (o->blocks[i], ==, want[i]);
}

/* One rule for the window, `sweep` and `render --view speedup`: the
 * scenario's own block size is swept too, and the defaults that cannot
 * apply to a small matrix are left out. */
static void
test_sweep_points (void)
{
  g_autoptr (SpxStudy) s = spx_study_new ();
  g_autoptr (GError) error = NULL;
  SpxSweepOptions o;
  /* generated at b = 2: the paper's blocks, then its own */
  s->scenario->block = 2;
  g_assert_true (spx_study_build_mask (s, &error));
  spx_study_sweep_options (s, &o);
  assert_blocks (&o, (const guint[]) { 1, 4, 8, 16, 2 }, 5);
  g_assert_cmpuint (o.n_densities, ==, 4);

  /* a file at b = 32: re-blocked to 1 … 16 and 32; the survey for the
   * verdict takes the same sizes */
  g_autofree char *path =
    data_path ("transformer-magnitude_pruning-0.98-attention_q.smtx");
  s->scenario->block = 32;
  g_assert_true (spx_study_open_mask (s, path, &error));
  spx_study_sweep_options (s, &o);
  assert_blocks (&o, (const guint[]) { 1, 2, 4, 8, 16, 32 }, 6);
  spx_study_survey_blocks (s);
  g_assert_cmpuint (s->survey.n, ==, 6);
  g_assert_cmpuint (s->survey.blocks[5], ==, 32);
  g_assert_cmpfloat (s->survey.densities[5], >, s->survey.densities[4]);

  /* 8 × 8 at b = 1 and density 1/4: 16 is larger than the matrix, and at
   * 8 no density keeps the one block; 1/16 and 1/32 keep none of the
   * four blocks at 4 */
  g_autoptr (SpxStudy) small = spx_study_new ();
  small->scenario->m = small->scenario->k = 8;
  small->scenario->block = 1;
  small->scenario->gen.density = 0.25;
  g_assert_true (spx_study_build_mask (small, &error));
  spx_study_sweep_options (small, &o);
  assert_blocks (&o, (const guint[]) { 1, 4 }, 2);
  g_assert_cmpuint (o.n_densities, ==, 2);
  g_assert_cmpfloat (o.densities[0], ==, 1 / 4.0);
  g_assert_cmpfloat (o.densities[1], ==, 1 / 8.0);
  g_assert_true (spx_sweep_options_validate (&o, &error));
}

/* The model's sweep of a real layer: one point per block size and mode,
 * each at the block density of the layer re-blocked. */
static void
test_subject_sweep (void)
{
  g_autoptr (SpxStudy) s = spx_study_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *path =
    data_path ("transformer-magnitude_pruning-0.98-attention_q.smtx");
  g_assert_true (spx_study_open_mask (s, path, &error));
  s->scenario->n = 64;
  SpxSweepOptions o;
  spx_study_sweep_options (s, &o);
  o.run_cpu = FALSE;
  g_assert_true (spx_sweep_run (s->sweep, &o, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (s->sweep->points->len, ==, 5 * SPX_IPU_N_MODES);
  for (guint i = 0; i < s->sweep->points->len; i++)
    {
      const SpxSweepPoint *p = &g_array_index (s->sweep->points,
                                               SpxSweepPoint, i);
      g_autoptr (SpxMask) blocked =
        spx_mask_to_blocks (spx_study_elements (s), p->block, NULL);
      g_assert_cmpuint (p->m, ==, 512);
      g_assert_cmpuint (p->n, ==, 64);
      g_assert_cmpfloat_with_epsilon (
        p->density, (double) spx_mask_count (blocked) /
                      spx_mask_n_blocks (blocked), 1e-12);
      g_assert_cmpfloat (p->ms_q1, ==, p->ms);
      g_assert_cmpint (p->noise, ==, SPX_NOISE_NONE);
    }
  /* 2% of elements: b = 1 is at 0.02, b = 16 near full */
  g_assert_cmpfloat_with_epsilon (
    g_array_index (s->sweep->points, SpxSweepPoint, 0).density, 0.02, 1e-3);
}

/* An element mask of rows × cols with every tenth element set. */
static SpxMask *
every_tenth (guint64 rows, guint64 cols)
{
  SpxMask *m = spx_mask_new (rows, cols, 1, NULL);
  for (guint64 i = 0; i < rows * cols; i += 10)
    spx_mask_set_flat (m, i);
  return m;
}

static void
add_point (SpxSweep *sweep, SpxSweepSource source, SpxSweepMode mode,
           guint block, double speedup, SpxNoise noise)
{
  gboolean cpu = source == SPX_SWEEP_CPU;
  SpxSweepPoint p = { .source = source, .mode = mode, .block = block,
                      .density = 0.5, .speedup = speedup, .fits = TRUE,
                      .noise = noise,
                      .dtype = cpu ? SPX_DTYPE_BF16 : SPX_DTYPE_FP16 };
  g_strlcpy (p.dense, cpu ? "oneDNN bf16" : "", sizeof p.dense);
  g_array_append_val (sweep->points, p);
}

/* The verdict in the window's words. */
static char *
verdict_text (const SpxStudy *s, SpxVerdict *v)
{
  spx_study_judge (s, v);
  return spx_render_verdict_text (v, "Run Sweep");
}

static void
test_words (void)
{
  g_autoptr (SpxStudy) s = spx_study_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *path = tmp_path ("tenth.npy");
  g_autoptr (SpxMask) elements = every_tenth (320, 320);
  g_assert_true (spx_mask_save (elements, path, SPX_SAVE_DEFAULT, &error));
  g_assert_true (spx_study_open_mask (s, path, &error));
  g_autofree char *density = spx_study_describe_density (s);
  g_assert_cmpstr (density, ==, "10.0% of elements, 100.0% of 16 × 16 "
                                "blocks non-empty");
  /* before a sweep: the bound a full block grid sets */
  SpxVerdict v;
  g_autofree char *bound = verdict_text (s, &v);
  g_assert_cmpint (v.kind, ==, SPX_VERDICT_BOUND);
  g_assert_cmpuint (v.n_bounds, ==, 1);
  g_assert_cmpuint (v.bounds[0].block, ==, 16);
  g_assert_cmpfloat (v.bounds[0].bound, ==, 1.0);
  g_assert_false (v.bounds[0].possible);
  g_assert_cmpstr (bound, ==, "At 16 × 16 blocks nearly every block holds a "
                   "non-zero: no block-sparse speedup is possible (at most "
                   "1.00×). Try a smaller block size, or Run Sweep.");
  /* the command's words name the command instead */
  g_autofree char *cli = spx_render_verdict_text (&v, "run sparse-explorer "
                                                      "sweep again");
  g_assert_nonnull (strstr (cli, "Try a smaller block size, or run "
                                 "sparse-explorer sweep again."));
  /* surveyed: columns 0, 10, 20, … are set, so 10%, 20%, 40%, 80% and
   * 100% of the 1, 2, 4, 8 and 16 blocks */
  spx_study_survey_blocks (s);
  g_autofree char *bounds = verdict_text (s, &v);
  g_assert_cmpint (v.kind, ==, SPX_VERDICT_BOUNDS);
  g_assert_cmpuint (v.n_bounds, ==, 5);
  g_assert_cmpuint (v.bounds[3].block, ==, 8);
  g_assert_cmpfloat_with_epsilon (v.bounds[3].bound, 1.25, 1e-12);
  g_assert_true (v.bounds[3].possible);
  g_assert_false (v.bounds[4].possible);
  g_autofree char *cli_bounds = spx_render_verdict_text (
    &v, "run sparse-explorer sweep again");
  g_assert_true (g_str_has_suffix (cli_bounds, "(blocks nearly full). Run "
                                   "sparse-explorer sweep again to measure "
                                   "it."));
  g_assert_cmpstr (bounds, ==, "A speedup is possible at most at b = 1 "
                   "(10×), 2 (5×), 4 (2.5×), 8 (1.25×); not at b = 16 "
                   "(blocks nearly full). Run Sweep to measure it.");

  /* a sweep: b = 1 and 2 beat dense on the CPU, only noise beats it at 4;
   * the model wins at 1 only */
  SpxSweepOptions *o = &s->sweep->settings;
  const guint blocks[] = { 1, 2, 4, 8, 16 }; /* spx_defaults' */
  memcpy (o->blocks, blocks, sizeof blocks);
  o->n_blocks = G_N_ELEMENTS (blocks);
  /* the sweep owns its settings' */
  o->subject = spx_mask_copy (elements, NULL);
  add_point (s->sweep, SPX_SWEEP_CPU, SPX_SWEEP_STATIC, 1, 3.1,
             SPX_NOISE_NONE);
  add_point (s->sweep, SPX_SWEEP_CPU, SPX_SWEEP_DYNAMIC, 2, 1.2,
             SPX_NOISE_NONE);
  add_point (s->sweep, SPX_SWEEP_CPU, SPX_SWEEP_STATIC, 4, 5.0,
             SPX_NOISE_BUSY);
  add_point (s->sweep, SPX_SWEEP_CPU, SPX_SWEEP_STATIC, 16, 0.4,
             SPX_NOISE_NONE);
  add_point (s->sweep, SPX_SWEEP_MODEL, SPX_SWEEP_STATIC, 1, 1.5,
             SPX_NOISE_NONE);
  add_point (s->sweep, SPX_SWEEP_MODEL, SPX_SWEEP_STATIC, 16, 0.9,
             SPX_NOISE_NONE);
  s->sweep_revision = s->revision;
  g_autofree char *verdict = verdict_text (s, &v);
  /* the CPU: noise at b = 4 is left out, b = 16 is slower */
  const SpxVerdictSource *cpu = &v.sources[SPX_SWEEP_CPU];
  g_assert_cmpint (v.kind, ==, SPX_VERDICT_SWEPT);
  g_assert_cmpuint (cpu->points, ==, 4);
  g_assert_cmpuint (cpu->noisy, ==, 1);
  g_assert_cmpuint (cpu->n_faster, ==, 2);
  g_assert_cmpuint (cpu->faster[1], ==, 2);
  g_assert_cmpfloat (cpu->best, ==, 3.1);
  g_assert_cmpuint (cpu->best_block, ==, 1);
  g_assert_cmpint (cpu->best_mode, ==, SPX_SWEEP_STATIC);
  g_assert_cmpuint (cpu->n_unclean, ==, 1); /* b = 4: noisy, not slower */
  g_assert_cmpuint (cpu->unclean[0], ==, 4);
  g_assert_cmpuint (v.sources[SPX_SWEEP_MODEL].n_faster, ==, 1);
  g_assert_cmpstr (v.machine, ==, "bow");
  g_assert_cmpuint (v.done, ==, 6);
  /* 5 blocks × 2 sources × 3 modes: fp16 runs bf16 on the CPU, where
   * tile-wise (fp32 only) does not apply */
  g_assert_cmpuint (v.total, ==, 30);
  /* no sweep to suggest: the window's and the command's words agree */
  g_autofree char *cli_verdict = spx_render_verdict_text (&v, "run it");
  g_assert_cmpstr (cli_verdict, ==, verdict);
  g_assert_cmpstr (verdict, ==, "On this CPU (bf16, over oneDNN bf16 "
                   "dense): faster than dense at b = 1, 2 (best static b = 1, "
                   "3.1×); b = 4 could not be measured cleanly (noisy); on "
                   "the IPU model (bow, fp16): "
                   "faster than dense at b = 1 (best static b = 1, 1.5×) "
                   "(so far: 6 of 30 points).");
  /* only noise at b = 1 and 2 too: never "no block size beats dense" */
  for (guint i = 0; i < s->sweep->points->len; i++)
    {
      SpxSweepPoint *p = &g_array_index (s->sweep->points, SpxSweepPoint, i);
      if (p->source == SPX_SWEEP_CPU && p->block <= 2)
        p->noise = SPX_NOISE_SPREAD;
    }
  g_autofree char *unclean = verdict_text (s, &v);
  g_assert_cmpuint (cpu->n_faster, ==, 0);
  g_assert_cmpuint (cpu->n_unclean, ==, 3);
  g_assert_nonnull (strstr (unclean, "On this CPU (bf16, over oneDNN bf16 "
                            "dense): no block size measured cleanly beats "
                            "dense (best static b = 16, 0.40×); b = 1, 2, 4 "
                            "could not be measured cleanly (noisy); "));
  /* a change of machine makes the sweep out of date */
  g_assert_false (spx_study_sweep_stale (s));
  g_assert_true (spx_study_set_machine (s, "gc200", &error));
  g_assert_true (spx_study_sweep_stale (s));
  g_autofree char *stale = verdict_text (s, &v);
  g_assert_nonnull (strstr (stale, "Run Sweep"));
  g_unlink (path);
}

/* Whether all three plans of s fit at m = k = size. */
static gboolean
all_fit (SpxStudy *s, guint64 size)
{
  s->scenario->m = s->scenario->k = size;
  g_assert_true (spx_study_build_mask (s, NULL));
  g_assert_true (spx_study_plan (s, NULL));
  gboolean fits = TRUE;
  for (guint mode = 0; mode < SPX_IPU_N_MODES; mode++)
    fits = fits && s->programs[mode]->fits;
  return fits;
}

/* teach16 with the default 4096² problem does not fit; the size that
 * fits is the largest with blocks in its mask: one block more and some
 * plan does not (n is halved while only an empty mask fits). */
static void
test_fit_size (void)
{
  g_autoptr (SpxStudy) s = spx_study_new ();
  g_autoptr (GError) error = NULL;
  g_assert_true (spx_study_set_machine (s, "teach16", &error));
  g_assert_false (all_fit (s, 4096));
  g_assert_true (spx_study_fit_size (s, &error));
  g_assert_no_error (error);
  guint64 size = s->scenario->m, b = s->scenario->block;
  g_test_message ("teach16, b = %" G_GUINT64_FORMAT ", n = %" G_GUINT64_FORMAT
                  ": %" G_GUINT64_FORMAT " fits", b, s->scenario->n, size);
  g_assert_cmpuint (s->scenario->k, ==, size);
  g_assert_cmpuint (s->scenario->mask->rows, ==, size);
  g_assert_cmpuint (size % b, ==, 0);
  g_assert_cmpuint (size, <, 4096);
  g_assert_cmpuint (s->scenario->n, <=, 1024);
  g_assert_cmpuint (spx_mask_count (s->scenario->mask), >, 0);
  g_assert_true (all_fit (s, size));
  g_assert_false (all_fit (s, size + b));
}

/* A file or a drawing keeps its shape; a machine too small for one block
 * says so. */
static void
test_fit_size_refused (void)
{
  g_autoptr (SpxStudy) s = spx_study_new ();
  g_autoptr (GError) error = NULL;
  g_assert_true (spx_study_set_machine (s, "teach16", NULL));
  s->machine->sram_bytes = 1024;
  g_assert_false (spx_study_fit_size (s, &error));
  g_assert_error (error, SPX_SCENARIO_ERROR, SPX_SCENARIO_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "no size fits teach16"));
  g_assert_cmpuint (s->scenario->m, ==, 4096);
  g_assert_cmpuint (s->scenario->n, ==, 1024);
  g_clear_error (&error);

  s->machine->sram_bytes = 64 * 1024;
  s->scenario->n = 16;
  s->scenario->m = s->scenario->k = 64;
  g_assert_true (spx_study_build_mask (s, NULL));
  spx_study_set_drawn (s, spx_mask_copy (s->scenario->mask, NULL));
  g_assert_false (spx_study_fit_size (s, &error));
  g_assert_nonnull (strstr (error->message, "only a generated mask"));
}

/* A study with a what-if machine (teach16 cut to four tiles). */
static SpxStudy *
what_if_study (void)
{
  SpxStudy *s = spx_study_new ();
  g_assert_true (spx_study_set_machine (s, "teach16", NULL));
  s->machine->tiles = 4;
  s->machine->grid_width = 2;
  g_free (s->machine->name);
  s->machine->name = g_strdup ("custom");
  s->scenario->m = s->scenario->k = 64;
  s->scenario->block = 8;
  s->scenario->n = 16;
  g_assert_true (spx_study_build_mask (s, NULL));
  return s;
}

/* Saving never touches a file it did not make: an unrelated NAME.machine
 * stays, the machine gets a free name; saving again reuses it. */
static void
test_save_spares_files (void)
{
  g_autofree char *dir = tmp_path ("spare");
  g_mkdir (dir, 0700);
  g_autofree char *spx = g_build_filename (dir, "s.spx", NULL);
  g_autofree char *mine = g_build_filename (dir, "s.machine", NULL);
  g_assert_true (g_file_set_contents (mine, "my own notes\n", -1, NULL));
  g_autoptr (SpxStudy) s = what_if_study ();
  g_autoptr (GError) error = NULL;
  g_assert_true (spx_study_save (s, spx, SPX_SAVE_DEFAULT, &error));
  g_autofree char *notes = test_read_all (mine);
  g_assert_cmpstr (notes, ==, "my own notes\n");
  g_assert_cmpstr (s->scenario->machine, ==, "s-2.machine");
  /* the same machine */
  g_assert_true (spx_study_save (s, spx, SPX_SAVE_DEFAULT, &error));
  g_assert_cmpstr (s->scenario->machine, ==, "s-2.machine");
  g_autofree char *third = g_build_filename (dir, "s-3.machine", NULL);
  g_assert_false (g_file_test (third, G_FILE_TEST_EXISTS));
  g_autoptr (SpxStudy) back = spx_study_load (spx, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (back->machine->tiles, ==, 4);

  /* a machine named like a preset but edited is a file, not the preset */
  g_free (s->machine->name);
  s->machine->name = g_strdup ("bow");
  g_free (s->scenario->machine);
  s->scenario->machine = g_strdup ("bow");
  g_assert_true (spx_study_save (s, spx, SPX_SAVE_DEFAULT, &error));
  g_assert_cmpstr (s->scenario->machine, ==, "s-3.machine");
  g_autoptr (SpxStudy) bow = spx_study_load (spx, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (bow->machine->name, ==, "bow");
  g_assert_cmpuint (bow->machine->tiles, ==, 4);

  /* a changed machine never overwrites the pair's old machine file */
  s->machine->tiles = 2;
  s->machine->grid_width = 1;
  g_autofree char *old3 = test_read_all (third);
  g_assert_true (spx_study_save (s, spx, SPX_SAVE_DEFAULT, &error));
  g_autofree char *still3 = test_read_all (third);
  g_assert_cmpstr (old3, ==, still3);
  g_assert_cmpstr (s->scenario->machine, ==, "s-4.machine");
  test_remove_folder (dir);
}

/* A save through a link replaces what it points to and keeps the link;
 * a private file stays private. */
static void
test_save_keeps_links (void)
{
  g_autofree char *dir = tmp_path ("links");
  g_mkdir (dir, 0700);
  g_autofree char *real = g_build_filename (dir, "real.spx", NULL);
  g_autofree char *link = g_build_filename (dir, "link.spx", NULL);
  g_autoptr (SpxStudy) s = spx_study_new ();
  g_autoptr (GError) error = NULL;
  g_assert_true (spx_study_build_mask (s, &error));
  g_assert_true (spx_study_save (s, real, SPX_SAVE_DEFAULT, &error));
  g_assert_cmpint (g_chmod (real, 0600), ==, 0);
  g_assert_cmpint (symlink ("real.spx", link), ==, 0);
  s->scenario->n = 77;
  g_assert_true (spx_study_save (s, link, SPX_SAVE_DEFAULT, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (link, G_FILE_TEST_IS_SYMLINK));
  GStatBuf st;
  g_assert_cmpint (g_stat (real, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);
  g_autoptr (SpxStudy) back = spx_study_load (real, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (back->scenario->n, ==, 77);
  test_remove_folder (dir);
}

/* Ctrl+S saves to the study's own path, s->path itself: twice, it is
 * still the same name (a freed path would read as garbage, and write to
 * a garbage name), and the file holds each save. */
static void
test_save_to_own_path (void)
{
  g_autofree char *dir = tmp_path ("own-path");
  g_mkdir (dir, 0700);
  g_autofree char *spx = g_build_filename (dir, "scenario-saved-twice.spx",
                                           NULL);
  g_autoptr (SpxStudy) first = spx_study_new ();
  g_autoptr (GError) error = NULL;
  g_assert_true (spx_study_build_mask (first, &error));
  g_assert_true (spx_study_save (first, spx, SPX_SAVE_DEFAULT, &error));
  g_autoptr (SpxStudy) s = spx_study_load (spx, &error);
  g_assert_no_error (error);
  for (guint n = 40; n <= 41; n++)
    {
      s->scenario->n = n;
      g_assert_true (spx_study_save (s, s->path, SPX_SAVE_DEFAULT, &error));
      g_assert_no_error (error);
      g_assert_cmpstr (s->path, ==, spx);
      g_autoptr (SpxStudy) back = spx_study_load (spx, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (back->scenario->n, ==, n);
    }
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_assert_cmpstr (g_dir_read_name (d), ==, "scenario-saved-twice.spx");
  g_assert_null (g_dir_read_name (d));
  test_remove_folder (dir);
}

/* A machine or scenario that is not one of ours: refused without
 * quoting it; a FIFO at once, not waited on. */
static void
test_foreign_files (void)
{
  g_autofree char *dir = tmp_path ("foreign");
  g_mkdir (dir, 0700);
  g_autofree char *secret = g_build_filename (dir, "shadow", NULL);
  g_assert_true (g_file_set_contents (
    secret, "root:$6$secret-hash-never-shown:19000:0:99999:7:::\n", -1,
    NULL));
  g_autofree char *spx = g_build_filename (dir, "s.spx", NULL);
  g_autofree char *text = g_strdup_printf (
    "[scenario]\nversion=1\nm=64\nk=64\nn=8\nblock=8\nmachine=%s\n",
    secret);
  g_assert_true (g_file_set_contents (spx, text, -1, NULL));
  GError *error = NULL;
  g_assert_null (spx_study_load (spx, &error));
  g_test_message ("%s", error->message);
  g_assert_null (strstr (error->message, "secret"));
  g_assert_nonnull (strstr (error->message, "not a machine key file"));
  g_clear_error (&error);
  g_assert_null (spx_scenario_load (secret, &error));
  g_assert_null (strstr (error->message, "secret"));
  g_clear_error (&error);

  /* a long value is quoted short */
  g_autofree char *many = g_strnfill (100000, '7');
  g_autofree char *big = g_strdup_printf (
    "[scenario]\nversion=1\nm=%s\nk=64\nn=8\nblock=8\n", many);
  g_assert_null (spx_scenario_load_data ("big.spx", big, strlen (big),
                                         &error));
  g_assert_cmpuint (strlen (error->message), <, 200);
  g_clear_error (&error);

  g_autofree char *fifo = g_build_filename (dir, "pipe.spx", NULL);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_null (spx_study_load (fifo, &error)); /* never blocks on it */
  g_assert_nonnull (strstr (error->message, "not a regular file"));
  g_clear_error (&error);
  g_assert_null (spx_ipu_machine_load (fifo, &error));
  g_assert_nonnull (strstr (error->message, "not a regular file"));
  g_clear_error (&error);
  g_assert_null (spx_study_load_scenario ("/dev/zero", &error));
  g_assert_nonnull (strstr (error->message, "not a regular file"));
  g_clear_error (&error);
  g_assert_null (spx_study_load_scenario (dir, &error));
  g_assert_nonnull (strstr (error->message, "is a directory"));
  g_clear_error (&error);
  test_remove_folder (dir);
}

/* Copies of a mask count against the budget together: with the file's
 * 1 GiB mask held, a second copy is refused, while what the window keeps
 * of the study (a copy for a worker, the subject for undo, the mask at
 * the file's own block) shares it. */
static void
test_copies_budgeted (void)
{
  g_setenv (SPX_MEMORY_BUDGET_ENV, "1536M", TRUE);
  guint64 before = spx_mask_held_bytes ();
  g_autofree char *path = g_test_build_filename (
    G_TEST_DIST, "data", "hostile", "win-92681.mtx", NULL);
  g_autoptr (GError) error = NULL;
  SpxStudy *s = spx_study_load (path, &error);
  g_assert_no_error (error);
  const SpxMask *elements = spx_study_elements (s);
  guint64 bits = elements->n_words * sizeof (guint64);
  g_assert_cmpuint (bits, ==, 1073720976);
  guint64 held = spx_mask_held_bytes ();
  g_assert_cmpuint (held - before, >=, bits);

  g_assert_null (spx_mask_copy (elements, &error));
  g_assert_error (error, SPX_BUDGET_ERROR, SPX_BUDGET_ERROR_TOO_LARGE);
  /* g_format_size puts a no-break space before the unit */
  const char *parts[] = { "a mask of 92681×92681 elements: would need 1024.0",
                          "MiB of memory (2.0",
                          "GiB with the masks already held), more than the "
                          "budget of 1.5", "(SPX_MEMORY_BUDGET sets it)" };
  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    g_assert_nonnull (strstr (error->message, parts[i]));
  g_clear_error (&error);
  g_assert_cmpuint (spx_mask_held_bytes (), ==, held);
  SpxMask *by2 = spx_mask_to_blocks (elements, 2, &error); /* 256 MiB fit */
  g_assert_no_error (error);
  spx_mask_free (by2);

  SpxStudy *copy = spx_study_copy (s);
  SpxSubject *subject = spx_study_save_subject (s);
  spx_study_restore_subject (copy, subject, spx_mask_ref (s->scenario->mask));
  spx_subject_free (subject);
  s->scenario->block = 1;
  g_assert_true (spx_study_build_mask (s, &error));
  g_assert_true (s->scenario->mask == spx_study_elements (s));
  g_assert_cmpuint (spx_mask_held_bytes () - before, <, bits + bits / 64);

  /* changing a shared mask needs a copy: refused, the mask as it was */
  SpxMask *mine = spx_mask_ref (s->scenario->mask), *was = mine;
  g_assert_false (spx_mask_unshare (&mine, &error));
  g_assert_error (error, SPX_BUDGET_ERROR, SPX_BUDGET_ERROR_TOO_LARGE);
  g_assert_true (mine == was);
  spx_mask_free (mine);
  spx_study_free (copy);
  spx_study_free (s);
  g_assert_cmpuint (spx_mask_held_bytes (), ==, before);
  g_unsetenv (SPX_MEMORY_BUDGET_ENV);
}

/* Every edit the window's panel makes bumps the revision itself, so a
 * sweep run before it is out of date. */
static void
test_setters (void)
{
  g_autoptr (SpxStudy) s = spx_study_new ();
  SpxScenario *sc = s->scenario;
  guint r = s->revision;
  spx_study_set_block (s, 8);
  spx_study_set_n (s, 32);
  spx_study_set_dtype (s, SPX_DTYPE_FP32);
  spx_study_set_threads (s, 3);
  g_assert_cmpuint (s->revision, ==, r + 4);
  g_assert_cmpuint (sc->block, ==, 8);
  g_assert_cmpuint (sc->n, ==, 32);
  g_assert_cmpint (sc->dtype, ==, SPX_DTYPE_FP32);
  g_assert_cmpuint (sc->threads, ==, 3);

  /* a drawing let go for a generated mask, the pattern's options kept */
  SpxMask *drawn = spx_mask_new (64, 64, 8, NULL);
  spx_mask_set (drawn, 0, 0);
  spx_study_set_drawn (s, drawn);
  sc->gen.band = 3;
  r = s->revision;
  SpxStudyGenerator gen = { 128, 96, SPX_PATTERN_BANDED, 0.25, 9 };
  spx_study_set_generator (s, &gen);
  g_assert_cmpuint (s->revision, ==, r + 1);
  g_assert_cmpint (sc->source, ==, SPX_MASK_SOURCE_GENERATED);
  g_assert_null (sc->mask_path);
  g_assert_cmpuint (sc->m, ==, 128);
  g_assert_cmpuint (sc->k, ==, 96);
  g_assert_cmpint (sc->gen.pattern, ==, SPX_PATTERN_BANDED);
  g_assert_cmpfloat (sc->gen.density, ==, 0.25);
  g_assert_cmpuint (sc->gen.seed, ==, 9);
  g_assert_cmpuint (sc->gen.band, ==, 3);
  g_autoptr (GError) error = NULL;
  g_assert_true (spx_study_build_mask (s, &error));
  g_assert_cmpuint (sc->mask->rows, ==, 128);
  g_assert_null (spx_study_elements (s));

  /* what-if figures: a custom machine, its grid no wider than its tiles */
  g_assert_true (spx_study_set_machine (s, "teach16", NULL));
  r = s->revision;
  SpxMachineFigures f = { 2, 32 * 1024, 1e9, 8 };
  g_assert_true (spx_study_set_machine_figures (s, &f, &error));
  g_assert_cmpuint (s->revision, ==, r + 1);
  g_assert_cmpstr (s->machine->name, ==, SPX_STUDY_CUSTOM_MACHINE);
  g_assert_cmpstr (sc->machine, ==, SPX_STUDY_CUSTOM_MACHINE);
  g_assert_cmpuint (s->machine->tiles, ==, 2);
  g_assert_cmpuint (s->machine->grid_width, ==, 2);
  g_assert_cmpuint (s->machine->sram_bytes, ==, 32 * 1024);
  g_assert_cmpfloat (s->machine->clock_hz, ==, 1e9);
  g_assert_cmpfloat (s->machine->exchange_bytes_per_cycle, ==, 8);

  /* out of range: said, and nothing changes */
  g_assert_true (spx_study_set_machine (s, "bow", NULL));
  r = s->revision;
  SpxMachineFigures many = { 65536, 624 * 1024, 1.85e9, 4 };
  g_assert_false (spx_study_set_machine_figures (s, &many, &error));
  g_assert_error (error, SPX_IPU_ERROR, SPX_IPU_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "tiles"));
  g_assert_cmpuint (s->revision, ==, r);
  g_assert_cmpstr (s->machine->name, ==, "bow");
  g_assert_cmpstr (sc->machine, ==, "bow");
  g_assert_cmpuint (s->machine->tiles, ==, 1472);
}

/* A model sweep of the study's subject, kept in its history. */
static void
sweep_and_keep (SpxStudy *s)
{
  SpxSweepOptions o;
  g_autoptr (GError) error = NULL;
  spx_study_sweep_options (s, &o);
  o.run_cpu = FALSE;
  g_assert_true (spx_sweep_run (s->sweep, &o, NULL, NULL, &error));
  spx_study_sweep_cleared (s);
  spx_study_keep_sweep (s);
}

static void
assert_same_sweep (const SpxSweep *a, const SpxSweep *b)
{
  g_assert_cmpuint (a->points->len, ==, b->points->len);
  for (guint i = 0; i < a->points->len; i++)
    {
      const SpxSweepPoint *p = &g_array_index (a->points, SpxSweepPoint, i);
      const SpxSweepPoint *q = &g_array_index (b->points, SpxSweepPoint, i);
      g_assert_cmpint (p->mode, ==, q->mode);
      g_assert_cmpuint (p->block, ==, q->block);
      g_assert_cmpuint (p->n, ==, q->n);
      g_assert_cmpstr (p->machine, ==, q->machine);
      g_assert_cmpfloat_with_epsilon (p->speedup, q->speedup,
                                      1e-9 * p->speedup);
      g_assert_cmpfloat_with_epsilon (p->density, q->density, 1e-9);
      g_assert_true (p->fits == q->fits);
    }
  g_autofree char *la = spx_sweep_label (a), *lb = spx_sweep_label (b);
  g_assert_cmpstr (la, ==, lb);
  g_assert_cmpuint (a->settings.n_blocks, ==, b->settings.n_blocks);
  g_assert_true ((a->settings.subject == NULL) ==
                 (b->settings.subject == NULL));
  if (a->settings.subject != NULL)
    g_assert_cmpuint (spx_mask_count (a->settings.subject), ==,
                      spx_mask_count (b->settings.subject));
}

/* Sweeps of two layers and of generated masks on another machine are
 * kept for the session, one may be the overlay, and they come back from
 * the .spx as they were. */
static void
test_history (void)
{
  g_autoptr (SpxStudy) s = spx_study_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *q = data_path ("transformer-magnitude_pruning-0.98-"
                                  "attention_q.smtx");
  g_autofree char *conv = data_path ("rn50-magnitude_pruning-0.9-"
                                     "initial_conv.smtx");
  g_assert_true (spx_study_open_mask (s, q, &error));
  s->scenario->n = 64;
  sweep_and_keep (s);
  g_assert_cmpuint (spx_study_history_n (s), ==, 1);
  g_assert_null (spx_study_overlay (s));
  g_assert_false (spx_study_set_overlay (s, 0)); /* the sweep's own copy */
  spx_study_keep_sweep (s); /* measured again: replaces its copy */
  g_assert_cmpuint (spx_study_history_n (s), ==, 1);
  g_assert_true (spx_study_open_mask (s, conv, &error));
  sweep_and_keep (s);
  g_assert_true (spx_study_set_overlay (s, 0));
  g_assert_true (spx_study_overlay (s) == spx_study_history_get (s, 0));
  g_assert_nonnull (strstr (spx_study_overlay (s)->settings.subject_name,
                            "attention_q"));
  g_assert_true (spx_study_set_machine (s, "gc200", &error));
  s->scenario->source = SPX_MASK_SOURCE_GENERATED;
  s->scenario->m = s->scenario->k = 256;
  g_assert_true (spx_study_build_mask (s, &error));
  sweep_and_keep (s);
  g_assert_cmpuint (spx_study_history_n (s), ==, 3);
  g_autofree char *label = spx_sweep_label (spx_study_history_get (s, 2));
  g_assert_cmpstr (label, ==, "generated masks (256 × 256) · gc200 · n = 64 "
                   "· fp16");
  /* saved and read back */
  g_autofree char *spx = tmp_path ("history.spx");
  g_assert_true (spx_study_save (s, spx, SPX_SAVE_DEFAULT, &error));
  g_autoptr (SpxStudy) back = spx_study_load (spx, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (spx_study_history_n (back), ==, 3);
  for (guint i = 0; i < 3; i++)
    assert_same_sweep (spx_study_history_get (s, i),
                       spx_study_history_get (back, i));
  /* a study opened in its place goes on with the session's */
  g_autoptr (SpxStudy) next = spx_study_new ();
  spx_study_take_history (next, back);
  g_assert_cmpuint (spx_study_history_n (next), ==, 3);
  g_assert_cmpuint (spx_study_history_n (back), ==, 0);
  /* the oldest goes past the most kept */
  for (guint i = 0; i < SPX_STUDY_HISTORY_MAX; i++)
    {
      spx_study_sweep_cleared (s);
      spx_study_keep_sweep (s);
    }
  g_assert_cmpuint (spx_study_history_n (s), ==, SPX_STUDY_HISTORY_MAX);
  g_assert_null (spx_study_overlay (s)); /* the first layer's is gone */
  g_unlink (spx);
}

/* A damaged sweep in a .spx is refused, naming the file, the group and
 * the key. */
static void
test_history_damaged (void)
{
  g_autoptr (SpxStudy) s = spx_study_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *q = data_path ("transformer-magnitude_pruning-0.98-"
                                  "attention_q.smtx");
  g_assert_true (spx_study_open_mask (s, q, &error));
  s->scenario->n = 64;
  sweep_and_keep (s);
  g_autofree char *spx = tmp_path ("damaged.spx");
  g_assert_true (spx_study_save (s, spx, SPX_SAVE_DEFAULT, &error));
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (spx, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "version=2"));
  struct { const char *from, *to, *needle; } cases[] = {
    { "\"speedup\": ", "\"speedup\": \"x\", \"was\": ",
      "[sweep 1] json: points[0].speedup: expected a number" },
    { "\"blocks\": [1,", "\"blocks\": [1.5,",
      "[sweep 1] json: settings.blocks: expected whole numbers" },
    { "\"modes\": [", "\"modes\": [\"sparse\", ",
      "[sweep 1] json: settings.modes: expected dense, static" },
    { "[sweep 1]", "[sweep 2]", "[sweep 1] json: missing" },
    { "subject-count=", "subject-count=1", "[sweep 1] subject-count" },
    { "version=2", "version=3", "version" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *at = strstr (text, cases[i].from);
      g_assert_nonnull (at);
      g_autofree char *bad = g_strdup_printf ("%.*s%s%s", (int) (at - text),
                                              text, cases[i].to,
                                              at + strlen (cases[i].from));
      g_assert_true (g_file_set_contents (spx, bad, -1, NULL));
      g_autoptr (GError) local = NULL;
      g_autoptr (SpxStudy) back = spx_study_load (spx, &local);
      g_assert_null (back);
      g_test_message ("%s", local->message);
      g_assert_nonnull (strstr (local->message, "damaged.spx"));
      g_assert_nonnull (strstr (local->message, cases[i].needle));
    }
  g_unlink (spx);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  spx_mask_png_register ();
  tmp_dir = g_dir_make_tmp ("spx-study-XXXXXX", NULL);
  g_test_add_func ("/study/build-generated", test_build_generated);
  g_test_add_func ("/study/file-source", test_file_source);
  g_test_add_func ("/study/png-scenario", test_png_scenario);
  g_test_add_func ("/study/layer-source", test_layer_source);
  g_test_add_func ("/study/layer-of-folder", test_layer_of_folder);
  g_test_add_func ("/study/machine-beside", test_machine_beside);
  g_test_add_func ("/study/drawn", test_drawn);
  g_test_add_func ("/study/origins", test_origins);
  g_test_add_func ("/study/setters", test_setters);
  g_test_add_func ("/study/fit-size", test_fit_size);
  g_test_add_func ("/study/fit-size-refused", test_fit_size_refused);
  g_test_add_func ("/study/sweep-options", test_sweep_options);
  g_test_add_func ("/study/history", test_history);
  g_test_add_func ("/study/history-damaged", test_history_damaged);
  g_test_add_func ("/study/sweep-points", test_sweep_points);
  g_test_add_func ("/study/subject-sweep", test_subject_sweep);
  g_test_add_func ("/study/words", test_words);
  g_test_add_func ("/study/save-spares-files", test_save_spares_files);
  g_test_add_func ("/study/save-keeps-links", test_save_keeps_links);
  g_test_add_func ("/study/save-to-own-path", test_save_to_own_path);
  g_test_add_func ("/study/foreign-files", test_foreign_files);
  g_test_add_func ("/study/copies-budgeted", test_copies_budgeted);
  int status = g_test_run ();
  g_rmdir (tmp_dir);
  g_free (tmp_dir);
  return status;
}
