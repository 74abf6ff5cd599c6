/* spx-render-exchange.c: one superstep of a program, tile by tile. An
 * exchange on a small machine is its tile grid with an arrow per
 * (source, destination) pair; on a large one a group × group heat map of
 * bytes with per-tile in / out bars. A compute step colours each tile by
 * its cycles; a sync shows every tile waiting. An exchange between too
 * many tile pairs to follow is drawn as flows between groups of tiles
 * (blocks of the grid), every pair's arrow one choice away. Geometry depends only on
 * the size, the program, the step and the font size, so the hit test and
 * the hover text (which have no cairo_t) find the boxes the picture
 * draws. */
#include "spx-render-exchange-private.h"
#include "spx-render-views.h"

#include "spx-util.h"

#include <math.h>
#include <string.h>

#define MARGIN 8.0
#define GROUPS_MAX 46 /* heat map rows: 1,472 tiles = 46 groups of 32 */
#define LIST_MAX 8    /* hover lines listed before "and N more" */
#define NAMES_MAX 6   /* tiles named in one hover line */

static GArray *pair_arrows (const SpxIpuStep *s, Totals *t);

/* The grid's columns and rows, and its groups: at most two across and
 * two down. */
static void
grid_shape (Layout *l, const SpxIpuProgram *p)
{
  l->cols = CLAMP (p->machine->grid_width, 1, p->n_tiles);
  l->rows = (p->n_tiles + l->cols - 1) / l->cols;
  l->span_c = (l->cols + 1) / 2;
  l->span_r = (l->rows + 1) / 2;
  l->gcols = (l->cols + l->span_c - 1) / l->span_c;
  l->grows = (l->rows + l->span_r - 1) / l->span_r;
}

static guint
group_at (const Layout *l, guint t)
{
  return t / l->cols / l->span_r * l->gcols + t % l->cols / l->span_c;
}

guint
spx_render_exchange_group (const SpxIpuProgram *p, guint tile)
{
  Layout l;
  grid_shape (&l, p);
  return group_at (&l, tile);
}

static void
layout_grid (Layout *l, const SpxIpuProgram *p, double w, double h)
{
  grid_shape (l, p);
  double foot = l->crowded ? l->line : 0;
  double aw = MAX (1, w - 2 * MARGIN);
  double ah = MAX (1, h - l->top - MARGIN - foot);
  /* cells may be wider than tall: the gaps then hold arrows */
  l->cell_h = ah / l->rows;
  l->cell_w = MIN (aw / l->cols, 2.2 * l->cell_h);
  /* without arrows the boxes have room for their cycles */
  double fill = l->kind == SPX_STEP_EXCHANGE ? 0.45 : 0.62;
  l->box = fill * MIN (l->cell_w, l->cell_h);
  l->x0 = MARGIN + (aw - l->cell_w * l->cols) / 2;
  l->y0 = l->top;
}

static void
layout_large (Layout *l, const SpxIpuProgram *p, double w, double h,
              double fs)
{
  l->group = (p->n_tiles + GROUPS_MAX - 1) / GROUPS_MAX;
  l->n_groups = (p->n_tiles + l->group - 1) / l->group;
  /* bottom up: the two strips and their caption */
  l->sh = CLAMP (h * 0.065, 8, 26);
  l->out_y = h - MARGIN - l->sh;
  l->in_y = l->out_y - 3 - l->sh;
  l->caption_y = l->in_y - 3 - l->line;
  l->sx = MARGIN + 2.6 * fs;
  l->sw = MAX (1, w - MARGIN - l->sx);
  /* the heat map: tick labels left of it and below it, legend right */
  double left = MARGIN + 2.8 * fs, bottom = l->caption_y - 6 - l->line;
  l->lw = CLAMP (w * 0.28, 96, 200);
  double side = MIN (w - MARGIN - l->lw - 12 - left, bottom - l->top);
  l->hs = MAX (8, side);
  l->hx = left;
  l->hy = l->top;
  l->lx = l->hx + l->hs + 12;
  l->lw = MAX (0, w - MARGIN - l->lx);
  l->mcols = CLAMP (p->machine->grid_width, 1, p->n_tiles);
  l->mrows = (p->n_tiles + l->mcols - 1) / l->mcols;
  l->mw = l->hs / l->mcols;
  l->mh = l->hs / l->mrows;
}

static void
layout_compute (Layout *l, const SpxIpuProgram *p, const SpxIpuStep *s,
                double w, double h, double fs, gboolean crowded)
{
  *l = (Layout) { .kind = s->kind, .width = w, .height = h,
                  .crowded = crowded, .extra = l->extra };
  l->line = 1.4 * fs;
  l->top = 6 + 1.15 * l->line + l->extra + 0.95 * l->line + 6;
  l->grid = p->n_tiles <= SPX_RENDER_EXCHANGE_MAX_GRID;
  if (l->grid)
    layout_grid (l, p, w, h);
  else
    layout_large (l, p, w, h, fs);
}

void
_spx_exchange_tile_centre (const Layout *l, guint t, double *x, double *y)
{
  *x = l->x0 + (t % l->cols + 0.5) * l->cell_w;
  *y = l->y0 + (t / l->cols + 0.5) * l->cell_h;
}

/* The step d names when it has what its picture needs, else NULL. */
const SpxIpuStep *
_spx_exchange_shown_step (const SpxRenderExchangeData *d)
{
  if (d == NULL || d->program == NULL || d->program->n_tiles == 0 ||
      d->superstep >= d->program->steps->len)
    return NULL;
  const SpxIpuStep *s = &g_array_index (d->program->steps, SpxIpuStep,
                                        d->superstep);
  switch (s->kind)
    {
    case SPX_STEP_EXCHANGE:
      return s->transfers && s->bytes_in && s->bytes_out ? s : NULL;
    case SPX_STEP_COMPUTE:
      return s->tile_cycles ? s : NULL;
    case SPX_STEP_SYNC:
    default:
      return s;
    }
}

/* The selected tile, or -1 for none or one out of range. */
gint
_spx_exchange_selection (const SpxRenderExchangeData *d)
{
  return d->selected_tile >= 0 &&
         d->selected_tile < (gint) d->program->n_tiles ? d->selected_tile
                                                       : -1;
}

/* The layout of d's step s: an exchange on a grid between more tile
 * pairs than SPX_RENDER_EXCHANGE_MAX_ARROWS is grouped unless every
 * arrow is asked for or a tile is selected. */
void
_spx_exchange_layout_for (Layout *l, const SpxRenderExchangeData *d,
                          const SpxIpuStep *s, double w, double h,
                          double fs, double extra)
{
  const SpxIpuProgram *p = d->program;
  l->extra = extra;
  gboolean crowded = FALSE;
  if (s->kind == SPX_STEP_EXCHANGE &&
      p->n_tiles <= SPX_RENDER_EXCHANGE_MAX_GRID)
    {
      Totals t = { 0 };
      g_array_unref (pair_arrows (s, &t));
      crowded = t.pairs > SPX_RENDER_EXCHANGE_MAX_ARROWS;
    }
  layout_compute (l, p, s, w, h, fs, crowded);
  l->grouped = crowded && !d->every_arrow && _spx_exchange_selection (d) < 0 &&
               l->gcols * l->grows > 1;
}

gboolean
spx_render_exchange_tile_box (double width, double height,
                              const SpxRenderExchangeData *d, guint tile,
                              double *x, double *y, double *w, double *h)
{
  const SpxIpuStep *s = _spx_exchange_shown_step (d);
  if (s == NULL || tile >= d->program->n_tiles)
    return FALSE;
  Layout l;
  _spx_exchange_layout_for (&l, d, s, width, height, SPX_RENDER_FONT_SIZE, 0);
  if (!l.grid)
    return FALSE;
  double cx, cy;
  _spx_exchange_tile_centre (&l, tile, &cx, &cy);
  *x = cx - l.box / 2;
  *y = cy - l.box / 2;
  *w = *h = l.box;
  return TRUE;
}

/* A tile box of the grid; for a large machine a column of the strips
 * or, when it is drawn, a cell of the tile map. */
static gint
tile_at (const Layout *l, guint n_tiles, double x, double y)
{
  if (l->grid)
    {
      for (guint t = 0; t < n_tiles; t++)
        {
          double cx, cy;
          _spx_exchange_tile_centre (l, t, &cx, &cy);
          if (fabs (x - cx) <= l->box / 2 && fabs (y - cy) <= l->box / 2)
            return (gint) t;
        }
      return -1;
    }
  /* a sync draws no strips */
  if (l->kind != SPX_STEP_SYNC && x >= l->sx && x < l->sx + l->sw &&
      y >= l->in_y && y <= l->out_y + l->sh)
    return (gint) MIN ((guint) ((x - l->sx) / l->sw * n_tiles), n_tiles - 1);
  if (l->kind == SPX_STEP_EXCHANGE || x < l->hx || y < l->hy)
    return -1;
  guint c = (guint) ((x - l->hx) / l->mw), r = (guint) ((y - l->hy) / l->mh);
  if (c >= l->mcols || r >= l->mrows || r * l->mcols + c >= n_tiles)
    return -1;
  return (gint) (r * l->mcols + c);
}

