/* test-ipu-machine.c: IPU machines, their key files and the dense planner */
#include "spx-ipu.h"
#include "test-ipu-check.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

/* ---- presets ---------------------------------------------------------- */

static double
peak_tflops (const SpxIpuMachine *m, SpxDtype dtype)
{
  guint flop = dtype == SPX_DTYPE_FP16 ? m->flop_per_cycle_fp16
                                       : m->flop_per_cycle_fp32;
  return m->tiles * (double) flop * m->clock_hz * 1e-12;
}

/* The keys spx-ipu-machine.h documents for a machine key file. */
static const char *const machine_keys[] = {
  "name", "tiles", "grid-width", "sram-bytes", "clock-hz",
  "flop-per-cycle-fp16", "flop-per-cycle-fp32", "exchange-bytes-per-cycle",
  "sync-cycles", "exchange-overhead-cycles", "available-memory", "workers",
};

/* Properties every preset has, whatever the table holds: the list is the
 * table's names, NULL-terminated, each unique; each resolves to a valid
 * machine of that name with a description, and survives its own key
 * file. */
static void
test_presets (void)
{
  const char *const *names = spx_ipu_machine_presets ();
  guint n = spx_ipu_machine_n_presets ();
  g_assert_nonnull (names);
  g_assert_cmpuint (n, >, 0);
  /* exactly n names, then NULL (a short fill or a missing terminator
   * both fail here) */
  for (guint i = 0; i < n; i++)
    g_assert_nonnull (names[i]);
  g_assert_null (names[n]);
  g_assert_cmpuint (g_strv_length ((char **) names), ==, n);
  /* one list, built once */
  g_assert_true (spx_ipu_machine_presets () == names);

  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; names[i] != NULL; i++)
    {
      g_test_message ("preset %s", names[i]);
      g_assert_true (g_hash_table_add (seen, (gpointer) names[i]));

      g_autoptr (SpxIpuMachine) m = spx_ipu_machine_preset (names[i]);
      g_autoptr (GError) error = NULL;
      g_assert_nonnull (m);
      g_assert_cmpstr (m->name, ==, names[i]);
      g_assert_true (m->name != names[i]);  /* a copy the caller frees */
      g_assert_true (spx_ipu_machine_validate (m, &error));
      g_assert_no_error (error);

      /* a one-line description, for this preset only */
      const char *about = spx_ipu_machine_preset_about (names[i]);
      g_assert_nonnull (about);
      g_assert_cmpuint (strlen (about), >, 0);
      g_assert_null (strchr (about, '\n'));
      g_assert_true (g_utf8_validate (about, -1, NULL));

      /* resolve finds it by name without touching the file system */
      g_autoptr (SpxIpuMachine) r = spx_ipu_machine_resolve (names[i], &error);
      g_assert_no_error (error);
      g_assert_true (spx_ipu_machine_equal (r, m));

      /* its key file loads back to the same machine */
      gsize len = 0;
      g_autofree char *data = spx_ipu_machine_to_data (m, &len);
      g_assert_nonnull (data);
      /* every key written, so none falls back on Bow's figures */
      g_autoptr (GKeyFile) kf = g_key_file_new ();
      g_assert_true (g_key_file_load_from_data (kf, data, len,
                                                G_KEY_FILE_NONE, NULL));
      for (guint k = 0; k < G_N_ELEMENTS (machine_keys); k++)
        g_assert_true (g_key_file_has_key (kf, "machine", machine_keys[k],
                                           NULL));
      g_autoptr (SpxIpuMachine) back = spx_ipu_machine_load_data (
        "round-trip", data, len, &error);
      g_assert_no_error (error);
      g_assert_nonnull (back);
      g_assert_cmpstr (back->name, ==, names[i]);
      g_assert_true (spx_ipu_machine_equal (back, m));
    }
  g_assert_cmpuint (g_hash_table_size (seen), ==, n);

  /* no preset is another under a new name: some figure differs */
  for (guint i = 0; names[i] != NULL; i++)
    for (guint j = i + 1; names[j] != NULL; j++)
      {
        g_autoptr (SpxIpuMachine) a = spx_ipu_machine_preset (names[i]);
        g_autoptr (SpxIpuMachine) b = spx_ipu_machine_preset (names[j]);
        g_free (b->name);
        b->name = g_strdup (a->name);
        g_assert_false (spx_ipu_machine_equal (a, b));
      }

  /* the error for an unknown name lists every preset */
  g_autoptr (GError) error = NULL;
  g_assert_null (spx_ipu_machine_resolve ("gc300", &error));
  g_assert_error (error, SPX_IPU_ERROR, SPX_IPU_ERROR_UNKNOWN);
  for (guint i = 0; names[i] != NULL; i++)
    g_assert_nonnull (strstr (error->message, names[i]));

  g_assert_null (spx_ipu_machine_preset ("gc300"));
  g_assert_null (spx_ipu_machine_preset (""));
  g_assert_null (spx_ipu_machine_preset ("BOW"));
  g_assert_null (spx_ipu_machine_preset (NULL));
  g_assert_null (spx_ipu_machine_preset_about ("gc300"));
  g_assert_null (spx_ipu_machine_preset_about (NULL));
}

static gboolean
listed (const char *name)
{
  return g_strv_contains (spx_ipu_machine_presets (), name);
}

