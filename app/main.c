/* main.c: the command line, and later the window */
#include "spx-config.h"
#include "spx-cli.h"

#include "spx-engine.h"

#include <locale.h>
#include <stdio.h>
#include <unistd.h>

/* Dense sgemm is the baseline of every measurement: if OpenBLAS picked a
 * kernel far below what this processor runs, start again with the right
 * one (OpenBLAS chooses only when it is loaded). */
static void
ensure_full_speed_blas (char **argv)
{
  const char *core = spx_dense_better_coretype ();
  if (core == NULL || g_getenv ("SPX_BLAS_RESTARTED") != NULL)
    return;
  g_setenv ("OPENBLAS_CORETYPE", core, TRUE);
  g_setenv ("SPX_BLAS_RESTARTED", "1", TRUE);
  execv ("/proc/self/exe", argv);
  /* If that failed, carry on: bench warns when dense runs slowly. */
}

int
main (int argc, char **argv)
{
  setlocale (LC_ALL, "");
  setlocale (LC_NUMERIC, "C"); /* numbers in output stay machine-readable */
  ensure_full_speed_blas (argv);
  if (argc >= 2 && (argv[1][0] == '-' || spx_cli_is_command (argv[1])))
    return spx_cli_main (argc, argv);
  if (argc >= 2)
    {
      /* Opening FILEs in the window comes with the window itself. */
      fprintf (stderr, "sparse-explorer: unknown command '%s' (try --help)\n",
               argv[1]);
      return SPX_EXIT_USAGE;
    }
  spx_cli_print_usage (stdout);
  return SPX_EXIT_OK;
}
