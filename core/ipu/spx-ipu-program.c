/* spx-ipu-program.c: BSP programs: building, costing, totals */
#include "spx-ipu-program.h"
#include "spx-ipu-cost.h"
#include "spx-util.h"

#include <string.h>

static const char *const mode_names[] = { "dense", "static", "dynamic" };

const char *
spx_ipu_mode_to_string (SpxIpuMode mode)
{
  return mode_names[mode];
}

SpxIpuProgram *
spx_ipu_program_new (SpxIpuMode mode, const SpxIpuMachine *machine,
                     guint64 m, guint64 k, guint64 n, guint block,
                     SpxDtype dtype, double density)
{
  SpxIpuProgram *p = g_new0 (SpxIpuProgram, 1);
  p->mode = mode;
  p->machine = spx_ipu_machine_copy (machine);
  p->m = m;
  p->k = k;
  p->n = n;
  p->block = block;
  p->dtype = dtype;
  p->density = density;
  p->partials = spx_ipu_cost_partials (mode, dtype);
  p->n_tiles = machine->tiles;
  p->tiles = g_new0 (SpxIpuTile, machine->tiles);
  p->steps = g_array_new (FALSE, TRUE, sizeof (SpxIpuStep));
  p->phases = g_array_new (FALSE, TRUE, sizeof (SpxIpuPhase));
  return p;
}

const char *
spx_ipu_step_kind_to_string (SpxStepKind kind)
{
  static const char *const names[] = { "compute", "sync", "exchange" };
  return names[kind];
}

static void
step_clear (SpxIpuStep *s)
{
  if (s->terms)
    spx_ipu_terms_free (s->terms);
  g_free (s->phase);
  g_free (s->bytes_in);
  g_free (s->bytes_out);
  g_free (s->tile_cycles);
  if (s->transfers)
    g_array_unref (s->transfers);
  if (s->pieces)
    g_array_unref (s->pieces);
}

void
spx_ipu_program_free (SpxIpuProgram *p)
{
  if (p == NULL)
    return;
  for (guint i = 0; i < p->steps->len; i++)
    step_clear (&g_array_index (p->steps, SpxIpuStep, i));
  g_array_unref (p->steps);
  for (guint i = 0; i < p->phases->len; i++)
    g_free (g_array_index (p->phases, SpxIpuPhase, i).name);
  g_array_unref (p->phases);
  for (guint t = 0; t < p->n_tiles; t++)
    if (p->tiles[t].blocks)
      g_array_unref (p->tiles[t].blocks);
  g_free (p->tiles);
  spx_ipu_machine_free (p->machine);
  g_free (p->plan);
  g_free (p->row_group);
  g_free (p->col_group);
  g_free (p);
}

static SpxIpuStep *
add_step (SpxIpuProgram *p, SpxStepKind kind, const char *phase)
{
  SpxIpuStep step = { .kind = kind, .phase = g_strdup (phase),
                      .terms = spx_ipu_terms_new () };
  g_array_append_val (p->steps, step);
  return &g_array_index (p->steps, SpxIpuStep, p->steps->len - 1);
}

SpxIpuStep *
spx_ipu_program_add_compute (SpxIpuProgram *p, const char *phase)
{
  SpxIpuStep *s = add_step (p, SPX_STEP_COMPUTE, phase);
  s->tile_cycles = g_new0 (guint64, p->n_tiles);
  return s;
}

SpxIpuStep *
spx_ipu_program_add_exchange (SpxIpuProgram *p, const char *phase)
{
  SpxIpuStep *s = add_step (p, SPX_STEP_EXCHANGE, phase);
  s->bytes_in = g_new0 (guint64, p->n_tiles);
  s->bytes_out = g_new0 (guint64, p->n_tiles);
  s->transfers = g_array_new (FALSE, FALSE, sizeof (SpxIpuTransfer));
  if (p->n_tiles <= SPX_IPU_PIECES_MAX_TILES)
    s->pieces = g_array_new (FALSE, FALSE, sizeof (SpxIpuPiece));
  return s;
}

