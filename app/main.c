/* main.c: the command line, and later the window */
#include "spx-config.h"
#include "spx-cli.h"

#include "spx-engine.h"

#include <locale.h>
#include <stdio.h>

int
main (int argc, char **argv)
{
  setlocale (LC_ALL, "");
  setlocale (LC_NUMERIC, "C"); /* numbers in output stay machine-readable */
  /* Dense sgemm is every measurement's baseline: make it run at full
   * speed (if that fails, bench warns when dense runs slowly). */
  spx_dense_restart_at_full_speed (argv);
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
