/* spx-ipu-machine.c: machine presets, machine key files and per-tile rates */
#include "spx-ipu-machine.h"
#include "spx-util.h"

#include <math.h>
#include <string.h>

G_DEFINE_QUARK (spx-ipu-error-quark, spx_ipu_error)

#define GROUP_MACHINE "machine"
#define MAX_TILES     16384u   /* programs hold per-tile arrays and up to
                                  tiles² transfers */
#define MAX_WORKERS   64u
#define MAX_NAME_CHARS 64u
#define MAX_FILE_BYTES (64 * 1024) /* a dozen keys; anything longer is not
                                      a machine file */
#define KIB           G_GUINT64_CONSTANT (1024)

/* One preset: the machine and a line on what it is and where its
 * figures come from (kept out of SpxIpuMachine, which key files, copies
 * and comparisons cover in full). */
typedef struct {
  SpxIpuMachine machine;
  const char   *about;
} Preset;

/* The presets, in the order menus list them; adding one is one entry.
 * Graphcore's published figures per generation; every preset has six
 * workers and leaves plans 60 % of SRAM. Grid widths make the drawn tile
 * array nearly square: 46 × 32 for 1,472 tiles, 38 × 32 for 1,216. */
static const Preset presets[] = {
  {
    .machine = {
      .name = "gc200", .tiles = 1472, .grid_width = 46,
      .sram_bytes = 624 * KIB, .clock_hz = 1.325e9,
      .flop_per_cycle_fp16 = 128, .flop_per_cycle_fp32 = 32,
      .exchange_bytes_per_cycle = 4.0, .sync_cycles = 90,
      .exchange_overhead_cycles = 100, .available_memory = 0.6, .workers = 6,
    },
    .about = "Graphcore GC200 (Mk2) IPU: 1472 tiles, 624 KiB each, "
             "1.325 GHz, 250 TFLOPS FP16",
  },
  {
    .machine = {
      .name = "bow", .tiles = 1472, .grid_width = 46,
      .sram_bytes = 624 * KIB, .clock_hz = 1.85e9,
      .flop_per_cycle_fp16 = 128, .flop_per_cycle_fp32 = 32,
      .exchange_bytes_per_cycle = 4.0, .sync_cycles = 90,
      .exchange_overhead_cycles = 100, .available_memory = 0.6, .workers = 6,
    },
    .about = "Graphcore Bow IPU: 1472 tiles, 624 KiB each, 1.85 GHz, "
             "350 TFLOPS FP16",
  },
  {
    .machine = {
      .name = "mk1", .tiles = 1216, .grid_width = 38,
      .sram_bytes = 256 * KIB, .clock_hz = 1.6e9,
      .flop_per_cycle_fp16 = 64, .flop_per_cycle_fp32 = 16,
      .exchange_bytes_per_cycle = 4.0, .sync_cycles = 90,
      .exchange_overhead_cycles = 100, .available_memory = 0.6, .workers = 6,
    },
    .about = "Graphcore GC2 (Mk1) IPU: 1216 tiles, 256 KiB each, 1.6 GHz, "
             "124.5 TFLOPS FP16",
  },
  {
    .machine = {
      .name = "teach16", .tiles = 16, .grid_width = 4,
      .sram_bytes = 64 * KIB, .clock_hz = 1.85e9,
      .flop_per_cycle_fp16 = 128, .flop_per_cycle_fp32 = 32,
      .exchange_bytes_per_cycle = 4.0, .sync_cycles = 90,
      .exchange_overhead_cycles = 100, .available_memory = 0.6, .workers = 6,
    },
    .about = "Teaching machine: 16 tiles in a 4 × 4 grid, 64 KiB each, "
             "Bow's per-tile rates, small enough to see every block",
  },
};

static const char *const machine_keys[] = {
  "name", "tiles", "grid-width", "sram-bytes", "clock-hz",
  "flop-per-cycle-fp16", "flop-per-cycle-fp32", "exchange-bytes-per-cycle",
  "sync-cycles", "exchange-overhead-cycles", "available-memory", "workers",
  NULL
};

