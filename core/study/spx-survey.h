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

/* Both sources, static, dynamic and tile-wise, the sweep's dtype (fp16:
 * the CPU in bf16) on bow, seed 1; blocks, n, threads, reps and warm-up
 * from spx_defaults (as the window and every command). */
void     spx_survey_options_init     (SpxSurveyOptions *options);
gboolean spx_survey_options_validate (const SpxSurveyOptions *options,
                                      GError **error);

#define SPX_SURVEY_ERROR (spx_survey_error_quark ())
GQuark spx_survey_error_quark (void);

typedef enum {
  SPX_SURVEY_ERROR_INVALID, /* bad options, or a survey file that is not
                               one (the message names file and key) */
} SpxSurveyError;

/* What a source recommends for a layer: its point of highest speedup
 * among those spx_sweep_point_judged takes (as the study's verdict
 * picks), when that beats dense by SPX_SURVEY_FASTER; dense_ms is then
 * the dense measured (or planned) beside it at the same block size (if
 * that one is noisy, the median of the quiet ones), and speedup
 * dense_ms / ms. Else mode SPX_SWEEP_DENSE: keep it dense;
 * block is 0 and ms = dense_ms, the median of the source's dense
 * points (see spx_survey_recommend). */
typedef struct {
  gboolean     valid;     /* the source ran on this layer */
  SpxSweepMode mode;
  guint        block;
  double       ms, dense_ms, speedup;
  /* The best judged point's speedup, even when under SPX_SURVEY_FASTER
   * (0: none), so that "keep dense" can say by how little. */
  double       best;
  guint        noisy;     /* the source's points left out as noisy */
  char         dense[16]; /* CPU: the dense library of dense_ms */
  /* FALSE (CPU) when no dense point passed the noise rule, or every
   * sparse point failed it: nothing it says is a result, so it is kept
   * dense (block 0) and left out of the totals and shares. */
  gboolean     measured;
} SpxSurveyChoice;

typedef struct {
  char           *name;
  guint           entry;   /* its index in the network */
  guint64         rows, cols, nnz;
  double          density; /* of elements */
  /* Block density at each block size of settings.blocks, NAN at those
   * larger than the layer (left out of its sweep). */
  double          block_density[SPX_SWEEP_MAX_VALUES];
  GArray         *points;  /* SpxSweepPoint: its sweep, in the order run */
  SpxSurveyChoice recommended[SPX_SWEEP_N_SOURCES];
  /* NULL, or why it was not surveyed (its entry's reason, a load that
   * failed, a shape with no block at any size asked, a sweep refused:
   * say, over the memory budget); then it has no points. */
  char           *skipped;
} SpxSurveyLayer;

/* A source's totals, over the layers it measured (measured choices);
 * the layers it ran on but did not measure are counted apart, with
 * their share of the network's dense flops (2 · rows · cols · n each). */
typedef struct {
  gboolean valid;      /* the source ran on a layer */
  double   dense_ms;   /* every measured layer's dense time */
  double   chosen_ms;  /* every measured layer at its recommendation */
  double   speedup;    /* dense_ms / chosen_ms; NAN with none measured */
  double   kept_dense_ms; /* of dense_ms, in layers that stay dense */
  guint    layers, unmeasured;     /* measured, and not */
  double   flops, unmeasured_flops; /* of the layers it ran on */
} SpxSurveyTotal;

/* The CPU's dense libraries over the measured layers, and how many
 * chose each: what the sentence names (one, or "each layer's faster"). */
#define SPX_SURVEY_MAX_LIBRARIES 4
typedef struct {
  char  name[16];
  guint count;
} SpxSurveyLibrary;

typedef struct {
  char            *path;     /* the network surveyed */
  char            *format;   /* its row: "safetensors", "npz", "folder" */
  GPtrArray       *layers;   /* SpxSurveyLayer *, network order */
  SpxSurveyOptions settings; /* of the last run; machine and only owned */
  SpxSurveyTotal   total[SPX_SWEEP_N_SOURCES];
  gboolean         complete; /* every layer surveyed (not cancelled) */
  /* Running counts beside the totals: layers surveyed and skipped,
   * and the CPU's libraries (more kinds than fit: mixed, said so). */
  guint            n_layers, n_skipped;
  SpxSurveyLibrary libraries[SPX_SURVEY_MAX_LIBRARIES];
  guint            other_libraries;
} SpxSurvey;

SpxSurvey *spx_survey_new  (void);
void       spx_survey_free (SpxSurvey *survey);
/* A copy of everything: settings, layers (their points copied), totals
 * (what a worker measures again while the original is shown). */
SpxSurvey *spx_survey_copy (const SpxSurvey *survey);
/* What survey->layers frees each layer with. */
void       spx_survey_layer_free (SpxSurveyLayer *layer);

/* How many points a run makes (its progress's total). */
guint      spx_survey_total (SpxNetwork *network,
                             const SpxSurveyOptions *options);

/* Called on the running thread after each point (layer is the index in
 * survey->layers, point valid until the next call), and with point NULL
 * while a CPU point is being measured (to stop it midway); FALSE stops
 * the run (SPX_SWEEP_ERROR_CANCELLED). The survey is the running
 * thread's until run returns: another thread copies what it needs here. */
typedef gboolean (*SpxSurveyProgress) (guint done, guint total, guint layer,
                                       const SpxSweepPoint *point,
                                       gpointer user_data);

