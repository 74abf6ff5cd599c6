/* spx-ipu.h: the IPU tile-array model's planners */
#pragma once

#include "spx-ipu-program.h"
#include "spx-mask.h"

G_BEGIN_DECLS

/* Each turns a product Y (m×n) = W (m×k) · X (k×n) on machine into a
 * costed BSP program. A product that cannot fit is still returned, with
 * fits = FALSE, when a plan exists that merely overflows memory; NULL and
 * SPX_IPU_ERROR_NO_PLAN only when nothing can be formed at all. Also NULL
 * with SPX_BUDGET_ERROR_TOO_LARGE, before it is built, when the program
 * (up to tiles² transfers, a list entry per block) would take more than
 * the memory budget, and with SPX_BUDGET_ERROR_CANCELLED once the
 * thread's current GCancellable is cancelled (spx-util.h). */
/* Dense programs report density 1: to compare with a sparse problem, set
 * density and nz_tflops = tflops × density. */
SpxIpuProgram *spx_ipu_plan_dense   (const SpxIpuMachine *machine,
                                     guint64 m, guint64 k, guint64 n,
                                     SpxDtype dtype, GError **error);
/* mask: m×k with the block size of the plan. */
SpxIpuProgram *spx_ipu_plan_static  (const SpxIpuMachine *machine,
                                     const SpxMask *mask, guint64 n,
                                     SpxDtype dtype, GError **error);
/* The plan is sized from the budget (max_blocks non-zero blocks, 0: the
 * mask's own count) and then runs the mask's actual pattern. */
SpxIpuProgram *spx_ipu_plan_dynamic (const SpxIpuMachine *machine,
                                     const SpxMask *mask, guint64 max_blocks,
                                     guint64 n, SpxDtype dtype,
                                     GError **error);

/* The planner of mode; dense reports the mask's density and non-zero
 * throughput on the same scale as the sparse modes. */
SpxIpuProgram *spx_ipu_plan         (const SpxIpuMachine *machine,
                                     SpxIpuMode mode, const SpxMask *mask,
                                     guint64 n, SpxDtype dtype,
                                     GError **error);
/* The fraction of mask's elements that are non-zero: what a dense plan's
 * tflops are scaled by to compare with the sparse modes (nz_tflops). */
double         spx_ipu_plan_density (const SpxMask *mask);
/* The paper's "best over n": n = 1, 2, 4, …, n_max; the fastest plan
 * that fits by non-zero throughput (the fastest overall if none fits).
 * An n whose plan would take more than the memory budget is passed over;
 * the budget's error comes back only when every n was. */
SpxIpuProgram *spx_ipu_plan_best_n  (const SpxIpuMachine *machine,
                                     SpxIpuMode mode, const SpxMask *mask,
                                     guint64 n_max, SpxDtype dtype,
                                     GError **error);

G_END_DECLS