gint
spx_render_exchange_hit (double width, double height,
                         const SpxRenderExchangeData *d, double x, double y)
{
  const SpxIpuStep *s = _spx_exchange_shown_step (d);
  if (s == NULL)
    return -1;
  Layout l;
  _spx_exchange_layout_for (&l, d, s, width, height, SPX_RENDER_FONT_SIZE, 0);
  return tile_at (&l, d->program->n_tiles, x, y);
}

/* ---- words ---- */

/* "1 tile", "2,048 tiles" */
static char *
count_of (guint64 n, const char *one, const char *many)
{
  g_autofree char *c = spx_format_count (n);
  return g_strdup_printf ("%s %s", c, n == 1 ? one : many);
}

/* "tile 3", "tiles 3 and 7", "tiles 1, 2, 3, 4, 5, 6 and 9 more" */
static void
append_tiles (GString *out, const guint32 *tiles, guint n)
{
  g_string_append (out, n == 1 ? "tile " : "tiles ");
  guint named = n > NAMES_MAX + 1 ? NAMES_MAX : n;
  for (guint i = 0; i < named; i++)
    {
      if (i > 0)
        g_string_append (out, i + 1 == n ? " and " : ", ");
      g_string_append_printf (out, "%u", tiles[i]);
    }
  if (named < n)
    g_string_append_printf (out, " and %u more", n - named);
}

/* Transfer i's piece, or NULL when the step keeps none. */
static const SpxIpuPiece *
piece_of (const SpxIpuStep *s, guint i)
{
  return s->pieces && i < s->pieces->len
           ? &g_array_index (s->pieces, SpxIpuPiece, i) : NULL;
}

static const SpxIpuTransfer *
transfer (const SpxIpuStep *s, guint i)
{
  return &g_array_index (s->transfers, SpxIpuTransfer, i);
}

/* What transfer i carries, or its size when the step keeps no pieces. */
static char *
transfer_text (const SpxIpuProgram *p, const SpxIpuStep *s, guint i)
{
  const SpxIpuPiece *w = piece_of (s, i);
  guint64 bytes = transfer (s, i)->bytes;
  return w ? spx_ipu_piece_describe (p, w, bytes)
           : spx_format_bytes ((double) bytes);
}

static gboolean
same_load (const SpxIpuStep *s, guint i, guint j)
{
  const SpxIpuPiece *a = piece_of (s, i), *b = piece_of (s, j);
  if (transfer (s, i)->bytes != transfer (s, j)->bytes)
    return FALSE;
  if (a == NULL || b == NULL)
    return a == b;
  return a->kind == b->kind && a->row0 == b->row0 && a->row1 == b->row1 &&
         a->col0 == b->col0 && a->col1 == b->col1;
}

/* "receives 3.0 KiB from 2 tiles", "sends nothing"; a tile that
 * broadcasts sends its bytes once, however many tiles receive them. */
static char *
traffic_text (const SpxIpuProgram *p, const SpxIpuStep *s, guint t,
              gboolean in)
{
  guint64 bytes = in ? s->bytes_in[t] : s->bytes_out[t], delivered = 0;
  const char *verb = in ? "receives" : "sends";
  g_autofree gboolean *peer = g_new0 (gboolean, p->n_tiles);
  guint peers = 0;
  for (guint i = 0; i < s->transfers->len; i++)
    {
      const SpxIpuTransfer *tr = transfer (s, i);
      guint32 other = in ? tr->src : tr->dst;
      if ((in ? tr->dst : tr->src) != t || other >= p->n_tiles)
        continue;
      delivered += tr->bytes;
      peers += !peer[other];
      peer[other] = TRUE;
    }
  if (bytes == 0 && peers == 0)
    return g_strdup_printf ("%s nothing", verb);
  g_autofree char *size = spx_format_bytes ((double) bytes);
  g_autofree char *whom = count_of (peers, "tile", "tiles");
  if (delivered <= bytes)
    return g_strdup_printf ("%s %s %s %s", verb, size, in ? "from" : "to",
                            whom);
  g_autofree char *all = spx_format_bytes ((double) delivered);
  return g_strdup_printf ("%s %s to %s (broadcast: %s received)", verb,
                          size, whom, all);
}

/* A line per distinct piece tile t receives (in) or sends, naming the
 * tiles at the other end: a broadcast is one line. */
static void
append_loads (GString *out, const SpxIpuProgram *p, const SpxIpuStep *s,
              guint t, gboolean in)
{
  GArray *mine = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < s->transfers->len; i++)
    if ((in ? transfer (s, i)->dst : transfer (s, i)->src) == t)
      g_array_append_val (mine, i);
  g_autofree gboolean *used = g_new0 (gboolean, MAX (mine->len, 1));
  g_autofree guint32 *peers = g_new (guint32, MAX (mine->len, 1));
  guint lines = 0, rest = 0;
  for (guint a = 0; a < mine->len; a++)
    {
      if (used[a])
        continue;
      if (lines++ == LIST_MAX)
        {
          for (guint b = a; b < mine->len; b++)
            rest += !used[b];
          break;
        }
      guint ia = g_array_index (mine, guint, a), n = 0;
      for (guint b = a; b < mine->len; b++)
        {
          guint ib = g_array_index (mine, guint, b);
          if (used[b] || !same_load (s, ia, ib))
            continue;
          used[b] = TRUE;
          peers[n++] = in ? transfer (s, ib)->src : transfer (s, ib)->dst;
        }
      g_autofree char *what = transfer_text (p, s, ia);
      g_string_append_printf (out, "\n  %s %s ", what, in ? "from" : "to");
      append_tiles (out, peers, n);
    }
  if (rest > 0)
    {
      g_autofree char *more = count_of (rest, "more transfer",
                                        "more transfers");
      g_string_append_printf (out, "\n  and %s", more);
    }
  g_array_unref (mine);
}

static char *
exchange_tile_text (const SpxIpuProgram *p, const SpxIpuStep *s, guint t)
{
  GString *out = g_string_new (NULL);
  g_string_printf (out, "Tile %u", t);
  for (int in = 1; in >= 0; in--)
    {
      g_autofree char *head = traffic_text (p, s, t, in);
      g_string_append_printf (out, "\n%s", head);
      append_loads (out, p, s, t, in);
    }
  return g_string_free (out, FALSE);
}

static char *
compute_tile_text (const SpxIpuProgram *p, const SpxIpuStep *s, guint t)
{
  guint32 slow = spx_ipu_step_slowest (p, s);
  guint64 c = s->tile_cycles[t], top = s->tile_cycles[slow];
  g_autofree char *cycles = spx_format_count (c);
  g_autofree char *most = spx_format_count (top);
  GString *out = g_string_new (NULL);
  g_string_printf (out, "Tile %u\n", t);
  if (c == 0)
    g_string_append (out, "idle in this step");
  else if (t == slow)
    g_string_append_printf (out, "%s cycles: the slowest tile", cycles);
  else
    g_string_append_printf (out, "%s cycles, %.0f%% of the slowest "
                            "(tile %u, %s cycles)", cycles,
                            100.0 * (double) c / (double) top, slow, most);
  gboolean products = spx_ipu_tile_count (p, t, SPX_IPU_COUNT_PRODUCTS) > 0;
  g_autofree char *blocks = c > 0 && products
                            ? spx_ipu_tile_blocks_text (p, t, ", ") : NULL;
  if (blocks != NULL)
    g_string_append_printf (out, "\n%s", blocks);
  if (p->tiles[t].macs > 0)
    {
      g_autofree char *macs = spx_format_count (p->tiles[t].macs);
      g_string_append_printf (out, "\n%s multiply-accumulates in the whole "
                              "program", macs);
    }
  return g_string_free (out, FALSE);
}

static char *
sync_tile_text (const SpxIpuStep *s, guint t)
{
  g_autofree char *cycles = count_of (s->cycles, "cycle", "cycles");
  return g_strdup_printf ("Sync: tile %u waits until every tile has "
                          "arrived\n%s", t, cycles);
}

/* ---- title ---- */

static const SpxTextOpts title_opts = { .size = 1.05, .bold = TRUE };

/* Join parts with " · " while they fit in max_w. */
static char *
fit_parts (cairo_t *cr, const SpxRenderStyle *style, double size,
           double max_w, const char *const *parts, guint n)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < n; i++)
    {
      gsize old = s->len;
      if (s->len > 0)
        g_string_append (s, " · ");
      g_string_append (s, parts[i]);
      if (spx_render_text_width (cr, style, size, s->str, NULL) > max_w)
        {
          g_string_truncate (s, old);
          break;
        }
    }
  return g_string_free (s, FALSE);
}

