/* spx-bench-private.h: the peers the benchmark can compare against */
#pragma once

#include "spx-bench.h"

G_BEGIN_DECLS

/* A timed peer: prepare once, run many times, free. */
typedef struct _SpxPeer SpxPeer;

SpxPeer *spx_peer_librsb_new (const SpxBlockCsr *csr, const float *values,
                              guint64 n, guint threads, GError **error);
void     spx_peer_run        (SpxPeer *peer, const float *B, float *C);
void     spx_peer_free       (SpxPeer *peer);
const char *spx_peer_librsb_version (void);

/* The peers run by the runner (spx_peers_runner): write A (values) and B
 * into dir in the runner's format, once; then run each. */
gboolean spx_peers_write (const char *dir, const SpxBlockCsr *csr,
                          const float *values, const float *B, guint64 n,
                          GError **error);
/* Remove dir and the files in it. */
void     spx_peers_remove_dir (const char *dir);
/* Run peer id on the operands in dir, for at most timeout_s seconds:
 * out gets its quartiles, threads and version, and C (m·n floats) its
 * product; or out->note says why it did not run (out->failed when it
 * ran and failed). FALSE only when cancelled (the thread's
 * GCancellable): the runner and what it started are stopped first. */
gboolean spx_peer_run_external (const char *runner, const char *dir,
                                SpxPeerId id, guint threads, guint warmup,
                                guint reps, guint timeout_s, float *C,
                                guint64 m, guint64 n, SpxBenchPeer *out,
                                GError **error);

G_END_DECLS
