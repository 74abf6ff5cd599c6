/* spx-peer-graphblas.c: SuiteSparse:GraphBLAS's GrB_mxm, a peer of bench
 * --peers (optional) */
#include "spx-config.h"
#include "spx-bench-private.h"
#include "spx-util.h"

#include <stdlib.h>
#include <string.h>

#if SPX_HAVE_GRAPHBLAS
#include <GraphBLAS.h>
#include <gmodule.h>

/* GraphBLAS is opened when the peer is first made, not linked: its
 * library is 180 MB, which every run of the program would map (a run
 * limited to 512 MiB of address space then no longer starts). The
 * header still gives the types; the names below go through this table. */
#define GRB_LIBRARY "libgraphblas.so.7"
#define GRB_FUNCTIONS(F) \
  F (GrB_init) F (GrB_mxm) F (GrB_Matrix_new) F (GrB_Matrix_free) \
  F (GrB_Matrix_wait) F (GxB_Global_Option_set_INT32) \
  F (GxB_Matrix_Option_set_INT32) F (GxB_Matrix_pack_CSR) \
  F (GxB_Matrix_pack_FullR) F (GxB_Matrix_unpack_FullR)
#define GRB_OBJECTS(F) \
  F (GrB_FP32, GrB_Type) F (GrB_PLUS_FP32, GrB_BinaryOp) \
  F (GrB_PLUS_TIMES_SEMIRING_FP32, GrB_Semiring)

static struct {
#define FIELD(name) __typeof__ (name) *name;
  GRB_FUNCTIONS (FIELD)
#undef FIELD
#define OBJECT(name, type) type *name;
  GRB_OBJECTS (OBJECT)
#undef OBJECT
} grb;

/* Each symbol of the table from the library, once; NULL or the reason it
 * could not be opened. */
static const char *
grb_load (void)
{
  static gsize done = 0;
  static char *failure;
  if (g_once_init_enter (&done))
    {
      GModule *lib = g_module_open (GRB_LIBRARY, G_MODULE_BIND_LOCAL);
      gboolean ok = lib != NULL;
#define LOAD(name, ...) \
      ok = ok && g_module_symbol (lib, #name, (gpointer *) &grb.name);
      GRB_FUNCTIONS (LOAD)
      GRB_OBJECTS (LOAD)
#undef LOAD
      if (!ok)
        failure = g_strdup_printf ("could not open %s: %s", GRB_LIBRARY,
                                   g_module_error ());
      g_once_init_leave (&done, 1); /* the module stays open */
    }
  return failure;
}

#define GrB_init (*grb.GrB_init)
#define GrB_mxm (*grb.GrB_mxm)
#define GrB_Matrix_new (*grb.GrB_Matrix_new)
#define GrB_Matrix_free (*grb.GrB_Matrix_free)
#define GrB_Matrix_wait (*grb.GrB_Matrix_wait)
#define GxB_Global_Option_set_INT32 (*grb.GxB_Global_Option_set_INT32)
#define GxB_Matrix_Option_set_INT32 (*grb.GxB_Matrix_Option_set_INT32)
#define GxB_Matrix_pack_CSR (*grb.GxB_Matrix_pack_CSR)
#define GxB_Matrix_pack_FullR (*grb.GxB_Matrix_pack_FullR)
#define GxB_Matrix_unpack_FullR (*grb.GxB_Matrix_unpack_FullR)
#define GrB_FP32 (*grb.GrB_FP32)
#define GrB_PLUS_FP32 (*grb.GrB_PLUS_FP32)
#define GrB_PLUS_TIMES_SEMIRING_FP32 (*grb.GrB_PLUS_TIMES_SEMIRING_FP32)

typedef struct {
  GrB_Matrix A, B, C;
  guint64    m, k, n;
  int        threads;
  double     plain_ms;  /* < 0: not timed */
  char       failure[160];
} GrbPeer;

static const char *
grb_version (void)
{
#define STR_(x) #x
#define STR(x) STR_ (x)
  return "SuiteSparse:GraphBLAS " STR (GxB_IMPLEMENTATION_MAJOR) "."
         STR (GxB_IMPLEMENTATION_MINOR) "." STR (GxB_IMPLEMENTATION_SUB);
#undef STR
#undef STR_
}

static gboolean
grb_failed (GrB_Info info, const char *what, GError **error)
{
  g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID,
               "GraphBLAS: %s failed (GrB_Info %d)", what, (int) info);
  return FALSE;
}

/* GrB_init may be called once per process: whatever it said first. */
static GrB_Info
grb_init_once (void)
{
  static gsize done = 0;
  static GrB_Info info;
  if (g_once_init_enter (&done))
    {
      info = GrB_init (GrB_NONBLOCKING);
      g_once_init_leave (&done, 1);
    }
  return info;
}

/* A by row, kept sparse (CSR), the arrays handed over to GraphBLAS. Its
 * indices are GrB_Index (64-bit): copied from ours. */