/* The second line of an exchange's title: the selected tile's traffic
 * first, then the step's. */
static GPtrArray *
exchange_caption (const Layout *l, const SpxRenderExchangeData *d,
                  const SpxIpuStep *s, const Totals *t)
{
  GPtrArray *parts = g_ptr_array_new_with_free_func (g_free);
  gint sel = _spx_exchange_selection (d);
  if (sel >= 0)
    {
      g_autofree char *in = traffic_text (d->program, s, (guint) sel, TRUE);
      g_autofree char *out = traffic_text (d->program, s, (guint) sel, FALSE);
      /* two parts: a narrow picture still says what the tile receives */
      g_ptr_array_add (parts, g_strdup_printf ("tile %d: %s", sel, in));
      g_ptr_array_add (parts, g_strdup (out));
    }
  g_autofree char *bytes = spx_format_bytes ((double) t->total);
  g_autofree char *big = spx_format_bytes ((double) t->largest);
  g_ptr_array_add (parts, count_of (s->cycles, "cycle", "cycles"));
  g_ptr_array_add (parts, g_strdup_printf ("%s moved", bytes));
  g_ptr_array_add (parts, count_of (t->pairs, "tile pair", "tile pairs"));
  g_ptr_array_add (parts, g_strdup_printf (l->grid ? "widest arrow %s"
                                                   : "largest pair %s", big));
  return parts;
}

static GPtrArray *
compute_caption (const SpxRenderExchangeData *d, const SpxIpuStep *s)
{
  const SpxIpuProgram *p = d->program;
  GPtrArray *parts = g_ptr_array_new_with_free_func (g_free);
  guint32 slow = spx_ipu_step_slowest (p, s);
  g_autofree char *most = spx_format_count (s->tile_cycles[slow]);
  g_ptr_array_add (parts, g_strdup_printf ("compute: slowest tile %u, %s "
                                           "cycles", slow, most));
  gint sel = _spx_exchange_selection (d);
  if (sel >= 0)
    {
      g_autofree char *c = count_of (s->tile_cycles[sel], "cycle", "cycles");
      g_ptr_array_add (parts, g_strdup_printf ("tile %d: %s", sel, c));
    }
  guint busy = 0;
  for (guint t = 0; t < p->n_tiles; t++)
    busy += s->tile_cycles[t] > 0;
  g_ptr_array_add (parts, g_strdup_printf ("%u of %u tiles busy", busy,
                                           p->n_tiles));
  return parts;
}

static GPtrArray *
sync_caption (const SpxIpuStep *s)
{
  GPtrArray *parts = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (parts, g_strdup ("sync: every tile waits until all "
                                    "have arrived"));
  g_ptr_array_add (parts, count_of (s->cycles, "cycle", "cycles"));
  return parts;
}

static void
draw_title (cairo_t *cr, const SpxRenderStyle *style, double width,
            const Layout *l, const SpxRenderExchangeData *d,
            GPtrArray *caption)
{
  const SpxIpuProgram *p = d->program;
  const SpxIpuStep *s = _spx_exchange_shown_step (d);
  g_autofree char *step = g_strdup_printf ("step %u of %u", d->superstep + 1,
                                           p->steps->len);
  g_autofree char *what = spx_ipu_step_name (s);
  const char *head[] = { spx_ipu_mode_to_string (p->mode), step, what };
  double max_w = width - 2 * MARGIN;
  g_autofree char *h1 = fit_parts (cr, style, 1.05, max_w, head, 3);
  g_autofree char *h2 = fit_parts (cr, style, 0.9, max_w,
                                   (const char *const *) caption->pdata,
                                   caption->len);
  if (!spx_render_user_title (cr, style, MARGIN, 6, &title_opts, max_w))
    spx_render_text (cr, style, MARGIN, 6, &title_opts, h1);
  SpxTextOpts o2 = { .size = 0.9, .colour = style->muted, .use_colour = TRUE };
  spx_render_text (cr, style, MARGIN, 6 + 1.15 * l->line + l->extra, &o2,
                   h2);
}

/* ---- the grid: one arrow per tile pair ---- */


static gint
arrow_by_bytes (gconstpointer a, gconstpointer b)
{
  const Arrow *x = a, *y = b;
  return (x->bytes > y->bytes) - (x->bytes < y->bytes);
}

/* Transfers summed per (src, dst): planners may send several pieces. */
static GArray *
pair_arrows (const SpxIpuStep *s, Totals *t)
{
  GHashTable *index = g_hash_table_new (g_int64_hash, g_int64_equal);
  GArray *arrows = g_array_new (FALSE, TRUE, sizeof (Arrow));
  gint64 *keys = g_new (gint64, MAX (s->transfers->len, 1));
  for (guint i = 0; i < s->transfers->len; i++)
    {
      const SpxIpuTransfer *tr = transfer (s, i);
      keys[i] = ((gint64) tr->src << 32) | tr->dst;
      gpointer at;
      if (g_hash_table_lookup_extended (index, &keys[i], NULL, &at))
        g_array_index (arrows, Arrow, GPOINTER_TO_UINT (at)).bytes +=
          tr->bytes;
      else
        {
          Arrow a = { .src = tr->src, .dst = tr->dst, .bytes = tr->bytes,
                      .pairs = 1 };
          g_hash_table_insert (index, &keys[i],
                               GUINT_TO_POINTER (arrows->len));
          g_array_append_val (arrows, a);
        }
      t->total += tr->bytes;
    }
  for (guint i = 0; i < arrows->len; i++)
    {
      Arrow *a = &g_array_index (arrows, Arrow, i);
      gint64 back = ((gint64) a->dst << 32) | a->src;
      a->twin = g_hash_table_contains (index, &back);
      t->largest = MAX (t->largest, a->bytes);
    }
  t->pairs = arrows->len;
  g_hash_table_destroy (index);
  g_free (keys);
  return arrows;
}

/* Does the straight line between two tile centres cross a third tile? */
static gboolean
blocked (const Layout *l, guint n_tiles, const Arrow *a)
{
  double x0, y0, x1, y1;
  _spx_exchange_tile_centre (l, a->src, &x0, &y0);
  _spx_exchange_tile_centre (l, a->dst, &x1, &y1);
  double r = l->box / 2 + 2;
  for (guint t = 0; t < n_tiles; t++)
    {
      if (t == a->src || t == a->dst)
        continue;
      double cx, cy;
      _spx_exchange_tile_centre (l, t, &cx, &cy);
      for (guint k = 1; k < 32; k++)
        {
          double f = k / 32.0;
          if (fabs (x0 + f * (x1 - x0) - cx) < r &&
              fabs (y0 + f * (y1 - y0) - cy) < r)
            return TRUE;
        }
    }
  return FALSE;
}

/* From the centre of a box of half sizes hw × hh towards (tx, ty) to
 * its edge, plus a small gap. */
static void
leave_rect (double cx, double cy, double hw, double hh, double tx,
            double ty, double *x, double *y)
{
  double dx = tx - cx, dy = ty - cy, len = hypot (dx, dy);
  if (len < 1e-9)
    {
      *x = cx;
      *y = cy;
      return;
    }
  dx /= len;
  dy /= len;
  double t = 1 / MAX (fabs (dx) / hw, fabs (dy) / hh) + 2;
  *x = cx + dx * t;
  *y = cy + dy * t;
}

/* From a tile's centre towards (tx, ty) to the edge of its box. */
static void
leave_box (const Layout *l, double cx, double cy, double tx, double ty,
           double *x, double *y)
{
  leave_rect (cx, cy, l->box / 2, l->box / 2, tx, ty, x, y);
}

/* Straight when the way is clear; a pair sent both ways is drawn as two
 * parallel arrows; a line through another tile bends around it. */
static void
route_arrow (const Layout *l, guint n_tiles, Arrow *a)
{
  double x0, y0, x1, y1;
  _spx_exchange_tile_centre (l, a->src, &x0, &y0);
  _spx_exchange_tile_centre (l, a->dst, &x1, &y1);
  double dx = x1 - x0, dy = y1 - y0, len = MAX (1e-9, hypot (dx, dy));
  double nx = -dy / len, ny = dx / len; /* to the right on screen */
  double bend = 0;
  if (blocked (l, n_tiles, a))
    bend = 0.5 * MIN (l->cell_w, l->cell_h);
  else if (a->twin)
    {
      double off = 0.16 * l->box;
      x0 += nx * off;
      y0 += ny * off;
      x1 += nx * off;
      y1 += ny * off;
    }
  a->cx = (x0 + x1) / 2 + nx * bend;
  a->cy = (y0 + y1) / 2 + ny * bend;
  leave_box (l, x0, y0, a->cx, a->cy, &a->x0, &a->y0);
  leave_box (l, x1, y1, a->cx, a->cy, &a->x1, &a->y1);
}