void
spx_ipu_program_add_sync (SpxIpuProgram *p, const char *phase)
{
  add_step (p, SPX_STEP_SYNC, phase);
}

void
spx_ipu_step_send (SpxIpuProgram *p, SpxIpuStep *step, guint32 src,
                   guint32 dst, guint64 bytes)
{
  g_return_if_fail (step->kind == SPX_STEP_EXCHANGE);
  g_return_if_fail (src < p->n_tiles && dst < p->n_tiles);
  if (bytes == 0 || src == dst) /* on-tile data does not move */
    return;
  step->bytes_out[src] += bytes;
  step->bytes_in[dst] += bytes;
  if (step->transfers == NULL) /* counting only */
    return;
  SpxIpuTransfer t = { src, dst, bytes };
  g_array_append_val (step->transfers, t);
  if (step->pieces)
    g_array_append_val (step->pieces, step->piece);
}

void
spx_ipu_step_resend (SpxIpuProgram *p, SpxIpuStep *step, guint32 src,
                     guint32 dst, guint64 bytes)
{
  g_return_if_fail (step->kind == SPX_STEP_EXCHANGE);
  g_return_if_fail (src < p->n_tiles && dst < p->n_tiles);
  if (bytes == 0 || src == dst)
    return;
  step->bytes_in[dst] += bytes;
  if (step->transfers == NULL)
    return;
  SpxIpuTransfer t = { src, dst, bytes };
  g_array_append_val (step->transfers, t);
  if (step->pieces)
    g_array_append_val (step->pieces, step->piece);
}

void
spx_ipu_step_set_piece (SpxIpuStep *step, const SpxIpuPiece *what)
{
  step->piece = *what;
}

SpxIpuPiece
spx_ipu_piece (SpxByteKind kind, guint64 row0, guint64 row1, guint64 col0,
               guint64 col1)
{
  SpxIpuPiece w = { kind, 0, 0, 0, 0 };
  if (MAX (row1, col1) <= G_MAXUINT32)
    {
      w.row0 = (guint32) row0;
      w.row1 = (guint32) row1;
      w.col0 = (guint32) col0;
      w.col1 = (guint32) col1;
    }
  return w;
}

/* "rows 64–127, columns 0–31, " or "" when the ranges are not known. */
static char *
ranges_text (const SpxIpuPiece *w)
{
  if (w->row1 <= w->row0 || w->col1 <= w->col0)
    return g_strdup ("");
  return g_strdup_printf ("rows %u–%u, columns %u–%u, ", w->row0,
                          w->row1 - 1, w->col0, w->col1 - 1);
}

char *
spx_ipu_piece_describe (const SpxIpuProgram *p, const SpxIpuPiece *what,
                        guint64 bytes)
{
  static const char *const names[SPX_N_BYTE_KINDS] = {
    [SPX_BYTES_VALUES] = "W non-zeros",
    [SPX_BYTES_INDICES] = "W indices",
    [SPX_BYTES_INPUT] = "X",
    [SPX_BYTES_PARTIALS] = "partial sums of Y",
    [SPX_BYTES_OUTPUT] = "Y",
  };
  guint kind = MIN ((guint) what->kind, SPX_N_BYTE_KINDS - 1);
  g_autofree char *ranges = ranges_text (what);
  g_autofree char *size = spx_format_bytes ((double) bytes);
  const char *type = spx_dtype_to_string (
    what->kind == SPX_BYTES_PARTIALS ? p->partials : p->dtype);
  return g_strdup_printf ("%s %s%s: %s", names[kind], ranges, type, size);
}

void
spx_ipu_step_count_only (SpxIpuStep *step)
{
  g_clear_pointer (&step->transfers, g_array_unref);
  g_clear_pointer (&step->pieces, g_array_unref);
}

/* The busiest tile's traffic, in or out (each tile sends and receives
 * at the exchange rate at the same time). */