/* Clears the survey and runs it: each layer loaded, swept (its own m × k,
 * at options->n on both sources, the noise rule on every CPU point),
 * recommended; the totals after each layer. A layer that cannot be
 * surveyed is listed as skipped, saying why, and the run goes on. Bad
 * options: FALSE before anything changes. Cancelled (progress, or the
 * thread's current GCancellable): FALSE, keeping the layers done; the
 * layer under way is dropped and complete stays FALSE. */
gboolean   spx_survey_run (SpxSurvey *survey, SpxNetwork *network,
                           const SpxSurveyOptions *options,
                           SpxSurveyProgress progress, gpointer user_data,
                           GError **error);

/* The layer's recommendations from its points, and the totals from
 * the layers' recommendations (surveyed layers only). */
void       spx_survey_recommend (SpxSurveyLayer *layer);
/* The totals and counts summed again over every layer (what a survey
 * read or built by hand needs); a run keeps them as it goes with
 * spx_survey_tally instead, in time independent of the layers. */
void       spx_survey_sum       (SpxSurvey *survey);
/* A layer's part in the totals and counts added (sign 1) or taken out
 * (-1): a layer whose recommendation changes is taken out before and
 * added after. */
void       spx_survey_tally     (SpxSurvey *survey,
                                 const SpxSurveyLayer *layer, int sign);

/* The CPU points of every layer with a noisy one (the others are kept
 * as they are) measured again on threads threads (0: all cores), each
 * layer against its own dense on those threads, from its mask in
 * network (the one surveyed: its entries found by name); then its
 * recommendation and the totals again. progress as for run (layer: the
 * index in survey->layers; done and total over the layers measured
 * again). Cancelled or failed: FALSE, keeping the layers done. */
gboolean   spx_survey_measure_again (SpxSurvey *survey, SpxNetwork *network,
                                     guint threads,
                                     SpxSurveyProgress progress,
                                     gpointer user_data, GError **error);
/* How many layers have CPU points measured on threads threads (the
 * layers measured again, when those are not the survey's own). */
guint      spx_survey_layers_on_threads (const SpxSurvey *survey,
                                         guint threads);
/* Whether a layer has a noisy CPU point (measure_again measures it). */
gboolean   spx_survey_layer_noisy   (const SpxSurveyLayer *layer);

/* The source whose dense time the layers' shares are of: the CPU's
 * when it measured a layer, else the model's. */
SpxSweepSource spx_survey_share_source (const SpxSurvey *survey);
/* A layer's share (0 to 1) of that dense time; NAN when it has none
 * (skipped, its source not run, or not measured: a dense time that
 * failed the noise rule is no share of anything). */
double     spx_survey_layer_share   (const SpxSurvey *survey,
                                     const SpxSurveyLayer *layer);

/* "30 layers (and 87 entries that are not)", "1 layer": how many of a
 * network's entries are layers, the skipped ones apart. */
char      *spx_survey_count_describe (guint layers, guint skipped);

/* CSV: a row per point, `layer,` then the sweep's columns
 * (SPX_SWEEP_CSV_HEADER). JSON: {"path", "format", "complete",
 * "n_layers", "n_skipped" (the counts: optional in a file read),
 * "settings": {"sources", "blocks", "modes", "n", "dtype", "machine",
 * ("machine_file": a custom machine's key file), "threads", "reps",
 * "warmup", "seed", ("only")}, "layers": [{"name", "entry", "rows",
 * "cols", "nnz", "density", "block_density": {"1": …}, "points": [{the
 * sweep's keys: "source", "mode", "block", "ms", "ms_q1", "ms_q3",
 * "speedup", "noisy", …}], "recommended": {"cpu": {"mode", "block", "ms",
 * "dense_ms", "speedup", "best", "noisy_points", ("dense"), "measured"},
 * "model": …}, ("skipped": why, when it was)}], "total": {"cpu":
 * {"dense_ms", "chosen_ms", "speedup" (null with no layer measured),
 * "kept_dense_ms", "layers", "unmeasured_layers",
 * "unmeasured_flops_share"}, "model": …}}; a source that did not run is
 * absent from "recommended" and "total". Keys added since the first
 * version (the counts, "measured", "layers", "unmeasured_…") are
 * checked when present; a file without them (an earlier version's) has
 * its recommendations and totals made again from its points. */
char      *spx_survey_to_csv  (const SpxSurvey *survey);
char      *spx_survey_to_json (const SpxSurvey *survey);
/* By the extension of path (.csv or .json), through spx_save_file. */
gboolean   spx_survey_save    (const SpxSurvey *survey, const char *path,
                               SpxSaveFlags flags, GError **error);
/* A survey saved as JSON, checked like every file we read: every key
 * present with a value in range (the message names the file and the
 * key, "s.json: layers[1].points[3].ms: expected …"), and the
 * recommendations and totals the same as those its points give. */
SpxSurvey *spx_survey_load    (const char *path, GError **error);

/* "the whole network: 1.83× on this CPU (fp32, over oneDNN dense),
 * 1.10× on the modelled IPU (bow, fp16); 40% of the dense time is in
 * layers that should stay dense" (each source's share named when they
 * differ; "the layers surveyed so far (2): …" when not complete), then
 * the layers not measured on this CPU and their share of the flops. */
char      *spx_survey_describe (const SpxSurvey *survey);
/* A recommendation in a few words: "static b4 2.31×", "keep dense (best
 * 1.02×)", with " (3 noisy)" when points were left out as noisy, or
 * "not measured (15 noisy)" when not measured (left out of the sums,
 * and spx_survey_describe says how many layers); NULL when its source
 * did not run. */
char      *spx_survey_choice_describe (const SpxSurveyChoice *choice);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SpxSurvey, spx_survey_free)

G_END_DECLS