static gboolean
pack_a (GrbPeer *peer, const SpxElementCsr *e, GError **error)
{
  gsize nnz = MAX (e->nnz, 1);
  GrB_Index *Ap = malloc ((e->m + 1) * sizeof (GrB_Index));
  GrB_Index *Aj = malloc (nnz * sizeof (GrB_Index));
  float *Ax = malloc (nnz * sizeof (float));
  if (Ap == NULL || Aj == NULL || Ax == NULL)
    {
      free (Ap);
      free (Aj);
      free (Ax);
      return grb_failed (GrB_OUT_OF_MEMORY, "copying A", error);
    }
  for (guint64 i = 0; i <= e->m; i++)
    Ap[i] = (GrB_Index) e->indptr[i];
  for (guint64 i = 0; i < e->nnz; i++)
    Aj[i] = (GrB_Index) e->indices[i];
  memcpy (Ax, e->values, e->nnz * sizeof (float));
  void *x = Ax;
  GrB_Info info = GxB_Matrix_pack_CSR (peer->A, &Ap, &Aj, &x,
                                       (e->m + 1) * sizeof (GrB_Index),
                                       nnz * sizeof (GrB_Index),
                                       nnz * sizeof (float), false, false,
                                       NULL);
  if (info != GrB_SUCCESS)
    {
      free (Ap);
      free (Aj);
      free (x);
      return grb_failed (info, "GxB_Matrix_pack_CSR (A)", error);
    }
  return TRUE;
}

/* The three matrices by row: A sparse, B and C full (their arrays are
 * the caller's, packed for each run). */
static gboolean
grb_matrices (GrbPeer *peer, const SpxPeerOperands *o, GError **error)
{
  const struct { GrB_Matrix *mat; guint64 rows, cols; int sparsity; } mats[] = {
    { &peer->A, peer->m, peer->k, GxB_SPARSE },
    { &peer->B, peer->k, peer->n, GxB_FULL },
    { &peer->C, peer->m, peer->n, GxB_FULL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (mats); i++)
    {
      GrB_Info info = GrB_Matrix_new (mats[i].mat, GrB_FP32, mats[i].rows,
                                      mats[i].cols);
      if (info == GrB_SUCCESS)
        info = GxB_Matrix_Option_set_INT32 (*mats[i].mat, GxB_FORMAT,
                                            GxB_BY_ROW);
      if (info == GrB_SUCCESS)
        info = GxB_Matrix_Option_set_INT32 (*mats[i].mat,
                                            GxB_SPARSITY_CONTROL,
                                            mats[i].sparsity);
      if (info != GrB_SUCCESS)
        return grb_failed (info, "making a matrix", error);
    }
  SpxElementCsr e;
  if (!spx_element_csr_init (&e, o->csr, o->values, "GraphBLAS's copy of A",
                             error))
    return FALSE;
  gboolean ok = pack_a (peer, &e, error);
  spx_element_csr_clear (&e);
  GrB_Info info = ok ? GrB_Matrix_wait (peer->A, GrB_MATERIALIZE)
                     : GrB_SUCCESS;
  return ok && (info == GrB_SUCCESS ||
                grb_failed (info, "GrB_Matrix_wait (A)", error));
}

/* Take back an array packed into mat; FALSE when GraphBLAS replaced it
 * (it then holds the values) or the unpack failed. */
static gboolean
unpack (GrbPeer *peer, GrB_Matrix mat, void *mine, guint64 len)
{
  void *x = NULL;
  GrB_Index size = 0;
  bool iso = false;
  GrB_Info info = GxB_Matrix_unpack_FullR (mat, &x, &size, &iso, NULL);
  if (info != GrB_SUCCESS)
    {
      g_snprintf (peer->failure, sizeof peer->failure,
                  "GxB_Matrix_unpack_FullR failed (GrB_Info %d)", (int) info);
      return FALSE;
    }
  if (x == mine && !iso)
    return TRUE;
  /* not expected: copy its values back and free its array */
  for (guint64 i = 0; i < len; i++)
    ((float *) mine)[i] = ((float *) x)[iso ? 0 : i];
  free (x);
  g_snprintf (peer->failure, sizeof peer->failure,
              "GraphBLAS replaced a packed array (not the in-place path)");
  return FALSE;
}

/* The plain call, C = A·B into a new C that GraphBLAS shapes as it
 * likes, timed once for the note (ms; < 0 when it failed). */
static double
grb_plain_ms (GrbPeer *peer, const float *B)
{
  GrB_Matrix C = NULL;
  void *b = (void *) B;
  GxB_Global_Option_set_INT32 (GxB_NTHREADS, peer->threads);
  GrB_Info info = GxB_Matrix_pack_FullR (peer->B, &b,
                                         peer->k * peer->n * sizeof (float),
                                         false, NULL);
  gboolean packed = info == GrB_SUCCESS;
  if (info == GrB_SUCCESS)
    info = GrB_Matrix_new (&C, GrB_FP32, peer->m, peer->n);
  double t0 = spx_now_ms ();
  if (info == GrB_SUCCESS)
    info = GrB_mxm (C, NULL, NULL, GrB_PLUS_TIMES_SEMIRING_FP32, peer->A,
                    peer->B, NULL);
  if (info == GrB_SUCCESS)
    info = GrB_Matrix_wait (C, GrB_MATERIALIZE);
  double ms = spx_now_ms () - t0;
  GrB_Matrix_free (&C);
  /* pack took b (it is NULL now): B is what comes back, always */
  gboolean ok = packed && unpack (peer, peer->B, (void *) B, 0) &&
                info == GrB_SUCCESS;
  peer->failure[0] = '\0'; /* a trial: only the runs count */
  return ok ? ms : -1;
}

static void grb_free (gpointer data);

static gpointer
grb_make (const SpxPeerOperands *o, char *note, gsize note_size,
          GError **error)
{
  const char *unopened = grb_load ();
  if (unopened != NULL)
    {
      g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_UNSUPPORTED,
                   "%s", unopened);
      return NULL;
    }
  GrB_Info info = grb_init_once ();
  if (info != GrB_SUCCESS)
    return grb_failed (info, "GrB_init", error), NULL;
  GrbPeer *peer = g_new0 (GrbPeer, 1);
  peer->m = o->csr->m;
  peer->k = o->csr->k;
  peer->n = o->n;
  peer->threads = (int) MIN (MAX (o->threads, 1), G_MAXINT);
  if (!grb_matrices (peer, o, error))
    {
      grb_free (peer);
      return NULL;
    }
  peer->plain_ms = o->B != NULL ? grb_plain_ms (peer, o->B) : -1;
  /* GxB_BURBLE names it in 7.4: "saxpy5: F += F*S, C in place" (by
   * row, GraphBLAS works on the transposes) */
  spx_peer_set_note (note, note_size, "GrB_mxm saxpy fast path: full C, "
                     "PLUS accum, in place (C zeroed before each run, "
                     "untimed); GxB_NTHREADS %d", peer->threads);
  return peer;
}

