/* spx-sweep.h: many points (densities × block sizes × modes), modelled on
 * an IPU and / or measured on this CPU: the data behind the speedup chart */
#pragma once

#include "spx-bench.h"
#include "spx-ipu.h"
#include "spx-json.h"
#include "spx-mask.h"
#include "spx-mask-gen.h"
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
#define SPX_SWEEP_N_SOURCES 2

/* What a point ran: the IPU's three plans (same values as SpxIpuMode), and
 * on the CPU also tile-wise (one dense sgemm per column tile). */
typedef enum {
  SPX_SWEEP_DENSE    = SPX_IPU_MODE_DENSE,
  SPX_SWEEP_STATIC   = SPX_IPU_MODE_STATIC,
  SPX_SWEEP_DYNAMIC  = SPX_IPU_MODE_DYNAMIC,
  SPX_SWEEP_TILEWISE,
} SpxSweepMode;
#define SPX_SWEEP_N_MODES 4

#define SPX_SWEEP_MACHINE_LEN 64
#define SPX_SWEEP_MAX_VALUES  32  /* densities, and block sizes, per sweep */

/* One (source, block, density, mode). */
typedef struct {
  SpxSweepSource source;
  SpxSweepMode   mode;     /* dense is the reference of its source */
  guint          block;
  /* The fraction of non-zero blocks: as asked for a generated mask (it
   * has round(d·blocks)); a subject's own at this block size. Its JSON
   * key is block_density (and the CSV's column density, as always). */
  double         density;
  /* The fraction of non-zero elements (JSON "density"): a subject's own,
   * a generated mask's density (its blocks are whole). */
  double         elements;
  guint64        m, k, n;  /* model with best n: the n it chose */
  SpxDtype       dtype;    /* what it computed in: fp16 or fp32 on the
                              model, bf16 or fp32 on the CPU */
  char           machine[SPX_SWEEP_MACHINE_LEN]; /* "bow"; "cpu-avx2-4t" */
  double         ms;       /* CPU: the median of the timed runs */
  /* Non-zero throughput, 2·nnz·n / time: TFLOP/s for the model, GFLOP/s
   * for the CPU (dense on the same scale: its rate × density). */
  double         nz_throughput;
  /* Over dense of the same source, block and density: the model's ratio
   * of non-zero throughputs (each mode at its own best n), the CPU's
   * dense ms / ms. Dense: 1. */
  double         speedup;
  gboolean       fits;     /* the model's plan fits every tile's memory
                              (JSON only); the CPU: TRUE */
  double         ms_q1, ms_q3; /* CPU: quartiles of the timed runs; the
                                  model: ms (it has no spread) */
  /* CPU: quartiles of the per-round ratios the speedup is the median of;
   * the model: speedup (it has no spread). */
  double         speedup_q1, speedup_q3;
  /* CPU: not a result (spx_bench_judge, against the best dense of the
   * sweep), after one more measurement; the model: none. */
  SpxNoise       noise;
  /* CPU: the library of the dense its speedup is over ("OpenBLAS",
   * "oneDNN": the faster at this point); the model: "". */
  char           dense[16];
  /* CPU: the threads it ran on (its machine names them too); the
   * model: 0. */
  guint          threads;
  /* CPU static and dynamic: the kernels that ran ("avx512-bf16") and how
   * they were chosen; others: "". */
  char           kernel[24];
  SpxKernelChoice kernel_choice;
} SpxSweepPoint;

#define SPX_SWEEP_MIN_REPS 5 /* a median and quartiles need a few runs */

typedef struct _SpxSweepDensePlans SpxSweepDensePlans;

typedef struct {
  SpxBenchOp     op;        /* SDDMM: the CPU alone (the model is SpMM's),
                               and no dynamic or tile-wise mode */
  gboolean       run_model, run_cpu;
  double         densities[SPX_SWEEP_MAX_VALUES];
  guint          n_densities;
  guint          blocks[SPX_SWEEP_MAX_VALUES];
  guint          n_blocks;
  gboolean       run_static, run_dynamic; /* dense always runs */
  gboolean       run_tilewise;            /* SpMM: the CPU's points only,
                                             in fp32 only */
  guint64        seed;                    /* masks, and the CPU's values */
  /* Generated masks: uniform or tilewise (whole rows of tiles of
   * tile_width columns); tile_width is also the tile-wise plan's. */
  SpxPattern     pattern;
  guint          tile_width;
  /* A subject (element mask, borrowed; held by run): it is re-blocked
   * to each block size instead of generating masks, at its own m × k
   * (the densities are then unused). Its name for titles. */
  const SpxMask *subject;
  const char    *subject_name;
  /* model */
  guint64        model_m, model_k, model_n; /* model_n 0: best over n */
  SpxDtype       dtype;
  SpxIpuMachine *machine;                 /* NULL: bow; copied by run */
  /* NULL, or the dense plans of earlier sweeps on this machine, dtype
   * and n, found again by shape (borrowed for the run, not kept; see
   * spx-sweep-dense.h) */
  SpxSweepDensePlans *dense_plans;
  /* CPU (in fp32 or bf16, as dtype says) */
  guint64        cpu_m, cpu_k, cpu_n;
  guint          threads;                 /* 0: all cores */
  guint          reps, warmup;
} SpxSweepOptions;

