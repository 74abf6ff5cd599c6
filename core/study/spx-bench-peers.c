/* spx-bench-peers.c: other libraries' SpMM, for comparison (optional) */
#include "spx-config.h"
#include "spx-bench-private.h"
#include "spx-json.h"
#include "spx-save.h"
#include "spx-util.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- what every in-process peer shares --------------------------------- */

/* Elements of A inside m×k, edge blocks cut. */
static guint64
count_elements (const SpxBlockCsr *csr)
{
  guint64 nnz = 0, b = csr->b;
  for (guint64 br = 0; br < csr->brows; br++)
    for (guint64 i = csr->row_offsets[br]; i < csr->row_offsets[br + 1]; i++)
      nnz += MIN (b, csr->m - br * b) *
             MIN (b, csr->k - csr->col_indices[i] * b);
  return nnz;
}

gboolean
spx_element_csr_init (SpxElementCsr *out, const SpxBlockCsr *csr,
                      const float *values, const char *what, GError **error)
{
  guint64 b = csr->b, z = 0, nnz = count_elements (csr);
  memset (out, 0, sizeof *out);
  out->m = csr->m;
  out->k = csr->k;
  out->nnz = nnz;
  out->indptr = spx_budget_alloc0 (csr->m + 1, sizeof (gint64), what, error);
  out->indices = out->indptr ? spx_budget_alloc0 (MAX (nnz, 1),
                                                  sizeof (gint32), what,
                                                  error) : NULL;
  out->values = out->indices ? spx_budget_alloc0 (MAX (nnz, 1),
                                                  sizeof (float), what,
                                                  error) : NULL;
  if (out->values == NULL)
    {
      spx_element_csr_clear (out);
      return FALSE;
    }
  for (guint64 row = 0; row < csr->m; row++)
    {
      guint64 br = row / b, r = row % b;
      for (guint64 i = csr->row_offsets[br]; i < csr->row_offsets[br + 1]; i++)
        for (guint64 c = 0; c < b && csr->col_indices[i] * b + c < csr->k; c++)
          {
            out->indices[z] = (gint32) (csr->col_indices[i] * b + c);
            out->values[z++] = values[(i * b + r) * b + c];
          }
      out->indptr[row + 1] = (gint64) z;
    }
  return TRUE;
}

void
spx_element_csr_clear (SpxElementCsr *csr)
{
  g_clear_pointer (&csr->indptr, g_free);
  g_clear_pointer (&csr->indices, g_free);
  g_clear_pointer (&csr->values, g_free);
}

void
spx_peer_set_note (char *note, gsize size, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  g_vsnprintf (note, size, format, args);
  va_end (args);
}

void
spx_peer_fill_nan (float *C, guint64 len)
{
  for (guint64 i = 0; i < len; i++)
    C[i] = NAN;
}

const SpxPeerClass *
spx_peer_class (SpxPeerId id)
{
  static const SpxPeerClass *const classes[SPX_PEER_FIRST_RUNNER] = {
    [SPX_PEER_LIBRSB] = &spx_peer_librsb,
    [SPX_PEER_LIBXSMM] = &spx_peer_libxsmm,
    [SPX_PEER_GRAPHBLAS] = &spx_peer_graphblas,
    [SPX_PEER_EIGEN] = &spx_peer_eigen,
  };
  return (guint) id < SPX_PEER_FIRST_RUNNER ? classes[id] : NULL;
}

/* ---- librsb ------------------------------------------------------------- */

#if SPX_HAVE_LIBRSB
#include <rsb.h>

typedef struct {
  struct rsb_mtx_t *mtx;
  guint64           n;
} RsbPeer;

gboolean
spx_bench_have_librsb (void)
{
  return TRUE;
}

