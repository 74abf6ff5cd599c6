/* main.c: the command line, or the window */
#include "spx-config.h"
#include "spx-cli.h"

#include "spx-engine.h"
#include "spx-render-png.h"
#if SPX_HAVE_GUI
#include "spx-application.h"
#endif

#include <locale.h>
#include <stdio.h>

/* Commands that never run dense sgemm: restarting them for OpenBLAS's
 * kernel would only double their start-up. */
static gboolean
runs_no_dense (int argc, char **argv)
{
  static const char *const pure[] = { "info", "generate", "model", "render",
                                      "--version", "--help", "-h", NULL };
  return argc >= 2 && g_strv_contains (pure, argv[1]);
}

/* The engine's warnings (a kernel cache it will not trust) said as the
 * program says everything: "sparse-explorer bench: warning: …". */
static void
say_warning (const char *domain, GLogLevelFlags level, const char *message,
             gpointer data)
{
  spx_cli_line (stderr, "%s: warning: %s", g_get_prgname (), message);
}

int
main (int argc, char **argv)
{
  g_log_set_handler ("Spx", G_LOG_LEVEL_WARNING, say_warning, NULL);
  setlocale (LC_ALL, "");
  setlocale (LC_NUMERIC, "C"); /* numbers in output stay machine-readable */
  /* Dense sgemm is every measurement's baseline: make it run at full
   * speed (if that fails, bench warns when dense runs slowly). */
  if (!runs_no_dense (argc, argv))
    spx_dense_restart_at_full_speed (argv);
  spx_mask_png_register (); /* every command and the window read PNG */
  gboolean cli = argc >= 2 && (spx_cli_is_command (argv[1]) ||
                               g_str_equal (argv[1], "--version") ||
                               g_str_equal (argv[1], "--help") ||
                               g_str_equal (argv[1], "-h"));
  if (cli)
    return spx_cli_main (argc, argv);
#if SPX_HAVE_GUI
  /* no command: the window, opening any files given */
  return spx_application_main (argc, argv);
#else
  for (int i = 1; i < argc; i++) /* as the window's check would */
    if (argv[i][0] != '-' && !g_file_test (argv[i], G_FILE_TEST_EXISTS))
      return spx_cli_not_there (argv[i]);
  if (argc >= 2)
    {
      spx_cli_line (stderr, "sparse-explorer: unknown %s '%s' (try --help; "
                    "this build has no window)",
                    argv[1][0] == '-' ? "option" : "command", argv[1]);
      return SPX_EXIT_USAGE;
    }
  spx_cli_print_usage (stdout);
  return SPX_EXIT_OK;
#endif
}