/* The paper's comparison: both sources, densities 1/4, 1/8, 1/16, 1/32,
 * the generated blocks of spx_defaults, static and dynamic (and tile-wise
 * on the CPU), uniform masks (tile width 128 for tile-wise), seed 1; the
 * model on bow in fp16 at m = k = 4096 with the best n; the CPU at m = k
 * = 2048 with spx_defaults' n, threads, reps and warm-up. */
void     spx_sweep_options_init  (SpxSweepOptions *options);
/* Study subject instead of generated masks: the blocks become
 * spx_defaults' blocks and both sources its m × k. */
void     spx_sweep_options_set_subject (SpxSweepOptions *options,
                                        const SpxMask *subject,
                                        const char *name);
/* The defaults swept where they apply: of the block sizes and densities
 * not chosen (by the user), a block size larger than an m × k swept, or a
 * density that keeps no block of a generated mask at some block size, is
 * left out, unless none would remain (a caller's own check then names
 * what does not apply). */
void     spx_sweep_options_fit (SpxSweepOptions *options,
                                gboolean blocks_chosen,
                                gboolean densities_chosen);
gboolean spx_sweep_options_validate (const SpxSweepOptions *options,
                                     GError **error);

typedef struct {
  GArray         *points;   /* SpxSweepPoint, in the order run */
  SpxSweepOptions settings; /* of the last run; machine, subject and its
                               name owned */
  double          best_dense_gflops; /* CPU: what points were judged by */
} SpxSweep;

SpxSweep *spx_sweep_new  (void);
void      spx_sweep_free (SpxSweep *sweep);
/* Its settings (subject and machine shared or copied) and points. */
SpxSweep *spx_sweep_copy (const SpxSweep *sweep);
/* One line that tells sweeps apart: "layer.smtx (256 × 2304) · bow ·
 * n = 1024 · fp16" ("generated masks (4096 × 4096) · …" for densities). */
char     *spx_sweep_label (const SpxSweep *sweep);
/* The operation to sweep. SDDMM is measured on the CPU only, as dense and
 * static (the IPU model, the dynamic and the tile-wise plans cover SpMM):
 * it turns the others off. */
void      spx_sweep_options_set_op (SpxSweepOptions *options, SpxBenchOp op);
/* Whether the CPU measures tile-wise: asked for, and in fp32 (its
 * sgemms have no bf16; at bf16 it does not apply and is left out). */
gboolean  spx_sweep_runs_tilewise (const SpxSweepOptions *options);
/* How many points a run of options makes (the total of its progress). */
guint     spx_sweep_total (const SpxSweepOptions *options);

/* Called on the running thread after each point is appended (point
 * points into sweep->points, valid until the next append); return FALSE
 * to stop. */
typedef gboolean (*SpxSweepProgress) (guint done, guint total,
                                      const SpxSweepPoint *point,
                                      gpointer user_data);

/* Clear sweep's points and take a copy of options as its settings
 * (what a run does first; a chart can then show the settings while the
 * points arrive from elsewhere). */
gboolean  spx_sweep_reset (SpxSweep *sweep, const SpxSweepOptions *options,
                           GError **error);

/* Clear sweep's points and run: for each source, block and density, a
 * seeded generated mask (or the subject re-blocked), then dense and the
 * sparse modes asked for on it. Options that are invalid, or whose
 * largest mask or CPU operands are over the memory budget, are refused
 * before anything runs or is copied (the sweep left as it was). The CPU first calibrates dense once; a CPU point judged
 * noisy is measured again once; when the run ends every CPU point is
 * judged again against the best dense of the sweep. On cancel
 * (SPX_SWEEP_ERROR_CANCELLED) or a failure, returns FALSE and keeps the
 * points done. */