static const char *
rsb_version (void)
{
  return "librsb " RSB_LIBRSB_VER_STRING;
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

static gpointer
rsb_make (const SpxPeerOperands *o, char *note, gsize note_size,
          GError **error)
{
  static gsize initialised = 0;
  const SpxBlockCsr *csr = o->csr;
  if (g_once_init_enter (&initialised))
    g_once_init_leave (&initialised, rsb_lib_init (RSB_NULL_INIT_OPTIONS) + 1);
  if (csr->m > G_MAXINT32 || csr->k > G_MAXINT32 || o->n > G_MAXINT32 ||
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
  expand_blocks (csr, o->values, IA, JA, VA, &nnz);
  rsb_int_t nt = (rsb_int_t) o->threads;
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
  RsbPeer *peer = g_new0 (RsbPeer, 1);
  peer->mtx = mtx;
  peer->n = o->n;
  spx_peer_set_note (note, note_size, "RSB_IO_WANT_EXECUTING_THREADS %u",
                     o->threads);
  return peer;
}

static void
rsb_run (gpointer data, const float *B, float *C)
{
  RsbPeer *peer = data;
  const float one = 1.0f, zero = 0.0f;
  rsb_coo_idx_t n = (rsb_coo_idx_t) peer->n;
  rsb_spmm (RSB_TRANSPOSITION_N, &one, peer->mtx, n,
            RSB_FLAG_WANT_ROW_MAJOR_ORDER, B, n, &zero, C, n);
}

static void
rsb_free (gpointer data)
{
  RsbPeer *peer = data;
  rsb_mtx_free (peer->mtx);
  g_free (peer);
}

#else /* no librsb */

gboolean
spx_bench_have_librsb (void)
{
  return FALSE;
}

static const char *
rsb_version (void)
{
  return "";
}

static gpointer
rsb_make (const SpxPeerOperands *o, char *note, gsize note_size,
          GError **error)
{
  g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_UNSUPPORTED,
               "not built: install librsb-dev and rebuild");
  return NULL;
}

static void
rsb_run (gpointer data, const float *B, float *C)
{
  g_assert_not_reached ();
}

static void
rsb_free (gpointer data)
{
}
#endif

const SpxPeerClass spx_peer_librsb = {
  SPX_PEER_LIBRSB, rsb_make, NULL, rsb_run, NULL, NULL, rsb_free,
  rsb_version,
};

/* ---- peers through the Python runner -------------------------------- */

#define RUNNER_NAME "spx-peers.py"

static const char *const peer_names[SPX_N_PEERS] = {
  "librsb", "libxsmm", "graphblas", "eigen", "torch-csr", "torch-dense",
  "scipy-csr", "scipy-bsr",
};

const char *
spx_peer_name (SpxPeerId id)
{
  return (guint) id < SPX_N_PEERS ? peer_names[id] : NULL;
}

char *
spx_peers_runner (void)
{
  const char *env = g_getenv ("SPX_PEERS_RUNNER");
  if (env != NULL && *env != '\0')
    return g_file_test (env, G_FILE_TEST_IS_REGULAR) ? g_strdup (env) : NULL;
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *bin = exe ? g_path_get_dirname (exe) : NULL;
  /* The program of the build runs its own source tree's runner, never one
   * installed from another version; an installed program, the install's,
   * found from the program (wherever the install was put) or at its prefix. */
  gboolean built = bin != NULL && g_str_equal (bin, SPX_PEERS_BUILD_APP_DIR);
  char *tries[] = {
    built ? g_build_filename (SPX_PEERS_SOURCE_DIR, RUNNER_NAME, NULL) : NULL,
    !built && bin && *SPX_PEERS_FROM_BINDIR
      ? g_build_filename (bin, SPX_PEERS_FROM_BINDIR, RUNNER_NAME, NULL)
      : NULL,
    !built ? g_build_filename (SPX_PEERS_DIR, RUNNER_NAME, NULL) : NULL,
  };
  char *found = NULL;
  for (guint i = 0; i < G_N_ELEMENTS (tries); i++)
    {
      if (found == NULL && tries[i] != NULL &&
          g_file_test (tries[i], G_FILE_TEST_IS_REGULAR))
        found = g_steal_pointer (&tries[i]);
      g_free (tries[i]);
    }
  return found;
}

static gboolean
write_raw (const char *dir, const char *name, gconstpointer data,
           gsize bytes, GError **error)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  return spx_save_file (path, data, bytes, SPX_SAVE_DEFAULT, error);
}

/* A by element, row by row: csr-indptr.i64, csr-indices.i32,
 * csr-values.f32. */