/* Thinner the more arrows there are: an all-to-all step of equal
 * transfers would otherwise be one solid tangle. */
static double
widest_arrow (const Layout *l, guint n_arrows)
{
  double crowd = MIN (1.0, 4.0 / sqrt (MAX (n_arrows, 1)));
  return CLAMP (l->box * 0.16 * crowd, 1.5, 10);
}

double
_spx_exchange_arrow_width (const Layout *l, guint64 bytes, guint64 largest)
{
  double widest = l->widest > 0 ? l->widest : CLAMP (l->box * 0.16, 2, 10);
  return 1 + (widest - 1) * (largest > 0 ? (double) bytes / largest : 0);
}

/* ---- groups of tiles ---- */

/* Around a group's tiles, inside the gaps between groups, which hold
 * its arrows; FALSE for a group without tiles. */
gboolean
_spx_exchange_group_box (const Layout *l, guint n_tiles, guint g, Box *b)
{
  double x0 = G_MAXDOUBLE, y0 = G_MAXDOUBLE, x1 = -G_MAXDOUBLE;
  double y1 = -G_MAXDOUBLE;
  for (guint t = 0; t < n_tiles; t++)
    {
      double cx, cy;
      if (group_at (l, t) != g)
        continue;
      _spx_exchange_tile_centre (l, t, &cx, &cy);
      x0 = MIN (x0, cx);
      y0 = MIN (y0, cy);
      x1 = MAX (x1, cx);
      y1 = MAX (y1, cy);
    }
  if (x0 > x1)
    return FALSE;
  double pad = CLAMP (0.2 * MIN (l->cell_w - l->box, l->cell_h - l->box), 2,
                      10);
  double r = l->box / 2 + pad;
  *b = (Box) { x0 - r, y0 - r, x1 - x0 + 2 * r, y1 - y0 + 2 * r };
  return TRUE;
}

/* Group to group; a pair sent both ways as two arrows side by side.
 * Groups are neighbours: no line crosses a third. */
static void
route_group_arrow (const Layout *l, guint n_tiles, Arrow *a)
{
  Box sb, db;
  _spx_exchange_group_box (l, n_tiles, a->src, &sb);
  _spx_exchange_group_box (l, n_tiles, a->dst, &db);
  double x0 = sb.x + sb.w / 2, y0 = sb.y + sb.h / 2;
  double x1 = db.x + db.w / 2, y1 = db.y + db.h / 2;
  double dx = x1 - x0, dy = y1 - y0, len = MAX (1e-9, hypot (dx, dy));
  double off = a->twin ? l->widest / 2 + 4 : 0;
  x0 += -dy / len * off;
  y0 += dx / len * off;
  x1 += -dy / len * off;
  y1 += dx / len * off;
  a->cx = (x0 + x1) / 2;
  a->cy = (y0 + y1) / 2;
  leave_rect (x0, y0, sb.w / 2, sb.h / 2, x1, y1, &a->x0, &a->y0);
  leave_rect (x1, y1, db.w / 2, db.h / 2, x0, y0, &a->x1, &a->y1);
}

/* The tile pairs' arrows summed group to group (src == dst: within a
 * group); the largest between groups in t->largest. */
static GArray *
group_arrows (const Layout *l, GArray *pairs, Totals *t)
{
  guint n = l->gcols * l->grows;
  g_autofree Arrow *m = g_new0 (Arrow, (gsize) n * n);
  for (guint i = 0; i < pairs->len; i++)
    {
      const Arrow *a = &g_array_index (pairs, Arrow, i);
      guint gs = group_at (l, a->src), gd = group_at (l, a->dst);
      Arrow *f = &m[gs * n + gd];
      f->src = gs;
      f->dst = gd;
      f->bytes += a->bytes;
      f->pairs++;
    }
  GArray *out = g_array_new (FALSE, TRUE, sizeof (Arrow));
  t->largest = 0;
  for (guint i = 0; i < n * n; i++)
    {
      Arrow *f = &m[i];
      if (f->pairs == 0)
        continue;
      f->twin = f->src != f->dst && m[f->dst * n + f->src].pairs > 0;
      if (f->src != f->dst)
        t->largest = MAX (t->largest, f->bytes);
      g_array_append_val (out, *f);
    }
  return out;
}

/* ---- the arrows drawn ---- */

/* Not drawn as arrows: what stays within a tile or a group. */
gboolean
_spx_exchange_is_loop (const Arrow *a)
{
  return a->src == a->dst;
}

static guint
n_drawn (GArray *arrows)
{
  guint n = 0;
  for (guint i = 0; i < arrows->len; i++)
    n += !_spx_exchange_is_loop (&g_array_index (arrows, Arrow, i));
  return n;
}

/* The step's arrows routed on the grid, tile to tile or group to group,
 * smallest first (drawn so that the largest lie on top); sets
 * l->widest. */
GArray *
_spx_exchange_grid_arrows (Layout *l, const SpxIpuProgram *p,
                           const SpxIpuStep *s, Totals *t)
{
  GArray *arrows = pair_arrows (s, t);
  if (l->grouped)
    {
      GArray *pairs = arrows;
      arrows = group_arrows (l, pairs, t);
      g_array_unref (pairs);
    }
  l->widest = widest_arrow (l, n_drawn (arrows));
  for (guint i = 0; i < arrows->len; i++)
    {
      Arrow *a = &g_array_index (arrows, Arrow, i);
      if (l->grouped && !_spx_exchange_is_loop (a))
        route_group_arrow (l, p->n_tiles, a);
      else if (!l->grouped)
        route_arrow (l, p->n_tiles, a);
    }
  g_array_sort (arrows, arrow_by_bytes);
  return arrows;
}

GArray *
spx_render_exchange_flows (const SpxRenderExchangeData *d,
                           gboolean *grouped)
{
  const SpxIpuStep *s = _spx_exchange_shown_step (d);
  if (s == NULL || s->kind != SPX_STEP_EXCHANGE)
    return NULL;
  Layout l;
  _spx_exchange_layout_for (&l, d, s, 960, 600, SPX_RENDER_FONT_SIZE, 0);
  if (!l.grid)
    return NULL;
  Totals t = { 0 };
  GArray *arrows = _spx_exchange_grid_arrows (&l, d->program, s, &t);
  GArray *flows = g_array_sized_new (FALSE, FALSE,
                                     sizeof (SpxRenderExchangeFlow),
                                     arrows->len);
  for (guint i = 0; i < arrows->len; i++)
    {
      const Arrow *a = &g_array_index (arrows, Arrow, i);
      SpxRenderExchangeFlow f = { a->src, a->dst, a->bytes, a->pairs };
      g_array_append_val (flows, f);
    }
  g_array_unref (arrows);
  if (grouped != NULL)
    *grouped = l.grouped;
  return flows;
}

/* A selected tile hides every arrow but its own. */
gboolean
_spx_exchange_shown (const Arrow *a, gint sel)
{
  return !_spx_exchange_is_loop (a) &&
         (sel < 0 || a->src == (guint32) sel || a->dst == (guint32) sel);
}

void
_spx_exchange_curve_point (const Arrow *a, double t, double *x, double *y)
{
  double u = 1 - t;
  *x = u * u * a->x0 + 2 * u * t * a->cx + t * t * a->x1;
  *y = u * u * a->y0 + 2 * u * t * a->cy + t * t * a->y1;
}

double
_spx_exchange_head (const Layout *l, const Arrow *a, double lw, double pt[6])
{
  /* small tiles get small heads */
  double hl = MIN (4 + 2.2 * lw, 0.45 * l->box + 2);
  double hw = hl * (2 + 1.4 * lw) / (4 + 2.2 * lw);
  double dx = a->x1 - a->cx, dy = a->y1 - a->cy;
  double len = MAX (1e-9, hypot (dx, dy));
  dx /= len;
  dy /= len;
  double bx = a->x1 - dx * hl, by = a->y1 - dy * hl;
  double head[6] = { a->x1, a->y1, bx - dy * hw, by + dx * hw, bx + dy * hw,
                     by - dx * hw };
  memcpy (pt, head, sizeof head);
  return hl;
}

