/* test-ipu-check.h: what every IPU program's exchange steps must satisfy,
 * shared by the planner tests */
#pragma once

#include "spx-ipu.h"
#include "spx-ipu-cost.h"
#include "spx-util.h"
#include "spx-mask-gen.h"

#include <string.h>

/* Every byte received came in a transfer; a broadcast counts out of its
 * source once, so a tile sends at most what its transfers carry and at
 * least its largest one. */
static inline void
test_ipu_check_traffic (const SpxIpuProgram *p, const SpxIpuStep *s)
{
  guint64 in = 0, moved = 0;
  g_autofree guint64 *sent = g_new0 (guint64, p->n_tiles);
  g_autofree guint64 *largest = g_new0 (guint64, p->n_tiles);
  for (guint t = 0; t < p->n_tiles; t++)
    in += s->bytes_in[t];
  for (guint j = 0; j < s->transfers->len; j++)
    {
      const SpxIpuTransfer *tr = &g_array_index (s->transfers,
                                                 SpxIpuTransfer, j);
      g_assert_cmpuint (tr->src, <, p->n_tiles);
      g_assert_cmpuint (tr->dst, <, p->n_tiles);
      g_assert_cmpuint (tr->src, !=, tr->dst);
      moved += tr->bytes;
      sent[tr->src] += tr->bytes;
      largest[tr->src] = MAX (largest[tr->src], tr->bytes);
    }
  g_assert_cmpuint (in, ==, moved);
  for (guint t = 0; t < p->n_tiles; t++)
    {
      g_assert_cmpuint (s->bytes_out[t], <=, sent[t]);
      g_assert_cmpuint (s->bytes_out[t], >=, largest[t]);
    }
}

/* The numbers written in text ("16²·2 B/8" has 16, 2 and 8). */
static inline GPtrArray *
test_ipu_numbers (const char *text)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  for (const char *p = text; *p;)
    {
      if (!g_ascii_isdigit (*p))
        {
          p++;
          continue;
        }
      const char *q = p;
      while (g_ascii_isdigit (*q) ||
             ((*q == '.' || *q == ',') && g_ascii_isdigit (q[1])))
        q++;
      g_ptr_array_add (out, g_strndup (p, q - p));
      p = q;
    }
  return out;
}

/* Term t is said in words, and the words carry every number of its
 * formula: they are written from the same figures. */
static inline void
test_ipu_check_words (const SpxIpuTerm *t)
{
  g_assert_nonnull (t->words);
  g_assert_cmpuint (strlen (t->words), >, 0);
  g_autoptr (GPtrArray) said = test_ipu_numbers (t->words);
  g_autoptr (GPtrArray) wanted = test_ipu_numbers (t->formula);
  for (guint i = 0; i < wanted->len; i++)
    {
      gboolean found = FALSE;
      for (guint j = 0; j < said->len && !found; j++)
        found = g_str_equal (wanted->pdata[i], said->pdata[j]);
      if (!found)
        g_test_message ("%s: %s / %s: no %s", t->term, t->formula, t->words,
                        (char *) wanted->pdata[i]);
      g_assert_true (found);
    }
}

/* An explanation's lines after its header: per term of step s,
 * "term — formula — 1,234 cycles" and the term in words under it, the
 * terms adding up to the step. */
static inline void
test_ipu_check_term_lines (char **lines, const SpxIpuStep *s)
{
  g_assert_cmpuint (g_strv_length (lines), ==, 1 + 2 * s->terms->len);
  guint64 sum = 0;
  for (guint i = 0; i < s->terms->len; i++)
    {
      const SpxIpuTerm *t = &g_array_index (s->terms, SpxIpuTerm, i);
      g_autofree char *tc = spx_format_count (t->cycles);
      g_autofree char *line = g_strdup_printf ("%s — %s — %s cycles", t->term,
                                               t->formula, tc);
      g_assert_cmpstr (lines[1 + 2 * i], ==, line);
      test_ipu_check_words (t);
      g_autofree char *words = g_strdup_printf ("    %s", t->words);
      g_assert_cmpstr (lines[2 + 2 * i], ==, words);
      sum += t->cycles;
    }
  g_assert_cmpuint (sum, ==, s->cycles);
}

/* Every term of every step of p is said in words. */
static inline void
test_ipu_check_all_words (const SpxIpuProgram *p)
{
  for (guint i = 0; i < p->steps->len; i++)
    {
      const SpxIpuStep *s = &g_array_index (p->steps, SpxIpuStep, i);
      for (guint j = 0; s->terms != NULL && j < s->terms->len; j++)
        test_ipu_check_words (&g_array_index (s->terms, SpxIpuTerm, j));
    }
}

/* The sides of the matrix a piece of kind is cut from: X is k × n, W
 * m × k, Y m × n. */