gboolean  spx_sweep_run  (SpxSweep *sweep, const SpxSweepOptions *options,
                          SpxSweepProgress progress, gpointer user_data,
                          GError **error);

/* The CPU points of sweep at the block sizes blocks measured again on
 * threads threads (0: all cores), each judged against a dense calibrated
 * on those threads; every new point replaces the point of its block,
 * density and mode (its machine names the threads). What was measured
 * before a cancel or a failure is kept. */
gboolean  spx_sweep_measure_again (SpxSweep *sweep, const guint *blocks,
                                   guint n_blocks, guint threads,
                                   SpxSweepProgress progress,
                                   gpointer user_data, GError **error);

const char *spx_sweep_source_to_string (SpxSweepSource source);
/* "dense", "static", "dynamic", "tilewise" (its files' spelling). */
const char *spx_sweep_mode_to_string (SpxSweepMode mode);
gboolean    spx_sweep_mode_from_string (const char *name, SpxSweepMode *mode);
/* CPU points judged noisy. */
guint       spx_sweep_count_noisy (const SpxSweep *sweep);

/* Whether a point can be a verdict's or a recommendation's: a sparse
 * point, not noisy, whose plan fits, with a speedup. */
gboolean    spx_sweep_point_judged (const SpxSweepPoint *point);

/* CSV: the header SPX_SWEEP_CSV_HEADER and a row per point
 * (nz_throughput in TFLOP/s on model rows, GFLOP/s on cpu rows; noisy 1
 * or 0; speedup_q1/_q3 the quartiles of the per-round ratios, added
 * last so that older readers' columns keep their places). JSON: {"settings": {…}, "units": {…}, "points": [{…}, …]} with
 * the same keys per point (noisy a boolean) and "noise", its reasons. */
#define SPX_SWEEP_CSV_HEADER "source,mode,block,density,m,k,n,dtype," \
                             "machine,ms,nz_throughput,speedup,ms_q1," \
                             "ms_q3,noisy,dense,speedup_q1,speedup_q3"
char     *spx_sweep_to_csv  (const SpxSweep *sweep);
char     *spx_sweep_to_json (const SpxSweep *sweep);
/* One point's CSV row (with its newline) and JSON object, for files
 * that hold points of several sweeps. */
void      spx_sweep_csv_row       (GString *out, const SpxSweepPoint *point);
void      spx_sweep_point_to_json (SpxJson *json, const SpxSweepPoint *point);
/* A CSV text field: escaped (spx_escape) so that no control character
 * reaches the file, quoted when it holds a comma or a quote. */
void      spx_sweep_csv_field     (GString *out, const char *text);
/* By the extension of path: .csv or .json; through spx_save_file. */
gboolean  spx_sweep_save    (const SpxSweep *sweep, const char *path,
                             SpxSaveFlags flags, GError **error);
/* A sweep read back from what spx_sweep_to_json wrote (name, the file
 * it is in, for errors): settings and points checked, each refusal
 * naming name, where and the key (SPX_SWEEP_ERROR_INVALID). A subject's
 * sweep needs its subject (element mask, shared), a generated one NULL;
 * a machine that is not a preset comes back as a renamed preset (its
 * name is what a kept sweep is read for). */
SpxSweep *spx_sweep_from_json (const char *name, const char *text, gsize len,
                               const SpxMask *subject, GError **error);
/* A sweep and the earlier one drawn under it, in one file: the CSV has
 * a first column `sweep` ("current" or "overlay") before the columns of
 * SPX_SWEEP_CSV_HEADER; the JSON is {"sweeps": [{"sweep": "current",
 * "label", "settings", "units", "points"}, {"sweep": "overlay", …}]}.
 * overlay NULL: spx_sweep_save. */
typedef struct {
  const SpxSweep *current, *overlay;
} SpxSweepPair;
char     *spx_sweep_pair_to_csv  (const SpxSweepPair *pair);
char     *spx_sweep_pair_to_json (const SpxSweepPair *pair);
gboolean  spx_sweep_save_pair    (const SpxSweep *sweep,
                                  const SpxSweep *overlay, const char *path,
                                  SpxSaveFlags flags, GError **error);
/* The same for any file of points: data written by to_csv or to_json as
 * path's extension says; another is SPX_SWEEP_ERROR_INVALID, naming it. */
typedef char *(*SpxSweepText) (gconstpointer data);
gboolean  spx_sweep_save_as (const char *path, SpxSweepText to_csv,
                             SpxSweepText to_json, gconstpointer data,
                             SpxSaveFlags flags, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SpxSweep, spx_sweep_free)

G_END_DECLS
