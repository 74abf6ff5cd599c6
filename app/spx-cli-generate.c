/* spx-cli-generate.c: `sparse-explorer generate [--pattern P] … --out FILE` */
#include "spx-cli.h"
#include "spx-cli-study.h"
#include "spx-mask-io.h"
#include "spx-util.h"

#include <stdio.h>

#define CMD "generate"

/* generate's options: see spx-cli-options.h */
#define GENERATE_OPTIONS(O) \
  O (rows, 'r', TEXT, "R", "Rows (elements; required)", NULL) \
  O (cols, 'c', TEXT, "C", "Columns (elements; required)", NULL) \
  O (block, 'b', TEXT, "B", "Block size (default 1)", NULL) \
  O (out, 'o', FILE, "FILE", \
     spx_cli_keep_printf ("Output file: %s (required)", formats), NULL)

typedef struct {
  SpxCliGenArgs gen;
  SPX_CLI_FIELDS (GENERATE_OPTIONS)
} GenerateArgs;

static gboolean
check_required (const GenerateArgs *a)
{
  const char *missing = !a->rows ? "--rows" : !a->cols ? "--cols"
                        : !a->out ? "--out" : NULL;
  if (missing != NULL)
    {
      spx_cli_usage_error (CMD, "%s is required", missing);
      return FALSE;
    }
  if (!spx_format_can (spx_format_from_path (a->out),
                       SPX_FORMAT_WRITES_MASK))
    {
      g_autofree char *formats = spx_format_list (SPX_FORMAT_WRITES_MASK,
                                                  FALSE);
      spx_cli_usage_error (CMD, "--out: expected a file ending in %s, got "
                           "'%s'", formats, a->out);
      return FALSE;
    }
  return TRUE;
}

static int
run (gconstpointer data)
{
  const GenerateArgs *a = data;
  SpxGenOptions gen;
  guint64 rows, cols, block = 1;
  spx_gen_options_init (&gen);
  if (!check_required (a) || !spx_cli_gen_args_parse (&a->gen, CMD, &gen) ||
      !spx_cli_uint (CMD, "--rows", a->rows, 1, SPX_MASK_MAX_DIM, &rows) ||
      !spx_cli_uint (CMD, "--cols", a->cols, 1, SPX_MASK_MAX_DIM, &cols) ||
      (a->block && !spx_cli_uint (CMD, "--block", a->block, 1,
                                  SPX_MASK_MAX_BLOCK, &block)))
    return SPX_EXIT_USAGE;
  g_autofree char *block_what = g_strdup_printf ("--block %" G_GUINT64_FORMAT,
                                                 block);
  if (!spx_cli_check_block (CMD, block_what, (guint) block, rows, cols) ||
      !spx_cli_check_keeps (CMD, a->gen.density ? "--density"
                                                : "the default density",
                            &gen, rows, cols, (guint) block))
    return SPX_EXIT_USAGE;

  g_autoptr (GError) error = NULL;
  g_autoptr (SpxMask) mask = spx_mask_generate (rows, cols, (guint) block,
                                                &gen, &error);
  /* options that only clash once combined, or that ask for more memory
   * than the budget */
  if (mask == NULL && error->domain == SPX_BUDGET_ERROR)
    return spx_cli_usage_error (CMD, "--rows %" G_GUINT64_FORMAT " --cols %"
                                G_GUINT64_FORMAT " --block %" G_GUINT64_FORMAT
                                ": %s", rows, cols, block, error->message);
  if (mask == NULL)
    return spx_cli_usage_error (CMD, "%s", error->message);
  if (!spx_mask_save (mask, a->out, SPX_SAVE_DEFAULT, &error))
    return spx_cli_input_error (CMD, error);
  guint64 nz = spx_mask_count (mask);
  spx_cli_line (stdout, "wrote %s: %" G_GUINT64_FORMAT " × %"
                G_GUINT64_FORMAT " %s mask, %" G_GUINT64_FORMAT " of %"
                G_GUINT64_FORMAT " blocks of %" G_GUINT64_FORMAT " × %"
                G_GUINT64_FORMAT " non-zero (density %.4g)", a->out, rows,
                cols, spx_pattern_to_string (gen.pattern), nz,
          spx_mask_n_blocks (mask), block, block,
          (double) nz / (double) spx_mask_n_blocks (mask));
  return SPX_EXIT_OK;
}

SpxCliOptions *
spx_cli_generate_options (void)
{
  SpxCliOptions *o = spx_cli_options_new (NULL, sizeof (GenerateArgs));
  GenerateArgs *args = spx_cli_options_args (o);
  GOptionContext *context = spx_cli_options_context (o);
  g_autofree char *formats = spx_format_list (SPX_FORMAT_WRITES_MASK, FALSE);
  SpxGenOptions defaults;
  spx_gen_options_init (&defaults);
  g_option_context_set_summary (context, "Write a generated mask; the same "
                                "options and seed give the same mask on every "
                                "machine.");
  SPX_CLI_ADD (o, GENERATE_OPTIONS, NULL);
  spx_cli_gen_args_add (&args->gen, o, &defaults);
  return o;
}

int
spx_cli_generate (int argc, char **argv)
{
  g_autoptr (SpxCliOptions) options = spx_cli_generate_options ();
  return spx_cli_parse_and_run (CMD, options, argc, argv, run);
}
