/* test-ipu-check.h: what every IPU program's exchange steps must satisfy,
 * shared by the planner tests */
#pragma once

#include "spx-ipu.h"
#include "spx-util.h"

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

/* An explanation's lines after its header: one per term of step s,
 * "term — formula — 1,234 cycles", the terms adding up to the step. */
static inline void
test_ipu_check_term_lines (char **lines, const SpxIpuStep *s)
{
  g_assert_cmpuint (g_strv_length (lines), ==, 1 + s->terms->len);
  guint64 sum = 0;
  for (guint i = 0; i < s->terms->len; i++)
    {
      const SpxIpuTerm *t = &g_array_index (s->terms, SpxIpuTerm, i);
      g_autofree char *tc = spx_format_count (t->cycles);
      g_autofree char *line = g_strdup_printf ("%s — %s — %s cycles", t->term,
                                               t->formula, tc);
      g_assert_cmpstr (lines[1 + i], ==, line);
      sum += t->cycles;
    }
  g_assert_cmpuint (sum, ==, s->cycles);
}
