/* test-cli-defaults.c: one answer everywhere: the commands' shared
 * defaults in --help, densities and settings in their JSON, and the
 * words every command says alike (a missing file, an unknown option, a
 * count) */
#include "spx-sweep.h"
#include "test-run.h"

#include <json-glib/json-glib.h>
#include <glib/gstdio.h>
#include <string.h>

/* The program's stdout; its stderr in *err, its status in *status. */
static char *
run (int *status, char **err, const char *first, ...)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (char *) test_binary ());
  va_list args;
  va_start (args, first);
  for (const char *a = first; a != NULL; a = va_arg (args, const char *))
    g_ptr_array_add (argv, (char *) a);
  va_end (args);
  g_ptr_array_add (argv, NULL);
  return test_run ((const char *const *) argv->pdata, NULL, status, err);
}

static char *
data_path (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", name, NULL);
}

static JsonObject *
parse (JsonParser *parser, const char *text)
{
  g_autoptr (GError) error = NULL;
  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  return json_node_get_object (json_parser_get_root (parser));
}

static void
assert_has (const char *text, const char *needle)
{
  if (strstr (text, needle) == NULL)
    g_error ("'%s' lacks '%s'", text, needle);
}

/* ---- the shared defaults ---------------------------------------------- */

/* Each command's --help names the same n, threads, reps and blocks (the
 * values of core/base/spx-defaults.c, written out here by hand). */
static void
test_help (void)
{
  static const struct {
    const char *command;
    const char *says[4];
  } help[] = {
    { "bench", { "Columns of X (and C) (default 1024)",
                 "Threads for every contestant (default: all cores)",
                 "Timed runs each (default 7)", NULL } },
    { "sweep", { "default: model best, CPU 1024",
                 "CPU: threads (default: all cores)",
                 "CPU: timed runs per point (default 7)",
                 "(default 1,4,8,16; a mask's 1,2,4,8,16)" } },
    { "layers", { "on both sources (default 1024)",
                  "CPU: threads (default: all cores)",
                  "CPU: timed runs per point (default 7)",
                  "Block sizes (default 1,2,4,8,16)" } },
    { "model", { "Columns of X (and C) (default 1024)", NULL } },
  };
  for (guint i = 0; i < G_N_ELEMENTS (help); i++)
    {
      int status;
      g_autofree char *out = run (&status, NULL, help[i].command, "--help",
                                  NULL);
      g_assert_cmpint (status, ==, 0);
      for (guint j = 0; j < G_N_ELEMENTS (help[i].says) && help[i].says[j];
           j++)
        assert_has (out, help[i].says[j]);
    }
}

/* bench's n, without --n, is the shared one, as model's is. */
static void
test_bench_default_n (void)
{
  int status;
  g_autofree char *out = run (&status, NULL, "bench", "--m", "8", "--k", "8",
                              "--block", "4", "--density", "1/4", "--mode",
                              "static", "--reps",
                              "1", "--warmup", "0", "--threads", "1",
                              "--json", NULL);
  g_assert_cmpint (status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *o = parse (parser, out);
  g_assert_cmpint (json_object_get_int_member (o, "n"), ==, 1024);
}

/* ---- densities -------------------------------------------------------- */

/* tests/data/cli-tiny.mtx: 7 of 6 × 5 elements; at block 2, 5 of 3 × 3
 * blocks. density is the elements', block_density the blocks'. */
static void
assert_tiny_densities (JsonObject *o)
{
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (o, "density"),
                                  7.0 / 30, 1e-9);
  g_assert_cmpfloat_with_epsilon (
    json_object_get_double_member (o, "block_density"), 5.0 / 9, 1e-9);
}

