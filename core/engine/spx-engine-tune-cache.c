/* spx-engine-tune-cache.c: the kernels chosen on each processor, kept in
 * the user's cache folder so that later runs need not time them again */
#include "spx-engine-tune-private.h"
#include "spx-save.h"
#include "spx-util.h"

#include <errno.h>
#include <string.h>

#define HEAD_GROUP "sparse-explorer kernels"
#define FORMAT 1
#define MAX_BYTES (1024 * 1024) /* a few hundred entries are kilobytes */

/* Set once the file has been refused: said once, then neither read nor
 * written (it stays for its owner to look at). */
static gboolean refused;

void
_spx_tune_cache_forget (void)
{
  refused = FALSE;
}

char *
spx_tune_cache_path (void)
{
  /* read each time, not through g_get_user_cache_dir (), which keeps
   * the first answer: a test gives each case a folder of its own */
  const char *xdg = g_getenv ("XDG_CACHE_HOME");
  g_autofree char *base = xdg != NULL && g_path_is_absolute (xdg)
                            ? g_strdup (xdg)
                            : g_build_filename (g_get_home_dir (), ".cache",
                                                NULL);
  return g_build_filename (base, "sparse-explorer", "kernels.ini", NULL);
}

static void
refuse (const char *path, const char *why)
{
  if (!refused)
    g_warning ("%s: %s: ignored, every kernel choice is timed again (delete "
               "it to let them be remembered)", path, why);
  refused = TRUE;
}

/* A file holding no choices yet. */
static GKeyFile *
fresh (void)
{
  GKeyFile *file = g_key_file_new ();
  g_key_file_set_integer (file, HEAD_GROUP, "format", FORMAT);
  g_key_file_set_integer (file, HEAD_GROUP, "kernels",
                          SPX_TUNE_KERNELS_REVISION);
  g_key_file_set_comment (file, HEAD_GROUP, NULL, " The kernels Sparse "
                          "Explorer timed fastest on each processor (delete "
                          "this file to time them again)", NULL);
  return file;
}

/* The file, checked to be ours; NULL when absent or refused; without its
 * choices when they were timed on other kernels. */
static GKeyFile *
load (const char *path)
{
  if (refused || !g_file_test (path, G_FILE_TEST_EXISTS))
    return NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  gsize len;
  g_autoptr (GKeyFile) file = g_key_file_new ();
  if (!spx_read_regular (path, "a kernel cache", MAX_BYTES, &text, &len,
                         &error) ||
      !g_key_file_load_from_data (file, text, len, G_KEY_FILE_KEEP_COMMENTS,
                                  &error))
    {
      refuse (path, error->message);
      return NULL;
    }
  gint64 format = g_key_file_get_int64 (file, HEAD_GROUP, "format", NULL);
  if (format != FORMAT)
    {
      g_autofree char *why = g_strdup_printf ("not a kernel cache of this "
                                              "program (expected [%s] with "
                                              "format=%d)", HEAD_GROUP,
                                              FORMAT);
      refuse (path, why);
      return NULL;
    }
  if (g_key_file_get_int64 (file, HEAD_GROUP, "kernels", NULL) !=
      SPX_TUNE_KERNELS_REVISION)
    return fresh ();
  return g_steal_pointer (&file);
}

gboolean
_spx_tune_cache_read (const char *key, const SpxIsa *isas, guint n_isas,
                      SpxIsa *isa)
{
  g_autofree char *path = spx_tune_cache_path ();
  g_autoptr (GKeyFile) file = load (path);
  g_autofree char *cpu = spx_tune_cpu_name ();
  g_autofree char *value = file ? g_key_file_get_string (file, cpu, key, NULL)
                                : NULL;
  if (value == NULL)
    return FALSE;
  for (guint i = 0; i < n_isas; i++)
    if (g_str_equal (value, spx_isa_to_string (isas[i])))
      {
        *isa = isas[i];
        return TRUE;
      }
  g_autofree char *shown = spx_excerpt (value);
  g_autofree char *why = g_strdup_printf ("[%s] %s = %s: not one of the "
                                          "kernels this processor runs for "
                                          "it", cpu, key, shown);
  refuse (path, why);
  return FALSE;
}

void
_spx_tune_cache_write (const char *key, SpxIsa isa)
{
  g_autofree char *path = spx_tune_cache_path ();
  if (refused)
    return;
  g_autoptr (GKeyFile) file = load (path);
  if (refused)
    return;
  if (file == NULL)
    file = fresh ();
  g_autofree char *cpu = spx_tune_cpu_name ();
  g_key_file_set_string (file, cpu, key, spx_isa_to_string (isa));
  gsize len;
  g_autofree char *text = g_key_file_to_data (file, &len, NULL);
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr (GError) error = NULL;
  /* a cache that cannot be written only costs a later run the timing */
  if (g_mkdir_with_parents (dir, 0755) != 0 ||
      !spx_save_file (path, text, len, SPX_SAVE_DEFAULT, &error))
    refuse (path, error ? error->message : g_strerror (errno));
}
