/* spx-engine-tune.h: which kernels a plan runs, chosen by timing the
 * ones this processor can run, once per processor, and remembered in the
 * user's cache folder (as FFTW's wisdom is) */
#pragma once

#include "spx-engine.h"

G_BEGIN_DECLS

/* The operations whose kernels are chosen. Static and dynamic plans run
 * the same SpMM kernels, so they share a choice. */
typedef enum {
  SPX_TUNE_SPMM,
  SPX_TUNE_SDDMM,
  SPX_TUNE_N_OPS
} SpxTuneOp;

/* The instruction set whose kernels run op on type for blocks of b with
 * n columns of the dense operand on the options' threads, and how it was
 * chosen (how may be NULL): options->isa as given (SPX_PICK_GIVEN:
 * forced); the table of defaults while measuring is off; else the
 * fastest candidate, timed the first time on a representative product
 * and remembered. */
SpxIsa      spx_tune_choose (SpxTuneOp op, SpxCpuType type, guint b,
                             guint64 n, const SpxEngineOptions *options,
                             SpxKernelChoice *how);

/* Measuring is on unless turned off here (--no-tune) or by SPX_TUNE=0
 * in the environment (the tests'). */
void        spx_tune_set_measuring (gboolean on);
gboolean    spx_tune_measuring     (void);

/* The candidates for op and type that this processor runs, best-first
 * by the table of defaults; returns how many (at most SPX_ISA_COUNT). */
guint       spx_tune_candidates (SpxTuneOp op, SpxCpuType type, guint b,
                                 SpxIsa *isas);
/* The table of defaults' pick for this processor. */
SpxIsa      spx_tune_default (SpxTuneOp op, SpxCpuType type, guint b);

/* The size class of n (its representative n is what is timed), and
 * the key a choice is remembered under ("spmm-bf16-b16-n256-t2"). */
guint64     spx_tune_class_n (guint64 n);
char       *spx_tune_key (SpxTuneOp op, SpxCpuType type, guint b, guint64 n,
                          guint threads);

/* The cache file choices are kept in: $XDG_CACHE_HOME/sparse-explorer/
 * kernels.ini. Its group for this processor is named by
 * spx_tune_cpu_name (its model and the instruction sets it runs). */
char       *spx_tune_cache_path (void);
char       *spx_tune_cpu_name (void);
/* Forget what this process remembered (tests; a new cache folder). */
void        spx_tune_forget (void);

G_END_DECLS
