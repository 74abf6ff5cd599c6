/* test-cli.c: the built sparse-explorer binary, run as a user would */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <grp.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spx-config.h"
#include "test-files.h"
#include "test-dlmc.h"

typedef struct {
  int   status;
  char *out, *err;
} Run;

static void
run_clear (Run *r)
{
  g_free (r->out);
  g_free (r->err);
}

/* Extra environment for the next runs (NULL: inherit as is). */
static char **run_env;

#define NOBODY 65534

/* Whether the next runs are an ordinary user's: nobody when the tests
 * run as root (as in CI), since root may write any file. */
static gboolean run_ordinary;

static void
become_nobody (gpointer data)
{
  if (geteuid () == 0 && (setgroups (0, NULL) != 0 || setgid (NOBODY) != 0 ||
                          setuid (NOBODY) != 0))
    _exit (126);
}

/* Run the binary in cwd (NULL: this one); argv ends in NULL. */
static Run
run_argv (const char *cwd, GPtrArray *argv)
{
  Run r = { 0 };
  int wait_status = 0;
  g_autoptr (GError) error = NULL;
  g_spawn_sync (cwd, (char **) argv->pdata, run_env, G_SPAWN_DEFAULT,
                run_ordinary ? become_nobody : NULL, NULL, &r.out, &r.err,
                &wait_status, &error);
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  r.status = WEXITSTATUS (wait_status);
  return r;
}

static GPtrArray *
new_argv (void)
{
  const char *binary = g_getenv ("SPX_BINARY");
  g_assert_nonnull (binary);
  GPtrArray *argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (char *) binary);
  return argv;
}

/* Run the binary in cwd (NULL: this one) with the arguments given. */
static Run
run_cli_va (const char *cwd, const char *first, va_list args)
{
  g_autoptr (GPtrArray) argv = new_argv ();
  for (const char *a = first; a != NULL; a = va_arg (args, const char *))
    g_ptr_array_add (argv, (char *) a);
  g_ptr_array_add (argv, NULL);
  return run_argv (cwd, argv);
}

/* The same with the arguments in a NULL-terminated array. */
static Run
run_cli_strv (const char *const *args)
{
  g_autoptr (GPtrArray) argv = new_argv ();
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  return run_argv (NULL, argv);
}

/* Run the binary with the given arguments (NULL-terminated). */
static Run
run_cli (const char *first, ...)
{
  va_list args;
  va_start (args, first);
  Run r = run_cli_va (NULL, first, args);
  va_end (args);
  return r;
}

static Run
run_cli_in (const char *cwd, const char *first, ...)
{
  va_list args;
  va_start (args, first);
  Run r = run_cli_va (cwd, first, args);
  va_end (args);
  return r;
}

static char *
data_path (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", name, NULL);
}

static guint
count_lines (const char *text)
{
  guint n = 0;
  for (const char *p = text; *p; p++)
    n += *p == '\n';
  return n;
}

/* A usage error: exit 2, one line on stderr naming what is wrong. */
static void
assert_usage_error (Run *r, const char *needle)
{
  g_assert_cmpint (r->status, ==, 2);
  g_assert_cmpuint (count_lines (r->err), ==, 1);
  g_assert_nonnull (strstr (r->err, needle));
  run_clear (r);
}

/* A bad input file or a failed write: exit 1, one line naming it. */
static void
assert_input_error (Run *r, const char *needle)
{
  g_assert_cmpint (r->status, ==, 1);
  g_assert_cmpuint (count_lines (r->err), ==, 1);
  if (strstr (r->err, needle) == NULL)
    g_error ("'%s' lacks '%s'", r->err, needle);
  run_clear (r);
}

static JsonObject *
parse_object (JsonParser *parser, const char *text)
{
  g_autoptr (GError) error = NULL;
  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  JsonNode *root = json_parser_get_root (parser);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
  return json_node_get_object (root);
}

static void
assert_summary (JsonObject *obj, const char *key, double min, double mean,
                double max, double stddev)
{
  JsonObject *s = json_object_get_object_member (obj, key);
  g_assert_nonnull (s);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (s, "min"), min, 1e-9);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (s, "mean"), mean, 1e-9);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (s, "max"), max, 1e-9);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (s, "stddev"), stddev, 1e-9);
}

static void
test_help_version (void)
{
  Run r = run_cli ("--help", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "info"));
  g_assert_nonnull (strstr (r.out, "generate"));
  run_clear (&r);
  r = run_cli ("--version", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "sparse-explorer "));
  run_clear (&r);
  r = run_cli ("generate", "--help", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "--pattern"));
  run_clear (&r);
  /* each command's usage line names the program, as it is typed */
  r = run_cli ("info", "--help", NULL);
  g_assert_true (g_str_has_prefix (r.out, "Usage:\n  sparse-explorer info "
                                          "[OPTION…] FILE\n"));
  run_clear (&r);
  r = run_cli ("sweep", "--bogus", NULL);
  g_assert_nonnull (strstr (r.err, "try 'sparse-explorer sweep --help'"));
  run_clear (&r);
  r = run_cli ("frobnicate", NULL);
  assert_usage_error (&r, "frobnicate");
}

/* Hand-computed from tests/data/cli-tiny.mtx (see its comment). */
static void
test_info_json (void)
{
  g_autofree char *path = data_path ("cli-tiny.mtx");
  Run r = run_cli ("info", path, "--block", "2", "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *o = parse_object (parser, r.out);
  g_assert_cmpstr (json_object_get_string_member (o, "file"), ==, path);
  g_assert_cmpstr (json_object_get_string_member (o, "format"), ==, "mtx");
  g_assert_cmpint (json_object_get_int_member (o, "rows"), ==, 6);
  g_assert_cmpint (json_object_get_int_member (o, "cols"), ==, 5);
  g_assert_cmpint (json_object_get_int_member (o, "nnz"), ==, 7);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (o, "density"),
                                  7.0 / 30.0, 1e-9);
  g_assert_cmpint (json_object_get_int_member (o, "block"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (o, "nonzero_blocks"), ==, 5);
  g_assert_cmpfloat_with_epsilon (
    json_object_get_double_member (o, "block_density"), 5.0 / 9.0, 1e-9);
  assert_summary (o, "blocks_per_row", 1, 5.0 / 3, 3, sqrt (8.0 / 9));
  assert_summary (o, "blocks_per_col", 1, 5.0 / 3, 2, sqrt (2.0 / 9));
  g_assert_true (json_object_get_double_member (o, "load_ms") >= 0);
  run_clear (&r);
}

static void
test_info_table (void)
{
  g_autofree char *path = data_path ("cli-tiny.mtx");
  Run r = run_cli ("info", path, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "6 × 5"));
  g_assert_nonnull (strstr (r.out, "non-zeros        7"));
  run_clear (&r);
}

static void
test_info_errors (void)
{
  Run r = run_cli ("info", NULL);
  assert_usage_error (&r, "FILE");
  g_autofree char *path = data_path ("cli-tiny.mtx");
  r = run_cli ("info", path, "--block", "0", NULL);
  assert_usage_error (&r, "--block");
  r = run_cli ("info", path, "--block", "abc", NULL);
  assert_usage_error (&r, "--block");
  r = run_cli ("info", path, "--bogus", NULL);
  assert_usage_error (&r, "--bogus");
  r = run_cli ("info", path, path, NULL);
  assert_usage_error (&r, "one FILE");

  r = run_cli ("info", "/nonexistent/mask.mtx", NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "/nonexistent/mask.mtx"));
  run_clear (&r);

  /* A malformed file: exit 1, the message names the file and the line. */
  g_autofree char *dir = g_dir_make_tmp ("spx-cli-XXXXXX", NULL);
  g_autofree char *bad = g_build_filename (dir, "bad.mtx", NULL);
  g_assert_true (g_file_set_contents (
    bad, "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n3 1\n", -1,
    NULL));
  r = run_cli ("info", bad, NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_autofree char *where = g_strdup_printf ("%s:3", bad);
  g_assert_nonnull (strstr (r.err, where));
  run_clear (&r);
  g_unlink (bad);
  g_rmdir (dir);
}

/* uniform 64×48, b = 4, density 1/4: round(0.25 · 16 · 12) = 48 blocks of
 * 16 elements. Every format holds the same mask. */
static void
test_generate_formats (void)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-cli-XXXXXX", NULL);
  const char *exts[] = { "mtx", "smtx", "npy", "png" };
  g_autofree char *first = NULL;
  for (guint i = 0; i < G_N_ELEMENTS (exts); i++)
    {
      g_autofree char *name = g_strdup_printf ("u.%s", exts[i]);
      g_autofree char *out = g_build_filename (dir, name, NULL);
      Run r = run_cli ("generate", "--pattern", "uniform", "--rows", "64",
                       "--cols", "48", "--block", "4", "--density", "1/4",
                       "--seed", "7", "--out", out, NULL);
      g_assert_cmpint (r.status, ==, 0);
      run_clear (&r);
      r = run_cli ("info", out, "--block", "4", "--json", NULL);
      g_assert_cmpint (r.status, ==, 0);
      g_autoptr (JsonParser) parser = json_parser_new ();
      JsonObject *o = parse_object (parser, r.out);
      g_assert_cmpstr (json_object_get_string_member (o, "format"), ==, exts[i]);
      g_assert_cmpint (json_object_get_int_member (o, "rows"), ==, 64);
      g_assert_cmpint (json_object_get_int_member (o, "cols"), ==, 48);
      g_assert_cmpint (json_object_get_int_member (o, "nnz"), ==, 48 * 16);
      g_assert_cmpint (json_object_get_int_member (o, "nonzero_blocks"), ==, 48);
      /* Same statistics whatever the format. */
      JsonObject *rows = json_object_get_object_member (o, "blocks_per_row");
      g_autofree char *stats = g_strdup_printf (
        "%g %g", json_object_get_double_member (rows, "max"),
        json_object_get_double_member (rows, "stddev"));
      if (first == NULL)
        first = g_strdup (stats);
      g_assert_cmpstr (stats, ==, first);
      run_clear (&r);
      g_unlink (out);
    }
  g_rmdir (dir);
}

static char *
generate_bytes (const char *dir, const char *pattern, const char *seed,
                gsize *len)
{
  g_autofree char *out = g_build_filename (dir, "g.smtx", NULL);
  Run r = run_cli ("generate", "--pattern", pattern, "--rows", "256", "--cols",
                   "128", "--block", "8", "--density", "0.2", "--seed", seed,
                   "--out", out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  run_clear (&r);
  char *data = NULL;
  g_assert_true (g_file_get_contents (out, &data, len, NULL));
  g_unlink (out);
  return data;
}

static void
test_generate_reproducible (void)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-cli-XXXXXX", NULL);
  const char *patterns[] = { "uniform", "tilewise", "nm", "banded", "skewed",
                             "magnitude" };
  for (guint i = 0; i < G_N_ELEMENTS (patterns); i++)
    {
      gsize a_len, b_len, c_len;
      g_autofree char *a = generate_bytes (dir, patterns[i], "3", &a_len);
      g_autofree char *b = generate_bytes (dir, patterns[i], "3", &b_len);
      g_autofree char *c = generate_bytes (dir, patterns[i], "4", &c_len);
      g_assert_cmpmem (a, a_len, b, b_len);
      if (g_strcmp0 (patterns[i], "banded") != 0) /* banded has no randomness */
        g_assert_false (a_len == c_len && memcmp (a, c, a_len) == 0);
    }
  g_rmdir (dir);
}

static void
test_generate_errors (void)
{
  Run r = run_cli ("generate", "--pattern", "zigzag", "--rows", "8", "--cols",
                   "8", "--out", "x.mtx", NULL);
  assert_usage_error (&r, "--pattern");
  r = run_cli ("generate", "--pattern", "uniform", "--cols", "8", "--out",
               "x.mtx", NULL);
  assert_usage_error (&r, "--rows");
  r = run_cli ("generate", "--pattern", "uniform", "--rows", "8", "--cols",
               "8", "--density", "1.5", "--out", "x.mtx", NULL);
  assert_usage_error (&r, "--density");
  r = run_cli ("generate", "--pattern", "uniform", "--rows", "-8", "--cols",
               "8", "--out", "x.mtx", NULL);
  assert_usage_error (&r, "--rows");
  r = run_cli ("generate", "--pattern", "uniform", "--rows", "8", "--cols",
               "8", "--out", "x.txt", NULL);
  assert_usage_error (&r, "--out");
  r = run_cli ("generate", "--pattern", "nm", "--nm", "5:4", "--rows", "8",
               "--cols", "8", "--out", "x.mtx", NULL);
  assert_usage_error (&r, "--nm");
  r = run_cli ("generate", "--pattern", "uniform", "--rows", "8", "--cols",
               "8", "--out", "/nonexistent-dir/x.mtx", NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "/nonexistent-dir/x.mtx"));
  run_clear (&r);
}

static double
member (JsonObject *o, const char *path)
{
  g_auto (GStrv) parts = g_strsplit (path, ".", -1);
  for (guint i = 0; parts[i + 1] != NULL; i++)
    {
      g_assert_true (json_object_has_member (o, parts[i]));
      o = json_object_get_object_member (o, parts[i]);
    }
  const char *last = parts[g_strv_length (parts) - 1];
  if (!json_object_has_member (o, last))
    g_error ("bench --json lacks %s", path);
  return json_object_get_double_member (o, last);
}

/* The peers bench runs in its own process, and whether this build has
 * each (spx-config.h); the runner's peers come after them. */
static const struct { const char *name; gboolean built; } in_process[] = {
  { "librsb", SPX_HAVE_LIBRSB },
  { "libxsmm", SPX_HAVE_LIBXSMM },
  { "graphblas", SPX_HAVE_GRAPHBLAS },
  { "eigen", SPX_HAVE_EIGEN },
};

/* Each in-process peer of a bench --peers --json: ran and agrees with
 * dense when built, else says what to install. */
static void
assert_in_process_peers (JsonObject *o)
{
  JsonObject *peers = json_object_get_object_member (o, "peers");
  for (guint i = 0; i < G_N_ELEMENTS (in_process); i++)
    {
      const char *name = in_process[i].name;
      JsonObject *p = json_object_get_object_member (peers, name);
      g_autofree char *ms = g_strdup_printf ("peers.%s.ms", name);
      g_autofree char *q1 = g_strdup_printf ("peers.%s.ms_q1", name);
      g_autofree char *q3 = g_strdup_printf ("peers.%s.ms_q3", name);
      g_autofree char *err = g_strdup_printf ("peers.%s.max_rel_err", name);
      g_assert_nonnull (p);
      if (!in_process[i].built)
        {
          g_assert_false (json_object_get_boolean_member (p, "ran"));
          g_assert_nonnull (strstr (json_object_get_string_member (p, "note"),
                                    "not built: install"));
          continue;
        }
      if (!json_object_get_boolean_member (p, "ran"))
        g_error ("%s did not run: %s", name,
                 json_object_get_string_member (p, "note"));
      g_assert_true (member (o, ms) > 0);
      g_assert_true (member (o, q1) <= member (o, ms));
      g_assert_true (member (o, ms) <= member (o, q3));
      g_assert_true (member (o, err) < 1e-5);
      g_assert_cmpstr (json_object_get_string_member (p, "version"), !=, "");
      g_assert_cmpstr (json_object_get_string_member (p, "note"), !=, "");
    }
}

/* Keys present, numbers sane; timings themselves are never asserted. */
static void
test_bench_json (void)
{
  Run r = run_cli ("bench", "--m", "256", "--k", "200", "--n", "64", "--block",
                   "16", "--density", "0.1", "--reps", "3", "--warmup", "1",
                   "--threads", "2", "--peers", "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *o = parse_object (parser, r.out);
  g_assert_cmpfloat (member (o, "m"), ==, 256);
  g_assert_cmpfloat (member (o, "k"), ==, 200);
  g_assert_cmpfloat (member (o, "n"), ==, 64);
  g_assert_cmpfloat (member (o, "block"), ==, 16);
  g_assert_cmpfloat (member (o, "nonzero_blocks"), ==, 21); /* round(0.1·208) */
  g_assert_cmpfloat (member (o, "threads"), ==, 2);
  g_assert_cmpfloat (member (o, "reps"), ==, 3);
  g_assert_true (member (o, "density") > 0.05 && member (o, "density") < 0.15);
  g_assert_nonnull (json_object_get_string_member (o, "isa"));
  g_assert_true (member (o, "dense.ms") > 0 && member (o, "dense.gflops") > 0);
  const char *modes[] = { "static", "dynamic" };
  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *ms = g_strconcat (modes[i], ".ms", NULL);
      g_autofree char *nz = g_strconcat (modes[i], ".nz_gflops", NULL);
      g_autofree char *sp = g_strconcat (modes[i], ".speedup", NULL);
      g_autofree char *ef = g_strconcat (modes[i], ".efficiency", NULL);
      g_autofree char *er = g_strconcat (modes[i], ".max_rel_err", NULL);
      g_assert_true (member (o, ms) > 0 && member (o, nz) > 0);
      /* the median of per-round ratios, inside their middle half */
      g_autofree char *q1 = g_strconcat (sp, "_q1", NULL);
      g_autofree char *q3 = g_strconcat (sp, "_q3", NULL);
      g_assert_cmpfloat (member (o, q1), >, 0);
      g_assert_cmpfloat (member (o, q1), <=, member (o, sp));
      g_assert_cmpfloat (member (o, sp), <=, member (o, q3));
      g_assert_true (member (o, ef) > 0);
      g_assert_true (member (o, er) < 1e-5);
    }
  g_assert_true (member (o, "static.plan_ms") >= 0);
  /* every contestant's middle half of its runs, and the verdict */
  const char *all[] = { "dense", "static", "dynamic" };
  for (guint i = 0; i < G_N_ELEMENTS (all); i++)
    {
      g_autofree char *q1 = g_strconcat (all[i], ".ms_q1", NULL);
      g_autofree char *ms = g_strconcat (all[i], ".ms", NULL);
      g_autofree char *q3 = g_strconcat (all[i], ".ms_q3", NULL);
      g_assert_true (member (o, q1) <= member (o, ms));
      g_assert_true (member (o, ms) <= member (o, q3));
    }
  JsonObject *dense = json_object_get_object_member (o, "dense");
  g_assert_true (json_object_has_member (dense, "noisy"));
  g_assert_nonnull (json_object_get_string_member (dense, "core"));
  /* the reference is the faster library of those that ran and agree */
  const char *library = json_object_get_string_member (dense, "library");
  g_assert_true (member (o, "dense.libraries.openblas.ms") > 0);
  double fastest = member (o, "dense.libraries.openblas.ms");
  const char *expect = "OpenBLAS";
  JsonObject *libs = json_object_get_object_member (dense, "libraries");
  JsonObject *onednn = json_object_get_object_member (libs, "onednn");
  if (json_object_get_boolean_member (onednn, "ran"))
    {
      g_assert_true (member (o, "dense.libraries.onednn.max_rel_err") < 1e-4);
      if (member (o, "dense.libraries.onednn.ms") < fastest)
        {
          fastest = member (o, "dense.libraries.onednn.ms");
          expect = "oneDNN";
        }
    }
  else
    g_assert_nonnull (json_object_get_string_member (onednn, "note"));
  g_assert_cmpstr (library, ==, expect);
  g_assert_cmpfloat (member (o, "dense.ms"), ==, fastest);
  g_assert_true (json_object_has_member (o, "noise"));
  assert_in_process_peers (o);
  run_clear (&r);
}

