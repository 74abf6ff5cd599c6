/* test-completion.c: the bash completion, sourced in bash and asked to
 * complete command lines of the built program, in a folder holding a few
 * files (mask-a.smtx, mask-b.mtx and the folder sub). */
#include "spx-config.h"
#include "spx-ipu-machine.h"
#include "test-run.h"

#include <glib/gstdio.h>
#include <string.h>

static char *folder;

/* What the completion offers for the words after the program's name (the
 * last is the word under the cursor), sorted, one a line. */
static char *
complete (const char *const *words)
{
  g_autofree char *script = g_test_build_filename (
    G_TEST_DIST, "..", "data", "sparse-explorer.bash", NULL);
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, "bash");
  g_ptr_array_add (argv, "--norc");
  g_ptr_array_add (argv, "--noprofile");
  g_ptr_array_add (argv, "-c");
  g_ptr_array_add (argv,
    "source \"$0\" || exit 1; COMP_WORDS=(\"$@\"); "
    "COMP_CWORD=$(($# - 1)); COMP_LINE=\"$*\"; COMP_POINT=${#COMP_LINE}; "
    "_sparse_explorer; { ((${#COMPREPLY[@]})) && "
    "printf '%s\\n' \"${COMPREPLY[@]}\"; } | LC_ALL=C sort");
  g_ptr_array_add (argv, script);
  g_ptr_array_add (argv, (char *) test_binary ());
  for (const char *const *w = words; *w != NULL; w++)
    g_ptr_array_add (argv, (char *) *w);
  g_ptr_array_add (argv, NULL);
  int status;
  char *out = test_run ((const char *const *) argv->pdata, folder, &status,
                        NULL);
  g_assert_cmpint (status, ==, 0);
  return out;
}

typedef struct {
  const char *words[6];
  const char *offered; /* sorted, one a line */
} Case;

/* Each line of `want` is one of `got`'s. */
static gboolean
offers_all (const char *got, const char *want)
{
  g_auto (GStrv) lines = g_strsplit (got, "\n", -1);
  g_auto (GStrv) wanted = g_strsplit (want, "\n", -1);
  for (char **w = wanted; *w != NULL; w++)
    if (**w != '\0' && !g_strv_contains ((const char *const *) lines, *w))
      return FALSE;
  return TRUE;
}

static void
check_cases (const Case *cases, guint n, gboolean exact)
{
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *line = g_strjoinv (" ", (char **) cases[i].words);
      g_autofree char *got = complete (cases[i].words);
      g_test_message ("sparse-explorer %s<TAB>", line);
      if (exact)
        g_assert_cmpstr (got, ==, cases[i].offered);
      else if (!offers_all (got, cases[i].offered))
        {
          g_test_message ("got:\n%swanted at least:\n%s", got,
                          cases[i].offered);
          g_test_fail_printf ("'%s' lacks an offer", line);
        }
    }
}

static void
test_commands_and_options (void)
{
  static const Case cases[] = {
    { { "ge", NULL }, "generate\n" },
    { { "--vers", NULL }, "--version\n" },
    { { "bench", "--mo", NULL }, "--mode\n" },
    { { "sweep", "--den", NULL }, "--densities\n" },
    { { "info", "--", NULL }, "--block\n--help\n--json\n" },
    { { "layers", "--on", NULL }, "--only\n" },
  };
  check_cases (cases, G_N_ELEMENTS (cases), TRUE);
  static const Case first[] = {
    { { "", NULL },
      "bench\ngenerate\ninfo\nlayers\nmask-a.smtx\nmask-b.mtx\nmodel\n"
      "render\nsub\nsweep\n" },
    /* a command that takes no file is offered its options */
    { { "generate", "", NULL }, "--cols\n--out\n--pattern\n--rows\n" },
  };
  check_cases (first, G_N_ELEMENTS (first), FALSE);
}

/* The values the help lists for an option, as "--opt VALUE",
 * "--opt=VALUE" (split at "=" by bash, or not) and "-o VALUE". */
