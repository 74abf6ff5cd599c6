/* spx-mask.c: the block bitset and its basic operations */
#include "spx-mask.h"
#include "spx-util.h"

#include <math.h>
#include <stdatomic.h>
#include <string.h>

G_DEFINE_QUARK (spx-mask-error-quark, spx_mask_error)

/* Every mask is made here, as one of these. A mask that does not change
 * (a file as read, a study's subject, an undo step) is shared rather
 * than copied, and the bits of all masks alive are counted, so that the
 * copies a program holds at once (the window's subject, editor, undo
 * steps and work in progress) fit the budget together. */
typedef struct {
  SpxMask         mask; /* first: a mask's address is its holder's */
  gatomicrefcount refs;
} Held;

static _Atomic guint64 held_bytes;

/* Takes bytes from what the budget leaves; FALSE with its error. */
static gboolean
reserve (guint64 bytes, const char *what, GError **error)
{
  guint64 held = atomic_load (&held_bytes);
  do
    if (!spx_budget_check_held (bytes, held, what, error))
      return FALSE;
  while (!atomic_compare_exchange_weak (&held_bytes, &held, held + bytes));
  return TRUE;
}

guint64
spx_mask_held_bytes (void)
{
  return atomic_load (&held_bytes);
}

static inline guint64
div_up (guint64 a, guint64 b)
{
  return a / b + (a % b != 0);
}

/* Bits past the last block in the last word stay zero, so whole-word
 * operations (count, equal) need no special case. */
static void
clear_tail (SpxMask *mask)
{
  guint64 used = spx_mask_n_blocks (mask) & 63;
  if (used != 0)
    mask->bits[mask->n_words - 1] &= (G_GUINT64_CONSTANT (1) << used) - 1;
}

/* "a mask of R×C elements" (and its blocks when they are not 1), for
 * messages about its size. */
static char *
describe_shape (guint64 rows, guint64 cols, guint block)
{
  if (block == 1)
    return g_strdup_printf ("a mask of %" G_GUINT64_FORMAT "×%"
                            G_GUINT64_FORMAT " elements", rows, cols);
  return g_strdup_printf ("a mask of %" G_GUINT64_FORMAT "×%" G_GUINT64_FORMAT
                          " elements in blocks of %u", rows, cols, block);
}

SpxMask *
spx_mask_new (guint64 rows, guint64 cols, guint block, GError **error)
{
  if (rows == 0 || cols == 0)
    {
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
                   "mask size %" G_GUINT64_FORMAT "×%" G_GUINT64_FORMAT
                   ": expected at least one row and one column", rows, cols);
      return NULL;
    }
  if (block == 0 || block > SPX_MASK_MAX_BLOCK)
    {
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
                   "block size %u: expected 1 to %u", block, SPX_MASK_MAX_BLOCK);
      return NULL;
    }
  if (rows > SPX_MASK_MAX_DIM || cols > SPX_MASK_MAX_DIM)
    {
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_TOO_LARGE,
                   "mask size %" G_GUINT64_FORMAT "×%" G_GUINT64_FORMAT
                   ": each side must be at most %" G_GUINT64_FORMAT,
                   rows, cols, SPX_MASK_MAX_DIM);
      return NULL;
    }
  guint64 brows = div_up (rows, block), bcols = div_up (cols, block);
  if (brows * bcols > SPX_MASK_MAX_BLOCKS) /* both < 2^31: no overflow */
    {
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_TOO_LARGE,
                   "mask of %" G_GUINT64_FORMAT "×%" G_GUINT64_FORMAT
                   " blocks: at most %" G_GUINT64_FORMAT " blocks are supported",
                   brows, bcols, SPX_MASK_MAX_BLOCKS);
      return NULL;
    }
  /* Checked against the budget before asking: a file of a few bytes may
   * declare gigabytes of bits. */
  guint64 n_words = div_up (brows * bcols, 64);
  g_autofree char *what = describe_shape (rows, cols, block);
  if (!reserve (n_words * sizeof (guint64), what, error))
    return NULL;
  guint64 *bits = spx_budget_alloc0 (n_words, sizeof (guint64), what, error);
  if (bits == NULL)
    {
      atomic_fetch_sub (&held_bytes, n_words * sizeof (guint64));
      return NULL;
    }
  Held *held = g_new0 (Held, 1);
  g_atomic_ref_count_init (&held->refs);
  SpxMask *mask = &held->mask;
  mask->rows = rows;
  mask->cols = cols;
  mask->block = block;
  mask->brows = brows;
  mask->bcols = bcols;
  mask->n_words = n_words;
  mask->bits = bits;
  return mask;
}

