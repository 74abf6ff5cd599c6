/* spx-bench.h: measuring the CPU engine fairly against dense sgemm:
 * warm-up, alternating runs in one process, medians, checked results */
#pragma once

#include "spx-engine.h"
#include "spx-scenario.h"

G_BEGIN_DECLS

/* Called after every timed run; return FALSE to cancel. */
typedef gboolean (*SpxBenchProgress) (guint done, guint total,
                                      gpointer user_data);

/* What is measured: C = A·B (A sparse, B dense n wide), or SDDMM: the
 * entries of P·Qᵀ that the mask keeps (P m×n, Q k×n: n is kd). */
typedef enum {
  SPX_BENCH_OP_SPMM,
  SPX_BENCH_OP_SDDMM,
} SpxBenchOp;

typedef struct {
  guint            warmup, reps;
  SpxBenchOp       op;          /* SDDMM: static is spx_sddmm, the only
                                   contestant besides dense; dynamic and
                                   peers do not apply and are not run */
  /* engine.type SPX_CPU_BF16: the plans run in bf16 against the fastest
   * dense of those values (oneDNN's bf16 or an fp32 one); every operand is rounded to bf16 first (OpenBLAS's C on
   * those is the exact reference); tile-wise and the peers (fp32 only)
   * are not run. */
  SpxEngineOptions engine;
  gboolean         run_static, run_dynamic, run_peers;
  gboolean         run_tilewise; /* SpMM only: dense sgemm per column tile */
  guint            tile_width;  /* tile-wise: G columns per tile */
  guint            peer_timeout_s; /* each runner peer stopped after this */
  guint64          seed;        /* values of A and B */
  SpxBenchProgress progress;
  gpointer         user_data;
} SpxBenchOptions;

/* Why a measurement is not a result; any may be set. */
typedef enum {
  SPX_NOISE_NONE       = 0,
  SPX_NOISE_EFFICIENCY = 1 << 0, /* sparse beat 1/density beyond the
                                    timings' spread: dense was slowed */
  SPX_NOISE_DENSE_SLOW = 1 << 1, /* dense well below the best dense seen */
  SPX_NOISE_BUSY       = 1 << 2, /* other processes took the cores it used */
  SPX_NOISE_SPREAD     = 1 << 3, /* its per-round ratios, or dense's round
                                    times, spread too widely to trust */
} SpxNoise;

/* The rule's limits. Efficiency above 1 would mean the sparse kernel did
 * its non-zero work faster than dense sgemm does the same work. */
#define SPX_NOISE_MAX_EFFICIENCY 1.0
#define SPX_NOISE_DENSE_DROP     0.30 /* dense this far below its best */
#define SPX_NOISE_BUSY_CORES     0.25 /* cores taken from our threads */
/* A kernel at exactly dense's rate measures a little above 1 as often as
 * below: beyond the ratios' lower quartile, this much more is allowed. */
#define SPX_NOISE_EFFICIENCY_SLACK 0.02
/* Per-round ratios (or dense's round times) whose interquartile range is
 * more than this fraction of their median: some rounds were slowed. */
#define SPX_NOISE_MAX_SPREAD     0.20
/* Shorter windows are too coarse for the kernel's CPU accounting (it
 * counts in 10 ms ticks) to tell whether others were busy. */
#define SPX_NOISE_MIN_WINDOW_MS  100.0
/* A dense library whose C is further than this from OpenBLAS's (relative
 * to C's largest entry) is wrong, not faster: it is not the baseline. */
#define SPX_DENSE_AGREE          1e-4

typedef struct {
  gboolean ran;
  double   ms;          /* median */
  double   ms_q1, ms_q3; /* quartiles of the timed runs */
  double   ms_best;     /* the fastest timed run */
  double   plan_ms;     /* static: building the plan, once */
  double   gflops;      /* dense: 2·m·k·n per second; sparse: non-zeros */
  /* Sparse: the median over rounds of dense's time in a round over this
   * contestant's time in the same round (rounds alternate, so a slowdown
   * hits both sides alike), and that ratio's quartiles; dense: 1. */
  double   speedup;
  double   speedup_q1, speedup_q3;
  double   efficiency;  /* gflops / dense gflops */
  double   max_rel_err; /* max |C − C_dense| / max |C_dense| */
  gsize    plan_bytes;
  SpxNoise noise;       /* from spx_bench_judge */
} SpxBenchTiming;

