/* test-scenario.c: scenarios and their .spx key files */
#include "spx-mask-io.h"
#include "spx-scenario.h"
#include "spx-util.h"

#include <glib/gstdio.h>
#include <string.h>

static char *tmp_dir;

static char *
tmp_path (const char *name)
{
  return g_build_filename (tmp_dir, name, NULL);
}

static void
test_defaults (void)
{
  g_autoptr (SpxScenario) s = spx_scenario_new ();
  g_assert_cmpuint (s->m, ==, 4096);
  g_assert_cmpuint (s->k, ==, 4096);
  g_assert_cmpuint (s->n, ==, 1024);
  g_assert_cmpuint (s->block, ==, 16);
  g_assert_cmpint (s->dtype, ==, SPX_DTYPE_FP16);
  g_assert_cmpstr (s->machine, ==, "bow");
  g_assert_cmpint (s->source, ==, SPX_MASK_SOURCE_GENERATED);
  g_assert_cmpint (s->gen.pattern, ==, SPX_PATTERN_UNIFORM);
  g_assert_cmpfloat (s->gen.density, ==, 1.0 / 16);
  g_assert_cmpuint (s->gen.seed, ==, 1);
  g_assert_true (spx_scenario_validate (s, NULL));
}

static void
assert_same (const SpxScenario *a, const SpxScenario *b)
{
  g_assert_cmpuint (a->m, ==, b->m);
  g_assert_cmpuint (a->k, ==, b->k);
  g_assert_cmpuint (a->n, ==, b->n);
  g_assert_cmpuint (a->block, ==, b->block);
  g_assert_cmpint (a->dtype, ==, b->dtype);
  g_assert_cmpstr (a->machine, ==, b->machine);
  g_assert_cmpuint (a->threads, ==, b->threads);
  g_assert_cmpint (a->source, ==, b->source);
  g_assert_cmpint (a->gen.pattern, ==, b->gen.pattern);
  g_assert_cmpfloat (a->gen.density, ==, b->gen.density);
  g_assert_cmpuint (a->gen.seed, ==, b->gen.seed);
  g_assert_cmpuint (a->gen.tile_width, ==, b->gen.tile_width);
  g_assert_cmpuint (a->gen.nm_n, ==, b->gen.nm_n);
  g_assert_cmpuint (a->gen.nm_m, ==, b->gen.nm_m);
  g_assert_cmpuint (a->gen.band, ==, b->gen.band);
  g_assert_cmpfloat (a->gen.exponent, ==, b->gen.exponent);
}

/* Each side's numbers: the IPU has no bf16, the CPU no fp16. */
static void
test_dtypes (void)
{
  static const struct { const char *name; SpxDtype ipu; gboolean bf16;
                        const char *label; } cases[] = {
    { "fp16", SPX_DTYPE_FP16, TRUE, "CPU bf16 / IPU fp16" },
    { "fp32", SPX_DTYPE_FP32, FALSE, "fp32" },
    { "bf16", SPX_DTYPE_FP16, TRUE, "CPU bf16 / IPU fp16" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      SpxDtype d;
      g_assert_true (spx_dtype_from_string (cases[i].name, &d));
      g_assert_cmpstr (spx_dtype_to_string (d), ==, cases[i].name);
      g_assert_cmpint (spx_dtype_on_ipu (d), ==, cases[i].ipu);
      g_assert_cmpint (spx_dtype_cpu_bf16 (d), ==, cases[i].bf16);
      g_autofree char *label = spx_dtype_label (d);
      g_assert_cmpstr (label, ==, cases[i].label);
    }
  SpxDtype d = SPX_DTYPE_FP32;
  g_assert_false (spx_dtype_from_string ("BF16", &d));
  g_assert_false (spx_dtype_from_string ("fp8", &d));
  g_assert_cmpint (d, ==, SPX_DTYPE_FP32);
  /* a bf16 scenario survives its file */
  g_autoptr (SpxScenario) s = spx_scenario_new ();
  s->dtype = SPX_DTYPE_BF16;
  gsize len;
  g_autofree char *data = spx_scenario_to_data (s, &len);
  g_assert_nonnull (strstr (data, "dtype=bf16\n"));
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxScenario) back = spx_scenario_load_data ("b.spx", data, len,
                                                         &error);
  g_assert_no_error (error);
  g_assert_cmpint (back->dtype, ==, SPX_DTYPE_BF16);
}

