/* spx-peer-eigen-class.c: Eigen, a peer of bench --peers (optional),
 * through the C interface of spx-peer-eigen.cc */
#include "spx-config.h"
#include "spx-bench-private.h"

#if SPX_HAVE_EIGEN
#include "spx-peer-eigen.h"

static const char *
eigen_version (void)
{
  return spx_eigen_version ();
}

static gpointer
eigen_make (const SpxPeerOperands *o, char *note, gsize note_size,
            GError **error)
{
  SpxElementCsr e;
  char why[160] = "";
  if (o->n > G_MAXINT64 || !spx_element_csr_init (&e, o->csr, o->values,
                                                  "Eigen's copy of A", error))
    return NULL;
  SpxEigenPeer *peer = spx_eigen_peer_new ((gint64) e.m, (gint64) e.k,
                                           (gint64) o->n, e.indptr,
                                           e.indices, e.values,
                                           (int) MIN (o->threads, G_MAXINT),
                                           why, sizeof why);
  spx_element_csr_clear (&e);
  if (peer == NULL)
    {
      g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID, "%s",
                   why);
      return NULL;
    }
  spx_peer_set_note (note, note_size, "SparseMatrix<float, RowMajor> × "
                     "row-major dense, C zeroed inside the run; "
                     "Eigen::setNbThreads %d", spx_eigen_threads (peer));
  return peer;
}

static void
eigen_run (gpointer peer, const float *B, float *C)
{
  spx_eigen_peer_run (peer, B, C);
}

static void
eigen_free (gpointer peer)
{
  spx_eigen_peer_free (peer);
}

#else /* no Eigen */

static const char *
eigen_version (void)
{
  return "";
}

static gpointer
eigen_make (const SpxPeerOperands *o, char *note, gsize note_size,
            GError **error)
{
  g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_UNSUPPORTED,
               "not built: install libeigen3-dev and g++, and rebuild");
  return NULL;
}

static void
eigen_run (gpointer peer, const float *B, float *C)
{
  g_assert_not_reached ();
}

static void
eigen_free (gpointer peer)
{
}
#endif

const SpxPeerClass spx_peer_eigen = {
  SPX_PEER_EIGEN, eigen_make, NULL, eigen_run, NULL, NULL, eigen_free,
  eigen_version,
};