static void
test_values (void)
{
  static const Case cases[] = {
    { { "model", "--mode", "", NULL }, "all\ndense\ndynamic\nstatic\n" },
    { { "model", "--mode", "=", "", NULL }, "all\ndense\ndynamic\nstatic\n" },
    { { "model", "--mode", "=", "d", NULL }, "dense\ndynamic\n" },
    { { "model", "--mode=st", NULL }, "--mode=static\n" },
    { { "generate", "-p", "", NULL },
      "banded\nmagnitude\nnm\nskewed\ntilewise\nuniform\n" },
    { { "render", "--view", "t", NULL }, "tiles\ntimeline\n" },
    { { "render", "--theme", "", NULL }, "dark\nlight\n" },
    { { "render", "--metric", "", NULL },
      "all\nbytes\ncycles\nexchange\ngrouped\nspeedup\nthroughput\n" },
    { { "sweep", "--source", "", NULL }, "both\ncpu\nmodel\n" },
    { { "layers", "--source", "", NULL }, "both\ncpu\nmodel\n" },
    { { "layers", "--dtype", "", NULL }, "bf16\nfp16\nfp32\n" },
    { { "sweep", "-n", "", NULL }, "best\n" },
    { { "bench", "--op", "", NULL }, "sddmm\nspmm\n" },
    /* a number: nothing to offer */
    { { "bench", "--reps", "", NULL }, "" },
  };
  check_cases (cases, G_N_ELEMENTS (cases), TRUE);
  static const Case modes[] = {
    { { "bench", "--mode", "", NULL }, "all\ndynamic\nstatic\ntilewise\n" },
  };
  check_cases (modes, G_N_ELEMENTS (modes), FALSE);
}

static int
by_name (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* The folder's names and every preset's, sorted as C sorts, one a line. */
static char *
files_and_presets (void)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  const char *const files[] = { "mask-a.smtx", "mask-b.mtx", "sub" };
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    g_ptr_array_add (names, (gpointer) files[i]);
  for (const char *const *p = spx_ipu_machine_presets (); *p != NULL; p++)
    g_ptr_array_add (names, (gpointer) *p);
  g_ptr_array_sort (names, by_name);
  g_ptr_array_add (names, "");
  g_ptr_array_add (names, NULL);
  return g_strjoinv ("\n", (char **) names->pdata);
}

/* File names where the program takes a file, and the machine presets
 * beside them. */
static void
test_files (void)
{
  g_autofree char *machines = files_and_presets ();
  const Case cases[] = {
    { { "info", "mask-", NULL }, "mask-a.smtx\nmask-b.mtx\n" },
    { { "info", "--json", "", NULL }, "mask-a.smtx\nmask-b.mtx\nsub\n" },
    { { "generate", "--out", "s", NULL }, "sub\n" },
    { { "bench", "--mask", "mask-b", NULL }, "mask-b.mtx\n" },
    /* a network: a folder or a file */
    { { "layers", "", NULL }, "mask-a.smtx\nmask-b.mtx\nsub\n" },
    { { "model", "--machine", "", NULL }, machines },
    { { "mask-a", NULL }, "mask-a.smtx\n" },
  };
  check_cases (cases, G_N_ELEMENTS (cases), TRUE);
}

/* The window's options come from --help-all. */
static void
test_window (void)
{
  if (!SPX_HAVE_GUI)
    {
      g_test_skip ("no window in this build");
      return;
    }
  static const Case cases[] = {
    { { "--vi", NULL }, "--view\n" },
    { { "--view", "", NULL }, "exchange\nmask\nspeedup\ntiles\ntimeline\n" },
    { { "--view", "mask", "m", NULL }, "mask-a.smtx\nmask-b.mtx\n" },
  };
  check_cases (cases, G_N_ELEMENTS (cases), TRUE);
}

/* Sourcing it registers it for the program's name. */
static void
test_registered (void)
{
  g_autofree char *script = g_test_build_filename (
    G_TEST_DIST, "..", "data", "sparse-explorer.bash", NULL);
  const char *argv[] = { "bash", "--norc", "--noprofile", "-c",
                         "source \"$0\" && complete -p sparse-explorer",
                         script, NULL };
  int status;
  g_autofree char *out = test_run (argv, NULL, &status, NULL);
  g_assert_cmpint (status, ==, 0);
  g_assert_cmpstr (out, ==, "complete -F _sparse_explorer sparse-explorer\n");
}

static void
make_folder (void)
{
  g_autoptr (GError) error = NULL;
  folder = g_dir_make_tmp ("spx-completion-XXXXXX", &error);
  g_assert_no_error (error);
  static const char *const files[] = { "mask-a.smtx", "mask-b.mtx" };
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = g_build_filename (folder, files[i], NULL);
      g_file_set_contents (path, "", 0, &error);
      g_assert_no_error (error);
    }
  g_autofree char *sub = g_build_filename (folder, "sub", NULL);
  g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
}

static void
remove_folder (void)
{
  static const char *const names[] = { "mask-a.smtx", "mask-b.mtx", "sub" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (folder, names[i], NULL);
      g_remove (path);
    }
  g_rmdir (folder);
  g_free (folder);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  make_folder ();
  g_test_add_func ("/completion/registered", test_registered);
  g_test_add_func ("/completion/commands-and-options",
                   test_commands_and_options);
  g_test_add_func ("/completion/values", test_values);
  g_test_add_func ("/completion/files", test_files);
  g_test_add_func ("/completion/window", test_window);
  int status = g_test_run ();
  remove_folder ();
  return status;
}
