/* spx-study.h: what a user studies. A scenario and its mask (the
 * subject) with where that came from, the IPU machine (a preset, or a
 * file found beside the .spx), the three IPU programs and the last sweep
 * (the CPU measurements and the model's curves). The window and every
 * command build one and read it, so they agree on what a scenario means. */
#pragma once

#include "spx-ipu.h"
#include "spx-network.h"
#include "spx-scenario.h"
#include "spx-sweep.h"

G_BEGIN_DECLS

/* A file's or drawing's block density at each block size its sweep
 * takes (spx_study_sweep_options), for the verdict before a sweep. */
typedef struct {
  guint  n;
  guint  blocks[SPX_SWEEP_MAX_VALUES];
  double densities[SPX_SWEEP_MAX_VALUES];
} SpxBlockSurvey;

/* Its masks are shared (spx_mask_ref) with its copies, the window's
 * editor and undo steps, so they are never changed in place. */
typedef struct {
  SpxScenario   *scenario;  /* scenario->mask: the subject, at its block */
  /* The subject at element resolution when it came from a file (the file
   * as read) or was drawn (made on demand): every block size re-blocks
   * it. NULL for a generated subject. */
  SpxMask       *elements;
  char          *path;      /* the .spx it came from or was saved to */
  SpxIpuMachine *machine;
  /* Of the last spx_study_plan: a new subject keeps them (pictures may
   * still show them) until planned again. */
  SpxIpuProgram *programs[SPX_IPU_N_MODES];
  SpxSweep      *sweep;     /* the last sweep; may have no points */
  /* The session's finished sweeps (SpxSweep, copies), oldest first, at
   * most SPX_STUDY_HISTORY_MAX; kept: the one that is a copy of sweep
   * (-1: none yet); overlay: the one drawn under it (-1: none). */
  GPtrArray     *history;
  gint           kept, overlay;
  /* Bumped by every change of subject, machine or problem: the sweep is
   * out of date when it ran at another revision. */
  guint          revision, sweep_revision;
  /* From spx_study_survey_blocks at survey_revision. */
  SpxBlockSurvey survey;
  guint          survey_revision;
  gboolean       surveyed;
  char          *label;     /* the subject's name for titles (UTF-8) */
  /* What the last mask file read warned of (spx_mask_io_take_warning:
   * a PNG thresholded), for the window's bar or stderr; NULL: none. */
  char          *warning;
} SpxStudy;

/* The default scenario on bow; no mask until spx_study_build_mask. */
SpxStudy   *spx_study_new  (void);
void        spx_study_free (SpxStudy *study);
/* What work on another thread needs: scenario, mask, elements, machine
 * and path (no programs, an empty sweep). */
SpxStudy   *spx_study_copy (const SpxStudy *study);

/* A .spx scenario (its machine looked up beside it first, its mask
 * generated, read or stored inside) or a mask file (.mtx, .smtx, .npy,
 * .png) on the default scenario. The subject is built; nothing planned. */
SpxStudy   *spx_study_load (const char *path, GError **error);
/* A scenario, whatever its name ends with. */
SpxStudy   *spx_study_load_scenario (const char *path, GError **error);
/* A preset name or a machine key file; a relative file name is looked for
 * beside the study's .spx first, then from the current folder. */
gboolean    spx_study_set_machine (SpxStudy *study, const char *name,
                                   GError **error);
/* The subject from the scenario: generated, re-blocked from its elements
 * (a file is read once), or a drawn mask re-blocked to scenario->block. */
gboolean    spx_study_build_mask  (SpxStudy *study, GError **error);
/* A mask file becomes the subject: its shape is m × k, blocked to the
 * scenario's block. The study is unchanged on failure. */
gboolean    spx_study_open_mask   (SpxStudy *study, const char *path,
                                   GError **error);
/* Layer i of network becomes the subject as a mask file does; the
 * scenario names its file and, for a network file, the layer in it
 * (mask_layer), so that a saved .spx reads it again. */
gboolean    spx_study_open_layer  (SpxStudy *study, SpxNetwork *network,
                                   guint i, GError **error);
/* A mask drawn (or edited) elsewhere becomes the subject; takes it. */
void        spx_study_set_drawn   (SpxStudy *study, SpxMask *mask);
/* The subject at element resolution (NULL for a generated one). */
const SpxMask *spx_study_elements (SpxStudy *study);
/* Where the subject came from (source, generator, file and what it
 * read, shape and block), without the mask itself: enough to put the
 * subject back when its mask is handed back (undo). */
