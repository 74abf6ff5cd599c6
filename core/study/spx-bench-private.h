/* spx-bench-private.h: the peers the benchmark can compare against */
#pragma once

#include "spx-bench.h"

G_BEGIN_DECLS

/* What an in-process peer is made from: A as blocks (values in block
 * order, edge elements outside m×k zero) and as a dense m×k row-major
 * array (LIBXSMM builds its own slices from that), B's width n, the
 * threads to run on, and a B (k×n) for a trial run when making it (the
 * runs get theirs). */
typedef struct {
  const SpxBlockCsr *csr;
  const float       *values;
  const float       *A;
  guint64            n;
  guint              threads;
  const float       *B;
} SpxPeerOperands;

/* A peer run in this process, alternating with ours: made once (its
 * plan, not timed), run many times, freed. */
typedef struct {
  SpxPeerId   id;
  /* NULL with error set (SPX_ENGINE_ERROR_UNSUPPORTED when the build
   * does not have it: the message says what to install); else note gets
   * how it runs (its path, how its threads were set). */
  gpointer    (*make)    (const SpxPeerOperands *o, char *note,
                          gsize note_size, GError **error);
  /* Before every run, outside the timing; NULL for none. */
  void        (*prepare) (gpointer peer, float *C);
  /* C (m×n, row-major) = A·B (B k×n, row-major). */
  void        (*run)     (gpointer peer, const float *B, float *C);
  /* Why a run failed (its C is then NaN), or NULL. */
  const char *(*failure) (gpointer peer);
  /* A variant of its call timed once when made, shown beside (ms; < 0
   * for none); NULL: none. */
  double      (*once_ms) (gpointer peer);
  void        (*free)    (gpointer peer);
  /* "librsb 1.3.0.2"; "" when not built. */
  const char *(*version) (void);
} SpxPeerClass;

extern const SpxPeerClass spx_peer_librsb;
extern const SpxPeerClass spx_peer_libxsmm;
extern const SpxPeerClass spx_peer_graphblas;
extern const SpxPeerClass spx_peer_eigen;

/* The in-process peers, by id (SPX_PEER_LIBRSB … SPX_N_IN_PROCESS - 1);
 * NULL for the runner's. */
const SpxPeerClass *spx_peer_class (SpxPeerId id);

/* A by element, row by row, inside m×k: what most libraries take. */
typedef struct {
  guint64  m, k, nnz;
  gint64  *indptr;   /* m + 1 */
  gint32  *indices;  /* nnz columns, increasing in each row */
  float   *values;   /* nnz */
} SpxElementCsr;

/* Expand the blocks (edge elements outside m×k dropped), against the
 * memory budget (what: whose copy it is, for the message). */
gboolean spx_element_csr_init  (SpxElementCsr *out, const SpxBlockCsr *csr,
                                const float *values, const char *what,
                                GError **error);
void     spx_element_csr_clear (SpxElementCsr *csr);

/* Fill the note; NaN in C: what a failed run leaves. */
void     spx_peer_set_note     (char *note, gsize size, const char *format,
                                ...) G_GNUC_PRINTF (3, 4);
void     spx_peer_fill_nan     (float *C, guint64 len);

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

/* Every contestant but dense: ours, then the peers. */
#define SPX_BENCH_SPARSE_TIMINGS (3 + SPX_N_PEERS)
static inline void
_spx_bench_sparse_timings (SpxBenchResult *r, SpxBenchTiming **out)
{
  out[0] = &r->stat;
  out[1] = &r->dyn;
  out[2] = &r->tilewise;
  for (guint i = 0; i < SPX_N_PEERS; i++)
    out[3 + i] = &r->peers[i].t;
}

G_END_DECLS
