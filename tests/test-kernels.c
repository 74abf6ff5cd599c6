/* test-kernels.c: every instruction set's micro-kernels and the
 * single-thread executor against a reference summed in double, over block
 * sizes, ragged shapes, widths n, strides and accumulate. Buffers are
 * allocated to the exact last element used (no padding after the last
 * row), so that AddressSanitizer catches a load or store past the end;
 * the gaps between rows (ld > n) hold a sentinel that must survive. */
#include "spx-kernels-private.h"

#include <math.h>
#include <string.h>

#define SENTINEL 12345.0f

typedef enum {
  SHAPE_MULTIPLE, /* m, k multiples of b, random blocks */
  SHAPE_RAGGED,   /* m, k not multiples of b; edge blocks present */
  SHAPE_EMPTY,    /* a block-row without blocks */
  SHAPE_FULL,     /* every block-column in every block-row, ragged k */
  SHAPE_SINGLE,   /* one block */
} Shape;

static const char *const shape_names[] = {
  "multiple", "ragged", "empty-row", "full-row", "single-block",
};

static const guint block_sizes[] = { 1, 2, 3, 4, 5, 8, 16, 32 };

/* A block-sparse A in block CSR form, values b×b per block. */
typedef struct {
  guint64  m, k;
  guint    b;
  guint64  brows, bcols;
  guint64 *row_offsets;
  guint32 *cols;
  float   *values;
} Sparse;

typedef struct {
  SpxIsa isa;
  guint  b;
  Shape  shape;
} Case;

static void
sparse_free (Sparse *a)
{
  g_free (a->row_offsets);
  g_free (a->cols);
  g_free (a->values);
  g_free (a);
}

static gboolean
block_wanted (Shape shape, guint64 br, guint64 bc, const Sparse *a,
              GRand *rng)
{
  switch (shape)
    {
    case SHAPE_EMPTY:
      return br != 1 && g_rand_boolean (rng);
    case SHAPE_FULL:
    case SHAPE_SINGLE:
      return TRUE;
    case SHAPE_RAGGED:
      /* Always reach the ragged corner so edge blocks get exercised. */
      if (bc == a->bcols - 1 && (br == 0 || br == a->brows - 1))
        return TRUE;
      return g_rand_boolean (rng);
    case SHAPE_MULTIPLE:
    default:
      return (br + bc) % 3 == 0 || g_rand_boolean (rng);
    }
}

static Sparse *
sparse_new (guint b, Shape shape, GRand *rng)
{
  Sparse *a = g_new0 (Sparse, 1);
  a->b = b;
  switch (shape)
    {
    case SHAPE_RAGGED:
      a->m = 3 * b - b / 2 + (b == 1);
      a->k = 5 * b - (b + 1) / 2 + (b == 1);
      break;
    case SHAPE_FULL:
      a->m = 2 * b;
      a->k = 6 * b + b / 2;
      break;
    case SHAPE_SINGLE:
      a->m = a->k = b;
      break;
    default:
      a->m = 3 * b;
      a->k = 5 * b;
    }
  a->brows = (a->m + b - 1) / b;
  a->bcols = (a->k + b - 1) / b;
  a->row_offsets = g_new0 (guint64, a->brows + 1);
  a->cols = g_new (guint32, a->brows * a->bcols);

  guint64 n = 0;
  for (guint64 br = 0; br < a->brows; br++)
    {
      for (guint64 bc = 0; bc < a->bcols; bc++)
        if (block_wanted (shape, br, bc, a, rng))
          a->cols[n++] = (guint32) bc;
      a->row_offsets[br + 1] = n;
    }
  a->values = g_new (float, MAX (n * b * b, 1));
  for (guint64 i = 0; i < n * b * b; i++)
    a->values[i] = (float) g_rand_double_range (rng, -1.0, 1.0);
  return a;
}

/* The work items the plans would build: the ragged last block-column
 * goes to the edge block. b_offsets must outlive the work. */
