/* spx-ipu-program.h: a plan as a bulk-synchronous program, the one data
 * structure the views and the command line read */
#pragma once

#include "spx-ipu-machine.h"

G_BEGIN_DECLS

typedef enum {
  SPX_IPU_MODE_DENSE,
  SPX_IPU_MODE_STATIC,
  SPX_IPU_MODE_DYNAMIC,
} SpxIpuMode;

/* Dense, static and dynamic: every study plans all three. */
#define SPX_IPU_N_MODES 3

typedef enum {
  SPX_STEP_COMPUTE,
  SPX_STEP_SYNC,
  SPX_STEP_EXCHANGE,
} SpxStepKind;

/* What a tile's bytes hold. */
typedef enum {
  SPX_BYTES_VALUES,   /* non-zero (or dense) values of W */
  SPX_BYTES_INDICES,  /* index metadata */
  SPX_BYTES_INPUT,    /* its slice of X */
  SPX_BYTES_PARTIALS, /* partial sums */
  SPX_BYTES_OUTPUT,   /* its slice of Y */
  SPX_N_BYTE_KINDS,
} SpxByteKind;

/* What a transfer carries, for people: a kind and the half-open element
 * ranges [row0, row1) × [col0, col1) of the matrix it is cut from (X for
 * SPX_BYTES_INPUT, W for values and indices, Y for partials and output).
 * All ranges 0: not known. */
typedef struct {
  SpxByteKind kind;
  guint32     row0, row1, col0, col1;
} SpxIpuPiece;

typedef struct {
  guint32 src, dst;
  guint64 bytes;
} SpxIpuTransfer;

/* Machines of at most this many tiles keep what each transfer carries
 * (the pictures draw their arrows); larger ones only the transfers. */
#define SPX_IPU_PIECES_MAX_TILES 64

/* One named part of a superstep's cycles, for people: what it is
 * ("vertex start", "busiest tile's traffic"), how it is worked out
 * ("6 workers × 4"), and its cycles. A step's terms sum to its cycles.
 * words says the formula as a sentence, from the same numbers ("13
 * cycles for each of the 6 workers to start"), or is NULL. */
typedef struct {
  char   *term;
  char   *formula;
  guint64 cycles;
  char   *words;
} SpxIpuTerm;

typedef struct {
  guint64  bytes[SPX_N_BYTE_KINDS];
  guint64  compute_cycles;  /* summed over the compute supersteps */
  guint64  macs;            /* multiply-accumulates it performs */
  GArray  *blocks;          /* guint64 flat block indices it holds (static,
                               dynamic); NULL for dense */
  /* Blocks of W, as its planner counts them (read them through
   * spx_ipu_tile_count): those it stores as its own, the block products
   * it computes (a block of W times its columns of X: the blocks whose
   * values it must hold, its own and those it receives), and the most
   * of them one of its workers computes (0: not known). */
  guint64  stored, products, per_worker;
} SpxIpuTile;

typedef struct {
  SpxStepKind kind;
  char       *phase;       /* "distribute", "compute", "reduce", … */
  guint64     cycles;
  /* exchange: per tile bytes in and out, and who sends what to whom */
  guint64    *bytes_in, *bytes_out; /* n_tiles each, or NULL */
  GArray     *transfers;            /* SpxIpuTransfer, or NULL */
  GArray     *pieces;               /* SpxIpuPiece per transfer, or NULL
                                       (see SPX_IPU_PIECES_MAX_TILES) */
  /* compute: cycles per tile, or NULL */
  guint64    *tile_cycles;
  /* SpxIpuTerm: the cycles explained (compute: the slowest tile's;
   * exchange: the busiest tile's), summing exactly to cycles */
  GArray     *terms;
  guint32     worst_tile;   /* the tile the terms are about */
  SpxIpuPiece piece;        /* what sends carry now (builders only) */
} SpxIpuStep;

typedef struct {
  char   *name;
  guint64 cycles;
} SpxIpuPhase;

