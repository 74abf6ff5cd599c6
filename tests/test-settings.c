/* test-settings.c: the preferences in GSettings (no display needed): the
 * old preferences.ini migrates once, bad values in it are ignored with a
 * warning, a missing schema falls back to memory, values survive a
 * restart; and the export dialog's logic: sizes, pages, starting folder,
 * file names. */
#include "spx-settings.h"
#include "spx-window-private.h"

#define G_SETTINGS_ENABLE_BACKEND /* memory and key file backends */
#include <gio/gsettingsbackend.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *home; /* XDG_CONFIG_HOME, a throw-away folder */

/* Settings of the build's schema, in memory (GSETTINGS_BACKEND=memory):
 * every test starts from the defaults. */
static GSettings *
fresh_settings (void)
{
  g_autoptr (GSettingsSchema) schema = spx_settings_find_schema ();
  g_assert_nonnull (schema);
  g_autoptr (GSettingsBackend) memory = g_memory_settings_backend_new ();
  return g_settings_new_full (schema, memory, NULL);
}

static char *
write_ini (const char *text)
{
  char *path = spx_settings_ini_path ();
  g_autofree char *dir = g_path_get_dirname (path);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return path;
}

static void
remove_ini (const char *path)
{
  g_autofree char *done = g_strconcat (path, ".migrated", NULL);
  g_unlink (path);
  g_unlink (done);
}

static void
assert_defaults (GSettings *s)
{
  g_autofree char *theme = g_settings_get_string (s, "theme");
  g_autofree char *machine = g_settings_get_string (s, "machine");
  g_assert_cmpstr (theme, ==, "light");
  g_assert_cmpuint (g_settings_get_uint (s, "threads"), ==, 0);
  g_assert_cmpstr (machine, ==, "bow");
}

/* Good values arrive; the file is renamed, so a second start finds
 * nothing to read. */
static void
test_migrate (void)
{
  g_autoptr (GSettings) s = fresh_settings ();
  g_autofree char *path = write_ini (
    "[preferences]\ntheme=dark\nthreads=4\nmachine=teach16\n");
  g_autofree char *done = g_strconcat (path, ".migrated", NULL);
  g_assert_true (spx_settings_migrate_ini (s, path, TRUE));
  g_autofree char *theme = g_settings_get_string (s, "theme");
  g_autofree char *machine = g_settings_get_string (s, "machine");
  g_assert_cmpstr (theme, ==, "dark");
  g_assert_cmpuint (g_settings_get_uint (s, "threads"), ==, 4);
  g_assert_cmpstr (machine, ==, "teach16");
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (done, G_FILE_TEST_IS_REGULAR));
  /* read once: a later change is not undone by the old file */
  g_settings_set_uint (s, "threads", 2);
  g_assert_false (spx_settings_migrate_ini (s, path, TRUE));
  g_assert_cmpuint (g_settings_get_uint (s, "threads"), ==, 2);
  remove_ini (path);
}

/* Each bad value is ignored with a warning naming the file, the key and
 * what was expected; the good one beside them still arrives. */
static void
test_migrate_bad (void)
{
  static const char *const cases[][3] = {
    /* key=value line, key, expected */
    { "theme=purple", "theme", "light or dark" },
    { "threads=lots", "threads", "from 0 to 1024" },
    { "threads=-3", "threads", "from 0 to 1024" },
    { "threads=5000", "threads", "from 0 to 1024" },
    { "machine=nosuch", "machine", "gc200, bow, mk1, teach16" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GSettings) s = fresh_settings ();
      g_autofree char *text = g_strdup_printf (
        "[preferences]\n%s\n%s\n", cases[i][0],
        g_str_equal (cases[i][1], "theme") ? "threads=3" : "theme=dark");
      g_autofree char *path = write_ini (text);
      g_autofree char *pattern = g_strdup_printf ("%s: [preferences] %s: "
                                                  "expected *%s*", path,
                                                  cases[i][1], cases[i][2]);
      g_test_expect_message ("Spx", G_LOG_LEVEL_WARNING, pattern);
      g_assert_true (spx_settings_migrate_ini (s, path, TRUE));
      g_test_assert_expected_messages ();
      g_autofree char *theme = g_settings_get_string (s, "theme");
      g_autofree char *machine = g_settings_get_string (s, "machine");
      if (g_str_equal (cases[i][1], "theme"))
        {
          g_assert_cmpstr (theme, ==, "light");
          g_assert_cmpuint (g_settings_get_uint (s, "threads"), ==, 3);
        }
      else
        {
          g_assert_cmpstr (theme, ==, "dark");
          g_assert_cmpuint (g_settings_get_uint (s, "threads"), ==, 0);
          g_assert_cmpstr (machine, ==, "bow");
        }
      remove_ini (path);
    }
}

