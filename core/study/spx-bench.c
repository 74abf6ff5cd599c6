/* spx-bench.c: measuring the CPU engine fairly against dense sgemm */
#include "spx-bench-private.h"
#include "spx-bf16.h"
#include "spx-defaults.h"
#include "spx-engine-private.h"
#include "spx-engine-tune.h"
#include "spx-mask-gen.h"
#include "spx-util.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* What OpenBLAS allocates per thread it runs, about. */
#define OPENBLAS_THREAD_BYTES (G_GUINT64_CONSTANT (32) << 20)

/* The operands: A as blocks (values in mask order) and as a dense matrix
 * for sgemm, B, and the two outputs of out_len floats. SDDMM: P and Q
 * (m×n, k×n) in A and B, D for dense's m×k product, outputs in mask
 * order. */
typedef struct {
  guint64     m, k, n;
  SpxBlockCsr csr;
  float      *values, *A, *B, *C_ref, *C, *D;
  /* bf16 copies, when oneDNN's bf16 or the bf16 plans run; for the
   * latter every fp32 operand holds bf16 values (rounded once), so that
   * all contestants multiply the same numbers */
  guint16    *A16, *B16, *values16;
  gsize       a_len, b_len, out_len;
  SpxCpuType  type;
} Operands;

static void
fill_random (float *x, gsize len, SpxRng *rng)
{
  for (gsize i = 0; i < len; i++)
    x[i] = (float) (2.0 * spx_rng_uniform (rng) - 1.0);
}

/* Scatter the block values into dense A; edge elements outside m×k are
 * zeroed in values too, so that every contestant multiplies the same A. */
static void
scatter_dense (Operands *o, guint b)
{
  gsize bb = (gsize) b * b;
  for (guint64 br = 0; br < o->csr.brows; br++)
    for (guint64 i = o->csr.row_offsets[br]; i < o->csr.row_offsets[br + 1]; i++)
      {
        guint64 bc = o->csr.col_indices[i];
        float *v = o->values + i * bb;
        for (guint r = 0; r < b; r++)
          for (guint c = 0; c < b; c++)
            {
              guint64 row = br * b + r, col = bc * b + c;
              if (row < o->m && col < o->k)
                o->A[row * o->k + col] = v[r * b + c];
              else
                v[r * b + c] = 0.0f;
            }
      }
}

static float *
try_alloc (guint64 count, const char *what, GError **error)
{
  float *p = count < G_MAXSIZE / sizeof (float)
               ? g_try_new0 (float, MAX (count, 1)) : NULL;
  if (p == NULL)
    g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_NO_MEMORY,
                 "no memory for %s (%" G_GUINT64_FORMAT " floats)", what, count);
  return p;
}

static void
operands_clear (Operands *o)
{
  spx_block_csr_clear (&o->csr);
  g_clear_pointer (&o->values, g_free);
  g_clear_pointer (&o->A, g_free);
  g_clear_pointer (&o->B, g_free);
  g_clear_pointer (&o->C_ref, g_free);
  g_clear_pointer (&o->C, g_free);
  g_clear_pointer (&o->D, g_free);
  g_clear_pointer (&o->A16, g_free);
  g_clear_pointer (&o->B16, g_free);
  g_clear_pointer (&o->values16, g_free);
}

/* All the operands at once, against the memory budget before any is
 * allocated. SpMM: A's blocks and their pattern, dense A (m·k), B (k·n)
 * and two of C (m·n); SDDMM: the pattern, P (m·n), Q (k·n), dense's m×k
 * product and two outputs of the kept blocks; as floats. mask NULL: the
 * dense matrices alone, what any mask of that shape needs. */
static gboolean
operands_check (SpxBenchOp op, guint64 m, guint64 k, guint64 n,
                const SpxMask *mask, GError **error)
{
  double f = sizeof (float), bb = mask ? (double) mask->block * mask->block
                                       : 0;
  double blocks = mask ? spx_mask_count (mask) : 0;
  double rows = mask ? mask->brows + 1.0 : 0;
  gboolean sddmm = op == SPX_BENCH_OP_SDDMM;
  double dense = sddmm ? (double) m * n + (double) k * n + (double) m * k
                       : (double) m * k + (double) k * n + 2.0 * m * n;
  double bytes = blocks * ((sddmm ? 2 : 1) * bb * f + sizeof (guint32)) +
                 rows * sizeof (guint64) + dense * f;
  g_autofree char *what = sddmm
    ? g_strdup_printf ("the operands (P %" G_GUINT64_FORMAT "×%"
                       G_GUINT64_FORMAT ", Q %" G_GUINT64_FORMAT "×%"
                       G_GUINT64_FORMAT ", dense P·Qᵀ and the kept blocks "
                       "twice, as floats)", m, n, k, n)
    : g_strdup_printf ("the operands (dense A %" G_GUINT64_FORMAT "×%"
                       G_GUINT64_FORMAT ", B %" G_GUINT64_FORMAT "×%"
                       G_GUINT64_FORMAT ", C %" G_GUINT64_FORMAT "×%"
                       G_GUINT64_FORMAT " twice, as floats)", m, k, k, n, m,
                       n);
  return spx_budget_check_estimate (bytes, what, error);
}

