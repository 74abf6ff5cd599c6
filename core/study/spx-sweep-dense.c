/* spx-sweep-dense.c: a sweep's model plans, the dense ones kept by shape
 * for the sweeps after */
#include "spx-sweep-dense.h"

struct _SpxSweepDensePlans {
  GHashTable *by_shape; /* "machine m k n dtype" → SpxSweepPlanned at density 1 */
  guint       planned;
};

SpxSweepDensePlans *
spx_sweep_dense_plans_new (void)
{
  SpxSweepDensePlans *plans = g_new0 (SpxSweepDensePlans, 1);
  plans->by_shape = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                           g_free);
  return plans;
}

void
spx_sweep_dense_plans_free (SpxSweepDensePlans *plans)
{
  if (plans == NULL)
    return;
  g_hash_table_unref (plans->by_shape);
  g_free (plans);
}

guint
spx_sweep_dense_plans_planned (const SpxSweepDensePlans *plans)
{
  return plans->planned;
}

static void
planned_from (const SpxIpuProgram *p, SpxSweepPlanned *out)
{
  *out = (SpxSweepPlanned) { p->m, p->k, p->n, p->ms, p->nz_tflops, p->fits };
}

static gboolean
plan (const SpxSweepOptions *o, SpxIpuMode mode, const SpxMask *mask,
      SpxSweepPlanned *out, GError **error)
{
  g_autoptr (SpxIpuProgram) p =
    o->model_n != 0
      ? spx_ipu_plan (o->machine, mode, mask, o->model_n, o->dtype, error)
      : spx_ipu_plan_best_n (o->machine, mode, mask, 65536, o->dtype, error);
  if (p == NULL)
    return FALSE;
  planned_from (p, out);
  return TRUE;
}

/* At a fixed n only: the best n of a dense plan is chosen by non-zero
 * throughput, which a shape alone does not give. */
static gboolean
dense_kept (const SpxSweepOptions *o, const SpxMask *mask,
            SpxSweepDensePlans *plans, SpxSweepPlanned *out, GError **error)
{
  g_autofree char *key = g_strdup_printf (
    "%s %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %s",
    o->machine->name, mask->rows, mask->cols, o->model_n,
    spx_dtype_to_string (o->dtype));
  const SpxSweepPlanned *kept = g_hash_table_lookup (plans->by_shape, key);
  if (kept == NULL)
    {
      g_autoptr (SpxIpuProgram) p = spx_ipu_plan_dense (
        o->machine, mask->rows, mask->cols, o->model_n, o->dtype, error);
      if (p == NULL)
        return FALSE;
      SpxSweepPlanned *planned = g_new (SpxSweepPlanned, 1);
      planned_from (p, planned);
      planned->nz_tflops = p->tflops; /* at density 1 */
      g_hash_table_insert (plans->by_shape, g_steal_pointer (&key), planned);
      plans->planned++;
      kept = planned;
    }
  /* as spx_ipu_plan scales a dense plan to the mask */
  *out = *kept;
  out->nz_tflops = kept->nz_tflops * spx_ipu_plan_density (mask);
  return TRUE;
}

gboolean
_spx_sweep_model_plan (const SpxSweepOptions *o, SpxSweepDensePlans *plans,
                       SpxIpuMode mode, const SpxMask *mask,
                       SpxSweepPlanned *out, GError **error)
{
  if (plans != NULL && mode == SPX_IPU_MODE_DENSE && o->model_n != 0)
    return dense_kept (o, mask, plans, out, error);
  return plan (o, mode, mask, out, error);
}
