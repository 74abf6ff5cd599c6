/* spx-survey.h: a whole network, layer by layer. Beside the study (one
 * subject): each layer of a network (spx-network.h) is swept at the
 * block sizes and modes asked for, on the CPU (measured) and the IPU
 * model (planned), at one n and dtype; each layer gets a recommendation
 * per source (its fastest mode and block size, or dense), and the network
 * its total per source: the sum of dense times against the sum of the
 * recommended ones. */
#pragma once

#include "spx-network.h"
#include "spx-sweep.h"

G_BEGIN_DECLS

/* A layer stays dense unless a sparse point beats dense by this much
 * (the verdict's SPX_VERDICT_FASTER). */
#define SPX_SURVEY_FASTER 1.05
/* The block sizes surveyed by default. */
#define SPX_SURVEY_BLOCKS { 1, 2, 4, 8, 16 }

typedef struct {
  gboolean       run_model, run_cpu;
  guint          blocks[SPX_SWEEP_MAX_VALUES];
  guint          n_blocks;
  /* Dense always runs; tile-wise on the CPU in fp32 only. */
  gboolean       run_static, run_dynamic, run_tilewise;
  guint64        n;
  SpxDtype       dtype;     /* the model's; the CPU's as spx_dtype_cpu_bf16 */
  SpxIpuMachine *machine;   /* NULL: bow; borrowed (run copies it) */
  guint          threads;   /* 0: all cores */
  guint          reps, warmup;
  guint64        seed;      /* the CPU's values */
  /* Only layers whose name this (GRegex) finds; NULL: every layer.
   * Owned by the caller; run keeps a copy in settings. */
  const char    *only;
} SpxSurveyOptions;

/* Both sources, SPX_SURVEY_BLOCKS, static, dynamic and tile-wise, n 256,
 * fp32 on bow, all cores, the sweep's reps and warm-up, seed 1. */
void     spx_survey_options_init     (SpxSurveyOptions *options);
gboolean spx_survey_options_validate (const SpxSurveyOptions *options,
                                      GError **error);

/* What a source recommends for a layer. mode SPX_SWEEP_DENSE: keep it
 * dense (nothing beat dense by SPX_SURVEY_FASTER); then block is 0 and
 * ms is dense_ms. */
typedef struct {
  gboolean     valid;     /* the source ran on this layer */
  SpxSweepMode mode;
  guint        block;
  double       ms, dense_ms, speedup;
} SpxSurveyChoice;

typedef struct {
  char           *name;
  guint           entry;   /* its index in the network */
  guint64         rows, cols, nnz;
  double          density; /* of elements */
  /* Block density at each surveyed block size (blocks as settings). */
  double          block_density[SPX_SWEEP_MAX_VALUES];
  GArray         *points;  /* SpxSweepPoint: its sweep, in the order run */
  SpxSurveyChoice recommended[SPX_SWEEP_N_SOURCES];
  /* NULL, or why it was not surveyed (its entry's reason, a load that
   * failed, a shape with no block at any size asked). */
  char           *skipped;
} SpxSurveyLayer;

typedef struct {
  gboolean valid;
  double   dense_ms;   /* every surveyed layer's dense time */
  double   chosen_ms;  /* every layer at its recommendation */
  double   speedup;    /* dense_ms / chosen_ms */
  double   kept_dense_ms; /* of dense_ms, in layers that stay dense */
} SpxSurveyTotal;

typedef struct {
  char            *path;     /* the network surveyed */
  char            *format;   /* its row: "safetensors", "npz", "folder" */
  GPtrArray       *layers;   /* SpxSurveyLayer *, network order */
  SpxSurveyOptions settings; /* of the last run; machine and only owned */
  SpxSurveyTotal   total[SPX_SWEEP_N_SOURCES];
  gboolean         complete; /* every layer surveyed (not cancelled) */
} SpxSurvey;

SpxSurvey *spx_survey_new  (void);
void       spx_survey_free (SpxSurvey *survey);

/* How many points a run makes (its progress's total). */
guint      spx_survey_total (SpxNetwork *network,
                             const SpxSurveyOptions *options);

/* Called on the running thread after each point (layer is the index in
 * survey->layers); FALSE stops the run (SPX_SWEEP_ERROR_CANCELLED). */
typedef gboolean (*SpxSurveyProgress) (guint done, guint total, guint layer,
                                       const SpxSweepPoint *point,
                                       gpointer user_data);

/* Clears the survey and runs it: each layer loaded, swept (its own m × k,
 * the noise rule on every CPU point), recommended; the totals at the end
 * and after each layer. On cancel or failure FALSE, keeping the layers
 * done (complete stays FALSE). */
gboolean   spx_survey_run (SpxSurvey *survey, SpxNetwork *network,
                           const SpxSurveyOptions *options,
                           SpxSurveyProgress progress, gpointer user_data,
                           GError **error);

/* The layer's recommendations, and the totals, from the points. */
void       spx_survey_recommend (SpxSurveyLayer *layer);
void       spx_survey_sum       (SpxSurvey *survey);

/* CSV: a row per point with the layer's name first; JSON: {"path",
 * "format", "settings", "layers": [{"name", "rows", "cols", "density",
 * "block_density": {"1": …}, "points": [{"source", "mode", "block", "ms",
 * "ms_q1", "ms_q3", "speedup", "noisy"}], "recommended": {"cpu": {"mode",
 * "block", "ms", "dense_ms", "speedup"}, "model": …}, "skipped"}],
 * "total": {"cpu": {"dense_ms", "chosen_ms", "speedup", "kept_dense_ms"},
 * "model": …}}. */
char      *spx_survey_to_csv  (const SpxSurvey *survey);
char      *spx_survey_to_json (const SpxSurvey *survey);
/* By the extension of path (.csv or .json), through spx_save_file. */
gboolean   spx_survey_save    (const SpxSurvey *survey, const char *path,
                               SpxSaveFlags flags, GError **error);
/* A survey saved as JSON, checked like every file we read. */
SpxSurvey *spx_survey_load    (const char *path, GError **error);

/* "the whole network: 1.8× on this CPU, 1.1× on the modelled IPU (bow);
 * 40% of the dense time is in layers that should stay dense". */
char      *spx_survey_describe (const SpxSurvey *survey);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SpxSurvey, spx_survey_free)

G_END_DECLS