static void
test_bench_densities (void)
{
  g_autofree char *path = data_path ("cli-tiny.mtx");
  int status;
  g_autofree char *out = run (&status, NULL, "bench", "--mask", path, "--n",
                              "5", "--block", "2", "--mode", "static",
                              "--reps", "1", "--warmup", "0", "--threads",
                              "1", "--json", NULL);
  g_assert_cmpint (status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *o = parse (parser, out);
  assert_tiny_densities (o);
  g_assert_cmpint (json_object_get_int_member (o, "threads"), ==, 1);

  g_autofree char *table = run (&status, NULL, "bench", "--mask", path,
                                "--n", "5", "--block", "2", "--mode",
                                "static", "--reps", "1", "--warmup", "0",
                                "--threads", "1", NULL);
  g_assert_cmpint (status, ==, 0);
  assert_has (table, "density 0.2333 (5 of 9 blocks) · 1 thread ·");
}

/* model's JSON the same way. */
static void
test_model_densities (void)
{
  g_autofree char *path = data_path ("cli-tiny.mtx");
  int status;
  g_autofree char *out = run (&status, NULL, "model", "--mask", path, "--n",
                              "4", "--block", "2", "--machine", "teach16",
                              "--json", NULL);
  g_assert_cmpint (status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  assert_tiny_densities (parse (parser, out));
}

/* ---- a sweep's settings describe its points ---------------------------- */

static JsonObject *
sweep_json (JsonParser *parser, const char *dir, const char *const *args)
{
  g_autofree char *out_path = g_build_filename (dir, "s.json", NULL);
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (char *) test_binary ());
  g_ptr_array_add (argv, "sweep");
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  const char *common[] = { "--source", "cpu", "--threads", "1", "--reps",
                           "5", "--warmup", "0", "--out", out_path, NULL };
  for (guint i = 0; common[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) common[i]);
  g_ptr_array_add (argv, NULL);
  int status;
  g_autofree char *out = test_run ((const char *const *) argv->pdata, NULL,
                                   &status, NULL);
  g_assert_cmpint (status, ==, 0);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (out_path, &text, NULL, NULL));
  g_unlink (out_path);
  return parse (parser, text);
}

static void
assert_modes (JsonObject *settings, const char *want)
{
  JsonArray *modes = json_object_get_array_member (settings, "modes");
  GString *got = g_string_new (NULL);
  for (guint i = 0; i < json_array_get_length (modes); i++)
    g_string_append_printf (got, "%s%s", i ? "," : "",
                            json_array_get_string_element (modes, i));
  g_assert_cmpstr (got->str, ==, want);
  g_string_free (got, TRUE);
}

/* Every CPU point ran on one thread, and says so; the settings too. */
static void
assert_one_thread (JsonObject *root)
{
  JsonObject *s = json_object_get_object_member (root, "settings");
  JsonObject *cpu = json_object_get_object_member (s, "cpu");
  g_assert_cmpint (json_object_get_int_member (cpu, "threads"), ==, 1);
  JsonArray *points = json_object_get_array_member (root, "points");
  g_assert_cmpuint (json_array_get_length (points), >, 0);
  for (guint i = 0; i < json_array_get_length (points); i++)
    g_assert_cmpint (json_object_get_int_member (
      json_array_get_object_element (points, i), "threads"), ==, 1);
}

/* A mask file's sweep uses no densities: none listed; each point has
 * the file's element density and its block density at its block size.
 * In bf16 (the default fp16 on the CPU) tile-wise does not run: not
 * listed. */
static void
test_sweep_file_mask (void)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-test-defaults-XXXXXX", NULL);
  g_autofree char *path = data_path ("cli-tiny.mtx");
  const char *args[] = { "--mask", path, "--blocks", "1,2", "--n", "4",
                         NULL };
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *root = sweep_json (parser, dir, args);
  JsonObject *s = json_object_get_object_member (root, "settings");
  g_assert_false (json_object_has_member (s, "densities"));
  assert_modes (s, "dense,static,dynamic");
  assert_one_thread (root);
  JsonArray *points = json_object_get_array_member (root, "points");
  for (guint i = 0; i < json_array_get_length (points); i++)
    {
      JsonObject *p = json_array_get_object_element (points, i);
      gint64 block = json_object_get_int_member (p, "block");
      g_assert_cmpfloat_with_epsilon (
        json_object_get_double_member (p, "density"), 7.0 / 30, 1e-9);
      g_assert_cmpfloat_with_epsilon (
        json_object_get_double_member (p, "block_density"),
        block == 1 ? 7.0 / 30 : 5.0 / 9, 1e-9);
    }
  g_rmdir (dir);
}

