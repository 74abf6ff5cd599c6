/* spx-probe.h: tight loops that find what bounds a kernel on this
 * processor: each instruction's peak rate and L2's read bandwidth, in
 * streams and for rows gathered at random. Each
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
/* Bytes read: the first vectors 512-bit vectors (at most 16) of each of
 * the panel's rows listed, as a b = 1 kernel reads B's rows. */
double spx_probe_gather_avx512 (const float *panel, guint64 ldp,
                                guint vectors, const guint32 *rows,
                                gsize n_rows, float *keep);

G_END_DECLS
