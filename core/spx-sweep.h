/* spx-sweep.h: many points (densities × block sizes × modes), modelled on
 * an IPU and / or measured on this CPU: the data behind the speedup chart */
#pragma once

#include "spx-ipu.h"
#include "spx-mask.h"
#include "spx-scenario.h"

G_BEGIN_DECLS

#define SPX_SWEEP_ERROR (spx_sweep_error_quark ())
GQuark spx_sweep_error_quark (void);

typedef enum {
  SPX_SWEEP_ERROR_INVALID,   /* bad options */
  SPX_SWEEP_ERROR_CANCELLED, /* the progress callback said stop */
} SpxSweepError;

typedef enum {
  SPX_SWEEP_MODEL, /* the IPU model */
  SPX_SWEEP_CPU,   /* measured on this machine's CPU */
} SpxSweepSource;

#define SPX_SWEEP_MACHINE_LEN 64
#define SPX_SWEEP_MAX_VALUES  32  /* densities, and block sizes, per sweep */

/* One (source, block, density, mode). */
typedef struct {
  SpxSweepSource source;
  SpxIpuMode     mode;     /* dense is the reference of its source */
  guint          block;
  double         density;  /* as asked: the mask has round(d·blocks) */
  guint64        m, k, n;  /* model with best n: the n it chose */
  SpxDtype       dtype;    /* the CPU computes in fp32 */
  char           machine[SPX_SWEEP_MACHINE_LEN]; /* "bow"; "cpu-avx2-4t" */
  double         ms;
  /* Non-zero throughput, 2·nnz·n / time: TFLOP/s for the model, GFLOP/s
   * for the CPU (dense on the same scale: its rate × density). */
  double         nz_throughput;
  /* Over dense of the same source, block and density: the model's ratio
   * of non-zero throughputs (each mode at its own best n), the CPU's
   * dense ms / ms. Dense: 1. */
  double         speedup;
  gboolean       fits;     /* the model's plan fits every tile's memory
                              (JSON only); the CPU: TRUE */
} SpxSweepPoint;

typedef struct {
  gboolean       run_model, run_cpu;
  double         densities[SPX_SWEEP_MAX_VALUES];
  guint          n_densities;
  guint          blocks[SPX_SWEEP_MAX_VALUES];
  guint          n_blocks;
  gboolean       run_static, run_dynamic; /* dense always runs */
  guint64        seed;                    /* masks (uniform pattern) */
  /* model */
  guint64        model_m, model_k, model_n; /* model_n 0: best over n */
  SpxDtype       dtype;
  SpxIpuMachine *machine;                 /* NULL: bow; copied by run */
  /* CPU (fp32) */
  guint64        cpu_m, cpu_k, cpu_n;
  guint          threads;                 /* 0: all cores */
  guint          reps, warmup;
} SpxSweepOptions;

/* The paper's comparison: both sources, densities 1/4, 1/8, 1/16, 1/32,
 * blocks 1, 4, 8, 16, static and dynamic, seed 1; the model on bow in
 * fp16 at m = k = 4096 with the best n; the CPU at m = k = 2048, n = 256,
 * all cores, 7 reps after 2 warm-up rounds. */
void     spx_sweep_options_init  (SpxSweepOptions *options);
/* The comparison around a scenario: the defaults above, with the model at
 * the scenario's shape, n and dtype on machine (borrowed: the caller
 * keeps it alive through the run), and the CPU at its shape up to
 * 2048 × 2048 on its threads. */
void     spx_sweep_options_for_scenario (SpxSweepOptions *options,
                                         const SpxScenario *scenario,
                                         SpxIpuMachine *machine);
gboolean spx_sweep_options_validate (const SpxSweepOptions *options,
                                     GError **error);

typedef struct {
  GArray         *points;   /* SpxSweepPoint, in the order run */
  SpxSweepOptions settings; /* of the last run; machine owned */
} SpxSweep;

SpxSweep *spx_sweep_new  (void);
void      spx_sweep_free (SpxSweep *sweep);
/* How many points a run of options makes (the total of its progress). */
guint     spx_sweep_total (const SpxSweepOptions *options);

/* Called on the running thread after each point is appended (point
 * points into sweep->points, valid until the next append); return FALSE
 * to stop. */
typedef gboolean (*SpxSweepProgress) (guint done, guint total,
                                      const SpxSweepPoint *point,
                                      gpointer user_data);

/* Clear sweep's points and run: for each source, block and density, a
 * seeded uniform mask, then dense, static and dynamic on it. On cancel
 * (SPX_SWEEP_ERROR_CANCELLED) or a failure, returns FALSE and keeps the
 * points done. */
gboolean  spx_sweep_run  (SpxSweep *sweep, const SpxSweepOptions *options,
                          SpxSweepProgress progress, gpointer user_data,
                          GError **error);

const char *spx_sweep_source_to_string (SpxSweepSource source);

/* CSV: the header `source,mode,block,density,m,k,n,dtype,machine,ms,
 * nz_throughput,speedup` and a row per point (nz_throughput in TFLOP/s on
 * model rows, GFLOP/s on cpu rows). JSON: {"settings": {…}, "units":
 * {…}, "points": [{…}, …]} with the same keys per point. */
char     *spx_sweep_to_csv  (const SpxSweep *sweep);
char     *spx_sweep_to_json (const SpxSweep *sweep);
/* By the extension of path: .csv or .json; atomic. */
gboolean  spx_sweep_save    (const SpxSweep *sweep, const char *path,
                             GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SpxSweep, spx_sweep_free)

G_END_DECLS