const char *const *
spx_ipu_machine_presets (void)
{
  /* the names in table order, then NULL; filled once, on first use */
  static const char *names[G_N_ELEMENTS (presets) + 1];
  static gsize filled = 0;
  if (g_once_init_enter (&filled))
    {
      for (guint i = 0; i < G_N_ELEMENTS (presets); i++)
        names[i] = presets[i].machine.name;
      names[G_N_ELEMENTS (presets)] = NULL;
      g_once_init_leave (&filled, 1);
    }
  return names;
}

guint
spx_ipu_machine_n_presets (void)
{
  return G_N_ELEMENTS (presets);
}

static const Preset *
preset_of (const char *name)
{
  if (name == NULL)
    return NULL;
  for (guint i = 0; i < G_N_ELEMENTS (presets); i++)
    if (g_str_equal (presets[i].machine.name, name))
      return &presets[i];
  return NULL;
}

const char *
spx_ipu_machine_preset_about (const char *name)
{
  const Preset *p = preset_of (name);
  return p != NULL ? p->about : NULL;
}

gboolean
spx_ipu_machine_equal (const SpxIpuMachine *a, const SpxIpuMachine *b)
{
  return g_strcmp0 (a->name, b->name) == 0 && a->tiles == b->tiles &&
         a->grid_width == b->grid_width && a->sram_bytes == b->sram_bytes &&
         a->clock_hz == b->clock_hz &&
         a->flop_per_cycle_fp16 == b->flop_per_cycle_fp16 &&
         a->flop_per_cycle_fp32 == b->flop_per_cycle_fp32 &&
         a->exchange_bytes_per_cycle == b->exchange_bytes_per_cycle &&
         a->sync_cycles == b->sync_cycles &&
         a->exchange_overhead_cycles == b->exchange_overhead_cycles &&
         a->available_memory == b->available_memory &&
         a->workers == b->workers;
}

SpxIpuMachine *
spx_ipu_machine_copy (const SpxIpuMachine *machine)
{
  SpxIpuMachine *copy = g_memdup2 (machine, sizeof *machine);
  copy->name = g_strdup (machine->name);
  return copy;
}

void
spx_ipu_machine_free (SpxIpuMachine *machine)
{
  if (machine == NULL)
    return;
  g_free (machine->name);
  g_free (machine);
}

SpxIpuMachine *
spx_ipu_machine_preset (const char *name)
{
  const Preset *p = preset_of (name);
  return p != NULL ? spx_ipu_machine_copy (&p->machine) : NULL;
}

/* ---- validation ------------------------------------------------------- */

/* The limits a key file may reach; validate and the loader share them. */
typedef struct {
  const char *key;
  double      min, max;
} Limit;

static const Limit limits[] = {
  { "tiles", 1, MAX_TILES },
  { "grid-width", 1, MAX_TILES },
  { "sram-bytes", 1024, 1024.0 * 1024 * 1024 },
  { "clock-hz", 1e3, 1e12 },
  { "flop-per-cycle-fp16", 2, 1e6 },
  { "flop-per-cycle-fp32", 2, 1e6 },
  { "exchange-bytes-per-cycle", 0.001, 1e6 },
  { "sync-cycles", 0, 1e9 },
  { "exchange-overhead-cycles", 0, 1e9 },
  { "available-memory", 0.01, 1 },
  { "workers", 1, MAX_WORKERS },
};

static const Limit *
limit_of (const char *key)
{
  for (guint i = 0; i < G_N_ELEMENTS (limits); i++)
    if (g_str_equal (limits[i].key, key))
      return &limits[i];
  g_assert_not_reached ();
}

static gboolean
check (const char *key, double value, GError **error)
{
  const Limit *l = limit_of (key);
  if (isfinite (value) && value >= l->min && value <= l->max)
    return TRUE;
  return spx_invalid (error, SPX_IPU_ERROR, SPX_IPU_ERROR_INVALID,
                      "machine %s: %g: expected %g to %g", key, value,
                      l->min, l->max);
}

/* Names go into titles, lists and file names: short and printable. */
static gboolean
name_ok (const char *name)
{
  if (!g_utf8_validate (name, -1, NULL) ||
      g_utf8_strlen (name, -1) > MAX_NAME_CHARS)
    return FALSE;
  for (const char *p = name; *p; p = g_utf8_next_char (p))
    if (!g_unichar_isprint (g_utf8_get_char (p)))
      return FALSE;
  return TRUE;
}