/* Not a key file at all: the defaults stay, one warning; it is not read
 * at every start. */
static void
test_migrate_damaged (void)
{
  g_autoptr (GSettings) s = fresh_settings ();
  g_autofree char *path = write_ini ("\x89PNG\r\n\x1a\n[[[\nno=group\n");
  g_test_expect_message ("Spx", G_LOG_LEVEL_WARNING, "*not read*");
  g_assert_true (spx_settings_migrate_ini (s, path, TRUE));
  g_test_assert_expected_messages ();
  assert_defaults (s);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  remove_ini (path);
}

/* Settings that are not saved (no schema installed) read the old file
 * but leave it for a run that can keep its values. */
static void
test_migrate_kept (void)
{
  g_autoptr (GSettings) s = fresh_settings ();
  g_autofree char *path = write_ini ("[preferences]\nthreads=7\n");
  g_assert_true (spx_settings_migrate_ini (s, path, FALSE));
  g_assert_cmpuint (g_settings_get_uint (s, "threads"), ==, 7);
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  remove_ini (path);
}

/* No schema found: the built-in one, in memory, one warning, no abort;
 * every key the program reads is there. */
static void
test_missing_schema (void)
{
  g_test_expect_message ("Spx", G_LOG_LEVEL_WARNING,
                         "*" SPX_APPLICATION_ID " is not installed*");
  g_autoptr (GSettings) s = spx_settings_new_for (NULL);
  g_test_assert_expected_messages ();
  g_assert_nonnull (s);
  assert_defaults (s);
  SpxExportChoice choice;
  spx_export_choice_load (&choice, s);
  g_assert_cmpint (choice.png, ==, SPX_PNG_1600);
  g_assert_cmpint (choice.page, ==, SPX_PAGE_A4);
  g_assert_cmpint (choice.theme, ==, SPX_EXPORT_THEME_SHOWN);
  g_assert_true (choice.noise_note);
  g_settings_set_string (s, "export-folder", "/somewhere");
  g_autofree char *folder = g_settings_get_string (s, "export-folder");
  g_assert_cmpstr (folder, ==, "/somewhere");
}

/* What is set is there after a restart: a key file backend, closed and
 * opened again. */
static void
test_round_trip (void)
{
  g_autofree char *file = g_build_filename (home, "settings.keyfile", NULL);
  g_autoptr (GSettingsSchema) schema = spx_settings_find_schema ();
  const SpxExportChoice set = { SPX_PNG_CUSTOM, 800, 600, SPX_PAGE_LETTER,
                                100, 50, SPX_EXPORT_THEME_DARK, FALSE };
  {
    g_autoptr (GSettingsBackend) b =
      g_keyfile_settings_backend_new (file, "/", NULL);
    g_autoptr (GSettings) s = g_settings_new_full (schema, b, NULL);
    g_settings_set_string (s, "theme", "dark");
    g_settings_set_uint (s, "threads", 12);
    g_settings_set_string (s, "machine", "mk1");
    g_settings_set_string (s, "export-folder", home);
    spx_export_choice_save (&set, s);
    g_settings_sync ();
  }
  g_autoptr (GSettingsBackend) b =
    g_keyfile_settings_backend_new (file, "/", NULL);
  g_autoptr (GSettings) s = g_settings_new_full (schema, b, NULL);
  g_autofree char *theme = g_settings_get_string (s, "theme");
  g_autofree char *machine = g_settings_get_string (s, "machine");
  g_autofree char *folder = g_settings_get_string (s, "export-folder");
  g_assert_cmpstr (theme, ==, "dark");
  g_assert_cmpuint (g_settings_get_uint (s, "threads"), ==, 12);
  g_assert_cmpstr (machine, ==, "mk1");
  g_assert_cmpstr (folder, ==, home);
  SpxExportChoice got;
  spx_export_choice_load (&got, s);
  g_assert_cmpint (got.png, ==, set.png);
  g_assert_cmpuint (got.png_width, ==, 800);
  g_assert_cmpuint (got.png_height, ==, 600);
  g_assert_cmpint (got.page, ==, SPX_PAGE_LETTER);
  g_assert_cmpfloat (got.page_width, ==, 100);
  g_assert_cmpfloat (got.page_height, ==, 50);
  g_assert_cmpint (got.theme, ==, SPX_EXPORT_THEME_DARK);
  g_assert_false (got.noise_note);
  g_unlink (file);
}

