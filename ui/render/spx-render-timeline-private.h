/* spx-render-timeline-private.h: what the Timeline's files share: its
 * layout, and the panel under the axis that explains the selected
 * superstep (spx-render-timeline-panel.c). */
#pragma once

#include "spx-render-timeline.h"
#include "spx-render-timeline-axis.h"

G_BEGIN_DECLS

#define MARGIN 8.0
#define N_LANES SPX_IPU_N_MODES
#define LANE_GAP 8.0
#define HIT_SLOP 2.0
#define PANEL_GAP 6.0        /* between the axis and the panel */
#define PANEL_PAD 6.0        /* inside the panel */
#define PANEL_MAX_TERMS 10   /* term rows at most; the rest share a row */
#define PANEL_SIZE 0.9       /* its text, × the font size */
#define HINT "Click a superstep to see its cycles explained."
#define LABEL_SIZE 0.8       /* step names, × the font size */
#define LEADER 12.0          /* from a bar down to its row of callouts */
#define CALLOUT_GAP 8.0      /* between neighbouring callouts */

typedef struct {
  double line;                 /* one line of text */
  SpxTimelineAxis ax;          /* the cycle axis */
  guint  n;                    /* lanes drawn */
  guint  which[N_LANES];       /* their programs[] index */
  double lane_y[N_LANES];      /* header line of each lane */
  double bar_y[N_LANES], bar_h;
  gboolean callouts;           /* a row under each bar names the steps
                                  too narrow to hold their name */
  double callout_h;
  gboolean summary_below;      /* room for a line under the callouts */
  double axis_y;
  double panel_y, row_h;       /* the explanation under the axis */
  guint  panel_rows;           /* header + terms; 0: no room for it */
  double extra;                /* the room a user's title takes beyond
                                  one line (0: none) */
} Layout;

/* The selected step and its programs[] index, or NULL: the first lane
 * that has it when the selection names no lane. */
const SpxIpuStep *_spx_timeline_selected_step (const SpxRenderTimelineData *d,
                                               guint *which);
/* "Superstep 5: reduce exchange, 1,200 cycles, tile 17". */
char   *_spx_timeline_step_header (const SpxIpuStep *s, guint index);
SpxRgb  _spx_timeline_kind_colour (const SpxRenderStyle *style,
                                   SpxStepKind kind);

/* spx-render-timeline-panel.c: the rows (of l->row_h) the words of
 * step s's terms (PANEL_MAX_TERMS at most) take at font size fs, told
 * from their length (no cairo_t: the hit test lays the picture out
 * too). */
guint   _spx_timeline_words_rows (const Layout *l, const SpxIpuStep *s,
                                  double fs);
/* The panel, from l->panel_y down to at
 * most bottom: the selected step's header, then a row per term (term,
 * formula, cycles), each with the term in words under it, wrapped, as
 * far as there is room. */
void    _spx_timeline_draw_panel (cairo_t *cr, const SpxRenderStyle *style,
                                  const Layout *l,
                                  const SpxRenderTimelineData *d,
                                  double bottom);

G_END_DECLS
