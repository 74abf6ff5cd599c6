/* spx-ipu-dense.c: the dense matmul as poplin plans it, a three-way split
 * pM × pN × pK with a reduction over pK. W, a weight, lies where the plan
 * uses it (as poplin lays weights out for their plan, and as the static
 * program's values); X starts spread over the tiles. The search covers
 * every split, and so the partition a static program of a full mask
 * uses: no sparse plan of every block beats it. */
#include "spx-ipu.h"
#include "spx-ipu-cost.h"
#include "spx-util.h"

#include <math.h>

#define MAX_ROUNDS     64u
#define MAX_SIDES      281474976710656.0     /* 2^48 elements per operand */
#define MAX_PRODUCT    1152921504606846976.0 /* 2^60 MACs */

/* pm × pn × pk tiles; when the slices do not fit at once, the columns of
 * each tile's X slice are taken in `rounds` serial rounds (W stays).
 * Partial sums are fp32 (poplin's default) or the dtype (as a static
 * program keeps them): half the bytes to exchange for fp16. */
typedef struct {
  guint64  pm, pn, pk, rounds;
  SpxDtype partials;
} Split;

/* Everything the cost of a split depends on. */
typedef struct {
  const SpxIpuMachine *machine;
  guint64  m, k, n;
  SpxDtype dtype;
  guint    bytes;       /* per element of W, X and Y */
  guint64  home_rows, home_cols; /* the grid X starts spread over */
  guint64  home_most;   /* elements of X the fullest home holds */
  guint64  budget;
} Problem;

/* ---- near-even splits: part i of len items over parts ---------------- */

static guint64
part_start (guint64 len, guint64 parts, guint64 i)
{
  /* (len / parts)·i + (len % parts)·i / parts, free of overflow */
  return len / parts * i + len % parts * i / parts;
}

static guint64
part_size (guint64 len, guint64 parts, guint64 i)
{
  return part_start (len, parts, i + 1) - part_start (len, parts, i);
}

/* The part holding item x. */
static guint64
part_of (guint64 len, guint64 parts, guint64 x)
{
  guint64 i = (guint64) ((double) x / (double) len * (double) parts);
  i = MIN (i, parts - 1);
  while (i > 0 && part_start (len, parts, i) > x)
    i--;
  while (i + 1 < parts && part_start (len, parts, i + 1) <= x)
    i++;
  return i;
}

/* ---- the cost model -------------------------------------------------- */

/* Serial rounds pay the fixed costs once each: exchange overhead and
 * syncs. Bytes move at the same rate however they are cut. */
static guint64
rounds_exchange (const Problem *pb, guint64 rounds, guint64 busiest,
                 GArray *terms)
{
  SpxIpuTraffic t = { (double) busiest, 0, 0, (guint) rounds };
  return spx_ipu_cost_exchange (pb->machine, &t, terms);
}

/* Adding pk partials of `share` outputs and writing the result. */
static guint64
reduce_tile_cycles (const Problem *pb, Split s, guint64 share, GArray *terms)
{
  if (share == 0 || s.pk < 2)
    return 0;
  return spx_ipu_cost_reduce (pb->machine, s.partials, share, (double) s.pk,
                              terms);
}

typedef struct {
  guint64 cycles;
  guint64 temporary; /* the largest tile's slices, partials and buffers */
  guint64 bytes;     /* and with its share of the operands and the output */
  guint64 output;    /* of which the output */
} Cost;

/* The slowest tile of each superstep and the largest footprint, from the
 * largest slices (near-even parts differ by one item at most). */