/* An installed schema older than the program (missing keys) is passed
 * over for one that has them all (the build's). */
static void
test_old_schema (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr (GSettingsSchema) schema = spx_settings_find_schema ();
      g_assert_nonnull (schema);
      g_assert_true (g_settings_schema_has_key (schema, "export-folder"));
      return;
    }
  g_autofree char *dir = g_build_filename (home, "old-schema", NULL);
  g_autofree char *xml = g_build_filename (dir, "old.gschema.xml", NULL);
  g_autofree char *compiled = g_build_filename (dir, "gschemas.compiled",
                                                NULL);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (xml,
    "<schemalist><schema id='" SPX_APPLICATION_ID "' "
    "path='/org/sparseexplorer/SparseExplorer/'>"
    "<key name='theme' type='s'><default>'light'</default></key>"
    "</schema></schemalist>", -1, NULL));
  const char *argv[] = { "glib-compile-schemas", dir, NULL };
  gint status;
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL,
                               G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL,
                               &status, NULL));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_autofree char *before = g_strdup (g_getenv ("GSETTINGS_SCHEMA_DIR"));
  g_setenv ("GSETTINGS_SCHEMA_DIR", dir, TRUE);
  g_test_trap_subprocess (NULL, 20 * G_USEC_PER_SEC,
                          G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_setenv ("GSETTINGS_SCHEMA_DIR", before, TRUE);
  g_test_trap_assert_passed ();
  g_unlink (xml);
  g_unlink (compiled);
  g_rmdir (dir);
}

/* dconf with no session bus to save through (or no backend at all): the
 * preferences go to a key file instead of being lost. */
