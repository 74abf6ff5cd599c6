/* spx-cli-render.c: `sparse-explorer render`: any view of a scenario to
 * PNG, SVG or PDF, drawn by the same functions as the window */
#include "spx-cli.h"
#include "spx-cli-study.h"
#include "spx-cli-picture.h"
#include "spx-ipu.h"
#include "spx-render-exchange.h"
#include "spx-render-export.h"
#include "spx-render-mask.h"
#include "spx-render-speedup.h"
#include "spx-render-tiles.h"
#include "spx-render-timeline.h"
#include "spx-scenario.h"
#include "spx-sweep.h"

#define CMD "render"
#define DEFAULT_MODE SPX_IPU_MODE_STATIC

typedef enum {
  VIEW_MASK,
  VIEW_TILES,
  VIEW_EXCHANGE,
  VIEW_TIMELINE,
  VIEW_SPEEDUP,
} View;

typedef struct {
  SpxCliStudyArgs   study;
  SpxCliPictureArgs picture;
  char *mode, *view, *out, *superstep, *tile, *metric;
} RenderArgs;

static void
render_args_clear (RenderArgs *a)
{
  spx_cli_study_args_clear (&a->study);
  spx_cli_picture_args_clear (&a->picture);
  char **fields[] = { &a->mode, &a->view, &a->out, &a->superstep, &a->tile,
                      &a->metric };
  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    g_clear_pointer (fields[i], g_free);
}

/* Everything the views need, resolved from the options. */
typedef struct {
  View            view;
  SpxExportFormat format;
  SpxCliPicture   pic;
  SpxIpuMode      mode;
  SpxTileMetric   metric;
  gboolean        throughput;        /* speedup view: TFLOP/s, not ×dense */
  gint64          superstep, tile;   /* -1: not given */
  SpxStudy       *study;
} Render;

static void
render_clear (Render *r)
{
  if (r->study)
    spx_study_free (r->study);
}

static gboolean
parse_choice (const char *option, const char *text,
              const char *const *names, guint n_names, guint *value)
{
  for (guint i = 0; i < n_names; i++)
    if (g_strcmp0 (text, names[i]) == 0)
      {
        *value = i;
        return TRUE;
      }
  g_autofree char *list = g_strjoinv (", ", (char **) names);
  spx_cli_usage_error (CMD, "%s: expected one of %s, got '%s'", option, list,
                       text);
  return FALSE;
}

static const SpxCliPicture picture_defaults = { .width = 960, .height = 600,
                                                .scale = 1 };

static gboolean
parse_picture (const RenderArgs *a, Render *r)
{
  static const char *const views[] = { "mask", "tiles", "exchange",
                                       "timeline", "speedup", NULL };
  static const char *const metrics[] = { "bytes", "cycles", "exchange",
                                         NULL };
  static const char *const charts[] = { "speedup", "throughput", NULL };
  guint v = 0, metric = 0;
  guint64 index;
  g_autoptr (GError) error = NULL;
  r->superstep = r->tile = -1;
  if (!a->view)
    return spx_cli_usage_error (CMD, "--view is required (mask, tiles, "
                                "exchange, timeline or speedup)"), FALSE;
  if (!a->out)
    return spx_cli_usage_error (CMD, "--out is required"), FALSE;
  if (!parse_choice ("--view", a->view, views, G_N_ELEMENTS (views) - 1, &v))
    return FALSE;
  /* the speedup chart's own metrics: over dense, or non-zero TFLOP/s */
  if (a->metric && (v == VIEW_SPEEDUP
                      ? !parse_choice ("--metric", a->metric, charts,
                                       G_N_ELEMENTS (charts) - 1, &metric)
                      : !parse_choice ("--metric", a->metric, metrics,
                                       G_N_ELEMENTS (metrics) - 1, &metric)))
    return FALSE;
  if (!spx_export_format_from_path (a->out, &r->format, &error))
    return spx_cli_usage_error (CMD, "--out: %s", error->message), FALSE;
  r->pic = picture_defaults;
  if (!spx_cli_picture_args_parse (&a->picture, CMD, &r->pic))
    return FALSE;
  if (a->superstep)
    {
      /* counted from 1, as the pictures label them */
      if (!spx_cli_uint (CMD, "--superstep", a->superstep, 1, G_MAXINT32,
                         &index))
        return FALSE;
      r->superstep = (gint64) index - 1;
    }
  if (a->tile)
    {
      if (!spx_cli_uint (CMD, "--tile", a->tile, 0, G_MAXINT32, &index))
        return FALSE;
      r->tile = (gint64) index;
    }
  r->view = v;
  r->metric = v == VIEW_SPEEDUP ? SPX_TILE_METRIC_BYTES : metric;
  r->throughput = v == VIEW_SPEEDUP && metric == 1;
  return TRUE;
}