static void
draw_arrow (cairo_t *cr, const Layout *l, const Arrow *a, double lw)
{
  /* the line stops where the head begins, so the tip stays sharp */
  double pt[6];
  _spx_exchange_head (l, a, lw, pt);
  double ex = a->x1 + 0.8 * ((pt[2] + pt[4]) / 2 - a->x1);
  double ey = a->y1 + 0.8 * ((pt[3] + pt[5]) / 2 - a->y1);
  cairo_set_line_width (cr, lw);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_BUTT);
  cairo_move_to (cr, a->x0, a->y0);
  cairo_curve_to (cr, a->x0 + 2.0 / 3 * (a->cx - a->x0),
                  a->y0 + 2.0 / 3 * (a->cy - a->y0),
                  ex + 2.0 / 3 * (a->cx - ex), ey + 2.0 / 3 * (a->cy - ey),
                  ex, ey);
  cairo_stroke (cr);
  cairo_move_to (cr, pt[0], pt[1]);
  cairo_line_to (cr, pt[2], pt[3]);
  cairo_line_to (cr, pt[4], pt[5]);
  cairo_close_path (cr);
  cairo_fill (cr);
}

/* The shown arrow nearest (x, y) within a few pixels of its line, or
 * NULL. */
static const Arrow *
arrow_at (const Layout *l, GArray *arrows, gint sel, guint64 largest,
          double x, double y)
{
  const Arrow *best = NULL;
  double best_d = G_MAXDOUBLE;
  for (guint i = 0; i < arrows->len; i++)
    {
      const Arrow *a = &g_array_index (arrows, Arrow, i);
      if (!_spx_exchange_shown (a, sel))
        continue;
      double reach = _spx_exchange_arrow_width (l, a->bytes, largest) / 2 + 3;
      double len = hypot (a->cx - a->x0, a->cy - a->y0) +
                   hypot (a->x1 - a->cx, a->y1 - a->cy);
      guint n = MAX (2, (guint) (len / 1.5));
      for (guint k = 0; k <= n; k++)
        {
          double px, py;
          _spx_exchange_curve_point (a, (double) k / n, &px, &py);
          double dist = hypot (px - x, py - y);
          if (dist <= reach && dist < best_d)
            {
              best = a;
              best_d = dist;
            }
        }
    }
  return best;
}

static char *
arrow_text (const SpxIpuProgram *p, const SpxIpuStep *s, const Arrow *a)
{
  GString *out = g_string_new (NULL);
  g_string_printf (out, "Tile %u → tile %u", a->src, a->dst);
  guint listed = 0, rest = 0;
  for (guint i = 0; i < s->transfers->len; i++)
    {
      const SpxIpuTransfer *tr = transfer (s, i);
      if (tr->src != a->src || tr->dst != a->dst)
        continue;
      if (listed == LIST_MAX)
        {
          rest++;
          continue;
        }
      listed++;
      g_autofree char *what = transfer_text (p, s, i);
      g_string_append_printf (out, "\n%s", what);
    }
  if (rest > 0)
    {
      g_autofree char *more = count_of (rest, "more transfer",
                                        "more transfers");
      g_string_append_printf (out, "\nand %s", more);
    }
  return g_string_free (out, FALSE);
}

/* "tiles 0–1 and 4–5": a run of tiles per row of the group. */
static char *
group_name (const Layout *l, guint n_tiles, guint g)
{
  g_autoptr (GPtrArray) runs = g_ptr_array_new_with_free_func (g_free);
  guint count = 0;
  for (guint r = 0; r < l->rows; r++)
    {
      guint first = r * l->cols, lo = G_MAXUINT, hi = 0;
      for (guint t = first; t < MIN (first + l->cols, n_tiles); t++)
        if (group_at (l, t) == g)
          {
            lo = MIN (lo, t);
            hi = t;
            count++;
          }
      if (lo != G_MAXUINT)
        g_ptr_array_add (runs, lo == hi ? g_strdup_printf ("%u", lo)
                                        : g_strdup_printf ("%u–%u", lo, hi));
    }
  GString *out = g_string_new (count == 1 ? "tile " : "tiles ");
  for (guint i = 0; i < runs->len; i++)
    g_string_append_printf (out, "%s%s",
                            i == 0 ? "" : i + 1 == runs->len ? " and " : ", ",
                            (const char *) runs->pdata[i]);
  return g_string_free (out, FALSE);
}

/* What a group-to-group arrow sums: its bytes, tile pairs and
 * transfers, and the largest of its pairs. */
static char *
group_arrow_text (const Layout *l, const SpxIpuProgram *p,
                  const SpxIpuStep *s, const Arrow *a)
{
  g_autofree char *from = group_name (l, p->n_tiles, a->src);
  g_autofree char *to = group_name (l, p->n_tiles, a->dst);
  guint n = 0;
  const SpxIpuTransfer *big = NULL;
  for (guint i = 0; i < s->transfers->len; i++)
    {
      const SpxIpuTransfer *tr = transfer (s, i);
      if (group_at (l, tr->src) != a->src || group_at (l, tr->dst) != a->dst)
        continue;
      n++;
      if (big == NULL || tr->bytes > big->bytes)
        big = tr;
    }
  g_autofree char *bytes = spx_format_bytes ((double) a->bytes);
  g_autofree char *pairs = count_of (a->pairs, "tile pair", "tile pairs");
  g_autofree char *moves = count_of (n, "transfer", "transfers");
  g_autofree char *most = spx_format_bytes (big ? (double) big->bytes : 0);
  char *text = g_strdup_printf ("%c%s → %s\n%s summed over %s (%s)\n"
                                "largest transfer: tile %u → tile %u, %s\n"
                                "Click a tile for its own arrows; Every "
                                "arrow draws each pair.",
                                g_ascii_toupper (from[0]), from + 1, to,
                                bytes, pairs, moves, big ? big->src : 0,
                                big ? big->dst : 0, most);
  return text;
}

/* A group: what stays within it, what it sends and receives. */
static char *
group_text (const Layout *l, const SpxIpuProgram *p, GArray *arrows,
            guint g)
{
  guint64 within = 0, out = 0, in = 0;
  guint pairs = 0;
  for (guint i = 0; i < arrows->len; i++)
    {
      const Arrow *a = &g_array_index (arrows, Arrow, i);
      if (a->src == g && a->dst == g)
        within += a->bytes, pairs += a->pairs;
      else if (a->src == g)
        out += a->bytes;
      else if (a->dst == g)
        in += a->bytes;
    }
  g_autofree char *name = group_name (l, p->n_tiles, g);
  g_autofree char *w = spx_format_bytes ((double) within);
  g_autofree char *np = count_of (pairs, "tile pair", "tile pairs");
  g_autofree char *o = spx_format_bytes ((double) out);
  g_autofree char *i = spx_format_bytes ((double) in);
  return g_strdup_printf ("A group: %s\nwithin it: %s between %s\n"
                          "sends %s to the other groups, receives %s",
                          name, w, np, o, i);
}

static void
tile_outline (cairo_t *cr, const Layout *l, double cx, double cy,
              SpxRgb colour, double lw)
{
  double r = l->box / 2;
  cairo_rectangle (cr, cx - r, cy - r, 2 * r, 2 * r);
  spx_render_set_rgb (cr, colour);
  cairo_set_line_width (cr, lw);
  cairo_stroke (cr);
}

static void
draw_exchange_tiles (cairo_t *cr, const SpxRenderStyle *style,
                     const Layout *l, const SpxRenderExchangeData *d,
                     const SpxIpuStep *s)
{
  double size = CLAMP (l->box / (2.2 * style->font_size), 0.55, 1.0);
  for (guint t = 0; t < d->program->n_tiles; t++)
    {
      double cx, cy;
      _spx_exchange_tile_centre (l, t, &cx, &cy);
      gboolean idle = s->bytes_in[t] == 0 && s->bytes_out[t] == 0;
      cairo_rectangle (cr, cx - l->box / 2, cy - l->box / 2, l->box, l->box);
      spx_render_set_rgb (cr, style->panel);
      cairo_fill (cr);
      gboolean sel = d->selected_tile == (gint) t;
      tile_outline (cr, l, cx, cy, sel ? style->highlight : style->muted,
                    sel ? 3 : 1);
      g_autofree char *label = g_strdup_printf ("%u", t);
      SpxTextOpts o = { .size = size, .ax = 0.5, .ay = 0.5, .bold = !idle,
                        .colour = idle ? style->muted : style->foreground,
                        .use_colour = TRUE };
      spx_render_text (cr, style, cx, cy, &o, label);
    }
}

/* The groups' frames, under everything. */
static void
draw_groups (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
             guint n_tiles)
{
  for (guint g = 0; g < l->gcols * l->grows; g++)
    {
      Box b;
      if (!_spx_exchange_group_box (l, n_tiles, g, &b))
        continue;
      cairo_rectangle (cr, b.x + 0.5, b.y + 0.5, b.w - 1, b.h - 1);
      spx_render_set_rgba (cr, style->muted, 0.12);
      cairo_fill_preserve (cr);
      spx_render_set_rgb (cr, style->muted);
      cairo_set_line_width (cr, 1);
      cairo_stroke (cr);
    }
}

/* Under a crowded exchange: how its arrows are drawn, and the way to
 * the others. */