/* The published figures of the Graphcore presets. */
static void
test_published (void)
{
  g_assert_true (listed ("bow"));
  g_autoptr (SpxIpuMachine) bow = spx_ipu_machine_preset ("bow");
  g_assert_cmpuint (bow->tiles, ==, 1472);
  g_assert_cmpuint (bow->grid_width, ==, 46);
  g_assert_cmpuint (bow->sram_bytes, ==, 624 * 1024);
  g_assert_cmpfloat (bow->clock_hz, ==, 1.85e9);
  g_assert_cmpuint (bow->flop_per_cycle_fp16, ==, 128);
  g_assert_cmpuint (bow->flop_per_cycle_fp32, ==, 32);
  g_assert_cmpfloat_with_epsilon (peak_tflops (bow, SPX_DTYPE_FP16), 350,
                                  3.5);
  g_assert_cmpuint (spx_ipu_macs_per_cycle (bow, SPX_DTYPE_FP16), ==, 64);
  g_assert_cmpuint (spx_ipu_macs_per_cycle (bow, SPX_DTYPE_FP32), ==, 16);
  g_assert_cmpuint (spx_ipu_tile_budget (bow), ==,
                    (guint64) (0.6 * 624 * 1024));
  /* key files that leave keys out take these from Bow */
  g_assert_cmpfloat (bow->exchange_bytes_per_cycle, ==, 4.0);
  g_assert_cmpuint (bow->sync_cycles, ==, 90);
  g_assert_cmpuint (bow->exchange_overhead_cycles, ==, 100);
  g_assert_cmpfloat (bow->available_memory, ==, 0.6);
  g_assert_cmpuint (bow->workers, ==, 6);
  g_assert_nonnull (strstr (spx_ipu_machine_preset_about ("bow"), "Bow"));

  g_assert_true (listed ("gc200"));
  g_autoptr (SpxIpuMachine) gc200 = spx_ipu_machine_preset ("gc200");
  g_assert_cmpuint (gc200->tiles, ==, 1472);
  g_assert_cmpuint (gc200->grid_width, ==, 46);
  g_assert_cmpuint (gc200->sram_bytes, ==, 624 * 1024);
  g_assert_cmpfloat (gc200->clock_hz, ==, 1.325e9);
  g_assert_cmpuint (gc200->flop_per_cycle_fp16, ==, 128);
  g_assert_cmpuint (gc200->flop_per_cycle_fp32, ==, 32);
  g_assert_cmpfloat_with_epsilon (peak_tflops (gc200, SPX_DTYPE_FP16), 250,
                                  2.5);
  g_assert_nonnull (strstr (spx_ipu_machine_preset_about ("gc200"),
                            "GC200"));

  g_assert_true (listed ("mk1"));
  g_autoptr (SpxIpuMachine) mk1 = spx_ipu_machine_preset ("mk1");
  g_assert_cmpuint (mk1->tiles, ==, 1216);
  g_assert_cmpuint (mk1->grid_width, ==, 38);
  g_assert_cmpuint (mk1->sram_bytes, ==, 256 * 1024);
  g_assert_cmpfloat (mk1->clock_hz, ==, 1.6e9);
  g_assert_cmpuint (mk1->flop_per_cycle_fp16, ==, 64);
  g_assert_cmpuint (mk1->flop_per_cycle_fp32, ==, 16);
  g_assert_cmpfloat_with_epsilon (peak_tflops (mk1, SPX_DTYPE_FP16), 124.5,
                                  1.245);
  g_assert_cmpuint (spx_ipu_macs_per_cycle (mk1, SPX_DTYPE_FP16), ==, 32);
  g_assert_cmpuint (spx_ipu_macs_per_cycle (mk1, SPX_DTYPE_FP32), ==, 8);
  g_assert_nonnull (strstr (spx_ipu_machine_preset_about ("mk1"), "Mk1"));

  g_assert_cmpuint (spx_ipu_dtype_bytes (SPX_DTYPE_FP16), ==, 2);
  g_assert_cmpuint (spx_ipu_dtype_bytes (SPX_DTYPE_FP32), ==, 4);
}

/* Whether a paragraph of text names every preset, each as a word:
 * paragraphs end at a blank line, or where a line starts a troff request
 * or an XML element. */
static gboolean
lists_every_preset (const char *text)
{
  g_autoptr (GRegex) breaks = g_regex_new ("\n\\s*\n|\n[ \t]*[.<]", 0, 0,
                                           NULL);
  g_auto (GStrv) paragraphs = g_regex_split (breaks, text, 0);
  for (char **p = paragraphs; *p != NULL; p++)
    {
      guint named = 0;
      for (const char *const *n = spx_ipu_machine_presets (); *n; n++)
        {
          g_autofree char *word = g_strdup_printf ("\\b%s\\b", *n);
          named += g_regex_match_simple (word, *p, 0, 0);
        }
      if (named == spx_ipu_machine_n_presets ())
        return TRUE;
    }
  return FALSE;
}

/* The table is the one list of presets: the settings schema, the README,
 * the man page and the header point to the program's lists (--help, the
 * Preferences) instead of keeping one by hand, so a new preset is one
 * row of the table. */
