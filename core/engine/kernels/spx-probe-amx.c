/* spx-probe-amx.c: tdpbf16ps's peak on tiles already in registers
 * (compiled with AMX). The caller has asked Linux for the tile state
 * (spx_isa_supported). */
#include "spx-probe.h"

#include "spx-amx-tile.h"

#include <immintrin.h>
#include <string.h>

double
spx_probe_amx (guint64 iters, float *keep)
{
  SpxTileConfig cfg = { .palette = 1 };
  for (guint t = 0; t < 6; t++) /* 0–3: C 16 × 16 fp32; 4, 5: A, B */
    {
      cfg.rows[t] = 16;
      cfg.colsb[t] = 64;
    }
  _tile_loadconfig (&cfg);
  static float zero[16 * 16];
  guint16 ones[16 * 32];
  for (guint i = 0; i < G_N_ELEMENTS (ones); i++)
    ones[i] = 0x3380; /* 2^-24: the sums stay small */
  _tile_loadd (0, zero, 64);
  _tile_loadd (1, zero, 64);
  _tile_loadd (2, zero, 64);
  _tile_loadd (3, zero, 64);
  _tile_loadd (4, ones, 64);
  _tile_loadd (5, ones, 64);
  for (guint64 it = 0; it < iters; it++)
    { /* four C tiles: the unit's latency hidden */
      _tile_dpbf16ps (0, 4, 5);
      _tile_dpbf16ps (1, 4, 5);
      _tile_dpbf16ps (2, 4, 5);
      _tile_dpbf16ps (3, 4, 5);
    }
  float out[16 * 16];
  _tile_stored (0, out, 64);
  _tile_release ();
  *keep += out[0];
  return (double) iters * 4 * 16 * 16 * 32 * 2;
}