static void
test_round_trip_generated (void)
{
  g_autoptr (SpxScenario) s = spx_scenario_new ();
  s->m = 1000;
  s->k = 300;
  s->n = 17;
  s->block = 4;
  s->dtype = SPX_DTYPE_FP32;
  g_free (s->machine);
  s->machine = g_strdup ("teach16");
  s->threads = 2;
  s->gen.pattern = SPX_PATTERN_NM;
  s->gen.density = 0.1234567890123; /* must survive exactly */
  s->gen.seed = G_MAXUINT64;
  s->gen.nm_n = 1;
  s->gen.nm_m = 8;
  s->gen.exponent = 1.5;
  g_autofree char *path = tmp_path ("gen.spx");
  g_autoptr (GError) error = NULL;
  g_assert_true (spx_scenario_save (s, path, SPX_SAVE_DEFAULT, &error));
  g_assert_no_error (error);
  g_autoptr (SpxScenario) back = spx_scenario_load (path, &error);
  g_assert_no_error (error);
  assert_same (s, back);
  g_unlink (path);
}

/* A hand-drawn mask with ragged edges comes back bit for bit. */
static void
test_round_trip_drawn (void)
{
  g_autoptr (SpxScenario) s = spx_scenario_new ();
  SpxMask *mask = spx_mask_new (70, 45, 8, NULL); /* 9 × 6 blocks */
  spx_mask_set (mask, 0, 0);
  spx_mask_set (mask, 8, 5);
  spx_mask_set (mask, 4, 2);
  spx_mask_set (mask, 3, 5);
  g_autoptr (SpxMask) expected = spx_mask_copy (mask, NULL);
  spx_scenario_set_drawn_mask (s, mask);
  g_assert_cmpuint (s->m, ==, 70);
  g_assert_cmpuint (s->k, ==, 45);
  g_assert_cmpuint (s->block, ==, 8);
  g_autofree char *path = tmp_path ("drawn.spx");
  g_autoptr (GError) error = NULL;
  g_assert_true (spx_scenario_save (s, path, SPX_SAVE_DEFAULT, &error));
  g_assert_no_error (error);
  g_autoptr (SpxScenario) back = spx_scenario_load (path, &error);
  g_assert_no_error (error);
  assert_same (s, back);
  g_assert_nonnull (back->mask);
  g_assert_true (spx_mask_equal (back->mask, expected));
  g_unlink (path);
}

typedef struct {
  const char *text;
  int         code;
  const char *needle;
} BadFile;

static const char head[] =
  "[scenario]\nversion=1\nm=64\nk=32\nn=8\nblock=4\n";