static void
test_presets_listed_once (void)
{
  static const char *const files[] = {
    "data/org.sparseexplorer.SparseExplorer.gschema.xml", "README.md",
    "data/sparse-explorer.1.in", "core/ipu/spx-ipu-machine.h" };
  /* what it catches: a list in a paragraph of its own */
  g_autofree char *names = g_strjoinv (", ",
                                       (char **) spx_ipu_machine_presets ());
  g_autofree char *listed = g_strdup_printf ("Intro.\n\nThe presets:\n%s.",
                                             names);
  g_assert_true (lists_every_preset (listed));
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..",
                                                     files[i], NULL);
      g_autofree char *text = NULL;
      g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
      g_test_message ("%s", files[i]);
      g_assert_false (lists_every_preset (text));
    }
}

static void
test_teach16 (void)
{
  g_assert_true (listed ("teach16"));
  g_autoptr (SpxIpuMachine) t = spx_ipu_machine_preset ("teach16");
  g_assert_cmpuint (t->tiles, ==, 16);
  g_assert_cmpuint (t->grid_width, ==, 4);
  g_assert_cmpuint (t->sram_bytes, ==, 64 * 1024);
  /* Bow's per-tile rates */
  g_assert_cmpfloat (t->clock_hz, ==, 1.85e9);
  g_assert_cmpuint (t->flop_per_cycle_fp16, ==, 128);
  g_assert_cmpuint (t->flop_per_cycle_fp32, ==, 32);
  /* the figures /ipu/dense/teach16 works its cycle counts from */
  g_assert_cmpfloat (t->exchange_bytes_per_cycle, ==, 4.0);
  g_assert_cmpuint (t->sync_cycles, ==, 90);
  g_assert_cmpuint (t->exchange_overhead_cycles, ==, 100);
  g_assert_cmpuint (t->workers, ==, 6);

  g_autoptr (SpxIpuMachine) copy = spx_ipu_machine_copy (t);
  g_assert_true (copy->name != t->name);
  g_assert_cmpstr (copy->name, ==, "teach16");
  g_assert_true (spx_ipu_machine_equal (copy, t));
  copy->tiles = 0;
  g_assert_false (spx_ipu_machine_equal (copy, t));
  g_autoptr (GError) error = NULL;
  g_assert_false (spx_ipu_machine_validate (copy, &error));
  g_assert_error (error, SPX_IPU_ERROR, SPX_IPU_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "tiles"));
}

/* ---- key files -------------------------------------------------------- */

static const char good_machine[] =
  "[machine]\n"
  "name = half-bow\n"
  "tiles = 736\n"
  "grid-width = 23\n"
  "sram-bytes = 638976\n"
  "clock-hz = 1.85e9\n"
  "flop-per-cycle-fp16 = 128\n"
  "flop-per-cycle-fp32 = 32\n"
  "exchange-bytes-per-cycle = 8\n"
  "sync-cycles = 120\n"
  "exchange-overhead-cycles = 50\n"
  "available-memory = 0.5\n"
  "workers = 4\n";

static char *
write_temp (const char *dir, const char *name, const char *text)
{
  char *path = g_build_filename (dir, name, NULL);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return path;
}

/* Saving writes every figure; loading it back gives the same machine
 * (a what-if machine edited in the window survives a save). */
static void
test_save_round_trip (void)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-ipu-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "what-if.ini", NULL);
  g_autoptr (SpxIpuMachine) m = spx_ipu_machine_preset ("gc200");
  g_free (m->name);
  m->name = g_strdup ("what if");
  m->tiles = 2944;
  m->clock_hz = 1.333e9;
  m->exchange_bytes_per_cycle = 5.5;
  m->available_memory = 0.45;
  g_autoptr (GError) error = NULL;
  g_assert_true (spx_ipu_machine_save (m, path, SPX_SAVE_DEFAULT, &error));
  g_assert_no_error (error);
  g_autoptr (SpxIpuMachine) back = spx_ipu_machine_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (back->name, ==, "what if");
  g_assert_cmpuint (back->tiles, ==, 2944);
  g_assert_cmpuint (back->grid_width, ==, m->grid_width);
  g_assert_cmpuint (back->sram_bytes, ==, m->sram_bytes);
  g_assert_cmpfloat (back->clock_hz, ==, 1.333e9);
  g_assert_cmpuint (back->flop_per_cycle_fp16, ==, m->flop_per_cycle_fp16);
  g_assert_cmpuint (back->flop_per_cycle_fp32, ==, m->flop_per_cycle_fp32);
  g_assert_cmpfloat (back->exchange_bytes_per_cycle, ==, 5.5);
  g_assert_cmpuint (back->sync_cycles, ==, m->sync_cycles);
  g_assert_cmpuint (back->exchange_overhead_cycles, ==,
                    m->exchange_overhead_cycles);
  g_assert_cmpfloat (back->available_memory, ==, 0.45);
  g_assert_cmpuint (back->workers, ==, m->workers);
  g_unlink (path);
  g_rmdir (dir);
  /* an unwritable place: an error naming it */
  g_assert_false (spx_ipu_machine_save (m, "/nonexistent-dir/m.ini",
                                        SPX_SAVE_DEFAULT, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "/nonexistent-dir/m.ini"));
}

