/* spx-render-tiles.c: the tile grid heat map. One filled rectangle per
 * tile: 1,472 of them cost far less than a frame. */
#include "spx-render-tiles.h"
#include "spx-render-views.h"

#include "spx-util.h"

#include <math.h>

/* The layout's font size, so the hit test needs no style. */
#define FS       SPX_RENDER_FONT_SIZE
#define PAD      8.0
#define TITLE_H  (FS * 1.6)
#define LEGEND_H 46.0
#define GAP      6.0
#define TITLE_OPTS ((SpxTextOpts) { .size = 1, .bold = TRUE })

typedef struct {
  guint  cols, rows;
  double gx, gy, cell;  /* grid origin and cell side */
  double legend_y;
} Layout;

/* extra: the room a user's title takes beyond one line. */
static void
layout (double width, double height, const SpxIpuProgram *p, double extra,
        Layout *l)
{
  l->cols = MAX (1, MIN (p->machine->grid_width, p->n_tiles));
  l->rows = MAX (1, (guint) spx_ipu_div_up (p->n_tiles, l->cols));
  double top = PAD + TITLE_H + extra;
  l->legend_y = height - PAD - LEGEND_H;
  double aw = MAX (1, width - 2 * PAD);
  double ah = MAX (1, l->legend_y - GAP - top);
  l->cell = MIN (aw / l->cols, ah / l->rows);
  l->gx = PAD + (aw - l->cell * l->cols) / 2;
  l->gy = top;
}

gint
spx_render_tiles_hit (double width, double height,
                      const SpxRenderTilesData *d, double x, double y)
{
  if (d == NULL || d->program == NULL || d->program->n_tiles == 0)
    return -1;
  Layout l;
  layout (width, height, d->program, 0, &l);
  double c = floor ((x - l.gx) / l.cell), r = floor ((y - l.gy) / l.cell);
  if (!(c >= 0 && c < l.cols && r >= 0 && r < l.rows))
    return -1;
  guint t = (guint) r * l.cols + (guint) c;
  return t < d->program->n_tiles ? (gint) t : -1;
}

double
spx_render_tiles_value (const SpxIpuProgram *p, SpxTileMetric metric, guint t)
{
  g_return_val_if_fail (t < p->n_tiles, 0);
  guint64 sum = 0;
  switch (metric)
    {
    case SPX_TILE_METRIC_CYCLES:
      return (double) p->tiles[t].compute_cycles;
    case SPX_TILE_METRIC_EXCHANGE:
      for (guint i = 0; i < p->steps->len; i++)
        {
          const SpxIpuStep *s = &g_array_index (p->steps, SpxIpuStep, i);
          if (s->kind == SPX_STEP_EXCHANGE && s->bytes_in != NULL)
            sum += s->bytes_in[t] + s->bytes_out[t];
        }
      return (double) sum;
    case SPX_TILE_METRIC_BYTES:
    default:
      return (double) spx_ipu_tile_bytes (&p->tiles[t]);
    }
}

/* "1 block", "2,048 blocks" */
static void
append_count (GString *s, const char *sep, guint64 n, const char *noun)
{
  g_autofree char *count = spx_format_count (n);
  g_string_append_printf (s, "%s%s %s%s", sep, count, noun,
                          n == 1 ? "" : "s");
}