static Cost
cost_of (const Problem *pb, Split s)
{
  guint64 B = pb->bytes, r = s.rounds;
  guint64 mt = spx_ipu_div_up (pb->m, s.pm), kt = spx_ipu_div_up (pb->k, s.pk);
  guint64 nt = spx_ipu_div_up (pb->n, s.pn), nr = spx_ipu_div_up (nt, r);
  /* W's slice comes from the pn tiles sharing it, but the tile's own
   * part; a part and X's home share go out once each (a broadcast) */
  guint64 w = mt * kt, own = w / s.pn;
  guint64 in = (w - own + kt * nt) * B;
  guint64 out = (pb->home_most + (s.pn > 1 ? spx_ipu_div_up (w, s.pn) : 0)) *
                B;
  Cost c = { 0, 0, 0, 0 };
  /* rounds take nr or nr − 1 columns, as the build deals them */
  guint64 wide = nt % r ? nt % r : r, narrow = r - wide;
  c.cycles = spx_ipu_cost_sync (pb->machine, (guint) r, NULL) +
             rounds_exchange (pb, r, MAX (in, out), NULL) +
             spx_ipu_cost_dense_vertex (pb->machine, pb->dtype, mt, kt, nr,
                                        NULL) * wide +
             spx_ipu_cost_dense_vertex (pb->machine, pb->dtype, mt, kt,
                                        nr - 1, NULL) * narrow;
  c.temporary = (mt * kt + kt * nr) * B;
  guint64 output = mt * nt * B;
  if (s.pk > 1)
    {
      guint64 band = spx_ipu_div_up (mt, s.pk); /* whole rows */
      guint64 share = band * nr;
      guint64 pbytes = spx_ipu_dtype_bytes (s.partials);
      guint64 moved = (s.pk - 1) * share * pbytes;
      c.cycles += spx_ipu_cost_sync (pb->machine, (guint) r, NULL) +
                  rounds_exchange (pb, r, (s.pk - 1) * band * nt * pbytes,
                                   NULL) +
                  reduce_tile_cycles (pb, s, share, NULL) * wide +
                  reduce_tile_cycles (pb, s, share - band, NULL) * narrow;
      c.temporary += mt * nr * pbytes + moved;
      output = spx_ipu_div_up (mt, s.pk) * nt * B;
    }
  c.bytes = c.temporary + pb->home_most * B + output;
  c.output = output;
  return c;
}

/* The rule of every plan (spx_ipu_program_finish). */
static gboolean
cost_fits (const Problem *pb, Cost c)
{
  return spx_ipu_tile_fits (pb->machine, (double) c.bytes,
                            (double) c.output);
}

/* The fewest rounds that fit (each round costs its fixed overheads),
 * estimated from the bytes a column of X brings and then stepped up; one
 * round when nothing fits. */
static Cost
cost_rounds (const Problem *pb, Split *s)
{
  guint64 nt = spx_ipu_div_up (pb->n, s->pn);
  guint64 mt = spx_ipu_div_up (pb->m, s->pm), kt = spx_ipu_div_up (pb->k, s->pk);
  guint64 resident = mt * kt * pb->bytes;
  guint64 per_column = kt * pb->bytes +
                       (s->pk > 1 ? 2 * mt * spx_ipu_dtype_bytes (s->partials)
                                  : 0);
  guint64 most = MIN (nt, MAX_ROUNDS);
  s->rounds = 1;
  if (resident < pb->budget)
    s->rounds = CLAMP (spx_ipu_div_up (nt * per_column, pb->budget - resident), 1,
                       most);
  Cost c = cost_of (pb, *s);
  while (!cost_fits (pb, c) && s->rounds < most && resident < pb->budget)
    {
      s->rounds = MIN (most, s->rounds + 1 + s->rounds / 8);
      c = cost_of (pb, *s);
    }
  if (!cost_fits (pb, c) && s->rounds > 1)
    {
      /* rounds cannot save it: the cheapest form of a split that fails */
      s->rounds = 1;
      c = cost_of (pb, *s);
    }
  return c;
}

/* ---- the search ------------------------------------------------------ */

/* Part counts worth trying for a side of len items: for every distinct
 * largest part, the fewest parts that give it (more parts of the same size
 * only use more tiles and send more). */
static GArray *
candidates (guint64 len, guint64 most)
{
  GArray *c = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint64 v = 1;
  while (v <= MIN (len, most))
    {
      g_array_append_val (c, v);
      guint64 s = spx_ipu_div_up (len, v);
      if (s == 1)
        break;
      v = spx_ipu_div_up (len, s - 1);
    }
  return c;
}

static gboolean
better (Cost a, Split sa, gboolean fits_a, Cost b, Split sb, gboolean fits_b)
{
  if (fits_a != fits_b)
    return fits_a;
  if (a.cycles != b.cycles)
    return a.cycles < b.cycles;
  return sa.pm * sa.pn * sa.pk < sb.pm * sb.pn * sb.pk;
}

/* The best so far. */
typedef struct {
  Split    split;
  Cost     cost;
  gboolean fits;
} Best;