void
spx_mask_free (SpxMask *mask)
{
  Held *held = (Held *) mask;
  if (mask == NULL || !g_atomic_ref_count_dec (&held->refs))
    return;
  atomic_fetch_sub (&held_bytes, mask->n_words * sizeof (guint64));
  g_free (mask->bits);
  g_free (held);
}

SpxMask *
spx_mask_copy (const SpxMask *mask, GError **error)
{
  SpxMask *copy = spx_mask_new (mask->rows, mask->cols, mask->block, error);
  if (copy != NULL)
    memcpy (copy->bits, mask->bits, mask->n_words * sizeof (guint64));
  return copy;
}

SpxMask *
spx_mask_ref (const SpxMask *mask)
{
  Held *held = (Held *) mask;
  g_atomic_ref_count_inc (&held->refs);
  return &held->mask;
}

gboolean
spx_mask_unshare (SpxMask **mask, GError **error)
{
  Held *held = (Held *) *mask;
  if (g_atomic_ref_count_compare (&held->refs, 1))
    return TRUE;
  SpxMask *copy = spx_mask_copy (*mask, error);
  if (copy == NULL)
    return FALSE;
  spx_mask_free (*mask);
  *mask = copy;
  return TRUE;
}

gboolean
spx_mask_equal (const SpxMask *a, const SpxMask *b)
{
  return a->rows == b->rows && a->cols == b->cols && a->block == b->block &&
         memcmp (a->bits, b->bits, a->n_words * sizeof (guint64)) == 0;
}

void
spx_mask_clear_all (SpxMask *mask)
{
  memset (mask->bits, 0, mask->n_words * sizeof (guint64));
}

void
spx_mask_fill (SpxMask *mask)
{
  memset (mask->bits, 0xff, mask->n_words * sizeof (guint64));
  clear_tail (mask);
}

guint64
spx_mask_count (const SpxMask *mask)
{
  guint64 n = 0;
  /* zero words skipped: without a popcount instruction (no -mpopcnt) each
   * count is a call, and huge masks are mostly empty */
  for (guint64 w = 0; w < mask->n_words; w++)
    if (mask->bits[w] != 0)
      n += (guint64) __builtin_popcountll (mask->bits[w]);
  return n;
}

/* Set bits in the flat range [from, to). */
static guint64
count_range (const SpxMask *mask, guint64 from, guint64 to)
{
  guint64 n = 0;
  while (from < to && (from & 63) != 0)
    n += spx_mask_get_flat (mask, from++);
  for (; from + 64 <= to; from += 64)
    n += (guint64) __builtin_popcountll (mask->bits[from >> 6]);
  while (from < to)
    n += spx_mask_get_flat (mask, from++);
  return n;
}

guint64
spx_mask_count_row (const SpxMask *mask, guint64 br)
{
  guint64 start = br * mask->bcols;
  return count_range (mask, start, start + mask->bcols);
}

guint
spx_mask_block_height (const SpxMask *mask, guint64 br)
{
  guint64 rest = mask->rows - br * mask->block;
  return (guint) MIN (rest, (guint64) mask->block);
}

guint
spx_mask_block_width (const SpxMask *mask, guint64 bc)
{
  guint64 rest = mask->cols - bc * mask->block;
  return (guint) MIN (rest, (guint64) mask->block);
}

/* Set bits of block-column bc: one bit read per block-row. */
static guint64
count_col (const SpxMask *mask, guint64 bc)
{
  guint64 n = 0;
  for (guint64 br = 0; br < mask->brows; br++)
    n += spx_mask_get (mask, br, bc);
  return n;
}

/* Every block is block² elements but those of the last block-row and
 * block-column, which are corrected for: no pass over the words beyond
 * the count of set blocks, nnz (and the last column when it is narrow),
 * however many rows the mask has. */