static gboolean
write_element_csr (const char *dir, const SpxBlockCsr *csr,
                   const float *values, GError **error)
{
  SpxElementCsr e;
  if (!spx_element_csr_init (&e, csr, values, "the runner's copy of A",
                             error))
    return FALSE;
  gboolean ok = write_raw (dir, "csr-indptr.i64", e.indptr,
                           (csr->m + 1) * sizeof (gint64), error) &&
                write_raw (dir, "csr-indices.i32", e.indices,
                           e.nnz * sizeof (gint32), error) &&
                write_raw (dir, "csr-values.f32", e.values,
                           e.nnz * sizeof (float), error);
  spx_element_csr_clear (&e);
  return ok;
}

static gboolean
write_problem (const char *dir, const SpxBlockCsr *csr, guint64 n,
               guint64 nnz, GError **error)
{
  SpxJson json;
  spx_json_init (&json);
  spx_json_begin_object (&json, NULL);
  spx_json_uint (&json, "m", csr->m);
  spx_json_uint (&json, "k", csr->k);
  spx_json_uint (&json, "n", n);
  spx_json_uint (&json, "b", csr->b);
  spx_json_uint (&json, "nnz", nnz);
  spx_json_uint (&json, "brows", csr->brows);
  spx_json_uint (&json, "bcols", csr->bcols);
  spx_json_uint (&json, "blocks", csr->n_blocks);
  spx_json_end_object (&json);
  g_autofree char *text = spx_json_finish (&json);
  return write_raw (dir, "problem.json", text, strlen (text), error);
}

gboolean
spx_peers_write (const char *dir, const SpxBlockCsr *csr, const float *values,
                 const float *B, guint64 n, GError **error)
{
  if (csr->k > G_MAXINT32)
    {
      g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID,
                   "k = %" G_GUINT64_FORMAT ": the runner's column indices "
                   "are 32-bit", csr->k);
      return FALSE;
    }
  guint64 nnz = count_elements (csr);
  gsize bb = (gsize) csr->b * csr->b;
  /* the block arrays are already in the runner's layout */
  G_STATIC_ASSERT (sizeof (guint64) == sizeof (gint64));
  return write_problem (dir, csr, n, nnz, error) &&
         write_element_csr (dir, csr, values, error) &&
         write_raw (dir, "bsr-indptr.i64", csr->row_offsets,
                    (csr->brows + 1) * sizeof (guint64), error) &&
         write_raw (dir, "bsr-indices.i32", csr->col_indices,
                    csr->n_blocks * sizeof (guint32), error) &&
         write_raw (dir, "bsr-values.f32", values,
                    csr->n_blocks * bb * sizeof (float), error) &&
         write_raw (dir, "b.f32", B, csr->k * n * sizeof (float), error);
}

void
spx_peers_remove_dir (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  for (const char *name; d != NULL && (name = g_dir_read_name (d)) != NULL;)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_unlink (path);
    }
  g_rmdir (dir);
}

static void note_v (SpxBenchPeer *out, gboolean failed, const char *format,
                    va_list args) G_GNUC_PRINTF (3, 0);

/* The note, cut to fit on a character boundary; failed: the peer ran
 * and its answer cannot be used. */
static void
note_v (SpxBenchPeer *out, gboolean failed, const char *format, va_list args)
{
  g_autofree char *text = g_strdup_vprintf (format, args);
  out->failed = failed;
  g_strlcpy (out->note, text, sizeof out->note);
  const char *end;
  g_utf8_validate (out->note, -1, &end);
  out->note[end - out->note] = '\0';
}

static void set_note (SpxBenchPeer *out, const char *format, ...)
  G_GNUC_PRINTF (2, 3);
static void set_failed (SpxBenchPeer *out, const char *format, ...)
  G_GNUC_PRINTF (2, 3);

/* Why it did not run. */
static void
set_note (SpxBenchPeer *out, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  note_v (out, FALSE, format, args);
  va_end (args);
}

/* Why what it ran is not a result. */
static void
set_failed (SpxBenchPeer *out, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  note_v (out, TRUE, format, args);
  va_end (args);
}

/* The last line of text with something on it, or NULL. */
static char *
last_line (const char *text)
{
  g_auto (GStrv) lines = g_strsplit (text ? text : "", "\n", -1);
  for (guint i = g_strv_length (lines); i > 0; i--)
    if (*g_strstrip (lines[i - 1]) != '\0')
      return g_strdup (lines[i - 1]);
  return NULL;
}

/* The runner's answer is one flat JSON object of numbers and ASCII
 * strings: the text after "key":, or NULL. */