static gboolean
check_indices (const Render *r, const SpxIpuProgram *p)
{
  if (r->tile >= (gint64) p->n_tiles)
    return spx_cli_usage_error (CMD, "--tile: expected a tile from 0 to %u "
                                "on %s, got %" G_GINT64_FORMAT,
                                p->n_tiles - 1, p->machine->name, r->tile),
           FALSE;
  if (r->superstep >= (gint64) p->steps->len)
    return spx_cli_usage_error (CMD, "--superstep: expected 1 to %u (the %s "
                                "program's supersteps), got %" G_GINT64_FORMAT,
                                p->steps->len,
                                spx_ipu_mode_to_string (p->mode),
                                r->superstep + 1), FALSE;
  return TRUE;
}

static gboolean
export (const Render *r, const char *path, SpxRenderFunc func,
        gconstpointer data, int *status)
{
  g_autoptr (GError) error = NULL;
  if (spx_render_export (path, r->format, r->pic.width, r->pic.height,
                         r->pic.scale, func, data, &r->pic.style,
                         SPX_SAVE_DEFAULT, &error))
    return TRUE;
  *status = spx_cli_input_error (CMD, error);
  return FALSE;
}

static gboolean
draw_program_view (const Render *r, const char *path, int *status)
{
  SpxIpuProgram *const *programs = r->study->programs;
  const SpxIpuProgram *p = programs[r->mode];
  gint tile = (gint) r->tile;
  if (!check_indices (r, p))
    return FALSE;
  switch (r->view)
    {
    case VIEW_MASK:
      {
        SpxRenderMaskData d = { .mask = r->study->scenario->mask, .grid = TRUE,
                                .program = p, .selected_tile = tile,
                                .colour_by_tile = r->mode != SPX_IPU_MODE_DENSE
                                                  && tile < 0 };
        return export (r, path, spx_render_mask, &d, status);
      }
    case VIEW_TILES:
      {
        SpxRenderTilesData d = { .program = p, .metric = r->metric,
                                 .selected_tile = tile };
        return export (r, path, spx_render_tiles, &d, status);
      }
    case VIEW_EXCHANGE:
      {
        SpxRenderExchangeData d = {
          .program = p, .selected_tile = tile,
          .superstep = r->superstep >= 0
                         ? (guint) r->superstep
                         : spx_ipu_program_first_exchange (p) };
        return export (r, path, spx_render_exchange, &d, status);
      }
    case VIEW_TIMELINE:
    default:
      {
        SpxRenderTimelineData d = {
          .programs = { programs[0], programs[1], programs[2] },
          .selected_superstep = (gint) r->superstep,
          .selected_lane = (gint) r->mode };
        return export (r, path, spx_render_timeline, &d, status);
      }
    }
}

/* The model's curves for the study (the scenario's block among them),
 * as the window's sweep would draw them without the CPU. */
