/* spx-settings.c: the preferences in GSettings: find the schema (never
 * abort when it is missing), and migrate the old key file */
#include "spx-settings.h"
#include "spx-ipu.h"
#include "spx-save.h"
#include "spx-util.h"

#define G_SETTINGS_ENABLE_BACKEND /* the memory backend */
#include <gio/gsettingsbackend.h>
#include <errno.h>
#include <glib/gstdio.h>

#define GROUP "preferences"
#define BUILT_IN "/org/sparseexplorer/SparseExplorer/schema/gschemas.compiled"
/* Preferences take a few hundred bytes: a longer file is not one. */
#define MAX_FILE_BYTES (1024 * 1024)

/* The schema compiled into the program. GSettings reads schemas only
 * from a folder, so it goes through a temporary one (mapped, then
 * removed). */
static GSettingsSchemaSource *
built_in_source (void)
{
  static GSettingsSchemaSource *source;
  if (source != NULL)
    return source;
  g_autoptr (GBytes) bytes = g_resources_lookup_data (
    BUILT_IN, G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  g_autofree char *dir = g_dir_make_tmp ("sparse-explorer-XXXXXX", NULL);
  g_return_val_if_fail (bytes != NULL && dir != NULL, NULL);
  g_autofree char *file = g_build_filename (dir, "gschemas.compiled", NULL);
  gsize len;
  const char *data = g_bytes_get_data (bytes, &len);
  if (spx_save_file (file, data, len, SPX_SAVE_DEFAULT, NULL))
    source = g_settings_schema_source_new_from_directory (dir, NULL, TRUE,
                                                          NULL);
  g_unlink (file);
  g_rmdir (dir);
  return source;
}

static GSettingsSchema *
built_in_schema (void)
{
  GSettingsSchemaSource *source = built_in_source ();
  g_return_val_if_fail (source != NULL, NULL);
  return g_settings_schema_source_lookup (source, SPX_APPLICATION_ID, FALSE);
}

/* An older copy of the schema lacks keys this program reads (GSettings
 * aborts on a missing key): it is passed over. */
static gboolean
has_every_key (GSettingsSchema *schema)
{
  g_autoptr (GSettingsSchema) ours = built_in_schema ();
  g_auto (GStrv) keys = g_settings_schema_list_keys (ours);
  for (guint i = 0; keys[i] != NULL; i++)
    if (!g_settings_schema_has_key (schema, keys[i]))
      return FALSE;
  return TRUE;
}

static GSettingsSchema *
lookup_in (GSettingsSchemaSource *source)
{
  GSettingsSchema *schema =
    source ? g_settings_schema_source_lookup (source, SPX_APPLICATION_ID,
                                              TRUE)
           : NULL;
  if (schema != NULL && !has_every_key (schema))
    g_clear_pointer (&schema, g_settings_schema_unref);
  return schema;
}

GSettingsSchema *
spx_settings_find_schema (void)
{
  /* where GSettings looks (GSETTINGS_SCHEMA_DIR, XDG_DATA_DIRS), then
   * this program's prefix and its build folder */
  static const char *const dirs[] = { SPX_SCHEMA_INSTALL_DIR,
                                      SPX_SCHEMA_BUILD_DIR };
  GSettingsSchema *schema = lookup_in (
    g_settings_schema_source_get_default ());
  for (guint i = 0; schema == NULL && i < G_N_ELEMENTS (dirs); i++)
    {
      g_autoptr (GSettingsSchemaSource) source =
        g_settings_schema_source_new_from_directory (dirs[i], NULL, FALSE,
                                                     NULL);
      schema = lookup_in (source);
    }
  return schema;
}

char *
spx_settings_keyfile_path (void)
{
  return g_build_filename (g_get_user_config_dir (), "sparse-explorer",
                           "settings.keyfile", NULL);
}

/* GLib reads a settings key file whole and without a limit when it
 * makes a backend for it: a FIFO there blocks it, a link to /dev/zero
 * fills the memory. A file is usable missing (made on the first write)
 * or regular and at most MAX_FILE_BYTES; else FALSE with why not. */
static gboolean
file_usable (const char *path, GError **error)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  GError *local = NULL;
  if (spx_read_regular (path, "a settings key file", MAX_FILE_BYTES, &data,
                        &len, &local))
    return TRUE;
  if (g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
    {
      g_error_free (local);
      return TRUE;
    }
  g_propagate_error (error, local);
  return FALSE;
}

/* Why GLib's own key file was passed over, said once the settings are
 * made (the commands never make them: they stay quiet). */
static char *glib_file_refused;

/* GSETTINGS_BACKEND=keyfile reads GLib's file in the user's config
 * folder when the first settings are made (GTK's too): an unusable one
 * makes the process keep settings in memory instead, ours in our own
 * key file (backend_for). */
static void
avoid_unusable_glib_file (void)
{
  if (g_strcmp0 (g_getenv ("GSETTINGS_BACKEND"), "keyfile") != 0)
    return;
  g_autofree char *path = g_build_filename (g_get_user_config_dir (),
                                            "glib-2.0", "settings",
                                            "keyfile", NULL);
  g_autoptr (GError) error = NULL;
  if (file_usable (path, &error))
    return;
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  g_free (glib_file_refused);
  glib_file_refused = g_strdup (error->message);
}

static gboolean
session_bus_reachable (void)
{
  if (g_getenv ("DBUS_SESSION_BUS_ADDRESS") != NULL)
    return TRUE;
  g_autofree char *socket = g_build_filename (g_get_user_runtime_dir (),
                                             "bus", NULL);
  return g_file_test (socket, G_FILE_TEST_EXISTS);
}

void
spx_settings_keep_saving (void)
{
  if (g_getenv ("GSETTINGS_BACKEND") == NULL && !session_bus_reachable ())
    g_setenv ("GSETTINGS_BACKEND", "keyfile", TRUE);
  avoid_unusable_glib_file ();
}

/* Our own key file, or memory when it is unusable too; one warning says
 * which file was passed over and why. */
static GSettingsBackend *
own_key_file (GSettingsSchema *schema)
{
  g_autofree char *file = spx_settings_keyfile_path ();
  g_autoptr (GError) error = NULL;
  if (file_usable (file, &error))
    {
      if (glib_file_refused != NULL)
        g_warning ("%s; the preferences are saved in %s instead",
                   glib_file_refused, file);
      return g_keyfile_settings_backend_new (
        file, g_settings_schema_get_path (schema), GROUP);
    }
  g_warning ("%s%s%s; the preferences are kept for this run only",
             glib_file_refused ? glib_file_refused : "",
             glib_file_refused ? "; " : "", error->message);
  return g_memory_settings_backend_new ();
}

/* dconf saves through the session bus: without one (a bare X server, a
 * remote shell) every write fails with a warning and is lost. Memory is
 * what GLib falls back to when no backend is installed, and what an
 * unusable GLib key file gives. Either way a key file keeps the
 * preferences; memory asked for by name (tests) stays. */
static GSettingsBackend *
backend_for (GSettingsSchema *schema)
{
  avoid_unusable_glib_file ();
  GSettingsBackend *backend = g_settings_backend_get_default ();
  const char *type = G_OBJECT_TYPE_NAME (backend);
  gboolean lost =
    (g_str_equal (type, "DConfSettingsBackend") && !session_bus_reachable ())
    || (g_str_equal (type, "GMemorySettingsBackend") &&
        (g_strcmp0 (g_getenv ("GSETTINGS_BACKEND"), "memory") != 0 ||
         glib_file_refused != NULL));
  if (!lost)
    return backend;
  g_object_unref (backend);
  return own_key_file (schema);
}

GSettings *
spx_settings_new_for (GSettingsSchema *schema)
{
  if (schema != NULL)
    {
      g_autoptr (GSettingsBackend) backend = backend_for (schema);
      return g_settings_new_full (schema, backend, NULL);
    }
  g_warning ("the settings schema %s is not installed: preferences are "
             "kept for this run only (install the program, or set "
             "GSETTINGS_SCHEMA_DIR)", SPX_APPLICATION_ID);
  g_autoptr (GSettingsSchema) ours = built_in_schema ();
  g_autoptr (GSettingsBackend) memory = g_memory_settings_backend_new ();
  return g_settings_new_full (ours, memory, NULL);
}

char *
spx_settings_ini_path (void)
{
  return g_build_filename (g_get_user_config_dir (), "sparse-explorer",
                           "preferences.ini", NULL);
}

/* ---- migration ----------------------------------------------------- */

/* value for key when the schema allows it, else a warning saying what
 * it expects. */
static void
migrate_value (GSettings *settings, const char *path, const char *key,
               const char *raw, GVariant *value, const char *expected)
{
  g_autoptr (GVariant) owned = value ? g_variant_ref_sink (value) : NULL;
  g_autoptr (GSettingsSchema) schema = NULL;
  g_object_get (settings, "settings-schema", &schema, NULL);
  g_autoptr (GSettingsSchemaKey) k = g_settings_schema_get_key (schema, key);
  if (owned != NULL && g_settings_schema_key_range_check (k, owned))
    g_settings_set_value (settings, key, owned);
  else
    g_warning ("%s: [%s] %s: expected %s, got '%s'; ignored", path, GROUP,
               key, expected, raw);
}

static GVariant *
parse_threads (const char *raw)
{
  guint64 n;
  if (!g_ascii_string_to_unsigned (raw, 10, 0, G_MAXUINT32, &n, NULL))
    return NULL;
  return g_variant_new_uint32 ((guint32) n);
}

static GVariant *
parse_machine (const char *raw)
{
  return g_strv_contains (spx_ipu_machine_presets (), raw)
           ? g_variant_new_string (raw) : NULL;
}

static void
migrate_keys (GSettings *settings, GKeyFile *kf, const char *path)
{
  g_autofree char *presets = g_strjoinv (", ",
                                         (char **) spx_ipu_machine_presets ());
  g_autofree char *a_preset = g_strdup_printf ("a preset (%s)", presets);
  g_autofree char *theme = g_key_file_get_value (kf, GROUP, "theme", NULL);
  g_autofree char *threads = g_key_file_get_value (kf, GROUP, "threads",
                                                   NULL);
  g_autofree char *machine = g_key_file_get_value (kf, GROUP, "machine",
                                                   NULL);
  if (theme != NULL)
    migrate_value (settings, path, "theme", theme,
                   g_variant_new_string (theme), "light or dark");
  if (threads != NULL)
    migrate_value (settings, path, "threads", threads,
                   parse_threads (threads), "a whole number from 0 to 1024");
  if (machine != NULL)
    migrate_value (settings, path, "machine", machine,
                   parse_machine (machine), a_preset);
}

gboolean
spx_settings_migrate_ini (GSettings *settings, const char *path,
                          gboolean retire)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *data = NULL;
  gsize len = 0;
  /* never blocks on a FIFO, never reads a device or a huge file */
  if (!spx_read_regular (path, "a preferences file", MAX_FILE_BYTES, &data,
                         &len, &error))
    {
      if (g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return FALSE;
      g_warning ("%s; the preferences keep their defaults", error->message);
    }
  else if (g_key_file_load_from_data (kf, data, len, G_KEY_FILE_NONE, &error))
    migrate_keys (settings, kf, path);
  else
    g_warning ("%s: not read (%s); the preferences keep their defaults",
               path, error->message);
  /* what is not a file (a FIFO, a folder) is the user's: left where it is */
  if (!retire || !g_file_test (path, G_FILE_TEST_IS_REGULAR))
    return TRUE;
  g_settings_sync ();
  g_autofree char *done = g_strconcat (path, ".migrated", NULL);
  if (g_rename (path, done) != 0)
    g_warning ("%s: cannot rename it to %s (%s); it will be read again",
               path, done, g_strerror (errno));
  return TRUE;
}

GSettings *
spx_settings_get (void)
{
  static GSettings *settings;
  if (settings == NULL)
    {
      g_autoptr (GSettingsSchema) schema = spx_settings_find_schema ();
      g_autofree char *path = spx_settings_ini_path ();
      settings = spx_settings_new_for (schema);
      spx_settings_migrate_ini (settings, path, schema != NULL);
    }
  return settings;
}
