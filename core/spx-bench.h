/* spx-bench.h: measuring the CPU engine fairly against dense sgemm:
 * warm-up, alternating runs in one process, medians, checked results */
#pragma once

#include "spx-engine.h"

G_BEGIN_DECLS

/* Called after every timed run; return FALSE to cancel. */
typedef gboolean (*SpxBenchProgress) (guint done, guint total,
                                      gpointer user_data);

typedef struct {
  guint            warmup, reps;
  SpxEngineOptions engine;
  gboolean         run_static, run_dynamic, run_peers;
  guint64          seed;        /* values of A and B */
  SpxBenchProgress progress;
  gpointer         user_data;
} SpxBenchOptions;

typedef struct {
  gboolean ran;
  double   ms;          /* median */
  double   plan_ms;     /* static: building the plan, once */
  double   gflops;      /* dense: 2·m·k·n per second; sparse: non-zeros */
  double   speedup;     /* dense ms / this ms */
  double   efficiency;  /* gflops / dense gflops */
  double   max_rel_err; /* max |C − C_dense| / max |C_dense| */
  gsize    plan_bytes;
} SpxBenchTiming;

typedef struct {
  guint64        m, k, n;
  guint          block;
  double         density;       /* non-zero elements of the blocked A / (m·k) */
  guint64        nonzero_blocks, nnz_elements;
  guint          threads;
  SpxIsa         isa;
  guint          reps;
  gboolean       dense_openmp;  /* OpenBLAS shares OpenMP's threads */
  SpxBenchTiming dense, stat, dyn, librsb;
} SpxBenchResult;

void     spx_bench_options_init (SpxBenchOptions *options);
gboolean spx_bench_have_librsb  (void);

/* Multiply mask (random values) by a random k×n B, every way asked for. */
gboolean spx_bench_run (const SpxMask *mask, guint64 n,
                        const SpxBenchOptions *options,
                        SpxBenchResult *result, GError **error);

G_END_DECLS