typedef struct {
  SpxIpuMode     mode;
  SpxIpuMachine *machine;   /* a copy */
  guint64        m, k, n;
  guint          block;
  SpxDtype       dtype;
  double         density;   /* non-zero elements / (m·k) */
  SpxDtype       partials;  /* what partial sums are kept in */
  guint          n_tiles;   /* = machine->tiles */
  SpxIpuTile    *tiles;
  GArray        *steps;     /* SpxIpuStep, in order */
  char          *plan;      /* the partition chosen, for people */
  guint64        estimate;  /* the planner's cycles for it, from counts,
                               before building */
  /* totals, filled by spx_ipu_program_finish */
  guint64        cycles;
  double         ms, tflops, nz_tflops;
  guint          tiles_used;
  guint64        max_tile_bytes;
  gboolean       fits;      /* see spx_ipu_program_finish */
  GArray        *phases;    /* SpxIpuPhase: cycles summed by phase name */
  /* Partitions of the mask, for pictures: per block-row and per
   * block-column the group it falls in (dynamic: x and y partitions,
   * contiguous; static: the k-band of each column, over sorted columns so
   * not contiguous); NULL when the plan has none (dense). */
  guint32       *row_group, *col_group;
  /* dynamic only */
  guint          propagation_steps;
  gboolean       overflow;
} SpxIpuProgram;

SpxIpuProgram *spx_ipu_program_new  (SpxIpuMode mode,
                                     const SpxIpuMachine *machine,
                                     guint64 m, guint64 k, guint64 n,
                                     guint block, SpxDtype dtype,
                                     double density);
void           spx_ipu_program_free (SpxIpuProgram *program);

/* Builders: append a superstep and return it for filling in. Exchange
 * steps come with zeroed bytes_in/out and an empty transfer list;
 * spx_ipu_step_send adds to all three. */
SpxIpuStep    *spx_ipu_program_add_compute  (SpxIpuProgram *p, const char *phase);
SpxIpuStep    *spx_ipu_program_add_exchange (SpxIpuProgram *p, const char *phase);
void           spx_ipu_program_add_sync     (SpxIpuProgram *p, const char *phase);
void           spx_ipu_step_send (SpxIpuProgram *p, SpxIpuStep *step,
                                  guint32 src, guint32 dst, guint64 bytes);
/* The same bytes src already sent in this step, received by one more
 * tile: the exchange broadcasts, so they count in but not out again. */
void           spx_ipu_step_resend (SpxIpuProgram *p, SpxIpuStep *step,
                                    guint32 src, guint32 dst, guint64 bytes);
/* What the next sends and resends of step carry (until set again): the
 * planners say it before each kind of data they move. */
void           spx_ipu_step_set_piece (SpxIpuStep *step,
                                       const SpxIpuPiece *what);
/* A piece of kind over [row0, row1) × [col0, col1); ranges past 32 bits
 * are not known (all 0). */
SpxIpuPiece    spx_ipu_piece (SpxByteKind kind, guint64 row0, guint64 row1,
                              guint64 col0, guint64 col1);
/* "X rows 64–127, columns 0–31, fp16: 4.0 KiB": what a transfer of bytes
 * carries in program p. Free with g_free. */
char          *spx_ipu_piece_describe (const SpxIpuProgram *p,
                                       const SpxIpuPiece *what,
                                       guint64 bytes);
/* An exchange step that counts bytes in and out but keeps no list of
 * transfers: a planner costing a partition before it builds one. */
void           spx_ipu_step_count_only (SpxIpuStep *step);
/* The tile with the most cycles of a compute step (the lowest of
 * equals): the one whose cycles its planner explains. */
guint32        spx_ipu_step_slowest (const SpxIpuProgram *p,
                                     const SpxIpuStep *s);
/* Cost the steps from the machine (compute: the slowest tile; exchange:
 * overhead + the busiest tile's bytes in or out over the exchange rate;
 * sync: sync_cycles), or from the terms a planner gave a step, then total
 * everything: cycles, time, TFLOP/s (dense FLOP and non-zero FLOP), tiles
 * used, largest footprint, whether it fits (every tile by
 * spx_ipu_tile_fits, and no dynamic overflow), cycles
 * by phase. */
void           spx_ipu_program_finish (SpxIpuProgram *p);
/* Free what only pictures read (every step's per-tile arrays and
 * transfers, the tiles' block lists, the partitions), keeping the totals,
 * phases and steps' cycles: for a caller that reports figures and holds
 * several programs. Not to be finished again. */
