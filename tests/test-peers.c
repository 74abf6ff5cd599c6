/* test-peers.c: each in-process peer of bench --peers (librsb, LIBXSMM,
 * GraphBLAS, Eigen) against a double-precision product, or, when the
 * build does not have it, its note */
#include "spx-config.h"
#include "spx-bench-private.h"
#include "spx-mask-gen.h"
#include "spx-mask-io.h"

#include <math.h>
#include <string.h>

/* The operands as the bench hands them over: block values (zero outside
 * m×k), dense A, B. */
typedef struct {
  SpxBlockCsr csr;
  guint64     m, k, n;
  float      *values, *A, *B;
} Problem;

static float
draw (SpxRng *rng)
{
  return (float) (2.0 * spx_rng_uniform (rng) - 1.0);
}

static void
problem_init (Problem *p, const SpxMask *mask, guint64 n, guint64 seed)
{
  guint64 b = mask->block;
  SpxRng rng;
  spx_rng_init (&rng, seed);
  spx_block_csr_from_mask (&p->csr, mask);
  p->m = mask->rows;
  p->k = mask->cols;
  p->n = n;
  p->values = g_new (float, MAX (p->csr.n_blocks * b * b, 1));
  p->A = g_new0 (float, p->m * p->k);
  p->B = g_new (float, p->k * n);
  for (guint64 i = 0; i < p->k * n; i++)
    p->B[i] = draw (&rng);
  for (guint64 br = 0; br < p->csr.brows; br++)
    for (guint64 i = p->csr.row_offsets[br]; i < p->csr.row_offsets[br + 1];
         i++)
      for (guint64 e = 0; e < b * b; e++)
        {
          guint64 row = br * b + e / b;
          guint64 col = p->csr.col_indices[i] * b + e % b;
          gboolean inside = row < p->m && col < p->k;
          float v = p->values[i * b * b + e] = inside ? draw (&rng) : 0.0f;
          if (inside)
            p->A[row * p->k + col] = v;
        }
}

static void
problem_clear (Problem *p)
{
  spx_block_csr_clear (&p->csr);
  g_free (p->values);
  g_free (p->A);
  g_free (p->B);
}

/* C against scale·A·B summed in double, within float rounding of
 * Σ|a||b|. */
static void
check_product (const Problem *p, const float *C, double scale)
{
  for (guint64 i = 0; i < p->m; i++)
    for (guint64 j = 0; j < p->n; j++)
      {
        double sum = 0, mag = 0;
        for (guint64 l = 0; l < p->k; l++)
          {
            double t = scale * p->A[i * p->k + l] * p->B[l * p->n + j];
            sum += t;
            mag += fabs (t);
          }
        g_assert_cmpfloat (fabs (C[i * p->n + j] - sum), <=,
                           1e-5 * mag + 1e-30);
      }
}

/* One run as the bench does it; C starts as garbage, so that a peer
 * leaving some of it alone fails. */
static void
run_once (const SpxPeerClass *klass, gpointer peer, const Problem *p,
          const float *B, float *C)
{
  for (guint64 i = 0; i < p->m * p->n; i++)
    C[i] = 1e30f;
  if (klass->prepare)
    klass->prepare (peer, C);
  klass->run (peer, B, C);
  if (klass->failure)
    g_assert_null (klass->failure (peer));
}

/* Every in-process peer on p: right twice, the second time with another
 * B (nothing of B kept from the first); or its note when not built. */
