// spx-peer-eigen.cc: Eigen's row-major sparse × dense product, for bench
// --peers. C++ only because Eigen is; the C side sees spx-peer-eigen.h.
#include "spx-peer-eigen.h"

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <cstdio>
#include <new>

using SparseRows = Eigen::SparseMatrix<float, Eigen::RowMajor, int>;
using DenseRows = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic,
                                Eigen::RowMajor>;

struct SpxEigenPeer
{
  SparseRows A;
  int64_t    n;
  int        threads;
};

// Eigen's indices are int: A's must fit.
static bool
fits (int64_t m, int64_t k, int64_t n, int64_t nnz)
{
  const int64_t most = Eigen::NumTraits<int>::highest ();
  return m <= most && k <= most && n <= most && nnz <= most;
}

static void
fill (SpxEigenPeer *peer, int64_t m, const int64_t *indptr,
      const int32_t *indices, const float *values)
{
  SparseRows &A = peer->A;
  Eigen::VectorXi per_row (m);
  for (int64_t r = 0; r < m; r++)
    per_row[r] = (int) (indptr[r + 1] - indptr[r]);
  A.reserve (per_row);
  // rows in order, columns increasing: each insert appends
  for (int64_t r = 0; r < m; r++)
    for (int64_t i = indptr[r]; i < indptr[r + 1]; i++)
      A.insert ((int) r, indices[i]) = values[i];
  A.makeCompressed ();
}

extern "C" SpxEigenPeer *
spx_eigen_peer_new (int64_t m, int64_t k, int64_t n, const int64_t *indptr,
                    const int32_t *indices, const float *values, int threads,
                    char *err, size_t size)
{
  if (!fits (m, k, n, indptr[m]))
    {
      std::snprintf (err, size, "Eigen: A has more rows, columns or "
                     "non-zeros than its int indices hold");
      return nullptr;
    }
  SpxEigenPeer *peer = nullptr;
  try
    {
      peer = new SpxEigenPeer { SparseRows ((int) m, (int) k), n,
                                threads < 1 ? 1 : threads };
      fill (peer, m, indptr, indices, values);
    }
  catch (const std::bad_alloc &)
    {
      delete peer;
      std::snprintf (err, size, "Eigen: no memory for its copy of A");
      return nullptr;
    }
  return peer;
}

extern "C" void
spx_eigen_peer_run (SpxEigenPeer *peer, const float *B, float *C)
{
  const SparseRows &A = peer->A;
  Eigen::Map<const DenseRows> b (B, A.cols (), peer->n);
  Eigen::Map<DenseRows> c (C, A.rows (), peer->n);
  // global in Eigen: set for every run, as several peers may differ
  Eigen::setNbThreads (peer->threads);
  // zeroes C, then adds row by row; rows shared out by OpenMP when the
  // work is above Eigen's threshold (nnz·n > 20000)
  c.noalias () = A * b;
}

extern "C" void
spx_eigen_peer_free (SpxEigenPeer *peer)
{
  delete peer;
}

#define SPX_STR_(x) #x
#define SPX_STR(x) SPX_STR_ (x)

extern "C" const char *
spx_eigen_version (void)
{
  return "Eigen " SPX_STR (EIGEN_WORLD_VERSION) "." SPX_STR (
    EIGEN_MAJOR_VERSION) "." SPX_STR (EIGEN_MINOR_VERSION);
}

extern "C" int
spx_eigen_threads (const SpxEigenPeer *peer)
{
#ifdef EIGEN_HAS_OPENMP
  return peer->threads;
#else
  return 1;
#endif
}