SpxIpuTraffic
spx_ipu_step_busiest (const SpxIpuProgram *p, SpxIpuStep *s)
{
  SpxIpuTraffic t = { 0, 0, 0, 1 };
  guint64 most = 0;
  for (guint i = 0; i < p->n_tiles; i++)
    if (MAX (s->bytes_in[i], s->bytes_out[i]) > most)
      {
        most = MAX (s->bytes_in[i], s->bytes_out[i]);
        t.in = (double) s->bytes_in[i];
        t.out = (double) s->bytes_out[i];
        s->worst_tile = i; /* the tile the terms are about */
      }
  return t;
}

guint32
spx_ipu_step_slowest (const SpxIpuProgram *p, const SpxIpuStep *s)
{
  guint32 slowest = 0;
  for (guint t = 1; s->tile_cycles && t < p->n_tiles; t++)
    if (s->tile_cycles[t] > s->tile_cycles[slowest])
      slowest = t;
  return slowest;
}

/* A step's cycles: its terms' sum when its planner explained it, else
 * worked out here (and explained): compute, the slowest tile; exchange,
 * the busiest tile's traffic; sync, one sync. */
static guint64
step_cost (SpxIpuProgram *p, SpxIpuStep *s)
{
  if (s->kind == SPX_STEP_COMPUTE)
    for (guint t = 0; t < p->n_tiles; t++)
      p->tiles[t].compute_cycles += s->tile_cycles[t];
  if (s->terms->len > 0)
    return spx_ipu_terms_sum (s->terms);
  switch (s->kind)
    {
    case SPX_STEP_COMPUTE:
      {
        s->worst_tile = spx_ipu_step_slowest (p, s);
        guint64 most = s->tile_cycles[s->worst_tile];
        if (most > 0)
          {
            spx_ipu_terms_add (s->terms, "slowest tile", most, "tile %u",
                               s->worst_tile);
            spx_ipu_terms_say (s->terms, "the cycles of tile %u, the "
                               "slowest, whose planner gave no breakdown",
                               s->worst_tile);
          }
        return most;
      }
    case SPX_STEP_EXCHANGE:
      {
        SpxIpuTraffic t = spx_ipu_step_busiest (p, s);
        return spx_ipu_cost_exchange (p->machine, &t, s->terms);
      }
    case SPX_STEP_SYNC:
    default:
      return spx_ipu_cost_sync (p->machine, 1, s->terms);
    }
}

char *
spx_ipu_step_name (const SpxIpuStep *s)
{
  if (s == NULL)
    return NULL;
  const char *kind = spx_ipu_step_kind_to_string (s->kind);
  if (s->phase == NULL || *s->phase == '\0' || g_str_equal (s->phase, kind))
    return g_strdup (kind);
  if (strchr (s->phase, ' ') != NULL) /* a name in words already */
    return g_strdup (s->phase);
  return g_strdup_printf ("%s %s", s->phase, kind);
}

char *
spx_ipu_step_explain (const SpxIpuStep *step)
{
  GString *out = g_string_new (NULL);
  for (guint i = 0; step->terms && i < step->terms->len; i++)
    {
      const SpxIpuTerm *t = &g_array_index (step->terms, SpxIpuTerm, i);
      g_string_append_printf (out, "%s%s: %s = %" G_GUINT64_FORMAT " cycles",
                              i ? "\n" : "", t->term, t->formula, t->cycles);
      if (t->words != NULL)
        g_string_append_printf (out, "; in words, %s", t->words);
    }
  return g_string_free (out, FALSE);
}

static void
add_phase (SpxIpuProgram *p, const char *name, guint64 cycles)
{
  for (guint i = 0; i < p->phases->len; i++)
    {
      SpxIpuPhase *ph = &g_array_index (p->phases, SpxIpuPhase, i);
      if (g_str_equal (ph->name, name))
        {
          ph->cycles += cycles;
          return;
        }
    }
  SpxIpuPhase ph = { g_strdup (name), cycles };
  g_array_append_val (p->phases, ph);
}

guint64
spx_ipu_tile_bytes (const SpxIpuTile *tile)
{
  guint64 sum = 0;
  for (guint kind = 0; kind < SPX_N_BYTE_KINDS; kind++)
    sum += tile->bytes[kind];
  return sum;
}

