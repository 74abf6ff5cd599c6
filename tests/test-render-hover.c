/* test-render-hover.c: what hovering says (a timeline superstep, a
 * speedup marker), the timeline's step names, and its labels for steps
 * too narrow to hold them */
#include "spx-ipu.h"
#include "spx-ipu-cost.h"
#include "test-ipu-check.h"
#include "spx-mask-gen.h"
#include "spx-render-export.h"
#include "spx-render-speedup.h"
#include "spx-render-timeline.h"
#include "spx-render-views.h"

#include <math.h>
#include <string.h>

/* ---- timeline fixtures ---- */

/* teach16, a static program of seven steps whose cycles are known:
 *   1 distribute exchange  tile 0 sends 4096 B: 100 + 4096 / 4 = 1124
 *   2 distribute sync      90
 *   3 compute              tile 3 the slowest at 2000
 *   4 reduce exchange      tile 0 receives 800 B: 100 + 800 / 4 = 300
 *   5 reduce compute       terms given: 30 + 120 = 150, about tile 0
 *   6 reduce sync          90
 *   7 zero-fill compute    tile 9 at 70
 * 3,824 cycles in all. */
static SpxIpuProgram *
known_static (void)
{
  g_autoptr (SpxIpuMachine) m = spx_ipu_machine_preset ("teach16");
  g_assert_nonnull (m);
  SpxIpuProgram *p = spx_ipu_program_new (SPX_IPU_MODE_STATIC, m, 64, 64, 16,
                                          16, SPX_DTYPE_FP16, 0.25);
  SpxIpuStep *s = spx_ipu_program_add_exchange (p, "distribute");
  spx_ipu_step_send (p, s, 0, 5, 4096);
  spx_ipu_program_add_sync (p, "distribute");
  s = spx_ipu_program_add_compute (p, "compute");
  s->tile_cycles[3] = 2000;
  s->tile_cycles[7] = 1500;
  s = spx_ipu_program_add_exchange (p, "reduce");
  spx_ipu_step_send (p, s, 3, 0, 800);
  s = spx_ipu_program_add_compute (p, "reduce");
  spx_ipu_terms_add (s->terms, "vertex start", 30, "30");
  spx_ipu_terms_add (s->terms, "additions", 120, "%u × %u", 2, 60);
  s->worst_tile = 0;
  spx_ipu_program_add_sync (p, "reduce");
  s = spx_ipu_program_add_compute (p, "zero-fill");
  s->tile_cycles[9] = 70;
  spx_ipu_program_finish (p);
  g_assert_cmpuint (p->cycles, ==, 3824);
  return p;
}

/* A 90-cycle sync beside 300,000 cycles of compute. */
static SpxIpuProgram *
long_compute (void)
{
  g_autoptr (SpxIpuMachine) m = spx_ipu_machine_preset ("teach16");
  SpxIpuProgram *p = spx_ipu_program_new (SPX_IPU_MODE_DENSE, m, 64, 64, 16,
                                          16, SPX_DTYPE_FP16, 1);
  spx_ipu_program_add_sync (p, "sync");
  SpxIpuStep *s = spx_ipu_program_add_compute (p, "compute");
  s->tile_cycles[0] = 300000;
  spx_ipu_program_finish (p);
  return p;
}

static void
free_programs (SpxIpuProgram *p[SPX_IPU_N_MODES])
{
  for (guint i = 0; i < SPX_IPU_N_MODES; i++)
    spx_ipu_program_free (p[i]);
}

/* ---- timeline: the hover text ---- */

/* The panel under the axis cuts a long formula short; hovering it says
 * the whole explanation of the selected step. */
static void
test_timeline_describe_panel (void)
{
  g_autoptr (SpxIpuMachine) m = spx_ipu_machine_preset ("teach16");
  g_autoptr (SpxIpuProgram) p = spx_ipu_program_new (
    SPX_IPU_MODE_STATIC, m, 64, 64, 16, 16, SPX_DTYPE_FP16, 0.25);
  SpxIpuStep *s = spx_ipu_program_add_compute (p, "compute");
  g_autofree char *longer = g_strnfill (200, 'x');
  spx_ipu_terms_add (s->terms, "blocks", 500, "a formula %s end", longer);
  spx_ipu_program_finish (p);
  SpxRenderTimelineData d = { { NULL, p, NULL }, 0, SPX_IPU_MODE_STATIC, 0, 0,
                              FALSE };
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  gboolean whole = FALSE;
  for (double y = 0; y < 600 && !whole; y += 2)
    {
      g_autofree char *text = spx_render_view_timeline.describe (
        480, 600, &d, &style, 240, y);
      whole = text != NULL && g_str_has_prefix (text, "Superstep 1") &&
              strstr (text, longer) != NULL;
    }
  g_assert_true (whole);
  d.selected_superstep = -1; /* nothing selected: the panel only hints */
  for (double y = 0; y < 600; y += 2)
    {
      g_autofree char *text = spx_render_view_timeline.describe (
        480, 600, &d, &style, 240, y);
      g_assert_true (text == NULL || strstr (text, "Click") != NULL);
    }
}

