/* test-format-table.c: the format table against what is kept beside it:
 * the rows' own invariants, the fuzz harnesses meson builds (one per row)
 * and the README's table of formats, so that neither can drift from it. */
#include "spx-mask-io.h"
#include "spx-render-png.h"

#include <string.h>

/* Names and extensions are unique, lower case, without a dot; every row
 * reads or writes something (a network row reads no mask). */
static void
test_rows (void)
{
  g_autoptr (GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) exts = g_hash_table_new (g_str_hash, g_str_equal);
  for (const SpxFormat *const *f = spx_formats (); *f != NULL; f++)
    {
      g_assert_true (g_hash_table_add (names, (gpointer) (*f)->name));
      g_assert_true (spx_format_lookup ((*f)->name) == *f);
      g_assert_nonnull ((*f)->title);
      g_assert_true (spx_format_can (*f, SPX_FORMAT_READS_MASK) ||
                     spx_format_can (*f, SPX_FORMAT_WRITES_MASK) ||
                     spx_format_can (*f, SPX_FORMAT_READS_NETWORK));
      g_assert_nonnull ((*f)->extensions[0]);
      for (const char *const *e = (*f)->extensions; *e != NULL; e++)
        {
          g_autofree char *lower = g_ascii_strdown (*e, -1);
          g_assert_cmpstr (*e, ==, lower);
          g_assert_null (strchr (*e, '.'));
          g_assert_true (g_hash_table_add (exts, (gpointer) *e));
          g_autofree char *path = g_strconcat ("dir/x.", *e, NULL);
          g_assert_true (spx_format_from_path (path) == *f);
        }
    }
  g_assert_nonnull (spx_format_lookup ("png")); /* registered rows too */
}

/* meson builds a fuzz harness for each name in its lists of formats
 * (core/ and ui/render/): they must be the table's rows, all of them. */
static void
test_fuzz_list (void)
{
  const char *list = g_getenv ("SPX_FUZZ_FORMATS");
  g_assert_nonnull (list);
  g_auto (GStrv) fuzzed = g_strsplit (list, " ", -1);
  guint n = 0;
  for (const SpxFormat *const *f = spx_formats (); *f != NULL; f++, n++)
    if (!g_strv_contains ((const char *const *) fuzzed, (*f)->name))
      g_error ("the format '%s' has no fuzz harness: add it to meson's "
               "list of formats", (*f)->name);
  for (guint i = 0; fuzzed[i] != NULL; i++)
    if (spx_format_lookup (fuzzed[i]) == NULL)
      g_error ("meson lists the format '%s', which the table has not",
               fuzzed[i]);
  g_assert_cmpuint (g_strv_length (fuzzed), ==, n);
}

/* "Matrix Market `.mtx`": how the README's table names a row */
static char *
readme_name (const SpxFormat *format)
{
  GString *s = g_string_new (format->title);
  for (const char *const *e = format->extensions; *e != NULL; e++)
    g_string_append_printf (s, "%s`.%s`", e == format->extensions ? " "
                            : ", ", *e);
  return g_string_free (s, FALSE);
}

/* The first cell of each data row of the table under "## File formats" */
static GPtrArray *
readme_formats (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..",
                                                 "README.md", NULL);
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  const char *at = strstr (text, "\n## File formats\n");
  g_assert_nonnull (at);
  g_auto (GStrv) lines = g_strsplit (at + 1, "\n", -1);
  GPtrArray *cells = g_ptr_array_new_with_free_func (g_free);
  guint i = 1;
  while (lines[i] != NULL && lines[i][0] != '|')
    i++;
  for (i += 2; lines[i] != NULL && lines[i][0] == '|'; i++) /* past the head */
    {
      const char *cell = lines[i] + 1;
      g_ptr_array_add (cells, g_strstrip (g_strndup (cell,
                                                     strcspn (cell, "|"))));
    }
  return cells;
}

/* The README's table names the table's formats, in its order, each with
 * all its extensions. */
static void
test_readme (void)
{
  g_autoptr (GPtrArray) cells = readme_formats ();
  guint n = 0;
  for (const SpxFormat *const *f = spx_formats (); *f != NULL; f++, n++)
    {
      g_autofree char *want = readme_name (*f);
      if (n >= cells->len)
        g_error ("README.md: File formats: no row for %s", want);
      g_assert_cmpstr (g_ptr_array_index (cells, n), ==, want);
    }
  g_assert_cmpuint (cells->len, ==, n);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  spx_mask_png_register (); /* as the program does */
  g_test_add_func ("/format-table/rows", test_rows);
  g_test_add_func ("/format-table/fuzz-list", test_fuzz_list);
  g_test_add_func ("/format-table/readme", test_readme);
  return g_test_run ();
}
