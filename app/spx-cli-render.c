/* spx-cli-render.c: `sparse-explorer render`: any view of a scenario to
 * PNG, SVG or PDF, drawn by the same functions as the window */
#include "spx-cli.h"
#include "spx-cli-study.h"
#include "spx-cli-picture.h"
#include "spx-ipu.h"
#include "spx-render-export.h"
#include "spx-render-views.h"
#include "spx-scenario.h"
#include "spx-sweep.h"
#include "spx-util.h"

#define CMD "render"
#define DEFAULT_MODE SPX_IPU_MODE_STATIC

/* render's options: see spx-cli-options.h (views: their names) */
#define RENDER_OPTIONS(O) \
  O (view, 0, TEXT, "VIEW", spx_cli_keep_printf ("%s (required)", views), \
     NULL) \
  O (out, 'o', FILE, "FILE", "Output file: .png, .svg or .pdf (required)", \
     NULL) \
  O (mode, 0, TEXT, "MODE", spx_cli_keep_printf ( \
     "The program shown by mask, tiles and exchange: %s (default %s)", \
     modes, spx_ipu_mode_to_string (DEFAULT_MODE)), NULL) \
  O (superstep, 0, TEXT, "I", \
     "exchange: the superstep shown, from 1 (default the first " \
     "exchange); timeline: the one highlighted in --mode's lane", NULL) \
  O (tile, 0, TEXT, "T", "The tile selected (its blocks highlighted)", \
     NULL) \
  O (metric, 0, TEXT, "M", spx_cli_keep (metric_help ()), NULL)

typedef struct {
  SpxCliStudyArgs   study;
  SpxCliPictureArgs picture;
  SPX_CLI_FIELDS (RENDER_OPTIONS)
} RenderArgs;

