/* spx-ipu-codelet.h: on-tile cycles of the vertices every planner runs
 * (PopSparse's published block and element-wise vertex costs) */
#pragma once

#include "spx-ipu-machine.h"

G_BEGIN_DECLS

/* A block-sparse × dense vertex: blocks non-zero b×b blocks spread over
 * rows block-rows, times n_cols columns of X. b = 1 is the element-wise
 * vertex. Tile cycles (all workers). */
double spx_ipu_spmm_cycles   (const SpxIpuMachine *machine, guint b,
                              SpxDtype dtype, guint64 blocks, guint64 rows,
                              guint64 n_cols);
/* The dynamic vertex: the same work read from buckets whose
 * meta-information it walks, buckets of them. */
double spx_ipu_dynamic_cycles (const SpxIpuMachine *machine, guint b,
                               SpxDtype dtype, guint64 blocks, guint64 rows,
                               guint64 n_cols, guint64 buckets);
/* A reduce vertex: outputs fp32 sums of partials partial sums each (a mean
 * when rows differ). 0 when there is nothing to add. */
double spx_ipu_reduce_cycles  (const SpxIpuMachine *machine, guint64 outputs,
                               double partials);
/* Writing zeros (or casting) bytes of output. */
double spx_ipu_fill_cycles    (const SpxIpuMachine *machine, guint64 bytes);

G_END_DECLS