gboolean
spx_bench_check_operands (SpxBenchOp op, guint64 m, guint64 k, guint64 n,
                          GError **error)
{
  return operands_check (op, m, k, n, NULL, error);
}

static gboolean
operands_init (Operands *o, const SpxMask *mask, guint64 n, SpxCpuType type,
               guint64 seed, GError **error)
{
  memset (o, 0, sizeof *o);
  o->m = mask->rows;
  o->k = mask->cols;
  o->n = n;
  o->type = type;
  if (!operands_check (SPX_BENCH_OP_SPMM, o->m, o->k, n, mask, error))
    return FALSE;
  spx_block_csr_from_mask (&o->csr, mask);
  gsize bb = (gsize) mask->block * mask->block;
  if (!(o->values = try_alloc (o->csr.n_blocks * bb, "the values of A", error)) ||
      !(o->A = try_alloc (o->m * o->k, "dense A", error)) ||
      !(o->B = try_alloc (o->k * n, "B", error)) ||
      !(o->C_ref = try_alloc (o->m * n, "C", error)) ||
      !(o->C = try_alloc (o->m * n, "C", error)))
    {
      operands_clear (o);
      return FALSE;
    }
  SpxRng rng;
  spx_rng_init (&rng, seed);
  fill_random (o->values, o->csr.n_blocks * bb, &rng);
  fill_random (o->B, o->k * n, &rng);
  scatter_dense (o, mask->block);
  o->a_len = o->m * o->k;
  o->b_len = o->k * n;
  o->out_len = o->m * n;
  return TRUE;
}

