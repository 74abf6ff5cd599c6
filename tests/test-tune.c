/* test-tune.c: kernels chosen by timing, remembered in the cache file,
 * which is never trusted when it is not ours */
#include "spx-engine-tune.h"
#include "spx-engine-tune-private.h"
#include "spx-mask.h"
#include "test-run.h"

#include <json-glib/json-glib.h>

#include <glib/gstdio.h>
#include <string.h>

/* Each case: measuring on, a cache folder of its own, nothing
 * remembered by the process. */
typedef struct {
  char *dir, *path;
} Fixture;

static void
setup (Fixture *f, gconstpointer data)
{
  f->dir = g_dir_make_tmp ("spx-test-tune-XXXXXX", NULL);
  g_setenv ("XDG_CACHE_HOME", f->dir, TRUE);
  g_setenv ("SPX_TUNE", "1", TRUE);
  spx_tune_set_measuring (TRUE);
  spx_tune_forget ();
  f->path = spx_tune_cache_path ();
  g_autofree char *want = g_build_filename (f->dir, "sparse-explorer",
                                            "kernels.ini", NULL);
  g_assert_cmpstr (f->path, ==, want);
}

static void
teardown (Fixture *f, gconstpointer data)
{
  g_unlink (f->path);
  g_autofree char *sub = g_path_get_dirname (f->path);
  g_rmdir (sub);
  g_rmdir (f->dir);
  g_free (f->path);
  g_free (f->dir);
}

/* A small static plan of type at blocks of b: how its kernel was chosen,
 * and which. */
static SpxKernelChoice
plan_choice (SpxCpuType type, guint b, guint64 n, const char **kernel)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxMask) mask = spx_mask_new (4 * b, 4 * b, b, &error);
  g_assert_no_error (error);
  spx_mask_set (mask, 1, 2);
  float *values = g_new0 (float, b * b);
  SpxEngineOptions o = { .threads = 1, .isa = SPX_ISA_GENERIC,
                         .pick = SPX_PICK_TUNED, .type = type };
  g_autoptr (SpxStaticPlan) plan = spx_static_plan_new (mask, values, n, &o,
                                                        &error);
  g_assert_no_error (error);
  g_free (values);
  static char name[32];
  g_strlcpy (name, spx_static_plan_kernel (plan), sizeof name);
  if (kernel != NULL)
    *kernel = name;
  return spx_static_plan_kernel_choice (plan);
}

/* Whether SpMM on type at blocks of b has kernels to choose between
 * here (else the case is skipped: nothing is timed or read). */
static gboolean
has_choice (SpxCpuType type, guint b)
{
  SpxIsa isas[SPX_ISA_COUNT];
  if (spx_tune_candidates (SPX_TUNE_SPMM, type, b, isas) > 1)
    return TRUE;
  g_test_skip ("one kernel set on this processor: nothing to time or read");
  return FALSE;
}