/* Cost (pm, pn, pk) with each type of partials it may keep. */
static void
try_split (const Problem *pb, guint64 pm, guint64 pn, guint64 pk, Best *best)
{
  SpxDtype types[2] = { SPX_DTYPE_FP32, pb->dtype };
  guint n_types = pk > 1 && pb->dtype != SPX_DTYPE_FP32 ? 2 : 1;
  for (guint i = 0; i < n_types; i++)
    {
      Split s = { pm, pn, pk, 1, types[i] };
      Cost cost = cost_rounds (pb, &s);
      gboolean ok = cost_fits (pb, cost);
      if (better (cost, s, ok, best->cost, best->split, best->fits))
        *best = (Best) { s, cost, ok };
    }
}

/* FALSE (and an error) when cancelled. */
static gboolean
search (const Problem *pb, Split *out, gboolean *fits, GError **error)
{
  guint64 tiles = pb->machine->tiles;
  g_autoptr (GArray) cm = candidates (pb->m, tiles);
  g_autoptr (GArray) cn = candidates (pb->n, tiles);
  g_autoptr (GArray) ck = candidates (pb->k, tiles);
  Best best = { { 1, 1, 1, 1, SPX_DTYPE_FP32 }, { 0 }, FALSE };
  best.cost = cost_rounds (pb, &best.split);
  best.fits = cost_fits (pb, best.cost);
  for (guint a = 0; a < cm->len; a++)
    {
      guint64 pm = g_array_index (cm, guint64, a);
      for (guint b = 0; b < cn->len; b++)
        {
          guint64 pn = g_array_index (cn, guint64, b);
          if (pm * pn > tiles)
            break;
          if (spx_cancelled (error))
            return FALSE;
          for (guint c = 0; c < ck->len; c++)
            {
              guint64 pk = g_array_index (ck, guint64, c);
              if (pm * pn * pk > tiles)
                break;
              try_split (pb, pm, pn, pk, &best);
            }
        }
    }
  *out = best.split;
  *fits = best.fits;
  return TRUE;
}

/* ---- building the program -------------------------------------------- */

/* Tile (i, j, l): the pk tiles that reduce one output slice sit side by
 * side. */
static guint32
tile_of (Split s, guint64 i, guint64 j, guint64 l)
{
  return (guint32) ((i * s.pn + j) * s.pk + l);
}

/* What one destination gathers of an operand: from each source tile one
 * rectangle (the operand's slice within that home's part). */
typedef struct {
  guint64     *bytes;   /* per source tile */
  SpxIpuPiece *what;    /* per source tile */
  GArray      *touched; /* guint32 sources with bytes */
} Inbox;

static void
inbox_init (Inbox *box, guint n_tiles)
{
  box->bytes = g_new0 (guint64, n_tiles);
  box->what = g_new0 (SpxIpuPiece, n_tiles);
  box->touched = g_array_new (FALSE, FALSE, sizeof (guint32));
}

static void
inbox_clear (Inbox *box)
{
  g_free (box->bytes);
  g_free (box->what);
  g_array_unref (box->touched);
}

static void
inbox_add (Inbox *box, guint32 src, guint64 bytes, const SpxIpuPiece *what)
{
  if (bytes == 0)
    return;
  g_array_append_val (box->touched, src);
  box->bytes[src] = bytes;
  box->what[src] = *what;
}

/* Send what dst gathered. A piece is broadcast to every tile that needs
 * it: it counts out of its source only for its first receiver other
 * than the source, first_dst (or, if that is the source, second_dst). */
static void
inbox_flush (Inbox *box, SpxIpuProgram *p, SpxIpuStep *step, guint32 dst,
             guint32 first_dst, guint32 second_dst)
{
  for (guint i = 0; i < box->touched->len; i++)
    {
      guint32 src = g_array_index (box->touched, guint32, i);
      guint32 counted = src == first_dst ? second_dst : first_dst;
      spx_ipu_step_set_piece (step, &box->what[src]);
      if (dst == counted)
        spx_ipu_step_send (p, step, src, dst, box->bytes[src]);
      else
        spx_ipu_step_resend (p, step, src, dst, box->bytes[src]);
      box->bytes[src] = 0;
    }
  g_array_set_size (box->touched, 0);
}

/* The rows r0..r1 and columns c0..c1 of a rows × cols operand (of kind:
 * W or X), spread over the home grid, as a piece from each home tile. */