static double
max_rel_err (const float *c, const float *ref, gsize len)
{
  double err = 0, scale = 0;
  for (gsize i = 0; i < len; i++)
    {
      err = MAX (err, fabs ((double) c[i] - ref[i]));
      scale = MAX (scale, fabs ((double) ref[i]));
    }
  return scale > 0 ? err / scale : err;
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* The q-quantile of sorted v, interpolating between neighbours. */
static double
quantile (const double *v, guint n, double q)
{
  double pos = q * (n - 1);
  guint i = (guint) pos;
  return i + 1 < n ? v[i] + (pos - i) * (v[i + 1] - v[i]) : v[n - 1];
}

static void
summarise (SpxBenchTiming *t, double *v, guint n)
{
  qsort (v, n, sizeof *v, compare_doubles);
  t->ran = TRUE;
  t->ms_best = v[0];
  t->ms_q1 = quantile (v, n, 0.25);
  t->ms = quantile (v, n, 0.5);
  t->ms_q3 = quantile (v, n, 0.75);
}

void
spx_bench_summarise_ratios (SpxBenchTiming *t, const double *dense_ms,
                            const double *ms, guint rounds)
{
  g_autofree double *ratio = g_new (double, MAX (rounds, 1));
  guint n = 0;
  for (guint i = 0; i < rounds; i++)
    if (ms[i] > 0 && dense_ms[i] > 0)
      ratio[n++] = dense_ms[i] / ms[i];
  if (n == 0)
    {
      t->speedup = t->speedup_q1 = t->speedup_q3 = NAN;
      return;
    }
  qsort (ratio, n, sizeof *ratio, compare_doubles);
  t->speedup_q1 = quantile (ratio, n, 0.25);
  t->speedup = quantile (ratio, n, 0.5);
  t->speedup_q3 = quantile (ratio, n, 0.75);
}

/* The machine's idle time and ours, to tell how much of it other
 * processes (or the hypervisor) took while we measured. */
typedef struct {
  gboolean ok;
  double   wall_s, idle_s, ours_s;
} CpuClock;

static void
cpu_clock_read (CpuClock *c)
{
  unsigned long long v[5] = { 0 };
  struct rusage ru, kids;
  c->ok = FALSE;
  FILE *f = fopen ("/proc/stat", "r");
  if (f == NULL)
    return;
  /* cpu  user nice system idle iowait … */
  int got = fscanf (f, "cpu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
                    &v[3], &v[4]);
  fclose (f);
  long hz = sysconf (_SC_CLK_TCK);
  /* the runner's peers are ours too, once they have exited */
  if (got != 5 || hz <= 0 || getrusage (RUSAGE_SELF, &ru) != 0 ||
      getrusage (RUSAGE_CHILDREN, &kids) != 0)
    return;
  c->ok = TRUE;
  c->wall_s = spx_now_ms () / 1e3;
  c->idle_s = (double) (v[3] + v[4]) / hz;
  c->ours_s = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
              (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6 +
              kids.ru_utime.tv_sec + kids.ru_stime.tv_sec +
              (kids.ru_utime.tv_usec + kids.ru_stime.tv_usec) / 1e6;
}

/* Cores others used on average between a and b; < 0 when unknown. */
static double
busy_cores (const CpuClock *a, const CpuClock *b, guint cpus)
{
  double wall = b->wall_s - a->wall_s;
  if (!a->ok || !b->ok || wall * 1e3 < SPX_NOISE_MIN_WINDOW_MS)
    return -1;
  double used = cpus * wall - (b->idle_s - a->idle_s);
  return MAX (0.0, (used - (b->ours_s - a->ours_s)) / wall);
}

/* One way of computing C, run in turn with the others. */
typedef struct {
  SpxBenchTiming *out;
  void          (*run) (gpointer ctx, const Operands *o, float *C);
  gpointer        ctx;
  double         *times;
  /* before every run, untimed (NULL: none) */
  void          (*prepare) (gpointer ctx, float *C);
} Contestant;

typedef struct {
  SpxDynamicPlan *plan;
  gboolean        failed;
} DynamicCtx;

static void
run_dense (gpointer ctx, const Operands *o, float *C)
{
  spx_dense_sgemm (o->m, o->k, o->n, o->A, o->B, C, FALSE,
                   GPOINTER_TO_UINT (ctx));
}

static void
run_onednn (gpointer ctx, const Operands *o, float *C)
{
  spx_dense_onednn_run (ctx, o->A, o->B, C);
}

static void
run_static (gpointer ctx, const Operands *o, float *C)
{
  spx_static_plan_execute (ctx, o->B, C, FALSE);
}

static void
run_static_bf16 (gpointer ctx, const Operands *o, float *C)
{
  spx_static_plan_execute_bf16 (ctx, o->B16, C, FALSE);
}

static void
run_tilewise (gpointer ctx, const Operands *o, float *C)
{
  spx_tilewise_plan_execute (ctx, o->B, C, FALSE);
}

static void
run_dynamic (gpointer ctx, const Operands *o, float *C)
{
  DynamicCtx *d = ctx;
  /* The whole run-time distribution is inside the timed call. */
  d->failed |= !spx_dynamic_plan_execute (d->plan, &o->csr, o->values, o->B,
                                          C, FALSE, NULL);
}

/* An in-process peer in the race. */
typedef struct {
  const SpxPeerClass *klass;
  gpointer            peer;
} PeerCtx;

static void
run_dynamic_bf16 (gpointer ctx, const Operands *o, float *C)
{
  DynamicCtx *d = ctx;
  d->failed |= !spx_dynamic_plan_execute_bf16 (d->plan, &o->csr,
                                               o->values16, o->B16, C, FALSE,
                                               NULL);
}

static void
run_peer (gpointer ctx, const Operands *o, float *C)
{
  PeerCtx *p = ctx;
  p->klass->run (p->peer, o->B, C);
}

static void
prepare_peer (gpointer ctx, float *C)
{
  PeerCtx *p = ctx;
  p->klass->prepare (p->peer, C);
}

/* Alternate the contestants, warm-up rounds first; medians of the rest.
 * Whatever runs right after dense sgemm finds the caches full of its dirty
 * lines (measured: 10–20% slower), so each timed run follows an untimed
 * run of the same contestant: every one starts from its own cache state.
 * Round 0 runs dense first; its C is the reference for the error. */
static gboolean
run_rounds (Contestant *c, guint n_c, const Operands *o,
            const SpxBenchOptions *opt, SpxBenchResult *r, GError **error)
{
  guint rounds = opt->warmup + opt->reps, done = 0;
  gsize len = o->out_len;
  CpuClock before, after;
  for (guint round = 0; round < rounds; round++)
    for (guint i = 0; i < n_c; i++)
      {
        /* the warm-up's first touches make the kernel work for us (page
         * faults, huge pages): judge the timed rounds only */
        if (round == opt->warmup && i == 0)
          cpu_clock_read (&before);
        float *C = i == 0 ? o->C_ref : o->C;
        if (c[i].prepare)
          c[i].prepare (c[i].ctx, C);
        c[i].run (c[i].ctx, o, C);
        if (round == 0 && i > 0)
          c[i].out->max_rel_err = max_rel_err (C, o->C_ref, len);
        if (c[i].prepare)
          c[i].prepare (c[i].ctx, C);
        double t0 = spx_now_ms ();
        c[i].run (c[i].ctx, o, C);
        double t = spx_now_ms () - t0;
        if (round >= opt->warmup)
          c[i].times[round - opt->warmup] = t;
        if (opt->progress && !opt->progress (++done, rounds * n_c,
                                             opt->user_data))
          {
            g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_CANCELLED,
                         "cancelled");
            return FALSE;
          }
        if (spx_cancelled (error))
          return FALSE;
      }
  cpu_clock_read (&after);
  r->busy_cores = busy_cores (&before, &after, r->cpus);
  for (guint i = 0; i < n_c; i++)
    summarise (c[i].out, c[i].times, opt->reps);
  return TRUE;
}

const char *
spx_dense_name (SpxDenseId id)
{
  static const char *const names[SPX_N_DENSE] = {
    [SPX_DENSE_OPENBLAS] = "OpenBLAS",
    [SPX_DENSE_ONEDNN] = "oneDNN",
    [SPX_DENSE_ONEDNN_BF16] = "oneDNN bf16",
  };
  return id < SPX_N_DENSE ? names[id] : NULL;
}

/* Whether dense library id ran and agrees with OpenBLAS (else its note
 * says why not). */
static gboolean
dense_usable (SpxBenchResult *r, SpxDenseId id)
{
  SpxBenchDense *d = &r->denses[id];
  if (d->t.ran && d->t.max_rel_err > SPX_DENSE_AGREE)
    g_snprintf (d->note, sizeof d->note, "its C is %.2g away from "
                "OpenBLAS's: not used", d->t.max_rel_err);
  return d->t.ran && d->t.max_rel_err <= SPX_DENSE_AGREE;
}

/* The baseline: the faster dense of those that agree with OpenBLAS.
 * For bf16 every operand holds bf16 values, so an fp32 dense multiplies
 * the same numbers: where it beats oneDNN's bf16 (a processor whose bf16
 * instructions run below its FMAs' rate), it is the dense a user would
 * run, and the note says so. */
static SpxDenseId
choose_dense (SpxBenchResult *r)
{
  SpxDenseId best = SPX_DENSE_OPENBLAS;
  gboolean bf16_ok = dense_usable (r, SPX_DENSE_ONEDNN_BF16);
  if (dense_usable (r, SPX_DENSE_ONEDNN) &&
      r->denses[SPX_DENSE_ONEDNN].t.ms < r->denses[best].t.ms)
    best = SPX_DENSE_ONEDNN;
  SpxBenchDense *bf16 = &r->denses[SPX_DENSE_ONEDNN_BF16];
  if (r->type == SPX_CPU_BF16 && bf16_ok && bf16->t.ms <= r->denses[best].t.ms)
    best = SPX_DENSE_ONEDNN_BF16;
  else if (r->type == SPX_CPU_BF16 && bf16_ok)
    g_snprintf (r->dense_note, sizeof r->dense_note, "%s in fp32 on the "
                "same bf16 values ran faster than oneDNN's bf16 (%.3g "
                "against %.3g ms) and is the reference",
                spx_dense_name (best), r->denses[best].t.ms, bf16->t.ms);
  else if (r->type == SPX_CPU_BF16)
    g_snprintf (r->dense_note, sizeof r->dense_note, "no bf16 dense here "
                "(%s): the ratios are over fp32 %s",
                bf16->note[0] != '\0' ? bf16->note : "not run",
                spx_dense_name (best));
  r->dense = r->denses[best].t;
  r->dense_library = spx_dense_name (best);
  double dense_flop = 2.0 * r->m * r->k * r->n;
  for (guint i = 0; i < SPX_N_DENSE; i++)
    {
      SpxBenchTiming *t = &r->denses[i].t;
      if (!t->ran)
        continue;
      t->gflops = dense_flop / (t->ms * 1e6);
      t->speedup = t->efficiency = r->dense.ms / t->ms;
    }
  return best;
}

/* The timed runs of the contestant measured into t; NULL for one that
 * timed itself in another process (the runner's peers). */
static const double *
times_of (Contestant *c, guint n_c, const SpxBenchTiming *t)
{
  for (guint i = 0; i < n_c; i++)
    if (c[i].out == t)
      return c[i].times;
  return NULL;
}

/* Speedups as medians of per-round ratios over the baseline's run of the
 * same round; a contestant from another process (no rounds shared with
 * dense) gets the ratio of medians and its quartiles. */
static void
derive (SpxBenchResult *r, Contestant *c, guint n_c)
{
  double dense_flop = 2.0 * r->m * r->k * r->n;
  double nz_flop = 2.0 * r->nnz_elements * r->n;
  SpxDenseId base = choose_dense (r);
  const double *dense_times = times_of (c, n_c, &r->denses[base].t);
  r->dense.gflops = dense_flop / (r->dense.ms * 1e6);
  r->dense.speedup = r->dense.efficiency = 1.0;
  r->dense.speedup_q1 = r->dense.speedup_q3 = 1.0;
  SpxBenchTiming *sparse[SPX_BENCH_SPARSE_TIMINGS];
  _spx_bench_sparse_timings (r, sparse);
  for (guint i = 0; i < G_N_ELEMENTS (sparse); i++)
    if (sparse[i]->ran)
      {
        SpxBenchTiming *t = sparse[i];
        gboolean dense = t == &r->peers[SPX_PEER_TORCH_DENSE].t;
        const double *times = times_of (c, n_c, t);
        t->gflops = (dense ? dense_flop : nz_flop) / (t->ms * 1e6);
        if (times != NULL && dense_times != NULL)
          spx_bench_summarise_ratios (t, dense_times, times, r->reps);
        else
          {
            t->speedup = r->dense.ms / t->ms;
            t->speedup_q1 = t->ms_q3 > 0 ? r->dense.ms / t->ms_q3
                                         : t->speedup;
            t->speedup_q3 = t->ms_q1 > 0 ? r->dense.ms / t->ms_q1
                                         : t->speedup;
          }
        /* per non-zero against dense per element, as the speedup says */
        t->efficiency = dense ? t->speedup : t->speedup * r->density;
      }
  spx_bench_judge (r, 0);
}

static void
describe (SpxBenchResult *r, const SpxMask *mask, guint64 n,
          const SpxBenchOptions *options)
{
  memset (r, 0, sizeof *r);
  r->op = options->op;
  r->m = mask->rows;
  r->k = mask->cols;
  r->n = n;
  r->block = mask->block;
  r->nonzero_blocks = spx_mask_count (mask);
  r->nnz_elements = spx_mask_count_elements (mask);
  r->density = (double) r->nnz_elements / ((double) r->m * r->k);
  r->threads = spx_engine_threads (&options->engine);
  r->isa = options->engine.isa;
  r->type = options->engine.type;
  r->reps = options->reps;
  r->warmup = options->warmup;
  r->cpus = (guint) MAX (1, sysconf (_SC_NPROCESSORS_ONLN));
  r->busy_cores = -1;
  for (guint i = 0; i < SPX_N_PEERS; i++)
    r->peers[i].once_ms = -1;
  r->dense_core = spx_dense_core ();
  r->tile_width = options->tile_width;
  spx_dense_config (&r->dense_openmp);
}

typedef struct {
  Operands        o;
  SpxStaticPlan  *stat;
  SpxTilewisePlan *tilewise;
  DynamicCtx      dyn;
  PeerCtx         peers[SPX_PEER_FIRST_RUNNER];
  SpxDenseOnednn *onednn[2];  /* fp32, bf16 */
  SpxEngineOptions engine;    /* SDDMM's */
  /* dense ×3, static, tile-wise, dynamic, the in-process peers */
  Contestant      c[6 + SPX_PEER_FIRST_RUNNER];
  guint           n_c;
} Race;

static void
race_clear (Race *race)
{
  spx_static_plan_free (race->stat);
  spx_tilewise_plan_free (race->tilewise);
  spx_dynamic_plan_free (race->dyn.plan);
  for (guint i = 0; i < G_N_ELEMENTS (race->peers); i++)
    if (race->peers[i].peer)
      race->peers[i].klass->free (race->peers[i].peer);
  for (guint i = 0; i < G_N_ELEMENTS (race->onednn); i++)
    spx_dense_onednn_free (race->onednn[i]);
  for (guint i = 0; i < race->n_c; i++)
    g_free (race->c[i].times);
  operands_clear (&race->o);
}

static void
enter (Race *race, SpxBenchTiming *out,
       void (*run) (gpointer, const Operands *, float *), gpointer ctx,
       guint reps)
{
  g_assert (race->n_c < G_N_ELEMENTS (race->c));
  race->c[race->n_c++] = (Contestant) { out, run, ctx, g_new (double, reps),
                                        NULL };
}

/* Each in-process peer runs with ours when the build has it and it can
 * be made; else its note says why not. */
static void
enter_peers (Race *race, SpxBenchResult *r, const SpxBenchOptions *opt)
{
  SpxPeerOperands po = { &race->o.csr, race->o.values, race->o.A, r->n,
                         r->threads, race->o.B };
  for (SpxPeerId id = 0; id < SPX_PEER_FIRST_RUNNER; id++)
    {
      SpxBenchPeer *p = &r->peers[id];
      PeerCtx *ctx = &race->peers[id];
      g_autoptr (GError) local = NULL;
      ctx->klass = spx_peer_class (id);
      ctx->peer = ctx->klass->make (&po, p->note, sizeof p->note, &local);
      if (ctx->peer == NULL)
        {
          g_strlcpy (p->note, local->message, sizeof p->note);
          continue;
        }
      p->threads = r->threads;
      p->once_ms = ctx->klass->once_ms ? ctx->klass->once_ms (ctx->peer) : -1;
      g_strlcpy (p->version, ctx->klass->version (), sizeof p->version);
      enter (race, &p->t, run_peer, ctx, opt->reps);
      if (ctx->klass->prepare)
        race->c[race->n_c - 1].prepare = prepare_peer;
    }
}

/* A peer whose runs reported an error is not a result. */
static void
check_peers (Race *race, SpxBenchResult *r)
{
  for (SpxPeerId id = 0; id < SPX_PEER_FIRST_RUNNER; id++)
    {
      PeerCtx *ctx = &race->peers[id];
      const char *why = ctx->peer && ctx->klass->failure
                          ? ctx->klass->failure (ctx->peer) : NULL;
      if (why == NULL)
        continue;
      r->peers[id].t.ran = FALSE;
      r->peers[id].failed = TRUE;
      g_strlcpy (r->peers[id].note, why, sizeof r->peers[id].note);
    }
}

/* The runner's peers, one after another once ours are done; each times
 * its own runs in its own process. */
static gboolean
run_external (const Operands *o, const SpxBenchOptions *opt,
              SpxBenchResult *r, GError **error)
{
  g_autofree char *runner = spx_peers_runner ();
  g_autoptr (GError) local = NULL;
  g_autofree char *dir = runner ? g_dir_make_tmp ("spx-peers-XXXXXX", &local)
                                : NULL;
  gboolean written = dir != NULL &&
                     spx_peers_write (dir, &o->csr, o->values, o->B, o->n,
                                      &local);
  gboolean ok = TRUE;
  for (guint id = SPX_PEER_FIRST_RUNNER; ok && id < SPX_N_PEERS; id++)
    {
      SpxBenchPeer *p = &r->peers[id];
      if (runner != NULL && !written)
        g_snprintf (p->note, sizeof p->note, "could not write the operands "
                    "for the runner: %s", local->message);
      else
        {
          CpuClock before, after;
          cpu_clock_read (&before);
          ok = spx_peer_run_external (runner, dir, id, r->threads,
                                      opt->warmup, opt->reps,
                                      opt->peer_timeout_s, o->C, o->m,
                                      o->n, p, error);
          cpu_clock_read (&after);
          p->busy_cores = busy_cores (&before, &after, r->cpus);
        }
      if (p->t.ran)
        p->t.max_rel_err = max_rel_err (o->C, o->C_ref, o->m * o->n);
    }
  if (dir != NULL)
    spx_peers_remove_dir (dir);
  return ok;
}

static void
run_onednn_bf16 (gpointer ctx, const Operands *o, float *C)
{
  spx_dense_onednn_run (ctx, o->A16, o->B16, C);
}

static void
round_to_bf16 (float *x, gsize len)
{
  for (gsize i = 0; i < len; i++)
    x[i] = spx_bf16_to_float (spx_bf16_from_float (x[i]));
}

/* bf16 copies of A and B (and of A's blocks), made once; for the bf16
 * plans the fp32 operands are rounded to bf16 first. */
static gboolean
operands_bf16 (Operands *o, GError **error)
{
  if (o->A16 != NULL)
    return TRUE;
  gsize bb = (gsize) o->csr.b * o->csr.b;
  gsize blocks = o->values != NULL ? o->csr.n_blocks * bb : 0;
  guint64 count = o->a_len + o->b_len + blocks;
  if (!spx_budget_check (count * sizeof (guint16), "bf16 copies of the "
                         "operands", error))
    return FALSE;
  if (o->type == SPX_CPU_BF16)
    {
      round_to_bf16 (o->A, o->a_len);
      round_to_bf16 (o->B, o->b_len);
      if (o->values != NULL)
        round_to_bf16 (o->values, blocks);
    }
  o->A16 = g_new (guint16, MAX (o->a_len, 1));
  o->B16 = g_new (guint16, MAX (o->b_len, 1));
  spx_bf16_from_floats (o->A, o->A16, o->a_len);
  spx_bf16_from_floats (o->B, o->B16, o->b_len);
  if (o->values != NULL)
    {
      o->values16 = g_new (guint16, MAX (blocks, 1));
      spx_bf16_from_floats (o->values, o->values16, blocks);
    }
  return TRUE;
}

/* oneDNN's dense, fp32 and bf16, runs beside OpenBLAS's when the build
 * and the processor have it; else its note says why not. */
static void
enter_onednn (Race *race, SpxBenchResult *r, const SpxBenchOptions *opt)
{
  static const struct { SpxDenseId id; SpxCpuType type;
                        void (*run) (gpointer, const Operands *, float *);
  } kinds[] = {
    { SPX_DENSE_ONEDNN, SPX_CPU_FP32, run_onednn },
    { SPX_DENSE_ONEDNN_BF16, SPX_CPU_BF16, run_onednn_bf16 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    {
      SpxBenchDense *d = &r->denses[kinds[i].id];
      g_autoptr (GError) local = NULL;
      race->onednn[i] = spx_dense_onednn_new (r->m, r->k, r->n,
                                              kinds[i].type, r->threads,
                                              &local);
      if (race->onednn[i] == NULL || (kinds[i].type == SPX_CPU_BF16 &&
                                      !operands_bf16 (&race->o, &local)))
        {
          g_strlcpy (d->note, local->message, sizeof d->note);
          continue;
        }
      g_strlcpy (d->kernel, spx_dense_onednn_kernel (race->onednn[i]),
                 sizeof d->kernel);
      enter (race, &d->t, kinds[i].run, race->onednn[i], opt->reps);
    }
}

static gboolean
enter_all (Race *race, const SpxMask *mask, SpxBenchResult *r,
           const SpxBenchOptions *opt, GError **error)
{
  SpxEngineOptions engine = opt->engine;
  engine.threads = r->threads;
  gboolean bf16 = engine.type == SPX_CPU_BF16;
  if (bf16 && !operands_bf16 (&race->o, error))
    return FALSE;
  SpxBenchDense *blas = &r->denses[SPX_DENSE_OPENBLAS];
  g_strlcpy (blas->kernel, r->dense_core, sizeof blas->kernel);
  enter (race, &blas->t, run_dense, GUINT_TO_POINTER (r->threads),
         opt->reps);
  enter_onednn (race, r, opt);
  if (spx_cancelled (error))
    return FALSE;
  if (opt->run_static)
    {
      /* kernels timed (if ever) before the plan's time starts: how they
       * were chosen is said, their timing is no part of the plan's */
      spx_tune_choose (SPX_TUNE_SPMM, engine.type, r->block, r->n, &engine,
                       &r->choice);
      double t0 = spx_now_ms ();
      race->stat = spx_static_plan_new (mask, race->o.values, r->n, &engine,
                                        error);
      if (race->stat == NULL)
        return FALSE;
      r->stat.plan_ms = spx_now_ms () - t0;
      r->stat.plan_bytes = spx_static_plan_bytes (race->stat);
      g_strlcpy (r->stat_kernel, spx_static_plan_kernel (race->stat),
                 sizeof r->stat_kernel);
      enter (race, &r->stat, bf16 ? run_static_bf16 : run_static, race->stat,
             opt->reps);
    }
  if (opt->run_tilewise && !bf16) /* its sgemms are fp32 only */
    {
      double t0 = spx_now_ms ();
      race->tilewise = spx_tilewise_plan_new (mask, race->o.values,
                                              opt->tile_width, r->n, &engine,
                                              error);
      if (race->tilewise == NULL)
        return FALSE;
      r->tilewise.plan_ms = spx_now_ms () - t0;
      r->tilewise.plan_bytes = spx_tilewise_plan_bytes (race->tilewise);
      r->tilewise_fill = spx_tilewise_plan_fill (race->tilewise);
      enter (race, &r->tilewise, run_tilewise, race->tilewise, opt->reps);
    }
  if (opt->run_dynamic)
    {
      if (!opt->run_static)
        spx_tune_choose (SPX_TUNE_SPMM, engine.type, r->block, r->n, &engine,
                         &r->choice);
      race->dyn.plan = spx_dynamic_plan_new (r->m, r->k, r->n, r->block,
                                             r->nonzero_blocks, &engine, error);
      if (race->dyn.plan == NULL)
        return FALSE;
      g_strlcpy (r->dyn_kernel, spx_dynamic_plan_kernel (race->dyn.plan),
                 sizeof r->dyn_kernel);
      enter (race, &r->dyn, bf16 ? run_dynamic_bf16 : run_dynamic,
             &race->dyn, opt->reps);
    }
  if (spx_cancelled (error))
    return FALSE;
  if (opt->run_peers && !bf16) /* the peers run fp32 */
    enter_peers (race, r, opt);
  return TRUE;
}

/* Threads OpenBLAS can run: not more than spx_max_threads, and their
 * buffers within the memory budget. */
static gboolean
check_threads (guint threads, GError **error)
{
  if (threads > spx_max_threads ())
    {
      g_autofree char *most = spx_max_threads_text ();
      g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID,
                   "%u threads: expected at most %s", threads, most);
      return FALSE;
    }
  g_autofree char *what = g_strdup_printf ("OpenBLAS's buffers for %u "
                                           "threads (32 MiB each)", threads);
  return spx_budget_check (threads * OPENBLAS_THREAD_BYTES, what, error);
}

/* SDDMM's operands, against the memory budget first (operands_check). */
static gboolean
sddmm_operands_init (Operands *o, const SpxMask *mask, guint64 kd,
                     SpxCpuType type, guint64 seed, GError **error)
{
  memset (o, 0, sizeof *o);
  o->m = mask->rows;
  o->k = mask->cols;
  o->n = kd;
  o->type = type;
  if (!operands_check (SPX_BENCH_OP_SDDMM, o->m, o->k, kd, mask, error))
    return FALSE;
  spx_block_csr_from_mask (&o->csr, mask);
  o->out_len = o->csr.n_blocks * (gsize) mask->block * mask->block;
  if (!(o->A = try_alloc (o->m * kd, "P", error)) ||
      !(o->B = try_alloc (o->k * kd, "Q", error)) ||
      !(o->D = try_alloc (o->m * o->k, "dense P·Qᵀ", error)) ||
      !(o->C_ref = try_alloc (o->out_len, "the kept blocks", error)) ||
      !(o->C = try_alloc (o->out_len, "the kept blocks", error)))
    {
      operands_clear (o);
      return FALSE;
    }
  SpxRng rng;
  spx_rng_init (&rng, seed);
  fill_random (o->A, o->m * kd, &rng);
  fill_random (o->B, o->k * kd, &rng);
  o->a_len = o->m * kd;
  o->b_len = o->k * kd;
  return TRUE;
}

/* Dense's mask step: the kept blocks of D in mask order, as spx_sddmm
 * writes them (0 outside m×k), on dense's threads. */
static void
gather_blocks (const Operands *o, float *out, int threads)
{
  const SpxBlockCsr *p = &o->csr;
  guint64 b = p->b;

#pragma omp parallel for schedule (static) num_threads (threads)
  for (guint64 br = 0; br < p->brows; br++)
    for (guint64 i = p->row_offsets[br]; i < p->row_offsets[br + 1]; i++)
      for (guint64 r = 0; r < b; r++)
        {
          float *row = out + (i * b + r) * b;
          guint64 y = br * b + r, x0 = p->col_indices[i] * b;
          for (guint64 c = 0; c < b; c++)
            row[c] = y < o->m && x0 + c < o->k ? o->D[y * o->k + x0 + c]
                                               : 0.0f;
        }
}

static void
run_dense_sddmm (gpointer ctx, const Operands *o, float *C)
{
  int threads = (int) MAX (GPOINTER_TO_UINT (ctx), 1);

  openblas_set_num_threads (threads);
  cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, (int) o->m,
               (int) o->k, (int) o->n, 1.0f, o->A, (int) o->n, o->B,
               (int) o->n, 0.0f, o->D, (int) o->k);
  gather_blocks (o, C, threads);
}

static void
run_sddmm (gpointer ctx, const Operands *o, float *C)
{
  spx_sddmm (&o->csr, o->A, o->B, o->n, C, ctx, NULL);
}

static void
run_sddmm_bf16 (gpointer ctx, const Operands *o, float *C)
{
  spx_sddmm_bf16 (&o->csr, o->A16, o->B16, o->n, C, ctx, NULL);
}

/* SDDMM's race: dense, then spx_sddmm when static is asked for. */
static gboolean
sddmm_enter_all (Race *race, SpxBenchResult *r, const SpxBenchOptions *opt,
                 GError **error)
{
  if (r->m > INT_MAX || r->k > INT_MAX || r->n > INT_MAX)
    {
      g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID,
                   "SDDMM's dense sgemm takes sizes up to %d", INT_MAX);
      return FALSE;
    }
  race->engine = opt->engine;
  race->engine.threads = r->threads;
  gboolean bf16 = race->engine.type == SPX_CPU_BF16;
  if (bf16 && !operands_bf16 (&race->o, error))
    return FALSE;
  SpxBenchDense *blas = &r->denses[SPX_DENSE_OPENBLAS];
  g_strlcpy (blas->kernel, r->dense_core, sizeof blas->kernel);
  enter (race, &blas->t, run_dense_sddmm, GUINT_TO_POINTER (r->threads),
         opt->reps);
  for (SpxDenseId id = SPX_DENSE_ONEDNN; id < SPX_N_DENSE; id++)
    g_strlcpy (r->denses[id].note, "SDDMM's dense is OpenBLAS's alone",
               sizeof r->denses[id].note);
  SpxIsa isa = spx_tune_choose (SPX_TUNE_SDDMM, race->engine.type, r->block,
                                r->n, &race->engine, &r->choice);
  g_strlcpy (r->stat_kernel, spx_isa_to_string (isa), sizeof r->stat_kernel);
  if (opt->run_static)
    enter (race, &r->stat, bf16 ? run_sddmm_bf16 : run_sddmm, &race->engine,
           opt->reps);
  return !spx_cancelled (error);
}