static void
test_refusals (void)
{
  const BadFile bad[] = {
    /* where, without quoting the line */
    { "not a key file at all", SPX_SCENARIO_ERROR_INVALID,
      "bad.spx:1: not a scenario" },
    { "# ok\n[scenario]\nversion=1\n\nno value here\n",
      SPX_SCENARIO_ERROR_INVALID, "bad.spx:5: not a scenario key file (" },
    { "[mask]\nsource=generated\n", SPX_SCENARIO_ERROR_INVALID, "[scenario]" },
    { "[scenario]\nversion=3\nm=1\nk=1\nn=1\nblock=1\n",
      SPX_SCENARIO_ERROR_VERSION, "newer" },
    /* kept sweeps: numbered from 1, each with its JSON */
    { "[scenario]\nversion=2\nm=1\nk=1\nn=1\nblock=1\n[sweep 1]\n"
      "subject-rows=1\n", SPX_SCENARIO_ERROR_INVALID,
      "[sweep 1] json: missing" },
    { "[scenario]\nversion=2\nm=1\nk=1\nn=1\nblock=1\n[sweep 0]\njson=x\n",
      SPX_SCENARIO_ERROR_INVALID, "[sweep 0]: unknown group" },
    { "[scenario]\nversion=2\nm=1\nk=1\nn=1\nblock=1\n[sweep 1]\njson=x\n"
      "subject-bits=AA\nsubject-rows=1\nsubject-cols=1\nsubject-block=1\n",
      SPX_SCENARIO_ERROR_INVALID, "[sweep 1] subject-count: missing" },
    { "[scenario]\nm=1\nk=1\nn=1\nblock=1\n", SPX_SCENARIO_ERROR_INVALID,
      "version: missing" },
    { "[scenario]\nversion=1\nk=1\nn=1\nblock=1\n", SPX_SCENARIO_ERROR_INVALID,
      "[scenario] m: missing" },
    { "[scenario]\nversion=1\nm=abc\nk=1\nn=1\nblock=1\n",
      SPX_SCENARIO_ERROR_INVALID, "got 'abc'" },
    { "[scenario]\nversion=1\nm=0\nk=1\nn=1\nblock=1\n",
      SPX_SCENARIO_ERROR_INVALID, "[scenario] m" },
    { "[scenario]\nversion=1\nm=1\nk=1\nn=1\nblock=1\ncolour=blue\n",
      SPX_SCENARIO_ERROR_INVALID, "colour: unknown key" },
    { "[scenario]\nversion=1\nm=1\nk=1\nn=1\nblock=1\ndtype=fp8\n",
      SPX_SCENARIO_ERROR_INVALID, "dtype" },
    { "[scenario]\nversion=1\nm=1\nk=1\nn=1\nblock=1\n[extra]\na=1\n",
      SPX_SCENARIO_ERROR_INVALID, "[extra]" },
    /* more threads than the format holds, or than this machine runs */
    { "[scenario]\nversion=1\nm=1\nk=1\nn=1\nblock=1\nthreads=1025\n",
      SPX_SCENARIO_ERROR_INVALID, "[scenario] threads: expected a whole "
      "number from 0 to 1024, got '1025'" },
    { "[scenario]\nversion=1\nm=1\nk=1\nn=1\nblock=1\nmachine=\xff\n",
      SPX_SCENARIO_ERROR_INVALID, "[scenario] machine: expected UTF-8 text "
      "(escapes \\s \\t \\n \\r \\\\), got '\\xff'" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (SpxScenario) s =
        spx_scenario_load_data ("bad.spx", bad[i].text, strlen (bad[i].text),
                                &error);
      g_assert_null (s);
      g_assert_error (error, SPX_SCENARIO_ERROR, bad[i].code);
      g_assert_true (g_str_has_prefix (error->message, "bad.spx:"));
      g_assert_null (strstr (error->message, "no value"));
      if (strstr (error->message, bad[i].needle) == NULL)
        g_error ("case %u: '%s' lacks '%s'", i, error->message, bad[i].needle);
    }
}

static void
test_mask_refusals (void)
{
  const BadFile bad[] = {
    { "[mask]\nsource=painted\n", SPX_SCENARIO_ERROR_INVALID, "source" },
    { "[mask]\ndensity=1.5\n", SPX_SCENARIO_ERROR_INVALID, "density" },
    { "[mask]\ndensity=nan\n", SPX_SCENARIO_ERROR_INVALID, "density" },
    { "[mask]\npattern=zigzag\n", SPX_SCENARIO_ERROR_INVALID, "pattern" },
    { "[mask]\nnm=5:4\n", SPX_SCENARIO_ERROR_INVALID, "nm" },
    { "[mask]\nsource=file\n", SPX_SCENARIO_ERROR_INVALID, "path" },
    { "[mask]\nsource=file\npath=a\xc3" "b\n", SPX_SCENARIO_ERROR_INVALID,
      "[mask] path: expected UTF-8 text (escapes \\s \\t \\n \\r \\\\), got "
      "'a\\xc3b'" },
    { "[mask]\nsource=drawn\n", SPX_SCENARIO_ERROR_INVALID, "bits" },
    /* 16 × 8 blocks = 128 bits = 16 bytes = 24 base64 characters */
    { "[mask]\nsource=drawn\ncount=1\nbits=AAAA\n", SPX_SCENARIO_ERROR_INVALID,
      "length" },
    { "[mask]\nsource=drawn\ncount=1\nbits=AAAAAAAAAAAAAAAAAAAAAA==\n",
      SPX_SCENARIO_ERROR_INVALID, "count" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *text = g_strconcat (head, bad[i].text, NULL);
      g_autoptr (GError) error = NULL;
      g_autoptr (SpxScenario) s =
        spx_scenario_load_data ("bad.spx", text, strlen (text), &error);
      g_assert_null (s);
      g_assert_error (error, SPX_SCENARIO_ERROR, bad[i].code);
      if (strstr (error->message, bad[i].needle) == NULL)
        g_error ("case %u: '%s' lacks '%s'", i, error->message, bad[i].needle);
    }
}

/* threads: at most spx_max_threads, loaded or saved, the message naming
 * the file, the key and the limit. */
static void
test_threads (void)
{
  guint most = spx_max_threads ();
  g_autofree char *text = g_strdup_printf ("[scenario]\nversion=1\nm=1\nk=1"
                                           "\nn=1\nblock=1\nthreads=%u\n",
                                           most);
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxScenario) ok = spx_scenario_load_data ("t.spx", text,
                                                       strlen (text), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ok->threads, ==, most);
  g_assert_true (spx_scenario_check_threads (ok, "t.spx", &error));
  g_assert_no_error (error);
  /* a file from a bigger machine opens; measuring here is refused */
  g_autofree char *many = g_strdup ("[scenario]\nversion=1\nm=1\nk=1\nn=1\n"
                                    "block=1\nthreads=1024\n");
  g_autoptr (SpxScenario) big = spx_scenario_load_data ("t.spx", many,
                                                        strlen (many), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (big->threads, ==, 1024);
  if (most < 1024)
    {
      g_assert_false (spx_scenario_check_threads (big, "t.spx", &error));
      g_assert_error (error, SPX_SCENARIO_ERROR, SPX_SCENARIO_ERROR_INVALID);
      g_autofree char *limit = spx_max_threads_text ();
      g_autofree char *want = g_strdup_printf (
        "t.spx: [scenario] threads: 1024 is more than this machine runs: "
        "expected 0 (all cores) to %s", limit);
      g_assert_cmpstr (error->message, ==, want);
      g_clear_error (&error);
    }
  /* beyond what the format holds: a bad file, and never saved */
  g_autofree char *bad = g_strdup ("[scenario]\nversion=1\nm=1\nk=1\nn=1\n"
                                   "block=1\nthreads=1025\n");
  g_assert_null (spx_scenario_load_data ("t.spx", bad, strlen (bad), &error));
  g_assert_error (error, SPX_SCENARIO_ERROR, SPX_SCENARIO_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "t.spx: [scenario] threads"));
  g_clear_error (&error);
  big->threads = 1025;
  g_autofree char *path = tmp_path ("threads.spx");
  g_assert_false (spx_scenario_save (big, path, SPX_SAVE_DEFAULT, &error));
  g_assert_error (error, SPX_SCENARIO_ERROR, SPX_SCENARIO_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "1024"));
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
}