static void
test_bench_mask_and_errors (void)
{
  g_autofree char *path = data_path ("cli-tiny.mtx");
  Run r = run_cli ("bench", "--mask", path, "--n", "5", "--block", "2",
                   "--mode", "static", "--reps", "1", "--warmup", "0", "--json",
                   NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *o = parse_object (parser, r.out);
  g_assert_cmpfloat (member (o, "nonzero_blocks"), ==, 5);
  g_assert_false (json_object_has_member (o, "dynamic"));
  g_assert_true (member (o, "static.max_rel_err") < 1e-5);
  run_clear (&r);

  /* --n has the shared default; --block none */
  r = run_cli ("bench", "--m", "64", "--k", "64", "--n", "8", NULL);
  assert_usage_error (&r, "--block is required");
  r = run_cli ("bench", "--m", "64", "--k", "64", "--n", "8", "--block", "4",
               "--mode", "sometimes", NULL);
  assert_usage_error (&r, "--mode");
  r = run_cli ("bench", "--m", "64", "--k", "64", "--n", "8", "--block", "4",
               "--threads", "0", NULL);
  assert_usage_error (&r, "--threads");
  r = run_cli ("bench", "--mask", path, "--m", "64", "--n", "8", "--block",
               "4", NULL);
  assert_usage_error (&r, "--mask");
  r = run_cli ("bench", "--mask", "/nonexistent/m.smtx", "--n", "8", "--block",
               "4", NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "/nonexistent/m.smtx"));
  run_clear (&r);
  run_env = g_environ_setenv (g_get_environ (), "SPX_ISA", "neon", TRUE);
  r = run_cli ("bench", "--m", "64", "--k", "64", "--n", "8", "--block", "4",
               NULL);
  g_strfreev (run_env);
  run_env = NULL;
  assert_usage_error (&r, "SPX_ISA");
}

/* SDDMM: dense and static only, checked against dense's P·Qᵀ. */
static void
test_bench_sddmm (void)
{
  Run r = run_cli ("bench", "--op", "sddmm", "--m", "100", "--k", "90",
                   "--n", "17", "--block", "8", "--density", "0.3", "--reps",
                   "3", "--warmup", "1", "--threads", "2", "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *o = parse_object (parser, r.out);
  g_assert_cmpstr (json_object_get_string_member (o, "op"), ==, "sddmm");
  g_assert_cmpfloat (member (o, "n"), ==, 17);
  /* 13 × 12 blocks of 8, round(0.3 · 156) kept */
  g_assert_cmpfloat (member (o, "nonzero_blocks"), ==, 47);
  g_assert_true (member (o, "static.ms") > 0);
  g_assert_true (member (o, "static.nz_gflops") > 0);
  g_assert_true (member (o, "static.max_rel_err") < 1e-5);
  g_assert_false (json_object_has_member (o, "dynamic"));
  run_clear (&r);

  r = run_cli ("bench", "--op", "sddm", "--m", "64", "--k", "64", "--n", "8",
               "--block", "4", NULL);
  assert_usage_error (&r, "--op");
  r = run_cli ("bench", "--op", "sddmm", "--m", "64", "--k", "64", "--n", "8",
               "--block", "4", "--mode", "dynamic", NULL);
  assert_usage_error (&r, "--mode dynamic");
}

/* Tile-wise runs beside static on a tile-wise mask, checked against
 * dense, and says how much of its work is non-zero; SDDMM has no
 * tile-wise plan. */
static void
test_bench_tilewise (void)
{
  Run r = run_cli ("bench", "--mode", "all", "--pattern", "tilewise",
                   "--tile-width", "16", "--m", "96", "--k", "80", "--n", "9",
                   "--block", "1", "--density", "0.25", "--reps", "3",
                   "--warmup", "1", "--threads", "2", "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *o = parse_object (parser, r.out);
  g_assert_true (json_object_has_member (o, "static"));
  g_assert_true (json_object_has_member (o, "dynamic"));
  g_assert_true (member (o, "tilewise.ms") > 0);
  g_assert_true (member (o, "tilewise.max_rel_err") < 1e-5);
  g_assert_true (member (o, "tilewise.plan_bytes") > 0);
  /* the generator keeps whole rows of each tile: nothing but non-zeros */
  g_assert_cmpfloat (member (o, "tilewise_fill"), ==, 1.0);
  run_clear (&r);

  r = run_cli ("bench", "--mode", "tilewise", "--m", "64", "--k", "64",
               "--n", "8", "--block", "4", "--density", "0.5", "--reps", "2",
               NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "tile-wise"));
  g_assert_null (strstr (r.out, "dynamic "));
  run_clear (&r);

  r = run_cli ("bench", "--op", "sddmm", "--mode", "tilewise", "--m", "64",
               "--k", "64", "--n", "8", "--block", "4", NULL);
  assert_usage_error (&r, "--mode tilewise");
  r = run_cli ("bench", "--mode", "tiles", "--m", "64", "--k", "64", "--n",
               "8", "--block", "4", NULL);
  assert_usage_error (&r, "--mode");
}

/* bf16: the plans' kernels and numbers named, the fastest dense of the
 * same values the reference; what runs fp32 only is refused. */
static void
test_bench_bf16 (void)
{
  Run r = run_cli ("bench", "--dtype", "bf16", "--m", "96", "--k", "80",
                   "--n", "24", "--block", "4", "--density", "0.25", "--reps",
                   "3", "--warmup", "1", "--threads", "2", "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *o = parse_object (parser, r.out);
  g_assert_cmpstr (json_object_get_string_member (o, "dtype"), ==, "bf16");
  JsonObject *st = json_object_get_object_member (o, "static");
  g_assert_cmpstr (json_object_get_string_member (st, "kernel"), !=, "");
  g_assert_true (member (o, "static.max_rel_err") < 1e-4);
  g_assert_true (member (o, "dynamic.max_rel_err") < 1e-4);
  JsonObject *dense = json_object_get_object_member (o, "dense");
  JsonObject *libs = json_object_get_object_member (dense, "libraries");
  /* the fastest dense of the same bf16 values; a note when that is not
   * oneDNN's bf16 */
  const char *fastest = NULL;
  double fastest_ms = INFINITY;
  const char *keys[] = { "openblas", "onednn", "onednn-bf16" };
  const char *names[] = { "OpenBLAS", "oneDNN", "oneDNN bf16" };
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      JsonObject *lib = json_object_get_object_member (libs, keys[i]);
      if (json_object_get_boolean_member (lib, "ran") &&
          json_object_get_double_member (lib, "ms") < fastest_ms)
        {
          fastest = names[i];
          fastest_ms = json_object_get_double_member (lib, "ms");
        }
    }
  g_assert_cmpstr (json_object_get_string_member (dense, "library"), ==,
                   fastest);
  g_assert_cmpint (json_object_has_member (dense, "note"), ==,
                   g_strcmp0 (fastest, "oneDNN bf16") != 0);
  run_clear (&r);
  /* fp16 is run as bf16; the table says which numbers */
  r = run_cli ("bench", "--dtype", "fp16", "--m", "64", "--k", "64", "--n",
               "8", "--block", "4", "--reps", "2", "--mode", "static", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, " · bf16 · "));
  run_clear (&r);
  r = run_cli ("bench", "--dtype", "fp8", "--m", "64", "--k", "64", "--n",
               "8", "--block", "4", NULL);
  assert_usage_error (&r, "--dtype: expected fp16, fp32, bf16, got 'fp8'");
  r = run_cli ("bench", "--dtype", "bf16", "--peers", "--m", "64", "--k",
               "64", "--n", "8", "--block", "4", NULL);
  assert_usage_error (&r, "--peers runs fp32 only");
  r = run_cli ("bench", "--dtype", "bf16", "--mode", "tilewise", "--m", "64",
               "--k", "64", "--n", "8", "--block", "4", NULL);
  assert_usage_error (&r, "tile-wise runs fp32 only");
}

/* Each side's numbers in a sweep's rows: the CPU bf16, the model fp16;
 * tile-wise (fp32 only) left out with a note, refused when named. */
static void
test_sweep_bf16 (void)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-cli-XXXXXX", NULL);
  g_autofree char *csv = g_build_filename (dir, "s.csv", NULL);
  Run r = run_cli ("sweep", "--dtype", "bf16", "--modes", "all",
                   "--densities", "1/4",
                   "--blocks", "4", "--m", "64", "--k", "48", "--n", "8",
                   "--reps", "5", "--warmup", "0", "--out", csv, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, "tile-wise (fp32 only) is left out"));
  run_clear (&r);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (csv, &text, NULL, NULL));
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  guint cpu = 0, model = 0;
  for (guint i = 1; lines[i] != NULL && lines[i][0] != '\0'; i++)
    {
      g_auto (GStrv) f = g_strsplit (lines[i], ",", -1);
      g_assert_cmpstr (f[7], ==, g_str_equal (f[0], "cpu") ? "bf16" : "fp16");
      g_assert_cmpstr (f[1], !=, "tilewise");
      cpu += g_str_equal (f[0], "cpu");
      model += g_str_equal (f[0], "model");
    }
  g_assert_cmpuint (cpu, ==, 3);
  g_assert_cmpuint (model, ==, 3);
  g_unlink (csv);
  g_rmdir (dir);
  r = run_cli ("sweep", "--dtype", "bf16", "--modes", "tilewise", "--source",
               "cpu", "--out", "x.csv", NULL);
  assert_usage_error (&r, "tile-wise runs in fp32 only");
}

/* SDDMM's sweep is the CPU's alone, and says so. */
static void
test_sweep_sddmm (void)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-cli-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "s.json", NULL);
  Run r = run_cli ("sweep", "--op", "sddmm", "--densities", "1/4", "--blocks",
                   "4", "--m", "64", "--k", "48", "--n", "8", "--reps", "5",
                   "--warmup", "0", "--out", path, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, "CPU only"));
  run_clear (&r);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *o = parse_object (parser, text);
  JsonObject *settings = json_object_get_object_member (o, "settings");
  g_assert_cmpstr (json_object_get_string_member (settings, "op"), ==,
                   "sddmm");
  g_assert_false (json_object_has_member (settings, "model"));
  JsonArray *points = json_object_get_array_member (o, "points");
  g_assert_cmpuint (json_array_get_length (points), ==, 2); /* dense, static */
  JsonObject *p = json_array_get_object_element (points, 1);
  g_assert_cmpstr (json_object_get_string_member (p, "source"), ==, "cpu");
  g_assert_cmpstr (json_object_get_string_member (p, "mode"), ==, "static");
  g_unlink (path);
  g_rmdir (dir);

  r = run_cli ("sweep", "--op", "spmv", "--out", "x.csv", NULL);
  assert_usage_error (&r, "--op");
  r = run_cli ("sweep", "--op", "sddmm", "--source", "model", "--out",
               "x.csv", NULL);
  assert_usage_error (&r, "--source cpu");
}

static void
assert_mode_keys (JsonObject *o, const char *mode)
{
  const char *keys[] = { "n", "cycles", "ms", "tflops", "nz_tflops", "speedup",
                         "tiles_used", "max_tile_bytes", "supersteps" };
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      g_autofree char *path = g_strconcat (mode, ".", keys[i], NULL);
      g_assert_true (member (o, path) >= 0);
    }
  JsonObject *m = json_object_get_object_member (o, mode);
  g_assert_true (json_object_has_member (m, "fits"));
  g_assert_nonnull (json_object_get_object_member (m, "phases"));
}

static void
test_model_json (void)
{
  Run r = run_cli ("model", "--m", "64", "--k", "64", "--n", "8", "--block",
                   "4", "--density", "0.25", "--machine", "teach16", "--dtype",
                   "fp32", "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *o = parse_object (parser, r.out);
  g_assert_cmpstr (json_object_get_string_member (o, "machine"), ==, "teach16");
  g_assert_cmpstr (json_object_get_string_member (o, "dtype"), ==, "fp32");
  g_assert_cmpfloat (member (o, "m"), ==, 64);
  g_assert_cmpfloat (member (o, "n"), ==, 8);
  g_assert_cmpfloat (member (o, "density"), ==, 0.25); /* 64 of 256 blocks */
  assert_mode_keys (o, "dense");
  assert_mode_keys (o, "static");
  assert_mode_keys (o, "dynamic");
  g_assert_cmpfloat (member (o, "dense.speedup"), ==, 1.0);
  g_assert_cmpfloat_with_epsilon (
    member (o, "static.speedup"),
    member (o, "static.nz_tflops") / member (o, "dense.nz_tflops"), 1e-6);
  /* A small random pattern may spill past the 30% bucket slack. */
  g_assert_cmpfloat (member (o, "dynamic.propagation_steps"), >=, 0);
  g_assert_true (json_object_get_boolean_member (
    json_object_get_object_member (o, "dynamic"), "overflow") == FALSE);
  g_assert_cmpfloat (member (o, "dense.tiles_used"), <=, 16);
  run_clear (&r);

  /* best over n: a power of two per mode; one mode only. */
  r = run_cli ("model", "--m", "64", "--k", "64", "--n", "best", "--block",
               "4", "--machine", "teach16", "--mode", "static", "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) parser2 = json_parser_new ();
  o = parse_object (parser2, r.out);
  g_assert_cmpstr (json_object_get_string_member (o, "n"), ==, "best");
  guint64 n = (guint64) member (o, "static.n");
  g_assert_true (n >= 1 && n <= 65536 && (n & (n - 1)) == 0);
  g_assert_false (json_object_has_member (o, "dense"));
  g_assert_false (json_object_has_member (o, "dynamic"));
  run_clear (&r);
}

/* One mode alone divides by the same dense program as all of them (the
 * dense row itself printed only when asked for). */
static void
test_model_one_mode (void)
{
#define SHAPE "--machine", "teach16", "-m", "128", "-k", "128", "-n", "64", \
              "-b", "16", "-d", "0.125"
  Run r = run_cli ("model", SHAPE, "--mode", "all", "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) all_parser = json_parser_new ();
  JsonObject *all = parse_object (all_parser, r.out);
  run_clear (&r);
  const char *modes[] = { "static", "dynamic" };
  for (guint i = 0; i < G_N_ELEMENTS (modes); i++)
    {
      g_autofree char *key = g_strconcat (modes[i], ".speedup", NULL);
      double expected = member (all, key);
      g_assert_cmpfloat (fabs (expected - 1.0), >, 0.05);
      r = run_cli ("model", SHAPE, "--mode", modes[i], "--json", NULL);
      g_assert_cmpint (r.status, ==, 0);
      g_autoptr (JsonParser) parser = json_parser_new ();
      JsonObject *o = parse_object (parser, r.out);
      g_assert_cmpfloat (member (o, key), ==, expected);
      g_assert_false (json_object_has_member (o, "dense"));
      run_clear (&r);

      /* the table: that mode's row alone, with the same speedup */
      r = run_cli ("model", SHAPE, "--mode", modes[i], NULL);
      g_assert_cmpint (r.status, ==, 0);
      g_autofree char *cell = g_strdup_printf ("%7.2f× ", expected);
      g_auto (GStrv) lines = g_strsplit (r.out, "\n", -1);
      guint rows = 0;
      for (guint l = 0; lines[l] != NULL; l++)
        if (g_str_has_prefix (lines[l], modes[i]))
          {
            g_assert_nonnull (strstr (lines[l], cell));
            rows++;
          }
        else
          g_assert_false (g_str_has_prefix (lines[l], "dense "));
      g_assert_cmpuint (rows, ==, 1);
      run_clear (&r);
    }
#undef SHAPE
}

static void
test_model_errors (void)
{
  Run r = run_cli ("model", "--m", "64", "--k", "64", "--n", "8", "--block",
                   "4", "--machine", "nosuch", NULL);
  assert_usage_error (&r, "--machine");
  r = run_cli ("model", "--m", "64", "--k", "64", "--n", "8", "--block", "4",
               "--mode", "sparse", NULL);
  assert_usage_error (&r, "--mode");
  r = run_cli ("model", "--m", "64", "--k", "64", "--n", "worst", "--block",
               "4", NULL);
  assert_usage_error (&r, "--n");
  r = run_cli ("model", "--m", "64", "--k", "64", "--n", "8", "--block", "4",
               "--dtype", "fp8", NULL);
  assert_usage_error (&r, "--dtype");

  /* A machine key file with a bad value is a bad input file: exit 1,
   * naming the file and the key. */
  g_autofree char *dir = g_dir_make_tmp ("spx-cli-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "m.ini", NULL);
  g_assert_true (g_file_set_contents (
    path, "[machine]\ntiles=0\nsram-bytes=65536\nclock-hz=1e9\n"
    "flop-per-cycle-fp16=128\nflop-per-cycle-fp32=32\n", -1, NULL));
  r = run_cli ("model", "--m", "64", "--k", "64", "--n", "8", "--block", "4",
               "--machine", path, NULL);
  assert_input_error (&r, path);
  r = run_cli ("model", "--m", "64", "--k", "64", "--n", "8", "--block", "4",
               "--machine", path, NULL);
  assert_input_error (&r, "tiles");
  g_unlink (path);
  g_rmdir (dir);
}

/* --json's "explain" per mode: every term of every superstep, in program
 * order, summing to the mode's cycles. */
static void
assert_explain (JsonObject *o, const char *mode)
{
  JsonObject *m = json_object_get_object_member (o, mode);
  g_assert_nonnull (m);
  JsonArray *explain = json_object_get_array_member (m, "explain");
  g_assert_nonnull (explain);
  guint64 supersteps = json_object_get_int_member (m, "supersteps");
  g_assert_cmpuint (supersteps, >, 0);
  g_autofree gboolean *seen = g_new0 (gboolean, supersteps + 1);
  guint64 sum = 0, last = 1;
  gboolean sync = FALSE;
  for (guint i = 0; i < json_array_get_length (explain); i++)
    {
      JsonObject *t = json_array_get_object_element (explain, i);
      guint64 step = json_object_get_int_member (t, "superstep");
      g_assert_cmpuint (step, >=, last); /* program order */
      g_assert_cmpuint (step, <=, supersteps);
      seen[step] = TRUE;
      last = step;
      const char *kind = json_object_get_string_member (t, "kind");
      g_assert_true (g_strv_contains ((const char *const[]) {
        "compute", "sync", "exchange", NULL }, kind));
      sync |= g_str_equal (kind, "sync");
      g_assert_nonnull (json_object_get_string_member (t, "phase"));
      g_assert_cmpstr (json_object_get_string_member (t, "term"), !=, "");
      g_assert_nonnull (json_object_get_string_member (t, "formula"));
      sum += json_object_get_int_member (t, "cycles");
    }
  for (guint64 step = 1; step <= supersteps; step++)
    g_assert_true (seen[step]);
  g_assert_true (sync);
  g_assert_cmpuint (sum, ==, json_object_get_int_member (m, "cycles"));
}

/* The totals of --explain's tables ("total … N"), in order. */
static GArray *
explain_totals (const char *text)
{
  GArray *totals = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], "total "))
      {
        guint64 n = g_ascii_strtoull (g_strchug (lines[i] + 5), NULL, 10);
        g_array_append_val (totals, n);
      }
  return totals;
}

static void
test_model_explain (void)
{
  const char *modes[] = { "dense", "static", "dynamic" };
  Run r = run_cli ("model", "--machine", "teach16", "--m", "64", "--k", "64",
                   "--block", "4", "--density", "0.25", "--n", "16", "--json",
                   NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *o = parse_object (parser, r.out);
  for (guint i = 0; i < G_N_ELEMENTS (modes); i++)
    assert_explain (o, modes[i]);

  /* the text: a table per mode, totals as --json's cycles, rows within
   * 100 columns (a long formula goes whole on a line of its own) */
  Run t = run_cli ("model", "--machine", "teach16", "--m", "64", "--k", "64",
                   "--block", "4", "--density", "0.25", "--n", "16",
                   "--explain", NULL);
  g_assert_cmpint (t.status, ==, 0);
  g_autoptr (GArray) totals = explain_totals (t.out);
  g_assert_cmpuint (totals->len, ==, G_N_ELEMENTS (modes));
  for (guint i = 0; i < G_N_ELEMENTS (modes); i++)
    {
      g_autofree char *path = g_strconcat (modes[i], ".cycles", NULL);
      g_assert_cmpuint (g_array_index (totals, guint64, i), ==,
                        (guint64) member (o, path));
    }
  g_assert_nonnull (strstr (t.out, "exchange overhead"));
  g_auto (GStrv) lines = g_strsplit (t.out, "\n", -1);
  guint rows = 0, sync_rows = 0;
  for (guint i = 0; lines[i] != NULL; i++)
    {
      unsigned step;
      char kind[16];
      /* a row starts with its superstep, right-aligned in 4 columns; a
       * formula of its own line is indented past the phase */
      if (strspn (lines[i], " ") >= 4 ||
          sscanf (lines[i], "%u %15s", &step, kind) != 2)
        continue;
      g_assert_true (g_strv_contains ((const char *const[]) {
        "compute", "sync", "exchange", NULL }, kind));
      rows++;
      sync_rows += g_str_equal (kind, "sync");
      g_assert_cmpuint (step, >=, 1);
      g_assert_cmpint (g_utf8_strlen (lines[i], -1), <=, 100);
    }
  guint terms = 0;
  for (guint i = 0; i < G_N_ELEMENTS (modes); i++)
    terms += json_array_get_length (json_object_get_array_member (
      json_object_get_object_member (o, modes[i]), "explain"));
  g_assert_cmpuint (rows, ==, terms);
  g_assert_cmpuint (sync_rows, >, 0);
  run_clear (&r);
  run_clear (&t);

  /* --n best, one mode, from a mask file: the table is that mode's, at the
   * n it chose */
  g_autofree char *dir = g_dir_make_tmp ("spx-cli-XXXXXX", NULL);
  g_autofree char *mask = g_build_filename (dir, "w.mtx", NULL);
  r = run_cli ("generate", "--pattern", "uniform", "--rows", "64", "--cols",
               "48", "--block", "8", "--density", "0.25", "--out", mask, NULL);
  g_assert_cmpint (r.status, ==, 0);
  run_clear (&r);
  r = run_cli ("model", "--mask", mask, "--block", "8", "--n", "best",
               "--machine", "teach16", "--mode", "static", "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) parser2 = json_parser_new ();
  o = parse_object (parser2, r.out);
  assert_explain (o, "static");
  t = run_cli ("model", "--mask", mask, "--block", "8", "--n", "best",
               "--machine", "teach16", "--mode", "static", "--explain", NULL);
  g_assert_cmpint (t.status, ==, 0);
  g_autoptr (GArray) best = explain_totals (t.out);
  g_assert_cmpuint (best->len, ==, 1);
  g_assert_cmpuint (g_array_index (best, guint64, 0), ==,
                    (guint64) member (o, "static.cycles"));
  g_autofree char *heading = g_strdup_printf (
    "\nstatic · n %" G_GUINT64_FORMAT " · ", (guint64) member (o, "static.n"));
  g_assert_nonnull (strstr (t.out, heading));
  g_assert_null (strstr (t.out, "\ndense · "));
  run_clear (&r);
  run_clear (&t);
  g_unlink (mask);
  g_rmdir (dir);

  /* bad combinations fail as without it */
  r = run_cli ("model", "--m", "64", "--k", "64", "--n", "8", "--block", "4",
               "--mode", "sparse", "--explain", NULL);
  assert_usage_error (&r, "--mode");
  r = run_cli ("model", "--scenario", "nosuch.spx", "--m", "64", "--explain",
               NULL);
  assert_usage_error (&r, "--scenario");
  r = run_cli ("model", "--m", "64", "--k", "64", "--n", "8", "--block", "4",
               "--explain", "extra", NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_cmpstr (r.out, ==, "");
  run_clear (&r);
}

/* A sweep's CSV: the header, then rows of 18 fields; returns the rows. */
static guint
assert_sweep_csv (const char *path)
{
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_assert_cmpstr (lines[0], ==, "source,mode,block,density,m,k,n,dtype,"
                                 "machine,ms,nz_throughput,speedup,ms_q1,"
                                 "ms_q3,noisy,dense,speedup_q1,"
                                 "speedup_q3");
  guint rows = g_strv_length (lines) - 2;
  g_assert_cmpstr (lines[rows + 1], ==, ""); /* every row ends in \n */
  for (guint i = 1; i <= rows; i++)
    {
      g_auto (GStrv) fields = g_strsplit (lines[i], ",", -1);
      g_assert_cmpuint (g_strv_length (fields), ==, 18);
    }
  return rows;
}

static void
test_sweep_csv (void)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-cli-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "s.csv", NULL);
  Run r = run_cli ("sweep", "--source", "model", "--densities", "1/4,1/8",
                   "--blocks", "16", "--m", "512", "--k", "512", "--out", path,
                   NULL);
  g_assert_cmpint (r.status, ==, 0);
  run_clear (&r);
  g_assert_cmpuint (assert_sweep_csv (path), ==, 2 * 3); /* + dense */
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "\nmodel,static,16,0.125,512,512,"));
  g_unlink (path);
  g_rmdir (dir);
}