static void
test_load_good (void)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-ipu-XXXXXX", NULL);
  g_autofree char *path = write_temp (dir, "half.ini", good_machine);
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxIpuMachine) m = spx_ipu_machine_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (m->name, ==, "half-bow");
  g_assert_cmpuint (m->tiles, ==, 736);
  g_assert_cmpuint (m->grid_width, ==, 23);
  g_assert_cmpuint (m->sram_bytes, ==, 638976);
  g_assert_cmpfloat (m->clock_hz, ==, 1.85e9);
  g_assert_cmpuint (m->flop_per_cycle_fp16, ==, 128);
  g_assert_cmpuint (m->flop_per_cycle_fp32, ==, 32);
  g_assert_cmpfloat (m->exchange_bytes_per_cycle, ==, 8);
  g_assert_cmpuint (m->sync_cycles, ==, 120);
  g_assert_cmpuint (m->exchange_overhead_cycles, ==, 50);
  g_assert_cmpfloat (m->available_memory, ==, 0.5);
  g_assert_cmpuint (m->workers, ==, 4);

  /* the optional keys left out: Bow's figures, a squarish grid, the file
   * name */
  g_autofree char *small = write_temp (dir, "small.machine",
    "[machine]\ntiles = 64\nsram-bytes = 65536\nclock-hz = 1e9\n"
    "flop-per-cycle-fp16 = 64\nflop-per-cycle-fp32 = 16\n");
  g_autoptr (SpxIpuMachine) s = spx_ipu_machine_load (small, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (s->name, ==, "small.machine");
  g_assert_cmpuint (s->grid_width, ==, 8);
  g_assert_cmpuint (s->workers, ==, 6);
  g_assert_cmpuint (s->sync_cycles, ==, 90);
  g_assert_cmpfloat (s->available_memory, ==, 0.6);

  /* lines that end in CR alone (old Mac files) are lines too */
  g_autofree char *cr = g_strdelimit (g_strdup (good_machine), "\n", '\r');
  g_autoptr (SpxIpuMachine) from_cr = spx_ipu_machine_load_data (
    "cr.ini", cr, strlen (cr), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (from_cr->name, ==, "half-bow");
  g_assert_cmpuint (from_cr->tiles, ==, 736);

  /* resolve: a preset by name, else a file */
  g_autoptr (SpxIpuMachine) by_name = spx_ipu_machine_resolve ("mk1", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (by_name->tiles, ==, 1216);
  g_autoptr (SpxIpuMachine) by_path = spx_ipu_machine_resolve (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (by_path->tiles, ==, 736);
  g_assert_null (spx_ipu_machine_resolve ("no-such-machine", &error));
  g_assert_error (error, SPX_IPU_ERROR, SPX_IPU_ERROR_UNKNOWN);
  g_assert_nonnull (strstr (error->message, "no-such-machine"));
  g_assert_nonnull (strstr (error->message, "bow"));
  g_clear_error (&error);
  /* a path is a file, missing or not: its own error */
  g_assert_null (spx_ipu_machine_resolve ("/nonexistent/m.machine", &error));
  g_assert_error (error, SPX_IPU_ERROR, SPX_IPU_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "/nonexistent/m.machine"));

  g_unlink (path);
  g_unlink (small);
  g_rmdir (dir);
}

/* Replace key's line of the good file by `key = value` (or drop it when
 * value is NULL, or add an extra line when key is new). */
static char *
with_value (const char *key, const char *value)
{
  g_auto (GStrv) lines = g_strsplit (good_machine, "\n", -1);
  GString *out = g_string_new (NULL);
  g_autofree char *prefix = g_strconcat (key, " =", NULL);
  gboolean seen = FALSE;
  for (guint i = 0; lines[i] != NULL && lines[i][0] != '\0'; i++)
    {
      if (g_str_has_prefix (lines[i], prefix))
        {
          seen = TRUE;
          if (value != NULL)
            g_string_append_printf (out, "%s = %s\n", key, value);
        }
      else
        g_string_append_printf (out, "%s\n", lines[i]);
    }
  if (!seen && value != NULL)
    g_string_append_printf (out, "%s = %s\n", key, value);
  return g_string_free (out, FALSE);
}

static void
assert_refused (const char *dir, const char *text, const char *key)
{
  g_autofree char *path = write_temp (dir, "bad.machine", text);
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxIpuMachine) m = spx_ipu_machine_load (path, &error);
  g_assert_null (m);
  g_assert_error (error, SPX_IPU_ERROR, SPX_IPU_ERROR_INVALID);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, path));
  g_assert_nonnull (strstr (error->message, key));
  g_unlink (path);
}

