/* spx-cli-info.c: `sparse-explorer info FILE [--block B] [--json]` */
#include "spx-cli.h"
#include "spx-json.h"
#include "spx-mask-io.h"
#include "spx-util.h"

#include <stdio.h>

#define CMD "info"

typedef struct {
  const char  *file;   /* as shown: valid UTF-8 whatever the name's bytes */
  const SpxFormat *format;
  const SpxMask *elements, *blocks;
  guint64      nnz;    /* of elements */
  SpxMaskStats stats;
  double       load_ms;
} InfoResult;

static void
json_summary (SpxJson *json, const char *key, const SpxSummary *s)
{
  spx_json_begin_object (json, key);
  spx_json_double (json, "min", s->min);
  spx_json_double (json, "mean", s->mean);
  spx_json_double (json, "max", s->max);
  spx_json_double (json, "stddev", s->stddev);
  spx_json_end_object (json);
}

static void
print_json (const InfoResult *r)
{
  const SpxMask *e = r->elements;
  guint64 nnz = r->nnz;
  SpxJson json;
  spx_json_init (&json);
  spx_json_begin_object (&json, NULL);
  spx_json_string (&json, "file", r->file);
  spx_json_string (&json, "format", spx_format_to_string (r->format));
  spx_json_uint (&json, "rows", e->rows);
  spx_json_uint (&json, "cols", e->cols);
  spx_json_uint (&json, "nnz", nnz);
  spx_json_double (&json, "density", (double) nnz / ((double) e->rows * e->cols));
  spx_json_uint (&json, "block", r->blocks->block);
  spx_json_uint (&json, "nonzero_blocks", r->stats.nonzero_blocks);
  spx_json_double (&json, "block_density", r->stats.block_density);
  json_summary (&json, "blocks_per_row", &r->stats.blocks_per_row);
  json_summary (&json, "blocks_per_col", &r->stats.blocks_per_col);
  spx_json_double (&json, "load_ms", r->load_ms);
  spx_json_end_object (&json);
  g_autofree char *text = spx_json_finish (&json);
  spx_cli_line (stdout, "%s", text);
}

static void
print_summary (const char *label, const SpxSummary *s)
{
  spx_cli_line (stdout, "%-16s min %.0f  mean %.2f  max %.0f  stddev %.2f",
                label, s->min, s->mean, s->max, s->stddev);
}

static void
print_table (const InfoResult *r)
{
  const SpxMask *e = r->elements;
  guint64 nnz = r->nnz;
  guint b = r->blocks->block;
  spx_cli_line (stdout, "%-16s %s", "file", r->file);
  spx_cli_line (stdout, "%-16s %s", "format", spx_format_to_string (r->format));
  spx_cli_line (stdout, "%-16s %" G_GUINT64_FORMAT " × %" G_GUINT64_FORMAT,
                "shape", e->rows, e->cols);
  spx_cli_line (stdout, "%-16s %" G_GUINT64_FORMAT " (density %.4g, sparsity "
                "%.2f%%)", "non-zeros", nnz,
                (double) nnz / ((double) e->rows * e->cols),
                100.0 * (1.0 - (double) nnz / ((double) e->rows * e->cols)));
  spx_cli_line (stdout, "%-16s %u × %u (%" G_GUINT64_FORMAT " × %"
                G_GUINT64_FORMAT " blocks)", "block", b, b, r->blocks->brows,
                r->blocks->bcols);
  spx_cli_line (stdout, "%-16s %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                " (block density %.4g)", "non-zero blocks",
                r->stats.nonzero_blocks, r->stats.total_blocks,
                r->stats.block_density);
  print_summary ("per block-row", &r->stats.blocks_per_row);
  print_summary ("per block-col", &r->stats.blocks_per_col);
  spx_cli_line (stdout, "%-16s %.1f ms", "load time", r->load_ms);
}

/* info's options: see spx-cli-options.h */
#define INFO_OPTIONS(O) \
  O (block, 'b', TEXT, "B", \
     "Block size for the block statistics (default 1)", NULL) \
  O (json, 0, FLAG, NULL, "Print one JSON object", NULL)

typedef struct {
  SPX_CLI_FIELDS (INFO_OPTIONS)
} InfoArgs;

SpxCliOptions *
spx_cli_info_options (void)
{
  SpxCliOptions *o = spx_cli_options_new ("FILE", sizeof (InfoArgs));
  InfoArgs *args = spx_cli_options_args (o);
  g_autofree char *formats = spx_format_list (SPX_FORMAT_READS_MASK, TRUE);
  g_autofree char *summary = g_strdup_printf ("Shape, non-zeros and block "
                                              "statistics of a mask file: "
                                              "%s.", formats);
  g_option_context_set_summary (spx_cli_options_context (o), summary);
  SPX_CLI_ADD (o, INFO_OPTIONS, NULL);
  return o;
}

int
spx_cli_info (int argc, char **argv)
{
  g_autoptr (SpxCliOptions) options = spx_cli_info_options ();
  const InfoArgs *a = spx_cli_options_args (options);
  int status = SPX_EXIT_OK;
  if (!spx_cli_parse_options (CMD, options, &argc,
                              &argv, &status))
    return status;
  if (argc < 2)
    return spx_cli_usage_error (CMD, "expected a FILE");
  if (argc > 2)
    return spx_cli_usage_error (CMD, "expected one FILE, got '%s' as well",
                                argv[2]);
  guint64 block = 1;
  if (a->block != NULL &&
      !spx_cli_uint (CMD, "--block", a->block, 1, SPX_MASK_MAX_BLOCK, &block))
    return SPX_EXIT_USAGE;

  g_autofree char *shown = g_filename_display_name (argv[1]);
  InfoResult r = { .file = shown };
  g_autoptr (GError) error = NULL;
  double t0 = spx_now_ms ();
  g_autoptr (SpxMask) elements = spx_mask_load (argv[1], &r.format, &error);
  r.load_ms = spx_now_ms () - t0;
  g_autofree char *warning = spx_mask_io_take_warning ();
  if (elements == NULL)
    return spx_cli_input_error (CMD, error);
  spx_cli_warning (CMD, warning);
  /* at the file's own block the mask serves as is: no second copy */
  g_autoptr (SpxMask) blocks = block == elements->block ? NULL
    : spx_mask_to_blocks (elements, (guint) block, &error);
  if (error != NULL)
    return spx_cli_input_error (CMD, error);
  r.elements = elements;
  r.blocks = blocks != NULL ? blocks : elements;
  spx_mask_stats (r.blocks, &r.stats);
  /* counting takes a pass over every word: once is enough */
  r.nnz = blocks != NULL ? spx_mask_count (elements)
                         : r.stats.nonzero_blocks;
  if (a->json)
    print_json (&r);
  else
    print_table (&r);
  return SPX_EXIT_OK;
}
