/* spx-cli-mask.c: options describing a generated mask */
#include "spx-cli.h"
#include "spx-cli-mask.h"
#include "spx-mask-file.h"

void
spx_cli_gen_args_add (SpxCliGenArgs *a, GOptionContext *context)
{
  GOptionEntry entries[] = {
    { "pattern", 'p', 0, G_OPTION_ARG_STRING, &a->pattern,
      "uniform, tilewise, nm, banded, skewed or magnitude (default uniform)", "P" },
    { "density", 'd', 0, G_OPTION_ARG_STRING, &a->density,
      "Fraction of non-zero blocks, like 0.1 or 1/16 (default 0.1)", "D" },
    { "seed", 's', 0, G_OPTION_ARG_STRING, &a->seed, "Random seed (default 1)", "S" },
    { "tile-width", 0, 0, G_OPTION_ARG_STRING, &a->tile_width,
      "tilewise: tile width G in elements (default 128)", "G" },
    { "nm", 0, 0, G_OPTION_ARG_STRING, &a->nm, "nm: keep N of every M (default 2:4)", "N:M" },
    { "band", 0, 0, G_OPTION_ARG_STRING, &a->band,
      "banded: band width in blocks (default from the density)", "W" },
    { "exponent", 0, 0, G_OPTION_ARG_STRING, &a->exponent,
      "skewed: power-law exponent of per-row counts (default 1)", "E" },
    G_OPTION_ENTRY_NULL
  };
  g_option_context_add_main_entries (context, entries, NULL);
}

void
spx_cli_gen_args_clear (SpxCliGenArgs *a)
{
  char **fields[] = { &a->pattern, &a->density, &a->seed, &a->tile_width,
                      &a->nm, &a->band, &a->exponent };
  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    g_clear_pointer (fields[i], g_free);
}

static gboolean
parse_nm (const char *command, const char *text, SpxGenOptions *gen)
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
  spx_cli_usage_error (command, "--nm: expected N:M with 0 ≤ N ≤ M ≤ 1024 "
                       "(like 2:4), got '%s'", text);
  return FALSE;
}

gboolean
spx_cli_gen_args_parse (const SpxCliGenArgs *a, const char *command,
                        SpxGenOptions *gen)
{
  guint64 v;
  if (a->pattern && !spx_pattern_from_string (a->pattern, &gen->pattern))
    {
      spx_cli_usage_error (command, "--pattern: expected uniform, tilewise, "
                           "nm, banded, skewed or magnitude, got '%s'",
                           a->pattern);
      return FALSE;
    }
  if ((a->seed && !spx_cli_uint (command, "--seed", a->seed, 0, G_MAXUINT64,
                                 &gen->seed)) ||
      (a->density && !spx_cli_double (command, "--density", a->density, 0, 1,
                                      &gen->density)) ||
      (a->nm && !parse_nm (command, a->nm, gen)) ||
      (a->band && !spx_cli_uint (command, "--band", a->band, 1,
                                 SPX_MASK_MAX_DIM, &gen->band)) ||
      (a->exponent && !spx_cli_double (command, "--exponent", a->exponent, 0,
                                       100, &gen->exponent)))
    return FALSE;
  if (a->tile_width)
    {
      if (!spx_cli_uint (command, "--tile-width", a->tile_width, 1,
                         SPX_MASK_MAX_DIM, &v))
        return FALSE;
      gen->tile_width = (guint) v;
    }
  return TRUE;
}

void
spx_cli_mask_args_add (SpxCliMaskArgs *a, GOptionContext *context)
{
  GOptionEntry entries[] = {
    { "mask", 0, 0, G_OPTION_ARG_FILENAME, &a->mask,
      "A mask file (.mtx, .smtx, .npy, .png), blocked to B", "FILE" },
    { "m", 'm', 0, G_OPTION_ARG_STRING, &a->m, "Rows of W (generated mask)", "M" },
    { "k", 'k', 0, G_OPTION_ARG_STRING, &a->k, "Columns of W (generated mask)", "K" },
    G_OPTION_ENTRY_NULL
  };
  g_option_context_add_main_entries (context, entries, NULL);
  spx_cli_gen_args_add (&a->gen, context);
}

void
spx_cli_mask_args_clear (SpxCliMaskArgs *a)
{
  spx_cli_gen_args_clear (&a->gen);
  g_clear_pointer (&a->mask, g_free);
  g_clear_pointer (&a->m, g_free);
  g_clear_pointer (&a->k, g_free);
}

static SpxMask *
load_blocked (const char *path, const char *command, guint block, int *status)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxMask) elements = spx_mask_file_load (path, NULL, &error);
  SpxMask *mask = elements ? spx_mask_to_blocks (elements, block, &error)
                           : NULL;
  if (mask == NULL)
    *status = spx_cli_input_error (command, error);
  return mask;
}

SpxMask *
spx_cli_mask_args_build (const SpxCliMaskArgs *a, const char *command,
                         guint block, int *status)
{
  g_autoptr (GError) error = NULL;
  *status = SPX_EXIT_USAGE;
  if (a->mask != NULL)
    {
      if (a->m || a->k || a->gen.pattern || a->gen.density)
        return spx_cli_usage_error (command, "--mask: give a mask file or "
                                    "--m, --k and a pattern, not both"), NULL;
      return load_blocked (a->mask, command, block, status);
    }
  SpxGenOptions gen;
  guint64 m, k;
  spx_gen_options_init (&gen);
  if (!a->m || !a->k)
    return spx_cli_usage_error (command, "%s is required (or --mask FILE)",
                                a->m ? "--k" : "--m"), NULL;
  if (!spx_cli_uint (command, "--m", a->m, 1, SPX_MASK_MAX_DIM, &m) ||
      !spx_cli_uint (command, "--k", a->k, 1, SPX_MASK_MAX_DIM, &k) ||
      !spx_cli_gen_args_parse (&a->gen, command, &gen))
    return NULL;
  SpxMask *mask = spx_mask_generate (m, k, block, &gen, &error);
  if (mask == NULL)
    spx_cli_usage_error (command, "%s", error->message);
  return mask;
}