guint64
spx_ipu_tile_count (const SpxIpuProgram *p, guint t, SpxIpuCount what)
{
  g_return_val_if_fail (t < p->n_tiles, 0);
  const SpxIpuTile *tile = &p->tiles[t];
  switch (what)
    {
    case SPX_IPU_COUNT_STORED:
      return tile->stored;
    case SPX_IPU_COUNT_RECEIVED: /* every block it multiplies it holds */
      return tile->products - MIN (tile->stored, tile->products);
    case SPX_IPU_COUNT_HELD:
      return MAX (tile->stored, tile->products);
    case SPX_IPU_COUNT_PRODUCTS:
      return tile->products;
    case SPX_IPU_COUNT_PER_WORKER:
    default:
      return tile->per_worker;
    }
}

char *
spx_ipu_count_text (SpxIpuCount what, guint64 n)
{
  static const char *const words[] = {
    [SPX_IPU_COUNT_STORED] = "stored",
    [SPX_IPU_COUNT_RECEIVED] = "received",
    [SPX_IPU_COUNT_HELD] = "held",
    [SPX_IPU_COUNT_PRODUCTS] = "",
    [SPX_IPU_COUNT_PER_WORKER] = " per worker",
  };
  g_autofree char *count = spx_format_count (n);
  const char *s = n == 1 ? "" : "s";
  if (what >= SPX_IPU_COUNT_PRODUCTS)
    return g_strdup_printf ("%s block product%s%s", count, s, words[what]);
  return g_strdup_printf ("%s block%s %s", count, s, words[what]);
}

char *
spx_ipu_tile_blocks_text (const SpxIpuProgram *p, guint t, const char *sep)
{
  if (p->mode == SPX_IPU_MODE_DENSE || t >= p->n_tiles)
    return NULL;
  SpxIpuCount order[] = { SPX_IPU_COUNT_STORED, SPX_IPU_COUNT_RECEIVED,
                          SPX_IPU_COUNT_PRODUCTS, SPX_IPU_COUNT_PER_WORKER };
  GString *out = g_string_new (NULL);
  for (guint i = 0; i < G_N_ELEMENTS (order); i++)
    {
      guint64 n = spx_ipu_tile_count (p, t, order[i]);
      if (order[i] == SPX_IPU_COUNT_PER_WORKER && n == 0)
        break; /* not known, or nothing to compute */
      g_autofree char *text = spx_ipu_count_text (order[i], n);
      g_string_append_printf (out, "%s%s", i == 0 ? "" : i == 2 ? sep : ", ",
                              text);
    }
  return g_string_free (out, FALSE);
}

static void
total_tiles (SpxIpuProgram *p)
{
  gboolean all_fit = TRUE;
  p->tiles_used = 0;
  p->max_tile_bytes = 0;
  for (guint t = 0; t < p->n_tiles; t++)
    {
      SpxIpuTile *tile = &p->tiles[t];
      guint64 sum = spx_ipu_tile_bytes (tile);
      p->max_tile_bytes = MAX (p->max_tile_bytes, sum);
      p->tiles_used += tile->macs > 0 || sum > 0;
      all_fit = all_fit && spx_ipu_tile_fits (p->machine, (double) sum,
                                              (double) tile->bytes[
                                                SPX_BYTES_OUTPUT]);
    }
  p->fits = all_fit && !p->overflow;
}

void
spx_ipu_program_finish (SpxIpuProgram *p)
{
  p->cycles = 0;
  for (guint t = 0; t < p->n_tiles; t++)
    p->tiles[t].compute_cycles = 0;
  for (guint i = 0; i < p->phases->len; i++)
    g_free (g_array_index (p->phases, SpxIpuPhase, i).name);
  g_array_set_size (p->phases, 0);
  for (guint i = 0; i < p->steps->len; i++)
    {
      SpxIpuStep *s = &g_array_index (p->steps, SpxIpuStep, i);
      s->cycles = step_cost (p, s);
      p->cycles += s->cycles;
      add_phase (p, s->phase, s->cycles);
    }
  double seconds = (double) p->cycles / p->machine->clock_hz;
  double flop = 2.0 * (double) p->m * (double) p->k * (double) p->n;
  p->ms = seconds * 1e3;
  p->tflops = seconds > 0 ? flop / seconds * 1e-12 : 0;
  p->nz_tflops = p->tflops * p->density;
  total_tiles (p);
}

