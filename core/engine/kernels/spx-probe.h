/* spx-probe.h: tight loops that find what bounds a kernel on this
 * processor: each instruction's peak rate and L2's read bandwidth. Each
 * runs on the calling thread; the engine times them on every thread. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Floating-point operations done by iters rounds of independent
 * multiply-adds on registers (fp32 FMAs of 256 or 512 bits, vdpbf16ps,
 * AMX tdpbf16ps); the result is kept so that no loop is optimised away. */
double spx_probe_fma_avx2     (guint64 iters, float *keep);
double spx_probe_fma_avx512   (guint64 iters, float *keep);
double spx_probe_dpbf16       (guint64 iters, float *keep);
double spx_probe_amx          (guint64 iters, float *keep);
/* Bytes read: reps passes of 512-bit loads over buf's n floats. */
double spx_probe_read_avx512  (const float *buf, gsize n, guint reps,
                               float *keep);

G_END_DECLS