gboolean
spx_ipu_machine_validate (const SpxIpuMachine *m, GError **error)
{
  if (m->name == NULL || !name_ok (m->name))
    return spx_invalid (error, SPX_IPU_ERROR, SPX_IPU_ERROR_INVALID,
                        "machine name: expected up to %u printable "
                        "characters", MAX_NAME_CHARS);
  if (!check ("tiles", m->tiles, error) ||
      !check ("grid-width", m->grid_width, error) ||
      !check ("sram-bytes", (double) m->sram_bytes, error) ||
      !check ("clock-hz", m->clock_hz, error) ||
      !check ("flop-per-cycle-fp16", m->flop_per_cycle_fp16, error) ||
      !check ("flop-per-cycle-fp32", m->flop_per_cycle_fp32, error) ||
      !check ("exchange-bytes-per-cycle", m->exchange_bytes_per_cycle, error) ||
      !check ("sync-cycles", m->sync_cycles, error) ||
      !check ("exchange-overhead-cycles", m->exchange_overhead_cycles, error) ||
      !check ("available-memory", m->available_memory, error) ||
      !check ("workers", m->workers, error))
    return FALSE;
  if (m->grid_width > m->tiles)
    return spx_invalid (error, SPX_IPU_ERROR, SPX_IPU_ERROR_INVALID,
                        "machine grid-width %u: more than its %u tiles",
                        m->grid_width, m->tiles);
  return TRUE;
}

/* ---- key files -------------------------------------------------------- */

typedef struct {
  const char *path;
  GKeyFile   *kf;
  GError    **error;
} Reader;

static gboolean
read_fail (Reader *r, const char *key, const char *what)
{
  return spx_invalid (r->error, SPX_IPU_ERROR, SPX_IPU_ERROR_INVALID,
                      "%s: [%s] %s: %s", r->path, GROUP_MACHINE, key, what);
}

/* A whole number within the key's limits; missing keys keep *value. */
static gboolean
read_uint (Reader *r, const char *key, guint64 *value)
{
  g_autofree char *text = g_key_file_get_value (r->kf, GROUP_MACHINE, key,
                                                NULL);
  if (text == NULL)
    return TRUE;
  const Limit *l = limit_of (key);
  if (!g_ascii_string_to_unsigned (g_strstrip (text), 10, (guint64) l->min,
                                   (guint64) l->max, value, NULL))
    {
      g_autofree char *got = spx_excerpt (text);
      g_autofree char *what = g_strdup_printf (
        "expected a whole number from %.0f to %.0f, got %s", l->min, l->max,
        got);
      return read_fail (r, key, what);
    }
  return TRUE;
}

static gboolean
read_uint32 (Reader *r, const char *key, guint *value)
{
  guint64 v = *value;
  if (!read_uint (r, key, &v))
    return FALSE;
  *value = (guint) v;
  return TRUE;
}

static gboolean
read_double (Reader *r, const char *key, double *value)
{
  g_autofree char *text = g_key_file_get_value (r->kf, GROUP_MACHINE, key,
                                                NULL);
  if (text == NULL)
    return TRUE;
  const Limit *l = limit_of (key);
  char *end = NULL;
  double v = g_ascii_strtod (g_strstrip (text), &end);
  if (end == text || *end != '\0' || !isfinite (v) || v < l->min ||
      v > l->max)
    {
      g_autofree char *got = spx_excerpt (text);
      g_autofree char *what = g_strdup_printf (
        "expected a number from %g to %g, got %s", l->min, l->max, got);
      return read_fail (r, key, what);
    }
  *value = v;
  return TRUE;
}

static gboolean
check_structure (Reader *r)
{
  g_auto (GStrv) groups = g_key_file_get_groups (r->kf, NULL);
  for (guint i = 0; groups[i] != NULL; i++)
    if (!g_str_equal (groups[i], GROUP_MACHINE))
      {
        g_autofree char *group = spx_short (groups[i]);
        return spx_invalid (r->error, SPX_IPU_ERROR, SPX_IPU_ERROR_INVALID,
                            "%s: [%s]: unknown group (expected [%s])",
                            r->path, group, GROUP_MACHINE);
      }
  if (!g_key_file_has_group (r->kf, GROUP_MACHINE))
    return spx_invalid (r->error, SPX_IPU_ERROR, SPX_IPU_ERROR_INVALID,
                        "%s: no [%s] group", r->path, GROUP_MACHINE);
  g_auto (GStrv) keys = g_key_file_get_keys (r->kf, GROUP_MACHINE, NULL, NULL);
  for (guint i = 0; keys != NULL && keys[i] != NULL; i++)
    if (!g_strv_contains (machine_keys, keys[i]))
      {
        g_autofree char *key = spx_short (keys[i]);
        return read_fail (r, key, "unknown key");
      }
  static const char *const required[] = {
    "tiles", "sram-bytes", "clock-hz", "flop-per-cycle-fp16",
    "flop-per-cycle-fp32",
  };
  for (guint i = 0; i < G_N_ELEMENTS (required); i++)
    if (!g_key_file_has_key (r->kf, GROUP_MACHINE, required[i], NULL))
      return read_fail (r, required[i], "missing (required)");
  return TRUE;
}