static void
gather (const Problem *pb, Inbox *box, SpxByteKind kind, guint64 rows,
        guint64 cols, guint64 r0, guint64 r1, guint64 c0, guint64 c1)
{
  if (r0 >= r1 || c0 >= c1)
    return;
  guint64 hr = pb->home_rows, hc = pb->home_cols;
  guint64 a1 = part_of (rows, hr, r1 - 1), b1 = part_of (cols, hc, c1 - 1);
  for (guint64 a = part_of (rows, hr, r0); a <= a1; a++)
    {
      guint64 lo = MAX (r0, part_start (rows, hr, a));
      guint64 hi = MIN (r1, part_start (rows, hr, a + 1));
      for (guint64 b = part_of (cols, hc, c0); b <= b1; b++)
        {
          guint64 left = MAX (c0, part_start (cols, hc, b));
          guint64 right = MIN (c1, part_start (cols, hc, b + 1));
          SpxIpuPiece what = spx_ipu_piece (kind, lo, hi, left, right);
          if (hi > lo && right > left)
            inbox_add (box, (guint32) (a * hc + b),
                       (hi - lo) * (right - left) * pb->bytes, &what);
        }
    }
}

/* Elements of X home tile (a, b) holds. */
static guint64
home_elements (const Problem *pb, guint64 a, guint64 b)
{
  guint64 hr = pb->home_rows, hc = pb->home_cols;
  return part_size (pb->k, hr, a) * part_size (pb->n, hc, b);
}

/* The most any home tile holds (and may have to send). */
static guint64
home_most (const Problem *pb)
{
  guint64 most = 0;
  for (guint64 a = 0; a < pb->home_rows; a++)
    for (guint64 b = 0; b < pb->home_cols; b++)
      most = MAX (most, home_elements (pb, a, b));
  return most;
}

static void
place_homes (const Problem *pb, SpxIpuProgram *p)
{
  guint64 hr = pb->home_rows, hc = pb->home_cols;
  for (guint64 a = 0; a < hr; a++)
    for (guint64 b = 0; b < hc; b++)
      {
        SpxIpuTile *t = &p->tiles[a * hc + b];
        t->bytes[SPX_BYTES_INPUT] += part_size (pb->k, hr, a) *
                                     part_size (pb->n, hc, b) * pb->bytes;
      }
}

/* W is a weight: it lies where the plan uses it. The pn tiles (i, *, l)
 * that multiply the slice rows r0..r1 × columns k0..k1 each own a
 * near-even part of it (row-major) and broadcast it to the others:
 * tile (i, j, l) receives its peers' parts. */
static void
share_w (const Problem *pb, SpxIpuProgram *p, SpxIpuStep *step, Split s,
         guint64 i, guint64 j, guint64 l, const guint64 *slice)
{
  guint64 r0 = slice[0], k0 = slice[2], kw = slice[3] - slice[2];
  guint64 e = (slice[1] - r0) * kw;
  guint32 dst = tile_of (s, i, j, l), first = tile_of (s, i, 0, l);
  guint32 second = tile_of (s, i, MIN (1, s.pn - 1), l);
  /* each owner of a part with items, in order: a slice smaller than pn
   * leaves most parts empty, and skipping them keeps this min (e, pn) */
  for (guint64 a = 0, z; a < e; a = z)
    {
      guint64 from = part_of (e, s.pn, a);
      z = part_start (e, s.pn, from + 1);
      guint32 src = tile_of (s, i, from, l);
      if (from == j)
        continue;
      SpxIpuPiece what = spx_ipu_piece (SPX_BYTES_VALUES, r0 + a / kw,
                                        r0 + (z - 1) / kw + 1, k0, k0 + kw);
      spx_ipu_step_set_piece (step, &what);
      if (dst == (src == first ? second : first))
        spx_ipu_step_send (p, step, src, dst, (z - a) * pb->bytes);
      else
        spx_ipu_step_resend (p, step, src, dst, (z - a) * pb->bytes);
    }
}

/* Every tile receives its slice of X from its home tiles, and of W from
 * the tiles sharing it. FALSE when cancelled. */