/* Other libraries' products of the same A and B (`bench --peers`):
 * librsb, LIBXSMM, SuiteSparse:GraphBLAS and Eigen in this process,
 * alternating with ours (each when the build has it); the rest through a
 * Python runner (tests/peers/spx-peers.py) that times its own runs. */
typedef enum {
  SPX_PEER_LIBRSB,
  SPX_PEER_LIBXSMM,
  SPX_PEER_GRAPHBLAS,
  SPX_PEER_EIGEN,
  SPX_PEER_TORCH_CSR,
  SPX_PEER_TORCH_DENSE,
  SPX_PEER_SCIPY_CSR,
  SPX_PEER_SCIPY_BSR,
  SPX_N_PEERS
} SpxPeerId;

/* The peers before it run in this process, those from it in the runner. */
#define SPX_PEER_FIRST_RUNNER SPX_PEER_TORCH_CSR

/* Each runner peer is one process, stopped (with whatever it started)
 * when it runs longer than SpxBenchOptions.peer_timeout_s or prints more
 * than SPX_PEERS_OUTPUT_MAX bytes (stdout and stderr together): its
 * answer is one line, so more is a runaway. */
#define SPX_PEER_TIMEOUT_DEFAULT     300
#define SPX_PEERS_OUTPUT_MAX_ENV     "SPX_PEERS_OUTPUT_MAX"
#define SPX_PEERS_OUTPUT_MAX_DEFAULT (1024 * 1024)

/* The dense libraries measured (SpMM): OpenBLAS sgemm always, oneDNN's
 * matmul in fp32 and in bf16 (inputs rounded to bf16, C in fp32: what a
 * bf16 deployment runs), when the build and the CPU have them. */
typedef enum {
  SPX_DENSE_OPENBLAS,
  SPX_DENSE_ONEDNN,
  SPX_DENSE_ONEDNN_BF16,
  SPX_N_DENSE
} SpxDenseId;

typedef struct {
  SpxBenchTiming t;
  char           kernel[64]; /* what it ran ("SkylakeX", "brg:avx512_core") */
  char           note[160];  /* why it did not run, or was not used */
} SpxBenchDense;

typedef struct {
  SpxBenchTiming t;           /* t.ran: it ran; GFLOP/s as dense for
                               * torch-dense, else non-zeros */
  gboolean       failed;      /* it ran but its answer is unusable
                               * (note says why): stopped, crashed, not
                               * finite, … */
  guint          threads;     /* the threads it used */
  char           note[256];   /* why it did not run, or how its threads
                               * were set ("" when not asked) */
  char           version[64]; /* "torch 1.13.0" */
  double         busy_cores;  /* the runner's peers: cores others took
                               * while it ran (as SpxBenchResult's) */
  double         once_ms;     /* graphblas: the plain GrB_mxm (no
                               * accumulator, a new C) timed once; < 0
                               * for none */
} SpxBenchPeer;

typedef struct {
  SpxBenchOp     op;
  guint64        m, k, n;       /* SDDMM: n is kd */
  guint          block;
  double         density;       /* non-zero elements of the blocked A / (m·k) */
  guint64        nonzero_blocks, nnz_elements;
  guint          threads;
  SpxIsa         isa;
  guint          reps, warmup;
  gboolean       dense_openmp;  /* OpenBLAS shares OpenMP's threads */
  const char    *dense_core;    /* OpenBLAS's kernel ("Haswell") */
  /* Whether another process was running: the cores it took, on average,
   * while the rounds ran (the machine's busy time less ours); < 0 when
   * unknown (no /proc/stat, or a window too short to tell). */
  guint          cpus;
  double         busy_cores;
  SpxBenchTiming dense, stat, dyn;
  /* Each dense measured. dense is a copy of the baseline of every ratio:
   * for fp32 the faster fp32 one whose C agrees with OpenBLAS's, for
   * bf16 the fastest of those and oneDNN's bf16 (all multiply the same
   * bf16 values); and dense_library names it (spx_dense_name). */
  SpxBenchDense  denses[SPX_N_DENSE];
  const char    *dense_library;
  char           dense_note[256]; /* bf16 over an fp32 dense: why */
  /* What the plans computed in; the kernels that ran ("avx512-bf16"). */
  SpxCpuType     type;
  char           stat_kernel[32], dyn_kernel[32];
  SpxKernelChoice choice; /* how the kernels of both were chosen */
  SpxBenchTiming tilewise;
  guint          tile_width;    /* tile-wise: its tiles' columns */
  double         tilewise_fill; /* non-zeros / elements it computes */
  SpxBenchPeer   peers[SPX_N_PEERS];
} SpxBenchResult;