static const char *
json_value (const char *line, const char *key)
{
  g_autofree char *quoted = g_strdup_printf ("\"%s\":", key);
  const char *p = strstr (line, quoted);
  if (p == NULL)
    return NULL;
  for (p += strlen (quoted); *p == ' '; p++)
    ;
  return p;
}

/* A number, NaN and Infinity (as Python writes them) included. */
static gboolean
json_number (const char *line, const char *key, double *out)
{
  const char *p = json_value (line, key);
  char *end = NULL;
  if (p == NULL)
    return FALSE;
  *out = g_ascii_strtod (p, &end);
  return end != p;
}

static gboolean
json_text (const char *line, const char *key, char *out, gsize size)
{
  const char *p = json_value (line, key);
  if (p == NULL || *p != '"' || size == 0)
    return FALSE;
  gsize n = 0;
  for (p++; *p != '\0' && *p != '"'; p++)
    {
      if (*p == '\\' && p[1] != '\0')
        p++; /* \" and \\ (other escapes keep their letter) */
      if (n + 1 < size)
        out[n++] = *p;
    }
  out[n] = '\0';
  return *p == '"';
}

/* C from the runner's c-NAME.f32, exactly m·n finite floats. */
static gboolean
read_product (const char *dir, SpxPeerId id, float *C, guint64 len,
              SpxBenchPeer *out)
{
  g_autofree char *name = g_strdup_printf ("c-%s.f32", spx_peer_name (id));
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *data = NULL;
  g_autoptr (GError) error = NULL;
  gsize bytes = 0;
  gboolean ok = spx_read_regular (path, "the runner's C", len * sizeof (float),
                                  &data, &bytes, &error);
  g_unlink (path);
  if (!ok)
    set_failed (out, "%s", error->message);
  else if (bytes != len * sizeof (float))
    set_failed (out, "the runner's C has %" G_GSIZE_FORMAT " bytes, expected %"
                G_GUINT64_FORMAT, bytes, len * sizeof (float));
  if (!ok || bytes != len * sizeof (float))
    return FALSE;
  memcpy (C, data, bytes);
  guint64 bad = 0;
  for (guint64 i = 0; i < len; i++)
    bad += !isfinite (C[i]);
  if (bad == 0)
    return TRUE;
  g_autofree char *count = spx_format_count (bad);
  g_autofree char *all = spx_format_count (len);
  set_failed (out, "the runner's C is not finite (NaN or infinite) in %s "
              "of its %s values", count, all);
  return FALSE;
}

/* Fill out from the runner's last line (and C from its file). */
static void
read_answer (const char *line, const char *dir, SpxPeerId id, float *C,
             guint64 len, SpxBenchPeer *out)
{
  double ms, q1, q3, threads;
  if (json_text (line, "skip", out->note, sizeof out->note))
    {
      if (out->note[0] == '\0')
        set_note (out, "the runner skipped it without saying why");
      return;
    }
  if (!json_number (line, "ms", &ms) || !json_number (line, "q1", &q1) ||
      !json_number (line, "q3", &q3) ||
      !json_number (line, "threads", &threads))
    {
      set_failed (out, "the runner's answer makes no sense: %.120s", line);
      return;
    }
  if (!isfinite (ms) || !isfinite (q1) || !isfinite (q3) ||
      !isfinite (threads))
    {
      set_failed (out, "the runner's times are not finite numbers: %.120s",
                  line);
      return;
    }
  if (!(ms > 0) || q1 > ms || ms > q3 || threads < 1 || threads > G_MAXUINT)
    {
      set_failed (out, "the runner's answer makes no sense: %.120s", line);
      return;
    }
  if (!read_product (dir, id, C, len, out))
    return;
  out->t.ran = TRUE;
  out->t.ms = ms;
  out->t.ms_q1 = q1;
  out->t.ms_q3 = q3;
  out->threads = (guint) threads;
  json_text (line, "note", out->note, sizeof out->note);
  json_text (line, "version", out->version, sizeof out->version);
}

static char *
find_python (void)
{
  const char *env = g_getenv ("SPX_PYTHON");
  return g_find_program_in_path (env != NULL && *env != '\0' ? env
                                                             : "python3");
}

/* ---- the runner's process, bounded in time and output ------------------ */

