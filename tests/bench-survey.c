/* bench-survey.c: how long a survey of a network of many entries takes,
 * the totals' bookkeeping and the network's listing (not a test).
 *
 *   bench-survey safetensors [ENTRIES]   (default 100000)
 *   bench-survey folder [FILES]          (default 10000)
 *
 * The safetensors holds ENTRIES tensors, every 1000th a 2 × 2 layer and
 * the rest 1-D (entries that are not layers, as biases and norms are);
 * the folder FILES 2 × 2 .mtx masks. Both are written to the temporary
 * directory; the IPU model alone surveys them at block size 1, and the
 * times of opening and surveying are printed. */
#include "spx-survey.h"
#include "spx-util.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *
write_safetensors (const char *dir, guint entries)
{
  GString *head = g_string_new ("{");
  guint64 offset = 0;
  for (guint i = 0; i < entries; i++)
    {
      gboolean layer = i % 1000 == 0;
      guint64 bytes = layer ? 16 : 8;
      g_string_append_printf (head, "%s\"e%u.%s\": {\"dtype\": \"F32\", "
                              "\"shape\": %s, \"data_offsets\": [%"
                              G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT "]}",
                              i ? ", " : "", i, layer ? "weight" : "bias",
                              layer ? "[2, 2]" : "[2]", offset,
                              offset + bytes);
      offset += bytes;
    }
  g_string_append_c (head, '}');
  guint64 len = GUINT64_TO_LE (head->len);
  GString *file = g_string_new_len ((const char *) &len, 8);
  g_string_append_len (file, head->str, head->len);
  for (guint64 i = 0; i < offset / 4; i++)
    {
      float one = 1;
      g_string_append_len (file, (const char *) &one, 4);
    }
  char *path = g_build_filename (dir, "many.safetensors", NULL);
  g_assert_true (g_file_set_contents (path, file->str, file->len, NULL));
  g_string_free (head, TRUE);
  g_string_free (file, TRUE);
  return path;
}

static char *
write_folder (const char *dir, guint files)
{
  char *path = g_build_filename (dir, "masks", NULL);
  g_assert_cmpint (g_mkdir (path, 0700), ==, 0);
  for (guint i = 0; i < files; i++)
    {
      g_autofree char *name = g_strdup_printf ("%s/m%05u.mtx", path, i);
      g_assert_true (g_file_set_contents (
        name, "%%MatrixMarket matrix coordinate pattern general\n"
        "2 2 2\n1 1\n2 2\n", -1, NULL));
    }
  return path;
}

static void
remove_tree (const char *path)
{
  g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
  for (const char *name; dir != NULL && (name = g_dir_read_name (dir));)
    {
      g_autofree char *sub = g_build_filename (path, name, NULL);
      if (g_file_test (sub, G_FILE_TEST_IS_DIR))
        remove_tree (sub);
      else
        g_unlink (sub);
    }
  g_rmdir (path);
}

int
main (int argc, char **argv)
{
  gboolean folder = argc > 1 && g_str_equal (argv[1], "folder");
  guint count = argc > 2 ? (guint) strtoul (argv[2], NULL, 10)
                         : folder ? 10000 : 100000;
  g_autofree char *dir = g_dir_make_tmp ("spx-bench-survey-XXXXXX", NULL);
  g_autofree char *path = folder ? write_folder (dir, count)
                                 : write_safetensors (dir, count);
  gint64 t0 = g_get_monotonic_time ();
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxNetwork) network = spx_network_open (path, &error);
  g_assert_no_error (error);
  gint64 t1 = g_get_monotonic_time ();
  SpxSurveyOptions o;
  spx_survey_options_init (&o);
  o.run_cpu = FALSE;
  o.blocks[0] = 1;
  o.n_blocks = 1;
  o.n = 16;
  g_autoptr (SpxSurvey) survey = spx_survey_new ();
  g_assert_true (spx_survey_run (survey, network, &o, NULL, NULL, &error));
  gint64 t2 = g_get_monotonic_time ();
  g_autofree char *count_words = spx_survey_count_describe (
    survey->n_layers, survey->n_skipped);
  printf ("%s of %u entries: %s; opened in %.2f s, surveyed in %.2f s\n",
          folder ? "folder" : "safetensors", count, count_words,
          (t1 - t0) / 1e6, (t2 - t1) / 1e6);
  remove_tree (dir);
  return 0;
}
