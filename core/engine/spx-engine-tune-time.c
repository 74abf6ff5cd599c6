/* spx-engine-tune-time.c: timing the candidate kernels on a
 * representative product, in turns */
#include "spx-engine-tune-private.h"
#include "spx-engine-private.h"
#include "spx-bf16.h"

#include <math.h>

#define SIDE 512        /* m and k: B's rows stay in L2, as in a layer's tile */
#define ROUNDS SPX_TUNE_ROUNDS
#define MARGIN 0.95     /* what a challenger must beat the default by */
#define BATCH_US 1000   /* a timed batch lasts about this long */
#define MAX_BATCH 64

/* The product timed: a seeded pattern of density 0.1 (a block in every
 * block-row), its values and the dense operands, in both types. */
typedef struct {
  SpxTuneOp     op;
  SpxCpuType    type;
  SpxMask      *mask;
  SpxBlockCsr   csr;
  float        *values, *B, *P, *C;
  guint16      *B_bf16, *P_bf16;
  guint64       m, k, n;
} Product;

static guint32
next (guint32 *state)
{
  *state = *state * 1664525u + 1013904223u;
  return *state >> 8;
}

static float *
filled (gsize count, guint32 *state)
{
  float *x = g_new (float, MAX (count, 1));
  for (gsize i = 0; i < count; i++)
    x[i] = (float) (next (state) % 2001) / 1000.0f - 1.0f;
  return x;
}

static guint16 *
rounded (const float *x, gsize count)
{
  guint16 *y = g_new (guint16, MAX (count, 1));
  spx_bf16_from_floats (x, y, count);
  return y;
}

static void
product_init (Product *p, SpxTuneOp op, SpxCpuType type, guint b, guint64 n)
{
  guint32 state = 1;
  p->op = op;
  p->type = type;
  p->m = p->k = (guint64) b * ((SIDE + b - 1) / b);
  p->n = n;
  p->mask = spx_mask_new (p->m, p->k, b, NULL);
  guint64 side = p->m / b;
  for (guint64 r = 0; r < side; r++)
    {
      spx_mask_set (p->mask, r, next (&state) % side);
      for (guint64 c = 0; c < side; c++)
        if (next (&state) % 10 == 0)
          spx_mask_set (p->mask, r, c);
    }
  spx_block_csr_from_mask (&p->csr, p->mask);
  gsize nv = p->csr.n_blocks * b * b;
  p->values = filled (nv, &state);
  p->B = filled (p->k * n, &state); /* SDDMM's Q */
  p->P = filled (p->m * n, &state);
  p->C = g_new0 (float, op == SPX_TUNE_SPMM ? p->m * n : MAX (nv, 1));
  if (type == SPX_CPU_BF16)
    {
      p->B_bf16 = rounded (p->B, p->k * n);
      p->P_bf16 = rounded (p->P, p->m * n);
    }
}

static void
product_clear (Product *p)
{
  spx_block_csr_clear (&p->csr);
  g_clear_pointer (&p->mask, spx_mask_free);
  g_free (p->values);
  g_free (p->B);
  g_free (p->P);
  g_free (p->C);
  g_free (p->B_bf16);
  g_free (p->P_bf16);
}

/* One run of a candidate: its static plan, or its SDDMM. */
static void
run_once (Product *p, SpxStaticPlan *plan, const SpxEngineOptions *o)
{
  if (plan != NULL && p->type == SPX_CPU_BF16)
    spx_static_plan_execute_bf16 (plan, p->B_bf16, p->C, FALSE);
  else if (plan != NULL)
    spx_static_plan_execute (plan, p->B, p->C, FALSE);
  else if (p->type == SPX_CPU_BF16)
    spx_sddmm_bf16 (&p->csr, p->P_bf16, p->B_bf16, p->n, p->C, o, NULL);
  else
    spx_sddmm (&p->csr, p->P, p->B, p->n, p->C, o, NULL);
}

/* Microseconds a run takes, the best of a batch of *reps (chosen on the
 * first call so that a batch lasts about BATCH_US). */
static double
time_batch (Product *p, SpxStaticPlan *plan, const SpxEngineOptions *o,
            guint *reps)
{
  run_once (p, plan, o); /* warm: caches, pages, the thread pool */
  if (*reps == 0)
    {
      gint64 t0 = g_get_monotonic_time ();
      run_once (p, plan, o);
      gint64 once = MAX (g_get_monotonic_time () - t0, 1);
      *reps = (guint) CLAMP (BATCH_US / once, 1, MAX_BATCH);
    }
  gint64 t0 = g_get_monotonic_time ();
  for (guint r = 0; r < *reps; r++)
    run_once (p, plan, o);
  return (double) (g_get_monotonic_time () - t0) / *reps;
}

guint
_spx_tune_decide (double times[SPX_TUNE_ROUNDS][SPX_ISA_COUNT], guint n_isas,
                  guint d, gboolean *steady)
{
  double best[SPX_ISA_COUNT];
  guint wins[SPX_ISA_COUNT] = { 0 };
  for (guint i = 0; i < n_isas; i++)
    best[i] = INFINITY;
  for (guint r = 0; r < ROUNDS; r++)
    {
      guint fastest = 0;
      for (guint i = 0; i < n_isas; i++)
        {
          best[i] = MIN (best[i], times[r][i]);
          fastest = times[r][i] < times[r][fastest] ? i : fastest;
        }
      wins[fastest]++;
    }
  guint pick = d;
  for (guint i = 0; i < n_isas; i++)
    if (best[i] < MARGIN * best[d] && 2 * wins[i] > ROUNDS &&
        best[i] < best[pick])
      pick = i;
  *steady = TRUE;
  for (guint r = 0; r < ROUNDS; r++)
    {
      double fastest = INFINITY;
      for (guint i = 0; i < n_isas; i++)
        fastest = MIN (fastest, times[r][i]);
      *steady &= MARGIN * times[r][pick] <= fastest;
    }
  return pick;
}

SpxIsa
_spx_tune_time (SpxTuneOp op, SpxCpuType type, guint b, guint64 n,
                guint threads, const SpxIsa *isas, guint n_isas,
                SpxIsa default_isa, gboolean *steady)
{
  Product p = { 0 };
  product_init (&p, op, type, b, n);
  SpxStaticPlan *plans[SPX_ISA_COUNT] = { NULL };
  SpxEngineOptions opts[SPX_ISA_COUNT];
  double times[ROUNDS][SPX_ISA_COUNT];
  guint reps[SPX_ISA_COUNT] = { 0 }, d = 0;
  for (guint i = 0; i < n_isas; i++)
    {
      opts[i] = (SpxEngineOptions) { .threads = threads, .isa = isas[i],
                                     .pick = SPX_PICK_GIVEN, .type = type };
      if (op == SPX_TUNE_SPMM)
        plans[i] = spx_static_plan_new (p.mask, p.values, n, &opts[i], NULL);
      d = isas[i] == default_isa ? i : d;
    }
  for (guint r = 0; r < ROUNDS; r++)
    for (guint i = 0; i < n_isas; i++)
      times[r][i] = op != SPX_TUNE_SPMM || plans[i] != NULL
                      ? time_batch (&p, plans[i], &opts[i], &reps[i])
                      : INFINITY;
  guint pick = _spx_tune_decide (times, n_isas, d, steady);
  for (guint i = 0; i < n_isas; i++)
    g_clear_pointer (&plans[i], spx_static_plan_free);
  product_clear (&p);
  return isas[pick];
}
