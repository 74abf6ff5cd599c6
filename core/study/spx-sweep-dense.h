/* spx-sweep-dense.h: the model's dense plans, kept across the sweeps of
 * one run (a survey's layers). A dense plan depends only on m, k, n, the
 * dtype and the machine: every block size of a layer has the same one,
 * and a network repeats its shapes. */
#pragma once

#include "spx-sweep.h"

G_BEGIN_DECLS

/* For the sweeps of one machine and dtype (their run's). */
SpxSweepDensePlans *spx_sweep_dense_plans_new     (void);
void                spx_sweep_dense_plans_free    (SpxSweepDensePlans *plans);
/* How many dense plans were made; the other points found one. */
guint               spx_sweep_dense_plans_planned (const SpxSweepDensePlans *plans);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SpxSweepDensePlans, spx_sweep_dense_plans_free)

/* What a sweep point takes of a model plan. */
typedef struct {
  guint64  m, k, n;
  double   ms, nz_tflops;
  gboolean fits;
} SpxSweepPlanned;

/* Mode's plan of mask for the point of o (at o->model_n, or the best
 * n); a dense one from plans when it holds the shape, and kept there
 * when made (plans NULL: always made). */
gboolean _spx_sweep_model_plan (const SpxSweepOptions *o,
                                SpxSweepDensePlans *plans, SpxIpuMode mode,
                                const SpxMask *mask, SpxSweepPlanned *out,
                                GError **error);

G_END_DECLS
