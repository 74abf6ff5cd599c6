/* spx-render-exchange-text.c: the Exchange picture's words: its title,
 * captions, footer and legend, and the hover's text. */
#include "spx-render-exchange-private.h"

#include "spx-util.h"

#define LIST_MAX 8    /* hover lines listed before "and N more" */
#define NAMES_MAX 6   /* tiles named in one hover line */

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

const SpxIpuTransfer *
_spx_exchange_transfer (const SpxIpuStep *s, guint i)
{
  return &g_array_index (s->transfers, SpxIpuTransfer, i);
}

/* What transfer i carries, or its size when the step keeps no pieces. */
static char *
transfer_text (const SpxIpuProgram *p, const SpxIpuStep *s, guint i)
{
  const SpxIpuPiece *w = piece_of (s, i);
  guint64 bytes = _spx_exchange_transfer (s, i)->bytes;
  return w ? spx_ipu_piece_describe (p, w, bytes)
           : spx_format_bytes ((double) bytes);
}

static gboolean
same_load (const SpxIpuStep *s, guint i, guint j)
{
  const SpxIpuPiece *a = piece_of (s, i), *b = piece_of (s, j);
  if (_spx_exchange_transfer (s, i)->bytes !=
      _spx_exchange_transfer (s, j)->bytes)
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
      const SpxIpuTransfer *tr = _spx_exchange_transfer (s, i);
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
    if ((in ? _spx_exchange_transfer (s, i)->dst
            : _spx_exchange_transfer (s, i)->src) == t)
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
          peers[n++] = in ? _spx_exchange_transfer (s, ib)->src
                          : _spx_exchange_transfer (s, ib)->dst;
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

const SpxTextOpts _spx_exchange_title_opts = { .size = 1.05, .bold = TRUE };

/* Join parts with " · " while they fit in max_w. */
char *
_spx_exchange_fit_parts (cairo_t *cr, const SpxRenderStyle *style,
                         double size, double max_w, const char *const *parts,
                         guint n)
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
GPtrArray *
_spx_exchange_exchange_caption (const Layout *l,
                                const SpxRenderExchangeData *d,
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

GPtrArray *
_spx_exchange_compute_caption (const SpxRenderExchangeData *d,
                               const SpxIpuStep *s)
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

GPtrArray *
_spx_exchange_sync_caption (const SpxIpuStep *s)
{
  GPtrArray *parts = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (parts, g_strdup ("sync: every tile waits until all "
                                    "have arrived"));
  g_ptr_array_add (parts, count_of (s->cycles, "cycle", "cycles"));
  return parts;
}

void
_spx_exchange_draw_title (cairo_t *cr, const SpxRenderStyle *style,
                          double width, const Layout *l,
                          const SpxRenderExchangeData *d, GPtrArray *caption)
{
  const SpxIpuProgram *p = d->program;
  const SpxIpuStep *s = _spx_exchange_shown_step (d);
  g_autofree char *step = g_strdup_printf ("step %u of %u", d->superstep + 1,
                                           p->steps->len);
  g_autofree char *what = spx_ipu_step_name (s);
  const char *head[] = { spx_ipu_mode_to_string (p->mode), step, what };
  double max_w = width - 2 * MARGIN;
  g_autofree char *h1 = _spx_exchange_fit_parts (cr, style, 1.05, max_w,
                                                 head, 3);
  g_autofree char *h2 = _spx_exchange_fit_parts (
    cr, style, 0.9, max_w, (const char *const *) caption->pdata,
    caption->len);
  if (!spx_render_user_title (cr, style, MARGIN, 6, &_spx_exchange_title_opts,
                              max_w))
    spx_render_text (cr, style, MARGIN, 6, &_spx_exchange_title_opts, h1);
  SpxTextOpts o2 = { .size = 0.9, .colour = style->muted, .use_colour = TRUE };
  spx_render_text (cr, style, MARGIN, 6 + 1.15 * l->line + l->extra, &o2,
                   h2);
}

/* ---- footer and legend ---- */

/* Under a crowded exchange: how its arrows are drawn, and the way to
 * the others. */
void
_spx_exchange_draw_footer (cairo_t *cr, const SpxRenderStyle *style,
                           const Layout *l, const SpxRenderExchangeData *d,
                           const Totals *t)
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
  g_autofree char *text = _spx_exchange_fit_parts (cr, style, 0.85,
                                                   l->width - 2 * MARGIN,
                                                   parts, c != NULL ? 3 : 2);
  SpxTextOpts o = { .size = 0.85, .colour = style->muted,
                    .use_colour = TRUE };
  spx_render_text (cr, style, MARGIN, l->height - MARGIN - 0.85 * l->line,
                   &o, text);
}

/* A colour bar when bar_title is given, then lines of notes. */
void
_spx_exchange_draw_legend (cairo_t *cr, const SpxRenderStyle *style,
                           const Layout *l, const char *bar_title,
                           const char *hi, const char *const *lines,
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

/* ---- hover ---- */

static char *
arrow_text (const SpxIpuProgram *p, const SpxIpuStep *s, const Arrow *a)
{
  GString *out = g_string_new (NULL);
  g_string_printf (out, "Tile %u → tile %u", a->src, a->dst);
  guint listed = 0, rest = 0;
  for (guint i = 0; i < s->transfers->len; i++)
    {
      const SpxIpuTransfer *tr = _spx_exchange_transfer (s, i);
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
        if (_spx_exchange_group_at (l, t) == g)
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
      const SpxIpuTransfer *tr = _spx_exchange_transfer (s, i);
      if (_spx_exchange_group_at (l, tr->src) != a->src ||
          _spx_exchange_group_at (l, tr->dst) != a->dst)
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

static char *
describe_exchange (Layout *l, const SpxRenderExchangeData *d,
                   const SpxIpuStep *s, double x, double y)
{
  const SpxIpuProgram *p = d->program;
  gint tile = _spx_exchange_tile_at (l, p->n_tiles, x, y);
  if (l->grid)
    {
      Totals t = { 0 };
      g_autoptr (GArray) arrows = _spx_exchange_grid_arrows (l, p, s, &t);
      const Arrow *a = _spx_exchange_arrow_at (l, arrows,
                                               _spx_exchange_selection (d),
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
  gint tile = _spx_exchange_tile_at (&l, d->program->n_tiles, x, y);
  if (tile < 0)
    return NULL;
  return s->kind == SPX_STEP_COMPUTE
           ? compute_tile_text (d->program, s, (guint) tile)
           : sync_tile_text (s, (guint) tile);
}
