/* spx-peer-eigen.h: Eigen's sparse × dense behind a plain C interface
 * (spx-peer-eigen.cc is C++; this header is read by both languages) */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct SpxEigenPeer SpxEigenPeer;

/* A (m×k) from a CSR by row (indptr m + 1 entries, nnz = indptr[m]),
 * copied; C = A·B then runs on threads OpenMP threads. NULL with why in
 * err (size bytes) when it cannot be made. */
SpxEigenPeer *spx_eigen_peer_new  (int64_t m, int64_t k, int64_t n,
                                   const int64_t *indptr,
                                   const int32_t *indices,
                                   const float *values, int threads,
                                   char *err, size_t size);
/* C (m×n) = A·B (k×n), both row-major. */
void          spx_eigen_peer_run  (SpxEigenPeer *peer, const float *B,
                                   float *C);
void          spx_eigen_peer_free (SpxEigenPeer *peer);
/* "Eigen 3.4.0" */
const char   *spx_eigen_version   (void);
/* The threads Eigen runs on, as OpenMP gives them (its product is serial
 * without OpenMP). */
int           spx_eigen_threads   (const SpxEigenPeer *peer);

#ifdef __cplusplus
}
#endif