typedef enum {
  RUNNER_NOT_STARTED,
  RUNNER_EXITED,
  RUNNER_TIMED_OUT,
  RUNNER_FLOODED,
  RUNNER_CANCELLED,
} RunnerEnd;

typedef struct {
  GPid     pid;
  int      fd[2];   /* its stdout and stderr; -1 once at their end */
  GString *text[2];
  gsize    max;     /* the most both may hold together */
} Runner;

static gsize
output_max (void)
{
  const char *env = g_getenv (SPX_PEERS_OUTPUT_MAX_ENV);
  guint64 v;
  return env != NULL && g_ascii_string_to_unsigned (env, 10, 1, G_MAXSIZE,
                                                    &v, NULL)
           ? (gsize) v : SPX_PEERS_OUTPUT_MAX_DEFAULT;
}

/* In the child, before exec: a process group of its own, so that stopping
 * it stops whatever it started too, and a terminal's Ctrl-C reaches only
 * us (we stop it). */
static void
own_group (gpointer data)
{
  setpgid (0, 0);
}

static gboolean
runner_start (Runner *r, const char *const *argv, guint threads,
              GError **error)
{
  g_autofree char *t = g_strdup_printf ("%u", threads);
  char **env = g_get_environ ();
  /* read by the libraries' thread pools as they start */
  env = g_environ_setenv (env, "OMP_NUM_THREADS", t, TRUE);
  env = g_environ_setenv (env, "OPENBLAS_NUM_THREADS", t, TRUE);
  r->fd[0] = r->fd[1] = -1;
  r->text[0] = g_string_new (NULL);
  r->text[1] = g_string_new (NULL);
  r->max = output_max ();
  gboolean ok = g_spawn_async_with_pipes (NULL, (char **) argv, env,
                                          G_SPAWN_DO_NOT_REAP_CHILD,
                                          own_group, NULL, &r->pid, NULL,
                                          &r->fd[0], &r->fd[1], error);
  g_strfreev (env);
  return ok;
}

/* What pipe i holds now, kept; FALSE when that goes over the cap. */
static gboolean
runner_read (Runner *r, guint i)
{
  char buf[16384];
  gsize room = r->max - r->text[0]->len - r->text[1]->len;
  /* one byte past the room tells that it is over */
  gssize got = read (r->fd[i], buf, room < sizeof buf ? room + 1
                                                      : sizeof buf);
  if (got < 0 && (errno == EINTR || errno == EAGAIN))
    return TRUE;
  if (got <= 0)
    {
      close (r->fd[i]);
      r->fd[i] = -1;
      return TRUE;
    }
  if ((gsize) got > room)
    return FALSE;
  g_string_append_len (r->text[i], buf, got);
  return TRUE;
}

/* Whether it has exited, left unreaped so that its process group stays
 * ours until it is stopped. */
static gboolean
runner_exited (const Runner *r)
{
  siginfo_t info;
  memset (&info, 0, sizeof info);
  int rc = waitid (P_PID, r->pid, &info, WEXITED | WNOHANG | WNOWAIT);
  return rc == 0 ? info.si_pid == r->pid : errno == ECHILD;
}

/* Read its output until it has exited and said all it had to say, or the
 * deadline, the cap or a cancellation comes first. cancel: the
 * cancellable's descriptor, or fd -1. Looks every 100 ms whether it
 * exited, in case what it started keeps its pipes open. */
static RunnerEnd
runner_watch (Runner *r, gint64 deadline, GCancellable *cancellable,
              GPollFD cancel)
{
  for (;;)
    {
      if (g_cancellable_is_cancelled (cancellable))
        return RUNNER_CANCELLED;
      gboolean gone = runner_exited (r);
      gint64 left = deadline - g_get_monotonic_time ();
      if (left <= 0)
        return gone ? RUNNER_EXITED : RUNNER_TIMED_OUT;
      GPollFD fds[3];
      guint n = 0;
      for (guint i = 0; i < 2; i++)
        if (r->fd[i] >= 0)
          fds[n++] = (GPollFD) { r->fd[i], G_IO_IN, 0 };
      if (n == 0 && gone)
        return RUNNER_EXITED;
      fds[n] = cancel;
      int ready = g_poll (fds, n + (cancel.fd >= 0),
                          gone ? 0 : (int) MIN ((left + 999) / 1000, 100));
      if (ready == 0 && gone)
        return RUNNER_EXITED; /* nothing more waiting */
      for (guint i = 0; i < n; i++)
        if (fds[i].revents != 0 &&
            !runner_read (r, fds[i].fd == r->fd[0] ? 0 : 1))
          return RUNNER_FLOODED;
    }
}

