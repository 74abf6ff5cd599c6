/* spx-ipu-codelet.c: vertex cycle counts shared by the planners.
 *
 * The block and element-wise formulas are the reference's; the constants
 * it leaves unnamed are below. */
#include "spx-ipu-codelet.h"

#include <math.h>

/* Block vertex: per-worker header and per-row cost of fetching the X row
 * pointers, in worker cycles. */
#define CODELET_HDR  4
#define CODELET_XRET 3

/* Dynamic vertex, on top of the static one: the cost of each bucket a
 * tile takes in (finding its sub-groups, starting its work), walking the
 * meta-information per row and per block (offsets the static program has
 * baked in), and, for blocks, the loop's lost specialisation (no
 * unrolling for a known pattern). Fitted to the paper's dynamic b = 1 and
 * b = 16 curves (reference, calibration table) and to nothing else. The
 * per-bucket figure is far above the sub-group search alone (~150
 * cycles): it carries whatever the paper's dynamic runs lose per
 * z-partition that the reference does not name. */
#define DYN_BUCKET_CYCLES 6000
#define DYN_ROW_CYCLES 1000
#define DYN_BLOCK_CYCLES 30
#define DYN_SLOWDOWN_BLOCK 2.4

/* Element-wise vertex: the paper's static b = 1 curve sits ~13% under
 * the reference formula at every density (each non-zero gathers from a
 * different X row, so the 3-cycle inner step is not sustained); fitted
 * to the static b = 1 column only. */
#define ELEM_SLOWDOWN 1.15

/* Reduce: fp32 partial elements added per tile cycle (six workers, a
 * 64-bit vector add each, about three instructions per element pair);
 * fill: output bytes written per cycle; both after a vertex start. */
#define VERTEX_START          30
#define REDUCE_ADDS_PER_CYCLE 2.0
#define FILL_BYTES_PER_CYCLE  8.0

static double
lerp_b (guint b, guint b0, double y0, guint b1, double y1)
{
  return y0 + (y1 - y0) * ((double) b - b0) / (double) (b1 - b0);
}

/* Worker cycles of one block times nw columns of X. The reference gives
 * b = 4, 8, 16; between and beyond them the constant part is interpolated
 * linearly in b and the per-column part follows the AMP width: fp16 does
 * min(4b, 64) MACs per worker step, fp32 min(b, 16). */
static double
block_y (guint b, SpxDtype dtype, double nw)
{
  double bb = (double) b * b;
  if (dtype == SPX_DTYPE_FP16)
    {
      double c0 = b <= 4 ? 13 : b <= 8 ? lerp_b (b, 4, 13, 8, 14)
                                       : lerp_b (b, 8, 14, 16, 19);
      return c0 + bb / MIN (4.0 * b, 64.0) * (nw - 1);
    }
  double c0 = b <= 4 ? 12 : b <= 8 ? lerp_b (b, 4, 12, 8, 19)
                                   : lerp_b (b, 8, 19, 16, 74);
  return c0 + bb / MIN ((double) b, 16.0) * (nw - 1);
}

static guint
grain (SpxDtype dtype)
{
  return dtype == SPX_DTYPE_FP16 ? 4 : 2; /* 8 bytes of X */
}

/* Workers of an element-wise vertex take rows (with fewer rows than
 * workers they split the columns too); workers of a block vertex take
 * columns of X, a grain or more each (the reference's nW), and rows only
 * when the columns run out. */
static void
split_workers (guint w, guint b, SpxDtype dtype, guint64 rows,
               guint64 n_cols, guint64 *wr, guint64 *wn)
{
  if (b == 1)
    {
      *wr = MIN (rows, w);
      *wn = w / *wr;
      return;
    }
  *wn = MIN (w, spx_ipu_div_up (n_cols, grain (dtype)));
  *wr = MIN (rows, MAX (1, w / *wn));
}

double
spx_ipu_spmm_cycles (const SpxIpuMachine *machine, guint b, SpxDtype dtype,
                     guint64 blocks, guint64 rows, guint64 n_cols)
{
  if (blocks == 0 || n_cols == 0)
    return 0;
  rows = MAX (rows, 1);
  double w = machine->workers;
  guint64 wr, wn;
  split_workers (machine->workers, b, dtype, rows, n_cols, &wr, &wn);
  double mw = (double) spx_ipu_div_up (rows, wr);
  double kw = (double) spx_ipu_div_up (blocks, wr); /* blocks per worker */
  double nw = (double) spx_ipu_div_up (n_cols, wn);
  if (b == 1)
    {
      /* X columns in vectors of 8 halves (4 floats) */
      double g = spx_ipu_div_up ((guint64) nw, grain (dtype)) * grain (dtype) /
                 (dtype == SPX_DTYPE_FP16 ? 8.0 : 4.0);
      return ELEM_SLOWDOWN * (33 + mw * (11 + 11 * g) + 3 * g * kw) * w;
    }
  double bytes = spx_ipu_dtype_bytes (dtype);
  return 30 + CODELET_HDR * w + mw * (CODELET_XRET * w + 17) +
         kw * (16 + (double) b * b * bytes / 8 + block_y (b, dtype, nw) * w);
}

double
spx_ipu_dynamic_cycles (const SpxIpuMachine *machine, guint b,
                        SpxDtype dtype, guint64 blocks, guint64 rows,
                        guint64 n_cols, guint64 buckets)
{
  if (blocks == 0 || n_cols == 0)
    return 0;
  double w = machine->workers;
  double meta = buckets * DYN_BUCKET_CYCLES +
                (ceil ((double) rows / w) * DYN_ROW_CYCLES +
                 ceil ((double) blocks / w) * DYN_BLOCK_CYCLES) * w;
  double slow = b == 1 ? 1.0 : DYN_SLOWDOWN_BLOCK;
  return slow * spx_ipu_spmm_cycles (machine, b, dtype, blocks, rows, n_cols) +
         meta;
}

double
spx_ipu_reduce_cycles (const SpxIpuMachine *machine, guint64 outputs,
                       double partials)
{
  if (outputs == 0 || partials <= 0)
    return 0;
  (void) machine;
  return VERTEX_START + (double) outputs * partials / REDUCE_ADDS_PER_CYCLE;
}

double
spx_ipu_fill_cycles (const SpxIpuMachine *machine, guint64 bytes)
{
  (void) machine;
  return bytes ? VERTEX_START + ceil (bytes / FILL_BYTES_PER_CYCLE) : 0;
}