char *
spx_render_tiles_describe (const SpxIpuProgram *p, guint t, const char *sep)
{
  static const char *const kinds[SPX_N_BYTE_KINDS] = {
    [SPX_BYTES_VALUES] = "W values",
    [SPX_BYTES_INDICES] = "W indices",
    [SPX_BYTES_INPUT] = "X slice",
    [SPX_BYTES_PARTIALS] = "partial sums",
    [SPX_BYTES_OUTPUT] = "Y slice",
  };
  if (p == NULL || p->tiles == NULL || t >= p->n_tiles)
    return NULL;
  sep = sep != NULL ? sep : "\n";
  const SpxIpuTile *tile = &p->tiles[t];
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "Tile %u", t);
  g_autofree char *blocks = spx_ipu_tile_blocks_text (p, t, sep);
  if (blocks != NULL) /* dense has no blocks; an idle tile says 0 */
    g_string_append_printf (s, "%s%s", sep, blocks);
  g_autofree char *total = spx_format_bytes (
    (double) spx_ipu_tile_bytes (tile));
  g_string_append_printf (s, "%s%s", sep, total);
  if (p->machine != NULL)
    {
      g_autofree char *sram = spx_format_bytes (
        (double) p->machine->sram_bytes);
      g_string_append_printf (s, " of %s", sram);
    }
  for (guint k = 0; k < SPX_N_BYTE_KINDS; k++)
    if (tile->bytes[k] > 0)
      {
        g_autofree char *size = spx_format_bytes ((double) tile->bytes[k]);
        g_string_append_printf (s, "%s%s: %s", sep, kinds[k], size);
      }
  append_count (s, sep, tile->compute_cycles, "compute cycle");
  append_count (s, sep, tile->macs, "MAC");
  return g_string_free (s, FALSE);
}

static const char *
metric_title (SpxTileMetric metric)
{
  switch (metric)
    {
    case SPX_TILE_METRIC_CYCLES:
      return "compute cycles per tile";
    case SPX_TILE_METRIC_EXCHANGE:
      return "exchange bytes per tile";
    case SPX_TILE_METRIC_BYTES:
    default:
      return "memory per tile";
    }
}

static char *
format_value (SpxTileMetric metric, double v)
{
  return metric == SPX_TILE_METRIC_CYCLES ? spx_render_format_count (v)
                                          : spx_render_format_bytes (v);
}

/* ------------------------------------------------------------------ */

typedef struct {
  double  *values;
  double   top;       /* the scale's maximum */
  guint    over;      /* tiles over the memory budget */
  guint    used;
  guint64  budget;
} Figures;

static void
figures_init (Figures *f, const SpxIpuProgram *p, SpxTileMetric metric)
{
  f->values = g_new (double, MAX (p->n_tiles, 1));
  f->budget = spx_ipu_tile_budget (p->machine);
  f->top = 0;
  f->over = f->used = 0;
  for (guint t = 0; t < p->n_tiles; t++)
    {
      guint64 bytes = spx_ipu_tile_bytes (&p->tiles[t]);
      f->values[t] = spx_render_tiles_value (p, metric, t);
      f->top = MAX (f->top, f->values[t]);
      f->over += !spx_ipu_tile_fits (p->machine, (double) bytes,
                                     (double) p->tiles[t].bytes[
                                       SPX_BYTES_OUTPUT]);
      f->used += bytes > 0 || p->tiles[t].macs > 0;
    }
  if (metric == SPX_TILE_METRIC_BYTES) /* over SRAM shows as full */
    f->top = (double) p->machine->sram_bytes;
  if (!(f->top > 0))
    f->top = 1;
}

/* Over memory: small cells turn wholly alert, larger ones keep their
 * heat and get an alert outline and cross, which reads in grey too. */
static void
mark_over (cairo_t *cr, double x, double y, double w,
           const SpxRenderStyle *style)
{
  spx_render_set_rgb (cr, style->alert);
  if (w < 8)
    {
      cairo_rectangle (cr, x, y, w, w);
      cairo_fill (cr);
      return;
    }
  double lw = MAX (1.5, w / 10), in = lw / 2;
  cairo_set_line_width (cr, lw);
  cairo_rectangle (cr, x + in, y + in, w - lw, w - lw);
  cairo_move_to (cr, x + in, y + in);
  cairo_line_to (cr, x + w - in, y + w - in);
  cairo_move_to (cr, x + w - in, y + in);
  cairo_line_to (cr, x + in, y + w - in);
  cairo_stroke (cr);
}

