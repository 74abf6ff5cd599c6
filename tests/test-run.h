/* test-run.h: run a program and keep what it printed (for the tests of
 * what installs: the man page, the completion, the desktop files) */
#pragma once

#include <glib.h>
#include <sys/wait.h>

/* argv[0] is looked up in PATH; cwd NULL: this one. Returns its stdout
 * (and its stderr in *err when err is not NULL), its exit status in
 * *status (-1: it did not exit normally). */
static inline char *
test_run (const char *const *argv, const char *cwd, int *status, char **err)
{
  char *out = NULL, *errout = NULL;
  int wait_status = 0;
  g_autoptr (GError) error = NULL;
  g_spawn_sync (cwd, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                &out, &errout, &wait_status, &error);
  g_assert_no_error (error);
  *status = WIFEXITED (wait_status) ? WEXITSTATUS (wait_status) : -1;
  if (err != NULL)
    *err = errout;
  else
    g_free (errout);
  return out;
}

/* The built program, as the tests are told by meson. */
static inline const char *
test_binary (void)
{
  const char *binary = g_getenv ("SPX_BINARY");
  g_assert_nonnull (binary);
  return binary;
}