static void
draw_footer (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
             const SpxRenderExchangeData *d, const Totals *t)
{
  if (!l->crowded)
    return;
  g_autofree char *pairs = count_of (t->pairs, "tile pair", "tile pairs");
  g_autofree char *a = NULL, *b = NULL;
  const char *c = NULL;
  if (l->grouped)
    {
      a = g_strdup ("each arrow: all that one framed group of tiles sends "
                    "another");
      b = g_strdup_printf ("%s in all", pairs);
      c = "click a tile for its own arrows";
    }
  else if (_spx_exchange_selection (d) >= 0)
    {
      a = g_strdup_printf ("tile %d's own arrows", _spx_exchange_selection (d));
      b = g_strdup_printf ("%s in all", pairs);
      c = "click it again for the rest";
    }
  else
    {
      a = g_strdup_printf ("an arrow per tile pair: %s", pairs);
      b = g_strdup_printf ("above %u they are summed between groups of tiles",
                           SPX_RENDER_EXCHANGE_MAX_ARROWS);
    }
  const char *parts[] = { a, b, c };
  g_autofree char *text = fit_parts (cr, style, 0.85,
                                     l->width - 2 * MARGIN, parts,
                                     c != NULL ? 3 : 2);
  SpxTextOpts o = { .size = 0.85, .colour = style->muted,
                    .use_colour = TRUE };
  spx_render_text (cr, style, MARGIN, l->height - MARGIN - 0.85 * l->line,
                   &o, text);
}

static void
draw_exchange_grid (cairo_t *cr, const SpxRenderStyle *style,
                    const Layout *l, const SpxRenderExchangeData *d,
                    const SpxIpuStep *s, GArray *arrows, const Totals *t)
{
  gint sel = _spx_exchange_selection (d);
  SpxRgb colour = sel >= 0 ? style->highlight : style->series[0];
  if (l->grouped)
    draw_groups (cr, style, l, d->program->n_tiles);
  spx_render_set_rgb (cr, colour);
  for (guint i = 0; i < arrows->len; i++)
    {
      const Arrow *a = &g_array_index (arrows, Arrow, i);
      if (_spx_exchange_shown (a, sel))
        draw_arrow (cr, l, a,
                    _spx_exchange_arrow_width (l, a->bytes, t->largest));
    }
  /* tiles over the lines: a line that crosses a tile is not read as
   * ending there */
  draw_exchange_tiles (cr, style, l, d, s);
  g_autoptr (GArray) labels = _spx_exchange_place_labels (
    cr, style, l, d->program->n_tiles, arrows, sel, t->largest);
  _spx_exchange_draw_labels (cr, style, labels, colour);
  draw_footer (cr, style, l, d, t);
}

/* ---- the grid: compute and sync ---- */

/* Dark text on the light end of the heat map, light on the dark end. */
static SpxRgb
ink_on (SpxRgb fill)
{
  double y = 0.2126 * fill.r + 0.7152 * fill.g + 0.0722 * fill.b;
  return y > 0.45 ? (SpxRgb) { 0.1, 0.1, 0.1 } : (SpxRgb) { 1, 1, 1 };
}

/* The tile's number over the first of values that fits the box; the
 * value alone when two lines do not fit; the number alone when no value
 * does. */
static void
box_text (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
          guint t, const char *const *values, guint n_values, SpxRgb ink)
{
  double cx, cy, th, room = l->box - 6;
  _spx_exchange_tile_centre (l, t, &cx, &cy);
  double size = CLAMP (l->box / (3.2 * style->font_size), 0.55, 0.95);
  const char *value = NULL;
  for (guint i = 0; i < n_values && value == NULL; i++)
    if (spx_render_text_width (cr, style, size, values[i], NULL) <= room)
      value = values[i];
  g_autofree char *id = g_strdup_printf ("%u", t);
  spx_render_text_width (cr, style, size, id, &th);
  SpxTextOpts o = { .size = size, .ax = 0.5, .ay = 0.5, .colour = ink,
                    .use_colour = TRUE };
  if (value != NULL && 2 * th <= room)
    {
      o.bold = TRUE;
      spx_render_text (cr, style, cx, cy - th / 2, &o, id);
      o.bold = FALSE;
      spx_render_text (cr, style, cx, cy + th / 2, &o, value);
      return;
    }
  o.bold = value == NULL;
  spx_render_text (cr, style, cx, cy, &o, value ? value : id);
}

static void
fill_box (cairo_t *cr, const Layout *l, guint t, SpxRgb fill)
{
  double cx, cy;
  _spx_exchange_tile_centre (l, t, &cx, &cy);
  cairo_rectangle (cr, cx - l->box / 2, cy - l->box / 2, l->box, l->box);
  spx_render_set_rgb (cr, fill);
  cairo_fill (cr);
}

/* A frame around the slowest tile, and the word under it when the gap
 * below holds it. */
static void
mark_slowest (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
              guint t)
{
  double cx, cy, th;
  _spx_exchange_tile_centre (l, t, &cx, &cy);
  double r = l->box / 2 + 4;
  cairo_rectangle (cr, cx - r, cy - r, 2 * r, 2 * r);
  spx_render_set_rgb (cr, style->foreground);
  cairo_set_line_width (cr, 2);
  cairo_stroke (cr);
  spx_render_text_width (cr, style, 0.75, "slowest", &th);
  if ((l->cell_h - l->box) / 2 < th + 8)
    return;
  SpxTextOpts o = { .size = 0.75, .ax = 0.5, .bold = TRUE };
  spx_render_text (cr, style, cx, cy + r + 2, &o, "slowest");
}

static void
draw_compute_grid (cairo_t *cr, const SpxRenderStyle *style,
                   const Layout *l, const SpxRenderExchangeData *d,
                   const SpxIpuStep *s)
{
  const SpxIpuProgram *p = d->program;
  guint32 slow = spx_ipu_step_slowest (p, s);
  guint64 top = s->tile_cycles[slow];
  for (guint t = 0; t < p->n_tiles; t++)
    {
      guint64 c = s->tile_cycles[t];
      SpxRgb fill = c > 0 ? spx_render_heat (style, (double) c / top)
                          : style->panel; /* idle is not "low" */
      fill_box (cr, l, t, fill);
      double cx, cy;
      _spx_exchange_tile_centre (l, t, &cx, &cy);
      gboolean sel = d->selected_tile == (gint) t;
      tile_outline (cr, l, cx, cy, sel ? style->highlight : style->muted,
                    sel ? 3 : 1);
      g_autofree char *full = spx_format_count (c);
      g_autofree char *brief = spx_render_format_count ((double) c);
      const char *values[] = { c > 0 ? full : "idle", brief };
      box_text (cr, style, l, t, values, c > 0 ? 2 : 1, ink_on (fill));
    }
  if (top > 0)
    mark_slowest (cr, style, l, slow);
}

static void
draw_sync_grid (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
                const SpxRenderExchangeData *d)
{
  static const double dash[] = { 4, 3 };
  const char *values[] = { "waits" };
  for (guint t = 0; t < d->program->n_tiles; t++)
    {
      fill_box (cr, l, t, style->panel);
      double cx, cy;
      _spx_exchange_tile_centre (l, t, &cx, &cy);
      gboolean sel = d->selected_tile == (gint) t;
      cairo_set_dash (cr, dash, sel ? 0 : 2, 0);
      tile_outline (cr, l, cx, cy, sel ? style->highlight : style->muted,
                    sel ? 3 : 1);
      cairo_set_dash (cr, NULL, 0, 0);
      box_text (cr, style, l, t, values, 1, ink_on (style->panel));
    }
}

/* ---- large machines ---- */

static double *
group_matrix (const Layout *l, const SpxIpuStep *s, double *max)
{
  guint g = l->n_groups;
  double *m = g_new0 (double, (gsize) g * g);
  for (guint i = 0; i < s->transfers->len; i++)
    {
      const SpxIpuTransfer *tr = transfer (s, i);
      m[(gsize) (tr->src / l->group) * g + tr->dst / l->group] += tr->bytes;
    }
  *max = 0;
  for (gsize i = 0; i < (gsize) g * g; i++)
    *max = MAX (*max, m[i]);
  return m;
}

/* Tile numbers down the left (0 to y_hi over y_span) and along the
 * bottom (0 to x_hi over x_span) of the square map. */
