/* spx-engine-static.c: static sparsity, the pattern fixed at plan time */
#include "spx-engine-private.h"
#include "spx-engine-tune.h"
#include "spx-bf16.h"
#include "spx-util.h"

#include <stdlib.h>
#include <string.h>

struct _SpxStaticPlan {
  guint64     m, k, n;
  guint       b;
  SpxIsa      isa;
  SpxKernelChoice choice; /* how isa was chosen */
  SpxCpuType  type;
  guint64     n_blocks;
  void       *values;   /* packed in work order: floats, or bf16 */
  SpxSchedule schedule;
};

/* The pattern in block CSR while the plan is made, the packed values
 * (bf16 ones with their rounded copy while packing: as many bytes as
 * fp32's) and the schedule, against the memory budget before any is
 * allocated. */
static gboolean
check_budget (const SpxMask *mask, guint64 n, guint64 n_blocks,
              guint threads, GError **error)
{
  double bb = (double) mask->block * mask->block;
  double bytes = (mask->brows + 1.0) * sizeof (guint64) +
                 (double) n_blocks * (sizeof (guint32) + bb * sizeof (float)) +
                 spx_schedule_bytes (mask->cols, n, mask->block, mask->brows,
                                     mask->bcols, n_blocks, threads);
  g_autofree char *what = g_strdup_printf (
    "the CPU static plan (%" G_GUINT64_FORMAT "×%" G_GUINT64_FORMAT " in "
    "blocks of %u, %" G_GUINT64_FORMAT " non-zero blocks)", mask->rows,
    mask->cols, mask->block, n_blocks);
  return spx_budget_check_estimate (bytes, what, error);
}

/* values rounded to bf16 (NULL for none), or NULL without memory. */
static guint16 *
round_values (const float *values, gsize len, gboolean *failed)
{
  guint16 *out = values != NULL ? g_try_new (guint16, MAX (len, 1)) : NULL;
  *failed = values != NULL && out == NULL;
  if (out != NULL)
    spx_bf16_from_floats (values, out, len);
  return out;
}

/* The schedule, with values packed into it in work order. */
static gboolean
pack (SpxStaticPlan *plan, const SpxBlockCsr *csr, const float *values,
      guint threads)
{
  spx_schedule_init (&plan->schedule, plan->k, plan->n, plan->b, csr->brows,
                     csr->bcols, csr->n_blocks, threads);
  if (plan->type == SPX_CPU_FP32)
    {
      spx_schedule_build (&plan->schedule, csr, values, plan->values);
      return TRUE;
    }
  gboolean failed;
  g_autofree guint16 *rounded = round_values (
    values, csr->n_blocks * plan->b * plan->b, &failed);
  spx_schedule_set_bf16 (&plan->schedule, plan->isa);
  if (!failed)
    spx_schedule_build (&plan->schedule, csr, rounded, plan->values);
  return !failed;
}

SpxStaticPlan *
spx_static_plan_new (const SpxMask *mask, const float *values, guint64 n,
                     const SpxEngineOptions *options, GError **error)
{
  if (!spx_engine_check_type (options, error) ||
      !spx_engine_check_sizes (mask->rows, mask->cols, n, mask->block,
                               error) ||
      !check_budget (mask, n, spx_mask_count (mask),
                     spx_engine_threads (options), error))
    return NULL;
  SpxBlockCsr csr;
  spx_block_csr_from_mask (&csr, mask);
  gsize bb = (gsize) mask->block * mask->block;
  gsize size = options->type == SPX_CPU_BF16 ? sizeof (guint16)
                                             : sizeof (float);
  void *packed = spx_engine_alloc (MAX (csr.n_blocks * bb, 1) * size);
  if (packed == NULL)
    {
      spx_block_csr_clear (&csr);
      g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_NO_MEMORY,
                   "no memory for %" G_GUINT64_FORMAT " blocks of values",
                   csr.n_blocks);
      return NULL;
    }
  SpxStaticPlan *plan = g_new0 (SpxStaticPlan, 1);
  plan->m = mask->rows;
  plan->k = mask->cols;
  plan->n = n;
  plan->b = mask->block;
  plan->type = options->type;
  plan->isa = spx_tune_choose (SPX_TUNE_SPMM, plan->type, plan->b, n,
                               options, &plan->choice);
  plan->n_blocks = csr.n_blocks;
  plan->values = packed;
  gboolean packed_ok = pack (plan, &csr, values, spx_engine_threads (options));
  spx_block_csr_clear (&csr);
  /* Sorting space is not needed again: keep the plan small. */
  g_clear_pointer (&plan->schedule.scratch, g_free);
  if (!packed_ok)
    {
      g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_NO_MEMORY,
                   "no memory to round %" G_GUINT64_FORMAT " blocks of "
                   "values to bf16", plan->n_blocks);
      g_clear_pointer (&plan, spx_static_plan_free);
    }
  else if (!spx_schedule_reserve (&plan->schedule, "the CPU static plan",
                                  error))
    g_clear_pointer (&plan, spx_static_plan_free);
  return plan;
}

void
spx_static_plan_execute (SpxStaticPlan *plan, const float *B, float *C,
                         gboolean accumulate)
{
  g_return_if_fail (plan != NULL && plan->type == SPX_CPU_FP32);
  spx_schedule_run (&plan->schedule, plan->isa, B, C, accumulate);
}

void
spx_static_plan_execute_bf16 (SpxStaticPlan *plan, const guint16 *B,
                              float *C, gboolean accumulate)
{
  g_return_if_fail (plan != NULL && plan->type == SPX_CPU_BF16);
  spx_schedule_run_bf16 (&plan->schedule, B, C, accumulate);
}

const char *
spx_static_plan_kernel (const SpxStaticPlan *plan)
{
  g_return_val_if_fail (plan != NULL, NULL);
  return spx_engine_kernel (plan->type, plan->isa, plan->b);
}

gsize
spx_static_plan_bytes (const SpxStaticPlan *plan)
{
  guint64 brows = (plan->m + plan->b - 1) / plan->b;
  return sizeof *plan +
         plan->n_blocks * plan->b * plan->b *                  /* values */
           (plan->type == SPX_CPU_BF16 ? sizeof (guint16) : sizeof (float)) +
         plan->n_blocks * sizeof (guint32) +                   /* offsets */
         brows * sizeof (SpxRowWork) +
         (plan->schedule.n_threads + 1) * sizeof (gsize);
}

void
spx_static_plan_free (SpxStaticPlan *plan)
{
  if (plan == NULL)
    return;
  spx_schedule_clear (&plan->schedule);
  free (plan->values);
  g_free (plan);
}

SpxKernelChoice
spx_static_plan_kernel_choice (const SpxStaticPlan *plan)
{
  g_return_val_if_fail (plan != NULL, SPX_KERNEL_DEFAULT);
  return plan->choice;
}