static char *
contents (const char *path)
{
  char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

static void
write_cache (const Fixture *f, const char *text)
{
  g_autofree char *sub = g_path_get_dirname (f->path);
  g_assert_cmpint (g_mkdir_with_parents (sub, 0755), ==, 0);
  g_assert_true (g_file_set_contents (f->path, text, -1, NULL));
}

/* n's size classes: 16, 64, 256, 1024, split at their geometric middles
 * (32, 128, 512). */
static void
test_classes (void)
{
  static const guint64 cases[][2] = {
    { 1, 16 }, { 32, 16 }, { 33, 64 }, { 128, 64 }, { 129, 256 },
    { 512, 256 }, { 513, 1024 }, { 1 << 20, 1024 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    g_assert_cmpuint (spx_tune_class_n (cases[i][0]), ==, cases[i][1]);
  g_autofree char *key = spx_tune_key (SPX_TUNE_SPMM, SPX_CPU_BF16, 16, 300,
                                       2);
  g_assert_cmpstr (key, ==, "spmm-bf16-b16-n256-t2");
}

/* Every candidate runs here; the default is one of them; a type or
 * block size always has one. */
static void
test_candidates (void)
{
  static const guint blocks[] = { 1, 2, 3, 4, 8, 16, 32 };
  for (SpxTuneOp op = 0; op < SPX_TUNE_N_OPS; op++)
    for (SpxCpuType t = SPX_CPU_FP32; t <= SPX_CPU_BF16; t++)
      for (guint i = 0; i < G_N_ELEMENTS (blocks); i++)
        {
          SpxIsa isas[SPX_ISA_COUNT];
          guint n = spx_tune_candidates (op, t, blocks[i], isas);
          g_assert_cmpuint (n, >=, 1);
          SpxIsa def = spx_tune_default (op, t, blocks[i]);
          gboolean found = FALSE;
          for (guint j = 0; j < n; j++)
            {
              g_assert_true (spx_isa_supported (isas[j]));
              found |= isas[j] == def;
            }
          g_assert_true (found);
        }
}

/* Timed the first time, then remembered by the process; written to the
 * cache when the timing was steady, and then remembered by a new
 * process from the file. */
static void
test_measured_then_remembered (Fixture *f, gconstpointer data)
{
  if (!has_choice (SPX_CPU_BF16, 16))
    return;
  const char *kernel;
  g_assert_cmpint (plan_choice (SPX_CPU_BF16, 16, 40, &kernel), ==,
                   SPX_KERNEL_MEASURED);
  g_autofree char *first = g_strdup (kernel);
  g_assert_cmpint (plan_choice (SPX_CPU_BF16, 16, 50, &kernel), ==,
                   SPX_KERNEL_REMEMBERED);
  g_assert_cmpstr (kernel, ==, first);
  /* another class of n is another choice */
  g_assert_cmpint (plan_choice (SPX_CPU_BF16, 16, 8, NULL), ==,
                   SPX_KERNEL_MEASURED);
  g_autoptr (GKeyFile) file = g_key_file_new ();
  g_autofree char *cpu = spx_tune_cpu_name ();
  gboolean written =
    g_key_file_load_from_file (file, f->path, 0, NULL) &&
    g_key_file_has_key (file, cpu, "spmm-bf16-b16-n64-t1", NULL);
  spx_tune_forget (); /* as a new process */
  g_assert_cmpint (plan_choice (SPX_CPU_BF16, 16, 64, &kernel), ==,
                   written ? SPX_KERNEL_REMEMBERED : SPX_KERNEL_MEASURED);
  if (written) /* the file is only written with what was chosen */
    g_assert_cmpstr (kernel, ==, first);
}

/* What is written is read back under this processor's group, with the
 * format line that makes the file ours; a plan then runs it. */
static void
test_written_then_read (Fixture *f, gconstpointer data)
{
  SpxIsa isas[SPX_ISA_COUNT];
  guint n = spx_tune_candidates (SPX_TUNE_SPMM, SPX_CPU_FP32, 2, isas);
  _spx_tune_cache_write ("spmm-fp32-b2-n1024-t1", isas[n - 1]);
  g_autoptr (GKeyFile) file = g_key_file_new ();
  g_assert_true (g_key_file_load_from_file (file, f->path, 0, NULL));
  g_assert_cmpint (g_key_file_get_integer (file, "sparse-explorer kernels",
                                           "format", NULL), ==, 1);
  g_assert_cmpint (g_key_file_get_integer (file, "sparse-explorer kernels",
                                           "kernels", NULL), ==,
                   SPX_TUNE_KERNELS_REVISION);
  g_autofree char *cpu = spx_tune_cpu_name ();
  g_autofree char *isa = g_key_file_get_string (file, cpu,
                                                "spmm-fp32-b2-n1024-t1", NULL);
  g_assert_cmpstr (isa, ==, spx_isa_to_string (isas[n - 1]));
  const char *kernel;
  SpxKernelChoice how = plan_choice (SPX_CPU_FP32, 2, 2000, &kernel);
  g_assert_cmpint (how, ==, n > 1 ? SPX_KERNEL_REMEMBERED
                                  : SPX_KERNEL_DEFAULT);
  g_assert_cmpstr (kernel, ==, spx_isa_to_string (isas[n - 1]));
}

/* The rule on times: a challenger must beat the default by 5% at its
 * best and win most rounds; steady when the pick was within 5% of every
 * round's fastest. */
static void
test_decide (void)
{
  static const struct {
    double times[SPX_TUNE_ROUNDS][3];
    guint pick;
    gboolean steady;
  } cases[] = {
    /* 1 is 20% faster every round */
    { { { 10, 8, 12 }, { 10, 8, 12 }, { 10, 8, 12 }, { 10, 8, 12 },
        { 10, 8, 12 } }, 1, TRUE },
    /* 1 is 2% faster: not enough, the default stays, steady */
    { { { 10, 9.8, 12 }, { 10, 9.8, 12 }, { 10, 9.8, 12 }, { 10, 9.8, 12 },
        { 10, 9.8, 12 } }, 0, TRUE },
    /* 2 is fastest once, by far (a quiet moment): not most rounds */
    { { { 10, 8, 5 }, { 10, 8, 12 }, { 10, 8, 12 }, { 10, 8, 12 },
        { 10, 8, 12 } }, 1, FALSE },
    /* rounds disagree: 1 wins three, the default two */
    { { { 10, 8, 12 }, { 7, 8, 12 }, { 10, 8, 12 }, { 7, 8, 12 },
        { 10, 8, 12 } }, 0, FALSE },
  };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      double times[SPX_TUNE_ROUNDS][SPX_ISA_COUNT];
      for (guint r = 0; r < SPX_TUNE_ROUNDS; r++)
        for (guint i = 0; i < 3; i++)
          times[r][i] = cases[c].times[r][i];
      gboolean steady;
      g_assert_cmpuint (_spx_tune_decide (times, 3, 0, &steady), ==,
                        cases[c].pick);
      g_assert_cmpint (steady, ==, cases[c].steady);
    }
}

/* The file's entry is what the plan runs, whichever candidate it names
 * (a choice made on this processor, perhaps by another run). */
static void
test_file_obeyed (Fixture *f, gconstpointer data)
{
  SpxIsa isas[SPX_ISA_COUNT];
  guint n = spx_tune_candidates (SPX_TUNE_SPMM, SPX_CPU_FP32, 4, isas);
  g_autofree char *cpu = spx_tune_cpu_name ();
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *text = g_strdup_printf (
        "[sparse-explorer kernels]\nformat=1\nkernels=%d\n\n[%s]\n"
        "spmm-fp32-b4-n256-t1=%s\n", SPX_TUNE_KERNELS_REVISION, cpu,
        spx_isa_to_string (isas[i]));
      write_cache (f, text);
      spx_tune_forget ();
      const char *kernel;
      g_assert_cmpint (plan_choice (SPX_CPU_FP32, 4, 256, &kernel), ==,
                       SPX_KERNEL_REMEMBERED);
      g_assert_cmpstr (kernel, ==, spx_isa_to_string (isas[i]));
    }
}

/* Choices timed on older kernels (an older revision, or none: the first
 * files) are timed again without a word; the next choice written
 * replaces them all under the current revision. */
static void
test_older_kernels (Fixture *f, gconstpointer data)
{
  SpxIsa isas[SPX_ISA_COUNT];
  guint n = spx_tune_candidates (SPX_TUNE_SPMM, SPX_CPU_FP32, 4, isas);
  if (n < 2)
    return;
  g_autofree char *cpu = spx_tune_cpu_name ();
  for (int rev = 0; rev < SPX_TUNE_KERNELS_REVISION; rev++)
    {
      g_autofree char *line = rev > 0 ? g_strdup_printf ("kernels=%d\n", rev)
                                      : g_strdup ("");
      g_autofree char *text = g_strdup_printf (
        "[sparse-explorer kernels]\nformat=1\n%s\n[%s]\n"
        "spmm-fp32-b4-n256-t1=%s\nspmm-fp32-b8-n64-t1=%s\n", line, cpu,
        spx_isa_to_string (isas[n - 1]), spx_isa_to_string (isas[n - 1]));
      write_cache (f, text);
      spx_tune_forget ();
      g_assert_cmpint (plan_choice (SPX_CPU_FP32, 4, 256, NULL), ==,
                       SPX_KERNEL_MEASURED);
      /* whether that choice was steady enough to write depends on the
       * machine's load; the next write is certain */
      _spx_tune_cache_write ("spmm-fp32-b2-n16-t1", isas[0]);
      g_autoptr (GKeyFile) file = g_key_file_new ();
      g_assert_true (g_key_file_load_from_file (file, f->path, 0, NULL));
      g_assert_cmpint (g_key_file_get_integer (file,
                                               "sparse-explorer kernels",
                                               "kernels", NULL), ==,
                       SPX_TUNE_KERNELS_REVISION);
      g_assert_false (g_key_file_has_key (file, cpu, "spmm-fp32-b8-n64-t1",
                                          NULL));
      g_autofree char *isa = g_key_file_get_string (file, cpu,
                                                    "spmm-fp32-b2-n16-t1",
                                                    NULL);
      g_assert_cmpstr (isa, ==, spx_isa_to_string (isas[0]));
    }
}

/* A file that is not ours, or an entry naming a kernel this processor
 * does not run, is said once and ignored: the choice is timed, and the
 * file stays as it was. */
static void
test_refused (Fixture *f, gconstpointer data)
{
  if (!has_choice (SPX_CPU_FP32, 4))
    return;
  g_autofree char *cpu = spx_tune_cpu_name ();
  g_autofree char *lying = g_strdup_printf (
    "[sparse-explorer kernels]\nformat=1\nkernels=%d\n[%s]\n"
    "spmm-fp32-b4-n16-t1=neon\n", SPX_TUNE_KERNELS_REVISION, cpu);
  const char *const files[] = {
    "\x89PNG\r\n\x1a\n not a key file [",
    "[other program]\nformat=1\n",
    "[sparse-explorer kernels]\nformat=2\n",
    lying,
  };
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      write_cache (f, files[i]);
      spx_tune_forget ();
      g_test_expect_message ("Spx", G_LOG_LEVEL_WARNING,
                             "*kernels.ini: *ignored, every kernel choice is "
                             "timed again*");
      SpxKernelChoice how = plan_choice (SPX_CPU_FP32, 4, 16, NULL);
      g_test_assert_expected_messages ();
      g_assert_cmpint (how, ==, SPX_KERNEL_MEASURED);
      /* said once: the next choice is quiet */
      plan_choice (SPX_CPU_FP32, 8, 16, NULL);
      g_autofree char *now = contents (f->path);
      g_assert_cmpstr (now, ==, files[i]);
    }
}