static void
test_sweep_errors (void)
{
  static const char *const bad_densities[] = { "0", "1/4,,1/8", "abc", "2",
                                               "1/0", "" };
  for (guint i = 0; i < G_N_ELEMENTS (bad_densities); i++)
    {
      Run r = run_cli ("sweep", "--densities", bad_densities[i], "--out",
                       "x.csv", NULL);
      assert_usage_error (&r, "--densities");
    }
  static const char *const bad_blocks[] = { "0", "4,x", "5000", "-1" };
  for (guint i = 0; i < G_N_ELEMENTS (bad_blocks); i++)
    {
      Run r = run_cli ("sweep", "--blocks", bad_blocks[i], "--out", "x.csv",
                       NULL);
      assert_usage_error (&r, "--blocks");
    }
  Run r = run_cli ("sweep", "--out", "x.txt", NULL);
  assert_usage_error (&r, "--out");
  r = run_cli ("sweep", "--source", "model", NULL);
  assert_usage_error (&r, "--out");
  r = run_cli ("sweep", "--source", "gpu", "--out", "x.csv", NULL);
  assert_usage_error (&r, "--source");
  r = run_cli ("sweep", "--modes", "static,sparse", "--out", "x.csv", NULL);
  assert_usage_error (&r, "--modes");
  r = run_cli ("sweep", "--source", "cpu", "--n", "best", "--out", "x.csv",
               NULL);
  assert_usage_error (&r, "--n");
  r = run_cli ("sweep", "--source", "model", "--modes", "tilewise", "--out",
               "x.csv", NULL);
  assert_usage_error (&r, "CPU only");
  r = run_cli ("sweep", "--op", "sddmm", "--modes", "static,tilewise",
               "--out", "x.csv", NULL);
  assert_usage_error (&r, "tile-wise");
  r = run_cli ("sweep", "--pattern", "nm", "--out", "x.csv", NULL);
  assert_usage_error (&r, "--pattern");
  r = run_cli ("sweep", "--tile-width", "0", "--out", "x.csv", NULL);
  assert_usage_error (&r, "--tile-width");
  g_assert_false (g_file_test ("x.csv", G_FILE_TEST_EXISTS));
}

/* Tile-wise beside static on the CPU, on masks of the tile-wise
 * pattern. */
static void
test_sweep_tilewise (void)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-cli-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "s.csv", NULL);
  Run r = run_cli ("sweep", "--source", "cpu", "--modes", "static,tilewise",
                   "--dtype", "fp32", "--pattern", "tilewise", "--tile-width",
                   "16",
                   "--densities", "1/4", "--blocks", "1,4", "--m", "64",
                   "--k", "64", "--n", "8", "--reps", "5", "--warmup", "0",
                   "--out", path, NULL);
  g_assert_cmpint (r.status, ==, 0);
  run_clear (&r);
  g_assert_cmpuint (assert_sweep_csv (path), ==, 2 * 3);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "\ncpu,static,1,0.25,64,64,8,fp32,"));
  g_assert_nonnull (strstr (text, "\ncpu,tilewise,1,0.25,64,64,8,fp32,"));
  g_assert_nonnull (strstr (text, "\ncpu,tilewise,4,0.25,64,64,8,fp32,"));
  g_assert_null (strstr (text, "dynamic"));
  g_unlink (path);
  g_rmdir (dir);
}

/* Waits until pid catches signum (its handler is in place, as
 * /proc/PID/status's SigCgt mask says), so that a signal sent then is the
 * program's to handle however slowly a loaded machine started it. */
static void
wait_caught (GPid pid, int signum)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/status", (int) pid);
  for (guint tries = 0;; tries++, g_usleep (10000))
    {
      g_autofree char *text = NULL;
      g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
      const char *line = strstr (text, "\nSigCgt:");
      g_assert_nonnull (line);
      guint64 mask = g_ascii_strtoull (line + strlen ("\nSigCgt:"), NULL,
                                       16);
      if (mask & (G_GUINT64_CONSTANT (1) << (signum - 1)))
        return;
      g_assert_cmpuint (tries, <, 12000); /* two minutes: it never will */
    }
}

/* The exit status of argv sent signum a second after it caught it (how
 * long it took to exit after it in *waited_s, when not NULL). */
static int
exit_after_signal (const char *const *argv, int signum, double *waited_s)
{
  GPid pid;
  g_autoptr (GError) error = NULL;
  g_spawn_async (NULL, (char **) argv, NULL,
                 G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL |
                 G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &pid, &error);
  g_assert_no_error (error);
  wait_caught (pid, signum);
  g_usleep (G_USEC_PER_SEC);
  gint64 sent = g_get_monotonic_time ();
  g_assert_cmpint (kill (pid, signum), ==, 0);
  int wait_status = 0;
  g_assert_cmpint (waitpid (pid, &wait_status, 0), ==, pid);
  if (waited_s != NULL)
    *waited_s = (g_get_monotonic_time () - sent) / 1e6;
  g_spawn_close_pid (pid);
  g_assert_true (WIFEXITED (wait_status));
  return WEXITSTATUS (wait_status);
}

/* Ctrl-C (or SIGTERM) during a CPU sweep of some seconds: the points
 * done are still written as a whole CSV, and the exit status is 130
 * (143), as a shell reports the signal. */
static void
test_sweep_interrupted (gconstpointer data)
{
  int signum = GPOINTER_TO_INT (data);
  g_autofree char *dir = g_dir_make_tmp ("spx-cli-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "s.csv", NULL);
  const char *argv[] = { g_getenv ("SPX_BINARY"), "sweep", "--source", "cpu",
                         "--m", "2048", "--k", "2048", "--n", "256",
                         "--reps", "20", "--out", path, NULL };
  g_assert_cmpint (exit_after_signal (argv, signum, NULL), ==, 128 + signum);
  g_assert_cmpuint (assert_sweep_csv (path), <, 16 * 3);
  g_unlink (path);
  g_rmdir (dir);
}

/* Ctrl-C stops in the middle of a point, not after it: one point of
 * hours (two dense libraries and three modes, 100,000 rounds at 2048²)
 * ends at the signal, that point left out (were it finished first, the
 * test would run out of meson's time and fail). */
static void
test_sweep_interrupted_mid_point (void)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-cli-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "s.csv", NULL);
  const char *argv[] = { g_getenv ("SPX_BINARY"), "sweep", "--source", "cpu",
                         "--m", "2048", "--k", "2048", "--n", "256",
                         "--blocks", "1", "--densities", "1/4", "--reps",
                         "100000", "--out", path, NULL };
  double waited_s;
  g_assert_cmpint (exit_after_signal (argv, SIGINT, &waited_s), ==, 130);
  g_assert_cmpuint (assert_sweep_csv (path), ==, 0);
  g_test_message ("it ended %.1f s after the signal", waited_s);
  g_unlink (path);
  g_rmdir (dir);
}

/* The file starts with its format's signature and has a size. */
static void
assert_signature (const char *path, const char *magic)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (path, &text, &len, NULL));
  g_assert_cmpuint (len, >, 200);
  g_assert_nonnull (g_strstr_len (text, MIN (len, 256), magic));
}

/* ---- layers ------------------------------------------------------ */

/* A folder of three entries: conv.smtx (64 × 147, 940 non-zeros),
 * tiny.mtx (6 × 5) and broken.mtx, which is not a mask. */
static char *
layers_folder (void)
{
  char *dir = g_dir_make_tmp ("spx-cli-layers-XXXXXX", NULL);
  const char *from[] = { "rn50-magnitude_pruning-0.9-initial_conv.smtx",
                         "cli-tiny.mtx" };
  const char *to[] = { "conv.smtx", "tiny.mtx" };
  for (guint i = 0; i < G_N_ELEMENTS (from); i++)
    {
      g_autofree char *src = data_path (from[i]);
      g_autofree char *dst = g_build_filename (dir, to[i], NULL);
      g_autofree char *text = test_read_all (src);
      g_assert_true (g_file_set_contents (dst, text, -1, NULL));
    }
  g_autofree char *broken = g_build_filename (dir, "broken.mtx", NULL);
  g_assert_true (g_file_set_contents (broken, "%%MatrixMarket nonsense\n",
                                      -1, NULL));
  return dir;
}

/* A survey saved as JSON is shown again without measuring: the same
 * table, the chart from it; options that say how to measure refused. */
static void
test_layers_saved (void)
{
  g_autofree char *dir = layers_folder ();
  g_autofree char *out = g_dir_make_tmp ("spx-cli-XXXXXX", NULL);
  g_autofree char *json = g_build_filename (out, "survey.json", NULL);
  g_autofree char *png = g_build_filename (out, "survey.png", NULL);
  Run r = run_cli ("layers", dir, "--source", "model", "--n", "16", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autofree char *table = g_steal_pointer (&r.out);
  run_clear (&r);
  r = run_cli ("layers", dir, "--source", "model", "--n", "16", "--out",
               json, NULL);
  g_assert_cmpint (r.status, ==, 0);
  run_clear (&r);
  /* the table, word for word, but for the path in its first line */
  r = run_cli ("layers", json, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (strchr (r.out, '\n'), ==, strchr (table, '\n'));
  run_clear (&r);
  r = run_cli ("layers", json, "--out", png, NULL);
  g_assert_cmpint (r.status, ==, 0);
  assert_signature (png, "PNG");
  run_clear (&r);
  r = run_cli ("layers", json, "--n", "32", NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "--n: a saved survey is shown as it "
                                   "was measured"));
  run_clear (&r);
  /* --again-noisy: the model's points are never noisy, so nothing is
   * measured and the table is the same */
  r = run_cli ("layers", json, "--again-noisy", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (strchr (r.out, '\n'), ==, strchr (table, '\n'));
  run_clear (&r);
  /* its network moved away: the input's failure, naming it */
  g_autofree char *moved = g_strconcat (dir, ".moved", NULL);
  g_assert_cmpint (g_rename (dir, moved), ==, 0);
  r = run_cli ("layers", json, "--again-noisy", NULL);
  g_assert_cmpint (g_rename (moved, dir), ==, 0);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, dir));
  run_clear (&r);
  g_assert_true (g_file_set_contents (json, "{\"path\": 3}", -1, NULL));
  r = run_cli ("layers", json, NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "survey.json: path:"));
  run_clear (&r);
  test_remove_folder (out);
  test_remove_folder (dir);
}

/* Lines of text that start with prefix. */
static guint
lines_starting (const char *text, const char *prefix)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  guint n = 0;
  for (guint i = 0; lines[i] != NULL; i++)
    n += g_str_has_prefix (lines[i], prefix);
  return n;
}

static void
test_layers_table (void)
{
  g_autofree char *dir = layers_folder ();
  Run r = run_cli ("layers", dir, "--source", "model", "--n", "16",
                   "--machine", "teach16", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.err, ==, "");
  g_auto (GStrv) lines = g_strsplit (r.out, "\n", -1);
  /* the broken file is an entry, not a layer */
  g_assert_nonnull (strstr (lines[0], "(folder): 2 layers (and 1 entry "
                                      "that is not) at n = 16"));
  g_assert_true (g_str_has_prefix (lines[1], "shape"));
  g_assert_true (g_str_has_suffix (lines[1], "layer"));
  /* a row per layer surveyed, its name last */
  g_assert_true (g_str_has_prefix (lines[2], "64 × 147 "));
  g_assert_true (g_str_has_suffix (lines[2], " conv.smtx"));
  g_assert_nonnull (strstr (lines[2], "10.0%")); /* 940 / 9408 */
  g_assert_true (g_str_has_prefix (lines[3], "6 × 5 "));
  g_assert_true (g_str_has_suffix (lines[3], " tiny.mtx"));
  g_assert_true (g_str_has_prefix (lines[4], "skipped broken.mtx: "));
  g_assert_true (g_str_has_prefix (lines[5], "total on the IPU model: "));
  g_assert_true (g_str_has_prefix (lines[6], "The whole network: "));
  /* the default scenario's numbers, as sweep and the window take them */
  g_assert_nonnull (strstr (lines[6], "on the modelled IPU (teach16, fp16)"));
  g_assert_cmpstr (lines[7], ==, "");
  g_assert_null (lines[8]);
  g_assert_cmpuint (lines_starting (r.out, "total on this CPU"), ==, 0);
  run_clear (&r);
  /* --only keeps the layers whose name it finds */
  r = run_cli ("layers", dir, "--source", "model", "--n", "16", "--only",
               "^t", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "(folder): 1 layer at"));
  g_assert_cmpuint (lines_starting (r.out, "6 × 5 "), ==, 1);
  g_assert_null (strstr (r.out, "conv.smtx"));
  run_clear (&r);
  test_remove_folder (dir);
}

static JsonObject *
member_object (JsonObject *o, const char *key)
{
  g_assert_true (json_object_has_member (o, key));
  return json_object_get_object_member (o, key);
}

static void
assert_members (JsonObject *o, const char *const *keys)
{
  for (guint i = 0; keys[i] != NULL; i++)
    if (!json_object_has_member (o, keys[i]))
      g_error ("no \"%s\"", keys[i]);
}

