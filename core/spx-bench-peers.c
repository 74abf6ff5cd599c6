/* spx-bench-peers.c: other libraries' SpMM, for comparison (optional) */
#include "spx-config.h"
#include "spx-bench-private.h"
#include "spx-util.h"

#if SPX_HAVE_LIBRSB
#include <rsb.h>

struct _SpxPeer {
  struct rsb_mtx_t *mtx;
  guint64           n;
};

gboolean
spx_bench_have_librsb (void)
{
  return TRUE;
}

/* librsb wants element coordinates: expand the blocks (edge elements
 * outside m×k dropped). */
static void
expand_blocks (const SpxBlockCsr *csr, const float *values, rsb_coo_idx_t *IA,
               rsb_coo_idx_t *JA, float *VA, rsb_nnz_idx_t *nnz)
{
  guint b = csr->b;
  rsb_nnz_idx_t z = 0;
  for (guint64 br = 0; br < csr->brows; br++)
    for (guint64 i = csr->row_offsets[br]; i < csr->row_offsets[br + 1]; i++)
      for (guint r = 0; r < b; r++)
        for (guint c = 0; c < b; c++)
          {
            guint64 row = br * b + r, col = csr->col_indices[i] * (guint64) b + c;
            if (row >= csr->m || col >= csr->k)
              continue;
            IA[z] = (rsb_coo_idx_t) row;
            JA[z] = (rsb_coo_idx_t) col;
            VA[z++] = values[i * b * b + r * b + c];
          }
  *nnz = z;
}

static gboolean
rsb_failed (rsb_err_t err, const char *what, GError **error)
{
  char msg[256] = "";
  rsb_strerror_r (err, msg, sizeof msg);
  g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID,
               "librsb: %s: %s", what, msg);
  return FALSE;
}

SpxPeer *
spx_peer_librsb_new (const SpxBlockCsr *csr, const float *values, guint64 n,
                     guint threads, GError **error)
{
  static gsize initialised = 0;
  if (g_once_init_enter (&initialised))
    g_once_init_leave (&initialised, rsb_lib_init (RSB_NULL_INIT_OPTIONS) + 1);
  if (csr->m > G_MAXINT32 || csr->k > G_MAXINT32 || n > G_MAXINT32 ||
      csr->n_blocks * csr->b * csr->b > G_MAXINT32)
    return rsb_failed (RSB_ERR_LIMITS, "matrix too large", error), NULL;
  gsize cap = MAX (csr->n_blocks * csr->b * csr->b, 1);
  /* coordinates and values of every element, then librsb's own copy */
  gsize each = 2 * (2 * sizeof (rsb_coo_idx_t) + sizeof (float));
  if (!spx_budget_check ((guint64) cap * each, "librsb's copy of A", error))
    return NULL;
  rsb_coo_idx_t *IA = g_try_new (rsb_coo_idx_t, cap);
  rsb_coo_idx_t *JA = g_try_new (rsb_coo_idx_t, cap);
  float *VA = g_try_new (float, cap);
  if (IA == NULL || JA == NULL || VA == NULL)
    {
      g_free (IA);
      g_free (JA);
      g_free (VA);
      return rsb_failed (RSB_ERR_ENOMEM, "no memory for A's elements",
                         error), NULL;
    }
  rsb_nnz_idx_t nnz = 0;
  expand_blocks (csr, values, IA, JA, VA, &nnz);
  rsb_int_t nt = (rsb_int_t) threads;
  rsb_lib_set_opt (RSB_IO_WANT_EXECUTING_THREADS, &nt);
  rsb_err_t err = RSB_ERR_NO_ERROR;
  struct rsb_mtx_t *mtx = rsb_mtx_alloc_from_coo_const (
    VA, IA, JA, nnz, RSB_NUMERICAL_TYPE_FLOAT, (rsb_coo_idx_t) csr->m,
    (rsb_coo_idx_t) csr->k, 1, 1, RSB_FLAG_NOFLAGS, &err);
  g_free (IA);
  g_free (JA);
  g_free (VA);
  if (mtx == NULL)
    return rsb_failed (err, "building the matrix", error), NULL;
  SpxPeer *peer = g_new0 (SpxPeer, 1);
  peer->mtx = mtx;
  peer->n = n;
  return peer;
}

void
spx_peer_run (SpxPeer *peer, const float *B, float *C)
{
  const float one = 1.0f, zero = 0.0f;
  rsb_coo_idx_t n = (rsb_coo_idx_t) peer->n;
  rsb_spmm (RSB_TRANSPOSITION_N, &one, peer->mtx, n,
            RSB_FLAG_WANT_ROW_MAJOR_ORDER, B, n, &zero, C, n);
}

void
spx_peer_free (SpxPeer *peer)
{
  rsb_mtx_free (peer->mtx);
  g_free (peer);
}

#else /* no librsb */

gboolean
spx_bench_have_librsb (void)
{
  return FALSE;
}

SpxPeer *
spx_peer_librsb_new (const SpxBlockCsr *csr, const float *values, guint64 n,
                     guint threads, GError **error)
{
  g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_UNSUPPORTED,
               "built without librsb (install librsb-dev and rebuild)");
  return NULL;
}

void
spx_peer_run (SpxPeer *peer, const float *B, float *C)
{
  g_assert_not_reached ();
}

void
spx_peer_free (SpxPeer *peer)
{
}
#endif
