/* spx-render-layers.h: a network's survey as a chart: per layer, the
 * recommended speedup over dense on each source, and the network's
 * totals */
#pragma once

#include "spx-render-style.h"
#include "spx-survey.h"

G_BEGIN_DECLS

typedef struct {
  const SpxSurvey *survey;
  const char      *title;   /* NULL: the network's name, from its path */
  gboolean         running; /* layers still arriving: not "interrupted" */
} SpxRenderLayersData;

/* An SpxRenderFunc: data is a SpxRenderLayersData. A row per layer (in
 * the survey's order): its name, then a horizontal bar per source that
 * ran (this CPU, the IPU model; colour tells them apart) to the
 * recommended speedup, labelled with mode, block size and speedup; a
 * layer that should stay dense has a hatched bar to 1× labelled "keep
 * dense"; a skipped layer says why. A dashed line marks 1× (dense). At
 * the bottom the network's total per source and the survey's sentence
 * (spx_survey_describe). Rows shrink to the height given: their labels
 * go when too small to read (spx_render_layers_height is the height at
 * which every one is legible). */
void   spx_render_layers (cairo_t *cr, double width, double height,
                          gconstpointer data, const SpxRenderStyle *style);

/* The height, in logical pixels, that shows every row of survey with its
 * labels at style's font size, and the closing sentence whole at width
 * (its lines break where they would pass it). */
double spx_render_layers_height (const SpxSurvey *survey,
                                 const SpxRenderStyle *style, double width);

G_END_DECLS
