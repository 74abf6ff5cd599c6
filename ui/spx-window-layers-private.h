/* spx-window-layers-private.h: what the Layers page's files share:
 * spx-window-layers.c (the network, the survey, the rows) and
 * spx-window-layers-page.c (its widgets) */
#pragma once

#include "spx-window-private.h"

G_BEGIN_DECLS

/* The columns of the page's store. */
enum {
  COL_NAME,
  COL_SHAPE, COL_SIZE,
  COL_DENSITY, COL_DENSITY_KEY,
  COL_BLOCKS, COL_BLOCKS_KEY,
  COL_CPU, COL_CPU_KEY,
  COL_MODEL, COL_MODEL_KEY,
  COL_SHARE, COL_SHARE_KEY,
  COL_TIP,   /* markup */
  COL_LAYER, /* not skipped: drawn normally, can be studied */
  COL_ENTRY, /* in the network open; -1: none */
  N_COLS
};

/* The network listed, or NULL. */
SpxNetwork *_spx_window_layers_network (SpxWindow *w);
/* What entry i of the sources list runs. */
void        _spx_window_layers_source  (gint i, gboolean *model,
                                        gboolean *cpu);
/* The page's size-allocate: the chart follows its width. */
void        _spx_window_layers_allocated (GtkWidget *paned,
                                          GdkRectangle *area, SpxWindow *w);
/* The rows as the filter shows them: skipped entries when asked. */
void        _spx_window_layers_refilter (SpxWindow *w);

G_END_DECLS
