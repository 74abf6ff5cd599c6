/* spx-render-views.c: the table of views, and for each the few lines
 * that make its renderer's data from what is shown and put its hit test
 * and hover text in the table's terms */
#include "spx-render-views.h"
#include "spx-render-exchange.h"
#include "spx-render-mask.h"
#include "spx-render-speedup.h"
#include "spx-render-tiles.h"
#include "spx-render-timeline.h"
#include "spx-util.h"

#include <string.h>

static const SpxIpuProgram *
shown_program (const SpxRenderViewState *st)
{
  return st->programs[st->mode];
}

/* ---- mask --------------------------------------------------------- */

static void
mask_fill (const SpxRenderViewState *st, gpointer data)
{
  SpxRenderMaskData *d = data;
  d->mask = st->mask;
  d->grid = TRUE;
  d->program = shown_program (st);
  d->selected_tile = st->tile;
  d->colour_by_tile = st->colour_by_tile;
}

static gboolean
mask_hit (double width, double height, gconstpointer data,
          const SpxRenderStyle *style, double x, double y,
          SpxRenderViewHit *hit)
{
  guint64 br, bc;
  if (!spx_render_mask_hit (width, height, data, x, y, &br, &bc))
    return FALSE;
  hit->block_row = (gint64) br;
  hit->block_col = (gint64) bc;
  return TRUE;
}

/* ---- tiles -------------------------------------------------------- */

static void
tiles_fill (const SpxRenderViewState *st, gpointer data)
{
  SpxRenderTilesData *d = data;
  d->program = shown_program (st);
  d->metric = (SpxTileMetric) st->metric;
  d->selected_tile = st->tile;
}

static gboolean
tiles_hit (double width, double height, gconstpointer data,
           const SpxRenderStyle *style, double x, double y,
           SpxRenderViewHit *hit)
{
  hit->tile = spx_render_tiles_hit (width, height, data, x, y);
  return hit->tile >= 0;
}

static char *
tiles_describe (double width, double height, gconstpointer data,
                const SpxRenderStyle *style, double x, double y)
{
  const SpxRenderTilesData *d = data;
  gint t = spx_render_tiles_hit (width, height, d, x, y);
  return t < 0 ? NULL : spx_render_tiles_describe (d->program, (guint) t,
                                                   "\n");
}

/* ---- exchange ----------------------------------------------------- */

static void
exchange_fill (const SpxRenderViewState *st, gpointer data)
{
  SpxRenderExchangeData *d = data;
  d->program = shown_program (st);
  d->superstep = st->superstep;
  d->selected_tile = st->tile;
}

static gboolean
exchange_hit (double width, double height, gconstpointer data,
              const SpxRenderStyle *style, double x, double y,
              SpxRenderViewHit *hit)
{
  const SpxRenderExchangeData *d = data;
  hit->tile = d->program == NULL ? -1
    : spx_render_exchange_hit (width, height, d, x, y);
  return hit->tile >= 0;
}

/* What moves, or what the tile does. */
static char *
exchange_describe (double width, double height, gconstpointer data,
                   const SpxRenderStyle *style, double x, double y)
{
  const SpxRenderExchangeData *d = data;
  return d->program == NULL ? NULL
    : spx_render_exchange_describe (width, height, d, x, y);
}

/* ---- timeline ----------------------------------------------------- */

static void
timeline_fill (const SpxRenderViewState *st, gpointer data)
{
  SpxRenderTimelineData *d = data;
  for (guint i = 0; i < SPX_IPU_N_MODES; i++)
    d->programs[i] = st->programs[i];
  d->selected_superstep = st->step;
  d->selected_lane = st->lane;
}

static gboolean
timeline_hit (double width, double height, gconstpointer data,
              const SpxRenderStyle *style, double x, double y,
              SpxRenderViewHit *hit)
{
  guint lane = 0;
  gint step = spx_render_timeline_hit (width, height, data, x, y, &lane);
  if (step < 0)
    return FALSE;
  hit->lane = (gint) lane;
  hit->step = step;
  return TRUE;
}

/* A superstep explained without selecting it. */
static char *
timeline_describe (double width, double height, gconstpointer data,
                   const SpxRenderStyle *style, double x, double y)
{
  SpxRenderViewHit hit;
  if (!timeline_hit (width, height, data, style, x, y, &hit))
    return NULL;
  g_autofree char *text = spx_render_timeline_describe (data,
                                                        (guint) hit.lane,
                                                        hit.step);
  if (text == NULL)
    return NULL;
  return g_strdup_printf ("%s\n\nClick to select it, double-click to open "
                          "it in Exchange.", text);
}

/* ---- speedup ------------------------------------------------------ */

