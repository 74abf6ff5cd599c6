/* spx-engine-private.h: what the static and dynamic plans share */
#pragma once

#include "spx-engine.h"
#include "spx-kernels.h"

G_BEGIN_DECLS

/* Who runs which block-row, in which order: threads' rows are contiguous
 * in work, thread t owning work[start[t] .. start[t + 1]). */
typedef struct {
  guint       n_threads;
  guint64     k, n;
  guint       b;
  guint64     nc, ldp;   /* B is packed nc columns at a time, stride ldp */
  guint64     panel_rows; /* B's rows padded to whole blocks */
  guint       bcol_rows; /* rows of the panel per block-column: b, or as
                            a bf16 set packs them */
  guint       element_bytes; /* of the panel's elements: 4, or 2 (bf16) */
  SpxIsa      bf16_isa;  /* for a bf16 schedule: whose kernels */
  gboolean    bf16;
  SpxRowWork *work;      /* brows entries */
  gsize      *start;     /* n_threads + 1 entries */
  guint32    *b_offsets; /* one per block, in work order */
  guint32    *scratch;   /* 3 brows + bcols + 1 entries, for sorting */
  guint64    *load;      /* n_threads entries */
  gsize      *next;      /* n_threads entries */
} SpxSchedule;

/* Buffers for a k-column pattern in blocks of b, times a B of n columns,
 * with B's offsets for up to max_blocks blocks (a static plan's; a
 * dynamic plan passes 0: its kernels scale the pattern's columns). */
void     spx_schedule_init  (SpxSchedule *s, guint64 k, guint64 n, guint b,
                             guint64 brows, guint64 bcols, guint64 max_blocks,
                             guint n_threads);
/* B's panel for k rows of n elements of size bytes: nc columns at a
 * time, ldp elements apart. */
void     spx_schedule_panel_shape (guint64 k, guint64 n, guint size,
                                   guint64 *nc, guint64 *ldp);
/* Make it a bf16 schedule, run by isa's bf16 kernels (before building). */
void     spx_schedule_set_bf16 (SpxSchedule *s, SpxIsa isa);
void     spx_schedule_clear (SpxSchedule *s);
/* Bytes spx_schedule_init takes for the same sizes, with the panel of B
 * a run needs: for the memory budget, before any of it is allocated. */
double   spx_schedule_bytes (guint64 k, guint64 n, guint b, guint64 brows,
                             guint64 bcols, guint64 max_blocks,
                             guint n_threads);
/* Get the calling thread's panel for runs of s now, so that running
 * cannot fail for memory: FALSE with an error naming what when it
 * cannot be had. */
gboolean spx_schedule_reserve (SpxSchedule *s, const char *what,
                               GError **error);

/* Rows go heaviest first to the least-loaded thread. With pack, values
 * (floats, or bf16 in a bf16 schedule) are copied there in work order
 * and B's offsets computed (the static plan's layout); without, tasks
 * point into values and the pattern's block-columns, which the kernels
 * scale as they go (the dynamic plan's: no copy, no pass over them). The
 * pattern must then outlive the run. */
void     spx_schedule_build (SpxSchedule *s, const SpxBlockCsr *csr,
                             const void *values, void *pack);

void     spx_schedule_run   (SpxSchedule *s, SpxIsa isa,
                             const float *B, float *C, gboolean accumulate);
/* The same for a bf16 schedule (values bf16, B k×n bf16). */
void     spx_schedule_run_bf16 (SpxSchedule *s, const guint16 *B, float *C,
                                gboolean accumulate);

/* Large buffers the kernels stream through: 2 MiB-aligned and advised
 * onto huge pages (fewer TLB misses). NULL when out of memory; free(). */
void    *spx_engine_alloc (gsize bytes);

/* The name of the kernels a plan of type runs on isa for blocks of b. */
const char *spx_engine_kernel (SpxCpuType type, SpxIsa isa, guint b);

/* The checks both plans make on sizes (B's offsets must fit 32 bits). */
gboolean spx_engine_check_sizes (guint64 m, guint64 k, guint64 n, guint b,
                                 GError **error);
/* And on the options' number format. */
gboolean spx_engine_check_type  (const SpxEngineOptions *options,
                                 GError **error);

G_END_DECLS