/* Stop its process group (its leader may be a zombie: the group is still
 * ours), then reap it: its exit status, or -1 when a signal ended it. */
static int
runner_stop (Runner *r)
{
  int status = 0;
  pid_t got;
  kill (-r->pid, SIGKILL);
  while ((got = waitpid (r->pid, &status, 0)) < 0 && errno == EINTR)
    ;
  for (guint i = 0; i < 2; i++)
    if (r->fd[i] >= 0)
      close (r->fd[i]);
  return got == r->pid && WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

/* Run argv within timeout_s seconds and the output cap: how it ended
 * (error set when it did not start), its exit status and output. */
static RunnerEnd
runner_run (const char *const *argv, guint threads, guint timeout_s,
            int *status, char **out, char **err, GError **error)
{
  Runner r;
  if (!runner_start (&r, argv, threads, error))
    {
      g_string_free (r.text[0], TRUE);
      g_string_free (r.text[1], TRUE);
      return RUNNER_NOT_STARTED;
    }
  GCancellable *cancellable = g_cancellable_get_current ();
  GPollFD cancel = { -1, G_IO_IN, 0 };
  gboolean polled = cancellable != NULL &&
                    g_cancellable_make_pollfd (cancellable, &cancel);
  gint64 deadline = g_get_monotonic_time () +
                    (gint64) timeout_s * G_USEC_PER_SEC;
  RunnerEnd end = runner_watch (&r, deadline, cancellable, cancel);
  if (polled)
    g_cancellable_release_fd (cancellable);
  *status = runner_stop (&r);
  *out = g_string_free (r.text[0], FALSE);
  *err = g_string_free (r.text[1], FALSE);
  return end;
}

gboolean
spx_peer_run_external (const char *runner, const char *dir, SpxPeerId id,
                       guint threads, guint warmup, guint reps,
                       guint timeout_s, float *C, guint64 m, guint64 n,
                       SpxBenchPeer *out, GError **error)
{
  g_autofree char *python = find_python ();
  if (runner == NULL || python == NULL)
    {
      set_note (out, runner == NULL
                       ? "the runner " RUNNER_NAME " was not found (set "
                         "SPX_PEERS_RUNNER to its path)"
                       : "python3 was not found (install it, or set "
                         "SPX_PYTHON)");
      return TRUE;
    }
  if (spx_cancelled (error))
    return FALSE;
  g_autofree char *t = g_strdup_printf ("%u", threads);
  g_autofree char *r = g_strdup_printf ("%u", reps);
  g_autofree char *w = g_strdup_printf ("%u", warmup);
  const char *argv[] = { python, runner, "--peer", spx_peer_name (id),
                         "--threads", t, "--reps", r, "--warmup", w, dir,
                         NULL };
  g_autofree char *so = NULL, *se = NULL;
  g_autoptr (GError) local = NULL;
  int status = 0;
  switch (runner_run (argv, threads, timeout_s, &status, &so, &se, &local))
    {
    case RUNNER_NOT_STARTED:
      set_failed (out, "the runner did not start: %s", local->message);
      return TRUE;
    case RUNNER_CANCELLED:
      return !spx_cancelled (error);
    case RUNNER_TIMED_OUT:
      set_failed (out, "stopped after %u s (the limit per peer)", timeout_s);
      return TRUE;
    case RUNNER_FLOODED:
      {
        g_autofree char *max = spx_format_bytes (output_max ());
        set_failed (out, "stopped: it printed more than %s (the limit, "
                    SPX_PEERS_OUTPUT_MAX_ENV ")", max);
        return TRUE;
      }
    case RUNNER_EXITED:
      break;
    }
  g_autofree char *line = last_line (so);
  g_autofree char *why = last_line (se);
  g_autofree char *how = status < 0 ? g_strdup ("killed")
                                     : g_strdup_printf ("exit %d", status);
  if (status != 0 || line == NULL)
    set_failed (out, "the runner failed (%s): %s", how,
                why ? why : "it said nothing");
  else
    read_answer (line, dir, id, C, m * n, out);
  return TRUE;
}
