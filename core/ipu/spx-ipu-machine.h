/* spx-ipu-machine.h: the IPU machines the model plans for */
#pragma once

#include <glib.h>
#include "spx-scenario.h"

G_BEGIN_DECLS

#define SPX_IPU_ERROR (spx_ipu_error_quark ())
GQuark spx_ipu_error_quark (void);

typedef enum {
  SPX_IPU_ERROR_INVALID,   /* a bad machine, file or scenario */
  SPX_IPU_ERROR_NO_PLAN,   /* nothing fits the machine's memory */
  SPX_IPU_ERROR_UNKNOWN,   /* a name neither a preset nor a file */
  SPX_IPU_ERROR_TOO_LARGE, /* more blocks than the model plans */
} SpxIpuError;

/* One IPU: every figure is per tile unless it says otherwise. */
typedef struct {
  char   *name;
  guint   tiles;
  guint   grid_width;           /* tiles per row when drawn */
  guint64 sram_bytes;
  double  clock_hz;
  guint   flop_per_cycle_fp16;  /* 2 per multiply-accumulate */
  guint   flop_per_cycle_fp32;
  double  exchange_bytes_per_cycle; /* in, and out, per tile */
  guint   sync_cycles;
  guint   exchange_overhead_cycles; /* fixed cost of one exchange superstep */
  double  available_memory;     /* share of SRAM plans may use, 0.6 */
  guint   workers;              /* worker threads per tile, 6 */
} SpxIpuMachine;

/* A preset of the table in spx-ipu-machine.c (Graphcore's IPUs with their
 * published figures, and a 16-tile teaching machine). A new copy; NULL
 * for another name. */
SpxIpuMachine *spx_ipu_machine_preset   (const char *name);
/* The preset names in menu order, NULL-terminated; static, never freed. */
const char *const *spx_ipu_machine_presets (void);
/* How many presets there are (the length of that list). */
guint          spx_ipu_machine_n_presets (void);
/* A preset's one-line description and source of its figures (static),
 * e.g. for a tooltip; NULL for another name. */
const char    *spx_ipu_machine_preset_about (const char *name);
/* A key file, group [machine], keys: name, tiles, grid-width, sram-bytes,
 * clock-hz, flop-per-cycle-fp16, flop-per-cycle-fp32,
 * exchange-bytes-per-cycle, sync-cycles, exchange-overhead-cycles,
 * available-memory, workers. Unknown keys and bad values are refused,
 * naming the file and key. */
SpxIpuMachine *spx_ipu_machine_load     (const char *path, GError **error);
/* The same from memory; name stands for the file in messages and is the
 * machine's name when the data gives none. */
SpxIpuMachine *spx_ipu_machine_load_data (const char *name, const char *data,
                                          gsize len, GError **error);
/* A preset name, or else a key file; SPX_IPU_ERROR_UNKNOWN for a name
 * that is neither (no such file, and no '/' or '.' to make it a path);
 * a file that cannot be read or parsed: _INVALID, naming it. */
SpxIpuMachine *spx_ipu_machine_resolve  (const char *name_or_path,
                                         GError **error);
/* The same key file, every key written; saved through spx_save_file. */
char          *spx_ipu_machine_to_data  (const SpxIpuMachine *machine,
                                         gsize *len);
gboolean       spx_ipu_machine_save     (const SpxIpuMachine *machine,
                                         const char *path,
                                         SpxSaveFlags flags, GError **error);
gboolean       spx_ipu_machine_validate (const SpxIpuMachine *machine,
                                         GError **error);
SpxIpuMachine *spx_ipu_machine_copy     (const SpxIpuMachine *machine);
/* Every figure and the name the same. */
gboolean       spx_ipu_machine_equal    (const SpxIpuMachine *a,
                                         const SpxIpuMachine *b);
void           spx_ipu_machine_free     (SpxIpuMachine *machine);

/* Per-tile figures that every planner needs. */
guint   spx_ipu_macs_per_cycle (const SpxIpuMachine *machine, SpxDtype dtype);
guint   spx_ipu_dtype_bytes    (SpxDtype dtype);
/* a / b rounded up (b > 0): the planners' counts of tiles, rows, loops. */
static inline guint64
spx_ipu_div_up (guint64 a, guint64 b)
{
  return a / b + (a % b != 0);
}

/* Bytes of working memory a plan may use on one tile: the available
 * share of its SRAM. */
guint64 spx_ipu_tile_budget    (const SpxIpuMachine *machine);
/* Whether a tile holding bytes, output of them its share of Y, fits: all
 * of it within SRAM, and all but the output within the budget. PopLibs'
 * availableMemoryProportion bounds the temporary memory an operation
 * takes, and the product's result is not temporary. */
gboolean spx_ipu_tile_fits     (const SpxIpuMachine *machine, double bytes,
                                double output);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SpxIpuMachine, spx_ipu_machine_free)

G_END_DECLS
