/* spx-ipu-static-private.h: what the static planner's files share, not
 * its users */
#pragma once

#include "spx-ipu.h"
#include "spx-ipu-cost.h"

G_BEGIN_DECLS

/* The search's bounds: n-splits and k-bands. */
#define SPX_IPU_STATIC_MAX_SN 32u
#define SPX_IPU_STATIC_MAX_SK 128u

/* Groups of the rows' histogram (SpxIpuStaticCtx). */
#define SPX_IPU_STATIC_HIST_GROUPS 8

/* Long loops poll for cancellation every this many steps (a power of 2). */
#define SPX_IPU_STATIC_POLL_EVERY 1024u

/* The problem, its mask counted and sorted: what every stage reads. */
typedef struct {
  const SpxIpuMachine *machine;
  const SpxMask       *mask;
  guint64              n;
  SpxDtype             dtype;
  guint                bytes, grain, b;
  guint                pbytes;       /* of a partial sum */
  SpxIpuLinearMap      x_map, y_map; /* units: a column of a block */
  guint64              busy_cols;    /* block-columns with blocks */
  guint64              nnz;          /* non-zero blocks */
  guint64              empty_rows;   /* block-rows without blocks */
  guint32             *row_count, *col_count;
  guint64             *row_order, *col_order; /* sorted, most first */
  guint64             *col_prefix;   /* blocks in sorted columns [0, i) */
  guint64             *width_prefix; /* elements in sorted columns [0, i) */
  /* groups of non-empty rows: their mean count and how many rows */
  double               hist_count[SPX_IPU_STATIC_HIST_GROUPS];
  double               hist_rows[SPX_IPU_STATIC_HIST_GROUPS];
  guint                n_hist;
  double               footprint;    /* bytes of the arrays above */
} SpxIpuStaticCtx;

/* One (sn, sk) partition. */
typedef struct {
  guint   sn, sk;
  guint   split_tiles;      /* tiles per n-split, even */
  guint64 n_part;           /* widest n-split, columns */
  /* sorted column positions */
  guint64 band_start[SPX_IPU_STATIC_MAX_SK + 1];
  guint64 band_blocks[SPX_IPU_STATIC_MAX_SK];
  guint   band_tiles[SPX_IPU_STATIC_MAX_SK];
  /* first tile within the split */
  guint   band_first[SPX_IPU_STATIC_MAX_SK];
  double  cycles;           /* estimated */
  guint64 bytes;            /* estimated largest tile */
  guint64 out_bytes;        /* of which its share of Y */
} SpxIpuStaticShape;

/* The static program's supersteps in order: the estimate costs and the
 * build adds exactly these. No step writes the outputs of rows without
 * blocks: PopLibs builds the copy that would zero them but never adds it
 * to the program [PopLibs] (lib/popsparse/StaticMatMul.cpp,
 * constructGraph), so they take memory and no cycles. */
typedef enum {
  SPX_IPU_ST_DISTRIBUTE, SPX_IPU_ST_DISTRIBUTE_SYNC, SPX_IPU_ST_COMPUTE,
  SPX_IPU_ST_COMPUTE_SYNC, SPX_IPU_ST_REDUCE_EXCHANGE, SPX_IPU_ST_REDUCE_ADD,
  SPX_IPU_ST_REDUCE_SYNC, SPX_IPU_ST_N
} SpxIpuStaticStep;

/* A step's kind and phase. */
typedef struct {
  SpxStepKind kind;
  const char *phase;
} SpxIpuStaticStepRow;

extern const SpxIpuStaticStepRow spx_ipu_static_steps[SPX_IPU_ST_N];

/* A partition costed from counts. */
typedef struct {
  guint   sn, sk;
  double  cycles;
  guint64 bytes;
  gboolean fits;
} SpxIpuStaticCandidate;

/* Columns [*lo, *hi) of n-split s (splits are whole grains, the first
 * ones wider); how many. */
void     spx_ipu_static_split_range   (const SpxIpuStaticCtx *c, guint sn,
                                       guint s, guint64 *lo, guint64 *hi);
guint64  spx_ipu_static_split_cols    (const SpxIpuStaticCtx *c, guint sn,
                                       guint s);
/* sh's bands (of sk) and split (of sn). */
void     spx_ipu_static_shape_init    (const SpxIpuStaticCtx *c,
                                       SpxIpuStaticShape *sh, guint sn,
                                       guint sk);
/* Y's bytes. */
guint64  spx_ipu_static_out_bytes     (const SpxIpuStaticCtx *c);
/* Every (sn, sk), costed from counts, fitting first and fastest first;
 * NULL when cancelled. */
GArray  *spx_ipu_static_search        (const SpxIpuStaticCtx *c,
                                       GError **error);
/* Build the program of sh into p, or with dry only cost it exactly;
 * FALSE when cancelled. */
gboolean spx_ipu_static_build_program (const SpxIpuStaticCtx *c,
                                       const SpxIpuStaticShape *sh,
                                       SpxIpuProgram *p, gboolean dry,
                                       GError **error);
/* Bytes building sh holds at its peak. */
double   spx_ipu_static_build_bytes   (const SpxIpuStaticCtx *c,
                                       const SpxIpuStaticShape *sh);

G_END_DECLS
