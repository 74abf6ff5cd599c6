/* test-desktop.c: the desktop entry, the icons and the AppStream metainfo
 * all carry the application's id, the metainfo's newest release is the
 * program's version, and the validators (when installed) accept them. */
#include "spx-config.h"
#include "test-run.h"

#include <gio/gio.h>
#include <string.h>

static char *
data_file (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "..", "data", name, NULL);
}

static char *
read_text (const char *path)
{
  char *text = NULL;
  g_autoptr (GError) error = NULL;
  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  return text;
}

/* The validator argv[0] (its arguments, then the file, in argv) accepts
 * the file; skipped when it is not installed. */
static void
assert_valid (const char *const *argv)
{
  g_autofree char *found = g_find_program_in_path (argv[0]);
  if (found == NULL)
    {
      g_test_skip_printf ("%s is not installed", argv[0]);
      return;
    }
  int status;
  g_autofree char *err = NULL;
  g_autofree char *out = test_run (argv, NULL, &status, &err);
  g_test_message ("%s%s", out, err);
  if (status != 0)
    g_test_fail_printf ("%s refuses the file (exit %d)", argv[0], status);
}

/* The first group 1 of `pattern` in `text`. */
static char *
first_match (const char *pattern, const char *text)
{
  g_autoptr (GRegex) re = g_regex_new (pattern, 0, 0, NULL);
  g_autoptr (GMatchInfo) m = NULL;
  if (!g_regex_match (re, text, 0, &m))
    return NULL;
  return g_match_info_fetch (m, 1);
}

static void
test_desktop_entry (void)
{
  g_autofree char *path = data_file (SPX_APPLICATION_ID ".desktop");
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autoptr (GError) error = NULL;
  g_key_file_load_from_file (kf, path, G_KEY_FILE_NONE, &error);
  g_assert_no_error (error);
  const char *g = G_KEY_FILE_DESKTOP_GROUP;
  g_autofree char *icon = g_key_file_get_string (kf, g, "Icon", NULL);
  g_autofree char *exec = g_key_file_get_string (kf, g, "Exec", NULL);
  g_assert_cmpstr (icon, ==, SPX_APPLICATION_ID);
  g_assert_cmpstr (exec, ==, "sparse-explorer %F");
  const char *argv[] = { "desktop-file-validate", path, NULL };
  assert_valid (argv);
}

static void
test_metainfo (void)
{
  g_autofree char *path = data_file (SPX_APPLICATION_ID ".metainfo.xml");
  g_autofree char *xml = read_text (path);
  g_autofree char *id = first_match ("<id>([^<]*)</id>", xml);
  g_autofree char *launchable = first_match (
    "<launchable type=\"desktop-id\">([^<]*)<", xml);
  g_autofree char *binary = first_match ("<binary>([^<]*)<", xml);
  g_autofree char *release = first_match ("<release version=\"([^\"]*)\"",
                                          xml);
  g_assert_cmpstr (id, ==, SPX_APPLICATION_ID);
  g_assert_cmpstr (launchable, ==, SPX_APPLICATION_ID ".desktop");
  g_assert_cmpstr (binary, ==, "sparse-explorer");
  /* a new version needs its release written here first */
  g_assert_cmpstr (release, ==, SPX_VERSION);
  const char *argv[] = { "appstreamcli", "validate", "--no-net", path, NULL };
  assert_valid (argv);
}

/* The symbolic icon is drawn in one colour; the window's icon is also in
 * the program's resources, byte for byte, for a run before installing. */
static void
test_icons (void)
{
  g_autofree char *app = data_file (
    "icons/hicolor/scalable/apps/" SPX_APPLICATION_ID ".svg");
  g_autofree char *symbolic = data_file (
    "icons/hicolor/symbolic/apps/" SPX_APPLICATION_ID "-symbolic.svg");
  g_autofree char *app_svg = read_text (app);
  g_autofree char *symbolic_svg = read_text (symbolic);
  g_assert_nonnull (strstr (app_svg, "<svg"));
  g_assert_nonnull (strstr (symbolic_svg, "<svg"));

  g_autoptr (GRegex) colour = g_regex_new ("#[0-9a-fA-F]{3,6}\\b", 0, 0,
                                           NULL);
  g_autoptr (GMatchInfo) m = NULL;
  g_autofree char *first = NULL;
  for (g_regex_match (colour, symbolic_svg, 0, &m); g_match_info_matches (m);
       g_match_info_next (m, NULL))
    {
      g_autofree char *c = g_match_info_fetch (m, 0);
      if (first == NULL)
        first = g_strdup (c);
      g_assert_cmpstr (c, ==, first);
    }
  g_assert_nonnull (first);
  g_assert_null (strstr (symbolic_svg, "stroke"));

  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) res = g_resources_lookup_data (
    "/org/sparseexplorer/SparseExplorer/icons/scalable/apps/"
    SPX_APPLICATION_ID ".svg", 0, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (res, NULL), g_bytes_get_size (res),
                   app_svg, strlen (app_svg));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/desktop/entry", test_desktop_entry);
  g_test_add_func ("/desktop/metainfo", test_metainfo);
  g_test_add_func ("/desktop/icons", test_icons);
  return g_test_run ();
}