static void
assert_describes (const SpxRenderTimelineData *d, guint lane, gint step,
                  const char *want)
{
  g_autofree char *text = spx_render_timeline_describe (d, lane, step);
  g_assert_cmpstr (text, ==, want);
}

static void
test_timeline_describe (void)
{
  g_autoptr (SpxIpuProgram) p = known_static ();
  SpxRenderTimelineData d = { { NULL, p, NULL }, -1, -1, 0, 0, FALSE };
  assert_describes (&d, SPX_IPU_MODE_STATIC, 0,
                    "static · Superstep 1: distribute exchange\n"
                    "1,124 cycles · 29.4% of 3,824 cycles\n"
                    "busiest tile: 0\n"
                    "exchange overhead — 1 round × 100 cycles — 100 cycles\n"
                    "    a fixed 100 cycles to start each of 1 round of "
                    "sending\n"
                    "busiest tile sends — 4.0 KiB at 4 B/cycle — "
                    "1,024 cycles\n"
                    "    the tile that sends most sends 4.0 KiB, 4 bytes a "
                    "cycle");
  assert_describes (&d, SPX_IPU_MODE_STATIC, 1,
                    "static · Superstep 2: distribute sync\n"
                    "90 cycles · 2.4% of 3,824 cycles\n"
                    "sync — one on-chip sync — 90 cycles\n"
                    "    1 sync of 90 cycles, each waiting until every tile "
                    "is done");
  assert_describes (&d, SPX_IPU_MODE_STATIC, 2,
                    "static · Superstep 3: compute\n"
                    "2,000 cycles · 52.3% of 3,824 cycles\n"
                    "slowest tile: 3\n"
                    "slowest tile — tile 3 — 2,000 cycles\n"
                    "    the cycles of tile 3, the slowest, whose planner "
                    "gave no breakdown");
  assert_describes (&d, SPX_IPU_MODE_STATIC, 3,
                    "static · Superstep 4: reduce exchange\n"
                    "300 cycles · 7.8% of 3,824 cycles\n"
                    "busiest tile: 0\n"
                    "exchange overhead — 1 round × 100 cycles — 100 cycles\n"
                    "    a fixed 100 cycles to start each of 1 round of "
                    "sending\n"
                    "busiest tile receives — 800 B at 4 B/cycle — "
                    "200 cycles\n"
                    "    the tile that receives most receives 800 B, 4 bytes "
                    "a cycle");
  assert_describes (&d, SPX_IPU_MODE_STATIC, 4,
                    "static · Superstep 5: reduce compute\n"
                    "150 cycles · 3.9% of 3,824 cycles\n"
                    "slowest tile: 0\n"
                    "vertex start — 30 — 30 cycles\n"
                    "additions — 2 × 60 — 120 cycles");
  assert_describes (&d, SPX_IPU_MODE_STATIC, 6,
                    "static · Superstep 7: zero-fill compute\n"
                    "70 cycles · 1.8% of 3,824 cycles\n"
                    "slowest tile: 9\n"
                    "slowest tile — tile 9 — 70 cycles\n"
                    "    the cycles of tile 9, the slowest, whose planner "
                    "gave no breakdown");
  /* the selection does not change what hovering says */
  d.selected_superstep = 2;
  d.selected_lane = SPX_IPU_MODE_STATIC;
  assert_describes (&d, SPX_IPU_MODE_STATIC, 1,
                    "static · Superstep 2: distribute sync\n"
                    "90 cycles · 2.4% of 3,824 cycles\n"
                    "sync — one on-chip sync — 90 cycles\n"
                    "    1 sync of 90 cycles, each waiting until every tile "
                    "is done");
}