/* The narrowest nearly square grid: the smallest divisor of tiles at or
 * above its square root, unless that makes a long thin strip. */
static guint
default_grid_width (guint tiles)
{
  guint root = (guint) ceil (sqrt (tiles));
  for (guint w = root; w <= 2 * root && w <= tiles; w++)
    if (tiles % w == 0)
      return w;
  return MIN (root, tiles);
}

/* A file's name, readable and short enough to be a machine's. */
static char *
name_from_path (const char *path)
{
  g_autofree char *base = g_filename_display_basename (path);
  GString *name = g_string_new (NULL);
  guint n = 0;
  for (const char *p = base; *p && n < MAX_NAME_CHARS;
       p = g_utf8_next_char (p), n++)
    {
      gunichar c = g_utf8_get_char (p);
      g_string_append_unichar (name, g_unichar_isprint (c) ? c : '?');
    }
  return g_string_free (name, FALSE);
}

static gboolean
read_machine (Reader *r, SpxIpuMachine *m)
{
  guint64 sram = m->sram_bytes;
  guint grid = 0;
  if (!read_uint32 (r, "tiles", &m->tiles) ||
      !read_uint32 (r, "grid-width", &grid) ||
      !read_uint (r, "sram-bytes", &sram) ||
      !read_double (r, "clock-hz", &m->clock_hz) ||
      !read_uint32 (r, "flop-per-cycle-fp16", &m->flop_per_cycle_fp16) ||
      !read_uint32 (r, "flop-per-cycle-fp32", &m->flop_per_cycle_fp32) ||
      !read_double (r, "exchange-bytes-per-cycle",
                    &m->exchange_bytes_per_cycle) ||
      !read_uint32 (r, "sync-cycles", &m->sync_cycles) ||
      !read_uint32 (r, "exchange-overhead-cycles",
                    &m->exchange_overhead_cycles) ||
      !read_double (r, "available-memory", &m->available_memory) ||
      !read_uint32 (r, "workers", &m->workers))
    return FALSE;
  m->sram_bytes = sram;
  m->grid_width = grid != 0 ? grid : default_grid_width (m->tiles);
  if (m->grid_width > m->tiles)
    return read_fail (r, "grid-width", "more than the machine's tiles");
  g_autofree char *name = g_key_file_get_string (r->kf, GROUP_MACHINE, "name",
                                                 NULL);
  if (name != NULL && !name_ok (name))
    return read_fail (r, "name", "expected up to 64 printable characters");
  g_free (m->name);
  m->name = name != NULL && *name != '\0' ? g_steal_pointer (&name)
                                          : name_from_path (r->path);
  return TRUE;
}

SpxIpuMachine *
spx_ipu_machine_load_data (const char *name, const char *data, gsize len,
                           GError **error)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autofree char *where = NULL;
  if (!spx_key_file_parse (kf, name, data, len, &where, error))
    {
      if (where != NULL)
        spx_invalid (error, SPX_IPU_ERROR, SPX_IPU_ERROR_INVALID,
                     "%s: not a machine key file (expected a [%s] "
                     "group of key = value lines)", where, GROUP_MACHINE);
      return NULL;
    }
  Reader r = { name, kf, error };
  if (!check_structure (&r))
    return NULL;
  g_autoptr (SpxIpuMachine) m = spx_ipu_machine_preset ("bow");
  if (!read_machine (&r, m))
    return NULL;
  if (!spx_ipu_machine_validate (m, error))
    {
      g_prefix_error (error, "%s: ", name);
      return NULL;
    }
  return g_steal_pointer (&m);
}