/* Generated masks: the densities used are listed; tile-wise is listed
 * where it ran (fp32) and not in bf16. */
static void
test_sweep_generated_modes (void)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-test-defaults-XXXXXX", NULL);
  const char *bf16[] = { "--densities", "1/4", "--blocks", "4", "--m", "32",
                         "--k", "32", "--n", "4", "--dtype", "bf16", NULL };
  const char *fp32[] = { "--densities", "1/4", "--blocks", "4", "--m", "32",
                         "--k", "32", "--n", "4", "--dtype", "fp32", NULL };
  g_autoptr (JsonParser) p1 = json_parser_new ();
  JsonObject *root = sweep_json (p1, dir, bf16);
  JsonObject *s = json_object_get_object_member (root, "settings");
  assert_modes (s, "dense,static,dynamic");
  JsonArray *d = json_object_get_array_member (s, "densities");
  g_assert_cmpuint (json_array_get_length (d), ==, 1);
  g_assert_cmpfloat (json_array_get_double_element (d, 0), ==, 0.25);
  assert_one_thread (root);
  g_autoptr (JsonParser) p2 = json_parser_new ();
  root = sweep_json (p2, dir, fp32);
  assert_modes (json_object_get_object_member (root, "settings"),
                "dense,static,dynamic,tilewise");
  g_rmdir (dir);
}

/* Measured again on one thread, every CPU point: the settings are that
 * run's, its threads and the best dense its points were judged by. */
static void
test_measure_again_settings (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxMask) subject = spx_mask_new (32, 32, 1, &error);
  for (guint i = 0; i < 32; i += 3)
    spx_mask_set (subject, i, (i * 7) % 32);
  SpxSweepOptions o;
  spx_sweep_options_init (&o);
  spx_sweep_options_set_subject (&o, subject, "s");
  o.run_model = FALSE;
  o.blocks[0] = 1;
  o.n_blocks = 1;
  o.cpu_n = 4;
  o.threads = 0;
  o.reps = 5;
  o.warmup = 0;
  o.dtype = SPX_DTYPE_FP32;
  o.run_tilewise = FALSE;
  g_autoptr (SpxSweep) sweep = spx_sweep_new ();
  g_assert_true (spx_sweep_run (sweep, &o, NULL, NULL, &error));
  g_assert_no_error (error);
  const guint blocks[] = { 1 };
  g_assert_true (spx_sweep_measure_again (sweep, blocks, 1, 1, NULL, NULL,
                                          &error));
  g_assert_no_error (error);
  g_assert_cmpuint (sweep->settings.threads, ==, 1);
  /* the best dense of the new run: its dense point's rate, at least
   * (calibration may have run faster), taken from no earlier run */
  double dense_gflops = 0;
  for (guint i = 0; i < sweep->points->len; i++)
    {
      const SpxSweepPoint *p = &g_array_index (sweep->points, SpxSweepPoint,
                                               i);
      g_assert_cmpuint (p->threads, ==, 1);
      if (p->mode == SPX_SWEEP_DENSE)
        dense_gflops = p->nz_throughput / p->density;
    }
  g_assert_cmpfloat (sweep->best_dense_gflops, >=, dense_gflops * (1 - 1e-9));
  g_autofree char *json = spx_sweep_to_json (sweep);
  g_autoptr (JsonParser) parser = json_parser_new ();
  assert_one_thread (parse (parser, json));
}

/* ---- the same words everywhere ----------------------------------------- */

/* A file that is not there: exit 1 and the same words on every path,
 * with or without a command. */