void           spx_ipu_program_drop_detail (SpxIpuProgram *p);

const char    *spx_ipu_mode_to_string (SpxIpuMode mode);
/* What a step kind is called: "compute", "sync", "exchange". */
const char    *spx_ipu_step_kind_to_string (SpxStepKind kind);
/* What people call a step: its phase, then its kind ("reduce exchange",
 * "reduce compute"), or the kind alone where the phase is named after it
 * ("compute"), or the phase alone where it is several words ("unexplained
 * overhead per call"), so two different steps never share a name. NULL for NULL.
 * Free with g_free. */
char          *spx_ipu_step_name (const SpxIpuStep *step);
/* The step's terms as one line each, "term: formula = N cycles; in
 * words, WORDS" (no words: the formula alone). */
char          *spx_ipu_step_explain (const SpxIpuStep *step);
/* The first exchange superstep that moves anything (0 if none): where a
 * picture of the exchange starts. */
guint          spx_ipu_program_first_exchange (const SpxIpuProgram *p);

/* What a tile does with blocks of W, each counted in one place. */
typedef enum {
  SPX_IPU_COUNT_STORED,     /* blocks it stores as its own */
  SPX_IPU_COUNT_RECEIVED,   /* blocks whose values it receives to compute */
  SPX_IPU_COUNT_HELD,       /* stored + received: the values it holds */
  SPX_IPU_COUNT_PRODUCTS,   /* block products it computes */
  SPX_IPU_COUNT_PER_WORKER, /* block products of its busiest worker */
} SpxIpuCount;
/* Tile t's count of what (0 for a dense program, which has no blocks). */
guint64        spx_ipu_tile_count (const SpxIpuProgram *p, guint t,
                                   SpxIpuCount what);
/* The count with the words that say which: "1 block stored", "7 blocks
 * received", "8 blocks held", "8 block products", "3 block products per
 * worker". Free with g_free. */
char          *spx_ipu_count_text (SpxIpuCount what, guint64 n);
/* Tile t's blocks in words, each count said (NULL for dense): "1 block
 * stored, 7 blocks received" SEP "8 block products, 3 block products per
 * worker". Free with g_free. */
char          *spx_ipu_tile_blocks_text (const SpxIpuProgram *p, guint t,
                                         const char *sep);
/* A tile's bytes, all kinds together. */
guint64        spx_ipu_tile_bytes (const SpxIpuTile *tile);

/* For each of n_blocks flat block indices (br * bcols + bc), the first
 * tile whose blocks list holds it, G_MAXUINT32 for none (dense plans list
 * nothing; dynamic plans list a block once per z-slice, so the lowest
 * tile of the slices wins). Free with g_free. */
guint32       *spx_ipu_program_block_owners (const SpxIpuProgram *p,
                                             guint64 n_blocks);

/* ---- for the planners: what a plan will hold ------------------------ */

/* Estimates are doubles: counts on a large machine (tiles² transfers,
 * steps × tiles) must not wrap. */
/* Bytes of a GArray of count elements of size once grown (GLib rounds
 * its capacity up to a power of two). */
double   spx_ipu_array_bytes     (double count, gsize size);
/* Bytes of a program on n_tiles tiles with compute and exchange steps
 * (their per-tile arrays), not counting transfers or block lists. */
double   spx_ipu_program_bytes   (guint n_tiles, double computes,
                                  double exchanges);
/* Bytes of one exchange step's list of transfers on n_tiles tiles, with
 * what each carries where the machine keeps that. */
double   spx_ipu_transfers_bytes (guint n_tiles, double transfers);
/* The most non-zero blocks a sparse plan takes. Planning goes over each
 * block several times (about 10 s of CPU at this count), and W's fp16
 * values alone would fill what a GC200 leaves plans of its SRAM. */
#define SPX_IPU_MAX_BLOCKS (G_GUINT64_CONSTANT (1) << 28)
/* TRUE when blocks ≤ SPX_IPU_MAX_BLOCKS; else SPX_IPU_ERROR_TOO_LARGE
 * naming what, the count and the limit. */
gboolean spx_ipu_check_blocks    (guint64 blocks, const char *what,
                                  GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SpxIpuProgram, spx_ipu_program_free)

G_END_DECLS
