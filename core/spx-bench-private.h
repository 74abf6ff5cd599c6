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

G_END_DECLS