static guint64
elements_of (const SpxMask *mask, guint64 nnz)
{
  guint64 b = mask->block, n = nnz * b * b;
  guint64 last_br = mask->brows - 1, last_bc = mask->bcols - 1;
  guint64 h = spx_mask_block_height (mask, last_br);
  guint64 w = spx_mask_block_width (mask, last_bc);
  if (n == 0)
    return 0;
  if (h < b)
    n -= (b - h) * b * spx_mask_count_row (mask, last_br);
  if (w < b)
    n -= (b - w) * b * count_col (mask, last_bc);
  if (h < b && w < b && spx_mask_get (mask, last_br, last_bc))
    n += (b - h) * (b - w); /* the corner was taken off twice */
  return n;
}

guint64
spx_mask_count_elements (const SpxMask *mask)
{
  return elements_of (mask, spx_mask_count (mask));
}

void
spx_mask_iter_init (SpxMaskIter *iter, const SpxMask *mask)
{
  iter->mask = mask;
  iter->next = 0;
  iter->row = iter->row_start = 0;
}

gboolean
spx_mask_iter_next (SpxMaskIter *iter, guint64 *br, guint64 *bc)
{
  const SpxMask *mask = iter->mask;
  guint64 total = spx_mask_n_blocks (mask), i = iter->next;
  while (i < total)
    {
      guint64 word = mask->bits[i >> 6] >> (i & 63);
      if (word != 0)
        {
          i += (guint64) __builtin_ctzll (word);
          break;
        }
      i = (i | 63) + 1;
    }
  if (i >= total)
    {
      iter->next = total;
      return FALSE;
    }
  /* one division per row, not per block: planners walk billions */
  if (i - iter->row_start >= mask->bcols)
    {
      iter->row = i / mask->bcols;
      iter->row_start = iter->row * mask->bcols;
    }
  *br = iter->row;
  *bc = i - iter->row_start;
  iter->next = i + 1;
  return TRUE;
}

/* Long loops poll spx_cancelled after about this much work (words read
 * or written): well under a millisecond. */
#define POLL_WORK 65536

static inline gboolean
gave_up (guint64 *work, guint64 units, GError **error)
{
  *work += units;
  if (*work < POLL_WORK)
    return FALSE;
  *work = 0;
  return spx_cancelled (error);
}

/* Sets the flat bits [start, start + len), a word at a time. */
static void
set_flat_range (SpxMask *mask, guint64 start, guint64 len)
{
  guint64 i = start, end = start + len;
  for (; i < end && (i & 63) != 0; i++)
    spx_mask_set_flat (mask, i);
  for (; i + 64 <= end; i += 64)
    mask->bits[i >> 6] = ~G_GUINT64_CONSTANT (0);
  for (; i < end; i++)
    spx_mask_set_flat (mask, i);
}

/* The n ≤ 64 flat bits from pos, as the low bits of a word. */
static inline guint64
bits_at (const SpxMask *mask, guint64 pos, guint64 n)
{
  guint64 shift = pos & 63, word = mask->bits[pos >> 6] >> shift;
  if (shift != 0 && shift + n > 64)
    word |= mask->bits[(pos >> 6) + 1] << (64 - shift);
  return n == 64 ? word : word & ((G_GUINT64_CONSTANT (1) << n) - 1);
}

/* ORs block-row br of mask into acc, a bitset of its block-columns;
 * returns the words read. */
static guint64
or_row (const SpxMask *mask, guint64 br, guint64 *acc)
{
  guint64 start = spx_mask_index (mask, br, 0), bcols = mask->bcols, k = 0;
  for (guint64 c = 0; c < bcols; c += 64, k++)
    acc[k] |= bits_at (mask, start + c, MIN (64, bcols - c));
  return k;
}

/* Sets row r of out where the block-columns of mask in acc fall. A column
 * of mask covers out's columns c0 to c1; the columns after it that end
 * within those too are jumped over. Returns the words read or written. */