static void
check_peers (const Problem *p, guint threads)
{
  SpxPeerOperands o = { &p->csr, p->values, p->A, p->n, threads, p->B };
  g_autofree float *C = g_new (float, p->m * p->n);
  g_autofree float *B2 = g_new (float, p->k * p->n);
  for (guint64 i = 0; i < p->k * p->n; i++)
    B2[i] = -0.5f * p->B[i];
  for (SpxPeerId id = 0; id < SPX_PEER_FIRST_RUNNER; id++)
    {
      const SpxPeerClass *klass = spx_peer_class (id);
      char note[256] = "";
      g_autoptr (GError) error = NULL;
      g_assert_cmpint (klass->id, ==, id);
      gpointer peer = klass->make (&o, note, sizeof note, &error);
      if (peer == NULL)
        {
          /* only a peer the build lacks may refuse, saying what to do */
          g_assert_error (error, SPX_ENGINE_ERROR,
                          SPX_ENGINE_ERROR_UNSUPPORTED);
          g_assert_nonnull (strstr (error->message, "not built: install"));
          g_assert_cmpstr (klass->version (), ==, "");
          g_test_message ("%s: %s", spx_peer_name (id), error->message);
          continue;
        }
      g_assert_cmpstr (klass->version (), !=, "");
      g_assert_cmpstr (note, !=, "");
      run_once (klass, peer, p, p->B, C);
      check_product (p, C, 1.0);
      run_once (klass, peer, p, B2, C);
      check_product (p, C, -0.5);
      klass->free (peer);
    }
}

/* The build has what meson found: no peer it found says "not built". */
static void
test_built (void)
{
  const gboolean built[SPX_PEER_FIRST_RUNNER] = {
    [SPX_PEER_LIBRSB] = SPX_HAVE_LIBRSB,
    [SPX_PEER_LIBXSMM] = SPX_HAVE_LIBXSMM,
    [SPX_PEER_GRAPHBLAS] = SPX_HAVE_GRAPHBLAS,
    [SPX_PEER_EIGEN] = SPX_HAVE_EIGEN,
  };
  for (SpxPeerId id = 0; id < SPX_PEER_FIRST_RUNNER; id++)
    {
      g_assert_cmpstr (spx_peer_name (id), !=, NULL);
      g_assert_cmpint (*spx_peer_class (id)->version () != '\0', ==,
                       built[id]);
    }
  g_assert_null (spx_peer_class (SPX_PEER_FIRST_RUNNER));
  g_assert_null (spx_peer_class (SPX_N_PEERS));
}

/* A DLMC weight (b = 1) from tests/data, on 1 and 2 threads; n = 100
 * crosses LIBXSMM's 96-column blocks. */
static void
test_dlmc (gconstpointer data)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", data,
                                                 NULL);
  g_autoptr (GError) error = NULL;
  SpxMask *mask = spx_mask_load (path, NULL, &error);
  g_assert_no_error (error);
  Problem p;
  problem_init (&p, mask, 100, 7);
  for (guint threads = 1; threads <= 2; threads++)
    check_peers (&p, threads);
  problem_clear (&p);
  spx_mask_free (mask);
}

/* 4×4 blocks on 37 × 29: the last block row and column are cut; the
 * cut blocks and an empty block row included. */
static void
test_ragged (void)
{
  g_autoptr (GError) error = NULL;
  SpxMask *mask = spx_mask_new (37, 29, 4, &error);
  g_assert_no_error (error);
  SpxRng rng;
  spx_rng_init (&rng, 3);
  for (guint64 br = 0; br < mask->brows; br++)
    for (guint64 bc = 0; bc < mask->bcols; bc++)
      if (br != 2 && (br == mask->brows - 1 || bc == mask->bcols - 1 ||
                      spx_rng_uniform (&rng) < 0.4))
        spx_mask_set (mask, br, bc);
  Problem p;
  problem_init (&p, mask, 13, 11);
  check_peers (&p, 2);
  problem_clear (&p);
  spx_mask_free (mask);
}

/* All of A zero: C must still be written (zero). */
static void
test_empty (void)
{
  g_autoptr (GError) error = NULL;
  SpxMask *mask = spx_mask_new (20, 12, 2, &error);
  g_assert_no_error (error);
  Problem p;
  problem_init (&p, mask, 5, 1);
  check_peers (&p, 2);
  problem_clear (&p);
  spx_mask_free (mask);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/peers/built", test_built);
  g_test_add_data_func ("/peers/dlmc/transformer",
                        "transformer-magnitude_pruning-0.98-attention_q.smtx",
                        test_dlmc);
  g_test_add_data_func ("/peers/dlmc/rn50",
                        "rn50-magnitude_pruning-0.9-initial_conv.smtx",
                        test_dlmc);
  g_test_add_func ("/peers/ragged", test_ragged);
  g_test_add_func ("/peers/empty", test_empty);
  return g_test_run ();
}