static void
draw_heat_axes (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
                double y_hi, double y_span, double x_hi, double x_span)
{
  double ticks[16];
  SpxTextOpts o = { .size = 0.8, .ax = 1, .ay = 0.5 };
  guint n = spx_render_nice_ticks (0, y_hi, CLAMP (l->hs / (l->line * 1.6),
                                                   3, 12), ticks);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *t = g_strdup_printf ("%.0f", ticks[i]);
      spx_render_text (cr, style, l->hx - 3, l->hy + ticks[i] / y_span * l->hs,
                       &o, t);
    }
  double widest = spx_render_text_width (cr, style, 0.8, "0000", NULL);
  n = spx_render_nice_ticks (0, x_hi, CLAMP (l->hs / (widest + 10), 3, 12),
                             ticks);
  o.ax = 0.5;
  o.ay = 0;
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *t = g_strdup_printf ("%.0f", ticks[i]);
      double tw = spx_render_text_width (cr, style, 0.8, t, NULL);
      double x = l->hx + ticks[i] / x_span * l->hs;
      x = MIN (x, l->hx + l->hs + 12 - tw / 2); /* not into the legend */
      spx_render_text (cr, style, x, l->hy + l->hs + 2, &o, t);
    }
}

static void
frame_map (cairo_t *cr, const SpxRenderStyle *style, const Layout *l)
{
  cairo_rectangle (cr, l->hx, l->hy, l->hs, l->hs);
  spx_render_set_rgb (cr, style->muted);
  cairo_set_line_width (cr, 1);
  cairo_stroke (cr);
}

static void
draw_heat_cells (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
                 const double *m, double max)
{
  guint g = l->n_groups;
  double c = l->hs / g;
  /* no traffic is the map's 0, as the colour bar says; the ground is
   * painted with it so that antialiased cell edges leave no seams */
  spx_render_set_rgb (cr, spx_render_heat (style, 0));
  cairo_rectangle (cr, l->hx, l->hy, l->hs, l->hs);
  cairo_fill (cr);
  for (guint i = 0; i < g; i++)
    for (guint j = 0; j < g; j++)
      {
        double v = m[(gsize) i * g + j];
        if (v <= 0)
          continue;
        spx_render_set_rgb (cr, spx_render_heat (style, v / max));
        cairo_rectangle (cr, l->hx + j * c, l->hy + i * c, c, c);
        cairo_fill (cr);
      }
  frame_map (cr, style, l);
}

static void
draw_heat_selection (cairo_t *cr, const SpxRenderStyle *style,
                     const Layout *l, guint tile)
{
  double c = l->hs / l->n_groups, at = (tile / l->group) * c;
  spx_render_set_rgb (cr, style->highlight);
  cairo_set_line_width (cr, 2);
  cairo_rectangle (cr, l->hx, l->hy + at, l->hs, c);
  cairo_rectangle (cr, l->hx + at, l->hy, c, l->hs);
  cairo_stroke (cr);
}

static void
outline_cell (cairo_t *cr, const Layout *l, guint t, SpxRgb colour)
{
  double lw = 2;
  cairo_rectangle (cr, l->hx + (t % l->mcols) * l->mw - lw / 2,
                   l->hy + (t / l->mcols) * l->mh - lw / 2, l->mw + lw,
                   l->mh + lw);
  spx_render_set_rgb (cr, colour);
  cairo_set_line_width (cr, lw);
  cairo_stroke (cr);
}

/* One cell per tile, as the machine lays them out: heat by v over top,
 * idle tiles (and every tile when v is NULL) in the panel colour. */
static void
draw_tile_map (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
               guint n_tiles, const guint64 *v, guint64 top)
{
  spx_render_set_rgb (cr, style->panel);
  cairo_rectangle (cr, l->hx, l->hy, l->hs, l->hs);
  cairo_fill (cr);
  for (guint t = 0; v != NULL && top > 0 && t < n_tiles; t++)
    {
      if (v[t] == 0)
        continue;
      spx_render_set_rgb (cr, spx_render_heat (style, (double) v[t] / top));
      cairo_rectangle (cr, l->hx + (t % l->mcols) * l->mw,
                       l->hy + (t / l->mcols) * l->mh, l->mw, l->mh);
      cairo_fill (cr);
    }
  frame_map (cr, style, l);
  draw_heat_axes (cr, style, l, n_tiles, (double) l->mcols * l->mrows,
                  l->mcols - 1, l->mcols);
}

/* A colour bar when bar_title is given, then lines of notes. */
static void
draw_legend (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
             const char *bar_title, const char *hi, const char *const *lines,
             guint n_lines)
{
  if (l->lw < 60)
    return;
  double w = MIN (l->lw, 180), y = l->hy;
  if (bar_title != NULL)
    {
      spx_render_colour_bar (cr, style, l->lx, y, w, 3 * l->line, bar_title,
                             "0", hi);
      y += 3 * l->line + 8;
    }
  SpxTextOpts o = { .size = 0.8, .colour = style->muted, .use_colour = TRUE };
  for (guint i = 0; i < n_lines; i++, y += l->line * 0.9)
    {
      if (y + l->line > l->hy + l->hs + l->line ||
          spx_render_text_width (cr, style, 0.8, lines[i], NULL) > l->lw)
        continue;
      spx_render_text (cr, style, l->lx, y, &o, lines[i]);
    }
}

static guint64
max_of (const guint64 *v, guint n)
{
  guint64 m = 0;
  for (guint i = 0; i < n; i++)
    m = MAX (m, v[i]);
  return m;
}

/* One bar per tile, or per pixel column (its tiles' maximum) when there
 * are more tiles than columns, so no tile's peak is lost. */
static void
draw_strip (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
            double y, const guint64 *v, guint n, guint64 max, SpxRgb colour,
            const char *name)
{
  spx_render_set_rgb (cr, style->panel);
  cairo_rectangle (cr, l->sx, y, l->sw, l->sh);
  cairo_fill (cr);
  guint bins = MIN (n, (guint) MAX (1, floor (l->sw)));
  double bw = l->sw / bins;
  spx_render_set_rgb (cr, colour);
  for (guint b = 0; b < bins && max > 0; b++)
    {
      guint lo = (guint) ((guint64) b * n / bins);
      guint hi = MAX (lo + 1, (guint) ((guint64) (b + 1) * n / bins));
      double h = (double) max_of (v + lo, hi - lo) / max * l->sh;
      if (h > 0)
        cairo_rectangle (cr, l->sx + b * bw, y + l->sh - MAX (h, 1),
                         bins == n ? MAX (bw - 0.2, 0.5) : bw + 0.2,
                         MAX (h, 1));
    }
  cairo_fill (cr);
  SpxTextOpts o = { .size = 0.8, .ax = 1, .ay = 0.5 };
  spx_render_text (cr, style, l->sx - 4, y + l->sh / 2, &o, name);
}

/* The strips' caption (what, the tiles, peaks) and the selected tile's
 * mark across both. */
static void
strips_frame (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
              guint n, gint sel, const char *what, const char *peaks)
{
  g_autofree char *range = g_strdup_printf ("per tile, 0 to %u", n - 1);
  const char *parts[] = { what, range, peaks };
  g_autofree char *caption = fit_parts (cr, style, 0.8, l->sw + l->sx - MARGIN,
                                        parts, 3);
  SpxTextOpts o = { .size = 0.8, .colour = style->muted, .use_colour = TRUE };
  spx_render_text (cr, style, MARGIN, l->caption_y + 0.2 * l->line, &o,
                   caption);
  if (sel < 0)
    return;
  double x = l->sx + (sel + 0.5) / n * l->sw;
  spx_render_set_rgb (cr, style->highlight);
  cairo_set_line_width (cr, 2);
  cairo_move_to (cr, x, l->in_y - 2);
  cairo_line_to (cr, x, l->out_y + l->sh + 2);
  cairo_stroke (cr);
}

static void
draw_large_exchange (cairo_t *cr, const SpxRenderStyle *style,
                     const Layout *l, const SpxRenderExchangeData *d,
                     const SpxIpuStep *s)
{
  guint n = d->program->n_tiles;
  gint sel = _spx_exchange_selection (d);
  double max;
  g_autofree double *m = group_matrix (l, s, &max);
  draw_heat_cells (cr, style, l, m, max);
  if (sel >= 0)
    draw_heat_selection (cr, style, l, (guint) sel);
  double span = (double) l->group * l->n_groups;
  draw_heat_axes (cr, style, l, n, span, n, span);
  g_autofree char *hi = spx_format_bytes (max);
  g_autofree char *groups = g_strdup_printf ("%u groups of %u tiles",
                                             l->n_groups, l->group);
  const char *lines[] = { "rows: from, columns: to", groups,
                          "diagonal: within a group" };
  draw_legend (cr, style, l, "bytes, group to group", hi, lines, 3);
  guint64 max_in = max_of (s->bytes_in, n), max_out = max_of (s->bytes_out, n);
  g_autofree char *a = spx_format_bytes ((double) max_in);
  g_autofree char *b = spx_format_bytes ((double) max_out);
  g_autofree char *peaks = g_strdup_printf ("most in %s, out %s", a, b);
  guint64 top = MAX (max_in, max_out); /* one scale: in and out compare */
  draw_strip (cr, style, l, l->in_y, s->bytes_in, n, top, style->series[0],
              "in");
  /* not series[1]: next to the highlight's orange in both themes */
  draw_strip (cr, style, l, l->out_y, s->bytes_out, n, top, style->series[2],
              "out");
  strips_frame (cr, style, l, n, sel, "bytes in and out", peaks);
}

