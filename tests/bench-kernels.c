/* bench-kernels.c: the micro-kernels and the executor against dense
 * OpenBLAS sgemm, measured side by side in one process (use a release
 * build on a quiet machine).
 *
 *   bench-kernels [--isa=NAME] [--b=LIST] [--threads=LIST] [--n=N]
 *                 [--size=M] [--density=D] [--nc=W] [--kp=ROWS] [--reps=R]
 *                 [--huge] [--dlmc] [--dlmc-dir=DIR] [--bf16] [--cpu-time]
 *
 * --dlmc reads the collection from --dlmc-dir or SPX_DLMC_DIR.
 *
 * Uniform random blocks (m = k = size, default 2048, n 256, density 0.1)
 * for each block size, ISA the processor runs and thread count; with
 * --dlmc, b = 1 on the DLMC Transformer matrices instead. Dense and
 * sparse runs alternate (warm-up, then the median of R runs each).
 * "eff" is the sparse non-zero GFLOP/s (2·nnz·n / time) over the dense
 * GFLOP/s: 1.0 would make the speed-up exactly 1/density. With two
 * threads the block-rows are split by non-zeros, heaviest first, each
 * thread calling spx_kernel_run on its share, as the plans do.
 *
 * --huge puts B and C (shared by both sides) on transparent huge pages:
 * the kernels read B's rows at random, and with 4 KiB pages address
 * translation, not bandwidth, costs them most (see the report).
 *
 * --bf16 measures bf16 static plans (the whole run: B's packing, the
 * threads) against oneDNN's bf16 matmul instead, on the uniform blocks;
 * --isa picks the path (default avx512: the fastest for each b). eff is
 * dense time · density / sparse time. On a busy machine, --threads=1
 * --cpu-time compares without the time other processes take. */
#include "spx-engine.h"
#include "spx-bf16.h"
#include "spx-kernels-private.h"
#include "spx-mask-gen.h"
#include "spx-mask-io.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define WARMUP 2
/* GFLOP/s per core: dense far below ~130 means a broken harness. */
#define DENSE_FLOOR 100.0

typedef struct {
  guint64     m, k, n;
  guint       b;
  guint64     brows, n_blocks, nnz;
  float      *values;    /* n_blocks × b × b */
  float      *dense;     /* m × k, the same A with its zeros */
  guint32    *offsets;
  SpxRowWork *work;      /* one per block-row */
} Problem;

/* One thread's share of the block-rows, heaviest first. */
typedef struct {
  guint       n_threads;
  SpxRowWork *work[2];
  gsize       len[2];
} Split;

static char    *opt_isa, *opt_b = "1,2,4,8,16,32", *opt_threads = "1,2";
static char    *opt_dlmc;
static gint64   opt_n = 256, opt_size = 2048, opt_nc, opt_kp, opt_reps = 9;
static double   opt_density = 0.1;
static gboolean opt_dlmc_default, opt_huge, opt_row_order, opt_bf16;
static gboolean opt_cpu_time;