static inline void
test_ipu_piece_bounds (const SpxIpuProgram *p, SpxByteKind kind,
                       guint64 *rows, guint64 *cols)
{
  gboolean x = kind == SPX_BYTES_INPUT;
  gboolean w = kind == SPX_BYTES_VALUES || kind == SPX_BYTES_INDICES;
  *rows = x ? p->k : p->m;
  *cols = w ? p->k : p->n;
}

/* What an exchange of phase may carry: distribute moves X and W,
 * propagate W's buckets, reduce partial sums. */
static inline gboolean
test_ipu_piece_kind_fits (const char *phase, SpxByteKind kind)
{
  if (g_str_equal (phase, "distribute"))
    return kind == SPX_BYTES_INPUT || kind == SPX_BYTES_VALUES;
  if (g_str_equal (phase, "propagate"))
    return kind == SPX_BYTES_VALUES;
  if (g_str_equal (phase, "reduce"))
    return kind == SPX_BYTES_PARTIALS;
  return FALSE;
}

/* Every transfer of exchange step s says what it carries, on machines
 * small enough to keep that: a kind its phase moves, ranges inside its
 * matrix, and for X, partial sums and Y exactly the bytes of its
 * rectangle. Ranges may be unknown (all 0) only for static X shares,
 * which can span block-columns that are not neighbours. */
static inline void
test_ipu_check_pieces (const SpxIpuProgram *p, const SpxIpuStep *s)
{
  if (p->n_tiles > SPX_IPU_PIECES_MAX_TILES)
    {
      g_assert_null (s->pieces);
      return;
    }
  g_assert_nonnull (s->pieces);
  g_assert_cmpuint (s->pieces->len, ==, s->transfers->len);
  for (guint j = 0; j < s->pieces->len; j++)
    {
      const SpxIpuPiece *w = &g_array_index (s->pieces, SpxIpuPiece, j);
      guint64 bytes = g_array_index (s->transfers, SpxIpuTransfer, j).bytes;
      guint64 rows, cols;
      g_assert_true (test_ipu_piece_kind_fits (s->phase, w->kind));
      if (w->row0 == 0 && w->row1 == 0 && w->col0 == 0 && w->col1 == 0)
        {
          g_assert_cmpint (p->mode, ==, SPX_IPU_MODE_STATIC);
          g_assert_cmpint (w->kind, ==, SPX_BYTES_INPUT);
          continue;
        }
      test_ipu_piece_bounds (p, w->kind, &rows, &cols);
      g_assert_cmpuint (w->row0, <, w->row1);
      g_assert_cmpuint (w->col0, <, w->col1);
      g_assert_cmpuint (w->row1, <=, rows);
      g_assert_cmpuint (w->col1, <=, cols);
      if (w->kind == SPX_BYTES_VALUES || w->kind == SPX_BYTES_INDICES)
        continue; /* block lists and buckets: values with their indices */
      guint64 element = spx_ipu_dtype_bytes (
        w->kind == SPX_BYTES_PARTIALS ? p->partials : p->dtype);
      g_assert_cmpuint (bytes, ==, (guint64) (w->row1 - w->row0) *
                                   (w->col1 - w->col0) * element);
    }
}

/* Transfer i of step s: from src to dst, bytes, carrying kind over rows
 * [row0, row1) and columns [col0, col1). */
static inline void
test_ipu_check_transfer (const SpxIpuStep *s, guint i, guint32 src,
                         guint32 dst, guint64 bytes, SpxByteKind kind,
                         guint32 row0, guint32 row1, guint32 col0,
                         guint32 col1)
{
  g_assert_cmpuint (i, <, s->transfers->len);
  const SpxIpuTransfer *t = &g_array_index (s->transfers, SpxIpuTransfer, i);
  const SpxIpuPiece *w = &g_array_index (s->pieces, SpxIpuPiece, i);
  g_assert_cmpuint (t->src, ==, src);
  g_assert_cmpuint (t->dst, ==, dst);
  g_assert_cmpuint (t->bytes, ==, bytes);
  g_assert_cmpint (w->kind, ==, kind);
  g_assert_cmpuint (w->row0, ==, row0);
  g_assert_cmpuint (w->row1, ==, row1);
  g_assert_cmpuint (w->col0, ==, col0);
  g_assert_cmpuint (w->col1, ==, col1);
}

/* Real plans of all three modes on teach16: 256², 16 × 16 blocks, a
 * quarter of them, n 64. */
static inline void
test_ipu_real_programs (SpxIpuProgram *p[SPX_IPU_N_MODES])
{
  g_autoptr (SpxIpuMachine) m = spx_ipu_machine_preset ("teach16");
  SpxGenOptions o;
  spx_gen_options_init (&o);
  o.density = 0.25;
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxMask) mask = spx_mask_generate (256, 256, 16, &o, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < SPX_IPU_N_MODES; i++)
    {
      p[i] = spx_ipu_plan (m, (SpxIpuMode) i, mask, 64, SPX_DTYPE_FP16,
                           &error);
      g_assert_no_error (error);
    }
}
