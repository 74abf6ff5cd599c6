/* spx-defaults.h: the defaults every measurement starts from. The window,
 * bench, sweep and layers read them here, and their --help and the
 * window's panel state them from here, so that the same scenario gives
 * the same answer wherever it is asked. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define SPX_DEFAULTS_MAX_BLOCKS 8

typedef struct {
  guint64 n;       /* columns of X (and C), on both the CPU and the model */
  guint   threads; /* CPU threads; 0: every core */
  guint   reps;    /* timed runs per measurement (their median) */
  guint   warmup;  /* untimed runs before them */
  guint   block;   /* a scenario's block size */
  /* The block sizes a mask from a file, a drawn one or a network's
   * layers are re-blocked to. */
  guint   blocks[SPX_DEFAULTS_MAX_BLOCKS];
  guint   n_blocks;
  /* The block sizes of a sweep of generated masks: the PopSparse
   * paper's comparison. */
  guint   generated_blocks[SPX_DEFAULTS_MAX_BLOCKS];
  guint   n_generated_blocks;
} SpxDefaults;

const SpxDefaults *spx_defaults (void);

/* blocks joined by sep: "1,2,4,8,16" (sep ","). */
char *spx_defaults_blocks_text  (const guint *blocks, guint n,
                                 const char *sep);
/* threads as help, headers and charts say it: "all cores" for 0, else
 * "1 thread", "2 threads". */
char *spx_defaults_threads_text (guint threads);
/* The measuring defaults in one line, for the window's panel: "median
 * of 7 runs after 2 warm-up; a mask re-blocked to 1, 2, 4, 8, 16". */
char *spx_defaults_describe     (void);

G_END_DECLS