static SpxRowWork *
sparse_work (const Sparse *a, guint64 ldb, guint32 **b_offsets)
{
  SpxRowWork *work = g_new0 (SpxRowWork, a->brows);
  guint64 n_all = a->row_offsets[a->brows];
  guint kw_last = (guint) (a->k - (a->bcols - 1) * a->b);
  gsize bb = (gsize) a->b * a->b;

  *b_offsets = g_new (guint32, MAX (n_all, 1));
  for (guint64 i = 0; i < n_all; i++)
    (*b_offsets)[i] = (guint32) (a->cols[i] * (guint64) a->b * ldb);
  for (guint64 br = 0; br < a->brows; br++)
    {
      SpxRowWork *w = &work[br];
      guint64 first = a->row_offsets[br], n = a->row_offsets[br + 1] - first;
      w->c_row = br * a->b;
      w->task.b = a->b;
      w->task.rows = (guint) MIN ((guint64) a->b, a->m - br * a->b);
      w->task.values = a->values + first * bb;
      w->task.b_offsets = *b_offsets + first;
      if (n > 0 && kw_last < a->b && a->cols[first + n - 1] == a->bcols - 1)
        {
          n--;
          w->edge_values = a->values + (first + n) * bb;
          w->edge_kw = kw_last;
          w->edge_b_offset = (*b_offsets)[first + n];
        }
      w->task.n_blocks = (guint) n;
    }
  return work;
}

/* ref = (accumulate ? C0 : 0) + A·B in double, and mag the sum of the
 * magnitudes, for the error bound. Without edges, ragged blocks are
 * left out (what a lone kernel computes). */
static void
reference (const Sparse *a, const float *B, guint64 ldb, const float *C0,
           guint64 ldc, guint64 n, gboolean accumulate, gboolean edges,
           double *ref, double *mag)
{
  guint b = a->b;
  for (guint64 i = 0; i < a->m; i++)
    for (guint64 x = 0; x < n; x++)
      {
        double c0 = accumulate ? C0[i * ldc + x] : 0.0;
        ref[i * n + x] = c0;
        mag[i * n + x] = fabs (c0);
      }
  for (guint64 br = 0; br < a->brows; br++)
    for (guint64 j = a->row_offsets[br]; j < a->row_offsets[br + 1]; j++)
      {
        guint64 col0 = a->cols[j] * (guint64) b;
        guint kw = (guint) MIN ((guint64) b, a->k - col0);
        if (kw < b && !edges)
          continue;
        for (guint r = 0; r < b && br * b + r < a->m; r++)
          for (guint kk = 0; kk < kw; kk++)
            {
              double v = a->values[j * b * b + r * b + kk];
              const float *brow = B + (col0 + kk) * ldb;
              double *out = ref + (br * b + r) * n, *m = mag + (br * b + r) * n;
              for (guint64 x = 0; x < n; x++)
                {
                  out[x] += v * brow[x];
                  m[x] += fabs (v * brow[x]);
                }
            }
      }
}

/* Rows of C must match; the gaps between rows must hold the sentinel. */
static void
check (const float *C, guint64 ldc, guint64 m, guint64 n, const double *ref,
       const double *mag, const char *what)
{
  for (guint64 i = 0; i < m; i++)
    {
      for (guint64 x = 0; x < n; x++)
        {
          double err = fabs (C[i * ldc + x] - ref[i * n + x]);
          if (!(err <= 1e-5 * mag[i * n + x] + 1e-30))
            g_error ("%s: C[%" G_GUINT64_FORMAT "][%" G_GUINT64_FORMAT
                     "] = %.9g, expected %.9g", what, i, x,
                     C[i * ldc + x], ref[i * n + x]);
        }
      for (guint64 x = n; x < ldc && i + 1 < m; x++)
        if (C[i * ldc + x] != SENTINEL)
          g_error ("%s: C[%" G_GUINT64_FORMAT "][%" G_GUINT64_FORMAT
                   "] past n was overwritten", what, i, x);
    }
}