static void
test_no_session_bus (void)
{
  if (g_test_subprocess ())
    {
      g_autofree char *runtime = g_build_filename (home, "runtime", NULL);
      g_assert_cmpint (g_mkdir_with_parents (runtime, 0700), ==, 0);
      g_setenv ("XDG_RUNTIME_DIR", runtime, TRUE);
      g_unsetenv ("DBUS_SESSION_BUS_ADDRESS");
      g_setenv ("GSETTINGS_BACKEND", "dconf", TRUE);
      g_autoptr (GSettingsSchema) schema = spx_settings_find_schema ();
      g_autoptr (GSettings) s = spx_settings_new_for (schema);
      g_assert_true (g_settings_set_uint (s, "threads", 3));
      g_settings_sync ();
      g_autofree char *file = spx_settings_keyfile_path ();
      g_autofree char *text = NULL;
      g_assert_true (g_file_get_contents (file, &text, NULL, NULL));
      g_assert_nonnull (strstr (text, "threads=3"));
      g_unlink (file);
      return;
    }
  g_test_trap_subprocess (NULL, 20 * G_USEC_PER_SEC,
                          G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

/* The whole process (GTK's file chooser too) saves to a key file when
 * there is no bus; a bus, or a backend asked for, is left alone. */
static void
test_keep_saving (void)
{
  g_autofree char *runtime = g_build_filename (home, "runtime-k", NULL);
  g_autofree char *before = g_strdup (g_getenv ("GSETTINGS_BACKEND"));
  g_assert_cmpint (g_mkdir_with_parents (runtime, 0700), ==, 0);
  g_setenv ("XDG_RUNTIME_DIR", runtime, TRUE);
  g_unsetenv ("DBUS_SESSION_BUS_ADDRESS");
  g_unsetenv ("GSETTINGS_BACKEND");
  spx_settings_keep_saving ();
  g_assert_cmpstr (g_getenv ("GSETTINGS_BACKEND"), ==, "keyfile");
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  spx_settings_keep_saving ();
  g_assert_cmpstr (g_getenv ("GSETTINGS_BACKEND"), ==, "memory");
  g_unsetenv ("GSETTINGS_BACKEND");
  g_setenv ("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nowhere", TRUE);
  spx_settings_keep_saving ();
  g_assert_null (g_getenv ("GSETTINGS_BACKEND"));
  g_unsetenv ("DBUS_SESSION_BUS_ADDRESS");
  if (before != NULL)
    g_setenv ("GSETTINGS_BACKEND", before, TRUE);
  else
    g_unsetenv ("GSETTINGS_BACKEND");
}

/* ---- settings files that are not ones -------------------------------- */

/* What may sit where a settings file is looked for, and what the warning
 * then says. */
typedef enum { HOSTILE_ZERO, HOSTILE_FIFO, HOSTILE_HUGE, HOSTILE_FOLDER }
  Hostile;

static const struct { const char *name, *says; } hostile[] = {
  [HOSTILE_ZERO] = { "zero", "is not a regular file (a device)" },
  [HOSTILE_FIFO] = { "fifo", "is not a regular file (a FIFO)" },
  [HOSTILE_HUGE] = { "huge", "longer than 1048576 bytes" },
  [HOSTILE_FOLDER] = { "folder", "is a directory" },
};

static void
make_hostile (const char *path, Hostile kind)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  switch (kind)
    {
    case HOSTILE_ZERO:
      g_assert_cmpint (symlink ("/dev/zero", path), ==, 0);
      break;
    case HOSTILE_FIFO:
      g_assert_cmpint (mkfifo (path, 0600), ==, 0);
      break;
    case HOSTILE_HUGE:
      {
        g_autofree char *text = g_strnfill (1024 * 1024 + 1, '#');
        text[0] = '[';
        g_assert_true (g_file_set_contents (path, text, -1, NULL));
      }
      break;
    case HOSTILE_FOLDER:
    default:
      g_assert_cmpint (g_mkdir (path, 0700), ==, 0);
      break;
    }
}

static void
remove_hostile (const char *path)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    g_rmdir (path);
  else
    g_unlink (path);
}

/* No session bus: a key file is wanted, but not one that would block
 * or fill the memory. */
static void
without_bus (void)
{
  g_autofree char *runtime = g_build_filename (home, "runtime-h", NULL);
  g_assert_cmpint (g_mkdir_with_parents (runtime, 0700), ==, 0);
  g_setenv ("XDG_RUNTIME_DIR", runtime, TRUE);
  g_unsetenv ("DBUS_SESSION_BUS_ADDRESS");
}

