/* spx-cli-generate.c: `sparse-explorer generate --pattern P … --out FILE` */
#include "spx-cli.h"
#include "spx-mask-file.h"
#include "spx-mask-gen.h"

#include <stdio.h>

#define CMD "generate"

typedef struct {
  char *pattern, *rows, *cols, *block, *density, *seed;
  char *tile_width, *nm, *band, *exponent, *out;
} GenerateArgs;

static void
generate_args_clear (GenerateArgs *a)
{
  char **fields[] = { &a->pattern, &a->rows, &a->cols, &a->block, &a->density,
                      &a->seed, &a->tile_width, &a->nm, &a->band, &a->exponent,
                      &a->out };
  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    g_clear_pointer (fields[i], g_free);
}

static gboolean
parse_nm (const char *text, SpxGenOptions *gen)
{
  guint64 n, m;
  g_auto (GStrv) parts = g_strsplit (text, ":", -1);
  if (g_strv_length (parts) == 2 &&
      g_ascii_string_to_unsigned (parts[0], 10, 0, 1024, &n, NULL) &&
      g_ascii_string_to_unsigned (parts[1], 10, 1, 1024, &m, NULL) && n <= m)
    {
      gen->nm_n = (guint) n;
      gen->nm_m = (guint) m;
      return TRUE;
    }
  spx_cli_usage_error (CMD, "--nm: expected N:M with 0 ≤ N ≤ M ≤ 1024 (like "
                       "2:4), got '%s'", text);
  return FALSE;
}

/* Optional values keep the defaults of spx_gen_options_init. */
static gboolean
parse_pattern_options (const GenerateArgs *a, SpxGenOptions *gen)
{
  guint64 v;
  if (a->seed && !spx_cli_uint (CMD, "--seed", a->seed, 0, G_MAXUINT64,
                                &gen->seed))
    return FALSE;
  if (a->density && !spx_cli_double (CMD, "--density", a->density, 0, 1,
                                     &gen->density))
    return FALSE;
  if (a->tile_width)
    {
      if (!spx_cli_uint (CMD, "--tile-width", a->tile_width, 1,
                         SPX_MASK_MAX_DIM, &v))
        return FALSE;
      gen->tile_width = (guint) v;
    }
  if (a->nm && !parse_nm (a->nm, gen))
    return FALSE;
  if (a->band && !spx_cli_uint (CMD, "--band", a->band, 1, SPX_MASK_MAX_DIM,
                                &gen->band))
    return FALSE;
  return !a->exponent || spx_cli_double (CMD, "--exponent", a->exponent, 0, 100,
                                         &gen->exponent);
}

static gboolean
check_required (const GenerateArgs *a)
{
  const char *missing = !a->pattern ? "--pattern" : !a->rows ? "--rows"
                        : !a->cols ? "--cols" : !a->out ? "--out" : NULL;
  if (missing != NULL)
    {
      spx_cli_usage_error (CMD, "%s is required", missing);
      return FALSE;
    }
  if (spx_format_from_path (a->out) == SPX_FORMAT_UNKNOWN)
    {
      spx_cli_usage_error (CMD, "--out: expected a file ending in .mtx, .smtx, "
                           ".npy or .png, got '%s'", a->out);
      return FALSE;
    }
  return TRUE;
}

static int
run (const GenerateArgs *a)
{
  SpxGenOptions gen;
  guint64 rows, cols, block = 1;
  spx_gen_options_init (&gen);
  if (!check_required (a))
    return SPX_EXIT_USAGE;
  if (!spx_pattern_from_string (a->pattern, &gen.pattern))
    return spx_cli_usage_error (CMD, "--pattern: expected uniform, tilewise, "
                                "nm, banded, skewed or magnitude, got '%s'",
                                a->pattern);
  if (!spx_cli_uint (CMD, "--rows", a->rows, 1, SPX_MASK_MAX_DIM, &rows) ||
      !spx_cli_uint (CMD, "--cols", a->cols, 1, SPX_MASK_MAX_DIM, &cols) ||
      (a->block && !spx_cli_uint (CMD, "--block", a->block, 1,
                                  SPX_MASK_MAX_BLOCK, &block)) ||
      !parse_pattern_options (a, &gen))
    return SPX_EXIT_USAGE;

  g_autoptr (GError) error = NULL;
  g_autoptr (SpxMask) mask = spx_mask_generate (rows, cols, (guint) block,
                                                &gen, &error);
  if (mask == NULL) /* options that only clash once combined */
    return spx_cli_usage_error (CMD, "%s", error->message);
  if (!spx_mask_file_save (mask, a->out, &error))
    return spx_cli_input_error (CMD, error);
  guint64 nz = spx_mask_count (mask);
  printf ("wrote %s: %" G_GUINT64_FORMAT " × %" G_GUINT64_FORMAT " %s mask, %"
          G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " blocks of %" G_GUINT64_FORMAT
          " × %" G_GUINT64_FORMAT " non-zero (density %.4g)\n", a->out, rows,
          cols, spx_pattern_to_string (gen.pattern), nz,
          spx_mask_n_blocks (mask), block, block,
          (double) nz / (double) spx_mask_n_blocks (mask));
  return SPX_EXIT_OK;
}

int
spx_cli_generate (int argc, char **argv)
{
  GenerateArgs a = { 0 };
  GOptionEntry entries[] = {
    { "pattern", 'p', 0, G_OPTION_ARG_STRING, &a.pattern,
      "uniform, tilewise, nm, banded, skewed or magnitude", "P" },
    { "rows", 'r', 0, G_OPTION_ARG_STRING, &a.rows, "Rows (elements)", "R" },
    { "cols", 'c', 0, G_OPTION_ARG_STRING, &a.cols, "Columns (elements)", "C" },
    { "block", 'b', 0, G_OPTION_ARG_STRING, &a.block, "Block size (default 1)", "B" },
    { "density", 'd', 0, G_OPTION_ARG_STRING, &a.density,
      "Fraction of non-zero blocks, like 0.1 or 1/16 (default 0.1)", "D" },
    { "seed", 's', 0, G_OPTION_ARG_STRING, &a.seed, "Random seed (default 1)", "S" },
    { "tile-width", 0, 0, G_OPTION_ARG_STRING, &a.tile_width,
      "tilewise: tile width G in elements (default 128)", "G" },
    { "nm", 0, 0, G_OPTION_ARG_STRING, &a.nm, "nm: keep N of every M (default 2:4)", "N:M" },
    { "band", 0, 0, G_OPTION_ARG_STRING, &a.band,
      "banded: band width in blocks (default from the density)", "W" },
    { "exponent", 0, 0, G_OPTION_ARG_STRING, &a.exponent,
      "skewed: power-law exponent of per-row counts (default 1)", "E" },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &a.out,
      "Output file: .mtx, .smtx, .npy or .png", "FILE" },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) context = g_option_context_new (NULL);
  g_option_context_set_summary (context, "Write a generated mask; the same "
                                "options and seed give the same mask on every "
                                "machine.");
  g_option_context_add_main_entries (context, entries, NULL);
  int status = SPX_EXIT_OK;
  if (spx_cli_parse_options (CMD, context, &argc, &argv, &status))
    status = argc > 1 ? spx_cli_usage_error (CMD, "unexpected argument '%s'",
                                             argv[1])
                      : run (&a);
  generate_args_clear (&a);
  return status;
}