static void
test_load_bad (void)
{
  static const struct { const char *key, *value; } bad[] = {
    { "tiles", "0" }, { "tiles", "-4" }, { "tiles", "1e3" },
    { "tiles", "100000" }, { "tiles", "many" }, { "tiles", "" },
    { "grid-width", "0" }, { "grid-width", "737" },
    { "sram-bytes", "12" }, { "sram-bytes", "64KiB" },
    { "clock-hz", "0" }, { "clock-hz", "fast" }, { "clock-hz", "nan" },
    { "clock-hz", "inf" }, { "clock-hz", "1.85e9x" },
    { "flop-per-cycle-fp16", "0" }, { "flop-per-cycle-fp16", "1" },
    { "flop-per-cycle-fp32", "2.5" },
    { "exchange-bytes-per-cycle", "0" }, { "exchange-bytes-per-cycle", "-1" },
    { "sync-cycles", "-90" }, { "sync-cycles", "1e12" },
    { "exchange-overhead-cycles", "x" },
    { "available-memory", "0" }, { "available-memory", "1.5" },
    { "workers", "0" }, { "workers", "65" },
    /* required keys missing */
    { "tiles", NULL }, { "sram-bytes", NULL }, { "clock-hz", NULL },
    { "flop-per-cycle-fp16", NULL }, { "flop-per-cycle-fp32", NULL },
    /* unknown key */
    { "tile-count", "1472" },
  };
  g_autofree char *dir = g_dir_make_tmp ("spx-ipu-XXXXXX", NULL);
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *text = with_value (bad[i].key, bad[i].value);
      assert_refused (dir, text, bad[i].key);
    }
  g_autofree char *group = g_strconcat (good_machine, "[extra]\na = 1\n", NULL);
  assert_refused (dir, group, "extra");
  assert_refused (dir, "[ipu]\ntiles = 4\n", "machine");
  /* not a key file: the line that is not, and nothing of it quoted */
  assert_refused (dir, "tiles = 4\n", "bad.machine:1: not a machine key");
  assert_refused (dir, "# a machine\n\n[machine]\ntiles = 4\nsecret\n",
                  "bad.machine:5: not a machine key");

  g_autofree char *missing = g_build_filename (dir, "missing.machine", NULL);
  g_autoptr (GError) error = NULL;
  g_assert_null (spx_ipu_machine_load (missing, &error));
  g_assert_error (error, SPX_IPU_ERROR, SPX_IPU_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, missing));
  g_rmdir (dir);
}

/* ---- the dense planner ------------------------------------------------ */

static guint64
tile_bytes (const SpxIpuTile *t)
{
  guint64 sum = 0;
  for (guint kind = 0; kind < SPX_N_BYTE_KINDS; kind++)
    sum += t->bytes[kind];
  return sum;
}

static void
check_invariants (const SpxIpuProgram *p)
{
  guint64 macs = 0;
  for (guint t = 0; t < p->n_tiles; t++)
    {
      macs += p->tiles[t].macs;
      if (p->fits)
        g_assert_cmpuint (tile_bytes (&p->tiles[t]), <=,
                          p->machine->sram_bytes);
    }
  g_assert_cmpuint (macs, ==, p->m * p->k * p->n);
  guint64 cycles = 0;
  for (guint i = 0; i < p->steps->len; i++)
    {
      const SpxIpuStep *s = &g_array_index (p->steps, SpxIpuStep, i);
      cycles += s->cycles;
      if (s->kind != SPX_STEP_EXCHANGE)
        continue;
      test_ipu_check_traffic (p, s);
      test_ipu_check_pieces (p, s);
    }
  g_assert_cmpuint (cycles, ==, p->cycles);
  g_assert_cmpuint (p->max_tile_bytes, >, 0);
}

/* teach16, m = k = n = 64, FP32. The plan is pM = 4, pN = 4, pK = 1: tile
 * 4i + j multiplies W rows 16i.. (16 × 64) by X columns 16j.. (64 × 16).
 * X starts on the 4 × 4 home grid, home (a, b) = tile 4a + b holding X
 * rows 16a.., columns 16b..; W lies where the plan uses it: the four
 * tiles 4i.. sharing W rows 16i.. each own 4 of them (256 elements,
 * 1024 bytes), tile 4i + j rows 16i + 4j... */