static gboolean
distribute (const Problem *pb, SpxIpuProgram *p, Split s, GError **error)
{
  SpxIpuStep *step = spx_ipu_program_add_exchange (p, "distribute");
  Inbox xbox;
  inbox_init (&xbox, p->n_tiles);
  gboolean cancelled = FALSE;
  for (guint64 i = 0; i < s.pm && !cancelled; i++)
    for (guint64 j = 0; j < s.pn && !(cancelled = spx_cancelled (error)); j++)
      for (guint64 l = 0; l < s.pk; l++)
        {
          guint64 r0 = part_start (pb->m, s.pm, i);
          guint64 r1 = part_start (pb->m, s.pm, i + 1);
          guint64 k0 = part_start (pb->k, s.pk, l);
          guint64 k1 = part_start (pb->k, s.pk, l + 1);
          guint64 c0 = part_start (pb->n, s.pn, j);
          guint64 c1 = part_start (pb->n, s.pn, j + 1);
          guint32 dst = tile_of (s, i, j, l);
          guint64 slice[4] = { r0, r1, k0, k1 };
          share_w (pb, p, step, s, i, j, l, slice);
          /* X's piece goes to the pm tiles of (j, l) */
          gather (pb, &xbox, SPX_BYTES_INPUT, pb->k, pb->n, k0, k1, c0, c1);
          inbox_flush (&xbox, p, step, dst, tile_of (s, 0, j, l),
                       tile_of (s, MIN (1, s.pm - 1), j, l));
          SpxIpuTile *t = &p->tiles[dst];
          t->bytes[SPX_BYTES_VALUES] += (r1 - r0) * (k1 - k0) * pb->bytes;
          /* one round's columns at a time */
          t->bytes[SPX_BYTES_INPUT] += (k1 - k0) *
                                       spx_ipu_div_up (c1 - c0, s.rounds) * pb->bytes;
        }
  inbox_clear (&xbox);
  return !cancelled;
}

/* A tile's rounds of its mt × kt × nt product: count rounds of cols
 * columns each, of at most two sizes. With terms, one term per vertex
 * term, the rounds of both sizes added together. */
static guint64
tile_compute (const Problem *pb, Split s, guint64 mt, guint64 kt,
              guint64 nt, GArray *terms)
{
  guint64 cols[2] = { spx_ipu_div_up (nt, s.rounds), nt / s.rounds };
  guint64 count[2] = { nt % s.rounds ? nt % s.rounds : s.rounds, 0 };
  count[1] = s.rounds - count[0];
  GArray *one[2] = { NULL, NULL };
  guint64 total = 0;
  for (guint i = 0; i < 2; i++)
    if (count[i] > 0 && cols[i] > 0)
      {
        one[i] = terms ? spx_ipu_terms_new () : NULL;
        total += count[i] * spx_ipu_cost_dense_vertex (pb->machine, pb->dtype,
                                                       mt, kt, cols[i],
                                                       one[i]);
      }
  for (guint j = 0; terms && one[0] && j < one[0]->len; j++)
    {
      const SpxIpuTerm *a = &g_array_index (one[0], SpxIpuTerm, j);
      const SpxIpuTerm *b = one[1] ? &g_array_index (one[1], SpxIpuTerm, j)
                                   : NULL;
      if (s.rounds == 1)
        spx_ipu_terms_add (terms, a->term, a->cycles, "%s", a->formula);
      else if (b == NULL)
        spx_ipu_terms_add (terms, a->term, a->cycles * count[0],
                           "%" G_GUINT64_FORMAT " rounds × (%s)", count[0],
                           a->formula);
      else
        spx_ipu_terms_add (terms, a->term,
                           a->cycles * count[0] + b->cycles * count[1],
                           "%" G_GUINT64_FORMAT " round%s of %" G_GUINT64_FORMAT
                           " columns × %" G_GUINT64_FORMAT " + %"
                           G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " × %"
                           G_GUINT64_FORMAT, count[0],
                           count[0] == 1 ? "" : "s", cols[0], a->cycles,
                           count[1], cols[1], b->cycles);
      if (s.rounds == 1)
        spx_ipu_terms_say (terms, "%s", a->words ? a->words : a->formula);
      else if (b == NULL)
        spx_ipu_terms_say (terms, "in each of %" G_GUINT64_FORMAT " rounds "
                           "of columns, %s", count[0],
                           a->words ? a->words : a->formula);
      else
        spx_ipu_terms_say (terms, "%" G_GUINT64_FORMAT " round%s of %"
                           G_GUINT64_FORMAT " columns at %" G_GUINT64_FORMAT
                           " cycles and %" G_GUINT64_FORMAT " of %"
                           G_GUINT64_FORMAT " at %" G_GUINT64_FORMAT "; in "
                           "each of the first, %s", count[0],
                           count[0] == 1 ? "" : "s", cols[0], a->cycles,
                           count[1], cols[1], b->cycles,
                           a->words ? a->words : a->formula);
    }
  spx_ipu_terms_free (one[0]);
  spx_ipu_terms_free (one[1]);
  return total;
}

