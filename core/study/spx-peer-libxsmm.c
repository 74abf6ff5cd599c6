/* spx-peer-libxsmm.c: LIBXSMM's sparse × dense (libxsmm_spmdm), a peer of
 * bench --peers (optional) */
#include "spx-config.h"
#include "spx-bench-private.h"
#include "spx-util.h"

#include <limits.h>

#if SPX_HAVE_LIBXSMM
#include <libxsmm.h>
#include <libxsmm_spmdm.h>
#include <omp.h>

/* spmdm's 'N' for A, B and C is row-major (checked by test-peers): A
 * m×k, B k×n, C m×n, as ours. */
#define ROW_MAJOR 'N'

typedef struct {
  libxsmm_spmdm_handle     handle;
  libxsmm_CSR_sparseslice *slices;
  int                      threads;
} XsmmPeer;

static const char *
xsmm_version (void)
{
  return "LIBXSMM " LIBXSMM_CONFIG_VERSION;
}

/* LIBXSMM cuts dense A into its own CSR slices: our plan's
 * counterpart, made once. Each thread has its own scratch, indexed by
 * tid: no more threads than the handle was made for. */
static void
make_slices (XsmmPeer *peer, const float *A)
{
  int blocks = libxsmm_spmdm_get_num_createSparseSlice_blocks (&peer->handle);

#pragma omp parallel num_threads (peer->threads)
  {
    int tid = omp_get_thread_num (), nt = omp_get_num_threads ();
#pragma omp for schedule (dynamic)
    for (int b = 0; b < blocks; b++)
      libxsmm_spmdm_createSparseSlice_fp32_thread (&peer->handle, ROW_MAJOR,
                                                   A, peer->slices, b, tid,
                                                   nt);
  }
}

static gpointer
xsmm_make (const SpxPeerOperands *o, char *note, gsize note_size,
           GError **error)
{
  const SpxBlockCsr *csr = o->csr;
  if (csr->m > INT_MAX || csr->k > INT_MAX || o->n > INT_MAX ||
      o->threads > INT_MAX)
    {
      g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID,
                   "LIBXSMM takes sizes up to %d", INT_MAX);
      return NULL;
    }
  XsmmPeer *peer = g_new0 (XsmmPeer, 1);
  peer->threads = (int) MAX (o->threads, 1);
  libxsmm_spmdm_init ((int) csr->m, (int) o->n, (int) csr->k, peer->threads,
                      &peer->handle, &peer->slices);
  if (peer->slices == NULL)
    {
      g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_NO_MEMORY,
                   "LIBXSMM: libxsmm_spmdm_init could not allocate its "
                   "slices of A");
      libxsmm_spmdm_destroy (&peer->handle);
      g_free (peer);
      return NULL;
    }
  make_slices (peer, o->A);
  spx_peer_set_note (note, note_size, "libxsmm_spmdm_compute_fp32_thread "
                     "over %d blocks of %d × %d, OpenMP %d threads",
                     libxsmm_spmdm_get_num_compute_blocks (&peer->handle),
                     peer->handle.bm, peer->handle.bn, peer->threads);
  return peer;
}

/* spmdm ignores alpha (always 1); beta 0 overwrites all of C. */
static void
xsmm_run (gpointer data, const float *B, float *C)
{
  XsmmPeer *peer = data;
  const float one = 1.0f, zero = 0.0f;
  int blocks = libxsmm_spmdm_get_num_compute_blocks (&peer->handle);

#pragma omp parallel num_threads (peer->threads)
  {
    int tid = omp_get_thread_num (), nt = omp_get_num_threads ();
#pragma omp for schedule (dynamic)
    for (int b = 0; b < blocks; b++)
      libxsmm_spmdm_compute_fp32_thread (&peer->handle, ROW_MAJOR, ROW_MAJOR,
                                         &one, peer->slices, B, ROW_MAJOR,
                                         &zero, C, b, tid, nt);
  }
}

static void
xsmm_free (gpointer data)
{
  XsmmPeer *peer = data;
  libxsmm_spmdm_destroy (&peer->handle);
  g_free (peer);
}

#else /* no LIBXSMM */

static const char *
xsmm_version (void)
{
  return "";
}

static gpointer
xsmm_make (const SpxPeerOperands *o, char *note, gsize note_size,
           GError **error)
{
  g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_UNSUPPORTED,
               "not built: install libxsmm-dev and rebuild");
  return NULL;
}

static void
xsmm_run (gpointer data, const float *B, float *C)
{
  g_assert_not_reached ();
}

static void
xsmm_free (gpointer data)
{
}
#endif

const SpxPeerClass spx_peer_libxsmm = {
  SPX_PEER_LIBXSMM, xsmm_make, NULL, xsmm_run, NULL, NULL, xsmm_free,
  xsmm_version,
};
