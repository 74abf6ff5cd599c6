/* spx-engine-probe.h: what bounds a kernel on this processor, measured:
 * each instruction set's multiply-add peak and L2's read bandwidth, in
 * streams and for B's rows at random, on the threads the kernels run on */
#pragma once

#include "spx-engine.h"

G_BEGIN_DECLS

typedef enum {
  SPX_BOUND_FMA_AVX2,   /* fp32 FMAs of 256 bits */
  SPX_BOUND_FMA_AVX512, /* fp32 FMAs of 512 bits */
  SPX_BOUND_DPBF16,     /* vdpbf16ps */
  SPX_BOUND_AMX,        /* tdpbf16ps on AMX tiles */
  SPX_BOUND_L2,         /* reading from L2 in streams */
  SPX_BOUND_GATHER,     /* reading B's rows from L2 at random */
  SPX_N_BOUNDS
} SpxBoundId;

typedef struct {
  guint  threads;
  /* GFLOP/s (L2 and gather: GB/s) on all threads together; 0 where
   * this processor lacks the instructions */
  double rate[SPX_N_BOUNDS];
} SpxProbe;

/* Each rate the best of three windows of about 20 ms on threads threads
 * (0: all); the gather on the panel a k × n B of type packs into (none
 * for k or n 0). The L2 ones need AVX-512. */
void        spx_probe_run (SpxProbe *probe, guint threads, guint64 k,
                           guint64 n, SpxCpuType type);
/* "fp32 FMA (avx512)", "vdpbf16ps", "AMX tiles", "L2 read", "L2
 * gather". */
const char *spx_bound_name (SpxBoundId id);

/* What bounds a kernel ("avx512-bf16": spx_*_plan_kernel's names) on
 * blocks of b of type: the lower of its instructions' peak and L2's
 * bandwidth times the flops each byte of B's rows serves (2b per
 * element); at b = 1 the gather's rate, since each non-zero reads a row
 * of B at random. FALSE for a kernel with no measured bound (generic). */
typedef struct {
  SpxBoundId by;
  double     gflops;
} SpxKernelBound;

gboolean    spx_probe_kernel_bound (const SpxProbe *probe, const char *kernel,
                                    SpxCpuType type, guint b,
                                    SpxKernelBound *bound);

G_END_DECLS
