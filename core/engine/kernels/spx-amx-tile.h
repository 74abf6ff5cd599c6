/* spx-amx-tile.h: the layout ldtilecfg reads (palette 1), for the AMX
 * kernels and the probe's AMX loop */
#pragma once

#include <glib.h>

typedef struct {
  guint8  palette;
  guint8  start_row;
  guint8  reserved[14];
  guint16 colsb[16];
  guint8  rows[16];
} __attribute__ ((packed)) SpxTileConfig;