gboolean
spx_bench_run (const SpxMask *mask, guint64 n, const SpxBenchOptions *options,
               SpxBenchResult *result, GError **error)
{
  if (options->reps == 0)
    {
      g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID,
                   "at least one repetition is needed");
      return FALSE;
    }
  if (!spx_engine_check_sizes (mask->rows, mask->cols, n, mask->block,
                               error) ||
      !check_threads (spx_engine_threads (&options->engine), error) ||
      spx_cancelled (error))
    return FALSE;
  describe (result, mask, n, options);
  Race race = { 0 };
  gboolean sddmm = options->op == SPX_BENCH_OP_SDDMM;
  SpxCpuType type = options->engine.type;
  gboolean ok = (sddmm ? sddmm_operands_init (&race.o, mask, n, type,
                                              options->seed, error) &&
                         sddmm_enter_all (&race, result, options, error)
                       : operands_init (&race.o, mask, n, type,
                                        options->seed, error) &&
                         enter_all (&race, mask, result, options, error)) &&
                run_rounds (race.c, race.n_c, &race.o, options, result,
                            error) &&
                (!options->run_peers || type == SPX_CPU_BF16 ||
                 run_external (&race.o, options, result, error));
  if (ok)
    check_peers (&race, result);
  if (ok && race.dyn.failed)
    {
      g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID,
                   "the dynamic plan refused the pattern");
      ok = FALSE;
    }
  if (ok)
    derive (result, race.c, race.n_c);
  race_clear (&race);
  return ok;
}