static void
compute (const Problem *pb, SpxIpuProgram *p, Split s)
{
  SpxIpuStep *step = spx_ipu_program_add_compute (p, "compute");
  for (guint64 i = 0; i < s.pm; i++)
    for (guint64 j = 0; j < s.pn; j++)
      for (guint64 l = 0; l < s.pk; l++)
        {
          guint64 mt = part_size (pb->m, s.pm, i);
          guint64 nt = part_size (pb->n, s.pn, j);
          guint64 kt = part_size (pb->k, s.pk, l);
          guint32 t = tile_of (s, i, j, l);
          step->tile_cycles[t] = tile_compute (pb, s, mt, kt, nt, NULL);
          p->tiles[t].macs = mt * kt * nt;
          if (s.pk == 1)
            p->tiles[t].bytes[SPX_BYTES_OUTPUT] += mt * nt * pb->bytes;
          else /* one round's partials at a time */
            p->tiles[t].bytes[SPX_BYTES_PARTIALS] +=
              mt * spx_ipu_div_up (nt, s.rounds) *
              spx_ipu_dtype_bytes (s.partials);
        }
}

/* In each round the pk tiles of an output slice each own a near-even band
 * of its rows (whole rows, so over all rounds a rectangle) and receive the
 * others' partials for it, then add them. */
static void
reduce_slice (const Problem *pb, SpxIpuProgram *p, SpxIpuStep *ex,
              SpxIpuStep *add, Split s, guint64 i, guint64 j)
{
  guint64 mt = part_size (pb->m, s.pm, i), nt = part_size (pb->n, s.pn, j);
  guint64 r0 = part_start (pb->m, s.pm, i), c0 = part_start (pb->n, s.pn, j);
  for (guint64 l = 0; l < s.pk; l++)
    {
      guint32 dst = tile_of (s, i, j, l);
      guint64 shares = 0, largest = 0, band = part_size (mt, s.pk, l);
      SpxIpuPiece what = spx_ipu_piece (
        SPX_BYTES_PARTIALS, r0 + part_start (mt, s.pk, l),
        r0 + part_start (mt, s.pk, l + 1), c0, c0 + nt);
      spx_ipu_step_set_piece (ex, &what);
      for (guint64 r = 0; r < s.rounds; r++)
        {
          guint64 share = band * part_size (nt, s.rounds, r);
          add->tile_cycles[dst] += reduce_tile_cycles (pb, s, share, NULL);
          shares += share;
          largest = MAX (largest, share);
        }
      guint64 pbytes = spx_ipu_dtype_bytes (s.partials);
      for (guint64 from = 0; from < s.pk; from++)
        spx_ipu_step_send (p, ex, tile_of (s, i, j, from), dst,
                           shares * pbytes);
      SpxIpuTile *t = &p->tiles[dst];
      t->bytes[SPX_BYTES_PARTIALS] += (s.pk - 1) * largest * pbytes;
      t->bytes[SPX_BYTES_OUTPUT] += shares * pb->bytes;
    }
}

static gboolean
reduce (const Problem *pb, SpxIpuProgram *p, Split s, GError **error)
{
  SpxIpuStep *ex = spx_ipu_program_add_exchange (p, "reduce");
  guint ex_index = p->steps->len - 1;
  SpxIpuStep *add = spx_ipu_program_add_compute (p, "reduce");
  /* adding steps may move the array: find the exchange again after */
  ex = &g_array_index (p->steps, SpxIpuStep, ex_index);
  for (guint64 i = 0; i < s.pm; i++)
    for (guint64 j = 0; j < s.pn; j++)
      {
        if (spx_cancelled (error))
          return FALSE;
        reduce_slice (pb, p, ex, add, s, i, j);
      }
  return TRUE;
}

/* The busiest tile's traffic of an exchange step, in or out. */
static guint64
busiest (const SpxIpuProgram *p, SpxIpuStep *step)
{
  guint64 most = 0;
  for (guint t = 0; t < p->n_tiles; t++)
    if (MAX (step->bytes_in[t], step->bytes_out[t]) > most)
      {
        most = MAX (step->bytes_in[t], step->bytes_out[t]);
        step->worst_tile = t;
      }
  return most;
}