/* Measuring off (--no-tune, SPX_TUNE=0): the table's default, nothing
 * written; SPX_ISA's kernels, given, are forced. */
static void
test_off_and_forced (Fixture *f, gconstpointer data)
{
  spx_tune_set_measuring (FALSE);
  const char *kernel;
  g_assert_cmpint (plan_choice (SPX_CPU_BF16, 16, 256, &kernel), ==,
                   SPX_KERNEL_DEFAULT);
  spx_tune_set_measuring (TRUE);
  g_setenv ("SPX_TUNE", "0", TRUE);
  g_assert_cmpint (plan_choice (SPX_CPU_FP32, 1, 256, NULL), ==,
                   SPX_KERNEL_DEFAULT);
  g_assert_false (g_file_test (f->path, G_FILE_TEST_EXISTS));
  SpxEngineOptions o = { .isa = SPX_ISA_AVX2, .pick = SPX_PICK_GIVEN };
  SpxKernelChoice how;
  g_assert_cmpint (spx_tune_choose (SPX_TUNE_SPMM, SPX_CPU_BF16, 16, 64, &o,
                                    &how), ==, SPX_ISA_AVX2);
  g_assert_cmpint (how, ==, SPX_KERNEL_FORCED);
  g_assert_cmpstr (spx_kernel_choice_to_string (how), ==, "forced");
}