static guint64
map_row (SpxMask *out, const SpxMask *mask, guint64 r, const guint64 *acc)
{
  guint64 b = mask->block, block = out->block, bcols = mask->bcols;
  guint64 work = bcols / 64 + 1;
  for (guint64 bc = 0; bc < bcols;)
    {
      guint64 word = acc[bc >> 6] >> (bc & 63);
      if (word == 0)
        {
          bc = (bc | 63) + 1;
          continue;
        }
      bc += (guint64) __builtin_ctzll (word);
      if (bc >= bcols)
        break;
      guint64 c0 = bc * b / block;
      guint64 c1 = (bc * b + spx_mask_block_width (mask, bc) - 1) / block;
      set_flat_range (out, spx_mask_index (out, r, c0), c1 - c0 + 1);
      work += (c1 - c0) / 64 + 1;
      /* the first column of mask that reaches past c1 */
      bc = MAX (bc + 1, (c1 + 1) * block / b);
    }
  return work;
}

/* Row r of out: the union of the rows of mask it overlaps, mapped. */
static guint64
build_row (SpxMask *out, const SpxMask *mask, guint64 r, guint64 *acc,
           gsize acc_words)
{
  guint64 b = mask->block, block = out->block, work = 0;
  guint64 first = r * block / b;
  guint64 last = MIN (((r + 1) * block - 1) / b, mask->brows - 1);
  memset (acc, 0, acc_words * sizeof (guint64));
  for (guint64 br = first; br <= last; br++)
    work += or_row (mask, br, acc);
  return work + map_row (out, mask, r, acc);
}

SpxMask *
spx_mask_to_blocks (const SpxMask *mask, guint block, GError **error)
{
  if (block == mask->block)
    return spx_mask_copy (mask, error);
  g_autoptr (SpxMask) out = spx_mask_new (mask->rows, mask->cols, block,
                                          error);
  if (out == NULL)
    return NULL;
  /* One row of out at a time, from the union of the rows of mask it
   * overlaps: the work goes with the words of both, not with the set
   * bits, and rows holding nothing are passed over a word at a time. */
  gsize acc_words = mask->bcols / 64 + 1;
  g_autofree char *what = describe_shape (mask->rows, mask->cols,
                                          mask->block);
  g_autofree guint64 *acc = spx_budget_alloc0 (acc_words, sizeof (guint64),
                                               what, error);
  if (acc == NULL)
    return NULL;
  guint64 n = spx_mask_n_blocks (mask), next_r = 0, work = 0;
  for (guint64 i = 0; i < n;)
    {
      if (gave_up (&work, 1, error))
        return NULL;
      guint64 word = mask->bits[i >> 6] >> (i & 63);
      if (word == 0)
        {
          i = (i | 63) + 1;
          continue;
        }
      i += (guint64) __builtin_ctzll (word);
      guint64 r = MAX (next_r, i / mask->bcols * mask->block / block);
      if (i >= n || r >= out->brows)
        break;
      work += build_row (out, mask, r, acc, acc_words);
      next_r = r + 1;
      /* from the first row of mask that row r + 1 overlaps */
      i = MAX (i / mask->bcols, next_r * block / mask->block) * mask->bcols;
    }
  return g_steal_pointer (&out);
}

SpxMask *
spx_mask_at_block (const SpxMask *mask, guint block, GError **error)
{
  return block == mask->block ? spx_mask_ref (mask)
                              : spx_mask_to_blocks (mask, block, error);
}

/* Statistics, in memory that does not grow with the mask: the mean is
 * known from the count beforehand, so one pass gives the spread, and the
 * rows or columns holding nothing are accounted for all at once. */

typedef struct {
  guint64 n, seen;
  double  mean, min, max, spread;
} Summing;

static void
summing_init (Summing *s, guint64 n, guint64 total)
{
  *s = (Summing) { n, 0, (double) total / (double) n, G_MAXDOUBLE, 0, 0 };
}

static void
summing_add (Summing *s, guint64 count, guint64 times)
{
  double v = (double) count, d = v - s->mean;
  s->min = MIN (s->min, v);
  s->max = MAX (s->max, v);
  s->spread += (double) times * d * d;
  s->seen += times;
}

static void
summing_end (Summing *s, SpxSummary *out)
{
  if (s->seen < s->n) /* the empty ones */
    summing_add (s, 0, s->n - s->seen);
  *out = (SpxSummary) { s->min, s->mean, s->max,
                        sqrt (s->spread / (double) s->n) };
}

/* Columns are counted this many at a time, so the counters stay small
 * (256 KiB) however wide the mask. */
#define COL_CHUNK 65536

