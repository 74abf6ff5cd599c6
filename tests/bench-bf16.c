/* bench-bf16.c: bf16 static plans against oneDNN's bf16 dense matmul,
 * measured side by side in one process (release build, quiet machine).
 *
 *   bench-bf16 [--isa=LIST] [--b=LIST] [--threads=T] [--n=N] [--size=M]
 *              [--density=D] [--reps=R]
 *
 * Uniform random blocks (m = k = size, default 2048, n 256, density 0.1)
 * per block size and bf16 path (ISA names: avx512 is the best bf16
 * extension, avx512-bf16 without AMX, avx2/generic the widened fp32
 * kernels). Dense and sparse runs alternate (warm-up, then the median of
 * R runs each). eff = dense time · density / sparse time: 1.0 would make
 * the speed-up exactly 1/density. On a busy machine, --threads=1
 * --cpu-time compares the kernels without the time others take. */
#include "spx-engine.h"
#include "spx-bf16.h"
#include "spx-mask-gen.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define WARMUP 2

static char   *opt_isa = "avx512,avx512-bf16", *opt_b = "1,2,4,8,16,32";
static gint64  opt_n = 256, opt_size = 2048, opt_reps = 9, opt_threads = 2;
static double  opt_density = 0.1;
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

typedef struct {
  SpxMask *mask;
  float   *values;
  guint16 *A16, *B16; /* dense A with its zeros, and B */
  float   *Cd, *Cs;
} Problem;

static Problem
problem_new (guint b)
{
  Problem p = { 0 };
  SpxGenOptions gen;
  g_autoptr (GError) error = NULL;
  SpxRng rng;
  guint64 m = opt_size, k = opt_size, n = opt_n;
  gsize bb = (gsize) b * b;

  spx_gen_options_init (&gen);
  gen.pattern = SPX_PATTERN_UNIFORM;
  gen.density = opt_density;
  gen.seed = 1;
  p.mask = spx_mask_generate (m, k, b, &gen, &error);
  if (p.mask == NULL)
    g_error ("%s", error->message);
  p.values = g_new (float, MAX (spx_mask_count (p.mask) * bb, 1));
  p.A16 = g_new0 (guint16, m * k);
  p.B16 = g_new (guint16, k * n);
  p.Cd = g_new0 (float, m * n);
  p.Cs = g_new0 (float, m * n);
  spx_rng_init (&rng, 2);
  SpxMaskIter it;
  guint64 br, bc, i = 0;
  spx_mask_iter_init (&it, p.mask);
  while (spx_mask_iter_next (&it, &br, &bc))
    for (gsize e = 0; e < bb; e++, i++)
      {
        guint64 r = br * b + e / b, c = bc * b + e % b;
        p.values[i] = (float) (spx_rng_uniform (&rng) * 2 - 1);
        if (r < m && c < k)
          p.A16[r * k + c] = spx_bf16_from_float (p.values[i]);
      }
  for (gsize j = 0; j < k * n; j++)
    p.B16[j] = spx_bf16_from_float ((float) (spx_rng_uniform (&rng) * 2 - 1));
  return p;
}

