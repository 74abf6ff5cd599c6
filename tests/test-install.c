/* test-install.c: what `meson install` puts in place works from there.
 * The build is installed under a temporary --destdir and the installed
 * program run: bench --peers must find the Python runner installed with
 * it, as the program in the build folder finds the source tree's. */
#include "test-files.h"
#include "test-run.h"

#include <json-glib/json-glib.h>

/* The runner path bench --peers gave its interpreter for the torch-csr
 * peer. The interpreter is `echo`, which prints its arguments back: the
 * answer that "makes no sense" carries the runner's path. */
static char *
runner_used (const char *program)
{
  g_setenv ("SPX_PYTHON", g_getenv ("SPX_ECHO"), TRUE);
  g_unsetenv ("SPX_PEERS_RUNNER");
  const char *argv[] = { program, "bench", "--m", "64", "--k", "64", "--n",
                         "16", "--block", "4", "--peers", "--reps", "1",
                         "--warmup", "0", "--json", NULL };
  int status;
  g_autofree char *out = test_run (argv, NULL, &status, NULL);
  g_assert_cmpint (status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_data (parser, out, -1, NULL));
  JsonObject *peer = json_object_get_object_member (
    json_object_get_object_member (json_node_get_object (
      json_parser_get_root (parser)), "peers"), "torch-csr");
  const char *note = json_object_get_string_member (peer, "note");
  const char *said = "the runner's answer makes no sense: ";
  if (!g_str_has_prefix (note, said))
    g_error ("%s did not run the runner: %s", program, note);
  const char *path = note + strlen (said);
  return g_strndup (path, strcspn (path, " "));
}

/* Two paths naming the same file. */
static void
assert_same_file (const char *a, const char *b)
{
  g_autofree char *ra = g_canonicalize_filename (a, NULL);
  g_autofree char *rb = g_canonicalize_filename (b, NULL);
  g_assert_cmpstr (ra, ==, rb);
}

static void
remove_and_free (char *dir)
{
  test_remove_folder (dir);
  g_free (dir);
}

static void
test_runner_installed (void)
{
  char *dest = g_dir_make_tmp ("spx-install-XXXXXX", NULL);
  g_assert_nonnull (dest);
  /* the folder goes also when a check fails: they carry on, not abort */
  g_test_queue_destroy ((GDestroyNotify) remove_and_free, dest);
  g_test_set_nonfatal_assertions ();
  const char *argv[] = { g_getenv ("SPX_MESON"), "install", "-C",
                         g_getenv ("SPX_BUILD_ROOT"), "--destdir", dest,
                         "--no-rebuild", "--quiet", NULL };
  int status;
  g_autofree char *err = NULL;
  g_free (test_run (argv, NULL, &status, &err));
  if (status != 0)
    {
      g_test_fail_printf ("meson install failed (%d): %s", status, err);
      return;
    }
  g_autofree char *program = g_build_filename (dest,
                                               g_getenv ("SPX_INSTALL_BIN"),
                                               "sparse-explorer", NULL);
  g_autofree char *runner = runner_used (program);
  g_autofree char *installed = g_build_filename (dest,
                                                 g_getenv ("SPX_PEERS_DIR"),
                                                 "spx-peers.py", NULL);
  assert_same_file (runner, installed);
  /* the source's runner, as it is */
  g_autofree char *source = g_test_build_filename (G_TEST_DIST, "peers",
                                                   "spx-peers.py", NULL);
  g_autofree char *want = test_read_all (source);
  g_autofree char *got = test_read_all (installed);
  if (g_strcmp0 (got, want) != 0) /* not both printed: they are long */
    g_test_fail_printf ("%s is not the source's runner", installed);
}

static void
test_runner_build (void)
{
  g_autofree char *runner = runner_used (test_binary ());
  g_autofree char *source = g_test_build_filename (G_TEST_DIST, "peers",
                                                   "spx-peers.py", NULL);
  assert_same_file (runner, source);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/install/peers-runner", test_runner_installed);
  g_test_add_func ("/install/peers-runner-build", test_runner_build);
  return g_test_run ();
}