static void
test_dense_teach16 (void)
{
  g_autoptr (SpxIpuMachine) t16 = spx_ipu_machine_preset ("teach16");
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxIpuProgram) p = spx_ipu_plan_dense (t16, 64, 64, 64,
                                                    SPX_DTYPE_FP32, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (p->plan, ==, "pM=4 pN=4 pK=1 rounds=1");
  g_assert_true (p->fits);
  g_assert_cmpuint (p->tiles_used, ==, 16);
  check_invariants (p);

  /* Each tile fetches the 3 × 4 rows of W it does not own from the three
   * other tiles of its row and its 64 × 16 X columns from the three other
   * homes of grid column j: 6 transfers of 1024 bytes in. Out, each owned
   * part of W and each home block of X goes to three tiles as one
   * broadcast: 1024 + 1024. Exchange: 100 + 6144 / 4 = 1636 cycles. */
  g_assert_cmpuint (p->steps->len, ==, 3);
  const SpxIpuStep *sync = &g_array_index (p->steps, SpxIpuStep, 0);
  const SpxIpuStep *dist = &g_array_index (p->steps, SpxIpuStep, 1);
  const SpxIpuStep *comp = &g_array_index (p->steps, SpxIpuStep, 2);
  g_assert_cmpint (sync->kind, ==, SPX_STEP_SYNC);
  g_assert_cmpuint (sync->cycles, ==, 90);
  g_assert_cmpint (dist->kind, ==, SPX_STEP_EXCHANGE);
  g_assert_cmpuint (dist->transfers->len, ==, 96);
  for (guint t = 0; t < 16; t++)
    {
      g_assert_cmpuint (dist->bytes_in[t], ==, 6144);
      g_assert_cmpuint (dist->bytes_out[t], ==, 2048);
    }
  for (guint j = 0; j < dist->transfers->len; j++)
    g_assert_cmpuint (g_array_index (dist->transfers, SpxIpuTransfer,
                                     j).bytes, ==, 1024);
  g_assert_cmpuint (dist->cycles, ==, 100 + 6144 / 4);
  /* tile 0 first gathers W rows 4b..4b + 3 from tiles b = 1, 2, 3,
   * then X columns 0–15 from homes 4, 8, 12 (its rows 16a..) */
  for (guint b = 1; b < 4; b++)
    test_ipu_check_transfer (dist, b - 1, b, 0, 1024, SPX_BYTES_VALUES,
                             4 * b, 4 * b + 4, 0, 64);
  for (guint a = 1; a < 4; a++)
    test_ipu_check_transfer (dist, 2 + a, 4 * a, 0, 1024, SPX_BYTES_INPUT,
                             16 * a, 16 * a + 16, 0, 16);

  /* Compute: one row of 16 × 16 pieces, 4 pieces along k; six workers
   * share its 16 columns, 3 each; a column of a piece costs
   * 256 / 16 MACs per cycle = 16 worker cycles. Per worker:
   * 24 + 4·(16 + 3·16) = 280 worker cycles; ×6, + the vertex start 30. */
  g_assert_cmpint (comp->kind, ==, SPX_STEP_COMPUTE);
  g_assert_cmpuint (comp->cycles, ==, 280 * 6 + 30);
  /* its terms: vertex start; 1 row of pieces × 24 × 6; 4 pieces × 16 ×
   * 6 to fill; 4 pieces × 3 columns × 16 × 6 of multiply-accumulate */
  const guint64 want[] = { 30, 144, 384, 1152 };
  g_assert_cmpuint (comp->terms->len, ==, G_N_ELEMENTS (want));
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    g_assert_cmpuint (g_array_index (comp->terms, SpxIpuTerm, i).cycles, ==,
                      want[i]);
  /* exchange: overhead, then the busiest tile's 6144 bytes in at 4 */
  g_assert_cmpuint (dist->terms->len, ==, 2);
  g_assert_cmpuint (g_array_index (dist->terms, SpxIpuTerm, 0).cycles, ==,
                    100);
  g_assert_cmpuint (g_array_index (dist->terms, SpxIpuTerm, 1).cycles, ==,
                    6144 / 4);
  g_assert_cmpuint (p->cycles, ==, 90 + 1636 + 1710);

  for (guint t = 0; t < 16; t++)
    {
      const SpxIpuTile *tile = &p->tiles[t];
      g_assert_cmpuint (tile->macs, ==, 16 * 64 * 16);
      /* its slice of W (its own part among it), X's home block + its
       * slice */
      g_assert_cmpuint (tile->bytes[SPX_BYTES_VALUES], ==, 4096);
      g_assert_cmpuint (tile->bytes[SPX_BYTES_INPUT], ==, 1024 + 4096);
      g_assert_cmpuint (tile->bytes[SPX_BYTES_PARTIALS], ==, 0);
      g_assert_cmpuint (tile->bytes[SPX_BYTES_OUTPUT], ==, 16 * 16 * 4);
      g_assert_cmpuint (tile->compute_cycles, ==, 1710);
    }
  g_assert_cmpuint (p->max_tile_bytes, ==, 10240);
  g_assert_cmpfloat (p->density, ==, 1.0);
  g_assert_cmpfloat_with_epsilon (p->ms, 3436 / 1.85e9 * 1e3, 1e-9);
}

/* teach16, m = 4, k = 256, n = 4, FP32: pM = pN = 1, pK = 16, tile l
 * multiplies k rows 16l... Its 4 × 4 partial sums are reduced in bands of
 * whole rows: row part_start (4, 16, l) = l / 4 up to (l + 1) / 4, so
 * tiles 3, 7, 11, 15 own Y rows 0, 1, 2, 3 and each receives its row, 4
 * values of 4 bytes, from the 15 others: 60 transfers of 16 bytes. */
static void
test_dense_reduce_pieces (void)
{
  g_autoptr (SpxIpuMachine) t16 = spx_ipu_machine_preset ("teach16");
  g_autoptr (SpxIpuProgram) p = spx_ipu_plan_dense (t16, 4, 256, 4,
                                                    SPX_DTYPE_FP32, NULL);
  g_assert_cmpstr (p->plan, ==, "pM=1 pN=1 pK=16 rounds=1");
  check_invariants (p);
  const SpxIpuStep *red = &g_array_index (p->steps, SpxIpuStep,
                                          p->steps->len - 2);
  g_assert_cmpstr (red->phase, ==, "reduce");
  g_assert_cmpint (red->kind, ==, SPX_STEP_EXCHANGE);
  g_assert_cmpuint (red->transfers->len, ==, 60);
  for (guint row = 0; row < 4; row++)
    for (guint i = 0; i < 15; i++)
      {
        guint32 dst = 4 * row + 3, src = i < dst ? i : i + 1;
        test_ipu_check_transfer (red, 15 * row + i, src, dst, 16,
                                 SPX_BYTES_PARTIALS, row, row + 1, 0, 4);
      }
}

/* The same at fp16: keeping the partial sums in fp16 halves what each
 * owner receives (15 × 4 × 2 = 120 bytes: 100 + 30 cycles against
 * 100 + 60 for fp32) and costs more to add (PopLibs' estimate, 6 workers
 * × 16 to start, then one vector of 8 halves × (8 + 6 + 16 − 1) = 96 +
 * 174, against 4 floats × (5 + 6 + 16 − 1) = 96 + 156): 400 cycles
 * against 412, so the planner keeps them in fp16 and says so. */