/* The keys the issue fixes, and the totals the sums of the layers'. */
static void
test_layers_json (void)
{
  static const char *const layer_keys[] = { "name", "rows", "cols",
    "density", "block_density", "points", "recommended", NULL };
  static const char *const point_keys[] = { "source", "mode", "block", "ms",
    "ms_q1", "ms_q3", "speedup", "noisy", NULL };
  static const char *const choice_keys[] = { "mode", "block", "ms",
    "dense_ms", "speedup", "measured", NULL };
  static const char *const total_keys[] = { "dense_ms", "chosen_ms",
    "speedup", "layers", "unmeasured_layers", "unmeasured_flops_share",
    NULL };
  static const char *const sources[] = { "cpu", "model" };
  g_autofree char *dir = layers_folder ();
  Run r = run_cli ("layers", dir, "--json", "--n", "8", "--threads", "1",
                   "--reps", "5", "--blocks", "1,4", "--machine", "teach16",
                   "--dtype", "fp32", NULL); /* tile-wise: fp32 only */
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *root = parse_object (parser, r.out);
  JsonArray *layers = json_object_get_array_member (root, "layers");
  g_assert_cmpuint (json_array_get_length (layers), ==, 3);
  /* broken.mtx is an entry, not a layer */
  g_assert_cmpint (json_object_get_int_member (root, "n_layers"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (root, "n_skipped"), ==, 1);
  double dense[2] = { 0 }, chosen[2] = { 0 };
  gint64 measured[2] = { 0 };
  for (guint i = 0; i < 3; i++)
    {
      JsonObject *l = json_array_get_object_element (layers, i);
      const char *name = json_object_get_string_member (l, "name");
      if (g_str_equal (name, "broken.mtx"))
        {
          g_assert_true (json_object_has_member (l, "skipped"));
          continue;
        }
      assert_members (l, layer_keys);
      if (g_str_equal (name, "conv.smtx"))
        {
          g_assert_cmpint (json_object_get_int_member (l, "rows"), ==, 64);
          g_assert_cmpint (json_object_get_int_member (l, "cols"), ==, 147);
          g_assert_cmpfloat_with_epsilon (
            json_object_get_double_member (l, "density"), 940 / 9408.0,
            1e-9);
        }
      JsonObject *bd = member_object (l, "block_density");
      g_assert_cmpuint (json_object_get_size (bd), ==, 2);
      g_assert_true (json_object_has_member (bd, "1"));
      g_assert_true (json_object_has_member (bd, "4"));
      JsonArray *points = json_object_get_array_member (l, "points");
      /* model: dense, static, dynamic; CPU: and tile-wise; at 2 blocks */
      g_assert_cmpuint (json_array_get_length (points), ==, 2 * (3 + 4));
      for (guint j = 0; j < json_array_get_length (points); j++)
        assert_members (json_array_get_object_element (points, j),
                        point_keys);
      JsonObject *rec = member_object (l, "recommended");
      for (guint s = 0; s < 2; s++)
        {
          JsonObject *c = member_object (rec, sources[s]);
          assert_members (c, choice_keys);
          /* a layer not measured (this machine's load) is left out */
          if (!json_object_get_boolean_member (c, "measured"))
            continue;
          measured[s]++;
          dense[s] += json_object_get_double_member (c, "dense_ms");
          chosen[s] += json_object_get_double_member (c, "ms");
        }
    }
  JsonObject *total = member_object (root, "total");
  for (guint s = 0; s < 2; s++)
    {
      JsonObject *t = member_object (total, sources[s]);
      assert_members (t, total_keys);
      g_assert_cmpint (json_object_get_int_member (t, "layers"), ==,
                       measured[s]);
      g_assert_cmpint (json_object_get_int_member (t, "unmeasured_layers"),
                       ==, 2 - measured[s]);
      if (measured[s] == 0)
        continue;
      double d = json_object_get_double_member (t, "dense_ms");
      double c = json_object_get_double_member (t, "chosen_ms");
      g_assert_cmpfloat_with_epsilon (d, dense[s], 1e-8 * d);
      g_assert_cmpfloat_with_epsilon (c, chosen[s], 1e-8 * c);
      g_assert_cmpfloat_with_epsilon (
        json_object_get_double_member (t, "speedup"), d / c, 1e-8);
    }
  run_clear (&r);
  test_remove_folder (dir);
}

static void
test_layers_errors (void)
{
  g_autofree char *dir = layers_folder ();
  static const char *const bad[][3] = {
    { "--n", "0", "--n" }, { "--n", "x", "--n" },
    { "--dtype", "fp8", "--dtype" }, { "--source", "gpu", "--source" },
    { "--blocks", "0", "--blocks" }, { "--blocks", "1,,2", "--blocks" },
    { "--modes", "sparse", "--modes" }, { "--threads", "0", "--threads" },
    { "--reps", "2", "--reps" }, { "--only", "conv(", "--only" },
    { "--out", "x.txt", "--out" }, { "--machine", "nosuch", "nosuch" },
    { "--width", "1", "--width" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      Run r = run_cli ("layers", dir, bad[i][0], bad[i][1], NULL);
      assert_usage_error (&r, bad[i][2]);
    }
  Run r = run_cli ("layers", dir, "--source", "model", "--modes", "tilewise",
                   NULL);
  assert_usage_error (&r, "CPU only");
  r = run_cli ("layers", dir, "--dtype", "bf16", "--modes", "tilewise",
               NULL);
  assert_usage_error (&r, "tile-wise");
  r = run_cli ("layers", dir, "--json", "--out", "x.json", NULL);
  assert_usage_error (&r, "--json");
  r = run_cli ("layers", NULL);
  assert_usage_error (&r, "PATH");
  r = run_cli ("layers", dir, dir, NULL);
  assert_usage_error (&r, "one PATH");
  /* a path that is not there: the input's fault, named */
  g_autofree char *missing = g_build_filename (dir, "nothing-here", NULL);
  r = run_cli ("layers", missing, NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpuint (count_lines (r.err), ==, 1);
  g_assert_nonnull (strstr (r.err, "nothing-here"));
  g_assert_cmpstr (r.out, ==, "");
  run_clear (&r);
  g_assert_false (g_file_test ("x.json", G_FILE_TEST_EXISTS));
  test_remove_folder (dir);
}

/* --out: the chart (PNG, SVG, PDF), the CSV (a row per point). */
static void
test_layers_out (void)
{
  g_autofree char *dir = layers_folder ();
  g_autofree char *out = g_dir_make_tmp ("spx-cli-XXXXXX", NULL);
  static const char *ext[] = { "png", "svg", "pdf" };
  static const char *magic[] = { "PNG", "<svg", "%PDF" };
  for (guint e = 0; e < G_N_ELEMENTS (ext); e++)
    {
      g_autofree char *name = g_strdup_printf ("layers.%s", ext[e]);
      g_autofree char *path = g_build_filename (out, name, NULL);
      Run r = run_cli ("layers", dir, "--source", "model", "--n", "16",
                       "--out", path, NULL);
      g_assert_cmpint (r.status, ==, 0);
      /* broken.mtx is no layer */
      g_assert_true (g_str_has_prefix (r.out, "sparse-explorer layers: 2 "
                                       "layers (and 1 entry that is not) "
                                       "written to "));
      run_clear (&r);
      assert_signature (path, magic[e]);
      g_unlink (path);
    }
  g_autofree char *csv = g_build_filename (out, "layers.csv", NULL);
  Run r = run_cli ("layers", dir, "--source", "model", "--n", "16",
                   "--blocks", "1,2", "--out", csv, NULL);
  g_assert_cmpint (r.status, ==, 0);
  run_clear (&r);
  g_autofree char *text = test_read_all (csv);
  g_assert_true (g_str_has_prefix (text, "layer,source,mode,block,"));
  /* two layers × two blocks × dense, static, dynamic */
  g_assert_cmpuint (count_lines (text), ==, 1 + 2 * 2 * 3);
  g_assert_cmpuint (lines_starting (text, "conv.smtx,model,"), ==, 6);
  g_unlink (csv);
  g_rmdir (out);
  test_remove_folder (dir);
}

/* Ctrl-C during a survey: the layers done printed, status 130. */
static void
test_layers_interrupted (void)
{
  const char *dlmc = test_dlmc_dir ();
  g_autofree char *folder = dlmc ? g_build_filename (
    dlmc, "transformer", "magnitude_pruning", "0.9", NULL) : NULL;
  if (folder == NULL || !g_file_test (folder, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("no DLMC directory (SPX_DLMC_DIR)");
      return;
    }
  const char *argv[] = { g_getenv ("SPX_BINARY"), "layers", folder,
                         "--source", "cpu", "--reps", "60", "--threads", "1",
                         NULL };
  GPid pid;
  int out_fd, err_fd;
  g_autoptr (GError) error = NULL;
  g_spawn_async_with_pipes (NULL, (char **) argv, NULL,
                            G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid,
                            NULL, &out_fd, &err_fd, &error);
  g_assert_no_error (error);
  wait_caught (pid, SIGINT);
  g_usleep (G_USEC_PER_SEC);
  g_assert_cmpint (kill (pid, SIGINT), ==, 0);
  int wait_status = 0;
  g_assert_cmpint (waitpid (pid, &wait_status, 0), ==, pid);
  g_spawn_close_pid (pid);
  g_autoptr (GIOChannel) out = g_io_channel_unix_new (out_fd);
  g_autoptr (GIOChannel) err = g_io_channel_unix_new (err_fd);
  g_io_channel_set_close_on_unref (out, TRUE);
  g_io_channel_set_close_on_unref (err, TRUE);
  g_autofree char *text = NULL, *msg = NULL;
  g_io_channel_read_to_end (out, &text, NULL, NULL);
  g_io_channel_read_to_end (err, &msg, NULL, NULL);
  g_assert_true (WIFEXITED (wait_status));
  g_assert_cmpint (WEXITSTATUS (wait_status), ==, 130);
  g_assert_nonnull (strstr (msg, "interrupted by SIGINT"));
  /* the layers done (none, or some) and the sentence saying so */
  g_assert_nonnull (strstr (text, "layers at n = 1024"));
  g_assert_true (strstr (text, "The layers surveyed so far") != NULL ||
                 strstr (text, "No layer surveyed") != NULL);
}

static void
test_render_views (void)
{
  static const char *views[] = { "mask", "tiles", "exchange", "timeline",
                                 "speedup" };
  static const char *ext[] = { "png", "svg", "pdf" };
  static const char *magic[] = { "PNG", "<svg", "%PDF" };
  g_autofree char *dir = g_dir_make_tmp ("spx-cli-XXXXXX", NULL);
  for (guint v = 0; v < G_N_ELEMENTS (views); v++)
    for (guint e = 0; e < G_N_ELEMENTS (ext); e++)
      {
        g_autofree char *name = g_strdup_printf ("%s.%s", views[v], ext[e]);
        g_autofree char *path = g_build_filename (dir, name, NULL);
        Run r = run_cli ("render", "--view", views[v], "--machine", "teach16",
                         "--m", "128", "--k", "128", "--block", "8",
                         "--density", "1/4", "--n", "16", "--width", "400",
                         "--height", "300", "--theme", e ? "light" : "dark",
                         "--out", path, NULL);
        g_assert_cmpint (r.status, ==, 0);
        run_clear (&r);
        assert_signature (path, magic[e]);
        g_unlink (path);
      }
  g_autofree char *thr = g_build_filename (dir, "throughput.svg", NULL);
  Run r = run_cli ("render", "--view", "speedup", "--metric", "throughput",
                   "--machine", "teach16", "--m", "128", "--k", "128",
                   "--block", "8", "--n", "16", "--out", thr, NULL);
  g_assert_cmpint (r.status, ==, 0);
  run_clear (&r);
  assert_signature (thr, "<svg");
  g_unlink (thr);
  g_rmdir (dir);
}

/* --size WxH is the picture's size in pixels, as --width and --height
 * (which it does not go with) are; --no-noise-note is sweep's alone. */
static void
test_render_size (void)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-cli-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "tiles.png", NULL);
  Run r = run_cli ("render", "--view", "tiles", "--machine", "teach16",
                   "--m", "64", "--k", "64", "--block", "4", "--size",
                   "500x300", "--out", path, NULL);
  g_assert_cmpint (r.status, ==, 0);
  run_clear (&r);
  /* the PNG's IHDR: width and height, big-endian, from byte 16 */
  g_autofree guchar *png = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (path, (char **) &png, &len, NULL));
  g_assert_cmpuint (len, >, 24);
  g_assert_cmpuint (GUINT32_FROM_BE (*(guint32 *) (png + 16)), ==, 500);
  g_assert_cmpuint (GUINT32_FROM_BE (*(guint32 *) (png + 20)), ==, 300);
  g_unlink (path);
  g_rmdir (dir);
  r = run_cli ("render", "--view", "tiles", "--size", "500x300", "--width",
               "500", "--out", "x.png", NULL);
  assert_usage_error (&r, "--size");
  r = run_cli ("render", "--view", "tiles", "--size", "500", "--out",
               "x.png", NULL);
  assert_usage_error (&r, "--size");
  r = run_cli ("layers", "--size", "10x10", "--out", "x.png", "x.npz", NULL);
  assert_usage_error (&r, "--size");
  r = run_cli ("render", "--view", "speedup", "--no-noise-note", "--out",
               "x.png", NULL);
  assert_usage_error (&r, "--no-noise-note");
  r = run_cli ("sweep", "--no-noise-note", "--size", "10x10", "--out",
               "x.png", NULL);
  assert_usage_error (&r, "--size");
}

static void
test_render_errors (void)
{
  Run r = run_cli ("render", "--view", "tiles", "--out", "x.gif", NULL);
  assert_usage_error (&r, "--out");
  r = run_cli ("render", "--view", "nope", "--out", "x.png", NULL);
  assert_usage_error (&r, "--view");
  r = run_cli ("render", "--view", "exchange", "--superstep", "999",
               "--machine", "teach16", "--m", "64", "--k", "64", "--block",
               "4", "--out", "x.png", NULL);
  assert_usage_error (&r, "--superstep");
  r = run_cli ("render", "--view", "tiles", "--scale", "0", "--out", "x.png",
               NULL);
  assert_usage_error (&r, "--scale");
  r = run_cli ("render", "--view", "tiles", "--theme", "blue", "--out",
               "x.png", NULL);
  assert_usage_error (&r, "--theme");
  /* the same picture options on sweep's chart */
  r = run_cli ("sweep", "--width", "10", "--out", "x.png", NULL);
  assert_usage_error (&r, "--width");
  /* a path that cannot be written: exit 1, the path named, no file */
  r = run_cli ("render", "--view", "timeline", "--machine", "teach16", "--m",
               "64", "--k", "64", "--block", "4", "--out",
               "/nonexistent-dir/t.png", NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "/nonexistent-dir/t.png"));
  g_assert_false (g_file_test ("/nonexistent-dir/t.png", G_FILE_TEST_EXISTS));
  run_clear (&r);
}

/* A folder, or a file in it with text and mode, of the user the next
 * runs are (run_ordinary). */
static char *
ordinary_folder (void)
{
  char *dir = g_dir_make_tmp ("spx-cli-XXXXXX", NULL);
  g_assert_nonnull (dir);
  g_assert_true (geteuid () != 0 || chown (dir, NOBODY, NOBODY) == 0);
  return dir;
}

static char *
ordinary_file (const char *dir, const char *name, const char *text,
               mode_t mode)
{
  char *path = g_build_filename (dir, name, NULL);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  g_assert_true (geteuid () != 0 || chown (path, NOBODY, NOBODY) == 0);
  g_assert_cmpint (g_chmod (path, mode), ==, 0);
  return path;
}

/* --out naming a file of the user's own that is read-only (mode 0444):
 * every command refuses, says how to go on, and the file stays. */
static void
test_out_read_only (void)
{
  g_autofree char *dir = ordinary_folder ();
  g_autofree char *mtx = ordinary_file (dir, "kept.mtx", "old", 0444);
  g_autofree char *png = ordinary_file (dir, "kept.png", "old", 0444);
  g_autofree char *csv = ordinary_file (dir, "kept.csv", "old", 0444);
  const char *const generate[] = { "generate", "--rows", "8", "--cols", "8",
                                   "--out", mtx, NULL };
  const char *const render[] = { "render", "--view", "tiles", "--machine",
                                 "teach16", "--m", "64", "--k", "64",
                                 "--block", "4", "--out", png, NULL };
  const char *const sweep[] = { "sweep", "--source", "model", "--densities",
                                "1/4", "--blocks", "16", "--m", "64", "--k",
                                "64", "--out", csv, NULL };
  const char *const *const commands[] = { generate, render, sweep };
  const char *const paths[] = { mtx, png, csv };
  run_ordinary = TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      Run r = run_cli_strv (commands[i]);
      g_test_message ("%s", r.err);
      g_assert_cmpint (r.status, ==, 1);
      g_autofree char *said = g_strdup_printf ("%s: is read-only, so it was "
                                               "not replaced", paths[i]);
      g_assert_nonnull (strstr (r.err, said));
      g_assert_nonnull (strstr (r.err, "chmod u+w"));
      g_autofree char *text = NULL;
      g_assert_true (g_file_get_contents (paths[i], &text, NULL, NULL));
      g_assert_cmpstr (text, ==, "old");
      run_clear (&r);
    }
  run_ordinary = FALSE;
  test_remove_folder (dir);
}

/* The read end of a FIFO, drained on a thread until its writer closes;
 * a FIFO that never had a writer polls as nothing to read. */
typedef struct {
  int      fd;
  GString *got;
} Drain;

static gpointer
drain (gpointer data)
{
  Drain *d = data;
  char buf[4096];
  struct pollfd p = { d->fd, POLLIN, 0 };
  for (ssize_t n; poll (&p, 1, 60000) > 0;)
    if ((n = read (d->fd, buf, sizeof buf)) > 0)
      g_string_append_len (d->got, buf, n);
    else if (n == 0 || errno != EAGAIN)
      break;
  close (d->fd);
  return NULL;
}

static const char *const render_png[] = {
  "render", "--view", "timeline", "--machine", "teach16", "--m", "64",
  "--k", "64", "--block", "4", "--out", NULL, NULL };

/* --out a FIFO, or a link to /dev/null: written into as a stream, never
 * replaced; a FIFO nobody reads is refused at once. */
static void
test_out_stream (void)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-cli-XXXXXX", NULL);
  g_autofree char *fifo = g_build_filename (dir, "out.png", NULL);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  const char *args[G_N_ELEMENTS (render_png)];
  memcpy (args, render_png, sizeof args);
  args[G_N_ELEMENTS (args) - 2] = fifo;
  Run r = run_cli_strv (args); /* one that blocked would hang here */
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "no program is reading"));
  g_assert_nonnull (strstr (r.err, fifo));
  run_clear (&r);

  Drain d = { open (fifo, O_RDONLY | O_NONBLOCK), g_string_new (NULL) };
  g_assert_cmpint (d.fd, >=, 0);
  GThread *reader = g_thread_new ("drain", drain, &d);
  r = run_cli_strv (args);
  g_thread_join (reader);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpuint (d.got->len, >, 8);
  g_assert_true (memcmp (d.got->str, "\x89PNG\r\n\x1a\n", 8) == 0);
  g_string_free (d.got, TRUE);
  run_clear (&r);
  GStatBuf st;
  g_assert_cmpint (lstat (fifo, &st), ==, 0);
  g_assert_true (S_ISFIFO (st.st_mode));

  g_autofree char *null = g_build_filename (dir, "null.png", NULL);
  g_assert_cmpint (symlink ("/dev/null", null), ==, 0);
  args[G_N_ELEMENTS (args) - 2] = null;
  r = run_cli_strv (args);
  g_assert_cmpint (r.status, ==, 0);
  run_clear (&r);
  g_autofree char *target = g_file_read_link (null, NULL);
  g_assert_cmpstr (target, ==, "/dev/null");
  g_assert_cmpint (stat ("/dev/null", &st), ==, 0);
  g_assert_true (S_ISCHR (st.st_mode));
  test_remove_folder (dir);
}

static const char *const peer_names[] = {
  "librsb", "libxsmm", "graphblas", "eigen", "torch-csr", "torch-dense",
  "scipy-csr", "scipy-bsr",
};
/* peer_names from here on go through the runner */
#define FIRST_RUNNER G_N_ELEMENTS (in_process)

