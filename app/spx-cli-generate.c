/* spx-cli-generate.c: `sparse-explorer generate [--pattern P] … --out FILE` */
#include "spx-cli.h"
#include "spx-cli-study.h"
#include "spx-mask-io.h"
#include "spx-util.h"

#include <stdio.h>

#define CMD "generate"

typedef struct {
  SpxCliGenArgs gen;
  char *rows, *cols, *block, *out;
} GenerateArgs;

static void
generate_args_clear (GenerateArgs *a)
{
  spx_cli_gen_args_clear (&a->gen);
  g_free (a->rows);
  g_free (a->cols);
  g_free (a->block);
  g_free (a->out);
}

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

int
spx_cli_generate (int argc, char **argv)
{
  GenerateArgs a = { 0 };
  g_autofree char *formats = spx_format_list (SPX_FORMAT_WRITES_MASK, FALSE);
  g_autofree char *out = g_strdup_printf ("Output file: %s (required)",
                                          formats);
  SpxGenOptions defaults;
  spx_gen_options_init (&defaults);
  GOptionEntry entries[] = {
    { "rows", 'r', 0, G_OPTION_ARG_STRING, &a.rows, "Rows (elements; "
      "required)", "R" },
    { "cols", 'c', 0, G_OPTION_ARG_STRING, &a.cols, "Columns (elements; "
      "required)", "C" },
    { "block", 'b', 0, G_OPTION_ARG_STRING, &a.block, "Block size (default 1)", "B" },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &a.out, out, "FILE" },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) context = g_option_context_new (NULL);
  g_option_context_set_summary (context, "Write a generated mask; the same "
                                "options and seed give the same mask on every "
                                "machine.");
  g_option_context_add_main_entries (context, entries, NULL);
  spx_cli_gen_args_add (&a.gen, context, &defaults);
  int status = spx_cli_parse_and_run (CMD, context, argc, argv, run, &a);
  generate_args_clear (&a);
  return status;
}