/* The slowest reducer's rounds: each term added up over its rounds. */
static void
explain_reduce (const Problem *pb, SpxIpuProgram *p, SpxIpuStep *add, Split s)
{
  guint32 t = spx_ipu_step_slowest (p, add);
  guint64 l = t % s.pk, j = t / s.pk % s.pn, i = t / s.pk / s.pn;
  guint64 mt = part_size (pb->m, s.pm, i), nt = part_size (pb->n, s.pn, j);
  add->worst_tile = t;
  g_autoptr (GArray) first = spx_ipu_terms_new ();
  g_autoptr (GArray) round = spx_ipu_terms_new ();
  guint64 sums[8] = { 0 };
  for (guint64 r = 0; r < s.rounds; r++)
    {
      g_array_set_size (round, 0);
      reduce_tile_cycles (pb, s, part_size (mt, s.pk, l) *
                                 part_size (nt, s.rounds, r),
                          r == 0 ? first : round);
      GArray *got = r == 0 ? first : round;
      for (guint k = 0; k < MIN (got->len, G_N_ELEMENTS (sums)); k++)
        sums[k] += g_array_index (got, SpxIpuTerm, k).cycles;
    }
  for (guint k = 0; k < MIN (first->len, G_N_ELEMENTS (sums)); k++)
    {
      const SpxIpuTerm *f = &g_array_index (first, SpxIpuTerm, k);
      if (s.rounds == 1)
        spx_ipu_terms_add (add->terms, f->term, f->cycles, "%s", f->formula);
      else
        spx_ipu_terms_add (add->terms, f->term, sums[k],
                           "%" G_GUINT64_FORMAT " rounds, the first: %s",
                           s.rounds, f->formula);
      if (s.rounds == 1)
        spx_ipu_terms_say (add->terms, "%s", f->words ? f->words : f->formula);
      else
        spx_ipu_terms_say (add->terms, "summed over %" G_GUINT64_FORMAT
                           " rounds of columns; in the first, %s", s.rounds,
                           f->words ? f->words : f->formula);
    }
}

/* Explain every step (finish costs a step from its terms): syncs and
 * exchanges pay their fixed costs once per round; compute, the slowest
 * tile. */
static void
explain (const Problem *pb, SpxIpuProgram *p, Split s)
{
  for (guint i = 0; i < p->steps->len; i++)
    {
      SpxIpuStep *step = &g_array_index (p->steps, SpxIpuStep, i);
      if (step->kind == SPX_STEP_SYNC)
        spx_ipu_cost_sync (pb->machine, (guint) s.rounds, step->terms);
      else if (step->kind == SPX_STEP_EXCHANGE)
        rounds_exchange (pb, s.rounds, busiest (p, step), step->terms);
      else if (g_str_equal (step->phase, "compute"))
        {
          guint32 t = spx_ipu_step_slowest (p, step);
          guint64 l = t % s.pk, j = t / s.pk % s.pn, m = t / s.pk / s.pn;
          step->worst_tile = t;
          tile_compute (pb, s, part_size (pb->m, s.pm, m),
                        part_size (pb->k, s.pk, l),
                        part_size (pb->n, s.pn, j), step->terms);
        }
      else
        explain_reduce (pb, p, step, s);
    }
}

static gboolean
build (const Problem *pb, SpxIpuProgram *p, Split s, GError **error)
{
  place_homes (pb, p);
  spx_ipu_program_add_sync (p, "sync");
  if (!distribute (pb, p, s, error))
    return FALSE;
  compute (pb, p, s);
  if (s.pk > 1)
    {
      spx_ipu_program_add_sync (p, "sync");
      if (!reduce (pb, p, s, error))
        return FALSE;
    }
  explain (pb, p, s);
  p->partials = s.partials;
  p->plan = g_strdup_printf ("pM=%" G_GUINT64_FORMAT " pN=%" G_GUINT64_FORMAT
                             " pK=%" G_GUINT64_FORMAT " rounds=%"
                             G_GUINT64_FORMAT "%s%s", s.pm, s.pn, s.pk,
                             s.rounds, s.partials == SPX_DTYPE_FP32 ? ""
                             : " partials=", s.partials == SPX_DTYPE_FP32
                             ? "" : spx_dtype_to_string (s.partials));
  return TRUE;
}

/* The operands start spread over the tile array as it is drawn: a grid of
 * home tiles, rows of the grid over the rows of each operand. */