/* A sliver of a long program, and a step nobody explained. */
static void
test_timeline_describe_edges (void)
{
  g_autoptr (SpxIpuProgram) dense = long_compute ();
  SpxRenderTimelineData d = { { dense, NULL, NULL }, -1, -1, 0, 0, FALSE };
  assert_describes (&d, SPX_IPU_MODE_DENSE, 0,
                    "dense · Superstep 1: sync\n"
                    "90 cycles · <0.1% of 300,090 cycles\n"
                    "sync — one on-chip sync — 90 cycles\n"
                    "    1 sync of 90 cycles, each waiting until every tile "
                    "is done");
  assert_describes (&d, SPX_IPU_MODE_DENSE, 1,
                    "dense · Superstep 2: compute\n"
                    "300,000 cycles · 100.0% of 300,090 cycles\n"
                    "slowest tile: 0\n"
                    "slowest tile — tile 0 — 300,000 cycles\n"
                    "    the cycles of tile 0, the slowest, whose planner "
                    "gave no breakdown");
  /* a compute step where no tile works: no cycles, no terms */
  g_autoptr (SpxIpuMachine) m = spx_ipu_machine_preset ("teach16");
  g_autoptr (SpxIpuProgram) idle = spx_ipu_program_new (
    SPX_IPU_MODE_DYNAMIC, m, 64, 64, 16, 16, SPX_DTYPE_FP16, 0.25);
  spx_ipu_program_add_compute (idle, "propagate");
  spx_ipu_program_finish (idle);
  d.programs[SPX_IPU_MODE_DYNAMIC] = idle;
  assert_describes (&d, SPX_IPU_MODE_DYNAMIC, 0,
                    "dynamic · Superstep 1: propagate compute\n"
                    "0 cycles\n"
                    "no breakdown of these cycles");
}