/* bench --peers --json on a 22×18 mask of 4×4 blocks (edge blocks cut),
 * the options after it NULL-terminated (room for two more). */
#define PEERS_ARGS "bench", "--m", "22", "--k", "18", "--n", "5", "--block", \
  "4", "--density", "0.5", "--reps", "3", "--warmup", "1", "--threads", \
  "2", "--peers", "--json"

/* That in env (taken), with --peer-timeout timeout unless NULL: its JSON
 * root. */
static JsonObject *
run_peers_env (JsonParser *parser, char **env, const char *timeout)
{
  const char *args[] = { PEERS_ARGS, timeout ? "--peer-timeout" : NULL,
                         timeout, NULL };
  run_env = env;
  Run r = run_cli_strv (args);
  g_strfreev (run_env);
  run_env = NULL;
  g_assert_cmpint (r.status, ==, 0);
  JsonObject *o = parse_object (parser, r.out);
  json_object_ref (o);
  run_clear (&r);
  return o;
}

/* The same with env added. */
static JsonObject *
run_peers (JsonParser *parser, const char *name, const char *value,
           const char *name2, const char *value2)
{
  char **env = g_environ_setenv (g_get_environ (), name, value, TRUE);
  env = name2 ? g_environ_setenv (env, name2, value2, TRUE) : env;
  return run_peers_env (parser, env, NULL);
}

static JsonObject *
peer (JsonObject *o, const char *name)
{
  return json_object_get_object_member (
    json_object_get_object_member (o, "peers"), name);
}

static const char *
peer_note (JsonObject *o, const char *name)
{
  g_assert_false (json_object_get_boolean_member (peer (o, name), "ran"));
  g_assert_false (json_object_has_member (peer (o, name), "ms"));
  return json_object_get_string_member (peer (o, name), "note");
}

/* A runner speaking the protocol with known answers: the bench reads its
 * timings, checks its C against dense, and keeps going when it skips,
 * fails, answers nonsense or is missing; the operands' directory goes. */
static void
test_bench_peers_protocol (void)
{
  g_autofree char *python = g_find_program_in_path ("python3");
  if (python == NULL)
    {
      g_test_skip ("needs python3");
      return;
    }
  g_autofree char *fake = g_test_build_filename (G_TEST_DIST, "peers",
                                                 "fake-peers.py", NULL);
  g_autofree char *tmp = g_dir_make_tmp ("spx-test-peers-XXXXXX", NULL);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (JsonObject) o = run_peers (parser, "SPX_PEERS_RUNNER", fake,
                                        "TMPDIR", tmp);
  double dense_ms = member (o, "dense.ms");
  /* density·m·k non-zeros, 2 flops each per column of B, in 2 ms */
  double nz_gflops = 2 * member (o, "density") * 22 * 18 * 5 / 2e6;
  JsonObject *csr = peer (o, "torch-csr");
  g_assert_true (json_object_get_boolean_member (csr, "ran"));
  g_assert_cmpfloat (member (o, "peers.torch-csr.ms"), ==, 2.0);
  g_assert_cmpfloat (member (o, "peers.torch-csr.ms_q1"), ==, 1.5);
  g_assert_cmpfloat (member (o, "peers.torch-csr.ms_q3"), ==, 3.0);
  g_assert_cmpfloat (member (o, "peers.torch-csr.threads"), ==, 3);
  g_assert_cmpfloat_with_epsilon (member (o, "peers.torch-csr.speedup"),
                                  dense_ms / 2, 1e-9 * dense_ms);
  g_assert_cmpfloat_with_epsilon (member (o, "peers.torch-csr.gflops"),
                                  nz_gflops, 1e-9);
  g_assert_true (member (o, "peers.torch-csr.max_rel_err") < 1e-5);
  g_assert_cmpstr (json_object_get_string_member (csr, "version"), ==,
                   "fake 1.0");
  g_assert_cmpstr (json_object_get_string_member (csr, "note"), ==,
                   "fake threads");
  /* 2·A·B read from the block files: off by all of C; dense FLOPs */
  g_assert_cmpfloat_with_epsilon (member (o, "peers.torch-dense.max_rel_err"),
                                  1.0, 1e-6);
  g_assert_cmpfloat_with_epsilon (member (o, "peers.torch-dense.gflops"),
                                  2.0 * 22 * 18 * 5 / 2e6, 1e-9);
  g_assert_cmpstr (peer_note (o, "scipy-csr"), ==, "fake: not installed");
  g_assert_false (json_object_get_boolean_member (peer (o, "scipy-csr"),
                                                  "failed"));
  const char *failed = peer_note (o, "scipy-bsr");
  g_assert_nonnull (strstr (failed, "exit 1"));
  g_assert_nonnull (strstr (failed, "fake failure"));
  g_assert_true (json_object_get_boolean_member (peer (o, "scipy-bsr"),
                                                 "failed"));
  g_assert_true (g_rmdir (tmp) == 0); /* nothing left in it */

  g_autoptr (JsonParser) parser2 = json_parser_new ();
  g_autoptr (JsonObject) broken = run_peers (parser2, "SPX_PEERS_RUNNER",
                                             fake, "FAKE_PEERS_MODE",
                                             "broken");
  g_assert_nonnull (strstr (peer_note (broken, "torch-csr"), "expected 440"));
  g_assert_nonnull (strstr (peer_note (broken, "torch-dense"), "no sense"));
  g_assert_nonnull (strstr (peer_note (broken, "scipy-csr"), "no sense"));
  g_assert_nonnull (strstr (peer_note (broken, "scipy-bsr"), "killed"));

  g_autoptr (JsonParser) parser3 = json_parser_new ();
  g_autoptr (JsonObject) none = run_peers (parser3, "SPX_PEERS_RUNNER",
                                           "/nonexistent/spx-peers.py", NULL,
                                           NULL);
  g_autoptr (JsonParser) parser4 = json_parser_new ();
  g_autoptr (JsonObject) no_python = run_peers (parser4, "SPX_PEERS_RUNNER",
                                                fake, "SPX_PYTHON",
                                                "/nonexistent/python3");
  for (guint i = FIRST_RUNNER; i < G_N_ELEMENTS (peer_names); i++)
    {
      g_assert_nonnull (strstr (peer_note (none, peer_names[i]),
                                "spx-peers.py was not found"));
      g_assert_nonnull (strstr (peer_note (no_python, peer_names[i]),
                                "python3 was not found"));
    }
}

/* The shipped runner, found from the program as users have it: every
 * peer ran and agrees with dense, or says why it did not run. */
static void
test_bench_peers_listed (void)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (JsonObject) o = run_peers (parser, "SPX_PEERS_RUNNER", "", NULL,
                                        NULL);
  for (guint i = 0; i < G_N_ELEMENTS (peer_names); i++)
    {
      JsonObject *p = peer (o, peer_names[i]);
      g_assert_nonnull (p);
      g_assert_cmpstr (json_object_get_string_member (p, "name"), ==,
                       peer_names[i]);
      g_autofree char *err = g_strdup_printf ("peers.%s.max_rel_err",
                                              peer_names[i]);
      g_autofree char *threads = g_strdup_printf ("peers.%s.threads",
                                                  peer_names[i]);
      if (json_object_get_boolean_member (p, "ran"))
        g_assert_true (member (o, err) < 1e-5 && member (o, threads) >= 1);
      else
        g_assert_cmpstr (json_object_get_string_member (p, "note"), !=, "");
    }
  /* 22×18 in 4×4 blocks: the edge blocks cut */
  assert_in_process_peers (o);
}

/* The table: a row per in-process peer built, with its note below the
 * table (how it ran), or the line saying why it did not run. */
static void
test_bench_peers_table (void)
{
  Run r = run_cli ("bench", "--m", "22", "--k", "18", "--n", "5", "--block",
                   "4", "--density", "0.5", "--reps", "1", "--warmup", "0",
                   "--threads", "2", "--peers", NULL);
  g_assert_cmpint (r.status, ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (in_process); i++)
    {
      const char *name = in_process[i].name;
      g_autofree char *row = g_strdup_printf ("\n%-11s %s", name,
                                              in_process[i].built
                                                ? "" : "not run: not built");
      g_autofree char *how = g_strdup_printf ("\n  %s: ", name);
      if (strstr (r.out, row) == NULL)
        g_error ("no '%s' row in:\n%s", name, r.out);
      g_assert_true ((strstr (r.out, how) != NULL) == in_process[i].built);
    }
  if (SPX_HAVE_GRAPHBLAS)
    g_assert_nonnull (strstr (r.out, "saxpy fast path: full C, PLUS accum"));
  run_clear (&r);
}

/* ---- bench --peers against runners that misbehave ------------------- */

static gboolean
have_python (void)
{
  g_autofree char *python = g_find_program_in_path ("python3");
  if (python == NULL)
    g_test_skip ("needs python3");
  return python != NULL;
}

/* tests/peers/fake-peers.py misbehaving as mode says for every peer,
 * with TMPDIR tmp and, unless NULL, its process ids written into pids. */
static char **
hostile_env (const char *mode, const char *tmp, const char *pids)
{
  g_autofree char *runner = g_test_build_filename (G_TEST_DIST, "peers",
                                                   "fake-peers.py", NULL);
  char **env = g_environ_setenv (g_get_environ (), "SPX_PEERS_RUNNER",
                                 runner, TRUE);
  env = g_environ_setenv (env, "FAKE_PEERS_MODE", mode, TRUE);
  env = g_environ_setenv (env, "TMPDIR", tmp, TRUE);
  return pids ? g_environ_setenv (env, "FAKE_PEERS_PIDS", pids, TRUE)
              : env;
}

/* Every runner peer failed (not ran), its note holding needle. */
static void
assert_peers_failed (JsonObject *o, const char *needle)
{
  for (guint i = FIRST_RUNNER; i < G_N_ELEMENTS (peer_names); i++)
    {
      const char *note = peer_note (o, peer_names[i]);
      if (strstr (note, needle) == NULL)
        g_error ("%s: '%s' lacks '%s'", peer_names[i], note, needle);
      g_assert_true (json_object_get_boolean_member (peer (o, peer_names[i]),
                                                     "failed"));
    }
}

/* A process that is gone or a zombie (a container's init may never reap
 * what was reparented to it); given a few seconds to die. */
static gboolean
process_gone (const char *pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%s/stat", pid);
  for (guint tries = 0; tries < 50; tries++, g_usleep (100000))
    {
      g_autofree char *stat = NULL;
      if (!g_file_get_contents (path, &stat, NULL, NULL))
        return TRUE;
      const char *state = strrchr (stat, ')'); /* after the name */
      if (state != NULL && state[1] == ' ' && state[2] == 'Z')
        return TRUE;
    }
  return FALSE;
}

/* Every PEER.pid file in pids names a runner and the child it started:
 * all gone. Removes the files; returns how many there were. */
static guint
assert_runners_gone (const char *pids)
{
  g_autoptr (GDir) dir = g_dir_open (pids, 0, NULL);
  guint files = 0;
  for (const char *name; dir != NULL && (name = g_dir_read_name (dir));)
    {
      g_autofree char *path = g_build_filename (pids, name, NULL);
      g_autofree char *text = NULL;
      g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
      g_auto (GStrv) ids = g_strsplit (g_strstrip (text), " ", -1);
      g_assert_cmpuint (g_strv_length (ids), ==, 2);
      for (guint i = 0; ids[i] != NULL; i++)
        if (!process_gone (ids[i]))
          g_error ("%s: process %s still runs", name, ids[i]);
      g_unlink (path);
      files++;
    }
  return files;
}

/* A runner printing without end is stopped at SPX_PEERS_OUTPUT_MAX (or
 * 1 MiB), on stdout or stderr, and fails; the bench goes on. */
static void
test_bench_peers_flood (void)
{
  if (!have_python ())
    return;
  g_autofree char *tmp = g_dir_make_tmp ("spx-test-peers-XXXXXX", NULL);
  g_autoptr (JsonParser) parser = json_parser_new ();
  char **env = g_environ_setenv (hostile_env ("flood", tmp, NULL),
                                 "SPX_PEERS_OUTPUT_MAX", "65536", TRUE);
  g_autoptr (JsonObject) o = run_peers_env (parser, env, NULL);
  assert_peers_failed (o, "stopped: it printed more than 64.0 KiB (the "
                       "limit, SPX_PEERS_OUTPUT_MAX)");
  g_autoptr (JsonParser) parser2 = json_parser_new ();
  g_autoptr (JsonObject) o2 = run_peers_env (parser2, hostile_env ("flood",
                                                                   tmp, NULL),
                                             NULL);
  assert_peers_failed (o2, "more than 1.0 MiB");
  g_assert_cmpint (g_rmdir (tmp), ==, 0); /* nothing left in it */
}

/* A runner that sleeps (and started a child that sleeps) is stopped after
 * --peer-timeout with its child, and fails saying so. */
/* A runner that sleeps (and started a child that sleeps) is stopped after
 * --peer-timeout with its child, and fails saying so. A runner stopped
 * before it wrote its pid file (a loaded machine starts Python slowly)
 * leaves nothing to check: the limit is raised until all four wrote
 * theirs, so the verdict never depends on the machine's speed. */
static void
test_bench_peers_timeout (void)
{
  if (!have_python ())
    return;
  g_autofree char *tmp = g_dir_make_tmp ("spx-test-peers-XXXXXX", NULL);
  g_autofree char *pids = g_dir_make_tmp ("spx-test-pids-XXXXXX", NULL);
  guint seen = 0;
  for (guint limit = 1; seen < 4; limit *= 4)
    {
      g_autofree char *arg = g_strdup_printf ("%u", limit);
      g_autofree char *note = g_strdup_printf ("stopped after %u s (the "
                                               "limit per peer)", limit);
      g_autoptr (JsonParser) parser = json_parser_new ();
      g_autoptr (JsonObject) o = run_peers_env (parser,
                                                hostile_env ("sleep", tmp,
                                                             pids), arg);
      assert_peers_failed (o, note);
      seen = assert_runners_gone (pids);
      g_test_message ("limit %u s: %u of 4 runners had started their child",
                      limit, seen);
      g_assert_cmpuint (limit, <, 256); /* 64 s and no child: broken */
    }
  g_assert_cmpint (g_rmdir (pids), ==, 0);
  g_assert_cmpint (g_rmdir (tmp), ==, 0);
}

/* An answer of NaN or Infinity, in its times or its C, is a failure with
 * the reason, not a peer that ran. */
static void
test_bench_peers_not_finite (void)
{
  if (!have_python ())
    return;
  g_autofree char *tmp = g_dir_make_tmp ("spx-test-peers-XXXXXX", NULL);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (JsonObject) o = run_peers_env (parser, hostile_env ("nan", tmp,
                                                                 NULL), NULL);
  assert_peers_failed (o, "not finite");
  g_assert_cmpstr (peer_note (o, "torch-csr"), ==, "the runner's C is not "
                   "finite (NaN or infinite) in 110 of its 110 values");
  g_assert_nonnull (strstr (peer_note (o, "torch-dense"), "\"ms\": NaN"));
  g_assert_nonnull (strstr (peer_note (o, "scipy-csr"), "Infinity"));
  g_assert_nonnull (strstr (peer_note (o, "scipy-bsr"), "in 1 of its 110"));
  g_assert_cmpint (g_rmdir (tmp), ==, 0);
}

static char *
read_all (int fd)
{
  GString *text = g_string_new (NULL);
  char buf[4096];
  for (gssize got; (got = read (fd, buf, sizeof buf)) > 0;)
    g_string_append_len (text, buf, got);
  close (fd);
  return g_string_free (text, FALSE);
}

/* SIGINT (Ctrl-C) or SIGTERM while a runner works: the bench stops it and
 * its child, removes its operands and exits 128 + the signal with one
 * line. */
static void
test_bench_peers_signal (gconstpointer data)
{
  int signum = GPOINTER_TO_INT (data);
  if (!have_python ())
    return;
  g_autofree char *tmp = g_dir_make_tmp ("spx-test-peers-XXXXXX", NULL);
  g_autofree char *pids = g_dir_make_tmp ("spx-test-pids-XXXXXX", NULL);
  g_auto (GStrv) env = hostile_env ("sleep", tmp, pids);
  const char *args[] = { PEERS_ARGS, NULL };
  g_autoptr (GPtrArray) argv = new_argv ();
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  GPid pid;
  int out_fd, err_fd;
  g_autoptr (GError) error = NULL;
  g_spawn_async_with_pipes (NULL, (char **) argv->pdata, env,
                            G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid,
                            NULL, &out_fd, &err_fd, &error);
  g_assert_no_error (error);
  /* the first runner has started (and its child) */
  g_autofree char *first = g_build_filename (pids, "torch-csr.pid", NULL);
  for (guint tries = 0; !g_file_test (first, G_FILE_TEST_EXISTS); tries++)
    {
      g_assert_cmpuint (tries, <, 1200);
      g_usleep (100000);
    }
  g_assert_cmpint (kill (pid, signum), ==, 0);
  int status = 0;
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_autofree char *out = read_all (out_fd);
  g_autofree char *err = read_all (err_fd);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 128 + signum);
  g_assert_cmpstr (out, ==, "");
  g_assert_cmpuint (count_lines (err), ==, 1);
  g_assert_nonnull (strstr (err, signum == SIGINT ? "interrupted by SIGINT"
                                                  : "interrupted by SIGTERM"));
  g_assert_cmpint (g_rmdir (tmp), ==, 0); /* no spx-peers-* left */
  g_assert_cmpuint (assert_runners_gone (pids), ==, 1);
  g_assert_cmpint (g_rmdir (pids), ==, 0);
}

/* A kernel forced through OPENBLAS_CORETYPE weaker than the processor's
 * is overridden (dense at full speed) and said so; SPX_KEEP_CORETYPE
 * keeps it, and the JSON says dense is not at full speed. */
static void
test_bench_dense_core (void)
{
  __builtin_cpu_init ();
  if (!__builtin_cpu_supports ("avx2"))
    {
      g_test_skip ("needs a processor with AVX2 to have a better kernel");
      return;
    }
  char **env = g_environ_setenv (g_get_environ (), "OPENBLAS_CORETYPE",
                                 "Prescott", TRUE);
  run_env = env;
  Run r = run_cli ("bench", "--m", "128", "--k", "128", "--n", "32",
                   "--block", "16", "--reps", "1", "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *dense = json_object_get_object_member (
    parse_object (parser, r.out), "dense");
  g_assert_cmpstr (json_object_get_string_member (dense, "core"), !=,
                   "Prescott");
  g_assert_cmpstr (json_object_get_string_member (dense, "core_requested"),
                   ==, "Prescott");
  g_assert_true (json_object_get_boolean_member (dense, "full_speed"));
  g_assert_nonnull (strstr (r.err, "OPENBLAS_CORETYPE=Prescott"));
  run_clear (&r);

  run_env = g_environ_setenv (env, "SPX_KEEP_CORETYPE", "1", TRUE);
  r = run_cli ("bench", "--m", "128", "--k", "128", "--n", "32", "--block",
               "16", "--reps", "1", "--json", NULL);
  g_strfreev (run_env);
  run_env = NULL;
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) parser2 = json_parser_new ();
  dense = json_object_get_object_member (parse_object (parser2, r.out),
                                         "dense");
  g_assert_cmpstr (json_object_get_string_member (dense, "core"), ==,
                   "Prescott");
  g_assert_false (json_object_get_boolean_member (dense, "full_speed"));
  g_assert_nonnull (strstr (r.err, "weaker than this processor's"));
  run_clear (&r);
}

