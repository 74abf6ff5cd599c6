/* spx-render-exchange-private.h: what the Exchange picture's files
 * share: its layout, its arrows as routed, and the helpers that place
 * things on them (spx-render-exchange.c draws, -layout.c places, -arrows.c
 * sums and routes the arrows, -text.c words the picture and its hover,
 * -labels.c writes the arrows' labels). */
#pragma once

#include "spx-render-exchange.h"

G_BEGIN_DECLS

#define MARGIN 8.0

typedef struct {
  SpxStepKind kind;
  gboolean grid;
  double   width, height;
  double   line;      /* height of one line of text */
  double   top;       /* first y below the title */
  double   extra;     /* of it, the room a user's title takes beyond one
                         line */
  /* grid */
  guint    cols, rows;
  double   cell_w, cell_h, box, x0, y0;
  double   widest;    /* the largest arrow's line width */
  gboolean crowded;   /* more tile pairs than SPX_RENDER_EXCHANGE_MAX_ARROWS:
                         a footer line says how the arrows are drawn */
  gboolean grouped;   /* arrows join groups of tiles */
  guint    span_c, span_r, gcols, grows; /* groups: span_c × span_r
                                            tiles, gcols × grows of them */
  /* large machines: heat map (or, for compute and sync, a map of the
   * tiles themselves: mcols × mrows cells of mw × mh), legend, per-tile
   * strips */
  guint    group, n_groups, mcols, mrows;
  double   hx, hy, hs, mw, mh;
  double   lx, lw;
  double   sx, sw, caption_y, in_y, out_y, sh;
} Layout;

typedef struct {
  double x, y, w, h;
} Box;

typedef struct {
  guint64 total, largest;
  guint   pairs;
} Totals;


typedef struct {
  guint32  src, dst;              /* tiles, or groups when grouped */
  guint64  bytes;
  guint    pairs;                 /* tile pairs summed */
  gboolean twin;                  /* the pair also sends the other way */
  double   x0, y0, cx, cy, x1, y1; /* quadratic curve, ends on the boxes */
} Arrow;

static inline gboolean
_spx_exchange_boxes_overlap (const Box *a, const Box *b)
{
  return a->x < b->x + b->w && b->x < a->x + a->w && a->y < b->y + b->h &&
         b->y < a->y + a->h;
}

/* The step d names when it has what its picture needs, else NULL. */
const SpxIpuStep *_spx_exchange_shown_step (const SpxRenderExchangeData *d);
/* The selected tile, or -1 for none or one out of range. */
gint     _spx_exchange_selection   (const SpxRenderExchangeData *d);
/* extra: as Layout's (0: no user title; the window's pictures and the
 * hit test have none). */
void     _spx_exchange_layout_for  (Layout *l, const SpxRenderExchangeData *d,
                                    const SpxIpuStep *s, double w, double h,
                                    double fs, double extra);
/* The step's arrows routed on the grid, smallest first. */
GArray  *_spx_exchange_grid_arrows (Layout *l, const SpxIpuProgram *p,
                                    const SpxIpuStep *s, Totals *t);
/* One arrow per tile pair, not routed; adds to t. */
GArray  *_spx_exchange_pair_arrows (const SpxIpuStep *s, Totals *t);
void     _spx_exchange_tile_centre (const Layout *l, guint t, double *x,
                                    double *y);
/* Around a group's tiles; FALSE for a group without tiles. */
gboolean _spx_exchange_group_box   (const Layout *l, guint n_tiles, guint g,
                                    Box *b);
/* The group that holds tile t. */
guint    _spx_exchange_group_at    (const Layout *l, guint t);
/* The tile at (x, y), or -1. */
gint     _spx_exchange_tile_at     (const Layout *l, guint n_tiles, double x,
                                    double y);
/* Not drawn as arrows: what stays within a tile or a group. */
gboolean _spx_exchange_is_loop     (const Arrow *a);
/* Drawn, given the selected tile sel (-1: none). */
gboolean _spx_exchange_shown       (const Arrow *a, gint sel);
void     _spx_exchange_curve_point (const Arrow *a, double t, double *x,
                                    double *y);
double   _spx_exchange_arrow_width (const Layout *l, guint64 bytes,
                                    guint64 largest);
/* An arrow's head drawn with line width lw: its triangle in pt (the tip,
 * then the two corners); returns its length. */
double   _spx_exchange_head        (const Layout *l, const Arrow *a,
                                    double lw, double pt[6]);
void     _spx_exchange_draw_arrow  (cairo_t *cr, const Layout *l,
                                    const Arrow *a, double lw);
/* The shown arrow nearest (x, y) near its line, or NULL. */
const Arrow *_spx_exchange_arrow_at (const Layout *l, GArray *arrows,
                                     gint sel, guint64 largest, double x,
                                     double y);

/* A label placed: on arrow (an index into the arrows), or, within, on
 * the traffic within the group that arrow (a loop) stands for. */
typedef struct {
  guint    arrow;
  gboolean within;
  Box      box;
  char    *text;
} Placed;

/* Every label of the grid's arrows, each where it covers no tile,
 * arrowhead or other label (see spx-render-exchange-labels.c). Free
 * with g_array_unref. */
GArray  *_spx_exchange_place_labels (cairo_t *cr, const SpxRenderStyle *style,
                                     const Layout *l, guint n_tiles,
                                     GArray *arrows, gint sel,
                                     guint64 largest);
/* Draws them, edged in edge (the traffic within a group: muted). */
void     _spx_exchange_draw_labels  (cairo_t *cr, const SpxRenderStyle *style,
                                     GArray *placed, SpxRgb edge);

/* spx-render-exchange-text.c: the title and the words around the
 * picture. */
extern const SpxTextOpts _spx_exchange_title_opts;
/* Step s's transfer i. */
const SpxIpuTransfer *_spx_exchange_transfer (const SpxIpuStep *s, guint i);
/* parts joined with " · " while they fit in max_w. */
char      *_spx_exchange_fit_parts (cairo_t *cr, const SpxRenderStyle *style,
                                    double size, double max_w,
                                    const char *const *parts, guint n);
/* The title's second line, in parts: for an exchange, a compute step or
 * a sync. */
GPtrArray *_spx_exchange_exchange_caption (const Layout *l,
                                           const SpxRenderExchangeData *d,
                                           const SpxIpuStep *s,
                                           const Totals *t);
GPtrArray *_spx_exchange_compute_caption (const SpxRenderExchangeData *d,
                                          const SpxIpuStep *s);
GPtrArray *_spx_exchange_sync_caption (const SpxIpuStep *s);
void       _spx_exchange_draw_title (cairo_t *cr, const SpxRenderStyle *style,
                                     double width, const Layout *l,
                                     const SpxRenderExchangeData *d,
                                     GPtrArray *caption);
/* Under a crowded exchange: how its arrows are drawn. */
void       _spx_exchange_draw_footer (cairo_t *cr,
                                      const SpxRenderStyle *style,
                                      const Layout *l,
                                      const SpxRenderExchangeData *d,
                                      const Totals *t);
/* A large machine's legend: a colour bar when bar_title is given, then
 * lines of notes. */
void       _spx_exchange_draw_legend (cairo_t *cr,
                                      const SpxRenderStyle *style,
                                      const Layout *l, const char *bar_title,
                                      const char *hi,
                                      const char *const *lines,
                                      guint n_lines);

G_END_DECLS
