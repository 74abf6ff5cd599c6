/* spx-kernels-widen.h: bf16 on an instruction set without bf16 products:
 * B is widened to fp32 as it is packed, A's values a group of blocks at a
 * time (on the stack), and the file's fp32 kernels multiply. For an ISA's
 * file that has included spx-kernels-table.h; defines WIDEN_SET (name),
 * the set's row in spx-kernels.c's bf16 table. */
#include "spx-bf16.h"

#define WIDEN_FLOATS 4096 /* a group's values: 16 KiB */

/* Rows r0 ≤ r < r1 of the panel, zeros past B's k rows. */
static void
widen_rows (const guint16 *B, guint64 ldb, guint64 k, guint64 r0,
            guint64 r1, guint64 n, float *panel, guint64 ldp)
{
  for (guint64 r = r0; r < r1; r++)
    {
      float *dst = panel + r * ldp;
      const guint16 *src = B + r * ldb;
      if (r >= k)
        memset (dst, 0, n * sizeof (float));
      else
        for (guint64 x = 0; x < n; x++)
          dst[x] = spx_bf16_to_float (src[x]);
    }
}

static void
widen_pack (const guint16 *B, guint64 ldb, guint64 k, guint b, guint64 c0,
            guint64 c1, guint64 n, void *panel, guint64 ldp)
{
  widen_rows (B, ldb, k, c0 * b, c1 * b, n, panel, ldp);
}

static SpxBf16Pack
widen_packer (guint b)
{
  return widen_pack;
}

static guint
widen_bcol_rows (guint b)
{
  return b;
}

/* Groups of whole blocks through the fp32 kernel, each adding to what
 * the ones before left in C. */
static void
widen_spmm (const SpxRowTask *task, const void *panel, guint64 ldp,
            float *C, guint64 ldc, guint64 n, gboolean accumulate)
{
  gsize bb = (gsize) task->b * task->b;
  float stack[WIDEN_FLOATS];
  float *buf = bb > WIDEN_FLOATS ? g_new (float, bb) : stack;
  guint per = (guint) MAX (WIDEN_FLOATS / bb, 1);
  SpxSpmmKernel kernel = spmm_kernel (task->b);
  SpxRowTask part = *task;
  guint j = 0;

  do
    {
      part.n_blocks = MIN (per, task->n_blocks - j);
      for (gsize i = 0; i < part.n_blocks * bb; i++)
        buf[i] = spx_bf16_to_float (task->values_bf16[j * bb + i]);
      part.values = buf;
      part.b_offsets = task->b_offsets + j;
      kernel (&part, panel, ldp, C, ldc, n, accumulate || j > 0);
      j += part.n_blocks;
    }
  while (j < task->n_blocks);
  if (buf != stack)
    g_free (buf);
}

static SpxSpmmBf16Kernel
widen_kernel (guint b)
{
  return widen_spmm;
}

static const char *
widen_name (guint b)
{
  return WIDEN_NAME;
}

const SpxKernelSetBf16 WIDEN_SET = {
  widen_name, widen_kernel, widen_bcol_rows, widen_packer, sizeof (float)
};