static double
now (void)
{
  struct timespec ts;
  clock_gettime (opt_cpu_time ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC,
                 &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static double
median (double *t, guint n)
{
  qsort (t, n, sizeof *t, cmp_double);
  return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

/* Work items from a block mask, values and B's stride; the ragged last
 * block-column goes to the edge block, as in the plans. */
static Problem *
problem_new (const SpxMask *mask, guint64 n, guint64 seed)
{
  Problem *p = g_new0 (Problem, 1);
  guint b = mask->block;
  gsize bb = (gsize) b * b;
  SpxRng rng;

  p->m = mask->rows;
  p->k = mask->cols;
  p->n = n;
  p->b = b;
  p->brows = mask->brows;
  p->n_blocks = spx_mask_count (mask);
  p->nnz = spx_mask_count_elements (mask);
  p->values = g_new (float, MAX (p->n_blocks * bb, 1));
  p->dense = g_new0 (float, p->m * p->k);
  p->offsets = g_new (guint32, MAX (p->n_blocks, 1));
  p->work = g_new0 (SpxRowWork, p->brows);
  spx_rng_init (&rng, seed);

  guint64 j = 0;
  guint kw_last = (guint) (p->k - (mask->bcols - 1) * b);
  for (guint64 br = 0; br < p->brows; br++)
    {
      SpxRowWork *w = &p->work[br];
      guint64 first = j;
      w->c_row = br * b;
      w->task.b = b;
      w->task.rows = spx_mask_block_height (mask, br);
      w->task.values = p->values + first * bb;
      w->task.b_offsets = p->offsets + first;
      for (guint64 bc = 0; bc < mask->bcols; bc++)
        {
          if (!spx_mask_get (mask, br, bc))
            continue;
          float *v = p->values + j * bb;
          for (gsize e = 0; e < bb; e++)
            {
              guint64 r = br * b + e / b, c = bc * b + e % b;
              v[e] = (float) (spx_rng_uniform (&rng) * 2 - 1);
              if (r < p->m && c < p->k)
                p->dense[r * p->k + c] = v[e];
            }
          p->offsets[j++] = (guint32) (bc * b * n);
        }
      guint64 count = j - first;
      if (count > 0 && kw_last < b &&
          spx_mask_get (mask, br, mask->bcols - 1))
        {
          count--;
          w->edge_values = p->values + (first + count) * bb;
          w->edge_kw = kw_last;
          w->edge_b_offset = p->offsets[first + count];
        }
      w->task.n_blocks = (guint) count;
    }
  return p;
}

static void
problem_free (Problem *p)
{
  g_free (p->values);
  g_free (p->dense);
  g_free (p->offsets);
  g_free (p->work);
  g_free (p);
}

static guint64
row_weight (const SpxRowWork *w)
{
  return w->task.n_blocks + (w->edge_values != NULL);
}

static int
cmp_row (const void *a, const void *b)
{
  guint64 x = ((const SpxRowWork *) a)->c_row, y = ((const SpxRowWork *) b)->c_row;
  return (x > y) - (x < y);
}

static int
cmp_heavier (const void *a, const void *b)
{
  guint64 x = row_weight (a), y = row_weight (b);
  return (x < y) - (x > y);
}

/* Heaviest block-rows first, each to the thread with less so far. */
static Split
split_new (const Problem *p, guint n_threads)
{
  Split s = { n_threads, { NULL, NULL }, { 0, 0 } };
  g_autofree SpxRowWork *sorted = g_memdup2 (p->work,
                                             p->brows * sizeof (SpxRowWork));
  guint64 load[2] = { 0, 0 };

  qsort (sorted, p->brows, sizeof (SpxRowWork), cmp_heavier);
  for (guint t = 0; t < n_threads; t++)
    s.work[t] = g_new (SpxRowWork, p->brows);
  for (guint64 i = 0; i < p->brows; i++)
    {
      guint t = (n_threads == 2 && load[1] < load[0]) ? 1 : 0;
      s.work[t][s.len[t]++] = sorted[i];
      load[t] += row_weight (&sorted[i]) + 1;
    }
  /* Balanced heaviest first, run in row order (--order=rows): A's values
   * and C are then read in sequence. */
  if (opt_row_order)
    for (guint t = 0; t < n_threads; t++)
      qsort (s.work[t], s.len[t], sizeof (SpxRowWork), cmp_row);
  return s;
}

static void
split_clear (Split *s)
{
  for (guint t = 0; t < s->n_threads; t++)
    g_free (s->work[t]);
}

static void
run_sparse (const Problem *p, const Split *s, SpxIsa isa, const float *B,
            float *C)
{
  guint64 n = p->n;
#pragma omp parallel num_threads (s->n_threads)
  {
    guint t = (guint) omp_get_thread_num ();
    if (opt_nc > 0 || opt_kp > 0)
      spx_kernel_run_blocked (isa, s->work[t], s->len[t], B, n, C, n, n,
                              FALSE, opt_nc > 0 ? (guint64) opt_nc : n,
                              opt_kp > 0 ? (guint64) opt_kp : G_MAXUINT64);
    else
      spx_kernel_run (isa, s->work[t], s->len[t], B, n, C, n, n, FALSE);
  }
}

/* A matrix for both sides, on 2 MiB pages when --huge (and the kernel
 * lets us). */
static float *
matrix_new (gsize len)
{
  gsize bytes = len * sizeof (float), huge = 2 << 20;
  void *p = NULL;

  if (!opt_huge)
    return g_new0 (float, len);
  bytes = (bytes + huge - 1) / huge * huge;
  if (posix_memalign (&p, huge, bytes) != 0)
    g_error ("out of memory");
  madvise (p, bytes, MADV_HUGEPAGE);
  memset (p, 0, bytes);
  return p;
}

/* Largest difference over the largest dense entry. */
static double
rel_error (const float *x, const float *ref, gsize len)
{
  double diff = 0, scale = 0;
  for (gsize i = 0; i < len; i++)
    {
      diff = MAX (diff, fabs ((double) x[i] - ref[i]));
      scale = MAX (scale, fabs ((double) ref[i]));
    }
  return scale > 0 ? diff / scale : diff;
}

static void
measure (const char *label, const Problem *p, SpxIsa isa, guint threads)
{
  g_autofree float *B = matrix_new (p->k * p->n);
  g_autofree float *Cd = matrix_new (p->m * p->n);
  g_autofree float *Cs = matrix_new (p->m * p->n);
  g_autofree double *td = g_new (double, opt_reps);
  g_autofree double *ts = g_new (double, opt_reps);
  Split split = split_new (p, threads);
  SpxRng rng;

  spx_rng_init (&rng, 42);
  for (guint64 i = 0; i < p->k * p->n; i++)
    B[i] = (float) (spx_rng_uniform (&rng) * 2 - 1);
  omp_set_num_threads ((int) threads);
  for (gint64 r = -WARMUP; r < opt_reps; r++)
    {
      double t0 = now ();
      spx_dense_sgemm (p->m, p->k, p->n, p->dense, B, Cd, FALSE, threads);
      double t1 = now ();
      run_sparse (p, &split, isa, B, Cs);
      double t2 = now ();
      if (r >= 0)
        {
          td[r] = t1 - t0;
          ts[r] = t2 - t1;
        }
    }

  double dense_t = median (td, (guint) opt_reps);
  double sparse_t = median (ts, (guint) opt_reps);
  /* median sorted them. On a shared machine the best runs say more
   * about the kernels. */
  double best = td[0] / ts[0];
  double dense_gf = 2.0 * p->m * p->k * p->n / dense_t * 1e-9;
  double sparse_gf = 2.0 * p->nnz * p->n / sparse_t * 1e-9;
  guint64 nc = opt_nc > 0 ? (guint64) opt_nc
                          : spx_kernel_chunk_width (p->work, p->brows, p->n,
                                                    p->n);
  printf ("%-24s %-7s %2u %4u %4" G_GUINT64_FORMAT " %5.3f | %8.3f %7.1f |"
          " %8.3f %7.1f | %5.3f %5.3f %6.2f | %.1e%s\n",
          label, spx_isa_to_string (isa), p->b, threads, MIN (nc, p->n),
          (double) p->nnz / (p->m * p->k), dense_t * 1e3, dense_gf,
          sparse_t * 1e3, sparse_gf, sparse_gf / dense_gf,
          best * p->nnz / (p->m * p->k), dense_t / sparse_t,
          rel_error (Cs, Cd, p->m * p->n),
          dense_gf / threads < DENSE_FLOOR ? "  (dense too slow: harness?)"
                                           : "");
  fflush (stdout);
  split_clear (&split);
}

static void
header (void)
{
  gboolean openmp;
  const char *config = spx_dense_config (&openmp);
  printf ("# OpenBLAS: %s (%s threads)\n", config,
          openmp ? "OpenMP" : "NOT OpenMP: its spinning threads starve the "
                              "sparse side");
  printf ("# %-22s %-7s %2s %4s %4s %5s | %8s %7s | %8s %7s | %5s %5s %6s |"
          " %s\n", "case", "isa", "b", "thr", "nc", "dens", "dense ms", "GF/s",
          "spars ms", "nzGF/s", "eff", "best", "speedup", "relerr");
  printf ("# eff: of the medians; best: of the fastest runs of each\n");
}

/* Parse a comma-separated list of unsigned numbers. */
static GArray *
parse_list (const char *text)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (guint));
  g_auto (GStrv) parts = g_strsplit (text, ",", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      guint v = (guint) g_ascii_strtoull (parts[i], NULL, 10);
      if (v > 0)
        g_array_append_val (out, v);
    }
  return out;
}

static void
each_isa_thread (const char *label, const Problem *p, GArray *threads)
{
  for (SpxIsa isa = SPX_ISA_AVX512; (int) isa >= SPX_ISA_GENERIC; isa--)
    {
      if (!spx_isa_supported (isa) ||
          (opt_isa != NULL && g_strcmp0 (opt_isa, spx_isa_to_string (isa))))
        continue;
      for (guint t = 0; t < threads->len; t++)
        measure (label, p, isa, MIN (g_array_index (threads, guint, t), 2));
    }
}

/* A bf16 copy of the dense A (with its zeros) and of B, for oneDNN and
 * the plan. */
typedef struct {
  guint16 *A, *B;
  float   *Cd, *Cs;
} Bf16Operands;

static Bf16Operands
bf16_operands (const Problem *p)
{
  Bf16Operands o = { g_new (guint16, p->m * p->k),
                     g_new (guint16, p->k * p->n),
                     g_new0 (float, p->m * p->n), g_new0 (float, p->m * p->n) };
  SpxRng rng;
  spx_rng_init (&rng, 42);
  spx_bf16_from_floats (p->dense, o.A, p->m * p->k);
  for (guint64 i = 0; i < p->k * p->n; i++)
    o.B[i] = spx_bf16_from_float ((float) (spx_rng_uniform (&rng) * 2 - 1));
  return o;
}

static void
bf16_operands_clear (Bf16Operands *o)
{
  g_free (o->A);
  g_free (o->B);
  g_free (o->Cd);
  g_free (o->Cs);
}

static void
measure_bf16 (const Problem *p, const SpxMask *mask, guint threads)
{
  SpxEngineOptions options = { .threads = threads, .isa = SPX_ISA_AVX512,
                               .type = SPX_CPU_BF16 };
  g_autoptr (GError) error = NULL;
  if (opt_isa != NULL && !spx_isa_from_string (opt_isa, &options.isa))
    g_error ("--isa=%s: no such instruction set", opt_isa);
  SpxDenseOnednn *dense = spx_dense_onednn_new (p->m, p->k, p->n,
                                                SPX_CPU_BF16, threads, &error);
  g_autoptr (SpxStaticPlan) plan = spx_static_plan_new (
    mask, p->values, p->n, &options, dense != NULL ? &error : NULL);
  if (dense == NULL || plan == NULL)
    g_error ("%s", error->message);
  Bf16Operands o = bf16_operands (p);
  g_autofree double *td = g_new (double, opt_reps);
  g_autofree double *ts = g_new (double, opt_reps);
  omp_set_num_threads ((int) threads);
  for (gint64 r = -WARMUP; r < opt_reps; r++)
    {
      double t0 = now ();
      spx_dense_onednn_run (dense, o.A, o.B, o.Cd);
      double t1 = now ();
      spx_static_plan_execute_bf16 (plan, o.B, o.Cs, FALSE);
      double t2 = now ();
      if (r >= 0)
        {
          td[r] = t1 - t0;
          ts[r] = t2 - t1;
        }
    }
  double dense_t = median (td, (guint) opt_reps);
  double sparse_t = median (ts, (guint) opt_reps);
  double density = (double) p->nnz / (p->m * p->k);
  printf ("%-12s %2u %3u %5.3f | %8.3f %-26s | %8.3f | %5.3f %5.3f | %.1e\n",
          spx_static_plan_kernel (plan), p->b, threads, density,
          dense_t * 1e3, spx_dense_onednn_kernel (dense), sparse_t * 1e3,
          dense_t * density / sparse_t, td[0] * density / ts[0],
          rel_error (o.Cs, o.Cd, p->m * p->n));
  fflush (stdout);
  spx_dense_onednn_free (dense);
  bf16_operands_clear (&o);
}

static SpxMask *
uniform_mask (guint b)
{
  SpxGenOptions gen;
  g_autoptr (GError) error = NULL;

  spx_gen_options_init (&gen);
  gen.pattern = SPX_PATTERN_UNIFORM;
  gen.density = opt_density;
  gen.seed = 1;
  SpxMask *mask = spx_mask_generate (opt_size, opt_size, b, &gen, &error);
  if (mask == NULL)
    g_error ("%s", error->message);
  return mask;
}

static void
header_bf16 (void)
{
  printf ("# %-10s %2s %3s %5s | %8s %-26s | %8s | %5s %5s | %s\n", "kernel",
          "b", "thr", "dens", "dense ms", "oneDNN kernel", "spars ms", "eff",
          "first", "relerr");
}

static void
bench_uniform (GArray *blocks, GArray *threads)
{
  for (guint i = 0; i < blocks->len; i++)
    {
      g_autoptr (SpxMask) mask = uniform_mask (g_array_index (blocks, guint,
                                                              i));
      Problem *p = problem_new (mask, opt_n, 2);
      g_autofree char *label = g_strdup_printf ("uniform %" G_GINT64_FORMAT,
                                                opt_size);
      if (!opt_bf16)
        each_isa_thread (label, p, threads);
      for (guint t = 0; opt_bf16 && t < threads->len; t++)
        measure_bf16 (p, mask, g_array_index (threads, guint, t));
      problem_free (p);
    }
}

static void
bench_dlmc (const char *dir, GArray *threads)
{
  static const char *const files[] = {
    "0.5/body_decoder_layer_0_ffn_conv1_fully_connected.smtx",
    "0.6/body_decoder_layer_0_ffn_conv1_fully_connected.smtx",
    "0.7/body_decoder_layer_0_ffn_conv1_fully_connected.smtx",
    "0.8/body_decoder_layer_0_ffn_conv1_fully_connected.smtx",
    "0.9/body_decoder_layer_0_ffn_conv1_fully_connected.smtx",
    "0.95/body_decoder_layer_0_ffn_conv1_fully_connected.smtx",
    "0.98/body_decoder_layer_0_ffn_conv1_fully_connected.smtx",
    "0.7/body_encoder_layer_0_ffn_conv2_fully_connected.smtx",
    "0.9/body_encoder_layer_0_ffn_conv2_fully_connected.smtx",
    "0.98/body_encoder_layer_0_ffn_conv2_fully_connected.smtx",
  };
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = g_build_filename (dir, "transformer",
                                                "magnitude_pruning", files[i],
                                                NULL);
      g_autoptr (GError) error = NULL;
      g_autoptr (SpxMask) mask = spx_mask_load (path, NULL, &error);
      if (mask == NULL)
        {
          printf ("# skipped: %s\n", error->message);
          continue;
        }
      Problem *p = problem_new (mask, opt_n, 3);
      g_autofree char *label = g_strdup_printf (
        "%.*s %s %" G_GUINT64_FORMAT "x%" G_GUINT64_FORMAT,
        (int) (strchr (files[i], '/') - files[i]), files[i],
        strstr (files[i], "conv1") ? "ffn1" : "ffn2", p->m, p->k);
      each_isa_thread (label, p, threads);
      problem_free (p);
    }
}