/* rows × ld floats up to the last one used ((rows-1)·ld + n): random
 * values, the sentinel in the gaps when gaps. */
static float *
new_matrix (guint64 rows, guint64 ld, guint64 n, GRand *rng, gboolean gaps)
{
  gsize len = (gsize) ((rows - 1) * ld + n);
  float *p = g_new (float, len);
  for (gsize i = 0; i < len; i++)
    p[i] = (gaps && i % ld >= n) ? SENTINEL
                                 : (float) g_rand_double_range (rng, -1, 1);
  return p;
}

/* Each block-row through the kernel alone (edge blocks left out). */
static void
run_kernels (SpxSpmmKernel kernel, const SpxRowWork *work, gsize n_work,
             const float *B, guint64 ldb, float *C, guint64 ldc, guint64 n,
             gboolean accumulate)
{
  for (gsize i = 0; i < n_work; i++)
    kernel (&work[i].task, B, ldb, C + work[i].c_row * ldc, ldc, n,
            accumulate);
}

static SpxSpmmKernel
any_kernel (SpxIsa isa)
{
  switch (isa)
    {
    case SPX_ISA_AVX512:
      return spx_kernel_spmm_avx512_any ();
    case SPX_ISA_AVX2:
      return spx_kernel_spmm_avx2_any ();
    case SPX_ISA_GENERIC:
    default:
      return spx_kernel_spmm_generic_any ();
    }
}

static void
test_one (const Case *tc, const Sparse *a, guint64 n, guint64 pad,
          gboolean accumulate, GRand *rng)
{
  guint64 ldb = n + pad, ldc = n + 2 * pad;
  gsize c_len = (gsize) ((a->m - 1) * ldc + n);
  g_autofree guint32 *b_offsets = NULL;
  g_autofree SpxRowWork *work = sparse_work (a, ldb, &b_offsets);
  g_autofree float *B = new_matrix (a->k, ldb, n, rng, FALSE);
  g_autofree float *C0 = new_matrix (a->m, ldc, n, rng, TRUE);
  g_autofree float *C = g_new (float, c_len);
  g_autofree double *ref = g_new (double, a->m * n);
  g_autofree double *mag = g_new (double, a->m * n);
  g_autofree char *what = NULL;
  /* The executor's own blocking, then forced chunk widths and panel
   * heights (0: the executor's choice). */
  const guint64 blocking[][2] = { { 0, 0 }, { 16, G_MAXUINT64 }, { 48, 1 },
                                  { 1, 2 * a->b }, { n, 3 * a->b + 1 } };

  reference (a, B, ldb, C0, ldc, n, accumulate, TRUE, ref, mag);
  for (guint i = 0; i < G_N_ELEMENTS (blocking); i++)
    {
      memcpy (C, C0, c_len * sizeof (float));
      if (blocking[i][0] == 0)
        spx_kernel_run (tc->isa, work, a->brows, B, ldb, C, ldc, n,
                        accumulate);
      else
        spx_kernel_run_blocked (tc->isa, work, a->brows, B, ldb, C, ldc, n,
                                accumulate, blocking[i][0], blocking[i][1]);
      what = g_strdup_printf ("run nc=%" G_GUINT64_FORMAT " kp=%"
                              G_GUINT64_FORMAT " n=%" G_GUINT64_FORMAT
                              " pad=%" G_GUINT64_FORMAT " acc=%d",
                              blocking[i][0], blocking[i][1], n, pad,
                              accumulate);
      check (C, ldc, a->m, n, ref, mag, what);
      g_clear_pointer (&what, g_free);
    }

  /* The kernels alone, the specialised one and the generic-b one. */
  reference (a, B, ldb, C0, ldc, n, accumulate, FALSE, ref, mag);
  SpxSpmmKernel kernels[] = { spx_kernel_spmm (tc->isa, a->b),
                              any_kernel (tc->isa) };
  for (guint i = 0; i < G_N_ELEMENTS (kernels); i++)
    {
      memcpy (C, C0, c_len * sizeof (float));
      run_kernels (kernels[i], work, a->brows, B, ldb, C, ldc, n, accumulate);
      what = g_strdup_printf ("%s kernel n=%" G_GUINT64_FORMAT " pad=%"
                              G_GUINT64_FORMAT " acc=%d",
                              i == 0 ? "specialised" : "generic-b", n, pad,
                              accumulate);
      check (C, ldc, a->m, n, ref, mag, what);
      g_clear_pointer (&what, g_free);
    }
}

