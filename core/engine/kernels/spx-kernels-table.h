/* spx-kernels-table.h: one kernel per block size and spmm_kernel (b),
 * which picks them (its set's spmm), for an instruction set's file that
 * has defined block_row (task, B, ldb, C, ldc, n, accumulate, b, SHAPE…),
 * SHAPE_1 … SHAPE_32, SHAPE_ANY (its tile parameters) and
 * KERNEL_TABLE_ANY (the name of its generic-b kernel's getter). A bf16
 * file defines TABLE_PANEL (what B is) and TABLE_KERNEL (the kernels'
 * type) as well, and may give its own b = 1 kernel as TABLE_B1 and no
 * KERNEL_TABLE_ANY. */

#ifndef TABLE_PANEL
#define TABLE_PANEL const float *
#define TABLE_KERNEL SpxSpmmKernel
#endif

#define KERNEL(NAME, B_, SHAPE) \
  static void \
  NAME (const SpxRowTask *task, TABLE_PANEL B, guint64 ldb, float *C, \
        guint64 ldc, guint64 n, gboolean accumulate) \
  { \
    block_row (task, B, ldb, C, ldc, n, accumulate, B_, SHAPE); \
  }

#ifndef TABLE_B1
KERNEL (spmm_b1, 1, SHAPE_1)
#define TABLE_B1 spmm_b1
#endif
KERNEL (spmm_b2, 2, SHAPE_2)
KERNEL (spmm_b4, 4, SHAPE_4)
KERNEL (spmm_b8, 8, SHAPE_8)
KERNEL (spmm_b16, 16, SHAPE_16)
KERNEL (spmm_b32, 32, SHAPE_32)
KERNEL (spmm_any, task->b, SHAPE_ANY)

static TABLE_KERNEL
spmm_kernel (guint b)
{
  switch (b)
    {
    case 1: return TABLE_B1;
    case 2: return spmm_b2;
    case 4: return spmm_b4;
    case 8: return spmm_b8;
    case 16: return spmm_b16;
    case 32: return spmm_b32;
    default: return spmm_any;
    }
}

#ifdef KERNEL_TABLE_ANY
TABLE_KERNEL
KERNEL_TABLE_ANY (void)
{
  return spmm_any;
}
#endif