int
main (int argc, char **argv)
{
  GOptionEntry entries[] = {
    { "isa", 0, 0, G_OPTION_ARG_STRING, &opt_isa, "Only this ISA", "NAME" },
    { "b", 0, 0, G_OPTION_ARG_STRING, &opt_b, "Block sizes", "LIST" },
    { "threads", 0, 0, G_OPTION_ARG_STRING, &opt_threads, "1,2", "LIST" },
    { "n", 0, 0, G_OPTION_ARG_INT64, &opt_n, "Columns of B", "N" },
    { "size", 0, 0, G_OPTION_ARG_INT64, &opt_size, "m = k", "M" },
    { "density", 0, 0, G_OPTION_ARG_DOUBLE, &opt_density, "Of blocks", "D" },
    { "nc", 0, 0, G_OPTION_ARG_INT64, &opt_nc, "Chunk width", "W" },
    { "kp", 0, 0, G_OPTION_ARG_INT64, &opt_kp, "Panel height", "ROWS" },
    { "reps", 0, 0, G_OPTION_ARG_INT64, &opt_reps, "Timed runs", "R" },
    { "row-order", 0, 0, G_OPTION_ARG_NONE, &opt_row_order,
      "Each thread's share in row order, not heaviest first", NULL },
    { "huge", 0, 0, G_OPTION_ARG_NONE, &opt_huge,
      "B and C on transparent huge pages", NULL },
    { "bf16", 0, 0, G_OPTION_ARG_NONE, &opt_bf16,
      "bf16 static plans against oneDNN's bf16 matmul", NULL },
    { "cpu-time", 0, 0, G_OPTION_ARG_NONE, &opt_cpu_time,
      "Process CPU time, not wall time", NULL },
    { "dlmc", 0, 0, G_OPTION_ARG_NONE, &opt_dlmc_default,
      "DLMC Transformer matrices, b = 1", NULL },
    { "dlmc-dir", 0, 0, G_OPTION_ARG_FILENAME, &opt_dlmc, "DLMC folder",
      "DIR" },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) context = g_option_context_new (NULL);
  g_autoptr (GError) error = NULL;

  spx_dense_restart_at_full_speed (argv);
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) ||
      opt_n < 1 || opt_size < 1 || opt_reps < 1 || opt_density <= 0 ||
      opt_density > 1)
    {
      fprintf (stderr, "bench-kernels: %s\n",
               error ? error->message : "bad --n, --size, --reps or --density");
      return 2;
    }
  g_autoptr (GArray) blocks = parse_list (opt_b);
  g_autoptr (GArray) threads = parse_list (opt_threads);

  const char *dir = opt_dlmc ? opt_dlmc : g_getenv ("SPX_DLMC_DIR");
  if (opt_dlmc_default && dir == NULL)
    {
      fprintf (stderr, "bench-kernels: --dlmc: give the folder with "
               "--dlmc-dir=DIR or SPX_DLMC_DIR\n");
      return 2;
    }
  if (opt_bf16)
    header_bf16 ();
  else
    header ();
  if (opt_dlmc_default || opt_dlmc != NULL)
    bench_dlmc (dir, threads);
  else
    bench_uniform (blocks, threads);
  return 0;
}