/* Each case in a process of its own, so a hang or an abort fails it. */
static gboolean
in_child (void)
{
  if (g_test_subprocess ())
    return TRUE;
  g_test_trap_subprocess (NULL, 20 * G_USEC_PER_SEC,
                          G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
  return FALSE;
}

/* Settings of the build's schema on the backend chosen for them, made
 * with one warning matching pattern. */
static GSettings *
settings_warning (const char *pattern)
{
  g_autoptr (GSettingsSchema) schema = spx_settings_find_schema ();
  g_test_expect_message ("Spx", G_LOG_LEVEL_WARNING, pattern);
  GSettings *s = spx_settings_new_for (schema);
  g_test_assert_expected_messages ();
  return s;
}

/* GLib's key file, which GLib reads whole itself: passed over before it
 * is read (the process keeps its settings in memory), ours saved in our
 * own key file; one warning names the file and why. */
static void
test_hostile_glib_file (gconstpointer data)
{
  Hostile kind = GPOINTER_TO_INT (data);
  if (!in_child ())
    return;
  without_bus ();
  g_unsetenv ("GSETTINGS_BACKEND");
  g_autofree char *glib_file = g_build_filename (
    g_get_user_config_dir (), "glib-2.0", "settings", "keyfile", NULL);
  g_autofree char *ours = spx_settings_keyfile_path ();
  make_hostile (glib_file, kind);
  spx_settings_keep_saving ();
  g_assert_cmpstr (g_getenv ("GSETTINGS_BACKEND"), ==, "memory");
  g_autofree char *pattern = g_strdup_printf (
    "%s: %s*; the preferences are saved in %s instead", glib_file,
    hostile[kind].says, ours);
  g_autoptr (GSettings) s = settings_warning (pattern);
  g_assert_true (g_settings_set_uint (s, "threads", 3));
  g_settings_sync ();
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (ours, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "threads=3"));
  remove_hostile (glib_file);
  g_unlink (ours);
}

/* Our own key file (dconf without a bus to save through): unusable too,
 * the preferences are kept in memory for the run, with one warning. */
static void
test_hostile_own_file (gconstpointer data)
{
  Hostile kind = GPOINTER_TO_INT (data);
  if (!in_child ())
    return;
  without_bus ();
  g_setenv ("GSETTINGS_BACKEND", "dconf", TRUE);
  g_autofree char *ours = spx_settings_keyfile_path ();
  make_hostile (ours, kind);
  g_autofree char *pattern = g_strdup_printf (
    "%s: %s*; the preferences are kept for this run only", ours,
    hostile[kind].says);
  g_autoptr (GSettings) s = settings_warning (pattern);
  assert_defaults (s);
  g_assert_true (g_settings_set_uint (s, "threads", 5));
  g_assert_cmpuint (g_settings_get_uint (s, "threads"), ==, 5);
  remove_hostile (ours);
}

/* The old preferences.ini: read without waiting or filling the memory,
 * one warning, the defaults kept; what is not a file is left in place. */
static void
test_hostile_ini (gconstpointer data)
{
  Hostile kind = GPOINTER_TO_INT (data);
  if (!in_child ())
    return;
  g_autofree char *path = spx_settings_ini_path ();
  make_hostile (path, kind);
  g_autofree char *pattern = g_strdup_printf (
    "%s: %s*; the preferences keep their defaults", path, hostile[kind].says);
  g_test_expect_message ("Spx", G_LOG_LEVEL_WARNING, pattern);
  GSettings *s = spx_settings_get ();
  g_test_assert_expected_messages ();
  assert_defaults (s);
  g_assert_true (g_settings_set_uint (s, "threads", 6));
  g_assert_cmpuint (g_settings_get_uint (s, "threads"), ==, 6);
  g_autofree char *done = g_strconcat (path, ".migrated", NULL);
  struct stat st;
  g_assert_cmpint (lstat (kind == HOSTILE_HUGE ? done : path, &st), ==, 0);
  remove_hostile (path);
  g_unlink (done);
}

/* ---- the export dialog's logic ------------------------------------- */

#define A4_W (297 * 72 / 25.4)
#define A4_H (210 * 72 / 25.4)