/* Keys left out take Bow's figures (the reference's exchange, sync and
 * memory proportion hold for every generation). */
SpxIpuMachine *
spx_ipu_machine_load (const char *path, GError **error)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  GError *err = NULL;
  if (!spx_read_regular (path, "a machine file", MAX_FILE_BYTES, &data, &len,
                         &err))
    {
      spx_invalid (error, SPX_IPU_ERROR, SPX_IPU_ERROR_INVALID,
                   "%s", err->message);
      g_error_free (err);
      return NULL;
    }
  return spx_ipu_machine_load_data (path, data, len, error);
}

SpxIpuMachine *
spx_ipu_machine_resolve (const char *name_or_path, GError **error)
{
  SpxIpuMachine *m = spx_ipu_machine_preset (name_or_path);
  if (m != NULL)
    return m;
  /* a path names a file even when it is missing: that file's error */
  if (name_or_path == NULL ||
      (!g_file_test (name_or_path, G_FILE_TEST_EXISTS) &&
       strpbrk (name_or_path, "/.") == NULL))
    {
      g_autofree char *names = g_strjoinv (", ",
                                            (char **) spx_ipu_machine_presets ());
      g_autofree char *given = spx_excerpt (name_or_path ? name_or_path : "");
      g_set_error (error, SPX_IPU_ERROR, SPX_IPU_ERROR_UNKNOWN,
                   "machine %s: neither a preset (%s) nor a file", given,
                   names);
      return NULL;
    }
  return spx_ipu_machine_load (name_or_path, error);
}

/* ---- per-tile figures ------------------------------------------------- */

guint
spx_ipu_macs_per_cycle (const SpxIpuMachine *machine, SpxDtype dtype)
{
  guint flop = dtype == SPX_DTYPE_FP32 ? machine->flop_per_cycle_fp32
                                       : machine->flop_per_cycle_fp16;
  return MAX (flop / 2, 1u);
}

guint
spx_ipu_dtype_bytes (SpxDtype dtype)
{
  return dtype == SPX_DTYPE_FP32 ? 4 : 2;
}

guint64
spx_ipu_tile_budget (const SpxIpuMachine *machine)
{
  return (guint64) (machine->available_memory * (double) machine->sram_bytes);
}

gboolean
spx_ipu_tile_fits (const SpxIpuMachine *machine, double bytes, double output)
{
  return bytes <= (double) machine->sram_bytes &&
         bytes - output <= (double) spx_ipu_tile_budget (machine);
}

char *
spx_ipu_machine_to_data (const SpxIpuMachine *m, gsize *len)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  const char *g = GROUP_MACHINE;
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_key_file_set_string (kf, g, "name", m->name);
  g_key_file_set_uint64 (kf, g, "tiles", m->tiles);
  g_key_file_set_uint64 (kf, g, "grid-width", m->grid_width);
  g_key_file_set_uint64 (kf, g, "sram-bytes", m->sram_bytes);
  g_key_file_set_value (kf, g, "clock-hz",
                        g_ascii_dtostr (buf, sizeof buf, m->clock_hz));
  g_key_file_set_uint64 (kf, g, "flop-per-cycle-fp16", m->flop_per_cycle_fp16);
  g_key_file_set_uint64 (kf, g, "flop-per-cycle-fp32", m->flop_per_cycle_fp32);
  g_key_file_set_value (kf, g, "exchange-bytes-per-cycle",
                        g_ascii_dtostr (buf, sizeof buf,
                                        m->exchange_bytes_per_cycle));
  g_key_file_set_uint64 (kf, g, "sync-cycles", m->sync_cycles);
  g_key_file_set_uint64 (kf, g, "exchange-overhead-cycles",
                         m->exchange_overhead_cycles);
  g_key_file_set_value (kf, g, "available-memory",
                        g_ascii_dtostr (buf, sizeof buf, m->available_memory));
  g_key_file_set_uint64 (kf, g, "workers", m->workers);
  return g_key_file_to_data (kf, len, NULL);
}

gboolean
spx_ipu_machine_save (const SpxIpuMachine *machine, const char *path,
                      SpxSaveFlags flags, GError **error)
{
  gsize len;
  g_autofree char *data = spx_ipu_machine_to_data (machine, &len);
  return spx_save_file (path, data, len, flags, error);
}
