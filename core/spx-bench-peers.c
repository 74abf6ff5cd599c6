/* spx-bench-peers.c: other libraries' SpMM, for comparison (optional) */
#include "spx-config.h"
#include "spx-bench-private.h"
#include "spx-json.h"
#include "spx-util.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

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

const char *
spx_peer_librsb_version (void)
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

const char *
spx_peer_librsb_version (void)
{
  return "";
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

/* ---- peers through the Python runner -------------------------------- */

#define RUNNER_NAME "spx-peers.py"

static const char *const peer_names[SPX_N_PEERS] = {
  "librsb", "torch-csr", "torch-dense", "scipy-csr", "scipy-bsr",
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
  if (exe == NULL)
    return NULL;
  g_autofree char *dir = g_path_get_dirname (exe);
  /* installed beside the program; or build/app/ in the source tree */
  char *tries[] = {
    g_build_filename (dir, RUNNER_NAME, NULL),
    g_build_filename (dir, "..", "..", "tests", "peers", RUNNER_NAME, NULL),
  };
  char *found = NULL;
  for (guint i = 0; i < G_N_ELEMENTS (tries); i++)
    {
      if (found == NULL && g_file_test (tries[i], G_FILE_TEST_IS_REGULAR))
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
  return g_file_set_contents_full (path, data, (gssize) bytes,
                                   G_FILE_SET_CONTENTS_NONE, 0600, error);
}

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

/* A by element, row by row: csr-indptr.i64, csr-indices.i32,
 * csr-values.f32. */
static gboolean
write_element_csr (const char *dir, const SpxBlockCsr *csr,
                   const float *values, guint64 nnz, GError **error)
{
  guint64 b = csr->b, z = 0;
  g_autofree gint64 *indptr = spx_budget_alloc0 (csr->m + 1, sizeof (gint64),
                                                 "the runner's copy of A",
                                                 error);
  g_autofree gint32 *indices = indptr ? spx_budget_alloc0 (
    nnz, sizeof (gint32), "the runner's copy of A", error) : NULL;
  g_autofree float *v = indices ? spx_budget_alloc0 (
    nnz, sizeof (float), "the runner's copy of A", error) : NULL;
  if (v == NULL)
    return FALSE;
  for (guint64 row = 0; row < csr->m; row++)
    {
      guint64 br = row / b, r = row % b;
      for (guint64 i = csr->row_offsets[br]; i < csr->row_offsets[br + 1]; i++)
        for (guint64 c = 0; c < b && csr->col_indices[i] * b + c < csr->k; c++)
          {
            indices[z] = (gint32) (csr->col_indices[i] * b + c);
            v[z++] = values[(i * b + r) * b + c];
          }
      indptr[row + 1] = (gint64) z;
    }
  return write_raw (dir, "csr-indptr.i64", indptr,
                    (csr->m + 1) * sizeof (gint64), error) &&
         write_raw (dir, "csr-indices.i32", indices, nnz * sizeof (gint32),
                    error) &&
         write_raw (dir, "csr-values.f32", v, nnz * sizeof (float), error);
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
         write_element_csr (dir, csr, values, nnz, error) &&
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

static void set_note (SpxBenchPeer *out, const char *format, ...)
  G_GNUC_PRINTF (2, 3);

/* The note, cut to fit on a character boundary. */
static void
set_note (SpxBenchPeer *out, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  g_autofree char *text = g_strdup_vprintf (format, args);
  va_end (args);
  g_strlcpy (out->note, text, sizeof out->note);
  const char *end;
  g_utf8_validate (out->note, -1, &end);
  out->note[end - out->note] = '\0';
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

static gboolean
json_number (const char *line, const char *key, double *out)
{
  const char *p = json_value (line, key);
  char *end = NULL;
  if (p == NULL)
    return FALSE;
  *out = g_ascii_strtod (p, &end);
  return end != p && isfinite (*out);
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

/* C from the runner's c-NAME.f32, exactly m·n floats. */
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
    set_note (out, "%s", error->message);
  else if (bytes != len * sizeof (float))
    set_note (out, "the runner's C has %" G_GSIZE_FORMAT " bytes, expected %"
              G_GUINT64_FORMAT, bytes, len * sizeof (float));
  else
    memcpy (C, data, bytes);
  return ok && bytes == len * sizeof (float);
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
      !json_number (line, "threads", &threads) || !(ms > 0) || q1 > ms ||
      ms > q3 || threads < 1 || threads > G_MAXUINT)
    {
      set_note (out, "the runner's answer makes no sense: %.120s", line);
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

/* Run argv to the end, its threads capped; FALSE with an error when it
 * could not start or the wait was cancelled (then it is killed). */
static gboolean
spawn (const char *const *argv, guint threads, char **out, char **err,
       int *status, GError **error)
{
  g_autoptr (GSubprocessLauncher) launcher = g_subprocess_launcher_new (
    G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_autofree char *t = g_strdup_printf ("%u", threads);
  /* read by the libraries' thread pools as they start */
  g_subprocess_launcher_setenv (launcher, "OMP_NUM_THREADS", t, TRUE);
  g_subprocess_launcher_setenv (launcher, "OPENBLAS_NUM_THREADS", t, TRUE);
  g_autoptr (GSubprocess) proc = g_subprocess_launcher_spawnv (launcher,
                                                               argv, error);
  if (proc == NULL)
    return FALSE;
  if (!g_subprocess_communicate_utf8 (proc, NULL, g_cancellable_get_current (),
                                      out, err, error))
    {
      g_subprocess_force_exit (proc);
      return FALSE;
    }
  *status = g_subprocess_get_if_exited (proc)
              ? g_subprocess_get_exit_status (proc) : -1;
  return TRUE;
}

gboolean
spx_peer_run_external (const char *runner, const char *dir, SpxPeerId id,
                       guint threads, guint warmup, guint reps, float *C,
                       guint64 m, guint64 n, SpxBenchPeer *out,
                       GError **error)
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
  g_autofree char *t = g_strdup_printf ("%u", threads);
  g_autofree char *r = g_strdup_printf ("%u", reps);
  g_autofree char *w = g_strdup_printf ("%u", warmup);
  const char *argv[] = { python, runner, "--peer", spx_peer_name (id),
                         "--threads", t, "--reps", r, "--warmup", w, dir,
                         NULL };
  g_autofree char *so = NULL, *se = NULL;
  g_autoptr (GError) local = NULL;
  int status = 0;
  if (!spawn (argv, threads, &so, &se, &status, &local))
    {
      if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_CANCELLED) &&
          spx_cancelled (error))
        return FALSE;
      set_note (out, "the runner did not run: %s", local->message);
      return TRUE;
    }
  g_autofree char *line = last_line (so);
  g_autofree char *why = last_line (se);
  g_autofree char *how = status < 0 ? g_strdup ("killed")
                                     : g_strdup_printf ("exit %d", status);
  if (status != 0 || line == NULL)
    set_note (out, "the runner failed (%s): %s", how,
              why ? why : "it said nothing");
  else
    read_answer (line, dir, id, C, m * n, out);
  return TRUE;
}