static void
test_missing_file (void)
{
  const char *const paths[][8] = {
    { "nope.smtx", NULL },
    { "info", "nope.smtx", NULL },
    { "bench", "--mask", "nope.smtx", "--block", "2", NULL },
    { "model", "--mask", "nope.smtx", "--block", "2", NULL },
    { "render", "--view", "mask", "--mask", "nope.smtx", "--out", "x.png",
      NULL },
    { "sweep", "--mask", "nope.smtx", "--out", "x.csv", NULL },
    { "layers", "nope.smtx", NULL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      g_autoptr (GPtrArray) argv = g_ptr_array_new ();
      g_ptr_array_add (argv, (char *) test_binary ());
      for (guint j = 0; paths[i][j] != NULL; j++)
        g_ptr_array_add (argv, (char *) paths[i][j]);
      g_ptr_array_add (argv, NULL);
      int status;
      g_autofree char *err = NULL;
      g_autofree char *out = test_run ((const char *const *) argv->pdata,
                                       NULL, &status, &err);
      g_assert_cmpint (status, ==, 1);
      g_autofree char *want = i == 0
        ? g_strdup ("sparse-explorer: nope.smtx: No such file or directory\n")
        : g_strdup_printf ("sparse-explorer %s: nope.smtx: No such file or "
                           "directory\n", paths[i][0]);
      g_assert_cmpstr (err, ==, want);
    }
}

/* An unknown option suggests the nearest in every command; a word that
 * is nearly a command, that command. */
static void
test_did_you_mean (void)
{
  static const char *const cases[][3] = {
    { "info", "--jsn", "--json" },
    { "generate", "--ot", "--out" },
    { "bench", "--treads", "--threads" },
    { "model", "--machin", "--machine" },
    { "render", "--veiw", "--view" },
    { "sweep", "--treads", "--threads" },
    { "layers", "--treads", "--threads" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      int status;
      g_autofree char *err = NULL;
      g_autofree char *out = run (&status, &err, cases[i][0], cases[i][1],
                                  "2", NULL);
      g_assert_cmpint (status, ==, 2);
      g_autofree char *want = g_strdup_printf ("sparse-explorer %s: Unknown "
                                               "option %s: did you mean %s? "
                                               "(try 'sparse-explorer %s "
                                               "--help')\n", cases[i][0],
                                               cases[i][1], cases[i][2],
                                               cases[i][0]);
      g_assert_cmpstr (err, ==, want);
    }
  int status;
  g_autofree char *err = NULL;
  g_autofree char *out = run (&status, &err, "bnech", NULL);
  g_assert_cmpint (status, ==, 2);
  g_assert_cmpstr (err, ==, "sparse-explorer: 'bnech' is neither a command "
                   "nor a file (did you mean bench? try --help)\n");
}

/* The window's options too, before any file after them is looked for;
 * a missing file after a view is said as every command says it. */
static void
test_did_you_mean_window (void)
{
  static const struct {
    const char *args[3];
    int status;
    const char *err;
  } cases[] = {
    { { "--veiw", "mask" }, 2, "sparse-explorer: Unknown option --veiw: did "
      "you mean --view? (try --help)\n" },
    { { "--view", "tils" }, 2, "sparse-explorer: --view: expected one of "
      "mask, tiles, exchange, timeline, speedup, got 'tils' (did you mean "
      "tiles?)\n" },
    { { "--view", "mask", "nope.smtx" }, 1, "sparse-explorer: nope.smtx: No "
      "such file or directory\n" },
    { { "--lesosn", "nope.smtx" }, 2, "sparse-explorer: Unknown option "
      "--lesosn: did you mean --lesson? (try --help)\n" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      int status;
      g_autofree char *err = NULL;
      g_autofree char *out = run (&status, &err, cases[i].args[0],
                                  cases[i].args[1], cases[i].args[2], NULL);
      g_assert_cmpint (status, ==, cases[i].status);
      g_assert_cmpstr (err, ==, cases[i].err);
    }
}

/* A new folder holding one small layer (a.mtx); *layer its path. */
static char *
one_layer_folder (char **layer)
{
  char *dir = g_dir_make_tmp ("spx-test-defaults-XXXXXX", NULL);
  g_autofree char *tiny = data_path ("cli-tiny.mtx");
  g_autofree char *text = NULL;
  gsize len;
  g_assert_true (g_file_get_contents (tiny, &text, &len, NULL));
  *layer = g_build_filename (dir, "a.mtx", NULL);
  g_assert_true (g_file_set_contents (*layer, text, len, NULL));
  return dir;
}

/* A survey's settings name what its points ran: in bf16 no tile-wise
 * (a CPU fp32 plan), and the threads its CPU points ran on, not the 0
 * that asks for all cores; in fp32 tile-wise too. */
static void
test_layers_settings (void)
{
  g_autofree char *layer = NULL;
  g_autofree char *dir = one_layer_folder (&layer);
  const char *const dtypes[] = { "bf16", "fp32" };
  for (guint d = 0; d < G_N_ELEMENTS (dtypes); d++)
    {
      int status;
      g_autofree char *out = run (&status, NULL, "layers", dir, "--blocks",
                                  "1", "--n", "4", "--reps", "5", "--dtype",
                                  dtypes[d], "--json", NULL);
      g_assert_cmpint (status, ==, 0);
      g_autoptr (JsonParser) parser = json_parser_new ();
      JsonObject *root = parse (parser, out);
      JsonObject *s = json_object_get_object_member (root, "settings");
      JsonArray *modes = json_object_get_array_member (s, "modes");
      gboolean tilewise = FALSE;
      for (guint i = 0; i < json_array_get_length (modes); i++)
        tilewise |= g_str_equal (json_array_get_string_element (modes, i),
                                 "tilewise");
      g_assert_cmpint (tilewise, ==, d == 1);
      gint64 threads = json_object_get_int_member (s, "threads");
      g_assert_cmpint (threads, >=, 1);
      JsonObject *l = json_array_get_object_element (
        json_object_get_array_member (root, "layers"), 0);
      JsonArray *points = json_object_get_array_member (l, "points");
      guint cpu = 0;
      for (guint i = 0; i < json_array_get_length (points); i++)
        {
          JsonObject *p = json_array_get_object_element (points, i);
          if (!g_str_equal (json_object_get_string_member (p, "source"),
                            "cpu"))
            continue;
          g_assert_cmpint (json_object_get_int_member (p, "threads"), ==,
                           threads);
          g_assert_true (tilewise || !g_str_equal (
            json_object_get_string_member (p, "mode"), "tilewise"));
          cpu++;
        }
      g_assert_cmpuint (cpu, >, 0);
    }
  g_unlink (layer);
  g_rmdir (dir);
}

/* One layer on one thread: the survey's header counts them so. */
static void
test_plurals (void)
{
  g_autofree char *layer = NULL;
  g_autofree char *dir = one_layer_folder (&layer);
  int status;
  g_autofree char *out = run (&status, NULL, "layers", dir, "--source",
                              "cpu", "--threads", "1", "--blocks", "1",
                              "--n", "4", "--reps", "5", "--dtype", "fp32",
                              NULL);
  g_assert_cmpint (status, ==, 0);
  assert_has (out, ": 1 layer at n = 4; this CPU in fp32, 1 thread, "
              "median of 5 runs");
  g_unlink (layer);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli-defaults/help", test_help);
  g_test_add_func ("/cli-defaults/bench-default-n", test_bench_default_n);
  g_test_add_func ("/cli-defaults/bench-densities", test_bench_densities);
  g_test_add_func ("/cli-defaults/model-densities", test_model_densities);
  g_test_add_func ("/cli-defaults/sweep-file-mask", test_sweep_file_mask);
  g_test_add_func ("/cli-defaults/sweep-generated-modes",
                   test_sweep_generated_modes);
  g_test_add_func ("/cli-defaults/measure-again-settings",
                   test_measure_again_settings);
  g_test_add_func ("/cli-defaults/missing-file", test_missing_file);
  g_test_add_func ("/cli-defaults/did-you-mean", test_did_you_mean);
  g_test_add_func ("/cli-defaults/did-you-mean-window",
                   test_did_you_mean_window);
  g_test_add_func ("/cli-defaults/plurals", test_plurals);
  g_test_add_func ("/cli-defaults/layers-settings", test_layers_settings);
  return g_test_run ();
}