static void
draw_grid (cairo_t *cr, const Layout *l, const SpxIpuProgram *p,
           const Figures *f, const SpxRenderStyle *style)
{
  double gap = l->cell >= 6 ? 1 : 0, w = l->cell - gap;
  cairo_save (cr);
  for (guint t = 0; t < p->n_tiles; t++)
    {
      double x = l->gx + (t % l->cols) * l->cell;
      double y = l->gy + (t / l->cols) * l->cell;
      gboolean used = spx_ipu_tile_bytes (&p->tiles[t]) > 0 ||
                      p->tiles[t].macs > 0;
      /* unused tiles in the panel colour: "nothing here" is not "low" */
      spx_render_set_rgb (cr, used ? spx_render_heat (style,
                                                      f->values[t] / f->top)
                                   : style->panel);
      cairo_rectangle (cr, x, y, w, w);
      cairo_fill (cr);
      if (spx_ipu_tile_bytes (&p->tiles[t]) > f->budget)
        mark_over (cr, x, y, w, style);
    }
  cairo_restore (cr);
}

static void
draw_selected (cairo_t *cr, const Layout *l, guint t,
               const SpxRenderStyle *style)
{
  double x = l->gx + (t % l->cols) * l->cell;
  double y = l->gy + (t / l->cols) * l->cell;
  double lw = l->cell >= 8 ? 2.5 : 2;
  cairo_save (cr);
  cairo_set_line_width (cr, lw);
  spx_render_set_rgb (cr, style->highlight);
  cairo_rectangle (cr, x - lw / 2, y - lw / 2, l->cell + lw, l->cell + lw);
  cairo_stroke (cr);
  cairo_restore (cr);
}

/* A line of text shrunk (to 70% at most) to fit max_w, then clipped;
 * returns the width drawn. */
static double
fit_text (cairo_t *cr, const SpxRenderStyle *style, double x, double y,
          double max_w, SpxTextOpts *t, const char *text)
{
  double w = spx_render_text_width (cr, style, t->size, text, NULL);
  if (t->bold)
    w *= 1.15; /* text_width measures the regular face */
  if (w > max_w && max_w > 0)
    t->size *= MAX (0.7, max_w / w);
  cairo_save (cr);
  cairo_rectangle (cr, x, y - 2, MAX (0, max_w), FS * 2);
  cairo_clip (cr);
  w = spx_render_text (cr, style, x, y, t, text);
  cairo_restore (cr);
  return MIN (w, max_w);
}

static void
draw_bar (cairo_t *cr, SpxTileMetric metric,
          const Figures *f, double x, double y, double w,
          const SpxRenderStyle *style)
{
  g_autofree char *lo = format_value (metric, 0);
  g_autofree char *hi = format_value (metric, f->top);
  const char *title = metric == SPX_TILE_METRIC_BYTES ? "bytes, 0 to SRAM"
                      : metric == SPX_TILE_METRIC_CYCLES ? "compute cycles"
                      : "bytes in + out";
  spx_render_colour_bar (cr, style, x, y, w, LEGEND_H, title, lo, hi);
  if (metric != SPX_TILE_METRIC_BYTES)
    return;
  /* where the budget lies on the scale */
  double th;
  spx_render_text_width (cr, style, 0.9, "Ag", &th);
  double bx = x + w * MIN (1, f->budget / f->top);
  double bar_y = y + th + 2, bar_h = MAX (4, LEGEND_H - 2 * (th + 2));
  cairo_save (cr);
  cairo_set_line_width (cr, 2);
  spx_render_set_rgb (cr, style->alert);
  cairo_move_to (cr, bx, bar_y - 2);
  cairo_line_to (cr, bx, bar_y + bar_h + 2);
  cairo_stroke (cr);
  cairo_restore (cr);
}

static void
draw_notes (cairo_t *cr, const SpxRenderTilesData *d, const Figures *f,
            double x, double y, double w, const SpxRenderStyle *style)
{
  const SpxIpuProgram *p = d->program;
  double line = FS * 1.25;
  g_autofree char *budget = spx_render_format_bytes ((double) f->budget);
  g_autofree char *over = f->over > 0
    ? g_strdup_printf ("%u over memory (> %s beside Y)", f->over, budget)
    : g_strdup_printf ("memory: all within %s beside Y", budget);
  SpxTextOpts t = { .size = 0.9, .colour = f->over ? style->alert
                                                   : style->muted,
                    .use_colour = TRUE, .bold = f->over > 0 };
  fit_text (cr, style, x, y, w, &t, over);
  g_autofree char *used = g_strdup_printf ("%u of %u tiles used", f->used,
                                           p->n_tiles);
  t = (SpxTextOpts) { .size = 0.9, .colour = style->muted,
                      .use_colour = TRUE };
  fit_text (cr, style, x, y + line, w, &t, used);
  if (d->selected_tile < 0 || (guint) d->selected_tile >= p->n_tiles)
    return;
  g_autofree char *v = format_value (d->metric, f->values[d->selected_tile]);
  g_autofree char *sel = g_strdup_printf ("tile %d: %s", d->selected_tile, v);
  t = (SpxTextOpts) { .size = 0.9, .bold = TRUE };
  fit_text (cr, style, x, y + 2 * line, w, &t, sel);
}

