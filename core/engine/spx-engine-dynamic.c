/* spx-engine-dynamic.c: dynamic sparsity, a new pattern every run within
 * a budget of non-zero blocks fixed at plan time */
#include "spx-engine-private.h"
#include "spx-engine-tune.h"
#include "spx-util.h"

#include <stdlib.h>
#include <string.h>

struct _SpxDynamicPlan {
  guint64     m, k, n, brows, bcols;
  guint       b;
  guint64     max_blocks;
  SpxIsa      isa;
  SpxKernelChoice choice; /* how isa was chosen */
  SpxCpuType  type;
  SpxSchedule schedule;
  /* COO input is sorted into these, allocated on first use. */
  guint64    *coo_offsets;
  guint32    *coo_cols;
  guint64    *coo_keys;
  float      *coo_values;
};

/* The schedule, against the memory budget: it keeps nothing per block
 * (the kernels read the pattern handed to each run). */
static gboolean
check_plan_budget (const SpxDynamicPlan *plan, guint threads, GError **error)
{
  double bytes = spx_schedule_bytes (plan->k, plan->n, plan->b, plan->brows,
                                     plan->bcols, 0, threads);
  g_autofree char *what = g_strdup_printf (
    "the CPU dynamic plan (%" G_GUINT64_FORMAT "×%" G_GUINT64_FORMAT " in "
    "blocks of %u, a budget of %" G_GUINT64_FORMAT " blocks)", plan->m,
    plan->k, plan->b, plan->max_blocks);
  return spx_budget_check_estimate (bytes, what, error);
}

SpxDynamicPlan *
spx_dynamic_plan_new (guint64 m, guint64 k, guint64 n, guint b,
                      guint64 max_blocks, const SpxEngineOptions *options,
                      GError **error)
{
  if (!spx_engine_check_type (options, error) ||
      !spx_engine_check_sizes (m, k, n, b, error))
    return NULL;
  SpxDynamicPlan *plan = g_new0 (SpxDynamicPlan, 1);
  plan->m = m;
  plan->k = k;
  plan->n = n;
  plan->b = b;
  plan->brows = (m + b - 1) / b;
  plan->bcols = (k + b - 1) / b;
  plan->max_blocks = MIN (max_blocks, plan->brows * plan->bcols);
  plan->type = options->type;
  plan->isa = spx_tune_choose (SPX_TUNE_SPMM, plan->type, b, n, options,
                               &plan->choice);
  guint threads = spx_engine_threads (options);
  if (!check_plan_budget (plan, threads, error))
    {
      g_free (plan);
      return NULL;
    }
  spx_schedule_init (&plan->schedule, k, n, b, plan->brows, plan->bcols, 0,
                     threads);
  if (plan->type == SPX_CPU_BF16)
    spx_schedule_set_bf16 (&plan->schedule, plan->isa);
  if (!spx_schedule_reserve (&plan->schedule, "the CPU dynamic plan", error))
    g_clear_pointer (&plan, spx_dynamic_plan_free);
  return plan;
}

void
spx_dynamic_plan_free (SpxDynamicPlan *plan)
{
  if (plan == NULL)
    return;
  spx_schedule_clear (&plan->schedule);
  g_free (plan->coo_offsets);
  g_free (plan->coo_cols);
  g_free (plan->coo_keys);
  g_free (plan->coo_values);
  g_free (plan);
}

static gboolean
check_budget (const SpxDynamicPlan *plan, guint64 n_blocks, GError **error)
{
  if (n_blocks <= plan->max_blocks)
    return TRUE;
  g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_OVER_BUDGET,
               "the pattern has %" G_GUINT64_FORMAT " non-zero blocks, over "
               "the plan's budget of %" G_GUINT64_FORMAT, n_blocks,
               plan->max_blocks);
  return FALSE;
}

static gboolean
check_shape (const SpxDynamicPlan *plan, const SpxBlockCsr *p, GError **error)
{
  if (p->m == plan->m && p->k == plan->k && p->b == plan->b)
    return TRUE;
  g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID,
               "pattern is %" G_GUINT64_FORMAT "×%" G_GUINT64_FORMAT " with "
               "block %u, the plan %" G_GUINT64_FORMAT "×%" G_GUINT64_FORMAT
               " with block %u", p->m, p->k, p->b, plan->m, plan->k, plan->b);
  return FALSE;
}

/* Every check comes before C is touched: no partial output. */
static gboolean
check_pattern (SpxDynamicPlan *plan, const SpxBlockCsr *pattern,
               GError **error)
{
  return check_shape (plan, pattern, error) &&
         check_budget (plan, pattern->n_blocks, error) &&
         spx_block_csr_validate (pattern, error);
}

gboolean
spx_dynamic_plan_execute (SpxDynamicPlan *plan, const SpxBlockCsr *pattern,
                          const float *values, const float *B, float *C,
                          gboolean accumulate, GError **error)
{
  g_return_val_if_fail (plan != NULL && plan->type == SPX_CPU_FP32, FALSE);
  if (!check_pattern (plan, pattern, error))
    return FALSE;
  spx_schedule_build (&plan->schedule, pattern, values, NULL);
  spx_schedule_run (&plan->schedule, plan->isa, B, C, accumulate);
  return TRUE;
}