static void
speedup_fill (const SpxRenderViewState *st, gpointer data)
{
  SpxRenderSpeedupData *d = data;
  d->sweep = st->sweep;
  d->throughput = st->metric == 1; /* its metrics' second */
  d->current_density = st->density;
  d->stale = st->stale;
  d->running = st->running;
}

static gboolean
speedup_hit (double width, double height, gconstpointer data,
             const SpxRenderStyle *style, double x, double y,
             SpxRenderViewHit *hit)
{
  guint point = 0;
  if (!spx_render_speedup_hit (width, height, data, style, x, y, &point))
    return FALSE;
  hit->point = (gint) point;
  return TRUE;
}

/* A point of the chart: what it is and how it was measured. */
static char *
speedup_describe (double width, double height, gconstpointer data,
                  const SpxRenderStyle *style, double x, double y)
{
  SpxRenderViewHit hit;
  if (!speedup_hit (width, height, data, style, x, y, &hit))
    return NULL;
  return spx_render_speedup_describe (data, (guint) hit.point);
}

/* ---- the table ---------------------------------------------------- */

const SpxRenderView spx_render_views[SPX_RENDER_N_VIEWS] = {
  [SPX_RENDER_VIEW_MASK] = {
    "mask", "Mask", NULL, SPX_RENDER_VIEW_NEEDS_PLAN,
    sizeof (SpxRenderMaskData), mask_fill, spx_render_mask, mask_hit, NULL },
  [SPX_RENDER_VIEW_TILES] = {
    "tiles", "Tiles",
    (const char *const[]) { "bytes", "cycles", "exchange", NULL },
    SPX_RENDER_VIEW_NEEDS_PLAN, sizeof (SpxRenderTilesData), tiles_fill,
    spx_render_tiles, tiles_hit, tiles_describe },
  [SPX_RENDER_VIEW_EXCHANGE] = {
    "exchange", "Exchange", NULL, SPX_RENDER_VIEW_NEEDS_PLAN,
    sizeof (SpxRenderExchangeData), exchange_fill, spx_render_exchange,
    exchange_hit, exchange_describe },
  [SPX_RENDER_VIEW_TIMELINE] = {
    "timeline", "Timeline", NULL, SPX_RENDER_VIEW_NEEDS_PLAN,
    sizeof (SpxRenderTimelineData), timeline_fill, spx_render_timeline,
    timeline_hit, timeline_describe },
  [SPX_RENDER_VIEW_SPEEDUP] = {
    "speedup", "Speedup",
    (const char *const[]) { "speedup", "throughput", NULL },
    SPX_RENDER_VIEW_NEEDS_SWEEP, sizeof (SpxRenderSpeedupData),
    speedup_fill, spx_render_speedup, speedup_hit, speedup_describe },
};

const SpxRenderView *
spx_render_view_find (const char *name)
{
  for (guint i = 0; name != NULL && i < SPX_RENDER_N_VIEWS; i++)
    if (g_str_equal (name, spx_render_views[i].name))
      return &spx_render_views[i];
  return NULL;
}

const char *const *
spx_render_view_names (void)
{
  static const char *names[SPX_RENDER_N_VIEWS + 1];
  static gsize once = 0;
  if (g_once_init_enter (&once))
    {
      for (guint i = 0; i < SPX_RENDER_N_VIEWS; i++)
        names[i] = spx_render_views[i].name;
      g_once_init_leave (&once, 1);
    }
  return names;
}

char *
spx_render_view_words (void)
{
  return spx_join_choices (spx_render_view_names (), -1);
}

/* Made afresh in a zeroed copy and compared byte for byte (the fills
 * set field by field, so padding stays zero; at worst a difference
 * there draws the same picture again). */
gboolean
spx_render_view_fill (const SpxRenderView *view,
                      const SpxRenderViewState *state, gpointer data)
{
  g_autofree gpointer made = g_malloc0 (view->data_size);
  view->fill (state, made);
  if (memcmp (made, data, view->data_size) == 0)
    return FALSE;
  memcpy (data, made, view->data_size);
  return TRUE;
}

gboolean
spx_render_view_hit (const SpxRenderView *view, double width, double height,
                     gconstpointer data, const SpxRenderStyle *style,
                     double x, double y, SpxRenderViewHit *hit)
{
  static const SpxRenderViewHit none = { .tile = -1, .lane = -1,
                                        .step = -1, .point = -1,
                                        .block_row = -1, .block_col = -1 };
  *hit = none;
  if (view->hit != NULL && view->hit (width, height, data, style, x, y, hit))
    return TRUE;
  *hit = none; /* a miss leaves nothing half set */
  return FALSE;
}

char *
spx_render_view_describe (const SpxRenderView *view, double width,
                          double height, gconstpointer data,
                          const SpxRenderStyle *style, double x, double y)
{
  return view->describe == NULL ? NULL
    : view->describe (width, height, data, style, x, y);
}
