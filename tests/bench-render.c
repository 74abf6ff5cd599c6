/* bench-render.c: how long the two heaviest views take to draw (use a
 * release build).
 *
 *   bench-render [RUNS]        (default 15)
 *
 * Spy plot: a 4096×4096 element mask (block 1, uniform density 1/16) on a
 * 1000×1000 image surface; target ≤ 100 ms. Tile heat map: Bow's 1,472
 * tiles for a static plan of a 4096² mask of 16×16 blocks at density
 * 1/16, n = 1024, on a 1000×700 surface; target ≤ 30 ms. Prints the
 * median and the fastest run of each, in milliseconds. */
#include "spx-render-export.h"
#include "spx-render-mask.h"
#include "spx-render-tiles.h"
#include "spx-ipu.h"
#include "spx-mask-gen.h"

#include <stdio.h>
#include <stdlib.h>

static int
compare (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static void
time_view (const char *name, SpxRenderFunc func, gconstpointer data,
           int w, int h, guint runs)
{
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32,
                                                         w, h);
  g_autofree double *ms = g_new (double, runs);
  for (guint i = 0; i < runs; i++)
    {
      cairo_t *cr = cairo_create (surface);
      gint64 t0 = g_get_monotonic_time ();
      func (cr, w, h, data, &style);
      cairo_surface_flush (surface);
      ms[i] = (g_get_monotonic_time () - t0) / 1000.0;
      cairo_destroy (cr);
    }
  qsort (ms, runs, sizeof *ms, compare);
  printf ("%-40s median %7.2f ms   fastest %7.2f ms   (%u runs)\n", name,
          ms[runs / 2], ms[0], runs);
  cairo_surface_destroy (surface);
}

static SpxMask *
uniform (guint block)
{
  g_autoptr (GError) error = NULL;
  SpxGenOptions opt;
  spx_gen_options_init (&opt);
  opt.density = 1.0 / 16;
  opt.seed = 1;
  SpxMask *mask = spx_mask_generate (4096, 4096, block, &opt, &error);
  if (mask == NULL)
    g_error ("%s", error->message);
  return mask;
}

int
main (int argc, char **argv)
{
  guint runs = argc > 1 ? (guint) MAX (1, atoi (argv[1])) : 15;

  g_autoptr (SpxMask) element = uniform (1);
  SpxRenderMaskData md = { .mask = element, .selected_tile = -1 };
  time_view ("spy plot 4096² b1 1/16 at 1000×1000", spx_render_mask, &md,
             1000, 1000, runs);

  g_autoptr (GError) error = NULL;
  g_autoptr (SpxMask) blocked = uniform (16);
  g_autoptr (SpxIpuMachine) bow = spx_ipu_machine_preset ("bow");
  g_autoptr (SpxIpuProgram) p = spx_ipu_plan_static (bow, blocked, 1024,
                                                     SPX_DTYPE_FP16, &error);
  if (p == NULL)
    g_error ("%s", error->message);
  SpxRenderTilesData td = { .program = p, .metric = SPX_TILE_METRIC_BYTES,
                            .selected_tile = 17 };
  time_view ("tile heat map, bow 1,472 tiles", spx_render_tiles, &td, 1000,
             700, runs);
  td.metric = SPX_TILE_METRIC_EXCHANGE;
  time_view ("tile heat map, exchange metric", spx_render_tiles, &td, 1000,
             700, runs);
  /* the same mask coloured by tile: the block → tile map is built per draw */
  SpxRenderMaskData cd = { .mask = blocked, .program = p,
                           .colour_by_tile = TRUE, .selected_tile = 17 };
  time_view ("spy plot 4096² b16 coloured by tile", spx_render_mask, &cd,
             1000, 1000, runs);
  return 0;
}
