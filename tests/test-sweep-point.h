/* test-sweep-point.h: two sweep points alike, shared by the tests that
 * make the same points two ways */
#pragma once

#include "spx-sweep.h"

#include <math.h>

/* Every field the same, the numbers within rel of each other (0: to the
 * bit); NaN alike NaN. */
static inline void
test_assert_point_equal (const SpxSweepPoint *a, const SpxSweepPoint *b,
                         double rel)
{
  g_assert_cmpint (a->source, ==, b->source);
  g_assert_cmpint (a->mode, ==, b->mode);
  g_assert_cmpuint (a->block, ==, b->block);
  g_assert_cmpuint (a->m, ==, b->m);
  g_assert_cmpuint (a->k, ==, b->k);
  g_assert_cmpuint (a->n, ==, b->n);
  g_assert_cmpint (a->dtype, ==, b->dtype);
  g_assert_cmpstr (a->machine, ==, b->machine);
  g_assert_cmpstr (a->dense, ==, b->dense);
  g_assert_cmpint (a->fits, ==, b->fits);
  g_assert_cmpint (a->noise, ==, b->noise);
  g_assert_cmpstr (a->kernel, ==, b->kernel);
  g_assert_cmpint (a->kernel_choice, ==, b->kernel_choice);
  const double x[] = { a->density, a->ms, a->ms_q1, a->ms_q3, a->speedup,
                       a->nz_throughput };
  const double y[] = { b->density, b->ms, b->ms_q1, b->ms_q3, b->speedup,
                       b->nz_throughput };
  for (guint i = 0; i < G_N_ELEMENTS (x); i++)
    if (!isnan (x[i]) || !isnan (y[i]))
      {
        if (rel == 0)
          g_assert_true (x[i] == y[i]);
        else
          g_assert_cmpfloat_with_epsilon (x[i], y[i],
                                          rel * fabs (x[i]) + 1e-300);
      }
}
