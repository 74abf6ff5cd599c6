/* spx-kernels-table.h: one kernel per block size and spmm_kernel (b),
 * which picks them (its set's spmm), for an instruction set's file that
 * has defined block_row (task, B, ldb, C, ldc, n, accumulate, b, SHAPE…),
 * SHAPE_1 … SHAPE_32, SHAPE_ANY (its tile parameters) and
 * KERNEL_TABLE_ANY (the name of its generic-b kernel's getter). */

#define KERNEL(NAME, B_, SHAPE) \
  static void \
  NAME (const SpxRowTask *task, const float *B, guint64 ldb, float *C, \
        guint64 ldc, guint64 n, gboolean accumulate) \
  { \
    block_row (task, B, ldb, C, ldc, n, accumulate, B_, SHAPE); \
  }

KERNEL (spmm_b1, 1, SHAPE_1)
KERNEL (spmm_b2, 2, SHAPE_2)
KERNEL (spmm_b4, 4, SHAPE_4)
KERNEL (spmm_b8, 8, SHAPE_8)
KERNEL (spmm_b16, 16, SHAPE_16)
KERNEL (spmm_b32, 32, SHAPE_32)
KERNEL (spmm_any, task->b, SHAPE_ANY)

static SpxSpmmKernel
spmm_kernel (guint b)
{
  switch (b)
    {
    case 1: return spmm_b1;
    case 2: return spmm_b2;
    case 4: return spmm_b4;
    case 8: return spmm_b8;
    case 16: return spmm_b16;
    case 32: return spmm_b32;
    default: return spmm_any;
    }
}

SpxSpmmKernel
KERNEL_TABLE_ANY (void)
{
  return spmm_any;
}