void     spx_bench_options_init (SpxBenchOptions *options);
/* What the CPU computes a scenario's numbers in (spx_dtype_cpu_bf16). */
SpxCpuType  spx_bench_cpu_type  (SpxDtype dtype);
/* "fp32" or "bf16". */
const char *spx_cpu_type_name   (SpxCpuType type);
gboolean spx_bench_have_librsb  (void);
/* "librsb", "libxsmm", "graphblas", "eigen", "torch-csr", …; NULL out
 * of range. */
const char *spx_peer_name       (SpxPeerId id);
/* The runner the peers from SPX_PEER_FIRST_RUNNER on go through:
 * $SPX_PEERS_RUNNER, else the installed spx-peers.py (in the data folder
 * seen from the program, or at the prefix), else, for the program in its
 * build folder, the source tree's tests/peers/spx-peers.py. NULL when
 * there is none. */
char    *spx_peers_runner       (void);

/* "OpenBLAS", "oneDNN", "oneDNN bf16"; NULL out of range. */
const char *spx_dense_name      (SpxDenseId id);

/* "spmm" or "sddmm"; NULL for anything else. */
const char *spx_bench_op_name  (SpxBenchOp op);
/* Parse what spx_bench_op_name gives; FALSE for anything else. */
gboolean    spx_bench_op_parse (const char *name, SpxBenchOp *op);

/* Multiply mask (random values) by a random k×n B, every way asked for;
 * or, with SPX_BENCH_OP_SDDMM, sample random P·Qᵀ by mask, against dense
 * sgemm of P·Qᵀ followed by picking the mask's blocks out of it.
 * Refused before anything is allocated when the operands, the plans or
 * OpenBLAS's buffers would take more than the memory budget
 * (SPX_BUDGET_ERROR_TOO_LARGE) or the threads are more than
 * spx_max_threads (SPX_ENGINE_ERROR_INVALID). Stops with
 * SPX_BUDGET_ERROR_CANCELLED once the thread's current GCancellable is
 * cancelled, or SPX_ENGINE_ERROR_CANCELLED when progress says so. */
gboolean spx_bench_run (const SpxMask *mask, guint64 n,
                        const SpxBenchOptions *options,
                        SpxBenchResult *result, GError **error);

/* What the dense operands of op at m × k × n take (A or P·Qᵀ, B or P
 * and Q, the outputs) against the memory budget: spx_bench_run's first
 * check without a mask, for callers that can refuse before making one;
 * SPX_BUDGET_ERROR_TOO_LARGE names them. */
gboolean spx_bench_check_operands (SpxBenchOp op, guint64 m, guint64 k,
                                   guint64 n, GError **error);

/* A sparse contestant's speedup and its quartiles (t->speedup, _q1, _q3)
 * from the rounds' times: the median of dense_ms[i] / ms[i] over the
 * rounds i (NAN when no round has both). */
void     spx_bench_summarise_ratios (SpxBenchTiming *t,
                                     const double *dense_ms,
                                     const double *ms, guint rounds);
/* The noise rule: set every contestant's noise from r alone, judging dense
 * against best_dense_gflops (the best dense of a sweep; 0: r's own fastest
 * dense run) and by its rounds' spread; a sparse contestant by its
 * ratios' spread and the efficiency their lower quartile allows. A
 * sparse contestant also carries dense's noise, since its speedup is over
 * dense. */
void     spx_bench_judge (SpxBenchResult *r, double best_dense_gflops);
/* Any contestant noisy. */
SpxNoise spx_bench_noise (const SpxBenchResult *r);
/* What noise means and how to get a clean measurement, in one sentence,
 * for a measurement on threads threads (0: all cores). */
char    *spx_noise_advice (SpxNoise noise, guint threads);
/* "busy,dense-slow": the reasons, for files and JSON ("" for none). */
char    *spx_noise_to_string (SpxNoise noise);
/* Reads that back ("" is none); FALSE for another word. */
gboolean spx_noise_from_string (const char *text, SpxNoise *noise);

G_END_DECLS