static void
test_dense_partials_fp16 (void)
{
  g_autoptr (SpxIpuMachine) t16 = spx_ipu_machine_preset ("teach16");
  g_autoptr (SpxIpuProgram) p = spx_ipu_plan_dense (t16, 4, 256, 4,
                                                    SPX_DTYPE_FP16, NULL);
  g_assert_cmpstr (p->plan, ==, "pM=1 pN=1 pK=16 rounds=1 partials=fp16");
  g_assert_cmpint (p->partials, ==, SPX_DTYPE_FP16);
  check_invariants (p);
  const SpxIpuStep *red = &g_array_index (p->steps, SpxIpuStep,
                                          p->steps->len - 2);
  const SpxIpuStep *add = &g_array_index (p->steps, SpxIpuStep,
                                          p->steps->len - 1);
  g_assert_cmpuint (red->transfers->len, ==, 60);
  for (guint row = 0; row < 4; row++)
    for (guint i = 0; i < 15; i++)
      {
        guint32 dst = 4 * row + 3, src = i < dst ? i : i + 1;
        test_ipu_check_transfer (red, 15 * row + i, src, dst, 8,
                                 SPX_BYTES_PARTIALS, row, row + 1, 0, 4);
      }
  g_assert_cmpuint (red->cycles, ==, 100 + 120 / 4);
  g_assert_cmpuint (add->cycles, ==, 96 + 174);
  /* its own 4 × 4 partial sums and the 15 others' of its row */
  g_assert_cmpuint (p->tiles[3].bytes[SPX_BYTES_PARTIALS], ==,
                    4 * 4 * 2 + 15 * 4 * 2);
}

/* The dense vertex's workers split rows of pieces and columns at the
 * split that finishes first. 64 × 64 × 104 on Bow fp16 (4 rows of 4
 * pieces, a column of a piece 256 / 64 = 4 worker cycles): per worker
 * rows × (24 + 4 × (16 + columns × 4)) with 4 rows apart, 1 row and 104
 * columns: 1752; 3 apart (2 each), 52: 1840; 2 apart, 35 columns: 1296;
 * 1 row group, 18: 1504. Two apart: 30 + 6 × 1296. */
static void
test_dense_vertex_workers (void)
{
  g_autoptr (SpxIpuMachine) bow = spx_ipu_machine_preset ("bow");
  g_autoptr (GArray) terms = spx_ipu_terms_new ();
  g_assert_cmpuint (spx_ipu_cost_dense_vertex (bow, SPX_DTYPE_FP16, 64, 64,
                                               104, terms), ==, 30 + 6 * 1296);
  const guint64 want[] = { 30, 2 * 24 * 6, 2 * 4 * 16 * 6, 2 * 4 * 35 * 4 * 6 };
  g_assert_cmpuint (terms->len, ==, G_N_ELEMENTS (want));
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    g_assert_cmpuint (g_array_index (terms, SpxIpuTerm, i).cycles, ==,
                      want[i]);
  /* 12 rows: two each on six workers beats any split of the columns */
  g_assert_cmpuint (spx_ipu_cost_dense_vertex (bow, SPX_DTYPE_FP16, 192, 16,
                                               8, NULL), ==,
                    30 + 6 * 2 * (24 + (16 + 8 * 4)));
}

/* The static block vertex follows the machine's MAC rate: one 16 × 16
 * block times 24 columns, 6 workers of 4 columns each, y = 15 + 4 ×
 * (256 / AMP width) worker cycles; Bow's fp16 AMP does 64 MACs a worker
 * step, Mk1's 32. Start 30 + 13 × 6, the row 6 + 17, the block 16 +
 * 256 × 2 / 8 + 6y. */
static void
test_static_vertex_rate (void)
{
  g_autoptr (SpxIpuMachine) bow = spx_ipu_machine_preset ("bow");
  g_autoptr (SpxIpuMachine) mk1 = spx_ipu_machine_preset ("mk1");
  guint64 fixed = 30 + 13 * 6 + 6 + 17 + 16 + 64;
  g_assert_cmpuint (spx_ipu_cost_block_vertex (bow, 16, SPX_DTYPE_FP16, 1, 1,
                                               24, NULL), ==,
                    fixed + 6 * (15 + 4 * 4));
  g_assert_cmpuint (spx_ipu_cost_block_vertex (mk1, 16, SPX_DTYPE_FP16, 1, 1,
                                               24, NULL), ==,
                    fixed + 6 * (15 + 4 * 8));
}

/* What a transfer carries, for people; ranges past 32 bits or none at
 * all are left out. */
static void
test_piece_describe (void)
{
  g_autoptr (SpxIpuMachine) t16 = spx_ipu_machine_preset ("teach16");
  g_autoptr (SpxIpuProgram) p = spx_ipu_program_new (
    SPX_IPU_MODE_DENSE, t16, 256, 128, 64, 1, SPX_DTYPE_FP16, 1.0);
  SpxIpuPiece x = spx_ipu_piece (SPX_BYTES_INPUT, 64, 128, 0, 32);
  g_autofree char *xs = spx_ipu_piece_describe (p, &x, 64 * 32 * 2);
  g_assert_cmpstr (xs, ==, "X rows 64–127, columns 0–31, fp16: 4.0 KiB");
  /* partial sums are fp32 whatever the product's type */
  SpxIpuPiece y = spx_ipu_piece (SPX_BYTES_PARTIALS, 0, 2, 0, 64);
  g_autofree char *ys = spx_ipu_piece_describe (p, &y, 2 * 64 * 4);
  g_assert_cmpstr (ys, ==,
                   "partial sums of Y rows 0–1, columns 0–63, fp32: 512 B");
  SpxIpuPiece w = spx_ipu_piece (SPX_BYTES_VALUES, 0, 0, 0, 0);
  g_autofree char *ws = spx_ipu_piece_describe (p, &w, 1536);
  g_assert_cmpstr (ws, ==, "W non-zeros fp16: 1.5 KiB");
  SpxIpuPiece far = spx_ipu_piece (SPX_BYTES_INPUT, 0,
                                   G_GUINT64_CONSTANT (1) << 33, 0, 4);
  g_assert_cmpuint (far.row1, ==, 0);
  g_assert_cmpuint (far.col1, ==, 0);
}