/* A scenario whose mask is a PNG and whose machine is a file beside it:
 * the commands read both, and the picture does not depend on the folder
 * they run in. */
static void
test_scenario_files (void)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-cli-XXXXXX", NULL);
  g_autofree char *png = g_build_filename (dir, "layer.png", NULL);
  Run r = run_cli ("generate", "--pattern", "uniform", "--rows", "64",
                   "--cols", "48", "--block", "8", "--density", "0.25",
                   "--out", png, NULL);
  g_assert_cmpint (r.status, ==, 0);
  run_clear (&r);
  g_autofree char *machine = g_build_filename (dir, "four.machine", NULL);
  g_assert_true (g_file_set_contents (machine,
    "[machine]\nname=four\ntiles=4\nsram-bytes=65536\nclock-hz=1.85e9\n"
    "flop-per-cycle-fp16=128\nflop-per-cycle-fp32=32\n", -1, NULL));
  g_autofree char *spx = g_build_filename (dir, "s.spx", NULL);
  g_assert_true (g_file_set_contents (spx,
    "[scenario]\nversion=1\nm=64\nk=48\nn=16\nblock=8\n"
    "machine=four.machine\n[mask]\nsource=file\npath=layer.png\n", -1,
    NULL));

  r = run_cli ("model", "--scenario", spx, "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *o = parse_object (parser, r.out);
  g_assert_cmpstr (json_object_get_string_member (o, "machine"), ==, "four");
  g_assert_cmpfloat (member (o, "m"), ==, 64);
  g_assert_cmpfloat (member (o, "k"), ==, 48);
  g_assert_cmpfloat (member (o, "block"), ==, 8);
  g_assert_cmpfloat (member (o, "density"), ==, 0.25); /* 12 of 48 blocks */
  g_assert_cmpfloat (member (o, "dense.tiles_used"), <=, 4);
  run_clear (&r);

  g_autofree char *here = g_build_filename (dir, "here.svg", NULL);
  g_autofree char *there = g_build_filename (dir, "there.svg", NULL);
  r = run_cli_in (dir, "render", "--scenario", "s.spx", "--view", "tiles",
                  "--out", here, NULL);
  g_assert_cmpint (r.status, ==, 0);
  run_clear (&r);
  r = run_cli_in ("/", "render", "--scenario", spx, "--view", "tiles",
                  "--out", there, NULL);
  g_assert_cmpint (r.status, ==, 0);
  run_clear (&r);
  g_autofree char *a = test_read_all (here), *b = test_read_all (there);
  g_assert_cmpstr (a, ==, b);

  /* the machine file gone: the error names it */
  g_unlink (machine);
  r = run_cli ("render", "--scenario", spx, "--view", "tiles", "--out",
               here, NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "four.machine"));
  run_clear (&r);
  const char *files[] = { png, spx, here, there };
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    g_unlink (files[i]);
  g_rmdir (dir);
}

/* sweep --mask: the layer re-blocked to 1, 2, 4, 8, 16 at its own shape,
 * each point at its own block density, with spread and verdict. */
static void
test_sweep_mask (void)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-cli-XXXXXX", NULL);
  g_autofree char *csv = g_build_filename (dir, "layer.csv", NULL);
  g_autofree char *mask =
    data_path ("transformer-magnitude_pruning-0.98-attention_q.smtx");
  Run r = run_cli ("sweep", "--mask", mask, "--n", "32", "--reps", "5",
                   "--warmup", "1", "--out", csv, NULL);
  g_assert_cmpint (r.status, ==, 0);
  /* the default fp16: bf16 on the CPU, so no tile-wise (fp32 only) */
  g_assert_nonnull (strstr (r.out, "On this CPU (bf16, over "));
  run_clear (&r);
  /* dense, static, dynamic on each source */
  g_assert_cmpuint (assert_sweep_csv (csv), ==, 5 * (3 + 3));
  g_autofree char *text = test_read_all (csv);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  /* the file's block densities (info --block B) */
  const struct { guint block; double density; } want[] = {
    { 1, 0.0199966 }, { 2, 0.0692902 }, { 4, 0.205261 }, { 8, 0.457031 },
    { 16, 0.728516 } };
  for (guint i = 1; lines[i][0] != '\0'; i++)
    {
      g_auto (GStrv) f = g_strsplit (lines[i], ",", -1);
      g_assert_cmpstr (f[4], ==, "512");
      g_assert_cmpstr (f[5], ==, "512");
      g_assert_cmpstr (f[6], ==, "32");
      guint block = (guint) atoi (f[2]);
      gboolean found = FALSE;
      for (guint w = 0; w < G_N_ELEMENTS (want); w++)
        if (want[w].block == block)
          {
            g_assert_cmpfloat_with_epsilon (g_ascii_strtod (f[3], NULL),
                                            want[w].density, 1e-5);
            found = TRUE;
          }
      g_assert_true (found);
      double ms = g_ascii_strtod (f[9], NULL);
      g_assert_true (g_ascii_strtod (f[12], NULL) <= ms);
      g_assert_true (ms <= g_ascii_strtod (f[13], NULL));
      g_assert_true (g_str_equal (f[14], "0") || g_str_equal (f[14], "1"));
    }
  r = run_cli ("sweep", "--mask", mask, "--m", "64", "--out", csv, NULL);
  assert_usage_error (&r, "--m");
  r = run_cli ("sweep", "--mask", mask, "--reps", "3", "--out", csv, NULL);
  assert_usage_error (&r, "sparse-explorer sweep: --reps: expected a whole "
                      "number from 5 to");
  g_unlink (csv);
  g_rmdir (dir);
}

/* sweep --scenario takes the points the window's sweep and render --view
 * speedup take: the scenario's own block size among the defaults, last;
 * --blocks replaces them all. */
static void
test_sweep_scenario_block (void)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-cli-XXXXXX", NULL);
  g_autofree char *csv = g_build_filename (dir, "b2.csv", NULL);
  g_autofree char *spx = g_build_filename (dir, "b2.spx", NULL);
  g_assert_true (g_file_set_contents (spx, "[scenario]\nversion=1\nm=64\n"
                                      "k=64\nn=16\nblock=2\n"
                                      "machine=teach16\n[mask]\n"
                                      "source=generated\ndensity=0.25\n",
                                      -1, NULL));
  Run r = run_cli ("sweep", "--scenario", spx, "--source", "model", "--out",
                   csv, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "On the IPU model (teach16, fp16):"));
  run_clear (&r);
  g_autofree char *text = test_read_all (csv);
  /* blocks 1, 4, 8, 16, 2 × densities 1/4 … 1/32 × 3 modes */
  g_assert_cmpuint (count_lines (text), ==, 1 + 5 * 4 * 3);
  g_assert_nonnull (strstr (text, "\nmodel,static,16,0.25,"));
  g_assert_nonnull (strstr (text, "\nmodel,dynamic,2,0.03125,"));
  g_auto (GStrv) lines = g_strsplit (g_strstrip (text), "\n", -1);
  g_assert_true (g_str_has_prefix (lines[g_strv_length (lines) - 1],
                                   "model,dynamic,2,"));
  g_clear_pointer (&text, g_free);
  r = run_cli ("sweep", "--scenario", spx, "--source", "model", "--blocks",
               "4", "--out", csv, NULL);
  g_assert_cmpint (r.status, ==, 0);
  run_clear (&r);
  text = test_read_all (csv);
  g_assert_cmpuint (count_lines (text), ==, 1 + 4 * 3);
  g_assert_null (strstr (text, "\nmodel,static,2,"));
  g_unlink (csv);
  g_unlink (spx);
  g_rmdir (dir);
}

/* ---- what messages say ------------------------------------------------ */

static char *
hostile_path (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", "hostile", name, NULL);
}

/* threads=1024 in a .spx is the file's fault where the CPU measures
 * with it, named with its key; nothing claims points were written. */
static void
test_scenario_threads (void)
{
  if (4 * sysconf (_SC_NPROCESSORS_ONLN) >= 1024)
    {
      g_test_skip ("this machine runs 1024 threads");
      return;
    }
  g_autofree char *spx = hostile_path ("msg-threads-1024.spx");
  g_autofree char *dir = g_dir_make_tmp ("spx-cli-XXXXXX", NULL);
  g_autofree char *csv = g_build_filename (dir, "out.csv", NULL);
  const char *const commands[][8] = {
    { "bench", "--scenario", spx, NULL },
    { "sweep", "--scenario", spx, "--source", "cpu", "--out", csv, NULL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      Run r = run_cli_strv (commands[i]);
      g_assert_null (strstr (r.err, "written"));
      g_assert_null (strstr (r.err, "nothing"));
      g_assert_nonnull (strstr (r.err, "processors online"));
      assert_input_error (&r, "msg-threads-1024.spx: [scenario] threads: "
                          "1024 is more than this machine runs: expected 0 "
                          "(all cores) to ");
    }
  g_assert_false (g_file_test (csv, G_FILE_TEST_EXISTS));
  /* what does not measure opens the file as it is, and so does --threads */
  Run planned = run_cli ("model", "--scenario", spx, NULL);
  g_assert_cmpint (planned.status, ==, 0);
  g_assert_nonnull (strstr (planned.out, "static"));
  run_clear (&planned);
  Run two = run_cli ("bench", "--scenario", spx, "--threads", "2", "--reps",
                     "5", NULL);
  g_assert_cmpint (two.status, ==, 0);
  g_assert_nonnull (strstr (two.out, "2 threads"));
  run_clear (&two);
  /* --threads says the same limit, as usage */
  Run r = run_cli ("sweep", "--threads", "100000", "--out", csv, NULL);
  assert_usage_error (&r, "sparse-explorer sweep: --threads: expected a "
                      "whole number from 1 to ");
  r = run_cli ("bench", "--threads", "100000", "--m", "64", "--k", "64",
               "--n", "8", "--block", "8", NULL);
  assert_usage_error (&r, "sparse-explorer bench: --threads: expected a "
                      "whole number from 1 to ");
  g_rmdir (dir);
}

/* A prefix is said once: the command's, never the core's as well. */
static void
test_message_prefixes (void)
{
  Run r = run_cli ("sweep", "--reps", "1", "--source", "cpu", "--out",
                   "x.csv", NULL);
  g_assert_null (strstr (r.err, "sweep: sweep:"));
  assert_usage_error (&r, "sparse-explorer sweep: --reps: expected a whole "
                      "number from 5 to 100000, got '1'");
  const char *const commands[][12] = {
    { "info", "/nonexistent.mtx", NULL },
    { "model", "--scenario", "/nonexistent.spx", NULL },
    { "bench", "--scenario", "/nonexistent.spx", NULL },
    { "sweep", "--scenario", "/nonexistent.spx", "--out", "x.csv", NULL },
    { "render", "--view", "tiles", "--scenario", "/nonexistent.spx", "--out",
      "x.png", NULL },
    { "generate", "--rows", "8", "--cols", "8", "--out", "/nonexistent/x.mtx",
      NULL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      r = run_cli_strv (commands[i]);
      g_autofree char *once = g_strdup_printf ("sparse-explorer %s: /",
                                               commands[i][0]);
      g_autofree char *twice = g_strdup_printf ("%s: %s:", commands[i][0],
                                                commands[i][0]);
      g_assert_true (g_str_has_prefix (r.err, once));
      g_assert_null (strstr (r.err, twice));
      assert_input_error (&r, "/nonexist");
    }
}

/* Files with lines ending in CR alone read as any other; a path= that
 * is not text and a PNG header out of the format say what is wrong. */
static void
test_loader_messages (void)
{
  g_autofree char *mtx = hostile_path ("msg-cr-lines.mtx");
  Run r = run_cli ("info", mtx, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "4 × 4"));
  run_clear (&r);
  g_autofree char *spx = hostile_path ("msg-cr-lines.spx");
  r = run_cli ("model", "--scenario", spx, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "teach16 · fp16 · 64 × 64"));
  run_clear (&r);
  g_autofree char *bad_path = hostile_path ("msg-bad-utf8-path.spx");
  r = run_cli ("model", "--scenario", bad_path, NULL);
  assert_input_error (&r, "msg-bad-utf8-path.spx: [mask] path: expected "
                      "UTF-8 text");
  g_autofree char *png = hostile_path ("msg-png-depth3.png");
  r = run_cli ("info", png, NULL);
  g_assert_null (strstr (r.err, "checksum"));
  assert_input_error (&r, "msg-png-depth3.png: byte 24: expected an IHDR "
                      "bit depth of 1, 2, 4, 8 or 16 for colour type 0 "
                      "(greyscale), got 3");
}

/* ---- one grammar: exit codes, stated defaults, modes, refusals ------ */

/* The environment of a machine without a display. */
static char **
headless_env (void)
{
  char **env = g_environ_unsetenv (g_get_environ (), "DISPLAY");
  return g_environ_unsetenv (env, "WAYLAND_DISPLAY");
}

/* The window's options fail as a command's do: one line, exit 2. Run
 * without a display, a check that let them through ends in exit 1. */
static void
test_global_options (void)
{
  run_env = headless_env ();
  Run r = run_cli ("--frobnicate", NULL);
  g_assert_true (g_str_has_prefix (r.err, "sparse-explorer: "));
  g_assert_nonnull (strstr (r.err, "--help"));
  assert_usage_error (&r, "--frobnicate");
  r = run_cli ("--view", NULL);
  assert_usage_error (&r, "--view");
  r = run_cli ("--view", "bogus", NULL);
  assert_usage_error (&r, "--view");
  g_strfreev (run_env);
  run_env = NULL;
  r = run_cli ("info", "--frobnicate", NULL);
  g_assert_nonnull (strstr (r.err, "sparse-explorer info --help"));
  assert_usage_error (&r, "--frobnicate");
}

/* No display: the window's path is one line saying so, naming the
 * commands that work without one, and nothing from GTK. */
static void
test_no_display (void)
{
  if (g_strcmp0 (g_getenv ("SPX_HAVE_GUI"), "1") != 0)
    {
      g_test_skip ("this build has no window");
      return;
    }
  g_autofree char *tiny = data_path ("cli-tiny.mtx");
  const char *const commands[] = { "info", "generate", "bench", "model",
                                   "render", "sweep", "--help" };
  run_env = headless_env ();
  for (guint i = 0; i < 2; i++)
    {
      Run r = i == 0 ? run_cli (NULL) : run_cli (tiny, NULL);
      g_assert_cmpint (r.status, ==, 1);
      g_assert_cmpuint (count_lines (r.err), ==, 1);
      g_assert_true (g_str_has_prefix (r.err, "sparse-explorer: no display"));
      for (guint c = 0; c < G_N_ELEMENTS (commands); c++)
        g_assert_nonnull (strstr (r.err, commands[c]));
      g_assert_null (strstr (r.err, "Gtk"));
      g_assert_cmpstr (r.out, ==, "");
      run_clear (&r);
    }
  g_strfreev (run_env);
  run_env = NULL;
}

/* "@DIR/…" and "@TINY" in a case's arguments, made real. */
#define ARGS_MAX 32
typedef struct {
  const char *dir, *tiny;
  char       *args[ARGS_MAX + 1];
} Args;

static const char *const *
args_expand (Args *a, const char *const *in)
{
  guint i = 0;
  for (; in[i] != NULL; i++)
    {
      g_assert_cmpuint (i + 1, <, G_N_ELEMENTS (a->args));
      a->args[i] = g_str_has_prefix (in[i], "@DIR/")
                     ? g_build_filename (a->dir, in[i] + 5, NULL)
                   : g_str_equal (in[i], "@TINY") ? g_strdup (a->tiny)
                   : g_strdup (in[i]);
    }
  a->args[i] = NULL;
  return (const char *const *) a->args;
}

static void
args_clear (Args *a)
{
  for (guint i = 0; a->args[i] != NULL; i++)
    g_clear_pointer (&a->args[i], g_free);
}

/* A case's arguments, NULL-terminated, in a table. */
#define ARGS(...) { __VA_ARGS__, NULL }

/* Every command, every class of outcome: 0 success, 1 a bad input file
 * or a failed write (naming the path the user gave), 2 bad usage. */
static void
test_exit_codes (void)
{
  static const struct {
    int status;
    const char *needle;
    const char *args[ARGS_MAX];
  } cases[] = {
    { 0, NULL, ARGS ("info", "@TINY") },
    { 2, "--block", ARGS ("info", "@TINY", "--block", "0") },
    { 1, "/nonexistent/m.mtx", ARGS ("info", "/nonexistent/m.mtx") },
    { 0, NULL, ARGS ("generate", "--rows", "8", "--cols", "8", "--out",
                     "@DIR/g.mtx") },
    { 2, "--rows", ARGS ("generate", "--rows", "0", "--cols", "8", "--out",
                         "@DIR/g.mtx") },
    { 1, "/nonexistent/dir/x.mtx: could not be written (",
      ARGS ("generate", "--rows", "8", "--cols", "8", "--out",
            "/nonexistent/dir/x.mtx") },
    { 0, NULL, ARGS ("bench", "--m", "32", "--k", "32", "--n", "4",
                     "--block", "4", "--reps", "1", "--warmup", "0") },
    { 2, "--mode", ARGS ("bench", "--m", "32", "--k", "32", "--n", "4",
                         "--block", "4", "--mode", "nope") },
    { 1, "/nonexistent/m.smtx", ARGS ("bench", "--mask", "/nonexistent/m.smtx",
                                      "--n", "4", "--block", "4") },
    { 0, NULL, ARGS ("model", "--m", "32", "--k", "32", "--n", "4",
                     "--block", "4", "--machine", "teach16") },
    { 2, "--machine", ARGS ("model", "--m", "32", "--k", "32", "--n", "4",
                            "--block", "4", "--machine", "nosuch") },
    { 1, "bad.machine:3: not a machine key file",
      ARGS ("model", "--m", "32", "--k", "32", "--n", "4", "--block", "4",
            "--machine", "@DIR/bad.machine") },
    { 1, "/nonexistent/m.machine",
      ARGS ("model", "--m", "32", "--k", "32", "--n", "4", "--block", "4",
            "--machine", "/nonexistent/m.machine") },
    { 0, NULL, ARGS ("render", "--view", "tiles", "--machine", "teach16",
                     "--m", "32", "--k", "32", "--n", "4", "--block", "4",
                     "--out", "@DIR/r.svg") },
    { 2, "--view", ARGS ("render", "--view", "nope", "--out", "@DIR/r.svg") },
    { 1, "/nonexistent/m.mtx", ARGS ("render", "--view", "mask", "--mask",
                                     "/nonexistent/m.mtx", "--out",
                                     "@DIR/r.svg") },
    { 1, "bad.machine:3:", ARGS ("render", "--view", "tiles", "--machine",
                                 "@DIR/bad.machine", "--out", "@DIR/r.svg") },
    { 1, "/nonexistent/dir/x.svg: could not be written (",
      ARGS ("render", "--view", "tiles", "--machine", "teach16", "--m", "32",
            "--k", "32", "--n", "4", "--block", "4", "--out",
            "/nonexistent/dir/x.svg") },
    { 0, NULL, ARGS ("sweep", "--source", "model", "--densities", "1/4",
                     "--blocks", "4", "--m", "32", "--k", "32", "--n", "4",
                     "--out", "@DIR/s.csv") },
    { 2, "--source", ARGS ("sweep", "--source", "gpu", "--out", "@DIR/s.csv") },
    { 1, "/nonexistent/m.mtx", ARGS ("sweep", "--mask", "/nonexistent/m.mtx",
                                     "--out", "@DIR/s.csv") },
    { 1, "bad.machine:3:", ARGS ("sweep", "--source", "model", "--machine",
                                 "@DIR/bad.machine", "--out", "@DIR/s.csv") },
    { 1, "/nonexistent/dir/x.csv: could not be written (",
      ARGS ("sweep", "--source", "model", "--densities", "1/4", "--blocks",
            "4", "--m", "32", "--k", "32", "--n", "4", "--out",
            "/nonexistent/dir/x.csv") },
  };
  g_autofree char *dir = g_dir_make_tmp ("spx-cli-XXXXXX", NULL);
  g_autofree char *tiny = data_path ("cli-tiny.mtx");
  g_autofree char *machine = g_build_filename (dir, "bad.machine", NULL);
  g_assert_true (g_file_set_contents (machine, "[machine]\ntiles=16\n"
                                      "secret words\n", -1, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      Args a = { dir, tiny, { NULL } };
      Run r = run_cli_strv (args_expand (&a, cases[i].args));
      g_test_message ("%s %s: %d %s", a.args[0], a.args[1], r.status, r.err);
      g_autofree char *prefix = g_strdup_printf ("sparse-explorer %s: ",
                                                 a.args[0]);
      if (cases[i].status == 0)
        g_assert_cmpint (r.status, ==, 0);
      else
        g_assert_true (g_str_has_prefix (r.err, prefix));
      /* the user's path, never the temporary file beside it */
      g_assert_null (strstr (r.err, ".csv."));
      g_assert_null (strstr (r.err, "secret"));
      if (cases[i].status == 1)
        assert_input_error (&r, cases[i].needle);
      else if (cases[i].status == 2)
        assert_usage_error (&r, cases[i].needle);
      else
        run_clear (&r);
      args_clear (&a);
    }
  const char *files[] = { "bad.machine", "g.mtx", "r.svg", "s.csv" };
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = g_build_filename (dir, files[i], NULL);
      g_unlink (path);
    }
  g_rmdir (dir);
}