static void
draw_large_compute (cairo_t *cr, const SpxRenderStyle *style,
                    const Layout *l, const SpxRenderExchangeData *d,
                    const SpxIpuStep *s)
{
  const SpxIpuProgram *p = d->program;
  guint n = p->n_tiles;
  guint32 slow = spx_ipu_step_slowest (p, s);
  guint64 top = s->tile_cycles[slow];
  draw_tile_map (cr, style, l, n, s->tile_cycles, top);
  if (top > 0)
    outline_cell (cr, l, slow, style->foreground);
  if (_spx_exchange_selection (d) >= 0)
    outline_cell (cr, l, (guint) _spx_exchange_selection (d), style->highlight);
  g_autofree char *hi = spx_format_count (top);
  g_autofree char *rows = g_strdup_printf ("rows of %u tiles", l->mcols);
  const char *lines[] = { rows, "framed: the slowest tile",
                          "blank: idle" };
  draw_legend (cr, style, l, "cycles per tile", hi, lines, 3);
  g_autofree guint64 *macs = g_new (guint64, n);
  for (guint t = 0; t < n; t++)
    macs[t] = p->tiles[t].macs;
  guint64 most_macs = max_of (macs, n);
  g_autofree char *a = spx_format_count (top);
  g_autofree char *b = spx_format_count (most_macs);
  g_autofree char *peaks = g_strdup_printf ("most %s cycles, %s MACs", a, b);
  /* separate scales: cycles and multiply-accumulates differ in kind */
  draw_strip (cr, style, l, l->in_y, s->tile_cycles, n, top,
              style->series[0], "cycles");
  draw_strip (cr, style, l, l->out_y, macs, n, most_macs, style->series[2],
              "MACs");
  strips_frame (cr, style, l, n, _spx_exchange_selection (d),
                "cycles in this step and MACs in all", peaks);
}

static void
draw_large_sync (cairo_t *cr, const SpxRenderStyle *style, const Layout *l,
                 const SpxRenderExchangeData *d)
{
  guint n = d->program->n_tiles;
  draw_tile_map (cr, style, l, n, NULL, 0);
  if (_spx_exchange_selection (d) >= 0)
    outline_cell (cr, l, (guint) _spx_exchange_selection (d), style->highlight);
  g_autofree char *rows = g_strdup_printf ("rows of %u tiles", l->mcols);
  const char *lines[] = { "every tile waits", rows };
  draw_legend (cr, style, l, NULL, NULL, lines, 2);
}

/* ---- the view ---- */

static gboolean
check_step (cairo_t *cr, const SpxRenderStyle *style, double width,
            double height, const SpxRenderExchangeData *d)
{
  const char *m = NULL;
  g_autofree char *own = NULL;
  if (d == NULL || d->program == NULL || d->program->n_tiles == 0)
    m = "No program";
  else if (d->superstep >= d->program->steps->len)
    m = own = g_strdup_printf ("No step %u: the program has %u",
                               d->superstep + 1, d->program->steps->len);
  else if (_spx_exchange_shown_step (d) == NULL)
    m = own = g_strdup_printf ("Step %u: its detail per tile was not kept",
                               d->superstep + 1);
  if (m != NULL)
    spx_render_placeholder (cr, style, width, height, m);
  return m == NULL;
}

void
spx_render_exchange (cairo_t *cr, double width, double height,
                     gconstpointer data, const SpxRenderStyle *style)
{
  const SpxRenderExchangeData *d = data;
  spx_render_clear (cr, style, width, height);
  if (!check_step (cr, style, width, height, d))
    return;
  const SpxIpuStep *s = _spx_exchange_shown_step (d);
  Layout l;
  _spx_exchange_layout_for (&l, d, s, width, height, style->font_size,
                            spx_render_user_title_extra (cr, style,
                                                         &title_opts,
                                                         width - 2 * MARGIN));
  cairo_save (cr);
  if (s->kind == SPX_STEP_EXCHANGE)
    {
      Totals t = { 0 };
      GArray *arrows = l.grid
                         ? _spx_exchange_grid_arrows (&l, d->program, s, &t)
                         : pair_arrows (s, &t);
      g_autoptr (GPtrArray) caption = exchange_caption (&l, d, s, &t);
      draw_title (cr, style, width, &l, d, caption);
      if (l.grid)
        draw_exchange_grid (cr, style, &l, d, s, arrows, &t);
      else
        draw_large_exchange (cr, style, &l, d, s);
      g_array_unref (arrows);
    }
  else
    {
      gboolean compute = s->kind == SPX_STEP_COMPUTE;
      g_autoptr (GPtrArray) caption = compute ? compute_caption (d, s)
                                              : sync_caption (s);
      draw_title (cr, style, width, &l, d, caption);
      if (compute && l.grid)
        draw_compute_grid (cr, style, &l, d, s);
      else if (compute)
        draw_large_compute (cr, style, &l, d, s);
      else if (l.grid)
        draw_sync_grid (cr, style, &l, d);
      else
        draw_large_sync (cr, style, &l, d);
    }
  cairo_restore (cr);
}

/* ---- hover ---- */

static char *
describe_exchange (Layout *l, const SpxRenderExchangeData *d,
                   const SpxIpuStep *s, double x, double y)
{
  const SpxIpuProgram *p = d->program;
  gint tile = tile_at (l, p->n_tiles, x, y);
  if (l->grid)
    {
      Totals t = { 0 };
      g_autoptr (GArray) arrows = _spx_exchange_grid_arrows (l, p, s, &t);
      const Arrow *a = arrow_at (l, arrows, _spx_exchange_selection (d),
                                 t.largest, x, y);
      if (a != NULL)
        return l->grouped ? group_arrow_text (l, p, s, a)
                          : arrow_text (p, s, a);
      for (guint g = 0; l->grouped && tile < 0 && g < l->gcols * l->grows;
           g++)
        {
          Box b, at = { x, y, 0, 0 };
          if (_spx_exchange_group_box (l, p->n_tiles, g, &b) &&
              _spx_exchange_boxes_overlap (&at, &b))
            return group_text (l, p, arrows, g);
        }
    }
  return tile >= 0 ? exchange_tile_text (p, s, (guint) tile) : NULL;
}

char *
spx_render_exchange_describe (double width, double height,
                              const SpxRenderExchangeData *d, double x,
                              double y)
{
  const SpxIpuStep *s = _spx_exchange_shown_step (d);
  if (s == NULL)
    return NULL;
  Layout l;
  _spx_exchange_layout_for (&l, d, s, width, height, SPX_RENDER_FONT_SIZE, 0);
  if (s->kind == SPX_STEP_EXCHANGE)
    return describe_exchange (&l, d, s, x, y);
  gint tile = tile_at (&l, d->program->n_tiles, x, y);
  if (tile < 0)
    return NULL;
  return s->kind == SPX_STEP_COMPUTE
           ? compute_tile_text (d->program, s, (guint) tile)
           : sync_tile_text (s, (guint) tile);
}

/* ---- its row in the table of views ------------------------------- */

static void
exchange_fill (const SpxRenderViewState *st, gpointer data)
{
  SpxRenderExchangeData *d = data;
  d->program = spx_render_view_shown_program (st);
  d->superstep = st->superstep;
  d->selected_tile = st->tile;
  d->every_arrow = st->metric == 1; /* its metrics' second */
}

static gboolean
exchange_hit (double width, double height, gconstpointer data,
              const SpxRenderStyle *style, double x, double y,
              SpxRenderViewHit *hit)
{
  const SpxRenderExchangeData *d = data;
  hit->tile = d->program == NULL ? -1
    : spx_render_exchange_hit (width, height, d, x, y);
  return hit->tile >= 0;
}

/* What moves, or what the tile does. */
static char *
exchange_describe (double width, double height, gconstpointer data,
                   const SpxRenderStyle *style, double x, double y)
{
  const SpxRenderExchangeData *d = data;
  return d->program == NULL ? NULL
    : spx_render_exchange_describe (width, height, d, x, y);
}

const SpxRenderView spx_render_view_exchange = {
  .name = "exchange", .title = "Exchange",
  .summary = "what one superstep moves between tiles",
  /* a crowded exchange's arrows: summed between groups of tiles, or one
   * per tile pair */
  .metrics = (const char *const[]) { "grouped", "all", NULL },
  .needs = SPX_RENDER_VIEW_NEEDS_PLAN,
  .data_size = sizeof (SpxRenderExchangeData), .fill = exchange_fill,
  .draw = spx_render_exchange, .hit = exchange_hit,
  .describe = exchange_describe,
};