static void
test_export_geometry (void)
{
  static const struct {
    SpxExportChoice choice;
    SpxExportFormat format;
    double width, height, scale;
  } cases[] = {
    /* PNG: the view at 1× or 2×, or exactly the pixels asked */
    { { SPX_PNG_1X, 10, 10, SPX_PAGE_A4, 10, 10, 0, TRUE },
      SPX_EXPORT_PNG, 700, 500, 1 },
    { { SPX_PNG_2X, 10, 10, SPX_PAGE_A4, 10, 10, 0, TRUE },
      SPX_EXPORT_PNG, 700, 500, 2 },
    { { SPX_PNG_CUSTOM, 1920, 1080, SPX_PAGE_A4, 10, 10, 0, TRUE },
      SPX_EXPORT_PNG, 1920, 1080, 1 },
    /* the presets: their size, not the view's */
    { { SPX_PNG_1200, 10, 10, SPX_PAGE_A4, 10, 10, 0, TRUE },
      SPX_EXPORT_PNG, 1200, 750, 1 },
    { { SPX_PNG_1600, 10, 10, SPX_PAGE_A4, 10, 10, 0, TRUE },
      SPX_EXPORT_PNG, 1600, 1000, 1 },
    { { SPX_PNG_2400, 10, 10, SPX_PAGE_A4, 10, 10, 0, TRUE },
      SPX_EXPORT_PNG, 2400, 1500, 1 },
    /* 88 × 66 mm and 180 × 110 mm in points (72 per 25.4 mm) */
    { { SPX_PNG_1X, 10, 10, SPX_PAGE_COLUMN, 10, 10, 0, TRUE },
      SPX_EXPORT_PDF, 88 * 72 / 25.4, 66 * 72 / 25.4, 1 },
    { { SPX_PNG_1X, 10, 10, SPX_PAGE_TWO_COLUMNS, 10, 10, 0, TRUE },
      SPX_EXPORT_SVG, 180 * 72 / 25.4, 110 * 72 / 25.4, 1 },
    /* SVG and PDF: points; the PNG choice does not matter */
    { { SPX_PNG_2X, 10, 10, SPX_PAGE_VIEW, 10, 10, 0, TRUE },
      SPX_EXPORT_SVG, 700, 500, 1 },
    { { SPX_PNG_2X, 10, 10, SPX_PAGE_A4, 10, 10, 0, TRUE },
      SPX_EXPORT_PDF, A4_W, A4_H, 1 },
    { { SPX_PNG_1X, 10, 10, SPX_PAGE_LETTER, 10, 10, 0, TRUE },
      SPX_EXPORT_PDF, 792, 612, 1 },
    { { SPX_PNG_1X, 10, 10, SPX_PAGE_CUSTOM, 25.4, 50.8, 0, TRUE },
      SPX_EXPORT_SVG, 72, 144, 1 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      double w, h, scale;
      spx_export_geometry (&cases[i].choice, cases[i].format, 700, 500, &w,
                           &h, &scale);
      /* a preset is the same from a view of another size */
      double w2, h2, scale2;
      spx_export_geometry (&cases[i].choice, cases[i].format, 300, 900, &w2,
                           &h2, &scale2);
      gboolean viewed = cases[i].format == SPX_EXPORT_PNG
                        ? cases[i].choice.png <= SPX_PNG_2X
                        : cases[i].choice.page == SPX_PAGE_VIEW;
      g_assert_true (viewed || (w2 == w && h2 == h && scale2 == scale));
      g_assert_cmpfloat_with_epsilon (w, cases[i].width, 1e-9);
      g_assert_cmpfloat_with_epsilon (h, cases[i].height, 1e-9);
      g_assert_cmpfloat (scale, ==, cases[i].scale);
    }
}

/* The style of an export: the theme chosen (shown: the view's), and the
 * noise note left out when not included. */
static void
test_export_style (void)
{
  SpxExportChoice c = { SPX_PNG_1X, 10, 10, SPX_PAGE_VIEW, 10, 10,
                        SPX_EXPORT_THEME_SHOWN, TRUE };
  SpxRenderStyle style;
  spx_export_choice_style (&c, SPX_THEME_DARK, &style);
  g_assert_cmpint (style.theme, ==, SPX_THEME_DARK);
  g_assert_false (style.no_noise_note);
  c.theme = SPX_EXPORT_THEME_LIGHT;
  c.noise_note = FALSE;
  spx_export_choice_style (&c, SPX_THEME_DARK, &style);
  g_assert_cmpint (style.theme, ==, SPX_THEME_LIGHT);
  g_assert_true (style.no_noise_note);
  c.theme = SPX_EXPORT_THEME_DARK;
  spx_export_choice_style (&c, SPX_THEME_LIGHT, &style);
  g_assert_cmpint (style.theme, ==, SPX_THEME_DARK);
  SpxRenderStyle dark;
  spx_render_style_init (&dark, SPX_THEME_DARK);
  g_assert_cmpfloat (style.background.r, ==, dark.background.r);
}

/* The Pictures folder comes from user-dirs.dirs under XDG_CONFIG_HOME. */
static void
set_pictures (const char *dir)
{
  g_autofree char *file = g_build_filename (home, "user-dirs.dirs", NULL);
  g_autofree char *text = g_strdup_printf ("XDG_PICTURES_DIR=\"%s\"\n", dir);
  g_assert_true (g_file_set_contents (file, text, -1, NULL));
  g_reload_user_special_dirs_cache ();
}

static void
test_export_start_folder (void)
{
  g_autofree char *pictures = g_build_filename (home, "Pictures", NULL);
  g_autofree char *last = g_build_filename (home, "last", NULL);
  g_assert_cmpint (g_mkdir_with_parents (pictures, 0700), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (last, 0700), ==, 0);
  set_pictures (pictures);
  struct { const char *remembered, *expected; } cases[] = {
    { "", pictures },     /* first time */
    { NULL, pictures },
    { last, last },       /* the last folder used */
    { "/no/such/folder", pictures }, /* since removed */
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *got = spx_export_start_folder (cases[i].remembered);
      g_assert_cmpstr (got, ==, cases[i].expected);
    }
  /* no Pictures folder: home */
  g_rmdir (pictures);
  g_autofree char *got = spx_export_start_folder ("");
  g_assert_cmpstr (got, ==, g_get_home_dir ());
  g_rmdir (last);
  g_autofree char *file = g_build_filename (home, "user-dirs.dirs", NULL);
  g_unlink (file);
  g_reload_user_special_dirs_cache ();
}

static void
test_export_rename (void)
{
  static const char *const cases[][3] = {
    { "mask.png", ".svg", "mask.svg" },
    { "Mask.PNG", ".pdf", "Mask.pdf" },
    { "sweep.json", ".csv", "sweep.csv" },
    { "mask", ".png", "mask.png" },
    { "my.data", ".svg", "my.data.svg" },
    { "a.svg.png", ".svg", "a.svg.svg" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *got = spx_export_rename (cases[i][0], cases[i][1]);
      g_assert_cmpstr (got, ==, cases[i][2]);
    }
}

int
main (int argc, char **argv)
{
  home = g_dir_make_tmp ("spx-settings-XXXXXX", NULL);
  g_setenv ("XDG_CONFIG_HOME", home, TRUE);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/settings/migrate", test_migrate);
  g_test_add_func ("/settings/migrate-bad", test_migrate_bad);
  g_test_add_func ("/settings/migrate-damaged", test_migrate_damaged);
  g_test_add_func ("/settings/migrate-kept", test_migrate_kept);
  g_test_add_func ("/settings/missing-schema", test_missing_schema);
  g_test_add_func ("/settings/round-trip", test_round_trip);
  g_test_add_func ("/settings/old-schema", test_old_schema);
  g_test_add_func ("/settings/no-session-bus", test_no_session_bus);
  g_test_add_func ("/settings/keep-saving", test_keep_saving);
  for (guint i = 0; i < G_N_ELEMENTS (hostile); i++)
    {
      static const struct { const char *path; GTestDataFunc func; } cases[] = {
        { "/settings/hostile-glib-file/", test_hostile_glib_file },
        { "/settings/hostile-own-file/", test_hostile_own_file },
        { "/settings/hostile-ini/", test_hostile_ini },
      };
      for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
        {
          g_autofree char *name = g_strconcat (cases[c].path,
                                               hostile[i].name, NULL);
          g_test_add_data_func (name, GINT_TO_POINTER (i), cases[c].func);
        }
    }
  g_test_add_func ("/settings/export-geometry", test_export_geometry);
  g_test_add_func ("/settings/export-style", test_export_style);
  g_test_add_func ("/settings/export-start-folder",
                   test_export_start_folder);
  g_test_add_func ("/settings/export-rename", test_export_rename);
  int status = g_test_run ();
  g_autofree char *dir = g_build_filename (home, "sparse-explorer", NULL);
  g_rmdir (dir);
  g_rmdir (home);
  return status;
}