static void
test_case (gconstpointer data)
{
  const Case *tc = data;
  const guint64 widths[] = { 1, 17, 64, 255 };

  if (!spx_isa_supported (tc->isa))
    {
      g_autofree char *why = g_strdup_printf ("this processor does not "
                                              "run %s",
                                              spx_isa_to_string (tc->isa));
      g_test_skip (why);
      return;
    }
  g_autoptr (GRand) rng = g_rand_new_with_seed (tc->b * 131 + tc->shape);
  Sparse *a = sparse_new (tc->b, tc->shape, rng);
  for (guint i = 0; i < G_N_ELEMENTS (widths); i++)
    for (guint64 pad = 0; pad <= 5; pad += 5)
      for (int accumulate = 0; accumulate <= 1; accumulate++)
        test_one (tc, a, widths[i], pad, accumulate, rng);
  sparse_free (a);
}

/* A lone edge block against the reference, with rows < b. */
static void
test_edge (void)
{
  g_autoptr (GRand) rng = g_rand_new_with_seed (7);
  const guint b = 8, rows = 5, kw = 3;
  const guint64 n = 19, ldb = 23, ldc = 21;
  g_autofree float *values = new_matrix (b, b, b, rng, FALSE);
  g_autofree float *B = new_matrix (kw, ldb, n, rng, FALSE);
  g_autofree float *C = new_matrix (rows, ldc, n, rng, TRUE);
  g_autofree float *C0 = g_memdup2 (C, ((rows - 1) * ldc + n) * sizeof (float));

  spx_kernel_edge (b, rows, kw, values, B, ldb, C, ldc, n);
  for (guint r = 0; r < rows; r++)
    for (guint64 x = 0; x < n; x++)
      {
        double want = C0[r * ldc + x];
        for (guint kk = 0; kk < kw; kk++)
          want += (double) values[r * b + kk] * B[kk * ldb + x];
        g_assert_cmpfloat_with_epsilon (C[r * ldc + x], want, 1e-5);
      }
}

/* Chunks even out and stay whole tiles; narrow n is one chunk. */
static void
test_chunk_width (void)
{
  guint32 offsets[] = { 0, 2047u * 512 };
  SpxRowWork w = { .task = { .b = 1, .rows = 1, .n_blocks = 2,
                              .b_offsets = offsets } };
  guint64 nc = spx_kernel_chunk_width (&w, 1, 512, 512);

  g_assert_cmpuint (nc, >=, 64);
  g_assert_cmpuint (nc, <=, 512);
  g_assert_cmpuint (nc % 64 == 0 || nc == 512, ==, TRUE);
  g_assert_cmpuint (spx_kernel_chunk_width (&w, 1, 512, 17), ==, 17);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  for (SpxIsa isa = SPX_ISA_GENERIC; isa <= SPX_ISA_AVX512; isa++)
    for (guint i = 0; i < G_N_ELEMENTS (block_sizes); i++)
      for (Shape s = SHAPE_MULTIPLE; s <= SHAPE_SINGLE; s++)
        {
          Case *tc = g_new (Case, 1);
          *tc = (Case) { isa, block_sizes[i], s };
          g_autofree char *path = g_strdup_printf ("/kernels/%s/b%u/%s",
                                                   spx_isa_to_string (isa),
                                                   tc->b, shape_names[s]);
          g_test_add_data_func_full (path, tc, test_case, g_free);
        }
  g_test_add_func ("/kernels/edge", test_edge);
  g_test_add_func ("/kernels/chunk-width", test_chunk_width);
  return g_test_run ();
}