void
spx_ipu_program_drop_detail (SpxIpuProgram *p)
{
  for (guint i = 0; i < p->steps->len; i++)
    {
      SpxIpuStep *s = &g_array_index (p->steps, SpxIpuStep, i);
      g_clear_pointer (&s->bytes_in, g_free);
      g_clear_pointer (&s->bytes_out, g_free);
      g_clear_pointer (&s->tile_cycles, g_free);
      g_clear_pointer (&s->pieces, g_array_unref);
      g_clear_pointer (&s->transfers, g_array_unref);
    }
  for (guint t = 0; t < p->n_tiles; t++)
    g_clear_pointer (&p->tiles[t].blocks, g_array_unref);
  g_clear_pointer (&p->row_group, g_free);
  g_clear_pointer (&p->col_group, g_free);
}

guint32 *
spx_ipu_program_block_owners (const SpxIpuProgram *p, guint64 n_blocks)
{
  guint32 *owners = g_new (guint32, MAX (n_blocks, 1));
  memset (owners, 0xff, MAX (n_blocks, 1) * sizeof *owners);
  for (guint t = 0; t < p->n_tiles; t++)
    {
      const GArray *blocks = p->tiles[t].blocks;
      if (blocks == NULL)
        continue;
      const guint64 *list = (const guint64 *) (gconstpointer) blocks->data;
      for (guint i = 0; i < blocks->len; i++)
        if (list[i] < n_blocks && owners[list[i]] == G_MAXUINT32)
          owners[list[i]] = t;
    }
  return owners;
}

double
spx_ipu_array_bytes (double count, gsize size)
{
  double bytes = count * (double) size, capacity = 16; /* GArray's least */
  if (count <= 0)
    return 0;
  if (!(bytes < 1e30)) /* past any budget (or not a number) */
    return 1e30;
  while (capacity < bytes)
    capacity *= 2;
  return capacity;
}

double
spx_ipu_program_bytes (guint n_tiles, double computes, double exchanges)
{
  /* a few syncs come on top of the steps with arrays */
  double steps = computes + exchanges + 8;
  return sizeof (SpxIpuProgram) + (double) n_tiles * sizeof (SpxIpuTile) +
         spx_ipu_array_bytes (steps, sizeof (SpxIpuStep)) +
         (computes + 2 * exchanges) * n_tiles * sizeof (guint64);
}

double
spx_ipu_transfers_bytes (guint n_tiles, double transfers)
{
  double pieces = n_tiles <= SPX_IPU_PIECES_MAX_TILES
                  ? spx_ipu_array_bytes (transfers, sizeof (SpxIpuPiece)) : 0;
  return spx_ipu_array_bytes (transfers, sizeof (SpxIpuTransfer)) + pieces;
}

gboolean
spx_ipu_check_blocks (guint64 blocks, const char *what, GError **error)
{
  if (blocks <= SPX_IPU_MAX_BLOCKS)
    return TRUE;
  g_autofree char *count = spx_format_count (blocks);
  g_autofree char *most = spx_format_count (SPX_IPU_MAX_BLOCKS);
  g_set_error (error, SPX_IPU_ERROR, SPX_IPU_ERROR_TOO_LARGE,
               "%s: %s non-zero blocks, more than the %s the model plans "
               "(a larger block size or a lower density has fewer)", what,
               count, most);
  return FALSE;
}

guint
spx_ipu_program_first_exchange (const SpxIpuProgram *p)
{
  for (guint i = 0; i < p->steps->len; i++)
    {
      const SpxIpuStep *s = &g_array_index (p->steps, SpxIpuStep, i);
      if (s->kind == SPX_STEP_EXCHANGE && s->transfers && s->transfers->len)
        return i;
    }
  return 0;
}