/* One pass over the words, cut where block-rows end: every non-empty
 * row's count goes to rows, and when cols is given (a mask at most
 * COL_CHUNK blocks wide) every bit to its column's counter. Empty rows
 * cost nothing beyond their words. */
static void
tally_pieces (const SpxMask *mask, Summing *rows, guint32 *cols)
{
  guint64 bcols = mask->bcols, row = G_MAXUINT64, in_row = 0;
  for (guint64 w = 0; w < mask->n_words; w++)
    for (guint64 word = mask->bits[w]; word != 0;)
      {
        guint64 i = w * 64 + (guint64) __builtin_ctzll (word);
        guint64 r = i / bcols, row_end = (r + 1) * bcols - w * 64;
        guint64 piece = row_end >= 64 ? word
                        : word & ((G_GUINT64_CONSTANT (1) << row_end) - 1);
        if (r != row)
          {
            if (row != G_MAXUINT64)
              summing_add (rows, in_row, 1);
            row = r;
            in_row = 0;
          }
        in_row += (guint64) __builtin_popcountll (piece);
        /* bit j of the word is column w·64 + j − r·bcols */
        for (guint64 p = piece; cols != NULL && p != 0; p &= p - 1)
          cols[w * 64 + (guint64) __builtin_ctzll (p) - r * bcols]++;
        word ^= piece;
      }
  if (row != G_MAXUINT64)
    summing_add (rows, in_row, 1);
}

/* Adds the bits of the flat range [start, start + n) to counts[0, n);
 * returns how many there were. */
static guint64
count_into (const SpxMask *mask, guint64 start, guint64 n, guint32 *counts)
{
  guint64 end = start + n, found = 0;
  for (guint64 i = start; i < end;)
    {
      guint64 take = MIN (64 - (i & 63), end - i);
      guint64 word = mask->bits[i >> 6] >> (i & 63);
      if (take < 64)
        word &= (G_GUINT64_CONSTANT (1) << take) - 1;
      for (; word != 0; word &= word - 1, found++)
        counts[i - start + (guint64) __builtin_ctzll (word)]++;
      i += take;
    }
  return found;
}

static void
add_counts (Summing *s, const guint32 *counts, guint64 n)
{
  for (guint64 i = 0; i < n; i++)
    if (counts[i] != 0)
      summing_add (s, counts[i], 1);
}

/* A mask wider than COL_CHUNK has fewer than 2^18 block-rows (2^34 blocks
 * at most), so visiting every row once per chunk stays cheap. */
static void
tally_wide_cols (const SpxMask *mask, Summing *cols, guint32 *counts)
{
  for (guint64 c0 = 0; c0 < mask->bcols; c0 += COL_CHUNK)
    {
      guint64 n = MIN (COL_CHUNK, mask->bcols - c0), found = 0;
      memset (counts, 0, n * sizeof *counts);
      for (guint64 br = 0; br < mask->brows; br++)
        found += count_into (mask, spx_mask_index (mask, br, c0), n, counts);
      if (found > 0)
        add_counts (cols, counts, n);
    }
}

void
spx_mask_stats (const SpxMask *mask, SpxMaskStats *stats)
{
  memset (stats, 0, sizeof *stats);
  stats->total_blocks = spx_mask_n_blocks (mask);
  stats->nonzero_blocks = spx_mask_count (mask);
  stats->nnz_elements = elements_of (mask, stats->nonzero_blocks);
  stats->block_density =
    (double) stats->nonzero_blocks / (double) stats->total_blocks;
  stats->element_density =
    (double) stats->nnz_elements / ((double) mask->rows * (double) mask->cols);

  Summing rows, cols;
  summing_init (&rows, mask->brows, stats->nonzero_blocks);
  summing_init (&cols, mask->bcols, stats->nonzero_blocks);
  if (stats->nonzero_blocks > 0)
    {
      gboolean narrow = mask->bcols <= COL_CHUNK;
      g_autofree guint32 *counts = g_new0 (guint32, narrow ? mask->bcols
                                                           : COL_CHUNK);
      tally_pieces (mask, &rows, narrow ? counts : NULL);
      if (narrow)
        add_counts (&cols, counts, mask->bcols);
      else
        tally_wide_cols (mask, &cols, counts);
    }
  summing_end (&rows, &stats->blocks_per_row);
  summing_end (&cols, &stats->blocks_per_col);
}