static void
test_dense_invariants (void)
{
  static const struct { const char *machine; guint64 m, k, n; SpxDtype d; }
  cases[] = {
    { "teach16", 64, 64, 64, SPX_DTYPE_FP16 },
    { "teach16", 100, 37, 9, SPX_DTYPE_FP32 },
    { "teach16", 1, 1, 1, SPX_DTYPE_FP16 },
    { "teach16", 3, 500, 2, SPX_DTYPE_FP16 },
    { "teach16", 256, 256, 2048, SPX_DTYPE_FP32 },
    { "mk1", 1000, 3000, 17, SPX_DTYPE_FP32 },
    { "bow", 4096, 4096, 1024, SPX_DTYPE_FP16 },
    { "bow", 4096, 4096, 4096, SPX_DTYPE_FP32 },
    { "gc200", 777, 4099, 129, SPX_DTYPE_FP16 },
    { "bow", 1, 100000, 1, SPX_DTYPE_FP32 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (SpxIpuMachine) m = spx_ipu_machine_preset (cases[i].machine);
      g_autoptr (GError) error = NULL;
      g_autoptr (SpxIpuProgram) p = spx_ipu_plan_dense (m, cases[i].m,
                                                        cases[i].k, cases[i].n,
                                                        cases[i].d, &error);
      g_assert_no_error (error);
      g_test_message ("%s %" G_GUINT64_FORMAT "×%" G_GUINT64_FORMAT "×%"
                      G_GUINT64_FORMAT ": %s, %" G_GUINT64_FORMAT
                      " cycles, fits %d", cases[i].machine, cases[i].m,
                      cases[i].k, cases[i].n, p->plan, p->cycles, p->fits);
      check_invariants (p);
      g_assert_cmpint (p->mode, ==, SPX_IPU_MODE_DENSE);
    }
}

static void
test_dense_too_large (void)
{
  g_autoptr (SpxIpuMachine) bow = spx_ipu_machine_preset ("bow");
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxIpuProgram) p = spx_ipu_plan_dense (bow, 65536, 65536, 65536,
                                                    SPX_DTYPE_FP32, &error);
  g_assert_no_error (error);
  g_assert_nonnull (p);
  g_assert_false (p->fits);
  g_assert_cmpuint (p->max_tile_bytes, >, bow->sram_bytes);
  check_invariants (p);

  g_assert_null (spx_ipu_plan_dense (bow, 0, 4, 4, SPX_DTYPE_FP16, &error));
  g_assert_error (error, SPX_IPU_ERROR, SPX_IPU_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_null (spx_ipu_plan_dense (bow, G_MAXUINT64, G_MAXUINT64, 4,
                                     SPX_DTYPE_FP16, &error));
  g_assert_error (error, SPX_IPU_ERROR, SPX_IPU_ERROR_INVALID);
}

static void
test_dense_speed (void)
{
  g_autoptr (SpxIpuMachine) bow = spx_ipu_machine_preset ("bow");
  gint64 start = g_get_monotonic_time ();
  g_autoptr (SpxIpuProgram) p = spx_ipu_plan_dense (bow, 4096, 4096, 1024,
                                                    SPX_DTYPE_FP16, NULL);
  double ms = (g_get_monotonic_time () - start) / 1e3;
  g_test_message ("dense bow 4096² n = 1024: %s, %.2f ms to plan", p->plan,
                  ms);
  g_assert_true (p->fits);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ipu/machine/presets", test_presets);
  g_test_add_func ("/ipu/machine/published", test_published);
  g_test_add_func ("/ipu/machine/teach16", test_teach16);
  g_test_add_func ("/ipu/machine/listed-once", test_presets_listed_once);
  g_test_add_func ("/ipu/piece/describe", test_piece_describe);
  g_test_add_func ("/ipu/machine/load-good", test_load_good);
  g_test_add_func ("/ipu/machine/load-bad", test_load_bad);
  g_test_add_func ("/ipu/machine/save", test_save_round_trip);
  g_test_add_func ("/ipu/dense/teach16", test_dense_teach16);
  g_test_add_func ("/ipu/dense/reduce-pieces", test_dense_reduce_pieces);
  g_test_add_func ("/ipu/dense/partials-fp16", test_dense_partials_fp16);
  g_test_add_func ("/ipu/dense/vertex-workers", test_dense_vertex_workers);
  g_test_add_func ("/ipu/static/vertex-rate", test_static_vertex_rate);
  g_test_add_func ("/ipu/dense/invariants", test_dense_invariants);
  g_test_add_func ("/ipu/dense/too-large", test_dense_too_large);
  g_test_add_func ("/ipu/dense/speed", test_dense_speed);
  return g_test_run ();
}