/* bench on a small product: its JSON's static.kernel_choice; stderr in
 * *err. */
static char *
bench_choice (const char *extra, char **err)
{
  const char *argv[] = { test_binary (), "bench", "--m", "64", "--k", "64",
                         "--n", "16", "--block", "4", "--threads", "1",
                         "--reps", "1", "--warmup", "0", "--json", extra,
                         NULL };
  int status;
  g_autofree char *out = test_run (argv, NULL, &status, err);
  g_assert_cmpint (status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_data (parser, out, -1, NULL));
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));
  JsonObject *stat = json_object_get_object_member (root, "static");
  return g_strdup (json_object_get_string_member (stat, "kernel_choice"));
}

/* The command line: a cache not ours is said once on stderr, the
 * program's way, and left as it was; --no-tune reads none; SPX_ISA
 * forces. */
static void
test_cli (Fixture *f, gconstpointer data)
{
  if (!has_choice (SPX_CPU_FP32, 4))
    return;
  write_cache (f, "garbage [\n");
  g_autofree char *err = NULL;
  g_autofree char *how = bench_choice (NULL, &err);
  g_assert_cmpstr (how, ==, "measured");
  g_autofree char *said = g_strdup_printf ("sparse-explorer bench: warning: "
                                           "%s: ", f->path);
  g_assert_nonnull (strstr (err, said));
  g_assert_nonnull (strstr (err, ": ignored, every kernel choice is timed "
                                 "again (delete it to let them be "
                                 "remembered)\n"));
  g_autofree char *now = contents (f->path);
  g_assert_cmpstr (now, ==, "garbage [\n");
  g_autofree char *err2 = NULL;
  g_autofree char *off = bench_choice ("--no-tune", &err2);
  g_assert_cmpstr (off, ==, "default");
  g_assert_null (strstr (err2, "warning"));
  g_setenv ("SPX_ISA", "generic", TRUE);
  g_autofree char *forced = bench_choice (NULL, NULL);
  g_unsetenv ("SPX_ISA");
  g_assert_cmpstr (forced, ==, "forced");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/tune/classes", test_classes);
  g_test_add_func ("/tune/candidates", test_candidates);
  g_test_add_func ("/tune/decide", test_decide);
  g_test_add ("/tune/written-then-read", Fixture, NULL, setup,
              test_written_then_read, teardown);
  g_test_add ("/tune/measured-then-remembered", Fixture, NULL, setup,
              test_measured_then_remembered, teardown);
  g_test_add ("/tune/file-obeyed", Fixture, NULL, setup, test_file_obeyed,
              teardown);
  g_test_add ("/tune/refused", Fixture, NULL, setup, test_refused, teardown);
  g_test_add ("/tune/older-kernels", Fixture, NULL, setup,
              test_older_kernels, teardown);
  g_test_add ("/tune/cli", Fixture, NULL, setup, test_cli, teardown);
  g_test_add ("/tune/off-and-forced", Fixture, NULL, setup,
              test_off_and_forced, teardown);
  return g_test_run ();
}