/* Lines ending in CR alone (old Mac files) are lines. */
static void
test_cr_lines (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data",
                                                 "hostile", "msg-cr-lines.spx",
                                                 NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxScenario) s = spx_scenario_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (s->m, ==, 64);
  g_assert_cmpuint (s->block, ==, 4);
  g_assert_cmpstr (s->machine, ==, "teach16");
}

/* A save replaces the file whole and leaves no temporary files; a failed
 * save names the path and leaves the old file as it was. */
static void
test_atomic_save (void)
{
  g_autofree char *sub = tmp_path ("atomic");
  g_mkdir (sub, 0700);
  g_autofree char *path = g_build_filename (sub, "s.spx", NULL);
  g_assert_true (g_file_set_contents (path, "old contents", -1, NULL));
  g_autoptr (SpxScenario) s = spx_scenario_new ();
  g_autoptr (GError) error = NULL;
  g_assert_true (spx_scenario_save (s, path, SPX_SAVE_DEFAULT, &error));
  g_autoptr (GDir) dir = g_dir_open (sub, 0, NULL);
  guint files = 0;
  while (g_dir_read_name (dir) != NULL)
    files++;
  g_assert_cmpuint (files, ==, 1);
  g_autoptr (SpxScenario) back = spx_scenario_load (path, &error);
  g_assert_no_error (error);
  assert_same (s, back);

  s->m = 0; /* invalid: refused before anything is written */
  g_assert_false (spx_scenario_save (s, path, SPX_SAVE_DEFAULT, &error));
  g_assert_error (error, SPX_SCENARIO_ERROR, SPX_SCENARIO_ERROR_INVALID);
  g_clear_error (&error);
  g_autoptr (SpxScenario) still = spx_scenario_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (still->m, ==, 4096);

  s->m = 4096;
  g_assert_false (spx_scenario_save (s, "/nonexistent-dir/s.spx",
                                     SPX_SAVE_DEFAULT, &error));
  g_assert_nonnull (strstr (error->message, "/nonexistent-dir/s.spx"));
  g_unlink (path);
  g_rmdir (sub);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  tmp_dir = g_dir_make_tmp ("spx-scenario-XXXXXX", NULL);
  g_test_add_func ("/scenario/defaults", test_defaults);
  g_test_add_func ("/scenario/dtypes", test_dtypes);
  g_test_add_func ("/scenario/round-trip/generated", test_round_trip_generated);
  g_test_add_func ("/scenario/round-trip/drawn", test_round_trip_drawn);
  g_test_add_func ("/scenario/refusals", test_refusals);
  g_test_add_func ("/scenario/mask-refusals", test_mask_refusals);
  g_test_add_func ("/scenario/threads", test_threads);
  g_test_add_func ("/scenario/cr-lines", test_cr_lines);
  g_test_add_func ("/scenario/atomic-save", test_atomic_save);
  int status = g_test_run ();
  g_rmdir (tmp_dir);
  g_free (tmp_dir);
  return status;
}