static void
home_grid (const SpxIpuMachine *machine, guint64 *rows, guint64 *cols)
{
  *cols = MIN (machine->grid_width, machine->tiles);
  *rows = machine->tiles / *cols;
}

/* ---- what the program holds ------------------------------------------ */

/* Home tiles along one side that the parts of len items over parts
 * cover, summed over the parts: a part spans the homes from its first
 * item's to its last's. */
static double
homes_spanned (guint64 len, guint64 parts, guint64 homes)
{
  double sum = 0;
  for (guint64 i = 0; i < parts; i++)
    {
      guint64 lo = part_start (len, parts, i);
      guint64 hi = part_start (len, parts, i + 1);
      if (hi > lo)
        sum += (double) (part_of (len, homes, hi - 1) -
                         part_of (len, homes, lo) + 1);
    }
  return sum;
}

/* The program's per-tile arrays and transfers against the memory budget,
 * before it is built: each tile gathers X's slice from the home tiles it
 * spans and W's from its pn - 1 peers; each of pk tiles sends partials to
 * the pk - 1 others. */
static gboolean
check_budget (const Problem *pb, Split s, GError **error)
{
  guint64 hr = pb->home_rows, hc = pb->home_cols;
  double gathers = (double) s.pm * s.pk * s.pn * (s.pn - 1) +
                   (double) s.pm * homes_spanned (pb->k, s.pk, hr) *
                   homes_spanned (pb->n, s.pn, hc);
  double partials = (double) s.pm * s.pn * s.pk * (s.pk - 1);
  double reduce = s.pk > 1;
  guint tiles = pb->machine->tiles;
  double bytes = spx_ipu_program_bytes (tiles, 1 + reduce, 1 + reduce) +
                 spx_ipu_transfers_bytes (tiles, gathers) +
                 spx_ipu_transfers_bytes (tiles, partials) +
                 /* the inbox */
                 1.0 * tiles * (sizeof (guint64) + sizeof (SpxIpuPiece) +
                                sizeof (guint32));
  g_autofree char *what = g_strdup_printf (
    "the dense plan (%" G_GUINT64_FORMAT "×%" G_GUINT64_FORMAT "×%"
    G_GUINT64_FORMAT ", %u tiles)", pb->m, pb->k, pb->n, tiles);
  return spx_budget_check_estimate (bytes, what, error);
}

/* Created with density 1: callers reporting a sparse problem against it
 * set program->density and rescale nz_tflops (= tflops × density). */
SpxIpuProgram *
spx_ipu_plan_dense (const SpxIpuMachine *machine, guint64 m, guint64 k,
                    guint64 n, SpxDtype dtype, GError **error)
{
  if (!spx_ipu_machine_validate (machine, error))
    return NULL;
  /* Far beyond any machine, and every count stays inside 64 bits. */
  double dm = (double) m, dk = (double) k, dn = (double) n;
  if (m == 0 || k == 0 || n == 0 || dm * dk > MAX_SIDES ||
      dk * dn > MAX_SIDES || dm * dn > MAX_SIDES || dm * dk * dn > MAX_PRODUCT)
    {
      g_set_error (error, SPX_IPU_ERROR, SPX_IPU_ERROR_INVALID,
                   "dense product %" G_GUINT64_FORMAT "×%" G_GUINT64_FORMAT
                   "×%" G_GUINT64_FORMAT ": expected sides of at least 1, "
                   "operands of at most 2^48 elements and at most 2^60 "
                   "multiply-accumulates", m, k, n);
      return NULL;
    }
  dtype = spx_dtype_on_ipu (dtype); /* the IPU has no bf16 */
  Problem pb = { machine, m, k, n, dtype, spx_ipu_dtype_bytes (dtype), 0, 0, 0,
                 spx_ipu_tile_budget (machine) };
  home_grid (machine, &pb.home_rows, &pb.home_cols);
  pb.home_most = home_most (&pb);
  gboolean fits = FALSE;
  Split s;
  if (!search (&pb, &s, &fits, error) || !check_budget (&pb, s, error))
    return NULL;
  SpxIpuProgram *p = spx_ipu_program_new (SPX_IPU_MODE_DENSE, machine, m, k,
                                          n, 1, dtype, 1.0);
  p->estimate = cost_of (&pb, s).cycles;
  if (!build (&pb, p, s, error))
    {
      spx_ipu_program_free (p);
      return NULL;
    }
  spx_ipu_program_finish (p);
  return p;
}