/* ---- the defaults --help states are the behaviour ------------------- */

/* Every "--option=V" a command's --help states "(default V)" of; a
 * default in words ("(default: all cores)") is not a value to give. */
static GPtrArray *
help_defaults (const char *command)
{
  Run r = run_cli (command, "--help", NULL);
  g_assert_cmpint (r.status, ==, 0);
  GPtrArray *found = g_ptr_array_new_with_free_func (g_free);
  g_auto (GStrv) lines = g_strsplit (r.out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *opt = strstr (lines[i], "--");
      if (opt == NULL || strspn (lines[i], " ") < 2)
        continue;
      g_autofree char *name = g_strndup (opt, strcspn (opt, "= "));
      for (const char *p = opt; (p = strstr (p, "(default ")) != NULL;)
        {
          p += strlen ("(default ");
          gsize n = strcspn (p, ") ;");
          if (n > 0 && (p[n] == ')' || p[n] == ';'))
            g_ptr_array_add (found, g_strdup_printf ("%s=%.*s", name, (int) n,
                                                     p));
        }
    }
  run_clear (&r);
  return found;
}

/* How two runs are compared: their output files' bytes, or their JSON
 * (stdout or the output file) without what timing varies. */
typedef enum { SAME_FILE, SAME_JSON_OUT, SAME_JSON_FILE } Same;

static void
json_canon (JsonNode *node, GString *out)
{
  static const char *const varies[] = {
    "ms", "ms_q1", "ms_q3", "gflops", "nz_gflops", "speedup", "efficiency",
    "speedup_q1", "speedup_q3",
    "max_rel_err", "plan_ms", "noisy", "noise", "busy_cores", "load_ms",
    "nz_throughput", "best_gflops", "full_speed", "library", "plain_ms",
    NULL };
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *o = json_node_get_object (node);
      g_autoptr (GList) members = json_object_get_members (o);
      g_string_append_c (out, '{');
      for (GList *m = members; m != NULL; m = m->next)
        if (!g_strv_contains (varies, m->data) &&
            /* a sweep point's dense library: the faster, run to run */
            !(g_str_equal (m->data, "dense") &&
              JSON_NODE_HOLDS_VALUE (json_object_get_member (o, m->data))))
          {
            g_string_append_printf (out, "%s:", (const char *) m->data);
            json_canon (json_object_get_member (o, m->data), out);
            g_string_append_c (out, ',');
          }
      g_string_append_c (out, '}');
    }
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *a = json_node_get_array (node);
      g_string_append_c (out, '[');
      for (guint i = 0; i < json_array_get_length (a); i++)
        {
          json_canon (json_array_get_element (a, i), out);
          g_string_append_c (out, ',');
        }
      g_string_append_c (out, ']');
    }
  else
    {
      g_autofree char *text = json_to_string (node, FALSE);
      g_string_append (out, text);
    }
}

/* What a run produced, to compare: a file's bytes or canonical JSON. */
static char *
run_result (Same same, const char *const *args, const char *out)
{
  Run r = run_cli_strv (args);
  if (r.status != 0)
    g_error ("%s %s: exit %d: %s", args[0], args[1], r.status, r.err);
  char *text = NULL;
  if (same != SAME_JSON_OUT)
    g_assert_true (g_file_get_contents (out, &text, NULL, NULL));
  if (same == SAME_FILE)
    {
      run_clear (&r);
      return text;
    }
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_data (
    parser, same == SAME_JSON_OUT ? r.out : text, -1, NULL));
  GString *canon = g_string_new (NULL);
  json_canon (json_parser_get_root (parser), canon);
  g_free (text);
  run_clear (&r);
  return g_string_free (canon, FALSE);
}

typedef struct {
  const char *command, *option; /* option: "--name=VALUE" as stated */
  Same same;
  const char *args[ARGS_MAX];   /* "@OUT.ext": the output file */
} StatedDefault;

#define GEN "--rows", "64", "--cols", "96", "--block", "4", "--density", "1/4"
#define BENCH "bench", "--m", "64", "--k", "96", "--n", "8", "--block", "4", \
              "--threads", "1", "--json"
#define MODEL "--m", "64", "--k", "64", "--n", "16", "--block", "4", "--json"
#define RENDER "render", "--out", "@OUT.svg"
#define TEACH "--machine", "teach16"
#define SMALL "--m", "64", "--k", "64", "--n", "16", "--block", "4"
#define SWEEP_MODEL "sweep", "--source", "model", "--out", "@OUT.csv", \
                    "--n", "16"
#define SWEEP_CPU "sweep", "--out", "@OUT.json", "--densities", "1/4", \
                  "--blocks", "4", "--m", "32", "--k", "32", "--n", "4"

static const StatedDefault stated[] = {
  { "info", "--block=1", SAME_JSON_OUT, ARGS ("info", "@TINY", "--json") },

  { "generate", "--pattern=uniform", SAME_FILE,
    ARGS ("generate", GEN, "--out", "@OUT.mtx") },
  { "generate", "--block=1", SAME_FILE,
    ARGS ("generate", "--rows", "64", "--cols", "96", "--out", "@OUT.mtx") },
  { "generate", "--density=0.1", SAME_FILE,
    ARGS ("generate", "--rows", "64", "--cols", "96", "--out", "@OUT.mtx") },
  { "generate", "--seed=1", SAME_FILE, ARGS ("generate", GEN, "--out",
                                             "@OUT.mtx") },
  { "generate", "--tile-width=128", SAME_FILE,
    ARGS ("generate", "--pattern", "tilewise", "--rows", "64", "--cols", "512",
          "--block", "4", "--out", "@OUT.mtx") },
  { "generate", "--nm=2:4", SAME_FILE,
    ARGS ("generate", GEN, "--pattern", "nm", "--out", "@OUT.mtx") },
  { "generate", "--exponent=1", SAME_FILE,
    ARGS ("generate", GEN, "--pattern", "skewed", "--out", "@OUT.mtx") },

  { "bench", "--op=spmm", SAME_JSON_OUT, ARGS (BENCH, "--reps", "1") },
  { "bench", "--mode=static,dynamic", SAME_JSON_OUT,
    ARGS (BENCH, "--reps", "1") },
  { "bench", "--reps=7", SAME_JSON_OUT, ARGS (BENCH, "--warmup", "0") },
  { "bench", "--warmup=2", SAME_JSON_OUT, ARGS (BENCH, "--reps", "1") },
  { "bench", "--peer-timeout=300", SAME_JSON_OUT,
    ARGS (BENCH, "--reps", "1", "--peers") },
  { "bench", "--pattern=uniform", SAME_JSON_OUT,
    ARGS (BENCH, "--reps", "1", "--mode", "tilewise") },
  { "bench", "--density=1/16", SAME_JSON_OUT, ARGS (BENCH, "--reps", "1") },
  { "bench", "--seed=1", SAME_JSON_OUT,
    ARGS (BENCH, "--reps", "1", "--mode", "tilewise") },
  { "bench", "--tile-width=128", SAME_JSON_OUT,
    ARGS ("bench", "--m", "64", "--k", "512", "--n", "8", "--block", "4",
          "--threads", "1", "--json", "--reps", "1", "--pattern", "tilewise",
          "--density", "1/4", "--mode", "tilewise") },
  { "bench", "--nm=2:4", SAME_JSON_OUT,
    ARGS (BENCH, "--reps", "1", "--pattern", "nm") },
  { "bench", "--exponent=1", SAME_JSON_OUT,
    ARGS (BENCH, "--reps", "1", "--pattern", "skewed", "--density", "1/4",
          "--mode", "tilewise") },

  { "bench", "--n=1024", SAME_JSON_OUT,
    ARGS ("bench", "--m", "64", "--k", "96", "--block", "4", "--threads",
          "1", "--json", "--reps", "1", "--mode", "static") },

  { "model", "--n=1024", SAME_JSON_OUT,
    ARGS ("model", "--m", "64", "--k", "64", "--block", "4", "--json",
          TEACH) },
  { "model", "--mode=all", SAME_JSON_OUT, ARGS ("model", MODEL, TEACH) },
  { "model", "--pattern=uniform", SAME_JSON_OUT, ARGS ("model", MODEL, TEACH) },
  { "model", "--density=1/16", SAME_JSON_OUT, ARGS ("model", MODEL, TEACH) },
  { "model", "--seed=1", SAME_JSON_OUT, ARGS ("model", MODEL, TEACH) },
  { "model", "--tile-width=128", SAME_JSON_OUT,
    ARGS ("model", "--m", "64", "--k", "512", "--n", "16", "--block", "4",
          "--json", TEACH, "--pattern", "tilewise") },
  { "model", "--nm=2:4", SAME_JSON_OUT,
    ARGS ("model", MODEL, TEACH, "--pattern", "nm") },
  { "model", "--exponent=1", SAME_JSON_OUT,
    ARGS ("model", MODEL, TEACH, "--pattern", "skewed", "--density", "1/4") },
  { "model", "--dtype=fp16", SAME_JSON_OUT, ARGS ("model", MODEL, TEACH) },
  { "model", "--machine=bow", SAME_JSON_OUT, ARGS ("model", MODEL) },

  { "render", "--mode=static", SAME_FILE,
    ARGS (RENDER, "--view", "tiles", TEACH, SMALL) },
  { "render", "--metric=bytes", SAME_FILE,
    ARGS (RENDER, "--view", "tiles", TEACH, SMALL) },
  { "render", "--metric=speedup", SAME_FILE,
    ARGS (RENDER, "--view", "speedup", TEACH, SMALL) },
  { "render", "--metric=grouped", SAME_FILE,
    ARGS (RENDER, "--view", "exchange", TEACH, SMALL) },
  { "render", "--width=960", SAME_FILE,
    ARGS (RENDER, "--view", "tiles", TEACH, SMALL) },
  { "render", "--height=600", SAME_FILE,
    ARGS (RENDER, "--view", "tiles", TEACH, SMALL) },
  { "render", "--scale=1", SAME_FILE,
    ARGS ("render", "--out", "@OUT.png", "--view", "tiles", TEACH, SMALL) },
  { "render", "--theme=light", SAME_FILE,
    ARGS (RENDER, "--view", "tiles", TEACH, SMALL) },
  { "render", "--pattern=uniform", SAME_FILE,
    ARGS (RENDER, "--view", "mask", TEACH, SMALL) },
  { "render", "--density=1/16", SAME_FILE,
    ARGS (RENDER, "--view", "mask", TEACH, SMALL) },
  { "render", "--seed=1", SAME_FILE,
    ARGS (RENDER, "--view", "mask", TEACH, SMALL) },
  { "render", "--tile-width=128", SAME_FILE,
    ARGS (RENDER, "--view", "mask", TEACH, "--m", "64", "--k", "512",
          "--block", "4", "--pattern", "tilewise") },
  { "render", "--nm=2:4", SAME_FILE,
    ARGS (RENDER, "--view", "mask", TEACH, SMALL, "--pattern", "nm") },
  { "render", "--exponent=1", SAME_FILE,
    ARGS (RENDER, "--view", "mask", TEACH, SMALL, "--pattern", "skewed",
          "--density", "1/4") },
  { "render", "--m=4096", SAME_FILE,
    ARGS (RENDER, "--view", "mask", "--k", "64", "--block", "16") },
  { "render", "--k=4096", SAME_FILE,
    ARGS (RENDER, "--view", "mask", "--m", "64", "--block", "16") },
  { "render", "--n=1024", SAME_FILE,
    ARGS (RENDER, "--view", "tiles", TEACH, "--m", "64", "--k", "64",
          "--block", "4") },
  { "render", "--block=16", SAME_FILE,
    ARGS (RENDER, "--view", "mask", TEACH, "--m", "64", "--k", "64") },
  { "render", "--dtype=fp16", SAME_FILE,
    ARGS (RENDER, "--view", "tiles", TEACH, SMALL) },
  { "render", "--machine=bow", SAME_FILE,
    ARGS (RENDER, "--view", "tiles", SMALL) },

  { "sweep", "--densities=1/4,1/8,1/16,1/32", SAME_FILE,
    ARGS (SWEEP_MODEL, "--blocks", "4", "--m", "64", "--k", "64", TEACH) },
  { "sweep", "--blocks=1,4,8,16", SAME_FILE,
    ARGS (SWEEP_MODEL, "--densities", "1/4", "--m", "64", "--k", "64",
          TEACH) },
  { "sweep", "--pattern=uniform", SAME_FILE,
    ARGS (SWEEP_MODEL, "--densities", "1/4", "--blocks", "4", "--m", "64",
          "--k", "64", TEACH) },
  { "sweep", "--tile-width=128", SAME_FILE,
    ARGS (SWEEP_MODEL, "--densities", "1/4", "--blocks", "4", "--m", "64",
          "--k", "512", TEACH, "--pattern", "tilewise") },
  { "sweep", "--dtype=fp16", SAME_FILE,
    ARGS (SWEEP_MODEL, "--densities", "1/4", "--blocks", "4", "--m", "64",
          "--k", "64", TEACH) },
  { "sweep", "--machine=bow", SAME_FILE,
    ARGS (SWEEP_MODEL, "--densities", "1/4", "--blocks", "4", "--m", "64",
          "--k", "64") },
  { "sweep", "--seed=1", SAME_FILE,
    ARGS (SWEEP_MODEL, "--densities", "1/16", "--blocks", "4", "--m", "64",
          "--k", "64", TEACH) },
  { "sweep", "--width=800", SAME_FILE,
    ARGS ("sweep", "--source", "model", "--out", "@OUT.png", "--densities",
          "1/4", "--blocks", "4", "--m", "64", "--k", "64", TEACH) },
  { "sweep", "--height=500", SAME_FILE,
    ARGS ("sweep", "--source", "model", "--out", "@OUT.png", "--densities",
          "1/4", "--blocks", "4", "--m", "64", "--k", "64", TEACH) },
  { "sweep", "--scale=2", SAME_FILE,
    ARGS ("sweep", "--source", "model", "--out", "@OUT.png", "--densities",
          "1/4", "--blocks", "4", "--m", "64", "--k", "64", TEACH) },
  { "sweep", "--theme=light", SAME_FILE,
    ARGS ("sweep", "--source", "model", "--out", "@OUT.svg", "--densities",
          "1/4", "--blocks", "4", "--m", "64", "--k", "64", TEACH) },
  { "sweep", "--op=spmm", SAME_JSON_FILE,
    ARGS (SWEEP_CPU, "--source", "cpu", "--reps", "5", "--warmup", "0") },
  { "sweep", "--source=both", SAME_JSON_FILE,
    ARGS (SWEEP_CPU, TEACH, "--reps", "5", "--warmup", "0") },
  { "sweep", "--modes=all", SAME_JSON_FILE,
    ARGS (SWEEP_CPU, TEACH, "--reps", "5", "--warmup", "0") },
  { "sweep", "--reps=7", SAME_JSON_FILE,
    ARGS (SWEEP_CPU, "--source", "cpu", "--warmup", "0") },
  { "sweep", "--warmup=2", SAME_JSON_FILE,
    ARGS (SWEEP_CPU, "--source", "cpu", "--reps", "5") },
};

/* One stated default: the run without the option and the run with it
 * give the same result. */
static void
assert_default (const StatedDefault *d, const char *dir, const char *tiny)
{
  char *results[2];
  for (guint with = 0; with < 2; with++)
    {
      Args a = { dir, tiny, { NULL } };
      args_expand (&a, d->args);
      g_autofree char *out = NULL;
      guint n = 0;
      for (; a.args[n] != NULL; n++)
        if (g_str_has_prefix (d->args[n], "@OUT."))
          {
            g_free (a.args[n]);
            a.args[n] = g_strdup_printf ("%s/%u%s", dir, with,
                                         d->args[n] + 4);
            out = g_strdup (a.args[n]);
          }
      if (with)
        a.args[n++] = g_strdup (d->option);
      a.args[n] = NULL;
      results[with] = run_result (d->same, (const char *const *) a.args, out);
      if (out != NULL)
        g_unlink (out);
      args_clear (&a);
    }
  if (g_strcmp0 (results[0], results[1]) != 0)
    g_error ("%s: leaving out %s is not the same as giving it",
             d->command, d->option);
  g_free (results[0]);
  g_free (results[1]);
}

static void
test_help_defaults (void)
{
  const char *const commands[] = { "info", "generate", "bench", "model",
                                   "render", "sweep" };
  g_autofree char *dir = g_dir_make_tmp ("spx-cli-XXXXXX", NULL);
  g_autofree char *tiny = data_path ("cli-tiny.mtx");
  for (guint c = 0; c < G_N_ELEMENTS (commands); c++)
    {
      /* every default a help states is one checked here, and back */
      g_autoptr (GPtrArray) found = help_defaults (commands[c]);
      guint checked = 0;
      for (guint i = 0; i < G_N_ELEMENTS (stated); i++)
        if (g_str_equal (stated[i].command, commands[c]))
          {
            checked++;
            if (!g_ptr_array_find_with_equal_func (found, stated[i].option,
                                                   g_str_equal, NULL))
              g_error ("%s --help does not state %s", commands[c],
                       stated[i].option);
            assert_default (&stated[i], dir, tiny);
          }
      for (guint i = 0; i < found->len; i++)
        {
          gboolean listed = FALSE;
          for (guint s = 0; s < G_N_ELEMENTS (stated); s++)
            listed |= g_str_equal (stated[s].command, commands[c]) &&
                      g_str_equal (stated[s].option, found->pdata[i]);
          if (!listed)
            g_error ("%s --help states %s, which no case checks", commands[c],
                     (const char *) found->pdata[i]);
        }
      g_assert_cmpuint (checked, ==, found->len);
    }
  g_rmdir (dir);
}

