/* test-ipu-check.h: what every IPU program's exchange steps must satisfy,
 * shared by the planner tests */
#pragma once

#include "spx-ipu.h"

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
