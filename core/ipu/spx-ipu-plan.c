/* spx-ipu-plan.c: one entry point for the three planners, and the
 * paper's "best over n" */
#include "spx-ipu.h"
#include "spx-util.h"

double
spx_ipu_plan_density (const SpxMask *mask)
{
  return (double) spx_mask_count_elements (mask) /
         ((double) mask->rows * (double) mask->cols);
}

SpxIpuProgram *
spx_ipu_plan (const SpxIpuMachine *machine, SpxIpuMode mode,
              const SpxMask *mask, guint64 n, SpxDtype dtype, GError **error)
{
  SpxIpuProgram *p;
  switch (mode)
    {
    case SPX_IPU_MODE_DENSE:
      p = spx_ipu_plan_dense (machine, mask->rows, mask->cols, n, dtype,
                              error);
      if (p != NULL) /* the sparse problem's non-zero scale */
        {
          p->density = spx_ipu_plan_density (mask);
          p->nz_tflops = p->tflops * p->density;
        }
      return p;
    case SPX_IPU_MODE_STATIC:
      return spx_ipu_plan_static (machine, mask, n, dtype, error);
    case SPX_IPU_MODE_DYNAMIC:
    default:
      return spx_ipu_plan_dynamic (machine, mask, 0, n, dtype, error);
    }
}

/* A plan that fits beats one that does not; then the higher non-zero
 * throughput (ties keep the smaller n). */
static gboolean
better (const SpxIpuProgram *p, const SpxIpuProgram *best)
{
  if (best == NULL || (p->fits && !best->fits))
    return TRUE;
  return p->fits == best->fits && p->nz_tflops > best->nz_tflops;
}

SpxIpuProgram *
spx_ipu_plan_best_n (const SpxIpuMachine *machine, SpxIpuMode mode,
                     const SpxMask *mask, guint64 n_max, SpxDtype dtype,
                     GError **error)
{
  SpxIpuProgram *best = NULL;
  GError *refused = NULL; /* the last n over the memory budget */
  for (guint64 n = 1; n <= n_max; n *= 2)
    {
      GError *failure = NULL;
      /* the planners poll too; this stops between them at once */
      SpxIpuProgram *p = spx_cancelled (&failure) ? NULL
        : spx_ipu_plan (machine, mode, mask, n, dtype, &failure);
      if (g_error_matches (failure, SPX_BUDGET_ERROR,
                           SPX_BUDGET_ERROR_TOO_LARGE))
        {
          /* a small n can take more than a large one (a tile array
           * gathering X): another may be within the budget */
          g_clear_error (&refused);
          refused = failure;
          continue;
        }
      if (p == NULL)
        {
          g_clear_error (&refused);
          g_propagate_error (error, failure);
          spx_ipu_program_free (best);
          return NULL;
        }
      if (better (p, best))
        {
          spx_ipu_program_free (best);
          best = p;
        }
      else
        spx_ipu_program_free (p);
    }
  if (best != NULL)
    g_clear_error (&refused);
  else if (refused != NULL)
    g_propagate_error (error, refused);
  return best;
}