static gboolean
draw_speedup (const Render *r, const char *path, int *status)
{
  const SpxScenario *sc = r->study->scenario;
  g_autoptr (GError) error = NULL;
  SpxSweepOptions o;
  spx_study_sweep_options (r->study, &o);
  o.run_cpu = FALSE;
  gboolean listed = FALSE;
  for (guint i = 0; i < o.n_blocks; i++)
    listed |= o.blocks[i] == sc->block;
  if (!listed && o.n_blocks < SPX_SWEEP_MAX_VALUES)
    o.blocks[o.n_blocks++] = sc->block;
  g_autoptr (SpxSweep) sweep = spx_sweep_new ();
  if (!spx_sweep_run (sweep, &o, NULL, NULL, &error))
    return (*status = spx_cli_input_error (CMD, error)), FALSE;
  SpxRenderSpeedupData d = {
    .sweep = sweep, .throughput = r->throughput,
    .current_density = (double) spx_mask_count_elements (sc->mask) /
                       ((double) sc->mask->rows * (double) sc->mask->cols) };
  return export (r, path, spx_render_speedup, &d, status);
}

static int
run (gconstpointer data)
{
  const RenderArgs *a = data;
  Render r = { 0 };
  int status = SPX_EXIT_USAGE;
  guint modes = SPX_CLI_MODE (DEFAULT_MODE), named;
  g_autoptr (GError) error = NULL;
  if (!parse_picture (a, &r) ||
      (a->mode && !spx_cli_modes_parse (CMD, "--mode", a->mode,
                                        SPX_CLI_MODES_IPU, FALSE, &modes,
                                        &named)) ||
      !(r.study = spx_cli_study_args_build (&a->study, CMD, NULL, &status)))
    goto out;
  status = SPX_EXIT_USAGE;
  r.mode = (SpxIpuMode) g_bit_nth_lsf (modes, -1);
  if (r.view == VIEW_SPEEDUP)
    {
      if (!draw_speedup (&r, a->out, &status))
        goto out;
    }
  else if (!spx_study_plan (r.study, &error))
    {
      status = spx_cli_input_error (CMD, error);
      goto out;
    }
  else if (!draw_program_view (&r, a->out, &status))
    goto out;
  status = SPX_EXIT_OK;
out:
  render_clear (&r);
  return status;
}

int
spx_cli_render (int argc, char **argv)
{
  RenderArgs a = { 0 };
  g_autofree char *modes = spx_cli_modes_words (SPX_CLI_MODES_IPU, FALSE);
  g_autofree char *mode_help = g_strdup_printf (
    "The program shown by mask, tiles and exchange: %s (default %s)", modes,
    spx_ipu_mode_to_string (DEFAULT_MODE));
  GOptionEntry entries[] = {
    { "view", 0, 0, G_OPTION_ARG_STRING, &a.view,
      "mask, tiles, exchange, timeline or speedup (required)", "VIEW" },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &a.out,
      "Output file: .png, .svg or .pdf (required)", "FILE" },
    { "mode", 0, 0, G_OPTION_ARG_STRING, &a.mode, mode_help, "MODE" },
    { "superstep", 0, 0, G_OPTION_ARG_STRING, &a.superstep,
      "exchange: the superstep shown, from 1 (default the first "
      "exchange); timeline: the one highlighted in --mode's lane", "I" },
    { "tile", 0, 0, G_OPTION_ARG_STRING, &a.tile,
      "The tile selected (its blocks highlighted)", "T" },
    { "metric", 0, 0, G_OPTION_ARG_STRING, &a.metric,
      "tiles: bytes, cycles or exchange (default bytes); speedup: speedup "
      "or throughput (default speedup)", "M" },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) context = g_option_context_new (NULL);
  g_option_context_set_summary (context, "Draw one view of a scenario to "
                                "PNG, SVG or PDF, exactly as the window "
                                "shows it.");
  g_option_context_add_main_entries (context, entries, NULL);
  spx_cli_study_args_add (&a.study, context, SPX_CLI_STUDY_ALL);
  spx_cli_picture_args_add (&a.picture, context, &picture_defaults);
  int status = spx_cli_parse_and_run (CMD, context, argc, argv, run, &a);
  render_args_clear (&a);
  return status;
}