/* The accumulator adds to C: it starts from zero; and GraphBLAS's
 * thread count is global, set for every run. */
static void
grb_prepare (gpointer data, float *C)
{
  GrbPeer *peer = data;
  memset (C, 0, peer->m * peer->n * sizeof (float));
  GxB_Global_Option_set_INT32 (GxB_NTHREADS, peer->threads);
}

/* Hand B and C over (no copy), multiply-add, take them back. */
static void
grb_run (gpointer data, const float *B, float *C)
{
  GrbPeer *peer = data;
  void *b = (void *) B, *c = C;
  GrB_Info info = GxB_Matrix_pack_FullR (peer->B, &b,
                                         peer->k * peer->n * sizeof (float),
                                         false, NULL);
  if (info == GrB_SUCCESS)
    info = GxB_Matrix_pack_FullR (peer->C, &c,
                                  peer->m * peer->n * sizeof (float), false,
                                  NULL);
  if (info == GrB_SUCCESS)
    info = GrB_mxm (peer->C, NULL, GrB_PLUS_FP32,
                    GrB_PLUS_TIMES_SEMIRING_FP32, peer->A, peer->B, NULL);
  if (info == GrB_SUCCESS)
    info = GrB_Matrix_wait (peer->C, GrB_MATERIALIZE);
  if (info != GrB_SUCCESS)
    g_snprintf (peer->failure, sizeof peer->failure,
                "GrB_mxm failed (GrB_Info %d)", (int) info);
  gboolean ok = info == GrB_SUCCESS;
  ok &= unpack (peer, peer->C, C, peer->m * peer->n);
  unpack (peer, peer->B, (void *) B, 0);
  if (!ok)
    spx_peer_fill_nan (C, peer->m * peer->n);
}

static double
grb_once_ms (gpointer data)
{
  GrbPeer *peer = data;
  return peer->plain_ms;
}

static const char *
grb_failure (gpointer data)
{
  GrbPeer *peer = data;
  return peer->failure[0] != '\0' ? peer->failure : NULL;
}

static void
grb_free (gpointer data)
{
  GrbPeer *peer = data;
  GrB_Matrix_free (&peer->A);
  GrB_Matrix_free (&peer->B);
  GrB_Matrix_free (&peer->C);
  g_free (peer);
}

#else /* no GraphBLAS */

static const char *
grb_version (void)
{
  return "";
}

static gpointer
grb_make (const SpxPeerOperands *o, char *note, gsize note_size,
          GError **error)
{
  g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_UNSUPPORTED,
               "not built: install libgraphblas-dev and rebuild");
  return NULL;
}

#define grb_prepare NULL
#define grb_failure NULL
#define grb_once_ms NULL

static void
grb_run (gpointer data, const float *B, float *C)
{
  g_assert_not_reached ();
}

static void
grb_free (gpointer data)
{
}
#endif

const SpxPeerClass spx_peer_graphblas = {
  SPX_PEER_GRAPHBLAS, grb_make, grb_prepare, grb_run, grb_failure,
  grb_once_ms, grb_free, grb_version,
};