/* Defaults in words: bench's and sweep's threads are every processor's;
 * a band is round(d·block-columns) wide. */
static void
test_default_words (void)
{
  Run r = run_cli ("bench", "--m", "32", "--k", "32", "--n", "4", "--block",
                   "4", "--reps", "1", "--warmup", "0", "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *o = parse_object (parser, r.out);
  g_assert_cmpint (json_object_get_int_member (o, "threads"), ==,
                   g_get_num_processors ());
  run_clear (&r);

  g_autofree char *dir = g_dir_make_tmp ("spx-cli-XXXXXX", NULL);
  g_autofree char *csv = g_build_filename (dir, "s.csv", NULL);
  r = run_cli ("sweep", "--source", "cpu", "--densities", "1/4", "--blocks",
               "4", "--m", "32", "--k", "32", "--n", "4", "--reps", "5",
               "--warmup", "0", "--out", csv, NULL);
  g_assert_cmpint (r.status, ==, 0);
  run_clear (&r);
  g_autofree char *text = test_read_all (csv);
  g_autofree char *threads = g_strdup_printf ("-%ut,", g_get_num_processors ());
  g_assert_nonnull (strstr (text, threads));
  g_unlink (csv);

  /* 96 columns of 4: 24 block-columns, a quarter of them */
  char *files[2];
  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *out = g_build_filename (dir, "b.mtx", NULL);
      /* the band given last, or left out */
      r = run_cli ("generate", "--pattern", "banded", "--rows", "64",
                   "--cols", "96", "--block", "4", "--density", "1/4",
                   "--out", out, i ? "--band" : NULL, "6", NULL);
      g_assert_cmpint (r.status, ==, 0);
      run_clear (&r);
      files[i] = test_read_all (out);
      g_unlink (out);
    }
  g_assert_cmpstr (files[0], ==, files[1]);
  g_free (files[0]);
  g_free (files[1]);
  g_rmdir (dir);
}

/* The members of a JSON object that are objects: the modes a run has. */
static char *
modes_run (const char *json)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *o = parse_object (parser, json);
  const char *const all[] = { "dense", "static", "dynamic", "tilewise" };
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < G_N_ELEMENTS (all); i++)
    if (json_object_has_member (o, all[i]))
      g_string_append_printf (s, "%s%s", s->len ? "," : "", all[i]);
  return g_string_free (s, FALSE);
}

/* One vocabulary: dense, static, dynamic, (tilewise,) all, in lists;
 * the old "both" still read; the help naming only the new words. */
static void
test_mode_words (void)
{
  static const struct {
    const char *command, *mode, *runs;
  } cases[] = {
    { "bench", "both", "dense,static,dynamic" },
    { "bench", "static,dynamic", "dense,static,dynamic" },
    { "bench", "dense", "dense" },
    { "bench", "static, tilewise", "dense,static,tilewise" },
    { "bench", "all", "dense,static,dynamic,tilewise" },
    { "model", "all", "dense,static,dynamic" },
    { "model", "static,dynamic", "static,dynamic" },
    { "model", "dense", "dense" },
    { "model", "both", "static,dynamic" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *machine = g_str_equal (cases[i].command, "model")
                              ? "--machine" : "--reps";
      const char *value = g_str_equal (cases[i].command, "model")
                            ? "teach16" : "1";
      Run r = run_cli (cases[i].command, "--m", "32", "--k", "32", "--n", "4",
                       "--block", "4", "--mode", cases[i].mode, machine,
                       value, "--json", NULL);
      g_assert_cmpint (r.status, ==, 0);
      g_autofree char *runs = modes_run (r.out);
      g_assert_cmpstr (runs, ==, cases[i].runs);
      run_clear (&r);
    }
  static const struct { const char *command, *words; } help[] = {
    { "bench", "dense, static, dynamic, tilewise or all" },
    { "model", "dense, static, dynamic or all" },
    { "render", "dense, static or dynamic" },
    { "sweep", "dense, static, dynamic, tilewise or all" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (help); i++)
    {
      Run r = run_cli (help[i].command, "--help", NULL);
      const char *line = strstr (r.out, "  --mode");
      g_assert_nonnull (line);
      g_autofree char *mode = g_strndup (line, strcspn (line, "\n"));
      g_assert_nonnull (strstr (mode, help[i].words));
      g_assert_null (strstr (mode, "both"));
      run_clear (&r);
    }

  Run r = run_cli ("model", "--m", "32", "--k", "32", "--n", "4", "--block",
                   "4", "--mode", "tilewise", NULL);
  assert_usage_error (&r, "--mode");
  r = run_cli ("model", "--m", "32", "--k", "32", "--n", "4", "--block",
               "4", "--mode", "static,,dense", NULL);
  assert_usage_error (&r, "--mode");
  r = run_cli ("render", "--view", "tiles", "--mode", "all", "--out",
               "x.svg", NULL);
  assert_usage_error (&r, "--mode");
  r = run_cli ("render", "--view", "tiles", "--mode", "static,dense",
               "--out", "x.svg", NULL);
  assert_usage_error (&r, "--mode");
  r = run_cli ("bench", "--m", "32", "--k", "32", "--n", "4", "--block", "4",
               "--mode", "", NULL);
  assert_usage_error (&r, "--mode");
  g_assert_false (g_file_test ("x.svg", G_FILE_TEST_EXISTS));
}

/* sweep --modes takes the same words (and --mode, as the others). */
static void
test_sweep_mode_words (void)
{
  static const struct { const char *option, *modes, *rows; } cases[] = {
    { "--modes", "dense", "dense" },
    { "--modes", "both", "dense,static,dynamic" },
    { "--mode", "static", "dense,static" },
    { "--modes", "all", "dense,static,dynamic" }, /* the model's all */
  };
  g_autofree char *dir = g_dir_make_tmp ("spx-cli-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "s.csv", NULL);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      Run r = run_cli ("sweep", "--source", "model", "--densities", "1/4",
                       "--blocks", "4", "--m", "32", "--k", "32", "--n", "4",
                       "--machine", "teach16", cases[i].option,
                       cases[i].modes, "--out", path, NULL);
      g_assert_cmpint (r.status, ==, 0);
      run_clear (&r);
      g_autofree char *text = test_read_all (path);
      g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
      GString *rows = g_string_new (NULL);
      for (guint l = 1; lines[l] != NULL && lines[l][0] != '\0'; l++)
        {
          g_auto (GStrv) f = g_strsplit (lines[l], ",", 3);
          g_string_append_printf (rows, "%s%s", rows->len ? "," : "", f[1]);
        }
      g_autofree char *got = g_string_free (rows, FALSE);
      g_assert_cmpstr (got, ==, cases[i].rows);
    }
  g_unlink (path);
  g_rmdir (dir);
}

/* Shapes that leave nothing to multiply are refused, and nothing is
 * written. */
static void
test_impossible (void)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-cli-XXXXXX", NULL);
  g_autofree char *out = g_build_filename (dir, "x.mtx", NULL);
  g_autofree char *svg = g_build_filename (dir, "x.svg", NULL);
  g_autofree char *csv = g_build_filename (dir, "x.csv", NULL);
  g_autofree char *tiny = data_path ("cli-tiny.mtx");
  Run r = run_cli ("generate", "--rows", "100", "--cols", "100", "--block",
                   "200", "--out", out, NULL);
  assert_usage_error (&r, "--block 200: larger than the 100 × 100 matrix");
  r = run_cli ("generate", "--rows", "100", "--cols", "100", "--block", "10",
               "--density", "0.001", "--out", out, NULL);
  assert_usage_error (&r, "--density 0.001 keeps none of the 10 × 10 blocks");
  r = run_cli ("generate", "--rows", "100", "--cols", "100", "--pattern",
               "nm", "--nm", "0:4", "--out", out, NULL);
  assert_usage_error (&r, "--nm 0:4 keeps none");
  /* √d of 16 block-rows and -columns: round(0.35) */
  r = run_cli ("generate", "--rows", "64", "--cols", "64", "--pattern",
               "tilewise", "--block", "4", "--density", "0.0005", "--out",
               out, NULL);
  assert_usage_error (&r, "--density 0.0005 keeps none");
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  /* the least density that keeps one: round(0.005 · 100) = 1 */
  r = run_cli ("generate", "--rows", "100", "--cols", "100", "--block", "10",
               "--density", "0.005", "--out", out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  run_clear (&r);
  g_unlink (out);

  r = run_cli ("bench", "--m", "64", "--k", "64", "--n", "8", "--block",
               "128", NULL);
  assert_usage_error (&r, "--block 128");
  r = run_cli ("model", "--m", "64", "--k", "64", "--n", "8", "--block",
               "16", "--density", "0.001", NULL);
  assert_usage_error (&r, "--density 0.001 keeps none");
  r = run_cli ("render", "--view", "mask", "--mask", tiny, "--block", "8",
               "--out", svg, NULL);
  assert_usage_error (&r, "--block 8: larger than the 6 × 5 matrix");
  r = run_cli ("sweep", "--source", "model", "--blocks", "4,64", "--m", "32",
               "--k", "32", "--out", csv, NULL);
  assert_usage_error (&r, "--blocks 64");
  r = run_cli ("sweep", "--source", "model", "--densities", "1/2,1/4",
               "--blocks", "16", "--m", "16", "--k", "16", "--out", csv,
               NULL);
  assert_usage_error (&r, "--densities 1/4 keeps none");
  g_assert_false (g_file_test (svg, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (csv, G_FILE_TEST_EXISTS));
  g_rmdir (dir);
}

/* A size that does not fit is named as it was given: an option, the
 * scenario's key or a default; a mask's sweep takes any block sizes that
 * fit the mask, whatever the block a command with --block would take. */
static void
test_given_as (void)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-cli-XXXXXX", NULL);
  g_autofree char *csv = g_build_filename (dir, "x.csv", NULL);
  g_autofree char *svg = g_build_filename (dir, "x.svg", NULL);
  g_autofree char *tiny = data_path ("cli-tiny.mtx"); /* 6 × 5 */
  Run r = run_cli ("sweep", "--mask", tiny, "--source", "model", "--blocks",
                   "1", "--out", csv, NULL);
  g_assert_cmpint (r.status, ==, 0);
  run_clear (&r);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (csv, &text, NULL, NULL));
  g_assert_cmpuint (count_lines (text), ==, 4); /* header, 3 modes at b 1 */
  g_assert_nonnull (strstr (text, "\nmodel,static,1,"));
  g_unlink (csv);
  r = run_cli ("sweep", "--mask", tiny, "--source", "model", "--blocks",
               "1,8", "--out", csv, NULL);
  assert_usage_error (&r, "--blocks 8: larger than the 6 × 5 matrix");
  /* the defaults that fit are swept, the others left out */
  r = run_cli ("sweep", "--mask", tiny, "--source", "model", "--out", csv,
               NULL);
  g_assert_cmpint (r.status, ==, 0);
  run_clear (&r);
  g_clear_pointer (&text, g_free);
  g_assert_true (g_file_get_contents (csv, &text, NULL, NULL));
  g_assert_cmpuint (count_lines (text), ==, 1 + 3 * 3); /* b 1, 2, 4 */
  g_assert_nonnull (strstr (text, "\nmodel,static,4,"));
  g_assert_null (strstr (text, "\nmodel,static,8,"));
  g_unlink (csv);
  /* and a generated mask's default densities likewise */
  r = run_cli ("sweep", "--m", "8", "--k", "8", "--source", "model",
               "--out", csv, NULL);
  g_assert_cmpint (r.status, ==, 0);
  run_clear (&r);
  g_clear_pointer (&text, g_free);
  g_assert_true (g_file_get_contents (csv, &text, NULL, NULL));
  g_assert_cmpuint (count_lines (text), ==, 1 + 3 * 2 * 2); /* b 1, 4 */
  g_assert_nonnull (strstr (text, "\nmodel,static,4,0.125,"));
  g_unlink (csv);
  r = run_cli ("sweep", "--m", "8", "--k", "8", "--blocks", "8", "--source",
               "model", "--out", csv, NULL);
  assert_usage_error (&r, "the default density 1/4 keeps none of the 1 × 1 "
                      "blocks of 8 × 8");
  r = run_cli ("render", "--view", "mask", "--mask", tiny, "--out", svg,
               NULL);
  assert_usage_error (&r, "the default block size 16: larger than the "
                      "6 × 5 matrix");
  g_autofree char *spx = g_build_filename (dir, "small.spx", NULL);
  g_assert_true (g_file_set_contents (spx, "[scenario]\nversion=1\nm=8\n"
                                      "k=8\nn=1\nblock=16\n", -1, NULL));
  r = run_cli ("model", "--scenario", spx, NULL);
  assert_usage_error (&r, "small.spx: block 16: larger than the 8 × 8 "
                      "matrix");
  r = run_cli ("model", "--m", "8", "--k", "8", "--block", "8", "--n", "1",
               NULL);
  assert_usage_error (&r, "the default density 1/16 keeps none");
  g_assert_false (g_file_test (csv, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (svg, G_FILE_TEST_EXISTS));
  g_unlink (spx);
  g_rmdir (dir);
}

/* info lists every format it reads, PNG among them. */
static void
test_info_formats (void)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-cli-XXXXXX", NULL);
  g_autofree char *notes = g_build_filename (dir, "notes.txt", NULL);
  g_assert_true (g_file_set_contents (notes, "hello\n", -1, NULL));
  Run r = run_cli ("info", notes, NULL);
  assert_input_error (&r, "expected a Matrix Market (.mtx), DLMC (.smtx), "
                          "NumPy (.npy) or PNG (.png) file");
  r = run_cli ("info", "--help", NULL);
  g_assert_nonnull (strstr (r.out, "PNG (.png)"));
  run_clear (&r);
  g_unlink (notes);
  g_rmdir (dir);
}

/* Tables say which rate each column is. */
static void
test_rate_labels (void)
{
  Run r = run_cli ("model", "--m", "64", "--k", "64", "--n", "16", "--block",
                   "4", "--machine", "teach16", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "dense-eq."));
  g_assert_nonnull (strstr (r.out, "non-zero"));
  g_assert_null (strstr (r.out, " nz TFLOP/s"));
  run_clear (&r);
  r = run_cli ("bench", "--m", "32", "--k", "32", "--n", "4", "--block", "4",
               "--reps", "1", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "dense-eq."));
  g_assert_nonnull (strstr (r.out, "non-zero"));
  run_clear (&r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/help-version", test_help_version);
  g_test_add_func ("/cli/info/json", test_info_json);
  g_test_add_func ("/cli/info/table", test_info_table);
  g_test_add_func ("/cli/info/errors", test_info_errors);
  g_test_add_func ("/cli/generate/formats", test_generate_formats);
  g_test_add_func ("/cli/generate/reproducible", test_generate_reproducible);
  g_test_add_func ("/cli/generate/errors", test_generate_errors);
  g_test_add_func ("/cli/bench/json", test_bench_json);
  g_test_add_func ("/cli/bench/mask-and-errors", test_bench_mask_and_errors);
  g_test_add_func ("/cli/bench/sddmm", test_bench_sddmm);
  g_test_add_func ("/cli/bench/tilewise", test_bench_tilewise);
  g_test_add_func ("/cli/bench/bf16", test_bench_bf16);
  g_test_add_func ("/cli/sweep/bf16", test_sweep_bf16);
  g_test_add_func ("/cli/sweep/sddmm", test_sweep_sddmm);
  g_test_add_func ("/cli/sweep/tilewise", test_sweep_tilewise);
  g_test_add_func ("/cli/model/json", test_model_json);
  g_test_add_func ("/cli/model/errors", test_model_errors);
  g_test_add_func ("/cli/model/one-mode", test_model_one_mode);
  g_test_add_func ("/cli/model/explain", test_model_explain);
  g_test_add_func ("/cli/sweep/csv", test_sweep_csv);
  g_test_add_func ("/cli/sweep/errors", test_sweep_errors);
  g_test_add_func ("/cli/sweep/interrupted-mid-point",
                   test_sweep_interrupted_mid_point);
  g_test_add_data_func ("/cli/sweep/interrupted", GINT_TO_POINTER (SIGINT),
                        test_sweep_interrupted);
  g_test_add_data_func ("/cli/sweep/terminated", GINT_TO_POINTER (SIGTERM),
                        test_sweep_interrupted);
  g_test_add_func ("/cli/render/views", test_render_views);
  g_test_add_func ("/cli/render/errors", test_render_errors);
  g_test_add_func ("/cli/render/size", test_render_size);
  g_test_add_func ("/cli/out/read-only", test_out_read_only);
  g_test_add_func ("/cli/out/stream", test_out_stream);
  g_test_add_func ("/cli/bench/dense-core", test_bench_dense_core);
  g_test_add_func ("/cli/bench/peers-protocol", test_bench_peers_protocol);
  g_test_add_func ("/cli/bench/peers-listed", test_bench_peers_listed);
  g_test_add_func ("/cli/bench/peers-table", test_bench_peers_table);
  g_test_add_func ("/cli/bench/peers-flood", test_bench_peers_flood);
  g_test_add_func ("/cli/bench/peers-timeout", test_bench_peers_timeout);
  g_test_add_func ("/cli/bench/peers-not-finite",
                   test_bench_peers_not_finite);
  g_test_add_data_func ("/cli/bench/peers-sigint", GINT_TO_POINTER (SIGINT),
                        test_bench_peers_signal);
  g_test_add_data_func ("/cli/bench/peers-sigterm",
                        GINT_TO_POINTER (SIGTERM), test_bench_peers_signal);
  g_test_add_func ("/cli/scenario-files", test_scenario_files);
  g_test_add_func ("/cli/sweep/mask", test_sweep_mask);
  g_test_add_func ("/cli/layers/table", test_layers_table);
  g_test_add_func ("/cli/layers/saved", test_layers_saved);
  g_test_add_func ("/cli/layers/json", test_layers_json);
  g_test_add_func ("/cli/layers/errors", test_layers_errors);
  g_test_add_func ("/cli/layers/out", test_layers_out);
  g_test_add_func ("/cli/layers/interrupted", test_layers_interrupted);
  g_test_add_func ("/cli/sweep/scenario-block", test_sweep_scenario_block);
  g_test_add_func ("/cli/messages/scenario-threads", test_scenario_threads);
  g_test_add_func ("/cli/messages/prefixes", test_message_prefixes);
  g_test_add_func ("/cli/messages/loaders", test_loader_messages);
  g_test_add_func ("/cli/grammar/global-options", test_global_options);
  g_test_add_func ("/cli/grammar/no-display", test_no_display);
  g_test_add_func ("/cli/grammar/exit-codes", test_exit_codes);
  g_test_add_func ("/cli/grammar/help-defaults", test_help_defaults);
  g_test_add_func ("/cli/grammar/default-words", test_default_words);
  g_test_add_func ("/cli/grammar/mode-words", test_mode_words);
  g_test_add_func ("/cli/grammar/sweep-mode-words", test_sweep_mode_words);
  g_test_add_func ("/cli/grammar/impossible", test_impossible);
  g_test_add_func ("/cli/grammar/given-as", test_given_as);
  g_test_add_func ("/cli/grammar/info-formats", test_info_formats);
  g_test_add_func ("/cli/grammar/rate-labels", test_rate_labels);
  return g_test_run ();
}
