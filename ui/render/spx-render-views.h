/* spx-render-views.h: the views as one table. Each row says what the
 * view is called, how it is drawn, what is under a point of it and what
 * it needs; the window, Export, `render --view`, the accelerators, the
 * shortcuts window, the man page and the lesson's view names all loop
 * over it. */
#pragma once

#include "spx-ipu-program.h"
#include "spx-mask.h"
#include "spx-render-export.h"
#include "spx-sweep.h"

G_BEGIN_DECLS

/* The views, in the order of the window's switcher (Alt+1, Alt+2, …):
 * ID and name. Adding a view is a line here, its renderer's file (which
 * defines its row, spx_render_view_NAME) and that file in meson. */
#define SPX_RENDER_VIEW_LIST(V) \
  V (MASK, mask)                \
  V (TILES, tiles)              \
  V (EXCHANGE, exchange)        \
  V (TIMELINE, timeline)        \
  V (SPEEDUP, speedup)

typedef enum {
#define SPX_RENDER_VIEW_ID(ID, name) SPX_RENDER_VIEW_##ID,
  SPX_RENDER_VIEW_LIST (SPX_RENDER_VIEW_ID)
#undef SPX_RENDER_VIEW_ID
  SPX_RENDER_N_VIEWS
} SpxRenderViewId;

/* What a view needs made from the study before it can be drawn. */
typedef enum {
  SPX_RENDER_VIEW_NEEDS_PLAN  = 1 << 0, /* the three IPU programs */
  SPX_RENDER_VIEW_NEEDS_SWEEP = 1 << 1, /* a sweep of the subject */
} SpxRenderViewNeeds;

/* What the views show: the window keeps one, `render` makes one from
 * its options; each view's row makes its picture's data from it. */
typedef struct {
  const SpxMask        *mask;      /* the subject's */
  SpxIpuProgram *const *programs;  /* SPX_IPU_N_MODES, any NULL */
  SpxIpuMode            mode;      /* the program mask, tiles and exchange
                                      show */
  gint                  tile;      /* selected, -1: none */
  gboolean              colour_by_tile; /* the mask's blocks */
  guint                 superstep; /* the step Exchange shows */
  gint                  step;      /* the Timeline's selected step, -1: none */
  gint                  lane;      /* its program (-1: every lane) */
  double                zoom_from, zoom_to; /* the Timeline's axis shown,
                                               fractions of it (equal: all) */
  gboolean              axis_break; /* the Timeline's, when all is shown
                                       (see SpxRenderTimelineData) */
  guint                 metric;    /* an index into the view's metrics */
  const SpxSweep       *sweep;
  gboolean              stale;     /* the sweep is of an older subject */
  gboolean              running;   /* its points are still arriving */
  double                density;   /* the subject's, marked on the chart */
  const SpxSweep       *overlay;   /* an earlier sweep under it, or NULL */
  const char           *overlay_label;
} SpxRenderViewState;

/* What is under a point of a view; -1 for what is not there. */
typedef struct {
  gint   tile;
  gint   lane, step;             /* a superstep of programs[lane] */
  gint   point;                  /* of the sweep */
  gint64 block_row, block_col;   /* a block of the mask */
} SpxRenderViewHit;

typedef struct {
  const char *name;      /* render --view, win.view::NAME, the window's
                            stack, lesson files, Export's file name */
  const char *title;     /* on the window's switcher */
  const char *summary;   /* what it shows, for the man page */
  /* render --metric's words for this view, the default first, in the
   * order state->metric counts them; NULL: it has none */
  const char *const *metrics;
  SpxRenderViewNeeds needs;
  gsize       data_size; /* of the renderer's data */
  void      (*fill)     (const SpxRenderViewState *state, gpointer data);
  SpxRenderFunc draw;
  /* NULL when nothing in the view can be pointed at */
  gboolean  (*hit)      (double width, double height, gconstpointer data,
                         const SpxRenderStyle *style, double x, double y,
                         SpxRenderViewHit *hit);
  /* The hover text at (x, y), NULL for nothing there; NULL: none */
  char     *(*describe) (double width, double height, gconstpointer data,
                         const SpxRenderStyle *style, double x, double y);
} SpxRenderView;

#define SPX_RENDER_VIEW_ROW(ID, name) \
  extern const SpxRenderView spx_render_view_##name;
SPX_RENDER_VIEW_LIST (SPX_RENDER_VIEW_ROW)
#undef SPX_RENDER_VIEW_ROW

/* Indexed by SpxRenderViewId. */
extern const SpxRenderView *const spx_render_views[SPX_RENDER_N_VIEWS];

/* The program the mask, tiles and exchange views show. */
const SpxIpuProgram *spx_render_view_shown_program (
  const SpxRenderViewState *state);

/* The index of the view called name (a SpxRenderViewId), or -1. */
gint                 spx_render_view_index (const char *name);
/* The view called name, or NULL. */
const SpxRenderView *spx_render_view_find  (const char *name);
/* The views' names in order, NULL-terminated. */
const char *const   *spx_render_view_names (void);
/* "mask, tiles, exchange, timeline or speedup" (free with g_free). */
char                *spx_render_view_words (void);

/* Makes data (view->data_size bytes) from state; TRUE when that changed
 * it, so the picture must be drawn again. */
gboolean spx_render_view_fill     (const SpxRenderView *view,
                                   const SpxRenderViewState *state,
                                   gpointer data);
/* What is at (x, y) of a picture of width × height: FALSE and every
 * field of *hit -1 when nothing is. */
gboolean spx_render_view_hit      (const SpxRenderView *view, double width,
                                   double height, gconstpointer data,
                                   const SpxRenderStyle *style, double x,
                                   double y, SpxRenderViewHit *hit);
/* The hover text at (x, y), or NULL. */
char    *spx_render_view_describe (const SpxRenderView *view, double width,
                                   double height, gconstpointer data,
                                   const SpxRenderStyle *style, double x,
                                   double y);

G_END_DECLS