static void
problem_clear (Problem *p)
{
  spx_mask_free (p->mask);
  g_free (p->values);
  g_free (p->A16);
  g_free (p->B16);
  g_free (p->Cd);
  g_free (p->Cs);
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
measure (Problem *p, SpxDenseOnednn *dense, SpxIsa isa)
{
  guint threads = (guint) opt_threads;
  SpxEngineOptions options = { .threads = threads, .isa = isa,
                               .type = SPX_CPU_BF16 };
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxStaticPlan) plan = spx_static_plan_new (p->mask, p->values,
                                                        opt_n, &options,
                                                        &error);
  g_autofree double *td = g_new (double, opt_reps);
  g_autofree double *ts = g_new (double, opt_reps);
  if (plan == NULL)
    g_error ("%s", error->message);
  for (gint64 r = -WARMUP; r < opt_reps; r++)
    {
      double t0 = now ();
      spx_dense_onednn_run (dense, p->A16, p->B16, p->Cd);
      double t1 = now ();
      spx_static_plan_execute_bf16 (plan, p->B16, p->Cs, FALSE);
      double t2 = now ();
      if (r >= 0)
        {
          td[r] = t1 - t0;
          ts[r] = t2 - t1;
        }
    }
  double dense_t = median (td, (guint) opt_reps);
  double sparse_t = median (ts, (guint) opt_reps);
  double density = (double) spx_mask_count_elements (p->mask) /
                   (p->mask->rows * p->mask->cols);
  printf ("%-12s %2u %3u %5.3f | %8.3f %-16s | %8.3f | %5.3f %5.3f | %.1e\n",
          spx_static_plan_kernel (plan), p->mask->block, threads, density,
          dense_t * 1e3, spx_dense_onednn_kernel (dense), sparse_t * 1e3,
          dense_t * density / sparse_t, td[0] * density / ts[0],
          rel_error (p->Cs, p->Cd, p->mask->rows * opt_n));
  fflush (stdout);
}

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
bench_block (guint b, char **isas)
{
  Problem p = problem_new (b);
  g_autoptr (GError) error = NULL;
  SpxDenseOnednn *dense = spx_dense_onednn_new (opt_size, opt_size, opt_n,
                                                SPX_CPU_BF16,
                                                (guint) opt_threads, &error);
  if (dense == NULL)
    g_error ("%s", error->message);
  for (guint i = 0; isas[i] != NULL; i++)
    {
      SpxIsa isa;
      if (!spx_isa_from_string (isas[i], &isa) || !spx_isa_supported (isa))
        printf ("# %s: unknown or not supported here\n", isas[i]);
      else
        measure (&p, dense, isa);
    }
  spx_dense_onednn_free (dense);
  problem_clear (&p);
}

int
main (int argc, char **argv)
{
  GOptionEntry entries[] = {
    { "isa", 0, 0, G_OPTION_ARG_STRING, &opt_isa, "Paths", "LIST" },
    { "b", 0, 0, G_OPTION_ARG_STRING, &opt_b, "Block sizes", "LIST" },
    { "threads", 0, 0, G_OPTION_ARG_INT64, &opt_threads, "Threads", "T" },
    { "n", 0, 0, G_OPTION_ARG_INT64, &opt_n, "Columns of B", "N" },
    { "size", 0, 0, G_OPTION_ARG_INT64, &opt_size, "m = k", "M" },
    { "density", 0, 0, G_OPTION_ARG_DOUBLE, &opt_density, "Of blocks", "D" },
    { "reps", 0, 0, G_OPTION_ARG_INT64, &opt_reps, "Timed runs", "R" },
    { "cpu-time", 0, 0, G_OPTION_ARG_NONE, &opt_cpu_time,
      "Process CPU time, not wall time (one thread on a busy machine)",
      NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) context = g_option_context_new (NULL);
  g_autoptr (GError) error = NULL;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) ||
      opt_n < 1 || opt_size < 1 || opt_reps < 1 || opt_threads < 1 ||
      opt_density <= 0 || opt_density > 1)
    {
      fprintf (stderr, "bench-bf16: %s\n",
               error ? error->message : "bad --n, --size, --reps, --threads "
                                        "or --density");
      return 2;
    }
  g_autoptr (GArray) blocks = parse_list (opt_b);
  g_auto (GStrv) isas = g_strsplit (opt_isa, ",", -1);
  omp_set_num_threads ((int) opt_threads);
  printf ("# %-10s %2s %3s %5s | %8s %-16s | %8s | %5s %5s | %s\n", "kernel",
          "b", "thr", "dens", "dense ms", "oneDNN kernel", "spars ms", "eff",
          "first", "relerr");
  for (guint i = 0; i < blocks->len; i++)
    bench_block (g_array_index (blocks, guint, i), isas);
  return 0;
}