gboolean
spx_dynamic_plan_execute_bf16 (SpxDynamicPlan *plan,
                               const SpxBlockCsr *pattern,
                               const guint16 *values, const guint16 *B,
                               float *C, gboolean accumulate, GError **error)
{
  g_return_val_if_fail (plan != NULL && plan->type == SPX_CPU_BF16, FALSE);
  if (!check_pattern (plan, pattern, error))
    return FALSE;
  spx_schedule_build (&plan->schedule, pattern, values, NULL);
  spx_schedule_run_bf16 (&plan->schedule, B, C, accumulate);
  return TRUE;
}

const char *
spx_dynamic_plan_kernel (const SpxDynamicPlan *plan)
{
  g_return_val_if_fail (plan != NULL, NULL);
  return spx_engine_kernel (plan->type, plan->isa, plan->b);
}

/* Sorting space for COO input: values, columns and keys per block of the
 * budget, offsets per block-row. */
static gboolean
coo_alloc (SpxDynamicPlan *plan, GError **error)
{
  if (plan->coo_keys != NULL)
    return TRUE;
  gsize bb = (gsize) plan->b * plan->b, nb = MAX (plan->max_blocks, 1);
  double bytes = (double) nb * ((double) bb * sizeof (float) +
                                sizeof (guint32) + sizeof (guint64)) +
                 (plan->brows + 1.0) * sizeof (guint64);
  g_autofree char *what = g_strdup_printf (
    "sorting %" G_GUINT64_FORMAT " COO blocks", plan->max_blocks);
  if (!spx_budget_check_estimate (bytes, what, error))
    return FALSE;
  plan->coo_values = g_try_new (float, nb * bb);
  plan->coo_offsets = g_try_new (guint64, plan->brows + 1);
  plan->coo_cols = g_try_new (guint32, nb);
  plan->coo_keys = g_try_new (guint64, nb);
  if (plan->coo_values && plan->coo_offsets && plan->coo_cols &&
      plan->coo_keys)
    return TRUE;
  g_clear_pointer (&plan->coo_values, g_free);
  g_clear_pointer (&plan->coo_offsets, g_free);
  g_clear_pointer (&plan->coo_cols, g_free);
  g_clear_pointer (&plan->coo_keys, g_free);
  g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_NO_MEMORY,
               "%s: no memory", what);
  return FALSE;
}

static int
compare_keys (const void *a, const void *b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return (x > y) - (x < y);
}

/* Bucket blocks by row, then sort each row by column; a key is
 * column << 32 | input position, so values can follow. */
static gboolean
coo_sort (SpxDynamicPlan *plan, guint64 n_blocks, const guint32 *rows,
          const guint32 *cols, GError **error)
{
  guint64 *off = plan->coo_offsets;
  memset (off, 0, (plan->brows + 1) * sizeof *off);
  for (guint64 i = 0; i < n_blocks; i++)
    {
      if (rows[i] >= plan->brows || cols[i] >= plan->bcols)
        {
          g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID,
                       "block %" G_GUINT64_FORMAT " at (%u, %u): outside the "
                       "%" G_GUINT64_FORMAT "×%" G_GUINT64_FORMAT " block grid",
                       i, rows[i], cols[i], plan->brows, plan->bcols);
          return FALSE;
        }
      off[rows[i] + 1]++;
    }
  for (guint64 r = 0; r < plan->brows; r++)
    off[r + 1] += off[r];
  for (guint64 i = 0; i < n_blocks; i++)
    plan->coo_keys[off[rows[i]]++] = ((guint64) cols[i] << 32) | i;
  for (guint64 r = plan->brows; r > 0; r--) /* undo the bumps */
    off[r] = off[r - 1];
  off[0] = 0;
  for (guint64 r = 0; r < plan->brows; r++)
    qsort (plan->coo_keys + off[r], off[r + 1] - off[r], sizeof (guint64),
           compare_keys);
  return TRUE;
}

gboolean
spx_dynamic_plan_execute_coo (SpxDynamicPlan *plan, guint64 n_blocks,
                              const guint32 *block_rows,
                              const guint32 *block_cols, const float *values,
                              const float *B, float *C, gboolean accumulate,
                              GError **error)
{
  g_return_val_if_fail (plan != NULL && plan->type == SPX_CPU_FP32, FALSE);
  if (n_blocks > G_MAXUINT32) /* sort keys hold the position in 32 bits */
    {
      g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID,
                   "%" G_GUINT64_FORMAT " blocks: COO input takes at most "
                   "2^32 − 1 (use block CSR)", n_blocks);
      return FALSE;
    }
  if (!check_budget (plan, n_blocks, error) || !coo_alloc (plan, error) ||
      !coo_sort (plan, n_blocks, block_rows, block_cols, error))
    return FALSE;
  gsize bb = (gsize) plan->b * plan->b;
  for (guint64 p = 0; p < n_blocks; p++)
    {
      guint64 key = plan->coo_keys[p], from = key & G_MAXUINT32;
      plan->coo_cols[p] = (guint32) (key >> 32);
      memcpy (plan->coo_values + p * bb, values + from * bb, bb * sizeof (float));
    }
  SpxBlockCsr csr = {
    .m = plan->m, .k = plan->k, .b = plan->b, .brows = plan->brows,
    .bcols = plan->bcols, .n_blocks = n_blocks,
    .row_offsets = plan->coo_offsets, .col_indices = plan->coo_cols,
  };
  /* Validation finds duplicates (columns must increase within a row). */
  return spx_dynamic_plan_execute (plan, &csr, plan->coo_values, B, C,
                                   accumulate, error);
}

SpxKernelChoice
spx_dynamic_plan_kernel_choice (const SpxDynamicPlan *plan)
{
  g_return_val_if_fail (plan != NULL, SPX_KERNEL_DEFAULT);
  return plan->choice;
}