static void
draw_title (cairo_t *cr, const SpxRenderTilesData *d, double width,
            const SpxRenderStyle *style)
{
  const SpxIpuProgram *p = d->program;
  g_autofree char *title = g_strdup_printf (
    "%s · %s · %s", p->machine->name, spx_ipu_mode_to_string (p->mode),
    metric_title (d->metric));
  SpxTextOpts t = TITLE_OPTS;
  if (spx_render_user_title (cr, style, PAD, PAD, &t, width - 2 * PAD))
    return;
  double tw = fit_text (cr, style, PAD, PAD, width - 2 * PAD, &t, title);
  guint gw = MIN (p->machine->grid_width, p->n_tiles);
  g_autofree char *shape = g_strdup_printf (
    " · %u tiles, %u × %u", p->n_tiles, gw,
    (guint) spx_ipu_div_up (p->n_tiles, MAX (1, gw)));
  double th, sh;
  spx_render_text_width (cr, style, 1, "Ag", &th);
  double sw = spx_render_text_width (cr, style, 0.9, shape, &sh);
  if (PAD + tw + sw > width - PAD) /* only when there is room */
    return;
  SpxTextOpts m = { .size = 0.9, .colour = style->muted, .use_colour = TRUE };
  /* roughly on the title's baseline */
  spx_render_text (cr, style, PAD + tw, PAD + (th - sh) * 0.8, &m, shape);
}

void
spx_render_tiles (cairo_t *cr, double width, double height,
                  gconstpointer data, const SpxRenderStyle *style)
{
  const SpxRenderTilesData *d = data;
  spx_render_clear (cr, style, width, height);
  if (d == NULL || d->program == NULL || d->program->n_tiles == 0)
    {
      spx_render_placeholder (cr, style, width, height, "No plan");
      return;
    }
  const SpxIpuProgram *p = d->program;
  SpxTextOpts t = TITLE_OPTS;
  Layout l;
  layout (width, height, p,
          spx_render_user_title_extra (cr, style, &t, width - 2 * PAD), &l);
  Figures f;
  figures_init (&f, p, d->metric);
  draw_grid (cr, &l, p, &f, style);
  if (d->selected_tile >= 0 && (guint) d->selected_tile < p->n_tiles)
    draw_selected (cr, &l, (guint) d->selected_tile, style);
  draw_title (cr, d, width, style);
  double bar_w = MIN (240, (width - 2 * PAD) * 0.42);
  draw_bar (cr, d->metric, &f, PAD, l.legend_y, bar_w, style);
  double nx = PAD + bar_w + 1.5 * FS;
  draw_notes (cr, d, &f, nx, l.legend_y, width - PAD - nx, style);
  g_free (f.values);
}

/* ---- its row in the table of views ------------------------------- */

static void
tiles_fill (const SpxRenderViewState *st, gpointer data)
{
  SpxRenderTilesData *d = data;
  d->program = spx_render_view_shown_program (st);
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

const SpxRenderView spx_render_view_tiles = {
  .name = "tiles", .title = "Tiles",
  .summary = "the IPU's tiles as a heat map",
  .metrics = (const char *const[]) { "bytes", "cycles", "exchange", NULL },
  .needs = SPX_RENDER_VIEW_NEEDS_PLAN,
  .data_size = sizeof (SpxRenderTilesData), .fill = tiles_fill,
  .draw = spx_render_tiles, .hit = tiles_hit, .describe = tiles_describe,
};