/* Everything the views need, resolved from the options. */
typedef struct {
  const SpxRenderView *view;
  SpxExportFormat format;
  SpxCliPicture   pic;
  SpxIpuMode      mode;
  guint           metric;            /* into the view's metrics */
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
              const char *const *names, guint *value)
{
  for (guint i = 0; names[i] != NULL; i++)
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

/* Every view's --metric words, in the table's order. */
static GPtrArray *
all_metrics (void)
{
  GPtrArray *words = g_ptr_array_new ();
  for (guint i = 0; i < SPX_RENDER_N_VIEWS; i++)
    for (const char *const *m = spx_render_views[i]->metrics; m && *m; m++)
      g_ptr_array_add (words, (gpointer) *m);
  g_ptr_array_add (words, NULL);
  return words;
}

/* The view's own words; a view without any ignores --metric, which must
 * still be one of another view's. */
static gboolean
parse_metric (const char *text, const SpxRenderView *view, guint *metric)
{
  if (view->metrics != NULL)
    return parse_choice ("--metric", text, view->metrics, metric);
  g_autoptr (GPtrArray) words = all_metrics ();
  guint ignored;
  return parse_choice ("--metric", text, (const char *const *) words->pdata,
                       &ignored);
}

/* What the metrics of each view are, for --help: "tiles: bytes, cycles
 * or exchange (default bytes); …". */
static char *
metric_help (void)
{
  GString *help = g_string_new (NULL);
  for (guint i = 0; i < SPX_RENDER_N_VIEWS; i++)
    {
      const SpxRenderView *v = spx_render_views[i];
      if (v->metrics == NULL)
        continue;
      g_autofree char *words = spx_join_choices (v->metrics, -1);
      g_string_append_printf (help, "%s%s: %s (default %s)",
                              help->len ? "; " : "", v->name, words,
                              v->metrics[0]);
    }
  return g_string_free (help, FALSE);
}

static gboolean
parse_picture (const RenderArgs *a, Render *r)
{
  guint v = 0;
  guint64 index;
  g_autoptr (GError) error = NULL;
  r->superstep = r->tile = -1;
  if (!a->view)
    {
      g_autofree char *views = spx_render_view_words ();
      return spx_cli_usage_error (CMD, "--view is required (%s)", views),
             FALSE;
    }
  if (!a->out)
    return spx_cli_usage_error (CMD, "--out is required"), FALSE;
  if (!parse_choice ("--view", a->view, spx_render_view_names (), &v))
    return FALSE;
  r->view = spx_render_views[v];
  if (a->metric && !parse_metric (a->metric, r->view, &r->metric))
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

/* The model's curves for the study, as the window's sweep would draw
 * them without the CPU. */
static SpxSweep *
model_sweep (const Render *r, int *status)
{
  g_autoptr (GError) error = NULL;
  SpxSweepOptions o;
  spx_study_sweep_options (r->study, &o);
  o.run_cpu = FALSE;
  g_autoptr (SpxSweep) sweep = spx_sweep_new ();
  if (!spx_sweep_run (sweep, &o, NULL, NULL, &error))
    return (*status = spx_cli_input_error (CMD, error)), NULL;
  return g_steal_pointer (&sweep);
}

/* What the options show of the study (and of sweep, when there is one). */
static void
shown_state (const Render *r, const SpxSweep *sweep, SpxRenderViewState *st)
{
  const SpxMask *mask = r->study->scenario->mask;
  SpxIpuProgram *const *programs = r->study->programs;
  const SpxIpuProgram *p = programs[r->mode];
  gint tile = (gint) r->tile;
  *st = (SpxRenderViewState) {
    .mask = mask, .programs = programs, .mode = r->mode, .tile = tile,
    .colour_by_tile = r->mode != SPX_IPU_MODE_DENSE && tile < 0,
    .superstep = r->superstep >= 0 ? (guint) r->superstep
                 : p != NULL ? spx_ipu_program_first_exchange (p) : 0,
    .step = (gint) r->superstep, .lane = (gint) r->mode,
    .metric = r->metric, .sweep = sweep,
    .density = sweep == NULL ? 0
               : (double) spx_mask_count_elements (mask) /
                 ((double) mask->rows * (double) mask->cols) };
}

/* The study made as far as the view needs (a plan is checked against
 * --tile and --superstep), then drawn to path. */
static gboolean
draw (const Render *r, const char *path, int *status)
{
  const SpxRenderView *v = r->view;
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxSweep) sweep = NULL;
  if (v->needs & SPX_RENDER_VIEW_NEEDS_PLAN)
    {
      if (!spx_study_plan (r->study, &error))
        return (*status = spx_cli_input_error (CMD, error)), FALSE;
      if (!check_indices (r, r->study->programs[r->mode]))
        return FALSE;
    }
  if ((v->needs & SPX_RENDER_VIEW_NEEDS_SWEEP) &&
      (sweep = model_sweep (r, status)) == NULL)
    return FALSE;
  SpxRenderViewState st;
  shown_state (r, sweep, &st);
  g_autofree gpointer data = g_malloc0 (v->data_size);
  spx_render_view_fill (v, &st, data);
  if (spx_render_export (path, r->format, r->pic.width, r->pic.height,
                         r->pic.scale, v->draw, data, &r->pic.style,
                         SPX_SAVE_DEFAULT, &error))
    return TRUE;
  *status = spx_cli_input_error (CMD, error);
  return FALSE;
}

static int
run (gconstpointer data)
{
  const RenderArgs *a = data;
  Render r = { 0 };
  int status = SPX_EXIT_USAGE;
  guint modes = SPX_CLI_MODE (DEFAULT_MODE), named;
  if (!parse_picture (a, &r) ||
      (a->mode && !spx_cli_modes_parse (CMD, "--mode", a->mode,
                                        SPX_CLI_MODES_IPU, FALSE, &modes,
                                        &named)) ||
      !(r.study = spx_cli_study_args_build (&a->study, CMD, NULL, &status)))
    goto out;
  status = SPX_EXIT_USAGE;
  r.mode = (SpxIpuMode) g_bit_nth_lsf (modes, -1);
  if (!draw (&r, a->out, &status))
    goto out;
  status = SPX_EXIT_OK;
out:
  render_clear (&r);
  return status;
}

SpxCliOptions *
spx_cli_render_options (void)
{
  SpxCliOptions *o = spx_cli_options_new (NULL, sizeof (RenderArgs));
  RenderArgs *args = spx_cli_options_args (o);
  GOptionContext *context = spx_cli_options_context (o);
  g_autofree char *modes = spx_cli_modes_words (SPX_CLI_MODES_IPU, FALSE);
  g_autofree char *views = spx_render_view_words ();
  g_option_context_set_summary (context, "Draw one view of a scenario to "
                                "PNG, SVG or PDF, exactly as the window "
                                "shows it.");
  SPX_CLI_ADD (o, RENDER_OPTIONS, NULL);
  spx_cli_study_args_add (&args->study, o, SPX_CLI_STUDY_ALL);
  spx_cli_picture_args_add (&args->picture, o, &picture_defaults);
  return o;
}

int
spx_cli_render (int argc, char **argv)
{
  g_autoptr (SpxCliOptions) options = spx_cli_render_options ();
  return spx_cli_parse_and_run (CMD, options, argc, argv, run);
}