static void
test_timeline_describe_out_of_range (void)
{
  g_autoptr (SpxIpuProgram) p = known_static ();
  SpxRenderTimelineData d = { { NULL, p, NULL }, 2, 1, 0, 0, FALSE };
  static const struct { guint lane; gint step; } bad[] = {
    { SPX_IPU_MODE_STATIC, 7 }, { SPX_IPU_MODE_STATIC, -1 },
    { SPX_IPU_MODE_STATIC, G_MAXINT }, { SPX_IPU_MODE_STATIC, G_MININT },
    { SPX_IPU_MODE_DENSE, 0 }, { SPX_IPU_MODE_DYNAMIC, 0 },
    { SPX_IPU_N_MODES, 0 }, { G_MAXUINT, 0 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    g_assert_null (spx_render_timeline_describe (&d, bad[i].lane,
                                                 bad[i].step));
  g_assert_null (spx_render_timeline_describe (NULL, 1, 0));
}

/* ---- timeline: step names ---- */

static char *
name_of (const SpxIpuProgram *p, guint step)
{
  return spx_ipu_step_name (&g_array_index (p->steps,
                                                        SpxIpuStep, step));
}

static void
test_timeline_names (void)
{
  g_autoptr (SpxIpuProgram) p = known_static ();
  static const char *const want[] = {
    "distribute exchange", "distribute sync", "compute", "reduce exchange",
    "reduce compute", "reduce sync", "zero-fill compute",
  };
  g_assert_cmpuint (p->steps->len, ==, G_N_ELEMENTS (want));
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    {
      g_autofree char *name = name_of (p, i);
      g_assert_cmpstr (name, ==, want[i]);
    }
  g_assert_null (spx_ipu_step_name (NULL));
  /* real plans: two steps share a name only when they share phase and
   * kind (dense syncs twice), across all three programs */
  SpxIpuProgram *real[SPX_IPU_N_MODES];
  test_ipu_real_programs (real);
  for (guint m = 0; m < SPX_IPU_N_MODES; m++)
    for (guint n = 0; n < SPX_IPU_N_MODES; n++)
      for (guint i = 0; i < real[m]->steps->len; i++)
        for (guint j = 0; j < real[n]->steps->len; j++)
          {
            const SpxIpuStep *a = &g_array_index (real[m]->steps, SpxIpuStep,
                                                  i);
            const SpxIpuStep *b = &g_array_index (real[n]->steps, SpxIpuStep,
                                                  j);
            g_autofree char *na = name_of (real[m], i);
            g_autofree char *nb = name_of (real[n], j);
            g_assert_cmpint (g_str_equal (na, nb), ==,
                             a->kind == b->kind &&
                             g_str_equal (a->phase, b->phase));
          }
  /* the two reduce steps of the static and the dense plan */
  for (guint m = SPX_IPU_MODE_DENSE; m <= SPX_IPU_MODE_STATIC; m++)
    {
      const SpxIpuProgram *q = real[m];
      guint reduce_ex = G_MAXUINT, reduce_add = G_MAXUINT;
      for (guint i = 0; i < q->steps->len; i++)
        {
          const SpxIpuStep *s = &g_array_index (q->steps, SpxIpuStep, i);
          if (g_str_equal (s->phase, "reduce") &&
              s->kind == SPX_STEP_EXCHANGE)
            reduce_ex = i;
          if (g_str_equal (s->phase, "reduce") && s->kind == SPX_STEP_COMPUTE)
            reduce_add = i;
        }
      g_assert_cmpuint (reduce_ex, <, q->steps->len);
      g_assert_cmpuint (reduce_add, <, q->steps->len);
      g_autofree char *ex = name_of (q, reduce_ex);
      g_autofree char *add = name_of (q, reduce_add);
      g_assert_cmpstr (ex, ==, "reduce exchange");
      g_assert_cmpstr (add, ==, "reduce compute");
    }
  /* the dynamic plan's propagation: an exchange and a compute */
  const SpxIpuProgram *dyn = real[SPX_IPU_MODE_DYNAMIC];
  for (guint i = 0; i < dyn->steps->len; i++)
    {
      const SpxIpuStep *s = &g_array_index (dyn->steps, SpxIpuStep, i);
      if (!g_str_equal (s->phase, "propagate"))
        continue;
      g_autofree char *name = name_of (dyn, i);
      g_assert_cmpstr (name, ==, s->kind == SPX_STEP_EXCHANGE
                                   ? "propagate exchange"
                                   : "propagate compute");
    }
  free_programs (real);
}

/* ---- timeline: labels for narrow steps ---- */

typedef struct {
  cairo_surface_t *surface;
  guint8 *data;
  int stride, width, height;
} Image;

static Image
draw (SpxRenderFunc func, gconstpointer data, const SpxRenderStyle *style,
      double w, double h)
{
  Image im = { .width = (int) w, .height = (int) h };
  im.surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, im.width,
                                           im.height);
  cairo_t *cr = cairo_create (im.surface);
  func (cr, w, h, data, style);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
  cairo_surface_flush (im.surface);
  im.data = cairo_image_surface_get_data (im.surface);
  im.stride = cairo_image_surface_get_stride (im.surface);
  return im;
}

static guint32
pixel (const Image *im, int x, int y)
{
  return *(guint32 *) (gpointer) (im->data + y * im->stride + x * 4) &
         0xffffff;
}

/* Text in the box: pixels unlike the box's commonest colour (its ground,
 * the bar's or the picture's). A box of one colour has none. */
static guint
ink_in (const Image *im, const cairo_rectangle_t *b)
{
  g_autoptr (GHashTable) counts = g_hash_table_new (NULL, NULL);
  guint total = 0, most = 0;
  for (int y = (int) ceil (b->y); y < (int) floor (b->y + b->height); y++)
    for (int x = (int) ceil (b->x); x < (int) floor (b->x + b->width); x++)
      {
        gpointer key = GUINT_TO_POINTER (pixel (im, x, y));
        guint n = GPOINTER_TO_UINT (g_hash_table_lookup (counts, key)) + 1;
        g_hash_table_insert (counts, key, GUINT_TO_POINTER (n));
        most = MAX (most, n);
        total++;
      }
  return total - most;
}

static gboolean
boxes_overlap (const cairo_rectangle_t *a, const cairo_rectangle_t *b)
{
  return a->x < b->x + b->width && b->x < a->x + a->width &&
         a->y < b->y + b->height && b->y < a->y + a->height;
}

/* The labels of a lane that are there lie in the picture, apart; returns
 * how many there are. */
static guint
check_lane_labels (double w, double h, const SpxRenderTimelineData *d,
                   guint lane)
{
  const SpxIpuProgram *p = d->programs[lane];
  g_autofree cairo_rectangle_t *boxes = g_new0 (cairo_rectangle_t,
                                                p->steps->len);
  g_autofree gboolean *has = g_new0 (gboolean, p->steps->len);
  guint n = 0;
  for (guint i = 0; i < p->steps->len; i++)
    {
      has[i] = spx_render_timeline_label_box (w, h, d, lane, i, &boxes[i]);
      if (!has[i])
        continue;
      n++;
      g_assert_cmpfloat (boxes[i].x, >=, 0);
      g_assert_cmpfloat (boxes[i].x + boxes[i].width, <=, w);
      g_assert_cmpfloat (boxes[i].width, >, 0);
      for (guint j = 0; j < i; j++)
        g_assert_false (has[j] && boxes_overlap (&boxes[i], &boxes[j]));
    }
  return n;
}

/* Every step of the teach16 static plan named in a 900 × 500 picture of
 * all three: most too narrow for their names, which go under the bar;
 * there is ink where each name is. */
static void
test_timeline_narrow_labels (void)
{
  const double w = 900, h = 500;
  SpxIpuProgram *p[SPX_IPU_N_MODES];
  test_ipu_real_programs (p);
  SpxRenderTimelineData d = { { p[0], p[1], p[2] }, -1, -1, 0, 0, FALSE };
  const SpxIpuProgram *st = p[SPX_IPU_MODE_STATIC];
  g_assert_cmpuint (st->steps->len, ==, 7);
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  Image im = draw (spx_render_timeline, &d, &style, w, h);
  g_assert_cmpuint (check_lane_labels (w, h, &d, SPX_IPU_MODE_STATIC), ==, 7);
  guint under = 0;
  for (guint i = 0; i < st->steps->len; i++)
    {
      cairo_rectangle_t b;
      g_assert_true (spx_render_timeline_label_box (w, h, &d,
                                                    SPX_IPU_MODE_STATIC, i,
                                                    &b));
      g_assert_cmpuint (ink_in (&im, &b), >=, 10);
      /* a name in its box hits the step there; one under the bar has
       * no step under it or above it (only its leader) */
      gint at = spx_render_timeline_hit (w, h, &d, b.x + b.width / 2,
                                         b.y + b.height / 2, NULL);
      if (at == (gint) i)
        continue;
      g_assert_cmpint (at, ==, -1);
      g_assert_cmpint (spx_render_timeline_hit (w, h, &d, b.x + b.width / 2,
                                                b.y - 2, NULL), ==, -1);
      under++;
    }
  g_assert_cmpuint (under, >=, 5);
  cairo_surface_destroy (im.surface);
  /* the other lanes too, and narrower pictures: labels never collide
   * (some go when there is no room for them all) */
  for (guint m = 0; m < SPX_IPU_N_MODES; m++)
    g_assert_cmpuint (check_lane_labels (w, h, &d, m), >, 0);
  static const double widths[] = { 160, 320, 500, 1600 };
  for (guint i = 0; i < G_N_ELEMENTS (widths); i++)
    for (guint m = 0; m < SPX_IPU_N_MODES; m++)
      check_lane_labels (widths[i], h, &d, m);
  /* no label out of range */
  cairo_rectangle_t b;
  g_assert_false (spx_render_timeline_label_box (w, h, &d, 1, 7, &b));
  g_assert_false (spx_render_timeline_label_box (w, h, &d, 3, 0, &b));
  g_assert_false (spx_render_timeline_label_box (w, h, NULL, 1, 0, &b));
  g_assert_false (spx_render_timeline_label_box (w, h, &d, 1, 0, NULL));
  free_programs (p);
}

/* ---- speedup ---- */

static SpxSweepPoint
model_point (SpxSweepMode mode, guint block, double density, double ms,
             guint64 n, double speedup, double tflops, gboolean fits)
{
  SpxSweepPoint p = { .source = SPX_SWEEP_MODEL, .mode = mode,
                      .block = block, .density = density, .m = 4096,
                      .k = 4096, .n = n, .dtype = SPX_DTYPE_FP16, .ms = ms,
                      .nz_throughput = tflops, .speedup = speedup,
                      .fits = fits, .ms_q1 = ms, .ms_q3 = ms };
  g_strlcpy (p.machine, "bow", sizeof p.machine);
  return p;
}

static SpxSweepPoint
cpu_point (SpxSweepMode mode, guint block, double density, double ms,
           double q1, double q3, double speedup, double gflops,
           SpxNoise noise)
{
  SpxSweepPoint p = { .source = SPX_SWEEP_CPU, .mode = mode, .block = block,
                      .density = density, .m = 2048, .k = 2048, .n = 256,
                      .dtype = SPX_DTYPE_FP32, .ms = ms,
                      .nz_throughput = gflops, .speedup = speedup,
                      .fits = TRUE, .ms_q1 = q1, .ms_q3 = q3,
                      .noise = noise };
  g_strlcpy (p.machine, "cpu-avx2-4t", sizeof p.machine);
  return p;
}

/* Indices of the points of known_sweep. */
enum {
  P_MODEL_DENSE, P_MODEL_STATIC, P_MODEL_DYNAMIC, P_MODEL_WIDE,
  P_CPU_DENSE, P_CPU_STATIC, P_CPU_DYNAMIC, P_CPU_TILEWISE, P_N
};

static SpxSweep *
known_sweep (void)
{
  SpxSweep *sw = spx_sweep_new ();
  SpxSweepPoint pts[P_N] = {
    [P_MODEL_DENSE] = model_point (SPX_SWEEP_DENSE, 16, 1.0 / 16, 0.0716,
                                   2048, 1, 17.8, TRUE),
    [P_MODEL_STATIC] = model_point (SPX_SWEEP_STATIC, 16, 1.0 / 16,
                                    0.031, 1024, 2.31, 41.2, TRUE),
    [P_MODEL_DYNAMIC] = model_point (SPX_SWEEP_DYNAMIC, 16, 1.0 / 16,
                                     0.05, 512, 1.43, 25.5, FALSE),
    /* no dense at this density in the sweep */
    [P_MODEL_WIDE] = model_point (SPX_SWEEP_STATIC, 16, 0.3, 0.2, 4096,
                                  1.1, 19.6, TRUE),
    [P_CPU_DENSE] = cpu_point (SPX_SWEEP_DENSE, 4, 1.0 / 8, 3.0, 2.9, 3.2,
                               1, 5.7, SPX_NOISE_NONE),
    [P_CPU_STATIC] = cpu_point (SPX_SWEEP_STATIC, 4, 1.0 / 8, 2.0, 1.9,
                                2.1, 1.5, 12.5, SPX_NOISE_BUSY |
                                SPX_NOISE_DENSE_SLOW),
    [P_CPU_DYNAMIC] = cpu_point (SPX_SWEEP_DYNAMIC, 4, 1.0 / 8, 150, 0, 0,
                                 0.02, 0.1, SPX_NOISE_NONE),
    [P_CPU_TILEWISE] = cpu_point (SPX_SWEEP_TILEWISE, 4, 1.0 / 8, 0.85, 0.8,
                                  0.9, 3.53, 29.4, SPX_NOISE_NONE),
  };
  g_strlcpy (pts[P_CPU_STATIC].kernel, "avx2", sizeof pts[0].kernel);
  pts[P_CPU_STATIC].kernel_choice = SPX_KERNEL_MEASURED;
  g_array_append_vals (sw->points, pts, P_N);
  return sw;
}

static void
assert_point (const SpxRenderSpeedupData *d, guint i, const char *want)
{
  g_autofree char *text = spx_render_speedup_describe (d, i);
  g_assert_cmpstr (text, ==, want);
}

static void
test_speedup_describe (void)
{
  g_autoptr (SpxSweep) sw = known_sweep ();
  SpxRenderSpeedupData d = { .sweep = sw };
  assert_point (&d, P_MODEL_STATIC,
                "IPU model (bow) · 16 × 16 blocks · static\n"
                "density 1/16 (6.25%)\n"
                "2.31× over dense · 41.2 non-zero TFLOP/s\n"
                "static 0.031 ms at n 1,024; dense 0.0716 ms at n 2,048\n"
                "no spread: a model\n"
                "fits every tile's memory");
  assert_point (&d, P_MODEL_DYNAMIC,
                "IPU model (bow) · 16 × 16 blocks · dynamic\n"
                "density 1/16 (6.25%)\n"
                "1.43× over dense · 25.5 non-zero TFLOP/s\n"
                "dynamic 0.05 ms at n 512; dense 0.0716 ms at n 2,048\n"
                "no spread: a model\n"
                "over memory: the plan does not fit");
  assert_point (&d, P_MODEL_WIDE,
                "IPU model (bow) · 16 × 16 blocks · static\n"
                "density 30%\n"
                "1.10× over dense · 19.6 non-zero TFLOP/s\n"
                "static 0.2 ms at n 4,096\n"
                "no spread: a model\n"
                "fits every tile's memory");
  assert_point (&d, P_CPU_STATIC,
                "CPU measured (avx2-4t) · 4 × 4 blocks · static\n"
                "density 1/8 (12.5%)\n"
                "1.50× over dense · 12.5 non-zero GFLOP/s\n"
                "kernels avx2 (measured)\n"
                "static 2 ms at n 256; dense 3 ms at n 256\n"
                "quartiles 1.9–2.1 ms\n"
                "noisy (dense-slow, busy): not a result");
  assert_point (&d, P_CPU_DYNAMIC,
                "CPU measured (avx2-4t) · 4 × 4 blocks · dynamic\n"
                "density 1/8 (12.5%)\n"
                "0.02× over dense · 0.1 non-zero GFLOP/s\n"
                "dynamic 150 ms at n 256; dense 3 ms at n 256\n"
                "no quartiles measured");
  assert_point (&d, P_CPU_TILEWISE,
                "CPU measured (avx2-4t) · 4 × 4 blocks · tile-wise\n"
                "density 1/8 (12.5%)\n"
                "3.53× over dense · 29.4 non-zero GFLOP/s\n"
                "tile-wise 0.85 ms at n 256; dense 3 ms at n 256\n"
                "quartiles 0.8–0.9 ms");
  assert_point (&d, P_CPU_DENSE,
                "CPU measured (avx2-4t) · 4 × 4 blocks · dense\n"
                "density 1/8 (12.5%)\n"
                "1.00× over dense · 5.7 non-zero GFLOP/s\n"
                "dense 3 ms at n 256\n"
                "quartiles 2.9–3.2 ms");
  /* with the per-round ratios' quartiles as well */
  SpxSweepPoint *t = &g_array_index (sw->points, SpxSweepPoint,
                                     P_CPU_TILEWISE);
  t->speedup_q1 = 3.2;
  t->speedup_q3 = 3.71;
  assert_point (&d, P_CPU_TILEWISE,
                "CPU measured (avx2-4t) · 4 × 4 blocks · tile-wise\n"
                "density 1/8 (12.5%)\n"
                "3.53× over dense · 29.4 non-zero GFLOP/s\n"
                "tile-wise 0.85 ms at n 256; dense 3 ms at n 256\n"
                "quartiles 0.8–0.9 ms; ratio 3.20–3.71×");
  g_assert_null (spx_render_speedup_describe (&d, P_N));
  g_assert_null (spx_render_speedup_describe (&d, G_MAXUINT));
  g_assert_null (spx_render_speedup_describe (NULL, 0));
  SpxRenderSpeedupData none = { 0 };
  g_assert_null (spx_render_speedup_describe (&none, 0));
}

/* Where spx_render_speedup draws point i's marker. */
static void
marker_at (double w, double h, const SpxRenderSpeedupData *d,
           const SpxRenderStyle *style, guint i, double *x, double *y)
{
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t *cr = cairo_create (s);
  SpxSpeedupAxes ax;
  g_assert_true (spx_render_speedup_axes (cr, w, h, d, style, &ax));
  cairo_destroy (cr);
  cairo_surface_destroy (s);
  const SpxSweepPoint *p = &g_array_index (d->sweep->points, SpxSweepPoint,
                                           i);
  double v = d->throughput ? p->nz_throughput : p->speedup;
  /* the throughput chart puts the model in GFLOP/s beside the CPU */
  if (d->throughput && p->source == SPX_SWEEP_MODEL)
    v *= 1000;
  *x = spx_speedup_axes_point_x (&ax, p);
  *y = spx_speedup_axes_y (&ax, v);
}

static void
check_hits (double w, double h, const SpxRenderSpeedupData *d,
            const SpxRenderStyle *style)
{
  static const guint markers[] = {
    P_MODEL_STATIC, P_MODEL_DYNAMIC, P_MODEL_WIDE, P_CPU_STATIC,
    P_CPU_DYNAMIC, P_CPU_TILEWISE,
  };
  for (guint k = 0; k < G_N_ELEMENTS (markers); k++)
    {
      double x, y;
      marker_at (w, h, d, style, markers[k], &x, &y);
      guint got = G_MAXUINT;
      g_assert_true (spx_render_speedup_hit (w, h, d, style, x, y, &got));
      g_assert_cmpuint (got, ==, markers[k]);
      /* a few pixels off still finds it */
      got = G_MAXUINT;
      g_assert_true (spx_render_speedup_hit (w, h, d, style, x + 4, y - 3,
                                             &got));
      g_assert_cmpuint (got, ==, markers[k]);
    }
  /* the corner of the picture: nothing */
  g_assert_false (spx_render_speedup_hit (w, h, d, style, 2, 2, NULL));
  g_assert_false (spx_render_speedup_hit (w, h, d, style, w - 2, h - 2,
                                          NULL));
}

static void
test_speedup_hit (void)
{
  g_autoptr (SpxSweep) sw = known_sweep ();
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  SpxRenderSpeedupData d = { .sweep = sw };
  check_hits (900, 500, &d, &style);
  check_hits (640, 400, &d, &style);
  d.throughput = TRUE;
  check_hits (900, 500, &d, &style);
  /* 12 px right of the wide point's marker, away from the others */
  d.throughput = FALSE;
  double x, y;
  marker_at (900, 500, &d, &style, P_MODEL_WIDE, &x, &y);
  g_assert_false (spx_render_speedup_hit (900, 500, &d, &style, x + 12, y,
                                          NULL));
  /* no sweep, no points: nothing to hit */
  g_assert_false (spx_render_speedup_hit (900, 500, NULL, &style, x, y,
                                          NULL));
  g_autoptr (SpxSweep) empty = spx_sweep_new ();
  SpxRenderSpeedupData e = { .sweep = empty };
  g_assert_false (spx_render_speedup_hit (900, 500, &e, &style, x, y, NULL));
}

/* A subject re-blocked to 1 … 16: the model's and the CPU's static
 * points (and dense), each block size at its own density. */
static SpxSweep *
subject_sweep (double scale)
{
  static const double density[] = { 0.1, 0.31, 0.69, 0.94, 0.999 };
  SpxSweep *sw = spx_sweep_new ();
  g_autoptr (SpxMask) mask = spx_mask_new (64, 64, 1, NULL);
  spx_mask_set (mask, 0, 0);
  spx_sweep_options_set_subject (&sw->settings, mask, "layer.smtx");
  sw->settings.subject = spx_mask_copy (mask, NULL);
  sw->settings.subject_name = g_strdup ("layer.smtx");
  for (guint b = 0; b < 5; b++)
    {
      SpxSweepPoint pts[] = {
        model_point (SPX_SWEEP_DENSE, 1u << b, density[b], 1, 1024, 1, 10,
                     TRUE),
        model_point (SPX_SWEEP_STATIC, 1u << b, density[b], 1, 1024,
                     scale * (0.5 + b), 10, TRUE),
        cpu_point (SPX_SWEEP_DENSE, 1u << b, density[b], 1, 0.9, 1.1, 1, 5,
                   SPX_NOISE_NONE),
        cpu_point (SPX_SWEEP_STATIC, 1u << b, density[b], 1, 0.9, 1.1,
                   scale * (4 - 0.5 * b), 5, SPX_NOISE_NONE),
      };
      g_array_append_vals (sw->points, pts, G_N_ELEMENTS (pts));
    }
  return sw;
}

/* Against block size: every static marker is found where the axes put
 * it and says its block density; the overlay's markers are not. */
static void
test_speedup_hit_by_block (void)
{
  g_autoptr (SpxSweep) sw = subject_sweep (1);
  g_autoptr (SpxSweep) earlier = subject_sweep (0.1); /* far below */
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  SpxRenderSpeedupData d = { .sweep = sw, .overlay = earlier };
  for (guint i = 0; i < sw->points->len; i++)
    {
      const SpxSweepPoint *p = &g_array_index (sw->points, SpxSweepPoint, i);
      double x, y;
      if (p->mode == SPX_SWEEP_DENSE)
        continue;
      marker_at (900, 500, &d, &style, i, &x, &y);
      guint got = G_MAXUINT;
      g_assert_true (spx_render_speedup_hit (900, 500, &d, &style, x + 3, y,
                                             &got));
      g_assert_cmpuint (got, ==, i);
      g_autofree char *text = spx_render_speedup_describe (&d, got);
      /* "density 31%", "density 1/10 (10%)" */
      g_autofree char *density = g_strdup_printf ("%.3g%%",
                                                  100 * p->density);
      g_assert_nonnull (strstr (text, "\ndensity "));
      g_assert_nonnull (strstr (strstr (text, "\ndensity "), density));
      /* the overlay's marker in the same column: nothing */
      marker_at (900, 500, &(SpxRenderSpeedupData) { .sweep = earlier,
                                                     .overlay = sw },
                 &style, i, &x, &y);
      g_assert_false (spx_render_speedup_hit (900, 500, &d, &style, x, y,
                                              NULL));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/render/hover/timeline-describe", test_timeline_describe);
  g_test_add_func ("/render/hover/timeline-describe-panel",
                   test_timeline_describe_panel);
  g_test_add_func ("/render/hover/timeline-describe-edges",
                   test_timeline_describe_edges);
  g_test_add_func ("/render/hover/timeline-describe-out-of-range",
                   test_timeline_describe_out_of_range);
  g_test_add_func ("/render/hover/timeline-names", test_timeline_names);
  g_test_add_func ("/render/hover/timeline-narrow-labels",
                   test_timeline_narrow_labels);
  g_test_add_func ("/render/hover/speedup-describe", test_speedup_describe);
  g_test_add_func ("/render/hover/speedup-hit", test_speedup_hit);
  g_test_add_func ("/render/hover/speedup-hit-by-block",
                   test_speedup_hit_by_block);
  return g_test_run ();
}
