/* spx-scenario.h: everything needed to reproduce a view, saved as .spx */
#pragma once

#include "spx-mask.h"
#include "spx-mask-gen.h"
#include "spx-save.h"

G_BEGIN_DECLS

/* The newest format read. 2 adds [sweep N] groups; a file without them
 * is written as 1, so older programs still read it. */
#define SPX_SCENARIO_VERSION 2
#define SPX_SCENARIO_MAX_SWEEPS 64

#define SPX_SCENARIO_ERROR (spx_scenario_error_quark ())
GQuark spx_scenario_error_quark (void);

typedef enum {
  SPX_SCENARIO_ERROR_INVALID,   /* a bad value or key */
  SPX_SCENARIO_ERROR_VERSION,   /* written by a newer program */
  SPX_SCENARIO_ERROR_IO,
} SpxScenarioError;

/* The scenario's numbers. The IPU (GC200, Bow) computes in fp16 and
 * fp32 only, so bf16 is modelled there as fp16; this CPU has no fp16
 * arithmetic, so fp16 and bf16 run there as bf16 (fp32 sums). */
typedef enum {
  SPX_DTYPE_FP16,
  SPX_DTYPE_FP32,
  SPX_DTYPE_BF16,
} SpxDtype;
#define SPX_DTYPE_COUNT (SPX_DTYPE_BF16 + 1)

typedef enum {
  SPX_MASK_SOURCE_GENERATED, /* pattern + seed, rebuilt on demand */
  SPX_MASK_SOURCE_FILE,      /* a mask file, path kept */
  SPX_MASK_SOURCE_DRAWN,     /* edited by hand, stored inside the .spx */
} SpxMaskSource;

/* The sparse operand A is m×k with a mask of the same shape; B is k×n. */
typedef struct {
  guint64       m, k, n;
  guint         block;
  SpxDtype      dtype;
  char         *machine;   /* IPU machine preset or key file */
  guint         threads;   /* CPU threads; 0 = all cores */
  SpxMaskSource source;
  SpxGenOptions gen;       /* pattern, density, seed, pattern options */
  char         *mask_path; /* SOURCE_FILE: as given (absolute once loaded) */
  char         *mask_layer; /* SOURCE_FILE: the layer's tensor when
                               mask_path is a network file (a safetensors
                               or .npz); NULL: mask_path is a mask file */
  SpxMask      *mask;      /* the current mask (any source), may be NULL;
                              built by a study (spx-study.h) */
  /* Sweeps kept with the scenario ([sweep 1], [sweep 2], … groups):
   * carried, not read, here; a study writes and reads them. NULL or
   * SpxScenarioSweep. */
  GPtrArray    *sweeps;
} SpxScenario;

typedef struct {
  char    *json;    /* the sweep as JSON text */
  SpxMask *subject; /* its subject's elements (block 1), NULL for
                       generated masks; shared */
} SpxScenarioSweep;

/* A new entry of scenario->sweeps (made on first use); takes neither. */
void         spx_scenario_add_sweep (SpxScenario *scenario, const char *json,
                                     const SpxMask *subject);

/* The default: bow, fp16, m = k = 4096, n = 1024, b = 16, density 1/16,
 * uniform, seed 1. */
SpxScenario *spx_scenario_new     (void);
void         spx_scenario_free    (SpxScenario *scenario);
SpxScenario *spx_scenario_copy    (const SpxScenario *scenario);

const char  *spx_dtype_to_string   (SpxDtype dtype);
gboolean     spx_dtype_from_string (const char *name, SpxDtype *dtype);
/* "fp16, fp32, bf16": what spx_dtype_from_string takes. */
const char  *spx_dtype_names       (void);
/* What the IPU model computes dtype in: fp16 for bf16. */
SpxDtype     spx_dtype_on_ipu      (SpxDtype dtype);
/* Whether the CPU computes dtype in bf16 (fp16, bf16) or fp32. */
gboolean     spx_dtype_cpu_bf16    (SpxDtype dtype);
/* Both sides at once when they differ: "CPU bf16 / IPU fp16"; else the
 * name ("fp32"). */
char        *spx_dtype_label       (SpxDtype dtype);
const char  *spx_mask_source_to_string (SpxMaskSource source);
/* Where the scenario's mask comes from, for people: its generator's
 * pattern ("uniform"), "from file NAME" (the file's name, with ", layer
 * L" for a layer of a network file) or "drawn". Free with g_free. */
char        *spx_scenario_mask_origin  (const SpxScenario *scenario);

/* Check the fields against each other (sizes, block, density, a mask of
 * the scenario's shape). */
gboolean     spx_scenario_validate (const SpxScenario *scenario,
                                    GError **error);

/* Take a mask drawn or loaded elsewhere: the scenario becomes SOURCE_DRAWN
 * with the mask's shape and block. Takes ownership. */
void         spx_scenario_set_drawn_mask (SpxScenario *scenario,
                                          SpxMask *mask);

/* .spx key files. Loading refuses unknown groups and keys, missing
 * required keys, bad values and newer versions, naming the file and key.
 * Saving goes through spx_save_file. A drawn mask is stored inside the
 * file. */
SpxScenario *spx_scenario_load (const char *path, GError **error);
SpxScenario *spx_scenario_load_data (const char *name, const char *data,
                                     gsize len, GError **error);
char        *spx_scenario_to_data (const SpxScenario *scenario, gsize *len);
/* Whether this machine runs the threads the scenario asks for (up to
 * spx_max_threads). A file from a bigger machine still opens and plans;
 * what measures on the CPU asks this first. The error names path and the
 * key. */
gboolean     spx_scenario_check_threads (const SpxScenario *scenario,
                                         const char *path, GError **error);
gboolean     spx_scenario_save (const SpxScenario *scenario, const char *path,
                                SpxSaveFlags flags, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SpxScenario, spx_scenario_free)

G_END_DECLS