typedef struct _SpxSubject SpxSubject;
SpxSubject *spx_study_save_subject    (const SpxStudy *study);
/* Takes mask, which must be the one the subject had. */
void        spx_study_restore_subject (SpxStudy *study,
                                       const SpxSubject *subject,
                                       SpxMask *mask);
void        spx_subject_free          (SpxSubject *subject);

/* A block size at which the subject's structure shows: block itself
 * unless more than SPX_STUDY_SOLID of its blocks would be non-empty (a
 * picture that looks solid), else the largest of the sweep's block sizes
 * below it with at most SPX_STUDY_READABLE non-empty. */
#define SPX_STUDY_SOLID    0.9
#define SPX_STUDY_READABLE 0.75
guint       spx_study_readable_block (SpxStudy *study, guint block);

/* The subject's name for titles (a file's name, a layer's, "drawn
 * mask"; NULL for a generated one), control characters escaped; kept
 * by the study until the next call. */
const char *spx_study_label (SpxStudy *study);

/* Re-block the subject to every block size of its sweep and keep the
 * block densities, for the verdict (a few re-blockings: off the main
 * loop). */
void        spx_study_survey_blocks (SpxStudy *study);

/* Edits of the problem, as the window's panel makes them. Each bumps
 * the revision (a sweep run before is out of date); the subject is made
 * again by spx_study_build_mask, the programs by spx_study_plan. */
void        spx_study_set_block   (SpxStudy *study, guint block);
void        spx_study_set_n       (SpxStudy *study, guint64 n);
void        spx_study_set_dtype   (SpxStudy *study, SpxDtype dtype);
/* CPU threads, 0 for all cores: only the sweep uses them. */
void        spx_study_set_threads (SpxStudy *study, guint threads);

/* What a generated subject is made from: the shape of W and the
 * generator's pattern, density and seed (the pattern's own options
 * stay the scenario's). */
typedef struct {
  guint64    m, k;
  SpxPattern pattern;
  double     density;
  guint64    seed;
} SpxStudyGenerator;
/* The subject becomes generated from gen (a file or a drawing is let
 * go: undo keeps it). */
void        spx_study_set_generator (SpxStudy *study,
                                     const SpxStudyGenerator *gen);

/* What if the machine were otherwise: the figures a user edits. */
typedef struct {
  guint   tiles;
  guint64 sram_bytes;              /* per tile */
  double  clock_hz;
  double  exchange_bytes_per_cycle;
} SpxMachineFigures;
/* The name of a machine with edited figures. */
#define SPX_STUDY_CUSTOM_MACHINE "custom"
/* What the study's machine is when it is no preset, for people: "custom
 * (edited)" for figures edited, "NAME (from FILE)" for a machine file
 * (a scenario's NAME.machine); NULL for a preset. Free with g_free. */
char       *spx_study_machine_origin (const SpxStudy *study);
/* The machine takes the figures (its grid no wider than its tiles) and
 * becomes SPX_STUDY_CUSTOM_MACHINE; out of range, *error says which
 * figure and the study stays as it was. */
gboolean    spx_study_set_machine_figures (SpxStudy *study,
                                           const SpxMachineFigures *figures,
                                           GError **error);

/* The three programs at the scenario's n and dtype. */
gboolean    spx_study_plan (SpxStudy *study, GError **error);
/* The largest m = k (whole blocks, at most the present size) at which
 * every mode's plan fits the machine becomes the scenario's, and the mask
 * is made again. Where that mask would hold no block, n is halved until
 * one fits. A generated subject only (a file or a drawing keeps its
 * shape); an error when nothing fits even at n = 1. */
gboolean    spx_study_fit_size (SpxStudy *study, GError **error);
/* scenario (a copy, without its mask) becomes the study's, its machine
 * resolved; the mask is then to be made (spx_study_build_mask). FALSE
 * when nothing changed (the same scenario, its mask made), or with
 * *error set when its machine cannot be had (the study as it was). */
gboolean    spx_study_use_scenario (SpxStudy *study,
                                    const SpxScenario *scenario,
                                    GError **error);
/* The .spx, and beside it NAME.machine for a machine that is not a
 * preset (the scenario then names that file). path may be study->path.
 * flags apply to the .spx (the machine file is new, or already holds
 * this machine). */
gboolean    spx_study_save (SpxStudy *study, const char *path,
                            SpxSaveFlags flags, GError **error);

/* The sweep that answers "is this subject faster?", the same for the
 * window and every command: a subject from a file or drawn is re-blocked
 * to spx_defaults' blocks at its own shape; a generated one sweeps
 * the default densities and block sizes, its own density among them;
 * both also at the scenario's own block size (last), leaving out those
 * that cannot apply to its shape (spx_sweep_options_fit); at the
 * scenario's n, dtype, machine and threads. The options borrow from the
 * study. */
