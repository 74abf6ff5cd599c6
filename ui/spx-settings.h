/* spx-settings.h: the preferences and the export dialog's memory, in
 * GSettings; the old preferences.ini is read into them once */
#pragma once

#include "spx-config.h" /* SPX_APPLICATION_ID: also the schema's id */

#include <gio/gio.h>

G_BEGIN_DECLS

/* The process's settings, made on first use: the first schema found
 * that has every key this program knows (installed, or in the build
 * folder), saved by GSettings' backend; with none, the schema built into
 * the program, kept in memory for this run (one warning). The old
 * preferences.ini is migrated then. Borrowed; lives as long as the
 * process. */
GSettings       *spx_settings_get         (void);

/* Before any settings are made (GTK's too): without a session bus, dconf
 * would lose every write with a warning, so GLib's key file backend is
 * chosen for the process, unless GSETTINGS_BACKEND already says. */
void             spx_settings_keep_saving (void);

/* That schema, or NULL when none is found. */
GSettingsSchema *spx_settings_find_schema (void);

/* Settings of schema on the default backend, or in the key file below
 * when that backend would lose them (dconf without a session bus, or no
 * backend installed); NULL schema: the built-in one, in memory, with a
 * warning. */
GSettings       *spx_settings_new_for     (GSettingsSchema *schema);

/* The key file the preferences fall back to, under the user's config
 * folder. */
char            *spx_settings_keyfile_path (void);

/* The old preferences file, under the user's config folder. */
char            *spx_settings_ini_path    (void);

/* Read the old key file at path (group [preferences]: theme, threads,
 * machine) into settings: a good value is kept, a bad one ignored with a
 * warning naming the file, key and what was expected. When retire, the
 * file then becomes path.migrated, so it is read only once (a memory
 * backend forgets: it leaves the file). FALSE when there is no file. */
gboolean         spx_settings_migrate_ini (GSettings *settings,
                                           const char *path,
                                           gboolean retire);

G_END_DECLS