void        spx_study_sweep_options (SpxStudy *study, SpxSweepOptions *o);
/* Earlier sweeps kept to compare with, at most. */
#define SPX_STUDY_HISTORY_MAX 16
/* A copy of the sweep (when it has points) joins the history, or
 * replaces its own earlier copy (a sweep measured again); the oldest
 * goes when there are too many. */
void        spx_study_keep_sweep   (SpxStudy *study);
/* The sweep has been cleared for a new run: no history entry is its. */
void        spx_study_sweep_cleared (SpxStudy *study);
/* A study opened in place of from keeps from's history before its own
 * (the session goes on); from is left with none. */
void        spx_study_take_history (SpxStudy *study, SpxStudy *from);
guint       spx_study_history_n    (const SpxStudy *study);
const SpxSweep *spx_study_history_get (const SpxStudy *study, guint i);
/* History entry i (-1: none) drawn under the sweep; FALSE out of range
 * or for the sweep's own copy. */
gboolean    spx_study_set_overlay  (SpxStudy *study, gint i);
/* The overlay, NULL for none. */
const SpxSweep *spx_study_overlay  (const SpxStudy *study);
/* Whether a sweep with points ran at another revision. */
gboolean    spx_study_sweep_stale   (const SpxStudy *study);

/* "10.0% of elements, 99.9% of 16 × 16 blocks non-empty". */
char       *spx_study_describe_density (const SpxStudy *study);
/* The fraction of W's elements that are non-zero, what every "density"
 * a command prints means: a file's or a drawing's own (before
 * blocking), else the built mask's (a generated one's blocks are whole,
 * edge blocks cut). */
double      spx_study_element_density (SpxStudy *study);
/* What the study says about beating dense; the window and the commands
 * put it into words, each naming its own way to run a sweep. */
typedef enum {
  SPX_VERDICT_EMPTY,  /* no mask yet, or no block in it */
  SPX_VERDICT_BOUND,  /* no sweep of this revision, no survey: the bound
                         at the scenario's block (bounds[0]) */
  SPX_VERDICT_BOUNDS, /* no sweep of this revision: the bound at every
                         surveyed block size */
  SPX_VERDICT_SWEPT,  /* the sweep's points, of this revision */
} SpxVerdictKind;

/* No block-sparse kernel beats dense by more than 1 / block density
 * (efficiency cannot exceed 1); below SPX_VERDICT_WORTH it is not worth a
 * kernel. */
#define SPX_VERDICT_WORTH  1.1
/* Beating dense by less is not a speedup worth a sparse format: within a
 * quiet machine's spread, and the model's error. */
#define SPX_VERDICT_FASTER 1.05

typedef struct {
  guint    block;
  double   bound;     /* at most this speedup: 1 / block density */
  gboolean possible;  /* bound >= SPX_VERDICT_WORTH */
} SpxVerdictBound;

/* One source's points: at the scenario's density for a generated
 * subject; noisy ones, plans that do not fit and dense are not judged. */
typedef struct {
  guint        points;  /* of this source, dense and noisy ones included */
  guint        noisy;
  /* The block sizes whose best point beats dense by SPX_VERDICT_FASTER,
   * in the sweep's order. */
  guint        faster[SPX_SWEEP_MAX_VALUES];
  guint        n_faster;
  /* The others with a noisy sparse point: not known to lose (a clean
   * measurement might beat dense there), in the sweep's order. */
  guint        unclean[SPX_SWEEP_MAX_VALUES];
  guint        n_unclean;
  double       best;    /* the best point's speedup; 0: no point judged */
  guint        best_block;
  SpxSweepMode best_mode;
  /* What its points computed in ("bf16"), and (CPU) the dense they are
   * over ("oneDNN bf16"); "" when it has none. */
  char         numbers[8];
  char         dense[16];
} SpxVerdictSource;

typedef struct {
  SpxVerdictKind   kind;
  SpxVerdictBound  bounds[SPX_SWEEP_MAX_VALUES]; /* BOUND, BOUNDS */
  guint            n_bounds;
  /* SWEPT: by SpxSweepSource; machine is the model's (borrowed from the
   * study), done of total points so far. */
  SpxVerdictSource sources[SPX_SWEEP_N_SOURCES];
  const char      *machine;
  guint            done, total;
} SpxVerdict;

void        spx_study_judge (const SpxStudy *study, SpxVerdict *verdict);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SpxStudy, spx_study_free)

G_END_DECLS
